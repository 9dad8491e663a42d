/*
 * FEMU: QOM types `femu` (the NVMe controller) and `femu-subsys`,
 * their properties, realize and unrealize.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qemu/cutils.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "hw/core/qdev-prop-internal.h"
#include "hw/pci/msix.h"
#include "system/system.h"
#include "system/runstate.h"
#include "hw/pci/pcie.h"
#include "migration/vmstate.h"
#include "exec/address-spaces.h"
#include "femu.h"
#include "trace.h"

/* Instances get serial numbers vSSD0, vSSD1, ... in creation order. */
static int femu_next_instance;

bool femu_is_bbssd(FemuCtrl *n)
{
    return n->params.femu_mode == FEMU_MODE_BBSSD;
}

/*
 * gc_policy is an enum property (so `-device femu,help` shows its
 * default); the values are the FTL's, which are also the gc_strategy
 * numeric aliases.
 */
static const char *const femu_gc_policy_names[] = FTL_GC_POLICY_NAMES;

static const QEnumLookup femu_gc_policy_lookup = {
    .array = femu_gc_policy_names,
    .size = ARRAY_SIZE(femu_gc_policy_names),
};

static const PropertyInfo femu_prop_gc_policy = {
    .type = "FemuGcPolicy",
    .description = "GC victim policy: greedy/fifo/random/cost-benefit/"
                   "d-choice",
    .enum_table = &femu_gc_policy_lookup,
    .get = qdev_propinfo_get_enum,
    .set = qdev_propinfo_set_enum,
    .set_default_value = qdev_propinfo_set_default_value_enum,
};

/* cache_evict: an enum property, the FTL's names */
static const char *const femu_cache_evict_names[] = FTL_CACHE_EVICT_NAMES;

static const QEnumLookup femu_cache_evict_lookup = {
    .array = femu_cache_evict_names,
    .size = ARRAY_SIZE(femu_cache_evict_names),
};

static const PropertyInfo femu_prop_cache_evict = {
    .type = "FemuCacheEvict",
    .description = "read-cache eviction: clock/random/lru/arc",
    .enum_table = &femu_cache_evict_lookup,
    .get = qdev_propinfo_get_enum,
    .set = qdev_propinfo_set_enum,
    .set_default_value = qdev_propinfo_set_default_value_enum,
};

/* mapping: an enum property, the FTL's names */
static const char *const femu_mapping_names[] = FTL_MAPPING_NAMES;

static const QEnumLookup femu_mapping_lookup = {
    .array = femu_mapping_names,
    .size = ARRAY_SIZE(femu_mapping_names),
};

static const PropertyInfo femu_prop_mapping = {
    .type = "FemuMapping",
    .description = "mapping scheme: page/dftl",
    .enum_table = &femu_mapping_lookup,
    .get = qdev_propinfo_get_enum,
    .set = qdev_propinfo_set_enum,
    .set_default_value = qdev_propinfo_set_default_value_enum,
};

static bool femu_parse_gc(FemuCtrl *n, Error **errp)
{
    n->cfg.cache_evict = n->params.cache_evict;
    n->cfg.mapping = n->params.mapping;
    if (n->params.gc_strategy != -1) {
        /* gc_strategy is the numeric alias of gc_policy; -1 (the
         * default) means unset */
        if (n->params.gc_strategy < 0 ||
            n->params.gc_strategy > FTL_GC_DCHOICE) {
            error_setg(errp, "gc_strategy=%d: must be 0 (greedy), "
                       "1 (cost-benefit), 2 (fifo), 3 (random) or "
                       "4 (d-choice)", n->params.gc_strategy);
            return false;
        }
        n->cfg.gc_policy = n->params.gc_strategy;
    } else {
        n->cfg.gc_policy = n->params.gc_policy;
    }
    return true;
}

/*
 * Namespace size for femu_mode=2: the FTL's geometry checks and sizing
 * rule, without an FTL.  With op_pcent unset the namespace need not fit
 * the NAND (nothing is stored in it): devsz_mb only has a bound of its
 * own.
 */
#define FEMU_NOSSD_MAX_DEVSZ_MB (64 * MiB)

static bool femu_nossd_size(FemuCtrl *n, Error **errp)
{
    struct ftl_config *c = &n->cfg;
    char err[256];

    if (ftl_config_check_geometry(c, err, sizeof(err))) {
        error_setg(errp, "%s", err);
        return false;
    }
    if (c->op_pcent < 0 &&
        (!c->devsz_mb || c->devsz_mb > FEMU_NOSSD_MAX_DEVSZ_MB)) {
        error_setg(errp, "devsz_mb=%" PRIu64 ": must be 1..%" PRIu64,
                   c->devsz_mb, (uint64_t)FEMU_NOSSD_MAX_DEVSZ_MB);
        return false;
    }
    n->ns_blocks = ftl_cfg_ns_blocks(c);
    if (!n->ns_blocks) {
        error_setg(errp, "devsz_mb/op_pcent give an empty namespace");
        return false;
    }
    return true;
}

