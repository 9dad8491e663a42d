/*
 * qtest driver for the `femu` NVMe controller: a small NVMe host that
 * talks to the device below any guest kernel, so it can send what Linux
 * never would (bad opcodes, bad PRPs, bad queue ids, doorbells beyond the
 * queues, resets during I/O, ...).  Each case checks the status the NVMe
 * spec prescribes (NVMe Base 2.0 section numbers in the comments), and
 * every group ends with a health check: Identify + a write/read/compare
 * on an I/O queue, so a device that "survived" but stopped working fails.
 *
 * No interrupts are used: completions are found by polling the phase tag
 * of the completion queue entry in guest memory (Base 2.0, 4.6).
 *
 * Run: QTEST_QEMU_BINARY=build-femu/qemu-system-x86_64 \
 *      build-femu/tests/qtest/femu-test --tap -k   (tests/qtest/femu.t)
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci.h"
#include "block/nvme.h"

#define FEMU_VID 0x1d1d
#define FEMU_DID 0x1f1f
#define PAGE 4096
#define QDEPTH 32          /* entries of every queue this driver makes */
#define IOQ 1              /* the I/O queue pair the health check uses */
#define TIMEOUT_US (10 * 1000 * 1000)
#define DB(qid, cq) (0x1000 + (2 * (qid) + (cq)) * 4)
#define STATUS(s) ((s) & 0x7ff) /* SCT + SC, without More/DNR */

typedef struct Queue {
    uint64_t sq, cq;       /* guest addresses */
    uint16_t tail, head;
    uint16_t sqsize, cqsize;   /* entries (0 = QDEPTH) */
    uint8_t phase;
    bool live;
} Queue;

typedef struct Ctrl {
    QOSState *qs;
    QTestState *qts;
    QPCIDevice *dev;
    QPCIBar bar;
    uint64_t bar_size;
    Queue q[4];
    uint16_t cid;
    uint64_t buf;          /* 64 KiB data buffer */
    uint64_t ns_blocks;
} Ctrl;

static const char *extra_args = "";

static uint32_t rd32(Ctrl *c, uint64_t off)
{
    return qpci_io_readl(c->dev, c->bar, off);
}

static void wr32(Ctrl *c, uint64_t off, uint32_t v)
{
    qpci_io_writel(c->dev, c->bar, off, v);
}

static void wr64(Ctrl *c, uint64_t off, uint64_t v)
{
    qpci_io_writel(c->dev, c->bar, off, (uint32_t)v);
    qpci_io_writel(c->dev, c->bar, off + 4, (uint32_t)(v >> 32));
}

static bool wait_csts(Ctrl *c, uint32_t mask, uint32_t want)
{
    for (int i = 0; i < TIMEOUT_US / 1000; i++) {
        if ((rd32(c, NVME_REG_CSTS) & mask) == want) {
            return true;
        }
        g_usleep(1000);
    }
    return false;
}

static void find_dev(QPCIDevice *dev, int devfn, void *data)
{
    *(QPCIDevice **)data = dev;
}

/* Disable, program the admin queue, enable (Base 2.0, 3.5.1). */
static void ctrl_enable(Ctrl *c)
{
    Queue *a = &c->q[0];

    wr32(c, NVME_REG_CC, 0);
    g_assert(wait_csts(c, 1, 0));
    memset(c->q, 0, sizeof(c->q));
    a->sq = guest_alloc(&c->qs->alloc, PAGE);
    a->cq = guest_alloc(&c->qs->alloc, PAGE);
    qtest_memset(c->qts, a->cq, 0, PAGE);
    a->phase = 1;
    a->live = true;
    wr32(c, NVME_REG_AQA, (QDEPTH - 1) << 16 | (QDEPTH - 1));
    wr64(c, NVME_REG_ASQ, a->sq);
    wr64(c, NVME_REG_ACQ, a->cq);
    /* IOSQES 6 (64 B), IOCQES 4 (16 B), MPS 0 (4 KiB), NVM command set */
    wr32(c, NVME_REG_CC, 1 | 6 << 16 | 4 << 20);
    g_assert(wait_csts(c, 1, 1));
}

static void submit(Ctrl *c, int qid, NvmeCmd *cmd)
{
    Queue *q = &c->q[qid];

    cmd->cid = cpu_to_le16(++c->cid);
    qtest_memwrite(c->qts, q->sq + q->tail * sizeof(*cmd), cmd, sizeof(*cmd));
    q->tail = (q->tail + 1) % (q->sqsize ? q->sqsize : QDEPTH);
    wr32(c, DB(qid, 0), q->tail);
}

