/*
 * femu-test cases: registers, queues and doorbells -- queue creation and
 * deletion, doorbell writes and their error events, shadow doorbells,
 * full and shared completion queues, resets, bus mastering, MSI-X.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu-host.h"

/* Doorbell Buffer Config (Base 2.0, 5.8) with the zeroed pages shadow
 * (doorbells) and shadow + PAGE (event indexes), which the driver then
 * keeps up to date. */
static void dbbuf_on(Ctrl *c, uint64_t shadow)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_DBBUF_CONFIG, 0, shadow, shadow + PAGE);

    qtest_memset(c->qts, shadow, 0, 2 * PAGE);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_SUCCESS);
    c->dbs = shadow;
    c->eis = shadow + PAGE;
}

void test_queues(void)
{
    Ctrl *c = ctrl_start("");
    uint64_t mem = guest_alloc(&c->qs->alloc, PAGE);
    uint64_t cap = qpci_io_readq(c->dev, c->bar, NVME_REG_CAP);
    uint32_t mqes = (cap & 0xffff) + 1;

    g_assert_cmphex(create_cq(c, 0, 8, 1, 0, mem), ==, NVME_INVALID_QID);
    g_assert_cmphex(create_cq(c, 3, 8, 1, 0, mem), ==, NVME_INVALID_QID);
    g_assert_cmphex(create_cq(c, 0xffff, 8, 1, 0, mem), ==, NVME_INVALID_QID);
    g_assert_cmphex(create_cq(c, IOQ, 8, 1, 0, mem), ==, NVME_INVALID_QID);
    g_assert_cmphex(create_cq(c, 2, 1, 1, 0, mem), ==,
                    NVME_MAX_QSIZE_EXCEEDED);
    if (mqes < 0x10000) {
        g_assert_cmphex(create_cq(c, 2, mqes + 1, 1, 0, mem), ==,
                        NVME_MAX_QSIZE_EXCEEDED);
    }
    g_assert_cmphex(create_cq(c, 2, 8, 0 /* not contiguous */, 0, mem), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(create_cq(c, 2, 8, 3, 100 /* no such vector */, mem), ==,
                    NVME_INVALID_IRQ_VECTOR);
    g_assert_cmphex(create_cq(c, 2, 8, 1, 0, mem + 4), ==,
                    NVME_INVALID_PRP_OFFSET);
    /* SQ: its CQ does not exist, id 0, duplicate, size 0 */
    g_assert_cmphex(create_sq(c, 2, 8, 2, mem), ==, NVME_INVALID_CQID);
    g_assert_cmphex(create_sq(c, 2, 8, 0, mem), ==, NVME_INVALID_CQID);
    g_assert_cmphex(create_sq(c, 0, 8, IOQ, mem), ==, NVME_INVALID_QID);
    g_assert_cmphex(create_sq(c, IOQ, 8, IOQ, mem), ==, NVME_INVALID_QID);
    g_assert_cmphex(create_sq(c, 2, 1, IOQ, mem), ==, NVME_MAX_QSIZE_EXCEEDED);
    /* Delete: admin queue, queues that do not exist, a CQ with an SQ */
    g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_SQ, 0), ==,
                    NVME_INVALID_QID);
    g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_CQ, 0), ==,
                    NVME_INVALID_QID);
    g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_SQ, 2), ==,
                    NVME_INVALID_QID);
    g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_CQ, 0x1234), ==,
                    NVME_INVALID_QID);
    g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_CQ, IOQ), ==,
                    NVME_INVALID_QUEUE_DEL);
    /* the proper order works, and the pair can be made again */
    g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_SQ, IOQ), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_CQ, IOQ), ==,
                    NVME_SUCCESS);
    c->q[IOQ].live = false;
    ctrl_stop(c);
}

/* Doorbell writes the controller must survive (Base 2.0, 3.1.4.x and
 * 5.2: Invalid Doorbell Register / Write Value raise an async event; no
 * command runs). */
