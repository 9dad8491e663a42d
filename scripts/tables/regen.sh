#!/bin/bash
# regen.sh: regenerate the tutorials' tables from scratch, the guest (the
# femu device in the embedded guest, scripts/femu-run + the tutorial
# scripts) and the simulator (build/femu-sim, the same FTL code) side by
# side.  Writes one markdown fragment per table into OUT (default
# docs/tables/SCALE/), then splices each fragment into the tutorials
# (docs/tutorials/*.md) between the lines "<!-- BEGIN SCALE/TABLE -->" and
# "<!-- END SCALE/TABLE -->" (--no-splice: leave the tutorials alone;
# --splice-only: measure nothing, splice the fragments already in OUT).
#
#   scripts/tables/regen.sh [--scale full|scaled] [--sim-only] [--out DIR]
#                           [--only TABLE[,TABLE...]] [--group N] [--no-splice]
#                           [--splice-only] [--rows zipf|I,J,...]
#                           [-j N] [--hosts SSHLOGIN[,SSHLOGIN...]]
#                           [--hosts-file FILE]
#
# Also: make tables [SCALE=full] [TABLES=02-op,...] [REGEN_FLAGS="--no-splice -j 4"]
#
# Tables: 02-threshold 02-op 02-policy 02-hotcold 04-fdp 05-latency
# (04-fdp runs scripts/tutorials/fdp-run.sh, see docs/fdp.md).
#
# --scale full    the configurations the tutorials name: 2 GiB of NAND
#                 (nchs=4,luns_per_ch=4,blks_per_pl=128), fill, age with
#                 4 GiB of 4 KiB random writes, measure a second 4 GiB.
#                 Under TCG this takes hours (see the tutorials).
# --scale scaled  the same number of lines (128) on 64 MiB of NAND
#                 (nchs=2,luns_per_ch=2,blks_per_pl=128,pgs_per_blk=32),
#                 age and measure 2x the namespace each; minutes.
# --sim-only      only the simulator columns (seconds), as a check of the
#                 docs: without --out the fragments go to a new temporary
#                 directory (printed), nothing is spliced, and each table's
#                 femu-sim columns are compared with the committed fragment
#                 in docs/tables/SCALE/ (exit status 3 when one differs).
#                 With --out DIR they are written there (and spliced unless
#                 --no-splice), their guest columns saying "not measured".
# --rows R        WAF tables: measure only these rows in the guest ("zipf":
#                 the Zipf rows; or 0-based row numbers) and keep the guest
#                 columns and boot times of the other rows from the table's
#                 current fragment in OUT (rows matched by properties and
#                 writes); for rerunning what a script fix changed.  The
#                 simulator columns are always recomputed.
# --group N       devices per guest boot (default: all rows of a table when
#                 scaled, 1 when full: a full-size device keeps up to 1.6
#                 GiB of written data in host memory).
# -j N            run N configurations at once: each femu-sim row and each
#                 guest boot (a group of rows, or 04-fdp's two devices) is
#                 one job, run by GNU parallel (installed with apt-get when
#                 missing and run as root; -j 1 needs no GNU parallel, and
#                 without -j a user who cannot install it gets one job at
#                 a time).
#                 Default: one job per free core (CPUs minus the 1-minute
#                 load average, at least 1), fewer if MemAvailable cannot
#                 hold that many guests.  The fragments come out as a
#                 serial run writes them: rows in table order, boot times
#                 sorted.  05-latency measures time, so it runs alone on
#                 this host after every other job has finished.
# --hosts LIST    spread the jobs over hosts by ssh (GNU parallel's
#                 --sshlogin: "host", "user@host", "N/host" for at most N
#                 jobs there, ":" for this host; comma-separated).  Without
#                 -j each host runs one job per CPU thread.  Each host
#                 needs: key-based ssh login without a prompt; GNU
#                 parallel, rsync and perl; this checkout at the same path
#                 (the tutorial scripts, femu-run and the guest scripts are
#                 checked against this host's: a host whose copy differs
#                 fails its first job); the embedded guest built there
#                 (make guest); QEMU's runtime libraries (make build there,
#                 or ./configure).  The QEMU and femu-sim binaries of this
#                 run are copied to each host (same /tmp path), removed at
#                 the end.
# --hosts-file F  the same, one sshlogin per line (GNU parallel's
#                 --sshloginfile).
# A table's fragment is rewritten after every guest boot: an interrupted
# run keeps the rows it measured (the others read "not measured"); each
# fragment records the guest's seconds per row and the wall time per boot.
# Guest WAF runs send 0xEF codes 2 and 4 (waf-run.sh does by default: GC
# and NAND take no time): page counts and so the WAF do not depend on
# timing, the run is much faster, and parallel boots do not change them.
# The guest kernel gets no_timer_check: under TCG on a loaded host its
# IO-APIC timer check can fail and panic the boot (seen here).
# Environment: FEMU_QEMU (QEMU binary; the run boots a copy of it taken at
# the start, under the build lock FEMU_BUILD_LOCK, default
# /tmp/femu-build.lock), FEMU_SIM (femu-sim binary), RUNNER_ARGS (extra
# scripts/femu-run options, e.g. "--accel tcg").
set -uo pipefail
# SRC: this checkout (scripts); ROOT: where docs/ is read and written
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ROOT=${FEMU_ROOT:-$SRC}
ME=regen
SIM=${FEMU_SIM:-$ROOT/build/femu-sim}
QEMU=${FEMU_QEMU:-$ROOT/build-femu/qemu-system-x86_64}
RUNNER=$SRC/scripts/femu-run
T=$SRC/scripts/tutorials
# lib.sh (shared helpers of the tutorial scripts) travels with them, when present
LIBFILE=(); [ -f "$T/lib.sh" ] && LIBFILE=(--file "$T/lib.sh")
SCALE=scaled SIMONLY=0 OUT="" ONLY="" GROUP="" SPLICE="" ROWS=""
JOBS="" HOSTS="" HOSTSFILE="" WORKER="" STAMP=""
die() { echo "$ME: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    case $1 in
    --scale) SCALE=$2; shift 2 ;;
    --sim-only) SIMONLY=1; shift ;;
    --out) OUT=$2; shift 2 ;;
    --only) ONLY=,$2,; shift 2 ;;
    --group) GROUP=$2; shift 2 ;;
    --rows) ROWS=$2; shift 2 ;;
    --no-splice) SPLICE=0; shift ;;
    --splice-only) SIMONLY=1; SPLICE=1; SPLICEONLY=1; shift ;;
    -j|--jobs) JOBS=$2; shift 2 ;;
    -j[0-9]*) JOBS=${1#-j}; shift ;;
    --hosts) HOSTS=$2; shift 2 ;;
    --hosts-file) HOSTSFILE=$2; shift 2 ;;
    # internal: one job, run by the dispatcher (below) here or on a --hosts host
    --worker) WORKER=$2; shift 2 ;;
    --qemu) QEMU=$2; shift 2 ;;
    --sim) SIM=$2; shift 2 ;;
    --stamp) STAMP=$2; shift 2 ;;
    --runner-args) RUNNER_ARGS=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (--help)" ;;
    esac