/*
 * The NAND times are added to emulated clocks (LUN and channel next-free
 * times, completion due times) in signed 64-bit nanoseconds: a time near
 * 2^63 wraps them and the command never completes.  10 s per operation
 * is far beyond any NAND part and keeps every sum far from the limit.
 */
#define FEMU_MAX_NAND_LAT_NS    (10ULL * NANOSECONDS_PER_SECOND)

static bool femu_check_latencies(FemuCtrl *n, Error **errp)
{
    const struct {
        const char *name;
        uint64_t val;
    } lat[] = {
        { "pg_rd_lat", n->cfg.pg_rd_lat },
        { "pg_wr_lat", n->cfg.pg_wr_lat },
        { "blk_er_lat", n->cfg.blk_er_lat },
        { "ch_xfer_lat", n->cfg.ch_xfer_lat },
        { "lsb_rd_lat", n->cfg.pgtype_rd_lat[0] },
        { "csb_rd_lat", n->cfg.pgtype_rd_lat[1] },
        { "msb_rd_lat", n->cfg.pgtype_rd_lat[2] },
        { "tsb_rd_lat", n->cfg.pgtype_rd_lat[3] },
        { "lsb_wr_lat", n->cfg.pgtype_wr_lat[0] },
        { "csb_wr_lat", n->cfg.pgtype_wr_lat[1] },
        { "msb_wr_lat", n->cfg.pgtype_wr_lat[2] },
        { "tsb_wr_lat", n->cfg.pgtype_wr_lat[3] },
        { "trim_lat_ns", n->cfg.trim_lat_ns },
        { "pcie_prop_delay_ns", n->cfg.pcie_prop_delay_ns },
        { "fw_cpu_ns", n->cfg.fw_cpu_ns },
    };

    for (size_t i = 0; i < ARRAY_SIZE(lat); i++) {
        if (lat[i].val > FEMU_MAX_NAND_LAT_NS) {
            error_setg(errp, "%s=%" PRIu64 ": must be at most %llu ns (10 s)",
                       lat[i].name, lat[i].val, FEMU_MAX_NAND_LAT_NS);
            return false;
        }
    }
    return true;
}

static bool femu_check_params(FemuCtrl *n, Error **errp)
{
    if (n->params.femu_mode != FEMU_MODE_BBSSD &&
        n->params.femu_mode != FEMU_MODE_NOSSD &&
        n->params.femu_mode != FEMU_MODE_ZNS) {
        error_setg(errp, "femu_mode=%u is not implemented; use 1 "
                   "(BlackBox SSD), 2 (NoSSD) or 3 (Zoned Namespace SSD)",
                   n->params.femu_mode);
        return false;
    }
    if (!n->params.queues || n->params.queues > FEMU_MAX_IOQPAIRS) {
        error_setg(errp, "queues=%u: must be 1..%d", n->params.queues,
                   FEMU_MAX_IOQPAIRS);
        return false;
    }
    if (!n->params.npollers || n->params.npollers > FEMU_MAX_POLLERS) {
        error_setg(errp, "pollers=%u: must be 1..%d", n->params.npollers,
                   FEMU_MAX_POLLERS);
        return false;
    }
    if (n->params.mdts < 1 || n->params.mdts > 9) {
        /* one PRP list page (512 entries of 4 KiB) bounds a transfer */
        error_setg(errp, "mdts=%u: must be 1..9 (2^mdts 4 KiB pages)",
                   n->params.mdts);
        return false;
    }
    if (n->params.mqes < 1) {
        error_setg(errp, "mqes=%u: must be at least 1", n->params.mqes);
        return false;
    }
    if (n->params.serial &&
        (!*n->params.serial || strlen(n->params.serial) > 20)) {
        error_setg(errp, "serial='%s': must be 1..20 characters",
                   n->params.serial);
        return false;
    }
    if (!femu_check_latencies(n, errp)) {
        return false;
    }
    if (n->params.state_path && n->params.mapping == FTL_MAP_DFTL) {
        error_setg(errp, "state=%s: mapping=dftl: state files hold "
                   "page-mapped FTLs only", n->params.state_path);
        return false;
    }
    return femu_parse_gc(n, errp);
}

