/*
 * The NVMe host that every femu-test case drives: the controller's BAR,
 * queue bookkeeping, command helpers and the health check (femu-host.c),
 * the seeded generator of the fuzz groups, and the cases of each file.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FEMU_HOST_H
#define FEMU_HOST_H

#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci.h"
#include "block/nvme.h"
#include "hw/pci/pci_regs.h"
#include "hw/femu/femu-abi.h"

#define PAGE 4096
#define QDEPTH 32          /* entries of every queue this driver makes */
#define IOQ 1              /* the I/O queue pair the health check uses */
#define TIMEOUT_US (10 * 1000 * 1000)
#define DB(qid, cq) (0x1000 + (2 * (qid) + (cq)) * 4)
#define STATUS(s) ((s) & 0x7ff) /* SCT + SC, without More/DNR */

typedef struct Queue {
    uint64_t sq, cq;       /* guest addresses */
    uint16_t tail, head;
    uint16_t sqsize, cqsize;   /* entries (0 = QDEPTH) */
    uint8_t phase;
    bool live;
} Queue;

#define NQ 4               /* queue ids this driver can track: 0..3 */

typedef struct Ctrl {
    QOSState *qs;
    QTestState *qts;
    QPCIDevice *dev;
    QPCIBar bar;
    uint64_t bar_size;
    Queue q[NQ];
    uint64_t ring[NQ][2];  /* SQ and CQ ring page of each qid, made once */
    uint64_t dbs, eis;     /* shadow doorbell pages in use (0: MMIO only) */
    uint16_t cid;
    uint64_t buf;          /* 64 KiB data buffer */
    uint64_t ns_blocks;
    unsigned lba_shift;    /* log2 of the namespace's block size */
    unsigned lbaf;         /* the namespace's LBA format index */
    /* a zoned namespace (zoned_setup): blocks per zone, zones; 0: not
     * zoned */
    uint64_t zsze;
    uint32_t nzones;
    /* outstanding Asynchronous Event Requests: their completions may
     * come before that of any later admin command */
    uint16_t aer_cid[16];
    int naer;
    uint64_t aer_done, aer_limit;
    /* Dword 0 of the latest events: event i (from 0) at [i % 16] */
    uint32_t aer_result[16];
} Ctrl;

/* extra QEMU arguments of the next ctrl_start (a femu-subsys, -name) */
extern const char *extra_args;
/* the seed of the running fuzz group */
extern uint32_t fz_seed;

uint32_t rd32(Ctrl *c, uint64_t off);
void wr32(Ctrl *c, uint64_t off, uint32_t v);
void wr64(Ctrl *c, uint64_t off, uint64_t v);
bool wait_csts(Ctrl *c, uint32_t mask, uint32_t want);
void find_dev(QPCIDevice *dev, int devfn, void *data);
uint64_t ring_page(Ctrl *c, int qid, int which);
void ctrl_enable_sized(Ctrl *c, uint16_t asqs, uint16_t acqs);
void ctrl_enable(Ctrl *c);
void shadow_db(Ctrl *c, int qid, int cq, uint32_t val);
void submit(Ctrl *c, int qid, NvmeCmd *cmd);
bool reap(Ctrl *c, int qid, NvmeCqe *cqe, int timeout_us);
void reap_in_order(Ctrl *c, int qid, uint16_t first, int n);
bool aer_reaped(Ctrl *c, int qid, NvmeCqe *cqe);
uint16_t run(Ctrl *c, int qid, NvmeCmd *cmd, uint32_t *dw0);
NvmeCmd mk(uint8_t opc, uint32_t nsid, uint64_t prp1, uint64_t prp2);
uint16_t identify(Ctrl *c, uint8_t cns, uint32_t nsid, uint64_t prp1);
uint16_t create_cq(Ctrl *c, uint16_t qid, uint16_t qsize, uint16_t flags,
                   uint16_t iv, uint64_t addr);
uint16_t create_sq(Ctrl *c, uint16_t qid, uint16_t qsize, uint16_t cqid,
                   uint64_t addr);
