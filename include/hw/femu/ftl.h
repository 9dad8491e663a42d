/*
 * FEMU BlackBox FTL: the public interface of the FTL core.
 *
 * The FTL core is plain C (no QEMU headers).  It is compiled into the
 * `femu` device and into the standalone simulator and unit tests.
 * Everything is passed explicitly: there are no globals, so several
 * devices can live in one process.  Time is an input in nanoseconds, so
 * the same calls always give the same answers.
 *
 * Units: the FTL works in logical blocks ("sectors" of cfg.secsz bytes)
 * at its boundary and in NAND pages (lpn = logical page number,
 * ppa = physical page address) inside.  A NAND page holds
 * secs_per_pg * 512 bytes; a logical block must fit in one page.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_FEMU_FTL_H
#define HW_FEMU_FTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Victim selection policies (gc_policy); FTL_GC_* values are the
 * gc_strategy numeric aliases. */
enum ftl_gc_policy {
    FTL_GC_GREEDY = 0,
    FTL_GC_COST_BENEFIT = 1,
    FTL_GC_FIFO = 2,
    FTL_GC_RANDOM = 3,
    FTL_GC_DCHOICE = 4,
};

/*
 * The gc_policy names, indexed by enum ftl_gc_policy: an initializer for
 * a `static const char *const name[]`, so that the FTL and the femu
 * device's enum property spell them the same way.
 */
#define FTL_GC_POLICY_NAMES {                   \
        [FTL_GC_GREEDY] = "greedy",             \
        [FTL_GC_COST_BENEFIT] = "cost-benefit", \
        [FTL_GC_FIFO] = "fifo",                 \
        [FTL_GC_RANDOM] = "random",             \
        [FTL_GC_DCHOICE] = "d-choice",          \
    }

/*
 * Configuration defaults: ftl_config_default() and the femu device's
 * properties (`-device femu,help` shows them) both take them from here.
 */
#define FTL_DEFAULT_NCHS                8
#define FTL_DEFAULT_LUNS_PER_CH         8
#define FTL_DEFAULT_PLS_PER_LUN         1
#define FTL_DEFAULT_BLKS_PER_PL         256
#define FTL_DEFAULT_PGS_PER_BLK         256
#define FTL_DEFAULT_SECSZ               512
#define FTL_DEFAULT_SECS_PER_PG         8
#define FTL_DEFAULT_DEVSZ_MB            1024
#define FTL_DEFAULT_OP_PCENT            (-1)    /* unset: devsz_mb */
#define FTL_DEFAULT_PG_RD_LAT           40000   /* ns */
#define FTL_DEFAULT_PG_WR_LAT           200000
#define FTL_DEFAULT_BLK_ER_LAT          2000000
#define FTL_DEFAULT_CH_XFER_LAT         0
#define FTL_DEFAULT_GC_THRES_PCENT      75
#define FTL_DEFAULT_GC_THRES_PCENT_HIGH 95
#define FTL_DEFAULT_GC_POLICY           FTL_GC_GREEDY
#define FTL_DEFAULT_FDP_NRU             128     /* the femu-subsys fdp.nru */
#define FTL_DEFAULT_SEED                1
/* rated program/erase cycles of a 3D TLC block (docs/reliability.md
 * gives the source) and the static wear-leveling spread */
#define FTL_DEFAULT_PE_CYCLES           3000
#define FTL_DEFAULT_WL_THRESHOLD        100

/*
 * NAND cell types (nand_cell_type): 0 keeps the uniform pg_rd_lat /
 * pg_wr_lat (and pgtype_lat may vary program times by page type); 1..4
 * take per-page-type read and program times (FEMU's tables unless
 * lsb/csb/msb/tsb_rd_lat/_wr_lat override them) and the type's erase time.
 */
enum ftl_cell_type {
    FTL_CELL_UNIFORM = 0,
    FTL_CELL_SLC = 1,
    FTL_CELL_MLC = 2,
    FTL_CELL_TLC = 3,
    FTL_CELL_QLC = 4,
};
/* Page types by the bit a page stores: LSB, CSB, MSB, TSB (an MLC has LSB
 * and MSB pages, a TLC LSB, CSB and MSB, a QLC all four). */
#define FTL_PGTYPE_NAMES { "lsb", "csb", "msb", "tsb" }
#define FTL_MAX_PGTYPES 5         /* pgtype_lat's cell_pages goes to 5 */
#define FTL_MAX_CELL_PAGES 5

