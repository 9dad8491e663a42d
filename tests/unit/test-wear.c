/*
 * Wear and bad blocks (hw/femu/ftl/wear.c): erase counts, Percentage
 * Used, factory and grown bad blocks, the spare and read-only media,
 * static wear leveling.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdlib.h>

#include "test.h"

/* One 4 KiB-page write: a hot tenth of the space gets hot_pct percent of
 * the writes (0: uniform). */
static uint64_t write_one(struct ftl *f, uint64_t *rs, uint32_t hot_pct,
                          uint64_t now)
{
    uint64_t r = ftl_rng_next(rs);
    uint32_t lp = (uint32_t)f->lpages, lpn;
    uint64_t done;

    if (hot_pct && (r & 0xff) * 100 / 256 < hot_pct) {
        lpn = (uint32_t)((r >> 8) % (lp / 10));
    } else {
        lpn = (uint32_t)((r >> 8) % lp);
    }
    done = ftl_write(f, (uint64_t)lpn * f->blocks_per_page,
                     f->blocks_per_page, FTL_PID_NONE, now);
    ftl_background_gc(f, now);
    return done;
}

static void fill(struct ftl *f, uint64_t now)
{
    for (uint32_t lpn = 0; lpn < f->lpages; lpn++) {
        CHECK(ftl_write(f, (uint64_t)lpn * f->blocks_per_page,
                        f->blocks_per_page, FTL_PID_NONE, now) !=
              FTL_TIME_ERROR);
    }
}

/* The defaults: 3000 P/E cycles, no bad block, no wear leveling. */
static void test_defaults(void)
{
    struct ftl_config c;

    ftl_config_default(&c);
    CHECK_EQ(c.pe_cycles, 3000);
    CHECK_EQ(c.nand_bad_blocks, 0);
    CHECK_EQ(c.wear_leveling, false);
    CHECK_EQ(c.wl_threshold, 100);
}

/* Every GC erase counts once on its line; the counts add up to the lines
 * collected, Percentage Used is their mean over pe_cycles. */
static void test_erase_counts(void)
{
    struct ftl_config c;
    struct ftl *f;
    struct ftl_wear_info w;
    struct ftl_counters k;
    uint64_t rs = 5, sum = 0;
    uint32_t last_pct = 0, rises = 0;

    small_cfg(&c);
    c.pe_cycles = 50;
    f = must_new(&c);
    ftl_get_wear(f, &w);
    CHECK_EQ(w.erase_max, 0);
    CHECK_EQ(w.pct_used, 0);
    fill(f, 0);
    for (int round = 0; round < 8; round++) {
        for (uint32_t i = 0; i < f->lpages; i++) {
            CHECK(write_one(f, &rs, 0, 0) != FTL_TIME_ERROR);
        }
        ftl_get_wear(f, &w);
        if (w.pct_used > last_pct) {
            rises++;
        }
        CHECK(w.pct_used >= last_pct);
        last_pct = w.pct_used;
    }
    CHECK_INVARIANTS(f);
    ftl_get_counters(f, &k);
    for (uint32_t i = 0; i < f->ln.nlines; i++) {
        sum += ftl_line_erases(f, i);
    }
    CHECK(k.gc_lines_collected > 0);
    CHECK_EQ(sum, k.gc_lines_collected);
    CHECK_EQ(k.blocks_erased, sum * f->blks_per_line);
    ftl_get_wear(f, &w);
    CHECK_EQ(w.pct_used, sum * 100 / ((uint64_t)f->ln.nlines * 50));
    CHECK(fabs(w.erase_mean - (double)sum / f->ln.nlines) < 1e-9);
    CHECK(w.erase_min <= w.erase_mean && w.erase_mean <= w.erase_max);
    CHECK(rises >= 4);
    CHECK_EQ(w.retired_lines, 0);
    CHECK_EQ(w.spare_pcent, 100);
    CHECK(!w.read_only);
    printf("# 8 overwrites of 4 MiB: erase counts %u..%u, mean %.2f, "
           "percentage used %u at pe_cycles=50\n", w.erase_min, w.erase_max,
           w.erase_mean, w.pct_used);
    ftl_free(f);
}

/* The spare is the largest number of retired lines the reserve rule
 * (docs/ftl-reserve.md) accepts: checked against the rule by brute force. */
