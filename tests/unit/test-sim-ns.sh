#!/bin/bash
# femu-sim with the device's namespace properties (namespaces,
# namespace_sizes, namespace_modes): BlackBox namespaces share one FTL,
# each over its own range; a phase targets one with ns=N; the counters are
# reported per namespace and for the whole device.  Writes to one
# namespace make GC move the other's pages.  Bad input is refused with the
# device's lines.
sim=${1:?usage: test-sim-ns.sh path/to/femu-sim}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok - $*"; }
G=nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=256
S=$G,devsz_mb=192,namespaces=2,namespace_sizes=96M,,96M
PH="--phase fill1:seqfill,ns=1 --phase age1:randwrite,ns=1,size=96m --phase fill2:seqfill,ns=2 --phase burst2:randwrite,ns=2,size=192m"

out=$("$sim" $S $PH) || bad "two namespaces: exit $?"
echo "$out" | grep -E '^(namespaces|C0h|fill|age|burst)'
# nsf PHASE NS FIELD -> that namespace's counter in the phase's line
nsf() { echo "$out" | grep "^namespaces $1:" | tr ' ' '\n' | awk -v ns="ns$2" -v f="$3" '
        $0 == ns {on = 1; next} /^ns[0-9]/ {on = 0} on && index($0, f "=") == 1 {sub(/^[^=]*=/, ""); print}'; }
# whole PHASE COLUMN (5 host_written, 6 gc_moved)
whole() { echo "$out" | awk -v p="$1" -v c="$2" '$1 == p {print $c}'; }
for p in fill1 age1 fill2 burst2; do
    h1=$(nsf $p 1 host_written) h2=$(nsf $p 2 host_written)
    g1=$(nsf $p 1 gc_moved) g2=$(nsf $p 2 gc_moved)
    [ -n "$h1" ] && [ $((h1 + h2)) = "$(whole $p 5)" ] && [ $((g1 + g2)) = "$(whole $p 6)" ] &&
        ok "$p: the namespaces' counters add up to the device's ($h1+$h2, $g1+$g2)" ||
        bad "$p: ns1 $h1/$g1 + ns2 $h2/$g2 vs device $(whole $p 5)/$(whole $p 6)"
done
# fill1 is 96 MiB of 4 KiB pages on namespace 1 alone
[ "$(nsf fill1 1 host_written) $(nsf fill1 2 host_written)" = "24576 0" ] &&
    ok "fill1 writes namespace 1 only (24576 pages)" || bad "fill1 split: $(echo "$out" | grep '^namespaces fill1')"
# the host writes only namespace 2, GC moves namespace 1's pages too
[ "$(nsf burst2 1 host_written)" = 0 ] && [ "$(nsf burst2 1 gc_moved)" -gt 0 ] &&
    ok "burst2 on namespace 2 moved $(nsf burst2 1 gc_moved) of namespace 1's pages" ||
    bad "burst2: no GC of namespace 1: $(echo "$out" | grep '^namespaces burst2')"
tot=$(echo "$out" | sed -n 's/^C0h since start: .* host_pages_written=\([0-9]*\) gc_pages_moved=\([0-9]*\) .*/\1 \2/p')
set -- $(echo "$out" | grep '^namespaces since start:' | grep -o '=[0-9]*' | tr -d =)
[ "$(($1 + $3)) $(($2 + $4))" = "$tot" ] && ok "since start: the namespaces add up to C0h ($tot)" ||
    bad "since start: $* vs C0h $tot"

# JSON: the layout and the same counters
js=$("$sim" $S $PH --json) || bad "json exit $?"
python3 - "$js" <<'PY' || fail=1
import json, sys
d = json.loads(sys.argv[1])
ns = d["total"]["namespaces"]
assert [n["ftl_base"] for n in ns] == [0, 196608], ns
assert sum(n["host_pages_written"] for n in ns) == d["total"]["host_pages_written"]
assert sum(n["gc_pages_moved"] for n in ns) == d["total"]["gc_pages_moved"]
b = d["phases"][3]["namespaces"]
assert b[0]["host_pages_written"] == 0 and b[0]["gc_pages_moved"] > 0, b
print("ok - json: ftl_base 0 and 196608, the namespaces add up to the total")
PY

# a namespace is a range of the one FTL: namespace 2 is the second half of
# a one-namespace device of the same size, page for page
one=$("$sim" $G,devsz_mb=192 --phase fill1:seqfill,region=96m --phase age1:randwrite,region=96m,size=96m \
      --phase fill2:seqfill,offset=96m --phase burst2:randwrite,offset=96m,size=192m | grep '^C0h')
[ "$one" = "$(echo "$out" | grep '^C0h')" ] && ok "the same as offsets on one namespace: $one" ||
    bad "namespaces vs offsets: '$one' vs '$(echo "$out" | grep '^C0h')'"
# one namespace, given or not: the same output as before
[ "$("$sim" $G,devsz_mb=192 --waf-run=age=32m,measure=32m)" = \
  "$("$sim" $G,devsz_mb=192,namespaces=1 --waf-run=age=32m,measure=32m)" ] &&
    ok "namespaces=1 changes nothing" || bad "namespaces=1 changed the output"
# a NoSSD namespace takes no FTL space; sizes split devsz_mb as the device does
n3=$("$sim" $G,devsz_mb=192,namespaces=3,namespace_modes=bbssd,,nossd,,bbssd,namespace_sizes=64M,,,, \
     --phase a:seqfill,ns=3 --json) || bad "nossd: exit $?"
python3 - "$n3" <<'PY' || fail=1
import json, sys
d = json.loads(sys.argv[1])
ns = d["total"]["namespaces"]
assert [n["size_mb"] for n in ns] == [64, 64, 64], ns
assert ns[1]["mode"] == "nossd" and "ftl_base" not in ns[1], ns
assert ns[2]["ftl_base"] == 131072 and ns[2]["host_pages_written"] == 16384, ns
assert d["config"]["devsz_mb"] == 128, d["config"]
print("ok - nossd namespace 2 takes no FTL space; namespace 3 at block 131072")
PY

# FDP with the namespaces on handles of their own (namespace 1 through
# PID 0, namespace 2 through PID 1): namespace 2's burst finds namespace
# 2's units the best victims and moves none of namespace 1's pages, where
# without FDP namespace 1's partly overwritten lines are victims too
F=nchs=2,luns_per_ch=4,blks_per_pl=64,pgs_per_blk=32,devsz_mb=48,namespaces=2
h2ns1() { "$sim" "$@" | sed -n 's/^namespaces h2: ns1 host_written=0 gc_moved=\([0-9]*\) .*/\1/p'; }
nofdp=$(h2ns1 $F --phase f1:seqfill,ns=1 --phase a1:randwrite,ns=1,size=48m --phase f2:seqfill,ns=2 --phase h2:randwrite,ns=2,size=96m)
fdp=$(h2ns1 $F,fdp.nruh=2 --phase f1:seqfill,ns=1,pid=0 --phase a1:randwrite,ns=1,size=48m,pid=0 \
      --phase f2:seqfill,ns=2,pid=1 --phase h2:randwrite,ns=2,size=96m,pid=1)
[ -n "$nofdp" ] && [ "$nofdp" -gt 0 ] && [ "$fdp" = 0 ] &&
    ok "namespace 2's burst moves $nofdp of namespace 1's pages without FDP, $fdp with a handle per namespace" ||
    bad "burst on namespace 2: namespace 1's GC copies '$nofdp' without FDP, '$fdp' with"

# --record writes each phase's requests with its namespace id and FTL
# LBAs; a replay with the same namespace properties gives the same C0h and
# the same split, in its own row
t=$(mktemp -d /tmp/sim-ns.XXXXXX)
trap 'rm -rf "$t"' EXIT
"$sim" $S $PH --record="$t/run.ftr" >/dev/null || bad "record exit $?"
rep=$("$sim" namespaces=2,namespace_sizes=96M,,96M --replay="$t/run.ftr") || bad "replay exit $?"
[ "$(echo "$rep" | grep '^C0h')" = "$(echo "$out" | grep '^C0h')" ] &&
    ok "replay of the recorded run: the same C0h" || bad "replay C0h: $(echo "$rep" | grep '^C0h')"
[ "$(echo "$rep" | sed -n 's/^namespaces replay: //p')" = "$(echo "$out" | sed -n 's/^namespaces since start: //p')" ] &&
    ok "replay row split: $(echo "$rep" | sed -n 's/^namespaces replay: //p')" ||
    bad "replay split '$(echo "$rep" | grep '^namespaces replay')' vs the run's '$(echo "$out" | grep '^namespaces since')'"

refuse() { # refuse REGEX ARGS...
    local re=$1 o rc; shift
    o=$("$sim" "$@" 2>&1); rc=$?
    [ $rc != 0 ] && grep -Eq -- "$re" <<<"$o" && ok "refused: $o" || bad "expected '$re' for $*: rc $rc: $o"
}
refuse '^femu-sim: namespaces=0: must be 1\.\.16$' namespaces=0
refuse '^femu-sim: namespaces=17: must be 1\.\.16$' namespaces=17
refuse '^femu-sim: namespace_sizes: 1 entries for namespaces=2$' namespaces=2,namespace_sizes=1G
refuse "^femu-sim: namespace_modes=bbssd,kvssd: 'kvssd' is not bbssd, nossd or znssd$" namespaces=2,namespace_modes=bbssd,,kvssd
refuse '^femu-sim: namespace_modes: namespace 2 is znssd; femu-sim runs a zoned namespace alone' namespaces=2,namespace_modes=bbssd,,znssd
refuse "^femu-sim: namespace_sizes: '1000K' is not a size in whole MiB" namespaces=2,namespace_sizes=1000K,,
refuse '^femu-sim: namespace_sizes: 2048 MiB given, devsz_mb=1024 leaves less than that$' devsz_mb=1024,namespaces=2,namespace_sizes=1G,,1G
refuse '^femu-sim: op_pcent=25: with namespaces=2 give devsz_mb' namespaces=2,op_pcent=25
refuse '^femu-sim: phase a: ns=3: namespaces=2$' $S --phase a:seqfill,ns=3
refuse '^femu-sim: phase a: ns=2: namespace 2 is nossd' $G,devsz_mb=192,namespaces=2,namespace_modes=bbssd,,nossd --phase a:seqfill,ns=2
exit $fail
