#!/bin/bash
# qtest group /femu/random-commands: 3000 random admin and I/O commands
# (random opcodes, fields, data pointers inside/outside RAM, misaligned,
# PRP lists), each must complete without a controller fatal status; then
# the health check.  Longer runs: FEMU_QTEST_RANDOM_CMDS=N; the seed is
# printed first (replay: FEMU_QTEST_SEED=N).
# make check uses a fixed seed (a CI run must not fail on a sequence no
# one has seen); FEMU_QTEST_SEED= (empty) draws a random one.
export FEMU_QTEST_SEED=${FEMU_QTEST_SEED-1}
. "$(dirname "$0")/lib.sh"
qtest_group random-commands
