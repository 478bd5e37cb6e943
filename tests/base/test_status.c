/* SPDX-License-Identifier: MIT */
/*
 * Every status code, reached through the public API, with a poisoned gcev_error
 * (memset to 0xff first): the call must set code, offset, field and message, so a
 * caller never reads a stale or uninitialised member. One test per status.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev_stats.h>
#include <gcev/gcev_trace.h>
#include <gcev/gcev_writer.h>

#include "trace_sample.h"

/* ---- allocation failure injection (this test links with --wrap=malloc,calloc,realloc) ---- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t k);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t k);
void *__wrap_realloc(void *p, size_t n);

static int fail_allocations;

void *__wrap_malloc(size_t n)
{
    return fail_allocations ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t k)
{
    return fail_allocations ? NULL : __real_calloc(n, k);
}

void *__wrap_realloc(void *p, size_t n)
{
    return fail_allocations ? NULL : __real_realloc(p, n);
}

/* ---- helpers ---- */

static gcev_error poisoned(void)
{
    gcev_error e;
    memset(&e, 0xff, sizeof e);
    return e;
}

static void assert_error(const gcev_error *e, gcev_status code, uint64_t offset, const char *field)
{
    assert_int_equal(e->code, code);
    assert_int_equal(e->offset, offset);
    if (field) {
        assert_non_null(e->field);
        assert_string_equal(e->field, field);
    } else {
        assert_null(e->field);
    }
    assert_non_null(e->message);
    assert_true(strlen(e->message) > 0);
}

static const gcev_provider *runtime(void)
{
    const gcev_provider *p = gcev_provider_find("Microsoft-Windows-DotNETRuntime");
    assert_non_null(p);
    return p;
}

static gcev_status decode(uint16_t id, uint16_t version, uint8_t ps, const uint8_t *data, size_t size,
                          gcev_error *err)
{
    gcev_input in = {.struct_size = sizeof in,
                     .provider = runtime(),
                     .event_id = id,
                     .version = version,
                     .pointer_size = ps,
                     .data = data,
                     .size = size};
    gcev_event ev;
    return gcev_decode(&in, &ev, err);
}