/* Mapping schemes (mapping). */
enum ftl_mapping {
    FTL_MAP_PAGE = 0,   /* the whole page table in DRAM */
    FTL_MAP_DFTL = 1,   /* translation pages on NAND, a cache of them */
    FTL_MAP_HYBRID = 2, /* BAST log blocks, one per data block */
    FTL_MAP_FAST = 3,   /* FAST: a shared random-write log + one SW block */
};
#define FTL_MAPPING_NAMES {             \
        [FTL_MAP_PAGE] = "page",        \
        [FTL_MAP_DFTL] = "dftl",        \
        [FTL_MAP_HYBRID] = "hybrid",    \
        [FTL_MAP_FAST] = "fast",        \
    }
/* log_blocks' default: FEMU's fixed pool of 16 (BAST's log blocks,
 * FAST's random-write log) */
#define FTL_DEFAULT_LOG_BLOCKS 16

/* Read-cache eviction policies (cache_evict). */
enum ftl_cache_evict {
    FTL_EVICT_CLOCK = 0,
    FTL_EVICT_RANDOM = 1,
    FTL_EVICT_LRU = 2,
    FTL_EVICT_ARC = 3,
};
#define FTL_CACHE_EVICT_NAMES {         \
        [FTL_EVICT_CLOCK] = "clock",    \
        [FTL_EVICT_RANDOM] = "random",  \
        [FTL_EVICT_LRU] = "lru",        \
        [FTL_EVICT_ARC] = "arc",        \
    }

/* Delay emulation modes for the run-time controls (admin opcode 0xEF). */
enum ftl_delay_mode {
    FTL_DELAY_CONFIGURED = 0, /* the configured NAND times (start-up) */
    FTL_DELAY_BUILTIN = 1,    /* 0xEF code 3: 40/200/2000 us built in */
    FTL_DELAY_OFF = 2,        /* 0xEF code 4: all NAND times 0 */
};

/* Placement identifier for a write that carries none (no directive). */
#define FTL_PID_NONE UINT32_MAX

/*
 * ftl_write() returns this instead of a completion time when the data
 * could not be placed: forced GC found nothing reclaimable (every line in
 * use holds only valid data) or no free line was left.  Pages of the
 * request before the failing one were written; the failing page and the
 * rest keep their old mapping.  The device reports a write fault; it
 * never aborts.  A configuration that passes ftl_config_validate() cannot
 * get here through host writes alone except with FDP (see
 * docs/ftl-reserve.md).
 */
#define FTL_TIME_ERROR UINT64_MAX

/* FDP event types (NVMe TP4146 / NVMe 2.0 Base, 5.27.1.x FDP Events;
 * the same values as enum NvmeFdpEventType in QEMU's block/nvme.h). */
#define FTL_FDP_EVT_RU_NOT_FULLY_WRITTEN 0x00
#define FTL_FDP_EVT_INVALID_PID          0x03
/* At most this many events are queued; older ones are dropped. */
#define FTL_FDP_EVENT_QUEUE 64

struct ftl_config {
    /* geometry */
    uint32_t nchs;
    uint32_t luns_per_ch;
    uint32_t pls_per_lun;
    uint32_t blks_per_pl;
    uint32_t pgs_per_blk;
    uint32_t secsz;        /* bytes per logical block: 512 or 4096 */
    uint32_t secs_per_pg;  /* 512-byte sectors per NAND page */
    /* sizing: with op_pcent >= 0 devsz_mb is ignored */
    uint64_t devsz_mb;
    int32_t op_pcent;      /* -1: unset */
    /* NAND timing, ns */
    uint64_t pg_rd_lat;
    uint64_t pg_wr_lat;
    uint64_t blk_er_lat;
    uint64_t ch_xfer_lat;
    /* GC */
    uint32_t gc_thres_pcent;
    uint32_t gc_thres_pcent_high;
    enum ftl_gc_policy gc_policy;
    bool hot_cold_sep;
    /* GC relocations get an open line of their own instead of sharing the
     * host's write pointer (an extension; FEMU shares one) */
    bool gc_own_line;
    /* FDP: fdp_nruh == 0 means FDP off */
    uint32_t fdp_nruh;
    uint32_t fdp_nru;
    /* seed for the random and d-choice policies */
    uint64_t seed;
    /* cell-type NAND timing (enum ftl_cell_type); per-page-type times in
     * ns by page type (LSB, CSB, MSB, TSB), 0: the cell type's default */
    uint32_t nand_cell_type;
    uint64_t pgtype_rd_lat[4];
    uint64_t pgtype_wr_lat[4];
    /* uniform timing only: pgtype_lat != 0 scales each program time by
     * the type of its page (page in block mod cell_pages; 0 means 3) */
    uint32_t pgtype_lat;
    uint32_t cell_pages;
    /* NAND-side cost of a Dataset Management range, ns (0: none) */
    uint64_t trim_lat_ns;
    /* DRAM read cache of whole NAND pages, MiB (0: none) */
    uint32_t read_cache_mb;
    enum ftl_cache_evict cache_evict;
    /* host link and controller CPU (link.c), 0: off */
    uint32_t pcie_bandwidth_mbps;   /* MB/s (10^6 bytes/s) */
    uint32_t pcie_prop_delay_ns;
    uint64_t fw_cpu_ns;             /* per read/write command, one core */
    /* mapping scheme; dftl caches mapping_cache_mb of translation pages */
    enum ftl_mapping mapping;
    uint32_t mapping_cache_mb;
    /* mapping=hybrid: log blocks; mapping=fast: blocks of the random-write
     * log (plus one sequential log block) */
    uint32_t log_blocks;
    /* wear and bad blocks (wear.c, docs/reliability.md): rated P/E cycles
     * of a block, factory bad blocks (placed from seed), static wear
     * leveling and the erase-count spread that starts it */
    uint32_t pe_cycles;
    uint32_t nand_bad_blocks;
    bool wear_leveling;
    uint32_t wl_threshold;
    /* DRAM write cache (wcache.c), MiB of NAND pages (0: none) */
    uint32_t write_cache_mb;
};

