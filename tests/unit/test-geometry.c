/*
 * Geometry, namespace sizing and configuration checks.
 */
#include <stdlib.h>

#include "test.h"

static int refuse(const struct ftl_config *c, char *err, size_t len)
{
    struct ftl *f;
    int r = ftl_config_validate(c, err, len);
    /* ftl_new must agree with validate and give the same message */
    char err2[512];
    f = ftl_new(c, err2, sizeof(err2));
    CHECK((r < 0) == (f == NULL));
    if (r < 0) {
        CHECK(strcmp(err, err2) == 0);
    }
    ftl_free(f);
    return r;
}

static void test_sizing(void)
{
    struct ftl_config c;
    struct ftl *f;

    tut02_cfg(&c);
    f = must_new(&c);
    /* the 2 GiB example geometry: exactly 3355443 512-byte sectors,
     * 128 lines of 16 MiB */
    CHECK_EQ(ftl_ns_blocks(f), 3355443);
    CHECK_EQ(ftl_total_lines(f), 128);
    CHECK_EQ(ftl_line_bytes(f), 16u << 20);
    CHECK_EQ(ftl_nand_pages(f), 524288);
    CHECK_EQ(ftl_logical_pages(f), (3355443 + 7) / 8);
    CHECK_EQ(ftl_free_lines(f), 128);
    CHECK_EQ(ftl_used_lines_pcent(f), 0);
    /* at most 16 bytes of metadata per NAND page */
    CHECK(ftl_meta_bytes(f) <= 16 * ftl_nand_pages(f));
    ftl_free(f);
    /* secsz 4096: the same bytes in 4 KiB blocks, rounded down */
    c.secsz = 4096;
    f = must_new(&c);
    CHECK_EQ(ftl_ns_blocks(f), 419430);
    ftl_free(f);
    /* without op_pcent: devsz_mb (384 MiB on a 512 MiB geometry) */
    geo_cfg(&c, 2, 4, 64);
    c.devsz_mb = 384;
    f = must_new(&c);
    CHECK_EQ(ftl_ns_blocks(f), 384 * 2048);
    /* the tutorial-04 reclaim unit: 8 MiB */
    CHECK_EQ(ftl_line_bytes(f), 8388608);
    ftl_free(f);
    /* defaults: 1 GiB namespace on a 16 GiB geometry */
    ftl_config_default(&c);
    f = must_new(&c);
    CHECK_EQ(ftl_ns_blocks(f), 2097152);
    CHECK_EQ(ftl_total_lines(f), 256);
    CHECK(ftl_meta_bytes(f) <= 16 * ftl_nand_pages(f));
    ftl_free(f);
}

static void test_reserve(void)
{
    struct ftl_config c;
    char err[512];

    /* on the 2 GiB example 7% spare is accepted, 5% refused; with the one
     * shared write pointer 6% is the smallest */
    tut02_cfg(&c);
    c.op_pcent = 7;
    CHECK(refuse(&c, err, sizeof(err)) == 0);
    c.op_pcent = 5;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "op_pcent=5");
    CHECK_STR(err, "minus 1 open write lines");
    CHECK_STR(err, "op_pcent >= 6");
    c.op_pcent = 6;
    CHECK(refuse(&c, err, sizeof(err)) == 0);
    c.op_pcent = 0;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "op_pcent=0");
    /* a lower forced threshold needs more spare */
    c.op_pcent = 7;
    c.gc_thres_pcent_high = 90;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "gc_thres_pcent_high=90");
    /* hot/cold (hot and cold lines, GC in the cold one) and gc_own_line
     * each need one more open line than the default, both together two */
    tut02_cfg(&c);
    c.op_pcent = 6;
    c.hot_cold_sep = true;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "minus 2 open write lines");
    c.op_pcent = 7;
    CHECK(refuse(&c, err, sizeof(err)) == 0);
    c.hot_cold_sep = false;
    c.gc_own_line = true;
    CHECK(refuse(&c, err, sizeof(err)) == 0);
    c.op_pcent = 6;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    c.op_pcent = 7;
    c.hot_cold_sep = true;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "minus 3 open write lines");
    c.op_pcent = 8;
    CHECK(refuse(&c, err, sizeof(err)) == 0);
    /* devsz_mb: 2 GiB NAND, the limit is named in MiB */
    tut02_cfg(&c);
    c.op_pcent = -1;
    c.devsz_mb = 1950;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "devsz_mb=1950");
    CHECK_STR(err, "devsz_mb <= 1935");
    c.devsz_mb = 1935;
    CHECK(refuse(&c, err, sizeof(err)) == 0);
    /* 1936 MiB = 495616 pages = exactly the 121 lines below the threshold
     * less the open one: refused, one page must stay invalid */
    c.devsz_mb = 1936;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    /*
     * FDP: every handle keeps a host reclaim unit open, plus the GC units
     * the FTL lets be open at once: one per handle when they fit, else
     * the room left minus one per-handle units and one shared overflow
     * unit.  The default geometry: 244 lines below the forced-GC
     * threshold, 16 of them for the data, so 128 handles fit (with 99 GC
     * units + the overflow unit) and at most 227 would.
     */
    ftl_config_default(&c);
    c.fdp_nruh = 128;
    CHECK(refuse(&c, err, sizeof(err)) == 0);
    CHECK_EQ(ftl_fdp_gc_units(&c), 99);
    CHECK_EQ(ftl_fdp_gc_overflow(&c), 1);
    CHECK_EQ(ftl_reserve_open_lines(&c), 228);
    c.fdp_nruh = 100;
    CHECK_EQ(ftl_fdp_gc_units(&c), 100);
    CHECK_EQ(ftl_fdp_gc_overflow(&c), 0);
    c.fdp_nruh = 227;
    CHECK(refuse(&c, err, sizeof(err)) == 0);
    CHECK_EQ(ftl_fdp_gc_units(&c), 0);
    CHECK_EQ(ftl_fdp_gc_overflow(&c), 1);
    c.fdp_nruh = 228;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "fdp.nruh=228 leaves too little spare for GC");
    CHECK_STR(err, "at most fdp.nruh=227 fits");
    /*
     * the tutorial-04 geometry (64 lines, op_pcent=25: 61 below the
     * threshold, 52 for the data): 8 handles with the overflow GC unit
     * only, not 9; 2 handles keep a GC unit each
     */
    tut04_cfg(&c, 2);
    c.op_pcent = 25;
    CHECK(refuse(&c, err, sizeof(err)) == 0);
    CHECK_EQ(ftl_fdp_gc_units(&c), 2);
    CHECK_EQ(ftl_fdp_gc_overflow(&c), 0);
    c.fdp_nruh = 8;
    CHECK(refuse(&c, err, sizeof(err)) == 0);
    CHECK_EQ(ftl_fdp_gc_units(&c), 0);
    CHECK_EQ(ftl_fdp_gc_overflow(&c), 1);
    c.fdp_nruh = 9;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "fdp.nruh=9");
    CHECK_STR(err, "at most fdp.nruh=8 fits");
    /* more open units than lines below the threshold: named as fdp.nruh */
    c.fdp_nruh = 70;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "fdp.nruh=70");
    /* too few lines for the threshold */
    small_cfg(&c);
    c.blks_per_pl = 2;
    c.op_pcent = 50;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "blks_per_pl=2");
}

