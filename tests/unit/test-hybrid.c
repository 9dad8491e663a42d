/*
 * mapping=hybrid (BAST) and mapping=fast (FAST): each merge kind on a
 * tiny geometry with its page copies and erases worked out by hand, their
 * NAND time, the invariants through random writes and trims, and the
 * configurations refused.
 *
 * The geometry: 1 channel x 1 LUN x 64 blocks of 4 pages of 4 KiB (one
 * block per line), op_pcent 25: 205 logical pages (256 / 1.25, rounded
 * up) in 52 logical blocks, lbn = lpn / 4, offset lpn % 4.  Physical blocks are taken from a FIFO of
 * erased blocks, 0, 1, 2, ... first.
 */
#include <stdlib.h>

#include "test.h"

static void tiny_cfg(struct ftl_config *c, enum ftl_mapping m, uint32_t logs)
{
    geo_cfg(c, 1, 1, 64);
    c->pgs_per_blk = 4;
    c->op_pcent = 25;
    c->mapping = m;
    c->log_blocks = logs;
}

/* Write logical pages lpn[0..n-1] one after the other, far apart. */
static void wseq(struct ftl *f, const uint32_t *lpn, int n, uint64_t *t)
{
    for (int i = 0; i < n; i++) {
        CHECK(wpage(f, lpn[i], *t) != FTL_TIME_ERROR);
        *t += 100000000;
    }
}

static void fill(struct ftl *f, uint32_t lbn, uint64_t *t)
{
    uint32_t p[4] = { lbn * 4, lbn * 4 + 1, lbn * 4 + 2, lbn * 4 + 3 };

    wseq(f, p, 4, t);
}

static struct ftl_counters ctr(struct ftl *f)
{
    struct ftl_counters k;

    ftl_get_counters(f, &k);
    return k;
}

static void test_geometry(void)
{
    struct ftl_config c;
    struct ftl *f;

    tiny_cfg(&c, FTL_MAP_HYBRID, 2);
    f = must_new(&c);
    CHECK_EQ(f->lpages, 205);
    CHECK_EQ(f->hyb.nlbn, 52);
    CHECK_EQ(f->hyb.nblk, 64);
    CHECK_EQ(f->hyb.nfree, 64);
    CHECK_EQ(ftl_mapped_pages(f), 0);
    ftl_free(f);
    /* the default keeps no log-block state */
    c.mapping = FTL_MAP_PAGE;
    f = must_new(&c);
    CHECK(!f->hyb.on);
    CHECK_EQ(c.log_blocks, 2);
    ftl_free(f);
    ftl_config_default(&c);
    CHECK_EQ(c.log_blocks, FTL_DEFAULT_LOG_BLOCKS);
    CHECK_EQ(c.mapping, FTL_MAP_PAGE);
}

/*
 * BAST switch merge.  Filling lbn 0 (lpn 0..3) programs data block 0 in
 * place: 4 pages, no merge.  Overwriting lpn 0, 1, 2, 3 in order puts
 * them at pages 0..3 of log block 1; full and in order, it becomes the
 * data block and block 0 (no valid page left) is erased: 1 erase, 0
 * copies, WAF (8 + 0) / 8 = 1.
 */
