/*
 * Property rows: the FTL's properties (struct ftl_config) and the
 * helpers that parse and check any row, for the femu device and
 * femu-sim alike (include/hw/femu/ftl-props.h).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/femu/ftl-props.h"

static const char *const gc_policy_names[] = FTL_GC_POLICY_NAMES;
static const char *const cache_evict_names[] = FTL_CACHE_EVICT_NAMES;
static const char *const mapping_names[] = FTL_MAPPING_NAMES;
#define NNAMES(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The NAND times are added to emulated clocks (LUN and channel next-free
 * times, completion due times) in signed 64-bit nanoseconds: a time near
 * 2^63 wraps them and the command never completes.  10 s per operation
 * is far beyond any NAND part and keeps every sum far from the limit.
 */
#define MAX_NAND_LAT_NS 10000000000ULL
#define LAT_LIMIT "at most 10000000000 ns (10 s)"

#define CFG(f) offsetof(struct ftl_config, f)
/* A number whose limits the FTL's own checks give (ftl_config_validate:
 * they depend on other properties, and their messages say which). */
#define FTL_NUM(kind_, f, d, h) \
    { .name = #f, .kind = FEMU_PROP_##kind_, .off = CFG(f), .def = (d), \
      .help = (h), .flags = FEMU_PROP_NO_LIMITS }
#define FTL_LAT(f, d, h) \
    { .name = #f, .kind = FEMU_PROP_U64, .off = CFG(f), .def = (d), \
      .min = 0, .max = MAX_NAND_LAT_NS, .limit_text = LAT_LIMIT, \
      .help = (h) }
#define FTL_LAT_N(n, f, d, h) \
    { .name = (n), .kind = FEMU_PROP_U64, .off = CFG(f), .def = (d), \
      .min = 0, .max = MAX_NAND_LAT_NS, .limit_text = LAT_LIMIT, \
      .help = (h) }
#define FTL_BOOL(f, d, h) \
    { .name = #f, .kind = FEMU_PROP_BOOL, .off = CFG(f), .def = (d), \
      .help = (h), .flags = FEMU_PROP_NO_LIMITS }

