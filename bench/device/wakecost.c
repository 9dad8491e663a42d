/*
 * wakecost: the host CPU one sleep and wake-up costs a thread, the floor
 * under what an idle-sleeping FEMU poller pays per command when the
 * guest gives it one command per wake-up (QD1 under TCG).
 *
 * Two threads hand a token back and forth through futexes: each wakes
 * the other (FUTEX_WAKE) and sleeps until it is woken (FUTEX_WAIT), the
 * way a vCPU's doorbell write kicks a sleeping poller and the poller
 * goes back to sleep.  Each thread's CPU time (CLOCK_THREAD_CPUTIME_ID)
 * divided by the round trips is what one sleep, its wake-up and one kick
 * of the other side cost it.  The two threads run on whichever cores the
 * scheduler picks (as the poller and the vCPUs do), or on one core with
 * `taskset -c 0 wakecost ...`, which shows the part that cross-core
 * wake-ups (IPIs, an idle core's exit) add.
 *
 *   wakecost [ROUND_TRIPS]      (default 200000)
 *
 * prints one line: "round_trips cpu_ns_per_cycle_a cpu_ns_per_cycle_b
 * wall_ns_per_round_trip".
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int to_b, to_a;   /* 1: the token is that side's */
static long round_trips = 200000;
static double cpu_b;

static int64_t clock_ns(clockid_t c)
{
    struct timespec t;

    clock_gettime(c, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void futex(atomic_int *word, int op, int val)
{
    syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

/* sleep until the token is here, then take it */
static void take(atomic_int *mine)
{
    while (!atomic_exchange(mine, 0)) {
        futex(mine, FUTEX_WAIT_PRIVATE, 0);
    }
}

/* hand the token to the other side and wake it */
static void give(atomic_int *theirs)
{
    atomic_store(theirs, 1);
    futex(theirs, FUTEX_WAKE_PRIVATE, 1);
}

static void *side_b(void *arg)
{
    int64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

    (void)arg;
    for (long i = 0; i < round_trips; i++) {
        take(&to_b);
        give(&to_a);
    }
    cpu_b = (double)(clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / round_trips;
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t b;
    int64_t w0, c0;
    double cpu_a, wall;

    if (argc > 1) {
        round_trips = atol(argv[1]);
    }
    if (round_trips < 1) {
        fprintf(stderr, "usage: wakecost [ROUND_TRIPS]\n");
        return 2;
    }
    if (pthread_create(&b, NULL, side_b, NULL)) {
        perror("pthread_create");
        return 1;
    }
    w0 = clock_ns(CLOCK_MONOTONIC);
    c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < round_trips; i++) {
        give(&to_b);
        take(&to_a);
    }
    cpu_a = (double)(clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / round_trips;
    wall = (double)(clock_ns(CLOCK_MONOTONIC) - w0) / round_trips;
    pthread_join(b, NULL);
    printf("%ld %.0f %.0f %.0f\n", round_trips, cpu_a, cpu_b, wall);
    return 0;
}
