/*
 * FEMU: the `femu` and `femu-subsys` properties, one row each.
 *
 * The rows (struct femu_prop, include/hw/femu/ftl-props.h) are the FTL's
 * own (ftl_props[], fields of FemuCtrl.cfg) followed by the device's
 * below.  From them class_init makes the QOM properties (so `-device
 * femu,help` shows each row's help and default), realize checks the
 * limits, and tests/config/props-doc.t checks docs/properties.md.
 *
 * FEMU upstream's property names (tests/data/femu-upstream-props.txt)
 * are all rows too: the same name where this project has the property,
 * an alias where it spells it otherwise, a conversion where the unit
 * differs (femu_props_upstream), or a refusal that says why when the
 * model behind it is not here.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/cutils.h"
#include "qemu/units.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "hw/core/qdev-prop-internal.h"
#include "femu.h"

/* The field of a row that has none in FemuCtrl: a slot of n->compat. */
#define COMPAT SIZE_MAX

#define DEV(f) offsetof(FemuCtrl, f)
#define ROW(kind_, name_, off_, def_, min_, max_, help_, ...) \
    { .name = (name_), .kind = FEMU_PROP_##kind_, .off = (off_), \
      .def = (def_), .min = (min_), .max = (max_), .help = (help_), \
      __VA_ARGS__ }