done
# --splice-only measures nothing, whatever other options say: with an --only
# the tables it names would otherwise be rewritten from the simulator alone,
# dropping their measured guest columns
[ -n "${SPLICEONLY:-}" ] && ONLY=,none,
[ -z "$JOBS" ] || [[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "-j needs a number of jobs >= 1, not '$JOBS'"
JOBS_GIVEN=$JOBS
[ -z "$GROUP" ] || [[ $GROUP =~ ^[1-9][0-9]*$ ]] || die "--group needs a number >= 1, not '$GROUP'"
[ -z "$HOSTSFILE" ] || [ -r "$HOSTSFILE" ] || die "--hosts-file $HOSTSFILE: cannot read it"
case $SCALE in
full)   GEOM=nchs=4,luns_per_ch=4,blks_per_pl=128; AGE=4g MEASURE=4g; NAND_MB=2048; : "${GROUP:=1}"
        FGEO=nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25,gc_thres_pcent=95; FSZ=2g ;;
scaled) GEOM=nchs=2,luns_per_ch=2,blks_per_pl=128,pgs_per_blk=32; AGE=2x MEASURE=2x; NAND_MB=64; : "${GROUP:=99}"
        FGEO=nchs=2,luns_per_ch=4,blks_per_pl=64,pgs_per_blk=32,op_pcent=25,gc_thres_pcent=95; FSZ=128m ;;
*) die "--scale must be full or scaled" ;;
esac
ACCEL=tcg

# The WAF tables: TABLES in order, TITLE[name], TROWS[name] (one row a
# line, "PROPS|ZIPF").  The dispatching run and every worker read these.
TABLES=(02-threshold 02-op 02-policy 02-hotcold)
declare -A TITLE TROWS
TITLE[02-threshold]="GC threshold (op_pcent=25)"
TROWS[02-threshold]=$(printf '%s\n' "op_pcent=25,gc_thres_pcent=75|" "op_pcent=25,gc_thres_pcent=90|" \
    "op_pcent=25,gc_thres_pcent=95|")
TITLE[02-op]="Over-provisioning (gc_thres_pcent=90)"
TROWS[02-op]=$(printf '%s\n' "op_pcent=7,gc_thres_pcent=90|" "op_pcent=15,gc_thres_pcent=90|" \
    "op_pcent=25,gc_thres_pcent=90|" "op_pcent=50,gc_thres_pcent=90|" "op_pcent=100,gc_thres_pcent=90|")
TITLE[02-policy]="Victim policies (op_pcent=25, gc_thres_pcent=95)"
TROWS[02-policy]=$(for z in "" 1.2; do
    for p in greedy fifo random cost-benefit d-choice; do
        echo "op_pcent=25,gc_thres_pcent=95,gc_policy=$p|$z"
    done
done)
TITLE[02-hotcold]="Hot/cold separation under Zipf 1.2 (op_pcent=25, gc_thres_pcent=95)"
TROWS[02-hotcold]=$(printf '%s\n' "op_pcent=25,gc_thres_pcent=95,gc_policy=greedy,hot_cold_sep=off|1.2" \
    "op_pcent=25,gc_thres_pcent=95,gc_policy=greedy,hot_cold_sep=on|1.2" \
    "op_pcent=25,gc_thres_pcent=95,gc_policy=cost-benefit,hot_cold_sep=off|1.2" \
    "op_pcent=25,gc_thres_pcent=95,gc_policy=cost-benefit,hot_cold_sep=on|1.2")
# table_rows NAME: sets the array rows to NAME's rows
table_rows() { mapfile -t rows <<<"${TROWS[$1]}"; }
wanted() { [ -z "$ONLY" ] || [[ $ONLY == *,$1,* ]]; }