/* Next completion on qid; false on timeout. */
static bool reap(Ctrl *c, int qid, NvmeCqe *cqe, int timeout_us)
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
            wr32(c, DB(qid, 1), q->head);
            return true;
        }
        g_usleep(200);
    }
    return false;
}

/* Submit and wait: returns SCT/SC of the completion. */
static uint16_t run(Ctrl *c, int qid, NvmeCmd *cmd, uint32_t *dw0)
{
    NvmeCqe cqe;

    submit(c, qid, cmd);
    g_assert(reap(c, qid, &cqe, TIMEOUT_US));
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, c->cid);
    if (dw0) {
        *dw0 = le32_to_cpu(cqe.result);
    }
    return STATUS(le16_to_cpu(cqe.status) >> 1);
}

static NvmeCmd mk(uint8_t opc, uint32_t nsid, uint64_t prp1, uint64_t prp2)
{
    NvmeCmd cmd = { .opcode = opc, .nsid = cpu_to_le32(nsid) };

    cmd.dptr.prp1 = cpu_to_le64(prp1);
    cmd.dptr.prp2 = cpu_to_le64(prp2);
    return cmd;
}

static uint16_t identify(Ctrl *c, uint8_t cns, uint32_t nsid, uint64_t prp1)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_IDENTIFY, nsid, prp1, 0);

    cmd.cdw10 = cpu_to_le32(cns);
    return run(c, 0, &cmd, NULL);
}

static uint16_t create_cq(Ctrl *c, uint16_t qid, uint16_t qsize, uint16_t flags,
                          uint16_t iv, uint64_t addr)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_CREATE_CQ, 0, addr, 0);

    cmd.cdw10 = cpu_to_le32((uint32_t)(qsize - 1) << 16 | qid);
    cmd.cdw11 = cpu_to_le32((uint32_t)iv << 16 | flags);
    return run(c, 0, &cmd, NULL);
}

static uint16_t create_sq(Ctrl *c, uint16_t qid, uint16_t qsize, uint16_t cqid,
                          uint64_t addr)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_CREATE_SQ, 0, addr, 0);

    cmd.cdw10 = cpu_to_le32((uint32_t)(qsize - 1) << 16 | qid);
    cmd.cdw11 = cpu_to_le32((uint32_t)cqid << 16 | 1 /* PC */);
    return run(c, 0, &cmd, NULL);
}

static uint16_t delete_q(Ctrl *c, uint8_t opc, uint16_t qid)
{
    NvmeCmd cmd = mk(opc, 0, 0, 0);

    cmd.cdw10 = cpu_to_le32(qid);
    return run(c, 0, &cmd, NULL);
}

/* I/O queue pair qid with QDEPTH entries, polled (IEN = 0). */
static void setup_io(Ctrl *c, int qid)
{
    Queue *q = &c->q[qid];

    memset(q, 0, sizeof(*q));
    q->sq = guest_alloc(&c->qs->alloc, PAGE);
    q->cq = guest_alloc(&c->qs->alloc, PAGE);
    qtest_memset(c->qts, q->cq, 0, PAGE);
    q->phase = 1;
    g_assert_cmphex(create_cq(c, qid, QDEPTH, 1, 0, q->cq), ==, NVME_SUCCESS);
    g_assert_cmphex(create_sq(c, qid, QDEPTH, qid, q->sq), ==, NVME_SUCCESS);
    q->live = true;
}

static uint16_t rw(Ctrl *c, uint8_t opc, uint64_t slba, uint16_t nlb,
                   uint64_t prp1, uint64_t prp2)
{
    NvmeCmd cmd = mk(opc, 1, prp1, prp2);

    cmd.cdw10 = cpu_to_le32((uint32_t)slba);
    cmd.cdw11 = cpu_to_le32((uint32_t)(slba >> 32));
    cmd.cdw12 = cpu_to_le32(nlb - 1);
    return run(c, IOQ, &cmd, NULL);
}

