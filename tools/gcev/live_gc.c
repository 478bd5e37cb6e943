/* SPDX-License-Identifier: MIT */
/* GCs as they end, from a live session's stream (see live_gc.h for the rules). */
#include <stdlib.h>
#include <string.h>

#include "live_gc.h"

/* GCs open at once (a background GC, the foreground GCs inside it, late heap stats). */
enum { OPEN_MAX = 32, SUSP_MAX = 16 };
/* Microsoft-Windows-DotNETRuntime event ids. */
enum { EV_GC_START = 1, EV_GC_END = 2, EV_RESTART_EE_END = 3, EV_HEAP_STATS = 4, EV_SUSPEND_EE_BEGIN = 9 };
/* GCSuspendEEReasonMap: the GC suspends the runtime. */
enum { SUSPEND_FOR_GC = 1, SUSPEND_FOR_GC_PREP = 6 };
enum { TYPE_BACKGROUND = 1 };

typedef struct open_gc {
    int used;
    live_gc_record r;
    uint64_t end_tid; /* thread that logged GCEnd */
    uint64_t end_seq; /* order of GCEnd among all GCEnds */
    int heap_seen;
    int susp_open; /* the suspension it started in has not restarted yet */
} open_gc;

typedef struct suspension {
    int active;
    uint64_t tid;
    double begin_ms;
    int gc_reason;
    int has_gc; /* a GC started inside it */
    uint32_t gc;
} suspension;

struct live_gc {
    open_gc open[OPEN_MAX];
    suspension susp[SUSP_MAX];
    uint64_t end_seq;
    live_gc_fn fn;
    void *ctx;
};

live_gc *live_gc_create(live_gc_fn fn, void *ctx)
{
    live_gc *l = calloc(1, sizeof *l);
    if (l) {
        l->fn = fn;
        l->ctx = ctx;
    }
    return l;
}

void live_gc_free(live_gc *l)
{
    free(l);
}

static open_gc *find_gc(live_gc *l, uint32_t number)
{
    for (int i = 0; i < OPEN_MAX; i++) {
        if (l->open[i].used && l->open[i].r.number == number) {
            return &l->open[i];
        }
    }
    return NULL;
}

static void emit(live_gc *l, open_gc *g)
{
    g->r.complete = (g->r.present & LIVE_HAS_END) != 0;
    l->fn(l->ctx, &g->r);
    memset(g, 0, sizeof *g);
}

static void try_emit(live_gc *l, open_gc *g)
{
    if (g && g->used && (g->r.present & LIVE_HAS_END) && g->heap_seen && !g->susp_open) {
        emit(l, g);
    }
}

static suspension *suspension_of(live_gc *l, uint64_t tid)
{
    for (int i = 0; i < SUSP_MAX; i++) {
        if (l->susp[i].active && l->susp[i].tid == tid) {
            return &l->susp[i];
        }
    }
    return NULL;
}

static open_gc *open_background(live_gc *l)
{
    for (int i = 0; i < OPEN_MAX; i++) {
        open_gc *g = &l->open[i];
        if (g->used && (g->r.present & LIVE_HAS_TYPE) && g->r.type == TYPE_BACKGROUND &&
            !(g->r.present & LIVE_HAS_END)) {
            return g;
        }
    }
    return NULL;
}

static void on_suspend_begin(live_gc *l, const gcev_trace_event *ev)
{
    gcev_gc_suspend_ee_begin e;
    if (gcev_decode_gc_suspend_ee_begin(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &e,
                                        NULL, NULL) != GCEV_OK) {
        return;
    }
    suspension *p = suspension_of(l, ev->thread_id); /* a lost RestartEE: reuse the slot */
    for (int i = 0; !p && i < SUSP_MAX; i++) {
        if (!l->susp[i].active) {
            p = &l->susp[i];
        }
    }
    if (!p) {
        p = &l->susp[0]; /* all busy: restarts were lost long ago */
    }
    memset(p, 0, sizeof *p);
    p->active = 1;
    p->tid = ev->thread_id;
    p->begin_ms = ev->ms;
    p->gc_reason = (e.present & GCEV_GC_SUSPEND_EE_BEGIN_HAS_REASON) &&
                   (e.reason == SUSPEND_FOR_GC || e.reason == SUSPEND_FOR_GC_PREP);
}

