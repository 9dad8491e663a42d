/*
 * State files: a saved and reloaded FTL continues exactly as one that
 * never stopped, and every kind of bad file is refused with one line.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "test.h"

/*
 * Step i of a deterministic workload: skewed overwrites, some trims,
 * background GC, and with FDP placement ids (an unknown one too) and RUH
 * updates.  Times advance so that the NAND clocks matter.
 */
static uint64_t step(struct ftl *f, uint64_t i, uint64_t t0, uint64_t *rs)
{
    uint64_t r = trand(rs);
    uint64_t now = t0 + i * 30000;
    uint32_t lp = (uint32_t)f->lpages;
    uint32_t lpn = (r & 3) ? (uint32_t)((r >> 8) % (lp / 4))
                           : (uint32_t)((r >> 8) % lp);
    uint32_t nlb = f->blocks_per_page * (1 + (uint32_t)((r >> 40) % 4));
    uint64_t slba = (uint64_t)lpn * f->blocks_per_page;
    uint64_t done;

    if (slba + nlb > f->ns_blocks) {
        nlb = (uint32_t)(f->ns_blocks - slba);
    }
    if ((r >> 50) % 64 == 0) {
        ftl_trim(f, slba, nlb);
        done = now;
    } else if ((r >> 50) % 64 == 1) {
        done = ftl_read(f, slba, nlb, now);
    } else {
        uint32_t pid = FTL_PID_NONE;
        if (f->cfg.fdp_nruh) {
            pid = (uint32_t)((r >> 20) % (f->cfg.fdp_nruh + 1));
            if ((r >> 56) % 97 == 0) {
                ftl_fdp_ruh_update(f, pid % f->cfg.fdp_nruh, now);
            }
        }
        done = ftl_write(f, slba, nlb, pid, now);
    }
    ftl_background_gc(f, now);
    return done;
}

/* Everything the FTL holds that decides what it does next. */
static void same_state(const struct ftl *a, const struct ftl *b, int64_t dt)
{
    CHECK(memcmp(&a->ctr, &b->ctr, sizeof(a->ctr)) == 0);
    CHECK_EQ(a->clock, b->clock);
    CHECK_EQ(a->rng, b->rng);
    CHECK(memcmp(a->maptbl, b->maptbl, a->lpages * 4ull) == 0);
    CHECK(memcmp(a->vbits, b->vbits, (a->nand_pages + 63) / 64 * 8) == 0);
    CHECK_EQ(a->ln.nfree, b->ln.nfree);
    CHECK_EQ(a->ln.free_head, b->ln.free_head);
    CHECK_EQ(a->ln.nclosed, b->ln.nclosed);
    CHECK_EQ(a->ln.fifo_head, b->ln.fifo_head);
    CHECK(memcmp(a->ln.line, b->ln.line,
                 a->ln.nlines * sizeof(*a->ln.line)) == 0);
    CHECK(memcmp(a->ln.freeq, b->ln.freeq, a->ln.nlines * 4ull) == 0);
    CHECK(memcmp(a->ln.closed, b->ln.closed, a->ln.nclosed * 4ull) == 0);
    CHECK(memcmp(a->streams, b->streams,
                 (a->nhost + a->ngc) * sizeof(*a->streams)) == 0);
    CHECK_EQ(a->nev, b->nev);
    for (uint32_t i = 0; i < a->nluns; i++) {
        CHECK_EQ(a->tm.lun_free[i] + (uint64_t)dt, b->tm.lun_free[i]);
    }
    CHECK_EQ(a->tm.mode, b->tm.mode);
    CHECK_EQ(a->tm.gc_delay, b->tm.gc_delay);
    /* wear: erase counts, retired lines, read-only */
    CHECK(memcmp(a->wear.erases, b->wear.erases, a->ln.nlines * 4ull) == 0);
    CHECK(memcmp(a->wear.bad, b->wear.bad, a->ln.nlines) == 0);
    CHECK_EQ(a->wear.retired, b->wear.retired);
    CHECK_EQ(a->wear.grown_blocks, b->wear.grown_blocks);
    CHECK_EQ(a->wear.erase_events, b->wear.erase_events);
    CHECK_EQ(a->wear.wl_moves, b->wear.wl_moves);
    CHECK_EQ(a->wear.ro, b->wear.ro);
    /* per-namespace counters (format 7) */
    CHECK_EQ(a->nss.n, b->nss.n);
    CHECK(memcmp(a->nss.first_lpn, b->nss.first_lpn,
                 sizeof(a->nss.first_lpn)) == 0);
    CHECK(memcmp(a->nss.ctr, b->nss.ctr, sizeof(a->nss.ctr)) == 0);
}

static FILE *save(const struct ftl *f, uint64_t now)
{
    char err[256];
    FILE *fp = tmpfile();

    CHECK(fp != NULL);
    CHECK_EQ(ftl_state_write_header(fp, err, sizeof(err)), 0);
    CHECK_EQ(ftl_state_save(f, now, fp, err, sizeof(err)), 0);
    CHECK_EQ(ftl_state_write_section(fp, FTL_STATE_SEC_END, NULL, 0, err,
                                     sizeof(err)), 0);
    fflush(fp);
    rewind(fp);
    return fp;
}

static struct ftl *load(const struct ftl_config *c, FILE *fp, uint64_t now,
                        char *err, size_t errlen)
{
    rewind(fp);
    return ftl_state_load(c, fp, now, err, errlen);
}

/*
 * Run n1 steps, save, load (into a time base moved by dt), run n2 more;
 * an FTL that ran n1 + n2 steps without stopping must agree in every
 * table, counter and completion time (moved by dt).
 */