static Ctrl *ctrl_start(const char *devopts)
{
    Ctrl *c = g_new0(Ctrl, 1);
    uint8_t id[PAGE];
    NvmeIdNs *ns = (NvmeIdNs *)id;

    c->qs = qtest_pc_boot("-display none %s -device femu,addr=04.0,"
                          "queues=2%s%s", extra_args, *devopts ? "," : "",
                          devopts);
    c->qts = c->qs->qts;
    qpci_device_foreach(c->qs->pcibus, FEMU_VID, FEMU_DID, find_dev, &c->dev);
    g_assert(c->dev);
    qpci_device_enable(c->dev);
    c->bar = qpci_iomap(c->dev, 0, &c->bar_size);
    ctrl_enable(c);
    c->buf = guest_alloc(&c->qs->alloc, 16 * PAGE);
    g_assert_cmphex(identify(c, NVME_ID_CNS_NS, 1, c->buf), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(id));
    c->ns_blocks = le64_to_cpu(ns->nsze);
    g_assert_cmpuint(c->ns_blocks, >, 1024);
    setup_io(c, IOQ);
    return c;
}

/* The device still works: Identify Controller + write/read/compare. */
static void health(Ctrl *c)
{
    uint8_t out[2 * PAGE], in[2 * PAGE], id[PAGE];
    uint64_t lba = g_test_rand_int_range(0, 512) * 8;

    g_assert_cmphex(identify(c, NVME_ID_CNS_CTRL, 0, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(id));
    g_assert(memmem(id, sizeof(id), "FEMU", 4));
    if (!c->q[IOQ].live) {
        setup_io(c, IOQ);
    }
    for (size_t i = 0; i < sizeof(out); i++) {
        out[i] = (uint8_t)(i * 7 + lba + c->cid);
    }
    qtest_memwrite(c->qts, c->buf, out, sizeof(out));
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, lba, 16, c->buf, c->buf + PAGE), ==,
                    NVME_SUCCESS);
    qtest_memset(c->qts, c->buf, 0, sizeof(in));
    g_assert_cmphex(rw(c, NVME_CMD_READ, lba, 16, c->buf, c->buf + PAGE), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, in, sizeof(in));
    g_assert(memcmp(in, out, sizeof(in)) == 0);
}

static void ctrl_stop(Ctrl *c)
{
    health(c);
    g_free(c->dev);
    qtest_pc_shutdown(c->qs);
    g_free(c);
}

/* ---- cases ------------------------------------------------------------ */

/* Every opcode the controller does not implement: Invalid Command Opcode
 * (Base 2.0, 5 and 7: "Everything else: Invalid Opcode status"). */
static void test_bad_opcodes(void)
{
    static const uint8_t admin_ok[] = {
        0x00, 0x01, 0x02, 0x04, 0x05, 0x06, 0x08, 0x09, 0x0a, 0x0c,
        0x19, 0x1a, 0x7c, 0xef,     /* 19h/1Ah: directives (engineer P) */
    };
    static const uint8_t io_ok[] = { 0x00, 0x01, 0x02, 0x08, 0x09, 0x12, 0x1d };
    Ctrl *c = ctrl_start("");

    for (int opc = 0; opc < 256; opc++) {
        NvmeCmd cmd = mk(opc, 0, c->buf, 0);
        if (memchr(admin_ok, opc, sizeof(admin_ok))) {
            continue;
        }
        g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_INVALID_OPCODE);
    }
    for (int opc = 0; opc < 256; opc++) {
        NvmeCmd cmd = mk(opc, 1, c->buf, 0);
        if (memchr(io_ok, opc, sizeof(io_ok))) {
            continue;
        }
        g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_OPCODE);
    }
    ctrl_stop(c);
}

