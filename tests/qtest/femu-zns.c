/*
 * femu-test cases: the zoned namespace (femu_mode=3).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu-host.h"

/* ---- femu_mode=3: zoned namespace -------------------------------------- */

/* 4 LUNs in 2 groups of zone_luns=2; 8 zones of 2 MiB = 4096 blocks,
 * capacity 1 MiB = 2048; max_open 2, max_active 3; ZASL 2 (16 KiB). */
#define ZNS_OPTS "femu_mode=3,nchs=2,luns_per_ch=2,blks_per_pl=16," \
                 "pgs_per_blk=64,zone_luns=2,zone_size_mb=2,zone_cap_mb=1," \
                 "max_open=2,max_active=3,zasl=2"
#define ZSZE 4096
#define ZCAP 2048

/* State and write pointer of one zone. */
static uint8_t zstate(Ctrl *c, uint32_t zone, uint64_t *wp)
{
    NvmeZoneDescr d = zone_descr(c, (uint64_t)zone * ZSZE);

    if (wp) {
        *wp = le64_to_cpu(d.wp);
    }
    return d.zs >> 4;
}

/* How many zones the report of all zones filtered by zrasf (a page of
 * it, not partial) counts. */
static uint64_t zcount(Ctrl *c, uint8_t zrasf)
{
    g_assert_cmphex(zrecv(c, 0, PAGE, NVME_ZONE_REPORT, zrasf, false), ==,
                    NVME_SUCCESS);
    return zreport_nr(c);
}

static bool zread_is(Ctrl *c, uint64_t slba, uint8_t v)
{
    uint8_t b[PAGE];

    g_assert_cmphex(zio(c, NVME_CMD_READ, slba, PAGE >> c->lba_shift, NULL),
                    ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, b, sizeof(b));
    for (size_t i = 0; i < sizeof(b); i++) {
        if (b[i] != v) {
            return false;
        }
    }
    return true;
}

/* The device still works: reset every zone, write zone 0, read back. */
static void zns_stop(Ctrl *c)
{
    uint64_t wp;

    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_RESET, true), ==,
                    NVME_SUCCESS);
    qtest_memset(c->qts, c->buf, 0x3c, PAGE);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 0, 8, NULL), ==, NVME_SUCCESS);
    qtest_memset(c->qts, c->buf, 0, PAGE);
    g_assert(zread_is(c, 0, 0x3c));
    g_assert_cmpuint(zstate(c, 0, &wp), ==, NVME_ZONE_STATE_IMPLICITLY_OPEN);
    g_assert_cmpuint(wp, ==, 8);
    g_free(c->dev);
    qtest_pc_shutdown(c->qs);
    g_free(c);
}

