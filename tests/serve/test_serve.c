/* SPDX-License-Identifier: MIT */
/*
 * gcev serve's parts without threads or HTTP (tools/gcev/serve): the parsers of /proc texts
 * and the Accept header, a closed GC applied to the metric state, the pause ratio, and the
 * exposition in both formats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "serve.h"

#define HEX64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static int cid(const char *text, char *out)
{
    return serve_parse_container_id(text, strlen(text), out, 80);
}

static void test_container_id(void **state)
{
    (void)state;
    char out[80];
    assert_int_equal(cid("12:pids:/docker/" HEX64 "\n0::/\n", out), 1);
    assert_string_equal(out, HEX64);
    assert_int_equal(cid("0::/system.slice/docker-" HEX64 ".scope\n", out), 1);
    assert_string_equal(out, HEX64);
    assert_int_equal(
        cid("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/cri-containerd-" HEX64
            ".scope",
            out),
        1);
    assert_int_equal(cid("0::/kubepods/besteffort/pod7/" HEX64 "\n", out), 1);
    assert_int_equal(cid("1:name=systemd:/machine.slice/libpod-" HEX64 ".scope/container\n", out), 1);
    assert_string_equal(out, HEX64);
    /* not containers */
    assert_int_equal(cid("0::/user.slice/user-0.slice/session-1.scope\n", out), 0);
    assert_string_equal(out, "");
    assert_int_equal(cid("0::/docker/0123456789ab\n", out), 0); /* short id */
    assert_int_equal(cid("0::/docker/" HEX64 "0\n", out), 0);   /* 65 digits */
    assert_int_equal(cid("0::/docker/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", out),
                     0);
    assert_int_equal(cid("no colons " HEX64, out), 0);
    assert_int_equal(cid("", out), 0);
    /* the text's length bounds the read: the id is cut off, so there is none */
    const char *t = "0::/docker/" HEX64;
    assert_int_equal(serve_parse_container_id(t, strlen(t) - 1, out, sizeof out), 0);
    /* too small an output */
    assert_int_equal(serve_parse_container_id(t, strlen(t), out, 64), 0);
}

static void test_stat(void **state)
{
    (void)state;
    char comm[16];
    uint64_t st = 0;
    const char *s = "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 9 0 987654 1000 "
                    "200 18446744073709551615\n";
    assert_int_equal(serve_parse_stat(s, strlen(s), comm, sizeof comm, &st), 1);
    assert_string_equal(comm, "my (odd) name");
    assert_int_equal(st, 987654);
    /* truncated to the buffer, control characters shown as '?' */
    const char *s2 = "1 (a\nverylongprocessname) R 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 77";
    assert_int_equal(serve_parse_stat(s2, strlen(s2), comm, 8, &st), 1);
    assert_string_equal(comm, "a?veryl");
    assert_int_equal(st, 77);
    assert_int_equal(serve_parse_stat("1 (x) S 1 2", 11, comm, sizeof comm, &st), 0);
    assert_int_equal(serve_parse_stat("1 x) S", 6, comm, sizeof comm, &st), 0);
    assert_int_equal(serve_parse_stat(")(", 2, comm, sizeof comm, &st), 0);
    uint64_t pages = 0;
    assert_int_equal(serve_parse_statm("1000 250 30 1 0 90 0\n", 21, &pages), 1);
    assert_int_equal(pages, 250);
    assert_int_equal(serve_parse_statm("1000", 4, &pages), 0);
    assert_int_equal(serve_parse_statm("99999999999999999999999 1", 25, &pages), 0);
}

