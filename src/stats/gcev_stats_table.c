/* SPDX-License-Identifier: MIT */
/* The bounded live-object table of the lifetimes (see gcev_stats_table.h). */
#include "gcev_stats_table.h"

#include "gcev_vec.h"

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
    gcev_idmap_free(&t->index);
    free(t->keys);
    free(t->vals);
    memset(t, 0, sizeof *t);
}

int gcev_stats_table_put(stats_table *t, uint64_t key, const void *val)
{
    uint32_t at = gcev_idmap_get(&t->index, key);
    if (at != UINT32_MAX) {
        /* the runtime reused the id without a free we saw: keep the newest */
        memcpy(t->vals + (size_t)at * t->val_size, val, t->val_size);
        return 1;
    }
    if (t->n >= t->limit || t->n >= UINT32_MAX) {
        return 0;
    }
    if (!gcev_reserve((void **)&t->keys, &t->cap_keys, t->n + 1, sizeof *t->keys) ||
        !gcev_reserve((void **)&t->vals, &t->cap_vals, t->n + 1, t->val_size) ||
        !gcev_idmap_put(&t->index, key, (uint32_t)t->n)) {
        return -1;
    }
    t->keys[t->n] = key;
    memcpy(t->vals + t->n * t->val_size, val, t->val_size);
    t->n++;
    return 1;
}

void *gcev_stats_table_get(const stats_table *t, uint64_t key)
{
    uint32_t at = gcev_idmap_get(&t->index, key);
    return at != UINT32_MAX ? t->vals + (size_t)at * t->val_size : NULL;
}

int gcev_stats_table_remove(stats_table *t, uint64_t key)
{
    uint32_t at = gcev_idmap_get(&t->index, key);
    if (at == UINT32_MAX) {
        return 0;
    }
    gcev_idmap_remove(&t->index, key);
    size_t last = t->n - 1;
    if (at != last) {
        /* the last entry fills the hole; its new position replaces the old (no growth) */
        t->keys[at] = t->keys[last];
        memcpy(t->vals + (size_t)at * t->val_size, t->vals + last * t->val_size, t->val_size);
        (void)gcev_idmap_put(&t->index, t->keys[at], at);
    }
    t->n--;
    return 1;
}

void *gcev_stats_table_sorted(const stats_table *t, int (*cmp)(const void *, const void *))
{
    unsigned char *out = malloc(t->n ? t->n * t->val_size : 1);
    if (!out) {
        return NULL;
    }
    if (t->n) {
        memcpy(out, t->vals, t->n * t->val_size);
    }
    qsort(out, t->n, t->val_size, cmp);
    return out;
}
