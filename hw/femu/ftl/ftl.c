/*
 * FEMU BlackBox FTL: the public API (include/hw/femu/ftl.h) over the
 * geometry, line, mapping, stream, GC and timing parts.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftl-int.h"

struct ftl *ftl_new(const struct ftl_config *cfg, char *err, size_t errlen)
{
    struct ftl *ftl;

    if (ftl_config_validate(cfg, err, errlen) < 0) {
        return NULL;
    }
    ftl = calloc(1, sizeof(*ftl));
    if (!ftl) {
        snprintf(err, errlen, "out of memory for the FTL");
        return NULL;
    }
    ftl->cfg = *cfg;
    ftl_geometry_derive(ftl);
    /* xorshift must not start at 0 */
    ftl->rng = cfg->seed * UINT64_C(0x9E3779B97F4A7C15) + 1;
    if (ftl->rng == 0) {
        ftl->rng = 1;
    }
    if (ftl_lines_init(&ftl->ln, cfg->blks_per_pl, ftl->ppl) < 0 ||
        ftl_map_init(ftl) < 0 || ftl_streams_init(ftl) < 0 ||
        ftl_timing_init(ftl) < 0 || ftl_cache_init(ftl) < 0 ||
        ftl_dftl_init(ftl) < 0 || ftl_hyb_init(ftl) < 0 ||
        ftl_wear_init(ftl) < 0 || ftl_wcache_init(ftl) < 0) {
        snprintf(err, errlen,
                 "out of memory for the FTL tables (%llu NAND pages)",
                 (unsigned long long)ftl->nand_pages);
        ftl_free(ftl);
        return NULL;
    }
    return ftl;
}

void ftl_free(struct ftl *ftl)
{
    if (!ftl) {
        return;
    }
    ftl_lines_free(&ftl->ln);
    ftl_map_free(ftl);
    ftl_streams_free(ftl);
    ftl_timing_free(ftl);
    ftl_cache_free(ftl);
    ftl_dftl_free(ftl);
    ftl_hyb_free(ftl);
    ftl_wear_free(ftl);
    ftl_wcache_free(ftl);
    free(ftl);
}

const struct ftl_config *ftl_config_of(const struct ftl *ftl)
{
    return &ftl->cfg;
}

uint64_t ftl_ns_blocks(const struct ftl *ftl)
{
    return ftl->ns_blocks;
}

uint64_t ftl_line_bytes(const struct ftl *ftl)
{
    return (uint64_t)ftl->ppl * ftl->page_bytes;
}

uint64_t ftl_logical_pages(const struct ftl *ftl)
{
    return ftl->lpages;
}

uint64_t ftl_nand_pages(const struct ftl *ftl)
{
    return ftl->nand_pages;
}

uint64_t ftl_meta_bytes(const struct ftl *ftl)
{
    uint64_t n = sizeof(*ftl);

    n += (uint64_t)ftl->lpages * sizeof(uint32_t);        /* maptbl */
    n += ftl->nand_pages * sizeof(uint32_t);               /* rmap */
    n += (ftl->nand_pages + 63) / 64 * sizeof(uint64_t);   /* valid bits */
    n += (uint64_t)ftl->ln.nlines *
         (sizeof(struct ftl_line) + 2 * sizeof(uint32_t)); /* lines */
    n += ((uint64_t)ftl->ppl + 1) * sizeof(uint32_t);     /* buckets */
    n += (uint64_t)(ftl->nhost + ftl->ngc) * sizeof(struct ftl_stream);
    n += (uint64_t)ftl->nluns * (sizeof(uint64_t) + sizeof(uint32_t)) +
         (uint64_t)ftl->cfg.nchs * sizeof(uint64_t);
    n += ftl_cache_meta_bytes(ftl);
    n += ftl_dftl_meta_bytes(ftl);
    n += ftl_hyb_meta_bytes(ftl);
    n += (uint64_t)ftl->ln.nlines * (sizeof(uint32_t) + 1); /* wear */
    n += ftl_wcache_meta_bytes(ftl);
    return n;
}

