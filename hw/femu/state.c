/*
 * FEMU: the state file (property state=PATH): the SSD kept across QEMU
 * runs.
 *
 * The file is the FTL's state-file format (hw/femu/ftl/state.c: header,
 * FTL section) followed by this device's sections:
 *   DEV   the SMART counters (bytes and commands read and written);
 *   DATA  host data, only the 4 KiB chunks of the namespace that hold
 *         something other than zeroes: u32 chunk bytes (4096), u32
 *         count, then count x (u64 chunk index, 4096 bytes); at most
 *         FEMU_STATE_BATCH chunks a section, each with its own CRC;
 *   END   the file is complete.
 * So the file and the host memory after loading grow with the data the
 * host wrote, not with the namespace.  Pages that femu-sim wrote into a
 * state hold no data: they read as zeroes (and still cost NAND time,
 * since the FTL maps them), like pages the host wrote zeroes to.
 *
 * Saving writes PATH.tmp, fsyncs it, renames it over PATH and fsyncs the
 * directory: a crash or kill at any point leaves the previous state or
 * the new one, never a mix.  The caller makes the device quiet first
 * (pollers stopped at exit; all poller locks and the FTL lock for a save
 * on demand).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qemu/cutils.h"
#include "qemu/timer.h"
#include "migration/blocker.h"
#include "qemu/bitmap.h"
#include "femu.h"
#include "trace.h"

#define FEMU_STATE_CHUNK    FEMU_STORE_CHUNK
#define FEMU_STATE_BATCH    256     /* chunks per DATA section: 1 MiB */
#define FEMU_STATE_REC      (8 + FEMU_STATE_CHUNK)
#define FEMU_STATE_DATA_MAX (8 + FEMU_STATE_BATCH * FEMU_STATE_REC)
#define FEMU_STATE_DEV_LEN  32

static uint32_t rd32(const uint8_t *p)
{
    return ldl_le_p(p);
}

static uint64_t rd64(const uint8_t *p)
{
    return ldq_le_p(p);
}

static void femu_state_save_bh(void *opaque);

/* The name the messages give the device: its id, else its serial. */
static const char *femu_state_devname(FemuCtrl *n)
{
    return DEVICE(n)->id ? DEVICE(n)->id : n->sn;
}

static bool femu_state_apply_data(FemuCtrl *n, const uint8_t *p,
                                  uint64_t len, uint64_t *chunks,
                                  char *err, size_t errlen)
{
    uint32_t csz, count;

    if (len < 8) {
        snprintf(err, errlen, "corrupted state file (DATA section of %"
                 PRIu64 " bytes)", len);
        return false;
    }
    csz = rd32(p);
    count = rd32(p + 4);
    if (csz != FEMU_STATE_CHUNK || count > FEMU_STATE_BATCH ||
        len != 8 + (uint64_t)count * FEMU_STATE_REC) {
        snprintf(err, errlen, "corrupted state file (DATA section: %" PRIu32
                 " chunks of %" PRIu32 " bytes in %" PRIu64 " bytes)",
                 count, csz, len);
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *r = p + 8 + (uint64_t)i * FEMU_STATE_REC;
        uint64_t idx = rd64(r);
        uint64_t off;

        if (idx >= DIV_ROUND_UP(n->ns[0].store.size, FEMU_STATE_CHUNK)) {
            snprintf(err, errlen, "corrupted state file (data chunk %"
                     PRIu64 " beyond the %" PRIu64 "-byte namespace)", idx,
                     n->ns[0].store.size);
            return false;
        }
        off = idx * FEMU_STATE_CHUNK;
        memcpy(n->ns[0].store.base + off, r + 8,
               MIN(FEMU_STATE_CHUNK, n->ns[0].store.size - off));
        femu_store_mark(&n->ns[0].store, off, FEMU_STATE_CHUNK);
    }
    *chunks += count;
    return true;
}

/*
 * Open PATH<suffix> next to the state file, creating it, with flags; *name
 * gets its name (the caller frees it).  -1 with "cannot create" if not.
 */
