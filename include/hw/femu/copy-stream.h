/*
 * FEMU: copying a write's data into the store with streaming stores.
 *
 * Plain C (no QEMU headers): used by the device (hw/femu/prp.c) and by
 * bench/device/copycost.c, which measures it against memcpy.
 *
 * A write's data goes to a random place of a large store that nothing
 * reads soon.  Plain stores read each destination cache line from
 * memory before they write it (a miss per line); streaming stores do
 * not, and leave the cache to the rings and the FTL.  The fence orders
 * them before the caller's next stores, as plain ones would be.  Copies
 * shorter than a page, or to a destination not 16-byte aligned, use
 * memcpy, as do hosts without SSE2.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_FEMU_COPY_STREAM_H
#define HW_FEMU_COPY_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define FEMU_COPY_STREAM_MIN 4096

static inline void femu_copy_stream(void *dst, const void *src, size_t len)
{
#ifdef __SSE2__
    if (len >= FEMU_COPY_STREAM_MIN && !((uintptr_t)dst & 15)) {
        __m128i *d = dst;
        const __m128i *s = src;
        size_t n = len / 64;

        for (size_t i = 0; i < n; i++, d += 4, s += 4) {
            __m128i a = _mm_loadu_si128(s), b = _mm_loadu_si128(s + 1);
            __m128i c = _mm_loadu_si128(s + 2), e = _mm_loadu_si128(s + 3);

            _mm_stream_si128(d, a);
            _mm_stream_si128(d + 1, b);
            _mm_stream_si128(d + 2, c);
            _mm_stream_si128(d + 3, e);
        }
        _mm_sfence();
        memcpy(d, s, len % 64);
        return;
    }
#endif
    memcpy(dst, src, len);
}

#endif
