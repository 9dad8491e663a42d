/*
 * FEMU: the admin command set (NVMe 2.0 base spec, 5), run in the main
 * loop from a bottom half scheduled by the admin SQ doorbell.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/cutils.h"
#include "qemu/timer.h"
#include "hw/pci/msix.h"
#include "femu.h"
#include "trace.h"

#define FEMU_MODEL_BBSSD    "FEMU BlackBox-SSD Controller"
#define FEMU_MODEL_NOSSD    "FEMU NoSSD Controller"
#define FEMU_MODEL_ZNS      "FEMU ZNS-SSD Controller"
#define FEMU_FW_REV         "1.0"
/*
 * Identify Namespace NSFEAT bits 5:4, OPTPERF = 01b: NPWG, NPWA, NPDG,
 * NPDA and NOWS are valid (block/nvme.h names only both bits together)
 */
#define FEMU_NSFEAT_OPTPERF (1 << 4)

/* Space-padded ASCII fields of Identify Controller (5.17.2.1). */
static void femu_strpad(uint8_t *dst, size_t len, const char *src)
{
    size_t l = MIN(strlen(src), len);

    memset(dst, ' ', len);
    memcpy(dst, src, l);
}

void femu_error_record(FemuCtrl *n, uint16_t sqid, NvmeCmd *cmd,
                       uint16_t status)
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
     * I/O read/write/zeroes command that was out of range.
     */
    if (sqid && (status & 0x7ff) == NVME_LBA_RANGE &&
        (cmd->opcode == NVME_CMD_READ || cmd->opcode == NVME_CMD_WRITE ||
         cmd->opcode == NVME_CMD_WRITE_ZEROES)) {
        e->lba = ((NvmeRwCmd *)cmd)->slba;
    }
    qemu_mutex_unlock(&n->err_lock);
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

/* Controller Level Reset (and power-on): features kept here restart. */
void femu_admin_ctrl_reset(FemuCtrl *n)
{
    femu_timestamp_init(n, 0, false);
    memset(&n->hbs, 0, sizeof(n->hbs));
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
 * descriptor formats, and FEMU has no Copy command (ONCS bit 8 = 0): a
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
    n->hbs = h;
    return NVME_SUCCESS;
}

static uint16_t femu_identify_ctrl(FemuCtrl *n, NvmeCmd *cmd)
{
    NvmeIdCtrl id = {};
    char subnqn[64];

    id.vid = cpu_to_le16(FEMU_PCI_VENDOR_ID);
    id.ssvid = cpu_to_le16(FEMU_PCI_VENDOR_ID);
    femu_strpad(id.sn, sizeof(id.sn), n->sn);
    femu_strpad(id.mn, sizeof(id.mn),
                femu_is_bbssd(n) ? FEMU_MODEL_BBSSD :
                femu_is_zns(n) ? FEMU_MODEL_ZNS : FEMU_MODEL_NOSSD);
    femu_strpad(id.fr, sizeof(id.fr), FEMU_FW_REV);
    id.rab = 6;
    id.ieee[0] = 0x1d;
    id.ieee[1] = 0x1d;
    id.ieee[2] = 0x1d;
    id.mdts = n->mdts;
    id.cntlid = cpu_to_le16(n->instance);
    id.ver = n->bar.vs;              /* both little-endian */
    id.ctratt = cpu_to_le32(femu_fdp_ctratt(n));
    id.cntrltype = 1;               /* I/O controller */
    /* Directive Send/Receive with the Identify directive always */
    id.oacs = cpu_to_le16(NVME_OACS_DBCS | NVME_OACS_DIRECTIVES);
    id.acl = 3;
    id.aerl = FEMU_AERL;
    /*
     * OAES bit 8, Namespace Attribute Notices (5.17.2.1), with the
     * Changed Namespace List log page (04h) that goes with it.  FEMU's
     * one namespace never changes, so the notice never comes; but Linux
     * (nvme_enable_aen) submits Asynchronous Event Requests only to a
     * controller that reports a notice it handles in OAES.  Without it no
     * AEN (SMART temperature, Error events) ever reaches a Linux host.
     * In mode 3 also bit 27, Zone Descriptor Changed Notices (ZNS Command
     * Set 1.1, Identify Controller), with log page BFh.
     */
    id.oaes = cpu_to_le32(NVME_OAES_NS_ATTR |
                          (femu_is_zns(n) ? FEMU_OAES_ZDCN : 0));
    id.frmw = NVME_FRMW_SLOT1_RO | (1 << 1);    /* one read-only slot */
    /*
     * LPA (5.17.2.1): bit 0, the SMART / Health log page per namespace.
     * With one namespace its counters are the controller's, so NSID 1
     * and FFFFFFFFh (or 0) read the same page.
     */
    id.lpa = NVME_LPA_NS_SMART | NVME_LPA_CSE | NVME_LPA_EXTENDED;
    id.elpe = FEMU_ELPE;
    id.npss = 0;
    id.wctemp = cpu_to_le16(343);
    id.cctemp = cpu_to_le16(373);
    id.endgidmax = cpu_to_le16(femu_fdp_endgid(n));
    id.sqes = (FEMU_SQES << 4) | FEMU_SQES;
    id.cqes = (FEMU_CQES << 4) | FEMU_CQES;
    /* a queue of mqes + 1 entries; MAXCMD is 16 bits: mqes=65535 would
     * wrap to 0 */
    id.maxcmd = cpu_to_le16(MIN((uint32_t)n->mqes + 1, UINT16_MAX));
    id.nn = cpu_to_le32(1);
    id.oncs = cpu_to_le16(NVME_ONCS_DSM | NVME_ONCS_WRITE_ZEROES |
                          NVME_ONCS_FEATURES | NVME_ONCS_TIMESTAMP);
    id.vwc = NVME_VWC_PRESENT | NVME_VWC_NSID_BROADCAST_SUPPORT;
    id.sgls = 0;                    /* PRPs only */
    snprintf(subnqn, sizeof(subnqn), "nqn.2026-01.io.femu:%s", n->sn);
    pstrcpy((char *)id.subnqn, sizeof(id.subnqn), subnqn);
    /* power state 0: 25 W, no entry/exit latency */
    id.psd[0].mp = cpu_to_le16(2500);
    return femu_dma_cmd(n, cmd, (uint8_t *)&id, sizeof(id), true);
}

