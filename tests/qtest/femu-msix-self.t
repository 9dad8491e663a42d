#!/bin/bash
# qtest group /femu/msix-self: MSI-X table entries aimed at the controller's own CC register: the re-entrant write is refused for admin and I/O queue interrupts; the controller stays enabled and works.
# Expected NVMe statuses are in tests/qtest/femu-queues.c.
. "$(dirname "$0")/lib.sh"
qtest_group msix-self
