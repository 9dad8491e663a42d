/*
 * femu-test fuzz group random-chaos.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu-host.h"

/*
 * Controller abuse (a second fuzzer over this driver, "chaos"): besides
 * random admin and I/O commands it does what the random-commands group
 * leaves out because it takes the driver's own queues away: it creates
 * and deletes queues (its own second pair, and random ones at random
 * addresses), configures shadow doorbells (Doorbell Buffer Config) and
 * uses them, posts Asynchronous Event Requests, writes random doorbells
 * and registers, disables / enables / shuts down / fails the controller
 * in the middle of I/O, turns PCI bus mastering and MSI-X off and on,
 * sends FDP commands (I/O Management Send/Receive with random fields,
 * writes with DTYPE 2 and a random DSPEC, FDP features) and Get Log Page
 * with random ids, offsets and lengths.  The device configuration is
 * drawn from the seed as well (GC policy, hot/cold, secsz, MDTS,
 * pollers).  One seed in four (seed % 4 == 3) makes it a zoned device
 * (femu_mode=3, zone geometry and open/active limits from the seed) and
 * adds zone commands: Zone Management Send with random actions, Select
 * All and bad SLBAs, Zone Management Receive with random fields, Zone
 * Append, writes at and away from a zone's write pointer (as the last
 * zone report gave it) and reads past it.
 *
 * The driver keeps a model of the queues the controller has.  While the
 * model is exact, every command must complete (any status) within
 * TIMEOUT_US and CSTS.CFS must stay 0; a few results are exact (queue
 * creation on the driver's own pair, Doorbell Buffer Config validity,
 * AER limit).  Doorbell writes the controller must ignore (no such
 * queue, value beyond the queue) must leave the queues working.  After an
 * action that makes the model unknowable (a valid doorbell write the
 * driver did not mean, a shadow doorbell page the driver does not own,
 * bus mastering off), the driver resets the controller and starts over;
 * the reset itself must work.  Every 64 steps and at the end: the health
 * check (Identify + write/read/compare; on the zoned device at a zone's
 * write pointer).
 *
 * FEMU_QTEST_CHAOS_STEPS: steps (default 1000); FEMU_QTEST_FUZZ_SECONDS:
 * run for that long instead; FEMU_QTEST_SEED: the seed.
 */
#define FZ_FAR 0xfff0000000ull          /* no RAM there */
#define FZ_RAM_END 0x8000000ull         /* qtest's pc machine: 128 MiB */
/* the device's I/O queue pairs (queues=, drawn per run; the model
 * tracks qids below NQ, a queue created beyond is deleted at once) */
static int fz_queues = 2;
#define FZ_HIST 16
#define FZ_ZONES 64                     /* zones the zoned variant tracks */

typedef struct Fz {
    Ctrl *c;
    uint64_t list;          /* a PRP list page */
    uint64_t shadow[2];     /* pages the driver may give as shadow buffers */
    uint64_t scratch;       /* 4 pages random queue creations may use */
    /* the controller's queues as the driver believes them to be */
    bool sq_on[NQ], cq_on[NQ];
    uint16_t sq_cq[NQ];
    uint32_t sq_size[NQ], cq_size[NQ];
    bool msix;
    bool dirty;             /* the model above is no longer exact */
    int step;
    const char *hist[FZ_HIST];
    uint64_t cmds, errs, resets, dirties, churns;
    /* the zoned variant: zones, and their write pointers as last reported */
    uint32_t nzones;
    uint64_t zwp[FZ_ZONES];
    uint64_t zcmds, zreports;
    uint32_t zfailed;       /* zones failed with 0xEF code 9 (at most) */
} Fz;

static void fz_note(Fz *f, const char *what)
{
    f->hist[f->step % FZ_HIST] = what;
    if (getenv("FEMU_QTEST_TRACE")) {
        fprintf(stderr, "step %d: %s (next cid %u, dbs 0x%" PRIx64 ", eis 0x%" PRIx64 ")\n", f->step, what, (uint16_t)(f->c->cid + 1), f->c->dbs, f->c->eis);
    }
}

static void G_NORETURN G_GNUC_PRINTF(2, 3)
fz_fail(Fz *f, const char *fmt, ...)
{
    va_list ap;
    g_autofree char *msg = NULL;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_test_message("chaos: seed %u step %d: %s", fz_seed, f->step, msg);
    for (int i = MAX(0, f->step - FZ_HIST + 1); i <= f->step; i++) {
        g_test_message("  step %d: %s", i, f->hist[i % FZ_HIST]);
    }
    g_test_message("replay: FEMU_QTEST_SEED=%u FEMU_QTEST_CHAOS_STEPS=%d",
                   fz_seed, f->step + 1);
    g_assert_not_reached();
}

/* A data pointer: data pages, misaligned, outside RAM, the end of RAM,
 * MMIO (this device's own BAR, the MSI and IOAPIC windows), the PRP
 * list page, scratch pages -- never the driver's queues or shadows. */
static uint64_t fz_ptr(Fz *f)
{
    Ctrl *c = f->c;

    switch (rr(0, 12)) {
    case 0: case 1: case 2: case 3:
        return c->buf + rr(0, 16) * PAGE;
    case 4:
        return (c->buf + rr(0, 16 * PAGE)) & ~3ull;
    case 5:
        return c->buf + rr(0, 16 * PAGE);
    case 6:
        return f->list + rr(0, PAGE / 8) * 8;
    case 7:
        return FZ_FAR + rr(0, 1 << 20) * 4;
    case 8:
        return f->scratch + rr(0, 4) * PAGE + (rb() ? 0 : rr(0, PAGE / 4) * 4);
    case 9:
        return PICK(0, FZ_RAM_END - PAGE, FZ_RAM_END - 8, FZ_RAM_END,
                    0xfee00000, 0xfec00000, UINT64_MAX - PAGE + 1,
                    c->bar.addr, c->bar.addr + 0x1000);
    default:
        return r64() & (rb() ? ~3ull : ~0ull);
    }
}

/* A queue id for create/delete: mostly valid ones, some never valid. */
static uint16_t fz_qid(void)
{
    return rr(0, 8) ? rr(0, MIN(fz_queues, NQ - 1) + 2)
                    : PICK(fz_queues, fz_queues + 1, 0xffff, 0x8001, r32());
}

/* The PRP list page: half data pages, half outside RAM (rewritten now
 * and then, as reads may have put data there). */
static void fz_fill_list(Fz *f)
{
    uint64_t ents[PAGE / 8];

    for (int i = 0; i < PAGE / 8; i++) {
        ents[i] = cpu_to_le64(rr(0, 4) ? f->c->buf + (i % 16) * PAGE
                                       : FZ_FAR + i * PAGE);
    }
    qtest_memwrite(f->c->qts, f->list, ents, sizeof(ents));
}

/* Reap the completion of cid on qid; AER completions on the admin queue
 * are accounted on the way.  False: none within the timeout. */
static bool fz_wait(Fz *f, int qid, uint16_t cid, uint16_t *st, uint32_t *dw0)
{
    NvmeCqe cqe;

    do {
        if (!reap(f->c, qid, &cqe, TIMEOUT_US)) {
            return false;
        }
    } while (aer_reaped(f->c, qid, &cqe));
    if (le16_to_cpu(cqe.cid) != cid) {
        fz_fail(f, "queue %d: completion for cid %u, waiting for %u", qid,
                le16_to_cpu(cqe.cid), cid);
    }
    *st = STATUS(le16_to_cpu(cqe.status) >> 1);
    if (dw0) {
        *dw0 = le32_to_cpu(cqe.result);
    }
    return true;
}

