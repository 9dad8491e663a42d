#!/bin/bash
# qtest group /femu/maxcmd: Identify MAXCMD with mqes=1023, 65534, 65535: clamped to 65535, never wrapped to 0.
# Expected NVMe statuses are in tests/qtest/femu-queues.c.
. "$(dirname "$0")/lib.sh"
qtest_group maxcmd
