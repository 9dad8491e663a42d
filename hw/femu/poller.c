/*
 * FEMU: poller threads.
 *
 * Each I/O submission queue belongs to one poller thread ("femu-poller-N",
 * SQ i goes to poller (i - 1) % pollers).  A poller fetches commands,
 * executes them (data copy + FTL, which returns the emulated completion
 * time), and keeps the completions in a min-heap ordered by that time.
 * A completion is posted when the clock reaches its emulated time, never
 * earlier; how late it is gets recorded (log page C1h, trace event
 * femu_cqe_late).
 *
 * Adaptive waiting: after the last progress the poller spins for a short
 * adaptive window (poller_spin_us at most, see femu_spin_adapt: only
 * while new work has been coming that soon), and it also spins when the
 * next completion is due within twice its wake margin (adaptive, see
 * FEMU_WAKE_MARGIN_MIN_NS); otherwise it sleeps on a futex (kicked by
 * MMIO doorbells) with a timeout of the next due time minus the wake
 * margin.  Before sleeping it publishes event
 * indexes so that a guest using shadow doorbells rings the MMIO doorbell
 * for new work.  An idle device therefore costs no host CPU.
 *
 * A completion that is due while its CQ is full is parked (in due
 * order) until the host moves that CQ's head: the head doorbell wakes
 * the pollers with parked completions for it, and a poller about to
 * sleep publishes the CQ's event index, so that a host using shadow
 * doorbells rings the MMIO one.  A host that never consumes its
 * completions therefore costs no CPU either; completions for other CQs
 * of the same poller go on meanwhile.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/timer.h"
#include "qemu/main-loop.h"
#include "qemu/memalign.h"
#include "hw/pci/msix.h"
#include "qemu/futex.h"
#include "qemu/rcu.h"
#include <sys/prctl.h>
#include <sched.h>
#include "femu.h"
#include "trace.h"

/*
 * Idle spinning.  After its last progress a poller spins for its window
 * p->spin_ns, then sleeps until a doorbell kicks it.  The window's
 * ceiling is poller_spin_us (default 10 us): a sleep and its wake-up
 * cost the host about that much CPU and the guest about that much
 * latency, so spinning longer for work that may not come only burns a
 * core the guest could use (under TCG a QD1 guest needs 15-100 us to
 * turn a completion into its next command: there the poller sleeps
 * after every command).  The window adapts the way KVM's halt polling
 * does: an idle period that ended (new work) within the ceiling doubles
 * it (from FEMU_SPIN_START_NS), a longer one halves it, and below
 * FEMU_SPIN_START_NS it is 0.
 */
#define FEMU_SPIN_START_NS  2000
/*
 * Wake up this long (the wake margin) before a due completion, then spin
 * to it: a timed sleep overshoots by the host's wake-up latency, a few
 * microseconds on a quiet host, milliseconds on an overloaded one.  The
 * margin adapts: after each timed sleep it grows at once to the overshoot
 * seen plus FEMU_WAKE_HEADROOM_NS, and decays slowly (1/16 of the excess
 * per sleep) towards it, within [MIN, MAX].  A wait shorter than twice
 * the margin is spun, not slept.  It only costs CPU while completions are
 * pending: an idle poller sleeps without a timeout.
 */
#define FEMU_WAKE_MARGIN_MIN_NS 30000
#define FEMU_WAKE_MARGIN_MAX_NS 2000000
#define FEMU_WAKE_HEADROOM_NS   10000
/* commands fetched from one SQ per round, for fairness between SQs */
#define FEMU_FETCH_BURST    32
/* a fetch burst stops to send interrupts once a posted CQE has waited
 * this long for its interrupt (batching saves BQL round trips) */
#define FEMU_IRQ_BATCH_NS   2000
/* an interrupt send slower than this waited for the BQL (the MSI-X
 * write and the vCPU kick take 1-2 us on their own) */
#define FEMU_IRQ_SLOW_NS    5000
/* doorbell_inline: the largest command a vCPU runs (logical blocks) */
#define FEMU_DOORBELL_RUN_MAX_LBAS 32
/* doorbell_inline: a vCPU runs commands only once the tail doorbells
 * of the controller's I/O SQs have come from one SQ for this long */
#define FEMU_DOORBELL_SOLO_NS   1000000

/* min-heap of pending completions, keyed by (due_ns, seq) */
static bool femu_pend_less(const FemuPending *a, const FemuPending *b)
{
    return a->due_ns < b->due_ns ||
           (a->due_ns == b->due_ns && a->seq < b->seq);
}

static void femu_heap_push(FemuPoller *p, FemuPending *e)
{
    size_t i;

    if (p->nheap == p->heap_cap) {
        p->heap_cap = p->heap_cap ? p->heap_cap * 2 : 256;
        p->heap = g_renew(FemuPending, p->heap, p->heap_cap);
    }
    e->seq = p->seq++;
    i = p->nheap++;
    while (i) {
        size_t parent = (i - 1) / 2;
        if (!femu_pend_less(e, &p->heap[parent])) {
            break;
        }
        p->heap[i] = p->heap[parent];
        i = parent;
    }
    p->heap[i] = *e;
}

static void femu_heap_pop(FemuPoller *p)
{
    FemuPending last = p->heap[--p->nheap];
    size_t i = 0;

    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const FemuPending *best = &last;

        if (l < p->nheap && femu_pend_less(&p->heap[l], best)) {
            m = l;
            best = &p->heap[l];
        }
        if (r < p->nheap && femu_pend_less(&p->heap[r], best)) {
            m = r;
        }
        if (m == i) {
            break;
        }
        p->heap[i] = p->heap[m];
        i = m;
    }
    if (p->nheap) {
        p->heap[i] = last;
    }
}

