/*
 * FEMU zoned namespace model: zone state machine, write pointers, the
 * zone-to-NAND mapping and its timing (include/hw/femu/zns.h).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftl-int.h"
#include "hw/femu/zns.h"

#define ZNS_MIB (1024u * 1024u)

void zns_config_default(struct zns_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    ftl_config_default(&cfg->nand);
    cfg->zone_luns = 4;
}

static uint64_t block_bytes(const struct ftl_config *c)
{
    return (uint64_t)c->pgs_per_blk * c->secs_per_pg * 512u;
}

/* Bytes of the smallest zone: one block on each plane of zone_luns LUNs. */
static uint64_t zone_unit_bytes(const struct zns_config *cfg)
{
    return (uint64_t)cfg->zone_luns * cfg->nand.pls_per_lun *
           block_bytes(&cfg->nand);
}

static uint64_t zone_bytes(const struct zns_config *cfg)
{
    return cfg->zone_size_mb ? cfg->zone_size_mb * ZNS_MIB
                             : zone_unit_bytes(cfg);
}

/*
 * FEMU's zoned properties that reach the model through another value:
 * the checks the device (hw/femu/props.c, hw/femu/zns.c) and femu-sim
 * share, with FEMU upstream's limits (Identify's ZRWAS and ZRWAFG are 16
 * bits, the write pointer moves by whole granules, ZDES counts 64-byte
 * units in 8 bits).
 */
int zns_check_zrwa_ext(uint64_t zrwa_size, uint64_t zrwafg_size,
                       uint32_t zrwa_num, uint32_t zd_ext_size, char *err,
                       size_t errlen)
{
    if (zrwa_size) {
        if (zrwa_size > UINT16_MAX) {
            snprintf(err, errlen, "zns_zrwa_size=%" PRIu64 ": must be "
                     "0..65535 (logical blocks)", zrwa_size);
            return -1;
        }
        if (!zrwafg_size || zrwafg_size > UINT16_MAX) {
            snprintf(err, errlen, "zns_zrwafg_size=%" PRIu64 ": must be "
                     "1..65535 with zns_zrwa_size set", zrwafg_size);
            return -1;
        }
        if (zrwa_size % zrwafg_size) {
            snprintf(err, errlen, "zns_zrwa_size=%" PRIu64 ": must be a "
                     "multiple of zns_zrwafg_size=%" PRIu64, zrwa_size,
                     zrwafg_size);
            return -1;
        }
        if (!zrwa_num) {
            snprintf(err, errlen, "zns_zrwa_num=0: must be at least 1 with "
                     "zns_zrwa_size set");
            return -1;
        }
    } else if (zrwafg_size || zrwa_num) {
        snprintf(err, errlen, "%s=%" PRIu64 ": needs zns_zrwa_size (no ZRWA "
                 "without it)", zrwafg_size ? "zns_zrwafg_size" :
                 "zns_zrwa_num", zrwafg_size ? zrwafg_size :
                 (uint64_t)zrwa_num);
        return -1;
    }
    if (zd_ext_size % 64 || zd_ext_size > 255 * 64) {
        snprintf(err, errlen, "zns_zd_ext_size=%u: must be a multiple of 64 "
                 "up to 16320", zd_ext_size);
        return -1;
    }
    return 0;
}

int zns_zone_cap_prop(uint64_t bytes, uint64_t *zone_cap_mb, char *err,
                      size_t errlen)
{
    if (bytes % ZNS_MIB) {
        snprintf(err, errlen, "zns_zone_cap=%" PRIu64 ": must be a whole "
                 "number of MiB", bytes);
        return -1;
    }
    if (bytes) {
        *zone_cap_mb = bytes / ZNS_MIB;
    }
    return 0;
}

int zns_chnls_per_zone_prop(uint64_t chnls, uint32_t nchs,
                            uint32_t luns_per_ch, uint32_t *zone_luns,
                            char *err, size_t errlen)
{
    if (!chnls) {
        return 0;
    }
    if (chnls > nchs || nchs % chnls) {
        snprintf(err, errlen, "zns_chnls_per_zone=%" PRIu64 ": must divide "
                 "nchs=%u", chnls, nchs);
        return -1;
    }
    *zone_luns = (uint32_t)chnls * luns_per_ch;
    return 0;
}

int zns_flash_type_prop(int64_t type, bool cell_given, uint32_t *cell_type,
                        char *err, size_t errlen)
{
    if (type < FTL_CELL_SLC || type > FTL_CELL_QLC) {
        snprintf(err, errlen, "zns_flash_type=%" PRId64 ": must be 1 (SLC), "
                 "2 (MLC), 3 (TLC) or 4 (QLC)", type);
        return -1;
    }
    if (cell_given && *cell_type != (uint32_t)type) {
        snprintf(err, errlen, "zns_flash_type=%" PRId64 ": nand_cell_type=%u "
                 "says otherwise", type, *cell_type);
        return -1;
    }
    *cell_type = (uint32_t)type;
    return 0;
}

int zns_zasl_bs_prop(uint64_t bs, uint8_t *zasl, char *err, size_t errlen)
{
    uint64_t pages = bs / 4096;
    uint8_t shift = 0;

    if (bs && (bs % 4096 || (pages & (pages - 1)))) {
        snprintf(err, errlen, "zns_zasl_bs=%" PRIu64 ": must be 0 or 4096 x "
                 "a power of two", bs);
        return -1;
    }
    while (pages > 1) {
        pages >>= 1;
        shift++;
    }
    *zasl = shift;
    return 0;
}

