/*
 * libFuzzer harness for the FEMU FTL core (include/hw/femu/ftl.h).
 *
 * The input is decoded into a configuration and a sequence of
 * operations (write, read, trim, background GC, RUH update, the 0xEF
 * run-time controls, counter reset, event drain).  After every step the
 * harness checks what a user of the FTL relies on:
 *   - ftl_check_invariants() (mapping/rmap/valid counts/lines);
 *   - a completion time is never before the request's arrival;
 *   - a validated configuration never fails a host write (the reserve
 *     rule's promise, ftl.h FTL_TIME_ERROR; with FDP since the rule
 *     counts 2 x fdp.nruh open reclaim units);
 *   - after a write every page it touched is mapped, after a trim every
 *     page it covered entirely is unmapped (checked through read costs:
 *     an unmapped page costs no NAND time, a mapped one pg_rd_lat);
 *   - counter relations: host pages counted per page touched, WAF x1000
 *     from its formula, FDP byte counters equal the page counters times
 *     the page size, counters never go down except on a reset;
 *   - ftl_config_validate() and ftl_new() agree on what is valid.
 * Any violation aborts, which libFuzzer reports as a crash.
 *
 * Built by `make fuzz-ftl` (clang -fsanitize=fuzzer,address,undefined)
 * and, with replay-main.c instead of libFuzzer, by tests/fuzz/replay.t
 * which replays the corpus and every saved crash as a regression test.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/femu/ftl.h"

/* Bounded geometry keeps one input fast (invariants walk all pages). */
#define FUZZ_MAX_NAND_PAGES (1u << 16)
#define FUZZ_MAX_STEPS 400

struct input {
    const uint8_t *p;
    size_t n;
};

static uint8_t take8(struct input *in)
{
    uint8_t v = 0;

    if (in->n) {
        v = *in->p++;
        in->n--;
    }
    return v;
}

static uint32_t take32(struct input *in)
{
    uint32_t v = 0;

    for (int i = 0; i < 4; i++) {
        v |= (uint32_t)take8(in) << (8 * i);
    }
    return v;
}

#define FAIL(...)                                                        \
    do {                                                                 \
        fprintf(stderr, "fuzz-ftl: " __VA_ARGS__);                       \
        fputc('\n', stderr);                                             \
        abort();                                                         \
    } while (0)

static void check_invariants(const struct ftl *ftl, const char *after)
{
    char err[256];

    if (ftl_check_invariants(ftl, err, sizeof(err)) != 0) {
        FAIL("invariants broken after %s: %s", after, err);
    }
}

/* Configuration from the first bytes.  Mostly small, valid-looking
 * geometries; with the top bit of the first byte, wide raw values that
 * mostly exercise the validation. */
static void decode_config(struct input *in, struct ftl_config *c)
{
    static const uint32_t spp[] = { 1, 2, 4, 8, 16, 8, 8, 3 };
    uint8_t mode = take8(in);

    ftl_config_default(c);
    if (mode & 0x80) {
        c->nchs = take32(in);
        c->luns_per_ch = take32(in);
        c->pls_per_lun = take8(in);
        c->blks_per_pl = take32(in);
        c->pgs_per_blk = take32(in);
        c->secsz = (take8(in) & 1) ? 4096 : take32(in);
        c->secs_per_pg = take32(in);
        c->devsz_mb = ((uint64_t)take32(in) << 32) | take32(in);
        c->op_pcent = (int32_t)take32(in);
        c->gc_thres_pcent = take8(in);
        c->gc_thres_pcent_high = take8(in);
        c->gc_policy = (enum ftl_gc_policy)(take8(in) % 7);
        c->fdp_nruh = take32(in);
        c->fdp_nru = take32(in);
    } else {
        c->nchs = 1 + take8(in) % 4;
        c->luns_per_ch = 1 + take8(in) % 4;
        c->pls_per_lun = 1 + take8(in) % 2;
        c->blks_per_pl = 3 + take8(in) % 46;
        c->pgs_per_blk = 1 + take8(in) % 16;
        c->secs_per_pg = spp[take8(in) % 8];
        c->secsz = (take8(in) & 1) ? 4096 : 512;
        if (take8(in) & 1) {
            c->op_pcent = take8(in) % 120;
        } else {
            c->op_pcent = -1;
            c->devsz_mb = 1 + take8(in) % 16;
        }
        c->gc_thres_pcent = 1 + take8(in) % 100;
        c->gc_thres_pcent_high = c->gc_thres_pcent +
                                 take8(in) % (101 - c->gc_thres_pcent);
        c->gc_policy = (enum ftl_gc_policy)(take8(in) % 5);
        c->hot_cold_sep = mode & 1;
        c->gc_own_line = (mode & 4) != 0;
        c->fdp_nruh = (mode & 2) ? 1 + take8(in) % 8 : 0;
        c->fdp_nru = 1 + take8(in) % 64;
    }
    c->pg_rd_lat = 1000 + take8(in) * 100;
    c->pg_wr_lat = take8(in) * 1000;
    c->blk_er_lat = take8(in) * 10000;
    c->ch_xfer_lat = take8(in) & 3 ? 0 : take8(in) * 10;
    c->seed = take8(in);
}