/* Bad fields of implemented commands. */
static void test_bad_fields(void)
{
    Ctrl *c = ctrl_start("");
    NvmeCmd cmd;
    uint32_t dw0;

    /* Identify: unknown CNS; namespace 0 / 2 / broadcast for CNS 0 */
    g_assert_cmphex(identify(c, 0xfe, 0, c->buf), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(identify(c, NVME_ID_CNS_NS, 0, c->buf), ==,
                    NVME_INVALID_NSID);
    g_assert_cmphex(identify(c, NVME_ID_CNS_NS, 0x12345, c->buf), ==,
                    NVME_INVALID_NSID);
    /* Get/Set Features: unknown feature id; Number of Queues 0xffff+1 */
    cmd = mk(NVME_ADM_CMD_GET_FEATURES, 0, c->buf, 0);
    cmd.cdw10 = cpu_to_le32(0x7e);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_INVALID_FIELD);
    cmd = mk(NVME_ADM_CMD_SET_FEATURES, 0, c->buf, 0);
    cmd.cdw10 = cpu_to_le32(NVME_NUMBER_OF_QUEUES);
    cmd.cdw11 = cpu_to_le32(0xffffffff);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_INVALID_FIELD);
    /* Abort of a command that does not exist: success, "not aborted" */
    cmd = mk(NVME_ADM_CMD_ABORT, 0, 0, 0);
    cmd.cdw10 = cpu_to_le32(0xbeef << 16 | 7);
    g_assert_cmphex(run(c, 0, &cmd, &dw0), ==, NVME_SUCCESS);
    g_assert_cmpuint(dw0 & 1, ==, 1);
    /* vendor 0xEF: unknown code */
    cmd = mk(0xef, 0, 0, 0);
    cmd.cdw10 = cpu_to_le32(99);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_INVALID_FIELD);
    /* I/O: wrong namespace, LBA out of range, over MDTS (2^7 pages) */
    cmd = mk(NVME_CMD_READ, 2, c->buf, 0);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_NSID);
    g_assert_cmphex(rw(c, NVME_CMD_READ, c->ns_blocks, 1, c->buf, 0), ==,
                    NVME_LBA_RANGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, c->ns_blocks - 1, 2, c->buf, 0), ==,
                    NVME_LBA_RANGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, UINT64_MAX - 1, 4, c->buf, 0), ==,
                    NVME_LBA_RANGE);
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 0xffff, c->buf, 0), ==,
                    NVME_INVALID_FIELD);
    cmd = mk(NVME_CMD_WRITE_ZEROES, 1, 0, 0);
    cmd.cdw10 = cpu_to_le32((uint32_t)c->ns_blocks);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_LBA_RANGE);
    ctrl_stop(c);
}

/* PRP errors (Base 2.0, 4.1.1): outside guest RAM -> Data Transfer Error;
 * a PRP entry not dword aligned, or a non-first entry with an offset ->
 * PRP Offset Invalid; a list that runs off RAM -> Data Transfer Error. */
static void test_prp(void)
{
    Ctrl *c = ctrl_start("");
    uint64_t list = guest_alloc(&c->qs->alloc, PAGE);
    uint64_t far = 0xfff0000000ull;     /* no RAM there */
    uint64_t e[4];

    g_assert_cmphex(identify(c, NVME_ID_CNS_CTRL, 0, far), ==,
                    NVME_DATA_TRAS_ERROR);
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 8, far, 0), ==,
                    NVME_DATA_TRAS_ERROR);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 0, 8, far, 0), ==,
                    NVME_DATA_TRAS_ERROR);
    /* PRP1 not dword aligned */
    g_assert_cmphex(identify(c, NVME_ID_CNS_CTRL, 0, c->buf + 1), ==,
                    NVME_INVALID_PRP_OFFSET);
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 8, c->buf + 2, 0), ==,
                    NVME_INVALID_PRP_OFFSET);
    /* two pages: PRP2 is the second page and must have no offset */
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 16, c->buf, c->buf + PAGE + 8),
                    ==, NVME_INVALID_PRP_OFFSET);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 0, 16, c->buf, far), ==,
                    NVME_DATA_TRAS_ERROR);
    /* three pages: PRP2 is a list; entries outside RAM or misaligned */
    e[0] = cpu_to_le64(c->buf + PAGE);
    e[1] = cpu_to_le64(far);
    qtest_memwrite(c->qts, list, e, 2 * sizeof(e[0]));
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 24, c->buf, list), ==,
                    NVME_DATA_TRAS_ERROR);
    e[1] = cpu_to_le64(c->buf + 2 * PAGE + 0x10);
    qtest_memwrite(c->qts, list, e, 2 * sizeof(e[0]));
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 0, 24, c->buf, list), ==,
                    NVME_INVALID_PRP_OFFSET);
    /* the list itself outside RAM, or not qword aligned */
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 24, c->buf, far), ==,
                    NVME_DATA_TRAS_ERROR);
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 24, c->buf, list + 3), ==,
                    NVME_INVALID_PRP_OFFSET);
    /* a list that points at itself (a loop) just reads the list page as
     * data: no hang, and the data is whatever that page holds */
    e[0] = cpu_to_le64(list);
    e[1] = cpu_to_le64(list);
    qtest_memwrite(c->qts, list, e, 2 * sizeof(e[0]));
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 24, c->buf, list), ==,
                    NVME_SUCCESS);
    /* a list starting at the end of a page: the entries continue on a
     * page that is not RAM (list too short) */
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 24, c->buf, far - 8), ==,
                    NVME_DATA_TRAS_ERROR);
    /* SGL data pointer (PSDT 01b) on a controller without SGL support */
    {
        NvmeCmd cmd = mk(NVME_CMD_READ, 1, c->buf, 0);
        cmd.flags = 1 << 6;
        g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_FIELD);
        cmd = mk(NVME_ADM_CMD_IDENTIFY, 0, c->buf, 0);
        cmd.flags = 2 << 6;
        cmd.cdw10 = cpu_to_le32(NVME_ID_CNS_CTRL);
        g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_INVALID_FIELD);
    }
    ctrl_stop(c);
}

