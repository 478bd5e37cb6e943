/* SPDX-License-Identifier: MIT */
/* Writer -> reader round trips in every format the writer produces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>
#include <gcev/gcev_writer.h>

#include "trace_sample.h"
#include "gcev_schema_desc.h"

static const int64_t file_order_ts[SAMPLE_EVENTS] = {100, 300, 200, 400, 600, 500};

static void check_round_trip(uint32_t version, int compressed)
{
    size_t n;
    uint8_t *data = sample_trace(version, compressed, &n);
    assert_non_null(data);
    gcev_trace *t;
    gcev_error err;
    assert_int_equal(gcev_trace_open_memory(data, n, NULL, &t, &err), GCEV_OK);
    const gcev_trace_info *info = gcev_trace_get_info(t);
    assert_int_equal(info->format, version == 3 ? GCEV_FORMAT_NETPERF : GCEV_FORMAT_NETTRACE);
    assert_int_equal(info->format_version, version);
    assert_int_equal(info->pointer_size, 8);
    assert_int_equal(info->process_id, 4242);
    assert_int_equal(info->processor_count, 4);
    assert_int_equal(info->clock_frequency, 1000000);
    assert_int_equal(info->sync_time_qpc, 50);
    gcev_trace_event ev;
    for (int i = 0; i < SAMPLE_EVENTS; i++) {
        assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_OK);
        assert_int_equal(ev.timestamp, file_order_ts[i]);
        assert_true(ev.ms == (double)(file_order_ts[i] - 50) / 1000.0);
        assert_int_equal(ev.process_id, 4242);
        int is_gc = (i == 0 || i == 3);
        if (is_gc) {
            assert_string_equal(ev.provider_name, "Microsoft-Windows-DotNETRuntime");
            assert_non_null(ev.provider);
            assert_int_equal(ev.event_id, 1);
            assert_int_equal(ev.version, 2);
            assert_int_equal(ev.payload_size, 26);
            assert_int_equal(ev.payload[0], 8);
            assert_int_equal(ev.thread_id, 11);
            assert_int_equal(ev.nfields, 0);
            if (i == 0) {
                assert_non_null(ev.stack);
                assert_int_equal(ev.stack_size, 16);
                assert_int_equal(ev.stack[15], 16);
            } else {
                assert_null(ev.stack);
            }
        } else {
            assert_string_equal(ev.provider_name, "MySource");
            assert_string_equal(ev.event_name, "Hello");
            assert_null(ev.provider);
            assert_int_equal(ev.event_id, 7);
            assert_int_equal(ev.keywords, 0xf00000000000ull);
            assert_int_equal(ev.nfields, 2);
            assert_string_equal(ev.fields[0].name, "a");
            assert_int_equal(ev.fields[1].type_code, 18);
            char json[128];
            gcev_trace_format_fields_json(&ev, json, sizeof json);
            assert_string_equal(json, "{\"a\":42,\"s\":\"hi\"}");
        }
        if (version >= 4) {
            assert_int_equal(ev.capture_thread_id, ev.thread_id);
            assert_true(ev.sequence >= 1);
        }
    }
    assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_END);
    assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_END);
    assert_int_equal(gcev_trace_dropped_events(t), 0);
    gcev_trace_close(t);
    free(data);
}

/* NetPerf V1/V2: records inline in the Trace object, no process id, processor
 * count or pointer size in the file (the reader reports 0, 1 and 8); V1 names
 * providers by GUID only. */
