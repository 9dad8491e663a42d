#!/bin/bash
# scripts/run-blackbox.sh and scripts/run-guest-ssh.sh without an OS image:
# the QEMU command line they build, QEMU's acceptance of the 12 GiB SSD
# (started paused with -S, nothing boots), refusals, and the SSH helper's
# wait and exit status when no guest answers.
. "$(dirname "$0")/../guest/lib.sh"
require_qemu
BB=$FEMU_ROOT/scripts/run-blackbox.sh SSH=$FEMU_ROOT/scripts/run-guest-ssh.sh
d=$(scratch)
img=$d/os.raw
truncate -s 1M "$img"
export QEMU

# without OSIMGF: a message saying what to set
out=$(env -u OSIMGF "$BB" --check 2>&1) && fail "ran without OSIMGF"
grep -q 'set OSIMGF' <<<"$out" || fail "no OSIMGF hint: $out"

# the command line: the 12 GiB device, SSH on $SSH_PORT, named threads
cmd=$(OSIMGF=$img SSH_PORT=10022 ACCEL=tcg "$BB" --dry-run) || fail "--dry-run failed"
echo "$cmd"
for want in 'devsz_mb=12288' 'femu_mode=1' 'hostfwd=tcp:127.0.0.1:10022-:22' \
            '-name femu,debug-threads=on' "file=$img,if=virtio,format=raw" '-accel tcg'; do
    grep -qF -- "$want" <<<"$cmd" || fail "--dry-run lacks '$want'"
done

# --check starts QEMU (paused), which binds the forwarded port: use one that
# nothing listens on, so a guest running on the default 8080 (a user's, or
# one started by hand) does not make the check fail
for _ in $(seq 1 50); do
    cport=$((20000 + RANDOM % 20000))
    (exec 3<>/dev/tcp/127.0.0.1/$cport) 2>/dev/null || break
done
export SSH_PORT=$cport
# QEMU accepts the device and realizes it (paused, nothing boots)
out=$(OSIMGF=$img ACCEL=tcg "$BB" --check 2>&1) || fail "QEMU refused the 12 GiB SSD: $out"
echo "$out"
# the same device in the embedded guest's view is checked by
# tests/guest; here: a namespace QEMU must refuse names the property
out=$(OSIMGF=$img ACCEL=tcg FEMU_OPTS=devsz_mb=16384 "$BB" --check 2>&1) &&
    fail "a 16 GiB namespace on 16 GiB of NAND was accepted"
grep -q 'devsz_mb' <<<"$out" || fail "refusal does not name devsz_mb: $out"
out=$(OSIMGF=$img ACCEL=tcg FEMU_OPTS=gc_policy=cost-benefit,hot_cold_sep=on "$BB" --check 2>&1) ||
    fail "FEMU_OPTS with a policy and hot_cold_sep refused: $out"
# FEMU_SUBSYS (tutorial 04 in your own guest): the subsystem goes before
# the controller that names it, or QEMU refuses the controller
cmd=$(OSIMGF=$img ACCEL=tcg FEMU_SUBSYS=fdp=on,fdp.nruh=2 "$BB" --dry-run) ||
    fail "--dry-run with FEMU_SUBSYS failed"
[[ $cmd =~ -device\ femu-subsys,id=fdp0,fdp=on,fdp.nruh=2\ -device\ femu,[^\ ]*,subsys=fdp0[,\ ] ]] ||
    fail "FEMU_SUBSYS: no femu-subsys before a femu with subsys=fdp0: $cmd"
fdpdev=nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25,gc_thres_pcent=95
out=$(OSIMGF=$img ACCEL=tcg FEMU_SUBSYS=fdp=on,fdp.nruh=2 FEMU_OPTS=$fdpdev "$BB" --check 2>&1) ||
    fail "tutorial 04's device with FEMU_SUBSYS refused: $out"
echo "$out"
out=$(OSIMGF=$img ACCEL=tcg FEMU_SUBSYS=fdp=on,fdp.nruh=0 "$BB" --check 2>&1) &&
    fail "FEMU_SUBSYS=fdp=on,fdp.nruh=0 accepted"
grep -q 'fdp.nruh=0' <<<"$out" || fail "refusal does not name fdp.nruh: $out"
out=$(OSIMGF=$img SSH_PORT=abc "$BB" --dry-run 2>&1) && fail "SSH_PORT=abc accepted"
unset SSH_PORT

# run-guest-ssh.sh: no guest on the port -> exit 255 after WAIT seconds
port=$((20000 + RANDOM % 20000))
t0=$SECONDS
SSH_PORT=$port WAIT=2 "$SSH" true >/dev/null 2>&1; rc=$?
[ $rc = 255 ] || fail "run-guest-ssh.sh without a guest exited $rc, want 255"
[ $((SECONDS - t0)) -ge 2 ] || fail "run-guest-ssh.sh did not wait"
echo "run-blackbox.sh / run-guest-ssh.sh: all checks passed"