/* Counters since start (or since the last ftl_reset_counters). */
struct ftl_counters {
    uint64_t host_pages_written;     /* pages the host wrote */
    uint64_t gc_pages_moved;         /* valid pages GC relocated */
    uint64_t host_pages_programmed;  /* pages programmed for the host */
    uint64_t blocks_erased;          /* NAND blocks erased */
    uint64_t gc_lines_collected;
    uint64_t forced_gc_lines;
    uint64_t host_pages_read;        /* mapped pages read from NAND */
    /* FDP statistics (log page 22h), bytes */
    uint64_t fdp_hbmw;               /* host bytes with metadata written */
    uint64_t fdp_mbmw;               /* media bytes with metadata written */
    uint64_t fdp_mbe;                /* media bytes erased */
    /* read cache (read_cache_mb): mapped pages served from DRAM, and
     * mapped pages that were not there (read from NAND) */
    uint64_t cache_hits;
    uint64_t cache_misses;
    /* mapping=dftl: translation pages read and programmed (programs count
     * in the WAF), accesses whose translation page was cached or not */
    uint64_t trans_pages_read;
    uint64_t trans_pages_programmed;
    uint64_t map_cache_hits;
    uint64_t map_cache_misses;
    /* mapping=hybrid/fast: log-block merges by kind (their copies are in
     * gc_pages_moved, their erases in blocks_erased) */
    uint64_t merges_switch;
    uint64_t merges_partial;
    uint64_t merges_full;
    /* write cache (write_cache_mb): pages host writes put into the cache,
     * re-writes of a cached page that replaced it without a program,
     * pages read from the cache, pages destaged to NAND, writes that
     * waited for a full cache, flushes (Flush, FUA, cache off) */
    uint64_t wc_host_pages;
    uint64_t wc_write_hits;
    uint64_t wc_read_hits;
    uint64_t wc_destaged;
    uint64_t wc_full_waits;
    uint64_t wc_flushes;
    /* power cuts (ftl_wcache_power_cut) and the cached pages they lost */
    uint64_t wc_power_cuts;
    uint64_t wc_lost_pages;
};

/* An FDP event the FTL raised (log page 23h is built from these). */
struct ftl_fdp_event {
    uint8_t type;       /* FTL_FDP_EVT_*: 0x03 invalid PID, 0x00 RU
                         * not fully written (RUH update) */
    uint16_t pid;       /* placement identifier concerned */
    uint16_t ruh;       /* reclaim unit handle concerned */
    uint64_t lba;       /* first LBA of the command, if any */
    uint32_t nlb;
    uint64_t time_ns;
};

struct ftl;

/* Fill *cfg with the defaults (those of the femu device's properties). */
void ftl_config_default(struct ftl_config *cfg);

/* gc_policy names: "greedy", "cost-benefit", "fifo", "random",
 * "d-choice".  Returns the policy, or -1 for an unknown name. */
int ftl_gc_policy_from_name(const char *name);
const char *ftl_gc_policy_name(enum ftl_gc_policy p);
/* cache_evict names: "clock", "random", "lru", "arc"; -1 if unknown. */
int ftl_cache_evict_from_name(const char *name);
const char *ftl_cache_evict_name(enum ftl_cache_evict e);
/* mapping names: "page", "dftl", "hybrid", "fast"; -1 if unknown. */
int ftl_mapping_from_name(const char *name);
const char *ftl_mapping_name(enum ftl_mapping m);
/* The cell type's short name ("uniform", "SLC", ... "QLC"). */
const char *ftl_cell_type_name(uint32_t cell_type);
/*
 * Page type of page pg of a block (0 = LSB ... ), and the read and
 * program times it has under cfg's configured timing (uniform timing:
 * pg_rd_lat / pg_wr_lat, scaled by pgtype_lat when that is on).
 */
