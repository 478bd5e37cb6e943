/* SPDX-License-Identifier: MIT */
/*
 * gcev_trace_next_lean, gcev_trace_next_lean_batch, gcev_trace_lean_event and
 * gcev_trace_kind_record against gcev_trace_next: the same trace read both ways at once (two
 * traces over the same bytes) gives the same events, the same end or fault at the same
 * offset, with keep-going the same skipped ranges, and with a filter the same selection.
 * NetPerf V1-V3 and NetTrace V4-V6 samples (all but the V6 ones take the reader's lean path), samples with a
 * fault in the middle, and with ../shared every corpus trace, the 3.0 and the 2.1 x86 NetPerf ones also
 * damaged at many places.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>
#include <gcev/gcev_writer.h>

#include "filter_check.h"
#include "testutil.h"
#include "trace_sample.h"

static const uint32_t versions[][2] = {{1, 0}, {2, 0}, {3, 0}, {4, 1}, {4, 0},
                                       {5, 1}, {5, 0}, {6, 1}, {6, 0}};

typedef gcev_status (*open_fn)(const void *ctx, const gcev_trace_options *o, gcev_trace **t);

typedef struct mem {
    const uint8_t *data;
    size_t size;
} mem;

static gcev_status open_mem(const void *ctx, const gcev_trace_options *o, gcev_trace **t)
{
    const mem *m = ctx;
    return gcev_trace_open_memory(m->data, m->size, o, t, NULL);
}

static gcev_status open_path(const void *ctx, const gcev_trace_options *o, gcev_trace **t)
{
    return gcev_trace_open_file(ctx, o, t, NULL);
}

/* Batches that stopped at a fault after their events (compare_walks). */
static size_t stopped_batches;
/* How the last compare_walks ended (GCEV_END or the fault), and whether it skipped damage. */
static gcev_status last_end;
static size_t last_skipped;
/* Batches of more than one event (only a reader's own batch gives them). */
static size_t many_batches;

/* The lean members of ev are lean's. */
static void lean_matches(const gcev_trace_lean *l, const gcev_trace_event *ev)
{
    assert_int_equal(l->event_id, ev->event_id);
    assert_int_equal(l->version, ev->version);
    assert_ptr_equal(l->provider, ev->provider);
    assert_int_equal(l->kind != NULL, ev->kind != NULL); /* (a kind is its trace's own) */
    assert_int_equal(l->timestamp, ev->timestamp);
    assert_int_equal(l->thread_id, ev->thread_id);
    assert_int_equal(l->payload_size, ev->payload_size);
    if (ev->payload_size) {
        assert_memory_equal(l->payload, ev->payload, ev->payload_size);
    }
    assert_int_equal(l->pointer_size, ev->pointer_size);
    assert_int_equal(l->no_event_id, ev->no_event_id);
}

/* What the kind's record says is what the event says of its metadata. */
static void kind_matches(gcev_trace *t, const gcev_trace_lean *l, const gcev_trace_event *ev)
{
    const gcev_trace_event *k = gcev_trace_kind_record(t, l->kind);
    if (!l->kind) {
        assert_null(k);
        return;
    }
    assert_non_null(k);
    assert_string_equal(k->provider_name, ev->provider_name);
    assert_string_equal(k->event_name, ev->event_name);
    assert_ptr_equal(k->provider, ev->provider);
    assert_int_equal(k->event_id, ev->event_id);
    assert_int_equal(k->nfields, ev->nfields);
}

/*
 * Reads the trace with gcev_trace_next and, beside it, in batches of cap (0: one
 * gcev_trace_next_lean at a time); every event, the end and the skipped ranges must agree.
 * Returns the events read.
 */