static uint16_t fz_cmd(Fz *f, int qid, NvmeCmd *cmd, uint32_t *dw0)
{
    uint16_t st;

    submit(f->c, qid, cmd);
    if (!fz_wait(f, qid, f->c->cid, &st, dw0)) {
        fz_fail(f, "no completion on queue %d for opcode 0x%02x (cdw10 "
                "0x%08x): the controller hangs", qid, cmd->opcode,
                le32_to_cpu(cmd->cdw10));
    }
    f->cmds++;
    f->errs += st != NVME_SUCCESS;
    return st;
}

static void fz_check_cfs(Fz *f)
{
    uint32_t csts = rd32(f->c, NVME_REG_CSTS);

    if (csts & NVME_CSTS_FAILED) {
        fz_fail(f, "CSTS.CFS set (CSTS 0x%x)", csts);
    }
}

/* Reset the controller and rebuild the driver's I/O queue pair 1. */
static void fz_resync(Fz *f)
{
    Ctrl *c = f->c;

    /* admin queues of random sizes; the CQ must hold what may complete
     * at once: 4 AERs (AERL + 1), 2 over the limit (fz_aer), a command */
    ctrl_enable_sized(c, rr(0, 2) ? QDEPTH : rr(2, QDEPTH + 1),
                      rr(0, 2) ? QDEPTH : rr(8, QDEPTH + 1));
    memset(f->sq_on, 0, sizeof(f->sq_on));
    memset(f->cq_on, 0, sizeof(f->cq_on));
    f->dirty = false;
    f->resets++;
    fz_check_cfs(f);
    setup_io(c, IOQ);
    f->sq_on[IOQ] = f->cq_on[IOQ] = true;
    f->sq_cq[IOQ] = IOQ;
    f->sq_size[IOQ] = f->cq_size[IOQ] = QDEPTH;
}

/*
 * The completions of the k commands first .. first + k - 1 submitted on
 * qid, in any order: each once, none missing (what names the batch in a
 * failure).
 */
static void fz_reap_batch(Fz *f, int qid, uint16_t first, int k,
                          const char *what)
{
    uint64_t seen = 0;

    for (int i = 0; i < k; i++) {
        NvmeCqe cqe;
        uint16_t d;

        if (!reap(f->c, qid, &cqe, TIMEOUT_US)) {
            fz_fail(f, "%s: %d of %d commands never completed", what, k - i,
                    k);
        }
        d = le16_to_cpu(cqe.cid) - first;
        if (d >= k || (seen >> d & 1)) {
            fz_fail(f, "%s: unexpected cid %u (batch %u..%u, SQ %u, SQ head "
                    "%u, status 0x%x)", what, le16_to_cpu(cqe.cid), first,
                    first + k - 1, le16_to_cpu(cqe.sq_id),
                    le16_to_cpu(cqe.sq_head), le16_to_cpu(cqe.status) >> 1);
        }
        seen |= 1ull << d;
        f->cmds++;
    }
}

static void fz_delete(Fz *f, bool cq, uint16_t qid)
{
    NvmeCmd cmd = mk(cq ? NVME_ADM_CMD_DELETE_CQ : NVME_ADM_CMD_DELETE_SQ,
                     0, 0, 0);
    uint16_t st;

    cmd.cdw10 = cpu_to_le32(qid);
    st = fz_cmd(f, 0, &cmd, NULL);
    if (qid >= NQ) {
        if (st != NVME_INVALID_QID) {
            fz_fail(f, "delete of queue %u: status 0x%x", qid, st);
        }
        return;
    }
    if (cq) {
        bool used = false;
        for (int i = 1; i < NQ; i++) {
            used |= f->sq_on[i] && f->sq_cq[i] == qid;
        }
        /* Base 2.0, 5.5: Invalid Queue Identifier / Invalid Queue
         * Deletion (the CQ still has an SQ) */
        if (st != (!f->cq_on[qid] || !qid ? NVME_INVALID_QID :
                   used ? NVME_INVALID_QUEUE_DEL : NVME_SUCCESS)) {
            fz_fail(f, "delete CQ %u: status 0x%x", qid, st);
        }
        if (st == NVME_SUCCESS) {
            f->cq_on[qid] = false;
            f->c->q[qid].live = false;
        }
    } else {
        if (st != (!f->sq_on[qid] || !qid ? NVME_INVALID_QID :
                   NVME_SUCCESS)) {
            fz_fail(f, "delete SQ %u: status 0x%x", qid, st);
        }
        if (st == NVME_SUCCESS) {
            f->sq_on[qid] = false;
            f->c->q[qid].live = false;
        }
    }
}

/* Make qid free on the controller (its SQ, its CQ and SQs on that CQ). */
static void fz_free_qid(Fz *f, uint16_t qid)
{
    if (f->sq_on[qid]) {
        fz_delete(f, false, qid);
    }
    for (int i = 1; i < NQ; i++) {
        if (f->sq_on[i] && f->sq_cq[i] == qid) {
            fz_delete(f, false, i);
        }
    }
    if (f->cq_on[qid]) {
        fz_delete(f, true, qid);
    }
}

static void fz_ensure_ioq(Fz *f)
{
    if (f->dirty) {
        fz_resync(f);
    }
    if (!f->c->q[IOQ].live) {
        fz_free_qid(f, IOQ);
        setup_io(f->c, IOQ);
        f->sq_on[IOQ] = f->cq_on[IOQ] = true;
        f->sq_cq[IOQ] = IOQ;
        f->sq_size[IOQ] = f->cq_size[IOQ] = QDEPTH;
    }
}

/* The zoned variant's write pointers, from a report of every zone. */
static void fz_zone_report(Fz *f)
{
    Ctrl *c = f->c;
    NvmeCmd cmd = mk(NVME_CMD_ZONE_MGMT_RECV, 1, c->buf, c->buf + PAGE);
    uint64_t n;

    cmd.cdw12 = cpu_to_le32(2 * PAGE / 4 - 1);
    cmd.cdw13 = cpu_to_le32(NVME_ZONE_REPORT | NVME_ZONE_REPORT_ALL << 8);
    if (fz_cmd(f, IOQ, &cmd, NULL) != NVME_SUCCESS) {
        return;
    }
    f->zreports++;
    n = MIN(zreport_nr(c), (2 * PAGE - sizeof(NvmeZoneReportHeader)) /
                           sizeof(NvmeZoneDescr));
    for (uint64_t i = 0; i < n; i++) {
        NvmeZoneDescr d = zdesc(c, i);
        uint64_t z = le64_to_cpu(d.zslba) / c->zsze;

        if (z < f->nzones) {
            f->zwp[z] = le64_to_cpu(d.wp);
        }
    }
}

/* A zone command of the zoned variant, on a random zone: Zone Management
 * Send / Receive, Zone Append, a write at or away from the write pointer,
 * Write Zeroes at it, a read past it. */
