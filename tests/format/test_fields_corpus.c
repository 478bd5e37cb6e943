/* SPDX-License-Identifier: MIT */
/*
 * gcev_fields() over real traces: for every event of the corpus traces and of the committed
 * .NET 10 captures that gcev_decode() decodes (with or without a payload fault), the batch
 * gives what gcev_field_next() yields, byte for byte, with and without value names. The
 * synthetic payloads of test_format cover every template; these cover the values and
 * templates (variable-size, newer versions, cut payloads) real runtimes write.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>

/* Checks one decoded event; returns its field count. */
static size_t check_event(const gcev_event *ev)
{
    size_t count = 0;
    for (unsigned options = 0; options <= GCEV_FIELD_LAZY_NAMES; options += GCEV_FIELD_LAZY_NAMES) {
        gcev_field walked[64], batch[64];
        gcev_field_iter it;
        gcev_field_iter_init(&it, ev);
        gcev_field_iter_set_options(&it, options);
        size_t n = 0;
        while (n < 64 && gcev_field_next(&it, &walked[n])) {
            n++;
        }
        gcev_field extra;
        assert_false(gcev_field_next(&it, &extra)); /* every template has fewer than 64 */
        assert_int_equal(gcev_fields(ev, batch, 64, options), n);
        assert_memory_equal(batch, walked, n * sizeof batch[0]);
        count = n;
    }
    return count;
}

/* Events decoded and fields compared in the trace at path. */
static void check_trace(const char *path, unsigned long long *events, unsigned long long *fields)
{
    gcev_trace *t;
    gcev_error err;
    if (gcev_trace_open_file(path, NULL, &t, &err) != GCEV_OK) {
        fail_msg("%s: %s", path, err.message);
    }
    gcev_trace_event ev;
    while (gcev_trace_next(t, &ev, NULL) == GCEV_OK) {
        if (!ev.provider) {
            continue;
        }
        gcev_input in = {.struct_size = sizeof in,
                         .provider = ev.provider,
                         .event_id = ev.event_id,
                         .version = ev.version,
                         .pointer_size = ev.pointer_size,
                         .data = ev.payload,
                         .size = ev.payload_size};
        gcev_event out;
        if (gcev_decode(&in, &out, NULL) == GCEV_OK || out.desc) {
            *fields += check_event(&out);
            (*events)++;
        }
    }
    gcev_trace_close(t);
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static void test_fields_batch_matches_the_walk_on_every_corpus_event(void **state)
{
    (void)state;
    const char *shared = getenv("GCEV_SHARED_DIR");
    if (!shared) {
        skip();
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/corpus", shared);
    DIR *d = opendir(dir);
    if (!d) {
        skip();
    }
    unsigned long long events = 0, fields = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (has_suffix(e->d_name, ".nettrace") || has_suffix(e->d_name, ".netperf")) {
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            check_trace(path, &events, &fields);
        }
    }
    closedir(d);
    /* 68,885 events and 374,037 fields: the 3.0 trace's 68,561 GC events are most of them */
    assert_true(events > 60000);
    assert_true(fields > 5 * events);
}

static void test_fields_batch_matches_the_walk_on_the_net10_captures(void **state)
{
    (void)state;
    static const char *const names[] = {"svr-datas-gc-verbose.nettrace", "wks-full.nettrace"};
    const char *data = getenv("GCEV_TEST_DATA");
    assert_non_null(data);
    unsigned long long events = 0, fields = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/traces/%s", data, names[i]);
        check_trace(path, &events, &fields);
    }
    assert_true(events > 1000);
    assert_true(fields > events);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_batch_matches_the_walk_on_every_corpus_event),
        cmocka_unit_test(test_fields_batch_matches_the_walk_on_the_net10_captures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