/* Identify for CSI 02h, CAP.CSS, effects, the zoned NVM command rules. */
void test_zns_identify_io(void)
{
    Ctrl *c = ctrl_start(ZNS_OPTS);
    uint8_t page[PAGE];
    NvmeIdNsZoned *idz = (NvmeIdNsZoned *)page;
    NvmeEffectsLog eff;
    FemuLogFtl c0;
    uint32_t dw0 = 0, cap_hi = rd32(c, 4);
    uint64_t wp;

    /* CAP.CSS: NVM (bit 37) and I/O command sets (bit 43) */
    g_assert_cmphex((cap_hi >> 5) & 0x41, ==, 0x41);
    g_assert_cmpuint(c->ns_blocks, ==, 8 * ZSZE);
    /* DLFEAT 0: deallocation is a hint, Write Zeroes writes */
    g_assert_cmphex(identify(c, NVME_ID_CNS_NS, 1, c->buf), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, page, sizeof(page));
    g_assert_cmpuint(((NvmeIdNs *)page)->dlfeat, ==, 0);
    g_assert_cmphex(identify_csi(c, NVME_ID_CNS_CS_NS, NVME_CSI_ZONED, 1), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, page, sizeof(page));
    g_assert_cmpuint(le16_to_cpu(idz->zoc), ==, 0);
    g_assert_cmpuint(le32_to_cpu(idz->mor), ==, 1);
    g_assert_cmpuint(le32_to_cpu(idz->mar), ==, 2);
    g_assert_cmpuint(le64_to_cpu(idz->lbafe[0].zsze), ==, ZSZE);
    g_assert_cmpuint(le64_to_cpu(idz->lbafe[1].zsze), ==, ZSZE / 8);
    g_assert_cmphex(identify_csi(c, NVME_ID_CNS_CS_CTRL, NVME_CSI_ZONED, 0),
                    ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, page, sizeof(page));
    g_assert_cmpuint(((NvmeIdCtrlZoned *)page)->zasl, ==, 2);
    g_assert_cmphex(identify_csi(c, NVME_ID_CNS_CS_NS, 1, 1), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(identify_csi(c, NVME_ID_CNS_IO_COMMAND_SET, 0, 0), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, page, sizeof(page));
    g_assert_cmphex(ldq_le_p(page), ==, 0x5);
    g_assert_cmphex(identify_csi(c, NVME_ID_CNS_CS_NS_ACTIVE_LIST,
                                 NVME_CSI_ZONED, 0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, page, sizeof(page));
    g_assert_cmpuint(ldl_le_p(page), ==, 1);
    /* the namespace descriptor list ends with CSI 02h */
    g_assert_cmphex(identify(c, NVME_ID_CNS_NS_DESCR_LIST, 1, c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, page, sizeof(page));
    {
        uint8_t *p = page;

        while (p[0] && p[0] != NVME_NIDT_CSI) {
            p += 4 + p[1];
        }
        g_assert_cmpuint(p[0], ==, NVME_NIDT_CSI);
        g_assert_cmpuint(p[4], ==, NVME_CSI_ZONED);
    }
    /* Commands Supported and Effects for CSI 02h: the zone commands */
    {
        NvmeCmd cmd = mk(NVME_ADM_CMD_GET_LOG_PAGE, 0xffffffff, c->buf, 0);

        cmd.cdw10 = cpu_to_le32((sizeof(eff) / 4 - 1) << 16 |
                                NVME_LOG_CMD_EFFECTS);
        cmd.cdw14 = cpu_to_le32((uint32_t)NVME_CSI_ZONED << 24);
        g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_SUCCESS);
        qtest_memread(c->qts, c->buf, &eff, sizeof(eff));
        g_assert_cmphex(le32_to_cpu(eff.iocs[NVME_CMD_ZONE_APPEND]) & 1, ==, 1);
        g_assert_cmphex(le32_to_cpu(eff.iocs[NVME_CMD_ZONE_MGMT_SEND]) & 1, ==,
                        1);
        g_assert_cmphex(le32_to_cpu(eff.iocs[NVME_CMD_ZONE_MGMT_RECV]) & 1, ==,
                        1);
    }

    /* writes only at the write pointer */
    qtest_memset(c->qts, c->buf, 0x11, 2 * PAGE);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 0, 16, NULL), ==, NVME_SUCCESS);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 0, 8, NULL), ==,
                    NVME_ZONE_INVALID_WRITE);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 24, 8, NULL), ==,
                    NVME_ZONE_INVALID_WRITE);
    g_assert_cmpuint(zstate(c, 0, &wp), ==, NVME_ZONE_STATE_IMPLICITLY_OPEN);
    g_assert_cmpuint(wp, ==, 16);
    /* zone append: at the zone start only, lands at the write pointer,
     * at most ZASL = 16 KiB */
    qtest_memset(c->qts, c->buf, 0x22, 2 * PAGE);
    g_assert_cmphex(zio(c, NVME_CMD_ZONE_APPEND, 8, 8, &dw0), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(zio(c, NVME_CMD_ZONE_APPEND, 0, 8, &dw0), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(dw0, ==, 16);
    g_assert_cmphex(zio(c, NVME_CMD_ZONE_APPEND, 0,
                        (16384 >> c->lba_shift) + 1, &dw0), ==,
                    NVME_INVALID_FIELD);
    g_assert(zread_is(c, 0, 0x11));
    g_assert(zread_is(c, 16, 0x22));
    /* reads past the write pointer: zeroes */
    g_assert(zread_is(c, 24, 0));
    g_assert(zread_is(c, ZSZE + 64, 0));
    /* write zeroes writes at the write pointer */
    g_assert_cmphex(zio(c, NVME_CMD_WRITE_ZEROES, 24, 2016, NULL), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 0, &wp), ==, NVME_ZONE_STATE_IMPLICITLY_OPEN);
    g_assert_cmpuint(wp, ==, 2040);
    g_assert(zread_is(c, 1024, 0));
    /* beyond the capacity: Zone Boundary Error; filling it: Full */
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 2040, 16, NULL), ==,
                    NVME_ZONE_BOUNDARY_ERROR);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 2040, 8, NULL), ==, NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 0, NULL), ==, NVME_ZONE_STATE_FULL);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 2048, 8, NULL), ==,
                    NVME_ZONE_FULL);
    g_assert_cmphex(zio(c, NVME_CMD_ZONE_APPEND, 0, 8, &dw0), ==,
                    NVME_ZONE_FULL);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 8 * ZSZE, 8, NULL), ==,
                    NVME_LBA_RANGE);
    /* DSM deallocate is a hint: data and write pointer stay */
    {
        NvmeDsmRange r = { .nlb = cpu_to_le32(16), .slba = 0 };
        NvmeCmd cmd = mk(NVME_CMD_DSM, 1, c->buf + 4 * PAGE, 0);

        qtest_memwrite(c->qts, c->buf + 4 * PAGE, &r, sizeof(r));
        cmd.cdw11 = cpu_to_le32(NVME_DSMGMT_AD);
        g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
        g_assert(zread_is(c, 0, 0x11));
    }
    /* a reset empties the zone: zeroes again; C0h counts it */
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_RESET, false), ==,
                    NVME_SUCCESS);
    g_assert(zread_is(c, 0, 0));
    g_assert_cmpuint(zstate(c, 0, &wp), ==, NVME_ZONE_STATE_EMPTY);
    g_assert_cmpuint(wp, ==, 0);
    g_assert_cmphex(get_log(c, FEMU_LOG_FTL, 127, 0, c->buf, 0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, &c0, sizeof(c0));
    g_assert_cmpuint(le32_to_cpu(c0.waf_x1000), ==, 1000);
    g_assert_cmpuint(le64_to_cpu(c0.host_pages_written), ==,
                     le64_to_cpu(c0.host_pages_programmed));
    g_assert_cmpuint(le64_to_cpu(c0.gc_pages_moved), ==, 0);
    g_assert_cmpuint(le64_to_cpu(c0.zone_resets), ==, 1);
    /* 4 blocks x 2 LUNs */
    g_assert_cmpuint(le64_to_cpu(c0.blocks_erased), ==, 8);
    zns_stop(c);
}

/*
 * A write whose data transfer fails part way (its second page outside
 * RAM): Data Transfer Error, the zone and its write pointer unchanged,
 * and the blocks above the write pointer still read zeroes -- nothing of
 * the first page may stay behind.
 */
