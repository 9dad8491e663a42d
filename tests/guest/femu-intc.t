#!/bin/bash
# Interrupt Coalescing in the guest: Set Features 08h (Aggregation
# Threshold and Time) and 09h (Coalescing Disable per vector) change the
# interrupts per I/O that /proc/interrupts counts and the latency of a
# lone completion; FEMU upstream's intc_thresh/intc_time set the reset
# values (tests/guest/femu/intc.sh).
. "$(dirname "$0")/femu-lib.sh"
need_runner
N0=pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0,ch_xfer_lat=0,devsz_mb=64
femu_guest intc.sh --timeout 600 \
    -device femu,serial=vSSD0,$N0 \
    -device femu,serial=vSSD1,$N0,intc_thresh=3,intc_time=10
