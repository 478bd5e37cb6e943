/* SPDX-License-Identifier: MIT */
/*
 * gcev stats text (tools/gcev/stats_out_text.c) on models fed here, and the model's sustained
 * allocation rate it prints (issue 21 item 5): what a person reading the numbers needs named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev.h>
#include <gcev/gcev_stats.h>

#include "stats_out.h"

/* One runtime event (fields of ev set by the caller) of process pid at ms. */
static void feed(gcev_stats *s, uint16_t id, uint16_t version, gcev_event *ev, double ms, uint32_t pid)
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
                           .process_id = pid};
    assert_int_equal(gcev_stats_add(s, &in), GCEV_OK);
}

/* AllocationTick of `bytes` at ms: without per-heap histories it is the GC-observed allocation. */
static void tick(gcev_stats *s, double ms, uint64_t bytes, uint32_t pid)
{
    static const uint8_t name[] = {'T', 0, 0, 0};
    gcev_event ev;
    memset(&ev, 0, sizeof ev);
    ev.u.gc_allocation_tick.allocation_amount = (uint32_t)bytes;
    ev.u.gc_allocation_tick.allocation_amount64 = bytes;
    ev.u.gc_allocation_tick.type_name = (gcev_utf16){name, 2};
    feed(s, 10, 4, &ev, ms, pid);
}

/* A complete blocking GC: suspension at t, 0.1 ms pause. */
static void gc(gcev_stats *s, double t, uint32_t number, uint32_t gen, uint32_t reason, uint32_t pid)
{
    gcev_event ev;
    memset(&ev, 0, sizeof ev);
    ev.u.gc_suspend_ee_begin.reason = 1;
    ev.u.gc_suspend_ee_begin.count = number;
    feed(s, 9, 1, &ev, t, pid);
    memset(&ev, 0, sizeof ev);
    feed(s, 8, 1, &ev, t + 0.01, pid);
    memset(&ev, 0, sizeof ev);
    ev.u.gc_start.count = number;
    ev.u.gc_start.depth = gen;
    ev.u.gc_start.reason = reason;
    feed(s, 1, 2, &ev, t + 0.02, pid);
    memset(&ev, 0, sizeof ev);
    ev.u.gc_end.count = number;
    ev.u.gc_end.depth = gen;
    feed(s, 2, 1, &ev, t + 0.08, pid);
    memset(&ev, 0, sizeof ev);
    ev.u.gc_heap_stats.generation_size0 = 1000000;
    feed(s, 4, 2, &ev, t + 0.09, pid);
    memset(&ev, 0, sizeof ev);
    feed(s, 3, 1, &ev, t + 0.1, pid);
}

/*
 * Process 100: GCs 10 ms apart with 1 MB allocated before each (100 MB/s), then two induced GCs
 * 0.1 ms apart with 2 MB between them (TraceEvent: ~20,000 MB/s). Process 200, when wanted: its
 * own GC 1 and 2 (the numbers again), the second InducedAggressive (reason 17).
 */
static gcev_stats *model(int compat, int two_processes)
{
    gcev_stats_options o;
    memset(&o, 0, sizeof o);
    o.traceevent_compat = compat ? 1 : 0;
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(&o, &s), GCEV_OK);
    double t = 10.0;
    for (uint32_t n = 1; n <= 4; n++, t += 10.0) {
        tick(s, t - 5.0, 1000000, 100);
        if (two_processes && n <= 2) {
            gc(s, t - 2.0, n, 0, n == 2 ? 17 : 0, 200);
        }
        gc(s, t, n, 0, 0, 100);
    }
    tick(s, t - 9.95, 2000000, 100); /* 0.1 ms after GC 4's restart */
    gc(s, t - 9.85, 5, 2, 10, 100);  /* InducedCompacting */
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    return s;
}

/* The text of model s, NUL-terminated (malloc'ed). */
static char *text_of(const gcev_stats *s)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    stats_report r;
    memset(&r, 0, sizeof r);
    r.path = "t.nettrace";
    r.s = s;
    stats_print_text(f, &r);
    long n = ftell(f);
    assert_true(n > 0);
    char *out = malloc((size_t)n + 1);
    assert_non_null(out);
    rewind(f);
    assert_int_equal(fread(out, 1, (size_t)n, f), (size_t)n);
    out[n] = 0;
    fclose(f);
    /* every line within 100 columns */
    for (const char *p = out, *e; *p; p = e + 1) {
        e = strchr(p, '\n');
        assert_non_null(e);
        if (e - p > 100) {
            fprintf(stderr, "long line: %.*s\n", (int)(e - p), p);
        }
        assert_true(e - p <= 100);
    }
    return out;
}

/* The sustained rate spans at least 10 ms: the 0.1 ms burst joins the interval before it,
 * while TraceEvent's max takes it alone. Both modes compute it; TraceEvent's stays as it was. */