void test_zns_write_fault(void)
{
    Ctrl *c = ctrl_start(ZNS_OPTS);
    uint64_t wp;

    qtest_memset(c->qts, c->buf, 0x77, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_WRITE, ZSZE, 2 * (PAGE >> c->lba_shift),
                       c->buf, 0xfff0000000ull), ==, NVME_DATA_TRAS_ERROR);
    g_assert_cmpuint(zstate(c, 1, &wp), ==, NVME_ZONE_STATE_EMPTY);
    g_assert_cmpuint(wp, ==, ZSZE);
    g_assert(zread_is(c, ZSZE, 0));
    /* the same as a Zone Append */
    qtest_memset(c->qts, c->buf, 0x77, PAGE);
    g_assert_cmphex(rw(c, NVME_CMD_ZONE_APPEND, ZSZE,
                       2 * (PAGE >> c->lba_shift), c->buf, 0xfff0000000ull),
                    ==, NVME_DATA_TRAS_ERROR);
    g_assert_cmpuint(zstate(c, 1, &wp), ==, NVME_ZONE_STATE_EMPTY);
    g_assert(zread_is(c, ZSZE, 0));
    zns_stop(c);
}

/* Zone Management Send/Receive: every action, the resources, the report
 * filters and partial reports. */
void test_zns_mgmt(void)
{
    Ctrl *c = ctrl_start(ZNS_OPTS);
    NvmeZoneDescr d;

    /* report all: 8 zones, empty, capacity 2048 */
    g_assert_cmpuint(zcount(c, NVME_ZONE_REPORT_ALL), ==, 8);
    for (int i = 0; i < 8; i++) {
        d = zdesc(c, i);
        g_assert_cmpuint(d.zt, ==, NVME_ZONE_TYPE_SEQ_WRITE);
        g_assert_cmpuint(d.zs >> 4, ==, NVME_ZONE_STATE_EMPTY);
        g_assert_cmpuint(le64_to_cpu(d.zcap), ==, ZCAP);
        g_assert_cmpuint(le64_to_cpu(d.zslba), ==, (uint64_t)i * ZSZE);
        g_assert_cmpuint(le64_to_cpu(d.wp), ==, (uint64_t)i * ZSZE);
    }
    /* from zone 5 on; a 3-descriptor buffer: partial counts what fits,
     * otherwise the header counts every match */
    g_assert_cmphex(zrecv(c, 5 * ZSZE + 7, 128, NVME_ZONE_REPORT,
                          NVME_ZONE_REPORT_ALL, false), ==, NVME_SUCCESS);
    g_assert_cmpuint(zreport_nr(c), ==, 3);
    g_assert_cmpuint(le64_to_cpu(zdesc(c, 0).zslba), ==, 5 * ZSZE);
    g_assert_cmphex(zrecv(c, 0, 64 + 3 * 64, NVME_ZONE_REPORT,
                          NVME_ZONE_REPORT_ALL, true), ==, NVME_SUCCESS);
    g_assert_cmpuint(zreport_nr(c), ==, 3);
    g_assert_cmphex(zrecv(c, 0, 64 + 3 * 64, NVME_ZONE_REPORT,
                          NVME_ZONE_REPORT_ALL, false), ==, NVME_SUCCESS);
    g_assert_cmpuint(zreport_nr(c), ==, 8);
    /* bad reports */
    g_assert_cmphex(zrecv(c, 0, PAGE, NVME_ZONE_REPORT_EXTENDED,
                          NVME_ZONE_REPORT_ALL, false), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(zrecv(c, 0, PAGE, NVME_ZONE_REPORT, 8, false), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(zrecv(c, 0, 32, NVME_ZONE_REPORT, 0, false), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(zrecv(c, 8 * ZSZE, PAGE, NVME_ZONE_REPORT, 0, false), ==,
                    NVME_LBA_RANGE);
    /* bad sends */
    g_assert_cmphex(zsend(c, 8, NVME_ZONE_ACTION_OPEN, false), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(zsend(c, 8 * ZSZE, NVME_ZONE_ACTION_OPEN, false), ==,
                    NVME_LBA_RANGE);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_SET_ZD_EXT, false), ==,
                    NVME_INVALID_FIELD);
    /* no ZRWA (zns_zrwa_size=0): Open with ZRWAA, Commit Zone */
    {
        NvmeCmd cmd = mk(NVME_CMD_ZONE_MGMT_SEND, 1, 0, 0);

        cmd.cdw13 = cpu_to_le32(NVME_ZONE_ACTION_OPEN |
                                NVME_ZSFLAG_ZRWA_ALLOC << 8);
        g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_INVALID_ZONE_OP);
    }
    g_assert_cmphex(zsend(c, 15, NVME_ZONE_ACTION_ZRWA_FLUSH, false), ==,
                    NVME_INVALID_ZONE_OP);
    g_assert_cmphex(zsend(c, 0, 0, false), ==, NVME_INVALID_FIELD);

    /* Empty: close and offline are no transitions; reset is a no-op */
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_CLOSE, false), ==,
                    NVME_ZONE_INVAL_TRANSITION);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_OFFLINE, false), ==,
                    NVME_ZONE_INVAL_TRANSITION);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_RESET, false), ==,
                    NVME_SUCCESS);
    /* open -> Explicitly Opened; write keeps it; close -> Closed; a write
     * opens implicitly; open -> explicit; finish -> Full */
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_OPEN, false), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 0, NULL), ==, NVME_ZONE_STATE_EXPLICITLY_OPEN);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 0, 8, NULL), ==, NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 0, NULL), ==, NVME_ZONE_STATE_EXPLICITLY_OPEN);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_CLOSE, false), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 0, NULL), ==, NVME_ZONE_STATE_CLOSED);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 8, 8, NULL), ==, NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 0, NULL), ==, NVME_ZONE_STATE_IMPLICITLY_OPEN);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_OPEN, false), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 0, NULL), ==, NVME_ZONE_STATE_EXPLICITLY_OPEN);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_FINISH, false), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 0, NULL), ==, NVME_ZONE_STATE_FULL);
    /* Full: open and close are no transitions; finish is a no-op */
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_OPEN, false), ==,
                    NVME_ZONE_INVAL_TRANSITION);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_CLOSE, false), ==,
                    NVME_ZONE_INVAL_TRANSITION);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_FINISH, false), ==,
                    NVME_SUCCESS);
    /* Empty -> Full by finish */
    g_assert_cmphex(zsend(c, 7 * ZSZE, NVME_ZONE_ACTION_FINISH, false), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 7, NULL), ==, NVME_ZONE_STATE_FULL);

    /* resources: 2 open, 3 active.  Two implicit opens, a third closes
     * the oldest; a fourth active zone is refused */
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 1 * ZSZE, 8, NULL), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 2 * ZSZE, 8, NULL), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 3 * ZSZE, 8, NULL), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 1, NULL), ==, NVME_ZONE_STATE_CLOSED);
    g_assert_cmpuint(zstate(c, 3, NULL), ==, NVME_ZONE_STATE_IMPLICITLY_OPEN);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 4 * ZSZE, 8, NULL), ==,
                    NVME_ZONE_TOO_MANY_ACTIVE);
    g_assert_cmphex(zsend(c, 4 * ZSZE, NVME_ZONE_ACTION_OPEN, false), ==,
                    NVME_ZONE_TOO_MANY_ACTIVE);
    g_assert_cmphex(zsend(c, 4 * ZSZE, NVME_ZONE_ACTION_FINISH, false), ==,
                    NVME_ZONE_TOO_MANY_ACTIVE);
    /* explicit opens are never closed for room */
    g_assert_cmphex(zsend(c, 2 * ZSZE, NVME_ZONE_ACTION_OPEN, false), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(zsend(c, 3 * ZSZE, NVME_ZONE_ACTION_OPEN, false), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 1 * ZSZE + 8, 8, NULL), ==,
                    NVME_ZONE_TOO_MANY_OPEN);
    g_assert_cmphex(zsend(c, 1 * ZSZE, NVME_ZONE_ACTION_OPEN, false), ==,
                    NVME_ZONE_TOO_MANY_OPEN);
    /* filters */
    g_assert_cmpuint(zcount(c, NVME_ZONE_REPORT_EXPLICITLY_OPEN), ==, 2);
    g_assert_cmpuint(le64_to_cpu(zdesc(c, 0).zslba), ==, 2 * ZSZE);
    g_assert_cmpuint(zcount(c, NVME_ZONE_REPORT_CLOSED), ==, 1);
    g_assert_cmpuint(zcount(c, NVME_ZONE_REPORT_FULL), ==, 2);
    g_assert_cmpuint(zcount(c, NVME_ZONE_REPORT_EMPTY), ==, 3);
    g_assert_cmpuint(zcount(c, NVME_ZONE_REPORT_IMPLICITLY_OPEN), ==, 0);
    g_assert_cmpuint(zcount(c, NVME_ZONE_REPORT_OFFLINE), ==, 0);
    /* select all: close, then open all (1 closed + 2 = 3 > 2: refused),
     * finish all, reset all */
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_CLOSE, true), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 2, NULL), ==, NVME_ZONE_STATE_CLOSED);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_OPEN, true), ==,
                    NVME_ZONE_TOO_MANY_OPEN);
    g_assert_cmpuint(zstate(c, 2, NULL), ==, NVME_ZONE_STATE_CLOSED);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_FINISH, true), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zcount(c, NVME_ZONE_REPORT_FULL), ==, 5);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_RESET, true), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zcount(c, NVME_ZONE_REPORT_EMPTY), ==, 8);
    zns_stop(c);
}

