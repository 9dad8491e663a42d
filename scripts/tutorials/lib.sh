# lib.sh: what the tutorial scripts that are not published as single
# files (first-ssd.sh, lat-run.sh, zns-run.sh, btrfs-waf.sh) share;
# waf-run.sh and fdp-run.sh run alone and carry their own helpers.  It runs
# inside the guest, next to them: copy the whole scripts/tutorials/
# directory into the guest (scripts/femu-run --file
# scripts/tutorials:tutorials, or --file .../lib.sh next to the script;
# scripts/run-guest-ssh.sh --copy scripts/tutorials).  Each script finds it
# beside itself or in the current directory.
#
# ME, the name in messages, is the calling script's name without .sh,
# unless the caller sets it before sourcing lib.sh.
# Functions:
#   tut_args "$@"        NAME=VALUE arguments -> exported variables;
#                        -h/--help prints the calling script's header (its
#                        comment lines from line 2 to the first other line)
#   tut_defaults NAME=VALUE...  VALUE for each NAME that is unset or empty
#                        (after tut_args: an argument, then the
#                        environment, then the default)
#   tut_find_dev         DEV unset: the first FEMU BlackBox controller's
#                        namespace 1; then tut_dev
#   tut_dev              DEV must be a block device; sets NAME (nvme0n1),
#                        CTRL (/dev/nvme0), NG (/dev/ng0n1), NS_BYTES
#   tut_mount_guard      refuses a mounted DEV unless FORCE=1
#   size ARG             bytes of ARG: plain bytes, k/m/g/t (also kb/kib,
#                        mb/mib, ...: powers of 1024, like fio), or "Nx" =
#                        N times the namespace (NS_BYTES), e.g. 2x, 0.5x
#   c0 [N]               log page C0h of CTRL: "waf_x1000 host_written
#                        gc_moved programmed", or with N the first N u64
#                        counters (5: also zone_resets blocks_erased)
#   ctl CODE             admin opcode 0xEF (run-time control) with CDW10=CODE
#   die MSG              "ME: MSG" on stderr, exit 1

ME=${ME:-$(basename "$0" .sh)}
die() { echo "$ME: $*" >&2; exit 1; }

tut_defaults() {
    local a n
    for a in "$@"; do
        n=${a%%=*}
        [ -n "${!n:-}" ] || printf -v "$n" '%s' "${a#*=}"
    done
}

tut_args() {
    local a
    for a in "$@"; do
        case $a in
        *=*) export "${a%%=*}=${a#*=}" ;;
        -h|--help) sed -n '2,/^\([^#]\|$\)/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$a' (use NAME=VALUE)" ;;
        esac
    done
}

tut_find_dev() {
    local c
    if [ -z "${DEV:-}" ]; then
        for c in /sys/class/nvme/nvme*; do
            [ -e "$c/model" ] || continue
            case $(cat "$c/model") in
            "FEMU BlackBox-SSD Controller"*) DEV=/dev/$(basename "$c")n1; break ;;
            esac
        done
        [ -n "${DEV:-}" ] || die "no FEMU BlackBox-SSD controller found (set DEV=)"
    fi
    tut_dev
}

tut_dev() {
    [ -b "$DEV" ] || die "$DEV is not a block device"
    NAME=$(basename "$DEV")
    CTRL=/dev/${NAME%n[0-9]*}
    # the namespace's character device (/dev/nvme0n1 -> /dev/ng0n1)
    NG=/dev/ng${NAME#nvme}
    NS_BYTES=$(( $(cat "/sys/block/$NAME/size") * 512 ))
}

tut_mount_guard() {
    if [ "${FORCE:-0}" != 1 ] && grep -q "^$DEV[ p]" /proc/mounts; then
        die "$DEV is mounted; this run overwrites it (FORCE=1 to go on)"
    fi
}

size() {
    local v=${1,,} n
    case $v in
    *x) [[ ${v%x} =~ ^[0-9]*\.?[0-9]+$ ]] || die "size '$1': want N times the namespace, e.g. 2x"
        [ -n "${NS_BYTES:-}" ] || die "size $1: namespace size unknown"
        awk -v f="${v%x}" -v n="$NS_BYTES" 'BEGIN { printf "%d\n", f * n }'; return ;;
    esac
    v=${v%ib}; v=${v%b}
    [[ $v =~ ^[0-9]+[kmgt]?$ ]] || die "size '$1': want bytes, a k/m/g/t suffix, or Nx"
    case $v in
    *k) n=${v%k}; echo $(( n << 10 )) ;;
    *m) n=${v%m}; echo $(( n << 20 )) ;;
    *g) n=${v%g}; echo $(( n << 30 )) ;;
    *t) n=${v%t}; echo $(( n << 40 )) ;;
    *) n=$v; echo $(( n )) ;;
    esac
}

# C0h (docs/log-pages.md): u32 WAF x1000 at byte 0, u64 host
# pages written at 8, GC pages moved at 16, host pages programmed at 24,
# zone resets at 32, blocks erased at 40 (femu_mode=3), little-endian
c0() {
    local f n=${1:-3}
    f=$(mktemp) || return 1
    if ! nvme get-log "$CTRL" --log-id=0xc0 --log-len=512 --raw-binary >"$f" 2>/dev/null ||
       [ "$(wc -c <"$f")" -lt $(( 8 + 8 * n )) ]; then
        rm -f "$f"
        return 1
    fi
    # -v: od would print two equal lines as "*"
    echo $(od -An -tu4 -N4 "$f") $(od -An -v -tu8 -j8 -N$(( 8 * n )) "$f")
    rm -f "$f"
}

ctl() { # 0xEF run-time control code, sent without a data buffer
    local out
    out=$(nvme admin-passthru "$CTRL" --opcode=0xef --cdw10="$1" 2>&1) ||
        die "0xEF code $1 failed on $CTRL: $out"
}
