/* SPDX-License-Identifier: MIT */
/*
 * The trace object every container reader fills: the reader plugs a
 * next()/destroy() pair into it, and reports sequence gaps and ordering barriers
 * through the two calls below. Readers sit above this unit and never call up
 * into the public trace API (trace/api), which is the only unit that names
 * every reader.
 */
#ifndef GCEV_TRACE_CORE_H
#define GCEV_TRACE_CORE_H

#include "gcev_archive.h"
#include "gcev_filter.h"
#include "gcev_source.h"

typedef struct gcev_trace_ops {
    /* Next event in file order: GCEV_OK, GCEV_END, or an error with err->offset. */
    gcev_status (*next)(gcev_trace *t, gcev_trace_event *ev, gcev_error *err);
    void (*destroy)(gcev_trace *t);
    /*
     * Keep-going (gcev_trace_options.keep_going), or NULL when the reader cannot: called
     * after next() failed with `fault` (a data fault: FORMAT, TRUNCATED_FILE, LIMIT,
     * UNSUPPORTED), it moves the reader to the next block/buffer it can read and sets
     * *from / *to to the file range it skips (to > from: each call must move past the
     * previous range, which keeps keep-going linear). Returns GCEV_OK (next() goes on from
     * there), GCEV_END (the rest of the input is skipped: *to is its end) or an error that
     * ends the trace (out of memory, a read error) with err set.
     */
    gcev_status (*resync)(gcev_trace *t, const gcev_error *fault, uint64_t *from, uint64_t *to,
                          gcev_error *err);
    /*
     * GCEV_TRACE_ORDER_STREAM, or NULL when the reader's format marks no watermarks: returns 1
     * and sets *ts to the newest timestamp at or below which every event of the input has been
     * returned by next() (INT64_MIN while none is known yet); 0 when this input has no such
     * marks (then ORDER_STREAM sorts as ORDER_TIME does).
     */
    int (*sorted_before)(const gcev_trace *t, int64_t *ts);
    /*
     * gcev_trace_next_lean, or NULL (trace/api then reads the full record): the next event in
     * file order into *lean, or (*full_filled set to 1) into *full when the reader has no lean
     * path for it; returns as next() does.
     */
    gcev_status (*next_lean)(gcev_trace *t, gcev_trace_lean *lean, gcev_trace_event *full, int *full_filled,
                             gcev_error *err);
    /* Fills *full for the event next_lean last put into a lean record (before any other call). */
    void (*lean_fill)(gcev_trace *t, gcev_trace_event *full);
    /*
     * gcev_trace_next_lean_batch, or NULL: up to cap lean records of events that have a kind,
     * from where the reader can give them lean (*k of them); stops at cap (GCEV_OK), where
     * it has no lean path (GCEV_END, with any *k: trace/api reads on the ordinary way) or
     * at a fault (its status; the *k events before it are returned first). Sets the struct_size
     * of every record it fills to evs[0].struct_size.
     */
    gcev_status (*next_lean_batch)(gcev_trace *t, gcev_trace_lean *evs, size_t cap, size_t *k,
                                   gcev_error *err);
    /* gcev_trace_kind_record for a kind the reader gave, or NULL when its events have none. */
    const gcev_trace_event *(*kind_record)(const gcev_trace *t, const void *kind);
} gcev_trace_ops;

enum { GCEV_MAX_DROPS = 1024, GCEV_MAX_SKIPS = 1024 };

/* Records a sequence gap (keeps at most GCEV_MAX_DROPS, counts all). */
void gcev_trace_note_drop(gcev_trace *t, const gcev_trace_drop *d);

/*
 * Records a skipped range [from, to) of the input and the fault that made it (keeps at most
 * GCEV_MAX_SKIPS, merging one that starts where the previous one ended with the same fault;
 * counts all). For readers that skip on their own (CTF); the others return ranges from
 * ops->resync, which trace/api records.
 */
void gcev_trace_note_skip(gcev_trace *t, uint64_t from, uint64_t to, const gcev_error *fault);
/*
 * Keep-going: records damage read past without skipping a byte (a block or buffer whose size
 * field is wrong, read to the end the reader proved instead): a range of 0 bytes at `at` with
 * the fault, and no timestamp, since no event was lost there.
 */
void gcev_trace_note_repair(gcev_trace *t, uint64_t at, const gcev_error *fault);
/*
 * Keep-going: after the reader's fault `st` (*e) from reader->next(), asks reader->resync for
 * the next place to read, records the range it skips and reads on with reader->next(). Returns the status of
 * the next event read (GCEV_OK with *ev filled), GCEV_END when the rest of the input was
 * skipped, or the fault itself when the reader cannot resynchronise. Every range must start at
 * or after the end of the previous one and not be empty, so the loop ends with the input.
 */
gcev_status gcev_trace_resume(gcev_trace *t, gcev_status st, gcev_error *e, gcev_trace_event *ev,
                              const gcev_trace_ops *reader);
/* Gives the ranges recorded since the last call the timestamp of the event read after them. */
void gcev_trace_skips_reached(gcev_trace *t, int64_t timestamp);
/* Whether a status is a fault in the data that keep-going reads past. */
static inline int gcev_trace_skippable(gcev_status st)
{
    return st == GCEV_E_FORMAT || st == GCEV_E_TRUNCATED_FILE || st == GCEV_E_LIMIT ||
           st == GCEV_E_UNSUPPORTED;
}

/* An ordering barrier (see gcev_order.h); a no-op unless the trace is in timestamp order. */
void gcev_trace_sequence_point(gcev_trace *t);

