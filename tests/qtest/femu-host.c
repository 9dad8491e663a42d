/*
 * The NVMe host of femu-test: BAR access, queues, command helpers, the
 * health check, the zone command helpers and the fuzz groups' seeded
 * generator.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu-host.h"

const char *extra_args = "";

uint32_t rd32(Ctrl *c, uint64_t off)
{
    return qpci_io_readl(c->dev, c->bar, off);
}

void wr32(Ctrl *c, uint64_t off, uint32_t v)
{
    qpci_io_writel(c->dev, c->bar, off, v);
}

void wr64(Ctrl *c, uint64_t off, uint64_t v)
{
    qpci_io_writel(c->dev, c->bar, off, (uint32_t)v);
    qpci_io_writel(c->dev, c->bar, off + 4, (uint32_t)(v >> 32));
}

bool wait_csts(Ctrl *c, uint32_t mask, uint32_t want)
{
    for (int i = 0; i < TIMEOUT_US / 1000; i++) {
        if ((rd32(c, NVME_REG_CSTS) & mask) == want) {
            return true;
        }
        g_usleep(1000);
    }
    return false;
}

void find_dev(QPCIDevice *dev, int devfn, void *data)
{
    *(QPCIDevice **)data = dev;
}

/* The ring page of queue qid (which: 0 SQ, 1 CQ); allocated on first use
 * and reused, so that a long run of resets does not exhaust guest RAM. */
uint64_t ring_page(Ctrl *c, int qid, int which)
{
    if (!c->ring[qid][which]) {
        c->ring[qid][which] = guest_alloc(&c->qs->alloc, PAGE);
    }
    return c->ring[qid][which];
}

/* Disable, program the admin queue, enable (Base 2.0, 3.5.1). */
void ctrl_enable_sized(Ctrl *c, uint16_t asqs, uint16_t acqs)
{
    Queue *a = &c->q[0];

    wr32(c, NVME_REG_CC, 0);
    g_assert(wait_csts(c, 1, 0));
    memset(c->q, 0, sizeof(c->q));
    /* a reset forgets the Doorbell Buffer Config (Base 2.0, 5.8) and
     * outstanding AERs */
    c->dbs = c->eis = 0;
    c->naer = 0;
    queue_init(c, 0, ring_page(c, 0, 0), ring_page(c, 0, 1), asqs, acqs);
    a->live = true;
    wr32(c, NVME_REG_AQA, (uint32_t)(acqs - 1) << 16 | (asqs - 1));
    wr64(c, NVME_REG_ASQ, a->sq);
    wr64(c, NVME_REG_ACQ, a->cq);
    /* IOSQES 6 (64 B), IOCQES 4 (16 B), MPS 0 (4 KiB), NVM command set */
    wr32(c, NVME_REG_CC, 1 | 6 << 16 | 4 << 20);
    g_assert(wait_csts(c, 1, 1));
}

void ctrl_enable(Ctrl *c)
{
    ctrl_enable_sized(c, QDEPTH, QDEPTH);
}

/* With shadow doorbells configured, the controller takes I/O queue
 * doorbells from the shadow buffer (Base 2.0, 5.8): update the entry,
 * then ring the MMIO doorbell as well (always allowed). */
void shadow_db(Ctrl *c, int qid, int cq, uint32_t val)
{
    if (c->dbs && qid) {
        uint32_t v = cpu_to_le32(val);
        qtest_memwrite(c->qts, c->dbs + (2 * qid + cq) * 4, &v, sizeof(v));
    }
}

void submit(Ctrl *c, int qid, NvmeCmd *cmd)
{
    Queue *q = &c->q[qid];

    cmd->cid = cpu_to_le16(++c->cid);
    qtest_memwrite(c->qts, q->sq + q->tail * sizeof(*cmd), cmd, sizeof(*cmd));
    q->tail = (q->tail + 1) % (q->sqsize ? q->sqsize : QDEPTH);
    shadow_db(c, qid, 0, q->tail);
    wr32(c, DB(qid, 0), q->tail);
}

