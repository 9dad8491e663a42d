/*
 * femu-test cases: Scatter Gather Lists (NVMe Base 2.0, 4.1.2), sent as
 * hand-built descriptor lists: a data block in the command, chained
 * segments, a last segment, bit buckets, and every bad list with the
 * status the spec names for it.  Every read lands in buffers surrounded
 * by a canary pattern: a case passes only if the bytes it should write
 * hold the data and no other byte changed (a bad SGL writes nothing).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu-host.h"

#define SGL_T        (16 * 1024)    /* bytes each command moves */
#define ARENA        (64 * 1024)    /* data buffers live in here */
#define CANARY       0xa5
#define MAX_DESCS    8192           /* FEMU_SGL_MAX_DESCS */
#define MAX_SEGS     256            /* FEMU_SGL_MAX_SEGS */

/* SGL Offset Invalid: not in block/nvme.h */
#define SGL_OFFSET_INVALID 0x0016

typedef struct Sgl {
    Ctrl *c;
    uint64_t arena;         /* ARENA bytes of guest RAM for data */
    uint64_t lists;         /* 40 pages for segments */
    uint8_t ref[SGL_T];     /* what LBAs 0.. hold */
    uint8_t *img;           /* what the arena should hold */
} Sgl;

static NvmeSglDescriptor dsc(uint64_t addr, uint32_t len, uint8_t type)
{
    NvmeSglDescriptor d = {
        .addr = cpu_to_le64(addr), .len = cpu_to_le32(len), .type = type,
    };
    return d;
}

#define DATA(a, l)  dsc((a), (l), NVME_SGL_DESCR_TYPE_DATA_BLOCK << 4)
#define BUCKET(l)   dsc(0, (l), NVME_SGL_DESCR_TYPE_BIT_BUCKET << 4)
#define SEG(a, n)   dsc((a), (n) * 16, NVME_SGL_DESCR_TYPE_SEGMENT << 4)
#define LAST(a, n)  dsc((a), (n) * 16, NVME_SGL_DESCR_TYPE_LAST_SEGMENT << 4)

static void put_seg(Sgl *s, uint64_t at, const NvmeSglDescriptor *d, int n)
{
    qtest_memwrite(s->c->qts, at, d, n * sizeof(*d));
}

/* A Read/Write/Compare of SGL_T bytes at LBA 0 with first descriptor d. */
static uint16_t sgl_io(Sgl *s, uint8_t opc, NvmeSglDescriptor d, int psdt)
{
    NvmeCmd cmd = mk(opc, 1, 0, 0);

    cmd.flags = psdt << 6;
    cmd.dptr.sgl = d;
    cmd.cdw12 = cpu_to_le32((SGL_T >> s->c->lba_shift) - 1);
    return run(s->c, IOQ, &cmd, NULL);
}

/* Fill the arena with the canary (and the image with it). */
static void arena_reset(Sgl *s)
{
    memset(s->img, CANARY, ARENA);
    qtest_memset(s->c->qts, s->arena, CANARY, ARENA);
}

/* The arena holds exactly the image: nothing written outside. */
static void arena_check(Sgl *s)
{
    g_autofree uint8_t *got = g_malloc(ARENA);

    qtest_memread(s->c->qts, s->arena, got, ARENA);
    for (size_t i = 0; i < ARENA; i++) {
        if (got[i] != s->img[i]) {
            g_error("arena byte %zu: 0x%02x, expected 0x%02x", i, got[i],
                    s->img[i]);
        }
    }
}

/* A piece of the read: ref[src, src + len) is expected at arena + off. */
static NvmeSglDescriptor piece(Sgl *s, uint64_t off, uint32_t src,
                               uint32_t len)
{
    memcpy(s->img + off, s->ref + src, len);
    return DATA(s->arena + off, len);
}