/* ---- Changed Zone List (log BFh) and its notice ------------------------ */

/* Changed Zone List (Zoned Namespace Command Set 1.1, 5.3.1) */
#define LOG_CHANGED_ZONES 0xbf

/* Get Log Page BFh (CSI 02h, namespace 1): bytes [off, off + bytes). */
static uint16_t bf_read(Ctrl *c, uint64_t off, uint32_t bytes, bool rae)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_GET_LOG_PAGE, 1, c->buf, 0);
    uint32_t numd = bytes / 4 - 1;

    cmd.cdw10 = cpu_to_le32((numd & 0xffff) << 16 | (rae ? 1u << 15 : 0) |
                            LOG_CHANGED_ZONES);
    cmd.cdw11 = cpu_to_le32(numd >> 16);
    cmd.cdw12 = cpu_to_le32((uint32_t)off);
    cmd.cdw14 = cpu_to_le32((uint32_t)NVME_CSI_ZONED << 24);
    return run(c, 0, &cmd, NULL);
}

/* The list as zone numbers (read with RAE set: it stays), "n: z z ...". */
static char *bf_list(Ctrl *c)
{
    uint8_t page[PAGE];
    GString *s = g_string_new(NULL);
    uint16_t nr;

    g_assert_cmphex(bf_read(c, 0, PAGE, true), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, page, sizeof(page));
    nr = lduw_le_p(page);
    g_string_append_printf(s, "%u:", nr);
    for (uint32_t i = 0; i < nr && i < 511; i++) {
        g_string_append_printf(s, " %" PRIu64, ldq_le_p(page + 8 + 8 * i) /
                               ZSZE);
    }
    return g_string_free(s, false);
}

/* 0xEF code 9: zone fails read only (how 0) or offline (1). */
static uint16_t fail_zone(Ctrl *c, uint32_t zone, uint32_t how)
{
    NvmeCmd cmd = mk(FEMU_ADM_CMD_CONTROL, 0, 0, 0);

    cmd.cdw10 = cpu_to_le32(9);
    cmd.cdw11 = cpu_to_le32(zone);
    cmd.cdw12 = cpu_to_le32(how);
    return run(c, 0, &cmd, NULL);
}

/* Asynchronous Event Configuration: Zone Descriptor Changed notices. */
static void zdcn(Ctrl *c, bool on)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_SET_FEATURES, 0, 0, 0);

    cmd.cdw10 = cpu_to_le32(NVME_ASYNCHRONOUS_EVENT_CONF);
    cmd.cdw11 = cpu_to_le32(on ? 1u << 27 : 0);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_SUCCESS);
}

