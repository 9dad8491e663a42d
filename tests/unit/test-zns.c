/*
 * Zoned namespace model: configuration refusals, the zone state machine
 * with its open/active resources and errors, and the timing (zones on
 * different LUN groups in parallel, a reset costs the zone's erases).
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "hw/femu/zns.h"

#define RD 40000u
#define WR 200000u
#define ER 2000000u

/* 2 ch x 4 LUNs, blocks of 64 x 4 KiB pages (256 KiB); zone_luns=2 gives
 * 4 LUN groups; a 2 MiB zone is 4 blocks per LUN, 4096 blocks of 512 B;
 * 16 blocks per plane make 4 zones per group, 16 zones. */
static void zcfg(struct zns_config *c)
{
    zns_config_default(c);
    c->nand.nchs = 2;
    c->nand.luns_per_ch = 4;
    c->nand.blks_per_pl = 16;
    c->nand.pgs_per_blk = 64;
    c->zone_luns = 2;
    c->zone_size_mb = 2;
}

static struct zns *mkz(const struct zns_config *c)
{
    char err[256];
    struct zns *z = zns_new(c, err, sizeof(err));

    if (!z) {
        test_end_case("zns_new", err);
    }
    return z;
}

static enum zns_state st(struct zns *z, uint32_t zone)
{
    struct zns_zone_info i;

    zns_zone_info(z, zone, &i);
    return i.state;
}

static uint64_t wp(struct zns *z, uint32_t zone)
{
    struct zns_zone_info i;

    zns_zone_info(z, zone, &i);
    return i.wp;
}

static enum zns_result wr(struct zns *z, uint64_t slba, uint32_t nlb)
{
    uint64_t done;

    return zns_write(z, slba, nlb, false, 0, NULL, &done);
}

static enum zns_result act(struct zns *z, uint32_t zone, enum zns_action a)
{
    uint64_t done;

    return zns_zone_action(z, zone, false, a, 0, &done);
}

static enum zns_result act_all(struct zns *z, enum zns_action a)
{
    uint64_t done;

    return zns_zone_action(z, 0, true, a, 0, &done);
}

static void refused(struct zns_config *c, const char *needle)
{
    char err[256] = "";

    CHECK(zns_config_validate(c, err, sizeof(err)) == -1);
    CHECK_STR(err, needle);
}

static void test_config(void)
{
    struct zns_config c;
    struct zns *z;

    zcfg(&c);
    CHECK_EQ(zns_config_validate(&c, NULL, 0), 0);
    c.zone_luns = 3;
    refused(&c, "zone_luns=3");
    zcfg(&c);
    c.zone_luns = 8;
    c.zone_size_mb = 1;     /* the unit is 8 x 256 KiB = 2 MiB */
    refused(&c, "zone_size_mb=1");
    zcfg(&c);
    c.zone_size_mb = 3;     /* 6 units, not a power of two */
    refused(&c, "power of two");
    zcfg(&c);
    c.zone_size_mb = 64;    /* 32 blocks per LUN, only 16 */
    refused(&c, "blks_per_pl=16");
    zcfg(&c);
    c.zone_cap_mb = 3;
    refused(&c, "zone_cap_mb=3");
    zcfg(&c);
    c.max_open = 4;
    c.max_active = 2;
    refused(&c, "max_open=4");

    zcfg(&c);
    c.zone_cap_mb = 1;
    z = mkz(&c);
    CHECK_EQ(zns_nr_zones(z), 16);
    CHECK_EQ(zns_zone_blocks(z), 4096);
    CHECK_EQ(zns_zone_cap_blocks(z), 2048);
    CHECK_EQ(zns_ns_blocks(z), 16 * 4096);
    /* zone 1 is on the second LUN group; zone 4 back on the first */
    CHECK_EQ(zns_page_lun(z, 0, 0), 0);
    CHECK_EQ(zns_page_lun(z, 0, 1), 1);
    CHECK_EQ(zns_page_lun(z, 0, 2), 0);
    CHECK_EQ(zns_page_lun(z, 1, 0), 2);
    CHECK_EQ(zns_page_lun(z, 4, 1), 1);
    zns_free(z);
}

/* Writes, the write pointer and the states a write leads to. */
static void test_write_states(void)
{
    struct zns_config c;
    struct zns *z;
    uint64_t alba = 0, done;

    zcfg(&c);
    c.zone_cap_mb = 1;
    z = mkz(&c);
    CHECK_EQ(st(z, 0), ZNS_EMPTY);
    CHECK_EQ(wr(z, 0, 8), ZNS_OK);
    CHECK_EQ(st(z, 0), ZNS_IMPLICIT_OPEN);
    CHECK_EQ(wp(z, 0), 8);
    CHECK_EQ(zns_nr_open(z), 1);
    CHECK_EQ(zns_nr_active(z), 1);
    /* not at the write pointer (behind and ahead) */
    CHECK_EQ(wr(z, 0, 8), ZNS_ERR_INVALID_WRITE);
    CHECK_EQ(wr(z, 16, 8), ZNS_ERR_INVALID_WRITE);
    /* past the capacity (2048 blocks), though inside the zone size */
    CHECK_EQ(wr(z, 8, 2041), ZNS_ERR_BOUNDARY);
    CHECK_EQ(wp(z, 0), 8);
    /* out of the namespace */
    CHECK_EQ(wr(z, 16 * 4096, 1), ZNS_ERR_LBA_RANGE);
    /* append: only at a zone start; the data lands at the write pointer */
    CHECK_EQ(zns_write(z, 8, 8, true, 0, &alba, &done),
             ZNS_ERR_INVALID_FIELD);
    CHECK_EQ(zns_write(z, 0, 8, true, 0, &alba, &done), ZNS_OK);
    CHECK_EQ(alba, 8);
    CHECK_EQ(wp(z, 0), 16);
    /* filling the capacity makes the zone Full and frees its resources */
    CHECK_EQ(wr(z, 16, 2032), ZNS_OK);
    CHECK_EQ(st(z, 0), ZNS_FULL);
    CHECK_EQ(zns_nr_open(z), 0);
    CHECK_EQ(zns_nr_active(z), 0);
    CHECK_EQ(wr(z, 2048, 1), ZNS_ERR_FULL);
    CHECK_EQ(zns_write(z, 0, 1, true, 0, &alba, &done), ZNS_ERR_FULL);
    CHECK_EQ(act(z, 0, ZNS_ACT_OPEN), ZNS_ERR_INVALID_TRANSITION);
    CHECK_EQ(act(z, 0, ZNS_ACT_CLOSE), ZNS_ERR_INVALID_TRANSITION);
    CHECK_EQ(act(z, 0, ZNS_ACT_FINISH), ZNS_OK);
    CHECK_EQ(act(z, 0, ZNS_ACT_RESET), ZNS_OK);
    CHECK_EQ(st(z, 0), ZNS_EMPTY);
    CHECK_EQ(wp(z, 0), 0);
    /* a write into a closed zone opens it implicitly again */
    CHECK_EQ(wr(z, 4096, 8), ZNS_OK);
    CHECK_EQ(act(z, 1, ZNS_ACT_CLOSE), ZNS_OK);
    CHECK_EQ(st(z, 1), ZNS_CLOSED);
    CHECK_EQ(zns_nr_open(z), 0);
    CHECK_EQ(zns_nr_active(z), 1);
    CHECK_EQ(wr(z, 4104, 8), ZNS_OK);
    CHECK_EQ(st(z, 1), ZNS_IMPLICIT_OPEN);
    zns_free(z);
}