int zns_config_validate(const struct zns_config *cfg, char *err,
                        size_t errlen)
{
    const struct ftl_config *c = &cfg->nand;
    uint64_t nluns = (uint64_t)c->nchs * c->luns_per_ch;
    uint64_t unit, zbytes, cap, k, zblocks;

    if (!c->nchs || !c->luns_per_ch || !c->pls_per_lun || !c->blks_per_pl ||
        !c->pgs_per_blk || !c->secs_per_pg) {
        snprintf(err, errlen, "nchs, luns_per_ch, pls_per_lun, blks_per_pl, "
                 "pgs_per_blk and secs_per_pg must all be at least 1");
        return -1;
    }
    if (c->secsz != 512 && c->secsz != 4096) {
        snprintf(err, errlen, "secsz=%u: must be 512 or 4096", c->secsz);
        return -1;
    }
    if ((uint64_t)c->secs_per_pg * 512u % c->secsz) {
        snprintf(err, errlen, "secs_per_pg=%u: a NAND page must hold whole "
                 "%u-byte logical blocks", c->secs_per_pg, c->secsz);
        return -1;
    }
    if (cfg->zone_luns == 0 || nluns % cfg->zone_luns) {
        snprintf(err, errlen, "zone_luns=%u: must divide the %" PRIu64
                 " LUNs (nchs x luns_per_ch)", cfg->zone_luns, nluns);
        return -1;
    }
    unit = zone_unit_bytes(cfg);
    zbytes = zone_bytes(cfg);
    if (cfg->zone_size_mb > UINT32_MAX || zbytes % unit) {
        snprintf(err, errlen, "zone_size_mb=%" PRIu64 ": must be a multiple "
                 "of %" PRIu64 " KiB (one erase block on each plane of "
                 "zone_luns=%u LUNs)", cfg->zone_size_mb, unit / 1024,
                 cfg->zone_luns);
        return -1;
    }
    k = zbytes / unit;
    if (k > c->blks_per_pl) {
        snprintf(err, errlen, "zone_size_mb=%" PRIu64 ": needs %" PRIu64
                 " blocks per plane, blks_per_pl=%u", cfg->zone_size_mb, k,
                 c->blks_per_pl);
        return -1;
    }
    zblocks = zbytes / c->secsz;
    if (zblocks & (zblocks - 1)) {
        snprintf(err, errlen, "zone_size_mb=%" PRIu64 ": a zone of %" PRIu64
                 " logical blocks is not a power of two (Linux needs one)",
                 cfg->zone_size_mb ? cfg->zone_size_mb : zbytes / ZNS_MIB,
                 zblocks);
        return -1;
    }
    cap = cfg->zone_cap_mb ? cfg->zone_cap_mb * ZNS_MIB : zbytes;
    if (cfg->zone_cap_mb > UINT32_MAX || cap > zbytes) {
        snprintf(err, errlen, "zone_cap_mb=%" PRIu64 ": must be at most the "
                 "zone size (%" PRIu64 " MiB)", cfg->zone_cap_mb,
                 zbytes / ZNS_MIB);
        return -1;
    }
    if (cfg->max_active && cfg->max_open > cfg->max_active) {
        snprintf(err, errlen, "max_open=%u: must be at most max_active=%u",
                 cfg->max_open, cfg->max_active);
        return -1;
    }
    if (cfg->zrwa_blocks &&
        (!cfg->zrwafg_blocks || cfg->zrwa_blocks % cfg->zrwafg_blocks ||
         !cfg->zrwa_num)) {
        snprintf(err, errlen, "zns_zrwa_size=%u: needs zns_zrwafg_size "
                 "dividing it and zns_zrwa_num of at least 1",
                 cfg->zrwa_blocks);
        return -1;
    }
    /* a ZRWA belongs to an open zone (it is allocated by an Open and
     * kept while the zone is active): more of them than zones can be
     * open at once could never be used */
    if (cfg->zrwa_blocks && (cfg->max_open || cfg->max_active) &&
        cfg->zrwa_num > (cfg->max_open ? cfg->max_open : cfg->max_active)) {
        snprintf(err, errlen, "zns_zrwa_num=%u: more ZRWA resources than "
                 "zones can be open (%s=%u)", cfg->zrwa_num,
                 cfg->max_open ? "max_open" : "max_active",
                 cfg->max_open ? cfg->max_open : cfg->max_active);
        return -1;
    }
    if (cfg->zrwa_blocks && cfg->zrwa_blocks > cap / c->secsz) {
        snprintf(err, errlen, "zns_zrwa_size=%u: must be at most the zone "
                 "capacity (%" PRIu64 " logical blocks)", cfg->zrwa_blocks,
                 cap / c->secsz);
        return -1;
    }
    if ((uint64_t)c->write_cache_mb * ZNS_MIB >
        zbytes * (nluns / cfg->zone_luns) *
        (c->blks_per_pl / k)) {
        snprintf(err, errlen, "write_cache_mb=%u exceeds the zoned namespace "
                 "(%" PRIu64 " MiB)", c->write_cache_mb,
                 zbytes * (nluns / cfg->zone_luns) * (c->blks_per_pl / k) /
                 ZNS_MIB);
        return -1;
    }
    if (cfg->max_open == 0 && cfg->max_active) {
        snprintf(err, errlen, "max_open=0 (no limit) needs max_active=0 "
                 "too: open zones are active");
        return -1;
    }
    return 0;
}

