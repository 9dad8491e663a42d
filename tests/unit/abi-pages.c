/*
 * Writes a log page C0h and a C1h header built with femu-abi.h's structs,
 * every field a different value (some beyond 2^53, where a decoder that
 * does floating-point arithmetic would round), and prints what
 * scripts/femu-log.sh must print for them (tests/unit/test-femu-log.sh).
 *
 *   abi-pages DIR     writes DIR/c0.bin and DIR/c1.bin; stdout: the
 *                     expected output of `femu-log.sh c0`, of `c1`,
 *                     of `c0w`, of `wc` and of `ns`
 *
 * Built without QEMU headers: it also checks that femu-abi.h is plain C.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "hw/femu/femu-abi.h"

static int save(const char *dir, const char *name, const void *p, size_t len)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f || fwrite(p, 1, len, f) != len || fclose(f)) {
        fprintf(stderr, "abi-pages: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

static void summary(FemuLatSummary *s, uint64_t base)
{
    s->count = base + 1;
    s->sum_ns = base + 2;
    s->max_ns = base + 3;
    s->p50_ns = base + 4;
    s->p99_ns = base + 5;
    s->p999_ns = base + 6;
}

static void print_summary(const char *name, const FemuLatSummary *s,
                          uint64_t p90)
{
    printf("%s_count=%" PRIu64 " %s_sum_ns=%" PRIu64 " %s_max_ns=%" PRIu64
           " %s_p50_ns=%" PRIu64 " %s_p99_ns=%" PRIu64
           " %s_p999_ns=%" PRIu64 " %s_p90_ns=%" PRIu64 " ",
           name, s->count, name, s->sum_ns, name, s->max_ns, name, s->p50_ns,
           name, s->p99_ns, name, s->p999_ns, name, p90);
}

int main(int argc, char **argv)
{
    static FemuLogFtl c0;
    static FemuLogLatency c1;

    if (argc != 2) {
        fprintf(stderr, "usage: abi-pages DIR\n");
        return 2;
    }
    memset(&c0, 0xa5, sizeof(c0));     /* reserved bytes are not read */
    c0.waf_x1000 = 4294967295u;
    c0.host_pages_written = 9007199254740993ull;        /* 2^53 + 1 */
    c0.gc_pages_moved = 18446744073709551615ull;
    c0.host_pages_programmed = 16;
    c0.zone_resets = 0;
    c0.blocks_erased = 4294967296ull;
    c0.erase_count_min = 7;
    c0.erase_count_max = 4294967295u;
    c0.erase_count_mean_x1000 = 18446744073709551615ull;
    c0.pe_cycles = 3000;
    c0.factory_bad_blocks = 65536;
    c0.grown_bad_blocks = 1;
    c0.spare_lines = 2;
    c0.retired_lines = 3;
    c0.percentage_used = 255;
    c0.available_spare = 100;
    c0.read_only = 1;
    c0.wl_lines_moved = 9007199254740993ull;
    c0.wc_host_pages = 18446744073709551613ull;
    c0.wc_write_hits = 1;
    c0.wc_read_hits = 9007199254740993ull;
    c0.wc_destaged = 4294967297ull;
    c0.wc_full_waits = 0;
    c0.wc_flushes = 42;
    c0.wc_power_cuts = 3;
    c0.wc_lost_pages = 18446744073709551615ull;
    c0.ns_nsid = 4294967295u;
    c0.ns_host_pages_written = 9007199254740995ull;
    c0.ns_gc_pages_moved = 18446744073709551600ull;

    memset(&c1, 0x5a, sizeof(c1));
    summary(&c1.cqe, 9007199254740992ull);
    c1.version = FEMU_LAT_VERSION;
    c1.sub_buckets = FEMU_LAT_SUB;
    c1.buckets = FEMU_LAT_BUCKETS;
    c1.cqe_p90_ns = 18446744073709551614ull;
    summary(&c1.irq, 100);
    c1.irq_p90_ns = 107;
    c1.wake_margin_ns = 30000;

    if (save(argv[1], "c0.bin", &c0, sizeof(c0)) ||
        save(argv[1], "c1.bin", &c1, FEMU_LAT_HDR_SIZE)) {
        return 1;
    }
    printf("%" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
           " %" PRIu64 "\n", c0.waf_x1000, c0.host_pages_written,
           c0.gc_pages_moved, c0.host_pages_programmed, c0.zone_resets,
           c0.blocks_erased);
    print_summary("cqe", &c1.cqe, c1.cqe_p90_ns);
    print_summary("irq", &c1.irq, c1.irq_p90_ns);
    printf("wake_margin_ns=%" PRIu64 " version=%" PRIu32 "\n",
           c1.wake_margin_ns, c1.version);
    /* line 3: C0h's wear fields (femu-log.sh c0w) */
    printf("erase_count_min=%" PRIu32 " erase_count_max=%" PRIu32
           " erase_count_mean_x1000=%" PRIu64 " pe_cycles=%" PRIu32
           " factory_bad_blocks=%" PRIu32 " grown_bad_blocks=%" PRIu32
           " spare_lines=%" PRIu32 " retired_lines=%" PRIu32
           " percentage_used=%u available_spare=%u read_only=%u"
           " wl_lines_moved=%" PRIu64 "\n", c0.erase_count_min,
           c0.erase_count_max, c0.erase_count_mean_x1000, c0.pe_cycles,
           c0.factory_bad_blocks, c0.grown_bad_blocks, c0.spare_lines,
           c0.retired_lines, c0.percentage_used, c0.available_spare,
           c0.read_only, c0.wl_lines_moved);
    /* line 4: femu-log.sh wc */
    printf("wc_host_pages=%" PRIu64 " wc_write_hits=%" PRIu64
           " wc_read_hits=%" PRIu64 " wc_destaged=%" PRIu64
           " wc_full_waits=%" PRIu64 " wc_flushes=%" PRIu64
           " wc_power_cuts=%" PRIu64 " wc_lost_pages=%" PRIu64 "\n",
           c0.wc_host_pages, c0.wc_write_hits, c0.wc_read_hits,
           c0.wc_destaged, c0.wc_full_waits, c0.wc_flushes,
           c0.wc_power_cuts, c0.wc_lost_pages);
    /* line 5: femu-log.sh ns (C0h's per-namespace fields) */
    printf("ns_nsid=%" PRIu32 " ns_host_pages_written=%" PRIu64
           " ns_gc_pages_moved=%" PRIu64 "\n", c0.ns_nsid,
           c0.ns_host_pages_written, c0.ns_gc_pages_moved);
    return 0;
}
