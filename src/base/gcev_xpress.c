/* SPDX-License-Identifier: MIT */
/* MS-XCA Plain LZ77 decompression (see gcev_xpress.h). */
#include "gcev_xpress.h"

#include <string.h>

#include "gcev_read.h"

static gcev_status xpress_stop(gcev_xpress_result *r, gcev_status st, size_t ip, size_t op, const char *why)
{
    r->in_pos = ip;
    r->out_pos = op;
    r->why = why;
    return st;
}

gcev_status gcev_xpress_inflate(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_size,
                                gcev_xpress_result *r)
{
    size_t ip = 0, op = 0;
    uint32_t flags = 0;
    unsigned nflags = 0;
    /* the byte whose high nibble the next long match uses; none when SIZE_MAX */
    size_t half = SIZE_MAX;
    while (op < out_size) {
        if (nflags == 0) {
            if (in_size - ip < 4) {
                return xpress_stop(r, GCEV_E_TRUNCATED, ip, op, "compressed data ends inside a flag word");
            }
            flags = gcev_rd_u32le(in + ip);
            ip += 4;
            nflags = 32;
        }
        nflags--;
        if (!((flags >> nflags) & 1u)) {
            if (ip == in_size) {
                return xpress_stop(r, GCEV_E_TRUNCATED, ip, op, "compressed data ends before a literal");
            }
            out[op++] = in[ip++];
            continue;
        }
        const size_t item = ip; /* where this match's bytes start, for faults */
        if (in_size - ip < 2) {
            return xpress_stop(r, GCEV_E_TRUNCATED, item, op, "compressed data ends inside a match");
        }
        uint32_t word = gcev_rd_u16le(in + ip);
        ip += 2;
        uint64_t offset = (word >> 3) + 1u;
        uint64_t length = word & 7u;
        if (length == 7) {
            if (half == SIZE_MAX) {
                if (ip == in_size) {
                    return xpress_stop(r, GCEV_E_TRUNCATED, item, op, "compressed data ends inside a match");
                }
                length = in[ip] & 15u;
                half = ip++;
            } else {
                length = in[half] >> 4;
                half = SIZE_MAX;
            }
            if (length == 15) {
                if (ip == in_size) {
                    return xpress_stop(r, GCEV_E_TRUNCATED, item, op, "compressed data ends inside a match");
                }
                length = in[ip++];
                if (length == 255) {
                    if (in_size - ip < 2) {
                        return xpress_stop(r, GCEV_E_TRUNCATED, item, op,
                                           "compressed data ends inside a match");
                    }
                    length = gcev_rd_u16le(in + ip);
                    ip += 2;
                    if (length == 0) {
                        if (in_size - ip < 4) {
                            return xpress_stop(r, GCEV_E_TRUNCATED, item, op,
                                               "compressed data ends inside a match");
                        }
                        length = gcev_rd_u32le(in + ip);
                        ip += 4;
                    }
                    /* these forms hold length - 3 whole, never less than the
                     * shorter forms reach (7 + 15) */
                    if (length < 15 + 7) {
                        return xpress_stop(r, GCEV_E_FORMAT, item, op,
                                           "match length below its encoding's minimum");
                    }
                    length -= 15 + 7;
                }
                length += 15;
            }
            length += 7;
        }
        length += 3;
        if (offset > op) {
            return xpress_stop(r, GCEV_E_FORMAT, item, op, "match reaches before the start of the output");
        }
        if (length > out_size - op) {
            return xpress_stop(r, GCEV_E_FORMAT, item, op, "match runs past the inflated size");
        }
        uint8_t *dst = out + op;
        const uint8_t *src = dst - offset;
        if (offset >= length) {
            memcpy(dst, src, (size_t)length);
        } else {
            /* overlapping: each byte may be one this match just wrote */
            for (size_t i = 0; i < (size_t)length; i++) {
                dst[i] = src[i];
            }
        }
        op += (size_t)length;
    }
    return xpress_stop(r, GCEV_OK, ip, op, NULL);
}