/* Next completion on qid; false on timeout. */
bool reap(Ctrl *c, int qid, NvmeCqe *cqe, int timeout_us)
{
    Queue *q = &c->q[qid];

    for (int t = 0; t < timeout_us; t += 200) {
        qtest_memread(c->qts, q->cq + q->head * sizeof(*cqe), cqe,
                      sizeof(*cqe));
        if ((le16_to_cpu(cqe->status) & 1) == q->phase) {
            q->head = (q->head + 1) % (q->cqsize ? q->cqsize : QDEPTH);
            if (q->head == 0) {
                q->phase ^= 1;
            }
            shadow_db(c, qid, 1, q->head);
            wr32(c, DB(qid, 1), q->head);
            return true;
        }
        g_usleep(200);
    }
    return false;
}

/* The next n completions on qid: commands first .. first + n - 1, in
 * that order, each successful. */
void reap_in_order(Ctrl *c, int qid, uint16_t first, int n)
{
    NvmeCqe cqe;

    for (int i = 0; i < n; i++) {
        g_assert(reap(c, qid, &cqe, TIMEOUT_US));
        g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, (uint16_t)(first + i));
        g_assert_cmphex(STATUS(le16_to_cpu(cqe.status) >> 1), ==,
                        NVME_SUCCESS);
    }
}

/* If cqe completes an outstanding AER, account for it and say so. */
bool aer_reaped(Ctrl *c, int qid, NvmeCqe *cqe)
{
    uint16_t st = STATUS(le16_to_cpu(cqe->status) >> 1);

    for (int i = 0; qid == 0 && i < c->naer; i++) {
        if (c->aer_cid[i] != le16_to_cpu(cqe->cid)) {
            continue;
        }
        c->aer_cid[i] = c->aer_cid[--c->naer];
        /* an event, or more than AERL + 1 outstanding (Base 2.0, 5.2) */
        g_assert(st == NVME_SUCCESS || st == NVME_AER_LIMIT_EXCEEDED);
        if (st == NVME_SUCCESS) {
            c->aer_result[c->aer_done % 16] = le32_to_cpu(cqe->result);
            c->aer_done++;
        } else {
            c->aer_limit++;
        }
        return true;
    }
    return false;
}

/* Submit and wait: returns SCT/SC of the completion. */
uint16_t run(Ctrl *c, int qid, NvmeCmd *cmd, uint32_t *dw0)
{
    NvmeCqe cqe;

    submit(c, qid, cmd);
    do {
        g_assert(reap(c, qid, &cqe, TIMEOUT_US));
    } while (aer_reaped(c, qid, &cqe));
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, c->cid);
    if (dw0) {
        *dw0 = le32_to_cpu(cqe.result);
    }
    return STATUS(le16_to_cpu(cqe.status) >> 1);
}

NvmeCmd mk(uint8_t opc, uint32_t nsid, uint64_t prp1, uint64_t prp2)
{
    NvmeCmd cmd = { .opcode = opc, .nsid = cpu_to_le32(nsid) };

    cmd.dptr.prp1 = cpu_to_le64(prp1);
    cmd.dptr.prp2 = cpu_to_le64(prp2);
    return cmd;
}

uint16_t identify(Ctrl *c, uint8_t cns, uint32_t nsid, uint64_t prp1)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_IDENTIFY, nsid, prp1, 0);

    cmd.cdw10 = cpu_to_le32(cns);
    return run(c, 0, &cmd, NULL);
}

uint16_t create_cq(Ctrl *c, uint16_t qid, uint16_t qsize, uint16_t flags,
                   uint16_t iv, uint64_t addr)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_CREATE_CQ, 0, addr, 0);

    cmd.cdw10 = cpu_to_le32((uint32_t)(qsize - 1) << 16 | qid);
    cmd.cdw11 = cpu_to_le32((uint32_t)iv << 16 | flags);
    return run(c, 0, &cmd, NULL);
}

