/*
 * FEMU: an NVMe controller whose behaviour comes from a simulated SSD.
 *
 * Controller state shared by the files of hw/femu:
 *   femu.c    QOM types, realize/unrealize, femu-subsys
 *   mode.c    the namespace modes (BlackBox, NoSSD, zoned): one table of
 *             operations each (FemuModeOps)
 *   props.c   the property rows of both devices (and FEMU upstream's
 *             names), QOM properties made from them, their checks
 *   regs.c    BAR0 registers, doorbells, enable/disable/reset, interrupts
 *   queues.c  SQ/CQ objects, completion posting, shadow doorbells
 *   prp.c     PRP / PRP-list walking and guest-RAM checks
 *   admin.c   admin command set (Identify, queues, directives, 0xEF, ...)
 *   features.c  Get/Set Features, Timestamp, Host Behavior Support
 *   events.c  error information log, asynchronous events
 *   log.c     Get Log Page (error, SMART, FW slot, effects, C0h, C1h)
 *   io.c      NVM I/O command set (read, write, flush, zeroes, DSM,
 *             compare, verify, write uncorrectable, copy)
 *   poller.c  poller threads and the time-ordered completion queues
 *   store.c   sparse host-memory data store
 *   fdp.c     Flexible Data Placement hooks (femu-subsys, logs 20h-23h)
 *   zns.c     Zoned Namespace SSD (femu_mode=3): zone commands, CSI 02h
 *   state.c   the state file (state=): the SSD kept across QEMU runs
 *   ns.c      Namespace Management and Attachment (ns_mgmt=on)
 *   format.c  Format NVM: erase, or the other LBA format
 *   sgl.c     Scatter Gather Lists of I/O commands (sgl=on)
 *
 * Threads: the admin queue, registers and interrupts run in QEMU's main
 * loop (BQL held).  I/O submission queues are served by poller threads,
 * which never take the BQL while they hold a FEMU lock: they only touch
 * guest RAM (femu_dma_read/write: RAM or nothing, in one step), the
 * store, the FTL (under ftl_lock) and their own queues
 * (under FemuPoller.lock).  Interrupts are sent with the BQL held: at
 * once for a CQE posted in the main loop, by the poller after it has
 * dropped its own lock for the ones it posted (regs.c).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_FEMU_FEMU_H
#define HW_FEMU_FEMU_H

#include "hw/pci/pci_device.h"
#include "block/nvme.h"
#include "qemu/log.h"
#include "qemu/thread.h"
#include "qemu/event_notifier.h"
#include "qemu/uuid.h"
#include "hw/femu/ftl.h"
#include "hw/femu/ftl-props.h"
#include "hw/femu/ftl-iotrace.h"
#include "hw/femu/zns.h"
#include "hw/femu/femu-abi.h"
#include "hw/femu/poller-batch.h"

#define TYPE_FEMU "femu"
OBJECT_DECLARE_SIMPLE_TYPE(FemuCtrl, FEMU)

#define TYPE_FEMU_SUBSYS "femu-subsys"
OBJECT_DECLARE_SIMPLE_TYPE(FemuSubsys, FEMU_SUBSYS)

enum FemuMode {
    FEMU_MODE_BBSSD = 1,   /* BlackBox SSD: device-side FTL */
    FEMU_MODE_NOSSD = 2,   /* no FTL, no delays */
    FEMU_MODE_ZNS = 3,     /* Zoned Namespace SSD over the NAND model */
};

#define FEMU_MAX_IOQPAIRS       64
#define FEMU_MAX_POLLERS        16
#define FEMU_SQES               6   /* 64-byte SQ entries (log2) */
#define FEMU_CQES               4   /* 16-byte CQ entries (log2) */
#define FEMU_AERL               3   /* 0-based: 4 outstanding AERs */
#define FEMU_ELPE               3   /* 0-based: 4 error log entries */
/* Timestamp (5.27.1, FID 0Eh) and FDP event timestamps: 48 bits of ms */
#define FEMU_TS_MASK            ((1ULL << 48) - 1)
#define FEMU_PAGE_SIZE          4096 /* CAP.MPSMIN = CAP.MPSMAX = 4 KiB */
/*
 * Dataset Management limits (Identify Controller for the NVM command
 * set, CNS 06h: DMRL ranges, DMRSL blocks per range, DMSL blocks per
 * command; io.c refuses a command beyond them).  Deallocating walks the
 * mapping table page by page and releases the store's memory, on a
 * poller that a controller reset (BQL held) may be waiting for: the
 * limits bound that work to FEMU_DSM_MAX_BYTES of logical blocks.
 */
#define FEMU_DSM_MAX_RANGES     255
#define FEMU_DSM_MAX_BYTES      (256ULL << 20)
/*
 * Zone Management Send Reset with Select All cannot be refused for its
 * size: it runs in steps of at most this many bytes of zones that hold
 * data (at least one zone) and FEMU_ZNS_STEP_ZONES zones looked at,
 * with the FTL lock and the poller's lock let go between two steps.
 */
#define FEMU_ZNS_STEP_BYTES     FEMU_DSM_MAX_BYTES
#define FEMU_ZNS_STEP_ZONES     4096
/* A command's status while it has more steps to run (never posted). */
#define FEMU_REQ_MORE           0xffff
#define FEMU_PAGE_BITS          12

/*
 * NVMe Zoned Namespace Command Set 1.1 (not in block/nvme.h): the Changed
 * Zone List log page (section 5.3.1, I/O Command Set specific, CSI 02h),
 * 4096 bytes: u16 number of zone identifiers (FFFFh: more than 511),
 * 6 bytes reserved, then 511 u64 zone identifiers (each a zone's ZSLBA);
 * the Zone Descriptor Changed notice (asynchronous event information
 * EFh) and its bit 27 in OAES and in Asynchronous Event Configuration.
 */
#define FEMU_LOG_CHANGED_ZONES          0xbf
#define FEMU_CHANGED_ZONES_LOG_SIZE     4096
#define FEMU_AER_INFO_ZONE_DESCR_CHANGED 0xef
#define FEMU_OAES_ZDCN                  (1u << 27)
#define FEMU_AEC_ZDCN(aec)              (((aec) >> 27) & 1)

/* One lateness histogram; fields are updated with atomics. */
typedef struct FemuLatHist {
    uint64_t bucket[FEMU_LAT_BUCKETS];
    uint64_t count;
    uint64_t sum_ns;
    uint64_t max_ns;
} FemuLatHist;

