/* SPDX-License-Identifier: MIT */
/*
 * The GC state machine, per process, as TraceEvent's (TraceManagedProcess.cs,
 * "TMP"): one GC suspension in progress (SuspendEEBegin with reason SuspendForGC
 * or SuspendForGCPrep, closed by the RestartEEEnd of the same thread), the GC
 * list, the background GC in progress. A GC's pause goes to "the current GC"
 * (the last GC while it is not complete, else the BGC in progress); a blocking
 * GC completes at the RestartEEEnd after its GCHeapStats, a BGC at its
 * GCHeapStats. gcev's corrections are the STATS_Q_* quirks (internal header).
 *
 * Suspensions of other reasons (the sampling profiler's SuspendOther with Count
 * -1, the debugger) are never charged to a GC (doc/ARCHITECTURE.md, "GC analysis"); they, and GC
 * suspensions in which no GC ran, are counted in the summary's other_suspensions.
 */
#include <stdlib.h>
#include <string.h>

#include "gcev_stats_internal.h"

/* GCSuspendEEReasonMap values that mean "the GC suspends the runtime". */
enum { SUSPEND_FOR_GC = 1, SUSPEND_FOR_GC_PREP = 6 };
/* GCReasonMap values (and the runtime's gc_reason beyond the map). */
enum { REASON_PM_FULL_GC = 12 };
/* How far back GCEnd looks for its GCStart: only a few GCs can be open at once. */
enum { END_SEARCH = 16 };

static int is_bgc(const gcev_stats_gc *g)
{
    return (g->present & GCEV_STATS_GC_HAS_TYPE) && g->type == GCEV_STATS_BACKGROUND;
}

/* ---- suspension slots: only for counting the suspensions no GC was charged with ---- */

static stats_susp_slot *slot_of(stats_proc *p, uint64_t tid)
{
    for (int i = 0; i < STATS_SUSP_SLOTS; i++) {
        if (p->susp[i].active && p->susp[i].thread_id == tid) {
            return &p->susp[i];
        }
    }
    return NULL;
}

static void slot_begin(stats_proc *p, uint64_t tid, double ms)
{
    stats_susp_slot *q = slot_of(p, tid); /* a lost RestartEE: reuse the thread's slot */
    for (int i = 0; !q && i < STATS_SUSP_SLOTS; i++) {
        if (!p->susp[i].active) {
            q = &p->susp[i];
        }
    }
    if (!q) { /* evict the oldest */
        q = &p->susp[0];
        for (int i = 1; i < STATS_SUSP_SLOTS; i++) {
            if (p->susp[i].seq < q->seq) {
                q = &p->susp[i];
            }
        }
    }
    q->active = 1;
    q->thread_id = tid;
    q->seq = ++p->susp_seq;
    q->begin_ms = ms;
    q->charged = 0;
}

static void slot_end(gcev_stats *s, stats_proc *p, uint64_t tid, double ms, int charged)
{
    stats_susp_slot *q = slot_of(p, tid);
    if (!q) {
        return; /* its SuspendEEBegin preceded the trace */
    }
    if (!charged && !q->charged) {
        s->sum.other_suspensions++;
        s->sum.other_suspended_ms += ms > q->begin_ms ? ms - q->begin_ms : 0.0;
    }
    q->active = 0;
}

/* ---- events -------------------------------------------------------------------- */

static void on_suspend_begin(gcev_stats *s, stats_proc *p, const gcev_gc_suspend_ee_begin *e, double ms,
                             uint64_t tid)
{
    slot_begin(p, tid, ms);
    uint32_t reason = (e->present & GCEV_GC_SUSPEND_EE_BEGIN_HAS_REASON) ? e->reason : 0;
    switch (reason) {
    case SUSPEND_FOR_GC:
        p->has_tid_gc = 1;
        p->tid_gc = tid;
        break;
    case SUSPEND_FOR_GC_PREP:
        p->has_tid_bgc = 1;
        p->tid_bgc = tid;
        gcev_stats_note_bgc_thread(s, p, tid); /* a BGC suspends for its final mark on its own thread */
        break;
    default:
        p->has_tid_other = 1;
        p->tid_other = tid;
        return;
    }
    p->last_reason = reason;
    p->susp_begin_ms = ms;
}

