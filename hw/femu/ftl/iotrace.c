/*
 * FEMU I/O traces: header and record encoding, the checks a replay makes,
 * what each record does to the FTL, and the buffered writer the device
 * records with.  Layout in include/hw/femu/ftl-iotrace.h and
 * docs/trace.md.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw/femu/ftl-iotrace.h"

/* the 0xEF codes that change the FTL (include/hw/femu/femu-abi.h: the
 * device's header needs QEMU, so the values are restated here) */
enum {
    CTRL_GC_DELAY_ON = 1,
    CTRL_GC_DELAY_OFF = 2,
    CTRL_DELAY_BUILTIN = 3,
    CTRL_DELAY_OFF = 4,
    CTRL_RESET_COUNTERS = 5,
};

/* header field offsets */
enum {
    H_MAGIC = 0, H_VERSION = 8, H_HDR_SIZE = 12, H_REC_SIZE = 16,
    H_FLAGS = 20, H_NCHS = 24, H_LUNS = 28, H_PLS = 32, H_BLKS = 36,
    H_PGS = 40, H_SECSZ = 44, H_SECS_PER_PG = 48, H_OP_PCENT = 52,
    H_DEVSZ_MB = 56, H_NS_BLOCKS = 64, H_PG_RD = 72, H_PG_WR = 80,
    H_BLK_ER = 88, H_CH_XFER = 96, H_GC_THRES = 104, H_GC_THRES_HIGH = 108,
    H_GC_POLICY = 112, H_HOT_COLD = 116, H_GC_OWN_LINE = 120,
    H_FDP_NRUH = 124, H_FDP_NRU = 128, H_SEED = 136, H_CRC = 252,
};

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

void ftl_iotrace_hdr_of(struct ftl_iotrace_hdr *h, const struct ftl_config *c,
                        uint64_t ns_blocks, uint32_t flags)
{
    memset(h, 0, sizeof(*h));
    h->version = FTL_IOTRACE_VERSION;
    h->flags = flags;
    h->cfg = *c;
    h->ns_blocks = ns_blocks;
}

void ftl_iotrace_encode_hdr(const struct ftl_iotrace_hdr *h,
                            uint8_t buf[FTL_IOTRACE_HDR_SIZE])
{
    const struct ftl_config *c = &h->cfg;

    memset(buf, 0, FTL_IOTRACE_HDR_SIZE);
    memcpy(buf + H_MAGIC, FTL_IOTRACE_MAGIC, 8);
    put32(buf + H_VERSION, FTL_IOTRACE_VERSION);
    put32(buf + H_HDR_SIZE, FTL_IOTRACE_HDR_SIZE);
    put32(buf + H_REC_SIZE, FTL_IOTRACE_REC_SIZE);
    put32(buf + H_FLAGS, h->flags);
    put32(buf + H_NCHS, c->nchs);
    put32(buf + H_LUNS, c->luns_per_ch);
    put32(buf + H_PLS, c->pls_per_lun);
    put32(buf + H_BLKS, c->blks_per_pl);
    put32(buf + H_PGS, c->pgs_per_blk);
    put32(buf + H_SECSZ, c->secsz);
    put32(buf + H_SECS_PER_PG, c->secs_per_pg);
    put32(buf + H_OP_PCENT, (uint32_t)c->op_pcent);
    put64(buf + H_DEVSZ_MB, c->devsz_mb);
    put64(buf + H_NS_BLOCKS, h->ns_blocks);
    put64(buf + H_PG_RD, c->pg_rd_lat);
    put64(buf + H_PG_WR, c->pg_wr_lat);
    put64(buf + H_BLK_ER, c->blk_er_lat);
    put64(buf + H_CH_XFER, c->ch_xfer_lat);
    put32(buf + H_GC_THRES, c->gc_thres_pcent);
    put32(buf + H_GC_THRES_HIGH, c->gc_thres_pcent_high);
    put32(buf + H_GC_POLICY, (uint32_t)c->gc_policy);
    put32(buf + H_HOT_COLD, c->hot_cold_sep);
    put32(buf + H_GC_OWN_LINE, c->gc_own_line);
    put32(buf + H_FDP_NRUH, c->fdp_nruh);
    put32(buf + H_FDP_NRU, c->fdp_nru);
    put64(buf + H_SEED, c->seed);
    put32(buf + H_CRC, ftl_crc32c(0, buf, H_CRC));
}

