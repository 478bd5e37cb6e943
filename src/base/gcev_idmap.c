/* SPDX-License-Identifier: MIT */
#include "gcev_idmap.h"

#include <stdlib.h>
#include <string.h>

static size_t idmap_slot(uint64_t k, size_t mask)
{
    /* A 64-bit mix: ids are often sequential or file offsets, never random. */
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return (size_t)k & mask;
}

uint32_t gcev_idmap_get(const gcev_idmap *m, uint64_t key)
{
    if (m->cap == 0) {
        return UINT32_MAX;
    }
    for (size_t h = idmap_slot(key, m->cap - 1);; h = (h + 1) & (m->cap - 1)) {
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
    memset(vals, 0xff, cap * sizeof *vals);
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i] != UINT32_MAX) {
            size_t h = idmap_slot(m->keys[i], cap - 1);
            while (vals[h] != UINT32_MAX) {
                h = (h + 1) & (cap - 1);
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
    if ((m->count + 1) * 2 > m->cap && !idmap_grow(m)) {
        return 0;
    }
    size_t h = idmap_slot(key, m->cap - 1);
    while (m->vals[h] != UINT32_MAX && m->keys[h] != key) {
        h = (h + 1) & (m->cap - 1);
    }
    if (m->vals[h] == UINT32_MAX) {
        m->count++;
    }
    m->keys[h] = key;
    m->vals[h] = val;
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
