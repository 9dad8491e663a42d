/*
 * FEMU: the NVM I/O command set (NVMe NVM Command Set spec 1.0, 3.2),
 * executed by the poller threads.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "qemu/bitmap.h"
#include "femu.h"
#include "trace.h"

uint32_t femu_io_cmd_effects(FemuCtrl *n, const FemuModeOps *m, uint8_t opc)
{
    const uint32_t lbcc = NVME_CMD_EFF_CSUPP | NVME_CMD_EFF_LBCC;

    switch (opc) {
    case NVME_CMD_FLUSH:
        return NVME_CMD_EFF_CSUPP;
    case NVME_CMD_READ:
        return m->read ? NVME_CMD_EFF_CSUPP : 0;
    case NVME_CMD_WRITE:
        return m->write ? lbcc : 0;
    case NVME_CMD_WRITE_ZEROES:
        return m->write_zeroes ? lbcc : 0;
    case NVME_CMD_DSM:
        return lbcc;
    case NVME_CMD_IO_MGMT_RECV:
        return femu_fdp_ctratt(n) ? NVME_CMD_EFF_CSUPP : 0;
    case NVME_CMD_ZONE_MGMT_RECV:
        return m->zone_mgmt_recv ? NVME_CMD_EFF_CSUPP : 0;
    case NVME_CMD_ZONE_MGMT_SEND:
        return m->zone_mgmt_send ? lbcc : 0;
    case NVME_CMD_ZONE_APPEND:
        return m->zone_append ? lbcc : 0;
    case NVME_CMD_IO_MGMT_SEND:
        return femu_fdp_ctratt(n) ?
               NVME_CMD_EFF_CSUPP | NVME_CMD_EFF_LBCC : 0;
    /* the optional commands of ONCS: a mode's entry and the oncs
     * property's bit */
    case NVME_CMD_COMPARE:
        return m->compare && (n->params.oncs & NVME_ONCS_COMPARE) ?
               NVME_CMD_EFF_CSUPP : 0;
    case NVME_CMD_VERIFY:
        return m->verify && (n->params.oncs & NVME_ONCS_VERIFY) ?
               NVME_CMD_EFF_CSUPP : 0;
    case NVME_CMD_WRITE_UNCOR:
        return m->write_uncor && (n->params.oncs & NVME_ONCS_WRITE_UNCORR) ?
               lbcc : 0;
    case NVME_CMD_COPY:
        return m->copy && (n->params.oncs & NVME_ONCS_COPY) ? lbcc : 0;
    default:
        return 0;
    }
}

static uint16_t femu_check_range(FemuNamespace *ns, uint64_t slba,
                                 uint64_t nlb)
{
    if (slba >= ns->blocks || nlb > ns->blocks - slba) {
        FEMU_GUEST_ERR(femu_io_bad_range, slba, nlb, ns->blocks);
        return NVME_LBA_RANGE | NVME_DNR;
    }
    return NVME_SUCCESS;
}

/* A command that moves data: its range, then its length against MDTS
 * (Identify Controller MDTS) */
