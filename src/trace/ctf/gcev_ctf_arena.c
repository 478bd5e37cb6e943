/* SPDX-License-Identifier: MIT */
/*
 * The metadata model's arena: chunks of at least 60,000 bytes, allocated from
 * by bumping a cursor and freed whole. Its own file because the parser needs
 * only "allocate" and "free all", not how chunks work, and so that the
 * GCEV_CTF_MAX_ARENA cap is enforced in one place.
 */
#include "gcev_ctf_arena.h"

#include <stdlib.h>

#include "gcev_ctf_meta.h"

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    max_align_t data[];
} arena_chunk;

struct gcev_ctf_arena {
    arena_chunk *head;
    size_t total;
};

gcev_ctf_arena *gcev_ctf_arena_new(void)
{
    return calloc(1, sizeof(gcev_ctf_arena));
}

void gcev_ctf_arena_free(gcev_ctf_arena *a)
{
    if (!a) {
        return;
    }
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    free(a);
}

void *gcev_ctf_arena_alloc(gcev_ctf_arena *a, size_t n, int *over_limit)
{
    *over_limit = 0;
    n = (n + 15) & ~(size_t)15;
    if (n == 0) {
        n = 16;
    }
    arena_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > 60000 ? n : 60000;
        if (a->total > GCEV_CTF_MAX_ARENA || cap > GCEV_CTF_MAX_ARENA - a->total) {
            *over_limit = 1;
            return NULL;
        }
        c = calloc(1, sizeof *c + cap);
        if (!c) {
            return NULL;
        }
        c->cap = cap;
        c->next = a->head;
        a->head = c;
        a->total += cap;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
}
