/* SPDX-License-Identifier: MIT */
/*
 * EventSource payloads as JSON (src/format/gcev_eventsource.c): every EventPipe
 * type code with edge values (negative integers, 0x100 booleans, U+0100 and
 * non-BMP characters, non-finite floats, zigzag VarInts), arrays of bytes,
 * numbers and structs, nested objects, truncation at every byte, the depth
 * limit, and snprintf semantics.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev.h>
#include <gcev/gcev_trace.h>

#include "testutil.h"

enum {
    TC_OBJECT = 1,
    TC_BOOLEAN = 3,
    TC_CHAR = 4,
    TC_SBYTE = 5,
    TC_BYTE = 6,
    TC_INT16 = 7,
    TC_UINT16 = 8,
    TC_INT32 = 9,
    TC_UINT32 = 10,
    TC_INT64 = 11,
    TC_UINT64 = 12,
    TC_SINGLE = 13,
    TC_DOUBLE = 14,
    TC_DECIMAL = 15,
    TC_DATETIME = 16,
    TC_GUID = 17,
    TC_STRING = 18,
    TC_ARRAY = 19,
    TC_VARINT = 20,
    TC_VARUINT = 21,
    TC_FIXED_ARRAY = 22,
    TC_UTF8CHAR = 23,
    TC_RELLOC = 24,
    TC_DATALOC = 25
};

typedef struct pbuf {
    uint8_t b[512];
    size_t n;
} pbuf;

static void put(pbuf *p, uint64_t v, unsigned w)
{
    for (unsigned i = 0; i < w; i++) {
        p->b[p->n++] = (uint8_t)(v >> (8 * i));
    }
}

static void put_var(pbuf *p, uint64_t v)
{
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        p->b[p->n++] = (uint8_t)(c | (v ? 0x80 : 0));
    } while (v);
}

static void put_str16(pbuf *p, const uint16_t *u, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        put(p, u[i], 2);
    }
    put(p, 0, 2);
}

static gcev_trace_field fld(const char *name, uint32_t tc)
{
    gcev_trace_field f = {name, tc, 0, 0, NULL, 0, 0, 0};
    return f;
}

static gcev_trace_event es_event(const gcev_trace_field *f, uint32_t nf, const uint8_t *p, size_t n)
{
    gcev_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.fields = f;
    ev.nfields = nf;
    ev.payload = p;
    ev.payload_size = (uint32_t)n;
    ev.field_type_system = GCEV_FIELD_TYPES_EVENTPIPE;
    return ev;
}

/* Formats ev; checks the snprintf contract and that the text is one JSON value. */
static char *format(const gcev_trace_event *ev)
{
    size_t need = gcev_trace_format_fields_json(ev, NULL, 0);
    char *s = malloc(need + 1);
    assert_int_equal(gcev_trace_format_fields_json(ev, s, need + 1), need);
    assert_int_equal(strlen(s), need);
    tj v;
    if (tj_parse(s, &v) != 0) {
        fail_msg("not JSON: %s", s);
    }
    tj_free(&v);
    char small[7];
    assert_int_equal(gcev_trace_format_fields_json(ev, small, sizeof small), need);
    assert_int_equal(strlen(small), need < sizeof small ? need : sizeof small - 1);
    return s;
}