uint32_t ftl_cfg_page_type(const struct ftl_config *cfg, uint32_t pg);
uint64_t ftl_cfg_page_rd_lat(const struct ftl_config *cfg, uint32_t pg);
uint64_t ftl_cfg_page_wr_lat(const struct ftl_config *cfg, uint32_t pg);
/* Page types a block of cfg's cell has (1 when timing is uniform). */
uint32_t ftl_cfg_page_types(const struct ftl_config *cfg);

/*
 * Check a configuration.  Returns 0, or -1 with a one-line message in
 * err that names the property and the limit (e.g. "op_pcent=5 leaves
 * 6 spare lines; GC needs at least 9 (...)").
 */
int ftl_config_validate(const struct ftl_config *cfg, char *err,
                        size_t errlen);
/*
 * The part of ftl_config_validate() that any user of the geometry needs,
 * with the same messages: no zero dimension, secs_per_pg <= 1024, secsz
 * 512 or 4096, at most 2^32-2 NAND pages, op_pcent >= -1.  Then
 * ftl_cfg_ns_blocks() cannot overflow.  0, or -1 with a message in err.
 */
int ftl_config_check_geometry(const struct ftl_config *cfg, char *err,
                              size_t errlen);
/*
 * Namespace size in logical blocks of cfg->secsz bytes: NAND / (1 +
 * op_pcent / 100) with op_pcent >= 0, else devsz_mb MiB.
 */
uint64_t ftl_cfg_ns_blocks(const struct ftl_config *cfg);

/* Create an FTL; NULL with a message in err when cfg is invalid. */
struct ftl *ftl_new(const struct ftl_config *cfg, char *err, size_t errlen);
void ftl_free(struct ftl *ftl);

const struct ftl_config *ftl_config_of(const struct ftl *ftl);
/* Namespace size in logical blocks of cfg.secsz bytes. */
uint64_t ftl_ns_blocks(const struct ftl *ftl);
/* Bytes of one line (= one FDP reclaim unit). */
uint64_t ftl_line_bytes(const struct ftl *ftl);

/*
 * Host I/O.  now_ns is when the request arrives; the return value is the
 * time (ns) its last NAND operation finishes, never earlier than now_ns.
 * The caller has checked slba/nlb against ftl_ns_blocks().
 */
uint64_t ftl_read(struct ftl *ftl, uint64_t slba, uint32_t nlb,
                  uint64_t now_ns);
/*
 * pid: placement identifier (FTL_PID_NONE without a directive).  An
 * unknown pid goes to handle 0 and queues an FDP event.  Forced GC runs
 * inside this call when the used-line share reaches gc_thres_pcent_high.
 */
uint64_t ftl_write(struct ftl *ftl, uint64_t slba, uint32_t nlb,
                   uint32_t pid, uint64_t now_ns);
/*
 * The DRAM write cache (write_cache_mb > 0, wcache.c).  While it is on,
 * ftl_write() puts the pages into the cache and returns when they are
 * there (now_ns, or later when the cache is full: when enough cached
 * pages have been destaged); the cache destages them to NAND through the
 * FTL in the order they arrived, in the background of emulated time.
 * Reads of cached pages are served from DRAM.  Without a cache, or with
 * it off, every call below is the plain FTL's.
 *
 * ftl_flush: every cached page is on NAND at the returned time (now_ns
 * when nothing is cached).  ftl_write_fua: a write whose pages are on
 * NAND at the returned time.  ftl_wcache_set: turn the cache on or off;
 * turning it off flushes first and returns when that is done.
 * FTL_TIME_ERROR when a destage found no free line.
 */
uint64_t ftl_flush(struct ftl *ftl, uint64_t now_ns);
uint64_t ftl_write_fua(struct ftl *ftl, uint64_t slba, uint32_t nlb,
                       uint32_t pid, uint64_t now_ns);
uint64_t ftl_wcache_set(struct ftl *ftl, bool on, uint64_t now_ns);
/* The cache's size in NAND pages (0: none) and whether it is on. */
uint64_t ftl_wcache_pages(const struct ftl *ftl);
bool ftl_wcache_on(const struct ftl *ftl);
/* Cached pages not yet on NAND at now_ns (they would be lost without
 * power). */
uint64_t ftl_wcache_dirty(const struct ftl *ftl, uint64_t now_ns);
/* lpn's newest data is in the cache and its destage has not started by
 * now_ns (destages due by then are started first): it would be lost. */
