/* SPDX-License-Identifier: MIT */
/*
 * The field walk and the text / JSON formatters (src/format/gcev_format.c) on
 * the values that are easy to get wrong: negative signed fields, unsigned and
 * pointer values at or above 2^63, control characters and characters outside
 * the basic plane in strings, non-finite floats, hex out-types, bitmaps in
 * struct arrays and trailing bytes. Inputs are typed structs encoded with
 * gcev_encode (fields named, never positional) or hand-built payloads.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev.h>

#include "gcev_decode.h"
#include "gcev_quirks.h"
#include "gcev_schema_desc.h"
#include "testutil.h"

#define RT "Microsoft-Windows-DotNETRuntime"

typedef struct coded {
    uint8_t payload[1024];
    size_t size;
    gcev_event ev; /* decoded from payload */
} coded;

/* Encodes ev (fields set by the caller) as (provider, id, version), then decodes it back. */
static void encode_decode(coded *c, const gcev_provider *p, uint16_t id, uint16_t version, uint8_t ps,
                          gcev_event *ev)
{
    gcev_status st;
    ev->desc = gcev_event_desc_resolve(p, id, version, &st);
    assert_non_null(ev->desc);
    ev->pointer_size = ps;
    ev->version = version;
    gcev_error err = {0};
    assert_int_equal(gcev_encode(ev, c->payload, sizeof c->payload, &c->size, &err), GCEV_OK);
    gcev_input in = {.struct_size = sizeof in,
                     .provider = p,
                     .event_id = id,
                     .version = version,
                     .pointer_size = ps,
                     .data = c->payload,
                     .size = c->size};
    assert_int_equal(gcev_decode(&in, &c->ev, &err), GCEV_OK);
}

static char *text_of(const gcev_event *ev)
{
    size_t n = gcev_format_text(ev, NULL, 0);
    char *s = malloc(n + 1);
    assert_int_equal(gcev_format_text(ev, s, n + 1), n);
    return s;
}

static char *json_of(const gcev_event *ev)
{
    size_t n = gcev_format_fields_json(ev, NULL, 0);
    char *s = malloc(n + 1);
    assert_int_equal(gcev_format_fields_json(ev, s, n + 1), n);
    return s;
}

/* The field of that name, found by the walk. */
static gcev_field field_named(const gcev_event *ev, const char *name)
{
    gcev_field_iter it;
    gcev_field f;
    gcev_field_iter_init(&it, ev);
    while (gcev_field_next(&it, &f)) {
        if (!strcmp(f.name, name)) {
            return f;
        }
    }
    fail_msg("no field %s", name);
    return f;
}

/* The JSON number text of key in a flat fields object. */
static void assert_json_number(const char *json, const char *key, const char *want)
{
    tj v;
    assert_int_equal(tj_parse(json, &v), 0);
    const tj *x = tj_get(&v, key);
    assert_non_null(x);
    assert_int_equal(x->kind, TJ_NUM);
    assert_string_equal(x->num, want);
    tj_free(&v);
}

/* A UTF-16LE string view over code units (in a static buffer of the caller). */
static gcev_utf16 utf16(uint8_t *buf, const uint16_t *units, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        buf[2 * i] = (uint8_t)units[i];
        buf[2 * i + 1] = (uint8_t)(units[i] >> 8);
    }
    return (gcev_utf16){buf, (uint32_t)(2 * n)};
}

static void test_format_negative_int32_walks_and_prints_negative(void **state)
{
    (void)state;
    static const int32_t values[] = {-1, -3, INT32_MIN, INT32_MAX};
    static const char *const json_want[] = {"-1", "-3", "-2147483648", "2147483647"};
    static const char *const text_want[] = {"NumHeaps=-1 ", "NumHeaps=-3 ", "NumHeaps=-2147483648 ",
                                            "NumHeaps=2147483647 "};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        gcev_event ev;
        memset(&ev, 0, sizeof ev);
        ev.u.gc_global_heap_history.num_heaps = values[i];
        ev.u.gc_global_heap_history.final_youngest_desired = 0x1234;
        coded c;
        encode_decode(&c, &gcev_provider_runtime, 205, 2, 8, &ev);
        assert_int_equal(c.ev.u.gc_global_heap_history.num_heaps, values[i]);
        gcev_field f = field_named(&c.ev, "NumHeaps");
        assert_int_equal(f.type, GCEV_T_INT32);
        assert_true(f.v.i == values[i]);
        char *json = json_of(&c.ev);
        assert_json_number(json, "NumHeaps", json_want[i]);
        char *text = text_of(&c.ev);
        assert_non_null(strstr(text, text_want[i]));
        free(json);
        free(text);
    }
}

static void test_format_u64_and_pointers_at_2_63_and_above_print_unsigned(void **state)
{
    (void)state;
    gcev_event ev;
    memset(&ev, 0, sizeof ev);
    gcev_gc_allocation_tick *a = &ev.u.gc_allocation_tick;
    a->allocation_amount = 1;
    a->allocation_amount64 = UINT64_C(0x8000000000000000);
    a->type_id = UINT64_MAX;
    a->object_size = UINT64_C(0x8000000000000001);
    a->address = UINT64_C(0x8000000000000000);
    static uint8_t name[4];
    a->type_name = utf16(name, (const uint16_t[]){'T'}, 1);
    coded c;
    encode_decode(&c, &gcev_provider_runtime, 10, 4, 8, &ev);
    char *json = json_of(&c.ev);
    assert_json_number(json, "AllocationAmount64", "9223372036854775808");
    assert_json_number(json, "TypeID", "18446744073709551615");
    assert_json_number(json, "ObjectSize", "9223372036854775809");
    assert_json_number(json, "Address", "9223372036854775808");
    char *text = text_of(&c.ev);
    assert_non_null(strstr(text, " AllocationAmount64=0x8000000000000000 ")); /* HexInt64 */
    assert_non_null(strstr(text, " TypeID=0xffffffffffffffff "));
    assert_non_null(strstr(text, " Address=0x8000000000000000 "));
    assert_non_null(strstr(text, " ObjectSize=0x8000000000000001"));
    free(json);
    free(text);
    /* plain UInt64 fields print in decimal, unsigned */
    memset(&ev, 0, sizeof ev);
    ev.u.gc_generation_range.range_used_length = UINT64_C(0x8000000000000000);
    ev.u.gc_generation_range.range_reserved_length = UINT64_MAX;
    encode_decode(&c, &gcev_provider_runtime, 23, 0, 8, &ev);
    text = text_of(&c.ev);
    assert_non_null(
        strstr(text, " RangeUsedLength=9223372036854775808 RangeReservedLength=18446744073709551615 "));
    assert_null(strchr(text, '-'));
    json = json_of(&c.ev);
    assert_json_number(json, "RangeUsedLength", "9223372036854775808");
    assert_json_number(json, "RangeReservedLength", "18446744073709551615");
    free(json);
    free(text);
}

