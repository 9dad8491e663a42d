#!/bin/bash
# scripts/tutorials/lib.sh on the host (no guest, a second): the sizes the
# tutorial scripts accept, NAME=VALUE arguments and defaults, that
# lat-run.sh, first-ssd.sh, zns-run.sh, btrfs-waf.sh, trace-run.sh,
# zrwa-run.sh and zns-fs.sh find lib.sh beside
# them or say what to copy when it is missing, and that waf-run.sh and
# fdp-run.sh run alone.
set -u
. "$(dirname "$0")/../lib.sh"
ROOT=$FEMU_ROOT
T=$ROOT/scripts/tutorials
fail() { die "$@"; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

# size(): fio's binary suffixes, bytes, and Nx = N times the namespace
got=$(bash -c 'ME=t; . "$1"; NS_BYTES=26843136
    for v in 4096 4k 4K 4kb 4KiB 128m 128MiB 2g 1t 2x 0.5x 2.5x; do printf "%s=%s " "$v" "$(size "$v")"; done' _ "$T/lib.sh")
want="4096=4096 4k=4096 4K=4096 4kb=4096 4KiB=4096 128m=134217728 128MiB=134217728 2g=2147483648 1t=1099511627776 2x=53686272 0.5x=13421568 2.5x=67107840 "
[ "$got" = "$want" ] || fail "size(): got '$got', want '$want'"
# Nx past 2^31 bytes (awk's %d stops there in mawk and wraps in the
# guest's busybox): AGE=2x of a default 1 GiB namespace, 2.5x of tutorial
# 02's 1.6 GiB one; in lib.sh and in the copies of waf-run.sh and
# fdp-run.sh, which run alone
for s in lib waf-run fdp-run; do
    got=$(bash -c 'eval "$(sed -n "/^size() {/,/^}/p" "$1")"
        die() { echo "die: $*"; exit 1; }
        NS_BYTES=1073741824; printf "%s " "$(size 2x)"
        NS_BYTES=1717986918; size 2.5x' _ "$T/$s.sh")
    [ "$got" = "2147483648 4294967295" ] || fail "$s.sh size() past 2^31: got '$got'"
done
for bad in 1.5g abc 4q -4k x; do
    out=$(bash -c 'ME=t; . "$1"; NS_BYTES=4096; size "$2"; echo "returned"' _ "$T/lib.sh" "$bad" 2>&1) &&
        fail "size '$bad' was accepted: $out"
    grep -q "^t: size '$bad'" <<<"$out" || fail "size '$bad': no message naming it: $out"
    grep -q returned <<<"$out" && fail "size '$bad' did not stop the script"
done

# NAME=VALUE arguments become variables; anything else is refused
got=$(bash -c 'ME=t; . "$1"; tut_args AGE=2x ZIPF=1.2; echo "$AGE $ZIPF"' _ "$T/lib.sh") || fail "tut_args failed"
[ "$got" = "2x 1.2" ] || fail "tut_args: got '$got'"
out=$(bash -c 'ME=t; . "$1"; tut_args AGE=1 NOPE; echo returned' _ "$T/lib.sh" 2>&1) && fail "tut_args took NOPE"
grep -q "^t: unknown argument 'NOPE'" <<<"$out" || fail "tut_args: $out"
# defaults fill what neither an argument nor the environment set
got=$(AGE=3x IOS= bash -c 'ME=t; . "$1"; tut_args SEED=7; tut_defaults AGE=2x SEED=1 IOS=500
    echo "$AGE $SEED $IOS"' _ "$T/lib.sh") || fail "tut_defaults failed"
[ "$got" = "3x 7 500" ] || fail "tut_defaults: got '$got', want '3x 7 500'"

# c0 decodes log page C0h as nvme-cli hands it over (a stand-in nvme on
# PATH): the WAF and 3 counters, or N; two equal 16-byte rows of counters
# (host = programmed, GC = resets) must not come out as od's "*"
mkdir -p "$d/bin"
printf '#!/bin/sh\nprintf "%s"\n' "$(printf '\\%03o' 232 3 0 0 0 0 0 0 182 6 0 0 0 0 0 0 \
    0 0 0 0 0 0 0 0 182 6 0 0 0 0 0 0 0 0 0 0 0 0 0 0 9 0 0 0 0 0 0 0)" >"$d/bin/nvme"
chmod +x "$d/bin/nvme"
got=$(cd "$d" && PATH=$d/bin:$PATH bash -c 'ME=t; . "$1"; CTRL=/dev/nvme0; c0; c0 5' _ "$T/lib.sh") ||
    fail "c0 failed: $got"
[ "$got" = "1000 1718 0 1718
1000 1718 0 1718 0 9" ] || fail "c0: got '$got'"

# the scripts that are not published alone use the shared helpers, not
# their own copies
for s in lat-run first-ssd zns-run btrfs-waf trace-run zrwa-run zns-fs; do
    grep -q '^\. "\$(dirname "\$0")/lib\.sh"' "$T/$s.sh" || fail "$s.sh does not source lib.sh"
    grep -Eq '^(size|c0|die|ctl)\(\)' "$T/$s.sh" && fail "$s.sh defines its own copy of a lib.sh helper"
    # --help works where lib.sh is beside the script (the guest's case)
    cp "$T/$s.sh" "$T/lib.sh" "$d/"
    (cd / && bash "$d/$s.sh" --help) | grep -q "^$s.sh: " || fail "$s.sh --help beside lib.sh"
    # and without lib.sh it says what to copy
    mkdir -p "$d/alone"
    cp "$T/$s.sh" "$d/alone/"
    out=$(cd "$d/alone" && bash "$s.sh" 2>&1) && fail "$s.sh ran without lib.sh"
    grep -q "lib.sh not found.*copy the whole scripts/tutorials/ directory" <<<"$out" ||
        fail "$s.sh without lib.sh: $out"
    rm -rf "$d/alone" "$d/$s.sh"
done

# waf-run.sh and fdp-run.sh are the tutorials' published scripts: a user
# saves one file in the guest, so each runs alone, without lib.sh
for s in waf-run fdp-run; do
    grep -q 'lib\.sh' "$T/$s.sh" && fail "$s.sh refers to lib.sh"
    mkdir -p "$d/alone"
    cp "$T/$s.sh" "$d/alone/"
    (cd "$d/alone" && bash "$s.sh" --help) | grep -q "^$s.sh: " || fail "$s.sh --help alone"
    # an unknown NAME=VALUE option is refused before anything is written
    out=$(cd "$d/alone" && bash "$s.sh" NOPE=1 2>&1) && fail "$s.sh took NOPE=1"
    grep -q "^$s: unknown option 'NOPE=1'" <<<"$out" || fail "$s.sh NOPE=1: $out"
    rm -rf "$d/alone"
done
# fio options pass through waf-run.sh; fdp-run.sh takes none
out=$(cd "$d" && bash "$T/fdp-run.sh" --bs=8k 2>&1) && fail "fdp-run.sh took --bs=8k"
grep -q "^fdp-run: unknown argument '--bs=8k'" <<<"$out" || fail "fdp-run.sh --bs=8k: $out"
echo "lib.sh: all checks passed"
