/* SPDX-License-Identifier: MIT */
#ifndef GCEV_STATS_TABLE_H
#define GCEV_STATS_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "gcev_idmap.h"

/*
 * A live-object table keyed by a 64-bit id (segment address, handle id): the values,
 * fixed-size records copied in, lie dense in one array; base's id map (keyed hashing, so
 * no trace can make its look-ups slow) gives each key's position. A removal moves the last
 * record into the hole. At most `limit` entries.
 */
typedef struct stats_table {
    gcev_idmap index;    /* key -> position in keys[] and vals[] */
    uint64_t *keys;      /* the live entries' keys, dense */
    unsigned char *vals; /* their values, val_size bytes each */
    size_t val_size;
    size_t n;
    size_t cap_keys, cap_vals;
    size_t limit; /* most live entries kept */
} stats_table;

void gcev_stats_table_init(stats_table *t, size_t val_size, size_t limit);
void gcev_stats_table_free(stats_table *t);
/* 1 inserted/replaced, 0 table at its limit, -1 out of memory. */
int gcev_stats_table_put(stats_table *t, uint64_t key, const void *val);
/* The value stored under key (valid until the next put or remove), or NULL. */
void *gcev_stats_table_get(const stats_table *t, uint64_t key);
/* 1 when the key was there (removed), else 0. */
int gcev_stats_table_remove(stats_table *t, uint64_t key);
/* Copies the live values into a new malloc'ed array sorted with cmp (NULL on OOM). */
void *gcev_stats_table_sorted(const stats_table *t, int (*cmp)(const void *, const void *));

#endif
