/*
 * FEMU: Namespace Management (NVMe 2.0 base spec 5.23, opcode 0Dh) and
 * Namespace Attachment (5.22, opcode 15h), with ns_mgmt=on.
 *
 * The namespaces are BlackBox SSD ones over the controller's one FTL: a
 * namespace holds a contiguous range of the FTL's logical blocks (from
 * ftl_base, a whole number of NAND pages, so that no page holds two
 * namespaces' data).  Create takes the lowest free NSID and the first
 * free range that fits; Delete unmaps its range in the FTL (its pages
 * become invalid: GC reclaims them) and frees its data, leaving every
 * other namespace alone.  Identify CNS 10h-13h list what exists and which
 * controller has it; attach and detach change what CNS 00h/02h and the
 * I/O path see, report the NSID in the Changed Namespace List (log page
 * 04h) and raise a Namespace Attribute Changed notice.
 *
 * Everything here runs in the main loop (BQL held); the pollers read
 * ns->attached, which changes with all of them locked.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "femu.h"
#include "trace.h"

/* Logical blocks of one NAND page: the unit of a namespace's range */
static uint64_t femu_ns_unit(FemuCtrl *n)
{
    return MAX(((uint64_t)n->cfg.secs_per_pg * 512) >> n->lba_shift, 1);
}

/* The FTL blocks namespace ns holds */
static uint64_t femu_ns_range(FemuCtrl *n, FemuNamespace *ns)
{
    return ns->allocated ? ROUND_UP(ns->blocks, femu_ns_unit(n)) : 0;
}

/* The FTL's logical blocks: what the namespaces can hold in all */
static uint64_t femu_ns_total(FemuCtrl *n)
{
    return n->ftl ? ftl_ns_blocks(n->ftl) : 0;
}

static uint64_t femu_ns_free(FemuCtrl *n)
{
    uint64_t used = 0;

    for (uint32_t i = 0; i < n->nns; i++) {
        used += femu_ns_range(n, &n->ns[i]);
    }
    return femu_ns_total(n) - MIN(used, femu_ns_total(n));
}

/*
 * ns_mgmt=on: with BlackBox namespaces only, and without what speaks of
 * a fixed set of namespaces (state file, I/O trace, FDP).
 */
bool femu_ns_mgmt_check(FemuCtrl *n, Error **errp)
{
    if (!n->params.ns_mgmt) {
        return true;
    }
    for (uint32_t i = 0; i < n->nns; i++) {
        if (n->ns[i].mode->mode != FEMU_MODE_BBSSD) {
            error_setg(errp, "ns_mgmt=on: namespace %u is not a BlackBox "
                       "SSD one (femu_mode=1); Namespace Management is "
                       "provided for BlackBox namespaces only", i + 1);
            return false;
        }
    }
    if (n->params.state_path) {
        error_setg(errp, "ns_mgmt=on: state=%s: state files hold a fixed "
                   "namespace", n->params.state_path);
        return false;
    }
    if (n->params.io_trace_path) {
        error_setg(errp, "ns_mgmt=on: io_trace=%s: I/O traces hold a fixed "
                   "namespace", n->params.io_trace_path);
        return false;
    }
    if (n->params.subsys_id) {
        error_setg(errp, "ns_mgmt=on: subsys=%s: FDP with Namespace "
                   "Management is not provided", n->params.subsys_id);
        return false;
    }
    return true;
}

/*
 * After realize: the namespaces given are allocated and attached; with
 * ns_mgmt the other NSIDs up to FEMU_MAX_NAMESPACES (Identify NN) exist
 * as free slots of BlackBox mode.
 */
void femu_ns_mgmt_realize(FemuCtrl *n)
{
    for (uint32_t i = 0; i < n->nns; i++) {
        n->ns[i].allocated = true;
        n->ns[i].attached = true;
    }
    if (!n->params.ns_mgmt) {
        return;
    }
    for (uint32_t i = n->nns; i < FEMU_MAX_NAMESPACES; i++) {
        FemuNamespace *ns = &n->ns[i];

        ns->nsid = i + 1;
        ns->mode = femu_mode_ops(FEMU_MODE_BBSSD);
        ns->allocated = false;
        ns->attached = false;
    }
    n->nns = FEMU_MAX_NAMESPACES;
    n->ns_changed = 0;
}

