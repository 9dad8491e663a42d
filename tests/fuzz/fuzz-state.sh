#!/bin/bash
# Build and run the state-file loader libFuzzer harness (tests/fuzz/fuzz-state.c).
#
#   tests/fuzz/fuzz-state.sh [SECONDS]      (make fuzz-state FUZZ_SECONDS=...)
#
# Builds build-fuzz/fuzz-state with clang -fsanitize=fuzzer,address,undefined
# (installs clang and libclang-rt-14-dev from Debian if missing), runs it on
# one core at nice 19 for SECONDS (default 600) on a working corpus seeded
# from tests/fuzz/corpus-state/ (kept in build-fuzz/corpus-state/ between runs),
# then minimises it; FUZZ_UPDATE_CORPUS=1 replaces tests/fuzz/corpus-state/
# with a small sample of the result (inputs up to 512 bytes).
# A crash stops the run; its input is left in build-fuzz/ (crash-*): copy
# it to tests/fuzz/crashes-state/ so tests/fuzz/state-replay.t replays it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd -P)
secs=${1:-600}
out=$root/build-fuzz
src=$root/tests/fuzz

if ! command -v clang >/dev/null ||
   ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
    echo "fuzz-state: installing clang and libclang-rt-14-dev"
    apt-get install -y -q clang libclang-rt-14-dev >/dev/null
fi
mkdir -p "$out/corpus-state" "$src/corpus-state"
ftl_src=$(sed -n "s/^ *'\([a-z-]*\.c\)',*$/\1/p" "$root/hw/femu/ftl/meson.build")
clang -g -O1 -Wall -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -I"$root/include" -I"$root/hw/femu/ftl" \
    "$src/fuzz-state.c" $(for f in $ftl_src; do echo "$root/hw/femu/ftl/$f"; done) \
    -o "$out/fuzz-state"
cp -n "$src"/corpus-state/* "$out/corpus-state/" 2>/dev/null || true
cd "$out"
rc=0
nice -n 19 ./fuzz-state -max_total_time="$secs" -max_len=512 -timeout=20 \
    -print_final_stats=1 corpus-state 2>&1 | tee fuzz-state.log | grep -v '^#[0-9].*\(NEW\|REDUCE\|pulse\)' || rc=$?
rc=${PIPESTATUS[0]}
# keep the repository's corpus to inputs that add coverage
mkdir -p corpus-min
rm -f corpus-min/*
./fuzz-state -merge=1 -max_len=512 corpus-min "$src/corpus-state" corpus-state >/dev/null 2>&1 || true
# the working corpus stays in build-fuzz/; with FUZZ_UPDATE_CORPUS=1 the
# repository's corpus becomes an even sample of the minimised one (at most
# $keep inputs, a few KiB)
keep=${FUZZ_KEEP:-32}
n=$(ls corpus-min | wc -l)
if [ "${FUZZ_UPDATE_CORPUS:-0}" = 1 ]; then
rm -f "$src"/corpus-state/*
step=$(( (n + keep - 1) / keep )); [ "$step" -ge 1 ] || step=1
ls corpus-min | awk -v s="$step" 'NR % s == 0' | while read -r f; do
    cp "corpus-min/$f" "$src/corpus-state/"
done
fi
echo "fuzz-state: working corpus $n inputs; kept $(ls "$src/corpus-state" | wc -l)" \
     "in tests/fuzz/corpus-state ($(cat "$src"/corpus-state/* | wc -c) bytes);" \
     "log: $out/fuzz-state.log"
exit "$rc"