static void test_eventsource_every_fixed_type_with_edge_values(void **state)
{
    (void)state;
    gcev_trace_field f[] = {
        fld("b0", TC_BOOLEAN),   fld("b1", TC_BOOLEAN),  fld("c", TC_CHAR),      fld("sb", TC_SBYTE),
        fld("by", TC_BYTE),      fld("i16", TC_INT16),   fld("u16", TC_UINT16),  fld("i32", TC_INT32),
        fld("u32", TC_UINT32),   fld("i64", TC_INT64),   fld("u64", TC_UINT64),  fld("f", TC_SINGLE),
        fld("d", TC_DOUBLE),     fld("dec", TC_DECIMAL), fld("dt", TC_DATETIME), fld("g", TC_GUID),
        fld("u8c", TC_UTF8CHAR), fld("rel", TC_RELLOC),  fld("dat", TC_DATALOC),
    };
    pbuf p = {{0}, 0};
    put(&p, 0, 4);
    put(&p, 0x100, 4); /* non-zero above the low byte: true */
    put(&p, 0x0100, 2);
    put(&p, 0xff, 1); /* -1 */
    put(&p, 0xff, 1); /* 255 */
    put(&p, 0xfffe, 2);
    put(&p, 0xfffe, 2);
    put(&p, 0x80000000u, 4);
    put(&p, 0xffffffffu, 4);
    put(&p, UINT64_C(0x8000000000000000), 8);
    put(&p, UINT64_MAX, 8);
    float fl = 1.5f;
    uint32_t fu;
    memcpy(&fu, &fl, 4);
    put(&p, fu, 4);
    double db = -0.25;
    uint64_t du;
    memcpy(&du, &db, 8);
    put(&p, du, 8);
    for (int i = 0; i < 16; i++) {
        put(&p, (uint64_t)(0xa0 + i), 1);
    }
    put(&p, (uint64_t)-5, 8);
    static const uint8_t guid[16] = {0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e,
                                     0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4};
    memcpy(p.b + p.n, guid, 16);
    p.n += 16;
    put(&p, 0xC3, 1);
    put(&p, 0x00040002, 4);
    put(&p, 7, 4);
    gcev_trace_event ev = es_event(f, sizeof f / sizeof f[0], p.b, p.n);
    char *s = format(&ev);
    assert_string_equal(s, "{\"b0\":false,\"b1\":true,\"c\":\"\xC4\x80\",\"sb\":-1,\"by\":255,\"i16\":-2,"
                           "\"u16\":65534,\"i32\":-2147483648,\"u32\":4294967295,"
                           "\"i64\":-9223372036854775808,\"u64\":18446744073709551615,\"f\":1.5,"
                           "\"d\":-0.25,\"dec\":\"a0a1a2a3a4a5a6a7a8a9aaabacadaeaf\",\"dt\":-5,"
                           "\"g\":\"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4\",\"u8c\":195,\"rel\":262146,"
                           "\"dat\":7}");
    free(s);
}

static void test_eventsource_strings_u0100_non_bmp_and_controls(void **state)
{
    (void)state;
    gcev_trace_field f[] = {fld("s", TC_STRING), fld("e", TC_STRING), fld("n", TC_INT32)};
    pbuf p = {{0}, 0};
    static const uint16_t s1[] = {0x0100, 'a', 0xD83D, 0xDE00, 0x1F, '"', 0xDC00};
    put_str16(&p, s1, 7);
    put_str16(&p, NULL, 0);
    put(&p, 9, 4);
    gcev_trace_event ev = es_event(f, 3, p.b, p.n);
    char *s = format(&ev);
    assert_string_equal(s, "{\"s\":\"\xC4\x80"
                           "a\xF0\x9F\x98\x80\\u001f\\\"\xEF\xBF\xBD\",\"e\":\"\",\"n\":9}");
    free(s);
}

static void test_eventsource_non_finite_floats_are_null(void **state)
{
    (void)state;
    gcev_trace_field f[] = {fld("a", TC_DOUBLE), fld("b", TC_DOUBLE), fld("c", TC_SINGLE)};
    pbuf p = {{0}, 0};
    double v[2] = {INFINITY, NAN};
    for (int i = 0; i < 2; i++) {
        uint64_t u;
        memcpy(&u, &v[i], 8);
        put(&p, u, 8);
    }
    float fi = -INFINITY;
    uint32_t fu;
    memcpy(&fu, &fi, 4);
    put(&p, fu, 4);
    gcev_trace_event ev = es_event(f, 3, p.b, p.n);
    char *s = format(&ev);
    assert_string_equal(s, "{\"a\":null,\"b\":null,\"c\":null}");
    free(s);
}

