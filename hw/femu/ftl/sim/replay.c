/*
 * femu-sim --replay: the device's I/O traces (docs/trace.md) and the
 * public block-trace formats, applied to the FTL as the device applies
 * commands (ftl_iotrace_apply).
 *
 * Public formats are parsed into a list of requests in bytes first (so
 * that --replay-offsets=scale knows the trace's address space), then
 * mapped onto the namespace's logical blocks: a request covers the
 * blocks its bytes touch.  The femu format is replayed straight from the
 * mapped file.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"

static const char *const fmt_names[] = {
    [SIM_REPLAY_FEMU] = "femu",
    [SIM_REPLAY_MSR] = "msr",
    [SIM_REPLAY_BLKPARSE] = "blkparse",
    [SIM_REPLAY_IOLOG] = "iolog",
};

static const char *const map_names[] = {
    [SIM_REPLAY_EXACT] = "exact",
    [SIM_REPLAY_WRAP] = "wrap",
    [SIM_REPLAY_SCALE] = "scale",
};

const char *sim_replay_fmt_name(enum sim_replay_fmt f)
{
    return fmt_names[f];
}

static int pick(const char *opt, const char *v, const char *const *names,
                int n)
{
    for (int i = 0; i < n; i++) {
        if (!strcmp(v, names[i])) {
            return i;
        }
    }
    fprintf(stderr, "femu-sim: %s=%s: one of", opt, v);
    for (int i = 0; i < n; i++) {
        fprintf(stderr, " %s", names[i]);
    }
    fprintf(stderr, "\n");
    return -1;
}

int sim_replay_option(struct sim_replay_opts *o, const char *a)
{
    int x;

    if (!o->blk_event) {
        o->blk_event = 'D';
    }
    if (!strncmp(a, "--replay=", 9)) {
        o->path = a + 9;
        if (!*o->path) {
            fprintf(stderr, "femu-sim: --replay needs a file\n");
            return -1;
        }
    } else if (!strncmp(a, "--replay-format=", 16)) {
        x = pick("--replay-format", a + 16, fmt_names, 4);
        if (x < 0) {
            return -1;
        }
        o->fmt = (enum sim_replay_fmt)x;
    } else if (!strncmp(a, "--replay-offsets=", 17)) {
        x = pick("--replay-offsets", a + 17, map_names, 3);
        if (x < 0) {
            return -1;
        }
        o->map = (enum sim_replay_map)x;
    } else if (!strncmp(a, "--replay-pace=", 14)) {
        static const char *const paces[] = { "fast", "trace" };

        x = pick("--replay-pace", a + 14, paces, 2);
        if (x < 0) {
            return -1;
        }
        o->pace_trace = x == 1;
    } else if (!strncmp(a, "--replay-event=", 15)) {
        if (strcmp(a + 15, "D") && strcmp(a + 15, "Q")) {
            fprintf(stderr, "femu-sim: %s: D (dispatch) or Q (queue)\n", a);
            return -1;
        }
        o->blk_event = a[15];
    } else if (!strncmp(a, "--record=", 9)) {
        o->record = a + 9;
        if (!*o->record) {
            fprintf(stderr, "femu-sim: --record needs a file\n");
            return -1;
        }
    } else {
        return 0;
    }
    return 1;
}

/* The replay's state between records. */
struct rp {
    struct ftl *ftl;
    const struct sim_replay_opts *o;
    struct sim_replay_result *r;
    struct ftl_iotrace_writer *w;
    bool timing;
    uint64_t *now;
    uint64_t base;      /* *now when the replay started */
    uint64_t ns;        /* namespace blocks */
    uint32_t nruh;
    uint64_t span;      /* scale: the trace's address space, blocks */
    uint64_t bpp;       /* logical blocks per NAND page */
    char *err;
    size_t errlen;
};

static void lat_add(struct sim_replay_result *r, uint64_t lat)
{
    unsigned b = lat ? 64 - (unsigned)__builtin_clzll(lat) : 0;

    r->hist[b < SIM_REPLAY_HIST ? b : SIM_REPLAY_HIST - 1]++;
    r->lat_count++;
    r->lat_sum += lat;
    if (lat > r->lat_max) {
        r->lat_max = lat;
    }
}

static bool is_io(uint8_t op)
{
    return op == FTL_IOTRACE_READ || op == FTL_IOTRACE_WRITE ||
           op == FTL_IOTRACE_DEALLOC || op == FTL_IOTRACE_WRITE_ZEROES;
}

/* Check and apply one record whose range is already on the namespace.
 * rec_done: the trace's completion (femu format), or UINT64_MAX - 1 for
 * none.  0, or -1 with the reason in rp->err (without the record). */