const struct femu_prop ftl_props[] = {
    /* geometry */
    FTL_NUM(U32, nchs, FTL_DEFAULT_NCHS, "NAND channels (1..)"),
    FTL_NUM(U32, luns_per_ch, FTL_DEFAULT_LUNS_PER_CH,
            "LUNs (dies) per channel (1..)"),
    FTL_NUM(U32, pls_per_lun, FTL_DEFAULT_PLS_PER_LUN,
            "planes per LUN (1..)"),
    FTL_NUM(U32, blks_per_pl, FTL_DEFAULT_BLKS_PER_PL,
            "blocks per plane = lines (superblocks) (1..)"),
    FTL_NUM(U32, pgs_per_blk, FTL_DEFAULT_PGS_PER_BLK,
            "NAND pages per block (1..); the geometry's product must be at "
            "most 2^32-2 pages"),
    FTL_NUM(U32, secsz, FTL_DEFAULT_SECSZ,
            "logical block size in bytes (512 or 4096)"),
    FTL_NUM(U32, secs_per_pg, FTL_DEFAULT_SECS_PER_PG,
            "512-byte sectors per NAND page (1..1024; 8 = 4 KiB)"),
    /* sizing */
    FTL_NUM(U64, devsz_mb, FTL_DEFAULT_DEVSZ_MB,
            "namespace size in MiB, ignored when op_pcent is set "
            "(1..NAND size)"),
    FTL_NUM(I32, op_pcent, FTL_DEFAULT_OP_PCENT,
            "over-provisioning in percent: namespace = NAND / "
            "(1 + op_pcent/100) (0..; -1 = unset, use devsz_mb)"),
    /* NAND timing, ns */
    FTL_LAT(pg_rd_lat, FTL_DEFAULT_PG_RD_LAT,
            "NAND page read latency in ns (0..10000000000)"),
    FTL_LAT(pg_wr_lat, FTL_DEFAULT_PG_WR_LAT,
            "NAND page program latency in ns (0..10000000000)"),
    FTL_LAT(blk_er_lat, FTL_DEFAULT_BLK_ER_LAT,
            "NAND block erase latency in ns (0..10000000000)"),
    FTL_LAT(ch_xfer_lat, FTL_DEFAULT_CH_XFER_LAT,
            "channel transfer time per page in ns (0..10000000000)"),
    /* GC */
    FTL_NUM(U32, gc_thres_pcent, FTL_DEFAULT_GC_THRES_PCENT,
            "background GC starts at this percentage of lines in use "
            "(1..100)"),
    FTL_NUM(U32, gc_thres_pcent_high, FTL_DEFAULT_GC_THRES_PCENT_HIGH,
            "forced GC inside writes at this percentage of lines in use "
            "(gc_thres_pcent..100)"),
    { .name = "gc_policy", .kind = FEMU_PROP_ENUM, .off = CFG(gc_policy),
      .def = FTL_DEFAULT_GC_POLICY, .names = gc_policy_names,
      .nnames = NNAMES(gc_policy_names),
      .help = "GC victim policy: greedy, fifo, random, cost-benefit or "
              "d-choice", .flags = FEMU_PROP_NO_LIMITS },
    FTL_BOOL(hot_cold_sep, false,
             "separate overwrites (hot) from first writes (cold) into their "
             "own open lines; GC relocations join the cold line (on/off)"),
    FTL_BOOL(gc_own_line, false,
             "extension: GC relocations get an open line of their own "
             "instead of sharing the host's write pointer, as FEMU does "
             "(on/off; one more open line for the GC reserve)"),
    FTL_NUM(U64, seed, FTL_DEFAULT_SEED,
            "random seed of the random and d-choice GC policies"),
    /* NAND cell types, trim cost, read cache, host link, controller CPU
     * and mapping schemes (docs/ftl.md): all off by default */
    { .name = "nand_cell_type", .kind = FEMU_PROP_U32,
      .off = CFG(nand_cell_type), .def = FTL_CELL_UNIFORM, .min = 0,
      .max = FTL_CELL_QLC,
      .limit_text = "1..4 (1 SLC, 2 MLC, 3 TLC, 4 QLC) or 0 (uniform times)",
      .help = "NAND cell type: 1 SLC, 2 MLC, 3 TLC, 4 QLC, each page read "
              "and programmed in the time of its type (FEMU's tables, "
              "pairing and erase time); 0 = the uniform pg_rd_lat/pg_wr_lat/"
              "blk_er_lat" },
    FTL_LAT_N("lsb_rd_lat", pgtype_rd_lat[0], 0, "nand_cell_type 1..4: LSB page read time "
            "in ns (0 = the type's default)"),
    FTL_LAT_N("csb_rd_lat", pgtype_rd_lat[1], 0, "nand_cell_type 3..4: CSB page read time "
            "in ns (0 = the type's default)"),
    FTL_LAT_N("msb_rd_lat", pgtype_rd_lat[2], 0, "nand_cell_type 2..4: MSB page read time "
            "in ns (0 = the type's default)"),
    FTL_LAT_N("tsb_rd_lat", pgtype_rd_lat[3], 0, "nand_cell_type 4: TSB page read time in "
            "ns (0 = the type's default)"),
    FTL_LAT_N("lsb_wr_lat", pgtype_wr_lat[0], 0, "nand_cell_type 1..4: LSB page program "
            "time in ns (0 = the type's default)"),
    FTL_LAT_N("csb_wr_lat", pgtype_wr_lat[1], 0, "nand_cell_type 3..4: CSB page program "
            "time in ns (0 = the type's default)"),
    FTL_LAT_N("msb_wr_lat", pgtype_wr_lat[2], 0, "nand_cell_type 2..4: MSB page program "
            "time in ns (0 = the type's default)"),
    FTL_LAT_N("tsb_wr_lat", pgtype_wr_lat[3], 0, "nand_cell_type 4: TSB page program time "
            "in ns (0 = the type's default)"),
    FTL_NUM(U32, pgtype_lat, 0,
            "nand_cell_type=0: non-zero scales each program time by its "
            "page's type, page in block mod cell_pages (FEMU's multipliers, "
            "e.g. x0.6/1.0/1.4 for 3)"),
    FTL_NUM(U32, cell_pages, 0, "page types for pgtype_lat (1..5; 0 = 3)"),
    FTL_LAT(trim_lat_ns, 0, "time each Dataset Management deallocate range "
            "adds to its command, ns (0..10000000000)"),
    FTL_NUM(U32, read_cache_mb, 0,
            "DRAM read cache of NAND pages in MiB: a hit takes pg_rd_lat/16 "
            "and no NAND time (0 = none; at most the namespace)"),
    { .name = "cache_evict", .kind = FEMU_PROP_ENUM, .off = CFG(cache_evict),
      .def = FTL_EVICT_CLOCK, .names = cache_evict_names,
      .nnames = NNAMES(cache_evict_names),
      .help = "read-cache eviction: clock, random, lru or arc (FEMU's "
              "scan-resistant two-list variant)",
      .flags = FEMU_PROP_NO_LIMITS },
    FTL_NUM(U32, pcie_bandwidth_mbps, 0,
            "host link bandwidth in MB/s: each read or write's data takes "
            "bytes / bandwidth, one transfer at a time per direction, shared "
            "by all queues (0 = no transfer time)"),
    { .name = "pcie_prop_delay_ns", .kind = FEMU_PROP_U32,
      .off = CFG(pcie_prop_delay_ns), .def = 0, .min = 0,
      .max = MAX_NAND_LAT_NS, .limit_text = LAT_LIMIT,
      .help = "host link propagation delay added to each read and write, "
              "ns (0..10000000000)" },
    FTL_LAT(fw_cpu_ns, 0, "controller firmware time per read or write on "
            "one core, ns: at most 1e9 / fw_cpu_ns commands per second (0 = "
            "none; 0..10000000000)"),
    { .name = "mapping", .kind = FEMU_PROP_ENUM, .off = CFG(mapping),
      .def = FTL_MAP_PAGE, .names = mapping_names,
      .nnames = NNAMES(mapping_names),
      .help = "mapping scheme: page (the whole table in DRAM), dftl "
              "(translation pages on NAND, mapping_cache_mb of them cached), "
              "hybrid (BAST: log_blocks log blocks, one per data block) or "
              "fast (FAST: a random-write log of log_blocks blocks shared by "
              "all data blocks + one sequential log block); dftl, hybrid and "
              "fast: not with FDP or state=", .flags = FEMU_PROP_NO_LIMITS },
    FTL_NUM(U32, mapping_cache_mb, 0,
            "mapping=dftl: MiB of translation pages cached (at least one "
            "page, at most the namespace)"),
    { .name = "log_blocks", .kind = FEMU_PROP_U32, .off = CFG(log_blocks),
      .def = FTL_DEFAULT_LOG_BLOCKS, .min = 1, .max = 1048576,
      .limit_text = "1..1048576, and the NAND must have that many blocks "
                    "beyond the namespace's",
      .help = "mapping=hybrid: log blocks (BAST); mapping=fast: blocks of "
              "the shared random-write log (FAST); merges reclaim them" },
    /* wear and bad blocks (wear.c, docs/reliability.md) */
    { .name = "pe_cycles", .kind = FEMU_PROP_U32, .off = CFG(pe_cycles),
      .def = FTL_DEFAULT_PE_CYCLES, .min = 1, .max = UINT32_MAX,
      .help = "rated program/erase cycles of a block: SMART Percentage Used "
              "is the mean erase count over it, and a block erased this "
              "often is retired at its next erase (1..; 3000 = 3D TLC)" },
    FTL_NUM(U32, nand_bad_blocks, 0,
            "factory bad blocks, placed from seed; the line (superblock) of "
            "each is left out of placement, at most the spare (0 = none)"),
    FTL_BOOL(wear_leveling, false,
             "static wear leveling: when the erase-count spread passes "
             "wl_threshold, the coldest closed line's data moves so that its "
             "block is used again (on/off)"),
    { .name = "wl_threshold", .kind = FEMU_PROP_U32, .off = CFG(wl_threshold),
      .def = FTL_DEFAULT_WL_THRESHOLD, .min = 1, .max = UINT32_MAX,
      .help = "wear_leveling=on: erase-count spread (max - min) above which "
              "the coldest line is moved (1..)" },
    FTL_NUM(U32, write_cache_mb, 0,
            "DRAM write cache in MiB: a write completes once its data is in "
            "the cache and reaches NAND in the background; Identify VWC, "
            "Flush, FUA and Set Features 06h apply (0 = none; at most the "
            "namespace; needs vwc=1)"),
};

