/* SPDX-License-Identifier: MIT */
/* MS-XCA Plain LZ77 writer for tests (see xpress_writer.h). */
#include "xpress_writer.h"

#include <stdlib.h>
#include <string.h>

static void put(xw *w, const void *p, size_t n)
{
    if (w->size + n > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap < w->size + n) {
            cap *= 2;
        }
        uint8_t *d = realloc(w->data, cap);
        if (!d) {
            abort();
        }
        w->data = d;
        w->cap = cap;
    }
    memcpy(w->data + w->size, p, n);
    w->size += n;
}

static void put_le(xw *w, uint64_t v, unsigned n)
{
    uint8_t b[8];
    for (unsigned i = 0; i < n; i++) {
        b[i] = (uint8_t)(v >> (8 * i));
    }
    put(w, b, n);
}

static void write_flags(xw *w)
{
    for (unsigned i = 0; i < 4; i++) {
        w->data[w->flag_at + i] = (uint8_t)(w->flags >> (8 * i));
    }
}

void xw_init(xw *w)
{
    memset(w, 0, sizeof *w);
    w->half_at = SIZE_MAX;
    put_le(w, 0, 4); /* the first flag word's place */
}

void xw_free(xw *w)
{
    free(w->data);
    memset(w, 0, sizeof *w);
}

/* One flag bit; a full group's word is written and the next one's place reserved. */
static void flag(xw *w, unsigned bit)
{
    if (w->nflags == 32) {
        write_flags(w);
        w->flag_at = w->size;
        put_le(w, 0, 4);
        w->flags = 0;
        w->nflags = 0;
    }
    w->flags = (w->flags << 1) | bit;
    w->nflags++;
}

void xw_literal(xw *w, uint8_t byte)
{
    flag(w, 0);
    put(w, &byte, 1);
}

void xw_match_fields(xw *w, uint32_t offset, unsigned code, unsigned nibble, unsigned byte, uint32_t u16,
                     uint32_t u32)
{
    flag(w, 1);
    put_le(w, ((uint32_t)(offset - 1) << 3 | (code & 7u)) & 0xffffu, 2);
    if ((code & 7u) != 7) {
        return;
    }
    if (w->half_at == SIZE_MAX) {
        w->half_at = w->size;
        put_le(w, nibble & 15u, 1);
    } else {
        w->data[w->half_at] |= (uint8_t)((nibble & 15u) << 4);
        w->half_at = SIZE_MAX;
    }
    if ((nibble & 15u) != 15) {
        return;
    }
    put_le(w, byte & 255u, 1);
    if ((byte & 255u) != 255) {
        return;
    }
    put_le(w, u16 & 0xffffu, 2);
    if ((u16 & 0xffffu) == 0) {
        put_le(w, u32, 4);
    }
}

void xw_match(xw *w, uint32_t offset, uint64_t length)
{
    if (length < 10) {
        xw_match_fields(w, offset, (unsigned)(length - 3), 0, 0, 0, 0);
    } else if (length < 25) {
        xw_match_fields(w, offset, 7, (unsigned)(length - 10), 0, 0, 0);
    } else if (length < 280) {
        xw_match_fields(w, offset, 7, 15, (unsigned)(length - 25), 0, 0);
    } else if (length - 3 <= 0xffff) {
        xw_match_fields(w, offset, 7, 15, 255, (uint32_t)(length - 3), 0);
    } else {
        xw_match_fields(w, offset, 7, 15, 255, 0, (uint32_t)(length - 3));
    }
}

const uint8_t *xw_finish(xw *w, size_t *size)
{
    /* the unused flag bits are ones: a decoder that looks for more meets a "match"
     * with no input left, the end of the stream; a full group gets a word of ones */
    if (w->nflags == 32) {
        write_flags(w);
        put_le(w, 0xffffffffu, 4);
    } else {
        unsigned rest = 32 - w->nflags;
        w->flags = rest == 32 ? 0xffffffffu : (w->flags << rest) | ((1u << rest) - 1u);
        write_flags(w);
    }
    w->nflags = 32;
    *size = w->size;
    return w->data;
}

enum { HASH_BITS = 14, CHAIN = 64 };

static uint32_t hash3(const uint8_t *p)
{
    return ((uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]) * 2654435761u >> (32 - HASH_BITS);
}

uint8_t *xw_compress(const uint8_t *in, size_t n, uint32_t max_offset, size_t *out_size)
{
    xw w;
    xw_init(&w);
    size_t *head = malloc(sizeof(size_t) << HASH_BITS);
    size_t *prev = malloc(sizeof(size_t) * (n ? n : 1));
    if (!head || !prev) {
        abort();
    }
    for (size_t h = 0; h < (1u << HASH_BITS); h++) {
        head[h] = SIZE_MAX;
    }
    size_t i = 0;
    while (i < n) {
        size_t best = 0, best_off = 0;
        if (n - i >= 3) {
            size_t j = head[hash3(in + i)];
            for (int c = 0; c < CHAIN && j != SIZE_MAX && i - j <= max_offset; c++, j = prev[j]) {
                size_t k = 0;
                while (i + k < n && in[j + k] == in[i + k]) {
                    k++;
                }
                if (k > best) {
                    best = k;
                    best_off = i - j;
                }
            }
        }
        size_t step = best >= 3 ? best : 1;
        if (best >= 3) {
            xw_match(&w, (uint32_t)best_off, best);
        } else {
            xw_literal(&w, in[i]);
        }
        for (size_t k = 0; k < step; k++, i++) {
            if (n - i >= 3) {
                uint32_t h = hash3(in + i);
                prev[i] = head[h];
                head[h] = i;
            }
        }
    }
    free(head);
    free(prev);
    size_t size = 0;
    xw_finish(&w, &size);
    *out_size = size;
    return w.data;
}
