/*
 * FEMU: Flexible Data Placement (NVMe TP4146, NVMe 2.0 base spec 8.1.10)
 * hooks of the controller.
 *
 * This file is the controller's interface to FDP: femu-subsys settings,
 * Identify/feature/log/I-O Management handling.  Until FDP is
 * implemented (issue 5) every hook reports "not supported", and a
 * subsystem with fdp=on is refused with a clear error.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "femu.h"

bool femu_fdp_realize(FemuCtrl *n, Error **errp)
{
    if (n->subsys && n->subsys->fdp) {
        error_setg(errp, "subsys: femu-subsys with fdp=on is not "
                   "supported by this build yet");
        return false;
    }
    if (n->subsys) {
        n->subsys->nctrls++;
    }
    return true;
}

void femu_fdp_unrealize(FemuCtrl *n)
{
    if (n->subsys && n->subsys->nctrls > 0) {
        n->subsys->nctrls--;
    }
}

void femu_fdp_fill_cfg(FemuCtrl *n, struct ftl_config *cfg)
{
    cfg->fdp_nruh = 0;
    cfg->fdp_nru = n->subsys ? n->subsys->fdp_nru : 128;
}

uint32_t femu_fdp_ctratt(FemuCtrl *n)
{
    return 0;
}

uint16_t femu_fdp_endgid(FemuCtrl *n)
{
    return 0;
}

uint16_t femu_fdp_log(FemuCtrl *n, uint8_t lid, uint16_t lsi, uint8_t **buf,
                      size_t *len)
{
    return NVME_INVALID_LOG_ID | NVME_DNR;
}

uint16_t femu_fdp_get_feature(FemuCtrl *n, NvmeCmd *cmd, uint32_t *result)
{
    return NVME_INVALID_FIELD | NVME_DNR;
}

uint16_t femu_fdp_set_feature(FemuCtrl *n, NvmeCmd *cmd, uint32_t *result)
{
    return NVME_INVALID_FIELD | NVME_DNR;
}

uint16_t femu_fdp_write_pid(FemuCtrl *n, NvmeCmd *cmd, uint32_t *pid)
{
    /* DTYPE in CDW12 bits 23:20; 2 = data placement (NVMe 2.0 8.1.10) */
    uint32_t dtype = (le32_to_cpu(cmd->cdw12) >> 20) & 0xf;

    *pid = FTL_PID_NONE;
    if (dtype) {
        /* no directives are enabled on this controller */
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    return NVME_SUCCESS;
}

uint16_t femu_fdp_io_mgmt_recv(FemuCtrl *n, FemuReq *req)
{
    return NVME_INVALID_OPCODE | NVME_DNR;
}

uint16_t femu_fdp_io_mgmt_send(FemuCtrl *n, FemuReq *req)
{
    return NVME_INVALID_OPCODE | NVME_DNR;
}