/*
 * The device refuses what the guest asked: a command it completes with
 * an error status, or an access it ignores.  FEMU_GUEST_ERR(event, ...)
 * fires trace event `event` (one per reason: -trace 'femu_*' shows the
 * values) and, with -d guest_errors, logs the event's name.
 */
#define FEMU_GUEST_ERR(event, ...)                                      \
    do {                                                                \
        trace_##event(__VA_ARGS__);                                     \
        qemu_log_mask(LOG_GUEST_ERROR, "femu: guest error: %s\n",       \
                      #event);                                          \
    } while (0)

typedef struct FemuCtrl FemuCtrl;
typedef struct FemuPoller FemuPoller;
typedef struct FemuFdp FemuFdp;     /* fdp.c */

/* A property row (include/hw/femu/ftl-props.h); props.c has the tables. */
typedef struct femu_prop FemuProp;
#define FEMU_MAX_PROP_ROWS      192
#define FEMU_COMPAT_SLOTS       96  /* rows without a field of their own */
#define FEMU_SUBSYS_COMPAT_SLOTS 8

/* Identify Controller OACS and ONCS: what is implemented */
#define FEMU_OACS_ALL   (NVME_OACS_DBCS | NVME_OACS_DIRECTIVES | \
                         NVME_OACS_FORMAT)
#define FEMU_ONCS_ALL   (NVME_ONCS_DSM | NVME_ONCS_WRITE_ZEROES | \
                         NVME_ONCS_FEATURES | NVME_ONCS_TIMESTAMP | \
                         FEMU_ONCS_MEDIA)
/* Compare, Write Uncorrectable, Verify and Copy (io.c; the modes with
 * the matching FemuModeOps entries) */
#define FEMU_ONCS_MEDIA (NVME_ONCS_COMPARE | NVME_ONCS_WRITE_UNCORR | \
                         NVME_ONCS_VERIFY | NVME_ONCS_COPY)
/*
 * Simple Copy limits (Identify Namespace MSSRL, MCL, MSRC): a range and
 * a command of at most MDTS bytes (the copy goes through one buffer of
 * that size), and FEMU_COPY_MAX_RANGES source ranges.
 */
#define FEMU_COPY_MAX_RANGES    128

typedef struct FemuSubsys {
    DeviceState parent_obj;

    bool fdp;
    uint32_t fdp_nruh;
    uint32_t fdp_nru;
    char *nqn;              /* Identify SUBNQN: nqn.2019-08.org.qemu:<nqn> */
    uint64_t compat[FEMU_SUBSYS_COMPAT_SLOTS];
    bool prop_given[FEMU_MAX_PROP_ROWS];

    int nctrls;        /* controllers that link to this subsystem */
} FemuSubsys;

typedef struct FemuCQ {
    FemuCtrl *n;
    uint16_t cqid;
    uint16_t vector;
    uint32_t size;          /* entries */
    uint32_t head;          /* last head the host reported (atomic) */
    uint32_t tail;          /* next slot the device writes */
    uint8_t phase;
    bool irq_enabled;
    bool irq_pending;       /* a CQE was posted, interrupt not yet sent */
    /* bit i: poller i holds completions parked until this CQ has space
     * (atomic; the head doorbell wakes those pollers) */
    uint32_t parked_mask;
    int nsqs;               /* SQs that complete into this CQ */
    uint64_t dma_addr;
    uint64_t db_addr;       /* shadow doorbell, 0 when not used */
    uint64_t ei_addr;       /* event index, 0 when not used */
    QemuMutex lock;         /* posting (several SQs may share a CQ) */
    /* the event index last written to ei_addr (under lock), if ei_valid:
     * a poller about to sleep writes it only when it changes */
    uint32_t ei_last;
    bool ei_valid;
    /* Interrupt Coalescing (under lock): CQEs posted whose interrupt is
     * held back, and when the first of them was posted */
    uint32_t coal_count;
    int64_t coal_first_ns;
} FemuCQ;

typedef struct FemuSQ {
    FemuCtrl *n;
    uint16_t sqid;
    uint16_t cqid;
    uint32_t size;
    uint32_t head;          /* next entry to fetch (owner thread only) */
    uint32_t tail;          /* last MMIO doorbell value (atomic) */
    /* the tail femu_sq_fetch last read, while head is behind it: the
     * entries up to it are fetched without reading the doorbell again
     * (owner thread only) */
    uint32_t fetch_tail;
    uint32_t inflight;      /* fetched, not yet completed */
    uint64_t dma_addr;
    uint64_t db_addr;
    uint64_t ei_addr;
    FemuCQ *cq;
    FemuPoller *poller;     /* NULL for the admin SQ */
    /* the last fetch failed (ring unreachable): no work until the tail
     * or n->dma_gen changes (femu_sq_tail); owner thread only */
    bool stalled;
    uint32_t stall_tail;
    uint32_t stall_gen;
    /* the event index last written to ei_addr, if ei_valid (owner thread) */
    uint32_t ei_last;
    bool ei_valid;
} FemuSQ;

/* A completion waiting for its emulated time. */
typedef struct FemuPending {
    int64_t due_ns;
    uint64_t seq;           /* FIFO among equal due times */
    FemuSQ *sq;
    uint32_t result;
    uint16_t cid;
    uint16_t status;
} FemuPending;

struct FemuPoller {
    FemuCtrl *n;
    int index;
    QemuThread thread;
    QemuMutex lock;         /* sqs[], heap; held while serving them */
    /* futex word: 1 once kicked, until the poller takes it (poller.c) */
    uint32_t kick;
    bool stop;
    bool sleeping;

    FemuSQ *sqs[FEMU_MAX_IOQPAIRS];
    int nsqs;