static uint32_t femu_poller_bit(FemuPoller *p)
{
    return 1u << p->index;
}

/* Keep a due completion until its CQ has space (femu_unpark). */
static void femu_park(FemuPoller *p, const FemuPending *e)
{
    FemuCQ *cq = e->sq->cq;

    if (p->nparked == p->parked_cap) {
        p->parked_cap = p->parked_cap ? p->parked_cap * 2 : 64;
        p->parked = g_renew(FemuPending, p->parked, p->parked_cap);
    }
    p->parked[p->nparked++] = *e;
    if (!(qatomic_read(&cq->parked_mask) & femu_poller_bit(p))) {
        /* a full barrier: pairs with the one in the head doorbell */
        qatomic_or(&cq->parked_mask, femu_poller_bit(p));
        trace_femu_cq_park(cq->cqid, p->index);
    }
}

/* Clear this poller's bit in cq->parked_mask if it parks nothing there. */
static void femu_park_mask_update(FemuPoller *p, FemuCQ *cq)
{
    for (size_t i = 0; i < p->nparked; i++) {
        if (p->parked[i].sq->cq == cq) {
            return;
        }
    }
    qatomic_and(&cq->parked_mask, ~femu_poller_bit(p));
}

/*
 * A CQE of this poller was posted with the interrupt due at due_ns
 * (for C1h's interrupt lateness), or held back by Interrupt Coalescing
 * until coal_due (femu_cq_post_coalesced; INT64_MAX: not held).
 */
static void femu_posted(FemuPoller *p, int64_t coal_due, int64_t due_ns)
{
    if (coal_due == INT64_MAX) {
        p->irq_due_ns = MIN(p->irq_due_ns, due_ns);
    } else {
        p->coal_due_ns = MIN(p->coal_due_ns, coal_due);
    }
}

/* Post a completion now; false if its CQ is full. */
static bool femu_complete(FemuPoller *p, FemuPending *e)
{
    FemuSQ *sq = e->sq;
    int64_t now, coal_due;

    if (!femu_cq_post_coalesced(sq->cq, sq, e->cid, e->status, e->result,
                                &coal_due)) {
        return false;
    }
    femu_posted(p, coal_due, e->due_ns);
    /* lateness ends when the CQE is in guest memory (docs/log-pages.md) */
    now = p->clock_ns = get_clock();
    sq->inflight--;
    p->stats.completions++;
    femu_lat_record(&p->n->lat_cqe, now - e->due_ns);
    trace_femu_cqe_late(sq->sqid, le16_to_cpu(e->cid), now - e->due_ns);
    return true;
}

/*
 * Post the parked completions whose CQ has space again, in order: once
 * one of a CQ's does not fit, the later ones of that CQ stay parked
 * behind it.  Returns true if any was posted.
 */
static bool femu_unpark(FemuPoller *p)
{
    FemuCQ *seen[FEMU_MAX_IOQPAIRS + 1];
    DECLARE_BITMAP(blocked, FEMU_MAX_IOQPAIRS + 1);
    bool progress = false;
    size_t keep = 0;

    /* called on every pass of the poller loop: nothing else before this */
    if (!p->nparked) {
        return false;
    }
    memset(seen, 0, sizeof(seen));
    bitmap_zero(blocked, FEMU_MAX_IOQPAIRS + 1);
    for (size_t i = 0; i < p->nparked; i++) {
        FemuPending *e = &p->parked[i];
        FemuCQ *cq = e->sq->cq;

        seen[cq->cqid] = cq;
        if (!test_bit(cq->cqid, blocked) && femu_complete(p, e)) {
            progress = true;
            continue;
        }
        set_bit(cq->cqid, blocked);
        p->parked[keep++] = *e;
    }
    p->nparked = keep;
    for (int q = 0; q <= FEMU_MAX_IOQPAIRS; q++) {
        if (seen[q] && !test_bit(q, blocked)) {
            qatomic_and(&seen[q]->parked_mask, ~femu_poller_bit(p));
        }
    }
    return progress;
}

/*
 * Post every completion that is due, or park it if its CQ is full (or
 * already has parked ones, which it must not overtake).  Returns true if
 * any was posted or parked.
 */
static bool femu_post_due(FemuPoller *p, int64_t *next_due)
{
    bool progress = false;

    if (qatomic_read(&p->n->powered_off)) {
        /* no power: nothing completes; a reset drops them */
        *next_due = INT64_MAX;
        return false;
    }
    while (p->nheap) {
        FemuPending *e = &p->heap[0];
        int64_t now = p->clock_ns = get_clock();

        if (e->due_ns > now) {
            *next_due = e->due_ns;
            return progress;
        }
        if ((qatomic_read(&e->sq->cq->parked_mask) & femu_poller_bit(p)) ||
            !femu_complete(p, e)) {
            femu_park(p, e);
        }
        femu_heap_pop(p);
        progress = true;
    }
    *next_due = INT64_MAX;
    return progress;
}

