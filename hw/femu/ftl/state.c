/*
 * FEMU BlackBox FTL: state files (save and load the whole FTL).
 *
 * The format (include/hw/femu/ftl.h, docs/state.md) is a header and
 * a sequence of sections, each with its own length and CRC32C, so a
 * reader can check a section before it uses a byte of it and a caller can
 * add sections of its own (host data) without the FTL knowing them.
 *
 * What is stored is what the FTL needs to continue exactly where it was:
 * the mapping table (the reverse map and the valid bits are rebuilt from
 * it: they hold nothing else), every line's fields and the lists that
 * order them (free queue, greedy buckets, close order, candidate array:
 * the policies' choices depend on that order), the streams' open lines
 * and write pointers, the logical clock, the RNG, the counters (the
 * per-namespace ones too), the FDP event queue and the NAND clocks.
 * Derived values (thresholds, divisors) are recomputed from the
 * configuration.
 *
 * Loading never trusts the file: every index is range-checked and every
 * list is walked with a bound before the FTL is handed out, then the
 * invariant check of the unit tests runs over the result.  The mapping
 * table is only written where an entry is mapped, so a large, lightly
 * written device costs host memory in proportion to what it holds.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ftl-int.h"

static const char state_magic[8] = { 'F', 'E', 'M', 'U', 'S', 'T', 'A', 'T' };

/* Entries of the mapping table per read or write. */
#define MAP_CHUNK 4096

/* ---- CRC32C ---- */

/* reflected CRC32C table, polynomial 0x82F63B78 */
static const uint32_t crc32c_table[256] = {
    0x00000000u, 0xf26b8303u, 0xe13b70f7u, 0x1350f3f4u, 0xc79a971fu, 0x35f1141cu,
    0x26a1e7e8u, 0xd4ca64ebu, 0x8ad958cfu, 0x78b2dbccu, 0x6be22838u, 0x9989ab3bu,
    0x4d43cfd0u, 0xbf284cd3u, 0xac78bf27u, 0x5e133c24u, 0x105ec76fu, 0xe235446cu,
    0xf165b798u, 0x030e349bu, 0xd7c45070u, 0x25afd373u, 0x36ff2087u, 0xc494a384u,
    0x9a879fa0u, 0x68ec1ca3u, 0x7bbcef57u, 0x89d76c54u, 0x5d1d08bfu, 0xaf768bbcu,
    0xbc267848u, 0x4e4dfb4bu, 0x20bd8edeu, 0xd2d60dddu, 0xc186fe29u, 0x33ed7d2au,
    0xe72719c1u, 0x154c9ac2u, 0x061c6936u, 0xf477ea35u, 0xaa64d611u, 0x580f5512u,
    0x4b5fa6e6u, 0xb93425e5u, 0x6dfe410eu, 0x9f95c20du, 0x8cc531f9u, 0x7eaeb2fau,
    0x30e349b1u, 0xc288cab2u, 0xd1d83946u, 0x23b3ba45u, 0xf779deaeu, 0x05125dadu,
    0x1642ae59u, 0xe4292d5au, 0xba3a117eu, 0x4851927du, 0x5b016189u, 0xa96ae28au,
    0x7da08661u, 0x8fcb0562u, 0x9c9bf696u, 0x6ef07595u, 0x417b1dbcu, 0xb3109ebfu,
    0xa0406d4bu, 0x522bee48u, 0x86e18aa3u, 0x748a09a0u, 0x67dafa54u, 0x95b17957u,
    0xcba24573u, 0x39c9c670u, 0x2a993584u, 0xd8f2b687u, 0x0c38d26cu, 0xfe53516fu,
    0xed03a29bu, 0x1f682198u, 0x5125dad3u, 0xa34e59d0u, 0xb01eaa24u, 0x42752927u,
    0x96bf4dccu, 0x64d4cecfu, 0x77843d3bu, 0x85efbe38u, 0xdbfc821cu, 0x2997011fu,
    0x3ac7f2ebu, 0xc8ac71e8u, 0x1c661503u, 0xee0d9600u, 0xfd5d65f4u, 0x0f36e6f7u,
    0x61c69362u, 0x93ad1061u, 0x80fde395u, 0x72966096u, 0xa65c047du, 0x5437877eu,
    0x4767748au, 0xb50cf789u, 0xeb1fcbadu, 0x197448aeu, 0x0a24bb5au, 0xf84f3859u,
    0x2c855cb2u, 0xdeeedfb1u, 0xcdbe2c45u, 0x3fd5af46u, 0x7198540du, 0x83f3d70eu,
    0x90a324fau, 0x62c8a7f9u, 0xb602c312u, 0x44694011u, 0x5739b3e5u, 0xa55230e6u,
    0xfb410cc2u, 0x092a8fc1u, 0x1a7a7c35u, 0xe811ff36u, 0x3cdb9bddu, 0xceb018deu,
    0xdde0eb2au, 0x2f8b6829u, 0x82f63b78u, 0x709db87bu, 0x63cd4b8fu, 0x91a6c88cu,
    0x456cac67u, 0xb7072f64u, 0xa457dc90u, 0x563c5f93u, 0x082f63b7u, 0xfa44e0b4u,
    0xe9141340u, 0x1b7f9043u, 0xcfb5f4a8u, 0x3dde77abu, 0x2e8e845fu, 0xdce5075cu,
    0x92a8fc17u, 0x60c37f14u, 0x73938ce0u, 0x81f80fe3u, 0x55326b08u, 0xa759e80bu,
    0xb4091bffu, 0x466298fcu, 0x1871a4d8u, 0xea1a27dbu, 0xf94ad42fu, 0x0b21572cu,
    0xdfeb33c7u, 0x2d80b0c4u, 0x3ed04330u, 0xccbbc033u, 0xa24bb5a6u, 0x502036a5u,
    0x4370c551u, 0xb11b4652u, 0x65d122b9u, 0x97baa1bau, 0x84ea524eu, 0x7681d14du,
    0x2892ed69u, 0xdaf96e6au, 0xc9a99d9eu, 0x3bc21e9du, 0xef087a76u, 0x1d63f975u,
    0x0e330a81u, 0xfc588982u, 0xb21572c9u, 0x407ef1cau, 0x532e023eu, 0xa145813du,
    0x758fe5d6u, 0x87e466d5u, 0x94b49521u, 0x66df1622u, 0x38cc2a06u, 0xcaa7a905u,
    0xd9f75af1u, 0x2b9cd9f2u, 0xff56bd19u, 0x0d3d3e1au, 0x1e6dcdeeu, 0xec064eedu,
    0xc38d26c4u, 0x31e6a5c7u, 0x22b65633u, 0xd0ddd530u, 0x0417b1dbu, 0xf67c32d8u,
    0xe52cc12cu, 0x1747422fu, 0x49547e0bu, 0xbb3ffd08u, 0xa86f0efcu, 0x5a048dffu,
    0x8ecee914u, 0x7ca56a17u, 0x6ff599e3u, 0x9d9e1ae0u, 0xd3d3e1abu, 0x21b862a8u,
    0x32e8915cu, 0xc083125fu, 0x144976b4u, 0xe622f5b7u, 0xf5720643u, 0x07198540u,
    0x590ab964u, 0xab613a67u, 0xb831c993u, 0x4a5a4a90u, 0x9e902e7bu, 0x6cfbad78u,
    0x7fab5e8cu, 0x8dc0dd8fu, 0xe330a81au, 0x115b2b19u, 0x020bd8edu, 0xf0605beeu,
    0x24aa3f05u, 0xd6c1bc06u, 0xc5914ff2u, 0x37faccf1u, 0x69e9f0d5u, 0x9b8273d6u,
    0x88d28022u, 0x7ab90321u, 0xae7367cau, 0x5c18e4c9u, 0x4f48173du, 0xbd23943eu,
    0xf36e6f75u, 0x0105ec76u, 0x12551f82u, 0xe03e9c81u, 0x34f4f86au, 0xc69f7b69u,
    0xd5cf889du, 0x27a40b9eu, 0x79b737bau, 0x8bdcb4b9u, 0x988c474du, 0x6ae7c44eu,
    0xbe2da0a5u, 0x4c4623a6u, 0x5f16d052u, 0xad7d5351u,
};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* SSE4.2's crc32 instruction computes the same CRC eight bytes a step:
 * a 1 GiB data section checks in a fraction of a second */
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p, size_t len)
{
    uint64_t c = crc;

    while (len >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
        p += 8;
        len -= 8;
    }
    while (len--) {
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    }
    return (uint32_t)c;
}
#endif