/* a number checked elsewhere (its limits depend on other properties) */
#define FREE_ROW(kind_, name_, off_, def_, help_, ...) \
    ROW(kind_, name_, off_, def_, 0, 0, help_, \
        .flags = FEMU_PROP_NO_LIMITS, ##__VA_ARGS__)
#define STR_ROW(name_, off_, help_) \
    FREE_ROW(STR, name_, off_, 0, help_)
/* FEMU upstream's name for a property this project spells otherwise */
#define ALIAS(kind_, name_, of_, off_) \
    ROW(kind_, name_, off_, 0, 0, 0, "FEMU upstream's name for " of_, \
        .alias_of = (of_), \
        .flags = FEMU_PROP_NO_LIMITS | FEMU_PROP_NO_DEFAULT)
/* FEMU upstream's property whose value other than the default is refused */
#define FIXED(kind_, name_, def_, help_, why_) \
    FREE_ROW(kind_, name_, COMPAT, def_, help_, .refuse = (why_))
/* FEMU upstream's property refused whatever its value */
#define GONE(kind_, name_, def_, why_) \
    ROW(kind_, name_, COMPAT, def_, 0, 0, "FEMU upstream only: " why_, \
        .refuse = (why_), \
        .flags = FEMU_PROP_NO_LIMITS | FEMU_PROP_REFUSE_ANY)

#define WHY_OCSSD "Open-Channel SSD mode is not provided: Linux removed " \
                  "lightnvm, its only host driver, in 5.15"
#define WHY_CSD "computational storage mode is not provided"
#define WHY_META "logical blocks carry no metadata or protection " \
                 "information here"
#define WHY_FTL_MODEL(what) what " is not modelled yet (FTL models)"
#define WHY_RELIABILITY(what) what " is not modelled yet (wear, bad " \
                              "blocks and faults)"
#define WHY_ONFI "FEMU's ONFI timing breakdown is not modelled: the NAND " \
                 "times are pg_rd_lat, pg_wr_lat, blk_er_lat and ch_xfer_lat"

static FemuProp femu_dev_rows[] = {
    FREE_ROW(U32, "femu_mode", DEV(params.femu_mode), FEMU_MODE_BBSSD,
             "1 = BlackBox SSD (device-side FTL, GC, NAND timing), 2 = NoSSD "
             "(no FTL, no delays), 3 = Zoned Namespace SSD (zones over the "
             "NAND timing model); others are refused"),
    FREE_ROW(I32, "gc_strategy", DEV(params.gc_strategy), -1,
             "numeric alias of gc_policy: 0 greedy, 1 cost-benefit, 2 fifo, "
             "3 random, 4 d-choice (-1 = unset)"),
    /* controller */
    STR_ROW("serial", DEV(params.serial),
            "serial number, 1..20 characters (default vSSD<n>, n = "
            "instance)"),
    ROW(U32, "queues", DEV(params.queues), 8, 1, FEMU_MAX_IOQPAIRS,
        "I/O queue pairs offered to the host (1..64)"),
    ROW(U32, "pollers", DEV(params.npollers), 1, 1, FEMU_MAX_POLLERS,
        "poller threads serving the I/O queues (1..16)"),
    FREE_ROW(U8, "poller_rt", DEV(params.poller_rt), 0,
             "0: pollers are normal threads; 1..99: run them SCHED_FIFO at "
             "this real-time priority (needs CAP_SYS_NICE or RLIMIT_RTPRIO; "
             "docs/measuring.md)"),
    ROW(U8, "mdts", DEV(params.mdts), 7, 1, 9,
        "maximum data transfer size: 2^mdts 4 KiB pages (1..9)",
        .limit_text = "1..9 (2^mdts 4 KiB pages)"),
    ROW(U16, "mqes", DEV(params.mqes), 0x3ff, 1, UINT16_MAX,
        "maximum queue entries, 0's based (1..65535)"),
    STR_ROW("subsys", DEV(params.subsys_id),
            "id of a femu-subsys device (FDP settings), given before this "
            "controller"),
    ROW(U32, "poller_spin_us", DEV(params.poller_spin_us), 10, 0, 1000,
        "longest time an idle poller spins for new commands before it "
        "sleeps until a doorbell (0..1000 us; the window adapts below it)"),
    FREE_ROW(BOOL, "poller_batch", DEV(params.poller_batch), true,
             "a poller that finds 2 or more commands per sleep sleeps as "
             "SCHED_BATCH while no completion is due: a doorbell wakes it "
             "without preempting a busy vCPU, so on a host with fewer free "
             "cores than threads commands gather (off: always SCHED_OTHER; "
             "docs/device.md)"),
    FREE_ROW(BOOL, "doorbell_inline", DEV(params.doorbell_inline), true,
             "while a poller sleeps with nothing pending and the I/O SQ "
             "doorbells have all come from one SQ for 1 ms, the vCPU that "
             "rings that SQ's doorbell runs its new Reads and Writes (up "
             "to 32 blocks) itself instead of waking the poller, so a QD1 "
             "guest waits for no wake-up (off: a doorbell always wakes a "
             "sleeping poller; docs/device.md)"),
    /* Zoned Namespace SSD (femu_mode=3) */
    FREE_ROW(U32, "zone_luns", DEV(params.zns_zone_luns), 4,
             "femu_mode=3: LUNs one zone stripes over; must divide nchs x "
             "luns_per_ch"),
    FREE_ROW(U64, "zone_size_mb", DEV(params.zns_zone_size_mb), 0,
             "femu_mode=3: zone size in MiB, a multiple of zone_luns x "
             "pls_per_lun erase blocks, a power of two in logical blocks "
             "(0 = one block per plane per LUN)"),
    FREE_ROW(U64, "zone_cap_mb", DEV(params.zns_zone_cap_mb), 0,
             "femu_mode=3: writable MiB of a zone, at most its size (0 = the "
             "zone size)"),
    FREE_ROW(U32, "max_open", DEV(params.zns_max_open), 0,
             "femu_mode=3: open zones at most (0 = no limit; at most "
             "max_active)"),
    FREE_ROW(U32, "max_active", DEV(params.zns_max_active), 0,
             "femu_mode=3: open + closed zones at most (0 = no limit; needs "
             "max_open set)"),
    FREE_ROW(U8, "zasl", DEV(params.zns_zasl), 0,
             "femu_mode=3: Zone Append Size Limit, 2^zasl 4 KiB pages (0 = "
             "mdts; at most mdts)"),
    FREE_ROW(BOOL, "zns_cross_zone_read", DEV(params.zns_cross_zone_read),
             true,
             "femu_mode=3: reads may cross a zone boundary (on; Identify "
             "OZCS.RAZB set) or are refused with Zone Boundary Error (off, "
             "FEMU upstream's default)"),
    FREE_ROW(UUID, "uuid", DEV(params.uuid), 0,
             "namespace UUID (Identify descriptor 03h): \"auto\" = a random "
             "one per run, or xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx; all "
             "zeroes = none"),
    STR_ROW("state", DEV(params.state_path),
            "state file: the SSD (FTL and data) is loaded from it at start "
            "when it exists and saved to it when QEMU quits "
            "(docs/state.md; femu_mode=1)"),
    FREE_ROW(U64, "power_cut_after", DEV(params.power_cut_after), 0,
             "cut the power once this many write commands have executed: "
             "the write cache's pages not on NAND are lost, the controller "
             "fails until a reset (docs/write-cache.md; 0 = never)"),
    STR_ROW("io_trace", DEV(params.io_trace_path),
            "I/O trace file: every command that reaches the FTL is recorded "
            "to it for femu-sim --replay (docs/trace.md; femu_mode=1; 0xEF "
            "codes 10/11 start and stop it)"),
    FREE_ROW(BOOL, "ns_mgmt", DEV(params.ns_mgmt), false,
             "Namespace Management and Attachment: nvme create-ns, delete-ns, "
             "attach-ns, detach-ns on the FTL's free capacity (femu_mode=1; "
             "docs/namespaces.md)"),

    /* FEMU upstream's names: namespaces and controller */
    ROW(U32, "namespaces", DEV(params.namespaces), 1, 1,
        FEMU_MAX_NAMESPACES,
        "namespaces on the controller, NSIDs 1..N (1..16; docs/namespaces.md)"),
    STR_ROW("namespace_sizes", DEV(params.namespace_sizes),
            "sizes of the namespaces, comma-separated, whole MiB (e.g. 4G,,2G); "
            "an empty entry shares what devsz_mb leaves equally (one "
            "namespace: its size, as devsz_mb)"),
    STR_ROW("namespace_modes", DEV(params.namespace_modes),
            "FEMU upstream's per-namespace modes, comma-separated: bbssd "
            "(femu_mode=1), nossd (2) or znssd (3); one per namespace"),
    ALIAS(U16, "entries", "mqes", DEV(params.mqes)),
    FIXED(U8, "multipoller_enabled", 0,
          "FEMU upstream: 1 = ceil(queues / poller_ratio) pollers, each "
          "serving its share of the queues (sets pollers; 0 = leave pollers "
          "as given)", NULL),
    FIXED(U32, "poller_ratio", 1,
          "FEMU upstream: queues per poller with multipoller_enabled=1 "
          "(1..)", NULL),
    FREE_ROW(BOOL, "hiops_inline", DEV(params.hiops_inline), false,
             "NoSSD namespaces: the poller posts a command's completion in "
             "its fetch sweep, without queuing it (FEMU upstream's default "
             "is on; off here)"),
    FIXED(U8, "max_cqes", FEMU_CQES,
          "FEMU upstream: log2 of the CQ entry size (4 = 16 bytes, fixed)",
          "completion queue entries are 16 bytes (Identify CQES 4)"),
    FIXED(U8, "max_sqes", FEMU_SQES,
          "FEMU upstream: log2 of the SQ entry size (6 = 64 bytes, fixed)",
          "submission queue entries are 64 bytes (Identify SQES 6)"),
    FIXED(U8, "stride", 0,
          "FEMU upstream: doorbell stride CAP.DSTRD (0 = 4 bytes, fixed)",
          "the doorbell stride is 4 bytes (CAP.DSTRD 0)"),
    FIXED(U8, "aerl", FEMU_AERL,
          "FEMU upstream: Asynchronous Event Request Limit, 0's based (3, "
          "fixed)", "at most 4 Asynchronous Event Requests (AERL 3)"),
    FIXED(U8, "acl", 3,
          "FEMU upstream: Abort Command Limit, 0's based (3, fixed)",
          "the Abort Command Limit is 3 (4 aborts)"),
    FIXED(U8, "elpe", FEMU_ELPE,
          "FEMU upstream: Error Log Page Entries, 0's based (3, fixed)",
          "the error log holds 4 entries (ELPE 3)"),
    FIXED(U8, "cqr", 1,
          "FEMU upstream: CAP.CQR, queues must be physically contiguous (1, "
          "fixed)", "queues must be physically contiguous (CAP.CQR 1)"),
    FREE_ROW(U8, "vwc", DEV(params.vwc), 1,
             "Identify VWC: 1 = a volatile write cache is reported (Flush "
             "has its meaning), 0 = none reported"),
    ROW(U8, "intc", DEV(params.intc), 0, 0, 1,
        "FEMU upstream: the Coalescing Disable bit of every interrupt "
        "vector after a reset (Interrupt Vector Configuration, FID 09h): "
        "0 = Interrupt Coalescing applies to each I/O vector, 1 = to none"),
    ROW(U8, "intc_thresh", DEV(params.intc_thresh), 0, 0, 255,
        "FEMU upstream: Interrupt Coalescing (FID 08h) after a reset, "
        "Aggregation Threshold (0's based: an I/O vector interrupts once "
        "intc_thresh + 1 completions wait); 0 = no coalescing"),
    ROW(U8, "intc_time", DEV(params.intc_time), 0, 0, 255,
        "FEMU upstream: Interrupt Coalescing (FID 08h) after a reset, "
        "Aggregation Time in 100 us units (the longest a completion "
        "waits for its interrupt); 0 = no coalescing"),
    FIXED(U8, "ms", 16, "FEMU upstream: metadata bytes per block when "
          "meta is set (no metadata here)", WHY_META),
    FIXED(U8, "ms_max", 64, "FEMU upstream: largest metadata size (no "
          "metadata here)", WHY_META),
    GONE(U8, "dlfeat", 1, "DLFEAT follows the mode here: 9 (deallocated "
         "blocks read as zeroes, Write Zeroes may deallocate) for BlackBox "
         "and NoSSD, 0 for zoned"),
    FIXED(U8, "mpsmin", 0, "FEMU upstream: CAP.MPSMIN (0 = 4 KiB, fixed)",
          "the memory page size is 4 KiB (CAP.MPSMIN = MPSMAX = 0)"),
    FIXED(U8, "mpsmax", 0, "FEMU upstream: CAP.MPSMAX (0 = 4 KiB, fixed)",
          "the memory page size is 4 KiB (CAP.MPSMIN = MPSMAX = 0)"),
    FIXED(U8, "nlbaf", 2, "FEMU upstream: LBA formats offered (2 here: "
          "512 B and 4 KiB)",
          "two LBA formats are offered, 512 B and 4 KiB; choose with secsz "
          "or lba_index"),
    FREE_ROW(U8, "lba_index", COMPAT, 0,
             "FEMU upstream: LBA format i = 512 << i bytes: 0 (secsz=512) or "
             "3 (secsz=4096)"),
    FIXED(U8, "extended", 0, "FEMU upstream: extended LBAs (metadata)",
          WHY_META),
    FIXED(U8, "dpc", 0, "FEMU upstream: data protection capabilities",
          WHY_META),
    FIXED(U8, "dps", 0, "FEMU upstream: data protection settings",
          WHY_META),
    FIXED(U8, "mc", 0, "FEMU upstream: metadata capabilities", WHY_META),
    FIXED(U8, "meta", 0, "FEMU upstream: metadata bytes per block",
          WHY_META),
    FIXED(U32, "cmbsz", 0, "FEMU upstream: Controller Memory Buffer size",
          "no Controller Memory Buffer is offered"),
    FIXED(U32, "cmbloc", 0, "FEMU upstream: Controller Memory Buffer "
          "location", "no Controller Memory Buffer is offered"),
    FREE_ROW(U16, "oacs", COMPAT, 0,
             "Identify OACS: the optional admin commands reported (a subset "
             "of 0x122: Format NVM, Directives, Doorbell Buffer Config; "
             "0 = all)"),
    FREE_ROW(U16, "oncs", COMPAT, 0,
             "Identify ONCS: the optional I/O commands reported (a subset of "
             "0x1df: Compare, Write Uncorrectable, DSM, Write Zeroes, "
             "Save/Select in Features, Timestamp, Verify, Copy; 0 = all)"),
    FREE_ROW(BOOL, "sgl", DEV(params.sgl), true,
             "Scatter Gather Lists for I/O commands: data blocks, bit "
             "buckets, segments (Identify SGLS 0x10001; off = PRPs only, "
             "SGLS 0; docs/commands.md)"),
    ROW(U16, "vid", DEV(params.vid), FEMU_PCI_VENDOR_ID, 1, 0xfffe,
        "PCI vendor ID (and subsystem vendor ID)"),
    ROW(U16, "did", DEV(params.did), FEMU_PCI_DEVICE_ID, 0, 0xfffe,
        "PCI device ID (and subsystem ID)"),
    GONE(U8, "flash_type", 2, WHY_OCSSD " (flash_type sets its cell type)"),
    GONE(U8, "lver", 2, WHY_OCSSD),
    GONE(U16, "lsec_size", 4096, WHY_OCSSD),
    GONE(U8, "lsecs_per_pg", 4, WHY_OCSSD),
    GONE(U16, "lpgs_per_blk", 512, WHY_OCSSD),
    GONE(U8, "lmax_sec_per_rq", 64, WHY_OCSSD),
    GONE(U8, "lnum_ch", 2, WHY_OCSSD),
    GONE(U8, "lnum_lun", 8, WHY_OCSSD),
    GONE(U8, "lnum_pln", 2, WHY_OCSSD),
    GONE(U16, "lmetasize", 16, WHY_OCSSD),
    GONE(U64, "fdm_size", 0, WHY_CSD),
    GONE(U8, "nr_cu", 4, WHY_CSD),
    GONE(U8, "nr_thread", 4, WHY_CSD),
    GONE(U64, "time_slice", 200000, WHY_CSD),
    GONE(U64, "context_switch_time", 200, WHY_CSD),
    GONE(U16, "csf_runtime_scale", 3, WHY_CSD),
    /* FEMU upstream's zoned properties */
    ALIAS(U32, "zns_num_ch", "nchs", DEV(cfg.nchs)),
    ALIAS(U32, "zns_num_lun", "luns_per_ch", DEV(cfg.luns_per_ch)),
    ALIAS(U32, "zns_num_plane", "pls_per_lun", DEV(cfg.pls_per_lun)),
    ALIAS(U32, "zns_num_blk", "blks_per_pl", DEV(cfg.blks_per_pl)),
    ALIAS(U32, "zns_max_open", "max_open", DEV(params.zns_max_open)),
    ALIAS(U32, "zns_max_active", "max_active", DEV(params.zns_max_active)),
    FREE_ROW(I32, "zns_flash_type", COMPAT, 4,
             "FEMU upstream: the zoned namespace's cell type, 1 SLC, 2 MLC, "
             "3 TLC, 4 QLC (with femu_mode=3 it sets nand_cell_type)"),
    FIXED(U32, "zns_num_conv_zones", 0,
          "FEMU upstream: conventional zones at the start of the zoned "
          "namespace",
          ZNS_CONV_ZONES_WHY),
    FREE_ROW(SIZE, "zns_zone_cap", COMPAT, 0,
             "FEMU upstream: zone capacity in bytes, a whole number of MiB "
             "(sets zone_cap_mb; 0 = the zone size)"),
    FREE_ROW(U32, "zns_chnls_per_zone", COMPAT, 0,
             "FEMU upstream: channels one zone stripes over, dividing nchs "
             "(sets zone_luns = this x luns_per_ch; 0 = leave zone_luns)"),
    FREE_ROW(U32, "zns_zasl_bs", COMPAT, 0,
             "FEMU upstream: Zone Append size limit in bytes, 4096 x a power "
             "of two (sets zasl; 0 = mdts)"),
    /* Zone Random Write Area and zone descriptor extensions (zns.c) */
    FREE_ROW(U64, "zns_zrwa_size", DEV(params.zns_zrwa_size), 0,
             "femu_mode=3: Zone Random Write Area, logical blocks, 1..65535, "
             "a multiple of zns_zrwafg_size, at most the zone capacity (0 = "
             "no ZRWA)"),
    FREE_ROW(U64, "zns_zrwafg_size", DEV(params.zns_zrwafg_size), 0,
             "femu_mode=3: ZRWA flush granularity (write pointer steps), "
             "logical blocks, 1..65535 with zns_zrwa_size (0 without)"),
    FREE_ROW(U32, "zns_zrwa_num", DEV(params.zns_zrwa_num), 0,
             "femu_mode=3: zones that may hold a ZRWA at once, at least 1 "
             "with zns_zrwa_size (0 without)"),
    FREE_ROW(U32, "zns_zd_ext_size", DEV(params.zns_zd_ext_size), 0,
             "femu_mode=3: zone descriptor extension bytes per zone, a "
             "multiple of 64 up to 16320 (0 = none)"),
    /* FEMU upstream's FTL models */
    FIXED(I32, "ecc_step_ns", 0, "FEMU upstream: ECC time per step",
          WHY_ONFI),
    FIXED(I32, "cmd_addr_lat", 0, "FEMU upstream: command/address cycle "
          "time", WHY_ONFI),
    FIXED(I32, "pg_xfer_lat", 0, "FEMU upstream: page transfer time (here: "
          "ch_xfer_lat)", WHY_ONFI),
    FIXED(I32, "status_lat", 0, "FEMU upstream: status read time",
          WHY_ONFI),
    FIXED(I32, "tplpbsy", 0, "FEMU upstream: ONFI program busy time",
          WHY_ONFI),
    FIXED(I32, "tplrbsy", 0, "FEMU upstream: ONFI read busy time", WHY_ONFI),
    FIXED(I32, "tplebsy", 0, "FEMU upstream: ONFI erase busy time",
          WHY_ONFI),
    FIXED(I32, "trcbsy", 0, "FEMU upstream: ONFI cache read busy time",
          WHY_ONFI),
    FIXED(BOOL, "debug_ftl", false, "FEMU upstream: FTL debug printing",
          "use -trace 'femu_*' for the device's trace events"),
    ROW(U32, "err_read_unc_ppm", DEV(params.err_read_unc_ppm), 0, 0, 1000000,
        "media reads per million (Read, Compare, Verify, Copy source range) "
        "that fail with Unrecovered Read Error; 0 = none"),
    ROW(U32, "err_write_fail_ppm", DEV(params.err_write_fail_ppm), 0, 0,
        1000000, "media writes per million (Write, Copy) that fail with "
        "Write Fault, nothing written; 0 = none"),
    FIXED(I32, "fdp_trim_erase_all", 0, "FEMU upstream: test-only FDP "
          "knob (a deallocation resets the whole device)",
          "FEMU upstream's test-only knob is not provided"),
};

#define SUB(f) offsetof(FemuSubsys, f)
static FemuProp femu_subsys_rows[] = {
    FREE_ROW(BOOL, "fdp", SUB(fdp), false,
             "Flexible Data Placement on the controller that links here "
             "(on/off; needs femu_mode=1)"),
    FREE_ROW(U32, "fdp.nruh", SUB(fdp_nruh), 0,
             "reclaim unit handles = placement ids 0..nruh-1 (1..256 with "
             "fdp=on, and below the lines, blks_per_pl)"),
    FREE_ROW(U32, "fdp.nru", SUB(fdp_nru), FTL_DEFAULT_FDP_NRU,
             "reclaim units (fdp.nruh..; at most one per line is used)"),
    STR_ROW("nqn", SUB(nqn),
            "NVM subsystem name: Identify SUBNQN is nqn.2019-08.org.qemu:"
            "<nqn> (default: the controller's own nqn.2026-01.io.femu:"
            "<serial>)"),
    FIXED(U32, "fdp.nrg", 1, "reclaim groups (1)",
          "the endurance group has one reclaim group here"),
    GONE(SIZE, "fdp.runs", 96 * MiB,
         "a reclaim unit is one line here: its size follows the geometry "
         "(nchs x luns_per_ch x pls_per_lun blocks)"),
    FIXED(U32, "fdp.isolation_mode", 0, "FDP isolation mode: 0 = every handle Persistently Isolated (the only mode here)",
          "every reclaim unit handle is Persistently Isolated here (mode 0)"),
};

/* all rows of each device, made at class_init (FTL rows first) */
static FemuProp *femu_rows;
static size_t femu_nrows;
static Property *femu_qprops;
static Property *femu_subsys_qprops;
static const PropertyInfo *femu_row_base[FEMU_MAX_PROP_ROWS];
static const PropertyInfo *femu_subsys_row_base[FEMU_MAX_PROP_ROWS];

static const PropertyInfo *femu_kind_info(const FemuProp *p)
{
    switch (p->kind) {
    case FEMU_PROP_U8:
        return &qdev_prop_uint8;
    case FEMU_PROP_U16:
        return &qdev_prop_uint16;
    case FEMU_PROP_U32:
        return &qdev_prop_uint32;
    case FEMU_PROP_U64:
        return &qdev_prop_uint64;
    case FEMU_PROP_I32:
        return &qdev_prop_int32;
    case FEMU_PROP_BOOL:
        return &qdev_prop_bool;
    case FEMU_PROP_SIZE:
        return &qdev_prop_size;
    case FEMU_PROP_STR:
        return &qdev_prop_string;
    case FEMU_PROP_UUID:
        return &qdev_prop_uuid;
    case FEMU_PROP_ENUM:
        break;
    }
    g_assert_not_reached();
}

/*
 * Every property's setter: the base type's, then a note that the user
 * gave it (n->prop_given), so that aliases, conversions and refusals act
 * only on what the command line said.
 */
static void femu_prop_set_given(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    ERRP_GUARD();
    const Property *prop = opaque;
    const PropertyInfo *base;
    bool *given;
    size_t i;

    if (femu_qprops && prop >= femu_qprops &&
        prop < femu_qprops + femu_nrows) {
        i = prop - femu_qprops;
        base = femu_row_base[i];
        given = FEMU(obj)->prop_given;
    } else {
        i = prop - femu_subsys_qprops;
        base = femu_subsys_row_base[i];
        given = FEMU_SUBSYS(obj)->prop_given;
    }
    base->set(obj, v, name, opaque, errp);
    if (!*errp) {
        given[i] = true;
    }
}

static PropertyInfo *femu_given_info(const PropertyInfo *base)
{
    PropertyInfo *info = g_new(PropertyInfo, 1);

    *info = *base;
    info->set = femu_prop_set_given;
    return info;
}

static const PropertyInfo *femu_enum_info(const FemuProp *p)
{
    const QEnumLookup l = { .array = p->names, .size = p->nnames };
    QEnumLookup *lookup = g_memdup2(&l, sizeof(l));
    PropertyInfo *info = g_new0(PropertyInfo, 1);

    /* "gc_policy" -> "FemuGcPolicy", the type name -device help shows */
    {
        GString *t = g_string_new("Femu");
        bool up = true;

        for (const char *c = p->name; *c; c++) {
            if (*c == '_' || *c == '.') {
                up = true;
            } else {
                g_string_append_c(t, up ? g_ascii_toupper(*c) : *c);
                up = false;
            }
        }
        info->type = g_string_free(t, false);
    }
    info->enum_table = lookup;
    info->get = qdev_propinfo_get_enum;
    info->set = qdev_propinfo_set_enum;
    info->set_default_value = qdev_propinfo_set_default_value_enum;
    return info;
}

/* QOM properties of rows[0..n-1]; base[i] is row i's own PropertyInfo. */
static Property *femu_make_qprops(ObjectClass *oc, FemuProp *rows, size_t n,
                                  size_t compat_off, size_t ncompat,
                                  const PropertyInfo **base)
{
    Property *q = g_new0(Property, n);
    size_t slot = 0;

    g_assert(n <= FEMU_MAX_PROP_ROWS);
    for (size_t i = 0; i < n; i++) {
        FemuProp *p = &rows[i];

        if (p->off == COMPAT) {
            g_assert(slot < ncompat);
            p->off = compat_off + slot++ * sizeof(uint64_t);
        }
        base[i] = p->kind == FEMU_PROP_ENUM ? femu_enum_info(p)
                                            : femu_kind_info(p);
        q[i].name = p->name;
        q[i].info = femu_given_info(base[i]);
        q[i].offset = p->off;
        if (p->kind == FEMU_PROP_UUID) {
            q[i].set_default = true;    /* "auto" */
        } else if (p->kind != FEMU_PROP_STR &&
                   !(p->flags & FEMU_PROP_NO_DEFAULT)) {
            q[i].set_default = true;
            q[i].defval.i = p->def;
        }
    }
    return q;
}

void femu_props_class_init(ObjectClass *oc)
{
    DeviceClass *dc = DEVICE_CLASS(oc);

    femu_nrows = ftl_nprops + ARRAY_SIZE(femu_dev_rows);
    femu_rows = g_new(FemuProp, femu_nrows);
    for (size_t i = 0; i < ftl_nprops; i++) {
        femu_rows[i] = ftl_props[i];
        femu_rows[i].off += offsetof(FemuCtrl, cfg);
    }
    memcpy(femu_rows + ftl_nprops, femu_dev_rows, sizeof(femu_dev_rows));
    femu_qprops = femu_make_qprops(oc, femu_rows, femu_nrows,
                                   offsetof(FemuCtrl, compat),
                                   FEMU_COMPAT_SLOTS, femu_row_base);
    device_class_set_props_n(dc, femu_qprops, femu_nrows);
    for (size_t i = 0; i < femu_nrows; i++) {
        object_class_property_set_description(oc, femu_rows[i].name,
                                              femu_rows[i].help);
    }
}

void femu_subsys_props_class_init(ObjectClass *oc)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    size_t n = ARRAY_SIZE(femu_subsys_rows);

    femu_subsys_qprops = femu_make_qprops(oc, femu_subsys_rows, n,
                                          offsetof(FemuSubsys, compat),
                                          FEMU_SUBSYS_COMPAT_SLOTS,
                                          femu_subsys_row_base);
    device_class_set_props_n(dc, femu_subsys_qprops, n);
    for (size_t i = 0; i < n; i++) {
        object_class_property_set_description(oc, femu_subsys_rows[i].name,
                                              femu_subsys_rows[i].help);
    }
}

