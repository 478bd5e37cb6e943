/* SPDX-License-Identifier: MIT */
/*
 * Writes ZIP archives in memory for the tests (libzip's writer), so archive tests
 * need no zip program and no committed binaries.
 */
#ifndef GCEV_ZIP_BUILDER_H
#define GCEV_ZIP_BUILDER_H

#include <stddef.h>
#include <stdint.h>

typedef struct zipb_entry {
    const char *name; /* a trailing '/' makes a directory (data ignored) */
    const void *data;
    size_t size;
    int method;  /* ZIPB_STORE or ZIPB_DEFLATE */
    int encrypt; /* 1: AES-256 with password "pw" */
} zipb_entry;

enum { ZIPB_STORE = 0, ZIPB_DEFLATE = 8 };

/* The archive's bytes (malloc'ed; *size set), or NULL when libzip fails. */
uint8_t *zipb_build(const zipb_entry *entries, size_t n, size_t *size);
/* Writes bytes to a new temporary file; returns its path (malloc'ed) or NULL. */
char *zipb_write_temp(const uint8_t *data, size_t size, const char *suffix);

#endif
