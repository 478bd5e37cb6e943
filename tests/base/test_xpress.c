/* SPDX-License-Identifier: MIT */
/*
 * gcev_xpress (MS-XCA Plain LZ77): hand-made streams for every item encoding
 * (literal; match length in the word, in a low and a high shared half byte, in a
 * byte, in 16 and in 32 bits) at each length boundary, offsets at and past the start
 * of the output, matches up to and past its end, long lengths below their minimum,
 * overlapping copies, flag words crossed, every truncation of a stream, and round
 * trips of a greedy compressor's output (tests/support/xpress_writer.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcev_xpress.h"
#include "xpress_writer.h"

/* A stream under construction and the output it must give. */
typedef struct case_ {
    xw w;
    uint8_t *want;
    size_t n, cap;
} case_;

static void case_init(case_ *c)
{
    xw_init(&c->w);
    c->want = NULL;
    c->n = c->cap = 0;
}

static void case_free(case_ *c)
{
    xw_free(&c->w);
    free(c->want);
}

static void want_byte(case_ *c, uint8_t b)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->want = realloc(c->want, c->cap);
        assert_non_null(c->want);
    }
    c->want[c->n++] = b;
}

static void lit(case_ *c, uint8_t b)
{
    xw_literal(&c->w, b);
    want_byte(c, b);
}

static void lits(case_ *c, const char *s)
{
    for (; *s; s++) {
        lit(c, (uint8_t)*s);
    }
}

/* The bytes a valid match of (offset, length) gives, one at a time (overlap included). */
static void want_match(case_ *c, uint32_t offset, uint64_t length)
{
    for (uint64_t i = 0; i < length; i++) {
        want_byte(c, c->want[c->n - offset]);
    }
}

static void match(case_ *c, uint32_t offset, uint64_t length)
{
    xw_match(&c->w, offset, length);
    want_match(c, offset, length);
}

/* Inflates the finished stream into exactly the wanted size and compares. */
static void expect_ok(case_ *c)
{
    size_t size = 0;
    const uint8_t *in = xw_finish(&c->w, &size);
    uint8_t *out = malloc(c->n + 1);
    assert_non_null(out);
    gcev_xpress_result r;
    assert_int_equal(gcev_xpress_inflate(in, size, out, c->n, &r), GCEV_OK);
    assert_int_equal(r.out_pos, c->n);
    assert_null(r.why);
    assert_true(r.in_pos <= size);
    assert_memory_equal(out, c->want, c->n);
    free(out);
}

static void expect_fault(const uint8_t *in, size_t size, size_t out_size, gcev_status want, size_t in_pos,
                         size_t out_pos, const char *why)
{
    uint8_t *out = malloc(out_size + 1);
    assert_non_null(out);
    gcev_xpress_result r;
    assert_int_equal(gcev_xpress_inflate(in, size, out, out_size, &r), want);
    assert_int_equal(r.in_pos, in_pos);
    assert_int_equal(r.out_pos, out_pos);
    assert_non_null(r.why);
    assert_non_null(strstr(r.why, why));
    free(out);
}

static void test_literals_and_the_spec_example(void **state)
{
    (void)state;
    case_ c;
    case_init(&c);
    /* [MS-XCA] 2.4.4: "aaaaaa" = [literal "a"][match offset 1, length 5] */
    lit(&c, 'a');
    match(&c, 1, 5);
    assert_memory_equal(c.want, "aaaaaa", 6);
    size_t size = 0;
    const uint8_t *in = xw_finish(&c.w, &size);
    /* flag word (0 then 1, rest ones), 'a', match word (1-1)<<3 | (5-3) */
    static const uint8_t bytes[] = {0xff, 0xff, 0xff, 0x7f, 'a', 0x02, 0x00};
    assert_int_equal(size, sizeof bytes);
    assert_memory_equal(in, bytes, sizeof bytes);
    uint8_t out[6];
    gcev_xpress_result r;
    assert_int_equal(gcev_xpress_inflate(in, size, out, 6, &r), GCEV_OK);
    assert_memory_equal(out, "aaaaaa", 6);
    assert_int_equal(r.in_pos, 7);
    case_free(&c);
}

static void test_every_length_encoding_at_its_boundaries(void **state)
{
    (void)state;
    /* 3..9 in the word; 10..24 in a half byte; 25..279 in a byte; 280..65538 in 16 bits;
     * beyond in 32 bits */
    static const uint64_t lengths[] = {3,   4,   9,       10,   11,    24,    25,    26,    278,
                                       279, 280, 281,     1000, 65537, 65538, 65539, 65540, 200000,
                                       10,  24,  15 + 10, 17,   300,   24,    10};
    case_ c;
    case_init(&c);
    lits(&c, "0123456789abcdefghijklmnopqrstuvwxyz");
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        /* offsets near and far, and at the 13-bit limit once there is room */
        uint32_t offset = (uint32_t)(i % 3 == 0 ? 1 : i % 3 == 1 ? 36 : (c.n >= 8192 ? 8192 : c.n));
        match(&c, offset, lengths[i]);
        lit(&c, (uint8_t)('A' + i));
    }
    expect_ok(&c);
    case_free(&c);
}

