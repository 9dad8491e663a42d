# Helpers for the guest side of tests/guest/femu-*.t (sourced in the guest).
FAILS=0
# no progress meter: it garbles the log with carriage returns
fio() { command fio --eta=never "$@"; }
ok() { echo "ok - $*"; }
bad() { echo "FAIL - $*"; FAILS=$((FAILS + 1)); }
# check DESCRIPTION COMMAND...: pass when the command succeeds
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }

# ctrl_of SERIAL -> nvmeN (controller names do not follow PCI order)
ctrl_of() {
    local c
    for c in /sys/class/nvme/nvme*; do
        [ "$(tr -d ' ' <"$c/serial")" = "$1" ] && { basename "$c"; return 0; }
    done
    return 1
}

# The log pages are decoded by scripts/femu-log.sh's functions, which the
# job carries before this file (femu_guest in femu-lib.sh).
# c0 CTRL -> "WAFx1000 host_written gc_moved host_programmed" (log C0h)
c0() {
    local v
    v=$(femu_c0 "$1") || return 1
    set -- $v
    echo "$1 $2 $3 $4"
}

# c1 CTRL -> "count sum max p50 p99 p999" (completion lateness, log C1h)
c1() {
    local v
    v=$(femu_c1 "$1") || return 1
    tr ' ' '\n' <<<"$v" | awk -F= '/^cqe_(count|sum_ns|max_ns|p50_ns|p99_ns|p999_ns)=/ {
        printf "%s%s", sep, $2; sep = " " } END { print "" }'
}

# fiolat FIO-ARGS... -> "min mean p50" latency in ns of the job's reads
# or writes (whichever did I/O)
fiolat() {
    fio --output-format=json "$@" | python3 -c '
import sys, json
j = json.load(sys.stdin)["jobs"][0]
d = j["read"] if j["read"]["io_bytes"] else j["write"]
print(int(d["lat_ns"]["min"]), int(d["lat_ns"]["mean"]),
      int(d["clat_ns"]["percentile"]["50.000000"]))'
}

ctl() { nvme admin-passthru "/dev/$1" --opcode=0xef --cdw10="$2" >/dev/null 2>&1; }

finish() {
    echo "guest checks: $FAILS failed"
    [ "$FAILS" = 0 ]
}