/* One outstanding Asynchronous Event Request; run() reaps its
 * completion (c->aer_done counts the events). */
static void aer_arm(Ctrl *c)
{
    NvmeCmd aer = mk(NVME_ADM_CMD_ASYNC_EV_REQ, 0, 0, 0);

    submit(c, 0, &aer);
    c->aer_cid[c->naer++] = c->cid;
}

#define CHECK_LIST(c, want)                        \
    do {                                           \
        g_autofree char *l_ = bf_list(c);          \
        g_assert_cmpstr(l_, ==, want);             \
    } while (0)

/*
 * A read with RAE cleared takes off the list the zone identifiers it
 * transferred whole, no others (a read from an offset, or shorter than
 * the page); a change while the notice was disabled does not keep later
 * changes from raising it; one notice at a time until the host reads the
 * list, and a new one while zones are left on it after a read.
 */
void test_zns_changed(void)
{
    Ctrl *c = ctrl_start(ZNS_OPTS);

    aer_arm(c);
    /* notice disabled: zone 1 changes, no event */
    g_assert_cmphex(fail_zone(c, 1, 0), ==, NVME_SUCCESS);
    g_assert_cmpuint(c->aer_done, ==, 0);
    CHECK_LIST(c, "1: 1");
    /* enabled: the next change raises the notice, a third one does not
     * (the host has not read the list yet) */
    zdcn(c, true);
    g_assert_cmphex(fail_zone(c, 2, 0), ==, NVME_SUCCESS);
    g_assert_cmpuint(c->aer_done, ==, 1);
    aer_arm(c);
    g_assert_cmphex(fail_zone(c, 3, 1), ==, NVME_SUCCESS);
    g_assert_cmphex(fail_zone(c, 4, 0), ==, NVME_SUCCESS);
    g_assert_cmpuint(c->aer_done, ==, 1);
    CHECK_LIST(c, "4: 1 2 3 4");
    /* the header and the first identifier: zone 1 leaves the list; the
     * zones left raise a new notice */
    g_assert_cmphex(bf_read(c, 0, 16, false), ==, NVME_SUCCESS);
    g_assert_cmpuint(c->aer_done, ==, 2);
    CHECK_LIST(c, "3: 2 3 4");
    /* halves of two identifiers: none transferred whole */
    aer_arm(c);
    g_assert_cmphex(bf_read(c, 12, 8, false), ==, NVME_SUCCESS);
    CHECK_LIST(c, "3: 2 3 4");
    g_assert_cmpuint(c->aer_done, ==, 3);
    /* from an offset: the second identifier (zone 3) only */
    aer_arm(c);
    g_assert_cmphex(bf_read(c, 16, 8, false), ==, NVME_SUCCESS);
    CHECK_LIST(c, "2: 2 4");
    g_assert_cmpuint(c->aer_done, ==, 4);
    /* the whole page: empty, and no notice */
    aer_arm(c);
    g_assert_cmphex(bf_read(c, 0, PAGE, false), ==, NVME_SUCCESS);
    CHECK_LIST(c, "0:");
    g_assert_cmpuint(c->aer_done, ==, 4);
    /* the next change raises it again */
    g_assert_cmphex(fail_zone(c, 5, 0), ==, NVME_SUCCESS);
    g_assert_cmpuint(c->aer_done, ==, 5);
    CHECK_LIST(c, "1: 5");
    zns_stop(c);
}

/*
 * Zone Management Send Reset with Select All on 512 zones of 2 MiB, 300
 * of them written: the device runs it in steps of at most 256 MiB of
 * zones that hold data (128 zones here), letting its locks go between
 * them (the trace event femu_zns_reset_step, in a -D log, counts the
 * steps); the result is the one reset: every zone Empty, zeroes.
 */
void test_zns_reset_all(void)
{
    g_autofree char *log = g_strdup_printf("%s/femu-zns-reset-%d.log",
                                           g_get_tmp_dir(), getpid());
    g_autofree char *args = g_strdup_printf("-trace femu_zns_reset_step "
                                            "-D %s", log);
    const char *saved = extra_args;
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    uint32_t steps = 0, reset = 0;
    Ctrl *c;

    extra_args = args;
    c = ctrl_start("femu_mode=3,nchs=2,luns_per_ch=2,blks_per_pl=1024,"
                   "pgs_per_blk=64,zone_luns=2,zone_size_mb=2");
    extra_args = saved;
    g_assert_cmpuint(c->ns_blocks, ==, 512 * ZSZE);
    qtest_memset(c->qts, c->buf, 0x5a, PAGE);
    for (uint32_t z = 0; z < 300; z++) {
        g_assert_cmphex(zio(c, NVME_CMD_WRITE, (uint64_t)z * ZSZE, 8, NULL),
                        ==, NVME_SUCCESS);
    }
    g_assert(zread_is(c, 299 * ZSZE, 0x5a));
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_RESET, true), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zcount(c, NVME_ZONE_REPORT_EMPTY), ==, 512);
    g_assert(zread_is(c, 0, 0));
    g_assert(zread_is(c, 299 * ZSZE, 0));
    g_assert(g_file_get_contents(log, &text, NULL, NULL));
    lines = g_strsplit(text, "\n", -1);
    for (int i = 0; lines[i]; i++) {
        const char *p = strstr(lines[i], "femu_zns_reset_step");
        uint32_t a, b, r;

        if (p && sscanf(strstr(p, "zones "), "zones %u-%u, %u reset",
                        &a, &b, &r) == 3) {
            g_assert_cmpuint(r, <=, 128);
            reset += r;
            steps++;
        }
    }
    g_test_message("Reset All: %u zones reset in %u steps", reset, steps);
    g_assert_cmpuint(reset, ==, 300);
    g_assert_cmpuint(steps, >=, 3);
    unlink(log);
    zns_stop(c);
}

