#!/bin/bash
# Build and run the trace parsers' libFuzzer harness
# (tests/fuzz/fuzz-trace.c): tests/fuzz/fuzz-ftl.sh with FUZZ_HARNESS=trace.
#
#   tests/fuzz/fuzz-trace.sh [SECONDS]      (make fuzz-trace FUZZ_SECONDS=...)
FUZZ_HARNESS=trace exec "$(dirname "$0")/fuzz-ftl.sh" "$@"
