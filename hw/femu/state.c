/*
 * FEMU: the state file (property state=PATH): the SSD kept across QEMU
 * runs.
 *
 * The file is the FTL's state-file format (hw/femu/ftl/state.c: header,
 * FTL section; hw/femu/ftl/state-file.c: generations) with this device's
 * sections in each generation:
 *   DEV   the SMART counters (bytes and commands read and written);
 *   DATA  host data, only the 4 KiB chunks of the namespace that hold
 *         something other than zeroes: u32 chunk bytes (4096), u32
 *         count, then count x (u64 chunk index, 4096 bytes); at most
 *         FEMU_STATE_BATCH chunks a section, each with its own CRC;
 *   TRIM  (appended generations) chunks emptied since the generation
 *         before: u32 count, u32 0, count x (u64 first chunk, u64 chunks);
 *   NS    (several namespaces, format 5) before each namespace's DATA and
 *         TRIM sections: its NSID, size, mode, FTL range and SMART
 *         counters (FTL_STATE_NS_LEN bytes, include/hw/femu/ftl.h); a
 *         generation has one per namespace, the BlackBox ones' FTL is the
 *         one FTL section;
 *   ZONE  (format 6) after a zoned namespace's NS section: its zone
 *         table (states, write pointers, ZRWA, descriptor extensions and
 *         the zone model's counters: include/hw/femu/zns.h), whole in
 *         every generation; loading closes the zones that were open, as
 *         a drive's shutdown does (zns_state_restart);
 *   UNC   (format 6, once a namespace had Write Uncorrectable blocks) a
 *         namespace's Write Uncorrectable blocks: u32 NSID, u32 count,
 *         u32 flags (bit 0: more of the same set, added to the section
 *         before), u32 0, count x (u64 first block, u64 blocks); at most
 *         FTL_STATE_TRIM_BATCH ranges a section.  Each generation has the
 *         whole set of every namespace (count 0: none): the last one's
 *         stays;
 *   END   the generation is complete.
 * So the file and the host memory after loading grow with the data the
 * host wrote, not with the namespace.  Pages that femu-sim wrote into a
 * state hold no data: they read as zeroes (and still cost NAND time,
 * since the FTL maps them), like pages the host wrote zeroes to.
 *
 * The first save (and one after too many generations) writes a whole
 * file: PATH.tmp, fsynced, renamed over PATH, the directory fsynced.  A
 * later save appends a generation with the chunks written or discarded
 * since the save before (the store's dirty bitmap, cleared at each save)
 * and fdatasyncs it; a crash in the middle leaves a torn tail that the
 * loader ignores, so the file loads as the previous save or the new
 * one, never a mix.  The caller makes the device quiet first (pollers
 * stopped at exit; all poller locks and the FTL lock for a save on
 * demand).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qemu/cutils.h"
#include "qemu/timer.h"
#include "migration/blocker.h"
#include "qemu/bitmap.h"
#include "femu.h"
#include "trace.h"

#define FEMU_STATE_CHUNK    FEMU_STORE_CHUNK
#define FEMU_STATE_BATCH    FTL_STATE_DATA_BATCH    /* 1 MiB a section */
#define FEMU_STATE_REC      FTL_STATE_DATA_REC
#define FEMU_STATE_DATA_MAX FTL_STATE_SECTION_MAX
#define FEMU_STATE_DEV_LEN  32
/* a save writes a whole new file after this many generations, or when
 * the appended ones outgrow the data they describe */
#define FEMU_STATE_MAX_GENS 64

static uint64_t rd64(const uint8_t *p)
{
    return ldq_le_p(p);
}

static void femu_state_save_bh(void *opaque);

/* The name the messages give the device: its id, else its serial. */
static const char *femu_state_devname(FemuCtrl *n)
{
    return DEVICE(n)->id ? DEVICE(n)->id : n->sn;
}

static uint64_t femu_state_ns_chunks(FemuNamespace *ns)
{
    return DIV_ROUND_UP(ns->store.size, FEMU_STATE_CHUNK);
}

static uint64_t femu_state_nchunks(FemuCtrl *n)
{
    return femu_state_ns_chunks(&n->ns[0]);
}

/* ---- loading: the library reads the file, these take its sections ---- */

struct femu_state_loader {
    FemuCtrl *n;
    uint64_t chunks;
    bool ns_seen;       /* an NS section: the file has several namespaces */
    /* ZONE sections: per namespace, the generation of the last ones and
     * the zones they held (the whole table, for a complete generation) */
    uint32_t zone_gen[FTL_STATE_MAX_NS];
    uint64_t zones[FTL_STATE_MAX_NS];
};

/*
 * A ZONE section: the zone table of a zoned namespace of this device
 * (its NS section came before it and was checked).
 */
