/*
 * FEMU BlackBox FTL: placement streams and the write pointer.
 *
 * A stream owns at most one open line.  Its write pointer walks the line
 * channel first, then LUN, then plane, then page within the block:
 *   seq = ((pg * pls_per_lun + pl) * luns_per_ch + lun) * nchs + ch
 * so consecutive pages of a stream land on different channels and LUNs.
 *
 * Streams:
 *  - default (as FEMU's BlackBox FTL): ONE write pointer, stream 0, shared
 *    by host writes and GC relocations, so relocated (cold) and fresh
 *    (hot) pages mix in the same open line;
 *  - hot_cold_sep: stream 0 takes first writes (cold), stream 1 overwrites
 *    (hot); GC relocations join the cold line (pages that survived a
 *    collection are cold too; docs/ftl.md has the measurements behind
 *    this choice);
 *  - gc_own_line (extension): GC relocations go to a stream of their own
 *    instead, apart from every host line;
 *  - FDP: host stream h is reclaim unit handle h (placement id h), each
 *    with its own GC stream, so relocated pages never mix handles
 *    (persistently isolated).  Hot/cold separation is not applied then:
 *    the host does the placement.  At most gc_units_max per-handle GC
 *    units are open at once (ftl_fdp_gc_units); when fewer than nruh are
 *    allowed, a shared overflow GC unit takes the relocations of a handle
 *    that finds them all open.  GC never writes into a host unit, so a
 *    handle's RUAMW counts the host's writes only.
 * Without FDP a stream takes its next line the moment one fills (FEMU's
 * write pointer does the same), so "lines in use" counts the open line
 * between requests exactly as FEMU does; the first line opens on the
 * first page.  FDP units open lazily on a stream's first page, so a
 * handle that is never written holds no line.  The reserve rule
 * (geometry.c) counts every stream's line as open.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "ftl-int.h"

int ftl_streams_init(struct ftl *ftl)
{
    uint32_t n, nruh = ftl->cfg.fdp_nruh;

    ftl->gc_overflow = FTL_NONE;
    if (nruh > 0) {
        ftl->nhost = nruh;
        ftl->ngc = nruh + ftl_fdp_gc_overflow(&ftl->cfg);
        ftl->gc_units_max = ftl_fdp_gc_units(&ftl->cfg);
        if (ftl->ngc > nruh) {
            ftl->gc_overflow = 2 * nruh;
        }
    } else {
        ftl->nhost = ftl->cfg.hot_cold_sep ? 2 : 1;
        ftl->ngc = ftl->cfg.gc_own_line ? 1 : 0;
    }
    n = ftl->nhost + ftl->ngc;
    ftl->streams = calloc(n, sizeof(*ftl->streams));
    if (!ftl->streams) {
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        struct ftl_stream *st = &ftl->streams[i];
        st->line = FTL_NONE;
        st->is_gc = i >= ftl->nhost;
        if (nruh == 0) {
            st->owner = 0;
        } else if (i == ftl->gc_overflow) {
            st->owner = FTL_OWNER_SHARED;
        } else {
            st->owner = (uint16_t)(st->is_gc ? i - ftl->nhost : i);
        }
    }
    return 0;
}

void ftl_streams_free(struct ftl *ftl)
{
    free(ftl->streams);
    ftl->streams = NULL;
}

void ftl_fdp_push_event(struct ftl *ftl, uint8_t type, uint16_t pid,
                        uint16_t ruh, uint64_t lba, uint32_t nlb,
                        uint64_t now)
{
    struct ftl_fdp_event *ev;
    uint32_t slot;

    if (ftl->nev == FTL_FDP_EVENT_QUEUE) {
        /* full: drop the oldest, keep the newest */
        ftl->ev_head = (ftl->ev_head + 1) % FTL_FDP_EVENT_QUEUE;
        ftl->nev--;
    }
    slot = (ftl->ev_head + ftl->nev) % FTL_FDP_EVENT_QUEUE;
    ev = &ftl->evq[slot];
    ev->type = type;
    ev->pid = pid;
    ev->ruh = ruh;
    ev->lba = lba;
    ev->nlb = nlb;
    ev->time_ns = now;
    ftl->nev++;
}