uint32_t ftl_crc32c(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    crc = ~crc;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("sse4.2")) {
        return ~crc32c_hw(crc, p, len);
    }
#endif
    while (len--) {
        crc = crc32c_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    }
    return ~crc;
}

/* ---- writing ---- */

struct state_writer {
    FILE *f;          /* NULL: only count the bytes */
    uint64_t n;
    uint32_t crc;
    bool fail;
};

static void w_bytes(struct state_writer *w, const void *p, size_t len)
{
    w->n += len;
    if (!w->f || w->fail) {
        return;
    }
    w->crc = ftl_crc32c(w->crc, p, len);
    if (fwrite(p, 1, len, w->f) != len) {
        w->fail = true;
    }
}

static void w_u8(struct state_writer *w, uint8_t v)
{
    w_bytes(w, &v, 1);
}

static void w_u16(struct state_writer *w, uint16_t v)
{
    uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
    w_bytes(w, b, 2);
}

static void w_u32(struct state_writer *w, uint32_t v)
{
    uint8_t b[4];
    ftl_le_put32(b, v);
    w_bytes(w, b, 4);
}

static void w_u64(struct state_writer *w, uint64_t v)
{
    uint8_t b[8];
    ftl_le_put64(b, v);
    w_bytes(w, b, 8);
}

static void w_u32_array(struct state_writer *w, const uint32_t *a, uint64_t n)
{
    uint8_t buf[MAP_CHUNK * 4];

    for (uint64_t i = 0; i < n; i += MAP_CHUNK) {
        uint64_t k = n - i < MAP_CHUNK ? n - i : MAP_CHUNK;
        for (uint64_t j = 0; j < k; j++) {
            ftl_le_put32(buf + 4 * j, a[i + j]);
        }
        w_bytes(w, buf, (size_t)k * 4);
    }
}

/*
 * The configuration block: these ftl_config fields in this order, each
 * little-endian in its own size (a bool is one byte, 0 or 1; op_pcent and
 * gc_policy are 32 bits).  cfg_write writes it, cfg_read reads it back and
 * the loader compares with cfg_compare.
 */
#define CFG_FIELD(f) \
    { offsetof(struct ftl_config, f), sizeof(((struct ftl_config *)0)->f) }
static const struct {
    size_t off;
    size_t size;        /* 1 (bool), 4 or 8 */
} cfg_fields[] = {
    CFG_FIELD(nchs), CFG_FIELD(luns_per_ch), CFG_FIELD(pls_per_lun),
    CFG_FIELD(blks_per_pl), CFG_FIELD(pgs_per_blk), CFG_FIELD(secsz),
    CFG_FIELD(secs_per_pg), CFG_FIELD(devsz_mb), CFG_FIELD(op_pcent),
    CFG_FIELD(pg_rd_lat), CFG_FIELD(pg_wr_lat), CFG_FIELD(blk_er_lat),
    CFG_FIELD(ch_xfer_lat), CFG_FIELD(gc_thres_pcent),
    CFG_FIELD(gc_thres_pcent_high), CFG_FIELD(gc_policy),
    CFG_FIELD(hot_cold_sep), CFG_FIELD(gc_own_line), CFG_FIELD(fdp_nruh),
    CFG_FIELD(fdp_nru), CFG_FIELD(seed),
};
/*
 * Format version 2 appends the NAND, cache, link and CPU models to the
 * block; a
 * version 1 file was written before they existed, with their defaults.
 * None of them is compared on loading: like the latencies they time the
 * state without shaping it (the read cache's contents are not saved: a
 * loaded FTL starts with an empty cache).
 */
static const struct {
    size_t off;
    size_t size;
} cfg_fields_v2[] = {
    CFG_FIELD(nand_cell_type), CFG_FIELD(pgtype_rd_lat[0]),
    CFG_FIELD(pgtype_rd_lat[1]), CFG_FIELD(pgtype_rd_lat[2]),
    CFG_FIELD(pgtype_rd_lat[3]), CFG_FIELD(pgtype_wr_lat[0]),
    CFG_FIELD(pgtype_wr_lat[1]), CFG_FIELD(pgtype_wr_lat[2]),
    CFG_FIELD(pgtype_wr_lat[3]), CFG_FIELD(pgtype_lat), CFG_FIELD(cell_pages),
    CFG_FIELD(trim_lat_ns), CFG_FIELD(read_cache_mb), CFG_FIELD(cache_evict),
    CFG_FIELD(pcie_bandwidth_mbps), CFG_FIELD(pcie_prop_delay_ns),
    CFG_FIELD(fw_cpu_ns), CFG_FIELD(mapping), CFG_FIELD(mapping_cache_mb),
};
#undef CFG_FIELD
_Static_assert(sizeof(enum ftl_gc_policy) == 4, "gc_policy is 32 bits");
_Static_assert(sizeof(enum ftl_cache_evict) == 4, "cache_evict is 32 bits");
_Static_assert(sizeof(enum ftl_mapping) == 4, "mapping is 32 bits");

/* Bytes the version 2 fields add to the configuration block. */
static uint64_t cfg_v2_bytes(void)
{
    uint64_t n = 0;

    for (size_t i = 0; i < sizeof(cfg_fields_v2) / sizeof(cfg_fields_v2[0]);
         i++) {
        n += cfg_fields_v2[i].size;
    }
    return n;
}

static void cfg_write(struct state_writer *w, const struct ftl_config *c)
{
    size_t nbase = sizeof(cfg_fields) / sizeof(cfg_fields[0]);
    size_t nall = nbase + sizeof(cfg_fields_v2) / sizeof(cfg_fields_v2[0]);

    for (size_t i = 0; i < nall; i++) {
        size_t off = i < nbase ? cfg_fields[i].off : cfg_fields_v2[i - nbase].off;
        size_t size = i < nbase ? cfg_fields[i].size
                                : cfg_fields_v2[i - nbase].size;
        const uint8_t *p = (const uint8_t *)c + off;
        uint32_t v32;
        uint64_t v64;

        switch (size) {
        case 1:
            w_u8(w, *(const bool *)p);
            break;
        case 4:
            memcpy(&v32, p, 4);
            w_u32(w, v32);
            break;
        default:
            memcpy(&v64, p, 8);
            w_u64(w, v64);
        }
    }
}

