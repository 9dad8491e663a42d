/*
 * FEMU: what a guest sees of FEMU beyond the NVMe specification.
 *
 *   - the PCI ids;
 *   - the vendor log pages (NVMe 2.0 5.16: log identifiers C0h-FFh are
 *     vendor specific): C0h FTL counters, C1h completion lateness, whose
 *     layouts are FemuLogFtl and FemuLogLatency below (little-endian,
 *     offsets checked at build time);
 *   - the vendor admin command 0xEF (run-time controls), its codes in
 *     CDW10.
 *
 * docs/log-pages.md and docs/controls.md describe them for users; a
 * change here is a change of the guest interface.  Plain C11 without
 * QEMU headers, so that tools and tests outside QEMU include it too (the
 * standalone build's tests/unit/abi-pages.c writes pages with it that
 * scripts/femu-log.sh, the scripts' one decoder, must read back); inside
 * QEMU include it after "qemu/osdep.h".
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_FEMU_FEMU_ABI_H
#define HW_FEMU_FEMU_ABI_H

#ifndef QEMU_OSDEP_H
#include <stddef.h>
#include <stdint.h>
#endif

/* every field is naturally aligned: packing only guards the layout */
#define FEMU_ABI_PACKED __attribute__((packed))

#define FEMU_PCI_VENDOR_ID      0x1d1d
#define FEMU_PCI_DEVICE_ID      0x1f1f

/* Vendor log page identifiers. */
enum FemuLogId {
    FEMU_LOG_FTL        = 0xc0,     /* FemuLogFtl */
    FEMU_LOG_LATENCY    = 0xc1,     /* FemuLogLatency */
};

/* Vendor admin opcode: run-time controls, the code in CDW10. */
enum FemuAdminOpcode {
    FEMU_ADM_CMD_CONTROL = 0xef,
};

enum FemuControlCode {
    FEMU_CTRL_GC_DELAY_ON       = 1,    /* GC takes NAND time (default) */
    FEMU_CTRL_GC_DELAY_OFF      = 2,    /* GC takes no time */
    FEMU_CTRL_DELAY_BUILTIN     = 3,    /* built-in NAND times */
    FEMU_CTRL_DELAY_OFF         = 4,    /* every NAND time 0 */
    FEMU_CTRL_RESET_COUNTERS    = 5,    /* C0h (FTL counters) and C1h */
    FEMU_CTRL_IO_LOG_ON         = 6,    /* trace event femu_io_log */
    FEMU_CTRL_IO_LOG_OFF        = 7,
    FEMU_CTRL_SAVE_STATE        = 8,    /* save the state file now */
    FEMU_CTRL_FAIL_ZONE         = 9,    /* femu_mode=3: CDW11 zone fails,
                                         * CDW12 0 Read Only, 1 Offline */
    FEMU_CTRL_IO_TRACE_START    = 10,   /* io_trace=: (re)start the trace */
    FEMU_CTRL_IO_TRACE_STOP     = 11,   /* io_trace=: close it (END) */
    FEMU_CTRL_POWER_CUT         = 12,   /* cut power: the write cache's
                                         * pages not on NAND are lost, the
                                         * controller fails (CSTS.CFS)
                                         * until a reset */
};
#define FEMU_CTRL_FIRST         FEMU_CTRL_GC_DELAY_ON
#define FEMU_CTRL_LAST          FEMU_CTRL_POWER_CUT

/* Size of log page C0h. */
#define FEMU_VENDOR_LOG_SIZE    512

/*
 * Log page C0h: FTL counters, since the device started or the last
 * FEMU_CTRL_RESET_COUNTERS.  Pages are NAND pages.
 */
