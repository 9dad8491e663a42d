/*
 * qtest driver for the `femu` NVMe controller: a small NVMe host that
 * talks to the device below any guest kernel, so it can send what Linux
 * never would (bad opcodes, bad PRPs, bad queue ids, doorbells beyond the
 * queues, resets during I/O, ...).  Each case checks the status the NVMe
 * spec prescribes (NVMe Base 2.0 section numbers in the comments), and
 * every group ends with a health check: Identify + a write/read/compare
 * on an I/O queue, so a device that "survived" but stopped working fails.
 *
 * No interrupts are used: completions are found by polling the phase tag
 * of the completion queue entry in guest memory (Base 2.0, 4.6).
 *
 * Files: femu-host.c/.h (the host and the health check), femu-queues.c
 * (registers, queues, doorbells), femu-admin-io.c (admin and I/O
 * commands, log pages, features), femu-fdp.c, femu-zns.c, femu-sgl.c
 * (Scatter Gather Lists), and the fuzz
 * groups femu-random-commands.c and femu-random-chaos.c.  Every .c file
 * named femu-*.c here is linked into this one binary by
 * scripts/graft/graft.sh.
 *
 * Run: QTEST_QEMU_BINARY=build-femu/qemu-system-x86_64 \
 *      build-femu/tests/qtest/femu-test --tap -k   (each .t file in
 *      tests/qtest runs one group: -p /x86_64/femu/GROUP)
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu-host.h"

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    extra_args = "-device femu-subsys,id=fdp0,fdp=on,fdp.nruh=4";
    qtest_add_func("/femu/opcodes", test_bad_opcodes);
    qtest_add_func("/femu/fields", test_bad_fields);
    qtest_add_func("/femu/prp-sgl", test_prp);
    qtest_add_func("/femu/queues", test_queues);
    qtest_add_func("/femu/doorbells", test_doorbells);
    qtest_add_func("/femu/doorbells/events", test_doorbell_events);
    qtest_add_func("/femu/doorbells/values", test_doorbell_values);
    qtest_add_func("/femu/bus-master-off", test_bus_master_off);
    qtest_add_func("/femu/reset-during-io", test_reset_during_io);
    qtest_add_func("/femu/dbbuf", test_dbbuf);
    qtest_add_func("/femu/get-log-page", test_get_log);
    qtest_add_func("/femu/features", test_features);
    qtest_add_func("/femu/dsm", test_dsm);
    qtest_add_func("/femu/dsm/gc", test_dsm_gc);
    qtest_add_func("/femu/fdp", test_fdp);
    qtest_add_func("/femu/fdp/logs", test_fdp_logs);
    qtest_add_func("/femu/fdp/handles128", test_fdp_handles128);
    qtest_add_func("/femu/fdp/off", test_fdp_off);
    qtest_add_func("/femu/fdp/namespaces", test_fdp_namespaces);
    qtest_add_func("/femu/cq-full", test_cq_full);
    qtest_add_func("/femu/cq-park", test_cq_park);
    qtest_add_func("/femu/maxcmd", test_maxcmd);
    qtest_add_func("/femu/msix-self", test_msix_self);
    qtest_add_func("/femu/dsm-busy", test_dsm_busy);
    qtest_add_func("/femu/state-data", test_state_data);
    qtest_add_func("/femu/state-save-qmp", test_state_save_qmp);
    qtest_add_func("/femu/state-incr", test_state_incr);
    qtest_add_func("/femu/bus-master-reset", test_bus_master_reset);
    qtest_add_func("/femu/random-commands", test_random_commands);
    qtest_add_func("/femu/random-chaos", test_random_chaos);
    qtest_add_func("/femu/zns", test_zns_identify_io);
    qtest_add_func("/femu/zns/mgmt", test_zns_mgmt);
    qtest_add_func("/femu/zns/write-fault", test_zns_write_fault);
    qtest_add_func("/femu/zns/changed", test_zns_changed);
    qtest_add_func("/femu/zns/reset-all", test_zns_reset_all);
    qtest_add_func("/femu/zns/wcache", test_zns_wcache);
    qtest_add_func("/femu/zns/wcache/cut-after", test_zns_wcache_cut_after);
    qtest_add_func("/femu/ns-mgmt", test_ns_mgmt);
    qtest_add_func("/femu/ns-mgmt/c0", test_ns_c0);
    qtest_add_func("/femu/zns-zrwa", test_zns_zrwa);
    qtest_add_func("/femu/cmds/media", test_cmds_media);
    qtest_add_func("/femu/cmds/copy", test_cmds_copy);
    qtest_add_func("/femu/cmds/inject", test_cmds_inject);
    qtest_add_func("/femu/cmds/dulbe", test_cmds_dulbe);
    qtest_add_func("/femu/cmds/format", test_cmds_format);
    qtest_add_func("/femu/cmds/uncor-state", test_cmds_uncor_state);
    qtest_add_func("/femu/wear/events", test_wear_events);
    qtest_add_func("/femu/wear/events-aec", test_wear_events_aec);
    qtest_add_func("/femu/wear/zoned", test_wear_zoned);
    qtest_add_func("/femu/sgl", test_sgl);
    qtest_add_func("/femu/sgl/off", test_sgl_off);
    qtest_add_func("/femu/sgl/random", test_sgl_random);
    return g_test_run();
}