static int apply_one(struct rp *rp, const struct ftl_iotrace_rec *rec,
                     const uint8_t *raw, uint64_t rec_done)
{
    struct sim_replay_result *r = rp->r;
    uint64_t at, done;

    if (ftl_iotrace_check_rec(rec, raw, rp->ns, rp->nruh, rp->err,
                              rp->errlen)) {
        return -1;
    }
    if (!rp->timing) {
        at = *rp->now;
    } else if (rp->o->pace_trace) {
        at = rp->base + rec->time_ns;
    } else {
        at = *rp->now;
    }
    done = ftl_iotrace_apply(rp->ftl, rec, at);
    if (rec->op == FTL_IOTRACE_CONTROL && rec->arg == 5) {
        r->counters_reset = true;
    }
    r->records++;
    r->ops[rec->op]++;
    if (rec->op == FTL_IOTRACE_READ || rec->op == FTL_IOTRACE_WRITE) {
        if (done == FTL_TIME_ERROR) {
            r->write_errors++;
        } else {
            if (rp->o->pace_trace) {
                lat_add(r, done - at);
                if (rec_done != UINT64_MAX - 1) {
                    r->done_checked++;
                    r->done_equal += done - rp->base == rec_done;
                }
            }
            if (rp->timing && done > *rp->now) {
                *rp->now = done; /* QD1; at trace pace: the last completion */
            }
        }
    }
    if (rp->w) {
        struct ftl_iotrace_rec x = *rec;

        x.time_ns = at - rp->base;
        x.done_ns = done == FTL_TIME_ERROR ? FTL_TIME_ERROR :
                    (x.op == FTL_IOTRACE_READ || x.op == FTL_IOTRACE_WRITE) ?
                    done - rp->base : 0;
        ftl_iotrace_writer_append(rp->w, &x);
    }
    return 0;
}

/* Map a request's blocks onto the namespace (--replay-offsets) and apply
 * it: one record, or two when wrap splits it at the end. */
static int map_apply(struct rp *rp, struct ftl_iotrace_rec *rec,
                     const uint8_t *raw, uint64_t rec_done)
{
    uint64_t ns = rp->ns;

    if (rp->o->map == SIM_REPLAY_EXACT || !is_io(rec->op)) {
        return apply_one(rp, rec, raw, rec_done);
    }
    if (rec->nlb > ns) {
        snprintf(rp->err, rp->errlen, "%s of %" PRIu32 " blocks is longer "
                 "than the namespace (%" PRIu64 " blocks)",
                 ftl_iotrace_op_name(rec->op), rec->nlb, ns);
        return -1;
    }
    if (rp->o->map == SIM_REPLAY_SCALE) {
        if (rp->span == ns) {
            return apply_one(rp, rec, raw, rec_done); /* the same space */
        }
        rec->slba = (uint64_t)((unsigned __int128)rec->slba * ns / rp->span);
        if (rec->slba + rec->nlb > ns) {
            rec->slba = ns - rec->nlb;
        }
        /* on a NAND page boundary: a page-aligned request stays aligned
         * (and programs as many pages) wherever it lands */
        rec->slba -= rec->slba % rp->bpp;
        return apply_one(rp, rec, raw, rec_done);
    }
    rec->slba %= ns;
    if (rec->slba + rec->nlb > ns) {
        struct ftl_iotrace_rec head = *rec;
        uint32_t first = (uint32_t)(ns - rec->slba);

        rp->r->wrapped++;
        head.nlb = first;
        if (head.op == FTL_IOTRACE_DEALLOC) {
            head.flags |= FTL_IOTRACE_F_MORE; /* GC once, after the tail */
        }
        if (apply_one(rp, &head, raw, UINT64_MAX - 1)) {
            return -1;
        }
        rec->slba = 0;
        rec->nlb -= first;
        rec_done = UINT64_MAX - 1;
    }
    return apply_one(rp, rec, raw, rec_done);
}

/* The femu format, straight from buf.  0, or -1 with the reason in
 * rp->err and *recno the record (1 = the first after the header; 0 = the
 * header). */
