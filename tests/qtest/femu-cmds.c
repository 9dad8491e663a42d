/*
 * femu-test cases: the optional NVM commands of ONCS -- Compare, Verify,
 * Write Uncorrectable and Copy -- on a BlackBox namespace: what they
 * report in Identify, the statuses of their misuse, and that a refused
 * command changes no data; injected media errors (err_read_unc_ppm,
 * err_write_fail_ppm) and DULBE.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu-host.h"

/* MSRC + 2: one source range more than a Copy may have */
#define FEMU_COPY_TEST_RANGES 129

/* An LBA-range command (Compare, Verify, Write Uncorrectable) on NSID 1. */
static uint16_t lba_cmd(Ctrl *c, uint8_t opc, uint64_t slba, uint32_t nlb,
                        uint64_t prp1)
{
    NvmeCmd cmd = mk(opc, 1, prp1, 0);

    cmd.cdw10 = cpu_to_le32((uint32_t)slba);
    cmd.cdw11 = cpu_to_le32((uint32_t)(slba >> 32));
    cmd.cdw12 = cpu_to_le32(nlb - 1);
    return run(c, IOQ, &cmd, NULL);
}

/* Copy of nr descriptors (format fmt) at guest address descs to sdlba. */
static uint16_t copy_cmd(Ctrl *c, uint64_t sdlba, uint32_t nr, uint8_t fmt,
                         uint64_t descs)
{
    NvmeCmd cmd = mk(NVME_CMD_COPY, 1, descs, 0);

    cmd.cdw10 = cpu_to_le32((uint32_t)sdlba);
    cmd.cdw11 = cpu_to_le32((uint32_t)(sdlba >> 32));
    cmd.cdw12 = cpu_to_le32(((nr - 1) & 0xff) | (uint32_t)fmt << 8);
    return run(c, IOQ, &cmd, NULL);
}

static void fill(Ctrl *c, uint64_t addr, uint8_t seed, size_t len)
{
    g_autofree uint8_t *b = g_malloc(len);

    for (size_t i = 0; i < len; i++) {
        b[i] = (uint8_t)(seed + i * 7);
    }
    qtest_memwrite(c->qts, addr, b, len);
}

/* Read one 4 KiB page at LBA slba: equal to pattern seed? */
static bool page_is(Ctrl *c, uint64_t slba, uint8_t seed)
{
    uint8_t want[PAGE], got[PAGE];

    for (size_t i = 0; i < PAGE; i++) {
        want[i] = (uint8_t)(seed + i * 7);
    }
    qtest_memset(c->qts, c->buf + 15 * PAGE, 0, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_READ, slba, PAGE >> c->lba_shift,
                       c->buf + 15 * PAGE, 0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf + 15 * PAGE, got, PAGE);
    return !memcmp(want, got, PAGE);
}

