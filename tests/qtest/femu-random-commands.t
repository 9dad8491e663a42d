#!/bin/bash
# qtest group /femu/random-commands: 3000 random admin and I/O commands
# (random opcodes, fields, data pointers inside/outside RAM, misaligned,
# PRP lists), each must complete without a controller fatal status; then
# the health check.  Longer runs: FEMU_QTEST_RANDOM_CMDS=N, seed: the TAP
# output's "random seed" line (replay with femu-test --seed=...).
. "$(dirname "$0")/lib.sh"
qtest_group random-commands