/* Create/Delete I/O queues with bad parameters (Base 2.0, 5.4, 5.5,
 * 5.6, 5.7). queues=2 -> valid I/O queue ids 1..2. */
static void test_queues(void)
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
static void test_doorbells(void)
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
 * (engineer P) Each kind of invalid doorbell write is reported by its own
 * Error asynchronous event (Base 2.0, 5.2, "Asynchronous Event
 * Information - Error Status"): 00h Write to Invalid Doorbell Register
 * for a queue that was never created or is beyond the queues offered,
 * 01h Invalid Doorbell Write Value for a tail/head beyond the queue
 * size.  The AER is outstanding when the write comes; reading the error
 * log (RAE = 0) unmasks the next error event.
 */
static uint16_t get_log(Ctrl *c, uint8_t lid, uint32_t numd, uint64_t off,
                        uint64_t prp1, uint64_t prp2);

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

static void test_doorbell_events(void)
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

/* Disable/enable and reset while I/O is in flight (Base 2.0, 3.7). */
static void test_reset_during_io(void)
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
static void test_dbbuf(void)
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

/* Get Log Page (Base 2.0, 5.16): offset past the log -> Invalid Field,
 * unknown log -> Invalid Log Page, huge lengths -> capped or refused,
 * never a transfer past the buffer the host described. */
static uint16_t get_log(Ctrl *c, uint8_t lid, uint32_t numd, uint64_t off,
                        uint64_t prp1, uint64_t prp2)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_GET_LOG_PAGE, 0xffffffff, prp1, prp2);

    cmd.cdw10 = cpu_to_le32((numd & 0xffff) << 16 | lid);
    cmd.cdw11 = cpu_to_le32(numd >> 16);
    cmd.cdw12 = cpu_to_le32((uint32_t)off);
    cmd.cdw13 = cpu_to_le32((uint32_t)(off >> 32));
    return run(c, 0, &cmd, NULL);
}