static void test_bad_configs(void)
{
    static const char *const zero[] = { "nchs", "luns_per_ch", "pls_per_lun",
                                        "blks_per_pl", "pgs_per_blk",
                                        "secs_per_pg" };
    struct ftl_config c;
    char err[512], want[64];

    for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++) {
        small_cfg(&c);
        switch (i) {
        case 0: c.nchs = 0; break;
        case 1: c.luns_per_ch = 0; break;
        case 2: c.pls_per_lun = 0; break;
        case 3: c.blks_per_pl = 0; break;
        case 4: c.pgs_per_blk = 0; break;
        default: c.secs_per_pg = 0; break;
        }
        CHECK(refuse(&c, err, sizeof(err)) < 0);
        snprintf(want, sizeof(want), "%s=0", zero[i]);
        CHECK_STR(err, want);
    }
    small_cfg(&c);
    c.secsz = 1024;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "secsz=1024");
    /* a logical block must fit in a NAND page */
    small_cfg(&c);
    c.secsz = 4096;
    c.secs_per_pg = 4;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "secsz=4096");
    small_cfg(&c);
    c.secsz = 4096;
    c.secs_per_pg = 12;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "secsz=4096");
    /* namespace larger than the NAND */
    small_cfg(&c);
    c.devsz_mb = 9;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "devsz_mb=9");
    CHECK_STR(err, "8 MiB");
    small_cfg(&c);
    c.devsz_mb = 0;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "devsz_mb=0");
    /* geometry overflow: more NAND pages than 32-bit addresses */
    small_cfg(&c);
    c.nchs = 65536;
    c.luns_per_ch = 65536;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "nchs x luns_per_ch");
    small_cfg(&c);
    c.blks_per_pl = UINT32_MAX;
    c.pgs_per_blk = UINT32_MAX;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    /* thresholds */
    small_cfg(&c);
    c.gc_thres_pcent = 0;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "gc_thres_pcent=0");
    small_cfg(&c);
    c.gc_thres_pcent = 80;
    c.gc_thres_pcent_high = 70;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "gc_thres_pcent_high=70");
    small_cfg(&c);
    c.gc_thres_pcent_high = 101;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    small_cfg(&c);
    c.gc_thres_pcent_high = 100; /* leaves no free line for GC */
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    small_cfg(&c);
    c.gc_policy = (enum ftl_gc_policy)7;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "gc_policy");
    small_cfg(&c);
    c.fdp_nruh = 2;
    c.fdp_nru = 0;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "fdp.nru");
    small_cfg(&c);
    c.op_pcent = -5;
    CHECK(refuse(&c, err, sizeof(err)) < 0);
    /* a NULL error buffer is allowed */
    CHECK(ftl_config_validate(&c, NULL, 0) < 0);
}

static void test_policy_names(void)
{
    CHECK_EQ(ftl_gc_policy_from_name("greedy"), FTL_GC_GREEDY);
    CHECK_EQ(ftl_gc_policy_from_name("cost-benefit"), 1); /* gc_strategy=1 */
    CHECK_EQ(ftl_gc_policy_from_name("fifo"), FTL_GC_FIFO);
    CHECK_EQ(ftl_gc_policy_from_name("random"), FTL_GC_RANDOM);
    CHECK_EQ(ftl_gc_policy_from_name("d-choice"), FTL_GC_DCHOICE);
    CHECK(ftl_gc_policy_from_name("lru") < 0);
    for (int p = 0; p <= FTL_GC_DCHOICE; p++) {
        CHECK_EQ(ftl_gc_policy_from_name(
                     ftl_gc_policy_name((enum ftl_gc_policy)p)), p);
    }
}

int main(void)
{
    RUN(test_sizing);
    RUN(test_reserve);
    RUN(test_bad_configs);
    RUN(test_policy_names);
    return test_done("test-geometry");
}
