/*
 * FEMU: controller registers (NVMe 2.0 base spec, 3.1.4), doorbells,
 * enable / disable / shutdown, and interrupt delivery.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "hw/pci/msix.h"
#include "hw/pci/msi.h"
#include "femu.h"
#include "trace.h"

/* NVMe 1.4: Linux 6.x needs nothing newer for what FEMU implements. */
#define FEMU_NVME_VERSION 0x00010400

/*
 * n->bar holds the registers as the guest reads them: little-endian,
 * whatever the host.  CSTS is also read by other threads, so it is
 * loaded and stored in one access.
 */
static uint32_t femu_csts(FemuCtrl *n)
{
    return le32_to_cpu(qatomic_read(&n->bar.csts));
}

static void femu_set_csts(FemuCtrl *n, uint32_t csts)
{
    qatomic_set(&n->bar.csts, cpu_to_le32(csts));
}

/*
 * Interrupts.  A CQE posted in the main loop (admin queue) signals at
 * once.  Pollers post CQEs without the BQL: they mark the CQ and, after
 * they have dropped their own lock, call femu_irq_flush(), which takes the
 * BQL and sends the MSI-X messages (or recomputes the pin level).  Doing
 * it in the poller, not in a bottom half, saves a main-loop wake-up per
 * completion.  Pollers never hold a FEMU lock while they wait for the
 * BQL, and whoever joins them drops the BQL first (femu_pollers_stop).
 */
void femu_irq_schedule(FemuCQ *cq)
{
    qatomic_set(&cq->irq_pending, true);
    if (bql_locked()) {
        femu_irq_send(cq->n);
    } else {
        qatomic_set(&cq->n->irq_pending, true);
    }
}

/*
 * The guest may aim an MSI-X table entry at this controller's own BAR:
 * each interrupt is then a write to its registers (CC.EN = 0: a reset
 * that frees the queues) from inside the loop that sends them.  From
 * the main loop (MMIO handlers, the admin bottom half)
 * QEMU's memory core refuses such a re-entrant access, since the
 * device's re-entrancy guard is engaged there; a poller sends its
 * interrupts from its own thread, so it engages the same guard.  The
 * write is then refused the same way whichever queue completed.
 */
bool femu_irq_flush(FemuCtrl *n)
{
    MemReentrancyGuard *guard = &n->parent_obj.qdev.mem_reentrancy_guard;
    bool engaged;

    if (!qatomic_xchg(&n->irq_pending, false)) {
        return false;
    }
    bql_lock();
    engaged = guard->engaged_in_io;
    guard->engaged_in_io = true;
    femu_irq_send(n);
    guard->engaged_in_io = engaged;
    bql_unlock();
    return true;
}

static bool femu_cq_has_unread(FemuCQ *cq)
{
    return qatomic_read(&cq->head) != qatomic_read(&cq->tail);
}

void femu_irq_update_pin(FemuCtrl *n)
{
    PCIDevice *pdev = &n->parent_obj;
    bool level = false;

    if (msix_enabled(pdev)) {
        return;
    }
    for (uint32_t i = 0; i <= n->params.queues; i++) {
        FemuCQ *cq = n->cq[i];

        /* INTMS masks vector 0, the only one in pin mode (3.1.4.3) */
        if (cq && cq->irq_enabled && femu_cq_has_unread(cq) &&
            !(n->intms & 1)) {
            level = true;
            break;
        }
    }
    if (level != n->irq_level) {
        n->irq_level = level;
        trace_femu_irq_pin(level);
        pci_set_irq(pdev, level);
    }
}

/* BQL held: signal every CQ marked irq_pending, then the pin. */
void femu_irq_send(FemuCtrl *n)
{
    PCIDevice *pdev = &n->parent_obj;   /* no checked cast: per interrupt */

    if (!n->cq) {
        return;
    }
    for (uint32_t i = 0; i <= n->params.queues; i++) {
        FemuCQ *cq = n->cq[i];

        /* a read first: a locked exchange on every CQ's line costs more
         * than the sends it looks for (one or two CQs marked a flush) */
        if (!cq || !qatomic_read(&cq->irq_pending) ||
            !qatomic_xchg(&cq->irq_pending, false)) {
            continue;
        }
        if (cq->irq_enabled && msix_enabled(pdev)) {
            trace_femu_irq_msix(cq->vector);
            msix_notify(pdev, cq->vector);
        }
    }
    femu_irq_update_pin(n);
}

