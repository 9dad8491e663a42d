/*
 * femu-sim: drive the FEMU BlackBox FTL with the tutorial workloads and
 * print the counters of log page C0h (and FDP statistics) per phase.
 *
 *   femu-sim nchs=4,luns_per_ch=4,blks_per_pl=128,op_pcent=25 --waf-run
 *   femu-sim nchs=4,... --phase fill:seqfill,bs=128k \
 *                       --phase age:randwrite,bs=4k,size=4g,zipf=1.2
 *
 * Device options are spelled like the `femu` device properties.  Every
 * phase reports the counter differences over that phase, as tutorial 02's
 * waf-run.sh computes them from C0h before and after.  A run is
 * deterministic for a given --seed.
 *
 * State files (docs/state.md): --save-state FILE writes the FTL
 * after the run in the format the `femu` device's state= property loads;
 * --load-state FILE starts from one instead of an empty SSD.
 *   femu-sim PROPS --waf-run=part=precondition --save-state aged.femu
 *   femu-sim PROPS --load-state aged.femu --waf-run=part=measure
 * gives the same measure phase as one `femu-sim PROPS --waf-run`.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw/femu/ftl.h"
#include "hw/femu/ftl-props.h"
#include "replay.h"
#include "workload.h"
#include "zoned.h"

#define MAX_PHASES 32
#define LOOKAHEAD 4

/* QD1 read latencies of a phase: the most frequent distinct values (a
 * NAND with page types gives one per type) and the rest. */
#define LAT_MODES 16
struct lat_hist {
    uint64_t val[LAT_MODES], cnt[LAT_MODES];
    uint32_t nval;
    uint64_t other, n, sum;
};

static void lat_add(struct lat_hist *h, uint64_t v)
{
    h->n++;
    h->sum += v;
    for (uint32_t i = 0; i < h->nval; i++) {
        if (h->val[i] == v) {
            h->cnt[i]++;
            return;
        }
    }
    if (h->nval < LAT_MODES) {
        h->val[h->nval] = v;
        h->cnt[h->nval++] = 1;
    } else {
        h->other++;
    }
}

/* the distinct values in ascending order */
static void lat_sort(struct lat_hist *h)
{
    for (uint32_t i = 1; i < h->nval; i++) {
        for (uint32_t j = i; j > 0 && h->val[j - 1] > h->val[j]; j--) {
            uint64_t v = h->val[j], c = h->cnt[j];
            h->val[j] = h->val[j - 1];
            h->cnt[j] = h->cnt[j - 1];
            h->val[j - 1] = v;
            h->cnt[j - 1] = c;
        }
    }
}

struct phase_result {
    struct wl_spec spec;
    const char *label;         /* the workload column; NULL: spec.kind */
    struct ftl_counters d;     /* counter differences */
    struct lat_hist rlat;      /* read latencies (timing on) */
    uint64_t requests, write_errors, events, reads;
    uint64_t emul_ns;          /* emulated time the phase took at QD1 */
    uint32_t waf_x1000;
    /* write latencies (timing on): sum and count, for the write cache */
    uint64_t wlat_sum, wlat_n;
    uint64_t flush_ns;         /* the end-of-phase flush (write cache) */
    /* namespaces=N: each namespace's counter differences (nsctr.c) */
    struct ftl_ns_counters nsd[FTL_MAX_NS_RANGES];
};

static void usage(FILE *f)
{
    fprintf(f,
"usage: femu-sim [PROP=VAL,...] [--seed=N] [--json] [--phase SPEC]...\n"
"                [--waf-run[=KEY=VAL,...]]\n"
"\n"
"Device properties (as -device femu,...): nchs luns_per_ch pls_per_lun\n"
"  blks_per_pl pgs_per_blk secsz secs_per_pg devsz_mb op_pcent pg_rd_lat\n"
"  pg_wr_lat blk_er_lat ch_xfer_lat gc_thres_pcent gc_thres_pcent_high\n"
"  gc_policy=greedy|cost-benefit|fifo|random|d-choice gc_strategy=0..4\n"
"  hot_cold_sep=on|off gc_own_line=on|off fdp.nruh fdp.nru\n"
"  nand_cell_type=0..4 (uniform, SLC, MLC, TLC, QLC) lsb|csb|msb|tsb_rd_lat\n"
"  lsb|csb|msb|tsb_wr_lat pgtype_lat cell_pages trim_lat_ns read_cache_mb\n"
"  cache_evict=clock|random|lru|arc pcie_bandwidth_mbps pcie_prop_delay_ns\n"
"  fw_cpu_ns mapping=page|dftl|hybrid|fast mapping_cache_mb log_blocks\n"
"  pe_cycles nand_bad_blocks wear_leveling=on|off wl_threshold\n"
"  write_cache_mb namespaces namespace_sizes namespace_modes=bbssd|nossd\n"
"  (a list: ',,' is a comma inside a value, as in QEMU); run-time\n"
"  controls: gc_delay=on|off\n"
"  (0xEF codes 1/2), delay=configured|builtin|off (0xEF codes 3/4).\n"
"\n"
"--phase NAME:KIND[,KEY=VAL...]  KIND: seqfill randwrite hotcold randtrim\n"
"  randread (QD1 read latencies are reported by value)\n"
"  keys: bs (4k; seqfill 128k) size (bytes to write; default the region)\n"
"  offset region zipf=THETA pid=N hot=PCENT(20) hot_share=PCENT(50)\n"
"  hot_pid cold_pid ns=N (namespaces=N: the namespace written)\n"
"  randommap=on|off (off: independent draws, like fio's\n"
"  norandommap; on: each block once per pass, like fio's default)\n"
"--waf-run[=fill_bs=128k,age=4g,measure=4g,bs=4k,zipf=THETA,pid=N,\n"
"           randommap=on|off,part=all|precondition|measure]\n"
"  tutorial 02's waf-run.sh: sequential fill of the whole namespace,\n"
"  age, measure (the default); uniform writes keep fio's random map\n"
"  (randommap=on), Zipf draws are independent as in fio; part=\n"
"  precondition runs fill and age only, part=measure the measure only\n"
"--save-state FILE  write the SSD state after the run (device state=);\n"
"  after --load-state it keeps the device's sections (SMART counters,\n"
"  host data less the blocks this run wrote or trimmed)\n"
"--load-state FILE  start from a saved state (no phase: just print it)\n"
"  both take the device's lock on FILE.lock\n"
"--seed=N (1)  --json  --timing=on|off (emulated QD1 time; on)\n"
"--replay=PATH  apply an I/O trace after the phases (docs/trace.md):\n"
"  --replay-format=femu|msr|blkparse|iolog (femu: the device's io_trace=;\n"
"  its properties are the defaults, the geometry must match)\n"
"  --replay-offsets=exact|wrap|scale  --replay-pace=fast|trace (trace:\n"
"  arrivals at the trace's times, latency histogram)\n"
"  --replay-event=D|Q (blkparse: dispatch or queue events)\n"
"--record=PATH  write the FTL requests of the run as a femu trace\n"
"\n"
"With femu_mode=3 among the properties: the zoned namespace (femu-sim\n"
"femu_mode=3 --help lists its phases).\n");
}

static int parse_u64(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno || end == v || *end) {
        return -1;
    }
    *out = x;
    return 0;
}

/* KEY=VAL's VAL as a number up to max; -1 (message printed) if not. */
int sim_parse_num(const char *k, const char *v, uint64_t max, uint64_t *out)
{
    if (parse_u64(v, out) < 0 || *out > max) {
        fprintf(stderr, "femu-sim: %s=%s: not a number\n", k, v);
        return -1;
    }
    return 0;
}

/* KEY=VAL's VAL as a size (4k, 1g, ...) of at least min; -1 (message
 * printed) if not. */
int sim_parse_size(const char *k, const char *v, uint64_t min, uint64_t *out)
{
    if (wl_parse_size(v, out) < 0 || *out < min) {
        fprintf(stderr, "femu-sim: %s=%s: not a size\n", k, v);
        return -1;
    }
    return 0;
}

/* A numeric phase key among keys: VAL in the key's range, stored in the
 * uint32_t at its offset in dst; -1 (message printed) if not. */
int sim_phase_u32(const struct sim_key *keys, size_t n, void *dst,
                  const char *k, const char *v)
{
    uint64_t x;

    if (sim_parse_num(k, v, UINT32_MAX, &x) < 0) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(k, keys[i].name) && x >= keys[i].min &&
            x <= keys[i].max) {
            uint32_t y = (uint32_t)x;

            memcpy((char *)dst + keys[i].off, &y, sizeof(y));
            return 0;
        }
    }
    fprintf(stderr, "femu-sim: phase key %s=%s: unknown or out of range\n",
            k, v);
    return -1;
}

static int parse_bool(const char *v, bool *out)
{
    if (!strcmp(v, "on") || !strcmp(v, "true") || !strcmp(v, "1") ||
        !strcmp(v, "yes")) {
        *out = true;
        return 0;
    }
    if (!strcmp(v, "off") || !strcmp(v, "false") || !strcmp(v, "0") ||
        !strcmp(v, "no")) {
        *out = false;
        return 0;
    }
    return -1;
}

/* KEY=VAL's VAL as on/off (true/false, 1/0, yes/no); -1 (message
 * printed) if not. */
static int parse_onoff(const char *k, const char *v, bool *out)
{
    if (parse_bool(v, out) < 0) {
        fprintf(stderr, "femu-sim: %s=%s: on or off\n", k, v);
        return -1;
    }
    return 0;
}

int sim_parse_onoff(const char *k, const char *v, bool *out)
{
    return parse_onoff(k, v, out);
}

/* delay=configured|builtin|off (0xEF codes 3/4); -1 (message printed)
 * for anything else. */
int sim_parse_delay(const char *v, enum ftl_delay_mode *out)
{
    if (!strcmp(v, "configured")) {
        *out = FTL_DELAY_CONFIGURED;
    } else if (!strcmp(v, "builtin")) {
        *out = FTL_DELAY_BUILTIN;
    } else if (!strcmp(v, "off")) {
        *out = FTL_DELAY_OFF;
    } else {
        fprintf(stderr, "femu-sim: delay=%s: configured, builtin or off\n",
                v);
        return -1;
    }
    return 0;
}

