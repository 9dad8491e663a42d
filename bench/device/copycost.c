/*
 * copycost: what a write's 4 KiB copy into a large data store costs the
 * poller, with plain stores (memcpy) and with streaming stores (what
 * femu_copy_stream in hw/femu/prp.c does for copies of a page or more).
 *
 * Each copy goes to a random 4 KiB page of a STORE_MIB buffer (filled
 * first, transparent huge pages asked for, as the store is), then a
 * locked add follows, as the poller's next locked instruction (the FTL
 * lock) follows the copy: it waits for the copy's stores to leave the
 * core, so the time per copy includes them.  A random place in a large
 * store is not in the cache: plain stores read each line from memory
 * before they write it, streaming stores do not.
 *
 *   copycost [COPIES [STORE_MIB]]      (default 200000, 1024)
 *
 * prints "memcpy NS" and "stream NS": nanoseconds per copy.
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
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define PAGE 4096

static double now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void copy_stream(void *dst, const void *src, size_t len)
{
#ifdef __SSE2__
    __m128i *d = dst;
    const __m128i *s = src;

    for (size_t i = 0; i < len / 64; i++, d += 4, s += 4) {
        __m128i a = _mm_loadu_si128(s), b = _mm_loadu_si128(s + 1);
        __m128i c = _mm_loadu_si128(s + 2), e = _mm_loadu_si128(s + 3);

        _mm_stream_si128(d, a);
        _mm_stream_si128(d + 1, b);
        _mm_stream_si128(d + 2, c);
        _mm_stream_si128(d + 3, e);
    }
    _mm_sfence();
#else
    memcpy(dst, src, len);
#endif
}

int main(int argc, char **argv)
{
    long copies = argc > 1 ? atol(argv[1]) : 200000;
    size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 1024;
    size_t size = mib << 20, pages = size / PAGE;
    uint8_t *store, *src;
    unsigned seed = 1;
    int lock = 0;

    if (copies <= 0 || pages == 0) {
        fprintf(stderr, "usage: copycost [COPIES [STORE_MIB]]\n");
        return 2;
    }
    store = mmap(NULL, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    src = aligned_alloc(PAGE, PAGE);
    if (store == MAP_FAILED || !src) {
        perror("copycost");
        return 1;
    }
    madvise(store, size, MADV_HUGEPAGE);
    memset(store, 1, size);
    memset(src, 2, PAGE);
    for (int stream = 0; stream < 2; stream++) {
        double t0 = now_ns();

        for (long i = 0; i < copies; i++) {
            uint8_t *dst = store + (size_t)rand_r(&seed) % pages * PAGE;

            if (stream) {
                copy_stream(dst, src, PAGE);
            } else {
                memcpy(dst, src, PAGE);
            }
            __atomic_fetch_add(&lock, 1, __ATOMIC_SEQ_CST);
        }
        printf("%s %.0f\n", stream ? "stream" : "memcpy",
               (now_ns() - t0) / copies);
    }
    return lock != 2 * copies;
}
