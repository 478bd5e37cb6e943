/* SPDX-License-Identifier: MIT */
/*
 * The page builder (src/report, gcev_report.h): arguments and statuses, the page's
 * structure, escaping of hostile names, the decimation bounds, and the size bound in
 * both regimes (every GC a mark; past 2000 GCs, decimated), on traces of many GCs
 * written with the trace writer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_report.h>

#include "failalloc.h"
#include "gcev_report_buf.h"
#include "gcev_report_internal.h"
#include "gcev_text.h"
#include "report_trace.h"
#include "testutil.h"

/* ---- helpers --------------------------------------------------------------- */

static gcev_stats *stats_of(const uint8_t *data, size_t size)
{
    gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME};
    gcev_trace *t;
    gcev_stats *s;
    assert_int_equal(gcev_trace_open_memory(data, size, &o, &t, NULL), GCEV_OK);
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    assert_int_equal(gcev_stats_read_trace(s, t, NULL, NULL, NULL), GCEV_OK);
    gcev_trace_close(t);
    return s;
}

static gcev_stats *stats_of_big(uint32_t gcs, uint32_t size_scale, uint32_t gap_scale)
{
    size_t size = 0;
    uint8_t *data = report_trace_write_big(gcs, size_scale, gap_scale, &size);
    assert_non_null(data);
    gcev_stats *s = stats_of(data, size);
    free(data);
    assert_int_equal(gcev_stats_gc_count(s), gcs);
    return s;
}

static gcev_stats *stats_of_gcs(uint32_t gcs)
{
    return stats_of_big(gcs, 1, 1);
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0, len = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle)) {
        n++;
    }
    return n;
}

/* The text of one element: from `open` (a unique start tag) to the next `close`; malloc'ed. */
static char *element(const char *page, const char *open, const char *close)
{
    const char *a = strstr(page, open);
    assert_non_null(a);
    const char *b = strstr(a, close);
    assert_non_null(b);
    char *s = malloc((size_t)(b - a) + 1);
    assert_non_null(s);
    memcpy(s, a, (size_t)(b - a));
    s[b - a] = '\0';
    return s;
}

/* The page's embedded data (the JSON in <script id="gcev-data">), parsed. */
static void page_data(const char *page, tj *out)
{
    static const char open[] = "<script type=\"application/json\" id=\"gcev-data\">";
    char *body = element(page, open, "</script>");
    assert_int_equal(tj_parse(body + strlen(open), out), 0);
    free(body);
}

/* Whether the bytes are valid UTF-8 with no control character but tab and LF. */
static int clean_utf8(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    while (n) {
        size_t len;
        uint32_t cp = gcev_utf8_next(p, n, &len);
        if ((cp == 0xFFFD && !(len == 3 && p[0] == 0xEF)) || (cp < 0x20 && cp != '\t' && cp != '\n') ||
            (cp >= 0x7F && cp <= 0x9F)) {
            return 0;
        }
        p += len;
        n -= len;
    }
    return 1;
}

/* How many "x,y" pairs the points attribute of each polyline/polygon of `svg` holds, at most. */
static size_t max_points(const char *svg)
{
    size_t most = 0;
    for (const char *p = strstr(svg, "points=\""); p; p = strstr(p + 1, "points=\"")) {
        const char *e = strchr(p + 8, '"');
        assert_non_null(e);
        size_t n = 0;
        for (const char *q = p + 8; q < e; q++) {
            n += *q == ',';
        }
        const char *tag = p;
        while (tag > svg && *tag != '<') {
            tag--;
        }
        if (!strncmp(tag, "<polygon", 8)) {
            n -= 2; /* an area's two corners on the baseline */
        }
        most = n > most ? n : most;
    }
    return most;
}

/* The vertices of the step paths (`d="M x y H x V y ..."`) of `svg`, or the GCs of the column paths
 * (`class="col ..." d="M x y V y M ..."`, one M per GC), most of one path. */
static size_t path_steps(const char *svg)
{
    size_t most = 0;
    for (const char *p = strstr(svg, " d=\"M"); p; p = strstr(p + 1, " d=\"M")) {
        const char *e = strchr(p + 4, '"');
        assert_non_null(e);
        const char *tag = p;
        while (tag > svg && *tag != '<') {
            tag--;
        }
        int columns = !strncmp(tag, "<path class=\"col ", 17);
        size_t n = columns ? 0 : 1;
        for (const char *q = p + 4; q < e; q++) {
            n += *q == (columns ? 'M' : 'V');
        }
        most = n > most ? n : most;
    }
    return most;
}

