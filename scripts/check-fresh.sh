#!/bin/bash
# Prove README's two commands on a clean root: build a minimal Debian 12 root
# with mmdebstrap (from the Debian archive this machine's apt uses), clone
# this repository into it, and run, as root inside it, exactly what README
# tells a new user to run: `make demo`, then `make check`.  Nothing from this
# machine is visible inside but the clone, the machine's apt sources and
# settings (a fresh machine here has the same), and, read-only and only to
# save time, the host's ccache and the downloaded QEMU source
# (~/.cache/femu/qemu-src).
#
# Usage: scripts/check-fresh.sh [--through=configure|demo|check] [--keep]
#                               [--root=DIR] [--no-shared-cache]
#   --through=configure  stop after ./configure and the standalone FTL build
#                        (`make sim`): catches a missing build dependency in
#                        a few minutes (CI runs this)
#   --through=demo       stop after `make demo`
#   --through=check      `make demo`, then `make check` (default; `make
#                        check-fresh`)
#   --keep               leave the root (and its logs) behind
#   --root=DIR           where to build the root (default: a new directory
#                        under /var/tmp; must not exist)
#   --no-shared-cache    share nothing: build QEMU with an empty ccache and
#                        download QEMU's source inside the root
# Prints each step's time and ends with "fresh: PASS" or "fresh: FAIL ...";
# exits 0 only when every step passed.  Needs root (chroot, mounts);
# installs mmdebstrap with apt-get when it is missing.
set -uo pipefail

ME=check-fresh
die() { echo "$ME: error: $*" >&2; exit 1; }
note() { echo "$ME: $*"; }

src=$(cd "$(dirname "$0")/.." && pwd -P)
through=check keep=no rootdir= shared=yes
for a in "$@"; do
    case $a in
    --through=configure|--through=demo|--through=check) through=${a#*=} ;;
    --through=*) die "--through must be configure, demo or check (got '${a#*=}')" ;;
    --keep) keep=yes ;;
    --root=*) rootdir=${a#*=} ;;
    --no-shared-cache) shared=no ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$a' (see --help)" ;;
    esac
done

[ "$(id -u)" = 0 ] || die "needs root (it builds a Debian root and chroots into it)"
command -v git >/dev/null 2>&1 || die "git not found; install it with: apt-get install git"
if ! command -v mmdebstrap >/dev/null 2>&1; then
    note "installing mmdebstrap (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends mmdebstrap \
        > /tmp/femu-fresh-apt.log 2>&1 ||
        die "apt-get install mmdebstrap failed (log: /tmp/femu-fresh-apt.log)"
fi