/* GCStart_V2: Count, Depth, Reason, Type (UInt32), ClrInstanceID (UInt16), ClientSequenceNumber (UInt64). */
static const uint8_t gc_start_v2[26] = {8, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0,
                                        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

/* ---- decoder statuses ---- */

static void test_status_ok_leaves_error_untouched(void **state)
{
    (void)state;
    gcev_error e = poisoned(), p = poisoned();
    assert_int_equal(decode(1, 2, 8, gc_start_v2, sizeof gc_start_v2, &e), GCEV_OK);
    assert_memory_equal(&e, &p, sizeof e);
}

static void test_status_invalid_arg_null_input(void **state)
{
    (void)state;
    gcev_error e = poisoned();
    gcev_event ev;
    assert_int_equal(gcev_decode(NULL, &ev, &e), GCEV_E_INVALID_ARG);
    assert_error(&e, GCEV_E_INVALID_ARG, 0, NULL);
}

static long long no_bytes(void *ctx, void *buf, size_t n)
{
    (void)ctx;
    (void)buf;
    (void)n;
    return 0;
}

/* The trace API's missing arguments: GCEV_E_INVALID_ARG at offset 0 with the message that
 * names them, *out left NULL. */
static void test_status_invalid_arg_trace_api_missing_arguments(void **state)
{
    (void)state;
    static const uint8_t one = 0;
    gcev_trace *t = (gcev_trace *)&one;
    gcev_error e = poisoned();
    assert_int_equal(gcev_trace_open_file(NULL, NULL, &t, &e), GCEV_E_INVALID_ARG);
    assert_error(&e, GCEV_E_INVALID_ARG, 0, NULL);
    assert_string_equal(e.message, "path and out are required");
    e = poisoned();
    assert_int_equal(gcev_trace_open_file("x", NULL, NULL, &e), GCEV_E_INVALID_ARG);
    assert_string_equal(e.message, "path and out are required");
    e = poisoned();
    assert_int_equal(gcev_trace_open_memory(NULL, 4, NULL, &t, &e), GCEV_E_INVALID_ARG);
    assert_error(&e, GCEV_E_INVALID_ARG, 0, NULL);
    assert_string_equal(e.message, "out is required; data may be NULL only when size is 0");
    e = poisoned();
    assert_int_equal(gcev_trace_open_memory(&one, 1, NULL, NULL, &e), GCEV_E_INVALID_ARG);
    e = poisoned();
    assert_int_equal(gcev_trace_open_reader(NULL, NULL, NULL, &t, &e), GCEV_E_INVALID_ARG);
    assert_error(&e, GCEV_E_INVALID_ARG, 0, NULL);
    assert_string_equal(e.message, "read function and out are required");
    e = poisoned();
    assert_int_equal(gcev_trace_open_reader(no_bytes, NULL, NULL, NULL, &e), GCEV_E_INVALID_ARG);
    e = poisoned();
    gcev_trace_event ev;
    assert_int_equal(gcev_trace_next(NULL, &ev, &e), GCEV_E_INVALID_ARG);
    assert_error(&e, GCEV_E_INVALID_ARG, 0, NULL);
    assert_string_equal(e.message, "trace and event are required");
    /* empty memory is no trace, and no argument error */
    e = poisoned();
    assert_int_equal(gcev_trace_open_memory(NULL, 0, NULL, &t, &e), GCEV_E_TRUNCATED_FILE);
    assert_null(t);
}

/* The trace accessors on no trace: zero counts and NULL records, never a crash. */
static void test_status_trace_accessors_of_no_trace_are_zero_or_null(void **state)
{
    (void)state;
    assert_null(gcev_trace_get_info(NULL));
    assert_int_equal(gcev_trace_bytes_read(NULL), 0);
    assert_int_equal(gcev_trace_dropped_events(NULL), 0);
    assert_int_equal(gcev_trace_drop_count(NULL), 0);
    assert_null(gcev_trace_drop_at(NULL, 0));
    assert_int_equal(gcev_trace_skip_count(NULL), 0);
    assert_null(gcev_trace_skip_at(NULL, 0));
    assert_int_equal(gcev_trace_skipped_ranges(NULL), 0);
    assert_int_equal(gcev_trace_skipped_bytes(NULL), 0);
    gcev_trace_close(NULL);
}

static void test_status_truncated_names_field_and_offset(void **state)
{
    (void)state;
    gcev_error e = poisoned();
    assert_int_equal(decode(1, 2, 8, gc_start_v2, 10, &e), GCEV_E_TRUNCATED);
    assert_error(&e, GCEV_E_TRUNCATED, 8, "Reason");
}

static void test_status_unterminated_string_names_field_and_offset(void **state)
{
    (void)state;
    /* PinObjectAtGCTime (33 v0), 8-byte pointers: HandleID, ObjectID, ObjectSize, then
     * TypeName at 24: two UTF-16 units and no terminator. */
    uint8_t p[28] = {0};
    p[24] = 'A';
    p[26] = 'B';
    gcev_error e = poisoned();
    assert_int_equal(decode(33, 0, 8, p, sizeof p, &e), GCEV_E_UNTERMINATED_STRING);
    assert_error(&e, GCEV_E_UNTERMINATED_STRING, 24, "TypeName");
}

static void test_status_unknown_provider_null_provider(void **state)
{
    (void)state;
    gcev_input in = {.struct_size = sizeof in,
                     .provider = NULL,
                     .event_id = 1,
                     .version = 2,
                     .pointer_size = 8,
                     .data = gc_start_v2,
                     .size = sizeof gc_start_v2};
    gcev_event ev;
    gcev_error e = poisoned();
    assert_int_equal(gcev_decode(&in, &ev, &e), GCEV_E_UNKNOWN_PROVIDER);
    assert_error(&e, GCEV_E_UNKNOWN_PROVIDER, 0, NULL);
}

static void test_status_unknown_event_unused_id(void **state)
{
    (void)state;
    gcev_error e = poisoned();
    assert_int_equal(decode(24, 0, 8, gc_start_v2, 1, &e), GCEV_E_UNKNOWN_EVENT);
    assert_error(&e, GCEV_E_UNKNOWN_EVENT, 0, NULL);
}

static void test_status_unknown_version_below_first(void **state)
{
    (void)state;
    /* GCJoin_V2 (203) exists only as version 2 */
    gcev_error e = poisoned();
    assert_int_equal(decode(203, 1, 8, gc_start_v2, 1, &e), GCEV_E_UNKNOWN_VERSION);
    assert_error(&e, GCEV_E_UNKNOWN_VERSION, 0, NULL);
}

static void test_status_bad_pointer_size_six(void **state)
{
    (void)state;
    gcev_error e = poisoned();
    assert_int_equal(decode(1, 2, 6, gc_start_v2, sizeof gc_start_v2, &e), GCEV_E_BAD_POINTER_SIZE);
    assert_error(&e, GCEV_E_BAD_POINTER_SIZE, 0, NULL);
}

static void test_status_bad_count_encoding_an_array_its_count_does_not_match(void **state)
{
    (void)state;
    /* GCBulkNode (18 v0): Index UInt32, Count UInt32, ClrInstanceID UInt16, then Count
     * elements of 32 bytes (8-byte pointers) at offset 10: one element. */
    uint8_t p[42] = {0};
    p[4] = 1;
    gcev_input in = {.struct_size = sizeof in,
                     .provider = runtime(),
                     .event_id = 18,
                     .version = 0,
                     .pointer_size = 8,
                     .data = p,
                     .size = sizeof p};
    gcev_event ev;
    assert_int_equal(gcev_decode(&in, &ev, NULL), GCEV_OK);
    ev.u.gc_bulk_node.count = 2; /* the count field says 2, the Values view holds 1 */
    uint8_t buf[128];
    size_t need;
    gcev_error e = poisoned();
    assert_int_equal(gcev_encode(&ev, buf, sizeof buf, &need, &e), GCEV_E_BAD_COUNT);
    assert_error(&e, GCEV_E_BAD_COUNT, 10, "Values");
}

static void test_status_truncated_array_count_larger_than_payload(void **state)
{
    (void)state;
    /* the same event, Count 1000 in 42 bytes: the payload ends inside Values */
    uint8_t p[42] = {0};
    p[4] = 0xe8;
    p[5] = 0x03;
    gcev_error e = poisoned();
    assert_int_equal(decode(18, 0, 8, p, sizeof p, &e), GCEV_E_TRUNCATED);
    assert_error(&e, GCEV_E_TRUNCATED, 10, "Values");
}

static void test_status_limit_payload_of_4_gib(void **state)
{
    (void)state;
    gcev_error e = poisoned();
    /* the size is refused before any byte is read */
    assert_int_equal(decode(1, 2, 8, gc_start_v2, (size_t)UINT32_MAX, &e), GCEV_E_LIMIT);
    assert_error(&e, GCEV_E_LIMIT, 0, NULL);
}

static void test_status_no_space_encoding_into_small_buffer(void **state)
{
    (void)state;
    gcev_input in = {.struct_size = sizeof in,
                     .provider = runtime(),
                     .event_id = 1,
                     .version = 2,
                     .pointer_size = 8,
                     .data = gc_start_v2,
                     .size = sizeof gc_start_v2};
    gcev_event ev;
    assert_int_equal(gcev_decode(&in, &ev, NULL), GCEV_OK);
    uint8_t buf[10];
    size_t need = 0;
    gcev_error e = poisoned();
    assert_int_equal(gcev_encode(&ev, buf, sizeof buf, &need, &e), GCEV_E_NO_SPACE);
    assert_int_equal(need, sizeof gc_start_v2);
    assert_error(&e, GCEV_E_NO_SPACE, sizeof buf, NULL);
}

/* ---- trace statuses ---- */

static uint8_t *sample(size_t *n)
{
    uint8_t *b = sample_trace(4, 1, n);
    assert_non_null(b);
    return b;
}

static void test_status_end_reports_where_the_trace_ends(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = sample(&n);
    gcev_trace *t;
    assert_int_equal(gcev_trace_open_memory(b, n, NULL, &t, NULL), GCEV_OK);
    gcev_trace_event ev;
    gcev_error e = poisoned();
    gcev_status st;
    while ((st = gcev_trace_next(t, &ev, &e)) == GCEV_OK) {
    }
    assert_int_equal(st, GCEV_END);
    assert_int_equal(e.code, GCEV_END);
    assert_int_equal(e.offset, n);
    assert_null(e.field);
    assert_non_null(e.message);
    gcev_trace_close(t);
    free(b);
}

static void test_status_unsupported_not_a_trace(void **state)
{
    (void)state;
    static const char text[] = "this is a text file, not a trace; it is long enough to be sniffed ...";
    gcev_trace *t = (gcev_trace *)1;
    gcev_error e = poisoned();
    assert_int_equal(gcev_trace_open_memory(text, sizeof text, NULL, &t, &e), GCEV_E_UNSUPPORTED);
    assert_null(t);
    assert_error(&e, GCEV_E_UNSUPPORTED, 0, NULL);
}

static void test_status_truncated_file_names_the_record_cut(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = sample(&n);
    /* "!FastSerialization.1" occupies offsets 12..31: a cut at 31 ends inside it */
    assert_memory_equal(b + 12, "!FastSerialization.1", 20);
    gcev_trace *t = (gcev_trace *)1;
    gcev_error e = poisoned();
    assert_int_equal(gcev_trace_open_memory(b, 31, NULL, &t, &e), GCEV_E_TRUNCATED_FILE);
    assert_null(t);
    assert_error(&e, GCEV_E_TRUNCATED_FILE, 12, NULL);
    free(b);
}

static void test_status_truncated_file_empty_input(void **state)
{
    (void)state;
    gcev_trace *t;
    gcev_error e = poisoned();
    assert_int_equal(gcev_trace_open_memory("", 0, NULL, &t, &e), GCEV_E_TRUNCATED_FILE);
    assert_error(&e, GCEV_E_TRUNCATED_FILE, 0, NULL);
}

static void test_status_format_bad_fastserialization_magic(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = sample(&n);
    /* "Nettrace", the int32 length 20, "!FastSerialization.1"; the Trace object's
     * BeginPrivateObject tag (5) follows at offset 32 */
    assert_memory_equal(b + 12, "!FastSerialization.1", 20);
    assert_int_equal(b[32], 5);
    b[32] = 0x42;
    gcev_trace *t;
    gcev_error e = poisoned();
    assert_int_equal(gcev_trace_open_memory(b, n, NULL, &t, &e), GCEV_E_FORMAT);
    assert_error(&e, GCEV_E_FORMAT, 32, NULL);
    free(b);
}

static long long failing_read(void *ctx, void *buf, size_t n)
{
    (void)ctx;
    (void)buf;
    (void)n;
    return -1;
}

static void test_status_io_read_callback_fails(void **state)
{
    (void)state;
    gcev_trace *t;
    gcev_error e = poisoned();
    assert_int_equal(gcev_trace_open_reader(failing_read, NULL, NULL, &t, &e), GCEV_E_IO);
    assert_error(&e, GCEV_E_IO, 0, NULL);
}

static void test_status_io_missing_file(void **state)
{
    (void)state;
    gcev_trace *t;
    gcev_error e = poisoned();
    assert_int_equal(gcev_trace_open_file("/nonexistent/gcev/trace.nettrace", NULL, &t, &e), GCEV_E_IO);
    assert_error(&e, GCEV_E_IO, 0, NULL);
}

static void test_status_limit_block_larger_than_the_limit(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = sample(&n);
    gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_FILE, .max_block_size = 16};
    gcev_trace *t = NULL;
    gcev_error e = poisoned();
    gcev_status st = gcev_trace_open_memory(b, n, &o, &t, &e);
    gcev_trace_event ev;
    while (st == GCEV_OK && (st = gcev_trace_next(t, &ev, &e)) == GCEV_OK) {
    }
    assert_int_equal(st, GCEV_E_LIMIT);
    assert_int_equal(e.code, GCEV_E_LIMIT);
    assert_true(e.offset < n);
    assert_null(e.field);
    assert_non_null(e.message);
    gcev_trace_close(t);
    free(b);
}