int ftl_iotrace_decode_hdr(const uint8_t *buf, size_t len,
                           struct ftl_iotrace_hdr *h, char *err,
                           size_t errlen)
{
    struct ftl_config *c = &h->cfg;
    char e[200];
    uint32_t v;

    if (len < 12 || memcmp(buf, FTL_IOTRACE_MAGIC, 8)) {
        snprintf(err, errlen, "not a FEMU I/O trace (no %s magic)",
                 FTL_IOTRACE_MAGIC);
        return -1;
    }
    v = get32(buf + H_VERSION);
    if (v != FTL_IOTRACE_VERSION) {
        snprintf(err, errlen, "header: unknown version %" PRIu32
                 " (this build reads version %d)", v, FTL_IOTRACE_VERSION);
        return -1;
    }
    if (len < FTL_IOTRACE_HDR_SIZE) {
        snprintf(err, errlen, "header: truncated (%zu of %d bytes)", len,
                 FTL_IOTRACE_HDR_SIZE);
        return -1;
    }
    if (get32(buf + H_HDR_SIZE) != FTL_IOTRACE_HDR_SIZE ||
        get32(buf + H_REC_SIZE) != FTL_IOTRACE_REC_SIZE) {
        snprintf(err, errlen, "header: header size %" PRIu32 " or record "
                 "size %" PRIu32 " is not version 1's (%d, %d)",
                 get32(buf + H_HDR_SIZE), get32(buf + H_REC_SIZE),
                 FTL_IOTRACE_HDR_SIZE, FTL_IOTRACE_REC_SIZE);
        return -1;
    }
    if (get32(buf + H_CRC) != ftl_crc32c(0, buf, H_CRC)) {
        snprintf(err, errlen, "header: CRC mismatch (the header is "
                 "damaged)");
        return -1;
    }
    memset(h, 0, sizeof(*h));
    ftl_config_default(c);
    h->version = v;
    h->flags = get32(buf + H_FLAGS);
    c->nchs = get32(buf + H_NCHS);
    c->luns_per_ch = get32(buf + H_LUNS);
    c->pls_per_lun = get32(buf + H_PLS);
    c->blks_per_pl = get32(buf + H_BLKS);
    c->pgs_per_blk = get32(buf + H_PGS);
    c->secsz = get32(buf + H_SECSZ);
    c->secs_per_pg = get32(buf + H_SECS_PER_PG);
    c->op_pcent = (int32_t)get32(buf + H_OP_PCENT);
    c->devsz_mb = get64(buf + H_DEVSZ_MB);
    h->ns_blocks = get64(buf + H_NS_BLOCKS);
    c->pg_rd_lat = get64(buf + H_PG_RD);
    c->pg_wr_lat = get64(buf + H_PG_WR);
    c->blk_er_lat = get64(buf + H_BLK_ER);
    c->ch_xfer_lat = get64(buf + H_CH_XFER);
    c->gc_thres_pcent = get32(buf + H_GC_THRES);
    c->gc_thres_pcent_high = get32(buf + H_GC_THRES_HIGH);
    v = get32(buf + H_GC_POLICY);
    if (v > FTL_GC_DCHOICE || get32(buf + H_HOT_COLD) > 1 ||
        get32(buf + H_GC_OWN_LINE) > 1 || (h->flags & ~FTL_IOTRACE_HF_MIDRUN)) {
        snprintf(err, errlen, "header: gc_policy %" PRIu32 ", hot_cold_sep, "
                 "gc_own_line or flags out of range", v);
        return -1;
    }
    c->gc_policy = (enum ftl_gc_policy)v;
    c->hot_cold_sep = get32(buf + H_HOT_COLD);
    c->gc_own_line = get32(buf + H_GC_OWN_LINE);
    c->fdp_nruh = get32(buf + H_FDP_NRUH);
    c->fdp_nru = get32(buf + H_FDP_NRU);
    c->seed = get64(buf + H_SEED);
    if (ftl_config_check_geometry(c, e, sizeof(e))) {
        snprintf(err, errlen, "header: %s", e);
        return -1;
    }
    if (h->ns_blocks != ftl_cfg_ns_blocks(c)) {
        snprintf(err, errlen, "header: ns_blocks %" PRIu64 " is not what "
                 "its properties give (%" PRIu64 ")", h->ns_blocks,
                 ftl_cfg_ns_blocks(c));
        return -1;
    }
    return 0;
}