static void femu_fill_id_ns(FemuCtrl *n, NvmeIdNs *id)
{
    uint32_t pg_lbas = (n->cfg.secs_per_pg * 512) >> n->lba_shift;

    uint64_t nuse = n->ns_blocks;

    /*
     * NUSE (NVM Command Set spec 4.1.5.1, Identify Namespace): with an
     * FTL the namespace is thin provisioned (NSFEAT bit 0), so NUSE is
     * what the mapping table holds: written logical pages that were not
     * deallocated since, in logical blocks.  The FTL maps whole NAND
     * pages (NPDG), so a 512 B write counts its page's blocks.  NoSSD
     * has no mapping: NUSE = NCAP, as the spec allows.
     */
    if (n->ftl) {
        femu_ftl_lock_main(n);
        nuse = MIN(ftl_mapped_pages(n->ftl) * MAX(pg_lbas, 1), n->ns_blocks);
        qemu_mutex_unlock(&n->ftl_lock);
    }
    id->nsze = cpu_to_le64(n->ns_blocks);
    id->ncap = cpu_to_le64(n->ns_blocks);
    id->nuse = cpu_to_le64(nuse);
    /* OPTPERF: NPWG/NPWA give the NAND page as the write granularity */
    id->nsfeat = FEMU_NSFEAT_OPTPERF | (n->ftl ? NVME_ID_NS_NSFEAT_THINP : 0);
    id->nlbaf = 1;                  /* two formats, 0-based */
    id->flbas = n->cfg.secsz == 4096 ? 1 : 0;
    /* DLFEAT: deallocated blocks read as zeroes; Write Zeroes deallocates.
     * A zoned namespace takes deallocation as a hint (the data stays) and
     * writes its zeroes at the write pointer: nothing to report. */
    id->dlfeat = femu_is_zns(n) ? 0 : 0x1 | (1 << 3);
    id->npwg = cpu_to_le16(pg_lbas ? pg_lbas - 1 : 0);
    id->npwa = id->npwg;
    id->npdg = id->npwg;
    id->npda = id->npwg;
    id->nows = id->npwg;
    id->endgid = cpu_to_le16(femu_fdp_endgid(n));
    id->lbaf[0].ds = 9;
    id->lbaf[1].ds = 12;
    id->lbaf[0].rp = n->cfg.secsz == 512 ? 0 : 2;
    id->lbaf[1].rp = n->cfg.secsz == 4096 ? 0 : 2;
    /* identifiers unique per instance (Linux rejects duplicates) */
    id->eui64 = cpu_to_be64(0x1d1d1d0000000000ULL + n->instance);
    id->nguid[0] = 0x1d;
    id->nguid[1] = 0x1d;
    id->nguid[15] = n->instance & 0xff;
    id->nguid[14] = (n->instance >> 8) & 0xff;
}