static int femu_state_create(FemuCtrl *n, const char *suffix, int flags,
                             char **name, Error **errp)
{
    int fd;

    *name = g_strdup_printf("%s%s", n->params.state_path, suffix);
    fd = open(*name, flags | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        error_setg_errno(errp, errno, "state=%s: cannot create %s",
                         n->params.state_path, *name);
    }
    return fd;
}

/* Check early that a save will be able to create PATH.tmp. */
static bool femu_state_check_writable(FemuCtrl *n, Error **errp)
{
    g_autofree char *tmp = NULL;
    int fd = femu_state_create(n, ".tmp", O_WRONLY, &tmp, errp);

    if (fd < 0) {
        return false;
    }
    close(fd);
    unlink(tmp);
    return true;
}

bool femu_state_load(FemuCtrl *n, Error **errp)
{
    char err[512] = "";
    struct ftl *ftl = NULL;
    uint8_t *buf = NULL;
    uint64_t chunks = 0, len;
    uint32_t tag;
    int64_t t0 = get_clock();
    FILE *f;
    int rc;

    f = fopen(n->params.state_path, "rb");
    if (!f) {
        if (errno != ENOENT) {
            error_setg_errno(errp, errno, "state=%s: cannot open it",
                             n->params.state_path);
            return false;
        }
        /* no file yet: a fresh SSD, saved there when QEMU quits */
        return femu_state_check_writable(n, errp);
    }
    ftl = ftl_state_load(&n->cfg, f, get_clock(), err, sizeof(err));
    if (!ftl) {
        goto fail;
    }
    buf = g_malloc(FEMU_STATE_DATA_MAX);
    for (;;) {
        rc = ftl_state_next_section(f, &tag, &len, err, sizeof(err));
        if (rc <= 0) {
            goto fail;
        }
        if (tag == FTL_STATE_SEC_END) {
            if (ftl_state_skip_payload(f, tag, len, err, sizeof(err))) {
                goto fail;
            }
            break;
        }
        if (tag == FTL_STATE_SEC_DATA || tag == FTL_STATE_SEC_DEV) {
            uint64_t max = tag == FTL_STATE_SEC_DATA ? FEMU_STATE_DATA_MAX
                                                    : FEMU_STATE_DEV_LEN;
            if (len > max || (tag == FTL_STATE_SEC_DEV && len != max)) {
                snprintf(err, sizeof(err), "corrupted state file (%s "
                         "section of %" PRIu64 " bytes)",
                         tag == FTL_STATE_SEC_DATA ? "DATA" : "DEV", len);
                goto fail;
            }
            if (ftl_state_read_payload(f, tag, len, buf, err, sizeof(err))) {
                goto fail;
            }
            if (tag == FTL_STATE_SEC_DEV) {
                n->bytes_read = rd64(buf);
                n->bytes_written = rd64(buf + 8);
                n->host_read_cmds = rd64(buf + 16);
                n->host_write_cmds = rd64(buf + 24);
            } else if (!femu_state_apply_data(n, buf, len, &chunks, err,
                                              sizeof(err))) {
                goto fail;
            }
        } else if (ftl_state_skip_payload(f, tag, len, err, sizeof(err))) {
            /* another writer's section (femu-sim's): checked, not used */
            goto fail;
        }
    }
    fclose(f);
    g_free(buf);
    /* the run-time controls (0xEF codes 1-4) start at their defaults in
     * every QEMU run, with or without a state file */
    ftl_set_gc_delay(ftl, true);
    ftl_set_delay_mode(ftl, FTL_DELAY_CONFIGURED);
    ftl_free(n->ftl);
    n->ftl = ftl;
    trace_femu_state_load(n->params.state_path, chunks, get_clock() - t0);
    return true;

fail:
    fclose(f);
    g_free(buf);
    ftl_free(ftl);
    /* the store may hold part of the file's data: the device is not
     * created, so it is freed with it */
    error_setg(errp, "state=%s: %s", n->params.state_path, err);
    return false;
}

/* One DATA section: the count records gathered in buf. */
static int femu_state_put_data(FILE *f, uint8_t *buf, uint32_t *count,
                               uint64_t *chunks, char *err, size_t errlen)
{
    stl_le_p(buf + 4, *count);
    if (ftl_state_write_section(f, FTL_STATE_SEC_DATA, buf,
                                8 + (uint64_t)*count * FEMU_STATE_REC,
                                err, errlen)) {
        return -1;
    }
    *chunks += *count;
    *count = 0;
    return 0;
}