void ftl_iotrace_encode_rec(const struct ftl_iotrace_rec *r,
                            uint8_t buf[FTL_IOTRACE_REC_SIZE])
{
    buf[0] = r->op;
    buf[1] = r->flags;
    put16(buf + 2, 0);
    put32(buf + 4, r->nsid);
    put64(buf + 8, r->slba);
    put32(buf + 16, r->nlb);
    put32(buf + 20, r->arg);
    put64(buf + 24, r->time_ns);
    put64(buf + 32, r->done_ns);
}

void ftl_iotrace_decode_rec(const uint8_t *buf, struct ftl_iotrace_rec *r)
{
    r->op = buf[0];
    r->flags = buf[1];
    r->nsid = get32(buf + 4);
    r->slba = get64(buf + 8);
    r->nlb = get32(buf + 16);
    r->arg = get32(buf + 20);
    r->time_ns = get64(buf + 24);
    r->done_ns = get64(buf + 32);
}

static const char *const op_names[FTL_IOTRACE_NOPS] = {
    [FTL_IOTRACE_READ] = "read",
    [FTL_IOTRACE_WRITE] = "write",
    [FTL_IOTRACE_DEALLOC] = "deallocate",
    [FTL_IOTRACE_WRITE_ZEROES] = "write-zeroes",
    [FTL_IOTRACE_FLUSH] = "flush",
    [FTL_IOTRACE_RUH_UPDATE] = "ruh-update",
    [FTL_IOTRACE_CONTROL] = "control",
    [FTL_IOTRACE_END] = "end",
};

const char *ftl_iotrace_op_name(unsigned op)
{
    return op < FTL_IOTRACE_NOPS && op_names[op] ? op_names[op] : "?";
}

