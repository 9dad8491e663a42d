/*
 * FEMU BlackBox FTL: NAND timing model.
 *
 * Every LUN and every channel has a next-free time.  A page read occupies
 * its LUN for the read latency, then its channel for the transfer; a
 * program occupies the channel for the transfer, then the LUN for the
 * program latency; an erase occupies the LUN.  An operation starts when
 * both the request has arrived and the resource is free, so operations on
 * one LUN queue behind each other while different LUNs overlap.  Time is
 * an input (ns): the model never reads a clock.
 *
 * Cell types (nand_cell_type 1..4): a multi-level cell stores one bit
 * per page type, and sensing or programming a higher bit takes longer,
 * so each page of a block has the read and program time of its type.
 * Which page of a block holds which bit follows the shadow-program order
 * FEMU's NAND model uses (the pairing of Micron L95B MLC and of the TLC
 * layout of Yaakobi et al., ICNC 2012), with FEMU's per-type times as the
 * defaults.  With uniform timing, pgtype_lat scales program times by a
 * page type of page % cell_pages instead.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "ftl-int.h"

/* 0xEF code 3: built-in times, independent of the command line */
#define BUILTIN_RD 40000u
#define BUILTIN_WR 200000u
#define BUILTIN_ER 2000000u

/* FEMU's NAND tables, ns, by page type LSB, CSB, MSB, TSB; index 0 unused */
static const uint64_t cell_rd[5][4] = {
    [FTL_CELL_SLC] = { 40000 },
    [FTL_CELL_MLC] = { 48000, 0, 64000 },
    [FTL_CELL_TLC] = { 56500, 77500, 106000 },
    /* QLC: TLC x 1.05, x 1.1, x 1.2 and x 1.6 */
    [FTL_CELL_QLC] = { 59325, 85250, 127200, 169600 },
};
static const uint64_t cell_wr[5][4] = {
    [FTL_CELL_SLC] = { 800000 },
    [FTL_CELL_MLC] = { 850000, 0, 2300000 },
    [FTL_CELL_TLC] = { 820500, 2225000, 5734000 },
    [FTL_CELL_QLC] = { 861525, 2447500, 6880800, 9174400 },
};
static const uint64_t cell_er[5] = {
    [FTL_CELL_SLC] = 2000000, [FTL_CELL_MLC] = 3000000,
    [FTL_CELL_TLC] = 3000000, [FTL_CELL_QLC] = 3000000,
};
/* pgtype_lat: program time x mult / 1000 by page % cell_pages, one row
 * per cell_pages (FEMU's multipliers) */
static const uint32_t pgtype_mult[FTL_MAX_CELL_PAGES][FTL_MAX_PGTYPES] = {
    { 1000 },
    { 600, 1400 },
    { 600, 1000, 1400 },
    { 500, 850, 1150, 1500 },
    { 400, 750, 1000, 1250, 1600 },
};

enum { LSB = 0, CSB = 1, MSB = 2, TSB = 3 };

/* The shadow-program pairing patterns repeat every 512 pages (the
 * longest block FEMU's tables describe). */
#define PAIRING_PAGES 512u

static uint32_t cell_page_type(uint32_t cell, uint32_t pg)
{
    pg %= PAIRING_PAGES;
    switch (cell) {
    case FTL_CELL_MLC:
        /* 0..9: upper pages 6 and 9; then pairs alternating lower/upper;
         * the block's last ten pages: upper 504, 505, 508 and 511 */
        if (pg < 10) {
            return pg == 6 || pg == 9 ? MSB : LSB;
        }
        if (pg >= PAIRING_PAGES - 10) {
            return pg == 504 || pg == 505 || pg == 508 || pg == 511 ? MSB
                                                                    : LSB;
        }
        return (pg - 10) / 2 % 2 ? MSB : LSB;
    case FTL_CELL_TLC:
        /* 0..5 lower, 6..7 center, then pairs cycling lower/center/upper */
        if (pg < 8) {
            return pg < 6 ? LSB : CSB;
        }
        return (pg - 8) / 2 % 3;
    case FTL_CELL_QLC:
        /* 0..5 lower, 6..7 lower-center, then pairs cycling the four
         * types; the last 16 pages lower */
        if (pg < 8) {
            return pg < 6 ? LSB : CSB;
        }
        if (pg >= PAIRING_PAGES - 16) {
            return LSB;
        }
        return (pg - 8) / 2 % 4;
    default:
        return LSB;
    }
}

