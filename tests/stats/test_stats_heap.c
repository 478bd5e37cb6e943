/* SPDX-License-Identifier: MIT */
/*
 * gcev_stats_heap.c: the per-GC detail events (mark times, heap histories, joins, pinning,
 * background GC phases and allocation waits, the records' limits),
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

/* A hostile history whose survivors dwarf its object space: the survival rate saturates as
 * .NET's (long) does (TraceEvent's SurvRate), where C's own conversion would be undefined. */
static void test_stats_hostile_survival_rate_saturates(void **state)
{
    (void)state;
    sink k;
    new_writer(&k, 8);
    suspend(&k, 1.0, TID_GC, R_SUSPEND_FOR_GC);
    gc_start(&k, 2.0, TID_GC, 1, 0, 0, GCEV_STATS_BLOCKING);
    /* one generation: SizeBefore [0] 1 byte, NonePinnedSurv [8] 2^62 bytes */
    uint8_t vals[10 * 8];
    memset(vals, 0, sizeof vals);
    vals[0] = 1;
    vals[8 * 8 + 7] = 0x40;
    per_heap_history(&k, 3.0, TID_GC, vals, sizeof vals, 1);
    gc_end(&k, 4.0, TID_GC, 1, 0);
    restart(&k, 5.0, TID_GC);
    gcev_stats *s = read_back(&k);
    gcev_writer_free(k.w);
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_non_null(g);
    assert_int_equal(g->heaps, 1);
    /* 2^62 * 100 / 1 is past INT64_MAX: INT64_MAX, truncated to the member's 32 bits */
    assert_int_equal(gcev_stats_gc_heap_at(s, g, 0)->gens[0].surv_rate, (uint32_t)INT64_MAX);
    gcev_stats_free(s);
}

/* Marks and promoted bytes without HeapStats; per-root-kind time = max over heaps. */
static void test_stats_mark_times_per_root_kind(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    gc_start(&k, 10.0, TID_GC, 1, 0, 0, GCEV_STATS_BLOCKING);
    gcev_event ev;
    const struct {
        double ms;
        uint32_t heap, type;
        uint64_t bytes;
    } marks[] = {
        {12.0, 0, 0, 100},
        {13.0, 0, 1, 10},
        {15.0, 1, 0, 200},
        {15.5, 1, 1, 20},
    };
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
        ev_clear(&ev);
        ev.u.gc_mark_with_type.heap_num = marks[i].heap;
        ev.u.gc_mark_with_type.type = marks[i].type;
        ev.u.gc_mark_with_type.bytes = marks[i].bytes;
        emit(&k, 202, 0, &ev, marks[i].ms, TID_GC);
    }
    gc_end(&k, 20.0, TID_GC, 1, 0);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_true(g->present & GCEV_STATS_GC_HAS_MARKS);
    assert_true(g->marks[0].present);
    assert_true(near(g->marks[0].ms, 5.0)); /* heap 1: 10 -> 15 */
    assert_int_equal(g->marks[0].bytes, 300);
    assert_true(near(g->marks[1].ms, 1.0)); /* heap 0: 12 -> 13 */
    assert_false(g->marks[2].present);
    /* promoted_bytes is GCHeapStats' (TraceEvent's PromotedMB): the marks' sum differs from it */
    assert_false(g->present & GCEV_STATS_GC_HAS_PROMOTED);
    gcev_stats_free(s);
}

static void private_mark(sink *k, uint16_t id, double ms, uint32_t heap)
{
    gcev_event ev;
    ev_clear(&ev);
    ev.u.private_prv_gc_mark_stack_roots.heap_num = heap; /* ids 7-10 share the layout */
    if (id == 8) {
        ev.u.private_prv_gc_mark_finalize_queue_roots.heap_num = heap;
    } else if (id == 9) {
        ev.u.private_prv_gc_mark_handles.heap_num = heap;
    } else if (id == 10) {
        ev.u.private_prv_gc_mark_cards.heap_num = heap;
    }
    k->prov = &gcev_provider_private;
    emit(k, id, 1, &ev, ms, TID_GC);
    k->prov = NULL;
}

