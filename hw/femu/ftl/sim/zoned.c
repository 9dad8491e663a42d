/*
 * femu-sim zoned mode: the `femu` device's femu_mode=3 model (zone state
 * machine, zone-to-NAND mapping and timing in hw/femu/ftl/zone.c) driven
 * by zone workloads, with log page C0h's counters per phase.
 *
 *   femu-sim femu_mode=3,nchs=2,luns_per_ch=2,blks_per_pl=64,zone_luns=2 \
 *       --phase w:zwrite,zones=4,jobs=2 --phase r:zreset,zones=4
 *
 * Each phase runs `jobs` writers at once, each with `qd` requests in
 * flight; a request is issued when one of its job's slots is free (the
 * completion of the previous request in that slot), in emulated time
 * order, as the device's NAND clocks see them.  Deterministic.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/femu/zns.h"
#include "workload.h"
#include "zoned.h"

#define ZMAX_PHASES 32

enum zkind { Z_WRITE, Z_APPEND, Z_RESET, Z_FINISH, Z_ZRWA };

struct zspec {
    char name[32];
    enum zkind kind;
    uint64_t bs;        /* bytes per write */
    uint32_t first;     /* first zone */
    uint32_t zones;     /* zones the phase acts on; 0 = to the last */
    uint32_t stride;    /* zone number step between them */
    uint32_t jobs;      /* writers at once, each on its own zones */
    uint32_t qd;        /* requests in flight per job */
    uint64_t size;      /* bytes per zone; 0 = to the zone capacity */
    /* zrwa: how the write pointer moves (explicit Commit Zone after each
     * window, or implicit by the next window's writes), times each window
     * is written again before its commit, in order or at random places
     * (seed), and whether each zone is finished after its last window */
    bool implicit, seq, finish, granule;
    uint32_t rewrite, seed;
};

struct zresult {
    struct zns_counters d;     /* counter differences over the phase */
    uint64_t requests, errors, bytes;
    uint64_t emul_ns, lat_sum_ns, lat_max_ns;
    /* zrwa: writes that committed nothing, writes that moved the write
     * pointer (implicit commits), Commit Zone actions, Finish actions:
     * count and latency sum each */
    uint64_t zw_n, zw_lat, zi_n, zi_lat, zc_n, zc_lat, zf_n, zf_lat;
};

struct zopts {
    struct zns_config cfg;
    enum ftl_delay_mode delay;
    bool json;
    /* FEMU's zoned properties as given; checked and applied after all
     * are parsed, as on the device */
    uint64_t zrwa_size, zrwafg_size, zone_cap, chnls, zasl_bs;
    uint32_t zrwa_num, zd_ext_size, conv_zones;
    int64_t flash_type;
    bool zone_cap_given, chnls_given, zasl_bs_given, flash_type_given;
    bool cell_given, cross_zone_read;
    uint8_t zasl;
};

static void zusage(FILE *f)
{
    fprintf(f,
"usage: femu-sim femu_mode=3[,PROP=VAL...] [--json] [--phase SPEC]...\n"
"\n"
"Zoned namespace (the femu device's femu_mode=3).  Properties as on\n"
"  -device femu,...: nchs luns_per_ch pls_per_lun blks_per_pl pgs_per_blk\n"
"  secsz secs_per_pg pg_rd_lat pg_wr_lat blk_er_lat ch_xfer_lat zone_luns\n"
"  zone_size_mb zone_cap_mb max_open max_active write_cache_mb zasl\n"
"  zns_zrwa_size zns_zrwafg_size zns_zrwa_num zns_zd_ext_size\n"
"  zns_cross_zone_read, FEMU's zns_num_ch zns_num_lun zns_num_plane\n"
"  zns_num_blk zns_max_open zns_max_active zns_zone_cap zns_chnls_per_zone\n"
"  zns_flash_type zns_zasl_bs zns_num_conv_zones (0 only);\n"
"  delay=configured|builtin|off\n"
"  (0xEF codes 3/4).  GC and sizing properties are accepted and unused.\n"
"\n"
"--phase NAME:KIND[,KEY=VAL...]  KIND: zwrite (writes at the write\n"
"  pointer) zappend (Zone Append) zreset (Zone Management Send reset)\n"
"  zfinish (finish) zrwa (opens each zone with a ZRWA, writes each\n"
"  window at random places, commits it; needs zns_zrwa_size)\n"
"  keys: bs (4k) first (0) zones (to the last zone) stride (1) jobs (1)\n"
"  qd (1) size (bytes per zone; default to the capacity)\n"
"  Job j of `jobs` takes zones first + (j + k*jobs)*stride, k = 0, 1...,\n"
"  one after the other, with qd requests in flight.\n"
"  zrwa keys: commit=explicit|implicit (explicit: Commit Zone after each\n"
"  window; implicit: the next window's writes move the write pointer)\n"
"  rewrite (0: times each window is written again before its commit)\n"
"  order=random|seq  seed (1)  finish=on|off (off; on: Finish each zone\n"
"  after its last window)\n"
"  unit=window|granule (what is written at random and then committed: the\n"
"  ZRWA or one flush granule)\n"
"Default phases: fill:zwrite (every zone, one job), reset:zreset.\n");
}

