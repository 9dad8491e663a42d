/*
 * FEMU: data transfer through Scatter Gather Lists (NVMe 2.0 base spec
 * 4.1.2 "Scatter Gather List (SGL)" and the SGL Support field of
 * Identify Controller).
 *
 * Supported: SGL Data Block, Bit Bucket (controller to host only),
 * Segment and Last Segment descriptors, Address sub type, byte aligned
 * data blocks of any length.  Not supported (SGLS bits clear): Keyed and
 * Transport data blocks, the Offset sub type, an SGL longer than the
 * transfer, metadata SGLs (FEMU has no separate metadata).
 *
 * The whole list is read and checked before any data moves, so a bad
 * SGL gets its status with nothing transferred, and the guest cannot
 * change the list under a transfer (a read's data landing on its own
 * segment list changes nothing: the list was read already).  Work is
 * bounded: at most FEMU_SGL_MAX_DESCS descriptors and FEMU_SGL_MAX_SEGS
 * segments per command, and a segment that overlaps one read before
 * (a loop) is refused.  Data lands only in the Data Block descriptors'
 * ranges, and never more than the command's length in total.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu.h"
#include "trace.h"

typedef struct FemuSglEnt {
    uint64_t addr;
    uint32_t len;
    bool bucket;            /* Bit Bucket: the data is discarded */
} FemuSglEnt;

typedef struct FemuSglWalk {
    FemuCtrl *n;
    bool to_guest;
    uint64_t left;          /* bytes not yet described */
    uint32_t ndescs;        /* descriptors seen (all segments) */
    uint32_t nsegs;
    uint64_t seg_addr[FEMU_SGL_MAX_SEGS];
    uint64_t seg_len[FEMU_SGL_MAX_SEGS];
    GArray *ents;           /* FemuSglEnt */
} FemuSglWalk;

static uint16_t femu_sgl_err(const char *why, const NvmeSglDescriptor *d,
                             uint16_t status)
{
    FEMU_GUEST_ERR(femu_sgl_bad, why, le64_to_cpu(d->addr),
                   le32_to_cpu(d->len), d->type, status);
    return status | NVME_DNR;
}

/* A Data Block or Bit Bucket descriptor: add what it describes. */
static uint16_t femu_sgl_data(FemuSglWalk *w, const NvmeSglDescriptor *d)
{
    uint8_t type = NVME_SGL_TYPE(d->type);
    uint64_t addr = le64_to_cpu(d->addr);
    uint32_t len = le32_to_cpu(d->len);
    FemuSglEnt e;

    if (type == NVME_SGL_DESCR_TYPE_BIT_BUCKET && !w->to_guest) {
        /* a bit bucket only discards data the controller sends */
        return femu_sgl_err("bit bucket in a host to controller transfer",
                            d, NVME_SGL_DESCR_TYPE_INVALID);
    }
    if (!len) {
        return NVME_SUCCESS;    /* valid: transfers nothing */
    }
    if (len > w->left) {
        /* SGLS bit 18 (SGL longer than the data) is clear */
        return femu_sgl_err("longer than the transfer", d,
                            NVME_DATA_SGL_LEN_INVALID);
    }
    if (type == NVME_SGL_DESCR_TYPE_DATA_BLOCK && addr + len < addr) {
        return femu_sgl_err("data block wraps the address space", d,
                            NVME_DATA_SGL_LEN_INVALID);
    }
    e.addr = addr;
    e.len = len;
    e.bucket = type == NVME_SGL_DESCR_TYPE_BIT_BUCKET;
    g_array_append_val(w->ents, e);
    w->left -= len;
    return NVME_SUCCESS;
}

