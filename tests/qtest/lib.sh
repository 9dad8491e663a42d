# Shared by tests/qtest/*.t: build the qtest driver (tests/qtest/femu-*.c,
# grafted into QEMU's tests/qtest by scripts/graft/graft.sh) on demand and
# run one of its groups (TAP).  Each .t is one group of cases; the group
# ends with a health check (Identify + write/read/compare).
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
root=$FEMU_ROOT
bdir=$FEMU_BUILD_DIR
qemu=$FEMU_QEMU

qtest_group() { # qtest_group NAME [TIMEOUT_S (default 300)]
    local name=$1 limit=${2:-300} bin=$bdir/tests/qtest/femu-test out
    if [ ! -f "$bdir/build.ninja" ] || [ ! -x "$qemu" ]; then
        echo "SKIP: no QEMU build in $bdir (run make qemu)"; exit 77
    fi
    if ! ninja -C "$bdir" -t query tests/qtest/femu-test >/dev/null 2>&1; then
        echo "SKIP: $bdir has no tests/qtest/femu-test target (configured" \
             "before the qtest graft: re-run ./configure)"
        exit 77
    fi
    # femu-test is linked from every tests/qtest/femu-*.c the graft found:
    # a file added since is missing from the build until ./configure grafts
    # again (cheap: QEMU's configure does not re-run)
    local f gdir
    gdir=$(dirname "$bdir")/.$(basename "$bdir")-qemu-src/tests/qtest
    for f in "$root"/tests/qtest/femu-*.[ch]; do
        if [ ! -e "$gdir/${f##*/}" ]; then
            echo "FAIL: $gdir has no ${f##*/} (grafted before it existed):" \
                 "re-run ./configure"
            exit 1
        fi
    done
    # the build lock: never two ninja runs in the QEMU build dir at once
    out=$(flock /tmp/femu-build.lock ninja -C "$bdir" tests/qtest/femu-test 2>&1) || {
        printf '%s\n' "$out" | tail -30; echo "FAIL: building femu-test"; exit 1; }
    cd "$bdir" || exit 1
    QTEST_QEMU_BINARY=$qemu timeout -k 10 "$limit" "$bin" --tap -k -p "/x86_64/femu/$name" 2>&1 |
        grep -v "^# starting QEMU\|Default NIC"
    local rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] || echo "FAIL: femu-test /x86_64/femu/$name exited with $rc"
    exit "$rc"
}
