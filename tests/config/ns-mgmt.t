#!/bin/bash
# ns_mgmt (Namespace Management and Attachment): accepted with BlackBox
# namespaces; refused, one line naming the property, with another mode or
# with what holds a fixed set of namespaces (state file, I/O trace, FDP).
# See tests/config/lib.sh.
. "$(dirname "$0")/lib.sh"
accept femu,ns_mgmt=on
accept femu,ns_mgmt=off,femu_mode=2
accept femu,ns_mgmt=on,devsz_mb=1024,namespace_sizes=256M
accept femu,ns_mgmt=on,namespaces=3,devsz_mb=1024,namespace_sizes=256M,,,,128M
refuse '^ns_mgmt=on: namespace 1 is not a BlackBox SSD one' femu,ns_mgmt=on,femu_mode=2
refuse '^ns_mgmt=on: namespace 1 is not a BlackBox SSD one' \
    femu,ns_mgmt=on,femu_mode=3,devsz_mb=1024
refuse '^ns_mgmt=on: namespace 2 is not a BlackBox SSD one' \
    femu,ns_mgmt=on,namespaces=2,devsz_mb=1024,namespace_modes=bbssd,,nossd
refuse '^ns_mgmt=on: state=.*: state files hold a fixed namespace' \
    femu,ns_mgmt=on,state=$cfg_tmp/x.femu
refuse '^ns_mgmt=on: io_trace=.*: I/O traces hold a fixed namespace' \
    femu,ns_mgmt=on,io_trace=$cfg_tmp/x.ftr
refuse '^ns_mgmt=on: subsys=s0: FDP with Namespace Management is not provided' \
    femu-subsys,id=s0,fdp=on,fdp.nruh=2 femu,ns_mgmt=on,subsys=s0
refuse '^namespace_sizes=2G: more than devsz_mb=1024 \(ns_mgmt=on\)' \
    femu,ns_mgmt=on,devsz_mb=1024,namespace_sizes=2G
refuse "ns_mgmt.* expects 'on' or 'off'" femu,ns_mgmt=maybe
finish
