/* SPDX-License-Identifier: MIT */
#if defined(_WIN32)
#define _CRT_RAND_S /* rand_s() in <stdlib.h> (MSVC, mingw-w64) */
#endif
#include "gcev_idmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(_WIN32) && defined(__has_include)
#if __has_include(<sys/random.h>) && defined(__linux__)
#include <sys/random.h>
#define GCEV_HAVE_GETRANDOM 1
#endif
#endif

/*
 * The ids come from the input (a trace names its threads, stacks and metadata), so the
 * slot of an id must not be something the input can predict: with a fixed mix (murmur3's
 * fmix64 here before, invertible) a file can hold ids that all share one slot, and each
 * insert then walks every earlier one (131,072 such ids took 33 s). Each map hashes with
 * SipHash-1-3 (Aumasson and Bernstein; the variant Rust's HashMap uses) under a random key
 * of its own, drawn when it first allocates: the slots of ids are then unknown to whoever
 * wrote the file.
 */

#define ROTL64(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                                             \
    do {                                                                                                     \
        v0 += v1;                                                                                            \
        v1 = ROTL64(v1, 13);                                                                                 \
        v1 ^= v0;                                                                                            \
        v0 = ROTL64(v0, 32);                                                                                 \
        v2 += v3;                                                                                            \
        v3 = ROTL64(v3, 16);                                                                                 \
        v3 ^= v2;                                                                                            \
        v0 += v3;                                                                                            \
        v3 = ROTL64(v3, 21);                                                                                 \
        v3 ^= v0;                                                                                            \
        v2 += v1;                                                                                            \
        v1 = ROTL64(v1, 17);                                                                                 \
        v1 ^= v2;                                                                                            \
        v2 = ROTL64(v2, 32);                                                                                 \
    } while (0)

uint64_t gcev_siphash13_u64(uint64_t k0, uint64_t k1, uint64_t m)
{
    /* SipHash-1-3 of the 8 bytes of m in little-endian order (one message block, then the
     * final block that holds only the length, 8) */
    uint64_t v0 = k0 ^ 0x736f6d6570736575ull;
    uint64_t v1 = k1 ^ 0x646f72616e646f6dull;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ull;
    uint64_t v3 = k1 ^ 0x7465646279746573ull;
    const uint64_t b = (uint64_t)8 << 56;
    v3 ^= m;
    SIPROUND;
    v0 ^= m;
    v3 ^= b;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

/* A splitmix64 step: spreads the weak fallback inputs over all 64 bits. */
static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void gcev_idmap_random_key(uint64_t key[2])
{
    uint64_t r[2] = {0, 0};
    int have = 0;
#if defined(_WIN32)
    {
        unsigned int w[4];
        have = 1;
        for (int i = 0; i < 4; i++) {
            if (rand_s(&w[i]) != 0) {
                have = 0;
                break;
            }
        }
        if (have) {
            r[0] = (uint64_t)w[0] << 32 | w[1];
            r[1] = (uint64_t)w[2] << 32 | w[3];
        }
    }
#elif defined(GCEV_HAVE_GETRANDOM)
    have = getrandom(r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r;
#endif
#if !defined(_WIN32)
    if (!have) {
        FILE *f = fopen("/dev/urandom", "rb");
        if (f) {
            have = fread(r, sizeof r, 1, f) == 1;
            fclose(f);
        }
    }
#endif
    /* Always mixed in, and all there is when the system gave nothing: the time, the
     * processor time and addresses (randomised by ASLR). Weak, but not a constant. */
    int local = 0;
    uint64_t t = (uint64_t)time(NULL) ^ (uint64_t)clock() << 32;
    uint64_t a = (uint64_t)(uintptr_t)&local ^ (uint64_t)(uintptr_t)key << 17 ^
                 (uint64_t)(uintptr_t)&gcev_idmap_random_key << 31;
    key[0] = r[0] ^ (have ? 0 : mix64(t ^ mix64(a)));
    key[1] = r[1] ^ (have ? 0 : mix64(a ^ mix64(t + 1)));
}

static size_t idmap_slot(const gcev_idmap *m, uint64_t k, size_t mask)
{
    return (size_t)gcev_siphash13_u64(m->key[0], m->key[1], k) & mask;
}

uint32_t gcev_idmap_get(const gcev_idmap *m, uint64_t key)
{
    if (m->cap == 0) {
        return UINT32_MAX;
    }
    for (size_t h = idmap_slot(m, key, m->cap - 1);; h = (h + 1) & (m->cap - 1)) {
        if (m->vals[h] == UINT32_MAX) {
            return UINT32_MAX;
        }
        if (m->keys[h] == key) {
            return m->vals[h];
        }
    }
}

static int idmap_grow(gcev_idmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 32;
    if (cap > SIZE_MAX / sizeof(uint64_t)) {
        return 0;
    }
    uint64_t *keys = malloc(cap * sizeof *keys);
    uint32_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return 0;
    }
    if (m->cap == 0) {
        gcev_idmap_random_key(m->key);
    }
    memset(vals, 0xff, cap * sizeof *vals);
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i] != UINT32_MAX) {
            size_t h = idmap_slot(m, m->keys[i], cap - 1);
            m->probes++;
            while (vals[h] != UINT32_MAX) {
                h = (h + 1) & (cap - 1);
                m->probes++;
            }
            keys[h] = m->keys[i];
            vals[h] = m->vals[i];
        }
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 1;
}

int gcev_idmap_put(gcev_idmap *m, uint64_t key, uint32_t val)
{
    /* a replace needs no room: the map may be full to its bound and still take it */
    if ((m->count + 1) * 2 > m->cap && gcev_idmap_get(m, key) == UINT32_MAX && !idmap_grow(m)) {
        return 0;
    }
    size_t h = idmap_slot(m, key, m->cap - 1);
    m->probes++;
    while (m->vals[h] != UINT32_MAX && m->keys[h] != key) {
        h = (h + 1) & (m->cap - 1);
        m->probes++;
    }
    if (m->vals[h] == UINT32_MAX) {
        m->count++;
    }
    m->keys[h] = key;
    m->vals[h] = val;
    return 1;
}

int gcev_idmap_remove(gcev_idmap *m, uint64_t key)
{
    if (m->cap == 0) {
        return 0;
    }
    const size_t mask = m->cap - 1;
    size_t h = idmap_slot(m, key, mask);
    while (m->vals[h] != UINT32_MAX && m->keys[h] != key) {
        h = (h + 1) & mask;
    }
    if (m->vals[h] == UINT32_MAX) {
        return 0;
    }
    /* backward-shift deletion: an entry after the hole moves into it unless its home slot
     * lies cyclically in (hole, j], where a look-up would no longer reach it */
    size_t hole = h;
    for (size_t j = (h + 1) & mask; m->vals[j] != UINT32_MAX; j = (j + 1) & mask) {
        size_t home = idmap_slot(m, m->keys[j], mask);
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            m->keys[hole] = m->keys[j];
            m->vals[hole] = m->vals[j];
            hole = j;
        }
    }
    m->vals[hole] = UINT32_MAX;
    m->count--;
    return 1;
}

void gcev_idmap_clear(gcev_idmap *m)
{
    if (m->vals) {
        memset(m->vals, 0xff, m->cap * sizeof *m->vals);
    }
    m->count = 0;
}

void gcev_idmap_free(gcev_idmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
