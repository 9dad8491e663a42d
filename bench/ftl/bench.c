/*
 * FTL benchmark: (1) simulator throughput in ns per NAND page operation
 * (host programs + GC copies) at steady state on the tutorial-02 geometry,
 * greedy against cost-benefit (a policy that walks every candidate per
 * GC) as the peer measured in the same run; (2) FTL metadata per NAND
 * page; (3) greedy (and fifo) WAF under uniform random 4 KiB writes
 * against Desnoyers' analytic model (SYSTOR 2012) at several spare
 * factors, gc_thres_pcent = gc_thres_pcent_high.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ftl-int.h"
#include "sim/workload.h"

#define REPS 3

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void tut02(struct ftl_config *c, uint32_t op, uint32_t thres,
                  uint32_t high, enum ftl_gc_policy pol)
{
    ftl_config_default(c);
    c->nchs = 4;
    c->luns_per_ch = 4;
    c->blks_per_pl = 128;
    c->op_pcent = (int32_t)op;
    c->gc_thres_pcent = thres;
    c->gc_thres_pcent_high = high;
    c->gc_policy = pol;
}

static void fill(struct ftl *f)
{
    uint64_t n = ftl_ns_blocks(f) / 256;
    for (uint64_t i = 0; i < n; i++) {
        ftl_write(f, i * 256, 256, FTL_PID_NONE, 0);
        ftl_background_gc(f, 0);
    }
}

/* n random 4 KiB writes at QD1 with timing on; returns the time used */
static void randw(struct ftl *f, struct wl_rng *r, uint64_t n, uint64_t *now)
{
    uint32_t lp = (uint32_t)(ftl_ns_blocks(f) / 8);
    uint64_t t = *now;

    uint32_t next = wl_rng_below(r, lp);

    for (uint64_t i = 0; i < n; i++) {
        uint32_t lpn = next;
        uint64_t d;

        /* one request of look-ahead, as femu-sim does */
        next = wl_rng_below(r, lp);
        ftl_prefetch(f, (uint64_t)next * 8);
        d = ftl_write(f, (uint64_t)lpn * 8, 8, FTL_PID_NONE, t);
        if (d != FTL_TIME_ERROR) {
            t = d;
        }
        ftl_background_gc(f, t);
    }
    *now = t;
}

struct tput {
    double ns_per_op;
    uint64_t ops;
    uint32_t waf;
};

static struct tput throughput(uint32_t thres, enum ftl_gc_policy pol,
                              uint64_t nmeasure)
{
    struct ftl_config c;
    struct ftl *f;
    char err[256];
    struct wl_rng r;
    struct ftl_counters a, b;
    uint64_t now = 0, t0, t1;
    struct tput res;

    tut02(&c, 25, thres, 95, pol);
    f = ftl_new(&c, err, sizeof(err));
    if (!f) {
        fprintf(stderr, "bench: %s\n", err);
        exit(1);
    }
    wl_rng_seed(&r, 1);
    fill(f);
    randw(f, &r, 2 * ftl_logical_pages(f), &now); /* reach steady state */
    ftl_get_counters(f, &a);
    t0 = cpu_ns();
    randw(f, &r, nmeasure, &now);
    t1 = cpu_ns();
    ftl_get_counters(f, &b);
    res.ops = (b.host_pages_programmed - a.host_pages_programmed) +
              (b.gc_pages_moved - a.gc_pages_moved);
    res.ns_per_op = (double)(t1 - t0) / (double)res.ops;
    res.waf = (uint32_t)(res.ops * 1000 /
                         (b.host_pages_written - a.host_pages_written));
    ftl_free(f);
    return res;
}

/*
 * Desnoyers (SYSTOR 2012), uniform traffic, FIFO cleaning: a page
 * survives until its line is cleaned with probability X0, where
 * X0 = exp(-alpha (1 - X0)), alpha = physical / logical pages (the
 * solution in closed form is -W0(-alpha e^-alpha) / alpha); WA =
 * 1 / (1 - X0).  For uniform traffic and large blocks greedy converges to
 * the same value (his section 4), so one model serves both.
 */
static double model_wa(double alpha)
{
    double x = 0.0;
    for (int i = 0; i < 10000000; i++) {
        double nx = exp(-alpha * (1.0 - x));
        if (fabs(nx - x) < 1e-13) {
            x = nx;
            break;
        }
        x = nx;
    }
    return 1.0 / (1.0 - x);
}

static uint32_t measured_waf(uint32_t op, uint32_t thres,
                             enum ftl_gc_policy pol, double *alpha_eff)
{
    struct ftl_config c;
    struct ftl *f;
    char err[256];
    struct wl_rng r;
    struct ftl_counters a, b;
    uint64_t now = 0, lp;
    uint32_t waf;