struct zns *zns_new(const struct zns_config *cfg, char *err, size_t errlen)
{
    struct zns *z;
    uint32_t per_group;

    if (zns_config_validate(cfg, err, errlen)) {
        return NULL;
    }
    z = calloc(1, sizeof(*z));
    if (!z) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    z->cfg = *cfg;
    z->nluns = cfg->nand.nchs * cfg->nand.luns_per_ch;
    z->ngroups = z->nluns / cfg->zone_luns;
    z->blks_per_zone_pl = (uint32_t)(zone_bytes(cfg) / zone_unit_bytes(cfg));
    z->blocks_per_page = cfg->nand.secs_per_pg * 512u / cfg->nand.secsz;
    z->zone_blocks = zone_bytes(cfg) / cfg->nand.secsz;
    z->zone_cap = cfg->zone_cap_mb ?
                  cfg->zone_cap_mb * ZNS_MIB / cfg->nand.secsz :
                  z->zone_blocks;
    per_group = cfg->nand.blks_per_pl / z->blks_per_zone_pl;
    z->nzones = z->ngroups * per_group;
    z->zone = calloc(z->nzones, sizeof(*z->zone));
    z->erases = calloc(z->nzones, sizeof(*z->erases));
    if (!z->zone || !z->erases || ftl_timing_setup(&z->tm, &cfg->nand) < 0) {
        snprintf(err, errlen, "out of memory for %u zones", z->nzones);
        zns_free(z);
        return NULL;
    }
    for (uint32_t i = 0; i < z->nzones; i++) {
        z->zone[i].wp = z->zone[i].dend = (uint64_t)i * z->zone_blocks;
        z->zone[i].state = ZNS_EMPTY;
        z->zone[i].iprev = z->zone[i].inext = FTL_NONE;
    }
    z->ihead = z->itail = FTL_NONE;
    /* the write cache: whole NAND pages */
    z->wc.cap_pages = (uint64_t)cfg->nand.write_cache_mb * ZNS_MIB /
                      ((uint64_t)cfg->nand.secs_per_pg * 512u);
    z->wc.on = z->wc.cap_pages != 0;
    return z;
}

void zns_free(struct zns *z)
{
    if (!z) {
        return;
    }
    ftl_timing_release(&z->tm);
    zns_wc_free(z);
    free(z->zone);
    free(z->erases);
    free(z);
}

uint64_t zns_ns_blocks(const struct zns *z)
{
    return (uint64_t)z->nzones * z->zone_blocks;
}

uint32_t zns_nr_zones(const struct zns *z)
{
    return z->nzones;
}

uint64_t zns_zone_blocks(const struct zns *z)
{
    return z->zone_blocks;
}

uint64_t zns_zone_cap_blocks(const struct zns *z)
{
    return z->zone_cap;
}

uint32_t zns_nr_open(const struct zns *z)
{
    return z->nr_open;
}

uint32_t zns_nr_active(const struct zns *z)
{
    return z->nr_active;
}

static uint64_t zslba(const struct zns *z, uint32_t zone)
{
    return (uint64_t)zone * z->zone_blocks;
}

void zns_zone_info(const struct zns *z, uint32_t zone,
                   struct zns_zone_info *info)
{
    info->state = (enum zns_state)z->zone[zone].state;
    info->zslba = zslba(z, zone);
    info->wp = z->zone[zone].wp;
    info->zcap = z->zone_cap;
    info->zrwa = z->zone[zone].zrwa;
    info->zdev = z->zone[zone].zdev;
}

/*
 * Zone z lives in LUN group z % ngroups (neighbouring zones on different
 * LUNs), block slot z / ngroups.  Its pages go round the group's LUNs
 * first; global LUNs are numbered channel first, so a group's LUNs are on
 * different channels as far as there are channels.
 */
uint32_t zns_page_lun(const struct zns *z, uint32_t zone, uint64_t page)
{
    return (zone % z->ngroups) * z->cfg.zone_luns +
           (uint32_t)(page % z->cfg.zone_luns);
}

/* Page index in its block of a zone's page: the zone's pages stripe over
 * its LUNs, so a LUN's successive pages are the block's successive
 * pages (cell-type timing needs the index). */
static uint32_t zns_page_pg(const struct zns *z, uint64_t page)
{
    return (uint32_t)(page / z->cfg.zone_luns % z->cfg.nand.pgs_per_blk);
}

/* ---- resources and the implicitly opened list ---- */

static void iopen_link(struct zns *z, uint32_t id)
{
    struct zns_zone *zn = &z->zone[id];

    zn->inext = FTL_NONE;
    zn->iprev = z->itail;
    if (z->itail != FTL_NONE) {
        z->zone[z->itail].inext = id;
    } else {
        z->ihead = id;
    }
    z->itail = id;
}

static void iopen_unlink(struct zns *z, uint32_t id)
{
    struct zns_zone *zn = &z->zone[id];

    if (zn->iprev != FTL_NONE) {
        z->zone[zn->iprev].inext = zn->inext;
    } else {
        z->ihead = zn->inext;
    }
    if (zn->inext != FTL_NONE) {
        z->zone[zn->inext].iprev = zn->iprev;
    } else {
        z->itail = zn->iprev;
    }
    zn->iprev = zn->inext = FTL_NONE;
}

static bool is_open(uint8_t s)
{
    return s == ZNS_IMPLICIT_OPEN || s == ZNS_EXPLICIT_OPEN;
}