static int femu_state_zone_section(struct femu_state_loader *l,
                                   const uint8_t *p, uint64_t len,
                                   uint32_t gen, char *err, size_t errlen)
{
    FemuCtrl *n = l->n;
    uint32_t nsid = zns_state_nsid(p, len);
    FemuNamespace *ns;
    int64_t got;

    if (nsid < 1 || nsid > n->nns || !n->ns[nsid - 1].zns) {
        snprintf(err, errlen, "corrupted state file (ZONE section of %"
                 PRIu64 " bytes for namespace %u, not a zoned one here)",
                 len, nsid);
        return -1;
    }
    ns = &n->ns[nsid - 1];
    got = zns_state_section(ns->zns, p, len, ns->zd_ext,
                            n->params.zns_zd_ext_size, err, errlen);
    if (got < 0) {
        return -1;
    }
    if (l->zone_gen[nsid - 1] != gen) {
        l->zone_gen[nsid - 1] = gen;
        l->zones[nsid - 1] = 0;
    }
    l->zones[nsid - 1] += got;
    return 0;
}

/*
 * After the file: each zoned namespace's table came whole in the last
 * generation; the zones as a restart finds them.
 */
static bool femu_state_zones_done(struct femu_state_loader *l,
                                  uint32_t last_gen, char *err,
                                  size_t errlen)
{
    FemuCtrl *n = l->n;

    for (uint32_t i = 0; i < n->nns; i++) {
        FemuNamespace *ns = &n->ns[i];

        if (!ns->zns) {
            continue;
        }
        if (l->zone_gen[i] != last_gen ||
            l->zones[i] != zns_nr_zones(ns->zns)) {
            snprintf(err, errlen, "corrupted state file (namespace %u is "
                     "zoned: its last generation holds %" PRIu64 " of its "
                     "%u zones)", ns->nsid,
                     l->zone_gen[i] == last_gen ? l->zones[i] : 0,
                     zns_nr_zones(ns->zns));
            return false;
        }
        if (zns_state_restart(ns->zns, err, errlen)) {
            return false;
        }
    }
    return true;
}

#define FEMU_STATE_UNC_HEAD 16u
#define FEMU_STATE_UNC_MORE 1u

/*
 * A UNC section: namespace nsid's Write Uncorrectable blocks, in place
 * of those of the generation before (unless it continues a set).
 */
static int femu_state_unc_section(struct femu_state_loader *l,
                                  const uint8_t *p, uint64_t len, char *err,
                                  size_t errlen)
{
    FemuCtrl *n = l->n;
    uint32_t nsid, count, flags;
    FemuNamespace *ns;

    if (len < FEMU_STATE_UNC_HEAD) {
        goto corrupt;
    }
    nsid = ldl_le_p(p);
    count = ldl_le_p(p + 4);
    flags = ldl_le_p(p + 8);
    if (nsid < 1 || nsid > n->nns || count > FTL_STATE_TRIM_BATCH ||
        len != FEMU_STATE_UNC_HEAD + 16 * (uint64_t)count ||
        (flags & ~FEMU_STATE_UNC_MORE)) {
        goto corrupt;
    }
    ns = &n->ns[nsid - 1];
    for (uint32_t i = 0; i < count; i++) {
        uint64_t first = rd64(p + FEMU_STATE_UNC_HEAD + 16 * i);
        uint64_t k = rd64(p + FEMU_STATE_UNC_HEAD + 16 * i + 8);

        if (!k || first >= ns->blocks || k > ns->blocks - first) {
            goto corrupt;
        }
    }
    if (!(flags & FEMU_STATE_UNC_MORE) && ns->uncor) {
        bitmap_zero(ns->uncor, ns->blocks);
    }
    if (count && !ns->uncor) {
        ns->uncor = bitmap_new(ns->blocks);
    }
    for (uint32_t i = 0; i < count; i++) {
        bitmap_set(ns->uncor, rd64(p + FEMU_STATE_UNC_HEAD + 16 * i),
                   rd64(p + FEMU_STATE_UNC_HEAD + 16 * i + 8));
    }
    n->state_unc = true;
    return 0;

corrupt:
    snprintf(err, errlen, "corrupted state file (UNC section of %" PRIu64
             " bytes)", len);
    return -1;
}

/* a DATA record of namespace nsid (1..nns: its NS section was checked) */
static void femu_state_put_chunk(void *opaque, uint32_t nsid, uint64_t c,
                                 const uint8_t *bytes, uint64_t off)
{
    struct femu_state_loader *l = opaque;
    FemuStore *st = &l->n->ns[nsid - 1].store;
    uint64_t o = c * FEMU_STATE_CHUNK;

    memcpy(st->base + o, bytes, MIN(FEMU_STATE_CHUNK, st->size - o));
    femu_store_mark(st, o, FEMU_STATE_CHUNK);
    l->chunks++;
}

static void femu_state_trim_chunks(void *opaque, uint32_t nsid,
                                   uint64_t first, uint64_t k)
{
    struct femu_state_loader *l = opaque;
    FemuStore *st = &l->n->ns[nsid - 1].store;
    uint64_t o = first * FEMU_STATE_CHUNK;

    femu_store_discard(st, o, MIN(k * FEMU_STATE_CHUNK, st->size - o));
}