/* 128-bit little-endian byte counts of Identify */
static void femu_ns_put128(uint8_t *dst, uint64_t v)
{
    memset(dst, 0, 16);
    stq_le_p(dst, v);
}

void femu_ns_fill_ctrl(FemuCtrl *n, NvmeIdCtrl *id)
{
    if (!n->params.ns_mgmt) {
        return;
    }
    id->oacs |= cpu_to_le16(NVME_OACS_NMS);
    femu_ns_put128(id->tnvmcap, femu_ns_total(n) << n->lba_shift);
    femu_ns_put128(id->unvmcap, femu_ns_free(n) << n->lba_shift);
}

uint64_t femu_ns_nvmcap(FemuCtrl *n, FemuNamespace *ns)
{
    return n->params.ns_mgmt ? femu_ns_range(n, ns) << n->lba_shift : 0;
}

/* A namespace attached or detached: in log 04h, and a notice */
static void femu_ns_changed(FemuCtrl *n, FemuNamespace *ns)
{
    bool notice = NVME_AEC_NS_ATTR(n->feat.async_config);

    n->ns_changed |= 1u << (ns->nsid - 1);
    trace_femu_ns_changed(ns->nsid, ns->attached, notice);
    if (notice) {
        femu_aer_event(n, NVME_AER_TYPE_NOTICE,
                       NVME_AER_INFO_NOTICE_NS_ATTR_CHANGED,
                       NVME_LOG_CHANGED_NSLIST);
    }
}

void femu_ns_changed_log(FemuCtrl *n, uint8_t *buf)
{
    for (uint32_t i = 0, k = 0; i < FEMU_MAX_NAMESPACES; i++) {
        if (n->ns_changed & (1u << i)) {
            stl_le_p(buf + 4 * k++, i + 1);
        }
    }
}

void femu_ns_changed_read(FemuCtrl *n)
{
    n->ns_changed = 0;
}

/* With every poller locked: no command runs while it changes */
static void femu_ns_set_attached(FemuCtrl *n, FemuNamespace *ns, bool on)
{
    femu_pollers_lock_all(n);
    qatomic_set(&ns->attached, on);
    femu_pollers_unlock_all(n);
    femu_ns_changed(n, ns);
}

/*
 * The FTL's per-namespace counters (hw/femu/ftl/nsctr.c, C0h's ns_
 * fields): one range for each allocated BlackBox namespace, from its
 * ftl_base, in the FTL's order.  Set at realize (and whenever the FTL is
 * made again: state file, Format), after a create or a delete; a range
 * that starts where one did keeps its counters, so the other namespaces'
 * go on.  A range ends where the next begins: the FTL blocks between two
 * namespaces belong to none (deleted ones are unmapped), so nothing is
 * counted there.  Ranges the FTL refuses (a namespace not on a NAND page)
 * turn the split off: the ns_ fields read 0 (trace event).
 */
void femu_ns_ranges(FemuCtrl *n)
{
    uint64_t first[FTL_MAX_NS_RANGES];
    FemuNamespace *by[FTL_MAX_NS_RANGES];
    uint32_t cnt = 0;
    char err[256];

    for (uint32_t i = 0; i < n->nns; i++) {
        FemuNamespace *ns = &n->ns[i];
        uint32_t j;

        ns->nsctr = -1;
        if (!n->ftl || !ns->allocated || !ns->mode->uses_ftl ||
            cnt == FTL_MAX_NS_RANGES) {
            continue;
        }
        /* insert in the order of ftl_base */
        for (j = cnt; j > 0 && by[j - 1]->ftl_base > ns->ftl_base; j--) {
            by[j] = by[j - 1];
        }
        by[j] = ns;
        cnt++;
    }
    if (!n->ftl) {
        return;
    }
    for (uint32_t j = 0; j < cnt; j++) {
        first[j] = by[j]->ftl_base;
    }
    femu_ftl_lock_main(n);
    if (ftl_set_ns_ranges(n->ftl, cnt, first, err, sizeof(err)) < 0) {
        ftl_set_ns_ranges(n->ftl, 0, NULL, err, sizeof(err));
        cnt = 0;
        trace_femu_ns_ranges_off(err);
    }
    qemu_mutex_unlock(&n->ftl_lock);
    for (uint32_t j = 0; j < cnt; j++) {
        by[j]->nsctr = j;
    }
    trace_femu_ns_ranges(cnt);
}

