# Guest side of tests/guest/fdp-ns.t.  Controller F: fdp.nruh=4 (8 MiB
# reclaim units of 16384 512-byte blocks), two BlackBox namespaces of
# 192 MiB in its one endurance group, both with every handle.
F=$(ctrl_of F) || { bad "no controller F"; finish; exit; }
nsdev() {
    local d
    for d in /sys/block/${1}n*; do
        [ "$(cat $d/nsid)" = "$2" ] && { basename $d; return; }
    done
}
N1=/dev/$(nsdev $F 1) N2=/dev/$(nsdev $F 2)
has() { grep -Eq -- "$2" <<<"$1"; }
failed() { [ "$1" != 0 ] && grep -Eq -- "$3" <<<"$2"; }
# ruamw DEV PID -> RUAMW of that placement id (nvme fdp status)
ruamw() {
    nvme fdp status "$1" | awk -v p="$2" '/^Placement Identifier/ {cur = $3 + 0}
        /RUAMW/ && cur == p {print $NF}'
}
allruamw() { echo $(ruamw $1 0) $(ruamw $1 1) $(ruamw $1 2) $(ruamw $1 3); }
stats22() { nvme get-log /dev/$F --log-id=0x22 --lsi=1 --log-len=32 -b | od -An -tu8 -w32 | awk '{print $1}'; }
dd if=/dev/urandom of=/tmp/blk bs=4096 count=1 2>/dev/null

check "two namespaces" [ "$(ls -d /sys/block/${F}n* | wc -l)" = 2 ]
check "id-ctrl: ctratt 0x80010, endgidmax 1" \
    bash -c "nvme id-ctrl /dev/$F | grep -q '^ctratt *: 0x80010$' && nvme id-ctrl /dev/$F | grep -q '^endgidmax *: 1$'"
for d in $N1 $N2; do
    check "id-ns $d: endgid 1" has "$(nvme id-ns $d)" "^endgid +: 1$"
done
cfg=$(nvme fdp configs /dev/$F -e 1)
check "configs: 4 handles, 1 reclaim group, 8 MiB units" \
    bash -c "grep -q '^Number of Reclaim Unit Handles: 4$' <<<'$cfg' && grep -q '^Number of Reclaim Groups: 1$' <<<'$cfg' && grep -q '^Reclaim Unit Nominal Size: 8388608$' <<<'$cfg'"
use=$(nvme fdp usage /dev/$F -e 1); echo "$use"
check "usage: 4 handles host specified" [ "$(grep -c 'Attributes: 0x1 (Host Specified)' <<<"$use")" = 4 ]
for d in $N1 $N2; do
    st=$(nvme fdp status $d)
    check "status $d: placement ids 0-3 are handles 0-3" \
        [ "$(awk '/^Placement Identifier/ {p = $3 + 0} /Reclaim Unit Handle Identifier/ {printf "%s:%s ", p, $NF}' <<<"$st")" = "0:0 1:1 2:2 3:3 " ]
    check "status $d: all fresh (RUAMW 16384)" [ "$(allruamw $d)" = "16384 16384 16384 16384" ]
done

# --- the handles are shared: a write through pid 2 on either namespace
# takes blocks from the same reclaim unit, both namespaces see it
h0=$(stats22)
nvme write $N1 -s 0 -c 7 -z 4096 -d /tmp/blk -T 2 -S 2 >/dev/null
check "write pid 2 on ns 1: RUAMW 16376 seen from ns 1 and ns 2" \
    [ "$(ruamw $N1 2) $(ruamw $N2 2)" = "16376 16376" ]
nvme write $N2 -s 0 -c 7 -z 4096 -d /tmp/blk -T 2 -S 2 >/dev/null
check "write pid 2 on ns 2: the same unit, RUAMW 16368 from both" \
    [ "$(ruamw $N1 2) $(ruamw $N2 2)" = "16368 16368" ]
check "pids 0, 1, 3 untouched" [ "$(ruamw $N2 0) $(ruamw $N2 1) $(ruamw $N2 3)" = "16384 16384 16384" ]
h1=$(stats22)
check "log 22h: HBMW counts both namespaces' 8 KiB" [ $((h1 - h0)) = 8192 ]
check "data of ns 1 and ns 2 at LBA 0 are each their own" \
    bash -c "nvme read $N1 -s 0 -c 7 -z 4096 -d /tmp/r1 >/dev/null && nvme read $N2 -s 0 -c 7 -z 4096 -d /tmp/r2 >/dev/null && cmp -s /tmp/r1 /tmp/blk && cmp -s /tmp/r2 /tmp/blk"