static void femu_init_pci(FemuCtrl *n, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(n);
    uint8_t *conf = pdev->config;
    unsigned nvec = n->params.queues + 1;

    conf[PCI_INTERRUPT_PIN] = 1;
    /* class code 01 08 02: mass storage, NVM, NVM Express */
    pci_config_set_prog_interface(conf, 0x2);
    pci_config_set_vendor_id(conf, FEMU_PCI_VENDOR_ID);
    pci_config_set_device_id(conf, FEMU_PCI_DEVICE_ID);
    pci_config_set_class(conf, PCI_CLASS_STORAGE_EXPRESS);
    pci_set_word(conf + PCI_SUBSYSTEM_VENDOR_ID, FEMU_PCI_VENDOR_ID);
    pci_set_word(conf + PCI_SUBSYSTEM_ID, FEMU_PCI_DEVICE_ID);

    if (pci_is_express(pdev)) {
        pcie_endpoint_cap_init(pdev, 0x80);
    }

    /* doorbells start at 1000h, stride 4 bytes (CAP.DSTRD = 0) */
    n->reg_size = pow2ceil(0x1000 + 2 * nvec * 4);
    femu_regs_init(n);
    pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &n->iomem);

    if (msix_init_exclusive_bar(pdev, nvec, 4, errp)) {
        return;
    }
    for (unsigned i = 0; i < nvec; i++) {
        msix_vector_use(pdev, i);
    }
}

/*
 * The Timestamp feature counts on QEMU's virtual clock, which stands
 * still while the VM is stopped: after that its count has skipped time,
 * which Synch = 1 reports (admin.c).
 */
static void femu_vm_state_change(void *opaque, bool running, RunState state)
{
    FemuCtrl *n = opaque;

    if (!running) {
        n->ts_stopped = true;
    }
}

static void femu_exit_notify(Notifier *notifier, void *data)
{
    FemuCtrl *n = container_of(notifier, FemuCtrl, exit_notifier);

    femu_pollers_stop(n);
    /* guest power-off, quit, SIGTERM: the threads are stopped, the SSD
     * is quiet: keep it in its state file */
    femu_state_exit(n);
}

/*
 * subsys=ID names a femu-subsys device.  It is a string resolved here, at
 * realize, rather than a QOM link resolved when the option is parsed: a
 * link's failure is QEMU's generic "Device 'ID' not found", which neither
 * names the property nor says that the order of the -device options is
 * what matters.  Devices are created in command-line order, so the
 * subsystem must come first.
 */
static bool femu_resolve_subsys(FemuCtrl *n, Error **errp)
{
    Object *obj;
    bool ambiguous = false;

    n->subsys = NULL;
    if (!n->params.subsys_id) {
        return true;
    }
    if (!*n->params.subsys_id) {
        error_setg(errp, "subsys='': give the id of a femu-subsys device");
        return false;
    }
    obj = object_resolve_path_type(n->params.subsys_id, TYPE_FEMU_SUBSYS,
                                   &ambiguous);
    if (obj) {
        n->subsys = FEMU_SUBSYS(obj);
        return true;
    }
    if (ambiguous) {
        error_setg(errp, "subsys=%s: more than one femu-subsys matches; "
                   "give the full QOM path", n->params.subsys_id);
        return false;
    }
    obj = object_resolve_path(n->params.subsys_id, &ambiguous);
    if (obj) {
        error_setg(errp, "subsys=%s: '%s' is a %s, not a femu-subsys "
                   "device", n->params.subsys_id, n->params.subsys_id,
                   object_get_typename(obj));
        return false;
    }
    error_setg(errp, "subsys=%s: no femu-subsys device with that id; give "
               "-device femu-subsys,id=%s,... before the femu controller "
               "that uses it", n->params.subsys_id, n->params.subsys_id);
    return false;
}

/*
 * The pollers translate and access guest memory while they hold their
 * own lock, and a controller reset waits for that lock holding the BQL.
 * Through a vIOMMU, a translation may walk guest page tables through
 * MMIO or report a fault, both of which need the BQL: QEMU would
 * deadlock.  So the device's DMA must reach system memory directly; a
 * bus that bypasses the vIOMMU (default_bus_bypass_iommu=on, or a
 * pxb-pcie with bypass_iommu=on) does.
 */
static bool femu_check_dma_as(FemuCtrl *n, Error **errp)
{
    if (pci_device_iommu_address_space(PCI_DEVICE(n)) !=
        &address_space_memory) {
        error_setg(errp, "femu does not work behind a vIOMMU (its DMA "
                   "address space is not system memory); put it on a bus "
                   "that bypasses the IOMMU, e.g. -machine "
                   "q35,default_bus_bypass_iommu=on");
        return false;
    }
    return true;
}

