/* SPDX-License-Identifier: MIT */
/*
 * Little-endian loads and stores through memcpy: host endianness and alignment
 * never matter (unaligned wide loads fault on some ARM cores), and compilers
 * turn these into single moves on x86-64 and AArch64.
 */
#ifndef GCEV_READ_H
#define GCEV_READ_H

#include <gcev/gcev.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t gcev_rd_u16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t gcev_rd_u32le(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

static inline uint64_t gcev_rd_u64le(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
#else
    return (uint64_t)gcev_rd_u32le(p) | (uint64_t)gcev_rd_u32le(p + 4) << 32;
#endif
}

/* Unsigned little-endian value of width 1, 2, 4 or 8. */
static inline uint64_t gcev_rd_uint(const uint8_t *p, unsigned width)
{
    switch (width) {
    case 1:
        return p[0];
    case 2:
        return gcev_rd_u16le(p);
    case 4:
        return gcev_rd_u32le(p);
    default:
        return gcev_rd_u64le(p);
    }
}

static inline void gcev_wr_uint(uint8_t *p, uint64_t v, unsigned width)
{
    for (unsigned i = 0; i < width; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static inline void gcev_put16(uint8_t *p, uint16_t v)
{
    gcev_wr_uint(p, v, 2);
}
static inline void gcev_put32(uint8_t *p, uint32_t v)
{
    gcev_wr_uint(p, v, 4);
}
static inline void gcev_put64(uint8_t *p, uint64_t v)
{
    gcev_wr_uint(p, v, 8);
}

/*
 * The UTF-16 terminator of a string at p with avail bytes after it: the first
 * 2-byte unit at an even offset that is 0x0000. Sets *nbytes to the bytes before it
 * and returns 1; returns 0 when no whole unit of the avail bytes is a terminator.
 * Four units per step (a 16-bit-lane zero test on one 8-byte load), never reading
 * past p + avail.
 */
static inline int gcev_utf16_nul(const uint8_t *p, uint32_t avail, uint32_t *nbytes)
{
    uint32_t j = 0;
    while (avail - j >= 8) {
        const uint64_t w = gcev_rd_u64le(p + j);
        /* a lane's top bit is set when the lane is 0x0000; the lowest such lane is the
         * first zero unit (only lanes above a zero one can be flagged falsely) */
        const uint64_t z = (w - UINT64_C(0x0001000100010001)) & ~w & UINT64_C(0x8000800080008000);
        if (z) {
            while (p[j] | p[j + 1]) {
                j += 2;
            }
            *nbytes = j;
            return 1;
        }
        j += 8;
    }
    for (; avail - j >= 2; j += 2) {
        if ((p[j] | p[j + 1]) == 0) {
            *nbytes = j;
            return 1;
        }
    }
    return 0;
}

/* A GUID from its 16 wire bytes (data1..3 little-endian, data4 as is). */
static inline gcev_guid gcev_guid_load(const uint8_t *p)
{
    gcev_guid g;
    g.data1 = gcev_rd_u32le(p);
    g.data2 = gcev_rd_u16le(p + 4);
    g.data3 = gcev_rd_u16le(p + 6);
    memcpy(g.data4, p + 8, 8);
    return g;
}

static inline void gcev_guid_store(uint8_t *p, const gcev_guid *g)
{
    gcev_put32(p, g->data1);
    gcev_put16(p + 4, g->data2);
    gcev_put16(p + 6, g->data3);
    memcpy(p + 8, g->data4, 8);
}

#endif