static void test_bast_switch(void)
{
    struct ftl_config c;
    struct ftl *f;
    struct ftl_counters k;
    uint64_t t = 0;
    uint32_t ow[4] = { 0, 1, 2, 3 };

    tiny_cfg(&c, FTL_MAP_HYBRID, 2);
    f = must_new(&c);
    fill(f, 0, &t);
    k = ctr(f);
    CHECK_EQ(k.host_pages_written, 4);
    CHECK_EQ(k.blocks_erased, 0);
    CHECK_EQ(k.merges_switch + k.merges_partial + k.merges_full, 0);
    CHECK_EQ(f->hyb.data[0], 0);
    wseq(f, ow, 4, &t);
    k = ctr(f);
    CHECK_EQ(k.host_pages_written, 8);
    CHECK_EQ(k.host_pages_programmed, 8);
    CHECK_EQ(k.gc_pages_moved, 0);
    CHECK_EQ(k.blocks_erased, 1);
    CHECK_EQ(k.merges_switch, 1);
    CHECK_EQ(k.merges_partial, 0);
    CHECK_EQ(k.merges_full, 0);
    CHECK_EQ(f->hyb.data[0], 1);
    CHECK_EQ(ftl_waf_x1000(f), 1000);
    CHECK_EQ(ftl_mapped_pages(f), 4);
    CHECK_INVARIANTS(f);
    /* lbn 1 written up to offset 1 (block 2, write pointer 2), then
     * 4..7 in order: offsets 0, 1 go to a log block (3); offsets 2 and 3
     * could go in place but continue the log block, which then holds the
     * whole block in order: a switch merge, block 2 erased, no copy */
    wseq(f, (uint32_t[]){ 4, 5, 4, 5, 6, 7 }, 6, &t);
    k = ctr(f);
    CHECK_EQ(k.merges_switch, 2);
    CHECK_EQ(k.gc_pages_moved, 0);
    CHECK_EQ(k.blocks_erased, 2);
    CHECK_EQ(f->hyb.data[1], 3);
    CHECK_EQ(ftl_waf_x1000(f), 1000);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/*
 * BAST partial merge, one log block.  Fill lbn 0 (block 0) and lbn 1
 * (block 1); overwrite lpn 0, 1: log block 2 holds offsets 0, 1 at
 * pages 0, 1.  Overwriting lpn 4 (lbn 1) needs the only log block: lbn
 * 0's is merged first; it is in order, so the valid pages of offsets 2
 * and 3 (lpn 2, 3, in block 0) are copied to its pages 2 and 3 and block
 * 0 is erased: 2 copies, 1 erase.  Host pages 4 + 4 + 2 + 1 = 11, WAF
 * (11 + 2) / 11 = 1.181.
 */
static void test_bast_partial(void)
{
    struct ftl_config c;
    struct ftl *f;
    struct ftl_counters k;
    uint64_t t = 0;
    uint32_t ow[3] = { 0, 1, 4 };

    tiny_cfg(&c, FTL_MAP_HYBRID, 1);
    f = must_new(&c);
    fill(f, 0, &t);
    fill(f, 1, &t);
    wseq(f, ow, 3, &t);
    k = ctr(f);
    CHECK_EQ(k.host_pages_written, 11);
    CHECK_EQ(k.gc_pages_moved, 2);
    CHECK_EQ(k.blocks_erased, 1);
    CHECK_EQ(k.merges_partial, 1);
    CHECK_EQ(k.merges_switch + k.merges_full, 0);
    CHECK_EQ(f->hyb.data[0], 2);
    /* lpn 2 was copied to page 2 of block 2 */
    CHECK_EQ(ftl_map_get(f, 2), 2 * 4 + 2);
    CHECK_EQ(ftl_waf_x1000(f), 13000 / 11);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/*
 * BAST full merge.  As above, but lpn 1 then lpn 0: the log block (2)
 * holds offset 1 at page 0, out of order.  Overwriting lpn 4 merges it
 * into a new block (3): lpn 0 and 1 from the log, 2 and 3 from block 0:
 * 4 copies; blocks 0 and 2 are erased: 2 erases.  WAF (11 + 4) / 11.
 * Then a log block written out of order to the end is merged at once:
 * lpn 7, 6, 5 after lpn 4 (lbn 1's log, block 4) fill it; a full merge
 * copies lpn 4..7 (4 copies) and erases block 1 and the log: 2 more.
 */
static void test_bast_full(void)
{
    struct ftl_config c;
    struct ftl *f;
    struct ftl_counters k;
    uint64_t t = 0;
    uint32_t ow[3] = { 1, 0, 4 }, ow2[3] = { 7, 6, 5 };

    tiny_cfg(&c, FTL_MAP_HYBRID, 1);
    f = must_new(&c);
    fill(f, 0, &t);
    fill(f, 1, &t);
    wseq(f, ow, 3, &t);
    k = ctr(f);
    CHECK_EQ(k.host_pages_written, 11);
    CHECK_EQ(k.gc_pages_moved, 4);
    CHECK_EQ(k.blocks_erased, 2);
    CHECK_EQ(k.merges_full, 1);
    CHECK_EQ(k.merges_switch + k.merges_partial, 0);
    CHECK_EQ(f->hyb.data[0], 3);
    CHECK_EQ(ftl_waf_x1000(f), 15000 / 11);
    CHECK_INVARIANTS(f);
    wseq(f, ow2, 3, &t);
    k = ctr(f);
    CHECK_EQ(k.host_pages_written, 14);
    CHECK_EQ(k.gc_pages_moved, 8);
    CHECK_EQ(k.blocks_erased, 4);
    CHECK_EQ(k.merges_full, 2);
    CHECK_EQ(f->hyb.log_of[1], FTL_NONE);
    CHECK_EQ(ftl_mapped_pages(f), 8);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/*
 * NAND time of a full merge (one LUN, gc_delay on): the write of lpn 4
 * waits for 4 copies (read 40 us + program 200 us each, one after the
 * other on the LUN), two erases (2 ms each), then its own 200 us
 * program: 4 x 240 + 2 x 2000 + 200 = 5160 us.  With gc_delay off the
 * merge is counted but takes no NAND time: 200 us.
 */
static void test_merge_time(void)
{
    struct ftl_config c;
    struct ftl *f;
    uint64_t t = 0;
    uint32_t ow[2] = { 1, 0 };

    for (int delay = 1; delay >= 0; delay--) {
        tiny_cfg(&c, FTL_MAP_HYBRID, 1);
        f = must_new(&c);
        ftl_set_gc_delay(f, delay);
        t = 0;
        fill(f, 0, &t);
        fill(f, 1, &t);
        wseq(f, ow, 2, &t);
        CHECK_EQ(wpage(f, 4, t) - t, delay ? 5160000 : 200000);
        CHECK_EQ(ctr(f).merges_full, 1);
        /* a read of a page in the new data block: 40 us */
        t += 100000000;
        CHECK_EQ(ftl_read(f, 0, 8, t) - t, 40000);
        ftl_free(f);
    }
}

/*
 * FAST, one random-log block.  Fill lbn 0, 1, 2 (blocks 0, 1, 2).
 * Switch: lpn 0..3 again go to the sequential log block (3), which
 * becomes lbn 0's data block; block 0 is erased: 1 erase, 0 copies.
 * Random: lpn 5, 9, 6, 10 fill the random log block (4).
 * lpn 7 finds the random log full: its oldest block is reclaimed.  Page
 * 0 holds lpn 5: full merge of lbn 1 into a new block: lpn 4, 7 from
 * block 1, 5, 6 from the log: 4 copies, block 1 erased.  Page 1 holds
 * lpn 9: full merge of lbn 2: lpn 8, 11 from block 2, 9, 10 from the
 * log: 4 copies, block 2 erased.  Pages 2, 3 (lpn 6, 10) are no longer
 * valid; the log block is erased.  So: 2 full merges, 8 copies, 3
 * erases; lpn 7 then goes to a fresh random-log block.  Host pages
 * 12 + 4 + 5 = 21, WAF (21 + 8) / 21.
 */
static void test_fast_switch_full(void)
{
    struct ftl_config c;
    struct ftl *f;
    struct ftl_counters k;
    uint64_t t = 0;
    uint32_t sw[4] = { 0, 1, 2, 3 }, rw[5] = { 5, 9, 6, 10, 7 };

    tiny_cfg(&c, FTL_MAP_FAST, 1);
    f = must_new(&c);
    fill(f, 0, &t);
    fill(f, 1, &t);
    fill(f, 2, &t);
    wseq(f, sw, 4, &t);
    k = ctr(f);
    CHECK_EQ(k.merges_switch, 1);
    CHECK_EQ(k.blocks_erased, 1);
    CHECK_EQ(k.gc_pages_moved, 0);
    CHECK_EQ(f->hyb.data[0], 3);
    CHECK_EQ(ftl_waf_x1000(f), 1000);
    wseq(f, rw, 4, &t);
    k = ctr(f);
    CHECK_EQ(k.merges_full, 0);
    CHECK_EQ(f->hyb.rw_n, 1);
    CHECK_INVARIANTS(f);
    wseq(f, rw + 4, 1, &t);
    k = ctr(f);
    CHECK_EQ(k.host_pages_written, 21);
    CHECK_EQ(k.merges_full, 2);
    CHECK_EQ(k.merges_switch, 1);
    CHECK_EQ(k.merges_partial, 0);
    CHECK_EQ(k.gc_pages_moved, 8);
    CHECK_EQ(k.blocks_erased, 4);
    CHECK_EQ(ftl_waf_x1000(f), 29000 / 21);
    CHECK_EQ(f->hyb.rw_n, 1);
    CHECK_EQ(ftl_mapped_pages(f), 12);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/*
 * FAST partial merge.  Fill lbn 0..2; lpn 0, 1 go to the sequential log
 * block (3).  lpn 8 starts a new run (offset 0 of lbn 2): the sequential
 * block is merged first: in order, so lpn 2, 3 are copied from block 0
 * to its pages 2, 3 and block 0 is erased: 2 copies, 1 erase.  Host
 * pages 12 + 3 = 15, WAF (15 + 2) / 15.
 */
static void test_fast_partial(void)
{
    struct ftl_config c;
    struct ftl *f;
    struct ftl_counters k;
    uint64_t t = 0;
    uint32_t ow[3] = { 0, 1, 8 };

    tiny_cfg(&c, FTL_MAP_FAST, 1);
    f = must_new(&c);
    fill(f, 0, &t);
    fill(f, 1, &t);
    fill(f, 2, &t);
    wseq(f, ow, 3, &t);
    k = ctr(f);
    CHECK_EQ(k.host_pages_written, 15);
    CHECK_EQ(k.merges_partial, 1);
    CHECK_EQ(k.merges_switch + k.merges_full, 0);
    CHECK_EQ(k.gc_pages_moved, 2);
    CHECK_EQ(k.blocks_erased, 1);
    CHECK_EQ(f->hyb.data[0], 3);
    CHECK_EQ(f->hyb.sw_lbn, 2);
    CHECK_EQ(ftl_waf_x1000(f), 17000 / 15);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/* Random writes, trims and reads keep the invariants in both schemes,
 * and every block erased is accounted for: WAF from the counters. */
static void test_random_run(void)
{
    for (int m = FTL_MAP_HYBRID; m <= FTL_MAP_FAST; m++) {
        struct ftl_config c;
        struct ftl *f;
        struct ftl_counters k;
        uint64_t s = 12345, t = 0;

        geo_cfg(&c, 2, 2, 64);
        c.pgs_per_blk = 16;
        c.op_pcent = 25;
        c.mapping = (enum ftl_mapping)m;
        c.log_blocks = 4;
        f = must_new(&c);
        ftl_set_gc_delay(f, true);
        for (uint32_t i = 0; i < 40000; i++) {
            uint32_t lpn = (uint32_t)(ftl_rng_next(&s) % f->lpages);
            uint32_t op = (uint32_t)(ftl_rng_next(&s) % 16);

            if (op == 0) {
                tpage(f, lpn);
            } else if (op == 1) {
                (void)ftl_read(f, (uint64_t)lpn * 8, 8, t);
            } else if (op < 4) {
                /* a short sequential run */
                for (uint32_t j = 0; j < 16 && lpn + j < f->lpages; j++) {
                    CHECK(wpage(f, lpn + j, t) != FTL_TIME_ERROR);
                }
            } else {
                CHECK(wpage(f, lpn, t) != FTL_TIME_ERROR);
            }
            t += 50000;
            if (i % 5000 == 0) {
                CHECK_INVARIANTS(f);
            }
        }
        CHECK_INVARIANTS(f);
        k = ctr(f);
        CHECK(k.merges_full > 0);
        CHECK(k.merges_switch + k.merges_partial > 0);
        CHECK_EQ(ftl_waf_x1000(f), (k.host_pages_programmed +
                                    k.gc_pages_moved) * 1000 /
                                   k.host_pages_written);
        /* each merge erases its old data block, a full merge also the
         * log block (BAST), FAST erases its reclaimed log blocks too */
        CHECK(k.blocks_erased >= k.merges_switch + k.merges_partial +
                                 k.merges_full);
        printf("# %s: switch %llu partial %llu full %llu, moved %llu, "
               "erased %llu, WAF x1000 %u\n", ftl_mapping_name(c.mapping),
               (unsigned long long)k.merges_switch,
               (unsigned long long)k.merges_partial,
               (unsigned long long)k.merges_full,
               (unsigned long long)k.gc_pages_moved,
               (unsigned long long)k.blocks_erased, ftl_waf_x1000(f));
        ftl_free(f);
    }
}

static void test_refused(void)
{
    struct ftl_config c;
    char err[256];

    /* the NAND must hold a data block per logical block + the logs + 1:
     * 64 blocks, 52 logical blocks: BAST up to 11 log blocks, FAST (one
     * more for the sequential log block) 10 */
    tiny_cfg(&c, FTL_MAP_HYBRID, 11);
    CHECK(ftl_config_validate(&c, err, sizeof(err)) == 0);
    c.log_blocks = 12;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "log_blocks=12: mapping=hybrid needs 65 blocks");
    tiny_cfg(&c, FTL_MAP_FAST, 10);
    CHECK(ftl_config_validate(&c, err, sizeof(err)) == 0);
    c.log_blocks = 11;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "log_blocks=11: mapping=fast needs 65 blocks");
    c.log_blocks = 0;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "log_blocks=0");
    tiny_cfg(&c, FTL_MAP_HYBRID, 2);
    c.fdp_nruh = 2;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "mapping=hybrid: not with FDP");
    /* no line reserve: op_pcent 5 (244 pages, 61 logical blocks) is too
     * little spare for page mapping's GC but enough blocks for 61 data
     * blocks, 2 log blocks and the one a full merge takes */
    tiny_cfg(&c, FTL_MAP_PAGE, 2);
    c.op_pcent = 5;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    c.mapping = FTL_MAP_HYBRID;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) == 0);
    c.log_blocks = 3;
    CHECK(ftl_config_validate(&c, err, sizeof(err)) < 0);
    CHECK_STR(err, "log_blocks=3: mapping=hybrid needs 65 blocks (61 data");
    /* the page scheme ignores log_blocks */
    tiny_cfg(&c, FTL_MAP_PAGE, 100);
    CHECK(ftl_config_validate(&c, err, sizeof(err)) == 0);
}