struct gcev_trace {
    const gcev_trace_ops *ops;
    void *impl;
    gcev_source src;
    gcev_trace_info info;
    gcev_trace_options opts;
    /* filled by gcev_trace.c */
    gcev_status sticky;
    gcev_error sticky_err;
    uint64_t dropped_total;
    gcev_trace_drop *drops;
    size_t ndrops;
    void *order;   /* timestamp-order state (gcev_order.h) */
    void *reorder; /* GCEV_TRACE_ORDER_STREAM state (gcev_reorder.h) */
    /* set by a reader that resolves ev->provider itself (NULL then means unknown):
     * gcev_trace.c then skips its per-event look-up by name/GUID */
    int provider_resolved;
    /* set by a reader whose next() writes every member of the event itself,
     * so gcev_trace.c need not clear it first */
    int fills_event;
    /* the ZIP archive src is an entry of, or NULL; a reader may open more of its
     * entries (gcev_archive.h); closed with the trace */
    gcev_archive *archive;
    /* text of an error message that names data (archive entries, offsets inside
     * an inflated buffer): err->message may point here; lives with the trace */
    char msg[512];
    /* set by a reader whose next() already yields timestamp order (CTF merges its
     * per-CPU streams): GCEV_TRACE_ORDER_TIME then needs no reordering */
    int time_ordered;
    /* set by a reader whose next() writes every member of the event (no_event_id and
     * process_name too), sets ev->ms (gcev_trace_ms) and resolves ev->provider itself,
     * so gcev_trace.c leaves the event alone */
    int finishes_event;
    /* info.clock_frequency as a double, and the value it was made from (gcev_trace_ms) */
    double freq_d;
    uint64_t freq_of_d;
    /* keep-going: the skipped ranges (gcev_trace_note_skip); skips[i].message points
     * into skip_text[i] */
    gcev_trace_skip *skips;
    char (*skip_text)[256];
    size_t nskips;
    size_t skips_untimed; /* skips[skips_untimed..nskips) wait for the next event's timestamp */
    uint64_t skip_floor;  /* where the last range ended: the next one starts there or later */
    uint64_t skipped_ranges, skipped_bytes;
    /* keep-going over an archive entry: the most bytes it may skip (0: no bound), so that a
     * small archive inflating to gigabytes behind a valid header is not searched to its end
     * (GCEV_SKIP_BUDGET_*); gcev_trace_resume ends the trace with GCEV_E_LIMIT past it */
    uint64_t skip_budget;
    /* gcev_trace_set_filter: the compiled filter (NULL: every event), and its generation,
     * which a reader's cached verdict (per metadata record, per event class) must equal */
    /* gcev_trace_next_lean: the full record of its last event (lean_state 1: filled; 2: the
     * reader's lean_fill fills it when asked; 0: none) */
    gcev_trace_event lean_full;
    int lean_state;
    int lean_fast; /* set at open: ops->next_lean, file order, a reader that finishes events */
    /* gcev_trace_next's hot path may be taken: file order, a reader that finishes events,
     * no sticky status and no fault pending from a batch (trace_fast_update) */
    int next_fast;
    /* gcev_trace_next_lean_batch: a fault met after the events of a batch, for the next call */
    gcev_status lean_pending;
    gcev_error lean_pending_err;
    gcev_filter *filter;
    uint32_t filter_gen;
    /* the events it skipped: how many, and the least and greatest wrapped difference
     * timestamp - sync_time_qpc among them (what gcev_trace_ms orders by) */
    uint64_t filtered;
    int64_t filtered_min_d, filtered_max_d;
};

/* A reader skipped an event of timestamp ts (gcev_trace_filtered_events / _span). */
static inline void gcev_trace_note_filtered(gcev_trace *t, int64_t ts)
{
    if (t->skips_untimed < t->nskips) {
        gcev_trace_skips_reached(t, ts); /* the first event read after a skipped range */
    }
    int64_t d = (int64_t)((uint64_t)ts - (uint64_t)t->info.sync_time_qpc);
    if (t->filtered++ == 0) {
        t->filtered_min_d = t->filtered_max_d = d;
        return;
    }
    t->filtered_min_d = d < t->filtered_min_d ? d : t->filtered_min_d;
    t->filtered_max_d = d > t->filtered_max_d ? d : t->filtered_max_d;
}

/* The bound on keep-going's skipped bytes in an archive entry: 16 MiB plus 8 bytes per byte
 * the entry takes in the archive (its damage may span what it holds, once it is inflated
 * at a usual ratio; a deflate bomb inflates 1000 times its size). */
enum { GCEV_SKIP_BUDGET_BASE = 16u << 20, GCEV_SKIP_BUDGET_PER_BYTE = 8 };

/* ms of a timestamp: (ts - sync_time_qpc) * 1000 / clock_frequency, 0 without a clock. */
static inline double gcev_trace_ms(gcev_trace *t, int64_t ts)
{
    if (!t->info.clock_frequency) {
        return 0.0;
    }
    /* the frequency as a double, converted once (uint64 -> double is costly on x86-64) */
    if (t->info.clock_frequency != t->freq_of_d) {
        t->freq_of_d = t->info.clock_frequency;
        t->freq_d = (double)t->info.clock_frequency;
    }
    /* Wrapping difference: hostile timestamps must not overflow (UB) here. */
    int64_t d = (int64_t)((uint64_t)ts - (uint64_t)t->info.sync_time_qpc);
    return (double)d * 1000.0 / t->freq_d;
}

#endif
