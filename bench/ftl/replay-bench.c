/*
 * Replay benchmark: femu trace records per second through femu-sim's
 * replay (hw/femu/ftl/sim/replay.c: decode, check, apply to the FTL) with
 * timing off, on the tutorial-02 geometry (page mapping, op_pcent=25).
 *
 *   build/femu-replay-bench [N]       (N records per mix, default 20000000)
 *
 * Each mix is a femu trace built in memory: a sequential fill of the
 * namespace in 4 KiB writes (not timed), then N random 4 KiB requests
 * with the mix's share of writes, uniform over the namespace (the same
 * draws each time).  The trace is replayed onto the filled FTL; the time
 * is the process's CPU time of that replay, the best of 3 runs.  The
 * trace is in memory (N x 40 bytes): femu-sim --replay maps the file and
 * reads it the same way.  Last, the cost of recording: N records
 * appended with the device's writer to a file.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hw/femu/ftl.h"
#include "hw/femu/ftl-iotrace.h"
#include "sim/replay.h"
#include "sim/workload.h"

static uint64_t cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void cfg_of(struct ftl_config *c, uint32_t thres)
{
    ftl_config_default(c);
    c->nchs = 4;
    c->luns_per_ch = 4;
    c->blks_per_pl = 128;
    c->op_pcent = 25;
    c->gc_thres_pcent = thres;
}

/* header + records + END of n records made by gen(i) */
static uint8_t *build(const struct ftl_config *c, uint64_t ns, uint64_t n,
                      uint32_t write_pct, bool fill, uint64_t seed,
                      size_t *len)
{
    struct ftl_iotrace_hdr h;
    struct ftl_iotrace_rec r = { .nsid = 1, .nlb = 8 };
    struct wl_rng rng;
    uint32_t pages = (uint32_t)(ns / 8);
    uint8_t *buf, *p;

    if (fill) {
        n = pages;
    }
    *len = FTL_IOTRACE_HDR_SIZE + (n + 1) * FTL_IOTRACE_REC_SIZE;
    buf = malloc(*len);
    if (!buf) {
        perror("malloc");
        exit(1);
    }
    ftl_iotrace_hdr_of(&h, c, ns, 0);
    ftl_iotrace_encode_hdr(&h, buf);
    p = buf + FTL_IOTRACE_HDR_SIZE;
    wl_rng_seed(&rng, seed);
    for (uint64_t i = 0; i < n; i++, p += FTL_IOTRACE_REC_SIZE) {
        bool w = fill || wl_rng_below(&rng, 100) < write_pct;

        r.op = w ? FTL_IOTRACE_WRITE : FTL_IOTRACE_READ;
        r.arg = w ? FTL_PID_NONE : 0;
        r.slba = (fill ? i : wl_rng_below(&rng, pages)) * 8;
        ftl_iotrace_encode_rec(&r, p);
    }
    memset(&r, 0, sizeof(r));
    r.op = FTL_IOTRACE_END;
    r.slba = n;
    ftl_iotrace_encode_rec(&r, p);
    return buf;
}