/*
 * DATA sections: the chunks the store's record says were written and
 * not discarded since, less those that hold zeroes.  The record, not
 * mincore(): the kernel reports pages it swapped out (swap files, zram,
 * zswap) as not resident, and they hold data all the same.
 */
static int femu_state_save_data(FemuCtrl *n, FILE *f, uint64_t *chunks,
                                char *err, size_t errlen)
{
    uint64_t size = n->ns[0].store.size;
    uint64_t nchunks = DIV_ROUND_UP(size, FEMU_STATE_CHUNK);
    g_autofree uint8_t *buf = g_malloc(FEMU_STATE_DATA_MAX);
    uint32_t count = 0;

    stl_le_p(buf, FEMU_STATE_CHUNK);
    for (uint64_t c = find_first_bit(n->ns[0].store.written, nchunks); c < nchunks;
         c = find_next_bit(n->ns[0].store.written, nchunks, c + 1)) {
        uint64_t off = c * FEMU_STATE_CHUNK;
        uint64_t clen = MIN(FEMU_STATE_CHUNK, size - off);
        uint8_t *r;

        if (buffer_is_zero(n->ns[0].store.base + off, clen)) {
            continue;
        }
        r = buf + 8 + (uint64_t)count * FEMU_STATE_REC;
        stq_le_p(r, c);
        memset(r + 8, 0, FEMU_STATE_CHUNK);
        memcpy(r + 8, n->ns[0].store.base + off, clen);
        if (++count == FEMU_STATE_BATCH &&
            femu_state_put_data(f, buf, &count, chunks, err, errlen)) {
            return -1;
        }
    }
    return count ? femu_state_put_data(f, buf, &count, chunks, err, errlen)
                 : 0;
}

bool femu_state_save(FemuCtrl *n, Error **errp)
{
    g_autofree char *tmp = NULL;
    g_autofree char *dir = g_path_get_dirname(n->params.state_path);
    char err[512] = "";
    uint8_t dev[FEMU_STATE_DEV_LEN];
    uint64_t chunks = 0;
    int64_t t0 = get_clock();
    FILE *f;
    int fd, rc;

    if (!n->ftl) {
        error_setg(errp, "state=%s: no FTL to save", n->params.state_path);
        return false;
    }
    fd = femu_state_create(n, ".tmp", O_WRONLY | O_TRUNC, &tmp, errp);
    if (fd < 0) {
        return false;
    }
    f = fdopen(fd, "wb");
    if (!f) {
        error_setg_errno(errp, errno, "state=%s: fdopen", n->params.state_path);
        close(fd);
        unlink(tmp);
        return false;
    }
    stq_le_p(dev, qatomic_read(&n->bytes_read));
    stq_le_p(dev + 8, qatomic_read(&n->bytes_written));
    stq_le_p(dev + 16, qatomic_read(&n->host_read_cmds));
    stq_le_p(dev + 24, qatomic_read(&n->host_write_cmds));
    /* the write cache's pages are mapped once destaged: a state file
     * holds them all (the data is in the store already) */
    if (ftl_flush(n->ftl, get_clock()) == FTL_TIME_ERROR) {
        snprintf(err, sizeof(err), "the write cache could not be destaged "
                 "(no free line)");
        rc = -1;
    } else {
        rc = ftl_state_write_header(f, err, sizeof(err));
    }
    rc = rc ? rc : ftl_state_save(n->ftl, get_clock(), f, err, sizeof(err));
    rc = rc ? rc : ftl_state_write_section(f, FTL_STATE_SEC_DEV, dev,
                                           sizeof(dev), err, sizeof(err));
    rc = rc ? rc : femu_state_save_data(n, f, &chunks, err, sizeof(err));
    rc = rc ? rc : ftl_state_write_section(f, FTL_STATE_SEC_END, NULL, 0,
                                           err, sizeof(err));
    if (!rc && (fflush(f) || qemu_fdatasync(fd))) {
        snprintf(err, sizeof(err), "cannot write %s: %s", tmp,
                 strerror(errno));
        rc = -1;
    }
    if (fclose(f) && !rc) {
        snprintf(err, sizeof(err), "cannot write %s: %s", tmp,
                 strerror(errno));
        rc = -1;
    }
    if (!rc && rename(tmp, n->params.state_path)) {
        snprintf(err, sizeof(err), "cannot rename %s: %s", tmp,
                 strerror(errno));
        rc = -1;
    }
    if (rc) {
        unlink(tmp);
        error_setg(errp, "state=%s: %s", n->params.state_path, err);
        return false;
    }
    /* the rename itself reaches the disk with the directory */
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        qemu_fdatasync(fd);
        close(fd);
    }
    trace_femu_state_save(n->params.state_path, chunks, get_clock() - t0);
    return true;
}

