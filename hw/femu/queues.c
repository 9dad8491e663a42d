/*
 * FEMU: submission and completion queues (NVMe 2.0 base spec 3.3),
 * completion posting and shadow doorbells (Doorbell Buffer Config,
 * NVMe 2.0 5.8).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "hw/pci/msix.h"
#include "femu.h"
#include "trace.h"

FemuCQ *femu_cq_new(FemuCtrl *n, uint16_t cqid, uint64_t addr, uint32_t size,
                    uint16_t vector, bool irq_enabled)
{
    FemuCQ *cq = g_new0(FemuCQ, 1);

    cq->n = n;
    cq->cqid = cqid;
    cq->dma_addr = addr;
    cq->size = size;
    cq->vector = vector;
    cq->irq_enabled = irq_enabled;
    cq->phase = 1;
    qemu_mutex_init(&cq->lock);
    n->cq[cqid] = cq;
    return cq;
}

void femu_cq_free(FemuCtrl *n, FemuCQ *cq)
{
    n->cq[cq->cqid] = NULL;
    qemu_mutex_destroy(&cq->lock);
    g_free(cq);
}

FemuSQ *femu_sq_new(FemuCtrl *n, uint16_t sqid, uint64_t addr, uint32_t size,
                    FemuCQ *cq)
{
    FemuSQ *sq = g_new0(FemuSQ, 1);

    sq->n = n;
    sq->sqid = sqid;
    sq->cqid = cq->cqid;
    sq->dma_addr = addr;
    sq->size = size;
    sq->cq = cq;
    cq->nsqs++;
    n->sq[sqid] = sq;
    if (sqid) {
        femu_dbbuf_attach(n, sq);
        femu_poller_attach(n, sq);
    }
    return sq;
}

void femu_sq_free(FemuCtrl *n, FemuSQ *sq)
{
    if (sq->sqid) {
        femu_poller_detach(n, sq);
    }
    sq->cq->nsqs--;
    n->sq[sq->sqid] = NULL;
    g_free(sq);
}

/* Called with the pollers quiesced (no SQ is served). */
void femu_queues_free_all(FemuCtrl *n)
{
    for (uint32_t i = 0; i <= n->params.queues; i++) {
        if (n->sq[i]) {
            femu_sq_free(n, n->sq[i]);
        }
    }
    for (uint32_t i = 0; i <= n->params.queues; i++) {
        if (n->cq[i]) {
            femu_cq_free(n, n->cq[i]);
        }
    }
}

/*
 * Shadow doorbells: entry 2*qid of the buffer is the SQ tail, 2*qid+1 the
 * CQ head (4-byte stride, CAP.DSTRD = 0).  Only I/O queues use them;
 * Linux updates the admin queue through MMIO only.
 */
void femu_dbbuf_attach(FemuCtrl *n, FemuSQ *sq)
{
    FemuCQ *cq = sq->cq;

    if (!n->dbbuf_dbs || !sq->sqid) {
        return;
    }
    sq->db_addr = n->dbbuf_dbs + 2 * sq->sqid * 4;
    sq->ei_addr = n->dbbuf_eis + 2 * sq->sqid * 4;
    cq->db_addr = n->dbbuf_dbs + (2 * cq->cqid + 1) * 4;
    cq->ei_addr = n->dbbuf_eis + (2 * cq->cqid + 1) * 4;
    /* new buffers: the event indexes are written again */
    sq->ei_valid = false;
    qemu_mutex_lock(&cq->lock);
    cq->ei_valid = false;
    qemu_mutex_unlock(&cq->lock);
}

/*
 * Pollers hold their lock while they touch the rings and the shadow
 * doorbells, and a controller reset (under the BQL) waits for that lock,
 * so these accesses must never need the BQL: femu_dma_read/write (prp.c)
 * touch RAM only and fail on anything else, in one step.  The host may
 * turn bus mastering off (or remap memory) at any time: a failure is
 * treated like a bus that refuses the transfer.
 */
static bool femu_read_u32(FemuCtrl *n, uint64_t addr, uint32_t *val)
{
    uint32_t v;

    if (!femu_dma_read(n, addr, &v, sizeof(v))) {
        return false;
    }
    *val = le32_to_cpu(v);
    return true;
}

static bool femu_write_u32(FemuCtrl *n, uint64_t addr, uint32_t val)
{
    uint32_t v = cpu_to_le32(val);

    return femu_dma_write(n, addr, &v, sizeof(v));
}