static int replay_femu(struct rp *rp, const uint8_t *buf, size_t len,
                       size_t *recno)
{
    struct ftl_iotrace_hdr h;
    struct ftl_iotrace_rec rec;
    const struct ftl_config *c = ftl_config_of(rp->ftl);
    size_t body = len > FTL_IOTRACE_HDR_SIZE ? len - FTL_IOTRACE_HDR_SIZE : 0;
    size_t n = body / FTL_IOTRACE_REC_SIZE;
    const uint8_t *p = buf + FTL_IOTRACE_HDR_SIZE;
    bool exact = rp->o->map == SIM_REPLAY_EXACT;

    *recno = 0;
    if (ftl_iotrace_decode_hdr(buf, len, &h, rp->err, rp->errlen) ||
        ftl_iotrace_check_config(&h, c, rp->err, rp->errlen)) {
        return -1;
    }
    rp->r->midrun = h.flags & FTL_IOTRACE_HF_MIDRUN;
    rp->span = h.ns_blocks;
    for (size_t i = 0; i < n; i++, p += FTL_IOTRACE_REC_SIZE) {
        *recno = i + 1;
        /* the mapping entry of a request a few records on: fetched while
         * this one runs, as the device's queue lets it */
        if (exact && i + 4 < n && p[4 * FTL_IOTRACE_REC_SIZE] <=
            FTL_IOTRACE_WRITE) {
            uint64_t s;

            memcpy(&s, p + 4 * FTL_IOTRACE_REC_SIZE + 8, sizeof(s));
            if (s < rp->ns) {
                ftl_prefetch(rp->ftl, s);
            }
        }
        ftl_iotrace_decode_rec(p, &rec);
        if (rec.op != FTL_IOTRACE_END) {
            if (map_apply(rp, &rec, p, rec.done_ns)) {
                return -1;
            }
            continue;
        }
        if (rec.slba != i) {
            snprintf(rp->err, rp->errlen, "END says %" PRIu64 " records, "
                     "the trace has %zu", rec.slba, i);
        } else if (rec.flags || rec.nsid || rec.nlb || rec.arg ||
                   rec.time_ns || rec.done_ns || p[2] || p[3]) {
            snprintf(rp->err, rp->errlen, "END record with non-zero "
                     "fields");
        } else if (i + 1 < n || body % FTL_IOTRACE_REC_SIZE) {
            *recno = i + 2;
            snprintf(rp->err, rp->errlen, "data after the END record");
        } else {
            return 0;
        }
        return -1;
    }
    *recno = n + 1;
    if (body % FTL_IOTRACE_REC_SIZE) {
        snprintf(rp->err, rp->errlen, "truncated (%zu of %d bytes)",
                 body % FTL_IOTRACE_REC_SIZE, FTL_IOTRACE_REC_SIZE);
    } else {
        snprintf(rp->err, rp->errlen, "the trace ends without its END "
                 "record (cut short, or the recording was not stopped)");
    }
    return -1;
}

/* ---- text formats ---- */

struct item {
    uint64_t off, len, t;   /* bytes, bytes, ns since the first line */
    uint32_t line;
    uint8_t op;
};

struct items {
    struct item *v;
    size_t n, cap;
};

static int items_add(struct items *it, const struct item *x)
{
    if (it->n == it->cap) {
        size_t cap = it->cap ? it->cap * 2 : 4096;
        struct item *v = realloc(it->v, cap * sizeof(*v));

        if (!v) {
            return -1;
        }
        it->v = v;
        it->cap = cap;
    }
    it->v[it->n++] = *x;
    return 0;
}

/* Split [p, end) into at most max tokens at any of seps; returns the
 * count (max + 1 when there are more).  Tokens are not terminated:
 * tok[i] and tlen[i]. */
static int split(const char *p, const char *end, const char *seps,
                 bool keep_empty, const char **tok, size_t *tlen, int max)
{
    int n = 0;

    while (p < end) {
        const char *s = p;

        while (p < end && !strchr(seps, *p)) {
            p++;
        }
        if (p > s || keep_empty) {
            if (n == max) {
                return max + 1;
            }
            tok[n] = s;
            tlen[n] = (size_t)(p - s);
            n++;
        }
        if (p < end) {
            p++;
            if (keep_empty && p == end) {
                if (n == max) {
                    return max + 1;
                }
                tok[n] = p;
                tlen[n] = 0;
                n++;
            }
        }
    }
    return n;
}

/* decimal digits only, no overflow */
static bool tok_u64(const char *s, size_t n, uint64_t *out)
{
    uint64_t x = 0;

    if (n == 0 || n > 20) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');

        if (d > 9 || x > (UINT64_MAX - d) / 10) {
            return false;
        }
        x = x * 10 + d;
    }
    *out = x;
    return true;
}

static bool tok_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && !strncasecmp(s, word, n);
}

