/* SPDX-License-Identifier: MIT */
/* UTF-16 -> UTF-8 and GUID text (src/base/gcev_text.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev.h>

static gcev_utf16 utf16(uint8_t *buf, const uint16_t *units, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        buf[2 * i] = (uint8_t)units[i];
        buf[2 * i + 1] = (uint8_t)(units[i] >> 8);
    }
    return (gcev_utf16){buf, (uint32_t)(2 * n)};
}

static void test_text_utf16_non_bmp_pairs_become_four_byte_utf8(void **state)
{
    (void)state;
    /* U+10000 (first), U+1F600, U+10FFFF (last): the pair ends the string */
    static const uint16_t units[] = {0xD800, 0xDC00, 0xD83D, 0xDE00, 0xDBFF, 0xDFFF};
    uint8_t b[16];
    char out[32];
    gcev_utf16 s = utf16(b, units, 6);
    assert_int_equal(gcev_utf16_to_utf8(s, out, sizeof out), 12);
    assert_string_equal(out, "\xF0\x90\x80\x80\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF");
    /* every width: U+007F, U+0080, U+07FF, U+0800, U+FFFF */
    static const uint16_t widths[] = {0x7F, 0x80, 0x7FF, 0x800, 0xFFFF};
    s = utf16(b, widths, 5);
    assert_int_equal(gcev_utf16_to_utf8(s, out, sizeof out), 1 + 2 + 2 + 3 + 3);
    assert_string_equal(out, "\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF");
}

static void test_text_utf16_unpaired_surrogates_become_replacement(void **state)
{
    (void)state;
    /* a lone low surrogate, a high one followed by a non-surrogate, a high one at the end */
    static const uint16_t units[] = {0xDC00, 'a', 0xD800, 'b', 0xDBFF};
    uint8_t b[16];
    char out[32];
    gcev_utf16 s = utf16(b, units, 5);
    assert_int_equal(gcev_utf16_to_utf8(s, out, sizeof out), 3 + 1 + 3 + 1 + 3);
    assert_string_equal(out, "\xEF\xBF\xBD"
                             "a\xEF\xBF\xBD"
                             "b\xEF\xBF\xBD");
    /* two high surrogates: each unpaired */
    static const uint16_t two[] = {0xD83D, 0xD83D, 0xDE00};
    s = utf16(b, two, 3);
    assert_int_equal(gcev_utf16_to_utf8(s, out, sizeof out), 3 + 4);
    assert_string_equal(out, "\xEF\xBF\xBD\xF0\x9F\x98\x80");
}

static void test_text_utf16_snprintf_semantics_and_odd_byte(void **state)
{
    (void)state;
    static const uint16_t units[] = {'a', 0xD83D, 0xDE00, 'z'};
    uint8_t b[9];
    gcev_utf16 s = utf16(b, units, 4);
    b[8] = 'q';
    s.nbytes = 9; /* an odd trailing byte is not a code unit */
    char out[8];
    assert_int_equal(gcev_utf16_to_utf8(s, NULL, 0), 6);
    memset(out, 'X', sizeof out);
    assert_int_equal(gcev_utf16_to_utf8(s, out, 4), 6);
    assert_string_equal(out, "a\xF0\x9F"); /* cut, NUL-terminated */
    assert_int_equal(gcev_utf16_to_utf8(s, out, sizeof out), 6);
    assert_string_equal(out, "a\xF0\x9F\x98\x80z");
    assert_int_equal(gcev_utf16_to_utf8((gcev_utf16){NULL, 0}, out, sizeof out), 0);
    assert_string_equal(out, "");
}

static void test_text_guid_parse_and_format_round_trip(void **state)
{
    (void)state;
    gcev_guid g;
    char t[37];
    assert_true(gcev_guid_parse("{E13C0D23-CCBC-4E12-931B-D9CC2EEE27E4}", &g));
    assert_int_equal(g.data1, 0xe13c0d23u);
    assert_int_equal(g.data2, 0xccbc);
    assert_int_equal(g.data3, 0x4e12);
    assert_int_equal(g.data4[0], 0x93);
    assert_int_equal(g.data4[7], 0xe4);
    gcev_guid_format(&g, t);
    assert_string_equal(t, "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
    assert_false(gcev_guid_parse("e13c0d23-ccbc-4e12-931b-d9cc2eee27eg", &g)); /* not hex */
    assert_false(gcev_guid_parse("e13c0d23-ccbc-4e12-931bd-9cc2eee27e4", &g)); /* dash moved */
    assert_false(gcev_guid_parse("{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", &g));
    assert_false(gcev_guid_parse(NULL, &g));
    assert_false(gcev_guid_parse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_utf16_non_bmp_pairs_become_four_byte_utf8),
        cmocka_unit_test(test_text_utf16_unpaired_surrogates_become_replacement),
        cmocka_unit_test(test_text_utf16_snprintf_semantics_and_odd_byte),
        cmocka_unit_test(test_text_guid_parse_and_format_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
