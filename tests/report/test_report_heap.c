/* SPDX-License-Identifier: MIT */
/*
 * The report's heap section (src/report/gcev_report_heap.c) in the page text: present,
 * with every dump's type table and retained-size bars, on the committed real heap dump
 * (tests/data/traces/heapdump.nettrace); absent on a trace without a dump, without
 * extras, and when the caller's extras record is too small to hold the member.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_report.h>

static char path_buf[4096];

static const char *data_path(const char *rel)
{
    const char *d = getenv("GCEV_SOURCE_DIR");
    snprintf(path_buf, sizeof path_buf, "%s/%s", d ? d : ".", rel);
    return path_buf;
}

static gcev_stats *model(const char *path)
{
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    gcev_trace_options o = {
        .struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME, .max_block_size = 0, .keep_going = 0};
    gcev_trace *t;
    assert_int_equal(gcev_trace_open_file(path, &o, &t, NULL), GCEV_OK);
    assert_int_equal(gcev_stats_read_trace(s, t, NULL, NULL, NULL), GCEV_OK);
    gcev_trace_close(t);
    return s;
}

/* The page into *html (an out parameter: returning a pointer read from a local of an inlined
 * function made gcc 12 -O3 warn of a dangling pointer at its every use) */
static void page(const gcev_stats *s, const gcev_report_extras *ex, char **html)
{
    size_t n;
    assert_int_equal(gcev_report_build_ex(s, NULL, NULL, ex, html, &n), GCEV_OK);
    assert_int_equal(strlen(*html), n);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) {
        n++;
    }
    return n;
}

static void test_section_present(void **state)
{
    (void)state;
    const char *path = data_path("tests/data/traces/heapdump.nettrace");
    gcev_stats *s = model(path);
    gcev_heap_set *set;
    assert_int_equal(gcev_heap_read_file(path, &set, NULL), GCEV_OK);
    assert_int_equal(gcev_heap_set_count(set), 1);
    gcev_report_extras ex = {.size = sizeof ex, .heaps = set};
    char *html;
    page(s, &ex, &html);
    assert_non_null(strstr(html, "<section id=\"heap\"><h2>Heap dump</h2>"));
    /* the section sits between the charts and the per-GC table */
    assert_true(strstr(html, "<section id=\"charts\"") < strstr(html, "<section id=\"heap\""));
    assert_true(strstr(html, "<section id=\"heap\"") < strstr(html, "<section id=\"gcs\""));
    gcev_heap *h = gcev_heap_set_at(set, 0);
    const gcev_heap_info *in = gcev_heap_get_info(h);
    assert_true(in->analyzed); /* the builder analysed it */
    char want[256];
    snprintf(want, sizeof want,
             "<div class=\"heapdump\" id=\"heap-0\" data-objects=\"%llu\" data-bytes=\"%llu\">",
             (unsigned long long)in->objects, (unsigned long long)in->bytes);
    assert_non_null(strstr(html, want));
    assert_non_null(strstr(html, "<figure class=\"chart\" id=\"heap-retained-0\">"));
    assert_non_null(strstr(html, "<table class=\"heap-types\" id=\"heap-types-0\">"));
    /* one row per type (up to 100), the largest first, with the library's numbers */
    size_t nt = gcev_heap_type_count(h);
    assert_true(nt > 20);
    char *sec = strstr(html, "<section id=\"heap\""), *end = strstr(sec, "</section>");
    assert_non_null(end);
    *end = '\0'; /* count inside the section only (the summary has row headers too) */
    assert_int_equal(count(sec, "<tr><th scope=\"row\""), nt < 100 ? nt : 100);
    assert_int_equal(count(sec, "<g class=\"hbar\""), 20);
    *end = '<';
    gcev_heap_type t;
    assert_int_equal(gcev_heap_type_get(h, 0, &t), GCEV_OK);
    snprintf(want, sizeof want, "</th><td data-v=\"%llu\">%llu</td><td data-v=\"%llu\">%llu</td>",
             (unsigned long long)t.objects, (unsigned long long)t.objects, (unsigned long long)t.bytes,
             (unsigned long long)t.bytes);
    const char *row = strstr(sec, "<tr><th scope=\"row\"");
    assert_non_null(row);
    assert_true(strstr(row, want) == strstr(sec, want)); /* the first row is type 0 */
    assert_true(t.retained > 0 && t.retained <= in->bytes);
    /* the largest bar is the type retaining the most */
    uint64_t most = 0;
    for (size_t i = 0; i < nt; i++) {
        gcev_heap_type u;
        gcev_heap_type_get(h, i, &u);
        most = u.retained > most ? u.retained : most;
    }
    const char *bar = strstr(html, "<g class=\"hbar\"");
    assert_non_null(bar);
    const char *v = strstr(bar, "data-retained=\"");
    assert_non_null(v);
    assert_int_equal(strtoull(v + strlen("data-retained=\""), NULL, 10), most);
    /* the page without the extras (or through the old entry point) has no heap section */
    char *plain;
    assert_int_equal(gcev_report_build(s, NULL, NULL, &plain, NULL), GCEV_OK);
    assert_null(strstr(plain, "id=\"heap\""));
    gcev_report_free(plain);
    /* an extras record of an older header (size short of the member) is not read past its size */
    gcev_report_extras small = {.size = offsetof(gcev_report_extras, heaps), .heaps = set};
    char *old;
    page(s, &small, &old);
    assert_null(strstr(old, "id=\"heap\""));
    gcev_report_free(old);
    gcev_report_free(html);
    gcev_heap_set_free(set);
    gcev_stats_free(s);
}

static void test_section_absent(void **state)
{
    (void)state;
    const char *path = data_path("examples/sample.nettrace");
    gcev_stats *s = model(path);
    gcev_heap_set *set;
    assert_int_equal(gcev_heap_read_file(path, &set, NULL), GCEV_OK);
    assert_int_equal(gcev_heap_set_count(set), 0);
    gcev_report_extras ex = {.size = sizeof ex, .heaps = set};
    char *html;
    page(s, &ex, &html);
    assert_null(strstr(html, "id=\"heap\""));
    assert_null(strstr(html, "heap-types"));
    assert_non_null(strstr(html, "<section id=\"gcs\""));
    gcev_report_free(html);
    page(s, NULL, &html);
    assert_null(strstr(html, "id=\"heap\""));
    gcev_report_free(html);
    gcev_heap_set_free(set);
    gcev_stats_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_section_present),
        cmocka_unit_test(test_section_absent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