static void femu_realize(PCIDevice *pdev, Error **errp)
{
    ERRP_GUARD();
    FemuCtrl *n = FEMU(pdev);
    char err[256];
    uint64_t bytes;

    if (!femu_check_params(n, errp) || !femu_check_dma_as(n, errp)) {
        return;
    }
    if (!femu_resolve_subsys(n, errp)) {
        return;
    }
    if (!femu_fdp_realize(n, errp)) {
        return;
    }
    femu_fdp_fill_cfg(n, &n->cfg);

    if (femu_is_bbssd(n)) {
        if (ftl_config_validate(&n->cfg, err, sizeof(err))) {
            error_setg(errp, "%s", err);
            goto fail_fdp;
        }
        n->ftl = ftl_new(&n->cfg, err, sizeof(err));
        if (!n->ftl) {
            error_setg(errp, "%s", err);
            goto fail_fdp;
        }
        n->ns_blocks = ftl_ns_blocks(n->ftl);
    } else if (femu_is_zns(n)) {
        if (!femu_zns_realize(n, errp)) {
            goto fail_fdp;
        }
    } else if (!femu_nossd_size(n, errp)) {
        goto fail_fdp;
    }
    n->lba_shift = ctz32(n->cfg.secsz);
    n->max_xfer = (uint64_t)FEMU_PAGE_SIZE << n->params.mdts;
    bytes = n->ns_blocks << n->lba_shift;
    if (femu_store_init(&n->store, bytes, errp)) {
        goto fail_ftl;
    }

    n->instance = femu_next_instance++;
    if (n->params.serial) {
        pstrcpy(n->sn, sizeof(n->sn), n->params.serial);
    } else {
        snprintf(n->sn, sizeof(n->sn), "vSSD%d", n->instance);
    }
    if (!femu_state_realize(n, errp) || !femu_block_migration(n, errp)) {
        femu_state_unrealize(n);
        femu_store_fini(&n->store);
        goto fail_ftl;
    }
    n->start_ns = get_clock();
    n->temperature = 310;   /* 37 C, below both default thresholds */
    qemu_mutex_init(&n->ftl_lock);
    qemu_mutex_init(&n->err_lock);

    n->sq = g_new0(FemuSQ *, n->params.queues + 1);
    n->cq = g_new0(FemuCQ *, n->params.queues + 1);
    n->admin_bh = qemu_bh_new_guarded(femu_admin_bh, n,
                                      &DEVICE(n)->mem_reentrancy_guard);

    femu_init_pci(n, errp);
    if (*errp) {
        goto fail_bh;
    }
    femu_pollers_start(n, errp);
    if (*errp) {
        msix_uninit_exclusive_bar(pdev);
        goto fail_bh;
    }
    femu_ctrl_reset(n);     /* feature defaults */
    /*
     * QEMU does not unrealize devices when it exits: stop and join the
     * pollers from an exit notifier, so no thread touches guest memory or
     * the store while the process tears down.
     */
    n->exit_notifier.notify = femu_exit_notify;
    qemu_add_exit_notifier(&n->exit_notifier);
    n->vm_state = qemu_add_vm_change_state_handler(femu_vm_state_change, n);
    trace_femu_realize(n->instance, n->params.femu_mode, n->ns_blocks,
                       n->cfg.secsz, n->params.queues, n->params.npollers);
    return;

fail_bh:
    femu_state_unrealize(n);
    qemu_bh_delete(n->admin_bh);
    g_free(n->sq);
    g_free(n->cq);
    qemu_mutex_destroy(&n->ftl_lock);
    qemu_mutex_destroy(&n->err_lock);
    femu_store_fini(&n->store);
fail_ftl:
    femu_zns_unrealize(n);
    if (n->ftl) {
        ftl_free(n->ftl);
        n->ftl = NULL;
    }
fail_fdp:
    femu_fdp_unrealize(n);
}

static void femu_exit(PCIDevice *pdev)
{
    FemuCtrl *n = FEMU(pdev);

    /* stop the threads first: nothing may touch queues or the store */
    qemu_remove_exit_notifier(&n->exit_notifier);
    qemu_del_vm_change_state_handler(n->vm_state);
    femu_pollers_stop(n);
    femu_ctrl_reset(n);
    qemu_bh_delete(n->admin_bh);
    g_free(n->sq);
    g_free(n->cq);
    msix_uninit_exclusive_bar(pdev);
    femu_zns_unrealize(n);
    femu_state_unrealize(n);
    if (n->ftl) {
        ftl_free(n->ftl);
        n->ftl = NULL;
    }
    qemu_mutex_destroy(&n->ftl_lock);
    qemu_mutex_destroy(&n->err_lock);
    femu_store_fini(&n->store);
    femu_fdp_unrealize(n);
}