uint64_t ftl_read(struct ftl *ftl, uint64_t slba, uint32_t nlb,
                  uint64_t now_ns)
{
    uint64_t done = now_ns;
    uint32_t first, last;

    if (nlb == 0) {
        return now_ns;
    }
    first = (uint32_t)(slba / ftl->blocks_per_page);
    last = (uint32_t)((slba + nlb - 1) / ftl->blocks_per_page);
    if (ftl->dftl.ntp && ftl_used_lines(ftl) >= ftl->thres_high_lines) {
        /* evictions of dirty translation pages program NAND on reads
         * too; with nothing reclaimable the read goes on and a failed
         * write-back keeps its page cached */
        (void)ftl_gc_forced(ftl, now_ns);
    }
    if (ftl->wc.cap) {
        ftl_wcache_advance(ftl, now_ns);
    }
    for (uint32_t lpn = first; lpn <= last && lpn < ftl->lpages; lpn++) {
        uint32_t ppa = ftl_map_get(ftl, lpn);
        uint32_t seq, lun;
        uint64_t start = now_ns;

        if (ftl->wc.cap && ftl_wcache_holds(ftl, lpn)) {
            /* the newest data is in the write cache: DRAM, no NAND */
            ftl->ctr.wc_read_hits++;
            continue;
        }
        if (ftl->dftl.ntp) {
            /* the mapping entry first: a miss reads its translation page */
            start = ftl_dftl_access(ftl, lpn, false, true, now_ns);
            if (start == FTL_TIME_ERROR) {
                start = now_ns;
            }
            done = ftl_max64(done, start);
        }
        if (ppa == FTL_NONE) {
            continue; /* never written or trimmed: no NAND access */
        }
        if (ftl->rc.cap && ftl_cache_read(ftl, lpn)) {
            /* from DRAM: no LUN or channel time; a sixteenth of a page
             * read, as FEMU's cache hit */
            done = ftl_max64(done, start + (ftl->tm.enabled ?
                                            ftl->tm.rd / 16 : 0));
            continue;
        }
        ftl->ctr.host_pages_read++;
        if (ftl->hyb.on) {
            /* log-block mapping: page ppa % pgs_per_blk of block
             * ppa / pgs_per_blk */
            done = ftl_max64(done, ftl_nand_read(&ftl->tm,
                                                 ftl_hyb_lun(ftl, ppa),
                                                 ftl_hyb_pg(ftl, ppa), start));
            continue;
        }
        seq = ftl_mod32(&ftl->div_ppl, ppa);
        lun = ftl_mod32(&ftl->div_nluns, seq);
        done = ftl_max64(done, ftl_nand_read(&ftl->tm, lun,
                                             ftl_seq_pg(ftl, seq), start));
    }
    return done;
}

uint64_t ftl_write(struct ftl *ftl, uint64_t slba, uint32_t nlb, uint32_t pid,
                   uint64_t now_ns)
{
    uint32_t first, last;

    if (nlb == 0) {
        return now_ns;
    }
    if (ftl->wear.ro) {
        /* the spare is used up: the media is read-only */
        return FTL_TIME_ERROR;
    }
    first = (uint32_t)(slba / ftl->blocks_per_page);
    last = (uint32_t)((slba + nlb - 1) / ftl->blocks_per_page);
    if (last >= ftl->lpages) {
        last = ftl->lpages - 1;
    }
    ftl->ctr.fdp_hbmw += (uint64_t)nlb * ftl->cfg.secsz;
    if (ftl->wc.cap) {
        ftl_wcache_advance(ftl, now_ns);
        if (ftl->wc.on) {
            return ftl_wcache_write(ftl, first, last, pid, now_ns);
        }
        for (uint32_t lpn = first; lpn <= last; lpn++) {
            ftl_wcache_drop(ftl, lpn);
        }
    }
    return ftl_write_pages(ftl, first, last, slba, nlb, pid, now_ns);
}