/* ---- Zone Random Write Area and descriptor extensions ------------------ */

/* ZNS_OPTS with a 64-block ZRWA, 16-block granules, 2 ZRWAs and 128-byte
 * descriptor extensions (zones of 4096 blocks, capacity 2048). */
#define ZRWA_OPTS ZNS_OPTS ",zns_zrwa_size=64,zns_zrwafg_size=16," \
                  "zns_zrwa_num=2,zns_zd_ext_size=128"

/* Zone Management Send with its flags byte; data (if any) from c->buf. */
static uint16_t zsend_f(Ctrl *c, uint64_t slba, uint8_t zsa, uint8_t flags)
{
    NvmeCmd cmd = mk(NVME_CMD_ZONE_MGMT_SEND, 1, c->buf, 0);

    cmd.cdw10 = cpu_to_le32((uint32_t)slba);
    cmd.cdw11 = cpu_to_le32((uint32_t)(slba >> 32));
    cmd.cdw13 = cpu_to_le32(zsa | (uint32_t)flags << 8);
    return run(c, IOQ, &cmd, NULL);
}

static uint16_t zfill(Ctrl *c, uint64_t slba, uint32_t nlb, uint8_t v)
{
    qtest_memset(c->qts, c->buf, v, (uint64_t)nlb << c->lba_shift);
    return zio(c, NVME_CMD_WRITE, slba, nlb, NULL);
}

static uint8_t zattr(Ctrl *c, uint32_t zone)
{
    return zone_descr(c, (uint64_t)zone * ZSZE).za;
}

