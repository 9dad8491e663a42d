/*
 * femu-sim's zoned mode (femu_mode=3): the zoned namespace model of
 * hw/femu/ftl/zone.c under zone workloads.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FEMU_SIM_ZONED_H
#define FEMU_SIM_ZONED_H

#include <stdbool.h>
#include <stddef.h>

#include "hw/femu/ftl.h"

/* femu-sim.c: KEY=VAL's VAL as a whole number (strtoull base 0) up to
 * max; -1 with "femu-sim: KEY=VAL: not a number" when it is not one. */
int sim_parse_num(const char *k, const char *v, uint64_t max, uint64_t *out);
/* femu-sim.c: KEY=VAL's VAL as a size of at least min; -1 with
 * "femu-sim: KEY=VAL: not a size" when it is not one. */
int sim_parse_size(const char *k, const char *v, uint64_t min, uint64_t *out);
/* A numeric phase key: its name, the offset of its uint32_t in the phase
 * spec and its range. */
struct sim_key {
    const char *name;
    size_t off;
    uint32_t min, max;
};
/* femu-sim.c: k among keys (n of them) with VAL in its range: stored in
 * dst; -1 with "not a number" or "phase key K=V: unknown or out of
 * range" else. */
int sim_phase_u32(const struct sim_key *keys, size_t n, void *dst,
                  const char *k, const char *v);
/* femu-sim.c: delay=configured|builtin|off; -1 (message printed) else. */
int sim_parse_delay(const char *v, enum ftl_delay_mode *out);
/* femu-sim.c: the numeric properties shared with the BlackBox mode;
 * 1 set, 0 not one of them, -1 bad value (message printed). */
int sim_num_prop(struct ftl_config *c, const char *k, const char *v);
/* femu-sim.c: split "a=1,b=2" in place, fn(ctx, key, value) for each
 * pair; -1 (message printed) on a pair without '=' or when fn fails. */
int sim_each_kv(char *s, int (*fn)(void *, const char *, const char *),
                void *ctx);
/* femu-sim.c: the SPEC of argv[*i], --phase=SPEC or --phase SPEC (*i
 * moves on to it); NULL (message printed) when there is none. */
const char *sim_phase_value(int argc, char **argv, int *i);
/* femu-sim.c: split a copy of "NAME:KIND[,KEY=VAL...]" into buf (NAME),
 * *kind and *rest (NULL without keys); -1 (message printed) without ':'. */
int sim_split_phase(const char *arg, char *buf, size_t size, char **kind,
                    char **rest);
/* femu-sim.c: KEY=on|off (and the other spellings of a bool); -1 with
 * "femu-sim: KEY=VAL: on or off" else. */
int sim_parse_onoff(const char *k, const char *v, bool *out);
/* Does a PROP=VAL,... argument hold femu_mode=3? */
bool sim_has_zoned_mode(const char *arg);
int sim_zoned_main(int argc, char **argv);

#endif