typedef struct pieces {
    char *buf;
    size_t n;
    int calls, fail_at;
} pieces;

static int collect(void *ctx, const char *data, size_t size)
{
    pieces *p = ctx;
    if (++p->calls == p->fail_at) {
        return 1;
    }
    char *b = realloc(p->buf, p->n + size + 1);
    assert_non_null(b);
    memcpy(b + p->n, data, size);
    p->buf = b;
    p->n += size;
    b[p->n] = '\0';
    return 0;
}

/* ---- arguments and statuses ------------------------------------------------- */

static void test_report_null_arguments_invalid(void **state)
{
    (void)state;
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    char *html = (char *)"x";
    size_t size = 7;
    assert_int_equal(gcev_report_build(NULL, NULL, NULL, &html, &size), GCEV_E_INVALID_ARG);
    assert_null(html);
    assert_int_equal(size, 0);
    assert_int_equal(gcev_report_build(s, NULL, NULL, NULL, &size), GCEV_E_INVALID_ARG);
    pieces p = {0};
    assert_int_equal(gcev_report_write(NULL, NULL, NULL, collect, &p), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_report_write(s, NULL, NULL, NULL, &p), GCEV_E_INVALID_ARG);
    assert_int_equal(p.calls, 0);
    gcev_report_free(NULL);
    gcev_stats_free(s);
}

static void test_report_empty_model_says_no_gc(void **state)
{
    (void)state;
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    char *html;
    size_t size;
    assert_int_equal(gcev_report_build(s, NULL, NULL, &html, &size), GCEV_OK);
    assert_int_equal(strlen(html), size);
    assert_non_null(strstr(html, "id=\"no-gc\""));
    assert_null(strstr(html, "id=\"chart-pause\""));
    assert_null(strstr(html, "id=\"warnings\""));
    tj d;
    page_data(html, &d);
    assert_int_equal(tj_get(&d, "gcs")->n, 0);
    tj_free(&d);
    gcev_report_free(html);
    gcev_stats_free(s);
}

static void test_report_write_pieces_equal_build(void **state)
{
    (void)state;
    gcev_stats *s = stats_of_gcs(300);
    char *html;
    size_t size;
    assert_int_equal(gcev_report_build(s, NULL, NULL, &html, &size), GCEV_OK);
    pieces p = {0};
    assert_int_equal(gcev_report_write(s, NULL, NULL, collect, &p), GCEV_OK);
    assert_true(p.calls >= 2); /* the page comes in pieces */
    assert_int_equal(p.n, size);
    assert_memory_equal(p.buf, html, size);
    free(p.buf);
    gcev_report_free(html);
    gcev_stats_free(s);
}

static void test_report_write_failure_stops_with_io(void **state)
{
    (void)state;
    gcev_stats *s = stats_of_gcs(300);
    pieces p = {0};
    p.fail_at = 1;
    assert_int_equal(gcev_report_write(s, NULL, NULL, collect, &p), GCEV_E_IO);
    assert_int_equal(p.calls, 1);
    assert_int_equal(p.n, 0);
    free(p.buf);
    gcev_stats_free(s);
}

/* ---- structure ------------------------------------------------------------ */

