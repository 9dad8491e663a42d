#!/bin/bash
# qtest group /femu/zns-zrwa: femu_mode=3 with zns_zrwa_size, zns_zrwafg_size, zns_zrwa_num and zns_zd_ext_size: Identify's ZRWA fields and ZDES, Open with ZRWAA (ZRWA resources), writes and overwrites anywhere in the window, implicit commit, Commit Zone (ZSA 11h) and its errors, Close/Finish/Reset and the ZRWA, Set Zone Descriptor Extension and the Extended Report.
# Expected NVMe statuses are in tests/qtest/femu-zns.c.
. "$(dirname "$0")/lib.sh"
qtest_group zns-zrwa
