#!/bin/bash
# qtest group /femu/dbbuf: Doorbell Buffer Config with misaligned and out-of-RAM addresses.
# Expected NVMe statuses are in tests/qtest/femu-queues.c.
. "$(dirname "$0")/lib.sh"
qtest_group dbbuf
