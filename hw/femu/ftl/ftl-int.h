/*
 * FEMU BlackBox FTL: private state shared by the FTL core's files.
 *
 * Not part of the interface: only the C files of hw/femu/ftl and the unit tests
 * include this.  No globals anywhere; every function takes the FTL.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_FEMU_FTL_INT_H
#define HW_FEMU_FTL_INT_H

#include "hw/femu/ftl.h"

/* "No page / no line" in the 32-bit tables. */
#define FTL_NONE UINT32_MAX

enum ftl_line_state {
    FTL_LINE_FREE = 0,
    FTL_LINE_OPEN = 1,    /* a stream is writing it */
    FTL_LINE_CLOSED = 2,  /* full (or closed early): a victim candidate */
    FTL_LINE_VICTIM = 3,  /* being collected */
    FTL_LINE_BAD = 4,     /* retired: a bad block (wear.c), never used */
};

/*
 * One line (superblock): block index `id` on every plane of every LUN.
 * Lists are intrusive and index-based so the table stays small.
 */
struct ftl_line {
    uint32_t vpc;          /* valid pages */
    uint32_t bprev, bnext; /* greedy bucket list (closed lines only) */
    uint32_t fprev, fnext; /* close-order list (fifo) */
    uint32_t cpos;         /* index in ln.closed[] (FTL_NONE: not a candidate) */
    uint16_t owner;        /* FDP handle whose data it holds (0 without FDP,
                            * FTL_OWNER_SHARED: the FDP overflow GC unit) */
    uint8_t state;         /* enum ftl_line_state */
    uint8_t is_gc;         /* opened by a GC stream */
    uint64_t close_clock;  /* logical clock (pages programmed) at close */
};

/* Owner of the FDP overflow GC unit's lines (handles are 0..65534). */
#define FTL_OWNER_SHARED UINT16_MAX

/*
 * The line allocator: free queue, closed-line indexes for the policies.
 * Victim candidates are the closed lines with at least one invalid page
 * (FEMU keeps fully valid lines off its victim queue the same way): the
 * greedy buckets hold every closed line, but the close-order list and the
 * dense array hold only candidates, and nclosed counts candidates.
 */
struct ftl_lines {
    uint32_t nlines;
    uint32_t ppl;            /* NAND pages per line */
    struct ftl_line *line;
    /* free lines as a FIFO ring: erased lines go to the back, so wear is
     * spread and runs stay deterministic */
    uint32_t *freeq;
    uint32_t free_head, nfree;
    /* closed lines: buckets by valid count (greedy, every closed line),
     * candidates in close order (fifo) and in a dense array (random,
     * d-choice, cost-benefit) */
    uint32_t *bucket;        /* ppl + 1 heads */
    uint32_t min_bucket;     /* no closed line has fewer valid pages */
    uint32_t fifo_head, fifo_tail;
    uint32_t *closed;
    uint32_t nclosed;        /* candidates (closed, >= 1 invalid page) */
};

/* A write stream: one open line and its write pointer. */
struct ftl_stream {
    uint32_t line;   /* FTL_NONE: nothing open; opened on the first write */
    uint32_t seq;    /* next page of the line in write-pointer order */
    uint32_t lun;    /* global LUN of that page (seq % nluns) */
    uint16_t owner;  /* FDP handle (line owner) */
    uint8_t is_gc;
};

struct ftl_timing {
    bool enabled;       /* false in FTL_DELAY_OFF */
    bool gc_delay;      /* GC operations occupy LUNs and channels */
    enum ftl_delay_mode mode;
    uint64_t rd, wr, er, xfer;
    /* typed: per-page-type times (cell type or pgtype_lat, configured
     * mode only); pgtype[pg] is the type of page pg of a block */
    bool typed;
    uint8_t *pgtype;    /* NULL with uniform timing */
    uint32_t npg;       /* pages per block */
    uint64_t rd_pt[FTL_MAX_PGTYPES], wr_pt[FTL_MAX_PGTYPES];
    uint64_t *lun_free; /* next-free time per global LUN */
    uint64_t *ch_free;  /* next-free time per channel */
    uint32_t *lun_ch;   /* channel of each global LUN */
};

