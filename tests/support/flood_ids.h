/* SPDX-License-Identifier: MIT */
/*
 * Ids that all fell into one slot of the id map's former hash, murmur3's fmix64 (issue 22):
 * the mix is invertible and had no key, so a file could hold ids whose mixes share their
 * low 32 bits, and every insert walked all the earlier ones. flood_id(i) is the id whose
 * fmix64 is i << 32 (i >= 1: all distinct and non-zero).
 */
#ifndef GCEV_TEST_FLOOD_IDS_H
#define GCEV_TEST_FLOOD_IDS_H

#include <stdint.h>

static inline uint64_t flood_fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/* The inverse of an odd number modulo 2^64 (Newton: each step doubles the correct bits). */
static inline uint64_t flood_inverse(uint64_t c)
{
    uint64_t x = c; /* correct to 3 bits */
    for (int i = 0; i < 5; i++) {
        x *= 2 - c * x;
    }
    return x;
}

/* fmix64 backwards: x ^= x >> 33 is its own inverse (33 + 33 >= 64). */
static inline uint64_t flood_id(uint64_t i)
{
    uint64_t k = i << 32;
    k ^= k >> 33;
    k *= flood_inverse(0xc4ceb9fe1a85ec53ull);
    k ^= k >> 33;
    k *= flood_inverse(0xff51afd7ed558ccdull);
    k ^= k >> 33;
    return k;
}

#endif