uint16_t create_sq(Ctrl *c, uint16_t qid, uint16_t qsize, uint16_t cqid,
                   uint64_t addr)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_CREATE_SQ, 0, addr, 0);

    cmd.cdw10 = cpu_to_le32((uint32_t)(qsize - 1) << 16 | qid);
    cmd.cdw11 = cpu_to_le32((uint32_t)cqid << 16 | 1 /* PC */);
    return run(c, 0, &cmd, NULL);
}

uint16_t delete_q(Ctrl *c, uint8_t opc, uint16_t qid)
{
    NvmeCmd cmd = mk(opc, 0, 0, 0);

    cmd.cdw10 = cpu_to_le32(qid);
    return run(c, 0, &cmd, NULL);
}

/* I/O queue pair qid with QDEPTH entries, polled (IEN = 0). */
/*
 * The host's fresh view of queue pair qid: rings at sq and cq (the CQ
 * page zeroed), sqsize and cqsize entries (0: QDEPTH), phase 1, not yet
 * created.
 */
Queue *queue_init(Ctrl *c, int qid, uint64_t sq, uint64_t cq,
                  uint16_t sqsize, uint16_t cqsize)
{
    Queue *q = &c->q[qid];

    memset(q, 0, sizeof(*q));
    q->sq = sq;
    q->cq = cq;
    q->sqsize = sqsize;
    q->cqsize = cqsize;
    q->phase = 1;
    qtest_memset(c->qts, cq, 0, PAGE);
    return q;
}

/* Create I/O CQ qid (cq_flags: bit 0 physically contiguous, bit 1
 * interrupts on; vector iv) and SQ qid on it, as c->q[qid] says. */
void create_io_pair(Ctrl *c, int qid, uint16_t cq_flags, uint16_t iv)
{
    Queue *q = &c->q[qid];

    g_assert_cmphex(create_cq(c, qid, q->cqsize ? q->cqsize : QDEPTH,
                              cq_flags, iv, q->cq), ==, NVME_SUCCESS);
    g_assert_cmphex(create_sq(c, qid, q->sqsize ? q->sqsize : QDEPTH, qid,
                              q->sq), ==, NVME_SUCCESS);
}

/* I/O queue pair qid of QDEPTH entries on its ring pages, created */
void setup_io(Ctrl *c, int qid)
{
    Queue *q = queue_init(c, qid, ring_page(c, qid, 0), ring_page(c, qid, 1),
                          0, 0);

    shadow_db(c, qid, 0, 0);
    shadow_db(c, qid, 1, 0);
    create_io_pair(c, qid, 1, 0);
    q->live = true;
}

uint16_t rw(Ctrl *c, uint8_t opc, uint64_t slba, uint16_t nlb,
            uint64_t prp1, uint64_t prp2)
{
    NvmeCmd cmd = mk(opc, 1, prp1, prp2);

    cmd.cdw10 = cpu_to_le32((uint32_t)slba);
    cmd.cdw11 = cpu_to_le32((uint32_t)(slba >> 32));
    cmd.cdw12 = cpu_to_le32(nlb - 1);
    return run(c, IOQ, &cmd, NULL);
}

