/* SPDX-License-Identifier: MIT */
/* The encoder (src/decode/gcev_encode.c): what it refuses, and its snprintf-like size report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev.h>

static void prepare(gcev_event *ev, uint16_t id, uint16_t version, uint8_t ps)
{
    gcev_status st;
    memset(ev, 0, sizeof *ev);
    ev->desc = gcev_event_desc_resolve(&gcev_provider_runtime, id, version, &st);
    assert_non_null(ev->desc);
    ev->pointer_size = ps;
}

/* GCEnd V0 has a UInt16 Depth; the family member is UInt32 (V1). */
static void test_encode_value_wider_than_the_version_field_is_refused(void **state)
{
    (void)state;
    gcev_event ev;
    prepare(&ev, 2, 0, 8);
    ev.u.gc_end.count = 3;
    ev.u.gc_end.depth = 0x10000;
    uint8_t b[16];
    size_t n = 99;
    gcev_error err;
    assert_int_equal(gcev_encode(&ev, b, sizeof b, &n, &err), GCEV_E_INVALID_ARG);
    assert_string_equal(err.field, "Depth");
    assert_non_null(err.message);
    ev.u.gc_end.depth = 0xffff; /* fits */
    assert_int_equal(gcev_encode(&ev, b, sizeof b, &n, &err), GCEV_OK);
    assert_int_equal(n, 6);
    assert_int_equal(b[4], 0xff);
    assert_int_equal(b[5], 0xff);
    /* a pointer above 32 bits cannot go into a 4-byte pointer */
    prepare(&ev, 23, 0, 4);
    ev.u.gc_generation_range.range_start = UINT64_C(0x100000000);
    assert_int_equal(gcev_encode(&ev, b, sizeof b, &n, &err), GCEV_E_INVALID_ARG);
    assert_string_equal(err.field, "RangeStart");
}

static void test_encode_array_view_must_match_its_count_field(void **state)
{
    (void)state;
    /* GCBulkRootEdge: Count, then Values (21-byte packed elements with 8-byte pointers) */
    uint8_t elems[2 * 21] = {0};
    gcev_event ev;
    prepare(&ev, 16, 0, 8);
    gcev_gc_bulk_root_edge *e = &ev.u.gc_bulk_root_edge;
    e->count = 2;
    e->values.data = elems;
    e->values.size = sizeof elems;
    e->values.count = 2;
    e->values.stride = 21;
    e->values.pointer_size = 8;
    uint8_t b[128];
    size_t n;
    gcev_error err;
    assert_int_equal(gcev_encode(&ev, b, sizeof b, &n, &err), GCEV_OK);
    assert_int_equal(n, 10 + sizeof elems);
    e->count = 3; /* the count field says 3, the view holds 2 */
    assert_int_equal(gcev_encode(&ev, b, sizeof b, &n, &err), GCEV_E_BAD_COUNT);
    assert_string_equal(err.field, "Values");
    uint8_t three[3 * 21] = {0};
    e->values.data = three;
    e->values.size = sizeof three; /* bytes for 3, a view that says 2 elements */
    assert_int_equal(gcev_encode(&ev, b, sizeof b, &n, &err), GCEV_E_BAD_COUNT);
    assert_string_equal(err.field, "Values");
    e->values.data = elems;
    e->count = 2;
    e->values.size = 2 * 17; /* 4-byte-pointer elements into an 8-byte-pointer payload */
    assert_int_equal(gcev_encode(&ev, b, sizeof b, &n, &err), GCEV_E_BAD_COUNT);
    assert_string_equal(err.field, "Values");
    e->values.size = sizeof elems;
    e->values.data = NULL;
    assert_int_equal(gcev_encode(&ev, b, sizeof b, &n, &err), GCEV_E_INVALID_ARG);
}

static void test_encode_reports_needed_size_and_never_writes_past_cap(void **state)
{
    (void)state;
    gcev_event ev;
    prepare(&ev, 1, 2, 8);
    ev.u.gc_start.count = 8;
    uint8_t b[32];
    memset(b, 0xaa, sizeof b);
    size_t n = 0;
    gcev_error err;
    assert_int_equal(gcev_encode(&ev, b, 25, &n, &err), GCEV_E_NO_SPACE);
    assert_int_equal(n, 26);
    assert_int_equal(err.offset, 25);
    assert_int_equal(b[25], 0xaa);
    assert_int_equal(gcev_encode(&ev, NULL, 0, &n, &err), GCEV_E_NO_SPACE);
    assert_int_equal(n, 26);
    assert_int_equal(gcev_encode(&ev, b, 26, &n, &err), GCEV_OK);
    assert_int_equal(b[0], 8);
    /* bad arguments */
    assert_int_equal(gcev_encode(NULL, b, sizeof b, &n, &err), GCEV_E_INVALID_ARG);
    assert_int_equal(n, 0);
    assert_int_equal(gcev_encode(&ev, NULL, 4, &n, &err), GCEV_E_INVALID_ARG);
    ev.pointer_size = 2;
    assert_int_equal(gcev_encode(&ev, b, sizeof b, &n, &err), GCEV_E_BAD_POINTER_SIZE);
    assert_int_equal(err.code, GCEV_E_BAD_POINTER_SIZE);
}

static void test_encode_string_views_without_data_are_refused(void **state)
{
    (void)state;
    gcev_event ev;
    prepare(&ev, 10, 2, 8);
    ev.u.gc_allocation_tick.type_name = (gcev_utf16){NULL, 4};
    uint8_t b[64];
    size_t n;
    gcev_error err;
    assert_int_equal(gcev_encode(&ev, b, sizeof b, &n, &err), GCEV_E_INVALID_ARG);
    assert_string_equal(err.field, "TypeName");
    /* an empty view is an empty string: just the terminator */
    ev.u.gc_allocation_tick.type_name = (gcev_utf16){NULL, 0};
    assert_int_equal(gcev_encode(&ev, b, sizeof b, &n, &err), GCEV_OK);
    assert_int_equal(n, 4 + 4 + 2 + 8 + 8 + 2 + 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_value_wider_than_the_version_field_is_refused),
        cmocka_unit_test(test_encode_array_view_must_match_its_count_field),
        cmocka_unit_test(test_encode_reports_needed_size_and_never_writes_past_cap),
        cmocka_unit_test(test_encode_string_views_without_data_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