uint64_t ftl_write_pages(struct ftl *ftl, uint32_t first, uint32_t last,
                         uint64_t slba, uint32_t nlb, uint32_t pid,
                         uint64_t now_ns)
{
    uint64_t done = now_ns;
    bool pid_checked = false;
    uint32_t fdp_si = 0;

    if (ftl->hyb.on) {
        /* log-block mapping (hybrid.c): merges instead of line GC */
        for (uint32_t lpn = first; lpn <= last; lpn++) {
            uint64_t t;

            if (ftl->rc.cap) {
                ftl_cache_drop(ftl, lpn);
            }
            t = ftl_hyb_write(ftl, lpn, now_ns);
            if (t == FTL_TIME_ERROR) {
                return t;
            }
            done = ftl_max64(done, t);
        }
        return done;
    }
    for (uint32_t lpn = first; lpn <= last; lpn++) {
        uint32_t si, ppa;
        uint64_t t;

        if (ftl_used_lines(ftl) >= ftl->thres_high_lines &&
            ftl_gc_forced(ftl, now_ns) < 0) {
            ftl_wear_write_failed(ftl);
            return FTL_TIME_ERROR;
        }
        if (ftl->dftl.ntp) {
            /* the entry is updated in the cached translation page */
            t = ftl_dftl_access(ftl, lpn, true, true, now_ns);
            if (t == FTL_TIME_ERROR) {
                return t;
            }
            done = ftl_max64(done, t);
        }
        if (ftl->cfg.fdp_nruh > 0) {
            /* one placement decision (and at most one event) per command */
            if (!pid_checked) {
                fdp_si = ftl_stream_for_host(ftl, lpn, pid, slba, nlb, now_ns);
                pid_checked = true;
            }
            si = fdp_si;
        } else {
            si = ftl_stream_for_host(ftl, lpn, pid, slba, nlb, now_ns);
        }
        ppa = ftl_stream_program(ftl, si, true, now_ns, &t);
        if (ppa == FTL_NONE) {
            ftl_wear_write_failed(ftl);
            return FTL_TIME_ERROR;
        }
        if (ftl->rc.cap) {
            ftl_cache_drop(ftl, lpn);
        }
        ftl_map_set(ftl, lpn, ppa);
        ftl->ctr.host_pages_written++;
        ftl_nsctr(ftl, lpn, false, 1);
        ftl->ctr.host_pages_programmed++;
        ftl->ctr.fdp_mbmw += ftl->page_bytes;
        done = ftl_max64(done, t);
    }
    return done;
}

void ftl_prefetch(const struct ftl *ftl, uint64_t slba)
{
    uint64_t lpn = slba / ftl->blocks_per_page;

    if (lpn < ftl->lpages) {
        ftl_prefetch_w(&ftl->maptbl[lpn]);
    }
}

void ftl_trim(struct ftl *ftl, uint64_t slba, uint32_t nlb)
{
    uint64_t bpp = ftl->blocks_per_page;
    uint64_t first, end;

    if (nlb == 0) {
        return;
    }
    /* only pages the range covers entirely: a partly trimmed page still
     * holds the other blocks' data */
    first = (slba + bpp - 1) / bpp;
    end = (slba + nlb) / bpp;
    if (end > ftl->lpages) {
        end = ftl->lpages;
    }
    for (uint64_t lpn = first; lpn < end; lpn++) {
        if (ftl->rc.cap) {
            ftl_cache_drop(ftl, (uint32_t)lpn);
        }
        if (ftl->wc.cap) {
            ftl_wcache_drop(ftl, (uint32_t)lpn);
        }
        if (ftl->dftl.ntp && ftl_map_get(ftl, (uint32_t)lpn) != FTL_NONE) {
            /* counted, untimed (a deallocation takes trim_lat_ns); with no
             * free line left the write-back waits for the next eviction */
            (void)ftl_dftl_access(ftl, (uint32_t)lpn, true, false, 0);
        }
        if (ftl->hyb.on) {
            ftl_hyb_unmap(ftl, (uint32_t)lpn);
            continue;
        }
        ftl_map_unmap(ftl, (uint32_t)lpn);
    }
}

uint64_t ftl_trim_cost(struct ftl *ftl, uint32_t nranges, uint64_t now_ns)
{
    if (!ftl->cfg.trim_lat_ns || !ftl->tm.enabled) {
        return now_ns;
    }
    /* per command, as FEMU charges it: commands do not wait for each
     * other's ranges */
    return now_ns + ftl->cfg.trim_lat_ns * nranges;
}

void ftl_background_gc(struct ftl *ftl, uint64_t now_ns)
{
    uint32_t v;

    /* log-block mapping: merges run inside the writes; read-only media:
     * nothing is written, nothing to reclaim */
    if (ftl->hyb.on || ftl_used_lines(ftl) < ftl->thres_lines ||
        ftl->wear.ro) {
        return;
    }
    v = ftl_gc_pick_victim(ftl);
    if (v == FTL_NONE) {
        return;
    }
    /* at least 1/8 of the victim's pages must be invalid (FEMU's integer
     * ppl / 8) */
    if (ftl->ppl - ftl->ln.line[v].vpc < ftl->ppl / 8) {
        return;
    }
    /* a failure leaves the victim closed; forced GC reports it if it
     * matters */
    (void)ftl_gc_collect(ftl, v, now_ns);
    if (ftl->cfg.wear_leveling) {
        ftl_wear_level(ftl, now_ns);
    }
}

void ftl_set_gc_delay(struct ftl *ftl, bool on)
{
    ftl->tm.gc_delay = on;
}

void ftl_set_delay_mode(struct ftl *ftl, enum ftl_delay_mode mode)
{
    ftl->tm.mode = mode;
    ftl_timing_apply_mode(ftl);
}