/* LBAs 0.. hold the data of ref[] (written with PRPs). */
static void ref_write(Sgl *s, uint8_t seed)
{
    for (size_t i = 0; i < SGL_T; i++) {
        s->ref[i] = (uint8_t)(i * 13 + seed + (i >> 9));
    }
    qtest_memwrite(s->c->qts, s->c->buf, s->ref, SGL_T);
    {
        uint64_t l = s->lists + 39 * PAGE;
        uint64_t e[3] = { cpu_to_le64(s->c->buf + PAGE),
                          cpu_to_le64(s->c->buf + 2 * PAGE),
                          cpu_to_le64(s->c->buf + 3 * PAGE) };
        qtest_memwrite(s->c->qts, l, e, sizeof(e));
        g_assert_cmphex(rw(s->c, NVME_CMD_WRITE, 0, SGL_T >> s->c->lba_shift,
                           s->c->buf, l), ==, NVME_SUCCESS);
    }
}

/* LBAs 0.. read with PRPs equal ref[]. */
static void ref_check(Sgl *s)
{
    uint8_t got[SGL_T];
    uint64_t l = s->lists + 39 * PAGE;

    qtest_memset(s->c->qts, s->c->buf, 0, SGL_T);
    g_assert_cmphex(rw(s->c, NVME_CMD_READ, 0, SGL_T >> s->c->lba_shift,
                       s->c->buf, l), ==, NVME_SUCCESS);
    qtest_memread(s->c->qts, s->c->buf, got, SGL_T);
    g_assert(memcmp(got, s->ref, SGL_T) == 0);
}

static Sgl *sgl_start(const char *opts)
{
    Sgl *s = g_new0(Sgl, 1);

    s->c = ctrl_start(opts);
    s->arena = guest_alloc(&s->c->qs->alloc, ARENA);
    s->lists = guest_alloc(&s->c->qs->alloc, 40 * PAGE);
    s->img = g_malloc(ARENA);
    return s;
}

static void sgl_stop(Sgl *s)
{
    health(s->c);
    ctrl_stop(s->c);
    g_free(s->img);
    g_free(s);
}

/* Reads that must succeed: each places the data where the SGL says. */
static void good_reads(Sgl *s)
{
    uint64_t L = s->lists;
    NvmeSglDescriptor d[8];

    /* one Data Block in the command, both SGL PSDT values */
    for (int psdt = 1; psdt <= 2; psdt++) {
        arena_reset(s);
        d[0] = piece(s, 100, 0, SGL_T);
        g_assert_cmphex(sgl_io(s, NVME_CMD_READ, d[0], psdt), ==,
                        NVME_SUCCESS);
        arena_check(s);
    }

    /* a Last Segment of byte-aligned pieces of odd lengths, out of order
     * in the arena, with a zero-length data block (valid, moves nothing) */
    arena_reset(s);
    d[0] = piece(s, 40001, 0, 1000);
    d[1] = piece(s, 3, 1000, 3);
    d[2] = DATA(s->arena + 60000, 0);
    d[3] = piece(s, 20000, 1003, 5000);
    d[4] = piece(s, 7, 6003, SGL_T - 6003);
    put_seg(s, L, d, 5);
    g_assert_cmphex(sgl_io(s, NVME_CMD_READ, LAST(L, 5), 1), ==,
                    NVME_SUCCESS);
    arena_check(s);

    /* chained: Segment -> [data, data, Segment] -> [data, Last Segment]
     * -> [data, data] */
    arena_reset(s);
    d[0] = piece(s, 0, 0, 4096);
    d[1] = piece(s, 8192, 4096, 512);
    d[2] = SEG(L + PAGE, 2);
    put_seg(s, L, d, 3);
    d[0] = piece(s, 30000, 4608, 4000);
    d[1] = LAST(L + 2 * PAGE + 64, 2);
    put_seg(s, L + PAGE, d, 2);
    d[0] = piece(s, 50000, 8608, 7000);
    d[1] = piece(s, 12000, 15608, SGL_T - 15608);
    put_seg(s, L + 2 * PAGE + 64, d, 2);
    g_assert_cmphex(sgl_io(s, NVME_CMD_READ, SEG(L, 3), 1), ==,
                    NVME_SUCCESS);
    arena_check(s);

    /* bit buckets discard their part of the data: nothing is written for
     * them, and the pieces after them hold the data after the hole */
    arena_reset(s);
    d[0] = piece(s, 1000, 0, 1000);
    d[1] = BUCKET(3000);
    d[2] = piece(s, 9000, 4000, 4096);
    d[3] = BUCKET(1);
    d[4] = piece(s, 20000, 8097, SGL_T - 8097);
    put_seg(s, L, d, 5);
    g_assert_cmphex(sgl_io(s, NVME_CMD_READ, LAST(L, 5), 1), ==,
                    NVME_SUCCESS);
    arena_check(s);
    /* a read that discards everything: a Bit Bucket in the command */
    arena_reset(s);
    g_assert_cmphex(sgl_io(s, NVME_CMD_READ, BUCKET(SGL_T), 1), ==,
                    NVME_SUCCESS);
    arena_check(s);

    /* a read landing on its own segment list: the list was read first */
    arena_reset(s);
    d[0] = DATA(L, SGL_T);
    put_seg(s, L, d, 1);
    g_assert_cmphex(sgl_io(s, NVME_CMD_READ, LAST(L, 1), 1), ==,
                    NVME_SUCCESS);
    {
        uint8_t got[SGL_T];
        qtest_memread(s->c->qts, L, got, SGL_T);
        g_assert(memcmp(got, s->ref, SGL_T) == 0);
    }
    arena_check(s);
}

