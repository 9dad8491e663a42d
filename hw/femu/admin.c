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

/* Notices Identify OAES reports: every namespace mode's. */
static uint32_t femu_oaes(FemuCtrl *n)
{
    uint32_t oaes = 0;

    for (uint32_t i = 0; i < n->nns; i++) {
        oaes |= n->ns[i].mode->oaes;
    }
    return oaes;
}

/*
 * ONCS: the oncs property's optional commands, less those that no
 * namespace's mode has (a zoned namespace has no Compare, Verify, Write
 * Uncorrectable or Copy).
 */
static uint16_t femu_oncs(FemuCtrl *n)
{
    uint16_t have = 0;

    for (uint32_t i = 0; i < n->nns; i++) {
        const FemuModeOps *m = n->ns[i].mode;

        have |= (m->compare ? NVME_ONCS_COMPARE : 0) |
                (m->verify ? NVME_ONCS_VERIFY : 0) |
                (m->write_uncor ? NVME_ONCS_WRITE_UNCORR : 0) |
                (m->copy ? NVME_ONCS_COPY : 0);
    }
    return n->params.oncs & (~FEMU_ONCS_MEDIA | have);
}

static uint16_t femu_identify_ctrl(FemuCtrl *n, NvmeCmd *cmd)
{
    NvmeIdCtrl id = {};
    char subnqn[sizeof(((NvmeIdCtrl *)0)->subnqn)];

    id.vid = cpu_to_le16(n->params.vid);
    id.ssvid = cpu_to_le16(n->params.vid);
    femu_strpad(id.sn, sizeof(id.sn), n->sn);
    femu_strpad(id.mn, sizeof(id.mn), n->mode->model);
    femu_strpad(id.fr, sizeof(id.fr), FEMU_FW_REV);
    id.rab = 6;
    id.ieee[0] = 0x1d;
    id.ieee[1] = 0x1d;
    id.ieee[2] = 0x1d;
    id.mdts = n->params.mdts;
    id.cntlid = cpu_to_le16(n->instance);
    id.ver = n->bar.vs;              /* both little-endian */
    id.ctratt = cpu_to_le32(femu_fdp_ctratt(n));
    id.cntrltype = 1;               /* I/O controller */
    /* Directive Send/Receive with the Identify directive always */
    id.oacs = cpu_to_le16(n->params.oacs &
                          (femu_format_supported(n) ? 0xffff :
                           ~NVME_OACS_FORMAT));
    /* FNA: with several namespaces (one block size, one FTL) a format or
     * a secure erase applies to all of them (format.c) */
    id.fna = n->nns > 1 ? 0x3 : 0;
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
    id.oaes = cpu_to_le32(NVME_OAES_NS_ATTR | femu_oaes(n));
    id.frmw = NVME_FRMW_SLOT1_RO | (1 << 1);    /* one read-only slot */
    /*
     * LPA (5.17.2.1): bit 0, the SMART / Health log page per namespace.
     * With one namespace its counters are the controller's, so NSID 1
     * and FFFFFFFFh (or 0) read the same page.
     */
    id.lpa = NVME_LPA_NS_SMART | NVME_LPA_CSE | NVME_LPA_EXTENDED;
    id.elpe = FEMU_ELPE;
    id.npss = 0;
    id.wctemp = cpu_to_le16(FEMU_WCTEMP);
    id.cctemp = cpu_to_le16(FEMU_CCTEMP);
    id.endgidmax = cpu_to_le16(femu_fdp_endgid(n));
    id.sqes = (FEMU_SQES << 4) | FEMU_SQES;
    id.cqes = (FEMU_CQES << 4) | FEMU_CQES;
    /* a queue of mqes + 1 entries; MAXCMD is 16 bits: mqes=65535 would
     * wrap to 0 */
    id.maxcmd = cpu_to_le16(MIN((uint32_t)n->params.mqes + 1, UINT16_MAX));
    id.nn = cpu_to_le32(n->nns);
    id.oncs = cpu_to_le16(femu_oncs(n));
    /* Copy: source range descriptor format 0 */
    id.ocfs = cpu_to_le16(femu_oncs(n) & NVME_ONCS_COPY ?
                          NVME_OCFS_COPY_FORMAT_0 : 0);
    id.vwc = n->params.vwc ?
             NVME_VWC_PRESENT | NVME_VWC_NSID_BROADCAST_SUPPORT : 0;
    /* SGLs for I/O commands: byte aligned data blocks, bit buckets */
    id.sgls = n->params.sgl ? cpu_to_le32(NVME_CTRL_SGLS_SUPPORT_NO_ALIGN |
                                          NVME_CTRL_SGLS_BITBUCKET) : 0;
    if (n->subsys && n->subsys->nqn) {
        /* the name FEMU upstream and QEMU's nvme-subsys give */
        snprintf(subnqn, sizeof(subnqn), "nqn.2019-08.org.qemu:%s",
                 n->subsys->nqn);
    } else {
        snprintf(subnqn, sizeof(subnqn), "nqn.2026-01.io.femu:%s", n->sn);
    }
    pstrcpy((char *)id.subnqn, sizeof(id.subnqn), subnqn);
    /* power state 0: 25 W, no entry/exit latency */
    id.psd[0].mp = cpu_to_le16(2500);
    /* ns_mgmt: OACS bit 3, TNVMCAP, UNVMCAP (ns.c) */
    femu_ns_fill_ctrl(n, &id);
    return femu_dma_cmd(n, cmd, (uint8_t *)&id, sizeof(id), true);
}

