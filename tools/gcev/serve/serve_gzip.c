/* SPDX-License-Identifier: MIT */
/*
 * gzip of the /metrics body for the scrapers that take it (Prometheus asks for gzip on every
 * scrape). An exposition repeats its metric and label names on every line, so a few hundred kB
 * shrink about tenfold and leave in one socket write, not in rounds that each wait for the
 * scraper to read. zlib's level 1: its ratio is close to the default level's on this text at a
 * fraction of the time, which matters more here (the scrape's time, the exporter's CPU).
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "serve_gzip.h"

int serve_gzip(const char *in, size_t n, char **out, size_t *out_n)
{
    if (n > UINT_MAX / 2) {
        return 0; /* zlib counts in uInt: not for a body this size (never an exposition) */
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: the gzip wrapper (header and CRC-32 trailer), not zlib's */
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        return 0;
    }
    uLong cap = deflateBound(&z, (uLong)n); /* enough for one Z_FINISH call, by zlib's word */
    unsigned char *buf = malloc(cap ? cap : 1);
    int done = 0;
    if (buf) {
        z.next_in = (Bytef *)(uintptr_t)in; /* zlib's API is not const; it never writes there */
        z.avail_in = (uInt)n;
        z.next_out = buf;
        z.avail_out = (uInt)cap;
        done = deflate(&z, Z_FINISH) == Z_STREAM_END;
    }
    deflateEnd(&z);
    if (!done) {
        free(buf);
        return 0;
    }
    *out = (char *)buf;
    *out_n = (size_t)z.total_out;
    return 1;
}
