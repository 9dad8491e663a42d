/*
 * femu-test cases: admin and I/O commands -- opcodes, command fields,
 * PRP/SGL data pointers, Get Log Page, Get/Set Features, Dataset
 * Management, state files.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu-host.h"
#include "qobject/qdict.h"

/* Every opcode the controller does not implement: Invalid Command Opcode
 * (Base 2.0, 5 and 7: "Everything else: Invalid Opcode status"). */
void test_bad_opcodes(void)
{
    static const uint8_t admin_ok[] = {
        0x00, 0x01, 0x02, 0x04, 0x05, 0x06, 0x08, 0x09, 0x0a, 0x0c,
        /* 19h/1Ah: Directive Send/Receive, 7Ch: Doorbell Buffer Config,
         * EFh: the vendor's run-time controls */
        0x19, 0x1a, 0x7c, 0xef,
        /* 80h: Format NVM */
        0x80,
    };
    static const uint8_t io_ok[] = { 0x00, 0x01, 0x02, 0x04, 0x05, 0x08, 0x09,
                                     0x0c, 0x12, 0x19, 0x1d };
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
void test_bad_fields(void)
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
    cmd = mk(FEMU_ADM_CMD_CONTROL, 0, 0, 0);
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
void test_prp(void)
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
    /* a list that starts in the last dword of its page holds no whole
     * entry (regression: the device read past its entry array, found by
     * random-chaos under UBSan, seed 2973283625).  A good 3-page read
     * first, so that stale entries would make the bad one "work". */
    e[0] = cpu_to_le64(c->buf + PAGE);
    e[1] = cpu_to_le64(c->buf + 2 * PAGE);
    qtest_memwrite(c->qts, list, e, 2 * sizeof(e[0]));
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 24, c->buf, list), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 24, c->buf, list + PAGE - 4),
                    ==, NVME_INVALID_PRP_OFFSET);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 0, 24, c->buf, list + PAGE - 4),
                    ==, NVME_INVALID_PRP_OFFSET);
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
    /* an SGL (PSDT 10b) on an admin command: PRPs only over PCIe (the
     * SGLs of I/O commands: femu-sgl.c) */
    {
        NvmeCmd cmd = mk(NVME_ADM_CMD_IDENTIFY, 0, c->buf, 0);
        cmd.flags = 2 << 6;
        cmd.cdw10 = cpu_to_le32(NVME_ID_CNS_CTRL);
        g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_INVALID_FIELD);
    }
    ctrl_stop(c);
}

/* Create/Delete I/O queues with bad parameters (Base 2.0, 5.4, 5.5,
 * 5.6, 5.7). queues=2 -> valid I/O queue ids 1..2. */

static bool all_zero(const uint8_t *p, size_t n)
{
    return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/* Get Features FID fid with select sel, data into c->buf. */
static uint16_t get_feat_buf(Ctrl *c, uint8_t fid, uint8_t sel, uint32_t *dw0)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_GET_FEATURES, 0, c->buf, 0);

    cmd.cdw10 = cpu_to_le32((uint32_t)sel << 8 | fid);
    return run(c, 0, &cmd, dw0);
}

static uint16_t set_feat_buf(Ctrl *c, uint8_t fid, bool save,
                             const void *data, size_t len)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_SET_FEATURES, 0, c->buf, 0);

    qtest_memset(c->qts, c->buf, 0, PAGE);
    qtest_memwrite(c->qts, c->buf, data, len);
    cmd.cdw10 = cpu_to_le32((save ? 1u << 31 : 0) | fid);
    return run(c, 0, &cmd, NULL);
}

/* The Timestamp data structure (Base 2.0, 5.27.1 "Timestamp"): bytes
 * 5:0 ms, byte 6 attributes (Synch bit 0, Timestamp Origin bits 3:1). */
static uint64_t get_ts(Ctrl *c, uint8_t sel, uint8_t *attr)
{
    uint8_t b[8];

    g_assert_cmphex(get_feat_buf(c, NVME_TIMESTAMP, sel, NULL), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, b, sizeof(b));
    g_assert_cmpuint(b[7], ==, 0);          /* reserved */
    *attr = b[6];
    return ldq_le_p(b) & ((1ULL << 48) - 1);
}

static void step_ms(Ctrl *c, int64_t ms)
{
    qtest_clock_step(c->qts, ms * 1000 * 1000);
}

/*
 * Timestamp (FID 0Eh) and Host Behavior Support (FID 16h) features, and
 * the Error Information log's Status Field.  QEMU's virtual clock only
 * moves when this test steps it (qtest), so timestamps are exact.
 */