static void test_status_nomem_opening_a_trace(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = sample(&n);
    gcev_trace *t = (gcev_trace *)1;
    gcev_error e = poisoned();
    fail_allocations = 1;
    gcev_status st = gcev_trace_open_memory(b, n, NULL, &t, &e);
    fail_allocations = 0;
    assert_int_equal(st, GCEV_E_NOMEM);
    assert_null(t);
    assert_error(&e, GCEV_E_NOMEM, 0, NULL);
    free(b);
}

/* Out of memory while a trace is read into a GC model: GCEV_E_NOMEM with every member of the
 * error set, and the model finished (it refuses more events; freeing it frees everything). */
static void test_status_nomem_reading_a_trace_into_stats(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = sample(&n);
    gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME};
    gcev_trace *t;
    assert_int_equal(gcev_trace_open_memory(b, n, &o, &t, NULL), GCEV_OK);
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    gcev_error e = poisoned();
    fail_allocations = 1;
    gcev_status st = gcev_stats_read_trace(s, t, NULL, NULL, &e);
    fail_allocations = 0;
    assert_int_equal(st, GCEV_E_NOMEM);
    assert_int_equal(e.code, GCEV_E_NOMEM);
    assert_non_null(e.message);
    assert_true(e.offset <= n);
    gcev_stats_input in = {.struct_size = sizeof in};
    assert_int_equal(gcev_stats_add(s, &in), GCEV_E_INVALID_ARG);
    gcev_status again = gcev_stats_finish(s);
    assert_int_equal(gcev_stats_finish(s), again); /* the same every time */
    gcev_stats_free(s);
    gcev_trace_close(t);
    free(b);
}

