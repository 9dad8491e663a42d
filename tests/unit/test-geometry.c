/*
 * Geometry, namespace sizing and configuration checks.
 */
#include <stdarg.h>
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

static void accepted(const struct ftl_config *c)
{
    char err[512];

    CHECK(refuse(c, err, sizeof(err)) == 0);
}

/* c refused, the message saying each of the strings up to a NULL */
static void refused(const struct ftl_config *c, ...)
{
    char err[512];
    const char *want;
    va_list ap;

    CHECK(refuse(c, err, sizeof(err)) < 0);
    va_start(ap, c);
    while ((want = va_arg(ap, const char *)) != NULL) {
        CHECK_STR(err, want);
    }
    va_end(ap);
}

/* c with fdp.nruh=nruh: accepted, units GC units open at once per handle
 * and overflow shared overflow units */
static void fdp_fits(struct ftl_config *c, uint32_t nruh, uint32_t units,
                     uint32_t overflow)
{
    c->fdp_nruh = nruh;
    accepted(c);
    CHECK_EQ(ftl_fdp_gc_units(c), units);
    CHECK_EQ(ftl_fdp_gc_overflow(c), overflow);
}

static void test_reserve(void)
{
    struct ftl_config c;

    /* on the 2 GiB example 7% spare is accepted, 5% refused; with the one
     * shared write pointer 6% is the smallest */
    tut02_cfg(&c);
    c.op_pcent = 7;
    accepted(&c);
    c.op_pcent = 5;
    refused(&c, "op_pcent=5", "minus 1 open write lines", "op_pcent >= 6",
            NULL);
    c.op_pcent = 6;
    accepted(&c);
    c.op_pcent = 0;
    refused(&c, "op_pcent=0", NULL);
    /* a lower forced threshold needs more spare */
    c.op_pcent = 7;
    c.gc_thres_pcent_high = 90;
    refused(&c, "gc_thres_pcent_high=90", NULL);
    /* hot/cold (hot and cold lines, GC in the cold one) and gc_own_line
     * each need one more open line than the default, both together two */
    tut02_cfg(&c);
    c.op_pcent = 6;
    c.hot_cold_sep = true;
    refused(&c, "minus 2 open write lines", NULL);
    c.op_pcent = 7;
    accepted(&c);
    c.hot_cold_sep = false;
    c.gc_own_line = true;
    accepted(&c);
    c.op_pcent = 6;
    refused(&c, NULL);
    c.op_pcent = 7;
    c.hot_cold_sep = true;
    refused(&c, "minus 3 open write lines", NULL);
    c.op_pcent = 8;
    accepted(&c);
    /* devsz_mb: 2 GiB NAND, the limit is named in MiB */
    tut02_cfg(&c);
    c.op_pcent = -1;
    c.devsz_mb = 1950;
    refused(&c, "devsz_mb=1950", "devsz_mb <= 1935", NULL);
    c.devsz_mb = 1935;
    accepted(&c);
    /* 1936 MiB = 495616 pages = exactly the 121 lines below the threshold
     * less the open one: refused, one page must stay invalid */
    c.devsz_mb = 1936;
    refused(&c, NULL);
    /*
     * FDP: every handle keeps a host reclaim unit open, plus the GC units
     * the FTL lets be open at once: one per handle when they fit, else
     * the room left minus one per-handle units and one shared overflow
     * unit.  The default geometry: 244 lines below the forced-GC
     * threshold, 16 of them for the data, so 128 handles fit (with 99 GC
     * units + the overflow unit) and at most 227 would.
     */
    ftl_config_default(&c);
    fdp_fits(&c, 128, 99, 1);
    CHECK_EQ(ftl_reserve_open_lines(&c), 228);
    fdp_fits(&c, 100, 100, 0);
    fdp_fits(&c, 227, 0, 1);
    c.fdp_nruh = 228;
    refused(&c, "fdp.nruh=228 leaves too little spare for GC",
            "at most fdp.nruh=227 fits", NULL);
    /*
     * the tutorial-04 geometry (64 lines, op_pcent=25: 61 below the
     * threshold, 52 for the data): 8 handles with the overflow GC unit
     * only, not 9; 2 handles keep a GC unit each
     */
    tut04_cfg(&c, 2);
    c.op_pcent = 25;
    fdp_fits(&c, 2, 2, 0);
    fdp_fits(&c, 8, 0, 1);
    c.fdp_nruh = 9;
    refused(&c, "fdp.nruh=9", "at most fdp.nruh=8 fits", NULL);
    /* more open units than lines below the threshold: named as fdp.nruh */
    c.fdp_nruh = 70;
    refused(&c, "fdp.nruh=70", NULL);
    /* too few lines for the threshold */
    small_cfg(&c);
    c.blks_per_pl = 2;
    c.op_pcent = 50;
    refused(&c, "blks_per_pl=2", NULL);
}

