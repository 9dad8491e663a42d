/*
 * femu-test cases: Namespace Management and Attachment (ns_mgmt=on).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu-host.h"

/* a 192 MiB FTL, namespace 1 of 64 MiB at start: 128 MiB free */
#define NSM_OPTS "nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=256," \
                 "devsz_mb=192,namespace_sizes=64M,ns_mgmt=on"
#define MB(x) ((uint64_t)(x) << 20)
#define BLK(mb) (MB(mb) >> 9)      /* 512-byte blocks */
#define NS_MGMT 0x0d

/* Namespace Management create: DW0 is the NSID */
static uint16_t ns_create(Ctrl *c, uint64_t nsze, uint64_t ncap,
                          uint8_t flbas, uint8_t dps, uint8_t csi,
                          uint32_t *nsid)
{
    NvmeIdNs id = {};
    NvmeCmd cmd = mk(NS_MGMT, 0, c->buf, 0);

    id.nsze = cpu_to_le64(nsze);
    id.ncap = cpu_to_le64(ncap);
    id.flbas = flbas;
    id.dps = dps;
    qtest_memset(c->qts, c->buf, 0, PAGE);
    qtest_memwrite(c->qts, c->buf, &id, sizeof(id));
    cmd.cdw11 = cpu_to_le32((uint32_t)csi << 24);
    return run(c, 0, &cmd, nsid);
}

static uint16_t ns_sel(Ctrl *c, uint8_t opc, uint32_t sel, uint32_t nsid,
                       uint16_t count, uint16_t id0, uint16_t id1)
{
    NvmeCmd cmd = mk(opc, nsid, c->buf, 0);
    uint16_t list[3] = { cpu_to_le16(count), cpu_to_le16(id0),
                         cpu_to_le16(id1) };

    qtest_memset(c->qts, c->buf, 0, PAGE);
    qtest_memwrite(c->qts, c->buf, list, sizeof(list));
    cmd.cdw10 = cpu_to_le32(sel);
    return run(c, 0, &cmd, NULL);
}

static uint16_t ns_delete(Ctrl *c, uint32_t nsid)
{
    return ns_sel(c, NS_MGMT, 1, nsid, 0, 0, 0);
}

/* attach (sel 0) or detach (1) to controller cntlid */
static uint16_t ns_attach(Ctrl *c, uint32_t sel, uint32_t nsid,
                          uint16_t cntlid)
{
    return ns_sel(c, NVME_ADM_CMD_NS_ATTACHMENT, sel, nsid, 1, cntlid, 0);
}

static NvmeIdCtrl id_ctrl(Ctrl *c)
{
    NvmeIdCtrl id;

    g_assert_cmphex(identify(c, NVME_ID_CNS_CTRL, 0, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, &id, sizeof(id));
    return id;
}

static uint64_t unvmcap(Ctrl *c)
{
    return ldq_le_p(id_ctrl(c).unvmcap);
}

/* Identify CNS cns of nsid into id (4 KiB) */
static uint16_t id_of(Ctrl *c, uint8_t cns, uint32_t nsid, void *id)
{
    uint16_t st = identify(c, cns, nsid, c->buf);

    qtest_memread(c->qts, c->buf, id, PAGE);
    return st;
}

/* an NSID list (CNS 02h, 10h) from NSID 0 as "1 2 3" */
static char *ns_list(Ctrl *c, uint8_t cns)
{
    uint32_t l[PAGE / 4];
    GString *s = g_string_new("");

    g_assert_cmphex(id_of(c, cns, 0, l), ==, NVME_SUCCESS);
    for (int i = 0; i < PAGE / 4 && l[i]; i++) {
        g_string_append_printf(s, "%s%u", i ? " " : "", le32_to_cpu(l[i]));
    }
    return g_string_free(s, false);
}

#define CHECK_NS(c, cns, want)                     \
    do {                                           \
        g_autofree char *l_ = ns_list(c, cns);     \
        g_assert_cmpstr(l_, ==, want);             \
    } while (0)

/* log page 04h (RAE as given) as "1 2" */
static char *changed(Ctrl *c, bool rae)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_GET_LOG_PAGE, 0xffffffff, c->buf, 0);
    uint32_t l[PAGE / 4];
    GString *s = g_string_new("");

    cmd.cdw10 = cpu_to_le32((PAGE / 4 - 1) << 16 | (rae ? 1 << 15 : 0) |
                            NVME_LOG_CHANGED_NSLIST);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, l, sizeof(l));
    for (int i = 0; i < PAGE / 4 && l[i]; i++) {
        g_string_append_printf(s, "%s%u", i ? " " : "", le32_to_cpu(l[i]));
    }
    return g_string_free(s, false);
}

