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
 * change here is a change of the guest interface.  Include after
 * "qemu/osdep.h".
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_FEMU_FEMU_ABI_H
#define HW_FEMU_FEMU_ABI_H

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
};
#define FEMU_CTRL_FIRST         FEMU_CTRL_GC_DELAY_ON
#define FEMU_CTRL_LAST          FEMU_CTRL_IO_TRACE_STOP

/* Size of log page C0h. */
#define FEMU_VENDOR_LOG_SIZE    512

/*
 * Log page C0h: FTL counters, since the device started or the last
 * FEMU_CTRL_RESET_COUNTERS.  Pages are NAND pages.
 */
typedef struct QEMU_PACKED FemuLogFtl {
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
    uint8_t rsvd96[FEMU_VENDOR_LOG_SIZE - 96];
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
typedef struct QEMU_PACKED FemuLatSummary {
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
typedef struct QEMU_PACKED FemuLogLatency {
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

static inline void _femu_abi_check_size(void)
{
    QEMU_BUILD_BUG_ON(sizeof(FemuLogFtl) != FEMU_VENDOR_LOG_SIZE);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogFtl, host_pages_written) != 8);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogFtl, gc_pages_moved) != 16);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogFtl, host_pages_programmed) != 24);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogFtl, zone_resets) != 32);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogFtl, blocks_erased) != 40);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogFtl, cache_hits) != 48);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogFtl, cache_misses) != 56);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogFtl, trans_pages_read) != 64);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogFtl, map_cache_misses) != 88);

    QEMU_BUILD_BUG_ON(sizeof(FemuLatSummary) != 48);
    QEMU_BUILD_BUG_ON(FEMU_LAT_BUCKETS != 528);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogLatency, cqe) != 0);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogLatency, version) != 48);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogLatency, sub_buckets) != 52);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogLatency, buckets) != 56);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogLatency, cqe_hist_off) != 60);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogLatency, cqe_p90_ns) != 64);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogLatency, irq) != 80);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogLatency, irq_hist_off) != 128);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogLatency, irq_p90_ns) != 136);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogLatency, wake_margin_ns) != 144);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogLatency, cqe_hist) != 512);
    QEMU_BUILD_BUG_ON(offsetof(FemuLogLatency, irq_hist) != 4736);
    QEMU_BUILD_BUG_ON(sizeof(FemuLogLatency) != 8960);
}

#endif /* HW_FEMU_FEMU_ABI_H */