static void test_get_log(void)
{
    Ctrl *c = ctrl_start("");
    uint64_t guard = c->buf + 2 * PAGE;
    uint8_t g[PAGE], z[PAGE];
    uint16_t st;

    memset(z, 0xa5, sizeof(z));
    qtest_memwrite(c->qts, guard, z, sizeof(z));
    g_assert_cmphex(get_log(c, NVME_LOG_SMART_INFO, 127, 0, c->buf, 0), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(get_log(c, 0xc0, 127, 0, c->buf, 0), ==, NVME_SUCCESS);
    g_assert_cmphex(get_log(c, 0xc0, 0, 508, c->buf, 0), ==, NVME_SUCCESS);
    g_assert_cmphex(get_log(c, 0xc0, 0, 4096, c->buf, 0), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(get_log(c, 0xc0, 0, UINT64_MAX - 3, c->buf, 0), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(get_log(c, NVME_LOG_SMART_INFO, 0, 1ull << 40, c->buf, 0),
                    ==, NVME_INVALID_FIELD);
    g_assert_cmphex(get_log(c, 0xc0, 0, 2, c->buf, 0), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(get_log(c, 0x7f, 127, 0, c->buf, 0), ==,
                    NVME_INVALID_LOG_ID);
    /* 16 GiB asked into one page + PRP2 = the guard page's neighbour: the
     * controller refuses (over MDTS) or caps at the log size; it must
     * never write past the log size */
    st = get_log(c, 0xc0, UINT32_MAX, 0, c->buf, c->buf + PAGE);
    g_assert(st == NVME_INVALID_FIELD || st == NVME_SUCCESS);
    st = get_log(c, NVME_LOG_ERROR_INFO, UINT32_MAX, 0, c->buf,
                 c->buf + PAGE);
    g_assert(st == NVME_INVALID_FIELD || st == NVME_SUCCESS);
    qtest_memread(c->qts, guard, g, sizeof(g));
    g_assert(memcmp(g, z, sizeof(g)) == 0);
    ctrl_stop(c);
}

/* Dataset Management (NVM Command Set 2.0, 3.2.1): 256 ranges is the
 * maximum (NR 0's based); a range past the namespace -> LBA Out of
 * Range, and nothing is deallocated then. */
static void test_dsm(void)
{
    Ctrl *c = ctrl_start("");
    NvmeDsmRange r[256];
    NvmeCmd cmd;

    for (int i = 0; i < 256; i++) {
        r[i].cattr = 0;
        r[i].nlb = cpu_to_le32(8);
        r[i].slba = cpu_to_le64((uint64_t)i * 64);
    }
    qtest_memwrite(c->qts, c->buf, r, sizeof(r));
    cmd = mk(NVME_CMD_DSM, 1, c->buf, 0);
    cmd.cdw10 = cpu_to_le32(255);
    cmd.cdw11 = cpu_to_le32(NVME_DSMGMT_AD);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    r[200].slba = cpu_to_le64(c->ns_blocks - 4);
    qtest_memwrite(c->qts, c->buf, r, sizeof(r));
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_LBA_RANGE);
    r[200].slba = cpu_to_le64(UINT64_MAX - 2);
    qtest_memwrite(c->qts, c->buf, r, sizeof(r));
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_LBA_RANGE);
    /* the range list itself outside RAM */
    cmd.dptr.prp1 = cpu_to_le64(0xfff0000000ull);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_DATA_TRAS_ERROR);
    ctrl_stop(c);
}

/* FDP (Base 2.0 / TP4146): I/O Management Receive/Send with bad
 * operations and placement ids. */
static void test_fdp(void)
{
    Ctrl *c = ctrl_start("nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25,"
                         "subsys=fdp0");
    NvmeCmd cmd;
    uint16_t pids[2];

    /* Receive: MO 1 = RUH status is the only one */
    cmd = mk(NVME_CMD_IO_MGMT_RECV, 1, c->buf, 0);
    cmd.cdw10 = cpu_to_le32(0x7f);
    cmd.cdw11 = cpu_to_le32(PAGE / 4 - 1);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_FIELD);
    cmd.cdw10 = cpu_to_le32(1);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    /* a huge NUMD into one page: refused or capped, never past the data */
    cmd.cdw11 = cpu_to_le32(UINT32_MAX);
    {
        uint16_t st = run(c, IOQ, &cmd, NULL);
        g_assert(st == NVME_SUCCESS || st == NVME_INVALID_FIELD);
    }
    /* Send: unknown MO; RUH update with an id past the handles */
    cmd = mk(NVME_CMD_IO_MGMT_SEND, 1, c->buf, 0);
    cmd.cdw10 = cpu_to_le32(0x55);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_FIELD);
    pids[0] = cpu_to_le16(1);
    pids[1] = cpu_to_le16(999);
    qtest_memwrite(c->qts, c->buf, pids, sizeof(pids));
    cmd.cdw10 = cpu_to_le32(1 << 16 | 1 /* MOS: 2 ids, MO 1: RUH update */);
    /* TP4146: Invalid Placement Handle List */
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_PHID_LIST);
    pids[1] = cpu_to_le16(3);
    qtest_memwrite(c->qts, c->buf, pids, sizeof(pids));
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    /* 65536 ids asked for from a page outside RAM */
    cmd.cdw10 = cpu_to_le32(0xffffu << 16 | 1);
    cmd.dptr.prp1 = cpu_to_le64(0xfff0000000ull);
    {
        uint16_t st = run(c, IOQ, &cmd, NULL);
        g_assert(st == NVME_INVALID_FIELD || st == NVME_DATA_TRAS_ERROR);
    }
    /* writes with a placement id the namespace does not have: accepted
     * (handle 0 + an event), with a bad directive type: Invalid Field */
    cmd = mk(NVME_CMD_WRITE, 1, c->buf, 0);
    cmd.cdw12 = cpu_to_le32(7 | 2 << 20);
    cmd.cdw13 = cpu_to_le32(0xfff0u << 16);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    cmd.cdw12 = cpu_to_le32(7 | 0xf << 20);
    cmd.cdw13 = 0;
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_FIELD);
    /* FDP log pages with an endurance group that does not exist */
    {
        NvmeCmd lcmd = mk(NVME_ADM_CMD_GET_LOG_PAGE, 0xffffffff, c->buf, 0);
        lcmd.cdw10 = cpu_to_le32(127 << 16 | 0x20);
        lcmd.cdw11 = cpu_to_le32(0x7 << 16);
        g_assert_cmphex(run(c, 0, &lcmd, NULL), ==, NVME_INVALID_FIELD);
    }
    ctrl_stop(c);
}



