/* SPDX-License-Identifier: MIT */
/*
 * Little-endian loaders for the container readers. memcpy keeps them free of
 * alignment and aliasing UB (trace bytes sit at any offset); compilers turn each
 * into a single load on little-endian hosts.
 */
#ifndef GCEV_LE_H
#define GCEV_LE_H

#include <stdint.h>
#include <string.h>

#include <gcev/gcev.h>

static inline uint16_t gcev_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t gcev_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint64_t gcev_le64(const uint8_t *p)
{
    return (uint64_t)gcev_le32(p) | ((uint64_t)gcev_le32(p + 4) << 32);
}

static inline void gcev_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void gcev_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void gcev_put64(uint8_t *p, uint64_t v)
{
    gcev_put32(p, (uint32_t)v);
    gcev_put32(p + 4, (uint32_t)(v >> 32));
}

/* A GUID from its 16 wire bytes (data1..3 little-endian, data4 as is). */
static inline gcev_guid gcev_guid_load(const uint8_t *p)
{
    gcev_guid g;
    g.data1 = gcev_le32(p);
    g.data2 = gcev_le16(p + 4);
    g.data3 = gcev_le16(p + 6);
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
