#!/bin/bash
# qtest group /femu/random-chaos: 1000 random steps of controller abuse
# on a device with a configuration drawn from the seed: an FDP device
# (mdts 1-9, pollers 1-4, queues 2, 3 or 64, mqes 1023 or 65535) or, for
# one seed in four (seed % 4 == 3), a zoned one (femu_mode=3 with a zone
# geometry and open/active limits from the seed): random admin, I/O, FDP
# and zone commands (Zone Management Send/Receive, Zone Append, writes at
# and away from the write pointer, reads past it), Get Log Page with random
# id/offset/length, queue creation/deletion (also with commands in flight,
# and SQs 1-3 sharing a small CQ, so up to 3 pollers park completions in
# it), Doorbell Buffer Config and shadow doorbells, AERs, random doorbell
# and register writes, controller disable/enable/shutdown/failed enable,
# bus mastering and MSI-X off and on.  Every command must complete while
# the driver's model of the queues holds, CSTS.CFS must stay 0, resets
# must work, and the health check (on the zoned device: a write at a
# zone's write pointer, read back) passes every 64 steps.  Longer runs:
# FEMU_QTEST_CHAOS_STEPS or FEMU_QTEST_FUZZ_SECONDS; replay:
# FEMU_QTEST_SEED (printed first).
# make check uses fixed seeds (a CI run must not fail on a sequence no one
# has seen): 22 (FDP device) and 23 (zoned device, 500 steps);
# FEMU_QTEST_SEED=S runs seed S alone, FEMU_QTEST_SEED= (empty) a random one.
. "$(dirname "$0")/lib.sh"
if [ "${FEMU_QTEST_SEED-unset}" != unset ]; then
    qtest_group random-chaos
fi
rc=0
( export FEMU_QTEST_SEED=22; qtest_group random-chaos ) || rc=1
( export FEMU_QTEST_SEED=23
  export FEMU_QTEST_CHAOS_STEPS=${FEMU_QTEST_CHAOS_STEPS:-500}
  qtest_group random-chaos ) || rc=1
exit "$rc"
