/* SPDX-License-Identifier: MIT */
/*
 * Lifetimes: GC segments (GCCreateSegment <-> GCFreeSegment by address) and
 * GC handles (SetGCHandle <-> DestroyGCHandle by handle id, also the private
 * provider's Prv* pair, each operation counted once whichever providers report
 * it). What is never freed is listed at the end.
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

/* ---- one operation, two reports ---------------------------------------------- */

/*
 * The runtime reports each handle operation to both providers, one right after the other
 * on the thread doing it, with the same fields (handletable.cpp HndLogSetEvent and
 * HndDestroyHandle; doc/stats.md "Lifetimes"). Each thread keeps its last few handle
 * events: an event of the other provider that repeats one of them (same operation, same
 * fields) not yet paired is that operation's second report. Several are kept, and either
 * provider may come first, because time order across providers is only as fine as the
 * clock: equal timestamps may come out in either order.
 */
enum { TWIN_RECENT = 4, TWIN_THREADS = 65536 };

typedef struct twin_op {
    uint64_t id, obj;
    uint32_t kind, gen;
    uint8_t op; /* 1 set, 2 destroy; 0: empty */
    uint8_t prv;
    uint8_t paired;
} twin_op;

typedef struct twin_thread {
    uint64_t tid;
    uint32_t pid;
    uint32_t next;
    twin_op recent[TWIN_RECENT];
} twin_thread;

static uint64_t thread_key(uint64_t tid, uint32_t pid)
{
    return tid ^ ((uint64_t)pid * UINT64_C(0x9e3779b97f4a7c15));
}

/* 1 when `op` is the second report of an operation already counted on its thread. */
static int is_twin(gcev_stats *s, const stats_proc *p, uint64_t tid, const twin_op *op)
{
    if (!s->handle_threads.val_size) {
        gcev_stats_table_init(&s->handle_threads, sizeof(twin_thread), TWIN_THREADS);
    }
    uint64_t key = thread_key(tid, p->pid);
    twin_thread *t = gcev_stats_table_get(&s->handle_threads, key);
    if (t && (t->tid != tid || t->pid != p->pid)) {
        t = NULL; /* another thread's key: that thread starts over */
        gcev_stats_table_remove(&s->handle_threads, key);
    }
    if (t) {
        for (unsigned i = 0; i < TWIN_RECENT; i++) {
            twin_op *r = &t->recent[i];
            if (r->op == op->op && !r->paired && r->prv != op->prv && r->id == op->id && r->obj == op->obj &&
                r->kind == op->kind && r->gen == op->gen) {
                r->paired = 1;
                return 1;
            }
        }
        t->recent[t->next] = *op;
        t->next = (t->next + 1) % TWIN_RECENT;
        return 0;
    }
    twin_thread n;
    memset(&n, 0, sizeof n);
    n.tid = tid;
    n.pid = p->pid;
    n.recent[0] = *op;
    n.next = 1;
    /* a full table (or no memory) only loses the pairing of this thread's reports */
    (void)gcev_stats_table_put(&s->handle_threads, key, &n);
    return 0;
}

/* ---- creations and frees ------------------------------------------------------- */

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

static void untrack(gcev_stats *s, stats_table *t, gcev_stats_pairing *p, stats_unmatched *u, uint64_t key,
                    double ms)
{
    if (gcev_stats_table_remove(t, key)) {
        p->freed++;
        return;
    }
    p->unmatched_frees++;
    if (s->lost) {
        p->unmatched_after_loss++; /* its creation may be among the lost events */
    } else if (!u->overflow) {
        /* created before the trace, unless a loss reported later turns out to be earlier */
        /* the list grows by doubling from 64 while the table's limit holds the next size */
        size_t next = u->cap ? u->cap * 2 : 64;
        if (u->n == u->cap &&
            (next > t->limit || !gcev_reserve_from((void **)&u->ms, &u->cap, u->n + 1, sizeof *u->ms, 64))) {
            u->overflow = 1;
            return;
        }
        u->ms[u->n++] = ms;
    }
}

/* A loss reported now, at ms (which may be earlier than events already read): the frees
 * from ms on might have lost their creation. */
static void loss_in(gcev_stats_pairing *p, stats_unmatched *u, double ms)
{
    if (u->overflow) {
        p->unmatched_after_loss = p->unmatched_frees;
    } else {
        for (size_t i = 0; i < u->n; i++) {
            p->unmatched_after_loss += u->ms[i] >= ms;
        }
    }
    free(u->ms);
    memset(u, 0, sizeof *u);
}