# stamp: a digest of the files a job runs (this script, the runner, the
# guest and the tutorial scripts), so that a --hosts host whose checkout
# differs refuses to measure instead of mixing versions in one table
stamp() {
    (cd "$SRC" && cat scripts/tables/regen.sh scripts/femu-run scripts/tutorials/*.sh \
        scripts/guest/init scripts/guest/sudo scripts/guest/build-guest.sh 2>/dev/null) |
        sha256sum | cut -c1-16
}

# size SIZE PROPS -> bytes for femu-sim: "Nx" = N x namespace, rounded
# down to whole 4 KiB requests exactly as fio does in the guest
size() {
    local ns
    case $1 in
    *x) ns=$("$SIM" "$2" --phase f:seqfill,size=4k | sed -n 's/^namespace: \([0-9]*\) blocks of \([0-9]*\) B.*/\1 \2/p')
        set -- "$1" $ns
        awk -v f="${1%x}" -v n="$(( $2 * $3 ))" 'BEGIN { printf "%d\n", int(f * n / 4096) * 4096 }' ;;
    *) echo "$1" ;;
    esac
}

# sim PROPS ZIPF -> "waf gc_moved seconds"
sim() {
    local props=$GEOM,$1 z=${2:-} a m t0 out
    a=$(size $AGE "$props") m=$(size $MEASURE "$props")
    t0=$EPOCHREALTIME
    # exit status 1: the configuration is refused (reserve rule); anything
    # else (a binary being relinked, a crash) must not become a table cell
    out=$("$SIM" "$props" --waf-run=age=$a,measure=$m${z:+,zipf=$z})
    case $? in
    0) ;;
    1) echo "refused - -"; return ;;
    *) echo "FAILED"; return ;;
    esac
    awk -v t="$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')" \
        '$1 == "measure" { printf "%d.%03d %s %s\n", $8 / 1000, $8 % 1000, $6, t }' <<<"$out"
}

# ---------------------------------------------------------------- jobs
# A job prints result lines starting with "@@" on stdout (everything else
# goes to stderr) and exits non-zero on failure:
#   sim:TABLE:I       @@sim TABLE I WAF GC_MOVED SECONDS (or "refused - -")
#   fdpsim:F          @@fdpsim F WAF GC_MOVED (femu-sim, 04-fdp, FDP=F)
#   guest:TABLE:I,J   one boot with rows I,J,... as devices:
#                     @@row TABLE I WAF GC_MOVED MEASURE_S F+A+M_S per row,
#                     then @@boot TABLE I,J WALL_S ACCEL HOST CPUS
#   fdp               one boot, FDP=0 and FDP=1 on two devices:
#                     @@fdp F WAF GC_PAGES per device, then
#                     @@fdpboot WALL_S ACCEL HOST CPUS LOAD_START LOAD_END
host_id() { echo "$(hostname 2>/dev/null || echo host) $(nproc)"; }

job_sim() {
    local table=$1 i=$2 r
    table_rows "$table"
    r=$(sim "${rows[$i]%|*}" "${rows[$i]#*|}")
    [ "$r" != FAILED ] || die "$table: $SIM $GEOM,${rows[$i]%|*} failed"
    echo "@@sim $table $i $r"
}

job_fdpsim() {
    local fdp=$1 pid="" s
    [ "$fdp" = 1 ] && pid=,hot_pid=0,cold_pid=1
    s=$("$SIM" "$FGEO,fdp.nruh=2" --phase fill:seqfill,bs=128k \
        --phase age:hotcold,size=$FSZ$pid --phase measure:hotcold,size=$FSZ$pid |
        awk '$1 == "measure" { printf "%d.%03d %s\n", $8 / 1000, $8 % 1000, $6 }')
    [ -n "$s" ] || die "04-fdp: $SIM $FGEO,fdp.nruh=2 failed"
    echo "@@fdpsim $fdp $s"
}