static bool is_active(uint8_t s)
{
    return is_open(s) || s == ZNS_CLOSED;
}

/* Move zone id to state ns, keeping the open/active counts and the
 * implicitly opened list right. */
void zns_set_state(struct zns *z, uint32_t id, enum zns_state ns)
{
    struct zns_zone *zn = &z->zone[id];
    uint8_t os = zn->state;

    if (os == ZNS_IMPLICIT_OPEN) {
        iopen_unlink(z, id);
    }
    z->nr_open -= is_open(os);
    z->nr_active -= is_active(os);
    if (zn->zrwa && !is_active(ns)) {
        /* Full, Empty, Read Only, Offline: the ZRWA goes back */
        zn->zrwa = 0;
        z->nr_zrwa--;
    }
    zn->state = ns;
    z->nr_open += is_open(ns);
    z->nr_active += is_active(ns);
    if (ns == ZNS_IMPLICIT_OPEN) {
        iopen_link(z, id);
    }
}

/*
 * Can `act` more active and `opn` more open zones be had?  When the open
 * limit is the obstacle, the oldest implicitly opened zone is closed to
 * make room (the ZNS state machine lets the controller do that; it keeps
 * its active resource).
 */
static enum zns_result take_resources(struct zns *z, uint32_t act,
                                      uint32_t opn)
{
    uint32_t ma = z->cfg.max_active, mo = z->cfg.max_open;

    if (ma && z->nr_active + act > ma) {
        return ZNS_ERR_TOO_MANY_ACTIVE;
    }
    while (mo && z->nr_open + opn > mo) {
        if (z->ihead == FTL_NONE) {
            return ZNS_ERR_TOO_MANY_OPEN;
        }
        zns_set_state(z, z->ihead, ZNS_CLOSED);
    }
    return ZNS_OK;
}

/* Resources a zone in state s needs to become open. */
static enum zns_result open_from(struct zns *z, uint8_t s)
{
    switch (s) {
    case ZNS_EMPTY:
        return take_resources(z, 1, 1);
    case ZNS_CLOSED:
        return take_resources(z, 0, 1);
    default:
        return ZNS_OK;
    }
}

static enum zns_result write_state_check(uint8_t s)
{
    switch (s) {
    case ZNS_FULL:
        return ZNS_ERR_FULL;
    case ZNS_READ_ONLY:
        return ZNS_ERR_READ_ONLY;
    case ZNS_OFFLINE:
        return ZNS_ERR_OFFLINE;
    default:
        return ZNS_OK;
    }
}

/* The checks of a write, in the order the errors are reported; the
 * zone and the first block written come back in *id and *start. */
static enum zns_result write_prepare(const struct zns *z, uint64_t slba,
                                     uint32_t nlb, bool append, uint32_t *id,
                                     uint64_t *start)
{
    uint64_t ns = zns_ns_blocks(z);
    const struct zns_zone *zn;
    enum zns_result r;

    if (nlb == 0 || slba >= ns || nlb > ns - slba) {
        return ZNS_ERR_LBA_RANGE;
    }
    *id = (uint32_t)(slba / z->zone_blocks);
    zn = &z->zone[*id];
    if (append && slba != zslba(z, *id)) {
        return ZNS_ERR_INVALID_FIELD;
    }
    r = write_state_check(zn->state);
    if (r) {
        return r;
    }
    if (zn->zrwa) {
        /* anywhere from the write pointer to the end of the implicit
         * commit region, wp + 2 x the ZRWA size */
        if (append) {
            return ZNS_ERR_INVALID_ZONE_OP;
        }
        *start = slba;
        if (slba < zn->wp ||
            slba + nlb > zn->wp + 2 * (uint64_t)z->cfg.zrwa_blocks) {
            return ZNS_ERR_INVALID_WRITE;
        }
        if (slba + nlb > zslba(z, *id) + z->zone_cap) {
            return ZNS_ERR_BOUNDARY;
        }
        return ZNS_OK;
    }
    *start = append ? zn->wp : slba;
    if (!append && slba != zn->wp) {
        return ZNS_ERR_INVALID_WRITE;
    }
    if (*start + nlb > zslba(z, *id) + z->zone_cap) {
        return ZNS_ERR_BOUNDARY;
    }
    return ZNS_OK;
}

/* take_resources() without changing anything. */
static enum zns_result resources_ok(const struct zns *z, uint8_t s)
{
    uint32_t act = s == ZNS_EMPTY, opn = s == ZNS_EMPTY || s == ZNS_CLOSED;

    if (z->cfg.max_active && z->nr_active + act > z->cfg.max_active) {
        return ZNS_ERR_TOO_MANY_ACTIVE;
    }
    if (z->cfg.max_open && z->nr_open + opn > z->cfg.max_open &&
        z->ihead == FTL_NONE) {
        return ZNS_ERR_TOO_MANY_OPEN;
    }
    return ZNS_OK;
}

enum zns_result zns_write_check(const struct zns *z, uint64_t slba,
                                uint32_t nlb, bool append, uint64_t *start)
{
    uint32_t id;
    enum zns_result r = write_prepare(z, slba, nlb, append, &id, start);

    return r ? r : resources_ok(z, z->zone[id].state);
}

/* Program a ZRWA zone's pages from zn->prog up to (not including) page
 * npages; returns when the last program ends. */
