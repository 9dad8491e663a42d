/*
 * femu-test cases: Flexible Data Placement (NVMe 2.0, TP4146).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu-host.h"

/* ---- FDP (NVMe 2.0 / TP4146) ----------------------------------------- */

#define FDP_T4 "nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25"
#define FDP_DTYPE_DP 2          /* Data Placement directive */

/* Get Log Page of an FDP page (5.16): LSP, LSI = endurance group, len
 * bytes (a dword multiple, at most 2 pages) from LPO off into c->buf. */
static uint16_t fdp_log(Ctrl *c, uint8_t lid, uint8_t lsp, uint16_t lsi,
                        uint32_t len, uint64_t off)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_GET_LOG_PAGE, 0xffffffff, c->buf,
                     c->buf + PAGE);
    uint32_t numd = len / 4 - 1;

    cmd.cdw10 = cpu_to_le32((numd & 0xffff) << 16 | (uint32_t)lsp << 8 | lid);
    cmd.cdw11 = cpu_to_le32((uint32_t)lsi << 16 | numd >> 16);
    cmd.cdw12 = cpu_to_le32((uint32_t)off);
    cmd.cdw13 = cpu_to_le32((uint32_t)(off >> 32));
    return run(c, 0, &cmd, NULL);
}

/* Mark the data buffer, so that bytes a command did not write show. */
static void fdp_mark(Ctrl *c)
{
    qtest_memset(c->qts, c->buf, 0xa5, 3 * PAGE);
}

static void fdp_read(Ctrl *c, void *out, size_t len)
{
    qtest_memread(c->qts, c->buf, out, len);
}

static bool fdp_all(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != v) {
            return false;
        }
    }
    return true;
}

/* A write of nlb blocks at slba with DTYPE dtype and DSPEC dspec. */
static uint16_t fdp_write(Ctrl *c, uint64_t slba, uint16_t nlb, uint8_t dtype,
                          uint16_t dspec)
{
    NvmeCmd cmd = mk(NVME_CMD_WRITE, 1, c->buf, c->buf + PAGE);

    cmd.cdw10 = cpu_to_le32((uint32_t)slba);
    cmd.cdw11 = cpu_to_le32((uint32_t)(slba >> 32));
    cmd.cdw12 = cpu_to_le32((uint32_t)(nlb - 1) | (uint32_t)dtype << 20);
    cmd.cdw13 = cpu_to_le32((uint32_t)dspec << 16);
    return run(c, IOQ, &cmd, NULL);
}

/* I/O Management Receive, MO 1 (RUH status): len bytes into c->buf. */
static uint16_t fdp_ruh_status(Ctrl *c, uint32_t len)
{
    NvmeCmd cmd = mk(NVME_CMD_IO_MGMT_RECV, 1, c->buf, c->buf + PAGE);

    cmd.cdw10 = cpu_to_le32(NVME_IOMR_MO_RUH_STATUS);
    cmd.cdw11 = cpu_to_le32(len / 4 - 1);     /* NUMD, 0's based */
    return run(c, IOQ, &cmd, NULL);
}

/* RUAMW of placement id pid from a full RUH status read. */
static uint64_t fdp_ruamw(Ctrl *c, uint16_t nruh, uint16_t pid)
{
    uint8_t b[2 * PAGE];
    uint32_t len = sizeof(NvmeRuhStatus) + nruh * sizeof(NvmeRuhStatusDescr);
    const uint8_t *d = b + sizeof(NvmeRuhStatus) +
                       pid * sizeof(NvmeRuhStatusDescr);

    g_assert_cmpuint(len, <=, sizeof(b));
    g_assert_cmphex(fdp_ruh_status(c, len), ==, NVME_SUCCESS);
    fdp_read(c, b, len);
    g_assert_cmpuint(lduw_le_p(d), ==, pid);            /* PID */
    g_assert_cmpuint(lduw_le_p(d + 2), ==, pid);        /* RUHID */
    g_assert_cmpuint(ldl_le_p(d + 4), ==, 0);           /* EARUTR */
    return ldq_le_p(d + 8);
}

/* I/O Management Send, MO 1 (RUH update) of n placement ids. */
static uint16_t fdp_update(Ctrl *c, const uint16_t *pids, int n)
{
    NvmeCmd cmd = mk(NVME_CMD_IO_MGMT_SEND, 1, c->buf, 0);
    uint16_t le[16];

    g_assert_cmpint(n, <=, 16);
    for (int i = 0; i < n; i++) {
        le[i] = cpu_to_le16(pids[i]);
    }
    qtest_memwrite(c->qts, c->buf, le, n * sizeof(le[0]));
    cmd.cdw10 = cpu_to_le32((uint32_t)(n - 1) << 16 | NVME_IOMS_MO_RUH_UPDATE);
    return run(c, IOQ, &cmd, NULL);
}

/* Get/Set Features with data in c->buf. */
static uint16_t fdp_feat(Ctrl *c, uint8_t opc, uint32_t nsid, uint32_t dw10,
                         uint32_t dw11, uint32_t dw12, uint32_t *dw0)
{
    NvmeCmd cmd = mk(opc, nsid, c->buf, 0);

    cmd.cdw10 = cpu_to_le32(dw10);
    cmd.cdw11 = cpu_to_le32(dw11);
    cmd.cdw12 = cpu_to_le32(dw12);
    return run(c, 0, &cmd, dw0);
}

/*
 * Get Features FDP Events (1Eh) of namespace 1, CDW11 = NOET << 16 |
 * handle: DW0 says n descriptors; the 2 n bytes of them are read into b,
 * and the next 2 n bytes of the buffer are as fdp_mark left them.
 */
static void fdp_get_events(Ctrl *c, uint32_t dw11, uint32_t n, uint8_t *b)
{
    uint32_t dw0;

    fdp_mark(c);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 1, NVME_FDP_EVENTS,
                             dw11, 0, &dw0), ==, NVME_SUCCESS);
    g_assert_cmpuint(dw0, ==, n);
    fdp_read(c, b, 4 * n);
    g_assert(fdp_all(b + 2 * n, 2 * n, 0xa5));
}