struct shadow {
    const struct ftl_config *cfg;
    uint64_t ns_blocks;
    uint32_t bpp;          /* logical blocks per NAND page */
    uint64_t lpages;
    uint64_t page_bytes;
    uint8_t *mapped;       /* per lpn: 1 after a write, 0 after a trim */
    int delay_mode;        /* enum ftl_delay_mode */
    struct ftl_counters prev;
};

static uint64_t eff_rd_lat(const struct shadow *s)
{
    switch (s->delay_mode) {
    case FTL_DELAY_BUILTIN:
        return 40000;
    case FTL_DELAY_OFF:
        return 0;
    default:
        return s->cfg->pg_rd_lat;
    }
}

static void check_counters(struct ftl *ftl, struct shadow *s, const char *op)
{
    struct ftl_counters c;
    uint32_t waf;
    uint64_t pages_per_blk = (uint64_t)s->cfg->pgs_per_blk;

    ftl_get_counters(ftl, &c);
#define MONO(f) \
    if (c.f < s->prev.f) FAIL("%s: counter " #f " went down after %s", \
                              #f, op)
    MONO(host_pages_written);
    MONO(gc_pages_moved);
    MONO(host_pages_programmed);
    MONO(blocks_erased);
    MONO(gc_lines_collected);
    MONO(forced_gc_lines);
    MONO(host_pages_read);
    MONO(fdp_hbmw);
    MONO(fdp_mbmw);
    MONO(fdp_mbe);
#undef MONO
    if (c.fdp_mbmw != (c.host_pages_programmed + c.gc_pages_moved) *
                      s->page_bytes) {
        FAIL("MBMW %" PRIu64 " != (programmed %" PRIu64 " + moved %" PRIu64
             ") x %" PRIu64 " after %s", c.fdp_mbmw, c.host_pages_programmed,
             c.gc_pages_moved, s->page_bytes, op);
    }
    if (c.fdp_mbe != c.blocks_erased * pages_per_blk * s->page_bytes) {
        FAIL("MBE %" PRIu64 " != blocks erased %" PRIu64 " x block bytes "
             "after %s", c.fdp_mbe, c.blocks_erased, op);
    }
    if (c.forced_gc_lines > c.gc_lines_collected) {
        FAIL("forced GC lines %" PRIu64 " > lines collected %" PRIu64,
             c.forced_gc_lines, c.gc_lines_collected);
    }
    if (c.host_pages_programmed < c.host_pages_written) {
        FAIL("programmed %" PRIu64 " < written %" PRIu64 " after %s",
             c.host_pages_programmed, c.host_pages_written, op);
    }
    waf = ftl_waf_x1000(ftl);
    if (c.host_pages_written == 0 ? waf != 1000 :
        waf != (uint32_t)((c.host_pages_programmed + c.gc_pages_moved) *
                          1000 / c.host_pages_written)) {
        FAIL("WAF x1000 %u does not match the counters after %s", waf, op);
    }
    if (ftl_free_lines(ftl) > ftl_total_lines(ftl) ||
        ftl_used_lines_pcent(ftl) > 100) {
        FAIL("line counts out of range after %s", op);
    }
    s->prev = c;
}

/* Blocks [slba, slba+nlb) clipped to the namespace; false if empty. */
static int clip(const struct shadow *s, uint64_t *slba, uint32_t *nlb)
{
    *slba %= s->ns_blocks;
    if (*nlb == 0) {
        *nlb = 1;
    }
    if (*slba + *nlb > s->ns_blocks) {
        *nlb = (uint32_t)(s->ns_blocks - *slba);
    }
    return *nlb > 0;
}

static void do_write(struct ftl *ftl, struct shadow *s, uint64_t slba,
                     uint32_t nlb, uint32_t pid, uint64_t now)
{
    struct ftl_counters before, after;
    uint64_t first, last, t;

    if (!clip(s, &slba, &nlb)) {
        return;
    }
    if (getenv("FUZZ_FTL_VERBOSE")) {
        fprintf(stderr, "write slba=%" PRIu64 " nlb=%u pid=%u free=%u\n",
                slba, nlb, pid, ftl_free_lines(ftl));
    }
    first = slba / s->bpp;
    last = (slba + nlb - 1) / s->bpp;
    ftl_get_counters(ftl, &before);
    t = ftl_write(ftl, slba, nlb, pid, now);
    ftl_get_counters(ftl, &after);
    if (after.fdp_hbmw - before.fdp_hbmw != (uint64_t)nlb * s->cfg->secsz) {
        FAIL("HBMW grew by %" PRIu64 " for %u blocks",
             after.fdp_hbmw - before.fdp_hbmw, nlb);
    }
    if (t == FTL_TIME_ERROR) {
        FAIL("write slba=%" PRIu64 " nlb=%u pid=%u failed on a validated "
             "configuration (fdp.nruh=%u)", slba, nlb, pid,
             s->cfg->fdp_nruh);
    }
    if (t < now) {
        FAIL("write completes at %" PRIu64 " before its arrival %" PRIu64,
             t, now);
    }
    if (after.host_pages_written - before.host_pages_written !=
        last - first + 1) {
        FAIL("write of %" PRIu64 " pages counted %" PRIu64, last - first + 1,
             after.host_pages_written - before.host_pages_written);
    }
    for (uint64_t l = first; l <= last; l++) {
        s->mapped[l] = 1;
    }
}

static void do_read(struct ftl *ftl, struct shadow *s, uint64_t slba,
                    uint32_t nlb, uint64_t now)
{
    uint64_t first, last, t;
    int any_mapped = 0;

    if (!clip(s, &slba, &nlb)) {
        return;
    }
    first = slba / s->bpp;
    last = (slba + nlb - 1) / s->bpp;
    for (uint64_t l = first; l <= last; l++) {
        any_mapped |= s->mapped[l] == 1;
    }
    t = ftl_read(ftl, slba, nlb, now);
    if (t < now) {
        FAIL("read completes before its arrival");
    }
    if (!any_mapped && t != now) {
        FAIL("read of unmapped blocks slba=%" PRIu64 " nlb=%u took %" PRIu64
             " ns", slba, nlb, t - now);
    }
    if (any_mapped && t < now + eff_rd_lat(s)) {
        FAIL("read of mapped blocks slba=%" PRIu64 " nlb=%u took %" PRIu64
             " ns < pg_rd_lat %" PRIu64, slba, nlb, t - now, eff_rd_lat(s));
    }
}

static void do_trim(struct ftl *ftl, struct shadow *s, uint64_t slba,
                    uint32_t nlb)
{
    uint64_t first, end;

    if (!clip(s, &slba, &nlb)) {
        return;
    }
    ftl_trim(ftl, slba, nlb);
    first = (slba + s->bpp - 1) / s->bpp;
    end = (slba + nlb) / s->bpp;
    if (end > s->lpages) {
        end = s->lpages;
    }
    for (uint64_t l = first; l < end; l++) {
        s->mapped[l] = 0;
    }
}

static void run_ops(struct ftl *ftl, struct shadow *s, struct input *in)
{
    uint64_t now = 1000;
    uint64_t lat_blocks = s->ns_blocks;
    struct ftl_fdp_event ev;

    for (int step = 0; step < FUZZ_MAX_STEPS && in->n; step++) {
        uint8_t op = take8(in);
        const char *name = "?";

        now += (uint64_t)take8(in) * 5000;
        switch (op % 12) {
        case 0: case 1: case 2: { /* write: the common case */
            uint64_t slba = take32(in);
            uint32_t nlb = 1 + take8(in) % 64;
            uint8_t p = take8(in);
            uint32_t pid = p == 0xff ? FTL_PID_NONE :
                           p % (s->cfg->fdp_nruh + 2);
            do_write(ftl, s, slba, nlb, pid, now);
            name = "write";
            break;
        }
        case 3: { /* a run of writes: reaches GC with few input bytes */
            uint64_t slba = take32(in);
            uint32_t chunks = 1 + take8(in) % 64;
            uint32_t nlb = s->bpp * (1 + take8(in) % 8);
            int random = take8(in) & 1;
            uint32_t pid = take8(in) % (s->cfg->fdp_nruh + 1);
            for (uint32_t i = 0; i < chunks; i++) {
                do_write(ftl, s, slba, nlb, pid, now);
                slba = random ? slba * 6364136223846793005ull + 1442695 :
                                slba + nlb;
                ftl_background_gc(ftl, now);
                now += 100;
            }
            name = "write run";
            break;
        }
        case 4: case 5:
            do_read(ftl, s, take32(in), 1 + take8(in) % 64, now);
            name = "read";
            break;
        case 6: {
            uint64_t slba = take32(in);
            uint32_t nlb = take8(in) & 0x80 ? (uint32_t)lat_blocks :
                           1 + take8(in) % 64;
            do_trim(ftl, s, slba, nlb);
            name = "trim";
            break;
        }
        case 7:
            ftl_background_gc(ftl, now);
            name = "background gc";
            break;
        case 8: {
            uint32_t ruh = take8(in);
            int r = ftl_fdp_ruh_update(ftl, ruh, now);
            if (r != 0 && s->cfg->fdp_nruh > 0 && ruh < s->cfg->fdp_nruh) {
                FAIL("RUH update of valid handle %u failed", ruh);
            }
            if (r == 0 && ruh >= s->cfg->fdp_nruh) {
                FAIL("RUH update of handle %u accepted (nruh=%u)", ruh,
                     s->cfg->fdp_nruh);
            }
            if (r == 0 && ftl_fdp_ruamw(ftl, ruh) == 0) {
                FAIL("handle %u has no room right after an update", ruh);
            }
            name = "ruh update";
            break;
        }
        case 9: {
            uint8_t v = take8(in);
            if (v & 1) {
                ftl_set_gc_delay(ftl, v & 2);
            } else {
                s->delay_mode = (v >> 2) % 3;
                ftl_set_delay_mode(ftl, (enum ftl_delay_mode)s->delay_mode);
            }
            name = "controls";
            break;
        }
        case 10:
            ftl_reset_counters(ftl);
            memset(&s->prev, 0, sizeof(s->prev));
            name = "reset counters";
            break;
        case 11:
            for (int i = 0; i < 2 * FTL_FDP_EVENT_QUEUE + 1; i++) {
                if (!ftl_fdp_pop_event(ftl, &ev)) {
                    break;
                }
                if (ev.type != FTL_FDP_EVT_INVALID_PID &&
                    ev.type != FTL_FDP_EVT_RU_NOT_FULLY_WRITTEN) {
                    FAIL("unknown FDP event type %u", ev.type);
                }
                if (ev.ruh >= s->cfg->fdp_nruh) {
                    FAIL("FDP event for handle %u (nruh=%u)", ev.ruh,
                         s->cfg->fdp_nruh);
                }
                if (i == 2 * FTL_FDP_EVENT_QUEUE) {
                    FAIL("more than %d FDP events queued",
                         2 * FTL_FDP_EVENT_QUEUE);
                }
            }
            name = "event drain";
            break;
        }
        for (uint32_t h = 0; h < s->cfg->fdp_nruh; h++) {
            uint64_t line_blocks = ftl_line_bytes(ftl) / s->cfg->secsz;
            if (ftl_fdp_ruamw(ftl, h) > line_blocks) {
                FAIL("RUAMW of handle %u is %" PRIu64 " > %" PRIu64
                     " blocks of a reclaim unit", h, ftl_fdp_ruamw(ftl, h),
                     line_blocks);
            }
        }
        check_invariants(ftl, name);
        check_counters(ftl, s, name);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = { data, size };
    struct ftl_config cfg;
    struct shadow s;
    struct ftl *ftl;
    char err[512];
    int valid;
    uint64_t nand_pages;

    decode_config(&in, &cfg);
    if (getenv("FUZZ_FTL_VERBOSE")) {
        fprintf(stderr, "config: nchs=%u luns_per_ch=%u pls_per_lun=%u "
                "blks_per_pl=%u pgs_per_blk=%u secsz=%u secs_per_pg=%u "
                "devsz_mb=%" PRIu64 " op_pcent=%d gc_thres_pcent=%u "
                "gc_thres_pcent_high=%u gc_policy=%d hot_cold_sep=%d "
                "gc_own_line=%d fdp.nruh=%u fdp.nru=%u\n", cfg.nchs,
                cfg.luns_per_ch,
                cfg.pls_per_lun, cfg.blks_per_pl, cfg.pgs_per_blk, cfg.secsz,
                cfg.secs_per_pg, cfg.devsz_mb, cfg.op_pcent,
                cfg.gc_thres_pcent, cfg.gc_thres_pcent_high,
                (int)cfg.gc_policy, cfg.hot_cold_sep, cfg.gc_own_line,
                cfg.fdp_nruh, cfg.fdp_nru);
    }
    memset(err, 0, sizeof(err));
    valid = ftl_config_validate(&cfg, err, sizeof(err)) == 0;
    if (!valid) {
        if (!err[0] || strlen(err) >= sizeof(err) - 1) {
            FAIL("refusal without a one-line message");
        }
        /* a refused configuration must not be built either */
        if ((ftl = ftl_new(&cfg, err, sizeof(err))) != NULL) {
            FAIL("ftl_new accepted a configuration validate refused");
        }
        return 0;
    }
    nand_pages = (uint64_t)cfg.nchs * cfg.luns_per_ch * cfg.pls_per_lun *
                 cfg.blks_per_pl * cfg.pgs_per_blk;
    if (nand_pages > FUZZ_MAX_NAND_PAGES) {
        return 0; /* valid but too big to fuzz quickly */
    }
    ftl = ftl_new(&cfg, err, sizeof(err));
    if (!ftl) {
        FAIL("ftl_new refused a validated configuration: %s", err);
    }
    memset(&s, 0, sizeof(s));
    s.cfg = ftl_config_of(ftl);
    s.ns_blocks = ftl_ns_blocks(ftl);
    s.page_bytes = (uint64_t)cfg.secs_per_pg * 512;
    s.bpp = (uint32_t)(s.page_bytes / cfg.secsz);
    s.lpages = ftl_logical_pages(ftl);
    if (s.ns_blocks == 0 || s.lpages * s.bpp < s.ns_blocks ||
        ftl_nand_pages(ftl) != nand_pages) {
        FAIL("sizes inconsistent: %" PRIu64 " blocks, %" PRIu64 " pages",
             s.ns_blocks, s.lpages);
    }
    s.mapped = calloc(s.lpages, 1);
    check_invariants(ftl, "ftl_new");
    run_ops(ftl, &s, &in);
    free(s.mapped);
    ftl_free(ftl);
    return 0;
}
