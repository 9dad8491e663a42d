/*
 * FEMU: Flexible Data Placement (NVMe TP4146, folded into the NVMe 2.0
 * base specification: FDP 8.1.10, log pages 5.16.1.20-23, features
 * 5.27.1.20-21; I/O Management Receive/Send in the NVM command set
 * specification 3.2.1-2).
 *
 * The model: a `femu-subsys` with fdp=on gives every controller that
 * links to it one endurance group (ENDGID 1) with one reclaim group and
 * fdp.nruh reclaim unit handles, all "persistently isolated".  A reclaim
 * unit is one line of the FTL (the unit GC erases), so the nominal size
 * (RUNS) is the line size in bytes.  Placement identifier i is handle i:
 * every namespace of the controller (all BlackBox: ranges of the one FTL)
 * uses every handle, in order, so the handles and their reclaim units are
 * shared by the namespaces, and RGIF = 0 means the placement identifier
 * carries no reclaim group bits.  An event names the namespace it
 * concerns.
 *
 * The FTL core does the placement (one open reclaim unit per handle, a
 * GC reclaim unit per handle so relocated pages stay with their handle,
 * RUAMW, RUH update, the FDP byte counters, and a queue of raw events).
 * This file is the NVMe face of it: the configuration, usage, statistics
 * and event log pages, the FDP features, the placement directive of a
 * write and the I/O Management commands.
 *
 * Locking: FDP state lives next to the FTL and is only touched under
 * n->ftl_lock, from the main loop (admin commands) and from poller
 * threads (writes, I/O Management).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/timer.h"
#include "femu.h"
#include "trace.h"

#define FDP_ENDGID          1
/*
 * NVMe 2.0 Identify Controller CTRATT bit 4 (endurance groups) and bit 19
 * (flexible data placement): 0x80010.
 */
#define FDP_CTRATT          (NVME_CTRATT_ENDGRPS | NVME_CTRATT_FDPS)
/* Handles: the FDP event's RUHID field is one byte (5.16.1.23). */
#define FDP_MAX_NRUH        256
/* Namespaces an FDP configuration supports (NNSS). */
#define FDP_NNSS            256
/* Events a 4 KiB FDP events log page holds after its 64-byte header. */
#define FDP_MAX_EVENTS      63
#define FDP_EVENTS_LOG_SIZE (sizeof(NvmeFdpEventsLog) + \
                             FDP_MAX_EVENTS * sizeof(NvmeFdpEvent))
/* Directive type "data placement" in a write's CDW12 bits 23:20. */
#define FDP_DTYPE           NVME_DIRECTIVE_DATA_PLACEMENT

/*
 * Event types this controller can raise (FDP events feature, 5.27.1.21).
 * Both are host events: the FTL raises "reclaim unit not fully written"
 * when a RUH update abandons a partly written unit, and "invalid
 * placement identifier" when a write names a handle the namespace lacks.
 * No controller events exist: media is never reallocated and GC never
 * changes which unit a handle writes into.
 */
static const uint8_t fdp_evt_types[] = {
    FDP_EVT_RU_NOT_FULLY_WRITTEN,
    FDP_EVT_INVALID_PID,
};
#define FDP_NEVT_TYPES ARRAY_SIZE(fdp_evt_types)

typedef struct FdpEventRing {
    NvmeFdpEvent ev[FDP_MAX_EVENTS];
    uint32_t head;      /* oldest */
    uint32_t count;
} FdpEventRing;

struct FemuFdp {
    uint32_t nruh;
    uint32_t nru;       /* reclaim units in use: min(fdp.nru, lines) */
    /* per handle: bit k set = event type fdp_evt_types[k] enabled */
    uint8_t *evt_enabled;
    /*
     * per handle: the enables last set with SV = 1 (Set Features Save,
     * 5.27): what a controller level reset restores and Get Features
     * SEL = 2 reports.  FEMU has no persistent media: a saved value
     * lasts as long as the device (QEMU process), like the current one.
     */
    uint8_t *evt_saved;
    /* host events; the controller raises no controller events, so their
     * log (LSP bit 0 = 0) is always empty */
    FdpEventRing host;
};

static FemuFdp *fdp_of(FemuCtrl *n)
{
    return n->fdp;
}

