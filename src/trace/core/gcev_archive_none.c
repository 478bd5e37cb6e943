/* SPDX-License-Identifier: MIT */
/*
 * ZIP archives in a build without libzip (-DGCEV_WITH_LIBZIP=OFF; the Windows cross
 * build, for which Debian has no libzip): an archive is still recognised by its
 * first bytes, and opening one says why it cannot be read (GCEV_E_UNSUPPORTED)
 * instead of calling it "not a trace". Same interface as gcev_archive.c.
 */
#include "gcev_archive.h"

#include "gcev_error.h"

static const char no_zip[] =
    "ZIP archives need libzip, and this gcev was built without it (GCEV_WITH_LIBZIP)";

int gcev_archive_detect(const uint8_t *head, size_t n)
{
    if (!head || n < 4 || head[0] != 'P' || head[1] != 'K') {
        return 0;
    }
    return (head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6);
}

gcev_status gcev_archive_open_memory(const void *data, size_t size, gcev_archive **out, gcev_error *err)
{
    (void)data;
    (void)size;
    if (out) {
        *out = NULL;
    }
    return gcev_error_set(err, GCEV_E_UNSUPPORTED, 0, NULL, no_zip);
}

gcev_status gcev_archive_open_file(const char *path, gcev_archive **out, gcev_error *err)
{
    (void)path;
    return gcev_archive_open_memory(NULL, 0, out, err);
}

gcev_status gcev_archive_open_source(gcev_source *s, gcev_archive **out, gcev_error *err)
{
    (void)s;
    return gcev_archive_open_memory(NULL, 0, out, err);
}

size_t gcev_archive_count(const gcev_archive *a)
{
    (void)a;
    return 0;
}

const gcev_archive_entry *gcev_archive_entry_at(const gcev_archive *a, size_t i)
{
    (void)a;
    (void)i;
    return NULL;
}

const gcev_archive_entry *gcev_archive_find(const gcev_archive *a, const char *name)
{
    (void)a;
    (void)name;
    return NULL;
}

gcev_status gcev_archive_open_entry(gcev_archive *a, size_t i, gcev_source *s, gcev_error *err)
{
    (void)a;
    (void)i;
    (void)s;
    return gcev_error_set(err, GCEV_E_UNSUPPORTED, 0, NULL, no_zip);
}

void gcev_archive_close(gcev_archive *a)
{
    (void)a;
}