bool ftl_wcache_pending(struct ftl *ftl, uint32_t lpn, uint64_t now_ns);
/*
 * Power is cut at now_ns: every cached page whose destage has not started
 * is lost (lost(opaque, lpn) is called once for each; its mapping was
 * never changed, so it keeps its previous NAND copy or none); programs
 * already started finish on the drive's hold-up energy.  The cache is
 * empty afterwards and keeps its on/off setting.  Returns the pages lost
 * (0 without a cache; the cut is counted all the same).
 */
uint64_t ftl_wcache_power_cut(struct ftl *ftl, uint64_t now_ns,
                              void (*lost)(void *opaque, uint32_t lpn),
                              void *opaque);
/*
 * Optional hint: a request for slba is coming next (the caller has it
 * queued).  Starts fetching its mapping entry so that the request does not
 * wait for memory; changes no state.
 */
void ftl_prefetch(const struct ftl *ftl, uint64_t slba);
/* Deallocate / Write Zeroes: unmap the pages the range covers entirely (a
 * partly covered page keeps its mapping: it still holds other blocks'
 * data; the caller zeroes the data store).  Takes no NAND time. */
void ftl_trim(struct ftl *ftl, uint64_t slba, uint32_t nlb);
/*
 * The cost of a Dataset Management (deallocate) command of nranges ranges
 * arriving at now_ns: trim_lat_ns per range, added to that command only
 * (as FEMU charges it).  Returns when it is done: now_ns with
 * trim_lat_ns = 0 or delay emulation off.
 */
uint64_t ftl_trim_cost(struct ftl *ftl, uint32_t nranges, uint64_t now_ns);
/*
 * The host-link and controller-CPU costs of a read or write of bytes
 * whose NAND work is done at done_ns (ftl_read/ftl_write's result): the
 * transfer over the PCIe link (bytes / pcie_bandwidth_mbps, one transfer
 * at a time per direction, then pcie_prop_delay_ns), then fw_cpu_ns on
 * the controller's one firmware core.  Both are shared by all queues.
 * Returns the completion time: done_ns when all three are 0.
 */
uint64_t ftl_host_costs(struct ftl *ftl, bool write, uint64_t bytes,
                        uint64_t done_ns);
/*
 * Background GC after a request: with gc_thres_pcent of the lines in
 * use, collect the policy's victim if at least 1/8 of its pages are
 * invalid.
 */
void ftl_background_gc(struct ftl *ftl, uint64_t now_ns);

/* Run-time controls (admin opcode 0xEF). */
void ftl_set_gc_delay(struct ftl *ftl, bool on);
void ftl_set_delay_mode(struct ftl *ftl, enum ftl_delay_mode mode);
void ftl_reset_counters(struct ftl *ftl);

void ftl_get_counters(const struct ftl *ftl, struct ftl_counters *c);
/* WAF x 1000, integer division; 1000 when nothing was written.  NAND
 * pages programmed = host + GC + translation pages (mapping=dftl). */
uint32_t ftl_waf_x1000(const struct ftl *ftl);

/* Bytes of FTL metadata (mapping table, reverse map, line table, streams,
 * timing state) this FTL allocated; divide by the NAND page count for
 * the per-page figure. */
uint64_t ftl_meta_bytes(const struct ftl *ftl);
/* Logical pages (lpn range) and NAND pages. */
uint64_t ftl_logical_pages(const struct ftl *ftl);
uint64_t ftl_nand_pages(const struct ftl *ftl);
/* Logical pages that are mapped now (written, not trimmed since): the
 * sum of the lines' valid page counts (Identify Namespace NUSE). */
uint64_t ftl_mapped_pages(const struct ftl *ftl);
/* Of them, the logical pages that hold a block of [slba, slba + nlb):
 * the NUSE of a namespace over that range of the FTL. */
uint64_t ftl_mapped_pages_in(const struct ftl *ftl, uint64_t slba,
                             uint64_t nlb);

/*
 * Per-namespace counters (nsctr.c): with n ranges set (first_lba[i] the
 * first logical block of range i, a NAND page boundary, increasing; a
 * range ends where the next begins), host pages written and GC pages
 * moved are also counted per range of the page's LPN.  0, or -1 with a
 * message (nothing changed).  Off by default; setting ranges again keeps
 * the counters of a range that starts where one did, the others start
 * at 0 (n = 0: off, all dropped).
 */
#define FTL_MAX_NS_RANGES 16
struct ftl_ns_counters {
    uint64_t host_pages_written;
    uint64_t gc_pages_moved;
};
int ftl_set_ns_ranges(struct ftl *ftl, uint32_t n, const uint64_t *first_lba,
                      char *err, size_t errlen);
/* range i's counters: 0, or -1 when there is no range i */
int ftl_get_ns_counters(const struct ftl *ftl, uint32_t i,
                        struct ftl_ns_counters *c);

