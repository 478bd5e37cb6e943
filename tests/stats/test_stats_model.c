/* SPDX-License-Identifier: MIT */
/*
 * gcev_stats_model.c: the GC state machine (suspensions, pauses, background GCs and the GCs
 * nested in them, GCStart versions, HeapStats, AllocationTick),
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

#include "gcev_stats_internal.h" /* gcev_stats_gc_quirks, STATS_Q_* */
#include "testutil.h"
#include "stats_sink.h"

static void test_stats_blocking_gc_pause_is_suspend_to_restart(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    blocking_gc(&k, 10.0, 1, 0, 9.0);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    assert_int_equal(gcev_stats_gc_count(s), 1);
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_int_equal(g->number, 1);
    assert_int_equal(g->type, GCEV_STATS_BLOCKING);
    assert_true(near(g->start_ms, 11.0));
    assert_true(near(g->duration_ms, 9.0));
    assert_true(near(g->suspension_ms, 0.5));
    assert_true(near(g->pause_ms, 10.5)); /* 10.0 -> 20.5 */
    assert_true(near(g->suspend_begin_ms, 10.0));
    assert_int_equal(g->suspensions, 1);
    assert_true(g->present & GCEV_STATS_GC_HAS_HEAP_STATS);
    assert_int_equal(g->promoted_bytes, 50 + 10);
    assert_int_equal(gcev_stats_gc_gen_at(s, g, 0)->size_after, 100);
    assert_int_equal(g->pinned_objects, 1);
    assert_int_equal(g->finalization_promoted_count, 7);
    const gcev_stats_gen_summary *g0 = gcev_stats_generation(s, 0);
    assert_int_equal(g0->count, 1);
    assert_true(near(g0->pause_max_ms, 10.5));
    assert_ptr_equal(gcev_stats_gc_find(s, 1), g);
    assert_null(gcev_stats_gc_find(s, 2));
    gcev_stats_free(s);
}

/*
 * BGC #5 with nested foreground (ephemeral) GCs #6 gen1 and #7 gen0, a sampler suspension in
 * between, then the BGC's final suspension (no GCStart), as the runtime logs them: the user
 * thread (1) suspends for the GC (SuspendForGC) and starts the BGC, the BGC thread (2) does
 * the final phase under SuspendForGCPrep and logs GCEnd and GCHeapStats.
 */