bool femu_fdp_realize(FemuCtrl *n, Error **errp)
{
    FemuSubsys *s = n->subsys;
    FemuFdp *f;

    if (s && s->nctrls > 0) {
        /*
         * An NVM subsystem's controllers share its namespaces and its
         * endurance group; a FEMU controller brings its own FTL and
         * namespace, so two of them cannot be one subsystem.
         */
        error_setg(errp, "subsys=%s: that femu-subsys already has a femu "
                   "controller; each controller has its own FTL and "
                   "namespace, so give each its own -device femu-subsys",
                   n->params.subsys_id);
        return false;
    }
    if (s) {
        s->nctrls++;
    }
    if (!s || !s->fdp) {
        return true;
    }
    /*
     * Several namespaces: all of them are in the one endurance group and
     * write through its reclaim unit handles, which are the FTL's.  A
     * NoSSD or zoned namespace has no FTL range to place data in, so it
     * cannot be beside FDP (it is refused rather than left out of the
     * endurance group, which would give the controller a namespace whose
     * writes ignore DTYPE 2).
     */
    for (uint32_t i = 0; n->nns > 1 && i < n->nns; i++) {
        if (n->ns[i].mode->mode != FEMU_MODE_BBSSD) {
            error_setg(errp, "namespace_modes: namespace %u is %s; with "
                       "subsys=%s (fdp=on) every namespace must be bbssd "
                       "(they share the endurance group's reclaim units, "
                       "which are the FTL's)", i + 1,
                       n->ns[i].mode->token, n->params.subsys_id);
            goto fail;
        }
    }
    /* every check below is about a subsystem property, so name it */
    if (!femu_is_bbssd(n)) {
        error_setg(errp, "subsys: femu-subsys with fdp=on needs "
                   "femu_mode=1 (placement is done by the FTL)");
        goto fail;
    }
    if (s->fdp_nruh == 0 || s->fdp_nruh > FDP_MAX_NRUH) {
        error_setg(errp, "fdp.nruh=%u: must be 1..%d with fdp=on "
                   "(reclaim unit handles, placement ids 0..nruh-1)",
                   s->fdp_nruh, FDP_MAX_NRUH);
        goto fail;
    }
    if (s->fdp_nru == 0) {
        error_setg(errp, "fdp.nru=0: must be at least fdp.nruh=%u "
                   "(one reclaim unit per handle at least)", s->fdp_nruh);
        goto fail;
    }
    if (s->fdp_nru < s->fdp_nruh) {
        error_setg(errp, "fdp.nru=%u: must be at least fdp.nruh=%u (every "
                   "handle writes into a reclaim unit of its own)",
                   s->fdp_nru, s->fdp_nruh);
        goto fail;
    }
    if (s->fdp_nruh >= n->cfg.blks_per_pl) {
        /*
         * the FTL's reserve rule says the same in more words; this is
         * the plain bound: one open line per handle plus spare for GC
         */
        error_setg(errp, "fdp.nruh=%u: must be below the %u lines "
                   "(blks_per_pl) of the geometry: each handle keeps a "
                   "reclaim unit (line) open", s->fdp_nruh,
                   n->cfg.blks_per_pl);
        goto fail;
    }

    f = g_new0(FemuFdp, 1);
    f->nruh = s->fdp_nruh;
    /* a reclaim unit is a line: more units than lines cannot exist */
    f->nru = MIN(s->fdp_nru, n->cfg.blks_per_pl);
    f->evt_enabled = g_new(uint8_t, f->nruh);
    f->evt_saved = g_new(uint8_t, f->nruh);
    /*
     * events are enabled by default so that an invalid placement id shows
     * up in the log without any set-up
     */
    memset(f->evt_enabled, (1 << FDP_NEVT_TYPES) - 1, f->nruh);
    memset(f->evt_saved, (1 << FDP_NEVT_TYPES) - 1, f->nruh);
    n->fdp = f;
    return true;

fail:
    s->nctrls--;
    return false;
}

void femu_fdp_unrealize(FemuCtrl *n)
{
    FemuFdp *f = fdp_of(n);

    if (f) {
        g_free(f->evt_enabled);
        g_free(f->evt_saved);
        g_free(f);
        n->fdp = NULL;
    }
    if (n->subsys && n->subsys->nctrls > 0) {
        n->subsys->nctrls--;
    }
}

