/*
 * FEMU BlackBox FTL: host-link and controller-CPU costs of a command.
 *
 * Two resources outside the NAND, shared by every queue of the
 * controller, as FEMU models them:
 *  - the PCIe link: a command's data crosses it in bytes / bandwidth
 *    (pcie_bandwidth_mbps, MB/s = 10^6 bytes/s) plus a propagation delay
 *    (pcie_prop_delay_ns); reads (device to host) and writes (host to
 *    device) travel opposite directions, each of which carries one
 *    transfer at a time;
 *  - the controller's firmware CPU: fw_cpu_ns per read or write command on
 *    one core, so the controller completes at most 1e9 / fw_cpu_ns
 *    commands per second however many queues and LUNs it has.
 * Both are charged after the command's NAND work, in that order (FEMU
 * applies them when the command's media time is known), so they add to
 * its completion time.  Everything is 0 (off) by default.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "ftl-int.h"

uint64_t ftl_host_costs(struct ftl *ftl, bool write, uint64_t bytes,
                        uint64_t done_ns)
{
    const struct ftl_config *c = &ftl->cfg;
    uint64_t t = done_ns;

    if (c->pcie_bandwidth_mbps || c->pcie_prop_delay_ns) {
        uint64_t *dir = write ? &ftl->link_rx_free : &ftl->link_tx_free;
        uint64_t xfer = c->pcie_bandwidth_mbps ?
                        bytes * 1000 / c->pcie_bandwidth_mbps : 0;

        *dir = ftl_max64(*dir, t) + xfer;
        t = *dir + c->pcie_prop_delay_ns;
    }
    if (c->fw_cpu_ns) {
        ftl->cpu_free = ftl_max64(ftl->cpu_free, t) + c->fw_cpu_ns;
        t = ftl->cpu_free;
    }
    return t;
}