void test_doorbells(void)
{
    Ctrl *c = ctrl_start("");
    uint64_t bar_size = c->bar_size;
    NvmeCqe cqe;

    /* queues that do not exist, and past the last doorbell */
    wr32(c, DB(2, 0), 5);
    wr32(c, DB(2, 1), 5);
    wr32(c, DB(3, 0), 1);
    wr32(c, DB(100, 0), 1);
    wr32(c, bar_size - 4, 0xffffffff);
    /* tail/head beyond the queue size (QDEPTH entries) */
    wr32(c, DB(IOQ, 0), QDEPTH + 3);
    wr32(c, DB(0, 0), 0xffff);
    wr32(c, DB(IOQ, 1), QDEPTH);
    wr32(c, DB(0, 1), 60000);
    /* none of it ran a command */
    g_assert_false(reap(c, 0, &cqe, 300 * 1000));
    g_assert_false(reap(c, IOQ, &cqe, 100 * 1000));
    /* the bad values are reported: an Asynchronous Event Request gets
     * an error event "Invalid Doorbell Write Value" (Base 2.0, 5.2) */
    {
        NvmeCmd aer = mk(NVME_ADM_CMD_ASYNC_EV_REQ, 0, 0, 0);
        uint32_t dw0;
        g_assert_cmphex(run(c, 0, &aer, &dw0), ==, NVME_SUCCESS);
        g_assert_cmphex(dw0 & 7, ==, NVME_AER_TYPE_ERROR);
        /* the writes to doorbells of queues that do not exist came
         * first and may be reported instead (Invalid Doorbell Register);
         * one error event masks the next until the log is read */
        g_assert((dw0 >> 8 & 0xff) == NVME_AER_INFO_ERR_INVALID_DB_VALUE ||
                 (dw0 >> 8 & 0xff) == NVME_AER_INFO_ERR_INVALID_DB_REGISTER);
    }
    /* the queues must work from where they were (a controller may also
     * have failed the queue: CSTS.CFS); reset to be sure about that */
    if (rd32(c, NVME_REG_CSTS) & 2) {
        ctrl_enable(c);
    }
    health(c);
    ctrl_stop(c);
}

/*
 * Each kind of invalid doorbell write is reported by its own
 * Error asynchronous event (Base 2.0, 5.2, "Asynchronous Event
 * Information - Error Status"): 00h Write to Invalid Doorbell Register
 * for a queue that was never created or is beyond the queues offered,
 * 01h Invalid Doorbell Write Value for a tail/head beyond the queue
 * size.  The AER is outstanding when the write comes; reading the error
 * log (RAE = 0) unmasks the next error event.
 */

static uint32_t db_aer(Ctrl *c, uint64_t db, uint32_t val)
{
    NvmeCmd aer = mk(NVME_ADM_CMD_ASYNC_EV_REQ, 0, 0, 0);
    uint16_t cid;
    NvmeCqe cqe;

    submit(c, 0, &aer);
    cid = c->cid;
    /* no event yet: the AER stays outstanding */
    g_assert_false(reap(c, 0, &cqe, 100 * 1000));
    wr32(c, db, val);
    g_assert(reap(c, 0, &cqe, TIMEOUT_US));
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, cid);
    g_assert_cmphex(STATUS(le16_to_cpu(cqe.status) >> 1), ==, NVME_SUCCESS);
    /* the event is acknowledged by reading its log page */
    g_assert_cmphex(get_log(c, NVME_LOG_ERROR_INFO, 15, 0, c->buf, 0), ==,
                    NVME_SUCCESS);
    return le32_to_cpu(cqe.result);
}

void test_doorbell_events(void)
{
    Ctrl *c = ctrl_start("");
    uint32_t dw0;

    /* SQ 2 is offered (queues=2) but was never created */
    dw0 = db_aer(c, DB(2, 0), 1);
    g_assert_cmphex(dw0 & 7, ==, NVME_AER_TYPE_ERROR);
    g_assert_cmphex(dw0 >> 8 & 0xff, ==, NVME_AER_INFO_ERR_INVALID_DB_REGISTER);
    g_assert_cmphex(dw0 >> 16 & 0xff, ==, NVME_LOG_ERROR_INFO);
    /* CQ 3 is beyond the queues offered */
    dw0 = db_aer(c, DB(3, 1), 0);
    g_assert_cmphex(dw0 >> 8 & 0xff, ==, NVME_AER_INFO_ERR_INVALID_DB_REGISTER);
    /* the I/O SQ tail beyond its size */
    dw0 = db_aer(c, DB(IOQ, 0), QDEPTH + 3);
    g_assert_cmphex(dw0 & 7, ==, NVME_AER_TYPE_ERROR);
    g_assert_cmphex(dw0 >> 8 & 0xff, ==, NVME_AER_INFO_ERR_INVALID_DB_VALUE);
    /* none of it moved a queue: the device works from where it was */
    health(c);
    ctrl_stop(c);
}

/* Wait for the CQE in slot q->head of qid to be posted, without
 * consuming it (no head doorbell). */
static bool cqe_posted(Ctrl *c, int qid, int ahead, int timeout_us)
{
    Queue *q = &c->q[qid];
    int size = q->cqsize ? q->cqsize : QDEPTH;
    int slot = (q->head + ahead) % size;
    uint8_t phase = (q->head + ahead >= size) ? !q->phase : q->phase;
    NvmeCqe cqe;

    for (int t = 0; t < timeout_us; t += 1000) {
        qtest_memread(c->qts, q->cq + slot * sizeof(cqe), &cqe, sizeof(cqe));
        if ((le16_to_cpu(cqe.status) & 1) == phase) {
            return true;
        }
        g_usleep(1000);
    }
    return false;
}