typedef struct FEMU_ABI_PACKED FemuLogFtl {
    /* (host pages programmed + GC pages moved + translation pages
     * programmed) x 1000 / host pages written; 1000 when nothing was
     * written */
    uint32_t waf_x1000;
    uint32_t rsvd4;
    uint64_t host_pages_written;
    uint64_t gc_pages_moved;
    uint64_t host_pages_programmed;
    /* a zoned namespace (femu_mode=3) only; 0 otherwise */
    uint64_t zone_resets;
    uint64_t blocks_erased;
    /* read cache (read_cache_mb): mapped pages read from DRAM, and mapped
     * pages read from NAND because they were not cached; 0 without one */
    uint64_t cache_hits;
    uint64_t cache_misses;
    /* mapping=dftl: translation pages read and programmed (programs are
     * in waf_x1000), and accesses whose translation page was cached or
     * not; 0 with page mapping */
    uint64_t trans_pages_read;
    uint64_t trans_pages_programmed;
    uint64_t map_cache_hits;
    uint64_t map_cache_misses;
    /* mapping=hybrid/fast: log-block merges by kind (their copies are in
     * gc_pages_moved); 0 with page or dftl mapping */
    uint64_t merges_switch;
    uint64_t merges_partial;
    uint64_t merges_full;
    /*
     * Wear and bad blocks since the NAND was new (not reset by
     * FEMU_CTRL_RESET_COUNTERS; docs/reliability.md): erase counts of the
     * blocks placement uses, the rated P/E cycles, SMART's Percentage
     * Used and Available Spare, the bad blocks, the spare in lines
     * (superblocks) and the lines retired, read-only media (1), the
     * lines static wear leveling moved.  0 without an FTL.
     */
    uint32_t erase_count_min;
    uint32_t erase_count_max;
    uint64_t erase_count_mean_x1000;
    uint32_t pe_cycles;
    uint32_t factory_bad_blocks;
    uint32_t grown_bad_blocks;
    uint32_t spare_lines;
    uint32_t retired_lines;
    uint8_t percentage_used;
    uint8_t available_spare;
    uint8_t read_only;
    uint8_t rsvd159;
    uint64_t wl_lines_moved;
    /* write cache (write_cache_mb), 0 without one: pages host writes put
     * into it, re-writes of a page not destaged yet (no program), pages
     * read from it, pages destaged to NAND, writes that waited for a full
     * cache, flushes (Flush commands, FUA writes, turning it off) */
    uint64_t wc_host_pages;
    uint64_t wc_write_hits;
    uint64_t wc_read_hits;
    uint64_t wc_destaged;
    uint64_t wc_full_waits;
    uint64_t wc_flushes;
    /* power cuts (0xEF code 12, power_cut_after) and the cached pages
     * they lost */
    uint64_t wc_power_cuts;
    uint64_t wc_lost_pages;
    /*
     * Per namespace (the fields above are the whole device's with every
     * NSID): ns_nsid is the NSID asked for (FFFFFFFFh for 0 or
     * FFFFFFFFh); with a BlackBox namespace's NSID, the host pages written
     * to it and the pages GC moved that hold its data; with FFFFFFFFh the
     * device's totals (host_pages_written and gc_pages_moved); 0 for a
     * namespace without an FTL (NoSSD, zoned) or on a device without one.
     */
    uint32_t ns_nsid;
    uint32_t rsvd236;
    uint64_t ns_host_pages_written;
    uint64_t ns_gc_pages_moved;
    uint8_t rsvd256[FEMU_VENDOR_LOG_SIZE - 256];
} FemuLogFtl;

/*
 * Lateness histograms (log page C1h, layout version 2): log-linear
 * buckets.  Lateness below FEMU_LAT_SUB ns has a bucket per nanosecond;
 * above, each power of two [2^e, 2^(e+1)) is split into FEMU_LAT_SUB
 * equal buckets (resolution 1/16 = 6.25%, e.g. 512 ns around 10 us).
 * Lateness of 2^FEMU_LAT_MAX_BITS ns (68.7 s) or more lands in the last
 * bucket.
 */
#define FEMU_LAT_SUB_BITS       4
#define FEMU_LAT_SUB            (1 << FEMU_LAT_SUB_BITS)
#define FEMU_LAT_MAX_BITS       36
#define FEMU_LAT_BUCKETS        (FEMU_LAT_SUB + \
                                 (FEMU_LAT_MAX_BITS - FEMU_LAT_SUB_BITS) * \
                                 FEMU_LAT_SUB)
#define FEMU_LAT_VERSION        2
/* the summary fields, before the histograms */
#define FEMU_LAT_HDR_SIZE       512

/*
 * The summary of one histogram, ns.  Percentiles are upper bounds: the
 * last nanosecond of the bucket that holds them, capped at the maximum.
 */
typedef struct FEMU_ABI_PACKED FemuLatSummary {
    uint64_t count;
    uint64_t sum_ns;
    uint64_t max_ns;
    uint64_t p50_ns;
    uint64_t p99_ns;
    uint64_t p999_ns;
} FemuLatSummary;

/*
 * Log page C1h: completion lateness, since the device started or the
 * last FEMU_CTRL_RESET_COUNTERS.  Lateness = host clock when the CQE is
 * in guest memory (cqe), or when the poller's interrupt step is done
 * (irq), minus the completion's emulated time.
 */
typedef struct FEMU_ABI_PACKED FemuLogLatency {
    FemuLatSummary cqe;
    uint32_t version;                   /* FEMU_LAT_VERSION */
    uint16_t sub_buckets;               /* FEMU_LAT_SUB */
    uint16_t rsvd54;
    uint32_t buckets;                   /* FEMU_LAT_BUCKETS */
    uint32_t cqe_hist_off;              /* offsetof cqe_hist */
    uint64_t cqe_p90_ns;
    uint64_t rsvd72;
    FemuLatSummary irq;
    uint32_t irq_hist_off;              /* offsetof irq_hist */
    uint32_t rsvd132;
    uint64_t irq_p90_ns;
    /* the pollers' largest wake margin now; not reset by the controls */
    uint64_t wake_margin_ns;
    uint8_t rsvd152[FEMU_LAT_HDR_SIZE - 152];
    uint64_t cqe_hist[FEMU_LAT_BUCKETS];
    uint64_t irq_hist[FEMU_LAT_BUCKETS];
} FemuLogLatency;

