/* SPDX-License-Identifier: MIT */
/*
 * Byte input for the trace readers: a mapped file, a caller's memory buffer, a
 * non-seekable read callback, or an archive entry inflated as it is read
 * (gcev_archive.h). take() returns a view of exactly n bytes; for files and
 * memory it points into the mapping (zero copy), for callbacks and archive
 * entries into an internal window that grows up to the block-size limit. A view
 * is valid until the next take/skip/close on the same source.
 */
#ifndef GCEV_SOURCE_H
#define GCEV_SOURCE_H

#include <gcev/gcev_trace.h>

typedef struct gcev_source {
    const uint8_t *base; /* whole input when mapped / in memory, else NULL */
    uint64_t size;       /* total size when known, else 0 */
    uint64_t pos;        /* absolute offset of the next byte */
    int mapped;          /* 1 when base came from mmap (must be unmapped) */
    int fd;              /* file descriptor when the file could not be mapped, else -1 */
    gcev_read_fn read;   /* callback input */
    void *ctx;
    uint8_t *buf; /* window for callback input */
    size_t buf_cap;
    size_t max_take; /* safety limit on one take() */
    int at_eof;
    size_t buf_len; /* callback input: bytes held in buf */
    size_t buf_off; /* callback input: index in buf of the byte at pos */
    /* callback input that owns its ctx (archive entries): called once by close */
    void (*release)(void *ctx);
    /* callback input that can say why a read failed (-1): the status (FORMAT for
     * corrupt compressed data, TRUNCATED_FILE, IO ...) and a static message */
    gcev_status (*fault)(void *ctx, const char **msg);
    int os_errno; /* errno of the last failed open/read (GCEV_E_IO), else 0 */
} gcev_source;

gcev_status gcev_source_init_memory(gcev_source *s, const uint8_t *data, size_t size);
gcev_status gcev_source_init_file(gcev_source *s, const char *path, gcev_error *err);
gcev_status gcev_source_init_reader(gcev_source *s, gcev_read_fn read, void *ctx);
/* Closes the input: unmaps or closes the file, frees the window, releases an owned ctx. */
void gcev_source_close(gcev_source *s);

/*
 * View of exactly n bytes at the current position, then advances past them.
 * GCEV_E_TRUNCATED_FILE when fewer remain (err->offset = current position),
 * GCEV_E_LIMIT when n exceeds max_take, GCEV_E_IO on read errors.
 */
gcev_status gcev_source_take(gcev_source *s, size_t n, const uint8_t **view, gcev_error *err);
/* Like take, without advancing; *got may be < n at the end of input (never an error). */
gcev_status gcev_source_peek(gcev_source *s, size_t n, const uint8_t **view, size_t *got, gcev_error *err);
/* Advances n bytes (reads and discards for callbacks). */
gcev_status gcev_source_skip(gcev_source *s, uint64_t n, gcev_error *err);
static inline uint64_t gcev_source_pos(const gcev_source *s)
{
    return s->pos;
}

#endif