/*
 * Wear and bad blocks (wear.c).  Every block of a line is erased with
 * it, so a line's erase count is the count of each of its blocks; a line
 * with a bad block is retired whole (left out of placement).  The spare
 * is the lines that can be retired while the GC reserve rule still holds
 * (docs/reliability.md); past it the FTL is read-only.
 */
struct ftl_wear_info {
    uint32_t erase_min, erase_max;  /* over the lines not factory bad */
    double erase_mean, erase_stddev;
    uint32_t pct_used;              /* mean / pe_cycles x 100, <= 255 */
    uint32_t factory_bad_blocks;
    uint32_t grown_bad_blocks;
    uint32_t retired_lines;         /* factory + grown */
    uint32_t spare_lines;           /* retirable lines at start (the spare) */
    uint32_t spare_pcent;           /* spare left, percent */
    bool read_only;
    uint64_t wl_lines_moved;        /* static wear-leveling relocations */
};
void ftl_get_wear(const struct ftl *ftl, struct ftl_wear_info *w);
/* Erase count of (each block of) line id; 0 for id out of range. */
uint32_t ftl_line_erases(const struct ftl *ftl, uint32_t id);
/* True once more lines were retired than the spare holds: every write
 * fails (FTL_TIME_ERROR) and the device reports read-only media. */
bool ftl_read_only(const struct ftl *ftl);
/* Lines retired so far, factory and grown (cheap: no scan). */
uint32_t ftl_retired_lines(const struct ftl *ftl);
/* The spare of cfg in lines (see ftl_wear_info); cfg is valid. */
uint32_t ftl_cfg_spare_lines(const struct ftl_config *cfg);

/* Share of lines in use, percent (for tests and tracing). */
uint32_t ftl_used_lines_pcent(const struct ftl *ftl);
uint32_t ftl_free_lines(const struct ftl *ftl);
uint32_t ftl_total_lines(const struct ftl *ftl);

/* FDP (only meaningful when cfg.fdp_nruh > 0). */
/* Logical blocks left in the handle's open reclaim unit (RUAMW). */
uint64_t ftl_fdp_ruamw(const struct ftl *ftl, uint32_t ruh);
/* RUH update: the handle starts a fresh reclaim unit. 0 or -1 (bad ruh). */
int ftl_fdp_ruh_update(struct ftl *ftl, uint32_t ruh, uint64_t now_ns);
/* Pop the oldest queued FDP event; false when none is queued. */
bool ftl_fdp_pop_event(struct ftl *ftl, struct ftl_fdp_event *ev);

/* Self-check of the mapping/rmap/valid-count invariants (tests, fuzzing):
 * 0 when consistent, else -1 with a message in err. Walks all state. */
int ftl_check_invariants(const struct ftl *ftl, char *err, size_t errlen);


/*
 * State files: the whole FTL state (mapping, lines and their order, open
 * lines and write pointers, GC policy state and RNG, logical clock,
 * counters, FDP reclaim units and events, NAND clocks) in a versioned,
 * checksummed stream (docs/state.md#file-format has the layout):
 *
 *   file header: "FEMUSTAT", u32 format version, u32 flags (0)
 *   sections:    u32 tag, u32 0, u64 payload length, payload,
 *                u32 CRC32C of tag, length and payload
 *
 * all little-endian.  The FTL section comes first, then any sections of
 * the caller (the device stores host data in DATA sections), then END.
 * A file without END is truncated.  Loading checks the configuration that
 * shapes the state first (a mismatch names the property and both values),
 * then every checksum and every index, so a damaged or foreign file is
 * refused with one line and never used.
 */
/* 2: the configuration block carries the NAND and cache models; files of
 * version 1 still load (their models were the defaults).
 * 3: generations: a base generation and appended ones (each its FTL
 * section, the data changed since the one before, TRIM records for the
 * chunks emptied since, END with the generation's number and length);
 * files of versions 1 and 2 (the base alone, an empty END) still load.
 * 4: erase counts and retired lines follow the mapping table; files of
 * versions 1 to 3 still load, with every erase count 0 and no line
 * retired
 * 6: ZONE sections carry a zoned namespace's zone table (zone states,
 * write pointers, ZRWA, descriptor extensions and erase counts) and UNC
 * sections a namespace's Write Uncorrectable blocks (the device's);
 * files of versions 1 to 5 (which never hold a zoned namespace) still
 * load, with no block uncorrectable
 * 7: the FTL section ends with the per-namespace counters (host pages
 * written, pages GC moved, per namespace range); files of versions 1 to
 * 6 still load, with those counters at 0 */
#define FTL_STATE_VERSION 7
#define FTL_STATE_TAG(a, b, c, d) \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | \
     (uint32_t)(d) << 24)