static size_t compare_walks(open_fn open, const void *ctx, uint32_t keep_going, const gcev_trace_filter *f,
                            size_t cap)
{
    gcev_trace_options o = {
        .struct_size = sizeof o, .order = GCEV_TRACE_ORDER_FILE, .keep_going = keep_going};
    gcev_trace *full, *lean;
    assert_int_equal(open(ctx, &o, &full), GCEV_OK);
    assert_int_equal(open(ctx, &o, &lean), GCEV_OK);
    if (f) {
        assert_int_equal(gcev_trace_set_filter(full, f, NULL), GCEV_OK);
        assert_int_equal(gcev_trace_set_filter(lean, f, NULL), GCEV_OK);
    }
    gcev_trace_lean batch[7];
    batch[0].struct_size = sizeof batch[0];
    gcev_trace_event ev;
    gcev_error e0 = {0}, e1 = {0};
    gcev_status s0 = GCEV_OK, s1;
    size_t total = 0;
    int pending = 0;
    for (;;) {
        size_t n = 0;
        if (cap) {
            s1 = gcev_trace_next_lean_batch(lean, batch, cap, &n, &e1);
            assert_true(s1 == GCEV_OK ? n >= 1 && n <= cap : n == 0);
            many_batches += n > 1;
            if (pending && !keep_going) {
                assert_int_not_equal(s1, GCEV_OK); /* the fault the last batch stopped at */
            }
            pending = 0;
        } else {
            s1 = gcev_trace_next_lean(lean, batch, &e1);
            n = s1 == GCEV_OK;
        }
        for (size_t i = 0; i < n; i++) {
            s0 = gcev_trace_next(full, &ev, &e0);
            assert_int_equal(s0, GCEV_OK);
            lean_matches(&batch[i], &ev);
            kind_matches(lean, &batch[i], &ev);
            if (i + 1 == n) {
                const gcev_trace_event *got = gcev_trace_lean_event(lean);
                if (got) {
                    check_events_equal(&ev, got);
                } else {
                    /* only a batch that stopped at a fault has none: the fault comes next */
                    assert_true(cap > 0);
                    pending = 1;
                    stopped_batches++;
                }
            } else {
                assert_non_null(batch[i].kind); /* an event without a kind ends its batch */
            }
            total++;
        }
        if (s1 != GCEV_OK) {
            s0 = gcev_trace_next(full, &ev, &e0);
            assert_int_equal(s1, s0);
            assert_int_equal(e1.offset, e0.offset);
            assert_null(gcev_trace_lean_event(lean));
            break;
        }
    }
    assert_int_equal(gcev_trace_skipped_ranges(lean), gcev_trace_skipped_ranges(full));
    assert_int_equal(gcev_trace_skipped_bytes(lean), gcev_trace_skipped_bytes(full));
    assert_int_equal(gcev_trace_dropped_events(lean), gcev_trace_dropped_events(full));
    assert_int_equal(gcev_trace_filtered_events(lean), gcev_trace_filtered_events(full));
    last_end = s0;
    last_skipped = (size_t)gcev_trace_skipped_ranges(full);
    /* the end is sticky for every read call */
    size_t n = 1;
    assert_int_equal(gcev_trace_next_lean_batch(lean, batch, 3, &n, NULL), s0);
    assert_int_equal(n, 0);
    gcev_trace_close(full);
    gcev_trace_close(lean);
    return total;
}

static const size_t caps[] = {0, 1, 3, 7};

static void test_lean_every_version_and_batch_size_reads_as_the_full_walk(void **state)
{
    (void)state;
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        size_t size;
        uint8_t *data = sample_trace(versions[v][0], (int)versions[v][1], &size);
        assert_non_null(data);
        mem m = {data, size};
        gcev_trace_filter f;
        memset(&f, 0, sizeof f);
        f.struct_size = sizeof f;
        f.flags = GCEV_TRACE_FILTER_GC;
        for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
            assert_int_equal(compare_walks(open_mem, &m, 0, NULL, caps[c]), SAMPLE_EVENTS);
            assert_int_equal(compare_walks(open_mem, &m, 0, &f, caps[c]), 2);
        }
        free(data);
    }
}

/* Every byte of the second half of the sample of version (compressed) flipped in turn, each
 * damaged trace walked both ways with every batch size, with and without keep-going; returns
 * how many of them the full walk ends in a fault. */
static size_t flip_every_byte(uint32_t version, int compressed)
{
    size_t size;
    uint8_t *data = sample_trace(version, compressed, &size);
    assert_non_null(data);
    uint8_t *bad = malloc(size);
    assert_non_null(bad);
    size_t faults = 0;
    /* every byte of the trace's second half flipped in turn: some flips make a fault inside a
     * compressed block after events of it were returned */
    for (size_t at = size / 2; at < size; at++) {
        memcpy(bad, data, size);
        bad[at] ^= 0x5a;
        mem m = {bad, size};
        gcev_trace_options o = {.struct_size = sizeof o};
        gcev_trace *t;
        if (gcev_trace_open_memory(bad, size, &o, &t, NULL) != GCEV_OK) {
            continue;
        }
        gcev_trace_event ev;
        gcev_status st;
        while ((st = gcev_trace_next(t, &ev, NULL)) == GCEV_OK) {
        }
        gcev_trace_close(t);
        faults += st != GCEV_END;
        for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
            compare_walks(open_mem, &m, 0, NULL, caps[c]);
            compare_walks(open_mem, &m, 1, NULL, caps[c]);
        }
    }
    free(bad);
    free(data);
    return faults;
}

