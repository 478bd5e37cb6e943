/* SPDX-License-Identifier: MIT */
/*
 * gcev_trace_set_filter in the EventPipe reader (NetPerf V1-V3, NetTrace V4-V6, compressed
 * and not, file and timestamp order) and, with ../shared, in every reader on the corpus
 * traces (.nettrace, .netperf, .etl, CTF): the filtered walk returns exactly the events of
 * the unfiltered walk the filter selects, identical (filter_check.h). The ETL reader's own
 * cases are in test_etl.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>

#include "filter_check.h"
#include "testutil.h"
#include "trace_sample.h"

static const uint32_t versions[][2] = {{1, 0}, {2, 0}, {3, 0}, {4, 1}, {4, 0},
                                       {5, 1}, {5, 0}, {6, 1}, {6, 0}};

typedef struct mem {
    const uint8_t *data;
    size_t size;
} mem;

static gcev_status open_mem(void *ctx, const gcev_trace_options *o, gcev_trace **t)
{
    const mem *m = ctx;
    return gcev_trace_open_memory(m->data, m->size, o, t, NULL);
}

static gcev_status open_path(void *ctx, const gcev_trace_options *o, gcev_trace **t)
{
    return gcev_trace_open_file(ctx, o, t, NULL);
}

/* The test's own predicates, one per filter. */
static int keep_gc(const gcev_trace_event *ev, void *ctx)
{
    (void)ctx;
    return ev->provider && !ev->no_event_id &&
           gcev_event_desc_resolve(ev->provider, ev->event_id, ev->version, NULL);
}

/* the provider named ctx, or (ctx NULL) the V1 sample's EventSource, known by GUID only */
static int keep_named(const gcev_trace_event *ev, void *ctx)
{
    if (!ctx) {
        gcev_guid g;
        assert_true(gcev_guid_parse(SAMPLE_V1_GUID, &g));
        return ev->has_provider_guid && memcmp(&g, &ev->provider_guid, sizeof g) == 0;
    }
    return ev->provider_name && strcasecmp(ev->provider_name, ctx) == 0;
}

/* by name: the compiled provider, or an event that names it without being compiled (CTF) */
static int keep_runtime(const gcev_trace_event *ev, void *ctx)
{
    (void)ctx;
    const char *rt = "Microsoft-Windows-DotNETRuntime";
    return ev->provider == gcev_provider_find(rt) ||
           (ev->provider_name && strcasecmp(ev->provider_name, rt) == 0);
}

static int keep_runtime_id1(const gcev_trace_event *ev, void *ctx)
{
    return keep_runtime(ev, ctx) && ev->event_id == 1 && !ev->no_event_id;
}

static int keep_keyword1(const gcev_trace_event *ev, void *ctx)
{
    (void)ctx;
    return (ev->keywords & 1) != 0;
}

static int keep_level3(const gcev_trace_event *ev, void *ctx)
{
    (void)ctx;
    return !ev->has_level || ev->level <= 3;
}

static gcev_trace_filter filter_of(uint32_t flags)
{
    gcev_trace_filter f;
    memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    f.flags = flags;
    return f;
}

/* The sample (2 GCStart_V2 of the runtime, 4 EventSource events of "MySource") under each filter. */
static void test_filter_eventpipe_every_version_returns_the_selected_events_unchanged(void **state)
{
    (void)state;
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        for (uint32_t order = GCEV_TRACE_ORDER_FILE; order <= GCEV_TRACE_ORDER_TIME; order++) {
            mem m;
            size_t size;
            uint8_t *data = sample_trace(versions[v][0], (int)versions[v][1], &size);
            assert_non_null(data);
            m.data = data;
            m.size = size;
            size_t skipped;

            gcev_trace_filter f = filter_of(GCEV_TRACE_FILTER_GC);
            assert_int_equal(filter_check(open_mem, &m, order, &f, keep_gc, NULL, &skipped), 2);
            assert_int_equal(skipped, 4);

            const char *es = versions[v][0] == 1 ? SAMPLE_V1_GUID : "mysource"; /* any case */
            f = filter_of(0);
            f.providers = &es;
            f.nproviders = 1;
            assert_int_equal(filter_check(open_mem, &m, order, &f, keep_named,
                                          versions[v][0] == 1 ? NULL : "MySource", &skipped) +
                                 skipped,
                             SAMPLE_EVENTS);
            assert_int_equal(skipped, 2);

            /* the runtime by GUID text, the pair (runtime, 1) by name */
            const char *rt = "{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}";
            f = filter_of(0);
            f.providers = &rt;
            f.nproviders = 1;
            assert_int_equal(filter_check(open_mem, &m, order, &f, keep_runtime, NULL, NULL), 2);
            gcev_trace_filter_event pair = {"Microsoft-Windows-DotNETRuntime", 1};
            f = filter_of(0);
            f.events = &pair;
            f.nevents = 1;
            assert_int_equal(filter_check(open_mem, &m, order, &f, keep_runtime_id1, NULL, NULL), 2);

            /* keywords and level narrow the selection (every event here: all of them) */
            f = filter_of(0);
            f.keywords = 1;
            assert_int_equal(filter_check(open_mem, &m, order, &f, keep_keyword1, NULL, NULL), 2);
            f = filter_of(0);
            f.max_level = 3; /* every sample event is Informational (4) */
            assert_int_equal(filter_check(open_mem, &m, order, &f, keep_level3, NULL, &skipped), 0);
            assert_int_equal(skipped, SAMPLE_EVENTS);
            free(data);
        }
    }
}

