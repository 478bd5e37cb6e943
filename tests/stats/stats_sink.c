/* SPDX-License-Identifier: MIT */
/* The stats tests' event builders (stats_sink.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stats_sink.h"

void emit(sink *k, uint16_t id, uint16_t ver, gcev_event *ev, double ms, uint64_t tid)
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

void ev_clear(gcev_event *ev)
{
    memset(ev, 0, sizeof *ev);
}

void suspend(sink *k, double ms, uint64_t tid, uint32_t reason)
{
    gcev_event ev;
    ev_clear(&ev);
    ev.u.gc_suspend_ee_begin.reason = reason;
    ev.u.gc_suspend_ee_begin.count = reason == R_SUSPEND_OTHER ? UINT32_MAX : 1;
    emit(k, 9, 1, &ev, ms, tid);
}

void suspend_end(sink *k, double ms, uint64_t tid)
{
    gcev_event ev;
    ev_clear(&ev);
    emit(k, 8, 1, &ev, ms, tid);
}

void restart(sink *k, double ms, uint64_t tid)
{
    gcev_event ev;
    ev_clear(&ev);
    emit(k, 7, 1, &ev, ms - 0.1, tid);
    ev_clear(&ev);
    emit(k, 3, 1, &ev, ms, tid);
}

void gc_start_v(sink *k, uint16_t version, double ms, uint64_t tid, uint32_t n, uint32_t gen, uint32_t reason,
                uint32_t type)
{
    gcev_event ev;
    ev_clear(&ev);
    ev.u.gc_start.count = n;
    ev.u.gc_start.depth = gen;
    ev.u.gc_start.reason = reason;
    ev.u.gc_start.type = type;
    emit(k, 1, version, &ev, ms, tid);
}

void gc_start(sink *k, double ms, uint64_t tid, uint32_t n, uint32_t gen, uint32_t reason, uint32_t type)
{
    gc_start_v(k, 2, ms, tid, n, gen, reason, type);
}

void gc_end(sink *k, double ms, uint64_t tid, uint32_t n, uint32_t gen)
{
    gcev_event ev;
    ev_clear(&ev);
    ev.u.gc_end.count = n;
    ev.u.gc_end.depth = gen;
    emit(k, 2, 1, &ev, ms, tid);
}

void heap_stats(sink *k, double ms, uint64_t tid, uint64_t gen0_size, uint64_t promoted0, uint32_t pinned)
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

void per_heap_history(sink *k, double ms, uint64_t tid, const uint8_t *vals, size_t size, uint32_t gens)
{
    gcev_event ev;
    ev_clear(&ev);
    gcev_gc_per_heap_history *ph = &ev.u.gc_per_heap_history;
    ph->count = gens;
    ph->values.data = vals;
    ph->values.size = size;
    ph->values.count = gens;
    emit(k, 204, 3, &ev, ms, tid);
}

/* A blocking GC with its suspension: suspend at t, start t+1, end t+1+dur, restart +0.5. */
void blocking_gc(sink *k, double t, uint32_t n, uint32_t gen, double dur)
{
    suspend(k, t, TID_GC, R_SUSPEND_FOR_GC);
    suspend_end(k, t + 0.5, TID_GC);
    gc_start(k, t + 1, TID_GC, n, gen, 0, GCEV_STATS_BLOCKING);
    gc_end(k, t + 1 + dur, TID_GC, n, gen);
    heap_stats(k, t + 1.2 + dur, TID_GC, 100 * n, 50 * n, 1);
    restart(k, t + 1.5 + dur, TID_GC);
}

gcev_stats *new_model(sink *k, uint8_t ps)
{
    memset(k, 0, sizeof *k);
    k->ps = ps;
    assert_int_equal(gcev_stats_create(NULL, &k->s), GCEV_OK);
    return k->s;
}

int near(double a, double b)
{
    return a - b < 1e-6 && b - a < 1e-6;
}

/* SetGCHandle (id 30), or with k->prov private PrvSetGCHandle (id 194). */
void set_handle(sink *k, double ms, uint64_t id, uint32_t kind)
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
void destroy_handle(sink *k, double ms, uint64_t id)
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

/* ---- through a trace file -------------------------------------------------- */

gcev_stats *read_back(sink *k)
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

void new_writer(sink *k, uint8_t ps)
{
    memset(k, 0, sizeof *k);
    k->ps = ps;
    gcev_writer_options o = {4, 1, ps, 1234, 2, 1000000, 0};
    assert_int_equal(gcev_writer_create(&o, &k->w), GCEV_OK);
}

/* ---- GCs and processes of a known shape ---------------------------------------- */

/* A complete blocking GC whose pause (SuspendEEBegin -> RestartEEEnd) is exactly `pause` ms. */
void gc_with_pause(sink *k, double t, uint32_t n, uint32_t gen, uint32_t reason, double pause)
{
    suspend(k, t, TID_GC, R_SUSPEND_FOR_GC);
    suspend_end(k, t + 0.1, TID_GC);
    gc_start(k, t + 0.2, TID_GC, n, gen, reason, GCEV_STATS_BLOCKING);
    gc_end(k, t + pause - 0.3, TID_GC, n, gen);
    heap_stats(k, t + pause - 0.2, TID_GC, 100 * n, 10 * n, 0);
    restart(k, t + pause, TID_GC);
}

/* One process's GC events, interleaved with another's (below). */
void proc_gc(sink *k, uint32_t pid, double t0, double t1, double t2, uint32_t n, uint32_t gen)
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
void two_processes(sink *k)
{
    proc_gc(k, 100, 10.0, -1, -1, 1, 0);
    proc_gc(k, 200, 11.0, -1, -1, 1, 1);
    proc_gc(k, 100, -1, 12.0, 13.0, 1, 0); /* pause 3.0 */
    proc_gc(k, 200, -1, 14.0, 15.0, 1, 1); /* pause 4.0 */
    proc_gc(k, 100, 20.0, 21.0, 22.0, 2, 2);
}

void check_two_processes(gcev_stats *s)
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
