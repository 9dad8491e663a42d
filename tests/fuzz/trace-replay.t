#!/bin/bash
# Regression test for femu-sim's trace parsers under the fuzzer's checks:
# replays the corpus tests/fuzz/corpus-trace/ (femu traces, MSR, blkparse
# and fio iolog inputs and their mutations) through tests/fuzz/fuzz-trace.c
# (a replay succeeds or is refused with one line, the FTL keeps its
# invariants), built with gcc and ASan/UBSan when the toolchain has them.
# No libFuzzer needed.
exec "$(dirname "$0")/replay.sh" trace
