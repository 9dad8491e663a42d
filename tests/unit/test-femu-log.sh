#!/bin/bash
# scripts/femu-log.sh, the one decoder of log pages C0h and C1h:
# - it reads back every field of pages that abi-pages (ARG 1) built with
#   include/hw/femu/femu-abi.h's structs, digit for digit;
# - a short or missing page is an error (exit 1, one line), bad usage 2;
# - the copies of its functions in the single-file tutorial scripts are
#   exactly what `femu-log.sh --emit` prints.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd -P)
abi=${1:?usage: test-femu-log.sh ABI-PAGES-BINARY}
dec=$root/scripts/femu-log.sh
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
ok() { echo "ok - $*"; }
bad() { echo "not ok - $*"; fails=$((fails + 1)); }

"$abi" "$t" >"$t/expected" || { echo "not ok - abi-pages failed"; exit 1; }
[ "$("$dec" c0 "$t/c0.bin")" = "$(sed -n 1p "$t/expected")" ] &&
    ok "C0h: every field as femu-abi.h lays it out" ||
    bad "C0h: got '$("$dec" c0 "$t/c0.bin")', want '$(sed -n 1p "$t/expected")'"
[ "$("$dec" c1 "$t/c1.bin")" = "$(sed -n 2p "$t/expected")" ] &&
    ok "C1h: every summary field as femu-abi.h lays it out" ||
    bad "C1h: got '$("$dec" c1 "$t/c1.bin")', want '$(sed -n 2p "$t/expected")'"

[ "$("$dec" c0w "$t/c0.bin")" = "$(sed -n 3p "$t/expected")" ] &&
    ok "C0h wear fields: every one as femu-abi.h lays it out" ||
    bad "C0h wear: got '$("$dec" c0w "$t/c0.bin")', want '$(sed -n 3p "$t/expected")'"
[ "$("$dec" wc "$t/c0.bin")" = "$(sed -n 4p "$t/expected")" ] &&
    ok "C0h: the write-cache counters as femu-abi.h lays them out" ||
    bad "C0h wc: got '$("$dec" wc "$t/c0.bin")', want '$(sed -n 4p "$t/expected")'"

[ "$("$dec" ns "$t/c0.bin")" = "$(sed -n 5p "$t/expected")" ] &&
    ok "C0h: the per-namespace fields as femu-abi.h lays them out" ||
    bad "C0h ns: got '$("$dec" ns "$t/c0.bin")', want '$(sed -n 5p "$t/expected")'"
head -c 248 "$t/c0.bin" >"$t/short-ns.bin"
out=$("$dec" ns "$t/short-ns.bin" 2>&1); rc=$?
[ $rc = 1 ] && ok "a page short of the per-namespace fields: exit 1" ||
    bad "short page for ns: rc=$rc, '$out'"

# sourced: the same functions
[ "$(. "$dec"; femu_c0 "$t/c0.bin")" = "$(sed -n 1p "$t/expected")" ] &&
    ok "sourced: femu_c0" || bad "sourced: femu_c0 differs"

head -c 40 "$t/c0.bin" >"$t/short.bin"
out=$("$dec" c0 "$t/short.bin" 2>&1); rc=$?
[ $rc = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] && [[ $out == *"cannot read log page 0xc0"* ]] &&
    ok "a short page: exit 1, one line" || bad "a short page: rc=$rc, '$out'"
out=$("$dec" c1 "$t/none.bin" 2>&1); rc=$?
[ $rc = 1 ] && ok "no such controller or file: exit 1" || bad "missing file: rc=$rc, '$out'"
"$dec" c2 x >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok "bad usage: exit 2" || bad "bad usage: rc=$rc"

"$dec" --emit >"$t/emit"
[ -s "$t/emit" ] && grep -q '^femu_c0()' "$t/emit" && ok "--emit prints the functions" ||
    bad "--emit printed no functions"
for f in scripts/tutorials/waf-run.sh scripts/tutorials/fdp-run.sh scripts/tutorials/lib.sh; do
    sed -n '/^# --- BEGIN femu-log/,/^# --- END femu-log ---$/p' "$root/$f" >"$t/copy"
    if cmp -s "$t/emit" "$t/copy"; then
        ok "$f carries femu-log.sh --emit's output"
    else
        bad "$f: its femu-log block differs from scripts/femu-log.sh --emit (copy it again)"
        diff "$t/emit" "$t/copy" | head -20
    fi
done
[ $fails = 0 ] && echo "all passed" || { echo "$fails failed"; exit 1; }
