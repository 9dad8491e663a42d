#!/bin/bash
# femu-subsys / FDP settings that cannot work are refused (exit 1, message
# naming the property): subsystem missing, after the controller, not a
# subsystem, shared by two controllers, bad fdp.nruh / fdp.nru, FDP
# without the FTL.
. "$(dirname "$0")/lib.sh"
ex=nchs=4,luns_per_ch=4,blks_per_pl=128,op_pcent=25
# subsys is resolved at realize: the message names the property, the id,
# and the fix (the subsystem's -device option must come first)
refuse "^subsys=nosuch: no femu-subsys device with that id; give -device femu-subsys,id=nosuch,\.\.\. before the femu controller that uses it$" \
    femu,subsys=nosuch
# the subsystem must come before the controller that names it
refuse "^subsys=fdp0: no femu-subsys device with that id; give -device femu-subsys,id=fdp0,\.\.\. before the femu controller that uses it$" \
    femu,subsys=fdp0 femu-subsys,id=fdp0,fdp=on,fdp.nruh=4
# an id of something that is not a femu-subsys
refuse "^subsys=c0: 'c0' is a femu, not a femu-subsys device$" femu,id=c0 femu,subsys=c0
refuse "^subsys='': " femu,subsys=
refuse 'fdp.nruh=0' femu-subsys,id=fdp0,fdp=on femu,$ex,subsys=fdp0
refuse 'fdp.nruh=0' femu-subsys,id=fdp0,fdp=on,fdp.nruh=0 femu,$ex,subsys=fdp0
refuse 'fdp.nruh=129' femu-subsys,id=fdp0,fdp=on,fdp.nruh=129 femu,subsys=fdp0
refuse 'fdp.nruh=65536' femu-subsys,id=fdp0,fdp=on,fdp.nruh=65536 femu,subsys=fdp0
refuse 'fdp.nru=0' femu-subsys,id=fdp0,fdp=on,fdp.nruh=4,fdp.nru=0 femu,$ex,subsys=fdp0
refuse 'fdp.nru=2' femu-subsys,id=fdp0,fdp=on,fdp.nruh=4,fdp.nru=2 femu,$ex,subsys=fdp0
# more handles than the geometry has lines (128 here)
refuse 'fdp.nruh=128' femu-subsys,id=fdp0,fdp=on,fdp.nruh=128 femu,$ex,subsys=fdp0
# every handle keeps a host reclaim unit open, plus at least one GC unit
# (docs/ftl-reserve.md): the tutorial-04 geometry (61 lines below the
# forced-GC threshold, 52 of data) takes 8 handles; the message says so
refuse '^fdp\.nruh=9 leaves too little spare for GC: .*at most fdp\.nruh=8 fits$' \
    femu-subsys,id=fdp0,fdp=on,fdp.nruh=9 femu,nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25,subsys=fdp0
# handles whose open reclaim units eat the GC reserve
refuse 'fdp.nruh=16' femu-subsys,id=fdp0,fdp=on,fdp.nruh=16 femu,nchs=4,luns_per_ch=4,blks_per_pl=32,op_pcent=7,subsys=fdp0
# a subsystem's controllers would share its namespaces and endurance
# group; each femu controller has its own FTL and namespace, so a second
# controller naming the same femu-subsys is refused (fdp on or off)
refuse '^subsys=fdp0: that femu-subsys already has a femu controller; each controller has its own FTL and namespace, so give each its own -device femu-subsys$' \
    femu-subsys,id=fdp0,fdp=on,fdp.nruh=2 femu,$ex,subsys=fdp0 femu,$ex,subsys=fdp0
refuse '^subsys=s0: that femu-subsys already has a femu controller' \
    femu-subsys,id=s0 femu,subsys=s0 femu,subsys=s0
accept femu-subsys,id=fdp0,fdp=on,fdp.nruh=2 femu,$ex,subsys=fdp0 \
    femu-subsys,id=fdp1,fdp=on,fdp.nruh=2 femu,$ex,subsys=fdp1
# placement is done by the FTL: NoSSD has none
refuse 'femu_mode|subsys' femu-subsys,id=fdp0,fdp=on,fdp.nruh=4 femu,femu_mode=2,subsys=fdp0
refuse 'fdp.nruh' femu-subsys,id=fdp0,fdp=on,fdp.nruh=x femu,subsys=fdp0
accept femu-subsys,id=fdp0,fdp=on,fdp.nruh=4 femu,$ex,subsys=fdp0
accept femu-subsys,id=fdp0,fdp=on,fdp.nruh=128 femu,blks_per_pl=512,subsys=fdp0
accept femu-subsys,id=fdp0,fdp=on,fdp.nruh=128 femu,subsys=fdp0
accept femu-subsys,id=fdp0,fdp=on,fdp.nruh=8 femu,nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25,subsys=fdp0
accept femu-subsys,id=fdp0,fdp=on,fdp.nruh=4,fdp.nru=4 femu,nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25,subsys=fdp0
accept femu-subsys,id=fdp0 femu,subsys=fdp0
finish
