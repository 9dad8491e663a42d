#!/bin/bash
# `-device femu,help` and `-device femu-subsys,help` describe every FEMU
# property (what it is, unit, limits) next to its default, so a user can
# configure the device without the docs.  A property listed with an empty
# description ("name=<type>  -  (default: ...)") fails.  The properties
# checked are every one the device adds to its QOM parent (QMP
# device-list-properties of the device minus qom-list-properties of
# pci-device or device), so a new property needs a description too.
. "$(dirname "$0")/lib.sh"

own_props() { # own_props DRIVER PARENT: DRIVER's properties, not PARENT's
    printf '%s' '{"execute":"qmp_capabilities"}' \
        "{\"execute\":\"device-list-properties\",\"arguments\":{\"typename\":\"$1\"}}" \
        "{\"execute\":\"qom-list-properties\",\"arguments\":{\"typename\":\"$2\"}}" \
        '{"execute":"quit"}' |
        timeout -k 5 60 "$FEMU_QEMU" -M none -nodefaults -display none \
            -qmp stdio 2>/dev/null |
        /usr/bin/python3 -c '
import json, sys
lists = [m["return"] for m in map(json.loads, filter(str.strip, sys.stdin))
         if isinstance(m.get("return"), list)]
if len(lists) == 2:
    parent = {p["name"] for p in lists[1]}
    print(" ".join(sorted(p["name"] for p in lists[0]
                        if p["name"] not in parent)))'
}

help_check() { # help_check DRIVER PROP... : each PROP has a description
    local drv=$1; shift
    local out line p
    out=$(timeout -k 5 60 "$FEMU_QEMU" -device "$drv,help" 2>&1)
    if ! grep -q "^$drv options:" <<<"$out"; then
        cfg_rows=$((cfg_rows + 1))
        cfg_out=$out; cfg_fail "$drv,help: no option list"; return
    fi
    for p in "$@"; do
        cfg_rows=$((cfg_rows + 1))
        line=$(grep -E -m1 "^  $p=<" <<<"$out")
        # "  name=<type>   - DESCRIPTION (default: X)"; the description
        # is what stands between "- " and "(default" (or the line's end);
        # a property without one prints no " - " at all, or " -  (default"
        desc=$(grep -E '^  [^ ]+ +- ' <<<"$line" |
               sed -E 's/^  [^ ]+ +- ?//; s/ ?\(default: .*\)$//')
        if [ -z "$line" ]; then
            cfg_failed=$((cfg_failed + 1)); echo "FAIL: $drv,help lists no $p"
        elif [ ${#desc} -lt 10 ]; then
            cfg_failed=$((cfg_failed + 1))
            echo "FAIL: $drv,help: $p has no description: '$line'"
        else
            echo "ok   $drv $p: $desc"
        fi
    done
}

femu_props=$(own_props femu pci-device)
subsys_props=$(own_props femu-subsys device)
echo "femu: $femu_props"
echo "femu-subsys: $subsys_props"
# a QMP answer that lost the list would check nothing: femu has its
# geometry, timing, GC, controller and zone properties (36 when written)
set -- $femu_props
if [ $# -lt 30 ] || [ -z "$subsys_props" ]; then
    echo "FAIL: QMP listed $# femu properties, femu-subsys: '$subsys_props'"
    exit 1
fi
help_check femu $femu_props
help_check femu-subsys $subsys_props

# the figures a user looks for: unit and limits, and the defaults
out=$(timeout -k 5 60 "$FEMU_QEMU" -device femu,help 2>&1)
row() { # row REGEX: one line of the help matches
    cfg_rows=$((cfg_rows + 1))
    if grep -Eq -- "$1" <<<"$out"; then
        echo "ok   help line /$1/"
    else
        cfg_failed=$((cfg_failed + 1)); echo "FAIL: no help line matches /$1/"
    fi
}
row '^  pg_rd_lat=<uint64> +- NAND page read latency in ns \(0\.\.10000000000\) \(default: 40000\)$'
row '^  op_pcent=<int32> +- over-provisioning in percent.*\(default: -1\)$'
row '^  gc_policy=<FemuGcPolicy> +- GC victim policy: greedy, fifo, random, cost-benefit or d-choice \(default: greedy\)$'
row '^  femu_mode=<uint32> +- 1 = BlackBox SSD.*2 = NoSSD.*\(default: 1\)$'
row '^  subsys=<str> +- id of a femu-subsys device'
row '^  femu_mode=<uint32> +- .*3 = Zoned Namespace SSD.*\(default: 1\)$'
row '^  zone_luns=<uint32> +- femu_mode=3: LUNs one zone stripes over.*\(default: 4\)$'
finish