/* The host events log (23h, LSP 1): count and events into ev. */
static uint32_t fdp_events(Ctrl *c, uint8_t *ev, size_t evlen)
{
    uint8_t b[PAGE];

    fdp_mark(c);
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_EVENTS, 1, 1, PAGE, 0), ==,
                    NVME_SUCCESS);
    fdp_read(c, b, sizeof(b));
    /* header: NEVENTS, 60 bytes reserved */
    g_assert(fdp_all(b + 4, 60, 0));
    /* a 4 KiB page of 63 events after the header: unused ones are 0 */
    g_assert(fdp_all(b + 64 + 64 * ldl_le_p(b),
                     PAGE - 64 - 64 * ldl_le_p(b), 0));
    memcpy(ev, b + 64, MIN(evlen, sizeof(b) - 64));
    return ldl_le_p(b);
}

/* One FDP event entry (5.16.1.23), 64 bytes. */
static void fdp_check_event(const uint8_t *e, uint8_t type, uint16_t pid,
                            uint8_t ruhid)
{
    g_assert_cmphex(e[0], ==, type);
    /* flags: PIV, NSIDV, LV (RGID/RUHID valid) */
    g_assert_cmphex(e[1], ==, FDPEF_PIV | FDPEF_NSIDV | FDPEF_LV);
    g_assert_cmphex(lduw_le_p(e + 2), ==, pid);
    g_assert_cmphex(ldl_le_p(e + 12), ==, 1);          /* NSID */
    g_assert(fdp_all(e + 16, 16, 0));                   /* type specific */
    g_assert_cmphex(lduw_le_p(e + 32), ==, 0);         /* RGID */
    g_assert_cmphex(e[34], ==, ruhid);
    g_assert(fdp_all(e + 35, 29, 0));                   /* rsvd, vendor */
}

/* Identify with FDP on (endurance group 1, CTRATT bits 4 endurance groups
 * and 19 FDP) or off (none): the controller, the namespace and the I/O
 * command set independent namespace (CNS 08h) say so. */