static void fz_zone_cmd(Fz *f, NvmeCmd *cmd)
{
    Ctrl *c = f->c;
    uint64_t zslba = (uint64_t)rr(0, f->nzones) * c->zsze;
    uint64_t wp = f->zwp[zslba / c->zsze], slba = wp;
    uint32_t nlb = rr(0, 8) ? rr(1, 17) : rr(1, 0x10000);

    f->zcmds++;
    *cmd = mk(NVME_CMD_WRITE, 1, c->buf + rr(0, 4) * PAGE,
              rr(0, 8) ? f->list : fz_ptr(f));
    switch (rr(0, 7)) {
    case 0:
        cmd->opcode = NVME_CMD_ZONE_MGMT_SEND;
        slba = rr(0, 4) ? zslba : PICK(zslba + rr(1, c->zsze), wp,
                                       c->ns_blocks, r64());
        cmd->cdw13 = cpu_to_le32((rr(0, 4) ? PICK(NVME_ZONE_ACTION_CLOSE,
                                                  NVME_ZONE_ACTION_FINISH,
                                                  NVME_ZONE_ACTION_OPEN,
                                                  NVME_ZONE_ACTION_RESET,
                                                  NVME_ZONE_ACTION_OFFLINE,
                                                  NVME_ZONE_ACTION_SET_ZD_EXT)
                                           : rr(0, 256)) |
                                 (rr(0, 6) ? 0 : 1u << 8) |
                                 (rr(0, 16) ? 0 : r32() & ~0x1ffu));
        break;
    case 1:
        /* NUMD, ZRA, ZRASF, Partial Report */
        cmd->opcode = NVME_CMD_ZONE_MGMT_RECV;
        cmd->dptr.prp2 = cpu_to_le64(rr(0, 4) ? c->buf + PAGE : fz_ptr(f));
        slba = rr(0, 4) ? zslba + rr(0, c->zsze) : PICK(c->ns_blocks, r64());
        cmd->cdw12 = cpu_to_le32(rr(0, 4) ? PICK(15, 31, 1023, 2047)
                                          : r32());
        cmd->cdw13 = cpu_to_le32((rr(0, 4) ? PICK(NVME_ZONE_REPORT,
                                                  NVME_ZONE_REPORT_EXTENDED)
                                           : rr(0, 256)) |
                                 (uint32_t)(rr(0, 4) ? rr(0, 8)
                                                     : rr(0, 256)) << 8 |
                                 (rb() ? 1u << 16 : 0));
        break;
    case 2:
        cmd->opcode = NVME_CMD_ZONE_APPEND;
        slba = rr(0, 4) ? zslba : PICK(wp, zslba + 1, c->ns_blocks, r64());
        break;
    case 3:
        break;
    case 4:
        /* away from the write pointer */
        slba = PICK(wp + rr(1, 64), wp ? wp - 1 : 1, zslba + c->zsze,
                    rr(0, c->ns_blocks));
        break;
    case 5:
        cmd->opcode = NVME_CMD_WRITE_ZEROES;
        break;
    default:
        /* past the write pointer, maybe into the next zones */
        cmd->opcode = NVME_CMD_READ;
        slba = wp + rr(0, 64);
        break;
    }
    cmd->cdw10 = cpu_to_le32((uint32_t)slba);
    cmd->cdw11 = cpu_to_le32(slba >> 32);
    if (cmd->opcode != NVME_CMD_ZONE_MGMT_SEND &&
        cmd->opcode != NVME_CMD_ZONE_MGMT_RECV) {
        cmd->cdw12 = cpu_to_le32(nlb - 1);
    }
}

/* A random I/O command; half of them well formed (Read, Write with or
 * without a placement directive, Write Zeroes, DSM, Flush, I/O
 * Management Receive/Send with random fields). */
static void fz_io_cmd(Fz *f, NvmeCmd *cmd)
{
    Ctrl *c = f->c;
    uint64_t slba;

    *cmd = mk(rb() ? rr(0, 0x20) : rr(0, 256),
              rr(0, 8) ? 1 : PICK(0, 2, 0xffffffff, r32()),
              fz_ptr(f), fz_ptr(f));
    cmd->flags = rr(0, 8) ? 0 : r32();
    cmd->cdw10 = cpu_to_le32(rb() ? r32() : rr(0, 64));
    cmd->cdw11 = cpu_to_le32(rb() ? r32() : 0);
    cmd->cdw12 = cpu_to_le32(rb() ? r32() : rr(0, 64));
    cmd->cdw13 = cpu_to_le32(rb() ? r32() : 0);
    cmd->cdw14 = cpu_to_le32(r32());
    cmd->cdw15 = cpu_to_le32(r32());
    if (rb()) {
        return;
    }
    if (f->nzones && rb()) {
        fz_zone_cmd(f, cmd);
        return;
    }
    cmd->opcode = PICK(NVME_CMD_READ, NVME_CMD_WRITE, NVME_CMD_WRITE,
                       NVME_CMD_WRITE, NVME_CMD_WRITE_ZEROES, NVME_CMD_DSM,
                       NVME_CMD_FLUSH, NVME_CMD_IO_MGMT_RECV,
                       NVME_CMD_IO_MGMT_SEND);
    cmd->nsid = cpu_to_le32(1);
    cmd->flags = 0;
    cmd->dptr.prp1 = cpu_to_le64(rr(0, 8) ? c->buf + rr(0, 4) * PAGE
                                          : fz_ptr(f));
    cmd->dptr.prp2 = cpu_to_le64(rr(0, 8) ? f->list : fz_ptr(f));
    slba = rr(0, 16) ? (uint64_t)rr(0, c->ns_blocks - 64)
                     : PICK(c->ns_blocks - 1, c->ns_blocks, r64());
    switch (cmd->opcode) {
    case NVME_CMD_READ:
    case NVME_CMD_WRITE:
    case NVME_CMD_WRITE_ZEROES:
        cmd->cdw10 = cpu_to_le32((uint32_t)slba);
        cmd->cdw11 = cpu_to_le32(slba >> 32);
        /* NLB, and for writes DTYPE (bits 23:20): 2 = data placement */
        cmd->cdw12 = cpu_to_le32((rr(0, 8) ? rr(0, 64) : rr(0, 0x10000)) |
                                 (rb() ? 2u << 20 :
                                  rr(0, 8) ? 0 : (uint32_t)rr(0, 16) << 20));
        /* DSPEC (bits 31:16): the namespace has 4 placement ids */
        cmd->cdw13 = cpu_to_le32((uint32_t)(rr(0, 4) ? rr(0, 6)
                                            : rr(0, 0x10000)) << 16);
        break;
    case NVME_CMD_DSM:
        cmd->cdw10 = cpu_to_le32(rr(0, 4) ? rr(0, 4) : rr(0, 256));
        cmd->cdw11 = cpu_to_le32(rr(0, 8) ? NVME_DSMGMT_AD : r32());
        break;
    case NVME_CMD_IO_MGMT_RECV:
        /* MO (7:0) 1 = RUH status; NUMD in CDW11 */
        cmd->cdw10 = cpu_to_le32((rr(0, 4) ? 1 : rr(0, 256)) |
                                 (rr(0, 4) ? 0 : r32() & 0xffff0000));
        cmd->cdw11 = cpu_to_le32(PICK(0, 1, 3, rr(0, 64), rr(0, 1024),
                                      r32()));
        break;
    case NVME_CMD_IO_MGMT_SEND: {
        /* MO 1 = RUH update, MOS (31:16) = ids - 1; the ids come from
         * the data page */
        uint16_t pids[8];
        for (int i = 0; i < 8; i++) {
            pids[i] = cpu_to_le16(rr(0, 4) ? rr(0, 4) : rr(0, 0x10000));
        }
        qtest_memwrite(c->qts, c->buf, pids, sizeof(pids));
        cmd->dptr.prp1 = cpu_to_le64(rr(0, 4) ? c->buf : fz_ptr(f));
        cmd->cdw10 = cpu_to_le32((rr(0, 4) ? 1 : rr(0, 256)) |
                                 (uint32_t)(rr(0, 4) ? rr(0, 8)
                                            : rr(0, 0x10000)) << 16);
        break;
    }
    default:
        break;
    }
}

