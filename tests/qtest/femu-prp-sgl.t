#!/bin/bash
# qtest group /femu/prp-sgl: PRPs outside RAM, misaligned, PRP lists off RAM / looping / too short, an SGL on an admin command (I/O SGLs: femu-sgl.t).
# Expected NVMe statuses are in tests/qtest/femu-admin-io.c.
. "$(dirname "$0")/lib.sh"
qtest_group prp-sgl