/* Controller reset (CC.EN 1 -> 0, PCI reset, unrealize). */
void femu_ctrl_reset(FemuCtrl *n)
{
    /* a cut power comes back */
    femu_power_restore(n);
    if (!n->sq) {
        return;
    }
    /* a save the guest asked for ends first; its command is dropped with
     * the queues */
    femu_state_save_wait(n);
    femu_pollers_quiesce(n);
    femu_queues_free_all(n);
    n->dbbuf_dbs = 0;
    n->dbbuf_eis = 0;
    femu_aer_reset(n);
    n->intms = 0;
    femu_fdp_ctrl_reset(n);
    femu_features_reset(n);
    if (n->irq_level) {
        n->irq_level = false;
        pci_set_irq(PCI_DEVICE(n), 0);
    }
    stl_le_p(&n->bar.cc, 0);
    femu_set_csts(n, 0);
}

void femu_ctrl_fatal(FemuCtrl *n)
{
    femu_set_csts(n, femu_csts(n) | NVME_CSTS_FAILED);
}

static void femu_fail(FemuCtrl *n, const char *why)
{
    FEMU_GUEST_ERR(femu_enable_fail, why);
    femu_set_csts(n, femu_csts(n) | NVME_CSTS_FAILED);
}

static void femu_enable(FemuCtrl *n)
{
    uint32_t cc = ldl_le_p(&n->bar.cc);
    uint32_t aqa = ldl_le_p(&n->bar.aqa);
    uint64_t asq = ldq_le_p(&n->bar.asq);
    uint64_t acq = ldq_le_p(&n->bar.acq);
    uint32_t asqs = NVME_AQA_ASQS(aqa) + 1;
    uint32_t acqs = NVME_AQA_ACQS(aqa) + 1;
    FemuCQ *cq;

    trace_femu_enable(cc, aqa, asq, acq);
    /* NVMe 2.0 3.5.1: the checks a controller makes before CSTS.RDY */
    if (NVME_CC_MPS(cc) != 0) {
        femu_fail(n, "CC.MPS outside CAP.MPSMIN..MPSMAX");
        return;
    }
    if (NVME_CC_CSS(cc) != NVME_CC_CSS_NVM &&
        NVME_CC_CSS(cc) != NVME_CC_CSS_ADMIN_ONLY &&
        !(NVME_CC_CSS(cc) == NVME_CC_CSS_ALL &&
          (NVME_CAP_CSS(ldq_le_p(&n->bar.cap)) & NVME_CAP_CSS_IOCSS))) {
        femu_fail(n, "CC.CSS not supported");
        return;
    }
    if (NVME_CC_AMS(cc) != 0) {
        femu_fail(n, "CC.AMS not supported");
        return;
    }
    if (!asq || !acq || (asq & (FEMU_PAGE_SIZE - 1)) ||
        (acq & (FEMU_PAGE_SIZE - 1))) {
        femu_fail(n, "ASQ/ACQ zero or not page aligned");
        return;
    }
    if (asqs < 2 || acqs < 2) {
        femu_fail(n, "AQA admin queue sizes below 2");
        return;
    }
    if (!femu_dma_is_ram(n, asq, (uint64_t)asqs << FEMU_SQES, false) ||
        !femu_dma_is_ram(n, acq, (uint64_t)acqs << FEMU_CQES, true)) {
        femu_fail(n, "admin queues outside guest RAM");
        return;
    }
    cq = femu_cq_new(n, 0, acq, acqs, 0, true);
    femu_sq_new(n, 0, asq, asqs, cq);
    femu_set_csts(n, NVME_CSTS_READY);
}

static void femu_write_cc(FemuCtrl *n, uint32_t val)
{
    uint32_t old = ldl_le_p(&n->bar.cc);

    if (NVME_CC_EN(val) && !NVME_CC_EN(old)) {
        stl_le_p(&n->bar.cc, val);
        femu_enable(n);
    } else if (!NVME_CC_EN(val) && NVME_CC_EN(old)) {
        trace_femu_disable();
        femu_ctrl_reset(n);
        stl_le_p(&n->bar.cc, val);
    } else {
        stl_le_p(&n->bar.cc, val);
    }
    if (NVME_CC_SHN(val) && !NVME_CC_SHN(old)) {
        /*
         * Normal or abrupt shutdown (3.6.2): nothing volatile to flush
         * (the store is host memory), so report it complete at once.
         */
        trace_femu_shutdown();
        femu_set_csts(n, (femu_csts(n) &
                          ~(CSTS_SHST_MASK << CSTS_SHST_SHIFT)) |
                      NVME_CSTS_SHST_COMPLETE);
    } else if (!NVME_CC_SHN(val) && NVME_CC_SHN(old)) {
        femu_set_csts(n, femu_csts(n) &
                      ~(CSTS_SHST_MASK << CSTS_SHST_SHIFT));
    }
}

