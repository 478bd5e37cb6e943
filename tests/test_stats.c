/* SPDX-License-Identifier: MIT */
/*
 * The GC analysis model (gcev_stats.h) on synthetic event sequences: each
 * tricky case real traces show (BGC with nested GCs, sampler
 * suspensions, dropped events, missing HeapStats, 32-bit pointers) built from
 * typed structs, encoded with gcev_encode and fed as raw payloads or written
 * into a trace with gcev_writer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>
#include <gcev/gcev_stats.h>
#include <gcev/gcev_writer.h>

#define RT "Microsoft-Windows-DotNETRuntime"
enum { TID_GC = 1, TID_BGC = 2, TID_SAMPLER = 99 };
enum { R_SUSPEND_OTHER = 0, R_SUSPEND_FOR_GC = 1, R_SUSPEND_FOR_GC_PREP = 6 };

/* ---- building events ------------------------------------------------------ */

/* Where encoded events go: straight into a model, or into a trace writer. */
typedef struct sink {
    gcev_stats *s;
    gcev_writer *w;
    uint8_t ps;
    uint32_t meta[256][8]; /* writer meta id per (event id % 256, version) */
    uint32_t seq_skip;     /* added to the next written event's sequence number */
    uint32_t seq[256];     /* last sequence per thread (writer) */
} sink;

static void emit(sink *k, uint16_t id, uint16_t ver, gcev_event *ev, double ms, uint64_t tid)
{
    gcev_status st;
    ev->desc = gcev_event_desc_resolve(&gcev_provider_runtime, id, ver, &st);
    assert_non_null(ev->desc);
    ev->pointer_size = k->ps;
    uint8_t buf[2048];
    size_t n = 0;
    gcev_error err = {0};
    assert_int_equal(gcev_encode(ev, buf, sizeof buf, &n, &err), GCEV_OK);
    if (k->s) {
        gcev_stats_input in = {.provider = &gcev_provider_runtime,
                               .event_id = id,
                               .version = ver,
                               .pointer_size = k->ps,
                               .payload = buf,
                               .payload_size = (uint32_t)n,
                               .ms = ms,
                               .thread_id = tid};
        assert_int_equal(gcev_stats_add(k->s, &in), GCEV_OK);
        return;
    }
    uint32_t *meta = &k->meta[id % 256][ver % 8];
    if (!*meta) {
        gcev_writer_meta m = {RT, id, (uint8_t)ver, 0, 4, 1, "", NULL, 0};
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

static void gc_start(sink *k, double ms, uint64_t tid, uint32_t n, uint32_t gen, uint32_t reason,
                     uint32_t type)
{
    gcev_event ev;
    ev_clear(&ev);
    ev.u.gc_start.count = n;
    ev.u.gc_start.depth = gen;
    ev.u.gc_start.reason = reason;
    ev.u.gc_start.type = type;
    emit(k, 1, 2, &ev, ms, tid);
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
    assert_int_equal(g->gens[0].size_after, 100);
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
    assert_int_equal(bgc->gens[0].size_after, 500);

    assert_int_equal(eph->type, GCEV_STATS_FOREGROUND);
    assert_true(eph->present & GCEV_STATS_GC_HAS_NESTED_IN);
    assert_int_equal(eph->nested_in, 5);
    assert_true(near(eph->pause_ms, 6.0));
    assert_int_equal(eph->gens[0].size_after, 600);

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
        assert_int_equal(g->gens[i].present, 0);
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
    assert_int_equal(g->promoted_bytes, 330); /* from the marks: no HeapStats */
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

static void set_handle(sink *k, double ms, uint64_t id, uint32_t kind)
{
    gcev_event ev;
    ev_clear(&ev);
    ev.u.set_gc_handle.handle_id = id;
    ev.u.set_gc_handle.object_id = id + 1;
    ev.u.set_gc_handle.kind = kind;
    emit(k, 30, 0, &ev, ms, TID_GC);
}

static void destroy_handle(sink *k, double ms, uint64_t id)
{
    gcev_event ev;
    ev_clear(&ev);
    ev.u.destroy_gc_handle.handle_id = id;
    emit(k, 31, 0, &ev, ms, TID_GC);
}

/* Many pairs through the hash table (backward-shift deletion), then the limit. */
static void test_stats_handle_pairing_and_limit(void **state)
{
    (void)state;
    sink k;
    memset(&k, 0, sizeof k);
    k.ps = 8;
    gcev_stats_options o = {.max_handles = 600};
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

    gcev_stats_options tiny = {.max_handles = 2};
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

/* ---- through a trace file -------------------------------------------------- */

static gcev_stats *read_back(sink *k)
{
    const uint8_t *data;
    size_t n;
    assert_int_equal(gcev_writer_finish(k->w, &data, &n), GCEV_OK);
    gcev_trace_options opts = {GCEV_TRACE_ORDER_TIME, 0};
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
    assert_int_equal(g->gens[1].size_before, 2000);
    /* no GCHeapStats: sizes after from the history, only for the generations a gen0 GC rewrites */
    assert_int_equal(g->gens[1].size_after, 1000);
    assert_true(g->gens[1].present & GCEV_STATS_HEAP_HAS_SIZE_AFTER);
    assert_false(g->gens[3].present & GCEV_STATS_HEAP_HAS_SIZE_AFTER);
    assert_int_equal(g->gens[0].frag_after, 7);
    assert_true(g->gens[3].present & GCEV_STATS_HEAP_HAS_FRAG_BEFORE);
    assert_int_equal(g->gens[4].present, 0); /* only 4 generations in this payload */
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
    gcev_stats_input in = {.event_id = 1, .pointer_size = 8, .ms = 5.0, .thread_id = 1};
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
    gcev_stats_input in = {.provider = &gcev_provider_runtime,
                           .event_id = 1,
                           .version = 2,
                           .pointer_size = 8,
                           .payload = shortp,
                           .payload_size = 3,
                           .ms = 1.0,
                           .thread_id = 1};
    assert_int_equal(gcev_stats_add(s, &in), GCEV_E_TRUNCATED);
    gcev_stats_input other = {
        .event_id = 77, .pointer_size = 8, .ms = 9.0, .thread_id = 1}; /* not a GC event */
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
    assert_int_equal(bgc->gens[0].size_after, 444);
    assert_int_equal(after->gens[0].size_after, 600);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_blocking_gc_pause_is_suspend_to_restart),
        cmocka_unit_test(test_stats_bgc_with_nested_gcs_accounted_separately),
        cmocka_unit_test(test_stats_sampler_suspensions_are_never_gc_pauses),
        cmocka_unit_test(test_stats_missing_heap_stats_are_absent_not_zero),
        cmocka_unit_test(test_stats_mark_times_per_root_kind),
        cmocka_unit_test(test_stats_appdomain_survived_after_last_full_blocking_gc),
        cmocka_unit_test(test_stats_handle_pairing_and_limit),
        cmocka_unit_test(test_stats_pointer_size_4_trace),
        cmocka_unit_test(test_stats_dropped_events_flag_open_gcs),
        cmocka_unit_test(test_stats_note_dropped_direct),
        cmocka_unit_test(test_stats_rates_and_allocation),
        cmocka_unit_test(test_stats_bad_arguments_and_bad_payloads),
        cmocka_unit_test(test_stats_drop_exactly_at_gc_end_flags_that_gc),
        cmocka_unit_test(test_stats_bgc_end_closes_it_for_later_gcs),
        cmocka_unit_test(test_stats_allocation_amount64_is_used_when_present),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
