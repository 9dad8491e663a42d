/*
 * FEMU: Format NVM (NVMe 2.0 5.23) on BlackBox and NoSSD namespaces.
 *
 * Every namespace of a controller has the same logical block size
 * (FemuCtrl.lba_shift) and BlackBox namespaces share one FTL, so a
 * format applies to all of them (Identify FNA bits 0 and 1 with several
 * namespaces): their data, Write Uncorrectable state and FTL ranges are
 * erased.  A format to the other LBA format (512 B <-> 4 KiB) makes the
 * FTL and the stores again for the new block size, as realize made them;
 * the same format (or a User Data Erase, SES 1) deallocates every block
 * in the existing FTL, whose counters (C0h) go on.
 *
 * Runs in the main loop with every poller's lock and then ftl_lock held:
 * no I/O command executes meanwhile.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/timer.h"
#include "femu.h"
#include "trace.h"

/* FTL blocks one deallocate record of an I/O trace covers at most */
#define FEMU_FORMAT_STEP_BLOCKS (1u << 30)

/* A format is possible when every namespace's mode has it. */
bool femu_format_supported(FemuCtrl *n)
{
    for (uint32_t i = 0; i < n->nns; i++) {
        if (!n->ns[i].mode->format) {
            return false;
        }
    }
    return n->nns > 0;
}

/* Erase one namespace in place: data, Write Uncorrectable state, FTL. */
static void femu_format_erase(FemuCtrl *n, FemuNamespace *ns, int64_t now)
{
    femu_store_discard(&ns->store, 0, ns->store.size);
    g_free(ns->uncor);
    ns->uncor = NULL;
    if (!ns->mode->uses_ftl) {
        return;
    }
    for (uint64_t s = 0; s < ns->blocks; s += FEMU_FORMAT_STEP_BLOCKS) {
        uint32_t nlb = MIN(ns->blocks - s, FEMU_FORMAT_STEP_BLOCKS);

        ftl_trim(n->ftl, ns->ftl_base + s, nlb);
        femu_capture(n, ns->nsid, FTL_IOTRACE_DEALLOC, 0, ns->ftl_base + s,
                     nlb, 0, now, 0);
    }
}

/*
 * Make the FTL and the stores again for logical blocks of secsz bytes,
 * as realize made them.  The old ones stay until the new ones are made:
 * on a failure (not expected: the caller checked the configuration)
 * they are put back and nothing has changed.
 */
static bool femu_format_resize(FemuCtrl *n, uint32_t secsz, Error **errp)
{
    struct ftl *old_ftl = n->ftl;
    uint64_t old_used = n->ftl_used;
    uint32_t old_secsz = n->cfg.secsz;
    FemuNamespace old[FEMU_MAX_NAMESPACES];
    uint32_t i;

    memcpy(old, n->ns, sizeof(old));
    n->cfg.secsz = secsz;
    n->lba_shift = ctz32(secsz);
    n->ftl = NULL;
    n->ftl_used = 0;
    for (i = 0; i < n->nns; i++) {
        FemuNamespace *ns = &n->ns[i];

        memset(&ns->store, 0, sizeof(ns->store));
        ns->uncor = NULL;
        if (!ns->mode->realize(n, ns, errp) ||
            femu_store_init(&ns->store, ns->blocks << n->lba_shift, errp)) {
            break;
        }
    }
    if (i < n->nns) {
        /* the new namespaces 0..i (i's store may be missing) go */
        for (uint32_t j = 0; j <= i; j++) {
            femu_store_fini(&n->ns[j].store);
        }
        if (n->ftl) {
            ftl_free(n->ftl);
        }
        memcpy(n->ns, old, sizeof(old));
        n->ftl = old_ftl;
        n->ftl_used = old_used;
        n->cfg.secsz = old_secsz;
        n->lba_shift = ctz32(old_secsz);
        return false;
    }
    for (i = 0; i < n->nns; i++) {
        femu_store_fini(&old[i].store);
        g_free(old[i].uncor);
    }
    if (old_ftl) {
        ftl_free(old_ftl);
    }
    return true;
}

