/* SPDX-License-Identifier: MIT */
/* What readers report into the trace object: sequence gaps and ordering barriers. */
#include "gcev_trace_core.h"

#include <stdlib.h>

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

void gcev_trace_sequence_point(gcev_trace *t)
{
    if (t && t->order) {
        gcev_order_barrier((gcev_order *)t->order);
    }
}