/* Get Log Page with random id, length, offset, LSP, LSI, RAE, CSI. */
static void fz_log_cmd(Fz *f, NvmeCmd *cmd)
{
    uint32_t numd = PICK(rr(0, 128), rr(0, 1024), rr(0, 0x8000), r32());
    uint64_t lpo = PICK(0, rr(0, 128) * 4, rr(0, 2048) * 4, 512, 508,
                        4096, r32() & ~3u, r32(), r64());

    *cmd = mk(NVME_ADM_CMD_GET_LOG_PAGE,
              rr(0, 4) ? 0xffffffff : PICK(0, 1, 2, r32()),
              fz_ptr(f), fz_ptr(f));
    cmd->cdw10 = cpu_to_le32(PICK(0x01, 0x02, 0x03, 0x05, 0x20, 0x21, 0x22,
                                  0x23, 0xc0, 0xc1, rr(0, 256)) |
                             (uint32_t)rr(0, 256) << 8 |   /* LSP, RAE */
                             (numd & 0xffff) << 16);
    cmd->cdw11 = cpu_to_le32(numd >> 16 |
                             (uint32_t)(rr(0, 4) ? 1 : PICK(0, 2, r32()))
                             << 16);                        /* LSI */
    cmd->cdw12 = cpu_to_le32((uint32_t)lpo);
    cmd->cdw13 = cpu_to_le32(lpo >> 32);
    cmd->cdw14 = cpu_to_le32(rr(0, 4) ? 0 : r32());       /* CSI, UUID */
    /* the zoned variant: the Changed Zone List (BFh, CSI 02h, NSID 1),
     * whole or in part, with RAE random */
    if (f->nzones && !rr(0, 4)) {
        cmd->nsid = cpu_to_le32(1);
        cmd->dptr.prp1 = cpu_to_le64(f->c->buf);
        cmd->dptr.prp2 = cpu_to_le64(f->c->buf + PAGE);
        cmd->cdw10 = cpu_to_le32(0xbf | (rb() ? 1u << 15 : 0) |
                                 (uint32_t)(rr(0, 4) ? 1023 : rr(0, 1024))
                                 << 16);
        cmd->cdw11 = 0;
        cmd->cdw12 = cpu_to_le32(rr(0, 4) ? 0 : rr(0, 1024) * 4);
        cmd->cdw13 = 0;
        cmd->cdw14 = cpu_to_le32((uint32_t)NVME_CSI_ZONED << 24);
    }
}

/* A random admin command (queue management and AER are separate
 * actions: they change the driver's model). */
static void fz_admin_cmd(Fz *f, NvmeCmd *cmd)
{
    static const uint8_t fids[] = {
        0x01, 0x02, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
        0x0e, 0x16, 0x1d, 0x1e,
    };
    uint8_t opc;

    do {
        opc = rb() ? PICK(NVME_ADM_CMD_IDENTIFY, NVME_ADM_CMD_GET_FEATURES,
                          NVME_ADM_CMD_SET_FEATURES, NVME_ADM_CMD_ABORT,
                          NVME_ADM_CMD_GET_LOG_PAGE, FEMU_ADM_CMD_CONTROL)
                   : rr(0, 256);
    } while (opc == NVME_ADM_CMD_CREATE_SQ || opc == NVME_ADM_CMD_CREATE_CQ ||
             opc == NVME_ADM_CMD_DELETE_SQ || opc == NVME_ADM_CMD_DELETE_CQ ||
             opc == NVME_ADM_CMD_ASYNC_EV_REQ ||
             opc == NVME_ADM_CMD_DBBUF_CONFIG ||
             /* the block size under the driver (group cmds covers it) */
             opc == NVME_ADM_CMD_FORMAT_NVM);
    if (opc == NVME_ADM_CMD_GET_LOG_PAGE) {
        fz_log_cmd(f, cmd);
        return;
    }
    *cmd = mk(opc, rr(0, 4) ? PICK(0, 1) : PICK(2, 0xffffffff, r32()),
              fz_ptr(f), fz_ptr(f));
    cmd->flags = rr(0, 8) ? 0 : r32();
    cmd->cdw10 = cpu_to_le32(rb() ? r32() : rr(0, 64));
    cmd->cdw11 = cpu_to_le32(rb() ? r32() : rr(0, 64));
    cmd->cdw12 = cpu_to_le32(rb() ? r32() : rr(0, 4));
    cmd->cdw13 = cpu_to_le32(rb() ? r32() : 0);
    cmd->cdw14 = cpu_to_le32(rb() ? r32() : 0);
    cmd->cdw15 = cpu_to_le32(rb() ? r32() : 0);
    switch (opc) {
    case NVME_ADM_CMD_IDENTIFY:
        cmd->cdw10 = cpu_to_le32(rr(0, 4) ? PICK(0, 1, 2, 3, 5, 6, 7, 8, 0x19,
                                                 0x1c)
                                          : r32());
        cmd->cdw11 = cpu_to_le32(rb() ? 0 : r32());   /* CSI etc. */
        break;
    case NVME_ADM_CMD_GET_FEATURES:
    case NVME_ADM_CMD_SET_FEATURES:
        /* FID, SEL (get) / SV (set) */
        cmd->cdw10 = cpu_to_le32((rr(0, 4) ? fids[rr(0, sizeof(fids))]
                                           : rr(0, 256)) |
                                 (rr(0, 4) ? 0 : (uint32_t)rr(0, 8) << 8) |
                                 (rr(0, 8) ? 0 : 1u << 31));
        if (rb()) {
            /* FDP features: endurance group 1 / handle, NOET */
            cmd->cdw11 = cpu_to_le32(rr(0, 4) | (uint32_t)rr(0, 8) << 16);
            cmd->cdw12 = cpu_to_le32(rr(0, 4));
            qtest_memset(f->c->qts, f->c->buf, rr(0, 4), 16);
        }
        break;
    case FEMU_ADM_CMD_CONTROL:
        /* 3 turns the built-in NAND times on, 4 off: both happen */
        cmd->cdw10 = cpu_to_le32(rr(0, 8) ? rr(0, 9) : r32());
        cmd->dptr.prp1 = cmd->dptr.prp2 = 0;
        /* the zoned variant: 9 fails a zone (CDW11, one past the last:
         * refused) Read Only (CDW12 0) or Offline (1), for fewer than
         * half of the zones, so that the health check finds one */
        if (f->nzones && f->zfailed < f->nzones / 2 && !rr(0, 4)) {
            cmd->cdw10 = cpu_to_le32(FEMU_CTRL_FAIL_ZONE);
            cmd->cdw11 = cpu_to_le32(rr(0, f->nzones + 1));
            cmd->cdw12 = cpu_to_le32(rr(0, 3));
        }
        break;
    }
}

/* Create a CQ or SQ with random fields (most refused); a created queue
 * is the controller's, the driver never submits to it. */