static void test_eventsource_varints_zigzag_and_limits(void **state)
{
    (void)state;
    gcev_trace_field f[] = {fld("a", TC_VARINT), fld("b", TC_VARINT), fld("c", TC_VARINT),
                            fld("d", TC_VARUINT), fld("e", TC_VARUINT)};
    pbuf p = {{0}, 0};
    put_var(&p, 1);          /* zigzag -1 */
    put_var(&p, 4);          /* 2 */
    put_var(&p, UINT64_MAX); /* INT64_MIN */
    put_var(&p, 300);
    put_var(&p, UINT64_MAX);
    gcev_trace_event ev = es_event(f, 5, p.b, p.n);
    char *s = format(&ev);
    assert_string_equal(s,
                        "{\"a\":-1,\"b\":2,\"c\":-9223372036854775808,\"d\":300,\"e\":18446744073709551615}");
    free(s);
    /* eleven continuation bytes: not a varint */
    pbuf q = {{0}, 0};
    for (int i = 0; i < 11; i++) {
        put(&q, 0x80, 1);
    }
    put(&q, 0, 1);
    ev = es_event(f + 3, 1, q.b, q.n);
    s = format(&ev);
    assert_string_equal(s, "{\"d\":null,\"_truncated\":true}");
    free(s);
}

static void test_eventsource_arrays_of_bytes_numbers_and_structs(void **state)
{
    (void)state;
    gcev_trace_field pt[] = {fld("x", TC_INT16), fld("y", TC_STRING)};
    gcev_trace_field f[4];
    f[0] = fld("bytes", TC_ARRAY);
    f[0].array_type_code = TC_BYTE;
    f[1] = fld("sbytes", TC_ARRAY);
    f[1].array_type_code = TC_SBYTE;
    f[2] = fld("pts", TC_ARRAY);
    f[2].array_type_code = TC_OBJECT;
    f[2].fields = pt;
    f[2].nfields = 2;
    f[3] = fld("obj", TC_OBJECT);
    f[3].fields = pt;
    f[3].nfields = 2;
    pbuf p = {{0}, 0};
    put(&p, 3, 2);
    put(&p, 0x00, 1);
    put(&p, 0xab, 1);
    put(&p, 0xff, 1);
    put(&p, 2, 2);
    put(&p, 0x80, 1);
    put(&p, 0x7f, 1);
    put(&p, 2, 2);
    put(&p, (uint16_t)-7, 2);
    put_str16(&p, (const uint16_t[]){'q'}, 1);
    put(&p, 8, 2);
    put_str16(&p, NULL, 0);
    put(&p, 1, 2);
    put_str16(&p, (const uint16_t[]){'o'}, 1);
    gcev_trace_event ev = es_event(f, 4, p.b, p.n);
    char *s = format(&ev);
    assert_string_equal(s, "{\"bytes\":\"00abff\",\"sbytes\":[-128,127],\"pts\":[{\"x\":-7,\"y\":\"q\"},"
                           "{\"x\":8,\"y\":\"\"}],\"obj\":{\"x\":1,\"y\":\"o\"}}");
    free(s);
}