static void test_report_structure_sections_marks_rows(void **state)
{
    (void)state;
    enum { N = 300 };
    gcev_stats *s = stats_of_gcs(N);
    gcev_trace_info info = {0};
    info.format = GCEV_FORMAT_NETTRACE;
    info.format_version = 4;
    info.pointer_size = 8;
    info.process_id = 7777;
    gcev_report_facts f = {
        .source = "trace.nettrace", .info = &info, .process_name = "MyApp", .generator = "gcev test"};
    char *html;
    size_t size;
    assert_int_equal(gcev_report_build(s, &f, NULL, &html, &size), GCEV_OK);
    assert_true(strncmp(html, "<!DOCTYPE html>\n<html lang=\"en\">", 32) == 0);
    assert_true(size > 20 && strcmp(html + size - 8, "</html>\n") == 0);
    /* nothing is fetched: a policy that forbids it, and no address anywhere */
    assert_non_null(strstr(html, "Content-Security-Policy\" content=\"default-src 'none'"));
    assert_null(strstr(html, "http:"));
    assert_null(strstr(html, "https:"));
    assert_null(strstr(html, " src="));
    assert_null(strstr(html, "<link"));
    assert_null(strstr(html, "@import"));
    assert_null(strstr(html, "url("));
    /* the sections, in order: header, summary, charts, table */
    const char *order[] = {
        "<header>",           "id=\"summary\"",     "id=\"rollup-0\"",          "id=\"charts\"",
        "id=\"chart-pause\"", "id=\"chart-hist\"",  "id=\"chart-heap-before\"", "id=\"chart-heap-after\"",
        "id=\"chart-alloc\"", "id=\"chart-heaps\"", "id=\"gc-table\"",          "id=\"gcev-data\""};
    const char *at = html;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *p = strstr(at, order[i]);
        if (!p) {
            fail_msg("'%s' missing or out of order", order[i]);
        }
        at = p;
    }
    assert_null(strstr(html, "id=\"warnings\"")); /* a clean trace has no warning */
    assert_non_null(strstr(html, "MyApp"));
    assert_non_null(strstr(html, "process 7777"));
    /* every GC is one pause mark (below 2000 GCs), each naming its GC */
    char *pause = element(html, "id=\"chart-pause\"", "</figure>");
    assert_int_equal(count_of(pause, "class=\"mark "), N);
    for (uint32_t i = 0; i < N; i += 37) {
        char want[32];
        snprintf(want, sizeof want, "data-i=\"%u\"", i);
        assert_non_null(strstr(pause, want));
    }
    /* each background GC as a span */
    size_t bgcs = 0;
    for (size_t i = 0; i < N; i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(s, i);
        bgcs += (g->present & GCEV_STATS_GC_HAS_TYPE) && g->type == GCEV_STATS_BACKGROUND;
    }
    assert_true(bgcs >= 5);
    assert_int_equal(count_of(pause, "class=\"span\""), bgcs);
    free(pause);
    /* the histogram counts every GC with a pause, once */
    char *hist = element(html, "id=\"chart-hist\"", "</figure>");
    uint64_t total = 0;
    for (const char *p = strstr(hist, "data-count=\""); p; p = strstr(p + 1, "data-count=\"")) {
        total += strtoull(p + 12, NULL, 10);
    }
    assert_int_equal(total, N);
    free(hist);
    /* axes name their units */
    assert_non_null(strstr(html, ">Pause (ms)</text>"));
    assert_non_null(strstr(html, ">Size (MB)</text>"));
    assert_non_null(strstr(html, ">Rate (MB/s)</text>"));
    assert_non_null(strstr(html, ">Time since trace start ("));
    /* the data: one row per GC, in order, and the columns the table names */
    tj d;
    page_data(html, &d);
    const tj *gcs = tj_get(&d, "gcs"), *cols = tj_get(&d, "cols");
    assert_int_equal(gcs->n, N);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(gcs->items[i].n, cols->n);
        assert_int_equal(strtoul(gcs->items[i].items[0].num, NULL, 10), gcev_stats_gc_at(s, i)->number);
    }
    for (const char *p = strstr(html, "<th data-c=\""); p; p = strstr(p + 1, "<th data-c=\"")) {
        char name[16];
        assert_int_equal(sscanf(p + 12, "%15[^\"]", name), 1);
        int found = 0;
        for (size_t c = 0; c < cols->n; c++) {
            found |= !strcmp(cols->items[c].str, name);
        }
        if (!found) {
            fail_msg("table column '%s' is not in the data", name);
        }
    }
    /* every chart below the threshold draws every GC */
    const tj *charts = tj_get(&d, "charts");
    assert_true(charts->n >= 5);
    for (size_t c = 0; c < charts->n; c++) {
        assert_int_equal(charts->items[c].kind, TJ_NULL);
    }
    tj_free(&d);
    /* the summary's figures name their JSON keys */
    assert_non_null(strstr(html, "data-key=\"summary.gc_count\" data-v=\"300\""));
    assert_non_null(strstr(html, "data-key=\"processes.0.gcstats.count\" data-v=\"300\""));
    assert_non_null(strstr(html, "data-key=\"processes.0.pauses.all.p50_ms\""));
    char want[96];
    snprintf(want, sizeof want, "data-key=\"summary.pause_max_ms\" data-v=\"%.3f\"",
             gcev_stats_get_summary(s)->pause_max_ms);
    assert_non_null(strstr(html, want));
    assert_true(gcev_stats_get_summary(s)->pause_max_ms > 249);
    assert_true(clean_utf8(html, size));
    gcev_report_free(html);
    gcev_stats_free(s);
}

