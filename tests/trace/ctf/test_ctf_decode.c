/* SPDX-License-Identifier: MIT */
/*
 * Decoding CTF event fields (gcev_ctf_decode.c): the bit reader in both byte orders, and each
 * field's outcome with its name, offset and cause.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, strdup */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <gcev/gcev.h>
#include <gcev/gcev_trace.h>

#include "gcev_ctf_decode.h"
#include "gcev_ctf_etw.h"
#include "gcev_schema_desc.h"
#include "gcev_ctf_meta.h"
#include "failalloc.h"
#include "zip_builder.h"

#include "ctf_helpers.h"

static void test_read_bits_both_orders(void **state)
{
    (void)state;
    /* 0b10110011 0b01011100 */
    const uint8_t d[] = {0xB3, 0x5C, 0xFF, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9A};
    /* little-endian: bit 0 = LSB of byte 0 */
    assert_int_equal(gcev_ctf_read_bits(d, 0, 5, 0), 0x13);
    assert_int_equal(gcev_ctf_read_bits(d, 5, 27, 0), (uint64_t)(0x00FF5CB3u >> 5));
    assert_int_equal(gcev_ctf_read_bits(d, 4, 8, 0), 0xCB);
    /* big-endian: bit 0 = MSB of byte 0 */
    assert_int_equal(gcev_ctf_read_bits(d, 0, 5, 1), 0x16);
    assert_int_equal(gcev_ctf_read_bits(d, 4, 8, 1), 0x35);
    assert_int_equal(gcev_ctf_read_bits(d, 0, 16, 1), 0xB35C);
    assert_int_equal(gcev_ctf_read_bits(d, 0, 16, 0), 0x5CB3);
    assert_true(gcev_ctf_read_bits(d, 1, 64, 0) == (((uint64_t)0x9A << 63) | (0x7856341200FF5CB3ull >> 1)));
}

/* ---- decoding event fields (gcev_ctf_decode.c): outcomes, table-driven ---- */

typedef struct dec_case {
    const char *context; /* event.context struct body, decoded first, or NULL */
    const char *fields;
    const char *bytes;
    uint32_t end, avail; /* content end and bytes present; 0: all of bytes */
    uint64_t work;       /* decode steps allowed; 0: plenty */
    gcev_status want;
    uint64_t pos; /* OK: bits decoded; else the fault's bit offset */
    const char *msg;
} dec_case;

