/*
 * FEMU BlackBox FTL: state files made of generations (format version 3).
 *
 * A save that rewrote the whole file took as long as writing all the
 * host data (about 19 s a GiB), and a kill in that time lost everything
 * since the save before.  So a save appends a generation with only what
 * changed since the previous one: the FTL section in full (4 bytes a
 * logical page), DATA records of the chunks written since, TRIM records
 * of the chunks emptied since, and END, which names the generation and
 * its length.  The base generation is the file as versions 1 and 2 had
 * it (state.c writes its FTL section, the caller its own sections).
 *
 * Reading: the base is read and used section by section, as before (its
 * file was renamed into place whole: a defect there is a damaged file).
 * The appended generations are checked first, every section's CRC and
 * END's number and length, without using a byte; the file is used up to
 * the last one that is complete, and a cut-short or unreadable tail
 * after it is what a save killed half way leaves: ignored (its length is
 * reported, the next save truncates it).  Then the FTL is loaded from the
 * last complete generation and the other sections of every generation go
 * to the caller's sink in order, so later data overrides earlier data.
 *
 * Several namespaces (format 5): an NS section makes the DATA and TRIM
 * sections after it, up to the next NS or END, its namespace's; each
 * generation starts with namespace 1's, so a file of one namespace (and
 * any older file) has none.
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "ftl-int.h"

/* ---- writing ---- */

int ftl_state_gen_begin(struct ftl_state_gen *g, FILE *f, uint64_t seq,
                        char *err, size_t errlen)
{
    long pos;

    memset(g, 0, sizeof(*g));
    g->f = f;
    g->seq = seq;
    if (seq == 0 && ftl_state_write_header(f, err, errlen)) {
        return -1;
    }
    pos = ftell(f);
    if (pos < 0) {
        snprintf(err, errlen, "cannot write the state file (position)");
        return -1;
    }
    g->start = (uint64_t)pos;
    return 0;
}

int ftl_state_gen_end(struct ftl_state_gen *g, char *err, size_t errlen)
{
    uint8_t p[16];
    long pos = ftell(g->f);

    if (pos < 0 || (uint64_t)pos < g->start) {
        snprintf(err, errlen, "cannot write the state file (position)");
        return -1;
    }
    ftl_le_put64(p, g->seq);
    ftl_le_put64(p + 8, (uint64_t)pos - g->start);
    if (ftl_state_write_section(g->f, FTL_STATE_SEC_END, p, sizeof(p), err,
                                errlen)) {
        return -1;
    }
    g->bytes = (uint64_t)pos - g->start + 16 + sizeof(p) + 4;
    return 0;
}

/* ---- reading ---- */

static const char *tag_name(uint32_t tag, char *b)
{
    for (int i = 0; i < 4; i++) {
        char ch = (char)(tag >> (8 * i));
        b[i] = ch >= 0x20 && ch < 0x7f ? ch : '?';
    }
    b[4] = 0;
    /* "FTL " and "END " read better without their blank */
    if (b[3] == ' ') {
        b[3] = 0;
    }
    return b;
}

/* The namespace the DATA and TRIM records being read belong to. */
struct cur_ns {
    uint32_t nsid;
    uint64_t nchunks;
};

static int use_data(const struct ftl_state_sink *s, const struct cur_ns *ns,
                    const uint8_t *p, uint64_t len, uint64_t off, char *err,
                    size_t errlen)
{
    uint32_t csz = len >= 8 ? ftl_le_get32(p) : 0, count = len >= 8 ? ftl_le_get32(p + 4)
                                                             : 0;

    if (len < 8 || csz != FTL_STATE_CHUNK || count > FTL_STATE_DATA_BATCH ||
        len != 8 + (uint64_t)count * FTL_STATE_DATA_REC) {
        snprintf(err, errlen, "corrupted state file (DATA section: %u chunks "
                 "of %u bytes in %llu bytes)", count, csz,
                 (unsigned long long)len);
        return -1;
    }
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *r = p + 8 + (uint64_t)i * FTL_STATE_DATA_REC;
        uint64_t idx = ftl_le_get64(r);

        uint64_t at = off + 8 + (uint64_t)i * FTL_STATE_DATA_REC + 8;

        if (idx >= ns->nchunks) {
            snprintf(err, errlen, "corrupted state file (data chunk %llu "
                     "beyond the %llu-chunk namespace%s)",
                     (unsigned long long)idx,
                     (unsigned long long)ns->nchunks,
                     ns->nsid > 1 ? " of an NS section" : "");
            return -1;
        }
        if (s->ns_data) {
            s->ns_data(s->opaque, ns->nsid, idx, r + 8, at);
        } else if (s->data && ns->nsid == 1) {
            s->data(s->opaque, idx, r + 8, at);
        }
    }
    return 0;
}

