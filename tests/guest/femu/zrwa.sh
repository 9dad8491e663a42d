# Guest side of tests/guest/femu-zrwa.t.  One femu_mode=3 controller
# (vSSD0): 32 zones of 4096 sectors, capacity 2048; a ZRWA of 64 sectors
# committed in granules of 16, 2 ZRWAs; 64-byte descriptor extensions.
# NAND pages are 4 KiB: 8 sectors.
C=$(ctrl_of vSSD0) || { bad "no controller vSSD0"; finish; exit; }
D=/dev/${C}n1
# wp ZSLBA: the write pointer nvme-cli reports for the zone at ZSLBA
wp() { nvme zns report-zones $D -s "$1" -d 1 | awk '/^SLBA/ { print $4 }'; }
# zone ZSLBA: "State: 0x.. ... Attrs: 0x.." of the zone at ZSLBA
zone() { nvme zns report-zones $D -s "$1" -d 1 | grep -o 'State: 0x[0-9a-f]*\|Attrs: [0-9a-fx]*' | tr '\n' ' '; }
# fails CMD... PATTERN: the command fails and nvme-cli names the status
fails() { local p=${!#} out; out=$("${@:1:$#-1}" 2>&1) && return 1; grep -qi -- "$p" <<<"$out"; }
# host programmed: C0h's host pages written and pages programmed
hp() { set -- $(femu_c0 $C); echo "$2 $4"; }

nvme zns id-ns $D > /tmp/idns
check "id-ns: ozcs 3 (ZRWA supported)" grep -qE '^ozcs *: 3$' /tmp/idns
check "id-ns: numzrwa 0x1, zrwafg 16, zrwasz 64, zrwacap 1" bash -c \
    "grep -qE '^numzrwa *: 0x1$' /tmp/idns && grep -qE '^zrwafg *: 16$' /tmp/idns && grep -qE '^zrwasz *: 64$' /tmp/idns && grep -qE '^zrwacap *: 1$' /tmp/idns"
check "id-ns: zdes 1 (64 bytes)" grep -qE 'lbafe +0: zsze:0x1000 zdes:1 \(in use\)' /tmp/idns
check "C0h before: nothing written" [ "$(hp)" = "0 0" ]

# Open with ZRWAA; two ZRWAs, the third is refused
check "open-zone --zrwaa zone 0" nvme zns open-zone $D -s 0 --zrwaa
check "zone 0 explicitly opened, ZRWA valid (Attrs 0x8)" [ "$(zone 0)" = "State: 0x30 Attrs: 0x8 " ]
check "open-zone --zrwaa zone 1" nvme zns open-zone $D -s 4096 --zrwaa
check "open-zone --zrwaa zone 2: ZRWA Resources Unavailable" fails nvme zns open-zone $D -s 8192 --zrwaa 'ZRWA Resources Unavailable'
check "zone 2 still empty" [ "$(zone 8192)" = "State: 0x10 Attrs: 0 " ]

# writes anywhere in [wp, wp + 64), overwrites; the write pointer stays
head -c 4096 /dev/urandom > /tmp/a; head -c 4096 /dev/urandom > /tmp/b
head -c 4096 /dev/urandom > /tmp/c
check "write 8 sectors at 32 (not the write pointer)" nvme write $D -s 32 -c 7 -z 4096 -d /tmp/a
check "read back at 32" bash -c "nvme read $D -s 32 -c 7 -z 4096 -d /tmp/r >/dev/null && cmp -s /tmp/r /tmp/a"
check "overwrite at 32" nvme write $D -s 32 -c 7 -z 4096 -d /tmp/b
check "read back the overwrite" bash -c "nvme read $D -s 32 -c 7 -z 4096 -d /tmp/r >/dev/null && cmp -s /tmp/r /tmp/b"
check "write 8 sectors at 0" nvme write $D -s 0 -c 7 -z 4096 -d /tmp/c
check "write pointer still 0" [ "$(wp 0)" = 0 ]
check "C0h: 3 pages written, none programmed (the ZRWA is a buffer)" [ "$(hp)" = "3 0" ]
check "write ending past wp + 128: Zone Invalid Write" fails nvme write $D -s 100 -c 28 -z 14848 -d /dev/zero 'Zone Invalid Write'
check "zone-append to a ZRWA zone: Invalid Zone Operation" fails nvme zns zone-append $D -s 0 -z 4096 -d /tmp/a 'Invalid Zone Operation'
# implicit commit: a write ending at 128 moves the write pointer to 64
check "write 8 sectors at 120 (past the window)" nvme write $D -s 120 -c 7 -z 4096 -d /tmp/a
check "implicit commit: write pointer 0x40" [ "$(wp 0)" = 0x40 ]
check "C0h: the 8 committed pages programmed" [ "$(hp)" = "4 8" ]
check "write below the write pointer: Zone Invalid Write" fails nvme write $D -s 56 -c 7 -z 4096 -d /tmp/a 'Zone Invalid Write'

# explicit commit: the last sector committed, whole granules in the window
check "zrwa-flush-zone to 71 (half a granule): Invalid Field" fails nvme zns zrwa-flush-zone $D --lba=71 'Invalid Field'
check "zrwa-flush-zone to 128 (past the window): Zone Boundary Error" fails nvme zns zrwa-flush-zone $D --lba=128 'Boundary'
check "zrwa-flush-zone to 79" nvme zns zrwa-flush-zone $D --lba=79
check "write pointer 0x50" [ "$(wp 0)" = 0x50 ]
check "zone-mgmt-send --zsa=17 (Commit Zone) to 95" nvme zns zone-mgmt-send $D -s 95 -z 17
check "write pointer 0x60" [ "$(wp 0)" = 0x60 ]
check "Commit Zone on a zone without ZRWA: Invalid Field" fails nvme zns zrwa-flush-zone $D --lba=$((3 * 4096 + 15)) 'Invalid Field'
check "C0h: 12 pages programmed" [ "$(hp)" = "4 12" ]

# Close keeps the ZRWA; Finish commits the rest and gives it back
check "close-zone zone 0" nvme zns close-zone $D -s 0
check "zone 0 closed with its ZRWA" [ "$(zone 0)" = "State: 0x40 Attrs: 0x8 " ]
check "finish-zone zone 0" nvme zns finish-zone $D -s 0
check "zone 0 full, no ZRWA" [ "$(zone 0)" = "State: 0xe0 Attrs: 0 " ]
check "C0h: the written data committed at Finish (16 pages)" [ "$(hp)" = "4 16" ]
check "data kept: 0, 32 and 120 read back" bash -c \
    "nvme read $D -s 0 -c 7 -z 4096 -d /tmp/r0 >/dev/null && cmp -s /tmp/r0 /tmp/c &&
     nvme read $D -s 32 -c 7 -z 4096 -d /tmp/r1 >/dev/null && cmp -s /tmp/r1 /tmp/b &&
     nvme read $D -s 120 -c 7 -z 4096 -d /tmp/r2 >/dev/null && cmp -s /tmp/r2 /tmp/a"
check "a ZRWA free again: open-zone --zrwaa zone 2" nvme zns open-zone $D -s 8192 --zrwaa
check "reset-zone zone 1 gives its ZRWA back" bash -c \
    "nvme zns reset-zone $D -s 4096 && nvme zns open-zone $D -s 12288 --zrwaa"
check "reset-zone zone 0: reads zeroes" bash -c \
    "nvme zns reset-zone $D -s 0 && nvme read $D -s 32 -c 7 -z 4096 -d /tmp/r >/dev/null && cmp -s /tmp/r <(head -c 4096 /dev/zero)"

# zone descriptor extensions
head -c 64 /dev/urandom > /tmp/ext
check "set-zone-desc zone 4" nvme zns set-zone-desc $D -s 16384 -d /tmp/ext
check "zone 4 closed, ZDEV (Attrs 0x80)" [ "$(zone 16384)" = "State: 0x40 Attrs: 0x80 " ]
check "set-zone-desc again: Invalid Zone State Transition" fails nvme zns set-zone-desc $D -s 16384 -d /tmp/ext 'Invalid Zone State Transition'
check "report-zones -e returns the extension" bash -c \
    "nvme zns report-zones $D -s 16384 -d 1 -e -o binary | head -c 192 | tail -c 64 | cmp -s - /tmp/ext"
nvme zns report-zones $D -s 16384 -d 1 -e
check "reset-zone zone 4: Empty, no extension" bash -c \
    "nvme zns reset-zone $D -s 16384 && [ \"\$(nvme zns report-zones $D -s 16384 -d 1 | grep -o 'State: 0x[0-9a-f]*\|Attrs: [0-9a-fx]*' | tr '\n' ' ')\" = 'State: 0x10 Attrs: 0 ' ] &&
     nvme zns report-zones $D -s 16384 -d 1 -e -o binary | head -c 192 | tail -c 64 | cmp -s - <(head -c 64 /dev/zero)"
check "report-zones -e on zone 5 (no extension set): zeroes" bash -c \
    "nvme zns report-zones $D -s 20480 -d 1 -e -o binary | head -c 192 | tail -c 64 | cmp -s - <(head -c 64 /dev/zero)"
# the zoned block device still works alongside: blkzone and a plain write
check "blkzone reset; sequential write at a write pointer" bash -c \
    "blkzone reset $D && nvme write $D -s 0 -c 7 -z 4096 -d /tmp/a && nvme zns report-zones $D -d 1 | grep -q 'WP: 0x8 '"

# tutorial 06's zrwa-run.sh (so it cannot rot), N=4: window writes leave
# the write pointer at 0; 4 writes past the 64-block window (8 blocks
# each) commit 2 granules of 16 (write pointer 32: the writes at 64 and
# 80 moved it, those at 72 and 88 did not); 4 commits of a granule move
# it to 64.  Lower bounds only for the times: a plain write, a commit
# (written or not) and a committing write each program NAND pages
# (pg_wr_lat 200 us), a host cannot make them faster.
bash zrwa-run.sh DEV=$D N=4 > /tmp/zw 2>&1; echo "zrwa-run.sh rc=$?"; cat /tmp/zw
check "zrwa-run.sh: window writes leave the write pointer at 0" grep -q 'write pointer after 4 window writes: 0$' /tmp/zw
check "zrwa-run.sh: implicit commits, write pointer 0 -> 32" grep -q 'write pointer 0 -> 32 after 4 writes past the window' /tmp/zw
check "zrwa-run.sh: 2 committing writes, 2 not" bash -c \
    "grep -Eq '^implicit  .*\(n=2\)$' /tmp/zw && grep -Eq '^implicit-none .*\(n=2\)$' /tmp/zw"
check "zrwa-run.sh: 4 commits, write pointer 64" grep -q 'write pointer 64 after 4 commits of 16 blocks' /tmp/zw
check "zrwa-run.sh: plain, commit, commit-empty, implicit take at least pg_wr_lat" python3 -c '
import re; t = open("/tmp/zw").read()
m = dict(re.findall(r"^(\S+) +median +(\d+) us", t, re.M))
assert all(int(m[k]) >= 200 for k in ("plain", "commit", "commit-empty", "implicit")), m'
# its nvme-cli walk-through (tutorial 06 prints it): the write pointer
# stays at 0 after out-of-order writes, moves to 0x10 with the commit, to
# 0x20 with the write past the window; a write below it is refused
check "zrwa-run.sh cli: write pointers 0, 0, 0x10, 0x20, then Finish" python3 -c '
import re; t = open("/tmp/zw").read().split("C0h before")[0]
wps = re.findall(r"^SLBA: 0 +WP: (\S+)", t, re.M)
assert wps[:4] == ["0", "0", "0x10", "0x20"] and len(wps) == 5, wps'
check "zrwa-run.sh cli: a write below the write pointer is Zone Invalid Write" grep -qi 'Zone Invalid Write' /tmp/zw
