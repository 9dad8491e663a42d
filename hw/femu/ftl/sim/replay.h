/*
 * femu-sim --replay: apply an I/O trace to the FTL, the device's own
 * format (hw/femu/ftl/iotrace.c, docs/trace.md) or a public one (MSR
 * Cambridge CSV, blkparse text, fio iolog v2/v3).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FEMU_SIM_REPLAY_H
#define FEMU_SIM_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/femu/ftl.h"
#include "hw/femu/ftl-iotrace.h"

enum sim_replay_fmt {
    SIM_REPLAY_FEMU,
    SIM_REPLAY_MSR,
    SIM_REPLAY_BLKPARSE,
    SIM_REPLAY_IOLOG,
};

/* How byte offsets land on the namespace. */
enum sim_replay_map {
    SIM_REPLAY_EXACT,   /* as recorded; a request past the end is an error */
    SIM_REPLAY_WRAP,    /* start modulo the namespace; a request that runs
                         * past the end continues at LBA 0 */
    SIM_REPLAY_SCALE,   /* the trace's address space (its largest end)
                         * scaled onto the namespace, each start on a
                         * NAND page boundary */
};

struct sim_replay_opts {
    const char *path;
    enum sim_replay_fmt fmt;
    enum sim_replay_map map;
    bool pace_trace;    /* arrivals at the trace's times (else: each at
                         * the previous completion, QD1) */
    char blk_event;     /* blkparse action replayed: 'D' (default) or 'Q' */
    const char *record; /* write what is replayed as a femu trace */
};

#define SIM_REPLAY_HIST 64

struct sim_replay_result {
    uint64_t records;               /* FTL records applied */
    uint64_t ops[FTL_IOTRACE_NOPS]; /* of them, per op */
    uint64_t skipped;               /* public formats: lines replayed as
                                     * nothing (file actions, 0 bytes) */
    uint64_t wrapped;               /* wrap: requests split at the end */
    uint64_t write_errors, fdp_events;
    uint64_t first_ns, last_ns;     /* emulated time span */
    /* pace=trace: completion - arrival of reads and writes, ns;
     * hist[i] counts latencies in [2^(i-1), 2^i) (hist[0]: 0) */
    uint64_t lat_count, lat_sum, lat_max;
    uint64_t hist[SIM_REPLAY_HIST];
    /* femu format at pace=trace: completions equal to the recorded ones */
    uint64_t done_checked, done_equal;
    bool midrun;                    /* the trace's HF_MIDRUN flag */
    bool counters_reset;            /* it held a counter reset (0xEF 5) */
};

const char *sim_replay_fmt_name(enum sim_replay_fmt f);

/* --replay=PATH, --replay-format=, --replay-offsets=, --replay-pace=,
 * --replay-event=: 1 (taken), 0 (not a replay option), -1 (bad value,
 * message printed). */
int sim_replay_option(struct sim_replay_opts *o, const char *arg);

/* The femu format's header: 0 with *h filled, 1 for the other formats
 * (no header), -1 (message printed). */
int sim_replay_header(const struct sim_replay_opts *o,
                      struct ftl_iotrace_hdr *h);

/*
 * Replay buf (len bytes of a trace in o->fmt) on ftl.  timing: advance
 * the emulated clock *now (QD1, or the trace's pace).  w: record what is
 * applied (NULL: no).  0, or -1 with "record N: reason" / "line N:
 * reason" in err; the FTL holds what was applied before.
 */
int sim_replay_buf(struct ftl *ftl, const struct sim_replay_opts *o,
                   const uint8_t *buf, size_t len, bool timing,
                   uint64_t *now, struct ftl_iotrace_writer *w,
                   struct sim_replay_result *r, char *err, size_t errlen);
/* The same for o->path; errors are printed. */
int sim_replay_file(struct ftl *ftl, const struct sim_replay_opts *o,
                    bool timing, uint64_t *now, struct ftl_iotrace_writer *w,
                    struct sim_replay_result *r);

/* The replay's own lines (ops, latency histogram); json: one object. */
void sim_replay_print(const struct sim_replay_opts *o,
                      const struct sim_replay_result *r, bool json);

#endif
