#!/bin/bash
# Tutorial 08's tables (docs/tables/full/08-mapping-caches.md and
# 08-models.md) are what scripts/tables/models.sh makes from the committed guest results
# (bench/peer/results/models.txt) and femu-sim, byte for byte: its
# femu-sim columns are reproducible and its guest columns are the raw
# file's. A changed guest figure in the raw file changes the table; a
# missing raw file is a one-line error. bench/peer/models.sh --table
# reads the same file: every guest cell the raw file has is in its table.
set -u
. "$(dirname "$0")/../lib.sh"
ROOT=$FEMU_ROOT
require_sim
fail() { die "$@"; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
RAW=$ROOT/bench/peer/results/models.txt
[ -f "$RAW" ] || fail "no committed raw results $RAW"

"$ROOT/scripts/tables/models.sh" --sim "$FEMU_SIM_DIR/femu-sim" --out "$d/t" >/dev/null 2>"$d/err" ||
    fail "models.sh failed: $(cat "$d/err")"
for t in 08-mapping-caches 08-models; do
    cmp -s "$d/t/$t.md" "$ROOT/docs/tables/full/$t.md" ||
        fail "docs/tables/full/$t.md differs from what scripts/tables/models.sh makes: $(diff "$d/t/$t.md" "$ROOT/docs/tables/full/$t.md" | head -5)"
    # and the tutorial shows it
    awk -v b="<!-- BEGIN full/$t -->" -v e="<!-- END full/$t -->" '$0 == e { on = 0 } on { print } $0 == b { on = 1 }' \
        "$ROOT/docs/tutorials/08-mapping-caches.md" | cmp -s - "$d/t/$t.md" ||
        fail "docs/tutorials/08-mapping-caches.md does not show $t.md as made (scripts/tables/regen.sh --splice-only --scale full)"
done
echo "ok - the committed tables are what models.sh makes from the raw results and femu-sim, and tutorial 08 shows them"

# a guest figure changed in the raw file (in the last run of the cell,
# the one the tables take): the table changes
last=$(grep -n '^### cell=rc-clock-16 side=ours ' "$RAW" | tail -1 | cut -d: -f1)
awk -v from="${last:-0}" 'BEGIN { done = 0 } NR == from { on = 1 }
     on && !done && /^lat phase=read / { sub(/mean_us=[0-9.]+/, "mean_us=777777.7"); done = 1 } { print }' \
    "$RAW" >"$d/raw2"
grep -q 'mean_us=777777.7' "$d/raw2" || fail "test set-up: no rc-clock-16 read line in the raw file"
"$ROOT/scripts/tables/models.sh" --sim "$FEMU_SIM_DIR/femu-sim" --raw "$d/raw2" --out "$d/t2" >/dev/null ||
    fail "models.sh failed on the changed raw file"
grep -q '| 777777.7 |' "$d/t2/08-mapping-caches.md" || fail "the changed guest figure is not in the table"
cmp -s "$d/t2/08-mapping-caches.md" "$d/t/08-mapping-caches.md" && fail "a changed guest figure did not change the table"
echo "ok - a changed guest figure changes the table"

out=$("$ROOT/scripts/tables/models.sh" --raw "$d/none" --out "$d/t3" 2>&1) && fail "a missing raw file was not an error"
[ "$(wc -l <<<"$out")" = 1 ] && [[ $out == "models: no raw results "* ]] || fail "missing raw file: '$out'"
echo "ok - a missing raw file is a one-line error"

"$ROOT/bench/peer/models.sh" --table "$RAW" >"$d/tab" || fail "models.sh --table failed"
for c in $(sed -n 's/^### cell=\([^ ]*\) .*/\1/p' "$RAW" | sort -u); do
    grep -q "^| $c | " "$d/tab" || fail "cell $c is missing from bench/peer/models.sh --table"
done
echo "ok - bench/peer/models.sh --table shows every cell of the raw file"
