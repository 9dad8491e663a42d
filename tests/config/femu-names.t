#!/bin/bash
# Every property of FEMU upstream's femu and femu-subsys devices
# (tests/data/femu-upstream-props.txt, with FEMU's default values) is
# known here: given alone, with FEMU's default, the device either starts
# or refuses to with one line that names the property and says why,
# never QEMU's "Property ... not found".  FEMU's own scripts' device
# strings start as written, and FEMU's names that this project spells
# otherwise set the same thing (checked with qom-get after realize).
. "$(dirname "$0")/lib.sh"
root=${FEMU_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
list=$root/tests/data/femu-upstream-props.txt

known() { # known NAME ARGS...: accepted, or refused naming NAME with a reason
    local name=$1; shift
    cfg_rows=$((cfg_rows + 1))
    cfg_run '{"execute":"qmp_capabilities"}{"execute":"quit"}' "$@"
    local msg
    msg=$(printf '%s\n' "$cfg_out" | grep -v '^{"' | grep -m1 'qemu-system' |
          sed 's/^[^:]*: -device [^ ]*: //')
    if [ "$cfg_rc" -eq 0 ] && [ -z "$msg" ]; then
        echo "ok   accepted [$*]"
    elif [ "$cfg_rc" -eq 1 ] && grep -qF -- "$name" <<<"$msg" &&
         ! grep -Eq "not found|doesn't take value|does not accept" <<<"$msg" &&
         [ "${#msg}" -gt $(( ${#name} + 12 )) ]; then
        echo "ok   refused  [$*]: $msg"
    else
        cfg_fail "$name [$*]: status $cfg_rc, '$msg'"
    fi
}

n=0
while read -r dev name val; do
    case $dev in ''|'#'*) continue ;; esac
    n=$((n + 1))
    if [ "$val" = - ]; then # strings: a value a FEMU user would give
        case $name in
        nqn) val=subsys0 ;;
        serial) val=S1 ;;
        gc_policy) val=greedy ;;
        cache_evict) val=lru ;;
        mapping) val=page ;;
        namespace_sizes) val=1G ;;
        namespace_modes) val=bbssd ;;
        subsys) val=s0 ;;
        *) cfg_rows=$((cfg_rows + 1)); cfg_fail "$name: no test value" ;;
        esac
    fi
    case $dev:$name in
    femu:subsys) known "$name" femu-subsys,id=s0 femu,subsys=s0 ;;
    femu-subsys:*) known "$name" "femu-subsys,id=s0,$name=$val" femu,subsys=s0 ;;
    *) known "$name" "femu,$name=$val" ;;
    esac
done < "$list"
# the list is FEMU's 122 properties: a truncated file checks nothing
if [ "$n" -ne 122 ]; then
    cfg_rows=$((cfg_rows + 1)); cfg_fail "$list has $n properties, not 122"
fi

# FEMU's scripts, their device strings as written (run-blackbox.sh,
# run-blackbox-fdp.sh, run-zns.sh, run-nossd.sh)
bb=devsz_mb=12288,namespaces=1,femu_mode=1,secsz=512,secs_per_pg=8,pgs_per_blk=256,blks_per_pl=256,pls_per_lun=1,luns_per_ch=8,nchs=8,pg_rd_lat=40000,pg_wr_lat=200000,blk_er_lat=2000000,ch_xfer_lat=0,gc_thres_pcent=75,gc_thres_pcent_high=95
accept "femu,$bb"
accept femu-subsys,id=femu-subsys-0,nqn=subsys0,fdp=on,fdp.nruh=4,fdp.nrg=1,fdp.nru=256 \
    "femu,$bb,subsys=femu-subsys-0"
accept femu,devsz_mb=4096,namespaces=1,zns_num_ch=8,zns_num_lun=4,zns_num_plane=2,zns_num_blk=32,zns_flash_type=4,femu_mode=3
accept femu,devsz_mb=4096,id=nvme0

