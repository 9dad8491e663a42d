#!/bin/bash
# Regression test for the state-file loader fuzzer: replays
# tests/fuzz/crashes-state/ (crashes it found, now fixed) and the corpus
# tests/fuzz/corpus-state/ through the harness's checks (a loaded state keeps
# its invariants through a workload, a refusal is one line), built with
# gcc and ASan/UBSan when the toolchain has them.  No libFuzzer needed.
exec "$(dirname "$0")/replay.sh" state