static void fz_create_random(Fz *f)
{
    bool cq = rb();
    uint16_t qid = fz_qid();
    uint32_t size = PICK(0, 1, 2, rr(2, QDEPTH + 1), 1024, 0xffff);
    uint64_t addr = rr(0, 2) ? f->scratch + rr(0, 4) * PAGE : fz_ptr(f);
    uint16_t other = fz_qid();  /* CQ id of an SQ, vector of a CQ */
    uint16_t flags = rr(0, 8) ? 1 : rr(0, 0x10000);
    NvmeCmd cmd = mk(cq ? NVME_ADM_CMD_CREATE_CQ : NVME_ADM_CMD_CREATE_SQ,
                     0, addr, 0);
    uint16_t st;

    if (!cq && rb()) {
        flags |= 1;
    }
    if (qid < NQ && qid && !(cq ? f->cq_on[qid] : f->sq_on[qid])) {
        /* a queue attached to shadow doorbells starts from their values
         * (never touch those of a queue that exists) */
        shadow_db(f->c, qid, cq, 0);
    }
    cmd.cdw10 = cpu_to_le32((uint32_t)((size - 1) & 0xffff) << 16 | qid);
    cmd.cdw11 = cpu_to_le32((uint32_t)other << 16 | flags);
    st = fz_cmd(f, 0, &cmd, NULL);
    if (st != NVME_SUCCESS) {
        return;
    }
    if (qid >= NQ && qid <= fz_queues &&
        (cq || (other < NQ && f->cq_on[other]))) {
        /* a queue the model does not track: valid, and gone again */
        cmd = mk(cq ? NVME_ADM_CMD_DELETE_CQ : NVME_ADM_CMD_DELETE_SQ,
                 0, 0, 0);
        cmd.cdw10 = cpu_to_le32(qid);
        if (fz_cmd(f, 0, &cmd, NULL) != NVME_SUCCESS) {
            fz_fail(f, "delete of the %s %u just created failed",
                    cq ? "CQ" : "SQ", qid);
        }
        return;
    }
    if (qid == 0 || qid >= NQ || qid > fz_queues ||
        (cq ? f->cq_on[qid] : f->sq_on[qid])) {
        fz_fail(f, "create %s %u accepted", cq ? "CQ" : "SQ", qid);
    }
    if (cq) {
        f->cq_on[qid] = true;
        f->cq_size[qid] = size ? size : 0x10000;
    } else {
        if (other >= NQ || !f->cq_on[other]) {
            fz_fail(f, "SQ %u created on CQ %u that does not exist", qid,
                    other);
        }
        f->sq_on[qid] = true;
        f->sq_cq[qid] = other;
        f->sq_size[qid] = size ? size : 0x10000;
    }
}

/* The driver's second queue pair (qid 2): created with random sizes,
 * used for a few batches of random I/O, deleted -- sometimes while
 * commands are in flight. */
static void fz_churn(Fz *f)
{
    Ctrl *c = f->c;
    Queue *q = &c->q[2];
    uint32_t sqsize = rr(2, QDEPTH + 1), cqsize = rr(2, QDEPTH + 1);
    bool ien = f->msix ? rb() : rr(0, 4) == 0;
    uint16_t vec = f->msix && ien ? rr(0, fz_queues + 1) : 0;
    int batches = rr(1, 6);
    NvmeCmd cmd;

    fz_free_qid(f, 2);
    queue_init(c, 2, ring_page(c, 2, 0), ring_page(c, 2, 1), sqsize, cqsize);
    shadow_db(c, 2, 0, 0);
    shadow_db(c, 2, 1, 0);
    cmd = mk(NVME_ADM_CMD_CREATE_CQ, 0, q->cq, 0);
    cmd.cdw10 = cpu_to_le32((cqsize - 1) << 16 | 2);
    cmd.cdw11 = cpu_to_le32((uint32_t)vec << 16 | (ien ? 3 : 1));
    if (fz_cmd(f, 0, &cmd, NULL) != NVME_SUCCESS) {
        fz_fail(f, "create CQ 2 (size %u, vector %u) failed", cqsize, vec);
    }
    f->cq_on[2] = true;
    f->cq_size[2] = cqsize;
    cmd = mk(NVME_ADM_CMD_CREATE_SQ, 0, q->sq, 0);
    cmd.cdw10 = cpu_to_le32((sqsize - 1) << 16 | 2);
    cmd.cdw11 = cpu_to_le32(2 << 16 | 1);
    if (fz_cmd(f, 0, &cmd, NULL) != NVME_SUCCESS) {
        fz_fail(f, "create SQ 2 (size %u) failed", sqsize);
    }
    f->sq_on[2] = true;
    f->sq_cq[2] = 2;
    f->sq_size[2] = sqsize;
    q->live = true;
    f->churns++;
    for (int b = 0; b < batches; b++) {
        int k = rr(1, sqsize);
        uint16_t first = c->cid + 1;
        bool last = b == batches - 1;

        for (int i = 0; i < k; i++) {
            fz_io_cmd(f, &cmd);
            submit(c, 2, &cmd);
        }
        if (last && rb()) {
            /* Delete SQ with commands in flight (Base 2.0, 5.6): those
             * fetched complete (maybe as aborted), then the CQ goes */
            g_usleep(rr(0, 2000));
            fz_delete(f, false, 2);
            while (reap(c, 2, &(NvmeCqe){0}, 200 * 1000)) {
                /* drained */
            }
            fz_delete(f, true, 2);
            return;
        }
        fz_reap_batch(f, 2, first, k, "queue 2");
    }
    fz_delete(f, false, 2);
    fz_delete(f, true, 2);
}

/* A completion on the shared CQ: one of the total commands from cid first
 * on, not seen before, posted for the SQ that command went to. */
static void fz_shared_seen(Fz *f, const NvmeCqe *cqe, uint16_t first,
                           int total, bool *seen, const uint16_t *owner)
{
    uint16_t d = le16_to_cpu(cqe->cid) - first;

    if (d >= total || seen[d] || le16_to_cpu(cqe->sq_id) != owner[d]) {
        fz_fail(f, "shared CQ: unexpected cid %u on SQ %u",
                le16_to_cpu(cqe->cid), le16_to_cpu(cqe->sq_id));
    }
    seen[d] = true;
    f->cmds++;
}

/*
 * Three SQs (1-3) on one small CQ (2), so that with pollers >= 3 three
 * pollers post into it, and it is often full (completions parked); then
 * SQs are deleted with commands in flight.  Every completion is for a
 * command of this batch, once, on the SQ it was sent to; a deleted SQ's
 * commands may end aborted or not at all (a full CQ has no room for the
 * abort), the others complete.
 */