static uint64_t zrwa_program(struct zns *z, uint32_t id, uint64_t npages,
                             uint64_t now)
{
    struct zns_zone *zn = &z->zone[id];
    uint64_t t = now;

    for (; zn->prog < npages; zn->prog++) {
        t = ftl_max64(t, ftl_nand_prog(&z->tm, zns_page_lun(z, id, zn->prog),
                                       zns_page_pg(z, zn->prog), now));
        z->ctr.host_pages_programmed++;
        zn->programmed = 1;
    }
    return t;
}

/* Commit a ZRWA zone up to block wp (capped at the capacity): the pages
 * wholly below it are programmed (all of them at the capacity, where the
 * zone becomes Full and gives its ZRWA back). */
static uint64_t zrwa_commit_to(struct zns *z, uint32_t id, uint64_t wp,
                               uint64_t now)
{
    struct zns_zone *zn = &z->zone[id];
    uint64_t cend = zslba(z, id) + z->zone_cap, t;
    uint64_t bpp = z->blocks_per_page;

    wp = wp < cend ? wp : cend;
    t = zrwa_program(z, id, wp == cend ?
                     (wp - zslba(z, id) + bpp - 1) / bpp :
                     (wp - zslba(z, id)) / bpp, now);
    zn->wp = wp;
    if (wp == cend) {
        zns_set_state(z, id, ZNS_FULL);
    }
    return t;
}

enum zns_result zns_write(struct zns *z, uint64_t slba, uint32_t nlb,
                          bool append, uint64_t now, uint64_t *alba,
                          uint64_t *done)
{
    uint64_t start, end, t = now, first, last;
    uint32_t id;
    struct zns_zone *zn;
    enum zns_result r;

    *done = now;
    r = write_prepare(z, slba, nlb, append, &id, &start);
    if (r) {
        return r;
    }
    zn = &z->zone[id];
    end = start + nlb;
    r = open_from(z, zn->state);
    if (r) {
        return r;
    }
    if (zn->state == ZNS_EMPTY || zn->state == ZNS_CLOSED) {
        zns_set_state(z, id, ZNS_IMPLICIT_OPEN);
    }
    first = (start - zslba(z, id)) / z->blocks_per_page;
    last = (end - 1 - zslba(z, id)) / z->blocks_per_page;
    if (zn->zrwa) {
        /* into the buffer; past the window, the write pointer moves by
         * whole flush granules until the write's end is inside it */
        uint64_t win = zn->wp + z->cfg.zrwa_blocks;
        uint64_t fg = z->cfg.zrwafg_blocks;

        z->ctr.host_pages_written += last - first + 1;
        zn->dend = ftl_max64(zn->dend, end);
        if (end > win) {
            t = zrwa_commit_to(z, id, zn->wp + (end - win + fg - 1) / fg * fg,
                               now);
        }
        if (alba) {
            *alba = start;
        }
        *done = t;
        return ZNS_OK;
    }
    /* every NAND page the write touches is programmed */
    for (uint64_t p = first; p <= last; p++) {
        t = ftl_max64(t, ftl_nand_prog(&z->tm, zns_page_lun(z, id, p),
                                       zns_page_pg(z, p), now));
    }
    if (z->wc.on) {
        /* the host's command completes once the data is in the cache */
        t = zns_wc_write(z, id, start, end, last - first + 1, now, t);
    }
    z->ctr.host_pages_written += last - first + 1;
    z->ctr.host_pages_programmed += last - first + 1;
    zn->programmed = 1;
    zn->wp = zn->dend = end;
    if (end == zslba(z, id) + z->zone_cap) {
        zns_set_state(z, id, ZNS_FULL);
    }
    if (alba) {
        *alba = start;
    }
    *done = t;
    return ZNS_OK;
}

enum zns_result zns_read(struct zns *z, uint64_t slba, uint32_t nlb,
                         uint64_t now, uint64_t *done)
{
    uint64_t ns = zns_ns_blocks(z), end, t = now, lba;
    uint64_t bpp = z->blocks_per_page;

    *done = now;
    if (nlb == 0 || slba >= ns || nlb > ns - slba) {
        return ZNS_ERR_LBA_RANGE;
    }
    end = slba + nlb;
    for (lba = slba; lba < end; lba += z->zone_blocks - lba % z->zone_blocks) {
        if (z->zone[lba / z->zone_blocks].state == ZNS_OFFLINE) {
            return ZNS_ERR_OFFLINE;
        }
    }
    /* page by page; a page shared by two requests' ranges is read once
     * per request, as the BlackBox FTL does */
    for (lba = slba - slba % bpp; lba < end; lba += bpp) {
        uint32_t id = (uint32_t)(lba / z->zone_blocks);
        uint64_t off = lba - zslba(z, id);

        if (lba >= z->zone[id].dend) {
            continue;   /* above the write pointer: zeroes, no NAND */
        }
        if (z->zone[id].zrwa && off / bpp >= z->zone[id].prog) {
            continue;   /* in the ZRWA buffer: no NAND */
        }
        t = ftl_max64(t, ftl_nand_read(&z->tm,
                                       zns_page_lun(z, id, off / bpp),
                                       zns_page_pg(z, off / bpp), now));
        z->ctr.host_pages_read++;
    }
    *done = t;
    return ZNS_OK;
}

/* Erase every block of the zone: blks_per_zone_pl on each plane of each
 * LUN of its group; the LUNs erase in parallel. */