static void test_format_text_hex_out_type_and_pointer_are_hex(void **state)
{
    (void)state;
    gcev_event ev;
    memset(&ev, 0, sizeof ev);
    ev.u.gc_global_heap_history.final_youngest_desired = 0xabcdef; /* outType="win:HexInt64" */
    ev.u.gc_global_heap_history.num_heaps = 4;
    coded c;
    encode_decode(&c, &gcev_provider_runtime, 205, 2, 8, &ev);
    char *text = text_of(&c.ev);
    assert_non_null(strstr(text, "GCGlobalHeapHistory_V2 FinalYoungestDesired=0xabcdef NumHeaps=4 "));
    free(text);
    /* JSON keeps the number, whatever the out-type */
    char *json = json_of(&c.ev);
    assert_json_number(json, "FinalYoungestDesired", "11259375");
    free(json);

    /* GCGenerationRange: RangeStart is a pointer, RangeUsedLength a plain UInt64 */
    memset(&ev, 0, sizeof ev);
    ev.u.gc_generation_range.range_start = 0x7fff0000;
    ev.u.gc_generation_range.range_used_length = 4096;
    encode_decode(&c, &gcev_provider_runtime, 23, 0, 4, &ev);
    text = text_of(&c.ev);
    assert_non_null(strstr(text, " RangeStart=0x7fff0000 RangeUsedLength=4096 "));
    free(text);
}

/* Every control character U+0001..U+001F (U+0000 ends a UnicodeString), quote and backslash. */
static void test_format_json_string_escapes_every_control_character(void **state)
{
    (void)state;
    uint16_t units[40];
    size_t n = 0;
    for (uint16_t c = 1; c < 0x20; c++) {
        units[n++] = c;
    }
    units[n++] = '"';
    units[n++] = '\\';
    units[n++] = 'z';
    static uint8_t name[80];
    gcev_event ev;
    memset(&ev, 0, sizeof ev);
    ev.u.gc_allocation_tick.type_name = utf16(name, units, n);
    coded c;
    encode_decode(&c, &gcev_provider_runtime, 10, 2, 8, &ev);
    char *json = json_of(&c.ev);
    for (const char *p = json; *p; p++) {
        if ((unsigned char)*p < 0x20) {
            fail_msg("raw control byte 0x%02x at %zu of %s", (unsigned char)*p, (size_t)(p - json), json);
        }
    }
    /* the exact escapes: the short forms JSON has, \u00XX for the rest */
    assert_non_null(strstr(json, "\"TypeName\":\"\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\u0008"
                                 "\\t\\n\\u000b\\u000c\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014"
                                 "\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e"
                                 "\\u001f\\\"\\\\z\""));
    /* and a JSON reader gets the same characters back */
    tj v;
    assert_int_equal(tj_parse(json, &v), 0);
    const tj *s = tj_get(&v, "TypeName");
    assert_non_null(s);
    assert_int_equal(strlen(s->str), n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal((unsigned char)s->str[i], units[i]);
    }
    tj_free(&v);
    free(json);
}

/* U+1F600 (D83D DE00: a low surrogate whose low byte is 0) and U+10FFFF at the end. */
static void test_format_json_string_surrogate_pairs_become_utf8(void **state)
{
    (void)state;
    static const uint16_t units[] = {'a', 0xD83D, 0xDE00, 0x0100, 0xDBFF, 0xDFFF};
    static uint8_t name[16];
    gcev_event ev;
    memset(&ev, 0, sizeof ev);
    ev.u.pin_object_at_gc_time.type_name = utf16(name, units, 6);
    ev.u.pin_object_at_gc_time.object_size = 24;
    coded c;
    encode_decode(&c, &gcev_provider_runtime, 33, 0, 8, &ev);
    assert_int_equal(c.ev.u.pin_object_at_gc_time.type_name.nbytes, 12);
    assert_int_equal(c.ev.trailing, 0);
    char *json = json_of(&c.ev);
    assert_non_null(strstr(json, "\"TypeName\":\"a\xF0\x9F\x98\x80\xC4\x80\xF4\x8F\xBF\xBF\","));
    assert_json_number(json, "ClrInstanceID", "0");
    free(json);
    /* unpaired surrogates are U+FFFD, never raw surrogate bytes */
    static const uint16_t bad[] = {0xDC00, 'x', 0xD800};
    ev.u.pin_object_at_gc_time.type_name = utf16(name, bad, 3);
    encode_decode(&c, &gcev_provider_runtime, 33, 0, 8, &ev);
    json = json_of(&c.ev);
    assert_non_null(strstr(json, "\"TypeName\":\"\xEF\xBF\xBDx\xEF\xBF\xBD\""));
    free(json);
}

static void test_format_non_finite_floats_are_json_null_and_text_names(void **state)
{
    (void)state;
    gcev_event ev;
    memset(&ev, 0, sizeof ev);
    gcev_dynamic_size_adaptation_tuning *d = &ev.u.dynamic_size_adaptation_tuning;
    d->version = 1;
    d->median_throughput_cost_percent = (float)INFINITY;
    d->tcp_to_consider = (float)-INFINITY;
    d->current_around_target_accumulation = (float)NAN;
    d->recorded_tcp_slope = 0.5f;
    coded c;
    encode_decode(&c, &gcev_provider_dynamic, 4, 1, 8, &ev);
    char *json = json_of(&c.ev);
    assert_non_null(strstr(json, "\"MedianThroughputCostPercent\":null,"));
    assert_non_null(strstr(json, "\"TcpToConsider\":null,"));
    assert_non_null(strstr(json, "\"CurrentAroundTargetAccumulation\":null,"));
    assert_non_null(strstr(json, "\"RecordedTcpSlope\":0.5,"));
    tj v;
    assert_int_equal(tj_parse(json, &v), 0);
    tj_free(&v);
    char *text = text_of(&c.ev);
    assert_non_null(strstr(text, " MedianThroughputCostPercent=Inf TcpToConsider=-Inf "
                                 "CurrentAroundTargetAccumulation=NaN "));
    free(json);
    free(text);
}

