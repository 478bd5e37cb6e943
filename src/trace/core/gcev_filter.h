/* SPDX-License-Identifier: MIT */
/*
 * A caller's gcev_trace_filter compiled for the readers: provider texts resolved once
 * (GUID, compiled provider), and one predicate over the members an event's header or
 * metadata gives (provider, id, version, level, keywords). Readers cache its verdict per
 * metadata record or event class (gcev_trace.filter_gen tells when a verdict is stale).
 */
#ifndef GCEV_FILTER_H
#define GCEV_FILTER_H

#include <gcev/gcev_trace.h>

typedef struct gcev_filter_provider {
    char *name; /* NULL when given as a GUID */
    gcev_guid guid;
    uint8_t has_guid;
    const gcev_provider *compiled; /* the compiled provider the name or GUID names, or NULL */
} gcev_filter_provider;

typedef struct gcev_filter {
    uint32_t flags;
    int select_all; /* no set, provider or pair named: every event is in the selection */
    gcev_filter_provider *providers;
    size_t nproviders;
    gcev_filter_provider *event_providers; /* of events[i] */
    uint16_t *event_ids;
    size_t nevents;
    uint64_t keywords;
    uint8_t max_level;
} gcev_filter;

/* Compiles f (copies its strings); GCEV_E_INVALID_ARG / GCEV_E_NOMEM with err set. */
gcev_status gcev_filter_compile(const gcev_trace_filter *f, gcev_filter **out, gcev_error *err);
void gcev_filter_free(gcev_filter *f);

/*
 * 1 when f keeps the event: reads provider_name, provider_guid/has_provider_guid, provider,
 * event_id, version, level/has_level, keywords and no_event_id of ev, nothing else.
 */
int gcev_filter_match(const gcev_filter *f, const gcev_trace_event *ev);

#endif
