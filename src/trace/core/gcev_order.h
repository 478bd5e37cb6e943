/* SPDX-License-Identifier: MIT */
/*
 * Timestamp ordering for GCEV_TRACE_ORDER_TIME, shared by every container reader.
 *
 * Model: the reader yields events in file order; each event belongs to a
 * stream (its capture thread) inside which timestamps never go back. The reader
 * calls gcev_trace_sequence_point() whenever it knows that no later event can
 * be older than any earlier one (EventPipe sequence points). Between two such
 * barriers the events are buffered (copied), then released by a k-way merge of
 * the per-stream runs: O(N log T) time, O(events between barriers) memory.
 *
 * Readers without such barriers (ETL) get a bounded reorder window: once
 * `window` events or `max_bytes` bytes are buffered a barrier is forced, so
 * memory stays bounded and events are sorted within each chunk. A reader that
 * knows better barriers (e.g. the end of a round of per-CPU buffers) calls
 * gcev_trace_sequence_point() there.
 *
 * Copied: payload, stack, provider and event names. Not copied: the field
 * trees (ev->fields), which readers must keep alive until close.
 */
#ifndef GCEV_ORDER_H
#define GCEV_ORDER_H

#include <gcev/gcev_trace.h>

typedef struct gcev_order gcev_order;

/* NULL when out of memory. window/max_bytes: 0 = defaults (1M events, 256 MiB). */
gcev_order *gcev_order_create(size_t window, size_t max_bytes);
void gcev_order_destroy(gcev_order *o);
/* Buffers a copy of ev (GCEV_E_NOMEM on failure). */
gcev_status gcev_order_push(gcev_order *o, const gcev_trace_event *ev);
/* Every event pushed so far may be released. */
void gcev_order_barrier(gcev_order *o);
/* Next released event in timestamp order: 1, 0 when none is releasable now,
 * -1 when memory ran out preparing a merge (then the trace must fail). */
int gcev_order_pop(gcev_order *o, gcev_trace_event *ev);

#endif