/* A bad read SGL: its status, and no byte of the arena written. */
static void bad_read(Sgl *s, NvmeSglDescriptor first, int psdt,
                     uint16_t want)
{
    g_assert_cmphex(sgl_io(s, NVME_CMD_READ, first, psdt), ==, want);
    arena_check(s);
}

static void bad_reads(Sgl *s)
{
    uint64_t L = s->lists, far = 0xfff0000000ull, A = s->arena;
    NvmeSglDescriptor d[4];

    arena_reset(s);     /* the image stays all canary: nothing lands */

    /* descriptor types and sub types FEMU does not support */
    bad_read(s, dsc(A, SGL_T, NVME_SGL_DESCR_TYPE_KEYED_DATA_BLOCK << 4), 1,
             NVME_SGL_DESCR_TYPE_INVALID);
    bad_read(s, dsc(A, SGL_T, 0x50), 1, NVME_SGL_DESCR_TYPE_INVALID);
    bad_read(s, dsc(A, SGL_T, 0xf0), 1, NVME_SGL_DESCR_TYPE_INVALID);
    bad_read(s, dsc(A, SGL_T, 0x70), 1, NVME_SGL_DESCR_TYPE_INVALID);
    bad_read(s, dsc(A, SGL_T, 0x01), 1, SGL_OFFSET_INVALID);
    bad_read(s, dsc(A, SGL_T, 0x0a), 1, NVME_SGL_DESCR_TYPE_INVALID);
    d[0] = DATA(A, 100);
    d[1] = dsc(A + 100, SGL_T - 100, 0x01);
    put_seg(s, L, d, 2);
    bad_read(s, LAST(L, 2), 1, SGL_OFFSET_INVALID);
    d[1] = dsc(A + 100, SGL_T - 100, 0x40);
    put_seg(s, L, d, 2);
    bad_read(s, LAST(L, 2), 1, NVME_SGL_DESCR_TYPE_INVALID);

    /* lengths that do not match the command's NLB */
    bad_read(s, DATA(A, SGL_T - 1), 1, NVME_DATA_SGL_LEN_INVALID);
    bad_read(s, DATA(A, SGL_T + 1), 1, NVME_DATA_SGL_LEN_INVALID);
    bad_read(s, DATA(A, 0), 1, NVME_DATA_SGL_LEN_INVALID);
    d[0] = DATA(A, SGL_T / 2);
    d[1] = DATA(A + SGL_T, SGL_T / 2 - 512);
    put_seg(s, L, d, 2);
    bad_read(s, LAST(L, 2), 1, NVME_DATA_SGL_LEN_INVALID);
    d[1] = DATA(A + SGL_T, SGL_T / 2);
    d[2] = DATA(A + 2 * SGL_T, 1);      /* one byte too many */
    put_seg(s, L, d, 3);
    bad_read(s, LAST(L, 3), 1, NVME_DATA_SGL_LEN_INVALID);
    d[2] = BUCKET(16);
    put_seg(s, L, d, 3);
    bad_read(s, LAST(L, 3), 1, NVME_DATA_SGL_LEN_INVALID);
    /* all data described, then another segment */
    d[0] = DATA(A, SGL_T);
    d[1] = LAST(L + PAGE, 1);
    put_seg(s, L, d, 2);
    d[0] = DATA(A, 0);
    put_seg(s, L + PAGE, d, 1);
    bad_read(s, SEG(L, 2), 1, NVME_DATA_SGL_LEN_INVALID);
    /* a data block that wraps the address space */
    bad_read(s, DATA(UINT64_MAX - 100, SGL_T), 1, NVME_DATA_SGL_LEN_INVALID);

    /* (Last) Segment descriptors: length 0, not a multiple of 16, a
     * segment not Qword aligned */
    bad_read(s, LAST(L, 0), 1, NVME_INVALID_SGL_SEG_DESCR);
    bad_read(s, dsc(L, 24, NVME_SGL_DESCR_TYPE_LAST_SEGMENT << 4), 1,
             NVME_INVALID_SGL_SEG_DESCR);
    bad_read(s, dsc(L, 0, NVME_SGL_DESCR_TYPE_SEGMENT << 4), 1,
             NVME_INVALID_SGL_SEG_DESCR);
    d[0] = DATA(A, SGL_T);
    put_seg(s, L + 4, d, 1);
    bad_read(s, LAST(L + 4, 1), 1, NVME_INVALID_SGL_SEG_DESCR);
    /* a last segment that points on */
    d[0] = DATA(A, 512);
    d[1] = LAST(L + PAGE, 1);
    put_seg(s, L, d, 2);
    d[0] = DATA(A + 512, SGL_T - 512);
    put_seg(s, L + PAGE, d, 1);
    bad_read(s, LAST(L, 2), 1, NVME_INVALID_SGL_SEG_DESCR);
    d[1] = SEG(L + PAGE, 1);
    put_seg(s, L, d, 2);
    bad_read(s, LAST(L, 2), 1, NVME_INVALID_SGL_SEG_DESCR);
    /* a segment descriptor before the end of its segment */
    d[0] = SEG(L + PAGE, 1);
    d[1] = DATA(A, SGL_T);
    put_seg(s, L, d, 2);
    bad_read(s, SEG(L, 2), 1, NVME_INVALID_NUM_SGL_DESCRS);
    d[0] = DATA(A, 512);
    d[1] = LAST(L + PAGE, 1);
    d[2] = DATA(A + 512, 512);
    put_seg(s, L, d, 3);
    bad_read(s, SEG(L, 3), 1, NVME_INVALID_NUM_SGL_DESCRS);

    /* loops: a segment that points at itself, one that points back at
     * the first, and one that overlaps an earlier one by a descriptor */
    d[0] = DATA(A, 512);
    d[1] = SEG(L, 2);
    put_seg(s, L, d, 2);
    bad_read(s, SEG(L, 2), 1, NVME_INVALID_SGL_SEG_DESCR);
    d[1] = SEG(L + PAGE, 2);
    put_seg(s, L, d, 2);
    d[0] = DATA(A + 512, 512);
    d[1] = SEG(L, 2);
    put_seg(s, L + PAGE, d, 2);
    bad_read(s, SEG(L, 2), 1, NVME_INVALID_SGL_SEG_DESCR);
    d[0] = DATA(A, 512);
    d[1] = LAST(L + 16, 2);
    put_seg(s, L, d, 2);
    bad_read(s, SEG(L, 2), 1, NVME_INVALID_SGL_SEG_DESCR);

    /* past FEMU's limits: more descriptors than it reads, more segments
     * (a chain of zero-length blocks that never loops) */
    {
        g_autofree NvmeSglDescriptor *big =
            g_new0(NvmeSglDescriptor, MAX_DESCS + 1);
        big[0] = DATA(A, SGL_T);
        qtest_memwrite(s->c->qts, L, big, (MAX_DESCS + 1) * 16);
        bad_read(s, LAST(L, MAX_DESCS + 1), 1, NVME_INVALID_NUM_SGL_DESCRS);
        /* exactly the limit is fine (zero-length blocks are valid) */
        g_assert_cmphex(sgl_io(s, NVME_CMD_READ, LAST(L, MAX_DESCS), 1), ==,
                        NVME_SUCCESS);
        arena_reset(s);
        for (int i = 0; i < MAX_SEGS + 1; i++) {
            big[2 * i] = DATA(A, 0);
            big[2 * i + 1] = SEG(L + 32 * (i + 1), 2);
        }
        qtest_memwrite(s->c->qts, L, big, (MAX_SEGS + 1) * 32);
        bad_read(s, SEG(L, 2), 1, NVME_INVALID_NUM_SGL_DESCRS);
        /* a huge segment length is refused before anything is read */
        bad_read(s, dsc(L, 0xfffffff0, NVME_SGL_DESCR_TYPE_LAST_SEGMENT << 4),
                 1, NVME_INVALID_NUM_SGL_DESCRS);
    }

    /* not guest RAM: the segment, a data block (nothing else written) */
    bad_read(s, LAST(far, 1), 1, NVME_DATA_TRAS_ERROR);
    bad_read(s, DATA(far, SGL_T), 1, NVME_DATA_TRAS_ERROR);
    bad_read(s, DATA(-(uint64_t)SGL_T, SGL_T), 1, NVME_DATA_SGL_LEN_INVALID);
    d[0] = DATA(A, 512);
    d[1] = DATA(far, SGL_T - 512);
    put_seg(s, L, d, 2);
    g_assert_cmphex(sgl_io(s, NVME_CMD_READ, LAST(L, 2), 1), ==,
                    NVME_DATA_TRAS_ERROR);
    /* (the first piece may have landed before the failed one: its bytes
     * are the command's own buffer) */
    memcpy(s->img, s->ref, 512);
    arena_check(s);

    /* PSDT 11b is reserved */
    arena_reset(s);
    bad_read(s, DATA(A, SGL_T), 3, NVME_INVALID_FIELD);
}

