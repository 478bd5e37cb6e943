/* SPDX-License-Identifier: MIT */
/*
 * Feeding a whole trace: every event into the model, and each growth of the
 * reader's dropped-event count reported at the time it was noticed, so the GCs
 * open across a loss are flagged (GC_EVENTS.md 4.14).
 */
#include "gcev_stats_internal.h"

/* Progress callbacks every 2^16 events: often enough for a terminal, rare enough to be free. */
enum { PROGRESS_EVERY = 1 << 16 };

gcev_status gcev_stats_read_trace(gcev_stats *s, gcev_trace *t, gcev_stats_progress_fn progress,
                                  void *ctx, gcev_error *err)
{
    if (!s || !t || s->finished) {
        return GCEV_E_INVALID_ARG;
    }
    const gcev_trace_info *info = gcev_trace_get_info(t);
    uint64_t dropped = gcev_trace_dropped_events(t);
    uint64_t n = 0;
    gcev_trace_event ev;
    gcev_status st;
    if (dropped) {
        gcev_stats_note_dropped(s, dropped, 0.0);
    }
    while ((st = gcev_trace_next(t, &ev, err)) == GCEV_OK) {
        uint64_t d = gcev_trace_dropped_events(t);
        if (d > dropped) {
            gcev_stats_note_dropped(s, d - dropped, ev.ms);
            dropped = d;
        }
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
    gcev_status fin = gcev_stats_finish(s);
    if (st == GCEV_END) {
        return fin;
    }
    if (st == GCEV_E_NOMEM && err) {
        err->code = st;
        err->message = gcev_status_str(st);
    }
    return st;
}
