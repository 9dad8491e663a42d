#!/bin/bash
# qtest group /femu/prp-sgl: PRPs outside RAM, misaligned, PRP lists off RAM / looping / too short, SGL unsupported.
# Expected NVMe statuses are in tests/qtest/femu-admin-io.c.
. "$(dirname "$0")/lib.sh"
qtest_group prp-sgl
