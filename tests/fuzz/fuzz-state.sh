#!/bin/bash
# Build and run the state-file loader's libFuzzer harness
# (tests/fuzz/fuzz-state.c): tests/fuzz/fuzz-ftl.sh with FUZZ_HARNESS=state.
#
#   tests/fuzz/fuzz-state.sh [SECONDS]      (make fuzz-state FUZZ_SECONDS=...)
FUZZ_HARNESS=state exec "$(dirname "$0")/fuzz-ftl.sh" "$@"