/* The descriptor's type and sub type are ones FEMU accepts. */
static uint16_t femu_sgl_check_type(const NvmeSglDescriptor *d)
{
    switch (NVME_SGL_TYPE(d->type)) {
    case NVME_SGL_DESCR_TYPE_DATA_BLOCK:
    case NVME_SGL_DESCR_TYPE_BIT_BUCKET:
    case NVME_SGL_DESCR_TYPE_SEGMENT:
    case NVME_SGL_DESCR_TYPE_LAST_SEGMENT:
        break;
    default:
        /* Keyed, Transport, vendor specific and reserved types */
        return femu_sgl_err("type not supported", d,
                            NVME_SGL_DESCR_TYPE_INVALID);
    }
    switch (NVME_SGL_SUBTYPE(d->type)) {
    case NVME_SGL_DESCR_SUBTYPE_ADDRESS:
        return NVME_SUCCESS;
    case FEMU_SGL_DESCR_SUBTYPE_OFFSET:
        /* an offset into in-capsule data: there is none over PCIe */
        return femu_sgl_err("offset sub type", d, FEMU_SGL_OFFSET_INVALID);
    default:
        return femu_sgl_err("sub type not supported", d,
                            NVME_SGL_DESCR_TYPE_INVALID);
    }
}

static bool femu_sgl_is_seg(const NvmeSglDescriptor *d)
{
    uint8_t type = NVME_SGL_TYPE(d->type);

    return type == NVME_SGL_DESCR_TYPE_SEGMENT ||
           type == NVME_SGL_DESCR_TYPE_LAST_SEGMENT;
}

/*
 * Check a (Last) Segment descriptor and read the segment it points to
 * into *out (g_free it); *count is its number of descriptors.
 */
static uint16_t femu_sgl_read_seg(FemuSglWalk *w, const NvmeSglDescriptor *d,
                                  NvmeSglDescriptor **out, uint32_t *count)
{
    uint64_t addr = le64_to_cpu(d->addr);
    uint32_t len = le32_to_cpu(d->len);
    NvmeSglDescriptor *seg;

    if (!w->left) {
        /* the data is all described: more segments are excess */
        return femu_sgl_err("segment after the last data", d,
                            NVME_DATA_SGL_LEN_INVALID);
    }
    if (!len || len % sizeof(NvmeSglDescriptor)) {
        return femu_sgl_err("segment length", d, NVME_INVALID_SGL_SEG_DESCR);
    }
    if (addr & 7 || addr + len < addr) {
        /* an SGL segment is Qword aligned */
        return femu_sgl_err("segment address", d,
                            NVME_INVALID_SGL_SEG_DESCR);
    }
    for (uint32_t i = 0; i < w->nsegs; i++) {
        if (addr < w->seg_addr[i] + w->seg_len[i] &&
            w->seg_addr[i] < addr + len) {
            return femu_sgl_err("segment overlaps an earlier one (loop)", d,
                                NVME_INVALID_SGL_SEG_DESCR);
        }
    }
    if (w->nsegs == FEMU_SGL_MAX_SEGS ||
        len / sizeof(NvmeSglDescriptor) > FEMU_SGL_MAX_DESCS - w->ndescs) {
        return femu_sgl_err("more descriptors than FEMU reads", d,
                            NVME_INVALID_NUM_SGL_DESCRS);
    }
    w->seg_addr[w->nsegs] = addr;
    w->seg_len[w->nsegs] = len;
    w->nsegs++;
    *count = len / sizeof(NvmeSglDescriptor);
    w->ndescs += *count;
    seg = g_malloc(len);
    if (!femu_dma_read(w->n, addr, seg, len)) {
        g_free(seg);
        return femu_sgl_err("segment not in guest RAM", d,
                            NVME_DATA_TRAS_ERROR);
    }
    *out = seg;
    return NVME_SUCCESS;
}

