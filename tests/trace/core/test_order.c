/* SPDX-License-Identifier: MIT */
/*
 * Timestamp ordering between barriers (src/trace/core/gcev_order.c): ties keep
 * file order (within a stream and across streams), the merge starts from the
 * earliest event whichever stream holds it, a stream that goes back in time is
 * sorted, and a barrier that arrives while events are being released waits.
 * Events are identified by their file_offset (= push order).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev.h>

#include "gcev_order.h"

typedef struct in_ev {
    uint64_t stream;
    int64_t ts;
} in_ev;

static void push_all(gcev_order *o, const in_ev *evs, size_t n, uint64_t first_id)
{
    for (size_t i = 0; i < n; i++) {
        gcev_trace_event ev;
        memset(&ev, 0, sizeof ev);
        ev.capture_thread_id = evs[i].stream;
        ev.timestamp = evs[i].ts;
        ev.file_offset = first_id + i;
        ev.provider_name = "P";
        ev.event_name = "E";
        assert_int_equal(gcev_order_push(o, &ev), GCEV_OK);
    }
}

/* Pops everything releasable; the ids (file offsets) in output order. */
static size_t pop_ids(gcev_order *o, uint64_t *ids, size_t cap)
{
    size_t n = 0;
    gcev_trace_event ev;
    int r;
    while ((r = gcev_order_pop(o, &ev)) == 1) {
        assert_true(n < cap);
        ids[n++] = ev.file_offset;
    }
    assert_int_equal(r, 0);
    return n;
}

static void assert_ids(const uint64_t *got, size_t n, const uint64_t *want, size_t nwant)
{
    assert_int_equal(n, nwant);
    for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            fail_msg("position %zu: event %llu, expected %llu", i, (unsigned long long)got[i],
                     (unsigned long long)want[i]);
        }
    }
}

static void test_order_equal_timestamps_in_one_stream_keep_file_order(void **state)
{
    (void)state;
    gcev_order *o = gcev_order_create(0, 0);
    assert_non_null(o);
    static const in_ev evs[] = {{7, 10}, {7, 10}, {7, 10}, {7, 20}, {7, 20}};
    push_all(o, evs, 5, 0);
    uint64_t ids[8];
    assert_int_equal(pop_ids(o, ids, 8), 0); /* nothing before a barrier */
    gcev_order_barrier(o);
    size_t n = pop_ids(o, ids, 8);
    static const uint64_t want[] = {0, 1, 2, 3, 4};
    assert_ids(ids, n, want, 5);
    gcev_order_destroy(o);
}

static void test_order_equal_timestamps_across_streams_keep_file_order(void **state)
{
    (void)state;
    gcev_order *o = gcev_order_create(0, 0);
    /* three streams, every event at the same time, interleaved in the file */
    static const in_ev evs[] = {{3, 5}, {1, 5}, {2, 5}, {1, 5}, {3, 5}, {2, 5}, {2, 5}, {1, 5}};
    push_all(o, evs, 8, 100);
    gcev_order_barrier(o);
    uint64_t ids[16];
    size_t n = pop_ids(o, ids, 16);
    static const uint64_t want[] = {100, 101, 102, 103, 104, 105, 106, 107};
    assert_ids(ids, n, want, 8);
    /* mixed: ties across streams broken by file order, the rest by time */
    static const in_ev mix[] = {{1, 30}, {2, 10}, {3, 30}, {2, 30}, {1, 40}, {3, 10}};
    push_all(o, mix, 6, 0);
    gcev_order_barrier(o);
    n = pop_ids(o, ids, 16);
    static const uint64_t want2[] = {1, 5, 0, 2, 3, 4};
    assert_ids(ids, n, want2, 6);
    gcev_order_destroy(o);
}