/* small_cfg with up to two fields changed: refused, the message naming
 * what it says in want (each that is set) */
static void test_bad_configs(void)
{
    static const struct {
        struct cfg_set set[2];
        const char *want[2];
    } bad[] = {
        { { CFG_SET(nchs, 0) }, { "nchs=0" } },
        { { CFG_SET(luns_per_ch, 0) }, { "luns_per_ch=0" } },
        { { CFG_SET(pls_per_lun, 0) }, { "pls_per_lun=0" } },
        { { CFG_SET(blks_per_pl, 0) }, { "blks_per_pl=0" } },
        { { CFG_SET(pgs_per_blk, 0) }, { "pgs_per_blk=0" } },
        { { CFG_SET(secs_per_pg, 0) }, { "secs_per_pg=0" } },
        { { CFG_SET(secsz, 1024) }, { "secsz=1024" } },
        /* a logical block must fit in a NAND page */
        { { CFG_SET(secsz, 4096), CFG_SET(secs_per_pg, 4) }, { "secsz=4096" } },
        { { CFG_SET(secsz, 4096), CFG_SET(secs_per_pg, 12) },
          { "secsz=4096" } },
        /* namespace larger than the NAND */
        { { CFG_SET(devsz_mb, 9) }, { "devsz_mb=9", "8 MiB" } },
        { { CFG_SET(devsz_mb, 0) }, { "devsz_mb=0" } },
        /* geometry overflow: more NAND pages than 32-bit addresses */
        { { CFG_SET(nchs, 65536), CFG_SET(luns_per_ch, 65536) },
          { "nchs x luns_per_ch" } },
        { { CFG_SET(blks_per_pl, UINT32_MAX),
            CFG_SET(pgs_per_blk, UINT32_MAX) } },
        /* thresholds */
        { { CFG_SET(gc_thres_pcent, 0) }, { "gc_thres_pcent=0" } },
        { { CFG_SET(gc_thres_pcent, 80), CFG_SET(gc_thres_pcent_high, 70) },
          { "gc_thres_pcent_high=70" } },
        { { CFG_SET(gc_thres_pcent_high, 101) } },
        /* leaves no free line for GC */
        { { CFG_SET(gc_thres_pcent_high, 100) } },
        { { CFG_SET(gc_policy, 7) }, { "gc_policy" } },
        { { CFG_SET(fdp_nruh, 2), CFG_SET(fdp_nru, 0) }, { "fdp.nru" } },
        { { CFG_SET(op_pcent, -5) } },
    };
    struct ftl_config c;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int before = test_failures;

        small_cfg(&c);
        for (int k = 0; k < 2; k++) {
            cfg_apply(&c, &bad[i].set[k]);
        }
        refused(&c, bad[i].want[0], bad[i].want[1], NULL);
        if (test_failures != before) {
            fprintf(stderr, "  (bad config %zu: %s=%" PRId64 ")\n", i,
                    bad[i].set[0].name, bad[i].set[0].val);
        }
    }
    /* a NULL error buffer is allowed (op_pcent=-5) */
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