    FemuPending *heap;      /* min-heap by (due_ns, seq) */
    size_t nheap;
    size_t heap_cap;
    /* due completions whose CQ was full, in due order: they wait for
     * the host to move that CQ's head, without a timer */
    FemuPending *parked;
    size_t nparked;
    size_t parked_cap;
    /* main-loop threads waiting for lock (atomic): a fetch round ends
     * early for them, so the BQL holder waits at most one command */
    int lock_waiters;
    uint64_t seq;
    int64_t irq_due_ns;     /* earliest due time of CQEs not yet signalled */
    int64_t clock_ns;       /* the poller's last clock read (get_clock) */
    /* earliest time an interrupt held back by Interrupt Coalescing on a
     * CQ of this poller's SQs is due (femu_coal_expire) */
    int64_t coal_due_ns;
    int rr;                 /* SQ the next fetch round starts with */
    int64_t wake_margin_ns; /* wake up this early for a due completion */
    int64_t spin_ns;        /* idle spin window now (adaptive, poller.c) */
    /* poller_batch: the policy of its sleeps (poller-batch.h); false
     * once the kernel refused SCHED_BATCH */
    FemuBatchPolicy batch;
    bool batch_allowed;
    /* a command run in steps (status FEMU_REQ_MORE): its next step comes
     * before any other command of this poller */
    struct FemuReq *more;
    /* written by this poller (the command counts also by a vCPU that
     * runs a doorbell's commands, under lock), on a cache line of their
     * own so that pollers on other cores do not share it (trace
     * femu_poller_stats) */
    struct {
        uint64_t commands;      /* I/O commands fetched */
        uint64_t completions;   /* CQEs posted */
        uint64_t inlined;       /* of those: in the sweep (hiops_inline) */
        uint64_t sleeps;        /* sleeps on the kick futex */
        uint64_t wakeups;       /* of those: ended by a kick, not timeout */
        uint64_t rounds;        /* passes of the loop: spinning shows here */
        /* interrupt sends (femu_irq_flush), the ns they took (the BQL
         * wait above all) and how many took over FEMU_IRQ_SLOW_NS: the
         * vCPUs and the main loop hold the BQL meanwhile */
        uint64_t irq_sends;
        uint64_t irq_ns;
        uint64_t irq_slow;
        /* doorbell_inline: of the commands, run by the vCPU that rang
         * the doorbell, and the doorbells that ran them (under lock) */
        uint64_t doorbell_runs;
        uint64_t doorbell_passes;
    } QEMU_ALIGNED(64) stats;
};

/* The result of executing one command. */
typedef struct FemuNamespace FemuNamespace;

typedef struct FemuReq {
    NvmeCmd cmd;
    FemuSQ *sq;
    FemuNamespace *ns;      /* the command's namespace (I/O commands) */
    uint16_t status;
    uint32_t result;
    int64_t arrival_ns;
    int64_t due_ns;         /* emulated completion time */
    uint32_t step;          /* a command run in steps: where it goes on */
    /* a media error: the first LBA that failed (error log entry) */
    uint64_t err_lba;
    bool err_lba_valid;
} FemuReq;

/* Bytes of the store one bit of its record of written chunks covers. */
#define FEMU_STORE_CHUNK        4096

typedef struct FemuStore {
    uint8_t *base;
    uint64_t size;
    /* one bit per FEMU_STORE_CHUNK bytes: set (atomically) after a write
     * copied data into the chunk, cleared before a discard zeroes all of
     * it.  A chunk whose bit is clear reads as zeroes; the state file
     * saves the chunks whose bit is set, whatever the kernel says of
     * their residency (swapped-out pages read as not resident). */
    unsigned long *written;
    /* one bit per chunk: written or discarded (in part) since the last
     * save of the state file, which writes only those and clears them */
    unsigned long *dirty;
} FemuStore;

#define FEMU_MAX_NAMESPACES     16

/*
 * One namespace (NSID = index + 1).  BlackBox SSD namespaces share the
 * controller's one FTL (n->ftl), each over its own range of the FTL's
 * logical blocks from ftl_base: one NAND, one GC, as on a real drive.  A
 * zoned namespace has its zones over a NAND slice of its own; NoSSD has
 * only its data.
 */
struct FemuNamespace {
    uint32_t nsid;
    const struct FemuModeOps *mode;
    uint64_t blocks;        /* NSZE = NCAP, logical blocks */
    uint64_t size_mb;       /* asked for (namespace_sizes); 0: devsz_mb */
    uint64_t ftl_base;      /* BlackBox: its first logical block in the FTL */
    FemuStore store;        /* its data */
    struct zns *zns;        /* zoned: its zones */
    uint8_t *zd_ext;        /* zoned: descriptor extensions, one per zone
                             * (zns_zd_ext_size bytes each), or NULL */
    QemuUUID uuid;          /* Identify descriptor 03h; null: none */
    /* SMART / Health per namespace (atomics; the controller's are apart) */
    uint64_t bytes_read;
    uint64_t bytes_written;
    uint64_t host_read_cmds;
    uint64_t host_write_cmds;
    /* Namespace Management (ns.c): the namespace exists (holds its FTL
     * range and its data) and is attached (active: I/O and Identify see
     * it).  Without ns_mgmt every namespace is both, from realize on. */
    bool allocated;
    bool attached;          /* read by the pollers (atomic) */
    /* Write Uncorrectable (io.c): one bit per logical block, made by the
     * first such command (atomic pointer, NULL until then); a set bit
     * reads as Unrecovered Read Error until the block is written, zeroed
     * or deallocated */
    unsigned long *uncor;
    /* BlackBox: its range of the FTL's per-namespace counters (C0h's ns_
     * fields; femu_ns_ranges), -1: none */
    int nsctr;
};

typedef struct FemuAerEvent {
    uint8_t type;
    uint8_t info;
    uint8_t log_page;
} FemuAerEvent;

#define FEMU_AER_QUEUED_MAX 16

/* Composite temperature thresholds (Identify WCTEMP, CCTEMP), kelvin */
#define FEMU_WCTEMP             343     /* 70 C */
#define FEMU_CCTEMP             373     /* 100 C */

/*
 * Feature values (NVMe 2.0 5.27.1) that Set Features changes and a
 * Controller Level Reset restores (features.c); the Timestamp, which
 * runs, is apart.
 */
typedef struct FemuFeatures {
    uint32_t arbitration;
    uint32_t power_mgmt;
    uint16_t temp_thresh_hi;        /* kelvin */
    uint16_t temp_thresh_lo;
    uint32_t err_rec;
    uint32_t vwc;
    uint32_t int_coalescing;
    uint32_t write_atomicity;
    uint32_t async_config;
    /* Interrupt Vector Configuration: Coalescing Disable, per vector */
    uint8_t ivc_cd[FEMU_MAX_IOQPAIRS + 1];
    bool nq_set;
    NvmeHostBehaviorSupport hbs;    /* FID 16h */
} FemuFeatures;