static void fz_shared_cq(Fz *f)
{
    Ctrl *c = f->c;
    Queue *cq = &c->q[2];
    uint32_t cqsize = PICK(2, 3, rr(2, QDEPTH + 1));
    int nsq = MIN(fz_queues, NQ - 1), k[NQ] = {}, total = 0, got = 0;
    uint16_t first, owner[3 * QDEPTH];
    bool gone[NQ] = {}, seen[3 * QDEPTH] = {};
    NvmeCmd cmd;
    NvmeCqe cqe;

    if (nsq < 2) {
        return;
    }
    for (int q = 1; q <= nsq; q++) {
        fz_free_qid(f, q);
    }
    queue_init(c, 2, 0, ring_page(c, 2, 1), 0, cqsize);
    shadow_db(c, 2, 1, 0);
    cmd = mk(NVME_ADM_CMD_CREATE_CQ, 0, cq->cq, 0);
    cmd.cdw10 = cpu_to_le32((cqsize - 1) << 16 | 2);
    cmd.cdw11 = cpu_to_le32(1);
    if (fz_cmd(f, 0, &cmd, NULL) != NVME_SUCCESS) {
        fz_fail(f, "create CQ 2 (size %u) failed", cqsize);
    }
    f->cq_on[2] = true;
    f->cq_size[2] = cqsize;
    for (int q = 1; q <= nsq; q++) {
        Queue *sq = &c->q[q];

        sq->sq = ring_page(c, q, 0);
        sq->sqsize = QDEPTH;
        sq->tail = 0;
        shadow_db(c, q, 0, 0);
        cmd = mk(NVME_ADM_CMD_CREATE_SQ, 0, sq->sq, 0);
        cmd.cdw10 = cpu_to_le32((QDEPTH - 1) << 16 | q);
        cmd.cdw11 = cpu_to_le32(2 << 16 | 1);
        if (fz_cmd(f, 0, &cmd, NULL) != NVME_SUCCESS) {
            fz_fail(f, "create SQ %d on the shared CQ 2 failed", q);
        }
        f->sq_on[q] = true;
        f->sq_cq[q] = 2;
        f->sq_size[q] = QDEPTH;
    }
    /* the queues are not the driver's usual pairs any more */
    for (int q = 1; q <= nsq; q++) {
        c->q[q].live = false;
    }
    first = c->cid + 1;
    for (int q = 1; q <= nsq; q++) {
        k[q] = rr(1, QDEPTH);
        for (int i = 0; i < k[q]; i++) {
            fz_io_cmd(f, &cmd);
            submit(c, q, &cmd);
            owner[total++] = q;
        }
    }
    /* consume some, then delete some SQs with commands in flight */
    for (int n = rr(0, total + 1); got < n; got++) {
        if (!reap(c, 2, &cqe, TIMEOUT_US)) {
            fz_fail(f, "shared CQ: %d of %d commands never completed",
                    total - got, total);
        }
        fz_shared_seen(f, &cqe, first, total, seen, owner);
    }
    g_usleep(rr(0, 2) ? 0 : rr(0, 2000));
    for (int q = 1; q <= nsq; q++) {
        if (rb()) {
            fz_delete(f, false, q);
            gone[q] = true;
        }
    }
    /* the rest: all of the live SQs' (each within TIMEOUT_US), then
     * whatever of the deleted ones' comes */
    for (;;) {
        int live = 0;
        uint16_t d;

        for (d = 0; d < total; d++) {
            live += !seen[d] && !gone[owner[d]];
        }
        if (!reap(c, 2, &cqe, live ? TIMEOUT_US : 200 * 1000)) {
            for (d = 0; live && d < total; d++) {
                if (!seen[d] && !gone[owner[d]]) {
                    fz_fail(f, "shared CQ: cid %u of live SQ %d never "
                            "completed", first + d, owner[d]);
                }
            }
            break;
        }
        fz_shared_seen(f, &cqe, first, total, seen, owner);
    }
    for (int q = 1; q <= nsq; q++) {
        if (!gone[q]) {
            fz_delete(f, false, q);
        }
    }
    fz_delete(f, true, 2);
    f->churns++;
}

/* Random doorbell and register writes. */
static void fz_mmio(Fz *f)
{
    Ctrl *c = f->c;
    int kind = rr(0, 8);

    if (kind < 5) {
        /* doorbells: existing or not, values inside or beyond the queue */
        uint16_t qid = rr(0, 8) ? rr(0, NQ) : rr(0, 1024);
        bool cq = rb();
        uint32_t val = PICK(rr(0, 4), rr(0, QDEPTH), QDEPTH, QDEPTH + 1,
                            0xffff, 0x10000, r32());
        uint64_t off = DB(qid, cq);

        if (off + 4 > c->bar_size) {
            off = c->bar_size - 4 * rr(1, 4);
        }
        if (cq && qid && qid < NQ && f->cq_on[qid]) {
            /*
             * An I/O CQ head: between steps every command the driver
             * sent was reaped, so the CQ holds no posted entry and any
             * head but the current one would consume completions never
             * posted: the controller must ignore it (Invalid Doorbell
             * Write Value, 01h) and the model stays exact.  (A CQ that
             * create-random made has posted nothing either.)
             */
        } else if (qid == 0 ? val < (cq ? c->q[0].cqsize : c->q[0].sqsize) :
            qid < NQ && (cq ? f->cq_on[qid] : f->sq_on[qid]) &&
            val < (cq ? f->cq_size[qid] : f->sq_size[qid])) {
            /* a valid doorbell the driver did not mean: the controller
             * runs whatever the ring holds; the model is lost */
            f->dirty = true;
            f->dirties++;
        }
        wr32(c, off, val);
    } else if (kind == 5) {
        /* registers other than CC: read-only ones, reserved, INTMS/C,
         * admin queue attributes (used at the next enable) */
        uint64_t off = rr(0, 0x1000 / 4) * 4;

        if (off == NVME_REG_CC) {
            off = NVME_REG_INTMS;
        }
        wr32(c, off, r32());
        if (off == NVME_REG_AQA || off == NVME_REG_ASQ ||
            off == NVME_REG_ASQ + 4 || off == NVME_REG_ACQ ||
            off == NVME_REG_ACQ + 4) {
            /* ctrl_enable programs them again */
        }
    } else if (kind == 6) {
        /* reads anywhere, also misaligned and past the registers */
        uint64_t off = rr(0, c->bar_size);
        rd32(c, off & ~3ull);
        qpci_io_readw(c->dev, c->bar, off & ~1ull);
        qpci_io_readb(c->dev, c->bar, off);
    } else {
        /* narrow and misaligned writes to registers and doorbells */
        uint64_t off = rr(0, 0x1000 + 8 * NQ);
        if (off == NVME_REG_CC || off == NVME_REG_CC + 1 ||
            off == NVME_REG_CC + 2 || off == NVME_REG_CC + 3) {
            off = 0;
        }
        if (rb()) {
            qpci_io_writeb(c->dev, c->bar, off, r32());
        } else {
            qpci_io_writew(c->dev, c->bar, off & ~1ull, r32());
        }
    }
}

/*
 * PCI bus mastering off while I/O commands are queued, then on again
 * without a reset: nothing may be fetched or posted meanwhile, and
 * every command completes once the controller may reach memory again.
 */
static void fz_bus_master_pause(Fz *f)
{
    Ctrl *c = f->c;
    uint16_t pcmd = qpci_config_readw(c->dev, PCI_COMMAND);
    int k = rr(1, 9);
    uint16_t first;
    NvmeCqe cqe;

    fz_ensure_ioq(f);
    first = c->cid + 1;
    qpci_config_writew(c->dev, PCI_COMMAND, pcmd & ~PCI_COMMAND_MASTER);
    for (int i = 0; i < k; i++) {
        NvmeCmd cmd;
        fz_io_cmd(f, &cmd);
        submit(c, IOQ, &cmd);
    }
    if (reap(c, IOQ, &cqe, rr(0, 4) * 1000)) {
        fz_fail(f, "bus mastering off: cid %u was completed",
                le16_to_cpu(cqe.cid));
    }
    qpci_config_writew(c->dev, PCI_COMMAND, pcmd | PCI_COMMAND_MASTER);
    fz_reap_batch(f, IOQ, first, k, "bus mastering on again");
}

