/* SPDX-License-Identifier: MIT */
/* EventPipe reader: truncation, corrupt sizes, versions, time order, drops, streams. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>

#include "drip_reader.h"
#include "failalloc.h"
#include "flood_ids.h"
#include "gcev_nettrace_event.h"
#include "gcev_nettrace_meta.h"
#include "gcev_nettrace_state.h" /* the reader's metadata table (flush tests) */
#include "trace_sample.h"

static const uint32_t versions[][2] = {{3, 0}, {4, 1}, {4, 0}, {5, 1}, {6, 1}, {6, 0}};

/* Reads everything; returns the event count, the final status and error in *st / *err. */
static int walk(gcev_trace *t, gcev_status *st, gcev_error *err)
{
    gcev_trace_event ev;
    int n = 0;
    while ((*st = gcev_trace_next(t, &ev, err)) == GCEV_OK) {
        n++;
    }
    return n;
}

/* Every prefix: either open fails, or some events then a truncation error at or before the cut. */
static void test_nettrace_every_truncation_reports_truncated(void **s)
{
    (void)s;
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        size_t n;
        uint8_t *full = sample_trace(versions[v][0], (int)versions[v][1], &n);
        assert_non_null(full);
        int last = -1;
        for (size_t cut = 0; cut < n; cut++) {
            uint8_t *p = malloc(cut ? cut : 1);
            memcpy(p, full, cut);
            gcev_trace *t = NULL;
            gcev_error err = {0};
            gcev_status st = gcev_trace_open_memory(p, cut, NULL, &t, &err);
            if (st == GCEV_OK) {
                int k = walk(t, &st, &err);
                assert_true(k <= SAMPLE_EVENTS);
                assert_true(k >= last); /* a longer prefix never yields fewer events */
                last = k;
                gcev_status again = gcev_trace_next(t, &(gcev_trace_event){0}, NULL);
                assert_int_equal(again, st); /* sticky */
                gcev_trace_close(t);
            } else {
                assert_null(t);
            }
            /* Below 24 bytes the magic itself is cut: not recognisable as a trace. */
            if (cut < 24 && st == GCEV_E_UNSUPPORTED) {
                free(p);
                continue;
            }
            assert_int_equal(st, GCEV_E_TRUNCATED_FILE);
            assert_true(err.offset <= cut);
            assert_non_null(err.message);
            free(p);
        }
        free(full);
    }
}

static void test_nettrace_unknown_major_version_is_unsupported(void **s)
{
    (void)s;
    size_t n;
    uint8_t *p = sample_trace(6, 1, &n);
    p[12] = 7; /* MajorVersion */
    gcev_trace *t;
    gcev_error err;
    assert_int_equal(gcev_trace_open_memory(p, n, NULL, &t, &err), GCEV_E_UNSUPPORTED);
    assert_int_equal(err.offset, 12);
    assert_non_null(strstr(err.message, "4, 5 and 6"));
    free(p);
}

static void test_nettrace_netperf_version_9_is_unsupported(void **s)
{
    (void)s;
    size_t n;
    uint8_t *p = sample_trace(3, 0, &n);
    p[27] = 9; /* Trace object type version */
    gcev_trace *t;
    gcev_error err;
    assert_int_equal(gcev_trace_open_memory(p, n, NULL, &t, &err), GCEV_E_UNSUPPORTED);
    assert_non_null(strstr(err.message, "1, 2 and 3"));
    free(p);
}

/* A huge block size must fail with LIMIT/TRUNCATED before any allocation of that size. */
static void test_nettrace_hostile_block_size_is_rejected(void **s)
{
    (void)s;
    size_t n;
    uint8_t *p = sample_trace(6, 1, &n);
    /* First block after the 20-byte header + trace block: make it a 16 MiB event block. */
    size_t at = 20 + 4 + (p[20] | (p[21] << 8) | (p[22] << 16));
    p[at] = 0xff;
    p[at + 1] = 0xff;
    p[at + 2] = 0xff;
    gcev_trace *t;
    gcev_error err;
    gcev_trace_options o = {.struct_size = sizeof o, .max_block_size = 1024};
    assert_int_equal(gcev_trace_open_memory(p, n, &o, &t, &err), GCEV_OK);
    gcev_status st;
    assert_int_equal(walk(t, &st, &err), 0);
    assert_int_equal(st, GCEV_E_LIMIT);
    assert_int_equal(err.offset, at);
    gcev_trace_close(t);
    free(p);
}

/* The compressed payload size of the first event points past the block. */
static void test_nettrace_corrupt_payload_size_is_format_error(void **s)
{
    (void)s;
    size_t n;
    uint8_t *p = sample_trace(4, 0, &n);
    gcev_trace *t;
    gcev_error err;
    /* Find the GC payload (starts 8,0,0,0,2) and corrupt the uncompressed PayloadSize before it. */
    size_t i = 0;
    while (i + 5 < n && memcmp(p + i, "\x08\x00\x00\x00\x02", 5) != 0) {
        i++;
    }
    assert_true(i + 5 < n);
    p[i - 4] = 0xf0;
    assert_int_equal(gcev_trace_open_memory(p, n, NULL, &t, &err), GCEV_OK);
    gcev_status st;
    assert_int_equal(walk(t, &st, &err), 0);
    assert_int_equal(st, GCEV_E_FORMAT);
    assert_true(err.offset < i);
    gcev_trace_close(t);
    free(p);
}

static void test_nettrace_time_order_sorts_between_sequence_points(void **s)
{
    (void)s;
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        size_t n;
        uint8_t *p = sample_trace(versions[v][0], (int)versions[v][1], &n);
        gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME};
        gcev_trace *t;
        assert_int_equal(gcev_trace_open_memory(p, n, &o, &t, NULL), GCEV_OK);
        gcev_trace_event ev;
        int64_t want = 100;
        for (int i = 0; i < SAMPLE_EVENTS; i++) {
            assert_int_equal(gcev_trace_next(t, &ev, NULL), GCEV_OK);
            assert_int_equal(ev.timestamp, want);
            if (ev.event_id == 7) {
                assert_string_equal(ev.provider_name, "MySource");
                assert_int_equal(ev.payload[0], 0x2a);
            }
            want += 100;
        }
        assert_int_equal(gcev_trace_next(t, &ev, NULL), GCEV_END);
        gcev_trace_close(t);
        free(p);
    }
}