/* A payload cut at every byte: valid JSON, a null where the value was due, "_truncated". */
static void test_eventsource_every_truncation_stays_valid_json(void **state)
{
    (void)state;
    gcev_trace_field pt[] = {fld("x", TC_INT32), fld("s", TC_STRING)};
    gcev_trace_field f[3];
    f[0] = fld("n", TC_UINT16);
    f[1] = fld("pts", TC_ARRAY);
    f[1].array_type_code = TC_OBJECT;
    f[1].fields = pt;
    f[1].nfields = 2;
    f[2] = fld("raw", TC_ARRAY);
    f[2].array_type_code = TC_BYTE;
    pbuf p = {{0}, 0};
    put(&p, 5, 2);
    put(&p, 2, 2);
    for (int i = 0; i < 2; i++) {
        put(&p, (uint64_t)i, 4);
        put_str16(&p, (const uint16_t[]){'a', 'b'}, 2);
    }
    put(&p, 2, 2);
    put(&p, 0x11, 1);
    put(&p, 0x22, 1);
    for (size_t cut = 0; cut < p.n; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, p.b, cut);
        gcev_trace_event ev = es_event(f, 3, cut ? copy : NULL, cut);
        char *s = format(&ev);
        assert_non_null(strstr(s, "null"));
        assert_non_null(strstr(s, ",\"_truncated\":true}"));
        free(s);
        free(copy);
    }
    gcev_trace_event ev = es_event(f, 3, p.b, p.n);
    char *s = format(&ev);
    assert_string_equal(s,
                        "{\"n\":5,\"pts\":[{\"x\":0,\"s\":\"ab\"},{\"x\":1,\"s\":\"ab\"}],\"raw\":\"1122\"}");
    free(s);
}

static void test_eventsource_unknown_types_and_depth_limit_stop(void **state)
{
    (void)state;
    /* V6 fixed-length arrays and unknown codes cannot be sized: the object ends there */
    gcev_trace_field f[] = {fld("a", TC_INT32), fld("fx", TC_FIXED_ARRAY), fld("b", TC_INT32)};
    pbuf p = {{0}, 0};
    put(&p, 1, 4);
    put(&p, 2, 4);
    put(&p, 3, 4);
    gcev_trace_event ev = es_event(f, 3, p.b, p.n);
    char *s = format(&ev);
    assert_string_equal(s, "{\"a\":1,\"fx\":null,\"_truncated\":true}");
    free(s);
    gcev_trace_field u[] = {fld("z", 99), fld(NULL, TC_INT32)};
    ev = es_event(u + 1, 1, p.b, 4);
    s = format(&ev);
    assert_string_equal(s, "{\"\":1}");
    free(s);
    ev = es_event(u, 1, p.b, 4);
    s = format(&ev);
    assert_string_equal(s, "{\"z\":null,\"_truncated\":true}");
    free(s);
    /* objects nested 20 deep: the formatter stops at its depth limit */
    gcev_trace_field nest[21];
    for (int i = 0; i < 20; i++) {
        nest[i] = fld("o", TC_OBJECT);
        nest[i].fields = &nest[i + 1];
        nest[i].nfields = 1;
    }
    nest[20] = fld("leaf", TC_INT32);
    ev = es_event(nest, 1, p.b, 4);
    s = format(&ev);
    assert_non_null(strstr(s, "\"_truncated\":true}"));
    assert_null(strstr(s, "leaf"));
    free(s);
    /* no fields, no payload */
    ev = es_event(NULL, 0, NULL, 0);
    s = format(&ev);
    assert_string_equal(s, "{}");
    free(s);
    /* an array field without its field list (a malformed caller) */
    gcev_trace_field arr = fld("arr", TC_ARRAY);
    arr.array_type_code = TC_OBJECT;
    pbuf q = {{0}, 0};
    put(&q, 1, 2);
    ev = es_event(&arr, 1, q.b, q.n);
    s = format(&ev);
    assert_string_equal(s, "{\"arr\":[{}]}");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eventsource_every_fixed_type_with_edge_values),
        cmocka_unit_test(test_eventsource_strings_u0100_non_bmp_and_controls),
        cmocka_unit_test(test_eventsource_non_finite_floats_are_null),
        cmocka_unit_test(test_eventsource_varints_zigzag_and_limits),
        cmocka_unit_test(test_eventsource_arrays_of_bytes_numbers_and_structs),
        cmocka_unit_test(test_eventsource_every_truncation_stays_valid_json),
        cmocka_unit_test(test_eventsource_unknown_types_and_depth_limit_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