/* Management actions from every state. */
static void test_actions(void)
{
    struct zns_config c;
    struct zns *z;

    zcfg(&c);
    z = mkz(&c);
    /* Empty: open -> Explicitly Opened; close with nothing written ->
     * Empty; close of Empty is no transition; finish -> Full */
    CHECK_EQ(act(z, 0, ZNS_ACT_CLOSE), ZNS_ERR_INVALID_TRANSITION);
    CHECK_EQ(act(z, 0, ZNS_ACT_RESET), ZNS_OK);
    CHECK_EQ(act(z, 0, ZNS_ACT_OPEN), ZNS_OK);
    CHECK_EQ(st(z, 0), ZNS_EXPLICIT_OPEN);
    CHECK_EQ(act(z, 0, ZNS_ACT_OPEN), ZNS_OK);
    CHECK_EQ(zns_nr_open(z), 1);
    CHECK_EQ(act(z, 0, ZNS_ACT_CLOSE), ZNS_OK);
    CHECK_EQ(st(z, 0), ZNS_EMPTY);
    CHECK_EQ(zns_nr_active(z), 0);
    CHECK_EQ(act(z, 2, ZNS_ACT_FINISH), ZNS_OK);
    CHECK_EQ(st(z, 2), ZNS_FULL);
    CHECK_EQ(wp(z, 2), 2 * 4096 + 4096);
    /* an explicitly opened zone stays so when written */
    CHECK_EQ(act(z, 3, ZNS_ACT_OPEN), ZNS_OK);
    CHECK_EQ(wr(z, 3 * 4096, 8), ZNS_OK);
    CHECK_EQ(st(z, 3), ZNS_EXPLICIT_OPEN);
    CHECK_EQ(act(z, 3, ZNS_ACT_CLOSE), ZNS_OK);
    CHECK_EQ(st(z, 3), ZNS_CLOSED);
    CHECK_EQ(act(z, 3, ZNS_ACT_CLOSE), ZNS_OK);
    CHECK_EQ(act(z, 3, ZNS_ACT_OPEN), ZNS_OK);
    CHECK_EQ(st(z, 3), ZNS_EXPLICIT_OPEN);
    CHECK_EQ(act(z, 3, ZNS_ACT_FINISH), ZNS_OK);
    CHECK_EQ(st(z, 3), ZNS_FULL);
    /* implicitly opened -> explicitly opened by open */
    CHECK_EQ(wr(z, 4 * 4096, 8), ZNS_OK);
    CHECK_EQ(act(z, 4, ZNS_ACT_OPEN), ZNS_OK);
    CHECK_EQ(st(z, 4), ZNS_EXPLICIT_OPEN);
    /* offline only from read only */
    CHECK_EQ(act(z, 5, ZNS_ACT_OFFLINE), ZNS_ERR_INVALID_TRANSITION);
    CHECK_EQ(act(z, 99, ZNS_ACT_OPEN), ZNS_ERR_LBA_RANGE);
    CHECK_EQ(act(z, 5, (enum zns_action)7), ZNS_ERR_INVALID_FIELD);

    /* read only: writes fail, no transitions but offline */
    CHECK_EQ(wr(z, 6 * 4096, 8), ZNS_OK);
    zns_zone_set_read_only(z, 6);
    CHECK_EQ(st(z, 6), ZNS_READ_ONLY);
    CHECK_EQ(wr(z, 6 * 4096 + 8, 8), ZNS_ERR_READ_ONLY);
    CHECK_EQ(act(z, 6, ZNS_ACT_RESET), ZNS_ERR_INVALID_TRANSITION);
    CHECK_EQ(act(z, 6, ZNS_ACT_OPEN), ZNS_ERR_INVALID_TRANSITION);
    CHECK_EQ(act(z, 6, ZNS_ACT_FINISH), ZNS_ERR_INVALID_TRANSITION);
    CHECK_EQ(act_all(z, ZNS_ACT_OFFLINE), ZNS_OK);
    CHECK_EQ(st(z, 6), ZNS_OFFLINE);
    {
        uint64_t done;

        CHECK_EQ(zns_read(z, 6 * 4096, 8, 0, &done), ZNS_ERR_OFFLINE);
        /* a read crossing into the offline zone fails too */
        CHECK_EQ(zns_read(z, 6 * 4096 - 8, 16, 0, &done), ZNS_ERR_OFFLINE);
        CHECK_EQ(zns_read(z, 5 * 4096, 8, 0, &done), ZNS_OK);
    }
    CHECK_EQ(wr(z, 6 * 4096, 8), ZNS_ERR_OFFLINE);
    CHECK_EQ(act(z, 6, ZNS_ACT_RESET), ZNS_ERR_INVALID_TRANSITION);

    /* select all: close the open ones, then finish the closed ones */
    CHECK_EQ(act_all(z, ZNS_ACT_CLOSE), ZNS_OK);
    CHECK_EQ(st(z, 4), ZNS_CLOSED);
    CHECK_EQ(zns_nr_open(z), 0);
    CHECK_EQ(act_all(z, ZNS_ACT_OPEN), ZNS_OK);
    CHECK_EQ(st(z, 4), ZNS_EXPLICIT_OPEN);
    CHECK_EQ(st(z, 0), ZNS_EMPTY);     /* open all touches closed only */
    CHECK_EQ(act_all(z, ZNS_ACT_FINISH), ZNS_OK);
    CHECK_EQ(st(z, 4), ZNS_FULL);
    CHECK_EQ(st(z, 0), ZNS_EMPTY);
    CHECK_EQ(act_all(z, ZNS_ACT_RESET), ZNS_OK);
    for (uint32_t i = 0; i < 16; i++) {
        CHECK_EQ(st(z, i), i == 6 ? ZNS_OFFLINE : ZNS_EMPTY);
    }
    CHECK_EQ(zns_nr_active(z), 0);
    zns_free(z);
}

