/*
 * FEMU BlackBox FTL: geometry, namespace sizing and configuration checks.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "ftl-int.h"
#include "hw/femu/ftl-props.h"

/* Keep the NAND page count below FTL_NONE so 32-bit ppa/lpn suffice
 * (that is what keeps the metadata at 8 bytes per NAND page). */
#define FTL_MAX_NAND_PAGES (UINT32_MAX - 1u)
#define FTL_MAX_SECS_PER_PG 1024u

#define REFUSE(...)                         \
    do {                                    \
        snprintf(err, errlen, __VA_ARGS__); \
        return -1;                          \
    } while (0)

void ftl_config_default(struct ftl_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    /* the property rows' defaults (ftl-props.h), which -device femu,help
     * shows; FDP's settings are femu-subsys properties */
    for (size_t i = 0; i < ftl_nprops; i++) {
        femu_prop_set_default(&ftl_props[i], cfg);
    }
    cfg->fdp_nruh = 0;
    cfg->fdp_nru = FTL_DEFAULT_FDP_NRU;
}

static const char *const policy_names[] = FTL_GC_POLICY_NAMES;

int ftl_gc_policy_from_name(const char *name)
{
    for (int i = 0; i < (int)(sizeof(policy_names) / sizeof(policy_names[0]));
         i++) {
        if (strcmp(name, policy_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

const char *ftl_gc_policy_name(enum ftl_gc_policy p)
{
    if ((unsigned)p < sizeof(policy_names) / sizeof(policy_names[0])) {
        return policy_names[p];
    }
    return "?";
}

static const char *const evict_names[] = FTL_CACHE_EVICT_NAMES;
#define NEVICT (int)(sizeof(evict_names) / sizeof(evict_names[0]))

int ftl_cache_evict_from_name(const char *name)
{
    for (int i = 0; i < NEVICT; i++) {
        if (strcmp(name, evict_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

const char *ftl_cache_evict_name(enum ftl_cache_evict e)
{
    return (unsigned)e < (unsigned)NEVICT ? evict_names[e] : "?";
}

static const char *const mapping_names[] = FTL_MAPPING_NAMES;
#define NMAPPING (int)(sizeof(mapping_names) / sizeof(mapping_names[0]))

int ftl_mapping_from_name(const char *name)
{
    for (int i = 0; i < NMAPPING; i++) {
        if (strcmp(name, mapping_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

const char *ftl_mapping_name(enum ftl_mapping m)
{
    return (unsigned)m < (unsigned)NMAPPING ? mapping_names[m] : "?";
}

/*
 * Cell-type timing and the read cache: nand_cell_type 0..4, cell_pages
 * 0..5, per-page-type times only for the types the cell has, pgtype_lat
 * only with uniform timing, a known eviction policy and a cache no larger
 * than the namespace.
 */
static uint64_t lpages_for(const struct ftl_config *c, uint64_t ns_blocks);

static int check_models(const struct ftl_config *c, uint64_t ns_bytes,
                        char *err, size_t errlen)
{
    static const char *const pt[] = FTL_PGTYPE_NAMES;

    if (c->nand_cell_type > FTL_CELL_QLC) {
        REFUSE("nand_cell_type=%u: must be 1..4 (SLC, MLC, TLC, QLC), or "
               "0 for the uniform pg_rd_lat/pg_wr_lat", c->nand_cell_type);
    }
    if (c->cell_pages > FTL_MAX_CELL_PAGES) {
        REFUSE("cell_pages=%u: must be 1..%u (0: 3)", c->cell_pages,
               FTL_MAX_CELL_PAGES);
    }
    if (c->pgtype_lat && c->nand_cell_type != FTL_CELL_UNIFORM) {
        REFUSE("pgtype_lat=%u: only with nand_cell_type=0 (a cell type's "
               "tables already time each page type)", c->pgtype_lat);
    }
    for (uint32_t t = 0; t < 4; t++) {
        const char *which = NULL;
        uint64_t v = 0;

        if (c->pgtype_rd_lat[t]) {
            which = "rd";
            v = c->pgtype_rd_lat[t];
        } else if (c->pgtype_wr_lat[t]) {
            which = "wr";
            v = c->pgtype_wr_lat[t];
        }
        if (!which) {
            continue;
        }
        if (c->nand_cell_type == FTL_CELL_UNIFORM) {
            REFUSE("%s_%s_lat=%llu: needs nand_cell_type 1..4", pt[t], which,
                   (unsigned long long)v);
        }
        /* SLC: LSB; MLC: LSB, MSB; TLC: LSB..MSB; QLC: all four */
        if ((c->nand_cell_type == FTL_CELL_SLC && t != 0) ||
            (c->nand_cell_type == FTL_CELL_MLC && (t == 1 || t == 3)) ||
            (c->nand_cell_type == FTL_CELL_TLC && t == 3)) {
            REFUSE("%s_%s_lat=%llu: nand_cell_type=%u (%s) has no %s pages",
                   pt[t], which, (unsigned long long)v, c->nand_cell_type,
                   ftl_cell_type_name(c->nand_cell_type), pt[t]);
        }
    }
    if ((unsigned)c->cache_evict >= (unsigned)NEVICT) {
        REFUSE("cache_evict=%d: unknown (clock, random, lru, arc)",
               (int)c->cache_evict);
    }
    if ((uint64_t)c->read_cache_mb * 1024 * 1024 > ns_bytes) {
        REFUSE("read_cache_mb=%u exceeds the namespace (%llu MiB)",
               c->read_cache_mb,
               (unsigned long long)(ns_bytes / (1024 * 1024)));
    }
    if ((unsigned)c->mapping >= (unsigned)NMAPPING) {
        REFUSE("mapping=%d: unknown (page, dftl, hybrid, fast)",
               (int)c->mapping);
    }
    if (ftl_hyb_on(c)) {
        /* one data block per logical block, plus the log blocks and the
         * blocks merges take before they erase */
        uint64_t ppb = c->pgs_per_blk;
        uint64_t lbns = (lpages_for(c, ftl_cfg_ns_blocks(c)) + ppb - 1) / ppb;
        uint64_t need = lbns + ftl_hyb_spare_needed(c);

        if (c->fdp_nruh > 0) {
            REFUSE("mapping=%s: not with FDP (fdp.nruh=%u)",
                   ftl_mapping_name(c->mapping), c->fdp_nruh);
        }
        if (c->log_blocks == 0) {
            REFUSE("log_blocks=0: mapping=%s needs at least 1",
                   ftl_mapping_name(c->mapping));
        }
        if (need > ftl_hyb_blocks(c)) {
            REFUSE("log_blocks=%u: mapping=%s needs %llu blocks (%llu data "
                   "blocks + %llu), the NAND has %llu", c->log_blocks,
                   ftl_mapping_name(c->mapping), (unsigned long long)need,
                   (unsigned long long)lbns,
                   (unsigned long long)ftl_hyb_spare_needed(c),
                   (unsigned long long)ftl_hyb_blocks(c));
        }
    }
    if (c->mapping == FTL_MAP_DFTL) {
        uint64_t page = (uint64_t)c->secs_per_pg * 512;

        if (c->fdp_nruh > 0) {
            REFUSE("mapping=dftl: not with FDP (fdp.nruh=%u)", c->fdp_nruh);
        }
        if ((uint64_t)c->mapping_cache_mb * 1024 * 1024 < page) {
            REFUSE("mapping_cache_mb=%u: mapping=dftl caches at least one "
                   "translation page of %llu bytes", c->mapping_cache_mb,
                   (unsigned long long)page);
        }
    }
    if ((uint64_t)c->mapping_cache_mb * 1024 * 1024 > ns_bytes) {
        REFUSE("mapping_cache_mb=%u exceeds the namespace (%llu MiB)",
               c->mapping_cache_mb,
               (unsigned long long)(ns_bytes / (1024 * 1024)));
    }
    if ((uint64_t)c->write_cache_mb * 1024 * 1024 > ns_bytes) {
        REFUSE("write_cache_mb=%u exceeds the namespace (%llu MiB)",
               c->write_cache_mb,
               (unsigned long long)(ns_bytes / (1024 * 1024)));
    }
    return 0;
}

static uint64_t nand_pages_of(const struct ftl_config *c)
{
    return (uint64_t)c->nchs * c->luns_per_ch * c->pls_per_lun *
           c->blks_per_pl * c->pgs_per_blk;
}

static uint64_t ns_blocks_for(const struct ftl_config *c, int32_t op)
{
    uint64_t nand_bytes = nand_pages_of(c) * c->secs_per_pg * 512u;

    if (op >= 0) {
        /* NAND / (1 + op/100), rounded down to whole logical blocks;
         * nand_bytes < 2^51 here, so * 100 cannot overflow */
        return nand_bytes * 100u / ((100u + (uint64_t)op) * c->secsz);
    }
    return c->devsz_mb * 1024 * 1024 / c->secsz;
}

uint64_t ftl_cfg_ns_blocks(const struct ftl_config *cfg)
{
    return ns_blocks_for(cfg, cfg->op_pcent);
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* Logical pages a namespace of ns_blocks needs. */
static uint64_t lpages_for(const struct ftl_config *c, uint64_t ns_blocks)
{
    uint64_t bpp = (uint64_t)c->secs_per_pg * 512u / c->secsz;
    return ceil_div(ns_blocks, bpp);
}

/* NAND pages in a line: one block of every plane of every LUN. */
static uint64_t line_pages(const struct ftl_config *c)
{
    return (uint64_t)c->nchs * c->luns_per_ch * c->pls_per_lun *
           c->pgs_per_blk;
}

/* Lines in use at which forced GC starts: ceil(N * high / 100). */
static uint64_t forced_gc_lines(const struct ftl_config *c)
{
    return ceil_div((uint64_t)c->blks_per_pl * c->gc_thres_pcent_high, 100);
}

/* Lines the namespace's logical pages fill when every one is valid. */
static uint64_t data_lines(const struct ftl_config *c)
{
    return ceil_div(lpages_for(c, ftl_cfg_ns_blocks(c)), line_pages(c));
}

/*
 * FDP GC reclaim units.  GC keeps handles isolated, so a handle's
 * relocations go to a GC unit of its own; if every handle kept one open,
 * 2 x nruh units would sit partly written (128 handles would then not fit
 * the default 256 lines).  GC never writes into a handle's host unit
 * either: that unit's RUAMW must count the host's writes only.  So the
 * room below the forced-GC threshold after the data and one host unit per
 * handle decides:
 *  - room >= nruh: one GC unit per handle, no overflow unit;
 *  - otherwise: room - 1 per-handle GC units (at least 0) plus one shared
 *    overflow GC unit that takes the relocations of a handle that finds
 *    the per-handle units all open (its pages then share that unit with
 *    other such handles' pages, never a host unit).
 * The open lines counted are the same as when every handle past the
 * budget used its host unit: nruh + max(room, 1) at most.
 */
static uint64_t fdp_gc_room(const struct ftl_config *cfg)
{
    uint64_t high = forced_gc_lines(cfg);
    uint64_t used = data_lines(cfg) + cfg->fdp_nruh;

    return high > used ? high - used : 0;
}

uint32_t ftl_fdp_gc_overflow(const struct ftl_config *cfg)
{
    return cfg->fdp_nruh > 0 && fdp_gc_room(cfg) < cfg->fdp_nruh ? 1 : 0;
}

uint32_t ftl_fdp_gc_units(const struct ftl_config *cfg)
{
    uint64_t room = fdp_gc_room(cfg);

    if (cfg->fdp_nruh == 0) {
        return 0;
    }
    if (room >= cfg->fdp_nruh) {
        return cfg->fdp_nruh;
    }
    return room > 1 ? (uint32_t)(room - 1) : 0;
}

/*
 * Open write lines the reserve rule counts: every stream that may hold a
 * partly written line at the moment forced GC runs.
 *  - one write pointer shared by host writes and GC (two host lines with
 *    hot_cold_sep: hot and cold, GC sharing the cold one), plus one with
 *    gc_own_line;
 *  - FDP: one open host reclaim unit per handle + the per-handle GC units
 *    the FTL lets be open at once + the overflow GC unit if there is one.
 */
uint32_t ftl_reserve_open_lines(const struct ftl_config *cfg)
{
    if (cfg->fdp_nruh > 0) {
        return cfg->fdp_nruh + ftl_fdp_gc_units(cfg) +
               ftl_fdp_gc_overflow(cfg);
    }
    return (cfg->hot_cold_sep ? 2 : 1) + (cfg->gc_own_line ? 1 : 0);
}

/*
 * The reserve rule (docs/ftl-reserve.md).  With N lines of P pages,
 * forced GC starts at H = ceil(N * gc_thres_pcent_high / 100) lines in
 * use and must be able to bring the count below H:
 *   (a) H + 1 <= N: while forced GC relocates a victim it may open one
 *       more line before the victim is erased, so a free line must exist
 *       when H are in use;
 *   (b) lpages <= (H - O) * P - 1 (FDP: lpages <= (H - O) * P), O = open
 *       write lines of all streams: with every logical page valid and each
 *       open line holding no valid data, the closed lines below the
 *       threshold must still hold all data with at least one invalid page
 *       somewhere, so each forced collection makes progress.  Without FDP
 *       an open line can be empty (taken when the previous one filled), so
 *       the closed lines may hold no more than one page less than they
 *       can; an FDP unit opens with the page that needs it, and the page
 *       it holds leaves its old copy invalid in a closed line.
 * Returns 0 or -1 with the message.
 */
static int check_reserve(const struct ftl_config *c, char *err, size_t len)
{
    uint64_t nlines = c->blks_per_pl;
    uint64_t ppl = line_pages(c);
    uint64_t high = forced_gc_lines(c);
    uint64_t open = ftl_reserve_open_lines(c);
    uint64_t lp = lpages_for(c, ftl_cfg_ns_blocks(c));
    uint64_t cap;

    /* mapping=dftl: the translation pages are valid NAND pages too */
    lp += ftl_dftl_tpages(c, lp);
    if (high + 1 > nlines || (c->fdp_nruh == 0 && high <= open)) {
        snprintf(err, len,
                 "blks_per_pl=%u gives %u lines; with gc_thres_pcent_high=%u "
                 "forced GC starts at %u lines in use, which must leave at "
                 "least 1 free line and exceed the %u open write lines",
                 c->blks_per_pl, c->blks_per_pl, c->gc_thres_pcent_high,
                 (unsigned)high, (unsigned)open);
        return -1;
    }
    cap = high > open ? (high - open) * ppl : 0;
    /* without FDP the write pointers take their next line the moment one
     * fills, so every open line may be empty when forced GC runs: the
     * closed lines must then hold one page more than the data (with FDP a
     * unit opens with the page that needs it) */
    if (c->fdp_nruh == 0 && cap > 0) {
        cap--;
    }
    if (lp <= cap) {
        return 0;
    }
    if (c->fdp_nruh > 0) {
        /*
         * the handles' open reclaim units are what leaves too little: say
         * how many handles this geometry takes (one host unit each + one
         * GC unit, and the data's lines below the threshold)
         */
        uint64_t data = data_lines(c);
        unsigned fit = high > data + 1 ? (unsigned)(high - data - 1) : 0;

        snprintf(err, len,
                 "fdp.nruh=%u leaves too little spare for GC: its %u open "
                 "reclaim units (one per handle + GC) leave room for %llu "
                 "of the namespace's %llu pages below the forced-GC "
                 "threshold (%u of %u lines); at most fdp.nruh=%u fits",
                 c->fdp_nruh, (unsigned)open, (unsigned long long)cap,
                 (unsigned long long)lp, (unsigned)high, c->blks_per_pl, fit);
        return -1;
    }
    if (c->op_pcent >= 0) {
        int32_t op = c->op_pcent;
        while (op < 100000 && lpages_for(c, ns_blocks_for(c, op)) > cap) {
            op++;
        }
        snprintf(err, len,
                 "op_pcent=%d leaves too little spare for GC: the namespace "
                 "needs %llu pages but at most %llu fit below the forced-GC "
                 "threshold (gc_thres_pcent_high=%u: %u of %u lines, minus %u "
                 "open write lines); use op_pcent >= %d",
                 c->op_pcent, (unsigned long long)lp,
                 (unsigned long long)cap, c->gc_thres_pcent_high,
                 (unsigned)high, c->blks_per_pl, (unsigned)open, op);
    } else {
        uint64_t maxmb = cap * c->secs_per_pg * 512u / (1024 * 1024);
        snprintf(err, len,
                 "devsz_mb=%llu leaves too little spare for GC: the namespace "
                 "needs %llu pages but at most %llu fit below the forced-GC "
                 "threshold (gc_thres_pcent_high=%u: %u of %u lines, minus %u "
                 "open write lines); use devsz_mb <= %llu",
                 (unsigned long long)c->devsz_mb, (unsigned long long)lp,
                 (unsigned long long)cap, c->gc_thres_pcent_high,
                 (unsigned)high, c->blks_per_pl, (unsigned)open,
                 (unsigned long long)maxmb);
    }
    return -1;
}

/* The geometry's dimensions; the NAND page count is the first five's
 * product. */
static const struct {
    const char *name;
    size_t off;
} geo[] = {
    { "nchs", offsetof(struct ftl_config, nchs) },
    { "luns_per_ch", offsetof(struct ftl_config, luns_per_ch) },
    { "pls_per_lun", offsetof(struct ftl_config, pls_per_lun) },
    { "blks_per_pl", offsetof(struct ftl_config, blks_per_pl) },
    { "pgs_per_blk", offsetof(struct ftl_config, pgs_per_blk) },
    { "secs_per_pg", offsetof(struct ftl_config, secs_per_pg) },
};

/* No zero dimension, secs_per_pg at most 1024, secsz 512 or 4096. */
static int check_units(const struct ftl_config *c, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof(geo) / sizeof(geo[0]); i++) {
        uint32_t v;
        memcpy(&v, (const char *)c + geo[i].off, sizeof(v));
        if (v == 0) {
            REFUSE("%s=0: must be at least 1", geo[i].name);
        }
    }
    if (c->secs_per_pg > FTL_MAX_SECS_PER_PG) {
        REFUSE("secs_per_pg=%u: must be at most %u", c->secs_per_pg,
               FTL_MAX_SECS_PER_PG);
    }
    if (c->secsz != 512 && c->secsz != 4096) {
        REFUSE("secsz=%u: must be 512 or 4096", c->secsz);
    }
    return 0;
}

/* At most FTL_MAX_NAND_PAGES NAND pages (32-bit page numbers). */
static int check_nand_pages(const struct ftl_config *c, char *err,
                            size_t errlen)
{
    uint64_t nand = 1;

    for (size_t i = 0; i < 5; i++) {
        uint32_t v;
        memcpy(&v, (const char *)c + geo[i].off, sizeof(v));
        if (nand > FTL_MAX_NAND_PAGES / v) {
            REFUSE("nchs x luns_per_ch x pls_per_lun x blks_per_pl x "
                   "pgs_per_blk = %u x %u x %u x %u x %u NAND pages: must be "
                   "at most %u", c->nchs, c->luns_per_ch, c->pls_per_lun,
                   c->blks_per_pl, c->pgs_per_blk, FTL_MAX_NAND_PAGES);
        }
        nand *= v;
    }
    return 0;
}

static int check_op_pcent(const struct ftl_config *c, char *err,
                          size_t errlen)
{
    if (c->op_pcent < -1) {
        REFUSE("op_pcent=%d: must be 0 or more", c->op_pcent);
    }
    return 0;
}

int ftl_config_check_geometry(const struct ftl_config *c, char *err,
                              size_t errlen)
{
    char dummy[1];

    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof(dummy);
    }
    if (check_units(c, err, errlen) || check_nand_pages(c, err, errlen) ||
        check_op_pcent(c, err, errlen)) {
        return -1;
    }
    return 0;
}

int ftl_config_validate(const struct ftl_config *c, char *err, size_t errlen)
{
    char dummy[1];
    uint64_t nand_bytes, ns_blocks, ns_bytes;

    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof(dummy);
    }
    if (check_units(c, err, errlen)) {
        return -1;
    }
    if ((uint64_t)c->secs_per_pg * 512 < c->secsz) {
        REFUSE("secsz=%u does not fit in a NAND page of %u bytes "
               "(secs_per_pg=%u x 512)", c->secsz, c->secs_per_pg * 512,
               c->secs_per_pg);
    }
    if ((c->secs_per_pg * 512u) % c->secsz != 0) {
        REFUSE("secsz=%u: the NAND page of %u bytes (secs_per_pg=%u x 512) "
               "must hold a whole number of logical blocks", c->secsz,
               c->secs_per_pg * 512, c->secs_per_pg);
    }
    if (check_nand_pages(c, err, errlen)) {
        return -1;
    }
    nand_bytes = nand_pages_of(c) * c->secs_per_pg * 512u;
    if (c->gc_thres_pcent < 1 || c->gc_thres_pcent > 100) {
        REFUSE("gc_thres_pcent=%u: must be 1..100", c->gc_thres_pcent);
    }
    if (c->gc_thres_pcent_high < c->gc_thres_pcent ||
        c->gc_thres_pcent_high > 100) {
        REFUSE("gc_thres_pcent_high=%u: must be gc_thres_pcent (%u)..100",
               c->gc_thres_pcent_high, c->gc_thres_pcent);
    }
    if ((unsigned)c->gc_policy > FTL_GC_DCHOICE) {
        REFUSE("gc_policy=%d: unknown (0..4: greedy, cost-benefit, fifo, "
               "random, d-choice)", (int)c->gc_policy);
    }
    if (c->fdp_nruh > 65535) {
        REFUSE("fdp.nruh=%u: must be at most 65535", c->fdp_nruh);
    }
    if (c->fdp_nruh > 0 && c->fdp_nru == 0) {
        REFUSE("fdp.nru=0: must be at least 1");
    }
    if (check_op_pcent(c, err, errlen)) {
        return -1;
    }
    if (c->op_pcent < 0) {
        if (c->devsz_mb == 0) {
            REFUSE("devsz_mb=0: must be at least 1");
        }
        if (c->devsz_mb > nand_bytes / (1024 * 1024)) {
            REFUSE("devsz_mb=%llu exceeds the NAND size of %llu MiB "
                   "(nchs x luns_per_ch x pls_per_lun x blks_per_pl x "
                   "pgs_per_blk x secs_per_pg x 512 bytes)",
                   (unsigned long long)c->devsz_mb,
                   (unsigned long long)(nand_bytes / (1024 * 1024)));
        }
    }
    ns_blocks = ftl_cfg_ns_blocks(c);
    ns_bytes = ns_blocks * c->secsz;
    if (ns_blocks == 0) {
        REFUSE("the namespace is empty (op_pcent=%d, devsz_mb=%llu)",
               c->op_pcent, (unsigned long long)c->devsz_mb);
    }
    if (ns_bytes > nand_bytes) {
        REFUSE("the namespace (%llu bytes) exceeds the NAND (%llu bytes)",
               (unsigned long long)ns_bytes, (unsigned long long)nand_bytes);
    }
    if (check_models(c, ns_bytes, err, errlen)) {
        return -1;
    }
    if (ftl_hyb_on(c)) {
        /* no line GC: the block rule (check_models) is the reserve; wear
         * is kept per line, which log-block mapping does not erase */
        if (c->nand_bad_blocks || c->wear_leveling) {
            snprintf(err, errlen, "%s: needs mapping=page or dftl (log-block "
                     "mapping erases blocks, not lines)",
                     c->nand_bad_blocks ? "nand_bad_blocks" :
                     "wear_leveling=on");
            return -1;
        }
        if (c->write_cache_mb) {
            snprintf(err, errlen, "write_cache_mb=%u: needs mapping=page or "
                     "dftl", c->write_cache_mb);
            return -1;
        }
        return 0;
    }
    if (check_reserve(c, err, errlen)) {
        return -1;
    }
    return ftl_wear_check(c, err, errlen);
}

uint32_t ftl_cfg_spare_lines(const struct ftl_config *c)
{
    /* the reserve rule (check_reserve) with R lines retired: they stay
     * "in use", so the closed lines below the threshold are H - R - O;
     * the largest R for which the data still fits there */
    uint64_t ppl = line_pages(c);
    uint64_t high = forced_gc_lines(c);
    uint64_t open = ftl_reserve_open_lines(c);
    uint64_t lp = lpages_for(c, ftl_cfg_ns_blocks(c));
    uint64_t need;

    lp += ftl_dftl_tpages(c, lp);
    need = (lp + (c->fdp_nruh == 0 ? 1 : 0) + ppl - 1) / ppl;
    if (c->fdp_nruh == 0 && need == 0) {
        need = 1;
    }
    return high > open + need ? (uint32_t)(high - open - need) : 0;
}

void ftl_geometry_derive(struct ftl *ftl)
{
    const struct ftl_config *c = &ftl->cfg;

    ftl->nluns = c->nchs * c->luns_per_ch;
    ftl->blks_per_line = ftl->nluns * c->pls_per_lun;
    ftl->ppl = ftl->blks_per_line * c->pgs_per_blk;
    ftl->nand_pages = nand_pages_of(c);
    ftl->page_bytes = (uint64_t)c->secs_per_pg * 512u;
    ftl->blocks_per_page = (uint32_t)(ftl->page_bytes / c->secsz);
    ftl->ns_blocks = ftl_cfg_ns_blocks(c);
    ftl->lpages = (uint32_t)lpages_for(c, ftl->ns_blocks);
    ftl->thres_lines =
        (uint32_t)ceil_div((uint64_t)c->blks_per_pl * c->gc_thres_pcent, 100);
    ftl->thres_high_lines = (uint32_t)ceil_div(
        (uint64_t)c->blks_per_pl * c->gc_thres_pcent_high, 100);
    ftl->div_ppl = ftl_div_make(ftl->ppl);
    ftl->div_nluns = ftl_div_make(ftl->nluns);
}
