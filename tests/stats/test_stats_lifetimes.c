/* SPDX-License-Identifier: MIT */
/*
 * gcev_stats_lifetimes.c: GC handles paired by id (both providers), their limit and losses,
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_handle_pairing_and_limit),
        cmocka_unit_test(test_stats_handle_twins_count_once),
        cmocka_unit_test(test_stats_unmatched_frees_and_losses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