const size_t ftl_nprops = sizeof(ftl_props) / sizeof(ftl_props[0]);

const struct femu_prop *femu_prop_find(const struct femu_prop *props,
                                       size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(props[i].name, name)) {
            return &props[i];
        }
    }
    return NULL;
}

int64_t femu_prop_get_i64(const struct femu_prop *p, const void *base)
{
    const char *f = (const char *)base + p->off;

    switch (p->kind) {
    case FEMU_PROP_U8:
        return *(const uint8_t *)f;
    case FEMU_PROP_U16:
        return *(const uint16_t *)f;
    case FEMU_PROP_U32:
        return *(const uint32_t *)f;
    case FEMU_PROP_U64:
    case FEMU_PROP_SIZE:
        return (int64_t)*(const uint64_t *)f;
    case FEMU_PROP_I32:
        return *(const int32_t *)f;
    case FEMU_PROP_BOOL:
        return *(const bool *)f;
    case FEMU_PROP_ENUM:
        return *(const int *)f;
    default:
        return 0;
    }
}

uint64_t femu_prop_get_u64(const struct femu_prop *p, const void *base)
{
    return (uint64_t)femu_prop_get_i64(p, base);
}

static void put_i64(const struct femu_prop *p, void *base, int64_t v)
{
    char *f = (char *)base + p->off;

    switch (p->kind) {
    case FEMU_PROP_U8:
        *(uint8_t *)f = (uint8_t)v;
        break;
    case FEMU_PROP_U16:
        *(uint16_t *)f = (uint16_t)v;
        break;
    case FEMU_PROP_U32:
        *(uint32_t *)f = (uint32_t)v;
        break;
    case FEMU_PROP_U64:
    case FEMU_PROP_SIZE:
        *(uint64_t *)f = (uint64_t)v;
        break;
    case FEMU_PROP_I32:
        *(int32_t *)f = (int32_t)v;
        break;
    case FEMU_PROP_BOOL:
        *(bool *)f = v != 0;
        break;
    case FEMU_PROP_ENUM:
        *(int *)f = (int)v;
        break;
    default:
        break;
    }
}

