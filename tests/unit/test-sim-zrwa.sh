#!/bin/bash
# femu-sim's zoned mode with a Zone Random Write Area (zns_zrwa_size,
# zns_zrwafg_size, zns_zrwa_num) and FEMU's other zoned properties: writes
# into the window program no NAND page and cost no NAND time, a commit
# (Commit Zone, a write past the window, a Finish) programs the whole
# pages it completes, overwrites in the window are free, and bad values
# are refused with the device's one-line messages.
sim=${1:?usage: test-sim-zrwa.sh path/to/femu-sim}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok - $*"; }
W=10000     # pg_wr_lat in us, as tutorial 06's ZRWA run
G=femu_mode=3,nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=64,zone_luns=2,zone_size_mb=2,pg_wr_lat=${W}000
Z=$G,zns_zrwa_size=64,zns_zrwafg_size=16,zns_zrwa_num=2
# col OUT PHASE N: column N of the phase's row; zf OUT PHASE KEY: KEY= of its zrwa line
col() { echo "$1" | awk -v p="$2" -v c="$3" '$1 == p && $2 != "" {print $c; exit}'; }
zf() { echo "$1" | grep "^zrwa $2:" | tr ' ' '\n' | sed -n "s/^$3=//p"; }
zlat() { echo "$1" | grep "^zrwa $2:" | sed -n "s/.* $3=[0-9]* (\([0-9.]*\) us).*/\1/p"; }

# 1. 64 blocks (8 NAND pages) into the window, nothing past it: no program,
#    no NAND time; the Finish programs the 8 pages on the zone's 2 LUNs.
out=$("$sim" $Z --phase in:zrwa,zones=1,size=32k,commit=implicit --phase fin:zfinish,zones=1) || bad "window run: exit $?"
echo "$out" | grep -E '^(in|fin|zrwa) '
[ "$(col "$out" in 7) $(col "$out" in 8) $(zf "$out" in window_writes) $(zlat "$out" in window_writes)" = "8 0 8 0.0" ] &&
    ok "8 window writes: 8 host pages, 0 programmed, 0 us each" ||
    bad "window writes: host $(col "$out" in 7) programmed $(col "$out" in 8) lat $(zlat "$out" in window_writes)"
[ "$(col "$out" fin 8) $(col "$out" fin 14)" = "8 $((4 * W)).0" ] &&
    ok "Finish programs the 8 pages: 4 programs on each of 2 LUNs ($((4 * W)) us)" ||
    bad "finish: programmed $(col "$out" fin 8) lat $(col "$out" fin 14)"

# 2. Explicit commits by flush granule (16 blocks = 2 pages on 2 LUNs):
#    each costs one page program time; window writes none.  A plain zwrite
#    of the same zone size pays a program per 4 KiB write.
out=$("$sim" $Z --phase plain:zwrite,zones=1,size=256k \
    --phase g:zrwa,first=1,zones=1,unit=granule,size=256k \
    --phase imp:zrwa,first=2,zones=1,unit=granule,order=seq,commit=implicit,finish=on,size=256k) || bad "granule run: exit $?"
echo "$out" | grep -E '^(plain|g|imp|zrwa) '
[ "$(col "$out" plain 14)" = "$W.0" ] && ok "plain write at the write pointer: $W us" || bad "plain: $(col "$out" plain 14)"
[ "$(zf "$out" g window_writes) $(zlat "$out" g window_writes) $(zf "$out" g commits) $(zlat "$out" g commits)" = "64 0.0 32 $W.0" ] &&
    ok "random writes in each granule cost 0 us, each of 32 commits $W us" ||
    bad "granule commits: $(echo "$out" | grep '^zrwa g:')"
[ "$(col "$out" g 8) $(zf "$out" g waf_x1000)" = "64 1000" ] && ok "commits programmed the 64 pages written (WAF 1.000)" ||
    bad "granule programmed $(col "$out" g 8)"
[ "$(zlat "$out" imp committing_writes)" = "$W.0" ] && [ "$(zlat "$out" imp window_writes)" = "0.0" ] &&
    [ "$(zf "$out" imp committing_writes)" -gt 0 ] &&
    ok "implicit: $(zf "$out" imp committing_writes) writes past the window commit a granule each ($W us), the rest 0 us" ||
    bad "implicit: $(echo "$out" | grep '^zrwa imp:')"
[ "$(col "$out" imp 8) $(zf "$out" imp finishes)" = "64 1" ] && ok "implicit + Finish: 64 pages programmed" ||
    bad "implicit programmed $(col "$out" imp 8)"

# 3. A granule of half a page: a commit programs whole pages only (the
#    split page waits for the next commit).
out=$("$sim" $G,zns_zrwa_size=64,zns_zrwafg_size=4,zns_zrwa_num=1 \
    --phase half:zrwa,zones=1,unit=granule,bs=2k,size=2k --phase rest:zrwa,zones=1,unit=granule,bs=2k,size=30k) || bad "half run: exit $?"
