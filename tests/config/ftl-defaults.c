/*
 * The FTL library's default configuration (ftl_config_default,
 * zns_config_default) as "DRIVER PROPERTY=VALUE" lines, written the way
 * `-device DRIVER,help` writes a default, for tests/config/defaults.t.
 * Built there with gcc from hw/femu/ftl's sources.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>

#include "hw/femu/ftl.h"
#include "hw/femu/zns.h"

static void num(const char *drv, const char *name, int64_t v)
{
    printf("%s %s=%" PRId64 "\n", drv, name, v);
}

static void str(const char *drv, const char *name, const char *v)
{
    printf("%s %s=%s\n", drv, name, v);
}

int main(void)
{
    struct ftl_config c;
    struct zns_config z;

    ftl_config_default(&c);
    zns_config_default(&z);
    num("femu", "nchs", c.nchs);
    num("femu", "luns_per_ch", c.luns_per_ch);
    num("femu", "pls_per_lun", c.pls_per_lun);
    num("femu", "blks_per_pl", c.blks_per_pl);
    num("femu", "pgs_per_blk", c.pgs_per_blk);
    num("femu", "secsz", c.secsz);
    num("femu", "secs_per_pg", c.secs_per_pg);
    num("femu", "devsz_mb", (int64_t)c.devsz_mb);
    num("femu", "op_pcent", c.op_pcent);
    num("femu", "pg_rd_lat", (int64_t)c.pg_rd_lat);
    num("femu", "pg_wr_lat", (int64_t)c.pg_wr_lat);
    num("femu", "blk_er_lat", (int64_t)c.blk_er_lat);
    num("femu", "ch_xfer_lat", (int64_t)c.ch_xfer_lat);
    num("femu", "gc_thres_pcent", c.gc_thres_pcent);
    num("femu", "gc_thres_pcent_high", c.gc_thres_pcent_high);
    str("femu", "gc_policy", ftl_gc_policy_name(c.gc_policy));
    str("femu", "hot_cold_sep", c.hot_cold_sep ? "on" : "off");
    str("femu", "gc_own_line", c.gc_own_line ? "on" : "off");
    num("femu", "seed", (int64_t)c.seed);
    num("femu", "nand_cell_type", c.nand_cell_type);
    {
        static const char *const pt[] = FTL_PGTYPE_NAMES;
        char n[32];

        for (int t = 0; t < 4; t++) {
            snprintf(n, sizeof(n), "%s_rd_lat", pt[t]);
            num("femu", n, (int64_t)c.pgtype_rd_lat[t]);
            snprintf(n, sizeof(n), "%s_wr_lat", pt[t]);
            num("femu", n, (int64_t)c.pgtype_wr_lat[t]);
        }
    }
    num("femu", "pgtype_lat", c.pgtype_lat);
    num("femu", "cell_pages", c.cell_pages);
    num("femu", "trim_lat_ns", (int64_t)c.trim_lat_ns);
    num("femu", "read_cache_mb", c.read_cache_mb);
    str("femu", "cache_evict", ftl_cache_evict_name(c.cache_evict));
    num("femu", "pcie_bandwidth_mbps", c.pcie_bandwidth_mbps);
    num("femu", "pcie_prop_delay_ns", c.pcie_prop_delay_ns);
    num("femu", "fw_cpu_ns", (int64_t)c.fw_cpu_ns);
    str("femu", "mapping", ftl_mapping_name(c.mapping));
    num("femu", "mapping_cache_mb", c.mapping_cache_mb);
    num("femu", "log_blocks", c.log_blocks);
    num("femu", "zone_luns", z.zone_luns);
    num("femu", "zone_size_mb", (int64_t)z.zone_size_mb);
    num("femu", "zone_cap_mb", (int64_t)z.zone_cap_mb);
    num("femu", "max_open", z.max_open);
    num("femu", "max_active", z.max_active);
    num("femu-subsys", "fdp.nruh", c.fdp_nruh);
    num("femu-subsys", "fdp.nru", c.fdp_nru);
    return 0;
}