/* A fault met inside a batch: the events before it first, then the fault (or, keep-going,
 * the events after the skipped range), as the full walk has them. */
static void test_lean_batch_stops_at_a_fault_after_its_events(void **state)
{
    (void)state;
    assert_true(flip_every_byte(5, 1) > 0);
    assert_true(stopped_batches > 0); /* the path this test is for was taken */
}

/* The NetPerf batch (V3 blocks, the V1/V2 inline stream) stops before a record it cannot take
 * (a fault, inline metadata, an undefined metadata id), which the per-event path then reads:
 * the same events, faults, offsets and skipped ranges as the full walk. */
static void test_lean_netperf_batch_before_a_fault(void **state)
{
    (void)state;
    for (uint32_t v = 1; v <= 3; v++) {
        const size_t before = many_batches;
        assert_true(flip_every_byte(v, 0) > 0);
        assert_true(many_batches > before); /* the reader's batch served them */
    }
}

static void test_lean_corpus_traces(void **state)
{
    (void)state;
    const char *shared = testutil_shared_dir();
    if (!shared) {
        skip();
    }
    static const char *const names[] = {
        "eventpipe-dotnetcore3.0-win-x64-objver4.nettrace",
        "eventpipe-dotnetcore2.1-win-x86-objver3.netperf",
        "eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf",
        "eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace",
        "gcrundownevents.etl",
        "compressed-SelfDescribingSingleEvent.etl",
        "lttng-clr-only.trace.zip",
    };
    size_t total = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[4096];
#ifndef GCEV_TEST_LIBZIP
        if (strstr(names[i], ".zip")) {
            continue; /* this build reads no ZIP archive */
        }
#endif
        snprintf(path, sizeof path, "%s/corpus/%s", shared, names[i]);
        total += compare_walks(open_path, path, 0, NULL, 7);
        compare_walks(open_path, path, 0, NULL, 0);
    }
    assert_true(total > 100000);
}

/*
 * The corpus trace name with a filter, and damaged at places spread over its events, so that
 * faults, timestamps outside their block's range, undefined metadata and sequence gaps (drops)
 * come in the middle of batches, with and without keep-going. Returns how many of the damaged
 * walks ended in a fault or skipped damage.
 */
static size_t damaged_corpus_walks(const char *shared, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/corpus/%s", shared, name);
    size_t size, damaged = 0;
    uint8_t *data = (uint8_t *)testutil_read_file(path, &size);
    assert_non_null(data);
    mem m = {data, size};
    gcev_trace_filter f;
    memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    f.flags = GCEV_TRACE_FILTER_GC;
    assert_true(compare_walks(open_mem, &m, 0, &f, 7) > 0);
    uint8_t *bad = malloc(size);
    assert_non_null(bad);
    /* 40 places from the first tenth on (past the metadata the trace starts with), each a
     * different byte of a header or payload, changed in three ways */
    static const uint8_t flips[] = {0x01, 0x80, 0x5a};
    for (size_t k = 0; k < 40; k++) {
        const size_t at = size / 10 + k * (size * 9 / 10 / 40) + k * 7;
        for (size_t j = 0; j < sizeof flips; j++) {
            memcpy(bad, data, size);
            bad[at] ^= flips[j];
            mem b = {bad, size};
            compare_walks(open_mem, &b, 0, NULL, 7);
            damaged += last_end != GCEV_END;
            compare_walks(open_mem, &b, 1, NULL, 7);
            damaged += last_skipped > 0;
            if (j == 2) {
                compare_walks(open_mem, &b, 1, &f, 7);
            }
        }
    }
    free(bad);
    free(data);
    return damaged;
}

/*
 * The batch's own header parser (NetTrace V4/V5 compressed blocks with room left, the common
 * header shapes) beside the reader's: the 3.0 corpus trace (large blocks, so most events take
 * it), intact and damaged.
 */
