#!/bin/bash
# A missing build dependency gives a one-line error that says what to install
# (with --no-install-deps, so nothing gets installed), and nothing is created.
. "$(dirname "$0")/lib.sh"

# A PATH with every program of /usr/bin and /bin except ninja.
# (cp -s makes the links in one process; -n keeps the first of a name, as PATH would.)
rm -rf "$T/bin"; mkdir -p "$T/bin"
for d in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
    [ -d "$d" ] && cp -sn "$d"/* "$T/bin/" 2>/dev/null
done
rm -f "$T/bin/ninja"
PATH=$T/bin command -v ninja >/dev/null && skip "ninja still on the reduced PATH"

rm -rf "$T/b"
PATH=$T/bin "$FEMU_ROOT/configure" --no-install-deps --build-dir="$T/b" > "$T/stdout" 2> "$T/out" &&
    fail "configure succeeded without ninja"
expect_one_line_error "$T/out" "ninja.*apt-get install ninja-build"
[ ! -e "$T/b" ] && [ ! -e "$T/.b-qemu-src" ] && ok "nothing created" || fail "build dir created"

# The same for a missing pkg-config module: a pkg-config that knows none.
# (rm first: $T/bin/pkg-config is a symlink to the real one, never write
# through it.)
rm -f "$T/bin/pkg-config" "$T/bin/ninja"
cat > "$T/bin/pkg-config" <<'EOS'
#!/bin/sh
exit 1
EOS
chmod +x "$T/bin/pkg-config"
ln -s "$(command -v ninja)" "$T/bin/ninja"
PATH=$T/bin "$FEMU_ROOT/configure" --no-install-deps --build-dir="$T/b" > "$T/stdout2" 2> "$T/out2" &&
    fail "configure succeeded without glib"
expect_one_line_error "$T/out2" "glib-2.0.*apt-get install libglib2.0-dev"
[ ! -e "$T/b" ] && ok "nothing created" || fail "build dir created"

# A QEMU tree whose pythondeps.toml asks for pycotap (upstream's does; Debian's
# comments it out) needs python3-pycotap.
src=$(pristine_src) || { echo "main build not configured; run ./configure first"; exit 1; }
if /usr/bin/python3 -c 'import pycotap' 2>/dev/null; then
    echo "(pycotap is installed here: the pycotap check cannot be provoked)"
else
    up=$T/upstream-like
    rm -rf "$up"; mkdir -p "$up"
    for e in "$src"/*; do ln -s "$e" "$up/${e##*/}"; done
    rm "$up/pythondeps.toml"
    sed 's/^#\(pycotap *=\)/\1/' "$src/pythondeps.toml" > "$up/pythondeps.toml"
    "$FEMU_ROOT/configure" --no-install-deps --qemu-src="$up" --build-dir="$T/b" > "$T/stdout3" 2> "$T/out3" &&
        fail "configure succeeded without pycotap"
    expect_one_line_error "$T/out3" "pycotap.*apt-get install python3-pycotap"
    [ ! -e "$T/b" ] && ok "nothing created" || fail "build dir created"
fi
finish
