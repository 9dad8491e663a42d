/*
 * FEMU: the NVM I/O command set (NVMe NVM Command Set spec 1.0, 3.2),
 * executed by the poller threads.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/timer.h"
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

static void femu_io_trace(FemuCtrl *n, FemuReq *req, uint64_t slba,
                          uint32_t nlb)
{
    if (qatomic_read(&n->io_log)) {
        trace_femu_io_log(req->sq->sqid, le16_to_cpu(req->cmd.cid),
                          req->cmd.opcode, slba, nlb, req->arrival_ns,
                          req->due_ns);
    }
}

static uint16_t femu_rw(FemuCtrl *n, FemuReq *req, bool is_write)
{
    NvmeRwCmd *rw = (NvmeRwCmd *)&req->cmd;
    uint64_t slba = le64_to_cpu(rw->slba);
    uint32_t nlb = (uint32_t)le16_to_cpu(rw->nlb) + 1;
    uint64_t len = (uint64_t)nlb << n->lba_shift;
    uint32_t pid = FTL_PID_NONE;
    uint16_t status;

    status = femu_check_range(req->ns, slba, nlb);
    if (status) {
        return status;
    }
    if (len > n->max_xfer) {
        /* more than MDTS allows (Identify Controller MDTS) */
        FEMU_GUEST_ERR(femu_io_too_long, len, n->max_xfer);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (is_write) {
        status = femu_fdp_write_pid(n, &req->cmd, &pid);
        if (status) {
            return status;
        }
        if (n->params.power_cut_after &&
            qatomic_fetch_inc(&n->pc_writes) == n->params.power_cut_after) {
            /* this write never executes: the power goes first */
            femu_power_cut(n, "power_cut_after", false);
            return NVME_SUCCESS;
        }
        if (n->wc_shadow && req->ns->mode->uses_ftl) {
            femu_ftl_lock(n);
            femu_powercut_before_write(n, req->ns, slba, nlb, get_clock());
            qemu_mutex_unlock(&n->ftl_lock);
        }
    }
    /* the copy goes straight between guest RAM and the store */
    status = femu_dma_cmd(n, &req->cmd,
                          req->ns->store.base + (slba << n->lba_shift),
                          len, !is_write);
    if (is_write) {
        /* after the copy (a failed one may have copied part of it) */
        femu_store_mark(&req->ns->store, slba << n->lba_shift, len);
    }
    if (status) {
        return status;
    }
    if (is_write) {
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
        femu_capture(n, is_write ? FTL_IOTRACE_WRITE : FTL_IOTRACE_READ, 0,
                     slba, nlb, is_write ? pid : 0, start, req->due_ns);
        qemu_mutex_unlock(&n->ftl_lock);
        if (req->due_ns == (int64_t)FTL_TIME_ERROR) {
            /* no free line could be made: a write fault, never a crash */
            req->due_ns = start;
            return NVME_WRITE_FAULT;
        }
    }
    /* SMART counts commands that completed successfully (5.16.1.3) */
    if (is_write) {
        qatomic_add(&n->bytes_written, len);
        qatomic_inc(&n->host_write_cmds);
        qatomic_add(&req->ns->bytes_written, len);
        qatomic_inc(&req->ns->host_write_cmds);
    } else {
        qatomic_add(&n->bytes_read, len);
        qatomic_inc(&n->host_read_cmds);
        qatomic_add(&req->ns->bytes_read, len);
        qatomic_inc(&req->ns->host_read_cmds);
    }
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
        femu_capture(n, op, op == FTL_IOTRACE_DEALLOC ? FTL_IOTRACE_F_MORE : 0,
                     s, (uint32_t)(e - s), 0, at_ns, 0);
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
    femu_unmap(n, req->ns, slba, nlb, FTL_IOTRACE_WRITE_ZEROES,
               req->arrival_ns);
    qatomic_inc(&n->host_write_cmds);
    qatomic_inc(&req->ns->host_write_cmds);
    femu_io_trace(n, req, slba, nlb);
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
        femu_capture(n, FTL_IOTRACE_DEALLOC, 0, le64_to_cpu(range[0].slba),
                     0, 0, start, 0);
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
    uint64_t done;

    if (!n->ftl || !ftl_wcache_pages(n->ftl)) {
        return NVME_SUCCESS;
    }
    femu_ftl_lock(n);
    done = ftl_flush(n->ftl, start);
    femu_powercut_flushed(n);
    ftl_background_gc(n->ftl, start);
    qemu_mutex_unlock(&n->ftl_lock);
    if (done == FTL_TIME_ERROR) {
        return NVME_WRITE_FAULT;
    }
    req->due_ns = done;
    trace_femu_wcache_flush(start, done - start);
    return NVME_SUCCESS;
}

void femu_io_exec(FemuCtrl *n, FemuReq *req)
{
    NvmeCmd *cmd = &req->cmd;
    uint32_t nsid = le32_to_cpu(cmd->nsid);
    uint16_t status;

    req->ns = femu_ns(n, nsid);
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
        default:
            status = NVME_INVALID_OPCODE | NVME_DNR;
            break;
        }
    }
    req->status = status;
    if (status && status != FEMU_REQ_MORE) {
        trace_femu_io_err(req->sq->sqid, le16_to_cpu(cmd->cid), cmd->opcode,
                          status);
        femu_error_record(n, req->sq->sqid, cmd, status);
    }
}