static void round_trip(const struct ftl_config *c, uint64_t n1, uint64_t n2,
                       int64_t dt, const char *what)
{
    struct ftl *ref = must_new(c), *a = must_new(c), *b;
    uint64_t rs1 = 7, rs2 = 7, t0 = 1000000000ull;
    char err[256];
    uint32_t tag;
    uint64_t len;
    FILE *fp;
    int diff = 0;

    for (uint64_t i = 0; i < n1; i++) {
        step(ref, i, t0, &rs1);
        step(a, i, t0, &rs2);
    }
    fp = save(a, t0 + n1 * 30000);
    b = load(c, fp, t0 + n1 * 30000 + dt, err, sizeof(err));
    if (!b) {
        fprintf(stderr, "%s: load: %s\n", what, err);
        test_failures++;
        goto out;
    }
    CHECK_EQ(ftl_state_next_section(fp, &tag, &len, err, sizeof(err)), 1);
    CHECK_EQ(tag, FTL_STATE_SEC_END);
    CHECK_INVARIANTS(b);
    same_state(a, b, dt);
    for (uint64_t i = n1; i < n1 + n2; i++) {
        uint64_t x = step(ref, i, t0, &rs1);
        uint64_t y = step(b, i, t0 + dt, &rs2);
        if (x == FTL_TIME_ERROR ? y != x : y != x + dt) {
            diff++;
        }
    }
    CHECK_EQ(diff, 0);
    same_state(ref, b, dt);
    CHECK_INVARIANTS(b);
    {
        struct ftl_counters cr, cb;
        ftl_get_counters(ref, &cr);
        ftl_get_counters(b, &cb);
        if (cr.gc_pages_moved == 0) {
            fprintf(stderr, "%s: the workload never collected a line\n",
                    what);
            test_failures++;
        }
        printf("# %s: host %llu gc %llu after the reload\n", what,
               (unsigned long long)cb.host_pages_written,
               (unsigned long long)cb.gc_pages_moved);
    }
    ftl_free(b);
out:
    fclose(fp);
    ftl_free(ref);
    ftl_free(a);
}

static void test_round_trips(void)
{
    struct ftl_config c;
    static const enum ftl_gc_policy pol[] = {
        FTL_GC_GREEDY, FTL_GC_COST_BENEFIT, FTL_GC_FIFO, FTL_GC_RANDOM,
        FTL_GC_DCHOICE,
    };

    for (size_t i = 0; i < sizeof(pol) / sizeof(pol[0]); i++) {
        char what[64];
        small_cfg(&c);
        c.gc_policy = pol[i];
        c.seed = 3 + i;
        snprintf(what, sizeof(what), "round trip %s",
                 ftl_gc_policy_name(pol[i]));
        round_trip(&c, 6000, 6000, 0, what);
    }
    small_cfg(&c);
    c.hot_cold_sep = true;
    c.devsz_mb = 3;
    round_trip(&c, 5000, 5000, 0, "round trip hot_cold_sep");
    small_cfg(&c);
    c.gc_own_line = true;
    c.devsz_mb = 3;
    round_trip(&c, 5000, 5000, -400000000ll, "round trip gc_own_line, "
               "earlier time base");
    small_cfg(&c);
    c.fdp_nruh = 4;
    c.devsz_mb = 2;
    c.gc_policy = FTL_GC_COST_BENEFIT;
    round_trip(&c, 5000, 5000, 5000000000ll, "round trip FDP 4 handles, "
               "later time base");
    /* save right after creation: nothing written, no line open */
    small_cfg(&c);
    round_trip(&c, 0, 6000, 0, "round trip empty");
    /* worn: factory bad blocks, lines retiring on the way, wear leveling */
    small_cfg(&c);
    c.devsz_mb = 2;
    c.nand_bad_blocks = 3;
    c.pe_cycles = 6;
    c.wear_leveling = true;
    c.wl_threshold = 2;
    round_trip(&c, 5000, 5000, 0, "round trip wear");
}


/* a saved small FTL after some GC, as bytes */
static uint8_t *saved_bytes(const struct ftl_config *c, size_t *n)
{
    struct ftl *f = must_new(c);
    uint64_t rs = 11;
    FILE *fp;
    uint8_t *b;
    long sz;

    for (uint64_t i = 0; i < 4000; i++) {
        step(f, i, 0, &rs);
    }
    fp = save(f, 4000 * 30000);
    fseek(fp, 0, SEEK_END);
    sz = ftell(fp);
    rewind(fp);
    b = malloc((size_t)sz);
    CHECK_EQ(fread(b, 1, (size_t)sz, fp), (size_t)sz);
    fclose(fp);
    ftl_free(f);
    *n = (size_t)sz;
    return b;
}

/* Load bytes; returns the FTL or NULL with the message in err. */
static struct ftl *load_bytes(const struct ftl_config *c, const uint8_t *b,
                              size_t n, char *err, size_t errlen)
{
    FILE *fp = tmpfile();
    struct ftl *f;

    if (n) {
        CHECK_EQ(fwrite(b, 1, n, fp), n);
    }
    rewind(fp);
    f = ftl_state_load(c, fp, 0, err, errlen);
    if (f) {
        /* a complete file goes on with its END section */
        uint32_t tag;
        uint64_t len;
        if (ftl_state_next_section(fp, &tag, &len, err, errlen) != 1 ||
            tag != FTL_STATE_SEC_END ||
            ftl_state_skip_payload(fp, tag, len, err, errlen) != 0) {
            ftl_free(f);
            f = NULL;
        }
    }
    fclose(fp);
    return f;
}

