# nvmecli-sweep.sh SERIAL [full|short]: runs (nearly) every nvme-cli
# command a user would try on the controller with serial SERIAL and prints
# each command, its output and its exit status.  Not a test: the output is
# read by a person (docs/device.md was made from it, and from the same
# sweep on QEMU's own nvme device).  tests/guest/femu-nvmecli.t asserts
# the results.  Usage (DESTRUCTIVE on devices that implement Format,
# Sanitize or namespace management, such as QEMU's nvme):
#   scripts/femu-run --append iomem=relaxed \
#     --file tests/guest/femu/nvmecli-sweep.sh:/root/sweep.sh \
#     -device femu,... -c 'bash /root/sweep.sh vSSD0 full'
set +e
C=
for c in /sys/class/nvme/nvme*; do [ "$(tr -d ' ' <$c/serial)" = "$1" ] && C=$(basename $c); done
MODE=${2:-full}
N=/dev/${C}n1; G=/dev/ng${C#nvme}n1; C=/dev/$C
echo "### sweep $1 -> $C $N $G mode=$MODE"
run() { echo "=== $*"; timeout 60 "$@" 2>&1 | head -c 20000; echo "--- rc=${PIPESTATUS[0]}"; }
# Set Features FID $1 to the value $2, then Get Features of that FID
setget() { run nvme set-feature $C -f $1 --value=$2; run nvme get-feature $C -f $1; }
if [ $MODE = full ]; then
run nvme version
run nvme help
run nvme list
run nvme list -v
run nvme list -o json
run nvme list-subsys
run nvme list-subsys -o json
fi
run nvme id-ctrl $C
run nvme id-ctrl $C -H
run nvme id-ctrl $C -o json
run nvme id-ns $N
run nvme id-ns $N -H
run nvme id-ns $C -n 1
run nvme id-ns $G
run nvme id-ns $C -n 2
run nvme id-ns $C -n 0xffffffff
run nvme list-ns $C
run nvme list-ns $C -a
run nvme list-ns $C --csi=0
run nvme list-ns $C --csi=0 -a
run nvme list-ns $C --csi=2
run nvme ns-descs $N
run nvme id-iocs $C
run nvme id-domain $C
run nvme nvm-id-ctrl $C
run nvme nvm-id-ns $N
run nvme nvm-id-ns-lba-format $N --lba-format-index=0
run nvme cmdset-ind-id-ns $N
run nvme id-nvmset $C
run nvme id-uuid $C
run nvme list-ctrl $C
run nvme primary-ctrl-caps $C
run nvme list-secondary $C
run nvme smart-log $C
run nvme smart-log $C -H
run nvme smart-log $C -o json
run nvme smart-log $C -n 1
run nvme smart-log $C -n 2
run nvme error-log $C
run nvme error-log $C -o json
run nvme fw-log $C
run nvme fw-log $C -o json
run nvme effects-log $C
run nvme effects-log $C --csi=0
run nvme effects-log $C -o json
run nvme effects-log $C -H
run nvme supported-log-pages $C
run nvme self-test-log $C
run nvme sanitize-log $C
run nvme changed-ns-list-log $C
run nvme endurance-log $C -g 1
run nvme telemetry-log $C -O /tmp/tel.bin
run nvme fid-support-effects-log $C
run nvme persistent-event-log $C
for f in 1 2 3 4 5 6 7 8 9 0xa 0xb 0xc 0xd 0xe 0xf 0x10 0x11 0x16 0x1d 0x1e 0x80 0x81; do
  for s in 0 1 2 3; do run nvme get-feature $C -f $f -s $s; done
  run nvme get-feature $C -f $f -H
done
run nvme get-feature $C -f 4 -c 0x10
run nvme get-feature $C -f 4 -c 0x100000
run nvme get-feature $C -f 9 -c 1
run nvme get-feature $C -f 9 -c 100
run nvme get-feature $C
run nvme set-feature $C -f 1 --value=0x03020103
run nvme get-feature $C -f 1 -H
run nvme set-feature $C -f 2 --value=0
run nvme set-feature $C -f 2 --value=1
setget 4 0x150
run nvme set-feature $C -f 4 --value=0x157
setget 5 0x10
run nvme get-feature $C -f 5 -n 1
setget 6 0
run nvme set-feature $C -f 6 --value=1
run nvme set-feature $C -f 7 --value=0x00030003
setget 8 0x0101
run nvme set-feature $C -f 8 --value=0
run nvme set-feature $C -f 9 --value=0x10001
setget 0xa 1
run nvme set-feature $C -f 0xa --value=0
setget 0xb 0x100
run nvme set-feature $C -f 0xb --value=0
run nvme set-feature $C -f 1 --value=0 --save
printf '\x40\x42\x0f\x00\x00\x00\xff\xff' >/tmp/ts.bin
run nvme set-feature $C -f 0xe --data=/tmp/ts.bin
run nvme get-feature $C -f 0xe -H
sleep 1
run nvme get-feature $C -f 0xe -H
printf '\x00\x00\x00\x00\x00\x00\x00\x00' >/tmp/ts0.bin
run nvme set-feature $C -f 0xe --data=/tmp/ts0.bin
run nvme get-feature $C -f 0xe -H
head -c 512 /dev/zero >/tmp/hbs.bin; printf '\x01' | dd of=/tmp/hbs.bin conv=notrunc 2>/dev/null
run nvme set-feature $C -f 0x16 --data=/tmp/hbs.bin
run nvme get-feature $C -f 0x16 -H
run nvme set-feature $C -f 0xc --value=0
run nvme set-feature $C -f 3 --value=0
run nvme get-log $C --log-id=2 --log-len=512 -b -o normal
run nvme get-log $C --log-id=2 --log-len=4
run nvme get-log $C --log-id=2 --log-len=3
run nvme get-log $C --log-id=2 --log-len=8 --lpo=4
run nvme get-log $C --log-id=2 --log-len=8 --lpo=3
run nvme get-log $C --log-id=2 --log-len=8 --lpo=512
run nvme get-log $C --log-id=2 --log-len=8 --lpo=516
run nvme get-log $C --log-id=3 --log-len=512
run nvme get-log $C --log-id=5 --log-len=4096 --lpo=1024
run nvme get-log $C --log-id=0x04 --log-len=512
run nvme get-log $C --log-id=0x06 --log-len=564
run nvme get-log $C --log-id=0x0d --log-len=512
run nvme get-log $C --log-id=0x7f --log-len=512
run nvme get-log $C --log-id=0xc0 --log-len=512 --lpo=4
run nvme get-log $C --log-id=0xc2 --log-len=512
run nvme get-log $C --log-id=2 --log-len=512 --rae
run nvme get-log $C --log-id=2 --log-len=512 --lsp=1
run nvme get-log $C --log-id=2 --log-len=512 --csi=2
run nvme get-log $C --log-id=2 --log-len=512 -n 2
run nvme device-self-test $C -s 1
run nvme device-self-test $C -s 0xf
run nvme sanitize $C -a 2
run nvme flush $N
run nvme flush $C -n 1
run nvme flush $C -n 0xffffffff
run nvme flush $C -n 5
dd if=/dev/urandom of=/tmp/w bs=16k count=1 2>/dev/null
BS=$(cat /sys/block/${N#/dev/}/queue/logical_block_size)
run nvme write $N -s 0 -c 0 -z $BS -d /tmp/w
run nvme read $N -s 0 -c 0 -z $BS -d /tmp/r
cmp -n $BS /tmp/w /tmp/r && echo "read back equal"
run nvme write $N -s 8 -c 3 -z $((4*BS)) -d /tmp/w
run nvme read $N -s 8 -c 3 -z $((4*BS)) -d /tmp/r
cmp -n $((4*BS)) /tmp/w /tmp/r && echo "read back 4 equal"
run nvme write $N -s 0 -c 0 -z $BS -d /tmp/w -y 8 -M /tmp/w
run nvme write-zeroes $N -s 8 -c 3
rm -f /tmp/r; run nvme read $N -s 8 -c 0 -z $BS -d /tmp/r
od -An -tx1 /tmp/r | sort -u | head -3
run nvme write-zeroes $N -s 8 -c 3 --deac
run nvme dsm $N --ad -s 0 -b 8
run nvme dsm $N -d -s 0,100 -b 8,8
run nvme dsm $N --idr -s 0 -b 8
run nvme id-ns $N -o json
run nvme ns-descs $N -o json
run nvme compare $N -s 0 -c 0 -z $BS -d /tmp/w
run nvme verify $N -s 0 -c 0
run nvme write-uncor $N -s 0 -c 0
run nvme copy $N --sdlba=100 --slbs=0 --blocks=0
run nvme resv-report $N
run nvme resv-acquire $N --crkey=0 --rtype=1 --racqa=0
run nvme get-lba-status $N -s 0 -m 1 -a 2
run nvme security-recv $C --size=16
run nvme lockdown $C --ofi=0 --ifc=0 --prhbt=0 --scp=0
run nvme dir-receive $C -n 1 -D 0 -O 1 -H
run nvme show-regs $C
run nvme show-regs $C -H
run nvme show-regs $C -o json
run nvme get-property $C -O 0
run nvme get-property $C -O 0 -H
run nvme get-property $C -O 8
run nvme get-property $C -O 0x14
run nvme get-property $C -O 0x1c -H
run nvme io-passthru $N --opcode=0x7f --namespace-id=1
run nvme io-passthru $N --opcode=0x7f --namespace-id=1 --data-len=512 --read
run nvme admin-passthru $C --opcode=0xc5
run nvme admin-passthru $C --opcode=0xc5 --data-len=512 --read
run nvme admin-passthru $C --opcode=0x06 --cdw10=1 --data-len=4096 --read
run nvme admin-passthru $C --opcode=0x06 --cdw10=0x7 --data-len=4096 --read
run nvme get-ns-id $N
run nvme show-topology
# namespace management last: on QEMU's nvme it detaches the namespace,
# which the I/O commands above need
run nvme format $N --lbaf=0 --force
run nvme format $N --lbaf=1 --force
dd if=/dev/zero of=/tmp/fw.bin bs=4096 count=1 2>/dev/null
run nvme fw-download $C --fw=/tmp/fw.bin
run nvme fw-commit $C -s 1 -a 1
run nvme fw-commit $C -s 2 -a 0
run nvme create-ns $C --nsze=1000 --ncap=1000 --flbas=0
run nvme attach-ns $C -n 1 -c 0
run nvme detach-ns $C -n 1 -c 0
run nvme delete-ns $C -n 1
run nvme ns-rescan $C
run nvme reset $C
sleep 1
cat /sys/class/nvme/${C#/dev/}/state
run nvme subsystem-reset $C
sleep 2
cat /sys/class/nvme/${C#/dev/}/state
run nvme id-ctrl $C
run nvme list
dmesg | tail -20
true