/*
 * A trace with only the private provider's histories and marks (.NET Framework's
 * GCPrivateKeyword): NumHeaps and mechanisms from the private GlobalHeapHistory, mark times
 * from PrvGCMark*, and the private PerHeapHistory (no data) makes the histories unreadable
 * (TraceEvent's GCVersionInfoMismatch).
 */
static void test_stats_private_only_histories_and_marks(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    suspend(&k, 10.0, TID_GC, R_SUSPEND_FOR_GC);
    suspend_end(&k, 10.5, TID_GC);
    gc_start(&k, 11.0, TID_GC, 1, 1, 0, GCEV_STATS_BLOCKING);
    private_mark(&k, 7, 11.2, 0);  /* stack roots, heap 0 */
    private_mark(&k, 7, 11.3, 1);  /* stack roots, heap 1 */
    private_mark(&k, 8, 11.5, 0);  /* finalize queue */
    private_mark(&k, 9, 11.9, 0);  /* handles */
    private_mark(&k, 10, 12.0, 1); /* cards */
    private_mark(&k, 9, 12.1, 2);  /* heap 2 had no stack-roots event: not recorded */
    gcev_event ev;
    ev_clear(&ev);
    ev.u.private_gc_global_heap_history.final_youngest_desired = 5000;
    ev.u.private_gc_global_heap_history.num_heaps = 4;
    ev.u.private_gc_global_heap_history.condemned_generation = 1;
    ev.u.private_gc_global_heap_history.gen0_reduction_count = 2;
    ev.u.private_gc_global_heap_history.reason = 3;
    ev.u.private_gc_global_heap_history.global_mechanisms = 2;
    k.prov = &gcev_provider_private;
    emit(&k, 5, 1, &ev, 13.0, TID_GC);
    ev_clear(&ev);
    emit(&k, 4, 2, &ev, 13.1, TID_GC);
    k.prov = NULL;
    gc_end(&k, 14.0, TID_GC, 1, 1);
    heap_stats(&k, 14.2, TID_GC, 100, 10, 0);
    restart(&k, 15.0, TID_GC);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);

    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_true(g->present & GCEV_STATS_GC_HAS_HEAP_COUNT);
    assert_int_equal(g->heap_count, 4);
    assert_true(g->present & GCEV_STATS_GC_HAS_MECHANISMS);
    assert_int_equal(g->global_mechanisms, 2);
    assert_true(g->present & GCEV_STATS_GC_HAS_GLOBAL_HISTORY);
    assert_int_equal(g->final_youngest_desired, 5000);
    assert_int_equal(g->condemned_generation, 1);
    assert_int_equal(g->gen0_reduction_count, 2);
    assert_int_equal(g->global_reason, 3);
    assert_false(g->present & GCEV_STATS_GC_HAS_PAUSE_MODE);   /* V1 has none */
    assert_false(g->present & GCEV_STATS_GC_HAS_HEAP_HISTORY); /* the private one carries no data */

    assert_true(g->present & GCEV_STATS_GC_HAS_MARKS);
    assert_int_equal(g->heaps, 2);
    const gcev_stats_heap *h0 = gcev_stats_gc_heap_at(s, g, 0);
    const gcev_stats_heap *h1 = gcev_stats_gc_heap_at(s, g, 1);
    assert_null(gcev_stats_gc_heap_at(s, g, 2));
    assert_int_equal(h0->heap, 0);
    assert_int_equal(h1->heap, 1);
    assert_int_equal(h0->mark_present, 0x7);
    assert_int_equal(h0->mark_promoted_present, 0); /* the private events carry no bytes */
    assert_true(near(h0->mark_ms[0], 0.2));
    assert_true(near(h0->mark_ms[1], 0.3));
    assert_true(near(h0->mark_ms[2], 0.4));
    assert_int_equal(h1->mark_present, 0x9);
    assert_true(near(h1->mark_ms[0], 0.3));
    assert_true(near(h1->mark_ms[3], 0.7));
    assert_true(g->marks[0].present); /* the longest heap's */
    assert_true(near(g->marks[0].ms, 0.3));
    assert_true(near(g->marks[3].ms, 0.7));
    assert_int_equal(g->marks[0].bytes, 0);

    const gcev_stats_process *p = gcev_stats_process_at(s, 0);
    assert_true(gcev_stats_process_stats(s, p)->present & GCEV_STATS_GCSTATS_HAS_HEAP_COUNT);
    assert_int_equal(gcev_stats_process_stats(s, p)->heap_count, 4);
    assert_int_equal(gcev_stats_process_stats(s, p)->version_mismatch, 1);
    assert_int_equal(gcev_stats_process_stats(s, p)->has_detailed_gc_info, 0);
    assert_int_equal(gcev_stats_get_summary(s)->heap_count, 4);
    gcev_stats_free(s);
}