/* The first free range of `len` FTL blocks: its start, or UINT64_MAX */
static uint64_t femu_ns_find_range(FemuCtrl *n, uint64_t len)
{
    uint64_t total = femu_ns_total(n);

    /* a range starts at 0 or where an allocated one ends */
    for (int32_t c = -1; c < (int32_t)n->nns; c++) {
        uint64_t start = 0;
        bool fits = true;

        if (c >= 0) {
            if (!n->ns[c].allocated) {
                continue;
            }
            start = n->ns[c].ftl_base + femu_ns_range(n, &n->ns[c]);
        }
        if (start > total || len > total - start) {
            continue;
        }
        for (uint32_t i = 0; fits && i < n->nns; i++) {
            FemuNamespace *o = &n->ns[i];

            fits = !o->allocated || o->ftl_base >= start + len ||
                   o->ftl_base + femu_ns_range(n, o) <= start;
        }
        if (fits) {
            return start;
        }
    }
    return UINT64_MAX;
}

static uint16_t femu_ns_create(FemuCtrl *n, NvmeCmd *cmd, uint32_t *res)
{
    uint8_t buf[NVME_IDENTIFY_DATA_SIZE];
    NvmeIdNs *id = (NvmeIdNs *)buf;
    uint8_t csi = le32_to_cpu(cmd->cdw11) >> 24;
    uint64_t nsze, ncap, len, base;
    uint8_t fmt, cur = n->cfg.secsz == 4096 ? 1 : 0;
    FemuNamespace *ns = NULL;
    Error *err = NULL;
    uint16_t status;

    status = femu_dma_cmd(n, cmd, buf, sizeof(buf), false);
    if (status) {
        return status;
    }
    nsze = le64_to_cpu(id->nsze);
    ncap = le64_to_cpu(id->ncap);
    /* FLBAS bits 3:0 and 6:5: the format's index; bit 4 extended LBAs */
    fmt = (id->flbas & 0xf) | ((id->flbas >> 5) & 0x3) << 4;
    trace_femu_ns_create(nsze, ncap, id->flbas, csi);
    if (csi != NVME_CSI_NVM) {
        FEMU_GUEST_ERR(femu_ns_create_bad_csi, csi);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    /* the namespaces share the controller's block size (secsz) */
    if (fmt != cur || (id->flbas & 0x10)) {
        FEMU_GUEST_ERR(femu_ns_create_bad_flbas, id->flbas, cur);
        return NVME_INVALID_FORMAT | NVME_DNR;
    }
    /* no protection information; the capacity is the size (NCAP = NSZE) */
    if (!nsze || ncap != nsze || id->dps) {
        FEMU_GUEST_ERR(femu_ns_create_bad_size, nsze, ncap, id->dps);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    for (uint32_t i = 0; !ns && i < n->nns; i++) {
        ns = n->ns[i].allocated ? NULL : &n->ns[i];
    }
    if (!ns) {
        FEMU_GUEST_ERR(femu_ns_create_no_nsid, n->nns);
        return FEMU_NS_ID_UNAVAILABLE | NVME_DNR;
    }
    len = ROUND_UP(nsze, femu_ns_unit(n));
    base = len < nsze ? UINT64_MAX : femu_ns_find_range(n, len);
    if (base == UINT64_MAX) {
        FEMU_GUEST_ERR(femu_ns_create_no_capacity, nsze, len,
                       femu_ns_free(n));
        return FEMU_NS_INSUFFICIENT_CAPAC | NVME_DNR;
    }
    if (femu_store_init(&ns->store, nsze << n->lba_shift, &err)) {
        FEMU_GUEST_ERR(femu_ns_create_no_memory, nsze);
        error_free(err);
        return NVME_INTERNAL_DEV_ERROR;
    }
    ns->blocks = nsze;
    ns->size_mb = 0;
    ns->ftl_base = base;
    /* a random UUID, as namespaces 2.. get, unless uuid= says none */
    memset(&ns->uuid, 0, sizeof(ns->uuid));
    if (!qemu_uuid_is_null(&n->params.uuid)) {
        qemu_uuid_generate(&ns->uuid);
    }
    ns->bytes_read = ns->bytes_written = 0;
    ns->host_read_cmds = ns->host_write_cmds = 0;
    ns->allocated = true;
    *res = ns->nsid;
    trace_femu_ns_created(ns->nsid, nsze, base, femu_ns_free(n));
    femu_ns_ranges(n);
    return NVME_SUCCESS;
}

/* Delete one namespace: detached first, then its range and data go */
static void femu_ns_delete_one(FemuCtrl *n, FemuNamespace *ns)
{
    uint64_t unit = femu_ns_unit(n), len = femu_ns_range(n, ns);
    /* unmap in steps of whole pages; the pollers may run between two */
    uint64_t step = 4096 * unit;

    if (ns->attached) {
        femu_ns_set_attached(n, ns, false);
    }
    for (uint64_t s = 0; s < len; s += step) {
        femu_ftl_lock_main(n);
        ftl_trim(n->ftl, ns->ftl_base + s, MIN(step, len - s));
        qemu_mutex_unlock(&n->ftl_lock);
    }
    femu_store_fini(&ns->store);
    ns->allocated = false;
    ns->blocks = 0;
    ns->ftl_base = 0;
    trace_femu_ns_deleted(ns->nsid, len, femu_ns_free(n));
    femu_ns_ranges(n);
}

static uint16_t femu_ns_delete(FemuCtrl *n, uint32_t nsid)
{
    trace_femu_ns_delete(nsid);
    if (nsid == NVME_NSID_BROADCAST) {
        for (uint32_t i = 0; i < n->nns; i++) {
            if (n->ns[i].allocated) {
                femu_ns_delete_one(n, &n->ns[i]);
            }
        }
        return NVME_SUCCESS;
    }
    if (!nsid || nsid > n->nns || !n->ns[nsid - 1].allocated) {
        FEMU_GUEST_ERR(femu_ns_delete_bad_nsid, nsid);
        return NVME_INVALID_NSID | NVME_DNR;
    }
    femu_ns_delete_one(n, &n->ns[nsid - 1]);
    return NVME_SUCCESS;
}

/* Namespace Management: CDW10 SEL bits 3:0, CDW11 CSI bits 31:24 */
uint16_t femu_ns_mgmt(FemuCtrl *n, NvmeCmd *cmd, uint32_t *res)
{
    uint8_t sel = le32_to_cpu(cmd->cdw10) & 0xf;

    switch (sel) {
    case FEMU_NS_MGMT_CREATE:
        return femu_ns_create(n, cmd, res);
    case FEMU_NS_MGMT_DELETE:
        return femu_ns_delete(n, le32_to_cpu(cmd->nsid));
    default:
        FEMU_GUEST_ERR(femu_ns_mgmt_bad_sel, sel);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
}

/* Namespace Attachment: CDW10 SEL bits 3:0, a Controller List in data */
uint16_t femu_ns_attach(FemuCtrl *n, NvmeCmd *cmd)
{
    uint8_t sel = le32_to_cpu(cmd->cdw10) & 0xf;
    uint32_t nsid = le32_to_cpu(cmd->nsid);
    uint8_t buf[NVME_IDENTIFY_DATA_SIZE];
    FemuNamespace *ns;
    uint16_t status, count;

    trace_femu_ns_attach(sel, nsid);
    if (sel != NVME_NS_ATTACHMENT_ATTACH && sel != NVME_NS_ATTACHMENT_DETACH) {
        FEMU_GUEST_ERR(femu_ns_attach_bad_sel, sel);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (!nsid || nsid > n->nns || !n->ns[nsid - 1].allocated) {
        FEMU_GUEST_ERR(femu_ns_attach_bad_nsid, sel, nsid);
        return NVME_INVALID_NSID | NVME_DNR;
    }
    ns = &n->ns[nsid - 1];
    status = femu_dma_cmd(n, cmd, buf, sizeof(buf), false);
    if (status) {
        return status;
    }
    /*
     * The controller list: a count, then that many controller IDs.  This
     * subsystem has one controller, so the one valid list names it once.
     */
    count = lduw_le_p(buf);
    if (count != 1 || lduw_le_p(buf + 2) != n->instance) {
        FEMU_GUEST_ERR(femu_ns_attach_bad_ctrl_list, count,
                       count ? lduw_le_p(buf + 2) : 0, n->instance);
        return NVME_NS_CTRL_LIST_INVALID | NVME_DNR;
    }
    if (sel == NVME_NS_ATTACHMENT_ATTACH && ns->attached) {
        FEMU_GUEST_ERR(femu_ns_attach_already, nsid);
        return NVME_NS_ALREADY_ATTACHED | NVME_DNR;
    }
    if (sel == NVME_NS_ATTACHMENT_DETACH && !ns->attached) {
        FEMU_GUEST_ERR(femu_ns_attach_not_attached, nsid);
        return NVME_NS_NOT_ATTACHED | NVME_DNR;
    }
    femu_ns_set_attached(n, ns, sel == NVME_NS_ATTACHMENT_ATTACH);
    return NVME_SUCCESS;
}

/*
 * Identify CNS 10h (allocated NSIDs above NSID), 11h (Identify Namespace
 * of an allocated NSID, attached or not), 12h (the controllers NSID is
 * attached to, from CDW10 CNTID on) and 13h (the subsystem's controllers
 * from CNTID on).
 */
uint16_t femu_ns_identify(FemuCtrl *n, NvmeCmd *cmd, uint8_t *buf)
{
    NvmeIdentify *c = (NvmeIdentify *)cmd;
    uint32_t nsid = le32_to_cpu(c->nsid);
    uint16_t cntid = le16_to_cpu(c->ctrlid);

    switch (c->cns) {
    case NVME_ID_CNS_NS_PRESENT_LIST:
        if (nsid >= 0xfffffffe) {
            break;
        }
        for (uint32_t i = nsid, k = 0; i < n->nns; i++) {
            if (n->ns[i].allocated) {
                stl_le_p(buf + 4 * k++, n->ns[i].nsid);
            }
        }
        return NVME_SUCCESS;
    case NVME_ID_CNS_NS_PRESENT:
        if (!nsid || nsid > n->nns) {
            break;
        }
        if (n->ns[nsid - 1].allocated) {
            femu_identify_ns_fill(n, &n->ns[nsid - 1], (NvmeIdNs *)buf);
        }
        return NVME_SUCCESS;
    case NVME_ID_CNS_NS_ATTACHED_CTRL_LIST:
        if (!nsid || nsid > n->nns || !n->ns[nsid - 1].allocated) {
            break;
        }
        if (n->ns[nsid - 1].attached && n->instance >= cntid) {
            stw_le_p(buf, 1);
            stw_le_p(buf + 2, n->instance);
        }
        return NVME_SUCCESS;
    case NVME_ID_CNS_CTRL_LIST:
        if (n->instance >= cntid) {
            stw_le_p(buf, 1);
            stw_le_p(buf + 2, n->instance);
        }
        return NVME_SUCCESS;
    default:
        FEMU_GUEST_ERR(femu_identify_bad_cns, c->cns);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    FEMU_GUEST_ERR(femu_identify_bad_nsid, c->cns, nsid);
    return NVME_INVALID_NSID | NVME_DNR;
}