static void test_ctf_decode_fields_outcomes_name_offset_and_cause(void **state)
{
    (void)state;
    static const dec_case cases[] = {
        /* bounds */
        {NULL, "string _s;", "4142", 0, 0, 0, GCEV_E_FORMAT, 0, "string not terminated"},
        {NULL, "string _s;", "4142", 4, 2, 0, GCEV_E_TRUNCATED_FILE, 0, "stream file ends inside a string"},
        {NULL, "uint32_t _x;", "0102", 0, 0, 0, GCEV_E_FORMAT, 0, "past the packet's content size"},
        {NULL, "uint32_t _x;", "0102", 4, 2, 0, GCEV_E_TRUNCATED_FILE, 0,
         "stream file ends inside this event"},
        {NULL, "uint8_t _a; integer { size = 8; align = 64; } _b;", "01", 0, 0, 0, GCEV_E_FORMAT, 64,
         "past the packet's content size"},
        {NULL, "uint32_t _arr[1000];", "0102030405060708", 0, 0, 0, GCEV_E_FORMAT, 0,
         "array or sequence goes past the packet's content size"},
        {NULL, "uint8_t _a; uint8_t _b; uint8_t _c; uint8_t _d;", "01020304", 0, 0, 3, GCEV_E_LIMIT, 16,
         "more decode steps"},
        /* variants */
        {NULL, "uint8_t _t; variant <_t> { uint8_t a; } _v;", "0000", 0, 0, 0, GCEV_E_FORMAT, 8,
         "variant tag is not an enumeration"},
        {NULL, "enum : uint8_t { A = 0, B = 1 } _t; variant <_t> { uint8_t A; } _v;", "0100", 0, 0, 0,
         GCEV_E_FORMAT, 8, "variant tag value selects no option"},
        {NULL, "enum : uint8_t { A = 0, B = 1 } _t; variant <_t> { uint8_t A; } _v;", "0007", 0, 0, 0,
         GCEV_OK, 16, NULL},
        {NULL, "variant { uint8_t a; } _v;", "00", 0, 0, 0, GCEV_E_FORMAT, 0, "variant without a tag"},
        {NULL,
         "enum : int8_t { NEG = -5 ... -1, POS = 0 ... 5 } _t; variant <_t> { uint8_t NEG; uint16_t POS; } "
         "_v;",
         "fe07", 0, 0, 0, GCEV_OK, 16, NULL},
        /* sequence lengths and paths */
        {NULL, "string _n; uint8_t _q[_n];", "0000", 0, 0, 0, GCEV_E_FORMAT, 8,
         "sequence length is not an integer"},
        {NULL, "int8_t _n; uint8_t _q[_n];", "ff", 0, 0, 0, GCEV_E_FORMAT, 8, "negative sequence length"},
        {NULL, "uint8_t _q[_m];", "00", 0, 0, 0, GCEV_E_FORMAT, 0, "names no decoded field"},
        {NULL, "struct { uint8_t n; } _s; uint8_t _q[_s.n];", "0100", 0, 0, 0, GCEV_E_UNSUPPORTED, 8,
         "dotted relative paths are not supported"},
        {NULL, "struct { uint8_t n; } _s; uint8_t _q[event.fields._s.n];", "0100", 0, 0, 0,
         GCEV_E_UNSUPPORTED, 8, "path into a nested struct is not supported"},
        {NULL, "uint8_t _n; uint8_t _q[event.fields._n];", "02aabb", 0, 0, 0, GCEV_OK, 24, NULL},
        {NULL, "uint8_t _q[event.fields._n]; uint8_t _n;", "02aabb", 0, 0, 0, GCEV_E_FORMAT, 0,
         "names no decoded field"},
        {"uint8_t _len;", "uint8_t _q[event.context._len];", "02aabb", 0, 0, 0, GCEV_OK, 24, NULL},
        {"uint8_t _len;", "uint8_t _q[event.context._nope];", "02aabb", 0, 0, 0, GCEV_E_FORMAT, 8,
         "names no decoded field"},
        /* nested structs find their parents' fields; arrays of structs decode element by element */
        {NULL, "uint8_t _n; struct { uint8_t _m; struct { uint8_t _q[_n]; } _in; } _out;", "0105aa", 0, 0, 0,
         GCEV_OK, 24, NULL},
        {NULL, "struct { uint8_t _a; uint16_t _b; } _arr[2];", "0102000304 00", 0, 0, 0, GCEV_OK, 48, NULL},
        {NULL, "struct { uint8_t _a; uint16_t _b; } _arr[2];", "0102000304", 0, 0, 0, GCEV_E_FORMAT, 32,
         "past the packet's content size"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const dec_case *k = &cases[i];
        char tsdl[2048];
        snprintf(tsdl, sizeof tsdl,
                 "/* CTF 1.8 */\n"
                 "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
                 "typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
                 "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
                 "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
                 "trace { major = 1; minor = 8; byte_order = le; };\n"
                 "event { name = \"e\"; id = 0; %s%s%s fields := struct { %s }; };\n",
                 k->context ? "context := struct { " : "", k->context ? k->context : "",
                 k->context ? " };" : "", k->fields);
        gcev_ctf_meta m;
        gcev_ctf_meta_error e;
        if (parse(tsdl, &m, &e) != GCEV_OK) {
            fail_msg("case %zu: line %u: %s", i, e.line, e.message);
        }
        const gcev_ctf_event_class *ev = &m.events[0];
        uint8_t data[64] = {0};
        size_t n = hexb(k->bytes, data, sizeof data);
        gcev_ctf_cursor c;
        memset(&c, 0, sizeof c);
        c.data = data;
        c.end = (k->end ? k->end : n) * 8;
        c.avail = (k->avail ? k->avail : n) * 8;
        c.work = k->work ? k->work : 1u << 20;
        gcev_ctf_slot cslots[8], slots[8];
        gcev_status st = GCEV_OK;
        if (ev->context) {
            st = gcev_ctf_decode_root(&c, GCEV_CTF_ROOT_EVENT_CONTEXT, ev->context, cslots);
        }
        if (st == GCEV_OK) {
            st = gcev_ctf_decode_root(&c, GCEV_CTF_ROOT_EVENT_FIELDS, ev->fields, slots);
        }
        uint64_t pos = st == GCEV_OK ? c.pos : c.err_pos;
        if (st != k->want || pos != k->pos || (k->msg && (!c.err_msg || !strstr(c.err_msg, k->msg)))) {
            fail_msg("case %zu (%s): got %s at bit %llu '%s', want %s at bit %llu '%s'", i, k->fields,
                     gcev_status_str(st), (unsigned long long)pos, st == GCEV_OK ? "" : c.err_msg,
                     gcev_status_str(k->want), (unsigned long long)k->pos, k->msg ? k->msg : "");
        }
        gcev_ctf_cursor_free(&c);
        gcev_ctf_meta_free(&m);
    }
    /* no steps left before the root */
    gcev_ctf_meta m;
    assert_int_equal(parse("/* CTF 1.8 */ typealias integer { size = 8; } := u8;"
                           " event { name = \"e\"; fields := struct { u8 _a; }; };",
                           &m, NULL),
                     GCEV_OK);
    gcev_ctf_cursor c;
    memset(&c, 0, sizeof c);
    uint8_t one = 1;
    c.data = &one;
    c.end = c.avail = 8;
    gcev_ctf_slot sl[1];
    assert_int_equal(gcev_ctf_decode_root(&c, GCEV_CTF_ROOT_EVENT_FIELDS, m.events[0].fields, sl),
                     GCEV_E_LIMIT);
    assert_non_null(strstr(c.err_msg, "more decode steps"));
    gcev_ctf_meta_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_bits_both_orders),
        cmocka_unit_test(test_ctf_decode_fields_outcomes_name_offset_and_cause),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