static uint64_t smart_media_errors(Ctrl *c)
{
    NvmeSmartLog s;

    g_assert_cmphex(get_log(c, NVME_LOG_SMART_INFO, sizeof(s) / 4 - 1, 0,
                            c->buf + 14 * PAGE, 0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf + 14 * PAGE, &s, sizeof(s));
    return le64_to_cpu(s.media_errors[0]);
}

/* The newest Error Information log entry (log 01h, newest first). */
static void newest_error(Ctrl *c, NvmeErrorLog *e)
{
    g_assert_cmphex(get_log(c, NVME_LOG_ERROR_INFO, sizeof(*e) / 4 - 1, 0,
                            c->buf + 14 * PAGE, 0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf + 14 * PAGE, e, sizeof(*e));
}

static uint64_t c0_host_pages(Ctrl *c)
{
    FemuLogFtl log;

    g_assert_cmphex(get_log(c, FEMU_LOG_FTL, sizeof(log) / 4 - 1, 0,
                            c->buf + 14 * PAGE, 0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf + 14 * PAGE, &log, sizeof(log));
    return le64_to_cpu(log.host_pages_written);
}

/* Compare, Verify, Write Uncorrectable: Identify, statuses, error log. */
void test_cmds_media(void)
{
    Ctrl *c = ctrl_start("");
    uint32_t bpp = PAGE >> c->lba_shift;
    uint64_t data = c->buf + 8 * PAGE;
    NvmeIdCtrl idc;
    NvmeErrorLog e;
    uint16_t cid;

    g_assert_cmphex(identify(c, NVME_ID_CNS_CTRL, 0, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, &idc, sizeof(idc));
    g_assert_cmphex(le16_to_cpu(idc.oncs) &
                    (NVME_ONCS_COMPARE | NVME_ONCS_WRITE_UNCORR |
                     NVME_ONCS_VERIFY | NVME_ONCS_COPY), ==,
                    NVME_ONCS_COMPARE | NVME_ONCS_WRITE_UNCORR |
                    NVME_ONCS_VERIFY | NVME_ONCS_COPY);

    /* Compare: equal data, one byte different, out of range, over MDTS */
    fill(c, data, 0x11, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 0, bpp, data, 0), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_COMPARE, 0, bpp, data), ==,
                    NVME_SUCCESS);
    qtest_writeb(c->qts, data + PAGE - 1, 0);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_COMPARE, 0, bpp, data), ==,
                    NVME_CMP_FAILURE);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_COMPARE, c->ns_blocks - 1, 2, data),
                    ==, NVME_LBA_RANGE);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_COMPARE, 0,
                            (256u * PAGE) >> c->lba_shift, data), ==,
                    NVME_INVALID_FIELD);
    /* never-written blocks compare equal to zeroes */
    qtest_memset(c->qts, data, 0, PAGE);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_COMPARE, 100 * bpp, bpp, data), ==,
                    NVME_SUCCESS);

    /* Verify: no data pointer needed; range checked */
    g_assert_cmphex(lba_cmd(c, NVME_CMD_VERIFY, 0, bpp, 0), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_VERIFY, c->ns_blocks, 1, 0), ==,
                    NVME_LBA_RANGE);

    /* Write Uncorrectable on the second block of page 0 */
    g_assert_cmpuint(smart_media_errors(c), ==, 0);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_WRITE_UNCOR, 1, 1, 0), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_WRITE_UNCOR, c->ns_blocks - 1, 2, 0),
                    ==, NVME_LBA_RANGE);
    newest_error(c, &e);
    g_assert_cmpuint(le64_to_cpu(e.lba), ==, c->ns_blocks - 1);
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, bpp, data, 0), ==,
                    NVME_UNRECOVERED_READ);
    cid = c->cid;
    newest_error(c, &e);
    g_assert_cmphex(STATUS(le16_to_cpu(e.status_field) >> 1), ==,
                    NVME_UNRECOVERED_READ);
    g_assert_cmpuint(le64_to_cpu(e.lba), ==, 1);
    g_assert_cmpuint(le32_to_cpu(e.nsid), ==, 1);
    g_assert_cmpuint(le16_to_cpu(e.sqid), ==, IOQ);
    g_assert_cmpuint(le16_to_cpu(e.cid), ==, cid);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_VERIFY, 0, bpp, 0), ==,
                    NVME_UNRECOVERED_READ);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_COMPARE, 1, 1, data), ==,
                    NVME_UNRECOVERED_READ);
    g_assert_cmpuint(smart_media_errors(c), ==, 3);
    /* the blocks around it still read */
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 1, data, 0), ==, NVME_SUCCESS);
    if (bpp > 2) {
        g_assert_cmphex(rw(c, NVME_CMD_READ, 2, bpp - 2, data, 0), ==,
                        NVME_SUCCESS);
    }
    /* a write clears it */
    fill(c, data, 0x22, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 0, bpp, data, 0), ==,
                    NVME_SUCCESS);
    g_assert(page_is(c, 0, 0x22));
    g_assert_cmphex(lba_cmd(c, NVME_CMD_VERIFY, 0, bpp, 0), ==,
                    NVME_SUCCESS);
    /* Write Zeroes clears it */
    g_assert_cmphex(lba_cmd(c, NVME_CMD_WRITE_UNCOR, bpp, bpp, 0), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(rw(c, NVME_CMD_READ, bpp, bpp, data, 0), ==,
                    NVME_UNRECOVERED_READ);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE_ZEROES, bpp, bpp, 0, 0), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(rw(c, NVME_CMD_READ, bpp, bpp, data, 0), ==,
                    NVME_SUCCESS);
    /* a deallocate clears it */
    {
        NvmeDsmRange r = { .slba = cpu_to_le64(2 * bpp),
                           .nlb = cpu_to_le32(bpp) };
        NvmeCmd cmd = mk(NVME_CMD_DSM, 1, c->buf, 0);

        cmd.cdw11 = cpu_to_le32(NVME_DSMGMT_AD);
        qtest_memwrite(c->qts, c->buf, &r, sizeof(r));
        g_assert_cmphex(lba_cmd(c, NVME_CMD_WRITE_UNCOR, 2 * bpp, bpp, 0),
                        ==, NVME_SUCCESS);
        g_assert_cmphex(rw(c, NVME_CMD_READ, 2 * bpp, 1, data, 0), ==,
                        NVME_UNRECOVERED_READ);
        g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
        g_assert_cmphex(rw(c, NVME_CMD_READ, 2 * bpp, bpp, data, 0), ==,
                        NVME_SUCCESS);
    }
    g_assert_cmpuint(smart_media_errors(c), ==, 5);
    /* the data written before it all survived */
    g_assert(page_is(c, 0, 0x22));
    ctrl_stop(c);
}