/* The read cache (cache.c): slots on index lists, page -> slot table. */
struct ftl_cache_slot {
    uint32_t lpn;        /* FTL_NONE: empty */
    uint32_t prev, next; /* lru/arc list links; next: the free stack */
    uint8_t ref;         /* clock's reference bit */
    uint8_t list;        /* arc: 0 probation, 1 protected */
};

struct ftl_cache {
    uint32_t cap;        /* pages; 0: no cache */
    enum ftl_cache_evict policy;
    struct ftl_cache_slot *slot;
    uint32_t *slot_of;   /* lpn -> slot, FTL_NONE when not cached */
    uint32_t used;       /* slots handed out at least once */
    uint32_t free_head, nfree; /* dropped slots */
    uint32_t hand;       /* clock */
    uint32_t head[2], tail[2], len[2];
    uint64_t rng;        /* random */
};

/* mapping=dftl (dftl.c): the cached translation pages, LRU. */
struct ftl_dftl_slot {
    uint32_t tp;
    uint32_t prev, next;
    uint8_t dirty;
};

struct ftl_dftl {
    uint32_t ntp;        /* translation pages; 0: page mapping */
    uint32_t epp;        /* mapping entries per translation page */
    uint32_t *gtd;       /* translation page -> ppa, FTL_NONE: never written */
    uint32_t on_nand;    /* translation pages written so far */
    uint32_t cap, used;  /* cached translation pages */
    struct ftl_dftl_slot *slot;
    uint32_t *slot_of;   /* translation page -> slot, FTL_NONE */
    uint32_t head, tail; /* most and least recently used */
    uint32_t *mark, stamp; /* GC: translation pages already pending */
    uint32_t *pend, npend;
};

/* mapping=hybrid/fast (hybrid.c): log-block mapping. */
struct ftl_hyb_log {
    uint32_t pb;         /* its physical block, FTL_NONE: slot unused */
    uint32_t lbn;        /* the logical block it serves */
    uint32_t prev, next; /* in allocation order; next: the free stack */
    uint8_t seq;         /* page i holds offset i so far */
};

struct ftl_hyb {
    bool on, fast;
    uint32_t ppb;        /* pages per block */
    uint32_t nblk;       /* physical blocks: block pb on LUN pb % nluns */
    uint32_t nlbn;       /* logical blocks */
    uint32_t nlog;       /* log_blocks */
    uint32_t *data;      /* lbn -> data block, FTL_NONE */
    uint32_t *log_of;    /* BAST: lbn -> log slot, FTL_NONE */
    uint32_t *wp;        /* block -> next page to program */
    uint32_t *vpc;       /* block -> valid pages */
    uint32_t *freeq, free_head, nfree; /* erased blocks, FIFO ring */
    struct ftl_hyb_log *log; /* BAST: nlog slots */
    uint32_t old, young;     /* BAST: oldest and newest slot in use */
    uint32_t free_slot;      /* BAST: unused slots, a stack */
    uint32_t *rw, rw_head, rw_n; /* FAST: random-log blocks, oldest first */
    uint32_t sw_pb, sw_lbn;      /* FAST: the sequential log block */
};

/*
 * The write cache (wcache.c): a ring of entries in arrival order.  From
 * head: the issued entries (their program is charged, the mapping points
 * at their NAND page; they hold a slot until the program is done), then
 * the pending ones (only in DRAM; a re-write replaces them in place).
 */
enum ftl_wc_state {
    FTL_WC_PENDING = 0,
    FTL_WC_ISSUED = 1,
    FTL_WC_DROPPED = 2,   /* deallocated while pending: nothing to program */
};