void test_features(void)
{
    Ctrl *c = ctrl_start("uuid=01234567-89ab-4def-8123-456789abcdef");
    uint8_t id[PAGE], attr, hbs[512], got[512];
    uint8_t ts[8] = { 0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12, 0xff, 0xff };
    static const uint8_t descs[] = {
        1, 8, 0, 0, 0x1d, 0x1d, 0x1d, 0, 0, 0, 0, 0,               /* EUI64 */
        2, 16, 0, 0, 0x1d, 0x1d, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        3, 16, 0, 0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0x4d, 0xef,
        0x81, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,             /* UUID */
        4, 1, 0, 0, 0,                                              /* CSI */
    };
    uint64_t v0;
    uint32_t dw0;
    bool seen[2] = { false, false };

    /* ONCS bit 6: Timestamp supported (Identify Controller) */
    g_assert_cmphex(identify(c, NVME_ID_CNS_CTRL, 0, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(id));
    g_assert_cmphex(lduw_le_p(&((NvmeIdCtrl *)id)->oncs) & NVME_ONCS_TIMESTAMP,
                    ==, NVME_ONCS_TIMESTAMP);
    /* namespace descriptors: EUI64, NGUID, the uuid property, CSI NVM */
    g_assert_cmphex(identify(c, NVME_ID_CNS_NS_DESCR_LIST, 1, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(id));
    g_assert(memcmp(id, descs, sizeof(descs)) == 0);
    g_assert(all_zero(id + sizeof(descs), sizeof(id) - sizeof(descs)));

    /* never set: origin 000b, counting from the last reset (power-on) */
    v0 = get_ts(c, NVME_GETFEAT_SELECT_CURRENT, &attr);
    g_assert_cmphex(attr, ==, 0);
    step_ms(c, 1500);
    g_assert_cmpuint(get_ts(c, NVME_GETFEAT_SELECT_CURRENT, &attr), ==,
                     v0 + 1500);
    /* set: the value given (bytes 7:6 are the controller's), origin 001b */
    g_assert_cmphex(set_feat_buf(c, NVME_TIMESTAMP, false, ts, sizeof(ts)),
                    ==, NVME_SUCCESS);
    g_assert_cmphex(get_ts(c, NVME_GETFEAT_SELECT_CURRENT, &attr), ==,
                    0x123456789abcULL);
    g_assert_cmphex(attr, ==, 1 << 1);
    step_ms(c, 250);
    g_assert_cmphex(get_ts(c, NVME_GETFEAT_SELECT_CURRENT, &attr), ==,
                    0x123456789abcULL + 250);
    g_assert_cmphex(attr, ==, 1 << 1);
    /* a stopped VM stops the count (virtual clock): Synch = 1 after it,
     * until the timestamp is set again */
    qtest_qmp_assert_success(c->qts, "{'execute': 'stop'}");
    qtest_qmp_assert_success(c->qts, "{'execute': 'cont'}");
    g_assert_cmphex(get_ts(c, NVME_GETFEAT_SELECT_CURRENT, &attr), ==,
                    0x123456789abcULL + 250);
    g_assert_cmphex(attr, ==, 1 << 1 | 1);
    g_assert_cmphex(set_feat_buf(c, NVME_TIMESTAMP, false, ts, sizeof(ts)),
                    ==, NVME_SUCCESS);
    g_assert_cmphex(get_ts(c, NVME_GETFEAT_SELECT_CURRENT, &attr), ==,
                    0x123456789abcULL);
    g_assert_cmphex(attr, ==, 1 << 1);
    /* default: what a Controller Level Reset sets; not saveable */
    g_assert_cmpuint(get_ts(c, NVME_GETFEAT_SELECT_DEFAULT, &attr), ==, 0);
    g_assert_cmphex(attr, ==, 0);
    g_assert_cmphex(get_feat_buf(c, NVME_TIMESTAMP, NVME_GETFEAT_SELECT_CAP,
                                 &dw0), ==, NVME_SUCCESS);
    g_assert_cmphex(dw0, ==, NVME_FEAT_CAP_CHANGE);
    g_assert_cmphex(set_feat_buf(c, NVME_TIMESTAMP, true, ts, sizeof(ts)),
                    ==, NVME_FID_NOT_SAVEABLE);

    /* Host Behavior Support: zero; ACRE, ETDAS, LBAFEE, HDISNS kept */
    g_assert_cmphex(get_feat_buf(c, NVME_HOST_BEHAVIOR_SUPPORT, 0, NULL), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, got, sizeof(got));
    g_assert(all_zero(got, sizeof(got)));
    memset(hbs, 0, sizeof(hbs));
    hbs[0] = hbs[1] = hbs[2] = hbs[3] = 1;
    g_assert_cmphex(set_feat_buf(c, NVME_HOST_BEHAVIOR_SUPPORT, false, hbs,
                                 sizeof(hbs)), ==, NVME_SUCCESS);
    /* reserved bits and bytes, and CDFE (no Copy): Invalid Field, and
     * the value in force stays */
    for (int bad = 0; bad < 6; bad++) {
        static const struct { int off; uint8_t val; } b[] = {
            { 0, 3 }, { 1, 0x81 }, { 2, 2 }, { 3, 2 }, { 4, 4 }, { 511, 1 },
        };
        uint8_t h[512];

        memcpy(h, hbs, sizeof(h));
        h[b[bad].off] = b[bad].val;
        g_assert_cmphex(set_feat_buf(c, NVME_HOST_BEHAVIOR_SUPPORT, false, h,
                                     sizeof(h)), ==, NVME_INVALID_FIELD);
    }
    g_assert_cmphex(get_feat_buf(c, NVME_HOST_BEHAVIOR_SUPPORT, 0, NULL), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, got, sizeof(got));
    g_assert(memcmp(got, hbs, sizeof(got)) == 0);
    g_assert_cmphex(get_feat_buf(c, NVME_HOST_BEHAVIOR_SUPPORT,
                                 NVME_GETFEAT_SELECT_DEFAULT, NULL), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, got, sizeof(got));
    g_assert(all_zero(got, sizeof(got)));
    g_assert_cmphex(set_feat_buf(c, NVME_HOST_BEHAVIOR_SUPPORT, true, hbs,
                                 sizeof(hbs)), ==, NVME_FID_NOT_SAVEABLE);

    /* a Controller Level Reset: timestamp 0, origin 000b; HBS zero */
    ctrl_enable(c);
    g_assert_cmpuint(get_ts(c, NVME_GETFEAT_SELECT_CURRENT, &attr), ==, 0);
    g_assert_cmphex(attr, ==, 0);
    step_ms(c, 1000);
    g_assert_cmpuint(get_ts(c, NVME_GETFEAT_SELECT_CURRENT, &attr), ==,
                     1000);
    g_assert_cmphex(get_feat_buf(c, NVME_HOST_BEHAVIOR_SUPPORT, 0, NULL), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, got, sizeof(got));
    g_assert(all_zero(got, sizeof(got)));
    setup_io(c, IOQ);

    /*
     * Error Information log entry (Base 2.0, 5.16.1.2): SQID, CID, the
     * LBA, and the Status Field = the CQE's status, bit 0 its phase tag.
     * 40 errors on each queue (32 entries): both phase tags occur.
     */
    for (int i = 0; i < 40; i++) {
        int qid = i % 2 ? IOQ : 0;
        NvmeCmd cmd;
        NvmeCqe cqe;
        NvmeErrorLog e;
        uint64_t slba = c->ns_blocks + i;

        if (qid) {
            cmd = mk(NVME_CMD_READ, 1, c->buf, 0);
            cmd.cdw10 = cpu_to_le32((uint32_t)slba);
            cmd.cdw11 = cpu_to_le32((uint32_t)(slba >> 32));
        } else {
            cmd = mk(NVME_ADM_CMD_GET_FEATURES, 0, c->buf, 0);
            cmd.cdw10 = cpu_to_le32(0x7e);      /* no such feature */
        }
        submit(c, qid, &cmd);
        g_assert(reap(c, qid, &cqe, TIMEOUT_US));
        g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, c->cid);
        g_assert_cmphex(STATUS(le16_to_cpu(cqe.status) >> 1), ==,
                        qid ? NVME_LBA_RANGE : NVME_INVALID_FIELD);
        seen[le16_to_cpu(cqe.status) & 1] = true;
        g_assert_cmphex(get_log(c, NVME_LOG_ERROR_INFO, 15, 0, c->buf, 0),
                        ==, NVME_SUCCESS);
        qtest_memread(c->qts, c->buf, &e, sizeof(e));
        g_assert_cmphex(le16_to_cpu(e.status_field), ==,
                        le16_to_cpu(cqe.status));
        g_assert_cmpuint(le16_to_cpu(e.sqid), ==, qid);
        g_assert_cmpuint(le16_to_cpu(e.cid), ==, le16_to_cpu(cqe.cid));
        g_assert_cmpuint(le32_to_cpu(e.nsid), ==, qid ? 1 : 0);
        g_assert_cmpuint(le64_to_cpu(e.lba), ==, qid ? slba : 0);
        g_assert_cmphex(le16_to_cpu(e.param_error_location), ==, 0xffff);
    }
    g_assert(seen[0] && seen[1]);
    ctrl_stop(c);
}

void test_get_log(void)
{
    Ctrl *c = ctrl_start("");
    uint64_t guard = c->buf + 2 * PAGE;
    uint8_t g[PAGE], z[PAGE];
    uint16_t st;

    memset(z, 0xa5, sizeof(z));
    qtest_memwrite(c->qts, guard, z, sizeof(z));
    g_assert_cmphex(get_log(c, NVME_LOG_SMART_INFO, 127, 0, c->buf, 0), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(get_log(c, FEMU_LOG_FTL, 127, 0, c->buf, 0), ==, NVME_SUCCESS);
    g_assert_cmphex(get_log(c, FEMU_LOG_FTL, 0, 508, c->buf, 0), ==, NVME_SUCCESS);
    g_assert_cmphex(get_log(c, FEMU_LOG_FTL, 0, 4096, c->buf, 0), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(get_log(c, FEMU_LOG_FTL, 0, UINT64_MAX - 3, c->buf, 0), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(get_log(c, NVME_LOG_SMART_INFO, 0, 1ull << 40, c->buf, 0),
                    ==, NVME_INVALID_FIELD);
    g_assert_cmphex(get_log(c, FEMU_LOG_FTL, 0, 2, c->buf, 0), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(get_log(c, 0x7f, 127, 0, c->buf, 0), ==,
                    NVME_INVALID_LOG_ID);
    /* 16 GiB asked into one page + PRP2 = the guard page's neighbour: the
     * controller refuses (over MDTS) or caps at the log size; it must
     * never write past the log size */
    st = get_log(c, FEMU_LOG_FTL, UINT32_MAX, 0, c->buf, c->buf + PAGE);
    g_assert(st == NVME_INVALID_FIELD || st == NVME_SUCCESS);
    st = get_log(c, NVME_LOG_ERROR_INFO, UINT32_MAX, 0, c->buf,
                 c->buf + PAGE);
    g_assert(st == NVME_INVALID_FIELD || st == NVME_SUCCESS);
    qtest_memread(c->qts, guard, g, sizeof(g));
    g_assert(memcmp(g, z, sizeof(g)) == 0);
    ctrl_stop(c);
}

/* Identify Controller for the NVM command set (CNS 06h, CSI 0). */
static void id_ctrl_nvm(Ctrl *c, NvmeIdCtrlNvm *id)
{
    g_assert_cmphex(identify(c, NVME_ID_CNS_CS_CTRL, 0, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(*id));
}

/* A deallocating DSM of the ranges at guest address list. */
static NvmeCmd dsm_cmd(uint64_t list, int nr)
{
    NvmeCmd cmd = mk(NVME_CMD_DSM, 1, list, 0);

    cmd.cdw10 = cpu_to_le32(nr - 1);
    cmd.cdw11 = cpu_to_le32(NVME_DSMGMT_AD);
    return cmd;
}

/*
 * Dataset Management (NVM Command Set 2.0, 3.2.1) within the limits of
 * Identify Controller CNS 06h: DMRL 255 ranges, DMRSL = DMSL = 256 MiB
 * of logical blocks; beyond them -> Invalid Field, and nothing is
 * deallocated then.  A range past the namespace -> LBA Out of Range.
 */
void test_dsm(void)
{
    Ctrl *c = ctrl_start("");
    uint32_t max = (256u << 20) >> c->lba_shift;
    uint8_t data[PAGE], back[PAGE];
    NvmeDsmRange r[256];
    NvmeIdCtrlNvm idn;
    NvmeCmd cmd;

    id_ctrl_nvm(c, &idn);
    g_assert_cmpuint(idn.dmrl, ==, 255);
    g_assert_cmpuint(le32_to_cpu(idn.dmrsl), ==, max);
    g_assert_cmpuint(le64_to_cpu(idn.dmsl), ==, max);
    for (int i = 0; i < 256; i++) {
        r[i].cattr = 0;
        r[i].nlb = cpu_to_le32(8);
        r[i].slba = cpu_to_le64((uint64_t)i * 64);
    }
    qtest_memwrite(c->qts, c->buf, r, sizeof(r));
    cmd = dsm_cmd(c->buf, 255);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    /* data at LBA 0 survives every refused DSM below (they cover it) */
    memset(data, 0xa5, sizeof(data));
    qtest_memwrite(c->qts, c->buf + 8 * PAGE, data, sizeof(data));
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 0, PAGE >> c->lba_shift,
                       c->buf + 8 * PAGE, 0), ==, NVME_SUCCESS);
    /* 256 ranges: more than DMRL */
    cmd = dsm_cmd(c->buf, 256);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_FIELD);
    /* one range of DMRSL + 1 blocks */
    r[1].nlb = cpu_to_le32(max + 1);
    qtest_memwrite(c->qts, c->buf, r, sizeof(r));
    cmd = dsm_cmd(c->buf, 2);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_FIELD);
    /* DMSL + 8 blocks in all, no range beyond DMRSL */
    r[1].nlb = cpu_to_le32(max);
    qtest_memwrite(c->qts, c->buf, r, sizeof(r));
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_FIELD);
    qtest_memset(c->qts, c->buf + 8 * PAGE, 0, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, PAGE >> c->lba_shift,
                       c->buf + 8 * PAGE, 0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf + 8 * PAGE, back, sizeof(back));
    g_assert(memcmp(back, data, sizeof(data)) == 0);
    /* exactly DMSL, in one range from LBA 0: deallocated, reads zeroes */
    r[0].slba = 0;
    r[0].nlb = cpu_to_le32(max);
    qtest_memwrite(c->qts, c->buf, r, sizeof(r));
    cmd = dsm_cmd(c->buf, 1);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, PAGE >> c->lba_shift,
                       c->buf + 8 * PAGE, 0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf + 8 * PAGE, back, sizeof(back));
    g_assert(all_zero(back, sizeof(back)));
    for (int i = 0; i < 256; i++) {
        r[i].nlb = cpu_to_le32(8);
        r[i].slba = cpu_to_le64((uint64_t)i * 64);
    }
    qtest_memwrite(c->qts, c->buf, r, sizeof(r));
    cmd = dsm_cmd(c->buf, 255);
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

/*
 * A deallocate makes the background-GC check that reads and writes make:
 * with more lines in use than gc_thres_pcent allows but every one of them
 * full of valid pages (sequential first writes: no victim passes the 1/8
 * filter), a DSM that invalidates 2 of a line's 16 pages gets that line
 * collected by the DSM itself -- C0h counts its 14 moved pages with no
 * read or write after the DSM.
 */
void test_dsm_gc(void)
{
    /* one LUN: line N is logical pages 16N..16N+15; 32 lines (2 MiB),
     * a 1 MiB namespace, background GC from 13 lines in use */
    Ctrl *c = ctrl_start("nchs=1,luns_per_ch=1,blks_per_pl=32,"
                         "pgs_per_blk=16,devsz_mb=1,gc_thres_pcent=40");
    uint32_t bpp = PAGE >> c->lba_shift;
    FemuLogFtl log;
    NvmeDsmRange r = { .slba = 0, .nlb = cpu_to_le32(2 * bpp) };
    NvmeCmd cmd;

    qtest_memset(c->qts, c->buf + PAGE, 0x5a, PAGE);
    for (uint32_t p = 0; p < 15 * 16; p++) {
        g_assert_cmphex(rw(c, NVME_CMD_WRITE, (uint64_t)p * bpp, bpp,
                           c->buf + PAGE, 0), ==, NVME_SUCCESS);
    }
    g_assert_cmphex(get_log(c, FEMU_LOG_FTL, 127, 0, c->buf, 0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, &log, sizeof(log));
    g_assert_cmpuint(le64_to_cpu(log.host_pages_written), ==, 240);
    g_assert_cmpuint(le64_to_cpu(log.gc_pages_moved), ==, 0);
    qtest_memwrite(c->qts, c->buf, &r, sizeof(r));
    cmd = dsm_cmd(c->buf, 1);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    g_assert_cmphex(get_log(c, FEMU_LOG_FTL, 127, 0, c->buf, 0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, &log, sizeof(log));
    g_assert_cmpuint(le64_to_cpu(log.host_pages_written), ==, 240);
    /* line 0 collected: its 14 valid pages moved */
    g_assert_cmpuint(le64_to_cpu(log.gc_pages_moved), ==, 14);
    ctrl_stop(c);
}

/* Microseconds since t0 (g_get_monotonic_time). */
static int64_t us_since(int64_t t0)
{
    return g_get_monotonic_time() - t0;
}

/*
 * The largest Dataset Management commands the controller advertises
 * (CNS 06h: DMRL ranges of DMRSL blocks, DMSL in all) on a 16 GiB
 * namespace, a queue of 31 of them, the first over 256 KiB of written
 * data in each range; meanwhile the admin commands that wait, holding
 * the BQL, for the FTL or for the busy poller: Identify Namespace (NUSE: FTL lock),
 * Get Log Page C0h (FTL lock), Create and Delete I/O SQ on that poller
 * (its lock), and in a second batch a controller reset (CC.EN = 0).
 * Each must answer within 100 ms.  With no limits advertised (DMRSL
 * FFFFFFFFh), one such command walked the whole namespace 255 times
 * and each of these waited for seconds.  A loaded host can delay any
 * one measurement, so the batch runs up to 3 times and one batch in
 * which all answered in time passes; the status of every DSM counts
 * in every batch.
 */
void test_dsm_busy(void)
{
    Ctrl *c = ctrl_start("devsz_mb=16384,blks_per_pl=512,pollers=1,"
                         "pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0");
    uint64_t list = guest_alloc(&c->qs->alloc, PAGE);
    uint64_t prps = guest_alloc(&c->qs->alloc, PAGE);
    uint32_t xfer = 64 * PAGE;      /* within mdts=7 (default) */
    NvmeDsmRange r[256];
    NvmeIdCtrlNvm idn;
    uint64_t per, dmsl, stride, e[128];
    int nr, batches = 3, ok = 0;

    id_ctrl_nvm(c, &idn);
    nr = idn.dmrl ? idn.dmrl : 256;
    per = MIN(le32_to_cpu(idn.dmrsl) ? le32_to_cpu(idn.dmrsl) : UINT32_MAX,
              c->ns_blocks);
    dmsl = le64_to_cpu(idn.dmsl);
    if (dmsl) {
        per = MIN(per, dmsl / nr);
    }
    g_assert_cmpuint(per, >, 0);
    stride = nr > 1 ? (c->ns_blocks - per) / (nr - 1) : 0;
    for (int i = 0; i < nr; i++) {
        r[i].cattr = 0;
        r[i].nlb = cpu_to_le32(per);
        r[i].slba = cpu_to_le64(i * stride);
    }
    qtest_memwrite(c->qts, list, r, nr * sizeof(r[0]));
    g_test_message("DSM: %d ranges of %" PRIu64 " blocks of a %" PRIu64
                   "-block namespace", nr, per, c->ns_blocks);
    /* a PRP list whose entries all point at the one data buffer */
    for (int i = 0; i < ARRAY_SIZE(e); i++) {
        e[i] = cpu_to_le64(c->buf);
    }
    qtest_memwrite(c->qts, prps, e, sizeof(e));
    for (int b = 0; b < batches && !ok; b++) {
        int64_t t, dt[5];
        uint16_t first;
        bool fast = true;

        /* data under the first DSM: up to 256 KiB at each range */
        for (int i = 0; i < nr; i++) {
            NvmeCmd cmd = mk(NVME_CMD_WRITE, 1, c->buf, prps);
            uint64_t slba = le64_to_cpu(r[i].slba);
            uint32_t nlb = MIN(xfer >> c->lba_shift, per);

            cmd.cdw10 = cpu_to_le32((uint32_t)slba);
            cmd.cdw11 = cpu_to_le32((uint32_t)(slba >> 32));
            cmd.cdw12 = cpu_to_le32(nlb - 1);
            g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
        }
        first = c->cid + 1;
        for (int i = 0; i < QDEPTH - 1; i++) {
            NvmeCmd cmd = dsm_cmd(list, nr);
            submit(c, IOQ, &cmd);
        }
        t = g_get_monotonic_time();
        g_assert_cmphex(identify(c, NVME_ID_CNS_NS, 1, c->buf), ==,
                        NVME_SUCCESS);
        dt[0] = us_since(t);
        t = g_get_monotonic_time();
        g_assert_cmphex(get_log(c, FEMU_LOG_FTL, 127, 0, c->buf, 0), ==,
                        NVME_SUCCESS);
        dt[1] = us_since(t);
        t = g_get_monotonic_time();
        g_assert_cmphex(create_sq(c, 2, QDEPTH, IOQ, ring_page(c, 2, 0)), ==,
                        NVME_SUCCESS);
        dt[2] = us_since(t);
        t = g_get_monotonic_time();
        g_assert_cmphex(delete_q(c, NVME_ADM_CMD_DELETE_SQ, 2), ==,
                        NVME_SUCCESS);
        dt[3] = us_since(t);
        reap_in_order(c, IOQ, first, QDEPTH - 1);
        /* a controller reset while the poller works through them */
        for (int i = 0; i < QDEPTH - 1; i++) {
            NvmeCmd cmd = dsm_cmd(list, nr);
            submit(c, IOQ, &cmd);
        }
        t = g_get_monotonic_time();
        wr32(c, NVME_REG_CC, 0);
        g_assert(wait_csts(c, 1, 0));
        dt[4] = us_since(t);
        ctrl_enable(c);
        setup_io(c, IOQ);
        g_test_message("batch %d: Identify NS %.1f ms, Get Log C0h %.1f ms, "
                       "Create SQ %.1f ms, Delete SQ %.1f ms, CC.EN=0 %.1f "
                       "ms", b, dt[0] / 1e3, dt[1] / 1e3, dt[2] / 1e3,
                       dt[3] / 1e3, dt[4] / 1e3);
        for (int i = 0; i < ARRAY_SIZE(dt); i++) {
            fast &= dt[i] < 100 * 1000;
        }
        ok = fast;
    }
    g_assert(ok);
    ctrl_stop(c);
}

/*
 * Host data in the state file (state=PATH): written blocks survive a
 * save on demand (0xEF code 8) and the save at exit, and read back after
 * a restart; trimmed ones read zeroes.  tests/qtest/femu-state-data.t
 * runs this with a mincore() that reports every page not resident, as
 * Linux does for pages it swapped out: the device's own record of the
 * chunks written decides what is saved, not residency.
 */
static bool read_is(Ctrl *c, uint64_t slba, uint8_t v)
{
    uint8_t b[PAGE];

    g_assert_cmphex(rw(c, NVME_CMD_READ, slba, PAGE >> c->lba_shift, c->buf,
                       0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, b, sizeof(b));
    for (size_t i = 0; i < sizeof(b); i++) {
        if (b[i] != v) {
            return false;
        }
    }
    return true;
}

void test_state_data(void)
{
    g_autofree char *dir = g_dir_make_tmp("femu-state-data-XXXXXX", NULL);
    g_autofree char *path = g_strdup_printf("%s/s.femu", dir);
    g_autofree char *opts = g_strdup_printf(
        "nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,"
        "state=%s", path);
    uint64_t lbas[3];
    NvmeCmd cmd;
    Ctrl *c = ctrl_start(opts);

    lbas[0] = 0;
    lbas[1] = (c->ns_blocks / 2) & ~7ull;
    lbas[2] = (c->ns_blocks - 8) & ~7ull;
    for (int i = 0; i < 3; i++) {
        qtest_memset(c->qts, c->buf, 0x31 + i, PAGE);
        g_assert_cmphex(rw(c, NVME_CMD_WRITE, lbas[i], PAGE >> c->lba_shift,
                           c->buf, 0), ==, NVME_SUCCESS);
    }
    /* the middle one deallocated: its chunk leaves the record */
    {
        NvmeDsmRange r = { .nlb = cpu_to_le32(PAGE >> c->lba_shift),
                           .slba = cpu_to_le64(lbas[1]) };

        qtest_memwrite(c->qts, c->buf + 4 * PAGE, &r, sizeof(r));
        cmd = mk(NVME_CMD_DSM, 1, c->buf + 4 * PAGE, 0);
        cmd.cdw11 = cpu_to_le32(NVME_DSMGMT_AD);
        g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    }
    cmd = mk(FEMU_ADM_CMD_CONTROL, 0, 0, 0);
    cmd.cdw10 = cpu_to_le32(8);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_SUCCESS);
    ctrl_stop(c);           /* QEMU quits: the exit save */

    c = ctrl_start(opts);
    g_assert(read_is(c, lbas[0], 0x31));
    g_assert(read_is(c, lbas[1], 0));
    g_assert(read_is(c, lbas[2], 0x33));
    ctrl_stop(c);
    {
        g_autofree char *lock = g_strdup_printf("%s.lock", path);
        unlink(path);
        unlink(lock);
        rmdir(dir);
    }
}

/*
 * A save the guest asks for (0xEF code 8) runs without the BQL: once the
 * device is writing PATH.tmp, QMP answers query-status while the save
 * goes on, and the admin command completes after the answer, when the
 * file is on disk.  With the save in the main loop, QMP would answer
 * only after it (and after the command's completion).  256 MiB of data
 * make the save last long enough to tell; the times are printed.
 */
void test_state_save_qmp(void)
{
    g_autofree char *dir = g_dir_make_tmp("femu-state-qmp-XXXXXX", NULL);
    g_autofree char *path = g_strdup_printf("%s/s.femu", dir);
    g_autofree char *tmp = g_strdup_printf("%s.tmp", path);
    g_autofree char *opts = g_strdup_printf("devsz_mb=1024,state=%s", path);
    Ctrl *c = ctrl_start(opts);
    uint64_t prps = guest_alloc(&c->qs->alloc, PAGE), e[64];
    uint32_t nlb = (64 * PAGE) >> c->lba_shift;
    int64_t t0, t_tmp, t_qmp, t_done;
    uint16_t cid;
    NvmeCqe cqe;
    NvmeCmd cmd;
    QDict *rsp;

    /* 256 MiB in 256 KiB writes, every page from one non-zero buffer */
    qtest_memset(c->qts, c->buf, 0x6b, PAGE);
    for (int i = 0; i < ARRAY_SIZE(e); i++) {
        e[i] = cpu_to_le64(c->buf);
    }
    qtest_memwrite(c->qts, prps, e, sizeof(e));
    for (uint64_t slba = 0; slba < (256ull << 20) >> c->lba_shift;
         slba += nlb) {
        cmd = mk(NVME_CMD_WRITE, 1, c->buf, prps);
        cmd.cdw10 = cpu_to_le32((uint32_t)slba);
        cmd.cdw11 = cpu_to_le32((uint32_t)(slba >> 32));
        cmd.cdw12 = cpu_to_le32(nlb - 1);
        g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    }
    cmd = mk(FEMU_ADM_CMD_CONTROL, 0, 0, 0);
    cmd.cdw10 = cpu_to_le32(8);
    t0 = g_get_monotonic_time();
    submit(c, 0, &cmd);
    cid = c->cid;
    /* the save has begun: PATH.tmp is there */
    while (!g_file_test(tmp, G_FILE_TEST_EXISTS)) {
        g_assert_cmpint(us_since(t0), <, 60 * 1000 * 1000);
        g_usleep(200);
    }
    t_tmp = g_get_monotonic_time();
    rsp = qtest_qmp(c->qts, "{'execute': 'query-status'}");
    t_qmp = g_get_monotonic_time();
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    /* answered while the save runs: its command has not completed */
    g_assert_false(reap(c, 0, &cqe, 1));
    g_assert(reap(c, 0, &cqe, 120 * 1000 * 1000));
    t_done = g_get_monotonic_time();
    g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, cid);
    g_assert_cmphex(STATUS(le16_to_cpu(cqe.status) >> 1), ==, NVME_SUCCESS);
    g_assert_false(g_file_test(tmp, G_FILE_TEST_EXISTS));
    g_test_message("save of 256 MiB: PATH.tmp after %.1f ms, query-status "
                   "answered in %.1f ms, save done after %.1f ms",
                   (t_tmp - t0) / 1e3, (t_qmp - t_tmp) / 1e3,
                   (t_done - t0) / 1e3);
    ctrl_stop(c);
    {
        g_autofree char *lock = g_strdup_printf("%s.lock", path);
        unlink(path);
        unlink(lock);
        rmdir(dir);
    }
}

/*
 * Incremental saves: a save after a first one writes only the chunks
 * written or deallocated since (the trace event femu_state_save counts
 * them: 16, then 1 and 1 trimmed, then none at the exit save), and a file
 * cut in the middle of its last generation (a save killed half way)
 * loads the generation before it with that one's data; the next save
 * replaces the torn tail.  Saves that outgrow the data compact the file.
 */
static void state_cmd8(Ctrl *c)
{
    NvmeCmd cmd = mk(FEMU_ADM_CMD_CONTROL, 0, 0, 0);

    cmd.cdw10 = cpu_to_le32(8);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_SUCCESS);
}

/* the pages it uses: in the middle of the namespace, away from the
 * health check's writes (ctrl_stop) at its start */
static uint64_t state_lba(Ctrl *c, uint64_t page)
{
    return (c->ns_blocks / 2 & ~7ull) + page * (PAGE >> c->lba_shift);
}

static void state_write_page(Ctrl *c, uint64_t page, uint8_t v)
{
    qtest_memset(c->qts, c->buf, v, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, state_lba(c, page),
                       PAGE >> c->lba_shift, c->buf, 0), ==, NVME_SUCCESS);
}