static void test_half_bytes_are_shared_in_order(void **state)
{
    (void)state;
    case_ c;
    case_init(&c);
    lits(&c, "abcdefgh");
    match(&c, 8, 10 + 3); /* first long match: the low nibble of a new byte */
    lit(&c, 'x');
    match(&c, 5, 10 + 12); /* second: the high nibble of the same byte, no new byte */
    match(&c, 2, 10 + 14); /* third: a new byte again */
    match(&c, 3, 25 + 7);  /* nibble 15 in the high half, then a byte */
    size_t size = 0;
    xw_finish(&c.w, &size);
    /* flags(4) 8 literals, word+nibble byte, 'x', word (shared), word+nibble byte, word + byte */
    assert_int_equal(size, 4 + 8 + 3 + 1 + 2 + 3 + 2 + 1);
    const uint8_t *in = c.w.data;
    assert_int_equal(in[4 + 8 + 2], 0xc3);             /* low nibble 3, high nibble 12 */
    assert_int_equal(in[4 + 8 + 3 + 1 + 2 + 2], 0xfe); /* low 14 (third), high 15 (fourth) */
    /* xw_finish already ran: inflate directly */
    uint8_t *out = malloc(c.n);
    assert_non_null(out);
    gcev_xpress_result r;
    assert_int_equal(gcev_xpress_inflate(in, size, out, c.n, &r), GCEV_OK);
    assert_memory_equal(out, c.want, c.n);
    free(out);
    case_free(&c);
}

static void test_flag_words_are_crossed(void **state)
{
    (void)state;
    for (int items = 30; items <= 70; items++) {
        case_ c;
        case_init(&c);
        lit(&c, 'q');
        for (int i = 1; i < items; i++) {
            if (i % 5 == 0) {
                match(&c, 1, 3 + (uint64_t)(i % 40));
            } else {
                lit(&c, (uint8_t)i);
            }
        }
        expect_ok(&c);
        case_free(&c);
    }
}

static void test_offsets_reach_the_start_not_before(void **state)
{
    (void)state;
    case_ c;
    case_init(&c);
    lits(&c, "hello");
    match(&c, 5, 7); /* offset == bytes written: the very first byte */
    expect_ok(&c);
    case_free(&c);

    xw w;
    xw_init(&w);
    for (int i = 0; i < 5; i++) {
        xw_literal(&w, 'h');
    }
    xw_match(&w, 6, 3); /* one before the start */
    size_t size = 0;
    const uint8_t *in = xw_finish(&w, &size);
    expect_fault(in, size, 100, GCEV_E_FORMAT, 4 + 5, 5, "before the start");
    xw_free(&w);

    /* the first item a match: nothing to copy from */
    xw_init(&w);
    xw_match(&w, 1, 3);
    in = xw_finish(&w, &size);
    expect_fault(in, size, 3, GCEV_E_FORMAT, 4, 0, "before the start");
    xw_free(&w);

    /* 8192 back, the largest offset the word holds, from 8192 bytes */
    case_init(&c);
    for (int i = 0; i < 8192; i++) {
        lit(&c, (uint8_t)(i * 31));
    }
    match(&c, 8192, 300);
    expect_ok(&c);
    case_free(&c);
}

static void test_matches_end_at_the_bound_not_past(void **state)
{
    (void)state;
    xw w;
    xw_init(&w);
    xw_literal(&w, 'z');
    xw_match(&w, 1, 100);
    size_t size = 0;
    const uint8_t *in = xw_finish(&w, &size);
    uint8_t out[101];
    gcev_xpress_result r;
    assert_int_equal(gcev_xpress_inflate(in, size, out, 101, &r), GCEV_OK); /* exactly */
    expect_fault(in, size, 100, GCEV_E_FORMAT, 5, 1, "past the inflated size");
    expect_fault(in, size, 2, GCEV_E_FORMAT, 5, 1, "past the inflated size");
    /* output full at an item boundary: the rest of the input is not read */
    assert_int_equal(gcev_xpress_inflate(in, size, out, 1, &r), GCEV_OK);
    assert_int_equal(r.in_pos, 5);
    assert_int_equal(out[0], 'z');
    assert_int_equal(gcev_xpress_inflate(in, size, out, 0, &r), GCEV_OK);
    assert_int_equal(r.in_pos, 0);
    assert_int_equal(gcev_xpress_inflate(NULL, 0, NULL, 0, &r), GCEV_OK);
    xw_free(&w);

    /* a 32-bit length far past any buffer */
    xw_init(&w);
    xw_literal(&w, 'z');
    xw_match_fields(&w, 1, 7, 15, 255, 0, 0xfffffff0u);
    in = xw_finish(&w, &size);
    expect_fault(in, size, 65536, GCEV_E_FORMAT, 5, 1, "past the inflated size");
    xw_free(&w);
}

