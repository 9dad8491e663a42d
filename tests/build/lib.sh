# Helpers for tests/build/*.t (sourced), over tests/lib.sh (the paths,
# die, skip).  fail counts a failed check and goes on; finish ends the test.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
T=${FEMU_TEST_LOGDIR:-$(mktemp -d /tmp/femu-buildtest.XXXXXX)}
mkdir -p "$T"
LOCK=${FEMU_BUILD_LOCK:-/tmp/femu-build.lock}
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
finish() { [ "$fails" -eq 0 ] && { echo "all checks passed"; exit 0; }; echo "$fails check(s) failed"; exit 1; }

# The pristine QEMU tree the main build was grafted from.
pristine_src() {
    local g
    g=$(dirname "$FEMU_BUILD_DIR")/.$(basename "$FEMU_BUILD_DIR")-qemu-src
    [ -f "$g/.femu-pristine" ] && cat "$g/.femu-pristine"
}

# expect_one_line_error FILE REGEX: FILE (the standard error of a failed
# configure) is exactly one line and matches REGEX.
expect_one_line_error() {
    local f=$1 re=$2 n
    n=$(wc -l < "$f")
    if [ "$n" -ne 1 ]; then
        fail "expected a one-line error, got $n lines:"; sed 's/^/    /' "$f"
    elif ! grep -qE "$re" "$f"; then
        fail "error line does not match /$re/: $(cat "$f")"
    else
        ok "one-line error: $(cat "$f")"
    fi
}
