/* SPDX-License-Identifier: MIT */
/*
 * The GC state machine: GCStart/GCEnd by number, the suspension in progress,
 * the background GC in progress and the GCs nested in it (doc/ARCHITECTURE.md, "GC analysis").
 *
 * A suspension is a GC pause only when a GC starts inside it, or when it is a
 * GC suspension (SuspendForGC/GCPrep) during a background GC: that is the
 * BGC's own final non-concurrent phase, which logs no GCStart. Everything else
 * (the sampling profiler's SuspendOther with Count -1, the debugger) is counted
 * apart and never charged to a GC.
 */
#include <stdlib.h>
#include <string.h>

#include "gcev_stats_internal.h"

/* GCSuspendEEReasonMap values that mean "the GC suspends the runtime". */
enum { SUSPEND_FOR_GC = 1, SUSPEND_FOR_GC_PREP = 6 };
/* How far back GCEnd looks for its GCStart: only a few GCs can be open at once. */
enum { END_SEARCH = 16 };

static int is_gc_reason(const stats_suspension *p)
{
    return p->has_reason && (p->reason == SUSPEND_FOR_GC || p->reason == SUSPEND_FOR_GC_PREP);
}

/* The open suspension of this thread, or NULL. */
static stats_suspension *suspension_of(gcev_stats *s, uint64_t tid)
{
    for (int i = 0; i < STATS_SUSP_SLOTS; i++) {
        if (s->susp[i].active && s->susp[i].thread_id == tid) {
            return &s->susp[i];
        }
    }
    return NULL;
}

/*
 * The suspension a starting GC runs in: its own thread's (workstation GC,
 * background GC thread, server GC heap 0 thread), else the most recent open
 * GC-reason suspension of another thread with no GC yet. Never a sampler's
 * SuspendOther of another thread.
 */
static stats_suspension *suspension_for_gc(gcev_stats *s, uint64_t tid)
{
    stats_suspension *p = suspension_of(s, tid);
    if (p) {
        return p->gc < 0 ? p : NULL;
    }
    stats_suspension *best = NULL;
    for (int i = 0; i < STATS_SUSP_SLOTS; i++) {
        stats_suspension *q = &s->susp[i];
        if (q->active && q->gc < 0 && is_gc_reason(q) && (!best || q->seq > best->seq)) {
            best = q;
        }
    }
    return best;
}

/* Whether the starting GC's thread is suspended for a GC that already started. */
static int shared_suspension(gcev_stats *s, uint64_t tid)
{
    stats_suspension *p = suspension_of(s, tid);
    return p && p->gc >= 0;
}

static gcev_status on_gc_start(gcev_stats *s, const gcev_gc_start *e, double ms, uint64_t tid)
{
    if (s->ngcs == s->cap_gcs) {
        size_t cap = s->cap_gcs ? s->cap_gcs * 2 : 64;
        gcev_stats_gc *g = realloc(s->gcs, cap * sizeof *g);
        if (!g) {
            return GCEV_E_NOMEM;
        }
        s->gcs = g;
        s->cap_gcs = cap;
    }
    long idx = (long)s->ngcs++;
    gcev_stats_gc *g = &s->gcs[idx];
    memset(g, 0, sizeof *g);
    g->number = e->count;
    g->start_ms = ms;
    g->thread_id = tid;
    if (e->present & GCEV_GC_START_HAS_DEPTH) {
        g->generation = e->depth;
        g->present |= GCEV_STATS_GC_HAS_GENERATION;
    }
    if (e->present & GCEV_GC_START_HAS_REASON) {
        g->reason = e->reason;
        g->present |= GCEV_STATS_GC_HAS_REASON;
    }
    if (e->present & GCEV_GC_START_HAS_TYPE) {
        g->type = e->type;
        g->present |= GCEV_STATS_GC_HAS_TYPE;
    }
    g->allocated_bytes = s->alloc_since_gc;
    s->alloc_since_gc = 0;
    int is_bgc = (g->present & GCEV_STATS_GC_HAS_TYPE) && g->type == GCEV_STATS_BACKGROUND;
    if (s->bgc >= 0 && !is_bgc) {
        g->nested_in = s->gcs[s->bgc].number;
        g->present |= GCEV_STATS_GC_HAS_NESTED_IN;
    }
    stats_suspension *p = suspension_for_gc(s, tid);
    if (p) {
        p->gc = idx;
        g->suspend_begin_ms = p->begin_ms;
        if (p->has_end) {
            g->suspension_ms = p->end_ms - p->begin_ms;
            g->present |= GCEV_STATS_GC_HAS_SUSPENSION;
        }
    } else if (shared_suspension(s, tid)) {
        /* e.g. the ephemeral GC a BGC starts with: the pause is the first GC's */
        g->flags |= GCEV_STATS_GC_SHARED_SUSPENSION;
    }
    if (is_bgc) {
        s->bgc = idx;
    }
    s->open_inner = idx;
    return GCEV_OK;
}