static void fdp_check_identify(Ctrl *c, bool on)
{
    uint8_t id[PAGE];
    NvmeIdCtrl *idc = (NvmeIdCtrl *)id;
    NvmeIdNs *idn = (NvmeIdNs *)id;

    g_assert_cmphex(identify(c, NVME_ID_CNS_CTRL, 0, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(id));
    g_assert_cmphex(le32_to_cpu(idc->ctratt), ==, on ? 0x80010 : 0);
    g_assert_cmpuint(le16_to_cpu(idc->endgidmax), ==, on);
    g_assert_cmphex(identify(c, NVME_ID_CNS_NS, 1, c->buf), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(id));
    g_assert_cmpuint(le16_to_cpu(idn->endgid), ==, on);
    g_assert_cmphex(identify(c, NVME_ID_CNS_CS_IND_NS, 1, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(id));
    g_assert_cmpuint(lduw_le_p(id + 12), ==, on);
}

/*
 * Log pages 20h-23h byte for byte, LSI/LPO/short reads, events with every
 * field, features 1Dh/1Eh, I/O Management Receive/Send and placement on
 * the tutorial-04 device (4 handles, 8 MiB reclaim units, 512 B blocks).
 */
void test_fdp_logs(void)
{
    Ctrl *c = ctrl_start(FDP_T4 ",subsys=fdp0");
    uint8_t b[2 * PAGE], ev[64 * 4];
    uint8_t id[PAGE];
    uint32_t dw0;
    uint64_t ts;
    static const uint16_t one[] = { 1 };

    fdp_check_identify(c, true);
    /* endurance group list (CNS 19h): one entry, 1 */
    g_assert_cmphex(identify(c, NVME_ID_CNS_ENDURANCE_GROUP_LIST, 0, c->buf),
                    ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(id));
    g_assert_cmpuint(lduw_le_p(id), ==, 1);
    g_assert_cmpuint(lduw_le_p(id + 2), ==, 1);
    g_assert(fdp_all(id + 4, sizeof(id) - 4, 0));

    /* 20h: 16-byte header, one 64-byte descriptor + 4 RUH descriptors */
    fdp_mark(c);
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_CONFS, 0, 1, PAGE, 0), ==,
                    NVME_SUCCESS);
    fdp_read(c, b, PAGE);
    g_assert_cmpuint(lduw_le_p(b), ==, 0);              /* NUMFDPC 0's based */
    g_assert_cmpuint(b[2], ==, 0);                      /* version */
    g_assert_cmpuint(ldl_le_p(b + 4), ==, 96);          /* LSIZE */
    g_assert(fdp_all(b + 8, 8, 0) && b[3] == 0);
    g_assert_cmpuint(lduw_le_p(b + 16), ==, 80);        /* DSZE */
    g_assert_cmphex(b[18], ==, 0x80);                   /* FDPA: valid */
    g_assert_cmpuint(b[19], ==, 0);                     /* VSS */
    g_assert_cmpuint(ldl_le_p(b + 20), ==, 1);          /* NRG */
    g_assert_cmpuint(lduw_le_p(b + 24), ==, 4);         /* NRUH */
    g_assert_cmpuint(lduw_le_p(b + 26), ==, 3);         /* MAXPIDS */
    g_assert_cmpuint(ldl_le_p(b + 28), ==, 256);        /* NNSS */
    g_assert_cmpuint(ldq_le_p(b + 32), ==, 8388608);    /* RUNS */
    g_assert_cmpuint(ldl_le_p(b + 40), ==, 0);          /* ERUTL */
    g_assert(fdp_all(b + 44, 36, 0));
    for (int i = 0; i < 4; i++) {
        g_assert_cmphex(ldl_le_p(b + 80 + 4 * i), ==,
                        NVME_RUHT_PERSISTENTLY_ISOLATED);
    }
    g_assert(fdp_all(b + 96, PAGE - 96, 0));
    /* short read: 16 bytes, the buffer after them untouched */
    fdp_mark(c);
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_CONFS, 0, 1, 16, 0), ==,
                    NVME_SUCCESS);
    fdp_read(c, id, 32);
    g_assert(memcmp(id, b, 16) == 0 && fdp_all(id + 16, 16, 0xa5));
    /* LPO 24: NRUH onwards; LPO = size: zeroes; past it: Invalid Field */
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_CONFS, 0, 1, 8, 24), ==,
                    NVME_SUCCESS);
    fdp_read(c, id, 8);
    g_assert(memcmp(id, b + 24, 8) == 0);
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_CONFS, 0, 1, 8, 96), ==,
                    NVME_SUCCESS);
    fdp_read(c, id, 8);
    g_assert(fdp_all(id, 8, 0));
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_CONFS, 0, 1, 8, 100), ==,
                    NVME_INVALID_FIELD);
    /* LSI names the endurance group: 0 and 2 do not exist */
    for (int lid = NVME_LOG_FDP_CONFS; lid <= NVME_LOG_FDP_EVENTS; lid++) {
        g_assert_cmphex(fdp_log(c, lid, 1, 0, 64, 0), ==, NVME_INVALID_FIELD);
        g_assert_cmphex(fdp_log(c, lid, 1, 2, 64, 0), ==, NVME_INVALID_FIELD);
    }
    /* 09h Endurance Group Information of group 1: a new device, no
     * warning, spare 100% (threshold 10%), nothing used; 512 bytes */
    fdp_mark(c);
    g_assert_cmphex(fdp_log(c, NVME_LOG_ENDGRP, 0, 1, 516, 0), ==,
                    NVME_SUCCESS);
    fdp_read(c, b, 516);
    g_assert_cmphex(b[0], ==, 0);
    g_assert_cmpuint(b[3], ==, 100);
    g_assert_cmpuint(b[4], ==, 10);
    g_assert_cmpuint(b[5], ==, 0);
    g_assert(fdp_all(b + 512, 4, 0));
    g_assert_cmphex(fdp_log(c, NVME_LOG_ENDGRP, 0, 2, 512, 0), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(fdp_log(c, NVME_LOG_ENDGRP, 0, 0, 512, 0), ==,
                    NVME_INVALID_FIELD);

    /* 21h: NRUH, 6 reserved bytes, 8 bytes per handle: host specified */
    fdp_mark(c);
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_RUH_USAGE, 0, 1, 64, 0), ==,
                    NVME_SUCCESS);
    fdp_read(c, b, 64);
    g_assert_cmpuint(lduw_le_p(b), ==, 4);
    g_assert(fdp_all(b + 2, 6, 0));
    for (int i = 0; i < 4; i++) {
        g_assert_cmphex(b[8 + 8 * i], ==, NVME_RUHA_HOST);
        g_assert(fdp_all(b + 9 + 8 * i, 7, 0));
    }
    g_assert(fdp_all(b + 40, 24, 0));

    /* RUH status fresh: 16384 blocks of 512 B in every 8 MiB unit */
    for (int p = 0; p < 4; p++) {
        g_assert_cmpuint(fdp_ruamw(c, 4, p), ==, 16384);
    }
    /* header only (NUMD 3): NRUHSD 4, nothing past 16 bytes written */
    fdp_mark(c);
    g_assert_cmphex(fdp_ruh_status(c, 16), ==, NVME_SUCCESS);
    fdp_read(c, b, 32);
    g_assert(fdp_all(b, 14, 0) && lduw_le_p(b + 14) == 4);
    g_assert(fdp_all(b + 16, 16, 0xa5));
    /* a buffer longer than the 144-byte page: zeroes after it */
    fdp_mark(c);
    g_assert_cmphex(fdp_ruh_status(c, PAGE), ==, NVME_SUCCESS);
    fdp_read(c, b, PAGE);
    g_assert(fdp_all(b + 144, PAGE - 144, 0));
    for (int p = 0; p < 4; p++) {
        g_assert(fdp_all(b + 16 + 32 * p + 16, 16, 0));
    }

    /* three 4 KiB writes through placement id 1 (DTYPE 2, DSPEC 1) */
    for (int i = 0; i < 3; i++) {
        g_assert_cmphex(fdp_write(c, 8 * i, 8, FDP_DTYPE_DP, 1), ==,
                        NVME_SUCCESS);
    }
    g_assert_cmpuint(fdp_ruamw(c, 4, 1), ==, 16360);
    g_assert_cmpuint(fdp_ruamw(c, 4, 0), ==, 16384);
    g_assert_cmpuint(fdp_ruamw(c, 4, 2), ==, 16384);
    g_assert_cmpuint(fdp_ruamw(c, 4, 3), ==, 16384);
    /* 22h: HBMW, MBMW, MBE as 128-bit counts, 16 reserved bytes */
    fdp_mark(c);
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_STATS, 0, 1, 64, 0), ==,
                    NVME_SUCCESS);
    fdp_read(c, b, 64);
    g_assert_cmpuint(ldq_le_p(b), ==, 12288);
    g_assert_cmpuint(ldq_le_p(b + 16), ==, 12288);
    g_assert_cmpuint(ldq_le_p(b + 32), ==, 0);
    g_assert(fdp_all(b + 8, 8, 0) && fdp_all(b + 24, 8, 0) &&
             fdp_all(b + 40, 24, 0));
    /* no directive: handle 0; half a page still programs a page */
    g_assert_cmphex(fdp_write(c, 64, 4, 0, 0), ==, NVME_SUCCESS);
    g_assert_cmpuint(fdp_ruamw(c, 4, 0), ==, 16376);
    /* any directive type but 2 (Streams: 1, reserved 0Fh): Invalid Field */
    g_assert_cmphex(fdp_write(c, 64, 8, 1, 1), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(fdp_write(c, 64, 8, 0xf, 0), ==, NVME_INVALID_FIELD);
    g_assert_cmpuint(fdp_ruamw(c, 4, 0), ==, 16376);

    /* no events yet: host and controller logs empty */
    g_assert_cmpuint(fdp_events(c, ev, sizeof(ev)), ==, 0);
    /* invalid placement id 9: handle 0, and a host event */
    g_assert_cmphex(fdp_write(c, 72, 8, FDP_DTYPE_DP, 9), ==, NVME_SUCCESS);
    g_assert_cmpuint(fdp_ruamw(c, 4, 0), ==, 16368);
    g_assert_cmpuint(fdp_events(c, ev, sizeof(ev)), ==, 1);
    fdp_check_event(ev, FDP_EVT_INVALID_PID, 9, 0);
    /* the timestamp counts from 0 since the reset (origin 000b) */
    ts = ldq_le_p(ev + 4);
    g_assert_cmphex(ts >> 48, ==, 0);
    g_assert_cmpuint(ts, <, 3600 * 1000);
    /* read again: events stay; LPO 64 is event 0 */
    g_assert_cmpuint(fdp_events(c, ev, sizeof(ev)), ==, 1);
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_EVENTS, 1, 1, 64, 64), ==,
                    NVME_SUCCESS);
    fdp_read(c, b, 64);
    g_assert(memcmp(b, ev, 64) == 0);
    /* controller events (LSP 0): none, ever */
    fdp_mark(c);
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_EVENTS, 0, 1, PAGE, 0), ==,
                    NVME_SUCCESS);
    fdp_read(c, b, PAGE);
    g_assert(fdp_all(b, PAGE, 0));

    /* after Set Features Timestamp (origin 001b) events carry its value;
     * qtest's virtual clock only moves when stepped, so it is exact here
     * give or take a second */
    {
        uint8_t t[8] = { 0xab, 0x89, 0x67, 0x45, 0x23, 0x01 };

        qtest_memwrite(c->qts, c->buf, t, sizeof(t));
        g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_SET_FEATURES, 0,
                                 NVME_TIMESTAMP, 0, 0, NULL), ==,
                        NVME_SUCCESS);
    }
    /* RUH update of id 1 (3 pages written): a fresh unit, and "reclaim
     * unit not fully written" for handle 1 */
    g_assert_cmphex(fdp_update(c, one, 1), ==, NVME_SUCCESS);
    g_assert_cmpuint(fdp_ruamw(c, 4, 1), ==, 16384);
    g_assert_cmpuint(fdp_events(c, ev, sizeof(ev)), ==, 2);
    fdp_check_event(ev, FDP_EVT_INVALID_PID, 9, 0);     /* oldest first */
    fdp_check_event(ev + 64, FDP_EVT_RU_NOT_FULLY_WRITTEN, 1, 1);
    ts = ldq_le_p(ev + 64 + 4);
    g_assert_cmphex(ts >> 48, ==, 0x0002);              /* origin 001b */
    g_assert_cmpuint(ts & ((1ULL << 48) - 1), >=, 0x0123456789abULL);
    g_assert_cmpuint(ts & ((1ULL << 48) - 1), <=, 0x0123456789abULL + 1000);
    /* an update of a handle with no open unit changes nothing */
    g_assert_cmphex(fdp_update(c, one, 1), ==, NVME_SUCCESS);
    g_assert_cmpuint(fdp_events(c, ev, sizeof(ev)), ==, 2);
    /* an id past the handles fails the whole list, nothing moves */
    {
        static const uint16_t bad[] = { 0, 4 };

        g_assert_cmphex(fdp_update(c, bad, 2), ==, NVME_INVALID_PHID_LIST);
        g_assert_cmpuint(fdp_ruamw(c, 4, 0), ==, 16368);
    }

    /* 1Dh FDP mode: CDW11 = endurance group; FDPE 1, configuration 0 */
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 0, NVME_FDP_MODE,
                             1, 0, &dw0), ==, NVME_SUCCESS);
    g_assert_cmphex(dw0, ==, 1);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 0, NVME_FDP_MODE,
                             2, 0, &dw0), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 0,
                             NVME_FDP_MODE | NVME_GETFEAT_SELECT_CAP << 8, 1,
                             0, &dw0), ==, NVME_SUCCESS);
    g_assert_cmphex(dw0, ==, NVME_FEAT_CAP_SAVE | NVME_FEAT_CAP_CHANGE);
    /* setting what is in force, with SV: success; a change while the
     * endurance group holds a namespace: Command Sequence Error */
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_SET_FEATURES, 0,
                             1u << 31 | NVME_FDP_MODE, 1, 1, NULL), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_SET_FEATURES, 0, NVME_FDP_MODE,
                             1, 0, NULL), ==, NVME_CMD_SEQ_ERROR);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_SET_FEATURES, 0, NVME_FDP_MODE,
                             1, 1 << 8 | 1, NULL), ==, NVME_CMD_SEQ_ERROR);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 0, NVME_FDP_MODE,
                             1, 0, &dw0), ==, NVME_SUCCESS);
    g_assert_cmphex(dw0, ==, 1);

    /* 1Eh FDP events of placement handle 0: NOET descriptors of 2 bytes
     * (type, bit 0 enabled), DW0 = descriptors returned */
    fdp_get_events(c, 8 << 16 | 0, 2, b);
    g_assert_cmphex(ldl_le_p(b), ==, 0x01030100);
    /* NOET 1: one descriptor */
    fdp_get_events(c, 1 << 16 | 3, 1, b);
    g_assert_cmphex(lduw_le_p(b), ==, 0x0100);
    /* handle 4, NOET 0, namespace 2: refused */
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 1, NVME_FDP_EVENTS,
                             2 << 16 | 4, 0, &dw0), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 1, NVME_FDP_EVENTS,
                             0, 0, &dw0), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 2, NVME_FDP_EVENTS,
                             2 << 16, 0, &dw0), ==, NVME_INVALID_NSID);
    /* SEL 3: saveable, per namespace, changeable */
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 1,
                             NVME_FDP_EVENTS | NVME_GETFEAT_SELECT_CAP << 8,
                             2 << 16, 0, &dw0), ==, NVME_SUCCESS);
    g_assert_cmphex(dw0, ==, 0x7);
    /* Set: disable "invalid placement identifier" (03h) on handle 0 */
    {
        uint8_t t = FDP_EVT_INVALID_PID;

        qtest_memwrite(c->qts, c->buf, &t, 1);
        g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_SET_FEATURES, 1,
                                 NVME_FDP_EVENTS, 1 << 16 | 0, 0, NULL), ==,
                        NVME_SUCCESS);
        /* an event type the controller never raises: Invalid Field */
        t = FDP_EVT_MEDIA_REALLOC;
        qtest_memwrite(c->qts, c->buf, &t, 1);
        g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_SET_FEATURES, 1,
                                 NVME_FDP_EVENTS, 1 << 16 | 0, 1, NULL), ==,
                        NVME_INVALID_FIELD);
    }
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 1, NVME_FDP_EVENTS,
                             2 << 16 | 0, 0, &dw0), ==, NVME_SUCCESS);
    fdp_read(c, b, 4);
    g_assert_cmphex(ldl_le_p(b), ==, 0x00030100);
    /* default (SEL 1): all enabled; saved (SEL 2): unchanged without SV */
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 1,
                             NVME_FDP_EVENTS | NVME_GETFEAT_SELECT_DEFAULT << 8,
                             2 << 16 | 0, 0, &dw0), ==, NVME_SUCCESS);
    fdp_read(c, b, 4);
    g_assert_cmphex(ldl_le_p(b), ==, 0x01030100);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 1,
                             NVME_FDP_EVENTS | NVME_GETFEAT_SELECT_SAVED << 8,
                             2 << 16 | 0, 0, &dw0), ==, NVME_SUCCESS);
    fdp_read(c, b, 4);
    g_assert_cmphex(ldl_le_p(b), ==, 0x01030100);
    /* the disabled event is not logged, handle 0 is still used */
    g_assert_cmphex(fdp_write(c, 80, 8, FDP_DTYPE_DP, 0xfff0), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(fdp_ruamw(c, 4, 0), ==, 16360);
    g_assert_cmpuint(fdp_events(c, ev, sizeof(ev)), ==, 2);
    /* "reclaim unit not fully written" disabled on handle 2: a RUH update
     * still starts a fresh unit, and logs nothing */
    {
        uint8_t t = FDP_EVT_RU_NOT_FULLY_WRITTEN;
        static const uint16_t two[] = { 2 };

        qtest_memwrite(c->qts, c->buf, &t, 1);
        g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_SET_FEATURES, 1,
                                 NVME_FDP_EVENTS, 1 << 16 | 2, 0, NULL), ==,
                        NVME_SUCCESS);
        g_assert_cmphex(fdp_write(c, 88, 8, FDP_DTYPE_DP, 2), ==,
                        NVME_SUCCESS);
        g_assert_cmpuint(fdp_ruamw(c, 4, 2), ==, 16376);
        g_assert_cmphex(fdp_update(c, two, 1), ==, NVME_SUCCESS);
        g_assert_cmpuint(fdp_ruamw(c, 4, 2), ==, 16384);
        g_assert_cmpuint(fdp_events(c, ev, sizeof(ev)), ==, 2);
        /* handle 3 keeps it enabled: its update is logged */
        g_assert_cmphex(fdp_write(c, 96, 8, FDP_DTYPE_DP, 3), ==,
                        NVME_SUCCESS);
        g_assert_cmphex(fdp_update(c, (const uint16_t[]){ 3 }, 1), ==,
                        NVME_SUCCESS);
        g_assert_cmpuint(fdp_events(c, ev, sizeof(ev)), ==, 3);
        fdp_check_event(ev + 128, FDP_EVT_RU_NOT_FULLY_WRITTEN, 3, 3);
    }
    ctrl_stop(c);
}