static void test_accept(void **state)
{
    (void)state;
    /* Prometheus 2.42's scrape */
    assert_int_equal(
        serve_accept_openmetrics("application/openmetrics-text;version=1.0.0,application/"
                                 "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
                                 "q=0.5,*/*;q=0.1"),
        1);
    assert_int_equal(serve_accept_openmetrics("Application/OpenMetrics-Text"), 1);
    assert_int_equal(serve_accept_openmetrics(NULL), 0);
    assert_int_equal(serve_accept_openmetrics("*/*"), 0);
    assert_int_equal(serve_accept_openmetrics("text/plain"), 0);
    assert_int_equal(serve_accept_openmetrics("application/openmetrics-text;q=0"), 0);
    assert_int_equal(serve_accept_openmetrics("text/plain;q=1, application/openmetrics-text;q=0.5"), 0);
    assert_int_equal(serve_accept_openmetrics("text/plain;q=0.2 , application/openmetrics-text ; q=0.9"), 1);
    assert_int_equal(serve_accept_openmetrics("application/openmetrics-textual"), 0);
    assert_int_equal(serve_accept_openmetrics(",,;;=q,"), 0);
}

static void test_accept_gzip(void **state)
{
    (void)state;
    /* Prometheus' scrape */
    assert_int_equal(serve_accept_gzip("gzip"), 1);
    /* curl --compressed */
    assert_int_equal(serve_accept_gzip("deflate, gzip, br, zstd"), 1);
    assert_int_equal(serve_accept_gzip(NULL), 0);
    assert_int_equal(serve_accept_gzip(""), 0);
    assert_int_equal(serve_accept_gzip("identity"), 0);
    assert_int_equal(serve_accept_gzip("GZip;Q=0.5"), 1);
    assert_int_equal(serve_accept_gzip("x-gzip"), 1);
    assert_int_equal(serve_accept_gzip("gzip;q=0"), 0);
    assert_int_equal(serve_accept_gzip("gzip;q=0.000"), 0);
    assert_int_equal(serve_accept_gzip("gzip;q=0.001"), 1);
    /* "*" is every coding the list does not name */
    assert_int_equal(serve_accept_gzip("*"), 1);
    assert_int_equal(serve_accept_gzip("*;q=0"), 0);
    assert_int_equal(serve_accept_gzip("gzip;q=0, *"), 0);
    assert_int_equal(serve_accept_gzip("br, *;q=0.1"), 1);
    assert_int_equal(serve_accept_gzip("gzipped, x-gzip2"), 0);
    assert_int_equal(serve_accept_gzip(" gzip ; q=1 "), 1);
    assert_int_equal(serve_accept_gzip(",,;;=q,"), 0);
}

static void test_escape(void **state)
{
    (void)state;
    char out[16];
    assert_string_equal(serve_escape_label("a\"b\\c\nd", out, sizeof out), "a\\\"b\\\\c\\nd");
    /* an escape is never cut in half */
    assert_string_equal(serve_escape_label("abcdefghijklm\"", out, 15), "abcdefghijklm");
}

static gcev_stats_gc gc(uint32_t gen, uint32_t type, uint32_t reason, double pause_ms)
{
    gcev_stats_gc g;
    memset(&g, 0, sizeof g);
    g.present = GCEV_STATS_GC_HAS_GENERATION | GCEV_STATS_GC_HAS_TYPE | GCEV_STATS_GC_HAS_REASON |
                GCEV_STATS_GC_HAS_PAUSE | GCEV_STATS_GC_HAS_PAUSE_START | GCEV_STATS_GC_HAS_PROMOTED |
                GCEV_STATS_GC_HAS_SUSPENSION;
    g.flags = GCEV_STATS_GC_COMPLETE;
    g.generation = gen;
    g.type = type;
    g.reason = reason;
    g.pause_ms = pause_ms;
    g.pause_start_ms = 5000;
    g.suspension_ms = 0.25;
    g.promoted_bytes = 1000;
    return g;
}

