/* SPDX-License-Identifier: MIT */
/*
 * The GC-end callback (src/stats/gcev_stats_close.c): on every real trace of
 * tests/data/traces (and the shared corpus when it is there), each GC is reported
 * exactly once, and what a live consumer sees when a GC closes before the end is
 * the record gcev_stats_finish() leaves, member for member: the one model decides
 * pause, nesting and completeness, and its end values are computed once, the same.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev_stats.h>

#include "testutil.h"

typedef struct seen {
    gcev_stats_gc *recs; /* the record as the callback saw it, by report order */
    size_t *index;       /* its index in gcev_stats_gc_at order */
    int *at_finish;      /* reported by gcev_stats_finish() */
    size_t n, cap;
    int finishing;
    const gcev_stats *s;
} seen;

static void on_gc(void *ctx, const gcev_stats *s, const gcev_stats_gc *g)
{
    seen *v = ctx;
    assert_ptr_equal(s, v->s);
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 256;
        v->recs = realloc(v->recs, v->cap * sizeof *v->recs);
        v->index = realloc(v->index, v->cap * sizeof *v->index);
        v->at_finish = realloc(v->at_finish, v->cap * sizeof *v->at_finish);
        assert_true(v->recs && v->index && v->at_finish);
    }
    size_t i = 0;
    while (i < gcev_stats_gc_count(s) && gcev_stats_gc_at(s, i) != g) {
        i++;
    }
    assert_true(i < gcev_stats_gc_count(s)); /* one of the model's own records */
    v->recs[v->n] = *g;
    v->index[v->n] = i;
    v->at_finish[v->n] = v->finishing;
    v->n++;
}

static void progress(void *ctx, uint64_t events, uint64_t off, uint64_t size)
{
    (void)ctx;
    (void)events;
    (void)off;
    (void)size;
}

/* Checks one trace; returns the GCs that closed before the end. */
static size_t check_trace(const char *path, size_t *total)
{
    gcev_trace_options o;
    memset(&o, 0, sizeof o);
    o.order = GCEV_TRACE_ORDER_TIME;
    gcev_trace *t = NULL;
    gcev_error err = {0};
    if (gcev_trace_open_file(path, &o, &t, &err) != GCEV_OK) {
        fail_msg("%s: %s", path, err.message);
    }
    gcev_stats *s = NULL;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    seen v;
    memset(&v, 0, sizeof v);
    v.s = s;
    assert_int_equal(gcev_stats_set_gc_callback(s, on_gc, &v), GCEV_OK);
    /* the finish inside read_trace reports the rest: tell them apart by the model's state */
    gcev_trace_event ev;
    gcev_status st;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        gcev_stats_add_trace_event(s, &ev);
    }
    v.finishing = 1;
    gcev_stats_note_dropped(s, gcev_trace_dropped_events(t), 1e300);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    (void)progress;
    size_t n = gcev_stats_gc_count(s);
    if (v.n != n) {
        fail_msg("%s: %zu GCs, %zu reported", path, n, v.n);
    }
    size_t early = 0;
    int *once = calloc(n ? n : 1, sizeof *once);
    for (size_t k = 0; k < v.n; k++) {
        assert_int_equal(once[v.index[k]]++, 0);
        const gcev_stats_gc *fin = gcev_stats_gc_at(s, v.index[k]);
        if (v.at_finish[k]) {
            continue;
        }
        early++;
        if (!(v.recs[k].flags & GCEV_STATS_GC_COMPLETE)) {
            /* closed as it was, 16 GCs after it lost its end: it never completes */
            assert_false(fin->flags & GCEV_STATS_GC_COMPLETE);
            assert_int_equal(v.recs[k].number, fin->number);
            continue;
        }
        /* the one documented difference: "none seen" bits that need the whole trace
         * (HAS_ALLOCATED, HAS_PINNED_EVENTS: set at close only once such events were seen) */
        gcev_stats_gc mine = v.recs[k];
        const uint64_t trace_wide = GCEV_STATS_GC_HAS_ALLOCATED | GCEV_STATS_GC_HAS_PINNED_EVENTS;
        if ((mine.present ^ fin->present) & ~trace_wide || (mine.present & ~fin->present)) {
            fail_msg("%s: GC %u: present %llx when reported, %llx finished", path, fin->number,
                     (unsigned long long)mine.present, (unsigned long long)fin->present);
        }
        mine.present = fin->present;
        if (memcmp(&mine, fin, sizeof *fin) != 0) {
            const unsigned char *a = (const void *)&mine, *b = (const void *)fin;
            size_t off = 0;
            while (a[off] == b[off]) {
                off++;
            }
            fail_msg("%s: GC %u as reported differs from the finished record at byte %zu (present %llx/%llx, "
                     "flags %x/%x)",
                     path, fin->number, off, (unsigned long long)v.recs[k].present,
                     (unsigned long long)fin->present, v.recs[k].flags, fin->flags);
        }
    }
    free(once);
    *total = n;
    free(v.recs);
    free(v.index);
    free(v.at_finish);
    gcev_stats_free(s);
    gcev_trace_close(t);
    return early;
}