/* "SEC.FRACTION" (blkparse's %5T.%9t) in ns */
static bool tok_secs(const char *s, size_t n, uint64_t *ns)
{
    const char *dot = memchr(s, '.', n);
    uint64_t sec, frac = 0;
    size_t fl;

    if (!dot) {
        return tok_u64(s, n, &sec) && sec < UINT64_MAX / 1000000000u &&
               (*ns = sec * 1000000000u, true);
    }
    fl = n - (size_t)(dot + 1 - s);
    if (!tok_u64(s, (size_t)(dot - s), &sec) || sec >= UINT64_MAX /
        1000000000u || fl > 9 || (fl && !tok_u64(dot + 1, fl, &frac))) {
        return false;
    }
    for (size_t i = fl; i < 9; i++) {
        frac *= 10;
    }
    *ns = sec * 1000000000u + frac;
    return true;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime; times in
 * 100 ns units (Windows FILETIME) */
static int parse_msr_line(const char *p, const char *end, struct item *x,
                          uint64_t *t0, bool *have_t0, bool first,
                          char *err, size_t errlen)
{
    const char *tok[8];
    size_t tl[8];
    uint64_t ts, disk, rt;
    int n = split(p, end, ",", true, tok, tl, 7);

    if (n != 7) {
        if (first && n > 0 && tl[0] && (tok[0][0] < '0' || tok[0][0] > '9')) {
            return 1; /* a header line */
        }
        snprintf(err, errlen, "expected 7 comma-separated fields "
                 "(Timestamp,Hostname,DiskNumber,Type,Offset,Size,"
                 "ResponseTime), got %d", n > 7 ? 8 : n);
        return -1;
    }
    if (!tok_u64(tok[0], tl[0], &ts)) {
        if (first) {
            return 1;
        }
        snprintf(err, errlen, "Timestamp '%.*s' is not a number",
                 (int)(tl[0] < 40 ? tl[0] : 40), tok[0]);
        return -1;
    }
    if (tok_is(tok[3], tl[3], "read")) {
        x->op = FTL_IOTRACE_READ;
    } else if (tok_is(tok[3], tl[3], "write")) {
        x->op = FTL_IOTRACE_WRITE;
    } else {
        snprintf(err, errlen, "Type '%.*s' is not Read or Write",
                 (int)(tl[3] < 40 ? tl[3] : 40), tok[3]);
        return -1;
    }
    if (!tok_u64(tok[2], tl[2], &disk) || !tok_u64(tok[4], tl[4], &x->off) ||
        !tok_u64(tok[5], tl[5], &x->len) || !tok_u64(tok[6], tl[6], &rt)) {
        snprintf(err, errlen, "DiskNumber, Offset, Size or ResponseTime is "
                 "not a number");
        return -1;
    }
    if (!*have_t0) {
        *t0 = ts;
        *have_t0 = true;
    }
    x->t = ts >= *t0 ? sat_mul(ts - *t0, 100) : 0;
    return 0;
}

/* blkparse's default output: "MAJ,MIN CPU SEQ SEC.NSEC PID ACTION RWBS
 * [SECTOR + COUNT] [PROCESS]"; sectors of 512 bytes. */
static int parse_blk_line(const char *p, const char *end, char event,
                          struct item *x, uint64_t *t0, bool *have_t0,
                          char *err, size_t errlen)
{
    const char *tok[12];
    size_t tl[12];
    uint64_t ts, sector = 0, count = 0, dummy;
    bool r = false, w = false, d = false, f = false;
    const char *comma;
    int n = split(p, end, " \t", false, tok, tl, 11);

    /* summary and other lines do not start with a device MAJ,MIN */
    if (n < 7 || !(comma = memchr(tok[0], ',', tl[0])) ||
        !tok_u64(tok[0], (size_t)(comma - tok[0]), &dummy) ||
        !tok_u64(comma + 1, tl[0] - (size_t)(comma + 1 - tok[0]), &dummy)) {
        return 1;
    }
    if (tl[5] != 1 || tok[5][0] != event) {
        return 1;
    }
    if (!tok_secs(tok[3], tl[3], &ts)) {
        snprintf(err, errlen, "time '%.*s' is not SECONDS.NANOSECONDS",
                 (int)(tl[3] < 40 ? tl[3] : 40), tok[3]);
        return -1;
    }
    for (size_t i = 0; i < tl[6]; i++) {
        switch (tok[6][i]) {
        case 'R':
            r = true;
            break;
        case 'W':
            w = true;
            break;
        case 'D':
            d = true;
            break;
        case 'F':
            f = true;
            break;
        case 'N': case 'S': case 'M': case 'A': case 'E': case 'B':
            break;
        default:
            snprintf(err, errlen, "RWBS '%.*s' has an unknown flag '%c'",
                     (int)(tl[6] < 40 ? tl[6] : 40), tok[6], tok[6][i]);
            return -1;
        }
    }
    if (n >= 10 && tl[8] == 1 && tok[8][0] == '+') {
        if (!tok_u64(tok[7], tl[7], &sector) ||
            !tok_u64(tok[9], tl[9], &count) || sector > UINT64_MAX / 512 ||
            count > UINT64_MAX / 512 - sector) {
            snprintf(err, errlen, "'%.*s + %.*s' is not SECTOR + COUNT",
                     (int)(tl[7] < 30 ? tl[7] : 30), tok[7],
                     (int)(tl[9] < 30 ? tl[9] : 30), tok[9]);
            return -1;
        }
    } else if (r || w || d) {
        if (!f || count) {
            snprintf(err, errlen, "%c event without SECTOR + COUNT", event);
            return -1;
        }
    }
    x->off = sector * 512;
    x->len = count * 512;
    if (d) {
        x->op = FTL_IOTRACE_DEALLOC;
    } else if (w && count) {
        x->op = FTL_IOTRACE_WRITE;
    } else if (r && count) {
        x->op = FTL_IOTRACE_READ;
    } else if (f) {
        x->op = FTL_IOTRACE_FLUSH;
        x->len = 0;
    } else {
        x->op = 0; /* nothing to do (e.g. RWBS N) */
    }
    if (!*have_t0) {
        *t0 = ts;
        *have_t0 = true;
    }
    x->t = ts >= *t0 ? ts - *t0 : 0;
    return 0;
}

/* fio iolog v2 "FILE ACTION [OFFSET LENGTH]", v3 "USEC FILE ACTION
 * [OFFSET LENGTH]" (v3 times are fio's microseconds since the start);
 * v2's "FILE wait USEC" advances *clock. */
static int parse_iolog_line(const char *p, const char *end, int ver,
                            struct item *x, uint64_t *clock, char *err,
                            size_t errlen)
{
    const char *tok[6];
    size_t tl[6];
    int n = split(p, end, " \t", false, tok, tl, 5), a = ver == 3 ? 2 : 1;
    uint64_t ts;

    if (n == 0 || tok[0][0] == '#') {
        return 1;
    }
    if (n < a + 1 || n > a + 3) {
        snprintf(err, errlen, "expected %sFILE ACTION [OFFSET LENGTH]",
                 ver == 3 ? "TIME " : "");
        return -1;
    }
    if (ver == 3) {
        if (!tok_u64(tok[0], tl[0], &ts)) {
            snprintf(err, errlen, "time '%.*s' is not a number",
                     (int)(tl[0] < 40 ? tl[0] : 40), tok[0]);
            return -1;
        }
        *clock = sat_mul(ts, 1000);
    }
    x->t = *clock;
    x->off = x->len = 0;
    if (n == a + 1) {
        if (tok_is(tok[a], tl[a], "add") || tok_is(tok[a], tl[a], "open") ||
            tok_is(tok[a], tl[a], "close")) {
            return 1;
        }
    } else if (ver == 2 && tok_is(tok[a], tl[a], "wait")) {
        uint64_t us;

        if (!tok_u64(tok[a + 1], tl[a + 1], &us)) {
            snprintf(err, errlen, "wait '%.*s' is not a number",
                     (int)(tl[a + 1] < 40 ? tl[a + 1] : 40), tok[a + 1]);
            return -1;
        }
        *clock += sat_mul(us, 1000);
        if (*clock < sat_mul(us, 1000)) {
            *clock = UINT64_MAX;
        }
        return 1;
    } else if (n == a + 3) {
        if (!tok_u64(tok[a + 1], tl[a + 1], &x->off) ||
            !tok_u64(tok[a + 2], tl[a + 2], &x->len) ||
            x->len > UINT64_MAX - x->off) {
            snprintf(err, errlen, "OFFSET or LENGTH is not a number");
            return -1;
        }
        if (tok_is(tok[a], tl[a], "read")) {
            x->op = FTL_IOTRACE_READ;
            return 0;
        } else if (tok_is(tok[a], tl[a], "write")) {
            x->op = FTL_IOTRACE_WRITE;
            return 0;
        } else if (tok_is(tok[a], tl[a], "trim")) {
            x->op = FTL_IOTRACE_DEALLOC;
            return 0;
        } else if (tok_is(tok[a], tl[a], "sync") ||
                   tok_is(tok[a], tl[a], "datasync")) {
            x->op = FTL_IOTRACE_FLUSH;
            x->len = 0;
            return 0;
        }
    }
    if (n == a + 1 && (tok_is(tok[a], tl[a], "sync") ||
                       tok_is(tok[a], tl[a], "datasync"))) {
        x->op = FTL_IOTRACE_FLUSH;
        return 0;
    }
    snprintf(err, errlen, "unknown action '%.*s'",
             (int)(tl[a] < 40 ? tl[a] : 40), tok[a]);
    return -1;
}

/* Parse a text trace into items; 0, or -1 with "line N: reason". */
static int parse_text(const struct sim_replay_opts *o, const uint8_t *buf,
                      size_t len, struct items *it, char *err, size_t errlen)
{
    const char *p = (const char *)buf, *end = p + len;
    uint64_t t0 = 0, clock = 0;
    bool have_t0 = false;
    int ver = 0;
    char why[200];

    for (uint32_t line = 1; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        struct item x = { .line = line };
        int rc;

        if (le > p && le[-1] == '\r') {
            le--;
        }
        if (memchr(p, '\0', (size_t)(le - p))) {
            snprintf(why, sizeof(why), "a NUL byte (not a text trace)");
            rc = -1;
        } else if (o->fmt == SIM_REPLAY_IOLOG && ver == 0) {
            if (le - p == 19 && !memcmp(p, "fio version 2 iolog", 19)) {
                ver = 2;
            } else if (le - p == 19 && !memcmp(p, "fio version 3 iolog", 19)) {
                ver = 3;
            } else {
                snprintf(why, sizeof(why), "not 'fio version 2 iolog' or "
                         "'fio version 3 iolog' (fio's iolog v1 is not "
                         "read)");
                snprintf(err, errlen, "line %" PRIu32 ": %s", line, why);
                return -1;
            }
            rc = 1;
        } else if (le == p) {
            rc = 1;
        } else if (o->fmt == SIM_REPLAY_MSR) {
            rc = parse_msr_line(p, le, &x, &t0, &have_t0, line == 1, why,
                                sizeof(why));
        } else if (o->fmt == SIM_REPLAY_BLKPARSE) {
            rc = parse_blk_line(p, le, o->blk_event, &x, &t0, &have_t0, why,
                                sizeof(why));
        } else {
            rc = parse_iolog_line(p, le, ver, &x, &clock, why, sizeof(why));
        }
        if (rc < 0) {
            snprintf(err, errlen, "line %" PRIu32 ": %s", line, why);
            return -1;
        }
        if (rc == 0 && items_add(it, &x) < 0) {
            snprintf(err, errlen, "line %" PRIu32 ": out of memory", line);
            return -1;
        }
        p = nl ? nl + 1 : end;
    }
    if (o->fmt == SIM_REPLAY_IOLOG && ver == 0) {
        snprintf(err, errlen, "line 1: empty file (no fio iolog header)");
        return -1;
    }
    return 0;
}

static int replay_text(struct rp *rp, const uint8_t *buf, size_t len,
                       size_t *bad_line)
{
    struct items it = { 0 };
    uint32_t secsz = ftl_config_of(rp->ftl)->secsz;
    int rc = 0;

    if (parse_text(rp->o, buf, len, &it, rp->err, rp->errlen)) {
        free(it.v);
        return -1;
    }
    rp->span = 1;
    for (size_t i = 0; i < it.n; i++) {
        uint64_t e = it.v[i].off / secsz +
                     (it.v[i].len + it.v[i].off % secsz + secsz - 1) / secsz;

        if (e > rp->span) {
            rp->span = e;
        }
    }
    for (size_t i = 0; i < it.n && !rc; i++) {
        const struct item *x = &it.v[i];
        struct ftl_iotrace_rec rec = {
            .op = x->op,
            .nsid = 1,
            .arg = x->op == FTL_IOTRACE_WRITE ? FTL_PID_NONE : 0,
            .time_ns = x->t,
        };
        uint64_t nlb;

        if (x->op == 0 || (is_io(x->op) && x->len == 0)) {
            rp->r->skipped++;
            continue;
        }
        if (is_io(x->op)) {
            rec.slba = x->off / secsz;
            nlb = (x->len + x->off % secsz + secsz - 1) / secsz;
            if (nlb > UINT32_MAX) {
                snprintf(rp->err, rp->errlen, "line %" PRIu32 ": %" PRIu64
                         " bytes in one request", x->line, x->len);
                rc = -1;
                break;
            }
            rec.nlb = (uint32_t)nlb;
        }
        if (map_apply(rp, &rec, NULL, UINT64_MAX - 1)) {
            *bad_line = x->line;
            rc = -2;
        }
    }
    free(it.v);
    return rc;
}

int sim_replay_buf(struct ftl *ftl, const struct sim_replay_opts *o,
                   const uint8_t *buf, size_t len, bool timing,
                   uint64_t *now, struct ftl_iotrace_writer *w,
                   struct sim_replay_result *r, char *err, size_t errlen)
{
    const struct ftl_config *c = ftl_config_of(ftl);
    struct ftl_fdp_event ev;
    char why[256];
    struct rp rp = {
        .ftl = ftl, .o = o, .r = r, .w = w, .timing = timing, .now = now,
        .base = *now, .ns = ftl_ns_blocks(ftl),
        .bpp = (uint64_t)c->secs_per_pg * 512 / c->secsz ?
               (uint64_t)c->secs_per_pg * 512 / c->secsz : 1,
        .nruh = c->fdp_nruh,
    };
    int rc;

    memset(r, 0, sizeof(*r));
    r->first_ns = *now;
    rp.err = why;
    rp.errlen = sizeof(why);
    why[0] = '\0';
    if (o->fmt == SIM_REPLAY_FEMU) {
        size_t recno;

        rc = replay_femu(&rp, buf, len, &recno);
        if (rc && recno) {
            snprintf(err, errlen, "record %zu: %s", recno, why);
        } else if (rc) {
            snprintf(err, errlen, "%s", why); /* the header */
        }
    } else {
        size_t line = 0;

        rc = replay_text(&rp, buf, len, &line);
        if (rc == -2) {
            snprintf(err, errlen, "line %zu: %s", line, why);
            rc = -1;
        } else if (rc) {
            snprintf(err, errlen, "%s", why);
        }
    }
    while (ftl_fdp_pop_event(ftl, &ev)) {
        r->fdp_events++;
    }
    r->last_ns = *now;
    return rc;
}

int sim_replay_header(const struct sim_replay_opts *o,
                      struct ftl_iotrace_hdr *h)
{
    uint8_t buf[FTL_IOTRACE_HDR_SIZE];
    char err[256];
    size_t n;
    FILE *f;

    if (o->fmt != SIM_REPLAY_FEMU) {
        return 1;
    }
    f = fopen(o->path, "rb");
    if (!f) {
        fprintf(stderr, "femu-sim: --replay %s: %s\n", o->path,
                strerror(errno));
        return -1;
    }
    n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    if (ftl_iotrace_decode_hdr(buf, n, h, err, sizeof(err))) {
        fprintf(stderr, "femu-sim: --replay %s: %s\n", o->path, err);
        return -1;
    }
    return 0;
}

/* A pipe or other non-regular file: read it all into memory. */
static uint8_t *read_all(int fd, size_t *len)
{
    size_t cap = 1 << 20, n = 0;
    uint8_t *buf = malloc(cap);

    while (buf) {
        ssize_t r;

        if (n == cap) {
            uint8_t *b = realloc(buf, cap * 2);

            if (!b) {
                break;
            }
            buf = b;
            cap *= 2;
        }
        r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            break;
        }
        if (r == 0) {
            *len = n;
            return buf;
        }
        n += (size_t)r;
    }
    free(buf);
    return NULL;
}

