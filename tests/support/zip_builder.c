/* SPDX-License-Identifier: MIT */
/* In-memory ZIP writer for tests (see zip_builder.h). */
#define _DEFAULT_SOURCE
#include "zip_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

uint8_t *zipb_build(const zipb_entry *entries, size_t n, size_t *size)
{
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *out = zip_source_buffer_create(NULL, 0, 0, &ze);
    if (!out) {
        return NULL;
    }
    zip_t *za = zip_open_from_source(out, ZIP_TRUNCATE, &ze);
    zip_error_fini(&ze);
    if (!za) {
        zip_source_free(out);
        return NULL;
    }
    zip_source_keep(out); /* read the written bytes after zip_close */
    for (size_t i = 0; i < n; i++) {
        const zipb_entry *e = &entries[i];
        size_t len = strlen(e->name);
        zip_int64_t idx;
        if (len && e->name[len - 1] == '/') {
            idx = zip_dir_add(za, e->name, ZIP_FL_ENC_UTF_8);
        } else {
            zip_source_t *src = zip_source_buffer(za, e->data, e->size, 0);
            idx = src ? zip_file_add(za, e->name, src, ZIP_FL_ENC_UTF_8) : -1;
            if (idx < 0) {
                zip_source_free(src);
            } else {
                zip_set_file_compression(za, (zip_uint64_t)idx,
                                         e->method == ZIPB_STORE ? ZIP_CM_STORE : ZIP_CM_DEFLATE, 0);
                if (e->encrypt) {
                    zip_file_set_encryption(za, (zip_uint64_t)idx, ZIP_EM_AES_256, "pw");
                }
            }
        }
        if (idx < 0) {
            zip_discard(za);
            zip_source_free(out);
            return NULL;
        }
    }
    uint8_t *bytes = NULL;
    zip_stat_t st;
    if (zip_close(za) != 0) {
        zip_discard(za);
        zip_source_free(out);
        return NULL;
    }
    if (zip_source_stat(out, &st) == 0 && zip_source_open(out) == 0) {
        bytes = malloc(st.size ? st.size : 1);
        if (bytes && zip_source_read(out, bytes, st.size) == (zip_int64_t)st.size) {
            *size = st.size;
        } else {
            free(bytes);
            bytes = NULL;
        }
        zip_source_close(out);
    }
    zip_source_free(out);
    return bytes;
}

char *zipb_write_temp(const uint8_t *data, size_t size, const char *suffix)
{
    const char *dir = getenv("TMPDIR");
    dir = dir && *dir ? dir : "/tmp";
    size_t n = strlen(dir) + strlen(suffix) + 32;
    char *path = malloc(n);
    if (!path) {
        return NULL;
    }
    snprintf(path, n, "%s/gcev-zip-XXXXXX%s", dir, suffix);
    int fd = mkstemps(path, (int)strlen(suffix));
    if (fd < 0) {
        free(path);
        return NULL;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f || fwrite(data, 1, size, f) != size) {
        if (f) {
            fclose(f);
        } else {
            close(fd);
        }
        unlink(path);
        free(path);
        return NULL;
    }
    fclose(f);
    return path;
}