static int mix(uint64_t n, uint32_t write_pct, uint32_t thres)
{
    struct sim_replay_opts o = { .path = "bench", .fmt = SIM_REPLAY_FEMU };
    struct sim_replay_result r;
    struct ftl_config c;
    struct ftl_counters k;
    struct ftl *ftl;
    char err[512];
    uint64_t best = UINT64_MAX, now = 0;
    uint8_t *fillbuf, *buf;
    size_t flen, len;

    cfg_of(&c, thres);
    for (int rep = 0; rep < 3; rep++) {
        uint64_t t0;

        ftl = ftl_new(&c, err, sizeof(err));
        if (!ftl) {
            fprintf(stderr, "replay-bench: %s\n", err);
            return -1;
        }
        fillbuf = build(&c, ftl_ns_blocks(ftl), 0, 100, true, 1, &flen);
        buf = build(&c, ftl_ns_blocks(ftl), n, write_pct, false, 7, &len);
        if (sim_replay_buf(ftl, &o, fillbuf, flen, false, &now, NULL, &r,
                           err, sizeof(err))) {
            fprintf(stderr, "replay-bench: fill: %s\n", err);
            return -1;
        }
        ftl_reset_counters(ftl);
        t0 = cpu_ns();
        if (sim_replay_buf(ftl, &o, buf, len, false, &now, NULL, &r, err,
                           sizeof(err))) {
            fprintf(stderr, "replay-bench: %s\n", err);
            return -1;
        }
        t0 = cpu_ns() - t0;
        if (t0 < best) {
            best = t0;
        }
        ftl_get_counters(ftl, &k);
        free(fillbuf);
        free(buf);
        ftl_free(ftl);
    }
    printf("| %3u%% | %u | %" PRIu64 " | ", write_pct, thres, n);
    if (k.host_pages_written) {
        printf("%.3f", (double)(k.host_pages_programmed + k.gc_pages_moved) /
               (double)k.host_pages_written);
    } else {
        printf("-");
    }
    printf(" | %" PRIu64 " | %.1f | **%.2f** |\n", k.gc_pages_moved,
           (double)best / (double)n, (double)n / ((double)best / 1e9) / 1e6);
    return 0;
}

/* What recording costs the device per command: ftl_iotrace_writer_append
 * of n records to a file in $TMPDIR (or /tmp), the close included. */
static int writer_cost(uint64_t n)
{
    struct ftl_config c;
    struct ftl_iotrace_hdr h;
    struct ftl_iotrace_writer *w;
    struct ftl_iotrace_rec r = { .op = FTL_IOTRACE_WRITE, .nsid = 1,
                                 .nlb = 8, .arg = FTL_PID_NONE };
    char path[4096], err[512];
    const char *dir = getenv("TMPDIR");
    uint64_t best = UINT64_MAX;

    snprintf(path, sizeof(path), "%s/femu-replay-bench-%d.ftr",
             dir ? dir : "/tmp", (int)getpid());
    cfg_of(&c, 75);
    ftl_iotrace_hdr_of(&h, &c, ftl_cfg_ns_blocks(&c), 0);
    for (int rep = 0; rep < 3; rep++) {
        uint64_t t0 = cpu_ns();

        w = ftl_iotrace_writer_open(path, &h, err, sizeof(err));
        if (!w) {
            fprintf(stderr, "replay-bench: %s\n", err);
            return -1;
        }
        for (uint64_t i = 0; i < n; i++) {
            r.slba = i * 8;
            r.time_ns = i * 1000;
            r.done_ns = i * 1000 + 200000;
            ftl_iotrace_writer_append(w, &r);
        }
        if (ftl_iotrace_writer_close(w, err, sizeof(err))) {
            fprintf(stderr, "replay-bench: %s\n", err);
            unlink(path);
            return -1;
        }
        t0 = cpu_ns() - t0;
        best = t0 < best ? t0 : best;
    }
    unlink(path);
    printf("\nrecording (the device's io_trace= writer): %" PRIu64 " records "
           "appended and closed in %.1f ns CPU per record (best of 3, file "
           "in %s)\n", n, (double)best / (double)n, dir ? dir : "/tmp");
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 20000000;

    if (n == 0) {
        fprintf(stderr, "usage: femu-replay-bench [RECORDS]\n");
        return 2;
    }
    printf("| writes | gc_thres_pcent | records | WAF | GC pages moved | "
           "ns / record | M records / s |\n|---|---|---|---|---|---|---|\n");
    if (mix(n, 0, 75) || mix(n, 10, 75) || mix(n, 30, 75) ||
        mix(n, 30, 95) || mix(n, 100, 95) || writer_cost(n)) {
        return 1;
    }
    return 0;
}