static void test_lean_batch_parser_on_a_damaged_corpus_trace(void **state)
{
    (void)state;
    const char *shared = testutil_shared_dir();
    if (!shared) {
        skip();
    }
    size_t before = stopped_batches;
    assert_true(damaged_corpus_walks(shared, "eventpipe-dotnetcore3.0-win-x64-objver4.nettrace") > 0);
    assert_true(stopped_batches > before); /* some faults came after events of their batch */
}

/* Runs of events per capture thread, as a runtime writes its thread buffers (the sample
 * alternates threads): RUNS runs of RUN_LEN events on three threads, GCStart_V2 and an
 * EventSource event, stacks and activity ids on some, one sequence gap (a drop), a sequence
 * point in the middle; version 1-6, compressed or not. */
enum { RUNS = 12, RUN_LEN = 16 };

static uint8_t *runs_trace(uint32_t version, int compressed, size_t *size)
{
    gcev_writer_options o = {version, (uint8_t)compressed, 8, 4242, 4, 1000000, 50};
    gcev_writer *w;
    assert_int_equal(gcev_writer_create(&o, &w), GCEV_OK);
    gcev_writer_meta gc = {"Microsoft-Windows-DotNETRuntime", 1, 2, 1, 4, 1, "", NULL, 0};
    static const gcev_trace_field fields[] = {{"a", 9, 0, 0, NULL, 0, 0, 0}};
    gcev_writer_meta es = {
        version == 1 ? SAMPLE_V1_GUID : "MySource", 7, 0, 0, 4, 0xf00000000000ull, "Hello", fields, 1};
    uint32_t gc_id, es_id;
    assert_int_equal(gcev_writer_define(w, &gc, &gc_id), GCEV_OK);
    assert_int_equal(gcev_writer_define(w, &es, &es_id), GCEV_OK);
    uint8_t gcp[26] = {8, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 9};
    uint8_t esp[4] = {0x2a, 0, 0, 0};
    uint8_t stack[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    uint32_t seq[3] = {0, 0, 0};
    int64_t ts = 100;
    for (int r = 0; r < RUNS; r++) {
        if (r == RUNS / 2) {
            assert_int_equal(gcev_writer_sequence_point(w, ts), GCEV_OK);
        }
        const int th = r % 3;
        for (int i = 0; i < RUN_LEN; i++) {
            const int gc_ev = i % 5 == 0;
            gcev_writer_event e = {gc_ev ? gc_id : es_id,
                                   11 + (uint64_t)th,
                                   0,
                                   0,
                                   (uint32_t)th,
                                   ts += 7,
                                   gc_ev ? gcp : esp,
                                   gc_ev ? 26 : 4,
                                   i % 4 == 1 ? stack : NULL,
                                   i % 4 == 1 ? 16 : 0,
                                   {0}};
            if (i % 6 == 2) {
                e.activity_id.data1 = (uint32_t)(r * RUN_LEN + i);
            }
            seq[th] += 1 + (r == 4 && i == 3); /* one event of a run lost */
            e.sequence = seq[th];
            assert_int_equal(gcev_writer_write(w, &e), GCEV_OK);
        }
    }
    uint8_t *copy = sample_writer_bytes(w, size);
    assert_non_null(copy);
    return copy;
}

/* The batch of uncompressed NetTrace V4/V5 blocks, as the NetPerf one: it stops before a
 * record it cannot take (a fault, undefined metadata, a timestamp outside the block's range, a
 * sequence number that is not the next of the thread seen last: drops, new threads). A trace
 * with runs per capture thread (and the NetPerf versions with it), intact with every batch
 * size and the GC filter, and damaged at places spread over it, with and without keep-going. */
static void test_lean_uncompressed_batch_before_a_fault(void **state)
{
    (void)state;
    static const uint32_t vs[][2] = {{3, 0}, {4, 0}, {5, 0}, {4, 1}, {5, 1}, {2, 0}};
    gcev_trace_filter f;
    memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    f.flags = GCEV_TRACE_FILTER_GC;
    for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++) {
        size_t size, faults = 0;
        uint8_t *data = runs_trace(vs[v][0], (int)vs[v][1], &size);
        const size_t before = many_batches;
        mem m = {data, size};
        for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
            assert_int_equal(compare_walks(open_mem, &m, 0, NULL, caps[c]), RUNS * RUN_LEN);
            assert_int_equal(compare_walks(open_mem, &m, 0, &f, caps[c]), RUNS * ((RUN_LEN + 4) / 5));
        }
        assert_true(many_batches > before); /* the reader's batch served them */
        uint8_t *bad = malloc(size);
        assert_non_null(bad);
        for (size_t at = size / 8; at < size; at += 13) {
            memcpy(bad, data, size);
            bad[at] ^= (uint8_t)(0x5a ^ at);
            mem b = {bad, size};
            gcev_trace *t;
            if (gcev_trace_open_memory(bad, size, NULL, &t, NULL) != GCEV_OK) {
                continue; /* (NetPerf V1/V2: the forward-reference table at the end) */
            }
            gcev_trace_close(t);
            compare_walks(open_mem, &b, 0, NULL, 7);
            faults += last_end != GCEV_END;
            compare_walks(open_mem, &b, 1, NULL, 7);
            compare_walks(open_mem, &b, 1, &f, 3);
            compare_walks(open_mem, &b, 0, NULL, 0);
        }
        assert_true(faults > 0);
        free(bad);
        free(data);
    }
}