/* The layouts above, as docs/log-pages.md gives them. */
#define FEMU_ABI_AT(type, field, off) \
    _Static_assert(offsetof(type, field) == (off), #type "." #field " at " #off)
#define FEMU_ABI_SIZE(type, size) \
    _Static_assert(sizeof(type) == (size), "sizeof " #type " is " #size)

FEMU_ABI_SIZE(FemuLogFtl, FEMU_VENDOR_LOG_SIZE);
FEMU_ABI_AT(FemuLogFtl, host_pages_written, 8);
FEMU_ABI_AT(FemuLogFtl, gc_pages_moved, 16);
FEMU_ABI_AT(FemuLogFtl, host_pages_programmed, 24);
FEMU_ABI_AT(FemuLogFtl, zone_resets, 32);
FEMU_ABI_AT(FemuLogFtl, blocks_erased, 40);
FEMU_ABI_AT(FemuLogFtl, cache_hits, 48);
FEMU_ABI_AT(FemuLogFtl, cache_misses, 56);
FEMU_ABI_AT(FemuLogFtl, trans_pages_read, 64);
FEMU_ABI_AT(FemuLogFtl, trans_pages_programmed, 72);
FEMU_ABI_AT(FemuLogFtl, map_cache_hits, 80);
FEMU_ABI_AT(FemuLogFtl, map_cache_misses, 88);
FEMU_ABI_AT(FemuLogFtl, merges_switch, 96);
FEMU_ABI_AT(FemuLogFtl, merges_partial, 104);
FEMU_ABI_AT(FemuLogFtl, merges_full, 112);
FEMU_ABI_AT(FemuLogFtl, erase_count_min, 120);
FEMU_ABI_AT(FemuLogFtl, erase_count_max, 124);
FEMU_ABI_AT(FemuLogFtl, erase_count_mean_x1000, 128);
FEMU_ABI_AT(FemuLogFtl, pe_cycles, 136);
FEMU_ABI_AT(FemuLogFtl, factory_bad_blocks, 140);
FEMU_ABI_AT(FemuLogFtl, grown_bad_blocks, 144);
FEMU_ABI_AT(FemuLogFtl, spare_lines, 148);
FEMU_ABI_AT(FemuLogFtl, retired_lines, 152);
FEMU_ABI_AT(FemuLogFtl, percentage_used, 156);
FEMU_ABI_AT(FemuLogFtl, available_spare, 157);
FEMU_ABI_AT(FemuLogFtl, read_only, 158);
FEMU_ABI_AT(FemuLogFtl, wl_lines_moved, 160);
FEMU_ABI_AT(FemuLogFtl, wc_host_pages, 168);
FEMU_ABI_AT(FemuLogFtl, wc_write_hits, 176);
FEMU_ABI_AT(FemuLogFtl, wc_read_hits, 184);
FEMU_ABI_AT(FemuLogFtl, wc_destaged, 192);
FEMU_ABI_AT(FemuLogFtl, wc_full_waits, 200);
FEMU_ABI_AT(FemuLogFtl, wc_flushes, 208);
FEMU_ABI_AT(FemuLogFtl, wc_power_cuts, 216);
FEMU_ABI_AT(FemuLogFtl, wc_lost_pages, 224);
FEMU_ABI_AT(FemuLogFtl, ns_nsid, 232);
FEMU_ABI_AT(FemuLogFtl, ns_host_pages_written, 240);
FEMU_ABI_AT(FemuLogFtl, ns_gc_pages_moved, 248);

FEMU_ABI_SIZE(FemuLatSummary, 48);
_Static_assert(FEMU_LAT_BUCKETS == 528, "FEMU_LAT_BUCKETS is 528");
FEMU_ABI_AT(FemuLogLatency, cqe, 0);
FEMU_ABI_AT(FemuLogLatency, version, 48);
FEMU_ABI_AT(FemuLogLatency, sub_buckets, 52);
FEMU_ABI_AT(FemuLogLatency, buckets, 56);
FEMU_ABI_AT(FemuLogLatency, cqe_hist_off, 60);
FEMU_ABI_AT(FemuLogLatency, cqe_p90_ns, 64);
FEMU_ABI_AT(FemuLogLatency, irq, 80);
FEMU_ABI_AT(FemuLogLatency, irq_hist_off, 128);
FEMU_ABI_AT(FemuLogLatency, irq_p90_ns, 136);
FEMU_ABI_AT(FemuLogLatency, wake_margin_ns, 144);
FEMU_ABI_AT(FemuLogLatency, cqe_hist, 512);
FEMU_ABI_AT(FemuLogLatency, irq_hist, 4736);
FEMU_ABI_SIZE(FemuLogLatency, 8960);

#endif /* HW_FEMU_FEMU_ABI_H */
