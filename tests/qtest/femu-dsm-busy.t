#!/bin/bash
# qtest group /femu/dsm-busy: the largest advertised Dataset Management commands on a 16 GiB namespace; Identify NS, Get Log C0h, Create/Delete SQ and CC.EN=0 meanwhile answer within 100 ms.
# Expected NVMe statuses are in tests/qtest/femu-admin-io.c.
. "$(dirname "$0")/lib.sh"
qtest_group dsm-busy