/* GCJoin of the runtime provider (id 203 V2), or with k->prov private its GCJoin (id 6 V1). */
static void join(sink *k, double ms, uint32_t heap, uint32_t time)
{
    gcev_event ev;
    ev_clear(&ev);
    if (k->prov == &gcev_provider_private) {
        ev.u.private_gc_join.heap = heap;
        ev.u.private_gc_join.join_time = time;
        emit(k, 6, 1, &ev, ms, TID_GC + heap);
        return;
    }
    ev.u.gc_join.heap = heap;
    ev.u.gc_join.join_time = time;
    emit(k, 203, 2, &ev, ms, TID_GC + heap);
}

static void join_waits_per_heap(int private_join)
{
    sink k;
    gcev_stats *s = new_model(&k, 8);
    suspend(&k, 10.0, TID_GC, R_SUSPEND_FOR_GC);
    suspend_end(&k, 10.1, TID_GC);
    gc_start(&k, 10.2, TID_GC, 1, 0, 0, GCEV_STATS_BLOCKING);
    k.prov = private_join ? &gcev_provider_private : NULL;
    join(&k, 11.5, 0, 0);
    join(&k, 11.6, 1, 0);
    join(&k, 12.0, 100, 1); /* restart */
    join(&k, 12.1, 0, 1);   /* heap 0 waited 0.6 */
    join(&k, 12.3, 1, 1);   /* heap 1 waited 0.7 */
    join(&k, 12.5, 0, 0);
    join(&k, 13.5, 0, 1); /* heap 0 waited 1.0 */
    join(&k, 13.6, 1, 1); /* an end without its start: not a wait */
    k.prov = NULL;
    gc_end(&k, 14.0, TID_GC, 1, 0);
    heap_stats(&k, 14.1, TID_GC, 100, 10, 0);
    restart(&k, 15.0, TID_GC);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_true(g->present & GCEV_STATS_GC_HAS_JOINS);
    assert_int_equal(g->joins, 8);
    assert_int_equal(g->join_restarts, 1);
    assert_int_equal(g->heaps, 2);
    const gcev_stats_heap *h0 = gcev_stats_gc_heap_at(s, g, 0);
    const gcev_stats_heap *h1 = gcev_stats_gc_heap_at(s, g, 1);
    assert_true(h0->present & GCEV_STATS_HEAPREC_HAS_JOINS);
    assert_int_equal(h0->joins, 2);
    assert_true(near(h0->join_ms, 1.6));
    assert_true(near(h0->join_max_ms, 1.0));
    assert_int_equal(h1->joins, 1);
    assert_true(near(h1->join_ms, 0.7));
    assert_true(near(h1->join_max_ms, 0.7));
    gcev_stats_free(s);
}

