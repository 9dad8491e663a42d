/*
 * FEMU: Zoned Namespace SSD (femu_mode=3).  The namespace belongs to the
 * Zoned Namespace Command Set (CSI 02h); its zones, write pointers and
 * NAND timing come from the FTL library's zone model (hw/femu/ftl/zone.c).
 * This file is the NVMe side: properties, Identify data for CSI 02h,
 * Zone Management Send/Receive, Zone Append and the zoned rules for the
 * NVM commands.  The model is owned under n->ftl_lock, like the FTL.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "femu.h"
#include "trace.h"

bool femu_is_zns(FemuCtrl *n)
{
    return femu_zns_ns(n) != NULL;
}

/* The controller's zoned namespace (one at most), or NULL. */
FemuNamespace *femu_zns_ns(FemuCtrl *n)
{
    for (uint32_t i = 0; i < n->nns; i++) {
        if (n->ns[i].zns) {
            return &n->ns[i];
        }
    }
    return NULL;
}

/* The ZRWA and descriptor extension properties (checks shared with
 * femu-sim: zns_check_zrwa_ext()). */
static bool femu_zns_check_ext(FemuCtrl *n, Error **errp)
{
    FemuParams *p = &n->params;
    char err[256];

    if (zns_check_zrwa_ext(p->zns_zrwa_size, p->zns_zrwafg_size,
                           p->zns_zrwa_num, p->zns_zd_ext_size, err,
                           sizeof(err)) < 0) {
        error_setg(errp, "%s", err);
        return false;
    }
    return true;
}

bool femu_zns_realize(FemuCtrl *n, FemuNamespace *ns, Error **errp)
{
    struct zns_config c;
    char err[256];

    zns_config_default(&c);
    c.nand = n->cfg;
    if (ns->size_mb) {
        /*
         * A namespace of its own size beside others: its zones take a
         * NAND slice of as many rows of blocks (one block per plane of
         * every LUN) as hold it, whole zones (a multiple of a zone's
         * blocks per plane)
         */
        uint64_t blk = (uint64_t)c.nand.pgs_per_blk * c.nand.secs_per_pg * 512;
        uint64_t row = blk * c.nand.nchs * c.nand.luns_per_ch *
                       c.nand.pls_per_lun;
        uint64_t k = 1, rows;

        if (c.zone_size_mb && c.zone_luns) {
            k = MAX(1, c.zone_size_mb * MiB /
                       (blk * c.zone_luns * c.nand.pls_per_lun));
        }
        rows = QEMU_ALIGN_UP(DIV_ROUND_UP(ns->size_mb * MiB, row), k);
        if (rows > c.nand.blks_per_pl) {
            error_setg(errp, "namespace_sizes: namespace %u (znssd) needs "
                       "%" PRIu64 " blocks per plane, blks_per_pl=%u",
                       ns->nsid, rows, c.nand.blks_per_pl);
            return false;
        }
        c.nand.blks_per_pl = rows;
    }
    c.zone_luns = n->params.zns_zone_luns;
    c.zone_size_mb = n->params.zns_zone_size_mb;
    c.zone_cap_mb = n->params.zns_zone_cap_mb;
    c.max_open = n->params.zns_max_open;
    c.max_active = n->params.zns_max_active;
    if (!femu_zns_check_ext(n, errp)) {
        return false;
    }
    c.zrwa_blocks = n->params.zns_zrwa_size;
    c.zrwafg_blocks = n->params.zns_zrwafg_size;
    c.zrwa_num = n->params.zns_zrwa_num;
    if (n->params.zns_zasl > n->params.mdts) {
        error_setg(errp, "zasl=%u: must be at most mdts=%u (0 = mdts)",
                   n->params.zns_zasl, n->params.mdts);
        return false;
    }
    ns->zns = zns_new(&c, err, sizeof(err));
    if (!ns->zns) {
        error_setg(errp, "%s", err);
        return false;
    }
    ns->blocks = zns_ns_blocks(ns->zns);
    if (ns->blocks > UINT32_MAX) {
        /* Zone Append returns the LBA in completion DW0 only */
        error_setg(errp, "femu_mode=3: %" PRIu64 " logical blocks; at most "
                   "2^32-1 (reduce blks_per_pl or raise secsz)",
                   ns->blocks);
        zns_free(ns->zns);
        ns->zns = NULL;
        return false;
    }
    if (n->params.zns_zd_ext_size) {
        ns->zd_ext = g_malloc0((size_t)zns_nr_zones(ns->zns) *
                               n->params.zns_zd_ext_size);
    }
    return true;
}