static void test_report_warnings_for_drops_truncation_and_unfinished(void **state)
{
    (void)state;
    /* the first events of a trace up to its third GCStart, then a loss while that GC is open */
    size_t size = 0;
    uint8_t *data = report_trace_write(10, &size);
    assert_non_null(data);
    gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME};
    gcev_trace *t;
    gcev_stats *s;
    assert_int_equal(gcev_trace_open_memory(data, size, &o, &t, NULL), GCEV_OK);
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    gcev_trace_event ev;
    int starts = 0;
    double ms = 0;
    while (starts < 3 && gcev_trace_next(t, &ev, NULL) == GCEV_OK) {
        assert_int_equal(gcev_stats_add_trace_event(s, &ev), GCEV_OK);
        starts += ev.event_id == 1;
        ms = ev.ms;
    }
    assert_int_equal(starts, 3);
    gcev_stats_note_dropped(s, 42, ms + 0.001);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    gcev_trace_close(t);
    free(data);
    gcev_report_facts f = {0};
    f.read_error = "trace ends inside a record at offset 1552";
    char *html;
    assert_int_equal(gcev_report_build(s, &f, NULL, &html, NULL), GCEV_OK);
    const char *w = strstr(html, "<section id=\"warnings\" class=\"warnings\" role=\"alert\">");
    assert_non_null(w);
    /* at the top: before the summary */
    assert_true(w < strstr(html, "id=\"summary\""));
    assert_non_null(strstr(w, "data-kind=\"dropped\"><b>42 events were lost</b>"));
    assert_non_null(strstr(w, "data-kind=\"incomplete\"><b>1 GC was open when events were lost</b>"));
    assert_non_null(
        strstr(w, "data-kind=\"truncated\"><b>The trace ends early</b>: trace ends inside a record at "
                  "offset 1552."));
    assert_non_null(strstr(w, "data-kind=\"unfinished\"><b>1 GC without an end</b>"));
    gcev_report_free(html);
    gcev_stats_free(s);
}

/* ---- escaping ------------------------------------------------------------- */

/* The other warnings: events that did not decode (plural), a table limit, and losses only
 * the trace's header reports. */
static void test_report_warnings_for_decode_errors_limits_and_header_losses(void **state)
{
    (void)state;
    gcev_stats_options o = {.struct_size = sizeof o, .max_handles = 1};
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(&o, &s), GCEV_OK);
    static const uint8_t handle[40] = {1}; /* SetGCHandle: HandleID 1, ObjectID 0, ... */
    static const uint8_t handle2[40] = {2};
    gcev_stats_input in = {.struct_size = sizeof in,
                           .provider = &gcev_provider_runtime,
                           .event_id = 30,
                           .version = 0,
                           .pointer_size = 8,
                           .payload = handle,
                           .payload_size = sizeof handle,
                           .ms = 1.0,
                           .thread_id = 1,
                           .process_id = 0};
    assert_int_equal(gcev_stats_add(s, &in), GCEV_OK);
    in.payload = handle2;
    in.ms = 2.0;
    assert_int_equal(gcev_stats_add(s, &in), GCEV_OK); /* past max_handles */
    static const uint8_t cut[3] = {1, 0, 0};           /* a GCStart cut inside its Count */
    gcev_stats_input bad = {.struct_size = sizeof bad,
                            .provider = &gcev_provider_runtime,
                            .event_id = 1,
                            .version = 2,
                            .pointer_size = 8,
                            .payload = cut,
                            .payload_size = sizeof cut,
                            .ms = 3.0,
                            .thread_id = 1,
                            .process_id = 0};
    assert_int_equal(gcev_stats_add(s, &bad), GCEV_E_TRUNCATED);
    bad.ms = 4.0;
    assert_int_equal(gcev_stats_add(s, &bad), GCEV_E_TRUNCATED);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    gcev_trace_info info;
    memset(&info, 0, sizeof info);
    info.events_lost = 7;
    gcev_report_facts f = {0};
    f.info = &info;
    char *html;
    assert_int_equal(gcev_report_build(s, &f, NULL, &html, NULL), GCEV_OK);
    const char *w = strstr(html, "<section id=\"warnings\"");
    assert_non_null(w);
    assert_non_null(strstr(w, "data-kind=\"dropped\"><b>The trace's header reports 7 lost events</b>"));
    assert_non_null(strstr(w, "data-kind=\"decode\"><b>2 GC events did not decode</b> and were skipped."));
    assert_non_null(
        strstr(w, "data-kind=\"limit\"><b>A segment, handle or AppDomain table hit its limit</b>"));
    gcev_report_free(html);
    gcev_stats_free(s);
}