void gcev_stats_lifetimes_note_loss(gcev_stats *s, double ms)
{
    if (s->lost) {
        return; /* every later free already counts */
    }
    s->lost = 1;
    loss_in(&s->seg_pairing, &s->seg_unmatched, ms);
    loss_in(&s->handle_pairing, &s->handle_unmatched, ms);
}

void gcev_stats_lifetimes_free(gcev_stats *s)
{
    gcev_stats_table_free(&s->handle_threads);
    free(s->seg_unmatched.ms);
    free(s->handle_unmatched.ms);
    memset(&s->seg_unmatched, 0, sizeof s->seg_unmatched);
    memset(&s->handle_unmatched, 0, sizeof s->handle_unmatched);
}

static gcev_status set_handle(gcev_stats *s, const stats_proc *p, uint64_t tid, int prv, uint64_t id,
                              uint64_t obj, uint32_t kind, uint32_t gen, uint64_t ad, double ms)
{
    twin_op op = {id, obj, kind, gen, 1, (uint8_t)prv, 0};
    if (is_twin(s, p, tid, &op)) {
        s->handle_pairing.merged_events++;
        return GCEV_OK;
    }
    gcev_stats_handle *live = gcev_stats_table_get(&s->handles, id);
    if (live) {
        /* the runtime stores into a handle it made earlier (HndAssignHandle): not a creation */
        s->handle_pairing.reassigned++;
        live->object_id = obj;
        live->generation = gen;
        return GCEV_OK;
    }
    gcev_stats_handle h = {id, obj, ad, kind, gen, ms};
    return track(s, &s->handles, &s->handle_pairing, id, &h);
}

static void destroy_handle(gcev_stats *s, const stats_proc *p, uint64_t tid, int prv, uint64_t id, double ms)
{
    twin_op op = {id, 0, 0, 0, 2, (uint8_t)prv, 0};
    if (is_twin(s, p, tid, &op)) {
        s->handle_pairing.merged_events++;
        return;
    }
    untrack(s, &s->handles, &s->handle_pairing, &s->handle_unmatched, id, ms);
}

gcev_status gcev_stats_lifetime_event(gcev_stats *s, stats_proc *p, const gcev_event *ev, double ms,
                                      uint64_t tid)
{
    const gcev_union *u = &ev->u;
    switch (ev->family) {
    case GCEV_FAMILY_GC_CREATE_SEGMENT: {
        /* only the public provider reports segments; a live address is reported again when
         * the private provider is enabled (DiagTraceGCSegments) */
        gcev_stats_segment seg = {u->gc_create_segment.address, u->gc_create_segment.size,
                                  u->gc_create_segment.type, ms};
        if (gcev_stats_table_get(&s->segments, seg.address)) {
            s->seg_pairing.reassigned++;
            return GCEV_OK;
        }
        return track(s, &s->segments, &s->seg_pairing, seg.address, &seg);
    }
    case GCEV_FAMILY_GC_FREE_SEGMENT:
        untrack(s, &s->segments, &s->seg_pairing, &s->seg_unmatched, u->gc_free_segment.address, ms);
        return GCEV_OK;
    case GCEV_FAMILY_SET_GC_HANDLE: {
        const gcev_set_gc_handle *e = &u->set_gc_handle;
        return set_handle(s, p, tid, 0, e->handle_id, e->object_id, e->kind, e->generation, e->app_domain_id,
                          ms);
    }
    case GCEV_FAMILY_PRIVATE_PRV_SET_GC_HANDLE: {
        const gcev_private_prv_set_gc_handle *e = &u->private_prv_set_gc_handle;
        return set_handle(s, p, tid, 1, e->handle_id, e->object_id, e->kind, e->generation, e->app_domain_id,
                          ms);
    }
    case GCEV_FAMILY_DESTROY_GC_HANDLE:
        destroy_handle(s, p, tid, 0, u->destroy_gc_handle.handle_id, ms);
        return GCEV_OK;
    case GCEV_FAMILY_PRIVATE_PRV_DESTROY_GC_HANDLE:
        destroy_handle(s, p, tid, 1, u->private_prv_destroy_gc_handle.handle_id, ms);
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
    gcev_stats_table_free(&s->handle_threads); /* the twins of the feed are all paired */
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