#define FTL_STATE_SEC_FTL  FTL_STATE_TAG('F', 'T', 'L', ' ')
#define FTL_STATE_SEC_DATA FTL_STATE_TAG('D', 'A', 'T', 'A')
#define FTL_STATE_SEC_DEV  FTL_STATE_TAG('D', 'E', 'V', ' ')
#define FTL_STATE_SEC_END  FTL_STATE_TAG('E', 'N', 'D', ' ')
#define FTL_STATE_SEC_TRIM FTL_STATE_TAG('T', 'R', 'I', 'M')
/* format 5: the namespace the DATA and TRIM sections after it belong to */
#define FTL_STATE_SEC_NS   FTL_STATE_TAG('N', 'S', ' ', ' ')
/* format 6: a zoned namespace's zone table (include/hw/femu/zns.h) */
#define FTL_STATE_SEC_ZONE FTL_STATE_TAG('Z', 'O', 'N', 'E')
/* format 6: a namespace's Write Uncorrectable blocks (the device's) */
#define FTL_STATE_SEC_UNC  FTL_STATE_TAG('U', 'N', 'C', ' ')

/*
 * A loaded LUN or channel may be busy at most this long after the clock
 * of the save (queued work); a file with a later busy-until time, or an
 * FDP event dated after that clock, is refused as corrupted.  An hour is
 * far beyond any queue's work (2 GiB of writes queued on one LUN at
 * 200 us a 4 KiB page is 100 s).
 */
#define FTL_STATE_MAX_BUSY_NS (3600ull * 1000000000ull)

/* CRC32C (Castagnoli) of buf, continuing from crc (start with 0). */
uint32_t ftl_crc32c(uint32_t crc, const void *buf, size_t len);

/* Write the file header.  0, or -1 with a message in err. */
int ftl_state_write_header(FILE *f, char *err, size_t errlen);
/*
 * Write the FTL section.  now_ns is the caller's time base at the save:
 * the NAND clocks are stored relative to it, and ftl_state_load() moves
 * them to its own now_ns.  0, or -1 with a message in err.
 */
int ftl_state_save(const struct ftl *ftl, uint64_t now_ns, FILE *f,
                   char *err, size_t errlen);
/* Write one section of len bytes (DATA, DEV, END). */
int ftl_state_write_section(FILE *f, uint32_t tag, const void *payload,
                            uint64_t len, char *err, size_t errlen);

/*
 * Read the file header and the FTL section and build an FTL for cfg from
 * them.  cfg must match the file in every property that shapes the state
 * (geometry, secsz, secs_per_pg, sizing, GC thresholds and policy,
 * hot_cold_sep, gc_own_line, FDP handles and units); the NAND latencies
 * and the seed may differ (the file holds the RNG state itself).  NULL
 * with a one-line message in err otherwise.  f is left at the next
 * section.
 */
struct ftl *ftl_state_load(const struct ftl_config *cfg, FILE *f,
                           uint64_t now_ns, char *err, size_t errlen);
/*
 * Next section header: 1 with *tag and *len set, 0 at a clean end of
 * file (which means truncated: END is missing), -1 on a read error.
 */
int ftl_state_next_section(FILE *f, uint32_t *tag, uint64_t *len, char *err,
                           size_t errlen);
/* Read a section's payload (len bytes into buf) and check its CRC. */
int ftl_state_read_payload(FILE *f, uint32_t tag, uint64_t len, void *buf,
                           char *err, size_t errlen);
/* Skip a section's payload, still checking its CRC. */
int ftl_state_skip_payload(FILE *f, uint32_t tag, uint64_t len, char *err,
                           size_t errlen);

/*
 * Generations (format version 3, hw/femu/ftl/state-file.c).  A file is
 * the header, a base generation and any number of appended ones; each
 * generation is an FTL section (in full), the caller's sections, then END
 * with a 16-byte payload: u64 generation number (0 for the base), u64
 * bytes of the generation before its END.  Host data travels in 4 KiB
 * chunks of the namespace:
 *   DATA  u32 4096, u32 count (<= FTL_STATE_DATA_BATCH),
 *         count x (u64 chunk index, 4096 bytes)
 *   TRIM  u32 count (<= FTL_STATE_TRIM_BATCH), u32 0,
 *         count x (u64 first chunk, u64 chunks): they read as zeroes
 * A generation holds the chunks changed since the one before it (the
 * base: all of them).  A save cut short leaves a torn last generation:
 * the reader checks every section of an appended generation before it
 * uses one, and ignores the file from the first one that is cut short or
 * fails a checksum (the next save overwrites it).
 */
