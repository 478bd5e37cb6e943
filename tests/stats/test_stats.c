/* SPDX-License-Identifier: MIT */
/*
 * The GC analysis model (gcev_stats.h) on synthetic event sequences: each
 * tricky case real traces show (BGC with nested GCs, sampler
 * suspensions, dropped events, missing HeapStats, 32-bit pointers) built from
 * typed structs, encoded with gcev_encode and fed as raw payloads or written
 * into a trace with gcev_writer.
 */
#define _POSIX_C_SOURCE 200809L /* popen */
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

#include "etl_builder.h"
#include "gcev_stats_internal.h" /* gcev_stats_decode_condemned */
#include "testutil.h"
#include "stats_scenarios.h"

enum { ETL_T0 = 1000, ETL_FREQ = 10000000 };
enum { TID_GC = 1, TID_BGC = 2, TID_SAMPLER = 99 };
enum { R_SUSPEND_OTHER = 0, R_SUSPEND_FOR_GC = 1, R_SUSPEND_FOR_GC_PREP = 6 };

/* ---- building events ------------------------------------------------------ */

/* Where encoded events go: straight into a model, into a trace writer, or into an ETL file. */
typedef struct sink {
    gcev_stats *s;
    gcev_writer *w;
    etlb *etl;
    uint8_t ps;
    const gcev_provider *prov; /* of the next events; NULL: the runtime provider */
    uint32_t pid;              /* process of the next events (model and ETL sinks) */
    uint32_t meta[2][256][8];  /* writer meta id per (provider, event id % 256, version) */
    uint32_t seq_skip;         /* added to the next written event's sequence number */
    uint32_t seq[256];         /* last sequence per thread (writer) */
} sink;

static void emit(sink *k, uint16_t id, uint16_t ver, gcev_event *ev, double ms, uint64_t tid)
{
    const gcev_provider *prov = k->prov ? k->prov : &gcev_provider_runtime;
    gcev_status st;
    ev->desc = gcev_event_desc_resolve(prov, id, ver, &st);
    assert_non_null(ev->desc);
    ev->pointer_size = k->ps;
    uint8_t buf[2048];
    size_t n = 0;
    gcev_error err = {0};
    assert_int_equal(gcev_encode(ev, buf, sizeof buf, &n, &err), GCEV_OK);
    if (k->s) {
        gcev_stats_input in = {.struct_size = sizeof in,
                               .provider = prov,
                               .event_id = id,
                               .version = ver,
                               .pointer_size = k->ps,
                               .payload = buf,
                               .payload_size = (uint32_t)n,
                               .ms = ms,
                               .thread_id = tid,
                               .process_id = k->pid};
        assert_int_equal(gcev_stats_add(k->s, &in), GCEV_OK);
        return;
    }
    gcev_provider_info info;
    assert_int_equal(gcev_provider_get_info(prov, &info), GCEV_OK);
    if (k->etl) {
        /* ticks of 0.1 us after the log file header's (ETL_T0, ETL_FREQ below) */
        etlb_event e = {.header_type = 0x13,
                        .pid = k->pid,
                        .tid = (uint32_t)tid,
                        .ts = ETL_T0 + (int64_t)(ms * 1e4 + 0.5),
                        .provider = info.guid,
                        .id = id,
                        .version = (uint8_t)ver,
                        .level = 4,
                        .payload = buf,
                        .payload_size = n};
        etlb_event_record(k->etl, &e);
        return;
    }
    uint32_t *meta = &k->meta[prov != &gcev_provider_runtime][id % 256][ver % 8];
    if (!*meta) {
        gcev_writer_meta m = {info.name, id, (uint8_t)ver, 0, 4, 1, "", NULL, 0};
        assert_int_equal(gcev_writer_define(k->w, &m, meta), GCEV_OK);
    }
    /* ticks of 1 us (clock_frequency 1e6 below) */
    k->seq[tid % 256] += 1 + k->seq_skip;
    k->seq_skip = 0;
    gcev_writer_event e = {
        *meta, tid, tid, k->seq[tid % 256], 0, (int64_t)(ms * 1000.0 + 0.5), buf, (uint32_t)n, NULL, 0, {0}};
    assert_int_equal(gcev_writer_write(k->w, &e), GCEV_OK);
}

static void ev_clear(gcev_event *ev)
{
    memset(ev, 0, sizeof *ev);
}

static void suspend(sink *k, double ms, uint64_t tid, uint32_t reason)
{
    gcev_event ev;
    ev_clear(&ev);
    ev.u.gc_suspend_ee_begin.reason = reason;
    ev.u.gc_suspend_ee_begin.count = reason == R_SUSPEND_OTHER ? UINT32_MAX : 1;
    emit(k, 9, 1, &ev, ms, tid);
}

static void suspend_end(sink *k, double ms, uint64_t tid)
{
    gcev_event ev;
    ev_clear(&ev);
    emit(k, 8, 1, &ev, ms, tid);
}

static void restart(sink *k, double ms, uint64_t tid)
{
    gcev_event ev;
    ev_clear(&ev);
    emit(k, 7, 1, &ev, ms - 0.1, tid);
    ev_clear(&ev);
    emit(k, 3, 1, &ev, ms, tid);
}

static void gc_start_v(sink *k, uint16_t version, double ms, uint64_t tid, uint32_t n, uint32_t gen,
                       uint32_t reason, uint32_t type)
{
    gcev_event ev;
    ev_clear(&ev);
    ev.u.gc_start.count = n;
    ev.u.gc_start.depth = gen;
    ev.u.gc_start.reason = reason;
    ev.u.gc_start.type = type;
    emit(k, 1, version, &ev, ms, tid);
}

static void gc_start(sink *k, double ms, uint64_t tid, uint32_t n, uint32_t gen, uint32_t reason,
                     uint32_t type)
{
    gc_start_v(k, 2, ms, tid, n, gen, reason, type);
}

static void gc_end(sink *k, double ms, uint64_t tid, uint32_t n, uint32_t gen)
{
    gcev_event ev;
    ev_clear(&ev);
    ev.u.gc_end.count = n;
    ev.u.gc_end.depth = gen;
    emit(k, 2, 1, &ev, ms, tid);
}

static void heap_stats(sink *k, double ms, uint64_t tid, uint64_t gen0_size, uint64_t promoted0,
                       uint32_t pinned)
{
    gcev_event ev;
    ev_clear(&ev);
    gcev_gc_heap_stats *h = &ev.u.gc_heap_stats;
    h->generation_size0 = gen0_size;
    h->total_promoted_size0 = promoted0;
    h->generation_size1 = 1000;
    h->total_promoted_size1 = 10;
    h->generation_size2 = 2000;
    h->generation_size3 = 3000;
    h->pinned_object_count = pinned;
    h->finalization_promoted_count = 7;
    emit(k, 4, 1, &ev, ms, tid);
}

/* A blocking GC with its suspension: suspend at t, start t+1, end t+1+dur, restart +0.5. */
static void blocking_gc(sink *k, double t, uint32_t n, uint32_t gen, double dur)
{
    suspend(k, t, TID_GC, R_SUSPEND_FOR_GC);
    suspend_end(k, t + 0.5, TID_GC);
    gc_start(k, t + 1, TID_GC, n, gen, 0, GCEV_STATS_BLOCKING);
    gc_end(k, t + 1 + dur, TID_GC, n, gen);
    heap_stats(k, t + 1.2 + dur, TID_GC, 100 * n, 50 * n, 1);
    restart(k, t + 1.5 + dur, TID_GC);
}