static int is_gc_thread(const stats_proc *p, uint64_t tid)
{
    return (p->has_tid_gc && p->tid_gc == tid) || (p->has_tid_bgc && p->tid_bgc == tid);
}

static void on_suspend_end(gcev_stats *s, stats_proc *p, double ms, uint64_t tid)
{
    if (!is_gc_thread(p, tid)) {
        return;
    }
    if (p->has_tid_bgc && p->current_bgc >= 0 && p->susp_begin_ms >= 0) {
        gcev_stats_gc *b = &s->gcs[p->current_bgc];
        b->suspension_ms += ms - p->susp_begin_ms;
        b->present |= GCEV_STATS_GC_HAS_SUSPENSION;
    }
    p->susp_end_ms = ms;
}

static gcev_status on_gc_start(gcev_stats *s, stats_proc *p, const gcev_gc_start *e, double ms, uint64_t tid)
{
    int in_suspension = p->has_tid_gc || p->has_tid_other;
    long last = p->ngcs ? (long)p->gcs[p->ngcs - 1] : -1;
    if (last >= 0 && s->gcs[last].number == e->count) {
        /* .NET Framework logs GCStart V1 then V2 for each GC (TMP L713) */
        p->duplicate_starts++;
        return GCEV_OK;
    }
    if (!in_suspension && s->compat) {
        /* TraceEvent drops it; nothing to record the quirk on but the next GC */
        return GCEV_OK;
    }
    long gi = gcev_stats_new_gc(s, p);
    if (gi < 0) {
        return GCEV_E_NOMEM;
    }
    gcev_stats_gc *g = &s->gcs[gi];
    stats_gcx *x = &s->gcx[gi];
    if (!in_suspension) {
        x->quirks |= STATS_Q_NO_SUSPENSION;
    }
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
    g->allocated_bytes = p->alloc_since_start;
    p->alloc_since_start = 0;
    if (p->current_bgc >= 0 && !is_bgc(g)) {
        g->nested_in = s->gcs[p->current_bgc].number;
        g->present |= GCEV_STATS_GC_HAS_NESTED_IN;
    }
    /* GCStart V0 has no Type: TraceEvent reads NonConcurrentGC (0) */
    uint32_t type = (g->present & GCEV_STATS_GC_HAS_TYPE) ? g->type : GCEV_STATS_BLOCKING;
    int eph_at_bgc_start = last >= 0 && is_bgc(&s->gcs[last]) &&
                           !(s->gcs[last].flags & GCEV_STATS_GC_COMPLETE) && type == GCEV_STATS_BLOCKING;
    if (eph_at_bgc_start || g->reason == REASON_PM_FULL_GC) {
        /* the pause of this GC starts with it: the suspension was the BGC's (or, for a
         * provisional-mode full GC, the gen1 GC's it follows) */
        g->pause_start_ms = ms;
        g->present |= GCEV_STATS_GC_HAS_PAUSE_START | GCEV_STATS_GC_HAS_SUSPENSION;
        if (eph_at_bgc_start) {
            g->flags |= GCEV_STATS_GC_SHARED_SUSPENSION;
        }
        if (g->reason == REASON_PM_FULL_GC) {
            /* the provisional gen1 GC it follows never gets a RestartEE of its own (TMP L736) */
            for (size_t k = p->ngcs - 1; k-- > 0;) {
                long ci = (long)p->gcs[k];
                if (!(s->gcs[ci].flags & GCEV_STATS_GC_COMPLETE) || ci == p->current_bgc) {
                    gcev_stats_complete(s, ci);
                    break;
                }
            }
        }
    } else if (p->susp_begin_ms >= 0 || s->compat) {
        /* TraceEvent takes the suspension in progress; without one (compatibility mode only:
         * a GC allowed in by another suspension) its values are -1 based, as TraceEvent's */
        g->pause_start_ms = p->susp_begin_ms;
        g->present |= GCEV_STATS_GC_HAS_PAUSE_START;
        int has_end = p->susp_end_ms >= p->susp_begin_ms && p->susp_end_ms >= 0;
        if (!has_end && p->susp_end_ms >= 0) {
            x->quirks |= STATS_Q_STALE_SUSPEND_END;
        }
        if (s->compat) {
            if (p->susp_end_ms == -1) {
                p->susp_end_ms = ms; /* TMP L755 */
            }
            g->suspension_ms = p->susp_end_ms - p->susp_begin_ms;
            g->present |= GCEV_STATS_GC_HAS_SUSPENSION;
        } else if (has_end) {
            g->suspension_ms = p->susp_end_ms - p->susp_begin_ms;
            g->present |= GCEV_STATS_GC_HAS_SUSPENSION;
        }
        g->suspend_begin_ms = p->susp_begin_ms;
    }
    if (is_bgc(g)) {
        p->current_bgc = gi;
        /* the BGC's pause starts as its suspension so far (TMP L768) */
        if (g->present & GCEV_STATS_GC_HAS_SUSPENSION) {
            g->pause_ms = g->suspension_ms;
            g->present |= GCEV_STATS_GC_HAS_PAUSE;
        }
    }
    return GCEV_OK;
}

