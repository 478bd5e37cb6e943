/* SPDX-License-Identifier: MIT */
/*
 * The entry points that take events: each event goes to the GC state machine
 * (gcev_stats_model.c), then to the per-GC detail events (gcev_stats_heap.c) or
 * the lifetimes; finishing closes the lifetimes and computes the summaries.
 */
#include <string.h>

#include "gcev_stats_internal.h"

/* How far back a drop notice looks for open GCs: only a few GCs can be open at once. */
enum { DROP_SEARCH = 16 };

static void note_time(gcev_stats *s, double ms)
{
    if (!s->have_time) {
        s->sum.first_ms = s->sum.last_ms = ms;
        s->have_time = 1;
    }
    if (ms < s->sum.first_ms) {
        s->sum.first_ms = ms;
    }
    if (ms > s->sum.last_ms) {
        s->sum.last_ms = ms;
    }
}

void gcev_stats_note_other_events(gcev_stats *s, uint64_t n, double first_ms, double last_ms)
{
    note_time(s, first_ms);
    note_time(s, last_ms);
    s->sum.events += n;
}

gcev_status gcev_stats_add_decoded_process(gcev_stats *s, const gcev_event *ev, double ms, uint64_t thread_id,
                                           uint32_t process_id)
{
    if (!s || !ev || !ev->desc || s->finished) {
        return GCEV_E_INVALID_ARG;
    }
    note_time(s, ms);
    s->sum.events++;
    s->sum.gc_events++;
    if (ev->family < GCEV_FAMILY_COUNT_) {
        s->family_counts[ev->family]++;
    }
    stats_proc *p = gcev_stats_proc(s, process_id);
    if (!p) {
        /* out of memory, or past max_processes (limit_hit is then set) */
        return s->nprocs >= s->opts.max_processes ? GCEV_OK : GCEV_E_NOMEM;
    }
    gcev_status st = gcev_stats_model_event(s, p, ev, ms, thread_id);
    if (st == GCEV_OK && !gcev_stats_heap_event(s, p, ev, ms, thread_id)) {
        st = gcev_stats_lifetime_event(s, p, ev, ms, thread_id);
    }
    if (s->gc_fn) {
        gcev_stats_close_ready(s, p);
    }
    return st;
}

gcev_status gcev_stats_add_decoded(gcev_stats *s, const gcev_event *ev, double ms, uint64_t thread_id)
{
    return gcev_stats_add_decoded_process(s, ev, ms, thread_id, 0);
}

gcev_status gcev_stats_add(gcev_stats *s, const gcev_stats_input *in)
{
    if (!s || !in || s->finished) {
        return GCEV_E_INVALID_ARG;
    }
    if (!gcev_sized_whole(in, sizeof *in, STATS_INPUT_V1)) {
        /* another layout than this library's (gcev.h "Growable structs") */
        gcev_stats_input whole;
        gcev_status st = gcev_sized_in(&whole, sizeof whole, in, STATS_INPUT_V1);
        return st == GCEV_OK ? gcev_stats_add(s, &whole) : st;
    }
    /* One look-up per event: gcev_decode resolves the event; only when it fails before
     * resolving (bad pointer size or size) is the event looked up again, to tell a
     * malformed GC event from a non-GC one. */
    gcev_input di = {.struct_size = sizeof di,
                     .provider = in->provider,
                     .event_id = in->event_id,
                     .version = in->version,
                     .pointer_size = in->pointer_size,
                     .data = in->payload,
                     .size = in->payload_size};
    gcev_event ev;
    gcev_status st = gcev_decode(&di, &ev, NULL);
    if (st != GCEV_OK && !ev.desc &&
        (st == GCEV_E_UNKNOWN_PROVIDER || st == GCEV_E_UNKNOWN_EVENT || st == GCEV_E_UNKNOWN_VERSION ||
         !gcev_event_desc_resolve(in->provider, in->event_id, in->version, NULL))) {
        /* not a GC event: it only tells how long the trace is */
        note_time(s, in->ms);
        s->sum.events++;
        return GCEV_OK;
    }
    if (st != GCEV_OK) {
        note_time(s, in->ms);
        s->sum.events++;
        s->sum.decode_errors++;
        return st;
    }
    return gcev_stats_add_decoded_process(s, &ev, in->ms, in->thread_id, in->process_id);
}