/* GCJoin (the runtime's or the private provider's, the same): each heap's thread waits
 * Start -> End; restarts (heap >= 100) are counted apart. */
static void test_stats_join_waits_per_heap(void **state)
{
    (void)state;
    for (int private_join = 0; private_join < 2; private_join++) {
        join_waits_per_heap(private_join);
    }
}

static void pin_plug(sink *k, double ms, uint64_t tid, uint64_t start, uint64_t end)
{
    gcev_event ev;
    ev_clear(&ev);
    ev.u.private_pin_plug_at_gc_time.plug_start = start;
    ev.u.private_pin_plug_at_gc_time.plug_end = end;
    k->prov = &gcev_provider_private;
    emit(k, 199, 0, &ev, ms, tid);
    k->prov = NULL;
}

/*
 * A GC that never completes (its GCHeapStats is lost) but logged pinned plugs: gcev reports
 * its plug sizes; TraceEvent computes them only in OnEnd, which such a GC never reaches, so
 * traceevent_compat leaves them absent (TotalPinnedPlugSize -1), as on real lossy captures.
 */
static void test_stats_incomplete_gc_pinned_plugs_absent_in_compat(void **state)
{
    (void)state;
    for (uint32_t compat = 0; compat < 2; compat++) {
        gcev_stats_options o = {.struct_size = sizeof o, .traceevent_compat = compat};
        sink k;
        memset(&k, 0, sizeof k);
        k.ps = 8;
        assert_int_equal(gcev_stats_create(&o, &k.s), GCEV_OK);
        suspend(&k, 0.5, TID_GC, R_SUSPEND_FOR_GC);
        suspend_end(&k, 0.6, TID_GC);
        gc_start(&k, 1.0, TID_GC, 7, 0, 0, GCEV_STATS_BLOCKING);
        pin_plug(&k, 1.2, TID_GC, 0x10000, 0x10400);
        pin_plug(&k, 1.3, TID_GC, 0x20000, 0x20100);
        gc_end(&k, 2.0, TID_GC, 7, 0);
        restart(&k, 3.0, TID_GC); /* no GCHeapStats: GC 7 never completes */
        gc_with_pause(&k, 10.0, 8, 1, 0, 2.0);
        assert_int_equal(gcev_stats_finish(k.s), GCEV_OK);
        const gcev_stats_gc *g7 = gcev_stats_gc_find(k.s, 7);
        assert_non_null(g7);
        assert_false(g7->flags & GCEV_STATS_GC_COMPLETE);
        if (compat) {
            assert_false(g7->present & GCEV_STATS_GC_HAS_PINNED_PLUGS);
        } else {
            assert_true(g7->present & GCEV_STATS_GC_HAS_PINNED_PLUGS);
            assert_int_equal(g7->pinned_plug_size, 0x400 + 0x100);
        }
        gcev_stats_free(k.s);
    }
}

static void alloc_wait(sink *k, int begin, double ms, uint64_t tid, uint32_t reason)
{
    gcev_event ev;
    ev_clear(&ev);
    if (begin) {
        ev.u.private_bgc_alloc_wait_begin.reason = reason;
    } else {
        ev.u.private_bgc_alloc_wait_end.reason = reason;
    }
    k->prov = &gcev_provider_private;
    emit(k, begin ? 23 : 24, 0, &ev, ms, tid);
    k->prov = NULL;
}

