#!/bin/bash
# qtest group /femu/queues: create/delete I/O queues: id 0, duplicate, too large, size 0/too big, CQ missing, bad vector, CQ with SQs.
# Expected NVMe statuses are in tests/qtest/femu-queues.c.
. "$(dirname "$0")/lib.sh"
qtest_group queues
