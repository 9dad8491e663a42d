#!/bin/bash
# Measure how long the embedded guest takes from QEMU's start to the job
# (femu-run's "boot=" figure) for several initramfs compressions and
# firmware choices, interleaved (A B C ... A B C ...) so that load from other
# processes hits every variant alike; prints medians.
#
# Usage: scripts/guest/boot-bench.sh [ROUNDS] [VARIANT...]
#   ROUNDS   runs per variant (default 5)
#   VARIANT  none gzip zstd (initramfs compression), optionally with
#            +seabios (SeaBIOS instead of the runner's default qboot),
#            +qemu64 (-cpu qemu64 instead of max), +notests
#            (cryptomgr.notests=1), e.g. gzip+seabios;
#            default: none gzip zstd none+seabios
# Environment: FEMU_QEMU (QEMU binary), FEMU_CACHE_DIR, BENCH_ARGS (extra
# femu-run/QEMU arguments for every run, e.g. "--append cryptomgr.notests=1").
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ROUNDS=${1:-5}
shift || true
VARIANTS=("$@")
[ ${#VARIANTS[@]} -gt 0 ] || VARIANTS=(none gzip zstd none+seabios)
read -r -a EXTRA_ARGS <<<"${BENCH_ARGS:-}"
G=${FEMU_CACHE_DIR:-$HOME/.cache/femu}/guest/current
"$REPO/scripts/guest/build-guest.sh" --quiet >/dev/null
[ "$(sed -n 's/^compress: //p' "$G/manifest.txt")" = none ] ||
    { echo "boot-bench: needs a guest built with FEMU_GUEST_COMPRESS=none" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cpio=$G/initrd.img
for v in "${VARIANTS[@]}"; do
    c=${v%%+*}
    case $c in
    none) ln -sf "$cpio" "$TMP/$c.img" ;;
    gzip) [ -f "$TMP/$c.img" ] || gzip -6 -n <"$cpio" >"$TMP/$c.img" ;;
    zstd) [ -f "$TMP/$c.img" ] || zstd -q -9 -T0 <"$cpio" >"$TMP/$c.img" ;;
    *) echo "boot-bench: unknown variant $v" >&2; exit 2 ;;
    esac
done
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# QEMU: ${FEMU_QEMU:-$REPO/build-femu/qemu-system-x86_64}"
echo "# command: scripts/guest/boot-bench.sh $ROUNDS ${VARIANTS[*]}"
for r in $(seq "$ROUNDS"); do
    for v in "${VARIANTS[@]}"; do
        c=${v%%+*} extra=()
        [[ $v == *+seabios* ]] && extra+=(--bios seabios)
        [[ $v == *+qemu64* ]] && extra+=(-cpu qemu64)
        [[ $v == *+notests* ]] && extra+=(--append cryptomgr.notests=1)
        # CPU seconds of the runner and QEMU: less sensitive to other load
        # than the wall-clock figures
        TIMEFORMAT=%U+%S
        cpu=$( { time FEMU_GUEST_INITRD=$TMP/$c.img "$REPO/scripts/femu-run" --accel tcg "${extra[@]}" \
            "${EXTRA_ARGS[@]}" -c 'read -r u _ </proc/uptime; echo "$u"' >"$TMP/out" 2>"$TMP/err"; } 2>&1 ) || true
        cpu=$(awk "BEGIN { print $cpu }")
        b=$(sed -n 's/.*status job=0 .* boot=\([0-9.]*\)s total=\([0-9.]*\)s.*/\1 \2/p' "$TMP/err")
        [ -n "$b" ] || { echo "boot-bench: run failed:" >&2; cat "$TMP/err" >&2; exit 1; }
        echo "$v $b $(cat "$TMP/out") $cpu" >>"$TMP/results"
    done
done
printf '%-12s %10s %10s %10s %12s %8s\n' variant initrd_MB boot_s total_s guest_uptime cpu_s
for v in "${VARIANTS[@]}"; do
    c=${v%%+*}
    size=$(stat -L -c %s "$TMP/$c.img")
    awk -v v="$v" -v s="$size" '
        $1 == v { b[n] = $2; t[n] = $3; u[n] = $4; c[n] = $5; n++ }
        function med(a, n,   i, j, x) { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
                                      return n % 2 ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2 }
        END { printf "%-12s %10.1f %10.2f %10.2f %12.2f %8.2f\n", v, s / 1048576, med(b, n), med(t, n), med(u, n), med(c, n) }' "$TMP/results"
done
echo "# medians of $ROUNDS runs each; boot = QEMU start to job start (host clock),"
echo "# guest_uptime = the guest kernel's uptime when the job started,
# cpu = user+system CPU seconds of the whole run (QEMU and the runner)"
