/*
 * FEMU: the error information log and asynchronous events (NVMe 2.0
 * base spec 5.2 Asynchronous Event Request, 5.16.1.2 Error Information).
 *
 * Both are controller state that several places feed: commands that
 * fail (admin queue and pollers) record errors, Set Features and bad
 * doorbell writes raise events, and reading a log page acknowledges
 * them.  This file owns that state.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu.h"
#include "trace.h"

static void femu_error_add(FemuCtrl *n, uint16_t sqid, NvmeCmd *cmd,
                           uint16_t status, bool has_lba, uint64_t lba)
{
    NvmeErrorLog *e;
    int i;

    qemu_mutex_lock(&n->err_lock);
    n->error_count++;
    i = n->error_count % (FEMU_ELPE + 1);
    e = &n->errlog[i];
    memset(e, 0, sizeof(*e));
    e->error_count = cpu_to_le64(n->error_count);
    e->sqid = cpu_to_le16(sqid);
    e->cid = cmd->cid;
    /*
     * Status Field (NVMe 2.0 5.16.1.2): bits 15:1 the status of the
     * completion, bit 0 its Phase Tag, known only once the CQE is
     * written: femu_cq_post fills it in (femu_error_set_phase).
     */
    e->status_field = cpu_to_le16(status << 1);
    n->errlog_nophase[i] = true;
    e->param_error_location = cpu_to_le16(0xffff);
    e->nsid = cmd->nsid;
    /*
     * Error Information Log Entry, LBA: the first LBA that experienced
     * the error, where applicable (NVMe 2.0 5.16.1.2): the SLBA of an
     * I/O read/write/zeroes/compare/verify/write uncorrectable command
     * that was out of range.
     */
    if (sqid && (status & 0x7ff) == NVME_LBA_RANGE &&
        (cmd->opcode == NVME_CMD_READ || cmd->opcode == NVME_CMD_WRITE ||
         cmd->opcode == NVME_CMD_WRITE_ZEROES ||
         cmd->opcode == NVME_CMD_COMPARE || cmd->opcode == NVME_CMD_VERIFY ||
         cmd->opcode == NVME_CMD_WRITE_UNCOR)) {
        e->lba = ((NvmeRwCmd *)cmd)->slba;
    }
    /* a media error: the block that failed */
    if (has_lba) {
        e->lba = cpu_to_le64(lba);
    }
    qemu_mutex_unlock(&n->err_lock);
}

void femu_error_record(FemuCtrl *n, uint16_t sqid, NvmeCmd *cmd,
                       uint16_t status)
{
    femu_error_add(n, sqid, cmd, status, false, 0);
}

void femu_error_record_lba(FemuCtrl *n, uint16_t sqid, NvmeCmd *cmd,
                           uint16_t status, uint64_t lba)
{
    femu_error_add(n, sqid, cmd, status, true, lba);
}

/*
 * The CQE of command cid on SQ sqid was written with Phase Tag phase:
 * copy it into bit 0 of the Status Field of the newest error log entry
 * for that command that still waits for it.  Called with cq->lock held;
 * err_lock is taken after it, never the other way round.
 */
void femu_error_set_phase(FemuCtrl *n, uint16_t sqid, uint16_t cid,
                          uint8_t phase)
{
    qemu_mutex_lock(&n->err_lock);
    for (int k = 0; k <= FEMU_ELPE && (uint64_t)k < n->error_count; k++) {
        int i = (n->error_count - k) % (FEMU_ELPE + 1);
        NvmeErrorLog *e = &n->errlog[i];

        if (n->errlog_nophase[i] && le16_to_cpu(e->sqid) == sqid &&
            e->cid == cid) {
            e->status_field |= cpu_to_le16(phase & 1);
            n->errlog_nophase[i] = false;
            break;
        }
    }
    qemu_mutex_unlock(&n->err_lock);
}

/*
 * Asynchronous events (5.2): queue the event and complete an outstanding
 * Asynchronous Event Request if there is one.  Events of a type that the
 * host has not yet acknowledged by reading its log page stay queued.
 */
static void femu_aer_process(FemuCtrl *n)
{
    FemuSQ *asq = n->sq[0];

    while (asq && n->naer && n->naer_queued) {
        FemuAerEvent ev = n->aer_queue[0];
        uint32_t result;

        if (n->aer_mask & (1 << ev.type)) {
            return;
        }
        memmove(&n->aer_queue[0], &n->aer_queue[1],
                --n->naer_queued * sizeof(n->aer_queue[0]));
        n->aer_mask |= 1 << ev.type;
        result = ev.type | (ev.info << 8) | (ev.log_page << 16);
        trace_femu_aer_post(ev.type, ev.info, ev.log_page);
        femu_cq_post(asq->cq, asq, n->aer_cids[--n->naer], NVME_SUCCESS,
                     result);
    }
}

void femu_aer_event(FemuCtrl *n, uint8_t type, uint8_t info, uint8_t log)
{
    if (n->naer_queued == FEMU_AER_QUEUED_MAX) {
        return;
    }
    n->aer_queue[n->naer_queued++] = (FemuAerEvent) {
        .type = type, .info = info, .log_page = log,
    };
    femu_aer_process(n);
}