bool sim_has_zoned_mode(const char *arg)
{
    const char *p = arg;

    while ((p = strstr(p, "femu_mode=")) != NULL) {
        if ((p == arg || p[-1] == ',') && p[10] == '3' &&
            (p[11] == '\0' || p[11] == ',')) {
            return true;
        }
        p += 10;
    }
    return false;
}

/* FEMU upstream's names for the geometry and open/active limits */
static const char *const zalias[][2] = {
    { "zns_num_ch", "nchs" }, { "zns_num_lun", "luns_per_ch" },
    { "zns_num_plane", "pls_per_lun" }, { "zns_num_blk", "blks_per_pl" },
    { "zns_max_open", "max_open" }, { "zns_max_active", "max_active" },
};

static int zset_prop(struct zopts *o, const char *k, const char *v)
{
    uint64_t x;
    int r;

    for (size_t i = 0; i < sizeof(zalias) / sizeof(zalias[0]); i++) {
        if (!strcmp(k, zalias[i][0])) {
            k = zalias[i][1];
        }
    }
    if (!strcmp(k, "nand_cell_type")) {
        o->cell_given = true;
    }
    if (!strcmp(k, "zns_cross_zone_read")) {
        return sim_parse_onoff(k, v, &o->cross_zone_read);
    }
    r = sim_num_prop(&o->cfg.nand, k, v);

    if (r) {
        return r < 0 ? -1 : 0;
    }
    if (!strcmp(k, "delay")) {
        return sim_parse_delay(v, &o->delay);
    }
    if (!strcmp(k, "gc_strategy") || !strcmp(k, "gc_delay")) {
        return 0;   /* unused in mode 3, as on the device */
    }
    if (sim_parse_num(k, v, UINT64_MAX, &x) < 0) {
        return -1;
    }
    if (!strcmp(k, "femu_mode")) {
        return 0;   /* 3: how we got here */
    } else if (!strcmp(k, "zone_size_mb")) {
        o->cfg.zone_size_mb = x;
    } else if (!strcmp(k, "zone_cap_mb")) {
        o->cfg.zone_cap_mb = x;
    } else if (!strcmp(k, "zns_zrwa_size")) {
        o->zrwa_size = x;
    } else if (!strcmp(k, "zns_zrwafg_size")) {
        o->zrwafg_size = x;
    } else if (!strcmp(k, "zns_zone_cap")) {
        o->zone_cap = x;
        o->zone_cap_given = true;
    } else if (!strcmp(k, "zns_zasl_bs")) {
        o->zasl_bs = x;
        o->zasl_bs_given = true;
    } else if (!strcmp(k, "zns_flash_type")) {
        o->flash_type = x > INT64_MAX ? -1 : (int64_t)x;
        o->flash_type_given = true;
    } else if (x > UINT32_MAX) {
        fprintf(stderr, "femu-sim: %s=%s: too large\n", k, v);
        return -1;
    } else if (!strcmp(k, "zone_luns")) {
        o->cfg.zone_luns = (uint32_t)x;
    } else if (!strcmp(k, "max_open")) {
        o->cfg.max_open = (uint32_t)x;
    } else if (!strcmp(k, "max_active")) {
        o->cfg.max_active = (uint32_t)x;
    } else if (!strcmp(k, "zns_zrwa_num")) {
        o->zrwa_num = (uint32_t)x;
    } else if (!strcmp(k, "zns_zd_ext_size")) {
        o->zd_ext_size = (uint32_t)x;
    } else if (!strcmp(k, "zns_chnls_per_zone")) {
        o->chnls = x;
        o->chnls_given = true;
    } else if (!strcmp(k, "zasl")) {
        if (x > UINT8_MAX) {
            fprintf(stderr, "femu-sim: %s=%s: too large\n", k, v);
            return -1;
        }
        o->zasl = (uint8_t)x;
    } else if (!strcmp(k, "zns_num_conv_zones")) {
        o->conv_zones = (uint32_t)x;
    } else {
        fprintf(stderr, "femu-sim: unknown property '%s' (femu_mode=3)\n",
                k);
        return -1;
    }
    return 0;
}

/* After every property: FEMU's zoned properties through the checks the
 * device makes (hw/femu/props.c, hw/femu/zns.c), with its messages. */
static int zprops_apply(struct zopts *o, char *err, size_t errlen)
{
    if (o->conv_zones) {
        snprintf(err, errlen, "zns_num_conv_zones=%u: %s", o->conv_zones,
                 ZNS_CONV_ZONES_WHY);
        return -1;
    }
    if (o->zone_cap_given &&
        zns_zone_cap_prop(o->zone_cap, &o->cfg.zone_cap_mb, err, errlen)) {
        return -1;
    }
    if (o->chnls_given &&
        zns_chnls_per_zone_prop(o->chnls, o->cfg.nand.nchs,
                                o->cfg.nand.luns_per_ch, &o->cfg.zone_luns,
                                err, errlen)) {
        return -1;
    }
    if (o->flash_type_given &&
        zns_flash_type_prop(o->flash_type, o->cell_given,
                            &o->cfg.nand.nand_cell_type, err, errlen)) {
        return -1;
    }
    if (o->zasl_bs_given &&
        zns_zasl_bs_prop(o->zasl_bs, &o->zasl, err, errlen)) {
        return -1;
    }
    if (zns_check_zrwa_ext(o->zrwa_size, o->zrwafg_size, o->zrwa_num,
                           o->zd_ext_size, err, errlen)) {
        return -1;
    }
    o->cfg.zrwa_blocks = (uint32_t)o->zrwa_size;
    o->cfg.zrwafg_blocks = (uint32_t)o->zrwafg_size;
    o->cfg.zrwa_num = o->zrwa_num;
    return 0;
}