/*
 * 128 reclaim unit handles on the default geometry: placement ids 0, 64
 * and 127 write into their own handles, the pages 20h/21h and RUH status
 * carry 128 entries, short reads work.
 */
void test_fdp_handles128(void)
{
    const char *saved = extra_args;
    Ctrl *c;
    uint8_t b[2 * PAGE], part[PAGE];
    static const uint16_t ids[] = { 0, 64, 127 };
    const uint64_t full = 16384 * 8;   /* 64 MiB units of 512 B blocks */
    uint32_t len;

    extra_args = "-device femu-subsys,id=fdp0,fdp=on,fdp.nruh=128";
    c = ctrl_start("subsys=fdp0");
    extra_args = saved;

    /* 20h: 16 + 64 + 128 x 4 = 592 bytes */
    fdp_mark(c);
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_CONFS, 0, 1, PAGE, 0), ==,
                    NVME_SUCCESS);
    fdp_read(c, b, PAGE);
    g_assert_cmpuint(ldl_le_p(b + 4), ==, 592);
    g_assert_cmpuint(lduw_le_p(b + 16), ==, 576);
    g_assert_cmpuint(lduw_le_p(b + 24), ==, 128);
    g_assert_cmpuint(lduw_le_p(b + 26), ==, 127);
    g_assert_cmpuint(ldq_le_p(b + 32), ==, full * 512);
    for (int i = 0; i < 128; i++) {
        g_assert_cmphex(ldl_le_p(b + 80 + 4 * i), ==,
                        NVME_RUHT_PERSISTENTLY_ISOLATED);
    }
    g_assert(fdp_all(b + 592, PAGE - 592, 0));
    /* the last RUH descriptor alone, through LPO */
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_CONFS, 0, 1, 4, 588), ==,
                    NVME_SUCCESS);
    fdp_read(c, part, 4);
    g_assert(memcmp(part, b + 588, 4) == 0);

    /* 21h: 8 + 128 x 8 = 1032 bytes, every handle host specified */
    fdp_mark(c);
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_RUH_USAGE, 0, 1, 2 * PAGE, 0),
                    ==, NVME_SUCCESS);
    fdp_read(c, b, 2 * PAGE);
    g_assert_cmpuint(lduw_le_p(b), ==, 128);
    for (int i = 0; i < 128; i++) {
        g_assert_cmphex(b[8 + 8 * i], ==, NVME_RUHA_HOST);
    }
    g_assert(fdp_all(b + 1032, 2 * PAGE - 1032, 0));
    g_assert_cmphex(fdp_log(c, NVME_LOG_FDP_RUH_USAGE, 0, 1, 8, 1024), ==,
                    NVME_SUCCESS);
    fdp_read(c, part, 8);
    g_assert(memcmp(part, b + 1024, 8) == 0);

    /* writes: id 0 one page, id 64 two pages, id 127 one page */
    g_assert_cmphex(fdp_write(c, 0, 8, FDP_DTYPE_DP, 0), ==, NVME_SUCCESS);
    g_assert_cmphex(fdp_write(c, 8, 16, FDP_DTYPE_DP, 64), ==, NVME_SUCCESS);
    g_assert_cmphex(fdp_write(c, 24, 8, FDP_DTYPE_DP, 127), ==, NVME_SUCCESS);
    /* RUH status: 16 + 128 x 32 = 4112 bytes (two pages of buffer) */
    len = 16 + 128 * 32;
    fdp_mark(c);
    g_assert_cmphex(fdp_ruh_status(c, len + 16), ==, NVME_SUCCESS);
    fdp_read(c, b, len + 16);
    g_assert_cmpuint(lduw_le_p(b + 14), ==, 128);
    for (int p = 0; p < 128; p++) {
        const uint8_t *d = b + 16 + 32 * p;
        uint64_t want = p == 0 || p == 127 ? full - 8 :
                        p == 64 ? full - 16 : full;

        g_assert_cmpuint(lduw_le_p(d), ==, p);
        g_assert_cmpuint(lduw_le_p(d + 2), ==, p);
        g_assert_cmpuint(ldl_le_p(d + 4), ==, 0);
        g_assert_cmpuint(ldq_le_p(d + 8), ==, want);
        g_assert(fdp_all(d + 16, 16, 0));
    }
    g_assert(fdp_all(b + len, 16, 0));
    /* a read of one page (the page is longer): its first 4096 bytes */
    fdp_mark(c);
    g_assert_cmphex(fdp_ruh_status(c, PAGE), ==, NVME_SUCCESS);
    fdp_read(c, part, PAGE);
    g_assert(memcmp(part, b, PAGE) == 0);
    fdp_read(c, b, PAGE + 16);
    g_assert(fdp_all(b + PAGE, 16, 0xa5));
    /* header only */
    fdp_mark(c);
    g_assert_cmphex(fdp_ruh_status(c, 16), ==, NVME_SUCCESS);
    fdp_read(c, b, 32);
    g_assert_cmpuint(lduw_le_p(b + 14), ==, 128);
    g_assert(fdp_all(b + 16, 16, 0xa5));

    /* RUH update of all three: fresh units, an event each */
    g_assert_cmphex(fdp_update(c, ids, 3), ==, NVME_SUCCESS);
    for (int i = 0; i < 3; i++) {
        g_assert_cmpuint(fdp_ruamw(c, 128, ids[i]), ==, full);
    }
    {
        uint8_t ev[64 * 3];

        g_assert_cmpuint(fdp_events(c, ev, sizeof(ev)), ==, 3);
        for (int i = 0; i < 3; i++) {
            fdp_check_event(ev + 64 * i, FDP_EVT_RU_NOT_FULLY_WRITTEN, ids[i],
                            ids[i]);
        }
    }
    /* invalid placement id 128: handle 0 */
    g_assert_cmphex(fdp_write(c, 32, 8, FDP_DTYPE_DP, 128), ==, NVME_SUCCESS);
    g_assert_cmpuint(fdp_ruamw(c, 128, 0), ==, full - 8);
    g_assert_cmpuint(fdp_ruamw(c, 128, 127), ==, full);
    /* the host event log keeps the newest 63 events, oldest first: 3 +
     * 1 + 70 more invalid ids 1000..1069 leave 1007..1069 */
    for (int i = 0; i < 70; i++) {
        g_assert_cmphex(fdp_write(c, 40, 8, FDP_DTYPE_DP, 1000 + i), ==,
                        NVME_SUCCESS);
    }
    {
        uint8_t ev[64 * 63];

        g_assert_cmpuint(fdp_events(c, ev, sizeof(ev)), ==, 63);
        for (int i = 0; i < 63; i++) {
            fdp_check_event(ev + 64 * i, FDP_EVT_INVALID_PID, 1007 + i, 0);
        }
    }
    ctrl_stop(c);
}