static void femu_pci_reset(DeviceState *dev)
{
    /* a PCI/system reset is a controller reset; the store survives */
    femu_ctrl_reset(FEMU(dev));
}

/* a property named like its ftl_config field, with the FTL's default */
#define FEMU_CFG_PROP(type, field, dflt) \
    DEFINE_PROP_##type(#field, FemuCtrl, cfg.field, dflt)

static const Property femu_props[] = {
    DEFINE_PROP_UINT32("femu_mode", FemuCtrl, params.femu_mode,
                       FEMU_MODE_BBSSD),
    /* geometry, sizing, NAND timing (ns) and GC: the FTL's defaults */
    FEMU_CFG_PROP(UINT32, nchs, FTL_DEFAULT_NCHS),
    FEMU_CFG_PROP(UINT32, luns_per_ch, FTL_DEFAULT_LUNS_PER_CH),
    FEMU_CFG_PROP(UINT32, pls_per_lun, FTL_DEFAULT_PLS_PER_LUN),
    FEMU_CFG_PROP(UINT32, blks_per_pl, FTL_DEFAULT_BLKS_PER_PL),
    FEMU_CFG_PROP(UINT32, pgs_per_blk, FTL_DEFAULT_PGS_PER_BLK),
    FEMU_CFG_PROP(UINT32, secsz, FTL_DEFAULT_SECSZ),
    FEMU_CFG_PROP(UINT32, secs_per_pg, FTL_DEFAULT_SECS_PER_PG),
    FEMU_CFG_PROP(UINT64, devsz_mb, FTL_DEFAULT_DEVSZ_MB),
    FEMU_CFG_PROP(INT32, op_pcent, FTL_DEFAULT_OP_PCENT),
    FEMU_CFG_PROP(UINT64, pg_rd_lat, FTL_DEFAULT_PG_RD_LAT),
    FEMU_CFG_PROP(UINT64, pg_wr_lat, FTL_DEFAULT_PG_WR_LAT),
    FEMU_CFG_PROP(UINT64, blk_er_lat, FTL_DEFAULT_BLK_ER_LAT),
    FEMU_CFG_PROP(UINT64, ch_xfer_lat, FTL_DEFAULT_CH_XFER_LAT),
    FEMU_CFG_PROP(UINT32, gc_thres_pcent, FTL_DEFAULT_GC_THRES_PCENT),
    FEMU_CFG_PROP(UINT32, gc_thres_pcent_high,
                  FTL_DEFAULT_GC_THRES_PCENT_HIGH),
    DEFINE_PROP_SIGNED("gc_policy", FemuCtrl, params.gc_policy,
                       FTL_DEFAULT_GC_POLICY, femu_prop_gc_policy, int),
    DEFINE_PROP_INT32("gc_strategy", FemuCtrl, params.gc_strategy, -1),
    FEMU_CFG_PROP(BOOL, hot_cold_sep, false),
    FEMU_CFG_PROP(BOOL, gc_own_line, false),
    FEMU_CFG_PROP(UINT64, seed, FTL_DEFAULT_SEED),
    /* NAND cell types, trim cost and read cache (docs/ftl.md): all off */
    FEMU_CFG_PROP(UINT32, nand_cell_type, FTL_CELL_UNIFORM),
    DEFINE_PROP_UINT64("lsb_rd_lat", FemuCtrl, cfg.pgtype_rd_lat[0], 0),
    DEFINE_PROP_UINT64("csb_rd_lat", FemuCtrl, cfg.pgtype_rd_lat[1], 0),
    DEFINE_PROP_UINT64("msb_rd_lat", FemuCtrl, cfg.pgtype_rd_lat[2], 0),
    DEFINE_PROP_UINT64("tsb_rd_lat", FemuCtrl, cfg.pgtype_rd_lat[3], 0),
    DEFINE_PROP_UINT64("lsb_wr_lat", FemuCtrl, cfg.pgtype_wr_lat[0], 0),
    DEFINE_PROP_UINT64("csb_wr_lat", FemuCtrl, cfg.pgtype_wr_lat[1], 0),
    DEFINE_PROP_UINT64("msb_wr_lat", FemuCtrl, cfg.pgtype_wr_lat[2], 0),
    DEFINE_PROP_UINT64("tsb_wr_lat", FemuCtrl, cfg.pgtype_wr_lat[3], 0),
    FEMU_CFG_PROP(UINT32, pgtype_lat, 0),
    FEMU_CFG_PROP(UINT32, cell_pages, 0),
    FEMU_CFG_PROP(UINT64, trim_lat_ns, 0),
    FEMU_CFG_PROP(UINT32, read_cache_mb, 0),
    DEFINE_PROP_SIGNED("cache_evict", FemuCtrl, params.cache_evict,
                       FTL_EVICT_CLOCK, femu_prop_cache_evict, int),
    FEMU_CFG_PROP(UINT32, pcie_bandwidth_mbps, 0),
    FEMU_CFG_PROP(UINT32, pcie_prop_delay_ns, 0),
    FEMU_CFG_PROP(UINT64, fw_cpu_ns, 0),
    DEFINE_PROP_SIGNED("mapping", FemuCtrl, params.mapping, FTL_MAP_PAGE,
                       femu_prop_mapping, int),
    FEMU_CFG_PROP(UINT32, mapping_cache_mb, 0),
    /* controller */
    DEFINE_PROP_STRING("serial", FemuCtrl, params.serial),
    DEFINE_PROP_UINT32("queues", FemuCtrl, params.queues, 8),
    DEFINE_PROP_UINT32("pollers", FemuCtrl, params.npollers, 1),
    DEFINE_PROP_UINT8("poller_rt", FemuCtrl, params.poller_rt, 0),
    DEFINE_PROP_UINT8("mdts", FemuCtrl, params.mdts, 7),
    DEFINE_PROP_UINT16("mqes", FemuCtrl, params.mqes, 0x3ff),
    DEFINE_PROP_STRING("subsys", FemuCtrl, params.subsys_id),
    /* Zoned Namespace SSD (femu_mode=3) */
    DEFINE_PROP_UINT32("zone_luns", FemuCtrl, params.zns_zone_luns, 4),
    DEFINE_PROP_UINT64("zone_size_mb", FemuCtrl, params.zns_zone_size_mb, 0),
    DEFINE_PROP_UINT64("zone_cap_mb", FemuCtrl, params.zns_zone_cap_mb, 0),
    DEFINE_PROP_UINT32("max_open", FemuCtrl, params.zns_max_open, 0),
    DEFINE_PROP_UINT32("max_active", FemuCtrl, params.zns_max_active, 0),
    DEFINE_PROP_UINT8("zasl", FemuCtrl, params.zns_zasl, 0),
    /* a fresh random UUID per run unless given ("auto") */
    DEFINE_PROP_UUID("uuid", FemuCtrl, params.uuid),
    DEFINE_PROP_STRING("state", FemuCtrl, params.state_path),
};

