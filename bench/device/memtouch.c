/*
 * memtouch: how long the host takes to copy one 4 KiB page of an
 * anonymous mapping that was written once and is then touched only now
 * and then, at random.  This is what a FEMU poller does for every 4 KiB
 * command (the store is such a mapping; a read copies one of its pages to
 * guest RAM, a write copies into one), so the copy's tail on a host is a
 * floor under the lateness of reads with NAND times 0 (log page C1h).
 *
 *   memtouch WS_MIB COPIES RATE     e.g. memtouch 256 20000 4000
 *
 * maps WS_MIB MiB like FEMU's store (private, anonymous, no reserve),
 * writes all of it once, then makes COPIES copies of a random page, half
 * from the mapping and half into it, RATE per second (a spin wait between
 * copies, so no sleep is timed), and prints the copy time percentiles in
 * nanoseconds on one line: "ws_mib copies rate p50 p90 p99 p999 max".
 * Part of bench/device/run.sh; built there with cc -O2.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define PAGE 4096

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* xorshift64: a fixed seed, so every run copies the same page sequence */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int main(int argc, char **argv)
{
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    size_t ws, npages;
    long n, rate;
    int64_t gap, *t;
    uint8_t *map, *buf;

    if (argc != 4 || (ws = strtoul(argv[1], NULL, 0)) == 0 ||
        (n = atol(argv[2])) <= 0 || (rate = atol(argv[3])) <= 0) {
        fprintf(stderr, "usage: memtouch WS_MIB COPIES RATE\n");
        return 2;
    }
    npages = ws * 1024 * 1024 / PAGE;
    gap = 1000000000 / rate;
    map = mmap(NULL, npages * PAGE, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    buf = aligned_alloc(PAGE, PAGE);
    t = calloc(n, sizeof(*t));
    if (map == MAP_FAILED || !buf || !t) {
        perror("memtouch");
        return 1;
    }
    memset(map, 0x5a, npages * PAGE);
    memset(buf, 0xa5, PAGE);
    for (long i = 0; i < n; i++) {
        uint8_t *page = map + (rnd(&seed) % npages) * PAGE;
        int64_t t0 = now_ns(), t1;

        if (i & 1) {
            memcpy(page, buf, PAGE);
        } else {
            memcpy(buf, page, PAGE);
        }
        t1 = now_ns();
        t[i] = t1 - t0;
        while (now_ns() - t1 < gap) {
            /* spin: a timed sleep would add its own wake-up jitter */
        }
    }
    qsort(t, n, sizeof(*t), cmp_i64);
    printf("%zu %ld %ld %lld %lld %lld %lld %lld\n", ws, n, rate,
           (long long)t[n / 2], (long long)t[n * 9 / 10],
           (long long)t[n * 99 / 100], (long long)t[n * 999 / 1000],
           (long long)t[n - 1]);
    return 0;
}