static const char *femu_state_mode_name(uint32_t mode)
{
    return mode == FEMU_MODE_BBSSD ? "bbssd" :
           mode == FEMU_MODE_NOSSD ? "nossd" :
           mode == FEMU_MODE_ZNS ? "znssd" : "unknown";
}

/*
 * An NS section: the namespace must be this device's, with the same
 * count, mode, size and FTL range (else the property that differs is
 * named); it brings the namespace's SMART counters.
 */
static int femu_state_ns_section(struct femu_state_loader *l,
                                 const uint8_t *p, uint64_t len, char *err,
                                 size_t errlen)
{
    FemuCtrl *n = l->n;
    uint32_t nsid = ldl_le_p(p), count = ldl_le_p(p + 4);
    uint64_t chunks = rd64(p + 8);
    uint32_t mode;
    FemuNamespace *ns;

    if (len != FTL_STATE_NS_LEN) {
        snprintf(err, errlen, "corrupted state file (NS section of %"
                 PRIu64 " bytes)", len);
        return -1;
    }
    if (count != n->nns) {
        snprintf(err, errlen, "configuration mismatch: namespaces is %u in "
                 "the state file but %u here", count, n->nns);
        return -1;
    }
    ns = &n->ns[nsid - 1];
    mode = ldl_le_p(p + 16);
    if (mode != ns->mode->mode) {
        snprintf(err, errlen, "configuration mismatch: namespace_modes: "
                 "namespace %u is %s in the state file but %s here", nsid,
                 femu_state_mode_name(mode),
                 femu_state_mode_name(ns->mode->mode));
        return -1;
    }
    if (chunks != femu_state_ns_chunks(ns) ||
        (mode == FEMU_MODE_BBSSD && rd64(p + 24) != ns->ftl_base)) {
        snprintf(err, errlen, "configuration mismatch: namespace_sizes: "
                 "namespace %u is %" PRIu64 " KiB at FTL block %" PRIu64
                 " in the state file but %" PRIu64 " KiB at FTL block %" PRIu64
                 " here", nsid, chunks * (FEMU_STATE_CHUNK / 1024),
                 rd64(p + 24),
                 femu_state_ns_chunks(ns) * (FEMU_STATE_CHUNK / 1024),
                 mode == FEMU_MODE_BBSSD ? ns->ftl_base : 0);
        return -1;
    }
    /* each generation has them: the last one's stay */
    ns->bytes_read = rd64(p + 32);
    ns->bytes_written = rd64(p + 40);
    ns->host_read_cmds = rd64(p + 48);
    ns->host_write_cmds = rd64(p + 56);
    l->ns_seen = true;
    return 0;
}

static int femu_state_section(void *opaque, uint32_t tag, const uint8_t *p,
                              uint64_t len, uint32_t gen, char *err,
                              size_t errlen)
{
    struct femu_state_loader *l = opaque;
    FemuCtrl *n = l->n;

    if (tag == FTL_STATE_SEC_NS) {
        return femu_state_ns_section(l, p, len, err, errlen);
    }
    if (tag == FTL_STATE_SEC_ZONE) {
        return femu_state_zone_section(l, p, len, gen, err, errlen);
    }
    if (tag == FTL_STATE_SEC_UNC) {
        return femu_state_unc_section(l, p, len, err, errlen);
    }
    if (tag != FTL_STATE_SEC_DEV) {
        /* another writer's section (femu-sim's): checked, not used */
        return 0;
    }
    if (len != FEMU_STATE_DEV_LEN) {
        snprintf(err, errlen, "corrupted state file (DEV section of %"
                 PRIu64 " bytes)", len);
        return -1;
    }
    /* each generation has them: the last one's stay */
    n->bytes_read = rd64(p);
    n->bytes_written = rd64(p + 8);
    n->host_read_cmds = rd64(p + 16);
    n->host_write_cmds = rd64(p + 24);
    return 0;
}

/*
 * Open PATH<suffix> next to the state file, creating it, with flags; *name
 * gets its name (the caller frees it).  -1 with "cannot create" if not.
 */
static int femu_state_create(FemuCtrl *n, const char *suffix, int flags,
                             char **name, Error **errp)
{
    int fd;

    *name = g_strdup_printf("%s%s", n->params.state_path, suffix);
    fd = open(*name, flags | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        error_setg_errno(errp, errno, "state=%s: cannot create %s",
                         n->params.state_path, *name);
    }
    return fd;
}

/* Check early that a save will be able to create PATH.tmp. */
static bool femu_state_check_writable(FemuCtrl *n, Error **errp)
{
    g_autofree char *tmp = NULL;
    int fd = femu_state_create(n, ".tmp", O_WRONLY, &tmp, errp);

    if (fd < 0) {
        return false;
    }
    close(fd);
    unlink(tmp);
    return true;
}