int sim_replay_file(struct ftl *ftl, const struct sim_replay_opts *o,
                    bool timing, uint64_t *now, struct ftl_iotrace_writer *w,
                    struct sim_replay_result *r)
{
    char err[512];
    struct stat st;
    void *map = NULL;
    uint8_t *copy = NULL;
    size_t len = 0;
    int fd = open(o->path, O_RDONLY), rc;

    if (fd < 0 || fstat(fd, &st) < 0) {
        fprintf(stderr, "femu-sim: --replay %s: %s\n", o->path,
                strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        copy = read_all(fd, &len);
        if (!copy) {
            fprintf(stderr, "femu-sim: --replay %s: %s\n", o->path,
                    errno ? strerror(errno) : "out of memory");
            close(fd);
            return -1;
        }
    } else if (st.st_size > 0) {
        len = (size_t)st.st_size;
        map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            fprintf(stderr, "femu-sim: --replay %s: %s\n", o->path,
                    strerror(errno));
            close(fd);
            return -1;
        }
        madvise(map, len, MADV_SEQUENTIAL);
    }
    close(fd);
    rc = sim_replay_buf(ftl, o, map ? map : copy ? copy : (const void *)"",
                        len, timing, now, w, r, err, sizeof(err));
    if (map) {
        munmap(map, len);
    }
    free(copy);
    if (rc) {
        fprintf(stderr, "femu-sim: --replay %s: %s\n", o->path, err);
    }
    return rc;
}