/*
 * One user of a state file at a time: a second device or QEMU process on
 * the same PATH would overwrite this one's saves.  PATH.lock carries an
 * exclusive lock for as long as the device exists (the process's exit
 * drops it).
 */
static bool femu_state_lock(FemuCtrl *n, Error **errp)
{
    g_autofree char *lock = NULL;
    int fd = femu_state_create(n, ".lock", O_RDWR, &lock, errp);

    if (fd < 0) {
        return false;
    }
    if (qemu_lock_fd(fd, 0, 0, true)) {
        error_setg(errp, "state=%s: in use by another femu device or QEMU "
                   "process (%s is locked)", n->params.state_path, lock);
        close(fd);
        return false;
    }
    n->state_lock_fd = fd;
    return true;
}

bool femu_state_realize(FemuCtrl *n, Error **errp)
{
    n->state_lock_fd = -1;
    n->save_bh = qemu_bh_new_guarded(femu_state_save_bh, n,
                                     &DEVICE(n)->mem_reentrancy_guard);
    if (!n->params.state_path) {
        return true;
    }
    if (!*n->params.state_path) {
        error_setg(errp, "state='': give the path of a state file");
        return false;
    }
    if (!femu_is_bbssd(n)) {
        error_setg(errp, "state=%s: state files need femu_mode=1 (the "
                   "BlackBox SSD)", n->params.state_path);
        return false;
    }
    return femu_state_lock(n, errp) && femu_state_load(n, errp);
}

/*
 * The controller's registers and queues, the poller threads' pending
 * completions and the SSD are not described for migration (and the SSD
 * would be saved twice with a state file): refuse migration and savevm
 * with a message that says which device and why.
 */
bool femu_block_migration(FemuCtrl *n, Error **errp)
{
    if (n->params.state_path) {
        error_setg(&n->migration_blocker, "femu device '%s' (state=%s) "
                   "does not support migration or savevm: its SSD is saved "
                   "to the state file when QEMU quits",
                   femu_state_devname(n), n->params.state_path);
    } else {
        error_setg(&n->migration_blocker, "femu device '%s' does not "
                   "support migration or savevm: its SSD lives in host "
                   "memory (state=PATH keeps it across QEMU runs)",
                   femu_state_devname(n));
    }
    return migrate_add_blocker(&n->migration_blocker, errp) == 0;
}

void femu_state_unrealize(FemuCtrl *n)
{
    femu_state_save_wait(n);
    if (n->save_bh) {
        qemu_bh_delete(n->save_bh);
        n->save_bh = NULL;
    }
    if (n->migration_blocker) {
        migrate_del_blocker(&n->migration_blocker);
    }
    if (n->state_lock_fd >= 0) {
        close(n->state_lock_fd);
        n->state_lock_fd = -1;
    }
}

/*
 * Saves on demand.  The SSD must be quiet while it is written: every
 * poller's lock and the FTL lock are held (the commands being executed
 * finish first, I/O waits).  The BQL is not needed for that, so a save
 * the guest asks for (0xEF code 8) runs in a thread of its own: the main
 * loop goes on (QMP, the vCPUs' MMIO, interrupts), only the admin queue
 * waits, and the command completes from a bottom half when the file is
 * on disk.  One save at a time: the admin queue waits for the running
 * one, so a guest that loops on code 8 saves back to back, never two at
 * once.
 */
