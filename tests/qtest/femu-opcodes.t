#!/bin/bash
# qtest group /femu/opcodes: every admin and I/O opcode the controller does not implement -> Invalid Command Opcode.
# Expected NVMe statuses are in tests/qtest/femu-admin-io.c.
. "$(dirname "$0")/lib.sh"
qtest_group opcodes