struct sim_opts {
    struct ftl_config cfg;
    bool gc_delay;
    enum ftl_delay_mode delay;
    bool timing, json;
    uint64_t seed;
    /* with --load-state: one bit per logical block this run wrote or
     * trimmed (their data in the loaded file's DATA sections is gone) */
    uint64_t *touched;
    struct ftl_iotrace_writer *rec;   /* --record */
    /*
     * namespaces, namespace_sizes, namespace_modes (the femu device's
     * properties, docs/namespaces.md): as given, then laid out by
     * sim_ns_layout the way the device does: BlackBox namespaces in NSID
     * order from FTL block 0, the FTL sized to their sum; NoSSD ones
     * take no FTL space
     */
    uint32_t nns;
    char ns_sizes[512], ns_modes[512];
    bool ns_sizes_given, ns_modes_given;
    bool ns_nossd[FTL_MAX_NS_RANGES];
    uint64_t ns_mb[FTL_MAX_NS_RANGES];
    uint64_t ns_base[FTL_MAX_NS_RANGES], ns_blocks[FTL_MAX_NS_RANGES];
    int ns_range[FTL_MAX_NS_RANGES];  /* FTL counter range, -1: NoSSD */
};

static void touch(const struct sim_opts *o, uint64_t slba, uint32_t nlb)
{
    if (!o->touched) {
        return;
    }
    for (uint64_t b = slba; b < slba + nlb; b++) {
        o->touched[b / 64] |= UINT64_C(1) << (b % 64);
    }
}

static bool touched(const struct sim_opts *o, uint64_t b)
{
    return o->touched && (o->touched[b / 64] >> (b % 64) & 1);
}

/*
 * The FTL's properties (the rows of ftl_props[], which the femu device's
 * properties are made from) and femu-subsys's FDP numbers: 1 when k is
 * one of them (set and checked against the row's limits), 0 when not,
 * -1 for a bad value (message printed).  Zoned mode uses it too.
 */
int sim_num_prop(struct ftl_config *c, const char *k, const char *v)
{
    static const struct femu_prop fdp_props[] = {
        { .name = "fdp.nruh", .kind = FEMU_PROP_U32,
          .off = offsetof(struct ftl_config, fdp_nruh),
          .flags = FEMU_PROP_NO_LIMITS },
        { .name = "fdp.nru", .kind = FEMU_PROP_U32,
          .off = offsetof(struct ftl_config, fdp_nru),
          .flags = FEMU_PROP_NO_LIMITS },
    };
    const struct femu_prop *p = femu_prop_find(ftl_props, ftl_nprops, k);
    char err[256];

    if (!p) {
        p = femu_prop_find(fdp_props, 2, k);
    }
    if (!p) {
        return 0;
    }
    if (femu_prop_parse(p, c, v, err, sizeof(err)) < 0 ||
        femu_prop_check(p, c, err, sizeof(err)) < 0) {
        fprintf(stderr, "femu-sim: %s\n", err);
        return -1;
    }
    return 1;
}

static int set_prop(struct sim_opts *o, const char *k, const char *v)
{
    struct ftl_config *c = &o->cfg;
    uint64_t x;
    int r = sim_num_prop(c, k, v);

    if (r) {
        return r < 0 ? -1 : 0;
    }
    if (!strcmp(k, "namespaces")) {
        if (parse_u64(v, &x) < 0 || x < 1 || x > FTL_MAX_NS_RANGES) {
            fprintf(stderr, "femu-sim: namespaces=%s: must be 1..%d\n", v,
                    FTL_MAX_NS_RANGES);
            return -1;
        }
        o->nns = (uint32_t)x;
    } else if (!strcmp(k, "namespace_sizes") ||
               !strcmp(k, "namespace_modes")) {
        bool sizes = k[10] == 's';

        snprintf(sizes ? o->ns_sizes : o->ns_modes, sizeof(o->ns_sizes),
                 "%s", v);
        *(sizes ? &o->ns_sizes_given : &o->ns_modes_given) = true;
    } else if (!strcmp(k, "femu_mode")) {
        if (strcmp(v, "1")) {
            fprintf(stderr, "femu-sim: femu_mode=%s: 1 (BlackBox) or 3 "
                    "(zoned)\n", v);
            return -1;
        }
    } else if (!strcmp(k, "gc_strategy")) {
        if (parse_u64(v, &x) < 0 || x > FTL_GC_DCHOICE) {
            fprintf(stderr, "femu-sim: gc_strategy=%s: must be 0..4\n", v);
            return -1;
        }
        c->gc_policy = (enum ftl_gc_policy)x;
    } else if (!strcmp(k, "fdp")) {
        bool on;
        if (parse_onoff(k, v, &on) < 0) {
            return -1;
        }
        if (!on) {
            c->fdp_nruh = 0;
        } else if (c->fdp_nruh == 0) {
            c->fdp_nruh = 1;
        }
    } else if (!strcmp(k, "gc_delay")) {
        return parse_onoff(k, v, &o->gc_delay);
    } else if (!strcmp(k, "delay")) {
        return sim_parse_delay(v, &o->delay);
    } else {
        fprintf(stderr, "femu-sim: unknown property '%s'\n", k);
        return -1;
    }
    return 0;
}

/*
 * Split "a=1,b=2" in place and call fn for each pair.  As in QEMU's
 * -device options, ",," is a comma inside a value (namespace_sizes=4G,,2G).
 */
int sim_each_kv(char *s, int (*fn)(void *, const char *, const char *),
                void *ctx)
{
    char *p = s;

    while (*p) {
        char *tok = p, *w = p, *eq;

        /* one token: up to a lone comma, ",," kept as one comma */
        while (*p && !(*p == ',' && p[1] != ',')) {
            if (*p == ',') {
                p++;
            }
            *w++ = *p++;
        }
        if (*p) {
            p++;
        }
        *w = '\0';
        if (!*tok) {
            continue;
        }
        eq = strchr(tok, '=');
        if (!eq) {
            fprintf(stderr, "femu-sim: '%s': expected KEY=VALUE\n", tok);
            return -1;
        }
        *eq = '\0';
        if (fn(ctx, tok, eq + 1) < 0) {
            return -1;
        }
    }
    return 0;
}

/* a namespace_sizes entry: whole MiB, with a K, M, G or T suffix (or
 * bytes); 0 = not a size */
static uint64_t ns_size_mb(const char *e)
{
    char *end;
    unsigned long long v;
    uint64_t mul = 1;

    errno = 0;
    v = strtoull(e, &end, 10);
    if (errno || end == e || *e == '-') {
        return 0;
    }
    switch (*end) {
    case 'k': case 'K': mul = 1ULL << 10; end++; break;
    case 'm': case 'M': mul = 1ULL << 20; end++; break;
    case 'g': case 'G': mul = 1ULL << 30; end++; break;
    case 't': case 'T': mul = 1ULL << 40; end++; break;
    }
    if (*end == 'B' || *end == 'b') {
        end++;
    }
    if (*end || v == 0 || v > UINT64_MAX / mul || (v * mul) % (1 << 20)) {
        return 0;
    }
    return v * mul >> 20;
}

/* split a namespace list into exactly o->nns entries (empty ones count) */
static int ns_list(const struct sim_opts *o, const char *name, char *s,
                   char **ent)
{
    uint32_t n = 0;
    char *p = s;

    for (;;) {
        char *c = strchr(p, ',');

        if (n < FTL_MAX_NS_RANGES) {
            ent[n] = p;
        }
        n++;
        if (!c) {
            break;
        }
        *c = '\0';
        p = c + 1;
    }
    if (n != o->nns) {
        fprintf(stderr, "femu-sim: %s: %u entries for namespaces=%u\n",
                name, n, o->nns);
        return -1;
    }
    return 0;
}

/*
 * The namespaces' modes, sizes and ranges of the FTL, with the device's
 * rules and messages (hw/femu/props.c): one namespace keeps devsz_mb /
 * op_pcent; several split devsz_mb (the sizes given, what they leave in
 * equal whole MiB to the empty entries) and the FTL holds the BlackBox
 * ones.  A zoned namespace is not simulated beside others.  -1 with a
 * message.
 */
static int sim_ns_layout(struct sim_opts *o)
{
    struct ftl_config *c = &o->cfg;
    char sizes[512], modes[512];
    char *se[FTL_MAX_NS_RANGES], *me[FTL_MAX_NS_RANGES];
    uint64_t given = 0, bb = 0, base = 0;
    uint32_t nempty = 0;

    if (o->nns == 0) {
        o->nns = 1;
    }
    memcpy(sizes, o->ns_sizes, sizeof(sizes));
    memcpy(modes, o->ns_modes, sizeof(modes));
    if (o->ns_modes_given &&
        ns_list(o, "namespace_modes", modes, me) < 0) {
        return -1;
    }
    for (uint32_t i = 0; i < o->nns; i++) {
        o->ns_nossd[i] = false;
        o->ns_mb[i] = 0;
        if (!o->ns_modes_given || !strcmp(me[i], "bbssd")) {
            continue;
        }
        if (!strcmp(me[i], "nossd")) {
            o->ns_nossd[i] = true;
        } else if (!strcmp(me[i], "znssd")) {
            fprintf(stderr, "femu-sim: namespace_modes: namespace %u is "
                    "znssd; femu-sim runs a zoned namespace alone "
                    "(femu_mode=3)\n", i + 1);
            return -1;
        } else {
            fprintf(stderr, "femu-sim: namespace_modes=%s: '%s' is not "
                    "bbssd, nossd or znssd\n", o->ns_modes, me[i]);
            return -1;
        }
    }
    if (o->ns_nossd[0] && o->nns == 1) {
        fprintf(stderr, "femu-sim: namespace_modes=nossd: no FTL to "
                "simulate\n");
        return -1;
    }
    if (o->ns_sizes_given &&
        ns_list(o, "namespace_sizes", sizes, se) < 0) {
        return -1;
    }
    if (o->nns == 1) {
        if (o->ns_sizes_given && *se[0]) {
            uint64_t mb = ns_size_mb(se[0]);

            if (!mb) {
                fprintf(stderr, "femu-sim: namespace_sizes: '%s' is not a "
                        "size in whole MiB (e.g. 4G)\n", se[0]);
                return -1;
            }
            if (c->op_pcent >= 0) {
                fprintf(stderr, "femu-sim: namespace_sizes=%s: op_pcent "
                        "sizes the namespace already\n", se[0]);
                return -1;
            }
            c->devsz_mb = mb;
        }
        return 0;
    }
    if (c->op_pcent >= 0) {
        fprintf(stderr, "femu-sim: op_pcent=%d: with namespaces=%u give "
                "devsz_mb (the namespaces' total) and namespace_sizes\n",
                c->op_pcent, o->nns);
        return -1;
    }
    for (uint32_t i = 0; i < o->nns; i++) {
        if (o->ns_sizes_given && *se[i]) {
            o->ns_mb[i] = ns_size_mb(se[i]);
            if (!o->ns_mb[i]) {
                fprintf(stderr, "femu-sim: namespace_sizes: '%s' is not a "
                        "size in whole MiB (e.g. 4G)\n", se[i]);
                return -1;
            }
            given += o->ns_mb[i];
        } else {
            nempty++;
        }
    }
    if (given > c->devsz_mb ||
        (nempty && (c->devsz_mb - given) / nempty == 0)) {
        fprintf(stderr, "femu-sim: namespace_sizes: %llu MiB given, "
                "devsz_mb=%llu leaves %s\n", (unsigned long long)given,
                (unsigned long long)c->devsz_mb,
                nempty ? "less than 1 MiB to each empty entry"
                       : "less than that");
        return -1;
    }
    for (uint32_t i = 0; i < o->nns; i++) {
        if (!o->ns_mb[i]) {
            o->ns_mb[i] = (c->devsz_mb - given) / nempty;
        }
        if (!o->ns_nossd[i]) {
            bb += o->ns_mb[i];
        }
    }
    if (bb == 0) {
        fprintf(stderr, "femu-sim: namespace_modes: every namespace is "
                "nossd: no FTL to simulate\n");
        return -1;
    }
    c->devsz_mb = bb;
    for (uint32_t i = 0; i < o->nns; i++) {
        o->ns_base[i] = o->ns_nossd[i] ? 0 : base;
        o->ns_blocks[i] = (o->ns_mb[i] << 20) / c->secsz;
        if (!o->ns_nossd[i]) {
            base += o->ns_blocks[i];
        }
    }
    return 0;
}

