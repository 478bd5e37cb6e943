/* SPDX-License-Identifier: MIT */
/*
 * Conformance over ../shared/corpus: for every .nettrace/.netperf, the format,
 * version, pointer size, total events and per-(provider, id, version) GC counts
 * stated in corpus/README.md (measured with an independent reader).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev.h>

#include "testutil.h"

typedef struct expect_row {
    char provider[64];
    unsigned id, version;
    unsigned long long count, seen;
} expect_row;

static void check_trace(const char *dir, const char *name, const char *format, unsigned version,
                        unsigned ptr, unsigned long long total, expect_row *rows, size_t nrows)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/%s", dir, name);
    gcev_trace *t;
    gcev_error err = {0};
    gcev_trace_options o = {GCEV_TRACE_ORDER_TIME, 0};
    assert_int_equal(gcev_trace_open_file(path, &o, &t, &err), GCEV_OK);
    const gcev_trace_info *info = gcev_trace_get_info(t);
    assert_string_equal(gcev_trace_format_name(info->format), format);
    assert_int_equal(info->pointer_size, ptr);
    gcev_trace_event ev;
    unsigned long long n = 0;
    int64_t last_ts = INT64_MIN;
    gcev_status st;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        n++;
        assert_true(ev.timestamp >= last_ts); /* time order holds over the whole file */
        last_ts = ev.timestamp;
        for (size_t i = 0; i < nrows; i++) {
            if (ev.event_id == rows[i].id && ev.version == rows[i].version &&
                !strcmp(ev.provider_name, rows[i].provider)) {
                rows[i].seen++;
            }
        }
    }
    assert_int_equal(st, GCEV_END);
    /* README gives the Trace object's version; gcev reports 5 once V5 metadata tags appear. */
    assert_true(info->format_version == version || (version == 4 && info->format_version == 5));
    assert_int_equal(n, total);
    for (size_t i = 0; i < nrows; i++) {
        if (rows[i].seen != rows[i].count) {
            fail_msg("%s: %s id %u v%u: %llu events, README says %llu", name, rows[i].provider,
                     rows[i].id, rows[i].version, rows[i].seen, rows[i].count);
        }
    }
    assert_int_equal(gcev_trace_dropped_events(t), 0);
    gcev_trace_close(t);
}

static void test_corpus_nettrace_counts_match_readme(void **st)
{
    (void)st;
    const char *dir = testutil_shared_dir();
    assert_non_null(dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/README.md", dir);
    size_t size;
    char *text = testutil_read_file(path, &size);
    assert_non_null(text);
    char name[256] = "", format[32] = "";
    unsigned version = 0, ptr = 0;
    unsigned long long total = 0;
    expect_row rows[64];
    size_t nrows = 0;
    int checked = 0, have = 0;
    for (char *line = strtok(text, "\n");; line = strtok(NULL, "\n")) {
        int section = !line || !strncmp(line, "## ", 3);
        if (section && have && (!strcmp(format, "nettrace") || !strcmp(format, "netperf"))) {
            check_trace(dir, name, format, version, ptr, total, rows, nrows);
            checked++;
        }
        if (!line) {
            break;
        }
        if (section) {
            snprintf(name, sizeof name, "%s", line + 3);
            nrows = 0;
            have = 0;
            continue;
        }
        unsigned long long bytes;
        if (sscanf(line, "- format %31s version %u, pointer size %u, %llu bytes, %llu events", format,
                   &version, &ptr, &bytes, &total) == 5) {
            have = 1;
            continue;
        }
        char prov[40], sym[64];
        unsigned id, ver;
        unsigned long long count;
        if (nrows < 64 &&
            sscanf(line, " - %39s id %u v%u %63[^:]: %llu", prov, &id, &ver, sym, &count) == 5) {
            expect_row *r = &rows[nrows++];
            snprintf(r->provider, sizeof r->provider, "Microsoft-Windows-%s", prov);
            r->id = id;
            r->version = ver;
            r->count = count;
            r->seen = 0;
        }
    }
    assert_int_equal(checked, 5);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_nettrace_counts_match_readme),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