static uint32_t cfg_cell_pages(const struct ftl_config *c)
{
    return c->cell_pages ? c->cell_pages : 3;
}

static bool cfg_typed(const struct ftl_config *c)
{
    return c->nand_cell_type != FTL_CELL_UNIFORM || c->pgtype_lat != 0;
}

uint32_t ftl_cfg_page_types(const struct ftl_config *c)
{
    if (c->nand_cell_type != FTL_CELL_UNIFORM) {
        return c->nand_cell_type;
    }
    return c->pgtype_lat ? cfg_cell_pages(c) : 1;
}

uint32_t ftl_cfg_page_type(const struct ftl_config *c, uint32_t pg)
{
    if (c->nand_cell_type != FTL_CELL_UNIFORM) {
        return cell_page_type(c->nand_cell_type, pg);
    }
    return c->pgtype_lat ? pg % cfg_cell_pages(c) : 0;
}

/* Read and program time of page type t under c's configured timing. */
static uint64_t type_rd(const struct ftl_config *c, uint32_t t)
{
    if (c->nand_cell_type == FTL_CELL_UNIFORM) {
        return c->pg_rd_lat;
    }
    return c->pgtype_rd_lat[t] ? c->pgtype_rd_lat[t]
                               : cell_rd[c->nand_cell_type][t];
}

static uint64_t type_wr(const struct ftl_config *c, uint32_t t)
{
    if (c->nand_cell_type == FTL_CELL_UNIFORM) {
        if (!c->pgtype_lat) {
            return c->pg_wr_lat;
        }
        return c->pg_wr_lat * pgtype_mult[cfg_cell_pages(c) - 1][t] / 1000;
    }
    if (t >= 4) {
        return 0;   /* cells have at most four page types */
    }
    return c->pgtype_wr_lat[t] ? c->pgtype_wr_lat[t]
                               : cell_wr[c->nand_cell_type][t];
}

uint64_t ftl_cfg_page_rd_lat(const struct ftl_config *c, uint32_t pg)
{
    return type_rd(c, ftl_cfg_page_type(c, pg));
}

uint64_t ftl_cfg_page_wr_lat(const struct ftl_config *c, uint32_t pg)
{
    return type_wr(c, ftl_cfg_page_type(c, pg));
}

const char *ftl_cell_type_name(uint32_t cell)
{
    static const char *const names[] = { "uniform", "SLC", "MLC", "TLC",
                                         "QLC" };
    return cell < 5 ? names[cell] : "?";
}

/* The page-type table of a block and each type's times (typed timing). */
static int pgtype_setup(struct ftl_timing *tm, const struct ftl_config *cfg)
{
    tm->pgtype = NULL;
    tm->npg = cfg->pgs_per_blk;
    if (!cfg_typed(cfg)) {
        return 0;
    }
    tm->pgtype = malloc(cfg->pgs_per_blk);
    if (!tm->pgtype) {
        return -1;
    }
    for (uint32_t pg = 0; pg < cfg->pgs_per_blk; pg++) {
        tm->pgtype[pg] = (uint8_t)ftl_cfg_page_type(cfg, pg);
    }
    return 0;
}

int ftl_timing_setup(struct ftl_timing *tm, const struct ftl_config *cfg)
{
    uint32_t nluns = cfg->nchs * cfg->luns_per_ch;

    tm->lun_free = calloc(nluns, sizeof(*tm->lun_free));
    tm->ch_free = calloc(cfg->nchs, sizeof(*tm->ch_free));
    tm->lun_ch = calloc(nluns, sizeof(*tm->lun_ch));
    if (!tm->lun_free || !tm->ch_free || !tm->lun_ch ||
        pgtype_setup(tm, cfg) < 0) {
        ftl_timing_release(tm);
        return -1;
    }
    /* global LUN g = lun_in_channel * nchs + channel (channels first) */
    for (uint32_t g = 0; g < nluns; g++) {
        tm->lun_ch[g] = g % cfg->nchs;
    }
    tm->gc_delay = true;
    tm->mode = FTL_DELAY_CONFIGURED;
    ftl_timing_set_mode(tm, cfg);
    return 0;
}

