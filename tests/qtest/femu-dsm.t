#!/bin/bash
# qtest group /femu/dsm: Dataset Management with 256 ranges, out-of-range LBAs, range list outside RAM;
# /femu/dsm/gc: a deallocate starts background GC by itself.
# Expected NVMe statuses are in tests/qtest/femu-admin-io.c.
. "$(dirname "$0")/lib.sh"
qtest_group dsm
