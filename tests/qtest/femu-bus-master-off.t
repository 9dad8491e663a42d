#!/bin/bash
# qtest group /femu/bus-master-off: with PCI bus mastering off the
# controller serves nothing (no command fetched, no CQE), and commands
# queued meanwhile complete, in order, once it is back on: MMIO doorbells,
# shadow doorbells, admin queue.  Prints the pollers' CPU time over the
# pause (a failed fetch must not be retried in a busy loop; not asserted).
. "$(dirname "$0")/lib.sh"
qtest_group bus-master-off 120