static gcev_stats *new_model(sink *k, uint8_t ps)
{
    memset(k, 0, sizeof *k);
    k->ps = ps;
    assert_int_equal(gcev_stats_create(NULL, &k->s), GCEV_OK);
    return k->s;
}

static int near(double a, double b)
{
    return a - b < 1e-6 && b - a < 1e-6;
}

/* ---- tests ------------------------------------------------------------------ */

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

static void test_stats_appdomain_survived_after_last_full_blocking_gc(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    gcev_event ev;
    blocking_gc(&k, 10.0, 1, 2, 2.0);
    for (uint64_t ad = 1; ad <= 2; ad++) {
        ev_clear(&ev);
        ev.u.app_domain_mem_survived.app_domain_id = ad;
        ev.u.app_domain_mem_survived.survived = 1000 * ad;
        ev.u.app_domain_mem_survived.process_survived = 3000;
        emit(&k, 84, 0, &ev, 14.0, TID_GC);
    }
    blocking_gc(&k, 20.0, 2, 0, 1.0); /* gen0: its survived figures are not whole-heap */
    ev_clear(&ev);
    ev.u.app_domain_mem_survived.app_domain_id = 1;
    ev.u.app_domain_mem_survived.survived = 1;
    ev.u.app_domain_mem_survived.process_survived = 1;
    emit(&k, 84, 0, &ev, 23.0, TID_GC);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    assert_true(sum->present & GCEV_STATS_SUM_HAS_SURVIVED);
    assert_int_equal(sum->survived_gc, 1);
    assert_int_equal(sum->process_survived, 3000);
    assert_int_equal(gcev_stats_appdomain_count(s), 2);
    assert_int_equal(gcev_stats_appdomain_at(s, 1)->app_domain_id, 2);
    assert_int_equal(gcev_stats_appdomain_at(s, 1)->survived, 2000);
    assert_null(gcev_stats_appdomain_at(s, 2));
    gcev_stats_free(s);
}

/* SetGCHandle (id 30), or with k->prov private PrvSetGCHandle (id 194). */
static void set_handle(sink *k, double ms, uint64_t id, uint32_t kind)
{
    gcev_event ev;
    ev_clear(&ev);
    if (k->prov == &gcev_provider_private) {
        ev.u.private_prv_set_gc_handle.handle_id = id;
        ev.u.private_prv_set_gc_handle.object_id = id + 1;
        ev.u.private_prv_set_gc_handle.kind = kind;
        emit(k, 194, 0, &ev, ms, TID_GC);
        return;
    }
    ev.u.set_gc_handle.handle_id = id;
    ev.u.set_gc_handle.object_id = id + 1;
    ev.u.set_gc_handle.kind = kind;
    emit(k, 30, 0, &ev, ms, TID_GC);
}

/* DestroyGCHandle (id 31), or with k->prov private PrvDestroyGCHandle (id 195). */
static void destroy_handle(sink *k, double ms, uint64_t id)
{
    gcev_event ev;
    ev_clear(&ev);
    if (k->prov == &gcev_provider_private) {
        ev.u.private_prv_destroy_gc_handle.handle_id = id;
        emit(k, 195, 0, &ev, ms, TID_GC);
        return;
    }
    ev.u.destroy_gc_handle.handle_id = id;
    emit(k, 31, 0, &ev, ms, TID_GC);
}

/* Many pairs through the hash table (backward-shift deletion), then the limit; the runtime's
 * handle events or the private provider's (the same). */
static void handle_pairing_and_limit(int private_handles)
{
    sink k;
    memset(&k, 0, sizeof k);
    k.ps = 8;
    k.prov = private_handles ? &gcev_provider_private : NULL;
    gcev_stats_options o = {.struct_size = sizeof o, .max_handles = 600};
    assert_int_equal(gcev_stats_create(&o, &k.s), GCEV_OK);
    for (uint64_t i = 0; i < 1000; i++) {
        set_handle(&k, (double)i, 0x10000 + i * 8, 2);
        if (i % 2) {
            destroy_handle(&k, (double)i + 0.5, 0x10000 + (i - 1) * 8);
        }
    }
    destroy_handle(&k, 2000.0, 0xdead); /* never created */
    assert_int_equal(gcev_stats_finish(k.s), GCEV_OK);
    const gcev_stats_pairing *p = gcev_stats_handle_pairing(k.s);
    assert_int_equal(p->created, 1000);
    assert_int_equal(p->freed, 500);
    assert_int_equal(p->unmatched_frees, 1);
    assert_int_equal(p->live, 500);
    assert_int_equal(p->over_limit, 0);
    for (size_t i = 0; i < p->live; i++) {
        const gcev_stats_handle *h = gcev_stats_live_handle_at(k.s, i);
        assert_int_equal(h->handle_id, 0x10000 + (2 * i + 1) * 8); /* odd ones, in time order */
        assert_int_equal(h->object_id, h->handle_id + 1);
        assert_int_equal(h->kind, 2);
    }
    assert_null(gcev_stats_live_handle_at(k.s, p->live));
    assert_false(gcev_stats_get_summary(k.s)->limit_hit);
    gcev_stats_free(k.s);

    gcev_stats_options tiny = {.struct_size = sizeof tiny, .max_handles = 2};
    assert_int_equal(gcev_stats_create(&tiny, &k.s), GCEV_OK);
    set_handle(&k, 1, 1, 0);
    set_handle(&k, 2, 2, 0);
    set_handle(&k, 3, 3, 0);
    assert_int_equal(gcev_stats_finish(k.s), GCEV_OK);
    assert_int_equal(gcev_stats_handle_pairing(k.s)->over_limit, 1);
    assert_int_equal(gcev_stats_handle_pairing(k.s)->live, 2);
    assert_true(gcev_stats_get_summary(k.s)->limit_hit);
    gcev_stats_free(k.s);
}

/* One handle event of either provider on thread tid: op 's' Set (object obj), 'd' Destroy. */
static void handle_ev(sink *k, int prv, char op, double ms, uint64_t tid, uint64_t id, uint64_t obj)
{
    gcev_event ev;
    ev_clear(&ev);
    k->prov = prv ? &gcev_provider_private : NULL;
    if (op == 's' && prv) {
        ev.u.private_prv_set_gc_handle.handle_id = id;
        ev.u.private_prv_set_gc_handle.object_id = obj;
        ev.u.private_prv_set_gc_handle.kind = 3;
        emit(k, 194, 0, &ev, ms, tid);
    } else if (op == 's') {
        ev.u.set_gc_handle.handle_id = id;
        ev.u.set_gc_handle.object_id = obj;
        ev.u.set_gc_handle.kind = 3;
        emit(k, 30, 0, &ev, ms, tid);
    } else if (prv) {
        ev.u.private_prv_destroy_gc_handle.handle_id = id;
        emit(k, 195, 0, &ev, ms, tid);
    } else {
        ev.u.destroy_gc_handle.handle_id = id;
        emit(k, 31, 0, &ev, ms, tid);
    }
    k->prov = NULL;
}

/* Issue 28: the public and the private report of one handle operation (the runtime fires
 * both, one after the other on the same thread, same fields) count once, in either order;
 * a Set of a live handle is a reassignment, not a creation. */