static void test_nettrace_sequence_gap_counts_drops(void **s)
{
    (void)s;
    const uint32_t vs[] = {4, 6};
    for (size_t v = 0; v < 2; v++) {
        gcev_writer_options o = {vs[v], 1, 8, 1, 1, 0, 0};
        gcev_writer *w;
        assert_int_equal(gcev_writer_create(&o, &w), GCEV_OK);
        gcev_writer_meta m = {"P", 1, 0, 0, 4, 0, "E", NULL, 0};
        uint32_t id;
        assert_int_equal(gcev_writer_define(w, &m, &id), GCEV_OK);
        gcev_writer_event e = {id, 5, 5, 0xfffffffcu, 0, 10, NULL, 0, NULL, 0, {0}};
        assert_int_equal(gcev_writer_write(w, &e), GCEV_OK);
        e.sequence = 0xfffffffeu; /* 0xfffffffd lost */
        e.timestamp = 20;
        assert_int_equal(gcev_writer_write(w, &e), GCEV_OK);
        e.sequence = 2; /* wraps: 0xffffffff, 0 and 1 lost */
        assert_int_equal(gcev_writer_write(w, &e), GCEV_OK);
        e.sequence = 0; /* next: 3, no loss */
        assert_int_equal(gcev_writer_write(w, &e), GCEV_OK);
        const uint8_t *d;
        size_t n;
        assert_int_equal(gcev_writer_finish(w, &d, &n), GCEV_OK);
        gcev_trace *t;
        assert_int_equal(gcev_trace_open_memory(d, n, NULL, &t, NULL), GCEV_OK);
        gcev_status st;
        gcev_error err;
        assert_int_equal(walk(t, &st, &err), 4);
        assert_int_equal(st, GCEV_END);
        assert_int_equal(gcev_trace_drop_count(t), 2);
        assert_int_equal(gcev_trace_dropped_events(t), 1 + 3);
        const gcev_trace_drop *dr = gcev_trace_drop_at(t, 0);
        assert_int_equal(dr->capture_thread_id, 5);
        assert_int_equal(dr->expected_sequence, 0xfffffffdu);
        assert_int_equal(dr->seen_sequence, 0xfffffffeu);
        assert_int_equal(gcev_trace_drop_at(t, 1)->dropped, 3);
        assert_int_equal(dr->timestamp, 20);
        assert_null(gcev_trace_drop_at(t, 2));
        gcev_trace_close(t);
        gcev_writer_free(w);
    }
}

static void test_nettrace_reader_callback_matches_memory(void **s)
{
    (void)s;
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        size_t n;
        uint8_t *p = sample_trace(versions[v][0], (int)versions[v][1], &n);
        drip d = {p, n, 0};
        gcev_trace *a, *b;
        assert_int_equal(gcev_trace_open_memory(p, n, NULL, &a, NULL), GCEV_OK);
        assert_int_equal(gcev_trace_open_reader(drip_read, &d, NULL, &b, NULL), GCEV_OK);
        assert_int_equal(gcev_trace_get_info(b)->file_size, 0);
        gcev_trace_event ea, eb;
        gcev_status sa, sb;
        do {
            sa = gcev_trace_next(a, &ea, NULL);
            sb = gcev_trace_next(b, &eb, NULL);
            assert_int_equal(sa, sb);
            if (sa == GCEV_OK) {
                assert_int_equal(ea.timestamp, eb.timestamp);
                assert_int_equal(ea.payload_size, eb.payload_size);
                assert_memory_equal(ea.payload, eb.payload, ea.payload_size);
                assert_int_equal(ea.file_offset, eb.file_offset);
            }
        } while (sa == GCEV_OK);
        assert_int_equal(sa, GCEV_END);
        gcev_trace_close(a);
        gcev_trace_close(b);
        free(p);
    }
}

static void test_nettrace_not_a_trace_is_unsupported(void **s)
{
    (void)s;
    static const uint8_t junk[64] = "this is not a trace at all, just some text bytes";
    gcev_trace *t;
    gcev_error err;
    assert_int_equal(gcev_trace_open_memory(junk, sizeof junk, NULL, &t, &err), GCEV_E_UNSUPPORTED);
    assert_null(t);
    assert_int_equal(gcev_trace_open_memory(junk, 0, NULL, &t, &err), GCEV_E_TRUNCATED_FILE);
    assert_string_equal(gcev_trace_format_name(GCEV_FORMAT_NETTRACE), "nettrace");
    assert_string_equal(gcev_trace_format_name((gcev_trace_format)99), "unknown");
}

/* ---- a writer helper: events that carry their file-order index as payload ---- */

typedef struct wtrace {
    gcev_writer *w;
    const uint8_t *data;
    size_t size;
    uint32_t next_index;
} wtrace;

static void wt_start(wtrace *t, uint32_t version, int compressed)
{
    memset(t, 0, sizeof *t);
    gcev_writer_options o = {version, (uint8_t)compressed, 8, 77, 2, 1000000, 0};
    assert_int_equal(gcev_writer_create(&o, &t->w), GCEV_OK);
}

static uint32_t wt_define(wtrace *t, const char *provider, uint16_t id, const char *name,
                          const gcev_trace_field *fields, uint32_t nfields)
{
    gcev_writer_meta m = {provider, id, 0, 0, 4, 0, name, fields, nfields};
    uint32_t meta;
    assert_int_equal(gcev_writer_define(t->w, &m, &meta), GCEV_OK);
    return meta;
}

/* An event whose 4-byte payload is its index in file order. */
static void wt_event(wtrace *t, uint32_t meta, uint64_t thread, int64_t ts, uint32_t sequence)
{
    static uint8_t payloads[256][4];
    uint8_t *p = payloads[t->next_index % 256];
    p[0] = (uint8_t)t->next_index;
    p[1] = (uint8_t)(t->next_index >> 8);
    p[2] = p[3] = 0;
    t->next_index++;
    gcev_writer_event e = {meta, thread, thread, sequence, 0, ts, p, 4, NULL, 0, {0}};
    assert_int_equal(gcev_writer_write(t->w, &e), GCEV_OK);
}

static void wt_finish(wtrace *t)
{
    assert_int_equal(gcev_writer_finish(t->w, &t->data, &t->size), GCEV_OK);
}

static uint32_t payload_index(const gcev_trace_event *ev)
{
    assert_true(ev->payload_size >= 4);
    return (uint32_t)ev->payload[0] | (uint32_t)ev->payload[1] << 8;
}

static const gcev_trace_field field_a[] = {{"a", 9, 0, 0, NULL, 0, 0, 0}};
static const gcev_trace_field field_b[] = {{"b", 10, 0, 0, NULL, 0, 0, 0}, {"c", 10, 0, 0, NULL, 0, 0, 0}};