# --- events name the namespace
nvme write $N2 -s 8 -c 7 -z 4096 -d /tmp/blk -T 2 -S 9 >/dev/null
check "invalid pid 9 on ns 2: written through handle 0" [ "$(ruamw $N1 0)" = 16376 ]
ev=$(nvme fdp events /dev/$F -e 1 -E); echo "$ev"
check "event: invalid placement identifier 0x9, NSID 2, handle 0" has "$(tr '\n' ' ' <<<"$ev")" \
    "Event Type: 0x3 \(Invalid Placement Identifier\).*Placement Identifier \(PID\): 0x9.*Namespace Identifier \(NSID\): 2 +Reclaim Group Identifier: 0 +Reclaim Unit Handle Identifier 0"
nvme write $N1 -s 16 -c 7 -z 4096 -d /tmp/blk -T 2 -S 7 >/dev/null
ev=$(nvme fdp events /dev/$F -e 1 -E)
check "event: invalid pid 0x7 on ns 1 names NSID 1" has "$(tr '\n' ' ' <<<"$ev")" \
    "Placement Identifier \(PID\): 0x7 .*Namespace Identifier \(NSID\): 1 "
check "update -p 2 on ns 2: Success" has "$(nvme fdp update $N2 -p 2)" "update: Success"
check "update: pid 2 fresh again, from both namespaces" [ "$(ruamw $N1 2) $(ruamw $N2 2)" = "16384 16384" ]
ev=$(nvme fdp events /dev/$F -e 1 -E)
check "event: RU not fully written, pid 2, NSID 2" has "$(tr '\n' ' ' <<<"$ev")" \
    "Event Type: 0 \(Reclaim Unit Not Fully Written\) .*Placement Identifier \(PID\): 0x2 .*Namespace Identifier \(NSID\): 2 "
check "feature 1Eh on namespace 2" \
    has "$(nvme get-feature /dev/$F -f 0x1e --namespace-id=2 --cdw11=0x20001 -H)" "Invalid Placement Identifier +: Enabled"
out=$(nvme get-feature /dev/$F -f 0x1e --namespace-id=3 --cdw11=0x20001 2>&1); rc=$?
check "feature 1Eh on namespace 3 (none): Invalid Namespace" failed $rc "$out" "\(0x(40)?0?b\)$|[Ii]nvalid [Nn]amespace"
check "dir-receive on namespace 2: Data Placement supported" \
    has "$(nvme dir-receive $N2 -D 0 -O 1 -H 2>&1)" "Data Placement Directive : supported"

# --- fio with fdp=1 on each namespace, crc32c verify; the 4 MiB each
# goes through ids 0 and 1, which are the same two reclaim unit handles
nvme fdp update $N1 -p 0,1 >/dev/null
b0=$(allruamw $N1) s0=$(stats22)
for i in 1 2; do
    ng=/dev/$(nsdev $F $i | sed 's/^nvme/ng/')
    fio --name=fdpns$i --filename=$ng --ioengine=io_uring_cmd --cmd_type=nvme \
        --fdp=1 --fdp_pli=0,1 --rw=randwrite --bs=4k --size=4M --offset=$((i * 16))M --iodepth=8 \
        --verify=crc32c --verify_fatal=1 --output=/tmp/fio$i.out
    rc=$?; tail -3 /tmp/fio$i.out
    check "fio io_uring_cmd --fdp=1 --fdp_pli=0,1 verify on namespace $i" [ $rc = 0 ]
done
a=$(allruamw $N1); echo "RUAMW before fio: $b0; after: $a (ns 2 reads: $(allruamw $N2))"
check "ns 1 and ns 2 report the same RUAMW for every handle" [ "$a" = "$(allruamw $N2)" ]
read -r p0 p1 p2 p3 <<<"$b0"; read -r q0 q1 q2 q3 <<<"$a"
check "fio: ids 0 and 1 took both namespaces' 16384 blocks (8 MiB), 2 and 3 none" \
    [ "$(( (p0 - q0) + (p1 - q1) )) $p2 $p3" = "16384 $q2 $q3" ]
s1=$(stats22)
check "log 22h: HBMW up by both namespaces' 8 MiB" [ $((s1 - s0)) = 8388608 ]
st=$(nvme fdp stats /dev/$F -e 1); echo "$st"
check "nvme fdp stats: HBMW $s1" [ "$(grep '(HBMW)' <<<"$st" | tr -d , | awk '{print $NF}')" = "$s1" ]