static void on_gc_start(live_gc *l, const gcev_trace_event *ev)
{
    gcev_gc_start e;
    if (gcev_decode_gc_start(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &e, NULL, NULL) !=
        GCEV_OK) {
        return;
    }
    /* an earlier GC this thread ended, its suspension over, will not get heap stats any more
     * (other threads' events may still be on their way: stream order is per thread) */
    for (int i = 0; i < OPEN_MAX; i++) {
        open_gc *g = &l->open[i];
        if (g->used && g->r.number < e.count && (g->r.present & LIVE_HAS_END) && !g->susp_open &&
            g->end_tid == ev->thread_id) {
            emit(l, g);
        }
    }
    open_gc *g = find_gc(l, e.count);
    if (g) {
        emit(l, g); /* the same number again: the first one's end was lost */
    }
    for (int i = 0; !g && i < OPEN_MAX; i++) {
        if (!l->open[i].used) {
            g = &l->open[i];
        }
    }
    if (!g) { /* full: the oldest goes out as it is */
        g = &l->open[0];
        for (int i = 1; i < OPEN_MAX; i++) {
            if (l->open[i].r.number < g->r.number) {
                g = &l->open[i];
            }
        }
        emit(l, g);
    }
    memset(g, 0, sizeof *g);
    g->used = 1;
    g->r.number = e.count;
    g->r.start_ms = ev->ms;
    if (e.present & GCEV_GC_START_HAS_DEPTH) {
        g->r.generation = e.depth;
        g->r.present |= LIVE_HAS_GENERATION;
    }
    if (e.present & GCEV_GC_START_HAS_REASON) {
        g->r.reason = e.reason;
        g->r.present |= LIVE_HAS_REASON;
    }
    if (e.present & GCEV_GC_START_HAS_TYPE) {
        g->r.type = e.type;
        g->r.present |= LIVE_HAS_TYPE;
    }
    /* the suspension it runs in: its own thread's, else the newest GC suspension of another
     * thread that has no GC yet; a thread suspended for a GC already running shares its pause */
    suspension *p = suspension_of(l, ev->thread_id);
    if (!p) {
        for (int i = 0; i < SUSP_MAX; i++) {
            suspension *q = &l->susp[i];
            if (q->active && !q->has_gc && q->gc_reason && (!p || q->begin_ms > p->begin_ms)) {
                p = q;
            }
        }
    }
    if (p && !p->has_gc) {
        p->has_gc = 1;
        p->gc = e.count;
        g->susp_open = 1;
    }
}

static void on_gc_end(live_gc *l, const gcev_trace_event *ev)
{
    gcev_gc_end e;
    if (gcev_decode_gc_end(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &e, NULL, NULL) !=
        GCEV_OK) {
        return;
    }
    open_gc *g = find_gc(l, e.count);
    if (!g || (g->r.present & LIVE_HAS_END)) {
        return; /* its GCStart came before the session */
    }
    g->r.end_ms = ev->ms;
    g->r.present |= LIVE_HAS_END;
    g->end_tid = ev->thread_id;
    g->end_seq = ++l->end_seq;
}

