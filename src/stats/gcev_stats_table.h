/* SPDX-License-Identifier: MIT */
#ifndef GCEV_STATS_TABLE_H
#define GCEV_STATS_TABLE_H

#include <stddef.h>
#include <stdint.h>

/*
 * A live-object table keyed by a 64-bit id (segment address, handle id):
 * open addressing with linear probing and backward-shift deletion, so there
 * are no tombstones and lookups stay short however many pairs come and go.
 * Values are fixed-size records copied in; growth doubles up to `limit` entries.
 */
typedef struct stats_table {
    uint64_t *keys;
    uint8_t *used;
    unsigned char *vals;
    size_t val_size;
    size_t cap; /* power of two, or 0 */
    size_t n;
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
