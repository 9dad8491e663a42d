/*
 * FEMU zoned namespace model: zones over the NAND timing model.
 *
 * Plain C (no QEMU headers), part of the FTL library: compiled into the
 * `femu` device (femu_mode=3) and into the unit tests.  No globals.
 *
 * A zone is a set of erase blocks: k blocks on each plane of `zone_luns`
 * LUNs (a LUN group).  Zone pages stripe over the group's LUNs first, so
 * one zone's consecutive pages program in parallel, and consecutive zones
 * sit on different LUN groups, so zones written at once run in parallel
 * too.  The host writes at the write pointer only; there is no mapping
 * table and no device-side GC.  A reset erases the zone's blocks.
 *
 * Zone states and transitions follow the NVMe Zoned Namespace Command
 * Set specification (zone state machine, open and active resources).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_FEMU_ZNS_H
#define HW_FEMU_ZNS_H

#include <stdio.h>

#include "hw/femu/ftl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Zone states, with the Zone State field values of a zone descriptor. */
enum zns_state {
    ZNS_EMPTY = 0x1,
    ZNS_IMPLICIT_OPEN = 0x2,
    ZNS_EXPLICIT_OPEN = 0x3,
    ZNS_CLOSED = 0x4,
    ZNS_READ_ONLY = 0xd,
    ZNS_FULL = 0xe,
    ZNS_OFFLINE = 0xf,
};

/* Zone Send Actions (the values of Zone Management Send's ZSA). */
enum zns_action {
    ZNS_ACT_CLOSE = 0x1,
    ZNS_ACT_FINISH = 0x2,
    ZNS_ACT_OPEN = 0x3,
    ZNS_ACT_RESET = 0x4,
    ZNS_ACT_OFFLINE = 0x5,
};

/* Outcome of a zone operation; the device maps each to its status code. */
enum zns_result {
    ZNS_OK = 0,
    ZNS_ERR_LBA_RANGE,          /* outside the namespace */
    ZNS_ERR_INVALID_FIELD,      /* e.g. append not at a zone start */
    ZNS_ERR_BOUNDARY,           /* would cross the zone's capacity */
    ZNS_ERR_FULL,               /* Zone Is Full */
    ZNS_ERR_READ_ONLY,          /* Zone Is Read Only */
    ZNS_ERR_OFFLINE,            /* Zone Is Offline */
    ZNS_ERR_INVALID_WRITE,      /* not at the write pointer */
    ZNS_ERR_TOO_MANY_ACTIVE,
    ZNS_ERR_TOO_MANY_OPEN,
    ZNS_ERR_INVALID_TRANSITION,
    ZNS_ERR_INVALID_ZONE_OP,    /* Invalid Zone Operation (ZRWA rules) */
    ZNS_ERR_NO_ZRWA,            /* Zone ZRWA Resources Unavailable */
};

struct zns_config {
    /* geometry and NAND times; the GC, sizing and FDP fields are unused:
     * the namespace is every zone the NAND holds */
    struct ftl_config nand;
    uint32_t zone_luns;     /* LUNs one zone stripes over */
    uint64_t zone_size_mb;  /* zone size, MiB; 0: one erase block per
                             * plane of each of the zone's LUNs */
    uint64_t zone_cap_mb;   /* writable part of a zone, MiB; 0: size */
    uint32_t max_open;      /* open zones at most; 0: no limit */
    uint32_t max_active;    /* open + closed zones at most; 0: no limit */
    /* Zone Random Write Area: a window of zrwa_blocks logical blocks from
     * the write pointer that takes writes anywhere and overwrites; the
     * write pointer moves (commits) in whole zrwafg_blocks units; at most
     * zrwa_num zones hold one.  zrwa_blocks 0: no ZRWA. */
    uint32_t zrwa_blocks;
    uint32_t zrwafg_blocks;
    uint32_t zrwa_num;
};

