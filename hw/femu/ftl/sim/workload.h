/*
 * FEMU FTL simulator: workload generators (shared with bench/ftl).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FEMU_SIM_WORKLOAD_H
#define FEMU_SIM_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/femu/ftl.h"

enum wl_kind {
    WL_SEQFILL,   /* sequential writes of bs over [offset, offset+size) */
    WL_RANDWRITE, /* random bs writes, uniform or Zipf, size bytes total */
    WL_HOTCOLD,   /* hot random region + cold sequential region */
    WL_RANDTRIM,  /* random bs deallocates, size bytes total */
    WL_RANDREAD,  /* random bs reads, uniform or Zipf, size bytes total */
};

struct wl_spec {
    enum wl_kind kind;
    char name[32];       /* phase name for the report */
    uint64_t bs;         /* bytes per request */
    uint64_t size;       /* bytes to write; 0 = the region */
    uint64_t offset;     /* region start, bytes */
    uint64_t region;     /* region length, bytes; 0 = to the end */
    double zipf_theta;   /* 0: uniform */
    uint32_t pid;        /* placement id for every write (FTL_PID_NONE) */
    bool randommap;      /* uniform randwrite: every block once per pass,
                          * in random order (fio's default random map);
                          * off: independent draws (fio's norandommap) */
    /* hotcold */
    uint32_t hot_pcent;  /* hot region, % of the namespace (from 0) */
    uint32_t hot_share;  /* % of the requests that go to the hot region */
    uint32_t hot_pid, cold_pid;
    /* femu-sim with namespaces=N: the namespace the phase targets (its
     * range of the shared FTL); 0 = namespace 1 */
    uint32_t ns;
};

/* A simple PRNG (xorshift64*), seeded per phase. */
struct wl_rng {
    uint64_t s;
};
void wl_rng_seed(struct wl_rng *r, uint64_t seed);
uint64_t wl_rng_next(struct wl_rng *r);
/* uniform in [0, n), n < 2^32 */
uint32_t wl_rng_below(struct wl_rng *r, uint32_t n);
double wl_rng_unit(struct wl_rng *r);

/*
 * Zipf(theta) over n items, the way fio's random_distribution=zipf:theta
 * draws them (Gray et al., "Quickly generating billion-record synthetic
 * databases", SIGMOD 1994), with the popular items scattered over the
 * range by fio's hash (rank x 64-bit golden ratio + a random 32-bit
 * offset, mod n) so that hot blocks are not all adjacent.  fio keeps no
 * random map for a zipf distribution: every draw is independent.
 */
struct wl_zipf {
    uint64_t n;
    double theta, zetan, zeta2, alpha, eta;
    uint64_t off;
};
void wl_zipf_init(struct wl_zipf *z, uint64_t n, double theta, uint64_t seed);
uint64_t wl_zipf_next(struct wl_zipf *z, struct wl_rng *r);

/* One request. */
struct wl_req {
    bool trim;
    bool read;
    uint64_t slba;
    uint32_t nlb;
    uint32_t pid;
};

struct wl_gen {
    struct wl_spec spec;
    uint64_t ns_blocks;
    uint32_t secsz;
    uint64_t nreq, issued;
    uint64_t bs_blocks;
    uint64_t reg_start, reg_units;  /* region in bs units */
    uint64_t seq_next;              /* seqfill / cold cursor (units) */
    uint64_t hot_units, cold_units;
    struct wl_rng rng;
    struct wl_zipf zipf;
    uint32_t *perm;                 /* randommap: this pass's order */
    uint64_t perm_pos;
};

void wl_gen_free(struct wl_gen *g);

/* 0, or -1 with a message (e.g. bs not a multiple of secsz). */
int wl_gen_init(struct wl_gen *g, const struct wl_spec *spec,
                uint64_t ns_blocks, uint32_t secsz, uint64_t seed,
                char *err, unsigned errlen);
/* Next request; false when the phase is done. */
bool wl_gen_next(struct wl_gen *g, struct wl_req *rq);

/* Parse "128k", "4g", "1.5m", "4096": bytes; -1 on error. */
int wl_parse_size(const char *s, uint64_t *out);

#endif