/* An AER completes with the event queued earlier; the error log read
 * acknowledges it (and unmasks the next error event). */
static uint32_t aer_queued(Ctrl *c)
{
    NvmeCmd aer = mk(NVME_ADM_CMD_ASYNC_EV_REQ, 0, 0, 0);
    uint32_t dw0;

    g_assert_cmphex(run(c, 0, &aer, &dw0), ==, NVME_SUCCESS);
    g_assert_cmphex(get_log(c, NVME_LOG_ERROR_INFO, 15, 0, c->buf, 0), ==,
                    NVME_SUCCESS);
    return dw0;
}

/* Error event 01h Invalid Doorbell Write Value, for the error log page:
 * AER completion dword 0 = type | info << 8 | log page << 16 (Base 2.0,
 * 5.2, Figure "Asynchronous Event Request - Completion Queue Entry
 * Dword 0"). */
#define AER_INVALID_DB_VALUE (NVME_AER_TYPE_ERROR | \
                              NVME_AER_INFO_ERR_INVALID_DB_VALUE << 8 | \
                              NVME_LOG_ERROR_INFO << 16)

/*
 * Doorbell values that are in range but inconsistent with the queue's
 * state (Base 2.0, 5.2, "Asynchronous Event Information - Error
 * Status", 01h Invalid Doorbell Write Value): a CQ head that would
 * consume completions the controller has not posted, an SQ tail that
 * would make the SQ more than full (back into entries not fetched yet,
 * or onto the head while entries are pending).  Each is ignored and
 * reported; the queues go on from where they were.
 */
void test_doorbell_values(void)
{
    Ctrl *c = ctrl_start("");
    Queue *q = &c->q[IOQ];
    uint16_t pcmd = qpci_config_readw(c->dev, PCI_COMMAND);
    uint16_t first;
    NvmeCqe cqe;

    /* idle I/O CQ (head = tail): head + 1 consumes nothing posted */
    g_assert_cmphex(db_aer(c, DB(IOQ, 1), (q->head + 1) % QDEPTH), ==,
                    AER_INVALID_DB_VALUE);
    /* the admin CQ too: the AER waiting for the event is not posted yet */
    g_assert_cmphex(db_aer(c, DB(0, 1), (c->q[0].head + 1) % QDEPTH), ==,
                    AER_INVALID_DB_VALUE);
    /* two completions posted, not consumed: head + 3 is one too many */
    first = c->cid + 1;
    for (int i = 0; i < 2; i++) {
        NvmeCmd cmd = mk(NVME_CMD_FLUSH, 1, 0, 0);
        submit(c, IOQ, &cmd);
    }
    g_assert(cqe_posted(c, IOQ, 1, TIMEOUT_US));
    g_assert_cmphex(db_aer(c, DB(IOQ, 1), (q->head + 3) % QDEPTH), ==,
                    AER_INVALID_DB_VALUE);
    /* ... and was ignored: both are consumed normally (head + 1, + 2) */
    for (int i = 0; i < 2; i++) {
        g_assert(reap(c, IOQ, &cqe, TIMEOUT_US));
        g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, (uint16_t)(first + i));
    }

    /*
     * SQ tail: entries the controller has not fetched are needed, and
     * with bus mastering off it cannot fetch them (see
     * test_bus_master_off), so three stay pending at a known head.
     * No AER is outstanding meanwhile (its completion could not be
     * posted either): the events are queued and reported afterwards.
     */
    {
        uint16_t head = q->tail;    /* everything before was fetched */

        qpci_config_writew(c->dev, PCI_COMMAND, pcmd & ~PCI_COMMAND_MASTER);
        first = c->cid + 1;
        for (int i = 0; i < 3; i++) {
            NvmeCmd cmd = mk(NVME_CMD_FLUSH, 1, 0, 0);
            submit(c, IOQ, &cmd);
        }
        /* back into the pending entries; onto the head (3 pending) */
        wr32(c, DB(IOQ, 0), (head + 1) % QDEPTH);
        wr32(c, DB(IOQ, 0), head);
        qpci_config_writew(c->dev, PCI_COMMAND, pcmd);
        /* the tail stayed at head + 3: all three run, in order */
        reap_in_order(c, IOQ, first, 3);
        g_assert_false(reap(c, IOQ, &cqe, 100 * 1000));
        /* one event per bad write */
        g_assert_cmphex(aer_queued(c), ==, AER_INVALID_DB_VALUE);
        g_assert_cmphex(aer_queued(c), ==, AER_INVALID_DB_VALUE);
    }
    /* a full SQ is fine: tail one behind the head */
    {
        uint64_t sq = guest_alloc(&c->qs->alloc, PAGE);
        uint64_t cq = guest_alloc(&c->qs->alloc, PAGE);

        queue_init(c, 2, sq, cq, 4, 8);
        create_io_pair(c, 2, 1, 0);
        qpci_config_writew(c->dev, PCI_COMMAND, pcmd & ~PCI_COMMAND_MASTER);
        for (int i = 0; i < 3; i++) {
            NvmeCmd cmd = mk(NVME_CMD_FLUSH, 1, 0, 0);
            submit(c, 2, &cmd);     /* the last makes tail = head - 1 */
        }
        qpci_config_writew(c->dev, PCI_COMMAND, pcmd);
        for (int i = 0; i < 3; i++) {
            g_assert(reap(c, 2, &cqe, TIMEOUT_US));
            g_assert_cmphex(STATUS(le16_to_cpu(cqe.status) >> 1), ==,
                            NVME_SUCCESS);
        }
        g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_SQ, 2), ==,
                        NVME_SUCCESS);
        g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_CQ, 2), ==,
                        NVME_SUCCESS);
    }
    /* nothing else was reported: a new AER stays outstanding */
    {
        NvmeCmd aer = mk(NVME_ADM_CMD_ASYNC_EV_REQ, 0, 0, 0);
        submit(c, 0, &aer);
        c->aer_cid[c->naer++] = c->cid;
        g_assert_false(reap(c, 0, &cqe, 200 * 1000));
    }
    health(c);
    ctrl_stop(c);
}