static void test_state(void **state)
{
    (void)state;
    serve_pm m;
    memset(&m, 0, sizeof m);
    gcev_stats_gc g = gc(1, GCEV_STATS_BLOCKING, 0, 3.0);
    g.present |=
        GCEV_STATS_GC_HAS_ALLOCATED_SINCE | GCEV_STATS_GC_HAS_COMMITTED_AFTER | GCEV_STATS_GC_HAS_DATAS;
    g.allocated_since_last_gc = 5000;
    g.committed_after.in_use = 100;
    g.committed_after.bookkeeping = 1;
    g.datas_heap_count = 3;
    gcev_stats_gen_heap gen0;
    memset(&gen0, 0, sizeof gen0);
    gen0.present = GCEV_STATS_HEAP_HAS_SIZE_AFTER | GCEV_STATS_HEAP_HAS_FRAG_AFTER;
    gen0.size_after = 4096;
    gen0.frag_after = 16;
    const gcev_stats_gen_heap *gens[GCEV_STATS_GENS] = {&gen0};
    const gcev_stats_gen_heap *none[GCEV_STATS_GENS] = {NULL};
    serve_pm_on_gc(&m, &g, gens);
    assert_int_equal(m.gcs[1][0][0], 1);
    assert_int_equal(m.pause_bucket[1][0][5], 1); /* 3 ms: le 0.005 */
    assert_int_equal(m.pause_count[1][0], 1);
    assert_true(m.pause_sum[1][0] > 0.0029 && m.pause_sum[1][0] < 0.0031);
    assert_int_equal(m.allocated, 5000);
    assert_int_equal(m.promoted, 1000);
    assert_int_equal(m.committed, 101);
    assert_int_equal(m.datas, 3);
    assert_int_equal(m.size_after[0], 4096);
    assert_int_equal(m.has_size[1], 0);
    /* no generation, unknown type and an unnamed reason; no pause; incomplete */
    gcev_stats_gc u;
    memset(&u, 0, sizeof u);
    u.present = GCEV_STATS_GC_HAS_REASON;
    u.reason = 31;
    serve_pm_on_gc(&m, &u, none);
    assert_int_equal(m.gcs[3][3][SERVE_REASONS - 1], 1);
    assert_int_equal(m.incomplete, 1);
    /* a 10 s pause lands in +Inf; the ratio is over 60 s, or the session's age */
    gcev_stats_gc big = gc(2, GCEV_STATS_BACKGROUND, 1, 10000.0);
    serve_pm_on_gc(&m, &big, none);
    assert_int_equal(m.pause_bucket[2][1][SERVE_PAUSE_BUCKETS], 1);
    double r = serve_pm_pause_ratio(&m, 6000, 1e9);
    assert_true(r > (10003.0 / 60000.0) - 1e-9 && r < (10003.0 / 60000.0) + 1e-9);
    assert_true(serve_pm_pause_ratio(&m, 6000, 20000) > 0.5);
    assert_true(serve_pm_pause_ratio(&m, 5000 + 61000, 1e9) == 0.0); /* out of the window */
}

static int has_line(const serve_buf *b, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = b->p; p && p < b->p + b->n;) {
        const char *e = memchr(p, '\n', (size_t)(b->p + b->n - p));
        size_t len = e ? (size_t)(e - p) : (size_t)(b->p + b->n - p);
        if (len == n && !memcmp(p, line, n)) {
            return 1;
        }
        p += len + 1;
    }
    return 0;
}