job_guest() {
    local table=$1 list=$2 i job log rc t0 wall accel w
    table_rows "$table"
    job=$(mktemp) log=$(mktemp)
    local dev=() ran=()
    IFS=, read -r -a ran <<<"$list"
    echo 'sv() { for c in /sys/class/nvme/nvme*; do [ "$(tr -d " " <$c/serial)" = $1 ] && echo /dev/$(basename $c)n1; done; }' >"$job"
    for i in "${ran[@]}"; do
        local props=${rows[$i]%|*} z=${rows[$i]#*|}
        dev+=(-device "femu,$GEOM,$props,serial=r$i")
        echo "echo '### row $i'; bash waf-run.sh DEV=\$(sv r$i) AGE=$AGE MEASURE=$MEASURE SPAN=whole${z:+ --random_distribution=zipf:$z}" >>"$job"
    done
    echo "$ME: $table: guest rows $list (${#ran[@]} devices, one boot on $(hostname 2>/dev/null); $(date -u +%H:%M:%S) UTC)" >&2
    t0=$EPOCHREALTIME
    # shellcheck disable=SC2086
    "$RUNNER" --qemu "$QEMU" --timeout 0 --append no_timer_check ${RUNNER_ARGS:-} --file "$T/waf-run.sh" \
        "${LIBFILE[@]}" "${dev[@]}" --script "$job" >"$log" 2>"$log.err"
    rc=$?
    wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
    accel=$(sed -n 's/.*accel=\([a-z]*\).*/\1/p' "$log.err" | tail -1)
    [ $rc = 0 ] || { cat "$log" "$log.err" >&2; rm -f "$job" "$log" "$log.err"; die "$table: guest run failed ($rc)"; }
    for i in "${ran[@]}"; do
        w=$(awk -v s="### row $i" '$0 == s { on = 1; next } /^### / { on = 0 } on' "$log" |
            awk -F'[ =]' '/^phase=/ { for (k = 1; k < NF; k++) v[$k] = $(k + 1); t[v["phase"]] = v["seconds"] }
                /^phase=measure / { w = v["waf_x1000"]; g = v["gc_moved"] }
                END { if (w != "") printf "%d.%03d %s %s %.0f+%.0f+%.0f\n", w / 1000, w % 1000, g, t["measure"], t["fill"], t["age"], t["measure"] }')
        [ -n "$w" ] || { cat "$log" >&2; rm -f "$job" "$log" "$log.err"; die "$table: row $i: no measure line in the guest output"; }
        echo "@@row $table $i $w"
    done
    echo "@@boot $table $list $wall ${accel:-tcg} $(host_id)"
    rm -f "$job" "$log" "$log.err"
}

job_fdp() {
    local job log t0 load0 wall f
    [ -f "$T/fdp-run.sh" ] || die "04-fdp: $T/fdp-run.sh missing"
    echo "$ME: 04-fdp: guest (one boot on $(hostname 2>/dev/null); $(date -u +%H:%M:%S) UTC)" >&2
    job=$(mktemp) log=$(mktemp)
    cat >"$job" <<JOB
for c in /sys/class/nvme/nvme*; do
    case \$(tr -d ' ' <\$c/serial) in f0) C0=\$(basename \$c) ;; f1) C1=\$(basename \$c) ;; esac
done
FDP=0 bash fdp-run.sh NG=/dev/ng\${C0#nvme}n1 SIZE=ns HOT=20% FILL_BS=128k NORANDOMMAP=1 AGE=$FSZ MEASURE=$FSZ || exit 1
FDP=1 bash fdp-run.sh NG=/dev/ng\${C1#nvme}n1 SIZE=ns HOT=20% FILL_BS=128k NORANDOMMAP=1 AGE=$FSZ MEASURE=$FSZ
JOB
    t0=$EPOCHREALTIME load0=$(cut -d' ' -f1 /proc/loadavg)
    # shellcheck disable=SC2086
    "$RUNNER" --qemu "$QEMU" --timeout 0 --append no_timer_check ${RUNNER_ARGS:-} \
        --file "$T/fdp-run.sh" "${LIBFILE[@]}" \
        -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=2 -device "femu,$FGEO,subsys=fdp0,serial=f0" \
        -device femu-subsys,id=fdp1,fdp=on,fdp.nruh=2 -device "femu,$FGEO,subsys=fdp1,serial=f1" \
        --script "$job" >"$log" 2>"$log.err" ||
        { cat "$log" "$log.err" >&2; rm -f "$job" "$log" "$log.err"; die "04-fdp: guest run failed"; }
    wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
    for f in 0 1; do
        echo "@@fdp $f $(grep "^RESULT FDP=$f " "$log" | tr ' ' '\n' |
            awk -F= '{ v[$1] = $2 } END { printf "%d.%03d %s\n", v["waf_x1000"] / 1000, v["waf_x1000"] % 1000, v["gc_pages"] }')"
    done
    echo "@@fdpboot $wall $(sed -n 's/.*accel=\([a-z]*\).*/\1/p' "$log.err" | tail -1) $(host_id) $load0 $(cut -d' ' -f1 /proc/loadavg)"
    rm -f "$job" "$log" "$log.err"
}

if [ -n "$WORKER" ]; then
    if [ -n "$STAMP" ] && [ "$(stamp)" != "$STAMP" ]; then
        die "$(hostname 2>/dev/null): the checkout at $SRC differs from the dispatching host's (scripts/tables/regen.sh, scripts/femu-run, scripts/tutorials/, scripts/guest/): check out and build the same commit there"
    fi
    IFS=: read -r kind a b <<<"$WORKER"
    case $kind in
    sim|fdpsim) [ -x "$SIM" ] || die "$(hostname 2>/dev/null): $SIM missing" ;;&
    sim) job_sim "$a" "$b" ;;
    fdpsim) job_fdpsim "$a" ;;
    guest) [ -x "$QEMU" ] || die "$(hostname 2>/dev/null): $QEMU missing"; job_guest "$a" "$b" ;;
    fdp) [ -x "$QEMU" ] || die "$(hostname 2>/dev/null): $QEMU missing"; job_fdp ;;
    *) die "unknown job $WORKER" ;;
    esac
    exit
fi

[ -x "$SIM" ] || die "$SIM not built (make sim)"
[ "$SIMONLY" = 1 ] || [ -x "$QEMU" ] || die "$QEMU not built (make qemu), or use --sim-only"
# Every job of one run uses copies of the QEMU and femu-sim binaries taken
# at the start (under the build lock that make and the project's builds
# hold): a rebuild of the checkout during a long run neither changes the
# device code half-way through the tables nor makes a boot fail while the
# new binary is being linked (seen here: "QEMU binary not found", status
# 127).  With --hosts, GNU parallel copies them to each host (same path).
SNAP=$(mktemp -d) || die "mktemp failed"
trap 'rm -rf "$SNAP"' EXIT
flock "${FEMU_BUILD_LOCK:-/tmp/femu-build.lock}" cp "$SIM" "$SNAP/femu-sim" || die "cannot copy $SIM"
SIM=$SNAP/femu-sim
if [ "$SIMONLY" != 1 ]; then
    flock "${FEMU_BUILD_LOCK:-/tmp/femu-build.lock}" cp "$QEMU" "$SNAP/qemu-system-x86_64" ||
        die "cannot copy $QEMU"
    QEMU=$SNAP/qemu-system-x86_64