/* CPU time (ticks) the QEMU threads named prefix* used so far. */
static uint64_t thread_ticks(QTestState *qts, const char *prefix)
{
    g_autofree char *dir = g_strdup_printf("/proc/%d/task", qtest_pid(qts));
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *tid;
    uint64_t ticks = 0;

    while (d && (tid = g_dir_read_name(d))) {
        g_autofree char *comm = NULL, *stat = NULL;
        g_autofree char *cp = g_strdup_printf("%s/%s/comm", dir, tid);
        g_autofree char *sp = g_strdup_printf("%s/%s/stat", dir, tid);
        unsigned long ut, st;
        char *p;

        if (!g_file_get_contents(cp, &comm, NULL, NULL) ||
            !g_str_has_prefix(comm, prefix) ||
            !g_file_get_contents(sp, &stat, NULL, NULL) ||
            !(p = strrchr(stat, ')'))) {
            continue;
        }
        /* fields 14 and 15 (utime, stime); p is at the end of field 2 */
        if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
                   "%lu %lu", &ut, &st) == 2) {
            ticks += ut + st;
        }
    }
    if (d) {
        g_dir_close(d);
    }
    return ticks;
}

/*
 * PCI bus mastering off (PCI Local Bus Spec, Command register bit 2):
 * the controller may not touch host memory, so it serves nothing --
 * no command fetched, no CQE -- and commands queued meanwhile run once
 * it is back on (the config write wakes the pollers).  With MMIO
 * doorbells (a fetch that failed must not be retried in a loop: the
 * poller's CPU time over the pause is printed, not asserted), with
 * shadow doorbells (the shadow tail cannot be read either), and on
 * the admin queue.
 */
void test_bus_master_off(void)
{
    Ctrl *c;
    uint16_t pcmd;
    uint64_t shadow;

    extra_args = "-name femu-qtest,debug-threads=on";
    c = ctrl_start("");
    extra_args = "";
    pcmd = qpci_config_readw(c->dev, PCI_COMMAND);
    shadow = guest_alloc(&c->qs->alloc, 2 * PAGE);
    for (int round = 0; round < 3; round++) {
        int qid = round == 2 ? 0 : IOQ;
        uint16_t first;
        long hz = sysconf(_SC_CLK_TCK);
        uint64_t t0, t1;
        int64_t w0, w1;
        NvmeCqe cqe;

        if (round == 1) {
            NvmeCmd cmd = mk(NVME_ADM_CMD_DBBUF_CONFIG, 0, shadow,
                             shadow + PAGE);
            /* the shadow doorbells hold the current values before the
             * controller starts reading them */
            qtest_memset(c->qts, shadow, 0, 2 * PAGE);
            c->dbs = shadow;
            c->eis = shadow + PAGE;
            shadow_db(c, IOQ, 0, c->q[IOQ].tail);
            shadow_db(c, IOQ, 1, c->q[IOQ].head);
            g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_SUCCESS);
        }
        first = c->cid + 1;
        qpci_config_writew(c->dev, PCI_COMMAND, pcmd & ~PCI_COMMAND_MASTER);
        for (int i = 0; i < 4; i++) {
            NvmeCmd cmd = qid ? mk(NVME_CMD_FLUSH, 1, 0, 0)
                              : mk(NVME_ADM_CMD_GET_FEATURES, 0, 0, 0);
            if (!qid) {
                cmd.cdw10 = cpu_to_le32(NVME_NUMBER_OF_QUEUES);
            }
            submit(c, qid, &cmd);
        }
        t0 = thread_ticks(c->qts, "femu-poller");
        w0 = g_get_monotonic_time();
        /* nothing is served (generous: 500 ms is an eternity here) */
        g_assert_false(reap(c, qid, &cqe, 500 * 1000));
        t1 = thread_ticks(c->qts, "femu-poller");
        w1 = g_get_monotonic_time();
        g_test_message("round %d (%s): pollers used %.0f%% of a core "
                       "while bus mastering was off (%" PRIu64 " ticks in "
                       "%.2f s)", round,
                       round == 0 ? "MMIO doorbells" :
                       round == 1 ? "shadow doorbells" : "admin queue",
                       100.0 * (t1 - t0) / hz / ((w1 - w0) / 1e6),
                       t1 - t0, (w1 - w0) / 1e6);
        qpci_config_writew(c->dev, PCI_COMMAND, pcmd);
        reap_in_order(c, qid, first, 4);
        health(c);
    }
    ctrl_stop(c);
}

