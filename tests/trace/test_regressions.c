/* SPDX-License-Identifier: MIT */
/*
 * Regression tests for faults found by fuzzing (tests/fuzz) and by the
 * mutation tests, each with its minimized input built inline.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>

#include "etl_builder.h"

static void begin_etl(etlb *b)
{
    etlb_logfile lf = {8, 1000, 10000000, 1, 2304, 4, 0, 0, 0x01d7a58b4c3947ce};
    etlb_init(b, 1024);
    etlb_buffer_begin(b, 0, 0);
    etlb_logfile_header(b, &lf);
    etlb_buffer_end(b);
    etlb_buffer_begin(b, 1, 0);
}

/* Reads everything; returns the final status, with the count of events and the error. */
static gcev_status drain(const uint8_t *data, size_t size, size_t *n, gcev_error *err)
{
    gcev_trace *t;
    gcev_status st = gcev_trace_open_memory(data, size, NULL, &t, err);
    *n = 0;
    if (st != GCEV_OK) {
        return st;
    }
    gcev_trace_event ev;
    while ((st = gcev_trace_next(t, &ev, err)) == GCEV_OK) {
        (*n)++;
    }
    gcev_trace_close(t);
    return st;
}

/*
 * fuzz_etl: a trace that ends 1 byte into the 8-byte alignment padding after
 * a 20-byte record reported "ends inside an ETL record" at the next record's
 * offset, 3 bytes past the end of the input.
 */
static void test_etl_cut_in_record_alignment_offset_within_input(void **state)
{
    (void)state;
    etlb b;
    begin_etl(&b);
    uint8_t p[8] = {1, 2, 3, 4};
    size_t rec = etlb_kernel(&b, 0x11, 2, 0x0f2e, 0, 0, 9100, p, 4); /* 16 + 4 bytes, padded to 24 */
    etlb_kernel(&b, 0x11, 2, 0x0f2e, 0, 0, 9200, p, 8);
    etlb_buffer_end(&b);
    size_t cut = rec + 21;
    size_t n;
    gcev_error err;
    assert_int_equal(drain(b.data, cut, &n, &err), GCEV_E_TRUNCATED_FILE);
    assert_int_equal(n, 2); /* the header record and the 20-byte record */
    assert_true(err.offset <= cut);
    assert_true(err.offset >= rec);
    etlb_free(&b);
}

/*
 * fuzz_etl: a buffer whose records end with a fill marker, cut after the
 * marker but before the buffer's used size, reported "ends inside an ETL
 * buffer's padding" at buffer start + used size, past the end of the input.
 */