static void test_stats_bgc_with_nested_gcs_accounted_separately(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    suspend(&k, 100.0, TID_GC, R_SUSPEND_FOR_GC);
    suspend_end(&k, 100.2, TID_GC);
    gc_start(&k, 100.3, TID_GC, 5, 2, 0, GCEV_STATS_BACKGROUND);
    restart(&k, 101.0, TID_GC);                       /* BGC initial pause: 1.0 */
    suspend(&k, 105.0, TID_SAMPLER, R_SUSPEND_OTHER); /* sampler: not a pause */
    suspend_end(&k, 105.1, TID_SAMPLER);
    restart(&k, 106.0, TID_SAMPLER);
    suspend(&k, 110.0, TID_GC, R_SUSPEND_FOR_GC);
    suspend_end(&k, 110.5, TID_GC);
    gc_start(&k, 111.0, TID_GC, 6, 1, 0, GCEV_STATS_FOREGROUND);
    gc_end(&k, 115.0, TID_GC, 6, 1);
    heap_stats(&k, 115.1, TID_GC, 600, 60, 0); /* belongs to #6 */
    restart(&k, 116.0, TID_GC);                /* #6 pause: 6.0 */
    suspend(&k, 117.0, TID_GC, R_SUSPEND_FOR_GC);
    gc_start(&k, 117.5, TID_GC, 7, 0, 0, GCEV_STATS_FOREGROUND);
    gc_end(&k, 119.0, TID_GC, 7, 0);
    heap_stats(&k, 119.1, TID_GC, 700, 70, 0);
    restart(&k, 119.5, TID_GC);                         /* #7 pause: 2.5 */
    suspend(&k, 120.0, TID_BGC, R_SUSPEND_FOR_GC_PREP); /* BGC final phase */
    suspend_end(&k, 120.1, TID_BGC);
    restart(&k, 121.0, TID_BGC); /* BGC pause += 1.0 */
    gc_end(&k, 130.0, TID_BGC, 5, 2);
    heap_stats(&k, 130.1, TID_BGC, 500, 0, 0); /* belongs to #5 */
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);

    assert_int_equal(gcev_stats_gc_count(s), 3);
    const gcev_stats_gc *bgc = gcev_stats_gc_find(s, 5);
    const gcev_stats_gc *eph = gcev_stats_gc_find(s, 6);
    const gcev_stats_gc *fgc = gcev_stats_gc_find(s, 7);
    assert_int_equal(bgc->type, GCEV_STATS_BACKGROUND);
    assert_false(bgc->present & GCEV_STATS_GC_HAS_NESTED_IN);
    assert_true(near(bgc->pause_ms, 2.0));
    assert_int_equal(bgc->suspensions, 2);
    assert_true(near(bgc->suspension_ms, 0.2 + 0.1));
    assert_true(near(bgc->duration_ms, 29.7));
    assert_int_equal(gcev_stats_gc_gen_at(s, bgc, 0)->size_after, 500);

    assert_int_equal(eph->type, GCEV_STATS_FOREGROUND);
    assert_true(eph->present & GCEV_STATS_GC_HAS_NESTED_IN);
    assert_int_equal(eph->nested_in, 5);
    assert_true(near(eph->pause_ms, 6.0));
    assert_int_equal(gcev_stats_gc_gen_at(s, eph, 0)->size_after, 600);

    assert_int_equal(fgc->type, GCEV_STATS_FOREGROUND);
    assert_int_equal(fgc->nested_in, 5);
    assert_true(near(fgc->pause_ms, 2.5));
    assert_false(fgc->present & GCEV_STATS_GC_HAS_SUSPENSION); /* no SuspendEEEnd seen */

    const gcev_stats_gen_summary *g2 = gcev_stats_generation(s, 2);
    assert_int_equal(g2->count, 1);
    assert_int_equal(g2->background, 1);
    assert_int_equal(g2->foreground, 0);
    assert_true(near(g2->pause_total_ms, 2.0));
    assert_int_equal(gcev_stats_generation(s, 1)->count, 1);
    assert_int_equal(gcev_stats_generation(s, 1)->foreground, 1);
    assert_int_equal(gcev_stats_generation(s, 0)->foreground, 1);
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    assert_int_equal(sum->other_suspensions, 1);
    assert_true(near(sum->other_suspended_ms, 1.0));
    assert_true(near(sum->pause_total_ms, 10.5));
    assert_true(near(sum->pause_max_ms, 6.0));
    assert_int_equal(sum->pause_max_gc, 6);
    gcev_stats_free(s);
}

/* The real-trace pattern: the sampler's suspension overlaps the GC's on another thread,
 * and a sampler RestartEE arrives with no SuspendEEBegin at all. */
static void test_stats_sampler_suspensions_are_never_gc_pauses(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    suspend(&k, 1.0, TID_SAMPLER, R_SUSPEND_OTHER);
    suspend_end(&k, 1.2, TID_SAMPLER);
    restart(&k, 2.0, TID_SAMPLER);
    suspend(&k, 10.0, TID_GC, R_SUSPEND_FOR_GC);
    restart(&k, 10.6, TID_SAMPLER);                  /* orphan sampler restart */
    suspend(&k, 10.7, TID_SAMPLER, R_SUSPEND_OTHER); /* waits for the GC */
    suspend_end(&k, 10.8, TID_GC);
    gc_start(&k, 11.0, TID_GC, 1, 0, 0, GCEV_STATS_BLOCKING);
    gc_end(&k, 15.0, TID_GC, 1, 0);
    restart(&k, 16.0, TID_GC);
    suspend_end(&k, 16.5, TID_SAMPLER);
    restart(&k, 18.0, TID_SAMPLER);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_true(near(g->pause_ms, 6.0));
    assert_true(near(g->suspension_ms, 0.8));
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    assert_int_equal(sum->other_suspensions, 2);
    assert_true(near(sum->other_suspended_ms, 1.0 + 7.3));
    assert_int_equal(sum->gc_count, 1);
    gcev_stats_free(s);
}

