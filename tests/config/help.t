#!/bin/bash
# `-device femu,help` and `-device femu-subsys,help` describe every FEMU
# property (what it is, unit, limits) next to its default, so a user can
# configure the device without the docs.  A property listed with an empty
# description ("name=<type>  -  (default: ...)") fails.
. "$(dirname "$0")/lib.sh"

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

help_check femu femu_mode nchs luns_per_ch pls_per_lun blks_per_pl \
    pgs_per_blk secsz secs_per_pg devsz_mb op_pcent pg_rd_lat pg_wr_lat \
    blk_er_lat ch_xfer_lat gc_thres_pcent gc_thres_pcent_high gc_policy \
    gc_strategy hot_cold_sep seed serial queues pollers mdts mqes subsys uuid \
    zone_luns zone_size_mb zone_cap_mb max_open max_active zasl
help_check femu-subsys fdp fdp.nruh fdp.nru

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
