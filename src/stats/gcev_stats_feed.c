/* SPDX-License-Identifier: MIT */
/*
 * Feeding a whole trace: every event into the model, and each gap in the
 * sequence numbers reported when the time-ordered stream reaches the gap
 * (doc/ARCHITECTURE.md, "GC analysis"), so exactly the GCs open across a loss are flagged.
 *
 * A time-ordering reader detects a gap when it reads a block, which may be
 * well before it yields the events around the gap; the drop records carry the
 * timestamp of the first event after the gap, so notices wait in a small
 * queue until the stream gets there.
 */
#include <stdlib.h>

#include "gcev_stats_internal.h"

/* Progress callbacks every 1024 events: a caller that shows progress throttles by time
 * itself; an indirect call per 1024 events costs nothing measurable. */
enum { PROGRESS_EVERY = 1 << 10, PENDING_MAX = 1024 };

typedef struct pending_drop {
    double ms;
    uint64_t count; /* events dropped, or bytes skipped (skip) */
    int skip;       /* a range skipped by keep-going (gcev_stats_note_skipped) */
} pending_drop;

typedef struct drop_queue {
    pending_drop *q;
    size_t n;
    size_t records_seen;                        /* gcev_trace_drop_at() records already queued */
    uint64_t total_seen;                        /* gcev_trace_dropped_events() already accounted */
    size_t skips_seen;                          /* gcev_trace_skip_at() records already queued */
    uint64_t skip_ranges_seen, skip_bytes_seen; /* gcev_trace_skipped_ranges() / _bytes() accounted */
} drop_queue;

/* Adds a notice to the queue, kept sorted by time; 0 when it is full (or out of memory). */
static int queue_put(drop_queue *dq, double ms, uint64_t count, int skip)
{
    if (!dq->q) {
        dq->q = malloc(PENDING_MAX * sizeof *dq->q);
    }
    if (!dq->q || dq->n == PENDING_MAX) {
        return 0;
    }
    /* gaps of different threads arrive in any order */
    size_t i = dq->n++;
    for (; i > 0 && dq->q[i - 1].ms > ms; i--) {
        dq->q[i] = dq->q[i - 1];
    }
    dq->q[i] = (pending_drop){ms, count, skip};
    return 1;
}

static double ticks_to_ms(const gcev_trace_info *info, int64_t ts)
{
    if (!info || !info->clock_frequency) {
        return 0.0;
    }
    return (double)(ts - info->sync_time_qpc) * 1000.0 / (double)info->clock_frequency;
}

/* Queues the drops the reader found since the last call; those it could not
 * record (it keeps 1024) are delivered at `now`. */
static void collect_drops(gcev_stats *s, gcev_trace *t, drop_queue *dq, double now)
{
    uint64_t total = gcev_trace_dropped_events(t);
    if (total == dq->total_seen) {
        return;
    }
    const gcev_trace_info *info = gcev_trace_get_info(t);
    uint64_t queued = 0;
    for (; dq->records_seen < gcev_trace_drop_count(t); dq->records_seen++) {
        const gcev_trace_drop *d = gcev_trace_drop_at(t, dq->records_seen);
        if (!queue_put(dq, ticks_to_ms(info, d->timestamp), d->dropped, 0)) {
            break;
        }
        queued += d->dropped;
    }
    uint64_t rest = total - dq->total_seen;
    if (rest > queued) {
        gcev_stats_note_dropped(s, rest - queued, now);
    }
    dq->total_seen = total;
}

/*
 * Queues the ranges a keep-going reader skipped since the last call, at the time of the
 * first event after each (the reader sets it when it reads that event); at the end
 * (final), also those no event followed. Those past its records are delivered at `now`.
 */