/* GCBulkRootEdge elements: GCRootFlag is a bitmap; RefCounted (0x8) is its last flag. */
static void test_format_text_struct_array_bitmap_names_last_flag(void **state)
{
    (void)state;
    uint8_t p[10 + 2 * 21] = {0};
    p[4] = 2; /* Count */
    static const uint32_t flags[2] = {0x8, 0x1 | 0x8 | 0x20};
    for (int e = 0; e < 2; e++) {
        uint8_t *el = p + 10 + 21 * e;
        el[0] = (uint8_t)(0x10 + e);  /* RootedNodeAddress */
        el[8] = 1;                    /* GCRootKind: Finalizer */
        el[9] = (uint8_t)flags[e];    /* GCRootFlag */
        el[13] = (uint8_t)(0x20 + e); /* GCRootID */
    }
    gcev_input in = {.struct_size = sizeof in,
                     .provider = &gcev_provider_runtime,
                     .event_id = 16,
                     .version = 0,
                     .pointer_size = 8,
                     .data = p,
                     .size = sizeof p};
    gcev_event ev;
    assert_int_equal(gcev_decode(&in, &ev, NULL), GCEV_OK);
    char *text = text_of(&ev);
    assert_non_null(strstr(text, "GCRootFlag=8(RefCounted)"));
    assert_non_null(strstr(text, "GCRootFlag=41(Pinning|RefCounted|0x20)"));
    assert_non_null(strstr(text, "GCRootKind=1(Finalizer)"));
    free(text);
    char *json = json_of(&ev);
    assert_non_null(strstr(json, "\"Values\":[{\"RootedNodeAddress\":16,\"GCRootKind\":1,\"GCRootFlag\":8,"
                                 "\"GCRootID\":32},{\"RootedNodeAddress\":17,\"GCRootKind\":1,"
                                 "\"GCRootFlag\":41,\"GCRootID\":33}]"));
    free(json);
}

/* One byte after the template: decoded, reported as one trailing byte. */
static void test_format_text_one_trailing_byte_is_reported(void **state)
{
    (void)state;
    uint8_t p[27] = {8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0xee};
    gcev_input in = {.struct_size = sizeof in,
                     .provider = &gcev_provider_runtime,
                     .event_id = 1,
                     .version = 2,
                     .pointer_size = 8,
                     .data = p,
                     .size = sizeof p};
    gcev_event ev;
    assert_int_equal(gcev_decode(&in, &ev, NULL), GCEV_OK);
    char *text = text_of(&ev);
    assert_non_null(strstr(text, "ClientSequenceNumber=9 (+1 trailing bytes)"));
    free(text);
    in.size = 26;
    assert_int_equal(gcev_decode(&in, &ev, NULL), GCEV_OK);
    text = text_of(&ev);
    assert_null(strstr(text, "trailing"));
    free(text);
}

/* The names JSON: value maps by name, unknown values left out, fields without maps absent. */
static void test_format_names_json_names_known_values_only(void **state)
{
    (void)state;
    gcev_event ev;
    memset(&ev, 0, sizeof ev);
    ev.u.gc_start.reason = 1; /* Induced */
    ev.u.gc_start.type = 77;  /* no name */
    coded c;
    encode_decode(&c, &gcev_provider_runtime, 1, 2, 8, &ev);
    char s[128];
    assert_int_equal(gcev_format_names_json(&c.ev, s, sizeof s), strlen("{\"Reason\":\"Induced\"}"));
    assert_string_equal(s, "{\"Reason\":\"Induced\"}");
    assert_int_equal(gcev_format_names_json(NULL, s, sizeof s), 2);
    assert_string_equal(s, "{}");
}

/* GCEV_FIELD_LAZY_NAMES: the same fields, value_name left to gcev_field_value_name. */
static void test_format_lazy_names_leave_value_name_to_the_accessor(void **state)
{
    (void)state;
    gcev_event ev;
    memset(&ev, 0, sizeof ev);
    ev.u.gc_start.reason = 1; /* Induced */
    ev.u.gc_start.type = 77;  /* no name */
    coded c;
    encode_decode(&c, &gcev_provider_runtime, 1, 2, 8, &ev);
    gcev_field_iter it;
    gcev_field_iter_init(&it, &c.ev);
    gcev_field_iter_set_options(&it, GCEV_FIELD_LAZY_NAMES);
    gcev_field f;
    int reasons = 0;
    while (gcev_field_next(&it, &f)) {
        assert_null(f.value_name);
        if (!strcmp(f.name, "Reason")) {
            assert_string_equal(gcev_field_value_name(&f), "Induced");
            reasons++;
        } else if (!strcmp(f.name, "Type")) {
            assert_null(gcev_field_value_name(&f)); /* 77: unknown */
        }
    }
    assert_int_equal(reasons, 1);
    /* the runtime's reasons beyond the manifest's map, as gcev_map_value_name names them */
    ev.u.gc_start.reason = 12;
    encode_decode(&c, &gcev_provider_runtime, 1, 2, 8, &ev);
    gcev_field r = field_named(&c.ev, "Reason");
    assert_non_null(r.value_name);
    assert_ptr_equal(gcev_field_value_name(&r), r.value_name);
    /* options back to none: names again */
    gcev_field_iter_init(&it, &c.ev);
    gcev_field_iter_set_options(&it, GCEV_FIELD_LAZY_NAMES);
    gcev_field_iter_set_options(&it, 0);
    while (gcev_field_next(&it, &f) && strcmp(f.name, "Reason") != 0) {
    }
    assert_string_equal(f.name, "Reason");
    assert_ptr_equal(f.value_name, r.value_name);
    gcev_field_iter_set_options(NULL, GCEV_FIELD_LAZY_NAMES); /* ignored */
    assert_null(gcev_field_value_name(NULL));
}

