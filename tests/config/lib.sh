# Table runner for the configuration tests (tests/config/*.t).
#
# Each row starts QEMU with the row's -device options and no guest
# (qtest accelerator, -S: nothing runs), then:
#   refuse REGEX ARGS...   QEMU must exit with status 1 and print an error
#                          matching REGEX (extended, case-sensitive): the
#                          message must name the property at fault
#                          (REGEX is matched against the message without
#                          QEMU's "-device ARGS: " prefix, which repeats
#                          every option given)
#   accept ARGS...         QEMU must start (realize succeeds) and quit with
#                          status 0 when told to over QMP
# ARGS are QEMU arguments; a bare "femu,..." or "femu-subsys,..." word is
# taken as a -device.  finish prints the summary and sets the exit status.
# A row that crashes QEMU (signal, status > 1) or hangs fails.

. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cfg_rows=0 cfg_failed=0
cfg_tmp=${FEMU_TEST_LOGDIR:-$(mktemp -d)}
require_qemu

cfg_args() { # expand device words into -device options
    local a
    for a in "$@"; do
        case $a in
        femu,*|femu|femu-subsys,*) printf '%s\0%s\0' -device "$a" ;;
        *) printf '%s\0' "$a" ;;
        esac
    done
}

cfg_run() { # cfg_run STDIN ARGS... -> sets cfg_rc, cfg_out
    local in=$1; shift
    local -a args
    mapfile -d '' args < <(cfg_args "$@")
    # stderr and stdout apart: written to one pipe, QMP's greeting on
    # stdout can land inside an error line on stderr (seen: "qemu-system-
    # x86_64:{"QMP": ...}" then the message on a line of its own)
    printf '%s' "$in" | timeout -k 5 60 "$FEMU_QEMU" -M q35 \
        -nodefaults -display none -machine accel=qtest -qtest null -S \
        -qmp stdio "${args[@]}" >"$cfg_tmp/qemu.out" 2>"$cfg_tmp/qemu.err"
    cfg_rc=$?
    cfg_out=$(cat "$cfg_tmp/qemu.err" "$cfg_tmp/qemu.out")
}

cfg_fail() {
    cfg_failed=$((cfg_failed + 1))
    echo "FAIL: $*"
    printf '%s\n' "$cfg_out" | grep -v '^{"' | sed 's/^/    | /' | head -5
}

refuse() { # refuse REGEX ARGS...
    local re=$1; shift
    cfg_rows=$((cfg_rows + 1))
    # quit at once if the row is (wrongly) accepted
    cfg_run '{"execute":"qmp_capabilities"}{"execute":"quit"}' "$@"
    local msg
    # match the message itself, not QEMU's "-device ARGS: " prefix that
    # repeats the options (it would name every property given)
    msg=$(printf '%s\n' "$cfg_out" | grep -v '^{"' | grep -m1 'qemu-system' |
          sed 's/^[^:]*: -device [^ ]*: //')
    if [ "$cfg_rc" -ne 1 ]; then
        cfg_fail "refuse [$*]: exit status $cfg_rc, expected 1"
    elif ! printf '%s\n' "$msg" | grep -Eq -- "$re"; then
        cfg_fail "refuse [$*]: message does not match /$re/"
    else
        echo "ok   refused  [$*]: $msg"
    fi
}

accept() { # accept ARGS...
    cfg_rows=$((cfg_rows + 1))
    cfg_run '{"execute":"qmp_capabilities"}{"execute":"quit"}' "$@"
    if [ "$cfg_rc" -ne 0 ]; then
        cfg_fail "accept [$*]: exit status $cfg_rc, expected 0"
    elif printf '%s\n' "$cfg_out" | grep -q '^qemu-system.*: -device'; then
        cfg_fail "accept [$*]: QEMU printed an error"
    else
        echo "ok   accepted [$*]"
    fi
}

finish() {
    echo "$((cfg_rows - cfg_failed)) of $cfg_rows rows as expected"
    [ "$cfg_failed" -eq 0 ]
}
