/*
 * FEMU: Get Log Page (NVMe 2.0 base spec 5.16).
 *
 * Pages: 01h error information, 02h SMART / health, 03h firmware slot,
 * 05h commands supported and effects, 09h endurance group information
 * (with FDP's endurance group), the vendor pages C0h (FTL
 * counters) and C1h (completion lateness), laid out in
 * include/hw/femu/femu-abi.h and described in docs/log-pages.md, BFh
 * changed zone list (femu_mode=3, CSI 02h, zns.c) and the FDP pages
 * 20h-23h through fdp.c.  Offsets (LPO) and partial reads work on every
 * page.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "femu.h"
#include "trace.h"

/*
 * C0h's ns_ fields: BlackBox namespace ns's share of the FTL's host
 * pages written and GC pages moved (hw/femu/ftl/nsctr.c, ranges set by
 * femu_ns_ranges), or with ns NULL the device's totals: the FTL's own
 * counters, which the namespaces' add up to.
 */
static void femu_log_c0_ns(FemuCtrl *n, FemuNamespace *ns, FemuLogFtl *log)
{
    struct ftl_ns_counters c = {};
    struct ftl_counters t = {};

    log->ns_nsid = cpu_to_le32(ns ? ns->nsid : NVME_NSID_BROADCAST);
    if (!n->ftl || (ns && ns->nsctr < 0)) {
        return;
    }
    femu_ftl_lock_main(n);
    if (ns) {
        ftl_get_ns_counters(n->ftl, ns->nsctr, &c);
    } else {
        ftl_get_counters(n->ftl, &t);
        c.host_pages_written = t.host_pages_written;
        c.gc_pages_moved = t.gc_pages_moved;
    }
    qemu_mutex_unlock(&n->ftl_lock);
    log->ns_host_pages_written = cpu_to_le64(c.host_pages_written);
    log->ns_gc_pages_moved = cpu_to_le64(c.gc_pages_moved);
}

/* C0h's wear fields (bytes 120-167) from an FTL's or a zone model's wear */
void femu_log_c0_wear(FemuLogFtl *log, const struct ftl_wear_info *w,
                      uint32_t pe_cycles)
{
    log->erase_count_min = cpu_to_le32(w->erase_min);
    log->erase_count_max = cpu_to_le32(w->erase_max);
    log->erase_count_mean_x1000 =
        cpu_to_le64((uint64_t)(w->erase_mean * 1000 + 0.5));
    log->pe_cycles = cpu_to_le32(pe_cycles);
    log->factory_bad_blocks = cpu_to_le32(w->factory_bad_blocks);
    log->grown_bad_blocks = cpu_to_le32(w->grown_bad_blocks);
    log->spare_lines = cpu_to_le32(w->spare_lines);
    log->retired_lines = cpu_to_le32(w->retired_lines);
    log->percentage_used = w->pct_used;
    log->available_spare = w->spare_pcent;
    log->read_only = w->read_only;
    log->wl_lines_moved = cpu_to_le64(w->wl_lines_moved);
}

/*
 * C0h: the namespace's mode fills in its counters (the FTL's are the
 * whole FTL's, which every BlackBox namespace shares); NSID 0 or
 * FFFFFFFFh: namespace 1's.  NoSSD: WAF 1000, all 0.  Then the ns_
 * fields: that namespace's, or with NSID 0 or FFFFFFFFh the device's.
 */
static void femu_log_c0(FemuCtrl *n, FemuNamespace *ns, FemuLogFtl *log)
{
    FemuNamespace *m = ns ? ns : &n->ns[0];

    log->waf_x1000 = cpu_to_le32(1000);
    if (m->mode->log_c0) {
        m->mode->log_c0(n, m, log);
    }
    femu_log_c0_ns(n, ns, log);
}

/*
 * Completion lateness histograms (C1h): the pollers record into them
 * (femu_lat_record), this page reads them.
 */