/* Copy: Identify limits, a copy read back, C0h, every refusal. */
void test_cmds_copy(void)
{
    Ctrl *c = ctrl_start("");
    uint32_t bpp = PAGE >> c->lba_shift;
    uint64_t descs = c->buf;            /* page 0: descriptors */
    uint64_t data = c->buf + 8 * PAGE;
    NvmeCopySourceRangeFormat0_2 d[FEMU_COPY_TEST_RANGES];
    uint8_t id[PAGE];
    NvmeIdNs *ns = (NvmeIdNs *)id;
    NvmeIdCtrl idc;
    uint32_t mssrl, mcl, host0;

    g_assert_cmphex(identify(c, NVME_ID_CNS_CTRL, 0, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, &idc, sizeof(idc));
    g_assert_cmphex(le16_to_cpu(idc.ocfs), ==, NVME_OCFS_COPY_FORMAT_0);
    g_assert_cmphex(identify(c, NVME_ID_CNS_NS, 1, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(id));
    mssrl = le16_to_cpu(ns->mssrl);
    mcl = le32_to_cpu(ns->mcl);
    g_assert_cmpuint(ns->msrc, ==, FEMU_COPY_TEST_RANGES - 2);
    /* MDTS 2^7 pages of 4 KiB */
    g_assert_cmpuint(mssrl, ==, (128u * PAGE) >> c->lba_shift);
    g_assert_cmpuint(mcl, ==, mssrl);

    /* pages 0 and 1 hold A and B; copy B then A to pages 10 and 11 */
    fill(c, data, 0xa0, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 0, bpp, data, 0), ==,
                    NVME_SUCCESS);
    fill(c, data, 0xb0, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, bpp, bpp, data, 0), ==,
                    NVME_SUCCESS);
    host0 = c0_host_pages(c);
    memset(d, 0, sizeof(d));
    d[0].slba = cpu_to_le64(bpp);
    d[0].nlb = cpu_to_le16(bpp - 1);
    d[1].slba = cpu_to_le64(0);
    d[1].nlb = cpu_to_le16(bpp - 1);
    qtest_memwrite(c->qts, descs, d, 2 * sizeof(d[0]));
    g_assert_cmphex(copy_cmd(c, 10 * bpp, 2, 0, descs), ==, NVME_SUCCESS);
    g_assert(page_is(c, 10 * bpp, 0xb0));
    g_assert(page_is(c, 11 * bpp, 0xa0));
    /* the copied pages count as host pages written */
    g_assert_cmpuint(c0_host_pages(c), ==, host0 + 2);

    /* refusals: none writes page 12, which keeps C */
    fill(c, data, 0xc0, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 12 * bpp, bpp, data, 0), ==,
                    NVME_SUCCESS);
    /* more ranges than MSRC + 1 */
    g_assert_cmphex(copy_cmd(c, 12 * bpp, FEMU_COPY_TEST_RANGES, 0, descs),
                    ==, NVME_CMD_SIZE_LIMIT);
    /* a descriptor format other than 0 */
    g_assert_cmphex(copy_cmd(c, 12 * bpp, 1, 1, descs), ==,
                    NVME_INVALID_FIELD);
    /* one range longer than MSSRL (when the field can say so) */
    if (mssrl < 65536) {
        d[0].slba = 0;
        d[0].nlb = cpu_to_le16(mssrl);
        qtest_memwrite(c->qts, descs, d, sizeof(d[0]));
        g_assert_cmphex(copy_cmd(c, 12 * bpp, 1, 0, descs), ==,
                        NVME_CMD_SIZE_LIMIT);
    }
    /* two ranges of MCL blocks in all, plus one */
    d[0].slba = 0;
    d[0].nlb = cpu_to_le16(mcl - 1);
    d[1].slba = 0;
    d[1].nlb = cpu_to_le16(0);
    qtest_memwrite(c->qts, descs, d, 2 * sizeof(d[0]));
    g_assert_cmphex(copy_cmd(c, 12 * bpp, 2, 0, descs), ==,
                    NVME_CMD_SIZE_LIMIT);
    /* a source past the end; a destination past the end */
    d[0].slba = cpu_to_le64(c->ns_blocks - 1);
    d[0].nlb = cpu_to_le16(1);
    qtest_memwrite(c->qts, descs, d, sizeof(d[0]));
    g_assert_cmphex(copy_cmd(c, 12 * bpp, 1, 0, descs), ==, NVME_LBA_RANGE);
    d[0].slba = 0;
    d[0].nlb = cpu_to_le16(bpp - 1);
    qtest_memwrite(c->qts, descs, d, sizeof(d[0]));
    g_assert_cmphex(copy_cmd(c, c->ns_blocks - 1, 1, 0, descs), ==,
                    NVME_LBA_RANGE);
    /* an uncorrectable source: Unrecovered Read Error, nothing written */
    g_assert_cmphex(lba_cmd(c, NVME_CMD_WRITE_UNCOR, 0, 1, 0), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(copy_cmd(c, 12 * bpp, 1, 0, descs), ==,
                    NVME_UNRECOVERED_READ);
    g_assert(page_is(c, 12 * bpp, 0xc0));
    g_assert_cmpuint(c0_host_pages(c), ==, host0 + 3);
    /* a copy onto an uncorrectable destination makes it readable */
    g_assert_cmphex(lba_cmd(c, NVME_CMD_WRITE_UNCOR, 12 * bpp, bpp, 0), ==,
                    NVME_SUCCESS);
    d[0].slba = cpu_to_le64(bpp);
    qtest_memwrite(c->qts, descs, d, sizeof(d[0]));
    g_assert_cmphex(copy_cmd(c, 12 * bpp, 1, 0, descs), ==, NVME_SUCCESS);
    g_assert(page_is(c, 12 * bpp, 0xb0));
    /* overlapping source and destination: the source as it was */
    d[0].slba = cpu_to_le64(10 * bpp);
    d[0].nlb = cpu_to_le16(2 * bpp - 1);
    qtest_memwrite(c->qts, descs, d, sizeof(d[0]));
    g_assert_cmphex(copy_cmd(c, 11 * bpp, 1, 0, descs), ==, NVME_SUCCESS);
    g_assert(page_is(c, 11 * bpp, 0xb0));
    g_assert(page_is(c, 12 * bpp, 0xa0));
    ctrl_stop(c);
}

