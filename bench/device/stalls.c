/*
 * stalls: how often, and for how long, the host takes the CPU away from a
 * thread that only spins on the clock.  A FEMU poller waiting for a
 * completion's emulated time is such a thread: if the clock reaches the
 * due time while the poller is stalled, the completion is late by what is
 * left of the stall.  So the stalls give a floor under the lateness that
 * log page C1h reports, whatever FEMU does:
 *
 *   late_p99_floor = the x for which 1 % of all instants lie in a stall
 *                    with more than x of it still to come
 *
 * (a completion is due at an instant unrelated to the host's stalls).
 *
 *   stalls SECONDS
 *
 * spins for SECONDS reading CLOCK_MONOTONIC, records every gap between two
 * reads longer than 2 us, and prints one line:
 * "seconds stalls_per_s_over_20us lost_pct median_stall_ns max_stall_ns
 *  late_p99_floor_ns late_p999_floor_ns".
 * Part of bench/device/run.sh (phase host); built there with cc -O2.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MIN_GAP_NS 2000
#define MAX_GAPS   (1 << 22)

static int64_t now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/*
 * The x at which the share of time lying in a stall with more than x of
 * it left, sum(max(0, len - x)) / total, falls to share (gaps sorted).
 */
static int64_t floor_at(const int64_t *gap, size_t n, int64_t total,
                        double share)
{
    int64_t lo = 0, hi = n ? gap[n - 1] : 0;

    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        double t = 0;

        for (size_t i = 0; i < n; i++) {
            if (gap[i] > mid) {
                t += gap[i] - mid;
            }
        }
        if (t / total > share) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 5;
    int64_t *gap = malloc(MAX_GAPS * sizeof(*gap));
    size_t n = 0, over20 = 0;
    int64_t t0, prev, end, lost = 0, total;

    if (!gap || secs <= 0) {
        fprintf(stderr, "usage: stalls SECONDS\n");
        return 1;
    }
    t0 = prev = now_ns();
    end = t0 + (int64_t)(secs * 1e9);
    for (;;) {
        int64_t t = now_ns(), g = t - prev;

        prev = t;
        if (g > MIN_GAP_NS && n < MAX_GAPS) {
            gap[n++] = g;
            lost += g;
            over20 += g > 20000;
        }
        if (t >= end) {
            break;
        }
    }
    total = prev - t0;
    qsort(gap, n, sizeof(*gap), cmp_i64);
    printf("%.1f %.0f %.2f %lld %lld %lld %lld\n", total / 1e9,
           over20 / (total / 1e9), 100.0 * lost / total,
           (long long)(n ? gap[n / 2] : 0), (long long)(n ? gap[n - 1] : 0),
           (long long)floor_at(gap, n, total, 0.01),
           (long long)floor_at(gap, n, total, 0.001));
    free(gap);
    return 0;
}
