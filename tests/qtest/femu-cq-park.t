#!/bin/bash
# qtest group /femu/cq-park: a host that leaves a CQ full: completions parked until the head moves (MMIO, and shadow doorbells with event indexes, 2 pollers sharing the CQ, with pin interrupts and with MSI-X); the pollers use under 5% of a core over 2 s.
# Expected NVMe statuses are in tests/qtest/femu-queues.c.
. "$(dirname "$0")/lib.sh"
qtest_group cq-park