static void expect_refused(const struct ftl_config *c, const uint8_t *b,
                           size_t n, const char *needle, const char *what)
{
    char err[256] = "";
    struct ftl *f = load_bytes(c, b, n, err, sizeof(err));

    if (f) {
        fprintf(stderr, "%s: loaded\n", what);
        test_failures++;
        ftl_free(f);
        return;
    }
    CHECK(strchr(err, '\n') == NULL);
    if (!strstr(err, needle)) {
        fprintf(stderr, "%s: message \"%s\" lacks \"%s\"\n", what, err,
                needle);
        test_failures++;
    }
}

/* Bytes of the version 7 per-namespace counters that end the FTL
 * section's payload (docs/state.md): 8 fixed, 24 per range slot. */
#define NSS_LEN (8 + 24 * FTL_MAX_NS_RANGES)

/* Bytes after the mapping table: the version 4 wear block (46 fixed,
 * then 5 per line) and the version 7 counters, what a version 3 file
 * lacks. */
static size_t after_map_len(const struct ftl_config *c)
{
    return 46 + 5 * (size_t)c->blks_per_pl + NSS_LEN;
}

/* the FTL section's CRC after a change of its payload */
static void fix_crc(uint8_t *b, size_t n)
{
    uint64_t len = 0;
    uint32_t crc;

    for (int i = 0; i < 8; i++) {
        len |= (uint64_t)b[24 + i] << (8 * i);
    }
    if (32 + len + 4 > n) {
        return;
    }
    crc = ftl_crc32c(0, b + 16, 16 + (size_t)len);
    for (int i = 0; i < 4; i++) {
        b[32 + len + i] = (uint8_t)(crc >> (8 * i));
    }
}

/*
 * A file of an older format from a newer one: cut the k bytes that end
 * the FTL section's payload (before its CRC and the 20-byte END
 * section), then fix the section's length, the version and the CRC.
 */
static void cut_ftl_tail(uint8_t *b, size_t *n, size_t k, uint8_t version)
{
    uint64_t len = 0;

    for (int i = 0; i < 8; i++) {
        len |= (uint64_t)b[24 + i] << (8 * i);
    }
    memmove(b + *n - 24 - k, b + *n - 24, 24);
    *n -= k;
    len -= k;
    for (int i = 0; i < 8; i++) {
        b[24 + i] = (uint8_t)(len >> (8 * i));
    }
    b[8] = version;
    fix_crc(b, *n);
}

static void test_mismatch(void)
{
    /* refused with "<name> is <was> in the state file but <now> here" */
    static const struct {
        struct cfg_set set;
        const char *was, *now;
        const char *name;   /* NULL: the field's */
    } mismatch[] = {
        { CFG_SET(nchs, 4), "2", "4" },
        { CFG_SET(luns_per_ch, 4), "2", "4" },
        { CFG_SET(pls_per_lun, 2), "1", "2" },
        { CFG_SET(blks_per_pl, 64), "32", "64" },
        { CFG_SET(pgs_per_blk, 32), "16", "32" },
        { CFG_SET(secsz, 4096), "512", "4096" },
        { CFG_SET(secs_per_pg, 16), "8", "16" },
        { CFG_SET(devsz_mb, 3), "4", "3" },
        { CFG_SET(op_pcent, 50), "unset", "50" },
        { CFG_SET(gc_thres_pcent, 60), "75", "60" },
        { CFG_SET(gc_thres_pcent_high, 90), "95", "90" },
        { CFG_SET(gc_policy, FTL_GC_FIFO), "greedy", "fifo" },
        { CFG_SET(hot_cold_sep, true), "off", "on" },
        { CFG_SET(gc_own_line, true), "off", "on" },
        { CFG_SET(fdp_nruh, 2), "0", "2", "fdp.nruh" },
    };
    struct ftl_config c, d;
    size_t n;
    uint8_t *b;
    struct ftl *f;
    char err[256];

    small_cfg(&c);
    b = saved_bytes(&c, &n);
    f = load_bytes(&c, b, n, err, sizeof(err));
    CHECK(f != NULL);
    ftl_free(f);
    /* the NAND latencies and the seed may differ */
    d = c;
    d.pg_wr_lat = 100000;
    d.seed = 99;
    f = load_bytes(&d, b, n, err, sizeof(err));
    CHECK(f != NULL);
    ftl_free(f);

    for (size_t i = 0; i < sizeof(mismatch) / sizeof(mismatch[0]); i++) {
        const char *name = mismatch[i].name ? mismatch[i].name
                                            : mismatch[i].set.name;
        char msg[128];

        snprintf(msg, sizeof(msg), "%s is %s in the state file but %s here",
                 name, mismatch[i].was, mismatch[i].now);
        d = c;
        cfg_apply(&d, &mismatch[i].set);
        expect_refused(&d, b, n, msg, mismatch[i].set.name);
    }
    free(b);
}