static uint64_t erase_zone(struct zns *z, uint32_t id, uint64_t now)
{
    uint32_t nblk = z->blks_per_zone_pl * z->cfg.nand.pls_per_lun;
    uint64_t t = now;

    for (uint32_t l = 0; l < z->cfg.zone_luns; l++) {
        uint32_t lun = zns_page_lun(z, id, l);

        for (uint32_t b = 0; b < nblk; b++) {
            t = ftl_max64(t, ftl_nand_erase(&z->tm, lun, now));
        }
    }
    z->ctr.blocks_erased += (uint64_t)nblk * z->cfg.zone_luns;
    z->ctr.zone_resets++;
    z->erases[id]++;
    return t;
}

/* A zone erased pe_cycles times has reached its rated endurance: its next
 * erase fails (as a BlackBox line's, hw/femu/ftl/wear.c) */
static bool zone_worn(const struct zns *z, uint32_t id)
{
    return z->cfg.nand.pe_cycles && z->erases[id] >= z->cfg.nand.pe_cycles;
}

static bool zone_changed(struct zns *z, uint32_t zone, enum zns_state ns);

/* One zone, one action, as the zone state machine allows. */
static enum zns_result act_one(struct zns *z, uint32_t id,
                               enum zns_action act, uint64_t now,
                               uint64_t *done)
{
    struct zns_zone *zn = &z->zone[id];
    uint8_t s = zn->state;
    enum zns_result r;

    switch (act) {
    case ZNS_ACT_OPEN:
        switch (s) {
        case ZNS_EMPTY:
        case ZNS_CLOSED:
        case ZNS_IMPLICIT_OPEN:
            r = open_from(z, s);
            if (r) {
                return r;
            }
            zns_set_state(z, id, ZNS_EXPLICIT_OPEN);
            return ZNS_OK;
        case ZNS_EXPLICIT_OPEN:
            return ZNS_OK;
        default:
            return ZNS_ERR_INVALID_TRANSITION;
        }
    case ZNS_ACT_CLOSE:
        switch (s) {
        case ZNS_IMPLICIT_OPEN:
        case ZNS_EXPLICIT_OPEN:
            /* an open zone with nothing written goes back to Empty
             * (one with a ZRWA or a descriptor extension stays Closed) */
            zns_set_state(z, id, zn->wp == zslba(z, id) && !zn->zrwa &&
                             !zn->zdev ? ZNS_EMPTY : ZNS_CLOSED);
            return ZNS_OK;
        case ZNS_CLOSED:
            return ZNS_OK;
        default:
            return ZNS_ERR_INVALID_TRANSITION;
        }
    case ZNS_ACT_FINISH:
        switch (s) {
        case ZNS_EMPTY:
            /* Empty to Full passes through active */
            r = take_resources(z, 1, 0);
            if (r) {
                return r;
            }
            /* fall through */
        case ZNS_IMPLICIT_OPEN:
        case ZNS_EXPLICIT_OPEN:
        case ZNS_CLOSED:
            if (zn->zrwa) {
                /* the ZRWA's data is committed: program what is left */
                uint64_t bpp = z->blocks_per_page;

                *done = ftl_max64(*done, zrwa_program(z, id,
                        (zn->dend - zslba(z, id) + bpp - 1) / bpp, now));
            }
            /* the zone's cached data goes to NAND first */
            *done = ftl_max64(*done, zns_wc_zone_done(z, id, now));
            zn->wp = zslba(z, id) + z->zone_cap;
            zns_set_state(z, id, ZNS_FULL);
            return ZNS_OK;
        case ZNS_FULL:
            return ZNS_OK;
        default:
            return ZNS_ERR_INVALID_TRANSITION;
        }
    case ZNS_ACT_RESET:
        switch (s) {
        case ZNS_IMPLICIT_OPEN:
        case ZNS_EXPLICIT_OPEN:
        case ZNS_CLOSED:
        case ZNS_FULL:
            /* what the cache still holds of the zone never reaches it */
            zns_wc_drop_zone(z, id);
            if (zn->programmed && zone_worn(z, id)) {
                /*
                 * Worn out: the erase fails and the controller takes the
                 * zone Offline (a Zone Descriptor Changed event); the
                 * reset itself completes, its data is gone.
                 */
                zn->programmed = 0;
                zn->wp = zn->dend = zslba(z, id);
                zn->zdev = 0;
                zn->prog = 0;
                zns_set_state(z, id, ZNS_EMPTY);
                zone_changed(z, id, ZNS_OFFLINE);
                z->worn++;
                return ZNS_OK;
            }
            if (zn->programmed) {
                *done = ftl_max64(*done, erase_zone(z, id, now));
                zn->programmed = 0;
            }
            zn->wp = zn->dend = zslba(z, id);
            zn->zdev = 0;
            zn->prog = 0;
            zns_set_state(z, id, ZNS_EMPTY);
            return ZNS_OK;
        case ZNS_EMPTY:
            return ZNS_OK;
        default:
            return ZNS_ERR_INVALID_TRANSITION;
        }
    case ZNS_ACT_OFFLINE:
        if (s == ZNS_READ_ONLY) {
            zns_set_state(z, id, ZNS_OFFLINE);
            return ZNS_OK;
        }
        return s == ZNS_OFFLINE ? ZNS_OK : ZNS_ERR_INVALID_TRANSITION;
    default:
        return ZNS_ERR_INVALID_FIELD;
    }
}