static uint32_t nstreams(const struct ftl *ftl)
{
    return ftl->nhost + ftl->ngc;
}

/*
 * Format version 4 appends wear and bad blocks after the mapping table:
 * the wear properties (pe_cycles, nand_bad_blocks, wear_leveling,
 * wl_threshold), the retirement counts, read-only, the erase and wear-leveling
 * counts, then per line its erase count and why it is retired (0 good,
 * 1 factory, 2 grown).  A file of versions 1 to 3 has none of it: every
 * count is 0 and no line is retired.
 */
static void wear_payload(struct state_writer *w, const struct ftl *ftl)
{
    const struct ftl_wear *wr = &ftl->wear;

    w_u32(w, ftl->cfg.pe_cycles);
    w_u32(w, ftl->cfg.nand_bad_blocks);
    w_u8(w, ftl->cfg.wear_leveling);
    w_u32(w, ftl->cfg.wl_threshold);
    w_u32(w, wr->retired);
    w_u32(w, wr->grown_blocks);
    w_u8(w, wr->ro);
    w_u64(w, wr->erase_events);
    w_u64(w, wr->wl_seen);
    w_u64(w, wr->wl_moves);
    for (uint32_t i = 0; i < ftl->ln.nlines; i++) {
        w_u32(w, wr->erases[i]);
        w_u8(w, wr->bad[i]);
    }
}

/* Bytes wear_payload writes (what a version 4 file adds). */
static uint64_t wear_bytes(const struct ftl *ftl)
{
    return 4 + 4 + 1 + 4 + 4 + 4 + 1 + 8 + 8 + 8 + 5ull * ftl->ln.nlines;
}

/*
 * Format version 7 ends the FTL section with the per-namespace counters
 * (nsctr.c): u32 ranges, u32 0, then FTL_MAX_NS_RANGES x (u64 first
 * logical page, u64 host pages written, u64 pages GC moved), unused
 * slots 0.  A fixed size, so that the section's length still follows
 * from the configuration.  Files of versions 1 to 6 have none: the
 * ranges the device sets after loading start at 0.
 */
static void nss_payload(struct state_writer *w, const struct ftl *ftl)
{
    const struct ftl_ns_split *s = &ftl->nss;

    w_u32(w, s->n);
    w_u32(w, 0);
    for (uint32_t i = 0; i < FTL_MAX_NS_RANGES; i++) {
        w_u64(w, i < s->n ? s->first_lpn[i] : 0);
        w_u64(w, i < s->n ? s->ctr[i].host_pages_written : 0);
        w_u64(w, i < s->n ? s->ctr[i].gc_pages_moved : 0);
    }
}

/* Bytes nss_payload writes (what a version 7 file adds). */
static uint64_t nss_bytes(void)
{
    return 8 + 24ull * FTL_MAX_NS_RANGES;
}

/* The FTL section's payload (also run with w->f == NULL to size it). */
static void ftl_payload(struct state_writer *w, const struct ftl *ftl,
                        uint64_t now_ns)
{
    const struct ftl_lines *ln = &ftl->ln;
    const struct ftl_counters *c = &ftl->ctr;

    cfg_write(w, &ftl->cfg);
    /* derived sizes: a reader whose sizing rules differ refuses the file
     * instead of misreading it */
    w_u64(w, ftl->ns_blocks);
    w_u32(w, ftl->lpages);
    w_u64(w, ftl->nand_pages);
    w_u32(w, ln->nlines);
    w_u32(w, ftl->ppl);
    w_u32(w, nstreams(ftl));
    w_u32(w, ftl->nluns);

    w_u64(w, now_ns);
    w_u64(w, ftl->clock);
    w_u64(w, ftl->rng);
    w_u64(w, c->host_pages_written);
    w_u64(w, c->gc_pages_moved);
    w_u64(w, c->host_pages_programmed);
    w_u64(w, c->blocks_erased);
    w_u64(w, c->gc_lines_collected);
    w_u64(w, c->forced_gc_lines);
    w_u64(w, c->host_pages_read);
    w_u64(w, c->fdp_hbmw);
    w_u64(w, c->fdp_mbmw);
    w_u64(w, c->fdp_mbe);

    /* NAND timing: run-time controls and the next-free clocks */
    w_u8(w, (uint8_t)ftl->tm.mode);
    w_u8(w, ftl->tm.gc_delay);
    for (uint32_t i = 0; i < ftl->nluns; i++) {
        w_u64(w, ftl->tm.lun_free[i]);
    }
    for (uint32_t i = 0; i < ftl->cfg.nchs; i++) {
        w_u64(w, ftl->tm.ch_free[i]);
    }

    /* FDP events, the whole ring */
    w_u32(w, ftl->ev_head);
    w_u32(w, ftl->nev);
    for (uint32_t i = 0; i < FTL_FDP_EVENT_QUEUE; i++) {
        const struct ftl_fdp_event *e = &ftl->evq[i];
        w_u8(w, e->type);
        w_u16(w, e->pid);
        w_u16(w, e->ruh);
        w_u64(w, e->lba);
        w_u32(w, e->nlb);
        w_u64(w, e->time_ns);
    }

    /* lines and the lists that order them */
    w_u32(w, ln->free_head);
    w_u32(w, ln->nfree);
    w_u32(w, ln->min_bucket);
    w_u32(w, ln->fifo_head);
    w_u32(w, ln->fifo_tail);
    w_u32(w, ln->nclosed);
    for (uint32_t i = 0; i < ln->nlines; i++) {
        const struct ftl_line *l = &ln->line[i];
        w_u32(w, l->vpc);
        w_u32(w, l->bprev);
        w_u32(w, l->bnext);
        w_u32(w, l->fprev);
        w_u32(w, l->fnext);
        w_u32(w, l->cpos);
        w_u16(w, l->owner);
        w_u8(w, l->state);
        w_u8(w, l->is_gc);
        w_u64(w, l->close_clock);
    }
    w_u32_array(w, ln->freeq, ln->nlines);
    w_u32_array(w, ln->closed, ln->nlines);
    w_u32_array(w, ln->bucket, (uint64_t)ftl->ppl + 1);

    /* streams: open line and write pointer */
    for (uint32_t i = 0; i < nstreams(ftl); i++) {
        const struct ftl_stream *st = &ftl->streams[i];
        w_u32(w, st->line);
        w_u32(w, st->seq);
        w_u32(w, st->lun);
        w_u16(w, st->owner);
        w_u8(w, st->is_gc);
    }

    /* mapping table: the ppa of each logical page, FTL_NONE unmapped */
    {
        uint8_t buf[MAP_CHUNK * 4];
        for (uint32_t i = 0; i < ftl->lpages; i += MAP_CHUNK) {
            uint32_t k = ftl->lpages - i < MAP_CHUNK ? ftl->lpages - i
                                                     : MAP_CHUNK;
            for (uint32_t j = 0; j < k; j++) {
                ftl_le_put32(buf + 4 * j, ftl_map_get(ftl, i + j));
            }
            w_bytes(w, buf, (size_t)k * 4);
        }
    }

    wear_payload(w, ftl);
    nss_payload(w, ftl);
}

static int write_err(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "cannot write the state file (%s)", what);
    return -1;
}

int ftl_state_write_header(FILE *f, char *err, size_t errlen)
{
    uint8_t h[16];

    memcpy(h, state_magic, 8);
    ftl_le_put32(h + 8, FTL_STATE_VERSION);
    ftl_le_put32(h + 12, 0);
    if (fwrite(h, 1, sizeof(h), f) != sizeof(h)) {
        return write_err(err, errlen, "header");
    }
    return 0;
}