/* Writes through SGLs: chained segments; a bit bucket is refused. */
static void writes(Sgl *s)
{
    uint64_t L = s->lists, A = s->arena;
    uint8_t want[SGL_T];
    NvmeSglDescriptor d[4];

    for (size_t i = 0; i < SGL_T; i++) {
        want[i] = (uint8_t)(i * 31 + 7);
    }
    /* the data in three scattered pieces of the arena */
    qtest_memwrite(s->c->qts, A + 5, want, 3000);
    qtest_memwrite(s->c->qts, A + 20001, want + 3000, 9000);
    qtest_memwrite(s->c->qts, A + 40000, want + 12000, SGL_T - 12000);
    d[0] = DATA(A + 5, 3000);
    d[1] = LAST(L + PAGE, 2);
    put_seg(s, L, d, 2);
    d[0] = DATA(A + 20001, 9000);
    d[1] = DATA(A + 40000, SGL_T - 12000);
    put_seg(s, L + PAGE, d, 2);
    g_assert_cmphex(sgl_io(s, NVME_CMD_WRITE, SEG(L, 2), 1), ==,
                    NVME_SUCCESS);
    memcpy(s->ref, want, SGL_T);
    ref_check(s);
    /* Compare through the same SGL: equal, then one byte off */
    g_assert_cmphex(sgl_io(s, NVME_CMD_COMPARE, SEG(L, 2), 1), ==,
                    NVME_SUCCESS);
    qtest_memset(s->c->qts, A + 20001 + 4444, want[3000 + 4444] ^ 1, 1);
    g_assert_cmphex(sgl_io(s, NVME_CMD_COMPARE, SEG(L, 2), 1), ==,
                    NVME_CMP_FAILURE);

    /* a bit bucket in a write (host to controller): refused, and the
     * blocks keep their data */
    qtest_memset(s->c->qts, A, 0x11, SGL_T);
    d[0] = DATA(A, 4096);
    d[1] = BUCKET(4096);
    d[2] = DATA(A + 8192, SGL_T - 8192);
    put_seg(s, L, d, 3);
    g_assert_cmphex(sgl_io(s, NVME_CMD_WRITE, LAST(L, 3), 1), ==,
                    NVME_SGL_DESCR_TYPE_INVALID);
    g_assert_cmphex(sgl_io(s, NVME_CMD_WRITE, BUCKET(SGL_T), 1), ==,
                    NVME_SGL_DESCR_TYPE_INVALID);
    g_assert_cmphex(sgl_io(s, NVME_CMD_COMPARE, BUCKET(SGL_T), 1), ==,
                    NVME_SGL_DESCR_TYPE_INVALID);
    /* a short write SGL: nothing written either */
    g_assert_cmphex(sgl_io(s, NVME_CMD_WRITE, DATA(A, SGL_T - 4), 1), ==,
                    NVME_DATA_SGL_LEN_INVALID);
    ref_check(s);
}