static void on_gc_end(gcev_stats *s, stats_proc *p, const gcev_gc_end *e, double ms)
{
    long gi = -1;
    if (s->compat) {
        gi = gcev_stats_current(s, p); /* TMP L1121: no check of Count */
    } else {
        size_t stop = p->ngcs > END_SEARCH ? p->ngcs - END_SEARCH : 0;
        for (size_t k = p->ngcs; k-- > stop;) {
            long ci = (long)p->gcs[k];
            if (s->gcs[ci].number == e->count && !(s->gcs[ci].present & GCEV_STATS_GC_HAS_END)) {
                gi = ci;
                break;
            }
        }
    }
    if (gi < 0) {
        return; /* its GCStart preceded the trace */
    }
    gcev_stats_gc *g = &s->gcs[gi];
    g->end_ms = ms;
    g->duration_ms = ms - g->start_ms;
    g->present |= GCEV_STATS_GC_HAS_END;
    p->last_ended = gi;
}

/* TMP AddConcurrentPauseTime, for the RestartEEEnd of a GC suspension while BGC gi is current. */
static void bgc_restart(gcev_stats *s, stats_proc *p, long gi, double ms)
{
    gcev_stats_gc *g = &s->gcs[gi];
    if (p->has_tid_bgc) {
        double pause = ms - p->susp_begin_ms;
        g->pause_ms += pause;
        if (p->last_reason == SUSPEND_FOR_GC_PREP) {
            g->bgc_final_pause_ms = pause;
            g->present |= GCEV_STATS_GC_HAS_BGC_FINAL_PAUSE;
        }
    } else if (g->start_ms >= p->susp_begin_ms || s->compat) {
        /* its initial suspension (TMP L4780) */
        if (g->start_ms < p->susp_begin_ms) {
            s->gcx[gi].quirks |= STATS_Q_BGC_OVERWRITE;
        }
        g->pause_ms = ms - g->pause_start_ms;
    } else {
        /* a GC suspension during the BGC in which no GC started: its pause is the BGC's too */
        s->gcx[gi].quirks |= STATS_Q_BGC_OVERWRITE;
        g->pause_ms += ms - p->susp_begin_ms;
    }
    g->suspensions++;
    g->present |= GCEV_STATS_GC_HAS_PAUSE;
}

