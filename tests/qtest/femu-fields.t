#!/bin/bash
# qtest group /femu/fields: bad fields: Identify CNS/NSID, features, abort, 0xEF code, NSID, LBA range, MDTS.
# Expected NVMe statuses are in tests/qtest/femu-admin-io.c.
. "$(dirname "$0")/lib.sh"
qtest_group fields
