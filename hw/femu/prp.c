/*
 * FEMU: data transfer through PRPs and PRP lists (NVMe 2.0 base spec
 * 4.1.1), with the checks that keep a hostile guest inside its RAM.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "exec/memory.h"
#include "qemu/rcu.h"
#include "femu.h"
#include "trace.h"
#include "hw/femu/copy-stream.h"

/*
 * True when [addr, addr + len) is guest RAM as seen by the device's bus
 * master address space now.  Used to validate what the host hands over
 * (queue and shadow doorbell addresses) so that it gets an error status;
 * it protects nothing by itself: the guest can remap memory later, so
 * every access goes through femu_dma_read()/femu_dma_write() below,
 * which check and access in one step.
 */
bool femu_dma_is_ram(FemuCtrl *n, uint64_t addr, uint64_t len, bool to_guest)
{
    AddressSpace *as = femu_dma_as(n);

    if (!len) {
        return true;
    }
    if (addr + len < addr) {
        return false;
    }
    RCU_READ_LOCK_GUARD();
    while (len) {
        hwaddr xlat, l = len;
        MemoryRegion *mr = address_space_translate(as, addr, &xlat, &l,
                                                   to_guest,
                                                   MEMTXATTRS_UNSPECIFIED);

        if (!memory_region_is_ram(mr) || memory_region_is_ram_device(mr) ||
            (to_guest && mr->readonly) || !l) {
            return false;
        }
        addr += l;
        len -= l;
    }
    return true;
}

/*
 * The only way FEMU touches guest memory (rings, shadow doorbells, PRP
 * lists and data).  Each piece is translated once, and accessed through
 * that same translation inside one RCU read section, and only if it is
 * memory the device can access directly (memory_access_is_direct: RAM;
 * not MMIO, not unassigned memory, not ROM for a write, not a RAM device
 * BAR).  Anything else fails without being touched.  So a poller never
 * runs an MMIO handler and never needs the BQL, whatever the guest does
 * meanwhile: with pci_dma_read() after a femu_dma_is_ram() check (two
 * steps), bus mastering turned off between them sent the access to
 * unassigned MMIO, which takes the BQL, while the poller held its lock,
 * and a reset holding the BQL waited for that lock (tests/fuzz/README.md).
 *
 * Reads copy from the RAM block (a page or more with streaming stores,
 * femu_copy_stream: nearly every such copy is a write's data on its way
 * into the store; a whole PRP list page, the rare other, then costs a
 * cache miss per line when read).  Writes go through address_space_map()/
 * address_space_unmap(): unmap marks the pages dirty (migration, VGA)
 * and, under TCG, invalidates code translated from them, which a plain
 * memcpy would not.  A write target that is not direct RAM is mapped as
 * a bounce buffer, recognised as such (no RAM block holds it) and
 * unmapped with an access length of 0, which writes nothing.
 */
bool femu_dma_read(FemuCtrl *n, uint64_t addr, void *buf, uint64_t len)
{
    AddressSpace *as = femu_dma_as(n);
    MemTxAttrs attrs = MEMTXATTRS_UNSPECIFIED;
    uint8_t *p = buf;

    if (addr + len < addr) {
        return false;
    }
    /* like pci_dma_read(): the guest's earlier writes are visible */
    smp_mb();
    RCU_READ_LOCK_GUARD();
    while (len) {
        hwaddr xlat, l = len;
        MemoryRegion *mr = address_space_translate(as, addr, &xlat, &l,
                                                   false, attrs);

        if (!l || !memory_access_is_direct(mr, false, attrs)) {
            return false;
        }
        femu_copy_stream(p, qemu_map_ram_ptr(mr->ram_block, xlat), l);
        addr += l;
        p += l;
        len -= l;
    }
    return true;
}

/* Map [addr, addr + *len) of guest RAM for writing (*len may shrink). */
static void *femu_map_ram_for_write(AddressSpace *as, uint64_t addr,
                                    hwaddr *len)
{
    ram_addr_t off;
    void *p = address_space_map(as, addr, len, true, MEMTXATTRS_UNSPECIFIED);

    if (p && !memory_region_from_host(p, &off)) {
        address_space_unmap(as, p, *len, true, 0);
        return NULL;
    }
    return p;
}

/*
 * Write len bytes to guest RAM.  With ordered, the last dword becomes
 * visible after the rest (a CQE's phase tag, which the host polls:
 * NVMe 2.0 4.2.4); it must then lie in one mapping.
 */
static bool femu_dma_write_full(FemuCtrl *n, uint64_t addr, const void *buf,
                                uint64_t len, bool ordered)
{
    AddressSpace *as = femu_dma_as(n);
    const uint8_t *p = buf;

    if (addr + len < addr) {
        return false;
    }
    smp_mb();
    while (len) {
        hwaddr l = len;
        uint8_t *host = femu_map_ram_for_write(as, addr, &l);

        if (!host) {
            return false;
        }
        if (ordered) {
            if (l != len || len < 4) {
                address_space_unmap(as, host, l, true, 0);
                return false;
            }
            memcpy(host, p, len - 4);
            smp_wmb();
            memcpy(host + len - 4, p + len - 4, 4);
        } else {
            memcpy(host, p, l);
        }
        address_space_unmap(as, host, l, true, l);
        addr += l;
        p += l;
        len -= l;
    }
    return true;
}