int ftl_iotrace_check_rec(const struct ftl_iotrace_rec *r,
                          const uint8_t *raw, uint64_t ns_blocks,
                          uint32_t fdp_nruh, char *err, size_t errlen)
{
    bool io = r->op == FTL_IOTRACE_READ || r->op == FTL_IOTRACE_WRITE ||
              r->op == FTL_IOTRACE_DEALLOC ||
              r->op == FTL_IOTRACE_WRITE_ZEROES;

    if (r->op == 0 || r->op >= FTL_IOTRACE_NOPS) {
        snprintf(err, errlen, "unknown op %u", r->op);
        return -1;
    }
    if ((r->flags & ~FTL_IOTRACE_F_MORE) ||
        (r->flags && r->op != FTL_IOTRACE_DEALLOC) ||
        (raw && get16(raw + 2))) {
        snprintf(err, errlen, "%s: flags %#x or reserved bytes not valid",
                 ftl_iotrace_op_name(r->op), r->flags);
        return -1;
    }
    /* with several namespaces the LBA is in the FTL's logical space,
     * which holds them end to end: the id says whose it was */
    if (io && (r->nsid == 0 || r->nsid > FTL_IOTRACE_MAX_NSID)) {
        snprintf(err, errlen, "%s: namespace %" PRIu32 " (1 to %u)",
                 ftl_iotrace_op_name(r->op), r->nsid, FTL_IOTRACE_MAX_NSID);
        return -1;
    }
    if (r->op == FTL_IOTRACE_FLUSH && (r->nsid == 0 ||
        (r->nsid > FTL_IOTRACE_MAX_NSID && r->nsid != UINT32_MAX))) {
        snprintf(err, errlen, "flush: namespace %" PRIu32, r->nsid);
        return -1;
    }
    if (io) {
        if (r->nlb == 0 && (r->op == FTL_IOTRACE_READ ||
                            r->op == FTL_IOTRACE_WRITE)) {
            snprintf(err, errlen, "%s of 0 blocks",
                     ftl_iotrace_op_name(r->op));
            return -1;
        }
        if (r->slba > ns_blocks || r->nlb > ns_blocks - r->slba) {
            snprintf(err, errlen, "%s of LBA %" PRIu64 "+%" PRIu32
                     " past the namespace (%" PRIu64 " blocks)",
                     ftl_iotrace_op_name(r->op), r->slba, r->nlb, ns_blocks);
            return -1;
        }
    }
    if (r->op == FTL_IOTRACE_RUH_UPDATE && r->arg >= fdp_nruh) {
        snprintf(err, errlen, "ruh-update of handle %" PRIu32 " (%" PRIu32
                 " handles)", r->arg, fdp_nruh);
        return -1;
    }
    if (r->op == FTL_IOTRACE_CONTROL &&
        (r->arg < CTRL_GC_DELAY_ON || r->arg > CTRL_RESET_COUNTERS)) {
        snprintf(err, errlen, "control code %" PRIu32 " (1-5 change the "
                 "FTL)", r->arg);
        return -1;
    }
    return 0;
}

int ftl_iotrace_check_config(const struct ftl_iotrace_hdr *h,
                             const struct ftl_config *cfg, char *err,
                             size_t errlen)
{
    static const struct {
        const char *name;
        size_t off;
    } geo[] = {
#define G(f) { #f, offsetof(struct ftl_config, f) }
        G(nchs), G(luns_per_ch), G(pls_per_lun), G(blks_per_pl),
        G(pgs_per_blk), G(secsz), G(secs_per_pg),
#undef G
    };

    for (size_t i = 0; i < sizeof(geo) / sizeof(geo[0]); i++) {
        uint32_t a, b;

        memcpy(&a, (const char *)&h->cfg + geo[i].off, sizeof(a));
        memcpy(&b, (const char *)cfg + geo[i].off, sizeof(b));
        if (a != b) {
            snprintf(err, errlen, "%s=%" PRIu32 " but the trace was "
                     "recorded with %s=%" PRIu32 " (the geometry must "
                     "match)", geo[i].name, b, geo[i].name, a);
            return -1;
        }
    }
    return 0;
}

uint64_t ftl_iotrace_apply(struct ftl *ftl, const struct ftl_iotrace_rec *r,
                           uint64_t now_ns)
{
    uint64_t t = now_ns;

    switch (r->op) {
    case FTL_IOTRACE_READ:
        t = ftl_read(ftl, r->slba, r->nlb, now_ns);
        ftl_background_gc(ftl, now_ns);
        break;
    case FTL_IOTRACE_WRITE:
        t = ftl_write(ftl, r->slba, r->nlb, r->arg, now_ns);
        ftl_background_gc(ftl, now_ns);
        break;
    case FTL_IOTRACE_DEALLOC:
        if (r->nlb) {
            ftl_trim(ftl, r->slba, r->nlb);
        }
        if (!(r->flags & FTL_IOTRACE_F_MORE)) {
            ftl_background_gc(ftl, now_ns);
        }
        break;
    case FTL_IOTRACE_WRITE_ZEROES:
        ftl_trim(ftl, r->slba, r->nlb);
        break;
    case FTL_IOTRACE_FLUSH:
        /* the write cache, if any (write_cache_mb); else nothing */
        t = ftl_flush(ftl, now_ns);
        break;
    case FTL_IOTRACE_RUH_UPDATE:
        ftl_fdp_ruh_update(ftl, r->arg, now_ns);
        break;
    case FTL_IOTRACE_CONTROL:
        switch (r->arg) {
        case CTRL_GC_DELAY_ON:
        case CTRL_GC_DELAY_OFF:
            ftl_set_gc_delay(ftl, r->arg == CTRL_GC_DELAY_ON);
            break;
        case CTRL_DELAY_BUILTIN:
            ftl_set_delay_mode(ftl, FTL_DELAY_BUILTIN);
            break;
        case CTRL_DELAY_OFF:
            ftl_set_delay_mode(ftl, FTL_DELAY_OFF);
            break;
        case CTRL_RESET_COUNTERS:
            ftl_reset_counters(ftl);
            break;
        }
        break;
    default:
        break;
    }
    return t;
}