/* The femu device's properties but the FTL's (FemuCtrl.cfg). */
typedef struct FemuParams {
    uint32_t femu_mode;
    int32_t gc_strategy;
    int cache_evict;        /* enum ftl_cache_evict */
    int mapping;            /* enum ftl_mapping */
    char *serial;
    uint32_t queues;
    uint32_t npollers;
    uint8_t poller_rt;      /* SCHED_FIFO priority of the pollers, 0: off */
    uint8_t mdts;
    uint16_t mqes;
    char *subsys_id;        /* the subsys property: a femu-subsys id */
    QemuUUID uuid;          /* namespace UUID (descriptor 03h) */
    char *state_path;       /* the state property: a state file, or NULL */
    char *io_trace_path;    /* the io_trace property: a trace file, or NULL */
    /* Zoned Namespace SSD (femu_mode=3) */
    uint32_t zns_zone_luns;
    uint64_t zns_zone_size_mb;
    uint64_t zns_zone_cap_mb;
    uint32_t zns_max_open;
    uint32_t zns_max_active;
    uint8_t zns_zasl;
    bool zns_cross_zone_read;
    /* ZRWA and zone descriptor extensions (FEMU upstream's names) */
    uint64_t zns_zrwa_size;     /* ZRWA, logical blocks; 0: none */
    uint64_t zns_zrwafg_size;   /* ZRWA flush granularity, logical blocks */
    uint32_t zns_zrwa_num;      /* zones holding a ZRWA at once */
    uint32_t zns_zd_ext_size;   /* descriptor extension bytes; 0: none */
    /* FEMU upstream's names (props.c) */
    uint32_t namespaces;
    char *namespace_sizes;
    char *namespace_modes;
    uint8_t vwc;            /* Identify VWC: a volatile write cache */
    uint16_t vid;           /* PCI vendor and device IDs */
    uint16_t did;
    uint16_t oacs;          /* Identify OACS / ONCS reported */
    uint16_t oncs;
    bool ns_mgmt;           /* Namespace Management and Attachment (ns.c) */
    bool sgl;               /* SGLs for I/O commands (sgl.c) */
    /* injected media errors per million media reads / writes (io.c) */
    uint32_t err_read_unc_ppm;
    uint32_t err_write_fail_ppm;
    /* power loss (powercut.c): cut after this many write commands */
    uint64_t power_cut_after;
    uint32_t poller_spin_us; /* longest idle spin window (poller.c) */
    bool poller_batch;      /* idle pollers sleep as SCHED_BATCH (poller.c) */
    bool doorbell_inline;   /* a vCPU runs its QD1 commands (poller.c) */
    /* FEMU upstream's reset values of Interrupt Vector Configuration's
     * CD bit (every vector) and of Interrupt Coalescing (THR, TIME) */
    uint8_t intc;
    uint8_t intc_thresh;
    uint8_t intc_time;
    bool hiops_inline;      /* NoSSD I/O completes in the fetch sweep */
} FemuParams;

/*
 * What a namespace's mode (femu_mode, FEMU upstream's namespace_modes
 * token) does, chosen once at realize (mode.c): its back end, its NVM
 * commands and what Identify and the log pages say of it.  Adding a mode
 * is adding one table.
 */
typedef uint16_t (*FemuIoFn)(FemuCtrl *n, FemuReq *req);

struct FemuModeOps {
    uint32_t mode;              /* FEMU_MODE_* */
    const char *token;          /* FEMU upstream's namespace_modes name */
    const char *model;          /* Identify Controller MN */
    uint8_t csi;                /* command set of the namespace (NVMe 2.0
                                 * 5.17.2.3, descriptor 04h) */
    uint8_t dlfeat;             /* Identify Namespace DLFEAT */
    uint32_t oaes;              /* notices it adds to Identify OAES */
    /* the namespace's back end (FTL range, zones, nothing); sets
     * ns->blocks */
    bool (*realize)(FemuCtrl *n, FemuNamespace *ns, Error **errp);
    /* NVM commands; NULL: Invalid Command Opcode (and not in the
     * Commands Supported and Effects log) */
    FemuIoFn read;
    FemuIoFn write;
    FemuIoFn write_zeroes;
    FemuIoFn zone_append;
    FemuIoFn zone_mgmt_send;
    FemuIoFn zone_mgmt_recv;
    FemuIoFn compare;
    FemuIoFn verify;
    FemuIoFn write_uncor;
    FemuIoFn copy;
    /* reads of deallocated or unwritten blocks can fail (NSFEAT bit 2,
     * Error Recovery DULBE) */
    bool dulbe;
    /* Format NVM (format.c) may make its back end again for the other
     * LBA format */
    bool format;
    /* Dataset Management deallocate unmaps (false: a hint only) */
    bool dsm_deallocates;
    /* its blocks are a range of the controller's FTL (n->ftl) */
    bool uses_ftl;
    /* Identify CNS 05h / 06h for the mode's command set, into a zeroed
     * 4 KiB buffer; NULL for the NVM command set */
    void (*identify_ns_csi)(FemuCtrl *n, FemuNamespace *ns, uint8_t *buf);
    void (*identify_ctrl_csi)(FemuCtrl *n, uint8_t *buf);
    /* log page C0h's counters (NULL: nothing written, WAF 1000) */
    void (*log_c0)(FemuCtrl *n, FemuNamespace *ns, FemuLogFtl *log);
    /* 0xEF codes 1-5 on the back end (NULL: nothing to control) */
    void (*control)(FemuCtrl *n, FemuNamespace *ns, uint32_t code);
    /* its commands take no emulated time: with hiops_inline the poller
     * posts their CQE in the fetch sweep (poller.c) */
    bool complete_inline;
};
typedef struct FemuModeOps FemuModeOps;

struct FemuCtrl {
    PCIDevice parent_obj;

    MemoryRegion iomem;
    NvmeBar bar;

