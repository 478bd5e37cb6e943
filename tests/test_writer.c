/* SPDX-License-Identifier: MIT */
/* Writer -> reader round trips in every format the writer produces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev.h>

#include "trace_sample.h"

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

static void test_writer_netperf_v3_round_trip(void **s) { (void)s; check_round_trip(3, 0); }
static void test_writer_v4_compressed_round_trip(void **s) { (void)s; check_round_trip(4, 1); }
static void test_writer_v4_uncompressed_round_trip(void **s) { (void)s; check_round_trip(4, 0); }
static void test_writer_v6_compressed_round_trip(void **s) { (void)s; check_round_trip(6, 1); }
static void test_writer_v6_uncompressed_round_trip(void **s) { (void)s; check_round_trip(6, 0); }

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
    gcev_writer *w = (gcev_writer *)&o;
    assert_int_equal(gcev_writer_create(&o, &w), GCEV_E_UNSUPPORTED);
    assert_null(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_netperf_v3_round_trip),
        cmocka_unit_test(test_writer_v4_compressed_round_trip),
        cmocka_unit_test(test_writer_v4_uncompressed_round_trip),
        cmocka_unit_test(test_writer_v6_compressed_round_trip),
        cmocka_unit_test(test_writer_v6_uncompressed_round_trip),
        cmocka_unit_test(test_writer_v5_reports_version_5),
        cmocka_unit_test(test_writer_rejects_bad_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