static bool femu_state_save_quiet(FemuCtrl *n, Error **errp)
{
    bool ok;

    femu_pollers_lock_all(n);
    femu_ftl_lock_main(n);
    ok = femu_state_save(n, errp);
    qemu_mutex_unlock(&n->ftl_lock);
    femu_pollers_unlock_all(n);
    return ok;
}

static void *femu_state_save_thread(void *opaque)
{
    FemuCtrl *n = opaque;

    /* a failure is reported by femu_state_save_finish, under the BQL */
    femu_state_save_quiet(n, &n->save_err);
    qemu_bh_schedule(n->save_bh);
    return NULL;
}

/*
 * Main loop: wait for the running save (if any), report its failure and
 * complete its admin command, unless a controller reset (drop) dropped
 * the queues it came from; the admin queue goes on.
 */
static void femu_state_save_finish(FemuCtrl *n, bool drop)
{
    FemuSQ *sq = n->sq ? n->sq[0] : NULL;
    uint16_t status = NVME_SUCCESS;

    if (!n->save_running) {
        return;
    }
    qemu_thread_join(&n->save_thread);
    n->save_running = false;
    if (n->save_err) {
        error_report_err(n->save_err);
        n->save_err = NULL;
        status = NVME_INTERNAL_DEV_ERROR;
    }
    trace_femu_admin_done(le16_to_cpu(n->save_cmd.cid), n->save_cmd.opcode,
                          status, 0);
    if (drop || !sq) {
        return;
    }
    if (status) {
        femu_error_record(n, 0, &n->save_cmd, status);
    }
    femu_cq_post(sq->cq, sq, n->save_cmd.cid, status, 0);
    qemu_bh_schedule(n->admin_bh);
}

static void femu_state_save_bh(void *opaque)
{
    femu_state_save_finish(opaque, false);
}

/* 0xEF code 8 (admin queue, BQL held): start a save in its thread. */
uint16_t femu_state_save_now(FemuCtrl *n, NvmeCmd *cmd)
{
    if (!n->params.state_path || !n->ftl) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    n->save_cmd = *cmd;
    n->save_running = true;
    qemu_thread_create(&n->save_thread, "femu-save", femu_state_save_thread,
                       n, QEMU_THREAD_JOINABLE);
    return NVME_NO_COMPLETE;
}

bool femu_state_saving(FemuCtrl *n)
{
    return n->save_running;
}

/* Controller reset, exit: the running save ends; nothing is completed. */
void femu_state_save_wait(FemuCtrl *n)
{
    femu_state_save_finish(n, true);
}

/*
 * QOM property save-state (qom-set DEVICE save-state true): a checkpoint
 * from the host, whatever the guest does.  It returns when the file is
 * on disk (after a save the guest started, if one runs); the main loop
 * waits for it, as for a migration's last pass.
 */
static void femu_state_prop_set(Object *obj, bool value, Error **errp)
{
    FemuCtrl *n = FEMU(obj);

    if (!value) {
        return;
    }
    if (!DEVICE(obj)->realized) {
        error_setg(errp, "save-state: saves a running device's state "
                   "file; set it with qom-set, not on the command line");
        return;
    }
    if (!n->params.state_path || !n->ftl) {
        error_setg(errp, "save-state: femu device '%s' has no state file "
                   "(state=PATH, femu_mode=1)", femu_state_devname(n));
        return;
    }
    femu_state_save_finish(n, false);
    femu_state_save_quiet(n, errp);
}

static bool femu_state_prop_get(Object *obj, Error **errp)
{
    return FEMU(obj)->save_running;
}

void femu_state_class_init(ObjectClass *oc)
{
    object_class_property_add_bool(oc, "save-state", femu_state_prop_get,
                                   femu_state_prop_set);
    object_class_property_set_description(oc, "save-state",
        "write true (QMP qom-set) to save the state file now; reads true "
        "while a save the guest asked for runs (docs/state.md)");
}

/* QEMU is exiting and the pollers are stopped: save, report a failure. */
void femu_state_exit(FemuCtrl *n)
{
    Error *local_err = NULL;

    if (n->params.state_path && n->ftl && !femu_state_save(n, &local_err)) {
        error_report_err(local_err);
    }
}