static void check_round_trip_v12(uint32_t version)
{
    size_t n;
    uint8_t *data = sample_trace(version, 0, &n);
    assert_non_null(data);
    gcev_trace *t;
    gcev_error err;
    assert_int_equal(gcev_trace_open_memory(data, n, NULL, &t, &err), GCEV_OK);
    const gcev_trace_info *info = gcev_trace_get_info(t);
    assert_int_equal(info->format, GCEV_FORMAT_NETPERF);
    assert_int_equal(info->format_version, version);
    assert_int_equal(info->pointer_size, 8);
    assert_int_equal(info->clock_frequency, 1000000);
    assert_int_equal(info->sync_time_qpc, 50);
    gcev_guid es_guid;
    assert_true(gcev_guid_parse(SAMPLE_V1_GUID, &es_guid));
    gcev_trace_event ev;
    for (int i = 0; i < SAMPLE_EVENTS; i++) {
        assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_OK);
        assert_int_equal(ev.timestamp, file_order_ts[i]);
        assert_true(ev.ms == (double)(file_order_ts[i] - 50) / 1000.0);
        if (i == 0 || i == 3) {
            assert_non_null(ev.provider);
            assert_string_equal(ev.provider->name, "Microsoft-Windows-DotNETRuntime");
            assert_int_equal(ev.has_provider_guid, 1);
            assert_int_equal(ev.event_id, 1);
            assert_int_equal(ev.version, 2);
            assert_int_equal(ev.payload_size, 26);
            assert_int_equal(ev.payload[0], 8);
            assert_int_equal(ev.thread_id, 11);
            if (i == 0) {
                assert_non_null(ev.stack);
                assert_int_equal(ev.stack_size, 16);
                assert_int_equal(ev.stack[15], 16);
            } else {
                assert_null(ev.stack);
            }
            gcev_input in = {.struct_size = sizeof in,
                             .provider = ev.provider,
                             .event_id = ev.event_id,
                             .version = ev.version,
                             .pointer_size = ev.pointer_size,
                             .data = ev.payload,
                             .size = ev.payload_size};
            gcev_event out;
            assert_int_equal(gcev_decode(&in, &out, NULL), GCEV_OK);
            assert_int_equal(out.u.gc_start.count, 8);
        } else {
            if (version == 1) {
                assert_string_equal(ev.provider_name, "");
                assert_int_equal(ev.has_provider_guid, 1);
                assert_memory_equal(&ev.provider_guid, &es_guid, sizeof es_guid);
            } else {
                assert_string_equal(ev.provider_name, "MySource");
            }
            assert_null(ev.provider);
            assert_string_equal(ev.event_name, "Hello");
            assert_int_equal(ev.event_id, 7);
            assert_int_equal(ev.keywords, 0xf00000000000ull);
            assert_int_equal(ev.nfields, 2);
            char json[128];
            gcev_trace_format_fields_json(&ev, json, sizeof json);
            assert_string_equal(json, "{\"a\":42,\"s\":\"hi\"}");
        }
    }
    assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_END);
    assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_END);
    gcev_trace_close(t);
    free(data);
}

/*
 * A V6 trace of more than 16 MiB of events on 8 threads with no sequence point until the end
 * (issue 22): the writer put them all in one block, whose size (a uint24, NetTraceFormat.md
 * "Blocks") wrapped into the kind byte; the reader then read 7 events of 1 M and ended cleanly
 * at zero bytes inside the events (2 M: "event record overruns its block"). The writer now
 * starts a new block past 1 MiB, as the runtime does at 100 KB; every event reads back.
 */
static void test_writer_v6_many_events_without_sequence_points(void **s)
{
    (void)s;
    enum { N = 600000, THREADS = 8 };
    for (uint8_t compressed = 0; compressed < 2; compressed++) {
        gcev_writer_options o = {6, compressed, 8, 42, 8, 1000000, 0};
        gcev_writer *w;
        assert_int_equal(gcev_writer_create(&o, &w), GCEV_OK);
        gcev_writer_meta m = {"Microsoft-Windows-DotNETRuntime", 1, 2, 1, 4, 1, "", NULL, 0};
        uint32_t id;
        assert_int_equal(gcev_writer_define(w, &m, &id), GCEV_OK);
        uint8_t p[24] = {0};
        for (uint32_t i = 0; i < N; i++) {
            memcpy(p, &i, 4);
            gcev_writer_event e = {id, 100 + i % THREADS, 0,    0, 0,  1000 + (int64_t)i,
                                   p,  sizeof p,          NULL, 0, {0}};
            assert_int_equal(gcev_writer_write(w, &e), GCEV_OK);
        }
        assert_int_equal(gcev_writer_sequence_point(w, 1000 + N), GCEV_OK);
        const uint8_t *d;
        size_t n;
        assert_int_equal(gcev_writer_finish(w, &d, &n), GCEV_OK);
        assert_true(n > (size_t)16 << 20);
        gcev_trace *t;
        gcev_error err = {0};
        assert_int_equal(gcev_trace_open_memory(d, n, NULL, &t, &err), GCEV_OK);
        gcev_trace_event ev;
        size_t k = 0;
        gcev_status st;
        while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
            k++;
        }
        assert_int_equal(st, GCEV_END);
        assert_int_equal(k, N);
        gcev_trace_close(t);
        gcev_writer_free(w);
    }
}