static void test_stats_handle_twins_count_once(void **state)
{
    (void)state;
    sink k;
    memset(&k, 0, sizeof k);
    k.ps = 8;
    assert_int_equal(gcev_stats_create(NULL, &k.s), GCEV_OK);
    /* thread 7: three creations, public first; thread 8 interleaves its own */
    for (uint64_t i = 0; i < 3; i++) {
        handle_ev(&k, 0, 's', 1.0 + i, 7, 0x100 + i * 8, 0x9000 + i);
        handle_ev(&k, 0, 's', 1.0 + i, 8, 0x200 + i * 8, 0xa000 + i);
        handle_ev(&k, 1, 's', 1.0 + i, 7, 0x100 + i * 8, 0x9000 + i);
        handle_ev(&k, 1, 's', 1.0 + i, 8, 0x200 + i * 8, 0xa000 + i);
    }
    /* equal timestamps may come out private first */
    handle_ev(&k, 1, 'd', 5.0, 7, 0x100, 0);
    handle_ev(&k, 0, 'd', 5.0, 7, 0x100, 0);
    handle_ev(&k, 0, 'd', 6.0, 8, 0x200, 0);
    handle_ev(&k, 1, 'd', 6.0, 8, 0x200, 0);
    /* the runtime stores a new object into a live handle: a reassignment (both providers) */
    handle_ev(&k, 0, 's', 7.0, 7, 0x108, 0x9999);
    handle_ev(&k, 1, 's', 7.0, 7, 0x108, 0x9999);
    /* a private report that differs is an operation of its own, not a second report */
    handle_ev(&k, 0, 's', 8.0, 8, 0x208, 0xb000);
    handle_ev(&k, 1, 's', 8.0, 8, 0x208, 0xb001);
    /* private only (the public one dropped): counted once */
    handle_ev(&k, 1, 'd', 9.0, 8, 0x210, 0);
    assert_int_equal(gcev_stats_finish(k.s), GCEV_OK);
    const gcev_stats_pairing *p = gcev_stats_handle_pairing(k.s);
    assert_int_equal(p->created, 6);
    assert_int_equal(p->freed, 3);
    assert_int_equal(p->unmatched_frees, 0);
    assert_int_equal(p->unmatched_after_loss, 0);
    assert_int_equal(p->live, 3);
    assert_int_equal(p->reassigned, 3);
    assert_int_equal(p->merged_events, 9);
    const gcev_stats_handle *h = gcev_stats_live_handle_at(k.s, 0);
    assert_int_equal(h->handle_id, 0x108); /* created at 2.0, then reassigned */
    assert_int_equal(h->object_id, 0x9999);
    assert_true(h->created_ms == 2.0);
    assert_int_equal(gcev_stats_live_handle_at(k.s, 1)->object_id, 0xb001);
    gcev_stats_free(k.s);
}

/* A free with no creation is a handle made before the trace began, unless the trace reported
 * a loss before it; a loss reported late (its time before frees already read) counts too.
 * A segment reported again while live (the private provider's enabling re-reports them) is
 * not a second creation. */
static void test_stats_unmatched_frees_and_losses(void **state)
{
    (void)state;
    sink k;
    memset(&k, 0, sizeof k);
    k.ps = 8;
    assert_int_equal(gcev_stats_create(NULL, &k.s), GCEV_OK);
    handle_ev(&k, 0, 'd', 10.0, 7, 0x100, 0);
    handle_ev(&k, 1, 'd', 10.0, 7, 0x100, 0);
    handle_ev(&k, 0, 'd', 30.0, 7, 0x108, 0);
    handle_ev(&k, 0, 'd', 40.0, 7, 0x110, 0);
    gcev_stats_note_dropped(k.s, 5, 35.0); /* a gap found late: before the free at 40 */
    handle_ev(&k, 0, 'd', 50.0, 7, 0x118, 0);
    gcev_stats_note_dropped(k.s, 1, 60.0);
    gcev_event ev;
    for (int i = 0; i < 2; i++) {
        ev_clear(&ev);
        ev.u.gc_create_segment.address = 0x7000;
        ev.u.gc_create_segment.size = 4096;
        emit(&k, 5, 1, &ev, 70.0 + i, TID_GC);
    }
    ev_clear(&ev);
    ev.u.gc_free_segment.address = 0x7000;
    emit(&k, 6, 1, &ev, 80.0, TID_GC);
    emit(&k, 6, 1, &ev, 81.0, TID_GC);
    assert_int_equal(gcev_stats_finish(k.s), GCEV_OK);
    const gcev_stats_pairing *p = gcev_stats_handle_pairing(k.s);
    assert_int_equal(p->created, 0);
    assert_int_equal(p->unmatched_frees, 4);
    assert_int_equal(p->unmatched_after_loss, 2);
    assert_int_equal(p->merged_events, 1);
    const gcev_stats_pairing *sp = gcev_stats_segment_pairing(k.s);
    assert_int_equal(sp->created, 1);
    assert_int_equal(sp->reassigned, 1);
    assert_int_equal(sp->freed, 1);
    assert_int_equal(sp->unmatched_frees, 1);
    assert_int_equal(sp->unmatched_after_loss, 1);
    assert_int_equal(sp->live, 0);
    gcev_stats_free(k.s);
}

static void test_stats_handle_pairing_and_limit(void **state)
{
    (void)state;
    for (int private_handles = 0; private_handles < 2; private_handles++) {
        handle_pairing_and_limit(private_handles);
    }
}

/* ---- through a trace file -------------------------------------------------- */

static gcev_stats *read_back(sink *k)
{
    const uint8_t *data;
    size_t n;
    assert_int_equal(gcev_writer_finish(k->w, &data, &n), GCEV_OK);
    gcev_trace_options opts = {.struct_size = sizeof opts, .order = GCEV_TRACE_ORDER_TIME};
    gcev_trace *t;
    assert_int_equal(gcev_trace_open_memory(data, n, &opts, &t, NULL), GCEV_OK);
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    gcev_error err = {0};
    assert_int_equal(gcev_stats_read_trace(s, t, NULL, NULL, &err), GCEV_OK);
    gcev_trace_close(t);
    return s;
}

