/*
 * GC: each policy's victim on constructed cases, the
 * background threshold and 1/8 rules, forced GC inside writes, and the
 * error (not a crash) when nothing can be reclaimed.
 */
#include <stdlib.h>

#include "test.h"

/* small_cfg with timing off; lines 0..3 closed with the given valid
 * counts (trimming the rest), line 0 closed first */
static struct ftl *four_lines(enum ftl_gc_policy pol, const uint32_t vpc[4],
                              uint64_t seed)
{
    struct ftl_config c;
    struct ftl *f;

    small_cfg(&c);
    c.gc_policy = pol;
    c.seed = seed;
    f = must_new_untimed(&c);
    for (uint32_t lpn = 0; lpn < 4 * f->ppl; lpn++) {
        wpage(f, lpn, 0);
    }
    for (uint32_t l = 0; l < 4; l++) {
        CHECK_EQ(f->ln.line[l].state, FTL_LINE_CLOSED);
        for (uint32_t i = vpc[l]; i < f->ppl; i++) {
            tpage(f, l * f->ppl + i);
        }
        CHECK_EQ(f->ln.line[l].vpc, vpc[l]);
    }
    return f;
}

/* n victim picks on a four_lines FTL: how often each line was picked */
static void pick_victims(struct ftl *f, int n, uint32_t hits[4])
{
    memset(hits, 0, 4 * sizeof(hits[0]));
    for (int i = 0; i < n; i++) {
        uint32_t v = ftl_gc_pick_victim(f);

        CHECK(v < 4);
        if (v < 4) {
            hits[v]++;
        }
    }
}

static void test_policies(void)
{
    /* line 0 oldest with 34 invalid, line 1 fewest valid (40 invalid) */
    static const uint32_t vpc[4] = { 30, 24, 44, 64 };
    struct ftl *f;
    uint32_t hits[4];

    f = four_lines(FTL_GC_GREEDY, vpc, 1);
    CHECK_EQ(ftl_gc_pick_victim(f), 1);
    ftl_free(f);
    f = four_lines(FTL_GC_FIFO, vpc, 1);
    CHECK_EQ(ftl_gc_pick_victim(f), 0);
    /* after collecting the oldest, the next oldest */
    CHECK_EQ(ftl_gc_collect(f, 0, 0), 0);
    CHECK_EQ(ftl_gc_pick_victim(f), 1);
    CHECK_INVARIANTS(f);
    ftl_free(f);
    /* cost-benefit: age x (1-u) / 2u.  Line 0: age 193, u = 30/64 ->
     * 109.4; line 1: age 129, u = 24/64 -> 107.5: the older line wins
     * although greedy would take line 1 */
    f = four_lines(FTL_GC_COST_BENEFIT, vpc, 1);
    CHECK_EQ(ftl_gc_pick_victim(f), 0);
    ftl_free(f);
    /* with line 1 much emptier it wins despite being younger */
    {
        static const uint32_t v2[4] = { 30, 8, 44, 64 };
        f = four_lines(FTL_GC_COST_BENEFIT, v2, 1);
        CHECK_EQ(ftl_gc_pick_victim(f), 1);
        ftl_free(f);
    }
    /* random: uniform over the closed lines that hold an invalid page
     * (deterministic seed); line 3 is fully valid, so, as on FEMU's
     * victim queue, it is never a candidate */
    f = four_lines(FTL_GC_RANDOM, vpc, 7);
    pick_victims(f, 3000, hits);
    for (int l = 0; l < 3; l++) {
        /* expected 1000 each; +-20% is > 6 standard deviations */
        CHECK(hits[l] > 800 && hits[l] < 1200);
    }
    CHECK_EQ(hits[3], 0);
    ftl_free(f);
    /* d-choice: best of 4 samples among lines 0..2 -> the emptiest line 1
     * with probability 1 - (2/3)^4 = 80%; the fully valid line 3 never */
    f = four_lines(FTL_GC_DCHOICE, vpc, 9);
    pick_victims(f, 4000, hits);
    CHECK(hits[1] > 2950 && hits[1] < 3450);
    CHECK_EQ(hits[3], 0);
    ftl_free(f);
    /* a line with no valid page is the best victim for every policy */
    for (int p = 0; p <= FTL_GC_DCHOICE; p++) {
        static const uint32_t v3[4] = { 0, 0, 0, 0 };
        uint32_t v;

        f = four_lines((enum ftl_gc_policy)p, v3, 1);
        v = ftl_gc_pick_victim(f);
        CHECK(v < 4 && f->ln.line[v].vpc == 0);
        ftl_free(f);
    }
}