static void test_exposition(void **state)
{
    (void)state;
    static serve_proc p, hidden;
    memset(&p, 0, sizeof p);
    p.pid = 42;
    strcpy(p.name, "web\"app");
    strcpy(p.runtime, "10.0.1");
    p.state = SERVE_ATTACHED;
    serve_proc_labels(&p);
    assert_string_equal(p.labels,
                        "pid=\"42\",process=\"web\\\"app\",runtime_version=\"10.0.1\",container_id=\"\"");
    gcev_stats_gc g = gc(0, GCEV_STATS_BLOCKING, 0, 0.4);
    const gcev_stats_gen_heap *none[GCEV_STATS_GENS] = {NULL};
    serve_pm_on_gc(&p.m, &g, none);
    serve_pm_on_gc(&p.m, &g, none);
    memset(&hidden, 0, sizeof hidden);
    hidden.pid = 7;
    hidden.hidden = 1;
    serve_proc_labels(&hidden);
    p.next = &hidden;
    serve_self self = {1.5, 4096, 2, 0.001, 3};
    serve_buf b = {NULL, 0, 0, 0};
    serve_expo_write(&b, &p, &self, 1000, 0);
    assert_false(b.failed);
    assert_true(has_line(&b, "# TYPE gcev_gcs_total counter"));
    assert_true(has_line(&b,
                         "gcev_gcs_total{pid=\"42\",process=\"web\\\"app\",runtime_version=\"10.0.1\","
                         "container_id=\"\",generation=\"0\",type=\"blocking\",reason=\"AllocSmall\"} 2"));
    const char *lbl = "pid=\"42\",process=\"web\\\"app\",runtime_version=\"10.0.1\",container_id=\"\"";
    char want[512];
    snprintf(want, sizeof want,
             "gcev_gc_pause_seconds_bucket{%s,generation=\"0\",type=\"blocking\",le=\"0.00025\"} 0", lbl);
    assert_true(has_line(&b, want));
    snprintf(want, sizeof want,
             "gcev_gc_pause_seconds_bucket{%s,generation=\"0\",type=\"blocking\",le=\"0.0005\"} 2", lbl);
    assert_true(has_line(&b, want));
    snprintf(want, sizeof want,
             "gcev_gc_pause_seconds_bucket{%s,generation=\"0\",type=\"blocking\",le=\"+Inf\"} 2", lbl);
    assert_true(has_line(&b, want));
    snprintf(want, sizeof want, "gcev_gc_pause_seconds_count{%s,generation=\"0\",type=\"blocking\"} 2", lbl);
    assert_true(has_line(&b, want));
    snprintf(want, sizeof want, "gcev_session_state{%s,state=\"attached\"} 1", lbl);
    assert_true(has_line(&b, want));
    snprintf(want, sizeof want, "gcev_session_state{%s,state=\"exited\"} 0", lbl);
    assert_true(has_line(&b, want));
    assert_true(has_line(&b, "gcev_serve_cpu_seconds_total 1.5"));
    assert_true(has_line(&b, "gcev_serve_sessions{state=\"attached\"} 1"));
    assert_true(has_line(&b, "gcev_serve_unwatched_processes 2"));
    assert_true(has_line(&b, "gcev_serve_scrapes_total 3"));
    assert_null(strstr(b.p, "pid=\"7\"")); /* hidden */
    assert_null(strstr(b.p, "# EOF"));     /* text format */
    assert_null(strstr(b.p, "# UNIT"));
    serve_buf_free(&b);
    /* OpenMetrics: families without _total, units, # EOF last */
    serve_expo_write(&b, &p, &self, 1000, 1);
    assert_true(has_line(&b, "# TYPE gcev_gcs counter"));
    assert_true(has_line(&b, "# TYPE gcev_gc_pause_seconds histogram"));
    assert_true(has_line(&b, "# UNIT gcev_gc_pause_seconds seconds"));
    assert_true(has_line(&b, "# UNIT gcev_gc_promoted_bytes bytes"));
    assert_true(b.n >= 6 && !memcmp(b.p + b.n - 6, "# EOF\n", 6));
    serve_buf_free(&b);
}

static void test_table(void **state)
{
    (void)state;
    for (int i = 0; i < SM_COUNT; i++) {
        const serve_metric *m = &serve_metrics[i];
        assert_int_equal(m->id, i);
        assert_true(!strncmp(m->family, "gcev_", 5));
        /* OpenMetrics: a unit is the name's suffix; counters never name themselves _total */
        size_t n = strlen(m->family), u = strlen(m->unit);
        if (u) {
            assert_true(n > u + 1 && !strcmp(m->family + n - u, m->unit) && m->family[n - u - 1] == '_');
        }
        assert_false(n >= 6 && !strcmp(m->family + n - 6, "_total"));
        assert_true(m->help[0] && m->source[0]);
        assert_null(strpbrk(m->help, "\\\n"));
        for (int j = 0; j < i; j++) {
            assert_string_not_equal(m->family, serve_metrics[j].family);
        }
    }
    for (int k = 1; k < SERVE_PAUSE_BUCKETS; k++) {
        assert_true(serve_pause_bounds[k] > serve_pause_bounds[k - 1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_container_id), cmocka_unit_test(test_stat),   cmocka_unit_test(test_accept),
        cmocka_unit_test(test_accept_gzip),  cmocka_unit_test(test_escape), cmocka_unit_test(test_state),
        cmocka_unit_test(test_exposition),   cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