void test_zns_zrwa(void)
{
    Ctrl *c = ctrl_start(ZRWA_OPTS);
    uint8_t page[PAGE], ext[128];
    NvmeIdNsZoned *idz = (NvmeIdNsZoned *)page;
    NvmeZoneDescr d;
    uint64_t wp;

    /* Identify: ZRWASUP, NUMZRWA 0's based, ZRWAFG, ZRWAS, explicit
     * flush; ZDES in 64-byte units in both LBA formats */
    g_assert_cmphex(identify_csi(c, NVME_ID_CNS_CS_NS, NVME_CSI_ZONED, 1), ==,
                    NVME_SUCCESS);
    qtest_memread(c->qts, c->buf, page, sizeof(page));
    g_assert_cmphex(le16_to_cpu(idz->ozcs), ==,
                    NVME_ID_NS_ZONED_OZCS_RAZB | NVME_ID_NS_ZONED_OZCS_ZRWASUP);
    g_assert_cmpuint(le32_to_cpu(idz->numzrwa), ==, 1);
    g_assert_cmpuint(le16_to_cpu(idz->zrwafg), ==, 16);
    g_assert_cmpuint(le16_to_cpu(idz->zrwas), ==, 64);
    g_assert_cmphex(idz->zrwacap, ==, NVME_ID_NS_ZONED_ZRWACAP_EXPFLUSHSUP);
    g_assert_cmpuint(idz->lbafe[0].zdes, ==, 2);
    g_assert_cmpuint(idz->lbafe[1].zdes, ==, 2);

    /* Open with ZRWAA: two ZRWAs, the third zone is refused */
    g_assert_cmphex(zsend_f(c, 0, NVME_ZONE_ACTION_OPEN,
                            NVME_ZSFLAG_ZRWA_ALLOC), ==, NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 0, &wp), ==, NVME_ZONE_STATE_EXPLICITLY_OPEN);
    g_assert_cmphex(zattr(c, 0), ==, NVME_ZA_ZRWA_VALID);
    g_assert_cmphex(zsend_f(c, ZSZE, NVME_ZONE_ACTION_OPEN,
                            NVME_ZSFLAG_ZRWA_ALLOC), ==, NVME_SUCCESS);
    g_assert_cmphex(zsend_f(c, 2 * ZSZE, NVME_ZONE_ACTION_OPEN,
                            NVME_ZSFLAG_ZRWA_ALLOC), ==, NVME_NOZRWA);
    g_assert_cmpuint(zstate(c, 2, NULL), ==, NVME_ZONE_STATE_EMPTY);
    g_assert_cmphex(zsend_f(c, 0, NVME_ZONE_ACTION_OPEN,
                            NVME_ZSFLAG_ZRWA_ALLOC | NVME_ZSFLAG_SELECT_ALL),
                    ==, NVME_INVALID_FIELD);

    /* writes anywhere in the window, overwrites, the write pointer stays */
    g_assert_cmphex(zfill(c, 32, 8, 0x11), ==, NVME_SUCCESS);
    g_assert(zread_is(c, 32, 0x11));
    g_assert_cmphex(zfill(c, 32, 8, 0x22), ==, NVME_SUCCESS);
    g_assert(zread_is(c, 32, 0x22));
    g_assert_cmphex(zfill(c, 0, 8, 0x33), ==, NVME_SUCCESS);
    zstate(c, 0, &wp);
    g_assert_cmpuint(wp, ==, 0);
    /* past wp + 2 x ZRWAS, below the write pointer, Zone Append */
    g_assert_cmphex(zfill(c, 100, 29, 0x44), ==, NVME_ZONE_INVALID_WRITE);
    g_assert_cmphex(zio(c, NVME_CMD_ZONE_APPEND, 0, 8, NULL), ==,
                    NVME_INVALID_ZONE_OP);
    /* implicit commit: a write ending at 128 moves the pointer to 64 */
    g_assert_cmphex(zfill(c, 120, 8, 0x55), ==, NVME_SUCCESS);
    zstate(c, 0, &wp);
    g_assert_cmpuint(wp, ==, 64);
    g_assert_cmphex(zfill(c, 56, 8, 0x66), ==, NVME_ZONE_INVALID_WRITE);
    g_assert(zread_is(c, 32, 0x22));
    g_assert(zread_is(c, 120, 0x55));

    /* Commit Zone (ZSA 11h): SLBA is the last block committed */
    g_assert_cmphex(zsend_f(c, 64 + 7, NVME_ZONE_ACTION_ZRWA_FLUSH, 0), ==,
                    NVME_INVALID_FIELD);
    g_assert_cmphex(zsend_f(c, 64 + 64, NVME_ZONE_ACTION_ZRWA_FLUSH, 0), ==,
                    NVME_ZONE_BOUNDARY_ERROR);
    g_assert_cmphex(zsend_f(c, 63, NVME_ZONE_ACTION_ZRWA_FLUSH, 0), ==,
                    NVME_ZONE_BOUNDARY_ERROR);
    g_assert_cmphex(zsend_f(c, 64 + 15, NVME_ZONE_ACTION_ZRWA_FLUSH,
                            NVME_ZSFLAG_SELECT_ALL), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(zsend_f(c, 3 * ZSZE + 15, NVME_ZONE_ACTION_ZRWA_FLUSH, 0),
                    ==, NVME_INVALID_FIELD);          /* zone 3: no ZRWA */
    g_assert_cmphex(zsend_f(c, 64 + 15, NVME_ZONE_ACTION_ZRWA_FLUSH, 0), ==,
                    NVME_SUCCESS);
    zstate(c, 0, &wp);
    g_assert_cmpuint(wp, ==, 80);

    /* Close keeps the ZRWA, Finish gives it back (and the data stays) */
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_CLOSE, false), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 0, NULL), ==, NVME_ZONE_STATE_CLOSED);
    g_assert_cmphex(zattr(c, 0), ==, NVME_ZA_ZRWA_VALID);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_FINISH, false), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 0, &wp), ==, NVME_ZONE_STATE_FULL);
    g_assert_cmpuint(wp, ==, ZCAP);
    g_assert_cmphex(zattr(c, 0), ==, 0);
    g_assert(zread_is(c, 120, 0x55));
    g_assert_cmphex(zsend_f(c, 2 * ZSZE, NVME_ZONE_ACTION_OPEN,
                            NVME_ZSFLAG_ZRWA_ALLOC), ==, NVME_SUCCESS);
    /* Reset gives the ZRWA back and the data goes */
    g_assert_cmphex(zsend(c, ZSZE, NVME_ZONE_ACTION_RESET, false), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(zattr(c, 1), ==, 0);
    g_assert_cmphex(zsend_f(c, 3 * ZSZE, NVME_ZONE_ACTION_OPEN,
                            NVME_ZSFLAG_ZRWA_ALLOC), ==, NVME_SUCCESS);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_RESET, false), ==,
                    NVME_SUCCESS);
    g_assert(zread_is(c, 32, 0));

    /* Set Zone Descriptor Extension: Empty -> Closed, ZDEV, kept in the
     * Extended Report; not twice; not with Select All; reset clears it */
    g_assert_cmphex(zsend(c, 4 * ZSZE, NVME_ZONE_ACTION_CLOSE, false), ==,
                    NVME_ZONE_INVAL_TRANSITION);
    qtest_memset(c->qts, c->buf, 0x5a, sizeof(ext));
    g_assert_cmphex(zsend_f(c, 4 * ZSZE, NVME_ZONE_ACTION_SET_ZD_EXT, 0), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 4, NULL), ==, NVME_ZONE_STATE_CLOSED);
    g_assert_cmphex(zattr(c, 4), ==, NVME_ZA_ZD_EXT_VALID);
    g_assert_cmphex(zsend_f(c, 4 * ZSZE, NVME_ZONE_ACTION_SET_ZD_EXT, 0), ==,
                    NVME_ZONE_INVAL_TRANSITION);
    g_assert_cmphex(zsend_f(c, 0, NVME_ZONE_ACTION_SET_ZD_EXT,
                            NVME_ZSFLAG_SELECT_ALL), ==, NVME_INVALID_FIELD);
    g_assert_cmphex(zrecv(c, 4 * ZSZE, 64 + 64 + 128,
                          NVME_ZONE_REPORT_EXTENDED, NVME_ZONE_REPORT_ALL,
                          true), ==, NVME_SUCCESS);
    g_assert_cmpuint(zreport_nr(c), ==, 1);
    d = zdesc(c, 0);
    g_assert_cmpuint(le64_to_cpu(d.zslba), ==, 4 * ZSZE);
    g_assert_cmphex(d.za, ==, NVME_ZA_ZD_EXT_VALID);
    qtest_memread(c->qts, c->buf + 128, ext, sizeof(ext));
    for (size_t i = 0; i < sizeof(ext); i++) {
        g_assert_cmphex(ext[i], ==, 0x5a);
    }
    /* entries of 192 bytes: zone 5 follows at 64 + 192 */
    g_assert_cmphex(zrecv(c, 4 * ZSZE, 64 + 2 * 192,
                          NVME_ZONE_REPORT_EXTENDED, NVME_ZONE_REPORT_ALL,
                          true), ==, NVME_SUCCESS);
    g_assert_cmpuint(zreport_nr(c), ==, 2);
    qtest_memread(c->qts, c->buf + 64 + 192, &d, sizeof(d));
    g_assert_cmpuint(le64_to_cpu(d.zslba), ==, 5 * ZSZE);
    g_assert_cmphex(zsend(c, 4 * ZSZE, NVME_ZONE_ACTION_RESET, false), ==,
                    NVME_SUCCESS);
    g_assert_cmpuint(zstate(c, 4, NULL), ==, NVME_ZONE_STATE_EMPTY);
    g_assert_cmphex(zrecv(c, 4 * ZSZE, 64 + 192, NVME_ZONE_REPORT_EXTENDED,
                          NVME_ZONE_REPORT_ALL, true), ==, NVME_SUCCESS);
    g_assert_cmphex(zdesc(c, 0).za, ==, 0);
    qtest_memread(c->qts, c->buf + 128, ext, sizeof(ext));
    g_assert_cmphex(ext[0] | ext[127], ==, 0);
    zns_stop(c);
}