/* the per-namespace counters of the FTL (nsctr.c): one range per BlackBox
 * namespace; -1 with a message */
static int sim_ns_ranges(struct sim_opts *o, struct ftl *ftl)
{
    uint64_t first[FTL_MAX_NS_RANGES];
    uint32_t n = 0;
    char err[256];

    if (o->nns < 2) {
        return 0;
    }
    for (uint32_t i = 0; i < o->nns; i++) {
        o->ns_range[i] = o->ns_nossd[i] ? -1 : (int)n;
        if (!o->ns_nossd[i]) {
            first[n++] = o->ns_base[i];
        }
    }
    if (ftl_set_ns_ranges(ftl, n, first, err, sizeof(err)) < 0) {
        fprintf(stderr, "femu-sim: %s\n", err);
        return -1;
    }
    return 0;
}

static int prop_cb(void *ctx, const char *k, const char *v)
{
    return set_prop(ctx, k, v);
}

static int spec_cb(void *ctx, const char *k, const char *v)
{
    static const struct sim_key keys[] = {
        { "pid", offsetof(struct wl_spec, pid), 0, UINT32_MAX },
        { "hot", offsetof(struct wl_spec, hot_pcent), 1, 99 },
        { "hot_share", offsetof(struct wl_spec, hot_share), 0, 100 },
        { "hot_pid", offsetof(struct wl_spec, hot_pid), 0, UINT32_MAX },
        { "cold_pid", offsetof(struct wl_spec, cold_pid), 0, UINT32_MAX },
        { "ns", offsetof(struct wl_spec, ns), 1, FTL_MAX_NS_RANGES },
    };
    struct wl_spec *sp = ctx;
    uint64_t x;

    if (!strcmp(k, "bs") || !strcmp(k, "size") || !strcmp(k, "offset") ||
        !strcmp(k, "region")) {
        if (sim_parse_size(k, v, 0, &x) < 0) {
            return -1;
        }
        if (!strcmp(k, "bs")) {
            sp->bs = x;
        } else if (!strcmp(k, "size")) {
            sp->size = x;
        } else if (!strcmp(k, "offset")) {
            sp->offset = x;
        } else {
            sp->region = x;
        }
        return 0;
    }
    if (!strcmp(k, "randommap")) {
        return parse_onoff(k, v, &sp->randommap);
    }
    if (!strcmp(k, "zipf")) {
        char *end;
        sp->zipf_theta = strtod(v, &end);
        if (*end || sp->zipf_theta < 0 || sp->zipf_theta == 1.0) {
            fprintf(stderr, "femu-sim: zipf=%s: theta > 0, not 1\n", v);
            return -1;
        }
        return 0;
    }
    return sim_phase_u32(keys, sizeof(keys) / sizeof(keys[0]), sp, k, v);
}

static void spec_defaults(struct wl_spec *sp, enum wl_kind kind,
                          const char *name)
{
    memset(sp, 0, sizeof(*sp));
    sp->kind = kind;
    snprintf(sp->name, sizeof(sp->name), "%.31s", name);
    sp->bs = kind == WL_SEQFILL ? 128 * 1024 : 4096;
    sp->pid = FTL_PID_NONE;
    sp->hot_pcent = 20;
    sp->hot_share = 50;
    sp->hot_pid = FTL_PID_NONE;
    sp->cold_pid = FTL_PID_NONE;
}

/* argv[*i] is --phase=SPEC or --phase SPEC (then *i moves on to SPEC):
 * SPEC, or NULL with a message when there is none. */
const char *sim_phase_value(int argc, char **argv, int *i)
{
    const char *a = argv[*i];

    if (a[7] == '=') {
        return a + 8;
    }
    if (*i + 1 < argc) {
        return argv[++*i];
    }
    fprintf(stderr, "femu-sim: --phase needs a value\n");
    return NULL;
}

/* Split a copy of "NAME:KIND[,KEY=VAL...]" in buf: buf keeps NAME, *kind
 * and *rest (NULL when there are no keys) point into it. */
int sim_split_phase(const char *arg, char *buf, size_t size, char **kind,
                    char **rest)
{
    char *colon;

    snprintf(buf, size, "%s", arg);
    colon = strchr(buf, ':');
    if (!colon) {
        fprintf(stderr, "femu-sim: --phase %s: expected NAME:KIND[,...]\n",
                arg);
        return -1;
    }
    *colon = '\0';
    *kind = colon + 1;
    *rest = strchr(*kind, ',');
    if (*rest) {
        *(*rest)++ = '\0';
    }
    return 0;
}

static int parse_phase(const char *arg, struct wl_spec *sp)
{
    char buf[512], *kind, *rest;
    enum wl_kind k;

    if (sim_split_phase(arg, buf, sizeof(buf), &kind, &rest) < 0) {
        return -1;
    }
    if (!strcmp(kind, "seqfill")) {
        k = WL_SEQFILL;
    } else if (!strcmp(kind, "randwrite")) {
        k = WL_RANDWRITE;
    } else if (!strcmp(kind, "hotcold")) {
        k = WL_HOTCOLD;
    } else if (!strcmp(kind, "randtrim")) {
        k = WL_RANDTRIM;
    } else if (!strcmp(kind, "randread")) {
        k = WL_RANDREAD;
    } else {
        fprintf(stderr, "femu-sim: --phase %s: unknown kind '%s'\n", arg,
                kind);
        return -1;
    }
    spec_defaults(sp, k, buf);
    if (rest && *rest && sim_each_kv(rest, spec_cb, sp) < 0) {
        return -1;
    }
    return 0;
}

struct wafrun {
    uint64_t fill_bs, age, measure, bs;
    double zipf;
    uint32_t pid;
    bool randommap;
    int part;   /* 0 all, 1 fill + age, 2 measure */
};

static int wafrun_cb(void *ctx, const char *k, const char *v)
{
    struct wafrun *w = ctx;
    uint64_t *dst = NULL;

    if (!strcmp(k, "zipf")) {
        w->zipf = strtod(v, NULL);
        return 0;
    }
    if (!strcmp(k, "pid")) {
        w->pid = (uint32_t)strtoul(v, NULL, 0);
        return 0;
    }
    if (!strcmp(k, "part")) {
        w->part = !strcmp(v, "all") ? 0 : !strcmp(v, "precondition") ? 1 :
                  !strcmp(v, "measure") ? 2 : -1;
        if (w->part < 0) {
            fprintf(stderr, "femu-sim: part=%s: all, precondition or "
                    "measure\n", v);
            return -1;
        }
        return 0;
    }
    if (!strcmp(k, "randommap")) {
        return parse_onoff(k, v, &w->randommap);
    }
    if (!strcmp(k, "fill_bs")) {
        dst = &w->fill_bs;
    } else if (!strcmp(k, "age")) {
        dst = &w->age;
    } else if (!strcmp(k, "measure")) {
        dst = &w->measure;
    } else if (!strcmp(k, "bs")) {
        dst = &w->bs;
    }
    if (!dst || wl_parse_size(v, dst) < 0) {
        fprintf(stderr, "femu-sim: --waf-run %s=%s: unknown key or bad "
                "size\n", k, v);
        return -1;
    }
    return 0;
}

static int add_wafrun(const char *arg, struct wl_spec *ph, int *nph)
{
    struct wafrun w = {
        .fill_bs = 128 * 1024,
        .age = UINT64_C(4) << 30,
        .measure = UINT64_C(4) << 30,
        .bs = 4096,
        .pid = FTL_PID_NONE,
        /* waf-run.sh leaves fio's random map on (no --norandommap) */
        .randommap = true,
    };
    char buf[512];

    if (arg) {
        snprintf(buf, sizeof(buf), "%s", arg);
        if (sim_each_kv(buf, wafrun_cb, &w) < 0) {
            return -1;
        }
    }
    if (*nph + 3 > MAX_PHASES) {
        fprintf(stderr, "femu-sim: too many phases\n");
        return -1;
    }
    spec_defaults(&ph[*nph], WL_SEQFILL, "fill");
    ph[*nph].bs = w.fill_bs;
    ph[*nph].pid = w.pid;
    spec_defaults(&ph[*nph + 1], WL_RANDWRITE, "age");
    ph[*nph + 1].bs = w.bs;
    ph[*nph + 1].size = w.age;
    ph[*nph + 1].zipf_theta = w.zipf;
    ph[*nph + 1].randommap = w.randommap;
    ph[*nph + 1].pid = w.pid;
    ph[*nph + 2] = ph[*nph + 1];
    snprintf(ph[*nph + 2].name, sizeof(ph[*nph + 2].name), "measure");
    ph[*nph + 2].size = w.measure;
    if (w.part == 1) {
        *nph += 2;
    } else if (w.part == 2) {
        ph[*nph] = ph[*nph + 2];
        *nph += 1;
    } else {
        *nph += 3;
    }
    return 0;
}

static const char *kind_name(enum wl_kind k)
{
    switch (k) {
    case WL_SEQFILL:
        return "seqfill";
    case WL_RANDWRITE:
        return "randwrite";
    case WL_HOTCOLD:
        return "hotcold";
    case WL_RANDTRIM:
        return "randtrim";
    case WL_RANDREAD:
        return "randread";
    }
    return "?";
}