/* Shut down without the health check: its read would meet the injected
 * errors on purpose. */
static void ctrl_stop_unchecked(Ctrl *c)
{
    g_free(c->dev);
    qtest_pc_shutdown(c->qs);
    g_free(c);
}

/* 200 one-block reads of written blocks: bit i set when read i failed. */
static void read_failures(Ctrl *c, uint8_t *failed, int *nfail)
{
    *nfail = 0;
    memset(failed, 0, 200 / 8);
    for (int i = 0; i < 200; i++) {
        uint16_t st = rw(c, NVME_CMD_READ, i, 1, c->buf + 8 * PAGE, 0);

        g_assert(st == NVME_SUCCESS || st == NVME_UNRECOVERED_READ);
        if (st) {
            failed[i / 8] |= 1 << (i % 8);
            (*nfail)++;
        }
    }
}

/* err_read_unc_ppm and err_write_fail_ppm: rates, repeatability, the
 * error log and SMART, nothing written by a failed write. */
void test_cmds_inject(void)
{
    uint8_t f1[25], f2[25];
    int n1, n2;
    NvmeErrorLog e;
    uint16_t cid;
    Ctrl *c;

    /* every read fails, naming a block of its range; writes work */
    c = ctrl_start("err_read_unc_ppm=1000000");
    fill(c, c->buf + 8 * PAGE, 0x33, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 64, PAGE >> c->lba_shift,
                       c->buf + 8 * PAGE, 0), ==, NVME_SUCCESS);
    g_assert_cmphex(rw(c, NVME_CMD_READ, 64, PAGE >> c->lba_shift,
                       c->buf + 8 * PAGE, 0), ==, NVME_UNRECOVERED_READ);
    cid = c->cid;
    newest_error(c, &e);
    g_assert_cmphex(STATUS(le16_to_cpu(e.status_field) >> 1), ==,
                    NVME_UNRECOVERED_READ);
    g_assert_cmpuint(le64_to_cpu(e.lba), >=, 64);
    g_assert_cmpuint(le64_to_cpu(e.lba), <, 64 + (PAGE >> c->lba_shift));
    g_assert_cmpuint(le32_to_cpu(e.nsid), ==, 1);
    g_assert_cmpuint(le16_to_cpu(e.sqid), ==, IOQ);
    g_assert_cmpuint(le16_to_cpu(e.cid), ==, cid);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_VERIFY, 64, 1, 0), ==,
                    NVME_UNRECOVERED_READ);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_COMPARE, 64, 1, c->buf), ==,
                    NVME_UNRECOVERED_READ);
    g_assert_cmpuint(smart_media_errors(c), ==, 3);
    ctrl_stop_unchecked(c);

    /* a quarter of the reads fail, the same ones on every run */
    c = ctrl_start("err_read_unc_ppm=250000");
    read_failures(c, f1, &n1);
    ctrl_stop_unchecked(c);
    c = ctrl_start("err_read_unc_ppm=250000");
    read_failures(c, f2, &n2);
    g_test_message("err_read_unc_ppm=250000: %d and %d of 200 reads failed",
                   n1, n2);
    g_assert_cmpint(n1, ==, n2);
    g_assert(!memcmp(f1, f2, sizeof(f1)));
    g_assert_cmpint(n1, >, 25);
    g_assert_cmpint(n1, <, 75);
    g_assert_cmpuint(smart_media_errors(c), ==, n2);
    ctrl_stop_unchecked(c);

    /* every write fails with Write Fault and writes nothing */
    c = ctrl_start("err_write_fail_ppm=1000000");
    fill(c, c->buf + 8 * PAGE, 0x44, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 0, PAGE >> c->lba_shift,
                       c->buf + 8 * PAGE, 0), ==, NVME_WRITE_FAULT);
    g_assert_cmpuint(c0_host_pages(c), ==, 0);
    qtest_memset(c->qts, c->buf, 0, PAGE);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_COMPARE, 0, PAGE >> c->lba_shift,
                            c->buf), ==, NVME_SUCCESS);
    g_assert_cmpuint(smart_media_errors(c), ==, 1);
    ctrl_stop_unchecked(c);
}