/* V6 after a metadata flush: an id used by earlier events gets a new definition. */
static void test_nettrace_v6_redefined_metadata_applies_from_its_record_on(void **s)
{
    (void)s;
    for (int compressed = 0; compressed < 2; compressed++) {
        for (uint32_t order = 0; order < 2; order++) {
            wtrace t;
            wt_start(&t, 6, compressed);
            uint32_t id = wt_define(&t, "OldProvider", 1, "First", field_a, 1);
            wt_event(&t, id, 5, 100, 0);
            wt_event(&t, id, 6, 90, 0);
            assert_int_equal(gcev_writer_sequence_point_flags(t.w, 150, GCEV_WRITER_SP_FLUSH_METADATA),
                             GCEV_OK);
            gcev_writer_meta m2 = {"NewProvider", 2, 3, 0, 4, 0, "Second", field_b, 2};
            assert_int_equal(gcev_writer_redefine(t.w, id, &m2), GCEV_OK);
            wt_event(&t, id, 5, 200, 0);
            wt_event(&t, id, 6, 190, 0);
            wt_finish(&t);
            gcev_trace_options o = {.struct_size = sizeof o, .order = order};
            gcev_trace *tr;
            assert_int_equal(gcev_trace_open_memory(t.data, t.size, &o, &tr, NULL), GCEV_OK);
            gcev_trace_event ev;
            for (int i = 0; i < 4; i++) {
                assert_int_equal(gcev_trace_next(tr, &ev, NULL), GCEV_OK);
                uint32_t k = payload_index(&ev);
                /* file order 0 1 2 3; time order 1 0 3 2 */
                assert_int_equal(k, order ? (uint32_t)(i ^ 1) : (uint32_t)i);
                if (k < 2) {
                    assert_string_equal(ev.provider_name, "OldProvider");
                    assert_string_equal(ev.event_name, "First");
                    assert_int_equal(ev.event_id, 1);
                    assert_int_equal(ev.version, 0);
                    assert_int_equal(ev.nfields, 1);
                    assert_string_equal(ev.fields[0].name, "a");
                } else {
                    assert_string_equal(ev.provider_name, "NewProvider");
                    assert_string_equal(ev.event_name, "Second");
                    assert_int_equal(ev.event_id, 2);
                    assert_int_equal(ev.version, 3);
                    assert_int_equal(ev.nfields, 2);
                    assert_string_equal(ev.fields[1].name, "c");
                }
            }
            assert_int_equal(gcev_trace_next(tr, &ev, NULL), GCEV_END);
            gcev_trace_close(tr);
            gcev_writer_free(t.w);
        }
    }
}

/* V6: a long session that flushes its metadata and defines the same events again, cycle
 * after cycle, keeps one record per definition (not one per cycle, which would end at
 * the record limit); events of one definition keep one kind across the cycles. */
static void test_nettrace_v6_metadata_flush_cycles_reuse_one_record_per_definition(void **s)
{
    (void)s;
    enum { CYCLES = 300 };
    for (int compressed = 0; compressed < 2; compressed++) {
        for (uint32_t order = 0; order < 2; order++) {
            wtrace t;
            wt_start(&t, 6, compressed);
            uint32_t a = wt_define(&t, "ProvA", 1, "EventA", field_a, 1);
            uint32_t b = wt_define(&t, "ProvB", 2, "EventB", field_b, 2);
            gcev_writer_meta ma = {"ProvA", 1, 0, 0, 4, 0, "EventA", field_a, 1};
            gcev_writer_meta mb = {"ProvB", 2, 0, 0, 4, 0, "EventB", field_b, 2};
            int64_t ts = 100;
            for (int c = 0; c < CYCLES; c++) {
                wt_event(&t, a, 5, ts++, 0);
                wt_event(&t, b, 6, ts++, 0);
                assert_int_equal(gcev_writer_sequence_point_flags(t.w, ts++, GCEV_WRITER_SP_FLUSH_METADATA),
                                 GCEV_OK);
                /* the two ids swap definitions: a record is found again by what it defines */
                assert_int_equal(gcev_writer_redefine(t.w, a, &mb), GCEV_OK);
                assert_int_equal(gcev_writer_redefine(t.w, b, &ma), GCEV_OK);
                uint32_t x = a;
                a = b;
                b = x;
            }
            wt_finish(&t);
            gcev_trace_options o = {.struct_size = sizeof o, .order = order};
            gcev_trace *tr;
            assert_int_equal(gcev_trace_open_memory(t.data, t.size, &o, &tr, NULL), GCEV_OK);
            const void *kind_a = NULL, *kind_b = NULL;
            gcev_trace_event ev;
            uint32_t n = 0;
            gcev_status st;
            while ((st = gcev_trace_next(tr, &ev, NULL)) == GCEV_OK) {
                assert_int_equal(payload_index(&ev), n);
                int is_a = n % 2 == 0;
                assert_string_equal(ev.event_name, is_a ? "EventA" : "EventB");
                assert_string_equal(ev.provider_name, is_a ? "ProvA" : "ProvB");
                assert_int_equal(ev.nfields, is_a ? 1 : 2);
                const void **k = is_a ? &kind_a : &kind_b;
                if (!*k) {
                    *k = ev.kind;
                }
                assert_ptr_equal(ev.kind, *k);
                n++;
            }
            assert_int_equal(st, GCEV_END);
            assert_int_equal(n, 2 * CYCLES);
            assert_ptr_not_equal(kind_a, kind_b);
            const gcev_nettrace *np = tr->impl;
            assert_int_equal(np->nmetas, 2);
            gcev_trace_close(tr);
            gcev_writer_free(t.w);
        }
    }
}

/* V6: after a sequence point that flushes the metadata, an id is undefined until a new
 * record defines it; a sequence point without the flag keeps every id. */
static void test_nettrace_v6_id_used_after_a_metadata_flush_without_a_record_is_format_error(void **s)
{
    (void)s;
    for (int compressed = 0; compressed < 2; compressed++) {
        for (uint32_t flush = 0; flush < 2; flush++) {
            wtrace t;
            wt_start(&t, 6, compressed);
            uint32_t a = wt_define(&t, "ProvA", 1, "EventA", field_a, 1);
            wt_event(&t, a, 5, 100, 0);
            assert_int_equal(
                gcev_writer_sequence_point_flags(t.w, 150, flush ? GCEV_WRITER_SP_FLUSH_METADATA : 0),
                GCEV_OK);
            wt_event(&t, a, 5, 200, 0);
            wt_finish(&t);
            gcev_trace *tr;
            assert_int_equal(gcev_trace_open_memory(t.data, t.size, NULL, &tr, NULL), GCEV_OK);
            gcev_trace_event ev;
            gcev_error err;
            assert_int_equal(gcev_trace_next(tr, &ev, &err), GCEV_OK);
            uint64_t first = ev.file_offset;
            if (flush) {
                assert_int_equal(gcev_trace_next(tr, &ev, &err), GCEV_E_FORMAT);
                assert_string_equal(err.message, "event refers to undefined metadata");
                assert_true(err.offset > first);
                assert_true(err.offset < t.size);
            } else {
                assert_int_equal(gcev_trace_next(tr, &ev, &err), GCEV_OK);
                assert_string_equal(ev.event_name, "EventA");
                assert_int_equal(gcev_trace_next(tr, &ev, &err), GCEV_END);
            }
            gcev_trace_close(tr);
            gcev_writer_free(t.w);
        }
    }
}