static const FemuProp *femu_row(const char *name, size_t *index)
{
    for (size_t i = 0; i < femu_nrows; i++) {
        if (!strcmp(femu_rows[i].name, name)) {
            *index = i;
            return &femu_rows[i];
        }
    }
    g_assert_not_reached();
}

bool femu_prop_given(FemuCtrl *n, const char *name)
{
    size_t i;

    femu_row(name, &i);
    return n->prop_given[i];
}

static uint64_t femu_compat_u64(FemuCtrl *n, const char *name)
{
    size_t i;
    const FemuProp *p = femu_row(name, &i);

    return femu_prop_get_u64(p, n);
}

static const char *femu_compat_str(FemuCtrl *n, const char *name)
{
    size_t i;
    const FemuProp *p = femu_row(name, &i);

    return *(char **)((char *)n + p->off);
}

/* The refusals and limits of the rows of one device. */
static bool femu_rows_check(const FemuProp *rows, size_t n, void *obj,
                            const bool *given, Error **errp)
{
    char err[256];

    for (size_t i = 0; i < n; i++) {
        const FemuProp *p = &rows[i];

        if (given[i] && (p->flags & FEMU_PROP_REFUSE_ANY)) {
            error_setg(errp, "%s: %s", p->name, p->refuse);
            return false;
        }
        if (given[i] && p->refuse && p->kind != FEMU_PROP_STR &&
            femu_prop_get_i64(p, obj) != p->def) {
            error_setg(errp, "%s=%" PRId64 ": %s", p->name,
                       femu_prop_get_i64(p, obj), p->refuse);
            return false;
        }
        if (femu_prop_check(p, obj, err, sizeof(err)) < 0) {
            error_setg(errp, "%s", err);
            return false;
        }
    }
    return true;
}