static void new_writer(sink *k, uint8_t ps)
{
    memset(k, 0, sizeof *k);
    k->ps = ps;
    gcev_writer_options o = {4, 1, ps, 1234, 2, 1000000, 0};
    assert_int_equal(gcev_writer_create(&o, &k->w), GCEV_OK);
}

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/* 32-bit process: pointer-sized fields (handle ids, PerHeapHistory sizes) are 4 bytes. */
static void test_stats_pointer_size_4_trace(void **state)
{
    (void)state;
    sink k;
    new_writer(&k, 4);
    gcev_event ev;
    ev_clear(&ev);
    ev.u.gc_create_segment.address = 0x02000000;
    ev.u.gc_create_segment.size = 0x01000000;
    ev.u.gc_create_segment.type = 1;
    emit(&k, 5, 1, &ev, 0.5, TID_GC);
    suspend(&k, 1.0, TID_GC, R_SUSPEND_FOR_GC);
    gc_start(&k, 2.0, TID_GC, 1, 0, 4, GCEV_STATS_BLOCKING);
    /* PerHeapHistory_V3, 4 generations of 10 pointer-size (4-byte) values:
     * SizeBefore [0], SizeAfter [3], FreeListAfter [4] */
    uint8_t vals[4 * 10 * 4];
    memset(vals, 0, sizeof vals);
    for (uint32_t gen = 0; gen < 4; gen++) {
        put_le32(&vals[(gen * 10 + 0) * 4], 1000u * (gen + 1));
        put_le32(&vals[(gen * 10 + 3) * 4], 500u * (gen + 1));
        put_le32(&vals[(gen * 10 + 4) * 4], 7);
    }
    ev_clear(&ev);
    gcev_gc_per_heap_history *ph = &ev.u.gc_per_heap_history;
    ph->count = 4;
    ph->values.data = vals;
    ph->values.size = sizeof vals;
    ph->values.count = 4;
    emit(&k, 204, 3, &ev, 3.0, TID_GC);
    set_handle(&k, 3.5, 0x8000f0f0, 3);
    set_handle(&k, 3.6, 0x8000f0f8, 1);
    destroy_handle(&k, 3.7, 0x8000f0f0);
    gc_end(&k, 4.0, TID_GC, 1, 0);
    restart(&k, 5.0, TID_GC);
    gcev_stats *s = read_back(&k);
    gcev_writer_free(k.w);
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_non_null(g);
    assert_int_equal(g->reason, 4);
    assert_true(near(g->pause_ms, 4.0));
    assert_int_equal(g->heap_histories, 1);
    assert_int_equal(gcev_stats_gc_gen_at(s, g, 1)->size_before, 2000);
    /* no GCHeapStats: sizes after from the history, only for the generations a gen0 GC rewrites */
    assert_int_equal(gcev_stats_gc_gen_at(s, g, 1)->size_after, 1000);
    assert_true(gcev_stats_gc_gen_at(s, g, 1)->present & GCEV_STATS_HEAP_HAS_SIZE_AFTER);
    assert_false(gcev_stats_gc_gen_at(s, g, 3)->present & GCEV_STATS_HEAP_HAS_SIZE_AFTER);
    assert_int_equal(gcev_stats_gc_gen_at(s, g, 0)->frag_after, 7);
    assert_true(gcev_stats_gc_gen_at(s, g, 3)->present & GCEV_STATS_HEAP_HAS_FRAG_BEFORE);
    assert_int_equal(gcev_stats_gc_gen_at(s, g, 4)->present, 0); /* only 4 generations in this payload */
    const gcev_stats_pairing *hp = gcev_stats_handle_pairing(s);
    assert_int_equal(hp->freed, 1);
    assert_int_equal(hp->live, 1);
    assert_int_equal(gcev_stats_live_handle_at(s, 0)->handle_id, 0x8000f0f8);
    assert_int_equal(gcev_stats_segment_pairing(s)->live, 1);
    assert_int_equal(gcev_stats_live_segment_at(s, 0)->address, 0x02000000);
    assert_int_equal(gcev_stats_live_segment_at(s, 0)->size, 0x01000000);
    gcev_stats_free(s);
}

/* A sequence gap inside GC #2: that GC is flagged, #1 (ended before) is not. */
static void test_stats_dropped_events_flag_open_gcs(void **state)
{
    (void)state;
    sink k;
    new_writer(&k, 8);
    blocking_gc(&k, 10.0, 1, 0, 2.0);
    suspend(&k, 20.0, TID_GC, R_SUSPEND_FOR_GC);
    gc_start(&k, 21.0, TID_GC, 2, 1, 0, GCEV_STATS_BLOCKING);
    k.seq_skip = 5; /* five events of thread 1 lost here */
    gc_end(&k, 25.0, TID_GC, 2, 1);
    restart(&k, 26.0, TID_GC);
    gcev_stats *s = read_back(&k);
    gcev_writer_free(k.w);
    assert_int_equal(gcev_stats_get_summary(s)->dropped_events, 5);
    assert_int_equal(gcev_stats_gc_count(s), 2);
    assert_false(gcev_stats_gc_find(s, 1)->flags & GCEV_STATS_GC_INCOMPLETE);
    assert_true(gcev_stats_gc_find(s, 2)->flags & GCEV_STATS_GC_INCOMPLETE);
    gcev_stats_free(s);
}

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

static void test_stats_rates_and_allocation(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    gcev_event ev;
    for (int i = 0; i < 4; i++) {
        ev_clear(&ev);
        ev.u.gc_allocation_tick.allocation_amount = 100000;
        ev.u.gc_allocation_tick.allocation_amount64 = 100000;
        ev.u.gc_allocation_tick.type_name = (gcev_utf16){(const uint8_t *)"S\0", 2};
        emit(&k, 10, 2, &ev, 100.0 * i, 5);
        if (i == 1) {
            blocking_gc(&k, 150.0, 1, 0, 5.0); /* two ticks before it */
        }
    }
    blocking_gc(&k, 998.0, 2, 0, 0.5); /* two more */
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK); /* idempotent */
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    assert_true(near(sum->duration_ms, 1000.0));
    assert_true(near(sum->gcs_per_sec, 2.0));
    assert_int_equal(sum->allocation_ticks, 4);
    assert_true(near(sum->alloc_mb_per_sec, 0.4));
    assert_true(near(sum->pause_percent, (6.5 + 2.0) / 10.0)); /* 8.5 ms of 1000 */
    assert_int_equal(gcev_stats_gc_at(s, 0)->allocated_bytes, 200000);
    assert_int_equal(gcev_stats_gc_at(s, 1)->allocated_bytes, 200000);
    assert_true(gcev_stats_gc_at(s, 1)->present & GCEV_STATS_GC_HAS_ALLOCATED);
    gcev_stats_input in = {
        .struct_size = sizeof in, .event_id = 1, .pointer_size = 8, .ms = 5.0, .thread_id = 1};
    assert_int_equal(gcev_stats_add(s, &in), GCEV_E_INVALID_ARG); /* after finish */
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

/* ---- gcev's own metrics on known answers ---------------------------------------- */

/* A complete blocking GC whose pause (SuspendEEBegin -> RestartEEEnd) is exactly `pause` ms. */
static void gc_with_pause(sink *k, double t, uint32_t n, uint32_t gen, uint32_t reason, double pause)
{
    suspend(k, t, TID_GC, R_SUSPEND_FOR_GC);
    suspend_end(k, t + 0.1, TID_GC);
    gc_start(k, t + 0.2, TID_GC, n, gen, reason, GCEV_STATS_BLOCKING);
    gc_end(k, t + pause - 0.3, TID_GC, n, gen);
    heap_stats(k, t + pause - 0.2, TID_GC, 100 * n, 10 * n, 0);
    restart(k, t + pause, TID_GC);
}

/*
 * Nearest-rank percentiles (the smallest pause with at least p% of the pauses at or below it),
 * per process, per generation and per type, and the ten longest pauses (ties in start order),
 * through a written trace.
 */
