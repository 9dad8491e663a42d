#!/bin/bash
# Regression test for the FTL fuzzer: replays tests/fuzz/crashes-ftl/
# (every crash the fuzzer found, now fixed) and the corpus
# tests/fuzz/corpus-ftl/ through the harness's checks (invariants, counter
# relations, read costs, the reserve rule's no-failure promise), built with
# gcc and ASan/UBSan when the toolchain has them.  No libFuzzer needed.
set -uo pipefail
root=${FEMU_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
out=${FEMU_TEST_LOGDIR:-$(mktemp -d)}
src=$root/tests/fuzz
ftl_src=$(sed -n "s/^ *'\([a-z-]*\.c\)',*$/\1/p" "$root/hw/femu/ftl/meson.build")
files=("$src/fuzz-ftl.c" "$src/replay-main.c")
for f in $ftl_src; do files+=("$root/hw/femu/ftl/$f"); done

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
echo 'int main(void){return 0;}' > "$out/probe.c"
if ! gcc $san "$out/probe.c" -o "$out/probe" 2>/dev/null; then
    echo "(no ASan/UBSan runtime for gcc: replaying without sanitizers)"
    san=
fi
gcc -std=gnu11 -g -O1 -Wall $san -I"$root/include" -I"$root/hw/femu/ftl" \
    "${files[@]}" -o "$out/fuzz-ftl-replay" || exit 1

ncrash=$(ls "$src/crashes-ftl" | wc -l)
ncorpus=$(ls "$src/corpus-ftl" | wc -l)
if [ "$ncrash" -eq 0 ] || [ "$ncorpus" -eq 0 ]; then
    echo "FAIL: expected saved crashes and a corpus ($ncrash, $ncorpus)"
    exit 1
fi
# detect_leaks: ftl_new/ftl_free pairs must not leak either
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$out/fuzz-ftl-replay" "$src/crashes-ftl" "$src/corpus-ftl" || {
    echo "FAIL: a fuzzer input broke a check (output above)"; exit 1; }
echo "PASS: $ncrash saved crash inputs and $ncorpus corpus inputs replayed clean"
