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
 *   bit 3    cut the file at a length taken from the input;
 *   bit 4    set one clock of the FTL section (a LUN's or a channel's
 *            busy-until time, an FDP event's time: 1 byte chooses which)
 *            to the saved clock plus a signed 8-byte offset from the
 *            input, and recompute the CRC;
 *   bit 5    the base has generations (format 3): the base with DATA
 *            records and a DEV section, then two appended generations
 *            with DATA and TRIM records (the edits, the cut and the CRC
 *            fix-up above still apply to the base's FTL section).
 * The rest is a list of edits (4-byte offset, 1-byte value).  The file is
 * read with ftl_state_read_file() (every generation, DATA and TRIM
 * records to a sink that checks their ranges).  A file that loads must pass ftl_check_invariants() and keep doing so through a
 * workload whose commands complete within FTL_STATE_MAX_BUSY_NS (and a
 * second of their own work) of their arrival; a refused one must say why
 * in one line.  Anything else, or a sanitizer report, is a crash.
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

/* The saved clock of the base files. */
#define BASE_NOW 3000000ull

static void workload(struct ftl *f, const struct ftl_config *c, int n,
                     uint64_t seed)
{
    uint64_t s = seed, nblk = ftl_ns_blocks(f);

    for (int i = 0; i < n; i++) {
        uint64_t r = lcg(&s);
        uint64_t slba = (r % (nblk / 8)) * 8;
        uint32_t pid = c->fdp_nruh ? (uint32_t)(r >> 40) % (c->fdp_nruh + 1)
                                   : FTL_PID_NONE;
        uint64_t t;

        if (r % 50 == 0) {
            ftl_trim(f, slba, 8);
            continue;
        }
        t = ftl_write(f, slba, 8, pid, (uint64_t)i * 1000);
        if (t == FTL_TIME_ERROR) {
            if (!c->fdp_nruh) {
                abort();
            }
        } else if (t - (uint64_t)i * 1000 >
                   FTL_STATE_MAX_BUSY_NS + 1000000000ull) {
            fprintf(stderr, "write %d completes %llu ns after its arrival\n",
                    i, (unsigned long long)(t - (uint64_t)i * 1000));
            abort();
        }
        ftl_background_gc(f, (uint64_t)i * 1000);
    }
}

/* chunks of the fuzzed namespaces' data (the sink's bound) */
#define FUZZ_CHUNKS 512

/* DATA records for chunks first, first + step, ... (n of them) */
static int put_data(FILE *fp, uint64_t first, uint64_t step, uint32_t n,
                    char *err, size_t errlen)
{
    size_t len = 8 + (size_t)n * FTL_STATE_DATA_REC;
    uint8_t *b = calloc(1, len);
    int rc;

    b[1] = FTL_STATE_CHUNK >> 8;
    b[4] = (uint8_t)n;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *r = b + 8 + (size_t)i * FTL_STATE_DATA_REC;
        uint64_t c = first + step * i;
        for (int k = 0; k < 8; k++) {
            r[k] = (uint8_t)(c >> (8 * k));
        }
        memset(r + 8, (int)(c + 1), FTL_STATE_CHUNK);
    }
    rc = ftl_state_write_section(fp, FTL_STATE_SEC_DATA, b, len, err, errlen);
    free(b);
    return rc;
}

static int put_trim(FILE *fp, uint64_t first, uint64_t n, char *err,
                    size_t errlen)
{
    uint8_t b[24] = { 1 };

    for (int k = 0; k < 8; k++) {
        b[8 + k] = (uint8_t)(first >> (8 * k));
        b[16 + k] = (uint8_t)(n >> (8 * k));
    }
    return ftl_state_write_section(fp, FTL_STATE_SEC_TRIM, b, sizeof(b), err,
                                   errlen);
}

static uint8_t *base_file(int which, int gens, size_t *n)
{
    static uint8_t *cache[8];
    static size_t len[8];
    int k = which + 4 * gens;
    struct ftl_config c;
    struct ftl_state_gen g;
    char err[256];
    struct ftl *f;
    FILE *fp;

    if (!cache[k]) {
        uint8_t dev[32] = { 7 };

        base_cfg(which, &c);
        f = ftl_new(&c, err, sizeof(err));
        if (!f) {
            abort();
        }
        workload(f, &c, 3000, 42);
        fp = tmpfile();
        if (!fp) {
            abort();
        }
        if (!gens) {
            if (ftl_state_write_header(fp, err, sizeof(err)) ||
                ftl_state_save(f, BASE_NOW, fp, err, sizeof(err)) ||
                ftl_state_write_section(fp, FTL_STATE_SEC_END, NULL, 0, err,
                                        sizeof(err))) {
                abort();
            }
        } else if (ftl_state_gen_begin(&g, fp, 0, err, sizeof(err)) ||
                   ftl_state_save(f, BASE_NOW, fp, err, sizeof(err)) ||
                   ftl_state_write_section(fp, FTL_STATE_SEC_DEV, dev,
                                           sizeof(dev), err, sizeof(err)) ||
                   put_data(fp, 0, 3, 4, err, sizeof(err)) ||
                   ftl_state_gen_end(&g, err, sizeof(err))) {
            abort();
        } else {
            for (uint64_t seq = 1; seq <= 2; seq++) {
                workload(f, &c, 300, 42 + seq);
                if (ftl_state_gen_begin(&g, fp, seq, err, sizeof(err)) ||
                    ftl_state_save(f, BASE_NOW, fp, err, sizeof(err)) ||
                    put_data(fp, seq, 5, 2, err, sizeof(err)) ||
                    put_trim(fp, 3 * seq, seq, err, sizeof(err)) ||
                    ftl_state_gen_end(&g, err, sizeof(err))) {
                    abort();
                }
            }
        }
        len[k] = (size_t)ftell(fp);
        cache[k] = malloc(len[k]);
        rewind(fp);
        if (fread(cache[k], 1, len[k], fp) != len[k]) {
            abort();
        }
        fclose(fp);
        ftl_free(f);
    }
    *n = len[k];
    return cache[k];
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/*
 * Offset of clock k of a base file: LUNs 0-3, channels 0-1, then the FDP
 * event ring's time stamps; 0 when the file is too short.
 */
static size_t clock_off(const uint8_t *b, size_t n, unsigned k)
{
    const unsigned nluns = 4, nchs = 2;
    size_t now = 0, lun;

    /* the saved clock: the first u64 of the FTL section equal to it */
    for (size_t i = 32; i + 8 <= n && !now; i++) {
        now = rd64(b + i) == BASE_NOW ? i : 0;
    }
    if (!now) {
        return 0;
    }
    /* saved clock, logical clock, RNG, 10 counters, delay mode, GC delay */
    lun = now + 8 + 8 + 8 + 10 * 8 + 2;
    k %= nluns + nchs + FTL_FDP_EVENT_QUEUE;
    if (k < nluns + nchs) {
        return lun + 8 * k;
    }
    /* after the ring's head and count, 25-byte events, time at 17 */
    return lun + 8 * (nluns + nchs) + 8 + 25 * (k - nluns - nchs) + 17;
}

/* The sink: records must name chunks of the namespace; their bytes are
 * read (a sanitizer sees a record that is not all there). */
static unsigned sink_sum;

static void sink_data(void *opaque, uint64_t chunk, const uint8_t *b,
                      uint64_t off)
{
    if (chunk >= FUZZ_CHUNKS) {
        fprintf(stderr, "DATA record for chunk %llu passed\n",
                (unsigned long long)chunk);
        abort();
    }
    for (unsigned i = 0; i < FTL_STATE_CHUNK; i += 512) {
        sink_sum += b[i];
    }
}

static void sink_trim(void *opaque, uint64_t first, uint64_t n)
{
    if (!n || first >= FUZZ_CHUNKS || n > FUZZ_CHUNKS - first) {
        fprintf(stderr, "TRIM of %llu at %llu passed\n",
                (unsigned long long)n, (unsigned long long)first);
        abort();
    }
}

static int sink_section(void *opaque, uint32_t tag, const uint8_t *p,
                        uint64_t len, uint32_t gen, char *err, size_t errlen)
{
    if (len > FTL_STATE_SECTION_MAX) {
        abort();
    }
    if (len) {
        sink_sum += p[len - 1];
    }
    return 0;
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
        const uint8_t *b = base_file(which, (data[0] >> 5) & 1, &n);
        size_t i = 1;

        buf = malloc(n);
        memcpy(buf, b, n);
        if (data[0] & 16 && size >= i + 9) {
            size_t off = clock_off(buf, n, data[i]);
            if (off && off + 8 <= n) {
                uint64_t v = BASE_NOW + rd64(data + i + 1);
                for (int k = 0; k < 8; k++) {
                    buf[off + k] = (uint8_t)(v >> (8 * k));
                }
            }
            i += 9;
        }
        if (data[0] & 8 && size >= i + 4) {
            size_t cut = rd32(data + i) % (n + 1);
            i += 4;
            n = cut;
        }
        for (; i + 5 <= size && n; i += 5) {
            buf[rd32(data + i) % n] = data[i + 4];
        }
        if (data[0] & 20 && n >= 36) {
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
    {
        struct ftl_state_sink sink = {
            .nchunks = FUZZ_CHUNKS, .data = sink_data, .trim = sink_trim,
            .section = sink_section,
        };
        struct ftl_state_info info;

        f = ftl_state_read_file(&c, fp, 5000000, &sink, &info, err,
                                sizeof(err));
        if (f && (info.gens < 1 || info.end < info.base_end)) {
            abort();
        }
    }
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