uint16_t femu_format(FemuCtrl *n, NvmeCmd *cmd)
{
    uint32_t dw10 = le32_to_cpu(cmd->cdw10);
    uint32_t nsid = le32_to_cpu(cmd->nsid);
    uint32_t lbaf = (dw10 & 0xf) | ((dw10 >> 12) & 0x3) << 4;
    uint32_t pi = (dw10 >> 5) & 0x7;
    uint32_t ses = (dw10 >> 9) & 0x7;
    uint32_t secsz = lbaf ? 4096 : 512;
    uint32_t old = n->cfg.secsz;
    bool uses_ftl = false;
    struct ftl_config cfg;
    Error *err = NULL;
    char msg[256];

    if (nsid != NVME_NSID_BROADCAST && !femu_ns(n, nsid)) {
        FEMU_GUEST_ERR(femu_format_bad_nsid, nsid);
        return NVME_INVALID_NSID | NVME_DNR;
    }
    /* two formats (NLBAF 1), neither with metadata or protection */
    if (lbaf > 1 || pi) {
        FEMU_GUEST_ERR(femu_format_bad_format, lbaf, pi);
        return NVME_INVALID_FORMAT | NVME_DNR;
    }
    /* no Cryptographic Erase (FNA bit 2 = 0) */
    if (ses > 1) {
        FEMU_GUEST_ERR(femu_format_bad_ses, ses);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    for (uint32_t i = 0; i < n->nns; i++) {
        uses_ftl |= n->ns[i].mode->uses_ftl;
    }
    if (secsz != old) {
        /*
         * A state file or an I/O trace was made for the start-up block
         * size, and FDP's reclaim units live in the FTL: the LBA size
         * stays with them.  The geometry must hold whole blocks of the
         * new size.
         */
        cfg = n->cfg;
        cfg.secsz = secsz;
        if (n->params.state_path || n->params.io_trace_path || n->fdp ||
            n->params.ns_mgmt) {
            /* ns_mgmt: created namespaces hold FTL ranges in blocks of
             * the start-up size */
            FEMU_GUEST_ERR(femu_format_size_fixed, lbaf,
                           "state=, io_trace=, FDP or ns_mgmt in use");
            return NVME_INVALID_FORMAT | NVME_DNR;
        }
        if ((uses_ftl ? ftl_config_validate(&cfg, msg, sizeof(msg)) :
             ftl_config_check_geometry(&cfg, msg, sizeof(msg)))) {
            FEMU_GUEST_ERR(femu_format_size_fixed, lbaf, msg);
            return NVME_INVALID_FORMAT | NVME_DNR;
        }
    }
    femu_pollers_lock_all(n);
    femu_ftl_lock_main(n);
    if (secsz == old) {
        for (uint32_t i = 0; i < n->nns; i++) {
            femu_format_erase(n, &n->ns[i], get_clock());
        }
    } else if (!femu_format_resize(n, secsz, &err)) {
        /* not expected (checked above): nothing changed */
        trace_femu_format_failed(error_get_pretty(err));
        error_free(err);
        qemu_mutex_unlock(&n->ftl_lock);
        femu_pollers_unlock_all(n);
        return NVME_INTERNAL_DEV_ERROR;
    }
    trace_femu_format(nsid, lbaf, ses, secsz != old);
    /* a new FTL (the other LBA format) has its spare back: writable
     * again, and its wear warnings may set (and raise events) anew */
    qatomic_set(&n->media_ro, n->ftl && ftl_read_only(n->ftl));
    qemu_mutex_unlock(&n->ftl_lock);
    femu_pollers_unlock_all(n);
    femu_smart_events_arm(n);
    if (secsz != old) {
        /* a new FTL: its counters per namespace (ns.c) */
        femu_ns_ranges(n);
    }
    return NVME_SUCCESS;
}