/* Histogram bucket of a lateness (log-linear, see FEMU_LAT_BUCKETS). */
static int femu_lat_bucket(uint64_t ns)
{
    int e;

    if (ns < FEMU_LAT_SUB) {
        return ns;
    }
    e = 63 - clz64(ns);
    if (e >= FEMU_LAT_MAX_BITS) {
        return FEMU_LAT_BUCKETS - 1;
    }
    return FEMU_LAT_SUB + (e - FEMU_LAT_SUB_BITS) * FEMU_LAT_SUB +
           ((ns >> (e - FEMU_LAT_SUB_BITS)) & (FEMU_LAT_SUB - 1));
}

/* Smallest lateness that falls into bucket b. */
static uint64_t femu_lat_bucket_low(int b)
{
    int k, e;

    if (b < FEMU_LAT_SUB) {
        return b;
    }
    k = b - FEMU_LAT_SUB;
    e = FEMU_LAT_SUB_BITS + k / FEMU_LAT_SUB;
    return (uint64_t)(FEMU_LAT_SUB + k % FEMU_LAT_SUB) <<
           (e - FEMU_LAT_SUB_BITS);
}

void femu_lat_record(FemuLatHist *h, int64_t late_ns)
{
    uint64_t v = late_ns < 0 ? 0 : late_ns;
    uint64_t max;

    qatomic_inc(&h->bucket[femu_lat_bucket(v)]);
    qatomic_inc(&h->count);
    qatomic_add(&h->sum_ns, v);
    max = qatomic_read(&h->max_ns);
    while (v > max) {
        uint64_t old = qatomic_cmpxchg(&h->max_ns, max, v);
        if (old == max) {
            break;
        }
        max = old;
    }
}

/* FEMU_CTRL_RESET_COUNTERS: the histograms restart (racing updates
 * may survive). */
void femu_lat_reset(FemuCtrl *n)
{
    FemuLatHist *hs[] = { &n->lat_cqe, &n->lat_irq };

    for (int i = 0; i < ARRAY_SIZE(hs); i++) {
        for (int b = 0; b < FEMU_LAT_BUCKETS; b++) {
            qatomic_set(&hs[i]->bucket[b], 0);
        }
        qatomic_set(&hs[i]->count, 0);
        qatomic_set(&hs[i]->sum_ns, 0);
        qatomic_set(&hs[i]->max_ns, 0);
    }
}

/* Upper bound of the q-quantile (num/den) of a histogram snapshot. */
static uint64_t femu_lat_quantile(const uint64_t *hist, uint64_t count,
                                  uint64_t max, uint64_t num, uint64_t den)
{
    uint64_t want = (count * num + den - 1) / den, seen = 0;

    if (!want) {
        return 0;
    }
    for (int b = 0; b < FEMU_LAT_BUCKETS; b++) {
        seen += hist[b];
        if (seen >= want) {
            uint64_t high = b + 1 < FEMU_LAT_BUCKETS ?
                            femu_lat_bucket_low(b + 1) - 1 : UINT64_MAX;
            return MIN(high, max);
        }
    }
    return max;
}

/*
 * A snapshot of histogram h: its summary into *sum, its buckets into
 * hist_out (u64[FEMU_LAT_BUCKETS], little-endian), its p90 into *p90.
 */
static void femu_log_c1_hist(FemuLatHist *h, FemuLatSummary *sum,
                             void *hist_out, uint64_t *p90)
{
    uint64_t hist[FEMU_LAT_BUCKETS], count = 0, max;

    for (int b = 0; b < FEMU_LAT_BUCKETS; b++) {
        hist[b] = qatomic_read(&h->bucket[b]);
        count += hist[b];
        stq_le_p((uint8_t *)hist_out + 8 * b, hist[b]);
    }
    max = qatomic_read(&h->max_ns);
    sum->count = cpu_to_le64(count);
    sum->sum_ns = cpu_to_le64(qatomic_read(&h->sum_ns));
    sum->max_ns = cpu_to_le64(max);
    sum->p50_ns = cpu_to_le64(femu_lat_quantile(hist, count, max, 1, 2));
    sum->p99_ns = cpu_to_le64(femu_lat_quantile(hist, count, max, 99, 100));
    sum->p999_ns =
        cpu_to_le64(femu_lat_quantile(hist, count, max, 999, 1000));
    *p90 = femu_lat_quantile(hist, count, max, 9, 10);
}