void femu_fdp_fill_cfg(FemuCtrl *n, struct ftl_config *cfg)
{
    FemuFdp *f = fdp_of(n);

    cfg->fdp_nruh = f ? f->nruh : 0;
    cfg->fdp_nru = f ? f->nru : FTL_DEFAULT_FDP_NRU;
}

uint32_t femu_fdp_ctratt(FemuCtrl *n)
{
    return fdp_of(n) ? FDP_CTRATT : 0;
}

uint16_t femu_fdp_endgid(FemuCtrl *n)
{
    return fdp_of(n) ? FDP_ENDGID : 0;
}

/*
 * An FDP event's timestamp has the format of the Timestamp feature (NVMe
 * 2.0 5.16.1.23 Event Timestamp; 5.27.1 Timestamp): bytes 5:0 the
 * controller's timestamp in milliseconds when the event happened, byte 6
 * its origin (bits 3:1: 000b counted from 0 since the last Controller
 * Level Reset, 001b set by Set Features; Linux sets it to the wall clock
 * when it enables the controller) and Synch (bit 0: 1 once the VM has
 * stopped since the value was set or reset, as admin.c keeps it; taken
 * when the log is read).  The controller's timestamp is kept by admin.c
 * on QEMU's virtual clock; the FTL stamps events with the host clock
 * (get_clock()), so the event's age converts one into the other.  A Set
 * Features Timestamp between an event and the read of the log moves that
 * event to the new value (events are read out of the FTL when the log is
 * read).
 */
static uint64_t fdp_event_timestamp(FemuCtrl *n, int64_t event_ns)
{
    int64_t age_ms = (get_clock() - event_ns) / 1000000;
    int64_t virt_ms = qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) - age_ms;
    uint64_t ms;

    /*
     * never before the timestamp's base: the virtual clock stands still
     * while the VM is stopped (and under qtest), the host clock does not
     */
    virt_ms = MAX(virt_ms, n->ts_at_ms);
    ms = (n->ts_base_ms + virt_ms - n->ts_at_ms) & FEMU_TS_MASK;

    return ms | (uint64_t)((n->ts_host_set ? 1 << 1 : 0) |
                           (n->ts_stopped ? 1 : 0)) << 48;
}

static void fdp_ring_push(FdpEventRing *r, const NvmeFdpEvent *ev)
{
    if (r->count == FDP_MAX_EVENTS) {
        /* full: the oldest event makes room for the newest */
        r->head = (r->head + 1) % FDP_MAX_EVENTS;
        r->count--;
    }
    r->ev[(r->head + r->count) % FDP_MAX_EVENTS] = *ev;
    r->count++;
}

static int fdp_evt_index(uint8_t type)
{
    for (int k = 0; k < FDP_NEVT_TYPES; k++) {
        if (fdp_evt_types[k] == type) {
            return k;
        }
    }
    return -1;
}

/*
 * The namespace an FTL event concerns: the one whose FTL range holds the
 * command's first logical block (the FTL sees the namespace's ftl_base
 * added).  An event without a command (a RUH update's) gets `nsid`, the
 * namespace of the I/O Management Send that caused it; 0 when unknown.
 */
static uint32_t fdp_event_nsid(FemuCtrl *n, const struct ftl_fdp_event *fe,
                               uint32_t nsid)
{
    if (fe->nlb == 0) {
        return nsid;
    }
    for (uint32_t i = 0; i < n->nns; i++) {
        FemuNamespace *ns = &n->ns[i];

        if (ns->allocated && ns->mode->uses_ftl &&
            fe->lba >= ns->ftl_base && fe->lba < ns->ftl_base + ns->blocks) {
            return ns->nsid;
        }
    }
    return 0;
}

/*
 * Move the events the FTL queued into the host events log, keeping those
 * enabled on the handle concerned (an invalid placement id is charged to
 * handle 0, the one the write used).  Called with ftl_lock held, before
 * every read of the log and before the enables change, so an event is
 * filtered by the enables in force when it happened.  nsid: the
 * namespace of events without a command (fdp_event_nsid).
 */