static int zprop_cb(void *ctx, const char *k, const char *v)
{
    return zset_prop(ctx, k, v);
}

static int zprops(struct zopts *o, const char *arg)
{
    char buf[1024];

    snprintf(buf, sizeof(buf), "%s", arg);
    return sim_each_kv(buf, zprop_cb, o);
}

static void zspec_default(struct zspec *sp, enum zkind k, const char *name)
{
    memset(sp, 0, sizeof(*sp));
    snprintf(sp->name, sizeof(sp->name), "%.31s", name);
    sp->kind = k;
    sp->bs = 4096;
    sp->stride = 1;
    sp->jobs = 1;
    sp->qd = 1;
    sp->seed = 1;
}

/* One KEY=VAL of a zoned phase. */
static int zphase_key(void *ctx, const char *k, const char *v)
{
    static const struct sim_key keys[] = {
        { "first", offsetof(struct zspec, first), 0, UINT32_MAX },
        { "zones", offsetof(struct zspec, zones), 0, UINT32_MAX },
        { "stride", offsetof(struct zspec, stride), 1, UINT32_MAX },
        { "jobs", offsetof(struct zspec, jobs), 1, UINT32_MAX },
        { "qd", offsetof(struct zspec, qd), 1, UINT32_MAX },
        { "rewrite", offsetof(struct zspec, rewrite), 0, 1000 },
        { "seed", offsetof(struct zspec, seed), 0, UINT32_MAX },
    };
    struct zspec *sp = ctx;
    uint64_t x;

    if (sp->kind == Z_ZRWA && !strcmp(k, "commit") &&
        (!strcmp(v, "explicit") || !strcmp(v, "implicit"))) {
        sp->implicit = v[0] == 'i';
        return 0;
    }
    if (sp->kind == Z_ZRWA && !strcmp(k, "order") &&
        (!strcmp(v, "random") || !strcmp(v, "seq"))) {
        sp->seq = v[0] == 's';
        return 0;
    }
    if (sp->kind == Z_ZRWA && !strcmp(k, "unit") &&
        (!strcmp(v, "window") || !strcmp(v, "granule"))) {
        sp->granule = v[0] == 'g';
        return 0;
    }
    if (sp->kind == Z_ZRWA && !strcmp(k, "finish")) {
        return sim_parse_onoff(k, v, &sp->finish);
    }
    if (sp->kind != Z_ZRWA &&
        (!strcmp(k, "rewrite") || !strcmp(k, "seed"))) {
        fprintf(stderr, "femu-sim: phase key %s=%s: zrwa phases only\n", k,
                v);
        return -1;
    }
    if (!strcmp(k, "bs") || !strcmp(k, "size")) {
        if (sim_parse_size(k, v, !strcmp(k, "bs"), &x) < 0) {
            return -1;
        }
        *(!strcmp(k, "bs") ? &sp->bs : &sp->size) = x;
        return 0;
    }
    return sim_phase_u32(keys, sizeof(keys) / sizeof(keys[0]), sp, k, v);
}

static int zparse_phase(const char *arg, struct zspec *sp)
{
    static const char *kinds[] = { "zwrite", "zappend", "zreset", "zfinish",
                                   "zrwa" };
    char buf[512], *kind, *rest;
    int k = -1;

    if (sim_split_phase(arg, buf, sizeof(buf), &kind, &rest) < 0) {
        return -1;
    }
    for (int i = 0; i < 5; i++) {
        if (!strcmp(kind, kinds[i])) {
            k = i;
        }
    }
    if (k < 0) {
        fprintf(stderr, "femu-sim: --phase %s: unknown zoned kind '%s' "
                "(zwrite, zappend, zreset, zfinish, zrwa)\n", arg, kind);
        return -1;
    }
    zspec_default(sp, (enum zkind)k, buf);
    return rest && *rest ? sim_each_kv(rest, zphase_key, sp) : 0;
}

/* A job: its zones are first + (j + k * jobs) * stride, k = 0, 1, ... */
struct zjob {
    uint32_t k;         /* which of its zones it works on */
    uint64_t next;      /* next block it writes there */
    uint64_t end;       /* end of what it writes there */
    bool started;       /* next and end set for zone k */
    /* zrwa: the window [ws, we) being written, its places (nlb blocks
     * each) in the order they are written, the next of them, the pass
     * over the window, a commit or finish due next */
    uint64_t ws, we;
    uint32_t *place, nplace, idx, pass;
    bool commit_due, finish_due;
    uint64_t rng;
};

static const char *zkind_name(enum zkind k)
{
    static const char *n[] = { "zwrite", "zappend", "zreset", "zfinish",
                               "zrwa" };

    return n[k];
}