/* Queue the completion of an executed command, or post it if due. */
static void femu_req_done(FemuPoller *p, FemuReq *req)
{
    FemuSQ *sq = req->sq;
    FemuPending e;
    int64_t now;

    trace_femu_io_fetch(sq->sqid, le16_to_cpu(req->cmd.cid),
                        req->cmd.opcode, sq->head,
                        req->due_ns - req->arrival_ns);
    e.due_ns = req->due_ns;
    e.sq = sq;
    e.cid = req->cmd.cid;
    e.status = req->status;
    e.result = req->result;
    /* due at arrival (no emulated time): no clock read to know it */
    now = e.due_ns <= req->arrival_ns ? e.due_ns : get_clock();
    if (!(e.due_ns <= now && !p->nheap &&
          !(qatomic_read(&sq->cq->parked_mask) & femu_poller_bit(p)) &&
          !qatomic_read(&p->n->powered_off) && femu_complete(p, &e))) {
        femu_heap_push(p, &e);
    }
}

/*
 * hiops_inline: post the CQE of a command of a mode without emulated time
 * (NoSSD) now, in the fetch sweep, instead of queuing it for
 * femu_post_due: no pending entry, no clock reads, no lateness record
 * (nothing waits for a due time).  A CQ that is full or has parked
 * completions (which this one must not overtake), or a power cut, takes
 * the ordinary path.
 */
static void femu_req_done_inline(FemuPoller *p, FemuReq *req)
{
    FemuSQ *sq = req->sq;
    int64_t coal_due;

    if ((qatomic_read(&sq->cq->parked_mask) & femu_poller_bit(p)) ||
        qatomic_read(&p->n->powered_off) ||
        !femu_cq_post_coalesced(sq->cq, sq, req->cmd.cid, req->status,
                                req->result, &coal_due)) {
        femu_req_done(p, req);
        return;
    }
    femu_posted(p, coal_due, req->arrival_ns);
    trace_femu_io_fetch(sq->sqid, le16_to_cpu(req->cmd.cid),
                        req->cmd.opcode, sq->head, 0);
    sq->inflight--;
    p->stats.completions++;
    p->stats.inlined++;
}

/*
 * The next step of a command run in steps (Zone Management Send Reset
 * with Select All): true when it has finished.  Between two steps the
 * poller loop lets p->lock go (and the step lets ftl_lock go), so the
 * main loop waits for one step, not for the whole command.
 */
static bool femu_more(FemuPoller *p)
{
    FemuReq *req = p->more;

    femu_io_exec(p->n, req);
    if (req->status == FEMU_REQ_MORE) {
        return false;
    }
    femu_req_done(p, req);
    g_free(req);
    p->more = NULL;
    return true;
}

/*
 * Execute a command just fetched from sq and queue or post its
 * completion; false if it runs in steps (p->more holds it then).
 */
static bool femu_run(FemuPoller *p, FemuSQ *sq, FemuReq *req)
{
    FemuCtrl *n = p->n;

    sq->inflight++;
    p->stats.commands++;
    req->sq = sq;
    req->status = NVME_SUCCESS;
    req->result = 0;
    req->arrival_ns = p->clock_ns = get_clock();
    req->due_ns = req->arrival_ns;
    req->step = 0;
    femu_io_exec(n, req);
    if (req->status == FEMU_REQ_MORE) {
        p->more = g_memdup2(req, sizeof(*req));
        return false;
    }
    if (n->params.hiops_inline && req->ns && req->ns->mode->complete_inline) {
        femu_req_done_inline(p, req);
    } else {
        femu_req_done(p, req);
    }
    return true;
}

/*
 * Fetch and execute commands, at most FEMU_FETCH_BURST per SQ, starting
 * with a different SQ each time (p->rr) for fairness.  Completions that
 * come due meanwhile are posted between two commands, and once the
 * earliest posted one has waited FEMU_IRQ_BATCH_NS for its interrupt the
 * burst ends so that the caller signals it: executing a command (the data
 * copy above all) is what would otherwise make them late.
 */
static bool femu_fetch(FemuPoller *p, bool *drained)
{
    FemuCtrl *n = p->n;
    bool progress = false, more = false;
    int nsqs = p->nsqs;

    *drained = false;
    if (qatomic_read(&n->powered_off)) {
        return false;
    }
    if (p->more && !femu_more(p)) {
        return true;
    }
    for (int j = 0; j < nsqs; j++) {
        FemuSQ *sq = p->sqs[(p->rr + j) % nsqs];
        int k;

        for (k = 0; k < FEMU_FETCH_BURST; k++) {
            FemuReq req;
            int64_t next_due;

            if (qatomic_read(&p->lock_waiters)) {
                /* the main loop (BQL held) waits for p->lock */
                p->rr = (p->rr + j) % nsqs;
                return progress;
            }
            /* bound the work a guest can queue: one SQ's worth */
            if (sq->inflight >= sq->size - 1 ||
                !femu_sq_fetch(sq, &req.cmd)) {
                break;
            }
            progress = true;
            if (!femu_run(p, sq, &req)) {
                /* its next step first, after the caller let p->lock go */
                p->rr = (p->rr + j + 1) % nsqs;
                return true;
            }
            if (p->nheap) {
                femu_post_due(p, &next_due);
            }
            /* the clock as the command's completion or arrival read it */
            if (p->irq_due_ns != INT64_MAX &&
                p->clock_ns - p->irq_due_ns >= FEMU_IRQ_BATCH_NS) {
                p->rr = (p->rr + j + 1) % nsqs;
                return true;
            }
        }
        if (k == FEMU_FETCH_BURST) {
            /* a whole burst: this SQ may hold more */
            more = true;
        }
    }
    /* every SQ was empty or at its limit when the round left it */
    *drained = !more;
    if (nsqs) {
        p->rr = (p->rr + 1) % nsqs;
    }
    return progress;
}

/*
 * Interrupts that Interrupt Coalescing held back on the CQs of this
 * poller's SQs and whose time has come: scheduled for the next
 * femu_poller_signal.  Whoever posted the first CQE held back on a CQ
 * has its due time (several pollers may share a CQ: each of them looks).
 */
