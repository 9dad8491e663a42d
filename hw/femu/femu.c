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
    return n->mode->mode == FEMU_MODE_BBSSD;
}

static bool femu_parse_gc(FemuCtrl *n, Error **errp)
{
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
    }
    return true;
}


static bool femu_check_params(FemuCtrl *n, Error **errp)
{
    /* each row's limits and refusals, FEMU upstream's names */
    if (!femu_props_check(n, errp)) {
        return false;
    }
    n->mode = femu_mode_ops(n->params.femu_mode);
    if (!n->mode) {
        error_setg(errp, "femu_mode=%u is not implemented; use 1 "
                   "(BlackBox SSD), 2 (NoSSD) or 3 (Zoned Namespace SSD)",
                   n->params.femu_mode);
        return false;
    }
    if (n->params.serial &&
        (!*n->params.serial || strlen(n->params.serial) > 20)) {
        error_setg(errp, "serial='%s': must be 1..20 characters",
                   n->params.serial);
        return false;
    }
    if (n->cfg.write_cache_mb && !n->params.vwc) {
        error_setg(errp, "write_cache_mb=%u: needs vwc=1 (Identify must "
                   "report the volatile write cache)", n->cfg.write_cache_mb);
        return false;
    }
    if (n->params.state_path && n->cfg.mapping != FTL_MAP_PAGE) {
        error_setg(errp, "state=%s: mapping=%s: state files hold "
                   "page-mapped FTLs only", n->params.state_path,
                   ftl_mapping_name(n->cfg.mapping));
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
    pci_config_set_vendor_id(conf, n->params.vid);
    pci_config_set_device_id(conf, n->params.did);
    pci_config_set_class(conf, PCI_CLASS_STORAGE_EXPRESS);
    pci_set_word(conf + PCI_SUBSYSTEM_VENDOR_ID, n->params.vid);
    pci_set_word(conf + PCI_SUBSYSTEM_ID, n->params.did);

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

    femu_state_save_wait(n);
    femu_pollers_stop(n);
    /* guest power-off, quit, SIGTERM: the threads are stopped, the SSD
     * is quiet: keep it in its state file */
    femu_state_exit(n);
    femu_capture_fini(n);   /* the I/O trace's END record */
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

/* Every namespace's zones and data (a failed realize's too). */
static void femu_ns_fini(FemuCtrl *n)
{
    for (uint32_t i = 0; i < FEMU_MAX_NAMESPACES; i++) {
        femu_zns_unrealize(&n->ns[i]);
        femu_store_fini(&n->ns[i].store);
        g_free(n->ns[i].uncor);
        n->ns[i].uncor = NULL;
    }
}

/*
 * What several namespaces per controller need checked first: ns_mgmt=on
 * (ns.c).  FDP with several namespaces is femu_fdp_realize's (every one
 * BlackBox); zoned namespaces and state files are state.c's.
 */
static bool femu_check_namespaces(FemuCtrl *n, Error **errp)
{
    return femu_ns_mgmt_check(n, errp);     /* ns_mgmt=on (ns.c) */
}

static void femu_realize(PCIDevice *pdev, Error **errp)
{
    ERRP_GUARD();
    FemuCtrl *n = FEMU(pdev);
    uint64_t bytes;

    if (!femu_check_params(n, errp) || !femu_check_dma_as(n, errp) ||
        !femu_check_namespaces(n, errp)) {
        return;
    }
    if (!femu_resolve_subsys(n, errp)) {
        return;
    }
    if (!femu_fdp_realize(n, errp)) {
        return;
    }
    femu_fdp_fill_cfg(n, &n->cfg);

    n->lba_shift = ctz32(n->cfg.secsz);
    n->max_xfer = (uint64_t)FEMU_PAGE_SIZE << n->params.mdts;
    /* each namespace's back end (FTL range, zones or nothing: mode.c)
     * and its data */
    for (uint32_t i = 0; i < n->nns; i++) {
        FemuNamespace *ns = &n->ns[i];

        if (!ns->mode->realize(n, ns, errp)) {
            goto fail_ftl;
        }
        bytes = ns->blocks << n->lba_shift;
        if (femu_store_init(&ns->store, bytes, errp)) {
            goto fail_ftl;
        }
        /* namespace 1 has the uuid property's; the others a random one */
        if (i == 0) {
            ns->uuid = n->params.uuid;
        } else if (!qemu_uuid_is_null(&n->params.uuid)) {
            qemu_uuid_generate(&ns->uuid);
        }
    }

    /* allocated and attached; ns_mgmt: the free NSIDs up to NN (ns.c) */
    femu_ns_mgmt_realize(n);

    n->instance = femu_next_instance++;
    if (n->params.serial) {
        pstrcpy(n->sn, sizeof(n->sn), n->params.serial);
    } else {
        snprintf(n->sn, sizeof(n->sn), "vSSD%d", n->instance);
    }
    if (!femu_state_realize(n, errp) || !femu_block_migration(n, errp) ||
        !femu_capture_realize(n, errp)) {
        femu_state_unrealize(n);
        goto fail_ftl;
    }
    n->start_ns = get_clock();
    n->temperature = 310;   /* 37 C, below both default thresholds */
    qemu_mutex_init(&n->ftl_lock);
    qemu_mutex_init(&n->err_lock);
    /* wear a state file brought is not news: no event for it */
    femu_smart_events_arm(n);
    /* C0h per namespace: the FTL (perhaps the state file's) splits its
     * counters by namespace (ns.c) */
    femu_ns_ranges(n);

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
    trace_femu_realize(n->instance, n->params.femu_mode, n->ns[0].blocks,
                       n->cfg.secsz, n->params.queues, n->params.npollers);
    return;

fail_bh:
    femu_capture_fini(n);
    femu_state_unrealize(n);
    qemu_bh_delete(n->admin_bh);
    g_free(n->sq);
    g_free(n->cq);
    qemu_mutex_destroy(&n->ftl_lock);
    qemu_mutex_destroy(&n->err_lock);
fail_ftl:
    femu_ns_fini(n);
    femu_powercut_fini(n);
    if (n->ftl) {
        ftl_free(n->ftl);
        n->ftl = NULL;
    }
    femu_fdp_unrealize(n);
}

static void femu_exit(PCIDevice *pdev)
{
    FemuCtrl *n = FEMU(pdev);

    /* stop the threads first: nothing may touch queues or the store */
    qemu_remove_exit_notifier(&n->exit_notifier);
    qemu_del_vm_change_state_handler(n->vm_state);
    femu_state_save_wait(n);
    femu_pollers_stop(n);
    femu_capture_fini(n);
    femu_ctrl_reset(n);
    qemu_bh_delete(n->admin_bh);
    g_free(n->sq);
    g_free(n->cq);
    msix_uninit_exclusive_bar(pdev);
    femu_state_unrealize(n);
    femu_powercut_fini(n);
    if (n->ftl) {
        ftl_free(n->ftl);
        n->ftl = NULL;
    }
    qemu_mutex_destroy(&n->ftl_lock);
    qemu_mutex_destroy(&n->err_lock);
    femu_ns_fini(n);
    femu_fdp_unrealize(n);
}

static void femu_pci_reset(DeviceState *dev)
{
    /* a PCI/system reset is a controller reset; the store survives */
    femu_ctrl_reset(FEMU(dev));
}

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
    femu_props_class_init(oc);     /* props.c */
    femu_state_class_init(oc);
    device_class_set_legacy_reset(dc, femu_pci_reset);
    dc->vmsd = &femu_vmstate;
    /* the pollers and the store are set up for the VM's lifetime */
    dc->hotpluggable = false;
}

/*
 * QOM has set every property's default through its setter by now
 * (object_class_property_init_all); what the command line gives comes
 * after, and only that counts as given.
 */
static void femu_instance_init(Object *obj)
{
    memset(FEMU(obj)->prop_given, 0, sizeof(FEMU(obj)->prop_given));
}

static void femu_subsys_instance_init(Object *obj)
{
    memset(FEMU_SUBSYS(obj)->prop_given, 0,
           sizeof(FEMU_SUBSYS(obj)->prop_given));
}

static const TypeInfo femu_info = {
    .name = TYPE_FEMU,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(FemuCtrl),
    .instance_init = femu_instance_init,
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

    if (!femu_subsys_props_check(s, errp)) {
        return;
    }
    trace_femu_subsys_realize(s->fdp, s->fdp_nruh, s->fdp_nru);
}

static void femu_subsys_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);

    set_bit(DEVICE_CATEGORY_STORAGE, dc->categories);
    dc->realize = femu_subsys_realize;
    dc->desc = "FEMU NVM subsystem (Flexible Data Placement settings)";
    femu_subsys_props_class_init(oc);  /* props.c */
}

static const TypeInfo femu_subsys_info = {
    .name = TYPE_FEMU_SUBSYS,
    .parent = TYPE_DEVICE,
    .instance_size = sizeof(FemuSubsys),
    .instance_init = femu_subsys_instance_init,
    .class_init = femu_subsys_class_init,
};

static void femu_register_types(void)
{
    type_register_static(&femu_info);
    type_register_static(&femu_subsys_info);
}

type_init(femu_register_types)
