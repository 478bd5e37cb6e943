/* SPDX-License-Identifier: MIT */
/*
 * gcev_stats_derive.c: gcev's own numbers where it corrects TraceEvent, on the synthetic traces
 * of support/stats_scenarios.c fed straight into a model.
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
#include "stats_scenarios.h"
#include "stats_sink.h"

/* ---- the synthetic traces of stats_scenarios.c: gcev's own numbers --------------------------
 * (test_stats_traceevent holds the compatibility mode to TraceEvent's reading of the same
 * events; here the corrected values, which the scenarios were designed to have.) */

static void scen_emit(void *ctx, const gcev_provider *provider, uint16_t id, uint16_t version, gcev_event *ev,
                      double ms, uint64_t tid)
{
    sink *k = ctx;
    k->prov = provider;
    emit(k, id, version, ev, ms, tid);
    k->prov = NULL;
}

static gcev_stats *scenario(const char *name, int compat)
{
    const stats_scenario *sc = stats_scenario_find(name);
    assert_non_null(sc);
    gcev_stats_options o = {.struct_size = sizeof o, .traceevent_compat = (uint32_t)compat};
    static sink k;
    memset(&k, 0, sizeof k);
    k.ps = 8;
    k.pid = SCEN_PID;
    assert_int_equal(gcev_stats_create(&o, &k.s), GCEV_OK);
    sc->run(scen_emit, &k);
    assert_int_equal(gcev_stats_finish(k.s), GCEV_OK);
    return k.s;
}

