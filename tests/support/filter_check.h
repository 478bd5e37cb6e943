/* SPDX-License-Identifier: MIT */
/*
 * The filter tests' oracle (gcev_trace_set_filter): a trace walked without a filter and with
 * one must give the same events, member by member, minus those the test's own predicate says
 * the filter skips; the skipped ones are counted, and their time span given, by the trace.
 */
#ifndef GCEV_FILTER_CHECK_H
#define GCEV_FILTER_CHECK_H

#include <gcev/gcev_trace.h>

/* Opens the test's trace with o into *t. */
typedef gcev_status (*filter_open_fn)(void *ctx, const gcev_trace_options *o, gcev_trace **t);
/* The test's own verdict: 1 when the event is one the filter must return. */
typedef int (*filter_keep_fn)(const gcev_trace_event *ev, void *ctx);

/*
 * Walks the trace (opened with `order`) unfiltered, then with f, and fails the test unless the
 * filtered walk returns exactly the unfiltered events keep() accepts, in the same order and
 * identical, ends with the same status and error offset, and reports the others through
 * gcev_trace_filtered_events() / gcev_trace_filtered_span(). Returns the events kept; *skipped
 * (may be NULL) gets those skipped.
 */
size_t filter_check(filter_open_fn open, void *octx, uint32_t order, const gcev_trace_filter *f,
                    filter_keep_fn keep, void *kctx, size_t *skipped);

/* Fails the test unless every member of got equals want's (views compared by content). */
void check_events_equal(const gcev_trace_event *want, const gcev_trace_event *got);

#endif