/* Equal timestamps: within a capture thread and across them, file order decides. */
static void test_nettrace_time_order_equal_timestamps_keep_file_order(void **s)
{
    (void)s;
    static const uint32_t vs[][2] = {{4, 1}, {4, 0}, {5, 1}, {6, 1}, {6, 0}};
    for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++) {
        wtrace t;
        wt_start(&t, vs[v][0], (int)vs[v][1]);
        uint32_t id = wt_define(&t, "P", 1, "E", NULL, 0);
        /* index: thread/ts  0:1/50 1:2/50 2:3/50 3:1/50 4:3/20 5:2/50 6:1/60 7:3/50 */
        static const struct {
            uint64_t thread;
            int64_t ts;
        } evs[] = {{1, 50}, {2, 50}, {3, 50}, {1, 50}, {3, 20}, {2, 50}, {1, 60}, {3, 50}};
        for (size_t i = 0; i < 8; i++) {
            wt_event(&t, id, evs[i].thread, evs[i].ts, 0);
        }
        wt_finish(&t);
        gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME};
        gcev_trace *tr;
        assert_int_equal(gcev_trace_open_memory(t.data, t.size, &o, &tr, NULL), GCEV_OK);
        /* thread 3 goes back (50 then 20): sorted; the 50s in file order */
        static const uint32_t want[] = {4, 0, 1, 2, 3, 5, 7, 6};
        gcev_trace_event ev;
        for (size_t i = 0; i < 8; i++) {
            assert_int_equal(gcev_trace_next(tr, &ev, NULL), GCEV_OK);
            if (payload_index(&ev) != want[i]) {
                fail_msg("V%u: position %zu has event %u, expected %u", vs[v][0], i, payload_index(&ev),
                         want[i]);
            }
        }
        assert_int_equal(gcev_trace_next(tr, &ev, NULL), GCEV_END);
        gcev_trace_close(tr);
        gcev_writer_free(t.w);
    }
}

/* Four capture threads; the first one in the file holds the latest events. */
static void test_nettrace_time_order_first_stream_not_earliest(void **s)
{
    (void)s;
    wtrace t;
    wt_start(&t, 4, 1);
    uint32_t id = wt_define(&t, "P", 1, "E", NULL, 0);
    static const struct {
        uint64_t thread;
        int64_t ts;
    } evs[] = {{10, 900}, {11, 300}, {12, 100}, {13, 200}, {10, 950}, {11, 400}, {12, 500}, {13, 250}};
    for (size_t i = 0; i < 8; i++) {
        wt_event(&t, id, evs[i].thread, evs[i].ts, 0);
    }
    assert_int_equal(gcev_writer_sequence_point(t.w, 1000), GCEV_OK);
    wt_event(&t, id, 13, 1100, 0);
    wt_event(&t, id, 12, 1050, 0);
    wt_finish(&t);
    gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME};
    gcev_trace *tr;
    assert_int_equal(gcev_trace_open_memory(t.data, t.size, &o, &tr, NULL), GCEV_OK);
    static const uint32_t want[] = {2, 3, 7, 1, 5, 6, 0, 4, 9, 8};
    gcev_trace_event ev;
    int64_t last = 0;
    for (size_t i = 0; i < 10; i++) {
        assert_int_equal(gcev_trace_next(tr, &ev, NULL), GCEV_OK);
        assert_int_equal(payload_index(&ev), want[i]);
        assert_true(ev.timestamp >= last);
        last = ev.timestamp;
    }
    assert_int_equal(gcev_trace_next(tr, &ev, NULL), GCEV_END);
    gcev_trace_close(tr);
    gcev_writer_free(t.w);
}

/* A thread id reused by a new thread restarts at sequence 1: not a loss. */
static void test_nettrace_sequence_restart_at_1_is_not_a_drop(void **s)
{
    (void)s;
    wtrace t;
    wt_start(&t, 4, 1);
    uint32_t id = wt_define(&t, "P", 1, "E", NULL, 0);
    wt_event(&t, id, 5, 10, 1);
    wt_event(&t, id, 5, 20, 2);
    wt_event(&t, id, 5, 30, 3);
    wt_event(&t, id, 5, 40, 1); /* a new thread with the old id */
    wt_event(&t, id, 5, 50, 2);
    wt_event(&t, id, 5, 60, 4); /* 3 lost */
    /* near the top of the sequence range: 1 again is 16 "ahead" modulo 2^32, still a restart */
    wt_event(&t, id, 6, 70, 0xfffffff0u);
    wt_event(&t, id, 6, 80, 1);
    wt_finish(&t);
    gcev_trace *tr;
    assert_int_equal(gcev_trace_open_memory(t.data, t.size, NULL, &tr, NULL), GCEV_OK);
    gcev_status st;
    gcev_error err;
    assert_int_equal(walk(tr, &st, &err), 8);
    assert_int_equal(st, GCEV_END);
    assert_int_equal(gcev_trace_dropped_events(tr), 1);
    assert_int_equal(gcev_trace_drop_count(tr), 1);
    assert_int_equal(gcev_trace_drop_at(tr, 0)->expected_sequence, 3);
    assert_int_equal(gcev_trace_drop_at(tr, 0)->seen_sequence, 4);
    gcev_trace_close(tr);
    gcev_writer_free(t.w);
}

/* V6: a sequence point that flushes the thread table forgets the sequence numbers too. */
static void test_nettrace_v6_thread_flush_forgets_sequence_numbers(void **s)
{
    (void)s;
    for (int flush = 0; flush < 2; flush++) {
        wtrace t;
        wt_start(&t, 6, 1);
        uint32_t id = wt_define(&t, "P", 1, "E", NULL, 0);
        wt_event(&t, id, 5, 10, 10);
        assert_int_equal(gcev_writer_sequence_point_flags(t.w, 20, flush ? GCEV_WRITER_SP_FLUSH_THREADS : 0),
                         GCEV_OK);
        wt_event(&t, id, 5, 30, 20); /* after a flush: a thread seen for the first time */
        wt_finish(&t);
        gcev_trace *tr;
        assert_int_equal(gcev_trace_open_memory(t.data, t.size, NULL, &tr, NULL), GCEV_OK);
        gcev_trace_event ev;
        assert_int_equal(gcev_trace_next(tr, &ev, NULL), GCEV_OK);
        assert_int_equal(gcev_trace_next(tr, &ev, NULL), GCEV_OK);
        assert_int_equal(ev.thread_id, 5); /* the thread row written again after the flush */
        assert_int_equal(ev.process_id, 77);
        assert_int_equal(gcev_trace_next(tr, &ev, NULL), GCEV_END);
        assert_int_equal(gcev_trace_dropped_events(tr), flush ? 0 : 9);
        gcev_trace_close(tr);
        gcev_writer_free(t.w);
    }
}

