#!/bin/bash
# qtest group /femu/state-incr: a save after the first writes only the chunks written or deallocated since (trace event femu_state_save: 16 chunks, then 1 and 1 trimmed), a state file cut in the middle of its last generation (a save killed half way) loads the previous save with its data, the next save replaces the torn tail, and saves that outgrow the data write a whole file again (compaction).
# Expected NVMe statuses are in tests/qtest/femu-admin-io.c.
. "$(dirname "$0")/lib.sh"
qtest_group state-incr 300