static void test_filter_bad_arguments_are_refused_and_null_removes_it(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = sample_trace(5, 1, &size);
    assert_non_null(data);
    gcev_trace *t;
    assert_int_equal(gcev_trace_open_memory(data, size, NULL, &t, NULL), GCEV_OK);
    gcev_trace_filter f = filter_of(GCEV_TRACE_FILTER_GC);
    gcev_error err = {0};
    assert_int_equal(gcev_trace_set_filter(NULL, &f, &err), GCEV_E_INVALID_ARG);
    f.struct_size = 2; /* smaller than any layout */
    assert_int_equal(gcev_trace_set_filter(t, &f, &err), GCEV_E_INVALID_ARG);
    assert_non_null(err.message);
    f.struct_size = 0; /* the first layout: accepted */
    assert_int_equal(gcev_trace_set_filter(t, &f, &err), GCEV_OK);
    f = filter_of(1u << 7);
    assert_int_equal(gcev_trace_set_filter(t, &f, &err), GCEV_E_INVALID_ARG);
    const char *none[] = {NULL}, *empty[] = {""};
    f = filter_of(0);
    f.providers = none;
    f.nproviders = 1;
    assert_int_equal(gcev_trace_set_filter(t, &f, &err), GCEV_E_INVALID_ARG);
    f.providers = empty;
    assert_int_equal(gcev_trace_set_filter(t, &f, &err), GCEV_E_INVALID_ARG);
    f.providers = NULL;
    assert_int_equal(gcev_trace_set_filter(t, &f, &err), GCEV_E_INVALID_ARG);
    f = filter_of(0);
    f.nevents = 2;
    assert_int_equal(gcev_trace_set_filter(t, &f, &err), GCEV_E_INVALID_ARG);
    /* a filter that keeps nothing, then NULL: every event again */
    f = filter_of(0);
    f.max_level = 1;
    assert_int_equal(gcev_trace_set_filter(t, &f, &err), GCEV_OK);
    assert_int_equal(gcev_trace_set_filter(t, NULL, &err), GCEV_OK);
    gcev_trace_event ev;
    int n = 0;
    while (gcev_trace_next(t, &ev, &err) == GCEV_OK) {
        n++;
    }
    assert_int_equal(n, SAMPLE_EVENTS);
    assert_int_equal(gcev_trace_filtered_events(t), 0);
    gcev_trace_close(t);
    free(data);
}

/* Every reader on the corpus traces: the GC set, and the runtime provider by name. */
static void test_filter_corpus_traces_every_reader(void **state)
{
    (void)state;
    const char *shared = testutil_shared_dir();
    if (!shared) {
        skip();
    }
    static const char *const names[] = {
        "eventpipe-dotnetcore3.0-win-x64-objver4.nettrace",
        "eventpipe-dotnetcore2.1-win-x86-objver3.netperf",
        "eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace",
        "eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf",
        "gcrundownevents.etl",
        "primitive-types.etl",
        "compressed-SelfDescribingSingleEvent.etl",
        "lttng-clr-only.trace.zip",
        "lttng-netcoreapp22.trace.zip",
        "lttng-kernel-only.trace.zip",
    };
    size_t total_kept = 0, total_skipped = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[4096];
#ifndef GCEV_TEST_LIBZIP
        if (strstr(names[i], ".zip")) {
            continue; /* this build reads no ZIP archive */
        }
#endif
        snprintf(path, sizeof path, "%s/corpus/%s", shared, names[i]);
        for (uint32_t order = GCEV_TRACE_ORDER_FILE; order <= GCEV_TRACE_ORDER_TIME; order++) {
            size_t skipped;
            gcev_trace_filter f = filter_of(GCEV_TRACE_FILTER_GC);
            total_kept += filter_check(open_path, path, order, &f, keep_gc, NULL, &skipped);
            total_skipped += skipped;
            const char *rt = "Microsoft-Windows-DotNETRuntime";
            f = filter_of(0);
            f.providers = &rt;
            f.nproviders = 1;
            filter_check(open_path, path, order, &f, keep_runtime, NULL, NULL);
        }
    }
    assert_true(total_kept > 0);
    assert_true(total_skipped > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_eventpipe_every_version_returns_the_selected_events_unchanged),
        cmocka_unit_test(test_filter_bad_arguments_are_refused_and_null_removes_it),
        cmocka_unit_test(test_filter_corpus_traces_every_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
