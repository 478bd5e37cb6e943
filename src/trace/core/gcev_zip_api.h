/* SPDX-License-Identifier: MIT */
/*
 * The libzip functions gcev_archive.c calls, as one table. Where the build found libzip's
 * SONAME (GCEV_LIBZIP_SONAME), libzip is loaded by dlopen at the first archive, not linked:
 * libzip brings libcrypto, bzip2 and zlib, whose loading cost every program that links gcev
 * about 5 ms of CPU at its start on the development machine (`gcev --version`: 9.0 ms
 * against 2.2 for an empty program), archive or not. Elsewhere (no dlopen, no SONAME) the
 * table holds the linked functions.
 */
#ifndef GCEV_ZIP_API_H
#define GCEV_ZIP_API_H

#include <zip.h>

/* X(name without its zip_ prefix, return type, parameter list) */
#define GCEV_ZIP_FUNCTIONS(X)                                                                                \
    X(compression_method_supported, int, (zip_int32_t, int))                                                 \
    X(discard, void, (zip_t *))                                                                              \
    X(error_clear, void, (zip_t *))                                                                          \
    X(error_code_zip, int, (const zip_error_t *))                                                            \
    X(error_fini, void, (zip_error_t *))                                                                     \
    X(error_init, void, (zip_error_t *))                                                                     \
    X(fclose, int, (zip_file_t *))                                                                           \
    X(file_get_error, zip_error_t *, (zip_file_t *))                                                         \
    X(fopen_index, zip_file_t *, (zip_t *, zip_uint64_t, zip_flags_t))                                       \
    X(fread, zip_int64_t, (zip_file_t *, void *, zip_uint64_t))                                              \
    X(get_error, zip_error_t *, (zip_t *))                                                                   \
    X(get_num_entries, zip_int64_t, (zip_t *, zip_flags_t))                                                  \
    X(open, zip_t *, (const char *, int, int *))                                                             \
    X(open_from_source, zip_t *, (zip_source_t *, int, zip_error_t *))                                       \
    X(source_buffer_create, zip_source_t *, (const void *, zip_uint64_t, int, zip_error_t *))                \
    X(source_free, void, (zip_source_t *))                                                                   \
    X(stat_index, int, (zip_t *, zip_uint64_t, zip_flags_t, zip_stat_t *))                                   \
    X(stat_init, void, (zip_stat_t *))

#define GCEV_ZIP_MEMBER(name, ret, params) ret(*name) params;
typedef struct gcev_zip_api {
    GCEV_ZIP_FUNCTIONS(GCEV_ZIP_MEMBER)
} gcev_zip_api;
#undef GCEV_ZIP_MEMBER

/* The table, libzip loaded at the first call (thread-safe); NULL when it cannot be loaded. */
const gcev_zip_api *gcev_zip_api_get(void);

#endif