/*
 * `-device femu,help` shows these next to each property's default: what
 * it is, its unit and its limits (checked at realize, see docs/properties.md).
 */
typedef struct FemuPropDesc {
    const char *name;
    const char *desc;
} FemuPropDesc;

static void femu_set_prop_descs(ObjectClass *oc, const FemuPropDesc *d,
                                size_t n)
{
    for (size_t i = 0; i < n; i++) {
        object_class_property_set_description(oc, d[i].name, d[i].desc);
    }
}

static const FemuPropDesc femu_prop_descs[] = {
    { "femu_mode", "1 = BlackBox SSD (device-side FTL, GC, NAND timing), "
                   "2 = NoSSD (no FTL, no delays), 3 = Zoned Namespace SSD "
                   "(zones over the NAND timing model); others are refused" },
    { "nchs", "NAND channels (1..)" },
    { "luns_per_ch", "LUNs (dies) per channel (1..)" },
    { "pls_per_lun", "planes per LUN (1..)" },
    { "blks_per_pl", "blocks per plane = lines (superblocks) (1..)" },
    { "pgs_per_blk", "NAND pages per block (1..); the geometry's product "
                     "must be at most 2^32-2 pages" },
    { "secsz", "logical block size in bytes (512 or 4096)" },
    { "secs_per_pg", "512-byte sectors per NAND page (1..1024; 8 = 4 KiB)" },
    { "devsz_mb", "namespace size in MiB, ignored when op_pcent is set "
                  "(1..NAND size)" },
    { "op_pcent", "over-provisioning in percent: namespace = NAND / "
                  "(1 + op_pcent/100) (0..; -1 = unset, use devsz_mb)" },
    { "pg_rd_lat", "NAND page read latency in ns (0..10000000000)" },
    { "pg_wr_lat", "NAND page program latency in ns (0..10000000000)" },
    { "blk_er_lat", "NAND block erase latency in ns (0..10000000000)" },
    { "ch_xfer_lat", "channel transfer time per page in ns (0..10000000000)" },
    { "gc_thres_pcent", "background GC starts at this percentage of lines "
                        "in use (1..100)" },
    { "gc_thres_pcent_high", "forced GC inside writes at this percentage "
                             "of lines in use (gc_thres_pcent..100)" },
    { "gc_policy", "GC victim policy: greedy, fifo, random, cost-benefit "
                   "or d-choice" },
    { "gc_strategy", "numeric alias of gc_policy: 0 greedy, 1 cost-benefit, "
                     "2 fifo, 3 random, 4 d-choice (-1 = unset)" },
    { "hot_cold_sep", "separate overwrites (hot) from first writes (cold) "
                      "into their own open lines; GC relocations join the "
                      "cold line (on/off)" },
    { "gc_own_line", "extension: GC relocations get an open line of their "
                     "own instead of sharing the host's write pointer, as "
                     "FEMU does (on/off; one more open line for the GC "
                     "reserve)" },
    { "seed", "random seed of the random and d-choice GC policies" },
    { "nand_cell_type", "NAND cell type: 1 SLC, 2 MLC, 3 TLC, 4 QLC, each "
                        "page read and programmed in the time of its type "
                        "(FEMU's tables, pairing and erase time); 0 = the "
                        "uniform pg_rd_lat/pg_wr_lat/blk_er_lat" },
    { "lsb_rd_lat", "nand_cell_type 1..4: LSB page read time in ns "
                    "(0 = the type's default)" },
    { "csb_rd_lat", "nand_cell_type 3..4: CSB page read time in ns "
                    "(0 = the type's default)" },
    { "msb_rd_lat", "nand_cell_type 2..4: MSB page read time in ns "
                    "(0 = the type's default)" },
    { "tsb_rd_lat", "nand_cell_type 4: TSB page read time in ns "
                    "(0 = the type's default)" },
    { "lsb_wr_lat", "nand_cell_type 1..4: LSB page program time in ns "
                    "(0 = the type's default)" },
    { "csb_wr_lat", "nand_cell_type 3..4: CSB page program time in ns "
                    "(0 = the type's default)" },
    { "msb_wr_lat", "nand_cell_type 2..4: MSB page program time in ns "
                    "(0 = the type's default)" },
    { "tsb_wr_lat", "nand_cell_type 4: TSB page program time in ns "
                    "(0 = the type's default)" },
    { "pgtype_lat", "nand_cell_type=0: non-zero scales each program time "
                    "by its page's type, page in block mod cell_pages "
                    "(FEMU's multipliers, e.g. x0.6/1.0/1.4 for 3)" },
    { "cell_pages", "page types for pgtype_lat (1..5; 0 = 3)" },
    { "trim_lat_ns", "time each Dataset Management deallocate range adds "
                     "to its command, ns (0..10000000000)" },
    { "read_cache_mb", "DRAM read cache of NAND pages in MiB: a hit takes "
                       "pg_rd_lat/16 and no NAND time (0 = none; at most "
                       "the namespace)" },
    { "cache_evict", "read-cache eviction: clock, random, lru or arc "
                     "(FEMU's scan-resistant two-list variant)" },
    { "pcie_bandwidth_mbps", "host link bandwidth in MB/s: each read or "
                             "write's data takes bytes / bandwidth, one "
                             "transfer at a time per direction, shared by "
                             "all queues (0 = no transfer time)" },
    { "pcie_prop_delay_ns", "host link propagation delay added to each "
                            "read and write, ns (0..10000000000)" },
    { "fw_cpu_ns", "controller firmware time per read or write on one "
                   "core, ns: at most 1e9 / fw_cpu_ns commands per second "
                   "(0 = none; 0..10000000000)" },
    { "mapping", "mapping scheme: page (the whole table in DRAM) or dftl "
                 "(translation pages on NAND, mapping_cache_mb of them "
                 "cached; not with FDP or state=)" },
    { "mapping_cache_mb", "mapping=dftl: MiB of translation pages cached "
                          "(at least one page, at most the namespace)" },
    { "serial", "serial number, 1..20 characters (default vSSD<n>, n = "
                "instance)" },
    { "queues", "I/O queue pairs offered to the host (1..64)" },
    { "pollers", "poller threads serving the I/O queues (1..16)" },
    { "poller_rt", "0: pollers are normal threads; 1..99: run them "
      "SCHED_FIFO at this real-time priority (needs CAP_SYS_NICE or "
      "RLIMIT_RTPRIO; docs/measuring.md)" },
    { "mdts", "maximum data transfer size: 2^mdts 4 KiB pages (1..9)" },
    { "mqes", "maximum queue entries, 0's based (1..65535)" },
    { "subsys", "id of a femu-subsys device (FDP settings), given "
                "before this controller" },
    { "zone_luns", "femu_mode=3: LUNs one zone stripes over; must divide "
                   "nchs x luns_per_ch" },
    { "zone_size_mb", "femu_mode=3: zone size in MiB, a multiple of "
                      "zone_luns x pls_per_lun erase blocks, a power of two "
                      "in logical blocks (0 = one block per plane per LUN)" },
    { "zone_cap_mb", "femu_mode=3: writable MiB of a zone, at most its size "
                     "(0 = the zone size)" },
    { "max_open", "femu_mode=3: open zones at most (0 = no limit; at most "
                  "max_active)" },
    { "max_active", "femu_mode=3: open + closed zones at most (0 = no limit; "
                    "needs max_open set)" },
    { "zasl", "femu_mode=3: Zone Append Size Limit, 2^zasl 4 KiB pages "
              "(0 = mdts; at most mdts)" },
    { "uuid", "namespace UUID (Identify descriptor 03h): \"auto\" = a "
              "random one per run, or xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx; "
              "all zeroes = none" },
    { "state", "state file: the SSD (FTL and data) is loaded from it at "
               "start when it exists and saved to it when QEMU quits "
               "(docs/state.md; femu_mode=1)" },
};

