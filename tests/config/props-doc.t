#!/bin/bash
# Every property the femu and femu-subsys devices add (the rows of
# hw/femu/ftl/props.c and hw/femu/props.c, as QEMU lists them) is
# documented: a row of docs/properties.md's tables, or, for FEMU
# upstream's names that this project spells otherwise or refuses, a row
# of docs/differences.md's table of FEMU properties, which also has a
# row for each name of tests/data/femu-upstream-props.txt.
. "$(dirname "$0")/lib.sh"
root=${FEMU_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
props=$root/docs/properties.md diffs=$root/docs/differences.md

documented() { # documented FILE NAME: a table row names it in backquotes
    grep -Eq "^\|( [a-z-]+ \|)? ([^|]*, )?\`$2\`(, [^|]*)? \|" "$1"
}
parent_props() { # parent_props TYPE: the QOM properties of TYPE
    printf '%s' '{"execute":"qmp_capabilities"}' \
        "{\"execute\":\"qom-list-properties\",\"arguments\":{\"typename\":\"$1\"}}" \
        '{"execute":"quit"}' |
        timeout -k 5 60 "$FEMU_QEMU" -M none -nodefaults -display none \
            -qmp stdio 2>/dev/null |
        /usr/bin/python3 -c '
import json, sys
for m in map(json.loads, filter(str.strip, sys.stdin)):
    if isinstance(m.get("return"), list):
        print("\n".join(p["name"] for p in m["return"]))'
}
for drv in femu femu-subsys; do
    # the device's own properties: those -device DRV,help lists that its
    # QOM parent (pci-device, device) does not have
    own=$(timeout -k 5 60 "$FEMU_QEMU" -device "$drv,help" 2>&1 |
          sed -nE 's/^  ([a-z_.-]+)=<.*/\1/p')
    case $drv in femu) parent=$(parent_props pci-device) ;;
                 *) parent=$(parent_props device) ;; esac
    n=0
    for p in $own; do
        if grep -qx -- "$p" <<<"$parent"; then
            continue
        fi
        n=$((n + 1)); cfg_rows=$((cfg_rows + 1))
        if documented "$props" "$p" || documented "$diffs" "$p"; then
            echo "ok   $drv $p documented"
        else
            cfg_failed=$((cfg_failed + 1))
            echo "FAIL: $drv property $p has no row in docs/properties.md or docs/differences.md"
        fi
    done
    if [ "$n" -lt 5 ]; then
        cfg_rows=$((cfg_rows + 1)); cfg_failed=$((cfg_failed + 1))
        echo "FAIL: $drv,help listed only $n properties"
    fi
done
while read -r dev name _; do
    case $dev in ''|'#'*) continue ;; esac
    cfg_rows=$((cfg_rows + 1))
    if grep -Eq "^\| $dev \| \`$name\` \|" "$diffs"; then
        echo "ok   FEMU's $dev $name has its row in differences.md"
    else
        cfg_failed=$((cfg_failed + 1))
        echo "FAIL: FEMU's $dev property $name has no row in docs/differences.md"
    fi
done < "$root/tests/data/femu-upstream-props.txt"
finish