/*
 * A subsystem with fdp=off: the controller has no FDP (CTRATT 0, no
 * endurance group), so FDP log pages are not supported (Invalid Log
 * Page), the FDP features are not (Invalid Field), I/O Management is an
 * invalid opcode, DTYPE 2 is Invalid Field, and neither the directives
 * nor the effects log mention placement.
 */
void test_fdp_off(void)
{
    const char *saved = extra_args;
    Ctrl *c;
    uint8_t id[PAGE];
    NvmeEffectsLog eff;
    NvmeCmd cmd;
    uint32_t dw0;

    extra_args = "-device femu-subsys,id=fdp0,fdp=off,fdp.nruh=4";
    c = ctrl_start(FDP_T4 ",subsys=fdp0");
    extra_args = saved;

    fdp_check_identify(c, false);
    g_assert_cmphex(identify(c, NVME_ID_CNS_ENDURANCE_GROUP_LIST, 0, c->buf),
                    ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, sizeof(id));
    g_assert(fdp_all(id, sizeof(id), 0));
    for (int lid = NVME_LOG_FDP_CONFS; lid <= NVME_LOG_FDP_EVENTS; lid++) {
        g_assert_cmphex(fdp_log(c, lid, 1, 1, 64, 0), ==, NVME_INVALID_LOG_ID);
    }
    /* no endurance group: no 09h page */
    g_assert_cmphex(fdp_log(c, NVME_LOG_ENDGRP, 0, 1, 512, 0), ==,
                    NVME_INVALID_LOG_ID);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 0, NVME_FDP_MODE,
                             1, 0, &dw0), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_SET_FEATURES, 0, NVME_FDP_MODE,
                             1, 1, NULL), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 1, NVME_FDP_EVENTS,
                             2 << 16, 0, &dw0), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_SET_FEATURES, 1, NVME_FDP_EVENTS,
                             1 << 16, 0, NULL), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(fdp_ruh_status(c, 16), ==, NVME_INVALID_OPCODE);
    {
        static const uint16_t one[] = { 1 };

        g_assert_cmphex(fdp_update(c, one, 1), ==, NVME_INVALID_OPCODE);
    }
    g_assert_cmphex(fdp_write(c, 0, 8, FDP_DTYPE_DP, 1), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(fdp_write(c, 0, 8, 0, 0), ==, NVME_SUCCESS);
    /* Directive Receive, Identify / Return Parameters: Identify only */
    cmd = mk(NVME_ADM_CMD_DIRECTIVE_RECV, 1, c->buf, 0);
    cmd.cdw10 = cpu_to_le32(PAGE / 4 - 1);
    cmd.cdw11 = cpu_to_le32(NVME_DIRECTIVE_RETURN_PARAMS);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, id, 96);
    g_assert_cmphex(id[0], ==, 1);          /* supported: Identify */
    g_assert_cmphex(id[32], ==, 1);         /* enabled */
    /* Directive Send, enable Data Placement: Invalid Field */
    cmd = mk(NVME_ADM_CMD_DIRECTIVE_SEND, 1, 0, 0);
    cmd.cdw11 = cpu_to_le32(1 /* DOPER: enable directive */);
    cmd.cdw12 = cpu_to_le32(NVME_DIRECTIVE_DATA_PLACEMENT << 8 | 1);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_INVALID_FIELD);
    /* Commands Supported and Effects: no I/O Management */
    g_assert_cmphex(fdp_log(c, NVME_LOG_CMD_EFFECTS, 0, 0, sizeof(eff), 0),
                    ==, NVME_SUCCESS);
    fdp_read(c, &eff, sizeof(eff));
    g_assert_cmphex(le32_to_cpu(eff.iocs[NVME_CMD_IO_MGMT_RECV]), ==, 0);
    g_assert_cmphex(le32_to_cpu(eff.iocs[NVME_CMD_IO_MGMT_SEND]), ==, 0);
    g_assert_cmphex(le32_to_cpu(eff.iocs[NVME_CMD_WRITE]) & NVME_CMD_EFF_CSUPP,
                    ==, NVME_CMD_EFF_CSUPP);
    ctrl_stop(c);
}