static void femu_log_c1(FemuCtrl *n, FemuLogLatency *log)
{
    uint64_t p90;

    femu_log_c1_hist(&n->lat_cqe, &log->cqe, log->cqe_hist, &p90);
    log->cqe_p90_ns = cpu_to_le64(p90);
    log->version = cpu_to_le32(FEMU_LAT_VERSION);
    log->sub_buckets = cpu_to_le16(FEMU_LAT_SUB);
    log->buckets = cpu_to_le32(FEMU_LAT_BUCKETS);
    log->cqe_hist_off = cpu_to_le32(offsetof(FemuLogLatency, cqe_hist));
    femu_log_c1_hist(&n->lat_irq, &log->irq, log->irq_hist, &p90);
    log->irq_p90_ns = cpu_to_le64(p90);
    log->irq_hist_off = cpu_to_le32(offsetof(FemuLogLatency, irq_hist));
    log->wake_margin_ns = cpu_to_le64(femu_pollers_wake_margin(n));
}

/* SMART data units: thousands of 512-byte units, rounded up (5.16.1.3) */
static uint64_t femu_data_units(uint64_t bytes)
{
    return DIV_ROUND_UP(bytes / 512, 1000);
}

/* Available Spare Threshold, percent (SMART byte 4, log 09h byte 4) */
#define FEMU_SPARE_THRESHOLD 10

/*
 * The media's wear (hw/femu/ftl/wear.c, zone.c; docs/reliability.md):
 * the FTL's, which every BlackBox namespace shares, and the zoned
 * namespace's zones'; with both (a conventional + zoned pair) the worse
 * of each figure, read-only media when both are.  false with neither
 * (NoSSD): no NAND wears there, spare 100%, nothing used.
 */
static bool femu_wear(FemuCtrl *n, struct ftl_wear_info *w)
{
    FemuNamespace *zns = femu_zns_ns(n);
    struct ftl_wear_info zw;

    if (!n->ftl && !zns) {
        return false;
    }
    femu_ftl_lock_main(n);
    if (n->ftl) {
        ftl_get_wear(n->ftl, w);
    }
    if (zns) {
        zns_get_wear(zns->zns, n->ftl ? &zw : w);
    }
    qemu_mutex_unlock(&n->ftl_lock);
    if (n->ftl && zns) {
        w->pct_used = MAX(w->pct_used, zw.pct_used);
        w->spare_pcent = MIN(w->spare_pcent, zw.spare_pcent);
        w->grown_bad_blocks += zw.grown_bad_blocks;
        w->read_only = w->read_only && zw.read_only;
    }
    return true;
}

/*
 * Critical Warning bits of the wear, the same in both pages: spare below
 * the threshold (bit 0); reliability degraded (bit 2: "significant media
 * related errors", here a block that failed in service, a grown bad
 * block); media read-only (bit 3).
 */
static uint8_t femu_wear_warning(const struct ftl_wear_info *w)
{
    return (w->spare_pcent < FEMU_SPARE_THRESHOLD ? NVME_SMART_SPARE : 0) |
           (w->grown_bad_blocks ? NVME_SMART_RELIABILITY : 0) |
           (w->read_only ? NVME_SMART_MEDIA_READ_ONLY : 0);
}

/* The wear's Critical Warning bits now (events.c); 0 without an FTL. */
uint8_t femu_wear_warnings(FemuCtrl *n)
{
    struct ftl_wear_info w;

    return femu_wear(n, &w) ? femu_wear_warning(&w) : 0;
}

/* SMART / Health: the controller's, or with an NSID that namespace's
 * data units and commands (LPA bit 0) */
