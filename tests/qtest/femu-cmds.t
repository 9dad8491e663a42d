#!/bin/bash
# qtest group /femu/cmds (media, copy, inject, dulbe): Compare, Verify, Write Uncorrectable and Copy on a BlackBox namespace, err_read_unc_ppm/err_write_fail_ppm, DULBE on BlackBox and NoSSD -- ONCS/OCFS, MSSRL/MCL/MSRC, Compare Failure, Unrecovered Read Error until written/zeroed/deallocated, error log LBA, SMART media errors, a copy read back, C0h host pages, Command Size Limit Exceeded, nothing written by a refused command.
# Expected NVMe statuses are in tests/qtest/femu-cmds.c.
. "$(dirname "$0")/lib.sh"
qtest_group cmds