static void diff_counters(const struct ftl_counters *a,
                          const struct ftl_counters *b,
                          struct ftl_counters *d)
{
    d->host_pages_written = b->host_pages_written - a->host_pages_written;
    d->gc_pages_moved = b->gc_pages_moved - a->gc_pages_moved;
    d->host_pages_programmed =
        b->host_pages_programmed - a->host_pages_programmed;
    d->blocks_erased = b->blocks_erased - a->blocks_erased;
    d->gc_lines_collected = b->gc_lines_collected - a->gc_lines_collected;
    d->forced_gc_lines = b->forced_gc_lines - a->forced_gc_lines;
    d->host_pages_read = b->host_pages_read - a->host_pages_read;
    d->fdp_hbmw = b->fdp_hbmw - a->fdp_hbmw;
    d->fdp_mbmw = b->fdp_mbmw - a->fdp_mbmw;
    d->fdp_mbe = b->fdp_mbe - a->fdp_mbe;
    d->cache_hits = b->cache_hits - a->cache_hits;
    d->cache_misses = b->cache_misses - a->cache_misses;
    d->trans_pages_read = b->trans_pages_read - a->trans_pages_read;
    d->trans_pages_programmed =
        b->trans_pages_programmed - a->trans_pages_programmed;
    d->map_cache_hits = b->map_cache_hits - a->map_cache_hits;
    d->map_cache_misses = b->map_cache_misses - a->map_cache_misses;
    d->merges_switch = b->merges_switch - a->merges_switch;
    d->merges_partial = b->merges_partial - a->merges_partial;
    d->merges_full = b->merges_full - a->merges_full;
    d->wc_host_pages = b->wc_host_pages - a->wc_host_pages;
    d->wc_write_hits = b->wc_write_hits - a->wc_write_hits;
    d->wc_read_hits = b->wc_read_hits - a->wc_read_hits;
    d->wc_destaged = b->wc_destaged - a->wc_destaged;
    d->wc_full_waits = b->wc_full_waits - a->wc_full_waits;
    d->wc_flushes = b->wc_flushes - a->wc_flushes;
    d->wc_power_cuts = b->wc_power_cuts - a->wc_power_cuts;
    d->wc_lost_pages = b->wc_lost_pages - a->wc_lost_pages;
}

/* WAF x 1000 of counter differences, like waf-run.sh computes it */
static uint32_t waf_of(const struct ftl_counters *d)
{
    if (d->host_pages_written == 0) {
        return 1000;
    }
    return (uint32_t)((d->host_pages_programmed + d->gc_pages_moved +
                       d->trans_pages_programmed) * 1000 /
                      d->host_pages_written);
}

/* the per-namespace counters now (all 0 without ranges) */
static void ns_snapshot(const struct ftl *ftl, struct ftl_ns_counters *c)
{
    for (uint32_t i = 0; i < FTL_MAX_NS_RANGES; i++) {
        if (ftl_get_ns_counters(ftl, i, &c[i]) < 0) {
            memset(&c[i], 0, sizeof(c[i]));
        }
    }
}

/* r->nsd: the per-namespace counters now less those in b */
static void ns_diff(const struct ftl *ftl, const struct ftl_ns_counters *b,
                    struct phase_result *r)
{
    struct ftl_ns_counters a[FTL_MAX_NS_RANGES];

    ns_snapshot(ftl, a);
    for (uint32_t i = 0; i < FTL_MAX_NS_RANGES; i++) {
        r->nsd[i].host_pages_written =
            a[i].host_pages_written - b[i].host_pages_written;
        r->nsd[i].gc_pages_moved = a[i].gc_pages_moved - b[i].gc_pages_moved;
    }
}

static int run_phase(struct ftl *ftl, const struct sim_opts *o,
                     const struct wl_spec *sp, int idx, uint64_t *now,
                     struct phase_result *r)
{
    struct wl_gen g;
    struct wl_req rq;
    struct ftl_counters before, after;
    struct ftl_fdp_event ev;
    char err[256];
    uint64_t start = *now;
    uint64_t secsz = ftl_config_of(ftl)->secsz;
    uint64_t nsb = ftl_ns_blocks(ftl), base = 0;
    uint32_t nsid = sp->ns ? sp->ns : 1;
    struct ftl_ns_counters nsb4[FTL_MAX_NS_RANGES];

    if (nsid > o->nns) {
        fprintf(stderr, "femu-sim: phase %s: ns=%u: namespaces=%u\n",
                sp->name, nsid, o->nns);
        return -1;
    }
    if (o->nns > 1) {
        /* the namespace's range of the shared FTL */
        if (o->ns_nossd[nsid - 1]) {
            fprintf(stderr, "femu-sim: phase %s: ns=%u: namespace %u is "
                    "nossd (no FTL to simulate)\n", sp->name, nsid, nsid);
            return -1;
        }
        nsb = o->ns_blocks[nsid - 1];
        base = o->ns_base[nsid - 1];
    }
    if (wl_gen_init(&g, sp, nsb, ftl_config_of(ftl)->secsz,
                    o->seed * 1000003u + (uint64_t)idx, err,
                    sizeof(err)) < 0) {
        fprintf(stderr, "femu-sim: %s\n", err);
        wl_gen_free(&g);
        return -1;
    }
    memset(r, 0, sizeof(*r));
    r->spec = *sp;
    ftl_get_counters(ftl, &before);
    ns_snapshot(ftl, nsb4);
    /* a few requests of look-ahead, as a device with a queue has: the
     * FTL prefetches their mapping entries while it works on this one */
    struct wl_req ring[LOOKAHEAD];
    unsigned head = 0, queued = 0;
    while (queued < LOOKAHEAD && wl_gen_next(&g, &ring[queued])) {
        ring[queued].slba += base;
        ftl_prefetch(ftl, ring[queued].slba);
        queued++;
    }
    while (queued > 0) {
        rq = ring[head];
        if (wl_gen_next(&g, &ring[head])) {
            ring[head].slba += base;
            ftl_prefetch(ftl, ring[head].slba);
        } else {
            queued--; /* drained: the rest follow head in order */
        }
        head = (head + 1) % LOOKAHEAD;
        uint64_t at = *now, t = 0;
        if (rq.trim) {
            t = ftl_trim_cost(ftl, 1, *now);
            ftl_trim(ftl, rq.slba, rq.nlb);
            touch(o, rq.slba, rq.nlb);
            if (o->timing) {
                *now = t;
            }
        } else if (rq.read) {
            t = ftl_read(ftl, rq.slba, rq.nlb, *now);
            t = ftl_host_costs(ftl, false, (uint64_t)rq.nlb * secsz, t);
            r->reads++;
            if (o->timing) {
                lat_add(&r->rlat, t - *now);
                *now = t;
            }
        } else {
            t = ftl_write(ftl, rq.slba, rq.nlb, rq.pid, *now);
            if (t == FTL_TIME_ERROR) {
                r->write_errors++;
            } else {
                touch(o, rq.slba, rq.nlb);
                if (o->timing) {
                    t = ftl_host_costs(ftl, true, (uint64_t)rq.nlb * secsz,
                                       t);
                    r->wlat_sum += t - *now;
                    r->wlat_n++;
                    *now = t; /* QD1: the next request follows completion */
                }
            }
        }
        ftl_background_gc(ftl, *now);
        if (o->rec) {
            struct ftl_iotrace_rec x = {
                .op = rq.trim ? FTL_IOTRACE_DEALLOC :
                      rq.read ? FTL_IOTRACE_READ : FTL_IOTRACE_WRITE,
                .nsid = nsid, .slba = rq.slba, .nlb = rq.nlb,
                .arg = rq.trim || rq.read ? 0 : rq.pid, .time_ns = at,
                .done_ns = t,
            };
            ftl_iotrace_writer_append(o->rec, &x);
        }
        r->requests++;
    }
    while (ftl_fdp_pop_event(ftl, &ev)) {
        r->events++;
    }
    wl_gen_free(&g);
    if (ftl_wcache_pages(ftl)) {
        /* write_cache_mb: the phase ends with a Flush, so its counters
         * hold every page it wrote (the flush's wait is reported apart) */
        uint64_t t = ftl_flush(ftl, *now);

        if (t == FTL_TIME_ERROR) {
            r->write_errors++;
        } else if (o->timing) {
            r->flush_ns = t - *now;
            *now = t;
        }
    }
    ftl_get_counters(ftl, &after);
    diff_counters(&before, &after, &r->d);
    ns_diff(ftl, nsb4, r);
    r->waf_x1000 = waf_of(&r->d);
    r->emul_ns = *now - start;
    lat_sort(&r->rlat);
    return 0;
}

/* Wear and bad blocks since creation (docs/reliability.md). */
static void print_wear(const struct ftl *ftl)
{
    const struct ftl_config *c = ftl_config_of(ftl);
    struct ftl_wear_info w;

    ftl_get_wear(ftl, &w);
    printf("wear: erase_count min=%u max=%u mean=%.2f stddev=%.2f "
           "pe_cycles=%u percentage_used=%u wear_leveling=%s wl_threshold=%u "
           "wl_lines_moved=%llu\n", w.erase_min, w.erase_max, w.erase_mean,
           w.erase_stddev, c->pe_cycles, w.pct_used,
           c->wear_leveling ? "on" : "off", c->wl_threshold,
           (unsigned long long)w.wl_lines_moved);
    printf("bad blocks: factory=%u grown=%u retired_lines=%u spare_lines=%u "
           "available_spare=%u%% read_only=%s\n", w.factory_bad_blocks,
           w.grown_bad_blocks, w.retired_lines, w.spare_lines, w.spare_pcent,
           w.read_only ? "yes" : "no");
}

static void json_wear(const struct ftl *ftl)
{
    const struct ftl_config *c = ftl_config_of(ftl);
    struct ftl_wear_info w;

    ftl_get_wear(ftl, &w);
    printf(",\n \"wear\": {\"erase_min\": %u, \"erase_max\": %u, "
           "\"erase_mean\": %.4f, \"erase_stddev\": %.4f, "
           "\"pe_cycles\": %u, \"percentage_used\": %u, "
           "\"wear_leveling\": %s, \"wl_threshold\": %u, "
           "\"wl_lines_moved\": %llu, \"factory_bad_blocks\": %u, "
           "\"grown_bad_blocks\": %u, \"retired_lines\": %u, "
           "\"spare_lines\": %u, \"available_spare\": %u, "
           "\"read_only\": %s}", w.erase_min, w.erase_max, w.erase_mean,
           w.erase_stddev, c->pe_cycles, w.pct_used,
           c->wear_leveling ? "true" : "false", c->wl_threshold,
           (unsigned long long)w.wl_lines_moved, w.factory_bad_blocks,
           w.grown_bad_blocks, w.retired_lines, w.spare_lines, w.spare_pcent,
           w.read_only ? "true" : "false");
}

