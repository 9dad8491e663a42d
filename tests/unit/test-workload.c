/*
 * The simulator's workload generators: whole-bs sequential fill, uniform
 * and Zipf(1.2) skew, the hot/cold mix, sizes, determinism.
 */
#include <stdlib.h>

#include "test.h"
#include "sim/workload.h"

static int cmp_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* share (percent) of the requests that hit the hottest 1% of blocks */
static double top1_share(const struct wl_spec *sp, uint64_t ns_blocks)
{
    struct wl_gen g;
    struct wl_req rq;
    char err[128];
    uint32_t units = (uint32_t)(ns_blocks / 8), *hits;
    uint64_t top = 0, total = 0;

    if (wl_gen_init(&g, sp, ns_blocks, 512, 1, err, sizeof(err)) < 0) {
        fprintf(stderr, "%s\n", err);
        CHECK(0);
        return 0;
    }
    hits = calloc(units, sizeof(*hits));
    while (wl_gen_next(&g, &rq)) {
        CHECK(rq.slba % 8 == 0 && rq.slba / 8 < units && rq.nlb == 8);
        hits[rq.slba / 8]++;
        total++;
    }
    qsort(hits, units, sizeof(*hits), cmp_desc);
    for (uint32_t i = 0; i < units / 100; i++) {
        top += hits[i];
    }
    free(hits);
    return 100.0 * (double)top / (double)total;
}

static void test_distributions(void)
{
    struct wl_spec sp;
    double u, z;

    memset(&sp, 0, sizeof(sp));
    sp.kind = WL_RANDWRITE;
    sp.bs = 4096;
    sp.size = 4096ull * 400000;
    sp.pid = FTL_PID_NONE;
    /* uniform over 100000 blocks, 4 writes each on average: the top 1%
     * holds about 2.5% of the writes, far from Zipf's skew */
    u = top1_share(&sp, 800000);
    CHECK(u > 1.5 && u < 4.0);
    /* Zipf(1.2): sum_{i<=1000} i^-1.2 / sum_{i<=100000} i^-1.2 ~ 85% */
    sp.zipf_theta = 1.2;
    z = top1_share(&sp, 800000);
    printf("# top 1%% share: uniform %.1f%%, zipf 1.2 %.1f%%\n", u, z);
    CHECK(z > 75.0 && z < 95.0);
    /* milder skew, smaller share */
    sp.zipf_theta = 0.8;
    CHECK(top1_share(&sp, 800000) < z);
}

static void test_seqfill_and_hotcold(void)
{
    struct wl_spec sp;
    struct wl_gen g, g2;
    struct wl_req rq, rq2;
    char err[128];
    uint64_t n = 0, hot = 0, next_cold = 0, cold_units;
    bool seq_ok = true, same = true;

    /* the tutorial namespace in 128 KiB writes: 13107 whole writes */
    memset(&sp, 0, sizeof(sp));
    sp.kind = WL_SEQFILL;
    sp.bs = 128 * 1024;
    sp.pid = FTL_PID_NONE;
    CHECK(wl_gen_init(&g, &sp, 3355443, 512, 1, err, sizeof(err)) == 0);
    while (wl_gen_next(&g, &rq)) {
        seq_ok &= rq.slba == n * 256 && rq.nlb == 256;
        n++;
    }
    CHECK_EQ(n, 13107);
    CHECK(seq_ok);
    /* bs must be a multiple of the logical block */
    sp.bs = 512;
    CHECK(wl_gen_init(&g, &sp, 1000, 4096, 1, err, sizeof(err)) < 0);
    CHECK_STR(err, "secsz=4096");

    /* hot/cold: 20% hot region at random, the rest rewritten in order */
    memset(&sp, 0, sizeof(sp));
    sp.kind = WL_HOTCOLD;
    sp.bs = 4096;
    sp.size = 4096ull * 100000;
    sp.hot_pcent = 20;
    sp.hot_share = 50;
    sp.hot_pid = 1;
    sp.cold_pid = 2;
    CHECK(wl_gen_init(&g, &sp, 80000, 512, 9, err, sizeof(err)) == 0);
    CHECK(wl_gen_init(&g2, &sp, 80000, 512, 9, err, sizeof(err)) == 0);
    cold_units = 10000 - 2000;
    n = 0;
    while (wl_gen_next(&g, &rq)) {
        uint64_t unit = rq.slba / 8;
        CHECK(wl_gen_next(&g2, &rq2));
        same &= rq.slba == rq2.slba && rq.pid == rq2.pid;
        if (unit < 2000) {
            hot++;
            CHECK_EQ(rq.pid, 1);
        } else {
            CHECK_EQ(rq.pid, 2);
            CHECK_EQ(unit, 2000 + next_cold);
            next_cold = (next_cold + 1) % cold_units;
        }
        n++;
    }
    CHECK_EQ(n, 100000);
    CHECK(same); /* same seed, same requests */
    /* 50% +- 1.5% (> 9 standard deviations) */
    CHECK(hot > 48500 && hot < 51500);
}

/* randommap: every block exactly once per pass, a new order each pass */
static void test_randommap(void)
{
    struct wl_spec sp;
    struct wl_gen g;
    struct wl_req rq;
    char err[128];
    uint32_t seen[1000] = { 0 }, first[1000], second_same = 0;

    memset(&sp, 0, sizeof(sp));
    sp.kind = WL_RANDWRITE;
    sp.bs = 4096;
    sp.size = 4096ull * 2000;
    sp.pid = FTL_PID_NONE;
    sp.randommap = true;
    CHECK(wl_gen_init(&g, &sp, 8000, 512, 3, err, sizeof(err)) == 0);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < 1000; i++) {
            CHECK(wl_gen_next(&g, &rq));
            seen[rq.slba / 8]++;
            if (pass == 0) {
                first[i] = (uint32_t)(rq.slba / 8);
            } else {
                second_same += first[i] == rq.slba / 8;
            }
        }
        for (int b = 0; b < 1000; b++) {
            CHECK_EQ(seen[b], pass + 1);
        }
    }
    CHECK(!wl_gen_next(&g, &rq));
    CHECK(second_same < 20);
    wl_gen_free(&g);
}

static void test_sizes(void)
{
    uint64_t v;

    CHECK(wl_parse_size("4k", &v) == 0 && v == 4096);
    CHECK(wl_parse_size("128KiB", &v) == 0 && v == 131072);
    CHECK(wl_parse_size("4g", &v) == 0 && v == 4ull << 30);
    CHECK(wl_parse_size("1.5m", &v) == 0 && v == 3ull << 19);
    CHECK(wl_parse_size("4096", &v) == 0 && v == 4096);
    CHECK(wl_parse_size("4q", &v) < 0);
    CHECK(wl_parse_size("", &v) < 0);
}

int main(void)
{
    RUN(test_distributions);
    RUN(test_seqfill_and_hotcold);
    RUN(test_randommap);
    RUN(test_sizes);
    return test_done("test-workload");
}
