/*
 * NAND timing model: LUN contention, channel transfers, GC
 * delay on/off, delay emulation off and built-in, and page counts that do
 * not depend on timing.
 */
#include <stdlib.h>

#include "test.h"

#define RD 40000u
#define WR 200000u
#define ER 2000000u

static struct ftl *mk(uint32_t nchs, uint32_t luns, uint64_t xfer)
{
    struct ftl_config c;

    small_cfg(&c);
    c.nchs = nchs;
    c.luns_per_ch = luns;
    c.ch_xfer_lat = xfer;
    if (nchs * luns < 4) {
        c.blks_per_pl = 64;
        c.pgs_per_blk = 32;
    }
    return must_new(&c);
}

static void test_basic(void)
{
    struct ftl *f = mk(2, 2, 0);

    /* one page: program latency after arrival */
    CHECK_EQ(wpage(f, 0, 1000), 1000 + WR);
    /* 4 pages stripe over 4 LUNs: they overlap */
    CHECK_EQ(ftl_write(f, 8, 32, FTL_PID_NONE, 1000000), 1000000 + WR);
    /* 5 pages: the fifth waits for its LUN */
    CHECK_EQ(ftl_write(f, 64, 40, FTL_PID_NONE, 2000000), 2000000 + 2 * WR);
    /* read: LUN busy for pg_rd_lat; unmapped pages cost nothing */
    CHECK_EQ(ftl_read(f, 0, 8, 5000000), 5000000 + RD);
    CHECK_EQ(ftl_read(f, 4000, 8, 5000000), 5000000);
    /* a read arriving while its LUN programs waits for it */
    CHECK_EQ(wpage(f, 200, 6000000), 6000000 + WR);
    CHECK_EQ(ftl_read(f, 200 * 8, 8, 6000000 + 1000), 6000000 + WR + RD);
    /* two reads of pages on different LUNs overlap */
    CHECK_EQ(ftl_read(f, 8, 16, 9000000), 9000000 + RD);
    /* two reads of the same LUN queue */
    CHECK_EQ(ftl_read(f, 0, 8, 10000000), 10000000 + RD);
    CHECK_EQ(ftl_read(f, 0, 8, 10000000), 10000000 + 2 * RD);
    ftl_free(f);
}

static void test_channel(void)
{
    /* 1 channel, 2 LUNs, 10 us transfer */
    struct ftl *f = mk(1, 2, 10000);

    /* program: channel transfer, then the LUN */
    CHECK_EQ(wpage(f, 0, 0), 10000 + WR);
    /* two pages, two LUNs, one channel: transfers serialise */
    CHECK_EQ(ftl_write(f, 8, 16, FTL_PID_NONE, 1000000),
             1000000 + 2 * 10000 + WR);
    /* read: LUNs in parallel, then the transfers one after the other */
    CHECK_EQ(ftl_read(f, 8, 16, 2000000), 2000000 + RD + 2 * 10000);
    ftl_free(f);
}

/* Collect one line at time T with GC delay on or off, then read a page
 * on LUN 0 right after T. */
static uint64_t read_after_gc(bool gc_delay)
{
    struct ftl *f = mk(2, 2, 0);

    uint64_t t;
    ftl_set_gc_delay(f, gc_delay);
    for (uint32_t lpn = 0; lpn < 2 * f->ppl; lpn++) {
        wpage(f, lpn, 0);
    }
    for (uint32_t i = 1; i < f->ppl; i++) {
        tpage(f, i); /* line 0 keeps lpn 0 only */
    }
    CHECK_EQ(ftl_gc_collect(f, 0, 100000000), 0);
    CHECK_EQ(f->ctr.gc_pages_moved, 1);
    t = ftl_read(f, f->ppl * 8, 8, 100000000 + 1); /* lpn on LUN 0 */
    ftl_free(f);
    return t;
}

static void test_gc_delay(void)
{
    /* on: the read waits for GC's read, program and erase on LUN 0 */
    CHECK_EQ(read_after_gc(true), 100000000 + RD + WR + ER + RD);
    /* off: GC takes no NAND time */
    CHECK_EQ(read_after_gc(false), 100000000 + 1 + RD);
}