static void test_report_escapes_hostile_names(void **state)
{
    (void)state;
    gcev_stats *s = stats_of_gcs(50);
    /* markup, quotes, a control byte, invalid UTF-8 (lone continuation, overlong '<', a
     * surrogate, a cut sequence), U+2028 and a C1 control */
    static const char hostile[] = "</script><script>alert(1)</script>\"'&<b>\x01\x80\xc0\xbc\xed\xa0\x80"
                                  "\xe2\x80\xa8\xc2\x85 caf\xc3\xa9 \xe2\x82";
    gcev_report_facts f = {
        .source = hostile, .process_name = hostile, .read_error = hostile, .generator = hostile};
    char *html;
    size_t size;
    assert_int_equal(gcev_report_build(s, &f, NULL, &html, &size), GCEV_OK);
    /* only the page's own two scripts */
    assert_int_equal(count_of(html, "<script"), 2);
    assert_int_equal(count_of(html, "</script"), 2);
    assert_null(strstr(html, "<b>\x01"));
    assert_null(strstr(html, "alert(1)</script>"));
    assert_non_null(strstr(html,
                           "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;&lt;b&gt;"
                           "\xef\xbf\xbd"));
    /* valid UTF-8 kept, every bad byte replaced */
    assert_non_null(strstr(html, "caf\xc3\xa9"));
    assert_true(clean_utf8(html, size));
    assert_int_equal(count_of(html, "<title>GC report: &lt;/script&gt;"), 1);
    gcev_report_free(html);
    gcev_stats_free(s);
}

static void test_report_json_strings_are_script_safe(void **state)
{
    (void)state;
    gcev_rb b = {0};
    gcev_rb_json_str(&b, "</script><!--\"\\\n\t\x01\xe2\x80\xa8\xe2\x80\xa9\xff ok\xc3\xa9");
    assert_string_equal(b.p, "\"\\u003c/script\\u003e\\u003c!--\\\"\\\\\\n\\t\\ufffd\\u2028\\u2029\\ufffd "
                             "ok\xc3\xa9\"");
    b.n = 0;
    gcev_rb_json_str(&b, NULL);
    assert_string_equal(b.p, "null");
    b.n = 0;
    gcev_rb_html(&b, "a<b>&\"'\r\x7f\xf4\x90\x80\x80\xf0\x9f\x98\x80");
    assert_string_equal(b.p,
                        "a&lt;b&gt;&amp;&quot;&#39;\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf"
                        "\xbd\xef\xbf\xbd\xf0\x9f\x98\x80");
    b.n = 0;
    gcev_rb_num(&b, 12.5000, 3);
    gcev_rb_putc(&b, ' ');
    gcev_rb_num(&b, -0.00001, 2);
    gcev_rb_putc(&b, ' ');
    gcev_rb_num(&b, 3.0, 1);
    assert_string_equal(b.p, "12.5 0 3");
    free(b.p);
}

/* ---- decimation ----------------------------------------------------------- */

