# Guest side of tests/guest/femu-commands.t: the optional NVM commands
# with nvme-cli on a BlackBox SSD (vSSD0: 512 B blocks): Compare, Verify,
# Write Uncorrectable, Copy, DULBE, and the error log and SMART entries
# of a media error; vSSD1 (err_read_unc_ppm=1000000) fails every read.
A=$(ctrl_of vSSD0) || { bad "no controller with SN vSSD0"; finish; exit; }
C=/dev/$A N=/dev/${A}n1

# st CODE CMD...: the command fails and nvme-cli prints the NVMe status
# CODE (hex, with DNR, as nvme-cli shows it: "...(0x4285)")
st() {
    local c=$1 out; shift
    if ! out=$("$@" 2>&1) && grep -qF -- "($c)" <<<"$out"; then
        ok "$* -> status $c"
    else
        bad "$* -> want status $c, got: $(head -c 400 <<<"$out")"
    fi
}
# js EXPR CMD...: the command prints JSON j for which EXPR is true
js() {
    local e=$1 out; shift
    if out=$("$@" 2>&1) &&
       python3 -c 'import sys, json; j = json.loads(sys.argv[2]); sys.exit(0 if eval(sys.argv[1]) else 1)' "$e" "$out"; then
        ok "$* : $e"
    else
        bad "$* : $e; got: $(head -c 600 <<<"$out")"
    fi
}
# quiet CMD...: run it, its output to the log only on failure
quiet() {
    local out
    out=$("$@" 2>&1) || { echo "$out" | head -5; return 1; }
}
sum() { sha256sum "$1" | cut -d' ' -f1; }

# Identify: ONCS Compare, Write Uncorrectable, Verify, Copy; OCFS format 0;
# the Copy limits (MDTS 512 KiB = 1024 blocks, 128 ranges)
js '(j["oncs"] & 0x183) == 0x183 and j["ocfs"] == 1' nvme id-ctrl $C -o json
js 'j["mssrl"] == 1024 and j["mcl"] == 1024 and j["msrc"] == 127' nvme id-ns $N -o json

# --- Compare
dd if=/dev/urandom of=/tmp/w bs=4k count=1 2>/dev/null
check "write 8 blocks at LBA 0" quiet nvme write $N -s 0 -c 7 -z 4096 -d /tmp/w
check "compare of the same data succeeds" quiet nvme compare $N -s 0 -c 7 -z 4096 -d /tmp/w
cp /tmp/w /tmp/x
python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(4000); b = f.read(1); f.seek(4000); f.write(bytes([b[0] ^ 0xff]))' /tmp/x
st 0x4285 nvme compare $N -s 0 -c 7 -z 4096 -d /tmp/x
st 0x4080 nvme compare $N -s $(( $(cat /sys/block/${A}n1/size) - 1 )) -c 1 -z 1024 -d /tmp/w

# --- Verify
check "verify of written blocks succeeds" quiet nvme verify $N -s 0 -c 7
st 0x4080 nvme verify $N -s $(cat /sys/block/${A}n1/size) -c 0

# --- Write Uncorrectable: reads fail until the blocks are written again
media0=$(nvme smart-log $C -o json | python3 -c 'import sys, json; print(json.load(sys.stdin)["media_errors"])')
check "write-uncor of block 3" quiet nvme write-uncor $N -s 3 -c 0
st 0x281 nvme read $N -s 0 -c 7 -z 4096 -d /tmp/r
js "j['errors'][0]['status_field'] == 0x281 and j['errors'][0]['lba'] == 3 and j['errors'][0]['nsid'] == 1 and 1 <= j['errors'][0]['sqid']" \
    nvme error-log $C -o json
st 0x281 nvme verify $N -s 0 -c 7
check "blocks 0-2 still read" quiet nvme read $N -s 0 -c 2 -z 1536 -d /tmp/r
js "j['media_errors'] == $media0 + 2" nvme smart-log $C -o json
dd if=/dev/urandom of=/tmp/w bs=4k count=1 2>/dev/null
check "rewrite blocks 0-7" quiet nvme write $N -s 0 -c 7 -z 4096 -d /tmp/w
rm -f /tmp/r
check "read after the rewrite succeeds" quiet nvme read $N -s 0 -c 7 -z 4096 -d /tmp/r
check "and returns the new data" cmp /tmp/w /tmp/r