    /* properties: the FTL's (geometry, sizing, timing, GC) and the rest */
    struct ftl_config cfg;
    FemuParams params;
    /* the fields of property rows that have none above, and which
     * properties the command line gave (props.c) */
    uint64_t compat[FEMU_COMPAT_SLOTS];
    bool prop_given[FEMU_MAX_PROP_ROWS];
    int state_lock_fd;      /* PATH.lock, locked while the device uses PATH */
    /* the state file as the last load or save left it: its complete
     * generations (0: the next save writes a whole new file), where the
     * next generation goes, the bytes appended after the base, the size
     * of an FTL section */
    uint32_t state_gens;
    uint64_t state_end;
    uint64_t state_appended;
    uint64_t state_ftl_bytes;
    /* a save the guest asked for (0xEF code 8), run by save_thread; the
     * admin queue waits while save_running (main loop only) */
    QemuThread save_thread;
    QEMUBH *save_bh;
    bool save_running;
    NvmeCmd save_cmd;
    Error *save_err;
    Error *migration_blocker;   /* set while a state file is in use */
    FemuSubsys *subsys;     /* resolved from subsys_id at realize */
    const FemuModeOps *mode;    /* namespace 1's mode table (mode.c) */

    /* derived at realize */
    int instance;
    char sn[21];
    uint32_t lba_shift;     /* every namespace has the same block size */
    uint64_t max_xfer;      /* bytes, from mdts */
    uint32_t reg_size;
    int64_t start_ns;

    /* FTL (mode 1); ftl_lock makes one owner of the FTL at a time */
    struct ftl *ftl;
    uint64_t ftl_used;      /* FTL blocks the BlackBox namespaces took */
    QemuMutex ftl_lock;
    int ftl_waiters;        /* main-loop threads waiting for it (atomic) */

    /* Zoned namespace (mode 3), also owned under ftl_lock */

    FemuNamespace ns[FEMU_MAX_NAMESPACES];
    uint32_t nns;           /* namespaces: NSIDs 1..nns */

    /* queues; sq[0]/cq[0] are the admin queues */
    FemuSQ **sq;
    FemuCQ **cq;
    FemuPoller *pollers;
    QEMUBH *admin_bh;
    bool irq_level;
    bool irq_pending;       /* some CQ has irq_pending set by a poller */
    uint32_t intms;

    /* bumped by PCI config writes (bus mastering, BARs): stalled SQs
     * retry their fetch (atomic) */
    uint32_t dma_gen;

    /* Doorbell Buffer Config (NVMe 2.0 5.8): shadow doorbells */
    uint64_t dbbuf_dbs;
    uint64_t dbbuf_eis;
    /* MMIO doorbell writes to I/O queues (BQL held; trace
     * femu_doorbell_stats at exit): with shadow doorbells, how many the
     * event indexes did not spare the guest.  On a cache line of their
     * own: the vCPU threads write them for every doorbell, and the
     * pollers read irq_pending above on every pass. */
    struct {
        uint64_t sq;
        uint64_t cq;
        /* doorbell_inline: the I/O SQ whose tail doorbell came last and
         * when, and until when the guest counts as having several
         * submitters (femu_poller_doorbell) */
        uint16_t last_sqid;
        int64_t last_ns;
        int64_t multi_until_ns;
    } QEMU_ALIGNED(64) mmio_doorbells;

    FemuFeatures feat;
    uint16_t temperature;   /* kelvin */
    /* Timestamp (FID 0Eh): ts_base_ms at QEMU_CLOCK_VIRTUAL ts_at_ms */
    uint64_t ts_base_ms;
    int64_t ts_at_ms;
    bool ts_host_set;       /* origin 001b: set by Set Features */
    bool ts_stopped;        /* the VM stopped since: Synch = 1 */
    VMChangeStateEntry *vm_state;

    /* asynchronous events */
    uint16_t aer_cids[FEMU_AERL + 1];
    int naer;
    FemuAerEvent aer_queue[FEMU_AER_QUEUED_MAX];
    int naer_queued;
    uint8_t aer_mask;       /* event types awaiting a log read (RAE) */
    /* a Zone Descriptor Changed notice was raised and the host has not
     * read log BFh with RAE cleared since: a change raises no other */
    bool zdc_notice;

    /* error information log (ring of FEMU_ELPE + 1) */
    NvmeErrorLog errlog[FEMU_ELPE + 1];
    /* entry i waits for its CQE to learn the phase tag (status bit 0) */
    bool errlog_nophase[FEMU_ELPE + 1];
    uint64_t error_count;
    QemuMutex err_lock;     /* pollers and the main loop record errors */

    /* SMART counters (atomics; updated by pollers) */
    uint64_t bytes_read;
    uint64_t bytes_written;
    uint64_t host_read_cmds;
    uint64_t host_write_cmds;
    /* SMART Media and Data Integrity Errors (atomic) */
    uint64_t media_errors;
    /* draws of the injected-error generator so far (atomic, io.c) */
    uint64_t err_draws;

    /* per-I/O logging (0xEF codes 6/7): trace event femu_io_log */
    bool io_log;

    /* the FTL's spare is used up (ftl_read_only): writes fail before they
     * touch the store; set once seen (atomic), cleared only by a format
     * that makes a new FTL */
    bool media_ro;

    /* I/O capture (io_trace=, capture.c): the writer and the time base
     * are used under ftl_lock; capture_on is read without it */
    struct ftl_iotrace_writer *capture;
    int64_t capture_base_ns;
    bool capture_reported;  /* a write error was reported */
    bool capture_on;

    /* completion lateness, ns (see log page C1h): emulated completion
     * time to CQE written, and to the poller's interrupt step done */
    FemuLatHist lat_cqe;
    FemuLatHist lat_irq;

    /* FDP state (fdp.c); NULL when the controller has no FDP */
    FemuFdp *fdp;

    /* Namespace Management (ns.c): bit NSID - 1, the namespaces attached
     * or detached since the host last read log page 04h (RAE cleared) */
    uint32_t ns_changed;

    Notifier exit_notifier; /* stops the pollers when QEMU exits */

    /* power loss (powercut.c): the durable content of pages waiting in
     * the write cache (under ftl_lock), the write commands seen for
     * power_cut_after (atomic), and whether the power is cut (atomic:
     * nothing is fetched or completed until a controller reset) */
    GHashTable *wc_shadow;
    uint64_t pc_writes;
    bool powered_off;

    /* SMART / Health events of the wear (events.c): the FTL's retired
     * lines and read-only state last seen by a poller (under ftl_lock),
     * a check the admin bottom half owes (atomic), and the Critical
     * Warning bits already seen set (main loop) */
    uint32_t wear_seen;
    bool wear_check;
    uint8_t smart_warned;
    /* a namespace had Write Uncorrectable blocks (loaded or since): the
     * state file's generations carry UNC sections (state.c) */
    bool state_unc;
};

/* femu.c */
bool femu_is_bbssd(FemuCtrl *n);

