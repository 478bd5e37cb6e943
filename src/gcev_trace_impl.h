/* SPDX-License-Identifier: MIT */
/*
 * What every container reader plugs into gcev_trace.c: detection of the format
 * from the first bytes, then a next()/destroy() pair. The shared parts (sticky
 * errors, drop records, time ordering, ms computation) live in gcev_trace.c.
 */
#ifndef GCEV_TRACE_IMPL_H
#define GCEV_TRACE_IMPL_H

#include "gcev_source.h"

typedef struct gcev_trace_ops {
    /* Next event in file order: GCEV_OK, GCEV_END, or an error with err->offset. */
    gcev_status (*next)(gcev_trace *t, gcev_trace_event *ev, gcev_error *err);
    void (*destroy)(gcev_trace *t);
} gcev_trace_ops;

/* Opens the container after detection; sets t->ops, t->impl and t->info. */
gcev_status gcev_nettrace_open(gcev_trace *t, gcev_error *err);
gcev_status gcev_etl_open(gcev_trace *t, gcev_error *err);

/* Format sniffing on the first bytes (at least 80 or all there is). */
int gcev_nettrace_detect(const uint8_t *head, size_t n);
int gcev_etl_detect(const uint8_t *head, size_t n);

/* Records a sequence gap (keeps at most 1024, counts all). */
void gcev_trace_note_drop(gcev_trace *t, const gcev_trace_drop *d);

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
    void *order;                /* timestamp-order state */
    /* set by a reader that resolves ev->provider itself (NULL then means unknown):
     * gcev_trace.c then skips its per-event look-up by name/GUID */
    int provider_resolved;
    /* set by a reader whose next() writes every member of the event itself,
     * so gcev_trace.c need not clear it first */
    int fills_event;
};

#endif