static void test_report_decimate_keeps_extremes_within_bound(void **state)
{
    (void)state;
    enum { N = 20000, MAX = 2000 };
    double *t = malloc(N * sizeof *t), *key = malloc(N * sizeof *key);
    unsigned char *has = malloc(N);
    uint32_t *out = malloc(N * sizeof *out);
    assert_true(t && key && has && out);
    uint64_t lcg = 7;
    double tt = 0;
    size_t imax = 0, imin = 0;
    for (size_t i = 0; i < N; i++) {
        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
        tt += (double)((lcg >> 40) % 1000) / 10.0; /* uneven gaps, some equal times */
        t[i] = tt;
        key[i] = (double)((lcg >> 20) % 100000);
        has[i] = (unsigned char)(i % 13 != 0);
        if (has[i] && key[i] > key[imax]) {
            imax = i;
        }
        if (has[i] && (key[i] < key[imin] || !has[imin])) {
            imin = i;
        }
    }
    size_t k = gcev_report_decimate(t, key, has, N, MAX, out);
    assert_true(k <= MAX);
    assert_true(k >= MAX / 2);
    int saw_max = 0, saw_min = 0;
    for (size_t j = 0; j < k; j++) {
        if (j) {
            assert_true(out[j] > out[j - 1]);
        }
        saw_max |= out[j] == imax;
        saw_min |= out[j] == imin;
    }
    assert_true(saw_max);
    assert_true(saw_min);
    /* at or below the bound: every GC, in order */
    assert_int_equal(gcev_report_decimate(t, key, has, MAX, MAX, out), MAX);
    for (size_t j = 0; j < MAX; j++) {
        assert_int_equal(out[j], j);
    }
    /* every GC at one instant: one bucket, its two extremes */
    for (size_t i = 0; i < N; i++) {
        t[i] = 5;
    }
    k = gcev_report_decimate(t, key, has, N, MAX, out);
    assert_int_equal(k, 2);
    assert_true((out[0] == imin && out[1] == imax) || (out[0] == imax && out[1] == imin) ||
                (out[0] < out[1] && (out[0] == imin || out[0] == imax)));
    /* a bucket with no value keeps its first GC */
    memset(has, 0, N);
    k = gcev_report_decimate(t, key, has, N, MAX, out);
    assert_int_equal(k, 1);
    assert_int_equal(out[0], 0);
    free(t);
    free(key);
    free(has);
    free(out);
}

/* ---- size and mark bounds, both regimes ----------------------------------- */

static void check_bounds(uint32_t gcs, uint32_t size_scale, uint32_t gap_scale)
{
    gcev_stats *s = stats_of_big(gcs, size_scale, gap_scale);
    char *html;
    size_t size;
    assert_int_equal(gcev_report_build(s, NULL, NULL, &html, &size), GCEV_OK);
    size_t budget = 200000 + 400 * (size_t)gcs;
    print_message("%u GCs (sizes x%u, gaps x%u): page %zu bytes, budget %zu\n", gcs, size_scale, gap_scale,
                  size, budget);
    assert_true(size <= budget);
    /* the longest pause */
    const gcev_stats_gc *longest = gcev_stats_gc_find(s, report_trace_longest(gcs));
    assert_non_null(longest);
    assert_true(gcev_stats_get_summary(s)->pause_max_ms == longest->pause_ms);
    size_t li = 0;
    while (gcev_stats_gc_at(s, li) != longest) {
        li++;
    }
    static const char *const charts[] = {"pause", "hist", "heap-before", "heap-after", "alloc", "heaps"};
    for (size_t c = 0; c < sizeof charts / sizeof charts[0]; c++) {
        char open[64];
        snprintf(open, sizeof open, "id=\"chart-%s\"", charts[c]);
        char *fig = element(html, open, "</figure>");
        size_t marks = count_of(fig, "class=\"mark ") + count_of(fig, "<rect class=\"bar");
        size_t spans = count_of(fig, "<rect class=\"span"); /* spans, or shaded columns past 2000 GCs */
        size_t points = max_points(fig);
        size_t steps = path_steps(fig);
        points = steps > points ? steps : points;
        print_message("  %-11s %zu marks, %zu BGC spans, %zu points per line at most\n", charts[c], marks,
                      spans, points);
        assert_true(marks <= 2000);
        assert_true(points <= 2000);
        if (gcs > 2000) {
            assert_true(marks + spans <= 2000); /* spans share the budget once it binds */
        }
        if (!strcmp(charts[c], "pause")) {
            char want[64];
            snprintf(want, sizeof want, "data-i=\"%zu\"", li);
            assert_non_null(strstr(fig, want)); /* the longest pause always shows */
            assert_int_equal(count_of(fig, "class=\"mark "),
                             gcs <= 2000 ? gcs : count_of(fig, "class=\"mark "));
            if (gcs > 2000) {
                assert_true(count_of(fig, "class=\"mark ") < gcs);
            }
        }
        free(fig);
    }
    /* the table's data stays complete, in pages past 2000 GCs */
    tj d;
    page_data(html, &d);
    assert_int_equal(tj_get(&d, "gcs")->n, gcs);
    assert_int_equal(strtoul(tj_get(&d, "rows")->num, NULL, 10), gcs <= 2000 ? gcs : 1000);
    const tj *idx = tj_get(tj_get(&d, "charts"), "pause");
    if (gcs <= 2000) {
        assert_int_equal(idx->kind, TJ_NULL);
    } else {
        assert_true(idx->kind == TJ_ARR && idx->n <= 2000);
    }
    tj_free(&d);
    gcev_report_free(html);
    gcev_stats_free(s);
}