/* gcev_writer_runtime_blocks: stacks shared between sequence points (ids restart after each),
 * small event blocks; every event reads back with its own stack, and the file holds each
 * stack once per region rather than once per event. */
static void test_writer_runtime_blocks_share_stacks(void **s)
{
    (void)s;
    enum { N = 3000, STACKS = 7, SP = 1000, FRAMES = 20 };
    uint64_t stacks[STACKS][FRAMES];
    for (uint32_t k = 0; k < STACKS; k++) {
        for (uint32_t j = 0; j < FRAMES; j++) {
            stacks[k][j] = 0x7f0000001000ull + k * 0x100 + j;
        }
    }
    for (uint32_t version = 4; version <= 6; version++) {
        for (uint8_t compressed = 0; compressed < 2; compressed++) {
            gcev_writer_options o = {version, compressed, 8, 42, 8, 1000000, 0};
            gcev_writer *w;
            assert_int_equal(gcev_writer_create(&o, &w), GCEV_OK);
            assert_int_equal(gcev_writer_runtime_blocks(w, 4096), GCEV_OK);
            gcev_writer_meta m = {"Microsoft-Windows-DotNETRuntime", 1, 2, 1, 4, 1, "", NULL, 0};
            uint32_t id;
            assert_int_equal(gcev_writer_define(w, &m, &id), GCEV_OK);
            uint8_t p[24] = {0};
            for (uint32_t i = 0; i < N; i++) {
                uint32_t k = (i * 5 + i / 3) % STACKS;
                memcpy(p, &i, 4);
                gcev_writer_event e = {id,
                                       100 + i % 3,
                                       0,
                                       0,
                                       0,
                                       1000 + (int64_t)i,
                                       p,
                                       sizeof p,
                                       (const uint8_t *)stacks[k],
                                       (k + 1) * 8 * FRAMES / STACKS,
                                       {0}};
                assert_int_equal(gcev_writer_write(w, &e), GCEV_OK);
                if ((i + 1) % SP == 0) {
                    assert_int_equal(gcev_writer_sequence_point(w, 1000 + (int64_t)i), GCEV_OK);
                }
            }
            const uint8_t *d;
            size_t n;
            assert_int_equal(gcev_writer_finish(w, &d, &n), GCEV_OK);
            /* rows (at most 80 header bytes each) and a few stack blocks: a copy of the stack
             * per event would add ~90 bytes each */
            assert_true(n < (size_t)N * (80 + sizeof p) + 16384);
            gcev_trace *t;
            gcev_error err = {0};
            assert_int_equal(gcev_trace_open_memory(d, n, NULL, &t, &err), GCEV_OK);
            gcev_trace_event ev;
            uint32_t i = 0;
            gcev_status st;
            while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
                uint32_t got, k = (i * 5 + i / 3) % STACKS;
                memcpy(&got, ev.payload, 4);
                assert_int_equal(got, i);
                assert_int_equal(ev.stack_size, (k + 1) * 8 * FRAMES / STACKS);
                assert_memory_equal(ev.stack, stacks[k], ev.stack_size);
                i++;
            }
            assert_int_equal(st, GCEV_END);
            assert_int_equal(i, N);
            gcev_trace_close(t);
            gcev_writer_free(w);
        }
    }
    gcev_writer_options o3 = {3, 0, 8, 42, 8, 1000000, 0};
    gcev_writer *w3;
    assert_int_equal(gcev_writer_create(&o3, &w3), GCEV_OK);
    assert_int_equal(gcev_writer_runtime_blocks(w3, 0), GCEV_E_UNSUPPORTED);
    gcev_writer_free(w3);
}