Ctrl *ctrl_start(const char *devopts)
{
    Ctrl *c = g_new0(Ctrl, 1);
    uint8_t id[PAGE];
    NvmeIdNs *ns = (NvmeIdNs *)id;

    c->qs = qtest_pc_boot("-display none %s -device femu,addr=04.0,"
                          "queues=2%s%s", extra_args, *devopts ? "," : "",
                          devopts);
    c->qts = c->qs->qts;
    qpci_device_foreach(c->qs->pcibus, FEMU_PCI_VENDOR_ID, FEMU_PCI_DEVICE_ID, find_dev, &c->dev);
    g_assert(c->dev);
    qpci_device_enable(c->dev);
    c->bar = qpci_iomap(c->dev, 0, &c->bar_size);
    ctrl_enable(c);
    c->buf = guest_alloc(&c->qs->alloc, 16 * PAGE);
    g_assert_cmphex(identify(c, NVME_ID_CNS_NS, 1, c->buf), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(id));
    c->ns_blocks = le64_to_cpu(ns->nsze);
    c->lbaf = NVME_ID_NS_FLBAS_INDEX(ns->flbas);
    c->lba_shift = ns->lbaf[c->lbaf].ds;
    g_assert_cmpuint(c->ns_blocks << c->lba_shift, >, 1024 * 512);
    setup_io(c, IOQ);
    return c;
}

/* The zone geometry of a zoned namespace (Identify CNS 05h, CSI 02h), for
 * the health check and the zoned fuzz variant. */
void zoned_setup(Ctrl *c)
{
    NvmeIdNsZoned idz;

    g_assert_cmphex(identify_csi(c, NVME_ID_CNS_CS_NS, NVME_CSI_ZONED, 1), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, &idz, sizeof(idz));
    c->zsze = le64_to_cpu(idz.lbafe[c->lbaf].zsze);
    g_assert_cmpuint(c->zsze, >, 0);
    c->nzones = c->ns_blocks / c->zsze;
    g_assert_cmpuint(c->nzones, >, 0);
}

/*
 * Where the zoned health check writes nlb blocks: the write pointer of a
 * random zone, which is reset first when it has no room for them (Full,
 * or too near its capacity); zones the controller failed (Read Only,
 * Offline: 0xEF code 9) are passed over.  *end: the zone's first block
 * past its capacity.
 */
static uint64_t zone_room(Ctrl *c, uint16_t nlb, uint64_t *end)
{
    uint32_t z0 = g_test_rand_int_range(0, c->nzones);
    uint64_t zslba;
    NvmeZoneDescr d;
    uint8_t zs;

    for (uint32_t i = 0;; i++) {
        g_assert_cmpuint(i, <, c->nzones);
        zslba = (uint64_t)((z0 + i) % c->nzones) * c->zsze;
        d = zone_descr(c, zslba);
        zs = d.zs >> 4;
        if (zs != NVME_ZONE_STATE_READ_ONLY && zs != NVME_ZONE_STATE_OFFLINE) {
            break;
        }
    }
    *end = zslba + le64_to_cpu(d.zcap);
    if (zs == NVME_ZONE_STATE_FULL || le64_to_cpu(d.wp) + nlb > *end) {
        g_assert_cmphex(zsend(c, zslba, NVME_ZONE_ACTION_RESET, false), ==,
                        NVME_SUCCESS);
        return zslba;
    }
    return le64_to_cpu(d.wp);
}

/*
 * The device still works: Identify Controller + write/read/compare.  On a
 * zoned namespace the write goes to a zone's write pointer (zone_room);
 * when the zone cannot become active or open (Too Many Active / Open
 * Zones), every open or closed zone is finished, the zone reset and the
 * write sent again; the blocks past the new write pointer read as zeroes.
 */