bool femu_subsys_props_check(FemuSubsys *s, Error **errp)
{
    return femu_rows_check(femu_subsys_rows, ARRAY_SIZE(femu_subsys_rows), s,
                           s->prop_given, errp);
}

/*
 * FEMU upstream's comma-separated namespace lists: as many entries as
 * namespaces (an empty entry counts).
 */
static gchar **femu_ns_list(FemuCtrl *n, const char *name, Error **errp)
{
    const char *s = femu_compat_str(n, name);
    gchar **v;

    if (!s) {
        return NULL;
    }
    v = g_strsplit(s, ",", -1);
    if (g_strv_length(v) != n->params.namespaces) {
        error_setg(errp, "%s=%s: %u entries for namespaces=%u", name, s,
                   g_strv_length(v), n->params.namespaces);
        g_strfreev(v);
        return NULL;
    }
    return v;
}

/* One namespace's size in whole MiB from a namespace_sizes entry. */
static bool femu_ns_size(const char *e, uint64_t *mb, Error **errp)
{
    uint64_t bytes;

    if (qemu_strtosz(e, NULL, &bytes) < 0 || !bytes || bytes % MiB) {
        error_setg(errp, "namespace_sizes: '%s' is not a size in whole MiB "
                   "(e.g. 4G)", e);
        return false;
    }
    *mb = bytes / MiB;
    return true;
}

