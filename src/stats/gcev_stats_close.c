/* SPDX-License-Identifier: MIT */
/*
 * The GC-end callback (gcev_stats_set_gc_callback): when a GC is closed, what
 * its end computes is computed for it, and the callback sees it.
 *
 * Closed means that no later event can change the record (the rule in
 * gcev_stats.h): the GC is complete by the state machine's own rule (TraceEvent's
 * IsComplete), no GC suspension is open in its process (its RestartEEEnd could
 * still add to the pause: a background GC's, or one whose GCHeapStats came first),
 * and a background GC has seen a later GC start since it completed: until then
 * late per-heap histories still go to it (gcev_stats_detail_target). And the GC
 * before it in its process is closed: the end values read it (allocation since the
 * previous GC from its histories), so the GCs that run inside a background GC are
 * reported when it is, right after it, and GCs are reported in start order. The
 * one model decides all of it; a live consumer adds no pause rule of its own.
 */
#include "gcev_stats_internal.h"

static int is_bgc(const gcev_stats_gc *g)
{
    return (g->present & GCEV_STATS_GC_HAS_TYPE) && g->type == GCEV_STATS_BACKGROUND;
}

static int closed_now(const gcev_stats *s, const stats_proc *p, size_t k)
{
    long gi = (long)p->gcs[k];
    const gcev_stats_gc *g = &s->gcs[gi];
    if (k > 0 && !s->gcx[p->gcs[k - 1]].closed) {
        return 0; /* its end values read the GC before it (a background GC it ran in, too) */
    }
    if (!(g->flags & GCEV_STATS_GC_COMPLETE) || p->has_tid_gc || p->has_tid_bgc) {
        return 0;
    }
    return !is_bgc(g) || p->ngcs > s->gcx[gi].gcs_at_complete;
}

/* What gcev_stats_finish() adds to every GC from the whole trace (summary.c), as known now. */
static void trace_wide_bits(const gcev_stats *s, gcev_stats_gc *g)
{
    if (s->family_counts[GCEV_FAMILY_GC_ALLOCATION_TICK]) {
        g->present |= GCEV_STATS_GC_HAS_ALLOCATED;
    }
    if (s->family_counts[GCEV_FAMILY_PIN_OBJECT_AT_GC_TIME]) {
        g->present |= GCEV_STATS_GC_HAS_PINNED_EVENTS;
    }
}

static void report(gcev_stats *s, long gi)
{
    s->gcx[gi].closed = 1;
    s->gc_fn(s->gc_ctx, s, &s->gcs[gi]);
}

/* How far back a GC may still close: only a few GCs are open at once (a background GC and
 * the GCs inside it). One still open CLOSE_SEARCH GCs later lost its end (dropped events, a
 * skipped range): it is reported as it is then, incomplete, so that the GCs after it, which
 * wait for it, are reported too. */
enum { CLOSE_SEARCH = 16 };

void gcev_stats_close_ready(gcev_stats *s, stats_proc *p)
{
    while (p->ngcs > CLOSE_SEARCH && p->first_open < p->ngcs - CLOSE_SEARCH) {
        long gi = (long)p->gcs[p->first_open];
        if (!s->gcx[gi].closed) {
            gcev_stats_derive_gc(s, p, p->first_open);
            trace_wide_bits(s, &s->gcs[gi]);
            report(s, gi);
        }
        p->first_open++;
    }
    for (size_t k = p->first_open; k < p->ngcs; k++) {
        long gi = (long)p->gcs[k];
        if (!s->gcx[gi].closed && closed_now(s, p, k)) {
            /* a background GC's peak reads the sizes before of the GCs that ran inside it,
             * which close after it: complete, their own end values are final already */
            for (size_t j = k + 1; j < p->ngcs; j++) {
                if (s->gcs[p->gcs[j]].flags & GCEV_STATS_GC_COMPLETE) {
                    gcev_stats_derive_own(s, p, j);
                }
            }
            gcev_stats_derive_gc(s, p, k);
            trace_wide_bits(s, &s->gcs[gi]);
            report(s, gi);
        }
    }
    while (p->first_open < p->ngcs && s->gcx[p->gcs[p->first_open]].closed) {
        p->first_open++;
    }
}

void gcev_stats_close_rest(gcev_stats *s)
{
    if (!s->gc_fn) {
        return;
    }
    for (size_t gi = 0; gi < s->ngcs; gi++) {
        if (!s->gcx[gi].closed) {
            report(s, (long)gi);
        }
    }
}

gcev_status gcev_stats_set_gc_callback(gcev_stats *s, gcev_stats_gc_fn fn, void *ctx)
{
    if (!s || s->finished) {
        return GCEV_E_INVALID_ARG;
    }
    s->gc_fn = fn;
    s->gc_ctx = ctx;
    return GCEV_OK;
}