uint32_t ftl_stream_for_host(struct ftl *ftl, uint32_t lpn, uint32_t pid,
                             uint64_t slba, uint32_t nlb, uint64_t now)
{
    if (ftl->cfg.fdp_nruh > 0) {
        if (pid == FTL_PID_NONE) {
            return 0;
        }
        if (pid < ftl->cfg.fdp_nruh) {
            return pid;
        }
        /* Invalid Placement Identifier: the write still succeeds through
         * handle 0 (NVMe 2.0 Base, FDP: placement handle 0 is used) */
        ftl_fdp_push_event(ftl, FTL_FDP_EVT_INVALID_PID,
                           (uint16_t)(pid > UINT16_MAX ? UINT16_MAX : pid), 0,
                           slba, nlb, now);
        return 0;
    }
    if (ftl->cfg.hot_cold_sep) {
        return ftl_map_get(ftl, lpn) != FTL_NONE ? 1 : 0;
    }
    return 0;
}

/*
 * The stream a victim of handle `owner` relocates into.  Without FDP: the
 * shared write pointer (stream 0: the only host line, or the cold line
 * with hot_cold_sep), or the GC line with gc_own_line.  FDP: the handle's
 * own GC unit while it has one open, or when fewer than gc_units_max are
 * open (it opens on the first page); otherwise the overflow GC unit.
 * Never a host unit.  (Closing another handle's GC unit early instead
 * would waste its unwritten rest, and victims of alternating handles
 * would then free no line at all.)
 */
uint32_t ftl_stream_for_gc(struct ftl *ftl, uint16_t owner)
{
    uint32_t si, nopen = 0;

    if (ftl->cfg.fdp_nruh == 0) {
        return ftl->ngc > 0 ? ftl->nhost : 0;
    }
    if (owner == FTL_OWNER_SHARED) {
        return ftl->gc_overflow;
    }
    si = ftl->nhost + owner;
    if (ftl->streams[si].line != FTL_NONE) {
        return si;
    }
    for (uint32_t i = ftl->nhost; i < ftl->nhost + ftl->cfg.fdp_nruh; i++) {
        nopen += ftl->streams[i].line != FTL_NONE;
    }
    return nopen < ftl->gc_units_max ? si : ftl->gc_overflow;
}

static bool stream_open(struct ftl *ftl, struct ftl_stream *st)
{
    uint32_t id = ftl_line_take_free(&ftl->ln);
    struct ftl_line *l;

    if (id == FTL_NONE) {
        return false;
    }
    l = &ftl->ln.line[id];
    l->owner = st->owner;
    l->is_gc = st->is_gc;
    st->line = id;
    st->seq = 0;
    st->lun = 0;
    return true;
}

uint32_t ftl_stream_program(struct ftl *ftl, uint32_t si, bool timed,
                            uint64_t now, uint64_t *done)
{
    struct ftl_stream *st = &ftl->streams[si];
    uint32_t ppa;
    struct ftl_line *l;

    if (st->line == FTL_NONE && !stream_open(ftl, st)) {
        return FTL_NONE;
    }
    l = &ftl->ln.line[st->line];
    ppa = st->line * ftl->ppl + st->seq;
    if (timed) {
        *done = ftl_nand_prog(&ftl->tm, st->lun,
                              ftl_seq_pg(ftl, st->seq), now);
    }
    l->vpc++;
    ftl->clock++;
    st->seq++;
    st->lun = (st->lun + 1 == ftl->nluns) ? 0 : st->lun + 1;
    if (st->seq == ftl->ppl) {
        ftl_line_close(&ftl->ln, st->line, ftl->clock);
        st->line = FTL_NONE;
        if (ftl->cfg.fdp_nruh == 0) {
            /* like FEMU's write pointer: the next line now; with none
             * free it opens on the next page (forced GC makes one) */
            (void)stream_open(ftl, st);
        }
    }
    return ppa;
}

void ftl_stream_close_early(struct ftl *ftl, uint32_t si)
{
    struct ftl_stream *st = &ftl->streams[si];

    if (st->line == FTL_NONE) {
        return;
    }
    /* the unwritten rest of the line is lost until GC erases it; valid
     * counts already exclude it, so policies see it as reclaimable */
    ftl_line_close(&ftl->ln, st->line, ftl->clock);
    st->line = FTL_NONE;
}
