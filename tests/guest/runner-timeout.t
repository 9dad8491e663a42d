#!/bin/bash
# A job that runs past --timeout: the runner kills QEMU and exits 124 soon
# after the limit, with a message, and leaves no QEMU behind.
. "$(dirname "$0")/lib.sh"
require_qemu

# 40 s leaves room for a boot on a loaded 2-core machine (about 10 s idle);
# the job prints a line first, so the test knows it really ran.
limit=40
name=femu-timeout-test-$$
t0=$(date +%s)
femu_run_expect 124 --timeout $limit -name "$name" -c 'echo job-started; sleep 3600; echo never'
t1=$(date +%s)
expect_out '^job-started$' "the job did not start before the timeout"
grep -q '^never$' "$FEMU_OUT" && fail "the job ran to its end"
expect_err "timeout: .*within $limit s" "no timeout message"
# Killing QEMU takes at most a few seconds; 30 s of slack covers a loaded host.
[ $((t1 - t0)) -le $((limit + 30)) ] || fail "runner took $((t1 - t0)) s for a $limit s timeout"
sleep 1
command -v pgrep >/dev/null || fail "pgrep not found (Debian package procps): cannot check for a QEMU left behind"
if pgrep -f -- "-name $name" >/dev/null; then
    fail "QEMU ($name) still running after the timeout"
fi
echo "ok: timeout after $((t1 - t0)) s, exit 124"
echo PASS