/* The host's latest SQ tail, shadow doorbell if configured, else MMIO. */
static uint32_t femu_sq_tail_raw(FemuSQ *sq)
{
    uint32_t tail;

    if (sq->db_addr) {
        /*
         * A tail beyond the queue is ignored, like an MMIO one; a shadow
         * doorbell that cannot be read now (bus mastering off) shows no
         * new work: the MMIO tail may be behind what was fetched.
         */
        if (femu_read_u32(sq->n, sq->db_addr, &tail) && tail < sq->size) {
            return tail;
        }
        return sq->head;
    }
    return qatomic_read(&sq->tail);
}

/*
 * The SQ tail the poller works to.  After a fetch failed (the ring is
 * not reachable: bus mastering off, memory remapped), the SQ shows no
 * work until the host writes another tail or writes PCI config space
 * (femu_pci_config_write bumps n->dma_gen and kicks the pollers):
 * otherwise a poller would retry the fetch in a busy loop.
 */
uint32_t femu_sq_tail(FemuSQ *sq)
{
    uint32_t tail = femu_sq_tail_raw(sq);

    if (sq->stalled) {
        if (tail == sq->stall_tail &&
            qatomic_read(&sq->n->dma_gen) == sq->stall_gen) {
            return sq->head;
        }
        sq->stalled = false;
    }
    return tail;
}

/*
 * A new CQ head may only consume completions the controller posted: it
 * lies between the last head and the tail, inclusive (NVMe 2.0 base
 * spec, Figure "Asynchronous Event Information - Error Status", 01h
 * Invalid Doorbell Write Value).  Called with cq->lock held, so that a
 * completion being posted is either counted or not yet visible.
 */
bool femu_cq_head_valid(FemuCQ *cq, uint32_t head)
{
    uint32_t old = cq->head;

    return head < cq->size &&
           (head + cq->size - old) % cq->size <=
           (cq->tail + cq->size - old) % cq->size;
}

/*
 * A new MMIO SQ tail may not move back into entries the controller has
 * not fetched, nor onto its head while entries are pending: either
 * would make the queue more than full (same figure, 01h).  head is the
 * controller's fetch position (a poller moves it meanwhile); what the
 * host knows of it came from a CQE written after head moved, so the head
 * read here is never behind the host's and a tail that is valid for the
 * host is never refused.  Queues with shadow doorbells are not checked:
 * their tail lives in the shadow buffer and the MMIO value may lag
 * behind it.
 */
bool femu_sq_tail_valid(FemuSQ *sq, uint32_t tail)
{
    uint32_t head = qatomic_read(&sq->head);
    uint32_t old = qatomic_read(&sq->tail);

    if (tail >= sq->size) {
        return false;
    }
    if (sq->db_addr || old == head) {
        return true;
    }
    return (tail + sq->size - head) % sq->size >=
           (old + sq->size - head) % sq->size;
}

/* The latest CQ head; a shadow value that is not valid is ignored.
 * Called with cq->lock held. */
static uint32_t femu_cq_head(FemuCQ *cq)
{
    uint32_t head;

    if (cq->db_addr && femu_read_u32(cq->n, cq->db_addr, &head) &&
        femu_cq_head_valid(cq, head)) {
        qatomic_set(&cq->head, head);
    }
    return qatomic_read(&cq->head);
}

/*
 * Before a poller sleeps it asks the host to ring the MMIO doorbell for
 * anything past what it has seen (event index, NVMe 2.0 5.8).  The
 * event indexes are written only when they change: a poller sets them
 * before every sleep, and at QD1 it sleeps after every command.  Only
 * the device writes them; a guest that overwrites one rings fewer MMIO
 * doorbells and waits for itself.
 *
 * The SQ's index is the entry the poller fetches next: it is set when
 * the poller found no work, so the host rings for the first entry past
 * what was fetched, and the poller re-reads the tail after it (a tail
 * written meanwhile is seen then).  So no doorbell read here.
 */
void femu_sq_set_eventidx(FemuSQ *sq)
{
    uint32_t head = sq->head;

    if (!sq->ei_addr) {
        return;
    }
    if (sq->ei_valid && sq->ei_last == head) {
        return;
    }
    sq->ei_valid = femu_write_u32(sq->n, sq->ei_addr, head);
    sq->ei_last = head;
}