/* records per buffer flush: 64 KiB of trace, a few hundred microseconds
 * of writing at most under the caller's lock */
#define WRITER_RECS 1638

struct ftl_iotrace_writer {
    int fd;
    uint64_t nrec;
    size_t used;
    bool failed;
    char err[256];
    uint8_t buf[WRITER_RECS * FTL_IOTRACE_REC_SIZE];
};

/* write all of buf; 0, or -1 with errno set */
static int write_all(int fd, const uint8_t *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            if (n == 0) {
                errno = ENOSPC;
            }
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void writer_flush(struct ftl_iotrace_writer *w)
{
    if (!w->failed && w->used &&
        write_all(w->fd, w->buf, w->used) < 0) {
        w->failed = true;
        snprintf(w->err, sizeof(w->err), "trace stopped after %" PRIu64
                 " records: %s", w->nrec, strerror(errno));
    }
    w->used = 0;
}

struct ftl_iotrace_writer *ftl_iotrace_writer_open(
    const char *path, const struct ftl_iotrace_hdr *h, char *err,
    size_t errlen)
{
    struct ftl_iotrace_writer *w;
    uint8_t hdr[FTL_IOTRACE_HDR_SIZE];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    ftl_iotrace_encode_hdr(h, hdr);
    if (write_all(fd, hdr, sizeof(hdr)) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    w = calloc(1, sizeof(*w));
    if (!w) {
        snprintf(err, errlen, "%s: out of memory", path);
        close(fd);
        return NULL;
    }
    w->fd = fd;
    return w;
}

void ftl_iotrace_writer_append(struct ftl_iotrace_writer *w,
                               const struct ftl_iotrace_rec *r)
{
    if (w->failed) {
        return;
    }
    ftl_iotrace_encode_rec(r, w->buf + w->used);
    w->used += FTL_IOTRACE_REC_SIZE;
    w->nrec++;
    if (w->used == sizeof(w->buf)) {
        writer_flush(w);
    }
}

bool ftl_iotrace_writer_failed(const struct ftl_iotrace_writer *w)
{
    return w->failed;
}

const char *ftl_iotrace_writer_error(const struct ftl_iotrace_writer *w)
{
    return w->failed ? w->err : NULL;
}

uint64_t ftl_iotrace_writer_records(const struct ftl_iotrace_writer *w)
{
    return w->nrec;
}

int ftl_iotrace_writer_close(struct ftl_iotrace_writer *w, char *err,
                             size_t errlen)
{
    struct ftl_iotrace_rec end = {
        .op = FTL_IOTRACE_END,
        .slba = w->nrec,
    };
    int rc = 0;

    if (!w->failed) {
        ftl_iotrace_encode_rec(&end, w->buf + w->used);
        w->used += FTL_IOTRACE_REC_SIZE;
        writer_flush(w);
    }
    if (w->failed) {
        snprintf(err, errlen, "%s", w->err);
        rc = -1;
    } else if (fsync(w->fd) < 0 && errno != EINVAL) {
        snprintf(err, errlen, "fsync: %s", strerror(errno));
        rc = -1;
    }
    if (close(w->fd) < 0 && !rc) {
        snprintf(err, errlen, "close: %s", strerror(errno));
        rc = -1;
    }
    free(w);
    return rc;
}