static void test_damage(void)
{
    struct ftl_config c;
    size_t n;
    uint8_t *b, *m;
    uint64_t rs = 5;
    int loaded = 0;

    small_cfg(&c);
    b = saved_bytes(&c, &n);
    m = malloc(n);

    expect_refused(&c, b, 0, "not a FEMU state file", "empty file");
    memcpy(m, b, n);
    memcpy(m, "QFI\xfb", 4);
    expect_refused(&c, m, n, "not a FEMU state file (no FEMUSTAT magic)",
                   "foreign file");
    memcpy(m, b, n);
    m[8] = FTL_STATE_VERSION + 1;
    {
        char want[64];

        snprintf(want, sizeof(want), "format version %u",
                 FTL_STATE_VERSION + 1);
        expect_refused(&c, m, n, want, "newer version");
    }
    /* every truncation */
    for (size_t k = 1; k < n; k += (k < 64 ? 1 : 97)) {
        expect_refused(&c, b, k, k < 16 ? "not a FEMU state file" :
                       "truncated state file", "truncated");
    }
    expect_refused(&c, b, n - 20, "truncated state file (no END section)",
                   "END missing");
    /* a flipped bit anywhere in the FTL section fails its checksum */
    for (size_t k = 32; k < n - 20; k += 131) {
        memcpy(m, b, n);
        m[k] ^= 0x10;
        expect_refused(&c, m, n, "corrupted state file", "flipped bit");
    }
    /* with the checksum fixed up, the structure checks catch it: the last
     * logical page mapped to the NAND page of the first */
    memcpy(m, b, n);
    {
        size_t map_end = n - 20 - 4 - after_map_len(&c);
        size_t first = map_end - 4 * (size_t)(c.devsz_mb * 256);
        memcpy(m + map_end - 4, m + first, 4);
        fix_crc(m, n);
        expect_refused(&c, m, n, "cannot hold it", "duplicate mapping");
    }
    /* random damage with a valid checksum: refused or consistent, never
     * a crash (the fuzz harness does this at length) */
    for (int it = 0; it < 3000; it++) {
        char err[256];
        struct ftl *f;
        memcpy(m, b, n);
        for (int j = 0; j < 1 + it % 4; j++) {
            uint64_t r = trand(&rs);
            size_t off = 32 + (size_t)(r % (n - 56));
            m[off] = (uint8_t)(r >> 32);
        }
        fix_crc(m, n);
        f = load_bytes(&c, m, n, err, sizeof(err));
        if (f) {
            loaded++;
            CHECK_INVARIANTS(f);
            for (uint64_t i = 0; i < 200; i++) {
                step(f, i, 0, &rs);
            }
            CHECK_INVARIANTS(f);
            ftl_free(f);
        }
    }
    printf("# random damage with fixed checksum: %d of 3000 still loaded "
           "(counters, clocks or timing only)\n", loaded);
    free(m);
    free(b);
}

static void put64le(uint8_t *b, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        b[i] = (uint8_t)(v >> (8 * i));
    }
}

/*
 * Crafted clocks with valid checksums: a LUN or channel busy more than
 * FTL_STATE_MAX_BUSY_NS after the clock of the save, or an FDP event dated
 * after it, is refused; a LUN busy 10 s after it is kept (queued work)
 * and delays the next operation on that LUN by those 10 s.
 */
static void test_clocks(void)
{
    const uint64_t saved = 4000 * 30000ull;   /* saved_bytes's clock */
    const uint64_t sec = 1000000000ull;
    struct ftl_config c;
    size_t n, now_off = 0, lun_off, ch_off, ev_off;
    uint8_t *b, *m;
    char err[256];
    struct ftl *f;

    small_cfg(&c);
    b = saved_bytes(&c, &n);
    m = malloc(n);
    /* the saved clock is the first u64 of the payload equal to it */
    for (size_t k = 32; k + 8 <= n; k++) {
        uint64_t v = 0;
        for (int i = 7; i >= 0; i--) {
            v = v << 8 | b[k + i];
        }
        if (v == saved) {
            now_off = k;
            break;
        }
    }
    CHECK(now_off != 0);
    /* saved clock, logical clock, RNG, 10 counters, delay mode, GC delay */
    lun_off = now_off + 8 + 8 + 8 + 10 * 8 + 2;
    ch_off = lun_off + 8 * (size_t)c.nchs * c.luns_per_ch;
    ev_off = ch_off + 8 * (size_t)c.nchs + 8;   /* ring head and count */

    memcpy(m, b, n);
    put64le(m + lun_off, saved + 100 * 365 * 24 * 3600ull * sec);
    fix_crc(m, n);
    expect_refused(&c, m, n, "(LUN 0 busy until 3153600000000000000 ns "
                   "after the saved clock, more than 3600 s)",
                   "LUN 100 years ahead");
    memcpy(m, b, n);
    put64le(m + ch_off + 8, saved + FTL_STATE_MAX_BUSY_NS + 1);
    fix_crc(m, n);
    expect_refused(&c, m, n, "channel 1 busy until 3600000000001 ns", "channel 1 h "
                   "ahead");
    memcpy(m, b, n);
    put64le(m + ev_off + 5 * 25 + 17, saved + 1);
    fix_crc(m, n);
    expect_refused(&c, m, n, "FDP event slot 5 dated 1 ns after",
                   "event after the save");

    /* exactly the bound: still loaded */
    memcpy(m, b, n);
    put64le(m + ch_off + 8, saved + FTL_STATE_MAX_BUSY_NS);
    fix_crc(m, n);
    f = load_bytes(&c, m, n, err, sizeof(err));
    CHECK(f != NULL);
    ftl_free(f);
    /* within the bound: loaded, and the LUN keeps its queued work */
    memcpy(m, b, n);
    for (uint32_t i = 0; i < c.nchs * c.luns_per_ch; i++) {
        put64le(m + lun_off + 8 * i, saved + 10 * sec);
    }
    fix_crc(m, n);
    f = load_bytes(&c, m, n, err, sizeof(err));
    CHECK(f != NULL);
    if (f) {
        uint64_t t = ftl_write(f, 0, f->blocks_per_page, FTL_PID_NONE, 0);
        CHECK(t >= 10 * sec && t < 11 * sec);
        ftl_free(f);
    } else {
        fprintf(stderr, "clocks within the bound: %s\n", err);
    }
    free(m);
    free(b);
}