static uint16_t set_err_rec(Ctrl *c, uint32_t nsid, uint32_t v)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_SET_FEATURES, nsid, 0, 0);

    cmd.cdw10 = cpu_to_le32(NVME_ERROR_RECOVERY);
    cmd.cdw11 = cpu_to_le32(v);
    return run(c, 0, &cmd, NULL);
}

/* DULBE on one namespace of mode `opts`: NSFEAT bit 2, the feature bit,
 * 287h for reads of deallocated or unwritten blocks, nothing else. */
static void dulbe_case(const char *opts)
{
    Ctrl *c = ctrl_start(opts);
    uint32_t bpp = PAGE >> c->lba_shift;
    uint64_t data = c->buf + 8 * PAGE;
    uint8_t id[PAGE];
    NvmeCmd cmd;
    NvmeErrorLog e;
    uint32_t dw0;
    uint16_t cid;

    g_assert_cmphex(identify(c, NVME_ID_CNS_NS, 1, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(id));
    g_assert_cmphex(((NvmeIdNs *)id)->nsfeat & NVME_ID_NS_NSFEAT_DAE, ==,
                    NVME_ID_NS_NSFEAT_DAE);
    /* off: a never-written block reads as zeroes */
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, bpp, data, 0), ==, NVME_SUCCESS);
    g_assert_cmphex(set_err_rec(c, 1, 1 << 16), ==, NVME_SUCCESS);
    cmd = mk(NVME_ADM_CMD_GET_FEATURES, 1, 0, 0);
    cmd.cdw10 = cpu_to_le32(NVME_ERROR_RECOVERY);
    g_assert_cmphex(run(c, 0, &cmd, &dw0), ==, NVME_SUCCESS);
    g_assert_cmphex(dw0, ==, 1 << 16);
    /* on: never-written blocks fail every read-like command */
    g_assert_cmphex(rw(c, NVME_CMD_READ, 4 * bpp, bpp, data, 0), ==,
                    NVME_DULB);
    cid = c->cid;
    newest_error(c, &e);
    g_assert_cmphex(STATUS(le16_to_cpu(e.status_field) >> 1), ==, NVME_DULB);
    g_assert_cmpuint(le64_to_cpu(e.lba), ==, 4 * bpp);
    g_assert_cmpuint(le16_to_cpu(e.cid), ==, cid);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_VERIFY, 0, bpp, 0), ==, NVME_DULB);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_COMPARE, 0, bpp, data), ==,
                    NVME_DULB);
    /* written: reads; a range that runs into unwritten blocks fails */
    fill(c, data, 0x55, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 0, bpp, data, 0), ==,
                    NVME_SUCCESS);
    g_assert(page_is(c, 0, 0x55));
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 2 * bpp, data, 0), ==,
                    NVME_DULB);
    newest_error(c, &e);
    g_assert_cmpuint(le64_to_cpu(e.lba), ==, bpp);
    /* zeroed, or deallocated: unwritten again */
    g_assert_cmphex(rw(c, NVME_CMD_WRITE_ZEROES, 0, bpp, 0, 0), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, bpp, data, 0), ==, NVME_DULB);
    /* not a media error */
    g_assert_cmpuint(smart_media_errors(c), ==, 0);
    /* off again: zeroes */
    g_assert_cmphex(set_err_rec(c, 1, 0), ==, NVME_SUCCESS);
    g_assert_cmphex(rw(c, NVME_CMD_READ, 0, bpp, data, 0), ==, NVME_SUCCESS);
    ctrl_stop(c);
}