static void test_report_bounds_every_gc_a_mark(void **state)
{
    (void)state;
    check_bounds(2000, 1, 1);
}

/* the widest numbers: heaps of tens of GB, a trace of hours */
static void test_report_bounds_every_gc_a_mark_wide_numbers(void **state)
{
    (void)state;
    check_bounds(2000, 5000, 1000);
}

static void test_report_bounds_decimated(void **state)
{
    (void)state;
    check_bounds(8000, 1, 1);
}

static void test_report_options_bound_marks_and_rows(void **state)
{
    (void)state;
    gcev_stats *s = stats_of_gcs(400);
    gcev_report_options o = {100, 50};
    char *html;
    assert_int_equal(gcev_report_build(s, NULL, &o, &html, NULL), GCEV_OK);
    char *fig = element(html, "id=\"chart-pause\"", "</figure>");
    size_t marks = count_of(fig, "class=\"mark "), spans = count_of(fig, "<rect class=\"span");
    assert_true(marks + spans <= 100);
    assert_true(marks >= 40);
    free(fig);
    assert_non_null(strstr(html, "data-rows=\"50\""));
    gcev_report_free(html);
    /* below the floor: 64 */
    o.max_marks = 3;
    assert_int_equal(gcev_report_build(s, NULL, &o, &html, NULL), GCEV_OK);
    fig = element(html, "id=\"chart-pause\"", "</figure>");
    assert_true(count_of(fig, "class=\"mark ") + count_of(fig, "<rect class=\"span") <= 64);
    assert_true(count_of(fig, "class=\"mark ") > 3);
    free(fig);
    gcev_report_free(html);
    gcev_stats_free(s);
}

/* A whole run from trace bytes to page: the model (read in time order), then the page. */
typedef struct page_run {
    const uint8_t *data;
    size_t size;
    const char *want; /* the page of the unfailed run */
    size_t want_size;
} page_run;

static gcev_status page_run_once(void *ctx)
{
    page_run *r = ctx;
    gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME};
    gcev_trace *t = NULL;
    gcev_stats *s = NULL;
    gcev_error err = {0};
    gcev_status st = gcev_trace_open_memory(r->data, r->size, &o, &t, &err);
    if (st == GCEV_OK) {
        st = gcev_stats_create(NULL, &s);
    }
    if (st == GCEV_OK) {
        st = gcev_stats_read_trace(s, t, NULL, NULL, &err);
    }
    char *html = (char *)1;
    size_t size = 1;
    if (st == GCEV_OK) {
        st = gcev_report_build(s, NULL, NULL, &html, &size);
        if (st == GCEV_OK) {
            assert_int_equal(size, r->want_size);
            assert_memory_equal(html, r->want, size);
            gcev_report_free(html);
        } else { /* a failed build leaves nothing behind */
            assert_null(html);
            assert_int_equal(size, 0);
        }
    }
    gcev_stats_free(s);
    gcev_trace_close(t);
    return st;
}

/* Every allocation of trace read, model and page failing in turn: GCEV_E_NOMEM, or the
 * very page of the unfailed run; never a crash, a leak, a partial page or another error. */
static void test_report_each_allocation_failure_is_nomem_or_the_same_page(void **state)
{
    (void)state;
    page_run r = {NULL, 0, NULL, 0};
    uint8_t *data = report_trace_write(45, &r.size); /* a background GC at GC 40 */
    assert_non_null(data);
    r.data = data;
    gcev_stats *s = stats_of(data, r.size);
    char *want;
    assert_int_equal(gcev_report_build(s, NULL, NULL, &want, &r.want_size), GCEV_OK);
    gcev_stats_free(s);
    r.want = want;
    assert_true(failalloc_every(page_run_once, &r) > 0);
    gcev_report_free(want);
    free(data);
}