/*
 * namespaces=N: each phase's host pages written and GC pages moved per
 * namespace (the FTL's own counters, C0h's, are the whole device's: the
 * namespaces share it), then the same since start.  A NoSSD namespace
 * has no FTL: "nossd".
 */
static void print_ns(const struct sim_opts *o, const struct phase_result *r,
                     int n, const struct ftl *ftl)
{
    struct ftl_ns_counters t;

    for (int i = 0; i <= n; i++) {
        printf(i < n ? "namespaces %s:" : "namespaces since start:",
               i < n ? r[i].spec.name : "");
        for (uint32_t k = 0; k < o->nns; k++) {
            int g = o->ns_range[k];

            if (g < 0) {
                printf(" ns%u nossd", k + 1);
                continue;
            }
            if (i < n) {
                t = r[i].nsd[g];
            } else {
                ftl_get_ns_counters(ftl, (uint32_t)g, &t);
            }
            printf(" ns%u host_written=%llu gc_moved=%llu", k + 1,
                   (unsigned long long)t.host_pages_written,
                   (unsigned long long)t.gc_pages_moved);
        }
        printf("\n");
    }
}

/* the same as a JSON array (r NULL: since start) */
static void json_ns(const struct sim_opts *o, const struct phase_result *r,
                    const struct ftl *ftl)
{
    struct ftl_ns_counters t;

    printf(", \"namespaces\": [");
    for (uint32_t k = 0; k < o->nns; k++) {
        int g = o->ns_range[k];

        printf("%s{\"nsid\": %u, \"mode\": \"%s\", \"size_mb\": %llu",
               k ? ", " : "", k + 1, g < 0 ? "nossd" : "bbssd",
               (unsigned long long)o->ns_mb[k]);
        if (g >= 0) {
            if (r) {
                t = r->nsd[g];
            } else {
                ftl_get_ns_counters(ftl, (uint32_t)g, &t);
            }
            printf(", \"ftl_base\": %llu, \"host_pages_written\": %llu, "
                   "\"gc_pages_moved\": %llu",
                   (unsigned long long)o->ns_base[k],
                   (unsigned long long)t.host_pages_written,
                   (unsigned long long)t.gc_pages_moved);
        }
        printf("}");
    }
    printf("]");
}

static void print_human(const struct ftl *ftl, const struct sim_opts *o,
                        const struct phase_result *r, int n,
                        const struct ftl_counters *tot)
{
    const struct ftl_config *c = ftl_config_of(ftl);
    uint64_t nsb = ftl_ns_blocks(ftl);

    printf("femu-sim: nchs=%u luns_per_ch=%u pls_per_lun=%u blks_per_pl=%u "
           "pgs_per_blk=%u secsz=%u secs_per_pg=%u",
           c->nchs, c->luns_per_ch, c->pls_per_lun, c->blks_per_pl,
           c->pgs_per_blk, c->secsz, c->secs_per_pg);
    if (c->op_pcent >= 0) {
        printf(" op_pcent=%d", c->op_pcent);
    } else {
        printf(" devsz_mb=%llu", (unsigned long long)c->devsz_mb);
    }
    printf(" gc_thres_pcent=%u gc_thres_pcent_high=%u gc_policy=%s "
           "hot_cold_sep=%s gc_own_line=%s fdp.nruh=%u seed=%llu\n",
           c->gc_thres_pcent, c->gc_thres_pcent_high,
           ftl_gc_policy_name(c->gc_policy), c->hot_cold_sep ? "on" : "off",
           c->gc_own_line ? "on" : "off", c->fdp_nruh,
           (unsigned long long)o->seed);
    /* the NAND and cache models, when any is on (a line of its own, so
     * the default output stays as it was) */
    if (c->nand_cell_type || c->pgtype_lat || c->trim_lat_ns ||
        c->read_cache_mb || c->pcie_bandwidth_mbps || c->pcie_prop_delay_ns ||
        c->fw_cpu_ns || c->mapping != FTL_MAP_PAGE || c->write_cache_mb) {
        printf("models: nand_cell_type=%u (%s) pgtype_lat=%u cell_pages=%u "
               "trim_lat_ns=%llu read_cache_mb=%u cache_evict=%s "
               "pcie_bandwidth_mbps=%u pcie_prop_delay_ns=%u fw_cpu_ns=%llu "
               "mapping=%s mapping_cache_mb=%u write_cache_mb=%u\n",
               c->nand_cell_type, ftl_cell_type_name(c->nand_cell_type),
               c->pgtype_lat, c->cell_pages,
               (unsigned long long)c->trim_lat_ns, c->read_cache_mb,
               ftl_cache_evict_name(c->cache_evict), c->pcie_bandwidth_mbps,
               c->pcie_prop_delay_ns, (unsigned long long)c->fw_cpu_ns,
               ftl_mapping_name(c->mapping), c->mapping_cache_mb,
               c->write_cache_mb);
    }
    if (c->mapping == FTL_MAP_HYBRID || c->mapping == FTL_MAP_FAST) {
        printf("log blocks: log_blocks=%u pgs_per_blk=%u\n", c->log_blocks,
               c->pgs_per_blk);
    }
    printf("namespace: %llu blocks of %u B (%.2f GB), %u lines of %llu B, "
           "FTL metadata %.2f B per NAND page\n",
           (unsigned long long)nsb, c->secsz, (double)nsb * c->secsz / 1e9,
           ftl_total_lines(ftl), (unsigned long long)ftl_line_bytes(ftl),
           (double)ftl_meta_bytes(ftl) / (double)ftl_nand_pages(ftl));
    printf("%-10s %-10s %8s %8s %12s %12s %12s %9s %8s %8s %6s %10s\n",
           "phase", "workload", "bs", "requests", "host_written",
           "gc_moved", "programmed", "waf_x1000", "gc_lines", "forced",
           "errors", "emul_s");
    for (int i = 0; i < n; i++) {
        const struct phase_result *p = &r[i];
        printf("%-10s %-10s %8llu %8llu %12llu %12llu %12llu %9u %8llu "
               "%8llu %6llu %10.3f\n",
               p->spec.name, p->label ? p->label : kind_name(p->spec.kind),
               (unsigned long long)p->spec.bs,
               (unsigned long long)p->requests,
               (unsigned long long)p->d.host_pages_written,
               (unsigned long long)p->d.gc_pages_moved,
               (unsigned long long)p->d.host_pages_programmed, p->waf_x1000,
               (unsigned long long)p->d.gc_lines_collected,
               (unsigned long long)p->d.forced_gc_lines,
               (unsigned long long)p->write_errors, p->emul_ns / 1e9);
    }
    if (c->fdp_nruh > 0) {
        printf("fdp (bytes): ");
        for (int i = 0; i < n; i++) {
            printf("%s%s hbmw=%llu mbmw=%llu mbe=%llu events=%llu",
                   i ? "; " : "", r[i].spec.name,
                   (unsigned long long)r[i].d.fdp_hbmw,
                   (unsigned long long)r[i].d.fdp_mbmw,
                   (unsigned long long)r[i].d.fdp_mbe,
                   (unsigned long long)r[i].events);
        }
        printf("\n");
    }
    for (int i = 0; i < n; i++) {
        const struct lat_hist *h = &r[i].rlat;

        if (c->mapping == FTL_MAP_DFTL) {
            printf("dftl %s: map_cache_hits=%llu map_cache_misses=%llu "
                   "trans_pages_read=%llu trans_pages_programmed=%llu\n",
                   r[i].spec.name, (unsigned long long)r[i].d.map_cache_hits,
                   (unsigned long long)r[i].d.map_cache_misses,
                   (unsigned long long)r[i].d.trans_pages_read,
                   (unsigned long long)r[i].d.trans_pages_programmed);
        }
        if (c->mapping == FTL_MAP_HYBRID || c->mapping == FTL_MAP_FAST) {
            printf("%s %s: merges_switch=%llu merges_partial=%llu "
                   "merges_full=%llu blocks_erased=%llu\n",
                   ftl_mapping_name(c->mapping), r[i].spec.name,
                   (unsigned long long)r[i].d.merges_switch,
                   (unsigned long long)r[i].d.merges_partial,
                   (unsigned long long)r[i].d.merges_full,
                   (unsigned long long)r[i].d.blocks_erased);
        }
        if (c->write_cache_mb) {
            printf("write cache %s: host_pages=%llu write_hits=%llu "
                   "read_hits=%llu destaged=%llu full_waits=%llu "
                   "write_lat_mean_ns=%.0f end_flush_ns=%llu\n",
                   r[i].spec.name, (unsigned long long)r[i].d.wc_host_pages,
                   (unsigned long long)r[i].d.wc_write_hits,
                   (unsigned long long)r[i].d.wc_read_hits,
                   (unsigned long long)r[i].d.wc_destaged,
                   (unsigned long long)r[i].d.wc_full_waits,
                   r[i].wlat_n ? (double)r[i].wlat_sum / (double)r[i].wlat_n
                               : 0.0,
                   (unsigned long long)r[i].flush_ns);
        }
        if (c->read_cache_mb && r[i].reads) {
            printf("read cache %s: hits=%llu misses=%llu\n", r[i].spec.name,
                   (unsigned long long)r[i].d.cache_hits,
                   (unsigned long long)r[i].d.cache_misses);
        }
        if (h->n == 0) {
            continue;
        }
        printf("read latency %s (QD1, ns x count): mean=%.0f", r[i].spec.name,
               (double)h->sum / (double)h->n);
        for (uint32_t j = 0; j < h->nval; j++) {
            printf(" %llu x%llu", (unsigned long long)h->val[j],
                   (unsigned long long)h->cnt[j]);
        }
        if (h->other) {
            printf(" other x%llu", (unsigned long long)h->other);
        }
        printf("\n");
    }
    if (o->nns > 1) {
        print_ns(o, r, n, ftl);
    }
    printf("C0h since start: waf_x1000=%u host_pages_written=%llu "
           "gc_pages_moved=%llu host_pages_programmed=%llu\n",
           ftl_waf_x1000(ftl), (unsigned long long)tot->host_pages_written,
           (unsigned long long)tot->gc_pages_moved,
           (unsigned long long)tot->host_pages_programmed);
    print_wear(ftl);
}

