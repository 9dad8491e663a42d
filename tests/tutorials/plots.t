#!/bin/bash
# scripts/tables/plots.sh (run by make tables): the committed plots in
# docs/plots/ are what it draws from the committed full-size tables, byte
# for byte; a table with other figures draws another plot; a table
# directory without the tables is a one-line error.
set -u
. "$(dirname "$0")/../lib.sh"
ROOT=$FEMU_ROOT
if ! command -v gnuplot >/dev/null && [ "$(id -u)" != 0 ]; then
    skip "gnuplot not installed (apt-get install gnuplot-nox)"
fi
fail() { die "$@"; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

"$ROOT/scripts/tables/plots.sh" --out "$d/plots" >"$d/list" 2>"$d/err" ||
    fail "plots.sh failed: $(cat "$d/err")"
n=0
for f in "$ROOT"/docs/plots/*.svg; do
    [ -f "$d/plots/${f##*/}" ] || fail "${f##*/} is committed but plots.sh no longer draws it"
    cmp -s "$f" "$d/plots/${f##*/}" ||
        fail "docs/plots/${f##*/} differs from what plots.sh draws from docs/tables/full (run scripts/tables/plots.sh)"
    n=$((n + 1))
done
[ "$n" -ge 3 ] || fail "only $n plots committed"
[ "$(wc -l <"$d/list")" = "$n" ] || fail "plots.sh drew $(wc -l <"$d/list") plots, $n are committed"
for f in "$ROOT"/docs/tutorials/*.md; do
    grep -o '\.\./plots/[^)]*\.svg' "$f" | while read -r p; do
        [ -f "$ROOT/docs/tutorials/$p" ] || { echo "missing"; break; }
    done | grep -q missing && fail "${f##*/} shows a plot that does not exist"
done
shown=$(cat "$ROOT"/docs/tutorials/*.md | grep -o '\.\./plots/[^)]*\.svg' | sort -u | wc -l)
[ "$shown" = "$n" ] || fail "the tutorials show $shown of the $n plots"
echo "ok - $n plots match their tables and the tutorials show them all"

# another figure in a table: its plot changes
cp -r "$ROOT/docs/tables/full" "$d/tables"
sed -i 's/| 43.945 | 43.964 |/| 43.945 | 30.000 |/' "$d/tables/02-op.md"
grep -q '| 30.000 |' "$d/tables/02-op.md" || fail "test set-up: 02-op.md row not found"
"$ROOT/scripts/tables/plots.sh" --tables "$d/tables" --out "$d/changed" >/dev/null ||
    fail "plots.sh failed on the changed tables"
cmp -s "$d/plots/02-op.svg" "$d/changed/02-op.svg" && fail "a changed WAF did not change 02-op.svg"
cmp -s "$d/plots/04-fdp.svg" "$d/changed/04-fdp.svg" || fail "an unrelated plot changed"
echo "ok - a changed table changes its plot only"

rm "$d/tables/04-fdp.md"
out=$("$ROOT/scripts/tables/plots.sh" --tables "$d/tables" --out "$d/x" 2>&1) && fail "a missing table was not an error"
[ "$(wc -l <<<"$out" | tail -1)" -ge 1 ] && [[ $(tail -1 <<<"$out") == "plots: no table "*04-fdp.md ]] ||
    fail "missing table: '$out'"
echo "ok - a missing table is a one-line error"