/* FDP (Base 2.0 / TP4146): I/O Management Receive/Send with bad
 * operations and placement ids. */
void test_fdp(void)
{
    Ctrl *c = ctrl_start("nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25,"
                         "subsys=fdp0");
    NvmeCmd cmd;
    uint16_t pids[2];

    /* Receive: MO 1 = RUH status is the only one */
    cmd = mk(NVME_CMD_IO_MGMT_RECV, 1, c->buf, 0);
    cmd.cdw10 = cpu_to_le32(0x7f);
    cmd.cdw11 = cpu_to_le32(PAGE / 4 - 1);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_FIELD);
    cmd.cdw10 = cpu_to_le32(1);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    /* NUMD past MDTS (512 KiB): Invalid Field, nothing transferred */
    cmd.cdw11 = cpu_to_le32(UINT32_MAX);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_FIELD);
    cmd.cdw11 = cpu_to_le32(512 * 1024 / 4);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_FIELD);
    /* Send: unknown MO; RUH update with an id past the handles */
    cmd = mk(NVME_CMD_IO_MGMT_SEND, 1, c->buf, 0);
    cmd.cdw10 = cpu_to_le32(0x55);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_FIELD);
    pids[0] = cpu_to_le16(1);
    pids[1] = cpu_to_le16(999);
    qtest_memwrite(c->qts, c->buf, pids, sizeof(pids));
    cmd.cdw10 = cpu_to_le32(1 << 16 | 1 /* MOS: 2 ids, MO 1: RUH update */);
    /* TP4146: Invalid Placement Handle List */
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_PHID_LIST);
    pids[1] = cpu_to_le16(3);
    qtest_memwrite(c->qts, c->buf, pids, sizeof(pids));
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    /* 65536 ids (128 KiB, within MDTS) from a page outside RAM */
    cmd.cdw10 = cpu_to_le32(0xffffu << 16 | 1);
    cmd.dptr.prp1 = cpu_to_le64(0xfff0000000ull);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_DATA_TRAS_ERROR);
    /* writes with a placement id the namespace does not have: accepted
     * (handle 0 + an event), with a bad directive type: Invalid Field */
    cmd = mk(NVME_CMD_WRITE, 1, c->buf, 0);
    cmd.cdw12 = cpu_to_le32(7 | 2 << 20);
    cmd.cdw13 = cpu_to_le32(0xfff0u << 16);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    cmd.cdw12 = cpu_to_le32(7 | 0xf << 20);
    cmd.cdw13 = 0;
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_FIELD);
    /* FDP log pages with an endurance group that does not exist */
    {
        NvmeCmd lcmd = mk(NVME_ADM_CMD_GET_LOG_PAGE, 0xffffffff, c->buf, 0);
        lcmd.cdw10 = cpu_to_le32(127 << 16 | 0x20);
        lcmd.cdw11 = cpu_to_le32(0x7 << 16);
        g_assert_cmphex(run(c, 0, &lcmd, NULL), ==, NVME_INVALID_FIELD);
    }
    ctrl_stop(c);
}