/*
 * The formats and what every namespace shares (Identify Namespace with
 * NSID FFFFFFFFh, which a controller with Namespace Management reports)
 */
static void femu_fill_id_ns_common(FemuCtrl *n, NvmeIdNs *id)
{
    uint32_t pg_lbas = (n->cfg.secs_per_pg * 512) >> n->lba_shift;

    id->nlbaf = 1;                  /* two formats, 0-based */
    id->flbas = n->cfg.secsz == 4096 ? 1 : 0;
    id->npwg = cpu_to_le16(pg_lbas ? pg_lbas - 1 : 0);
    id->npwa = id->npwg;
    id->npdg = id->npwg;
    id->npda = id->npwg;
    id->nows = id->npwg;
    id->lbaf[0].ds = 9;
    id->lbaf[1].ds = 12;
    id->lbaf[0].rp = n->cfg.secsz == 512 ? 0 : 2;
    id->lbaf[1].rp = n->cfg.secsz == 4096 ? 0 : 2;
}

void femu_identify_ns_fill(FemuCtrl *n, FemuNamespace *ns, NvmeIdNs *id)
{
    uint32_t pg_lbas = (n->cfg.secs_per_pg * 512) >> n->lba_shift;

    uint64_t nuse = ns->blocks;

    /*
     * NUSE (NVM Command Set spec 4.1.5.1, Identify Namespace): with an
     * FTL the namespace is thin provisioned (NSFEAT bit 0), so NUSE is
     * what the mapping table holds: written logical pages that were not
     * deallocated since, in logical blocks.  The FTL maps whole NAND
     * pages (NPDG), so a 512 B write counts its page's blocks.  NoSSD
     * has no mapping: NUSE = NCAP, as the spec allows.
     */
    if (ns->mode->uses_ftl) {
        /* several namespaces: the FTL's pages in this one's range */
        femu_ftl_lock_main(n);
        nuse = n->nns > 1 ?
               ftl_mapped_pages_in(n->ftl, ns->ftl_base, ns->blocks) :
               ftl_mapped_pages(n->ftl);
        nuse = MIN(nuse * MAX(pg_lbas, 1), ns->blocks);
        qemu_mutex_unlock(&n->ftl_lock);
    }
    id->nsze = cpu_to_le64(ns->blocks);
    id->ncap = cpu_to_le64(ns->blocks);
    id->nuse = cpu_to_le64(nuse);
    /* OPTPERF: NPWG/NPWA give the NAND page as the write granularity */
    id->nsfeat = FEMU_NSFEAT_OPTPERF |
                 (ns->mode->uses_ftl ? NVME_ID_NS_NSFEAT_THINP : 0) |
                 (ns->mode->dulbe ? NVME_ID_NS_NSFEAT_DAE : 0);
    femu_fill_id_ns_common(n, id);
    /* DLFEAT: the mode's (mode.c) */
    id->dlfeat = ns->mode->dlfeat;
    id->endgid = cpu_to_le16(femu_fdp_endgid(n));
    /* ns_mgmt: the NAND bytes its range holds (ns.c) */
    stq_le_p(id->nvmcap, femu_ns_nvmcap(n, ns));
    if (ns->mode->copy) {
        /* Simple Copy limits (io.c): MSSRL and MCL blocks, MSRC 0-based */
        id->mssrl = cpu_to_le16(femu_copy_max_blocks(n));
        id->mcl = cpu_to_le32(femu_copy_max_blocks(n));
        id->msrc = FEMU_COPY_MAX_RANGES - 1;
    }
    /* identifiers unique per instance and namespace (Linux rejects
     * duplicates); namespace 1's are what they were with one namespace */
    id->eui64 = cpu_to_be64(0x1d1d1d0000000000ULL + n->instance +
                            ((uint64_t)(ns->nsid - 1) << 24));
    id->nguid[0] = 0x1d;
    id->nguid[1] = 0x1d;
    id->nguid[13] = ns->nsid - 1;
    id->nguid[15] = n->instance & 0xff;
    id->nguid[14] = (n->instance >> 8) & 0xff;
}