#define CHECK_CHANGED(c, rae, want)                \
    do {                                           \
        g_autofree char *l_ = changed(c, rae);     \
        g_assert_cmpstr(l_, ==, want);             \
    } while (0)

/* one page of I/O on nsid at slba from / into c->buf */
static uint16_t nsio(Ctrl *c, uint8_t opc, uint32_t nsid, uint64_t slba)
{
    NvmeCmd cmd = mk(opc, nsid, c->buf, 0);

    cmd.cdw10 = cpu_to_le32((uint32_t)slba);
    cmd.cdw11 = cpu_to_le32((uint32_t)(slba >> 32));
    cmd.cdw12 = cpu_to_le32(PAGE / 512 - 1);
    return run(c, IOQ, &cmd, NULL);
}

/* the page at slba of nsid holds byte v */
static bool reads(Ctrl *c, uint32_t nsid, uint64_t slba, uint8_t v)
{
    uint8_t in[PAGE];

    qtest_memset(c->qts, c->buf, 0xee, PAGE);
    g_assert_cmphex(nsio(c, NVME_CMD_READ, nsid, slba), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, in, sizeof(in));
    for (int i = 0; i < PAGE; i++) {
        if (in[i] != v) {
            return false;
        }
    }
    return true;
}

static uint16_t write_v(Ctrl *c, uint32_t nsid, uint64_t slba, uint8_t v)
{
    qtest_memset(c->qts, c->buf, v, PAGE);
    return nsio(c, NVME_CMD_WRITE, nsid, slba);
}

static NvmeIdNs id_ns(Ctrl *c, uint8_t cns, uint32_t nsid, uint16_t want)
{
    uint8_t id[PAGE];

    g_assert_cmphex(id_of(c, cns, nsid, id), ==, want);
    return *(NvmeIdNs *)id;
}

/*
 * Create (every refusal, capacity, lowest NSID, first contiguous range),
 * Identify CNS 00h / 02h / 10h-13h, attach (the notice, log 04h), I/O
 * only while attached, detach, delete (another namespace's data stays;
 * a namespace created over the range has nothing mapped and reads
 * zeroes), delete all; and nothing of it without ns_mgmt.
 */