/* Read and check the whole SGL whose first descriptor is in the command. */
static uint16_t femu_sgl_walk(FemuSglWalk *w, const NvmeSglDescriptor *first)
{
    NvmeSglDescriptor d = *first;
    uint16_t status;

    status = femu_sgl_check_type(&d);
    if (status) {
        return status;
    }
    if (!femu_sgl_is_seg(&d)) {
        /* the whole SGL is this one descriptor */
        w->ndescs = 1;
        status = femu_sgl_data(w, &d);
        goto out;
    }
    for (;;) {
        bool last = NVME_SGL_TYPE(d.type) == NVME_SGL_DESCR_TYPE_LAST_SEGMENT;
        NvmeSglDescriptor *seg = NULL;
        bool next = false;
        uint32_t count = 0;

        status = femu_sgl_read_seg(w, &d, &seg, &count);
        if (status) {
            return status;
        }
        for (uint32_t i = 0; i < count && !status; i++) {
            status = femu_sgl_check_type(&seg[i]);
            if (status) {
                break;
            }
            if (!femu_sgl_is_seg(&seg[i])) {
                status = femu_sgl_data(w, &seg[i]);
            } else if (last) {
                /* a last segment holds no segment descriptor */
                status = femu_sgl_err("segment descriptor in the last "
                                      "segment", &seg[i],
                                      NVME_INVALID_SGL_SEG_DESCR);
            } else if (i != count - 1) {
                /* only a segment's last descriptor may point on */
                status = femu_sgl_err("segment descriptor before the end "
                                      "of its segment", &seg[i],
                                      NVME_INVALID_NUM_SGL_DESCRS);
            } else {
                d = seg[i];
                next = true;
            }
        }
        g_free(seg);
        if (status) {
            return status;
        }
        if (!next) {
            break;
        }
    }
out:
    if (!status && w->left) {
        status = femu_sgl_err("shorter than the transfer", first,
                              NVME_DATA_SGL_LEN_INVALID);
    }
    return status;
}

uint16_t femu_dma_sgl(FemuCtrl *n, const NvmeSglDescriptor *sgl,
                      uint8_t *buf, uint64_t len, bool to_guest)
{
    /* on the stack, as femu_dma_prp's list page; the segment arrays are
     * only read below nsegs, so only the counters are set */
    FemuSglWalk w;
    uint16_t status;

    if (!len) {
        return NVME_SUCCESS;
    }
    if (len > n->max_xfer) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (sgl->type == (NVME_SGL_DESCR_TYPE_DATA_BLOCK << 4) &&
        le32_to_cpu(sgl->len) == len &&
        le64_to_cpu(sgl->addr) + len > le64_to_cpu(sgl->addr)) {
        /* the whole transfer in one Data Block (Linux's single pieces):
         * what the walk below would find, without building a list */
        uint64_t addr = le64_to_cpu(sgl->addr);
        bool ok = to_guest ? femu_dma_write(n, addr, buf, len)
                           : femu_dma_read(n, addr, buf, len);

        status = ok ? NVME_SUCCESS : NVME_DATA_TRAS_ERROR | NVME_DNR;
        if (!ok) {
            FEMU_GUEST_ERR(femu_sgl_xfer_failed, addr, len);
        }
        trace_femu_sgl(len, to_guest, 0, 1, 1, status);
        return status;
    }
    w.n = n;
    w.to_guest = to_guest;
    w.left = len;
    w.ndescs = 0;
    w.nsegs = 0;
    w.ents = g_array_sized_new(false, false, sizeof(FemuSglEnt), 8);
    status = femu_sgl_walk(&w, sgl);
    trace_femu_sgl(len, to_guest, w.nsegs, w.ndescs, w.ents->len, status);
    for (guint i = 0; i < w.ents->len && !status; i++) {
        FemuSglEnt *e = &g_array_index(w.ents, FemuSglEnt, i);
        bool ok = e->bucket ||
                  (to_guest ? femu_dma_write(n, e->addr, buf, e->len)
                            : femu_dma_read(n, e->addr, buf, e->len));

        if (!ok) {
            FEMU_GUEST_ERR(femu_sgl_xfer_failed, e->addr, e->len);
            status = NVME_DATA_TRAS_ERROR | NVME_DNR;
        }
        buf += e->len;
    }
    g_array_free(w.ents, true);
    return status;
}
