/* SPDX-License-Identifier: MIT */
/*
 * ZIP archives over libzip (see gcev_archive.h).
 *
 * Why libzip: it reads the central directory once and then opens any entry by
 * index, each open entry with its own decompressor and position over the shared
 * input, so a reader can interleave several entries (the LTTng reader's per-CPU
 * streams) without re-inflating from the start, and without extracting anything.
 * A streaming-only reader (libarchive) walks entries in order, one at a time.
 *
 * An entry source is a gcev_source over a read callback (zip_fread), so it has the
 * window semantics of every other callback input: memory O(largest take).
 */
#include "gcev_archive.h"

#include <stdlib.h>
#include <string.h>

#include "gcev_error.h"
#include "gcev_zip_api.h"

struct gcev_archive {
    const gcev_zip_api *z; /* libzip (gcev_zip_api.h) */
    zip_t *za;
    gcev_source backing; /* the mapped file or memory under za, when taken over */
    gcev_archive_entry *entries;
    size_t n;
    unsigned refs;
};

typedef struct archive_stream {
    gcev_archive *a;
    zip_file_t *zf;
    uint64_t size, done; /* the entry's declared size, bytes delivered */
    int zip_err;         /* libzip's error of the last failed read, or one of ours: */
} archive_stream;

enum { STREAM_TOO_LONG = -1, STREAM_TOO_SHORT = -2 };

static gcev_status archive_fail(gcev_error *err, gcev_status code, uint64_t offset, const char *msg)
{
    return gcev_error_set(err, code, offset, NULL, msg);
}

int gcev_archive_detect(const uint8_t *head, size_t n)
{
    if (!head || n < 4 || head[0] != 'P' || head[1] != 'K') {
        return 0;
    }
    return (head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6);
}

/* A failed zip_open: its libzip error as a status and a static message. */
static gcev_status archive_open_error(int code, uint64_t size, gcev_error *err)
{
    switch (code) {
    case ZIP_ER_NOZIP:
        return archive_fail(err, GCEV_E_TRUNCATED_FILE, size,
                            "ZIP archive has no end of central directory record (the file is cut short)");
    case ZIP_ER_MULTIDISK:
        return archive_fail(err, GCEV_E_UNSUPPORTED, 0, "split (multi-disk) ZIP archives are not supported");
    case ZIP_ER_MEMORY:
        return archive_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    case ZIP_ER_OPEN:
    case ZIP_ER_NOENT:
        return archive_fail(err, GCEV_E_IO, 0, "cannot open the ZIP archive");
    case ZIP_ER_READ:
    case ZIP_ER_SEEK:
    case ZIP_ER_TELL:
        return archive_fail(err, GCEV_E_IO, 0, "read error on the ZIP archive");
    case ZIP_ER_INCONS:
        return archive_fail(err, GCEV_E_FORMAT, 0, "ZIP archive's central directory is inconsistent");
    default:
        return archive_fail(err, GCEV_E_FORMAT, 0, "ZIP archive cannot be read");
    }
}

static void archive_free(gcev_archive *a)
{
    if (a->za) {
        a->z->discard(a->za);
    }
    gcev_source_close(&a->backing);
    free(a->entries);
    free(a);
}

static void archive_unref(gcev_archive *a)
{
    if (a && --a->refs == 0) {
        archive_free(a);
    }
}

