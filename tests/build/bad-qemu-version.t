#!/bin/bash
# A --qemu-src tree that is not QEMU 10.0 is refused with a one-line error
# naming the version found, and nothing is left behind.  A QEMU configure that
# fails later (here: an option QEMU does not know) also leaves nothing behind.
. "$(dirname "$0")/lib.sh"

# A fake QEMU 9.2 tree: the version check comes first, so VERSION is enough.
mkdir -p "$T/qemu-9.2/hw"
echo 9.2.0 > "$T/qemu-9.2/VERSION"
touch "$T/qemu-9.2/configure" "$T/qemu-9.2/meson.build"
rm -rf "$T/b1" "$T/.b1-qemu-src"
if "$FEMU_ROOT/configure" --qemu-src="$T/qemu-9.2" --build-dir="$T/b1" --no-install-deps > "$T/stdout1" 2> "$T/out1"; then
    fail "configure accepted a QEMU 9.2 tree"
fi
expect_one_line_error "$T/out1" "9\.2\.0.*10\.0"
[ ! -e "$T/b1" ] && [ ! -e "$T/.b1-qemu-src" ] && ok "no build dir left behind" ||
    fail "left behind: $(ls -d "$T/b1" "$T/.b1-qemu-src" 2>/dev/null)"

# Not a QEMU tree at all.
mkdir -p "$T/empty"
"$FEMU_ROOT/configure" --qemu-src="$T/empty" --build-dir="$T/b2" --no-install-deps > "$T/stdout2" 2> "$T/out2" &&
    fail "configure accepted a directory without VERSION"
expect_one_line_error "$T/out2" "not a QEMU source tree"
[ ! -e "$T/b2" ] && ok "no build dir left behind (empty tree)" || fail "$T/b2 left behind"

# A real 10.0 tree but QEMU's own configure fails: the new build dir and its
# grafted tree are removed again.
src=$(pristine_src) || skip "main build not configured (no .femu-pristine); run ./configure first"
"$FEMU_ROOT/configure" --qemu-src="$src" --build-dir="$T/b3" --no-install-deps -- --enable-no-such-feature > "$T/stdout3" 2> "$T/out3" &&
    fail "configure succeeded with a bogus QEMU option"
expect_one_line_error "$T/out3" "QEMU's configure failed"
[ ! -e "$T/b3" ] && [ ! -e "$T/.b3-qemu-src" ] && ok "failed QEMU configure left nothing behind" ||
    fail "left behind: $(ls -d "$T/b3" "$T/.b3-qemu-src" 2>/dev/null)"
finish