static void sec_head(uint8_t *h, uint32_t tag, uint64_t len)
{
    ftl_le_put32(h, tag);
    ftl_le_put32(h + 4, 0);
    ftl_le_put64(h + 8, len);
}

int ftl_state_write_section(FILE *f, uint32_t tag, const void *payload,
                            uint64_t len, char *err, size_t errlen)
{
    uint8_t h[16], t[4];
    uint32_t crc;

    sec_head(h, tag, len);
    crc = ftl_crc32c(0, h, sizeof(h));
    crc = ftl_crc32c(crc, payload, (size_t)len);
    ftl_le_put32(t, crc);
    if (fwrite(h, 1, sizeof(h), f) != sizeof(h) ||
        (len && fwrite(payload, 1, (size_t)len, f) != len) ||
        fwrite(t, 1, sizeof(t), f) != sizeof(t)) {
        return write_err(err, errlen, "section");
    }
    return 0;
}

int ftl_state_save(const struct ftl *ftl, uint64_t now_ns, FILE *f,
                   char *err, size_t errlen)
{
    struct state_writer count = { 0 };
    struct state_writer w = { .f = f };
    uint8_t h[16], t[4];

    if (ftl->dftl.ntp) {
        /* the cached mapping table and the translation pages' places are
         * not in the format */
        snprintf(err, errlen, "mapping=dftl: state files hold page-mapped "
                 "FTLs only");
        return -1;
    }
    if (ftl->hyb.on) {
        /* the data and log blocks are not in the format either */
        snprintf(err, errlen, "mapping=%s: state files hold page-mapped "
                 "FTLs only", ftl_mapping_name(ftl->cfg.mapping));
        return -1;
    }
    ftl_payload(&count, ftl, now_ns);
    sec_head(h, FTL_STATE_SEC_FTL, count.n);
    if (fwrite(h, 1, sizeof(h), f) != sizeof(h)) {
        return write_err(err, errlen, "FTL section");
    }
    w.crc = ftl_crc32c(0, h, sizeof(h));
    ftl_payload(&w, ftl, now_ns);
    ftl_le_put32(t, w.crc);
    if (w.fail || w.n != count.n || fwrite(t, 1, sizeof(t), f) != sizeof(t)) {
        return write_err(err, errlen, "FTL section");
    }
    return 0;
}

/* ---- reading ---- */

struct state_reader {
    FILE *f;
    uint64_t left;    /* payload bytes of the section not yet read */
    uint32_t crc;
    bool truncated;   /* the file ended inside the section */
    bool overrun;     /* the contents need more than the section holds */
};

static void r_bytes(struct state_reader *r, void *p, size_t len)
{
    if (r->truncated || r->overrun || len > r->left) {
        r->overrun |= !r->truncated && len > r->left;
        memset(p, 0, len);
        return;
    }
    if (fread(p, 1, len, r->f) != len) {
        r->truncated = true;
        memset(p, 0, len);
        return;
    }
    r->left -= len;
    r->crc = ftl_crc32c(r->crc, p, len);
}

static uint8_t r_u8(struct state_reader *r)
{
    uint8_t v;
    r_bytes(r, &v, 1);
    return v;
}

static uint16_t r_u16(struct state_reader *r)
{
    uint8_t b[2];
    r_bytes(r, b, 2);
    return (uint16_t)(b[0] | b[1] << 8);
}

static uint32_t r_u32(struct state_reader *r)
{
    uint8_t b[4];
    r_bytes(r, b, 4);
    return ftl_le_get32(b);
}

static uint64_t r_u64(struct state_reader *r)
{
    uint8_t b[8];
    r_bytes(r, b, 8);
    return ftl_le_get64(b);
}

static void r_u32_array(struct state_reader *r, uint32_t *a, uint64_t n)
{
    uint8_t buf[MAP_CHUNK * 4];

    for (uint64_t i = 0; i < n; i += MAP_CHUNK) {
        uint64_t k = n - i < MAP_CHUNK ? n - i : MAP_CHUNK;
        r_bytes(r, buf, (size_t)k * 4);
        for (uint64_t j = 0; j < k; j++) {
            a[i + j] = ftl_le_get32(buf + 4 * j);
        }
    }
}

/* Read the rest of the section and its CRC; 0 when the CRC matches. */
static int r_finish(struct state_reader *r, uint32_t tag, char *err,
                    size_t errlen)
{
    uint8_t buf[4096], t[4];
    const char *what = tag == FTL_STATE_SEC_FTL ? "FTL" :
                       tag == FTL_STATE_SEC_DATA ? "DATA" :
                       tag == FTL_STATE_SEC_DEV ? "DEV" :
                       tag == FTL_STATE_SEC_END ? "END" : "unknown";

    while (r->left && !r->truncated && !r->overrun) {
        size_t k = r->left < sizeof(buf) ? (size_t)r->left : sizeof(buf);
        r_bytes(r, buf, k);
    }
    if (!r->truncated && !r->overrun && fread(t, 1, 4, r->f) != 4) {
        r->truncated = true;
    }
    if (r->truncated) {
        snprintf(err, errlen, "truncated state file (it ends inside the %s "
                 "section)", what);
        return -1;
    }
    if (r->overrun) {
        snprintf(err, errlen, "corrupted state file (the %s section is "
                 "shorter than its contents)", what);
        return -1;
    }
    if (ftl_le_get32(t) != r->crc) {
        snprintf(err, errlen, "corrupted state file (checksum of the %s "
                 "section: stored %08x, computed %08x)", what, ftl_le_get32(t),
                 r->crc);
        return -1;
    }
    return 0;
}

int ftl_state_next_section(FILE *f, uint32_t *tag, uint64_t *len, char *err,
                           size_t errlen)
{
    uint8_t h[16];
    size_t n = fread(h, 1, sizeof(h), f);

    if (n == 0 && feof(f)) {
        snprintf(err, errlen, "truncated state file (no END section)");
        return 0;
    }
    if (n != sizeof(h)) {
        snprintf(err, errlen, "truncated state file (a section header is "
                 "cut short)");
        return -1;
    }
    *tag = ftl_le_get32(h);
    *len = ftl_le_get64(h + 8);
    if (ftl_le_get32(h + 4) != 0) {
        snprintf(err, errlen, "corrupted state file (section header "
                 "reserved field %08x)", ftl_le_get32(h + 4));
        return -1;
    }
    return 1;
}

static void r_start(struct state_reader *r, FILE *f, uint32_t tag,
                    uint64_t len)
{
    uint8_t h[16];

    memset(r, 0, sizeof(*r));
    r->f = f;
    r->left = len;
    sec_head(h, tag, len);
    r->crc = ftl_crc32c(0, h, sizeof(h));
}

int ftl_state_read_payload(FILE *f, uint32_t tag, uint64_t len, void *buf,
                           char *err, size_t errlen)
{
    struct state_reader r;

    r_start(&r, f, tag, len);
    r_bytes(&r, buf, (size_t)len);
    return r_finish(&r, tag, err, errlen);
}

int ftl_state_skip_payload(FILE *f, uint32_t tag, uint64_t len, char *err,
                           size_t errlen)
{
    struct state_reader r;

    r_start(&r, f, tag, len);
    return r_finish(&r, tag, err, errlen);
}