void test_cmds_dulbe(void)
{
    dulbe_case("");
    dulbe_case("femu_mode=2,devsz_mb=64");
}

static uint16_t format_cmd(Ctrl *c, uint32_t nsid, uint32_t dw10)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_FORMAT_NVM, nsid, 0, 0);

    cmd.cdw10 = cpu_to_le32(dw10);
    return run(c, 0, &cmd, NULL);
}

/* Identify Namespace after a format: the driver's block size and count. */
static NvmeIdNs *reidentify(Ctrl *c, uint8_t *id)
{
    NvmeIdNs *ns = (NvmeIdNs *)id;

    g_assert_cmphex(identify(c, NVME_ID_CNS_NS, 1, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, PAGE);
    c->ns_blocks = le64_to_cpu(ns->nsze);
    c->lbaf = NVME_ID_NS_FLBAS_INDEX(ns->flbas);
    c->lba_shift = ns->lbaf[c->lbaf].ds;
    return ns;
}

/* Format NVM: erase in place, the other LBA format and back, refusals. */
void test_cmds_format(void)
{
    Ctrl *c = ctrl_start("");
    uint64_t data = c->buf + 8 * PAGE;
    uint64_t blocks512 = c->ns_blocks, host;
    uint8_t id[PAGE];
    NvmeIdCtrl idc;
    NvmeIdNs *ns;

    g_assert_cmpuint(c->lba_shift, ==, 9);
    g_assert_cmphex(identify(c, NVME_ID_CNS_CTRL, 0, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, &idc, sizeof(idc));
    g_assert_cmphex(le16_to_cpu(idc.oacs) & NVME_OACS_FORMAT, ==,
                    NVME_OACS_FORMAT);
    g_assert_cmpuint(idc.fna, ==, 0);

    /* the same format: every block erased, Write Uncorrectable too; the
     * FTL's counters go on */
    fill(c, data, 0x66, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 0, 8, data, 0), ==, NVME_SUCCESS);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_WRITE_UNCOR, 16, 1, 0), ==,
                    NVME_SUCCESS);
    host = c0_host_pages(c);
    g_assert_cmphex(format_cmd(c, 1, 0), ==, NVME_SUCCESS);
    qtest_memset(c->qts, data, 0, PAGE);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_COMPARE, 0, 8, data), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(rw(c, NVME_CMD_READ, 16, 1, data, 0), ==, NVME_SUCCESS);
    g_assert_cmpuint(c0_host_pages(c), ==, host);
    ns = reidentify(c, id);
    g_assert_cmpuint(le64_to_cpu(ns->nuse), ==, 0);

    /* refusals, each leaving page 0 as written */
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 0, 8, c->buf + 9 * PAGE, 0), ==,
                    NVME_SUCCESS);
    fill(c, data, 0x77, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 0, 8, data, 0), ==, NVME_SUCCESS);
    g_assert_cmphex(format_cmd(c, 1, 2), ==, NVME_INVALID_FORMAT);
    g_assert_cmphex(format_cmd(c, 1, 1 << 12), ==, NVME_INVALID_FORMAT);
    g_assert_cmphex(format_cmd(c, 1, 1 << 5), ==, NVME_INVALID_FORMAT);
    g_assert_cmphex(format_cmd(c, 1, 2 << 9), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(format_cmd(c, 2, 0), ==, NVME_INVALID_NSID);
    g_assert(page_is(c, 0, 0x77));

    /* LBA format 1: 4 KiB blocks, the same bytes */
    g_assert_cmphex(format_cmd(c, 1, 1), ==, NVME_SUCCESS);
    ns = reidentify(c, id);
    g_assert_cmpuint(c->lba_shift, ==, 12);
    g_assert_cmpuint(c->ns_blocks, ==, blocks512 / 8);
    g_assert_cmpuint(le64_to_cpu(ns->nuse), ==, 0);
    g_assert_cmpuint(le16_to_cpu(ns->mssrl), ==, 128);
    qtest_memset(c->qts, data, 0, PAGE);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_COMPARE, 0, 1, data), ==,
                    NVME_SUCCESS);
    fill(c, data, 0x88, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, 5, 1, data, 0), ==, NVME_SUCCESS);
    g_assert(page_is(c, 5, 0x88));
    g_assert_cmphex(rw(c, NVME_CMD_READ, c->ns_blocks, 1, data, 0), ==,
                    NVME_LBA_RANGE);
    g_assert_cmphex(rw(c, NVME_CMD_READ, c->ns_blocks - 1, 1, data, 0), ==,
                    NVME_SUCCESS);
    ns = reidentify(c, id);
    g_assert_cmpuint(le64_to_cpu(ns->nuse), ==, 1);

    /* User Data Erase (SES 1), broadcast NSID */
    g_assert_cmphex(format_cmd(c, 0xffffffff, 1 | 1 << 9), ==,
                    NVME_SUCCESS);
    qtest_memset(c->qts, data, 0, PAGE);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_COMPARE, 5, 1, data), ==,
                    NVME_SUCCESS);

    /* back to 512 B blocks */
    g_assert_cmphex(format_cmd(c, 1, 0), ==, NVME_SUCCESS);
    reidentify(c, id);
    g_assert_cmpuint(c->lba_shift, ==, 9);
    g_assert_cmpuint(c->ns_blocks, ==, blocks512);
    ctrl_stop(c);

    /* several namespaces (a BlackBox and a NoSSD one): FNA 3, a format
     * of namespace 1 formats both */
    c = ctrl_start("devsz_mb=64,namespaces=2,namespace_modes=bbssd,,nossd,"
                   "namespace_sizes=32M,,16M");
    g_assert_cmphex(identify(c, NVME_ID_CNS_CTRL, 0, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, &idc, sizeof(idc));
    g_assert_cmpuint(idc.fna, ==, 3);
    {
        NvmeCmd w = mk(NVME_CMD_WRITE, 2, data, 0);
        NvmeCmd r;

        fill(c, data, 0x99, PAGE);
        w.cdw12 = cpu_to_le32(7);
        g_assert_cmphex(run(c, IOQ, &w, NULL), ==, NVME_SUCCESS);
        g_assert_cmphex(format_cmd(c, 1, 1), ==, NVME_SUCCESS);
        g_assert_cmphex(identify(c, NVME_ID_CNS_NS, 2, c->buf), ==,
                        NVME_SUCCESS);
        qtest_memread(c->qts, c->buf, id, sizeof(id));
        ns = (NvmeIdNs *)id;
        g_assert_cmpuint(NVME_ID_NS_FLBAS_INDEX(ns->flbas), ==, 1);
        g_assert_cmpuint(le64_to_cpu(ns->nsze), ==, (16u << 20) / 4096);
        /* namespace 2's block 0 (4 KiB now) was erased */
        qtest_memset(c->qts, data, 0x5a, PAGE);
        r = mk(NVME_CMD_READ, 2, data, 0);
        g_assert_cmphex(run(c, IOQ, &r, NULL), ==, NVME_SUCCESS);
        {
            uint8_t got[PAGE], zero[PAGE] = {};

            qtest_memread(c->qts, data, got, PAGE);
            g_assert(!memcmp(got, zero, PAGE));
        }
        reidentify(c, id);
        g_assert_cmpuint(c->ns_blocks, ==, (32u << 20) / 4096);
        g_assert_cmphex(format_cmd(c, 0xffffffff, 0), ==, NVME_SUCCESS);
        reidentify(c, id);
        g_assert_cmpuint(c->ns_blocks, ==, (32u << 20) / 512);
    }
    ctrl_stop(c);

    /* not reported in OACS: not there */
    c = ctrl_start("oacs=0x100");
    g_assert_cmphex(format_cmd(c, 1, 0), ==, NVME_INVALID_OPCODE);
    ctrl_stop(c);
    /* a state file keeps the block size: the other format is refused,
     * an erase is not */
    {
        g_autofree char *dir = g_dir_make_tmp("femu-fmt-XXXXXX", NULL);
        g_autofree char *opts = g_strdup_printf("state=%s/s.femu", dir);
        g_autofree char *path = g_strdup_printf("%s/s.femu", dir);
        g_autofree char *lock = g_strdup_printf("%s/s.femu.lock", dir);

        c = ctrl_start(opts);
        g_assert_cmphex(format_cmd(c, 1, 1), ==, NVME_INVALID_FORMAT);
        g_assert_cmphex(format_cmd(c, 1, 0), ==, NVME_SUCCESS);
        ctrl_stop(c);
        unlink(path);
        unlink(lock);
        rmdir(dir);
    }
}