/* The NetPerf V3 batch on the 2.1 x86 corpus trace (blocks of about a hundred records):
 * intact with a filter, and damaged, so that faults come in the middle of blocks, after events
 * of the batch that stops before them. */
static void test_lean_netperf_batch_on_a_damaged_corpus_trace(void **state)
{
    (void)state;
    const char *shared = testutil_shared_dir();
    if (!shared) {
        skip();
    }
    const size_t before = many_batches;
    assert_true(damaged_corpus_walks(shared, "eventpipe-dotnetcore2.1-win-x86-objver3.netperf") > 0);
    assert_true(many_batches > before); /* the reader's batch served them */
}

static void test_lean_bad_arguments(void **state)
{
    (void)state;
    size_t size, n = 9;
    uint8_t *data = sample_trace(5, 1, &size);
    assert_non_null(data);
    gcev_trace *t;
    assert_int_equal(gcev_trace_open_memory(data, size, NULL, &t, NULL), GCEV_OK);
    gcev_trace_lean l[2];
    memset(l, 0, sizeof l);
    l[0].struct_size = 2; /* smaller than any layout */
    assert_int_equal(gcev_trace_next_lean(t, l, NULL), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_trace_next_lean_batch(t, l, 2, &n, NULL), GCEV_E_INVALID_ARG);
    assert_int_equal(n, 0);
    /* a batch steps by this release's size: a larger record is refused there */
    l[0].struct_size = sizeof l[0] + 8;
    n = 9;
    assert_int_equal(gcev_trace_next_lean_batch(t, l, 2, &n, NULL), GCEV_E_INVALID_ARG);
    assert_int_equal(n, 0);
    l[0].struct_size = sizeof l[0];
    assert_int_equal(gcev_trace_next_lean_batch(t, l, 0, &n, NULL), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_trace_next_lean_batch(NULL, l, 2, &n, NULL), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_trace_next_lean(NULL, l, NULL), GCEV_E_INVALID_ARG);
    assert_null(gcev_trace_lean_event(t)); /* nothing read yet */
    assert_null(gcev_trace_lean_event(NULL));
    assert_null(gcev_trace_kind_record(t, NULL));
    assert_null(gcev_trace_kind_record(NULL, l));
    assert_int_equal(gcev_trace_next_lean(t, l, NULL), GCEV_OK);
    assert_non_null(gcev_trace_lean_event(t));
    gcev_trace_event ev;
    assert_int_equal(gcev_trace_next(t, &ev, NULL), GCEV_OK);
    assert_null(gcev_trace_lean_event(t)); /* gcev_trace_next read on */
    l[0].struct_size = 0;                  /* the first layout, as a zeroed record says */
    assert_int_equal(gcev_trace_next_lean(t, l, NULL), GCEV_OK);
    assert_int_equal(gcev_trace_next_lean_batch(t, l, 2, &n, NULL), GCEV_OK);
    assert_true(n >= 1);
    gcev_trace_close(t);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lean_every_version_and_batch_size_reads_as_the_full_walk),
        cmocka_unit_test(test_lean_batch_stops_at_a_fault_after_its_events),
        cmocka_unit_test(test_lean_corpus_traces),
        cmocka_unit_test(test_lean_batch_parser_on_a_damaged_corpus_trace),
        cmocka_unit_test(test_lean_netperf_batch_before_a_fault),
        cmocka_unit_test(test_lean_uncompressed_batch_before_a_fault),
        cmocka_unit_test(test_lean_netperf_batch_on_a_damaged_corpus_trace),
        cmocka_unit_test(test_lean_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
