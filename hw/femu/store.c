/*
 * FEMU: the data store, sparse host memory holding the namespace.
 *
 * One anonymous private mapping of the namespace size, reserved but not
 * committed (MAP_NORESERVE): the kernel allocates a host page on the
 * first write to it, a read of a never-written page maps the shared zero
 * page, and a trim hands whole pages back with MADV_DONTNEED (they read
 * as zeroes again).  So only written pages cost memory.  The store lives
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
    return 0;
}

void femu_store_fini(FemuStore *s)
{
    if (s->base) {
        munmap(s->base, s->size);
        s->base = NULL;
        s->size = 0;
    }
}

/* Make [off, off + len) read as zeroes, releasing whole host pages. */
void femu_store_discard(FemuStore *s, uint64_t off, uint64_t len)
{
    uint64_t psz = qemu_real_host_page_size();
    uint64_t start, end;

    if (off >= s->size || !len) {
        return;
    }
    len = MIN(len, s->size - off);
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