/* One runtime event (fields set by fill) fed to s at ms on thread 1. */
static void rep_feed(gcev_stats *s, uint16_t id, uint16_t version, gcev_event *ev, double ms)
{
    gcev_status st;
    ev->desc = gcev_event_desc_resolve(&gcev_provider_runtime, id, version, &st);
    assert_non_null(ev->desc);
    ev->pointer_size = 8;
    uint8_t buf[256];
    size_t n = 0;
    assert_int_equal(gcev_encode(ev, buf, sizeof buf, &n, NULL), GCEV_OK);
    gcev_stats_input in = {.struct_size = sizeof in,
                           .provider = &gcev_provider_runtime,
                           .event_id = id,
                           .version = version,
                           .pointer_size = 8,
                           .payload = buf,
                           .payload_size = (uint32_t)n,
                           .ms = ms,
                           .thread_id = 1,
                           .process_id = 0};
    assert_int_equal(gcev_stats_add(s, &in), GCEV_OK);
}

/* A blocking GC of generation gen whose pause (suspend to restart) is pause_ms. */
static void rep_gc(gcev_stats *s, double t, uint32_t number, uint32_t gen, double pause_ms)
{
    gcev_event ev;
    memset(&ev, 0, sizeof ev);
    ev.u.gc_suspend_ee_begin.reason = 1;
    ev.u.gc_suspend_ee_begin.count = 1;
    rep_feed(s, 9, 1, &ev, t);
    memset(&ev, 0, sizeof ev);
    rep_feed(s, 8, 1, &ev, t + pause_ms * 0.1);
    memset(&ev, 0, sizeof ev);
    ev.u.gc_start.count = number;
    ev.u.gc_start.depth = gen;
    rep_feed(s, 1, 2, &ev, t + pause_ms * 0.2);
    memset(&ev, 0, sizeof ev);
    ev.u.gc_end.count = number;
    ev.u.gc_end.depth = gen;
    rep_feed(s, 2, 1, &ev, t + pause_ms * 0.8);
    memset(&ev, 0, sizeof ev);
    ev.u.gc_heap_stats.generation_size0 = 1000000;
    rep_feed(s, 4, 2, &ev, t + pause_ms * 0.9);
    memset(&ev, 0, sizeof ev);
    rep_feed(s, 3, 1, &ev, t + pause_ms);
}

/* Pauses below the histogram's first edge and at or past its last land in its open-ended
 * bins, labelled "<0.1" and ">=10000" (ms). */
static void test_report_pause_histogram_open_ended_bins(void **state)
{
    (void)state;
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    rep_gc(s, 10.0, 1, 0, 0.05);
    rep_gc(s, 100.0, 2, 1, 3.0);
    rep_gc(s, 200.0, 3, 2, 20000.0);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    assert_int_equal(gcev_stats_gc_count(s), 3);
    char *html;
    assert_int_equal(gcev_report_build(s, NULL, NULL, &html, NULL), GCEV_OK);
    const char *h = strstr(html, "Pause histogram by generation");
    assert_non_null(h);
    assert_non_null(strstr(h, "&lt;0.1"));
    assert_non_null(strstr(h, "&ge;10000"));
    gcev_report_free(html);
    gcev_stats_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_null_arguments_invalid),
        cmocka_unit_test(test_report_empty_model_says_no_gc),
        cmocka_unit_test(test_report_write_pieces_equal_build),
        cmocka_unit_test(test_report_write_failure_stops_with_io),
        cmocka_unit_test(test_report_structure_sections_marks_rows),
        cmocka_unit_test(test_report_warnings_for_drops_truncation_and_unfinished),
        cmocka_unit_test(test_report_warnings_for_decode_errors_limits_and_header_losses),
        cmocka_unit_test(test_report_pause_histogram_open_ended_bins),
        cmocka_unit_test(test_report_escapes_hostile_names),
        cmocka_unit_test(test_report_json_strings_are_script_safe),
        cmocka_unit_test(test_report_decimate_keeps_extremes_within_bound),
        cmocka_unit_test(test_report_bounds_every_gc_a_mark),
        cmocka_unit_test(test_report_bounds_every_gc_a_mark_wide_numbers),
        cmocka_unit_test(test_report_bounds_decimated),
        cmocka_unit_test(test_report_options_bound_marks_and_rows),
        cmocka_unit_test(test_report_each_allocation_failure_is_nomem_or_the_same_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
