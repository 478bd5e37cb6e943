/* SPDX-License-Identifier: MIT */
/*
 * gcev_stats_add.c: the entry points that take events (bad arguments and payloads, every event
 * version, dropped events noted directly),
 * on synthetic event sequences (stats_sink.h) fed as raw payloads or written into a trace.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>
#include <gcev/gcev_stats.h>
#include <gcev/gcev_writer.h>

#include "testutil.h"
#include "stats_sink.h"

/* Direct feeding: note_dropped flags what is open at that time. */
static void test_stats_note_dropped_direct(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    blocking_gc(&k, 10.0, 1, 0, 2.0);
    gc_start(&k, 20.0, TID_GC, 2, 0, 0, GCEV_STATS_BLOCKING);
    gcev_stats_note_dropped(s, 3, 21.0);
    gcev_stats_note_dropped(s, 0, 22.0); /* nothing lost: no effect */
    gcev_stats_note_dropped(NULL, 3, 22.0);
    gc_end(&k, 23.0, TID_GC, 2, 0);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    assert_int_equal(gcev_stats_get_summary(s)->dropped_events, 3);
    assert_int_equal(gcev_stats_gc_at(s, 0)->flags & GCEV_STATS_GC_INCOMPLETE, 0);
    assert_true(gcev_stats_gc_at(s, 1)->flags & GCEV_STATS_GC_INCOMPLETE);
    gcev_stats_free(s);
}