static void femu_log_smart(FemuCtrl *n, FemuNamespace *ns, uint8_t *buf)
{
    NvmeSmartLog *s = (NvmeSmartLog *)buf;
    uint64_t *rd = ns ? &ns->bytes_read : &n->bytes_read;
    uint64_t *wr = ns ? &ns->bytes_written : &n->bytes_written;
    uint64_t *rc = ns ? &ns->host_read_cmds : &n->host_read_cmds;
    uint64_t *wc = ns ? &ns->host_write_cmds : &n->host_write_cmds;
    uint64_t hours = (get_clock() - n->start_ns) / NANOSECONDS_PER_SECOND /
                     3600;
    struct ftl_wear_info w = { .spare_pcent = 100 };

    if (femu_temp_warning(n)) {
        s->critical_warning |= NVME_SMART_TEMPERATURE;
    }
    s->temperature = cpu_to_le16(n->temperature);
    s->available_spare = 100;
    s->available_spare_threshold = FEMU_SPARE_THRESHOLD;
    if (femu_wear(n, &w)) {
        s->critical_warning |= femu_wear_warning(&w);
        s->available_spare = w.spare_pcent;
        s->percentage_used = w.pct_used;
        /*
         * Endurance Group Critical Warning Summary (byte 6, a reserved
         * byte in QEMU's NvmeSmartLog): with an endurance group (FDP),
         * the same bits for it, bit 0 spare, bit 3 read-only
         */
        if (femu_fdp_endgid(n)) {
            s->reserved1[0] = femu_wear_warning(&w);
        }
    }
    s->data_units_read[0] = cpu_to_le64(femu_data_units(qatomic_read(rd)));
    s->data_units_written[0] =
        cpu_to_le64(femu_data_units(qatomic_read(wr)));
    s->host_read_commands[0] = cpu_to_le64(qatomic_read(rc));
    s->host_write_commands[0] = cpu_to_le64(qatomic_read(wc));
    s->power_cycles[0] = cpu_to_le64(1);
    s->power_on_hours[0] = cpu_to_le64(hours);
    s->number_of_error_log_entries[0] = cpu_to_le64(femu_error_count(n));
    /* the controller's: reads that failed on the media (io.c) */
    s->media_errors[0] = cpu_to_le64(qatomic_read(&n->media_errors));
}

/*
 * Endurance Group Information (09h), for the controller's one endurance
 * group (FDP's, ENDGID 1: the whole NAND).  Data units are the
 * controller's, as SMART's; Media Units Written are the NAND pages
 * programmed (host, GC and translation pages since the C0h counters
 * last started) in the same thousands of 512-byte units.
 */
static void femu_log_endgrp(FemuCtrl *n, uint8_t *buf)
{
    NvmeEndGrpLog *e = (NvmeEndGrpLog *)buf;
    struct ftl_wear_info w = { .spare_pcent = 100 };
    struct ftl_counters c = {};
    uint64_t page_bytes = (uint64_t)n->cfg.secs_per_pg * 512;

    if (femu_wear(n, &w)) {
        e->critical_warning = femu_wear_warning(&w);
        femu_ftl_lock_main(n);
        ftl_get_counters(n->ftl, &c);
        qemu_mutex_unlock(&n->ftl_lock);
    }
    e->avail_spare = w.spare_pcent;
    e->avail_spare_thres = FEMU_SPARE_THRESHOLD;
    e->percet_used = w.pct_used;
    e->data_units_read[0] =
        cpu_to_le64(femu_data_units(qatomic_read(&n->bytes_read)));
    e->data_units_written[0] =
        cpu_to_le64(femu_data_units(qatomic_read(&n->bytes_written)));
    e->media_units_written[0] = cpu_to_le64(femu_data_units(
        (c.host_pages_programmed + c.gc_pages_moved +
         c.trans_pages_programmed) * page_bytes));
    e->host_read_commands[0] = cpu_to_le64(qatomic_read(&n->host_read_cmds));
    e->host_write_commands[0] =
        cpu_to_le64(qatomic_read(&n->host_write_cmds));
}

