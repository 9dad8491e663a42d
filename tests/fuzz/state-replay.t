#!/bin/bash
# Regression test for the state-file loader fuzzer: replays
# tests/fuzz/crashes-state/ (crashes it found, now fixed) and the corpus
# tests/fuzz/corpus-state/ through the harness's checks (a loaded state keeps
# its invariants through a workload, a refusal is one line), built with
# gcc and ASan/UBSan when the toolchain has them.  No libFuzzer needed.
set -uo pipefail
root=${FEMU_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
out=${FEMU_TEST_LOGDIR:-$(mktemp -d)}
src=$root/tests/fuzz
ftl_src=$(sed -n "s/^ *'\([a-z-]*\.c\)',*$/\1/p" "$root/hw/femu/ftl/meson.build")
files=("$src/fuzz-state.c" "$src/replay-main.c")
for f in $ftl_src; do files+=("$root/hw/femu/ftl/$f"); done

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
echo 'int main(void){return 0;}' > "$out/probe.c"
if ! gcc $san "$out/probe.c" -o "$out/probe" 2>/dev/null; then
    echo "(no ASan/UBSan runtime for gcc: replaying without sanitizers)"
    san=
fi
gcc -std=gnu11 -g -O1 -Wall $san -I"$root/include" -I"$root/hw/femu/ftl" \
    "${files[@]}" -o "$out/fuzz-state-replay" || exit 1

mkdir -p "$src/crashes-state"
ncrash=$(ls "$src/crashes-state" | wc -l)
ncorpus=$(ls "$src/corpus-state" | wc -l)
if [ "$ncorpus" -eq 0 ]; then
    echo "FAIL: expected a corpus in $src/corpus-state"
    exit 1
fi
# detect_leaks: ftl_new/ftl_free pairs must not leak either
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$out/fuzz-state-replay" "$src/crashes-state" "$src/corpus-state" || {
    echo "FAIL: a fuzzer input broke a check (output above)"; exit 1; }
echo "PASS: $ncrash saved crash inputs and $ncorpus corpus inputs replayed clean"
