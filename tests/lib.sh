# tests/lib.sh: what the test suites' helpers share (sourced, bash).  Each
# suite's lib.sh sources it first; a .t that needs nothing else may source
# it directly.
#
#   FEMU_ROOT, FEMU_BUILD_DIR, FEMU_QEMU, FEMU_SIM_DIR
#                   as tests/run exports them, or the same defaults when a
#                   .t runs alone: this checkout, build-femu/, its
#                   qemu-system-x86_64, build/
#   FEMU_RUNNER     scripts/femu-run
#   die MSG         "FAIL: MSG" and exit 1 (a test that cannot go on)
#   skip MSG        "skip: MSG" and exit 77
#   require_qemu    skip unless $FEMU_QEMU is built, except in CI ($CI=true),
#                   where a missing build is a failure
#   require_sim     the same for $FEMU_SIM_DIR/femu-sim
FEMU_ROOT=${FEMU_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)}
FEMU_BUILD_DIR=${FEMU_BUILD_DIR:-$FEMU_ROOT/build-femu}
FEMU_QEMU=${FEMU_QEMU:-$FEMU_BUILD_DIR/qemu-system-x86_64}
FEMU_SIM_DIR=${FEMU_SIM_DIR:-$FEMU_ROOT/build}
FEMU_RUNNER=$FEMU_ROOT/scripts/femu-run

die() {
    echo "FAIL: $*"
    exit 1
}

skip() {
    echo "skip: $*"
    exit 77
}

_femu_require() { # _femu_require PATH WHAT HOW
    [ -x "$1" ] && return 0
    if [ "${CI:-}" = true ]; then
        die "$2 $1 is missing (CI=true: a missing build is a failure)"
    fi
    skip "$2 $1 not built ($3)"
}
require_qemu() { _femu_require "$FEMU_QEMU" "QEMU binary" "make qemu, or set FEMU_QEMU"; }
require_sim() { _femu_require "$FEMU_SIM_DIR/femu-sim" "simulator" "make sim"; }