/* Every value of every map the templates use, and the gaps around them, named as a search
 * of the sorted entries names them (gcev_map_name indexes maps without gaps directly). */
static void check_map_names(const gcev_map *m)
{
    gcev_map_info mi;
    assert_int_equal(gcev_map_get_info(m, &mi), GCEV_OK);
    for (size_t i = 0; i < mi.count; i++) {
        uint32_t v;
        const char *name;
        assert_int_equal(gcev_map_entry_at(m, i, &v, &name), GCEV_OK);
        assert_ptr_equal(gcev_map_name(m, v), name);
        for (uint64_t u = v + 1ull; u <= v + 3ull; u++) {
            uint32_t next = 0;
            const char *nn = NULL;
            int named = i + 1 < mi.count && gcev_map_entry_at(m, i + 1, &next, &nn) == GCEV_OK && next == u;
            if (named) {
                break;
            }
            assert_null(gcev_map_name(m, u));
        }
        if (v > 0 && i == 0) {
            assert_null(gcev_map_name(m, v - 1));
        }
    }
    assert_null(gcev_map_name(m, UINT64_C(1) << 32));
}

static void check_template_maps(const gcev_template *t)
{
    for (size_t i = 0; i < gcev_template_field_count(t); i++) {
        gcev_field_info fi;
        assert_int_equal(gcev_template_field(t, i, &fi), GCEV_OK);
        if (fi.map) {
            check_map_names(fi.map);
        }
        if (fi.elem) {
            check_template_maps(fi.elem);
        }
    }
}

static void test_format_map_names_of_every_map_match_the_entries(void **state)
{
    (void)state;
    size_t np;
    const gcev_provider *const *ps = gcev_providers(&np);
    for (size_t p = 0; p < np; p++) {
        gcev_provider_info pi;
        assert_int_equal(gcev_provider_get_info(ps[p], &pi), GCEV_OK);
        for (size_t e = 0; e < pi.event_count; e++) {
            gcev_event_info ei;
            assert_int_equal(gcev_event_get_info(gcev_provider_event_at(ps[p], e), &ei), GCEV_OK);
            check_template_maps(ei.fields);
        }
    }
}

/* ---- every event version: a payload from its schema, formatted ---- */

typedef struct wbuf {
    uint8_t b[8192];
    size_t n;
} wbuf;

static void wput(wbuf *b, uint64_t v, unsigned w)
{
    for (unsigned i = 0; i < w; i++) {
        b->b[b->n++] = (uint8_t)(v >> (8 * i));
    }
}

/* Is field i of t the count (1) or byte length (2: of a UnicodeString, 3: of bytes) of another? */
static int referenced_as(const gcev_template *t, size_t i)
{
    gcev_field_info o;
    for (size_t j = 0; j < gcev_template_field_count(t); j++) {
        assert_int_equal(gcev_template_field(t, j, &o), GCEV_OK);
        if (o.count_field == (int32_t)i) {
            return 1;
        }
        if (o.length_field == (int32_t)i) {
            return o.type == GCEV_T_UNICODE_STRING ? 2 : 3;
        }
    }
    return 0;
}

/* Packed payload of t: two elements per counted array, short strings, distinct values. */
static void build_payload(wbuf *b, const gcev_template *t, unsigned ps, unsigned seed)
{
    size_t n = gcev_template_field_count(t);
    for (size_t i = 0; i < n; i++) {
        gcev_field_info f;
        assert_int_equal(gcev_template_field(t, i, &f), GCEV_OK);
        unsigned w = f.wire_size[ps == 8];
        if (f.is_array) {
            uint32_t count = f.count_field >= 0 ? 2 : f.fixed_count;
            for (uint32_t e = 0; e < count; e++) {
                if (f.elem) {
                    build_payload(b, f.elem, ps, seed + 7 * (e + 1));
                } else {
                    gcev_field_info one = f;
                    (void)one;
                    wput(b, 0x81 + e + seed, w ? w : (f.type == GCEV_T_POINTER ? ps : 8));
                }
            }
        } else if (f.type == GCEV_T_UNICODE_STRING) {
            uint32_t chars = f.length_field >= 0 ? 3 : 2;
            for (uint32_t c = 0; c < chars; c++) {
                wput(b, c == 0 ? 0x00e9 : 'a' + (seed + c) % 26, 2);
            }
            if (f.length_field < 0) {
                wput(b, 0, 2);
            }
        } else if (f.type == GCEV_T_ANSI_STRING) {
            wput(b, 'q', 1);
            wput(b, 0xe9, 1);
            wput(b, f.length_field >= 0 ? 'z' : 0, 1);
        } else if (f.type == GCEV_T_BINARY) {
            uint32_t len = f.length_field >= 0 ? 3 : f.fixed_count;
            for (uint32_t c = 0; c < len; c++) {
                wput(b, 0xb0 + c, 1);
            }
        } else {
            int ref = referenced_as(t, i);
            if (ref) {
                wput(b, ref == 1 ? 2 : 3, w);
            } else if (f.type == GCEV_T_BOOLEAN) {
                wput(b, seed & 1, w);
            } else {
                uint64_t v = 0;
                for (unsigned k = 0; k < w; k++) {
                    v |= (uint64_t)((seed + i * 13 + k * 5 + 1) & 0xff) << (8 * k);
                }
                wput(b, v, w);
            }
        }
    }
}

/* Keys of a JSON object, recursively counted as fields (array elements' objects included). */
static size_t json_fields(const tj *v)
{
    size_t n = 0;
    if (v->kind == TJ_OBJ) {
        for (size_t i = 0; i < v->n; i++) {
            n += 1 + json_fields(&v->items[i]);
        }
    } else if (v->kind == TJ_ARR) {
        for (size_t i = 0; i < v->n; i++) {
            n += json_fields(&v->items[i]);
        }
    }
    return n;
}

