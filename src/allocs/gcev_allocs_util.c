/* SPDX-License-Identifier: MIT */
/* The allocation model's containers: growth, an open-addressing map, interned strings. */
#include <stdlib.h>
#include <string.h>

#include "gcev_allocs_internal.h"

int gcev_ga_reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) {
        return 1;
    }
    /* 1.5x: the records are the model's memory, and a doubling leaves up to half unused */
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2) {
            return 0;
        }
        c += c / 2;
    }
    if (c > SIZE_MAX / elem) {
        return 0;
    }
    void *q = realloc(*p, c * elem);
    if (!q) {
        return 0;
    }
    *p = q;
    *cap = c;
    return 1;
}

uint32_t gcev_ga_map_find(const ga_map *m, uint64_t h, ga_eq_fn eq, const void *ctx)
{
    if (!m->cap) {
        return GA_NONE;
    }
    size_t mask = m->cap - 1;
    uint32_t h32 = (uint32_t)h;
    for (size_t i = h32 & mask;; i = (i + 1) & mask) {
        const ga_slot *s = &m->s[i];
        if (!s->v) {
            return GA_NONE;
        }
        if (s->h == h32 && eq(ctx, s->v - 1)) {
            return s->v - 1;
        }
    }
}

static void put_slot(ga_slot *s, size_t cap, uint32_t h, uint32_t v)
{
    size_t mask = cap - 1;
    size_t i = h & mask;
    while (s[i].v) {
        i = (i + 1) & mask;
    }
    s[i].h = h;
    s[i].v = v;
}

int gcev_ga_map_put(ga_map *m, uint64_t h, uint32_t v)
{
    if (v == UINT32_MAX) {
        return 0;
    }
    if ((m->n + 1) * 4 > m->cap * 3) { /* load at most 3/4 */
        size_t nc = m->cap ? m->cap * 2 : 64;
        if (nc > SIZE_MAX / sizeof(ga_slot)) {
            return 0;
        }
        ga_slot *ns = calloc(nc, sizeof *ns);
        if (!ns) {
            return 0;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (m->s[i].v) {
                put_slot(ns, nc, m->s[i].h, m->s[i].v);
            }
        }
        free(m->s);
        m->s = ns;
        m->cap = nc;
    }
    put_slot(m->s, m->cap, (uint32_t)h, v + 1);
    m->n++;
    return 1;
}

void gcev_ga_map_free(ga_map *m)
{
    free(m->s);
    memset(m, 0, sizeof *m);
}

/* One multiply per 8-byte word and a full mix at the end: every allocation event hashes its
 * stack (16 addresses or so), where a mix per word cost more than the rest of the look-up. */
uint64_t gcev_ga_hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const uint8_t *b = p;
    uint64_t h = seed ^ (n * UINT64_C(0x9e3779b97f4a7c15));
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, b, 8);
        h = ((h << 29 | h >> 35) ^ w) * UINT64_C(0xbf58476d1ce4e5b9);
        b += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, b, n);
    return ga_mix(h ^ w ^ ((uint64_t)n << 56));
}

typedef struct str_key {
    const ga_strings *st;
    const char *s;
    size_t len;
} str_key;

static int str_eq(const void *ctx, uint32_t id)
{
    const str_key *k = ctx;
    const char *t = k->st->buf + id;
    return !memcmp(t, k->s, k->len) && t[k->len] == '\0';
}

uint32_t gcev_ga_intern(ga_strings *st, const char *s, size_t len)
{
    uint64_t h = gcev_ga_hash_bytes(s, len, 7);
    str_key k = {st, s, len};
    uint32_t id = gcev_ga_map_find(&st->map, h, str_eq, &k);
    if (id != GA_NONE) {
        return id;
    }
    if (len >= UINT32_MAX || st->n > UINT32_MAX - len - 1) {
        return GA_NONE;
    }
    if (!gcev_ga_reserve((void **)&st->buf, &st->cap, st->n + len + 1, 1)) {
        return GA_NONE;
    }
    id = (uint32_t)st->n;
    memcpy(st->buf + st->n, s, len);
    st->buf[st->n + len] = '\0';
    st->n += len + 1;
    if (!gcev_ga_map_put(&st->map, h, id)) {
        return GA_NONE;
    }
    return id;
}

void gcev_ga_strings_free(ga_strings *st)
{
    free(st->buf);
    gcev_ga_map_free(&st->map);
    memset(st, 0, sizeof *st);
}