/* The configuration block of a file of format version (1 or 2); a
 * version 1 file leaves the models at their defaults (0). */
static void cfg_read(struct state_reader *r, struct ftl_config *c,
                     uint32_t version)
{
    size_t nbase = sizeof(cfg_fields) / sizeof(cfg_fields[0]);
    size_t nall = nbase + (version >= 2 ? sizeof(cfg_fields_v2) /
                                          sizeof(cfg_fields_v2[0]) : 0);

    memset(c, 0, sizeof(*c));
    for (size_t i = 0; i < nall; i++) {
        size_t off = i < nbase ? cfg_fields[i].off : cfg_fields_v2[i - nbase].off;
        size_t size = i < nbase ? cfg_fields[i].size
                                : cfg_fields_v2[i - nbase].size;
        uint8_t *p = (uint8_t *)c + off;
        uint32_t v32;
        uint64_t v64;

        switch (size) {
        case 1:
            *(bool *)p = r_u8(r) != 0;
            break;
        case 4:
            v32 = r_u32(r);
            memcpy(p, &v32, 4);
            break;
        default:
            v64 = r_u64(r);
            memcpy(p, &v64, 8);
        }
    }
}

enum cfg_kind { K_U64, K_S32, K_BOOL, K_POLICY, K_MAPPING };

static void cfg_fmt(char *b, size_t n, enum cfg_kind k, uint64_t v)
{
    switch (k) {
    case K_S32:
        if ((int32_t)v < 0) {
            snprintf(b, n, "unset");
        } else {
            snprintf(b, n, "%d", (int32_t)v);
        }
        break;
    case K_BOOL:
        snprintf(b, n, "%s", v ? "on" : "off");
        break;
    case K_MAPPING:
        snprintf(b, n, "%s", ftl_mapping_name((enum ftl_mapping)v));
        break;
    case K_POLICY:
        if (v <= FTL_GC_DCHOICE) {
            snprintf(b, n, "%s", ftl_gc_policy_name((enum ftl_gc_policy)v));
        } else {
            snprintf(b, n, "%llu", (unsigned long long)v);
        }
        break;
    default:
        snprintf(b, n, "%llu", (unsigned long long)v);
    }
}

/*
 * The properties that shape the state or how the FTL goes on from it.
 * Not compared: the NAND latencies (the state holds clocks, not
 * latencies: loading an aged drive with other timings is a legitimate
 * experiment) and the seed (the file carries the RNG state itself).
 * 0, or -1 with "PROP is X in the state file but Y here".
 */
static int cfg_compare(const struct ftl_config *file,
                       const struct ftl_config *here, char *err,
                       size_t errlen)
{
    struct {
        const char *name;
        enum cfg_kind kind;
        uint64_t f, h;
        bool skip;
    } p[] = {
        { "nchs", K_U64, file->nchs, here->nchs, false },
        { "luns_per_ch", K_U64, file->luns_per_ch, here->luns_per_ch, false },
        { "pls_per_lun", K_U64, file->pls_per_lun, here->pls_per_lun, false },
        { "blks_per_pl", K_U64, file->blks_per_pl, here->blks_per_pl, false },
        { "pgs_per_blk", K_U64, file->pgs_per_blk, here->pgs_per_blk, false },
        { "secsz", K_U64, file->secsz, here->secsz, false },
        { "secs_per_pg", K_U64, file->secs_per_pg, here->secs_per_pg, false },
        { "op_pcent", K_S32, (uint32_t)file->op_pcent,
          (uint32_t)here->op_pcent,
          file->op_pcent < 0 && here->op_pcent < 0 },
        /* devsz_mb only sizes the namespace while op_pcent is unset */
        { "devsz_mb", K_U64, file->devsz_mb, here->devsz_mb,
          file->op_pcent >= 0 || here->op_pcent >= 0 },
        { "gc_thres_pcent", K_U64, file->gc_thres_pcent,
          here->gc_thres_pcent, false },
        { "gc_thres_pcent_high", K_U64, file->gc_thres_pcent_high,
          here->gc_thres_pcent_high, false },
        { "gc_policy", K_POLICY, (uint32_t)file->gc_policy,
          (uint32_t)here->gc_policy, false },
        { "hot_cold_sep", K_BOOL, file->hot_cold_sep, here->hot_cold_sep,
          false },
        { "gc_own_line", K_BOOL, file->gc_own_line, here->gc_own_line,
          false },
        { "fdp.nruh", K_U64, file->fdp_nruh, here->fdp_nruh, false },
        { "fdp.nru", K_U64, file->fdp_nru, here->fdp_nru,
          file->fdp_nruh == 0 && here->fdp_nruh == 0 },
        /* a version 1 file is page mapped (0) */
        { "mapping", K_MAPPING, file->mapping, here->mapping, false },
    };

    for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
        char a[32], b[32];
        if (p[i].skip || p[i].f == p[i].h) {
            continue;
        }
        cfg_fmt(a, sizeof(a), p[i].kind, p[i].f);
        cfg_fmt(b, sizeof(b), p[i].kind, p[i].h);
        snprintf(err, errlen, "configuration mismatch: %s is %s in the "
                 "state file but %s here", p[i].name, a, b);
        return -1;
    }
    return 0;
}

/* ---- checking a loaded state ---- */

#define BAD(...)                                                   \
    do {                                                           \
        int n_ = snprintf(err, errlen, "corrupted state file (");  \
        if (n_ >= 0 && (size_t)n_ < errlen) {                      \
            n_ += snprintf(err + n_, errlen - n_, __VA_ARGS__);    \
        }                                                          \
        if (n_ >= 0 && (size_t)n_ < errlen) {                      \
            snprintf(err + n_, errlen - n_, ")");                  \
        }                                                          \
        goto out;                                                  \
    } while (0)

static bool line_ref_ok(const struct ftl_lines *ln, uint32_t id)
{
    return id == FTL_NONE || id < ln->nlines;
}

/*
 * Every index of the loaded tables in range and every list well formed,
 * so that no later operation reads outside a table or loops; rebuilds the
 * reverse map and the valid bits from the mapping table.  0, or -1 with
 * a message.  ftl_check_invariants() then checks the rest.
 */