struct ftl_wc_ent {
    uint32_t lpn;
    uint32_t pid;
    uint64_t arrival;    /* in the cache from */
    uint64_t done;       /* issued: its program is done (on NAND) */
    uint8_t state;
};

struct ftl_wcache {
    uint32_t cap;        /* pages; 0: no cache */
    bool on;             /* Set Features Volatile Write Cache */
    struct ftl_wc_ent *ent;
    uint32_t head, count, nissued;
    uint32_t *slot_of;   /* lpn -> its newest entry, FTL_NONE */
    /* the destager keeps one program per LUN in flight: the done times
     * of the last nluns destages, in a ring */
    uint64_t *lun_done;
    uint32_t lun_next;
};

/* Precomputed divisor (Lemire et al., "Faster remainder by direct
 * computation", 2019): exact for 32-bit numerators, no divide insn. */
struct ftl_div {
    uint32_t d;
    uint64_t m;
};

/* Why a line is retired (wear.c). */
enum ftl_bad_kind {
    FTL_BAD_NONE = 0,
    FTL_BAD_FACTORY = 1,  /* holds a factory bad block */
    FTL_BAD_GROWN = 2,    /* worn out: erased pe_cycles times */
};

/* Erase counts and bad blocks (wear.c). */
struct ftl_wear {
    uint32_t *erases;        /* per line: erase count of each block */
    uint8_t *bad;            /* per line: enum ftl_bad_kind */
    uint32_t factory_blocks; /* factory bad blocks (nand_bad_blocks) */
    uint32_t grown_blocks;   /* blocks retired worn out */
    uint32_t retired;        /* lines retired (factory + grown) */
    uint32_t spare_lines;    /* lines that may be retired (the spare) */
    bool ro;                 /* more retired than the spare: read-only */
    uint64_t erase_events;   /* line erases since creation */
    uint64_t wl_seen;        /* erase_events at the last wear check */
    uint64_t wl_moves;       /* lines static wear leveling moved */
};

/* Per-namespace split of two counters (nsctr.c); n = 0: off. */
struct ftl_ns_split {
    uint32_t n;
    uint64_t first_lpn[FTL_MAX_NS_RANGES];
    struct ftl_ns_counters ctr[FTL_MAX_NS_RANGES];
};

struct ftl {
    struct ftl_config cfg;
    /* derived geometry */
    uint32_t nluns;          /* nchs * luns_per_ch */
    uint32_t blks_per_line;  /* nluns * pls_per_lun */
    uint32_t ppl;            /* pages per line */
    uint64_t nand_pages;
    uint64_t page_bytes;
    uint32_t blocks_per_page;  /* logical blocks per NAND page */
    uint64_t ns_blocks;
    uint32_t lpages;           /* logical pages */
    uint32_t thres_lines;      /* background GC from this many used lines */
    uint32_t thres_high_lines; /* forced GC from this many used lines */
    struct ftl_div div_ppl, div_nluns;

    uint32_t *maptbl;   /* lpn -> ~ppa (0: FTL_NONE); use ftl_map_get/put */
    uint32_t *rmap;     /* ppa -> lpn, meaningful while the page is valid */
    uint64_t *vbits;    /* one bit per NAND page: holds the current copy */
    struct ftl_lines ln;

    /* streams[0..nhost-1] host, streams[nhost..nhost+ngc-1] GC */
    struct ftl_stream *streams;
    uint32_t nhost, ngc;
    /* FDP: per-handle GC units that may be open at once (ftl_fdp_gc_units),
     * and the index of the overflow GC unit's stream (FTL_NONE: none) */
    uint32_t gc_units_max;
    uint32_t gc_overflow;

