/* SPDX-License-Identifier: MIT */
/*
 * ZIP archives read in place: PerfView's .etl.zip and .nettrace.zip, perfcollect's
 * LTTng .trace.zip. The entries are listed from the central directory, and each
 * entry opens as a streaming gcev_source that inflates as it is read: memory is one
 * source window (plus the inflater's state) per open entry, nothing is extracted to
 * disk, and several entries of one archive may be open at once and read in any
 * interleaving (per-CPU streams). libzip does the ZIP work (random access to entries
 * through the central directory; one decompressor per open entry).
 *
 * Ownership: an archive is reference counted. gcev_archive_open_entry() gives the
 * source a reference, which its gcev_source_close() drops; gcev_archive_close()
 * drops the opener's. The archive (and the bytes or file under it) goes away with
 * the last reference, so closing the archive before its sources is allowed.
 * Threads: an archive and every source opened from it share libzip state: use them
 * from one thread at a time. Distinct archives are independent.
 *
 * Errors: every function returns a gcev_status and fills the optional gcev_error
 * with a static message; offsets are into the archive for open failures and into
 * the entry's uncompressed bytes for reads.
 */
#ifndef GCEV_ARCHIVE_H
#define GCEV_ARCHIVE_H

#include "gcev_source.h"

typedef struct gcev_archive gcev_archive;

typedef struct gcev_archive_entry {
    const char *name;         /* UTF-8 path inside the archive, '/'-separated; lives with the archive */
    uint64_t size;            /* uncompressed bytes, as the central directory says */
    uint64_t compressed_size; /* bytes stored */
    uint32_t index;           /* position in the central directory (= position in the list) */
    uint8_t is_dir;           /* the name ends with '/' */
    uint8_t readable;         /* stored or a compression method libzip inflates, not encrypted */
} gcev_archive_entry;

/* Safety limit on the number of entries (GCEV_E_LIMIT beyond it). */
enum { GCEV_ARCHIVE_MAX_ENTRIES = 1u << 20 };

/* 1 when the first bytes (4 suffice) start a ZIP archive: a local file header, or
 * the end record of an empty archive. */
int gcev_archive_detect(const uint8_t *head, size_t n);

/*
 * Opens the archive in data[0..size) (not copied: data must outlive the archive
 * and its sources). GCEV_E_TRUNCATED_FILE (offset = size) when the end of central
 * directory record is missing, as in a cut file; GCEV_E_UNSUPPORTED for split
 * archives; GCEV_E_FORMAT for an inconsistent directory; GCEV_E_LIMIT beyond
 * GCEV_ARCHIVE_MAX_ENTRIES; GCEV_E_NOMEM.
 */
gcev_status gcev_archive_open_memory(const void *data, size_t size, gcev_archive **out, gcev_error *err);
/* Opens the archive file at path (read with seeks, never mapped whole); same errors,
 * and GCEV_E_IO when it cannot be opened or read. */
gcev_status gcev_archive_open_file(const char *path, gcev_archive **out, gcev_error *err);
/*
 * Opens the archive held by a mapped-file or memory source and takes the source
 * over on success (*s is left closed; the mapping is released with the archive).
 * GCEV_E_UNSUPPORTED, with *s untouched, for a source that is not seekable
 * (a read callback or an unmappable file).
 */
gcev_status gcev_archive_open_source(gcev_source *s, gcev_archive **out, gcev_error *err);

/* Number of entries (directories included). */
size_t gcev_archive_count(const gcev_archive *a);
/* Entry i (i < count), or NULL. */
const gcev_archive_entry *gcev_archive_entry_at(const gcev_archive *a, size_t i);
/* The entry with exactly this name, or NULL. */
const gcev_archive_entry *gcev_archive_find(const gcev_archive *a, const char *name);

/*
 * Opens entry i as a streaming source (*s is initialised; close it with
 * gcev_source_close()). Reads inflate on the way; s->size is the entry's size.
 * GCEV_E_INVALID_ARG for a bad index or a directory; GCEV_E_UNSUPPORTED for an
 * encrypted entry or an unknown compression method; GCEV_E_FORMAT for a bad local
 * header; GCEV_E_NOMEM. Reads that fail later report, at the offset inside the
 * entry: GCEV_E_FORMAT (corrupt compressed data, CRC mismatch),
 * GCEV_E_TRUNCATED_FILE (the archive ends inside the entry) or GCEV_E_IO.
 */
gcev_status gcev_archive_open_entry(gcev_archive *a, size_t i, gcev_source *s, gcev_error *err);

/* Drops the opener's reference (NULL allowed). */
void gcev_archive_close(gcev_archive *a);

#endif