static void test_collect(void)
{
    static const uint32_t vpc[4] = { 30, 24, 44, 64 };
    struct ftl *f = four_lines(FTL_GC_GREEDY, vpc, 1);

    CHECK_EQ(ftl_gc_collect(f, 1, 0), 0);
    /* valid pages moved, the line erased and free again */
    CHECK_EQ(f->ctr.gc_pages_moved, 24);
    CHECK_EQ(f->ctr.gc_lines_collected, 1);
    CHECK_EQ(f->ctr.blocks_erased, f->blks_per_line);
    CHECK_EQ(f->ln.line[1].state, FTL_LINE_FREE);
    /* the moved data still reads back from its new place: the host's
     * open line (one write pointer for host writes and GC).  They were
     * copied block by block as FEMU does (channel outer, LUN inner, then
     * page): the victim's 24 valid pages are pages 0..5 of each of its 4
     * blocks, and page seq i sits on channel i % 2, LUN (i / 2) % 2 */
    for (uint32_t i = 0; i < 24; i++) {
        uint32_t ppa = ftl_map_get(f, f->ppl + i);
        uint32_t ch = i % 2, lun = (i / 2) % 2, pg = i / 4;
        CHECK(ppa != FTL_NONE && ppa / f->ppl == 4);
        CHECK(!f->ln.line[ppa / f->ppl].is_gc);
        CHECK_EQ(ppa % f->ppl, (ch * 2 + lun) * 6 + pg);
    }
    CHECK_EQ(f->streams[0].line, 4);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/* Background GC: thresholds and the 1/8 rule. */
static void test_background(void)
{
    struct ftl_config c;
    struct ftl *f;

    small_cfg(&c);
    c.gc_thres_pcent = 25; /* 8 of 32 lines */
    f = must_new_untimed(&c);
    CHECK_EQ(f->thres_lines, 8);
    for (uint32_t lpn = 0; lpn < 6 * f->ppl; lpn++) {
        wpage(f, lpn, 0);
    }
    /* the write pointer took line 6 when line 5 filled (as FEMU's does):
     * it counts as in use */
    CHECK_EQ(f->streams[0].line, 6);
    CHECK_EQ(ftl_total_lines(f) - ftl_free_lines(f), 7);
    /* line 0 entirely invalid, but only 7 lines in use: no GC */
    for (uint32_t i = 0; i < f->ppl; i++) {
        tpage(f, i);
    }
    ftl_background_gc(f, 0);
    CHECK_EQ(f->ctr.gc_lines_collected, 0);
    /* 8 lines in use: one victim collected per call */
    for (uint32_t lpn = 6 * f->ppl; lpn < 7 * f->ppl; lpn++) {
        wpage(f, lpn, 0);
    }
    CHECK_EQ(ftl_total_lines(f) - ftl_free_lines(f), 8);
    ftl_background_gc(f, 0);
    CHECK_EQ(f->ctr.gc_lines_collected, 1);
    CHECK_EQ(f->ctr.gc_pages_moved, 0);
    CHECK_EQ(f->ln.line[0].state, FTL_LINE_FREE);
    /* back at 7 lines in use: nothing more, even with invalid pages */
    for (uint32_t i = 0; i < 20; i++) {
        tpage(f, f->ppl + i);
    }
    ftl_background_gc(f, 0);
    CHECK_EQ(f->ctr.gc_lines_collected, 1);
    CHECK_INVARIANTS(f);
    ftl_free(f);

    /* a clean 1/8 case: lines with 7 and then 8 invalid pages */
    small_cfg(&c);
    c.gc_thres_pcent = 10; /* 4 lines */
    f = must_new_untimed(&c);
    for (uint32_t lpn = 0; lpn < 4 * f->ppl; lpn++) {
        wpage(f, lpn, 0);
    }
    for (uint32_t l = 0; l < 4; l++) {
        for (uint32_t i = 0; i < 7; i++) {
            tpage(f, l * f->ppl + i);
        }
    }
    ftl_background_gc(f, 0);
    CHECK_EQ(f->ctr.gc_lines_collected, 0);
    tpage(f, 2 * f->ppl + 7);
    ftl_background_gc(f, 0);
    CHECK_EQ(f->ctr.gc_lines_collected, 1);
    CHECK_EQ(f->ctr.gc_pages_moved, f->ppl - 8);
    CHECK_EQ(f->ln.line[2].state, FTL_LINE_FREE);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/* Forced GC runs inside writes, as often as needed, without the caller
 * ever calling background GC. */
static void test_forced(void)
{
    struct ftl_config c;
    struct ftl *f;
    uint64_t s = 42;
    uint32_t errors = 0, max_used = 0;

    small_cfg(&c);
    c.devsz_mb = 7;
    c.gc_thres_pcent = 95;
    f = must_new(&c);
    for (int i = 0; i < 30000; i++) {
        uint32_t lpn = (uint32_t)(trand(&s) % ftl_logical_pages(f));
        if (wpage(f, lpn, 0) == FTL_TIME_ERROR) {
            errors++;
        }
        if (ftl_total_lines(f) - ftl_free_lines(f) > max_used) {
            max_used = ftl_total_lines(f) - ftl_free_lines(f);
        }
        /* after each write the lines in use are at most the threshold */
        if (ftl_total_lines(f) - ftl_free_lines(f) > f->thres_high_lines) {
            CHECK(0);
            break;
        }
    }
    CHECK_EQ(errors, 0);
    CHECK(f->ctr.forced_gc_lines > 0);
    CHECK_EQ(f->ctr.forced_gc_lines, f->ctr.gc_lines_collected);
    CHECK_EQ(max_used, f->thres_high_lines);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/* Nothing reclaimable: every line in use full of valid data.  A valid
 * configuration cannot get here, so lower the threshold behind the
 * validator's back: the write must fail cleanly. */
static void test_nothing_reclaimable(void)
{
    struct ftl_config c;
    struct ftl *f;
    uint64_t t;

    small_cfg(&c);
    f = must_new(&c);
    for (uint32_t lpn = 0; lpn < 2 * f->ppl; lpn++) {
        wpage(f, lpn, 0);
    }
    /* 2 full lines and the open one */
    f->thres_high_lines = 3;
    t = wpage(f, 5, 0);
    CHECK_EQ(t, FTL_TIME_ERROR);
    /* the old data is still mapped and consistent */
    CHECK(ftl_map_get(f, 5) != FTL_NONE);
    CHECK_INVARIANTS(f);
    /* with a reclaimable line, forced GC succeeds again */
    for (uint32_t i = 0; i < f->ppl; i++) {
        tpage(f, f->ppl + i);
    }
    CHECK(wpage(f, 5, 0) != FTL_TIME_ERROR);
    CHECK_EQ(f->ctr.forced_gc_lines, 1);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/* fifo never takes a fully valid line, however old: its oldest candidate
 * is the oldest line with an invalid page (FEMU keeps full lines off its
 * victim queue). */
static void test_forced_fallback(void)
{
    static const uint32_t vpc[4] = { 64, 64, 0, 64 };
    struct ftl *f = four_lines(FTL_GC_FIFO, vpc, 1);

    CHECK_EQ(ftl_gc_pick_victim(f), 2);
    /* 4 closed lines and the open one */
    f->thres_high_lines = 5;
    CHECK_EQ(ftl_gc_forced(f, 0), 0);
    CHECK_EQ(f->ln.line[2].state, FTL_LINE_FREE);
    CHECK_EQ(f->ln.line[0].state, FTL_LINE_CLOSED);
    CHECK_INVARIANTS(f);
    ftl_free(f);
}

/*
 * The reserve rule without FDP is exact for every placement: on small
 * geometries, the smallest op_pcent the rule accepts (for each
 * gc_thres_pcent_high, hot_cold_sep, gc_own_line and policy) survives a
 * fill and 4 x the namespace of random overwrites (half of them to a hot
 * tenth) with no failed write.  (Counting an open line as holding at
 * least one page, true before the write pointer took its next line the
 * moment one filled, failed 105 of these 200 configurations.)
 */
static void test_reserve_limit_sweep(void)
{
    static const uint32_t highs[] = { 80, 95, 100 };
    uint32_t runs = 0, forced = 0;

    for (uint32_t geo = 0; geo < 6; geo++) {
        for (uint32_t hi = 0; hi < 3; hi++) {
            for (uint32_t mode = 0; mode < 4; mode++) {
                for (int pol = 0; pol <= FTL_GC_DCHOICE; pol++) {
                    struct ftl_config c;
                    struct ftl *f;
                    uint64_t s = 7 + geo * 131 + hi * 17 + mode * 5 + pol;
                    uint32_t lp, op;
                    bool failed = false;

                    small_cfg(&c);
                    c.nchs = 1 + geo % 2;
                    c.luns_per_ch = 1 + geo / 3;
                    c.pgs_per_blk = 4 + 4 * (geo % 3);
                    c.blks_per_pl = 12 + 7 * geo;
                    c.gc_thres_pcent = 50;
                    c.gc_thres_pcent_high = highs[hi];
                    c.hot_cold_sep = mode & 1;
                    c.gc_own_line = (mode & 2) != 0;
                    c.gc_policy = (enum ftl_gc_policy)pol;
                    for (op = 0; op <= 400; op++) {
                        c.op_pcent = (int32_t)op;
                        if (ftl_config_validate(&c, NULL, 0) == 0) {
                            break;
                        }
                    }
                    if (op > 400 || op == 0) {
                        continue;
                    }
                    f = must_new_untimed(&c);
                    runs++;
                    lp = ftl_logical_pages(f);
                    for (uint32_t l = 0; l < lp && !failed; l++) {
                        failed |= wpage(f, l, 0) == FTL_TIME_ERROR;
                        ftl_background_gc(f, 0);
                    }
                    for (uint32_t i = 0; i < 4 * lp && !failed; i++) {
                        uint32_t l = (uint32_t)(trand(&s) %
                                                (i & 1 ? lp : lp / 10 + 1));
                        failed |= wpage(f, l, 0) == FTL_TIME_ERROR;
                        ftl_background_gc(f, 0);
                    }
                    if (failed) {
                        fprintf(stderr, "reserve sweep: nchs=%u luns=%u "
                                "pgs=%u blks=%u high=%u hcs=%d own=%d "
                                "policy %d op_pcent=%u: a write failed\n",
                                c.nchs, c.luns_per_ch, c.pgs_per_blk,
                                c.blks_per_pl, c.gc_thres_pcent_high,
                                c.hot_cold_sep, c.gc_own_line, pol, op);
                    }
                    CHECK(!failed);
                    forced += f->ctr.forced_gc_lines > 0;
                    CHECK_INVARIANTS(f);
                    ftl_free(f);
                }
            }
        }
    }
    CHECK(runs >= 180);
    CHECK(forced >= runs / 2);
    printf("# reserve limit sweep: %u configurations at their smallest "
           "op_pcent, forced GC in %u\n", runs, forced);
}

int main(void)
{
    RUN(test_policies);
    RUN(test_collect);
    RUN(test_background);
    RUN(test_forced);
    RUN(test_nothing_reclaimable);
    RUN(test_forced_fallback);
    RUN(test_reserve_limit_sweep);
    return test_done("test-gc");
}