/* Disable/enable and reset while I/O is in flight (Base 2.0, 3.7). */
void test_reset_during_io(void)
{
    Ctrl *c = ctrl_start("pg_wr_lat=2000000");

    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 8; i++) {
            NvmeCmd cmd = mk(NVME_CMD_WRITE, 1, c->buf, 0);
            cmd.cdw10 = cpu_to_le32(i * 8);
            cmd.cdw12 = cpu_to_le32(7);
            submit(c, IOQ, &cmd);
        }
        if (round == 2) {
            /* NVM Subsystem Reset ("NVMe") */
            wr32(c, NVME_REG_NSSR, 0x4e564d65);
        }
        ctrl_enable(c);         /* CC.EN 0 -> 1 drops every queue */
        setup_io(c, IOQ);
        health(c);
    }
    ctrl_stop(c);
}

/* Doorbell Buffer Config (Base 2.0, 5.8): PRP1/PRP2 must be page
 * aligned; addresses outside RAM must not hurt the controller. */
void test_dbbuf(void)
{
    Ctrl *c = ctrl_start("");
    uint64_t far = 0xfff0000000ull;
    NvmeCmd cmd;

    cmd = mk(NVME_ADM_CMD_DBBUF_CONFIG, 0, c->buf + 8, c->buf + PAGE);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_INVALID_FIELD);
    cmd = mk(NVME_ADM_CMD_DBBUF_CONFIG, 0, c->buf, c->buf + PAGE + 4);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_INVALID_FIELD);
    cmd = mk(NVME_ADM_CMD_DBBUF_CONFIG, 0, far, far + PAGE);
    run(c, 0, &cmd, NULL); /* may be accepted; must not break anything */
    /* I/O with shadow doorbells pointing nowhere: MMIO doorbells still
     * reach the controller or the command is dropped, but no crash */
    {
        NvmeCqe cqe;
        cmd = mk(NVME_CMD_FLUSH, 1, 0, 0);
        submit(c, IOQ, &cmd);
        reap(c, IOQ, &cqe, 500 * 1000);
    }
    ctrl_enable(c);
    setup_io(c, IOQ);
    ctrl_stop(c);
}

/* A host that does not consume completions: the controller must stop
 * posting when the CQ is full (Base 2.0, 4.1.1: full = head one past
 * tail), overwrite nothing, and go on once the head doorbell moves. */
void test_cq_full(void)
{
    Ctrl *c = ctrl_start("");
    uint64_t sq = guest_alloc(&c->qs->alloc, PAGE);
    uint64_t cq = guest_alloc(&c->qs->alloc, PAGE);
    Queue *q = queue_init(c, 2, sq, cq, QDEPTH, 4);
    NvmeCqe cqe[4];
    int posted = 0;
    uint16_t first;

    create_io_pair(c, 2, 1, 0);
    first = c->cid + 1;
    for (int i = 0; i < 20; i++) {
        NvmeCmd cmd = mk(NVME_CMD_FLUSH, 1, 0, 0);
        submit(c, 2, &cmd);
    }
    /* wait for the three that fit (generous: a loaded CI host), then
     * give the controller time to (wrongly) post a fourth */
    for (int t = 0; t < TIMEOUT_US / 1000 && posted < 3; t++) {
        g_usleep(1000);
        qtest_memread(c->qts, q->cq, cqe, sizeof(cqe));
        posted = 0;
        for (int i = 0; i < 4; i++) {
            posted += le16_to_cpu(cqe[i].status) & 1;
        }
    }
    g_assert_cmpint(posted, ==, 3);
    g_usleep(300 * 1000);
    qtest_memread(c->qts, q->cq, cqe, sizeof(cqe));
    g_assert_cmpuint(le16_to_cpu(cqe[3].status) & 1, ==, 0);
    /* the rest arrive, in order, as the head moves */
    reap_in_order(c, 2, first, 20);
    ctrl_stop(c);
}

