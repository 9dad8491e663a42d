#!/bin/bash
# qtest group /femu/sgl: hand-built Scatter Gather Lists (data blocks, chained and last segments, bit buckets) and every bad list with its status, nothing written outside the command's buffers; sgl=off; 200 random lists (sgl/random).
# Cases and expected NVMe statuses are in tests/qtest/femu-sgl.c.
. "$(dirname "$0")/lib.sh"
qtest_group sgl
