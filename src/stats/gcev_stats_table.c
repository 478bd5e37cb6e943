/* SPDX-License-Identifier: MIT */
/* The bounded live-object table of the lifetimes (see gcev_stats_table.h). */
#include "gcev_stats_table.h"

#include <stdlib.h>
#include <string.h>

void gcev_stats_table_init(stats_table *t, size_t val_size, size_t limit)
{
    memset(t, 0, sizeof *t);
    t->val_size = val_size;
    t->limit = limit;
}

void gcev_stats_table_free(stats_table *t)
{
    free(t->keys);
    free(t->used);
    free(t->vals);
    memset(t, 0, sizeof *t);
}

/* splitmix64 finalizer: addresses and handle ids share their low bits (alignment) */
static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 30;
    key *= UINT64_C(0xbf58476d1ce4e5b9);
    key ^= key >> 27;
    key *= UINT64_C(0x94d049bb133111eb);
    key ^= key >> 31;
    return (size_t)(key & (cap - 1));
}

static size_t find_slot(const stats_table *t, uint64_t key)
{
    size_t i = slot_of(key, t->cap);
    while (t->used[i] && t->keys[i] != key) {
        i = (i + 1) & (t->cap - 1);
    }
    return i;
}

static int grow(stats_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    stats_table n = *t;
    n.cap = cap;
    n.n = 0;
    n.keys = malloc(cap * sizeof *n.keys);
    n.used = calloc(cap, 1);
    n.vals = malloc(cap * t->val_size);
    if (!n.keys || !n.used || !n.vals) {
        free(n.keys);
        free(n.used);
        free(n.vals);
        return 0;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (t->used[i]) {
            size_t j = find_slot(&n, t->keys[i]);
            n.used[j] = 1;
            n.keys[j] = t->keys[i];
            memcpy(n.vals + j * n.val_size, t->vals + i * t->val_size, t->val_size);
            n.n++;
        }
    }
    free(t->keys);
    free(t->used);
    free(t->vals);
    *t = n;
    return 1;
}

int gcev_stats_table_put(stats_table *t, uint64_t key, const void *val)
{
    if (t->cap) {
        size_t i = find_slot(t, key);
        if (t->used[i]) {
            /* the runtime reused the id without a free we saw: keep the newest */
            memcpy(t->vals + i * t->val_size, val, t->val_size);
            return 1;
        }
    }
    if (t->n >= t->limit) {
        return 0;
    }
    /* keep the load factor under 1/2 so probes stay short */
    if ((t->n + 1) * 2 > t->cap && !grow(t)) {
        return -1;
    }
    size_t i = find_slot(t, key);
    t->used[i] = 1;
    t->keys[i] = key;
    memcpy(t->vals + i * t->val_size, val, t->val_size);
    t->n++;
    return 1;
}

void *gcev_stats_table_get(const stats_table *t, uint64_t key)
{
    if (!t->cap) {
        return NULL;
    }
    size_t i = find_slot(t, key);
    return t->used[i] ? t->vals + i * t->val_size : NULL;
}

int gcev_stats_table_remove(stats_table *t, uint64_t key)
{
    if (!t->cap) {
        return 0;
    }
    size_t i = find_slot(t, key);
    if (!t->used[i]) {
        return 0;
    }
    /* backward-shift deletion: move later members of the probe run into the hole */
    size_t mask = t->cap - 1;
    size_t hole = i;
    for (size_t j = (i + 1) & mask; t->used[j]; j = (j + 1) & mask) {
        size_t home = slot_of(t->keys[j], t->cap);
        /* j may move to the hole only if its home is not in (hole, j] cyclically */
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            t->keys[hole] = t->keys[j];
            memcpy(t->vals + hole * t->val_size, t->vals + j * t->val_size, t->val_size);
            hole = j;
        }
    }
    t->used[hole] = 0;
    t->n--;
    return 1;
}

void *gcev_stats_table_sorted(const stats_table *t, int (*cmp)(const void *, const void *))
{
    unsigned char *out = malloc(t->n ? t->n * t->val_size : 1);
    if (!out) {
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < t->cap; i++) {
        if (t->used[i]) {
            memcpy(out + k++ * t->val_size, t->vals + i * t->val_size, t->val_size);
        }
    }
    qsort(out, t->n, t->val_size, cmp);
    return out;
}
