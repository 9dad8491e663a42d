#!/bin/bash
# graft.sh PRISTINE DEST FEMU_ROOT
#
# Builds DEST, a QEMU source tree made of symlinks into the pristine tree
# PRISTINE (which is never written), plus:
#   hw/femu, include/hw/femu   -> symlinks to FEMU_ROOT's own directories, so
#                                 editing a femu file and re-running ninja
#                                 rebuilds just that file;
#   hw/meson.build, hw/Kconfig -> copies with one line each added for femu;
#   meson.build                -> copy with 'hw/femu' in trace_events_subdirs;
#   tests/qtest/meson.build    -> copy with femu-test added to the x86_64
#                                 qtests (tests/qtest/femu-test.c and the
#                                 other tests/qtest/femu-*.c, linked);
#   configs/devices/x86_64-softmmu/femu.mak -> FEMU's device set.
# The tree is assembled next to DEST and swapped in with rename, so DEST is
# always either the old or the new tree.  Files whose content did not change
# keep their old mtime, so grafting twice does not make ninja rebuild.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)

die() { echo "graft: error: $*" >&2; exit 1; }

[ $# -eq 3 ] || die "usage: graft.sh PRISTINE DEST FEMU_ROOT"
src=$(cd "$1" && pwd -P) || die "no QEMU tree at $1"
dest=$2
root=$(cd "$3" && pwd -P) || die "no FEMU checkout at $3"

[ -f "$src/hw/meson.build" ] && [ -f "$src/hw/Kconfig" ] && [ -f "$src/meson.build" ] ||
    die "$src does not look like a QEMU source tree (hw/meson.build, hw/Kconfig, meson.build)"
[ -d "$root/hw/femu" ] || die "$root/hw/femu is missing"

new="$dest.new.$$"
rm -rf "$new"
trap 'rm -rf "$new"' EXIT
mkdir -p "$new"

# link_all SRCDIR DESTDIR EXCEPT...: symlink every entry of SRCDIR except the
# named ones into DESTDIR.
link_all() {
    local from=$1 to=$2 e name skip x
    shift 2
    for e in "$from"/* "$from"/.[!.]*; do
        [ -e "$e" ] || [ -L "$e" ] || continue
        name=${e##*/}
        # QEMU's git metadata is of no use here (and git refuses to read a
        # .gitignore that is a symlink).
        case $name in .git*) continue ;; esac
        skip=
        for x in "$@"; do [ "$name" = "$x" ] && skip=1; done
        [ -n "$skip" ] || ln -s "$e" "$to/$name"
    done
}

# put FILE: move the freshly generated $new/FILE into place, but keep the old
# copy (and its mtime) when the content is identical.
put() {
    local f=$1
    if [ -f "$dest/$f" ] && [ ! -L "$dest/$f" ] && cmp -s "$dest/$f" "$new/$f.tmp"; then
        cp -p "$dest/$f" "$new/$f"
        rm -f "$new/$f.tmp"
    else
        mv "$new/$f.tmp" "$new/$f"
    fi
}

# insert_after FILE ANCHOR_REGEX LINE: copy FILE with LINE added after the
# first line that matches ANCHOR_REGEX; fail if there is no such line.
insert_after() {
    local in=$1 anchor=$2 line=$3 out=$4
    grep -qE "$anchor" "$in" || die "$in: no line matching '$anchor' to graft after"
    awk -v a="$anchor" -v l="$line" '{ print } !done && $0 ~ a { print l; done = 1 }' "$in" > "$out"
}

link_all "$src" "$new" hw include configs meson.build tests
# The tree sits in the FEMU checkout (next to build-femu/): keep it out of git.
echo '*' > "$new/.gitignore"
mkdir "$new/hw" "$new/include" "$new/include/hw" "$new/configs" \
      "$new/configs/devices" "$new/configs/devices/x86_64-softmmu"

# hw/: QEMU's directories plus femu, and the two wiring lines.
link_all "$src/hw" "$new/hw" meson.build Kconfig femu
ln -s "$root/hw/femu" "$new/hw/femu"
insert_after "$src/hw/meson.build" "^subdir\('nvme'\)" "subdir('femu')" "$new/hw/meson.build.tmp"
insert_after "$src/hw/Kconfig" "^source nvme/Kconfig" "source femu/Kconfig" "$new/hw/Kconfig.tmp"

# include/ and include/hw/: QEMU's headers plus include/hw/femu.
link_all "$src/include" "$new/include" hw
link_all "$src/include/hw" "$new/include/hw" femu
if [ -d "$root/include/hw/femu" ]; then
    ln -s "$root/include/hw/femu" "$new/include/hw/femu"
fi

# Top-level meson.build: hw/femu/trace-events joins QEMU's trace events.
insert_after "$src/meson.build" "^ *'hw/nvme',\$" "  'hw/femu'," "$new/meson.build.tmp"

# configs/devices/x86_64-softmmu/femu.mak: selected with --with-devices-x86_64=femu.
link_all "$src/configs" "$new/configs" devices
link_all "$src/configs/devices" "$new/configs/devices" x86_64-softmmu
link_all "$src/configs/devices/x86_64-softmmu" "$new/configs/devices/x86_64-softmmu" femu.mak
ln -s "$here/femu-devices.mak" "$new/configs/devices/x86_64-softmmu/femu.mak"

# tests/qtest: FEMU's qtest driver joins QEMU's x86_64 qtests: femu-test.c
# (main) and the other FEMU_ROOT/tests/qtest/femu-*.c (its sources, in the
# qtests dictionary) and femu-*.h, all linked.  Nothing builds it by
# default: tests/qtest/*.t build it on demand (ninja tests/qtest/femu-test).
# A femu-*.c file added later needs a new graft (./configure).
mkdir "$new/tests" "$new/tests/qtest"
link_all "$src/tests" "$new/tests" qtest
qt_files=()
for f in "$root"/tests/qtest/femu-*.[ch]; do
    [ -f "$f" ] && qt_files+=("${f##*/}")
done
link_all "$src/tests/qtest" "$new/tests/qtest" meson.build "${qt_files[@]}"
if [ -f "$root/tests/qtest/femu-test.c" ]; then
    qt_srcs=
    for f in "${qt_files[@]}"; do
        ln -s "$root/tests/qtest/$f" "$new/tests/qtest/$f"
        case $f in femu-test.c|*.h) ;; *) qt_srcs+="${qt_srcs:+, }'$f'" ;; esac
    done
    insert_after "$src/tests/qtest/meson.build" "^qtests_x86_64 = qtests_i386" \
        "qtests_x86_64 += ['femu-test']" "$new/tests/qtest/meson.build.tmp1"
    insert_after "$new/tests/qtest/meson.build.tmp1" "^qtests = [{]" \
        "  'femu-test': files($qt_srcs)," "$new/tests/qtest/meson.build.tmp"
    rm -f "$new/tests/qtest/meson.build.tmp1"
else
    cp "$src/tests/qtest/meson.build" "$new/tests/qtest/meson.build.tmp"
fi

put hw/meson.build
put hw/Kconfig
put meson.build
put tests/qtest/meson.build

# Remember where the tree came from (configure reports it, tests check it).
printf '%s\n' "$src" > "$new/.femu-pristine.tmp"
put .femu-pristine

# Swap in.  rename(2) cannot replace a non-empty directory, so the old tree is
# moved aside first; the window in which DEST is absent is two renames long.
if [ -e "$dest" ]; then
    mv "$dest" "$dest.old.$$"
    mv "$new" "$dest"
    rm -rf "$dest.old.$$"
else
    mv "$new" "$dest"
fi
trap - EXIT
