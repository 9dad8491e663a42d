/*
 * FEMU: the modes of a namespace, one table each (FemuModeOps, femu.h):
 * the BlackBox SSD (femu_mode=1, FTL and NAND timing), NoSSD (2, no FTL,
 * no delays) and the Zoned Namespace SSD (3, zones over the NAND model,
 * zns.c).  Realize picks the table once; the I/O path (io.c), Identify
 * (admin.c), the log pages (log.c) and CAP.CSS (regs.c) ask it instead of
 * testing the mode.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/units.h"
#include "qemu/timer.h"
#include "femu.h"

/* Identify Controller MN of each mode (what nvme list shows) */
#define FEMU_MODEL_BBSSD    "FEMU BlackBox-SSD Controller"
#define FEMU_MODEL_NOSSD    "FEMU NoSSD Controller"
#define FEMU_MODEL_ZNS      "FEMU ZNS-SSD Controller"

/*
 * A BlackBox SSD namespace: a range of the controller's one FTL (made by
 * the first such namespace; femu_realize sized it for all of them).
 */
static bool femu_bbssd_realize(FemuCtrl *n, FemuNamespace *ns, Error **errp)
{
    char err[256];

    if (!n->ftl) {
        if (ftl_config_validate(&n->cfg, err, sizeof(err))) {
            error_setg(errp, "%s", err);
            return false;
        }
        n->ftl = ftl_new(&n->cfg, err, sizeof(err));
        if (!n->ftl) {
            error_setg(errp, "%s", err);
            return false;
        }
        n->ftl_used = 0;
        femu_powercut_init(n);
    }
    ns->ftl_base = n->ftl_used;
    ns->blocks = ns->size_mb ? (ns->size_mb * MiB) >> n->lba_shift
                             : ftl_ns_blocks(n->ftl);
    if (ns->blocks > ftl_ns_blocks(n->ftl) - n->ftl_used) {
        error_setg(errp, "namespace_sizes: namespace %u does not fit the "
                   "FTL (%" PRIu64 " blocks left)", ns->nsid,
                   ftl_ns_blocks(n->ftl) - n->ftl_used);
        return false;
    }
    n->ftl_used += ns->blocks;
    return true;
}

/* C0h of a BlackBox SSD: the FTL's counters */
static void femu_bbssd_log_c0(FemuCtrl *n, FemuNamespace *ns, FemuLogFtl *log)
{
    struct ftl_counters c = {};
    struct ftl_wear_info w = {};
    uint32_t waf;

    femu_ftl_lock_main(n);
    ftl_get_counters(n->ftl, &c);
    waf = ftl_waf_x1000(n->ftl);
    ftl_get_wear(n->ftl, &w);
    qemu_mutex_unlock(&n->ftl_lock);
    log->waf_x1000 = cpu_to_le32(waf);
    log->host_pages_written = cpu_to_le64(c.host_pages_written);
    log->gc_pages_moved = cpu_to_le64(c.gc_pages_moved);
    log->host_pages_programmed = cpu_to_le64(c.host_pages_programmed);
    log->cache_hits = cpu_to_le64(c.cache_hits);
    log->cache_misses = cpu_to_le64(c.cache_misses);
    log->trans_pages_read = cpu_to_le64(c.trans_pages_read);
    log->trans_pages_programmed = cpu_to_le64(c.trans_pages_programmed);
    log->map_cache_hits = cpu_to_le64(c.map_cache_hits);
    log->map_cache_misses = cpu_to_le64(c.map_cache_misses);
    log->merges_switch = cpu_to_le64(c.merges_switch);
    log->merges_partial = cpu_to_le64(c.merges_partial);
    log->merges_full = cpu_to_le64(c.merges_full);
    femu_log_c0_wear(log, &w, n->cfg.pe_cycles);
    log->wc_host_pages = cpu_to_le64(c.wc_host_pages);
    log->wc_write_hits = cpu_to_le64(c.wc_write_hits);
    log->wc_read_hits = cpu_to_le64(c.wc_read_hits);
    log->wc_destaged = cpu_to_le64(c.wc_destaged);
    log->wc_full_waits = cpu_to_le64(c.wc_full_waits);
    log->wc_flushes = cpu_to_le64(c.wc_flushes);
    log->wc_power_cuts = cpu_to_le64(c.wc_power_cuts);
    log->wc_lost_pages = cpu_to_le64(c.wc_lost_pages);
}

/* 0xEF codes 1-5 on the FTL (docs/controls.md) */
static void femu_bbssd_control(FemuCtrl *n, FemuNamespace *ns, uint32_t code)
{
    femu_ftl_lock_main(n);
    switch (code) {
    case FEMU_CTRL_GC_DELAY_ON:
    case FEMU_CTRL_GC_DELAY_OFF:
        ftl_set_gc_delay(n->ftl, code == FEMU_CTRL_GC_DELAY_ON);
        break;
    case FEMU_CTRL_DELAY_BUILTIN:
    case FEMU_CTRL_DELAY_OFF:
        ftl_set_delay_mode(n->ftl, femu_ctrl_delay_mode(code));
        break;
    case FEMU_CTRL_RESET_COUNTERS:
        ftl_reset_counters(n->ftl);
        break;
    }
    femu_capture(n, 0, FTL_IOTRACE_CONTROL, 0, 0, 0, code, get_clock(), 0);
    qemu_mutex_unlock(&n->ftl_lock);
}

