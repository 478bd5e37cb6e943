/* SPDX-License-Identifier: MIT */
/*
 * The bounded arena the TSDL parser builds a metadata model in (internal to
 * trace/ctf). A model is many small immutable nodes freed all at once, so they
 * come from chunks freed whole; the total is capped by GCEV_CTF_MAX_ARENA so
 * hostile metadata cannot make the reader allocate without limit.
 */
#ifndef GCEV_CTF_ARENA_H
#define GCEV_CTF_ARENA_H

#include <stddef.h>

typedef struct gcev_ctf_arena gcev_ctf_arena;

/* An empty arena, or NULL when out of memory. */
gcev_ctf_arena *gcev_ctf_arena_new(void);
/* NULL when out of memory or (*over_limit set) past GCEV_CTF_MAX_ARENA. Memory is zeroed. */
void *gcev_ctf_arena_alloc(gcev_ctf_arena *a, size_t n, int *over_limit);
/* Frees every allocation and the arena (NULL does nothing). */
void gcev_ctf_arena_free(gcev_ctf_arena *a);

#endif