static uint16_t femu_check_xfer(FemuCtrl *n, FemuNamespace *ns,
                                uint64_t slba, uint32_t nlb)
{
    uint64_t len = (uint64_t)nlb << n->lba_shift;
    uint16_t status = femu_check_range(ns, slba, nlb);

    if (status) {
        return status;
    }
    if (len > n->max_xfer) {
        FEMU_GUEST_ERR(femu_io_too_long, len, n->max_xfer);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    return NVME_SUCCESS;
}

static void femu_io_trace(FemuCtrl *n, FemuReq *req, uint64_t slba,
                          uint32_t nlb)
{
    if (qatomic_read(&n->io_log)) {
        trace_femu_io_log(req->sq->sqid, le16_to_cpu(req->cmd.cid),
                          req->cmd.opcode, slba, nlb, req->arrival_ns,
                          req->due_ns);
    }
}

/*
 * Write Uncorrectable state (ns->uncor): one bit per logical block, made
 * by the first Write Uncorrectable of the namespace.  Pollers set and
 * clear bits atomically; a read racing with a write of the same blocks
 * sees either state, as on a drive.
 */
static unsigned long *femu_uncor_map(FemuNamespace *ns)
{
    unsigned long *m = qatomic_load_acquire(&ns->uncor);
    unsigned long *fresh;

    if (m) {
        return m;
    }
    fresh = bitmap_new(ns->blocks);
    m = qatomic_cmpxchg(&ns->uncor, NULL, fresh);
    if (m) {
        g_free(fresh);          /* another poller made it first */
        return m;
    }
    return fresh;
}

/* The first Write Uncorrectable block of [slba, slba + nlb) into *lba. */
static bool femu_uncor_find(FemuNamespace *ns, uint64_t slba, uint64_t nlb,
                            uint64_t *lba)
{
    unsigned long *m = qatomic_load_acquire(&ns->uncor);
    unsigned long b;

    if (!m) {
        return false;
    }
    b = find_next_bit(m, slba + nlb, slba);
    if (b >= slba + nlb) {
        return false;
    }
    *lba = b;
    return true;
}

/* [slba, slba + nlb) was written, zeroed or deallocated: readable again */
static void femu_uncor_clear(FemuNamespace *ns, uint64_t slba, uint64_t nlb)
{
    unsigned long *m = qatomic_load_acquire(&ns->uncor);

    if (m && femu_uncor_find(ns, slba, nlb, &(uint64_t){0})) {
        bitmap_test_and_clear_atomic(m, slba, nlb);
    }
}

/*
 * Injected media errors (err_read_unc_ppm, err_write_fail_ppm): each
 * media read (a Read, Compare or Verify, one source range of a Copy) or
 * media write (a Write, a Copy's destination) draws once from a
 * generator with a fixed seed, counted per controller: the same
 * commands in the same order fail in the same places on every run.  A
 * draw fails with probability ppm / 1000000 and picks the failing block
 * of the range (into *pick, below nlb).
 */
#define FEMU_ERR_SEED   0x46454d55ULL   /* "FEMU" */

static bool femu_err_draw(FemuCtrl *n, uint32_t ppm, uint64_t nlb,
                          uint64_t *pick)
{
    uint64_t x;

    if (!ppm) {
        return false;
    }
    /* splitmix64 of the draw's number */
    x = FEMU_ERR_SEED + qatomic_fetch_inc(&n->err_draws) *
        0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    *pick = (x >> 32) % nlb;
    return (x & 0xffffffff) % 1000000 < ppm;
}

/* A media error on block lba: error log entry, SMART, trace event. */
static uint16_t femu_media_error(FemuCtrl *n, FemuReq *req, uint64_t lba,
                                 uint16_t status)
{
    trace_femu_io_media_error(req->ns->nsid, lba, status);
    req->err_lba = lba;
    req->err_lba_valid = true;
    qatomic_inc(&n->media_errors);
    return status;
}

/*
 * A media write of [slba, slba + nlb) (Write, Copy destination): an
 * injected program failure is Write Fault, before any data moves.
 */
static uint16_t femu_media_write_check(FemuCtrl *n, FemuReq *req,
                                       uint64_t slba, uint64_t nlb)
{
    uint64_t pick;

    if (femu_err_draw(n, n->params.err_write_fail_ppm, nlb, &pick)) {
        return femu_media_error(n, req, slba + pick, NVME_WRITE_FAULT);
    }
    return NVME_SUCCESS;
}

/*
 * Read-only media (SMART Critical Warning bit 3): a command that would
 * program [slba, slba + nlb) (Write, Write Zeroes, Copy's destination)
 * fails with Write Fault before its data reaches the store, as any write
 * the media refuses.
 */
static uint16_t femu_media_ro_check(FemuCtrl *n, FemuNamespace *ns,
                                    uint64_t slba, uint64_t nlb)
{
    if (ns->mode->uses_ftl && qatomic_read(&n->media_ro)) {
        trace_femu_io_media_read_only(slba, nlb);
        return NVME_WRITE_FAULT;
    }
    return NVME_SUCCESS;
}

/*
 * What a media write of [slba, slba + nlb) (Write, Copy's destination)
 * goes through once its command is checked, before its data reaches the
 * store: an injected program failure (Write Fault); power_cut_after,
 * which may cut the power first (*cut: the command never executes);
 * with the write cache, the durable content of its pages is kept for a
 * power cut.
 */
static uint16_t femu_media_write_begin(FemuCtrl *n, FemuReq *req,
                                       uint64_t slba, uint64_t nlb,
                                       bool *cut)
{
    uint16_t status = femu_media_write_check(n, req, slba, nlb);

    *cut = false;
    if (status) {
        return status;
    }
    if (n->params.power_cut_after &&
        qatomic_fetch_inc(&n->pc_writes) == n->params.power_cut_after) {
        /* this write never executes: the power goes first */
        femu_power_cut(n, "power_cut_after", false);
        *cut = true;
        return NVME_SUCCESS;
    }
    if (n->wc_shadow && req->ns->mode->uses_ftl) {
        femu_ftl_lock(n);
        femu_powercut_before_write(n, req->ns, slba, nlb, get_clock());
        qemu_mutex_unlock(&n->ftl_lock);
    }
    return NVME_SUCCESS;
}

/*
 * After an FTL operation (ftl_lock held): GC may have retired worn-out
 * lines, using up the spare (read-only media from now on), and the
 * SMART / Health events follow (events.c).
 */
static void femu_ftl_wear_after(FemuCtrl *n)
{
    if (ftl_read_only(n->ftl) && !qatomic_read(&n->media_ro)) {
        /* worn-out blocks took the last of the spare */
        qatomic_set(&n->media_ro, true);
        trace_femu_media_read_only();
    }
    femu_wear_note(n);
}

/*
 * The first deallocated or never-written block of [slba, slba + nlb)
 * into *lba.  The store records written data per FEMU_STORE_CHUNK (4 KiB):
 * with 512 B blocks a block counts as written when its 4 KiB chunk holds
 * data written since the chunk was last deallocated or zeroed whole.
 */
static bool femu_unwritten_find(FemuCtrl *n, FemuNamespace *ns,
                                uint64_t slba, uint64_t nlb, uint64_t *lba)
{
    uint64_t off = slba << n->lba_shift;
    uint64_t end = (slba + nlb) << n->lba_shift;

    for (uint64_t c = off / FEMU_STORE_CHUNK;
         c * FEMU_STORE_CHUNK < end; c++) {
        if (!test_bit(c, ns->store.written)) {
            *lba = MAX(slba, (c * FEMU_STORE_CHUNK) >> n->lba_shift);
            return true;
        }
    }
    return false;
}

/*
 * What the media says of a read of [slba, slba + nlb) before any data
 * moves (Read, Compare, Verify, Copy's sources): a block made
 * uncorrectable by Write Uncorrectable fails the command with
 * Unrecovered Read Error, naming that block in the error log entry and
 * counting one media error in SMART; so does an injected read error
 * (err_read_unc_ppm).  With DULBE set (Error Recovery feature), a
 * deallocated or unwritten block fails it with Deallocated or Unwritten
 * Logical Block, not a media error.
 */
static uint16_t femu_media_check(FemuCtrl *n, FemuReq *req, uint64_t slba,
                                 uint64_t nlb)
{
    uint64_t lba;

    if (req->ns->mode->dulbe &&
        NVME_ERR_REC_DULBE(qatomic_read(&n->feat.err_rec)) &&
        femu_unwritten_find(n, req->ns, slba, nlb, &lba)) {
        FEMU_GUEST_ERR(femu_io_dulbe, req->ns->nsid, lba);
        req->err_lba = lba;
        req->err_lba_valid = true;
        return NVME_DULB;
    }
    if (femu_uncor_find(req->ns, slba, nlb, &lba)) {
        FEMU_GUEST_ERR(femu_io_uncorrectable, req->ns->nsid, lba);
        return femu_media_error(n, req, lba, NVME_UNRECOVERED_READ);
    }
    if (femu_err_draw(n, n->params.err_read_unc_ppm, nlb, &lba)) {
        return femu_media_error(n, req, slba + lba, NVME_UNRECOVERED_READ);
    }
    return NVME_SUCCESS;
}

/*
 * The NAND time of reading [slba, slba + nlb) from req->due_ns, with len
 * bytes over the host link (0: none), as a Read (trace op
 * FTL_IOTRACE_READ): req->due_ns becomes its end.  Nothing for a mode
 * without the FTL.
 */
static void femu_nand_read(FemuCtrl *n, FemuReq *req, uint64_t slba,
                           uint64_t nlb, uint64_t len)
{
    int64_t start = req->due_ns;

    if (!req->ns->mode->uses_ftl) {
        return;
    }
    femu_ftl_lock(n);
    req->due_ns = ftl_read(n->ftl, req->ns->ftl_base + slba, nlb, start);
    if (req->due_ns == (int64_t)FTL_TIME_ERROR) {
        req->due_ns = start;
    } else {
        req->due_ns = ftl_host_costs(n->ftl, false, len, req->due_ns);
    }
    ftl_background_gc(n->ftl, start);
    femu_capture(n, req->ns->nsid, FTL_IOTRACE_READ, 0,
                 req->ns->ftl_base + slba, nlb, 0, start, req->due_ns);
    femu_ftl_wear_after(n);
    qemu_mutex_unlock(&n->ftl_lock);
}

static uint16_t femu_rw(FemuCtrl *n, FemuReq *req, bool is_write)
{
    NvmeRwCmd *rw = (NvmeRwCmd *)&req->cmd;
    uint64_t slba = le64_to_cpu(rw->slba);
    uint32_t nlb = (uint32_t)le16_to_cpu(rw->nlb) + 1;
    uint64_t len = (uint64_t)nlb << n->lba_shift;
    uint64_t off = slba << n->lba_shift;
    uint32_t pid = FTL_PID_NONE;
    uint16_t status;

    status = femu_check_xfer(n, req->ns, slba, nlb);
    if (status) {
        return status;
    }
    if (is_write) {
        bool cut;

        status = femu_media_ro_check(n, req->ns, slba, nlb);
        if (status) {
            return status;
        }
        status = femu_fdp_write_pid(n, &req->cmd, &pid);
        if (status) {
            return status;
        }
        status = femu_media_write_begin(n, req, slba, nlb, &cut);
        if (status || cut) {
            return status;
        }
    } else {
        status = femu_media_check(n, req, slba, nlb);
        if (status) {
            /* the NAND was read, and failed */
            femu_nand_read(n, req, slba, nlb, 0);
            return status;
        }
    }
    /* the copy goes straight between guest RAM and the store (a read
     * of never-written blocks copies zeroes without touching it) */
    status = femu_dma_cmd(n, &req->cmd,
                          is_write ? req->ns->store.base + off
                                   : femu_store_read_src(&req->ns->store, off,
                                                         len),
                          len, !is_write);
    if (is_write) {
        /* after the copy (a failed one may have copied part of it) */
        femu_store_mark(&req->ns->store, slba << n->lba_shift, len);
    }
    if (status) {
        return status;
    }
    if (is_write) {
        femu_uncor_clear(req->ns, slba, nlb);
        /*
         * A write's emulated time starts once its data has arrived (the
         * copy above), as an SSD programs NAND after the host transfer; a
         * read's starts at its arrival (C1h, docs/log-pages.md).
         */
        req->due_ns = get_clock();
    }
    if (req->ns->mode->uses_ftl) {
        int64_t start = req->due_ns;

        femu_ftl_lock(n);
        if (is_write && (le16_to_cpu(rw->control) & NVME_RW_FUA)) {
            /* Force Unit Access: done when its data is on NAND (the write
             * cache, write_cache_mb, destages it first) */
            req->due_ns = ftl_write_fua(n->ftl, req->ns->ftl_base + slba,
                                        nlb, pid, start);
        } else if (is_write) {
            req->due_ns = ftl_write(n->ftl, req->ns->ftl_base + slba, nlb,
                                    pid, start);
        } else {
            req->due_ns = ftl_read(n->ftl, req->ns->ftl_base + slba, nlb,
                                   start);
        }
        if (req->due_ns != (int64_t)FTL_TIME_ERROR) {
            /* the host link and the firmware CPU (0: off) */
            req->due_ns = ftl_host_costs(n->ftl, is_write, len, req->due_ns);
        }
        ftl_background_gc(n->ftl, start);
        femu_capture(n, req->ns->nsid,
                     is_write ? FTL_IOTRACE_WRITE : FTL_IOTRACE_READ, 0,
                     req->ns->ftl_base + slba, nlb, is_write ? pid : 0, start,
                     req->due_ns);
        femu_ftl_wear_after(n);
        qemu_mutex_unlock(&n->ftl_lock);
        if (req->due_ns == (int64_t)FTL_TIME_ERROR) {
            /* no free line could be made: a write fault, never a crash */
            req->due_ns = start;
            return NVME_WRITE_FAULT;
        }
    }
    femu_count_io(n, req->ns, is_write, len);
    femu_io_trace(n, req, slba, nlb);
    return NVME_SUCCESS;
}

uint16_t femu_io_read(FemuCtrl *n, FemuReq *req)
{
    return femu_rw(n, req, false);
}

uint16_t femu_io_write(FemuCtrl *n, FemuReq *req)
{
    return femu_rw(n, req, true);
}

/* NAND pages the FTL unmaps per step: between two steps a main-loop
 * thread waiting for ftl_lock (Identify Namespace, logs) gets it */
#define FEMU_TRIM_STEP_PAGES    4096

/* Unmap [slba, slba + nlb): the store reads zeroes, the FTL forgets it.
 * op: how an I/O trace records each step (a deallocate range, with more
 * to follow, or Write Zeroes). */
static void femu_unmap(FemuCtrl *n, FemuNamespace *ns, uint64_t slba,
                       uint32_t nlb, uint8_t op, int64_t at_ns)
{
    uint64_t bpp, step, end = slba + nlb;

    femu_store_discard(&ns->store, slba << n->lba_shift,
                       (uint64_t)nlb << n->lba_shift);
    femu_uncor_clear(ns, slba, nlb);
    if (!ns->mode->uses_ftl) {
        return;
    }
    /* steps end on page boundaries: the FTL unmaps the pages a step
     * covers entirely, so each page of the range is in exactly one */
    bpp = ((uint64_t)n->cfg.secs_per_pg * 512) >> n->lba_shift;
    step = FEMU_TRIM_STEP_PAGES * bpp;
    femu_ftl_lock(n);
    for (uint64_t s = slba; s < end;) {
        uint64_t e = MIN(end, QEMU_ALIGN_DOWN(s, step) + step);

        ftl_trim(n->ftl, ns->ftl_base + s, e - s);
        /* each step as the FTL took it: another poller's write may come
         * between two steps */
        femu_capture(n, ns->nsid, op,
                     op == FTL_IOTRACE_DEALLOC ? FTL_IOTRACE_F_MORE : 0,
                     ns->ftl_base + s, (uint32_t)(e - s), 0, at_ns, 0);
        s = e;
        if (s < end && qatomic_read(&n->ftl_waiters)) {
            qemu_mutex_unlock(&n->ftl_lock);
            femu_ftl_lock(n);
        }
    }
    qemu_mutex_unlock(&n->ftl_lock);
}

uint16_t femu_io_write_zeroes(FemuCtrl *n, FemuReq *req)
{
    NvmeRwCmd *rw = (NvmeRwCmd *)&req->cmd;
    uint64_t slba = le64_to_cpu(rw->slba);
    uint32_t nlb = (uint32_t)le16_to_cpu(rw->nlb) + 1;
    uint16_t status = femu_check_range(req->ns, slba, nlb);

    if (status) {
        return status;
    }
    status = femu_media_ro_check(n, req->ns, slba, nlb);
    if (status) {
        return status;
    }
    femu_unmap(n, req->ns, slba, nlb, FTL_IOTRACE_WRITE_ZEROES,
               req->arrival_ns);
    femu_count_io(n, req->ns, true, 0);
    femu_io_trace(n, req, slba, nlb);
    return NVME_SUCCESS;
}

/*
 * Compare (NVM Command Set 3.3.1): the host's data against the blocks'.
 * It reads the NAND as a Read of the same blocks does; a difference is
 * Compare Failure, a Write Uncorrectable block Unrecovered Read Error.
 */
uint16_t femu_io_compare(FemuCtrl *n, FemuReq *req)
{
    NvmeRwCmd *rw = (NvmeRwCmd *)&req->cmd;
    uint64_t slba = le64_to_cpu(rw->slba);
    uint32_t nlb = (uint32_t)le16_to_cpu(rw->nlb) + 1;
    uint64_t len = (uint64_t)nlb << n->lba_shift;
    g_autofree uint8_t *buf = NULL;
    uint16_t status;

    status = femu_check_xfer(n, req->ns, slba, nlb);
    if (status) {
        return status;
    }
    status = femu_media_check(n, req, slba, nlb);
    if (status) {
        femu_nand_read(n, req, slba, nlb, 0);
        return status;
    }
    buf = g_malloc(len);
    status = femu_dma_cmd(n, &req->cmd, buf, len, false);
    if (status) {
        return status;
    }
    femu_nand_read(n, req, slba, nlb, len);
    femu_count_io(n, req->ns, false, len);
    femu_io_trace(n, req, slba, nlb);
    if (memcmp(buf, req->ns->store.base + (slba << n->lba_shift), len)) {
        FEMU_GUEST_ERR(femu_io_compare_failure, req->ns->nsid, slba, nlb);
        return NVME_CMP_FAILURE | NVME_DNR;
    }
    return NVME_SUCCESS;
}

/*
 * Verify (NVM Command Set 3.3.5): read the blocks and check them, with
 * no data to the host; no limit beyond the command's 65536 blocks (VSL
 * 0 in Identify Controller CNS 06h).
 */
uint16_t femu_io_verify(FemuCtrl *n, FemuReq *req)
{
    NvmeRwCmd *rw = (NvmeRwCmd *)&req->cmd;
    uint64_t slba = le64_to_cpu(rw->slba);
    uint32_t nlb = (uint32_t)le16_to_cpu(rw->nlb) + 1;
    uint16_t status;

    status = femu_check_range(req->ns, slba, nlb);
    if (status) {
        return status;
    }
    status = femu_media_check(n, req, slba, nlb);
    femu_nand_read(n, req, slba, nlb, 0);
    if (status) {
        return status;
    }
    femu_count_io(n, req->ns, false, 0);
    femu_io_trace(n, req, slba, nlb);
    return NVME_SUCCESS;
}

/*
 * Write Uncorrectable (NVM Command Set 3.3.6): the blocks read as
 * Unrecovered Read Error until they are written (Write, Copy), zeroed or
 * deallocated.  Their data stays in the store; nothing reaches the NAND
 * (no FTL call: C0h does not move).
 */
uint16_t femu_io_write_uncor(FemuCtrl *n, FemuReq *req)
{
    NvmeRwCmd *rw = (NvmeRwCmd *)&req->cmd;
    uint64_t slba = le64_to_cpu(rw->slba);
    uint32_t nlb = (uint32_t)le16_to_cpu(rw->nlb) + 1;
    uint16_t status = femu_check_range(req->ns, slba, nlb);

    if (status) {
        return status;
    }
    bitmap_set_atomic(femu_uncor_map(req->ns), slba, nlb);
    trace_femu_io_write_uncor(req->ns->nsid, slba, nlb);
    femu_io_trace(n, req, slba, nlb);
    return NVME_SUCCESS;
}

/* Simple Copy's limits (Identify Namespace MSSRL and MCL, in blocks):
 * the copy goes through one buffer of at most MDTS bytes */
uint32_t femu_copy_max_blocks(FemuCtrl *n)
{
    return MIN(n->max_xfer >> n->lba_shift, UINT16_MAX);
}

/*
 * Copy (NVM Command Set 3.3.2), source range descriptor format 0 only
 * (OCFS bit 0): up to FEMU_COPY_MAX_RANGES ranges (MSRC) of the
 * namespace, each of at most MSSRL blocks and MCL in all, into the
 * blocks from SDLBA.  Every range and limit is checked and every source
 * read before anything is written: a refused or failed copy changes
 * nothing.  The sources are read from the NAND (as Reads, in parallel
 * from the command's arrival) and the destination written through the
 * FTL once they are all read, as a Write of the same blocks: C0h counts
 * these pages as host pages written (the host asked for them), and SMART
 * counts the blocks as data units written and the command as a host
 * write command.  A write directive (FDP placement) applies to the
 * destination as for a Write.
 */
uint16_t femu_io_copy(FemuCtrl *n, FemuReq *req)
{
    NvmeCopyCmd *copy = (NvmeCopyCmd *)&req->cmd;
    FemuNamespace *ns = req->ns;
    uint32_t nr = (uint32_t)copy->nr + 1;
    uint8_t format = copy->control[0] & 0xf;
    uint64_t sdlba = le64_to_cpu(copy->sdlba);
    uint32_t max = femu_copy_max_blocks(n);
    NvmeCopySourceRangeFormat0_2 range[FEMU_COPY_MAX_RANGES];
    g_autofree uint8_t *buf = NULL;
    uint64_t total = 0, len, off = 0;
    uint32_t pid = FTL_PID_NONE;
    /* CDW12 bit 30, Force Unit Access, as a Write's */
    bool fua = copy->control[2] & 0x40;
    bool cut;
    int64_t end;
    uint16_t status;

    if (format != NVME_COPY_FORMAT_0) {
        FEMU_GUEST_ERR(femu_copy_bad_format, format);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (nr > FEMU_COPY_MAX_RANGES) {
        FEMU_GUEST_ERR(femu_copy_too_big, nr, 0, 0, max);
        return NVME_CMD_SIZE_LIMIT | NVME_DNR;
    }
    status = femu_fdp_write_pid(n, &req->cmd, &pid);
    if (status) {
        return status;
    }
    status = femu_dma_cmd(n, &req->cmd, (uint8_t *)range,
                          nr * sizeof(range[0]), false);
    if (status) {
        return status;
    }
    for (uint32_t i = 0; i < nr; i++) {
        uint64_t slba = le64_to_cpu(range[i].slba);
        uint32_t nlb = (uint32_t)le16_to_cpu(range[i].nlb) + 1;

        if (nlb > max) {
            FEMU_GUEST_ERR(femu_copy_too_big, nr, i, nlb, max);
            return NVME_CMD_SIZE_LIMIT | NVME_DNR;
        }
        status = femu_check_range(ns, slba, nlb);
        if (status) {
            return status;
        }
        total += nlb;
        if (total > max) {
            FEMU_GUEST_ERR(femu_copy_too_big, nr, i, total, max);
            return NVME_CMD_SIZE_LIMIT | NVME_DNR;
        }
    }
    status = femu_check_range(ns, sdlba, total);
    if (status) {
        return status;
    }
    /* the destination is written as by a Write: read-only media first */
    status = femu_media_ro_check(n, ns, sdlba, total);
    if (status) {
        return status;
    }
    len = total << n->lba_shift;
    buf = g_malloc(len);
    end = req->due_ns;
    for (uint32_t i = 0; i < nr; i++) {
        uint64_t slba = le64_to_cpu(range[i].slba);
        uint32_t nlb = (uint32_t)le16_to_cpu(range[i].nlb) + 1;
        uint64_t rlen = (uint64_t)nlb << n->lba_shift;

        req->due_ns = req->arrival_ns;
        status = femu_media_check(n, req, slba, nlb);
        femu_nand_read(n, req, slba, nlb, 0);
        end = MAX(end, req->due_ns);
        if (status) {
            req->due_ns = end;
            return status;
        }
        memcpy(buf + off, ns->store.base + (slba << n->lba_shift), rlen);
        off += rlen;
    }
    req->due_ns = end;
    status = femu_media_write_begin(n, req, sdlba, total, &cut);
    if (status || cut) {
        return status;
    }
    memcpy(ns->store.base + (sdlba << n->lba_shift), buf, len);
    femu_store_mark(&ns->store, sdlba << n->lba_shift, len);
    femu_uncor_clear(ns, sdlba, total);
    req->due_ns = end;
    if (ns->mode->uses_ftl) {
        int64_t start = end;

        femu_ftl_lock(n);
        if (fua) {
            /* Force Unit Access: done when the destination is on NAND */
            req->due_ns = ftl_write_fua(n->ftl, ns->ftl_base + sdlba, total,
                                        pid, start);
        } else {
            req->due_ns = ftl_write(n->ftl, ns->ftl_base + sdlba, total, pid,
                                    start);
        }
        if (req->due_ns != (int64_t)FTL_TIME_ERROR) {
            req->due_ns = ftl_host_costs(n->ftl, true, 0, req->due_ns);
        }
        ftl_background_gc(n->ftl, start);
        femu_capture(n, ns->nsid, FTL_IOTRACE_WRITE, 0, ns->ftl_base + sdlba,
                     total, pid, start, req->due_ns);
        femu_ftl_wear_after(n);
        qemu_mutex_unlock(&n->ftl_lock);
        if (req->due_ns == (int64_t)FTL_TIME_ERROR) {
            req->due_ns = start;
            return NVME_WRITE_FAULT;
        }
    }
    femu_count_io(n, ns, true, len);
    femu_io_trace(n, req, sdlba, total);
    return NVME_SUCCESS;
}

/*
 * Dataset Management (NVM Command Set 3.2.3): deallocate ranges, within
 * the limits of Identify Controller CNS 06h (FEMU_DSM_MAX_*): more
 * ranges than DMRL, a range longer than DMRSL or more blocks in all
 * than DMSL is an Invalid Field, and nothing is deallocated then.
 */
static uint16_t femu_dsm(FemuCtrl *n, FemuReq *req)
{
    NvmeDsmCmd *dsm = (NvmeDsmCmd *)&req->cmd;
    uint32_t nr = (le32_to_cpu(dsm->nr) & 0xff) + 1;
    uint32_t attr = le32_to_cpu(dsm->attributes);
    uint64_t max = FEMU_DSM_MAX_BYTES >> n->lba_shift, total = 0;
    NvmeDsmRange range[256];
    uint16_t status;

    if (!(attr & NVME_DSMGMT_AD)) {
        /* integral read/write hints only: nothing to do */
        return NVME_SUCCESS;
    }
    /* a zoned namespace takes deallocation as a hint: a zone's data
     * and write pointer change by Zone Management Send only (below, the
     * ranges are checked and nothing is unmapped) */
    if (nr > FEMU_DSM_MAX_RANGES) {
        FEMU_GUEST_ERR(femu_dsm_too_many_ranges, nr, FEMU_DSM_MAX_RANGES);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    status = femu_dma_cmd(n, &req->cmd, (uint8_t *)range,
                          nr * sizeof(NvmeDsmRange), false);
    if (status) {
        return status;
    }
    /* check every range before changing anything */
    for (uint32_t i = 0; i < nr; i++) {
        uint64_t slba = le64_to_cpu(range[i].slba);
        uint32_t nlb = le32_to_cpu(range[i].nlb);

        status = femu_check_range(req->ns, slba, nlb);
        if (status) {
            return status;
        }
        total += nlb;
        if (nlb > max || total > max) {
            FEMU_GUEST_ERR(femu_dsm_too_long, i, nlb, total, max);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
    }
    for (uint32_t i = 0; i < nr && req->ns->mode->dsm_deallocates; i++) {
        uint32_t nlb = le32_to_cpu(range[i].nlb);

        if (nlb) {
            femu_unmap(n, req->ns, le64_to_cpu(range[i].slba), nlb,
                       FTL_IOTRACE_DEALLOC, req->due_ns);
        }
    }
    if (req->ns->mode->uses_ftl) {
        int64_t start = req->due_ns;

        /* the background-GC check every request makes (as reads and
         * writes above): lines a deallocate emptied can be collected now,
         * not only at the next read or write, as in FEMU's BlackBox FTL;
         * trim_lat_ns delays the completion per range */
        femu_ftl_lock(n);
        req->due_ns = ftl_trim_cost(n->ftl, nr, start);
        ftl_background_gc(n->ftl, start);
        /* the command's end: a deallocate of no blocks, then GC */
        femu_capture(n, req->ns->nsid, FTL_IOTRACE_DEALLOC, 0,
                     req->ns->ftl_base + le64_to_cpu(range[0].slba), 0, 0,
                     start, 0);
        femu_ftl_wear_after(n);
        qemu_mutex_unlock(&n->ftl_lock);
    }
    /* the first range's LBA and the blocks of all ranges */
    femu_io_trace(n, req, le64_to_cpu(range[0].slba), total);
    return NVME_SUCCESS;
}

/*
 * Flush: the store holds the data from the submission on; what is not
 * durable yet is the FTL's write cache (write_cache_mb).  It is one cache
 * for the whole FTL, so a Flush of any namespace destages all of it, and
 * completes when the last destage is on NAND.  Without a cache (or with
 * it off) there is nothing to wait for.
 */
static uint16_t femu_io_flush(FemuCtrl *n, FemuReq *req)
{
    int64_t start = req->due_ns;
    FemuNamespace *zns = femu_zns_ns(n);
    uint64_t done;

    if (zns && zns->zns && zns_wcache_pages(zns->zns)) {
        /* the zoned namespace's cache: the same Flush empties it */
        femu_ftl_lock(n);
        done = zns_wcache_flush(zns->zns, start);
        qemu_mutex_unlock(&n->ftl_lock);
        req->due_ns = MAX(req->due_ns, (int64_t)done);
        trace_femu_wcache_flush(start, done - start);
    }
    if (!n->ftl || !ftl_wcache_pages(n->ftl)) {
        return NVME_SUCCESS;
    }
    femu_ftl_lock(n);
    done = ftl_flush(n->ftl, start);
    femu_powercut_flushed(n);
    ftl_background_gc(n->ftl, start);
    femu_ftl_wear_after(n);
    qemu_mutex_unlock(&n->ftl_lock);
    if (done == FTL_TIME_ERROR) {
        return NVME_WRITE_FAULT;
    }
    req->due_ns = MAX(req->due_ns, (int64_t)done);
    trace_femu_wcache_flush(start, done - start);
    return NVME_SUCCESS;
}

void femu_io_exec(FemuCtrl *n, FemuReq *req)
{
    NvmeCmd *cmd = &req->cmd;
    uint32_t nsid = le32_to_cpu(cmd->nsid);
    uint16_t status;

    req->ns = femu_ns(n, nsid);
    req->err_lba_valid = false;
    if (NVME_CMD_FLAGS_FUSE(cmd->flags)) {
        /* fused operations are not supported (FUSES = 0) */
        FEMU_GUEST_ERR(femu_cmd_fused, req->sq->sqid, le16_to_cpu(cmd->cid));
        status = NVME_INVALID_FIELD | NVME_DNR;
    } else if (!femu_io_cmd_effects(n, req->ns ? req->ns->mode : n->mode,
                                    cmd->opcode)) {
        FEMU_GUEST_ERR(femu_cmd_bad_opcode, req->sq->sqid,
                       le16_to_cpu(cmd->cid), cmd->opcode);
        status = NVME_INVALID_OPCODE | NVME_DNR;
    } else if (!req->ns &&
               !(cmd->opcode == NVME_CMD_FLUSH &&
                 nsid == NVME_NSID_BROADCAST)) {
        FEMU_GUEST_ERR(femu_io_bad_nsid, req->sq->sqid, cmd->opcode, nsid);
        status = NVME_INVALID_NSID | NVME_DNR;
    } else {
        switch (cmd->opcode) {
        case NVME_CMD_FLUSH:
            femu_capture_flush(n, nsid, req->arrival_ns);
            status = femu_io_flush(n, req);
            break;
        case NVME_CMD_WRITE:
            status = req->ns->mode->write(n, req);
            break;
        case NVME_CMD_READ:
            status = req->ns->mode->read(n, req);
            break;
        case NVME_CMD_WRITE_ZEROES:
            status = req->ns->mode->write_zeroes(n, req);
            break;
        case NVME_CMD_ZONE_APPEND:
            status = req->ns->mode->zone_append(n, req);
            break;
        case NVME_CMD_ZONE_MGMT_SEND:
            status = req->ns->mode->zone_mgmt_send(n, req);
            break;
        case NVME_CMD_ZONE_MGMT_RECV:
            status = req->ns->mode->zone_mgmt_recv(n, req);
            break;
        case NVME_CMD_DSM:
            status = femu_dsm(n, req);
            break;
        case NVME_CMD_IO_MGMT_RECV:
            status = femu_fdp_io_mgmt_recv(n, req);
            break;
        case NVME_CMD_IO_MGMT_SEND:
            status = femu_fdp_io_mgmt_send(n, req);
            break;
        case NVME_CMD_COMPARE:
            status = req->ns->mode->compare(n, req);
            break;
        case NVME_CMD_VERIFY:
            status = req->ns->mode->verify(n, req);
            break;
        case NVME_CMD_WRITE_UNCOR:
            status = req->ns->mode->write_uncor(n, req);
            break;
        case NVME_CMD_COPY:
            status = req->ns->mode->copy(n, req);
            break;
        default:
            status = NVME_INVALID_OPCODE | NVME_DNR;
            break;
        }
    }
    req->status = status;
    if (status && status != FEMU_REQ_MORE) {
        trace_femu_io_err(req->sq->sqid, le16_to_cpu(cmd->cid), cmd->opcode,
                          status);
        if (req->err_lba_valid) {
            femu_error_record_lba(n, req->sq->sqid, cmd, status,
                                  req->err_lba);
        } else {
            femu_error_record(n, req->sq->sqid, cmd, status);
        }
    }
}
