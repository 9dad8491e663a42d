#!/bin/bash
# qtest group /femu/fdp: FDP: I/O Management Receive/Send with bad operations, placement ids, directive types, endurance group; two namespaces sharing the handles (events name the namespace).
# Expected NVMe statuses are in tests/qtest/femu-fdp.c.
. "$(dirname "$0")/lib.sh"
qtest_group fdp