/*
 * A file of format version 1 (written before the NAND and cache models)
 * loads: made here from a version 2 file by cutting the models out of
 * the configuration block (the 102 bytes of the version 1 fields come
 * first) and fixing the length, version and checksum.  The models are
 * recorded: a version 2 file of a TLC device with a cache keeps them, and
 * loading it under other models is allowed (they are not compared).
 */
static void test_version1(void)
{
    enum { BASE = 102, V2 = 116 };
    struct ftl_config c, tlc;
    size_t n;
    uint8_t *b, *m;
    uint64_t len = 0;
    char err[256] = "";
    struct ftl *f;

    small_cfg(&c);
    b = saved_bytes(&c, &n);
    /* a version 3 file: less its wear block and per-namespace counters */
    cut_ftl_tail(b, &n, after_map_len(&c), 3);
    for (int i = 0; i < 8; i++) {
        len |= (uint64_t)b[24 + i] << (8 * i);
    }
    m = malloc(n);
    memcpy(m, b, 32 + BASE);
    memcpy(m + 32 + BASE, b + 32 + BASE + V2, n - (32 + BASE + V2));
    m[8] = 1;
    len -= V2;
    for (int i = 0; i < 8; i++) {
        m[24 + i] = (uint8_t)(len >> (8 * i));
    }
    fix_crc(m, n - V2);
    f = load_bytes(&c, m, n - V2, err, sizeof(err));
    CHECK(f != NULL);
    if (!f) {
        fprintf(stderr, "version 1 file refused: %s\n", err);
    } else {
        CHECK_INVARIANTS(f);
        CHECK_EQ(ftl_config_of(f)->nand_cell_type, 0);
        ftl_free(f);
    }
    /* the version 1 body under a version 2 header: refused (the models
     * read from the wrong bytes, or the section is too short) */
    m[8] = 2;
    fix_crc(m, n - V2);
    expect_refused(&c, m, n - V2, "state file", "v1 body, v2 tag");
    /* the version 2 block records the models (cell type 3 at offset 0 of
     * the models, read_cache_mb after 84 bytes) */
    tlc = c;
    tlc.nand_cell_type = FTL_CELL_TLC;
    tlc.read_cache_mb = 1;
    free(b);
    b = saved_bytes(&tlc, &n);
    CHECK_EQ(b[32 + BASE], 3);
    CHECK_EQ(b[32 + BASE + 84], 1);
    f = load_bytes(&c, b, n, err, sizeof(err));
    CHECK(f != NULL);
    ftl_free(f);
    free(b);
    free(m);
}


/*
 * Generations (format 3): a base with chunks 0-2, an appended generation
 * that rewrites chunk 0 and trims chunk 1, a second that writes chunk 3.
 * The reader applies them in order and loads the last FTL; a file cut
 * anywhere inside the last generation loads the one before with its
 * data (a save killed half way); a generation that does not end with
 * its own END is refused with one line.
 */
#define GEN_CHUNKS 8
struct gen_view {
    uint8_t data[GEN_CHUNKS];   /* first byte of each chunk, 0: none */
    uint32_t trims;
};

static void gv_data(void *o, uint64_t c, const uint8_t *b, uint64_t off)
{
    ((struct gen_view *)o)->data[c] = b[0];
}

static void gv_trim(void *o, uint64_t first, uint64_t n)
{
    struct gen_view *v = o;

    memset(v->data + first, 0, n);
    v->trims++;
}

static void put_data(FILE *fp, uint64_t c, uint8_t v)
{
    uint8_t b[8 + FTL_STATE_DATA_REC] = { 0 };
    char err[256];

    put64le(b, FTL_STATE_CHUNK | 1ull << 32);
    put64le(b + 8, c);
    memset(b + 16, v, FTL_STATE_CHUNK);
    CHECK_EQ(ftl_state_write_section(fp, FTL_STATE_SEC_DATA, b, sizeof(b),
                                     err, sizeof(err)), 0);
}

static void put_trim(FILE *fp, uint64_t first, uint64_t n)
{
    uint8_t b[24];
    char err[256];

    put64le(b, 1);
    put64le(b + 8, first);
    put64le(b + 16, n);
    CHECK_EQ(ftl_state_write_section(fp, FTL_STATE_SEC_TRIM, b, sizeof(b),
                                     err, sizeof(err)), 0);
}

static struct ftl *read_gens(const struct ftl_config *c, const uint8_t *b,
                             size_t n, struct gen_view *v,
                             struct ftl_state_info *info, char *err,
                             size_t errlen)
{
    struct ftl_state_sink sink = {
        .opaque = v, .nchunks = GEN_CHUNKS, .data = gv_data, .trim = gv_trim,
    };
    FILE *fp = fmemopen((void *)b, n, "rb");
    struct ftl *f;

    memset(v, 0, sizeof(*v));
    f = ftl_state_read_file(c, fp, 0, &sink, info, err, errlen);
    fclose(fp);
    return f;
}