struct zns_counters {
    uint64_t host_pages_written;     /* NAND pages the host's writes cover */
    uint64_t host_pages_programmed;  /* NAND pages programmed for them */
    uint64_t host_pages_read;        /* pages read below a write pointer */
    uint64_t zone_resets;            /* resets of a zone that was written */
    uint64_t blocks_erased;          /* erase blocks those resets erased */
};

struct zns_zone_info {
    enum zns_state state;
    uint64_t zslba;         /* first logical block */
    uint64_t wp;            /* write pointer (logical block) */
    uint64_t zcap;          /* capacity, logical blocks */
    bool zrwa;              /* a ZRWA is allocated (attribute ZRWAV) */
    bool zdev;              /* a descriptor extension is set (ZDEV) */
};

struct zns;

/* Defaults: ftl_config_default() geometry, zone_luns 4, one block per
 * plane per LUN, no open/active limit. */
void zns_config_default(struct zns_config *cfg);
/* 0, or -1 with a one-line message naming the property in err. */
int zns_config_validate(const struct zns_config *cfg, char *err,
                        size_t errlen);
struct zns *zns_new(const struct zns_config *cfg, char *err, size_t errlen);
/*
 * FEMU's zoned properties that reach the model through another value,
 * checked alike by the device and femu-sim: each 0, or -1 with the
 * device's one-line message naming the property in err.
 *   zns_check_zrwa_ext: zns_zrwa_size, zns_zrwafg_size, zns_zrwa_num
 *     (up to 65535 blocks, granules dividing the size, at least one
 *     ZRWA resource; none of them without zns_zrwa_size) and
 *     zns_zd_ext_size (a multiple of 64 up to 16320); the zone capacity
 *     bound is zns_config_validate()'s.
 *   zns_zone_cap_prop: bytes (a whole number of MiB) into *zone_cap_mb
 *     (left alone for 0).
 *   zns_chnls_per_zone_prop: channels dividing nchs; *zone_luns =
 *     chnls x luns_per_ch (left alone for 0).
 *   zns_flash_type_prop: 1..4 into *cell_type, refused when
 *     nand_cell_type was given (cell_given) as another type.
 *   zns_zasl_bs_prop: 0 or 4096 x 2^n bytes; *zasl = n (0 for 0).
 */
/* Why zns_num_conv_zones other than 0 is refused. */
#define ZNS_CONV_ZONES_WHY \
    "conventional zones make Linux reject the whole zone report (FEMU " \
    "upstream's README says so); use a BlackBox namespace for " \
    "conventional space"
int zns_check_zrwa_ext(uint64_t zrwa_size, uint64_t zrwafg_size,
                       uint32_t zrwa_num, uint32_t zd_ext_size, char *err,
                       size_t errlen);
int zns_zone_cap_prop(uint64_t bytes, uint64_t *zone_cap_mb, char *err,
                      size_t errlen);
int zns_chnls_per_zone_prop(uint64_t chnls, uint32_t nchs,
                            uint32_t luns_per_ch, uint32_t *zone_luns,
                            char *err, size_t errlen);
int zns_flash_type_prop(int64_t type, bool cell_given, uint32_t *cell_type,
                        char *err, size_t errlen);
int zns_zasl_bs_prop(uint64_t bs, uint8_t *zasl, char *err, size_t errlen);
void zns_free(struct zns *z);

uint64_t zns_ns_blocks(const struct zns *z);
uint32_t zns_nr_zones(const struct zns *z);
uint64_t zns_zone_blocks(const struct zns *z);   /* zone size, blocks */
uint64_t zns_zone_cap_blocks(const struct zns *z);
uint32_t zns_nr_open(const struct zns *z);
uint32_t zns_nr_active(const struct zns *z);
void zns_zone_info(const struct zns *z, uint32_t zone,
                   struct zns_zone_info *info);
