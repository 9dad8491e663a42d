#!/bin/bash
# qtest group /femu/wear (events, events-aec): a tiny device with pe_cycles=2 aged until read-only -- SMART / Health asynchronous events for Critical Warning bits 0, 2 and 3 (information 02h and 00h, log page 02h), each once, masked until log 02h is read, honouring Set Features 0Bh; Copy and Write Zeroes on read-only media fail with Write Fault.
. "$(dirname "$0")/lib.sh"
qtest_group wear 600