static void femu_log_fw(FemuCtrl *n, uint8_t *buf)
{
    NvmeFwSlotInfoLog *fw = (NvmeFwSlotInfoLog *)buf;

    fw->afi = 1;                    /* slot 1 active */
    memset(fw->frs1, ' ', sizeof(fw->frs1));
    memcpy(fw->frs1, "1.0", 3);
}

static void femu_log_effects(FemuCtrl *n, uint8_t *buf, uint8_t csi)
{
    NvmeEffectsLog *e = (NvmeEffectsLog *)buf;
    /* the I/O commands of a namespace of that command set (namespace 1's
     * for NVM, whose commands every namespace takes) */
    const FemuModeOps *m = csi == NVME_CSI_NVM ? n->mode : NULL;

    for (uint32_t i = 0; !m && i < n->nns; i++) {
        if (n->ns[i].mode->csi == csi) {
            m = n->ns[i].mode;
        }
    }

    for (int opc = 0; opc < 256; opc++) {
        e->acs[opc] = cpu_to_le32(femu_admin_cmd_effects(n, opc));
        if (m) {
            e->iocs[opc] = cpu_to_le32(femu_io_cmd_effects(n, m, opc));
        }
    }
}

uint16_t femu_get_log(FemuCtrl *n, NvmeCmd *cmd)
{
    uint32_t dw10 = le32_to_cpu(cmd->cdw10);
    uint32_t dw11 = le32_to_cpu(cmd->cdw11);
    uint32_t dw14 = le32_to_cpu(cmd->cdw14);
    uint8_t lid = dw10 & 0xff;
    bool rae = (dw10 >> 15) & 1;
    uint64_t numd = ((uint64_t)(dw11 & 0xffff) << 16 | (dw10 >> 16)) + 1;
    uint64_t len = numd * 4;
    uint64_t off = (uint64_t)le32_to_cpu(cmd->cdw13) << 32 |
                   le32_to_cpu(cmd->cdw12);
    uint16_t lsi = dw11 >> 16;
    uint8_t csi = dw14 >> 24;
    g_autofree uint8_t *page = NULL;
    g_autofree uint8_t *out = NULL;
    size_t size;
    uint16_t status;
    uint8_t aer_type = 0xff;

    if (off & 3) {
        FEMU_GUEST_ERR(femu_get_log_bad_offset, lid, off);
        return NVME_INVALID_FIELD | NVME_DNR;   /* LPO is dword aligned */
    }
    if (len > n->max_xfer) {
        FEMU_GUEST_ERR(femu_get_log_too_long, lid, len, n->max_xfer);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    switch (lid) {
    case NVME_LOG_ERROR_INFO:
        size = (FEMU_ELPE + 1) * sizeof(NvmeErrorLog);
        page = g_malloc0(size);
        femu_error_log_fill(n, (NvmeErrorLog *)page);
        aer_type = NVME_AER_TYPE_ERROR;
        break;
    case NVME_LOG_SMART_INFO:
        if (le32_to_cpu(cmd->nsid) != 0 &&
            le32_to_cpu(cmd->nsid) != NVME_NSID_BROADCAST &&
            !femu_ns(n, le32_to_cpu(cmd->nsid))) {
            FEMU_GUEST_ERR(femu_get_log_bad_nsid, lid, le32_to_cpu(cmd->nsid));
            return NVME_INVALID_NSID | NVME_DNR;
        }
        size = sizeof(NvmeSmartLog);
        page = g_malloc0(size);
        /* with one namespace its page is the controller's */
        femu_log_smart(n, n->nns > 1 ? femu_ns(n, le32_to_cpu(cmd->nsid))
                                     : NULL, page);
        aer_type = NVME_AER_TYPE_SMART;
        break;
    case NVME_LOG_CHANGED_NSLIST:
        /*
         * Changed Namespace List (5.16.1.5): 1024 NSIDs, those attached
         * or detached since the last read (ns_mgmt, ns.c); without
         * ns_mgmt the namespaces never change and the list is empty.
         */
        size = 1024 * sizeof(uint32_t);
        page = g_malloc0(size);
        femu_ns_changed_log(n, page);
        aer_type = NVME_AER_TYPE_NOTICE;
        break;
    case NVME_LOG_FW_SLOT_INFO:
        size = sizeof(NvmeFwSlotInfoLog);
        page = g_malloc0(size);
        femu_log_fw(n, page);
        break;
    case NVME_LOG_ENDGRP:
        /* only where the controller has an endurance group (FDP) */
        if (!femu_fdp_endgid(n)) {
            FEMU_GUEST_ERR(femu_get_log_bad_lid, lid);
            return NVME_INVALID_LOG_ID | NVME_DNR;
        }
        if (lsi != femu_fdp_endgid(n)) {
            FEMU_GUEST_ERR(femu_endgrp_log_bad_lsi, lsi, femu_fdp_endgid(n));
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        size = sizeof(NvmeEndGrpLog);
        page = g_malloc0(size);
        femu_log_endgrp(n, page);
        break;
    case NVME_LOG_CMD_EFFECTS:
        size = sizeof(NvmeEffectsLog);
        page = g_malloc0(size);
        femu_log_effects(n, page, csi);
        break;
    case FEMU_LOG_FTL:
        /* a namespace's (ns_ fields) or, with 0 or FFFFFFFFh, the device's */
        if (le32_to_cpu(cmd->nsid) != 0 &&
            le32_to_cpu(cmd->nsid) != NVME_NSID_BROADCAST &&
            !femu_ns(n, le32_to_cpu(cmd->nsid))) {
            FEMU_GUEST_ERR(femu_get_log_bad_nsid, lid, le32_to_cpu(cmd->nsid));
            return NVME_INVALID_NSID | NVME_DNR;
        }
        size = sizeof(FemuLogFtl);
        page = g_malloc0(size);
        femu_log_c0(n, femu_ns(n, le32_to_cpu(cmd->nsid)),
                    (FemuLogFtl *)page);
        break;
    case FEMU_LOG_LATENCY:
        size = sizeof(FemuLogLatency);
        page = g_malloc0(size);
        femu_log_c1(n, (FemuLogLatency *)page);
        break;
    case FEMU_LOG_CHANGED_ZONES:
        /* a Zoned Namespace Command Set page of one namespace */
        if (!femu_zns_ns(n) || csi != NVME_CSI_ZONED) {
            FEMU_GUEST_ERR(femu_get_log_bad_lid, lid);
            return NVME_INVALID_LOG_ID | NVME_DNR;
        }
        if (femu_ns(n, le32_to_cpu(cmd->nsid)) != femu_zns_ns(n)) {
            FEMU_GUEST_ERR(femu_get_log_bad_nsid, lid, le32_to_cpu(cmd->nsid));
            return le32_to_cpu(cmd->nsid) == 0 ||
                   le32_to_cpu(cmd->nsid) == NVME_NSID_BROADCAST ?
                   NVME_INVALID_FIELD | NVME_DNR : NVME_INVALID_NSID | NVME_DNR;
        }
        size = FEMU_CHANGED_ZONES_LOG_SIZE;
        page = g_malloc0(size);
        femu_zns_log_changed(n, page);
        aer_type = NVME_AER_TYPE_NOTICE;
        break;
    default:
        status = femu_fdp_log(n, lid, lsi, (dw10 >> 8) & 0x7f, &page, &size);
        if (status) {
            return status;
        }
        break;
    }
    if (off > size) {
        FEMU_GUEST_ERR(femu_get_log_bad_offset, lid, off);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    /* bytes past the end of the page read as zero */
    out = g_malloc0(len);
    memcpy(out, page + off, MIN(len, size - off));
    status = femu_dma_cmd(n, cmd, out, len, true);
    if (!status && !rae && lid == FEMU_LOG_CHANGED_ZONES) {
        /* read and acknowledged: the zones transferred leave the list */
        femu_zns_changed_read(n, off, len);
    }
    if (!status && !rae && lid == NVME_LOG_CHANGED_NSLIST) {
        femu_ns_changed_read(n);
    }
    if (!status && !rae && aer_type != 0xff) {
        femu_aer_clear(n, aer_type);
    }
    return status;
}
