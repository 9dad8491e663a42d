/*
 * Tiny assertion helper for the FTL unit tests: a failed check prints
 * where and what, the test goes on, and main returns non-zero.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FEMU_TEST_H
#define FEMU_TEST_H

#include <inttypes.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ftl-int.h"

static int test_failures;
static int test_checks;

#define CHECK(cond)                                                      \
    do {                                                                 \
        test_checks++;                                                   \
        if (!(cond)) {                                                   \
            test_failures++;                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,       \
                    __LINE__, #cond);                                    \
        }                                                                \
    } while (0)

#define CHECK_EQ(a, b)                                                   \
    do {                                                                 \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                 \
        test_checks++;                                                   \
        if (a_ != b_) {                                                  \
            test_failures++;                                             \
            fprintf(stderr, "%s:%d: %s == %s failed: %" PRIu64           \
                    " != %" PRIu64 "\n", __FILE__, __LINE__, #a, #b, a_, \
                    b_);                                                 \
        }                                                                \
    } while (0)

#define CHECK_STR(hay, needle)                                           \
    do {                                                                 \
        test_checks++;                                                   \
        if (!strstr((hay), (needle))) {                                  \
            test_failures++;                                             \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n",   \
                    __FILE__, __LINE__, (hay), (needle));                \
        }                                                                \
    } while (0)

#define CHECK_INVARIANTS(ftl)                                            \
    do {                                                                 \
        char e_[256];                                                    \
        test_checks++;                                                   \
        if (ftl_check_invariants((ftl), e_, sizeof(e_)) != 0) {          \
            test_failures++;                                             \
            fprintf(stderr, "%s:%d: invariants: %s\n", __FILE__,         \
                    __LINE__, e_);                                       \
        }                                                                \
    } while (0)

/*
 * The output is TAP (meson's protocol: 'tap'), so meson reports each case:
 * RUN(test_x) runs one case and prints "ok N - x", or "not ok N - x" when
 * one of its checks failed (what failed is on stderr); notes go out as
 * "# ..." lines; test_done prints the plan "1..N" and the totals.
 */
static int test_cases;
static jmp_buf test_case_end;

/* run fn; test_end_case comes back here */
static inline void test_call(void (*fn)(void))
{
    if (setjmp(test_case_end) == 0) {
        fn();
    }
}

static inline void test_run(const char *name, void (*fn)(void))
{
    int before = test_failures;

    test_call(fn);
    if (strncmp(name, "test_", 5) == 0) {
        name += 5;
    }
    printf("%s %d - %s\n", test_failures == before ? "ok" : "not ok",
           ++test_cases, name);
    fflush(stdout);
}

#define RUN(fn) test_run(#fn, fn)

static inline int test_done(const char *name)
{
    printf("1..%d\n# %s: %d checks, %d failed\n", test_cases, name,
           test_checks, test_failures);
    return test_failures ? 1 : 0;
}

/*
 * A case ends early when it cannot go on (its FTL could not be made):
 * the failure is counted and RUN reports the case "not ok", as a failed
 * g_assert ends a qtest.  What the case allocated is left to the exit.
 * Only for code that runs inside RUN.
 */
static inline void test_end_case(const char *what, const char *err)
{
    fprintf(stderr, "%s: %s\n", what, err);
    test_failures++;
    longjmp(test_case_end, 1);
}

/* The defaults with nchs channels x luns LUNs x blks lines. */
static inline void geo_cfg(struct ftl_config *c, uint32_t nchs,
                           uint32_t luns, uint32_t blks)
{
    ftl_config_default(c);
    c->nchs = nchs;
    c->luns_per_ch = luns;
    c->blks_per_pl = blks;
}

/* 2 ch x 2 LUN x 32 lines x 16 pages: 64 pages (256 KiB) per line,
 * 8 MiB NAND, 4 MiB namespace; small enough to walk all state. */
static inline void small_cfg(struct ftl_config *c)
{
    geo_cfg(c, 2, 2, 32);
    c->pgs_per_blk = 16;
    c->devsz_mb = 4;
}

/* The tutorial-02 geometry: 2 GiB NAND, 128 lines of 16 MiB. */
static inline void tut02_cfg(struct ftl_config *c)
{
    geo_cfg(c, 4, 4, 128);
    c->op_pcent = 25;
}

/* The tutorial-04 device: 2 ch x 4 LUN x 64 lines, 8 MiB reclaim units,
 * half again as much NAND as namespace, nruh handles (0: FDP off). */
static inline void tut04_cfg(struct ftl_config *c, uint32_t nruh)
{
    geo_cfg(c, 2, 4, 64);
    c->op_pcent = 50;
    c->fdp_nruh = nruh;
}

/*
 * One field of a struct ftl_config and a value for it, for tables of
 * configurations: CFG_SET(nchs, 0) names nchs and sets it to 0.
 */
struct cfg_set {
    const char *name;
    size_t off, size;   /* size 0: no field */
    int64_t val;
};

#define CFG_SET(field, v)                                                \
    { #field, offsetof(struct ftl_config, field),                        \
      sizeof(((struct ftl_config *)0)->field), (v) }

static inline void cfg_apply(struct ftl_config *c, const struct cfg_set *s)
{
    uint64_t v64 = (uint64_t)s->val;
    uint32_t v32 = (uint32_t)s->val;
    uint8_t v8 = (uint8_t)s->val;   /* a bool */
    char *p = (char *)c + s->off;

    switch (s->size) {
    case 0:
        break;
    case 1:
        memcpy(p, &v8, 1);
        break;
    case 4:
        memcpy(p, &v32, 4);
        break;
    case 8:
        memcpy(p, &v64, 8);
        break;
    default:
        test_end_case("cfg_apply: a field of an unexpected size", s->name);
    }
}

/* The FTL of config c; if it cannot be made, the case ends, failed. */
static inline struct ftl *must_new(const struct ftl_config *c)
{
    char err[512];
    struct ftl *f = ftl_new(c, err, sizeof(err));

    if (!f) {
        test_end_case("ftl_new", err);
    }
    return f;
}

/* must_new with the NAND timing off (every command completes at once). */
static inline struct ftl *must_new_untimed(const struct ftl_config *c)
{
    struct ftl *f = must_new(c);

    ftl_set_delay_mode(f, FTL_DELAY_OFF);
    return f;
}

/* deterministic test randomness */
static inline uint64_t trand(uint64_t *s)
{
    return ftl_rng_next(s);
}

/* write one page (4 KiB, 8 blocks of 512 B) at lpn */
static inline uint64_t wpage(struct ftl *f, uint32_t lpn, uint64_t now)
{
    return ftl_write(f, (uint64_t)lpn * f->blocks_per_page,
                     f->blocks_per_page, FTL_PID_NONE, now);
}

static inline void tpage(struct ftl *f, uint32_t lpn)
{
    ftl_trim(f, (uint64_t)lpn * f->blocks_per_page, f->blocks_per_page);
}

#endif