static uint16_t femu_identify(FemuCtrl *n, NvmeCmd *cmd)
{
    NvmeIdentify *c = (NvmeIdentify *)cmd;
    uint32_t nsid = le32_to_cpu(c->nsid);
    uint8_t buf[NVME_IDENTIFY_DATA_SIZE] = {};

    switch (c->cns) {
    case NVME_ID_CNS_CTRL:
        return femu_identify_ctrl(n, cmd);
    case NVME_ID_CNS_NS:
    case NVME_ID_CNS_CS_NS:
    case NVME_ID_CNS_CS_IND_NS:
        /*
         * NSID FFFFFFFFh asks for the capabilities common to all
         * namespaces, which only a controller with Namespace Management
         * reports; without it (OACS bit 3 = 0) the command is aborted
         * with Invalid Namespace or Format (NVMe 2.0 5.17.2.1, CNS 00h).
         * Other NSIDs than 1 are invalid here (NN = 1, 3.2.1.2).
         */
        if (nsid != 1) {
            FEMU_GUEST_ERR(femu_identify_bad_nsid, c->cns, nsid);
            return NVME_INVALID_NSID | NVME_DNR;
        }
        if (c->cns == NVME_ID_CNS_CS_NS && c->csi == NVME_CSI_ZONED &&
            femu_is_zns(n)) {
            femu_zns_identify_ns(n, buf);
            break;
        }
        if (c->cns == NVME_ID_CNS_CS_NS && c->csi != 0) {
            FEMU_GUEST_ERR(femu_identify_bad_csi, c->cns, c->csi);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        if (c->cns == NVME_ID_CNS_NS) {
            femu_fill_id_ns(n, (NvmeIdNs *)buf);
        } else if (c->cns == NVME_ID_CNS_CS_IND_NS) {
            NvmeIdNsInd *ind = (NvmeIdNsInd *)buf;
            ind->nsfeat = FEMU_NSFEAT_OPTPERF;
            ind->endgrpid = cpu_to_le16(femu_fdp_endgid(n));
            ind->nstat = 1;         /* namespace ready */
        }
        /* CNS 05h with CSI NVM: NvmeIdNsNvm, all zero (no PI formats) */
        break;
    case NVME_ID_CNS_CS_CTRL:
        if (c->csi == NVME_CSI_ZONED && femu_is_zns(n)) {
            femu_zns_identify_ctrl(n, buf);
            break;
        }
        if (c->csi != 0) {
            FEMU_GUEST_ERR(femu_identify_bad_csi, c->cns, c->csi);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        {
            NvmeIdCtrlNvm *id = (NvmeIdCtrlNvm *)buf;
            uint64_t dsm_blocks = FEMU_DSM_MAX_BYTES >> n->lba_shift;

            /* Write Zeroes: WZSL 0, its 16-bit NLB is the only limit;
             * Dataset Management: what io.c enforces */
            id->dmrl = FEMU_DSM_MAX_RANGES;
            id->dmrsl = cpu_to_le32(dsm_blocks);
            id->dmsl = cpu_to_le64(dsm_blocks);
        }
        break;
    case NVME_ID_CNS_NS_ACTIVE_LIST:
    case NVME_ID_CNS_CS_NS_ACTIVE_LIST:
        if (nsid >= 0xfffffffe) {
            FEMU_GUEST_ERR(femu_identify_bad_nsid, c->cns, nsid);
            return NVME_INVALID_NSID | NVME_DNR;
        }
        if (c->cns == NVME_ID_CNS_CS_NS_ACTIVE_LIST && c->csi != 0 &&
            !(c->csi == NVME_CSI_ZONED && femu_is_zns(n))) {
            FEMU_GUEST_ERR(femu_identify_bad_csi, c->cns, c->csi);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        if (nsid < 1) {
            stl_le_p(buf, 1);
        }
        break;
    case NVME_ID_CNS_NS_DESCR_LIST:
        if (nsid != 1) {
            FEMU_GUEST_ERR(femu_identify_bad_nsid, c->cns, nsid);
            return NVME_INVALID_NSID | NVME_DNR;
        }
        {
            /* 5.17.2.3: EUI64, NGUID, UUID, command set identifier */
            NvmeIdNs id = {};
            uint8_t *p = buf;

            femu_fill_id_ns(n, &id);
            p[0] = NVME_NIDT_EUI64; p[1] = NVME_NIDL_EUI64;
            memcpy(p + 4, &id.eui64, 8);
            p += 4 + 8;
            p[0] = NVME_NIDT_NGUID; p[1] = NVME_NIDL_NGUID;
            memcpy(p + 4, id.nguid, 16);
            p += 4 + 16;
            if (!qemu_uuid_is_null(&n->uuid)) {
                p[0] = NVME_NIDT_UUID; p[1] = NVME_NIDL_UUID;
                memcpy(p + 4, n->uuid.data, NVME_NIDL_UUID);
                p += 4 + NVME_NIDL_UUID;
            }
            p[0] = NVME_NIDT_CSI; p[1] = NVME_NIDL_CSI;
            p[4] = femu_is_zns(n) ? NVME_CSI_ZONED : NVME_CSI_NVM;
        }
        break;
    case NVME_ID_CNS_IO_COMMAND_SET:
        /* one I/O command set combination: NVM (bit 0), with Zoned
         * Namespace (bit 2) in femu_mode=3 */
        stq_le_p(buf, femu_is_zns(n) ? 1 << NVME_CSI_NVM | 1 << NVME_CSI_ZONED
                                     : 1);
        break;
    case NVME_ID_CNS_ENDURANCE_GROUP_LIST:
        if (femu_fdp_endgid(n)) {
            stw_le_p(buf, 1);
            stw_le_p(buf + 2, femu_fdp_endgid(n));
        }
        break;
    default:
        FEMU_GUEST_ERR(femu_identify_bad_cns, c->cns);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    return femu_dma_cmd(n, cmd, buf, sizeof(buf), true);
}

static uint16_t femu_create_cq(FemuCtrl *n, NvmeCmd *cmd)
{
    NvmeCreateCq *c = (NvmeCreateCq *)cmd;
    uint16_t cqid = le16_to_cpu(c->cqid);
    uint32_t size = (uint32_t)le16_to_cpu(c->qsize) + 1;
    uint16_t flags = le16_to_cpu(c->cq_flags);
    uint16_t vector = le16_to_cpu(c->irq_vector);
    uint64_t addr = le64_to_cpu(c->prp1);

    trace_femu_create_cq(cqid, size, vector, NVME_CQ_FLAGS_IEN(flags));
    if (!cqid || cqid > n->queues || n->cq[cqid]) {
        FEMU_GUEST_ERR(femu_create_q_bad_qid, true, cqid, n->queues);
        return NVME_INVALID_QID | NVME_DNR;
    }
    if (size < 2 || size > (uint32_t)n->mqes + 1) {
        FEMU_GUEST_ERR(femu_create_q_bad_size, true, size, n->mqes + 1);
        return NVME_MAX_QSIZE_EXCEEDED | NVME_DNR;
    }
    if (!NVME_CQ_FLAGS_PC(flags)) {
        FEMU_GUEST_ERR(femu_create_q_not_contiguous, true, cqid);
        return NVME_INVALID_FIELD | NVME_DNR;   /* CAP.CQR = 1 */
    }
    if (vector > n->queues ||
        (vector && !msix_enabled(PCI_DEVICE(n)))) {
        FEMU_GUEST_ERR(femu_create_cq_bad_vector, cqid, vector,
                       msix_enabled(PCI_DEVICE(n)));
        return NVME_INVALID_IRQ_VECTOR | NVME_DNR;
    }
    if (!addr || (addr & (FEMU_PAGE_SIZE - 1))) {
        FEMU_GUEST_ERR(femu_create_q_bad_addr, true, cqid, addr);
        return NVME_INVALID_PRP_OFFSET | NVME_DNR;
    }
    if (!femu_dma_is_ram(n, addr, (uint64_t)size << FEMU_CQES, true)) {
        FEMU_GUEST_ERR(femu_create_q_not_ram, true, cqid, addr, size);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    femu_cq_new(n, cqid, addr, size, vector, NVME_CQ_FLAGS_IEN(flags));
    return NVME_SUCCESS;
}

static uint16_t femu_create_sq(FemuCtrl *n, NvmeCmd *cmd)
{
    NvmeCreateSq *c = (NvmeCreateSq *)cmd;
    uint16_t sqid = le16_to_cpu(c->sqid);
    uint16_t cqid = le16_to_cpu(c->cqid);
    uint32_t size = (uint32_t)le16_to_cpu(c->qsize) + 1;
    uint16_t flags = le16_to_cpu(c->sq_flags);
    uint64_t addr = le64_to_cpu(c->prp1);

    trace_femu_create_sq(sqid, size, cqid);
    if (!sqid || sqid > n->queues || n->sq[sqid]) {
        FEMU_GUEST_ERR(femu_create_q_bad_qid, false, sqid, n->queues);
        return NVME_INVALID_QID | NVME_DNR;
    }
    if (!cqid || cqid > n->queues || !n->cq[cqid]) {
        FEMU_GUEST_ERR(femu_create_sq_bad_cqid, sqid, cqid);
        return NVME_INVALID_CQID | NVME_DNR;
    }
    if (size < 2 || size > (uint32_t)n->mqes + 1) {
        FEMU_GUEST_ERR(femu_create_q_bad_size, false, size, n->mqes + 1);
        return NVME_MAX_QSIZE_EXCEEDED | NVME_DNR;
    }
    if (!NVME_SQ_FLAGS_PC(flags)) {
        FEMU_GUEST_ERR(femu_create_q_not_contiguous, false, sqid);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (!addr || (addr & (FEMU_PAGE_SIZE - 1))) {
        FEMU_GUEST_ERR(femu_create_q_bad_addr, false, sqid, addr);
        return NVME_INVALID_PRP_OFFSET | NVME_DNR;
    }
    if (!femu_dma_is_ram(n, addr, (uint64_t)size << FEMU_SQES, false)) {
        FEMU_GUEST_ERR(femu_create_q_not_ram, false, sqid, addr, size);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    femu_sq_new(n, sqid, addr, size, n->cq[cqid]);
    return NVME_SUCCESS;
}

static uint16_t femu_delete_sq(FemuCtrl *n, NvmeCmd *cmd)
{
    uint16_t qid = le16_to_cpu(((NvmeDeleteQ *)cmd)->qid);

    trace_femu_delete_q(qid, false);
    if (!qid || qid > n->queues || !n->sq[qid]) {
        FEMU_GUEST_ERR(femu_delete_q_bad_qid, false, qid);
        return NVME_INVALID_QID | NVME_DNR;
    }
    femu_sq_free(n, n->sq[qid]);
    return NVME_SUCCESS;
}

static uint16_t femu_delete_cq(FemuCtrl *n, NvmeCmd *cmd)
{
    uint16_t qid = le16_to_cpu(((NvmeDeleteQ *)cmd)->qid);

    trace_femu_delete_q(qid, true);
    if (!qid || qid > n->queues || !n->cq[qid]) {
        FEMU_GUEST_ERR(femu_delete_q_bad_qid, true, qid);
        return NVME_INVALID_QID | NVME_DNR;
    }
    if (n->cq[qid]->nsqs) {
        FEMU_GUEST_ERR(femu_delete_cq_in_use, qid, n->cq[qid]->nsqs);
        return NVME_INVALID_QUEUE_DEL | NVME_DNR;
    }
    femu_cq_free(n, n->cq[qid]);
    return NVME_SUCCESS;
}

/* Get/Set Features (5.27.1 / 5.15) */
static uint16_t femu_get_feature(FemuCtrl *n, NvmeCmd *cmd, uint32_t *res)
{
    uint32_t dw10 = le32_to_cpu(cmd->cdw10);
    uint32_t dw11 = le32_to_cpu(cmd->cdw11);
    uint8_t fid = NVME_GETSETFEAT_FID(dw10);
    uint8_t sel = NVME_GETFEAT_SELECT(dw10);
    bool dflt = sel == NVME_GETFEAT_SELECT_DEFAULT ||
                sel == NVME_GETFEAT_SELECT_SAVED;   /* nothing is saved */

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
        *res = dflt ? NVME_ARB_AB_NOLIMIT : n->feat_arbitration;
        break;
    case NVME_POWER_MANAGEMENT:
        *res = dflt ? 0 : n->feat_power_mgmt;
        break;
    case NVME_TEMPERATURE_THRESHOLD:
        if (NVME_TEMP_TMPSEL(dw11) != NVME_TEMP_TMPSEL_COMPOSITE) {
            *res = 0;           /* no other sensors: threshold 0 */
            break;
        }
        if (NVME_TEMP_THSEL(dw11) == NVME_TEMP_THSEL_OVER) {
            *res = dflt ? 343 : n->temp_thresh_hi;
        } else if (NVME_TEMP_THSEL(dw11) == NVME_TEMP_THSEL_UNDER) {
            *res = dflt ? 0 : n->temp_thresh_lo;
        } else {
            FEMU_GUEST_ERR(femu_feature_bad_thsel, false, dw11);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        break;
    case NVME_ERROR_RECOVERY:
        *res = dflt ? 0 : n->feat_err_rec;
        break;
    case NVME_VOLATILE_WRITE_CACHE:
        *res = dflt ? 1 : n->feat_vwc;
        break;
    case NVME_NUMBER_OF_QUEUES:
        *res = (n->queues - 1) | ((n->queues - 1) << 16);
        break;
    case NVME_INTERRUPT_COALESCING:
        *res = dflt ? 0 : n->feat_int_coalescing;
        break;
    case NVME_INTERRUPT_VECTOR_CONF:
        if ((dw11 & 0xffff) > n->queues) {
            FEMU_GUEST_ERR(femu_feature_bad_ivc_vector, false, dw11 & 0xffff,
                           n->queues);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        /*
         * Coalescing is never applied, so CD reads 1 for every vector
         * until the host clears it; Get returns what Set stored (5.27.1.10).
         */
        *res = (dw11 & 0xffff) |
               (n->ivc_cd_clear[dw11 & 0xffff] ? 0 : NVME_INTVC_NOCOALESCING);
        break;
    case NVME_WRITE_ATOMICITY:
        *res = dflt ? 0 : n->feat_write_atomicity;
        break;
    case NVME_ASYNCHRONOUS_EVENT_CONF:
        *res = dflt ? 0 : n->feat_async_config;
        break;
    case NVME_TIMESTAMP: {
        uint8_t ts[FEMU_TS_SIZE];

        femu_timestamp_get(n, dflt, ts);
        return femu_dma_cmd(n, cmd, ts, sizeof(ts), true);
    }
    case NVME_HOST_BEHAVIOR_SUPPORT: {
        NvmeHostBehaviorSupport h = {};

        if (!dflt) {
            h = n->hbs;
        }
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
    return n->temperature >= n->temp_thresh_hi ||
           (n->temp_thresh_lo && n->temperature <= n->temp_thresh_lo);
}

static void femu_check_temperature(FemuCtrl *n)
{
    if (femu_temp_warning(n) && (NVME_AEC_SMART(n->feat_async_config) &
                                 NVME_SMART_TEMPERATURE)) {
        femu_aer_event(n, NVME_AER_TYPE_SMART,
                       NVME_AER_INFO_SMART_TEMP_THRESH, NVME_LOG_SMART_INFO);
    }
}

static uint16_t femu_set_feature(FemuCtrl *n, NvmeCmd *cmd, uint32_t *res)
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
        n->feat_arbitration = dw11 & 0xffffff07;
        break;
    case NVME_POWER_MANAGEMENT:
        if ((dw11 & 0x1f) > 0) {    /* NPSS = 0: only power state 0 */
            FEMU_GUEST_ERR(femu_set_feature_bad_power_state, dw11);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        n->feat_power_mgmt = dw11 & 0xff;      /* PS 4:0, WH 7:5 */
        break;
    case NVME_TEMPERATURE_THRESHOLD:
        if (NVME_TEMP_TMPSEL(dw11) != NVME_TEMP_TMPSEL_COMPOSITE) {
            break;              /* sensors that do not exist: ignored */
        }
        if (NVME_TEMP_THSEL(dw11) == NVME_TEMP_THSEL_OVER) {
            n->temp_thresh_hi = NVME_TEMP_TMPTH(dw11);
        } else if (NVME_TEMP_THSEL(dw11) == NVME_TEMP_THSEL_UNDER) {
            n->temp_thresh_lo = NVME_TEMP_TMPTH(dw11);
        } else {
            FEMU_GUEST_ERR(femu_feature_bad_thsel, true, dw11);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        femu_check_temperature(n);
        break;
    case NVME_ERROR_RECOVERY:
        if (NVME_ERR_REC_DULBE(dw11)) {
            /* deallocated blocks read as zeroes, never as errors */
            FEMU_GUEST_ERR(femu_set_feature_dulbe, dw11);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        n->feat_err_rec = dw11 & 0xffff;       /* TLER; DULBE is 0 */
        break;
    case NVME_VOLATILE_WRITE_CACHE:
        n->feat_vwc = dw11 & 1;
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
        for (uint32_t i = 1; i <= n->queues; i++) {
            if (n->sq[i] || n->cq[i]) {
                FEMU_GUEST_ERR(femu_set_feature_nq_after_queues, i);
                return NVME_CMD_SEQ_ERROR | NVME_DNR;
            }
        }
        n->nq_set = true;
        *res = (n->queues - 1) | ((n->queues - 1) << 16);
        break;
    case NVME_INTERRUPT_COALESCING:
        n->feat_int_coalescing = dw11 & 0xffff;
        break;
    case NVME_INTERRUPT_VECTOR_CONF:
        if ((dw11 & 0xffff) > n->queues) {
            FEMU_GUEST_ERR(femu_feature_bad_ivc_vector, true, dw11 & 0xffff,
                           n->queues);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        n->ivc_cd_clear[dw11 & 0xffff] = !(dw11 & NVME_INTVC_NOCOALESCING);
        break;
    case NVME_WRITE_ATOMICITY:
        n->feat_write_atomicity = dw11 & 1;
        break;
    case NVME_ASYNCHRONOUS_EVENT_CONF:
        n->feat_async_config = dw11;
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

static uint16_t femu_dbbuf_config(FemuCtrl *n, NvmeCmd *cmd)
{
    uint64_t dbs = le64_to_cpu(cmd->dptr.prp1);
    uint64_t eis = le64_to_cpu(cmd->dptr.prp2);

    trace_femu_dbbuf_config(dbs, eis);
    /* both buffers: one page, page aligned, in RAM (5.8) */
    if (!dbs || !eis || (dbs & (FEMU_PAGE_SIZE - 1)) ||
        (eis & (FEMU_PAGE_SIZE - 1)) ||
        !femu_dma_is_ram(n, dbs, FEMU_PAGE_SIZE, true) ||
        !femu_dma_is_ram(n, eis, FEMU_PAGE_SIZE, true)) {
        FEMU_GUEST_ERR(femu_dbbuf_config_bad, dbs, eis);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    /* pollers read the doorbell addresses: change them under their locks */
    femu_pollers_lock_all(n);
    n->dbbuf_dbs = dbs;
    n->dbbuf_eis = eis;
    for (uint32_t i = 1; i <= n->queues; i++) {
        if (n->sq[i]) {
            femu_dbbuf_attach(n, n->sq[i]);
        }
    }
    femu_pollers_unlock_all(n);
    return NVME_SUCCESS;
}

/*
 * Directives (NVMe 2.0 base spec: section "Directives" and the Directive
 * Send / Directive Receive admin commands).  Directive types: Identify
 * (00h) always, Data Placement (02h) when the subsystem has fdp=on;
 * Streams (01h) is not supported.
 * CDW11: DOPER bits 7:0, DTYPE bits 15:8, DSPEC bits 31:16.
 */
static uint8_t femu_directives_supported(FemuCtrl *n)
{
    return 1 << NVME_DIRECTIVE_IDENTIFY |
           (femu_fdp_endgid(n) ? 1 << NVME_DIRECTIVE_DATA_PLACEMENT : 0);
}

static uint16_t femu_directive_nsid(NvmeCmd *cmd)
{
    uint32_t nsid = le32_to_cpu(cmd->nsid);

    if (nsid == 1) {
        return NVME_SUCCESS;
    }
    FEMU_GUEST_ERR(femu_directive_bad_nsid, nsid);
    /* the return parameters and enables are per namespace */
    return nsid == NVME_NSID_BROADCAST ? NVME_INVALID_FIELD | NVME_DNR :
                                         NVME_INVALID_NSID | NVME_DNR;
}

static uint16_t femu_directive_recv(FemuCtrl *n, NvmeCmd *cmd)
{
    uint32_t dw11 = le32_to_cpu(cmd->cdw11);
    uint8_t doper = dw11 & 0xff;
    uint8_t dtype = (dw11 >> 8) & 0xff;
    /* NUMD (CDW10) is 0's based, in dwords */
    uint64_t len = ((uint64_t)le32_to_cpu(cmd->cdw10) + 1) * 4;
    NvmeDirectiveIdentify id = {};
    g_autofree uint8_t *out = NULL;
    uint16_t status;

    trace_femu_directive(false, dtype, doper, le32_to_cpu(cmd->cdw12));
    if (dtype != NVME_DIRECTIVE_IDENTIFY ||
        doper != NVME_DIRECTIVE_RETURN_PARAMS) {
        /* Streams is not supported; Identify has only Return Parameters */
        FEMU_GUEST_ERR(femu_directive_bad_op, false, dtype, doper);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    status = femu_directive_nsid(cmd);
    if (status) {
        return status;
    }
    /* a transfer over MDTS is refused, as for Get Log Page */
    if (len > n->max_xfer) {
        FEMU_GUEST_ERR(femu_directive_too_long, len, n->max_xfer);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    /*
     * Identify directive, Return Parameters data structure: supported,
     * enabled and "persistent across controller level resets" bit
     * vectors at bytes 0, 32, 64 (bit = directive type).  Identify is
     * always enabled and its persistence bit is always set.
     * Data Placement is enabled exactly when FDP is enabled in the
     * namespace's endurance group, which is for the device's lifetime,
     * so it persists across resets as well.
     */
    id.supported = femu_directives_supported(n);
    id.enabled = id.supported;
    id.persistent = id.supported;
    /* a shorter buffer gets the beginning, a longer one zeroes after */
    out = g_malloc0(len);
    memcpy(out, &id, MIN(len, sizeof(id)));
    return femu_dma_cmd(n, cmd, out, len, true);
}

static uint16_t femu_directive_send(FemuCtrl *n, NvmeCmd *cmd)
{
    uint32_t dw11 = le32_to_cpu(cmd->cdw11);
    uint32_t dw12 = le32_to_cpu(cmd->cdw12);
    uint8_t doper = dw11 & 0xff;
    uint8_t dtype = (dw11 >> 8) & 0xff;
    bool endir = dw12 & 1;          /* Enable Directive: ENDIR bit 0 */
    uint8_t tdtype = (dw12 >> 8) & 0xff;   /* and TDTYPE bits 15:8 */
    uint16_t status;

    trace_femu_directive(true, dtype, doper, dw12);
    /* Identify's only Send operation is Enable Directive (01h) */
    if (dtype != NVME_DIRECTIVE_IDENTIFY || doper != 0x1) {
        FEMU_GUEST_ERR(femu_directive_bad_op, true, dtype, doper);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    status = femu_directive_nsid(cmd);
    if (status) {
        return status;
    }
    if (tdtype == NVME_DIRECTIVE_DATA_PLACEMENT &&
        (femu_directives_supported(n) & (1 << tdtype))) {
        /*
         * Data Placement follows the FDP mode of the endurance group
         * (feature 1Dh), which cannot change while the namespace exists:
         * asking for what is in force (enabled) succeeds, disabling is
         * an invalid field value for this namespace.
         */
        if (!endir) {
            FEMU_GUEST_ERR(femu_directive_bad_target, tdtype, endir);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        return NVME_SUCCESS;
    }
    /*
     * Identify cannot be enabled or disabled (it is always enabled);
     * Streams and unknown types are not supported.
     */
    FEMU_GUEST_ERR(femu_directive_bad_target, tdtype, endir);
    return NVME_INVALID_FIELD | NVME_DNR;
}

/*
 * Vendor admin opcode 0xEF: run-time controls, the code in CDW10
 * (enum FemuControlCode; docs/controls.md).
 */
static uint16_t femu_control(FemuCtrl *n, NvmeCmd *cmd)
{
    uint32_t code = le32_to_cpu(cmd->cdw10);

    trace_femu_control(code);
    if (code < FEMU_CTRL_FIRST || code > FEMU_CTRL_LAST) {
        FEMU_GUEST_ERR(femu_control_bad_code, code);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    switch (code) {
    case FEMU_CTRL_FAIL_ZONE:
        /* femu_mode=3: a zone fails (Read Only / Offline) */
        return femu_zns_fail_zone(n, cmd);
    case FEMU_CTRL_SAVE_STATE:
        /* save the state file now (state= property) */
        return femu_state_save_now(n);
    case FEMU_CTRL_IO_LOG_ON:
    case FEMU_CTRL_IO_LOG_OFF:
        qatomic_set(&n->io_log, code == FEMU_CTRL_IO_LOG_ON);
        return NVME_SUCCESS;
    case FEMU_CTRL_RESET_COUNTERS:
        /* the lateness histogram restarts with the counters */
        femu_lat_reset(n);
        break;
    }
    if (femu_is_zns(n)) {
        femu_zns_control(n, code);
        return NVME_SUCCESS;
    }
    if (!n->ftl) {
        return NVME_SUCCESS;        /* NoSSD: no FTL to control */
    }
    femu_ftl_lock_main(n);
    switch (code) {
    case FEMU_CTRL_GC_DELAY_ON:
        ftl_set_gc_delay(n->ftl, true);
        break;
    case FEMU_CTRL_GC_DELAY_OFF:
        ftl_set_gc_delay(n->ftl, false);
        break;
    case FEMU_CTRL_DELAY_BUILTIN:
        ftl_set_delay_mode(n->ftl, FTL_DELAY_BUILTIN);
        break;
    case FEMU_CTRL_DELAY_OFF:
        ftl_set_delay_mode(n->ftl, FTL_DELAY_OFF);
        break;
    case FEMU_CTRL_RESET_COUNTERS:
        ftl_reset_counters(n->ftl);
        break;
    }
    qemu_mutex_unlock(&n->ftl_lock);
    return NVME_SUCCESS;
}

/* Returns NVME_NO_COMPLETE for a request that completes later (AER). */
static uint16_t femu_admin_exec(FemuCtrl *n, NvmeCmd *cmd, uint32_t *res)
{
    if (NVME_CMD_FLAGS_FUSE(cmd->flags)) {
        FEMU_GUEST_ERR(femu_cmd_fused, 0, le16_to_cpu(cmd->cid));
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    switch (cmd->opcode) {
    case NVME_ADM_CMD_DELETE_SQ:
        return femu_delete_sq(n, cmd);
    case NVME_ADM_CMD_CREATE_SQ:
        return femu_create_sq(n, cmd);
    case NVME_ADM_CMD_GET_LOG_PAGE:
        return femu_get_log(n, cmd);
    case NVME_ADM_CMD_DELETE_CQ:
        return femu_delete_cq(n, cmd);
    case NVME_ADM_CMD_CREATE_CQ:
        return femu_create_cq(n, cmd);
    case NVME_ADM_CMD_IDENTIFY:
        return femu_identify(n, cmd);
    case NVME_ADM_CMD_ABORT:
        /* 5.1: commands are not aborted; DW0 bit 0 = 1 says so */
        *res = 1;
        return NVME_SUCCESS;
    case NVME_ADM_CMD_SET_FEATURES:
        return femu_set_feature(n, cmd, res);
    case NVME_ADM_CMD_GET_FEATURES:
        return femu_get_feature(n, cmd, res);
    case NVME_ADM_CMD_ASYNC_EV_REQ:
        if (n->naer > FEMU_AERL) {
            FEMU_GUEST_ERR(femu_aer_limit, le16_to_cpu(cmd->cid),
                           FEMU_AERL + 1);
            return NVME_AER_LIMIT_EXCEEDED;
        }
        n->aer_cids[n->naer++] = cmd->cid;
        femu_aer_process(n);
        return NVME_NO_COMPLETE;
    case NVME_ADM_CMD_DBBUF_CONFIG:
        return femu_dbbuf_config(n, cmd);
    case NVME_ADM_CMD_DIRECTIVE_SEND:
        return femu_directive_send(n, cmd);
    case NVME_ADM_CMD_DIRECTIVE_RECV:
        return femu_directive_recv(n, cmd);
    case FEMU_ADM_CMD_CONTROL:
        return femu_control(n, cmd);
    default:
        FEMU_GUEST_ERR(femu_cmd_bad_opcode, 0, le16_to_cpu(cmd->cid),
                       cmd->opcode);
        return NVME_INVALID_OPCODE | NVME_DNR;
    }
}

uint32_t femu_admin_cmd_effects(FemuCtrl *n, uint8_t opc)
{
    switch (opc) {
    case NVME_ADM_CMD_DELETE_SQ:
    case NVME_ADM_CMD_CREATE_SQ:
    case NVME_ADM_CMD_GET_LOG_PAGE:
    case NVME_ADM_CMD_DELETE_CQ:
    case NVME_ADM_CMD_CREATE_CQ:
    case NVME_ADM_CMD_IDENTIFY:
    case NVME_ADM_CMD_ABORT:
    case NVME_ADM_CMD_GET_FEATURES:
    case NVME_ADM_CMD_ASYNC_EV_REQ:
    case NVME_ADM_CMD_DBBUF_CONFIG:
    case NVME_ADM_CMD_DIRECTIVE_SEND:
    case NVME_ADM_CMD_DIRECTIVE_RECV:
    /*
     * Neither Set Features nor the run-time controls change what Identify
     * reports, so no CCC (Commands Supported and Effects, NVMe 2.0
     * 5.16.1.6): with it Linux logs "controller capabilities changed,
     * reset may be required" after the first nvme set-feature.
     */
    case NVME_ADM_CMD_SET_FEATURES:
    case FEMU_ADM_CMD_CONTROL:
        return NVME_CMD_EFF_CSUPP;
    default:
        return 0;
    }
}

void femu_admin_bh(void *opaque)
{
    FemuCtrl *n = opaque;
    FemuSQ *sq = n->sq[0];
    NvmeCmd cmd;

    /* the admin queue is small; serve all of it, leave none behind */
    while (sq && femu_sq_fetch(sq, &cmd)) {
        uint32_t result = 0;
        uint16_t status;

        trace_femu_admin_cmd(le16_to_cpu(cmd.cid), cmd.opcode,
                             le32_to_cpu(cmd.cdw10));
        status = femu_admin_exec(n, &cmd, &result);
        if (status == NVME_NO_COMPLETE) {
            continue;
        }
        trace_femu_admin_done(le16_to_cpu(cmd.cid), cmd.opcode, status,
                              result);
        if (status) {
            femu_error_record(n, 0, &cmd, status);
        }
        /* a full admin CQ means a broken host: the entry is dropped */
        femu_cq_post(sq->cq, sq, cmd.cid, status, result);
        sq = n->sq[0];
    }
}