/* With the fewest spare blocks the rule allows (one for a full merge),
 * random overwrites of every page never run out of blocks. */
static void test_tight_spare(void)
{
    for (int m = FTL_MAP_HYBRID; m <= FTL_MAP_FAST; m++) {
        struct ftl_config c;
        struct ftl *f;
        uint64_t s = 99, t = 0;

        tiny_cfg(&c, (enum ftl_mapping)m, m == FTL_MAP_HYBRID ? 11 : 10);
        f = must_new(&c);
        for (uint32_t i = 0; i < 20000; i++) {
            uint32_t lpn = (uint32_t)(ftl_rng_next(&s) % f->lpages);

            CHECK(wpage(f, lpn, t) != FTL_TIME_ERROR);
            if (ftl_rng_next(&s) % 8 == 0) {
                tpage(f, lpn);
            }
            t += 1000000;
        }
        CHECK_INVARIANTS(f);
        ftl_free(f);
    }
}

/*
 * Odd geometries (one-page blocks, two planes, 4 KiB logical blocks,
 * 512-byte and 8 KiB pages, a namespace ending inside a block), the
 * most log blocks the NAND allows: random writes of 1..20 pages, trims
 * and reads never fail, a written page reads from NAND, a trimmed one
 * does not, and the invariants hold.
 */
