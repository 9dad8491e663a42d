#!/bin/bash
# qtest group /femu/zns: femu_mode=3: Identify for CSI 02h, CAP.CSS, the effects log, writes at the write pointer, Zone Append (ZASL), Write Zeroes, DSM, reads past the write pointer, every zone action and transition, max open/active, report filters and partial reports, C0h zone resets; the Changed Zone List (partial reads with RAE cleared, the notice after a change made while it was disabled); Reset with Select All in steps; the zoned write cache (write_cache_mb): cached writes, FUA, Flush, and power cuts (0xEF code 12, power_cut_after) rolling each zone back to its durable write pointer.
# Expected NVMe statuses are in tests/qtest/femu-zns.c.
. "$(dirname "$0")/lib.sh"
qtest_group zns