/*
 * Identify Controller MAXCMD (Base 2.0, 5.17.2.1) is 16 bits: with the
 * largest queues (mqes=65535: 65536 entries) it is clamped to 65535, not
 * wrapped to 0 (a host that divides its queue depth by it, or sizes by
 * it, would see "no commands").  CAP.MQES reports mqes as given.
 */
void test_maxcmd(void)
{
    static const struct {
        const char *opts;
        uint16_t mqes, maxcmd;
    } rows[] = {
        { "", 0x3ff, 0x400 },
        { "mqes=65534", 65534, 65535 },
        { "mqes=65535", 65535, 65535 },
    };

    for (int i = 0; i < ARRAY_SIZE(rows); i++) {
        Ctrl *c = ctrl_start(rows[i].opts);
        NvmeIdCtrl id;

        g_assert_cmphex(identify(c, NVME_ID_CNS_CTRL, 0, c->buf), ==,
                        NVME_SUCCESS);
        qtest_memread(c->qts, c->buf, &id, sizeof(id));
        g_test_message("%s: CAP.MQES %u, MAXCMD %u", rows[i].opts,
                       rd32(c, NVME_REG_CAP) & 0xffff, le16_to_cpu(id.maxcmd));
        g_assert_cmpuint(rd32(c, NVME_REG_CAP) & 0xffff, ==, rows[i].mqes);
        g_assert_cmpuint(le16_to_cpu(id.maxcmd), ==, rows[i].maxcmd);
        ctrl_stop(c);
    }
}

/* Linux's shadow doorbell rule: ring the MMIO doorbell only if the
 * controller's event index lies in (old, new]. */
static bool ei_need_event(uint16_t ei, uint16_t new, uint16_t old)
{
    return (uint16_t)(new - ei - 1) < (uint16_t)(new - old);
}

/*
 * Consume the next CQE of CQ cqid (tracked in c->q[cqid]); with shadow
 * doorbells only the shadow head is written, and the MMIO doorbell rung
 * only when the event index asks for it, as Linux does.
 */
static bool reap_ei(Ctrl *c, int cqid, NvmeCqe *cqe, int timeout_us)
{
    Queue *q = &c->q[cqid];
    uint16_t old = q->head;
    uint32_t ei;

    if (!c->dbs) {
        return reap(c, cqid, cqe, timeout_us);
    }
    for (int t = 0; t < timeout_us; t += 200) {
        qtest_memread(c->qts, q->cq + q->head * sizeof(*cqe), cqe,
                      sizeof(*cqe));
        if ((le16_to_cpu(cqe->status) & 1) == q->phase) {
            q->head = (q->head + 1) % q->cqsize;
            if (q->head == 0) {
                q->phase ^= 1;
            }
            shadow_db(c, cqid, 1, q->head);
            qtest_memread(c->qts, c->eis + (2 * cqid + 1) * 4, &ei,
                          sizeof(ei));
            if (ei_need_event(le32_to_cpu(ei), q->head, old)) {
                wr32(c, DB(cqid, 1), q->head);
            }
            return true;
        }
        g_usleep(200);
    }
    return false;
}

/*
 * A host that leaves a CQ full: here CQ 2 of 2 entries (it holds one
 * completion) while more commands complete for it.  The controller
 * parks those completions until the host moves the head, and meanwhile
 * its pollers use no CPU: measured from /proc over 2 s, they must stay
 * under 5% of a core (a poller that retried on a timer used ~70% of
 * one, forever).  Then every completion arrives, each SQ's in order.
 * Round 0: one poller, MMIO doorbells.  Round 1: two pollers whose SQs
 * (1 and 2) share the CQ, with shadow doorbells: the host writes the
 * shadow head and rings the MMIO doorbell only when the event index
 * asks for it, so the controller must publish the index before it
 * sleeps.  Round 2: the same with MSI-X enabled, where the pin level
 * needs no head doorbell and the controller asks for one only because
 * completions are parked on the CQ.
 */