/* The global LUN (channel-first numbering) holding page `page` of the
 * zone (page = offset in the zone / logical blocks per NAND page). */
uint32_t zns_page_lun(const struct zns *z, uint32_t zone, uint64_t page);

/*
 * Write nlb blocks at slba.  With append, slba must be a zone's first
 * block and the data goes to that zone's write pointer, returned in
 * *alba.  The zone opens implicitly when it was Empty or Closed (an
 * implicitly opened zone is closed to make room when the open limit is
 * reached) and becomes Full when its write pointer reaches the capacity.
 * *done: when the last page program finishes (never before now).  On an
 * error nothing changes.
 */
enum zns_result zns_write(struct zns *z, uint64_t slba, uint32_t nlb,
                          bool append, uint64_t now, uint64_t *alba,
                          uint64_t *done);
/* The same checks without writing: ZNS_OK when zns_write() with the
 * same arguments would succeed now; *start = the first block it would
 * write (the write pointer for an append). */
enum zns_result zns_write_check(const struct zns *z, uint64_t slba,
                                uint32_t nlb, bool append, uint64_t *start);
/* Read: pages below a write pointer occupy their LUN; the rest cost no
 * NAND time (the data is zeroes).  Reads may cross zones. */
enum zns_result zns_read(struct zns *z, uint64_t slba, uint32_t nlb,
                         uint64_t now, uint64_t *done);
/*
 * Zone Management Send action on one zone, or on every zone the action
 * applies to with all (select all: close acts on open zones, finish on
 * open and closed ones, open on closed ones, reset on open, closed and
 * full ones, offline on read-only ones; an open of all fails as a whole
 * when the closed zones exceed the open resources).  A reset erases the
 * zone's blocks (*done: when the last erase finishes).
 */
enum zns_result zns_zone_action(struct zns *z, uint32_t zone, bool all,
                                enum zns_action act, uint64_t now,
                                uint64_t *done);
/*
 * Zone Random Write Area (only with zrwa_blocks set).  A write to a zone
 * with a ZRWA may start anywhere in [wp, wp + zrwa_blocks) and end at
 * most zrwa_blocks further (the implicit commit region); it lands in the
 * controller's buffer (no NAND program, overwrites are free).  When it
 * ends past wp + zrwa_blocks the write pointer moves by the fewest whole
 * zrwafg_blocks units that bring the write's end inside the window
 * (implicit commit).  A commit, implicit or explicit, programs the NAND
 * pages it completes; a Finish programs the rest of the written data.
 * A Zone Append to such a zone is Invalid Zone Operation.
 *
 * zns_zone_open_zrwa: Open Zone with ZRWAA set: the zone opens
 * explicitly with a ZRWA (ZNS_ERR_INVALID_ZONE_OP without ZRWA support,
 * ZNS_ERR_NO_ZRWA when all zrwa_num are taken or the write pointer is
 * not on a zrwafg_blocks boundary of the zone).  The ZRWA stays through
 * Close and is released by Finish, Reset and Read Only/Offline.
 */
enum zns_result zns_zone_open_zrwa(struct zns *z, uint32_t zone);
/*
 * Commit Zone (explicit ZRWA flush) up to and including logical block
 * elba: ZNS_ERR_INVALID_ZONE_OP without ZRWA support, INVALID_FIELD when
 * the zone has no ZRWA or elba + 1 - wp is not a whole number of
 * zrwafg_blocks, BOUNDARY when elba is outside [wp, wp + zrwa_blocks) or
 * past the zone capacity.  *done: when the programs finish.
 */
enum zns_result zns_zrwa_commit(struct zns *z, uint64_t elba, uint64_t now,
                                uint64_t *done);
uint32_t zns_nr_zrwa(const struct zns *z);
/*
 * Set Zone Descriptor Extension's zone transition: an Empty zone becomes
 * Closed (an active resource: ZNS_ERR_TOO_MANY_ACTIVE) with ZDEV set;
 * any other state is ZNS_ERR_INVALID_TRANSITION.  A reset clears ZDEV.
 * The extension's bytes are the caller's.
 */
