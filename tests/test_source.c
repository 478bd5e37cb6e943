/* SPDX-License-Identifier: MIT */
/* gcev_source: memory, mapped file and callback inputs behave the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcev_source.h"

static uint8_t data[300];

static void fill(void)
{
    for (size_t i = 0; i < sizeof data; i++) {
        data[i] = (uint8_t)(i * 7);
    }
}

typedef struct feed {
    size_t pos;
} feed;

static long long feed_read(void *ctx, void *buf, size_t n)
{
    feed *f = ctx;
    size_t k = n < 5 ? n : 5;
    if (k > sizeof data - f->pos) {
        k = sizeof data - f->pos;
    }
    memcpy(buf, data + f->pos, k);
    f->pos += k;
    return (long long)k;
}

static long long failing_read(void *ctx, void *buf, size_t n)
{
    (void)ctx;
    (void)buf;
    (void)n;
    return -1;
}

/* take/peek/skip sequence shared by every kind of source. */
static void exercise(gcev_source *s)
{
    const uint8_t *v;
    size_t got;
    gcev_error err;
    assert_int_equal(gcev_source_peek(s, 10, &v, &got, &err), GCEV_OK);
    assert_int_equal(got, 10);
    assert_memory_equal(v, data, 10);
    assert_int_equal(gcev_source_pos(s), 0);
    assert_int_equal(gcev_source_take(s, 100, &v, &err), GCEV_OK);
    assert_memory_equal(v, data, 100);
    assert_int_equal(gcev_source_skip(s, 50, &err), GCEV_OK);
    assert_int_equal(gcev_source_take(s, 3, &v, &err), GCEV_OK);
    assert_memory_equal(v, data + 150, 3);
    assert_int_equal(gcev_source_take(s, 200, &v, &err), GCEV_E_TRUNCATED_FILE);
    assert_int_equal(err.offset, 153);
    assert_int_equal(gcev_source_peek(s, 200, &v, &got, &err), GCEV_OK);
    assert_int_equal(got, sizeof data - 153);
    s->max_take = 64;
    assert_int_equal(gcev_source_take(s, 65, &v, &err), GCEV_E_LIMIT);
    assert_int_equal(gcev_source_skip(s, sizeof data - 153, &err), GCEV_OK);
    assert_int_equal(gcev_source_skip(s, 1, &err), GCEV_E_TRUNCATED_FILE);
}

static void test_source_memory_take_peek_skip(void **st)
{
    (void)st;
    fill();
    gcev_source s;
    assert_int_equal(gcev_source_init_memory(&s, data, sizeof data), GCEV_OK);
    exercise(&s);
    gcev_source_close(&s);
}

static void test_source_callback_take_peek_skip(void **st)
{
    (void)st;
    fill();
    feed f = {0};
    gcev_source s;
    assert_int_equal(gcev_source_init_reader(&s, feed_read, &f), GCEV_OK);
    exercise(&s);
    gcev_source_close(&s);
}

static void test_source_file_take_peek_skip(void **st)
{
    (void)st;
    fill();
    char path[] = "/tmp/gcev_test_source_XXXXXX";
    FILE *fp = NULL;
    /* tmpnam-free: write next to /tmp with the pid-free fixed name plus a counter */
    snprintf(path, sizeof path, "/tmp/gcev_test_source_%u", (unsigned)(sizeof data));
    fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, sizeof data, fp), sizeof data);
    fclose(fp);
    gcev_source s;
    gcev_error err;
    assert_int_equal(gcev_source_init_file(&s, path, &err), GCEV_OK);
    assert_int_equal(s.mapped, 1);
    exercise(&s);
    gcev_source_close(&s);
    remove(path);
    assert_int_equal(gcev_source_init_file(&s, "/nonexistent/gcev", &err), GCEV_E_IO);
    assert_non_null(err.message);
}

static void test_source_read_error_is_io(void **st)
{
    (void)st;
    gcev_source s;
    const uint8_t *v;
    gcev_error err;
    assert_int_equal(gcev_source_init_reader(&s, failing_read, NULL), GCEV_OK);
    assert_int_equal(gcev_source_take(&s, 4, &v, &err), GCEV_E_IO);
    gcev_source_close(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_memory_take_peek_skip),
        cmocka_unit_test(test_source_callback_take_peek_skip),
        cmocka_unit_test(test_source_file_take_peek_skip),
        cmocka_unit_test(test_source_read_error_is_io),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
