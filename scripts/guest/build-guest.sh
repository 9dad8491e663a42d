#!/bin/bash
# Build FEMU's embedded test guest: a Linux kernel plus an initramfs with
# busybox, bash, fio, nvme-cli, python3, blkzone, GNU grep and timeout, and
# btrfs (module and mkfs.btrfs), assembled from the binary packages of
# Debian's current stable release (trixie by default).
#
# Nothing here needs root: packages are fetched with a private apt
# configuration (apt-get download, never installed), unpacked with
# `dpkg-deb -x` into a staging directory, and only the files the guest needs
# (plus their shared libraries, resolved from the ELF headers) are copied into
# the initramfs, which is written as a cpio "newc" archive.
#
# The result is cached under ${FEMU_CACHE_DIR:-$HOME/.cache/femu}/guest/<hash>,
# where <hash> covers the files of scripts/guest/ and the exact versions of
# every package used, so it is rebuilt only when one of those changes.
# "$CACHE/guest/current" points at the latest build (scripts/femu-run reads it).
#
# Usage: scripts/guest/build-guest.sh [--force] [--update] [--quiet]
#   --force    rebuild even if a build with the same inputs exists
#   --update   refresh the package lists first (they are refreshed anyway
#              when missing, or when a cached version vanished from the mirror)
#   --quiet    only print the result lines
# Environment:
#   FEMU_CACHE_DIR           cache root (default $HOME/.cache/femu)
#   FEMU_GUEST_SUITE         Debian suite to take packages from (default trixie)
#   FEMU_GUEST_COMPRESS      initramfs compression: none|gzip|zstd (default none:
#                            fastest to boot under TCG; not lz4: the kernel's
#                            legacy-lz4 reader swallows the job archive that
#                            scripts/femu-run appends)
#   FEMU_GUEST_EXTRA_PACKAGES  extra Debian packages whose programs (usr/bin,
#                            usr/sbin) are added to the guest, e.g. "jq util-linux"
#   FEMU_DEBIAN_MIRROR       mirror URL (default: taken from this machine's apt
#                            configuration)
# Prints on stdout:
#   kernel=PATH
#   initrd=PATH
#   firmware=PATH        (directory for QEMU's -L: SeaBIOS, qboot, linuxboot ROMs)
set -euo pipefail
shopt -s nullglob
trap 'echo "build-guest: error: command failed at line $LINENO: $BASH_COMMAND" >&2' ERR

GUEST_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${FEMU_CACHE_DIR:-$HOME/.cache/femu}
SUITE=${FEMU_GUEST_SUITE:-trixie}
COMPRESS=${FEMU_GUEST_COMPRESS:-none}
EXTRA_PACKAGES=${FEMU_GUEST_EXTRA_PACKAGES:-}
ARCH=amd64
MULTIARCH=x86_64-linux-gnu

FORCE=0 UPDATE=0 QUIET=0
for a in "$@"; do
    case $a in
    --force) FORCE=1 ;;
    --update) UPDATE=1 ;;
    --quiet) QUIET=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-guest: unknown option '$a' (see --help)" >&2; exit 2 ;;
    esac
done

log() { [ "$QUIET" = 1 ] || echo "build-guest: [${SECONDS}s] $*" >&2; }
die() { echo "build-guest: error: $*" >&2; exit 1; }

case $COMPRESS in none|gzip|zstd) ;; *) die "FEMU_GUEST_COMPRESS must be none, gzip or zstd (got '$COMPRESS')" ;; esac

# Userland packages. Their dependency closure is downloaded and unpacked, but
# only the programs below and the libraries they load end up in the guest.
PACKAGES=(busybox-static bash fio nvme-cli python3.13-minimal libpython3.13-stdlib
          libc-bin util-linux grep coreutils btrfs-progs f2fs-tools zonefs-tools
          e2fsprogs sg3-utils)