void femu_prop_set_default(const struct femu_prop *p, void *base)
{
    if (!(p->flags & FEMU_PROP_NO_DEFAULT)) {
        put_i64(p, base, p->def);
    }
}

/* The largest value the field's C type holds. */
static uint64_t kind_max(enum femu_prop_kind k)
{
    switch (k) {
    case FEMU_PROP_U8:
        return UINT8_MAX;
    case FEMU_PROP_U16:
        return UINT16_MAX;
    case FEMU_PROP_U32:
        return UINT32_MAX;
    case FEMU_PROP_I32:
        return INT32_MAX;
    default:
        return UINT64_MAX;
    }
}

static int parse_size(const char *t, uint64_t *out)
{
    char *end;
    unsigned long long x;
    unsigned shift = 0;

    errno = 0;
    x = strtoull(t, &end, 0);
    if (errno || end == t || *t == '-') {
        return -1;
    }
    switch (*end) {
    case '\0':
        break;
    case 'k': case 'K':
        shift = 10;
        break;
    case 'm': case 'M':
        shift = 20;
        break;
    case 'g': case 'G':
        shift = 30;
        break;
    case 't': case 'T':
        shift = 40;
        break;
    default:
        return -1;
    }
    if (*end && end[1] && strcmp(end + 1, "iB") && strcmp(end + 1, "B")) {
        return -1;
    }
    if (shift && x > (UINT64_MAX >> shift)) {
        return -1;
    }
    *out = (uint64_t)x << shift;
    return 0;
}