static void fdp_drain_events_ns(FemuCtrl *n, uint32_t nsid)
{
    FemuFdp *f = fdp_of(n);
    struct ftl_fdp_event fe;

    while (ftl_fdp_pop_event(n->ftl, &fe)) {
        NvmeFdpEvent ev = {};
        int k = fdp_evt_index(fe.type);
        uint16_t ruh = fe.ruh < f->nruh ? fe.ruh : 0;
        uint32_t ev_nsid = fdp_event_nsid(n, &fe, nsid);

        trace_femu_fdp_event(fe.type, fe.pid, fe.ruh);
        trace_femu_fdp_event_ns(fe.type, ev_nsid, fe.lba);
        if (k < 0 || !(f->evt_enabled[ruh] & (1 << k))) {
            continue;
        }
        ev.type = fe.type;
        ev.flags = FDPEF_PIV | FDPEF_LV | (ev_nsid ? FDPEF_NSIDV : 0);
        ev.pid = cpu_to_le16(fe.pid);
        ev.timestamp = cpu_to_le64(fdp_event_timestamp(n, fe.time_ns));
        ev.nsid = cpu_to_le32(ev_nsid);
        ev.rgid = 0;
        ev.ruhid = ruh;
        fdp_ring_push(&f->host, &ev);
    }
}

static void fdp_drain_events(FemuCtrl *n)
{
    fdp_drain_events_ns(n, 0);
}

static uint8_t *fdp_log_configs(FemuCtrl *n, FemuFdp *f, size_t *len)
{
    size_t dsize = sizeof(NvmeFdpDescrHdr) + f->nruh * sizeof(NvmeRuhDescr);
    uint8_t *buf;
    NvmeFdpConfsHdr *h;
    NvmeFdpDescrHdr *d;
    NvmeRuhDescr *ruh;

    *len = sizeof(NvmeFdpConfsHdr) + dsize;
    buf = g_malloc0(*len);
    h = (NvmeFdpConfsHdr *)buf;
    d = (NvmeFdpDescrHdr *)(h + 1);
    ruh = (NvmeRuhDescr *)(d + 1);

    h->num_confs = cpu_to_le16(0);          /* 0's based: one config */
    h->version = 0;
    h->size = cpu_to_le32(*len);
    d->descr_size = cpu_to_le16(dsize);
    d->fdpa = 1 << R_FDPA_VALID_SHIFT;      /* valid, RGIF 0, no VWC */
    d->vss = 0;
    d->nrg = cpu_to_le32(1);
    d->nruh = cpu_to_le16(f->nruh);
    d->maxpids = cpu_to_le16(f->nruh - 1); /* 0's based */
    d->nnss = cpu_to_le32(FDP_NNSS);
    d->runs = cpu_to_le64(ftl_line_bytes(n->ftl));
    d->erutl = 0;                           /* no active time limit */
    for (uint32_t i = 0; i < f->nruh; i++) {
        ruh[i].ruht = NVME_RUHT_PERSISTENTLY_ISOLATED;
    }
    return buf;
}

static uint8_t *fdp_log_usage(FemuFdp *f, size_t *len)
{
    uint8_t *buf;
    NvmeRuhuLog *h;
    NvmeRuhuDescr *d;

    *len = sizeof(NvmeRuhuLog) + f->nruh * sizeof(NvmeRuhuDescr);
    buf = g_malloc0(*len);
    h = (NvmeRuhuLog *)buf;
    d = (NvmeRuhuDescr *)(h + 1);
    h->nruh = cpu_to_le16(f->nruh);
    /* every namespace lists every handle: all are host specified */
    for (uint32_t i = 0; i < f->nruh; i++) {
        d[i].ruha = NVME_RUHA_HOST;
    }
    return buf;
}

static uint8_t *fdp_log_stats(FemuCtrl *n, size_t *len)
{
    NvmeFdpStatsLog *s = g_new0(NvmeFdpStatsLog, 1);
    struct ftl_counters c;

    ftl_get_counters(n->ftl, &c);
    /* 128-bit little-endian byte counts: the upper halves stay 0 */
    s->hbmw[0] = cpu_to_le64(c.fdp_hbmw);
    s->mbmw[0] = cpu_to_le64(c.fdp_mbmw);
    s->mbe[0] = cpu_to_le64(c.fdp_mbe);
    *len = sizeof(*s);
    return (uint8_t *)s;
}