/* Write or read one 4 KiB page at slba: its status (a read compares with
 * pattern seed, and fails the test on a difference) */
static uint16_t page_rw(Ctrl *c, bool write, uint64_t slba, uint8_t seed)
{
    uint16_t st;

    if (write) {
        fill(c, c->buf + 8 * PAGE, seed, PAGE);
        return rw(c, NVME_CMD_WRITE, slba, PAGE >> c->lba_shift,
                  c->buf + 8 * PAGE, 0);
    }
    st = rw(c, NVME_CMD_READ, slba, PAGE >> c->lba_shift, c->buf + 8 * PAGE,
            0);
    if (st == NVME_SUCCESS) {
        g_assert(page_is(c, slba, seed));
    }
    return st;
}

static void save_now(Ctrl *c)
{
    NvmeCmd cmd = mk(FEMU_ADM_CMD_CONTROL, 0, 0, 0);

    cmd.cdw10 = cpu_to_le32(8);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_SUCCESS);
}

/*
 * Write Uncorrectable blocks in the state file: they still read as
 * Unrecovered Read Error after a restart, whether saved in the whole
 * file (a save on demand) or in an appended generation (the exit save),
 * and a rewrite clears them for good.
 */
void test_cmds_uncor_state(void)
{
    g_autofree char *dir = g_dir_make_tmp("femu-uncor-state-XXXXXX", NULL);
    g_autofree char *path = g_strdup_printf("%s/s.femu", dir);
    g_autofree char *opts = g_strdup_printf(
        "nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,"
        "state=%s", path);
    Ctrl *c = ctrl_start(opts);
    uint32_t bpp = PAGE >> c->lba_shift;
    uint64_t a = 0, b = 64 * bpp, d = 200 * bpp;

    for (int i = 0; i < 3; i++) {
        g_assert_cmphex(page_rw(c, true, (uint64_t[]){ a, b, d }[i],
                                0x51 + i), ==, NVME_SUCCESS);
    }
    g_assert_cmphex(lba_cmd(c, NVME_CMD_WRITE_UNCOR, a, bpp, 0), ==,
                    NVME_SUCCESS);
    /* one block of b's page: the rest of it reads */
    g_assert_cmphex(lba_cmd(c, NVME_CMD_WRITE_UNCOR, b + bpp - 1, 1, 0), ==,
                    NVME_SUCCESS);
    save_now(c);            /* the whole file */
    g_assert_cmphex(page_rw(c, true, b, 0x62), ==, NVME_SUCCESS);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_WRITE_UNCOR, d, bpp, 0), ==,
                    NVME_SUCCESS);
    ctrl_stop_unchecked(c); /* the exit save: an appended generation */

    c = ctrl_start(opts);
    g_assert_cmphex(page_rw(c, false, a, 0x51), ==, NVME_UNRECOVERED_READ);
    g_assert_cmphex(rw(c, NVME_CMD_READ, a + bpp, bpp, c->buf, 0), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(page_rw(c, false, b, 0x62), ==, NVME_SUCCESS);
    g_assert_cmphex(page_rw(c, false, d, 0x53), ==, NVME_UNRECOVERED_READ);
    g_assert_cmphex(lba_cmd(c, NVME_CMD_VERIFY, d + bpp - 1, 1, 0), ==,
                    NVME_UNRECOVERED_READ);
    g_assert_cmpuint(smart_media_errors(c), ==, 3);
    /* a rewrite clears a; d stays */
    g_assert_cmphex(page_rw(c, true, a, 0x71), ==, NVME_SUCCESS);
    ctrl_stop_unchecked(c);

    c = ctrl_start(opts);
    g_assert_cmphex(page_rw(c, false, a, 0x71), ==, NVME_SUCCESS);
    g_assert_cmphex(page_rw(c, false, d, 0x53), ==, NVME_UNRECOVERED_READ);
    /* deallocating d clears it too */
    {
        NvmeDsmRange r = { .nlb = cpu_to_le32(bpp), .slba = cpu_to_le64(d) };
        NvmeCmd cmd;

        qtest_memwrite(c->qts, c->buf + 4 * PAGE, &r, sizeof(r));
        cmd = mk(NVME_CMD_DSM, 1, c->buf + 4 * PAGE, 0);
        cmd.cdw11 = cpu_to_le32(NVME_DSMGMT_AD);
        g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    }
    ctrl_stop_unchecked(c);

    c = ctrl_start(opts);
    g_assert_cmphex(rw(c, NVME_CMD_READ, d, bpp, c->buf, 0), ==,
                    NVME_SUCCESS);
    ctrl_stop(c);
    {
        g_autofree char *lock = g_strdup_printf("%s.lock", path);

        unlink(path);
        unlink(lock);
        rmdir(dir);
    }
}
