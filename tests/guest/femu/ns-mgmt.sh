# Guest side of tests/guest/femu-ns-mgmt.t.  Controller M: ns_mgmt=on,
# devsz_mb=192 (the FTL's logical space: TNVMCAP), namespace 1 of 64 MiB
# given at start; 128 MiB free.  512-byte blocks.
M=$(ctrl_of M) || { bad "no controller M"; finish; exit; }
C=/dev/$M
MiB=$((1024 * 1024))
idc() { nvme id-ctrl $C -o json | python3 -c "import sys,json; print(json.load(sys.stdin)['$1'])"; }
# st CODE CMD...: the command fails and nvme-cli prints NVMe status CODE
# (hex, with DNR: "...(0x4115)")
st() {
    local c=$1 out; shift
    if ! out=$("$@" 2>&1) && grep -qF -- "($c)" <<<"$out"; then
        ok "$* -> status $c"
    else
        bad "$* -> want status $c, got: $(head -c 300 <<<"$out")"
    fi
}
# the block device of namespace NSID (Linux numbers them in scan order)
nsdev() {
    local d
    for d in /sys/block/${M}n*; do
        [ -e "$d" ] && [ "$(cat $d/nsid)" = "$1" ] && { basename $d; return 0; }
    done
    return 1
}
# wait_ns NSID yes|no: up to 20 s for the namespace's block device to
# come (yes) or go (no)
wait_ns() {
    for _ in $(seq 100); do
        if nsdev $1 >/dev/null; then [ $2 = yes ] && return 0
        else [ $2 = no ] && return 0; fi
        sleep 0.2
    done
    return 1
}
listns() { nvme list-ns $C "$@" | grep -o '0x[0-9a-f]*' | tr '\n' ' '; }
# log page 04h without clearing it (RAE): the NSIDs in it
changed() { nvme get-log $C --log-id=4 --log-len=64 --rae -b | od -An -tu4 -v | tr -s ' ' '\n' | grep -v '^0*$' | tr '\n' ' '; }
CNTLID=$(idc cntlid)

check "OACS bit 3 (Namespace Management)" [ $(( $(idc oacs) & 8 )) = 8 ]
check "NN = 16" [ "$(idc nn)" = 16 ]
check "TNVMCAP = 192 MiB" [ "$(idc tnvmcap)" = $((192 * MiB)) ]
check "UNVMCAP = 128 MiB (namespace 1 holds 64)" [ "$(idc unvmcap)" = $((128 * MiB)) ]
check "namespace 1: NVMCAP 64 MiB" \
    [ "$(nvme id-ns $C -n 1 -o json | python3 -c 'import sys,json; print(json.load(sys.stdin)["nvmcap"])')" = $((64 * MiB)) ]
check "allocated list (CNS 10h): 1" [ "$(listns --all)" = "0x1 " ]
N1=$(nsdev 1)
check "fio crc32c write on namespace 1" \
    fio --name=n1 --filename=/dev/$N1 --rw=randwrite --bs=4k --direct=1 \
        --ioengine=libaio --iodepth=16 --size=16M --verify=crc32c \
        --verify_state_save=0 --output=/dev/null

# create a 32 MiB namespace: NSID 2, not attached yet
out=$(nvme create-ns $C --nsze=65536 --ncap=65536 --flbas=0 2>&1)
check "create-ns 32 MiB -> nsid 2 ($out)" grep -q 'nsid:2' <<<"$out"
check "UNVMCAP = 96 MiB" [ "$(idc unvmcap)" = $((96 * MiB)) ]
check "allocated list: 1 2" [ "$(listns --all)" = "0x1 0x2 " ]
check "active list: 1 (2 is not attached)" [ "$(listns)" = "0x1 " ]
check "Identify of allocated NSID 2 (CNS 11h): NSZE 65536" \
    [ "$(nvme id-ns $C -n 2 --force -o json | python3 -c 'import sys,json; print(json.load(sys.stdin)["nsze"])')" = 65536 ]
check "controller list of NSID 2 (CNS 12h): empty" \
    bash -c "nvme list-ctrl $C -n 2 | grep -q 'present: 0'"
check "controller list (CNS 13h): this controller" \
    bash -c "nvme list-ctrl $C | grep -q 'present: 1'"

# attach: Linux sees nvmeXn2 (rescan after the command's effects, and
# the notice); it reads log 04h on the notice, so the list is empty again
check "attach-ns 2" nvme attach-ns $C -n 2 -c $CNTLID
check "namespace 2 appears" wait_ns 2 yes
for _ in $(seq 50); do [ -z "$(changed)" ] && break; sleep 0.2; done
check "the notice came: Linux read log 04h (now empty: '$(changed)')" [ -z "$(changed)" ]
check "active list: 1 2" [ "$(listns)" = "0x1 0x2 " ]
N2=$(nsdev 2)
check "namespace 2 is 32 MiB" [ "$(cat /sys/block/$N2/size)" = 65536 ]
check "fio crc32c write + verify on namespace 2" \
    fio --name=n2 --filename=/dev/$N2 --rw=randwrite --bs=4k --direct=1 \
        --ioengine=libaio --iodepth=16 --size=16M --verify=crc32c \
        --verify_state_save=0 --output=/dev/null
