/*
 * copycost: what a write's 4 KiB copy into a large data store costs the
 * poller, with plain stores (memcpy) and with the device's streaming
 * copy (femu_copy_stream, include/hw/femu/copy-stream.h).
 *
 * Each copy goes to a random 4 KiB page of a STORE_MIB buffer (filled
 * first, transparent huge pages asked for, as the store is), then a
 * locked add follows, as the poller's next locked instruction (the FTL
 * lock) follows the copy: it waits for the copy's stores to leave the
 * core, so the time per copy includes them.  A random place in a large
 * store is not in the cache: plain stores read each line from memory
 * before they write it, streaming stores do not.
 *
 *   cc -O2 -Iinclude -o /tmp/copycost bench/device/copycost.c
 *   /tmp/copycost [COPIES [STORE_MIB]]      (default 200000, 1024)
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

#include "hw/femu/copy-stream.h"

#define PAGE 4096

static double now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
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
                femu_copy_stream(dst, src, PAGE);
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