/* Threads waiting for a background GC to allocate large objects (BGCAllocWaitBegin/End). */
static void test_stats_loh_waits_of_a_bgc(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    suspend(&k, 100.0, TID_GC, R_SUSPEND_FOR_GC);
    suspend_end(&k, 100.2, TID_GC);
    gc_start(&k, 100.3, TID_GC, 5, 2, 0, GCEV_STATS_BACKGROUND);
    restart(&k, 101.0, TID_GC);
    alloc_wait(&k, 1, 102.0, 7, 11);
    alloc_wait(&k, 0, 104.0, 8, 10); /* its begin came before the BGC */
    alloc_wait(&k, 0, 105.0, 7, 11);
    alloc_wait(&k, 1, 106.0, 9, 3); /* not an LOH reason (9-11): ignored */
    suspend(&k, 120.0, TID_BGC, R_SUSPEND_FOR_GC_PREP);
    suspend_end(&k, 120.1, TID_BGC);
    restart(&k, 121.0, TID_BGC);
    gc_end(&k, 130.0, TID_BGC, 5, 2);
    heap_stats(&k, 130.1, TID_BGC, 500, 0, 0);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_true(g->present & GCEV_STATS_GC_HAS_LOH_WAITS);
    assert_int_equal(g->loh_waits, 2);
    const gcev_stats_loh_wait *w0 = gcev_stats_gc_loh_wait_at(s, g, 0);
    const gcev_stats_loh_wait *w1 = gcev_stats_gc_loh_wait_at(s, g, 1);
    assert_null(gcev_stats_gc_loh_wait_at(s, g, 2));
    assert_int_equal(w0->thread_id, 7);
    assert_int_equal(w0->reason, 11);
    assert_true(w0->has_begin && w0->has_end);
    assert_true(near(w0->begin_ms, 102.0));
    assert_true(near(w0->end_ms, 105.0));
    assert_int_equal(w1->thread_id, 8);
    assert_false(w1->has_begin);
    assert_true(w1->has_end);
    assert_true(near(w1->end_ms, 104.0));
    /* the BGC's final pause: its SuspendForGCPrep suspension */
    assert_true(g->present & GCEV_STATS_GC_HAS_BGC_FINAL_PAUSE);
    assert_true(near(g->bgc_final_pause_ms, 1.0));
    gcev_stats_free(s);
}

/* A private BGC event (ids 11-19 and 26 share an empty payload but for ClrInstanceID). */
static void bgc_phase_event(sink *k, uint16_t id, double ms)
{
    gcev_event ev;
    ev_clear(&ev);
    k->prov = &gcev_provider_private;
    emit(k, id, 0, &ev, ms, TID_BGC);
    k->prov = NULL;
}

/*
 * The private BGC events: bgc_phase_ms[] keeps the first time of each (a repeat does not
 * move it), bgc_phase the phase of the last phase-starting one; outside a background GC
 * they are ignored.
 */
static void test_stats_bgc_phase_times_are_the_first_of_each_private_event(void **state)
{
    (void)state;
    static const uint16_t ids[GCEV_STATS_BGC_EVENTS] = {11, 12, 13, 14, 15, 16, 17, 18, 19, 26};
    sink k;
    gcev_stats *s = new_model(&k, 8);
    bgc_phase_event(&k, 18, 50.0); /* no BGC yet */
    suspend(&k, 100.0, TID_GC, R_SUSPEND_FOR_GC);
    suspend_end(&k, 100.2, TID_GC);
    gc_start(&k, 100.3, TID_GC, 5, 2, 0, GCEV_STATS_BACKGROUND);
    restart(&k, 101.0, TID_GC);
    for (unsigned i = 0; i < GCEV_STATS_BGC_EVENTS; i++) {
        bgc_phase_event(&k, ids[i], 102.0 + i);
    }
    bgc_phase_event(&k, 19, 115.0); /* a second BGCSweepEnd, in the BGC */
    suspend(&k, 120.0, TID_BGC, R_SUSPEND_FOR_GC_PREP);
    suspend_end(&k, 120.1, TID_BGC);
    restart(&k, 121.0, TID_BGC);
    gc_end(&k, 130.0, TID_BGC, 5, 2);
    heap_stats(&k, 130.1, TID_BGC, 500, 0, 0);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    assert_int_equal(gcev_stats_gc_count(s), 1);
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_true(g->present & GCEV_STATS_GC_HAS_BGC_PHASE);
    assert_int_equal(g->bgc_phase_present, (1u << GCEV_STATS_BGC_EVENTS) - 1);
    for (unsigned i = 0; i < GCEV_STATS_BGC_EVENTS; i++) {
        assert_true(near(g->bgc_phase_ms[i], 102.0 + i));
    }
    assert_int_equal(g->bgc_phase, 3); /* BGC2ndConBegin: the second concurrent phase */
    gcev_stats_free(s);
}