static int state_check(struct ftl *ftl, char *err, size_t errlen)
{
    struct ftl_lines *ln = &ftl->ln;
    uint32_t n = ln->nlines, ns = nstreams(ftl);
    uint32_t *count = calloc(n ? n : 1, sizeof(*count));
    uint32_t *mark = calloc(n ? n : 1, sizeof(*mark));
    uint32_t nfree = 0, ncand = 0, nclosed = 0, nopen = 0, k;
    int ret = -1;

    if (!count || !mark) {
        snprintf(err, errlen, "out of memory checking the state file");
        goto out;
    }
    /* counts that index the tables below (found by tests/fuzz/fuzz-state.c:
     * a candidate count beyond the lines read past the candidate array) */
    if (ln->nclosed > n || ln->nfree > n) {
        BAD("%u candidates, %u free lines of %u", ln->nclosed, ln->nfree, n);
    }
    /* the lines' own fields */
    for (uint32_t i = 0; i < n; i++) {
        const struct ftl_line *l = &ln->line[i];
        bool cand;

        if (!line_ref_ok(ln, l->bprev) || !line_ref_ok(ln, l->bnext) ||
            !line_ref_ok(ln, l->fprev) || !line_ref_ok(ln, l->fnext)) {
            BAD("line %u links outside the %u lines", i, n);
        }
        if (l->vpc > ftl->ppl) {
            BAD("line %u holds %u valid pages of %u", i, l->vpc, ftl->ppl);
        }
        if ((l->state > FTL_LINE_CLOSED && l->state != FTL_LINE_BAD) ||
            (l->state == FTL_LINE_BAD) != (ftl->wear.bad[i] != 0)) {
            BAD("line %u in state %u (retired: %u)", i, l->state,
                ftl->wear.bad[i]);
        }
        if (l->is_gc > 1) {
            BAD("line %u GC flag %u", i, l->is_gc);
        }
        if (ftl->cfg.fdp_nruh == 0 ? l->owner != 0 :
            !(l->owner < ftl->cfg.fdp_nruh ||
              (l->owner == FTL_OWNER_SHARED &&
               ftl->gc_overflow != FTL_NONE))) {
            BAD("line %u owned by handle %u", i, l->owner);
        }
        if (l->close_clock > ftl->clock) {
            BAD("line %u closed after the clock", i);
        }
        cand = l->state == FTL_LINE_CLOSED && l->vpc < ftl->ppl;
        if (cand ? l->cpos >= ln->nclosed || ln->closed[l->cpos] != i :
            l->cpos != FTL_NONE || l->fprev != FTL_NONE ||
            l->fnext != FTL_NONE) {
            BAD("line %u and the candidate index disagree", i);
        }
        if (l->state != FTL_LINE_CLOSED &&
            (l->bprev != FTL_NONE || l->bnext != FTL_NONE)) {
            BAD("line %u is not closed but in a bucket", i);
        }
        nfree += l->state == FTL_LINE_FREE;
        nclosed += l->state == FTL_LINE_CLOSED;
        nopen += l->state == FTL_LINE_OPEN;
        ncand += cand;
    }
    /* free queue: nfree distinct free lines from free_head */
    if (ln->nfree != nfree || (n && ln->free_head >= n)) {
        BAD("free queue: %u lines from %u, %u lines free", ln->nfree,
            ln->free_head, nfree);
    }
    for (uint32_t i = 0; i < n; i++) {
        if (ln->freeq[i] >= n || ln->closed[i] >= n) {
            BAD("line list entry %u outside the %u lines", i, n);
        }
    }
    for (uint32_t i = 0, q = ln->free_head; i < ln->nfree; i++) {
        uint32_t id = ln->freeq[q];
        if (ln->line[id].state != FTL_LINE_FREE || mark[id] == 1) {
            BAD("free queue holds line %u twice or not free", id);
        }
        mark[id] = 1;
        q = q + 1 == n ? 0 : q + 1;
    }
    /* candidate array and close order */
    if (ln->nclosed != ncand) {
        BAD("%u victim candidates, index says %u", ncand, ln->nclosed);
    }
    if (!line_ref_ok(ln, ln->fifo_head) || !line_ref_ok(ln, ln->fifo_tail)) {
        BAD("close-order list ends outside the lines");
    }
    k = 0;
    for (uint32_t id = ln->fifo_head, prev = FTL_NONE; id != FTL_NONE;
         prev = id, id = ln->line[id].fnext) {
        if (++k > ncand || ln->line[id].fprev != prev ||
            ln->line[id].cpos == FTL_NONE) {
            BAD("close-order list broken at line %u", id);
        }
        if (ln->line[id].fnext == FTL_NONE && ln->fifo_tail != id) {
            BAD("close-order list tail %u, list ends at %u", ln->fifo_tail,
                id);
        }
    }
    if (k != ncand || (ncand == 0 && ln->fifo_tail != FTL_NONE)) {
        BAD("close-order list holds %u of %u candidates", k, ncand);
    }
    /* greedy buckets: bounded walks with consistent back links */
    if (ln->min_bucket > ftl->ppl + 1) {
        BAD("bucket hint %u", ln->min_bucket);
    }
    k = 0;
    for (uint32_t b = 0; b <= ftl->ppl; b++) {
        if (!line_ref_ok(ln, ln->bucket[b])) {
            BAD("bucket %u starts outside the lines", b);
        }
        for (uint32_t id = ln->bucket[b], prev = FTL_NONE; id != FTL_NONE;
             prev = id, id = ln->line[id].bnext) {
            if (++k > nclosed || ln->line[id].bprev != prev ||
                ln->line[id].state != FTL_LINE_CLOSED ||
                ln->line[id].vpc != b || b < ln->min_bucket) {
                BAD("bucket %u broken at line %u", b, id);
            }
        }
    }
    if (k != nclosed) {
        BAD("buckets hold %u of %u closed lines", k, nclosed);
    }
    /* streams: the layout ftl_streams_init made, open lines of their own */
    memset(mark, 0, n * sizeof(*mark));
    k = 0;
    for (uint32_t i = 0; i < ns; i++) {
        const struct ftl_stream *st = &ftl->streams[i];
        if (st->line == FTL_NONE) {
            continue;
        }
        if (st->line >= n || ln->line[st->line].state != FTL_LINE_OPEN ||
            mark[st->line] || st->seq >= ftl->ppl ||
            st->lun != st->seq % ftl->nluns ||
            ln->line[st->line].owner != st->owner ||
            ln->line[st->line].is_gc != st->is_gc) {
            BAD("stream %u and its open line %u disagree", i, st->line);
        }
        mark[st->line] = st->seq + 1;
        k++;
    }
    if (k != nopen) {
        BAD("%u open lines, %u streams write one", nopen, k);
    }
    /* mapping: rebuild the reverse map and the valid bits */
    for (uint32_t lpn = 0; lpn < ftl->lpages; lpn++) {
        uint32_t ppa = ftl_map_get(ftl, lpn), id, seq;

        if (ppa == FTL_NONE) {
            continue;
        }
        if (ppa >= ftl->nand_pages) {
            BAD("logical page %u maps beyond the NAND", lpn);
        }
        id = ppa / ftl->ppl;
        seq = ppa % ftl->ppl;
        if (ftl_page_valid(ftl, ppa) ||
            ln->line[id].state == FTL_LINE_FREE ||
            ln->line[id].state == FTL_LINE_BAD ||
            (ln->line[id].state == FTL_LINE_OPEN && seq >= mark[id] - 1)) {
            BAD("logical page %u maps to NAND page %u, which cannot hold it",
                lpn, ppa);
        }
        ftl->rmap[ppa] = lpn;
        ftl_page_set_valid(ftl, ppa);
        count[id]++;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (count[i] != ln->line[i].vpc) {
            BAD("line %u: %u valid pages stored, %u mapped", i,
                ln->line[i].vpc, count[i]);
        }
    }
    /* run-time state */
    if (ftl->tm.mode > FTL_DELAY_OFF) {
        BAD("delay mode %u", ftl->tm.mode);
    }
    if (ftl->rng == 0 || ftl->ev_head >= FTL_FDP_EVENT_QUEUE ||
        ftl->nev > FTL_FDP_EVENT_QUEUE) {
        BAD("RNG or FDP event queue");
    }
    ret = 0;
out:
    free(count);
    free(mark);
    return ret;
}

#undef BAD

/*
 * The times of the FTL section against the clock of the save (saved_now):
 * a LUN or channel may be busy with queued work after it, but not for
 * longer than FTL_STATE_MAX_BUSY_NS; an FDP event happened before it.  A
 * crafted file with valid CRCs could otherwise make every command on a
 * LUN complete years after its arrival.  0, or -1 with a message.
 */
