#!/bin/bash
# femu behind a vIOMMU is refused at start-up (exit 1, one line that says
# why and how to place it): its pollers access guest memory holding their
# own lock, and an IOMMU translation may need the BQL, which a controller
# reset holds while it waits for that lock.  On a bus that bypasses the
# IOMMU it starts.
. "$(dirname "$0")/lib.sh"
# The graft's device set (scripts/graft/femu-devices.mak) selects CONFIG_VTD.
if ! "$FEMU_QEMU" -M q35 -device help 2>/dev/null | grep -q '"intel-iommu"'; then
    echo "FAIL: this QEMU build has no intel-iommu device (femu-devices.mak selects CONFIG_VTD)"
    exit 1
fi
refuse '^femu does not work behind a vIOMMU \(its DMA address space is not system memory\); put it on a bus that bypasses the IOMMU' \
    -device intel-iommu,intremap=off femu
refuse 'vIOMMU' -device intel-iommu,intremap=off femu,femu_mode=2
accept -machine default_bus_bypass_iommu=on -device intel-iommu,intremap=off femu
# without a vIOMMU nothing changes
accept femu
finish