    struct ftl_timing tm;
    struct ftl_cache rc;
    struct ftl_dftl dftl;
    struct ftl_hyb hyb;
    struct ftl_wcache wc;
    /* link.c: next-free times of the link's two directions and the CPU */
    uint64_t link_rx_free, link_tx_free, cpu_free;
    struct ftl_counters ctr;
    struct ftl_wear wear;
    uint64_t clock;       /* pages programmed since creation (c-b age) */
    uint64_t rng;         /* xorshift state (random, d-choice) */

    struct ftl_fdp_event evq[FTL_FDP_EVENT_QUEUE];
    uint32_t ev_head, nev;
    struct ftl_ns_split nss;   /* nsctr.c */
};

/* ---- nsctr.c ---- */
void ftl_nsctr_count(struct ftl *ftl, uint64_t lpn, bool gc, uint64_t n);
/* count n pages of lpn's namespace range, host or GC; nothing when off */
static inline void ftl_nsctr(struct ftl *ftl, uint64_t lpn, bool gc,
                             uint64_t n)
{
    if (ftl->nss.n) {
        ftl_nsctr_count(ftl, lpn, gc, n);
    }
}

/* ---- geometry.c ---- */
/* Fill the derived fields of ftl from ftl->cfg (already validated). */
void ftl_geometry_derive(struct ftl *ftl);
/* Open lines the reserve rule counts for cfg (docs/ftl-reserve.md). */
uint32_t ftl_reserve_open_lines(const struct ftl_config *cfg);
uint32_t ftl_fdp_gc_units(const struct ftl_config *cfg);
/* 1 when FDP needs the shared overflow GC unit (fewer GC units than
 * handles), else 0. */
uint32_t ftl_fdp_gc_overflow(const struct ftl_config *cfg);

static inline uint64_t ftl_max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static inline struct ftl_div ftl_div_make(uint32_t d)
{
    struct ftl_div v = { .d = d, .m = UINT64_MAX / d + 1 };
    return v;
}

static inline uint32_t ftl_div32(const struct ftl_div *v, uint32_t n)
{
#ifdef __SIZEOF_INT128__
    /* d = 1 needs m = 2^64, which wraps to 0 (one-page lines: found by
     * tests/fuzz/fuzz-ftl.c); ftl_mod32 is still right with m = 0 */
    if (v->d == 1) {
        return n;
    }
    return (uint32_t)(((unsigned __int128)v->m * n) >> 64);
#else
    return n / v->d;
#endif
}

static inline uint32_t ftl_mod32(const struct ftl_div *v, uint32_t n)
{
#ifdef __SIZEOF_INT128__
    uint64_t low = v->m * n;
    return (uint32_t)(((unsigned __int128)low * v->d) >> 64);
#else
    return n % v->d;
#endif
}

/* ---- line.c ---- */
int ftl_lines_init(struct ftl_lines *ln, uint32_t nlines, uint32_t ppl);
void ftl_lines_free(struct ftl_lines *ln);
/* Take the oldest free line; FTL_NONE when none is left. */
uint32_t ftl_line_take_free(struct ftl_lines *ln);
void ftl_line_put_free(struct ftl_lines *ln, uint32_t id);
/* Take free line id out of the queue (others keep their order); -1 when
 * it is not free. */
int ftl_line_take_free_id(struct ftl_lines *ln, uint32_t id);
/* Make an open line a victim candidate. */
void ftl_line_close(struct ftl_lines *ln, uint32_t id, uint64_t clock);
/* Remove a closed line from the candidate indexes (it becomes VICTIM). */
void ftl_line_unclose(struct ftl_lines *ln, uint32_t id);
/* One page of line id became invalid. */
void ftl_line_invalidate(struct ftl_lines *ln, uint32_t id);
/* Closed line with the fewest valid pages, FTL_NONE if none. */
uint32_t ftl_line_min_valid(struct ftl_lines *ln);

