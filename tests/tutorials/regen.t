#!/bin/bash
# scripts/tables/regen.sh, simulator side only (seconds): it writes a
# table fragment whose WAF column parses and matches femu-sim run by hand,
# and splices it between the markers of a tutorial, twice without change;
# --rows keeps the other rows' guest columns; --sim-only without --out
# checks the committed fragment's femu-sim columns and changes nothing;
# jobs run by GNU parallel (-j, --hosts) give the serial run's fragments.
set -u
. "$(dirname "$0")/../lib.sh"
ROOT=$FEMU_ROOT
SIM=$FEMU_SIM_DIR/femu-sim
require_sim
fail() { die "$@"; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/docs/tutorials"
printf 'intro\n<!-- BEGIN scaled/02-threshold -->\nold\n<!-- END scaled/02-threshold -->\ntail\n' >"$d/docs/tutorials/t.md"
run() {
    FEMU_ROOT=$d FEMU_SIM=$SIM bash "$ROOT/scripts/tables/regen.sh" --sim-only \
        --out "$d/docs/tables/scaled" --scale scaled --only 02-threshold 2>"$d/err"
}
run || { cat "$d/err"; fail "regen.sh failed"; }
f=$d/docs/tables/scaled/02-threshold.md
[ -f "$f" ] || fail "no fragment $f"
cat "$f"
rows=$(grep -c '^| `op_pcent=25,gc_thres_pcent=' "$f")
[ "$rows" = 3 ] || fail "expected 3 rows, got $rows"
# the gc_thres_pcent=95 row equals femu-sim run by hand on the same sizes
G=nchs=2,luns_per_ch=2,blks_per_pl=128,pgs_per_blk=32,op_pcent=25,gc_thres_pcent=95
ns=$("$SIM" $G --phase f:seqfill,size=4k | sed -n 's/^namespace: \([0-9]*\) blocks of 512 B.*/\1/p')
r=$(( ns * 512 * 2 / 4096 * 4096 ))
w=$("$SIM" $G --waf-run=age=$r,measure=$r | awk '$1 == "measure" { printf "%d.%03d", $8 / 1000, $8 % 1000 }')
grep -q "^| \`op_pcent=25,gc_thres_pcent=95\` | uniform | $w | not measured |" "$f" ||
    fail "the table's WAF for gc_thres_pcent=95 is not femu-sim's $w"
# WAF falls as the threshold rises (75 -> 90 -> 95): GC waits for emptier victims
ws=($(awk -F' \\| ' '/^\| `op_pcent/ { print $3 }' "$f" | tr -d .))
[ "${ws[0]}" -gt "${ws[1]}" ] && [ "${ws[1]}" -gt "${ws[2]}" ] || fail "WAF not falling with the threshold: ${ws[*]}"
# spliced between the markers, the rest of the document kept
sed -n '1p;$p' "$d/docs/tutorials/t.md" | tr '\n' ' ' | grep -qx 'intro tail ' || fail "splice damaged the document"
grep -q '^old$' "$d/docs/tutorials/t.md" && fail "old table not replaced"
grep -qF "$(sed -n 5p "$f")" "$d/docs/tutorials/t.md" || fail "fragment not spliced"
cp "$d/docs/tutorials/t.md" "$d/before"
run || fail "second run failed"
cmp -s "$d/before" "$d/docs/tutorials/t.md" || fail "a second splice changed the document"
# --rows: the guest columns and boot times of the rows not selected are kept
# from the fragment already there (for rerunning only what a fix changed);
# here the guest values are made up, so any that survive came from the file
sed -i -e 's/| not measured | \([0-9]*\) \/ - | - |$/| 9.999 | \1 \/ 4242 | 7.0 s (1+2+7 s, tcg) |/' "$f"
echo 'Guest wall time per boot, boot to exit: rows 0-0: 11 s; rows 1-1: 22 s; rows 2-2: 33 s (`--scale scaled`, tcg; KVM: not measured, no working KVM on these machines).' >>"$f"
FEMU_ROOT=$d FEMU_SIM=$SIM bash "$ROOT/scripts/tables/regen.sh" --sim-only --no-splice \
    --out "$d/docs/tables/scaled" --scale scaled --only 02-threshold --rows 1 2>"$d/err" || { cat "$d/err"; fail "--rows run failed"; }
cat "$f"
[ "$(grep -c '| 9.999 | [0-9]* / 4242 | 7.0 s (1+2+7 s, tcg) |$' "$f")" = 2 ] || fail "--rows 1: rows 0 and 2 not kept"
grep -q '^| `op_pcent=25,gc_thres_pcent=90` | uniform | [0-9.]* | not measured |' "$f" || fail "--rows 1: row 1 kept"
grep -q '^Guest wall time per boot, boot to exit: rows 0-0: 11 s; rows 2-2: 33 s (' "$f" || fail "--rows 1: boot times"
# --sim-only without --out: compares with the committed fragment ($f, its
# guest columns made up above) and leaves docs/ alone
check() {
    FEMU_ROOT=$d FEMU_SIM=$SIM bash "$ROOT/scripts/tables/regen.sh" --sim-only \
        --scale scaled --only 02-threshold 2>"$d/err"
}
cp "$f" "$d/frag"; cp "$d/docs/tutorials/t.md" "$d/before"
check; rc=$?
cat "$d/err"
[ $rc = 0 ] || fail "--sim-only check of an up-to-date table exited $rc"
grep -q 'regen: 02-threshold: femu-sim columns match .*02-threshold.md (3 rows)' "$d/err" || fail "no match reported"
cmp -s "$f" "$d/frag" && cmp -s "$d/before" "$d/docs/tutorials/t.md" || fail "--sim-only check changed docs/"
tmp=$(sed -n 's/^regen: fragments in \(.*\) (docs\/ not changed)$/\1/p' "$d/err")
[ -n "$tmp" ] && [ -f "$tmp/02-threshold.md" ] || fail "no fragment directory printed"
rm -rf "$tmp"
# a stale simulator figure in the committed table: exit 3, the row named
sed -i 's/^| `op_pcent=25,gc_thres_pcent=75` | uniform | [0-9.]* |/| `op_pcent=25,gc_thres_pcent=75` | uniform | 1.234 |/' "$f"
check; rc=$?
cat "$d/err"
[ $rc = 3 ] || fail "--sim-only check of a stale table exited $rc, want 3"
grep -q "regen: 02-threshold: \`op_pcent=25,gc_thres_pcent=75\` uniform: femu-sim now ('[0-9.]*', '[0-9]*'), .* has ('1.234', " "$d/err" ||
    fail "the stale row is not named"
rm -rf "$(sed -n 's/^regen: fragments in \(.*\) (docs\/ not changed)$/\1/p' "$d/err")"
# -j 3 (GNU parallel) and --hosts (GNU parallel over ssh) write the same
# fragments, rows in the same order, as the serial run -j 1.  No sshd here:
# the "host" is an ssh command that runs the remote side on this machine,
# so GNU parallel's own remote path (rsync of the binaries, quoting, the
# checkout check) is what runs.
if parallel --version 2>/dev/null | grep -q '^GNU parallel'; then
    par() {
        FEMU_ROOT=$d FEMU_SIM=$SIM bash "$ROOT/scripts/tables/regen.sh" --sim-only --no-splice \
            --scale scaled --only 02-threshold,02-policy,04-fdp "$@" 2>"$d/err" || { cat "$d/err"; fail "regen.sh $* failed"; }
    }
    par -j 1 --out "$d/j1"
    par -j 3 --out "$d/j3"
    grep -q '^regen: simulator: 15 runs, 3 at a time on this host$' "$d/err" || { cat "$d/err"; fail "-j 3: not 3 at a time"; }
    diff -r "$d/j1" "$d/j3" || fail "-j 3 fragments differ from -j 1"
    grep -q '^| `op_pcent=25,gc_thres_pcent=95,gc_policy=d-choice` | zipf 1.2 |' "$d/j3/02-policy.md" || fail "-j 3: no policy rows"
    if command -v rsync >/dev/null; then
        cat >"$d/ssh" <<'EOF'
#!/bin/bash
# "ssh [OPTIONS] HOST [--] COMMAND": COMMAND here; it counts its calls
echo x >>"$(dirname "$0")/ssh.calls"
while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done
shift; [ "${1:-}" = -- ] && shift
exec bash -c "$*"
EOF
        chmod +x "$d/ssh"
        par --hosts "2/$d/ssh h1,1/:" --out "$d/ssh-out"
        [ -s "$d/ssh.calls" ] || fail "--hosts: no job went through ssh"
        diff -r "$d/j1" "$d/ssh-out" || fail "--hosts fragments differ from -j 1"
    else
        echo "rsync missing: --hosts not checked"
    fi
    # a host whose checkout differs refuses its job
    out=$(bash "$ROOT/scripts/tables/regen.sh" --worker sim:02-op:0 --scale scaled --sim "$SIM" --stamp 0000 2>&1) &&
        fail "a job with another checkout's stamp ran: $out"
    echo "$out" | grep -q 'differs from the dispatching host' || fail "stamp refusal: $out"
else
    echo "GNU parallel missing: -j and --hosts not checked"
fi
echo "regen.sh: all checks passed"
