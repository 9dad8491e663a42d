#!/bin/bash
# femu behind a vIOMMU is refused at start-up (exit 1, one line that says
# why and how to place it): its pollers access guest memory holding their
# own lock, and an IOMMU translation may need the BQL, which a controller
# reset holds while it waits for that lock.  On a bus that bypasses the
# IOMMU it starts.  Needs a QEMU build with intel-iommu (CONFIG_VTD).
. "$(dirname "$0")/lib.sh"
if ! "$FEMU_QEMU" -M q35 -device help 2>/dev/null | grep -q '"intel-iommu"'; then
    echo "SKIP: this QEMU build has no intel-iommu device"
    exit 77
fi
refuse '^femu does not work behind a vIOMMU \(its DMA address space is not system memory\); put it on a bus that bypasses the IOMMU' \
    -device intel-iommu,intremap=off femu
refuse 'vIOMMU' -device intel-iommu,intremap=off femu,femu_mode=2
accept -machine default_bus_bypass_iommu=on -device intel-iommu,intremap=off femu
# without a vIOMMU nothing changes
accept femu
finish