static void on_gc_end(gcev_stats *s, const gcev_gc_end *e, double ms)
{
    size_t stop = s->ngcs > END_SEARCH ? s->ngcs - END_SEARCH : 0;
    for (size_t i = s->ngcs; i-- > stop;) {
        gcev_stats_gc *g = &s->gcs[i];
        if (g->number != e->count || (g->present & GCEV_STATS_GC_HAS_END)) {
            continue;
        }
        g->end_ms = ms;
        g->duration_ms = ms > g->start_ms ? ms - g->start_ms : 0.0;
        g->present |= GCEV_STATS_GC_HAS_END;
        s->last_ended = (long)i;
        if ((long)i == s->bgc) {
            s->bgc = -1;
        }
        if ((long)i == s->open_inner) {
            /* back to the background GC this one was nested in, if any */
            s->open_inner = s->bgc;
        }
        return;
    }
    /* a GCEnd whose GCStart preceded the trace: nothing to close */
}

static void on_suspend_begin(gcev_stats *s, const gcev_gc_suspend_ee_begin *e, double ms, uint64_t tid)
{
    /* A thread suspending again while its last suspension is open means that
     * RestartEE was lost: reuse its slot. Otherwise take a free slot, or evict
     * the oldest (a lost restart long ago). */
    stats_suspension *p = suspension_of(s, tid);
    for (int i = 0; !p && i < STATS_SUSP_SLOTS; i++) {
        if (!s->susp[i].active) {
            p = &s->susp[i];
        }
    }
    if (!p) {
        p = &s->susp[0];
        for (int i = 1; i < STATS_SUSP_SLOTS; i++) {
            if (s->susp[i].seq < p->seq) {
                p = &s->susp[i];
            }
        }
    }
    memset(p, 0, sizeof *p);
    p->active = 1;
    p->thread_id = tid;
    p->seq = ++s->susp_seq;
    p->begin_ms = ms;
    p->gc = -1;
    if (e->present & GCEV_GC_SUSPEND_EE_BEGIN_HAS_REASON) {
        p->reason = e->reason;
        p->has_reason = 1;
    }
}

/*
 * SuspendEEEnd and RestartEE close the suspension of their own thread only:
 * the 3.0 corpus trace has 49 sampler RestartEE with no SuspendEEBegin, which
 * must not close a GC's suspension open on another thread.
 */
static void on_suspend_end(gcev_stats *s, double ms, uint64_t tid)
{
    stats_suspension *p = suspension_of(s, tid);
    if (p && !p->has_end) {
        p->end_ms = ms;
        p->has_end = 1;
    }
}

static void on_restart_end(gcev_stats *s, double ms, uint64_t tid)
{
    stats_suspension *p = suspension_of(s, tid);
    if (!p) {
        return; /* its SuspendEEBegin preceded the trace */
    }
    double pause = ms > p->begin_ms ? ms - p->begin_ms : 0.0;
    double susp = p->has_end && p->end_ms > p->begin_ms ? p->end_ms - p->begin_ms : 0.0;
    gcev_stats_gc *g = NULL;
    if (p->gc >= 0) {
        g = &s->gcs[p->gc];
    } else if (s->bgc >= 0 && is_gc_reason(p)) {
        g = &s->gcs[s->bgc]; /* the background GC's final non-concurrent phase */
        if (p->has_end) {
            g->suspension_ms += susp;
            g->present |= GCEV_STATS_GC_HAS_SUSPENSION;
        }
    }
    if (g) {
        g->pause_ms += pause;
        g->suspensions++;
        g->present |= GCEV_STATS_GC_HAS_PAUSE;
    } else {
        s->sum.other_suspensions++;
        s->sum.other_suspended_ms += pause;
    }
    memset(p, 0, sizeof *p);
    p->gc = -1;
}

static void on_allocation_tick(gcev_stats *s, const gcev_gc_allocation_tick *e)
{
    uint64_t amount = (e->present & GCEV_GC_ALLOCATION_TICK_HAS_ALLOCATION_AMOUNT64) ? e->allocation_amount64
                                                                                     : e->allocation_amount;
    s->sum.allocation_ticks++;
    s->sum.allocated_bytes += amount;
    s->alloc_since_gc += amount;
}

gcev_status gcev_stats_model_event(gcev_stats *s, const gcev_event *ev, double ms, uint64_t tid)
{
    switch (ev->family) {
    case GCEV_FAMILY_GC_START:
        return on_gc_start(s, &ev->u.gc_start, ms, tid);
    case GCEV_FAMILY_GC_END:
        on_gc_end(s, &ev->u.gc_end, ms);
        break;
    case GCEV_FAMILY_GC_SUSPEND_EE_BEGIN:
        on_suspend_begin(s, &ev->u.gc_suspend_ee_begin, ms, tid);
        break;
    case GCEV_FAMILY_GC_SUSPEND_EE_END:
        on_suspend_end(s, ms, tid);
        break;
    case GCEV_FAMILY_GC_RESTART_EE_END:
        on_restart_end(s, ms, tid);
        break;
    case GCEV_FAMILY_GC_ALLOCATION_TICK:
        on_allocation_tick(s, &ev->u.gc_allocation_tick);
        break;
    default:
        break;
    }
    return GCEV_OK;
}