/* upper bound (ns) of the bucket that holds the q-quantile */
static uint64_t lat_quantile(const struct sim_replay_result *r, double q)
{
    uint64_t want = (uint64_t)((double)r->lat_count * q), seen = 0;

    if (want >= r->lat_count) {
        want = r->lat_count - 1;
    }
    for (unsigned b = 0; b < SIM_REPLAY_HIST; b++) {
        seen += r->hist[b];
        if (seen > want) {
            uint64_t hi = b == 0 ? 0 : b >= 64 ? UINT64_MAX :
                          (UINT64_C(1) << b) - 1;

            return hi < r->lat_max ? hi : r->lat_max;
        }
    }
    return r->lat_max;
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;

        if (ch == '"' || ch == '\\') {
            printf("\\%c", ch);
        } else if (ch < 0x20) {
            printf("\\u%04x", ch);
        } else {
            putchar(ch);
        }
    }
    putchar('"');
}

void sim_replay_print(const struct sim_replay_opts *o,
                      const struct sim_replay_result *r, bool json)
{
    static const unsigned shown[] = {
        FTL_IOTRACE_READ, FTL_IOTRACE_WRITE, FTL_IOTRACE_DEALLOC,
        FTL_IOTRACE_WRITE_ZEROES, FTL_IOTRACE_FLUSH, FTL_IOTRACE_RUH_UPDATE,
        FTL_IOTRACE_CONTROL,
    };
    const char *pace = o->pace_trace ? "trace" : "fast";

    if (json) {
        printf("{\"path\": ");
        json_str(o->path);
        printf(", \"format\": \"%s\", \"offsets\": \"%s\", \"pace\": "
               "\"%s\", \"records\": %" PRIu64, fmt_names[o->fmt],
               map_names[o->map], pace, r->records);
        for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
            printf(", \"%s\": %" PRIu64, ftl_iotrace_op_name(shown[i]),
                   r->ops[shown[i]]);
        }
        printf(", \"skipped\": %" PRIu64 ", \"wrapped\": %" PRIu64
               ", \"write_errors\": %" PRIu64 ", \"recorded_midrun\": %s",
               r->skipped, r->wrapped, r->write_errors,
               r->midrun ? "true" : "false");
        if (o->pace_trace) {
            printf(",\n  \"latency\": {\"count\": %" PRIu64 ", \"sum_ns\": %"
                   PRIu64 ", \"max_ns\": %" PRIu64, r->lat_count,
                   r->lat_sum, r->lat_max);
            if (r->lat_count) {
                printf(", \"p50_ns\": %" PRIu64 ", \"p99_ns\": %" PRIu64,
                       lat_quantile(r, 0.5), lat_quantile(r, 0.99));
            }
            printf(", \"hist\": [");
            for (unsigned b = 0, k = 0; b < SIM_REPLAY_HIST; b++) {
                if (r->hist[b]) {
                    printf("%s[%" PRIu64 ", %" PRIu64 "]", k++ ? ", " : "",
                           b ? UINT64_C(1) << (b - 1) : 0, r->hist[b]);
                }
            }
            printf("]}");
            if (o->fmt == SIM_REPLAY_FEMU) {
                printf(", \"done_checked\": %" PRIu64 ", \"done_equal\": %"
                       PRIu64, r->done_checked, r->done_equal);
            }
        }
        printf("}");
        return;
    }
    printf("replay: %s (%s, offsets %s, pace %s): %" PRIu64 " records:",
           o->path, fmt_names[o->fmt], map_names[o->map], pace, r->records);
    for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
        if (r->ops[shown[i]]) {
            printf(" %s %" PRIu64, ftl_iotrace_op_name(shown[i]),
                   r->ops[shown[i]]);
        }
    }
    printf("; skipped %" PRIu64 ", wrapped %" PRIu64 ", write errors %"
           PRIu64 "\n", r->skipped, r->wrapped, r->write_errors);
    if (r->midrun) {
        printf("replay: note: recorded from a device that already held "
               "data: its counters are reproduced only from the same "
               "starting state (--load-state)\n");
    }
    if (!o->pace_trace) {
        return;
    }
    if (r->lat_count) {
        printf("replay latency (reads and writes, us): count %" PRIu64
               " mean %.3f p50 <= %.3f p99 <= %.3f max %.3f\n", r->lat_count,
               (double)r->lat_sum / (double)r->lat_count / 1e3,
               lat_quantile(r, 0.5) / 1e3, lat_quantile(r, 0.99) / 1e3,
               r->lat_max / 1e3);
        for (unsigned b = 0; b < SIM_REPLAY_HIST; b++) {
            if (r->hist[b]) {
                uint64_t lo = b ? UINT64_C(1) << (b - 1) : 0;
                uint64_t hi = b ? UINT64_C(1) << b : 1;

                printf("  [%12.3f, %12.3f) us %12" PRIu64 "\n", lo / 1e3,
                       hi / 1e3, r->hist[b]);
            }
        }
    }
    if (o->fmt == SIM_REPLAY_FEMU) {
        printf("replay: completions equal to the trace's: %" PRIu64 " of %"
               PRIu64 "\n", r->done_checked ? r->done_equal : 0,
               r->done_checked);
    }
}
