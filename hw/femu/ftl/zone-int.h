/*
 * FEMU zoned namespace model: the zone table's layout, shared by the
 * model (zone.c) and its state file sections (zone-state.c).  Internal
 * to the FTL library.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_FEMU_FTL_ZONE_INT_H
#define HW_FEMU_FTL_ZONE_INT_H

#include "ftl-int.h"
#include "hw/femu/zns.h"

struct zns_zone {
    uint64_t wp;          /* next logical block to write */
    uint64_t dend;        /* end of the written data (a finish moves the
                           * write pointer, not the data) */
    uint32_t iprev, inext; /* implicitly opened zones, oldest first */
    uint8_t state;        /* enum zns_state */
    uint8_t programmed;   /* a page was programmed since the last erase */
    uint8_t changed;      /* on the changed zone list */
    uint8_t zrwa;         /* a Zone Random Write Area is allocated */
    uint8_t zdev;         /* a zone descriptor extension is set */
    uint64_t prog;        /* ZRWA: zone pages programmed so far (the
                           * rest of the written data is in the buffer) */
};

/* A write waiting in the zoned write cache (zone-wcache.c): blocks
 * [start, end) of zone `zone`, on NAND at `done`. */
struct zns_wc_ent {
    uint64_t start, end;
    uint64_t done;
    uint64_t pages;
    uint32_t zone;
};

struct zns_wcache {
    uint64_t cap_pages;         /* 0: no cache (write_cache_mb=0) */
    bool on;                    /* Volatile Write Cache enabled */
    struct zns_wc_ent *ent;     /* ring, arrival order */
    uint32_t size, head, count;
    uint64_t pages;             /* pages of the entries held */
    uint64_t last_done;         /* the newest entry's NAND time */
    struct zns_wc_counters ctr;
};

struct zns {
    struct zns_config cfg;
    uint32_t nluns;
    uint32_t ngroups;           /* LUN groups of zone_luns LUNs */
    uint32_t blks_per_zone_pl;  /* erase blocks per plane per LUN */
    uint32_t blocks_per_page;   /* logical blocks per NAND page */
    uint64_t zone_blocks, zone_cap;
    uint32_t nzones;
    struct zns_zone *zone;
    uint32_t nr_open, nr_active;
    uint32_t nr_zrwa;           /* zones holding a ZRWA */
    uint32_t ihead, itail;      /* implicitly opened list */
    struct ftl_timing tm;
    struct zns_counters ctr;
    /* changed zone list: the first ZNS_CHANGED_ZONES_MAX zones in the
     * order they changed; nchanged counts them all */
    uint32_t changed[ZNS_CHANGED_ZONES_MAX];
    uint32_t nchanged;
    struct zns_wcache wc;
};

/* zone.c: move a zone to a state, keeping the counts and lists right */
void zns_set_state(struct zns *z, uint32_t id, enum zns_state ns);
/* zone-wcache.c: a write of `pages` pages of zone id, blocks [start,
 * end), programmed by nand_done, arriving at now: the time the host's
 * command completes (the transfer, or room in a full cache) */
uint64_t zns_wc_write(struct zns *z, uint32_t id, uint64_t start,
                      uint64_t end, uint64_t pages, uint64_t now,
                      uint64_t nand_done);
/* the zone's cached writes are dropped (a reset, the zone offline) */
void zns_wc_drop_zone(struct zns *z, uint32_t id);
/* when the zone's cached writes are on NAND (now when none) */
uint64_t zns_wc_zone_done(const struct zns *z, uint32_t id, uint64_t now);
void zns_wc_free(struct zns *z);

#endif /* HW_FEMU_FTL_ZONE_INT_H */
