# Helpers of bench/device/cpu.sh and scale.sh (sourced): host CPU time of
# a QEMU process's threads but its vCPUs, and medians and ratios.  Sums
# of nanoseconds pass 2^31 within seconds: awk prints them with %.0f
# (mawk's %d stops at 2147483647).

# "TID NS COMM" per QEMU thread but the vCPUs (ns on a CPU; blanks in the
# thread's name become _); with a second argument "vcpu", the vCPUs only
cpu_snap() {
    local pid=$1 t comm v
    for t in /proc/$pid/task/*; do
        comm=$(cat "$t/comm" 2>/dev/null) || continue
        case $comm in
        "CPU "*/TCG|"CPU "*/KVM) [ "${2:-}" = vcpu ] || continue ;;
        *) [ "${2:-}" = vcpu ] && continue ;;
        esac
        if [ -r "$t/schedstat" ]; then
            read -r v _ < "$t/schedstat" || continue
        else
            v=$(awk -v hz="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); printf "%.0f", ($12 + $13) * 1e9 / hz}' "$t/stat") || continue
        fi
        echo "${t##*/} $v ${comm// /_}"
    done
}
# "NS NAME": CPU ns the threads of each name used between two snapshots:
# a thread that started meanwhile counts whole, one that ended meanwhile
# (QEMU's worker threads come and go) is left out rather than making the
# sum negative
cpu_deltas() {
    awk 'NR == FNR { a[$1] = $2; next }
        { d = $2 - ($1 in a ? a[$1] : 0); if (d > 0) s[$3] += d }
        END { for (c in s) printf "%.0f %s\n", s[c], c }' "$1" "$2"
}
# their sum
cpu_delta() { cpu_deltas "$1" "$2" | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
# per thread name divided by IOS: "NAME=NS ..." in decreasing order,
# where a phase's CPU went
cpu_by_thread() {    # SNAP0 SNAP1 IOS
    cpu_deltas "$1" "$2" | sort -rn |
        awk -v ios="$3" '{ printf "%s%s=%.0f", (NR > 1 ? " " : ""), $2, int($1 / (ios > 0 ? ios : 1)) } END { print "" }'
}

median() { sort -n | awk '{a[NR]=$1} END{if (!NR) print ""; else if (NR % 2) print a[(NR+1)/2]; else printf "%.15g\n", (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a != "" && b > 0) printf "%.2f", a / b; else print "n/a" }'; }

# cpu_phases NAME TAG: the runner's output on stdin, copied to $OUT/TAG.log;
# between the guest's "phase-start" and "phase-end PHASE IOS" lines, the
# host CPU of the QEMU run with -name NAME is measured, and lines
# "result PHASE_cpu_ns_per_io N" (all threads but the vCPUs) and
# "result PHASE_vcpu_ns_per_io N" (the vCPUs) and "result
# PHASE_all_ns_per_io N" (both) follow the phase's end
cpu_phases() {
    local name=$1 tag=$2 pid= line ios host vcpu
    while IFS= read -r line; do
        case $line in
        phase-start*)
            pid=$(pgrep -f -- "^[^ ]*qemu-system-x86_64 .*-name $name" | head -1)
            cpu_snap "$pid" > "$OUT/$tag.snap0"
            cpu_snap "$pid" vcpu > "$OUT/$tag.vsnap0" ;;
        phase-end*)
            set -- $line
            cpu_snap "$pid" > "$OUT/$tag.snap1"
            cpu_snap "$pid" vcpu > "$OUT/$tag.vsnap1"
            ios=$(( $3 > 0 ? $3 : 1 ))
            host=$(cpu_delta "$OUT/$tag.snap0" "$OUT/$tag.snap1")
            # the vCPU threads' (the guest's own work, and what a device
            # does in them), reported apart
            vcpu=$(cpu_delta "$OUT/$tag.vsnap0" "$OUT/$tag.vsnap1")
            echo "result ${2}_cpu_ns_per_io $(( host / ios ))"
            echo "result ${2}_vcpu_ns_per_io $(( vcpu / ios ))"
            # every thread: what a device does in the vCPU threads
            # (doorbell_inline) is neither hidden nor counted twice
            echo "result ${2}_all_ns_per_io $(( (host + vcpu) / ios ))"
            echo "threads ${2}_cpu_ns_per_io $(cpu_by_thread "$OUT/$tag.snap0" "$OUT/$tag.snap1" "$3")" ;;
        esac
        echo "$line"
    done > "$OUT/$tag.log"
}