/* ---- mapping.c ---- */
int ftl_map_init(struct ftl *ftl);
void ftl_map_free(struct ftl *ftl);
/* Unmap lpn (its NAND page becomes invalid). */
void ftl_map_unmap(struct ftl *ftl, uint32_t lpn);
/* Point lpn at ppa (old copy, if any, becomes invalid). */
void ftl_map_set(struct ftl *ftl, uint32_t lpn, uint32_t ppa);

static inline bool ftl_page_valid(const struct ftl *ftl, uint32_t ppa)
{
    return (ftl->vbits[ppa >> 6] >> (ppa & 63)) & 1;
}

static inline void ftl_page_set_valid(struct ftl *ftl, uint32_t ppa)
{
    ftl->vbits[ppa >> 6] |= UINT64_C(1) << (ppa & 63);
}

static inline void ftl_page_set_invalid(struct ftl *ftl, uint32_t ppa)
{
    ftl->vbits[ppa >> 6] &= ~(UINT64_C(1) << (ppa & 63));
}

/* Mapping table entry of lpn: the ppa, or FTL_NONE (stored as ~ppa). */
static inline uint32_t ftl_map_get(const struct ftl *ftl, uint32_t lpn)
{
    return ~ftl->maptbl[lpn];
}

static inline void ftl_map_put(struct ftl *ftl, uint32_t lpn, uint32_t ppa)
{
    ftl->maptbl[lpn] = ~ppa;
}

/* Page index in its block of the page at seq of a line (the write pointer
 * walks channel, LUN and plane before the next page): only computed when
 * the timing needs it. */
static inline uint32_t ftl_seq_pg(const struct ftl *ftl, uint32_t seq)
{
    return ftl->tm.typed ? seq / ftl->blks_per_line : 0;
}

static inline uint32_t ftl_ppa_line(const struct ftl *ftl, uint32_t ppa)
{
    return ftl_div32(&ftl->div_ppl, ppa);
}

/* ---- timing.c ---- */
int ftl_timing_init(struct ftl *ftl);
void ftl_timing_free(struct ftl *ftl);
void ftl_timing_apply_mode(struct ftl *ftl);
/* The same for a timing state of its own (the zoned model): LUN and
 * channel tables for cfg's geometry, times of tm->mode. */
int ftl_timing_setup(struct ftl_timing *tm, const struct ftl_config *cfg);
void ftl_timing_release(struct ftl_timing *tm);
void ftl_timing_set_mode(struct ftl_timing *tm, const struct ftl_config *cfg);
/* Each returns the time the operation finishes (now when timing is off). */
/* pg: the page's index in its block (its page type under typed timing). */
uint64_t ftl_nand_read(struct ftl_timing *tm, uint32_t lun, uint32_t pg,
                       uint64_t now);
uint64_t ftl_nand_prog(struct ftl_timing *tm, uint32_t lun, uint32_t pg,
                       uint64_t now);
uint64_t ftl_nand_erase(struct ftl_timing *tm, uint32_t lun, uint64_t now);

/* ---- cache.c ---- */
int ftl_cache_init(struct ftl *ftl);
void ftl_cache_free(struct ftl *ftl);
/* Empty the cache (a loaded state starts with a cold cache). */
void ftl_cache_clear(struct ftl *ftl);
/* A host read of mapped page lpn: true on a hit; on a miss the page
 * enters the cache (the caller reads it from NAND). */
bool ftl_cache_read(struct ftl *ftl, uint32_t lpn);
/* lpn was written or deallocated: its cached copy is gone. */
void ftl_cache_drop(struct ftl *ftl, uint32_t lpn);
uint64_t ftl_cache_pages(const struct ftl *ftl);
uint64_t ftl_cache_meta_bytes(const struct ftl *ftl);

/* ---- wcache.c ---- */
int ftl_wcache_init(struct ftl *ftl);
void ftl_wcache_free(struct ftl *ftl);
uint64_t ftl_wcache_meta_bytes(const struct ftl *ftl);
/* Retire the entries done by now and issue the ones due by now. */
void ftl_wcache_advance(struct ftl *ftl, uint64_t now);
/* Host write of [first, last] pages through the cache; returns when they
 * are in it, FTL_TIME_ERROR when a destage it waited for failed. */
