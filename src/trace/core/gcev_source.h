/* SPDX-License-Identifier: MIT */
/*
 * Byte input for the trace readers: a file in memory (mapped, or read whole), a caller's memory buffer, a
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
    size_t map_len;      /* when mapped: the length to unmap */
    int loaded;          /* 1 when the mapping holds the file read whole (2 MiB pages), not the file */
    int small;           /* 1 when base is a small file read whole onto the C heap (to free) */
    int fd;              /* file descriptor when the file could not be mapped, else -1 */
    gcev_read_fn read;   /* callback input */
    void *ctx;
    uint8_t *buf; /* window for callback input */
    size_t buf_cap;
    int buf_huge;    /* 1: buf is one 2 MiB huge page (os_huge_alloc), not the C heap's */
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
    /* when scan_limited: the bytes gcev_source_scan may still move past (keep-going's bound
     * on the work of skipping damage in an archive entry, set by gcev_trace_resume) */
    int scan_limited;
    uint64_t scan_left;
} gcev_source;

gcev_status gcev_source_init_memory(gcev_source *s, const uint8_t *data, size_t size);
gcev_status gcev_source_init_file(gcev_source *s, const char *path, gcev_error *err);
/*
 * As gcev_source_init_file, but a regular file of more than 16 KiB (smaller ones are read whole
 * onto the heap either way) that begins with the n bytes of magic is read through the window
 * (read() calls) rather than loaded or mapped: for a reader that walks it
 * once, front to back, and needs no more than a block at a time. Loading a file of 2-256 MiB
 * whole costs the kernel zeroing and freeing as many pages as it has bytes; a window of about
 * a block stays in the cache (the 47 MB NetTrace V4 trace of bench/whole_process.sh: about a
 * tenth of `gcev count`'s CPU time). POSIX only (pread); elsewhere as gcev_source_init_file.
 */
gcev_status gcev_source_init_file_once(gcev_source *s, const char *path, const void *magic, size_t n,
                                       gcev_error *err);
gcev_status gcev_source_init_reader(gcev_source *s, gcev_read_fn read, void *ctx);
/* Closes the input: unmaps, frees or closes the file, frees the window (a 2 MiB one is kept for
 * the next source), releases an owned ctx. */
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
/* Whether the whole input is in memory (a mapped file, a caller's buffer): any offset can be read. */
static inline int gcev_source_random(const gcev_source *s)
{
    return s->base != NULL && s->read == NULL && s->fd < 0;
}
/* Moves to offset pos: anywhere in the input with random access, else only forward (skip). */
gcev_status gcev_source_seek(gcev_source *s, uint64_t pos, gcev_error *err);
/*
 * Keep-going's search for the next record a reader can trust: moves forward from the
 * current position to the first offset where match(ctx, p, n, off) returns 1, p being the
 * bytes from offset off: n of them, at least `need` unless the input ends first (with
 * random access, all the rest of the input; for a stream, what the window holds). Returns
 * GCEV_OK there, GCEV_END at the end of the input (nothing matched), GCEV_E_LIMIT (err->offset
 * where it stopped) when scan_limited and it would move past more than scan_left bytes (which
 * it lowers by the bytes it moves past), or a read error. match
 * must do O(1) work per call (it is called at every offset), so the search is linear.
 */
gcev_status gcev_source_scan(gcev_source *s, size_t need,
                             int (*match)(void *ctx, const uint8_t *p, size_t n, uint64_t off), void *ctx,
                             gcev_error *err);

#endif
