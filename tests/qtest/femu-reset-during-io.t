#!/bin/bash
# qtest group /femu/reset-during-io: controller disable/enable and NVM subsystem reset while writes are in flight.
# Expected NVMe statuses are in tests/qtest/femu-queues.c.
. "$(dirname "$0")/lib.sh"
qtest_group reset-during-io
