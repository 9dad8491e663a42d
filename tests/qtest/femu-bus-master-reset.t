#!/bin/bash
# qtest group /femu/bus-master-reset: regression for a deadlock found by
# the random-chaos fuzzer (seed 4244956249): PCI bus mastering off while
# an I/O SQ (and shadow doorbells) has new entries, then a controller
# reset; the reset must return and the device work afterwards.  A hang
# here fails after 120 s instead of the usual 300.
. "$(dirname "$0")/lib.sh"
qtest_group bus-master-reset 120
