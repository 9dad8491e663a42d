/*
 * femu-test cases: the wear's SMART / Health asynchronous events.  A tiny
 * BlackBox device with pe_cycles=2 is written over and over until its
 * worn-out lines use up the spare and the media goes read-only; the
 * Critical Warning bits that set on the way (bit 2 reliability degraded,
 * bit 0 spare below threshold, bit 3 read-only) raise SMART / Health
 * events (type 1h, information 00h or 02h, log page 02h) as enabled in
 * the Asynchronous Event Configuration, each once, and none completes
 * while an earlier one waits for log 02h to be read.  A Copy on the
 * read-only media fails as a Write does.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu-host.h"

/* 32 lines of 256 KiB, spare 4 lines, NAND times 0 */
#define WEAR_DEV "nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64," \
                 "op_pcent=25,pe_cycles=2,pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0"
#define MAX_PASSES 40

static uint16_t set_aec(Ctrl *c, uint32_t v)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_SET_FEATURES, 0, 0, 0);

    cmd.cdw10 = cpu_to_le32(NVME_ASYNCHRONOUS_EVENT_CONF);
    cmd.cdw11 = cpu_to_le32(v);
    return run(c, 0, &cmd, NULL);
}

static void aer_submit(Ctrl *c)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_ASYNC_EV_REQ, 0, 0, 0);

    submit(c, 0, &cmd);
    c->aer_cid[c->naer++] = c->cid;
}

/* Wait up to ms for aer_done to reach want (an admin command reaps). */
static bool aer_wait(Ctrl *c, uint64_t want, int ms)
{
    for (int t = 0;; t += 10) {
        NvmeCmd cmd = mk(NVME_ADM_CMD_GET_FEATURES, 0, 0, 0);

        cmd.cdw10 = cpu_to_le32(NVME_ASYNCHRONOUS_EVENT_CONF);
        g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_SUCCESS);
        if (c->aer_done >= want || t >= ms) {
            return c->aer_done >= want;
        }
        g_usleep(10 * 1000);
    }
}

/* SMART / Health into *s; rae: without acknowledging events */
static void smart_log(Ctrl *c, bool rae, NvmeSmartLog *s)
{
    NvmeCmd cmd = mk(NVME_ADM_CMD_GET_LOG_PAGE, 0xffffffff,
                     c->buf + 14 * PAGE, 0);

    cmd.cdw10 = cpu_to_le32((sizeof(*s) / 4 - 1) << 16 |
                            (rae ? 1 << 15 : 0) | NVME_LOG_SMART_INFO);
    g_assert_cmphex(run(c, 0, &cmd, NULL), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf + 14 * PAGE, s, sizeof(*s));
}

/* SMART / Health's Critical Warning */
static uint8_t smart_warning(Ctrl *c, bool rae)
{
    NvmeSmartLog s;

    smart_log(c, rae, &s);
    return s.critical_warning;
}

/* Write the whole namespace in 8 KiB commands; the first failure's
 * status (only Write Fault may come), else success. */
static uint16_t write_pass(Ctrl *c, uint8_t seed)
{
    uint32_t nlb = (2 * PAGE) >> c->lba_shift;

    qtest_memset(c->qts, c->buf, seed, 2 * PAGE);
    for (uint64_t lba = 0; lba + nlb <= c->ns_blocks; lba += nlb) {
        uint16_t st = rw(c, NVME_CMD_WRITE, lba, nlb, c->buf, c->buf + PAGE);

        g_assert(st == NVME_SUCCESS || st == NVME_WRITE_FAULT);
        if (st) {
            return st;
        }
    }
    return NVME_SUCCESS;
}

/* The event's fields: SMART / Health, log page 02h; its information. */
static uint8_t event_info(Ctrl *c, uint64_t i)
{
    uint32_t dw0 = c->aer_result[i % 16];

    g_assert_cmphex(dw0 & 7, ==, NVME_AER_TYPE_SMART);
    g_assert_cmphex(dw0 >> 16 & 0xff, ==, NVME_LOG_SMART_INFO);
    return dw0 >> 8 & 0xff;
}

/*
 * Age the device with the events of aec enabled until the media is
 * read-only; the first event (if any) is not acknowledged, so the later
 * ones must wait: *masked says whether a later one was pending then.
 * Then acknowledge (log 02h, RAE 0) until no event comes: the counts of
 * events by information into spare (02h) and reliability (00h).
 */