void test_cq_park(void)
{
    const char *saved = extra_args;
    long hz = sysconf(_SC_CLK_TCK);

    for (int round = 0; round < 3; round++) {
        int nsq = round ? 2 : 1, per = 8, got[3] = {}, seen = 0;
        uint16_t first[3];
        Queue *q2;
        Ctrl *c;
        uint64_t t0, t1;
        int64_t w0, w1;
        double frac;
        NvmeCqe cqe;

        extra_args = "-name femu-qtest,debug-threads=on";
        c = ctrl_start(round ? "pollers=2" : "pollers=1");
        extra_args = saved;
        /* the health check's queue pair 1 makes way */
        g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_SQ, IOQ), ==,
                        NVME_SUCCESS);
        g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_CQ, IOQ), ==,
                        NVME_SUCCESS);
        memset(&c->q[1], 0, sizeof(c->q[1]));
        if (round == 2) {
            qpci_msix_enable(c->dev);
        }
        if (round) {
            uint64_t shadow = guest_alloc(&c->qs->alloc, 2 * PAGE);

            dbbuf_on(c, shadow);
        }
        q2 = queue_init(c, 2, ring_page(c, 2, 0), ring_page(c, 2, 1), QDEPTH,
                        2);
        create_io_pair(c, 2, 1, 0);
        if (nsq == 2) {
            c->q[1].sq = ring_page(c, 1, 0);
            c->q[1].sqsize = QDEPTH;
            g_assert_cmphex(create_sq(c, 1, QDEPTH, 2, c->q[1].sq), ==,
                            NVME_SUCCESS);
        }
        for (int k = 0; k < nsq; k++) {
            int qid = 2 - k;

            first[qid] = c->cid + 1;
            for (int i = 0; i < per; i++) {
                NvmeCmd cmd = mk(NVME_CMD_FLUSH, 1, 0, 0);
                submit(c, qid, &cmd);
            }
        }
        /* the one completion that fits, then nothing more */
        g_assert(cqe_posted(c, 2, 0, TIMEOUT_US));
        g_usleep(100 * 1000);
        t0 = thread_ticks(c->qts, "femu-poller");
        w0 = g_get_monotonic_time();
        g_usleep(2 * G_USEC_PER_SEC);
        t1 = thread_ticks(c->qts, "femu-poller");
        w1 = g_get_monotonic_time();
        frac = (double)(t1 - t0) / hz / ((w1 - w0) / 1e6);
        g_test_message("round %d (%d poller%s, %s doorbells, %s): the "
                       "pollers used %.1f%% of a core with CQ 2 full (%"
                       PRIu64 " ticks in %.2f s)", round, nsq,
                       nsq > 1 ? "s" : "", round ? "shadow" : "MMIO",
                       round == 2 ? "MSI-X" : "pin", 100 * frac, t1 - t0,
                       (w1 - w0) / 1e6);
        g_assert_cmpfloat(frac, <, 0.05);
        /* the full CQ was respected: its other slot is still empty */
        g_assert_false(cqe_posted(c, 2, 1, 1000));
        /* now consume: everything arrives, each SQ's in order */
        while (seen < nsq * per) {
            uint16_t cid, sqid;

            g_assert(reap_ei(c, 2, &cqe, TIMEOUT_US));
            cid = le16_to_cpu(cqe.cid);
            sqid = le16_to_cpu(cqe.sq_id);
            g_assert(sqid == 2 || (nsq == 2 && sqid == 1));
            g_assert_cmpuint(cid, ==, (uint16_t)(first[sqid] + got[sqid]));
            g_assert_cmphex(STATUS(le16_to_cpu(cqe.status) >> 1), ==,
                            NVME_SUCCESS);
            got[sqid]++;
            seen++;
        }
        g_assert_false(cqe_posted(c, 2, 0, 100 * 1000));
        /* give the health check its queue pair back */
        for (int k = 0; k < nsq; k++) {
            g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_SQ, 2 - k), ==,
                            NVME_SUCCESS);
        }
        g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_CQ, 2), ==,
                        NVME_SUCCESS);
        q2->live = false;
        setup_io(c, IOQ);
        ctrl_stop(c);
    }
}

/*
 * MSI-X table entries aimed at the controller's own registers: every
 * interrupt it sends is then a write of 0 to its CC (CC.EN = 0, a reset
 * that frees the queues, run from inside the interrupt delivery).  Such
 * a re-entrant write is refused, whichever queue completed: the admin
 * queue (main loop) and an I/O queue (its poller thread) alike.  The
 * controller stays enabled and keeps working.
 */
