/* SPDX-License-Identifier: MIT */
/* Growth of the readers' and the analysis' vectors, overflow-checked in one place. */
#ifndef GCEV_VEC_H
#define GCEV_VEC_H

#include <stddef.h>

/*
 * Grows *v (an array of `size`-byte items with room for *cap) to hold at least
 * `need` items, doubling from 16. Returns 0, leaving *v and *cap as they were,
 * when out of memory or when the size would overflow.
 */
int gcev_reserve(void **v, size_t *cap, size_t need, size_t size);

/* As gcev_reserve(), doubling from `first` items (a list that is mostly short: per-GC
 * records). */
int gcev_reserve_from(void **v, size_t *cap, size_t need, size_t size, size_t first);

#endif