/* The active (attached) namespace NSID names (1..nns), or NULL. */
static inline FemuNamespace *femu_ns(FemuCtrl *n, uint32_t nsid)
{
    return nsid >= 1 && nsid <= n->nns &&
           qatomic_read(&n->ns[nsid - 1].attached) ? &n->ns[nsid - 1] : NULL;
}

/*
 * SMART / Health counters of a command that completed successfully (NVMe
 * 2.0 5.16.1.3): the controller's page and the namespace's count it, with
 * the bytes it transferred (0 for Write Zeroes and Verify).
 */
static inline void femu_count_io(FemuCtrl *n, FemuNamespace *ns, bool write,
                                 uint64_t bytes)
{
    if (write) {
        qatomic_add(&n->bytes_written, bytes);
        qatomic_inc(&n->host_write_cmds);
        qatomic_add(&ns->bytes_written, bytes);
        qatomic_inc(&ns->host_write_cmds);
    } else {
        qatomic_add(&n->bytes_read, bytes);
        qatomic_inc(&n->host_read_cmds);
        qatomic_add(&ns->bytes_read, bytes);
        qatomic_inc(&ns->host_read_cmds);
    }
}

/* A namespace of command set CSI, or NULL. */
static inline FemuNamespace *femu_ns_of_csi(FemuCtrl *n, uint8_t csi)
{
    for (uint32_t i = 0; i < n->nns; i++) {
        if (n->ns[i].mode->csi == csi) {
            return &n->ns[i];
        }
    }
    return NULL;
}

/* mode.c: the table of femu_mode MODE, or NULL for a mode not provided */
const FemuModeOps *femu_mode_ops(uint32_t mode);
const FemuModeOps *femu_mode_by_token(const char *token);

/* props.c */
void femu_props_class_init(ObjectClass *oc);
void femu_subsys_props_class_init(ObjectClass *oc);
bool femu_props_check(FemuCtrl *n, Error **errp);
bool femu_subsys_props_check(FemuSubsys *s, Error **errp);
bool femu_prop_given(FemuCtrl *n, const char *name);

/* regs.c */
void femu_regs_init(FemuCtrl *n);
void femu_ctrl_reset(FemuCtrl *n);
void femu_irq_schedule(FemuCQ *cq);
void femu_irq_send(FemuCtrl *n);
bool femu_irq_flush(FemuCtrl *n);
void femu_irq_update_pin(FemuCtrl *n);
void femu_pci_config_write(PCIDevice *pdev, uint32_t addr, uint32_t val,
                           int len);

/* queues.c */
FemuCQ *femu_cq_new(FemuCtrl *n, uint16_t cqid, uint64_t addr, uint32_t size,
                    uint16_t vector, bool irq_enabled);
void femu_cq_free(FemuCtrl *n, FemuCQ *cq);
FemuSQ *femu_sq_new(FemuCtrl *n, uint16_t sqid, uint64_t addr, uint32_t size,
                    FemuCQ *cq);
void femu_sq_free(FemuCtrl *n, FemuSQ *sq);
bool femu_cq_post_coalesced(FemuCQ *cq, FemuSQ *sq, uint16_t cid,
                            uint16_t status, uint32_t result,
                            int64_t *coal_due);
bool femu_cq_coal_expire(FemuCQ *cq, int64_t now, int64_t *coal_due);
bool femu_cq_post(FemuCQ *cq, FemuSQ *sq, uint16_t cid, uint16_t status,
                  uint32_t result);
bool femu_cq_has_space(FemuCQ *cq);
uint32_t femu_sq_tail(FemuSQ *sq);
bool femu_sq_fetch(FemuSQ *sq, NvmeCmd *cmd);
void femu_sq_set_eventidx(FemuSQ *sq);
void femu_cq_set_eventidx(FemuCQ *cq);
void femu_dbbuf_attach(FemuCtrl *n, FemuSQ *sq);
void femu_queues_free_all(FemuCtrl *n);
bool femu_cq_head_valid(FemuCQ *cq, uint32_t head);
bool femu_sq_tail_valid(FemuSQ *sq, uint32_t tail);

/* prp.c */
bool femu_dma_is_ram(FemuCtrl *n, uint64_t addr, uint64_t len, bool to_guest);
bool femu_dma_read(FemuCtrl *n, uint64_t addr, void *buf, uint64_t len);
bool femu_dma_write(FemuCtrl *n, uint64_t addr, const void *buf, uint64_t len);
bool femu_dma_write_ordered(FemuCtrl *n, uint64_t addr, const void *buf,
                            uint64_t len);
uint16_t femu_dma_prp(FemuCtrl *n, uint64_t prp1, uint64_t prp2,
                      uint8_t *buf, uint64_t len, bool to_guest);
uint16_t femu_dma_cmd(FemuCtrl *n, NvmeCmd *cmd, uint8_t *buf, uint64_t len,
                      bool to_guest);

/* sgl.c: Scatter Gather Lists */
#define FEMU_SGL_MAX_DESCS      8192    /* descriptors read per command */
#define FEMU_SGL_MAX_SEGS       256     /* segments per command */
/* not in block/nvme.h: the Offset sub type and its status (NVMe 2.0) */
#define FEMU_SGL_DESCR_SUBTYPE_OFFSET   0x1
#define FEMU_SGL_OFFSET_INVALID         0x0016
uint16_t femu_dma_sgl(FemuCtrl *n, const NvmeSglDescriptor *sgl,
                      uint8_t *buf, uint64_t len, bool to_guest);

/* admin.c */
void femu_admin_bh(void *opaque);
uint32_t femu_admin_cmd_effects(FemuCtrl *n, uint8_t opc);
/* Identify Namespace (CNS 00h) of namespace ns into *id */
void femu_identify_ns_fill(FemuCtrl *n, FemuNamespace *ns, NvmeIdNs *id);

/* 0xEF codes 3 and 4: the NAND delay mode they select (both models) */
static inline enum ftl_delay_mode femu_ctrl_delay_mode(uint32_t code)
{
    return code == FEMU_CTRL_DELAY_BUILTIN ? FTL_DELAY_BUILTIN : FTL_DELAY_OFF;
}

/* features.c: Get/Set Features, Timestamp, Host Behavior Support */
uint16_t femu_get_feature(FemuCtrl *n, NvmeCmd *cmd, uint32_t *res);
uint16_t femu_set_feature(FemuCtrl *n, NvmeCmd *cmd, uint32_t *res);
void femu_features_reset(FemuCtrl *n);
bool femu_temp_warning(FemuCtrl *n);