static void age_to_read_only(Ctrl *c, uint32_t aec, int *spare, int *rel)
{
    uint8_t cw = 0;
    int pass;

    g_assert_cmphex(set_aec(c, aec), ==, NVME_SUCCESS);
    g_assert_cmphex(smart_warning(c, false), ==, 0);
    aer_submit(c);
    aer_submit(c);
    for (pass = 0; pass < MAX_PASSES; pass++) {
        uint16_t st = write_pass(c, pass);

        /* the events of this pass reach the main loop */
        aer_wait(c, 1, 200);
        cw = smart_warning(c, true);
        if (st == NVME_WRITE_FAULT) {
            break;
        }
    }
    g_test_message("read-only in write pass %d, critical warning 0x%x, "
                   "%" PRIu64 " event(s) before any acknowledgement", pass + 1,
                   cw, c->aer_done);
    g_assert_cmpint(pass, <, MAX_PASSES);
    g_assert_cmphex(cw, ==, NVME_SMART_SPARE | NVME_SMART_RELIABILITY |
                    NVME_SMART_MEDIA_READ_ONLY);
    /* two requests outstanding, yet at most one SMART event: the type
     * waits for log 02h */
    g_assert(!aer_wait(c, 2, 300));
    g_assert_cmpuint(c->aer_done, <=, 1);
    *spare = *rel = 0;
    for (uint64_t i = 0; i < c->aer_done; i++) {
        uint8_t info = event_info(c, i);

        *spare += info == NVME_AER_INFO_SMART_SPARE_THRESH;
        *rel += info == NVME_AER_INFO_SMART_RELIABILITY;
    }
    /* acknowledge: each read may let the next queued event complete */
    for (int k = 0; k < 8; k++) {
        uint64_t before = c->aer_done;

        smart_warning(c, false);
        if (!aer_wait(c, before + 1, 300)) {
            break;
        }
        for (uint64_t i = before; i < c->aer_done; i++) {
            uint8_t info = event_info(c, i);

            *spare += info == NVME_AER_INFO_SMART_SPARE_THRESH;
            *rel += info == NVME_AER_INFO_SMART_RELIABILITY;
        }
        while (c->naer < 2) {
            aer_submit(c);
        }
    }
    g_test_message("events: %d spare below threshold, %d reliability",
                   *spare, *rel);
    /* nothing more: failed writes, reads and log reads raise nothing */
    while (c->naer < 2) {
        aer_submit(c);
    }
    {
        uint64_t done = c->aer_done;

        g_assert_cmphex(write_pass(c, 0xee), ==, NVME_WRITE_FAULT);
        g_assert_cmphex(rw(c, NVME_CMD_READ, 0, 8, c->buf, 0), ==,
                        NVME_SUCCESS);
        smart_warning(c, false);
        g_assert(!aer_wait(c, done + 1, 300));
    }
}

/* Shut down without the health check: its write would fail (read-only
 * media) on purpose. */
static void stop_unchecked(Ctrl *c)
{
    g_free(c->dev);
    qtest_pc_shutdown(c->qs);
    g_free(c);
}