# --- Copy: one range, then two, read back by checksum
check "copy blocks 0-7 to 1000" quiet nvme copy $N --sdlba=1000 --slbs=0 --blocks=7
rm -f /tmp/r
check "read blocks 1000-1007" quiet nvme read $N -s 1000 -c 7 -z 4096 -d /tmp/r
check "copy of 1 range: checksum $(sum /tmp/r) = source's $(sum /tmp/w)" [ "$(sum /tmp/r)" = "$(sum /tmp/w)" ]
dd if=/dev/urandom of=/tmp/w2 bs=8k count=1 2>/dev/null
check "write 16 blocks at 64" quiet nvme write $N -s 64 -c 15 -z 8192 -d /tmp/w2
check "copy 64-79 then 0-7 to 2000" quiet nvme copy $N --sdlba=2000 --slbs=64,0 --blocks=15,7
cat /tmp/w2 /tmp/w >/tmp/want
rm -f /tmp/r
check "read blocks 2000-2023" quiet nvme read $N -s 2000 -c 23 -z 12288 -d /tmp/r
check "copy of 2 ranges: checksum $(sum /tmp/r) = sources' $(sum /tmp/want)" [ "$(sum /tmp/r)" = "$(sum /tmp/want)" ]
# over MSSRL (1025 blocks), out of range; nothing written by either
st 0x4183 nvme copy $N --sdlba=2000 --slbs=0 --blocks=1024
st 0x4080 nvme copy $N --sdlba=2000 --slbs=$(cat /sys/block/${A}n1/size) --blocks=0
check "write-uncor of block 70" quiet nvme write-uncor $N -s 70 -c 0
st 0x281 nvme copy $N --sdlba=2000 --slbs=64 --blocks=15
rm -f /tmp/r
nvme read $N -s 2000 -c 23 -z 12288 -d /tmp/r >/dev/null 2>&1
check "refused copies left blocks 2000-2023 as they were" [ "$(sum /tmp/r)" = "$(sum /tmp/want)" ]

# --- DULBE (Error Recovery bit 16): unwritten/deallocated blocks fail
js '(j["nsfeat"] & 4) == 4' nvme id-ns $N -o json
check "set-feature 5 DULBE" quiet nvme set-feature $C -n 1 -f 5 --value=0x10000
st 0x287 nvme read $N -s 30000 -c 7 -z 4096 -d /tmp/r
check "with DULBE, written blocks 0-7 read" quiet nvme read $N -s 0 -c 7 -z 4096 -d /tmp/r
check "deallocate blocks 0-7" quiet nvme dsm $N --ad -s 0 -b 8
st 0x287 nvme read $N -s 0 -c 7 -z 4096 -d /tmp/r
js "j['errors'][0]['status_field'] == 0x287 and j['errors'][0]['lba'] == 0" nvme error-log $C -o json
check "DULBE cleared" quiet nvme set-feature $C -n 1 -f 5 --value=0
check "without DULBE, deallocated blocks read (as zeroes)" quiet nvme read $N -s 0 -c 7 -z 4096 -d /tmp/r
check "and are zeroes" cmp -n 4096 /tmp/r /dev/zero

# --- Injected read errors: vSSD1 has err_read_unc_ppm=1000000
B=$(ctrl_of vSSD1) || { bad "no controller with SN vSSD1"; finish; exit; }
check "vSSD1: writes work" quiet nvme write /dev/${B}n1 -s 40 -c 7 -z 4096 -d /tmp/w
st 0x281 nvme read /dev/${B}n1 -s 40 -c 7 -z 4096 -d /tmp/r
js "j['errors'][0]['status_field'] == 0x281 and 40 <= j['errors'][0]['lba'] < 48 and j['errors'][0]['nsid'] == 1 and 1 <= j['errors'][0]['sqid']" \
    nvme error-log /dev/$B -o json
js "j['media_errors'] >= 1" nvme smart-log /dev/$B -o json

# --- Format NVM: the 4 KiB format, then back to 512 B (on vSSD0)
bs() { cat /sys/block/${A}n1/queue/logical_block_size; }
js '(j["oacs"] & 2) == 2' nvme id-ctrl $C -o json
check "nvme format --lbaf=1" quiet nvme format $N --lbaf=1 --force
sleep 1
check "logical block size 4096 after the format ($(bs))" [ "$(bs)" = 4096 ]
js 'j["flbas"] == 1 and j["nuse"] == 0 and j["nsze"] == 6553' nvme id-ns $N -o json
dd if=/dev/urandom of=/tmp/w4 bs=8k count=1 2>/dev/null
check "write 2 blocks of 4 KiB" quiet nvme write $N -s 10 -c 1 -z 8192 -d /tmp/w4
rm -f /tmp/r
check "read them back" quiet nvme read $N -s 10 -c 1 -z 8192 -d /tmp/r
check "4 KiB blocks read back by checksum" [ "$(sum /tmp/r)" = "$(sum /tmp/w4)" ]
st 0x410a nvme admin-passthru $C --opcode=0x80 --namespace-id=1 --cdw10=2
check "nvme format --ses=1 (user data erase)" quiet nvme format $N --lbaf=1 --ses=1 --force
rm -f /tmp/r
nvme read $N -s 10 -c 1 -z 8192 -d /tmp/r >/dev/null 2>&1
check "erased blocks read as zeroes" cmp -n 8192 /tmp/r /dev/zero
check "nvme format --lbaf=0" quiet nvme format $N --lbaf=0 --force
sleep 1
check "logical block size 512 again ($(bs))" [ "$(bs)" = 512 ]
js 'j["flbas"] == 0 and j["nsze"] == 52428' nvme id-ns $N -o json
