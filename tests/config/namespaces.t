#!/bin/bash
# Several namespaces per controller: namespaces, namespace_modes and
# namespace_sizes that cannot work are refused at start-up with one line
# naming the property; what works starts.  See tests/config/lib.sh.
. "$(dirname "$0")/lib.sh"
accept femu,namespaces=2
accept femu,namespaces=16,devsz_mb=1024
accept femu,devsz_mb=8192,namespaces=2,namespace_modes=znssd,,bbssd
accept femu,namespaces=3,devsz_mb=1024,namespace_modes=bbssd,,nossd,,bbssd,namespace_sizes=512M,,,,
refuse '^namespaces=0: must be 1\.\.16' femu,namespaces=0
refuse '^namespaces=17: must be 1\.\.16' femu,namespaces=17
refuse '^namespace_modes=bbssd: 1 entries for namespaces=2' femu,namespaces=2,namespace_modes=bbssd
refuse "^namespace_modes=bbssd,kvssd: 'kvssd' is not bbssd, nossd or znssd" \
    femu,namespaces=2,namespace_modes=bbssd,,kvssd
refuse '^namespace_modes: 2 zoned namespaces; at most one' \
    femu,namespaces=2,namespace_modes=znssd,,znssd
refuse '^namespace_sizes=1G: 1 entries for namespaces=2' femu,namespaces=2,namespace_sizes=1G
refuse "^namespace_sizes: '1000K' is not a size in whole MiB" \
    femu,namespaces=2,namespace_sizes=1000K,,
refuse '^namespace_sizes: 2048 MiB given, devsz_mb=1024 leaves less than that' \
    femu,namespaces=2,namespace_sizes=1G,,1G
refuse '^namespace_sizes: 1024 MiB given, devsz_mb=1024 leaves less than 1 MiB' \
    femu,namespaces=2,namespace_sizes=1G,,
refuse '^op_pcent=25: with namespaces=2 give devsz_mb' femu,namespaces=2,op_pcent=25
# a state file holds every namespace (tests/guest/femu-state-ns.t): made
# at quit, loaded again; one made with other namespace properties is
# refused naming the property
S=femu,nchs=2,luns_per_ch=2,blks_per_pl=64,devsz_mb=192
rm -f $cfg_tmp/ns*.femu
accept $S,namespaces=2,state=$cfg_tmp/ns2.femu
accept $S,namespaces=2,state=$cfg_tmp/ns2.femu
refuse '^state=.*: configuration mismatch: namespaces is 2 in the state file but 3 here$' \
    $S,namespaces=3,state=$cfg_tmp/ns2.femu
accept $S,state=$cfg_tmp/ns1.femu
refuse '^state=.*: configuration mismatch: namespaces is 1 in the state file but 2 here$' \
    $S,namespaces=2,state=$cfg_tmp/ns1.femu
refuse '^state=.*: configuration mismatch: namespace_sizes: namespace 1 is 98304 KiB at FTL block 0 in the state file but 65536 KiB at FTL block 0 here$' \
    $S,namespaces=2,namespace_sizes=64M,,128M,state=$cfg_tmp/ns2.femu
accept $S,namespaces=3,namespace_modes=bbssd,,bbssd,,nossd,namespace_sizes=64M,,64M,,64M,state=$cfg_tmp/ns3.femu
accept $S,namespaces=3,namespace_modes=bbssd,,bbssd,,nossd,namespace_sizes=64M,,64M,,64M,state=$cfg_tmp/ns3.femu
refuse '^state=.*: configuration mismatch: namespace_modes: namespace 2 is bbssd in the state file but nossd here$' \
    $S,namespaces=3,namespace_modes=bbssd,,nossd,,bbssd,namespace_sizes=64M,,64M,,64M,state=$cfg_tmp/ns3.femu
# a zoned namespace beside a BlackBox one: its zone table is saved too
# (tests/guest/femu-state-zoned.t); one made with other zone properties
# is refused naming the property
Z=femu,devsz_mb=8192,namespaces=2,namespace_modes=bbssd,,znssd
rm -f $cfg_tmp/z.femu
accept $Z,state=$cfg_tmp/z.femu
accept $Z,state=$cfg_tmp/z.femu
refuse '^state=.*: configuration mismatch: zns_zd_ext_size is 0 in the state file but 64 here$' \
    $Z,zns_zd_ext_size=64,state=$cfg_tmp/z.femu
refuse '^state=.*: configuration mismatch: zone_size_mb: zones of 8192 logical blocks in the state file but 16384 here$' \
    $Z,zone_size_mb=8,state=$cfg_tmp/z.femu
# an I/O trace records every BlackBox namespace (tests/guest/femu-trace.t)
accept femu,namespaces=2,io_trace=$cfg_tmp/x.ftr
# FDP: every namespace is in the one endurance group and shares its
# reclaim unit handles (tests/guest/fdp-ns.t); only BlackBox namespaces
accept femu-subsys,id=s0,fdp=on,fdp.nruh=2 femu,namespaces=2,subsys=s0
accept femu-subsys,id=s0,fdp=on,fdp.nruh=4 femu,namespaces=3,devsz_mb=1024,namespace_sizes=256M,,,,,subsys=s0
refuse "^namespace_modes: namespace 2 is nossd; with subsys=s0 \(fdp=on\) every namespace must be bbssd" \
    femu-subsys,id=s0,fdp=on,fdp.nruh=2 femu,namespaces=2,namespace_modes=bbssd,,nossd,subsys=s0
refuse "^namespace_modes: namespace 1 is znssd; with subsys=s0 \(fdp=on\) every namespace must be bbssd" \
    femu-subsys,id=s0,fdp=on,fdp.nruh=2 femu,devsz_mb=8192,namespaces=2,namespace_modes=znssd,,bbssd,subsys=s0
# FDP with several namespaces keeps a state file (the FTL's handles with
# it) and records an I/O trace
accept femu-subsys,id=s0,fdp=on,fdp.nruh=2 $S,namespaces=2,subsys=s0,state=$cfg_tmp/fdpns.femu
accept femu-subsys,id=s0,fdp=on,fdp.nruh=2 $S,namespaces=2,subsys=s0,state=$cfg_tmp/fdpns.femu
accept femu-subsys,id=s0,fdp=on,fdp.nruh=2 $S,namespaces=2,subsys=s0,io_trace=$cfg_tmp/fdpns.ftr
# a femu-subsys with fdp=off carries nothing: any namespace may be beside it
accept femu-subsys,id=s0 femu,namespaces=2,namespace_modes=bbssd,,nossd,subsys=s0
# the BlackBox namespaces' sum must fit the FTL's NAND and reserve
refuse 'devsz_mb=20000 exceeds the NAND' femu,namespaces=2,devsz_mb=20000
finish