static void test_long_lengths_below_their_minimum_are_malformed(void **state)
{
    (void)state;
    for (int wide = 0; wide <= 1; wide++) {
        for (uint32_t v = 20; v <= 23; v++) {
            xw w;
            xw_init(&w);
            for (int i = 0; i < 4; i++) {
                xw_literal(&w, 'm');
            }
            if (wide) {
                xw_match_fields(&w, 1, 7, 15, 255, 0, v);
            } else {
                xw_match_fields(&w, 1, 7, 15, 255, v, 0);
            }
            size_t size = 0;
            const uint8_t *in = xw_finish(&w, &size);
            uint8_t out[64];
            gcev_xpress_result r;
            gcev_status st = gcev_xpress_inflate(in, size, out, 4 + v + 3, &r);
            if (v < 22) {
                assert_int_equal(st, GCEV_E_FORMAT);
                assert_int_equal(r.in_pos, 4 + 4);
                assert_int_equal(r.out_pos, 4);
                assert_non_null(strstr(r.why, "minimum"));
            } else {
                /* 22 and more: the length is the value + 3 */
                assert_int_equal(st, GCEV_OK);
                assert_int_equal(r.out_pos, 4 + v + 3);
                assert_int_equal(out[4 + v + 2], 'm');
            }
            xw_free(&w);
        }
    }
}

/* Every prefix of a stream: TRUNCATED with a prefix of the output, never more. */
static void test_every_truncation_gives_a_prefix(void **state)
{
    (void)state;
    case_ c;
    case_init(&c);
    lits(&c, "The quick brown fox ");
    match(&c, 20, 20);
    match(&c, 4, 12);
    match(&c, 4, 30);
    match(&c, 1, 400);
    lits(&c, "jumps");
    match(&c, 300, 70000);
    match(&c, 7, 17);
    size_t size = 0;
    const uint8_t *in = xw_finish(&c.w, &size);
    uint8_t *out = malloc(c.n);
    assert_non_null(out);
    size_t last = 0;
    for (size_t cut = 0; cut < size; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        assert_non_null(copy);
        memcpy(copy, in, cut);
        gcev_xpress_result r;
        gcev_status st = gcev_xpress_inflate(copy, cut, out, c.n, &r);
        /* the last flag word's unused bits and the data end together: only the
         * whole stream completes */
        assert_int_equal(st, GCEV_E_TRUNCATED);
        assert_true(r.out_pos < c.n);
        assert_true(r.out_pos >= last);
        assert_true(r.in_pos <= cut);
        assert_memory_equal(out, c.want, r.out_pos);
        assert_non_null(r.why);
        last = r.out_pos;
        free(copy);
    }
    gcev_xpress_result r;
    assert_int_equal(gcev_xpress_inflate(in, size, out, c.n, &r), GCEV_OK);
    assert_memory_equal(out, c.want, c.n);
    free(out);
    case_free(&c);
}

static void test_compressor_round_trips(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 100, 4096, 65536 - 72};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        uint8_t *in = malloc(n ? n : 1);
        assert_non_null(in);
        uint32_t x = (uint32_t)n;
        for (size_t i = 0; i < n; i++) {
            x = x * 1664525u + 1013904223u;
            in[i] = (i / 64) % 3 ? (uint8_t)(i % 13) : (uint8_t)(x >> 24); /* runs and noise */
        }
        size_t cn = 0;
        uint8_t *z = xw_compress(in, n, 8192, &cn);
        uint8_t *out = malloc(n ? n : 1);
        assert_non_null(out);
        gcev_xpress_result r;
        assert_int_equal(gcev_xpress_inflate(z, cn, out, n, &r), GCEV_OK);
        assert_memory_equal(out, in, n);
        free(out);
        free(z);
        free(in);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literals_and_the_spec_example),
        cmocka_unit_test(test_every_length_encoding_at_its_boundaries),
        cmocka_unit_test(test_half_bytes_are_shared_in_order),
        cmocka_unit_test(test_flag_words_are_crossed),
        cmocka_unit_test(test_offsets_reach_the_start_not_before),
        cmocka_unit_test(test_matches_end_at_the_bound_not_past),
        cmocka_unit_test(test_long_lengths_below_their_minimum_are_malformed),
        cmocka_unit_test(test_every_truncation_gives_a_prefix),
        cmocka_unit_test(test_compressor_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