static void test_stats_pause_percentiles_and_longest(void **state)
{
    (void)state;
    static const double pause[13] = {5, 3, 12, 1, 8, 10, 2, 7, 11, 4, 9, 6, 12};
    sink k;
    new_writer(&k, 8);
    for (uint32_t i = 0; i < 13; i++) {
        uint32_t gen = i == 12 ? 2 : i % 2;
        uint32_t reason = i == 1 ? 1 : i == 3 ? 7 : 0; /* GC 2 Induced, GC 4 InducedNotForced */
        gc_with_pause(&k, 100.0 * (i + 1), i + 1, gen, reason, pause[i]);
    }
    gcev_stats *s = read_back(&k);
    gcev_writer_free(k.w);

    assert_int_equal(gcev_stats_process_count(s), 1);
    const gcev_stats_process *p = gcev_stats_process_at(s, 0);
    assert_int_equal(p->process_id, 1234);
    assert_ptr_equal(gcev_stats_process_find(s, 1234), p);
    assert_null(gcev_stats_process_find(s, 1235));
    assert_int_equal(p->gc_count, 13);
    assert_int_equal(p->complete_count, 13);
    /* sorted: 1 2 3 4 5 6 7 8 9 10 11 12 12 */
    assert_int_equal(p->pauses.count, 13);
    assert_true(near(p->pauses.total_ms, 90.0));
    assert_true(near(p->pauses.mean_ms, 90.0 / 13));
    assert_true(near(p->pauses.p50_ms, 7.0));  /* rank ceil(6.5) = 7 */
    assert_true(near(p->pauses.p90_ms, 12.0)); /* rank ceil(11.7) = 12 */
    assert_true(near(p->pauses.p99_ms, 12.0)); /* rank 13 */
    assert_true(near(p->pauses.max_ms, 12.0));
    /* gen0 (GCs 1 3 5 7 9 11): 2 5 8 9 11 12 */
    const gcev_stats_pauses *g0 = &p->pauses_by_gen[0];
    assert_int_equal(g0->count, 6);
    assert_true(near(g0->p50_ms, 8.0)); /* rank 3 */
    assert_true(near(g0->p90_ms, 12.0));
    assert_true(near(g0->mean_ms, 47.0 / 6));
    /* gen1 (GCs 2 4 6 8 10 12): 1 3 4 6 7 10 */
    const gcev_stats_pauses *g1 = &p->pauses_by_gen[1];
    assert_int_equal(g1->count, 6);
    assert_true(near(g1->p50_ms, 4.0));
    assert_true(near(g1->p90_ms, 10.0));
    assert_true(near(g1->max_ms, 10.0));
    assert_int_equal(p->pauses_by_gen[2].count, 1);
    assert_true(near(p->pauses_by_gen[2].p50_ms, 12.0));
    assert_int_equal(p->pauses_by_type[GCEV_STATS_BLOCKING].count, 13);
    assert_int_equal(p->pauses_by_type[GCEV_STATS_BACKGROUND].count, 0);
    assert_int_equal(p->pauses_by_type[GCEV_STATS_FOREGROUND].count, 0);

    static const uint32_t longest[10] = {3, 13, 9, 6, 11, 5, 8, 12, 1, 10};
    assert_int_equal(p->longest, 10);
    for (size_t i = 0; i < 10; i++) {
        const gcev_stats_gc *g = gcev_stats_process_longest_at(s, p, i);
        assert_non_null(g);
        assert_int_equal(g->number, longest[i]);
        assert_true(near(g->pause_ms, pause[longest[i] - 1]));
    }
    assert_null(gcev_stats_process_longest_at(s, p, 10));
    for (size_t j = 0; j < 13; j++) {
        assert_int_equal(gcev_stats_process_gc_at(s, p, j)->number, j + 1);
    }
    assert_null(gcev_stats_process_gc_at(s, p, 13));

    /* TraceEvent's GCStats of the process */
    assert_int_equal(gcev_stats_process_stats(s, p)->count, 13);
    assert_int_equal(gcev_stats_process_stats(s, p)->induced, 2);
    assert_true(near(gcev_stats_process_stats(s, p)->pause_total_ms, 90.0));
    assert_true(near(gcev_stats_process_stats(s, p)->pause_max_ms, 12.0));
    assert_true(near(gcev_stats_process_stats(s, p)->pause_mean_ms, 90.0 / 13));
    assert_true(near(gcev_stats_process_stats(s, p)->suspend_max_ms, 0.1));
    assert_int_equal(gcev_stats_process_gen_stats(s, p, 0)->count, 6);
    assert_int_equal(gcev_stats_process_gen_stats(s, p, 1)->count, 6);
    assert_int_equal(gcev_stats_process_gen_stats(s, p, 1)->induced, 2);
    assert_int_equal(gcev_stats_process_gen_stats(s, p, 2)->count, 1);
    /* promoted: HeapStats gen0 10 * n + gen1 10 per GC */
    assert_int_equal(gcev_stats_process_stats(s, p)->promoted_total, 10 * (13 * 14 / 2) + 10 * 13);
    char label[8];
    assert_int_equal(gcev_stats_gc_label(gcev_stats_gc_find(s, 2), label, sizeof label), 3);
    assert_string_equal(label, "1NI");
    gcev_stats_gc_label(gcev_stats_gc_find(s, 4), label, sizeof label);
    assert_string_equal(label, "1Ni");
    gcev_stats_gc_label(gcev_stats_gc_find(s, 13), label, sizeof label);
    assert_string_equal(label, "2N");
    gcev_stats_free(s);
}

/* One process's GC events, interleaved with another's (below). */
static void proc_gc(sink *k, uint32_t pid, double t0, double t1, double t2, uint32_t n, uint32_t gen)
{
    k->pid = pid;
    if (t0 >= 0) {
        suspend(k, t0, TID_GC, R_SUSPEND_FOR_GC);
        suspend_end(k, t0 + 0.1 * pid / 100, TID_GC); /* 0.1 for 100, 0.2 for 200 */
        gc_start(k, t0 + 0.5, TID_GC, n, gen, 0, GCEV_STATS_BLOCKING);
    }
    if (t1 >= 0) {
        gc_end(k, t1, TID_GC, n, gen);
        heap_stats(k, t1 + 0.1, TID_GC, 1000 * pid + n, pid, 0);
    }
    if (t2 >= 0) {
        restart(k, t2, TID_GC);
    }
}

/* Two processes with the same thread ids and GC numbers, their GCs overlapping. */
static void two_processes(sink *k)
{
    proc_gc(k, 100, 10.0, -1, -1, 1, 0);
    proc_gc(k, 200, 11.0, -1, -1, 1, 1);
    proc_gc(k, 100, -1, 12.0, 13.0, 1, 0); /* pause 3.0 */
    proc_gc(k, 200, -1, 14.0, 15.0, 1, 1); /* pause 4.0 */
    proc_gc(k, 100, 20.0, 21.0, 22.0, 2, 2);
}

