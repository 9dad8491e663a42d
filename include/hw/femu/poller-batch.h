/*
 * FEMU: when an idle poller sleeps as SCHED_BATCH (property poller_batch).
 *
 * Plain C (no QEMU headers): the poller (hw/femu/poller.c) asks it before
 * each sleep, and tests/unit/test-poller-batch.c checks the decision.
 *
 * A doorbell that kicks a sleeping SCHED_OTHER poller preempts whatever
 * runs on the core the kernel wakes it on, a vCPU thread when the host
 * has no idle core (4 vCPUs on 2 cores under TCG): the poller then wakes
 * for one or two commands, takes the core from the vCPUs that would
 * submit the next ones, and sleeps again, one costly switch per few
 * commands for it and for a vCPU.  SCHED_BATCH keeps its fair share of
 * the CPU but does not preempt on wake-up: kicked, the poller runs on
 * an idle core at once, or on a busy one when its thread blocks (a vCPU
 * halting to wait for its I/O) or its slice ends, by which time the
 * guest has queued more commands.
 *
 * That only pays, and is only done, where commands can gather: when the
 * poller has been finding at least FEMU_BATCH_MIN_CMDS commands per
 * sleep (a moving average; it stays SCHED_BATCH down to
 * FEMU_BATCH_KEEP_CMDS).  A QD1 guest has one command per sleep, and its
 * next command would wait for a busy vCPU's slice for nothing.  And only
 * sleeps without a due time: a poller with a completion due (NAND time,
 * an interrupt held back) sleeps as SCHED_OTHER, so that its timed
 * wake-up preempts and the completion is not late by a slice.  It turns
 * SCHED_BATCH after FEMU_BATCH_AFTER_SLEEPS untimed sleeps in a row, so a
 * workload that alternates (NAND times) stays SCHED_OTHER without a
 * system call per command.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_FEMU_POLLER_BATCH_H
#define HW_FEMU_POLLER_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#define FEMU_BATCH_AFTER_SLEEPS 16
/*
 * The average is over about FEMU_BATCH_AVG_SLEEPS sleeps: a guest that
 * mostly has one command per sleep and now and then a few (one job at
 * QD16: 1.2 on average) made an average over 8 sleeps cross the
 * thresholds back and forth, a system call each time (590 in 5 s).  In
 * 1/FEMU_BATCH_UNIT units: coarser ones round the average up by up to
 * FEMU_BATCH_AVG_SLEEPS / FEMU_BATCH_UNIT.
 */
#define FEMU_BATCH_AVG_SLEEPS   32
#define FEMU_BATCH_UNIT         1024
#define FEMU_BATCH_MIN_CMDS     (2 * FEMU_BATCH_UNIT)
#define FEMU_BATCH_KEEP_CMDS    (3 * FEMU_BATCH_UNIT / 2)
/* a burst counts as at most this many commands in the average */
#define FEMU_BATCH_BURST_CAP    64

typedef struct FemuBatchPolicy {
    bool batch;                 /* SCHED_BATCH now (the caller sets it) */
    uint32_t untimed_sleeps;    /* sleeps without a due time in a row */
    uint32_t cmds_per_sleep;    /* moving average, 1/FEMU_BATCH_UNIT */
    uint64_t cmds_at_sleep;     /* the command count at the last sleep */
} FemuBatchPolicy;

/*
 * The poller is about to sleep, with a due time (timed) or until a
 * doorbell, having fetched `commands` commands since it started: should
 * it sleep as SCHED_BATCH?  Updates the averages; b->batch is the
 * caller's to set once the kernel took the policy.
 */
static inline bool femu_batch_want(FemuBatchPolicy *b, uint64_t commands,
                                   bool timed)
{
    uint64_t cmds = commands - b->cmds_at_sleep;

    b->cmds_at_sleep = commands;
    if (cmds > FEMU_BATCH_BURST_CAP) {
        cmds = FEMU_BATCH_BURST_CAP;
    }
    b->cmds_per_sleep += (uint32_t)(cmds * FEMU_BATCH_UNIT /
                                    FEMU_BATCH_AVG_SLEEPS) -
                         b->cmds_per_sleep / FEMU_BATCH_AVG_SLEEPS;
    if (timed) {
        b->untimed_sleeps = 0;
        return false;
    }
    if (b->untimed_sleeps < FEMU_BATCH_AFTER_SLEEPS) {
        b->untimed_sleeps++;
    }
    return b->untimed_sleeps >= FEMU_BATCH_AFTER_SLEEPS &&
           b->cmds_per_sleep >= (b->batch ? FEMU_BATCH_KEEP_CMDS
                                          : FEMU_BATCH_MIN_CMDS);
}

#endif
