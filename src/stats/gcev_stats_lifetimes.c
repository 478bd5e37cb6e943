/* SPDX-License-Identifier: MIT */
/*
 * Lifetimes: GC segments (GCCreateSegment <-> GCFreeSegment by address) and
 * GC handles (SetGCHandle <-> DestroyGCHandle by handle id, also the private
 * provider's Prv* pair). What is never freed is listed at the end.
 * Tables are bounded (gcev_stats_options): a trace with millions of live
 * handles must not take the analysis down; hitting a limit is reported.
 */
#include <stdlib.h>
#include <string.h>

#include "gcev_stats_internal.h"

/* ---- the table -------------------------------------------------------------- */

void stats_table_init(stats_table *t, size_t val_size, size_t limit)
{
    memset(t, 0, sizeof *t);
    t->val_size = val_size;
    t->limit = limit;
}

void stats_table_free(stats_table *t)
{
    free(t->keys);
    free(t->used);
    free(t->vals);
    memset(t, 0, sizeof *t);
}

/* splitmix64 finalizer: addresses and handle ids share their low bits (alignment) */
static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 30;
    key *= UINT64_C(0xbf58476d1ce4e5b9);
    key ^= key >> 27;
    key *= UINT64_C(0x94d049bb133111eb);
    key ^= key >> 31;
    return (size_t)(key & (cap - 1));
}

static size_t find_slot(const stats_table *t, uint64_t key)
{
    size_t i = slot_of(key, t->cap);
    while (t->used[i] && t->keys[i] != key) {
        i = (i + 1) & (t->cap - 1);
    }
    return i;
}

static int grow(stats_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    stats_table n = *t;
    n.cap = cap;
    n.n = 0;
    n.keys = malloc(cap * sizeof *n.keys);
    n.used = calloc(cap, 1);
    n.vals = malloc(cap * t->val_size);
    if (!n.keys || !n.used || !n.vals) {
        free(n.keys);
        free(n.used);
        free(n.vals);
        return 0;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (t->used[i]) {
            size_t j = find_slot(&n, t->keys[i]);
            n.used[j] = 1;
            n.keys[j] = t->keys[i];
            memcpy(n.vals + j * n.val_size, t->vals + i * t->val_size, t->val_size);
            n.n++;
        }
    }
    free(t->keys);
    free(t->used);
    free(t->vals);
    *t = n;
    return 1;
}

int stats_table_put(stats_table *t, uint64_t key, const void *val)
{
    if (t->cap) {
        size_t i = find_slot(t, key);
        if (t->used[i]) {
            /* the runtime reused the id without a free we saw: keep the newest */
            memcpy(t->vals + i * t->val_size, val, t->val_size);
            return 1;
        }
    }
    if (t->n >= t->limit) {
        return 0;
    }
    /* keep the load factor under 1/2 so probes stay short */
    if ((t->n + 1) * 2 > t->cap && !grow(t)) {
        return -1;
    }
    size_t i = find_slot(t, key);
    t->used[i] = 1;
    t->keys[i] = key;
    memcpy(t->vals + i * t->val_size, val, t->val_size);
    t->n++;
    return 1;
}

int stats_table_remove(stats_table *t, uint64_t key)
{
    if (!t->cap) {
        return 0;
    }
    size_t i = find_slot(t, key);
    if (!t->used[i]) {
        return 0;
    }
    /* backward-shift deletion: move later members of the probe run into the hole */
    size_t mask = t->cap - 1;
    size_t hole = i;
    for (size_t j = (i + 1) & mask; t->used[j]; j = (j + 1) & mask) {
        size_t home = slot_of(t->keys[j], t->cap);
        /* j may move to the hole only if its home is not in (hole, j] cyclically */
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            t->keys[hole] = t->keys[j];
            memcpy(t->vals + hole * t->val_size, t->vals + j * t->val_size, t->val_size);
            hole = j;
        }
    }
    t->used[hole] = 0;
    t->n--;
    return 1;
}

void *stats_table_sorted(const stats_table *t, int (*cmp)(const void *, const void *))
{
    unsigned char *out = malloc(t->n ? t->n * t->val_size : 1);
    if (!out) {
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < t->cap; i++) {
        if (t->used[i]) {
            memcpy(out + k++ * t->val_size, t->vals + i * t->val_size, t->val_size);
        }
    }
    qsort(out, t->n, t->val_size, cmp);
    return out;
}

/* Creation order; address/id break ties so the listing is deterministic. */
static int cmp_segment(const void *pa, const void *pb)
{
    const gcev_stats_segment *a = pa, *b = pb;
    if (a->created_ms != b->created_ms) {
        return a->created_ms < b->created_ms ? -1 : 1;
    }
    return (a->address > b->address) - (a->address < b->address);
}