    tut02(&c, op, thres, thres, pol);
    f = ftl_new(&c, err, sizeof(err));
    if (!f) {
        fprintf(stderr, "bench: %s\n", err);
        exit(1);
    }
    ftl_set_delay_mode(f, FTL_DELAY_OFF);
    lp = ftl_logical_pages(f);
    /* steady-state space: lines below the threshold, less about one line
     * of unwritten space in the two open lines */
    *alpha_eff = (double)(f->thres_high_lines - 1) * f->ppl / (double)lp;
    wl_rng_seed(&r, 2);
    fill(f);
    randw(f, &r, 4 * lp, &now);
    ftl_get_counters(f, &a);
    randw(f, &r, 4 * lp, &now);
    ftl_get_counters(f, &b);
    waf = (uint32_t)(((b.host_pages_programmed - a.host_pages_programmed) +
                      (b.gc_pages_moved - a.gc_pages_moved)) * 1000 /
                     (b.host_pages_written - a.host_pages_written));
    ftl_free(f);
    return waf;
}

int main(int argc, char **argv)
{
    uint64_t nmeasure = 4000000;
    static const uint32_t ops[] = { 7, 10, 15, 25, 50, 100 };

    if (argc > 1) {
        nmeasure = strtoull(argv[1], NULL, 0);
    }
    printf("# 1. throughput: tutorial-02 geometry (nchs=4,luns_per_ch=4,"
           "blks_per_pl=128,op_pcent=25), gc_thres_pcent_high=95,\n"
           "#    steady state after a fill and 2x the namespace of 4 KiB "
           "random writes; %llu measured writes, CPU time,\n"
           "#    best of %d runs (greedy and cost-benefit alternate),\n"
           "#    page ops = host programs + GC copies; timing model on\n",
           (unsigned long long)nmeasure, REPS);
    printf("%-14s %-14s %10s %12s %10s\n", "gc_thres_pcent", "gc_policy",
           "waf_x1000", "page_ops", "ns_per_op");
    for (int i = 0; i < 2; i++) {
        uint32_t t = i ? 95 : 75;
        struct tput g = { 1e30, 0, 0 }, cb = { 1e30, 0, 0 };
        /* best of REPS: the machine is shared, the minimum is the run
         * least disturbed by other processes */
        for (int k = 0; k < REPS; k++) {
            struct tput x = throughput(t, FTL_GC_GREEDY, nmeasure);
            struct tput y = throughput(t, FTL_GC_COST_BENEFIT, nmeasure);
            if (x.ns_per_op < g.ns_per_op) {
                g = x;
            }
            if (y.ns_per_op < cb.ns_per_op) {
                cb = y;
            }
        }
        printf("%-14u %-14s %10u %12llu %10.1f\n", t, "greedy", g.waf,
               (unsigned long long)g.ops, g.ns_per_op);
        printf("%-14u %-14s %10u %12llu %10.1f   (greedy/cost-benefit "
               "ns ratio %.2f)\n", t, "cost-benefit", cb.waf,
               (unsigned long long)cb.ops, cb.ns_per_op,
               g.ns_per_op / cb.ns_per_op);
    }
    {
        struct ftl_config c;
        struct ftl *f;
        char err[256];
        printf("\n# 2. FTL metadata per NAND page (ftl_meta_bytes / NAND "
               "pages)\n");
        tut02(&c, 25, 75, 95, FTL_GC_GREEDY);
        f = ftl_new(&c, err, sizeof(err));
        printf("tutorial-02 geometry: %.3f bytes\n",
               (double)ftl_meta_bytes(f) / (double)ftl_nand_pages(f));
        ftl_free(f);
        ftl_config_default(&c);
        f = ftl_new(&c, err, sizeof(err));
        printf("default geometry (16 GiB NAND, devsz_mb=1024): %.3f bytes\n",
               (double)ftl_meta_bytes(f) / (double)ftl_nand_pages(f));
        ftl_free(f);
    }
    printf("\n# 3. WAF under uniform random 4 KiB writes vs Desnoyers' "
           "model; tutorial-02 geometry,\n"
           "#    gc_thres_pcent = gc_thres_pcent_high = 95; fill, 4x the "
           "namespace to age, 4x measured\n");
    printf("%-8s %-8s %-9s %-9s %11s %11s %11s %11s\n", "op_pcent",
           "spare", "alpha", "alpha_eff", "model(a)", "model(eff)",
           "sim_greedy", "sim_fifo");
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        double alpha = 1.0 + ops[i] / 100.0, ae, ae2;
        uint32_t g = measured_waf(ops[i], 95, FTL_GC_GREEDY, &ae);
        uint32_t fi = measured_waf(ops[i], 95, FTL_GC_FIFO, &ae2);
        printf("%-8u %-8.3f %-9.3f %-9.3f %11.3f %11.3f %11.3f %11.3f\n",
               ops[i], 1.0 - 1.0 / alpha, alpha, ae, model_wa(alpha),
               model_wa(ae), g / 1000.0, fi / 1000.0);
    }
    return 0;
}