# The machine's own apt sources (deb822 or one-line), minus what FEMU's
# configure added (bookworm-backports): the root starts as a new machine.
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
    [ -s "$f" ] || continue
    case ${f##*/} in femu-*) continue ;; esac
    grep -qE '^[[:space:]]*(deb|Types:)' "$f" || continue
    sources+=("$f")
done
[ ${#sources[@]} -gt 0 ] || die "no apt sources found in /etc/apt/sources.list{,.d}"
# apt settings of the machine that fetching needs (e.g. Check-Valid-Until for
# a snapshot mirror) come along as they are.
aptopts=()
for f in /etc/apt/apt.conf.d/*; do
    [ -f "$f" ] && grep -q '^[[:space:]]*Acquire::' "$f" && aptopts+=(--aptopt="$f")
done

if [ -z "$rootdir" ]; then
    rootdir=$(mktemp -d /var/tmp/femu-fresh.XXXXXX) || die "mktemp failed"
    rmdir "$rootdir"
fi
[ ! -e "$rootdir" ] || die "--root=$rootdir already exists"
logdir=$rootdir.logs
mkdir -p "$logdir"

mounts=()
cleanup() {
    local m i
    for (( i=${#mounts[@]}-1; i>=0; i-- )); do
        m=${mounts[i]}
        umount -R "$m" 2>/dev/null || umount -R -l "$m" 2>/dev/null
    done
    if [ "$keep" = no ]; then
        rm -rf "$rootdir"
        # A failure's logs stay for reading; a pass leaves nothing.
        [ "$status" = PASS ] && rm -rf "$logdir"
    else
        note "root kept: $rootdir (logs: $logdir)"
    fi
}
status=FAIL
trap cleanup EXIT

times=()
step() { # step NAME LOG COMMAND...: run, time, report
    local name=$1 log=$2 t0 rc
    shift 2
    t0=$(date +%s)
    note "[$name] started $(date -u +%H:%M:%SZ) (log: $log)"
    "$@" > "$log" 2>&1
    rc=$?
    local s=$(( $(date +%s) - t0 ))
    times+=("$(printf '%-10s %3dm%02ds  rc=%d' "$name" $((s / 60)) $((s % 60)) "$rc")")
    note "[$name] rc=$rc after $((s / 60)) min $((s % 60)) s"
    if [ $rc -ne 0 ]; then
        tail -n 25 "$log" | sed "s/^/  $name| /"
    fi
    return $rc
}

summary() {
    note "times:"
    printf '  %s\n' "${times[@]}"
}

# 1. A minimal Debian 12 root: minbase plus what a user needs to get the
#    repository (git) and to type make.
step mmdebstrap "$logdir/mmdebstrap.log" \
    mmdebstrap --mode=root --variant=minbase --include=git,make,ca-certificates \
    "${aptopts[@]}" bookworm "$rootdir" "${sources[@]}" ||
    { summary; echo "fresh: FAIL (mmdebstrap)"; exit 1; }

# 2. Mounts a running Debian machine has; resolv.conf for apt inside.
bindmount() { mount "$@" && mounts+=("${@: -1}"); }
bindmount -t proc proc "$rootdir/proc"
bindmount --rbind /sys "$rootdir/sys"
bindmount --rbind /dev "$rootdir/dev"
bindmount -t tmpfs tmpfs "$rootdir/tmp"
cp -L /etc/resolv.conf "$rootdir/etc/resolv.conf" 2>/dev/null || true

# What a root login on a new machine has (GNU parallel's remote side, for
# one, runs its jobs through $SHELL).
env_in=(HOME=/root USER=root LOGNAME=root SHELL=/bin/bash
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
        LANG=C.UTF-8 TERM=dumb)
cache_in=/root/.cache
mkdir -p "$rootdir$cache_in/femu"
if [ "$shared" = yes ]; then
    # Read-only: a hit saves compiling, a miss compiles (nothing is added).
    ccache_dir=${CCACHE_DIR:-}
    if [ -z "$ccache_dir" ]; then
        for d in "$HOME/.cache/ccache" "$HOME/.ccache"; do
            [ -d "$d" ] && { ccache_dir=$d; break; }
        done
    fi
    if [ -n "$ccache_dir" ] && [ -d "$ccache_dir" ]; then
        mkdir -p "$rootdir/var/cache/host-ccache"
        bindmount --bind -o ro "$ccache_dir" "$rootdir/var/cache/host-ccache" &&
            mount -o remount,bind,ro "$rootdir/var/cache/host-ccache"
        env_in+=(CCACHE_DIR=/var/cache/host-ccache CCACHE_READONLY=1
                 CCACHE_TEMPDIR=/tmp/ccache-tmp CCACHE_NOSTATS=1)
    fi
    host_src=${FEMU_CACHE_DIR:-$HOME/.cache/femu}/qemu-src
    if ls -d "$host_src"/qemu-10.0.*/ > /dev/null 2>&1; then
        mkdir -p "$rootdir$cache_in/femu/qemu-src"
        bindmount --bind -o ro "$host_src" "$rootdir$cache_in/femu/qemu-src" &&
            mount -o remount,bind,ro "$rootdir$cache_in/femu/qemu-src"
    fi
fi

# 3. A clean clone of what is committed here, at the same path as this
#    checkout (so the shared ccache's entries match).
clone=$src
step clone "$logdir/clone.log" git clone -q "$src" "$rootdir$clone" ||
    { summary; echo "fresh: FAIL (clone)"; exit 1; }
note "clone: $(git -C "$rootdir$clone" log -1 --format='%h %s' | cut -c1-72)"

inroot() { chroot "$rootdir" /usr/bin/env -i "${env_in[@]}" /bin/bash -c "cd '$clone' && $1" < /dev/null; }

# 4. README's commands, exactly as written.
if [ "$through" = configure ]; then
    step configure "$logdir/configure.log" inroot './configure' &&
    step make-sim "$logdir/make-sim.log" inroot 'make sim'
    rc=$?
else
    step make-demo "$logdir/make-demo.log" inroot 'make demo'
    rc=$?
    if [ $rc -eq 0 ]; then
        # The demo prints log page C0h before and after its writes.
        grep -E 'C0h|waf' "$logdir/make-demo.log" | tail -n 6 | sed 's/^/  demo| /'
        grep -qE 'C0h' "$logdir/make-demo.log" || { note "make demo printed no C0h lines"; rc=1; }
    fi
    if [ $rc -eq 0 ] && [ "$through" = check ]; then
        step make-check "$logdir/make-check.log" inroot 'make check'
        rc=$?
        grep -E '^[0-9]+ passed, [0-9]+ failed' "$logdir/make-check.log" | tail -n 1 | sed 's/^/  check| /'
        grep -E '^FAIL ' "$logdir/make-check.log" | sed 's/^/  check| /'
    fi
fi
summary
if [ $rc -eq 0 ]; then
    status=PASS
    echo "fresh: PASS"
    exit 0
fi
echo "fresh: FAIL (logs: $logdir)"
exit 1
