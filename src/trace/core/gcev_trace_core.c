/* SPDX-License-Identifier: MIT */
/* What readers report into the trace object: sequence gaps and ordering barriers. */
#include "gcev_trace_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcev_order.h"

void gcev_trace_note_drop(gcev_trace *t, const gcev_trace_drop *d)
{
    t->dropped_total += d->dropped;
    if (t->ndrops >= GCEV_MAX_DROPS) {
        return;
    }
    if (!t->drops) {
        t->drops = malloc(GCEV_MAX_DROPS * sizeof *t->drops);
        if (!t->drops) {
            return; /* the total stays right; only the detail is lost */
        }
    }
    t->drops[t->ndrops++] = *d;
}

void gcev_trace_note_skip(gcev_trace *t, uint64_t from, uint64_t to, const gcev_error *fault)
{
    uint64_t bytes = to > from ? to - from : 0;
    const char *msg = fault->message ? fault->message : gcev_status_str(fault->code);
    t->skipped_bytes += bytes;
    if (t->nskips) {
        gcev_trace_skip *p = &t->skips[t->nskips - 1];
        /* a run of faults of one kind (events of unknown metadata, one after another) is one range */
        if (p->offset + p->bytes == from && p->status == fault->code && t->nskips > t->skips_untimed &&
            !p->has_timestamp && t->skips != NULL &&
            strncmp(p->message, msg, sizeof t->skip_text[0] - 1) == 0) {
            p->bytes += bytes;
            return;
        }
    }
    t->skipped_ranges++;
    if (t->nskips >= GCEV_MAX_SKIPS) {
        return;
    }
    if (!t->skips) {
        t->skips = malloc(GCEV_MAX_SKIPS * sizeof *t->skips);
        t->skip_text = malloc(GCEV_MAX_SKIPS * sizeof *t->skip_text);
        if (!t->skips || !t->skip_text) {
            free(t->skips);
            free(t->skip_text);
            t->skips = NULL;
            t->skip_text = NULL;
            return; /* the totals stay right; only the detail is lost */
        }
    }
    gcev_trace_skip *k = &t->skips[t->nskips];
    snprintf(t->skip_text[t->nskips], sizeof t->skip_text[0], "%s", msg);
    k->offset = from;
    k->bytes = bytes;
    k->status = fault->code;
    k->fault_offset = fault->offset;
    k->message = t->skip_text[t->nskips];
    k->timestamp = 0;
    k->has_timestamp = 0;
    t->nskips++;
}

void gcev_trace_note_repair(gcev_trace *t, uint64_t at, const gcev_error *fault)
{
    size_t before = t->nskips;
    gcev_trace_note_skip(t, at, at, fault);
    if (t->nskips > before && t->skips_untimed == before) {
        t->skips_untimed = t->nskips; /* nothing lost: no event's timestamp marks it */
    }
}

void gcev_trace_skips_reached(gcev_trace *t, int64_t timestamp)
{
    for (size_t i = t->skips_untimed; i < t->nskips; i++) {
        t->skips[i].timestamp = timestamp;
        t->skips[i].has_timestamp = 1;
    }
    t->skips_untimed = t->nskips;
}

void gcev_trace_sequence_point(gcev_trace *t)
{
    if (t && t->order) {
        gcev_order_barrier((gcev_order *)t->order);
    }
}

/* Keep-going's bound on skipped bytes reached (an archive bomb, or an entry mostly damaged). */
static gcev_status skip_bound(gcev_trace *t, uint64_t at, gcev_error *e)
{
    snprintf(t->msg, sizeof t->msg,
             "keep-going stopped: skipping damage would inflate more than %llu bytes of this "
             "archive entry (16 MiB + 8 per byte it takes in the archive)",
             (unsigned long long)t->skip_budget);
    e->code = GCEV_E_LIMIT;
    e->offset = at;
    e->field = NULL;
    e->message = t->msg;
    return GCEV_E_LIMIT;
}

gcev_status gcev_trace_resume(gcev_trace *t, gcev_status st, gcev_error *e, gcev_trace_event *ev,
                              const gcev_trace_ops *reader)
{
    while (gcev_trace_skippable(st) && reader->resync) {
        /* the reader may reuse the storage of the fault's message while it resynchronises */
        char text[sizeof t->msg];
        gcev_error fault = *e;
        snprintf(text, sizeof text, "%s", e->message ? e->message : gcev_status_str(st));
        fault.message = text;
        uint64_t from = 0, to = 0;
        gcev_error re = {0};
        if (t->skip_budget) {
            t->src.scan_limited = 1;
            t->src.scan_left = t->skip_budget > t->skipped_bytes ? t->skip_budget - t->skipped_bytes : 0;
        }
        gcev_status rs = reader->resync(t, &fault, &from, &to, &re);
        t->src.scan_limited = 0;
        if (rs == GCEV_E_LIMIT && t->skip_budget && t->src.scan_left == 0) {
            return skip_bound(t, re.offset, e);
        }
        if (rs != GCEV_OK && rs != GCEV_END) {
            *e = re;
            return rs;
        }
        if (from < t->skip_floor || (rs == GCEV_OK && to <= from)) {
            return st; /* no progress: a reader defect, never an endless loop */
        }
        gcev_trace_note_skip(t, from, to, &fault);
        t->skip_floor = to;
        if (t->skip_budget && t->skipped_bytes > t->skip_budget) {
            return skip_bound(t, to, e);
        }
        if (rs == GCEV_END) {
            e->message = NULL;
            return GCEV_END;
        }
        if (!t->fills_event) {
            memset(ev, 0, sizeof *ev);
        }
        e->message = NULL;
        st = reader->next(t, ev, e);
        if (st == GCEV_OK) {
            gcev_trace_skips_reached(t, ev->timestamp);
        }
    }
    return st;
}