static void test_order_first_stream_without_earliest_event_merges_by_time(void **state)
{
    (void)state;
    gcev_order *o = gcev_order_create(0, 0);
    /* stream 9 comes first in the file but holds the latest events; 5 streams */
    static const in_ev evs[] = {{9, 500}, {9, 600}, {4, 300}, {5, 100}, {6, 400},
                                {7, 200}, {4, 350}, {5, 150}, {7, 250}, {6, 450}};
    push_all(o, evs, 10, 0);
    gcev_order_barrier(o);
    uint64_t ids[16];
    size_t n = pop_ids(o, ids, 16);
    static const uint64_t want[] = {3, 7, 5, 8, 2, 6, 4, 9, 0, 1};
    assert_ids(ids, n, want, 10);
    /* three streams, the earliest in the last one */
    static const in_ev three[] = {{1, 20}, {2, 30}, {3, 10}, {1, 25}, {2, 35}, {3, 15}};
    push_all(o, three, 6, 0);
    gcev_order_barrier(o);
    n = pop_ids(o, ids, 16);
    static const uint64_t want3[] = {2, 5, 0, 3, 1, 4};
    assert_ids(ids, n, want3, 6);
    gcev_order_destroy(o);
}

static void test_order_stream_going_back_in_time_is_sorted(void **state)
{
    (void)state;
    gcev_order *o = gcev_order_create(0, 0);
    static const in_ev evs[] = {{1, 30}, {1, 10}, {2, 20}, {1, 20}, {1, 10}};
    push_all(o, evs, 5, 0);
    gcev_order_barrier(o);
    uint64_t ids[8];
    size_t n = pop_ids(o, ids, 8);
    static const uint64_t want[] = {1, 4, 2, 3, 0}; /* ties (10, 10) and (20, 20) in file order */
    assert_ids(ids, n, want, 5);
    gcev_order_destroy(o);
}

static void test_order_barrier_while_releasing_keeps_later_events_after(void **state)
{
    (void)state;
    gcev_order *o = gcev_order_create(0, 0);
    static const in_ev a[] = {{1, 10}, {2, 20}, {1, 30}};
    push_all(o, a, 3, 0);
    gcev_order_barrier(o);
    gcev_trace_event ev;
    assert_int_equal(gcev_order_pop(o, &ev), 1);
    assert_int_equal(ev.file_offset, 0);
    /* more events and a second barrier before the first region is drained */
    static const in_ev b[] = {{2, 5}, {1, 40}};
    push_all(o, b, 2, 3);
    gcev_order_barrier(o);
    uint64_t ids[8];
    size_t n = pop_ids(o, ids, 8);
    static const uint64_t want[] = {1, 2, 3, 4}; /* the first region's rest, then the second */
    assert_ids(ids, n, want, 4);
    gcev_order_destroy(o);
}

static void test_order_window_forces_barriers_and_copies_event_bytes(void **state)
{
    (void)state;
    gcev_order *o = gcev_order_create(2, 0); /* a barrier every two events */
    uint8_t payload[3] = {1, 2, 3}, stack[8] = {9};
    gcev_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.capture_thread_id = 1;
    ev.timestamp = 50;
    ev.payload = payload;
    ev.payload_size = 3;
    ev.stack = stack;
    ev.stack_size = 8;
    char name[] = "Provider";
    ev.provider_name = name;
    ev.event_name = NULL;
    assert_int_equal(gcev_order_push(o, &ev), GCEV_OK);
    ev.timestamp = 40;
    ev.file_offset = 1;
    assert_int_equal(gcev_order_push(o, &ev), GCEV_OK); /* window full: released */
    payload[0] = 0xee;
    name[0] = 'X';
    gcev_trace_event out;
    assert_int_equal(gcev_order_pop(o, &out), 1);
    assert_int_equal(out.file_offset, 1);
    assert_int_equal(out.timestamp, 40);
    assert_int_equal(out.payload[0], 1);
    assert_int_equal(out.payload_size, 3);
    assert_int_equal(out.stack[0], 9);
    assert_string_equal(out.provider_name, "Provider");
    assert_string_equal(out.event_name, "");
    assert_int_equal(gcev_order_pop(o, &out), 1);
    assert_int_equal(out.file_offset, 0);
    assert_int_equal(gcev_order_pop(o, &out), 0);
    gcev_order_destroy(o);
    gcev_order_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_equal_timestamps_in_one_stream_keep_file_order),
        cmocka_unit_test(test_order_equal_timestamps_across_streams_keep_file_order),
        cmocka_unit_test(test_order_first_stream_without_earliest_event_merges_by_time),
        cmocka_unit_test(test_order_stream_going_back_in_time_is_sorted),
        cmocka_unit_test(test_order_barrier_while_releasing_keeps_later_events_after),
        cmocka_unit_test(test_order_window_forces_barriers_and_copies_event_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