void health(Ctrl *c)
{
    uint8_t out[2 * PAGE], in[2 * PAGE], id[PAGE];
    uint16_t nlb = sizeof(out) >> c->lba_shift;
    uint64_t lba = g_test_rand_int_range(0, MIN(512, c->ns_blocks / nlb)) *
                   nlb;
    uint64_t zend = 0;
    uint16_t st;

    g_assert_cmphex(identify(c, NVME_ID_CNS_CTRL, 0, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(id));
    g_assert(memmem(id, sizeof(id), "FEMU", 4));
    if (!c->q[IOQ].live) {
        setup_io(c, IOQ);
    }
    if (c->zsze) {
        lba = zone_room(c, nlb, &zend);
    }
    for (size_t i = 0; i < sizeof(out); i++) {
        out[i] = (uint8_t)(i * 7 + lba + c->cid);
    }
    qtest_memwrite(c->qts, c->buf, out, sizeof(out));
    st = rw(c, NVME_CMD_WRITE, lba, nlb, c->buf, c->buf + PAGE);
    if (c->zsze && (st == NVME_ZONE_TOO_MANY_ACTIVE ||
                    st == NVME_ZONE_TOO_MANY_OPEN)) {
        lba -= lba % c->zsze;
        g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_FINISH, true), ==,
                        NVME_SUCCESS);
        g_assert_cmphex(zsend(c, lba, NVME_ZONE_ACTION_RESET, false), ==,
                        NVME_SUCCESS);
        qtest_memwrite(c->qts, c->buf, out, sizeof(out));
        st = rw(c, NVME_CMD_WRITE, lba, nlb, c->buf, c->buf + PAGE);
    }
    g_assert_cmphex(st, ==, NVME_SUCCESS);
    qtest_memset(c->qts, c->buf, 0, sizeof(in));
    g_assert_cmphex(rw(c, NVME_CMD_READ, lba, nlb, c->buf, c->buf + PAGE), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, in, sizeof(in));
    g_assert(memcmp(in, out, sizeof(in)) == 0);
    if (c->zsze && lba + 2 * nlb <= zend) {
        qtest_memset(c->qts, c->buf, 0xa5, sizeof(in));
        g_assert_cmphex(rw(c, NVME_CMD_READ, lba + nlb, nlb, c->buf,
                           c->buf + PAGE), ==, NVME_SUCCESS);
        qtest_memread(c->qts, c->buf, in, sizeof(in));
        for (size_t i = 0; i < sizeof(in); i++) {
            g_assert_cmpuint(in[i], ==, 0);
        }
    }
}

void ctrl_stop(Ctrl *c)
{
    health(c);
    g_free(c->dev);
    qtest_pc_shutdown(c->qs);
    g_free(c);
}

/* Get Log Page (Base 2.0, 5.16): offset past the log -> Invalid Field,
 * unknown log -> Invalid Log Page, huge lengths -> capped or refused,
 * never a transfer past the buffer the host described. */
uint16_t get_log(Ctrl *c, uint8_t lid, uint32_t numd, uint64_t off,
                 uint64_t prp1, uint64_t prp2)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_GET_LOG_PAGE, 0xffffffff, prp1, prp2);

    cmd.cdw10 = cpu_to_le32((numd & 0xffff) << 16 | lid);
    cmd.cdw11 = cpu_to_le32(numd >> 16);
    cmd.cdw12 = cpu_to_le32((uint32_t)off);
    cmd.cdw13 = cpu_to_le32((uint32_t)(off >> 32));
    return run(c, 0, &cmd, NULL);
}

/* ---- fuzzing ---------------------------------------------------------- */

/*
 * The fuzz groups draw from their own generator, seeded from
 * FEMU_QTEST_SEED when set and not empty, else from g_test's (random per
 * run; tests/qtest/femu-random-*.t fix a seed for make check).  The
 * seed is printed first; a replay repeats the same command sequence
 * (QEMU's thread timing is not replayed, so a race may need a few runs).
 */
static GRand *fz_rng;
uint32_t fz_seed;

void fz_init(const char *group)
{
    const char *env = getenv("FEMU_QTEST_SEED");

    fz_seed = env && *env ? (uint32_t)strtoul(env, NULL, 0)
                          : g_test_rand_int();
    if (fz_rng) {
        g_rand_free(fz_rng);
    }
    fz_rng = g_rand_new_with_seed(fz_seed);
    g_test_message("%s: seed %u (replay with FEMU_QTEST_SEED=%u)", group,
                   fz_seed, fz_seed);
}