/* Does select all apply `act` to a zone in state s? */
static bool all_applies(enum zns_action act, uint8_t s)
{
    switch (act) {
    case ZNS_ACT_CLOSE:
        return is_open(s);
    case ZNS_ACT_FINISH:
        return is_active(s);
    case ZNS_ACT_OPEN:
        return s == ZNS_CLOSED;
    case ZNS_ACT_RESET:
        return is_active(s) || s == ZNS_FULL;
    case ZNS_ACT_OFFLINE:
        return s == ZNS_READ_ONLY;
    default:
        return false;
    }
}

enum zns_result zns_zone_action(struct zns *z, uint32_t zone, bool all,
                                enum zns_action act, uint64_t now,
                                uint64_t *done)
{
    enum zns_result r;

    *done = now;
    if (act < ZNS_ACT_CLOSE || act > ZNS_ACT_OFFLINE) {
        return ZNS_ERR_INVALID_FIELD;
    }
    if (!all) {
        if (zone >= z->nzones) {
            return ZNS_ERR_LBA_RANGE;
        }
        return act_one(z, zone, act, now, done);
    }
    if (act == ZNS_ACT_OPEN && z->cfg.max_open) {
        /* all closed zones open at once, or none does */
        uint32_t nclosed = 0;

        for (uint32_t i = 0; i < z->nzones; i++) {
            nclosed += z->zone[i].state == ZNS_CLOSED;
        }
        if (z->nr_open + nclosed > z->cfg.max_open) {
            return ZNS_ERR_TOO_MANY_OPEN;
        }
    }
    for (uint32_t i = 0; i < z->nzones; i++) {
        if (all_applies(act, z->zone[i].state)) {
            r = act_one(z, i, act, now, done);
            if (r) {
                return r;
            }
        }
    }
    return ZNS_OK;
}

enum zns_result zns_zone_open_zrwa(struct zns *z, uint32_t zone)
{
    struct zns_zone *zn;
    enum zns_result r;
    uint64_t done;

    if (!z->cfg.zrwa_blocks) {
        return ZNS_ERR_INVALID_ZONE_OP;
    }
    if (zone >= z->nzones) {
        return ZNS_ERR_LBA_RANGE;
    }
    zn = &z->zone[zone];
    if (zn->zrwa) {
        return act_one(z, zone, ZNS_ACT_OPEN, 0, &done);
    }
    switch (zn->state) {
    case ZNS_EMPTY:
    case ZNS_IMPLICIT_OPEN:
    case ZNS_EXPLICIT_OPEN:
    case ZNS_CLOSED:
        break;
    default:
        return ZNS_ERR_INVALID_TRANSITION;
    }
    if ((zn->wp - zslba(z, zone)) % z->cfg.zrwafg_blocks ||
        z->nr_zrwa >= z->cfg.zrwa_num) {
        return ZNS_ERR_NO_ZRWA;
    }
    r = act_one(z, zone, ZNS_ACT_OPEN, 0, &done);
    if (r) {
        return r;
    }
    zn->zrwa = 1;
    z->nr_zrwa++;
    /* a page the write pointer splits is programmed again at commit */
    zn->prog = (zn->wp - zslba(z, zone)) / z->blocks_per_page;
    return ZNS_OK;
}

enum zns_result zns_zrwa_commit(struct zns *z, uint64_t elba, uint64_t now,
                                uint64_t *done)
{
    struct zns_zone *zn;
    uint64_t cend;
    uint32_t id;
    enum zns_result r;

    *done = now;
    if (!z->cfg.zrwa_blocks) {
        return ZNS_ERR_INVALID_ZONE_OP;
    }
    if (elba >= zns_ns_blocks(z)) {
        return ZNS_ERR_LBA_RANGE;
    }
    id = (uint32_t)(elba / z->zone_blocks);
    zn = &z->zone[id];
    cend = zslba(z, id) + z->zone_cap;
    if (!zn->zrwa) {
        return ZNS_ERR_INVALID_FIELD;
    }
    if (elba < zn->wp || elba >= zn->wp + z->cfg.zrwa_blocks ||
        elba >= cend) {
        return ZNS_ERR_BOUNDARY;
    }
    if ((elba + 1 - zn->wp) % z->cfg.zrwafg_blocks && elba + 1 != cend) {
        return ZNS_ERR_INVALID_FIELD;
    }
    if (zn->state == ZNS_CLOSED) {
        /* moving a Closed zone's write pointer opens it */
        r = open_from(z, zn->state);
        if (r) {
            return r;
        }
        zns_set_state(z, id, ZNS_IMPLICIT_OPEN);
    }
    *done = zrwa_commit_to(z, id, elba + 1, now);
    return ZNS_OK;
}

uint32_t zns_nr_zrwa(const struct zns *z)
{
    return z->nr_zrwa;
}

enum zns_result zns_zone_set_zdext(struct zns *z, uint32_t zone)
{
    enum zns_result r;

    if (zone >= z->nzones) {
        return ZNS_ERR_LBA_RANGE;
    }
    if (z->zone[zone].state != ZNS_EMPTY) {
        return ZNS_ERR_INVALID_TRANSITION;
    }
    r = take_resources(z, 1, 0);
    if (r) {
        return r;
    }
    zns_set_state(z, zone, ZNS_CLOSED);
    z->zone[zone].zdev = 1;
    return ZNS_OK;
}