bool femu_state_load(FemuCtrl *n, Error **errp)
{
    char err[512] = "";
    struct femu_state_loader l = { .n = n };
    uint32_t zgen = UINT32_MAX;
    struct ftl_state_sink sink = {
        .opaque = &l,
        .nchunks = femu_state_nchunks(n),
        .ns_data = femu_state_put_chunk,
        .ns_trim = femu_state_trim_chunks,
        .section = femu_state_section,
    };
    struct ftl_state_info info;
    struct ftl *ftl;
    int64_t t0 = get_clock();
    FILE *f;

    n->state_gens = 0;
    for (uint32_t i = 0; i < FTL_STATE_MAX_NS; i++) {
        l.zone_gen[i] = zgen;
    }
    f = fopen(n->params.state_path, "rb");
    if (!f) {
        if (errno != ENOENT) {
            error_setg_errno(errp, errno, "state=%s: cannot open it",
                             n->params.state_path);
            return false;
        }
        /* no file yet: a fresh SSD, saved there when QEMU quits */
        return femu_state_check_writable(n, errp);
    }
    ftl = ftl_state_read_file(&n->cfg, f, get_clock(), &sink, &info, err,
                              sizeof(err));
    fclose(f);
    if (!ftl) {
        /* the store may hold part of the file's data: the device is not
         * created, so it is freed with it */
        error_setg(errp, "state=%s: %s", n->params.state_path, err);
        return false;
    }
    if (!l.ns_seen && n->nns > 1) {
        /* a file of one namespace (or of femu-sim alone) */
        ftl_free(ftl);
        error_setg(errp, "state=%s: configuration mismatch: namespaces is 1 "
                   "in the state file but %u here", n->params.state_path,
                   n->nns);
        return false;
    }
    if (!femu_state_zones_done(&l, info.gens - 1, err, sizeof(err))) {
        ftl_free(ftl);
        error_setg(errp, "state=%s: %s", n->params.state_path, err);
        return false;
    }
    if (!l.ns_seen) {
        /* one namespace: its SMART counters are the controller's */
        n->ns[0].bytes_read = n->bytes_read;
        n->ns[0].bytes_written = n->bytes_written;
        n->ns[0].host_read_cmds = n->host_read_cmds;
        n->ns[0].host_write_cmds = n->host_write_cmds;
    }
    /* the run-time controls (0xEF codes 1-4) start at their defaults in
     * every QEMU run, with or without a state file */
    ftl_set_gc_delay(ftl, true);
    ftl_set_delay_mode(ftl, FTL_DELAY_CONFIGURED);
    ftl_free(n->ftl);
    n->ftl = ftl;
    n->media_ro = ftl_read_only(ftl);
    /* the file holds all of it: the next save appends what changes, to
     * a file of this format (an older one is rewritten whole) */
    for (uint32_t i = 0; i < n->nns; i++) {
        bitmap_zero(n->ns[i].store.dirty, femu_state_ns_chunks(&n->ns[i]));
    }
    if (info.version == FTL_STATE_VERSION) {
        n->state_gens = info.gens;
        n->state_end = info.end;
        n->state_appended = info.end - info.base_end;
        n->state_ftl_bytes = info.ftl_bytes;
    }
    trace_femu_state_load(n->params.state_path, info.gens, l.chunks,
                          info.torn, get_clock() - t0);
    return true;
}

/* ---- saving ---- */

/* Sections of records gathered in buf: DATA or TRIM, count so far. */
struct femu_state_out {
    FILE *f;
    uint8_t *buf;
    uint32_t count;     /* DATA records in buf */
    uint32_t ntrim;     /* TRIM ranges in tbuf */
    uint8_t *tbuf;
    uint64_t chunks;    /* DATA records written */
    uint64_t trimmed;   /* chunks in TRIM ranges written */
    uint64_t tfirst, tn;    /* the TRIM range being extended */
};

static int femu_state_put_data(struct femu_state_out *o, char *err,
                               size_t errlen)
{
    if (!o->count) {
        return 0;
    }
    stl_le_p(o->buf, FEMU_STATE_CHUNK);
    stl_le_p(o->buf + 4, o->count);
    if (ftl_state_write_section(o->f, FTL_STATE_SEC_DATA, o->buf,
                                8 + (uint64_t)o->count * FEMU_STATE_REC,
                                err, errlen)) {
        return -1;
    }
    o->chunks += o->count;
    o->count = 0;
    return 0;
}

static int femu_state_put_trim(struct femu_state_out *o, bool flush,
                               char *err, size_t errlen)
{
    if (o->tn) {
        uint8_t *r = o->tbuf + 8 + 16 * (uint64_t)o->ntrim++;

        stq_le_p(r, o->tfirst);
        stq_le_p(r + 8, o->tn);
        o->trimmed += o->tn;
        o->tn = 0;
    }
    if (!o->ntrim || (!flush && o->ntrim < FTL_STATE_TRIM_BATCH)) {
        return 0;
    }
    stl_le_p(o->tbuf, o->ntrim);
    stl_le_p(o->tbuf + 4, 0);
    if (ftl_state_write_section(o->f, FTL_STATE_SEC_TRIM, o->tbuf,
                                8 + 16 * (uint64_t)o->ntrim, err, errlen)) {
        return -1;
    }
    o->ntrim = 0;
    return 0;
}