static void check_dir(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name), sl = strlen(suffix);
        if (len <= sl || strcmp(e->d_name + len - sl, suffix) != 0) {
            continue;
        }
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t total = 0, early = check_trace(path, &total);
        printf("%s: %zu GCs, %zu reported as they closed, all equal to the finished records\n", e->d_name,
               total, early);
    }
    closedir(d);
}

static void test_callback_reports_each_gc_once_with_its_final_values(void **state)
{
    (void)state;
    const char *data = getenv("GCEV_TEST_DATA");
    assert_non_null(data);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/traces", data);
    check_dir(dir, ".nettrace");
    const char *shared = testutil_shared_dir();
    if (shared) {
        snprintf(dir, sizeof dir, "%s/corpus", shared);
        check_dir(dir, ".nettrace");
        check_dir(dir, ".netperf");
        check_dir(dir, ".etl");
    }
}

static int is_gc_end_of(const gcev_trace_event *ev, uint32_t number)
{
    if (!ev->provider || ev->event_id != 2 ||
        strcmp(ev->provider_name, "Microsoft-Windows-DotNETRuntime") != 0) {
        return 0;
    }
    gcev_gc_end e;
    return gcev_decode_gc_end(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &e, NULL, NULL) ==
               GCEV_OK &&
           e.count == number;
}

/* A GC whose GCEnd is lost never completes: the GCs after it must not wait for the end of the
 * trace (they would, as each waits for the one before it); the lost one is reported 16 GCs
 * later, incomplete, and the rest as they close. */
static void test_callback_lost_end_does_not_hold_back_later_gcs(void **state)
{
    (void)state;
    const char *data = getenv("GCEV_TEST_DATA");
    assert_non_null(data);
    char path[1024];
    snprintf(path, sizeof path, "%s/traces/svr-datas-gc-verbose.nettrace", data);
    gcev_trace_options o;
    memset(&o, 0, sizeof o);
    o.order = GCEV_TRACE_ORDER_TIME;
    gcev_trace *t = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(path, &o, &t, &err), GCEV_OK);
    gcev_stats *s = NULL;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    seen v;
    memset(&v, 0, sizeof v);
    v.s = s;
    assert_int_equal(gcev_stats_set_gc_callback(s, on_gc, &v), GCEV_OK);
    gcev_trace_event ev;
    int dropped = 0;
    while (gcev_trace_next(t, &ev, &err) == GCEV_OK) {
        if (is_gc_end_of(&ev, 3)) {
            dropped++;
            continue;
        }
        gcev_stats_add_trace_event(s, &ev);
    }
    assert_int_equal(dropped, 1);
    v.finishing = 1;
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    size_t n = gcev_stats_gc_count(s), early = 0, lost_early = 0;
    assert_true(n > 20);
    assert_int_equal(v.n, n);
    for (size_t k = 0; k < v.n; k++) {
        if (!v.at_finish[k]) {
            early++;
            lost_early += v.recs[k].number == 3;
        }
    }
    printf("GC 3's end dropped: %zu of %zu GCs reported before the end of the trace\n", early, n);
    assert_int_equal(lost_early, 1);
    assert_true(early + 16 >= n); /* all but the last ones, which close at the end */
    const gcev_stats_gc *g3 = gcev_stats_gc_find(s, 3);
    assert_non_null(g3);
    assert_false(g3->flags & GCEV_STATS_GC_COMPLETE);
    free(v.recs);
    free(v.index);
    free(v.at_finish);
    gcev_stats_free(s);
    gcev_trace_close(t);
}

static void test_callback_arguments(void **state)
{
    (void)state;
    assert_int_equal(gcev_stats_set_gc_callback(NULL, on_gc, NULL), GCEV_E_INVALID_ARG);
    gcev_stats *s = NULL;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    assert_int_equal(gcev_stats_set_gc_callback(s, NULL, NULL), GCEV_OK);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    assert_int_equal(gcev_stats_set_gc_callback(s, on_gc, NULL), GCEV_E_INVALID_ARG);
    gcev_stats_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_callback_reports_each_gc_once_with_its_final_values),
        cmocka_unit_test(test_callback_lost_end_does_not_hold_back_later_gcs),
        cmocka_unit_test(test_callback_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
