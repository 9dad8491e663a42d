#!/bin/bash
# --qemu-src=DIR configures a separate build dir from any QEMU 10.0 tree (here
# the cached pristine one) without writing to it: the grafted tree records
# DIR, femu and QEMU's nvme are in the device config, and the femu sources
# are part of the build (a ninja dry run, then one femu object compiled; no
# second full QEMU build).
. "$(dirname "$0")/lib.sh"

src=$(pristine_src) || { echo "main build not configured; run ./configure first"; exit 1; }
b=$T/qsrc-build
rm -rf "$b" "$T/.qsrc-build-qemu-src"
touch "$T/stamp"; sleep 1
"$FEMU_ROOT/configure" --qemu-src="$src" --build-dir="$b" --no-install-deps > "$T/out" 2>&1 ||
    { cat "$T/out"; fail "configure --qemu-src failed"; finish; }
ok "configure --qemu-src=$src"
[ "$(cat "$T/.qsrc-build-qemu-src/.femu-pristine")" = "$src" ] && ok "grafted from $src" || fail "grafted from $(cat "$T/.qsrc-build-qemu-src/.femu-pristine")"
for c in CONFIG_FEMU CONFIG_NVME_PCI CONFIG_Q35 CONFIG_I440FX CONFIG_VIRTIO_NET CONFIG_VIRTIO_BLK CONFIG_VIRTIO_SCSI CONFIG_SERIAL_ISA; do
    grep -q "^$c=y" "$b/x86_64-softmmu-config-devices.mak" && ok "$c=y" || fail "$c missing from the device config"
done
grep -q "^CONFIG_E1000_PCI=y" "$b/x86_64-softmmu-config-devices.mak" && fail "default devices were built in (e1000)" || ok "no default devices (no e1000)"
ninja -C "$b" -n qemu-system-x86_64 > "$T/dry" 2>&1 || { tail "$T/dry"; fail "ninja dry run failed"; }
nf=$(grep -c 'hw_femu_.*\.c\.o' "$T/dry")
[ "$nf" -gt 0 ] && ok "dry run compiles $nf hw/femu objects" || fail "no hw/femu objects in the build"
obj=$(ninja -C "$b" -t targets all | grep -o '^[^:]*hw_femu_[^:]*\.c\.o' | head -n 1)
if [ -n "$obj" ]; then
    t0=$(date +%s)
    ninja -C "$b" "$obj" > "$T/obj" 2>&1 && ok "compiled $obj ($(( $(date +%s) - t0 ))s)" || { tail -n 30 "$T/obj"; fail "compiling $obj failed"; }
else
    fail "no hw/femu object target"
fi
[ -z "$(find "$src" -newer "$T/stamp" -print -quit)" ] && ok "$src not written" || fail "$src modified"
rm -rf "$b" "$T/.qsrc-build-qemu-src"
finish