/* Bytes after a V6 EndOfStream block, or after a V3-V5 end tag: an error, never a clean end
 * with events unread. */
static void test_v6_end_of_stream_before_the_end_is_an_error(void **s)
{
    (void)s;
    gcev_writer_options o = {6, 1, 8, 42, 1, 1000000, 0};
    gcev_writer *w;
    assert_int_equal(gcev_writer_create(&o, &w), GCEV_OK);
    gcev_writer_meta m = {"Microsoft-Windows-DotNETRuntime", 1, 2, 1, 4, 1, "", NULL, 0};
    uint32_t id;
    assert_int_equal(gcev_writer_define(w, &m, &id), GCEV_OK);
    uint8_t p[8] = {0};
    gcev_writer_event e = {id, 100, 0, 0, 0, 1000, p, sizeof p, NULL, 0, {0}};
    assert_int_equal(gcev_writer_write(w, &e), GCEV_OK);
    const uint8_t *d;
    size_t n;
    assert_int_equal(gcev_writer_finish(w, &d, &n), GCEV_OK);
    uint8_t *longer = calloc(1, n + 16);
    assert_non_null(longer);
    memcpy(longer, d, n);
    memcpy(longer + n, d + n - 4, 4); /* more bytes after the EndOfStream block */
    gcev_trace *t;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_memory(longer, n + 16, NULL, &t, &err), GCEV_OK);
    gcev_trace_event ev;
    assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_OK);
    assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_E_FORMAT);
    assert_int_equal(err.offset, n - 4);
    assert_non_null(strstr(err.message, "EndOfStream"));
    gcev_trace_close(t);
    free(longer);
    gcev_writer_free(w);
    /* V3-V5: bytes after the end tag (NullReference) */
    for (uint32_t v = 3; v <= 5; v++) {
        size_t sn = 0;
        uint8_t *tr = sample_trace(v, v >= 4, &sn);
        assert_non_null(tr);
        uint8_t *more = calloc(1, sn + 8);
        assert_non_null(more);
        memcpy(more, tr, sn);
        assert_int_equal(gcev_trace_open_memory(more, sn + 8, NULL, &t, &err), GCEV_OK);
        gcev_status st;
        while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        }
        assert_int_equal(st, GCEV_E_FORMAT);
        assert_int_equal(err.offset, sn - 1);
        gcev_trace_close(t);
        free(more);
        free(tr);
    }
}

static void test_writer_netperf_v1_round_trip(void **s)
{
    (void)s;
    check_round_trip_v12(1);
}
static void test_writer_netperf_v2_round_trip(void **s)
{
    (void)s;
    check_round_trip_v12(2);
}

/* V1 stores a GUID: a provider that is neither GUID text nor compiled is refused;
 * V1/V2 have no pointer-size field, so 32-bit traces are refused. */
static void test_writer_netperf_v12_limits(void **s)
{
    (void)s;
    gcev_writer_options o = {1, 0, 8, 0, 0, 0, 0};
    gcev_writer *w;
    assert_int_equal(gcev_writer_create(&o, &w), GCEV_OK);
    gcev_writer_meta m = {"MySource", 7, 0, 0, 4, 0, "Hello", NULL, 0};
    uint32_t id = 0;
    assert_int_equal(gcev_writer_define(w, &m, &id), GCEV_E_UNSUPPORTED);
    m.provider_name = "Microsoft-Windows-DotNETRuntime";
    assert_int_equal(gcev_writer_define(w, &m, &id), GCEV_OK);
    assert_int_equal(id, 1);
    gcev_writer_free(w);
    o.pointer_size = 4;
    o.format_version = 2;
    assert_int_equal(gcev_writer_create(&o, &w), GCEV_E_UNSUPPORTED);
}

/* Every prefix of a V1/V2 file: the forward-reference trailer is gone, so open
 * fails, or the walk ends in an error; never a clean end, never a crash. */