void femu_zns_unrealize(FemuNamespace *ns)
{
    zns_free(ns->zns);
    ns->zns = NULL;
    g_free(ns->zd_ext);
    ns->zd_ext = NULL;
}

/* Bytes a Zone Append may carry (ZASL, in CAP.MPSMIN = 4 KiB units). */
static uint64_t femu_zns_append_max(FemuCtrl *n)
{
    return n->params.zns_zasl ? (uint64_t)FEMU_PAGE_SIZE << n->params.zns_zasl
                       : n->max_xfer;
}

void femu_zns_identify_ctrl(FemuCtrl *n, uint8_t *buf)
{
    NvmeIdCtrlZoned *id = (NvmeIdCtrlZoned *)buf;

    id->zasl = n->params.zns_zasl;
}

void femu_zns_identify_ns(FemuCtrl *n, FemuNamespace *ns, uint8_t *buf)
{
    NvmeIdNsZoned *id = (NvmeIdNsZoned *)buf;
    uint64_t zsze = zns_zone_blocks(ns->zns);

    /* ZOC 0: fixed zone capacity, no zone active excursions (Linux binds
     * no namespace that needs either) */
    id->zoc = 0;
    /* reads may cross zone boundaries unless zns_cross_zone_read=off
     * (femu_zns_read refuses them then) */
    id->ozcs = cpu_to_le16(n->params.zns_cross_zone_read ?
                           NVME_ID_NS_ZONED_OZCS_RAZB : 0);
    /* 0's based; FFFFFFFFh: no limit */
    id->mar = cpu_to_le32(n->params.zns_max_active ?
                          n->params.zns_max_active - 1 : UINT32_MAX);
    id->mor = cpu_to_le32(n->params.zns_max_open ?
                          n->params.zns_max_open - 1 : UINT32_MAX);
    /* both LBA formats: the zone is the same bytes in either */
    id->lbafe[0].zsze = cpu_to_le64(zsze << n->lba_shift >> 9);
    id->lbafe[1].zsze = cpu_to_le64(zsze << n->lba_shift >> 12);
    /* descriptor extensions, 64-byte units */
    id->lbafe[0].zdes = n->params.zns_zd_ext_size / 64;
    id->lbafe[1].zdes = n->params.zns_zd_ext_size / 64;
    if (n->params.zns_zrwa_size) {
        /* Zone Random Write Area: NUMZRWA is 0's based; Commit Zone
         * (explicit ZRWA flush) is supported */
        id->ozcs |= cpu_to_le16(NVME_ID_NS_ZONED_OZCS_ZRWASUP);
        id->numzrwa = cpu_to_le32(n->params.zns_zrwa_num - 1);
        id->zrwafg = cpu_to_le16(n->params.zns_zrwafg_size);
        id->zrwas = cpu_to_le16(n->params.zns_zrwa_size);
        id->zrwacap = NVME_ID_NS_ZONED_ZRWACAP_EXPFLUSHSUP;
    }
}

static uint16_t femu_zns_status(enum zns_result r)
{
    /* the zoned model's outcomes as NVMe statuses; anything else: 02h */
    static const uint16_t status[] = {
        [ZNS_OK] = NVME_SUCCESS,
        [ZNS_ERR_LBA_RANGE] = NVME_LBA_RANGE | NVME_DNR,
        [ZNS_ERR_INVALID_FIELD] = NVME_INVALID_FIELD | NVME_DNR,
        [ZNS_ERR_BOUNDARY] = NVME_ZONE_BOUNDARY_ERROR | NVME_DNR,
        [ZNS_ERR_FULL] = NVME_ZONE_FULL | NVME_DNR,
        [ZNS_ERR_READ_ONLY] = NVME_ZONE_READ_ONLY | NVME_DNR,
        [ZNS_ERR_OFFLINE] = NVME_ZONE_OFFLINE | NVME_DNR,
        [ZNS_ERR_INVALID_WRITE] = NVME_ZONE_INVALID_WRITE | NVME_DNR,
        [ZNS_ERR_TOO_MANY_ACTIVE] = NVME_ZONE_TOO_MANY_ACTIVE | NVME_DNR,
        [ZNS_ERR_TOO_MANY_OPEN] = NVME_ZONE_TOO_MANY_OPEN | NVME_DNR,
        [ZNS_ERR_INVALID_TRANSITION] = NVME_ZONE_INVAL_TRANSITION | NVME_DNR,
        [ZNS_ERR_INVALID_ZONE_OP] = NVME_INVALID_ZONE_OP | NVME_DNR,
        [ZNS_ERR_NO_ZRWA] = NVME_NOZRWA | NVME_DNR,
    };

    return (unsigned)r < ARRAY_SIZE(status) ? status[r]
                                            : NVME_INVALID_FIELD | NVME_DNR;
}