/*
 * namespaces, namespace_modes and namespace_sizes: each namespace's mode
 * and size.  One namespace keeps the sizing of devsz_mb / op_pcent;
 * several split devsz_mb: the sizes given, and what they leave in equal
 * whole MiB to the empty entries.  BlackBox namespaces share the FTL,
 * sized to their sum.
 */
static bool femu_props_namespaces(FemuCtrl *n, Error **errp)
{
    ERRP_GUARD();
    uint32_t nns = n->params.namespaces, nempty = 0, nzoned = 0;
    gchar **modes = femu_ns_list(n, "namespace_modes", errp);
    gchar **sizes = NULL;
    uint64_t given = 0, bb = 0;
    bool ok = false;

    if (*errp) {
        return false;
    }
    for (uint32_t i = 0; i < nns; i++) {
        FemuNamespace *ns = &n->ns[i];

        ns->nsid = i + 1;
        ns->mode = femu_mode_ops(n->params.femu_mode);
        if (modes) {
            ns->mode = femu_mode_by_token(modes[i]);
            if (!ns->mode) {
                error_setg(errp, "namespace_modes=%s: '%s' is not bbssd, "
                           "nossd or znssd",
                           femu_compat_str(n, "namespace_modes"), modes[i]);
                goto out;
            }
        }
        nzoned += ns->mode && ns->mode->mode == FEMU_MODE_ZNS;
    }
    if (modes) {
        if (femu_prop_given(n, "femu_mode") &&
            n->params.femu_mode != n->ns[0].mode->mode) {
            error_setg(errp, "namespace_modes=%s: femu_mode=%u says "
                       "otherwise", modes[0], n->params.femu_mode);
            goto out;
        }
        n->params.femu_mode = n->ns[0].mode->mode;
    }
    if (nzoned > 1) {
        error_setg(errp, "namespace_modes: %u zoned namespaces; at most one "
                   "per controller here", nzoned);
        goto out;
    }
    sizes = femu_ns_list(n, "namespace_sizes", errp);
    if (*errp) {
        goto out;
    }
    n->nns = nns;
    if (nns == 1) {
        if (sizes && *sizes[0]) {
            uint64_t mb;

            if (!femu_ns_size(sizes[0], &mb, errp)) {
                goto out;
            }
            if (n->cfg.op_pcent >= 0) {
                error_setg(errp, "namespace_sizes=%s: op_pcent sizes the "
                           "namespace already", sizes[0]);
                goto out;
            }
            if (n->params.ns_mgmt) {
                /* ns_mgmt: the FTL keeps devsz_mb, the rest is free */
                if (mb > n->cfg.devsz_mb) {
                    error_setg(errp, "namespace_sizes=%s: more than devsz_mb="
                               "%" PRIu64 " (ns_mgmt=on)", sizes[0],
                               n->cfg.devsz_mb);
                    goto out;
                }
                n->ns[0].size_mb = mb;
                ok = true;
                goto out;
            }
            n->cfg.devsz_mb = mb;
        }
        ok = true;
        goto out;
    }
    if (n->cfg.op_pcent >= 0) {
        error_setg(errp, "op_pcent=%d: with namespaces=%u give devsz_mb "
                   "(the namespaces' total) and namespace_sizes",
                   n->cfg.op_pcent, nns);
        goto out;
    }
    for (uint32_t i = 0; i < nns; i++) {
        if (sizes && *sizes[i]) {
            if (!femu_ns_size(sizes[i], &n->ns[i].size_mb, errp)) {
                goto out;
            }
            given += n->ns[i].size_mb;
        } else {
            nempty++;
        }
    }
    if (given > n->cfg.devsz_mb ||
        (nempty && (n->cfg.devsz_mb - given) / nempty == 0)) {
        error_setg(errp, "namespace_sizes: %" PRIu64 " MiB given, devsz_mb=%"
                   PRIu64 " leaves %s", given, n->cfg.devsz_mb,
                   nempty ? "less than 1 MiB to each empty entry"
                          : "less than that");
        goto out;
    }
    for (uint32_t i = 0; i < nns; i++) {
        FemuNamespace *ns = &n->ns[i];

        if (!ns->size_mb) {
            ns->size_mb = (n->cfg.devsz_mb - given) / nempty;
        }
        if (ns->mode && ns->mode->mode == FEMU_MODE_BBSSD) {
            bb += ns->size_mb;
        }
    }
    if (bb && !n->params.ns_mgmt) {
        /* the one FTL holds every BlackBox namespace (with ns_mgmt, all
         * of devsz_mb: what they leave is free for Namespace Management) */
        n->cfg.devsz_mb = bb;
    }
    ok = true;
out:
    g_strfreev(modes);
    g_strfreev(sizes);
    return ok;
}