/* The header's SYSTEMTIME (the writer's 2020-01-03 04:05:06.007 UTC) as a FILETIME. */
static void test_nettrace_sync_time_utc_is_the_header_systemtime(void **s)
{
    (void)s;
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        size_t n;
        uint8_t *p = sample_trace(versions[v][0], (int)versions[v][1], &n);
        gcev_trace *t;
        assert_int_equal(gcev_trace_open_memory(p, n, NULL, &t, NULL), GCEV_OK);
        const gcev_trace_info *info = gcev_trace_get_info(t);
        assert_true(info->sync_time_utc == INT64_C(132224979060070000));
        assert_int_equal(info->sync_time_qpc, 50);
        assert_int_equal(info->clock_frequency, 1000000);
        gcev_trace_close(t);
        free(p);
    }
}

/* V6 label lists: activity ids, and opcode/level/keywords/version overriding the metadata. */
static void test_nettrace_v6_label_lists_override_metadata(void **s)
{
    (void)s;
    for (int compressed = 0; compressed < 2; compressed++) {
        wtrace t;
        wt_start(&t, 6, compressed);
        gcev_writer_meta m = {"P", 1, 2, 3, 4, 0x10, "E", NULL, 0};
        uint32_t id;
        assert_int_equal(gcev_writer_define(t.w, &m, &id), GCEV_OK);
        static const uint8_t pl[4] = {0};
        gcev_writer_event e = {id, 5, 5, 0, 0, 100, pl, 4, NULL, 0, {0}};
        gcev_writer_labels l;
        memset(&l, 0, sizeof l);
        l.activity_id = (gcev_guid){0x11223344, 0x5566, 0x7788, {1, 2, 3, 4, 5, 6, 7, 8}};
        l.related_activity_id = (gcev_guid){0xaabbccdd, 1, 2, {9, 9, 9, 9, 9, 9, 9, 9}};
        l.has_opcode = 1;
        l.opcode = 9;
        l.has_level = 1;
        l.level = 1;
        l.has_version = 1;
        l.version = 7;
        l.has_keywords = 1;
        l.keywords = 0x8000000000000001u;
        l.tracing = 1;
        assert_int_equal(gcev_writer_write_labeled(t.w, &e, &l), GCEV_OK);
        e.timestamp = 110;
        assert_int_equal(gcev_writer_write(t.w, &e), GCEV_OK); /* no labels: the metadata's */
        gcev_writer_labels only_version;
        memset(&only_version, 0, sizeof only_version);
        e.timestamp = 120;
        assert_int_equal(gcev_writer_write_labeled(t.w, &e, &only_version), GCEV_OK);
        wt_finish(&t);
        gcev_trace *tr;
        gcev_error err;
        assert_int_equal(gcev_trace_open_memory(t.data, t.size, NULL, &tr, &err), GCEV_OK);
        gcev_trace_event ev;
        assert_int_equal(gcev_trace_next(tr, &ev, &err), GCEV_OK);
        assert_int_equal(ev.version, 7);
        assert_int_equal(ev.opcode, 9);
        assert_int_equal(ev.level, 1);
        assert_true(ev.keywords == 0x8000000000000001u);
        assert_true(ev.has_activity_id && ev.has_related_activity_id);
        assert_int_equal(ev.activity_id.data1, 0x11223344);
        assert_int_equal(ev.related_activity_id.data4[7], 9);
        assert_int_equal(gcev_trace_next(tr, &ev, &err), GCEV_OK);
        assert_int_equal(ev.version, 2);
        assert_int_equal(ev.opcode, 3);
        assert_int_equal(ev.level, 4);
        assert_true(ev.keywords == 0x10);
        assert_false(ev.has_activity_id);
        assert_int_equal(gcev_trace_next(tr, &ev, &err), GCEV_OK);
        assert_int_equal(ev.version, 0); /* a list with only Version 0 */
        assert_int_equal(ev.opcode, 3);
        assert_int_equal(gcev_trace_next(tr, &ev, &err), GCEV_END);
        gcev_trace_close(tr);
        gcev_writer_free(t.w);
    }
    /* labels are V6 only */
    wtrace t;
    wt_start(&t, 5, 1);
    uint32_t id = wt_define(&t, "P", 1, "E", NULL, 0);
    gcev_writer_event e = {id, 5, 5, 0, 0, 100, NULL, 0, NULL, 0, {0}};
    gcev_writer_labels l;
    memset(&l, 0, sizeof l);
    assert_int_equal(gcev_writer_write_labeled(t.w, &e, &l), GCEV_E_UNSUPPORTED);
    assert_int_equal(gcev_writer_sequence_point_flags(t.w, 1, GCEV_WRITER_SP_FLUSH_THREADS),
                     GCEV_E_UNSUPPORTED);
    assert_int_equal(gcev_writer_redefine(t.w, id, &(gcev_writer_meta){"P", 1, 0, 0, 4, 0, "E", NULL, 0}),
                     GCEV_E_UNSUPPORTED);
    gcev_writer_free(t.w);
}

/* ev->kind: one key per metadata record, the same for every event of it, in file and
 * time order, for every format version and header layout. */
static void test_nettrace_kind_is_one_key_per_metadata_record(void **s)
{
    (void)s;
    static const uint32_t format_versions[] = {3, 4, 5, 6};
    for (size_t v = 0; v < sizeof format_versions / sizeof format_versions[0]; v++) {
        for (int compressed = 0; compressed < (format_versions[v] >= 4 ? 2 : 1); compressed++) {
            for (uint32_t order = 0; order < 2; order++) {
                wtrace t;
                wt_start(&t, format_versions[v], compressed);
                uint32_t a = wt_define(&t, "ProvA", 1, "EventA", field_a, 1);
                uint32_t b = wt_define(&t, "ProvB", 2, "EventB", field_b, 2);
                for (int i = 0; i < 6; i++) {
                    wt_event(&t, i % 3 ? a : b, 5 + (uint64_t)(i % 2), 100 + i, 0);
                }
                wt_finish(&t);
                gcev_trace_options opts = {.struct_size = sizeof opts, .order = order};
                gcev_trace *tr;
                gcev_error err;
                assert_int_equal(gcev_trace_open_memory(t.data, t.size, &opts, &tr, &err), GCEV_OK);
                const void *kind_a = NULL, *kind_b = NULL;
                gcev_trace_event ev;
                int n = 0;
                while (gcev_trace_next(tr, &ev, &err) == GCEV_OK) {
                    assert_non_null(ev.kind);
                    const void **k = ev.event_id == 1 ? &kind_a : &kind_b;
                    if (!*k) {
                        *k = ev.kind;
                    }
                    assert_ptr_equal(ev.kind, *k);
                    n++;
                }
                assert_int_equal(n, 6);
                assert_non_null(kind_a);
                assert_non_null(kind_b);
                assert_ptr_not_equal(kind_a, kind_b);
                gcev_trace_close(tr);
                gcev_writer_free(t.w);
            }
        }
    }
}

