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
};

#endif /* HW_FEMU_FTL_ZONE_INT_H */