/* FEMU upstream's properties whose unit or form differs from this one's. */
static bool femu_props_upstream(FemuCtrl *n, Error **errp)
{
    char err[256];
    uint64_t v;

    if (!femu_props_namespaces(n, errp)) {
        return false;
    }
    if (femu_prop_given(n, "multipoller_enabled") &&
        femu_compat_u64(n, "multipoller_enabled")) {
        uint64_t ratio = femu_compat_u64(n, "poller_ratio");
        uint64_t np;

        if (!ratio) {
            error_setg(errp, "poller_ratio=0: must be at least 1");
            return false;
        }
        np = DIV_ROUND_UP(n->params.queues, ratio);
        if (np > FEMU_MAX_POLLERS) {
            error_setg(errp, "multipoller_enabled=1: queues=%u with "
                       "poller_ratio=%" PRIu64 " needs %" PRIu64 " pollers; "
                       "at most %d here", n->params.queues, ratio, np,
                       FEMU_MAX_POLLERS);
            return false;
        }
        if (femu_prop_given(n, "pollers") && n->params.npollers != np) {
            error_setg(errp, "multipoller_enabled=1: gives %" PRIu64
                       " pollers, pollers=%u says otherwise", np,
                       n->params.npollers);
            return false;
        }
        n->params.npollers = np;
    }
    if (femu_prop_given(n, "lba_index")) {
        v = femu_compat_u64(n, "lba_index");
        if (v != 0 && v != 3) {
            error_setg(errp, "lba_index=%" PRIu64 ": 0 (512 B) or 3 (4 KiB): "
                       "the LBA formats offered here", v);
            return false;
        }
        if (femu_prop_given(n, "secsz") && n->cfg.secsz != 512u << v) {
            error_setg(errp, "lba_index=%" PRIu64 ": %u-byte blocks, secsz=%u "
                       "says otherwise", v, 512u << v, n->cfg.secsz);
            return false;
        }
        n->cfg.secsz = 512u << v;
    }
    n->params.oacs = FEMU_OACS_ALL;
    if (femu_prop_given(n, "oacs") && femu_compat_u64(n, "oacs")) {
        v = femu_compat_u64(n, "oacs");
        if (v & ~(uint64_t)FEMU_OACS_ALL) {
            error_setg(errp, "oacs=0x%" PRIx64 ": 0x%" PRIx64 " names admin "
                       "commands not offered here (at most 0x%x)", v,
                       v & ~(uint64_t)FEMU_OACS_ALL, FEMU_OACS_ALL);
            return false;
        }
        n->params.oacs = v;
    }
    n->params.oncs = FEMU_ONCS_ALL;
    if (femu_prop_given(n, "oncs") && femu_compat_u64(n, "oncs")) {
        v = femu_compat_u64(n, "oncs");
        if (v & ~(uint64_t)FEMU_ONCS_ALL) {
            error_setg(errp, "oncs=0x%" PRIx64 ": 0x%" PRIx64 " names I/O "
                       "commands not offered here (at most 0x%x)", v,
                       v & ~(uint64_t)FEMU_ONCS_ALL, FEMU_ONCS_ALL);
            return false;
        }
        n->params.oncs = v;
    }
    if (femu_prop_given(n, "zns_zone_cap") &&
        zns_zone_cap_prop(femu_compat_u64(n, "zns_zone_cap"),
                          &n->params.zns_zone_cap_mb, err, sizeof(err)) < 0) {
        error_setg(errp, "%s", err);
        return false;
    }
    if (femu_prop_given(n, "zns_chnls_per_zone") &&
        zns_chnls_per_zone_prop(femu_compat_u64(n, "zns_chnls_per_zone"),
                                n->cfg.nchs, n->cfg.luns_per_ch,
                                &n->params.zns_zone_luns, err,
                                sizeof(err)) < 0) {
        error_setg(errp, "%s", err);
        return false;
    }
    if (femu_prop_given(n, "zns_flash_type") &&
        n->params.femu_mode == FEMU_MODE_ZNS &&
        zns_flash_type_prop((int64_t)femu_compat_u64(n, "zns_flash_type"),
                            femu_prop_given(n, "nand_cell_type"),
                            &n->cfg.nand_cell_type, err, sizeof(err)) < 0) {
        error_setg(errp, "%s", err);
        return false;
    }
    if (femu_prop_given(n, "zns_zasl_bs") &&
        zns_zasl_bs_prop(femu_compat_u64(n, "zns_zasl_bs"),
                         &n->params.zns_zasl, err, sizeof(err)) < 0) {
        error_setg(errp, "%s", err);
        return false;
    }
    /*
     * FEMU upstream's zoned SSD derives the pages of a block from the
     * namespace size (devsz_mb / (4 KiB x channels x LUNs x blocks));
     * with its zns_num_* geometry and no pgs_per_blk, so does this one.
     */
    if (n->params.femu_mode == FEMU_MODE_ZNS &&
        !femu_prop_given(n, "pgs_per_blk") &&
        (femu_prop_given(n, "zns_num_ch") ||
         femu_prop_given(n, "zns_num_lun") ||
         femu_prop_given(n, "zns_num_plane") ||
         femu_prop_given(n, "zns_num_blk"))) {
        uint64_t pg = (uint64_t)n->cfg.secs_per_pg * 512;
        uint64_t blks = (uint64_t)n->cfg.nchs * n->cfg.luns_per_ch *
                        n->cfg.pls_per_lun * n->cfg.blks_per_pl;
        uint64_t pages = blks ? n->cfg.devsz_mb * MiB / pg / blks : 0;

        if (!pages || pages > UINT32_MAX) {
            error_setg(errp, "devsz_mb=%" PRIu64 ": gives %" PRIu64 " pages "
                       "per block over zns_num_ch x zns_num_lun x "
                       "zns_num_plane x zns_num_blk blocks", n->cfg.devsz_mb,
                       pages);
            return false;
        }
        n->cfg.pgs_per_blk = pages;
    }
    return true;
}

bool femu_props_check(FemuCtrl *n, Error **errp)
{
    return femu_rows_check(femu_rows, femu_nrows, n, n->prop_given, errp) &&
           femu_props_upstream(n, errp);
}
