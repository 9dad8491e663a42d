#!/bin/bash
# qtest group /femu/ns-mgmt: ns_mgmt=on: Identify Controller (OACS bit 3, NN, TNVMCAP, UNVMCAP), the effects log, every refusal of Namespace Management create (SEL, CSI, DPS, NSZE/NCAP, FLBAS, capacity, NSIDs), Identify CNS 00h for inactive NSIDs and FFFFFFFFh, 10h-13h, attach and detach (log 04h, one notice, I/O only while attached, data kept), delete (another namespace's data stays; a namespace created over the range has nothing mapped and reads zeroes), first-fit ranges, delete all; without ns_mgmt, Invalid Command Opcode. Case c0: C0h per namespace (two namespaces written different amounts with GC add up to the device's totals; a create or delete keeps the other namespaces' counts; Invalid Namespace for an NSID that is not attached; 0xEF code 5 zeroes them).
# Expected NVMe statuses are in tests/qtest/femu-ns-mgmt.c.
. "$(dirname "$0")/lib.sh"
qtest_group ns-mgmt
