/* SPDX-License-Identifier: MIT */
/*
 * A gcev_trace_open_reader() callback over bytes in memory that hands out 1 to 3 bytes
 * per call, like a slow pipe: the readers' stream paths see every short read.
 */
#ifndef GCEV_TEST_DRIP_READER_H
#define GCEV_TEST_DRIP_READER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct drip {
    const uint8_t *p;
    size_t n, pos;
} drip;

static inline long long drip_read(void *ctx, void *buf, size_t n)
{
    drip *d = ctx;
    size_t k = 1 + d->pos % 3;
    if (k > n) {
        k = n;
    }
    if (k > d->n - d->pos) {
        k = d->n - d->pos;
    }
    memcpy(buf, d->p + d->pos, k);
    d->pos += k;
    return (long long)k;
}

#endif