/* Max open / max active. */
static void test_resources(void)
{
    struct zns_config c;
    struct zns *z;

    zcfg(&c);
    c.max_open = 2;
    c.max_active = 3;
    z = mkz(&c);
    CHECK_EQ(wr(z, 0, 8), ZNS_OK);
    CHECK_EQ(wr(z, 4096, 8), ZNS_OK);
    /* a third implicit open closes the oldest implicitly opened zone */
    CHECK_EQ(wr(z, 2 * 4096, 8), ZNS_OK);
    CHECK_EQ(st(z, 0), ZNS_CLOSED);
    CHECK_EQ(st(z, 1), ZNS_IMPLICIT_OPEN);
    CHECK_EQ(st(z, 2), ZNS_IMPLICIT_OPEN);
    CHECK_EQ(zns_nr_open(z), 2);
    CHECK_EQ(zns_nr_active(z), 3);
    /* a fourth active zone is refused, by write, open or finish */
    {
        uint64_t start = 0;

        /* the dry run agrees and changes nothing */
        CHECK_EQ(zns_write_check(z, 3 * 4096, 8, false, &start),
                 ZNS_ERR_TOO_MANY_ACTIVE);
        CHECK_EQ(zns_write_check(z, 0, 8, true, &start), ZNS_OK);
        CHECK_EQ(start, 8);
        CHECK_EQ(st(z, 0), ZNS_CLOSED);
        CHECK_EQ(zns_write_check(z, 4096, 8, false, &start),
                 ZNS_ERR_INVALID_WRITE);
    }
    CHECK_EQ(wr(z, 3 * 4096, 8), ZNS_ERR_TOO_MANY_ACTIVE);
    CHECK_EQ(act(z, 3, ZNS_ACT_OPEN), ZNS_ERR_TOO_MANY_ACTIVE);
    CHECK_EQ(act(z, 3, ZNS_ACT_FINISH), ZNS_ERR_TOO_MANY_ACTIVE);
    CHECK_EQ(st(z, 3), ZNS_EMPTY);
    CHECK_EQ(wp(z, 3), 3 * 4096);
    /* explicitly opened zones are never closed for room */
    CHECK_EQ(act(z, 1, ZNS_ACT_OPEN), ZNS_OK);
    CHECK_EQ(act(z, 2, ZNS_ACT_OPEN), ZNS_OK);
    CHECK_EQ(wr(z, 8, 8), ZNS_ERR_TOO_MANY_OPEN);
    CHECK_EQ(act(z, 0, ZNS_ACT_OPEN), ZNS_ERR_TOO_MANY_OPEN);
    CHECK_EQ(st(z, 0), ZNS_CLOSED);
    CHECK_EQ(wp(z, 0), 8);
    /* open all: two closed zones and two open ones exceed 2: nothing
     * opens */
    CHECK_EQ(act(z, 1, ZNS_ACT_CLOSE), ZNS_OK);
    CHECK_EQ(act_all(z, ZNS_ACT_OPEN), ZNS_ERR_TOO_MANY_OPEN);
    CHECK_EQ(st(z, 0), ZNS_CLOSED);
    CHECK_EQ(st(z, 1), ZNS_CLOSED);
    /* finishing a closed zone frees an active resource */
    CHECK_EQ(act(z, 0, ZNS_ACT_FINISH), ZNS_OK);
    CHECK_EQ(zns_nr_active(z), 2);
    CHECK_EQ(wr(z, 3 * 4096, 8), ZNS_OK);
    CHECK_EQ(zns_nr_active(z), 3);
    CHECK_EQ(act_all(z, ZNS_ACT_RESET), ZNS_OK);
    CHECK_EQ(zns_nr_active(z), 0);
    CHECK_EQ(zns_nr_open(z), 0);
    zns_free(z);
}