enum zns_result zns_zone_set_zdext(struct zns *z, uint32_t zone);

/*
 * Controller-initiated zone changes (media failure injection): the zone
 * becomes Read Only (from any state but Offline) or Offline (from any
 * state), giving back its open and active resources.  Each such change
 * is a Zone Descriptor Changed event: the zone joins the changed zone
 * list (once, however often it changes).  Returns true when the zone
 * changed (the device may raise the asynchronous event), false when
 * nothing changed (the zone already was in that state, or a read-only
 * request for an Offline zone).
 */
bool zns_zone_set_read_only(struct zns *z, uint32_t zone);
bool zns_zone_set_offline(struct zns *z, uint32_t zone);

/* Zone identifiers the Changed Zone List log page holds at most. */
#define ZNS_CHANGED_ZONES_MAX 511
/*
 * The changed zone list: up to max zone numbers, oldest change first,
 * into zones; returns how many zones changed since the list was last
 * cleared (more than max when it overflowed).
 */
uint32_t zns_changed_zones(const struct zns *z, uint32_t *zones,
                           uint32_t max);
void zns_changed_clear(struct zns *z);
/*
 * Take entries first .. first + count - 1 off a list that did not
 * overflow (the ones a Get Log Page with RAE cleared transferred); the
 * rest keep their order.
 */
void zns_changed_consume(struct zns *z, uint32_t first, uint32_t count);

/* Wear (as ftl_get_wear): a zone's blocks are erased together at its
 * reset; one erased pe_cycles times goes Offline at its next reset (worn
 * out).  No spare: Available Spare is the share of zones not worn out. */
void zns_get_wear(const struct zns *z, struct ftl_wear_info *w);
uint32_t zns_worn_zones(const struct zns *z);
uint32_t zns_zone_erases(const struct zns *z, uint32_t zone);
void zns_get_counters(const struct zns *z, struct zns_counters *c);
void zns_reset_counters(struct zns *z);
/* WAF x 1000 as log page C0h reports it: 1000 when nothing was written. */
uint32_t zns_waf_x1000(const struct zns *z);
/* Run-time controls (admin opcode 0xEF codes 3 and 4). */
void zns_set_delay_mode(struct zns *z, enum ftl_delay_mode mode);


/*
 * State files (docs/state.md): the zone table of a zoned namespace as
 * ZONE sections of a state file's generation (format 6), after the
 * namespace's NS section; every generation holds the whole table, so
 * the last complete one describes the zones (the host data goes in the
 * namespace's DATA and TRIM sections, as for any namespace).  Payload:
 *   u32 nsid, u32 zones of the namespace, u64 zone size and u64 zone
 *   capacity (logical blocks), u32 first zone, u32 count, u32 extension
 *   bytes per zone (zns_zd_ext_size), u32 0, the five counters of
 *   struct zns_counters (u64 each), then count records of
 *   ZNS_STATE_REC + extension bytes: u8 zone state, u8 flags
 *   (ZNS_STATE_F_*), u16 0, u32 erases of the zone's blocks (wear), u64
 *   write pointer, u64 end of the written data, u64 zone pages programmed (ZRWA), the extension.
 * The changed zone list is not kept (a restart clears it, as the host's
 * reads of it would).
 */
#define ZNS_STATE_HDR 80u
#define ZNS_STATE_REC 32u
#define ZNS_STATE_F_PROGRAMMED 0x1  /* a page programmed since the erase */
#define ZNS_STATE_F_ZRWA       0x2  /* a ZRWA is allocated */
#define ZNS_STATE_F_ZDEV       0x4  /* a descriptor extension is set */
/*
 * Write z's ZONE sections (tag FTL_STATE_SEC_ZONE) to f, at most max
 * bytes each; ext: ext_size bytes per zone (NULL when ext_size is 0).
 * 0, or -1 with a message.
 */
