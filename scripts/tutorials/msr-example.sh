#!/bin/bash
# msr-example.sh [N] [SEED]: a synthetic trace in the MSR Cambridge CSV
# format (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime;
# times in 100 ns units) on stdout, for tutorial 07's public-format replay:
# N requests (default 200000) about 9 ms apart, 70% writes, 4-64 KiB, 80%
# of them in the first 128 MiB of a 16 GiB volume (a hot region), the rest
# anywhere.  The published traces are not in this repository: download
# them yourself and replay them the same way.
N=${1:-200000}
SEED=${2:-3}
# Timestamps and offsets are built as text or with %.0f: mawk's %d stops
# at 2^31.
awk -v n="$N" -v seed="$SEED" 'BEGIN {
    srand(seed); t = 0
    for (i = 0; i < n; i++) {
        t += int(rand() * 180000)
        if (rand() < 0.8) off = int(rand() * 2048) * 65536
        else off = int(rand() * 4194304) * 4096
        printf "1281663%011.0f,src1,0,%s,%.0f,%d,%d\n", t,
            rand() < 0.7 ? "Write" : "Read", off, (1 + int(rand() * 16)) * 4096, 2000
    }
}'