/* A write of 8 blocks at LBA 0 of namespace nsid through placement id
 * pid (DTYPE 2). */
static uint16_t fdp_ns_write(Ctrl *c, uint32_t nsid, uint16_t pid)
{
    NvmeCmd cmd = mk(NVME_CMD_WRITE, nsid, c->buf, 0);

    cmd.cdw12 = cpu_to_le32(7 | (uint32_t)FDP_DTYPE_DP << 20);
    cmd.cdw13 = cpu_to_le32((uint32_t)pid << 16);
    return run(c, IOQ, &cmd, NULL);
}

/* RUAMW of placement id pid as namespace nsid's RUH status reports it
 * (4 handles: placement id i is handle i on every namespace). */
static uint64_t fdp_ns_ruamw(Ctrl *c, uint32_t nsid, uint16_t pid)
{
    uint8_t b[PAGE];
    uint32_t len = sizeof(NvmeRuhStatus) + 4 * sizeof(NvmeRuhStatusDescr);
    const uint8_t *d = b + sizeof(NvmeRuhStatus) +
                       pid * sizeof(NvmeRuhStatusDescr);
    NvmeCmd cmd = mk(NVME_CMD_IO_MGMT_RECV, nsid, c->buf, 0);

    cmd.cdw10 = cpu_to_le32(NVME_IOMR_MO_RUH_STATUS);
    cmd.cdw11 = cpu_to_le32(len / 4 - 1);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    fdp_read(c, b, len);
    g_assert_cmpuint(lduw_le_p(b + 14), ==, 4);         /* NRUHSD */
    g_assert_cmpuint(lduw_le_p(d), ==, pid);            /* PID */
    g_assert_cmpuint(lduw_le_p(d + 2), ==, pid);        /* RUHID */
    return ldq_le_p(d + 8);
}