static void test_stats_missing_heap_stats_are_absent_not_zero(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    gc_start(&k, 1.0, TID_GC, 1, 0, 0, GCEV_STATS_BLOCKING); /* no suspension seen */
    gc_end(&k, 2.0, TID_GC, 1, 0);
    gc_start(&k, 3.0, TID_GC, 2, 1, 0, GCEV_STATS_BLOCKING); /* no GCEnd */
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_true(g->present & GCEV_STATS_GC_HAS_END);
    assert_false(g->present & (GCEV_STATS_GC_HAS_PROMOTED | GCEV_STATS_GC_HAS_PAUSE |
                               GCEV_STATS_GC_HAS_SUSPENSION | GCEV_STATS_GC_HAS_PINNED_OBJECTS |
                               GCEV_STATS_GC_HAS_FINALIZATION | GCEV_STATS_GC_HAS_ALLOCATED |
                               GCEV_STATS_GC_HAS_PINNED_EVENTS | GCEV_STATS_GC_HAS_HEAP_STATS));
    for (int i = 0; i < GCEV_STATS_GENS; i++) {
        assert_int_equal(gcev_stats_gc_gen_at(s, g, i)->present, 0);
    }
    assert_false(gcev_stats_gc_at(s, 1)->present & GCEV_STATS_GC_HAS_END);
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    assert_int_equal(sum->unfinished_gcs, 1);
    assert_false(sum->present & (GCEV_STATS_SUM_HAS_PAUSE | GCEV_STATS_SUM_HAS_ALLOCATION |
                                 GCEV_STATS_SUM_HAS_HEAP_COUNT | GCEV_STATS_SUM_HAS_SURVIVED));
    assert_true(sum->present & GCEV_STATS_SUM_HAS_DURATION);
    assert_int_equal(gcev_stats_generation(s, 0)->pause_count, 0);
    assert_true(near(gcev_stats_generation(s, 0)->pause_mean_ms, 0.0)); /* not NaN */
    gcev_stats_free(s);
}

/*
 * GC 1's GCEnd, GCHeapStats and RestartEEEnd are lost; the BGC thread then suspends for GC prep
 * and restarts. TraceEvent (TraceManagedProcess.cs GCRestartEEStop: DurationMSec == 0 takes it
 * for a .NET 2.0 concurrent GC, AddConcurrentPauseTime) gives that suspension to GC 1 as its
 * pause and BGC final pause; gcev's own mode keeps the pause from GC 1's SuspendEEBegin.
 */
static void test_stats_prep_restart_after_lost_gc_end(void **state)
{
    (void)state;
    for (uint32_t compat = 0; compat < 2; compat++) {
        gcev_stats_options o = {.struct_size = sizeof o, .traceevent_compat = compat};
        sink k;
        memset(&k, 0, sizeof k);
        k.ps = 8;
        assert_int_equal(gcev_stats_create(&o, &k.s), GCEV_OK);
        suspend(&k, 3.5, TID_GC, R_SUSPEND_FOR_GC);
        suspend_end(&k, 3.6, TID_GC);
        gc_start(&k, 3.7, TID_GC, 1, 0, 0, GCEV_STATS_BLOCKING);
        suspend(&k, 12.25, TID_BGC, R_SUSPEND_FOR_GC_PREP);
        suspend_end(&k, 12.3, TID_BGC);
        restart(&k, 12.5, TID_BGC);
        gc_end(&k, 14.4, TID_BGC, 2, 2);
        heap_stats(&k, 14.5, TID_BGC, 100, 50, 0);
        assert_int_equal(gcev_stats_finish(k.s), GCEV_OK);
        const gcev_stats_gc *g = gcev_stats_gc_find(k.s, 1);
        assert_non_null(g);
        assert_true(gcev_stats_gc_quirks(k.s, g) & STATS_Q_PREP_RESTART);
        if (compat) {
            assert_true(near(g->pause_ms, 12.5 - 12.25));
            assert_true(g->present & GCEV_STATS_GC_HAS_BGC_FINAL_PAUSE);
            assert_true(near(g->bgc_final_pause_ms, 12.5 - 12.25));
        } else {
            assert_true(near(g->pause_ms, 12.5 - 3.5));
            assert_false(g->present & GCEV_STATS_GC_HAS_BGC_FINAL_PAUSE);
        }
        gcev_stats_free(k.s);
    }
}