static void femu_coal_expire(FemuPoller *p)
{
    int64_t now, due = p->coal_due_ns;

    if (due == INT64_MAX) {
        return;
    }
    now = get_clock();
    if (now < due) {
        return;
    }
    p->coal_due_ns = INT64_MAX;
    for (int i = 0; i < p->nsqs; i++) {
        FemuCQ *cq = p->sqs[i]->cq;

        if (femu_cq_coal_expire(cq, now, &p->coal_due_ns)) {
            /* C1h's interrupt lateness counts from the Aggregation Time */
            p->irq_due_ns = MIN(p->irq_due_ns, due);
        }
    }
}

/*
 * Send the interrupts of the CQEs this poller posted (takes the BQL) and
 * record how late that was for the earliest of them (C1h, 2nd histogram).
 * Returns the clock it read last, 0 if none (the loop's clock for the
 * pass).
 */
/*
 * C1h's 2nd histogram: how late the interrupts of this poller's CQEs
 * went out, for the earliest of them, at now (0: read the clock).
 * Returns the clock it used, 0 if there was nothing to record.
 */
static int64_t femu_irq_record_late(FemuPoller *p, int64_t now)
{
    if (p->irq_due_ns == INT64_MAX) {
        return now;
    }
    if (!now) {
        now = get_clock();
    }
    femu_lat_record(&p->n->lat_irq, now - p->irq_due_ns);
    p->irq_due_ns = INT64_MAX;
    return now;
}

static int64_t femu_poller_signal(FemuPoller *p)
{
    int64_t t0, now = 0;

    if (qatomic_read(&p->n->irq_pending)) {
        t0 = get_clock();
        if (femu_irq_flush(p->n)) {
            now = get_clock();
            p->stats.irq_sends++;
            p->stats.irq_ns += now - t0;
            p->stats.irq_slow += now - t0 > FEMU_IRQ_SLOW_NS;
        }
    }
    return femu_irq_record_late(p, now);
}

static void femu_pollers_kick_mask(FemuCtrl *n, uint32_t mask);

/*
 * New commands, or space in a CQ that holds parked completions.  Space
 * in a CQ where other pollers park completions wakes them: this poller
 * published the CQ's event index from the head that made the space, so
 * the host, past that index, need not ring the MMIO doorbell for it.
 */
static bool femu_has_new_work(FemuPoller *p)
{
    bool work = false;

    for (int i = 0; i < p->nsqs; i++) {
        FemuSQ *sq = p->sqs[i];
        uint32_t parked = qatomic_read(&sq->cq->parked_mask);

        if (sq->inflight < sq->size - 1 && femu_sq_tail(sq) != sq->head) {
            work = true;
        }
        if (parked && femu_cq_has_space(sq->cq)) {
            if (parked & femu_poller_bit(p)) {
                work = true;
            }
            femu_pollers_kick_mask(p->n, parked & ~femu_poller_bit(p));
        }
    }
    return work;
}

/* Adapt the wake margin to a timed sleep that overshot by overshoot ns. */
static void femu_wake_margin_update(FemuPoller *p, int64_t overshoot)
{
    int64_t target = MAX(overshoot, 0) + FEMU_WAKE_HEADROOM_NS;
    int64_t m = p->wake_margin_ns;

    if (target > m) {
        m = target;
    } else {
        m -= (m - target) / 16;
    }
    m = MIN(MAX(m, FEMU_WAKE_MARGIN_MIN_NS), FEMU_WAKE_MARGIN_MAX_NS);
    qatomic_set(&p->wake_margin_ns, m);
}

/* An idle period of idle_ns ended with new work: adapt the spin window. */
static void femu_spin_adapt(FemuPoller *p, int64_t idle_ns)
{
    int64_t w = p->spin_ns;
    int64_t max = (int64_t)p->n->params.poller_spin_us * 1000;

    if (idle_ns <= max) {
        if (idle_ns > w) {
            /* spinning a little longer would have caught it */
            w = MIN(MAX(w * 2, FEMU_SPIN_START_NS), max);
        }
    } else {
        w /= 2;
        if (w < FEMU_SPIN_START_NS) {
            w = 0;
        }
    }
    p->spin_ns = w;
}

/*
 * Sleep until kicked (femu_poller_wake) or for timeout_ns (< 0: no
 * limit); true if kicked.  A futex, not an eventfd under ppoll: the
 * poller sleeps after almost every command at QD1, and the futex spares
 * each sleep the poll set-up and the read that clears an eventfd.  A
 * kick between the caller's last look for work and the wait leaves
 * p->kick at 1, so FUTEX_WAIT returns at once; an early return for any
 * other reason (a signal) is one more pass of the poller loop.
 */
static bool femu_poller_wait(FemuPoller *p, int64_t timeout_ns)
{
    struct timespec ts, *tsp = NULL;

    if (qatomic_xchg(&p->kick, 0)) {
        return true;
    }
    if (timeout_ns >= 0) {
        ts.tv_sec = timeout_ns / NANOSECONDS_PER_SECOND;
        ts.tv_nsec = timeout_ns % NANOSECONDS_PER_SECOND;
        tsp = &ts;
    }
    qemu_futex(&p->kick, FUTEX_WAIT_PRIVATE, 0, tsp, NULL, 0);
    return qatomic_xchg(&p->kick, 0);
}

/*
 * poller_batch: sleep as SCHED_BATCH or SCHED_OTHER, as
 * femu_batch_want decides (include/hw/femu/poller-batch.h says when and
 * why).  A SCHED_FIFO poller (poller_rt) is left alone.
 */
