/*
 * FEMU zoned namespace model: the zone table in state files (ZONE
 * sections, include/hw/femu/zns.h), and what a restart does to it.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ftl-int.h"
#include "hw/femu/zns.h"

static uint64_t rec_len(uint32_t ext_size)
{
    return ZNS_STATE_REC + (uint64_t)ext_size;
}

int zns_state_write(const struct zns *z, uint32_t nsid, const uint8_t *ext,
                    uint32_t ext_size, uint64_t max, FILE *f, char *err,
                    size_t errlen)
{
    uint64_t per = max > ZNS_STATE_HDR ? (max - ZNS_STATE_HDR) /
                                         rec_len(ext_size) : 0;
    uint32_t first = 0;
    uint8_t *buf;
    int rc = 0;

    if (per == 0) {
        snprintf(err, errlen, "a zone record of %" PRIu64 " bytes does not "
                 "fit a state file section", rec_len(ext_size));
        return -1;
    }
    per = per < z->nzones ? per : z->nzones;
    buf = malloc(ZNS_STATE_HDR + per * rec_len(ext_size));
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* one section at least, even for a namespace of no zone */
    do {
        uint32_t count = (uint32_t)(z->nzones - first < per ?
                                    z->nzones - first : per);
        uint8_t *p = buf;

        memset(buf, 0, ZNS_STATE_HDR + count * rec_len(ext_size));
        ftl_le_put32(p, nsid);
        ftl_le_put32(p + 4, z->nzones);
        ftl_le_put64(p + 8, z->zone_blocks);
        ftl_le_put64(p + 16, z->zone_cap);
        ftl_le_put32(p + 24, first);
        ftl_le_put32(p + 28, count);
        ftl_le_put32(p + 32, ext_size);
        ftl_le_put64(p + 40, z->ctr.host_pages_written);
        ftl_le_put64(p + 48, z->ctr.host_pages_programmed);
        ftl_le_put64(p + 56, z->ctr.host_pages_read);
        ftl_le_put64(p + 64, z->ctr.zone_resets);
        ftl_le_put64(p + 72, z->ctr.blocks_erased);
        p += ZNS_STATE_HDR;
        for (uint32_t i = first; i < first + count; i++) {
            const struct zns_zone *zn = &z->zone[i];

            p[0] = zn->state;
            p[1] = (zn->programmed ? ZNS_STATE_F_PROGRAMMED : 0) |
                   (zn->zrwa ? ZNS_STATE_F_ZRWA : 0) |
                   (zn->zdev ? ZNS_STATE_F_ZDEV : 0);
            ftl_le_put32(p + 4, z->erases[i]);
            ftl_le_put64(p + 8, zn->wp);
            ftl_le_put64(p + 16, zn->dend);
            ftl_le_put64(p + 24, zn->prog);
            if (ext_size) {
                memcpy(p + ZNS_STATE_REC, ext + (uint64_t)i * ext_size,
                       ext_size);
            }
            p += rec_len(ext_size);
        }
        rc = ftl_state_write_section(f, FTL_STATE_SEC_ZONE, buf,
                                     (uint64_t)(p - buf), err, errlen);
        first += count;
    } while (!rc && first < z->nzones);
    free(buf);
    return rc;
}

uint32_t zns_state_nsid(const uint8_t *p, uint64_t len)
{
    return len >= ZNS_STATE_HDR ? ftl_le_get32(p) : 0;
}

static bool valid_state(uint8_t s)
{
    switch (s) {
    case ZNS_EMPTY:
    case ZNS_IMPLICIT_OPEN:
    case ZNS_EXPLICIT_OPEN:
    case ZNS_CLOSED:
    case ZNS_READ_ONLY:
    case ZNS_FULL:
    case ZNS_OFFLINE:
        return true;
    default:
        return false;
    }
}

static bool active_state(uint8_t s)
{
    return s == ZNS_IMPLICIT_OPEN || s == ZNS_EXPLICIT_OPEN ||
           s == ZNS_CLOSED;
}

/* Can the model hold this record for zone id?  NULL, or why not. */
static const char *check_rec(const struct zns *z, uint32_t id,
                             const uint8_t *r)
{
    uint64_t zs = (uint64_t)id * z->zone_blocks, cend = zs + z->zone_cap;
    uint64_t wp = ftl_le_get64(r + 8), dend = ftl_le_get64(r + 16);
    uint64_t prog = ftl_le_get64(r + 24);
    uint64_t pages = (z->zone_cap + z->blocks_per_page - 1) /
                     z->blocks_per_page;
    uint8_t s = r[0], fl = r[1];

    if (!valid_state(s) || fl & ~(ZNS_STATE_F_PROGRAMMED | ZNS_STATE_F_ZRWA |
                                  ZNS_STATE_F_ZDEV)) {
        return "a zone state or flag the model does not have";
    }
    if (wp < zs || wp > cend || dend < zs || dend > cend || prog > pages) {
        return "a write pointer outside its zone";
    }
    if (s == ZNS_EMPTY && (wp != zs || fl & (ZNS_STATE_F_ZRWA |
                                             ZNS_STATE_F_ZDEV))) {
        return "an Empty zone with a write pointer, ZRWA or extension";
    }
    if (s == ZNS_FULL && wp != cend) {
        return "a Full zone whose write pointer is not at its capacity";
    }
    if (fl & ZNS_STATE_F_ZRWA && (!active_state(s) || !z->cfg.zrwa_blocks)) {
        return "a ZRWA on a zone that cannot hold one";
    }
    if (!(fl & ZNS_STATE_F_ZRWA) && dend > wp && s != ZNS_READ_ONLY &&
        s != ZNS_OFFLINE) {
        return "data above the write pointer of a zone without a ZRWA";
    }
    return NULL;
}