void femu_aer_clear(FemuCtrl *n, uint8_t type)
{
    n->aer_mask &= ~(1 << type);
    femu_aer_process(n);
}

/*
 * SMART / Health events of the wear (5.2, Figure "Asynchronous Event
 * Information - SMART / Health Status"; Set Features 0Bh bits 7:0).
 * A Critical Warning bit of the wear that sets (spare below the
 * threshold, reliability degraded, media read-only; log.c) raises one
 * event when the host enabled it in the Asynchronous Event
 * Configuration: Spare Below Threshold (02h) for bit 0, NVM Subsystem
 * Reliability (00h) for bits 2 and 3, one event for both when they set
 * together.  A bit raises its event once, when it sets: it stays set
 * and raises no other while the condition lasts (a format that gives
 * the spare back clears it, and it may then set again).  The event type
 * waits for the host to read log 02h with RAE cleared (femu_aer_clear)
 * before another SMART / Health event completes a request.
 *
 * The change is seen by a poller, after an FTL operation that may have
 * retired a line (ftl_lock held): the admin bottom half posts the event
 * from the main loop, which owns the event queue.
 */
/* What changes when the wear's warnings may: lines retired and
 * read-only media in the FTL, zones worn out (ftl_lock held) */
static uint32_t femu_wear_token(FemuCtrl *n)
{
    FemuNamespace *zns = femu_zns_ns(n);
    uint32_t t = 0;

    if (n->ftl) {
        t = (ftl_retired_lines(n->ftl) << 1) | ftl_read_only(n->ftl);
    }
    if (zns) {
        t += zns_worn_zones(zns->zns) << 1;
    }
    return t;
}

void femu_wear_note(FemuCtrl *n)
{
    uint32_t now = femu_wear_token(n);

    if (now != n->wear_seen) {
        n->wear_seen = now;
        qatomic_set(&n->wear_check, true);
        qemu_bh_schedule(n->admin_bh);
    }
}

void femu_smart_events(FemuCtrl *n)
{
    uint8_t now = femu_wear_warnings(n);
    uint8_t fresh = now & ~n->smart_warned;
    uint8_t on = NVME_AEC_SMART(n->feat.async_config);

    n->smart_warned = now;
    /* a zone worn out went Offline: Zone Descriptor Changed (zns.c) */
    femu_zns_changed_notice(n);
    if (!fresh) {
        return;
    }
    trace_femu_smart_warning(now, fresh, on);
    fresh &= on;
    if (fresh & NVME_SMART_SPARE) {
        femu_aer_event(n, NVME_AER_TYPE_SMART,
                       NVME_AER_INFO_SMART_SPARE_THRESH, NVME_LOG_SMART_INFO);
    }
    if (fresh & (NVME_SMART_RELIABILITY | NVME_SMART_MEDIA_READ_ONLY)) {
        femu_aer_event(n, NVME_AER_TYPE_SMART,
                       NVME_AER_INFO_SMART_RELIABILITY, NVME_LOG_SMART_INFO);
    }
}

void femu_smart_events_arm(FemuCtrl *n)
{
    n->smart_warned = femu_wear_warnings(n);
    femu_ftl_lock_main(n);
    n->wear_seen = femu_wear_token(n);
    qemu_mutex_unlock(&n->ftl_lock);
}

/* Admin command Asynchronous Event Request: completes with an event. */
uint16_t femu_aer_request(FemuCtrl *n, NvmeCmd *cmd)
{
    if (n->naer > FEMU_AERL) {
        FEMU_GUEST_ERR(femu_aer_limit, le16_to_cpu(cmd->cid), FEMU_AERL + 1);
        return NVME_AER_LIMIT_EXCEEDED;
    }
    n->aer_cids[n->naer++] = cmd->cid;
    femu_aer_process(n);
    return NVME_NO_COMPLETE;
}

/* Controller reset: outstanding requests and queued events are gone. */
void femu_aer_reset(FemuCtrl *n)
{
    n->naer = 0;
    n->naer_queued = 0;
    n->aer_mask = 0;
    n->zdc_notice = false;
}

/* Log page 01h: the entries newest first; never written ones stay 0. */
void femu_error_log_fill(FemuCtrl *n, NvmeErrorLog *out)
{
    qemu_mutex_lock(&n->err_lock);
    for (int i = 0; i <= FEMU_ELPE && (uint64_t)i < n->error_count; i++) {
        out[i] = n->errlog[(n->error_count - i) % (FEMU_ELPE + 1)];
    }
    qemu_mutex_unlock(&n->err_lock);
}

/* Errors recorded since start (SMART Number of Error Information Log
 * Entries). */
uint64_t femu_error_count(FemuCtrl *n)
{
    uint64_t count;

    qemu_mutex_lock(&n->err_lock);
    count = n->error_count;
    qemu_mutex_unlock(&n->err_lock);
    return count;
}