static int clocks_check(const struct ftl *ftl, uint64_t saved_now, char *err,
                        size_t errlen)
{
    static const char *const what[2] = { "LUN", "channel" };
    const uint64_t *t[2] = { ftl->tm.lun_free, ftl->tm.ch_free };
    uint32_t n[2] = { ftl->nluns, ftl->cfg.nchs };

    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; i < n[k]; i++) {
            if (t[k][i] > saved_now &&
                t[k][i] - saved_now > FTL_STATE_MAX_BUSY_NS) {
                snprintf(err, errlen, "corrupted state file (%s %u busy "
                         "until %llu ns after the saved clock, more than "
                         "%llu s)", what[k], i,
                         (unsigned long long)(t[k][i] - saved_now),
                         (unsigned long long)(FTL_STATE_MAX_BUSY_NS /
                                              1000000000ull));
                return -1;
            }
        }
    }
    for (uint32_t i = 0; i < FTL_FDP_EVENT_QUEUE; i++) {
        if (ftl->evq[i].time_ns > saved_now) {
            snprintf(err, errlen, "corrupted state file (FDP event slot %u "
                     "dated %llu ns after the saved clock)", i,
                     (unsigned long long)(ftl->evq[i].time_ns - saved_now));
            return -1;
        }
    }
    return 0;
}

/*
 * Read the version 7 per-namespace counters into ftl->nss; -1 when the
 * ranges are more than there can be, out of order or beyond the logical
 * pages (ftl_set_ns_ranges' rules).
 */
static int nss_read(struct state_reader *r, struct ftl *ftl)
{
    struct ftl_ns_split *s = &ftl->nss;
    uint32_t n = r_u32(r);
    int ret = 0;

    (void)r_u32(r);
    memset(s, 0, sizeof(*s));
    for (uint32_t i = 0; i < FTL_MAX_NS_RANGES; i++) {
        s->first_lpn[i] = r_u64(r);
        s->ctr[i].host_pages_written = r_u64(r);
        s->ctr[i].gc_pages_moved = r_u64(r);
        if (i < n && (s->first_lpn[i] >= ftl->lpages ||
                      (i > 0 && s->first_lpn[i] <= s->first_lpn[i - 1]))) {
            ret = -1;
        }
    }
    if (n > FTL_MAX_NS_RANGES || ret < 0) {
        memset(s, 0, sizeof(*s));
        return -1;
    }
    s->n = n;
    return 0;
}

/*
 * Read the version 4 wear block into ftl; *fbad gets the file's
 * nand_bad_blocks.  -1 when the retired lines disagree with the factory
 * lines of this configuration (factory, per line) or with the counts.
 */
static int wear_read(struct state_reader *r, struct ftl *ftl,
                     const uint8_t *factory, uint32_t *fbad)
{
    struct ftl_wear *w = &ftl->wear;
    uint32_t retired = 0, grown = 0;
    int ret = 0;

    (void)r_u32(r);         /* pe_cycles: may differ, like the latencies */
    *fbad = r_u32(r);
    (void)r_u8(r);          /* wear_leveling */
    (void)r_u32(r);         /* wl_threshold */
    w->retired = r_u32(r);
    w->grown_blocks = r_u32(r);
    w->ro = r_u8(r) != 0;
    w->erase_events = r_u64(r);
    w->wl_seen = r_u64(r);
    w->wl_moves = r_u64(r);
    for (uint32_t i = 0; i < ftl->ln.nlines; i++) {
        w->erases[i] = r_u32(r);
        w->bad[i] = r_u8(r);
        if (w->bad[i] > FTL_BAD_GROWN ||
            (w->bad[i] == FTL_BAD_FACTORY) != (factory[i] != 0)) {
            ret = -1;
        }
        retired += w->bad[i] != 0;
        grown += w->bad[i] == FTL_BAD_GROWN;
    }
    if (retired != w->retired ||
        (uint64_t)grown * ftl->blks_per_line != w->grown_blocks ||
        w->wl_seen > w->erase_events) {
        ret = -1;
    }
    /* read-only past the spare, and only with lines retired */
    if ((w->retired > w->spare_lines && !w->ro) || (w->ro && !w->retired)) {
        ret = -1;
    }
    return ret;
}

/* t moved by the difference between two time bases, within u64 */
static uint64_t rebase(uint64_t t, uint64_t from, uint64_t to)
{
    if (to >= from) {
        uint64_t d = to - from;
        return t > UINT64_MAX - d ? UINT64_MAX : t + d;
    }
    return t < from - to ? 0 : t - (from - to);
}

int ftl_state_read_header(FILE *f, uint32_t *version, char *err,
                          size_t errlen)
{
    uint8_t h[16];

    if (fread(h, 1, sizeof(h), f) != sizeof(h)) {
        snprintf(err, errlen, "not a FEMU state file (shorter than its "
                 "16-byte header)");
        return -1;
    }
    if (memcmp(h, state_magic, sizeof(state_magic)) != 0) {
        snprintf(err, errlen, "not a FEMU state file (no FEMUSTAT magic)");
        return -1;
    }
    *version = ftl_le_get32(h + 8);
    if (*version < 1 || *version > FTL_STATE_VERSION || ftl_le_get32(h + 12) != 0) {
        snprintf(err, errlen, "state file format version %u (flags %08x): "
                 "this build reads versions 1 to %u", *version, ftl_le_get32(h + 12),
                 FTL_STATE_VERSION);
        return -1;
    }
    return 0;
}

struct ftl *ftl_state_load(const struct ftl_config *cfg, FILE *f,
                           uint64_t now_ns, char *err, size_t errlen)
{
    uint32_t version;

    if (ftl_state_read_header(f, &version, err, errlen)) {
        return NULL;
    }
    return ftl_state_load_section(cfg, f, version, now_ns, err, errlen);
}