/* Fields of a decoded event as the walk sees them, struct array elements included. */
static size_t walk_fields(gcev_field_iter *it)
{
    size_t n = 0;
    gcev_field f;
    while (gcev_field_next(it, &f)) {
        n++;
        if (f.is_array && f.v.array.elem) {
            for (uint32_t e = 0; e < f.v.array.count; e++) {
                uint8_t elem[512];
                gcev_field_iter sub;
                assert_int_equal(gcev_field_iter_elem(&sub, &f.v.array, e, elem, sizeof elem), GCEV_OK);
                n += walk_fields(&sub);
            }
        }
    }
    return n;
}

/* The walk with GCEV_FIELD_LAZY_NAMES yields the same fields as without, value_name aside,
 * which gcev_field_value_name gives as the eager walk filled it. */
static void assert_lazy_walk_matches(const gcev_event *ev)
{
    gcev_field_iter eager, lazy;
    gcev_field_iter_init(&eager, ev);
    gcev_field_iter_init(&lazy, ev);
    gcev_field_iter_set_options(&lazy, GCEV_FIELD_LAZY_NAMES);
    for (;;) {
        gcev_field a, b;
        int more = gcev_field_next(&eager, &a);
        assert_int_equal(gcev_field_next(&lazy, &b), more);
        if (!more) {
            break;
        }
        assert_null(b.value_name);
        assert_ptr_equal(gcev_field_value_name(&b), a.value_name);
        assert_ptr_equal(gcev_field_value_name(&a), a.value_name);
        b.value_name = a.value_name;
        assert_memory_equal(&a, &b, sizeof a);
    }
}

/* gcev_fields() gives, in one call, what the walk yields with the same options, byte for
 * byte; with less room the first fields and the same count; with out NULL the count. */
static void assert_batch_matches(const gcev_event *ev)
{
    for (unsigned options = 0; options <= GCEV_FIELD_LAZY_NAMES; options += GCEV_FIELD_LAZY_NAMES) {
        gcev_field_iter it;
        gcev_field_iter_init(&it, ev);
        gcev_field_iter_set_options(&it, options);
        gcev_field walked[64], batch[64];
        size_t n = 0;
        while (n < 64 && gcev_field_next(&it, &walked[n])) {
            n++;
        }
        memset(batch, 0xa5, sizeof batch);
        assert_int_equal(gcev_fields(ev, batch, 64, options), n);
        assert_memory_equal(batch, walked, n * sizeof batch[0]);
        assert_int_equal(gcev_fields(ev, NULL, 0, options), n);
        if (n > 1) {
            memset(batch, 0xa5, sizeof batch);
            assert_int_equal(gcev_fields(ev, batch, n - 1, options), n);
            assert_memory_equal(batch, walked, (n - 1) * sizeof batch[0]);
            const unsigned char *past = (const unsigned char *)&batch[n - 1];
            for (size_t i = 0; i < sizeof batch[0]; i++) {
                assert_int_equal(past[i], 0xa5); /* nothing written past cap */
            }
        }
    }
}

static void test_format_every_event_version_gives_json_with_every_field(void **state)
{
    (void)state;
    size_t np, checked = 0;
    const gcev_provider *const *ps = gcev_providers(&np);
    for (size_t p = 0; p < np; p++) {
        gcev_provider_info pi;
        assert_int_equal(gcev_provider_get_info(ps[p], &pi), GCEV_OK);
        for (size_t e = 0; e < pi.event_count; e++) {
            gcev_event_info ei;
            assert_int_equal(gcev_event_get_info(gcev_provider_event_at(ps[p], e), &ei), GCEV_OK);
            if (!strcmp(pi.name, RT) && (ei.id == 208 || ei.id == 209)) {
                continue; /* C-aligned elements (a quirk): test_decode builds those */
            }
            for (unsigned ptr = 4; ptr <= 8; ptr += 4) {
                static wbuf b;
                b.n = 0;
                if (ei.fields) {
                    build_payload(&b, ei.fields, ptr, ei.id);
                }
                gcev_input in = {.struct_size = sizeof in,
                                 .provider = ps[p],
                                 .event_id = ei.id,
                                 .version = ei.version,
                                 .pointer_size = (uint8_t)ptr,
                                 .data = b.b,
                                 .size = b.n};
                gcev_event ev;
                gcev_error err;
                if (gcev_decode(&in, &ev, &err) != GCEV_OK) {
                    fail_msg("%s ps=%u: %s (%s)", ei.symbol, ptr, err.message, err.field ? err.field : "-");
                }
                char *json = json_of(&ev);
                tj v;
                if (tj_parse(json, &v) != 0) {
                    fail_msg("%s: not JSON: %s", ei.symbol, json);
                }
                gcev_field_iter it;
                gcev_field_iter_init(&it, &ev);
                size_t walked = walk_fields(&it);
                assert_lazy_walk_matches(&ev);
                assert_batch_matches(&ev);
                /* a payload cut short: the fields read before the fault, as the walk gives them */
                if (b.n > 1) {
                    in.size = b.n / 2;
                    gcev_event part;
                    if (gcev_decode(&in, &part, NULL) != GCEV_OK && part.desc) {
                        assert_batch_matches(&part);
                    }
                }
                /* primitive arrays are one key holding numbers: no extra fields */
                assert_int_equal(json_fields(&v), walked);
                tj_free(&v);
                char *text = text_of(&ev);
                assert_int_equal(strncmp(text, ei.symbol, strlen(ei.symbol)), 0);
                char names[4096];
                size_t nn = gcev_format_names_json(&ev, names, sizeof names);
                assert_true(nn < sizeof names);
                assert_int_equal(tj_parse(names, &v), 0);
                tj_free(&v);
                free(json);
                free(text);
                checked++;
            }
        }
    }
    assert_true(checked >= 2 * 130);
}

/* ---- a template with every field type the runtime's manifest leaves out ---- */

/* Typed structs laid out as gcev-gen lays them out (present, schema_version, members). */
typedef struct at_pair {
    uint64_t present;
    int16_t s;
    double d;
    int8_t t;
} at_pair;