static void test_timing(void)
{
    struct zns_config c;
    struct zns *z;
    struct zns_counters ctr;
    uint64_t done, t = 1000000000;

    zcfg(&c);
    z = mkz(&c);
    /* one page; two pages on the zone's two LUNs in parallel; four pages
     * take two programs per LUN */
    CHECK_EQ(zns_write(z, 0, 8, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t + WR);
    t += 10 * WR;
    CHECK_EQ(zns_write(z, 8, 16, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t + WR);
    t += 10 * WR;
    CHECK_EQ(zns_write(z, 24, 32, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t + 2 * WR);
    /* zones 1 and 0 are on different LUN groups: in parallel; zone 4
     * shares zone 0's LUNs and waits */
    t += 10 * WR;
    CHECK_EQ(zns_write(z, 56, 16, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t + WR);
    CHECK_EQ(zns_write(z, 4096, 16, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t + WR);
    CHECK_EQ(zns_write(z, 4 * 4096, 16, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t + 2 * WR);
    /* reads: below the write pointer a page read, above it nothing */
    t += 10 * WR;
    CHECK_EQ(zns_read(z, 0, 8, t, &done), ZNS_OK);
    CHECK_EQ(done, t + RD);
    CHECK_EQ(zns_read(z, 2048, 8, t, &done), ZNS_OK);
    CHECK_EQ(done, t);
    /* a finish moves the write pointer, not the data: still free */
    CHECK_EQ(act(z, 1, ZNS_ACT_FINISH), ZNS_OK);
    CHECK_EQ(zns_read(z, 4096 + 64, 8, t, &done), ZNS_OK);
    CHECK_EQ(done, t);
    /* a reset erases the zone's 4 blocks on each of its 2 LUNs; a LUN
     * erases one block at a time */
    zns_get_counters(z, &ctr);
    CHECK_EQ(ctr.blocks_erased, 0);
    t += 10 * WR;
    CHECK_EQ(zns_zone_action(z, 0, false, ZNS_ACT_RESET, t, &done), ZNS_OK);
    CHECK_EQ(done, t + 4 * ER);
    zns_get_counters(z, &ctr);
    CHECK_EQ(ctr.blocks_erased, 8);
    CHECK_EQ(ctr.zone_resets, 1);
    /* a zone never written since its last erase costs nothing */
    t += 10 * ER;
    CHECK_EQ(zns_zone_action(z, 0, false, ZNS_ACT_RESET, t, &done), ZNS_OK);
    CHECK_EQ(done, t);
    CHECK_EQ(zns_zone_action(z, 7, false, ZNS_ACT_FINISH, t, &done), ZNS_OK);
    CHECK_EQ(zns_zone_action(z, 7, false, ZNS_ACT_RESET, t, &done), ZNS_OK);
    CHECK_EQ(done, t);
    /* reset all: zones 1 and 4 are on different groups: in parallel */
    CHECK_EQ(zns_zone_action(z, 0, true, ZNS_ACT_RESET, t, &done), ZNS_OK);
    CHECK_EQ(done, t + 4 * ER);
    zns_get_counters(z, &ctr);
    CHECK_EQ(ctr.zone_resets, 3);
    CHECK_EQ(ctr.blocks_erased, 24);
    /* pages: 1 + 2 + 4 + 2 + 2 + 2 written and programmed; WAF 1 */
    CHECK_EQ(ctr.host_pages_written, 13);
    CHECK_EQ(ctr.host_pages_programmed, 13);
    CHECK_EQ(zns_waf_x1000(z), 1000);
    /* a write smaller than a page programs the page it touches */
    CHECK_EQ(zns_write(z, 0, 1, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(zns_write(z, 1, 8, false, t, NULL, &done), ZNS_OK);
    zns_get_counters(z, &ctr);
    CHECK_EQ(ctr.host_pages_written, 16);
    /* delay emulation off: no time at all */
    zns_set_delay_mode(z, FTL_DELAY_OFF);
    t += 10 * ER;
    CHECK_EQ(zns_write(z, 9, 64, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t);
    zns_reset_counters(z);
    CHECK_EQ(zns_waf_x1000(z), 1000);
    zns_free(z);
}

/*
 * Controller-initiated changes (the failure hooks) fill the changed zone
 * list once per zone, in order; every change says so (the device decides
 * whether to raise the event); a consume takes entries off the middle of
 * the list; the list overflows past ZNS_CHANGED_ZONES_MAX.
 */
static void test_changed_list(void)
{
    struct zns_config c;
    struct zns *z;
    uint32_t ids[ZNS_CHANGED_ZONES_MAX];

    zcfg(&c);
    c.max_open = 2;
    c.max_active = 2;
    z = mkz(&c);
    CHECK_EQ(zns_changed_zones(z, ids, ZNS_CHANGED_ZONES_MAX), 0);
    /* host transitions are no Zone Descriptor Changed events */
    CHECK_EQ(wr(z, 0, 8), ZNS_OK);
    CHECK_EQ(act(z, 1, ZNS_ACT_OPEN), ZNS_OK);
    CHECK_EQ(act(z, 2, ZNS_ACT_FINISH), ZNS_ERR_TOO_MANY_ACTIVE);
    CHECK_EQ(zns_changed_zones(z, ids, ZNS_CHANGED_ZONES_MAX), 0);
    /* read only gives back the open and active resources */
    CHECK_EQ(zns_zone_set_read_only(z, 1), true);
    CHECK_EQ(st(z, 1), ZNS_READ_ONLY);
    CHECK_EQ(zns_nr_open(z), 1);
    CHECK_EQ(zns_nr_active(z), 1);
    CHECK_EQ(zns_zone_set_offline(z, 0), true);    /* listed second */
    CHECK_EQ(st(z, 0), ZNS_OFFLINE);
    CHECK_EQ(zns_nr_active(z), 0);
    /* again: no change; offline after read only: a change, listed once */
    CHECK_EQ(zns_zone_set_read_only(z, 1), false);
    CHECK_EQ(zns_zone_set_offline(z, 1), true);
    CHECK_EQ(st(z, 1), ZNS_OFFLINE);
    /* offline is final */
    CHECK_EQ(zns_zone_set_read_only(z, 0), false);
    CHECK_EQ(st(z, 0), ZNS_OFFLINE);
    CHECK_EQ(zns_changed_zones(z, ids, ZNS_CHANGED_ZONES_MAX), 2);
    CHECK_EQ(ids[0], 1);
    CHECK_EQ(ids[1], 0);
    /* the host's own offline action (read only to offline) is none */
    CHECK_EQ(zns_zone_set_read_only(z, 5), true);
    CHECK_EQ(act(z, 5, ZNS_ACT_OFFLINE), ZNS_OK);
    CHECK_EQ(zns_changed_zones(z, ids, ZNS_CHANGED_ZONES_MAX), 3);
    /* a partial read took the middle entry: the others stay in order,
     * and zone 0 is listed again when it changes */
    zns_changed_consume(z, 1, 1);
    CHECK_EQ(zns_changed_zones(z, ids, ZNS_CHANGED_ZONES_MAX), 2);
    CHECK_EQ(ids[0], 1);
    CHECK_EQ(ids[1], 5);
    zns_changed_consume(z, 2, 5);     /* past the end: nothing */
    CHECK_EQ(zns_changed_zones(z, ids, ZNS_CHANGED_ZONES_MAX), 2);
    zns_changed_clear(z);
    CHECK_EQ(zns_changed_zones(z, ids, ZNS_CHANGED_ZONES_MAX), 0);
    /* after a clear the next change asks for an event again */
    CHECK_EQ(zns_zone_set_read_only(z, 7), true);
    CHECK_EQ(zns_changed_zones(z, ids, 1), 1);
    CHECK_EQ(ids[0], 7);
    zns_free(z);

    /* more zones than the list holds: the count says so */
    zcfg(&c);
    c.nand.blks_per_pl = 1024;
    c.zone_size_mb = 0;     /* one block per plane per LUN: 4096 zones */
    z = mkz(&c);
    CHECK(zns_nr_zones(z) > ZNS_CHANGED_ZONES_MAX + 1);
    for (uint32_t i = 0; i <= ZNS_CHANGED_ZONES_MAX; i++) {
        CHECK_EQ(zns_zone_set_read_only(z, i), true);
    }
    CHECK_EQ(zns_changed_zones(z, ids, ZNS_CHANGED_ZONES_MAX),
             ZNS_CHANGED_ZONES_MAX + 1);
    CHECK_EQ(ids[ZNS_CHANGED_ZONES_MAX - 1], ZNS_CHANGED_ZONES_MAX - 1);
    zns_changed_clear(z);
    CHECK_EQ(zns_changed_zones(z, ids, ZNS_CHANGED_ZONES_MAX), 0);
    /* the zone beyond the list's room is listed after a clear */
    CHECK_EQ(zns_zone_set_offline(z, ZNS_CHANGED_ZONES_MAX), true);
    CHECK_EQ(zns_changed_zones(z, ids, ZNS_CHANGED_ZONES_MAX), 1);
    CHECK_EQ(ids[0], ZNS_CHANGED_ZONES_MAX);
    zns_free(z);
}

static uint64_t programmed(struct zns *z)
{
    struct zns_counters k;

    zns_get_counters(z, &k);
    return k.host_pages_programmed;
}

static bool zrwa_of(struct zns *z, uint32_t zone)
{
    struct zns_zone_info i;

    zns_zone_info(z, zone, &i);
    return i.zrwa;
}

static enum zns_result commit(struct zns *z, uint64_t elba)
{
    uint64_t done;

    return zns_zrwa_commit(z, elba, 0, &done);
}

/*
 * Zone Random Write Area: 64-block window (8 pages of 8 blocks), commit
 * granule 16 blocks (2 pages), 2 ZRWAs.  Writes anywhere in the window
 * and overwrites program nothing; commits program the pages they
 * complete; Finish programs the rest; the ZRWA goes back on Finish,
 * Reset and Full, not on Close.
 */
static void test_zrwa(void)
{
    struct zns_config c;
    struct zns *z;
    uint64_t done, alba;

    zcfg(&c);
    z = mkz(&c);
    CHECK_EQ(zns_zone_open_zrwa(z, 0), ZNS_ERR_INVALID_ZONE_OP);
    CHECK_EQ(commit(z, 15), ZNS_ERR_INVALID_ZONE_OP);
    zns_free(z);

    zcfg(&c);
    c.zrwa_blocks = 64;
    refused(&c, "zns_zrwa_size=64");     /* no granule */
    c.zrwafg_blocks = 24;
    c.zrwa_num = 2;
    refused(&c, "zns_zrwa_size=64");     /* 24 does not divide 64 */
    c.zrwafg_blocks = 16;
    c.zrwa_num = 0;
    refused(&c, "zns_zrwa_size=64");
    c.zrwa_num = 2;
    c.zrwa_blocks = 8192;
    c.zrwafg_blocks = 16;
    refused(&c, "zone capacity");
    c.zrwa_blocks = 64;
    z = mkz(&c);

    CHECK_EQ(zns_zone_open_zrwa(z, 0), ZNS_OK);
    CHECK_EQ(st(z, 0), ZNS_EXPLICIT_OPEN);
    CHECK(zrwa_of(z, 0));
    CHECK_EQ(zns_zone_open_zrwa(z, 0), ZNS_OK);     /* has one already */
    CHECK_EQ(zns_zone_open_zrwa(z, 1), ZNS_OK);
    CHECK_EQ(zns_zone_open_zrwa(z, 2), ZNS_ERR_NO_ZRWA);
    CHECK_EQ(st(z, 2), ZNS_EMPTY);
    CHECK_EQ(zns_nr_zrwa(z), 2);
    /* anywhere in the window, again, without a program */
    CHECK_EQ(wr(z, 32, 8), ZNS_OK);
    CHECK_EQ(wr(z, 32, 8), ZNS_OK);
    CHECK_EQ(wr(z, 0, 16), ZNS_OK);
    CHECK_EQ(wp(z, 0), 0);
    CHECK_EQ(programmed(z), 0);
    CHECK_EQ(zns_write(z, 0, 8, true, 0, &alba, &done),
             ZNS_ERR_INVALID_ZONE_OP);
    CHECK_EQ(wr(z, 100, 29), ZNS_ERR_INVALID_WRITE);  /* past wp + 128 */
    CHECK_EQ(wr(z, 100, 28), ZNS_OK);                 /* implicit commit */
    CHECK_EQ(wp(z, 0), 64);                           /* 128 - 64 */
    CHECK_EQ(programmed(z), 8);
    CHECK_EQ(wr(z, 56, 8), ZNS_ERR_INVALID_WRITE);    /* below wp */
    /* explicit commit: whole granules inside the window */
    CHECK_EQ(commit(z, 64 + 7), ZNS_ERR_INVALID_FIELD);
    CHECK_EQ(commit(z, 63), ZNS_ERR_BOUNDARY);
    CHECK_EQ(commit(z, 64 + 64), ZNS_ERR_BOUNDARY);
    CHECK_EQ(commit(z, 64 + 15), ZNS_OK);
    CHECK_EQ(wp(z, 0), 80);
    CHECK_EQ(programmed(z), 10);
    CHECK_EQ(commit(z, 4096 + 15), ZNS_OK);           /* zone 1 */
    CHECK_EQ(commit(z, 2 * 4096 + 15), ZNS_ERR_INVALID_FIELD);  /* no ZRWA */
    /* Close keeps the ZRWA; a commit opens the zone again */
    CHECK_EQ(act(z, 0, ZNS_ACT_CLOSE), ZNS_OK);
    CHECK_EQ(st(z, 0), ZNS_CLOSED);
    CHECK(zrwa_of(z, 0));
    CHECK_EQ(commit(z, 80 + 15), ZNS_OK);
    CHECK_EQ(st(z, 0), ZNS_IMPLICIT_OPEN);
    /* Finish programs the written data left (up to block 128: 16 pages) */
    CHECK_EQ(act(z, 0, ZNS_ACT_FINISH), ZNS_OK);
    CHECK_EQ(st(z, 0), ZNS_FULL);
    CHECK(!zrwa_of(z, 0));
    CHECK_EQ(programmed(z), 16 + 2);
    CHECK_EQ(zns_nr_zrwa(z), 1);
    /* Reset gives the ZRWA back; a closed ZRWA zone with nothing
     * committed stays Closed */
    CHECK_EQ(act(z, 1, ZNS_ACT_RESET), ZNS_OK);
    CHECK_EQ(zns_nr_zrwa(z), 0);
    CHECK_EQ(zns_zone_open_zrwa(z, 1), ZNS_OK);
    CHECK_EQ(act(z, 1, ZNS_ACT_CLOSE), ZNS_OK);
    CHECK_EQ(st(z, 1), ZNS_CLOSED);
    /* commits to the capacity: Full, the ZRWA back */
    for (uint64_t e = 4096 + 63; e < 2 * 4096; e += 64) {
        CHECK_EQ(commit(z, e), ZNS_OK);
    }
    CHECK_EQ(st(z, 1), ZNS_FULL);
    CHECK_EQ(zns_nr_zrwa(z), 0);
    /* a write pointer off the granule: no ZRWA */
    CHECK_EQ(wr(z, 3 * 4096, 8), ZNS_OK);
    CHECK_EQ(zns_zone_open_zrwa(z, 3), ZNS_ERR_NO_ZRWA);
    CHECK_EQ(wr(z, 3 * 4096 + 8, 8), ZNS_OK);
    CHECK_EQ(zns_zone_open_zrwa(z, 3), ZNS_OK);
    CHECK_EQ(st(z, 3), ZNS_EXPLICIT_OPEN);
    CHECK_EQ(zns_zone_open_zrwa(z, 0), ZNS_ERR_INVALID_TRANSITION);  /* Full */
    zns_free(z);
}

/* Set Zone Descriptor Extension: Empty -> Closed with ZDEV, an active
 * resource; any other state refused; a reset clears it. */
static void test_zdext(void)
{
    struct zns_config c;
    struct zns *z;
    struct zns_zone_info i;

    zcfg(&c);
    c.max_open = 1;
    c.max_active = 1;
    z = mkz(&c);
    CHECK_EQ(zns_zone_set_zdext(z, 2), ZNS_OK);
    zns_zone_info(z, 2, &i);
    CHECK_EQ(i.state, ZNS_CLOSED);
    CHECK(i.zdev);
    CHECK_EQ(zns_nr_active(z), 1);
    CHECK_EQ(zns_zone_set_zdext(z, 2), ZNS_ERR_INVALID_TRANSITION);
    CHECK_EQ(zns_zone_set_zdext(z, 3), ZNS_ERR_TOO_MANY_ACTIVE);
    /* opened and closed with nothing written: still Closed, ZDEV kept */
    CHECK_EQ(act(z, 2, ZNS_ACT_OPEN), ZNS_OK);
    CHECK_EQ(act(z, 2, ZNS_ACT_CLOSE), ZNS_OK);
    zns_zone_info(z, 2, &i);
    CHECK_EQ(i.state, ZNS_CLOSED);
    CHECK(i.zdev);
    CHECK_EQ(act(z, 2, ZNS_ACT_RESET), ZNS_OK);
    zns_zone_info(z, 2, &i);
    CHECK_EQ(i.state, ZNS_EMPTY);
    CHECK(!i.zdev);
    CHECK_EQ(zns_nr_active(z), 0);
    zns_free(z);
}

/* ZRWA timing: window writes and overwrites complete at once, a commit
 * takes the programs of the pages it completes (2 LUNs in parallel),
 * reads of buffered blocks cost no NAND, committed ones a page read. */
static void test_zrwa_timing(void)
{
    struct zns_config c;
    struct zns *z;
    uint64_t done, t = 1000000000;

    zcfg(&c);
    c.zrwa_blocks = 64;
    c.zrwafg_blocks = 16;
    c.zrwa_num = 1;
    z = mkz(&c);
    CHECK_EQ(zns_zone_open_zrwa(z, 0), ZNS_OK);
    CHECK_EQ(zns_write(z, 0, 64, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t);
    CHECK_EQ(zns_write(z, 0, 64, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t);
    CHECK_EQ(zns_read(z, 0, 8, t, &done), ZNS_OK);
    CHECK_EQ(done, t);
    /* 8 pages over the zone's 2 LUNs: 4 programs each */
    CHECK_EQ(zns_zrwa_commit(z, 63, t, &done), ZNS_OK);
    CHECK_EQ(done, t + 4 * WR);
    t += 10 * WR;
    CHECK_EQ(zns_read(z, 0, 8, t, &done), ZNS_OK);
    CHECK_EQ(done, t + RD);
    /* a write 5 blocks past the window commits a whole granule, 16
     * blocks (2 pages), first */
    t += 10 * WR;
    CHECK_EQ(zns_write(z, 64, 69, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t + WR);
    CHECK_EQ(wp(z, 0), 80);
    zns_free(z);
}

/* Read every ZONE section of f (from its start) into z; the zones they
 * held, or -1 with the message in err. */
static int64_t load_zone_sections(FILE *f, struct zns *z, uint8_t *ext,
                                  uint32_t ext_size, char *err,
                                  size_t errlen)
{
    static uint8_t buf[1 << 20];
    uint32_t tag;
    uint64_t len;
    int64_t zones = 0;

    rewind(f);
    while (ftl_state_next_section(f, &tag, &len, err, errlen) == 1) {
        int64_t got;

        if (tag != FTL_STATE_SEC_ZONE || len > sizeof(buf) ||
            ftl_state_read_payload(f, tag, len, buf, err, errlen)) {
            return -1;
        }
        if (zns_state_nsid(buf, len) != 2) {
            snprintf(err, errlen, "nsid %u", zns_state_nsid(buf, len));
            return -1;
        }
        got = zns_state_section(z, buf, len, ext, ext_size, err, errlen);
        if (got < 0) {
            return -1;
        }
        zones += got;
    }
    return zones;
}

/*
 * The zone table through a state file's ZONE sections: every state,
 * write pointer, ZRWA, extension and counter comes back; open zones come
 * back Closed (Empty when nothing was written), the resources recounted;
 * the zones go on working from where they were; mismatches and damage
 * are refused.
 */
static void test_state(void)
{
    struct zns_config c;
    struct zns *z, *y;
    struct zns_counters c1, c2;
    enum { EXT = 64 };
    uint8_t ext[16 * EXT], ext2[16 * EXT];
    char err[256] = "";
    uint64_t zs = 4096, cap = 4096, done, t = 1000000000ull;
    FILE *f;

    zcfg(&c);
    c.zrwa_blocks = 64;
    c.zrwafg_blocks = 16;
    c.zrwa_num = 2;
    c.max_open = 6;
    c.max_active = 8;
    z = mkz(&c);
    memset(ext, 0, sizeof(ext));
    /* 0 Full by writing; 1 Implicitly Opened at 100; 2 Explicitly Opened
     * with nothing written; 3 Explicitly Opened with data; 4 Closed at
     * 8; 5 a ZRWA with data above its write pointer; 6 an extension; 7
     * Read Only; 8 Offline; 9 Full by Finish with 24 blocks written */
    for (uint64_t b = 0; b < cap; b += 256) {
        CHECK_EQ(wr(z, b, 256), ZNS_OK);
    }
    CHECK_EQ(wr(z, zs, 100), ZNS_OK);
    CHECK_EQ(act(z, 2, ZNS_ACT_OPEN), ZNS_OK);
    CHECK_EQ(act(z, 3, ZNS_ACT_OPEN), ZNS_OK);
    CHECK_EQ(wr(z, 3 * zs, 40), ZNS_OK);
    CHECK_EQ(wr(z, 4 * zs, 8), ZNS_OK);
    CHECK_EQ(act(z, 4, ZNS_ACT_CLOSE), ZNS_OK);
    CHECK_EQ(zns_zone_open_zrwa(z, 5), ZNS_OK);
    CHECK_EQ(wr(z, 5 * zs, 48), ZNS_OK);
    CHECK_EQ(zns_zrwa_commit(z, 5 * zs + 31, t, &done), ZNS_OK);
    CHECK_EQ(zns_zone_set_zdext(z, 6), ZNS_OK);
    memset(ext + 6 * EXT, 0xa5, EXT);
    CHECK_EQ(wr(z, 7 * zs, 16), ZNS_OK);
    CHECK(zns_zone_set_read_only(z, 7));
    CHECK(zns_zone_set_offline(z, 8));
    CHECK_EQ(wr(z, 9 * zs, 24), ZNS_OK);
    CHECK_EQ(act(z, 9, ZNS_ACT_FINISH), ZNS_OK);
    CHECK_EQ(st(z, 1), ZNS_IMPLICIT_OPEN);
    CHECK_EQ(st(z, 5), ZNS_EXPLICIT_OPEN);
    CHECK_EQ(wp(z, 5), 5 * zs + 32);
    /* zone 12 written and reset twice: two erases of its blocks */
    for (int k = 0; k < 2; k++) {
        CHECK_EQ(wr(z, 12 * zs, 8), ZNS_OK);
        CHECK_EQ(act(z, 12, ZNS_ACT_RESET), ZNS_OK);
    }
    CHECK_EQ(zns_zone_erases(z, 12), 2);
    zns_get_counters(z, &c1);

    /* sections of 3 zones at most: 6 of them */
    f = tmpfile();
    CHECK(f != NULL);
    CHECK_EQ(zns_state_write(z, 2, ext, EXT, ZNS_STATE_HDR +
                             3 * (ZNS_STATE_REC + EXT), f, err,
                             sizeof(err)), 0);
    y = mkz(&c);
    memset(ext2, 0, sizeof(ext2));
    CHECK_EQ(load_zone_sections(f, y, ext2, EXT, err, sizeof(err)), 16);
    CHECK_EQ(zns_state_restart(y, err, sizeof(err)), 0);
    /* as saved, the open zones closed */
    CHECK_EQ(st(y, 0), ZNS_FULL);
    CHECK_EQ(wp(y, 0), cap);
    CHECK_EQ(st(y, 1), ZNS_CLOSED);
    CHECK_EQ(wp(y, 1), zs + 100);
    CHECK_EQ(st(y, 2), ZNS_EMPTY);
    CHECK_EQ(st(y, 3), ZNS_CLOSED);
    CHECK_EQ(wp(y, 3), 3 * zs + 40);
    CHECK_EQ(st(y, 4), ZNS_CLOSED);
    CHECK_EQ(wp(y, 4), 4 * zs + 8);
    CHECK_EQ(st(y, 5), ZNS_CLOSED);
    CHECK_EQ(wp(y, 5), 5 * zs + 32);
    CHECK_EQ(st(y, 6), ZNS_CLOSED);
    CHECK_EQ(st(y, 7), ZNS_READ_ONLY);
    CHECK_EQ(wp(y, 7), 7 * zs + 16);
    CHECK_EQ(st(y, 8), ZNS_OFFLINE);
    CHECK_EQ(st(y, 9), ZNS_FULL);
    CHECK_EQ(wp(y, 9), 9 * zs + cap);
    for (uint32_t i = 10; i < 16; i++) {
        CHECK_EQ(st(y, i), ZNS_EMPTY);
        CHECK_EQ(wp(y, i), i * zs);
    }
    for (uint32_t i = 0; i < 16; i++) {
        struct zns_zone_info a, b;

        zns_zone_info(z, i, &a);
        zns_zone_info(y, i, &b);
        CHECK_EQ(a.zrwa, b.zrwa);
        CHECK_EQ(a.zdev, b.zdev);
    }
    CHECK(memcmp(ext, ext2, sizeof(ext)) == 0);
    /* the wear came back with the zones */
    CHECK_EQ(zns_zone_erases(y, 12), 2);
    CHECK_EQ(zns_zone_erases(y, 11), 0);
    zns_get_counters(y, &c2);
    CHECK(memcmp(&c1, &c2, sizeof(c1)) == 0);
    CHECK_EQ(zns_nr_open(y), 0);
    CHECK_EQ(zns_nr_active(y), 5);      /* 1, 3, 4, 5, 6 */
    CHECK_EQ(zns_nr_zrwa(y), 1);
    /* they go on from there: the write pointers hold, the ZRWA takes
     * writes in its window, a Full zone's data costs NAND reads */
    CHECK_EQ(wr(y, zs + 99, 1), ZNS_ERR_INVALID_WRITE);
    CHECK_EQ(wr(y, zs + 100, 28), ZNS_OK);
    CHECK_EQ(st(y, 1), ZNS_IMPLICIT_OPEN);
    CHECK_EQ(wr(y, 5 * zs + 40, 8), ZNS_OK);
    CHECK_EQ(wr(y, 5 * zs + 16, 8), ZNS_ERR_INVALID_WRITE);
    CHECK_EQ(zns_read(y, 0, 8, t, &done), ZNS_OK);
    CHECK_EQ(done, t + RD);
    CHECK_EQ(wr(y, 7 * zs + 16, 8), ZNS_ERR_READ_ONLY);
    CHECK_EQ(act(y, 6, ZNS_ACT_RESET), ZNS_OK);
    CHECK_EQ(st(y, 6), ZNS_EMPTY);
    zns_free(y);

    /* fewer active zones allowed than the file holds */
    c.max_open = 2;
    c.max_active = 4;
    y = mkz(&c);
    CHECK_EQ(load_zone_sections(f, y, ext2, EXT, err, sizeof(err)), 16);
    CHECK_EQ(zns_state_restart(y, err, sizeof(err)), -1);
    CHECK_STR(err, "zns_max_active=4");
    zns_free(y);
    c.max_open = 6;
    c.max_active = 8;
    /* another extension size, another zone size */
    y = mkz(&c);
    CHECK_EQ(load_zone_sections(f, y, NULL, 0, err, sizeof(err)), -1);
    CHECK_STR(err, "zns_zd_ext_size is 64 in the state file but 0");
    zns_free(y);
    c.zone_size_mb = 1;
    y = mkz(&c);
    CHECK_EQ(load_zone_sections(f, y, ext2, EXT, err, sizeof(err)), -1);
    CHECK_STR(err, "zone_size_mb");
    zns_free(y);
    fclose(f);

    /* a damaged record: a write pointer past its zone, an Empty zone
     * with one; refused before any zone changes */
    c.zone_size_mb = 2;
    {
        uint8_t sec[ZNS_STATE_HDR + 16 * ZNS_STATE_REC];
        FILE *g = tmpfile();
        uint32_t tag;
        uint64_t len;

        CHECK(g != NULL);
        zns_free(z);
        /* a model without ZRWA: zone 1 at 100 */
        c.zrwa_blocks = 0;
        c.zrwafg_blocks = 0;
        c.zrwa_num = 0;
        z = mkz(&c);
        CHECK_EQ(wr(z, zs, 100), ZNS_OK);
        CHECK_EQ(zns_state_write(z, 2, NULL, 0, sizeof(sec), g, err,
                                 sizeof(err)), 0);
        rewind(g);
        CHECK_EQ(ftl_state_next_section(g, &tag, &len, err, sizeof(err)), 1);
        CHECK_EQ(len, sizeof(sec));
        CHECK_EQ(ftl_state_read_payload(g, tag, len, sec, err, sizeof(err)),
                 0);
        y = mkz(&c);
        sec[ZNS_STATE_HDR + ZNS_STATE_REC + 8 + 1] = 0x20; /* wp + 8192 */
        CHECK_EQ(zns_state_section(y, sec, len, NULL, 0, err, sizeof(err)),
                 -1);
        CHECK_STR(err, "zone 1: a write pointer outside its zone");
        CHECK_EQ(st(y, 1), ZNS_EMPTY);
        sec[ZNS_STATE_HDR + ZNS_STATE_REC + 8 + 1] = 0x10;
        sec[ZNS_STATE_HDR + 2 * ZNS_STATE_REC + 8] = 1;   /* zone 2 */
        CHECK_EQ(zns_state_section(y, sec, len, NULL, 0, err, sizeof(err)),
                 -1);
        CHECK_STR(err, "zone 2: an Empty zone with a write pointer");
        sec[ZNS_STATE_HDR + 2 * ZNS_STATE_REC + 8] = 0;
        CHECK_EQ(zns_state_section(y, sec, len, NULL, 0, err, sizeof(err)),
                 16);
        CHECK_EQ(zns_state_restart(y, err, sizeof(err)), 0);
        CHECK_EQ(wp(y, 1), zs + 100);
        CHECK_EQ(st(y, 1), ZNS_CLOSED);
        zns_free(y);
        fclose(g);
    }
    zns_free(z);
}

struct lost_rec {
    uint32_t n;
    uint32_t zone[8];
    uint64_t from[8], to[8];
};

static void lost_cb(void *opaque, uint32_t zone, uint64_t from, uint64_t to)
{
    struct lost_rec *l = opaque;

    if (l->n < 8) {
        l->zone[l->n] = zone;
        l->from[l->n] = from;
        l->to[l->n] = to;
    }
    l->n++;
}

/*
 * The zoned write cache: a write completes at its arrival and reaches
 * NAND in order behind the older ones; a full cache waits; Flush, FUA
 * and Finish wait for NAND; a reset zone's cached writes are dropped (a
 * power cut leaves it Empty); a power cut rolls each zone's write
 * pointer back to its durable point; turned off, writes wait again.
 */
static void test_wcache(void)
{
    struct zns_config c;
    struct zns *z;
    struct zns_wc_counters k;
    struct lost_rec l = { 0 };
    char err[256] = "";
    uint64_t zs = 4096, t = 1000000000ull, done;

    zcfg(&c);
    c.nand.write_cache_mb = 64;
    refused(&c, "write_cache_mb=64 exceeds the zoned namespace (32 MiB)");
    c.nand.write_cache_mb = 1;      /* 256 pages of 4 KiB */
    z = mkz(&c);
    CHECK_EQ(zns_wcache_pages(z), 256);
    CHECK(zns_wcache_on(z));
    /* 64 blocks, 8 pages over the zone's 2 LUNs: done at the arrival,
     * on NAND after 4 programs */
    CHECK_EQ(zns_write(z, 0, 64, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t);
    CHECK_EQ(zns_wcache_dirty(z, t), 8);
    CHECK_EQ(zns_wcache_zone_flush(z, 0, t), t + 4 * WR);
    CHECK_EQ(zns_wcache_zone_flush(z, 1, t), t);
    CHECK_EQ(zns_wcache_flush(z, t), t + 4 * WR);
    /* 256 more pages do not fit beside the 8: the write waits until the
     * first is on NAND */
    CHECK_EQ(zns_write(z, zs, 2048, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t + 4 * WR);
    zns_wcache_counters(z, &k);
    CHECK_EQ(k.full_waits, 1);
    CHECK_EQ(k.pages_cached, 264);
    /* all on NAND later: nothing left to lose */
    t += 1000 * WR;
    CHECK_EQ(zns_wcache_dirty(z, t), 0);
    CHECK_EQ(zns_wcache_flush(z, t), t);
    CHECK_EQ(zns_wcache_power_cut(z, t, lost_cb, &l), 0);
    CHECK_EQ(l.n, 0);
    CHECK_EQ(wp(z, 0), 64);

    /* zone 0 gets 64 more blocks, zone 1 64 at its write pointer, zone 2
     * 64 then a reset, zone 3 64 then a Finish (which waits for them) */
    CHECK_EQ(zns_write(z, 64, 64, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t);
    CHECK_EQ(zns_write(z, zs + 2048, 64, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(zns_write(z, 2 * zs, 64, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(act(z, 2, ZNS_ACT_RESET), ZNS_OK);
    CHECK_EQ(zns_write(z, 3 * zs, 64, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(zns_zone_action(z, 3, false, ZNS_ACT_FINISH, t, &done), ZNS_OK);
    CHECK(done > t);
    CHECK_EQ(done, zns_wcache_zone_flush(z, 3, t));
    CHECK_EQ(st(z, 3), ZNS_FULL);
    zns_wcache_counters(z, &k);
    CHECK_EQ(k.pages_dropped, 8);
    /* the power goes at once: every write since t is lost */
    CHECK_EQ(zns_wcache_power_cut(z, t, lost_cb, &l), 24);
    CHECK_EQ(l.n, 3);
    CHECK_EQ(l.zone[0], 0);
    CHECK_EQ(l.from[0], 64);
    CHECK_EQ(l.to[0], 128);
    CHECK_EQ(l.zone[1], 1);
    CHECK_EQ(l.from[1], zs + 2048);
    CHECK_EQ(l.to[1], zs + 2112);
    CHECK_EQ(l.zone[2], 3);
    CHECK_EQ(l.from[2], 3 * zs);
    CHECK_EQ(wp(z, 0), 64);
    CHECK_EQ(st(z, 0), ZNS_CLOSED);
    CHECK_EQ(wp(z, 1), zs + 2048);
    CHECK_EQ(st(z, 1), ZNS_CLOSED);
    /* the reset zone got nothing back */
    CHECK_EQ(wp(z, 2), 2 * zs);
    CHECK_EQ(st(z, 2), ZNS_EMPTY);
    /* the Finish did not complete: nothing of zone 3 is durable */
    CHECK_EQ(wp(z, 3), 3 * zs);
    CHECK_EQ(st(z, 3), ZNS_EMPTY);
    CHECK_EQ(zns_nr_open(z), 0);
    CHECK_EQ(zns_nr_active(z), 2);
    /* the host goes on from the durable write pointers */
    CHECK_EQ(wr(z, 128, 8), ZNS_ERR_INVALID_WRITE);
    CHECK_EQ(zns_write(z, 64, 64, false, t, NULL, &done), ZNS_OK);
    /* turned off: the cache destages, writes wait for NAND again */
    done = zns_wcache_set(z, false, t);
    CHECK(done > t);
    CHECK(!zns_wcache_on(z));
    t += 1000 * WR;
    CHECK_EQ(zns_write(z, 128, 64, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t + 4 * WR);
    CHECK_EQ(zns_wcache_set(z, true, t), t);
    CHECK_EQ(zns_write(z, 192, 64, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t);
    (void)err;
    zns_free(z);

    /* write_cache_mb=0 (the default): no cache, nothing changes */
    zcfg(&c);
    z = mkz(&c);
    CHECK_EQ(zns_wcache_pages(z), 0);
    CHECK(!zns_wcache_on(z));
    CHECK_EQ(zns_wcache_set(z, true, t), t);
    CHECK(!zns_wcache_on(z));
    CHECK_EQ(zns_write(z, 0, 64, false, t, NULL, &done), ZNS_OK);
    CHECK_EQ(done, t + 4 * WR);
    zns_free(z);
}

/*
 * Wear: a reset of a written zone erases its blocks once; with
 * pe_cycles=2 the third reset of a zone finds it worn out and takes it
 * Offline (listed as changed), and the figures follow.
 */
static void test_wear(void)
{
    struct zns_config c;
    struct ftl_wear_info w;
    uint32_t ids[ZNS_CHANGED_ZONES_MAX];
    struct zns *z;
    uint64_t zb;

    zcfg(&c);
    c.nand.pe_cycles = 2;
    z = mkz(&c);
    zb = zns_zone_blocks(z);
    zns_get_wear(z, &w);
    CHECK_EQ(w.pct_used, 0);
    CHECK_EQ(w.spare_pcent, 100);
    /* an empty zone's reset erases nothing */
    CHECK_EQ(act(z, 0, ZNS_ACT_RESET), ZNS_OK);
    CHECK_EQ(zns_zone_erases(z, 0), 0);
    for (int round = 1; round <= 2; round++) {
        CHECK_EQ(wr(z, 0, 8), ZNS_OK);
        CHECK_EQ(act(z, 0, ZNS_ACT_RESET), ZNS_OK);
        CHECK_EQ(zns_zone_erases(z, 0), (uint32_t)round);
        CHECK_EQ(st(z, 0), ZNS_EMPTY);
    }
    CHECK_EQ(wr(z, zb, 8), ZNS_OK);
    CHECK_EQ(act(z, 1, ZNS_ACT_RESET), ZNS_OK);
    zns_get_wear(z, &w);
    CHECK_EQ(w.erase_min, 0);
    CHECK_EQ(w.erase_max, 2);
    /* 3 erases over 16 zones of 2 cycles: 9% */
    CHECK_EQ(w.pct_used, 3 * 100 / (16 * 2));
    CHECK_EQ(w.retired_lines, 0);
    CHECK_EQ(zns_changed_zones(z, ids, ZNS_CHANGED_ZONES_MAX), 0);
    /* the third erase of zone 0 fails: Offline, its blocks grown bad */
    CHECK_EQ(wr(z, 0, 8), ZNS_OK);
    CHECK_EQ(act(z, 0, ZNS_ACT_RESET), ZNS_OK);
    CHECK_EQ(st(z, 0), ZNS_OFFLINE);
    CHECK_EQ(zns_zone_erases(z, 0), 2);
    CHECK_EQ(zns_worn_zones(z), 1);
    CHECK_EQ(zns_changed_zones(z, ids, ZNS_CHANGED_ZONES_MAX), 1);
    CHECK_EQ(ids[0], 0);
    CHECK_EQ(wr(z, 0, 8), ZNS_ERR_OFFLINE);
    zns_get_wear(z, &w);
    CHECK_EQ(w.retired_lines, 1);
    /* every block of the 2 MiB zone: 8 of 256 KiB */
    CHECK_EQ(w.grown_bad_blocks, 8);
    CHECK_EQ(w.spare_pcent, 15 * 100 / 16);
    CHECK_EQ(w.read_only, false);
    zns_free(z);
}

int main(void)
{
    RUN(test_config);
    RUN(test_write_states);
    RUN(test_actions);
    RUN(test_resources);
    RUN(test_timing);
    RUN(test_changed_list);
    RUN(test_zrwa);
    RUN(test_zdext);
    RUN(test_zrwa_timing);
    RUN(test_state);
    RUN(test_wcache);
    RUN(test_wear);
    return test_done("ftl-zns");
}