/*
 * The zoned write cache (write_cache_mb with vwc=1) and power loss: NAND
 * programs of 5 s make the cache's effect plain (on a loaded host too).  A write with FUA
 * waits for NAND; one without completes at once (cached); 0xEF code 12
 * cuts the power: each zone's
 * write pointer goes back to its durable point and the blocks above read
 * zeroes, the zone Closed (Empty when nothing in it is durable) after
 * the reset that brings the power back.  (A reset zone's cached writes
 * dropped: tests/unit/test-zns.c, wcache; here the reset would wait for
 * the zone's 5 s programs.)
 */
void test_zns_wcache(void)
{
    Ctrl *c = ctrl_start(ZNS_OPTS ",write_cache_mb=1,vwc=1,"
                         "pg_wr_lat=5000000000");
    NvmeCmd cmd;
    NvmeCqe cqe;
    int64_t t;
    uint64_t wp;

    /* zone 0: 16 blocks (2 pages, one per LUN) with FUA: 5 s */
    qtest_memset(c->qts, c->buf, 0x5a, 2 * PAGE);
    cmd = mk(NVME_CMD_WRITE, 1, c->buf, c->buf + PAGE);
    cmd.cdw12 = cpu_to_le32(15 | NVME_RW_FUA << 16);
    t = g_get_monotonic_time();
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    g_assert_cmpint(g_get_monotonic_time() - t, >=, 4500000);
    /* 8 more, no FUA: cached, done long before the program */
    qtest_memset(c->qts, c->buf, 0x6b, PAGE);
    t = g_get_monotonic_time();
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 16, 8, NULL), ==, NVME_SUCCESS);
    /* zone 1: 8 blocks */
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, ZSZE, 8, NULL), ==, NVME_SUCCESS);
    g_assert_cmpint(g_get_monotonic_time() - t, <, 2500000);
    g_assert_cmpuint(zstate(c, 0, &wp), ==, NVME_ZONE_STATE_IMPLICITLY_OPEN);
    g_assert_cmpuint(wp, ==, 24);
    /* the power goes (the command never completes), before the
     * programs of 5 s are done */
    cmd = mk(FEMU_ADM_CMD_CONTROL, 0, 0, 0);
    cmd.cdw10 = cpu_to_le32(12);
    submit(c, 0, &cmd);
    g_assert(wait_csts(c, NVME_CSTS_FAILED, NVME_CSTS_FAILED));
    g_assert_cmpint(g_get_monotonic_time() - t, <, 4500000);
    g_assert(!reap(c, 0, &cqe, 100000));
    /* the power is back: a Controller Level Reset */
    ctrl_enable(c);
    setup_io(c, IOQ);
    g_assert_cmpuint(zstate(c, 0, &wp), ==, NVME_ZONE_STATE_CLOSED);
    g_assert_cmpuint(wp, ==, 16);
    g_assert(zread_is(c, 0, 0x5a));
    g_assert(zread_is(c, 8, 0x5a));
    g_assert(zread_is(c, 16, 0));
    g_assert_cmpuint(zstate(c, 1, &wp), ==, NVME_ZONE_STATE_EMPTY);
    g_assert_cmpuint(wp, ==, ZSZE);
    g_assert(zread_is(c, ZSZE, 0));
    /* the host goes on at the durable write pointer; a Flush waits */
    qtest_memset(c->qts, c->buf, 0x7c, PAGE);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 24, 8, NULL), ==,
                    NVME_ZONE_INVALID_WRITE);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 16, 8, NULL), ==, NVME_SUCCESS);
    cmd = mk(NVME_CMD_FLUSH, 1, 0, 0);
    t = g_get_monotonic_time();
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    g_assert_cmpint(g_get_monotonic_time() - t, >=, 3000000);
    g_assert(zread_is(c, 16, 0x7c));
    zns_stop(c);
}

/* power_cut_after=N: the write after the Nth never executes, the power
 * goes first; the cached write before it is lost, the FUA one kept. */
void test_zns_wcache_cut_after(void)
{
    Ctrl *c = ctrl_start(ZNS_OPTS ",write_cache_mb=1,vwc=1,"
                         "pg_wr_lat=5000000000,power_cut_after=2");
    NvmeCmd cmd;
    int64_t t;
    uint64_t wp;

    qtest_memset(c->qts, c->buf, 0x21, PAGE);
    cmd = mk(NVME_CMD_WRITE, 1, c->buf, 0);
    cmd.cdw12 = cpu_to_le32(7 | NVME_RW_FUA << 16);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_SUCCESS);
    qtest_memset(c->qts, c->buf, 0x22, PAGE);
    t = g_get_monotonic_time();
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 8, 8, NULL), ==, NVME_SUCCESS);
    qtest_memset(c->qts, c->buf, 0x23, PAGE);
    cmd = mk(NVME_CMD_WRITE, 1, c->buf, 0);
    cmd.cdw10 = cpu_to_le32(16);
    cmd.cdw12 = cpu_to_le32(7);
    submit(c, IOQ, &cmd);
    g_assert(wait_csts(c, NVME_CSTS_FAILED, NVME_CSTS_FAILED));
    g_assert_cmpint(g_get_monotonic_time() - t, <, 4500000);
    ctrl_enable(c);
    setup_io(c, IOQ);
    g_assert_cmpuint(zstate(c, 0, &wp), ==, NVME_ZONE_STATE_CLOSED);
    g_assert_cmpuint(wp, ==, 8);
    g_assert(zread_is(c, 0, 0x21));
    g_assert(zread_is(c, 8, 0));
    g_assert(zread_is(c, 16, 0));
    zns_stop(c);
}
