/*
 * I/O trace library (hw/femu/ftl/iotrace.c): the header carries the FTL
 * properties and refuses damage, records round-trip, a record is checked
 * against the namespace it is replayed on, the writer ends a trace with
 * END and stops on a write error without failing the caller.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "test.h"
#include "hw/femu/ftl-iotrace.h"

static void trace_cfg(struct ftl_config *c)
{
    ftl_config_default(c);
    c->nchs = 2;
    c->luns_per_ch = 2;
    c->blks_per_pl = 64;
    c->op_pcent = 25;
    c->gc_policy = FTL_GC_FIFO;
    c->hot_cold_sep = true;
    c->fdp_nruh = 4;
}

static void test_header_roundtrip(void)
{
    struct ftl_config c;
    struct ftl_iotrace_hdr h, d;
    uint8_t buf[FTL_IOTRACE_HDR_SIZE];
    char err[256];

    trace_cfg(&c);
    c.seed = 99;
    ftl_iotrace_hdr_of(&h, &c, ftl_cfg_ns_blocks(&c), FTL_IOTRACE_HF_MIDRUN);
    ftl_iotrace_encode_hdr(&h, buf);
    CHECK(!memcmp(buf, "FEMUIOTR", 8));
    CHECK_EQ(ftl_iotrace_decode_hdr(buf, sizeof(buf), &d, err, sizeof(err)),
             0);
    CHECK_EQ(d.cfg.nchs, 2);
    CHECK_EQ(d.cfg.blks_per_pl, 64);
    CHECK_EQ(d.cfg.op_pcent, 25);
    CHECK_EQ(d.cfg.gc_policy, FTL_GC_FIFO);
    CHECK(d.cfg.hot_cold_sep);
    CHECK_EQ(d.cfg.fdp_nruh, 4);
    CHECK_EQ(d.cfg.seed, 99);
    CHECK_EQ(d.ns_blocks, ftl_cfg_ns_blocks(&c));
    CHECK_EQ(d.flags, FTL_IOTRACE_HF_MIDRUN);
    /* the geometry must match; policy and spare may differ */
    CHECK_EQ(ftl_iotrace_check_config(&d, &c, err, sizeof(err)), 0);
    c.op_pcent = 50;
    c.gc_policy = FTL_GC_GREEDY;
    CHECK_EQ(ftl_iotrace_check_config(&d, &c, err, sizeof(err)), 0);
    c.pgs_per_blk = 128;
    CHECK_EQ(ftl_iotrace_check_config(&d, &c, err, sizeof(err)), -1);
    CHECK_STR(err, "pgs_per_blk=128 but the trace was recorded with "
              "pgs_per_blk=256");
    /* damage */
    CHECK_EQ(ftl_iotrace_decode_hdr(buf, 100, &d, err, sizeof(err)), -1);
    CHECK_STR(err, "truncated (100 of 256 bytes)");
    buf[8] = 9;
    CHECK_EQ(ftl_iotrace_decode_hdr(buf, sizeof(buf), &d, err, sizeof(err)),
             -1);
    CHECK_STR(err, "unknown version 9");
    buf[8] = 1;
    buf[30] ^= 1;
    CHECK_EQ(ftl_iotrace_decode_hdr(buf, sizeof(buf), &d, err, sizeof(err)),
             -1);
    CHECK_STR(err, "CRC mismatch");
    buf[0] = 'X';
    CHECK_EQ(ftl_iotrace_decode_hdr(buf, sizeof(buf), &d, err, sizeof(err)),
             -1);
    CHECK_STR(err, "not a FEMU I/O trace");
}