static void test_generations(void)
{
    struct ftl_config c;
    struct ftl *f, *g;
    struct ftl_state_gen gen;
    struct ftl_state_info info;
    struct gen_view v;
    uint64_t rs = 3, ends[3];
    char err[256];
    uint8_t *b;
    size_t n;
    FILE *fp = tmpfile();

    small_cfg(&c);
    f = must_new(&c);
    for (uint64_t i = 0; i < 2000; i++) {
        step(f, i, 0, &rs);
    }
    CHECK_EQ(ftl_state_gen_begin(&gen, fp, 0, err, sizeof(err)), 0);
    CHECK_EQ(ftl_state_save(f, 0, fp, err, sizeof(err)), 0);
    put_data(fp, 0, 0xa0);
    put_data(fp, 1, 0xa1);
    put_data(fp, 2, 0xa2);
    CHECK_EQ(ftl_state_gen_end(&gen, err, sizeof(err)), 0);
    ends[0] = gen.start + gen.bytes;
    for (uint64_t i = 2000; i < 3000; i++) {
        step(f, i, 0, &rs);
    }
    CHECK_EQ(ftl_state_gen_begin(&gen, fp, 1, err, sizeof(err)), 0);
    CHECK_EQ(gen.start, ends[0]);
    CHECK_EQ(ftl_state_save(f, 0, fp, err, sizeof(err)), 0);
    put_data(fp, 0, 0xb0);
    put_trim(fp, 1, 1);
    CHECK_EQ(ftl_state_gen_end(&gen, err, sizeof(err)), 0);
    ends[1] = gen.start + gen.bytes;
    for (uint64_t i = 3000; i < 4000; i++) {
        step(f, i, 0, &rs);
    }
    CHECK_EQ(ftl_state_gen_begin(&gen, fp, 2, err, sizeof(err)), 0);
    CHECK_EQ(ftl_state_save(f, 0, fp, err, sizeof(err)), 0);
    put_data(fp, 3, 0xc3);
    CHECK_EQ(ftl_state_gen_end(&gen, err, sizeof(err)), 0);
    ends[2] = gen.start + gen.bytes;
    n = (size_t)ftell(fp);
    CHECK_EQ(n, ends[2]);
    b = malloc(n);
    rewind(fp);
    CHECK_EQ(fread(b, 1, n, fp), n);
    fclose(fp);

    /* all three: the last FTL, the data merged in order */
    g = read_gens(&c, b, n, &v, &info, err, sizeof(err));
    CHECK(g != NULL);
    if (g) {
        CHECK_EQ(info.gens, 3);
        CHECK_EQ(info.end, ends[2]);
        CHECK_EQ(info.torn, 0);
        CHECK_EQ(g->ctr.host_pages_written, f->ctr.host_pages_written);
        CHECK(memcmp(g->maptbl, f->maptbl, f->lpages * 4ull) == 0);
        CHECK_EQ(v.data[0], 0xb0);
        CHECK_EQ(v.data[1], 0);
        CHECK_EQ(v.data[2], 0xa2);
        CHECK_EQ(v.data[3], 0xc3);
        CHECK_EQ(v.trims, 1);
        ftl_free(g);
    }
    /* cut anywhere in generation 2: generations 0 and 1 load */
    for (size_t cut = ends[1]; cut < ends[2]; cut += 97) {
        g = read_gens(&c, b, cut, &v, &info, err, sizeof(err));
        CHECK(g != NULL);
        if (!g) {
            fprintf(stderr, "cut at %zu: %s\n", cut, err);
            break;
        }
        CHECK_EQ(info.gens, 2);
        CHECK_EQ(info.end, ends[1]);
        CHECK_EQ(info.torn, cut - ends[1]);
        CHECK_EQ(v.data[0], 0xb0);
        CHECK_EQ(v.data[1], 0);
        CHECK_EQ(v.data[3], 0);
        ftl_free(g);
    }
    /* cut in generation 1: the base alone, with its data */
    g = read_gens(&c, b, (size_t)(ends[0] + (ends[1] - ends[0]) / 2), &v,
                  &info, err, sizeof(err));
    CHECK(g != NULL);
    if (g) {
        CHECK_EQ(info.gens, 1);
        CHECK_EQ(v.data[0], 0xa0);
        CHECK_EQ(v.data[1], 0xa1);
        CHECK_EQ(v.data[3], 0);
        ftl_free(g);
    }
    /* a flipped byte in the last generation: it is torn, not used */
    b[ends[2] - 100] ^= 0x40;
    g = read_gens(&c, b, n, &v, &info, err, sizeof(err));
    CHECK(g != NULL && info.gens == 2 && v.data[3] == 0);
    ftl_free(g);
    b[ends[2] - 100] ^= 0x40;
    /* generation 2's END naming generation 5: refused */
    {
        uint8_t *m = malloc(n);
        size_t e = (size_t)ends[2] - 36;
        uint32_t crc;

        memcpy(m, b, n);
        put64le(m + e + 16, 5);
        crc = ftl_crc32c(0, m + e, 32);
        for (int i = 0; i < 4; i++) {
            m[e + 32 + i] = (uint8_t)(crc >> (8 * i));
        }
        g = read_gens(&c, m, n, &v, &info, err, sizeof(err));
        CHECK(g == NULL);
        CHECK_STR(err, "corrupted state file (generation 2 of");
        CHECK(strchr(err, '\n') == NULL);
        ftl_free(g);
        free(m);
    }
    free(b);
    ftl_free(f);
}

/*
 * Several namespaces (format 5): an NS section makes the DATA and TRIM
 * records after it, up to the generation's END, its namespace's; each
 * generation starts with namespace 1's.  A sink with ns_data gets them
 * all with their NSID; one without gets namespace 1's alone.  Records
 * beyond the NS section's namespace and impossible NS headers are
 * refused.
 */
struct ns_view {
    uint8_t data[2][GEN_CHUNKS];
    uint32_t ns_sections;
};

static void nv_data(void *o, uint32_t nsid, uint64_t c, const uint8_t *b,
                    uint64_t off)
{
    ((struct ns_view *)o)->data[nsid - 1][c] = b[0];
}