/*
 * A doorbell write the controller cannot accept is ignored and reported
 * as an Error asynchronous event (NVMe 2.0 5.2, Figure "Asynchronous
 * Event Information - Error Status"), info:
 * - NVME_AER_INFO_ERR_INVALID_DB_REGISTER (00h) "Write to Invalid
 *   Doorbell Register": a queue that does not exist (beyond the queues
 *   offered, or not created);
 * - NVME_AER_INFO_ERR_INVALID_DB_VALUE (01h) "Invalid Doorbell Write
 *   Value": a head or tail at or beyond the queue size, a CQ head that
 *   would consume completions not posted yet (femu_cq_head_valid), an SQ
 *   tail that would make the queue more than full (femu_sq_tail_valid).
 * femu_aer_event queues it until the host has an Asynchronous Event
 * Request outstanding and has read the error log of an earlier one.
 */
static void femu_doorbell_invalid(FemuCtrl *n, uint8_t info, uint32_t qid,
                                  bool is_cq, uint32_t val, const char *why)
{
    FEMU_GUEST_ERR(femu_doorbell_bad, qid, is_cq, val, why);
    femu_aer_event(n, NVME_AER_TYPE_ERROR, info, NVME_LOG_ERROR_INFO);
}

static void femu_doorbell(FemuCtrl *n, hwaddr off, uint32_t val)
{
    uint32_t qid = (off - 0x1000) >> 3;
    bool is_cq = (off >> 2) & 1;
    bool valid;

    if (!NVME_CSTS_RDY(femu_csts(n))) {
        /* no admin queue to report on: a disabled controller ignores it */
        FEMU_GUEST_ERR(femu_doorbell_bad, qid, is_cq, val,
                       "controller not ready");
        return;
    }
    if (qid > n->params.queues) {
        femu_doorbell_invalid(n, NVME_AER_INFO_ERR_INVALID_DB_REGISTER,
                              qid, is_cq, val, "no such queue");
        return;
    }
    if (is_cq ? !n->cq[qid] : !n->sq[qid]) {
        femu_doorbell_invalid(n, NVME_AER_INFO_ERR_INVALID_DB_REGISTER,
                              qid, is_cq, val,
                              is_cq ? "CQ not created" : "SQ not created");
        return;
    }
    if (val >= (is_cq ? n->cq[qid]->size : n->sq[qid]->size)) {
        femu_doorbell_invalid(n, NVME_AER_INFO_ERR_INVALID_DB_VALUE,
                              qid, is_cq, val,
                              is_cq ? "head beyond size" : "tail beyond size");
        return;
    }
    if (qid) {
        if (is_cq) {
            n->mmio_doorbells.cq++;
        } else {
            n->mmio_doorbells.sq++;
        }
    }
    if (is_cq) {
        FemuCQ *cq = n->cq[qid];

        /* under cq->lock: a CQE being posted is counted or not visible */
        qemu_mutex_lock(&cq->lock);
        valid = femu_cq_head_valid(cq, val);
        if (valid) {
            qatomic_set(&cq->head, val);
        }
        qemu_mutex_unlock(&cq->lock);
        if (!valid) {
            femu_doorbell_invalid(n, NVME_AER_INFO_ERR_INVALID_DB_VALUE,
                                  qid, true, val,
                                  "head past the posted entries");
            return;
        }
        /*
         * wake the pollers that parked completions for this CQ; the full
         * barrier pairs with the one before a poller sleeps (it then
         * sees the new head) and with the one that sets its bit
         */
        smp_mb();
        femu_pollers_kick_parked(n, cq);
        femu_irq_update_pin(n);
    } else {
        FemuSQ *sq = n->sq[qid];

        if (!femu_sq_tail_valid(sq, val)) {
            femu_doorbell_invalid(n, NVME_AER_INFO_ERR_INVALID_DB_VALUE,
                                  qid, false, val,
                                  "tail into unfetched entries");
            return;
        }
        qatomic_set(&sq->tail, val);
        if (qid == 0) {
            qemu_bh_schedule(n->admin_bh);
        } else {
            /* pairs with the barrier before the poller sleeps */
            smp_mb();
            femu_poller_doorbell(n, sq);
        }
    }
}