struct ftl *ftl_state_load_section(const struct ftl_config *cfg, FILE *f,
                                   uint32_t version, uint64_t now_ns,
                                   char *err, size_t errlen)
{
    struct state_writer size = { 0 };
    struct state_reader rd, *r = &rd;
    struct ftl_config fcfg;
    struct ftl_lines *ln;
    struct ftl_counters *c;
    struct ftl *ftl;
    uint32_t tag;
    uint64_t len, saved_now;
    char mismatch[256];
    bool streams_bad = false, wear_bad = false, nss_bad = false;
    uint8_t *factory = NULL;
    uint32_t fbad = 0;
    int rc;

    ftl = ftl_new(cfg, err, errlen);
    if (!ftl) {
        return NULL;
    }
    /* the lines this configuration's factory bad blocks retire */
    factory = malloc(ftl->ln.nlines);
    if (!factory) {
        snprintf(err, errlen, "out of memory loading the state file");
        goto fail;
    }
    memcpy(factory, ftl->wear.bad, ftl->ln.nlines);
    ln = &ftl->ln;
    c = &ftl->ctr;
    rc = ftl_state_next_section(f, &tag, &len, err, errlen);
    if (rc <= 0) {
        goto fail;
    }
    if (tag != FTL_STATE_SEC_FTL) {
        snprintf(err, errlen, "corrupted state file (first section %08x is "
                 "not the FTL)", tag);
        goto fail;
    }
    r_start(r, f, tag, len);
    cfg_read(r, &fcfg, version);
    if (cfg_compare(&fcfg, cfg, mismatch, sizeof(mismatch)) < 0) {
        /* report a mismatch only for a section that is intact */
        if (r_finish(r, tag, err, errlen) == 0) {
            snprintf(err, errlen, "%s", mismatch);
        }
        goto fail;
    }
    ftl_payload(&size, ftl, 0);
    if (version < 2) {
        size.n -= cfg_v2_bytes();
    }
    if (version < 4) {
        size.n -= wear_bytes(ftl);
    }
    if (version < 7) {
        size.n -= nss_bytes();
    }
    if (len != size.n) {
        snprintf(err, errlen, "corrupted state file (FTL section of %llu "
                 "bytes, %llu expected for this configuration)",
                 (unsigned long long)len, (unsigned long long)size.n);
        goto fail;
    }
    if (r_u64(r) != ftl->ns_blocks || r_u32(r) != ftl->lpages ||
        r_u64(r) != ftl->nand_pages || r_u32(r) != ln->nlines ||
        r_u32(r) != ftl->ppl || r_u32(r) != nstreams(ftl) ||
        r_u32(r) != ftl->nluns) {
        if (r_finish(r, tag, err, errlen) == 0) {
            snprintf(err, errlen, "corrupted state file (its table sizes "
                     "differ from the ones this configuration gives)");
        }
        goto fail;
    }
    saved_now = r_u64(r);
    ftl->clock = r_u64(r);
    ftl->rng = r_u64(r);
    c->host_pages_written = r_u64(r);
    c->gc_pages_moved = r_u64(r);
    c->host_pages_programmed = r_u64(r);
    c->blocks_erased = r_u64(r);
    c->gc_lines_collected = r_u64(r);
    c->forced_gc_lines = r_u64(r);
    c->host_pages_read = r_u64(r);
    c->fdp_hbmw = r_u64(r);
    c->fdp_mbmw = r_u64(r);
    c->fdp_mbe = r_u64(r);

    ftl->tm.mode = (enum ftl_delay_mode)r_u8(r);
    ftl->tm.gc_delay = r_u8(r) != 0;
    /* the NAND and event clocks are read as saved, checked against
     * saved_now once the section's CRC holds, then moved to now_ns */
    for (uint32_t i = 0; i < ftl->nluns; i++) {
        ftl->tm.lun_free[i] = r_u64(r);
    }
    for (uint32_t i = 0; i < ftl->cfg.nchs; i++) {
        ftl->tm.ch_free[i] = r_u64(r);
    }

    ftl->ev_head = r_u32(r);
    ftl->nev = r_u32(r);
    for (uint32_t i = 0; i < FTL_FDP_EVENT_QUEUE; i++) {
        struct ftl_fdp_event *e = &ftl->evq[i];
        e->type = r_u8(r);
        e->pid = r_u16(r);
        e->ruh = r_u16(r);
        e->lba = r_u64(r);
        e->nlb = r_u32(r);
        e->time_ns = r_u64(r);
    }

    ln->free_head = r_u32(r);
    ln->nfree = r_u32(r);
    ln->min_bucket = r_u32(r);
    ln->fifo_head = r_u32(r);
    ln->fifo_tail = r_u32(r);
    ln->nclosed = r_u32(r);
    for (uint32_t i = 0; i < ln->nlines; i++) {
        struct ftl_line *l = &ln->line[i];
        l->vpc = r_u32(r);
        l->bprev = r_u32(r);
        l->bnext = r_u32(r);
        l->fprev = r_u32(r);
        l->fnext = r_u32(r);
        l->cpos = r_u32(r);
        l->owner = r_u16(r);
        l->state = r_u8(r);
        l->is_gc = r_u8(r);
        l->close_clock = r_u64(r);
    }
    r_u32_array(r, ln->freeq, ln->nlines);
    r_u32_array(r, ln->closed, ln->nlines);
    r_u32_array(r, ln->bucket, (uint64_t)ftl->ppl + 1);

    for (uint32_t i = 0; i < nstreams(ftl); i++) {
        struct ftl_stream *st = &ftl->streams[i];
        uint16_t owner;
        uint8_t is_gc;
        st->line = r_u32(r);
        st->seq = r_u32(r);
        st->lun = r_u32(r);
        owner = r_u16(r);
        is_gc = r_u8(r);
        /* ftl_streams_init set them from the configuration */
        streams_bad |= owner != st->owner || is_gc != st->is_gc;
    }

    {
        uint8_t buf[MAP_CHUNK * 4];
        for (uint32_t i = 0; i < ftl->lpages; i += MAP_CHUNK) {
            uint32_t k = ftl->lpages - i < MAP_CHUNK ? ftl->lpages - i
                                                     : MAP_CHUNK;
            r_bytes(r, buf, (size_t)k * 4);
            for (uint32_t j = 0; j < k; j++) {
                uint32_t ppa = ftl_le_get32(buf + 4 * j);
                /* unmapped entries stay untouched zero memory */
                if (ppa != FTL_NONE) {
                    ftl_map_put(ftl, i + j, ppa);
                }
            }
        }
    }
    if (version >= 4) {
        if (wear_read(r, ftl, factory, &fbad) < 0) {
            wear_bad = true;
        }
    } else {
        /* written before wear was kept: nothing erased or retired */
        memset(ftl->wear.bad, 0, ln->nlines);
        ftl->wear.retired = 0;
        fbad = 0;
    }
    if (version >= 7 && nss_read(r, ftl) < 0) {
        nss_bad = true;
    }
    if (r_finish(r, tag, err, errlen) < 0) {
        goto fail;
    }
    if (fbad != cfg->nand_bad_blocks) {
        snprintf(err, errlen, "configuration mismatch: nand_bad_blocks is "
                 "%u in the state file but %u here", fbad,
                 cfg->nand_bad_blocks);
        goto fail;
    }
    if (nss_bad) {
        snprintf(err, errlen, "corrupted state file (namespace counter "
                 "ranges out of order or beyond the logical pages)");
        goto fail;
    }
    if (wear_bad) {
        snprintf(err, errlen, "corrupted state file (retired lines differ "
                 "from the factory bad blocks and the counts it gives)");
        goto fail;
    }
    if (streams_bad) {
        snprintf(err, errlen, "corrupted state file (stream owners differ "
                 "from the ones this configuration gives)");
        goto fail;
    }
    if (state_check(ftl, err, errlen) < 0 ||
        clocks_check(ftl, saved_now, err, errlen) < 0) {
        goto fail;
    }
    for (uint32_t i = 0; i < ftl->nluns; i++) {
        ftl->tm.lun_free[i] = rebase(ftl->tm.lun_free[i], saved_now, now_ns);
    }
    for (uint32_t i = 0; i < ftl->cfg.nchs; i++) {
        ftl->tm.ch_free[i] = rebase(ftl->tm.ch_free[i], saved_now, now_ns);
    }
    for (uint32_t i = 0; i < FTL_FDP_EVENT_QUEUE; i++) {
        ftl->evq[i].time_ns = rebase(ftl->evq[i].time_ns, saved_now, now_ns);
    }
    {
        char why[200];
        if (ftl_check_invariants(ftl, why, sizeof(why)) < 0) {
            snprintf(err, errlen, "corrupted state file (%s)", why);
            goto fail;
        }
    }
    ftl_timing_apply_mode(ftl);
    free(factory);
    return ftl;

fail:
    free(factory);
    ftl_free(ftl);
    return NULL;
}
