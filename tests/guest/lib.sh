# Helpers for tests/guest/*.t that boot the embedded guest with
# scripts/femu-run (sourced, bash).
#
# It sources tests/lib.sh (the paths, die, skip, require_qemu) and adds:
#   femu_run ARGS...            scripts/femu-run --qemu $QEMU ARGS...
#   femu_run_expect N ARGS...   run it, keep stdout in $FEMU_OUT and stderr in
#                               $FEMU_ERR (files), fail unless it exits with N
#   expect_out REGEX [WHAT]     fail unless stdout of the last run matches
#   expect_err REGEX [WHAT]     the same for its stderr
#   fail MESSAGE                print "FAIL: MESSAGE" and exit 1
#   scratch                     a private scratch directory ($FEMU_TEST_LOGDIR
#                               when tests/run gives one), removed at exit
#                               unless it is the harness's
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
QEMU=$FEMU_QEMU
RUNNER=$FEMU_RUNNER

fail() { die "$@"; }

# Created when the library is sourced (not in scratch(), which tests call in
# a $(...) subshell).
if [ -n "${FEMU_TEST_LOGDIR:-}" ]; then
    mkdir -p "$FEMU_TEST_LOGDIR"
    _femu_scratch=$(mktemp -d "$FEMU_TEST_LOGDIR/scratch.XXXXXX")
else
    _femu_scratch=$(mktemp -d "${TMPDIR:-/tmp}/femu-test.XXXXXX")
    trap 'rm -rf "$_femu_scratch"' EXIT
fi
scratch() { echo "$_femu_scratch"; }

femu_run() {
    "$RUNNER" --qemu "$QEMU" "$@"
}

FEMU_OUT="" FEMU_ERR="" FEMU_RC=""
femu_run_expect() {
    local want=$1 d
    shift
    d=$(scratch)
    FEMU_OUT=$(mktemp "$d/out.XXXXXX")
    FEMU_ERR=$(mktemp "$d/err.XXXXXX")
    femu_run "$@" >"$FEMU_OUT" 2>"$FEMU_ERR"
    FEMU_RC=$?
    if [ "$FEMU_RC" != "$want" ]; then
        echo "---- stdout"; cat "$FEMU_OUT"
        echo "---- stderr"; cat "$FEMU_ERR"
        fail "femu-run $* exited with $FEMU_RC, expected $want"
    fi
}

_expect_in() {
    local file=$1 what=$2 re=$3 msg=${4:-}
    if ! grep -Eq -- "$re" "$file"; then
        echo "---- $what"; cat "$file"
        fail "${msg:-$what of the last run does not match /$re/}"
    fi
}
expect_out() { _expect_in "$FEMU_OUT" stdout "$@"; }
expect_err() { _expect_in "$FEMU_ERR" stderr "$@"; }