/*
 * PCI config space writes (BQL held).  Bus mastering turned back on, or
 * a BAR moved off a ring, may make a queue reachable again that a fetch
 * gave up on (femu_sq_fetch marks it stalled so that its poller sleeps
 * instead of retrying in a loop): bump the generation the stall was
 * recorded in and wake the pollers and the admin queue to retry.
 */
void femu_pci_config_write(PCIDevice *pdev, uint32_t addr, uint32_t val,
                           int len)
{
    FemuCtrl *n = FEMU(pdev);

    pci_default_write_config(pdev, addr, val, len);
    /* a full barrier: pairs with the poller's check before it sleeps */
    qatomic_inc(&n->dma_gen);
    femu_pollers_kick_all(n);
    if (n->admin_bh) {
        qemu_bh_schedule(n->admin_bh);
    }
}

static uint64_t femu_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    FemuCtrl *n = opaque;
    uint64_t val = 0;

    if (addr & (size - 1)) {
        FEMU_GUEST_ERR(femu_mmio_bad, addr, size, "misaligned read");
        return 0;
    }
    if (addr + size <= offsetof(NvmeBar, cmbloc)) {
        stl_le_p(&n->bar.intms, n->intms);
        stl_le_p(&n->bar.intmc, n->intms);
        val = ldn_le_p((uint8_t *)&n->bar + addr, size);
    }
    /* doorbells are write-only: reads return 0 (3.1.4.21) */
    trace_femu_mmio_read(addr, val, size);
    return val;
}

static void femu_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    FemuCtrl *n = opaque;

    trace_femu_mmio_write(addr, val, size);
    if (addr & (size - 1)) {
        FEMU_GUEST_ERR(femu_mmio_bad, addr, size, "misaligned write");
        return;
    }
    if (addr >= 0x1000) {
        if (size != 4) {
            FEMU_GUEST_ERR(femu_mmio_bad, addr, size,
                           "doorbell write not 32-bit");
            return;
        }
        femu_doorbell(n, addr, val);
        return;
    }
    switch (addr) {
    case NVME_REG_INTMS:
        n->intms |= val;
        femu_irq_update_pin(n);
        break;
    case NVME_REG_INTMC:
        n->intms &= ~val;
        femu_irq_update_pin(n);
        break;
    case NVME_REG_CC:
        femu_write_cc(n, val);
        break;
    case NVME_REG_AQA:
        stl_le_p(&n->bar.aqa, val & 0x0fff0fff);
        break;
    case NVME_REG_ASQ:
    case NVME_REG_ASQ + 4:
    case NVME_REG_ACQ:
    case NVME_REG_ACQ + 4:
        /* the whole register (8 bytes at its start) or either half */
        stn_le_p((uint8_t *)&n->bar + addr, size, val);
        break;
    case NVME_REG_NSSR:
        /* CAP.NSSRS = 0: subsystem reset not supported, write ignored */
        break;
    default:
        FEMU_GUEST_ERR(femu_mmio_bad, addr, size,
                       "read-only or reserved register");
        break;
    }
}

static const MemoryRegionOps femu_mmio_ops = {
    .read = femu_mmio_read,
    .write = femu_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .impl = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
};

void femu_regs_init(FemuCtrl *n)
{
    uint64_t cap = 0;

    memory_region_init_io(&n->iomem, OBJECT(n), &femu_mmio_ops, n,
                          "femu-bar0", n->reg_size);
    memset(&n->bar, 0, sizeof(n->bar));
    NVME_CAP_SET_MQES(cap, n->params.mqes);
    NVME_CAP_SET_CQR(cap, 1);       /* queues must be contiguous */
    NVME_CAP_SET_TO(cap, 0xf);      /* 7.5 s ready timeout */
    NVME_CAP_SET_DSTRD(cap, 0);
    /* a namespace of another command set than NVM (zoned) needs
     * CC.CSS = 110b (I/O command sets) */
    NVME_CAP_SET_CSS(cap, NVME_CAP_CSS_NCSS |
                     (femu_zns_ns(n) ? NVME_CAP_CSS_IOCSS : 0));
    NVME_CAP_SET_MPSMIN(cap, 0);    /* 4 KiB pages only */
    NVME_CAP_SET_MPSMAX(cap, 0);
    stq_le_p(&n->bar.cap, cap);
    stl_le_p(&n->bar.vs, FEMU_NVME_VERSION);
}