static void on_restart_end(gcev_stats *s, stats_proc *p, double ms, uint64_t tid)
{
    if (p->has_tid_other && p->tid_other == tid) {
        p->has_tid_other = 0;
    }
    if (!is_gc_thread(p, tid)) {
        slot_end(s, p, tid, ms, 0);
        return;
    }
    long gi = gcev_stats_current(s, p);
    if (gi < 0 && p->ngcs) {
        /* a BGC that ran inside this suspension completed at its GCHeapStats, before this */
        long last = (long)p->gcs[p->ngcs - 1];
        if (last == p->last_completed && is_bgc(&s->gcs[last]) && p->susp_begin_ms >= 0 &&
            s->gcs[last].start_ms >= p->susp_begin_ms) {
            s->gcx[last].quirks |= STATS_Q_BGC_RESTART_LOST;
            if (!s->compat) {
                gi = last;
            }
        }
    }
    if (gi >= 0) {
        gcev_stats_gc *g = &s->gcs[gi];
        if (is_bgc(g)) {
            bgc_restart(s, p, gi, ms);
        } else if (!(g->present & GCEV_STATS_GC_HAS_END) && p->has_tid_bgc) {
            /* a GC-prep (BGC) suspension's RestartEEEnd while a blocking GC that lost its GCEnd
             * is current: TraceEvent takes it for a .NET 2.0 concurrent GC and adds the suspension
             * as a BGC pause (TMP GCRestartEEStop: DurationMSec == 0, AddConcurrentPauseTime) */
            s->gcx[gi].quirks |= STATS_Q_PREP_RESTART;
            s->gcx[gi].is_concurrent = 1;
            if (s->compat) {
                bgc_restart(s, p, gi, ms);
            } else if (g->present & GCEV_STATS_GC_HAS_PAUSE_START) {
                g->pause_ms = ms - g->pause_start_ms;
                g->suspensions = 1;
                g->present |= GCEV_STATS_GC_HAS_PAUSE;
            }
        } else {
            if (g->present & GCEV_STATS_GC_HAS_PAUSE_START) {
                g->pause_ms = ms - g->pause_start_ms;
                g->suspensions = 1;
                g->present |= GCEV_STATS_GC_HAS_PAUSE;
            }
            if (!(g->present & GCEV_STATS_GC_HAS_END)) {
                /* TMP's .NET 2.0 concurrent GC: paused before its GCEnd; completes at GCHeapStats */
                s->gcx[gi].is_concurrent = 1;
            } else if (g->present & GCEV_STATS_GC_HAS_HEAP_STATS) {
                gcev_stats_complete(s, gi);
                p->last_completed = gi;
            } else {
                /* its GCHeapStats was lost: its pause is over all the same */
                s->gcx[gi].restarted = 1;
                s->gcx[gi].quirks |= STATS_Q_NO_HEAP_STATS;
            }
        }
    }
    slot_end(s, p, tid, ms, gi >= 0);
    p->susp_begin_ms = -1;
    p->has_tid_bgc = 0;
    p->has_tid_gc = 0;
}

static void on_allocation_tick(gcev_stats *s, stats_proc *p, const gcev_gc_allocation_tick *e)
{
    int has64 = (e->present & GCEV_GC_ALLOCATION_TICK_HAS_ALLOCATION_AMOUNT64) && e->allocation_amount64;
    uint64_t amount = has64 ? e->allocation_amount64 : e->allocation_amount;
    s->sum.allocation_ticks++;
    s->sum.allocated_bytes += amount;
    p->alloc_since_start += amount;
    p->has_alloc_ticks = 1;
    /* AllocationKind 0 small, 1 large, anything else the pinned object heap (TMP L697) */
    uint32_t kind = (e->present & GCEV_GC_ALLOCATION_TICK_HAS_ALLOCATION_KIND) ? e->allocation_kind : 0;
    int k = kind == 0 ? 0 : kind == 1 ? 1 : 2;
    if (s->compat) {
        /* TraceEvent's GetAllocAmount reads the V0/V1 UInt32 as an Int32; after one negative
         * amount it clamps every amount to 90 KB..110 KB (small) or ..2 MB (large) */
        int64_t v = has64 ? (int64_t)amount : (int64_t)(int32_t)e->allocation_amount;
        if (v < 0) {
            p->seen_bad_tick = 1;
        }
        if (p->seen_bad_tick) {
            int64_t cap = k == 0 ? 110 * 1024 : 2 * 1024 * 1024;
            v = v < 90 * 1024 ? 90 * 1024 : v > cap ? cap : v;
        }
        amount = (uint64_t)v;
    }
    p->tick_bytes[k] += amount;
}