uint32_t ftl_used_lines_pcent(const struct ftl *ftl)
{
    return (uint32_t)((uint64_t)ftl_used_lines(ftl) * 100 / ftl->ln.nlines);
}

uint32_t ftl_free_lines(const struct ftl *ftl)
{
    return ftl->ln.nfree;
}

uint32_t ftl_total_lines(const struct ftl *ftl)
{
    return ftl->ln.nlines;
}

uint64_t ftl_mapped_pages(const struct ftl *ftl)
{
    uint64_t n = 0;

    if (ftl->hyb.on) {
        return ftl_hyb_mapped(ftl);
    }
    /* one valid NAND page per mapped logical page: lines, not lpns */
    for (uint32_t i = 0; i < ftl->ln.nlines; i++) {
        n += ftl->ln.line[i].vpc;
    }
    return n - ftl->dftl.on_nand;   /* translation pages are not data */
}

uint64_t ftl_mapped_pages_in(const struct ftl *ftl, uint64_t slba,
                             uint64_t nlb)
{
    uint64_t bpp = ftl->blocks_per_page;
    uint64_t first = slba / bpp, end = (slba + nlb + bpp - 1) / bpp, n = 0;

    end = end < ftl->lpages ? end : ftl->lpages;
    for (uint64_t lpn = first; lpn < end; lpn++) {
        n += ftl_map_get(ftl, (uint32_t)lpn) != FTL_NONE;
    }
    return n;
}

uint64_t ftl_fdp_ruamw(const struct ftl *ftl, uint32_t ruh)
{
    const struct ftl_stream *st;
    uint64_t left;

    if (ruh >= ftl->nhost || ftl->cfg.fdp_nruh == 0) {
        return 0;
    }
    st = &ftl->streams[ruh];
    /* no open unit yet: the next write opens a fresh one */
    left = st->line == FTL_NONE ? ftl->ppl : ftl->ppl - st->seq;
    return left * ftl->blocks_per_page;
}

int ftl_fdp_ruh_update(struct ftl *ftl, uint32_t ruh, uint64_t now_ns)
{
    struct ftl_stream *st;

    if (ftl->cfg.fdp_nruh == 0 || ruh >= ftl->nhost) {
        return -1;
    }
    st = &ftl->streams[ruh];
    if (st->line != FTL_NONE) {
        ftl_fdp_push_event(ftl, FTL_FDP_EVT_RU_NOT_FULLY_WRITTEN,
                           (uint16_t)ruh, (uint16_t)ruh, 0, 0, now_ns);
        ftl_stream_close_early(ftl, ruh);
    }
    /* the next write through the handle opens a fresh reclaim unit */
    return 0;
}

bool ftl_fdp_pop_event(struct ftl *ftl, struct ftl_fdp_event *ev)
{
    if (ftl->nev == 0) {
        return false;
    }
    *ev = ftl->evq[ftl->ev_head];
    ftl->ev_head = (ftl->ev_head + 1) % FTL_FDP_EVENT_QUEUE;
    ftl->nev--;
    return true;
}

#define BAD(...)                            \
    do {                                    \
        snprintf(err, errlen, __VA_ARGS__); \
        return -1;                          \
    } while (0)