/*
 * A background GC closes at its GCEnd: a GC after it is neither nested in it nor
 * charged its suspensions, and detail events go to the GC they belong to.
 */
static void test_stats_bgc_end_closes_it_for_later_gcs(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    suspend(&k, 10.0, TID_BGC, R_SUSPEND_FOR_GC);
    gc_start(&k, 10.5, TID_BGC, 4, 2, 0, GCEV_STATS_BACKGROUND);
    restart(&k, 11.0, TID_BGC);
    blocking_gc(&k, 12.0, 5, 0, 1.0); /* nested: a foreground-era ephemeral GC */
    gc_end(&k, 20.0, TID_BGC, 4, 2);
    heap_stats(&k, 20.1, TID_BGC, 444, 0, 0);
    /* after the BGC: a GC-reason suspension with no GC is not the BGC's final phase */
    suspend(&k, 25.0, TID_BGC, R_SUSPEND_FOR_GC);
    restart(&k, 25.5, TID_BGC);
    blocking_gc(&k, 30.0, 6, 1, 1.0);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    const gcev_stats_gc *bgc = gcev_stats_gc_find(s, 4);
    const gcev_stats_gc *nested = gcev_stats_gc_find(s, 5);
    const gcev_stats_gc *after = gcev_stats_gc_find(s, 6);
    assert_true(nested->present & GCEV_STATS_GC_HAS_NESTED_IN);
    assert_int_equal(nested->nested_in, 4);
    assert_false(after->present & GCEV_STATS_GC_HAS_NESTED_IN);
    assert_int_equal(gcev_stats_gc_gen_at(s, bgc, 0)->size_after, 444);
    assert_int_equal(gcev_stats_gc_gen_at(s, after, 0)->size_after, 600);
    assert_true(near(bgc->pause_ms, 1.0));
    assert_int_equal(bgc->suspensions, 1);
    assert_true(near(bgc->duration_ms, 9.5));
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    assert_int_equal(sum->other_suspensions, 1);
    assert_true(near(sum->other_suspended_ms, 0.5));
    assert_int_equal(gcev_stats_generation(s, 2)->background, 1);
    assert_int_equal(gcev_stats_generation(s, 1)->foreground, 0);
    gcev_stats_free(s);
}

/* AllocationTick V2+: AllocationAmount64 is the amount (above 4 GiB too). */
static void test_stats_allocation_amount64_is_used_when_present(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    gcev_event ev;
    ev_clear(&ev);
    ev.u.gc_allocation_tick.allocation_amount = 0x100;
    ev.u.gc_allocation_tick.allocation_amount64 = UINT64_C(0x100000100);
    ev.u.gc_allocation_tick.type_name = (gcev_utf16){(const uint8_t *)"S\0", 2};
    emit(&k, 10, 2, &ev, 1.0, 5);
    ev_clear(&ev);
    ev.u.gc_allocation_tick.allocation_amount = 1000; /* V1: no AllocationAmount64 */
    emit(&k, 10, 1, &ev, 2.0, 5);
    blocking_gc(&k, 3.0, 1, 0, 1.0);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    assert_int_equal(sum->allocation_ticks, 2);
    assert_true(sum->allocated_bytes == UINT64_C(0x100000100) + 1000);
    assert_true(gcev_stats_gc_at(s, 0)->allocated_bytes == UINT64_C(0x100000100) + 1000);
    gcev_stats_free(s);
}

