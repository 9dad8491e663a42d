#!/bin/bash
# Mode and controller properties that cannot work are refused (exit 1,
# message naming the property).
. "$(dirname "$0")/lib.sh"
for m in 0 4 5 4294967295; do
    refuse "femu_mode=$m" femu,femu_mode=$m
done
refuse 'femu_mode' femu,femu_mode=bbssd
accept femu,femu_mode=1
accept femu,femu_mode=2
accept femu,femu_mode=3
refuse 'queues=0' femu,queues=0
refuse 'queues=65' femu,queues=65
refuse 'pollers=0' femu,pollers=0
refuse 'pollers=17' femu,pollers=17
refuse 'mdts=0' femu,mdts=0
refuse 'mdts=10' femu,mdts=10
refuse 'mqes=0' femu,mqes=0
refuse 'serial' femu,serial=123456789012345678901
accept femu,queues=64,pollers=16,mdts=9,mqes=1,serial=S
refuse 'uuid' femu,uuid=bogus
accept femu,uuid=6d8a8f27-3e0b-4c52-9a4e-f2a4c1d9b001
accept femu,uuid=auto
# two controllers get their own serial numbers; both start
accept femu femu
finish
