#!/bin/bash
# Replays one fuzz harness's saved inputs through its checks, for
# tests/fuzz/ftl-replay.t and state-replay.t:
#
#   tests/fuzz/replay.sh ftl|state|trace
#
# builds tests/fuzz/fuzz-HARNESS.c with replay-main.c (no libFuzzer) and
# the FTL sources, with gcc and ASan/UBSan when the toolchain has them, and
# runs it over tests/fuzz/crashes-HARNESS/ (every crash the fuzzer found,
# now fixed) and tests/fuzz/corpus-HARNESS/; both must hold inputs (the
# trace harness has found no crash: it has no crashes directory).
set -uo pipefail
h=${1:-}
case $h in
ftl|state|trace) ;;
*) echo "replay: usage: replay.sh ftl|state|trace (got '$h')" >&2; exit 2 ;;
esac
root=${FEMU_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
out=${FEMU_TEST_LOGDIR:-$(mktemp -d)}
src=$root/tests/fuzz
ftl_src=$(sed -n "s/^ *'\([a-z-]*\.c\)',*$/\1/p" "$root/hw/femu/ftl/meson.build")
files=("$src/fuzz-$h.c" "$src/replay-main.c")
for f in $ftl_src; do files+=("$root/hw/femu/ftl/$f"); done
# the trace parsers are femu-sim's
[ "$h" = trace ] && files+=("$root/hw/femu/ftl/sim/replay.c")

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
echo 'int main(void){return 0;}' > "$out/probe.c"
if ! gcc $san "$out/probe.c" -o "$out/probe" 2>/dev/null; then
    echo "(no ASan/UBSan runtime for gcc: replaying without sanitizers)"
    san=
fi
gcc -std=gnu11 -g -O1 -Wall $san -I"$root/include" -I"$root/hw/femu/ftl" \
    "${files[@]}" -o "$out/fuzz-$h-replay" || exit 1

ncrash=$(ls "$src/crashes-$h" 2>/dev/null | wc -l)
ncorpus=$(ls "$src/corpus-$h" 2>/dev/null | wc -l)
dirs=("$src/corpus-$h")
[ "$h" = trace ] || dirs=("$src/crashes-$h" "${dirs[@]}")
if { [ "$h" != trace ] && [ "$ncrash" -eq 0 ]; } || [ "$ncorpus" -eq 0 ]; then
    echo "FAIL: expected saved crashes and a corpus in $src/crashes-$h," \
         "$src/corpus-$h ($ncrash, $ncorpus)"
    exit 1
fi
# detect_leaks: ftl_new/ftl_free pairs must not leak either
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$out/fuzz-$h-replay" "${dirs[@]}" || {
    echo "FAIL: a fuzzer input broke a check (output above)"; exit 1; }
echo "PASS: $ncrash saved crash inputs and $ncorpus corpus inputs replayed clean"
