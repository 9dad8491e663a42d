#!/bin/bash
# scripts/femu-run reports what happened: the job's exit status (0 and 3),
# for a script with arguments and for an inline -c command, with --file and
# --env delivered into the guest; and QEMU's own status: a QEMU that fails or
# crashes makes the runner fail (125) even when the job succeeded, and
# --expect-qemu-exit accepts an expected failure.
# Two guest boots; the QEMU-failure cases need no boot.
. "$(dirname "$0")/lib.sh"
require_qemu
d=$(scratch)

# ---- 1. a script with arguments, files and environment; exits 0
cat >"$d/job.sh" <<'EOF'
echo "args:$#:$1:$2"
echo "user:$(id -u) cwd:$PWD"
echo "data:$(cat data.txt):$(cat /opt/extra/conf.txt)"
echo "env:$GREETING"
printf 'tree:'; ls /root/tdir | tr '\n' ' '; echo
exit 0
EOF
echo "from-the-host" >"$d/data.txt"
echo "conf-file" >"$d/conf.txt"
mkdir -p "$d/tdir/sub" && echo x >"$d/tdir/a" && echo y >"$d/tdir/sub/b"
femu_run_expect 0 --timeout 300 --file "$d/data.txt" --file "$d/conf.txt:/opt/extra/conf.txt" \
    --file "$d/tdir" --env 'GREETING=hello world' --script "$d/job.sh" 'first arg' second
expect_out '^args:2:first arg:second$' "script arguments not passed verbatim"
expect_out '^user:0 cwd:/root$' "job does not run as root in /root"
expect_out '^data:from-the-host:conf-file$' "--file did not deliver the files"
expect_out '^env:hello world$' "--env not set"
expect_out '^tree:a sub $' "--file did not copy a directory"
expect_err 'femu-run: status job=0 qemu=0 ' "no parsable status line"
echo "ok: script with args/files/env exits 0"

# ---- 2. an inline command that fails with 3; its output still streams
femu_run_expect 3 --timeout 300 -c 'echo "inline $1"; echo to-stderr >&2; exit 3' arg1
expect_out '^inline arg1$' "inline command output missing"
expect_out '^to-stderr$' "the job's stderr is not on the console"
expect_err 'femu-run: status job=3 qemu=0 ' "status line does not show job=3"
# nothing but the job's own output on stdout (no kernel or firmware noise)
[ "$(cat "$FEMU_OUT")" = "$(printf 'inline arg1\nto-stderr')" ] ||
    { cat -A "$FEMU_OUT"; fail "stdout holds more than the job's output"; }
echo "ok: -c exits 3"

# ---- 3. QEMU's own status. A QEMU that refuses its arguments exits 1 before
# any guest runs: the runner must fail, unless that was expected.
femu_run_expect 125 --timeout 120 -device no-such-device-femu-test -c 'exit 0'
expect_err 'QEMU exited with status 1' "runner did not report QEMU's failure"
femu_run_expect 0 --timeout 120 --expect-qemu-exit 1 -device no-such-device-femu-test -c 'exit 0'
echo "ok: QEMU failure reported, --expect-qemu-exit honoured"

# A QEMU that crashes after the job passed (a device assertion at power-off,
# say). A wrapper plays that QEMU: it writes the guest's "job exited 0"
# record to the status channel the runner set up, then aborts.
cat >"$d/crashing-qemu" <<'EOF'
#!/bin/bash
for a in "$@"; do
    case $a in *id=femu-status,path=*) path=${a##*path=} ;; esac
done
[ -n "$path" ] || exit 99
printf 'femu-start 1.0\nfemu-exit 0\n' >"$path"
echo "job output"
kill -ABRT $$
EOF
chmod +x "$d/crashing-qemu"
FEMU_OUT=$d/crash.out FEMU_ERR=$d/crash.err
"$RUNNER" --qemu "$d/crashing-qemu" --accel tcg -c 'exit 0' >"$FEMU_OUT" 2>"$FEMU_ERR"
rc=$?
[ $rc = 125 ] || { cat "$FEMU_OUT" "$FEMU_ERR"; fail "QEMU crash after a passing job: runner exited $rc, expected 125"; }
expect_err 'QEMU was killed by signal 6' "runner did not name the crash"
expect_err 'status job=0 qemu=134 ' "status line does not show job=0 qemu=134"
echo "ok: QEMU crash after a passing job fails the run"

# ---- 4. usage errors are not mistaken for job results
femu_run_expect 126 --timeout 10 -device nvme
expect_err 'no job' "missing job not reported"
"$RUNNER" --qemu "$d/does-not-exist" -c true >/dev/null 2>&1
[ $? = 127 ] || fail "missing QEMU binary: expected exit 127"
echo "ok: usage errors"
echo PASS