static void test_spare_lines(void)
{
    static const struct { uint32_t blks, pgs; int32_t op; bool hc; } g[] = {
        { 32, 16, 25, false }, { 32, 16, 7, false }, { 64, 8, 50, true },
        { 128, 16, 25, false }, { 40, 16, 100, false },
    };

    for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
        struct ftl_config c;
        struct ftl *f;
        uint64_t high, open, cap;
        uint32_t r = 0;

        geo_cfg(&c, 2, 2, g[i].blks);
        c.pgs_per_blk = g[i].pgs;
        c.op_pcent = g[i].op;
        c.hot_cold_sep = g[i].hc;
        f = must_new(&c);
        high = f->thres_high_lines;
        open = g[i].hc ? 2 : 1;
        /* largest r with lpages <= (high - r - open) x ppl - 1 */
        while (high > r + 1 + open &&
               (cap = (high - (r + 1) - open) * f->ppl - 1) >= f->lpages) {
            r++;
        }
        CHECK_EQ(ftl_cfg_spare_lines(&c), r);
        ftl_free(f);
    }
}

/* Factory bad blocks: drawn from the seed, their lines never written;
 * more than the spare holds is refused naming the property. */
static void test_factory_bad(void)
{
    struct ftl_config c;
    struct ftl *f, *g;
    struct ftl_wear_info w;
    char err[512];
    uint64_t rs = 9;
    uint32_t bad = 0, spare;

    small_cfg(&c);
    c.devsz_mb = 3;
    spare = ftl_cfg_spare_lines(&c);
    CHECK(spare >= 4);
    c.nand_bad_blocks = 3;
    f = must_new(&c);
    g = must_new(&c);
    ftl_get_wear(f, &w);
    CHECK_EQ(w.factory_bad_blocks, 3);
    CHECK(w.retired_lines >= 1 && w.retired_lines <= 3);
    CHECK_EQ(w.spare_pcent, (spare - w.retired_lines) * 100 / spare);
    CHECK_EQ(ftl_free_lines(f), f->ln.nlines - w.retired_lines);
    for (uint32_t i = 0; i < f->ln.nlines; i++) {
        bad += f->ln.line[i].state == FTL_LINE_BAD;
        /* the same seed, the same blocks */
        CHECK_EQ(f->wear.bad[i], g->wear.bad[i]);
    }
    CHECK_EQ(bad, w.retired_lines);
    fill(f, 0);
    for (uint32_t i = 0; i < 4 * f->lpages; i++) {
        CHECK(write_one(f, &rs, 0, 0) != FTL_TIME_ERROR);
    }
    CHECK_INVARIANTS(f);
    /* no page was ever placed on a retired line */
    for (uint32_t i = 0; i < f->ln.nlines; i++) {
        if (f->wear.bad[i] == FTL_BAD_FACTORY) {
            CHECK_EQ(f->ln.line[i].state, FTL_LINE_BAD);
            CHECK_EQ(ftl_line_erases(f, i), 0);
            for (uint32_t s = 0; s < f->ppl; s++) {
                CHECK(!ftl_page_valid(f, i * f->ppl + s));
            }
        } else {
            CHECK(ftl_line_erases(f, i) > 0);
        }
    }
    ftl_free(f);
    ftl_free(g);

    /* another seed, other blocks (for these two seeds) */
    c.seed = 2;
    f = must_new(&c);
    c.seed = 1;
    g = must_new(&c);
    CHECK(memcmp(f->wear.bad, g->wear.bad, f->ln.nlines) != 0);
    ftl_free(f);
    ftl_free(g);

    /* beyond the spare: refused, naming the property */
    c.nand_bad_blocks = spare * f->blks_per_line + 1;
    CHECK(ftl_new(&c, err, sizeof(err)) == NULL);
    CHECK_STR(err, "nand_bad_blocks=");
    CHECK_STR(err, "spare");
    c.nand_bad_blocks = spare + 1;   /* in more lines than the spare */
    f = ftl_new(&c, err, sizeof(err));
    if (f) {
        /* only if two fell on one line */
        ftl_get_wear(f, &w);
        CHECK(w.retired_lines <= spare);
        ftl_free(f);
    } else {
        CHECK_STR(err, "nand_bad_blocks=");
    }
    c.nand_bad_blocks = 0;
    c.pe_cycles = 0;
    CHECK(ftl_new(&c, err, sizeof(err)) == NULL);
    CHECK_STR(err, "pe_cycles=0");
}

/* Worn-out lines retire at their next erase; the spare shrinks; past it
 * the FTL is read-only: writes fail, reads go on, no GC runs. */