qom_check() { # qom_check "PROP=WANT ..." ARGS...: qom-get after realize
    local want=$1; shift
    local q='{"execute":"qmp_capabilities"}' kv
    for kv in $want; do
        q+="{\"execute\":\"qom-get\",\"arguments\":{\"path\":\"/machine/peripheral/d0\",\"property\":\"${kv%%=*}\"}}"
    done
    cfg_rows=$((cfg_rows + 1))
    cfg_run "$q"'{"execute":"quit"}' "$@"
    local got
    got=$(printf '%s\n' "$cfg_out" | /usr/bin/python3 -c '
import json, sys
for l in sys.stdin:
    l = l.strip()
    if l.startswith("{"):
        m = json.loads(l)
        if "return" in m and m["return"] != {}:
            r = m["return"]
            print(str(r).lower() if isinstance(r, bool) else r)' | tr '\n' ' ')
    local exp=""
    for kv in $want; do exp+="${kv#*=} "; done
    if [ "$cfg_rc" -eq 0 ] && [ "$got" = "$exp" ]; then
        echo "ok   [$*]: $want"
    else
        cfg_fail "[$*]: want '$exp', got '$got' (status $cfg_rc)"
    fi
}
qom_check "nchs=2 luns_per_ch=3 pls_per_lun=2 blks_per_pl=256" \
    femu,id=d0,zns_num_ch=2,zns_num_lun=3,zns_num_plane=2,zns_num_blk=256
qom_check "mqes=2047" femu,id=d0,entries=2047
qom_check "max_open=8 max_active=12" \
    femu,id=d0,femu_mode=3,zns_max_open=8,zns_max_active=12
qom_check "zasl=4" femu,id=d0,femu_mode=3,zns_zasl_bs=65536
qom_check "secsz=4096" femu,id=d0,lba_index=3,secs_per_pg=8
qom_check "femu_mode=3" femu,id=d0,namespace_modes=znssd
qom_check "devsz_mb=2048" femu,id=d0,namespace_sizes=2G
qom_check "pollers=4" femu,id=d0,queues=8,multipoller_enabled=1,poller_ratio=2
qom_check "zone_luns=8" femu,id=d0,femu_mode=3,nchs=8,luns_per_ch=4,zns_chnls_per_zone=2
qom_check "nand_cell_type=4" femu,id=d0,femu_mode=3,zns_flash_type=4
refuse '^zns_flash_type=7: must be 1 \(SLC\)' femu,femu_mode=3,zns_flash_type=7
# run-zns.sh's geometry: pages per block from devsz_mb, as FEMU does
qom_check "pgs_per_blk=512" \
    femu,id=d0,devsz_mb=4096,zns_num_ch=8,zns_num_lun=4,zns_num_plane=2,zns_num_blk=32,femu_mode=3
# a given value FEMU upstream has but this device does not model
refuse '^zns_num_conv_zones=2: conventional zones make Linux reject' femu,femu_mode=3,zns_num_conv_zones=2
# FEMU upstream's ZRWA and descriptor extension names are this device's
qom_check "zns_zrwa_size=64 zns_zrwafg_size=16 zns_zrwa_num=2 zns_zd_ext_size=128" \
    femu,id=d0,femu_mode=3,zns_zrwa_size=64,zns_zrwafg_size=16,zns_zrwa_num=2,zns_zd_ext_size=128
refuse '^lnum_ch: Open-Channel' femu,lnum_ch=2
refuse '^zns_zasl_bs=1000: must be 0 or 4096 x a power of two' femu,femu_mode=3,zns_zasl_bs=1000
refuse '^namespace_modes=.*: 2 entries for namespaces=1' femu,namespace_modes=znssd,,bbssd
refuse "^namespace_modes=ssd: 'ssd' is not bbssd, nossd or znssd" femu,namespace_modes=ssd
refuse '^namespace_modes=znssd: femu_mode=1 says otherwise' femu,femu_mode=1,namespace_modes=znssd
refuse '^ecc_step_ns=5: FEMU.s ONFI timing breakdown is not modelled' femu,ecc_step_ns=5
refuse '^oacs=0x1: 0x1 names admin commands not offered here' femu,oacs=1
accept femu,oacs=2
# injected media errors: FEMU's rates, per million, up to every access
accept femu,err_read_unc_ppm=1000,err_write_fail_ppm=1000000
refuse '^err_read_unc_ppm=1000001: must be 0..1000000' femu,err_read_unc_ppm=1000001
refuse '^err_write_fail_ppm=2000000: must be 0..1000000' femu,err_write_fail_ppm=2000000
finish