#define AT_FIELD(nm, ty, st, bit, strct, member, fixed, w)                                                   \
    {                                                                                                        \
        .name = nm, .type = ty, .store = st, .out_type = GCEV_OUT_DEFAULT, .present_bit = bit,               \
        .offset = offsetof(strct, member), .count_field = -1, .fixed_count = fixed, .length_field = -1,      \
        .map = NULL, .elem = NULL, .wire = {                                                                 \
            w,                                                                                               \
            w                                                                                                \
        }                                                                                                    \
    }

static const gcev_field_desc at_pair_fields[] = {
    AT_FIELD("S", GCEV_T_INT16, GCEV_S_I16, 0, at_pair, s, 0, 2),
    AT_FIELD("D", GCEV_T_DOUBLE, GCEV_S_F64, 1, at_pair, d, 0, 8),
    AT_FIELD("T", GCEV_T_INT8, GCEV_S_I8, 2, at_pair, t, 0, 1),
};
static const gcev_template at_pair_tmpl = {"ATC.Pairs", at_pair_fields, 3,   sizeof(at_pair),
                                           {11, 11},    GCEV_TF_FIXED,  0x7, NULL};

/* Three events, as each typed struct must fit gcev_event.u: scalars, integer arrays,
 * float and struct arrays. */
typedef struct at_a {
    uint64_t present;
    uint16_t schema_version;
    int8_t small;
    int16_t shrt;
    int64_t lng;
    double real;
    gcev_guid id;
    gcev_bytes when;
    gcev_bytes blob;
    gcev_array i8s;
} at_a;

typedef struct at_b {
    uint64_t present;
    uint16_t schema_version;
    gcev_array i16s, i32s, i64s;
} at_b;

typedef struct at_c {
    uint64_t present;
    uint16_t schema_version;
    gcev_array f32s, f64s, pairs;
} at_c;

static const gcev_field_desc at_a_fields[] = {
    AT_FIELD("Small", GCEV_T_INT8, GCEV_S_I8, 0, at_a, small, 0, 1),
    AT_FIELD("Short", GCEV_T_INT16, GCEV_S_I16, 1, at_a, shrt, 0, 2),
    AT_FIELD("Long", GCEV_T_INT64, GCEV_S_I64, 2, at_a, lng, 0, 8),
    AT_FIELD("Real", GCEV_T_DOUBLE, GCEV_S_F64, 3, at_a, real, 0, 8),
    AT_FIELD("Id", GCEV_T_GUID, GCEV_S_GUID, 4, at_a, id, 0, 16),
    AT_FIELD("When", GCEV_T_SYSTEMTIME, GCEV_S_BYTES, 5, at_a, when, 0, 16),
    AT_FIELD("Blob", GCEV_T_BINARY, GCEV_S_BYTES, 6, at_a, blob, 3, 0),
    AT_FIELD("I8s", GCEV_T_INT8, GCEV_S_ARRAY, 7, at_a, i8s, 2, 0),
};
static const gcev_field_desc at_b_fields[] = {
    AT_FIELD("I16s", GCEV_T_INT16, GCEV_S_ARRAY, 0, at_b, i16s, 2, 0),
    AT_FIELD("I32s", GCEV_T_INT32, GCEV_S_ARRAY, 1, at_b, i32s, 2, 0),
    AT_FIELD("I64s", GCEV_T_INT64, GCEV_S_ARRAY, 2, at_b, i64s, 2, 0),
};
static const gcev_field_desc at_c_fields[] = {
    AT_FIELD("F32s", GCEV_T_FLOAT, GCEV_S_ARRAY, 0, at_c, f32s, 2, 0),
    AT_FIELD("F64s", GCEV_T_DOUBLE, GCEV_S_ARRAY, 1, at_c, f64s, 2, 0),
    {.name = "Pairs",
     .type = GCEV_T_STRUCT,
     .store = GCEV_S_ARRAY,
     .out_type = GCEV_OUT_DEFAULT,
     .present_bit = 2,
     .offset = offsetof(at_c, pairs),
     .count_field = -1,
     .fixed_count = 2,
     .length_field = -1,
     .map = NULL,
     .elem = &at_pair_tmpl,
     .wire = {0, 0}},
};
static const gcev_template at_tmpls[3] = {
    /* no fill function: gcev_fields() takes its descriptor path for these */
    {"ATA", at_a_fields, 8, sizeof(at_a), {0, 0}, 0, 0xff, NULL},
    {"ATB", at_b_fields, 3, sizeof(at_b), {0, 0}, 0, 0x7, NULL},
    {"ATC", at_c_fields, 3, sizeof(at_c), {0, 0}, GCEV_TF_STRUCT_ARRAYS, 0x7, NULL},
};

typedef struct wr {
    uint8_t b[256];
    size_t n;
} wr;

static void wr_le(wr *w, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++) {
        w->b[w->n++] = (uint8_t)(v >> (8 * i));
    }
}

static void wr_f64(wr *w, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    wr_le(w, u, 8);
}

static void wr_f32(wr *w, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    wr_le(w, u, 4);
}

static void wr_guid(wr *w)
{
    wr_le(w, 0x01020304, 4);
    wr_le(w, 0x0506, 2);
    wr_le(w, 0x0708, 2);
    for (unsigned i = 9; i <= 16; i++) {
        wr_le(w, i, 1);
    }
}

static void wr_pair(wr *w, int16_t s, double d, int8_t t, int aligned)
{
    size_t start = w->n;
    wr_le(w, (uint16_t)s, 2);
    if (aligned) {
        wr_le(w, 0, 6);
    }
    wr_f64(w, d);
    wr_le(w, (uint8_t)t, 1);
    if (aligned) {
        wr_le(w, 0, 24 - (w->n - start));
    }
}