/* A host that does not consume completions: the controller must stop
 * posting when the CQ is full (Base 2.0, 4.1.1: full = head one past
 * tail), overwrite nothing, and go on once the head doorbell moves. */
static void test_cq_full(void)
{
    Ctrl *c = ctrl_start("");
    Queue *q = &c->q[2];
    NvmeCqe cqe[4];
    int posted = 0, done = 0;
    uint16_t first;

    memset(q, 0, sizeof(*q));
    q->sq = guest_alloc(&c->qs->alloc, PAGE);
    q->cq = guest_alloc(&c->qs->alloc, PAGE);
    q->sqsize = QDEPTH;
    q->cqsize = 4;
    q->phase = 1;
    qtest_memset(c->qts, q->cq, 0, PAGE);
    g_assert_cmphex(create_cq(c, 2, 4, 1, 0, q->cq), ==, NVME_SUCCESS);
    g_assert_cmphex(create_sq(c, 2, QDEPTH, 2, q->sq), ==, NVME_SUCCESS);
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
    for (int i = 0; i < 20; i++) {
        NvmeCqe e;
        g_assert(reap(c, 2, &e, TIMEOUT_US));
        g_assert_cmpuint(le16_to_cpu(e.cid), ==, (uint16_t)(first + i));
        g_assert_cmphex(STATUS(le16_to_cpu(e.status) >> 1), ==,
                        NVME_SUCCESS);
        done++;
    }
    g_assert_cmpint(done, ==, 20);
    ctrl_stop(c);
}

/*
 * Random commands (a fuzzer over this driver): random opcodes and fields
 * on the admin and I/O queues, with data pointers that are data pages,
 * misaligned, outside RAM, or a PRP list whose entries are data pages or
 * outside RAM -- never the driver's own queues, so a hang can only be the
 * controller's.  Every command must complete (any status); then the
 * health check.  FEMU_QTEST_RANDOM_CMDS sets the count (default 3000),
 * the seed is g_test's (--seed / printed at the start).
 */