static int use_trim(const struct ftl_state_sink *s, const struct cur_ns *ns,
                    const uint8_t *p, uint64_t len, char *err, size_t errlen)
{
    uint32_t count = len >= 8 ? ftl_le_get32(p) : 0;

    if (len < 8 || ftl_le_get32(p + 4) != 0 || count > FTL_STATE_TRIM_BATCH ||
        len != 8 + (uint64_t)count * 16) {
        snprintf(err, errlen, "corrupted state file (TRIM section: %u "
                 "ranges in %llu bytes)", count, (unsigned long long)len);
        return -1;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint64_t first = ftl_le_get64(p + 8 + 16 * (uint64_t)i);
        uint64_t n = ftl_le_get64(p + 16 + 16 * (uint64_t)i);

        if (n == 0 || first >= ns->nchunks || n > ns->nchunks - first) {
            snprintf(err, errlen, "corrupted state file (TRIM of %llu "
                     "chunks at chunk %llu, the namespace has %llu)",
                     (unsigned long long)n, (unsigned long long)first,
                     (unsigned long long)ns->nchunks);
            return -1;
        }
        if (s->ns_trim) {
            s->ns_trim(s->opaque, ns->nsid, first, n);
        } else if (s->trim && ns->nsid == 1) {
            s->trim(s->opaque, first, n);
        }
    }
    return 0;
}

/*
 * The sections of one generation after its FTL section, up to and with
 * END, to the sink.  *end_len gets END's payload length, end_p (16 bytes)
 * its payload when it has 16.  0, or -1 with a message.
 */
/*
 * An NS section: its header checked, then the records after it are its
 * namespace's.  0, or -1 with a message.
 */
static int use_ns(const struct ftl_state_sink *s, struct cur_ns *ns,
                  const uint8_t *p, uint64_t len, char *err, size_t errlen)
{
    uint32_t nsid = len >= FTL_STATE_NS_MIN ? ftl_le_get32(p) : 0;
    uint32_t count = len >= FTL_STATE_NS_MIN ? ftl_le_get32(p + 4) : 0;

    if (len < FTL_STATE_NS_MIN || nsid < 1 || nsid > count ||
        count > FTL_STATE_MAX_NS) {
        snprintf(err, errlen, "corrupted state file (NS section of %llu "
                 "bytes: namespace %u of %u)", (unsigned long long)len, nsid,
                 count);
        return -1;
    }
    ns->nsid = nsid;
    ns->nchunks = nsid == 1 ? s->nchunks : ftl_le_get64(p + 8);
    return 0;
}

static int use_sections(FILE *f, const struct ftl_state_sink *s, uint32_t gen,
                        uint8_t *buf, uint64_t *end_len, uint8_t *end_p,
                        uint64_t *end_off, char *err, size_t errlen)
{
    /* each generation starts with namespace 1's records */
    struct cur_ns ns = { .nsid = 1, .nchunks = s->nchunks };

    for (;;) {
        uint32_t tag;
        uint64_t len;
        long off = ftell(f);
        char nm[5];
        int rc = ftl_state_next_section(f, &tag, &len, err, errlen);

        if (rc <= 0) {
            return -1;
        }
        if (tag == FTL_STATE_SEC_END) {
            *end_off = (uint64_t)off;
            *end_len = len;
            if (len == 16) {
                return ftl_state_read_payload(f, tag, len, end_p, err,
                                              errlen);
            }
            return ftl_state_skip_payload(f, tag, len, err, errlen);
        }
        if (tag == FTL_STATE_SEC_FTL) {
            snprintf(err, errlen, "corrupted state file (a second FTL "
                     "section in a generation)");
            return -1;
        }
        if (len > FTL_STATE_SECTION_MAX) {
            snprintf(err, errlen, "corrupted state file (%s section of %llu "
                     "bytes)", tag_name(tag, nm), (unsigned long long)len);
            return -1;
        }
        if (ftl_state_read_payload(f, tag, len, buf, err, errlen)) {
            return -1;
        }
        if (tag == FTL_STATE_SEC_DATA) {
            rc = use_data(s, &ns, buf, len, (uint64_t)off + 16, err, errlen);
        } else if (tag == FTL_STATE_SEC_TRIM) {
            rc = use_trim(s, &ns, buf, len, err, errlen);
        } else if (tag == FTL_STATE_SEC_NS) {
            rc = use_ns(s, &ns, buf, len, err, errlen);
            if (!rc && s->section) {
                rc = s->section(s->opaque, tag, buf, len, gen, err, errlen);
            }
        } else if (s->section) {
            rc = s->section(s->opaque, tag, buf, len, gen, err, errlen);
        }
        if (rc) {
            return -1;
        }
    }
}

/*
 * Check appended generation seq at the current position without using
 * it: every section's CRC, the FTL section first, END with its number
 * and length.  1 when complete (f after it), 0 when torn, -1 (message)
 * when complete but not what a save writes.
 */