gcev_status gcev_stats_add_trace_event(gcev_stats *s, const gcev_trace_event *ev)
{
    if (!s || !ev) {
        return GCEV_E_INVALID_ARG;
    }
    gcev_stats_input in = {.struct_size = sizeof in,
                           .provider = ev->provider,
                           .event_id = ev->event_id,
                           .version = ev->version,
                           .pointer_size = ev->pointer_size,
                           .payload = ev->payload,
                           .payload_size = ev->payload_size,
                           .ms = ev->ms,
                           .thread_id = ev->thread_id,
                           .process_id = ev->process_id};
    return gcev_stats_add(s, &in);
}

/* The GC a GCHeapStats of process p arriving now would fill (as on_heap_stats picks it), or -1. */
static long heap_stats_target(const gcev_stats *s, const stats_proc *p)
{
    long gi = gcev_stats_current(s, p);
    if (gi < 0 && !s->compat && p->last_ended >= 0 &&
        !(s->gcs[p->last_ended].present & GCEV_STATS_GC_HAS_HEAP_STATS)) {
        gi = p->last_ended;
    }
    return gi;
}

/* Events were lost just before `ms`: flags the GCs they may have belonged to. */
static void flag_lost(gcev_stats *s, double ms)
{
    /* The lost events may have belonged to any GC open at `ms` or ending after
     * it (time order across threads is only approximate), or to the GC that
     * ended last while it still awaits its HeapStats: only while no later GC of
     * its process has started, since a GCHeapStats then goes to that one. */
    size_t stop = s->ngcs > DROP_SEARCH ? s->ngcs - DROP_SEARCH : 0;
    for (size_t i = s->ngcs; i-- > stop;) {
        gcev_stats_gc *g = &s->gcs[i];
        const stats_proc *p = &s->procs[s->gcx[i].proc];
        int open = !(g->present & GCEV_STATS_GC_HAS_END) || g->end_ms >= ms;
        int awaiting = (long)i == p->last_ended && !(g->present & GCEV_STATS_GC_HAS_HEAP_STATS) &&
                       heap_stats_target(s, p) == (long)i;
        if (open || awaiting) {
            g->flags |= GCEV_STATS_GC_INCOMPLETE;
        }
    }
}

void gcev_stats_note_dropped(gcev_stats *s, uint64_t count, double ms)
{
    if (!s || !count) {
        return;
    }
    s->sum.dropped_events += count;
    flag_lost(s, ms);
    gcev_stats_lifetimes_note_loss(s, ms);
}

void gcev_stats_note_skipped(gcev_stats *s, uint64_t bytes, double ms)
{
    if (!s) {
        return;
    }
    s->sum.skipped_ranges++;
    s->sum.skipped_bytes += bytes;
    flag_lost(s, ms);
    gcev_stats_lifetimes_note_loss(s, ms);
}

gcev_status gcev_stats_finish(gcev_stats *s)
{
    if (!s) {
        return GCEV_E_INVALID_ARG;
    }
    if (s->finished) {
        return s->finish_status;
    }
    /* A suspension still open has no RestartEEEnd: its pause stays unknown. */
    gcev_status st = gcev_stats_lifetimes_finish(s);
    if (st == GCEV_OK) {
        st = gcev_stats_summary_finish(s);
    }
    /* finished either way: the summaries are not built twice (a failure leaves them partial) */
    s->finished = 1;
    s->finish_status = st;
    gcev_stats_close_rest(s);
    return st;
}