static void check_two_processes(gcev_stats *s)
{
    assert_int_equal(gcev_stats_process_count(s), 2);
    assert_int_equal(gcev_stats_gc_count(s), 3);
    const gcev_stats_process *a = gcev_stats_process_at(s, 0);
    const gcev_stats_process *b = gcev_stats_process_at(s, 1);
    assert_int_equal(a->process_id, 100);
    assert_int_equal(b->process_id, 200);
    assert_ptr_equal(gcev_stats_process_find(s, 200), b);
    assert_int_equal(a->gc_count, 2);
    assert_int_equal(a->complete_count, 2);
    assert_int_equal(b->gc_count, 1);
    assert_int_equal(b->complete_count, 1);

    const gcev_stats_gc *a1 = gcev_stats_process_gc_at(s, a, 0);
    const gcev_stats_gc *a2 = gcev_stats_process_gc_at(s, a, 1);
    const gcev_stats_gc *b1 = gcev_stats_process_gc_at(s, b, 0);
    assert_ptr_equal(gcev_stats_gc_at(s, 0), a1); /* the trace's list: start order */
    assert_ptr_equal(gcev_stats_gc_at(s, 1), b1);
    assert_ptr_equal(gcev_stats_gc_at(s, 2), a2);
    assert_int_equal(a1->process_id, 100);
    assert_int_equal(b1->process_id, 200);
    assert_int_equal(a1->number, 1);
    assert_int_equal(b1->number, 1);
    assert_int_equal(b1->generation, 1);
    assert_true(near(a1->pause_ms, 3.0));
    assert_true(near(a1->suspension_ms, 0.1));
    assert_true(near(a1->duration_ms, 1.5));
    assert_true(near(b1->pause_ms, 4.0));
    assert_true(near(b1->suspension_ms, 0.2));
    assert_true(near(b1->duration_ms, 2.5));
    assert_int_equal(gcev_stats_gc_gen_at(s, a1, 0)->size_after, 100001);
    assert_int_equal(gcev_stats_gc_gen_at(s, b1, 0)->size_after, 200001);
    assert_int_equal(gcev_stats_gc_gen_at(s, a2, 0)->size_after, 100002);
    /* since the previous GC of the same process: 20.0 - 12.1 */
    assert_true(a2->present & GCEV_STATS_GC_HAS_SINCE_RESTART);
    assert_true(near(a2->since_last_restart_ms, 7.9));

    assert_int_equal(gcev_stats_process_stats(s, a)->count, 2);
    assert_true(near(gcev_stats_process_stats(s, a)->pause_total_ms, 5.0));
    assert_true(near(gcev_stats_process_stats(s, a)->pause_max_ms, 3.0));
    assert_true(near(gcev_stats_process_stats(s, b)->pause_total_ms, 4.0));
    assert_int_equal(gcev_stats_process_gen_stats(s, b, 1)->count, 1);
    assert_int_equal(gcev_stats_process_gen_stats(s, b, 0)->count, 0);
    assert_true(near(a->pauses.p50_ms, 2.0));
    assert_true(near(b->pauses.max_ms, 4.0));
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    assert_int_equal(sum->gc_count, 3);
    assert_true(near(sum->pause_total_ms, 9.0));
    assert_int_equal(sum->other_suspensions, 0);
}

static void test_stats_processes_kept_apart(void **state)
{
    (void)state;
    sink k;
    gcev_stats *s = new_model(&k, 8);
    two_processes(&k);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    check_two_processes(s);
    gcev_stats_free(s);

    /* max_processes 1: the second process's events are counted only */
    gcev_stats_options o = {.struct_size = sizeof o, .max_processes = 1};
    memset(&k, 0, sizeof k);
    k.ps = 8;
    assert_int_equal(gcev_stats_create(&o, &k.s), GCEV_OK);
    two_processes(&k);
    assert_int_equal(gcev_stats_finish(k.s), GCEV_OK);
    assert_int_equal(gcev_stats_process_count(k.s), 1);
    assert_int_equal(gcev_stats_gc_count(k.s), 2);
    assert_true(near(gcev_stats_gc_at(k.s, 0)->pause_ms, 3.0));
    gcev_stats_free(k.s);
}

/* The CLI (GCEV_CLI, when set) on the same file: processes[] and gcs[].process_id. */
static void cli_two_processes(const etlb *b)
{
    const char *cli = getenv("GCEV_CLI");
    const char *dir = getenv("GCEV_BINARY_DIR");
    if (!cli || !*cli || !dir) {
        return;
    }
    char path[4096], cmd[8192];
    snprintf(path, sizeof path, "%s/tests/stats_two_processes.etl", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b->data, 1, b->size, f), b->size);
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "'%s' stats --format json '%s'", cli, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    static char out[1 << 20];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
    tj root;
    assert_int_equal(tj_parse(out, &root), 0);
    const tj *procs = tj_get(&root, "processes");
    const tj *gcs = tj_get(&root, "gcs");
    assert_true(procs && procs->kind == TJ_ARR && procs->n == 2);
    assert_true(gcs && gcs->kind == TJ_ARR && gcs->n == 3);
    static const char *const pid[3] = {"100", "200", "100"};
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(tj_get(&gcs->items[i], "process_id")->num, pid[i]);
    }
    static const char *const want[2][3] = {{"100", "2", "5"}, {"200", "1", "4"}};
    for (size_t i = 0; i < 2; i++) {
        const tj *pr = &procs->items[i];
        assert_string_equal(tj_get(pr, "process_id")->num, want[i][0]);
        assert_string_equal(tj_get(pr, "gc_count")->num, want[i][1]);
        double total = strtod(tj_get(tj_get(pr, "gcstats"), "pause_total_ms")->num, NULL);
        assert_true(near(total, strtod(want[i][2], NULL)));
    }
    tj_free(&root);
    remove(path);
}

/* Runs the CLI (GCEV_CLI) with args on the trace bytes written to name; its stdout into
 * out. 0 when there is no CLI to run. */
