/*
 * FEMU FTL simulator: workload generators.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

void wl_rng_seed(struct wl_rng *r, uint64_t seed)
{
    /* splitmix64 step so nearby seeds give unrelated streams */
    uint64_t z = seed + UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    r->s = z ? z : 1;
}

uint64_t wl_rng_next(struct wl_rng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * UINT64_C(2685821657736338717);
}

uint32_t wl_rng_below(struct wl_rng *r, uint32_t n)
{
    return (uint32_t)(((wl_rng_next(r) >> 32) * n) >> 32);
}

double wl_rng_unit(struct wl_rng *r)
{
    return (double)(wl_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 33)) * UINT64_C(0xFF51AFD7ED558CCD);
    z = (z ^ (z >> 33)) * UINT64_C(0xC4CEB9FE1A85EC53);
    return z ^ (z >> 33);
}

void wl_zipf_init(struct wl_zipf *z, uint64_t n, double theta, uint64_t seed)
{
    double zetan = 0.0;

    z->n = n;
    z->theta = theta;
    /* fio sums at most 10M terms (ZIPF_MAX_GEN) */
    for (uint64_t i = 1; i <= n && i <= 10000000; i++) {
        zetan += pow(1.0 / (double)i, theta);
    }
    z->zetan = zetan;
    z->zeta2 = 1.0 + pow(0.5, theta);
    z->alpha = 1.0 / (1.0 - theta);
    z->eta = (1.0 - pow(2.0 / (double)n, 1.0 - theta)) /
             (1.0 - z->zeta2 / zetan);
    /* fio starts the hashed ranks at a random 32-bit offset */
    z->off = mix64(seed) >> 32;
}

uint64_t wl_zipf_next(struct wl_zipf *z, struct wl_rng *r)
{
    double u = wl_rng_unit(r);
    double uz = u * z->zetan;
    uint64_t rank;

    if (uz < 1.0) {
        rank = 0;
    } else if (uz < z->zeta2) {
        rank = 1;
    } else {
        double v = (double)z->n * pow(z->eta * u - z->eta + 1.0, z->alpha);
        rank = v >= (double)z->n ? z->n - 1 : (uint64_t)v;
    }
    /* scatter ranks over the range as fio does: multiply by the 64-bit
     * golden ratio (fio's __hash_u64), add the offset, reduce mod n (not
     * a permutation: a few ranks share a block, as in fio) */
    return (rank * UINT64_C(0x61C8864680B583EB) + z->off) % z->n;
}

int wl_parse_size(const char *s, uint64_t *out)
{
    char *end;
    double v = strtod(s, &end);
    uint64_t mul = 1;

    if (end == s || v < 0) {
        return -1;
    }
    switch (tolower((unsigned char)*end)) {
    case 'k':
        mul = 1024;
        end++;
        break;
    case 'm':
        mul = 1024 * 1024;
        end++;
        break;
    case 'g':
        mul = UINT64_C(1024) * 1024 * 1024;
        end++;
        break;
    case 't':
        mul = UINT64_C(1024) * 1024 * 1024 * 1024;
        end++;
        break;
    default:
        break;
    }
    if (*end == 'i' || *end == 'I') {
        end++;
    }
    if (*end == 'b' || *end == 'B') {
        end++;
    }
    if (*end != '\0') {
        return -1;
    }
    *out = (uint64_t)(v * (double)mul);
    return 0;
}