/* .NET Framework logs GCStart V1 then V2 for each GC: one GC, the second start counted. */
static void test_stats_framework_gcstart_v1_then_v2(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    suspend(&k, 10.0, TID_GC, R_SUSPEND_FOR_GC);
    suspend_end(&k, 10.1, TID_GC);
    gc_start_v(&k, 1, 10.2, TID_GC, 1, 1, 4, GCEV_STATS_BLOCKING);
    gc_start_v(&k, 2, 10.2, TID_GC, 1, 1, 4, GCEV_STATS_BLOCKING);
    gc_end(&k, 11.0, TID_GC, 1, 1);
    heap_stats(&k, 11.1, TID_GC, 100, 10, 0);
    restart(&k, 12.0, TID_GC);
    gc_with_pause(&k, 20.0, 2, 0, 0, 1.0); /* the next GC is a new one */
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    assert_int_equal(gcev_stats_gc_count(s), 2);
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_int_equal(g->number, 1);
    assert_int_equal(g->reason, 4);
    assert_true(near(g->pause_ms, 2.0));
    assert_true(g->flags & GCEV_STATS_GC_COMPLETE);
    const gcev_stats_process *p = gcev_stats_process_at(s, 0);
    assert_int_equal(p->duplicate_starts, 1);
    assert_int_equal(p->complete_count, 2);
    gcev_stats_free(s);
}

/*
 * A GCStart with no suspension in progress (the trace began inside it): gcev keeps the GC
 * without a pause; TraceEvent (traceevent_compat) drops it (TraceManagedProcess.cs, GCStart).
 */
static void test_stats_gc_start_without_suspension(void **state)
{
    (void)state;
    for (uint32_t compat = 0; compat < 2; compat++) {
        gcev_stats_options o = {.struct_size = sizeof o, .traceevent_compat = compat};
        sink k;
        memset(&k, 0, sizeof k);
        k.ps = 8;
        assert_int_equal(gcev_stats_create(&o, &k.s), GCEV_OK);
        gc_start(&k, 1.0, TID_GC, 7, 0, 0, GCEV_STATS_BLOCKING);
        gc_end(&k, 2.0, TID_GC, 7, 0);
        heap_stats(&k, 2.1, TID_GC, 700, 70, 0);
        restart(&k, 3.0, TID_GC);
        gc_with_pause(&k, 10.0, 8, 1, 0, 2.0);
        assert_int_equal(gcev_stats_finish(k.s), GCEV_OK);
        const gcev_stats_gc *g7 = gcev_stats_gc_find(k.s, 7);
        const gcev_stats_gc *g8 = gcev_stats_gc_find(k.s, 8);
        assert_non_null(g8);
        assert_true(near(g8->pause_ms, 2.0));
        if (compat) {
            assert_null(g7);
            assert_int_equal(gcev_stats_gc_count(k.s), 1);
        } else {
            assert_non_null(g7);
            assert_int_equal(gcev_stats_gc_count(k.s), 2);
            assert_false(g7->present & GCEV_STATS_GC_HAS_PAUSE);
            assert_false(g7->present & GCEV_STATS_GC_HAS_SUSPENSION);
            assert_true(near(g7->duration_ms, 1.0));
            assert_int_equal(gcev_stats_gc_gen_at(k.s, g7, 0)->size_after, 700);
        }
        gcev_stats_free(k.s);
    }
}

/* Another thread's SuspendEEEnd while the background GC's own suspension is open (the
 * sampler's, whose SuspendEEBegin preceded the trace) changes nothing of the BGC. */
static const gcev_stats_gc *bgc_with_final_phase(sink *k, int foreign_end)
{
    gcev_stats *s = new_model(k, 8);
    suspend(k, 10.0, TID_BGC, R_SUSPEND_FOR_GC_PREP);
    suspend_end(k, 10.2, TID_BGC);
    gc_start(k, 10.5, TID_BGC, 4, 2, 0, GCEV_STATS_BACKGROUND);
    restart(k, 11.0, TID_BGC);
    suspend(k, 20.0, TID_BGC, R_SUSPEND_FOR_GC_PREP); /* the BGC suspends again */
    if (foreign_end) {
        suspend_end(k, 20.05, TID_SAMPLER); /* not its end */
    }
    suspend_end(k, 20.1, TID_BGC);
    restart(k, 21.0, TID_BGC);
    gc_end(k, 30.0, TID_BGC, 4, 2);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    return gcev_stats_gc_find(s, 4);
}