# Firmware for QEMU (-L), so the runner does not depend on what the QEMU
# build or the host happens to ship: SeaBIOS and the linuxboot option ROM.
FW_PACKAGES=(seabios qemu-system-data)
# Kernel modules the guest loads (plus what they depend on). NVMe is the point;
# virtio net/blk let a user add a network or a disk without rebuilding.
# btrfs (with crc32c, its default checksum, which it loads by name) is the
# zoned file system for femu_mode=3 (tests/guest/femu-zbd-btrfs.t).
# f2fs over a conventional + a zoned namespace, zonefs on a zoned one and
# ext4 (tests/guest/femu-zoned-fs.t, the state-file restart test).
MODULES=(nvme virtio_net virtio_blk qemu_fw_cfg btrfs crc32c_generic f2fs crc32_generic zonefs ext4)
# Python stdlib parts that no test script needs (saves half of the stdlib).
PY_EXCLUDE=(test idlelib tkinter turtledemo ensurepip lib2to3 pydoc_data
            config-3.13-$MULTIARCH __phello__ unittest/test)

# Host tools. As root with apt, missing ones are installed from this machine's
# own Debian archive (like ./configure does); otherwise a one-line error.
MISSING=()
need() { command -v "$1" >/dev/null 2>&1 || MISSING+=("$2"); }
need apt-get apt; need dpkg-deb dpkg; need readelf binutils; need cpio cpio
need xz xz-utils; need depmod kmod; need modinfo kmod; need sha256sum coreutils
need flock util-linux; need realpath coreutils
[ "$COMPRESS" = gzip ] && need gzip gzip
[ "$COMPRESS" = zstd ] && need zstd zstd
if [ ${#MISSING[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        log "installing host tools: ${MISSING[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${MISSING[@]}" \
            >/tmp/femu-guest-apt.log 2>&1 ||
            die "apt-get install ${MISSING[*]} failed (see /tmp/femu-guest-apt.log)"
    else
        die "missing host tools: install Debian packages ${MISSING[*]} (apt-get install ${MISSING[*]})"
    fi
fi

mkdir -p "$CACHE/guest"
# One builder at a time per cache (tests may start runners in parallel).
exec 9>"$CACHE/guest/.lock"
flock 9

# ---------------------------------------------------------------- apt setup
# The mirror comes from this machine's own apt configuration (femu_mirror,
# shared with configure); the repository never names a host.
# shellcheck source=../graft/lib.sh
. "$(dirname "$0")/../graft/lib.sh"

APTD=$CACHE/guest/apt-$SUITE
mkdir -p "$APTD/lists/partial" "$APTD/cache/archives/partial"
: >"$APTD/status"   # empty dpkg status: resolve as for an empty system
MIRROR=$(femu_mirror)
echo "deb [arch=$ARCH signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $SUITE main" >"$APTD/sources.list"
APT_OPTS=(-o Dir::Etc::SourceList="$APTD/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o Dir::State::Lists="$APTD/lists" -o Dir::Cache="$APTD/cache"
          -o Dir::State::status="$APTD/status" -o Dir::Etc::Preferences=/dev/null
          -o Dir::Etc::PreferencesParts=/dev/null -o APT::Architecture=$ARCH
          -o APT::Architectures::=$ARCH -o Debug::NoLocking=1
          -o APT::Install-Recommends=0 -o APT::Get::List-Cleanup=0
          -o Acquire::Languages=none)
apt_update() {
    log "refreshing $SUITE package lists from $MIRROR"
    apt-get "${APT_OPTS[@]}" -q update >"$APTD/update.log" 2>&1 ||
        die "apt-get update for $SUITE failed (see $APTD/update.log)"
}
if [ "$UPDATE" = 1 ] || ! compgen -G "$APTD/lists/*_Packages*" >/dev/null; then apt_update; fi

# Resolve the closure of the userland packages; "Inst name (version ...)".
resolve() {
    apt-get "${APT_OPTS[@]}" -s install "$@" 2>"$APTD/resolve.err" |
        sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1=\2/p' | LC_ALL=C sort
}
KPKG=
resolve_all() {
    # linux-image-amd64 is a metapackage; take the real image it points at
    # (without its dependencies: initramfs-tools and friends are not needed).
    KPKG=$(apt-cache "${APT_OPTS[@]}" depends linux-image-amd64 2>/dev/null |
           sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\).*/\1/p' | head -1)
    [ -n "$KPKG" ] || return 1
    local kver
    kver=$(apt-cache "${APT_OPTS[@]}" show --no-all-versions "$KPKG" | sed -n 's/^Version: //p' | head -1)
    USER_PKGS=$(resolve "${PACKAGES[@]}" $EXTRA_PACKAGES) || return 1
    [ -n "$USER_PKGS" ] || return 1
    FW_PKGS=$(for p in "${FW_PACKAGES[@]}"; do
        echo "$p=$(apt-cache "${APT_OPTS[@]}" show --no-all-versions "$p" | sed -n 's/^Version: //p' | head -1)"; done)
    KERNEL_PKG="$KPKG=$kver"
}
resolve_all || { apt_update; resolve_all || die "cannot resolve packages in $SUITE: $(cat "$APTD/resolve.err")"; }

# ---------------------------------------------------------------- cache key
# The key covers this script, not init/sudo: scripts/femu-run overlays the
# repository's current init and sudo at every boot, so editing them needs no
# rebuild (the copies inside the initramfs serve QEMU runs without the runner).
SCRIPTS_SHA=$(sha256sum <"$GUEST_SRC/build-guest.sh" | cut -c1-64)
KEY=$( { echo "$SCRIPTS_SHA"; echo "suite=$SUITE compress=$COMPRESS extra=$EXTRA_PACKAGES";
         echo "$KERNEL_PKG"; echo "$USER_PKGS"; echo "$FW_PKGS"; } | sha256sum | cut -c1-16)
OUT=$CACHE/guest/$KEY

print_result() {
    echo "kernel=$OUT/vmlinuz"
    echo "initrd=$OUT/initrd.img"
    echo "firmware=$OUT/firmware"
}
point_current() {
    echo "$SCRIPTS_SHA" >"$OUT/scripts.sha"
    ln -sfn "$KEY" "$CACHE/guest/current.new" && mv -T "$CACHE/guest/current.new" "$CACHE/guest/current"
}
if [ "$FORCE" = 0 ] && [ -f "$OUT/complete" ]; then
    log "up to date: $OUT"
    touch "$OUT/complete"   # most recently used
    point_current
    print_result
    exit 0
fi

# ---------------------------------------------------------------- download
download() {
    # --download-only on an empty status downloads the whole closure into
    # $APTD/cache/archives; files already there are reused.
    apt-get "${APT_OPTS[@]}" -q -y --download-only install "${PACKAGES[@]}" $EXTRA_PACKAGES \
        >"$APTD/download.log" 2>&1 &&
    (cd "$APTD/cache/archives" && apt-get "${APT_OPTS[@]}" -q download "$KPKG" "${FW_PACKAGES[@]}") \
        >>"$APTD/download.log" 2>&1
}
log "downloading $(echo "$USER_PKGS" | wc -l) userland packages, $KPKG and firmware"
if ! download; then
    # A stale list can name versions the mirror has dropped (point releases).
    apt_update; resolve_all; download || die "download failed (see $APTD/download.log)"
fi
deb_of() {  # name=version -> cached .deb path
    local n=${1%%=*} v=${1#*=} f
    v=${v//:/%3a}
    for f in "$APTD/cache/archives/${n}_${v}_"*.deb; do echo "$f"; return 0; done
    die "package file for $1 missing in $APTD/cache/archives"
}

# ---------------------------------------------------------------- staging
TMP=$(mktemp -d "$CACHE/guest/build.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
EX=$TMP/extract      # every userland package unpacked
ROOT=$TMP/root       # the initramfs tree
mkdir -p "$EX" "$ROOT"
log "unpacking packages"
while read -r p; do dpkg-deb -x "$(deb_of "$p")" "$EX"; done <<<"$USER_PKGS"

# Canonical (merged-/usr) path of a file in the guest.
canon() {
    local p=${1#./}; p=${p#/}
    case $p in bin/*|sbin/*|lib/*|lib64/*) p=usr/$p ;; esac
    echo "$p"
}
# Resolve symlinks inside $EX (absolute links point into $EX, not the host).
resolve_ex() {
    local p=$1 n=0 t
    while [ -L "$EX/$p" ] && [ $n -lt 40 ]; do
        t=$(readlink "$EX/$p")
        case $t in /*) p=${t#/} ;; *) p=$(dirname "$p")/$t ;; esac
        n=$((n + 1))
    done
    # normalise a/../b
    realpath -m --relative-to="$EX" "$EX/$p"
}
ex_path() {  # first existing of p and its merged-/usr twin
    local p=${1#/} q
    for q in "$p" "usr/$p" "${p#usr/}"; do [ -e "$EX/$q" ] && { echo "$q"; return 0; }; done
    return 1
}

mkdir -p "$ROOT"/{dev,proc,sys,tmp,run,root,mnt,etc,var/tmp,usr/bin,usr/sbin,usr/lib/$MULTIARCH,usr/lib64}
ln -s usr/bin "$ROOT/bin"; ln -s usr/sbin "$ROOT/sbin"
ln -s usr/lib "$ROOT/lib"; ln -s usr/lib64 "$ROOT/lib64"
chmod 1777 "$ROOT/tmp" "$ROOT/var/tmp"; chmod 700 "$ROOT/root"

# ---- ELF programs and their shared libraries
LIBDIRS=()
while read -r d; do LIBDIRS+=("$d"); done < <(cd "$EX" &&
    find . -name '*.so*' \( -type f -o -type l \) -printf '%h\n' | sed 's|^\./||' | LC_ALL=C sort -u)
declare -A DONE=()
QUEUE=()
find_lib() {
    local d
    for d in usr/lib/$MULTIARCH lib/$MULTIARCH usr/lib64 lib64 usr/lib lib "${LIBDIRS[@]}"; do
        [ -e "$EX/$d/$1" ] && { echo "$d/$1"; return 0; }
    done
    return 1
}
add_elf() {  # $1: path in $EX, $2: destination path in the guest
    local src dst=$2
    src=$(resolve_ex "$1")
    [ -f "$EX/$src" ] || die "missing file $1 in staged packages"
    mkdir -p "$(dirname "$ROOT/$dst")"
    cp "$EX/$src" "$ROOT/$dst"
    QUEUE+=("$dst")
}
add_needed() {
    local f lib path interp
    while [ ${#QUEUE[@]} -gt 0 ]; do
        f=${QUEUE[0]}; QUEUE=("${QUEUE[@]:1}")
        readelf -h "$ROOT/$f" >/dev/null 2>&1 || continue
        interp=$(readelf -lW "$ROOT/$f" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
        if [ -n "$interp" ] && [ -z "${DONE[interp:$interp]:-}" ]; then
            DONE[interp:$interp]=1
            path=$(ex_path "$interp") || die "interpreter $interp not found"
            add_elf "$path" "$(canon "$interp")"
        fi
        for lib in $(readelf -dW "$ROOT/$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
            [ -n "${DONE[$lib]:-}" ] && continue
            DONE[$lib]=1
            path=$(find_lib "$lib") || die "$f needs $lib, which no staged package provides"
            add_elf "$path" "usr/lib/$MULTIARCH/$lib"
        done
    done
}
add_prog() {  # program path as packaged (bin/x or usr/bin/x)
    local p
    p=$(ex_path "$1") || die "program $1 not found in staged packages"
    add_elf "$p" "$(canon "$p")"
}

log "assembling the guest tree"
add_prog usr/bin/busybox
add_prog usr/bin/bash
add_prog usr/bin/fio
add_prog usr/sbin/nvme
add_prog usr/bin/python3.13
# zoned block devices (femu_mode=3): busybox has no blkzone; fio's
# t/zbd scripts need GNU grep (-P) and GNU timeout (-v); a zoned btrfs
# needs mkfs.btrfs
add_prog usr/sbin/blkzone
add_prog usr/bin/grep
add_prog usr/bin/timeout
add_prog usr/sbin/mkfs.btrfs
# t/zbd asks sg_inq whether reads above the write pointer are restricted
# (an NVMe zoned namespace's are not: without sg_inq test 4 assumes they are)
add_prog usr/bin/sg_inq
# f2fs across a conventional and a zoned namespace, zonefs, ext4
add_prog usr/sbin/mkfs.f2fs
add_prog usr/sbin/fsck.f2fs
add_prog usr/sbin/mkzonefs
add_prog usr/sbin/mke2fs
add_prog usr/sbin/e2fsck
ln -s mke2fs "$ROOT/usr/sbin/mkfs.ext4"; ln -s e2fsck "$ROOT/usr/sbin/fsck.ext4"
for p in $EXTRA_PACKAGES; do
    while read -r f; do
        [ -f "$EX/$f" ] || [ -L "$EX/$f" ] || continue
        add_prog "$f"
    done < <(dpkg-deb -c "$(deb_of "$(grep "^$p=" <<<"$USER_PKGS")")" |
             awk '$1 ~ /^[-l]/ {print $6}' | sed -n 's|^\./||; /^\(usr\/\)\{0,1\}s\{0,1\}bin\/./p')
done

# Python: the stdlib minus what no script here needs; C extension modules go
# through the same library resolution.
PYLIB=usr/lib/python3.13
mkdir -p "$ROOT/$PYLIB"
excl=(); for e in "${PY_EXCLUDE[@]}"; do excl+=(--exclude="./$e"); done
tar -C "$EX/$PYLIB" "${excl[@]}" --exclude=__pycache__ -cf - . | tar -C "$ROOT/$PYLIB" -xf -
for f in "$ROOT/$PYLIB"/lib-dynload/*.so; do QUEUE+=("${f#"$ROOT"/}"); done
ln -s python3.13 "$ROOT/usr/bin/python3"; ln -s python3.13 "$ROOT/usr/bin/python"
add_needed

# busybox provides every other command; real programs win over its applets.
while read -r a; do
    case $a in bin/*|sbin/*) a=usr/$a ;; esac
    [ -e "$ROOT/$a" ] || [ -L "$ROOT/$a" ] || ln -s /usr/bin/busybox "$ROOT/$a"
done < <("$ROOT/usr/bin/busybox" --list-full)
ln -sf bash "$ROOT/usr/bin/sh"

# ---- guest scripts and configuration
install -m 0755 "$GUEST_SRC/init" "$ROOT/init"
install -m 0755 "$GUEST_SRC/sudo" "$ROOT/usr/bin/sudo"
cat >"$ROOT/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/bash
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >"$ROOT/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
echo femu-guest >"$ROOT/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 femu-guest\n::1 localhost\n' >"$ROOT/etc/hosts"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$ROOT/etc/nsswitch.conf"
ln -s /proc/mounts "$ROOT/etc/mtab"
cp "$EX/usr/lib/os-release" "$ROOT/etc/os-release" 2>/dev/null || true
cat >"$ROOT/etc/profile" <<'EOF'
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
EOF
mkdir -p "$ROOT/usr/local/bin" "$ROOT/usr/local/sbin"

# ---- kernel and modules
log "unpacking $KPKG"
KDEB=$(deb_of "$KERNEL_PKG")
KX=$TMP/kernel
mkdir -p "$KX"
dpkg-deb --fsys-tarfile "$KDEB" | tar -C "$KX" -xf - --wildcards './boot/vmlinuz-*' \
    './lib/modules/*' './usr/lib/modules/*' 2>/dev/null || true
KVER=$(cd "$KX/boot" && ls vmlinuz-* | head -1); KVER=${KVER#vmlinuz-}
[ -n "$KVER" ] || die "no kernel image in $KDEB"
KMOD=
for d in usr/lib/modules/"$KVER" lib/modules/"$KVER"; do
    if [ -d "$KX/$d" ]; then KMOD=$d; break; fi
done
[ -n "$KMOD" ] || die "no modules for $KVER in $KDEB"
declare -A MODFILE=()
while read -r f; do
    n=${f##*/}; n=${n%%.ko*}; MODFILE[${n//-/_}]=$f
done < <(cd "$KX" && find "$KMOD/kernel" -name '*.ko*')
MODS_WANTED=()
want_mod() {
    local m=${1//-/_} f d
    for d in "${MODS_WANTED[@]}"; do [ "$d" = "$m" ] && return 0; done
    f=${MODFILE[$m]:-}
    if [ -z "$f" ]; then
        grep -q "/${m}.ko\|/${m//_/-}.ko" "$KX/$KMOD/modules.builtin" && return 0
        die "kernel module $m not found in $KPKG"
    fi
    for d in $(modinfo -F depends "$KX/$f" | tr ',' ' '); do want_mod "$d"; done
    MODS_WANTED+=("$m")   # after its dependencies: a valid load order
}
for m in "${MODULES[@]}"; do want_mod "$m"; done
for m in "${MODS_WANTED[@]}"; do
    f=${MODFILE[$m]}
    dst=$ROOT/usr/lib/modules/$KVER/${f#"$KMOD"/}
    mkdir -p "$(dirname "$dst")"
    # Stored uncompressed: the initramfs is compressed as a whole (or not at
    # all), and busybox's modprobe/insmod then need no decompressor.
    case $f in
    *.xz) xz -dc "$KX/$f" >"${dst%.xz}" ;;
    *.zst) zstd -qdc "$KX/$f" >"${dst%.zst}" ;;
    *.gz) gzip -dc "$KX/$f" >"${dst%.gz}" ;;
    *) cp "$KX/$f" "$dst" ;;
    esac
done
cp "$KX/$KMOD"/modules.builtin* "$KX/$KMOD"/modules.order "$ROOT/usr/lib/modules/$KVER/"
depmod -b "$ROOT/usr" "$KVER" 2>/dev/null || depmod -b "$ROOT" "$KVER"
printf '%s\n' "${MODS_WANTED[@]}" >"$ROOT/etc/femu-modules"

# Python modules are not precompiled: .pyc files would add ~8 MB to every
# boot's initramfs, and the few jobs that use Python compile what they import
# once per boot (the guest's root is writable).

# ---- firmware for QEMU
FW=$TMP/firmware; FX=$TMP/fwx
mkdir -p "$FW" "$FX"
while read -r p; do dpkg-deb -x "$(deb_of "$p")" "$FX"; done <<<"$FW_PKGS"
for f in bios-256k.bin qboot.rom linuxboot_dma.bin linuxboot.bin kvmvapic.bin; do
    s=$(cd "$FX" && find . -name "$f" | head -1)
    [ -n "$s" ] && cp -L "$FX/$s" "$FW/$f"
done
[ -f "$FW/bios-256k.bin" ] && [ -f "$FW/linuxboot_dma.bin" ] || die "firmware missing from ${FW_PACKAGES[*]}"

# ---- pack
log "packing initramfs ($COMPRESS)"
(cd "$ROOT" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
    cpio --quiet -o -H newc --owner=0:0 --reproducible) >"$TMP/initrd.cpio"
case $COMPRESS in
none) mv "$TMP/initrd.cpio" "$TMP/initrd.img" ;;
gzip) gzip -6 -n <"$TMP/initrd.cpio" >"$TMP/initrd.img" ;;
zstd) zstd -q -9 -T0 <"$TMP/initrd.cpio" >"$TMP/initrd.img" ;;
esac

STAGE=$TMP/out
mkdir -p "$STAGE"
mv "$TMP/initrd.img" "$STAGE/initrd.img"
cp "$KX/boot/vmlinuz-$KVER" "$STAGE/vmlinuz"
mv "$FW" "$STAGE/firmware"
{
    echo "suite: $SUITE"; echo "mirror: $MIRROR"; echo "kernel: $KERNEL_PKG ($KVER)"
    echo "compress: $COMPRESS"; echo "modules: ${MODS_WANTED[*]}"
    echo "initrd bytes: $(stat -c %s "$STAGE/initrd.img")"
    echo "tree bytes: $(du -sb "$ROOT" | cut -f1)"
    echo "packages:"; echo "$USER_PKGS"; echo "$FW_PKGS"
} >"$STAGE/manifest.txt"
touch "$STAGE/complete"
rm -rf "$OUT"
mv "$STAGE" "$OUT"
point_current
# Keep the three most recently used builds besides this one: checkouts with
# different versions of this script (a CI clone next to a work tree) share the
# cache, and each runner picks the build made by its own script version.
kept=0
for d in $(ls -1dt "$CACHE"/guest/*/complete 2>/dev/null); do
    d=${d%/complete}
    [ "$d" = "$OUT" ] && continue
    kept=$((kept + 1))
    if [ "$kept" -gt 3 ]; then rm -rf "$d"; fi
done
log "built $OUT ($(stat -c %s "$OUT/initrd.img") bytes initramfs, kernel $KVER)"
print_result