static void nv_trim(void *o, uint32_t nsid, uint64_t first, uint64_t n)
{
    memset(((struct ns_view *)o)->data[nsid - 1] + first, 0, n);
}

static int nv_section(void *o, uint32_t tag, const uint8_t *p, uint64_t len,
                      uint32_t gen, char *err, size_t errlen)
{
    if (tag == FTL_STATE_SEC_NS) {
        ((struct ns_view *)o)->ns_sections++;
    }
    return 0;
}

static void put_ns(FILE *fp, uint32_t nsid, uint32_t count, uint64_t chunks)
{
    uint8_t b[FTL_STATE_NS_LEN] = { 0 };
    char err[256];

    put64le(b, nsid | (uint64_t)count << 32);
    put64le(b + 8, chunks);
    CHECK_EQ(ftl_state_write_section(fp, FTL_STATE_SEC_NS, b, sizeof(b),
                                     err, sizeof(err)), 0);
}

static uint8_t *ns_file(const struct ftl *f, uint64_t ns2_chunks,
                        uint64_t bad_chunk, uint32_t bad_nsid, size_t *n)
{
    struct ftl_state_gen gen;
    char err[256];
    FILE *fp = tmpfile();
    uint8_t *b;

    CHECK_EQ(ftl_state_gen_begin(&gen, fp, 0, err, sizeof(err)), 0);
    CHECK_EQ(ftl_state_save(f, 0, fp, err, sizeof(err)), 0);
    put_data(fp, 0, 0xa0);                  /* namespace 1, no NS yet */
    put_ns(fp, bad_nsid ? bad_nsid : 2, 2, ns2_chunks);
    put_data(fp, 1, 0xb1);
    put_data(fp, bad_chunk ? bad_chunk : 3, 0xb3);
    CHECK_EQ(ftl_state_gen_end(&gen, err, sizeof(err)), 0);
    CHECK_EQ(ftl_state_gen_begin(&gen, fp, 1, err, sizeof(err)), 0);
    CHECK_EQ(ftl_state_save(f, 0, fp, err, sizeof(err)), 0);
    put_data(fp, 2, 0xa2);                  /* namespace 1 again */
    put_ns(fp, 1, 2, GEN_CHUNKS);
    put_trim(fp, 0, 1);
    put_ns(fp, 2, 2, ns2_chunks);
    put_trim(fp, 1, 1);
    put_data(fp, 0, 0xb0);
    CHECK_EQ(ftl_state_gen_end(&gen, err, sizeof(err)), 0);
    *n = (size_t)ftell(fp);
    b = malloc(*n);
    rewind(fp);
    CHECK_EQ(fread(b, 1, *n, fp), *n);
    fclose(fp);
    return b;
}

static void test_namespaces(void)
{
    struct ftl_config c;
    struct ftl *f, *g;
    struct ftl_state_info info;
    struct ns_view v = { 0 };
    struct gen_view gv;
    struct ftl_state_sink sink = {
        .opaque = &v, .nchunks = GEN_CHUNKS, .ns_data = nv_data,
        .ns_trim = nv_trim, .section = nv_section,
    };
    uint64_t rs = 9;
    char err[256];
    uint8_t *b;
    size_t n;
    FILE *fp;

    small_cfg(&c);
    f = must_new(&c);
    for (uint64_t i = 0; i < 500; i++) {
        step(f, i, 0, &rs);
    }
    b = ns_file(f, 4, 0, 0, &n);
    fp = fmemopen(b, n, "rb");
    g = ftl_state_read_file(&c, fp, 0, &sink, &info, err, sizeof(err));
    fclose(fp);
    CHECK(g != NULL);
    CHECK_EQ(info.gens, 2);
    CHECK_EQ(v.ns_sections, 3);
    /* namespace 1: chunk 0 written then trimmed, chunk 2 written */
    CHECK_EQ(v.data[0][0], 0);
    CHECK_EQ(v.data[0][1], 0);
    CHECK_EQ(v.data[0][2], 0xa2);
    CHECK_EQ(v.data[0][3], 0);
    /* namespace 2: its own chunks, chunk 1 trimmed */
    CHECK_EQ(v.data[1][0], 0xb0);
    CHECK_EQ(v.data[1][1], 0);
    CHECK_EQ(v.data[1][2], 0);
    CHECK_EQ(v.data[1][3], 0xb3);
    ftl_free(g);
    /* a reader of one namespace: namespace 1's records only */
    g = read_gens(&c, b, n, &gv, &info, err, sizeof(err));
    CHECK(g != NULL);
    CHECK_EQ(gv.data[0], 0);
    CHECK_EQ(gv.data[1], 0);
    CHECK_EQ(gv.data[2], 0xa2);
    CHECK_EQ(gv.data[3], 0);
    ftl_free(g);
    free(b);
    /* namespace 2 has 4 chunks: a record of chunk 5 is beyond it, though
     * namespace 1 has 8 */
    b = ns_file(f, 4, 5, 0, &n);
    g = read_gens(&c, b, n, &gv, &info, err, sizeof(err));
    CHECK(g == NULL);
    CHECK_STR(err, "corrupted state file (data chunk 5 beyond the 4-chunk "
              "namespace of an NS section)");
    free(b);
    /* NSID 3 of 2 namespaces */
    b = ns_file(f, 4, 0, 3, &n);
    g = read_gens(&c, b, n, &gv, &info, err, sizeof(err));
    CHECK(g == NULL);
    CHECK_STR(err, "corrupted state file (NS section of 64 bytes: namespace "
              "3 of 2)");
    free(b);
    ftl_free(f);
}