static void test_geometries(void)
{
    static const struct { uint32_t ch, lun, pl, blk, pg, spp, secsz; } g[] = {
        { 1, 1, 1, 16, 1, 8, 512 },
        { 2, 1, 2, 16, 8, 1, 512 },
        { 1, 2, 1, 24, 16, 8, 4096 },
        { 2, 2, 1, 20, 5, 16, 512 },
    };

    for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
        for (int m = FTL_MAP_HYBRID; m <= FTL_MAP_FAST; m++) {
            struct ftl_config c;
            struct ftl *f;
            char err[256];
            uint64_t s = 7 + i, t = 0, nsb;
            uint32_t bpp;

            geo_cfg(&c, g[i].ch, g[i].lun, g[i].blk);
            c.pls_per_lun = g[i].pl;
            c.pgs_per_blk = g[i].pg;
            c.secs_per_pg = g[i].spp;
            c.secsz = g[i].secsz;
            c.op_pcent = 30;
            c.mapping = (enum ftl_mapping)m;
            /* the most the rule allows: raise until refused */
            for (c.log_blocks = 1;; c.log_blocks++) {
                if (ftl_config_validate(&c, err, sizeof(err)) < 0) {
                    c.log_blocks--;
                    break;
                }
            }
            CHECK(c.log_blocks >= 1);
            f = must_new(&c);
            nsb = ftl_ns_blocks(f);
            bpp = f->blocks_per_page;
            for (uint32_t k = 0; k < 6000; k++) {
                uint64_t r = ftl_rng_next(&s);
                uint32_t n = 1 + (uint32_t)(r % 20);
                uint64_t lba = (r >> 8) % nsb;

                if (lba + n > nsb) {
                    n = (uint32_t)(nsb - lba);
                }
                t += 10000000;
                if ((r >> 40) % 8 == 0) {
                    ftl_trim(f, lba, n);
                    if (n >= 2 * bpp) {
                        /* a page the range covers entirely: no NAND read */
                        uint64_t full = (lba + bpp - 1) / bpp * bpp;
                        CHECK_EQ(ftl_read(f, full, 1, t), t);
                    }
                } else {
                    uint64_t done = ftl_write(f, lba, n, FTL_PID_NONE, t);

                    CHECK(done != FTL_TIME_ERROR);
                    /* once the LUNs are idle: one page read */
                    t = done + 1000000;
                    CHECK_EQ(ftl_read(f, lba, 1, t) - t, 40000);
                }
            }
            CHECK_INVARIANTS(f);
            ftl_free(f);
        }
    }
}

