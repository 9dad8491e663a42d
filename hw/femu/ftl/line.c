/*
 * FEMU BlackBox FTL: the line allocator.
 *
 * A line is block index `id` on every plane of every LUN, the unit GC
 * reclaims.  Free lines wait in a FIFO ring.  Closed lines are indexed so
 * no policy has to scan more than it needs: buckets by valid-page count
 * (greedy takes the lowest non-empty bucket) hold every closed line; the
 * victim candidates, closed lines with at least one invalid page, are also
 * in a list in close order (fifo takes the head) and a dense array (random
 * and d-choice sample it; cost-benefit walks it).  A fully valid line
 * joins the candidates on its first invalidation, at its place in close
 * order: FEMU keeps such lines on a "full" list, off its victim queue, so
 * no policy can pick a line whose collection frees nothing.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "ftl-int.h"

int ftl_lines_init(struct ftl_lines *ln, uint32_t nlines, uint32_t ppl)
{
    memset(ln, 0, sizeof(*ln));
    ln->nlines = nlines;
    ln->ppl = ppl;
    ln->line = calloc(nlines, sizeof(*ln->line));
    ln->freeq = calloc(nlines, sizeof(*ln->freeq));
    ln->closed = calloc(nlines, sizeof(*ln->closed));
    ln->bucket = calloc((size_t)ppl + 1, sizeof(*ln->bucket));
    if (!ln->line || !ln->freeq || !ln->closed || !ln->bucket) {
        ftl_lines_free(ln);
        return -1;
    }
    for (uint32_t i = 0; i <= ppl; i++) {
        ln->bucket[i] = FTL_NONE;
    }
    for (uint32_t i = 0; i < nlines; i++) {
        struct ftl_line *l = &ln->line[i];
        l->bprev = l->bnext = l->fprev = l->fnext = l->cpos = FTL_NONE;
        l->state = FTL_LINE_FREE;
        ln->freeq[i] = i;
    }
    ln->nfree = nlines;
    ln->free_head = 0;
    ln->min_bucket = ppl + 1;
    ln->fifo_head = ln->fifo_tail = FTL_NONE;
    return 0;
}

void ftl_lines_free(struct ftl_lines *ln)
{
    free(ln->line);
    free(ln->freeq);
    free(ln->closed);
    free(ln->bucket);
    ln->line = NULL;
    ln->freeq = ln->closed = ln->bucket = NULL;
}

uint32_t ftl_line_take_free(struct ftl_lines *ln)
{
    uint32_t id;

    if (ln->nfree == 0) {
        return FTL_NONE;
    }
    id = ln->freeq[ln->free_head];
    ln->free_head = (ln->free_head + 1 == ln->nlines) ? 0 : ln->free_head + 1;
    ln->nfree--;
    ln->line[id].state = FTL_LINE_OPEN;
    ln->line[id].vpc = 0;
    return id;
}

int ftl_line_take_free_id(struct ftl_lines *ln, uint32_t id)
{
    uint32_t q = ln->free_head, i;

    for (i = 0; i < ln->nfree; i++) {
        if (ln->freeq[q] == id) {
            break;
        }
        q = q + 1 == ln->nlines ? 0 : q + 1;
    }
    if (i == ln->nfree) {
        return -1;
    }
    /* close the gap: the lines behind it move up one place */
    for (i++; i < ln->nfree; i++) {
        uint32_t nq = q + 1 == ln->nlines ? 0 : q + 1;
        ln->freeq[q] = ln->freeq[nq];
        q = nq;
    }
    ln->nfree--;
    ln->line[id].state = FTL_LINE_OPEN;
    ln->line[id].vpc = 0;
    return 0;
}

void ftl_line_put_free(struct ftl_lines *ln, uint32_t id)
{
    uint32_t tail = ln->free_head + ln->nfree;

    if (tail >= ln->nlines) {
        tail -= ln->nlines;
    }
    ln->freeq[tail] = id;
    ln->nfree++;
    ln->line[id].state = FTL_LINE_FREE;
    ln->line[id].vpc = 0;
    ln->line[id].is_gc = 0;
    ln->line[id].owner = 0;
}