/*
 * A version 2 file (before wear was kept) loads with every erase count
 * 0 and no line retired: made from a version 4 file by cutting the wear
 * block.  Loading it with factory bad blocks configured is a mismatch.
 */
static void test_version2(void)
{
    struct ftl_config c;
    size_t n;
    uint8_t *b;
    char err[256] = "";
    struct ftl *f;
    struct ftl_wear_info w;

    small_cfg(&c);
    b = saved_bytes(&c, &n);
    cut_ftl_tail(b, &n, after_map_len(&c), 2);
    f = load_bytes(&c, b, n, err, sizeof(err));
    CHECK(f != NULL);
    if (!f) {
        fprintf(stderr, "version 2 file refused: %s\n", err);
    } else {
        CHECK_INVARIANTS(f);
        ftl_get_wear(f, &w);
        CHECK_EQ(w.erase_max, 0);
        CHECK_EQ(w.retired_lines, 0);
        CHECK_EQ(w.pct_used, 0);
        ftl_free(f);
    }
    c.nand_bad_blocks = 1;
    expect_refused(&c, b, n, "nand_bad_blocks is 0 in the state file but 1 "
                   "here", "v2 file, bad blocks here");
    /* a version 4 body under a version 2 header is refused */
    free(b);
    small_cfg(&c);
    b = saved_bytes(&c, &n);
    b[8] = 2;
    expect_refused(&c, b, n, "corrupted state file", "v4 body, v2 tag");
    free(b);
}

/*
 * The per-namespace counters (format 7) survive a save and a load, and
 * the device's ranges set again afterwards keep them.  A version 6 file
 * (made by cutting them out) loads with them off, and a file whose
 * ranges are out of order is refused.
 */
static void test_ns_counters(void)
{
    struct ftl_config c;
    struct ftl *f, *g;
    struct ftl_ns_counters a[2], b[2];
    uint64_t first[2], rs = 5;
    char err[256] = "";
    FILE *fp;
    uint8_t *m;
    long sz;
    size_t n;

    small_cfg(&c);
    f = must_new(&c);
    first[0] = 0;
    first[1] = f->ns_blocks / 2 / f->blocks_per_page * f->blocks_per_page;
    CHECK_EQ(ftl_set_ns_ranges(f, 2, first, err, sizeof(err)), 0);
    for (uint64_t i = 0; i < 4000; i++) {
        step(f, i, 0, &rs);
    }
    CHECK_EQ(ftl_get_ns_counters(f, 0, &a[0]), 0);
    CHECK_EQ(ftl_get_ns_counters(f, 1, &a[1]), 0);
    /* the workload wrote both halves and made GC move pages */
    CHECK(a[0].host_pages_written > 0 && a[1].host_pages_written > 0);
    CHECK(a[0].gc_pages_moved + a[1].gc_pages_moved > 0);
    fp = save(f, 4000 * 30000);
    g = ftl_state_load(&c, fp, 4000 * 30000, err, sizeof(err));
    CHECK(g != NULL);
    if (g) {
        same_state(f, g, 0);
        /* the device sets its ranges again after loading: kept */
        CHECK_EQ(ftl_set_ns_ranges(g, 2, first, err, sizeof(err)), 0);
        CHECK_EQ(ftl_get_ns_counters(g, 0, &b[0]), 0);
        CHECK_EQ(ftl_get_ns_counters(g, 1, &b[1]), 0);
        CHECK_EQ(b[0].host_pages_written, a[0].host_pages_written);
        CHECK_EQ(b[1].host_pages_written, a[1].host_pages_written);
        CHECK_EQ(b[0].gc_pages_moved, a[0].gc_pages_moved);
        CHECK_EQ(b[1].gc_pages_moved, a[1].gc_pages_moved);
        ftl_free(g);
    }
    fseek(fp, 0, SEEK_END);
    sz = ftell(fp);
    rewind(fp);
    n = (size_t)sz;
    m = malloc(n);
    CHECK_EQ(fread(m, 1, n, fp), n);
    fclose(fp);
    ftl_free(f);

    /* ranges out of order: refused as corrupted (range 1's first page
     * is at the start of the counters' block, 8 + 24 bytes in) */
    {
        uint8_t *bad = malloc(n);
        size_t at = n - 24 - NSS_LEN + 8 + 24;

        memcpy(bad, m, n);
        memset(bad + at, 0, 8);
        fix_crc(bad, n);
        expect_refused(&c, bad, n, "namespace counter ranges",
                       "ranges out of order");
        free(bad);
    }

    /* version 6: the same file less the counters */
    cut_ftl_tail(m, &n, NSS_LEN, 6);
    g = load_bytes(&c, m, n, err, sizeof(err));
    CHECK(g != NULL);
    if (!g) {
        fprintf(stderr, "version 6 file refused: %s\n", err);
    } else {
        CHECK_EQ(g->nss.n, 0);
        CHECK_EQ(ftl_set_ns_ranges(g, 2, first, err, sizeof(err)), 0);
        CHECK_EQ(ftl_get_ns_counters(g, 1, &b[1]), 0);
        CHECK_EQ(b[1].host_pages_written, 0);
        ftl_free(g);
    }
    free(m);
}

int main(void)
{
    RUN(test_round_trips);
    RUN(test_mismatch);
    RUN(test_damage);
    RUN(test_version1);
    RUN(test_version2);
    RUN(test_ns_counters);
    RUN(test_clocks);
    RUN(test_generations);
    RUN(test_namespaces);
    return test_done("test-state");
}