/*
 * Several pollers publish the event index of a CQ that their SQs share.
 * The host moves the shadow head, then reads the index: a poller that
 * wrote a head read before that move (the host had moved on since) would
 * leave an index the host's next head passes without ringing, and the
 * pollers parked on that CQ asleep.  So the index is written under
 * cq->lock (the pollers' writes do not overtake each other) and written
 * again until the shadow head read after it (full barrier, pairs with
 * the host's between its shadow write and its event index read) is the
 * one published: the caller's re-check then sees any later head.
 */
void femu_cq_set_eventidx(FemuCQ *cq)
{
    uint32_t head, seen;

    if (!cq->ei_addr) {
        return;
    }
    qemu_mutex_lock(&cq->lock);
    seen = femu_cq_head(cq);
    do {
        head = seen;
        if (!cq->ei_valid || cq->ei_last != head) {
            cq->ei_valid = femu_write_u32(cq->n, cq->ei_addr, head);
            cq->ei_last = head;
        }
        smp_mb();
        seen = femu_cq_head(cq);
    } while (seen != head);
    qemu_mutex_unlock(&cq->lock);
}

/*
 * Fetch the entry at sq->head if there is one; advances head.  The tail
 * is read again only once head has reached the one read last: a burst
 * of commands costs one doorbell read, not one per command (a shadow
 * doorbell read is a translation of guest memory).
 */
bool femu_sq_fetch(FemuSQ *sq, NvmeCmd *cmd)
{
    /* read before the attempt: a config write after it retries */
    uint32_t gen = qatomic_read(&sq->n->dma_gen);
    uint32_t tail = sq->fetch_tail;

    if (sq->head == tail) {
        tail = femu_sq_tail(sq);
        if (sq->head == tail) {
            return false;
        }
        sq->fetch_tail = tail;
    }
    if (!femu_dma_read(sq->n, sq->dma_addr + ((uint64_t)sq->head << FEMU_SQES),
                       cmd, sizeof(*cmd))) {
        /* the ring was RAM at creation: show no work until that may
         * have changed (femu_sq_tail); the tail is read again then */
        sq->stalled = true;
        sq->stall_tail = tail;
        sq->stall_gen = gen;
        sq->fetch_tail = sq->head;
        return false;
    }
    /* atomic: the MMIO doorbell checks read it (femu_sq_tail_valid) */
    qatomic_set(&sq->head, (sq->head + 1) % sq->size);
    return true;
}

/*
 * Room for one more CQE (cq->lock held).  The head last seen is tried
 * first: the host only moves the head towards the tail, so room there is
 * room now, and the shadow doorbell (a read of guest memory) is read
 * only when the CQ looks full; at QD32 that spares a read per CQE.
 */
static bool femu_cq_space(FemuCQ *cq)
{
    uint32_t next = (cq->tail + 1) % cq->size;

    return next != qatomic_read(&cq->head) || next != femu_cq_head(cq);
}

/* A completion can be posted now (the host's head, shadow or MMIO). */
bool femu_cq_has_space(FemuCQ *cq)
{
    bool space;

    qemu_mutex_lock(&cq->lock);
    space = femu_cq_space(cq);
    qemu_mutex_unlock(&cq->lock);
    return space;
}

/*
 * Interrupt Coalescing (Set Features 08h, NVMe 2.0 5.27.1.9) for cq's
 * vector: the number of CQEs that interrupt at once (Aggregation
 * Threshold + 1) and the longest an interrupt waits (Aggregation Time,
 * 100 us units), or false when the CQEs of cq interrupt one by one.  It
 * applies to I/O CQs with MSI-X interrupts whose vector has Coalescing
 * Disable (FID 09h) cleared, never to the Admin CQ; THR or TIME 0 turns
 * it off.  The host changes the features meanwhile (the main loop):
 * each post reads them again.
 */
static bool femu_cq_coalescing(FemuCQ *cq, uint32_t *count, int64_t *time_ns)
{
    FemuCtrl *n = cq->n;
    uint32_t ic = qatomic_read(&n->feat.int_coalescing);
    uint32_t thr = ic & 0xff, time = (ic >> 8) & 0xff;

    if (!cq->cqid || !thr || !time || !cq->irq_enabled ||
        cq->vector > FEMU_MAX_IOQPAIRS ||
        qatomic_read(&n->feat.ivc_cd[cq->vector]) ||
        !msix_enabled(&n->parent_obj)) {
        return false;
    }
    *count = thr + 1;
    *time_ns = (int64_t)time * 100 * SCALE_US;
    return true;
}