/*
 * Write, Zone Append and Write Zeroes: all write at a write pointer.  The
 * checks, the data copy into the store and the write pointer move happen
 * under one hold of the lock, so two pollers never write the same blocks
 * and a refused write leaves the store alone.  The emulated time starts
 * once the data has arrived, as for the BlackBox SSD.
 */
uint16_t femu_zns_write(FemuCtrl *n, FemuReq *req, bool append, bool zeroes)
{
    FemuNamespace *ns = req->ns;
    NvmeRwCmd *rw = (NvmeRwCmd *)&req->cmd;
    uint64_t slba = le64_to_cpu(rw->slba);
    uint32_t nlb = (uint32_t)le16_to_cpu(rw->nlb) + 1;
    uint64_t len = (uint64_t)nlb << n->lba_shift;
    uint64_t start = 0, alba = 0, done;
    enum zns_result r;
    uint16_t status;

    if (!zeroes && len > n->max_xfer) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (append && len > femu_zns_append_max(n)) {
        /* larger than ZASL */
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (n->params.power_cut_after &&
        qatomic_fetch_inc(&n->pc_writes) == n->params.power_cut_after) {
        /* this write never executes: the power goes first */
        femu_power_cut(n, "power_cut_after", false);
        return NVME_SUCCESS;
    }
    femu_ftl_lock(n);
    r = zns_write_check(ns->zns, slba, nlb, append, &start);
    if (r) {
        qemu_mutex_unlock(&n->ftl_lock);
        FEMU_GUEST_ERR(femu_zns_write_refused, slba, nlb, append, r);
        return femu_zns_status(r);
    }
    if (zeroes) {
        femu_store_discard(&ns->store, start << n->lba_shift, len);
        status = NVME_SUCCESS;
    } else {
        status = femu_dma_cmd(n, &req->cmd,
                              ns->store.base + (start << n->lba_shift), len,
                              false);
        femu_store_mark(&ns->store, start << n->lba_shift, len);
    }
    if (status) {
        /* a transfer that failed part way may have copied some blocks:
         * they are above the write pointer, which must read zeroes */
        femu_store_discard(&ns->store, start << n->lba_shift, len);
        qemu_mutex_unlock(&n->ftl_lock);
        return status;
    }
    req->due_ns = get_clock();
    r = zns_write(ns->zns, slba, nlb, append, req->due_ns, &alba, &done);
    if (!r && (le16_to_cpu(rw->control) & NVME_RW_FUA)) {
        /* Force Unit Access: the data on NAND, past the write cache */
        done = MAX(done, zns_wcache_zone_flush(ns->zns,
                                               start / zns_zone_blocks(ns->zns),
                                               req->due_ns));
    }
    qemu_mutex_unlock(&n->ftl_lock);
    if (r) {
        return femu_zns_status(r);   /* not reached: checked above */
    }
    req->due_ns = done;
    if (append) {
        req->result = (uint32_t)alba;
    }
    /* the namespace's SMART page too (several namespaces) */
    femu_count_io(n, req->ns, true, zeroes ? 0 : len);
    trace_femu_zns_write(slba, nlb, alba, append, zeroes);
    return NVME_SUCCESS;
}

uint16_t femu_zns_write_cmd(FemuCtrl *n, FemuReq *req)
{
    return femu_zns_write(n, req, false, false);
}

uint16_t femu_zns_append(FemuCtrl *n, FemuReq *req)
{
    return femu_zns_write(n, req, true, false);
}

/* Write Zeroes on a zoned namespace: zeroes written at the write pointer */
uint16_t femu_zns_write_zeroes(FemuCtrl *n, FemuReq *req)
{
    return femu_zns_write(n, req, false, true);
}

/* C0h: the zone model's counters; no device-side GC, nothing moved; the
 * wear of the zones (retired lines: zones worn out, no spare lines) */
void femu_zns_log_c0(FemuCtrl *n, FemuNamespace *ns, FemuLogFtl *log)
{
    struct zns_counters z = {};
    struct ftl_wear_info w = {};
    uint32_t waf;

    femu_ftl_lock_main(n);
    zns_get_counters(ns->zns, &z);
    waf = zns_waf_x1000(ns->zns);
    zns_get_wear(ns->zns, &w);
    qemu_mutex_unlock(&n->ftl_lock);
    log->waf_x1000 = cpu_to_le32(waf);
    log->host_pages_written = cpu_to_le64(z.host_pages_written);
    log->host_pages_programmed = cpu_to_le64(z.host_pages_programmed);
    log->zone_resets = cpu_to_le64(z.zone_resets);
    log->blocks_erased = cpu_to_le64(z.blocks_erased);
    femu_log_c0_wear(log, &w, n->cfg.pe_cycles);
}

uint16_t femu_zns_read(FemuCtrl *n, FemuReq *req)
{
    FemuNamespace *ns = req->ns;
    NvmeRwCmd *rw = (NvmeRwCmd *)&req->cmd;
    uint64_t slba = le64_to_cpu(rw->slba);
    uint32_t nlb = (uint32_t)le16_to_cpu(rw->nlb) + 1;
    uint64_t len = (uint64_t)nlb << n->lba_shift, done;
    enum zns_result r;
    uint16_t status;

    if (len > n->max_xfer) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    /* ZNS Command Set 1.1, 3.4.1: without Read Across Zone Boundaries
     * (OZCS.RAZB clear) such a read fails with Zone Boundary Error */
    if (!n->params.zns_cross_zone_read && slba < ns->blocks &&
        slba / zns_zone_blocks(ns->zns) !=
        (slba + nlb - 1) / zns_zone_blocks(ns->zns)) {
        return NVME_ZONE_BOUNDARY_ERROR | NVME_DNR;
    }
    femu_ftl_lock(n);
    r = zns_read(ns->zns, slba, nlb, req->due_ns, &done);
    qemu_mutex_unlock(&n->ftl_lock);
    if (r) {
        return femu_zns_status(r);
    }
    /* above a write pointer the store holds zeroes: resets discard */
    status = femu_dma_cmd(n, &req->cmd, ns->store.base + (slba << n->lba_shift),
                          len, true);
    if (status) {
        return status;
    }
    req->due_ns = done;
    femu_count_io(n, req->ns, false, len);
    return NVME_SUCCESS;
}

static bool femu_zns_has_data(FemuNamespace *ns, uint32_t zone)
{
    struct zns_zone_info zi;

    zns_zone_info(ns->zns, zone, &zi);
    switch (zi.state) {
    case ZNS_IMPLICIT_OPEN:
    case ZNS_EXPLICIT_OPEN:
    case ZNS_CLOSED:
    case ZNS_FULL:
        return true;
    default:
        return false;
    }
}

/* A reset zone's descriptor extension is gone (ZDEV cleared). */
static void femu_zns_ext_clear(FemuCtrl *n, FemuNamespace *ns, uint32_t zone)
{
    if (ns->zd_ext) {
        memset(ns->zd_ext + (size_t)zone * n->params.zns_zd_ext_size, 0,
               n->params.zns_zd_ext_size);
    }
}

/*
 * Set Zone Descriptor Extension (ZSA 10h): the extension's bytes come
 * from the host; an Empty zone becomes Closed with ZDEV set.  Without
 * extensions (zns_zd_ext_size=0) or with Select All: Invalid Field.
 */
static uint16_t femu_zns_set_zd_ext(FemuCtrl *n, FemuReq *req,
                                    uint64_t slba, uint32_t zone)
{
    FemuNamespace *ns = req->ns;
    uint32_t sz = n->params.zns_zd_ext_size;
    g_autofree uint8_t *buf = g_malloc0(sz);
    enum zns_result r;
    uint16_t status;

    status = femu_dma_cmd(n, &req->cmd, buf, sz, false);
    if (status) {
        return status;
    }
    femu_ftl_lock(n);
    r = zns_zone_set_zdext(ns->zns, zone);
    if (r == ZNS_OK) {
        memcpy(ns->zd_ext + (size_t)zone * sz, buf, sz);
    }
    qemu_mutex_unlock(&n->ftl_lock);
    trace_femu_zns_mgmt_send(slba, NVME_ZONE_ACTION_SET_ZD_EXT, false, r);
    return femu_zns_status(r);
}

/*
 * Reset with Select All, one step: from zone req->step on, every zone
 * that holds data (Implicitly or Explicitly Opened, Closed, Full: the
 * ones Select All resets) is reset and its data leaves the store, up to
 * FEMU_ZNS_STEP_BYTES of such zones or FEMU_ZNS_STEP_ZONES zones looked
 * at.  FEMU_REQ_MORE while zones are left: the poller runs the next step
 * after letting its lock go, as this one lets ftl_lock go.  Each zone's
 * erases start at the command's arrival; it completes when the last
 * ends.
 */
static uint16_t femu_zns_reset_all_step(FemuCtrl *n, FemuReq *req)
{
    FemuNamespace *ns = req->ns;
    uint64_t zsze = zns_zone_blocks(ns->zns);
    uint64_t zbytes = zsze << n->lba_shift;
    uint32_t nz = zns_nr_zones(ns->zns), first = req->step, i, reset = 0;
    uint32_t max = MAX(1, FEMU_ZNS_STEP_BYTES / zbytes);

    femu_ftl_lock(n);
    for (i = first; i < nz && reset < max && i - first < FEMU_ZNS_STEP_ZONES;
         i++) {
        uint64_t done;

        if (!femu_zns_has_data(ns, i)) {
            continue;
        }
        if (zns_zone_action(ns->zns, i, false, ZNS_ACT_RESET, req->arrival_ns,
                            &done) == ZNS_OK) {
            femu_store_discard(&ns->store, (i * zsze) << n->lba_shift, zbytes);
            femu_zns_ext_clear(n, ns, i);
            req->due_ns = MAX(req->due_ns, (int64_t)done);
        }
        reset++;
    }
    /* a zone reset may have worn a zone out (SMART, events.c) */
    femu_wear_note(n);
    qemu_mutex_unlock(&n->ftl_lock);
    trace_femu_zns_reset_step(first, i, reset);
    req->step = i;
    if (i < nz) {
        return FEMU_REQ_MORE;
    }
    trace_femu_zns_mgmt_send(0, NVME_ZONE_ACTION_RESET, true, ZNS_OK);
    return NVME_SUCCESS;
}

/* Zone Management Send (ZNS Command Set 3.4.3). */
uint16_t femu_zns_mgmt_send(FemuCtrl *n, FemuReq *req)
{
    FemuNamespace *ns = req->ns;
    NvmeCmd *cmd = &req->cmd;
    uint64_t slba = (uint64_t)le32_to_cpu(cmd->cdw11) << 32 |
                    le32_to_cpu(cmd->cdw10);
    NvmeZoneSendCmd *zc = (NvmeZoneSendCmd *)cmd;
    uint8_t zsa = zc->zsa;
    bool all = zc->zsflags & NVME_ZSFLAG_SELECT_ALL;
    bool zrwaa = zc->zsflags & NVME_ZSFLAG_ZRWA_ALLOC;
    uint64_t zsze = zns_zone_blocks(ns->zns), done = req->due_ns;
    uint32_t zone = 0;
    bool had = false;
    enum zns_result r;

    if (zsa == NVME_ZONE_ACTION_ZRWA_FLUSH) {
        /* Commit Zone: SLBA is the last block committed, anywhere in
         * the zone's ZRWA; no Select All */
        if (all) {
            FEMU_GUEST_ERR(femu_zns_send_bad, slba, zsa, all);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        femu_ftl_lock(n);
        r = zns_zrwa_commit(ns->zns, slba, req->due_ns, &done);
        qemu_mutex_unlock(&n->ftl_lock);
        trace_femu_zns_mgmt_send(slba, zsa, all, r);
        if (r) {
            return femu_zns_status(r);
        }
        req->due_ns = done;
        return NVME_SUCCESS;
    }
    if (zsa == NVME_ZONE_ACTION_SET_ZD_EXT) {
        if (!n->params.zns_zd_ext_size || all) {
            /* no extensions (ZDES 0), or Select All */
            FEMU_GUEST_ERR(femu_zns_send_bad, slba, zsa, all);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
    } else if (zsa < NVME_ZONE_ACTION_CLOSE ||
               zsa > NVME_ZONE_ACTION_OFFLINE ||
               (zrwaa && zsa == NVME_ZONE_ACTION_OPEN && all)) {
        /* a ZRWA is allocated to one zone at a time */
        FEMU_GUEST_ERR(femu_zns_send_bad, slba, zsa, all);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (!all) {
        if (slba >= ns->blocks) {
            return NVME_LBA_RANGE | NVME_DNR;
        }
        if (slba % zsze) {
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        zone = slba / zsze;
    } else if (zsa == NVME_ZONE_ACTION_RESET) {
        return femu_zns_reset_all_step(n, req);
    }
    if (zsa == NVME_ZONE_ACTION_SET_ZD_EXT) {
        return femu_zns_set_zd_ext(n, req, slba, zone);
    }
    femu_ftl_lock(n);
    /* a reset that empties the zone takes its data from the store */
    had = !all && zsa == NVME_ZONE_ACTION_RESET && femu_zns_has_data(ns, zone);
    if (zrwaa && zsa == NVME_ZONE_ACTION_OPEN) {
        r = zns_zone_open_zrwa(ns->zns, zone);
    } else {
        r = zns_zone_action(ns->zns, zone, all, (enum zns_action)zsa,
                            req->due_ns, &done);
    }
    if (had && !femu_zns_has_data(ns, zone)) {
        femu_store_discard(&ns->store, (zone * zsze) << n->lba_shift,
                           zsze << n->lba_shift);
        femu_zns_ext_clear(n, ns, zone);
    }
    femu_wear_note(n);
    qemu_mutex_unlock(&n->ftl_lock);
    trace_femu_zns_mgmt_send(slba, zsa, all, r);
    if (r) {
        return femu_zns_status(r);
    }
    req->due_ns = done;
    return NVME_SUCCESS;
}

/* Does a report with filter zrasf include a zone in state s? */
static bool femu_zns_report_match(uint8_t zrasf, enum zns_state s)
{
    switch (zrasf) {
    case NVME_ZONE_REPORT_ALL:
        return true;
    case NVME_ZONE_REPORT_EMPTY:
        return s == ZNS_EMPTY;
    case NVME_ZONE_REPORT_IMPLICITLY_OPEN:
        return s == ZNS_IMPLICIT_OPEN;
    case NVME_ZONE_REPORT_EXPLICITLY_OPEN:
        return s == ZNS_EXPLICIT_OPEN;
    case NVME_ZONE_REPORT_CLOSED:
        return s == ZNS_CLOSED;
    case NVME_ZONE_REPORT_FULL:
        return s == ZNS_FULL;
    case NVME_ZONE_REPORT_READ_ONLY:
        return s == ZNS_READ_ONLY;
    case NVME_ZONE_REPORT_OFFLINE:
        return s == ZNS_OFFLINE;
    default:
        return false;
    }
}

/*
 * Zone Management Receive, Report Zones (ZNS Command Set 3.4.2): zones
 * from the one holding SLBA on, those the filter selects; the header
 * counts all of them, or with Partial Report those in the buffer.
 */
uint16_t femu_zns_mgmt_recv(FemuCtrl *n, FemuReq *req)
{
    FemuNamespace *ns = req->ns;
    NvmeCmd *cmd = &req->cmd;
    uint64_t slba = (uint64_t)le32_to_cpu(cmd->cdw11) << 32 |
                    le32_to_cpu(cmd->cdw10);
    uint64_t len = ((uint64_t)le32_to_cpu(cmd->cdw12) + 1) * 4;
    uint32_t dw13 = le32_to_cpu(cmd->cdw13);
    uint8_t zra = dw13 & 0xff, zrasf = (dw13 >> 8) & 0xff;
    bool partial = (dw13 >> 16) & 1;
    uint64_t zsze = zns_zone_blocks(ns->zns), nr = 0, max_descs;
    uint32_t nz = zns_nr_zones(ns->zns), ext = n->params.zns_zd_ext_size;
    bool extended = zra == NVME_ZONE_REPORT_EXTENDED;
    uint64_t entry = sizeof(NvmeZoneDescr) + (extended ? ext : 0);
    g_autofree uint8_t *buf = NULL;
    uint16_t status;

    if (extended && !ext) {
        /* no zone descriptor extensions (ZDES 0) */
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if ((zra != NVME_ZONE_REPORT && !extended) ||
        zrasf > NVME_ZONE_REPORT_OFFLINE) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (slba >= ns->blocks) {
        return NVME_LBA_RANGE | NVME_DNR;
    }
    if (len < sizeof(NvmeZoneReportHeader) || len > n->max_xfer) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    buf = g_malloc0(len);
    max_descs = (len - sizeof(NvmeZoneReportHeader)) / entry;
    femu_ftl_lock(n);
    for (uint32_t i = slba / zsze; i < nz; i++) {
        struct zns_zone_info zi;

        zns_zone_info(ns->zns, i, &zi);
        if (!femu_zns_report_match(zrasf, zi.state)) {
            continue;
        }
        if (nr < max_descs) {
            uint8_t *e = buf + sizeof(NvmeZoneReportHeader) + nr * entry;
            NvmeZoneDescr *d = (NvmeZoneDescr *)e;

            d->zt = NVME_ZONE_TYPE_SEQ_WRITE;
            d->zs = zi.state << 4;
            d->za = (zi.zrwa ? NVME_ZA_ZRWA_VALID : 0) |
                    (zi.zdev ? NVME_ZA_ZD_EXT_VALID : 0);
            d->zcap = cpu_to_le64(zi.zcap);
            d->zslba = cpu_to_le64(zi.zslba);
            d->wp = cpu_to_le64(zi.wp);
            if (extended && zi.zdev) {
                /* the extension follows its descriptor */
                memcpy(e + sizeof(NvmeZoneDescr),
                       ns->zd_ext + (size_t)i * ext, ext);
            }
        } else if (partial) {
            break;
        }
        nr++;
    }
    qemu_mutex_unlock(&n->ftl_lock);
    ((NvmeZoneReportHeader *)buf)->nr_zones = cpu_to_le64(nr);
    status = femu_dma_cmd(n, cmd, buf, len, true);
    trace_femu_zns_report(slba, zrasf, partial, nr);
    return status;
}

void femu_zns_control(FemuCtrl *n, FemuNamespace *ns, uint32_t code)
{
    femu_ftl_lock_main(n);
    switch (code) {
    case FEMU_CTRL_DELAY_BUILTIN:
    case FEMU_CTRL_DELAY_OFF:
        zns_set_delay_mode(ns->zns, femu_ctrl_delay_mode(code));
        break;
    case FEMU_CTRL_RESET_COUNTERS:
        zns_reset_counters(ns->zns);
        break;
    default:
        break;      /* GC delay on/off: no GC to time */
    }
    qemu_mutex_unlock(&n->ftl_lock);
}

/*
 * Changed Zone List (ZNS Command Set 1.1, 5.3.1): the zones that had a
 * Zone Descriptor Changed event since the list was last read with RAE
 * cleared.  Only the failure control below makes such events: FEMU never
 * changes a zone by itself, so the list is normally empty.
 */
void femu_zns_log_changed(FemuCtrl *n, uint8_t *buf)
{
    FemuNamespace *ns = femu_zns_ns(n);
    uint32_t ids[ZNS_CHANGED_ZONES_MAX];
    uint64_t zsze = zns_zone_blocks(ns->zns);
    uint32_t nr;

    femu_ftl_lock_main(n);
    nr = zns_changed_zones(ns->zns, ids, ZNS_CHANGED_ZONES_MAX);
    qemu_mutex_unlock(&n->ftl_lock);
    if (nr > ZNS_CHANGED_ZONES_MAX) {
        /* too many to list: the host reports the zones to find them */
        stw_le_p(buf, 0xffff);
        return;
    }
    stw_le_p(buf, nr);
    for (uint32_t i = 0; i < nr; i++) {
        stq_le_p(buf + 8 + 8 * i, (uint64_t)ids[i] * zsze);
    }
}

/*
 * A read of the list with RAE cleared acknowledges what it transferred:
 * the zone identifiers it carried whole leave the list, the others stay
 * in order (a read from an offset, or shorter than the page, takes only
 * its part).  A list that overflowed (Number of Zone Identifiers FFFFh)
 * names no zone: a read of that field clears it.  The notice is
 * acknowledged too; if zones are left, a new one tells the host so.
 */
void femu_zns_changed_read(FemuCtrl *n, uint64_t off, uint64_t len)
{
    FemuNamespace *ns = femu_zns_ns(n);
    uint64_t end = off + len;
    uint32_t nr, first, last, left;
    bool notice;

    femu_ftl_lock_main(n);
    nr = zns_changed_zones(ns->zns, NULL, 0);
    if (nr > ZNS_CHANGED_ZONES_MAX) {
        if (off == 0 && len >= 2) {
            zns_changed_clear(ns->zns);
        }
        first = last = 0;
    } else {
        /* identifier i is bytes 8 + 8 i .. 15 + 8 i of the page */
        first = off <= 8 ? 0 : (off - 8 + 7) / 8;
        last = MIN(end, 8 + 8 * (uint64_t)nr) < 16 ? 0 :
               (MIN(end, 8 + 8 * (uint64_t)nr) - 8) / 8;
        if (last > first) {
            zns_changed_consume(ns->zns, first, last - first);
        }
    }
    left = zns_changed_zones(ns->zns, NULL, 0);
    qemu_mutex_unlock(&n->ftl_lock);
    notice = left && FEMU_AEC_ZDCN(n->feat.async_config);
    n->zdc_notice = notice;
    if (notice) {
        femu_aer_event(n, NVME_AER_TYPE_NOTICE,
                       FEMU_AER_INFO_ZONE_DESCR_CHANGED,
                       FEMU_LOG_CHANGED_ZONES);
    }
    trace_femu_zns_changed_read(off, len, nr - left, left, notice);
}

void femu_zns_changed_notice(FemuCtrl *n)
{
    FemuNamespace *ns = femu_zns_ns(n);
    uint32_t nr;

    if (!ns || n->zdc_notice || !FEMU_AEC_ZDCN(n->feat.async_config)) {
        return;
    }
    femu_ftl_lock_main(n);
    nr = zns_changed_zones(ns->zns, NULL, 0);
    qemu_mutex_unlock(&n->ftl_lock);
    if (nr) {
        n->zdc_notice = true;
        femu_aer_event(n, NVME_AER_TYPE_NOTICE,
                       FEMU_AER_INFO_ZONE_DESCR_CHANGED,
                       FEMU_LOG_CHANGED_ZONES);
    }
}

/*
 * 0xEF code 9, CDW11 = zone number, CDW12 = 0 Read Only, 1 Offline: the
 * zone fails as worn-out media would (a controller-initiated transition).
 * An Offline zone's data is gone.  A change raises the Zone Descriptor
 * Changed notice when the host enabled it (Asynchronous Event
 * Configuration bit 27) and no such notice is waiting for the host to
 * read the list: a change while the notice was disabled does not keep
 * the later ones from raising it.
 */
uint16_t femu_zns_fail_zone(FemuCtrl *n, NvmeCmd *cmd)
{
    FemuNamespace *ns = femu_zns_ns(n);
    uint32_t zone = le32_to_cpu(cmd->cdw11);
    uint32_t how = le32_to_cpu(cmd->cdw12);
    uint64_t zsze;
    bool changed, notice;

    if (!femu_is_zns(n) || zone >= zns_nr_zones(ns->zns) || how > 1) {
        FEMU_GUEST_ERR(femu_zns_fail_zone_bad, femu_is_zns(n), zone, how);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    zsze = zns_zone_blocks(ns->zns);
    femu_ftl_lock_main(n);
    if (how) {
        changed = zns_zone_set_offline(ns->zns, zone);
        femu_store_discard(&ns->store, (zone * zsze) << n->lba_shift,
                           zsze << n->lba_shift);
    } else {
        changed = zns_zone_set_read_only(ns->zns, zone);
    }
    qemu_mutex_unlock(&n->ftl_lock);
    notice = changed && !n->zdc_notice &&
             FEMU_AEC_ZDCN(n->feat.async_config);
    trace_femu_zns_fail_zone(zone, how, changed, notice);
    if (notice) {
        n->zdc_notice = true;
        femu_aer_event(n, NVME_AER_TYPE_NOTICE,
                       FEMU_AER_INFO_ZONE_DESCR_CHANGED,
                       FEMU_LOG_CHANGED_ZONES);
    }
    return NVME_SUCCESS;
}
