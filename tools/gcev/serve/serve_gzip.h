/* SPDX-License-Identifier: MIT */
/* gcev serve's gzip of a response body (serve_gzip.c, zlib). */
#ifndef GCEV_SERVE_GZIP_H
#define GCEV_SERVE_GZIP_H

#include <stddef.h>

/* The gzip member (RFC 1952) of in[0, n) in a new malloc'd *out of *out_n bytes: 1, or 0
 * (nothing allocated) when zlib fails or memory runs out; the caller then sends in as it is. */
int serve_gzip(const char *in, size_t n, char **out, size_t *out_n);

#endif
