/*
 * FEMU: the data store, sparse host memory holding the namespace.
 *
 * One anonymous private mapping of the namespace size, reserved but not
 * committed (MAP_NORESERVE): the kernel allocates a host page on the
 * first write to it, a read of a never-written page maps the shared zero
 * page, and a trim hands whole pages back with MADV_DONTNEED (they read
 * as zeroes again).  So only written pages cost memory.  A bitmap
 * records which 4 KiB chunks were written (femu_store_mark) and not
 * discarded since: the state file saves those, without asking the kernel
 * which pages are resident.  The store lives
 * as long as the device: controller resets and guest reboots keep it,
 * unrealize (QEMU exit) frees it.
 *
 * Concurrent access from several pollers needs no lock: each command
 * copies to or from its own LBA range, and overlapping commands from a
 * guest have undefined data (as on a real SSD) but never touch memory
 * outside the mapping.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/madvise.h"
#include "qemu/bitmap.h"
#include "qemu/units.h"
#include <sys/mman.h>
#include "femu.h"

int femu_store_init(FemuStore *s, uint64_t bytes, Error **errp)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (p == MAP_FAILED) {
        error_setg_errno(errp, errno, "cannot reserve %" PRIu64
                         " bytes of host memory for the namespace "
                         "(devsz_mb/op_pcent)", bytes);
        return -1;
    }
    s->base = p;
    s->size = bytes;
    s->written = bitmap_new(DIV_ROUND_UP(bytes, FEMU_STORE_CHUNK));
    s->dirty = bitmap_new(DIV_ROUND_UP(bytes, FEMU_STORE_CHUNK));
    return 0;
}

void femu_store_fini(FemuStore *s)
{
    if (s->base) {
        munmap(s->base, s->size);
        g_free(s->written);
        g_free(s->dirty);
        s->written = NULL;
        s->dirty = NULL;
        s->base = NULL;
        s->size = 0;
    }
}

void femu_store_mark(FemuStore *s, uint64_t off, uint64_t len)
{
    uint64_t end;

    if (off >= s->size || !len) {
        return;
    }
    end = MIN(off + len, s->size);
    for (uint64_t c = off / FEMU_STORE_CHUNK;
         c * FEMU_STORE_CHUNK < end; c++) {
        /* a locked operation only for a bit not yet set: rewrites of a
         * chunk (the common case) then cost two plain reads */
        if (!test_bit(c, s->written)) {
            set_bit_atomic(c, s->written);
        }
        if (!test_bit(c, s->dirty)) {
            set_bit_atomic(c, s->dirty);
        }
    }
}

/* Make [off, off + len) read as zeroes, releasing whole host pages. */
void femu_store_discard(FemuStore *s, uint64_t off, uint64_t len)
{
    uint64_t psz = qemu_real_host_page_size();
    uint64_t start, end, c0, c1;

    if (off >= s->size || !len) {
        return;
    }
    len = MIN(len, s->size - off);
    /* the chunks it zeroes whole hold nothing any more: cleared before
     * they are zeroed, so that a write racing with it (which marks after
     * its copy) never leaves data in a chunk whose bit is clear */
    c0 = DIV_ROUND_UP(off, FEMU_STORE_CHUNK);
    /* the last chunk of a store that is not a whole number of chunks
     * ends with the store */
    c1 = off + len == s->size ? DIV_ROUND_UP(s->size, FEMU_STORE_CHUNK)
                              : (off + len) / FEMU_STORE_CHUNK;
    for (uint64_t c = c0; c < c1; c++) {
        clear_bit_atomic(c, s->written);
    }
    /* every chunk it touches changes, a partial one too */
    for (uint64_t c = off / FEMU_STORE_CHUNK;
         c < DIV_ROUND_UP(off + len, FEMU_STORE_CHUNK); c++) {
        set_bit_atomic(c, s->dirty);
    }
    start = ROUND_UP(off, psz);
    end = ROUND_DOWN(off + len, psz);
    if (start >= end) {
        memset(s->base + off, 0, len);
        return;
    }
    if (start > off) {
        memset(s->base + off, 0, start - off);
    }
    if (off + len > end) {
        memset(s->base + end, 0, off + len - end);
    }
    if (qemu_madvise(s->base + start, end - start, QEMU_MADV_DONTNEED)) {
        /* cannot release: zero them instead (costs memory, not data) */
        memset(s->base + start, 0, end - start);
    }
}

/*
 * Zeroes that never-written data is read from.  A never-written or
 * discarded page of the store is not mapped (or was released): reading
 * it takes a page fault that maps the shared zero page, once per page
 * and again after each discard, so a read of never-written blocks cost
 * more host CPU than a read of written ones, not less.  Reading from
 * this buffer instead costs nothing the written case does not.
 */
#define FEMU_ZERO_BUF   (128 * KiB)
static uint8_t femu_zero_buf[FEMU_ZERO_BUF];

uint8_t *femu_store_read_src(FemuStore *s, uint64_t off, uint64_t len)
{
    uint64_t c0 = off / FEMU_STORE_CHUNK;
    uint64_t c1 = DIV_ROUND_UP(off + len, FEMU_STORE_CHUNK);

    if (len <= FEMU_ZERO_BUF && off + len <= s->size &&
        find_next_bit(s->written, c1, c0) >= c1) {
        return femu_zero_buf;
    }
    return s->base + off;
}