/*
 * DATA sections for the chunks of bitmap `which` (the store's record of
 * written chunks for a whole file, the dirty ones for a generation), less
 * those that hold zeroes; with trim, a TRIM record for each chunk of it
 * that has no data (deallocated, or written with zeroes).  The record,
 * not mincore(): the kernel reports pages it swapped out (swap files,
 * zram, zswap) as not resident, and they hold data all the same.
 */
static int femu_state_save_data(FemuNamespace *ns, struct femu_state_out *o,
                                const unsigned long *which, bool trim,
                                char *err, size_t errlen)
{
    FemuStore *st = &ns->store;
    uint64_t nchunks = femu_state_ns_chunks(ns);

    for (uint64_t c = find_first_bit(which, nchunks); c < nchunks;
         c = find_next_bit(which, nchunks, c + 1)) {
        uint64_t off = c * FEMU_STATE_CHUNK;
        uint64_t clen = MIN(FEMU_STATE_CHUNK, st->size - off);
        uint8_t *r;

        if (!test_bit(c, st->written) ||
            buffer_is_zero(st->base + off, clen)) {
            if (!trim) {
                continue;
            }
            if (o->tn && o->tfirst + o->tn == c) {
                o->tn++;
                continue;
            }
            if (femu_state_put_trim(o, false, err, errlen)) {
                return -1;
            }
            o->tfirst = c;
            o->tn = 1;
            continue;
        }
        r = o->buf + 8 + (uint64_t)o->count * FEMU_STATE_REC;
        stq_le_p(r, c);
        memset(r + 8, 0, FEMU_STATE_CHUNK);
        memcpy(r + 8, st->base + off, clen);
        if (++o->count == FEMU_STATE_BATCH &&
            femu_state_put_data(o, err, errlen)) {
            return -1;
        }
    }
    if (femu_state_put_data(o, err, errlen)) {
        return -1;
    }
    return trim ? femu_state_put_trim(o, true, err, errlen) : 0;
}

/* Namespace ns's UNC sections: its whole Write Uncorrectable set. */
static int femu_state_save_unc(FemuNamespace *ns, FILE *f, char *err,
                               size_t errlen)
{
    g_autofree uint8_t *buf =
        g_malloc(FEMU_STATE_UNC_HEAD + 16 * FTL_STATE_TRIM_BATCH);
    const unsigned long *m = ns->uncor;
    uint64_t b = m ? find_first_bit(m, ns->blocks) : ns->blocks;
    uint32_t flags = 0;

    do {
        uint32_t count = 0;

        while (b < ns->blocks && count < FTL_STATE_TRIM_BATCH) {
            uint64_t e = find_next_zero_bit(m, ns->blocks, b);

            stq_le_p(buf + FEMU_STATE_UNC_HEAD + 16 * count, b);
            stq_le_p(buf + FEMU_STATE_UNC_HEAD + 16 * count + 8, e - b);
            count++;
            b = e < ns->blocks ? find_next_bit(m, ns->blocks, e) : e;
        }
        stl_le_p(buf, ns->nsid);
        stl_le_p(buf + 4, count);
        stl_le_p(buf + 8, flags);
        stl_le_p(buf + 12, 0);
        if (ftl_state_write_section(f, FTL_STATE_SEC_UNC, buf,
                                    FEMU_STATE_UNC_HEAD + 16 * count, err,
                                    errlen)) {
            return -1;
        }
        flags = FEMU_STATE_UNC_MORE;
    } while (b < ns->blocks);
    return 0;
}

