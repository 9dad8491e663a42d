/*
 * libFuzzer harness for the FTL state-file loader (ftl_state_load and the
 * section reader, include/hw/femu/ftl.h).
 *
 * Random bytes rarely get past a CRC32C, so most inputs are edits of a
 * valid file instead.  The first input byte chooses:
 *   bit 0-1  the base: a raw input (0), or a valid state of one of three
 *            configurations (greedy; cost-benefit with hot_cold_sep;
 *            FDP with 3 handles) saved after a workload with GC;
 *   bit 2    recompute the FTL section's CRC after the edits, so they
 *            reach the structure checks behind it;
 *   bit 3    cut the file at a length taken from the input.
 * The rest is a list of edits (4-byte offset, 1-byte value).  A file that
 * loads must pass ftl_check_invariants() and keep doing so through a
 * workload; a refused one must say why in one line.  Anything else, or a
 * sanitizer report, is a crash.
 *
 * Built by `make fuzz-state` (tests/fuzz/fuzz-state.sh); replayed with
 * replay-main.c by tests/fuzz/state-replay.t.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/femu/ftl.h"

static void base_cfg(int which, struct ftl_config *c)
{
    ftl_config_default(c);
    c->nchs = 2;
    c->luns_per_ch = 2;
    c->blks_per_pl = 32;
    c->pgs_per_blk = 16;
    c->devsz_mb = 3;
    if (which == 2) {
        c->gc_policy = FTL_GC_COST_BENEFIT;
        c->hot_cold_sep = true;
    } else if (which == 3) {
        c->fdp_nruh = 3;
        c->devsz_mb = 2;
    }
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 17;
}

static void workload(struct ftl *f, const struct ftl_config *c, int n,
                     uint64_t seed)
{
    uint64_t s = seed, nblk = ftl_ns_blocks(f);

    for (int i = 0; i < n; i++) {
        uint64_t r = lcg(&s);
        uint64_t slba = (r % (nblk / 8)) * 8;
        uint32_t pid = c->fdp_nruh ? (uint32_t)(r >> 40) % (c->fdp_nruh + 1)
                                   : FTL_PID_NONE;
        if (r % 50 == 0) {
            ftl_trim(f, slba, 8);
        } else if (ftl_write(f, slba, 8, pid, (uint64_t)i * 1000) ==
                   FTL_TIME_ERROR && !c->fdp_nruh) {
            abort();
        }
        ftl_background_gc(f, (uint64_t)i * 1000);
    }
}

static uint8_t *base_file(int which, size_t *n)
{
    static uint8_t *cache[4];
    static size_t len[4];
    struct ftl_config c;
    char err[256];
    struct ftl *f;
    FILE *fp;

    if (!cache[which]) {
        base_cfg(which, &c);
        f = ftl_new(&c, err, sizeof(err));
        if (!f) {
            abort();
        }
        workload(f, &c, 3000, 42);
        fp = tmpfile();
        if (!fp || ftl_state_write_header(fp, err, sizeof(err)) ||
            ftl_state_save(f, 3000000, fp, err, sizeof(err)) ||
            ftl_state_write_section(fp, FTL_STATE_SEC_END, NULL, 0, err,
                                    sizeof(err))) {
            abort();
        }
        len[which] = (size_t)ftell(fp);
        cache[which] = malloc(len[which]);
        rewind(fp);
        if (fread(cache[which], 1, len[which], fp) != len[which]) {
            abort();
        }
        fclose(fp);
        ftl_free(f);
    }
    *n = len[which];
    return cache[which];
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ftl_config c;
    uint8_t *buf;
    size_t n;
    int which;
    char err[256] = "";
    struct ftl *f;
    FILE *fp;

    if (size < 1) {
        return 0;
    }
    which = data[0] & 3;
    base_cfg(which ? which : 1, &c);
    if (which == 0) {
        n = size - 1;
        buf = malloc(n ? n : 1);
        memcpy(buf, data + 1, n);
    } else {
        const uint8_t *b = base_file(which, &n);
        size_t i = 1;

        buf = malloc(n);
        memcpy(buf, b, n);
        if (data[0] & 8 && size >= 5) {
            size_t cut = rd32(data + 1) % (n + 1);
            i = 5;
            n = cut;
        }
        for (; i + 5 <= size && n; i += 5) {
            buf[rd32(data + i) % n] = data[i + 4];
        }
        if (data[0] & 4 && n >= 36) {
            uint64_t len = rd32(buf + 24) | (uint64_t)rd32(buf + 28) << 32;
            if (len <= n - 36) {
                uint32_t crc = ftl_crc32c(0, buf + 16, 16 + (size_t)len);
                for (int k = 0; k < 4; k++) {
                    buf[32 + len + k] = (uint8_t)(crc >> (8 * k));
                }
            }
        }
    }
    fp = fmemopen(buf, n ? n : 1, "rb");
    if (!fp) {
        abort();
    }
    if (n == 0) {
        fgetc(fp); /* fmemopen needs a size: read past the one byte */
    }
    f = ftl_state_load(&c, fp, 5000000, err, sizeof(err));
    if (f) {
        char why[256];
        if (ftl_check_invariants(f, why, sizeof(why)) != 0) {
            fprintf(stderr, "loaded state breaks invariants: %s\n", why);
            abort();
        }
        workload(f, &c, 300, n);
        if (ftl_check_invariants(f, why, sizeof(why)) != 0) {
            fprintf(stderr, "invariants after a workload: %s\n", why);
            abort();
        }
        ftl_free(f);
    } else if (!err[0] || strchr(err, '\n')) {
        fprintf(stderr, "refusal without a one-line message: '%s'\n", err);
        abort();
    }
    fclose(fp);
    free(buf);
    return 0;
}