fi
# --sim-only without --out: a check that leaves docs/ alone (below)
CHECK=0
if [ "$SIMONLY" = 1 ] && [ -z "$OUT" ] && [ -z "${SPLICEONLY:-}" ]; then
    CHECK=1 OUT=$(mktemp -d /tmp/femu-tables.XXXXXX) || die "mktemp failed"
    : "${SPLICE:=0}"
fi
: "${OUT:=$ROOT/docs/tables/$SCALE}" "${SPLICE:=1}"
mkdir -p "$OUT"
HOST="$(nproc) CPUs, $(uname -m), $(date -u +%Y-%m-%d)"

# How many jobs at once, and where.  PAR: the GNU parallel options, empty
# for a serial run (no GNU parallel needed).
PAR=()
if [ -n "$HOSTS$HOSTSFILE" ]; then
    PAR=(--stamp "$(stamp)")
    [ -n "$HOSTS" ] && PAR+=(--sshlogin "$HOSTS")
    [ -n "$HOSTSFILE" ] && PAR+=(--sshloginfile "$HOSTSFILE")
    [ -n "$JOBS" ] && PAR+=(-j "$JOBS")
    WHERE="on ${HOSTS:-the hosts of $HOSTSFILE}${JOBS:+, $JOBS per host}"
else
    if [ -z "$JOBS" ]; then
        # free cores: CPUs minus the 1-minute load average; and no more
        # guests than MemAvailable holds (1 GiB of guest RAM plus the NAND
        # of each device of a boot)
        JOBS=$(awk -v n="$(nproc)" '{ f = n - int($1 + 0.5); print (f < 1 ? 1 : f) }' /proc/loadavg)
        if [ "$SIMONLY" != 1 ]; then
            local_mem=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
            per=$(( 1024 + NAND_MB * (GROUP < 10 ? GROUP : 10) ))
            [ -n "$local_mem" ] && [ $(( local_mem / per )) -lt "$JOBS" ] && JOBS=$(( local_mem / per ))
            [ "$JOBS" -ge 1 ] || JOBS=1
        fi
    fi
    [ "$JOBS" = 1 ] || PAR=(-j "$JOBS")
    WHERE="$JOBS at a time on this host"
