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
    for (uint32_t i = 0; i <= n->queues; i++) {
        if (n->sq[i]) {
            femu_sq_free(n, n->sq[i]);
        }
    }
    for (uint32_t i = 0; i <= n->queues; i++) {
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
}

/*
 * Pollers hold their lock while they touch the rings and the shadow
 * doorbells.  Those were RAM when the host set them up, but the host can
 * turn bus mastering off (or remap) later: the access would then go to
 * MMIO (unassigned memory), which takes the BQL -- and a controller reset
 * holds the BQL while it waits for the pollers' locks: a deadlock
 * (found by tests/qtest's random-chaos group).  So check for RAM before
 * every such access; what is not RAM now is treated like a failed DMA.
 */
static bool femu_read_u32(FemuCtrl *n, uint64_t addr, uint32_t *val)
{
    uint32_t v;

    if (!femu_dma_is_ram(n, addr, sizeof(v), false) ||
        pci_dma_read(PCI_DEVICE(n), addr, &v, sizeof(v)) != MEMTX_OK) {
        return false;
    }
    *val = le32_to_cpu(v);
    return true;
}

static void femu_write_u32(FemuCtrl *n, uint64_t addr, uint32_t val)
{
    uint32_t v = cpu_to_le32(val);

    if (femu_dma_is_ram(n, addr, sizeof(v), true)) {
        pci_dma_write(PCI_DEVICE(n), addr, &v, sizeof(v));
    }
}

/* The host's latest SQ tail: shadow doorbell if configured, else MMIO. */
uint32_t femu_sq_tail(FemuSQ *sq)
{
    uint32_t tail;

    if (sq->db_addr && femu_read_u32(sq->n, sq->db_addr, &tail)) {
        /* a tail beyond the queue is ignored, like an MMIO one */
        if (tail < sq->size) {
            return tail;
        }
        return sq->head;
    }
    return qatomic_read(&sq->tail);
}

static uint32_t femu_cq_head(FemuCQ *cq)
{
    uint32_t head;

    if (cq->db_addr && femu_read_u32(cq->n, cq->db_addr, &head) &&
        head < cq->size) {
        qatomic_set(&cq->head, head);
    }
    return qatomic_read(&cq->head);
}

/*
 * Before a poller sleeps it asks the host to ring the MMIO doorbell for
 * anything past what it has seen (event index, NVMe 2.0 5.8).
 */
void femu_sq_set_eventidx(FemuSQ *sq)
{
    if (sq->ei_addr) {
        femu_write_u32(sq->n, sq->ei_addr, femu_sq_tail(sq));
    }
}

void femu_cq_set_eventidx(FemuCQ *cq)
{
    if (cq->ei_addr) {
        femu_write_u32(cq->n, cq->ei_addr, femu_cq_head(cq));
    }
}

/* Fetch the entry at sq->head if there is one; advances head. */
bool femu_sq_fetch(FemuSQ *sq, NvmeCmd *cmd)
{
    uint64_t addr;

    if (sq->head == femu_sq_tail(sq)) {
        return false;
    }
    addr = sq->dma_addr + ((uint64_t)sq->head << FEMU_SQES);
    if (!femu_dma_is_ram(sq->n, addr, sizeof(*cmd), false) ||
        pci_dma_read(PCI_DEVICE(sq->n), addr, cmd, sizeof(*cmd)) !=
        MEMTX_OK) {
        /* the ring was RAM at creation (see femu_read_u32); treat a
         * failure as an empty SQ */
        return false;
    }
    sq->head = (sq->head + 1) % sq->size;
    return true;
}

/*
 * Post one completion queue entry (NVMe 2.0 4.2.1).  Returns false when
 * the CQ is full; the caller keeps the completion and retries.
 */
bool femu_cq_post(FemuCQ *cq, FemuSQ *sq, uint16_t cid, uint16_t status,
                  uint32_t result)
{
    FemuCtrl *n = cq->n;
    NvmeCqe cqe;
    uint64_t addr;

    qemu_mutex_lock(&cq->lock);
    if ((cq->tail + 1) % cq->size == femu_cq_head(cq)) {
        qatomic_set(&cq->full, true);
        qemu_mutex_unlock(&cq->lock);
        return false;
    }
    qatomic_set(&cq->full, false);
    cqe.result = cpu_to_le32(result);
    cqe.dw1 = 0;
    cqe.sq_head = cpu_to_le16(sq->head);
    cqe.sq_id = cpu_to_le16(sq->sqid);
    cqe.cid = cid;              /* already little-endian, from the SQE */
    cqe.status = cpu_to_le16((status << 1) | cq->phase);
    addr = cq->dma_addr + ((uint64_t)cq->tail << FEMU_CQES);
    if (!femu_dma_is_ram(n, addr, sizeof(cqe), true)) {
        /* no DMA to the ring now (see femu_read_u32): the entry is lost,
         * as on a bus that refuses the write; a reset recovers */
        qemu_mutex_unlock(&cq->lock);
        return true;
    }
    /*
     * The host polls the phase tag in the last dword: write the first
     * three dwords, then the one with the phase tag.
     */
    pci_dma_write(PCI_DEVICE(n), addr, &cqe, 12);
    smp_wmb();
    pci_dma_write(PCI_DEVICE(n), addr + 12, (uint8_t *)&cqe + 12, 4);
    cq->tail++;
    if (cq->tail == cq->size) {
        cq->tail = 0;
        cq->phase ^= 1;
    }
    qatomic_set(&cq->tail, cq->tail);
    qemu_mutex_unlock(&cq->lock);
    femu_irq_schedule(cq);
    return true;
}
