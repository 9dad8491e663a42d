#!/bin/bash
# run-blackbox.sh: boot your own Linux OS image with a 12 GiB FEMU
# BlackBox SSD (-device femu,femu_mode=1) and SSH forwarded to the host.
#
#   OSIMGF=~/images/debian.qcow2 scripts/run-blackbox.sh [--dry-run|--check] [QEMU ARGS...]
#   scripts/run-guest-ssh.sh            # in another terminal: log in
#
# Environment:
#   OSIMGF       the guest's OS disk image (required; qcow2 or raw), attached
#                as a virtio disk, so the FEMU SSD is the guest's only NVMe
#                device (/dev/nvme0n1)
#   OSIMGFMT     its format (default: qcow2 for *.qcow2, else raw)
#   SSH_PORT     host port forwarded to the guest's port 22 (default 8080)
#   QEMU         QEMU binary (default: build-femu/qemu-system-x86_64 of
#                this checkout)
#   MEM=4G SMP=4 guest memory and CPUs; the SSD's data is not in guest
#                memory but in QEMU's (host) memory, only for what was
#                written: up to 12 GiB more when the whole SSD is written
#   ACCEL        auto (default): KVM when /dev/kvm is usable and, where the
#                embedded test guest is built, a short probe boot of it
#                under KVM succeeds (cached until the host reboots); else
#                TCG.  Or kvm, tcg.
#   FEMU_OPTS    extra femu properties appended to the device, e.g.
#                FEMU_OPTS=gc_policy=cost-benefit,hot_cold_sep=on
#                (a later value of a property overrides the one above)
#   FEMU_SUBSYS  femu-subsys properties, e.g. FEMU_SUBSYS=fdp=on,fdp.nruh=2
#                for Flexible Data Placement (tutorial 04): adds
#                -device femu-subsys,id=fdp0,FEMU_SUBSYS before the SSD
#                and subsys=fdp0 to it (the subsystem must come first on
#                QEMU's command line, so it cannot be given among the
#                extra QEMU arguments below)
#
# The SSD: 8 channels x 8 LUNs x 1 plane x 256 blocks x 256 pages of 4 KiB
# = 16 GiB of NAND, 256 lines of 64 MiB; namespace devsz_mb=12288 (12 GiB,
# 25% of the NAND spare); NAND times 40/200/2000 us; GC at 75% (forced at
# 95%), greedy.  See docs/quick-start.md and docs/properties.md.
#
# Options (before any QEMU argument):
#   --dry-run    print the QEMU command line and exit
#   --check      start QEMU paused (-S) with the same devices and quit at
#                once: validates the device options (and the image), boots
#                nothing; exit status 0 when QEMU accepted everything
#   --print-accel  print the accelerator ACCEL picks here (kvm or tcg; auto
#                probes as above) and exit; needs no OSIMGF.  For a QEMU
#                command line of your own: -accel $(... --print-accel)
# Everything else goes to QEMU unchanged (e.g. -device ..., -trace ...).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ME=run-blackbox
die() { echo "$ME: $*" >&2; exit 1; }

MODE=run
case ${1:-} in
--dry-run) MODE=dry; shift ;;
--check) MODE=check; shift ;;
--print-accel) MODE=accel; shift ;;
-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac

QEMU=${QEMU:-$REPO/build-femu/qemu-system-x86_64}
SSH_PORT=${SSH_PORT:-8080}
MEM=${MEM:-4G} SMP=${SMP:-4} ACCEL=${ACCEL:-auto} FEMU_OPTS=${FEMU_OPTS:-}
FEMU_SUBSYS=${FEMU_SUBSYS:-}
if [ "$MODE" != accel ]; then
    [ -n "${OSIMGF:-}" ] || die "set OSIMGF to your guest OS image (docs/before-you-start.md)"
    [ -f "$OSIMGF" ] || die "OSIMGF=$OSIMGF: no such file"
    case $OSIMGF in *.qcow2) fmt=qcow2 ;; *) fmt=raw ;; esac
    OSIMGFMT=${OSIMGFMT:-$fmt}
fi
[ "$MODE" = dry ] || [ -x "$QEMU" ] || die "$QEMU not built (run make, see README.md)"
case $SSH_PORT in ''|*[!0-9]*) die "SSH_PORT=$SSH_PORT: not a port number" ;; esac