#define FTL_STATE_CHUNK       4096u
#define FTL_STATE_DATA_BATCH  256u
#define FTL_STATE_DATA_REC    (8u + FTL_STATE_CHUNK)
#define FTL_STATE_TRIM_BATCH  4096u
/* the largest section but the FTL's: a full DATA section */
#define FTL_STATE_SECTION_MAX (8u + FTL_STATE_DATA_BATCH * FTL_STATE_DATA_REC)

/*
 * NS section (format 5): the DATA and TRIM sections after it, up to the
 * next NS or the generation's END, are namespace nsid's (before any NS
 * section of a generation: namespace 1's, as in older files).  Payload,
 * at least FTL_STATE_NS_MIN bytes: u32 nsid (1..FTL_STATE_MAX_NS), u32
 * namespaces (nsid..FTL_STATE_MAX_NS), u64 chunks of the namespace (its
 * DATA and TRIM records stay below; namespace 1's below the sink's
 * nchunks), then the writer's: the device's FTL_STATE_NS_LEN bytes go on
 * with u32 mode (1 BlackBox, 2 NoSSD, 3 zoned), u32 0, u64 first
 * logical block in the FTL (BlackBox), the namespace's SMART bytes read,
 * written, read and write commands (4 x u64).  The sink's section() sees
 * it first.  A zoned namespace's ZONE sections follow its NS section.
 */
#define FTL_STATE_NS_MIN      16u
#define FTL_STATE_NS_LEN      64u
#define FTL_STATE_MAX_NS      16u

/* Read the 16-byte header: 0 with *version, or -1 with a message. */
int ftl_state_read_header(FILE *f, uint32_t *version, char *err,
                          size_t errlen);
/* ftl_state_load() without the header: f is at the FTL section of a
 * file of format version. */
struct ftl *ftl_state_load_section(const struct ftl_config *cfg, FILE *f,
                                   uint32_t version, uint64_t now_ns,
                                   char *err, size_t errlen);

/* Writing one generation: begin (seq 0 writes the file header first, at
 * the start of f), the FTL section and the caller's sections, end. */
struct ftl_state_gen {
    FILE *f;
    uint64_t seq;
    uint64_t start;     /* file offset of its first section */
    uint64_t bytes;     /* set by ftl_state_gen_end: all of it, END too */
};
int ftl_state_gen_begin(struct ftl_state_gen *g, FILE *f, uint64_t seq,
                        char *err, size_t errlen);
int ftl_state_gen_end(struct ftl_state_gen *g, char *err, size_t errlen);

/* What a reader does with the sections of a file, in file order. */
struct ftl_state_sink {
    void *opaque;
    uint64_t nchunks;   /* chunks of namespace 1: its DATA and TRIM within
                         * (the others': their NS section's count) */
    /* a DATA record: chunk's 4096 bytes, found at file offset off */
    void (*data)(void *opaque, uint64_t chunk, const uint8_t *bytes,
                 uint64_t off);
    /* a TRIM range */
    void (*trim)(void *opaque, uint64_t first, uint64_t n);
    /* any other section but FTL and END (DEV, SIM, newer ones), of at
     * most FTL_STATE_SECTION_MAX bytes, of generation gen (the FTL
     * loaded is that of generation info->gens - 1).  0, or -1 with a
     * message. */
    int (*section)(void *opaque, uint32_t tag, const uint8_t *p,
                   uint64_t len, uint32_t gen, char *err, size_t errlen);
    /* format 5, several namespaces: when set, every DATA record and
     * TRIM range goes here with its namespace (data and trim are not
     * called); when not, data and trim get namespace 1's and the others'
     * are checked and dropped */
    void (*ns_data)(void *opaque, uint32_t nsid, uint64_t chunk,
                    const uint8_t *bytes, uint64_t off);
    void (*ns_trim)(void *opaque, uint32_t nsid, uint64_t first,
                    uint64_t n);
};

struct ftl_state_info {
    uint32_t version;   /* of the file */
    uint32_t gens;      /* complete generations used (1: the base) */
    uint64_t base_end;  /* file offset after the base generation */
    uint64_t end;       /* after the last complete one: a save appends */
    uint64_t torn;      /* bytes after end, ignored (a save cut short) */
    uint64_t ftl_bytes; /* the loaded FTL section, header and CRC too */
};

/*
 * Read a whole state file: the FTL of its last complete generation, and
 * every generation's other sections in order through sink (any callback
 * may be NULL).  NULL with a one-line message in err if the file cannot
 * be used; the sink may have seen part of it then.
 */
struct ftl *ftl_state_read_file(const struct ftl_config *cfg, FILE *f,
                                uint64_t now_ns,
                                const struct ftl_state_sink *sink,
                                struct ftl_state_info *info, char *err,
                                size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* HW_FEMU_FTL_H */