/*
 * Post one completion queue entry (NVMe 2.0 4.2.1).  Returns false when
 * the CQ is full; the caller keeps the completion and retries.  With
 * coal_due (a poller's completions), Interrupt Coalescing may hold the
 * interrupt back: *coal_due is then when it is due at the latest (the
 * poller calls femu_cq_coal_expire by then), else INT64_MAX.  A CQ the
 * entry fills interrupts at once: the host cannot get more from it.
 */
bool femu_cq_post_coalesced(FemuCQ *cq, FemuSQ *sq, uint16_t cid,
                            uint16_t status, uint32_t result,
                            int64_t *coal_due)
{
    FemuCtrl *n = cq->n;
    NvmeCqe cqe;
    uint64_t addr;

    if (coal_due) {
        *coal_due = INT64_MAX;
    }
    qemu_mutex_lock(&cq->lock);
    if (!femu_cq_space(cq)) {
        qemu_mutex_unlock(&cq->lock);
        return false;
    }
    cqe.result = cpu_to_le32(result);
    cqe.dw1 = 0;
    cqe.sq_head = cpu_to_le16(sq->head);
    cqe.sq_id = cpu_to_le16(sq->sqid);
    cqe.cid = cid;              /* already little-endian, from the SQE */
    cqe.status = cpu_to_le16((status << 1) | cq->phase);
    addr = cq->dma_addr + ((uint64_t)cq->tail << FEMU_CQES);
    /* the host polls the phase tag in the last dword: written last */
    if (!femu_dma_write_ordered(n, addr, &cqe, sizeof(cqe))) {
        /* no DMA to the ring now (see femu_read_u32): the entry is lost,
         * as on a bus that refuses the write; a reset recovers */
        qemu_mutex_unlock(&cq->lock);
        return true;
    }
    if (status) {
        /* the error log entry records this CQE's phase tag (5.16.1.2) */
        femu_error_set_phase(n, sq->sqid, cid, cq->phase);
    }
    cq->tail++;
    if (cq->tail == cq->size) {
        cq->tail = 0;
        cq->phase ^= 1;
    }
    qatomic_set(&cq->tail, cq->tail);
    if (coal_due) {
        uint32_t count;
        int64_t time_ns;

        if (femu_cq_coalescing(cq, &count, &time_ns) &&
            (cq->tail + 1) % cq->size != qatomic_read(&cq->head)) {
            if (!cq->coal_count++) {
                cq->coal_first_ns = get_clock();
            }
            if (cq->coal_count < count) {
                *coal_due = cq->coal_first_ns + time_ns;
                qemu_mutex_unlock(&cq->lock);
                return true;
            }
        }
    }
    /* this interrupt also signals the CQEs held back before it */
    cq->coal_count = 0;
    qemu_mutex_unlock(&cq->lock);
    femu_irq_schedule(cq);
    return true;
}

bool femu_cq_post(FemuCQ *cq, FemuSQ *sq, uint16_t cid, uint16_t status,
                  uint32_t result)
{
    return femu_cq_post_coalesced(cq, sq, cid, status, result, NULL);
}

/*
 * Send the interrupt Interrupt Coalescing holds back on cq if its time
 * has come by now (or coalescing was turned off meanwhile); true if it
 * was scheduled.  Otherwise *coal_due is lowered to when it is due.
 */
bool femu_cq_coal_expire(FemuCQ *cq, int64_t now, int64_t *coal_due)
{
    uint32_t count;
    int64_t time_ns, due;

    qemu_mutex_lock(&cq->lock);
    if (!cq->coal_count) {
        qemu_mutex_unlock(&cq->lock);
        return false;
    }
    if (femu_cq_coalescing(cq, &count, &time_ns) && cq->coal_count < count) {
        due = cq->coal_first_ns + time_ns;
        if (due > now) {
            *coal_due = MIN(*coal_due, due);
            qemu_mutex_unlock(&cq->lock);
            return false;
        }
    }
    cq->coal_count = 0;
    qemu_mutex_unlock(&cq->lock);
    femu_irq_schedule(cq);
    return true;
}