static void test_delay_modes(void)
{
    struct ftl_config c;
    struct ftl *f;

    small_cfg(&c);
    c.pg_wr_lat = 50000;
    c.pg_rd_lat = 5000;
    c.ch_xfer_lat = 3000;
    f = must_new(&c);
    CHECK_EQ(wpage(f, 0, 0), 3000 + 50000);
    /* 0xEF code 4: every NAND time 0, completion = arrival */
    ftl_set_delay_mode(f, FTL_DELAY_OFF);
    CHECK_EQ(wpage(f, 1, 10), 10);
    CHECK_EQ(ftl_read(f, 0, 8, 20), 20);
    /* 0xEF code 3: built-in 40/200/2000 us, no transfer time */
    ftl_set_delay_mode(f, FTL_DELAY_BUILTIN);
    CHECK_EQ(wpage(f, 2, 1000000), 1000000 + WR);
    CHECK_EQ(ftl_read(f, 2 * 8, 8, 2000000), 2000000 + RD);
    /* back to the configured times */
    ftl_set_delay_mode(f, FTL_DELAY_CONFIGURED);
    CHECK_EQ(wpage(f, 3, 5000000), 5000000 + 3000 + 50000);
    ftl_free(f);
}

/* The same workload under every timing setting: same page counts. */
static void run_counts(int mode, struct ftl_counters *out)
{
    struct ftl_config c;
    struct ftl *f;
    uint64_t s = 5, now = 0;

    small_cfg(&c);
    c.devsz_mb = 6;
    f = must_new(&c);
    if (mode == 1) {
        ftl_set_gc_delay(f, false);
    } else if (mode == 2) {
        ftl_set_delay_mode(f, FTL_DELAY_OFF);
    } else if (mode == 3) {
        ftl_set_delay_mode(f, FTL_DELAY_BUILTIN);
    }
    for (int i = 0; i < 20000; i++) {
        uint32_t lpn = (uint32_t)(trand(&s) % ftl_logical_pages(f));
        uint64_t t = wpage(f, lpn, now);
        now = t > now ? t : now;
        ftl_background_gc(f, now);
    }
    ftl_get_counters(f, out);
    ftl_free(f);
}

static void test_counts_independent(void)
{
    struct ftl_counters a, b;

    run_counts(0, &a);
    CHECK(a.gc_pages_moved > 0);
    for (int m = 1; m < 4; m++) {
        run_counts(m, &b);
        CHECK(memcmp(&a, &b, sizeof(a)) == 0);
    }
}