int wl_gen_init(struct wl_gen *g, const struct wl_spec *spec,
                uint64_t ns_blocks, uint32_t secsz, uint64_t seed,
                char *err, unsigned errlen)
{
    uint64_t ns_bytes = ns_blocks * secsz, reg;

    memset(g, 0, sizeof(*g));
    g->spec = *spec;
    g->ns_blocks = ns_blocks;
    g->secsz = secsz;
    if (spec->bs == 0 || spec->bs % secsz) {
        snprintf(err, errlen, "%s: bs=%llu must be a multiple of secsz=%u",
                 spec->name, (unsigned long long)spec->bs, secsz);
        return -1;
    }
    if (spec->offset % spec->bs || spec->offset >= ns_bytes) {
        snprintf(err, errlen,
                 "%s: offset=%llu must be a multiple of bs inside the "
                 "namespace (%llu bytes)", spec->name,
                 (unsigned long long)spec->offset,
                 (unsigned long long)ns_bytes);
        return -1;
    }
    g->bs_blocks = spec->bs / secsz;
    reg = spec->region ? spec->region : ns_bytes - spec->offset;
    if (spec->offset + reg > ns_bytes) {
        reg = ns_bytes - spec->offset;
    }
    g->reg_start = spec->offset / spec->bs;
    /* whole requests only: a last partial bs is not issued (like fio) */
    g->reg_units = reg / spec->bs;
    if (g->reg_units == 0 || g->reg_units > UINT32_MAX) {
        snprintf(err, errlen, "%s: the region holds %llu requests of bs=%llu",
                 spec->name, (unsigned long long)g->reg_units,
                 (unsigned long long)spec->bs);
        return -1;
    }
    g->nreq = spec->size ? spec->size / spec->bs : g->reg_units;
    wl_rng_seed(&g->rng, seed);
    if ((spec->kind == WL_RANDWRITE || spec->kind == WL_RANDREAD) &&
        spec->zipf_theta > 0) {
        wl_zipf_init(&g->zipf, g->reg_units, spec->zipf_theta, seed);
    }
    if ((spec->kind == WL_RANDWRITE || spec->kind == WL_RANDREAD) &&
        spec->randommap &&
        spec->zipf_theta == 0) {
        g->perm = malloc(g->reg_units * sizeof(*g->perm));
        if (!g->perm) {
            snprintf(err, errlen, "%s: out of memory", spec->name);
            return -1;
        }
        for (uint64_t i = 0; i < g->reg_units; i++) {
            g->perm[i] = (uint32_t)i;
        }
        g->perm_pos = g->reg_units; /* shuffle on first use */
    }
    if (spec->kind == WL_HOTCOLD) {
        g->hot_units = g->reg_units * spec->hot_pcent / 100;
        g->cold_units = g->reg_units - g->hot_units;
        if (g->hot_units == 0 || g->cold_units == 0) {
            snprintf(err, errlen, "%s: hot=%u%% leaves an empty region",
                     spec->name, spec->hot_pcent);
            return -1;
        }
    }
    return 0;
}

void wl_gen_free(struct wl_gen *g)
{
    free(g->perm);
    g->perm = NULL;
}

/* next block of a random permutation, reshuffled every pass */
static uint64_t perm_next(struct wl_gen *g)
{
    if (g->perm_pos == g->reg_units) {
        for (uint64_t i = g->reg_units - 1; i > 0; i--) {
            uint32_t j = wl_rng_below(&g->rng, (uint32_t)(i + 1));
            uint32_t t = g->perm[i];
            g->perm[i] = g->perm[j];
            g->perm[j] = t;
        }
        g->perm_pos = 0;
    }
    return g->perm[g->perm_pos++];
}

bool wl_gen_next(struct wl_gen *g, struct wl_req *rq)
{
    const struct wl_spec *sp = &g->spec;
    uint64_t unit;

    if (g->issued == g->nreq) {
        return false;
    }
    g->issued++;
    rq->trim = false;
    rq->read = sp->kind == WL_RANDREAD;
    rq->pid = sp->pid;
    switch (sp->kind) {
    case WL_SEQFILL:
        unit = g->seq_next;
        g->seq_next = (g->seq_next + 1 == g->reg_units) ? 0 : g->seq_next + 1;
        break;
    case WL_RANDTRIM:
        rq->trim = true;
        unit = wl_rng_below(&g->rng, (uint32_t)g->reg_units);
        break;
    case WL_HOTCOLD:
        if (wl_rng_below(&g->rng, 100) < sp->hot_share) {
            unit = wl_rng_below(&g->rng, (uint32_t)g->hot_units);
            rq->pid = sp->hot_pid;
        } else {
            unit = g->hot_units + g->seq_next;
            g->seq_next =
                (g->seq_next + 1 == g->cold_units) ? 0 : g->seq_next + 1;
            rq->pid = sp->cold_pid;
        }
        break;
    case WL_RANDWRITE:
    case WL_RANDREAD:
    default:
        if (sp->zipf_theta > 0) {
            unit = wl_zipf_next(&g->zipf, &g->rng);
        } else if (g->perm) {
            unit = perm_next(g);
        } else {
            unit = wl_rng_below(&g->rng, (uint32_t)g->reg_units);
        }
        break;
    }
    rq->slba = (g->reg_start + unit) * g->bs_blocks;
    rq->nlb = (uint32_t)g->bs_blocks;
    return true;
}
