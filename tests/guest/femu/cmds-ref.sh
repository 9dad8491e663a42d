# Guest side of tests/guest/femu-cmds-ref.t: the optional NVM commands
# through nvme-cli on a BlackBox FEMU (serial ref0) and on QEMU's own nvme
# device (serial qemu0), both 512 B logical blocks; each command's NVMe
# status (0 for success) and the data read back must be the same on both:
# QEMU's nvme is the reference where both devices have a command.  Not
# compared: Write Uncorrectable (QEMU 10.0's nvme answers Invalid Opcode)
# and Copy (it answers nvme-cli 2.13's Copy of 8 blocks with Command Size
# Limit Exceeded, 0x4183, here); femu-commands.t checks them against the
# spec.
A=$(ctrl_of ref0) || { bad "no controller with SN ref0"; finish; exit; }
Q=$(ctrl_of qemu0) || { bad "no controller with SN qemu0"; finish; exit; }

# status CTRL CMD (with @N for the namespace): the NVMe status nvme-cli
# reports ("...(0x4285)" -> 0x4285; 0 on success; "rc N" on another error)
status() {
    local c=$1 out rc; shift
    out=$(eval "${*//@N//dev/${c}n1}" 2>&1); rc=$?
    if [ $rc = 0 ]; then echo 0; return; fi
    grep -o '(0x[0-9a-f]*)' <<<"$out" | head -1 | tr -d '()' | grep . || echo "rc $rc"
}
# same DESCRIPTION CMD: the command gives the same status on both
same() {
    local d=$1 a q; shift
    a=$(status "$A" "$*"); q=$(status "$Q" "$*")
    if [ "$a" = "$q" ]; then ok "$d: status $a on both"; else bad "$d: FEMU $a, QEMU nvme $q ($*)"; fi
}
# data CMD: the same bytes read back on both
data() {
    local d=$1 a q; shift
    a=$(eval "${*//@N//dev/${A}n1}" 2>/dev/null | sha256sum); q=$(eval "${*//@N//dev/${Q}n1}" 2>/dev/null | sha256sum)
    if [ "$a" = "$q" ]; then ok "$d: same data on both"; else bad "$d: data differ ($*)"; fi
}

head -c 4096 /dev/urandom >/tmp/w
head -c 4096 /tmp/w >/tmp/x; printf '\x55' | dd of=/tmp/x bs=1 seek=100 conv=notrunc 2>/dev/null
NS=$(( $(blockdev --getsz /dev/${A}n1) ))
QS=$(( $(blockdev --getsz /dev/${Q}n1) ))
check "both namespaces hold $NS blocks" [ "$NS" = "$QS" ]
END=$((NS - 1))

same "Write 8 blocks at 0" nvme write @N -s 0 -c 7 -z 4096 -d /tmp/w
same "Compare, equal" nvme compare @N -s 0 -c 7 -z 4096 -d /tmp/w
same "Compare, one byte off" nvme compare @N -s 0 -c 7 -z 4096 -d /tmp/x
same "Compare past the end" nvme compare @N -s $END -c 7 -z 4096 -d /tmp/w
same "Verify" nvme verify @N -s 0 -c 7
same "Verify past the end" nvme verify @N -s $END -c 7
same "Deallocate 0..7" nvme dsm @N --slbs=0 --blocks=8 --ad
same "Write Zeroes 100..107" nvme write-zeroes @N -s 100 -c 7
data "zeroed blocks" nvme read @N -s 100 -c 7 -z 4096 -d /dev/stdout
same "Read past the end" nvme read @N -s $END -c 1 -z 1024 -d /dev/null
same "Format with an LBA format index the namespace lacks" nvme format @N --lbaf=15 --force