fi
if [ ${#PAR[@]} -gt 0 ]; then
    if ! parallel --version 2>/dev/null | grep -q '^GNU parallel'; then
        if [ -z "$JOBS_GIVEN$HOSTS$HOSTSFILE" ] && { [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; }; then
            # the default -j cannot install GNU parallel here: run serially
            echo "$ME: GNU parallel is missing (apt-get install parallel, as root): one job at a time" >&2
            PAR=() WHERE="1 at a time on this host"
        else
            # shellcheck source=../graft/lib.sh
            . "$SRC/scripts/graft/lib.sh"
            femu_need 'cmd:parcat|parallel'
            parallel --version 2>/dev/null | grep -q '^GNU parallel' ||
                die "$(command -v parallel) is not GNU parallel (moreutils' parallel first in PATH?)"
        fi
    fi
    if [ -n "$HOSTS$HOSTSFILE" ]; then
        . "$SRC/scripts/graft/lib.sh"
        femu_need 'cmd:ssh|openssh-client' 'cmd:rsync|rsync'
    fi
fi

# run_jobs JOB...: runs each job (serially, or with GNU parallel as PAR
# says) and prints the "@@" lines of each job as it finishes; fails when a
# job fails (GNU parallel then stops the others)
run_jobs() {
    local j
    local wargs=(--scale "$SCALE" --qemu "$QEMU" --sim "$SIM" --runner-args "${RUNNER_ARGS:-}")
    if [ ${#PAR[@]} = 0 ]; then
        for j in "$@"; do
            bash "$SRC/scripts/tables/regen.sh" --worker "$j" "${wargs[@]}" || return 1
        done
        return 0
    fi
    local popts=() stampv="" k
    for ((k = 0; k < ${#PAR[@]}; k++)); do
        if [ "${PAR[$k]}" = --stamp ]; then stampv=${PAR[$((k + 1))]}; k=$((k + 1)); else popts+=("${PAR[$k]}"); fi
    done
    if [ -n "$HOSTS$HOSTSFILE" ]; then
        popts+=(--basefile "$SIM" --cleanup)
        [ "$SIMONLY" = 1 ] || popts+=(--basefile "$QEMU")
        wargs+=(--stamp "$stampv")
    fi
    # GNU parallel's remote side runs each job with $SHELL: an empty one
    # (cron, env -i) would run nothing and still report success.
    printf '%s\n' "$@" | SHELL=${SHELL:-/bin/bash} parallel --will-cite -q --halt now,fail=1 "${popts[@]}" \
        bash "$SRC/scripts/tables/regen.sh" --worker {} "${wargs[@]}"
}

# Results, by table: SW[TABLE:I] (simulator "waf gc_moved seconds"),
# GW[TABLE:I] (guest "waf gc_moved measure_s f+a+m_s"), WALL[TABLE] (boot
# times, one a line), ACC[TABLE] (accelerator); 04-fdp: FS[F], FG[F]
declare -A SW GW WALL ACC FS FG

# want_row I "PROPS|ZIPF": whether --rows selects row I (all without --rows)
want_row() {
    case $ROWS in
    "") return 0 ;;
    zipf) [ -n "${2#*|}" ] ;;
    *) [[ ,$ROWS, == *,$1,* ]] ;;
    esac
}

# keep_old NAME: for the rows --rows does not select, GW and the boot
# times (WALL) from the current fragment OUT/NAME.md
keep_old() {
    local name=$1 f i line c rows
    table_rows "$name"
    f=$OUT/$name.md
    [ -n "$ROWS" ] && [ -f "$f" ] || return 0
    for i in "${!rows[@]}"; do
        want_row "$i" "${rows[$i]}" && continue
        local props=${rows[$i]%|*} z=${rows[$i]#*|} w=uniform
        [ -n "$z" ] && w="zipf $z"
        line=$(grep -F "| \`$props\` | $w |" "$f" | head -1)
        [ -n "$line" ] || die "$name: --rows: row $i ($props, $w) is not in $f"
        # | props | writes | sim | guest | simgc / guestgc | M s (F+A+M s, accel) |
        IFS='|' read -r -a c <<<"$line"
        [ "$(echo ${c[4]})" != "not measured" ] || continue
        GW[$name:$i]="$(echo ${c[4]}) $(echo ${c[5]} | sed 's|.*/ *||') $(echo ${c[6]} | sed 's/ s (.*//') $(echo ${c[6]} | sed 's/.*(\([0-9+.]*\) s,.*/\1/')"
        ACC[$name]=$(echo ${c[6]} | sed 's/.*, \([a-z]*\))$/\1/')
    done
    # boot times of the kept rows: "rows A-B: N s" entries with no selected row
    line=$(sed -n 's/^Guest wall time per boot, boot to exit: \(.*\) (`--scale.*/\1/p' "$f")
    local e
    IFS=';' read -r -a c <<<"$line"
    for e in "${c[@]}"; do
        e=$(echo $e)
        [[ $e =~ ^rows\ ([0-9]+)-([0-9]+):\  ]] || continue
        local a=${BASH_REMATCH[1]} b=${BASH_REMATCH[2]} kept=0 rerun=0
        for ((i = a; i <= b; i++)); do
            if want_row "$i" "${rows[$i]}"; then rerun=1; else kept=1; fi
        done
        # a boot some of whose rows are measured again: say it is the earlier one
        [ $kept = 1 ] && [ $rerun = 1 ] && e=${e/:/ (earlier boot):}
        [ $kept = 1 ] && WALL[$name]+="$e"$'\n'
    done
}

# waf_fragment NAME: writes OUT/NAME.md from SW (simulator) and GW (guest,
# rows measured so far; the others "not measured")
waf_fragment() {
    local name=$1 i f rows accel=${ACC[$1]:-$ACCEL}
    table_rows "$name"
    f=$OUT/$name.md
    {
        echo "<!-- generated by scripts/tables/regen.sh --scale $SCALE$([ "$SIMONLY" = 1 ] && echo ' --sim-only'); do not edit -->"
        echo "**${TITLE[$name]}** ($SCALE: \`$GEOM\`, age $AGE, measure $MEASURE of 4 KiB random writes; $HOST)"
        echo
        echo "| properties | writes | WAF femu-sim | WAF guest | GC pages moved (sim / guest) | guest seconds: measure phase (fill+age+measure) |"
        echo "|---|---|---|---|---|---|"
        for i in "${!rows[@]}"; do
            local props=${rows[$i]%|*} z=${rows[$i]#*|} s g w=uniform
            [ -n "$z" ] && w="zipf $z"
            s=(${SW[$name:$i]})
            if [ -n "${GW[$name:$i]:-}" ]; then g=(${GW[$name:$i]}); else g=("not measured" "-" "-" "-"); fi
            echo "| \`$props\` | $w | ${s[0]} | ${g[0]} | ${s[1]} / ${g[1]} | $([ -n "${GW[$name:$i]:-}" ] && echo "${g[2]} s (${g[3]} s, $accel)" || echo -) |"
        done
        echo
        echo "Commands: simulator \`build/femu-sim $GEOM,<properties> --waf-run=age=<bytes>,measure=<bytes>[,zipf=1.2]\`;"
        echo "guest \`scripts/femu-run -device femu,$GEOM,<properties> --script scripts/tutorials/waf-run.sh AGE=$AGE MEASURE=$MEASURE SPAN=whole [--random_distribution=zipf:1.2]\`."
        [ -z "${WALL[$name]:-}" ] || echo "Guest wall time per boot, boot to exit: $(printf '%s' "${WALL[$name]}" | sort -t' ' -k2,2n | paste -sd';' | sed 's/;/; /g') (\`--scale $SCALE\`, $accel; KVM: not measured, no working KVM on these machines)."
    } >"$f.tmp" && mv "$f.tmp" "$f"
    echo "$ME: wrote $f" >&2
}

# fdp_fragment: writes OUT/04-fdp.md from FS (simulator) and FG (guest)
fdp_fragment() {
    local f=$OUT/04-fdp.md fdp s g
    {
        echo "<!-- generated by scripts/tables/regen.sh --scale $SCALE$([ "$SIMONLY" = 1 ] && echo ' --sim-only'); do not edit -->"
        echo "**Hot random region (20%) + cold sequential region, 2 handles** ($SCALE: \`$FGEO\`, age $FSZ, measure $FSZ of 4 KiB writes; $HOST)"
        echo
        echo "| placement | WAF femu-sim | WAF guest | GC pages moved (sim / guest) |"
        echo "|---|---|---|---|"
        for fdp in 0 1; do
            s=(${FS[$fdp]})
            if [ "$SIMONLY" = 1 ]; then g=("not measured" "-"); else g=(${FG[$fdp]}); fi
            echo "| FDP=$fdp | ${s[0]} | ${g[0]} | ${s[1]} / ${g[1]} |"
        done
        echo
        echo "Commands: simulator \`build/femu-sim $FGEO,fdp.nruh=2 --phase fill:seqfill,bs=128k --phase age:hotcold,size=$FSZ[,hot_pid=0,cold_pid=1] --phase measure:hotcold,size=$FSZ[,hot_pid=0,cold_pid=1]\`;"
        echo "guest \`FDP=0|1 scripts/tutorials/fdp-run.sh SIZE=ns HOT=20% FILL_BS=128k NORANDOMMAP=1 AGE=$FSZ MEASURE=$FSZ\` on \`-device femu-subsys,id=fdp0,fdp=on,fdp.nruh=2 -device femu,$FGEO,subsys=fdp0\`$([ "$SIMONLY" = 1 ] || echo " ($ACCEL)")."
        [ "$SIMONLY" = 1 ] || echo "Guest wall time, boot to exit: $FWALL s for both runs (one boot, two devices; $ACCEL; host load average $FLOAD, on $FCPUS CPUs; KVM: not measured, no working KVM on these machines)."
    } >"$f"
    echo "$ME: wrote $f" >&2
}

# The simulator columns of every table first (seconds), one job per row.
jobs=()
for name in "${TABLES[@]}"; do
    wanted "$name" || continue
    table_rows "$name"
    for i in "${!rows[@]}"; do jobs+=("sim:$name:$i"); done
done
wanted 04-fdp && jobs+=(fdpsim:0 fdpsim:1)
if [ ${#jobs[@]} -gt 0 ]; then
    echo "$ME: simulator: ${#jobs[@]} runs, $WHERE" >&2
    while read -r tag a b c; do
        case $tag in
        @@sim) SW[$a:$b]=$c ;;
        @@fdpsim) FS[$a]="$b $c" ;;
        esac
    done < <(run_jobs "${jobs[@]}"; echo "@@status $?")
    # every row must have come back (a failed job stops the run)
    for j in "${jobs[@]}"; do
        IFS=: read -r kind a b <<<"$j"
        case $kind in
        sim) [ -n "${SW[$a:$b]:-}" ] ;;
        fdpsim) [ -n "${FS[$a]:-}" ] ;;
        esac || die "simulator job $j failed"
    done
fi
for name in "${TABLES[@]}"; do
    wanted "$name" || continue
    keep_old "$name"
    waf_fragment "$name"
done
wanted 04-fdp && [ "$SIMONLY" = 1 ] && fdp_fragment

# The guest boots: GROUP rows of a table per boot (the rows --rows
# selects), and 04-fdp's boot; each fragment is rewritten as its boots end.
declare -A LABEL
if [ "$SIMONLY" != 1 ]; then
    jobs=()
    for name in "${TABLES[@]}"; do
        wanted "$name" || continue
        table_rows "$name"
        sel=()
        for i in "${!rows[@]}"; do want_row "$i" "${rows[$i]}" && sel+=("$i"); done
        for ((k = 0; k < ${#sel[@]}; k += GROUP)); do
            ran=("${sel[@]:k:GROUP}")
            list=$(IFS=,; echo "${ran[*]}")
            label="rows ${ran[0]}-${ran[-1]}"
            [ ${#ran[@]} = $(( ran[-1] - ran[0] + 1 )) ] || label="rows $list"
            LABEL[$name:$list]=$label
            jobs+=("guest:$name:$list")
        done
    done
    wanted 04-fdp && jobs+=(fdp)
    if [ ${#jobs[@]} -gt 0 ]; then
        echo "$ME: guest: ${#jobs[@]} boots, $WHERE ($(date -u +%H:%M:%S) UTC)" >&2
        declare -A PENDING=()
        while read -r tag a b c d e f g; do
            case $tag in
            @@row) PENDING[$a:$b]="$c $d $e $f" ;;
            @@boot)
                # $a table, $b its rows, $c wall s, $d accel, $e host, $f CPUs
                for k in ${b//,/ }; do GW[$a:$k]=${PENDING[$a:$k]}; unset "PENDING[$a:$k]"; done
                ACC[$a]=$d
                entry="${LABEL[$a:$b]}: $c s"
                [ -z "$HOSTS$HOSTSFILE" ] || entry+=" on $e ($f CPUs)"
                WALL[$a]+="$entry"$'\n'
                echo "$ME: $a: guest ${LABEL[$a:$b]} done: boot to exit $c s ($d, $e)" >&2
                waf_fragment "$a" ;;
            @@fdp) FG[$a]="$b $c" ;;
            @@fdpboot)
                FWALL=$a ACCEL=$b FCPUS=$d FLOAD="$e at the start, $f at the end"
                [ -z "$HOSTS$HOSTSFILE" ] || FCPUS="$c's $d"
                echo "$ME: 04-fdp: guest done in $FWALL s ($ACCEL, $c)" >&2
                fdp_fragment ;;
            @@status) [ "$a" = 0 ] || die "a guest job failed (above); the fragments keep the boots that finished" ;;
            esac
        done < <(run_jobs "${jobs[@]}"; echo "@@status $?")
    fi
fi

# Tutorial 05: latencies exist only in the guest (femu-sim has no host)
if [ -z "$ONLY" ] || [[ $ONLY == *,05-latency,* ]]; then
    f=$OUT/05-latency.md
    if [ "$SIMONLY" = 1 ]; then
        echo "$ME: 05-latency: guest only, skipped (--sim-only)" >&2
    else
        case $SCALE in
        full) LDEV="femu,nchs=4,luns_per_ch=4,blks_per_pl=128,op_pcent=25"; LARGS="IOS=20000 AGE=1x" ;;
        scaled) LDEV="femu,$GEOM,op_pcent=25"; LARGS="IOS=2000 AGE=1x" ;;
        esac
        log=$(mktemp)
        echo "$ME: 05-latency: guest ($(date -u +%H:%M:%S) UTC; load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
        t0=$EPOCHREALTIME load0=$(cut -d' ' -f1 /proc/loadavg)
        "$RUNNER" --qemu "$QEMU" --timeout 0 --append no_timer_check ${RUNNER_ARGS:-} --file "$T/lat-run.sh" \
            "${LIBFILE[@]}" -device "$LDEV" --script "$T/lat-run.sh" $LARGS >"$log" 2>"$log.err" ||
            { cat "$log" "$log.err" >&2; die "05-latency: guest run failed"; }
        wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
        load1=$(cut -d' ' -f1 /proc/loadavg)
        echo "$ME: 05-latency: done in $wall s (load average $load0 before, $load1 after)" >&2
        ACCEL=$(sed -n 's/.*accel=\([a-z]*\).*/\1/p' "$log.err" | tail -1)
        {
            echo "<!-- generated by scripts/tables/regen.sh --scale $SCALE; do not edit -->"
            echo "**QD1 4 KiB latency, fio clat in us** ($SCALE: \`-device $LDEV\`, NAND times 40/200/2000 us; $ACCEL; $HOST)"
            echo
            echo "| phase | I/Os | mean | p50 | p99 | p99.9 | max |"
            echo "|---|---|---|---|---|---|---|"
            awk -F'[ =]' '/^lat phase=/ { for (k = 2; k < NF; k++) v[$k] = $(k + 1);
                printf "| %s | %s | %s | %s | %s | %s | %s |\n", v["phase"], v["n"], v["mean_us"], v["p50_us"], v["p99_us"], v["p999_us"], v["max_us"] }' "$log"
            echo
            echo "Completion lateness (log C1h, ns): \`$(sed -n 's/^C1h: //p' "$log")\`"
            echo
            echo "Command: \`scripts/femu-run --file scripts/tutorials/lib.sh -device $LDEV --script scripts/tutorials/lat-run.sh $LARGS\`."
            echo "Guest wall time, boot to exit: $wall s ($ACCEL; host load average $load0 at the start, $load1 at the end, on $(nproc) CPUs; KVM: not measured, no working KVM on these machines)."
        } >"$f"
        rm -f "$log" "$log.err"
        echo "$ME: wrote $f" >&2
    fi
fi

# --sim-only check: each fragment's femu-sim columns (WAF and GC pages
# moved, by row) against the committed one
if [ "$CHECK" = 1 ]; then
    python3 - "$OUT" "$ROOT/docs/tables/$SCALE" <<'PY'
import glob, os, sys
def sim_cols(path):
    rows, hdr = {}, None
    for line in open(path):
        if not line.startswith("|") or line.startswith("|---"):
            continue
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if hdr is None:
            hdr = c
            continue
        key = tuple(c[:2]) if "writes" in hdr else (c[0],)
        rows[key] = (c[hdr.index("WAF femu-sim")],
                     c[hdr.index("GC pages moved (sim / guest)")].split("/")[0].strip())
    return rows
new, docs, bad = sys.argv[1], sys.argv[2], 0
for f in sorted(glob.glob(os.path.join(new, "*.md"))):
    d = os.path.join(docs, os.path.basename(f))
    name = os.path.basename(f)[:-3]
    if not os.path.exists(d):
        print("regen: %s: no committed table %s" % (name, d), file=sys.stderr)
        continue
    a, b = sim_cols(f), sim_cols(d)
    if a == b:
        print("regen: %s: femu-sim columns match %s (%d rows)" % (name, d, len(a)), file=sys.stderr)
        continue
    bad = 1
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print("regen: %s: %s: femu-sim now %s, %s has %s" % (name, " ".join(k), a.get(k), d, b.get(k)), file=sys.stderr)
sys.exit(3 if bad else 0)
PY
    rc=$?
    echo "$ME: fragments in $OUT (docs/ not changed)" >&2
    exit $rc
fi

# Splice the fragments into the tutorials.
if [ "$SPLICE" = 1 ]; then
    python3 - "$OUT" "$SCALE" "$ROOT"/docs/tutorials/*.md <<'PY'
import os, re, sys
out, scale, docs = sys.argv[1], sys.argv[2], sys.argv[3:]
for doc in docs:
    text = open(doc).read()
    def repl(m):
        name = m.group(2)
        frag = os.path.join(out, name + ".md")
        if m.group(1) != scale or not os.path.exists(frag):
            return m.group(0)
        return "%s\n%s%s" % (m.group(0).split("\n")[0], open(frag).read(), m.group(3))
    new = re.sub(r"<!-- BEGIN ([a-z]+)/([0-9a-z-]+) -->\n.*?(<!-- END \1/\2 -->)", repl, text, flags=re.S)
    if new != text:
        open(doc, "w").write(new)
        print("regen: updated %s" % doc, file=sys.stderr)
PY
fi
