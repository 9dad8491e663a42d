#!/bin/bash
# qtest group /femu/wear (events, events-aec, zoned): a tiny device with pe_cycles=2 aged until read-only -- SMART / Health asynchronous events for Critical Warning bits 0, 2 and 3 (information 02h and 00h, log page 02h), each once, masked until log 02h is read, honouring Set Features 0Bh; Copy and Write Zeroes on read-only media fail with Write Fault; a zoned namespace with pe_cycles=2: Percentage Used from the erases of each zone, a worn-out zone goes Offline (Zone Descriptor Changed and a SMART reliability event).
. "$(dirname "$0")/lib.sh"
qtest_group wear 600