static int check_gen(FILE *f, uint64_t seq, char *err, size_t errlen)
{
    long start = ftell(f);
    bool first = true;
    char why[256];

    for (;;) {
        uint32_t tag;
        uint64_t len;
        long off = ftell(f);
        uint8_t p[16];

        if (ftl_state_next_section(f, &tag, &len, why, sizeof(why)) <= 0) {
            return 0;
        }
        if (tag == FTL_STATE_SEC_END && len == 16) {
            if (ftl_state_read_payload(f, tag, len, p, why, sizeof(why))) {
                return 0;
            }
            if (first || ftl_le_get64(p) != seq ||
                ftl_le_get64(p + 8) != (uint64_t)(off - start)) {
                snprintf(err, errlen, "corrupted state file (generation "
                         "%llu of %llu bytes ends with the END of generation "
                         "%llu of %llu bytes)", (unsigned long long)seq,
                         (unsigned long long)(off - start),
                         (unsigned long long)ftl_le_get64(p),
                         (unsigned long long)ftl_le_get64(p + 8));
                return -1;
            }
            return 1;
        }
        if (ftl_state_skip_payload(f, tag, len, why, sizeof(why))) {
            return 0;
        }
        if (first != (tag == FTL_STATE_SEC_FTL) ||
            tag == FTL_STATE_SEC_END) {
            snprintf(err, errlen, "corrupted state file (generation %llu: "
                     "the FTL section must come first, END last with 16 "
                     "bytes)", (unsigned long long)seq);
            return -1;
        }
        first = false;
    }
}

struct ftl *ftl_state_read_file(const struct ftl_config *cfg, FILE *f,
                                uint64_t now_ns,
                                const struct ftl_state_sink *sink,
                                struct ftl_state_info *info, char *err,
                                size_t errlen)
{
    struct ftl_state_sink none = { 0 };
    struct ftl_state_info dummy;
    uint64_t *start = NULL, end_len, end_off, size;
    uint8_t end_p[16], *buf = NULL;
    uint32_t ngen = 0;
    struct ftl *ftl = NULL;
    long pos;

    if (!sink) {
        sink = &none;
    }
    if (!info) {
        info = &dummy;
    }
    memset(info, 0, sizeof(*info));
    if (ftl_state_read_header(f, &info->version, err, errlen)) {
        return NULL;
    }
    pos = ftell(f);
    ftl = ftl_state_load_section(cfg, f, info->version, now_ns, err, errlen);
    if (!ftl) {
        return NULL;
    }
    info->ftl_bytes = (uint64_t)(ftell(f) - pos);
    buf = malloc(FTL_STATE_SECTION_MAX);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    /* the base generation: used as it is read */
    if (use_sections(f, sink, 0, buf, &end_len, end_p, &end_off, err,
                     errlen)) {
        goto fail;
    }
    info->gens = 1;
    info->base_end = info->end = (uint64_t)ftell(f);
    if (info->version < 3) {
        goto done;
    }
    /* a base END of 16 bytes names generation 0 and its length (an empty
     * one is accepted: the FTL library's own writers before generations) */
    if (end_len == 16 && (ftl_le_get64(end_p) != 0 || ftl_le_get64(end_p + 8) !=
                          end_off - 16)) {
        snprintf(err, errlen, "corrupted state file (the base generation "
                 "of %llu bytes ends with the END of generation %llu of "
                 "%llu bytes)", (unsigned long long)(end_off - 16),
                 (unsigned long long)ftl_le_get64(end_p),
                 (unsigned long long)ftl_le_get64(end_p + 8));
        goto fail;
    }
    /* the appended generations: all checked before any is used */
    for (;;) {
        int rc;
        uint64_t *ns;

        if (ngen >= UINT32_MAX - 1) {
            break;
        }
        ns = realloc(start, sizeof(*start) * (ngen + 1));
        if (!ns) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        start = ns;
        start[ngen] = (uint64_t)ftell(f);
        rc = check_gen(f, ngen + 1, err, errlen);
        if (rc < 0) {
            goto fail;
        }
        if (rc == 0) {
            break;
        }
        info->end = (uint64_t)ftell(f);
        ngen++;
    }
    pos = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (pos >= 0) {
        size = (uint64_t)pos;
        info->torn = size > info->end ? size - info->end : 0;
    }
    for (uint32_t g = 0; g < ngen; g++) {
        bool last = g + 1 == ngen;
        uint32_t tag;
        uint64_t len;

        if (fseek(f, (long)start[g], SEEK_SET) ||
            ftl_state_next_section(f, &tag, &len, err, errlen) != 1) {
            snprintf(err, errlen, "cannot read the state file again");
            goto fail;
        }
        if (last) {
            struct ftl *nf;

            fseek(f, (long)start[g], SEEK_SET);
            nf = ftl_state_load_section(cfg, f, info->version, now_ns, err,
                                        errlen);
            if (!nf) {
                goto fail;
            }
            ftl_free(ftl);
            ftl = nf;
            info->ftl_bytes = (uint64_t)ftell(f) - start[g];
        } else if (ftl_state_skip_payload(f, tag, len, err, errlen)) {
            goto fail;
        }
        if (use_sections(f, sink, g + 1, buf, &end_len, end_p, &end_off, err,
                         errlen)) {
            goto fail;
        }
    }
    info->gens += ngen;
    fseek(f, (long)info->end, SEEK_SET);
done:
    free(buf);
    free(start);
    return ftl;

fail:
    free(buf);
    free(start);
    ftl_free(ftl);
    return NULL;
}