static void test_grown_read_only(void)
{
    struct ftl_config c;
    struct ftl *f;
    struct ftl_wear_info w;
    struct ftl_counters k1, k2;
    uint64_t rs = 3, writes = 0;
    uint32_t last_spare = 100, spare_drops = 0;

    small_cfg(&c);
    c.devsz_mb = 3;
    c.pe_cycles = 10;
    f = must_new(&c);
    fill(f, 0);
    for (;;) {
        uint64_t t = write_one(f, &rs, 0, 0);

        writes++;
        ftl_get_wear(f, &w);
        CHECK(w.spare_pcent <= last_spare);
        spare_drops += w.spare_pcent < last_spare;
        last_spare = w.spare_pcent;
        if (t == FTL_TIME_ERROR || writes > 10000000) {
            break;
        }
    }
    CHECK(w.read_only);
    CHECK(ftl_read_only(f));
    CHECK_EQ(w.spare_pcent, 0);
    CHECK(spare_drops >= 2);
    /* past the spare, or at it when a line retired inside forced GC
     * left no free line */
    CHECK(w.retired_lines >= w.spare_lines &&
          w.retired_lines <= w.spare_lines + 1);
    CHECK_EQ(w.grown_bad_blocks, w.retired_lines * f->blks_per_line);
    CHECK(w.pct_used >= 90);
    CHECK_INVARIANTS(f);
    /* every line retired was worn out */
    for (uint32_t i = 0; i < f->ln.nlines; i++) {
        if (f->ln.line[i].state == FTL_LINE_BAD) {
            CHECK_EQ(ftl_line_erases(f, i), 10);
        }
        CHECK(ftl_line_erases(f, i) <= 10);
    }
    ftl_get_counters(f, &k1);
    CHECK(ftl_write(f, 0, f->blocks_per_page, FTL_PID_NONE, 0) ==
          FTL_TIME_ERROR);
    CHECK(ftl_read(f, 0, f->blocks_per_page, 0) != FTL_TIME_ERROR);
    ftl_background_gc(f, 0);
    ftl_get_counters(f, &k2);
    CHECK_EQ(k1.host_pages_written, k2.host_pages_written);
    CHECK_EQ(k1.gc_lines_collected, k2.gc_lines_collected);
    CHECK_EQ(k2.host_pages_read, k1.host_pages_read + 1);
    printf("# pe_cycles=10: read-only after %llu writes, %u lines retired "
           "(spare %u), percentage used %u\n", (unsigned long long)writes,
           w.retired_lines, w.spare_lines, w.pct_used);
    ftl_free(f);
}

/* A hot tenth of the space and cold data elsewhere: with wear leveling
 * the spread of erase counts is smaller. */
static void wl_run(bool on, struct ftl_wear_info *w, struct ftl_counters *k)
{
    struct ftl_config c;
    struct ftl *f;
    uint64_t rs = 21;

    small_cfg(&c);
    c.devsz_mb = 5;
    c.pe_cycles = 100000;
    c.wear_leveling = on;
    c.wl_threshold = 8;
    f = must_new(&c);
    fill(f, 0);
    for (uint32_t i = 0; i < 30 * f->lpages; i++) {
        /* all writes to the hot tenth: the rest stays cold */
        CHECK(write_one(f, &rs, 100, 0) != FTL_TIME_ERROR);
    }
    CHECK_INVARIANTS(f);
    ftl_get_wear(f, w);
    ftl_get_counters(f, k);
    ftl_free(f);
}

static void test_wear_leveling(void)
{
    struct ftl_wear_info off, on;
    struct ftl_counters koff, kon;

    wl_run(false, &off, &koff);
    wl_run(true, &on, &kon);
    printf("# skewed writes: spread %u (stddev %.2f) off, %u (stddev %.2f) "
           "on, %llu lines moved\n", off.erase_max - off.erase_min,
           off.erase_stddev, on.erase_max - on.erase_min, on.erase_stddev,
           (unsigned long long)on.wl_lines_moved);
    CHECK_EQ(off.wl_lines_moved, 0);
    CHECK(on.wl_lines_moved > 0);
    CHECK(off.erase_max - off.erase_min > 8 + 1);
    CHECK(on.erase_max - on.erase_min < off.erase_max - off.erase_min);
    CHECK(on.erase_stddev < off.erase_stddev);
    /* the same host writes */
    CHECK_EQ(on.factory_bad_blocks, 0);
    CHECK_EQ(koff.host_pages_written, kon.host_pages_written);
}

int main(void)
{
    RUN(test_defaults);
    RUN(test_erase_counts);
    RUN(test_spare_lines);
    RUN(test_factory_bad);
    RUN(test_grown_read_only);
    RUN(test_wear_leveling);
    return test_done("test-wear");
}
