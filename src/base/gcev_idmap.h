/* SPDX-License-Identifier: MIT */
/*
 * A small open-addressing map from 64-bit ids to 32-bit indexes, used by the
 * container readers for metadata ids, thread ids, stack and label-list ids.
 * Memory is O(entries); lookups and inserts are O(1) expected whatever the ids: the
 * input chooses them, so slots come from a keyed hash (SipHash-1-3) under a random key
 * per map, and no set of ids collides for every run. The map sets no limit on its
 * entries: a reader that fills one from a file bounds the count itself.
 * A map is not thread-safe; distinct maps are independent.
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
    uint64_t key[2]; /* the hash key, drawn when the map first allocates */
    uint64_t probes; /* slots examined by puts and rehashes (for tests: work stays linear) */
} gcev_idmap;

/* Index stored for key, or UINT32_MAX. */
uint32_t gcev_idmap_get(const gcev_idmap *m, uint64_t key);
/* Inserts or replaces; returns 0 when out of memory (a replace never fails). */
int gcev_idmap_put(gcev_idmap *m, uint64_t key, uint32_t val);
/* Removes key; 1 when it was there, else 0. Leaves no tombstone (probe runs are shifted back). */
int gcev_idmap_remove(gcev_idmap *m, uint64_t key);
/* Removes every entry, keeping the storage. */
void gcev_idmap_clear(gcev_idmap *m);
void gcev_idmap_free(gcev_idmap *m);

/* SipHash-1-3 under key (k0, k1) of the 8 bytes of m, little-endian. */
uint64_t gcev_siphash13_u64(uint64_t k0, uint64_t k1, uint64_t m);
/* A random key: the system's random source (getrandom, rand_s, /dev/urandom), else the
 * time, processor time and addresses (ASLR) mixed; never fails. */
void gcev_idmap_random_key(uint64_t key[2]);

#endif