/* Doorbell Buffer Config with good and bad pages (Base 2.0, 5.8). */
static void fz_dbbuf(Fz *f)
{
    Ctrl *c = f->c;
    uint64_t pool[] = {
        /* not data pages 0-1: the health check compares them, and the
         * controller writes event indexes into the EIS page */
        f->shadow[0], f->shadow[1], c->buf + rr(2, 16) * PAGE,
        f->scratch + rr(0, 4) * PAGE, FZ_FAR, f->shadow[0] + 4 * rr(1, 1024),
        0, c->bar.addr, FZ_RAM_END - PAGE, FZ_RAM_END,
    };
    uint64_t dbs = rr(0, 4) ? f->shadow[rr(0, 2)] : pool[rr(0, 10)];
    uint64_t eis = rr(0, 4) ? f->shadow[rr(0, 2)] : pool[rr(0, 10)];
    bool ok_dbs = dbs && !(dbs & (PAGE - 1)) && dbs < FZ_RAM_END;
    bool ok_eis = eis && !(eis & (PAGE - 1)) && eis < FZ_RAM_END;
    NvmeCmd cmd = mk(NVME_ADM_CMD_DBBUF_CONFIG, 0, dbs, eis);
    uint16_t st;

    if (dbs == f->shadow[0] || dbs == f->shadow[1]) {
        /*
         * The shadow doorbells start as the MMIO ones are now.  In one
         * write: the page may be the one the controller reads now (the
         * same page configured again), and zeroing it first showed it an
         * SQ tail of 0 for a moment, i.e. up to a ring of old entries
         * to run again (their stale completions failed random-chaos).
         */
        uint32_t page[PAGE / 4] = {};

        for (int i = 1; i < NQ; i++) {
            if (c->q[i].live) {
                page[2 * i] = cpu_to_le32(c->q[i].tail);
                page[2 * i + 1] = cpu_to_le32(c->q[i].head);
            }
        }
        qtest_memwrite(c->qts, dbs, page, sizeof(page));
    }
    st = fz_cmd(f, 0, &cmd, NULL);
    if (st != (ok_dbs && ok_eis ? NVME_SUCCESS : NVME_INVALID_FIELD)) {
        fz_fail(f, "Doorbell Buffer Config 0x%" PRIx64 " 0x%" PRIx64
                ": status 0x%x", dbs, eis, st);
    }
    if (st != NVME_SUCCESS) {
        return;
    }
    if ((dbs == f->shadow[0] || dbs == f->shadow[1]) && eis != dbs) {
        c->dbs = dbs;
        c->eis = eis;
        /* the event index page may be a data page: the controller
         * writes it; keep the PRP list out of its way */
    } else {
        /* doorbells read from a page the driver does not keep */
        c->dbs = 0;
        f->dirty = true;
        f->dirties++;
    }
}

/* Asynchronous Event Request: stays outstanding until an event. */
static void fz_aer(Fz *f)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_ASYNC_EV_REQ, 0, 0, 0);

    if (f->c->naer >= 6) {
        return;     /* keep the admin CQ from overflowing (fz_resync) */
    }
    submit(f->c, 0, &cmd);
    f->c->aer_cid[f->c->naer++] = f->c->cid;
    /* more than AERL + 1 outstanding: Asynchronous Event Request Limit
     * Exceeded; the next command's wait sees it */
}

/* Disable / enable / shutdown / failed enable / NSSR / bus master off,
 * mostly with commands in flight. */
static void fz_reset(Fz *f)
{
    Ctrl *c = f->c;
    int kind = rr(0, 7);
    int inflight = rr(0, QDEPTH - 1);

    fz_ensure_ioq(f);
    for (int i = 0; i < inflight; i++) {
        NvmeCmd cmd;
        fz_io_cmd(f, &cmd);
        submit(c, IOQ, &cmd);
    }
    if (rb()) {
        NvmeCmd cmd;
        fz_admin_cmd(f, &cmd);
        submit(c, 0, &cmd);
    }
    g_usleep(rr(0, 3) ? 0 : rr(0, 2000));
    switch (kind) {
    case 0:
    case 1:
        /* CC.EN 1 -> 0 -> 1 */
        break;
    case 2: {
        /* normal or abrupt shutdown: CSTS.SHST reaches 2 (3.6.2) */
        uint32_t cc = rd32(c, NVME_REG_CC);
        wr32(c, NVME_REG_CC, cc | (uint32_t)rr(1, 3) << 14);
        if (!wait_csts(c, 3 << 2, 2 << 2)) {
            fz_fail(f, "shutdown did not complete (CSTS 0x%x)",
                    rd32(c, NVME_REG_CSTS));
        }
        break;
    }
    case 3: {
        /* an enable the controller must refuse with CSTS.CFS (3.5.1) */
        wr32(c, NVME_REG_CC, 0);
        if (!wait_csts(c, 1, 0)) {
            fz_fail(f, "CC.EN=0 did not clear CSTS.RDY");
        }
        switch (rr(0, 5)) {
        case 0:
            wr64(c, NVME_REG_ASQ, rb() ? 0 : c->q[0].sq + 8);
            wr32(c, NVME_REG_CC, 1 | 6 << 16 | 4 << 20);
            break;
        case 1:
            wr64(c, NVME_REG_ACQ, rb() ? FZ_FAR : c->bar.addr);
            wr32(c, NVME_REG_CC, 1 | 6 << 16 | 4 << 20);
            break;
        case 2:
            wr32(c, NVME_REG_AQA, 0);
            wr32(c, NVME_REG_CC, 1 | 6 << 16 | 4 << 20);
            break;
        case 3:
            wr32(c, NVME_REG_CC, 1 | 6 << 16 | 4 << 20 | rr(1, 16) << 7);
            break;
        default:
            wr32(c, NVME_REG_CC, 1 | 6 << 16 | 4 << 20 | rr(1, 8) << 11);
            break;
        }
        if (!wait_csts(c, 3, 2)) {
            fz_fail(f, "bad enable: CSTS 0x%x, want CFS and not RDY",
                    rd32(c, NVME_REG_CSTS));
        }
        break;
    }
    case 4:
        /* a random CC value: anything may happen but a crash */
        wr32(c, NVME_REG_CC, r32());
        g_usleep(rr(0, 1000));
        break;
    case 5: {
        /* bus mastering off: no DMA, no completions; back on, reset */
        uint16_t pcmd = qpci_config_readw(c->dev, PCI_COMMAND);
        qpci_config_writew(c->dev, PCI_COMMAND, pcmd & ~PCI_COMMAND_MASTER);
        for (int i = 0; i < 4; i++) {
            NvmeCmd cmd;
            fz_io_cmd(f, &cmd);
            submit(c, IOQ, &cmd);
        }
        wr32(c, DB(0, 0), c->q[0].tail);
        g_usleep(rr(0, 3000));
        qpci_config_writew(c->dev, PCI_COMMAND, pcmd);
        break;
    }
    default: {
        /* NVM Subsystem Reset: not supported, ignored (CAP.NSSRS 0);
         * then the in-flight commands are reaped normally */
        wr32(c, NVME_REG_NSSR, rb() ? 0x4e564d65 : r32());
        for (int i = 0; i < inflight; i++) {
            NvmeCqe cqe;
            if (!reap(c, IOQ, &cqe, TIMEOUT_US)) {
                fz_fail(f, "after NSSR: %d of %d I/O never completed",
                        inflight - i, inflight);
            }
        }
        f->dirty = true;        /* the admin command, if any */
        return;
    }
    }
    fz_resync(f);
}

static void fz_msix(Fz *f)
{
    uint8_t cap = qpci_find_capability(f->c->dev, PCI_CAP_ID_MSIX, 0);
    uint16_t v;

    g_assert(cap);
    v = qpci_config_readw(f->c->dev, cap + PCI_MSIX_FLAGS);
    f->msix = !f->msix;
    qpci_config_writew(f->c->dev, cap + PCI_MSIX_FLAGS,
                       f->msix ? v | PCI_MSIX_FLAGS_ENABLE
                               : v & ~PCI_MSIX_FLAGS_ENABLE);
}

/* One chaos step of each kind: what a random 0..99 below upto picks. */
static void fz_step_io(Fz *f)
{
    Ctrl *c = f->c;
    NvmeCmd cmd;

    fz_ensure_ioq(f);
    if (f->nzones && !rr(0, 4)) {
        fz_note(f, "zone-report, io");
        fz_zone_report(f);
    }
    if (rb()) {
        fz_io_cmd(f, &cmd);
        fz_cmd(f, IOQ, &cmd, NULL);
    } else {
        /* a batch, completed in any order */
        int k = rr(2, QDEPTH);
        uint16_t first = c->cid + 1;

        for (int i = 0; i < k; i++) {
            fz_io_cmd(f, &cmd);
            submit(c, IOQ, &cmd);
        }
        fz_reap_batch(f, IOQ, first, k, "I/O batch");
    }
}