/*
 * Two BlackBox namespaces in the one endurance group: identify on both,
 * the handles shared (a write through a placement id on one namespace
 * shows in the other's RUH status), events that name their namespace
 * (invalid placement id: the namespace written; RUH update: the
 * namespace of the I/O Management Send), FDP Events features on
 * namespace 2, an absent namespace refused.
 */
void test_fdp_namespaces(void)
{
    const char *saved = extra_args;
    Ctrl *c;
    uint8_t id[PAGE], ev[64 * 4];
    uint16_t pid = 2;
    uint32_t dw0;
    NvmeCmd cmd;

    extra_args = "-device femu-subsys,id=fdp0,fdp=on,fdp.nruh=4";
    c = ctrl_start("nchs=2,luns_per_ch=4,blks_per_pl=64,devsz_mb=384,"
                   "namespaces=2,subsys=fdp0");
    extra_args = saved;
    for (uint32_t ns = 1; ns <= 2; ns++) {
        g_assert_cmphex(identify(c, NVME_ID_CNS_NS, ns, c->buf), ==,
                        NVME_SUCCESS);
        qtest_memread(c->qts, c->buf, id, sizeof(id));
        g_assert_cmpuint(le16_to_cpu(((NvmeIdNs *)id)->endgid), ==, 1);
        g_assert_cmpuint(fdp_ns_ruamw(c, ns, 2), ==, 16384);
    }
    /* one shared unit per handle: 8 blocks from each namespace */
    g_assert_cmphex(fdp_ns_write(c, 1, 2), ==, NVME_SUCCESS);
    g_assert_cmpuint(fdp_ns_ruamw(c, 2, 2), ==, 16376);
    g_assert_cmphex(fdp_ns_write(c, 2, 2), ==, NVME_SUCCESS);
    g_assert_cmpuint(fdp_ns_ruamw(c, 1, 2), ==, 16368);
    g_assert_cmpuint(fdp_ns_ruamw(c, 1, 3), ==, 16384);
    /* an invalid placement id on namespace 2, then on namespace 1 */
    g_assert_cmphex(fdp_ns_write(c, 2, 9), ==, NVME_SUCCESS);
    g_assert_cmphex(fdp_ns_write(c, 1, 7), ==, NVME_SUCCESS);
    /* a RUH update of id 2 sent on namespace 2 */
    cmd = mk(NVME_CMD_IO_MGMT_SEND, 2, c->buf, 0);
    qtest_memwrite(c->qts, c->buf, &pid, sizeof(pid));
    cmd.cdw10 = cpu_to_le32(NVME_IOMS_MO_RUH_UPDATE);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    g_assert_cmpuint(fdp_ns_ruamw(c, 1, 2), ==, 16384);
    g_assert_cmpuint(fdp_events(c, ev, sizeof(ev)), ==, 3);
    g_assert_cmphex(ev[0], ==, FDP_EVT_INVALID_PID);
    g_assert_cmphex(ev[1], ==, FDPEF_PIV | FDPEF_NSIDV | FDPEF_LV);
    g_assert_cmphex(lduw_le_p(ev + 2), ==, 9);
    g_assert_cmphex(ldl_le_p(ev + 12), ==, 2);
    g_assert_cmphex(ev[34], ==, 0);
    g_assert_cmphex(ev[64], ==, FDP_EVT_INVALID_PID);
    g_assert_cmphex(lduw_le_p(ev + 64 + 2), ==, 7);
    g_assert_cmphex(ldl_le_p(ev + 64 + 12), ==, 1);
    g_assert_cmphex(ev[128], ==, FDP_EVT_RU_NOT_FULLY_WRITTEN);
    g_assert_cmphex(ev[129], ==, FDPEF_PIV | FDPEF_NSIDV | FDPEF_LV);
    g_assert_cmphex(lduw_le_p(ev + 128 + 2), ==, 2);
    g_assert_cmphex(ldl_le_p(ev + 128 + 12), ==, 2);
    g_assert_cmphex(ev[128 + 34], ==, 2);
    /* FDP Events (1Eh) of handle 1 on namespace 2; namespace 3 absent */
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 2, NVME_FDP_EVENTS,
                             2 << 16 | 1, 0, &dw0), ==, NVME_SUCCESS);
    g_assert_cmpuint(dw0, ==, 2);
    g_assert_cmphex(fdp_feat(c, NVME_ADM_CMD_GET_FEATURES, 3, NVME_FDP_EVENTS,
                             2 << 16 | 1, 0, &dw0), ==, NVME_INVALID_NSID);
    ctrl_stop(c);
}