int64_t zns_state_section(struct zns *z, const uint8_t *p, uint64_t len,
                          uint8_t *ext, uint32_t ext_size, char *err,
                          size_t errlen)
{
    uint32_t nz, first, count, fext;
    uint64_t zsze, zcap;

    if (len < ZNS_STATE_HDR) {
        snprintf(err, errlen, "corrupted state file (ZONE section of %"
                 PRIu64 " bytes)", len);
        return -1;
    }
    nz = ftl_le_get32(p + 4);
    zsze = ftl_le_get64(p + 8);
    zcap = ftl_le_get64(p + 16);
    first = ftl_le_get32(p + 24);
    count = ftl_le_get32(p + 28);
    fext = ftl_le_get32(p + 32);
    if (zsze != z->zone_blocks) {
        snprintf(err, errlen, "configuration mismatch: zone_size_mb: "
                 "zones of %" PRIu64 " logical blocks in the state file but "
                 "%" PRIu64 " here", zsze, z->zone_blocks);
        return -1;
    }
    if (nz != z->nzones) {
        snprintf(err, errlen, "configuration mismatch: %u zones in the state "
                 "file but %u here", nz, z->nzones);
        return -1;
    }
    if (zcap != z->zone_cap) {
        snprintf(err, errlen, "configuration mismatch: zone_cap_mb: a "
                 "capacity of %" PRIu64 " logical blocks in the state file "
                 "but %" PRIu64 " here", zcap, z->zone_cap);
        return -1;
    }
    if (fext != ext_size) {
        snprintf(err, errlen, "configuration mismatch: zns_zd_ext_size is "
                 "%u in the state file but %u here", fext, ext_size);
        return -1;
    }
    if (ftl_le_get32(p + 36) || first > nz || count > nz - first ||
        len != ZNS_STATE_HDR + count * rec_len(ext_size)) {
        snprintf(err, errlen, "corrupted state file (ZONE section of %"
                 PRIu64 " bytes: zones %u to %u of %u)", len, first,
                 first + count, nz);
        return -1;
    }
    /* checked whole before any zone changes */
    for (uint32_t i = 0; i < count; i++) {
        const char *why = check_rec(z, first + i, p + ZNS_STATE_HDR +
                                    i * rec_len(ext_size));

        if (why) {
            snprintf(err, errlen, "corrupted state file (zone %u: %s)",
                     first + i, why);
            return -1;
        }
    }
    z->ctr.host_pages_written = ftl_le_get64(p + 40);
    z->ctr.host_pages_programmed = ftl_le_get64(p + 48);
    z->ctr.host_pages_read = ftl_le_get64(p + 56);
    z->ctr.zone_resets = ftl_le_get64(p + 64);
    z->ctr.blocks_erased = ftl_le_get64(p + 72);
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *r = p + ZNS_STATE_HDR + i * rec_len(ext_size);
        struct zns_zone *zn = &z->zone[first + i];

        zn->state = r[0];
        zn->programmed = !!(r[1] & ZNS_STATE_F_PROGRAMMED);
        zn->zrwa = !!(r[1] & ZNS_STATE_F_ZRWA);
        zn->zdev = !!(r[1] & ZNS_STATE_F_ZDEV);
        z->erases[first + i] = ftl_le_get32(r + 4);
        zn->wp = ftl_le_get64(r + 8);
        zn->dend = ftl_le_get64(r + 16);
        zn->prog = ftl_le_get64(r + 24);
        if (ext_size) {
            memcpy(ext + (uint64_t)(first + i) * ext_size, r + ZNS_STATE_REC,
                   ext_size);
        }
    }
    return count;
}

int zns_state_restart(struct zns *z, char *err, size_t errlen)
{
    z->nr_open = z->nr_active = z->nr_zrwa = 0;
    z->ihead = z->itail = FTL_NONE;
    z->nchanged = 0;
    z->worn = 0;
    for (uint32_t i = 0; i < z->nzones; i++) {
        struct zns_zone *zn = &z->zone[i];

        zn->iprev = zn->inext = FTL_NONE;
        zn->changed = 0;
        if (zn->state == ZNS_IMPLICIT_OPEN ||
            zn->state == ZNS_EXPLICIT_OPEN) {
            /* the shutdown closes open zones, as a Close would */
            zn->state = zn->wp == (uint64_t)i * z->zone_blocks &&
                        !zn->zrwa && !zn->zdev ? ZNS_EMPTY : ZNS_CLOSED;
        }
        /* a zone its erases wore out went Offline at that reset */
        z->worn += zn->state == ZNS_OFFLINE && z->cfg.nand.pe_cycles &&
                   z->erases[i] >= z->cfg.nand.pe_cycles;
        z->nr_active += active_state(zn->state);
        z->nr_zrwa += zn->zrwa;
    }
    if (z->cfg.max_active && z->nr_active > z->cfg.max_active) {
        snprintf(err, errlen, "configuration mismatch: zns_max_active=%u "
                 "but the state file has %u active (closed) zones",
                 z->cfg.max_active, z->nr_active);
        return -1;
    }
    if (z->nr_zrwa > z->cfg.zrwa_num) {
        snprintf(err, errlen, "configuration mismatch: zns_zrwa_num=%u but "
                 "the state file has %u zones with a ZRWA", z->cfg.zrwa_num,
                 z->nr_zrwa);
        return -1;
    }
    return 0;
}