static void json_counters(const struct ftl_counters *d)
{
    printf("\"host_pages_written\": %llu, \"gc_pages_moved\": %llu, "
           "\"host_pages_programmed\": %llu, \"blocks_erased\": %llu, "
           "\"gc_lines_collected\": %llu, \"forced_gc_lines\": %llu, "
           "\"fdp_hbmw\": %llu, \"fdp_mbmw\": %llu, \"fdp_mbe\": %llu",
           (unsigned long long)d->host_pages_written,
           (unsigned long long)d->gc_pages_moved,
           (unsigned long long)d->host_pages_programmed,
           (unsigned long long)d->blocks_erased,
           (unsigned long long)d->gc_lines_collected,
           (unsigned long long)d->forced_gc_lines,
           (unsigned long long)d->fdp_hbmw, (unsigned long long)d->fdp_mbmw,
           (unsigned long long)d->fdp_mbe);
    printf(", \"cache_hits\": %llu, \"cache_misses\": %llu",
           (unsigned long long)d->cache_hits,
           (unsigned long long)d->cache_misses);
    printf(", \"trans_pages_read\": %llu, \"trans_pages_programmed\": %llu, "
           "\"map_cache_hits\": %llu, \"map_cache_misses\": %llu",
           (unsigned long long)d->trans_pages_read,
           (unsigned long long)d->trans_pages_programmed,
           (unsigned long long)d->map_cache_hits,
           (unsigned long long)d->map_cache_misses);
    printf(", \"merges_switch\": %llu, \"merges_partial\": %llu, "
           "\"merges_full\": %llu",
           (unsigned long long)d->merges_switch,
           (unsigned long long)d->merges_partial,
           (unsigned long long)d->merges_full);
}

static void print_json(const struct ftl *ftl, const struct sim_opts *o,
                       const struct phase_result *r, int n,
                       const struct ftl_counters *tot,
                       const struct sim_replay_opts *ro,
                       const struct sim_replay_result *rr)
{
    const struct ftl_config *c = ftl_config_of(ftl);

    printf("{\"config\": {\"nchs\": %u, \"luns_per_ch\": %u, "
           "\"pls_per_lun\": %u, \"blks_per_pl\": %u, \"pgs_per_blk\": %u, "
           "\"secsz\": %u, \"secs_per_pg\": %u, \"op_pcent\": %d, "
           "\"devsz_mb\": %llu, \"gc_thres_pcent\": %u, "
           "\"gc_thres_pcent_high\": %u, \"gc_policy\": \"%s\", "
           "\"hot_cold_sep\": %s, \"gc_own_line\": %s, \"fdp_nruh\": %u, "
           "\"seed\": %llu, "
           "\"ns_blocks\": %llu, \"lines\": %u, \"line_bytes\": %llu, "
           "\"meta_bytes_per_nand_page\": %.3f, ",
           c->nchs, c->luns_per_ch, c->pls_per_lun, c->blks_per_pl,
           c->pgs_per_blk, c->secsz, c->secs_per_pg, c->op_pcent,
           (unsigned long long)c->devsz_mb, c->gc_thres_pcent,
           c->gc_thres_pcent_high, ftl_gc_policy_name(c->gc_policy),
           c->hot_cold_sep ? "true" : "false",
           c->gc_own_line ? "true" : "false", c->fdp_nruh,
           (unsigned long long)o->seed,
           (unsigned long long)ftl_ns_blocks(ftl), ftl_total_lines(ftl),
           (unsigned long long)ftl_line_bytes(ftl),
           (double)ftl_meta_bytes(ftl) / (double)ftl_nand_pages(ftl));
    printf("\"nand_cell_type\": %u, \"pgtype_lat\": %u, \"cell_pages\": %u, "
           "\"trim_lat_ns\": %llu, \"read_cache_mb\": %u, "
           "\"cache_evict\": \"%s\", \"pcie_bandwidth_mbps\": %u, "
           "\"pcie_prop_delay_ns\": %u, \"fw_cpu_ns\": %llu, \"mapping\": \"%s\", "
           "\"mapping_cache_mb\": %u},\n \"phases\": [",
           c->nand_cell_type, c->pgtype_lat, c->cell_pages,
           (unsigned long long)c->trim_lat_ns, c->read_cache_mb,
           ftl_cache_evict_name(c->cache_evict), c->pcie_bandwidth_mbps,
           c->pcie_prop_delay_ns, (unsigned long long)c->fw_cpu_ns,
           ftl_mapping_name(c->mapping), c->mapping_cache_mb);
    for (int i = 0; i < n; i++) {
        const struct phase_result *p = &r[i];
        printf("%s\n  {\"name\": \"%s\", \"workload\": \"%s\", \"bs\": %llu, "
               "\"zipf\": %g, \"requests\": %llu, \"waf_x1000\": %u, ",
               i ? "," : "", p->spec.name,
               p->label ? p->label : kind_name(p->spec.kind),
               (unsigned long long)p->spec.bs, p->spec.zipf_theta,
               (unsigned long long)p->requests, p->waf_x1000);
        json_counters(&p->d);
        printf(", \"write_errors\": %llu, \"fdp_events\": %llu, "
               "\"emul_ns\": %llu",
               (unsigned long long)p->write_errors,
               (unsigned long long)p->events,
               (unsigned long long)p->emul_ns);
        if (p->reads) {
            printf(", \"reads\": %llu", (unsigned long long)p->reads);
        }
        if (o->nns > 1) {
            json_ns(o, p, ftl);
        }
        if (c->write_cache_mb) {
            printf(", \"write_cache\": {\"host_pages\": %llu, "
                   "\"write_hits\": %llu, \"read_hits\": %llu, "
                   "\"destaged\": %llu, \"full_waits\": %llu, "
                   "\"writes\": %llu, \"write_lat_sum_ns\": %llu, "
                   "\"end_flush_ns\": %llu}",
                   (unsigned long long)p->d.wc_host_pages,
                   (unsigned long long)p->d.wc_write_hits,
                   (unsigned long long)p->d.wc_read_hits,
                   (unsigned long long)p->d.wc_destaged,
                   (unsigned long long)p->d.wc_full_waits,
                   (unsigned long long)p->wlat_n,
                   (unsigned long long)p->wlat_sum,
                   (unsigned long long)p->flush_ns);
        }
        if (p->rlat.n) {
            printf(", \"read_lat_ns\": {\"mean\": %.1f, \"modes\": [",
                   (double)p->rlat.sum / (double)p->rlat.n);
            for (uint32_t j = 0; j < p->rlat.nval; j++) {
                printf("%s[%llu, %llu]", j ? ", " : "",
                       (unsigned long long)p->rlat.val[j],
                       (unsigned long long)p->rlat.cnt[j]);
            }
            printf("], \"other\": %llu}", (unsigned long long)p->rlat.other);
        }
        printf("}");
    }
    printf("],\n \"total\": {\"waf_x1000\": %u, ", ftl_waf_x1000(ftl));
    json_counters(tot);
    if (o->nns > 1) {
        json_ns(o, NULL, ftl);
    }
    printf("}");
    json_wear(ftl);
    if (ro->path) {
        printf(",\n \"replay\": ");
        sim_replay_print(ro, rr, true);
    }
    printf("}\n");
}

/* The replay as one more row: the counter differences over it (since the
 * trace's last counter reset, when it holds one, as C0h reports). */
static int run_replay(struct ftl *ftl, const struct sim_opts *o,
                      const struct sim_replay_opts *ro, uint64_t *now,
                      struct phase_result *r, struct sim_replay_result *rr)
{
    struct ftl_counters before, after;
    struct ftl_ns_counters nsb4[FTL_MAX_NS_RANGES];
    uint64_t start = *now;

    memset(r, 0, sizeof(*r));
    snprintf(r->spec.name, sizeof(r->spec.name), "replay");
    r->label = sim_replay_fmt_name(ro->fmt);
    ftl_get_counters(ftl, &before);
    ns_snapshot(ftl, nsb4);
    if (sim_replay_file(ftl, ro, o->timing, now, o->rec, rr) < 0) {
        return -1;
    }
    ftl_get_counters(ftl, &after);
    if (rr->counters_reset) {
        memset(&before, 0, sizeof(before));
        memset(nsb4, 0, sizeof(nsb4));
    }
    diff_counters(&before, &after, &r->d);
    ns_diff(ftl, nsb4, r);
    r->waf_x1000 = waf_of(&r->d);
    r->requests = rr->records;
    r->write_errors = rr->write_errors;
    r->events = rr->fdp_events;
    r->emul_ns = *now - start;
    return 0;
}

/* --record: the header of this FTL, and the run-time controls the run
 * starts with as records, so that a replay of the file starts alike. */
static struct ftl_iotrace_writer *open_record(const struct ftl *ftl,
                                              const struct sim_opts *o,
                                              const char *path, bool midrun)
{
    struct ftl_iotrace_hdr h;
    struct ftl_iotrace_rec x = { .op = FTL_IOTRACE_CONTROL };
    struct ftl_iotrace_writer *w;
    char err[512];

    ftl_iotrace_hdr_of(&h, ftl_config_of(ftl), ftl_ns_blocks(ftl),
                       midrun ? FTL_IOTRACE_HF_MIDRUN : 0);
    w = ftl_iotrace_writer_open(path, &h, err, sizeof(err));
    if (!w) {
        fprintf(stderr, "femu-sim: --record %s\n", err);
        return NULL;
    }
    if (!o->gc_delay) {
        x.arg = 2;      /* 0xEF code 2: GC takes no time */
        ftl_iotrace_writer_append(w, &x);
    }
    if (o->delay != FTL_DELAY_CONFIGURED) {
        x.arg = o->delay == FTL_DELAY_BUILTIN ? 3 : 4;
        ftl_iotrace_writer_append(w, &x);
    }
    return w;
}

/*
 * femu-sim's own section of a state file: the phases run so far and the
 * seed, so that a run continued from the file draws the same workload
 * numbers as one that never stopped.  The device skips it.
 */
#define SIM_SECTION FTL_STATE_TAG('S', 'I', 'M', ' ')

/*
 * The device's DATA section (docs/state.md): u32 chunk bytes (4096), u32
 * count, count x (u64 chunk index, 4096 bytes).  Chunks of blocks this
 * run wrote or trimmed lose those blocks (femu-sim's writes carry no
 * data: they read as zeroes, as after a load of a femu-sim state), and a
 * chunk left all zero is dropped.  The new length in *len.
 */
