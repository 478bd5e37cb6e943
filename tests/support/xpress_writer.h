/* SPDX-License-Identifier: MIT */
/*
 * Writes MS-XCA Plain LZ77 streams for the tests: item by item (a literal, a match
 * with the encoding its length calls for, or a match with hand-picked fields, valid
 * or not), and a greedy compressor on top, so tests can build every encoding and the
 * compressed ETL buffers relogged files hold. Our own code, from the format as
 * [MS-XCA] 2.3/2.4 describe it; test tooling only.
 */
#ifndef GCEV_XPRESS_WRITER_H
#define GCEV_XPRESS_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct xw {
    uint8_t *data;
    size_t size, cap;
    size_t flag_at;  /* where the current flag word goes */
    uint32_t flags;  /* bits so far, first item in the high bit */
    unsigned nflags; /* items in the current group (0..32) */
    size_t half_at;  /* byte whose high nibble is free, or SIZE_MAX */
} xw;

void xw_init(xw *w);
void xw_free(xw *w);
void xw_literal(xw *w, uint8_t byte);
/* A match of offset 1..8192 and length >= 3, in the shortest encoding. */
void xw_match(xw *w, uint32_t offset, uint64_t length);
/*
 * A match with chosen fields: code = the 3-bit length code, then (when code is 7)
 * nibble, then (when nibble is 15) byte, then (when byte is 255) u16, then (when u16
 * is 0) u32. Fields not reached are ignored. offset may be 0..8191 + 1.
 */
void xw_match_fields(xw *w, uint32_t offset, unsigned code, unsigned nibble, unsigned byte, uint32_t u16,
                     uint32_t u32);
/* Ends the stream as the compressor does (the rest of the flag bits set); returns the bytes. */
const uint8_t *xw_finish(xw *w, size_t *size);

/* Greedy compression of in[0..n) (matches up to max_offset back); malloc'ed, *out_size set. */
uint8_t *xw_compress(const uint8_t *in, size_t n, uint32_t max_offset, size_t *out_size);

#endif
