/*
 * Replays fuzzer inputs without libFuzzer: each argument is a file or a
 * directory of files, each fed once to LLVMFuzzerTestOneInput.  Used by
 * tests/fuzz/ftl-replay.t so the corpus and every saved crash stay regression
 * tests in `make check` (built with gcc, plus ASan/UBSan when available).
 *
 * Copyright (c) 2026 FEMU developers
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replayed;

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long len;

    if (!f) {
        perror(path);
        return -1;
    }
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc(len > 0 ? (size_t)len : 1);
    if (len > 0 && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        perror(path);
        fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)len);
    free(buf);
    replayed++;
    return 0;
}

static int replay(const char *path)
{
    struct stat st;
    struct dirent **ents;
    int n, rc = 0;

    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        return replay_file(path);
    }
    n = scandir(path, &ents, NULL, alphasort);
    if (n < 0) {
        perror(path);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (ents[i]->d_name[0] != '.') {
            char sub[4096];
            snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
            rc |= replay(sub);
        }
        free(ents[i]);
    }
    free(ents);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;

    for (int i = 1; i < argc; i++) {
        rc |= replay(argv[i]);
    }
    printf("replayed %d inputs\n", replayed);
    return rc ? 1 : 0;
}