static void test_random_commands(void)
{
    /* admin opcodes that would reconfigure the queues this driver polls
     * (create/delete queue, doorbell buffer) or wait for an event (AER)
     * are left to the groups above */
    static const uint8_t admin_skip[] = { 0x00, 0x01, 0x04, 0x05, 0x0c, 0x7c };
    /* a small device, so that random writes reach GC within the run */
    Ctrl *c = ctrl_start("pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0,nchs=2,"
                         "luns_per_ch=2,blks_per_pl=32,pgs_per_blk=16,"
                         "op_pcent=50,subsys=fdp0");
    static const uint8_t io_ops[] = {
        NVME_CMD_READ, NVME_CMD_WRITE, NVME_CMD_WRITE, NVME_CMD_WRITE,
        NVME_CMD_WRITE_ZEROES, NVME_CMD_DSM, NVME_CMD_FLUSH,
        NVME_CMD_IO_MGMT_RECV, NVME_CMD_IO_MGMT_SEND,
    };
    bool wellformed;
    const char *env = getenv("FEMU_QTEST_RANDOM_CMDS");
    int n = env ? atoi(env) : 3000;
    uint64_t list = guest_alloc(&c->qs->alloc, PAGE);
    uint64_t far = 0xfff0000000ull;
    uint64_t ents[PAGE / 8];
    int errors = 0;

    (void)wellformed;
    for (int i = 0; i < PAGE / 8; i++) {
        ents[i] = cpu_to_le64(g_test_rand_bit() ? c->buf + (i % 16) * PAGE
                                                : far + i * PAGE);
    }
    qtest_memwrite(c->qts, list, ents, sizeof(ents));
    for (int i = 0; i < n; i++) {
        bool admin = g_test_rand_int_range(0, 4) == 0;
        uint8_t opc;
        NvmeCmd cmd;
        NvmeCqe cqe;
        uint64_t p[4] = {
            c->buf + g_test_rand_int_range(0, 16) * PAGE,
            c->buf + g_test_rand_int_range(0, 16) * PAGE +
                g_test_rand_int_range(0, PAGE),
            far + g_test_rand_int_range(0, 1 << 20) * 4,
            list + g_test_rand_int_range(0, 8) * 8,
        };

        do {
            opc = admin ? (g_test_rand_bit() ? g_test_rand_int_range(0, 16)
                                             : g_test_rand_int_range(0, 256))
                        : (g_test_rand_bit() ? g_test_rand_int_range(0, 0x20)
                                             : g_test_rand_int_range(0, 256));
        } while (admin && memchr(admin_skip, opc, sizeof(admin_skip)));
        cmd = mk(opc, g_test_rand_int_range(0, 8) ? 1 : g_test_rand_int(),
                 p[g_test_rand_int_range(0, 3)], p[g_test_rand_int_range(0, 4)]);
        cmd.flags = g_test_rand_int_range(0, 8) ? 0 : g_test_rand_int();
        cmd.cdw10 = cpu_to_le32(g_test_rand_bit() ? g_test_rand_int()
                                : g_test_rand_int_range(0, 64));
        cmd.cdw11 = cpu_to_le32(g_test_rand_bit() ? g_test_rand_int() : 0);
        cmd.cdw12 = cpu_to_le32(g_test_rand_bit() ? g_test_rand_int()
                                : g_test_rand_int_range(0, 64));
        cmd.cdw13 = cpu_to_le32(g_test_rand_bit() ? g_test_rand_int() : 0);
        cmd.cdw14 = cpu_to_le32(g_test_rand_int());
        cmd.cdw15 = cpu_to_le32(g_test_rand_int());
        /* half of the I/O commands are well formed apart from a random
         * placement directive, so the FTL paths (GC included) run too */
        wellformed = !admin && g_test_rand_bit();
        if (wellformed) {
            uint64_t slba = g_test_rand_int_range(0, c->ns_blocks - 64);
            cmd.opcode = io_ops[g_test_rand_int_range(0, sizeof(io_ops))];
            cmd.nsid = cpu_to_le32(1);
            cmd.flags = 0;
            cmd.dptr.prp1 = cpu_to_le64(c->buf);
            cmd.dptr.prp2 = cpu_to_le64(list);
            cmd.cdw10 = cpu_to_le32(cmd.opcode == NVME_CMD_DSM ?
                                    g_test_rand_int_range(0, 4) : slba);
            cmd.cdw11 = cpu_to_le32(cmd.opcode == NVME_CMD_DSM ?
                                    NVME_DSMGMT_AD : 0);
            cmd.cdw12 = cpu_to_le32(g_test_rand_int_range(0, 64) |
                                    (g_test_rand_bit() ? 2u << 20 : 0));
            cmd.cdw13 = cpu_to_le32(g_test_rand_int_range(0, 6) << 16);
        }
        submit(c, admin ? 0 : IOQ, &cmd);
        if (!reap(c, admin ? 0 : IOQ, &cqe, TIMEOUT_US)) {
            g_test_message("command %d (%s opcode 0x%02x cdw10 0x%08x) got "
                           "no completion", i, admin ? "admin" : "I/O", opc,
                           le32_to_cpu(cmd.cdw10));
            g_assert_not_reached();
        }
        g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, c->cid);
        errors += STATUS(le16_to_cpu(cqe.status) >> 1) != 0;
        g_assert_cmpuint(rd32(c, NVME_REG_CSTS) & 2, ==, 0);
    }
    {
        uint64_t ctr[4];
        g_assert_cmphex(get_log(c, 0xc0, 7, 0, c->buf, 0), ==, NVME_SUCCESS);
        qtest_memread(c->qts, c->buf, ctr, sizeof(ctr));
        g_test_message("%d random commands, %d with an error status; C0h: "
                       "host pages %" PRIu64 ", GC moved %" PRIu64, n, errors,
                       le64_to_cpu(ctr[1]), le64_to_cpu(ctr[2]));
    }
    ctrl_stop(c);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    extra_args = "-device femu-subsys,id=fdp0,fdp=on,fdp.nruh=4";
    qtest_add_func("/femu/opcodes", test_bad_opcodes);
    qtest_add_func("/femu/fields", test_bad_fields);
    qtest_add_func("/femu/prp-sgl", test_prp);
    qtest_add_func("/femu/queues", test_queues);
    qtest_add_func("/femu/doorbells", test_doorbells);
    qtest_add_func("/femu/doorbells/events", test_doorbell_events);
    qtest_add_func("/femu/reset-during-io", test_reset_during_io);
    qtest_add_func("/femu/dbbuf", test_dbbuf);
    qtest_add_func("/femu/get-log-page", test_get_log);
    qtest_add_func("/femu/dsm", test_dsm);
    qtest_add_func("/femu/fdp", test_fdp);
    qtest_add_func("/femu/cq-full", test_cq_full);
    qtest_add_func("/femu/random-commands", test_random_commands);
    return g_test_run();
}
