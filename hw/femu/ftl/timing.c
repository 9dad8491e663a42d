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
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "ftl-int.h"

/* 0xEF code 3: built-in times, independent of the command line */
#define BUILTIN_RD 40000u
#define BUILTIN_WR 200000u
#define BUILTIN_ER 2000000u

int ftl_timing_setup(struct ftl_timing *tm, const struct ftl_config *cfg)
{
    uint32_t nluns = cfg->nchs * cfg->luns_per_ch;

    tm->lun_free = calloc(nluns, sizeof(*tm->lun_free));
    tm->ch_free = calloc(cfg->nchs, sizeof(*tm->ch_free));
    tm->lun_ch = calloc(nluns, sizeof(*tm->lun_ch));
    if (!tm->lun_free || !tm->ch_free || !tm->lun_ch) {
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
    tm->lun_free = tm->ch_free = NULL;
    tm->lun_ch = NULL;
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
uint64_t ftl_nand_read(struct ftl_timing *tm, uint32_t lun, uint64_t now)
{
    if (!tm->enabled) {
        return now;
    }
    return busy(&tm->ch_free[tm->lun_ch[lun]],
                busy(&tm->lun_free[lun], now, tm->rd), tm->xfer);
}

/* program: the channel carries the page in, then the LUN programs it */
uint64_t ftl_nand_prog(struct ftl_timing *tm, uint32_t lun, uint64_t now)
{
    if (!tm->enabled) {
        return now;
    }
    return busy(&tm->lun_free[lun],
                busy(&tm->ch_free[tm->lun_ch[lun]], now, tm->xfer), tm->wr);
}

uint64_t ftl_nand_erase(struct ftl_timing *tm, uint32_t lun, uint64_t now)
{
    if (!tm->enabled) {
        return now;
    }
    return busy(&tm->lun_free[lun], now, tm->er);
}