uint32_t r32(void)
{
    return g_rand_int(fz_rng);
}

uint64_t r64(void)
{
    return (uint64_t)r32() << 32 | r32();
}

/* uniform in [lo, hi) */
int32_t rr(int32_t lo, int32_t hi)
{
    return g_rand_int_range(fz_rng, lo, hi);
}

bool rb(void)
{
    return g_rand_boolean(fz_rng);
}

uint16_t identify_csi(Ctrl *c, uint8_t cns, uint8_t csi, uint32_t nsid)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_IDENTIFY, nsid, c->buf, 0);

    cmd.cdw10 = cpu_to_le32(cns);
    cmd.cdw11 = cpu_to_le32((uint32_t)csi << 24);
    return run(c, 0, &cmd, NULL);
}

/* Write, Read, Zone Append, Write Zeroes of nlb blocks from c->buf. */
uint16_t zio(Ctrl *c, uint8_t opc, uint64_t slba, uint32_t nlb,
             uint32_t *dw0)
{
    NvmeCmd cmd = mk(opc, 1, c->buf, c->buf + PAGE);

    cmd.cdw10 = cpu_to_le32((uint32_t)slba);
    cmd.cdw11 = cpu_to_le32((uint32_t)(slba >> 32));
    cmd.cdw12 = cpu_to_le32(nlb - 1);
    return run(c, IOQ, &cmd, dw0);
}

uint16_t zsend(Ctrl *c, uint64_t slba, uint8_t zsa, bool all)
{
    NvmeCmd cmd = mk(NVME_CMD_ZONE_MGMT_SEND, 1, 0, 0);

    cmd.cdw10 = cpu_to_le32((uint32_t)slba);
    cmd.cdw11 = cpu_to_le32((uint32_t)(slba >> 32));
    cmd.cdw13 = cpu_to_le32(zsa | (all ? 1u << 8 : 0));
    return run(c, IOQ, &cmd, NULL);
}

/* Report Zones into c->buf (at most 2 pages). */
uint16_t zrecv(Ctrl *c, uint64_t slba, uint32_t bytes, uint8_t zra,
               uint8_t zrasf, bool partial)
{
    NvmeCmd cmd = mk(NVME_CMD_ZONE_MGMT_RECV, 1, c->buf, c->buf + PAGE);

    cmd.cdw10 = cpu_to_le32((uint32_t)slba);
    cmd.cdw11 = cpu_to_le32((uint32_t)(slba >> 32));
    cmd.cdw12 = cpu_to_le32(bytes / 4 - 1);
    cmd.cdw13 = cpu_to_le32(zra | (uint32_t)zrasf << 8 |
                            (partial ? 1u << 16 : 0));
    return run(c, IOQ, &cmd, NULL);
}

uint64_t zreport_nr(Ctrl *c)
{
    uint64_t nr;

    qtest_memread(c->qts, c->buf, &nr, sizeof(nr));
    return le64_to_cpu(nr);
}

NvmeZoneDescr zdesc(Ctrl *c, int i)
{
    NvmeZoneDescr d;

    qtest_memread(c->qts, c->buf + sizeof(NvmeZoneReportHeader) +
                  i * sizeof(d), &d, sizeof(d));
    return d;
}

/* The descriptor of the zone that starts at zslba (a partial report). */
NvmeZoneDescr zone_descr(Ctrl *c, uint64_t zslba)
{
    NvmeZoneDescr d;

    g_assert_cmphex(zrecv(c, zslba, 128, NVME_ZONE_REPORT,
                          NVME_ZONE_REPORT_ALL, true), ==, NVME_SUCCESS);
    g_assert_cmpuint(zreport_nr(c), ==, 1);
    d = zdesc(c, 0);
    g_assert_cmpuint(le64_to_cpu(d.zslba), ==, zslba);
    return d;
}