static void on_heap_stats(gcev_stats *s, stats_proc *p, const gcev_gc_heap_stats *e, double ms)
{
    long gi = gcev_stats_current(s, p);
    if (gi < 0 && !s->compat && p->last_ended >= 0 &&
        !(s->gcs[p->last_ended].present & GCEV_STATS_GC_HAS_HEAP_STATS)) {
        gi = p->last_ended;
    }
    if (gi >= 0) {
        gcev_stats_gc *g = &s->gcs[gi];
        const uint64_t size[GCEV_STATS_GENS] = {e->generation_size0, e->generation_size1, e->generation_size2,
                                                e->generation_size3, e->generation_size4};
        const uint64_t prom[GCEV_STATS_GENS] = {e->total_promoted_size0, e->total_promoted_size1,
                                                e->total_promoted_size2, e->total_promoted_size3,
                                                e->total_promoted_size4};
        uint64_t promoted = 0, after = 0;
        for (int i = 0; i < GCEV_STATS_GENS; i++) {
            /* a version without GenerationSize4 (V0, V1) reads 0, as TraceEvent's */
            STATS_GENS(s, g)[i].size_after = size[i];
            STATS_GENS(s, g)[i].promoted = prom[i];
            STATS_GENS(s, g)[i].present |= GCEV_STATS_HEAP_HAS_SIZE_AFTER | GCEV_STATS_HEAP_HAS_PROMOTED;
            promoted += prom[i];
            after += size[i];
        }
        g->promoted_bytes = promoted;
        g->heap_size_after = after;
        g->pinned_objects = e->pinned_object_count;
        g->finalization_promoted_count = e->finalization_promoted_count;
        g->finalization_promoted_size = e->finalization_promoted_size;
        g->sink_block_count = e->sink_block_count;
        g->gc_handle_count = e->gc_handle_count;
        g->present |= GCEV_STATS_GC_HAS_PROMOTED | GCEV_STATS_GC_HAS_PINNED_OBJECTS |
                      GCEV_STATS_GC_HAS_FINALIZATION | GCEV_STATS_GC_HAS_HEAP_STATS |
                      GCEV_STATS_GC_HAS_SIZE_AFTER;
        if (is_bgc(g)) {
            g->since_last_restart_ms = ms - p->last_heap_stats_ms;
            g->present |= GCEV_STATS_GC_HAS_SINCE_RESTART;
        } else if (g->present & GCEV_STATS_GC_HAS_PAUSE_START) {
            g->since_last_restart_ms = g->pause_start_ms - p->last_heap_stats_ms;
            g->present |= GCEV_STATS_GC_HAS_SINCE_RESTART;
        }
        if (p->has_alloc_ticks) {
            for (int k = 0; k < 3; k++) {
                g->alloc_tick_bytes[k] = p->tick_bytes[k] - p->tick_bytes_at_last[k];
            }
            g->present |= GCEV_STATS_GC_HAS_ALLOC_TICKS;
        }
        if (is_bgc(g) && p->current_bgc >= 0) {
            /* this is where a background GC ends (TMP L1183) */
            gcev_stats_complete(s, p->current_bgc);
            p->last_completed = p->current_bgc;
            p->current_bgc = -1;
        }
        if (s->gcx[gi].is_concurrent) {
            gcev_stats_complete(s, gi);
            p->last_completed = gi;
        }
    }
    memcpy(p->tick_bytes_at_last, p->tick_bytes, sizeof p->tick_bytes);
    p->last_heap_stats_ms = ms;
}

gcev_status gcev_stats_model_event(gcev_stats *s, stats_proc *p, const gcev_event *ev, double ms,
                                   uint64_t tid)
{
    switch (ev->family) {
    case GCEV_FAMILY_GC_START:
        return on_gc_start(s, p, &ev->u.gc_start, ms, tid);
    case GCEV_FAMILY_GC_END:
        on_gc_end(s, p, &ev->u.gc_end, ms);
        break;
    case GCEV_FAMILY_GC_SUSPEND_EE_BEGIN:
        on_suspend_begin(s, p, &ev->u.gc_suspend_ee_begin, ms, tid);
        break;
    case GCEV_FAMILY_GC_SUSPEND_EE_END:
        on_suspend_end(s, p, ms, tid);
        break;
    case GCEV_FAMILY_GC_RESTART_EE_END:
        on_restart_end(s, p, ms, tid);
        break;
    case GCEV_FAMILY_GC_ALLOCATION_TICK:
        on_allocation_tick(s, p, &ev->u.gc_allocation_tick);
        break;
    case GCEV_FAMILY_GC_HEAP_STATS:
        on_heap_stats(s, p, &ev->u.gc_heap_stats, ms);
        break;
    default:
        break;
    }
    return GCEV_OK;
}