void test_msix_self(void)
{
    Ctrl *c = ctrl_start("");
    Queue *q = &c->q[2];
    uint8_t out[PAGE];

    qpci_msix_enable(c->dev);
    for (int v = 0; v < 3; v++) {
        uint64_t off = c->dev->msix_table_off + v * PCI_MSIX_ENTRY_SIZE;
        uint64_t addr = c->bar.addr + NVME_REG_CC;

        qpci_io_writel(c->dev, c->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_LOWER_ADDR, (uint32_t)addr);
        qpci_io_writel(c->dev, c->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_UPPER_ADDR, addr >> 32);
        qpci_io_writel(c->dev, c->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_DATA, 0);
        qpci_io_writel(c->dev, c->dev->msix_table_bar,
                       off + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    }
    /* I/O queue pair 2, interrupts enabled on vector 1 */
    queue_init(c, 2, ring_page(c, 2, 0), ring_page(c, 2, 1), 0, 0);
    create_io_pair(c, 2, 3, 1);
    q->live = true;
    memset(out, 0x5a, sizeof(out));
    qtest_memwrite(c->qts, c->buf, out, sizeof(out));
    for (int i = 0; i < 8; i++) {
        NvmeCmd cmd = mk(i & 1 ? NVME_CMD_READ : NVME_CMD_WRITE, 1,
                         c->buf, 0);

        cmd.cdw10 = cpu_to_le32(i * 8);
        cmd.cdw12 = cpu_to_le32((PAGE >> c->lba_shift) - 1);
        g_assert_cmphex(run(c, 2, &cmd, NULL), ==, NVME_SUCCESS);
        g_assert_cmphex(rd32(c, NVME_REG_CSTS) & NVME_CSTS_READY, ==,
                        NVME_CSTS_READY);
    }
    /* the admin queue's interrupts (vector 0) too */
    g_assert_cmphex(identify(c, NVME_ID_CNS_CTRL, 0, c->buf), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(rd32(c, NVME_REG_CSTS) & NVME_CSTS_READY, ==,
                    NVME_CSTS_READY);
    g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_SQ, 2), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_CQ, 2), ==,
                    NVME_SUCCESS);
    ctrl_stop(c);
}

/* With bus mastering off: a controller reset (CC.EN 0) that must finish,
 * then the PCI command register back to pcmd, the controller enabled
 * again and the I/O queue pair IOQ set up. */
static void reset_with_bus_master_off(Ctrl *c, uint16_t pcmd)
{
    wr32(c, NVME_REG_CC, 0);
    g_assert(wait_csts(c, 1, 0));
    qpci_config_writew(c->dev, PCI_COMMAND, pcmd);
    ctrl_enable(c);
    setup_io(c, IOQ);
}

/*
 * Regression (random-chaos, seed 4244956249, step 28): bus mastering off
 * while an I/O SQ has new entries, then a controller reset.  The poller
 * read the SQ entry from what was no longer RAM for the device; that
 * went to MMIO (unassigned memory), which waits for the BQL, while the
 * poller held its own lock -- and the reset held the BQL while waiting
 * for that lock: QEMU hung.  Also with shadow doorbells, whose page is
 * read and written by the poller.
 *
 * The first fix checked for RAM before each access, which left a window
 * between the check and the access; now each access is translated
 * once and done only if it is RAM (femu_dma_read/write in
 * hw/femu/prp.c), so no poller access can reach MMIO at all.  That
 * window was a few instructions wide and no qtest can stop a poller
 * inside it, so it cannot be forced from here: the last rounds only
 * raise the odds, turning bus mastering off at varied moments while a
 * poller is busy with DMA (16 writes in flight), then resetting at once.
 */
void test_bus_master_reset(void)
{
    Ctrl *c = ctrl_start("pg_wr_lat=1000000");
    uint16_t pcmd = qpci_config_readw(c->dev, PCI_COMMAND);
    uint64_t shadow = guest_alloc(&c->qs->alloc, 2 * PAGE);

    for (int round = 0; round < 6; round++) {
        if (round & 1) {
            dbbuf_on(c, shadow);
        }
        if (round >= 4) {
            /* writes in flight (1 ms each) when bus mastering goes off:
             * their completions cannot be posted */
            for (int i = 0; i < 4; i++) {
                NvmeCmd cmd = mk(NVME_CMD_WRITE, 1, c->buf, 0);
                cmd.cdw12 = cpu_to_le32(7);
                submit(c, IOQ, &cmd);
            }
        }
        qpci_config_writew(c->dev, PCI_COMMAND, pcmd & ~PCI_COMMAND_MASTER);
        for (int i = 0; i < 4; i++) {
            NvmeCmd cmd = mk(NVME_CMD_FLUSH, 1, 0, 0);
            submit(c, IOQ, &cmd);
        }
        /* let the poller meet the unreachable ring (and the due writes) */
        g_usleep((round + 1) * 1000);
        /* the reset must return; nothing was posted meanwhile */
        reset_with_bus_master_off(c, pcmd);
        health(c);
    }
    for (int round = 0; round < 12; round++) {
        for (int i = 0; i < 16; i++) {
            NvmeCmd cmd = mk(i & 1 ? NVME_CMD_READ : NVME_CMD_WRITE, 1,
                             c->buf, c->buf + PAGE);
            cmd.cdw10 = cpu_to_le32(i * 16);
            cmd.cdw12 = cpu_to_le32((2 * PAGE >> c->lba_shift) - 1);
            submit(c, IOQ, &cmd);
        }
        g_usleep(round * 300);
        qpci_config_writew(c->dev, PCI_COMMAND, pcmd & ~PCI_COMMAND_MASTER);
        reset_with_bus_master_off(c, pcmd);
    }
    ctrl_stop(c);
}