/* The payload of at_tmpls[k]; struct-array elements packed, or C-aligned (stride 24). */
static void at_payload(wr *w, int k, int aligned)
{
    w->n = 0;
    if (k == 0) {
        wr_le(w, 0xff, 1);                  /* Small -1 */
        wr_le(w, 0xfffe, 2);                /* Short -2 */
        wr_le(w, (uint64_t)(int64_t)-3, 8); /* Long */
        wr_f64(w, 2.5);                     /* Real */
        wr_guid(w);                         /* Id */
        static const uint16_t when[8] = {2025, 12, 2, 1, 13, 14, 15, 16};
        for (int i = 0; i < 8; i++) {
            wr_le(w, when[i], 2);
        }
        wr_le(w, 0xccbbaa, 3);             /* Blob */
        wr_le(w, 0xff, 1), wr_le(w, 2, 1); /* I8s */
    } else if (k == 1) {
        wr_le(w, (uint16_t)-300, 2), wr_le(w, 4, 2);
        wr_le(w, (uint32_t)-70000, 4), wr_le(w, 5, 4);
        wr_le(w, (uint64_t)INT64_C(-5000000000), 8), wr_le(w, 6, 8);
    } else {
        wr_f32(w, 0.5f), wr_f32(w, -1.5f);
        wr_f64(w, 0.25), wr_f64(w, 1e300);
        wr_pair(w, -7, -0.125, -8, aligned);
        wr_pair(w, 9, 3.0, 127, aligned);
    }
}

static const struct {
    const char *text, *json;
    uint32_t offsets[8];
    size_t size[2]; /* packed, aligned */
} at_want[3] = {
    {"ATA Small=-1 Short=-2 Long=-3 Real=2.5 Id=01020304-0506-0708-090a-0b0c0d0e0f10 "
     "When=e9070c00020001000d000e000f001000 Blob=aabbcc I8s=[-1, 2]",
     "{\"Small\":-1,\"Short\":-2,\"Long\":-3,\"Real\":2.5,\"Id\":\"01020304-0506-0708-090a-0b0c0d0e0f10\","
     "\"When\":\"e9070c00020001000d000e000f001000\",\"Blob\":\"aabbcc\",\"I8s\":[-1,2]}",
     {0, 1, 3, 11, 19, 35, 51, 54},
     {56, 56}},
    {"ATB I16s=[-300, 4] I32s=[-70000, 5] I64s=[-5000000000, 6]",
     "{\"I16s\":[-300,4],\"I32s\":[-70000,5],\"I64s\":[-5000000000,6]}",
     {0, 4, 12},
     {28, 28}},
    {"ATC F32s=[0.5, -1.5] F64s=[0.25, 1.0000000000000001e+300] Pairs=[{S=-7 D=-0.125 T=-8}, {S=9 D=3 "
     "T=127}]",
     "{\"F32s\":[0.5,-1.5],\"F64s\":[0.25,1.0000000000000001e+300],"
     "\"Pairs\":[{\"S\":-7,\"D\":-0.125,\"T\":-8},{\"S\":9,\"D\":3,\"T\":127}]}",
     {0, 8, 24},
     {24 + 22, 24 + 48}},
};

/*
 * Every signed width, double, GUID, SYSTEMTIME, a fixed-size blob, arrays of each signed and
 * float type and a struct array (packed and with C-aligned elements): decoded, walked (type,
 * payload offset), printed as text and JSON, encoded back to the same bytes, and every cut
 * of the payload a GCEV_E_TRUNCATED naming the field it falls in.
 */
static void test_format_every_field_type_decodes_walks_prints_and_encodes_back(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
        const gcev_template *tm = &at_tmpls[k];
        for (int aligned = 0; aligned < 2; aligned++) {
            gcev_event_desc desc = {
                .id = 1, .symbol = tm->name, .tmpl = tm, .quirks = aligned ? GCEV_Q_ALIGNED_ELEMENTS : 0};
            wr w;
            at_payload(&w, k, aligned);
            assert_int_equal(w.n, at_want[k].size[aligned]);
            assert_true(tm->struct_size <= sizeof(gcev_union));
            gcev_event ev;
            memset(&ev, 0, sizeof ev);
            ev.desc = &desc;
            ev.pointer_size = 8;
            uint32_t consumed = 0;
            gcev_error err = {0};
            assert_int_equal(
                gcev_decode_into(&desc, 8, w.b, (uint32_t)w.n, (uint8_t *)&ev.u, &consumed, &err), GCEV_OK);
            assert_int_equal(consumed, w.n);
            gcev_field_iter it;
            gcev_field f;
            gcev_field_iter_init(&it, &ev);
            assert_batch_matches(&ev); /* strings, blobs, GUIDs, floats, arrays */
            for (uint16_t i = 0; i < tm->nfields; i++) {
                assert_true(gcev_field_next(&it, &f));
                assert_string_equal(f.name, tm->fields[i].name);
                assert_int_equal(f.type, tm->fields[i].type);
                assert_int_equal(f.payload_offset, at_want[k].offsets[i]);
                assert_int_equal(f.is_array, tm->fields[i].store == GCEV_S_ARRAY);
            }
            assert_false(gcev_field_next(&it, &f));
            char *t = text_of(&ev);
            assert_string_equal(t, at_want[k].text);
            free(t);
            char *j = json_of(&ev);
            assert_string_equal(j, at_want[k].json);
            free(j);
            if (k == 0) { /* signed values through the walk */
                assert_int_equal(field_named(&ev, "Small").v.i, -1);
                assert_int_equal(field_named(&ev, "Short").v.i, -2);
                assert_int_equal(field_named(&ev, "Long").v.i, -3);
                assert_true(field_named(&ev, "Real").v.d == 2.5);
                assert_int_equal(field_named(&ev, "Id").v.guid.data3, 0x0708);
            }
            if (k == 2) { /* an element of the struct array on its own: aligned S 0, D 8, T 16 */
                gcev_field pairs = field_named(&ev, "Pairs");
                at_pair el;
                gcev_field_iter eit;
                assert_int_equal(gcev_field_iter_elem(&eit, &pairs.v.array, 1, &el, sizeof el), GCEV_OK);
                static const uint32_t el_off[2][3] = {{0, 2, 10}, {0, 8, 16}};
                for (int i = 0; i < 3; i++) {
                    assert_true(gcev_field_next(&eit, &f));
                    assert_int_equal(f.payload_offset, el_off[aligned][i]);
                }
                assert_int_equal(el.s, 9);
                assert_true(el.d == 3.0);
                assert_int_equal(el.t, 127);
                assert_int_equal(gcev_field_iter_elem(&eit, &pairs.v.array, 1, &el, sizeof el - 1),
                                 GCEV_E_INVALID_ARG);
                assert_int_equal(gcev_array_elem_size(&pairs.v.array), sizeof(at_pair));
                assert_int_equal(gcev_array_elem_size(NULL), 0);
            }
            uint8_t back[256];
            size_t n = 0;
            assert_int_equal(gcev_encode(&ev, back, sizeof back, &n, &err), GCEV_OK);
            assert_int_equal(n, w.n);
            assert_memory_equal(back, w.b, n);
            if (k == 0) { /* views that do not match the template: status, field, offset */
                at_a *x = (at_a *)&ev.u;
                x->blob.size = 2;
                assert_int_equal(gcev_encode(&ev, back, sizeof back, &n, &err), GCEV_E_BAD_COUNT);
                assert_string_equal(err.field, "Blob");
                assert_int_equal(err.offset, 51);
                assert_string_equal(err.message, "blob size differs from the template");
                x->blob.size = 3;
                x->when.size = 15;
                assert_int_equal(gcev_encode(&ev, back, sizeof back, &n, &err), GCEV_E_INVALID_ARG);
                assert_string_equal(err.field, "When");
                assert_int_equal(err.offset, 35);
                assert_string_equal(err.message, "SYSTEMTIME needs 16 bytes");
                x->when.size = 16;
                x->i8s.count = 3;
                assert_int_equal(gcev_encode(&ev, back, sizeof back, &n, &err), GCEV_E_BAD_COUNT);
                assert_string_equal(err.field, "I8s");
                assert_int_equal(err.offset, 54);
                assert_string_equal(err.message, "array count differs from its count field");
                assert_int_equal(gcev_array_elem_size(&x->i8s), 0); /* not a struct array */
                x->i8s.count = 2;
            }
            for (uint32_t cut = 0; cut < w.n; cut++) {
                gcev_event c;
                memset(&c, 0, sizeof c);
                gcev_status st = gcev_decode_into(&desc, 8, w.b, cut, (uint8_t *)&c.u, &consumed, &err);
                assert_int_equal(st, GCEV_E_TRUNCATED);
                int i = tm->nfields - 1;
                while (i > 0 && at_want[k].offsets[i] > cut) {
                    i--;
                }
                assert_string_equal(err.field, tm->fields[i].name);
            }
        }
    }
}