static void collect_skips(gcev_stats *s, gcev_trace *t, drop_queue *dq, double now, int final)
{
    if (gcev_trace_skipped_ranges(t) == dq->skip_ranges_seen &&
        gcev_trace_skipped_bytes(t) == dq->skip_bytes_seen) {
        return;
    }
    const gcev_trace_info *info = gcev_trace_get_info(t);
    for (; dq->skips_seen < gcev_trace_skip_count(t); dq->skips_seen++) {
        const gcev_trace_skip *k = gcev_trace_skip_at(t, dq->skips_seen);
        if (!k->has_timestamp && !final) {
            return; /* the last one: it may still grow, and waits for the event after it */
        }
        if (!queue_put(dq, k->has_timestamp ? ticks_to_ms(info, k->timestamp) : now, k->bytes, 1)) {
            gcev_stats_note_skipped(s, k->bytes, now);
        }
        dq->skip_ranges_seen++;
        dq->skip_bytes_seen += k->bytes;
    }
    /* ranges past the reader's records: one notice each, their bytes on the first */
    uint64_t rest = gcev_trace_skipped_ranges(t) - dq->skip_ranges_seen;
    uint64_t rest_bytes = gcev_trace_skipped_bytes(t) - dq->skip_bytes_seen;
    for (uint64_t i = 0; i < rest; i++) {
        gcev_stats_note_skipped(s, i == 0 ? rest_bytes : 0, now);
    }
    dq->skip_ranges_seen = gcev_trace_skipped_ranges(t);
    dq->skip_bytes_seen = gcev_trace_skipped_bytes(t);
}

static void deliver_until(gcev_stats *s, drop_queue *dq, double ms)
{
    size_t k = 0;
    while (k < dq->n && dq->q[k].ms <= ms) {
        if (dq->q[k].skip) {
            gcev_stats_note_skipped(s, dq->q[k].count, dq->q[k].ms);
        } else {
            gcev_stats_note_dropped(s, dq->q[k].count, dq->q[k].ms);
        }
        k++;
    }
    for (size_t i = k; i < dq->n; i++) {
        dq->q[i - k] = dq->q[i];
    }
    dq->n -= k;
}

gcev_status gcev_stats_read_trace(gcev_stats *s, gcev_trace *t, gcev_stats_progress_fn progress, void *ctx,
                                  gcev_error *err)
{
    if (!s || !t || s->finished) {
        return GCEV_E_INVALID_ARG;
    }
    const gcev_trace_info *info = gcev_trace_get_info(t);
    drop_queue dq = {NULL, 0, 0, 0, 0, 0, 0};
    uint64_t n = 0;
    gcev_trace_event ev;
    gcev_status st;
    while ((st = gcev_trace_next(t, &ev, err)) == GCEV_OK) {
        collect_drops(s, t, &dq, ev.ms);
        collect_skips(s, t, &dq, ev.ms, 0);
        deliver_until(s, &dq, ev.ms);
        gcev_status a = gcev_stats_add_trace_event(s, &ev);
        if (a == GCEV_E_NOMEM) {
            st = a;
            break;
        }
        /* other statuses are malformed GC payloads: counted by the model, skipped */
        if (progress && ++n % PROGRESS_EVERY == 0) {
            progress(ctx, n, ev.file_offset, info ? info->file_size : 0);
        }
    }
    /* the events a filter on t skipped (gcev_trace_set_filter: gcev stats skips those outside
     * the GC set) are events of the trace all the same: they count, and make its time span */
    double f_first, f_last;
    if (gcev_trace_filtered_span(t, &f_first, &f_last)) {
        gcev_stats_note_other_events(s, gcev_trace_filtered_events(t), f_first, f_last);
    }
    /* gaps found at the very end (a final sequence point) and those still queued */
    collect_drops(s, t, &dq, s->sum.last_ms);
    collect_skips(s, t, &dq, s->sum.last_ms, 1);
    deliver_until(s, &dq, 1e300);
    free(dq.q);
    gcev_status fin = gcev_stats_finish(s);
    if (st == GCEV_END) {
        st = fin;
    }
    if (st == GCEV_E_NOMEM && err) {
        err->code = st;
        err->offset = gcev_trace_bytes_read(t);
        err->field = NULL;
        err->message = gcev_status_str(st);
    }
    return st;
}