static uint16_t femu_identify(FemuCtrl *n, NvmeCmd *cmd)
{
    NvmeIdentify *c = (NvmeIdentify *)cmd;
    uint32_t nsid = le32_to_cpu(c->nsid);
    uint8_t buf[NVME_IDENTIFY_DATA_SIZE] = {};
    FemuNamespace *ns;

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
         * NSIDs above NN are invalid (3.2.1.2).  With Namespace
         * Management an inactive NSID (1..NN, not attached) reads as
         * zeroes (5.17.2.1): Linux takes NCAP 0 as "no namespace".
         */
        ns = femu_ns(n, nsid);
        if (!ns && n->params.ns_mgmt && c->cns != NVME_ID_CNS_CS_NS &&
            ((nsid >= 1 && nsid <= n->nns) ||
             (nsid == NVME_NSID_BROADCAST && c->cns == NVME_ID_CNS_NS))) {
            if (nsid == NVME_NSID_BROADCAST) {
                femu_fill_id_ns_common(n, (NvmeIdNs *)buf);
            }
            break;
        }
        if (!ns) {
            FEMU_GUEST_ERR(femu_identify_bad_nsid, c->cns, nsid);
            return NVME_INVALID_NSID | NVME_DNR;
        }
        if (c->cns == NVME_ID_CNS_CS_NS && c->csi == ns->mode->csi &&
            ns->mode->identify_ns_csi) {
            ns->mode->identify_ns_csi(n, ns, buf);
            break;
        }
        if (c->cns == NVME_ID_CNS_CS_NS && c->csi != 0) {
            FEMU_GUEST_ERR(femu_identify_bad_csi, c->cns, c->csi);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        if (c->cns == NVME_ID_CNS_NS) {
            femu_identify_ns_fill(n, ns, (NvmeIdNs *)buf);
        } else if (c->cns == NVME_ID_CNS_CS_IND_NS) {
            NvmeIdNsInd *ind = (NvmeIdNsInd *)buf;
            ind->nsfeat = FEMU_NSFEAT_OPTPERF;
            ind->endgrpid = cpu_to_le16(femu_fdp_endgid(n));
            ind->nstat = 1;         /* namespace ready */
        }
        /* CNS 05h with CSI NVM: NvmeIdNsNvm, all zero (no PI formats) */
        break;
    case NVME_ID_CNS_CS_CTRL:
        if (c->csi != NVME_CSI_NVM && femu_zns_ns(n) &&
            c->csi == femu_zns_ns(n)->mode->csi) {
            femu_zns_ns(n)->mode->identify_ctrl_csi(n, buf);
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
        if (c->cns == NVME_ID_CNS_CS_NS_ACTIVE_LIST &&
            c->csi != NVME_CSI_NVM && !femu_ns_of_csi(n, c->csi)) {
            FEMU_GUEST_ERR(femu_identify_bad_csi, c->cns, c->csi);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        /* the active NSIDs above nsid, ascending (5.17.2.2); with a CSI,
         * those of that command set (CNS 07h) */
        for (uint32_t i = nsid, k = 0; i < n->nns; i++) {
            if (!femu_ns(n, i + 1)) {
                continue;           /* not attached (ns_mgmt) */
            }
            if (c->cns == NVME_ID_CNS_NS_ACTIVE_LIST ||
                c->csi == NVME_CSI_NVM || n->ns[i].mode->csi == c->csi) {
                stl_le_p(buf + 4 * k++, n->ns[i].nsid);
            }
        }
        break;
    case NVME_ID_CNS_NS_DESCR_LIST:
        ns = femu_ns(n, nsid);
        if (!ns) {
            FEMU_GUEST_ERR(femu_identify_bad_nsid, c->cns, nsid);
            return NVME_INVALID_NSID | NVME_DNR;
        }
        {
            /* 5.17.2.3: EUI64, NGUID, UUID, command set identifier */
            NvmeIdNs id = {};
            uint8_t *p = buf;

            femu_identify_ns_fill(n, ns, &id);
            p[0] = NVME_NIDT_EUI64; p[1] = NVME_NIDL_EUI64;
            memcpy(p + 4, &id.eui64, 8);
            p += 4 + 8;
            p[0] = NVME_NIDT_NGUID; p[1] = NVME_NIDL_NGUID;
            memcpy(p + 4, id.nguid, 16);
            p += 4 + 16;
            if (!qemu_uuid_is_null(&ns->uuid)) {
                p[0] = NVME_NIDT_UUID; p[1] = NVME_NIDL_UUID;
                memcpy(p + 4, ns->uuid.data, NVME_NIDL_UUID);
                p += 4 + NVME_NIDL_UUID;
            }
            p[0] = NVME_NIDT_CSI; p[1] = NVME_NIDL_CSI;
            p[4] = ns->mode->csi;
        }
        break;
    case NVME_ID_CNS_IO_COMMAND_SET:
        /* one I/O command set combination: NVM (bit 0), with the
         * namespace's own (Zoned Namespace, bit 2, in femu_mode=3) */
        stq_le_p(buf, 1 << NVME_CSI_NVM |
                      (femu_zns_ns(n) ? 1ULL << NVME_CSI_ZONED : 0));
        break;
    case NVME_ID_CNS_NS_PRESENT_LIST:
    case NVME_ID_CNS_NS_PRESENT:
    case NVME_ID_CNS_NS_ATTACHED_CTRL_LIST:
    case NVME_ID_CNS_CTRL_LIST:
        if (!n->params.ns_mgmt) {
            FEMU_GUEST_ERR(femu_identify_bad_cns, c->cns);
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        {
            uint16_t status = femu_ns_identify(n, cmd, buf);

            if (status) {
                return status;
            }
        }
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

/*
 * Create I/O Completion / Submission Queue (5.4, 5.5), the checks both
 * make: a queue of 2..MQES + 1 entries, physically contiguous (CAP.CQR
 * = 1).
 */
static uint16_t femu_check_q_size(FemuCtrl *n, bool cq, uint16_t qid,
                                  uint32_t size, bool pc)
{
    if (size < 2 || size > (uint32_t)n->params.mqes + 1) {
        FEMU_GUEST_ERR(femu_create_q_bad_size, cq, size, n->params.mqes + 1);
        return NVME_MAX_QSIZE_EXCEEDED | NVME_DNR;
    }
    if (!pc) {
        FEMU_GUEST_ERR(femu_create_q_not_contiguous, cq, qid);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    return NVME_SUCCESS;
}

/* ... and a page-aligned ring in guest RAM (a CQ is written, an SQ read) */
static uint16_t femu_check_q_ring(FemuCtrl *n, bool cq, uint16_t qid,
                                  uint64_t addr, uint32_t size)
{
    uint64_t bytes = (uint64_t)size << (cq ? FEMU_CQES : FEMU_SQES);

    if (!addr || (addr & (FEMU_PAGE_SIZE - 1))) {
        FEMU_GUEST_ERR(femu_create_q_bad_addr, cq, qid, addr);
        return NVME_INVALID_PRP_OFFSET | NVME_DNR;
    }
    if (!femu_dma_is_ram(n, addr, bytes, cq)) {
        FEMU_GUEST_ERR(femu_create_q_not_ram, cq, qid, addr, size);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    return NVME_SUCCESS;
}

static uint16_t femu_create_cq(FemuCtrl *n, NvmeCmd *cmd)
{
    NvmeCreateCq *c = (NvmeCreateCq *)cmd;
    uint16_t cqid = le16_to_cpu(c->cqid);
    uint32_t size = (uint32_t)le16_to_cpu(c->qsize) + 1;
    uint16_t flags = le16_to_cpu(c->cq_flags);
    uint16_t vector = le16_to_cpu(c->irq_vector);
    uint64_t addr = le64_to_cpu(c->prp1);
    uint16_t status;

    trace_femu_create_cq(cqid, size, vector, NVME_CQ_FLAGS_IEN(flags));
    if (!cqid || cqid > n->params.queues || n->cq[cqid]) {
        FEMU_GUEST_ERR(femu_create_q_bad_qid, true, cqid, n->params.queues);
        return NVME_INVALID_QID | NVME_DNR;
    }
    status = femu_check_q_size(n, true, cqid, size, NVME_CQ_FLAGS_PC(flags));
    if (status) {
        return status;
    }
    if (vector > n->params.queues ||
        (vector && !msix_enabled(PCI_DEVICE(n)))) {
        FEMU_GUEST_ERR(femu_create_cq_bad_vector, cqid, vector,
                       msix_enabled(PCI_DEVICE(n)));
        return NVME_INVALID_IRQ_VECTOR | NVME_DNR;
    }
    status = femu_check_q_ring(n, true, cqid, addr, size);
    if (status) {
        return status;
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
    uint16_t status;

    trace_femu_create_sq(sqid, size, cqid);
    if (!sqid || sqid > n->params.queues || n->sq[sqid]) {
        FEMU_GUEST_ERR(femu_create_q_bad_qid, false, sqid, n->params.queues);
        return NVME_INVALID_QID | NVME_DNR;
    }
    if (!cqid || cqid > n->params.queues || !n->cq[cqid]) {
        FEMU_GUEST_ERR(femu_create_sq_bad_cqid, sqid, cqid);
        return NVME_INVALID_CQID | NVME_DNR;
    }
    status = femu_check_q_size(n, false, sqid, size, NVME_SQ_FLAGS_PC(flags));
    if (status) {
        return status;
    }
    status = femu_check_q_ring(n, false, sqid, addr, size);
    if (status) {
        return status;
    }
    femu_sq_new(n, sqid, addr, size, n->cq[cqid]);
    return NVME_SUCCESS;
}

/* Delete I/O Submission / Completion Queue (5.6, 5.7) */
static uint16_t femu_delete_q(FemuCtrl *n, NvmeCmd *cmd, bool cq)
{
    uint16_t qid = le16_to_cpu(((NvmeDeleteQ *)cmd)->qid);
    bool exists = qid && qid <= n->params.queues &&
                  (cq ? n->cq[qid] != NULL : n->sq[qid] != NULL);

    trace_femu_delete_q(qid, cq);
    if (!exists) {
        FEMU_GUEST_ERR(femu_delete_q_bad_qid, cq, qid);
        return NVME_INVALID_QID | NVME_DNR;
    }
    if (!cq) {
        femu_sq_free(n, n->sq[qid]);
        return NVME_SUCCESS;
    }
    if (n->cq[qid]->nsqs) {
        FEMU_GUEST_ERR(femu_delete_cq_in_use, qid, n->cq[qid]->nsqs);
        return NVME_INVALID_QUEUE_DEL | NVME_DNR;
    }
    femu_cq_free(n, n->cq[qid]);
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
    for (uint32_t i = 1; i <= n->params.queues; i++) {
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

static uint16_t femu_directive_nsid(FemuCtrl *n, NvmeCmd *cmd)
{
    uint32_t nsid = le32_to_cpu(cmd->nsid);

    /* any attached namespace (with FDP, all are in its endurance group) */
    if (femu_ns(n, nsid)) {
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
    status = femu_directive_nsid(n, cmd);
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
    status = femu_directive_nsid(n, cmd);
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
        return femu_state_save_now(n, cmd);
    case FEMU_CTRL_IO_TRACE_START:
    case FEMU_CTRL_IO_TRACE_STOP:
        /* io_trace= (capture.c) */
        return femu_capture_control(n, code);
    case FEMU_CTRL_IO_LOG_ON:
    case FEMU_CTRL_IO_LOG_OFF:
        qatomic_set(&n->io_log, code == FEMU_CTRL_IO_LOG_ON);
        return NVME_SUCCESS;
    case FEMU_CTRL_POWER_CUT:
        /* powercut.c: this command does not complete either */
        femu_power_cut(n, "0xEF code 12", true);
        return NVME_SUCCESS;
    case FEMU_CTRL_RESET_COUNTERS:
        /* the lateness histogram restarts with the counters */
        femu_lat_reset(n);
        break;
    }
    /* each back end once: the FTL (every BlackBox namespace's), zones */
    for (uint32_t i = 0, ftl_done = 0; i < n->nns; i++) {
        FemuNamespace *ns = &n->ns[i];

        if (!ns->mode->control || (ns->mode->uses_ftl && ftl_done++)) {
            continue;
        }
        ns->mode->control(n, ns, code);
    }
    return NVME_SUCCESS;
}

/* Returns NVME_NO_COMPLETE for a request that completes later (AER). */
static uint16_t femu_admin_exec(FemuCtrl *n, NvmeCmd *cmd, uint32_t *res)
{
    if (NVME_CMD_FLAGS_FUSE(cmd->flags)) {
        FEMU_GUEST_ERR(femu_cmd_fused, 0, le16_to_cpu(cmd->cid));
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (NVME_CMD_FLAGS_PSDT(cmd->flags) != NVME_PSDT_PRP) {
        /* NVMe 2.0 4.2: PRPs shall be used for all Admin commands over PCIe */
        FEMU_GUEST_ERR(femu_admin_sgl, le16_to_cpu(cmd->cid),
                       NVME_CMD_FLAGS_PSDT(cmd->flags));
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    switch (cmd->opcode) {
    case NVME_ADM_CMD_DELETE_SQ:
        return femu_delete_q(n, cmd, false);
    case NVME_ADM_CMD_CREATE_SQ:
        return femu_create_sq(n, cmd);
    case NVME_ADM_CMD_GET_LOG_PAGE:
        return femu_get_log(n, cmd);
    case NVME_ADM_CMD_DELETE_CQ:
        return femu_delete_q(n, cmd, true);
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
        return femu_aer_request(n, cmd);
    case NVME_ADM_CMD_DBBUF_CONFIG:
        return femu_dbbuf_config(n, cmd);
    case NVME_ADM_CMD_DIRECTIVE_SEND:
        return femu_directive_send(n, cmd);
    case NVME_ADM_CMD_DIRECTIVE_RECV:
        return femu_directive_recv(n, cmd);
    case FEMU_ADM_CMD_CONTROL:
        return femu_control(n, cmd);
    case FEMU_ADM_CMD_NS_MGMT:
    case NVME_ADM_CMD_NS_ATTACHMENT:
        if (!n->params.ns_mgmt) {
            break;                  /* not offered (OACS bit 3 clear) */
        }
        return cmd->opcode == FEMU_ADM_CMD_NS_MGMT ? femu_ns_mgmt(n, cmd, res)
                                                   : femu_ns_attach(n, cmd);
    case NVME_ADM_CMD_FORMAT_NVM:
        if (femu_admin_cmd_effects(n, cmd->opcode)) {
            return femu_format(n, cmd);
        }
        break;
    default:
        break;
    }
    FEMU_GUEST_ERR(femu_cmd_bad_opcode, 0, le16_to_cpu(cmd->cid),
                   cmd->opcode);
    return NVME_INVALID_OPCODE | NVME_DNR;
}

uint32_t femu_admin_cmd_effects(FemuCtrl *n, uint8_t opc)
{
    switch (opc) {
    /*
     * ns_mgmt: Namespace Management and Attachment change the namespace
     * inventory (NIC) and capacities (NCC): Linux rescans after them.
     */
    case FEMU_ADM_CMD_NS_MGMT:
    case NVME_ADM_CMD_NS_ATTACHMENT:
        return n->params.ns_mgmt ? NVME_CMD_EFF_CSUPP | NVME_CMD_EFF_NCC |
                                   NVME_CMD_EFF_NIC : 0;
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
    case NVME_ADM_CMD_FORMAT_NVM:
        /* the namespaces' data, and with the other format their size */
        return femu_format_supported(n) &&
               (n->params.oacs & NVME_OACS_FORMAT) ?
               NVME_CMD_EFF_CSUPP | NVME_CMD_EFF_LBCC | NVME_CMD_EFF_NCC : 0;
    default:
        return 0;
    }
}

void femu_admin_bh(void *opaque)
{
    FemuCtrl *n = opaque;
    FemuSQ *sq = n->sq[0];
    NvmeCmd cmd;

    /* a poller saw the wear change: SMART / Health events (events.c);
     * without power they wait for it */
    if (!qatomic_read(&n->powered_off) &&
        qatomic_xchg(&n->wear_check, false)) {
        femu_smart_events(n);
    }
    /* the admin queue is small; serve all of it, leave none behind,
     * except while a save runs: it goes on when the save completes */
    while (sq && !femu_state_saving(n) && !qatomic_read(&n->powered_off) &&
           femu_sq_fetch(sq, &cmd)) {
        uint32_t result = 0;
        uint16_t status;

        trace_femu_admin_cmd(le16_to_cpu(cmd.cid), cmd.opcode,
                             le32_to_cpu(cmd.cdw10));
        status = femu_admin_exec(n, &cmd, &result);
        if (status == NVME_NO_COMPLETE) {
            continue;
        }
        if (qatomic_read(&n->powered_off)) {
            break;      /* no power: no completion */
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