# KVM only where a guest really runs under it: on some hosts (the
# project's CI machines) /dev/kvm exists but KVM guests hang.
kvm_usable() {
    [ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
    local cache=${FEMU_CACHE_DIR:-$HOME/.cache/femu} boot f
    [ -e "$cache/guest/current/vmlinuz" ] || return 0   # no probe guest: trust /dev/kvm
    boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
    f=$cache/blackbox-kvm.$boot
    if [ ! -f "$f" ]; then
        # one short boot of the embedded guest under KVM, remembered until
        # the host reboots
        echo "$ME: probing KVM (at most ${FEMU_KVM_PROBE_TIMEOUT:-20} s, once per host boot)" >&2
        local rc=0
        "$REPO/scripts/femu-run" --qemu "$QEMU" --accel kvm \
            --timeout "${FEMU_KVM_PROBE_TIMEOUT:-20}" -c 'exit 42' >/dev/null 2>&1 || rc=$?
        mkdir -p "$cache"
        if [ $rc = 42 ]; then echo ok >"$f"; else echo fail >"$f"; fi
    fi
    [ "$(cat "$f")" = ok ]
}
if [ "$ACCEL" = auto ]; then
    if [[ $MODE = @(run|accel) ]] && kvm_usable; then ACCEL=kvm; else ACCEL=tcg; fi
fi
case $ACCEL in kvm) CPU=host ;; tcg) CPU=max ;; *) die "ACCEL=$ACCEL: use auto, kvm or tcg" ;; esac
[ "$MODE" = accel ] && { echo "$ACCEL"; exit 0; }

SSD=femu_mode=1,devsz_mb=12288
SSD+=,nchs=8,luns_per_ch=8,pls_per_lun=1,blks_per_pl=256,pgs_per_blk=256
SSD+=,secsz=512,secs_per_pg=8
SSD+=,pg_rd_lat=40000,pg_wr_lat=200000,blk_er_lat=2000000,ch_xfer_lat=0
SSD+=,gc_thres_pcent=75,gc_thres_pcent_high=95,gc_policy=greedy
SUBSYS=()
if [ -n "$FEMU_SUBSYS" ]; then
    # QEMU creates devices in command-line order and a femu controller
    # looks its subsystem up when it is realized
    SUBSYS=(-device "femu-subsys,id=fdp0,$FEMU_SUBSYS")
    SSD+=,subsys=fdp0
fi
[ -n "$FEMU_OPTS" ] && SSD+=,$FEMU_OPTS

CMD=("$QEMU" -name femu,debug-threads=on
     -machine q35 -accel "$ACCEL" -cpu "$CPU" -smp "$SMP" -m "$MEM"
     -drive file="$OSIMGF",if=virtio,format="$OSIMGFMT"
     "${SUBSYS[@]}" -device femu,"$SSD"
     -netdev user,id=net0,hostfwd=tcp:127.0.0.1:"$SSH_PORT"-:22
     -device virtio-net-pci,netdev=net0)

case $MODE in
dry)
    for a in "${CMD[@]}" -nographic "$@"; do
        if [[ $a =~ ^[A-Za-z0-9_./,=:+@%-]+$ ]]; then printf '%s ' "$a"; else printf '%q ' "$a"; fi
    done
    echo
    ;;
check)
    # -S: devices are realized (and their options checked) but no CPU runs
    out=$(echo quit | "${CMD[@]}" -S -display none -monitor stdio \
          -serial none "$@" 2>&1) && rc=0 || rc=$?
    if [ $rc -ne 0 ]; then
        echo "$out" | grep -v '^(qemu)\|^QEMU .* monitor' >&2
        die "QEMU refused the configuration (exit $rc)"
    fi
    echo "$ME: QEMU accepted the configuration ($ACCEL): ${SUBSYS[*]:+${SUBSYS[1]} }femu,$SSD"
    ;;
run)
    echo "$ME: booting $OSIMGF with -device ${SUBSYS[*]:+${SUBSYS[1]} -device }femu,$SSD ($ACCEL);" \
         "ssh: scripts/run-guest-ssh.sh (port $SSH_PORT). Quit: Ctrl-a x" >&2
    exec "${CMD[@]}" -nographic "$@"
    ;;
esac
