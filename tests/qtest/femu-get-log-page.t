#!/bin/bash
# qtest group /femu/get-log-page: Get Log Page: huge lengths, offsets past the log, misaligned offset, unknown log id, no write past the log.
# Expected NVMe statuses are in tests/qtest/femu-admin-io.c.
. "$(dirname "$0")/lib.sh"
qtest_group get-log-page