static void test_stats_scenarios_corrected(void **state)
{
    (void)state;
    /* a GCStart with no suspension: kept, without a pause */
    gcev_stats *s = scenario("no-suspension", 0);
    assert_int_equal(gcev_stats_gc_count(s), 3);
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_int_equal(g->number, 1);
    assert_false(g->present & (GCEV_STATS_GC_HAS_PAUSE | GCEV_STATS_GC_HAS_SUSPENSION));
    assert_true(near(g->duration_ms, 1.0));
    assert_true(near(gcev_stats_gc_at(s, 1)->pause_ms, 1.7));
    gcev_stats_free(s);
    s = scenario("no-suspension", 1);
    assert_int_equal(gcev_stats_gc_count(s), 2);
    gcev_stats_free(s);

    /* no SuspendEEEnd: no suspension time (TraceEvent: GC 1's end minus GC 2's begin, -19.9) */
    s = scenario("stale-suspend-end", 0);
    g = gcev_stats_gc_find(s, 2);
    assert_false(g->present & GCEV_STATS_GC_HAS_SUSPENSION);
    assert_true(near(g->pause_ms, 1.7));
    gcev_stats_free(s);
    s = scenario("stale-suspend-end", 1);
    assert_true(near(gcev_stats_gc_find(s, 2)->suspension_ms, 10.1 - 30.0));
    gcev_stats_free(s);

    /* a lost GCHeapStats: the GC keeps its own pause; the next suspension is not its */
    s = scenario("no-heap-stats", 0);
    g = gcev_stats_gc_find(s, 2);
    assert_false(g->flags & GCEV_STATS_GC_COMPLETE);
    assert_true(near(g->pause_ms, 1.7));
    assert_true(near(gcev_stats_gc_find(s, 3)->pause_ms, 1.7));
    assert_int_equal(gcev_stats_process_at(s, 0)->complete_count, 3);
    gcev_stats_free(s);
    s = scenario("no-heap-stats", 1);
    assert_true(near(gcev_stats_gc_find(s, 2)->pause_ms, 40.3 - 25.0));
    gcev_stats_free(s);

    /* a suspension in a BGC that starts no GC: added to the BGC's pause (1.0 + 0.4 + 0.8) */
    s = scenario("bgc-overwrite", 0);
    g = gcev_stats_gc_find(s, 2);
    assert_int_equal(g->type, GCEV_STATS_BACKGROUND);
    assert_true(near(g->pause_ms, 2.2));
    assert_int_equal(g->suspensions, 3);
    assert_true(near(g->bgc_final_pause_ms, 0.8));
    gcev_stats_free(s);
    s = scenario("bgc-overwrite", 1);
    assert_true(near(gcev_stats_gc_find(s, 2)->pause_ms, 40.4 - 30.0 + 0.8));
    gcev_stats_free(s);

    /* the Runtime provider's mark events: times per root kind, no bytes */
    s = scenario("public-marks", 0);
    g = gcev_stats_gc_find(s, 2);
    assert_int_equal(g->heaps, 1);
    const gcev_stats_heap *h = gcev_stats_gc_heap_at(s, g, 0);
    assert_int_equal(h->mark_present, 0xf);
    assert_int_equal(h->mark_promoted_present, 0);
    for (int kind = 0; kind < 4; kind++) {
        assert_true(near(h->mark_ms[kind], 0.1));
    }
    gcev_stats_free(s);
    s = scenario("public-marks", 1);
    g = gcev_stats_gc_find(s, 2);
    assert_false(g->present & GCEV_STATS_GC_HAS_MARKS);
    assert_false(gcev_stats_gc_heap_at(s, g, 0)->present & GCEV_STATS_HEAPREC_HAS_MARKS);
    gcev_stats_free(s);

    /* BGCRevisit during a foreground GC: the background GC's; the LOH wait */
    s = scenario("revisit-target", 0);
    g = gcev_stats_gc_find(s, 2);
    assert_true(g->present & GCEV_STATS_GC_HAS_BGC_REVISIT);
    assert_int_equal(g->bgc_revisit_pages[0][0], 40);
    assert_int_equal(g->bgc_revisit_objects[0][0], 900);
    assert_int_equal(g->bgc_revisit_pages[0][1], 7);
    assert_int_equal(g->bgc_revisit_objects[0][1], 120);
    assert_false(gcev_stats_gc_find(s, 3)->present & GCEV_STATS_GC_HAS_BGC_REVISIT);
    assert_int_equal(gcev_stats_gc_find(s, 3)->nested_in, 2);
    assert_int_equal(g->loh_waits, 1);
    const gcev_stats_loh_wait *w = gcev_stats_gc_loh_wait_at(s, g, 0);
    assert_int_equal(w->thread_id, SCEN_TID_USER2);
    assert_int_equal(w->reason, 11);
    assert_true(near(w->begin_ms, 34.0) && near(w->end_ms, 36.5));
    gcev_stats_free(s);

    /* the BGC's histories inside a foreground GC's restart: the BGC's (its thread logged them);
     * in compat mode the foreground GC's second record of heap 0, as TraceEvent lists it */
    for (int compat = 0; compat < 2; compat++) {
        s = scenario("bgc-history-in-restart", compat);
        const gcev_stats_gc *bgc = gcev_stats_gc_find(s, 2), *fg = gcev_stats_gc_find(s, 3);
        const gcev_stats_gc *next = gcev_stats_gc_find(s, 4);
        assert_true(gcev_stats_gc_quirks(s, fg) & STATS_Q_BGC_DETAIL_TO_FOREGROUND);
        assert_int_equal(fg->heaps, compat ? 2 : 1);
        assert_int_equal(fg->condemned_generation, compat ? 2 : 0);
        assert_int_equal(bgc->heaps, compat ? 0 : 1);
        assert_int_equal(!!(bgc->present & GCEV_STATS_GC_HAS_GLOBAL_HISTORY), !compat);
        if (!compat) {
            assert_int_equal(bgc->condemned_generation, 2);
            assert_true(gcev_stats_gc_heap_at(s, bgc, 0)->present & GCEV_STATS_HEAPREC_HAS_HISTORY);
        } else {
            /* in arrival order: the foreground GC's own gen0 history first */
            assert_true(gcev_stats_gc_heap_at(s, fg, 0)->condemn_reasons0 == 0);
            assert_true(gcev_stats_gc_heap_at(s, fg, 1)->condemn_reasons0 == 1u << 2);
        }
        /* the next GC's allocation: from the foreground GC's own history, the 200000 bytes of
         * its two allocation ticks, in both modes */
        assert_int_equal(next->allocated_since_last_gc, 200000);
        gcev_stats_free(s);
    }

    /* the trace ends inside GC 3: its values from the events there are */
    s = scenario("incomplete", 0);
    g = gcev_stats_gc_find(s, 3);
    const gcev_stats_gc *g2 = gcev_stats_gc_find(s, 2);
    assert_false(g->flags & GCEV_STATS_GC_COMPLETE);
    assert_true(g->present & GCEV_STATS_GC_HAS_SIZE_BEFORE);
    assert_true(g->present & GCEV_STATS_GC_HAS_ALLOCATED_SINCE);
    assert_int_equal(gcev_stats_gc_gen_at(s, g, 1)->size_before,
                     gcev_stats_gc_gen_at(s, g2, 1)->size_after); /* the history's, as written */
    assert_true(near(gcev_stats_gc_heap_at(s, g, 0)->mark_ms[0], 0.1));
    gcev_stats_free(s);

    /* GCStart V1 then V2: one GC each */
    s = scenario("gcstart-twice", 0);
    assert_int_equal(gcev_stats_gc_count(s), 3);
    assert_int_equal(gcev_stats_process_at(s, 0)->duplicate_starts, 3);
    assert_int_equal(gcev_stats_process_at(s, 0)->complete_count, 3);
    gcev_stats_free(s);

    /* the private provider only: sizes before from the previous GCHeapStats (GC 1's too) */
    s = scenario("private-only", 0);
    g = gcev_stats_gc_find(s, 2);
    g2 = gcev_stats_gc_find(s, 1);
    assert_int_equal(g->heap_count, 1);
    assert_int_equal(g->heaps, 1);
    assert_int_equal(gcev_stats_gc_heap_at(s, g, 0)->mark_present, 0xf);
    for (int gen = 1; gen < GCEV_STATS_GENS; gen++) {
        assert_true(gcev_stats_gc_gen_at(s, g, gen)->present & GCEV_STATS_HEAP_SIZE_BEFORE_ESTIMATED);
        assert_int_equal(gcev_stats_gc_gen_at(s, g, gen)->size_before,
                         gcev_stats_gc_gen_at(s, g2, gen)->size_after);
    }
    assert_int_equal(gcev_stats_gc_gen_at(s, g, 0)->size_before,
                     gcev_stats_gc_gen_at(s, g2, 0)->size_after > 200000
                         ? gcev_stats_gc_gen_at(s, g2, 0)->size_after
                         : 200000);
    assert_int_equal(gcev_stats_process_stats(s, gcev_stats_process_at(s, 0))->version_mismatch, 0);
    gcev_stats_free(s);

    /* gen0 of 0 bytes after the BGC (GCHeapStats) with 24000 bytes of free space (its history):
     * no ratio in gcev's own mode, TraceEvent's Infinity in the compatibility mode */
    const gcev_stats_metric *fp = gcev_stats_metric_find(GCEV_STATS_KIND_GEN_HEAP, "fragmentation_percent");
    gcev_stats_val val;
    for (int compat = 0; compat < 2; compat++) {
        s = scenario("frag-infinity", compat);
        g = gcev_stats_gc_find(s, 2);
        assert_int_equal(g->type, GCEV_STATS_BACKGROUND);
        assert_int_equal(gcev_stats_gc_gen_at(s, g, 0)->size_after, 0);
        assert_int_equal(gcev_stats_gc_gen_at(s, g, 0)->frag_after, 24000);
        assert_false(gcev_stats_gc_gen_at(s, g, 0)->present & GCEV_STATS_HEAP_HAS_FRAG_PERCENT);
        assert_int_equal(
            (gcev_stats_gc_gen_at(s, g, 0)->present & GCEV_STATS_HEAP_FRAG_PERCENT_INFINITE) != 0, compat);
        assert_int_equal(gcev_stats_value(gcev_stats_gc_gen_at(s, g, 0), fp, &val), compat);
        assert_true(!compat || (isinf(val.f) && val.f > 0));
        assert_true(gcev_stats_value(gcev_stats_gc_gen_at(s, g, 1), fp, &val) &&
                    isfinite(val.f)); /* the other gens: finite */
        gcev_stats_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_scenarios_corrected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