#define DATA_CHUNK 4096u
#define DATA_REC (8 + DATA_CHUNK)

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static int filter_data(const struct sim_opts *o, uint8_t *p, uint64_t *len,
                       bool in_ftl, uint64_t ftl_base, char *err,
                       size_t errlen)
{
    uint32_t secsz = o->cfg.secsz, count, kept = 0;
    uint64_t nblk = ftl_cfg_ns_blocks(&o->cfg);

    count = *len >= 8 ? le32(p + 4) : 0;
    if (*len < 8 || le32(p) != DATA_CHUNK ||
        *len != 8 + (uint64_t)count * DATA_REC) {
        snprintf(err, errlen, "corrupted state file (DATA section of %llu "
                 "bytes)", (unsigned long long)*len);
        return -1;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *r = p + 8 + (uint64_t)i * DATA_REC;
        uint64_t idx = 0, b0;
        bool any = false;

        for (int k = 7; k >= 0; k--) {
            idx = idx << 8 | r[k];
        }
        /* a BlackBox namespace's blocks are the FTL's from its base */
        b0 = ftl_base + idx * (DATA_CHUNK / secsz);
        for (uint32_t k = 0; in_ftl && k < DATA_CHUNK / secsz; k++) {
            if (b0 + k < nblk && touched(o, b0 + k)) {
                memset(r + 8 + (size_t)k * secsz, 0, secsz);
            }
        }
        for (uint32_t k = 0; k < DATA_CHUNK && !any; k++) {
            any = r[8 + k] != 0;
        }
        if (any) {
            memmove(p + 8 + (uint64_t)kept++ * DATA_REC, r, DATA_REC);
        }
    }
    for (int k = 0; k < 4; k++) {
        p[4 + k] = (uint8_t)(kept >> (8 * k));
    }
    *len = 8 + (uint64_t)kept * DATA_REC;
    return 0;
}

/*
 * Copy into f what the state file `from` holds that femu-sim does not own
 * (the device's DEV section, its host data, sections of newer writers),
 * so that saving over a device's state keeps its host data.  The file may
 * have several generations (docs/state.md): the data is merged (a later
 * generation's chunk or TRIM overrides an earlier one) into one base
 * generation, the last DEV section kept.  0, or -1 with a message.
 */
struct carry {
    FILE *out;
    /* per namespace (NSID - 1), per chunk: file offset of its bytes, 0:
     * none; namespace 1's from the start, the others' from their NS
     * section (a device with several namespaces, format 5) */
    uint64_t *map[FTL_STATE_MAX_NS];
    uint64_t nchunks[FTL_STATE_MAX_NS];
    uint8_t ns[FTL_STATE_MAX_NS][FTL_STATE_NS_LEN]; /* the last NS section */
    bool has_ns[FTL_STATE_MAX_NS];
    uint8_t dev[64];
    uint64_t dev_len;   /* 0: no DEV section */
};

static uint64_t le64(const uint8_t *p)
{
    return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void carry_data(void *opaque, uint32_t nsid, uint64_t chunk,
                       const uint8_t *bytes, uint64_t off)
{
    struct carry *c = opaque;

    if (c->map[nsid - 1]) {
        c->map[nsid - 1][chunk] = off;
    }
}

static void carry_trim(void *opaque, uint32_t nsid, uint64_t first,
                       uint64_t n)
{
    struct carry *c = opaque;

    if (c->map[nsid - 1]) {
        memset(c->map[nsid - 1] + first, 0, n * sizeof(uint64_t));
    }
}

static int carry_section(void *opaque, uint32_t tag, const uint8_t *p,
                         uint64_t len, uint32_t gen, char *err, size_t errlen)
{
    struct carry *c = opaque;

    if (tag == SIM_SECTION) {
        return 0;
    }
    if (tag == FTL_STATE_SEC_NS) {
        /* the library checked nsid; its records follow: kept with it */
        uint32_t i = le32(p) - 1;

        if (len != FTL_STATE_NS_LEN) {
            snprintf(err, errlen, "corrupted state file (NS section of %llu "
                     "bytes)", (unsigned long long)len);
            return -1;
        }
        if (i > 0 && !c->map[i]) {
            c->nchunks[i] = le64(p + 8);
            c->map[i] = calloc(c->nchunks[i] ? c->nchunks[i] : 1,
                               sizeof(uint64_t));
            if (!c->map[i]) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
        } else if (i > 0 && le64(p + 8) != c->nchunks[i]) {
            snprintf(err, errlen, "corrupted state file (namespace %u of "
                     "%llu and %llu chunks)", i + 1,
                     (unsigned long long)c->nchunks[i],
                     (unsigned long long)le64(p + 8));
            return -1;
        }
        memcpy(c->ns[i], p, len);
        c->has_ns[i] = true;
        return 0;
    }
    if (tag == FTL_STATE_SEC_DEV && len && len <= sizeof(c->dev)) {
        /* each generation has one: the last one's is kept */
        memcpy(c->dev, p, len);
        c->dev_len = len;
        return 0;
    }
    return ftl_state_write_section(c->out, tag, p, len, err, errlen);
}

static uint64_t state_nchunks(const struct ftl_config *cfg)
{
    return (ftl_cfg_ns_blocks(cfg) * cfg->secsz + DATA_CHUNK - 1) /
           DATA_CHUNK;
}

/*
 * Namespace i's merged data into f: its NS section (when the file had
 * one), then DATA sections of its chunks less what this run wrote.
 */
static int carry_ns(const struct sim_opts *o, struct carry *c, uint32_t i,
                    FILE *in, const char *from, uint8_t *buf, FILE *f,
                    char *err, size_t errlen)
{
    uint64_t nchunks = c->nchunks[i], *map = c->map[i];
    /* femu-sim's writes are the FTL's: a BlackBox namespace's blocks
     * from its base (namespace 1 from 0); a NoSSD one has none */
    bool in_ftl = !c->has_ns[i] || le32(c->ns[i] + 16) == 1;
    uint64_t base = c->has_ns[i] ? le64(c->ns[i] + 24) : 0;
    uint32_t count = 0;

    if (c->has_ns[i] && ftl_state_write_section(f, FTL_STATE_SEC_NS,
                                                c->ns[i], FTL_STATE_NS_LEN,
                                                err, errlen)) {
        return -1;
    }
    for (uint64_t ch = 0; ch <= nchunks; ch++) {
        uint8_t *r = buf + 8 + (uint64_t)count * DATA_REC;
        uint64_t len;

        if (ch < nchunks && map[ch]) {
            for (int k = 0; k < 8; k++) {
                r[k] = (uint8_t)(ch >> (8 * k));
            }
            if (fseek(in, (long)map[ch], SEEK_SET) ||
                fread(r + 8, 1, DATA_CHUNK, in) != DATA_CHUNK) {
                snprintf(err, errlen, "%s: cannot read it again", from);
                return -1;
            }
            count++;
        }
        if (!count || (count < FTL_STATE_DATA_BATCH && ch < nchunks)) {
            continue;
        }
        for (int k = 0; k < 4; k++) {
            buf[k] = (uint8_t)(DATA_CHUNK >> (8 * k));
            buf[4 + k] = (uint8_t)(count >> (8 * k));
        }
        len = 8 + (uint64_t)count * DATA_REC;
        count = 0;
        if (filter_data(o, buf, &len, in_ftl, base, err, errlen) ||
            (len > 8 && ftl_state_write_section(f, FTL_STATE_SEC_DATA, buf,
                                                len, err, errlen))) {
            return -1;
        }
    }
    return 0;
}

static int carry_sections(const struct sim_opts *o, const char *from,
                          FILE *f, char *err, size_t errlen)
{
    struct carry c = { .out = f };
    struct ftl_state_sink sink = {
        .opaque = &c,
        .nchunks = state_nchunks(&o->cfg),
        .ns_data = carry_data,
        .ns_trim = carry_trim,
        .section = carry_section,
    };
    uint8_t *buf = malloc(FTL_STATE_SECTION_MAX);
    FILE *in = fopen(from, "rb");
    struct ftl *old = NULL;
    int rc = -1;

    c.nchunks[0] = sink.nchunks;
    c.map[0] = calloc(sink.nchunks ? sink.nchunks : 1, sizeof(uint64_t));
    if (!in || !buf || !c.map[0]) {
        snprintf(err, errlen, "%s: %s", from, strerror(errno));
        goto out;
    }
    old = ftl_state_read_file(&o->cfg, in, 0, &sink, NULL, err, errlen);
    if (!old) {
        goto out;
    }
    if (c.dev_len && ftl_state_write_section(f, FTL_STATE_SEC_DEV, c.dev,
                                             c.dev_len, err, errlen)) {
        goto out;
    }
    for (uint32_t i = 0; i < FTL_STATE_MAX_NS; i++) {
        if ((i == 0 || c.has_ns[i]) &&
            carry_ns(o, &c, i, in, from, buf, f, err, errlen)) {
            goto out;
        }
    }
    rc = 0;
out:
    if (in) {
        fclose(in);
    }
    ftl_free(old);
    for (uint32_t i = 0; i < FTL_STATE_MAX_NS; i++) {
        free(c.map[i]);
    }
    free(buf);
    return rc;
}

static int save_state(const struct sim_opts *o, const struct ftl *ftl,
                      const char *path, const char *load_path,
                      uint64_t phases_run, uint64_t seed, uint64_t now)
{
    char tmp[4096], err[512];
    struct ftl_state_gen g;
    uint8_t sim[16];
    FILE *f;
    int rc;

    for (int i = 0; i < 8; i++) {
        sim[i] = (uint8_t)(phases_run >> (8 * i));
        sim[8 + i] = (uint8_t)(seed >> (8 * i));
    }
    /* a temporary file renamed over the old one: a crash in between
     * leaves the previous state */
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "femu-sim: --save-state %s: %s\n", tmp,
                strerror(errno));
        return -1;
    }
    rc = ftl_state_gen_begin(&g, f, 0, err, sizeof(err));
    rc = rc ? rc : ftl_state_save(ftl, now, f, err, sizeof(err));
    if (!rc && load_path) {
        rc = carry_sections(o, load_path, f, err, sizeof(err));
    }
    rc = rc ? rc : ftl_state_write_section(f, SIM_SECTION, sim, sizeof(sim),
                                           err, sizeof(err));
    rc = rc ? rc : ftl_state_gen_end(&g, err, sizeof(err));
    if (!rc && (fflush(f) || fsync(fileno(f)))) {
        snprintf(err, sizeof(err), "%s", strerror(errno));
        rc = -1;
    }
    if (fclose(f) && !rc) {
        snprintf(err, sizeof(err), "%s", strerror(errno));
        rc = -1;
    }
    if (!rc && rename(tmp, path)) {
        snprintf(err, sizeof(err), "rename: %s", strerror(errno));
        rc = -1;
    }
    if (rc) {
        fprintf(stderr, "femu-sim: --save-state %s: %s\n", path, err);
        unlink(tmp);
    }
    return rc;
}

