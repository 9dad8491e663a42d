# Sourced by blackbox-os.t, blackbox-fdp.t and tut01-cmdline.t, after
# ../guest/lib.sh: boot a Debian OS image of scripts/guest/build-os-image.sh
# with scripts/run-blackbox.sh, as docs/quick-start.md tells a user to (or
# with a QEMU command line of the test's own), and power it off again.
#
# os_image_require SUITE  skip (77) unless a current image is built in
#                         ~/.cache/femu/os-image/SUITE, or
#                         FEMU_OS_IMAGE_TESTS=1 (then build it); needs ssh
#                         and scp; sources the image's env (OSIMGF,
#                         OSIMGFMT, GUEST_USER, SSH_OPTS)
# os_image_boot [CMD...]  pick a free port (exported as SSH_PORT), start
#                         CMD in the background (default: run-blackbox.sh
#                         -snapshot: the cached image is not changed;
#                         FEMU_OPTS / FEMU_SUBSYS as the caller exported
#                         them), wait for an SSH login ($BOOT_WHAT names
#                         the boot in the message); sets qpid, log, SSH, t0
#                         and boot (s)
# os_image_poweroff       power off from inside; QEMU must exit 0
#
# Boots with one vCPU: a 2-vCPU TCG boot of the trixie image once hung with
# CPU 1's timer never firing ("rcu_preempt kthread timer wakeup didn't
# happen ... cpu=1") until the SSH wait ran out (docs/before-you-start.md).

os_image_require() {
    local suite=$1 cache=${FEMU_CACHE_DIR:-$HOME/.cache/femu} t why
    IMG=$cache/os-image/$suite
    # a missing image, or one an older build-os-image.sh made, is not used
    if ! why=$("$FEMU_ROOT/scripts/guest/build-os-image.sh" --suite "$suite" --cached 2>&1); then
        if [ "${FEMU_OS_IMAGE_TESTS:-0}" != 1 ]; then
            echo "skip: ${why#build-os-image: } (scripts/guest/build-os-image.sh --suite $suite, or FEMU_OS_IMAGE_TESTS=1)"
            exit 77
        fi
        "$FEMU_ROOT/scripts/guest/build-os-image.sh" --suite "$suite" ||
            fail "building the $suite OS image failed"
    fi
    for t in ssh scp; do
        command -v $t >/dev/null ||
            { echo "skip: no $t client (apt-get install openssh-client)"; exit 77; }
    done
    # shellcheck disable=SC1091
    . "$IMG/env"
}

os_image_boot() {
    local d p port=""
    d=$(scratch)
    log=$d/console.log
    # a free port: bind-test a few random ones
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        p=$((20000 + RANDOM % 30000))
        if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then port=$p; break; fi
    done
    [ -n "$port" ] || fail "no free TCP port found"
    export SSH_PORT=$port QEMU ACCEL=tcg MEM=${FEMU_OS_IMAGE_MEM:-1G} SMP=${FEMU_OS_IMAGE_SMP:-1}
    local what=${BOOT_WHAT:-TCG, MEM=$MEM, SMP=$SMP}
    [ $# -gt 0 ] || set -- "$FEMU_ROOT/scripts/run-blackbox.sh" -snapshot
    t0=$SECONDS
    "$@" </dev/null >"$log" 2>&1 &
    qpid=$!
    trap 'kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null; rm -rf "$_femu_scratch"' EXIT
    SSH=$FEMU_ROOT/scripts/run-guest-ssh.sh
    # a full Debian with systemd under TCG on a shared 2-core host: 45-87 s
    # measured (docs/quick-start.md); 900 s leaves room for load
    WAIT=900 "$SSH" true || { tail -40 "$log"; fail "no SSH login within 900 s"; }
    boot=$((SECONDS - t0))
    echo "booted to an SSH login in $boot s ($what)"
    kill -0 "$qpid" 2>/dev/null || fail "QEMU is gone"
}

os_image_poweroff() {
    local qrc
    WAIT=0 "$SSH" sudo systemctl poweroff >/dev/null 2>&1 || true
    for _ in $(seq 1 300); do kill -0 "$qpid" 2>/dev/null || break; sleep 1; done
    kill -0 "$qpid" 2>/dev/null && { tail -20 "$log"; fail "QEMU still runs 300 s after poweroff"; }
    wait "$qpid"; qrc=$?
    trap 'rm -rf "$_femu_scratch"' EXIT
    [ $qrc = 0 ] || { tail -20 "$log"; fail "QEMU exited $qrc after the guest powered off"; }
}