int femu_prop_parse(const struct femu_prop *p, void *base, const char *text,
                    char *err, size_t errlen)
{
    char *end;

    switch (p->kind) {
    case FEMU_PROP_BOOL:
        if (!strcmp(text, "on") || !strcmp(text, "true") ||
            !strcmp(text, "yes") || !strcmp(text, "1")) {
            put_i64(p, base, 1);
        } else if (!strcmp(text, "off") || !strcmp(text, "false") ||
                   !strcmp(text, "no") || !strcmp(text, "0")) {
            put_i64(p, base, 0);
        } else {
            snprintf(err, errlen, "%s=%s: on or off", p->name, text);
            return -1;
        }
        return 0;
    case FEMU_PROP_ENUM:
        for (size_t i = 0; i < p->nnames; i++) {
            if (p->names[i] && !strcmp(text, p->names[i])) {
                put_i64(p, base, (int64_t)i);
                return 0;
            }
        }
        snprintf(err, errlen, "%s=%s: unknown value", p->name, text);
        return -1;
    case FEMU_PROP_SIZE: {
        uint64_t x;

        if (parse_size(text, &x) < 0) {
            snprintf(err, errlen, "%s=%s: not a size", p->name, text);
            return -1;
        }
        put_i64(p, base, (int64_t)x);
        return 0;
    }
    case FEMU_PROP_I32: {
        long long x;

        errno = 0;
        x = strtoll(text, &end, 0);
        if (errno || end == text || *end || x < INT32_MIN || x > INT32_MAX) {
            snprintf(err, errlen, "%s=%s: not a number", p->name, text);
            return -1;
        }
        put_i64(p, base, x);
        return 0;
    }
    case FEMU_PROP_U8:
    case FEMU_PROP_U16:
    case FEMU_PROP_U32:
    case FEMU_PROP_U64: {
        unsigned long long x;

        errno = 0;
        x = strtoull(text, &end, 0);
        if (errno || end == text || *end || *text == '-' ||
            x > kind_max(p->kind)) {
            snprintf(err, errlen, "%s=%s: not a number", p->name, text);
            return -1;
        }
        put_i64(p, base, (int64_t)x);
        return 0;
    }
    default:
        snprintf(err, errlen, "%s: cannot be parsed here", p->name);
        return -1;
    }
}

int femu_prop_check(const struct femu_prop *p, const void *base, char *err,
                    size_t errlen)
{
    char lim[64];

    if (p->flags & FEMU_PROP_NO_LIMITS) {
        return 0;
    }
    switch (p->kind) {
    case FEMU_PROP_I32: {
        int64_t v = femu_prop_get_i64(p, base);

        if (v >= p->min && (v < 0 || (uint64_t)v <= p->max)) {
            return 0;
        }
        snprintf(lim, sizeof(lim), "%" PRId64 "..%" PRIu64, p->min, p->max);
        snprintf(err, errlen, "%s=%" PRId64 ": must be %s", p->name, v,
                 p->limit_text ? p->limit_text : lim);
        return -1;
    }
    case FEMU_PROP_U8:
    case FEMU_PROP_U16:
    case FEMU_PROP_U32:
    case FEMU_PROP_U64:
    case FEMU_PROP_SIZE: {
        uint64_t v = femu_prop_get_u64(p, base);

        if ((p->min <= 0 || v >= (uint64_t)p->min) && v <= p->max) {
            return 0;
        }
        snprintf(lim, sizeof(lim), "%" PRId64 "..%" PRIu64, p->min, p->max);
        snprintf(err, errlen, "%s=%" PRIu64 ": must be %s", p->name, v,
                 p->limit_text ? p->limit_text : lim);
        return -1;
    }
    default:
        return 0;
    }
}
