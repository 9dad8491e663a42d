#!/bin/bash
# qtest group /femu/state-save-qmp: a save the guest asks for (0xEF code 8, 256 MiB of data) runs without the BQL: QMP query-status answers while it writes PATH.tmp, and the command completes after that answer, when the file is on disk.
# Expected NVMe statuses are in tests/qtest/femu-admin-io.c.
. "$(dirname "$0")/lib.sh"
qtest_group state-save-qmp 600