void ftl_timing_release(struct ftl_timing *tm)
{
    free(tm->lun_free);
    free(tm->ch_free);
    free(tm->lun_ch);
    free(tm->pgtype);
    tm->lun_free = tm->ch_free = NULL;
    tm->lun_ch = NULL;
    tm->pgtype = NULL;
}

int ftl_timing_init(struct ftl *ftl)
{
    return ftl_timing_setup(&ftl->tm, &ftl->cfg);
}

void ftl_timing_free(struct ftl *ftl)
{
    ftl_timing_release(&ftl->tm);
}

void ftl_timing_apply_mode(struct ftl *ftl)
{
    ftl_timing_set_mode(&ftl->tm, &ftl->cfg);
}

void ftl_timing_set_mode(struct ftl_timing *tm, const struct ftl_config *cfg)
{
    tm->typed = false;
    switch (tm->mode) {
    case FTL_DELAY_BUILTIN:
        tm->enabled = true;
        tm->rd = BUILTIN_RD;
        tm->wr = BUILTIN_WR;
        tm->er = BUILTIN_ER;
        tm->xfer = 0;
        break;
    case FTL_DELAY_OFF:
        tm->enabled = false;
        tm->rd = tm->wr = tm->er = tm->xfer = 0;
        break;
    case FTL_DELAY_CONFIGURED:
    default:
        tm->enabled = true;
        tm->rd = cfg->pg_rd_lat;
        tm->wr = cfg->pg_wr_lat;
        tm->er = cfg->blk_er_lat;
        tm->xfer = cfg->ch_xfer_lat;
        if (tm->pgtype) {
            tm->typed = true;
            for (uint32_t t = 0; t < FTL_MAX_PGTYPES; t++) {
                tm->rd_pt[t] = t < 4 ? type_rd(cfg, t) : cfg->pg_rd_lat;
                tm->wr_pt[t] = type_wr(cfg, t);
            }
            if (cfg->nand_cell_type != FTL_CELL_UNIFORM) {
                tm->er = cell_er[cfg->nand_cell_type];
            }
        }
        break;
    }
}

/* Occupy a LUN or channel that is free at *free from t (or later) for
 * lat ns: the time it is done, which is also when it is free again. */
static inline uint64_t busy(uint64_t *free, uint64_t t, uint64_t lat)
{
    *free = ftl_max64(t, *free) + lat;
    return *free;
}

/* read: the LUN senses the page, then the channel carries it out */
uint64_t ftl_nand_read(struct ftl_timing *tm, uint32_t lun, uint32_t pg,
                       uint64_t now)
{
    uint64_t rd;

    if (!tm->enabled) {
        return now;
    }
    rd = tm->typed ? tm->rd_pt[tm->pgtype[pg % tm->npg]] : tm->rd;
    return busy(&tm->ch_free[tm->lun_ch[lun]],
                busy(&tm->lun_free[lun], now, rd), tm->xfer);
}

/* program: the channel carries the page in, then the LUN programs it */
uint64_t ftl_nand_prog(struct ftl_timing *tm, uint32_t lun, uint32_t pg,
                       uint64_t now)
{
    uint64_t wr;

    if (!tm->enabled) {
        return now;
    }
    wr = tm->typed ? tm->wr_pt[tm->pgtype[pg % tm->npg]] : tm->wr;
    return busy(&tm->lun_free[lun],
                busy(&tm->ch_free[tm->lun_ch[lun]], now, tm->xfer), wr);
}

uint64_t ftl_nand_erase(struct ftl_timing *tm, uint32_t lun, uint64_t now)
{
    if (!tm->enabled) {
        return now;
    }
    return busy(&tm->lun_free[lun], now, tm->er);
}