echo "$out" | grep -E '^(half|rest|zrwa) '
[ "$(zf "$out" half commits) $(col "$out" half 8) $(zlat "$out" half commits)" = "1 0 0.0" ] &&
    ok "commit of half a page programs nothing" || bad "half: $(echo "$out" | grep '^zrwa half:')"
[ "$(zf "$out" rest commits) $(col "$out" rest 8)" = "15 8" ] &&
    ok "15 more half-page commits program the 8 whole pages" || bad "rest: $(echo "$out" | grep '^zrwa rest:')"

# 4. Overwrites in the window before the commit: programmed once.
out=$("$sim" $Z --phase r1:zrwa,zones=1,rewrite=1,size=256k --phase r3:zrwa,first=1,zones=1,rewrite=3,size=256k \
      --json) || bad "rewrite run: exit $?"
r=$(echo "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for p in d["phases"]:
    print(p["name"], p["host_pages_written"], p["host_pages_programmed"], p["zrwa"]["commits"], p["zrwa"]["window_writes"])
print("cfg", d["config"]["zns_zrwa_size"], d["config"]["zns_zrwafg_size"], d["config"]["zns_zrwa_num"])')
echo "$r"
[ "$(echo "$r" | tr '\n' ' ')" = "r1 128 64 8 128 r3 256 64 8 256 cfg 64 16 2 " ] &&
    ok "rewritten windows: 128 and 256 host pages, 64 programmed each (WAF 0.500, 0.250)" || bad "rewrite: $r"

# 5. ZRWA resources: a third zone at once gets none.
out=$("$sim" $Z --phase three:zrwa,zones=3,jobs=3,size=32k,commit=implicit) || bad "three: exit $?"
[ "$(col "$out" three 11)" = 1 ] && ok "zns_zrwa_num=2: the third Open with ZRWA fails" || bad "three: $(col "$out" three 11) errors"

# 6. FEMU's names and derived properties, as on the device.
j=$("$sim" femu_mode=3,zns_num_ch=2,zns_num_lun=2,zns_num_plane=1,zns_num_blk=64,pgs_per_blk=64,zns_chnls_per_zone=1,zone_size_mb=2,zns_zone_cap=1048576,zns_flash_type=1,zns_max_open=4,zns_max_active=6,zns_zd_ext_size=64,zns_zasl_bs=16384,zns_cross_zone_read=off,zns_num_conv_zones=0 \
    --phase w:zwrite,zones=1 --json | python3 -c '
import json, sys
c = json.load(sys.stdin)["config"]
print(*(c[k] for k in ("nchs", "luns_per_ch", "blks_per_pl", "zone_luns", "zone_cap_blocks", "nand_cell_type", "max_open", "max_active", "zns_zd_ext_size", "zasl", "zns_cross_zone_read")))')
[ "$j" = "2 2 64 2 2048 1 4 6 64 2 False" ] && ok "zns_* names: $j" || bad "zns_* names: $j"

# 7. Bad values: the device's one-line messages, exit 1.
refuse() {
    local msg
    msg=$("$sim" $G,$1 2>&1 >/dev/null); rc=$?
    [ $rc = 1 ] && [ "$msg" = "femu-sim: $2" ] && ok "$1 refused" || bad "$1: exit $rc, '$msg'"
}
refuse zns_zrwa_size=65536,zns_zrwafg_size=16,zns_zrwa_num=1 "zns_zrwa_size=65536: must be 0..65535 (logical blocks)"
refuse zns_zrwa_size=64,zns_zrwafg_size=24,zns_zrwa_num=1 "zns_zrwa_size=64: must be a multiple of zns_zrwafg_size=24"
refuse zns_zrwa_size=64,zns_zrwafg_size=16 "zns_zrwa_num=0: must be at least 1 with zns_zrwa_size set"
refuse zns_zrwafg_size=16 "zns_zrwafg_size=16: needs zns_zrwa_size (no ZRWA without it)"
refuse zns_zrwa_size=8192,zns_zrwafg_size=16,zns_zrwa_num=1 "zns_zrwa_size=8192: must be at most the zone capacity (4096 logical blocks)"
refuse zns_zd_ext_size=100 "zns_zd_ext_size=100: must be a multiple of 64 up to 16320"
refuse zns_zone_cap=1000 "zns_zone_cap=1000: must be a whole number of MiB"
refuse zns_chnls_per_zone=3 "zns_chnls_per_zone=3: must divide nchs=2"
refuse zns_zasl_bs=12288 "zns_zasl_bs=12288: must be 0 or 4096 x a power of two"
refuse zns_flash_type=5 "zns_flash_type=5: must be 1 (SLC), 2 (MLC), 3 (TLC) or 4 (QLC)"
refuse zns_flash_type=2,nand_cell_type=3 "zns_flash_type=2: nand_cell_type=3 says otherwise"
refuse zns_num_conv_zones=1 "zns_num_conv_zones=1: conventional zones make Linux reject the whole zone report (FEMU upstream's README says so); use a BlackBox namespace for conventional space"
"$sim" $G --phase z:zrwa >/dev/null 2>&1; [ $? = 2 ] && ok "zrwa phase without zns_zrwa_size: exit 2" || bad "zrwa phase without a ZRWA ran"
exit $fail