/*
 * Namespace size for femu_mode=2: the FTL's geometry checks and sizing
 * rule, without an FTL.  With op_pcent unset the namespace need not fit
 * the NAND (nothing is stored in it): devsz_mb only has a bound of its
 * own.
 */
#define FEMU_NOSSD_MAX_DEVSZ_MB (64 * MiB)

static bool femu_nossd_realize(FemuCtrl *n, FemuNamespace *ns, Error **errp)
{
    struct ftl_config *c = &n->cfg;
    char err[256];

    if (ftl_config_check_geometry(c, err, sizeof(err))) {
        error_setg(errp, "%s", err);
        return false;
    }
    if (c->op_pcent < 0 &&
        (!c->devsz_mb || c->devsz_mb > FEMU_NOSSD_MAX_DEVSZ_MB)) {
        error_setg(errp, "devsz_mb=%" PRIu64 ": must be 1..%" PRIu64,
                   c->devsz_mb, (uint64_t)FEMU_NOSSD_MAX_DEVSZ_MB);
        return false;
    }
    ns->blocks = ns->size_mb ? (ns->size_mb * MiB) >> n->lba_shift
                             : ftl_cfg_ns_blocks(c);
    if (!ns->blocks) {
        error_setg(errp, "devsz_mb/op_pcent give an empty namespace");
        return false;
    }
    return true;
}

/*
 * DLFEAT (NVM Command Set 4.1.5.1): deallocated blocks read as zeroes
 * (bits 2:0 = 001b) and Write Zeroes may deallocate (bit 3).  A zoned
 * namespace takes deallocation as a hint (the data stays) and writes its
 * zeroes at the write pointer: nothing to report.
 */
#define FEMU_DLFEAT_ZEROES  (0x1 | (1 << 3))

static const FemuModeOps femu_modes[] = {
    {
        .mode = FEMU_MODE_BBSSD,
        .token = "bbssd",
        .model = FEMU_MODEL_BBSSD,
        .csi = NVME_CSI_NVM,
        .dlfeat = FEMU_DLFEAT_ZEROES,
        .realize = femu_bbssd_realize,
        .read = femu_io_read,
        .write = femu_io_write,
        .write_zeroes = femu_io_write_zeroes,
        .compare = femu_io_compare,
        .verify = femu_io_verify,
        .write_uncor = femu_io_write_uncor,
        .copy = femu_io_copy,
        .dulbe = true,
        .format = true,
        .dsm_deallocates = true,
        .uses_ftl = true,
        .log_c0 = femu_bbssd_log_c0,
        .control = femu_bbssd_control,
    },
    {
        .mode = FEMU_MODE_NOSSD,
        .token = "nossd",
        .model = FEMU_MODEL_NOSSD,
        .csi = NVME_CSI_NVM,
        .dlfeat = FEMU_DLFEAT_ZEROES,
        .realize = femu_nossd_realize,
        .read = femu_io_read,
        .write = femu_io_write,
        .write_zeroes = femu_io_write_zeroes,
        .compare = femu_io_compare,
        .verify = femu_io_verify,
        .write_uncor = femu_io_write_uncor,
        .copy = femu_io_copy,
        .dulbe = true,
        .format = true,
        .dsm_deallocates = true,
        .complete_inline = true,
    },
    {
        .mode = FEMU_MODE_ZNS,
        .token = "znssd",
        .model = FEMU_MODEL_ZNS,
        .csi = NVME_CSI_ZONED,
        .dlfeat = 0,
        .oaes = FEMU_OAES_ZDCN,
        .realize = femu_zns_realize,
        .read = femu_zns_read,
        .write = femu_zns_write_cmd,
        .write_zeroes = femu_zns_write_zeroes,
        .zone_append = femu_zns_append,
        .zone_mgmt_send = femu_zns_mgmt_send,
        .zone_mgmt_recv = femu_zns_mgmt_recv,
        .dsm_deallocates = false,
        .identify_ns_csi = femu_zns_identify_ns,
        .identify_ctrl_csi = femu_zns_identify_ctrl,
        .log_c0 = femu_zns_log_c0,
        .control = femu_zns_control,
    },
};

const FemuModeOps *femu_mode_ops(uint32_t mode)
{
    for (size_t i = 0; i < ARRAY_SIZE(femu_modes); i++) {
        if (femu_modes[i].mode == mode) {
            return &femu_modes[i];
        }
    }
    return NULL;
}

/* The table of FEMU upstream's namespace_modes token T, or NULL. */
const FemuModeOps *femu_mode_by_token(const char *t)
{
    for (size_t i = 0; i < ARRAY_SIZE(femu_modes); i++) {
        if (!strcmp(femu_modes[i].token, t)) {
            return &femu_modes[i];
        }
    }
    return NULL;
}