static inline void bucket_unlink(struct ftl_lines *ln, uint32_t id)
{
    struct ftl_line *l = &ln->line[id];

    if (l->bprev != FTL_NONE) {
        ln->line[l->bprev].bnext = l->bnext;
    } else {
        ln->bucket[l->vpc] = l->bnext;
    }
    if (l->bnext != FTL_NONE) {
        ln->line[l->bnext].bprev = l->bprev;
    }
    l->bprev = l->bnext = FTL_NONE;
}

static inline void bucket_link(struct ftl_lines *ln, uint32_t id)
{
    struct ftl_line *l = &ln->line[id];
    uint32_t head = ln->bucket[l->vpc];

    l->bprev = FTL_NONE;
    l->bnext = head;
    if (head != FTL_NONE) {
        ln->line[head].bprev = id;
    }
    ln->bucket[l->vpc] = id;
    if (l->vpc < ln->min_bucket) {
        ln->min_bucket = l->vpc;
    }
}

/* Make closed line id a victim candidate: dense array and close order. */
static void cand_add(struct ftl_lines *ln, uint32_t id)
{
    struct ftl_line *l = &ln->line[id];
    uint32_t prev = ln->fifo_tail;

    /* usually the newest (just closed); a fully valid line that gets its
     * first invalid page goes back to its place among older ones */
    while (prev != FTL_NONE && ln->line[prev].close_clock > l->close_clock) {
        prev = ln->line[prev].fprev;
    }
    l->fprev = prev;
    l->fnext = prev != FTL_NONE ? ln->line[prev].fnext : ln->fifo_head;
    if (l->fnext != FTL_NONE) {
        ln->line[l->fnext].fprev = id;
    } else {
        ln->fifo_tail = id;
    }
    if (prev != FTL_NONE) {
        ln->line[prev].fnext = id;
    } else {
        ln->fifo_head = id;
    }
    l->cpos = ln->nclosed;
    ln->closed[ln->nclosed++] = id;
}

static void cand_remove(struct ftl_lines *ln, uint32_t id)
{
    struct ftl_line *l = &ln->line[id];
    uint32_t last;

    if (l->cpos == FTL_NONE) {
        return;
    }
    if (l->fprev != FTL_NONE) {
        ln->line[l->fprev].fnext = l->fnext;
    } else {
        ln->fifo_head = l->fnext;
    }
    if (l->fnext != FTL_NONE) {
        ln->line[l->fnext].fprev = l->fprev;
    } else {
        ln->fifo_tail = l->fprev;
    }
    l->fprev = l->fnext = FTL_NONE;
    /* swap-remove from the dense array */
    last = ln->closed[--ln->nclosed];
    ln->closed[l->cpos] = last;
    ln->line[last].cpos = l->cpos;
    l->cpos = FTL_NONE;
}

void ftl_line_close(struct ftl_lines *ln, uint32_t id, uint64_t clock)
{
    struct ftl_line *l = &ln->line[id];

    l->state = FTL_LINE_CLOSED;
    l->close_clock = clock;
    bucket_link(ln, id);
    l->cpos = l->fprev = l->fnext = FTL_NONE;
    if (l->vpc < ln->ppl) {
        cand_add(ln, id);
    }
}

void ftl_line_unclose(struct ftl_lines *ln, uint32_t id)
{
    struct ftl_line *l = &ln->line[id];

    bucket_unlink(ln, id);
    cand_remove(ln, id);
    l->state = FTL_LINE_VICTIM;
}

void ftl_line_invalidate(struct ftl_lines *ln, uint32_t id)
{
    struct ftl_line *l = &ln->line[id];

    if (l->state == FTL_LINE_CLOSED) {
        bucket_unlink(ln, id);
        l->vpc--;
        bucket_link(ln, id);
        if (l->vpc == ln->ppl - 1) {
            cand_add(ln, id);
        }
    } else {
        l->vpc--;
    }
}

uint32_t ftl_line_min_valid(struct ftl_lines *ln)
{
    /* no candidate: every closed line is fully valid */
    if (ln->nclosed == 0) {
        return FTL_NONE;
    }
    /* min_bucket only moves down on link; walking it up here is paid for
     * by those moves, so a pick is amortised O(1) */
    while (ln->min_bucket <= ln->ppl &&
           ln->bucket[ln->min_bucket] == FTL_NONE) {
        ln->min_bucket++;
    }
    return ln->bucket[ln->min_bucket];
}