/* Per-heap records past max_heap_records and pins past max_pins: not kept, the GC flagged
 * (GCEV_STATS_GC_HEAPS_DROPPED, GCEV_STATS_GC_PINS_DROPPED) and the summary's limit_hit set;
 * the counts that need no record stay whole. */
static void test_stats_heap_records_and_pins_past_their_limits_are_flagged(void **state)
{
    (void)state;
    sink k;
    memset(&k, 0, sizeof k);
    k.ps = 8;
    gcev_stats_options o = {.struct_size = sizeof o, .max_heap_records = 1, .max_pins = 1};
    assert_int_equal(gcev_stats_create(&o, &k.s), GCEV_OK);
    suspend(&k, 10.0, TID_GC, R_SUSPEND_FOR_GC);
    suspend_end(&k, 10.1, TID_GC);
    gc_start(&k, 10.2, TID_GC, 1, 0, 0, GCEV_STATS_BLOCKING);
    join(&k, 11.0, 0, 0);
    join(&k, 11.1, 1, 0); /* a second heap: no record left */
    join(&k, 11.5, 0, 1);
    join(&k, 11.6, 1, 1);
    for (uint64_t i = 0; i < 3; i++) {
        gcev_event ev;
        ev_clear(&ev);
        ev.u.pin_object_at_gc_time.object_id = 0x1000 + i * 0x100;
        ev.u.pin_object_at_gc_time.object_size = 24;
        emit(&k, 33, 0, &ev, 11.7 + 0.01 * (double)i, TID_GC);
    }
    gc_end(&k, 14.0, TID_GC, 1, 0);
    heap_stats(&k, 14.1, TID_GC, 100, 10, 0);
    restart(&k, 15.0, TID_GC);
    assert_int_equal(gcev_stats_finish(k.s), GCEV_OK);
    const gcev_stats_gc *g = gcev_stats_gc_at(k.s, 0);
    assert_int_equal(g->heaps, 1);
    assert_true(g->flags & GCEV_STATS_GC_HEAPS_DROPPED);
    assert_int_equal(g->joins, 4);
    const gcev_stats_heap *h0 = gcev_stats_gc_heap_at(k.s, g, 0);
    assert_int_equal(h0->heap, 0);
    assert_int_equal(h0->joins, 1);
    assert_null(gcev_stats_gc_heap_at(k.s, g, 1));
    assert_true(g->flags & GCEV_STATS_GC_PINS_DROPPED);
    assert_int_equal(g->pinned_events, 3);
    assert_int_equal(g->pinned_bytes, 72);
    assert_true(gcev_stats_get_summary(k.s)->limit_hit);
    gcev_stats_free(k.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_mark_times_per_root_kind),
        cmocka_unit_test(test_stats_private_only_histories_and_marks),
        cmocka_unit_test(test_stats_join_waits_per_heap),
        cmocka_unit_test(test_stats_heap_records_and_pins_past_their_limits_are_flagged),
        cmocka_unit_test(test_stats_bgc_phase_times_are_the_first_of_each_private_event),
        cmocka_unit_test(test_stats_incomplete_gc_pinned_plugs_absent_in_compat),
        cmocka_unit_test(test_stats_loh_waits_of_a_bgc),
        cmocka_unit_test(test_stats_hostile_survival_rate_saturates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
