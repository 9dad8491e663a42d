# Host-side helpers for tests/guest/femu-*.t (sourced), over tests/lib.sh.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
ROOT=$FEMU_ROOT
QEMU=$FEMU_QEMU
RUNNER=$FEMU_RUNNER
GUEST_DIR=$ROOT/tests/guest/femu

need_runner() {
    require_qemu
    grep -q '"femu"' <("$QEMU" -device help 2>&1) || die "$QEMU has no femu device"
}

# wait_line PATTERN FILE PID TENTHS: wait until FILE has a line that
# matches PATTERN (true) or process PID is gone or TENTHS tenths of a
# second have passed (false unless the line came at the last moment)
wait_line() {
    local i
    for i in $(seq "$4"); do
        grep -q "$1" "$2" && return 0
        kill -0 "$3" 2>/dev/null || break
        sleep 0.1
    done
    grep -q "$1" "$2"
}

# femu_guest SCRIPT [RUNNER/QEMU ARGS...]: run common.sh + SCRIPT in the
# guest; the job's status is the guest checks' result.  The runner exits
# with the job's status, and non-zero when QEMU itself did not exit 0.
femu_guest() {
    local script=$1; shift
    local job
    job=$(mktemp /tmp/femu-job.XXXXXX)
    { "$ROOT/scripts/femu-log.sh" --emit
      cat "$GUEST_DIR/common.sh" "$GUEST_DIR/$script"; echo 'finish'; } >"$job"
    # no_timer_check: under a loaded TCG host the guest kernel's IO-APIC
    # timer check can fail ("IO-APIC + timer doesn't work") and panic
    "$RUNNER" --append no_timer_check "$@" --script "$job"
    local rc=$?
    rm -f "$job"
    return $rc
}
