/* SPDX-License-Identifier: MIT */
/*
 * MS-XCA "Plain LZ77" decompression (the XPRESS format of RtlDecompressBuffer's
 * COMPRESSION_FORMAT_XPRESS), as ETW writes compressed buffers of relogged .etl files.
 *
 * The stream is a 32-bit little-endian flag word, then 32 items, one per flag bit
 * from the most significant: a 0 bit is one literal byte, a 1 bit a match, a 16-bit
 * word of (offset - 1) << 3 | length code. Length code 7 continues in a half byte
 * (two matches share one byte: low nibble first), 15 there continues in a byte, 255
 * there in a 16-bit (length - 3), and 0 there in a 32-bit (length - 3). A match copies
 * length >= 3 bytes starting offset (1..8192) bytes back in the output, possibly
 * overlapping the bytes it writes.
 *
 * Every read is checked against the input, every match against the output written
 * so far (offset) and the output's size (length): hostile input gives a status and
 * the positions of the fault, never a read or write out of bounds. No allocation,
 * no state between calls; reentrant.
 */
#ifndef GCEV_XPRESS_H
#define GCEV_XPRESS_H

#include <gcev/gcev.h>

/* Where inflation stopped and why. */
typedef struct gcev_xpress_result {
    size_t in_pos;   /* input bytes consumed (at a fault: where the faulty item starts) */
    size_t out_pos;  /* output bytes written (at a fault: where the faulty item would write) */
    const char *why; /* static text for a fault, NULL on success */
} gcev_xpress_result;

/*
 * Inflates in[0..in_size) into out[0..out_size), stopping when out_size bytes are
 * written (input left over is not read). Returns
 *   GCEV_OK         out_size bytes written;
 *   GCEV_E_TRUNCATED the input ends first: out[0..r->out_pos) holds every byte the
 *                   input determines (a prefix of the whole), which is what a cut
 *                   stream gives;
 *   GCEV_E_FORMAT   a match reaches before the start of the output, runs past
 *                   out_size, or has a long length below its minimum (r->why says).
 * r must not be NULL; in and out may be NULL when their size is 0.
 */
gcev_status gcev_xpress_inflate(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_size,
                                gcev_xpress_result *r);

#endif