static const FemuPropDesc femu_subsys_prop_descs[] = {
    { "fdp", "Flexible Data Placement on the controller that links here "
             "(on/off; needs femu_mode=1)" },
    { "fdp.nruh", "reclaim unit handles = placement ids 0..nruh-1 (1..256 "
                  "with fdp=on, and below the lines, blks_per_pl)" },
    { "fdp.nru", "reclaim units (fdp.nruh..; at most one per line is "
                 "used)" },
};

/* migration and savevm are refused by a blocker that names the device
 * (femu_block_migration) */
static const VMStateDescription femu_vmstate = {
    .name = "femu",
};

static void femu_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(oc);

    pc->realize = femu_realize;
    pc->exit = femu_exit;
    pc->config_write = femu_pci_config_write;   /* regs.c */
    pc->vendor_id = FEMU_PCI_VENDOR_ID;
    pc->device_id = FEMU_PCI_DEVICE_ID;
    pc->class_id = PCI_CLASS_STORAGE_EXPRESS;
    pc->revision = 1;
    set_bit(DEVICE_CATEGORY_STORAGE, dc->categories);
    dc->desc = "FEMU NVMe SSD emulator (BlackBox SSD / NoSSD / ZNS SSD)";
    device_class_set_props(dc, femu_props);
    femu_set_prop_descs(oc, femu_prop_descs, ARRAY_SIZE(femu_prop_descs));
    device_class_set_legacy_reset(dc, femu_pci_reset);
    dc->vmsd = &femu_vmstate;
    /* the pollers and the store are set up for the VM's lifetime */
    dc->hotpluggable = false;
}