/* A fixed-size template (the straight-line path) with a GUID and signed values widened. */
typedef struct at_fixed {
    uint64_t present;
    uint16_t schema_version;
    gcev_guid g;
    int32_t a;
    int32_t b;
} at_fixed;

static const gcev_field_desc at_fixed_fields[] = {
    AT_FIELD("G", GCEV_T_GUID, GCEV_S_GUID, 0, at_fixed, g, 0, 16),
    AT_FIELD("A", GCEV_T_INT8, GCEV_S_I32, 1, at_fixed, a, 0, 1 | GCEV_WIRE_WIDEN_SIGNED),
    AT_FIELD("B", GCEV_T_INT16, GCEV_S_I32, 2, at_fixed, b, 0, 2 | GCEV_WIRE_WIDEN_SIGNED),
};
static const gcev_template at_fixed_tmpl = {"ATF",    at_fixed_fields, 3,   sizeof(at_fixed),
                                            {19, 19}, GCEV_TF_FIXED,   0x7, NULL};

static void test_format_fixed_template_widens_narrow_signed_values(void **state)
{
    (void)state;
    gcev_event_desc desc = {.id = 2, .symbol = "Fixed", .tmpl = &at_fixed_tmpl};
    wr w = {{0}, 0};
    wr_le(&w, 0x01020304, 4), wr_le(&w, 0x0506, 2), wr_le(&w, 0x0708, 2);
    for (unsigned i = 9; i <= 16; i++) {
        wr_le(&w, i, 1);
    }
    wr_le(&w, 0xfb, 1);   /* -5 */
    wr_le(&w, 0x8000, 2); /* -32768 */
    gcev_event ev;
    memset(&ev, 0, sizeof ev);
    ev.desc = &desc;
    ev.pointer_size = 8;
    uint32_t consumed = 0;
    assert_int_equal(gcev_decode_into(&desc, 8, w.b, (uint32_t)w.n, (uint8_t *)&ev.u, &consumed, NULL),
                     GCEV_OK);
    assert_int_equal(consumed, 19);
    const at_fixed *x = (const at_fixed *)&ev.u;
    assert_int_equal(x->a, -5);
    assert_int_equal(x->b, -32768);
    assert_int_equal(x->g.data2, 0x0506);
    assert_int_equal(x->g.data4[7], 16);
    char *t = text_of(&ev);
    assert_string_equal(t, "Fixed G=01020304-0506-0708-090a-0b0c0d0e0f10 A=-5 B=-32768");
    free(t);
    uint8_t back[32];
    size_t n = 0;
    assert_int_equal(gcev_encode(&ev, back, sizeof back, &n, NULL), GCEV_OK);
    assert_int_equal(n, 19);
    assert_memory_equal(back, w.b, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_every_field_type_decodes_walks_prints_and_encodes_back),
        cmocka_unit_test(test_format_fixed_template_widens_narrow_signed_values),
        cmocka_unit_test(test_format_negative_int32_walks_and_prints_negative),
        cmocka_unit_test(test_format_u64_and_pointers_at_2_63_and_above_print_unsigned),
        cmocka_unit_test(test_format_text_hex_out_type_and_pointer_are_hex),
        cmocka_unit_test(test_format_json_string_escapes_every_control_character),
        cmocka_unit_test(test_format_json_string_surrogate_pairs_become_utf8),
        cmocka_unit_test(test_format_non_finite_floats_are_json_null_and_text_names),
        cmocka_unit_test(test_format_text_struct_array_bitmap_names_last_flag),
        cmocka_unit_test(test_format_text_one_trailing_byte_is_reported),
        cmocka_unit_test(test_format_names_json_names_known_values_only),
        cmocka_unit_test(test_format_lazy_names_leave_value_name_to_the_accessor),
        cmocka_unit_test(test_format_map_names_of_every_map_match_the_entries),
        cmocka_unit_test(test_format_every_event_version_gives_json_with_every_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