/* The invariant check sees a broken log-block state. */
static void test_check_catches(void)
{
    struct ftl_config c;
    struct ftl *f;
    char err[256];
    uint64_t t = 0;
    uint32_t ow[2] = { 1, 0 };

    tiny_cfg(&c, FTL_MAP_HYBRID, 1);
    f = must_new(&c);
    fill(f, 0, &t);
    wseq(f, ow, 2, &t);
    CHECK_INVARIANTS(f);
    f->hyb.vpc[0]++;
    CHECK(ftl_check_invariants(f, err, sizeof(err)) < 0);
    CHECK_STR(err, "block 0: valid count 3 but 2 pages valid");
    f->hyb.vpc[0]--;
    /* lpn 2 pointed into the log block, which does not hold it */
    ftl_map_put(f, 2, 1 * 4 + 3);
    CHECK(ftl_check_invariants(f, err, sizeof(err)) < 0);
    ftl_map_put(f, 2, 2);
    CHECK_INVARIANTS(f);
    f->hyb.log[0].next = 0;
    CHECK(ftl_check_invariants(f, err, sizeof(err)) < 0);
    CHECK_STR(err, "log slot list");
    f->hyb.log[0].next = FTL_NONE;
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/* State files hold page-mapped FTLs only: refused with one line. */
static void test_no_state(void)
{
    struct ftl_config c;
    struct ftl *f;
    char err[256];
    FILE *fp = tmpfile();

    tiny_cfg(&c, FTL_MAP_FAST, 2);
    f = must_new(&c);
    CHECK(fp != NULL);
    CHECK(ftl_state_save(f, 0, fp, err, sizeof(err)) < 0);
    CHECK_STR(err, "mapping=fast");
    fclose(fp);
    ftl_free(f);
}

int main(void)
{
    RUN(test_geometry);
    RUN(test_bast_switch);
    RUN(test_bast_partial);
    RUN(test_bast_full);
    RUN(test_merge_time);
    RUN(test_fast_switch_full);
    RUN(test_fast_partial);
    RUN(test_random_run);
    RUN(test_refused);
    RUN(test_tight_spare);
    RUN(test_geometries);
    RUN(test_check_catches);
    RUN(test_no_state);
    return test_done("test-hybrid");
}