/* One generation into f: the FTL, DEV, the data, UNC, END. */
static int femu_state_write_gen(FemuCtrl *n, FILE *f, uint32_t seq,
                                struct femu_state_out *o,
                                struct ftl_state_gen *g, char *err,
                                size_t errlen)
{
    uint8_t dev[FEMU_STATE_DEV_LEN];
    long pos;
    int rc;

    stq_le_p(dev, qatomic_read(&n->bytes_read));
    stq_le_p(dev + 8, qatomic_read(&n->bytes_written));
    stq_le_p(dev + 16, qatomic_read(&n->host_read_cmds));
    stq_le_p(dev + 24, qatomic_read(&n->host_write_cmds));
    o->f = f;
    /* the write cache's pages are mapped once destaged: a state file
     * holds them all (the data is in the store already) */
    if (ftl_flush(n->ftl, get_clock()) == FTL_TIME_ERROR) {
        snprintf(err, errlen, "the write cache could not be destaged "
                 "(no free line)");
        rc = -1;
    } else {
        rc = ftl_state_gen_begin(g, f, seq, err, errlen);
    }
    rc = rc ? rc : ftl_state_save(n->ftl, get_clock(), f, err, errlen);
    pos = ftell(f);
    if (!rc && pos >= 0) {
        n->state_ftl_bytes = (uint64_t)pos - g->start;
    }
    rc = rc ? rc : ftl_state_write_section(f, FTL_STATE_SEC_DEV, dev,
                                           sizeof(dev), err, errlen);
    /* one namespace: its data alone, as before format 5; several: each
     * namespace's NS section and its data */
    for (uint32_t i = 0; i < n->nns && !rc; i++) {
        FemuNamespace *ns = &n->ns[i];
        uint8_t h[FTL_STATE_NS_LEN] = { 0 };

        if (n->nns > 1) {
            stl_le_p(h, ns->nsid);
            stl_le_p(h + 4, n->nns);
            stq_le_p(h + 8, femu_state_ns_chunks(ns));
            stl_le_p(h + 16, ns->mode->mode);
            stq_le_p(h + 24, ns->mode->mode == FEMU_MODE_BBSSD ?
                             ns->ftl_base : 0);
            stq_le_p(h + 32, qatomic_read(&ns->bytes_read));
            stq_le_p(h + 40, qatomic_read(&ns->bytes_written));
            stq_le_p(h + 48, qatomic_read(&ns->host_read_cmds));
            stq_le_p(h + 56, qatomic_read(&ns->host_write_cmds));
            rc = ftl_state_write_section(f, FTL_STATE_SEC_NS, h, sizeof(h),
                                         err, errlen);
        }
        if (ns->zns && !rc) {
            /* its zone table, whole in every generation */
            rc = zns_state_write(ns->zns, ns->nsid, ns->zd_ext,
                                 n->params.zns_zd_ext_size,
                                 FEMU_STATE_DATA_MAX, f, err, errlen);
        }
        rc = rc ? rc : femu_state_save_data(ns, o, seq ? ns->store.dirty
                                                       : ns->store.written,
                                            seq != 0, err, errlen);
    }
    /* Write Uncorrectable blocks: once a namespace had some, every
     * generation has every namespace's set (a file without never had) */
    for (uint32_t i = 0; i < n->nns; i++) {
        n->state_unc |= qatomic_read(&n->ns[i].uncor) != NULL;
    }
    for (uint32_t i = 0; i < n->nns && !rc && n->state_unc; i++) {
        rc = femu_state_save_unc(&n->ns[i], f, err, errlen);
    }
    rc = rc ? rc : ftl_state_gen_end(g, err, errlen);
    if (!rc && (fflush(f) || qemu_fdatasync(fileno(f)))) {
        snprintf(err, errlen, "cannot write %s: %s", n->params.state_path,
                 strerror(errno));
        rc = -1;
    }
    return rc;
}

/*
 * A whole new file: PATH.tmp, fsynced, renamed over PATH, the directory
 * fsynced.  A crash at any point leaves the previous file or this one.
 */
static int femu_state_save_full(FemuCtrl *n, struct femu_state_out *o,
                                struct ftl_state_gen *g, char *err,
                                size_t errlen, Error **errp)
{
    g_autofree char *tmp = NULL;
    g_autofree char *dir = g_path_get_dirname(n->params.state_path);
    FILE *f;
    int fd, rc;

    fd = femu_state_create(n, ".tmp", O_WRONLY | O_TRUNC, &tmp, errp);
    if (fd < 0) {
        return -2;
    }
    f = fdopen(fd, "wb");
    if (!f) {
        snprintf(err, errlen, "fdopen: %s", strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    rc = femu_state_write_gen(n, f, 0, o, g, err, errlen);
    if (fclose(f) && !rc) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        rc = -1;
    }
    if (!rc && rename(tmp, n->params.state_path)) {
        snprintf(err, errlen, "cannot rename %s: %s", tmp, strerror(errno));
        rc = -1;
    }
    if (rc) {
        unlink(tmp);
        return -1;
    }
    /* the rename itself reaches the disk with the directory */
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        qemu_fdatasync(fd);
        close(fd);
    }
    n->state_gens = 1;
    n->state_end = g->start + g->bytes;
    n->state_appended = 0;
    return 0;
}

/*
 * A generation appended to PATH where the last complete one ends (the
 * tail of a save cut short goes first), fdatasync'ed.  A crash before
 * that leaves a torn tail, which the loader ignores: the previous
 * generations load.
 */