check "NUSE of namespace 2 = 16 MiB" \
    [ "$(nvme id-ns $C -n 2 -o json | python3 -c 'import sys,json; print(json.load(sys.stdin)["nuse"])')" = 32768 ]

# misuse: each with the spec's status
st 0x4115 nvme create-ns $C --nsze=$((96 * 2048 + 1)) --ncap=$((96 * 2048 + 1)) --flbas=0
st 0x4118 nvme attach-ns $C -n 2 -c $CNTLID
st 0x411c nvme attach-ns $C -n 2 -c $((CNTLID + 7))
st 0x411c nvme attach-ns $C -n 2 -c $CNTLID,$CNTLID
st 0x410a nvme create-ns $C --nsze=2048 --ncap=2048 --flbas=1
st 0x4002 nvme create-ns $C --nsze=2048 --ncap=1024 --flbas=0
st 0x400b nvme delete-ns $C -n 5
st 0x400b nvme attach-ns $C -n 5 -c $CNTLID
st 0x400b nvme delete-ns $C -n 17

# detach: namespace 2 goes, its data stays; detach again is refused
check "detach-ns 2" nvme detach-ns $C -n 2 -c $CNTLID
check "namespace 2 goes away" wait_ns 2 no
check "active list: 1" [ "$(listns)" = "0x1 " ]
st 0x411a nvme detach-ns $C -n 2 -c $CNTLID
check "re-attach-ns 2" nvme attach-ns $C -n 2 -c $CNTLID
check "namespace 2 is back" wait_ns 2 yes
check "namespace 2 still verifies after detach + attach" \
    fio --name=n2 --filename=/dev/$(nsdev 2) --rw=randwrite --bs=4k --direct=1 \
        --ioengine=libaio --iodepth=16 --size=16M --verify=crc32c \
        --verify_only --verify_state_save=0 --output=/dev/null

# delete (attached: detached first): the capacity and the data are gone
check "delete-ns 2" nvme delete-ns $C -n 2
check "namespace 2 goes away after delete" wait_ns 2 no
check "UNVMCAP = 128 MiB again" [ "$(idc unvmcap)" = $((128 * MiB)) ]
check "allocated list: 1" [ "$(listns --all)" = "0x1 " ]
st 0x400b nvme delete-ns $C -n 2
st 0x400b nvme attach-ns $C -n 2 -c $CNTLID
out=$(nvme create-ns $C --nsze=65536 --ncap=65536 --flbas=0 2>&1)
check "create-ns again -> nsid 2 ($out)" grep -q 'nsid:2' <<<"$out"
check "attach-ns 2 again" nvme attach-ns $C -n 2 -c $CNTLID
check "the new namespace 2 appears" wait_ns 2 yes
check "the new namespace 2 has nothing mapped (NUSE 0)" \
    [ "$(nvme id-ns $C -n 2 -o json | python3 -c 'import sys,json; print(json.load(sys.stdin)["nuse"])')" = 0 ]
check "the new namespace 2 reads zeroes where the old one had data" \
    bash -c "dd if=/dev/$(nsdev 2) bs=1M count=16 iflag=direct 2>/dev/null | cmp -s - <(head -c $((16 * MiB)) /dev/zero)"
check "namespace 1 still verifies" \
    fio --name=n1 --filename=/dev/$N1 --rw=randwrite --bs=4k --direct=1 \
        --ioengine=libaio --iodepth=16 --size=16M --verify=crc32c \
        --verify_only --verify_state_save=0 --output=/dev/null

# NSIDs run out before the capacity: 1 MiB namespaces up to NSID 16
for i in $(seq 3 16); do nvme create-ns $C --nsze=2048 --ncap=2048 --flbas=0 >/dev/null 2>&1; done
check "16 namespaces allocated" [ "$(listns --all | wc -w)" = 16 ]
st 0x4116 nvme create-ns $C --nsze=2048 --ncap=2048 --flbas=0
# a hole between namespaces: 1 MiB frees at NSID 3, 2 MiB does not fit it
check "delete-ns 3" nvme delete-ns $C -n 3
check "delete-ns 16 (the last range)" nvme delete-ns $C -n 16
out=$(nvme create-ns $C --nsze=4096 --ncap=4096 --flbas=0 2>&1)
check "create-ns 2 MiB -> nsid 3 ($out)" grep -q 'nsid:3' <<<"$out"
check "delete-ns FFFFFFFFh deletes them all" nvme delete-ns $C -n 0xffffffff
check "namespace 1 goes away too" wait_ns 1 no
check "allocated list: empty" [ -z "$(listns --all)" ]
check "UNVMCAP = TNVMCAP" [ "$(idc unvmcap)" = $((192 * MiB)) ]
st 0x4115 nvme create-ns $C --nsze=$((192 * 2048 + 1)) --ncap=$((192 * 2048 + 1)) --flbas=0
out=$(nvme create-ns $C --nsze=$((192 * 2048)) --ncap=$((192 * 2048)) --flbas=0 2>&1)
check "create-ns of all 192 MiB -> nsid 1 ($out)" grep -q 'nsid:1' <<<"$out"