static int cmp_handle(const void *pa, const void *pb)
{
    const gcev_stats_handle *a = pa, *b = pb;
    if (a->created_ms != b->created_ms) {
        return a->created_ms < b->created_ms ? -1 : 1;
    }
    return (a->handle_id > b->handle_id) - (a->handle_id < b->handle_id);
}

/* ---- the events -------------------------------------------------------------- */

static gcev_status track(gcev_stats *s, stats_table *t, gcev_stats_pairing *p, uint64_t key,
                         const void *val)
{
    p->created++;
    int r = stats_table_put(t, key, val);
    if (r < 0) {
        return GCEV_E_NOMEM;
    }
    if (r == 0) {
        p->over_limit++;
        s->sum.limit_hit = 1;
    }
    return GCEV_OK;
}

static void untrack(stats_table *t, gcev_stats_pairing *p, uint64_t key)
{
    if (stats_table_remove(t, key)) {
        p->freed++;
    } else {
        p->unmatched_frees++;
    }
}

static gcev_status set_handle(gcev_stats *s, uint64_t id, uint64_t obj, uint32_t kind,
                              uint32_t gen, uint64_t ad, double ms)
{
    gcev_stats_handle h = {id, obj, ad, kind, gen, ms};
    return track(s, &s->handles, &s->handle_pairing, id, &h);
}

gcev_status stats_lifetime_event(gcev_stats *s, const gcev_event *ev, double ms)
{
    const gcev_union *u = &ev->u;
    switch (ev->desc->family) {
    case GCEV_FAMILY_GC_CREATE_SEGMENT: {
        gcev_stats_segment seg = {u->gc_create_segment.address, u->gc_create_segment.size,
                                  u->gc_create_segment.type, ms};
        return track(s, &s->segments, &s->seg_pairing, seg.address, &seg);
    }
    case GCEV_FAMILY_GC_FREE_SEGMENT:
        untrack(&s->segments, &s->seg_pairing, u->gc_free_segment.address);
        return GCEV_OK;
    case GCEV_FAMILY_SET_GC_HANDLE: {
        const gcev_set_gc_handle *e = &u->set_gc_handle;
        return set_handle(s, e->handle_id, e->object_id, e->kind, e->generation,
                          e->app_domain_id, ms);
    }
    case GCEV_FAMILY_PRIVATE_PRV_SET_GC_HANDLE: {
        const gcev_private_prv_set_gc_handle *e = &u->private_prv_set_gc_handle;
        return set_handle(s, e->handle_id, e->object_id, e->kind, e->generation,
                          e->app_domain_id, ms);
    }
    case GCEV_FAMILY_DESTROY_GC_HANDLE:
        untrack(&s->handles, &s->handle_pairing, u->destroy_gc_handle.handle_id);
        return GCEV_OK;
    case GCEV_FAMILY_PRIVATE_PRV_DESTROY_GC_HANDLE:
        untrack(&s->handles, &s->handle_pairing, u->private_prv_destroy_gc_handle.handle_id);
        return GCEV_OK;
    case GCEV_FAMILY_APP_DOMAIN_MEM_SURVIVED:
        return stats_survived_event(s, &u->app_domain_mem_survived);
    default:
        return GCEV_OK;
    }
}

gcev_status stats_lifetimes_finish(gcev_stats *s)
{
    s->live_segments = stats_table_sorted(&s->segments, cmp_segment);
    s->live_handles = stats_table_sorted(&s->handles, cmp_handle);
    if (!s->live_segments || !s->live_handles) {
        return GCEV_E_NOMEM;
    }
    s->seg_pairing.live = s->segments.n;
    s->handle_pairing.live = s->handles.n;
    return GCEV_OK;
}

const gcev_stats_pairing *gcev_stats_segment_pairing(const gcev_stats *s)
{
    return s ? &s->seg_pairing : NULL;
}

const gcev_stats_pairing *gcev_stats_handle_pairing(const gcev_stats *s)
{
    return s ? &s->handle_pairing : NULL;
}

const gcev_stats_segment *gcev_stats_live_segment_at(const gcev_stats *s, size_t i)
{
    return s && s->live_segments && i < s->seg_pairing.live ? &s->live_segments[i] : NULL;
}

const gcev_stats_handle *gcev_stats_live_handle_at(const gcev_stats *s, size_t i)
{
    return s && s->live_handles && i < s->handle_pairing.live ? &s->live_handles[i] : NULL;
}