/* Page types of the cells: FEMU's shadow-program pairing and times. */
static void test_page_types(void)
{
    struct ftl_config c;

    ftl_config_default(&c);
    /* uniform: one type, the configured times */
    CHECK_EQ(ftl_cfg_page_types(&c), 1);
    CHECK_EQ(ftl_cfg_page_rd_lat(&c, 12), RD);
    CHECK_EQ(ftl_cfg_page_wr_lat(&c, 12), WR);
    c.nand_cell_type = FTL_CELL_SLC;
    CHECK_EQ(ftl_cfg_page_type(&c, 7), 0);
    CHECK_EQ(ftl_cfg_page_rd_lat(&c, 7), 40000);
    CHECK_EQ(ftl_cfg_page_wr_lat(&c, 7), 800000);
    /* MLC: LSB = 0, MSB = 2; upper pages 6, 9, then pairs from 12 */
    c.nand_cell_type = FTL_CELL_MLC;
    CHECK_EQ(ftl_cfg_page_type(&c, 0), 0);
    CHECK_EQ(ftl_cfg_page_type(&c, 6), 2);
    CHECK_EQ(ftl_cfg_page_type(&c, 9), 2);
    CHECK_EQ(ftl_cfg_page_type(&c, 10), 0);
    CHECK_EQ(ftl_cfg_page_type(&c, 13), 2);
    CHECK_EQ(ftl_cfg_page_type(&c, 502), 0);
    CHECK_EQ(ftl_cfg_page_type(&c, 504), 2);
    CHECK_EQ(ftl_cfg_page_type(&c, 511), 2);
    CHECK_EQ(ftl_cfg_page_type(&c, 512 + 6), 2);  /* repeats per 512 */
    CHECK_EQ(ftl_cfg_page_rd_lat(&c, 6), 64000);
    CHECK_EQ(ftl_cfg_page_wr_lat(&c, 10), 850000);
    CHECK_EQ(ftl_cfg_page_wr_lat(&c, 12), 2300000);
    /* TLC: 0..5 LSB, 6..7 CSB, then pairs LSB, CSB, MSB, ... */
    c.nand_cell_type = FTL_CELL_TLC;
    CHECK_EQ(ftl_cfg_page_types(&c), 3);
    CHECK_EQ(ftl_cfg_page_type(&c, 5), 0);
    CHECK_EQ(ftl_cfg_page_type(&c, 7), 1);
    CHECK_EQ(ftl_cfg_page_type(&c, 9), 0);
    CHECK_EQ(ftl_cfg_page_type(&c, 10), 1);
    CHECK_EQ(ftl_cfg_page_type(&c, 13), 2);
    CHECK_EQ(ftl_cfg_page_type(&c, 14), 0);
    CHECK_EQ(ftl_cfg_page_rd_lat(&c, 0), 56500);
    CHECK_EQ(ftl_cfg_page_rd_lat(&c, 6), 77500);
    CHECK_EQ(ftl_cfg_page_rd_lat(&c, 12), 106000);
    CHECK_EQ(ftl_cfg_page_wr_lat(&c, 12), 5734000);
    c.pgtype_rd_lat[2] = 90000;                   /* msb_rd_lat */
    CHECK_EQ(ftl_cfg_page_rd_lat(&c, 12), 90000);
    CHECK_EQ(ftl_cfg_page_rd_lat(&c, 6), 77500);
    c.pgtype_rd_lat[2] = 0;
    /* QLC: ... pairs of four types; the last 16 pages of 512 LSB */
    c.nand_cell_type = FTL_CELL_QLC;
    CHECK_EQ(ftl_cfg_page_type(&c, 11), 1);
    CHECK_EQ(ftl_cfg_page_type(&c, 12), 2);
    CHECK_EQ(ftl_cfg_page_type(&c, 15), 3);
    CHECK_EQ(ftl_cfg_page_type(&c, 16), 0);
    CHECK_EQ(ftl_cfg_page_type(&c, 500), 0);
    CHECK_EQ(ftl_cfg_page_rd_lat(&c, 15), 169600);
    CHECK_EQ(ftl_cfg_page_wr_lat(&c, 15), 9174400);
    /* pgtype_lat on uniform timing: programs x 0.6 / 1.0 / 1.4 by page
     * mod 3 (cell_pages 0), reads unchanged */
    c.nand_cell_type = FTL_CELL_UNIFORM;
    c.pgtype_lat = 1;
    CHECK_EQ(ftl_cfg_page_types(&c), 3);
    CHECK_EQ(ftl_cfg_page_wr_lat(&c, 3), WR * 600 / 1000);
    CHECK_EQ(ftl_cfg_page_wr_lat(&c, 4), WR);
    CHECK_EQ(ftl_cfg_page_wr_lat(&c, 5), WR * 1400 / 1000);
    CHECK_EQ(ftl_cfg_page_rd_lat(&c, 5), RD);
    c.cell_pages = 2;
    CHECK_EQ(ftl_cfg_page_wr_lat(&c, 5), WR * 1400 / 1000);
    CHECK_EQ(ftl_cfg_page_wr_lat(&c, 4), WR * 600 / 1000);
}

/*
 * A TLC device: every page is read and programmed in the time of its
 * type, by where the write pointer put it; built-in delays are uniform.
 */
