/*
 * libFuzzer harness for the trace parsers of femu-sim --replay
 * (hw/femu/ftl/sim/replay.c: the femu format of hw/femu/ftl/iotrace.c,
 * MSR Cambridge CSV, blkparse text, fio iolog v2/v3).
 *
 * The first input byte chooses:
 *   bit 0-1  the format: femu, msr, blkparse, iolog;
 *   bit 2-3  --replay-offsets: exact, wrap, scale (3: scale);
 *   bit 4    --replay-pace=trace (else fast);
 *   bit 5    femu format: put a valid header for the FTL in front of the
 *            rest, so that the records (random bytes would rarely get past
 *            the header's CRC) are what is fuzzed;
 *   bit 6    timing off;
 *   bit 7    blkparse: Q events (else D).
 * The rest is the trace.  It is replayed on a small FTL with FDP (2
 * handles).  A replay either succeeds or is refused with one line; either
 * way the FTL must pass ftl_check_invariants().  Anything else, or a
 * sanitizer report, is a crash.
 *
 * Built by `make fuzz-trace` (tests/fuzz/fuzz-trace.sh); replayed with
 * replay-main.c by tests/fuzz/trace-replay.t.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/femu/ftl.h"
#include "hw/femu/ftl-iotrace.h"
#include "sim/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_cfg(struct ftl_config *c)
{
    ftl_config_default(c);
    c->nchs = 2;
    c->luns_per_ch = 2;
    c->blks_per_pl = 32;
    c->pgs_per_blk = 16;
    c->devsz_mb = 2;
    c->fdp_nruh = 2;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sim_replay_opts o = { .path = "fuzz" };
    struct sim_replay_result r;
    struct ftl_config c;
    struct ftl *ftl;
    uint8_t *buf = NULL;
    const uint8_t *in;
    size_t len;
    uint64_t now = 0;
    char err[512] = "", inv[256];
    int rc;

    if (size < 1) {
        return 0;
    }
    fuzz_cfg(&c);
    ftl = ftl_new(&c, err, sizeof(err));
    if (!ftl) {
        fprintf(stderr, "fuzz-trace: %s\n", err);
        abort();
    }
    o.fmt = (enum sim_replay_fmt)(data[0] & 3);
    o.map = (data[0] >> 2 & 3) == 3 ? SIM_REPLAY_SCALE :
            (enum sim_replay_map)(data[0] >> 2 & 3);
    o.pace_trace = data[0] & 0x10;
    o.blk_event = data[0] & 0x80 ? 'Q' : 'D';
    in = data + 1;
    len = size - 1;
    if (o.fmt == SIM_REPLAY_FEMU && (data[0] & 0x20)) {
        struct ftl_iotrace_hdr h;

        buf = malloc(FTL_IOTRACE_HDR_SIZE + len);
        ftl_iotrace_hdr_of(&h, &c, ftl_ns_blocks(ftl), 0);
        ftl_iotrace_encode_hdr(&h, buf);
        memcpy(buf + FTL_IOTRACE_HDR_SIZE, in, len);
        in = buf;
        len += FTL_IOTRACE_HDR_SIZE;
    }
    rc = sim_replay_buf(ftl, &o, in, len, !(data[0] & 0x40), &now, NULL, &r,
                        err, sizeof(err));
    if (rc != 0 && (rc != -1 || !err[0] || strchr(err, '\n'))) {
        fprintf(stderr, "fuzz-trace: refusal %d without one line: '%s'\n",
                rc, err);
        abort();
    }
    if (ftl_check_invariants(ftl, inv, sizeof(inv))) {
        fprintf(stderr, "fuzz-trace: invariants after the replay: %s\n", inv);
        abort();
    }
    free(buf);
    ftl_free(ftl);
    return 0;
}