static void test_records(void)
{
    struct ftl_iotrace_rec r = {
        .op = FTL_IOTRACE_WRITE, .nsid = 1, .slba = 0x123456789aull,
        .nlb = 77, .arg = 3, .time_ns = 1ull << 40, .done_ns = 5ull << 41,
    }, d;
    uint8_t buf[FTL_IOTRACE_REC_SIZE];
    char err[256];

    ftl_iotrace_encode_rec(&r, buf);
    CHECK_EQ(buf[0], FTL_IOTRACE_WRITE);
    CHECK_EQ(buf[8], 0x9a);     /* little-endian */
    ftl_iotrace_decode_rec(buf, &d);
    CHECK(d.op == r.op && d.flags == r.flags && d.nsid == r.nsid &&
          d.slba == r.slba && d.nlb == r.nlb && d.arg == r.arg &&
          d.time_ns == r.time_ns && d.done_ns == r.done_ns);
    /* checks against a namespace of 1000 blocks and 4 handles */
    r.slba = 990;
    r.nlb = 10;
    CHECK_EQ(ftl_iotrace_check_rec(&r, NULL, 1000, 4, err, sizeof(err)), 0);
    r.nlb = 11;
    CHECK_EQ(ftl_iotrace_check_rec(&r, NULL, 1000, 4, err, sizeof(err)), -1);
    CHECK_STR(err, "write of LBA 990+11 past the namespace (1000 blocks)");
    r.slba = UINT64_MAX;
    CHECK_EQ(ftl_iotrace_check_rec(&r, NULL, 1000, 4, err, sizeof(err)), -1);
    r.slba = 0;
    r.nlb = 0;
    CHECK_EQ(ftl_iotrace_check_rec(&r, NULL, 1000, 4, err, sizeof(err)), -1);
    CHECK_STR(err, "write of 0 blocks");
    r.nlb = 1;
    r.nsid = 2;     /* another namespace of the same FTL */
    CHECK_EQ(ftl_iotrace_check_rec(&r, NULL, 1000, 4, err, sizeof(err)), 0);
    r.nsid = 0;
    CHECK_EQ(ftl_iotrace_check_rec(&r, NULL, 1000, 4, err, sizeof(err)), -1);
    CHECK_STR(err, "namespace 0 (1 to 16)");
    r.nsid = 17;
    CHECK_EQ(ftl_iotrace_check_rec(&r, NULL, 1000, 4, err, sizeof(err)), -1);
    CHECK_STR(err, "namespace 17 (1 to 16)");
    r.nsid = 1;
    r.flags = FTL_IOTRACE_F_MORE;  /* only a deallocate range has it */
    CHECK_EQ(ftl_iotrace_check_rec(&r, NULL, 1000, 4, err, sizeof(err)), -1);
    r.op = FTL_IOTRACE_DEALLOC;
    CHECK_EQ(ftl_iotrace_check_rec(&r, NULL, 1000, 4, err, sizeof(err)), 0);
    r.flags = 0;
    r.op = 0;
    CHECK_EQ(ftl_iotrace_check_rec(&r, NULL, 1000, 4, err, sizeof(err)), -1);
    CHECK_STR(err, "unknown op 0");
    r.op = FTL_IOTRACE_RUH_UPDATE;
    r.arg = 4;
    CHECK_EQ(ftl_iotrace_check_rec(&r, NULL, 1000, 4, err, sizeof(err)), -1);
    CHECK_STR(err, "ruh-update of handle 4 (4 handles)");
    r.op = FTL_IOTRACE_CONTROL;
    r.arg = 8;  /* save state: not an FTL change */
    CHECK_EQ(ftl_iotrace_check_rec(&r, NULL, 1000, 4, err, sizeof(err)), -1);
    r.arg = 5;
    CHECK_EQ(ftl_iotrace_check_rec(&r, NULL, 1000, 4, err, sizeof(err)), 0);
}

/* applying records does what the device's commands do to the FTL */
static void test_apply(void)
{
    struct ftl_config c;
    struct ftl *ftl;
    struct ftl_counters k;
    char err[256];
    struct ftl_iotrace_rec w = {
        .op = FTL_IOTRACE_WRITE, .nsid = 1, .slba = 0, .nlb = 64,
        .arg = FTL_PID_NONE,
    };
    struct ftl_iotrace_rec t = {
        .op = FTL_IOTRACE_DEALLOC, .nsid = 1, .slba = 0, .nlb = 32,
        .flags = FTL_IOTRACE_F_MORE,
    };
    struct ftl_iotrace_rec z = {
        .op = FTL_IOTRACE_CONTROL, .arg = 5,
    };

    trace_cfg(&c);
    c.fdp_nruh = 0;
    ftl = ftl_new(&c, err, sizeof(err));
    CHECK(ftl != NULL);
    if (!ftl) {
        return;
    }
    CHECK(ftl_iotrace_apply(ftl, &w, 1000) > 1000);
    CHECK_EQ(ftl_mapped_pages(ftl), 8);
    CHECK_EQ(ftl_iotrace_apply(ftl, &t, 2000), 2000);
    CHECK_EQ(ftl_mapped_pages(ftl), 4);
    ftl_get_counters(ftl, &k);
    CHECK_EQ(k.host_pages_written, 8);
    ftl_iotrace_apply(ftl, &z, 3000);
    ftl_get_counters(ftl, &k);
    CHECK_EQ(k.host_pages_written, 0);
    CHECK_INVARIANTS(ftl);
    ftl_free(ftl);
}