int zns_state_write(const struct zns *z, uint32_t nsid, const uint8_t *ext,
                    uint32_t ext_size, uint64_t max, FILE *f, char *err,
                    size_t errlen);
/* The nsid of a ZONE section's payload (0 when too short). */
uint32_t zns_state_nsid(const uint8_t *p, uint64_t len);
/*
 * Take one ZONE section into z (and its extensions into ext): the zone
 * count, size, capacity and extension size must be z's (else a one-line
 * "configuration mismatch" naming the property), every record one the
 * model can hold.  The zones keep the saved states until
 * zns_state_restart().  Returns the zones it held, or -1 with a message.
 */
int64_t zns_state_section(struct zns *z, const uint8_t *p, uint64_t len,
                          uint8_t *ext, uint32_t ext_size, char *err,
                          size_t errlen);
/*
 * After the last section: the zones as a drive finds them after a clean
 * shutdown.  Implicitly and Explicitly Opened zones become Closed (an
 * open zone with nothing written, no ZRWA and no extension becomes
 * Empty, as a Close would make it); the open, active and ZRWA counts are
 * recounted and must fit the limits (else a one-line message naming
 * zns_max_active or zns_zrwa_num); the changed zone list is empty.
 * 0, or -1.
 */
int zns_state_restart(struct zns *z, char *err, size_t errlen);


/*
 * The zoned write cache (write_cache_mb > 0 in cfg.nand; off when 0, the
 * default): writes to zones without a ZRWA complete once their data is
 * in the cache, and reach NAND in the background in arrival order
 * (hw/femu/ftl/zone-wcache.c).  A full cache makes a write wait for room.
 * Finish waits for the zone's cached data; Reset (and a zone going
 * Offline) drops it.
 */
struct zns_wc_counters {
    uint64_t pages_cached;      /* pages host writes put into the cache */
    uint64_t full_waits;        /* writes that waited for room */
    uint64_t flushes;           /* Flush commands (zns_wcache_flush) */
    uint64_t pages_dropped;     /* cached pages of zones reset or offline */
    uint64_t pages_lost;        /* cached pages power cuts lost */
};
/* Cache size in NAND pages (0: no cache). */
uint64_t zns_wcache_pages(const struct zns *z);
bool zns_wcache_on(const struct zns *z);
/* Volatile Write Cache on or off; off destages what it holds: the time
 * that is done. */
uint64_t zns_wcache_set(struct zns *z, bool on, uint64_t now);
/* Flush: when everything cached by now is on NAND. */
uint64_t zns_wcache_flush(struct zns *z, uint64_t now);
/* When the zone's cached data is on NAND (FUA: the write just made). */
uint64_t zns_wcache_zone_flush(struct zns *z, uint32_t zone, uint64_t now);
/* Pages in the cache not on NAND by now. */
uint64_t zns_wcache_dirty(struct zns *z, uint64_t now);
/*
 * Power cut at now: every cached write not on NAND is lost.  In each
 * zone that lost data the write pointer (and the data's end) goes back
 * to where its oldest lost write started, the durable point; lost() is
 * told the blocks [from, to) that no longer hold data.  Such a zone is
 * Closed afterwards (Empty when nothing in it is durable and it has no
 * descriptor extension), as the controller's restart finds it; Read Only
 * and Offline zones keep their state.  Returns the pages lost.
 */
uint64_t zns_wcache_power_cut(struct zns *z, uint64_t now,
                              void (*lost)(void *opaque, uint32_t zone,
                                           uint64_t from, uint64_t to),
                              void *opaque);
void zns_wcache_counters(const struct zns *z, struct zns_wc_counters *c);

#ifdef __cplusplus
}
#endif

#endif /* HW_FEMU_ZNS_H */