uint64_t ftl_wcache_write(struct ftl *ftl, uint32_t first, uint32_t last,
                          uint32_t pid, uint64_t now);
/* lpn's newest data is in the cache (a read is served from DRAM). */
bool ftl_wcache_holds(const struct ftl *ftl, uint32_t lpn);
/* lpn was deallocated or written past the cache. */
void ftl_wcache_drop(struct ftl *ftl, uint32_t lpn);
/* The NAND path of a host write: pages [first, last] mapped, programmed. */
uint64_t ftl_write_pages(struct ftl *ftl, uint32_t first, uint32_t last,
                         uint64_t slba, uint32_t nlb, uint32_t pid,
                         uint64_t now_ns);

/* ---- dftl.c ---- */
/* Translation pages mapping=dftl needs for lpages (0 otherwise). */
uint32_t ftl_dftl_tpages(const struct ftl_config *c, uint64_t lpages);
int ftl_dftl_init(struct ftl *ftl);
void ftl_dftl_free(struct ftl *ftl);
/*
 * A host access to lpn's mapping at now (update: a write or deallocation
 * changes it): a hit costs nothing; a miss evicts (writing back a dirty
 * page) and reads the translation page.  Returns when the entry is in
 * DRAM, FTL_TIME_ERROR when a write-back found no free line.
 */
uint64_t ftl_dftl_access(struct ftl *ftl, uint32_t lpn, bool update,
                         bool timed, uint64_t now);
/* GC of one line: begin, each relocated data page, the relocated
 * translation pages, end (writes the pending translation pages; -1 when
 * no free line was left). */
void ftl_dftl_gc_begin(struct ftl *ftl);
void ftl_dftl_gc_moved(struct ftl *ftl, uint32_t lpn);
void ftl_dftl_gc_relocated(struct ftl *ftl, uint32_t tp, uint32_t ppa);
int ftl_dftl_gc_end(struct ftl *ftl, bool timed, uint64_t now);
/* 0 when translation page tp is at ppa (invariant check). */
int ftl_dftl_check(const struct ftl *ftl, uint32_t ppa, uint32_t tp);
uint64_t ftl_dftl_meta_bytes(const struct ftl *ftl);

/* ---- hybrid.c ---- */
bool ftl_hyb_on(const struct ftl_config *c);
/* Physical blocks, and the free ones mapping=hybrid/fast needs beyond
 * one data block per logical block. */
uint64_t ftl_hyb_blocks(const struct ftl_config *c);
uint64_t ftl_hyb_spare_needed(const struct ftl_config *c);
int ftl_hyb_init(struct ftl *ftl);
void ftl_hyb_free(struct ftl *ftl);
uint64_t ftl_hyb_meta_bytes(const struct ftl *ftl);
/* LUN and page-in-block (for typed timing) of a NAND page. */
uint32_t ftl_hyb_lun(const struct ftl *ftl, uint32_t ppa);
uint32_t ftl_hyb_pg(const struct ftl *ftl, uint32_t ppa);
/* A host write of lpn at now, merges included: when it is done, or
 * FTL_TIME_ERROR when no free block was left. */
uint64_t ftl_hyb_write(struct ftl *ftl, uint32_t lpn, uint64_t now);
void ftl_hyb_unmap(struct ftl *ftl, uint32_t lpn);
uint64_t ftl_hyb_mapped(const struct ftl *ftl);
int ftl_hyb_check(const struct ftl *ftl, char *err, size_t errlen);

/* ---- stream.c ---- */
int ftl_streams_init(struct ftl *ftl);
void ftl_streams_free(struct ftl *ftl);
/* Host stream for a write of lpn with placement id pid (may queue an
 * FDP event). */