static void test_writer_netperf_v12_every_truncation_fails(void **s)
{
    (void)s;
    for (uint32_t version = 1; version <= 2; version++) {
        size_t n;
        uint8_t *full = sample_trace(version, 0, &n);
        assert_non_null(full);
        for (size_t cut = 0; cut < n; cut++) {
            uint8_t *p = malloc(cut ? cut : 1);
            memcpy(p, full, cut);
            gcev_trace *t = NULL;
            gcev_error err = {0};
            gcev_status st = gcev_trace_open_memory(p, cut, NULL, &t, &err);
            if (st == GCEV_OK) {
                gcev_trace_event ev;
                int k = 0;
                while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
                    k++;
                }
                assert_true(k <= SAMPLE_EVENTS);
                gcev_trace_close(t);
            } else {
                assert_null(t);
            }
            if (st == GCEV_END) {
                fail_msg("V%u cut at %zu of %zu bytes: clean end", version, cut, n);
            }
            assert_non_null(err.message);
            assert_true(err.offset <= cut);
            free(p);
        }
        free(full);
    }
}

static void test_writer_netperf_v3_round_trip(void **s)
{
    (void)s;
    check_round_trip(3, 0);
}
static void test_writer_v4_compressed_round_trip(void **s)
{
    (void)s;
    check_round_trip(4, 1);
}
static void test_writer_v4_uncompressed_round_trip(void **s)
{
    (void)s;
    check_round_trip(4, 0);
}
static void test_writer_v6_compressed_round_trip(void **s)
{
    (void)s;
    check_round_trip(6, 1);
}
static void test_writer_v6_uncompressed_round_trip(void **s)
{
    (void)s;
    check_round_trip(6, 0);
}

/* V5 is V4 plus metadata tags: the reader reports 5 once it sees them. */
static void test_writer_v5_reports_version_5(void **s)
{
    (void)s;
    size_t n;
    uint8_t *data = sample_trace(5, 1, &n);
    assert_non_null(data);
    gcev_trace *t;
    assert_int_equal(gcev_trace_open_memory(data, n, NULL, &t, NULL), GCEV_OK);
    gcev_trace_event ev;
    assert_int_equal(gcev_trace_next(t, &ev, NULL), GCEV_OK);
    assert_int_equal(gcev_trace_get_info(t)->format_version, 5);
    assert_int_equal(ev.has_opcode, 1);
    assert_int_equal(ev.opcode, 1);
    gcev_trace_close(t);
    free(data);
}

static void test_writer_rejects_bad_version(void **s)
{
    (void)s;
    gcev_writer_options o = {7, 1, 8, 0, 0, 0, 0};
    gcev_writer *w0 = NULL;
    o.format_version = 0;
    assert_int_equal(gcev_writer_create(&o, &w0), GCEV_E_UNSUPPORTED);
    o.format_version = 7;
    gcev_writer *w = (gcev_writer *)&o;
    assert_int_equal(gcev_writer_create(&o, &w), GCEV_E_UNSUPPORTED);
    assert_null(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_v6_many_events_without_sequence_points),
        cmocka_unit_test(test_v6_end_of_stream_before_the_end_is_an_error),
        cmocka_unit_test(test_writer_netperf_v1_round_trip),
        cmocka_unit_test(test_writer_netperf_v2_round_trip),
        cmocka_unit_test(test_writer_netperf_v12_limits),
        cmocka_unit_test(test_writer_netperf_v12_every_truncation_fails),
        cmocka_unit_test(test_writer_netperf_v3_round_trip),
        cmocka_unit_test(test_writer_v4_compressed_round_trip),
        cmocka_unit_test(test_writer_v4_uncompressed_round_trip),
        cmocka_unit_test(test_writer_v6_compressed_round_trip),
        cmocka_unit_test(test_writer_v6_uncompressed_round_trip),
        cmocka_unit_test(test_writer_v5_reports_version_5),
        cmocka_unit_test(test_writer_rejects_bad_version),
        cmocka_unit_test(test_writer_runtime_blocks_share_stacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
