/*
 * femu-test fuzz group random-commands.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "femu-host.h"

/*
 * Random commands (a fuzzer over this driver): random opcodes and fields
 * on the admin and I/O queues, with data pointers that are data pages,
 * misaligned, outside RAM, or a PRP list whose entries are data pages or
 * outside RAM -- never the driver's own queues, so a hang can only be the
 * controller's.  Every command must complete (any status); then the
 * health check.  FEMU_QTEST_RANDOM_CMDS sets the count (default 3000),
 * FEMU_QTEST_SEED the seed (printed at the start).
 */
void test_random_commands(void)
{
    /* admin opcodes that would reconfigure the queues this driver polls
     * (create/delete queue, doorbell buffer), wait for an event (AER) or
     * change the block size under it (Format NVM) are left to the groups
     * above */
    static const uint8_t admin_skip[] = { 0x00, 0x01, 0x04, 0x05, 0x0c, 0x7c,
                                          0x80 };
    /* a small device, so that random writes reach GC within the run */
    Ctrl *c = ctrl_start("pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0,nchs=2,"
                         "luns_per_ch=2,blks_per_pl=32,pgs_per_blk=16,"
                         "op_pcent=50,subsys=fdp0");
    static const uint8_t io_ops[] = {
        NVME_CMD_READ, NVME_CMD_WRITE, NVME_CMD_WRITE, NVME_CMD_WRITE,
        NVME_CMD_WRITE_ZEROES, NVME_CMD_DSM, NVME_CMD_FLUSH,
        NVME_CMD_IO_MGMT_RECV, NVME_CMD_IO_MGMT_SEND,
    };
    bool wellformed;
    const char *env = getenv("FEMU_QTEST_RANDOM_CMDS");
    int n = env ? atoi(env) : 3000;
    uint64_t list = guest_alloc(&c->qs->alloc, PAGE);
    uint64_t far = 0xfff0000000ull;
    uint64_t ents[PAGE / 8];
    int errors = 0;

    (void)wellformed;
    fz_init("random-commands");
    for (int i = 0; i < PAGE / 8; i++) {
        ents[i] = cpu_to_le64(rb() ? c->buf + (i % 16) * PAGE
                                                : far + i * PAGE);
    }
    qtest_memwrite(c->qts, list, ents, sizeof(ents));
    for (int i = 0; i < n; i++) {
        bool admin = rr(0, 4) == 0;
        uint8_t opc;
        NvmeCmd cmd;
        NvmeCqe cqe;
        uint64_t p[4] = {
            c->buf + rr(0, 16) * PAGE,
            c->buf + rr(0, 16) * PAGE +
                rr(0, PAGE),
            far + rr(0, 1 << 20) * 4,
            list + rr(0, 8) * 8,
        };

        do {
            opc = admin ? (rb() ? rr(0, 16)
                                             : rr(0, 256))
                        : (rb() ? rr(0, 0x20)
                                             : rr(0, 256));
        } while (admin && memchr(admin_skip, opc, sizeof(admin_skip)));
        cmd = mk(opc, rr(0, 8) ? 1 : r32(),
                 p[rr(0, 3)], p[rr(0, 4)]);
        cmd.flags = rr(0, 8) ? 0 : r32();
        cmd.cdw10 = cpu_to_le32(rb() ? r32()
                                : rr(0, 64));
        cmd.cdw11 = cpu_to_le32(rb() ? r32() : 0);
        cmd.cdw12 = cpu_to_le32(rb() ? r32()
                                : rr(0, 64));
        cmd.cdw13 = cpu_to_le32(rb() ? r32() : 0);
        cmd.cdw14 = cpu_to_le32(r32());
        cmd.cdw15 = cpu_to_le32(r32());
        /* half of the I/O commands are well formed apart from a random
         * placement directive, so the FTL paths (GC included) run too */
        wellformed = !admin && rb();
        if (wellformed) {
            uint64_t slba = rr(0, c->ns_blocks - 64);
            cmd.opcode = io_ops[rr(0, sizeof(io_ops))];
            cmd.nsid = cpu_to_le32(1);
            cmd.flags = 0;
            cmd.dptr.prp1 = cpu_to_le64(c->buf);
            cmd.dptr.prp2 = cpu_to_le64(list);
            cmd.cdw10 = cpu_to_le32(cmd.opcode == NVME_CMD_DSM ?
                                    rr(0, 4) : slba);
            cmd.cdw11 = cpu_to_le32(cmd.opcode == NVME_CMD_DSM ?
                                    NVME_DSMGMT_AD : 0);
            cmd.cdw12 = cpu_to_le32(rr(0, 64) |
                                    (rb() ? 2u << 20 : 0));
            cmd.cdw13 = cpu_to_le32(rr(0, 6) << 16);
        }
        submit(c, admin ? 0 : IOQ, &cmd);
        if (!reap(c, admin ? 0 : IOQ, &cqe, TIMEOUT_US)) {
            g_test_message("command %d (%s opcode 0x%02x cdw10 0x%08x) got "
                           "no completion", i, admin ? "admin" : "I/O", opc,
                           le32_to_cpu(cmd.cdw10));
            g_assert_not_reached();
        }
        g_assert_cmpuint(le16_to_cpu(cqe.cid), ==, c->cid);
        errors += STATUS(le16_to_cpu(cqe.status) >> 1) != 0;
        g_assert_cmpuint(rd32(c, NVME_REG_CSTS) & 2, ==, 0);
    }
    {
        uint64_t ctr[4];
        g_assert_cmphex(get_log(c, FEMU_LOG_FTL, 7, 0, c->buf, 0), ==, NVME_SUCCESS);
        qtest_memread(c->qts, c->buf, ctr, sizeof(ctr));
        g_test_message("%d random commands, %d with an error status; C0h: "
                       "host pages %" PRIu64 ", GC moved %" PRIu64, n, errors,
                       le64_to_cpu(ctr[1]), le64_to_cpu(ctr[2]));
    }
    ctrl_stop(c);
}
