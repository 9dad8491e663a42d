# Device set for FEMU's qemu-system-x86_64 (used with --without-default-devices,
# so nothing is built unless it is listed here or selected by what is listed).
# Boards: i440fx ("-M pc") and q35; they select fw_cfg, the PC chipset, IDE/AHCI.
CONFIG_I440FX=y
CONFIG_Q35=y
# Console: a 16550 UART on the ISA bus.
CONFIG_SERIAL_ISA=y
# Standard VGA, so the boards' default display exists (no warning at start-up).
CONFIG_VGA_PCI=y
# virtio over PCI: net, blk, scsi.
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_NET=y
CONFIG_VIRTIO_BLK=y
CONFIG_VIRTIO_SCSI=y
# Intel's vIOMMU (-device intel-iommu): guests that run SPDK, DPDK or VFIO
# need one; femu refuses realize behind it unless its bus bypasses it
# (docs/device.md).
CONFIG_VTD=y
# QEMU's own NVMe controller: the peer FEMU is tested and benchmarked against.
CONFIG_NVME_PCI=y
# FEMU itself (hw/femu/Kconfig).
CONFIG_FEMU=y
