#!/bin/bash
# The defaults `-device femu,help` and `-device femu-subsys,help` print are
# the FTL library's own (ftl_config_default and zns_config_default, where
# femu-sim starts from too), so the emulator and the simulator model the
# same SSD when nothing is set.  tests/config/ftl-defaults.c prints the
# library's defaults; it is built here from hw/femu/ftl's sources.
. "$(dirname "$0")/lib.sh"
root=${FEMU_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
ftl_src=$(sed -n "s/^ *'\([a-z-]*\.c\)',*$/\1/p" "$root/hw/femu/ftl/meson.build")
files=("$root/tests/config/ftl-defaults.c")
for f in $ftl_src; do files+=("$root/hw/femu/ftl/$f"); done
gcc -std=gnu11 -O1 -Wall -I"$root/include" -I"$root/hw/femu/ftl" \
    "${files[@]}" -o "$cfg_tmp/ftl-defaults" -lm || { echo "FAIL: building ftl-defaults"; exit 1; }
lib=$("$cfg_tmp/ftl-defaults") || { echo "FAIL: ftl-defaults exited $?"; exit 1; }

declare -A help
for drv in femu femu-subsys; do
    help[$drv]=$(timeout -k 5 60 "$FEMU_QEMU" -device "$drv,help" 2>&1)
done
while read -r drv kv; do
    name=${kv%%=*} want=${kv#*=}
    cfg_rows=$((cfg_rows + 1))
    line=$(grep -F -m1 "  $name=<" <<<"${help[$drv]}")
    got=$(sed -nE 's/.*\(default: (.*)\)$/\1/p' <<<"$line")
    if [ -z "$line" ]; then
        cfg_failed=$((cfg_failed + 1)); echo "FAIL: $drv,help lists no $name"
    elif [ "$got" != "$want" ]; then
        cfg_failed=$((cfg_failed + 1))
        echo "FAIL: $drv $name: help says default '$got', the FTL library '$want'"
    else
        echo "ok   $drv $name=$want"
    fi
done <<<"$lib"
# the library's list is the whole FTL configuration, not a few fields
[ "$cfg_rows" -ge 20 ] || { echo "FAIL: only $cfg_rows defaults from ftl-defaults"; exit 1; }
finish