static void on_heap_stats(live_gc *l, const gcev_trace_event *ev)
{
    gcev_gc_heap_stats e;
    if (gcev_decode_gc_heap_stats(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &e, NULL,
                                  NULL) != GCEV_OK) {
        return;
    }
    /* logged right after GCEnd by the same thread: the GC this thread ended last */
    open_gc *g = NULL;
    for (int pass = 0; pass < 2 && !g; pass++) {
        for (int i = 0; i < OPEN_MAX; i++) {
            open_gc *c = &l->open[i];
            if (c->used && (c->r.present & LIVE_HAS_END) && !c->heap_seen &&
                (pass == 1 || c->end_tid == ev->thread_id) && (!g || c->end_seq > g->end_seq)) {
                g = c;
            }
        }
    }
    if (!g) {
        return;
    }
    const uint64_t size[5] = {e.generation_size0, e.generation_size1, e.generation_size2, e.generation_size3,
                              e.generation_size4};
    const uint64_t prom[5] = {e.total_promoted_size0, e.total_promoted_size1, e.total_promoted_size2,
                              e.total_promoted_size3, e.total_promoted_size4};
    const uint64_t size_bit[5] = {
        GCEV_GC_HEAP_STATS_HAS_GENERATION_SIZE0, GCEV_GC_HEAP_STATS_HAS_GENERATION_SIZE1,
        GCEV_GC_HEAP_STATS_HAS_GENERATION_SIZE2, GCEV_GC_HEAP_STATS_HAS_GENERATION_SIZE3,
        GCEV_GC_HEAP_STATS_HAS_GENERATION_SIZE4};
    const uint64_t prom_bit[5] = {
        GCEV_GC_HEAP_STATS_HAS_TOTAL_PROMOTED_SIZE0, GCEV_GC_HEAP_STATS_HAS_TOTAL_PROMOTED_SIZE1,
        GCEV_GC_HEAP_STATS_HAS_TOTAL_PROMOTED_SIZE2, GCEV_GC_HEAP_STATS_HAS_TOTAL_PROMOTED_SIZE3,
        GCEV_GC_HEAP_STATS_HAS_TOTAL_PROMOTED_SIZE4};
    for (int i = 0; i < 5; i++) {
        if (e.present & size_bit[i]) {
            g->r.heap_after += size[i];
            g->r.present |= LIVE_HAS_HEAP;
        }
        if (e.present & prom_bit[i]) {
            g->r.promoted += prom[i];
            g->r.present |= LIVE_HAS_PROMOTED;
        }
    }
    g->heap_seen = 1;
    try_emit(l, g);
}

static void on_restart_end(live_gc *l, const gcev_trace_event *ev)
{
    suspension *p = suspension_of(l, ev->thread_id);
    if (!p) {
        return; /* its SuspendEEBegin came before the session */
    }
    double pause = ev->ms > p->begin_ms ? ev->ms - p->begin_ms : 0.0;
    open_gc *g = p->has_gc ? find_gc(l, p->gc) : (p->gc_reason ? open_background(l) : NULL);
    if (g) {
        /* a background GC's final phase logs no GCStart: its pause adds to the BGC's */
        g->r.pause_ms += pause;
        g->r.present |= LIVE_HAS_PAUSE;
        if (p->has_gc) {
            g->susp_open = 0;
        }
    }
    memset(p, 0, sizeof *p);
    try_emit(l, g);
}

void live_gc_add(live_gc *l, const gcev_trace_event *ev)
{
    if (!ev->provider_name || strcmp(ev->provider_name, "Microsoft-Windows-DotNETRuntime") != 0) {
        return;
    }
    switch (ev->event_id) {
    case EV_SUSPEND_EE_BEGIN:
        on_suspend_begin(l, ev);
        break;
    case EV_GC_START:
        on_gc_start(l, ev);
        break;
    case EV_GC_END:
        on_gc_end(l, ev);
        break;
    case EV_HEAP_STATS:
        on_heap_stats(l, ev);
        break;
    case EV_RESTART_EE_END:
        on_restart_end(l, ev);
        break;
    default:
        break;
    }
}

void live_gc_flush(live_gc *l)
{
    for (;;) {
        open_gc *first = NULL;
        for (int i = 0; i < OPEN_MAX; i++) {
            if (l->open[i].used && (!first || l->open[i].r.number < first->r.number)) {
                first = &l->open[i];
            }
        }
        if (!first) {
            return;
        }
        emit(l, first);
    }
}