bool femu_dma_write(FemuCtrl *n, uint64_t addr, const void *buf, uint64_t len)
{
    return femu_dma_write_full(n, addr, buf, len, false);
}

bool femu_dma_write_ordered(FemuCtrl *n, uint64_t addr, const void *buf,
                            uint64_t len)
{
    return femu_dma_write_full(n, addr, buf, len, true);
}

static uint16_t femu_dma_seg(FemuCtrl *n, uint64_t addr, uint8_t *buf,
                             uint64_t len, bool to_guest)
{
    bool ok = to_guest ? femu_dma_write(n, addr, buf, len)
                       : femu_dma_read(n, addr, buf, len);

    return ok ? NVME_SUCCESS : NVME_DATA_TRAS_ERROR | NVME_DNR;
}

/*
 * Move len bytes between buf and the guest memory that prp1/prp2
 * describe.  Bounded: every PRP list entry but a list's chain pointer
 * moves a page, and only the first list page can be a lone chain
 * pointer, so a looping list still ends once len bytes are moved.
 */
uint16_t femu_dma_prp(FemuCtrl *n, uint64_t prp1, uint64_t prp2,
                      uint8_t *buf, uint64_t len, bool to_guest)
{
    const uint64_t psz = FEMU_PAGE_SIZE;
    uint64_t ents[FEMU_PAGE_SIZE / sizeof(uint64_t)];
    uint64_t first, list, nents;
    uint16_t status;

    if (!len) {
        return NVME_SUCCESS;
    }
    if (len > n->max_xfer) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    /* PRP entries are dword aligned: bits 1:0 are zero (4.1.1) */
    if (prp1 & 3) {
        return NVME_INVALID_PRP_OFFSET | NVME_DNR;
    }
    first = MIN(len, psz - (prp1 & (psz - 1)));
    status = femu_dma_seg(n, prp1, buf, first, to_guest);
    if (status) {
        return status;
    }
    buf += first;
    len -= first;
    if (!len) {
        return NVME_SUCCESS;
    }
    if (len <= psz) {
        /* PRP2 is the second data page; its offset must be 0 */
        if (prp2 & (psz - 1)) {
            return NVME_INVALID_PRP_OFFSET | NVME_DNR;
        }
        return femu_dma_seg(n, prp2, buf, len, to_guest);
    }

    /* PRP2 points to a PRP list, which may start inside a page */
    if (prp2 & 3) {
        return NVME_INVALID_PRP_OFFSET | NVME_DNR;
    }
    list = prp2;
    nents = (psz - (list & (psz - 1))) / sizeof(uint64_t);
    if (!nents) {
        /*
         * A list that starts in the last dword of a page has no whole
         * entry in it.  Without this check k below was 0 and "k - 1"
         * data entries wrapped around: a read past ents[] (UBSan in
         * tests/qtest's random-chaos, seed 2973283625).
         */
        return NVME_INVALID_PRP_OFFSET | NVME_DNR;
    }
    while (len) {
        uint64_t needed = DIV_ROUND_UP(len, psz);
        uint64_t k = MIN(nents, needed);
        bool chain = needed > nents;
        uint64_t ndata = chain ? k - 1 : k;

        if (!femu_dma_read(n, list, ents, k * sizeof(uint64_t))) {
            return NVME_DATA_TRAS_ERROR | NVME_DNR;
        }
        for (uint64_t i = 0; i < ndata; i++) {
            uint64_t ent = le64_to_cpu(ents[i]);
            uint64_t seg = MIN(len, psz);

            if (ent & (psz - 1)) {
                return NVME_INVALID_PRP_OFFSET | NVME_DNR;
            }
            status = femu_dma_seg(n, ent, buf, seg, to_guest);
            if (status) {
                return status;
            }
            buf += seg;
            len -= seg;
        }
        if (chain) {
            list = le64_to_cpu(ents[k - 1]);
            if (list & (psz - 1)) {
                return NVME_INVALID_PRP_OFFSET | NVME_DNR;
            }
            nents = psz / sizeof(uint64_t);
        }
    }
    return NVME_SUCCESS;
}

/*
 * Data transfer of a command: PRPs (PSDT 00b) or an SGL (01b, 10b: the
 * two differ only in MPTR: FEMU has no separate metadata; sgl=on).  Admin
 * commands never get here with an SGL (femu_admin_exec refuses them).
 */
uint16_t femu_dma_cmd(FemuCtrl *n, NvmeCmd *cmd, uint8_t *buf, uint64_t len,
                      bool to_guest)
{
    switch (NVME_CMD_FLAGS_PSDT(cmd->flags)) {
    case NVME_PSDT_PRP:
        return femu_dma_prp(n, le64_to_cpu(cmd->dptr.prp1),
                            le64_to_cpu(cmd->dptr.prp2), buf, len, to_guest);
    case NVME_PSDT_SGL_MPTR_CONTIGUOUS:
    case NVME_PSDT_SGL_MPTR_SGL:
        if (!n->params.sgl) {
            /* sgl=off: SGLS is 0 */
            FEMU_GUEST_ERR(femu_sgl_off, le16_to_cpu(cmd->cid));
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        return femu_dma_sgl(n, &cmd->dptr.sgl, buf, len, to_guest);
    default:
        FEMU_GUEST_ERR(femu_psdt_reserved, le16_to_cpu(cmd->cid));
        return NVME_INVALID_FIELD | NVME_DNR;
    }
}