static void femu_poller_sched_for(FemuPoller *p, bool timed)
{
    struct sched_param sp = { .sched_priority = 0 };
    bool batch;
    int err;

    if (!p->batch_allowed) {
        return;
    }
    /* the commands vCPUs ran in their doorbells did not wake it */
    batch = femu_batch_want(&p->batch,
                            p->stats.commands - p->stats.doorbell_runs, timed);
    if (batch == p->batch.batch) {
        return;
    }
    err = pthread_setschedparam(pthread_self(),
                                batch ? SCHED_BATCH : SCHED_OTHER, &sp);
    if (err) {
        /* e.g. -sandbox resourcecontrol=deny: stay as it is */
        trace_femu_poller_batch_refused(p->index, err);
        p->batch_allowed = false;
        return;
    }
    qatomic_set(&p->batch.batch, batch);
    trace_femu_poller_batch(p->index, batch,
                            p->batch.cmds_per_sleep / FEMU_BATCH_UNIT);
}

/* Make the poller's next or current wait return. */
static void femu_poller_wake(FemuPoller *p)
{
    qatomic_set(&p->kick, 1);
    qemu_futex(&p->kick, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *femu_poller_thread(void *opaque)
{
    FemuPoller *p = opaque;
    int64_t idle_since = 0;
    bool was_idle = false;      /* the last round found nothing to do */

    /*
     * The RCU read sections of the passes (and of every DMA) protect
     * the memory map only for a registered thread: synchronize_rcu()
     * ignores the others.
     */
    rcu_register_thread();
    /* nanosecond timers: the default 50 us slack would blur timing */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    /*
     * poller_batch only moves a SCHED_OTHER poller: a SCHED_FIFO one
     * (poller_rt, set once this thread runs) and a policy QEMU was
     * started with (chrt -b, -i) are the user's.
     */
    p->batch_allowed = p->n->params.poller_batch && !p->n->params.poller_rt &&
                       sched_getscheduler(0) == SCHED_OTHER;
    trace_femu_poller_start(p->index);

    while (!qatomic_read(&p->stop)) {
        int64_t next_due, now, wait;
        bool progress, fetched, drained, pin;

        if (qatomic_read(&p->lock_waiters)) {
            /* let the main loop have p->lock first (femu_poller_lock) */
            sched_yield();
            continue;
        }
        p->stats.rounds++;
        /*
         * Due completions first: they are what timing accuracy is about.
         * One RCU read section for the pass: every ring, PRP and data
         * access in it (prp.c) nests inside it, so each costs a depth
         * count instead of the two full barriers of an outermost
         * section.  It ends before the BQL is taken (femu_poller_signal)
         * and before any sleep, so it never waits for a BQL holder that
         * might wait for a grace period.
         */
        qemu_mutex_lock(&p->lock);
        rcu_read_lock();
        progress = femu_unpark(p);
        progress |= femu_post_due(p, &next_due);
        fetched = femu_fetch(p, &drained);
        progress |= fetched;
        progress |= femu_post_due(p, &next_due);
        femu_coal_expire(p);
        rcu_read_unlock();
        qemu_mutex_unlock(&p->lock);
        now = femu_poller_signal(p);
        if (!now) {
            now = get_clock();
        }
        if (progress) {
            if (fetched && was_idle && idle_since) {
                femu_spin_adapt(p, now - idle_since);
            }
            was_idle = false;
            idle_since = now;
            /*
             * Every SQ drained, nothing pending or parked, no spin
             * window: straight to the sleep path, which looks for new
             * work again after publishing the event indexes; another
             * pass first would only read every SQ's doorbell once more.
             * Only this thread adds to the heap, the parked list and
             * p->more, or a vCPU while it sleeps (femu_doorbell_run,
             * under p->lock, which this pass waited for), so reading
             * them unlocked cannot miss an entry.
             */
            if (!drained || p->spin_ns || p->nheap || p->nparked ||
                p->more) {
                continue;
            }
            wait = -1;
        } else {
            /* -1: nothing pending; a due time that just passed spins */
            wait = next_due == INT64_MAX ? -1 : MAX(next_due - now, 0);
            if (wait >= 0 && wait <= 2 * p->wake_margin_ns) {
                cpu_relax();
                continue;
            }
            if (now - idle_since < p->spin_ns) {
                cpu_relax();
                continue;
            }
        }
        was_idle = true;

        /* going to sleep: ask for MMIO doorbells, then re-check */
        qatomic_set(&p->sleeping, true);
        smp_mb();
        qemu_mutex_lock(&p->lock);
        pin = !msix_enabled(&p->n->parent_obj);
        for (int i = 0; i < p->nsqs; i++) {
            FemuCQ *cq = p->sqs[i]->cq;

            femu_sq_set_eventidx(p->sqs[i]);
            /*
             * A CQ head doorbell only matters to a CQ with parked
             * completions (its space wakes them) and to the pin level,
             * which is recomputed when the head moves.  With MSI-X and
             * nothing parked the host is not asked for it: at QD1 that
             * spares it an MMIO write per command, and the poller a
             * write of the index before every sleep.
             */
            if (pin || qatomic_read(&cq->parked_mask)) {
                femu_cq_set_eventidx(cq);
            }
        }
        smp_mb();
        progress = femu_has_new_work(p);
        qemu_mutex_unlock(&p->lock);
        if (!progress && !qatomic_read(&p->stop)) {
            int64_t timeout = wait < 0 ? -1 : wait - p->wake_margin_ns;
            int64_t t0 = get_clock();

            if (p->coal_due_ns != INT64_MAX) {
                /* an interrupt held back: at most 100 us units late */
                int64_t coal = MAX(p->coal_due_ns - t0, 0);

                timeout = timeout < 0 ? coal : MIN(timeout, coal);
            }

            femu_poller_sched_for(p, timeout >= 0);
            trace_femu_poller_sleep(p->index, timeout);
            p->stats.sleeps++;
            if (femu_poller_wait(p, timeout)) {
                p->stats.wakeups++;
            } else if (timeout >= 0) {
                int64_t slept = get_clock() - t0;

                if (slept >= timeout) {
                    femu_wake_margin_update(p, slept - timeout);
                }
            }
            trace_femu_poller_wake(p->index);
        }
        qatomic_set(&p->kick, 0);
        qatomic_set(&p->sleeping, false);
    }
    trace_femu_poller_stats(p->index, p->stats.commands,
                            p->stats.completions, p->stats.inlined,
                            p->stats.sleeps, p->stats.wakeups,
                            p->stats.rounds, p->stats.irq_sends,
                            p->stats.irq_slow, p->stats.irq_ns / 1000);
    trace_femu_poller_doorbell_stats(p->n->params.serial, p->index,
                                     p->stats.commands,
                                     p->stats.doorbell_runs,
                                     p->stats.doorbell_passes);
    rcu_unregister_thread();
    return NULL;
}

/*
 * p->lock from the main loop (BQL held): announced in p->lock_waiters,
 * so that the poller ends its fetch round after the command it is
 * executing instead of finishing a burst, and lets this thread in first.
 */
static void femu_poller_lock(FemuPoller *p)
{
    qatomic_inc(&p->lock_waiters);
    qemu_mutex_lock(&p->lock);
    qatomic_dec(&p->lock_waiters);
}

/* Wake the pollers in mask. */
static void femu_pollers_kick_mask(FemuCtrl *n, uint32_t mask)
{
    for (uint32_t i = 0; n->pollers && mask && i < n->params.npollers; i++) {
        if (mask & (1u << i)) {
            femu_poller_kick(&n->pollers[i]);
        }
    }
}

/* Wake the pollers that park completions for cq (its head moved). */
void femu_pollers_kick_parked(FemuCtrl *n, FemuCQ *cq)
{
    femu_pollers_kick_mask(n, qatomic_read(&cq->parked_mask));
}

/* Work the poller itself must do later: its sleep is timed or kicked. */
static bool femu_poller_pending(FemuPoller *p)
{
    return p->nheap || p->nparked || p->more || p->coal_due_ns != INT64_MAX;
}

/*
 * doorbell_inline: can this doorbell's command run in the vCPU thread
 * that rang it?  Read and Write of at most FEMU_DOORBELL_RUN_MAX_LBAS
 * logical blocks only: the vCPU holds the BQL, and everything else
 * (a Deallocate, a Zone Reset, a long copy) may take long enough to
 * stall the main loop and the other vCPUs.
 */
static bool femu_doorbell_cmd_ok(const NvmeCmd *cmd)
{
    const NvmeRwCmd *rw = (const NvmeRwCmd *)cmd;

    return (cmd->opcode == NVME_CMD_READ || cmd->opcode == NVME_CMD_WRITE) &&
           le16_to_cpu(rw->nlb) < FEMU_DOORBELL_RUN_MAX_LBAS;
}

/*
 * doorbell_inline: the vCPU thread that wrote sq's tail doorbell (BQL
 * held) runs the new commands itself while the poller sleeps with
 * nothing pending: what a guest that waits for each command (QD1) does.
 * Waking the poller for them costs a wake-up on another core per
 * command, 30-40 us before the poller runs on a host whose idle cores
 * halt (a VM, docs/device.md), by which time the vCPU has halted too
 * and needs a wake-up of its own for the interrupt; here the command runs
 * at once, on a core that is awake, and its interrupt is sent before
 * the vCPU goes back to the guest.  True if it left nothing for the
 * poller: no completion due later (NAND time), parked or held back by
 * Interrupt Coalescing, no command left in the SQ.  Only for a guest
 * with one submitter: vCPUs that run commands do it holding the BQL,
 * which serializes them, so while the doorbells of several of the
 * controller's SQs come within FEMU_DOORBELL_SOLO_NS of each other (4
 * jobs on 4 queues, however many pollers serve them) the pollers run
 * the commands (femu_poller_doorbell).  Not while the poller sleeps as
 * SCHED_BATCH (commands gather for it: 2 or more per wake-up), nor
 * while it holds its lock (it is awake).
 */
static bool femu_doorbell_run(FemuPoller *p, FemuSQ *sq)
{
    int64_t next_due;
    bool left = false;
    int k;

    if (qatomic_read(&p->batch.batch) || qatomic_read(&p->n->powered_off) ||
        qemu_mutex_trylock(&p->lock)) {
        return false;
    }
    if (femu_poller_pending(p) || !qatomic_read(&p->sleeping)) {
        qemu_mutex_unlock(&p->lock);
        return false;
    }
    rcu_read_lock();
    for (k = 0; k < FEMU_FETCH_BURST; k++) {
        uint32_t head = sq->head;
        FemuReq req;

        if (sq->inflight >= sq->size - 1 || !femu_sq_fetch(sq, &req.cmd)) {
            break;
        }
        if (!femu_doorbell_cmd_ok(&req.cmd)) {
            /* not fetched after all: the poller takes it */
            qatomic_set(&sq->head, head);
            left = true;
            break;
        }
        p->stats.doorbell_runs++;
        if (!femu_run(p, sq, &req)) {
            left = true;
            break;
        }
    }
    if (k) {
        p->stats.doorbell_passes++;
        if (p->nheap) {
            femu_post_due(p, &next_due);
        }
        /* the guest's next tail passes it: its doorbell comes here too */
        femu_sq_set_eventidx(sq);
    }
    rcu_read_unlock();
    left |= k == FEMU_FETCH_BURST || femu_poller_pending(p);
    /* sent as each CQE was posted (BQL held, femu_irq_schedule) */
    femu_irq_record_late(p, 0);
    qemu_mutex_unlock(&p->lock);
    return !left;
}

/*
 * The guest moved an I/O SQ's tail (MMIO doorbell, BQL held): a poller
 * that is awake sees it; a sleeping one is woken, unless this vCPU ran
 * the commands itself (femu_doorbell_run).
 */
void femu_poller_doorbell(FemuCtrl *n, FemuSQ *sq)
{
    FemuPoller *p = sq->poller;
    bool solo = false;

    if (n->params.doorbell_inline) {
        /* BQL held: every MMIO doorbell write is serialized here */
        int64_t now = get_clock();

        if (sq->sqid != n->mmio_doorbells.last_sqid &&
            now - n->mmio_doorbells.last_ns < FEMU_DOORBELL_SOLO_NS) {
            n->mmio_doorbells.multi_until_ns = now + FEMU_DOORBELL_SOLO_NS;
        }
        n->mmio_doorbells.last_sqid = sq->sqid;
        n->mmio_doorbells.last_ns = now;
        solo = now >= n->mmio_doorbells.multi_until_ns;
    }
    if (!p || !qatomic_read(&p->sleeping)) {
        return;
    }
    if (solo && femu_doorbell_run(p, sq)) {
        return;
    }
    femu_poller_wake(p);
}

void femu_poller_kick(FemuPoller *p)
{
    if (p && qatomic_read(&p->sleeping)) {
        femu_poller_wake(p);
    }
}

/* fn on every poller (there are none before realize starts them) */
static void femu_pollers_each(FemuCtrl *n, void (*fn)(FemuPoller *p))
{
    for (uint32_t i = 0; n->pollers && i < n->params.npollers; i++) {
        fn(&n->pollers[i]);
    }
}

void femu_pollers_kick_all(FemuCtrl *n)
{
    femu_pollers_each(n, femu_poller_kick);
}

/*
 * poller_rt=PRIO: make the poller threads SCHED_FIFO.  A spinning poller
 * then keeps its core against every normal thread (the vCPUs, the main
 * loop, other processes), which removes the host-scheduling part of the
 * lateness tail (docs/measuring.md); it can also starve a vCPU that has
 * no other core, so it is off by default.  Idle pollers still sleep, and
 * the kernel's real-time throttling (sched_rt_runtime_us) still applies.
 */
static bool femu_poller_set_rt(FemuCtrl *n, FemuPoller *p, Error **errp)
{
    struct sched_param sp = { .sched_priority = n->params.poller_rt };
    int err;

    if (!n->params.poller_rt) {
        return true;
    }
    err = pthread_setschedparam(p->thread.thread, SCHED_FIFO, &sp);
    if (err) {
        error_setg(errp, "poller_rt=%u: cannot make poller thread %d "
                   "SCHED_FIFO: %s (it needs CAP_SYS_NICE or an "
                   "RLIMIT_RTPRIO of at least %u; poller_rt=0 turns it "
                   "off)", n->params.poller_rt, p->index, strerror(err),
                   n->params.poller_rt);
        return false;
    }
    return true;
}

/*
 * Stop and join the first count pollers (the ones started) and free
 * them all.  They must serve no SQ: stopped by femu_pollers_quiesce, or
 * never given one (start-up failed).
 */
static void femu_pollers_join(FemuCtrl *n, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        FemuPoller *p = &n->pollers[i];
        bool locked = bql_locked();

        qatomic_set(&p->stop, true);
        femu_poller_wake(p);
        /* a poller may be waiting for the BQL to send an interrupt */
        if (locked) {
            bql_unlock();
        }
        qemu_thread_join(&p->thread);
        if (locked) {
            bql_lock();
        }
        qemu_mutex_destroy(&p->lock);
        g_free(p->heap);
        g_free(p->parked);
    }
    qemu_vfree(n->pollers);
    n->pollers = NULL;
}

void femu_pollers_start(FemuCtrl *n, Error **errp)
{
    if (n->params.poller_rt > sched_get_priority_max(SCHED_FIFO)) {
        error_setg(errp, "poller_rt=%u: must be 0 (off) or a SCHED_FIFO "
                   "priority 1..%d", n->params.poller_rt,
                   sched_get_priority_max(SCHED_FIFO));
        return;
    }
    /* cache-line aligned: each poller's stats on a line of their own */
    n->pollers = qemu_memalign(64, sizeof(FemuPoller) * n->params.npollers);
    memset(n->pollers, 0, sizeof(FemuPoller) * n->params.npollers);
    for (uint32_t i = 0; i < n->params.npollers; i++) {
        FemuPoller *p = &n->pollers[i];
        char name[32];

        p->n = n;
        p->index = i;
        p->irq_due_ns = INT64_MAX;
        p->coal_due_ns = INT64_MAX;
        p->wake_margin_ns = FEMU_WAKE_MARGIN_MIN_NS;
        qemu_mutex_init(&p->lock);
        snprintf(name, sizeof(name), "femu-poller-%u", i);
        qemu_thread_create(&p->thread, name, femu_poller_thread, p,
                           QEMU_THREAD_JOINABLE);
        if (!femu_poller_set_rt(n, p, errp)) {
            femu_pollers_join(n, i + 1);
            return;
        }
    }
}

void femu_pollers_stop(FemuCtrl *n)
{
    if (!n->pollers) {
        return;
    }
    femu_pollers_quiesce(n);
    femu_pollers_join(n, n->params.npollers);
    trace_femu_doorbell_stats(n->mmio_doorbells.sq, n->mmio_doorbells.cq);
}

void femu_poller_attach(FemuCtrl *n, FemuSQ *sq)
{
    FemuPoller *p;

    if (!n->pollers) {
        return;     /* QEMU is exiting: nobody serves I/O any more */
    }
    p = &n->pollers[(sq->sqid - 1) % n->params.npollers];

    femu_poller_lock(p);
    sq->poller = p;
    p->sqs[p->nsqs++] = sq;
    qemu_mutex_unlock(&p->lock);
    femu_poller_wake(p);
}

/*
 * Complete the entries of sq among a[0..n) with "Command Aborted due to
 * SQ Deletion" and keep the others, in their order: how many are kept.
 */
static size_t femu_abort_sq_entries(FemuPending *a, size_t n, FemuSQ *sq)
{
    size_t kept = 0;

    for (size_t i = 0; i < n; i++) {
        FemuPending e = a[i];

        if (e.sq != sq) {
            a[kept++] = e;
            continue;
        }
        femu_cq_post(sq->cq, sq, e.cid, NVME_CMD_ABORT_SQ_DEL, 0);
    }
    return kept;
}

/*
 * Delete SQ (5.6): commands of the SQ that were fetched but not yet
 * completed are completed with "Command Aborted due to SQ Deletion".
 */
void femu_poller_detach(FemuCtrl *n, FemuSQ *sq)
{
    FemuPoller *p = sq->poller;
    size_t keep;

    if (!p) {
        return;
    }
    femu_poller_lock(p);
    for (int i = 0; i < p->nsqs; i++) {
        if (p->sqs[i] == sq) {
            p->sqs[i] = p->sqs[--p->nsqs];
            break;
        }
    }
    if (p->more && p->more->sq == sq) {
        /* the steps run so far stay done, as for any aborted command */
        femu_cq_post(sq->cq, sq, p->more->cmd.cid, NVME_CMD_ABORT_SQ_DEL, 0);
        g_free(p->more);
        p->more = NULL;
    }
    keep = femu_abort_sq_entries(p->heap, p->nheap, sq);
    /* parked ones too (if the CQ is still full, the entry is lost, as
     * on a real bus: the host deleted the SQ without consuming them) */
    p->nparked = femu_abort_sq_entries(p->parked, p->nparked, sq);
    femu_park_mask_update(p, sq->cq);
    /* rebuild the heap from what is left */
    {
        FemuPending *old = p->heap;
        size_t nold = keep;

        p->heap = NULL;
        p->nheap = 0;
        p->heap_cap = 0;
        for (size_t i = 0; i < nold; i++) {
            femu_heap_push(p, &old[i]);
        }
        g_free(old);
    }
    sq->poller = NULL;
    qemu_mutex_unlock(&p->lock);
}

static void femu_poller_quiesce(FemuPoller *p)
{
    femu_poller_lock(p);
    for (int k = 0; k < p->nsqs; k++) {
        p->sqs[k]->poller = NULL;
        qatomic_set(&p->sqs[k]->cq->parked_mask, 0);
    }
    p->nsqs = 0;
    p->nheap = 0;
    p->nparked = 0;
    p->coal_due_ns = INT64_MAX;
    g_free(p->more);
    p->more = NULL;
    qemu_mutex_unlock(&p->lock);
}

/* Controller reset: drop every SQ and pending completion of the pollers. */
void femu_pollers_quiesce(FemuCtrl *n)
{
    femu_pollers_each(n, femu_poller_quiesce);
}

static void femu_poller_unlock(FemuPoller *p)
{
    qemu_mutex_unlock(&p->lock);
}

void femu_pollers_lock_all(FemuCtrl *n)
{
    femu_pollers_each(n, femu_poller_lock);
}

void femu_pollers_unlock_all(FemuCtrl *n)
{
    femu_pollers_each(n, femu_poller_unlock);
}

/*
 * ftl_lock from the main loop (BQL held): announced in n->ftl_waiters.
 * A mutex is not fair: without this, pollers that take the lock for
 * every command (or a poller that drops and retakes it between the
 * steps of a long deallocation, io.c) could keep the main loop waiting
 * for as long as they are busy.
 */
void femu_ftl_lock_main(FemuCtrl *n)
{
    qatomic_inc(&n->ftl_waiters);
    qemu_mutex_lock(&n->ftl_lock);
    qatomic_dec(&n->ftl_waiters);
}

/* ftl_lock from a poller: the main loop goes first. */
void femu_ftl_lock(FemuCtrl *n)
{
    while (qatomic_read(&n->ftl_waiters)) {
        sched_yield();
    }
    qemu_mutex_lock(&n->ftl_lock);
}

/* Largest wake margin of the pollers (log page C1h). */
uint64_t femu_pollers_wake_margin(FemuCtrl *n)
{
    uint64_t m = 0;

    for (uint32_t i = 0; n->pollers && i < n->params.npollers; i++) {
        m = MAX(m, (uint64_t)qatomic_read(&n->pollers[i].wake_margin_ns));
    }
    return m;
}
