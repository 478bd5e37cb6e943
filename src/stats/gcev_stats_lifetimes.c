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

static gcev_status track(gcev_stats *s, stats_table *t, gcev_stats_pairing *p, uint64_t key, const void *val)
{
    p->created++;
    int r = gcev_stats_table_put(t, key, val);
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
    if (gcev_stats_table_remove(t, key)) {
        p->freed++;
    } else {
        p->unmatched_frees++;
    }
}

static gcev_status set_handle(gcev_stats *s, uint64_t id, uint64_t obj, uint32_t kind, uint32_t gen,
                              uint64_t ad, double ms)
{
    gcev_stats_handle h = {id, obj, ad, kind, gen, ms};
    return track(s, &s->handles, &s->handle_pairing, id, &h);
}

gcev_status gcev_stats_lifetime_event(gcev_stats *s, stats_proc *p, const gcev_event *ev, double ms)
{
    const gcev_union *u = &ev->u;
    switch (ev->family) {
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
        return set_handle(s, e->handle_id, e->object_id, e->kind, e->generation, e->app_domain_id, ms);
    }
    case GCEV_FAMILY_PRIVATE_PRV_SET_GC_HANDLE: {
        const gcev_private_prv_set_gc_handle *e = &u->private_prv_set_gc_handle;
        return set_handle(s, e->handle_id, e->object_id, e->kind, e->generation, e->app_domain_id, ms);
    }
    case GCEV_FAMILY_DESTROY_GC_HANDLE:
        untrack(&s->handles, &s->handle_pairing, u->destroy_gc_handle.handle_id);
        return GCEV_OK;
    case GCEV_FAMILY_PRIVATE_PRV_DESTROY_GC_HANDLE:
        untrack(&s->handles, &s->handle_pairing, u->private_prv_destroy_gc_handle.handle_id);
        return GCEV_OK;
    case GCEV_FAMILY_APP_DOMAIN_MEM_SURVIVED:
        return gcev_stats_survived_event(s, p, &u->app_domain_mem_survived);
    default:
        return GCEV_OK;
    }
}

gcev_status gcev_stats_lifetimes_finish(gcev_stats *s)
{
    s->live_segments = gcev_stats_table_sorted(&s->segments, cmp_segment);
    s->live_handles = gcev_stats_table_sorted(&s->handles, cmp_handle);
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