/*
 * The lock the `femu` device holds on PATH.lock while it uses PATH (an
 * exclusive fcntl lock on the whole file, an open file description lock
 * where the kernel has them, as QEMU's qemu_lock_fd takes it): femu-sim
 * takes it too, so it never reads a state a running device will
 * overwrite at exit, nor saves over one.  The fd, kept for the run, or -1
 * with a message.  *same is set when the lock is the one held on fd
 * `held` (the same file under another name).
 */
static int lock_state(const char *opt, const char *path, int held,
                      bool *same)
{
    char lock[4096];
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    struct stat a, b;
    int fd, rc;

    *same = false;
    snprintf(lock, sizeof(lock), "%s.lock", path);
    fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "femu-sim: %s %s: cannot create %s: %s\n", opt, path,
                lock, strerror(errno));
        return -1;
    }
    if (held >= 0 && fstat(fd, &a) == 0 && fstat(held, &b) == 0 &&
        a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
        close(fd);
        *same = true;
        return held;
    }
#ifdef F_OFD_SETLK
    rc = fcntl(fd, F_OFD_SETLK, &fl);
    if (rc < 0 && errno == EINVAL) {
        rc = fcntl(fd, F_SETLK, &fl);
    }
#else
    rc = fcntl(fd, F_SETLK, &fl);
#endif
    if (rc < 0) {
        fprintf(stderr, "femu-sim: %s %s: in use by a femu device or "
                "another femu-sim (%s is locked)\n", opt, path, lock);
        close(fd);
        return -1;
    }
    return fd;
}

/* the SIM section of each generation: the last generation's counts */
struct sim_found {
    uint32_t gen;
    bool found;
    uint64_t phases_run, seed;
};

static int load_sim_section(void *opaque, uint32_t tag, const uint8_t *p,
                            uint64_t len, uint32_t gen, char *err,
                            size_t errlen)
{
    struct sim_found *s = opaque;

    if (tag == SIM_SECTION && len == 16) {
        s->found = true;
        s->gen = gen;
        s->phases_run = s->seed = 0;
        for (int i = 7; i >= 0; i--) {
            s->phases_run = s->phases_run << 8 | p[i];
            s->seed = s->seed << 8 | p[8 + i];
        }
    }
    /* other sections: host data of a device's state, not the simulator's */
    return 0;
}

static struct ftl *load_state(const struct ftl_config *cfg, const char *path,
                              uint64_t *phases_run, uint64_t *seed)
{
    char err[512] = "";
    struct sim_found found = { 0 };
    struct ftl_state_sink sink = {
        .opaque = &found,
        .nchunks = state_nchunks(cfg),
        .section = load_sim_section,
    };
    struct ftl_state_info info;
    struct ftl *ftl;
    FILE *f = fopen(path, "rb");

    if (!f) {
        fprintf(stderr, "femu-sim: --load-state %s: %s\n", path,
                strerror(errno));
        return NULL;
    }
    /* the run continues at emulated time 0 with the NAND clocks moved
     * along: only time differences are reported */
    ftl = ftl_state_read_file(cfg, f, 0, &sink, &info, err, sizeof(err));
    fclose(f);
    if (!ftl) {
        fprintf(stderr, "femu-sim: --load-state %s: %s\n", path, err);
        return NULL;
    }
    /* the counts belong to the FTL of the generation that holds them */
    if (found.found && found.gen + 1 == info.gens) {
        *phases_run = found.phases_run;
        *seed = found.seed;
    }
    return ftl;
}

int main(int argc, char **argv)
{
    static struct wl_spec phases[MAX_PHASES];
    static struct phase_result res[MAX_PHASES + 1];
    static struct sim_replay_result rr;
    struct sim_replay_opts ro = { 0 };
    const char *prop_args[64];
    int nprop = 0, ropt;
    struct sim_opts o;
    int nph = 0;
    struct ftl *ftl;
    struct ftl_counters tot;
    char err[512];
    uint64_t now = 0;
    const char *save_path = NULL, *load_path = NULL;
    uint64_t phases_run = 0, file_seed = 0;
    bool seed_given = false, same = false;
    int load_lock = -1, save_lock = -1;

    /* femu_mode=3 among the properties: the zoned namespace model */
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-' && sim_has_zoned_mode(argv[i])) {
            return sim_zoned_main(argc, argv);
        }
    }
    memset(&o, 0, sizeof(o));
    ftl_config_default(&o.cfg);
    o.gc_delay = true;
    o.delay = FTL_DELAY_CONFIGURED;
    o.timing = true;
    o.seed = 1;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            o.json = true;
        } else if (!strncmp(a, "--seed=", 7)) {
            if (parse_u64(a + 7, &o.seed) < 0) {
                fprintf(stderr, "femu-sim: %s: not a number\n", a);
                return 2;
            }
            seed_given = true;
        } else if (!strcmp(a, "--save-state") || !strcmp(a, "--load-state")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "femu-sim: %s needs a file\n", a);
                return 2;
            }
            if (a[2] == 's') {
                save_path = argv[++i];
            } else {
                load_path = argv[++i];
            }
        } else if (!strncmp(a, "--timing=", 9)) {
            if (parse_bool(a + 9, &o.timing) < 0) {
                fprintf(stderr, "femu-sim: %s: on or off\n", a);
                return 2;
            }
        } else if (!strcmp(a, "--phase") || !strncmp(a, "--phase=", 8)) {
            const char *v = sim_phase_value(argc, argv, &i);

            if (!v || nph == MAX_PHASES || parse_phase(v, &phases[nph]) < 0) {
                return 2;
            }
            nph++;
        } else if (!strcmp(a, "--waf-run") || !strncmp(a, "--waf-run=", 10)) {
            if (add_wafrun(a[9] == '=' ? a + 10 : NULL, phases, &nph) < 0) {
                return 2;
            }
        } else if ((ropt = sim_replay_option(&ro, a)) != 0) {
            if (ropt < 0) {
                return 2;
            }
        } else if (a[0] == '-') {
            fprintf(stderr, "femu-sim: unknown option %s\n", a);
            usage(stderr);
            return 2;
        } else {
            char buf[1024];
            snprintf(buf, sizeof(buf), "%s", a);
            if (sim_each_kv(buf, prop_cb, &o) < 0) {
                return 2;
            }
            if (nprop < (int)(sizeof(prop_args) / sizeof(prop_args[0]))) {
                prop_args[nprop++] = a;
            }
        }
    }
    if (nph == 0 && !load_path && !ro.path &&
        add_wafrun(NULL, phases, &nph) < 0) {
        return 2;
    }
    if (ro.path && ro.pace_trace && !o.timing) {
        fprintf(stderr, "femu-sim: --replay-pace=trace needs --timing=on\n");
        return 2;
    }
    if (ro.path) {
        struct ftl_iotrace_hdr h;
        int hr = sim_replay_header(&ro, &h);

        if (hr < 0) {
            return 1;
        }
        if (hr == 0) {
            /* the trace's properties, with the command line's on top */
            o.cfg = h.cfg;
            if (!seed_given) {
                o.seed = h.cfg.seed;
            }
            for (int i = 0; i < nprop; i++) {
                char buf[1024];
                snprintf(buf, sizeof(buf), "%s", prop_args[i]);
                if (sim_each_kv(buf, prop_cb, &o) < 0) {
                    return 2;
                }
            }
            if (ftl_iotrace_check_config(&h, &o.cfg, err, sizeof(err))) {
                fprintf(stderr, "femu-sim: --replay %s: %s\n", ro.path, err);
                return 1;
            }
        }
    }
    if (sim_ns_layout(&o) < 0) {
        return 1;
    }
    o.cfg.seed = o.seed;
    if (load_path) {
        load_lock = lock_state("--load-state", load_path, -1, &same);
        if (load_lock < 0) {
            return 1;
        }
    }
    if (save_path) {
        save_lock = lock_state("--save-state", save_path, load_lock, &same);
        if (save_lock < 0) {
            return 1;
        }
    }
    if (load_path) {
        ftl = load_state(&o.cfg, load_path, &phases_run, &file_seed);
        if (!ftl) {
            return 1;
        }
        if (!seed_given && phases_run) {
            o.seed = file_seed;
        }
    } else {
        ftl = ftl_new(&o.cfg, err, sizeof(err));
        if (!ftl) {
            fprintf(stderr, "femu-sim: %s\n", err);
            return 1;
        }
    }
    if (load_path && save_path) {
        o.touched = calloc(ftl_ns_blocks(ftl) / 64 + 1, sizeof(*o.touched));
        if (!o.touched) {
            fprintf(stderr, "femu-sim: out of memory\n");
            ftl_free(ftl);
            return 1;
        }
    }
    if (sim_ns_ranges(&o, ftl) < 0) {
        ftl_free(ftl);
        return 1;
    }
    ftl_set_gc_delay(ftl, o.gc_delay);
    ftl_set_delay_mode(ftl, o.delay);
    if (ro.record && !(o.rec = open_record(ftl, &o, ro.record, load_path))) {
        ftl_free(ftl);
        return 1;
    }
    for (int i = 0; i < nph; i++) {
        if (run_phase(ftl, &o, &phases[i], (int)phases_run + i, &now,
                      &res[i]) < 0) {
            ftl_free(ftl);
            return 2;
        }
    }
    if (ro.path) {
        if (run_replay(ftl, &o, &ro, &now, &res[nph], &rr) < 0) {
            ftl_free(ftl);
            return 1;
        }
        if (o.touched) {
            /* the replay's writes are not tracked block by block: a
             * --save-state after it keeps none of the loaded file's data
             * (it reads as zeroes), rather than data the replay replaced */
            memset(o.touched, 0xff,
                   (ftl_ns_blocks(ftl) / 64 + 1) * sizeof(*o.touched));
        }
        nph++;
    }
    if (o.rec && ftl_iotrace_writer_close(o.rec, err, sizeof(err)) < 0) {
        fprintf(stderr, "femu-sim: --record %s: %s\n", ro.record, err);
        ftl_free(ftl);
        return 1;
    }
    if (save_path && save_state(&o, ftl, save_path, load_path,
                                phases_run + (uint64_t)nph,
                                o.seed, now) < 0) {
        ftl_free(ftl);
        return 1;
    }
    ftl_get_counters(ftl, &tot);
    if (o.json) {
        print_json(ftl, &o, res, nph, &tot, &ro, &rr);
    } else {
        print_human(ftl, &o, res, nph, &tot);
        if (ro.path) {
            sim_replay_print(&ro, &rr, false);
        }
    }
    ftl_free(ftl);
    return 0;
}