/* the chunk counts of the femu_state_save lines of the trace log */
static int state_save_counts(const char *log, uint64_t *chunks,
                             uint64_t *trimmed, int max)
{
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    int k = 0;

    g_assert(g_file_get_contents(log, &text, NULL, NULL));
    lines = g_strsplit(text, "\n", -1);
    for (int i = 0; lines[i] && k < max; i++) {
        const char *p = strstr(lines[i], "femu_state_save ");
        const char *q;

        if (!p || !(q = strstr(p, " data chunks"))) {
            continue;
        }
        while (q > p && g_ascii_isdigit(q[-1])) {
            q--;
        }
        chunks[k] = g_ascii_strtoull(q, NULL, 10);
        q = strstr(q, "chunks, ");
        trimmed[k] = q ? g_ascii_strtoull(q + 8, NULL, 10) : 0;
        k++;
    }
    return k;
}

void test_state_incr(void)
{
    g_autofree char *dir = g_dir_make_tmp("femu-state-incr-XXXXXX", NULL);
    g_autofree char *path = g_strdup_printf("%s/s.femu", dir);
    g_autofree char *log = g_strdup_printf("%s/trace.log", dir);
    g_autofree char *args = g_strdup_printf("-trace femu_state_save -D %s",
                                            log);
    g_autofree char *opts = g_strdup_printf(
        "nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,"
        "state=%s", path);
    const char *saved_args = extra_args;
    uint64_t chunks[8], trimmed[8];
    struct stat st;
    off_t size1, size2;
    Ctrl *c;

    extra_args = args;
    c = ctrl_start(opts);
    for (int i = 0; i < 16; i++) {
        state_write_page(c, i, 0x40 + i);
    }
    state_cmd8(c);                      /* the first save: all 16 */
    g_assert(stat(path, &st) == 0);
    size1 = st.st_size;
    state_write_page(c, 0, 0x61);       /* one chunk rewritten ... */
    {                                   /* ... and one deallocated */
        NvmeDsmRange r = { .nlb = cpu_to_le32(PAGE >> c->lba_shift),
                           .slba = cpu_to_le64(state_lba(c, 1)) };
        NvmeCmd cmd;

        qtest_memwrite(c->qts, c->buf + 4 * PAGE, &r, sizeof(r));
        cmd = mk(NVME_CMD_DSM, 1, c->buf + 4 * PAGE, 0);
        cmd.cdw11 = cpu_to_le32(NVME_DSMGMT_AD);
        g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    }
    state_cmd8(c);                      /* the second: only those */
    g_assert(stat(path, &st) == 0);
    size2 = st.st_size;
    ctrl_stop(c);                       /* the exit save: nothing new */

    g_assert_cmpint(state_save_counts(log, chunks, trimmed, 8), ==, 3);
    g_test_message("saves: %" PRIu64 ", %" PRIu64 " (+%" PRIu64
                   " trimmed), %" PRIu64 " chunks; file %lld then %lld bytes",
                   chunks[0], chunks[1], trimmed[1], chunks[2],
                   (long long)size1, (long long)size2);
    g_assert_cmpuint(chunks[0], ==, 16);
    g_assert_cmpuint(chunks[1], ==, 1);
    g_assert_cmpuint(trimmed[1], ==, 1);
    /* the exit save: the health check's write (ctrl_stop), 8 KiB */
    g_assert_cmpuint(chunks[2], <=, 3);
    g_assert_cmpint(size2, >, size1);

    /* killed in the middle of the second save: the first one loads */
    g_assert(truncate(path, size1 + (size2 - size1) / 2) == 0);
    c = ctrl_start(opts);
    g_assert(read_is(c, state_lba(c, 0), 0x40));
    g_assert(read_is(c, state_lba(c, 1), 0x41));
    g_assert(read_is(c, state_lba(c, 15), 0x4f));
    /* the next save goes where the first one ended */
    state_write_page(c, 3, 0x77);
    state_cmd8(c);
    ctrl_stop(c);
    c = ctrl_start(opts);
    g_assert(read_is(c, state_lba(c, 0), 0x40));
    g_assert(read_is(c, state_lba(c, 1), 0x41));
    g_assert(read_is(c, state_lba(c, 3), 0x77));
    /* compaction: saves that change nothing append a generation each
     * (the FTL section); once those outgrow the data, a save writes a
     * whole file again */
    for (int i = 0; i < 12; i++) {
        state_cmd8(c);
    }
    ctrl_stop(c);
    {
        g_autofree char *text = NULL;
        const char *p;
        int full = 0;

        g_assert(g_file_get_contents(log, &text, NULL, NULL));
        for (p = text; (p = strstr(p, ": full save,")); p++) {
            full++;
        }
        g_assert(stat(path, &st) == 0);
        g_test_message("12 saves without changes: %d whole-file saves, "
                       "file %lld bytes", full, (long long)st.st_size);
        g_assert_cmpint(full, >=, 2);
        g_assert_cmpint(st.st_size, <, 3 * size1);
    }
    c = ctrl_start(opts);
    g_assert(read_is(c, state_lba(c, 0), 0x40));
    g_assert(read_is(c, state_lba(c, 3), 0x77));
    ctrl_stop(c);
    extra_args = saved_args;
    {
        g_autofree char *lock = g_strdup_printf("%s.lock", path);
        unlink(path);
        unlink(lock);
        unlink(log);
        rmdir(dir);
    }
}