/* Time order from memory (entries and runs re-read from the input, no copies) against
 * time order from a stream (the shared buffer that copies events): the same events, in
 * the same order, for every version and header layout, with threads interleaved inside
 * blocks, timestamps that go back inside a thread, stacks and sequence points. */
static void test_nettrace_time_order_from_memory_matches_the_copying_buffer(void **s)
{
    (void)s;
    static const uint32_t fmts[] = {1, 2, 3, 4, 5};
    uint64_t rng = 12345;
    for (size_t v = 0; v < sizeof fmts / sizeof fmts[0]; v++) {
        for (int compressed = 0; compressed < (fmts[v] >= 4 ? 2 : 1); compressed++) {
            wtrace t;
            wt_start(&t, fmts[v], compressed);
            /* V1 files name providers by GUID: a compiled provider's name works for all */
            uint32_t a = wt_define(&t, "Microsoft-Windows-DotNETRuntime", 1, "EventA", field_a, 1);
            uint32_t b = wt_define(&t, "Microsoft-Windows-DotNETRuntimePrivate", 2, "EventB", field_b, 2);
            int64_t clock[4] = {1000, 1000, 1000, 1000};
            for (int i = 0; i < 600; i++) {
                rng = rng * 6364136223846793005u + 1442695040888963407u;
                unsigned th = (unsigned)(rng >> 60) % 4;
                /* runs of a thread, sometimes a step back in time */
                clock[th] += (int64_t)((rng >> 40) % 50) - ((rng >> 33) % 8 == 0 ? 70 : 0);
                wt_event(&t, (rng >> 20) % 2 ? a : b, 10 + th, clock[th], 0);
                if (fmts[v] >= 4 && i % 97 == 96) {
                    int64_t max = clock[0];
                    for (int k = 1; k < 4; k++) {
                        max = clock[k] > max ? clock[k] : max;
                    }
                    assert_int_equal(gcev_writer_sequence_point(t.w, max), GCEV_OK);
                    for (int k = 0; k < 4; k++) {
                        clock[k] = max + 1; /* nothing after a sequence point is older */
                    }
                }
            }
            wt_finish(&t);
            gcev_trace_options opts = {.struct_size = sizeof opts, .order = GCEV_TRACE_ORDER_TIME};
            drip d = {t.data, t.size, 0};
            gcev_trace *m, *r = NULL;
            assert_int_equal(gcev_trace_open_memory(t.data, t.size, &opts, &m, NULL), GCEV_OK);
            if (fmts[v] >= 3) { /* V1/V2 need random access: no stream */
                assert_int_equal(gcev_trace_open_reader(drip_read, &d, &opts, &r, NULL), GCEV_OK);
            }
            gcev_trace_event em, er;
            gcev_status sm, sr = GCEV_OK;
            int n = 0;
            int64_t last = INT64_MIN;
            do {
                sm = gcev_trace_next(m, &em, NULL);
                if (r) {
                    sr = gcev_trace_next(r, &er, NULL);
                    assert_int_equal(sm, sr);
                }
                if (sm == GCEV_OK) {
                    if (fmts[v] <= 3) {
                        /* no sequence points: sorted as a whole */
                        assert_true(em.timestamp >= last);
                    }
                    last = em.timestamp;
                    if (r) {
                        assert_int_equal(em.timestamp, er.timestamp);
                        assert_int_equal(em.file_offset, er.file_offset);
                        assert_int_equal(em.thread_id, er.thread_id);
                        assert_int_equal(em.sequence, er.sequence);
                        assert_int_equal(em.event_id, er.event_id);
                        assert_string_equal(em.event_name, er.event_name);
                        assert_int_equal(em.payload_size, er.payload_size);
                        assert_memory_equal(em.payload, er.payload, em.payload_size);
                        assert_int_equal(em.stack_size, er.stack_size);
                    }
                    n++;
                }
            } while (sm == GCEV_OK);
            assert_int_equal(sm, GCEV_END);
            assert_int_equal(n, 600);
            gcev_trace_close(m);
            gcev_trace_close(r);
            gcev_writer_free(t.w);
        }
    }
}

/* Every allocation of open + read failing in turn: GCEV_E_NOMEM or the
 * complete, identical event sequence; never a crash, a leak or another error. */
static void test_nettrace_each_allocation_failure_is_nomem_or_the_same_events(void **s)
{
    (void)s;
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        size_t n;
        uint8_t *p = sample_trace(versions[v][0], (int)versions[v][1], &n);
        for (uint32_t order = GCEV_TRACE_ORDER_FILE; order <= GCEV_TRACE_ORDER_TIME; order++) {
            for (int stream = 0; stream <= (versions[v][0] >= 3); stream++) {
                failalloc_trace r = {NULL, p, n, stream, {.order = order}, 0, 0};
                assert_true(failalloc_every_read(&r) > 0);
                assert_int_equal(r.events, SAMPLE_EVENTS);
            }
        }
        free(p);
    }
}

/* ---- every header field varied, read back; every cut truncated ---- */

enum { VARIED = 24 };

typedef struct varied {
    gcev_writer_event e[VARIED];
    uint8_t payload[VARIED][300];
    uint8_t stack[VARIED][64];
    uint8_t *data;
    size_t size;
} varied;

/* Events whose header fields change in every way the compressed header encodes: thread
 * and capture thread (small, past 2^32), processor (small, past 127 and 2^16), timestamp
 * gaps (1 tick to 2^40), payload and stack sizes (0 to 300 bytes), activity ids on and off,
 * explicit sequence numbers past 2^7 and 2^14; a sequence point in the middle. */