static uint8_t *fdp_log_events(FemuCtrl *n, FemuFdp *f, bool host,
                               size_t *len)
{
    FdpEventRing *r = &f->host;
    uint8_t *buf = g_malloc0(FDP_EVENTS_LOG_SIZE);
    NvmeFdpEventsLog *h = (NvmeFdpEventsLog *)buf;
    NvmeFdpEvent *ev = (NvmeFdpEvent *)(h + 1);

    *len = FDP_EVENTS_LOG_SIZE;
    fdp_drain_events(n);
    if (!host) {
        return buf;             /* no controller events: none logged */
    }
    h->num_events = cpu_to_le32(r->count);
    for (uint32_t i = 0; i < r->count; i++) {      /* oldest first */
        ev[i] = r->ev[(r->head + i) % FDP_MAX_EVENTS];
    }
    return buf;
}

uint16_t femu_fdp_log(FemuCtrl *n, uint8_t lid, uint16_t lsi, uint8_t lsp,
                      uint8_t **buf, size_t *len)
{
    FemuFdp *f = fdp_of(n);

    switch (lid) {
    case NVME_LOG_FDP_CONFS:
    case NVME_LOG_FDP_RUH_USAGE:
    case NVME_LOG_FDP_STATS:
    case NVME_LOG_FDP_EVENTS:
        break;
    default:
        FEMU_GUEST_ERR(femu_get_log_bad_lid, lid);
        return NVME_INVALID_LOG_ID | NVME_DNR;
    }
    if (!f) {
        FEMU_GUEST_ERR(femu_fdp_off, "log page");
        return NVME_INVALID_LOG_ID | NVME_DNR;
    }
    /* the FDP pages are per endurance group: LSI names it (5.16) */
    if (lsi != FDP_ENDGID) {
        FEMU_GUEST_ERR(femu_fdp_log_bad_lsi, lid, lsi);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    femu_ftl_lock_main(n);
    switch (lid) {
    case NVME_LOG_FDP_CONFS:
        *buf = fdp_log_configs(n, f, len);
        break;
    case NVME_LOG_FDP_RUH_USAGE:
        *buf = fdp_log_usage(f, len);
        break;
    case NVME_LOG_FDP_STATS:
        *buf = fdp_log_stats(n, len);
        break;
    case NVME_LOG_FDP_EVENTS:
        /* LSP bit 0: 1 = host events, 0 = controller events */
        *buf = fdp_log_events(n, f, lsp & 1, len);
        break;
    }
    qemu_mutex_unlock(&n->ftl_lock);
    return NVME_SUCCESS;
}

/* every attached namespace is in the endurance group (femu_fdp_realize) */
static bool fdp_nsid_ok(FemuCtrl *n, NvmeCmd *cmd)
{
    uint32_t nsid = le32_to_cpu(cmd->nsid);

    return femu_ns(n, nsid) || nsid == NVME_NSID_BROADCAST;
}

/*
 * Get and Set Features FDP Events: the namespace, and CDW11's placement
 * handle PH (bits 15:0) and number of event types NOET (bits 23:16).
 */
static uint16_t fdp_events_args(FemuCtrl *n, FemuFdp *f, NvmeCmd *cmd,
                                bool set, uint16_t *ph, uint8_t *noet)
{
    uint32_t dw11 = le32_to_cpu(cmd->cdw11);

    *ph = dw11 & 0xffff;
    *noet = (dw11 >> 16) & 0xff;
    if (!fdp_nsid_ok(n, cmd)) {
        FEMU_GUEST_ERR(femu_fdp_events_bad_nsid, set, le32_to_cpu(cmd->nsid));
        return NVME_INVALID_NSID | NVME_DNR;
    }
    if (*ph >= f->nruh || *noet == 0) {
        FEMU_GUEST_ERR(femu_fdp_events_bad_ph, set, *ph, *noet, f->nruh);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    return NVME_SUCCESS;
}

/*
 * Get Features FDP Events (1Eh): the event types of a placement handle
 * with their enable bit; completion DW0 = descriptors returned.
 */
static uint16_t fdp_get_events(FemuCtrl *n, FemuFdp *f, NvmeCmd *cmd,
                               uint8_t sel, uint32_t *result)
{
    NvmeFdpEventDescr d[FDP_NEVT_TYPES] = {};
    uint16_t ph;
    uint8_t noet, mask;
    uint32_t cnt;
    uint16_t status = fdp_events_args(n, f, cmd, false, &ph, &noet);

    if (status) {
        return status;
    }
    cnt = MIN(noet, FDP_NEVT_TYPES);
    femu_ftl_lock_main(n);
    switch (sel) {
    case NVME_GETFEAT_SELECT_DEFAULT:
        mask = (1 << FDP_NEVT_TYPES) - 1;
        break;
    case NVME_GETFEAT_SELECT_SAVED:
        mask = f->evt_saved[ph];
        break;
    default:
        mask = f->evt_enabled[ph];
        break;
    }
    qemu_mutex_unlock(&n->ftl_lock);
    for (uint32_t k = 0; k < cnt; k++) {
        d[k].evt = fdp_evt_types[k];
        d[k].evta = (mask >> k) & 1;
    }
    *result = cnt;
    return femu_dma_cmd(n, cmd, (uint8_t *)d, cnt * sizeof(d[0]), true);
}

uint16_t femu_fdp_get_feature(FemuCtrl *n, NvmeCmd *cmd, uint32_t *result)
{
    FemuFdp *f = fdp_of(n);
    uint32_t dw10 = le32_to_cpu(cmd->cdw10);
    uint32_t dw11 = le32_to_cpu(cmd->cdw11);
    uint8_t fid = NVME_GETSETFEAT_FID(dw10);
    uint8_t sel = NVME_GETFEAT_SELECT(dw10);

    if (!f) {
        FEMU_GUEST_ERR(femu_fdp_off, "Get Features");
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (sel == NVME_GETFEAT_SELECT_CAP) {
        /*
         * Both are saveable (Set Features with SV = 1 is accepted; FEMU
         * keeps a saved value for the device's lifetime) and changeable:
         * FDP mode only while its endurance group holds no namespace,
         * which never happens here (femu_fdp_set_feature), event enables
         * per namespace at any time.
         */
        *result = NVME_FEAT_CAP_SAVE | NVME_FEAT_CAP_CHANGE |
                  (fid == NVME_FDP_EVENTS ? NVME_FEAT_CAP_NS : 0);
        return NVME_SUCCESS;
    }
    if (fid == NVME_FDP_MODE) {
        /* CDW11 bits 15:0: endurance group */
        if ((dw11 & 0xffff) != FDP_ENDGID) {
            FEMU_GUEST_ERR(femu_fdp_mode_bad_endgid, false, dw11 & 0xffff);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        /* FDPE (bit 0) set, FDPCIDX (bits 15:8) = configuration 0 */
        *result = 1 << R_FEAT_FDP_FDPE_SHIFT;
        return NVME_SUCCESS;
    }
    return fdp_get_events(n, f, cmd, sel, result);
}

/*
 * Set Features FDP Events (1Eh): enable or disable the listed event types
 * on placement handle PH.
 */
static uint16_t fdp_set_events(FemuCtrl *n, FemuFdp *f, NvmeCmd *cmd)
{
    bool enable = le32_to_cpu(cmd->cdw12) & 1;
    bool save = NVME_SETFEAT_SAVE(le32_to_cpu(cmd->cdw10));
    uint8_t types[255];
    uint8_t bits = 0, noet;
    uint16_t ph;
    uint16_t status = fdp_events_args(n, f, cmd, true, &ph, &noet);

    if (status) {
        return status;
    }
    status = femu_dma_cmd(n, cmd, types, noet, false);
    if (status) {
        return status;
    }
    for (uint32_t i = 0; i < noet; i++) {
        int k = fdp_evt_index(types[i]);

        if (k < 0) {
            /* an event type this controller never raises */
            FEMU_GUEST_ERR(femu_fdp_events_bad_type, types[i]);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        bits |= 1 << k;
    }
    trace_femu_fdp_set_events(ph, noet, enable);
    femu_ftl_lock_main(n);
    /* events that already happened are judged by the old enables */
    fdp_drain_events(n);
    if (enable) {
        f->evt_enabled[ph] |= bits;
    } else {
        f->evt_enabled[ph] &= ~bits;
    }
    if (save) {
        /* SV = 1: the new value is also the saved one (5.27) */
        f->evt_saved[ph] = f->evt_enabled[ph];
    }
    qemu_mutex_unlock(&n->ftl_lock);
    return NVME_SUCCESS;
}

uint16_t femu_fdp_set_feature(FemuCtrl *n, NvmeCmd *cmd, uint32_t *result)
{
    FemuFdp *f = fdp_of(n);
    uint32_t dw10 = le32_to_cpu(cmd->cdw10);
    uint32_t dw11 = le32_to_cpu(cmd->cdw11);
    uint32_t dw12 = le32_to_cpu(cmd->cdw12);

    if (!f) {
        FEMU_GUEST_ERR(femu_fdp_off, "Set Features");
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (NVME_GETSETFEAT_FID(dw10) == NVME_FDP_MODE) {
        if ((dw11 & 0xffff) != FDP_ENDGID) {
            FEMU_GUEST_ERR(femu_fdp_mode_bad_endgid, true, dw11 & 0xffff);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        /*
         * Asking for what is in force (FDP on, configuration 0) is
         * fine, with or without SV (nvme-cli's `fdp feature` always sets
         * it; the value in force is also the saved one).  Anything else
         * would change the FDP mode or configuration of an endurance
         * group that holds a namespace, which the controller refuses
         * with Command Sequence Error (NVMe 2.0 5.27.1.20): FEMU's
         * namespaces always exist, so FDP cannot be disabled or
         * reconfigured while the device runs.
         */
        if (FIELD_EX32(dw12, FEAT_FDP, FDPE) &&
            FIELD_EX32(dw12, FEAT_FDP, CONF_NDX) == 0) {
            return NVME_SUCCESS;
        }
        FEMU_GUEST_ERR(femu_fdp_mode_change, dw12);
        return NVME_CMD_SEQ_ERROR | NVME_DNR;
    }
    return fdp_set_events(n, f, cmd);
}

/*
 * Controller level reset: features revert to their saved values (5.27,
 * Set Features SV), so the event enables become the saved ones.  The FDP
 * mode has nothing to revert (it never changes).
 */
void femu_fdp_ctrl_reset(FemuCtrl *n)
{
    FemuFdp *f = fdp_of(n);

    if (!f) {
        return;
    }
    femu_ftl_lock_main(n);
    fdp_drain_events(n);
    memcpy(f->evt_enabled, f->evt_saved, f->nruh);
    qemu_mutex_unlock(&n->ftl_lock);
}

uint16_t femu_fdp_write_pid(FemuCtrl *n, NvmeCmd *cmd, uint32_t *pid)
{
    /*
     * DTYPE in CDW12 bits 23:20, DSPEC in CDW13 bits 31:16 (NVM command
     * set 3.2.6, NVMe 2.0 8.1.10)
     */
    uint32_t dtype = (le32_to_cpu(cmd->cdw12) >> 20) & 0xf;

    *pid = FTL_PID_NONE;
    if (dtype == 0) {
        return NVME_SUCCESS;
    }
    if (dtype != FDP_DTYPE || !fdp_of(n)) {
        /*
         * the only directive this controller knows is data placement,
         * and only with FDP on
         */
        FEMU_GUEST_ERR(femu_write_bad_directive, dtype, !!fdp_of(n));
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    /*
     * The placement identifier; with RGIF 0 it is the placement handle
     * itself.  One the namespace lacks is not an error: the FTL writes
     * through handle 0 and queues an "invalid placement identifier"
     * event.
     */
    *pid = le32_to_cpu(cmd->cdw13) >> 16;
    return NVME_SUCCESS;
}

/*
 * I/O Management Receive and Send: FDP on, the management operation
 * (CDW10 MO) each supports, and len bytes of data within MDTS.
 */
static uint16_t fdp_io_mgmt_check(FemuCtrl *n, FemuFdp *f, bool send,
                                  uint32_t mo, uint32_t want, uint64_t len)
{
    if (!f) {
        FEMU_GUEST_ERR(femu_fdp_off, send ? "I/O Management Send"
                                          : "I/O Management Receive");
        return NVME_INVALID_OPCODE | NVME_DNR;
    }
    if (mo != want) {
        FEMU_GUEST_ERR(femu_fdp_io_mgmt_bad_mo, send, mo);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (len > n->max_xfer) {
        FEMU_GUEST_ERR(femu_fdp_io_mgmt_too_long, send, len, n->max_xfer);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    return NVME_SUCCESS;
}

/*
 * I/O Management Receive (opcode 12h), MO 1: reclaim unit handle status,
 * one descriptor per placement identifier of the namespace.
 */
uint16_t femu_fdp_io_mgmt_recv(FemuCtrl *n, FemuReq *req)
{
    FemuFdp *f = fdp_of(n);
    NvmeCmd *cmd = &req->cmd;
    uint32_t dw10 = le32_to_cpu(cmd->cdw10);
    uint64_t len = ((uint64_t)le32_to_cpu(cmd->cdw11) + 1) * 4; /* NUMD */
    size_t size;
    g_autofree uint8_t *buf = NULL;
    NvmeRuhStatus *h;
    NvmeRuhStatusDescr *d;
    uint16_t status = fdp_io_mgmt_check(n, f, false,
                                        FIELD_EX32(dw10, NVME_IOMR, MO),
                                        NVME_IOMR_MO_RUH_STATUS, len);

    if (status) {
        return status;
    }
    size = sizeof(NvmeRuhStatus) + f->nruh * sizeof(NvmeRuhStatusDescr);
    /*
     * a buffer shorter than the page gets its beginning (the header
     * alone tells the host how much to ask for); a longer one zeroes
     */
    buf = g_malloc0(MAX(size, len));
    h = (NvmeRuhStatus *)buf;
    d = (NvmeRuhStatusDescr *)(h + 1);
    h->nruhsd = cpu_to_le16(f->nruh);
    femu_ftl_lock(n);
    for (uint32_t i = 0; i < f->nruh; i++) {
        d[i].pid = cpu_to_le16(i);
        d[i].ruhid = cpu_to_le16(i);
        d[i].earutr = 0;
        /* logical blocks left in the handle's open reclaim unit */
        d[i].ruamw = cpu_to_le64(ftl_fdp_ruamw(n->ftl, i));
    }
    qemu_mutex_unlock(&n->ftl_lock);
    return femu_dma_cmd(n, cmd, buf, len, true);
}

/*
 * I/O Management Send (opcode 1Dh), MO 1: reclaim unit handle update.
 * MOS = number of placement identifiers in the data, 0's based; each
 * listed handle starts a fresh reclaim unit.
 */
uint16_t femu_fdp_io_mgmt_send(FemuCtrl *n, FemuReq *req)
{
    FemuFdp *f = fdp_of(n);
    NvmeCmd *cmd = &req->cmd;
    uint32_t dw10 = le32_to_cpu(cmd->cdw10);
    uint32_t npids = FIELD_EX32(dw10, NVME_IOMS, MOS) + 1;
    g_autofree uint16_t *pids = NULL;
    uint16_t status = fdp_io_mgmt_check(n, f, true,
                                        FIELD_EX32(dw10, NVME_IOMS, MO),
                                        NVME_IOMS_MO_RUH_UPDATE,
                                        (uint64_t)npids * 2);

    if (status) {
        return status;
    }
    pids = g_new(uint16_t, npids);
    status = femu_dma_cmd(n, cmd, (uint8_t *)pids, npids * 2, false);
    if (status) {
        return status;
    }
    /* check the whole list before any handle moves */
    for (uint32_t i = 0; i < npids; i++) {
        if (le16_to_cpu(pids[i]) >= f->nruh) {
            FEMU_GUEST_ERR(femu_fdp_ruh_update_bad_pid, le16_to_cpu(pids[i]),
                           f->nruh);
            return NVME_INVALID_PHID_LIST | NVME_DNR;
        }
    }
    femu_ftl_lock(n);
    for (uint32_t i = 0; i < npids; i++) {
        uint16_t pid = le16_to_cpu(pids[i]);

        trace_femu_fdp_ruh_update(pid, ftl_fdp_ruamw(n->ftl, pid));
        ftl_fdp_ruh_update(n->ftl, pid, req->arrival_ns);
        /*
         * the "reclaim unit not fully written" event it may raise names
         * this command's namespace: take it out of the FTL now, while
         * that is known (the handles are shared by every namespace)
         */
        fdp_drain_events_ns(n, req->ns->nsid);
        femu_capture(n, 0, FTL_IOTRACE_RUH_UPDATE, 0, 0, 0, pid,
                     req->arrival_ns, 0);
    }
    qemu_mutex_unlock(&n->ftl_lock);
    return NVME_SUCCESS;
}
