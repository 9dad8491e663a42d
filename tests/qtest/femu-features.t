#!/bin/bash
# qtest group /femu/features: Timestamp (0Eh: origin after power-on, Set
# Features and a reset, Synch after a VM stop; exact values on the stepped
# virtual clock), Host
# Behavior Support (16h: kept fields, reserved bits refused), the UUID
# namespace descriptor, and Error log entries (Status Field = the CQE's
# status with its phase tag, both phases; SQID, CID, LBA).
# Expected values are in tests/qtest/femu-admin-io.c (test_features).
. "$(dirname "$0")/lib.sh"
qtest_group features
