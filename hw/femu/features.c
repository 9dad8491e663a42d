/*
 * FEMU: Get Features and Set Features (NVMe 2.0 base spec 5.15, 5.27),
 * with the Timestamp and Host Behavior Support features.  The FDP
 * features (1Dh, 1Eh) are fdp.c's.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/timer.h"
#include "femu.h"
#include "trace.h"

/*
 * Timestamp feature (FID 0Eh, NVMe 2.0 5.27.1, "Timestamp"): an 8-byte
 * data structure, bytes 5:0 milliseconds since 1970-01-01 UTC, byte 6
 * attributes (bit 0 Synch, bits 3:1 Timestamp Origin), byte 7 reserved.
 * The value counts from what Set Features stored (origin 001b), or from
 * 0 at the last Controller Level Reset, power-on included (origin 000b).
 * It counts with QEMU's virtual clock, so it stops while the VM is
 * stopped, as the guest's own clock does: Synch is 1 once the VM has
 * stopped since the value was initialized ("may have stopped counting"),
 * otherwise 0.
 */
#define FEMU_TS_SIZE    8

static void femu_timestamp_init(FemuCtrl *n, uint64_t ms, bool host_set)
{
    n->ts_base_ms = ms & FEMU_TS_MASK;
    n->ts_at_ms = qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL);
    n->ts_host_set = host_set;
    n->ts_stopped = false;
}

static void femu_timestamp_get(FemuCtrl *n, bool dflt, uint8_t *buf)
{
    uint64_t ms = 0;

    /* the default is what a Controller Level Reset sets: 0, origin 000b */
    if (!dflt) {
        ms = (n->ts_base_ms + qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL) -
              n->ts_at_ms) & FEMU_TS_MASK;
    }
    stq_le_p(buf, ms);
    /* Timestamp Origin bits 3:1, Synch bit 0 */
    buf[6] = dflt ? 0 : (n->ts_host_set ? 1 : 0) << 1 | n->ts_stopped;
    buf[7] = 0;
}

/*
 * What a Controller Level Reset (power-on included) sets the features
 * to, which is what Get Features with SEL = 000b (default) reports.
 * None of these is saveable, so SEL = 010b (saved) reports it too.
 */
static const FemuFeatures femu_features_default = {
    .arbitration = NVME_ARB_AB_NOLIMIT,
    .temp_thresh_hi = FEMU_WCTEMP,
    .vwc = 1,
};

/*
 * The FTL's write cache (write_cache_mb) follows the Volatile Write Cache
 * feature: turning it off destages everything first (Set Features
 * returns once the destages are charged to the NAND model; a Flush
 * afterwards waits for them), turning it on again starts caching.
 */
void femu_wcache_apply(FemuCtrl *n)
{
    int64_t now = get_clock();
    FemuNamespace *zns = femu_zns_ns(n);
    uint64_t done;

    if (zns && zns->zns && zns_wcache_pages(zns->zns)) {
        /* a zoned namespace's cache (hw/femu/ftl/zone-wcache.c) too */
        femu_ftl_lock_main(n);
        done = zns_wcache_set(zns->zns, n->feat.vwc, now);
        qemu_mutex_unlock(&n->ftl_lock);
        trace_femu_wcache_set(n->feat.vwc, done - now);
    }
    if (!n->ftl || !ftl_wcache_pages(n->ftl)) {
        return;
    }
    femu_ftl_lock_main(n);
    done = ftl_wcache_set(n->ftl, n->feat.vwc, now);
    qemu_mutex_unlock(&n->ftl_lock);
    trace_femu_wcache_set(n->feat.vwc,
                          done == FTL_TIME_ERROR ? 0 : done - now);
}

/*
 * The reset values: femu_features_default, and the interrupt ones that
 * FEMU upstream's properties set (intc_thresh and intc_time: Interrupt
 * Coalescing; intc: the Coalescing Disable bit of every vector).
 */
static void femu_features_defaults(FemuCtrl *n, FemuFeatures *f)
{
    *f = femu_features_default;
    f->int_coalescing = n->params.intc_thresh | (n->params.intc_time << 8);
    memset(f->ivc_cd, n->params.intc, sizeof(f->ivc_cd));
}

void femu_features_reset(FemuCtrl *n)
{
    femu_features_defaults(n, &n->feat);
    femu_timestamp_init(n, 0, false);
    femu_wcache_apply(n);
}

