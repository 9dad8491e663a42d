/*
 * FEMU: I/O capture (io_trace=PATH): every command step that reaches the
 * FTL is written to PATH, in the order the FTL applied it, in the format
 * of hw/femu/ftl/iotrace.c (docs/trace.md), so that femu-sim --replay
 * reproduces the device's FTL counters.
 *
 * Records are appended under ftl_lock, right after the FTL call they
 * describe: the file's order is the FTL's.  The writer buffers 64 KiB and
 * writes it out under the lock; a write error or a full disk stops the
 * trace with one message, and guest I/O goes on unchanged.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/timer.h"
#include "femu.h"
#include "trace.h"

/* Open the trace (ftl_lock held, or no poller running). */
static bool femu_capture_open(FemuCtrl *n, Error **errp)
{
    struct ftl_iotrace_hdr h;
    struct ftl_counters c;
    char err[512];
    bool midrun;

    /* an FTL that holds data (earlier I/O, or a state file loaded at
     * start: at realize the file exists only if it was loaded): the
     * replay needs the same start to give the same counters */
    ftl_get_counters(n->ftl, &c);
    midrun = ftl_mapped_pages(n->ftl) > 0 || c.host_pages_written > 0 ||
             c.gc_pages_moved > 0 ||
             (n->params.state_path && access(n->params.state_path, F_OK) == 0);
    ftl_iotrace_hdr_of(&h, ftl_config_of(n->ftl), ftl_ns_blocks(n->ftl),
                       midrun ? FTL_IOTRACE_HF_MIDRUN : 0);
    n->capture = ftl_iotrace_writer_open(n->params.io_trace_path, &h, err,
                                         sizeof(err));
    if (!n->capture) {
        error_setg(errp, "io_trace=%s", err);
        return false;
    }
    n->capture_base_ns = get_clock();
    n->capture_reported = false;
    qatomic_set(&n->capture_on, true);
    trace_femu_capture_start(n->params.io_trace_path, midrun);
    return true;
}

/* Close the trace with its END record (ftl_lock held, or no poller). */
static bool femu_capture_close(FemuCtrl *n)
{
    char err[512];
    uint64_t nrec;
    bool ok;

    if (!n->capture) {
        return true;
    }
    qatomic_set(&n->capture_on, false);
    nrec = ftl_iotrace_writer_records(n->capture);
    ok = ftl_iotrace_writer_close(n->capture, err, sizeof(err)) == 0;
    n->capture = NULL;
    if (!ok && !n->capture_reported) {
        error_report("femu: io_trace=%s: %s", n->params.io_trace_path, err);
    }
    trace_femu_capture_stop(n->params.io_trace_path, nrec, ok);
    return ok;
}

bool femu_capture_realize(FemuCtrl *n, Error **errp)
{
    n->capture = NULL;
    qatomic_set(&n->capture_on, false);
    if (!n->params.io_trace_path) {
        return true;
    }
    if (!*n->params.io_trace_path) {
        error_setg(errp, "io_trace='': give the path of the trace file");
        return false;
    }
    if (!femu_is_bbssd(n)) {
        error_setg(errp, "io_trace=%s: I/O traces need femu_mode=1 (the "
                   "BlackBox SSD)", n->params.io_trace_path);
        return false;
    }
    return femu_capture_open(n, errp);
}

void femu_capture_fini(FemuCtrl *n)
{
    femu_capture_close(n);
}

static void femu_capture_rec(FemuCtrl *n, struct ftl_iotrace_rec *r,
                             int64_t at_ns, int64_t done_ns)
{
    int64_t base = n->capture_base_ns;

    if (!n->capture) {
        return;
    }
    /* a command whose time was taken before the trace started */
    r->time_ns = at_ns > base ? (uint64_t)(at_ns - base) : 0;
    if (done_ns == (int64_t)FTL_TIME_ERROR) {
        r->done_ns = FTL_TIME_ERROR;
    } else if (r->op == FTL_IOTRACE_READ || r->op == FTL_IOTRACE_WRITE) {
        r->done_ns = done_ns > base ? (uint64_t)(done_ns - base) : 0;
    }
    ftl_iotrace_writer_append(n->capture, r);
    if (ftl_iotrace_writer_failed(n->capture) && !n->capture_reported) {
        /* once; the guest's I/O is not affected */
        n->capture_reported = true;
        error_report("femu: io_trace=%s: %s; guest I/O continues",
                     n->params.io_trace_path,
                     ftl_iotrace_writer_error(n->capture));
    }
}

void femu_capture(FemuCtrl *n, uint32_t nsid, uint8_t op, uint8_t flags,
                  uint64_t slba, uint32_t nlb, uint32_t arg, int64_t at_ns,
                  int64_t done_ns)
{
    struct ftl_iotrace_rec r = {
        .op = op,
        .flags = flags,
        .nsid = nsid,
        .slba = slba,
        .nlb = nlb,
        .arg = arg,
    };

    femu_capture_rec(n, &r, at_ns, done_ns);
}

void femu_capture_flush(FemuCtrl *n, uint32_t nsid, int64_t at_ns)
{
    struct ftl_iotrace_rec r = { .op = FTL_IOTRACE_FLUSH, .nsid = nsid };

    if (!qatomic_read(&n->capture_on)) {
        return;
    }
    femu_ftl_lock(n);
    femu_capture_rec(n, &r, at_ns, 0);
    qemu_mutex_unlock(&n->ftl_lock);
}

/* 0xEF codes 10/11 (main loop) */
uint16_t femu_capture_control(FemuCtrl *n, uint32_t code)
{
    Error *local_err = NULL;
    uint16_t status = NVME_SUCCESS;

    if (!n->params.io_trace_path || !n->ftl) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    femu_ftl_lock_main(n);
    if (code == FEMU_CTRL_IO_TRACE_STOP) {
        if (!femu_capture_close(n)) {
            status = NVME_INTERNAL_DEV_ERROR;
        }
    } else if (!n->capture && !femu_capture_open(n, &local_err)) {
        error_report_err(local_err);
        status = NVME_INTERNAL_DEV_ERROR;
    }
    qemu_mutex_unlock(&n->ftl_lock);
    return status;
}