static void test_stats_foreign_suspend_end_during_bgc_suspension_is_ignored(void **state)
{
    (void)state;
    sink a, b;
    const gcev_stats_gc *plain = bgc_with_final_phase(&a, 0);
    const gcev_stats_gc *with = bgc_with_final_phase(&b, 1);
    assert_true(plain->present & GCEV_STATS_GC_HAS_SUSPENSION);
    assert_true(plain->suspension_ms > 0.25); /* both of its suspensions */
    assert_true(near(with->suspension_ms, plain->suspension_ms));
    assert_true(near(with->pause_ms, plain->pause_ms));
    assert_int_equal(with->suspensions, plain->suspensions);
    assert_int_equal(with->present, plain->present);
    gcev_stats_free(a.s);
    gcev_stats_free(b.s);
}

/* An AllocationTick_V1 (no AllocationAmount64) of amount bytes of kind 0 small, 1 large, 2 POH. */
static void tick_v1(sink *k, double ms, uint32_t amount, uint32_t kind)
{
    gcev_event ev;
    ev_clear(&ev);
    ev.u.gc_allocation_tick.allocation_amount = amount;
    ev.u.gc_allocation_tick.allocation_kind = kind;
    emit(k, 10, 1, &ev, ms, 5);
}

/*
 * AllocationTick amounts per heap kind between two GCs. gcev takes them as the UInt32 they
 * are; traceevent_compat reads them as Int32 like TraceEvent's GetAllocAmount, and after one
 * negative amount clamps every amount to 90 KB..110 KB (small) or 90 KB..2 MB (large, POH).
 */
static void test_stats_allocation_ticks_per_kind_and_the_compat_clamp(void **state)
{
    (void)state;
    for (uint32_t compat = 0; compat < 2; compat++) {
        gcev_stats_options o = {.struct_size = sizeof o, .traceevent_compat = compat};
        sink k;
        memset(&k, 0, sizeof k);
        k.ps = 8;
        assert_int_equal(gcev_stats_create(&o, &k.s), GCEV_OK);
        blocking_gc(&k, 10.0, 1, 0, 1.0);
        tick_v1(&k, 100.0, 100000, 0);
        tick_v1(&k, 101.0, 0x80000001u, 0); /* negative as an Int32 */
        tick_v1(&k, 102.0, 50000, 0);
        tick_v1(&k, 103.0, 3000000, 1);
        tick_v1(&k, 104.0, 100, 7); /* any other kind: POH */
        blocking_gc(&k, 200.0, 2, 0, 1.0);
        assert_int_equal(gcev_stats_finish(k.s), GCEV_OK);
        const gcev_stats_gc *g = gcev_stats_gc_find(k.s, 2);
        assert_non_null(g);
        assert_true(g->present & GCEV_STATS_GC_HAS_ALLOC_TICKS);
        if (compat) {
            assert_int_equal(g->alloc_tick_bytes[0], 100000 + 2 * 90 * 1024);
            assert_int_equal(g->alloc_tick_bytes[1], 2 * 1024 * 1024);
            assert_int_equal(g->alloc_tick_bytes[2], 90 * 1024);
        } else {
            assert_int_equal(g->alloc_tick_bytes[0], 100000 + UINT64_C(0x80000001) + 50000);
            assert_int_equal(g->alloc_tick_bytes[1], 3000000);
            assert_int_equal(g->alloc_tick_bytes[2], 100);
        }
        assert_int_equal(gcev_stats_get_summary(k.s)->allocation_ticks, 5);
        gcev_stats_free(k.s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_blocking_gc_pause_is_suspend_to_restart),
        cmocka_unit_test(test_stats_bgc_with_nested_gcs_accounted_separately),
        cmocka_unit_test(test_stats_sampler_suspensions_are_never_gc_pauses),
        cmocka_unit_test(test_stats_missing_heap_stats_are_absent_not_zero),
        cmocka_unit_test(test_stats_prep_restart_after_lost_gc_end),
        cmocka_unit_test(test_stats_bgc_end_closes_it_for_later_gcs),
        cmocka_unit_test(test_stats_allocation_amount64_is_used_when_present),
        cmocka_unit_test(test_stats_framework_gcstart_v1_then_v2),
        cmocka_unit_test(test_stats_allocation_ticks_per_kind_and_the_compat_clamp),
        cmocka_unit_test(test_stats_gc_start_without_suspension),
        cmocka_unit_test(test_stats_foreign_suspend_end_during_bgc_suspension_is_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
