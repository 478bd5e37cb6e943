/* SPDX-License-Identifier: MIT */
/*
 * A small open-addressing map from 64-bit ids to 32-bit indexes, used by the
 * container readers for metadata ids, thread ids, stack and label-list ids.
 * Memory is O(entries); lookups are O(1) expected.
 */
#ifndef GCEV_IDMAP_H
#define GCEV_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct gcev_idmap {
    uint64_t *keys;
    uint32_t *vals; /* UINT32_MAX = empty slot */
    size_t cap;     /* power of two, or 0 */
    size_t count;
} gcev_idmap;

/* Index stored for key, or UINT32_MAX. */
uint32_t gcev_idmap_get(const gcev_idmap *m, uint64_t key);
/* Inserts or replaces; returns 0 when out of memory. */
int gcev_idmap_put(gcev_idmap *m, uint64_t key, uint32_t val);
/* Removes every entry, keeping the storage. */
void gcev_idmap_clear(gcev_idmap *m);
void gcev_idmap_free(gcev_idmap *m);

#endif