/* Copy (and Write Zeroes) on read-only media: Write Fault, nothing moves */
static void copy_on_read_only(Ctrl *c)
{
    NvmeCopySourceRangeFormat0_2 d = {};
    uint64_t descs = c->buf + 4 * PAGE;
    uint32_t bpp = PAGE >> c->lba_shift;
    uint8_t before[PAGE], after[PAGE];
    NvmeCmd cmd;

    g_assert_cmphex(rw(c, NVME_CMD_READ, 64 * bpp, bpp, c->buf + 8 * PAGE,
                       0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf + 8 * PAGE, before, PAGE);
    d.slba = cpu_to_le64(0);
    d.nlb = cpu_to_le16(bpp - 1);
    qtest_memwrite(c->qts, descs, &d, sizeof(d));
    cmd = mk(NVME_CMD_COPY, 1, descs, 0);
    cmd.cdw10 = cpu_to_le32(64 * bpp);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_WRITE_FAULT);
    cmd = mk(NVME_CMD_WRITE_ZEROES, 1, 0, 0);
    cmd.cdw10 = cpu_to_le32(64 * bpp);
    cmd.cdw12 = cpu_to_le32(bpp - 1);
    g_assert_cmphex(run(c, IOQ, &cmd, NULL), ==, NVME_WRITE_FAULT);
    g_assert_cmphex(rw(c, NVME_CMD_READ, 64 * bpp, bpp, c->buf + 8 * PAGE,
                       0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf + 8 * PAGE, after, PAGE);
    g_assert(!memcmp(before, after, PAGE));
}

/* Every wear warning enabled: one event for each bit, masking between */
void test_wear_events(void)
{
    Ctrl *c = ctrl_start(WEAR_DEV);
    int spare, rel;

    age_to_read_only(c, NVME_SMART_SPARE | NVME_SMART_RELIABILITY |
                     NVME_SMART_MEDIA_READ_ONLY, &spare, &rel);
    g_assert_cmpint(spare, ==, 1);
    /* bits 2 and 3: one event each, or one for both set together */
    g_assert_cmpint(rel, >=, 1);
    g_assert_cmpint(rel, <=, 2);
    copy_on_read_only(c);
    stop_unchecked(c);
}

/* Only the spare enabled: that event alone; none enabled: none */
void test_wear_events_aec(void)
{
    Ctrl *c = ctrl_start(WEAR_DEV);
    int spare, rel;

    age_to_read_only(c, NVME_SMART_SPARE, &spare, &rel);
    g_assert_cmpint(spare, ==, 1);
    g_assert_cmpint(rel, ==, 0);
    stop_unchecked(c);

    c = ctrl_start(WEAR_DEV);
    age_to_read_only(c, 0, &spare, &rel);
    g_assert_cmpint(spare + rel, ==, 0);
    stop_unchecked(c);
}

/*
 * A zoned namespace with pe_cycles=2: each reset of a written zone
 * erases its blocks once and SMART Percentage Used follows the mean over
 * the zones; the third reset of a zone finds it worn out: it goes
 * Offline (a Zone Descriptor Changed notice) and SMART reports a grown
 * bad block (Critical Warning bit 2, an NVM Subsystem Reliability event)
 * and one zone less of Available Spare.
 */
void test_wear_zoned(void)
{
    Ctrl *c = ctrl_start("femu_mode=3,nchs=2,luns_per_ch=2,blks_per_pl=16,"
                         "pgs_per_blk=64,zone_luns=2,zone_size_mb=2,"
                         "zone_cap_mb=1,pe_cycles=2");
    NvmeSmartLog s;
    FemuLogFtl c0;
    uint8_t types = 0;

    zoned_setup(c);
    g_assert_cmpuint(c->nzones, ==, 8);
    g_assert_cmphex(set_aec(c, NVME_SMART_RELIABILITY | 1u << 27), ==,
                    NVME_SUCCESS);
    aer_submit(c);
    aer_submit(c);
    smart_log(c, true, &s);
    g_assert_cmpuint(s.percentage_used, ==, 0);
    g_assert_cmpuint(s.available_spare, ==, 100);
    g_assert_cmphex(s.critical_warning, ==, 0);
    for (int round = 1; round <= 2; round++) {
        g_assert_cmphex(zio(c, NVME_CMD_WRITE, 0, 8, NULL), ==, NVME_SUCCESS);
        g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_RESET, false), ==,
                        NVME_SUCCESS);
        smart_log(c, true, &s);
        /* round erases of one zone of 8, 2 cycles each */
        g_assert_cmpuint(s.percentage_used, ==, round * 100 / 16);
    }
    g_assert(!aer_wait(c, 1, 200));
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 0, 8, NULL), ==, NVME_SUCCESS);
    g_assert_cmphex(zsend(c, 0, NVME_ZONE_ACTION_RESET, false), ==,
                    NVME_SUCCESS);
    g_assert_cmphex(zone_descr(c, 0).zs >> 4, ==, NVME_ZONE_STATE_OFFLINE);
    g_assert(aer_wait(c, 2, 2000));
    for (int i = 0; i < 2; i++) {
        uint32_t dw0 = c->aer_result[i];

        if ((dw0 & 7) == NVME_AER_TYPE_SMART) {
            g_assert_cmphex(dw0 >> 8 & 0xff, ==,
                            NVME_AER_INFO_SMART_RELIABILITY);
            g_assert_cmphex(dw0 >> 16 & 0xff, ==, NVME_LOG_SMART_INFO);
        } else {
            g_assert_cmphex(dw0 & 7, ==, NVME_AER_TYPE_NOTICE);
            /* Changed Zone List, log page BFh */
            g_assert_cmphex(dw0 >> 16 & 0xff, ==, 0xbf);
        }
        types |= 1 << (dw0 & 7);
    }
    g_assert_cmphex(types, ==, 1 << NVME_AER_TYPE_SMART |
                    1 << NVME_AER_TYPE_NOTICE);
    smart_log(c, false, &s);
    g_assert_cmphex(s.critical_warning, ==, NVME_SMART_RELIABILITY);
    g_assert_cmpuint(s.available_spare, ==, 7 * 100 / 8);
    g_assert_cmpuint(s.percentage_used, ==, 2 * 100 / 16);
    g_assert_cmphex(get_log(c, FEMU_LOG_FTL, sizeof(c0) / 4 - 1, 0,
                            c->buf + 14 * PAGE, 0), ==, NVME_SUCCESS);
    qtest_memread(c->qts, c->buf + 14 * PAGE, &c0, sizeof(c0));
    g_assert_cmpuint(le32_to_cpu(c0.erase_count_max), ==, 2);
    g_assert_cmpuint(le32_to_cpu(c0.retired_lines), ==, 1);
    g_assert_cmpuint(le64_to_cpu(c0.zone_resets), ==, 2);
    /* the worn zone takes no write; the others do */
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, 0, 8, NULL), ==,
                    NVME_ZONE_OFFLINE);
    g_assert_cmphex(zio(c, NVME_CMD_WRITE, c->zsze, 8, NULL), ==,
                    NVME_SUCCESS);
    stop_unchecked(c);
}