static void varied_build(varied *v, uint32_t version, int compressed)
{
    memset(v, 0, sizeof *v);
    gcev_writer_options o = {version, (uint8_t)compressed, 8, 77, 2, 1000000, 0};
    gcev_writer *w;
    assert_int_equal(gcev_writer_create(&o, &w), GCEV_OK);
    /* NetPerf V1 names providers by GUID only */
    gcev_writer_meta m = {version == 1 ? SAMPLE_V1_GUID : "MySource", 7, 0, 0, 4, 0, "Varied", NULL, 0};
    uint32_t meta;
    assert_int_equal(gcev_writer_define(w, &m, &meta), GCEV_OK);
    static const uint64_t threads[] = {1, 300, UINT64_C(1) << 33, 70000};
    static const uint32_t procs[] = {0, 200, 70000, 5};
    static const uint32_t sizes[] = {0, 1, 130, 300, 4};
    static const uint32_t stacks[] = {0, 8, 64, 16};
    static const int64_t gaps[] = {1, 130, 20000, INT64_C(1) << 40, 3};
    int64_t ts = 1000;
    uint32_t seq[4] = {0};
    for (int i = 0; i < VARIED; i++) {
        gcev_writer_event *e = &v->e[i];
        int cap = i % 3;
        e->meta_id = meta;
        e->thread_id = threads[(i / 2) % 4];
        e->capture_thread_id = threads[cap];
        seq[cap] += i == 9 ? 200 : i == 15 ? 20000 : 1; /* explicit gaps: counted as drops */
        e->sequence = seq[cap];
        e->processor = procs[(i / 3) % 4];
        ts += gaps[i % 5];
        e->timestamp = ts;
        e->payload_size = sizes[i % 5];
        for (uint32_t k = 0; k < e->payload_size; k++) {
            v->payload[i][k] = (uint8_t)(i * 31 + k);
        }
        e->payload = v->payload[i];
        e->stack_size = version >= 4 || i % 2 ? stacks[i % 4] : 0;
        for (uint32_t k = 0; k < e->stack_size; k++) {
            v->stack[i][k] = (uint8_t)(i + k * 3);
        }
        e->stack = e->stack_size ? v->stack[i] : NULL;
        if (i % 4 == 1) {
            e->activity_id.data1 = 0x1000u + (uint32_t)i;
        }
        if (i == VARIED / 2) {
            assert_int_equal(gcev_writer_sequence_point(w, ts), GCEV_OK);
        }
        if (version >= 6 && e->activity_id.data1) { /* V6 carries activity ids in label lists */
            gcev_writer_labels l = {0};
            l.activity_id = e->activity_id;
            l.related_activity_id.data1 = 0x2000u + (uint32_t)i;
            assert_int_equal(gcev_writer_write_labeled(w, e, &l), GCEV_OK);
            continue;
        }
        assert_int_equal(gcev_writer_write(w, e), GCEV_OK);
    }
    const uint8_t *d;
    assert_int_equal(gcev_writer_finish(w, &d, &v->size), GCEV_OK);
    v->data = malloc(v->size);
    memcpy(v->data, d, v->size);
    gcev_writer_free(w);
}

static void varied_check(const varied *v, int i, const gcev_trace_event *ev, uint32_t version)
{
    const gcev_writer_event *e = &v->e[i];
    /* NetPerf V3 event headers hold 32-bit thread ids */
    assert_int_equal(ev->thread_id, version == 3 ? (uint32_t)e->thread_id : e->thread_id);
    assert_int_equal(ev->timestamp, e->timestamp);
    assert_int_equal(ev->payload_size, e->payload_size);
    assert_memory_equal(ev->payload, e->payload, e->payload_size);
    assert_int_equal(ev->stack_size, e->stack_size);
    if (e->stack_size) {
        assert_memory_equal(ev->stack, e->stack, e->stack_size);
    }
    if (version >= 4) {
        assert_int_equal(ev->capture_thread_id, e->capture_thread_id);
        assert_int_equal(ev->sequence, e->sequence);
        assert_int_equal(ev->processor, e->processor);
    }
    assert_int_equal(ev->has_activity_id, e->activity_id.data1 != 0);
    if (e->activity_id.data1) {
        assert_int_equal(ev->activity_id.data1, e->activity_id.data1);
    }
    if (version >= 6) { /* the label list's related activity */
        assert_int_equal(ev->has_related_activity_id, e->activity_id.data1 != 0);
        if (e->activity_id.data1) {
            assert_int_equal(ev->related_activity_id.data1, 0x2000u + (uint32_t)i);
        }
    }
}

static void test_nettrace_varied_headers_read_back_and_every_cut_is_truncated(void **s)
{
    (void)s;
    static const uint32_t fmts[][2] = {{3, 0}, {4, 0}, {4, 1}, {5, 1}, {6, 0}, {6, 1}};
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
        varied v;
        varied_build(&v, fmts[f][0], (int)fmts[f][1]);
        gcev_trace *t;
        gcev_error err = {0};
        assert_int_equal(gcev_trace_open_memory(v.data, v.size, NULL, &t, &err), GCEV_OK);
        gcev_trace_event ev;
        int n = 0;
        gcev_status st;
        while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
            assert_true(n < VARIED);
            varied_check(&v, n, &ev, fmts[f][0]);
            n++;
        }
        assert_int_equal(st, GCEV_END);
        assert_int_equal(n, VARIED);
        if (fmts[f][0] >= 4) { /* the two explicit gaps */
            assert_int_equal(gcev_trace_dropped_events(t), 199 + 19999);
        }
        gcev_trace_close(t);
        int last = 0;
        for (size_t cut = 24; cut < v.size; cut++) {
            gcev_status ost = gcev_trace_open_memory(v.data, cut, NULL, &t, &err);
            if (ost != GCEV_OK) {
                assert_int_equal(ost, GCEV_E_TRUNCATED_FILE);
                continue;
            }
            int k = 0;
            while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
                varied_check(&v, k, &ev, fmts[f][0]);
                k++;
            }
            assert_int_equal(st, GCEV_E_TRUNCATED_FILE);
            assert_true(err.offset <= cut);
            assert_true(k >= last && k <= VARIED); /* a cut after the last event still misses the end */
            last = k;
            gcev_trace_close(t);
        }
        free(v.data);
    }
}

/* Every byte of the varied traces (NetPerf V1-V3, NetTrace V4-V6) flipped (to its complement,
 * and to 0x80, a LEB128 continuation), one at a time, read in file order, time order and with
 * keep-going: the read ends cleanly, or with a format, truncation, limit or unsupported error
 * whose offset lies in the file and that carries a message; never more events than a split
 * of every event could make. */
static void test_nettrace_every_flipped_byte_is_read_or_a_located_error(void **s)
{
    (void)s;
    static const uint32_t fmts[][2] = {{1, 0}, {2, 0}, {3, 0}, {4, 1}, {5, 0}, {6, 0}, {6, 1}};
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
        varied v;
        varied_build(&v, fmts[f][0], (int)fmts[f][1]);
        uint8_t *m = malloc(v.size);
        for (size_t pos = 0; pos < v.size; pos += failalloc_quick() ? 7 : 1) {
            for (int how = 0; how < 2; how++) {
                memcpy(m, v.data, v.size);
                m[pos] = how ? 0x80 : (uint8_t)~m[pos];
                for (uint32_t mode = 0; mode < 3; mode++) { /* file order, time order, keep-going */
                    gcev_trace_options o = {.struct_size = sizeof o,
                                            .order =
                                                mode == 1 ? GCEV_TRACE_ORDER_TIME : GCEV_TRACE_ORDER_FILE,
                                            .keep_going = mode == 2};
                    gcev_trace *t = NULL;
                    gcev_error err = {0};
                    gcev_status st = gcev_trace_open_memory(m, v.size, &o, &t, &err);
                    if (st == GCEV_OK) {
                        gcev_trace_event ev;
                        int n = 0;
                        while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
                            n++;
                        }
                        assert_true(n <= 2 * VARIED); /* a flipped size may split an event in two */
                    }
                    if (st != GCEV_END) {
                        if (st != GCEV_E_FORMAT && st != GCEV_E_TRUNCATED_FILE && st != GCEV_E_LIMIT &&
                            st != GCEV_E_UNSUPPORTED) {
                            fail_msg("V%u byte %zu -> %02x: %s", fmts[f][0], pos, m[pos],
                                     gcev_status_str(st));
                        }
                        assert_true(err.offset <= v.size);
                        assert_true(err.message && err.message[0]);
                    }
                    gcev_trace_close(t); /* NULL when the open failed */
                }
            }
        }
        free(m);
        free(v.data);
    }
}

