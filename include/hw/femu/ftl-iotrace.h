/*
 * FEMU I/O traces: the commands that reached the FTL, in the order the
 * FTL applied them, in a compact binary file (docs/trace.md has the
 * layout).  The `femu` device writes them (io_trace= property) and
 * femu-sim --replay reads them; both use this file, which needs no QEMU.
 *
 *   header:  256 bytes: "FEMUIOTR", version, sizes, the FTL properties
 *            the trace was recorded with, CRC32C of the header
 *   records: 40 bytes each: op, flags, nsid, slba, nlb, arg (placement
 *            id, reclaim unit handle or 0xEF code), time_ns, done_ns
 *   END:     a last record that holds the number of records before it
 *
 * all little-endian.  A file without END was not closed (the device
 * stopped before closing it, or the file was cut): the reader refuses it
 * at the record where it ends.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_FEMU_FTL_IOTRACE_H
#define HW_FEMU_FTL_IOTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hw/femu/ftl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FTL_IOTRACE_MAGIC     "FEMUIOTR"
#define FTL_IOTRACE_VERSION   1
#define FTL_IOTRACE_HDR_SIZE  256
#define FTL_IOTRACE_REC_SIZE  40
/* namespace ids a record may carry (the device offers up to 16) */
#define FTL_IOTRACE_MAX_NSID  16

/* Record operations: each is one FTL step of the device (ftl_iotrace_apply
 * does what the device did). */
enum ftl_iotrace_op {
    FTL_IOTRACE_READ = 1,         /* ftl_read, then background GC */
    FTL_IOTRACE_WRITE = 2,        /* ftl_write (arg: placement id), GC */
    FTL_IOTRACE_DEALLOC = 3,      /* DSM deallocate range: ftl_trim, then
                                   * background GC unless F_MORE */
    FTL_IOTRACE_WRITE_ZEROES = 4, /* ftl_trim, no GC */
    FTL_IOTRACE_FLUSH = 5,        /* counted; flushes the write cache
                                   * (write_cache_mb), if any */
    FTL_IOTRACE_RUH_UPDATE = 6,   /* FDP RUH update of handle arg */
    FTL_IOTRACE_CONTROL = 7,      /* 0xEF code arg (1-5) */
    FTL_IOTRACE_END = 8,          /* slba: number of records before it */
    FTL_IOTRACE_NOPS
};

/* DEALLOC: more ranges of the same Dataset Management command follow; the
 * device runs background GC once, after the last range. */
#define FTL_IOTRACE_F_MORE  0x01

/* Header flags */
/* Recording began on an FTL that already held data (started at run time
 * by 0xEF, or after a state file was loaded): replaying it on an empty
 * FTL does not give the device's counters. */
#define FTL_IOTRACE_HF_MIDRUN  0x01

struct ftl_iotrace_hdr {
    uint32_t version;
    uint32_t flags;               /* FTL_IOTRACE_HF_* */
    struct ftl_config cfg;        /* the device's FTL properties */
    uint64_t ns_blocks;           /* namespace size in cfg.secsz blocks */
};

struct ftl_iotrace_rec {
    uint8_t op;                   /* enum ftl_iotrace_op */
    uint8_t flags;                /* FTL_IOTRACE_F_* */
    uint32_t nsid;                /* the command's namespace (1 to 16);
                                   * FLUSH may carry FFFFFFFFh; 0 for
                                   * RUH_UPDATE and CONTROL */
    uint64_t slba;                /* in the FTL's logical space: the
                                   * namespaces end to end */
    uint32_t nlb;
    uint32_t arg;                 /* WRITE: placement id (FTL_PID_NONE for
                                   * none); RUH_UPDATE: handle; CONTROL:
                                   * 0xEF code */
    uint64_t time_ns;             /* when the FTL took it, ns since the
                                   * trace started */
    uint64_t done_ns;             /* emulated completion (READ, WRITE), same
                                   * time base; FTL_TIME_ERROR for a write
                                   * fault; else 0 */
};

/* Header <-> bytes.  decode checks magic, version, sizes and the CRC:
 * 0, or -1 with a one-line reason in err. */
void ftl_iotrace_encode_hdr(const struct ftl_iotrace_hdr *h,
                            uint8_t buf[FTL_IOTRACE_HDR_SIZE]);
int ftl_iotrace_decode_hdr(const uint8_t *buf, size_t len,
                           struct ftl_iotrace_hdr *h, char *err,
                           size_t errlen);
/* The header of a device (or femu-sim) with this FTL configuration. */
void ftl_iotrace_hdr_of(struct ftl_iotrace_hdr *h, const struct ftl_config *c,
                        uint64_t ns_blocks, uint32_t flags);

void ftl_iotrace_encode_rec(const struct ftl_iotrace_rec *r,
                            uint8_t buf[FTL_IOTRACE_REC_SIZE]);
void ftl_iotrace_decode_rec(const uint8_t *buf, struct ftl_iotrace_rec *r);
/*
 * Check one record against the FTL it is replayed on (namespace size
 * ns_blocks, fdp_nruh handles): known op and flags, reserved bytes zero,
 * namespace id, LBA range inside the namespace, a valid handle or 0xEF
 * code.  0, or -1 with the reason in err (the caller names the record).
 */
int ftl_iotrace_check_rec(const struct ftl_iotrace_rec *r,
                          const uint8_t *raw, uint64_t ns_blocks,
                          uint32_t fdp_nruh, char *err, size_t errlen);
/*
 * The properties that shape where data lands (the geometry: nchs,
 * luns_per_ch, pls_per_lun, blks_per_pl, pgs_per_blk, secsz,
 * secs_per_pg) must be those of the trace; sizing, GC, FDP and timing
 * may differ (a "what if" replay).  0, or -1 naming the first property
 * that differs and both values.
 */
int ftl_iotrace_check_config(const struct ftl_iotrace_hdr *h,
                             const struct ftl_config *cfg, char *err,
                             size_t errlen);

/*
 * Apply one checked record to ftl as the device did at now_ns: the
 * completion time for READ and WRITE (FTL_TIME_ERROR for a write fault),
 * now_ns for the others.
 */
uint64_t ftl_iotrace_apply(struct ftl *ftl, const struct ftl_iotrace_rec *r,
                           uint64_t now_ns);

/*
 * Buffered writer.  A write error or a full disk stops the trace: every
 * later append is dropped, ftl_iotrace_writer_failed() says so and
 * ftl_iotrace_writer_error() gives the message.
 */
struct ftl_iotrace_writer;

/* Create PATH (truncated) and write the header; NULL with a message. */
struct ftl_iotrace_writer *ftl_iotrace_writer_open(
    const char *path, const struct ftl_iotrace_hdr *h, char *err,
    size_t errlen);
void ftl_iotrace_writer_append(struct ftl_iotrace_writer *w,
                               const struct ftl_iotrace_rec *r);
bool ftl_iotrace_writer_failed(const struct ftl_iotrace_writer *w);
const char *ftl_iotrace_writer_error(const struct ftl_iotrace_writer *w);
uint64_t ftl_iotrace_writer_records(const struct ftl_iotrace_writer *w);
/* Append END, flush and close; frees w.  0, or -1 with a message (the
 * trace was stopped by an error, or closing failed). */
int ftl_iotrace_writer_close(struct ftl_iotrace_writer *w, char *err,
                             size_t errlen);

const char *ftl_iotrace_op_name(unsigned op);

#ifdef __cplusplus
}
#endif

#endif /* HW_FEMU_FTL_IOTRACE_H */