void test_ns_mgmt(void)
{
    Ctrl *c = ctrl_start(NSM_OPTS);
    NvmeIdCtrl idc = id_ctrl(c);
    uint16_t cntlid = le16_to_cpu(idc.cntlid);
    NvmeEffectsLog eff;
    NvmeIdNs ns;
    uint16_t l[PAGE / 2];
    uint32_t nsid;
    NvmeCmd cmd;

    g_assert_cmphex(le16_to_cpu(idc.oacs) & NVME_OACS_NMS, ==, NVME_OACS_NMS);
    g_assert_cmpuint(le32_to_cpu(idc.nn), ==, 16);
    g_assert_cmpuint(ldq_le_p(idc.tnvmcap), ==, MB(192));
    g_assert_cmpuint(ldq_le_p(idc.unvmcap), ==, MB(128));
    /* both commands change the namespace inventory and capacities */
    g_assert_cmphex(get_log(c, NVME_LOG_CMD_EFFECTS, sizeof(eff) / 4 - 1, 0,
                            c->buf, c->buf + PAGE), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, &eff, sizeof(eff));
    g_assert_cmphex(le32_to_cpu(eff.acs[NS_MGMT]), ==,
                    NVME_CMD_EFF_CSUPP | NVME_CMD_EFF_NCC | NVME_CMD_EFF_NIC);
    g_assert_cmphex(le32_to_cpu(eff.acs[NVME_ADM_CMD_NS_ATTACHMENT]), ==,
                    NVME_CMD_EFF_CSUPP | NVME_CMD_EFF_NCC | NVME_CMD_EFF_NIC);

    /* refusals of create */
    cmd = mk(NS_MGMT, 0, c->buf, 0);
    cmd.cdw10 = cpu_to_le32(2);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(ns_create(c, BLK(1), BLK(1), 0, 0, NVME_CSI_ZONED, NULL),
                    ==, NVME_INVALID_FIELD);
    g_assert_cmphex(ns_create(c, BLK(1), BLK(1), 0, 1, 0, NULL), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(ns_create(c, 0, 0, 0, 0, 0, NULL), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(ns_create(c, BLK(2), BLK(1), 0, 0, 0, NULL), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(ns_create(c, BLK(1), BLK(1), 1, 0, 0, NULL), ==,
                    NVME_INVALID_FORMAT);
    g_assert_cmphex(ns_create(c, BLK(1), BLK(1), 0x10, 0, 0, NULL), ==,
                    NVME_INVALID_FORMAT);
    g_assert_cmphex(ns_create(c, BLK(1), BLK(1), 0x20, 0, 0, NULL), ==,
                    NVME_INVALID_FORMAT);
    /* three of 32 MiB: NSIDs 2, 3, 4; 32 MiB left, 33 do not fit */
    for (uint32_t want = 2; want <= 4; want++) {
        g_assert_cmphex(ns_create(c, BLK(32), BLK(32), 0, 0, 0, &nsid), ==,
                        NVME_SUCCESS);
        g_assert_cmpuint(nsid, ==, want);
    }
    g_assert_cmpuint(unvmcap(c), ==, MB(32));
    g_assert_cmphex(ns_create(c, BLK(33), BLK(33), 0, 0, 0, NULL), ==,
                    0x115);
    CHECK_NS(c, NVME_ID_CNS_NS_PRESENT_LIST, "1 2 3 4");
    CHECK_NS(c, NVME_ID_CNS_NS_ACTIVE_LIST, "1");

    /* Identify: inactive NSIDs read as zeroes, above NN are invalid */
    ns = id_ns(c, NVME_ID_CNS_NS, 2, NVME_SUCCESS);
    g_assert_cmpuint(le64_to_cpu(ns.nsze), ==, 0);
    ns = id_ns(c, NVME_ID_CNS_NS, 9, NVME_SUCCESS);
    g_assert_cmpuint(le64_to_cpu(ns.ncap), ==, 0);
    id_ns(c, NVME_ID_CNS_NS, 17, NVME_INVALID_NSID);
    ns = id_ns(c, NVME_ID_CNS_NS, 0xffffffff, NVME_SUCCESS);
    g_assert_cmpuint(ns.nlbaf, ==, 1);
    g_assert_cmpuint(ns.lbaf[0].ds, ==, 9);
    g_assert_cmpuint(le64_to_cpu(ns.nsze), ==, 0);
    ns = id_ns(c, NVME_ID_CNS_NS_PRESENT, 2, NVME_SUCCESS);
    g_assert_cmpuint(le64_to_cpu(ns.nsze), ==, BLK(32));
    g_assert_cmpuint(ldq_le_p(ns.nvmcap), ==, MB(32));
    ns = id_ns(c, NVME_ID_CNS_NS_PRESENT, 9, NVME_SUCCESS);
    g_assert_cmpuint(le64_to_cpu(ns.nsze), ==, 0);
    id_ns(c, NVME_ID_CNS_NS_PRESENT, 17, NVME_INVALID_NSID);
    ns = id_ns(c, NVME_ID_CNS_NS, 1, NVME_SUCCESS);
    g_assert_cmpuint(ldq_le_p(ns.nvmcap), ==, MB(64));
    /* controller lists: NSID 2 attached to none, NSID 1 to this one */
    g_assert_cmphex(id_of(c, NVME_ID_CNS_NS_ATTACHED_CTRL_LIST, 2, l), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(l[0], ==, 0);
    g_assert_cmphex(id_of(c, NVME_ID_CNS_NS_ATTACHED_CTRL_LIST, 1, l), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(le16_to_cpu(l[0]), ==, 1);
    g_assert_cmpuint(le16_to_cpu(l[1]), ==, cntlid);
    g_assert_cmphex(id_of(c, NVME_ID_CNS_NS_ATTACHED_CTRL_LIST, 5, l), ==,
                    NVME_INVALID_NSID);
    g_assert_cmphex(id_of(c, NVME_ID_CNS_CTRL_LIST, 0, l), ==, NVME_SUCCESS);
    g_assert_cmpuint(le16_to_cpu(l[0]), ==, 1);
    g_assert_cmpuint(le16_to_cpu(l[1]), ==, cntlid);

    /* not attached: no I/O */
    g_assert_cmphex(write_v(c, 2, 0, 0xa5), ==, NVME_INVALID_NSID);

    /* attach 2 and 3 with the notice enabled: one event (the host has
     * not read the log in between), log 04h lists both */
    cmd = mk(NVME_ADM_CMD_SET_FEATURES, 0, 0, 0);
    cmd.cdw10 = cpu_to_le32(NVME_ASYNCHRONOUS_EVENT_CONF);
    cmd.cdw11 = cpu_to_le32(1 << 8);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_SUCCESS);
    cmd = mk(NVME_ADM_CMD_ASYNC_EV_REQ, 0, 0, 0);
    submit(c, 0, &cmd);
    c->aer_cid[c->naer++] = c->cid;
    g_assert_cmphex(ns_attach(c, 0, 2, cntlid), ==, NVME_SUCCESS);
    g_assert_cmphex(ns_attach(c, 0, 3, cntlid), ==, NVME_SUCCESS);
    g_assert_cmpuint(c->aer_done, ==, 1);
    CHECK_CHANGED(c, true, "2 3");
    CHECK_CHANGED(c, false, "2 3");
    CHECK_CHANGED(c, false, "");
    CHECK_NS(c, NVME_ID_CNS_NS_ACTIVE_LIST, "1 2 3");
    /* misuse of attach / detach */
    g_assert_cmphex(ns_attach(c, 0, 2, cntlid), ==, NVME_NS_ALREADY_ATTACHED);
    g_assert_cmphex(ns_attach(c, 1, 4, cntlid), ==, NVME_NS_NOT_ATTACHED);
    g_assert_cmphex(ns_attach(c, 0, 4, cntlid + 1), ==,
                    NVME_NS_CTRL_LIST_INVALID);
    g_assert_cmphex(ns_sel(c, NVME_ADM_CMD_NS_ATTACHMENT, 0, 4, 0, 0, 0), ==,
                    NVME_NS_CTRL_LIST_INVALID);
    g_assert_cmphex(ns_sel(c, NVME_ADM_CMD_NS_ATTACHMENT, 0, 4, 2, cntlid,
                           cntlid), ==, NVME_NS_CTRL_LIST_INVALID);
    g_assert_cmphex(ns_attach(c, 2, 4, cntlid), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(ns_attach(c, 0, 9, cntlid), ==, NVME_INVALID_NSID);
    g_assert_cmphex(ns_attach(c, 0, 0xffffffff, cntlid), ==,
                    NVME_INVALID_NSID);
    g_assert_cmphex(ns_attach(c, 0, 0, cntlid), ==, NVME_INVALID_NSID);

    /* data on 1, 2 and 3; each its own */
    g_assert_cmphex(write_v(c, 1, 0, 0x11), ==, NVME_SUCCESS);
    g_assert_cmphex(write_v(c, 2, 0, 0x22), ==, NVME_SUCCESS);
    g_assert_cmphex(write_v(c, 2, BLK(32) - 8, 0x2e), ==, NVME_SUCCESS);
    g_assert_cmphex(write_v(c, 3, 0, 0x33), ==, NVME_SUCCESS);
    g_assert_cmphex(write_v(c, 2, BLK(32), 0x2f), ==, NVME_LBA_RANGE);
    g_assert(reads(c, 2, 0, 0x22));
    ns = id_ns(c, NVME_ID_CNS_NS, 2, NVME_SUCCESS);
    g_assert_cmpuint(le64_to_cpu(ns.nuse), ==, 16);

    /* detach 2: no I/O, the data stays; attach again */
    g_assert_cmphex(ns_attach(c, 1, 2, cntlid), ==, NVME_SUCCESS);
    g_assert_cmphex(nsio(c, NVME_CMD_READ, 2, 0), ==, NVME_INVALID_NSID);
    CHECK_NS(c, NVME_ID_CNS_NS_ACTIVE_LIST, "1 3");
    g_assert_cmphex(ns_attach(c, 1, 2, cntlid), ==, NVME_NS_NOT_ATTACHED);
    g_assert_cmphex(ns_attach(c, 0, 2, cntlid), ==, NVME_SUCCESS);
    g_assert(reads(c, 2, 0, 0x22));

    /* delete 2 (attached): detached, its range unmapped; 1 and 3 keep
     * their data */
    CHECK_CHANGED(c, false, "2");
    g_assert_cmphex(ns_delete(c, 2), ==, NVME_SUCCESS);
    CHECK_CHANGED(c, false, "2");
    CHECK_NS(c, NVME_ID_CNS_NS_ACTIVE_LIST, "1 3");
    CHECK_NS(c, NVME_ID_CNS_NS_PRESENT_LIST, "1 3 4");
    g_assert_cmpuint(unvmcap(c), ==, MB(64));
    g_assert_cmphex(ns_delete(c, 2), ==, NVME_INVALID_NSID);
    g_assert_cmphex(ns_delete(c, 17), ==, NVME_INVALID_NSID);
    g_assert_cmphex(ns_delete(c, 0), ==, NVME_INVALID_NSID);
    g_assert_cmphex(ns_attach(c, 0, 2, cntlid), ==, NVME_INVALID_NSID);
    g_assert(reads(c, 1, 0, 0x11));
    g_assert(reads(c, 3, 0, 0x33));
    ns = id_ns(c, NVME_ID_CNS_NS, 3, NVME_SUCCESS);
    g_assert_cmpuint(le64_to_cpu(ns.nuse), ==, 8);

    /* 64 MiB free in two ranges of 32: 48 MiB do not fit */
    g_assert_cmphex(ns_create(c, BLK(48), BLK(48), 0, 0, 0, NULL), ==,
                    0x115);
    /* 32 MiB: NSID 2 again, over the old range: nothing mapped, zeroes */
    g_assert_cmphex(ns_create(c, BLK(32), BLK(32), 0, 0, 0, &nsid), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(nsid, ==, 2);
    ns = id_ns(c, NVME_ID_CNS_NS_PRESENT, 2, NVME_SUCCESS);
    g_assert_cmpuint(le64_to_cpu(ns.nuse), ==, 0);
    g_assert_cmphex(ns_attach(c, 0, 2, cntlid), ==, NVME_SUCCESS);
    g_assert(reads(c, 2, 0, 0));
    g_assert(reads(c, 2, BLK(32) - 8, 0));
    /* and 32 MiB more: NSID 5 at the end, then nothing is free */
    g_assert_cmphex(ns_create(c, BLK(32), BLK(32), 0, 0, 0, &nsid), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(nsid, ==, 5);
    g_assert_cmpuint(unvmcap(c), ==, 0);
    g_assert_cmphex(ns_create(c, 1, 1, 0, 0, 0, NULL), ==, 0x115);

    /* delete all: nothing allocated, all capacity free */
    g_assert_cmphex(ns_delete(c, 0xffffffff), ==, NVME_SUCCESS);
    CHECK_NS(c, NVME_ID_CNS_NS_PRESENT_LIST, "");
    CHECK_NS(c, NVME_ID_CNS_NS_ACTIVE_LIST, "");
    g_assert_cmpuint(unvmcap(c), ==, MB(192));
    g_assert_cmphex(nsio(c, NVME_CMD_READ, 1, 0), ==, NVME_INVALID_NSID);
    /* NSIDs run out: 16 of 1 MiB, the 17th is refused */
    for (uint32_t want = 1; want <= 16; want++) {
        g_assert_cmphex(ns_create(c, BLK(1), BLK(1), 0, 0, 0, &nsid), ==,
                        NVME_SUCCESS);
        g_assert_cmpuint(nsid, ==, want);
    }
    g_assert_cmphex(ns_create(c, BLK(1), BLK(1), 0, 0, 0, NULL), ==, 0x116);
    g_assert_cmphex(ns_delete(c, 0xffffffff), ==, NVME_SUCCESS);
    /* namespace 1 over all of it for the health check */
    g_assert_cmphex(ns_create(c, BLK(192), BLK(192), 0, 0, 0, &nsid), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(nsid, ==, 1);
    g_assert_cmphex(ns_attach(c, 0, 1, cntlid), ==, NVME_SUCCESS);
    g_assert(reads(c, 1, 0, 0));
    c->ns_blocks = BLK(192);
    ctrl_stop(c);

    /* without ns_mgmt: neither command, OACS bit 3 clear, no CNS 10h */
    c = ctrl_start("");
    idc = id_ctrl(c);
    g_assert_cmphex(le16_to_cpu(idc.oacs) & NVME_OACS_NMS, ==, 0);
    g_assert_cmpuint(ldq_le_p(idc.tnvmcap), ==, 0);
    g_assert_cmphex(ns_create(c, BLK(1), BLK(1), 0, 0, 0, NULL), ==,
                    NVME_INVALID_OPCODE);
    g_assert_cmphex(ns_attach(c, 1, 1, 0), ==, NVME_INVALID_OPCODE);
    g_assert_cmphex(id_of(c, NVME_ID_CNS_NS_PRESENT_LIST, 0, l), ==,
                    NVME_INVALID_FIELD);
    ctrl_stop(c);
}

/* C0h read with nsid into *log: its status */
static uint16_t c0_of(Ctrl *c, uint32_t nsid, FemuLogFtl *log)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_GET_LOG_PAGE, nsid, c->buf, 0);
    uint16_t st;

    cmd.cdw10 = cpu_to_le32((sizeof(*log) / 4 - 1) << 16 | FEMU_LOG_FTL);
    qtest_memset(c->qts, c->buf, 0xee, PAGE);
    st = run(c, 0, &cmd, NULL);
    qtest_memread(c->qts, c->buf, log, sizeof(*log));
    return st;
}

/* C0h's ns_ fields with nsid: "NSID host gc" */
static char *c0_ns(Ctrl *c, uint32_t nsid)
{
    FemuLogFtl log;

    g_assert_cmphex(c0_of(c, nsid, &log), ==, NVME_SUCCESS);
    return g_strdup_printf("%" PRIu32 " %" PRIu64 " %" PRIu64,
                           le32_to_cpu(log.ns_nsid),
                           le64_to_cpu(log.ns_host_pages_written),
                           le64_to_cpu(log.ns_gc_pages_moved));
}

#define CHECK_C0_NS(c, nsid, want)                 \
    do {                                           \
        g_autofree char *s_ = c0_ns(c, nsid);      \
        g_assert_cmpstr(s_, ==, want);             \
    } while (0)

/*
 * C0h per namespace: with each NSID the host pages written to that
 * namespace and the GC pages moved that held its data; with FFFFFFFFh
 * (or 0) the device's totals, the whole-FTL fields, which stay the
 * whole device's with every NSID.  Two BlackBox namespaces written
 * different amounts, with GC; then with ns_mgmt: a create or a delete
 * keeps the other namespaces' counters, a new namespace starts at 0.
 */
void test_ns_c0(void)
{
    /* 8192 NAND pages of 4 KiB, two namespaces of 12 MiB (3072 pages) */
    Ctrl *c = ctrl_start("nchs=2,luns_per_ch=2,blks_per_pl=32,"
                         "pgs_per_blk=64,devsz_mb=24,namespaces=2,"
                         "namespace_sizes=12M,,12M");
    uint64_t pages = MB(12) / PAGE, h[3], g[3];
    uint32_t x = 1;
    FemuLogFtl all, log;
    uint16_t cntlid;
    uint32_t nsid;

    CHECK_C0_NS(c, 1, "1 0 0");
    CHECK_C0_NS(c, 0xffffffff, "4294967295 0 0");
    /* both filled, then 4096 random 4 KiB writes, three of four on
     * namespace 1: 10240 host pages on 8192 NAND pages, so GC runs and
     * moves pages of both */
    for (uint32_t ns = 1; ns <= 2; ns++) {
        for (uint64_t p = 0; p < pages; p++) {
            g_assert_cmphex(write_v(c, ns, p * 8, ns), ==, NVME_SUCCESS);
        }
    }
    for (uint32_t i = 0; i < 4096; i++) {
        x = x * 1103515245u + 12345u;
        g_assert_cmphex(write_v(c, i % 4 == 3 ? 2 : 1,
                                ((x >> 8) % pages) * 8, 3), ==,
                        NVME_SUCCESS);
    }
    g_assert_cmphex(c0_of(c, 0xffffffff, &all), ==, NVME_SUCCESS);
    g_assert_cmpuint(le32_to_cpu(all.ns_nsid), ==, 0xffffffff);
    g_assert_cmpuint(le64_to_cpu(all.host_pages_written), ==,
                     2 * pages + 4096);
    g_assert_cmpuint(le64_to_cpu(all.gc_pages_moved), >, 0);
    /* the totals are the whole-FTL fields */
    g_assert_cmpuint(le64_to_cpu(all.ns_host_pages_written), ==,
                     le64_to_cpu(all.host_pages_written));
    g_assert_cmpuint(le64_to_cpu(all.ns_gc_pages_moved), ==,
                     le64_to_cpu(all.gc_pages_moved));
    for (uint32_t i = 1; i <= 2; i++) {
        g_assert_cmphex(c0_of(c, i, &log), ==, NVME_SUCCESS);
        g_assert_cmpuint(le32_to_cpu(log.ns_nsid), ==, i);
        h[i] = le64_to_cpu(log.ns_host_pages_written);
        g[i] = le64_to_cpu(log.ns_gc_pages_moved);
        /* the fields before them are the whole device's with every NSID */
        g_assert(memcmp(&log, &all, offsetof(FemuLogFtl, ns_nsid)) == 0);
    }
    g_test_message("C0h per namespace: ns1 %" PRIu64 " host / %" PRIu64
                   " GC, ns2 %" PRIu64 " host / %" PRIu64 " GC, all %"
                   PRIu64 " / %" PRIu64, h[1], g[1], h[2], g[2],
                   le64_to_cpu(all.host_pages_written),
                   le64_to_cpu(all.gc_pages_moved));
    g_assert_cmpuint(h[1], ==, pages + 3072);
    g_assert_cmpuint(h[2], ==, pages + 1024);
    g_assert_cmpuint(h[1] + h[2], ==, le64_to_cpu(all.host_pages_written));
    g_assert_cmpuint(g[1] + g[2], ==, le64_to_cpu(all.gc_pages_moved));
    /* NSID 0 is the device's; an NSID that is no namespace is refused */
    {
        g_autofree char *t0 = c0_ns(c, 0);
        g_autofree char *tf = c0_ns(c, 0xffffffff);

        g_assert_cmpstr(t0, ==, tf);
    }
    g_assert_cmphex(c0_of(c, 3, &log), ==, NVME_INVALID_NSID);
    /* 0xEF code 5 restarts them with the other counters */
    {
        NvmeCmd cmd = mk(FEMU_ADM_CMD_CONTROL, 0, 0, 0);

        cmd.cdw10 = cpu_to_le32(FEMU_CTRL_RESET_COUNTERS);
        g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_SUCCESS);
    }
    CHECK_C0_NS(c, 1, "1 0 0");
    CHECK_C0_NS(c, 2, "2 0 0");
    CHECK_C0_NS(c, 0xffffffff, "4294967295 0 0");
    ctrl_stop(c);

    /* ns_mgmt: namespace 1 of 64 MiB at start */
    c = ctrl_start(NSM_OPTS);
    cntlid = le16_to_cpu(id_ctrl(c).cntlid);
    for (uint64_t p = 0; p < 3; p++) {
        g_assert_cmphex(write_v(c, 1, p * 8, 1), ==, NVME_SUCCESS);
    }
    g_assert_cmphex(ns_create(c, BLK(32), BLK(32), 0, 0, 0, &nsid), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(nsid, ==, 2);
    /* allocated but not attached: no namespace to read C0h of yet */
    g_assert_cmphex(c0_of(c, 2, &log), ==, NVME_INVALID_NSID);
    g_assert_cmphex(ns_attach(c, 0, 2, cntlid), ==, NVME_SUCCESS);
    CHECK_C0_NS(c, 2, "2 0 0");
    for (uint64_t p = 0; p < 5; p++) {
        g_assert_cmphex(write_v(c, 2, p * 8, 2), ==, NVME_SUCCESS);
    }
    /* the create kept namespace 1's count */
    CHECK_C0_NS(c, 1, "1 3 0");
    CHECK_C0_NS(c, 2, "2 5 0");
    CHECK_C0_NS(c, 0xffffffff, "4294967295 8 0");
    /* delete 1: namespace 2 keeps its count, the device's stay */
    g_assert_cmphex(ns_delete(c, 1), ==, NVME_SUCCESS);
    CHECK_C0_NS(c, 2, "2 5 0");
    CHECK_C0_NS(c, 0xffffffff, "4294967295 8 0");
    /* NSID 1 again over the old range: a new namespace, from 0 */
    g_assert_cmphex(ns_create(c, BLK(16), BLK(16), 0, 0, 0, &nsid), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(nsid, ==, 1);
    g_assert_cmphex(ns_attach(c, 0, 1, cntlid), ==, NVME_SUCCESS);
    CHECK_C0_NS(c, 1, "1 0 0");
    for (uint64_t p = 0; p < 2; p++) {
        g_assert_cmphex(write_v(c, 1, p * 8, 3), ==, NVME_SUCCESS);
    }
    CHECK_C0_NS(c, 1, "1 2 0");
    CHECK_C0_NS(c, 2, "2 5 0");
    CHECK_C0_NS(c, 0xffffffff, "4294967295 10 0");
    /* detached: no C0h of it */
    g_assert_cmphex(ns_attach(c, 1, 2, cntlid), ==, NVME_SUCCESS);
    g_assert_cmphex(c0_of(c, 2, &log), ==, NVME_INVALID_NSID);
    g_assert_cmphex(ns_attach(c, 0, 2, cntlid), ==, NVME_SUCCESS);
    CHECK_C0_NS(c, 2, "2 5 0");
    c->ns_blocks = BLK(16);
    ctrl_stop(c);
}