/* Admin commands use PRPs over PCIe (Base 2.0, 4.2: PSDT): an SGL gets
 * Invalid Field, whatever the list. */
static void admin(Sgl *s)
{
    uint8_t id[PAGE];
    NvmeIdCtrl *ic = (NvmeIdCtrl *)id;

    g_assert_cmphex(identify(s->c, NVME_ID_CNS_CTRL, 0, s->c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(s->c->qts, s->c->buf, id, sizeof(id));
    /* byte-aligned SGLs (bits 1:0 = 01b) and bit buckets (bit 16) */
    g_assert_cmphex(le32_to_cpu(ic->sgls), ==, 0x10001);
    for (int psdt = 1; psdt <= 3; psdt++) {
        NvmeCmd cmd = mk(NVME_ADM_CMD_IDENTIFY, 0, 0, 0);

        cmd.flags = psdt << 6;
        cmd.dptr.sgl = DATA(s->arena, PAGE);
        cmd.cdw10 = cpu_to_le32(NVME_ID_CNS_CTRL);
        arena_reset(s);
        g_assert_cmphex(run(s->c, 0, &cmd, NULL), ==, NVME_INVALID_FIELD);
        arena_check(s);
    }
}

void test_sgl(void)
{
    Sgl *s = sgl_start("");

    admin(s);
    ref_write(s, 1);
    good_reads(s);
    bad_reads(s);
    writes(s);
    /* after all that, reads through SGLs still work */
    good_reads(s);
    sgl_stop(s);
}

/* sgl=off: SGLS is 0 and an SGL gets Invalid Field. */
void test_sgl_off(void)
{
    Sgl *s = sgl_start("sgl=off");
    uint8_t id[PAGE];
    NvmeIdCtrl *ic = (NvmeIdCtrl *)id;

    g_assert_cmphex(identify(s->c, NVME_ID_CNS_CTRL, 0, s->c->buf), ==,
                    NVME_SUCCESS);
    qtest_memread(s->c->qts, s->c->buf, id, sizeof(id));
    g_assert_cmphex(le32_to_cpu(ic->sgls), ==, 0);
    arena_reset(s);
    bad_read(s, DATA(s->arena, SGL_T), 1, NVME_INVALID_FIELD);
    bad_read(s, DATA(s->arena, SGL_T), 2, NVME_INVALID_FIELD);
    sgl_stop(s);
}

/* A random descriptor: mostly sensible, sometimes anything. */
static NvmeSglDescriptor rnd_desc(Sgl *s, uint32_t left)
{
    uint64_t A = s->arena, L = s->lists;
    uint32_t len = rb() ? rr(0, 4097) : MIN(left, (uint32_t)rr(1, SGL_T));

    switch (rr(0, 10)) {
    case 0:
        return BUCKET(len);
    case 1:
        return SEG(L + 256 * rr(0, 8), rr(0, 17));
    case 2:
        return LAST(L + 256 * rr(0, 8) + 8 * rr(0, 3), rr(0, 17));
    case 3:
        return dsc(rb() ? A + rr(0, ARENA / 2) : r64(), r32(), r32());
    default:
        /* a data block inside the first half of the arena */
        len = MIN(len, ARENA / 2);
        return DATA(A + rr(0, ARENA / 2 - len + 1), len);
    }
}

/* Random lists: random types, lengths, chains into any of 8 segment
 * slots (loops, overlaps, last segments that point on), reads and writes.
 * Whatever the list, the command completes with one of the SGL statuses,
 * data blocks point into the first half of the arena only and the second
 * half keeps its canary, and the device stays healthy.  The seed is
 * printed (FEMU_QTEST_SEED replays it). */
void test_sgl_random(void)
{
    Sgl *s = sgl_start("");
    g_autofree uint8_t *half = g_malloc(ARENA / 2);
    g_autofree uint8_t *want = g_malloc(ARENA / 2);
    int counts[5] = { 0 };

    fz_init("sgl/random");
    memset(want, CANARY, ARENA / 2);
    qtest_memset(s->c->qts, s->arena + ARENA / 2, CANARY, ARENA / 2);
    for (int it = 0; it < 200; it++) {
        NvmeSglDescriptor d[16];
        uint8_t opc = rr(0, 3) ? NVME_CMD_READ : NVME_CMD_WRITE;
        uint16_t st;

        for (int slot = 0; slot < 8; slot++) {
            for (int i = 0; i < 16; i++) {
                d[i] = rnd_desc(s, SGL_T / 4);
            }
            put_seg(s, s->lists + 256 * slot, d, 16);
        }
        d[0] = rnd_desc(s, SGL_T);
        if (!rr(0, 4)) {
            /* a valid list in slot 0: random pieces that add up */
            int n = rr(1, 17);
            uint32_t left = SGL_T;

            for (int i = 0; i < n; i++) {
                uint32_t l = i == n - 1 ? left : rr(0, left + 1);

                d[i] = opc == NVME_CMD_READ && !rr(0, 4) ? BUCKET(l) :
                       DATA(s->arena + rr(0, ARENA / 2 - l + 1), l);
                left -= l;
            }
            put_seg(s, s->lists, d, n);
            d[0] = LAST(s->lists, n);
        }
        st = sgl_io(s, opc, d[0], rr(0, 8) ? 1 : rr(1, 4));
        switch (st) {
        case NVME_SUCCESS:
            counts[0]++;
            break;
        case NVME_INVALID_SGL_SEG_DESCR:
        case NVME_INVALID_NUM_SGL_DESCRS:
            counts[1]++;
            break;
        case NVME_DATA_SGL_LEN_INVALID:
            counts[2]++;
            break;
        case NVME_SGL_DESCR_TYPE_INVALID:
        case SGL_OFFSET_INVALID:
        case NVME_INVALID_FIELD:
            counts[3]++;
            break;
        case NVME_DATA_TRAS_ERROR:
            counts[4]++;
            break;
        default:
            g_error("seed %u iteration %d: status 0x%x", fz_seed, it, st);
        }
        if (it % 10 == 9) {
            qtest_memread(s->c->qts, s->arena + ARENA / 2, half, ARENA / 2);
            if (memcmp(half, want, ARENA / 2)) {
                g_error("seed %u: a byte outside the data blocks changed "
                        "by iteration %d", fz_seed, it);
            }
        }
    }
    g_test_message("seed %u: %d ok, %d segment, %d length, %d type/field, "
                   "%d transfer errors", fz_seed, counts[0], counts[1],
                   counts[2], counts[3], counts[4]);
    /* the generator reaches success and the refusals */
    g_assert_cmpint(counts[0], >, 10);
    g_assert_cmpint(counts[1] + counts[2] + counts[3], >, 20);
    sgl_stop(s);
}
