/* SPDX-License-Identifier: MIT */
/*
 * Timestamp order released at the writer's watermarks, for GCEV_TRACE_ORDER_STREAM.
 *
 * A live EventPipe stream is in timestamp order only per thread, and its sequence
 * points come every few MB, so waiting for them (gcev_order.h) would hold a quiet
 * session's events for minutes. But every ~100 ms flush the runtime marks the first
 * event it writes of each thread as "sorted": no event older than it is still to
 * come (ep-buffer-manager.c, mechanism #2 of ep_buffer_manager_write_all_buffers_to_file_v4).
 * So events wait in a min-heap keyed by (timestamp, arrival) and leave it once
 * their timestamp is at or below the newest such watermark: the latency is one
 * flush, the memory the events of one flush (bounded: past `window` events or
 * `max_bytes` bytes the oldest leave early).
 *
 * Copied per event: payload, stack, provider, event and process names. Not copied:
 * field trees and ev->kind, which readers keep alive until close.
 */
#ifndef GCEV_REORDER_H
#define GCEV_REORDER_H

#include <gcev/gcev_trace.h>

typedef struct gcev_reorder gcev_reorder;

/* NULL when out of memory. window/max_bytes: 0 = defaults (1M events, 256 MiB). */
gcev_reorder *gcev_reorder_create(size_t window, size_t max_bytes);
void gcev_reorder_destroy(gcev_reorder *r);
/* Holds a copy of ev (GCEV_E_NOMEM on failure: nothing is held then). */
gcev_status gcev_reorder_push(gcev_reorder *r, const gcev_trace_event *ev);
/* Every event with a timestamp <= ts may leave (watermarks only grow: a lower one is ignored). */
void gcev_reorder_release_to(gcev_reorder *r, int64_t ts);
/* Every event held may leave (the end of the input). */
void gcev_reorder_release_all(gcev_reorder *r);
/* The oldest event that may leave, into *ev (valid until the next call): 1, or 0 when none may. */
int gcev_reorder_pop(gcev_reorder *r, gcev_trace_event *ev);

#endif
