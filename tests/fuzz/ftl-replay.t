#!/bin/bash
# Regression test for the FTL fuzzer: replays tests/fuzz/crashes-ftl/
# (every crash the fuzzer found, now fixed) and the corpus
# tests/fuzz/corpus-ftl/ through the harness's checks (invariants, counter
# relations, read costs, the reserve rule's no-failure promise), built with
# gcc and ASan/UBSan when the toolchain has them.  No libFuzzer needed.
exec "$(dirname "$0")/replay.sh" ftl