static void test_stats_bad_arguments_and_bad_payloads(void **state)
{
    (void)state;
    assert_int_equal(gcev_stats_create(NULL, NULL), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_stats_finish(NULL), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_stats_gc_count(NULL), 0);
    assert_null(gcev_stats_gc_at(NULL, 0));
    assert_null(gcev_stats_gc_find(NULL, 1));
    assert_null(gcev_stats_get_summary(NULL));
    assert_null(gcev_stats_generation(NULL, 0));
    assert_null(gcev_stats_segment_pairing(NULL));
    assert_null(gcev_stats_live_handle_at(NULL, 0));
    assert_int_equal(gcev_stats_family_count(NULL, GCEV_FAMILY_GC_START), 0);
    assert_int_equal(gcev_stats_read_trace(NULL, NULL, NULL, NULL, NULL), GCEV_E_INVALID_ARG);
    gcev_stats_free(NULL);
    assert_null(gcev_stats_gc_type_name(3));
    assert_string_equal(gcev_stats_gc_type_name(GCEV_STATS_FOREGROUND), "foreground");
    assert_string_equal(gcev_stats_gen_name(3), "loh");
    assert_null(gcev_stats_gen_name(5));

    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    assert_null(gcev_stats_generation(s, 3));
    uint8_t shortp[3] = {1, 0, 0}; /* GCStart V2 needs 26 bytes */
    gcev_stats_input in = {.struct_size = sizeof in,
                           .provider = &gcev_provider_runtime,
                           .event_id = 1,
                           .version = 2,
                           .pointer_size = 8,
                           .payload = shortp,
                           .payload_size = 3,
                           .ms = 1.0,
                           .thread_id = 1};
    assert_int_equal(gcev_stats_add(s, &in), GCEV_E_TRUNCATED);
    gcev_stats_input other = {.struct_size = sizeof other,
                              .event_id = 77,
                              .pointer_size = 8,
                              .ms = 9.0,
                              .thread_id = 1}; /* not a GC event */
    assert_int_equal(gcev_stats_add(s, &other), GCEV_OK);
    assert_int_equal(gcev_stats_add(s, NULL), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_stats_add_decoded(s, NULL, 0, 0), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    assert_int_equal(sum->decode_errors, 1);
    assert_int_equal(sum->events, 2);
    assert_int_equal(sum->gc_count, 0);
    assert_true(near(sum->duration_ms, 8.0));
    gcev_stats_free(s);
}

/* Events lost exactly at a GC's end time may have belonged to it: it is flagged. */
static void test_stats_drop_exactly_at_gc_end_flags_that_gc(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    blocking_gc(&k, 10.0, 1, 0, 2.0); /* #1 ends at 13.0, HeapStats at 13.2 */
    blocking_gc(&k, 20.0, 2, 0, 2.0); /* #2 ends at 23.0 */
    gcev_stats_note_dropped(s, 2, 23.0);
    blocking_gc(&k, 30.0, 3, 0, 2.0);
    gcev_stats_note_dropped(s, 1, 33.0 + 1e-9); /* just after #3's end, its HeapStats seen */
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    assert_false(gcev_stats_gc_find(s, 1)->flags & GCEV_STATS_GC_INCOMPLETE);
    assert_true(gcev_stats_gc_find(s, 2)->flags & GCEV_STATS_GC_INCOMPLETE);
    assert_false(gcev_stats_gc_find(s, 3)->flags & GCEV_STATS_GC_INCOMPLETE);
    assert_int_equal(gcev_stats_get_summary(s)->dropped_events, 3);
    gcev_stats_free(s);
}

/*
 * Every event version of the runtime, private and rundown providers, its fields zero (strings
 * empty, arrays empty), fed inside a blocking GC and a background GC, at both pointer sizes:
 * none is a decode error, each is counted, and the GCs still complete.
 */
static void test_stats_every_event_version_feeds_the_model_without_error(void **state)
{
    (void)state;
    size_t np = 0;
    const gcev_provider *const *ps = gcev_providers(&np);
    for (uint8_t psz = 4; psz <= 8; psz += 4) {
        sink k;
        gcev_stats *s = new_model(&k, psz);
        uint64_t fed = 0;
        for (int round = 0; round < 2; round++) {
            double t0 = 100.0 * (round + 1);
            suspend(&k, t0, TID_GC, R_SUSPEND_FOR_GC);
            suspend_end(&k, t0 + 0.1, TID_GC);
            gc_start(&k, t0 + 0.2, TID_GC, (uint32_t)round + 1, 2, 0,
                     round ? GCEV_STATS_BACKGROUND : GCEV_STATS_BLOCKING);
            if (round) {
                restart(&k, t0 + 0.3, TID_GC);
            }
            fed += 4 - (uint64_t)round;
            for (size_t p = 0; p < np; p++) {
                gcev_provider_info pi;
                assert_int_equal(gcev_provider_get_info(ps[p], &pi), GCEV_OK);
                for (size_t e = 0; e < pi.event_count; e++) {
                    gcev_event_info ei;
                    assert_int_equal(gcev_event_get_info(gcev_provider_event_at(ps[p], e), &ei), GCEV_OK);
                    gcev_event ev;
                    ev_clear(&ev);
                    ev.desc = gcev_provider_event_at(ps[p], e);
                    ev.pointer_size = psz;
                    uint8_t buf[2048];
                    size_t n = 0;
                    assert_int_equal(gcev_encode(&ev, buf, sizeof buf, &n, NULL), GCEV_OK);
                    gcev_stats_input in = {.struct_size = sizeof in,
                                           .provider = ps[p],
                                           .event_id = ei.id,
                                           .version = ei.version,
                                           .pointer_size = psz,
                                           .payload = buf,
                                           .payload_size = (uint32_t)n,
                                           .ms = t0 + 0.5,
                                           .thread_id = TID_GC,
                                           .process_id = 0};
                    if (gcev_stats_add(s, &in) != GCEV_OK) {
                        fail_msg("%s %s: not accepted", pi.name, ei.symbol);
                    }
                    fed++;
                }
            }
            gc_end(&k, t0 + 5.0, TID_GC, (uint32_t)round + 1, 2);
            heap_stats(&k, t0 + 5.1, TID_GC, 100, 10, 0);
            restart(&k, t0 + 5.2, TID_GC);
            fed += 3;
        }
        assert_int_equal(gcev_stats_finish(s), GCEV_OK);
        const gcev_stats_summary *sum = gcev_stats_get_summary(s);
        assert_int_equal(sum->decode_errors, 0);
        assert_true(sum->events >= fed);
        assert_true(gcev_stats_gc_count(s) >= 2);
        gcev_stats_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_note_dropped_direct),
        cmocka_unit_test(test_stats_bad_arguments_and_bad_payloads),
        cmocka_unit_test(test_stats_drop_exactly_at_gc_end_flags_that_gc),
        cmocka_unit_test(test_stats_every_event_version_feeds_the_model_without_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