/* events.c: error information log, asynchronous events */
void femu_error_record(FemuCtrl *n, uint16_t sqid, NvmeCmd *cmd,
                       uint16_t status);
/* the same, naming the LBA that failed (a media error) */
void femu_error_record_lba(FemuCtrl *n, uint16_t sqid, NvmeCmd *cmd,
                           uint16_t status, uint64_t lba);
void femu_error_set_phase(FemuCtrl *n, uint16_t sqid, uint16_t cid,
                          uint8_t phase);
void femu_error_log_fill(FemuCtrl *n, NvmeErrorLog *out);
uint64_t femu_error_count(FemuCtrl *n);
void femu_aer_event(FemuCtrl *n, uint8_t type, uint8_t info, uint8_t log);
void femu_aer_clear(FemuCtrl *n, uint8_t type);
uint16_t femu_aer_request(FemuCtrl *n, NvmeCmd *cmd);
void femu_aer_reset(FemuCtrl *n);
/* SMART / Health events of the wear: a poller notes a change (ftl_lock
 * held), the main loop posts what newly set (admin bottom half), and
 * arm takes the state as seen (realize, format) */
void femu_wear_note(FemuCtrl *n);
void femu_smart_events(FemuCtrl *n);
void femu_smart_events_arm(FemuCtrl *n);

/* log.c */
uint16_t femu_get_log(FemuCtrl *n, NvmeCmd *cmd);
uint8_t femu_wear_warnings(FemuCtrl *n);
void femu_lat_record(FemuLatHist *h, int64_t late_ns);
void femu_lat_reset(FemuCtrl *n);

/* io.c */
void femu_io_exec(FemuCtrl *n, FemuReq *req);
uint32_t femu_io_cmd_effects(FemuCtrl *n, const FemuModeOps *m, uint8_t opc);
/* the BlackBox and NoSSD namespaces' NVM commands (mode.c's tables) */
uint16_t femu_io_read(FemuCtrl *n, FemuReq *req);
uint16_t femu_io_write(FemuCtrl *n, FemuReq *req);
uint16_t femu_io_write_zeroes(FemuCtrl *n, FemuReq *req);
uint16_t femu_io_compare(FemuCtrl *n, FemuReq *req);
uint16_t femu_io_verify(FemuCtrl *n, FemuReq *req);
uint16_t femu_io_write_uncor(FemuCtrl *n, FemuReq *req);
uint16_t femu_io_copy(FemuCtrl *n, FemuReq *req);
uint32_t femu_copy_max_blocks(FemuCtrl *n);

/* format.c: Format NVM */
bool femu_format_supported(FemuCtrl *n);
uint16_t femu_format(FemuCtrl *n, NvmeCmd *cmd);

/* poller.c */
void femu_pollers_start(FemuCtrl *n, Error **errp);
void femu_pollers_stop(FemuCtrl *n);
void femu_poller_attach(FemuCtrl *n, FemuSQ *sq);
void femu_poller_detach(FemuCtrl *n, FemuSQ *sq);
/*
 * The bus master address space every DMA goes through: the PCI device's
 * own (&parent_obj.bus_master_as), fixed for its life; taken without a
 * checked QOM cast, which costs a little on every access of a poller.
 */
static inline AddressSpace *femu_dma_as(FemuCtrl *n)
{
    return pci_get_address_space(&n->parent_obj);
}

void femu_poller_kick(FemuPoller *p);
void femu_poller_doorbell(FemuCtrl *n, FemuSQ *sq);
void femu_pollers_kick_all(FemuCtrl *n);
void femu_pollers_kick_parked(FemuCtrl *n, FemuCQ *cq);
void femu_pollers_quiesce(FemuCtrl *n);
void femu_pollers_lock_all(FemuCtrl *n);
void femu_ftl_lock(FemuCtrl *n);
void femu_ftl_lock_main(FemuCtrl *n);
/* features.c: the FTL's write cache follows feat.vwc */
void femu_wcache_apply(FemuCtrl *n);
/* powercut.c */
void femu_powercut_init(FemuCtrl *n);
void femu_powercut_fini(FemuCtrl *n);
void femu_powercut_flushed(FemuCtrl *n);
void femu_powercut_before_write(FemuCtrl *n, FemuNamespace *ns,
                                uint64_t slba, uint32_t nlb, int64_t now);
bool femu_power_cut(FemuCtrl *n, const char *why, bool main_loop);
void femu_power_restore(FemuCtrl *n);
/* regs.c: CSTS.CFS (the controller stopped) */
void femu_ctrl_fatal(FemuCtrl *n);
void femu_pollers_unlock_all(FemuCtrl *n);
uint64_t femu_pollers_wake_margin(FemuCtrl *n);

/* capture.c: io_trace= (docs/trace.md) */
bool femu_capture_realize(FemuCtrl *n, Error **errp);
void femu_capture_fini(FemuCtrl *n);
/* one record, ftl_lock held, after the FTL call it describes: nsid the
 * command's namespace (0 for an RUH update or a control), slba in the
 * FTL's logical space (the namespace's ftl_base added) */
void femu_capture(FemuCtrl *n, uint32_t nsid, uint8_t op, uint8_t flags,
                  uint64_t slba, uint32_t nlb, uint32_t arg, int64_t at_ns,
                  int64_t done_ns);
/* a Flush (takes ftl_lock while a trace is being written) */
void femu_capture_flush(FemuCtrl *n, uint32_t nsid, int64_t at_ns);
uint16_t femu_capture_control(FemuCtrl *n, uint32_t code);

/* state.c */
bool femu_state_realize(FemuCtrl *n, Error **errp);
bool femu_block_migration(FemuCtrl *n, Error **errp);
void femu_state_unrealize(FemuCtrl *n);
bool femu_state_load(FemuCtrl *n, Error **errp);
bool femu_state_save(FemuCtrl *n, Error **errp);
void femu_state_exit(FemuCtrl *n);
uint16_t femu_state_save_now(FemuCtrl *n, NvmeCmd *cmd);
bool femu_state_saving(FemuCtrl *n);
void femu_state_save_wait(FemuCtrl *n);
void femu_state_class_init(ObjectClass *oc);

