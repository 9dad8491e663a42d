/*
 * FEMU property declarations: one row per property (name, field, type,
 * default, limits, help), read by everything that takes properties.
 *
 * The FTL's own properties (geometry, sizing, NAND timing, GC) are the
 * table ftl_props[] here, in the QEMU-free library: the femu device turns
 * each row into a QOM property (so `-device femu,help` shows the row's
 * help and default) and checks its limits at realize; femu-sim parses its
 * PROP=VAL arguments with the same rows; tests/config/props-doc.t checks
 * that docs/properties.md has a row for each.  The device's other
 * properties (controller, zones, FEMU upstream's names) are rows of the
 * same type in hw/femu/props.c, whose fields live in the device state.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_FEMU_FTL_PROPS_H
#define HW_FEMU_FTL_PROPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/femu/ftl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The C type of a property's field. */
enum femu_prop_kind {
    FEMU_PROP_U8,
    FEMU_PROP_U16,
    FEMU_PROP_U32,
    FEMU_PROP_U64,
    FEMU_PROP_I32,
    FEMU_PROP_BOOL,
    FEMU_PROP_SIZE,     /* uint64_t bytes; K, M, G, T suffixes */
    FEMU_PROP_STR,      /* char *, NULL when not given */
    FEMU_PROP_ENUM,     /* int, an index into names[] */
    FEMU_PROP_UUID,     /* the device's QemuUUID (not parsed here) */
};

/* Row flags */
#define FEMU_PROP_NO_LIMITS   (1u << 0) /* min/max are not checked */
#define FEMU_PROP_NO_DEFAULT  (1u << 1) /* an alias: the field keeps the
                                         * default of alias_of's row */
#define FEMU_PROP_REFUSE_ANY  (1u << 2) /* any given value is refused with
                                         * the row's `refuse` reason */
#define FEMU_PROP_SUBSYS      (1u << 3) /* a femu-subsys property */

struct femu_prop {
    const char *name;
    enum femu_prop_kind kind;
    size_t off;                 /* offset of the field in its struct */
    int64_t def;                /* default (numbers, bool, enum index) */
    int64_t min;                /* limits, checked at start-up */
    uint64_t max;
    const char *const *names;   /* FEMU_PROP_ENUM: the value names */
    size_t nnames;
    const char *help;           /* what the property is, unit, limits */
    /*
     * A FEMU upstream name for a property this project spells otherwise
     * (same field, same meaning): the name of that property.
     */
    const char *alias_of;
    /*
     * Why a value other than def (or, with FEMU_PROP_REFUSE_ANY, any
     * value) is refused: FEMU upstream has the property but this device
     * does not model it (yet).
     */
    const char *refuse;
    /* the limit as the error message words it (default "MIN..MAX") */
    const char *limit_text;
    unsigned flags;
};

/* The FTL's properties (fields of struct ftl_config). */
extern const struct femu_prop ftl_props[];
extern const size_t ftl_nprops;

/* The row called name in props[0..n-1], or NULL. */
const struct femu_prop *femu_prop_find(const struct femu_prop *props,
                                       size_t n, const char *name);

/* Read a numeric or bool field as a signed 64-bit value. */
int64_t femu_prop_get_i64(const struct femu_prop *p, const void *base);
uint64_t femu_prop_get_u64(const struct femu_prop *p, const void *base);

/*
 * Parse text (as a PROP=VAL argument gives it: decimal or 0x hex; on/off,
 * true/false, yes/no, 1/0 for bools; a name for enums; a size with an
 * optional K/M/G/T suffix) into p's field of base.  0, or -1 with a
 * one-line message naming the property in err.  Strings are not parsed
 * here (their storage belongs to the caller).
 */
int femu_prop_parse(const struct femu_prop *p, void *base, const char *text,
                    char *err, size_t errlen);

/*
 * Check p's field of base against the row's limits.  0, or -1 with
 * "NAME=VALUE: must be MIN..MAX" (or the row's limit_text) in err.
 */
int femu_prop_check(const struct femu_prop *p, const void *base, char *err,
                    size_t errlen);

/* Store the row's default into base (numbers, bools, enums). */
void femu_prop_set_default(const struct femu_prop *p, void *base);

#ifdef __cplusplus
}
#endif

#endif