static void test_etl_cut_after_fill_marker_offset_within_input(void **state)
{
    (void)state;
    etlb b;
    begin_etl(&b);
    uint8_t p[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    etlb_kernel(&b, 0x11, 2, 0x0f2e, 0, 0, 9100, p, 8);
    static const uint8_t fill[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    size_t fill_at = etlb_raw(&b, fill, sizeof fill);
    etlb_kernel(&b, 0x11, 2, 0x0f2e, 0, 0, 9200, p, 8);
    etlb_kernel(&b, 0x11, 2, 0x0f2e, 0, 0, 9300, p, 8);
    etlb_buffer_end(&b);
    size_t cut = fill_at + 12;
    size_t n;
    gcev_error err;
    assert_int_equal(drain(b.data, cut, &n, &err), GCEV_E_TRUNCATED_FILE);
    assert_int_equal(n, 2);
    assert_true(err.offset <= cut);
    assert_true(err.offset >= fill_at);
    etlb_free(&b);
}

/*
 * Work limit: an EventSource array of structs whose elements each hold an
 * array of empty structs costs nothing per inner element, so 4 payload bytes
 * per outer element asked for 65535 x 65535 values (hours of work and
 * gigabytes of JSON). The formatter now stops after a budget proportional to
 * the payload and says so with "_work_limit":true.
 */
static void test_eventsource_empty_struct_arrays_bounded_work(void **state)
{
    (void)state;
    enum { OUTER = 2000 };
    static const gcev_trace_field inner[] = {{"e", 19 /* Array */, 1 /* of Object */, 0, NULL, 0, 0, 0}};
    static const gcev_trace_field top[] = {{"a", 19, 1, 1, inner, 0, 0, 0}};
    uint8_t *payload = malloc(2 + 2 * OUTER);
    assert_non_null(payload);
    payload[0] = (uint8_t)OUTER;
    payload[1] = (uint8_t)(OUTER >> 8);
    for (int i = 0; i < OUTER; i++) {
        payload[2 + 2 * i] = 0xff; /* 65535 empty structs */
        payload[3 + 2 * i] = 0xff;
    }
    gcev_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.payload = payload;
    ev.payload_size = 2 + 2 * OUTER;
    ev.fields = top;
    ev.nfields = 1;
    size_t need = gcev_trace_format_fields_json(&ev, NULL, 0);
    /* bounded by the budget: a few bytes per value, values <= 4096 + 16 * size */
    assert_true(need < 8 * (4096 + 16 * (size_t)ev.payload_size));
    char *buf = malloc(need + 1);
    assert_non_null(buf);
    assert_int_equal(gcev_trace_format_fields_json(&ev, buf, need + 1), need);
    assert_non_null(strstr(buf, "\"_work_limit\":true}"));
    free(buf);
    /* an ordinary nested array stays whole */
    payload[0] = 2;
    payload[1] = 0;
    payload[2] = 2;
    payload[3] = 0;
    payload[4] = 1;
    payload[5] = 0;
    ev.payload_size = 6;
    char small[128];
    gcev_trace_format_fields_json(&ev, small, sizeof small);
    assert_string_equal(small, "{\"a\":[{\"e\":[{},{}]},{\"e\":[{}]}]}");
    free(payload);
}

/*
 * A payload that ends inside an array of structs used to leave the array and
 * the element object open ({"a":[{"x":1,"y":"A"},{"x":null,"_truncated":true}),
 * which no JSON parser accepts. The fault is filled with null and every open
 * container is closed before the marker.
 */
static void test_eventsource_truncated_struct_array_stays_valid_json(void **state)
{
    (void)state;
    static const gcev_trace_field elem[] = {{"x", 9 /* Int32 */, 0, 0, NULL, 0, 0, 0},
                                            {"y", 18 /* String */, 0, 0, NULL, 0, 0, 0}};
    static const gcev_trace_field top[] = {{"a", 19 /* Array */, 1 /* of Object */, 2, elem, 0, 0, 0}};
    static const uint8_t payload[] = {
        2,   0,       /* two elements */
        1,   0, 0, 0, /* [0].x = 1 */
        'A', 0, 0, 0, /* [0].y = "A" */
        7,   0,       /* [1].x: only 2 of its 4 bytes */
    };
    gcev_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.payload = payload;
    ev.payload_size = sizeof payload;
    ev.fields = top;
    ev.nfields = 1;
    char buf[256];
    gcev_trace_format_fields_json(&ev, buf, sizeof buf);
    assert_string_equal(buf, "{\"a\":[{\"x\":1,\"y\":\"A\"},{\"x\":null}],\"_truncated\":true}");
}

/*
 * fuzz_etl (timestamp order): an event reordered with an empty payload comes out
 * with payload NULL; the TDH formatter computed NULL + 0 for its first scalar,
 * undefined behaviour that UBSan stops on. An empty payload now formats as
 * truncated without touching the pointer.
 */
static void test_tdh_empty_payload_without_bytes_is_truncated(void **state)
{
    (void)state;
    static const gcev_trace_field top[] = {{"s", 1 /* TDH UnicodeString */, 0, 0, NULL, 0, 0, 0}};
    gcev_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.field_type_system = GCEV_FIELD_TYPES_TDH;
    ev.fields = top;
    ev.nfields = 1;
    char buf[64];
    gcev_trace_format_fields_json(&ev, buf, sizeof buf);
    assert_string_equal(buf, "{\"s\":null,\"_truncated\":true}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_etl_cut_in_record_alignment_offset_within_input),
        cmocka_unit_test(test_etl_cut_after_fill_marker_offset_within_input),
        cmocka_unit_test(test_eventsource_empty_struct_arrays_bounded_work),
        cmocka_unit_test(test_eventsource_truncated_struct_array_stays_valid_json),
        cmocka_unit_test(test_tdh_empty_payload_without_bytes_is_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
