#!/bin/bash
# Build and run one of the libFuzzer harnesses: the FTL (tests/fuzz/fuzz-ftl.c,
# inputs up to 256 bytes) or, with FUZZ_HARNESS=state, the state-file loader
# (tests/fuzz/fuzz-state.c, inputs up to 512 bytes; tests/fuzz/fuzz-state.sh)
# or, with FUZZ_HARNESS=trace, femu-sim's trace parsers (tests/fuzz/fuzz-trace.c,
# inputs up to 4096 bytes; tests/fuzz/fuzz-trace.sh).
#
#   tests/fuzz/fuzz-ftl.sh [SECONDS]      (make fuzz-ftl FUZZ_SECONDS=...)
#
# Builds build-fuzz/fuzz-H (H = ftl or state) with clang
# -fsanitize=fuzzer,address,undefined (installs clang and libclang-rt-14-dev
# from Debian if missing), runs it on one core at nice 19 for SECONDS
# (default 600) on a working corpus seeded from tests/fuzz/corpus-H/ (kept in
# build-fuzz/corpus-H/ between runs), then minimises it;
# FUZZ_UPDATE_CORPUS=1 replaces tests/fuzz/corpus-H/ with a small sample of
# the result.  A crash stops the run; its input is left in build-fuzz/
# (crash-*): copy it to tests/fuzz/crashes-H/ so tests/fuzz/H-replay.t
# replays it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd -P)
secs=${1:-600}
h=${FUZZ_HARNESS:-ftl}
case $h in
ftl) maxlen=256 ;;
state) maxlen=512 ;;
trace) maxlen=4096 ;;
*) echo "fuzz: FUZZ_HARNESS must be ftl, state or trace (got '$h')" >&2; exit 2 ;;
esac
out=$root/build-fuzz
src=$root/tests/fuzz

if ! command -v clang >/dev/null ||
   ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
    echo "fuzz-$h: installing clang and libclang-rt-14-dev"
    apt-get install -y -q clang libclang-rt-14-dev >/dev/null
fi
mkdir -p "$out/corpus-$h" "$src/corpus-$h"
ftl_src=$(sed -n "s/^ *'\([a-z-]*\.c\)',*$/\1/p" "$root/hw/femu/ftl/meson.build")
clang -g -O1 -Wall -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -I"$root/include" -I"$root/hw/femu/ftl" \
    "$src/fuzz-$h.c" $(for f in $ftl_src; do echo "$root/hw/femu/ftl/$f"; done) \
    $([ "$h" = trace ] && echo "$root/hw/femu/ftl/sim/replay.c") \
    -o "$out/fuzz-$h"
cp -n "$src"/corpus-$h/* "$out/corpus-$h/" 2>/dev/null || true
cd "$out"
rc=0
nice -n 19 ./fuzz-$h -max_total_time="$secs" -max_len=$maxlen -timeout=20 \
    -print_final_stats=1 corpus-$h 2>&1 | tee fuzz-$h.log | grep -v '^#[0-9].*\(NEW\|REDUCE\|pulse\)' || rc=$?
rc=${PIPESTATUS[0]}
# keep the repository's corpus to inputs that add coverage
mkdir -p corpus-min
rm -f corpus-min/*
./fuzz-$h -merge=1 -max_len=$maxlen corpus-min "$src/corpus-$h" corpus-$h >/dev/null 2>&1 || true
# the working corpus stays in build-fuzz/; with FUZZ_UPDATE_CORPUS=1 the
# repository's corpus becomes an even sample of the minimised one (at most
# $keep inputs, a few KiB)
keep=${FUZZ_KEEP:-32}
n=$(ls corpus-min | wc -l)
if [ "${FUZZ_UPDATE_CORPUS:-0}" = 1 ]; then
rm -f "$src"/corpus-$h/*
step=$(( (n + keep - 1) / keep )); [ "$step" -ge 1 ] || step=1
ls corpus-min | awk -v s="$step" 'NR % s == 0' | while read -r f; do
    cp "corpus-min/$f" "$src/corpus-$h/"
done
fi
echo "fuzz-$h: working corpus $n inputs; kept $(ls "$src/corpus-$h" | wc -l)" \
     "in tests/fuzz/corpus-$h ($(cat "$src"/corpus-$h/* | wc -c) bytes);" \
     "log: $out/fuzz-$h.log"
exit "$rc"
