#!/bin/bash
# qtest group /femu/doorbells: doorbell writes for missing queues, beyond the BAR, head/tail beyond the queue size.
# Expected NVMe statuses are in tests/qtest/femu-test.c.
. "$(dirname "$0")/lib.sh"
qtest_group doorbells
