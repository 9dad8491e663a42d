#!/bin/bash
# qtest group /femu/random-chaos: 1000 random steps of controller abuse
# on an FDP device with a configuration drawn from the seed (mdts 1-9,
# pollers 1-4, queues 2, 3 or 64, mqes 1023 or 65535): random admin,
# I/O and FDP commands, Get Log Page with random id/offset/length, queue
# creation/deletion (also with commands in flight, and SQs 1-3 sharing a
# small CQ, so up to 3 pollers park completions in it), Doorbell Buffer Config
# and shadow doorbells, AERs, random doorbell and register writes,
# controller disable/enable/shutdown/failed enable, bus mastering and
# MSI-X off and on.  Every command must complete while the driver's model
# of the queues holds, CSTS.CFS must stay 0, resets must work, and the
# health check passes every 64 steps.  Longer runs: FEMU_QTEST_CHAOS_STEPS
# or FEMU_QTEST_FUZZ_SECONDS; replay: FEMU_QTEST_SEED (printed first).
# make check uses a fixed seed (a CI run must not fail on a sequence no
# one has seen); FEMU_QTEST_SEED= (empty) draws a random one.
export FEMU_QTEST_SEED=${FEMU_QTEST_SEED-22}
. "$(dirname "$0")/lib.sh"
qtest_group random-chaos