/* Lists the entries of a->za; on failure frees a (and za). */
static gcev_status archive_list(gcev_archive *a, gcev_archive **out, gcev_error *err)
{
    zip_int64_t n = a->z->get_num_entries(a->za, 0);
    gcev_status st = GCEV_OK;
    if (n < 0) {
        st = archive_fail(err, GCEV_E_FORMAT, 0, "ZIP archive cannot be read");
    } else if ((uint64_t)n > GCEV_ARCHIVE_MAX_ENTRIES) {
        st = archive_fail(err, GCEV_E_LIMIT, 0, "ZIP archive has more entries than the safety limit");
    } else if (n > 0 && !(a->entries = calloc((size_t)n, sizeof *a->entries))) {
        st = archive_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    for (zip_int64_t i = 0; st == GCEV_OK && i < n; i++) {
        zip_stat_t zs;
        a->z->stat_init(&zs);
        if (a->z->stat_index(a->za, (zip_uint64_t)i, 0, &zs) != 0) {
            st = archive_fail(err, GCEV_E_FORMAT, 0, "ZIP archive's central directory is inconsistent");
            break;
        }
        gcev_archive_entry *e = &a->entries[i];
        e->name = (zs.valid & ZIP_STAT_NAME) && zs.name ? zs.name : "";
        e->size = (zs.valid & ZIP_STAT_SIZE) ? zs.size : 0;
        e->compressed_size = (zs.valid & ZIP_STAT_COMP_SIZE) ? zs.comp_size : 0;
        e->index = (uint32_t)i;
        size_t len = strlen(e->name);
        e->is_dir = len > 0 && e->name[len - 1] == '/';
        int method_ok =
            (zs.valid & ZIP_STAT_COMP_METHOD) && a->z->compression_method_supported(zs.comp_method, 0);
        int clear = !(zs.valid & ZIP_STAT_ENCRYPTION_METHOD) || zs.encryption_method == ZIP_EM_NONE;
        e->readable = (uint8_t)(method_ok && clear && !e->is_dir);
    }
    if (st != GCEV_OK) {
        archive_free(a);
        return st;
    }
    a->n = (size_t)n;
    a->refs = 1;
    *out = a;
    return GCEV_OK;
}

/* A new archive with libzip at hand: NOMEM, or UNSUPPORTED when libzip cannot be loaded. */
static gcev_status archive_new(gcev_archive **out, gcev_error *err)
{
    const gcev_zip_api *z = gcev_zip_api_get();
    if (!z) {
        return archive_fail(err, GCEV_E_UNSUPPORTED, 0,
                            "libzip cannot be loaded: ZIP archives cannot be read");
    }
    gcev_archive *a = calloc(1, sizeof *a);
    if (!a) {
        return archive_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    a->z = z;
    a->backing.fd = -1;
    *out = a;
    return GCEV_OK;
}

gcev_status gcev_archive_open_memory(const void *data, size_t size, gcev_archive **out, gcev_error *err)
{
    if (!out || (!data && size)) {
        return archive_fail(err, GCEV_E_INVALID_ARG, 0,
                            "out is required; data may be NULL only when size is 0");
    }
    *out = NULL;
    gcev_archive *a = NULL;
    gcev_status st = archive_new(&a, err);
    if (st != GCEV_OK) {
        return st;
    }
    zip_error_t ze;
    a->z->error_init(&ze);
    zip_source_t *zs = a->z->source_buffer_create(data, size, 0, &ze);
    if (zs) {
        a->za = a->z->open_from_source(zs, ZIP_RDONLY, &ze);
        if (!a->za) {
            a->z->source_free(zs);
        }
    }
    if (!a->za) {
        int code = a->z->error_code_zip(&ze);
        a->z->error_fini(&ze);
        free(a);
        return archive_open_error(code, size, err);
    }
    a->z->error_fini(&ze);
    return archive_list(a, out, err);
}

gcev_status gcev_archive_open_file(const char *path, gcev_archive **out, gcev_error *err)
{
    if (!out || !path) {
        return archive_fail(err, GCEV_E_INVALID_ARG, 0, "path and out are required");
    }
    *out = NULL;
    gcev_archive *a = NULL;
    gcev_status st = archive_new(&a, err);
    if (st != GCEV_OK) {
        return st;
    }
    int code = 0;
    a->za = a->z->open(path, ZIP_RDONLY, &code);
    if (!a->za) {
        free(a);
        return archive_open_error(code, 0, err);
    }
    return archive_list(a, out, err);
}

gcev_status gcev_archive_open_source(gcev_source *s, gcev_archive **out, gcev_error *err)
{
    if (!s || !out) {
        return archive_fail(err, GCEV_E_INVALID_ARG, 0, "source and out are required");
    }
    *out = NULL;
    if (s->read || s->fd >= 0 || (!s->base && s->size)) {
        return archive_fail(err, GCEV_E_UNSUPPORTED, 0,
                            "a ZIP archive needs a seekable input (a file or memory), not a stream");
    }
    gcev_archive *a = NULL;
    gcev_status st = gcev_archive_open_memory(s->base, (size_t)s->size, &a, err);
    if (st != GCEV_OK) {
        return st;
    }
    a->backing = *s; /* the archive now owns the mapping */
    memset(s, 0, sizeof *s);
    s->fd = -1;
    *out = a;
    return GCEV_OK;
}

size_t gcev_archive_count(const gcev_archive *a)
{
    return a ? a->n : 0;
}

const gcev_archive_entry *gcev_archive_entry_at(const gcev_archive *a, size_t i)
{
    return (a && i < a->n) ? &a->entries[i] : NULL;
}

const gcev_archive_entry *gcev_archive_find(const gcev_archive *a, const char *name)
{
    if (!a || !name) {
        return NULL;
    }
    for (size_t i = 0; i < a->n; i++) {
        if (strcmp(a->entries[i].name, name) == 0) {
            return &a->entries[i];
        }
    }
    return NULL;
}

/*
 * Delivers exactly the entry's declared size, so offsets never pass it: libzip
 * inflates whatever the compressed data holds, and checks the CRC only when it
 * sees the data end, which the probe at the declared end makes it do.
 */
static long long stream_read(void *ctx, void *buf, size_t n)
{
    archive_stream *e = ctx;
    uint64_t left = e->size - e->done;
    if (left == 0) {
        uint8_t probe;
        zip_int64_t r = e->a->z->fread(e->zf, &probe, 1);
        if (r != 0) {
            e->zip_err = r < 0 ? e->a->z->error_code_zip(e->a->z->file_get_error(e->zf)) : STREAM_TOO_LONG;
            return -1;
        }
        return 0;
    }
    zip_int64_t r = e->a->z->fread(e->zf, buf, n < left ? n : (size_t)left);
    if (r <= 0) {
        e->zip_err = r < 0 ? e->a->z->error_code_zip(e->a->z->file_get_error(e->zf)) : STREAM_TOO_SHORT;
        return -1;
    }
    e->done += (uint64_t)r;
    return (long long)r;
}

static gcev_status stream_fault(void *ctx, const char **msg)
{
    const archive_stream *e = ctx;
    switch (e->zip_err) {
    case STREAM_TOO_LONG:
        *msg = "ZIP entry's data goes on past the size its directory record gives";
        return GCEV_E_FORMAT;
    case STREAM_TOO_SHORT:
        *msg = "ZIP entry's data ends before the size its directory record gives";
        return GCEV_E_FORMAT;
    case ZIP_ER_CRC:
        *msg = "ZIP entry's data does not match its CRC";
        return GCEV_E_FORMAT;
    case ZIP_ER_ZLIB:
    case ZIP_ER_COMPRESSED_DATA:
        *msg = "ZIP entry's compressed data is corrupt";
        return GCEV_E_FORMAT;
    case ZIP_ER_INCONS:
        *msg = "ZIP entry is inconsistent with its directory record";
        return GCEV_E_FORMAT;
    case ZIP_ER_EOF:
        *msg = "ZIP archive ends inside an entry's data";
        return GCEV_E_TRUNCATED_FILE;
    case ZIP_ER_MEMORY:
        *msg = "out of memory";
        return GCEV_E_NOMEM;
    default:
        *msg = "read error on a ZIP entry";
        return GCEV_E_IO;
    }
}

static void stream_release(void *ctx)
{
    archive_stream *e = ctx;
    e->a->z->fclose(e->zf);
    archive_unref(e->a);
    free(e);
}

gcev_status gcev_archive_open_entry(gcev_archive *a, size_t i, gcev_source *s, gcev_error *err)
{
    if (!a || !s || i >= a->n) {
        return archive_fail(err, GCEV_E_INVALID_ARG, 0, "no such ZIP entry");
    }
    const gcev_archive_entry *ent = &a->entries[i];
    if (ent->is_dir) {
        return archive_fail(err, GCEV_E_INVALID_ARG, 0, "ZIP entry is a directory");
    }
    archive_stream *e = calloc(1, sizeof *e);
    if (!e) {
        return archive_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    e->zf = a->z->fopen_index(a->za, (zip_uint64_t)i, 0);
    if (!e->zf) {
        int code = a->z->error_code_zip(a->z->get_error(a->za));
        a->z->error_clear(a->za);
        free(e);
        switch (code) {
        case ZIP_ER_COMPNOTSUPP:
            return archive_fail(err, GCEV_E_UNSUPPORTED, 0,
                                "ZIP entry uses a compression method libzip lacks");
        case ZIP_ER_ENCRNOTSUPP:
        case ZIP_ER_NOPASSWD:
        case ZIP_ER_WRONGPASSWD:
            return archive_fail(err, GCEV_E_UNSUPPORTED, 0, "encrypted ZIP entries are not supported");
        case ZIP_ER_MEMORY:
            return archive_fail(err, GCEV_E_NOMEM, 0, "out of memory");
        case ZIP_ER_READ:
        case ZIP_ER_SEEK:
            return archive_fail(err, GCEV_E_IO, 0, "read error on the ZIP archive");
        case ZIP_ER_EOF:
            return archive_fail(err, GCEV_E_TRUNCATED_FILE, 0, "ZIP archive ends inside an entry's header");
        default:
            return archive_fail(err, GCEV_E_FORMAT, 0, "ZIP entry's local header is invalid");
        }
    }
    e->a = a;
    e->size = ent->size;
    a->refs++;
    gcev_source_init_reader(s, stream_read, e);
    s->release = stream_release;
    s->fault = stream_fault;
    s->size = ent->size;
    return GCEV_OK;
}

void gcev_archive_close(gcev_archive *a)
{
    archive_unref(a);
}