/* store.c */
int femu_store_init(FemuStore *s, uint64_t bytes, Error **errp);
void femu_store_fini(FemuStore *s);
void femu_store_discard(FemuStore *s, uint64_t off, uint64_t len);
/* Data was copied into [off, off + len): record its chunks as written. */
void femu_store_mark(FemuStore *s, uint64_t off, uint64_t len);
/* Where a read of [off, off + len) copies from: the store, or zeroes
 * when none of its chunks was written (store.c). */
uint8_t *femu_store_read_src(FemuStore *s, uint64_t off, uint64_t len);

/* fdp.c: Flexible Data Placement hooks.  Without a subsystem
 * with fdp=on every hook reports "not supported". */
bool femu_fdp_realize(FemuCtrl *n, Error **errp);
void femu_fdp_unrealize(FemuCtrl *n);
void femu_fdp_fill_cfg(FemuCtrl *n, struct ftl_config *cfg);
uint32_t femu_fdp_ctratt(FemuCtrl *n);
uint16_t femu_fdp_endgid(FemuCtrl *n);
/* Build log page lid into *buf (g_malloc'd, *len bytes); NVME_SUCCESS or
 * NVME_INVALID_LOG_ID when the page is not an FDP one or FDP is off. */
uint16_t femu_fdp_log(FemuCtrl *n, uint8_t lid, uint16_t lsi, uint8_t lsp,
                      uint8_t **buf, size_t *len);
uint16_t femu_fdp_get_feature(FemuCtrl *n, NvmeCmd *cmd, uint32_t *result);
uint16_t femu_fdp_set_feature(FemuCtrl *n, NvmeCmd *cmd, uint32_t *result);
/* Controller level reset: FDP event enables revert to the saved ones. */
void femu_fdp_ctrl_reset(FemuCtrl *n);
/* Placement id of a write into *pid (FTL_PID_NONE without a directive);
 * returns an NVMe status. */
uint16_t femu_fdp_write_pid(FemuCtrl *n, NvmeCmd *cmd, uint32_t *pid);
/* I/O Management Receive/Send; called with the FTL unlocked. */
uint16_t femu_fdp_io_mgmt_recv(FemuCtrl *n, FemuReq *req);
uint16_t femu_fdp_io_mgmt_send(FemuCtrl *n, FemuReq *req);

/* zns.c: Zoned Namespace SSD, femu_mode=3 */
bool femu_is_zns(FemuCtrl *n);
FemuNamespace *femu_zns_ns(FemuCtrl *n);
/* main loop: zones the controller changed (worn out) raise the Zone
 * Descriptor Changed notice as 0xEF code 9 does */
void femu_zns_changed_notice(FemuCtrl *n);
bool femu_zns_realize(FemuCtrl *n, FemuNamespace *ns, Error **errp);
void femu_zns_unrealize(FemuNamespace *ns);
/* Identify CNS 06h / 05h for CSI 02h into a zeroed 4 KiB buffer. */
void femu_zns_identify_ctrl(FemuCtrl *n, uint8_t *buf);
void femu_zns_identify_ns(FemuCtrl *n, FemuNamespace *ns, uint8_t *buf);
uint16_t femu_zns_write(FemuCtrl *n, FemuReq *req, bool append, bool zeroes);
uint16_t femu_zns_write_cmd(FemuCtrl *n, FemuReq *req);
uint16_t femu_zns_append(FemuCtrl *n, FemuReq *req);
uint16_t femu_zns_write_zeroes(FemuCtrl *n, FemuReq *req);
void femu_zns_log_c0(FemuCtrl *n, FemuNamespace *ns, FemuLogFtl *log);
/* log.c: C0h's wear fields, for each mode's log_c0 */
void femu_log_c0_wear(FemuLogFtl *log, const struct ftl_wear_info *w,
                      uint32_t pe_cycles);
uint16_t femu_zns_read(FemuCtrl *n, FemuReq *req);
uint16_t femu_zns_mgmt_send(FemuCtrl *n, FemuReq *req);
uint16_t femu_zns_mgmt_recv(FemuCtrl *n, FemuReq *req);
void femu_zns_control(FemuCtrl *n, FemuNamespace *ns, uint32_t code);
/* Changed Zone List log page BFh into a zeroed 4096-byte buffer. */
void femu_zns_log_changed(FemuCtrl *n, uint8_t *buf);
/* A read of BFh with RAE cleared that transferred bytes off .. off +
 * len - 1 of the page: the zones it transferred leave the list. */
void femu_zns_changed_read(FemuCtrl *n, uint64_t off, uint64_t len);
/* 0xEF code 9: a zone fails (Read Only or Offline), as media would. */
uint16_t femu_zns_fail_zone(FemuCtrl *n, NvmeCmd *cmd);

/*
 * ns.c: Namespace Management (NVMe 2.0 5.23) and Namespace Attachment
 * (5.22), with ns_mgmt=on.  What QEMU's block/nvme.h lacks: the Namespace
 * Management opcode and two of its statuses.
 */
#define FEMU_ADM_CMD_NS_MGMT            0x0d
#define FEMU_NS_INSUFFICIENT_CAPAC      0x0115
#define FEMU_NS_ID_UNAVAILABLE          0x0116
#define FEMU_NS_MGMT_CREATE             0x0
#define FEMU_NS_MGMT_DELETE             0x1
bool femu_ns_mgmt_check(FemuCtrl *n, Error **errp);
void femu_ns_mgmt_realize(FemuCtrl *n);
void femu_ns_ranges(FemuCtrl *n);
uint16_t femu_ns_mgmt(FemuCtrl *n, NvmeCmd *cmd, uint32_t *res);
uint16_t femu_ns_attach(FemuCtrl *n, NvmeCmd *cmd);
/* Identify CNS 10h-13h into the zeroed 4 KiB buffer; an NVMe status */
uint16_t femu_ns_identify(FemuCtrl *n, NvmeCmd *cmd, uint8_t *buf);
/* Identify Controller TNVMCAP / UNVMCAP, Identify Namespace NVMCAP */
void femu_ns_fill_ctrl(FemuCtrl *n, NvmeIdCtrl *id);
uint64_t femu_ns_nvmcap(FemuCtrl *n, FemuNamespace *ns);
/* log page 04h into a zeroed 4096-byte buffer; a read with RAE cleared
 * empties the list */
void femu_ns_changed_log(FemuCtrl *n, uint8_t *buf);
void femu_ns_changed_read(FemuCtrl *n);

#endif /* HW_FEMU_FEMU_H */
