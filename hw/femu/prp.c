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

/*
 * True when [addr, addr + len) is guest RAM as seen by the device's bus
 * master address space.  Pollers run without the BQL, so they must never
 * reach MMIO (which would take the BQL and could deadlock a reset that
 * waits for them): every address the guest hands over is checked here.
 */
bool femu_dma_is_ram(FemuCtrl *n, uint64_t addr, uint64_t len, bool to_guest)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(n));

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

static uint16_t femu_dma_seg(FemuCtrl *n, uint64_t addr, uint8_t *buf,
                             uint64_t len, bool to_guest)
{
    MemTxResult r;

    if (!femu_dma_is_ram(n, addr, len, to_guest)) {
        return NVME_DATA_TRAS_ERROR | NVME_DNR;
    }
    if (to_guest) {
        r = pci_dma_write(PCI_DEVICE(n), addr, buf, len);
    } else {
        r = pci_dma_read(PCI_DEVICE(n), addr, buf, len);
    }
    return r == MEMTX_OK ? NVME_SUCCESS : NVME_DATA_TRAS_ERROR | NVME_DNR;
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

        if (!femu_dma_is_ram(n, list, k * sizeof(uint64_t), false) ||
            pci_dma_read(PCI_DEVICE(n), list, ents, k * sizeof(uint64_t))
            != MEMTX_OK) {
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

/* Data transfer of a command: PRPs only (SGLs are not supported). */
uint16_t femu_dma_cmd(FemuCtrl *n, NvmeCmd *cmd, uint8_t *buf, uint64_t len,
                      bool to_guest)
{
    if (NVME_CMD_FLAGS_PSDT(cmd->flags) != NVME_PSDT_PRP) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    return femu_dma_prp(n, le64_to_cpu(cmd->dptr.prp1),
                        le64_to_cpu(cmd->dptr.prp2), buf, len, to_guest);
}