struct zrun {
    struct zns *z;
    const struct zspec *sp;
    uint32_t nz;        /* zones the phase covers */
    uint32_t lbs;       /* logical block size */
    uint32_t zrwa;      /* blocks a zrwa phase writes before a commit:
                         * the ZRWA size, or its flush granule */
    struct zresult *r;
    enum { C_NONE, C_WRITE, C_IMPLICIT, C_COMMIT, C_FINISH } cls;
    bool oom;
};

/* Job j's current zone, or UINT32_MAX when it has done all of its zones. */
static uint32_t job_zone(const struct zrun *run, uint32_t j,
                         const struct zjob *jb)
{
    uint64_t i = j + (uint64_t)jb->k * run->sp->jobs;

    if (i >= run->nz) {
        return UINT32_MAX;
    }
    return run->sp->first + (uint32_t)(i * run->sp->stride);
}

static uint64_t zrng(uint64_t *st)
{
    uint64_t x = *st;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *st = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* The window's places in the order the next pass writes them. */
static void zrwa_places(const struct zspec *sp, struct zjob *jb)
{
    for (uint32_t i = 0; i < jb->nplace; i++) {
        jb->place[i] = i;
    }
    for (uint32_t i = jb->nplace; !sp->seq && i > 1; i--) {
        uint32_t k = (uint32_t)(zrng(&jb->rng) % i), x = jb->place[i - 1];

        jb->place[i - 1] = jb->place[k];
        jb->place[k] = x;
    }
    jb->idx = 0;
}

/* The next window of the job's zone from jb->next, or the zone's end
 * (a Finish due with finish=on, else the job's next zone). */
static void zrwa_window(struct zrun *run, struct zjob *jb, uint64_t nlb)
{
    uint32_t *p;

    if (jb->next >= jb->end) {
        jb->finish_due = run->sp->finish;
        if (!jb->finish_due) {
            jb->k++;
            jb->started = false;
        }
        return;
    }
    jb->ws = jb->next;
    jb->we = jb->ws + run->zrwa < jb->end ? jb->ws + run->zrwa : jb->end;
    jb->nplace = (uint32_t)((jb->we - jb->ws + nlb - 1) / nlb);
    p = realloc(jb->place, jb->nplace * sizeof(*p));
    if (!p) {
        run->oom = true;
        jb->k = UINT32_MAX / 2;     /* nothing more for this job */
        return;
    }
    jb->place = p;
    jb->pass = 0;
    zrwa_places(run->sp, jb);
}

/* A zrwa phase's next request of job j (see job_issue). */
static bool zrwa_issue(struct zrun *run, uint32_t j, struct zjob *jb,
                       uint64_t t, uint64_t *done)
{
    const struct zspec *sp = run->sp;
    struct zns *z = run->z;
    struct zns_zone_info zi;
    enum zns_result res;
    uint64_t nlb = sp->bs / run->lbs ? sp->bs / run->lbs : 1, wp0;
    uint32_t zone;

    *done = t;
    for (;;) {
        zone = job_zone(run, j, jb);
        if (zone == UINT32_MAX || run->oom) {
            return false;
        }
        if (jb->started) {
            break;
        }
        /* Open Zone with ZRWAA: no NAND time */
        zns_zone_info(z, zone, &zi);
        jb->rng = ((uint64_t)sp->seed << 32 | (j + 1)) ^ zone;
        jb->rng = jb->rng ? jb->rng : 1;
        jb->commit_due = jb->finish_due = false;
        res = zns_zone_open_zrwa(z, zone);
        if (res != ZNS_OK) {
            jb->k++;
            run->r->errors++;
            run->cls = C_NONE;
            return true;
        }
        jb->started = true;
        jb->next = zi.wp;
        jb->end = zi.zslba + zi.zcap;
        if (sp->size && sp->size / run->lbs < jb->end - zi.wp) {
            jb->end = zi.wp + sp->size / run->lbs;
        }
        zrwa_window(run, jb, nlb);
    }
    if (jb->commit_due || jb->finish_due) {
        bool commit = jb->commit_due;

        zns_zone_info(z, zone, &zi);
        if (commit) {
            res = zns_zrwa_commit(z, jb->we - 1, t, done);
            jb->commit_due = false;
        } else {
            res = zi.state == ZNS_FULL ? ZNS_OK :
                  zns_zone_action(z, zone, false, ZNS_ACT_FINISH, t, done);
            jb->finish_due = false;
        }
        run->cls = commit ? C_COMMIT : C_FINISH;
        if (res != ZNS_OK) {
            run->r->errors++;
            *done = t;
            jb->k++;
            jb->started = false;
        } else if (commit) {
            jb->next = jb->we;
            zrwa_window(run, jb, nlb);
        } else {
            jb->k++;
            jb->started = false;
        }
        return true;
    }
    {
        uint64_t off = jb->ws + (uint64_t)jb->place[jb->idx] * nlb;
        uint64_t n = nlb < jb->we - off ? nlb : jb->we - off;

        zns_zone_info(z, zone, &zi);
        wp0 = zi.wp;
        res = zns_write(z, off, (uint32_t)n, false, t, NULL, done);
        zns_zone_info(z, zone, &zi);
        run->cls = zi.wp != wp0 ? C_IMPLICIT : C_WRITE;
        if (res != ZNS_OK) {
            run->r->errors++;
            *done = t;
            jb->k++;
            jb->started = false;
            return true;
        }
        run->r->bytes += n * run->lbs;
    }
    if (++jb->idx == jb->nplace) {
        if (++jb->pass <= sp->rewrite) {
            zrwa_places(sp, jb);
        } else if (!sp->implicit) {
            jb->commit_due = true;
        } else {
            jb->next = jb->we;
            zrwa_window(run, jb, nlb);
        }
    }
    return true;
}

/* Issue job j's next request at time t (false: it has none left);
 * *done is its completion, t for a request that failed. */
static bool job_issue(struct zrun *run, uint32_t j, struct zjob *jb,
                      uint64_t t, uint64_t *done)
{
    const struct zspec *sp = run->sp;
    struct zns *z = run->z;
    enum zns_result res;
    uint32_t zone;
    uint64_t nlb;

    if (sp->kind == Z_ZRWA) {
        return zrwa_issue(run, j, jb, t, done);
    }
    for (;;) {
        zone = job_zone(run, j, jb);
        if (zone == UINT32_MAX) {
            return false;
        }
        if (sp->kind == Z_RESET || sp->kind == Z_FINISH) {
            res = zns_zone_action(z, zone, false,
                                  sp->kind == Z_RESET ? ZNS_ACT_RESET
                                                      : ZNS_ACT_FINISH,
                                  t, done);
            jb->k++;
            break;
        }
        if (!jb->started) {
            struct zns_zone_info zi;

            zns_zone_info(z, zone, &zi);
            jb->next = zi.wp;
            jb->end = zi.zslba + zi.zcap;
            if (sp->size && sp->size / run->lbs < jb->end - zi.wp) {
                jb->end = zi.wp + sp->size / run->lbs;
            }
            jb->started = true;
        }
        if (jb->next >= jb->end) {
            jb->k++;
            jb->started = false;
            continue;
        }
        nlb = sp->bs / run->lbs ? sp->bs / run->lbs : 1;
        if (nlb > jb->end - jb->next) {
            nlb = jb->end - jb->next;
        }
        res = zns_write(z, sp->kind == Z_APPEND ? zone * zns_zone_blocks(z)
                                                : jb->next,
                        (uint32_t)nlb, sp->kind == Z_APPEND, t, NULL, done);
        if (res == ZNS_OK) {
            jb->next += nlb;
            run->r->bytes += nlb * run->lbs;
        } else {
            jb->k++;            /* the rest of this zone would fail too */
            jb->started = false;
        }
        break;
    }
    if (res != ZNS_OK) {
        run->r->errors++;
        *done = t;
    }
    return true;
}

static void zdiff(const struct zns_counters *a, const struct zns_counters *b,
                  struct zns_counters *d)
{
    d->host_pages_written = b->host_pages_written - a->host_pages_written;
    d->host_pages_programmed =
        b->host_pages_programmed - a->host_pages_programmed;
    d->host_pages_read = b->host_pages_read - a->host_pages_read;
    d->zone_resets = b->zone_resets - a->zone_resets;
    d->blocks_erased = b->blocks_erased - a->blocks_erased;
}

/*
 * One phase: jobs x qd slots, each free at some emulated time; the
 * earliest free slot issues its job's next request (ties: the lowest
 * slot), until no job has one left.
 */
static int zrun_phase(struct zns *z, const struct zspec *sp,
                      const struct zns_config *zc, uint64_t *now,
                      struct zresult *r)
{
    uint32_t nzones = zns_nr_zones(z), nslots = sp->jobs * sp->qd;
    struct zns_counters before, after;
    struct zjob *jobs;
    uint64_t *slot, end = *now;
    bool *idle;
    uint32_t lbs = zc->nand.secsz;
    struct zrun run = {
        .z = z, .sp = sp, .lbs = lbs, .r = r,
        .zrwa = sp->granule ? zc->zrwafg_blocks : zc->zrwa_blocks,
    };

    memset(r, 0, sizeof(*r));
    if (sp->kind == Z_ZRWA && !zc->zrwa_blocks) {
        fprintf(stderr, "femu-sim: phase %s: zrwa needs zns_zrwa_size "
                "(with zns_zrwafg_size and zns_zrwa_num)\n", sp->name);
        return -1;
    }
    if (sp->first >= nzones) {
        fprintf(stderr, "femu-sim: phase %s: first=%u: the namespace has "
                "%u zones\n", sp->name, sp->first, nzones);
        return -1;
    }
    run.nz = (nzones - sp->first + sp->stride - 1) / sp->stride;
    if (sp->zones) {
        if (sp->zones > run.nz) {
            fprintf(stderr, "femu-sim: phase %s: zones=%u from zone %u "
                    "every %u: only %u zones\n", sp->name, sp->zones,
                    sp->first, sp->stride, run.nz);
            return -1;
        }
        run.nz = sp->zones;
    }
    jobs = calloc(sp->jobs, sizeof(*jobs));
    slot = calloc(nslots, sizeof(*slot));
    idle = calloc(nslots, sizeof(*idle));
    if (!jobs || !slot || !idle) {
        fprintf(stderr, "femu-sim: out of memory\n");
        free(jobs);
        free(slot);
        free(idle);
        return -1;
    }
    for (uint32_t i = 0; i < nslots; i++) {
        slot[i] = *now;
    }
    zns_get_counters(z, &before);
    for (;;) {
        uint32_t best = UINT32_MAX;
        uint64_t done;

        for (uint32_t i = 0; i < nslots; i++) {
            if (!idle[i] && (best == UINT32_MAX || slot[i] < slot[best])) {
                best = i;
            }
        }
        if (best == UINT32_MAX) {
            break;
        }
        if (!job_issue(&run, best / sp->qd, &jobs[best / sp->qd],
                       slot[best], &done)) {
            idle[best] = true;
            continue;
        }
        r->requests++;
        switch (run.cls) {
        case C_WRITE:
            r->zw_n++;
            r->zw_lat += done - slot[best];
            break;
        case C_IMPLICIT:
            r->zi_n++;
            r->zi_lat += done - slot[best];
            break;
        case C_COMMIT:
            r->zc_n++;
            r->zc_lat += done - slot[best];
            break;
        case C_FINISH:
            r->zf_n++;
            r->zf_lat += done - slot[best];
            break;
        default:
            break;
        }
        run.cls = C_NONE;
        r->lat_sum_ns += done - slot[best];
        if (done - slot[best] > r->lat_max_ns) {
            r->lat_max_ns = done - slot[best];
        }
        slot[best] = done;
        if (done > end) {
            end = done;
        }
    }
    zns_get_counters(z, &after);
    zdiff(&before, &after, &r->d);
    r->emul_ns = end - *now;
    *now = end;
    for (uint32_t i = 0; i < sp->jobs; i++) {
        free(jobs[i].place);
    }
    free(jobs);
    free(slot);
    free(idle);
    if (run.oom) {
        fprintf(stderr, "femu-sim: out of memory\n");
        return -1;
    }
    return 0;
}

static double mib_s(const struct zresult *r)
{
    return r->emul_ns ? (double)r->bytes / 1048576.0 /
                        ((double)r->emul_ns / 1e9) : 0.0;
}

static double lat_us(const struct zresult *r)
{
    return r->requests ? (double)r->lat_sum_ns / (double)r->requests / 1e3
                       : 0.0;
}

static double zavg_us(uint64_t sum, uint64_t n)
{
    return n ? (double)sum / (double)n / 1e3 : 0.0;
}

static void zprint_human(const struct zns *z, const struct zopts *o,
                         const struct zspec *sp, const struct zresult *r,
                         int n)
{
    const struct ftl_config *c = &o->cfg.nand;
    struct zns_counters t;
    struct ftl_wear_info w;

    printf("femu-sim: femu_mode=3 nchs=%u luns_per_ch=%u pls_per_lun=%u "
           "blks_per_pl=%u pgs_per_blk=%u secsz=%u secs_per_pg=%u "
           "zone_luns=%u zone_size_mb=%" PRIu64 " zone_cap_mb=%" PRIu64
           " max_open=%u max_active=%u pg_rd_lat=%" PRIu64 " pg_wr_lat=%"
           PRIu64 " blk_er_lat=%" PRIu64 " ch_xfer_lat=%" PRIu64 "\n",
           c->nchs, c->luns_per_ch, c->pls_per_lun, c->blks_per_pl,
           c->pgs_per_blk, c->secsz, c->secs_per_pg, o->cfg.zone_luns,
           o->cfg.zone_size_mb, o->cfg.zone_cap_mb, o->cfg.max_open,
           o->cfg.max_active, c->pg_rd_lat, c->pg_wr_lat, c->blk_er_lat,
           c->ch_xfer_lat);
    if (o->cfg.zrwa_blocks || o->zd_ext_size || !o->cross_zone_read ||
        o->zasl) {
        printf("zoned: zns_zrwa_size=%u zns_zrwafg_size=%u zns_zrwa_num=%u "
               "zns_zd_ext_size=%u zns_cross_zone_read=%s zasl=%u\n",
               o->cfg.zrwa_blocks, o->cfg.zrwafg_blocks, o->cfg.zrwa_num,
               o->zd_ext_size, o->cross_zone_read ? "on" : "off", o->zasl);
    }
    printf("namespace: %u zones of %" PRIu64 " blocks of %u B, capacity %"
           PRIu64 " blocks, %u LUN groups\n", zns_nr_zones(z),
           zns_zone_blocks(z), c->secsz, zns_zone_cap_blocks(z),
           c->nchs * c->luns_per_ch / o->cfg.zone_luns);
    printf("%-10s %-8s %7s %4s %4s %8s %12s %12s %6s %7s %6s %10s %9s "
           "%10s %10s\n", "phase", "workload", "bs", "jobs", "qd",
           "requests", "host_written", "programmed", "resets", "erased",
           "errors", "emul_s", "MiB/s", "lat_us", "max_us");
    for (int i = 0; i < n; i++) {
        printf("%-10s %-8s %7" PRIu64 " %4u %4u %8" PRIu64 " %12" PRIu64
               " %12" PRIu64 " %6" PRIu64 " %7" PRIu64 " %6" PRIu64
               " %10.6f %9.3f %10.1f %10.1f\n", sp[i].name,
               zkind_name(sp[i].kind), sp[i].bs, sp[i].jobs, sp[i].qd,
               r[i].requests, r[i].d.host_pages_written,
               r[i].d.host_pages_programmed, r[i].d.zone_resets,
               r[i].d.blocks_erased, r[i].errors, r[i].emul_ns / 1e9,
               mib_s(&r[i]), lat_us(&r[i]), r[i].lat_max_ns / 1e3);
    }
    for (int i = 0; i < n; i++) {
        if (sp[i].kind != Z_ZRWA) {
            continue;
        }
        printf("zrwa %s: commit=%s unit=%s rewrite=%u order=%s: "
               "window_writes=%"
               PRIu64 " (%.1f us) committing_writes=%" PRIu64 " (%.1f us) "
               "commits=%" PRIu64 " (%.1f us) finishes=%" PRIu64 " (%.1f us) "
               "programmed=%" PRIu64 " waf_x1000=%" PRIu64 "\n", sp[i].name,
               sp[i].implicit ? "implicit" : "explicit",
               sp[i].granule ? "granule" : "window", sp[i].rewrite,
               sp[i].seq ? "seq" : "random", r[i].zw_n,
               zavg_us(r[i].zw_lat, r[i].zw_n), r[i].zi_n,
               zavg_us(r[i].zi_lat, r[i].zi_n), r[i].zc_n,
               zavg_us(r[i].zc_lat, r[i].zc_n), r[i].zf_n,
               zavg_us(r[i].zf_lat, r[i].zf_n), r[i].d.host_pages_programmed,
               r[i].d.host_pages_written ?
               r[i].d.host_pages_programmed * 1000 /
               r[i].d.host_pages_written : 1000);
    }
    zns_get_counters(z, &t);
    printf("C0h since start: waf_x1000=%u host_pages_written=%" PRIu64
           " gc_pages_moved=0 host_pages_programmed=%" PRIu64
           " zone_resets=%" PRIu64 " blocks_erased=%" PRIu64 "\n",
           zns_waf_x1000(z), t.host_pages_written, t.host_pages_programmed,
           t.zone_resets, t.blocks_erased);
    if (zns_wcache_pages(z)) {
        struct zns_wc_counters wc;

        zns_wcache_counters(z, &wc);
        printf("write cache: write_cache_mb=%u (%" PRIu64 " pages): "
               "pages_cached=%" PRIu64 " full_waits=%" PRIu64 "\n",
               c->write_cache_mb, zns_wcache_pages(z), wc.pages_cached,
               wc.full_waits);
    }
    zns_get_wear(z, &w);
    printf("wear: erase_count min=%u max=%u mean=%.2f stddev=%.2f "
           "pe_cycles=%u percentage_used=%u (per zone: a reset erases its "
           "blocks)\n", w.erase_min, w.erase_max, w.erase_mean,
           w.erase_stddev, o->cfg.nand.pe_cycles, w.pct_used);
    printf("bad blocks: grown=%u zones_worn_out=%u available_spare=%u%% "
           "read_only=%s\n", w.grown_bad_blocks, w.retired_lines,
           w.spare_pcent, w.read_only ? "yes" : "no");
}

static void zprint_json(const struct zns *z, const struct zopts *o,
                        const struct zspec *sp, const struct zresult *r,
                        int n)
{
    const struct ftl_config *c = &o->cfg.nand;
    struct zns_counters t;
    struct ftl_wear_info w;

    printf("{\"config\": {\"femu_mode\": 3, \"nchs\": %u, "
           "\"luns_per_ch\": %u, \"pls_per_lun\": %u, \"blks_per_pl\": %u, "
           "\"pgs_per_blk\": %u, \"secsz\": %u, \"zone_luns\": %u, "
           "\"zones\": %u, \"zone_blocks\": %" PRIu64 ", \"zone_cap_blocks\": %"
           PRIu64 ", \"max_open\": %u, \"max_active\": %u, \"pg_wr_lat\": %"
           PRIu64 ", \"blk_er_lat\": %" PRIu64 ", \"zns_zrwa_size\": %u, "
           "\"zns_zrwafg_size\": %u, \"zns_zrwa_num\": %u, "
           "\"zns_zd_ext_size\": %u, \"zns_cross_zone_read\": %s, "
           "\"zasl\": %u, \"nand_cell_type\": %u},\n \"phases\": [",
           c->nchs, c->luns_per_ch, c->pls_per_lun, c->blks_per_pl,
           c->pgs_per_blk, c->secsz, o->cfg.zone_luns, zns_nr_zones(z),
           zns_zone_blocks(z), zns_zone_cap_blocks(z), o->cfg.max_open,
           o->cfg.max_active, c->pg_wr_lat, c->blk_er_lat,
           o->cfg.zrwa_blocks, o->cfg.zrwafg_blocks, o->cfg.zrwa_num,
           o->zd_ext_size, o->cross_zone_read ? "true" : "false", o->zasl,
           c->nand_cell_type);
    for (int i = 0; i < n; i++) {
        printf("%s\n  {\"name\": \"%s\", \"workload\": \"%s\", \"bs\": %"
               PRIu64 ", \"jobs\": %u, \"qd\": %u, \"requests\": %" PRIu64
               ", \"bytes\": %" PRIu64 ", \"host_pages_written\": %" PRIu64
               ", \"host_pages_programmed\": %" PRIu64 ", \"zone_resets\": %"
               PRIu64 ", \"blocks_erased\": %" PRIu64 ", \"errors\": %" PRIu64
               ", \"emul_ns\": %" PRIu64 ", \"lat_sum_ns\": %" PRIu64
               ", \"lat_max_ns\": %" PRIu64, i ? "," : "", sp[i].name,
               zkind_name(sp[i].kind), sp[i].bs, sp[i].jobs, sp[i].qd,
               r[i].requests, r[i].bytes, r[i].d.host_pages_written,
               r[i].d.host_pages_programmed, r[i].d.zone_resets,
               r[i].d.blocks_erased, r[i].errors, r[i].emul_ns,
               r[i].lat_sum_ns, r[i].lat_max_ns);
        if (sp[i].kind == Z_ZRWA) {
            printf(", \"zrwa\": {\"commit\": \"%s\", \"unit\": \"%s\", "
                   "\"rewrite\": %u, "
                   "\"order\": \"%s\", \"window_writes\": %" PRIu64
                   ", \"window_write_lat_sum_ns\": %" PRIu64
                   ", \"committing_writes\": %" PRIu64
                   ", \"committing_write_lat_sum_ns\": %" PRIu64
                   ", \"commits\": %" PRIu64 ", \"commit_lat_sum_ns\": %"
                   PRIu64 ", \"finishes\": %" PRIu64
                   ", \"finish_lat_sum_ns\": %" PRIu64 "}",
                   sp[i].implicit ? "implicit" : "explicit",
                   sp[i].granule ? "granule" : "window", sp[i].rewrite,
                   sp[i].seq ? "seq" : "random", r[i].zw_n, r[i].zw_lat,
                   r[i].zi_n, r[i].zi_lat, r[i].zc_n, r[i].zc_lat,
                   r[i].zf_n, r[i].zf_lat);
        }
        printf("}");
    }
    zns_get_counters(z, &t);
    printf("],\n \"total\": {\"waf_x1000\": %u, \"host_pages_written\": %"
           PRIu64 ", \"gc_pages_moved\": 0, \"host_pages_programmed\": %"
           PRIu64 ", \"zone_resets\": %" PRIu64 ", \"blocks_erased\": %"
           PRIu64 "},\n", zns_waf_x1000(z), t.host_pages_written,
           t.host_pages_programmed, t.zone_resets, t.blocks_erased);
    zns_get_wear(z, &w);
    printf(" \"wear\": {\"erase_min\": %u, \"erase_max\": %u, "
           "\"erase_mean\": %.4f, \"erase_stddev\": %.4f, "
           "\"pe_cycles\": %u, \"percentage_used\": %u, "
           "\"grown_bad_blocks\": %u, \"zones_worn_out\": %u, "
           "\"available_spare\": %u, \"read_only\": %s}}\n", w.erase_min,
           w.erase_max, w.erase_mean, w.erase_stddev, o->cfg.nand.pe_cycles,
           w.pct_used, w.grown_bad_blocks, w.retired_lines, w.spare_pcent,
           w.read_only ? "true" : "false");
}

int sim_zoned_main(int argc, char **argv)
{
    static struct zspec ph[ZMAX_PHASES];
    static struct zresult res[ZMAX_PHASES];
    struct zopts o;
    struct zns *z;
    char err[256];
    uint64_t now = 0;
    int nph = 0;

    memset(&o, 0, sizeof(o));
    zns_config_default(&o.cfg);
    o.cross_zone_read = true;   /* the device's default */
    o.delay = FTL_DELAY_CONFIGURED;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            zusage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            o.json = true;
        } else if (!strcmp(a, "--phase") || !strncmp(a, "--phase=", 8)) {
            const char *v = sim_phase_value(argc, argv, &i);

            if (!v) {
                return 2;
            }
            if (nph == ZMAX_PHASES) {
                fprintf(stderr, "femu-sim: too many phases\n");
                return 2;
            }
            if (zparse_phase(v, &ph[nph]) < 0) {
                return 2;
            }
            nph++;
        } else if (a[0] == '-') {
            fprintf(stderr, "femu-sim: %s: not an option of the zoned "
                    "mode\n", a);
            zusage(stderr);
            return 2;
        } else if (zprops(&o, a) < 0) {
            return 2;
        }
    }
    if (nph == 0) {
        zspec_default(&ph[nph++], Z_WRITE, "fill");
        zspec_default(&ph[nph++], Z_RESET, "reset");
    }
    if (zprops_apply(&o, err, sizeof(err)) < 0) {
        fprintf(stderr, "femu-sim: %s\n", err);
        return 1;
    }
    z = zns_new(&o.cfg, err, sizeof(err));
    if (!z) {
        fprintf(stderr, "femu-sim: %s\n", err);
        return 1;
    }
    zns_set_delay_mode(z, o.delay);
    for (int i = 0; i < nph; i++) {
        if (zrun_phase(z, &ph[i], &o.cfg, &now, &res[i]) < 0) {
            zns_free(z);
            return 2;
        }
    }
    if (o.json) {
        zprint_json(z, &o, ph, res, nph);
    } else {
        zprint_human(z, &o, ph, res, nph);
    }
    zns_free(z);
    return 0;
}