static void test_writer(void)
{
    struct ftl_config c;
    struct ftl_iotrace_hdr h;
    struct ftl_iotrace_writer *w;
    struct ftl_iotrace_rec r = { .op = FTL_IOTRACE_FLUSH, .nsid = 1 }, d;
    char path[] = "/tmp/test-iotrace-XXXXXX", err[256];
    uint8_t *buf;
    long len;
    FILE *f;
    int fd = mkstemp(path);

    trace_cfg(&c);
    ftl_iotrace_hdr_of(&h, &c, ftl_cfg_ns_blocks(&c), 0);
    CHECK(fd >= 0);
    close(fd);
    w = ftl_iotrace_writer_open(path, &h, err, sizeof(err));
    CHECK(w != NULL);
    if (!w) {
        return;
    }
    for (int i = 0; i < 5000; i++) {   /* more than one buffer */
        r.time_ns = (uint64_t)i;
        ftl_iotrace_writer_append(w, &r);
    }
    CHECK_EQ(ftl_iotrace_writer_records(w), 5000);
    CHECK(!ftl_iotrace_writer_failed(w));
    CHECK_EQ(ftl_iotrace_writer_close(w, err, sizeof(err)), 0);
    f = fopen(path, "rb");
    CHECK(f != NULL);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    CHECK_EQ(len, FTL_IOTRACE_HDR_SIZE + 5001 * FTL_IOTRACE_REC_SIZE);
    buf = malloc((size_t)len);
    fseek(f, 0, SEEK_SET);
    CHECK_EQ(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    ftl_iotrace_decode_rec(buf + FTL_IOTRACE_HDR_SIZE +
                           4999 * FTL_IOTRACE_REC_SIZE, &d);
    CHECK_EQ(d.op, FTL_IOTRACE_FLUSH);
    CHECK_EQ(d.time_ns, 4999);
    ftl_iotrace_decode_rec(buf + len - FTL_IOTRACE_REC_SIZE, &d);
    CHECK_EQ(d.op, FTL_IOTRACE_END);
    CHECK_EQ(d.slba, 5000);
    free(buf);
    unlink(path);

    /* a full disk: the header cannot be written, the trace is refused */
    w = ftl_iotrace_writer_open("/dev/full", &h, err, sizeof(err));
    CHECK(w == NULL);
    CHECK_STR(err, "/dev/full: No space left on device");
}

/* a write error part-way (here the file size limit, as a full disk would
 * give): the trace stops with a message, appends go on doing nothing */
static void test_writer_error(void)
{
    struct ftl_config c;
    struct ftl_iotrace_hdr h;
    struct ftl_iotrace_writer *w;
    struct ftl_iotrace_rec r = { .op = FTL_IOTRACE_FLUSH, .nsid = 1 };
    struct rlimit old, lim;
    char path[] = "/tmp/test-iotrace-XXXXXX", err[256];
    int fd = mkstemp(path);

    CHECK(fd >= 0);
    close(fd);
    trace_cfg(&c);
    ftl_iotrace_hdr_of(&h, &c, ftl_cfg_ns_blocks(&c), 0);
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 100000;
    signal(SIGXFSZ, SIG_IGN);
    CHECK_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
    w = ftl_iotrace_writer_open(path, &h, err, sizeof(err));
    CHECK(w != NULL);
    if (w) {
        for (int i = 0; i < 10000; i++) {
            ftl_iotrace_writer_append(w, &r);
        }
        CHECK(ftl_iotrace_writer_failed(w));
        CHECK_STR(ftl_iotrace_writer_error(w), "File too large");
        CHECK_EQ(ftl_iotrace_writer_close(w, err, sizeof(err)), -1);
        CHECK_STR(err, "trace stopped after");
    }
    setrlimit(RLIMIT_FSIZE, &old);
    unlink(path);
}

int main(void)
{
    RUN(test_header_roundtrip);
    RUN(test_records);
    RUN(test_apply);
    RUN(test_writer);
    RUN(test_writer_error);
    return test_done("iotrace");
}