int ftl_check_invariants(const struct ftl *ftl, char *err, size_t errlen)
{
    const struct ftl_lines *ln = &ftl->ln;
    uint64_t valid_total = 0, mapped = 0, tpages = 0;
    uint32_t nfree = 0, nclosed = 0, ncand = 0, nopen = 0, nbad = 0;

    if (ftl->hyb.on) {
        return ftl_hyb_check(ftl, err, errlen);
    }

    for (uint32_t lpn = 0; lpn < ftl->lpages; lpn++) {
        uint32_t ppa = ftl_map_get(ftl, lpn);
        if (ppa == FTL_NONE) {
            continue;
        }
        mapped++;
        if (ppa >= ftl->nand_pages) {
            BAD("lpn %u maps to ppa %u beyond the NAND", lpn, ppa);
        }
        if (!ftl_page_valid(ftl, ppa) || ftl->rmap[ppa] != lpn) {
            BAD("lpn %u -> ppa %u but rmap says %u (valid %d)", lpn, ppa,
                ftl->rmap[ppa], ftl_page_valid(ftl, ppa));
        }
        if (ln->line[ppa / ftl->ppl].state == FTL_LINE_FREE) {
            BAD("lpn %u lives in free line %u", lpn, ppa / ftl->ppl);
        }
    }
    for (uint32_t id = 0; id < ln->nlines; id++) {
        const struct ftl_line *l = &ln->line[id];
        uint32_t v = 0;
        for (uint32_t s = 0; s < ftl->ppl; s++) {
            uint32_t lpn;
            if (!ftl_page_valid(ftl, id * ftl->ppl + s)) {
                continue;
            }
            lpn = ftl->rmap[id * ftl->ppl + s];
            if (lpn >= ftl->lpages && ftl->dftl.ntp &&
                ftl_dftl_check(ftl, id * ftl->ppl + s, lpn - ftl->lpages) == 0) {
                tpages++;   /* a translation page (mapping=dftl) */
                v++;
                continue;
            }
            if (lpn >= ftl->lpages || ftl_map_get(ftl, lpn) != id * ftl->ppl + s) {
                BAD("rmap[%u] = %u is not mapped back", id * ftl->ppl + s,
                    lpn);
            }
            v++;
        }
        if (v != l->vpc) {
            BAD("line %u: valid count %u but %u pages valid", id, l->vpc, v);
        }
        valid_total += v;
        switch (l->state) {
        case FTL_LINE_FREE:
            nfree++;
            if (v) {
                BAD("free line %u holds %u valid pages", id, v);
            }
            break;
        case FTL_LINE_CLOSED:
            nclosed++;
            if (l->vpc == ftl->ppl) {
                if (l->cpos != FTL_NONE) {
                    BAD("fully valid line %u is a victim candidate", id);
                }
            } else {
                ncand++;
                if (l->cpos >= ln->nclosed || ln->closed[l->cpos] != id) {
                    BAD("closed line %u missing from the candidate array",
                        id);
                }
            }
            break;
        case FTL_LINE_OPEN:
            nopen++;
            break;
        case FTL_LINE_BAD:
            nbad++;
            if (v || !ftl->wear.bad[id]) {
                BAD("retired line %u holds %u valid pages (kind %u)", id, v,
                    ftl->wear.bad[id]);
            }
            break;
        default:
            BAD("line %u in state %u outside GC", id, l->state);
        }
    }
    if (valid_total != mapped + tpages || tpages != ftl->dftl.on_nand) {
        BAD("%llu valid pages but %llu mapped logical pages and %llu "
            "translation pages (%u written)", (unsigned long long)valid_total,
            (unsigned long long)mapped, (unsigned long long)tpages,
            ftl->dftl.on_nand);
    }
    if (nbad != ftl->wear.retired) {
        BAD("%u retired lines, %u counted", nbad, ftl->wear.retired);
    }
    if (nfree != ln->nfree || ncand != ln->nclosed) {
        BAD("line counts: %u free (list %u), %u candidates (index %u)", nfree,
            ln->nfree, ncand, ln->nclosed);
    }
    {
        uint32_t streams_open = 0;
        for (uint32_t i = 0; i < ftl->nhost + ftl->ngc; i++) {
            if (ftl->streams[i].line != FTL_NONE) {
                streams_open++;
                if (ln->line[ftl->streams[i].line].state != FTL_LINE_OPEN) {
                    BAD("stream %u writes line %u which is not open", i,
                        ftl->streams[i].line);
                }
            }
        }
        if (streams_open != nopen) {
            BAD("%u open lines but %u streams hold one", nopen, streams_open);
        }
    }
    /* every closed line sits in the bucket of its valid count, and the
     * close-order list holds each closed line once */
    {
        uint32_t inb = 0, inf = 0;
        for (uint32_t b = 0; b <= ftl->ppl; b++) {
            for (uint32_t id = ln->bucket[b]; id != FTL_NONE;
                 id = ln->line[id].bnext) {
                if (ln->line[id].vpc != b ||
                    ln->line[id].state != FTL_LINE_CLOSED) {
                    BAD("line %u in bucket %u has %u valid pages", id, b,
                        ln->line[id].vpc);
                }
                if (b < ln->min_bucket) {
                    BAD("bucket %u is below the minimum hint %u", b,
                        ln->min_bucket);
                }
                if (++inb > ln->nlines) {
                    BAD("bucket list loops");
                }
            }
        }
        for (uint32_t id = ln->fifo_head; id != FTL_NONE;
             id = ln->line[id].fnext) {
            uint32_t nx = ln->line[id].fnext;
            if (++inf > ln->nlines) {
                BAD("close-order list loops");
            }
            if (nx != FTL_NONE &&
                ln->line[nx].close_clock < ln->line[id].close_clock) {
                BAD("line %u follows line %u but closed earlier", nx, id);
            }
        }
        if (inb != nclosed || inf != ncand) {
            BAD("%u closed lines (%u candidates), %u in buckets, %u in close "
                "order", nclosed, ncand, inb, inf);
        }
    }
    return 0;
}
