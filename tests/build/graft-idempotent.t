#!/bin/bash
# The graft is idempotent: grafting twice gives the same tree with the wiring
# lines once each and unchanged mtimes (so ninja rebuilds nothing), the
# pristine QEMU tree is never written, and configuring the real build dir
# twice (the second time re-running QEMU's configure) leaves a build that
# still works.
. "$(dirname "$0")/lib.sh"

src=$(pristine_src) || { echo "main build not configured; run ./configure first"; exit 1; }
stamp=$T/stamp
touch "$stamp"
sleep 1

# 1. graft.sh twice into a scratch dir.
g=$T/graft
rm -rf "$g"
"$FEMU_ROOT/scripts/graft/graft.sh" "$src" "$g" "$FEMU_ROOT" || fail "first graft failed"
before=$(stat -c '%n %Y' "$g/hw/meson.build" "$g/hw/Kconfig" "$g/meson.build")
sleep 1
"$FEMU_ROOT/scripts/graft/graft.sh" "$src" "$g" "$FEMU_ROOT" || fail "second graft failed"
after=$(stat -c '%n %Y' "$g/hw/meson.build" "$g/hw/Kconfig" "$g/meson.build")
[ "$before" = "$after" ] && ok "second graft kept the wiring files' mtimes" ||
    fail "mtimes changed: $before / $after"
n=$(grep -c "^subdir('femu')" "$g/hw/meson.build"); [ "$n" = 1 ] && ok "hw/meson.build: subdir('femu') once" || fail "hw/meson.build has subdir('femu') $n times"
n=$(grep -c "^source femu/Kconfig" "$g/hw/Kconfig"); [ "$n" = 1 ] && ok "hw/Kconfig: source femu/Kconfig once" || fail "hw/Kconfig has it $n times"
n=$(grep -c "'hw/femu'," "$g/meson.build"); [ "$n" = 1 ] && ok "meson.build: 'hw/femu' trace dir once" || fail "meson.build has 'hw/femu' $n times"
# Apart from the wiring lines the copies equal QEMU's files.
for f in hw/meson.build hw/Kconfig meson.build; do
    d=$(diff "$src/$f" "$g/$f" | grep -c '^[<>]')
    [ "$d" = 1 ] && ok "$f differs from QEMU's by one added line" || fail "$f differs by $d lines"
done
[ "$(readlink "$g/hw/femu")" = "$FEMU_ROOT/hw/femu" ] && ok "hw/femu links to the checkout" || fail "hw/femu -> $(readlink "$g/hw/femu")"
[ "$(readlink "$g/include/hw/femu")" = "$FEMU_ROOT/include/hw/femu" ] && ok "include/hw/femu links to the checkout" || fail "include/hw/femu -> $(readlink "$g/include/hw/femu")"
ls "$g"/*.new.* "$g".new.* "$g".old.* > /dev/null 2>&1 && fail "temporary trees left behind" || ok "no temporary trees left"
rm -rf "$g"

# 2. The real build dir: configure twice; the second run re-runs QEMU's
#    configure (--force), then the build must still work.
# Re-use the arguments the build dir was configured with (config.femu-args).
args=()
if [ -f "$FEMU_BUILD_DIR/config.femu-args" ]; then
    while IFS= read -r a; do
        case $a in --no-install-deps|--force|--build-dir=*|'') ;; *) args+=("$a") ;; esac
    done < "$FEMU_BUILD_DIR/config.femu-args"
fi
conf() { "$FEMU_ROOT/configure" --no-install-deps --build-dir="$FEMU_BUILD_DIR" "$@" ${args[@]+"${args[@]}"}; }
conf > "$T/c1" 2>&1 || { cat "$T/c1"; fail "configure failed"; }
b1=$(stat -c %Y "$FEMU_BUILD_DIR/build.ninja")
conf > "$T/c2" 2>&1 || { cat "$T/c2"; fail "second configure failed"; }
grep -q "already configured" "$T/c2" && ok "second configure is a no-op" || fail "second configure re-ran QEMU's configure: $(cat "$T/c2")"
[ "$b1" = "$(stat -c %Y "$FEMU_BUILD_DIR/build.ninja")" ] && ok "build.ninja untouched" || fail "build.ninja rewritten"
conf --force > "$T/c3" 2>&1 || { cat "$T/c3"; fail "configure --force failed"; }
t0=$(date +%s)
flock "$LOCK" ninja -C "$FEMU_BUILD_DIR" qemu-system-x86_64 > "$T/ninja" 2>&1 || { tail -n 40 "$T/ninja"; fail "build after reconfigure failed"; }
echo "rebuild after configure --force: $(( $(date +%s) - t0 ))s, $(grep -c '^\[' "$T/ninja") ninja steps"
"$FEMU_QEMU" -version | grep -q "version 10\.0\." && ok "qemu-system-x86_64 -version says 10.0" || fail "bad -version: $("$FEMU_QEMU" -version)"
[ -z "$(find "$src" -newer "$stamp" -print -quit)" ] && ok "pristine tree $src not written" || fail "pristine tree modified: $(find "$src" -newer "$stamp" | head -n 3)"
finish
