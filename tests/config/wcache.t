#!/bin/bash
# The write cache: write_cache_mb is at most the namespace and needs the
# volatile write cache reported (vwc=1); 0 (the default) and a cache of
# any size up to the namespace start.
. "$(dirname "$0")/lib.sh"
# the default namespace is 1024 MiB
refuse 'write_cache_mb=1025 exceeds the namespace \(1024 MiB\)' femu,write_cache_mb=1025
refuse 'write_cache_mb=64: needs vwc=1' femu,write_cache_mb=64,vwc=0
refuse 'write_cache_mb' femu,write_cache_mb=-1
accept femu,write_cache_mb=0,vwc=0
accept femu,write_cache_mb=64
accept femu,write_cache_mb=1024,pcie_bandwidth_mbps=3938
accept femu,write_cache_mb=16,power_cut_after=100
accept femu,power_cut_after=1
refuse "power_cut_after" femu,power_cut_after=x
finish