static int cli_stats_output(const uint8_t *data, size_t size, const char *name, const char *args, char *out,
                            size_t cap)
{
    const char *cli = getenv("GCEV_CLI");
    const char *dir = getenv("GCEV_BINARY_DIR");
    if (!cli || !*cli || !dir) {
        return 0;
    }
    char path[4096], cmd[8192];
    snprintf(path, sizeof path, "%s/tests/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "'%s' stats %s '%s'", cli, args, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
    remove(path);
    return 1;
}

/* The CSV cell of column `col` (header name) in the row whose first cell is `record`. */
static void csv_cell(const char *csv, const char *record, const char *col, char *cell, size_t cap)
{
    const char *hdr_end = strchr(csv, '\n');
    assert_non_null(hdr_end);
    size_t want = SIZE_MAX, k = 0;
    for (const char *c = csv; c < hdr_end; k++) {
        const char *e = memchr(c, ',', (size_t)(hdr_end - c));
        if (!e) {
            e = hdr_end;
        }
        if ((size_t)(e - c) == strlen(col) && memcmp(c, col, strlen(col)) == 0) {
            want = k;
            break;
        }
        c = e + 1;
    }
    assert_true(want != SIZE_MAX);
    char start[32];
    snprintf(start, sizeof start, "\n%s,", record);
    const char *row = strstr(csv, start);
    assert_non_null(row);
    row++;
    for (k = 0; k < want; k++) {
        row = strchr(row, ',');
        assert_non_null(row);
        row++;
    }
    size_t len = strcspn(row, ",\n");
    assert_true(len < cap);
    memcpy(cell, row, len);
    cell[len] = '\0';
}

/* A generation whose GCs never ended has no GC total (absent is not zero): in the model
 * (duration_count 0) and in every CLI format; a generation with an ended GC has one. */
static void test_stats_generation_whose_gcs_never_ended_has_no_gc_total(void **state)
{
    (void)state;
    sink k;
    new_writer(&k, 8);
    blocking_gc(&k, 1.0, 1, 0, 2.0);             /* gen 0: ends, 2 ms */
    suspend(&k, 10.0, TID_GC, R_SUSPEND_FOR_GC); /* gen 1: never ends */
    gc_start(&k, 11.0, TID_GC, 2, 1, 0, GCEV_STATS_BLOCKING);
    const uint8_t *data;
    size_t n;
    assert_int_equal(gcev_writer_finish(k.w, &data, &n), GCEV_OK);
    gcev_trace *t;
    assert_int_equal(gcev_trace_open_memory(data, n, NULL, &t, NULL), GCEV_OK);
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    assert_int_equal(gcev_stats_read_trace(s, t, NULL, NULL, NULL), GCEV_OK);
    gcev_trace_close(t);
    const gcev_stats_gen_summary *g0 = gcev_stats_generation(s, 0), *g1 = gcev_stats_generation(s, 1);
    assert_int_equal(g0->count, 1);
    assert_int_equal(g0->duration_count, 1);
    assert_true(near(g0->duration_total_ms, 2.0));
    assert_int_equal(g1->count, 1);
    assert_int_equal(g1->duration_count, 0);
    assert_int_equal(gcev_stats_generation(s, 2)->duration_count, 0);
    gcev_stats_free(s);

    static char out[1 << 20];
    if (cli_stats_output(data, n, "stats_unended_gen.nettrace", "--format json", out, sizeof out)) {
        tj root;
        assert_int_equal(tj_parse(out, &root), 0);
        const tj *gens = tj_get(&root, "generations");
        assert_true(gens && gens->kind == TJ_ARR && gens->n == 3);
        const tj *d0 = tj_get(&gens->items[0], "duration_total_ms");
        assert_non_null(d0);
        assert_true(near(strtod(d0->num, NULL), 2.0));
        assert_string_equal(tj_get(&gens->items[1], "count")->num, "1");
        assert_null(tj_get(&gens->items[1], "duration_total_ms"));
        assert_null(tj_get(&gens->items[2], "duration_total_ms"));
        tj_free(&root);

        char cell[64];
        assert_true(cli_stats_output(data, n, "stats_unended_gen.nettrace",
                                     "--format csv --table gen_summaries", out, sizeof out));
        csv_cell(out, "0", "duration_total_ms", cell, sizeof cell);
        assert_true(near(strtod(cell, NULL), 2.0));
        csv_cell(out, "1", "duration_total_ms", cell, sizeof cell);
        assert_string_equal(cell, "");
        csv_cell(out, "2", "duration_total_ms", cell, sizeof cell);
        assert_string_equal(cell, "");

        /* text: the generations table's last column ("GC total ms") */
        assert_true(cli_stats_output(data, n, "stats_unended_gen.nettrace", "", out, sizeof out));
        const char *tab = strstr(out, "GC total ms\n");
        assert_non_null(tab);
        for (int gen = 0; gen < 3; gen++) {
            const char *row = strchr(tab, '\n') + 1;
            const char *end = strchr(row, '\n');
            assert_non_null(end);
            const char *last = end;
            while (last > row && last[-1] != ' ') {
                last--;
            }
            assert_int_equal(row[0], '0' + gen);
            if (gen == 0) {
                assert_memory_equal(last, "2.000\n", 6);
            } else {
                assert_memory_equal(last, "-\n", 2);
            }
            tab = end;
        }
    }
    gcev_writer_free(k.w);
}

/* The same two processes in one ETL file (a machine-wide trace): pids from the event headers. */
static void test_stats_processes_of_an_etl_trace(void **state)
{
    (void)state;
    etlb b;
    etlb_init(&b, 65536);
    etlb_buffer_begin(&b, 0, 0);
    etlb_logfile lf = {.pointer_size = 8,
                       .timestamp = ETL_T0,
                       .perf_freq = ETL_FREQ,
                       .clock_type = 1,
                       .cpu_speed_mhz = 2000,
                       .processors = 2};
    etlb_logfile_header(&b, &lf);
    sink k;
    memset(&k, 0, sizeof k);
    k.ps = 8;
    k.etl = &b;
    two_processes(&k);
    etlb_buffer_end(&b);

    gcev_trace_options opts = {.struct_size = sizeof opts, .order = GCEV_TRACE_ORDER_TIME};
    gcev_trace *t;
    assert_int_equal(gcev_trace_open_memory(b.data, b.size, &opts, &t, NULL), GCEV_OK);
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    gcev_error err = {0};
    assert_int_equal(gcev_stats_read_trace(s, t, NULL, NULL, &err), GCEV_OK);
    gcev_trace_close(t);
    check_two_processes(s);
    gcev_stats_free(s);
    cli_two_processes(&b);
    etlb_free(&b);
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

/* Accessors with NULL or out-of-range arguments. */
static void test_stats_accessors_null_and_range(void **state)
{
    (void)state;
    assert_int_equal(gcev_stats_process_count(NULL), 0);
    assert_null(gcev_stats_process_at(NULL, 0));
    assert_null(gcev_stats_process_find(NULL, 0));
    assert_null(gcev_stats_process_gc_at(NULL, NULL, 0));
    assert_null(gcev_stats_process_longest_at(NULL, NULL, 0));
    assert_null(gcev_stats_gc_heap_at(NULL, NULL, 0));
    assert_null(gcev_stats_gc_loh_wait_at(NULL, NULL, 0));
    assert_null(gcev_stats_gc_fit_bucket_at(NULL, NULL, 0));
    /* mechanism names: the runtime's values (bit 31 and the reason's bit) */
    assert_string_equal(gcev_stats_compact_reason_name(0x80000002u), "high_frag");
    assert_string_equal(gcev_stats_compact_reason_name(0x80000020u), "induced_compacting");
    assert_string_equal(gcev_stats_compact_reason_name(1u << 10), "no_gc_mode");
    assert_null(gcev_stats_compact_reason_name(0));
    assert_null(gcev_stats_compact_reason_name(0x80000000u | (1u << 11)));
    assert_string_equal(gcev_stats_expand_mechanism_name(1u << 5), "next_full_gc");
    assert_null(gcev_stats_expand_mechanism_name(0));
    assert_string_equal(gcev_stats_global_mechanism_name(1), "compaction");
    assert_string_equal(gcev_stats_global_mechanism_name(5), "elevation");
    assert_null(gcev_stats_global_mechanism_name(6));
    char buf[4] = "x";
    assert_int_equal(gcev_stats_gc_label(NULL, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    sink k;
    gcev_stats *s = new_model(&k, 8);
    gc_with_pause(&k, 10.0, 1, 0, 0, 1.0);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_null(gcev_stats_process_at(s, 1));
    assert_null(gcev_stats_process_gc_at(s, NULL, 0));
    assert_null(gcev_stats_gc_heap_at(s, g, 0)); /* no per-heap events */
    assert_null(gcev_stats_gc_loh_wait_at(s, g, 0));
    assert_null(gcev_stats_gc_fit_bucket_at(s, g, 0));
    assert_null(gcev_stats_gc_heap_at(s, NULL, 0));
    assert_int_equal(gcev_stats_process_at(s, 0)->process_id, 0);
    assert_int_equal(gcev_stats_gc_label(g, NULL, 0), 2); /* "0N": the length it needs */
    gcev_stats_free(s);
}

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

/* Every name function: a distinct name for each value of its range, NULL past it. */
static void test_stats_names_are_distinct_and_null_past_their_range(void **state)
{
    (void)state;
    typedef const char *(*name_fn)(unsigned);
    static const struct {
        name_fn fn;
        unsigned count;
    } fns[] = {
        {gcev_stats_gen_name, GCEV_STATS_GENS},
        {gcev_stats_phase_name, GCEV_STATS_PHASES},
        {gcev_stats_bgc_event_name, GCEV_STATS_BGC_EVENTS},
        {gcev_stats_condemned_group_name, GCEV_STATS_CONDEMNED_GROUPS},
        {gcev_stats_global_mechanism_name, 6},
    };
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        for (unsigned i = 0; i < fns[f].count; i++) {
            const char *a = fns[f].fn(i);
            assert_non_null(a);
            for (unsigned j = 0; j < i; j++) {
                assert_string_not_equal(a, fns[f].fn(j));
            }
        }
        assert_null(fns[f].fn(fns[f].count));
    }
    for (uint32_t t = 0; t < 3; t++) {
        assert_non_null(gcev_stats_gc_type_name(t));
    }
    assert_null(gcev_stats_gc_type_name(3));
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

/* PerfView's GC label: generation, then N/B/F for the type, then I (induced) or i (induced,
 * not forced); what the GC does not carry is left out. */
static void test_stats_gc_label_names_generation_type_and_induced(void **state)
{
    (void)state;
    static const struct {
        uint64_t present;
        uint32_t type, reason, gen;
        const char *want;
    } cases[] = {
        {0, GCEV_STATS_BACKGROUND, 1, 2, "2"},
        {GCEV_STATS_GC_HAS_TYPE, GCEV_STATS_BLOCKING, 0, 0, "0N"},
        {GCEV_STATS_GC_HAS_TYPE, GCEV_STATS_BACKGROUND, 0, 2, "2B"},
        {GCEV_STATS_GC_HAS_TYPE, GCEV_STATS_FOREGROUND, 0, 1, "1F"},
        {GCEV_STATS_GC_HAS_TYPE, 9, 0, 1, "1"},
        {GCEV_STATS_GC_HAS_TYPE | GCEV_STATS_GC_HAS_REASON, GCEV_STATS_BLOCKING, 1, 0, "0NI"},
        {GCEV_STATS_GC_HAS_REASON, 0, 7, 2, "2i"},
        {GCEV_STATS_GC_HAS_REASON, 0, 3, 2, "2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gcev_stats_gc g;
        memset(&g, 0, sizeof g);
        g.present = cases[i].present;
        g.type = cases[i].type;
        g.reason = cases[i].reason;
        g.generation = cases[i].gen;
        char buf[16];
        assert_int_equal(gcev_stats_gc_label(&g, buf, sizeof buf), strlen(cases[i].want));
        assert_string_equal(buf, cases[i].want);
    }
    char buf[4] = "xyz";
    assert_int_equal(gcev_stats_gc_label(NULL, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    assert_int_equal(gcev_stats_gc_label(NULL, NULL, 0), 0);
}

/* CondemnReasons decoding: the generation pairs of CondemnReasons0, then the conditions: in
 * version 0 the high 16 bits of CondemnReasons0, from version 2 CondemnReasons1 (when the
 * event has it), version 1 none; conditions without a group set nothing. */
static void test_stats_condemned_reasons_by_history_version(void **state)
{
    (void)state;
    uint8_t g[GCEV_STATS_CONDEMNED_GROUPS];
    /* generations 1, 2, 0, 3 in the low byte; condition 0 (induced) and 2 (high memory) high */
    const uint32_t r0 = 1u | 2u << 2 | 0u << 4 | 3u << 6 | 1u << 16 | 1u << 18;
    gcev_stats_decode_condemned(r0, 0, 0, 0, g);
    assert_int_equal(g[0], 1);
    assert_int_equal(g[1], 2);
    assert_int_equal(g[2], 0);
    assert_int_equal(g[3], 3);
    assert_int_equal(g[4], 1); /* Induced = Blocking */
    gcev_stats_decode_condemned(r0, 1u << 14 | 1u << 11, 1, 2, g);
    assert_int_equal(g[4], 2);                          /* Induced_noforce_p: NotForced */
    assert_int_equal(g[2], 2);                          /* Max_gen1: Alloc_Exceeded = 2 */
    gcev_stats_decode_condemned(r0, 1u << 14, 0, 2, g); /* no CondemnReasons1 */
    assert_int_equal(g[4], 0);
    gcev_stats_decode_condemned(r0, 1u << 14, 1, 1, g); /* version 1: no conditions */
    assert_int_equal(g[4], 0);
    assert_int_equal(g[0], 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_blocking_gc_pause_is_suspend_to_restart),
        cmocka_unit_test(test_stats_bgc_with_nested_gcs_accounted_separately),
        cmocka_unit_test(test_stats_sampler_suspensions_are_never_gc_pauses),
        cmocka_unit_test(test_stats_missing_heap_stats_are_absent_not_zero),
        cmocka_unit_test(test_stats_prep_restart_after_lost_gc_end),
        cmocka_unit_test(test_stats_mark_times_per_root_kind),
        cmocka_unit_test(test_stats_appdomain_survived_after_last_full_blocking_gc),
        cmocka_unit_test(test_stats_handle_pairing_and_limit),
        cmocka_unit_test(test_stats_handle_twins_count_once),
        cmocka_unit_test(test_stats_unmatched_frees_and_losses),
        cmocka_unit_test(test_stats_pointer_size_4_trace),
        cmocka_unit_test(test_stats_dropped_events_flag_open_gcs),
        cmocka_unit_test(test_stats_note_dropped_direct),
        cmocka_unit_test(test_stats_rates_and_allocation),
        cmocka_unit_test(test_stats_bad_arguments_and_bad_payloads),
        cmocka_unit_test(test_stats_drop_exactly_at_gc_end_flags_that_gc),
        cmocka_unit_test(test_stats_bgc_end_closes_it_for_later_gcs),
        cmocka_unit_test(test_stats_allocation_amount64_is_used_when_present),
        cmocka_unit_test(test_stats_pause_percentiles_and_longest),
        cmocka_unit_test(test_stats_processes_kept_apart),
        cmocka_unit_test(test_stats_generation_whose_gcs_never_ended_has_no_gc_total),
        cmocka_unit_test(test_stats_processes_of_an_etl_trace),
        cmocka_unit_test(test_stats_framework_gcstart_v1_then_v2),
        cmocka_unit_test(test_stats_private_only_histories_and_marks),
        cmocka_unit_test(test_stats_join_waits_per_heap),
        cmocka_unit_test(test_stats_allocation_ticks_per_kind_and_the_compat_clamp),
        cmocka_unit_test(test_stats_names_are_distinct_and_null_past_their_range),
        cmocka_unit_test(test_stats_gc_label_names_generation_type_and_induced),
        cmocka_unit_test(test_stats_condemned_reasons_by_history_version),
        cmocka_unit_test(test_stats_every_event_version_feeds_the_model_without_error),
        cmocka_unit_test(test_stats_heap_records_and_pins_past_their_limits_are_flagged),
        cmocka_unit_test(test_stats_bgc_phase_times_are_the_first_of_each_private_event),
        cmocka_unit_test(test_stats_gc_start_without_suspension),
        cmocka_unit_test(test_stats_incomplete_gc_pinned_plugs_absent_in_compat),
        cmocka_unit_test(test_stats_loh_waits_of_a_bgc),
        cmocka_unit_test(test_stats_accessors_null_and_range),
        cmocka_unit_test(test_stats_scenarios_corrected),
        cmocka_unit_test(test_stats_foreign_suspend_end_during_bgc_suspension_is_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