static void test_status_every_code_has_a_message(void **state)
{
    (void)state;
    for (int s = 0; s < GCEV_STATUS_COUNT_; s++) {
        const char *m = gcev_status_str((gcev_status)s);
        assert_non_null(m);
        assert_string_not_equal(m, "unknown status");
    }
    assert_string_equal(gcev_status_str(GCEV_STATUS_COUNT_), "unknown status");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_ok_leaves_error_untouched),
        cmocka_unit_test(test_status_invalid_arg_null_input),
        cmocka_unit_test(test_status_invalid_arg_trace_api_missing_arguments),
        cmocka_unit_test(test_status_trace_accessors_of_no_trace_are_zero_or_null),
        cmocka_unit_test(test_status_truncated_names_field_and_offset),
        cmocka_unit_test(test_status_unterminated_string_names_field_and_offset),
        cmocka_unit_test(test_status_unknown_provider_null_provider),
        cmocka_unit_test(test_status_unknown_event_unused_id),
        cmocka_unit_test(test_status_unknown_version_below_first),
        cmocka_unit_test(test_status_bad_pointer_size_six),
        cmocka_unit_test(test_status_bad_count_encoding_an_array_its_count_does_not_match),
        cmocka_unit_test(test_status_truncated_array_count_larger_than_payload),
        cmocka_unit_test(test_status_limit_payload_of_4_gib),
        cmocka_unit_test(test_status_no_space_encoding_into_small_buffer),
        cmocka_unit_test(test_status_end_reports_where_the_trace_ends),
        cmocka_unit_test(test_status_unsupported_not_a_trace),
        cmocka_unit_test(test_status_truncated_file_names_the_record_cut),
        cmocka_unit_test(test_status_truncated_file_empty_input),
        cmocka_unit_test(test_status_format_bad_fastserialization_magic),
        cmocka_unit_test(test_status_io_read_callback_fails),
        cmocka_unit_test(test_status_io_missing_file),
        cmocka_unit_test(test_status_limit_block_larger_than_the_limit),
        cmocka_unit_test(test_status_nomem_opening_a_trace),
        cmocka_unit_test(test_status_nomem_reading_a_trace_into_stats),
        cmocka_unit_test(test_status_every_code_has_a_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