static void test_stats_sustained_rate_spans_the_window(void **state)
{
    (void)state;
    for (int compat = 0; compat < 2; compat++) {
        gcev_stats *s = model(compat, 0);
        const gcev_stats_process *p = gcev_stats_process_find(s, 100);
        assert_non_null(p);
        assert_true(gcev_stats_process_stats(s, p)->alloc_rate_max > 10000.0); /* ~2 MB / ~0.1 ms */
        assert_true(gcev_stats_process_stats(s, p)->present & GCEV_STATS_GCSTATS_HAS_SUSTAINED_RATE);
        /* the best run ending with GC 5: GC 4's ~9.9 ms + GC 5's ~0.05 ms < 10, so GCs 3..5: 4 MB over
         * ~19.95 ms; a plain interval: 1 MB over ~9.9 ms */
        double r = gcev_stats_process_stats(s, p)->alloc_rate_max_sustained;
        assert_true(r > 190.0 && r < 210.0);
        assert_true(gcev_stats_process_gen_stats(s, p, 2)->present & GCEV_STATS_GCSTATS_HAS_SUSTAINED_RATE);
        assert_true(gcev_stats_process_gen_stats(s, p, 0)->alloc_rate_max_sustained < r);
        assert_false(gcev_stats_process_gen_stats(s, p, 1)->present & GCEV_STATS_GCSTATS_HAS_SUSTAINED_RATE);
        assert_int_equal(gcev_stats_get_options(s)->traceevent_compat, compat);
        gcev_stats_free(s);
    }
    assert_null(gcev_stats_get_options(NULL));
}

/* The window needs that much time: a process whose GCs span less has no value. */
static void test_stats_sustained_rate_absent_under_the_window(void **state)
{
    (void)state;
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    gc(s, 1.0, 1, 0, 0, 7);
    tick(s, 2.0, 1000000, 7);
    gc(s, 3.0, 2, 0, 0, 7);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    const gcev_stats_process *p = gcev_stats_process_find(s, 7);
    assert_true(gcev_stats_process_stats(s, p)->present & GCEV_STATS_GCSTATS_HAS_MEANS);
    assert_false(gcev_stats_process_stats(s, p)->present & GCEV_STATS_GCSTATS_HAS_SUSTAINED_RATE);
    assert_true(gcev_stats_process_stats(s, p)->alloc_rate_max_sustained == 0.0);
    gcev_stats_free(s);
    gcev_stats_free(NULL);
}

/* Each allocation figure is named for what it is; the rate says its window; every reason whole;
 * Frag% and the labels defined; the mode said. */
static void test_stats_text_names_its_numbers(void **state)
{
    (void)state;
    gcev_stats *s = model(0, 0);
    char *t = text_of(s);
    assert_non_null(strstr(t, "\n  Allocated (AllocationTick sum) 6.000 MB in 5 events"));
    assert_non_null(strstr(t, "\n  Allocated (GC-observed) "));
    assert_non_null(strstr(t, "\n  Max alloc rate    "));
    assert_non_null(strstr(t, "MB/s (GC-observed, over at least 10 ms between GCs)"));
    assert_null(strstr(t, "MaxAllocRateMBSec"));
    assert_non_null(strstr(t, " InducedCompacting "));
    assert_non_null(strstr(t, "Frag%: its free space"));
    assert_non_null(strstr(t, "Label (PerfView's): the generation, N blocking"));
    assert_null(strstr(t, "MODE:"));
    assert_null(strstr(t, "PID")); /* one process: no column */
    free(t);
    gcev_stats_free(s);

    s = model(1, 0);
    t = text_of(s);
    assert_non_null(strstr(t, "\nMODE: --compat traceevent: TraceEvent 4.0's numbers"));
    assert_non_null(strstr(t, "MB/s (TraceEvent's MaxAllocRateMBSec"));
    free(t);
    gcev_stats_free(s);
}

/* Two processes number their GCs from 1: the table says whose each row is. */
static void test_stats_text_pid_column_for_several_processes(void **state)
{
    (void)state;
    gcev_stats *s = model(0, 1);
    assert_int_equal(gcev_stats_process_count(s), 2);
    char *t = text_of(s);
    assert_non_null(strstr(t, "\nPID    GC# Gen Type   Reason              Start ms Pause ms"));
    assert_non_null(strstr(t, "\n100      1   0 blk    AllocSmall "));
    assert_non_null(strstr(t, "\n200      1   0 blk    AllocSmall "));
    assert_non_null(strstr(t, "\n200      2   0 blk    InducedAggressive "));
    assert_non_null(strstr(t, "PID: the process (GC numbers are per process)."));
    free(t);
    gcev_stats_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_sustained_rate_spans_the_window),
        cmocka_unit_test(test_stats_sustained_rate_absent_under_the_window),
        cmocka_unit_test(test_stats_text_names_its_numbers),
        cmocka_unit_test(test_stats_text_pid_column_for_several_processes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