/* A controller-initiated transition: a Zone Descriptor Changed event. */
static bool zone_changed(struct zns *z, uint32_t zone, enum zns_state ns)
{
    struct zns_zone *zn = &z->zone[zone];

    if (zn->state == ns) {
        return false;
    }
    zns_set_state(z, zone, ns);
    if (zn->changed) {
        return true;        /* listed already: the host has not read it */
    }
    zn->changed = 1;
    if (z->nchanged < ZNS_CHANGED_ZONES_MAX) {
        z->changed[z->nchanged] = zone;
    }
    z->nchanged++;
    return true;
}

bool zns_zone_set_read_only(struct zns *z, uint32_t zone)
{
    if (z->zone[zone].state == ZNS_OFFLINE) {
        return false;       /* Offline is final */
    }
    return zone_changed(z, zone, ZNS_READ_ONLY);
}

bool zns_zone_set_offline(struct zns *z, uint32_t zone)
{
    zns_wc_drop_zone(z, zone);
    return zone_changed(z, zone, ZNS_OFFLINE);
}

uint32_t zns_changed_zones(const struct zns *z, uint32_t *zones,
                           uint32_t max)
{
    uint32_t n = z->nchanged < ZNS_CHANGED_ZONES_MAX ? z->nchanged
                                                     : ZNS_CHANGED_ZONES_MAX;

    for (uint32_t i = 0; i < n && i < max; i++) {
        zones[i] = z->changed[i];
    }
    return z->nchanged;
}

void zns_changed_clear(struct zns *z)
{
    uint32_t n = z->nchanged < ZNS_CHANGED_ZONES_MAX ? z->nchanged
                                                     : ZNS_CHANGED_ZONES_MAX;

    if (z->nchanged > ZNS_CHANGED_ZONES_MAX) {
        /* overflowed: the list does not name every changed zone */
        for (uint32_t i = 0; i < z->nzones; i++) {
            z->zone[i].changed = 0;
        }
    } else {
        for (uint32_t i = 0; i < n; i++) {
            z->zone[z->changed[i]].changed = 0;
        }
    }
    z->nchanged = 0;
}

void zns_changed_consume(struct zns *z, uint32_t first, uint32_t count)
{
    uint32_t n = z->nchanged;

    if (n > ZNS_CHANGED_ZONES_MAX || first >= n) {
        return;     /* an overflowed list names no zone: see the header */
    }
    count = count < n - first ? count : n - first;
    for (uint32_t i = first; i < first + count; i++) {
        z->zone[z->changed[i]].changed = 0;
    }
    memmove(&z->changed[first], &z->changed[first + count],
            (n - first - count) * sizeof(z->changed[0]));
    z->nchanged = n - count;
}

uint32_t zns_worn_zones(const struct zns *z)
{
    return z->worn;
}

uint32_t zns_zone_erases(const struct zns *z, uint32_t zone)
{
    return zone < z->nzones ? z->erases[zone] : 0;
}

/*
 * The zones' wear, as ftl_get_wear reports the lines': erase counts over
 * all zones, Percentage Used from their mean.  A zoned namespace has no
 * spare (no GC, no over-provisioning): a worn-out zone goes Offline and
 * its blocks count as grown bad blocks; Available Spare is the share of
 * zones not worn out, and the media is read-only when none is left.
 */
void zns_get_wear(const struct zns *z, struct ftl_wear_info *out)
{
    uint32_t n = z->nzones, pe = z->cfg.nand.pe_cycles;
    uint64_t isum = 0;
    double sum = 0, sq = 0;

    memset(out, 0, sizeof(*out));
    out->erase_min = n ? UINT32_MAX : 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t e = z->erases[i];

        isum += e;
        sum += e;
        sq += (double)e * e;
        out->erase_min = e < out->erase_min ? e : out->erase_min;
        out->erase_max = e > out->erase_max ? e : out->erase_max;
    }
    if (n) {
        double var;

        out->erase_mean = sum / n;
        var = sq / n - out->erase_mean * out->erase_mean;
        /* Newton's square root, as wear.c (no libm) */
        if (var > 0) {
            double x = var > 1 ? var : 1;

            for (int i = 0; i < 200; i++) {
                double nx = (x + var / x) / 2;

                if (nx >= x) {
                    break;
                }
                x = nx;
            }
            out->erase_stddev = x;
        }
    }
    if (n && pe) {
        uint64_t pct = isum * 100 / ((uint64_t)n * pe);

        out->pct_used = pct > 255 ? 255 : (uint32_t)pct;
    }
    out->grown_bad_blocks = z->worn * z->blks_per_zone_pl *
                            z->cfg.nand.pls_per_lun * z->cfg.zone_luns;
    out->retired_lines = z->worn;
    out->spare_lines = 0;
    out->spare_pcent = n ? (uint32_t)((uint64_t)(n - z->worn) * 100 / n) : 100;
    out->read_only = n && z->worn == n;
}

void zns_get_counters(const struct zns *z, struct zns_counters *c)
{
    *c = z->ctr;
}

void zns_reset_counters(struct zns *z)
{
    memset(&z->ctr, 0, sizeof(z->ctr));
}

uint32_t zns_waf_x1000(const struct zns *z)
{
    if (!z->ctr.host_pages_written) {
        return 1000;
    }
    return (uint32_t)(z->ctr.host_pages_programmed * 1000 /
                      z->ctr.host_pages_written);
}

void zns_set_delay_mode(struct zns *z, enum ftl_delay_mode mode)
{
    z->tm.mode = mode;
    ftl_timing_set_mode(&z->tm, &z->cfg.nand);
}
