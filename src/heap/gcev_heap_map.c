/* SPDX-License-Identifier: MIT */
/* The heap layer's helpers: a keyed u64 -> u32 map, vector growth, string pools, problems. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcev_heap_internal.h"

/* One seed per process run: addresses (ASLR) and the clocks. Enough that an input
 * cannot be crafted in advance to make every address fall into one chain. */
static uint64_t seed(void)
{
    static uint64_t s;
    if (!s) {
        int local;
        s = (uint64_t)(uintptr_t)&local ^ ((uint64_t)time(NULL) << 20) ^ (uint64_t)clock() ^
            (uint64_t)(uintptr_t)&seed;
        s |= 1;
    }
    return s;
}

static inline uint64_t mix(uint64_t x)
{
    /* splitmix64's finalizer over the seeded key */
    x ^= seed();
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return x;
}

void gcev_hp_map_free(heap_map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

static int rehash(heap_map *m, size_t cap)
{
    uint64_t *k = malloc(cap * sizeof *k);
    uint32_t *v = malloc(cap * sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    memset(v, 0xff, cap * sizeof *v);
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i] != UINT32_MAX) {
            size_t j = (size_t)mix(m->keys[i]) & (cap - 1);
            while (v[j] != UINT32_MAX) {
                j = (j + 1) & (cap - 1);
            }
            k[j] = m->keys[i];
            v[j] = m->vals[i];
        }
    }
    free(m->keys);
    free(m->vals);
    m->keys = k;
    m->vals = v;
    m->cap = cap;
    return 0;
}

int gcev_hp_map_reserve(heap_map *m, size_t n)
{
    size_t cap = 16;
    while (cap < n + n / 2 + 1) { /* load <= 2/3 */
        if (cap > SIZE_MAX / 4) {
            return -1;
        }
        cap *= 2;
    }
    return cap > m->cap ? rehash(m, cap) : 0;
}

uint32_t gcev_hp_map_get(const heap_map *m, uint64_t key)
{
    if (!m->cap) {
        return UINT32_MAX;
    }
    size_t j = (size_t)mix(key) & (m->cap - 1);
    while (m->vals[j] != UINT32_MAX) {
        if (m->keys[j] == key) {
            return m->vals[j];
        }
        j = (j + 1) & (m->cap - 1);
    }
    return UINT32_MAX;
}

uint32_t gcev_hp_map_put(heap_map *m, uint64_t key, uint32_t val)
{
    if (gcev_hp_map_reserve(m, m->n + 1) != 0) {
        return UINT32_MAX - 1;
    }
    size_t j = (size_t)mix(key) & (m->cap - 1);
    while (m->vals[j] != UINT32_MAX) {
        if (m->keys[j] == key) {
            return m->vals[j];
        }
        j = (j + 1) & (m->cap - 1);
    }
    m->keys[j] = key;
    m->vals[j] = val;
    m->n++;
    return val;
}

void gcev_hp_idx_free(heap_idx *x)
{
    free(x->slot);
    memset(x, 0, sizeof *x);
}

int gcev_hp_idx_init(heap_idx *x, size_t n)
{
    size_t cap = 16;
    while (cap < n + n / 2 + 1) { /* load <= 2/3 */
        if (cap > SIZE_MAX / 8) {
            return -1;
        }
        cap *= 2;
    }
    free(x->slot);
    x->slot = malloc(cap * sizeof *x->slot);
    x->cap = x->slot ? cap : 0;
    if (!x->slot) {
        return -1;
    }
    memset(x->slot, 0xff, cap * sizeof *x->slot);
    return 0;
}

uint32_t gcev_hp_idx_get(const heap_idx *x, const heap_obj *obj, uint64_t address)
{
    if (!x->cap) {
        return UINT32_MAX;
    }
    size_t j = (size_t)mix(address) & (x->cap - 1);
    for (uint32_t v; (v = x->slot[j]) != UINT32_MAX; j = (j + 1) & (x->cap - 1)) {
        if (obj[v].address == address) {
            return v;
        }
    }
    return UINT32_MAX;
}

uint32_t gcev_hp_idx_put(heap_idx *x, const heap_obj *obj, uint64_t address, uint32_t i)
{
    size_t j = (size_t)mix(address) & (x->cap - 1);
    for (uint32_t v; (v = x->slot[j]) != UINT32_MAX; j = (j + 1) & (x->cap - 1)) {
        if (obj[v].address == address) {
            return v;
        }
    }
    x->slot[j] = i;
    return i;
}

uint64_t gcev_hp_big_size(const gcev_heap *h, uint32_t i)
{
    size_t lo = 0, hi = h->nbig;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->big[mid].obj < i) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    /* not listed: a size of exactly 2^32-1 */
    return lo < h->nbig && h->big[lo].obj == i ? h->big[lo].size : HEAP_BIG_SIZE;
}

int gcev_hp_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) {
        return 0;
    }
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem) {
            return -1;
        }
        /* a reader's arrays are most of its memory: past 64 Ki elements they grow by half
         * (realloc of a big block remaps its pages, so the count of copies matters little) */
        c = c < 65536 ? c * 2 : c + c / 2;
    }
    void *q = realloc(*p, c * elem);
    if (!q) {
        return -1;
    }
    *p = q;
    *cap = c;
    return 0;
}

uint32_t gcev_hp_str_add(heap_strpool *p, const char *s, size_t len)
{
    if (p->n + len + 1 > UINT32_MAX - 1 || gcev_hp_grow((void **)&p->s, &p->cap, p->n + len + 1, 1) != 0) {
        return 0;
    }
    memcpy(p->s + p->n, s, len);
    p->s[p->n + len] = '\0';
    uint32_t at = (uint32_t)p->n + 1;
    p->n += len + 1;
    return at;
}

void gcev_hp_problem(gcev_heap *h, const char *fmt, ...)
{
    if (h->nproblems >= HEAP_MAX_PROBLEMS) {
        return;
    }
    char buf[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t len = strlen(buf) + 1;
    char *c = malloc(len);
    if (c) {
        memcpy(c, buf, len);
        h->problems[h->nproblems++] = c;
    }
}