static void test_cell_timing(void)
{
    struct ftl_config c;
    struct ftl *f;
    uint64_t t = 0;

    small_cfg(&c);
    c.nand_cell_type = FTL_CELL_TLC;
    f = must_new(&c);
    /* lpn k of a fresh FTL lands on seq k of line 0: page k / 4 of its
     * block (4 LUNs, 1 plane) */
    for (uint32_t k = 0; k < f->ppl; k++) {
        uint32_t pg = k / f->blks_per_line;

        t += 100000000;
        CHECK_EQ(wpage(f, k, t) - t, ftl_cfg_page_wr_lat(&c, pg));
    }
    for (uint32_t k = 0; k < f->ppl; k++) {
        uint32_t pg = k / f->blks_per_line;

        t += 100000000;
        CHECK_EQ(ftl_read(f, (uint64_t)k * 8, 8, t) - t,
                 ftl_cfg_page_rd_lat(&c, pg));
    }
    /* page 12 is an MSB page, page 6 a CSB page */
    t += 100000000;
    CHECK_EQ(ftl_read(f, 12 * 4 * 8, 8, t) - t, 106000);
    t += 100000000;
    CHECK_EQ(ftl_read(f, 6 * 4 * 8, 8, t) - t, 77500);
    ftl_set_delay_mode(f, FTL_DELAY_BUILTIN);
    t += 100000000;
    CHECK_EQ(ftl_read(f, 12 * 4 * 8, 8, t) - t, RD);
    ftl_set_delay_mode(f, FTL_DELAY_CONFIGURED);
    t += 100000000;
    CHECK_EQ(ftl_read(f, 12 * 4 * 8, 8, t) - t, 106000);
    ftl_free(f);
}

/* Bad cell-type settings are refused naming the property. */
static void test_cell_refused(void)
{
    struct ftl_config c;
    char err[256];

    small_cfg(&c);
    c.nand_cell_type = 5;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "nand_cell_type=5");
    small_cfg(&c);
    c.nand_cell_type = FTL_CELL_TLC;
    c.pgtype_rd_lat[3] = 1000;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "tsb_rd_lat=1000");
    small_cfg(&c);
    c.pgtype_wr_lat[1] = 1000;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "csb_wr_lat=1000: needs nand_cell_type");
    small_cfg(&c);
    c.cell_pages = 6;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "cell_pages=6");
    small_cfg(&c);
    c.nand_cell_type = FTL_CELL_QLC;
    c.pgtype_lat = 1;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "pgtype_lat=1");
}

/* The link and the firmware CPU: each command pays its transfer, the
 * propagation delay and fw_cpu_ns after its NAND time; commands queue on
 * the link per direction and on the one CPU. */
static void test_host_costs(void)
{
    struct ftl_config c;
    struct ftl *f;

    small_cfg(&c);
    f = must_new(&c);
    /* all off: the NAND time is the completion */
    CHECK_EQ(ftl_host_costs(f, false, 4096, 1000), 1000);
    ftl_free(f);
    c.pcie_bandwidth_mbps = 2000;   /* 4096 B: 2048 ns */
    c.pcie_prop_delay_ns = 500;
    c.fw_cpu_ns = 1000;
    f = must_new(&c);
    /* read: link 1000..3048, +500, CPU 3548..4548 */
    CHECK_EQ(ftl_host_costs(f, false, 4096, 1000), 4548);
    /* a second read done at the same time waits for the link (3048..5096)
     * and then the CPU (5596..6596) */
    CHECK_EQ(ftl_host_costs(f, false, 4096, 1000), 6596);
    /* a write uses the other direction (1000..3048) but the same CPU */
    CHECK_EQ(ftl_host_costs(f, true, 4096, 1000), 7596);
    /* through ftl_read: 40 us NAND read + 2048 + 500 + 1000 */
    wpage(f, 0, 0);
    CHECK_EQ(ftl_host_costs(f, false, 4096, ftl_read(f, 0, 8, 10000000)),
             10000000 + RD + 2048 + 500 + 1000);
    ftl_free(f);
    /* CPU alone: back-to-back commands complete fw_cpu_ns apart (the
     * controller's 1e9 / fw_cpu_ns commands per second) */
    small_cfg(&c);
    c.fw_cpu_ns = 10000;
    f = must_new(&c);
    for (uint64_t i = 1; i <= 100; i++) {
        CHECK_EQ(ftl_host_costs(f, i & 1, 4096, 0), i * 10000);
    }
    ftl_free(f);
}

int main(void)
{
    RUN(test_host_costs);
    RUN(test_page_types);
    RUN(test_cell_timing);
    RUN(test_cell_refused);
    RUN(test_basic);
    RUN(test_channel);
    RUN(test_gc_delay);
    RUN(test_delay_modes);
    RUN(test_counts_independent);
    return test_done("test-timing");
}