/*
 * Host Behavior Support (FID 16h, NVMe 2.0 5.27.1, "Host Behavior
 * Support"): 512 bytes.  Defined fields: byte 0 bit 0 ACRE, byte 1 bit 0
 * ETDAS, byte 2 bit 0 LBAFEE, byte 3 bit 0 HDISNS (NVMe 2.1; nvme-cli
 * prints it), bytes 5:4 CDFE; everything else reserved.  FEMU keeps
 * ACRE, ETDAS, LBAFEE and HDISNS (none changes what it does: no
 * completion carries a Command Retry Delay, CRDT1-3 = 0; there is no
 * telemetry log; both LBA formats are below 16; no namespace is
 * dispersed), so a host that sets them is not refused.  CDFE enables Copy
 * descriptor formats 2 and 3, and FEMU's Copy has format 0 only: a
 * bit set there, or in any reserved bit or byte, is an Invalid Field.
 */
static uint16_t femu_set_hbs(FemuCtrl *n, NvmeCmd *cmd)
{
    NvmeHostBehaviorSupport h;
    uint16_t status;

    status = femu_dma_cmd(n, cmd, (uint8_t *)&h, sizeof(h), false);
    if (status) {
        return status;
    }
    if ((h.acre & ~1) || (h.etdas & ~1) || (h.lbafee & ~1) ||
        (h.rsvd3 & ~1) || h.cdfe ||
        !buffer_is_zero(h.rsvd6, sizeof(h.rsvd6))) {
        FEMU_GUEST_ERR(femu_set_hbs_bad_field, h.acre, h.etdas, h.lbafee,
                       h.rsvd3, le16_to_cpu(h.cdfe));
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    n->feat.hbs = h;
    return NVME_SUCCESS;
}

/* Get Features (5.15) */
uint16_t femu_get_feature(FemuCtrl *n, NvmeCmd *cmd, uint32_t *res)
{
    uint32_t dw10 = le32_to_cpu(cmd->cdw10);
    uint32_t dw11 = le32_to_cpu(cmd->cdw11);
    uint8_t fid = NVME_GETSETFEAT_FID(dw10);
    uint8_t sel = NVME_GETFEAT_SELECT(dw10);
    bool dflt = sel == NVME_GETFEAT_SELECT_DEFAULT ||
                sel == NVME_GETFEAT_SELECT_SAVED;   /* nothing is saved */
    FemuFeatures reset;
    const FemuFeatures *f = &n->feat;

    if (dflt) {
        femu_features_defaults(n, &reset);
        f = &reset;
    }
    if (sel > NVME_GETFEAT_SELECT_CAP) {
        FEMU_GUEST_ERR(femu_get_feature_bad_sel, fid, sel);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    /*
     * A namespace specific feature is read for one namespace: NSID 0 or
     * FFFFFFFFh (all namespaces) gets Invalid Namespace or Format (NVMe
     * 2.0 5.15, Get Features), as does any NSID but 1.  nvme-cli sends
     * FFFFFFFFh on /dev/nvme0 without -n: `-n 1` reads it.
     */
    if (fid == NVME_ERROR_RECOVERY && le32_to_cpu(cmd->nsid) != 1) {
        FEMU_GUEST_ERR(femu_feature_bad_nsid, false, fid,
                       le32_to_cpu(cmd->nsid));
        return NVME_INVALID_NSID | NVME_DNR;
    }
    switch (fid) {
    case NVME_ARBITRATION:
    case NVME_POWER_MANAGEMENT:
    case NVME_TEMPERATURE_THRESHOLD:
    case NVME_ERROR_RECOVERY:
    case NVME_VOLATILE_WRITE_CACHE:
    case NVME_NUMBER_OF_QUEUES:
    case NVME_INTERRUPT_COALESCING:
    case NVME_INTERRUPT_VECTOR_CONF:
    case NVME_WRITE_ATOMICITY:
    case NVME_ASYNCHRONOUS_EVENT_CONF:
    case NVME_TIMESTAMP:
    case NVME_HOST_BEHAVIOR_SUPPORT:
        break;
    case NVME_FDP_MODE:
    case NVME_FDP_EVENTS:
        return femu_fdp_get_feature(n, cmd, res);
    default:
        FEMU_GUEST_ERR(femu_feature_bad_fid, false, fid);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (sel == NVME_GETFEAT_SELECT_CAP) {
        /*
         * Supported capabilities (5.27.1, Figure "Get Features - SEL 11b"):
         * every feature here is changeable and none saveable; Error
         * Recovery is namespace specific (it holds DULBE).
         */
        *res = NVME_FEAT_CAP_CHANGE |
               (fid == NVME_ERROR_RECOVERY ? NVME_FEAT_CAP_NS : 0);
        return NVME_SUCCESS;
    }
    switch (fid) {
    case NVME_ARBITRATION:
        *res = f->arbitration;
        break;
    case NVME_POWER_MANAGEMENT:
        *res = f->power_mgmt;
        break;
    case NVME_TEMPERATURE_THRESHOLD:
        if (NVME_TEMP_TMPSEL(dw11) != NVME_TEMP_TMPSEL_COMPOSITE) {
            *res = 0;           /* no other sensors: threshold 0 */
            break;
        }
        if (NVME_TEMP_THSEL(dw11) == NVME_TEMP_THSEL_OVER) {
            *res = f->temp_thresh_hi;
        } else if (NVME_TEMP_THSEL(dw11) == NVME_TEMP_THSEL_UNDER) {
            *res = f->temp_thresh_lo;
        } else {
            FEMU_GUEST_ERR(femu_feature_bad_thsel, false, dw11);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        break;
    case NVME_ERROR_RECOVERY:
        *res = f->err_rec;
        break;
    case NVME_VOLATILE_WRITE_CACHE:
        /* with write_cache_mb the cache follows the feature (on at
         * reset, Set Features turns it off and on) */
        *res = f->vwc;
        break;
    case NVME_NUMBER_OF_QUEUES:
        *res = (n->params.queues - 1) | ((n->params.queues - 1) << 16);
        break;
    case NVME_INTERRUPT_COALESCING:
        *res = f->int_coalescing;
        break;
    case NVME_INTERRUPT_VECTOR_CONF:
        if ((dw11 & 0xffff) > n->params.queues) {
            FEMU_GUEST_ERR(femu_feature_bad_ivc_vector, false, dw11 & 0xffff,
                           n->params.queues);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        /* CD as Set stored it (5.27.1.10); the reset value is intc */
        *res = (dw11 & 0xffff) |
               (f->ivc_cd[dw11 & 0xffff] ? NVME_INTVC_NOCOALESCING : 0);
        break;
    case NVME_WRITE_ATOMICITY:
        *res = f->write_atomicity;
        break;
    case NVME_ASYNCHRONOUS_EVENT_CONF:
        *res = f->async_config;
        break;
    case NVME_TIMESTAMP: {
        uint8_t ts[FEMU_TS_SIZE];

        femu_timestamp_get(n, dflt, ts);
        return femu_dma_cmd(n, cmd, ts, sizeof(ts), true);
    }
    case NVME_HOST_BEHAVIOR_SUPPORT: {
        NvmeHostBehaviorSupport h = f->hbs;

        return femu_dma_cmd(n, cmd, (uint8_t *)&h, sizeof(h), true);
    }
    }
    return NVME_SUCCESS;
}

/*
 * The temperature is at or above the over-temperature threshold, or at
 * or below an under-temperature threshold that is set (not 0): SMART
 * critical warning bit 1, and an asynchronous event when enabled.
 */
bool femu_temp_warning(FemuCtrl *n)
{
    return n->temperature >= n->feat.temp_thresh_hi ||
           (n->feat.temp_thresh_lo &&
            n->temperature <= n->feat.temp_thresh_lo);
}

static void femu_check_temperature(FemuCtrl *n)
{
    if (femu_temp_warning(n) && (NVME_AEC_SMART(n->feat.async_config) &
                                 NVME_SMART_TEMPERATURE)) {
        femu_aer_event(n, NVME_AER_TYPE_SMART,
                       NVME_AER_INFO_SMART_TEMP_THRESH, NVME_LOG_SMART_INFO);
    }
}

/* Set Features (5.27) */
uint16_t femu_set_feature(FemuCtrl *n, NvmeCmd *cmd, uint32_t *res)
{
    uint32_t dw10 = le32_to_cpu(cmd->cdw10);
    uint32_t dw11 = le32_to_cpu(cmd->cdw11);
    uint8_t fid = NVME_GETSETFEAT_FID(dw10);

    /*
     * SV (CDW10 bit 31): only the FDP features are saveable (their Get
     * Features SEL = 3 says so); saving any other one is refused (5.27).
     */
    if (NVME_SETFEAT_SAVE(dw10) && fid != NVME_FDP_MODE &&
        fid != NVME_FDP_EVENTS) {
        FEMU_GUEST_ERR(femu_set_feature_not_saveable, fid);
        return NVME_FID_NOT_SAVEABLE | NVME_DNR;
    }
    /*
     * A namespace specific feature is set for NSID 1 or for every
     * namespace (FFFFFFFFh); NSID 0 or an inactive NSID gets Invalid
     * Namespace or Format (NVMe 2.0 5.27, Set Features).
     */
    if (fid == NVME_ERROR_RECOVERY && le32_to_cpu(cmd->nsid) != 1 &&
        le32_to_cpu(cmd->nsid) != NVME_NSID_BROADCAST) {
        FEMU_GUEST_ERR(femu_feature_bad_nsid, true, fid,
                       le32_to_cpu(cmd->nsid));
        return NVME_INVALID_NSID | NVME_DNR;
    }
    switch (fid) {
    case NVME_ARBITRATION:
        /* AB bits 2:0, LPW/MPW/HPW bytes 1-3; bits 7:3 are reserved */
        n->feat.arbitration = dw11 & 0xffffff07;
        break;
    case NVME_POWER_MANAGEMENT:
        if ((dw11 & 0x1f) > 0) {    /* NPSS = 0: only power state 0 */
            FEMU_GUEST_ERR(femu_set_feature_bad_power_state, dw11);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        n->feat.power_mgmt = dw11 & 0xff;      /* PS 4:0, WH 7:5 */
        break;
    case NVME_TEMPERATURE_THRESHOLD:
        if (NVME_TEMP_TMPSEL(dw11) != NVME_TEMP_TMPSEL_COMPOSITE) {
            break;              /* sensors that do not exist: ignored */
        }
        if (NVME_TEMP_THSEL(dw11) == NVME_TEMP_THSEL_OVER) {
            n->feat.temp_thresh_hi = NVME_TEMP_TMPTH(dw11);
        } else if (NVME_TEMP_THSEL(dw11) == NVME_TEMP_THSEL_UNDER) {
            n->feat.temp_thresh_lo = NVME_TEMP_TMPTH(dw11);
        } else {
            FEMU_GUEST_ERR(femu_feature_bad_thsel, true, dw11);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        femu_check_temperature(n);
        break;
    case NVME_ERROR_RECOVERY:
        /* DULBE only where namespace 1 reports it (NSFEAT bit 2): reads
         * of deallocated or unwritten blocks then fail (io.c) */
        if (NVME_ERR_REC_DULBE(dw11) && !n->ns[0].mode->dulbe) {
            FEMU_GUEST_ERR(femu_set_feature_dulbe, dw11);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        /* TLER and DULBE; pollers read it (io.c) */
        qatomic_set(&n->feat.err_rec, dw11 & 0x1ffff);
        break;
    case NVME_VOLATILE_WRITE_CACHE:
        n->feat.vwc = dw11 & 1;
        femu_wcache_apply(n);
        break;
    case NVME_NUMBER_OF_QUEUES:
        if ((dw11 & 0xffff) == 0xffff || (dw11 >> 16) == 0xffff) {
            FEMU_GUEST_ERR(femu_set_feature_bad_nq, dw11);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        /*
         * Number of Queues (5.27.1.5) may only be set before any I/O
         * queue exists; afterwards Command Sequence Error.
         */
        for (uint32_t i = 1; i <= n->params.queues; i++) {
            if (n->sq[i] || n->cq[i]) {
                FEMU_GUEST_ERR(femu_set_feature_nq_after_queues, i);
                return NVME_CMD_SEQ_ERROR | NVME_DNR;
            }
        }
        n->feat.nq_set = true;
        *res = (n->params.queues - 1) | ((n->params.queues - 1) << 16);
        break;
    case NVME_INTERRUPT_COALESCING:
        /* THR and TIME; the pollers read it at each CQE (queues.c) */
        qatomic_set(&n->feat.int_coalescing, dw11 & 0xffff);
        break;
    case NVME_INTERRUPT_VECTOR_CONF:
        if ((dw11 & 0xffff) > n->params.queues) {
            FEMU_GUEST_ERR(femu_feature_bad_ivc_vector, true, dw11 & 0xffff,
                           n->params.queues);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        qatomic_set(&n->feat.ivc_cd[dw11 & 0xffff],
                    !!(dw11 & NVME_INTVC_NOCOALESCING));
        break;
    case NVME_WRITE_ATOMICITY:
        n->feat.write_atomicity = dw11 & 1;
        break;
    case NVME_ASYNCHRONOUS_EVENT_CONF:
        n->feat.async_config = dw11;
        break;
    case NVME_TIMESTAMP: {
        uint8_t ts[FEMU_TS_SIZE];
        uint16_t status = femu_dma_cmd(n, cmd, ts, sizeof(ts), false);

        if (status) {
            return status;
        }
        /* bytes 7:6 (Synch, origin) are the controller's: not taken */
        femu_timestamp_init(n, ldq_le_p(ts), true);
        break;
    }
    case NVME_HOST_BEHAVIOR_SUPPORT:
        return femu_set_hbs(n, cmd);
    case NVME_FDP_MODE:
    case NVME_FDP_EVENTS:
        return femu_fdp_set_feature(n, cmd, res);
    default:
        FEMU_GUEST_ERR(femu_feature_bad_fid, true, fid);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    return NVME_SUCCESS;
}