static const TypeInfo femu_info = {
    .name = TYPE_FEMU,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(FemuCtrl),
    .class_init = femu_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

/* femu-subsys: a bus-less device that only carries FDP settings. */
static void femu_subsys_realize(DeviceState *dev, Error **errp)
{
    FemuSubsys *s = FEMU_SUBSYS(dev);

    trace_femu_subsys_realize(s->fdp, s->fdp_nruh, s->fdp_nru);
}

static const Property femu_subsys_props[] = {
    DEFINE_PROP_BOOL("fdp", FemuSubsys, fdp, false),
    DEFINE_PROP_UINT32("fdp.nruh", FemuSubsys, fdp_nruh, 0),
    DEFINE_PROP_UINT32("fdp.nru", FemuSubsys, fdp_nru, FTL_DEFAULT_FDP_NRU),
};

static void femu_subsys_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);

    set_bit(DEVICE_CATEGORY_STORAGE, dc->categories);
    dc->realize = femu_subsys_realize;
    dc->desc = "FEMU NVM subsystem (Flexible Data Placement settings)";
    device_class_set_props(dc, femu_subsys_props);
    femu_set_prop_descs(oc, femu_subsys_prop_descs,
                        ARRAY_SIZE(femu_subsys_prop_descs));
}

static const TypeInfo femu_subsys_info = {
    .name = TYPE_FEMU_SUBSYS,
    .parent = TYPE_DEVICE,
    .instance_size = sizeof(FemuSubsys),
    .class_init = femu_subsys_class_init,
};

static void femu_register_types(void)
{
    type_register_static(&femu_info);
    type_register_static(&femu_subsys_info);
}

type_init(femu_register_types)