static void fz_step_admin(Fz *f)
{
    NvmeCmd cmd;

    fz_admin_cmd(f, &cmd);
    if (fz_cmd(f, 0, &cmd, NULL) == NVME_SUCCESS &&
        cmd.opcode == FEMU_ADM_CMD_CONTROL && le32_to_cpu(cmd.cdw10) == FEMU_CTRL_FAIL_ZONE) {
        f->zfailed++;
    }
}

static void fz_step_log(Fz *f)
{
    NvmeCmd cmd;

    fz_log_cmd(f, &cmd);
    fz_cmd(f, 0, &cmd, NULL);
}

static void fz_step_queue(Fz *f)
{
    if (rb()) {
        fz_note(f, "create-random");
        fz_create_random(f);
    } else {
        fz_note(f, "delete-random");
        fz_delete(f, rb(), fz_qid());
    }
}

static const struct {
    int upto;
    const char *name;
    void (*fn)(Fz *f);
} fz_steps[] = {
    { 2, "bus-master-pause", fz_bus_master_pause },
    { 28, "io", fz_step_io },
    { 45, "admin", fz_step_admin },
    { 55, "get-log-page", fz_step_log },
    { 59, "queue-churn", fz_churn },
    { 62, "shared-cq", fz_shared_cq },
    { 70, "create/delete-random", fz_step_queue },
    { 80, "mmio", fz_mmio },
    { 84, "dbbuf", fz_dbbuf },
    { 88, "aer", fz_aer },
    { 95, "reset", fz_reset },
    { 97, "msix", fz_msix },
    { 100, "prp-list-refill", fz_fill_list },
};

void test_random_chaos(void)
{
    const char *steps_env = getenv("FEMU_QTEST_CHAOS_STEPS");
    const char *secs_env = getenv("FEMU_QTEST_FUZZ_SECONDS");
    long steps = steps_env ? atol(steps_env) : 1000;
    int64_t until = secs_env ? g_get_monotonic_time() +
                    (int64_t)atol(secs_env) * G_USEC_PER_SEC : 0;
    static const char *const policies[] = {
        "greedy", "fifo", "random", "cost-benefit", "d-choice",
    };
    /* the zoned variant: zone geometries on 4 LUNs of 16 blocks of
     * 256 KiB (64 zones of 256 KiB, 32 of 512 KiB, 8 of 2 MiB, 4 of 4 MiB;
     * capacity below the size), and open/active limits */
    static const char *const zgeo[] = {
        "zone_luns=1", "zone_luns=2", "zone_luns=2,zone_size_mb=2",
        "zone_luns=2,zone_size_mb=2,zone_cap_mb=1",
        "zone_luns=4,zone_size_mb=4,zone_cap_mb=3",
    };
    static const char *const zlimits[] = {
        "max_open=0", "max_open=1,max_active=1", "max_open=1,max_active=2",
        "max_open=2,max_active=3", "max_open=3,max_active=8",
    };
    g_autofree char *opts = NULL;
    Fz fz = {}, *f = &fz;
    bool zoned;
    Ctrl *c;

    fz_init("random-chaos");
    zoned = fz_seed % 4 == 3;
    /* the device configuration comes from the seed too */
    if (zoned) {
        int mdts = PICK(1, 3, 5, 7, 8, 9);

        opts = g_strdup_printf("femu_mode=3,pg_rd_lat=0,pg_wr_lat=0,"
                               "blk_er_lat=0,nchs=2,luns_per_ch=2,"
                               "blks_per_pl=16,pgs_per_blk=64,%s,%s,"
                               "zasl=%d,secsz=%d,mdts=%d,pollers=%d,"
                               "queues=%d,mqes=%d",
                               zgeo[rr(0, ARRAY_SIZE(zgeo))],
                               zlimits[rr(0, ARRAY_SIZE(zlimits))],
                               MIN(rr(0, 3), mdts), (int)PICK(512, 4096),
                               mdts, (int)PICK(1, 2, 3, 4),
                               fz_queues = PICK(2, 3, 64),
                               (int)PICK(0x3ff, 0xffff));
    } else {
        opts = g_strdup_printf("pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0,nchs=2,"
                               "luns_per_ch=2,blks_per_pl=32,pgs_per_blk=16,"
                               "op_pcent=%d,subsys=fdp0,gc_policy=%s,"
                               "hot_cold_sep=%s,secsz=%d,mdts=%d,pollers=%d,"
                               "queues=%d,mqes=%d",
                               (int)PICK(30, 50, 100), policies[rr(0, 5)],
                               rb() ? "on" : "off", (int)PICK(512, 4096),
                               (int)PICK(1, 3, 5, 7, 8, 9),
                               (int)PICK(1, 2, 3, 4),
                               fz_queues = PICK(2, 3, 64),
                               (int)PICK(0x3ff, 0xffff));
    }
    g_test_message("random-chaos: -device femu,%s", opts);
    c = ctrl_start(opts);
    f->c = c;
    if (zoned) {
        zoned_setup(c);
        f->nzones = MIN(c->nzones, FZ_ZONES);
        for (uint32_t z = 0; z < f->nzones; z++) {
            f->zwp[z] = z * c->zsze;
        }
    }
    f->list = guest_alloc(&c->qs->alloc, PAGE);
    f->shadow[0] = guest_alloc(&c->qs->alloc, PAGE);
    f->shadow[1] = guest_alloc(&c->qs->alloc, PAGE);
    f->scratch = guest_alloc(&c->qs->alloc, 4 * PAGE);
    fz_fill_list(f);
    f->sq_on[IOQ] = f->cq_on[IOQ] = true;
    f->sq_cq[IOQ] = IOQ;
    f->sq_size[IOQ] = f->cq_size[IOQ] = QDEPTH;

    for (f->step = 0; until ? g_get_monotonic_time() < until
                            : f->step < steps; f->step++) {
        int a = rr(0, 100), i;

        if (f->dirty) {
            fz_note(f, "resync");
            g_usleep(rr(0, 3) ? 0 : rr(0, 3000));
            fz_resync(f);
            continue;
        }
        i = 0;
        while (a >= fz_steps[i].upto) {
            i++;
        }
        fz_note(f, fz_steps[i].name);
        fz_steps[i].fn(f);
        if (!f->dirty) {
            fz_check_cfs(f);
        }
        if (f->step % 64 == 63) {
            fz_ensure_ioq(f);
            health(c);
        }
    }
    fz_ensure_ioq(f);
    g_test_message("random-chaos: %d steps, %" PRIu64 " commands completed "
                   "(%" PRIu64 " with an error status), %" PRIu64 " resets, "
                   "%" PRIu64 " model losses, %" PRIu64 " queue churns, AER: "
                   "%" PRIu64 " events, %" PRIu64 " over the limit",
                   f->step, f->cmds, f->errs, f->resets, f->dirties,
                   f->churns, c->aer_done, c->aer_limit);
    if (f->nzones) {
        uint32_t written = 0;

        fz_zone_report(f);
        for (uint32_t z = 0; z < f->nzones; z++) {
            written += f->zwp[z] != z * c->zsze;
        }
        g_test_message("random-chaos: %u zones of %" PRIu64 " blocks, %"
                       PRIu64 " zone commands, %" PRIu64 " zone reports; "
                       "at the end %u of %u zones hold data, %u failed "
                       "with 0xEF code 9",
                       c->nzones, c->zsze, f->zcmds, f->zreports, written,
                       f->nzones, f->zfailed);
    }
    ctrl_stop(c);
}
