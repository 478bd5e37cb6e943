/* SPDX-License-Identifier: MIT */
/* The snprintf-style output buffer and its JSON string literals (src/base/gcev_out.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev.h>

#include "gcev_out.h"

/* The escape JSON wants for each control character U+0000..U+001F. */
static void control_escape(unsigned c, char *out, size_t n)
{
    switch (c) {
    case '\n':
        snprintf(out, n, "\\n");
        break;
    case '\r':
        snprintf(out, n, "\\r");
        break;
    case '\t':
        snprintf(out, n, "\\t");
        break;
    default:
        snprintf(out, n, "\\u%04x", c);
        break;
    }
}

static void expected_controls(char *want, size_t n)
{
    size_t len = 0;
    want[len++] = '"';
    for (unsigned c = 0; c < 0x20; c++) {
        char e[8];
        control_escape(c, e, sizeof e);
        memcpy(want + len, e, strlen(e));
        len += strlen(e);
    }
    memcpy(want + len, "\\\"\\\\\"", 6); /* then quote, backslash, closing quote + NUL */
    (void)n;
}

static void test_out_json_every_control_character_escaped_in_each_encoding(void **state)
{
    (void)state;
    uint8_t bytes[0x22], u16[2 * 0x22];
    for (unsigned c = 0; c < 0x20; c++) {
        bytes[c] = (uint8_t)c;
    }
    bytes[0x20] = '"';
    bytes[0x21] = '\\';
    for (unsigned i = 0; i < sizeof bytes; i++) {
        u16[2 * i] = bytes[i];
        u16[2 * i + 1] = 0;
    }
    char want[256];
    expected_controls(want, sizeof want);
    char buf[256];
    for (int enc = 0; enc < 3; enc++) {
        gcev_out o = {buf, sizeof buf, 0};
        if (enc == 0) {
            gcev_out_json_utf16(&o, (gcev_utf16){u16, sizeof u16});
        } else if (enc == 1) {
            gcev_out_json_ascii(&o, bytes, sizeof bytes);
        } else {
            gcev_out_json_utf8(&o, bytes, sizeof bytes);
        }
        size_t n = gcev_out_finish(&o);
        assert_int_equal(n, strlen(want));
        assert_string_equal(buf, want);
    }
}

static void test_out_json_utf16_non_bmp_is_utf8_and_lone_surrogates_replaced(void **state)
{
    (void)state;
    /* U+1F600, U+0100, lone high surrogate at the end */
    static const uint8_t u16[] = {0x3D, 0xD8, 0x00, 0xDE, 0x00, 0x01, 0x00, 0xD8};
    char buf[64];
    gcev_out o = {buf, sizeof buf, 0};
    gcev_out_json_utf16(&o, (gcev_utf16){u16, sizeof u16});
    gcev_out_finish(&o);
    assert_string_equal(buf, "\"\xF0\x9F\x98\x80\xC4\x80\xEF\xBF\xBD\"");
}

static void test_out_json_ascii_bytes_above_7f_are_latin1(void **state)
{
    (void)state;
    static const uint8_t s[] = {'a', 0xE9, 0xFF};
    char buf[32];
    gcev_out o = {buf, sizeof buf, 0};
    gcev_out_json_ascii(&o, s, sizeof s);
    gcev_out_finish(&o);
    assert_string_equal(buf, "\"a\xC3\xA9\xC3\xBF\"");
}

static void test_out_json_utf8_malformed_bytes_each_become_replacement(void **state)
{
    (void)state;
    /* valid 2/3/4-byte forms, then: a stray continuation, an overlong 2-byte lead, a cut
     * 3-byte form, an encoded surrogate, a code point above U+10FFFF, an overlong 4-byte form */
    static const uint8_t s[] = {0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0x80,
                                0xC0, 0xAF, 0xE2, 0x82, 'x',  0xED, 0xA0, 0x80, 0xF4, 0x90,
                                0x80, 0x80, 0xF0, 0x80, 0x80, 0x80, 0xE0, 0x80, 0x80};
    char buf[128];
    gcev_out o = {buf, sizeof buf, 0};
    gcev_out_json_utf8(&o, s, sizeof s);
    gcev_out_finish(&o);
#define R "\xEF\xBF\xBD"
    assert_string_equal(buf, "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80" R R R R R
                             "x" R R R R R R R R R R R R R R "\"");
#undef R
}

static void test_out_snprintf_semantics_count_past_the_buffer(void **state)
{
    (void)state;
    char buf[6];
    memset(buf, 'X', sizeof buf);
    gcev_out o = {buf, sizeof buf, 0};
    gcev_out_str(&o, "abc");
    gcev_out_fmt(&o, "%d", 12345);
    gcev_out_put(&o, "zz", 2);
    assert_int_equal(gcev_out_finish(&o), 10);
    assert_string_equal(buf, "abc12");
    gcev_out empty = {NULL, 0, 0};
    gcev_out_str(&empty, "abc");
    assert_int_equal(gcev_out_finish(&empty), 3);
    char exact[4];
    gcev_out e = {exact, sizeof exact, 0};
    gcev_out_str(&e, "abcd"); /* needs 5 with the NUL: cut to 3 */
    assert_int_equal(gcev_out_finish(&e), 4);
    assert_string_equal(exact, "abc");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_json_every_control_character_escaped_in_each_encoding),
        cmocka_unit_test(test_out_json_utf16_non_bmp_is_utf8_and_lone_surrogates_replaced),
        cmocka_unit_test(test_out_json_ascii_bytes_above_7f_are_latin1),
        cmocka_unit_test(test_out_json_utf8_malformed_bytes_each_become_replacement),
        cmocka_unit_test(test_out_snprintf_semantics_count_past_the_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