static int femu_state_save_append(FemuCtrl *n, struct femu_state_out *o,
                                  struct ftl_state_gen *g, char *err,
                                  size_t errlen)
{
    FILE *f;
    int fd, rc;

    fd = open(n->params.state_path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ftruncate(fd, n->state_end) ||
        lseek(fd, n->state_end, SEEK_SET) != (off_t)n->state_end) {
        snprintf(err, errlen, "cannot append to %s: %s",
                 n->params.state_path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    /* fdopen "w" does not truncate: the fd stays at state_end */
    f = fdopen(fd, "wb");
    if (!f) {
        snprintf(err, errlen, "fdopen: %s", strerror(errno));
        close(fd);
        return -1;
    }
    rc = femu_state_write_gen(n, f, n->state_gens, o, g, err, errlen);
    if (fclose(f) && !rc) {
        snprintf(err, errlen, "cannot write %s: %s", n->params.state_path,
                 strerror(errno));
        rc = -1;
    }
    if (rc) {
        /* what it wrote is a torn tail: gone at the next save, ignored by
         * a load before */
        return -1;
    }
    n->state_gens++;
    n->state_end += g->bytes;
    n->state_appended += g->bytes;
    return 0;
}

bool femu_state_save(FemuCtrl *n, Error **errp)
{
    char err[512] = "";
    g_autofree uint8_t *buf = g_malloc(FEMU_STATE_DATA_MAX);
    g_autofree uint8_t *tbuf = g_malloc(8 + 16 * FTL_STATE_TRIM_BATCH);
    struct femu_state_out o = { .buf = buf, .tbuf = tbuf };
    struct ftl_state_gen g = { 0 };
    uint64_t live = n->state_ftl_bytes;
    int64_t t0 = get_clock();
    bool full;
    int rc;

    if (!n->ftl) {
        error_setg(errp, "state=%s: no FTL to save", n->params.state_path);
        return false;
    }
    /* a whole file when there is none of this format yet, or when the
     * appended generations outgrow what they describe */
    for (uint32_t i = 0; i < n->nns; i++) {
        live += bitmap_count_one(n->ns[i].store.written,
                                 femu_state_ns_chunks(&n->ns[i])) *
                (uint64_t)FEMU_STATE_REC;
    }
    full = !n->state_gens || n->state_gens >= FEMU_STATE_MAX_GENS ||
           n->state_appended > live;
    rc = full ? femu_state_save_full(n, &o, &g, err, sizeof(err), errp)
              : femu_state_save_append(n, &o, &g, err, sizeof(err));
    if (rc == -2) {
        return false;
    }
    if (rc) {
        error_setg(errp, "state=%s: %s", n->params.state_path, err);
        return false;
    }
    /* the device is quiet (all its locks held, or its pollers stopped):
     * nothing changed since the snapshot */
    for (uint32_t i = 0; i < n->nns; i++) {
        bitmap_zero(n->ns[i].store.dirty, femu_state_ns_chunks(&n->ns[i]));
    }
    trace_femu_state_save(n->params.state_path, full ? "full" : "append",
                          (uint32_t)g.seq, o.chunks, o.trimmed, g.bytes,
                          get_clock() - t0);
    return true;
}

/*
 * One user of a state file at a time: a second device or QEMU process on
 * the same PATH would overwrite this one's saves.  PATH.lock carries an
 * exclusive lock for as long as the device exists (the process's exit
 * drops it).
 */
static bool femu_state_lock(FemuCtrl *n, Error **errp)
{
    g_autofree char *lock = NULL;
    int fd = femu_state_create(n, ".lock", O_RDWR, &lock, errp);

    if (fd < 0) {
        return false;
    }
    if (qemu_lock_fd(fd, 0, 0, true)) {
        error_setg(errp, "state=%s: in use by another femu device or QEMU "
                   "process (%s is locked)", n->params.state_path, lock);
        close(fd);
        return false;
    }
    n->state_lock_fd = fd;
    return true;
}

bool femu_state_realize(FemuCtrl *n, Error **errp)
{
    n->state_lock_fd = -1;
    n->save_bh = qemu_bh_new_guarded(femu_state_save_bh, n,
                                     &DEVICE(n)->mem_reentrancy_guard);
    if (!n->params.state_path) {
        return true;
    }
    if (!*n->params.state_path) {
        error_setg(errp, "state='': give the path of a state file");
        return false;
    }
    if (!femu_is_bbssd(n)) {
        error_setg(errp, "state=%s: state files need femu_mode=1 (the "
                   "BlackBox SSD)", n->params.state_path);
        return false;
    }
    return femu_state_lock(n, errp) && femu_state_load(n, errp);
}

/*
 * The controller's registers and queues, the poller threads' pending
 * completions and the SSD are not described for migration (and the SSD
 * would be saved twice with a state file): refuse migration and savevm
 * with a message that says which device and why.
 */
bool femu_block_migration(FemuCtrl *n, Error **errp)
{
    if (n->params.state_path) {
        error_setg(&n->migration_blocker, "femu device '%s' (state=%s) "
                   "does not support migration or savevm: its SSD is saved "
                   "to the state file when QEMU quits",
                   femu_state_devname(n), n->params.state_path);
    } else {
        error_setg(&n->migration_blocker, "femu device '%s' does not "
                   "support migration or savevm: its SSD lives in host "
                   "memory (state=PATH keeps it across QEMU runs)",
                   femu_state_devname(n));
    }
    return migrate_add_blocker(&n->migration_blocker, errp) == 0;
}

void femu_state_unrealize(FemuCtrl *n)
{
    femu_state_save_wait(n);
    if (n->save_bh) {
        qemu_bh_delete(n->save_bh);
        n->save_bh = NULL;
    }
    if (n->migration_blocker) {
        migrate_del_blocker(&n->migration_blocker);
    }
    if (n->state_lock_fd >= 0) {
        close(n->state_lock_fd);
        n->state_lock_fd = -1;
    }
}

/*
 * Saves on demand.  The SSD must be quiet while it is written: every
 * poller's lock and the FTL lock are held (the commands being executed
 * finish first, I/O waits).  The BQL is not needed for that, so a save
 * the guest asks for (0xEF code 8) runs in a thread of its own: the main
 * loop goes on (QMP, the vCPUs' MMIO, interrupts), only the admin queue
 * waits, and the command completes from a bottom half when the file is
 * on disk.  One save at a time: the admin queue waits for the running
 * one, so a guest that loops on code 8 saves back to back, never two at
 * once.
 */
static bool femu_state_save_quiet(FemuCtrl *n, Error **errp)
{
    bool ok;

    femu_pollers_lock_all(n);
    femu_ftl_lock_main(n);
    ok = femu_state_save(n, errp);
    qemu_mutex_unlock(&n->ftl_lock);
    femu_pollers_unlock_all(n);
    return ok;
}

static void *femu_state_save_thread(void *opaque)
{
    FemuCtrl *n = opaque;

    /* a failure is reported by femu_state_save_finish, under the BQL */
    femu_state_save_quiet(n, &n->save_err);
    qemu_bh_schedule(n->save_bh);
    return NULL;
}

/*
 * Main loop: wait for the running save (if any), report its failure and
 * complete its admin command, unless a controller reset (drop) dropped
 * the queues it came from; the admin queue goes on.
 */
static void femu_state_save_finish(FemuCtrl *n, bool drop)
{
    FemuSQ *sq = n->sq ? n->sq[0] : NULL;
    uint16_t status = NVME_SUCCESS;

    if (!n->save_running) {
        return;
    }
    qemu_thread_join(&n->save_thread);
    n->save_running = false;
    if (n->save_err) {
        error_report_err(n->save_err);
        n->save_err = NULL;
        status = NVME_INTERNAL_DEV_ERROR;
    }
    trace_femu_admin_done(le16_to_cpu(n->save_cmd.cid), n->save_cmd.opcode,
                          status, 0);
    if (drop || !sq) {
        return;
    }
    if (status) {
        femu_error_record(n, 0, &n->save_cmd, status);
    }
    femu_cq_post(sq->cq, sq, n->save_cmd.cid, status, 0);
    qemu_bh_schedule(n->admin_bh);
}

static void femu_state_save_bh(void *opaque)
{
    femu_state_save_finish(opaque, false);
}

/* 0xEF code 8 (admin queue, BQL held): start a save in its thread. */
uint16_t femu_state_save_now(FemuCtrl *n, NvmeCmd *cmd)
{
    if (!n->params.state_path || !n->ftl) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    n->save_cmd = *cmd;
    n->save_running = true;
    qemu_thread_create(&n->save_thread, "femu-save", femu_state_save_thread,
                       n, QEMU_THREAD_JOINABLE);
    return NVME_NO_COMPLETE;
}

bool femu_state_saving(FemuCtrl *n)
{
    return n->save_running;
}

/* Controller reset, exit: the running save ends; nothing is completed. */
void femu_state_save_wait(FemuCtrl *n)
{
    femu_state_save_finish(n, true);
}

/*
 * QOM property save-state (qom-set DEVICE save-state true): a checkpoint
 * from the host, whatever the guest does.  It returns when the file is
 * on disk (after a save the guest started, if one runs); the main loop
 * waits for it, as for a migration's last pass.
 */
static void femu_state_prop_set(Object *obj, bool value, Error **errp)
{
    FemuCtrl *n = FEMU(obj);

    if (!value) {
        return;
    }
    if (!DEVICE(obj)->realized) {
        error_setg(errp, "save-state: saves a running device's state "
                   "file; set it with qom-set, not on the command line");
        return;
    }
    if (!n->params.state_path || !n->ftl) {
        error_setg(errp, "save-state: femu device '%s' has no state file "
                   "(state=PATH, femu_mode=1)", femu_state_devname(n));
        return;
    }
    femu_state_save_finish(n, false);
    femu_state_save_quiet(n, errp);
}

static bool femu_state_prop_get(Object *obj, Error **errp)
{
    return FEMU(obj)->save_running;
}

void femu_state_class_init(ObjectClass *oc)
{
    object_class_property_add_bool(oc, "save-state", femu_state_prop_get,
                                   femu_state_prop_set);
    object_class_property_set_description(oc, "save-state",
        "write true (QMP qom-set) to save the state file now; reads true "
        "while a save the guest asked for runs (docs/state.md)");
}

/* QEMU is exiting and the pollers are stopped: save, report a failure. */
void femu_state_exit(FemuCtrl *n)
{
    Error *local_err = NULL;

    if (n->params.state_path && n->ftl && !femu_state_save(n, &local_err)) {
        error_report_err(local_err);
    }
}
