/* SPDX-License-Identifier: MIT */
/* The filter tests' oracle (filter_check.h). */
#include "filter_check.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* An event of the unfiltered walk, its views copied. */
typedef struct rec {
    gcev_trace_event ev;
    char *provider_name, *event_name, *process_name;
    uint8_t *payload, *stack;
} rec;

static char *dup_s(const char *s)
{
    if (!s) {
        return NULL;
    }
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    assert_non_null(d);
    memcpy(d, s, n);
    return d;
}

static uint8_t *dup_b(const uint8_t *p, size_t n)
{
    if (!p || !n) {
        return NULL;
    }
    uint8_t *d = malloc(n);
    assert_non_null(d);
    memcpy(d, p, n);
    return d;
}

static void str_equal(const char *a, const char *b)
{
    if (!a || !b) {
        assert_true(a == b);
    } else {
        assert_string_equal(a, b);
    }
}

static void bytes_equal(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    assert_int_equal(na, nb);
    if (na) {
        assert_non_null(a);
        assert_non_null(b);
        assert_memory_equal(a, b, na);
    }
}

/* Every member of the filtered walk's event x equals the unfiltered one's. */
static void event_equal(const rec *r, const gcev_trace_event *x)
{
    const gcev_trace_event *e = &r->ev;
    str_equal(r->provider_name, x->provider_name);
    assert_memory_equal(&e->provider_guid, &x->provider_guid, sizeof e->provider_guid);
    assert_int_equal(e->has_provider_guid, x->has_provider_guid);
    assert_ptr_equal(e->provider, x->provider);
    assert_int_equal(e->event_id, x->event_id);
    assert_int_equal(e->version, x->version);
    str_equal(r->event_name, x->event_name);
    assert_int_equal(e->opcode, x->opcode);
    assert_int_equal(e->level, x->level);
    assert_int_equal(e->has_opcode, x->has_opcode);
    assert_int_equal(e->has_level, x->has_level);
    assert_int_equal(e->keywords, x->keywords);
    assert_int_equal(e->process_id, x->process_id);
    assert_int_equal(e->thread_id, x->thread_id);
    assert_int_equal(e->capture_thread_id, x->capture_thread_id);
    assert_int_equal(e->processor, x->processor);
    assert_int_equal(e->sequence, x->sequence);
    assert_int_equal(e->timestamp, x->timestamp);
    assert_memory_equal(&e->ms, &x->ms, sizeof e->ms);
    assert_memory_equal(&e->activity_id, &x->activity_id, sizeof e->activity_id);
    assert_memory_equal(&e->related_activity_id, &x->related_activity_id, sizeof e->related_activity_id);
    assert_int_equal(e->has_activity_id, x->has_activity_id);
    assert_int_equal(e->has_related_activity_id, x->has_related_activity_id);
    assert_int_equal(e->pointer_size, x->pointer_size);
    bytes_equal(r->payload, e->payload_size, x->payload, x->payload_size);
    bytes_equal(r->stack, e->stack_size, x->stack, x->stack_size);
    assert_int_equal(e->nfields, x->nfields);
    assert_int_equal(e->file_offset, x->file_offset);
    assert_int_equal(e->field_type_system, x->field_type_system);
    assert_int_equal(e->no_event_id, x->no_event_id);
    str_equal(r->process_name, x->process_name);
}

void check_events_equal(const gcev_trace_event *want, const gcev_trace_event *got)
{
    rec r;
    r.ev = *want;
    r.provider_name = (char *)want->provider_name;
    r.event_name = (char *)want->event_name;
    r.process_name = (char *)want->process_name;
    r.payload = (uint8_t *)want->payload;
    r.stack = (uint8_t *)want->stack;
    event_equal(&r, got);
    assert_int_equal(want->kind != NULL, got->kind != NULL); /* (a kind is its trace's own) */
}

size_t filter_check(filter_open_fn open, void *octx, uint32_t order, const gcev_trace_filter *f,
                    filter_keep_fn keep, void *kctx, size_t *skipped)
{
    gcev_trace_options o = {.struct_size = sizeof o, .order = order};
    gcev_trace *t;
    assert_int_equal(open(octx, &o, &t), GCEV_OK);
    rec *recs = NULL;
    size_t n = 0, cap = 0, nkeep = 0, nskip = 0;
    double lo = 0, hi = 0;
    gcev_trace_event ev;
    gcev_error err0 = {0}, err1 = {0};
    gcev_status st0, st1;
    while ((st0 = gcev_trace_next(t, &ev, &err0)) == GCEV_OK) {
        if (!keep(&ev, kctx)) {
            lo = nskip == 0 || ev.ms < lo ? ev.ms : lo;
            hi = nskip == 0 || ev.ms > hi ? ev.ms : hi;
            nskip++;
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            recs = realloc(recs, cap * sizeof *recs);
            assert_non_null(recs);
        }
        rec *r = &recs[n++];
        r->ev = ev;
        r->provider_name = dup_s(ev.provider_name);
        r->event_name = dup_s(ev.event_name);
        r->process_name = dup_s(ev.process_name);
        r->payload = dup_b(ev.payload, ev.payload_size);
        r->stack = dup_b(ev.stack, ev.stack_size);
    }
    assert_int_equal(gcev_trace_filtered_events(t), 0);
    assert_int_equal(gcev_trace_filtered_span(t, NULL, NULL), 0);
    const uint64_t dropped0 = gcev_trace_dropped_events(t);
    gcev_trace_close(t);

    assert_int_equal(open(octx, &o, &t), GCEV_OK);
    assert_int_equal(gcev_trace_set_filter(t, f, NULL), GCEV_OK);
    while ((st1 = gcev_trace_next(t, &ev, &err1)) == GCEV_OK) {
        assert_true(nkeep < n);
        event_equal(&recs[nkeep], &ev);
        nkeep++;
    }
    assert_int_equal(nkeep, n);
    assert_int_equal(st1, st0);
    assert_int_equal(err1.offset, err0.offset);
    assert_int_equal(gcev_trace_dropped_events(t), dropped0); /* skipped events' sequence numbers count */
    assert_int_equal(gcev_trace_filtered_events(t), nskip);
    double a = -1, b = -1;
    assert_int_equal(gcev_trace_filtered_span(t, &a, &b), nskip != 0);
    if (nskip) {
        assert_memory_equal(&a, &lo, sizeof a);
        assert_memory_equal(&b, &hi, sizeof b);
    }
    gcev_trace_close(t);
    for (size_t i = 0; i < n; i++) {
        free(recs[i].provider_name);
        free(recs[i].event_name);
        free(recs[i].process_name);
        free(recs[i].payload);
        free(recs[i].stack);
    }
    free(recs);
    if (skipped) {
        *skipped = nskip;
    }
    return nkeep;
}
