#!/bin/bash
# FDP with several namespaces: one controller, fdp.nruh=4 (the tutorial-04
# device's handles and 8 MiB reclaim units), two BlackBox namespaces in
# its one endurance group.  Both list every handle (placement id i =
# handle i); a write through a placement id on either namespace goes into
# the same shared reclaim unit (`nvme fdp status` from both namespaces
# shows the other's writes), log 22h counts both, events name the
# namespace (invalid placement id, RUH update), features 1Eh and
# directives work per namespace, and fio --fdp=1 with crc32c verify runs
# on each namespace, its blocks taken from the shared units.
. "$(dirname "$0")/femu-lib.sh"
need_runner
femu_guest fdp-ns.sh --timeout 900 \
    -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=4 \
    -device femu,serial=F,nchs=2,luns_per_ch=4,blks_per_pl=64,devsz_mb=384,namespaces=2,subsys=fdp0