/* 1100 sequence gaps: every dropped event is counted, the first 1024 gaps are kept in detail
 * (in file order, each with its expected and seen numbers), the rest only counted. */
/* Issue 22: capture-thread ids (event headers, sequence points) and V6 thread rows that all
 * shared one slot under the id map's former unkeyed hash. Reading them is linear work: the
 * slots the reader's maps examine stay a small multiple of the ids (n^2 / 2 before). */
static void test_nettrace_flooding_thread_ids_costs_linear_work(void **s)
{
    (void)s;
    enum { N = 1 << 15 };
    static const uint32_t fvs[] = {4, 5, 6};
    for (size_t v = 0; v < sizeof fvs / sizeof fvs[0]; v++) {
        wtrace t;
        wt_start(&t, fvs[v], 1);
        uint32_t meta = wt_define(&t, "MySource", 7, "E", field_a, 1);
        for (uint32_t i = 1; i <= N; i++) {
            wt_event(&t, meta, flood_id(i), 100 + i, 0);
        }
        assert_int_equal(gcev_writer_sequence_point(t.w, 100 + N + 1), GCEV_OK);
        wt_finish(&t);
        gcev_trace *tr;
        assert_int_equal(gcev_trace_open_memory(t.data, t.size, NULL, &tr, NULL), GCEV_OK);
        gcev_trace_event ev;
        gcev_status st;
        uint32_t n = 0;
        while ((st = gcev_trace_next(tr, &ev, NULL)) == GCEV_OK) {
            assert_true(ev.thread_id == flood_id(n + 1));
            n++;
        }
        assert_int_equal(st, GCEV_END);
        assert_int_equal(n, N);
        assert_int_equal(gcev_trace_dropped_events(tr), 0);
        const gcev_nettrace *np = tr->impl;
        assert_int_equal(np->nseqs, N);
        if (np->seq_ids.probes > (uint64_t)8 * N) {
            fail_msg("V%u: %llu probes for %d capture threads", fvs[v],
                     (unsigned long long)np->seq_ids.probes, N);
        }
        if (fvs[v] == 6) {
            assert_int_equal(np->nthreads, N);
            if (np->thread_ids.probes > (uint64_t)8 * N) {
                fail_msg("V6: %llu probes for %d thread rows", (unsigned long long)np->thread_ids.probes, N);
            }
        }
        gcev_trace_close(tr);
        gcev_writer_free(t.w);
    }
}

static void test_nettrace_more_gaps_than_kept_are_all_counted(void **s)
{
    (void)s;
    wtrace t;
    wt_start(&t, 5, 1);
    uint32_t meta = wt_define(&t, "MySource", 7, "E", field_a, 1);
    uint32_t seq = 0;
    for (int i = 0; i < 1101; i++) {
        seq += 1 + (i > 0) * (1 + (uint32_t)(i % 3)); /* from the second event: gaps of 1, 2, 3 */
        wt_event(&t, meta, 11, 100 + i, seq);
    }
    wt_finish(&t);
    gcev_trace *tr;
    assert_int_equal(gcev_trace_open_memory(t.data, t.size, NULL, &tr, NULL), GCEV_OK);
    gcev_trace_event ev;
    int n = 0;
    while (gcev_trace_next(tr, &ev, NULL) == GCEV_OK) {
        n++;
    }
    assert_int_equal(n, 1101);
    uint64_t want = 0;
    for (int i = 1; i < 1101; i++) {
        want += 1 + (uint64_t)(i % 3);
    }
    assert_int_equal(gcev_trace_dropped_events(tr), want);
    assert_int_equal(gcev_trace_drop_count(tr), 1024);
    const gcev_trace_drop *d = gcev_trace_drop_at(tr, 0);
    assert_int_equal(d->capture_thread_id, 11);
    assert_int_equal(d->expected_sequence, 2);
    assert_int_equal(d->seen_sequence, 4);
    assert_int_equal(d->dropped, 1 + 1 % 3);
    assert_non_null(gcev_trace_drop_at(tr, 1023));
    assert_null(gcev_trace_drop_at(tr, 1024));
    gcev_trace_close(tr);
    gcev_writer_free(t.w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nettrace_every_truncation_reports_truncated),
        cmocka_unit_test(test_nettrace_unknown_major_version_is_unsupported),
        cmocka_unit_test(test_nettrace_netperf_version_9_is_unsupported),
        cmocka_unit_test(test_nettrace_hostile_block_size_is_rejected),
        cmocka_unit_test(test_nettrace_corrupt_payload_size_is_format_error),
        cmocka_unit_test(test_nettrace_time_order_sorts_between_sequence_points),
        cmocka_unit_test(test_nettrace_sequence_gap_counts_drops),
        cmocka_unit_test(test_nettrace_reader_callback_matches_memory),
        cmocka_unit_test(test_nettrace_not_a_trace_is_unsupported),
        cmocka_unit_test(test_nettrace_v6_redefined_metadata_applies_from_its_record_on),
        cmocka_unit_test(test_nettrace_v6_metadata_flush_cycles_reuse_one_record_per_definition),
        cmocka_unit_test(test_nettrace_v6_id_used_after_a_metadata_flush_without_a_record_is_format_error),
        cmocka_unit_test(test_nettrace_time_order_equal_timestamps_keep_file_order),
        cmocka_unit_test(test_nettrace_time_order_first_stream_not_earliest),
        cmocka_unit_test(test_nettrace_sequence_restart_at_1_is_not_a_drop),
        cmocka_unit_test(test_nettrace_v6_thread_flush_forgets_sequence_numbers),
        cmocka_unit_test(test_nettrace_sync_time_utc_is_the_header_systemtime),
        cmocka_unit_test(test_nettrace_v6_label_lists_override_metadata),
        cmocka_unit_test(test_nettrace_kind_is_one_key_per_metadata_record),
        cmocka_unit_test(test_nettrace_time_order_from_memory_matches_the_copying_buffer),
        cmocka_unit_test(test_nettrace_each_allocation_failure_is_nomem_or_the_same_events),
        cmocka_unit_test(test_nettrace_varied_headers_read_back_and_every_cut_is_truncated),
        cmocka_unit_test(test_nettrace_every_flipped_byte_is_read_or_a_located_error),
        cmocka_unit_test(test_nettrace_more_gaps_than_kept_are_all_counted),
        cmocka_unit_test(test_nettrace_flooding_thread_ids_costs_linear_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