uint16_t delete_q(Ctrl *c, uint8_t opc, uint16_t qid);
Queue *queue_init(Ctrl *c, int qid, uint64_t sq, uint64_t cq,
                  uint16_t sqsize, uint16_t cqsize);
void create_io_pair(Ctrl *c, int qid, uint16_t cq_flags, uint16_t iv);
void setup_io(Ctrl *c, int qid);
uint16_t rw(Ctrl *c, uint8_t opc, uint64_t slba, uint16_t nlb,
            uint64_t prp1, uint64_t prp2);
Ctrl *ctrl_start(const char *devopts);
void zoned_setup(Ctrl *c);
void health(Ctrl *c);
void ctrl_stop(Ctrl *c);
uint16_t get_log(Ctrl *c, uint8_t lid, uint32_t numd, uint64_t off,
                 uint64_t prp1, uint64_t prp2);
void fz_init(const char *group);
uint32_t r32(void);
uint64_t r64(void);
int32_t rr(int32_t lo, int32_t hi);
bool rb(void);
uint16_t identify_csi(Ctrl *c, uint8_t cns, uint8_t csi, uint32_t nsid);
uint16_t zio(Ctrl *c, uint8_t opc, uint64_t slba, uint32_t nlb,
             uint32_t *dw0);
uint16_t zsend(Ctrl *c, uint64_t slba, uint8_t zsa, bool all);
uint16_t zrecv(Ctrl *c, uint64_t slba, uint32_t bytes, uint8_t zra,
               uint8_t zrasf, bool partial);
uint64_t zreport_nr(Ctrl *c);
NvmeZoneDescr zdesc(Ctrl *c, int i);
NvmeZoneDescr zone_descr(Ctrl *c, uint64_t zslba);

/* one of the n values */
#define PICK(...) ({ \
    const uint64_t pick_[] = { __VA_ARGS__ }; \
    pick_[rr(0, ARRAY_SIZE(pick_))]; })

/* the cases, by file */
/* femu-admin-io.c */
void test_bad_opcodes(void);
void test_bad_fields(void);
void test_prp(void);
void test_features(void);
void test_get_log(void);
void test_dsm(void);
void test_dsm_gc(void);
void test_dsm_busy(void);
void test_state_data(void);
void test_state_save_qmp(void);
void test_state_incr(void);
/* femu-queues.c */
void test_queues(void);
void test_doorbells(void);
void test_doorbell_events(void);
void test_doorbell_values(void);
void test_bus_master_off(void);
void test_reset_during_io(void);
void test_dbbuf(void);
void test_cq_full(void);
void test_maxcmd(void);
void test_cq_park(void);
void test_msix_self(void);
void test_bus_master_reset(void);
/* femu-fdp.c */
void test_fdp_logs(void);
void test_fdp_handles128(void);
void test_fdp_off(void);
void test_fdp_namespaces(void);
/* femu-cmds.c */
void test_cmds_media(void);
void test_cmds_copy(void);
void test_cmds_inject(void);
void test_cmds_dulbe(void);
void test_cmds_format(void);
void test_cmds_uncor_state(void);
void test_fdp(void);
/* femu-random-commands.c */
void test_random_commands(void);
/* femu-random-chaos.c */
void test_random_chaos(void);
/* femu-zns.c */
void test_zns_identify_io(void);
void test_zns_mgmt(void);
void test_zns_write_fault(void);
void test_zns_changed(void);
void test_zns_reset_all(void);
void test_zns_wcache(void);
void test_zns_wcache_cut_after(void);
/* femu-ns-mgmt.c */
void test_ns_mgmt(void);
void test_ns_c0(void);
void test_zns_zrwa(void);
/* femu-wear.c */
void test_wear_events(void);
void test_wear_events_aec(void);
void test_wear_zoned(void);
/* femu-sgl.c */
void test_sgl(void);
void test_sgl_off(void);
void test_sgl_random(void);

#endif