uint32_t ftl_stream_for_host(struct ftl *ftl, uint32_t lpn, uint32_t pid,
                             uint64_t slba, uint32_t nlb, uint64_t now);
uint32_t ftl_stream_for_gc(struct ftl *ftl, uint16_t owner);
/*
 * Program the next page of stream si; opens a line when none is open,
 * closes it when full.  Returns the ppa, or FTL_NONE when no free line
 * was left.  *done gets the program's finish time when timed is set.
 */
uint32_t ftl_stream_program(struct ftl *ftl, uint32_t si, bool timed,
                            uint64_t now, uint64_t *done);
/* Close the stream's open line early (RUH update, tests). */
void ftl_stream_close_early(struct ftl *ftl, uint32_t si);
void ftl_fdp_push_event(struct ftl *ftl, uint8_t type, uint16_t pid,
                        uint16_t ruh, uint64_t lba, uint32_t nlb,
                        uint64_t now);

/* ---- gc.c ---- */
/* Victim by the configured policy among closed lines; FTL_NONE if none. */
uint32_t ftl_gc_pick_victim(struct ftl *ftl);
/* Collect one line.  0, or -1 when relocation ran out of free lines. */
int ftl_gc_collect(struct ftl *ftl, uint32_t victim, uint64_t now);
/* Forced GC (inside a write).  0, or -1 when nothing can be reclaimed. */
int ftl_gc_forced(struct ftl *ftl, uint64_t now);

/* ---- wear.c ---- */
/* Refuse cfg's wear properties (pe_cycles, wl_threshold, nand_bad_blocks
 * beyond the spare): 0, or -1 with a message naming the property. */
int ftl_wear_check(const struct ftl_config *cfg, char *err, size_t errlen);
/* Allocate the counts and retire the factory bad blocks' lines (the
 * lines are initialised, all free). 0, or -1 out of memory. */
int ftl_wear_init(struct ftl *ftl);
void ftl_wear_free(struct ftl *ftl);
/* GC erased victim line id (its valid pages are elsewhere now): count
 * the erase and free it, or retire it when worn out. */
void ftl_wear_erased(struct ftl *ftl, uint32_t id);
/* A host write found no free line: with lines retired, the spare is
 * used up and the FTL turns read-only. */
void ftl_wear_write_failed(struct ftl *ftl);
/* Static wear leveling after background GC (wear_leveling=on). */
void ftl_wear_level(struct ftl *ftl, uint64_t now);

static inline void ftl_prefetch_w(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 1, 1);
#else
    (void)p;
#endif
}

static inline uint32_t ftl_used_lines(const struct ftl *ftl)
{
    return ftl->ln.nlines - ftl->ln.nfree;
}

static inline uint64_t ftl_rng_next(uint64_t *s)
{
    /* xorshift64* (Vigna): deterministic for a seed, no libc state */
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * UINT64_C(2685821657736338717);
}

/* Little-endian fields of the state file (state.c, state-file.c). */
static inline void ftl_le_put32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        b[i] = (uint8_t)(v >> (8 * i));
    }
}

static inline void ftl_le_put64(uint8_t *b, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        b[i] = (uint8_t)(v >> (8 * i));
    }
}

static inline uint32_t ftl_le_get32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
           (uint32_t)b[3] << 24;
}

static inline uint64_t ftl_le_get64(const uint8_t *b)
{
    return (uint64_t)ftl_le_get32(b) | (uint64_t)ftl_le_get32(b + 4) << 32;
}

/*
 * The zoned namespace model's tables (include/hw/femu/zns.h), shared by
 * zone.c (the state machine and timing), zone-state.c (state file
 * sections) and zone-wcache.c (its write cache).
 */
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
    /* wear: erases of each zone's blocks (a zone's blocks are erased
     * together, at its reset), zones worn out (Offline) */
    uint32_t *erases;
    uint32_t worn;
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

#endif /* HW_FEMU_FTL_INT_H */
