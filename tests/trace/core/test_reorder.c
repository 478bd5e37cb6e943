/* SPDX-License-Identifier: MIT */
/*
 * GCEV_TRACE_ORDER_STREAM (src/trace/core/gcev_reorder.c and the EventPipe
 * reader's watermarks): the heap releases events up to the watermark only, in
 * (timestamp, arrival) order, copies their bytes, and lets the oldest go past its
 * bound; on every real .NET trace of tests/data/traces, read as a live session
 * reads it (a byte stream), stream order gives exactly the events of timestamp
 * order, in the same order, and holds back only what the runtime's marks do not
 * yet cover.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev_trace.h>

#include "gcev_reorder.h"
#include "testutil.h"

static void push(gcev_reorder *r, int64_t ts, uint64_t id, const char *payload)
{
    gcev_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.timestamp = ts;
    ev.file_offset = id;
    ev.provider_name = "P";
    ev.event_name = "E";
    ev.payload = (const uint8_t *)payload;
    ev.payload_size = payload ? (uint32_t)strlen(payload) : 0;
    assert_int_equal(gcev_reorder_push(r, &ev), GCEV_OK);
}

static size_t pop_ids(gcev_reorder *r, uint64_t *ids, size_t cap)
{
    size_t n = 0;
    gcev_trace_event ev;
    while (gcev_reorder_pop(r, &ev)) {
        assert_true(n < cap);
        ids[n++] = ev.file_offset;
    }
    return n;
}

static void test_reorder_releases_up_to_the_watermark_in_time_order(void **state)
{
    (void)state;
    gcev_reorder *r = gcev_reorder_create(0, 0);
    assert_non_null(r);
    uint64_t ids[8];
    push(r, 30, 1, NULL);
    push(r, 10, 2, NULL);
    push(r, 20, 3, NULL);
    assert_int_equal(pop_ids(r, ids, 8), 0); /* no watermark yet */
    gcev_reorder_release_to(r, 20);
    assert_int_equal(pop_ids(r, ids, 8), 2);
    assert_int_equal(ids[0], 2);
    assert_int_equal(ids[1], 3);
    gcev_reorder_release_to(r, 5); /* a lower mark changes nothing */
    push(r, 25, 4, NULL);
    push(r, 25, 5, NULL); /* a tie keeps arrival order */
    assert_int_equal(pop_ids(r, ids, 8), 0);
    gcev_reorder_release_to(r, 29);
    assert_int_equal(pop_ids(r, ids, 8), 2);
    assert_int_equal(ids[0], 4);
    assert_int_equal(ids[1], 5);
    gcev_reorder_release_all(r);
    assert_int_equal(pop_ids(r, ids, 8), 1);
    assert_int_equal(ids[0], 1);
    /* release_all covered what was held then, not what comes after */
    push(r, 40, 6, NULL);
    assert_int_equal(pop_ids(r, ids, 8), 0);
    gcev_reorder_destroy(r);
}

static void test_reorder_copies_bytes_and_bounds_what_it_holds(void **state)
{
    (void)state;
    gcev_reorder *r = gcev_reorder_create(2, 0); /* at most 2 held */
    assert_non_null(r);
    char buf[8];
    strcpy(buf, "abc");
    push(r, 3, 1, buf);
    strcpy(buf, "xyz"); /* the caller's bytes change: the copy must not */
    push(r, 1, 2, buf);
    gcev_trace_event ev;
    assert_int_equal(gcev_reorder_pop(r, &ev), 0);
    push(r, 2, 3, "q");
    /* three held, the bound two: the oldest leaves without a watermark */
    assert_int_equal(gcev_reorder_pop(r, &ev), 1);
    assert_int_equal(ev.file_offset, 2);
    assert_memory_equal(ev.payload, "xyz", 3);
    assert_string_equal(ev.provider_name, "P");
    assert_int_equal(gcev_reorder_pop(r, &ev), 0);
    gcev_reorder_release_to(r, 3);
    assert_int_equal(gcev_reorder_pop(r, &ev), 1);
    assert_int_equal(ev.file_offset, 3);
    assert_int_equal(gcev_reorder_pop(r, &ev), 1);
    assert_int_equal(ev.file_offset, 1);
    assert_memory_equal(ev.payload, "abc", 3);
    gcev_reorder_destroy(r);
}

/* A byte stream over memory in pieces of at most 4 KiB, as a socket delivers it. */
typedef struct piece_reader {
    const uint8_t *p;
    size_t n, pos;
} piece_reader;

static long long piece_read(void *ctx, void *buf, size_t n)
{
    piece_reader *r = ctx;
    size_t k = r->n - r->pos;
    if (k > n) {
        k = n;
    }
    if (k > 4096) {
        k = 4096;
    }
    memcpy(buf, r->p + r->pos, k);
    r->pos += k;
    return (long long)k;
}

/* One event's identity, enough to tell any two apart. */
typedef struct ev_key {
    int64_t ts;
    uint64_t thread;
    uint16_t id;
    uint32_t size;
    uint32_t sum;
} ev_key;

static ev_key key_of(const gcev_trace_event *ev)
{
    ev_key k = {ev->timestamp, ev->thread_id, ev->event_id, ev->payload_size, 0};
    for (uint32_t i = 0; i < ev->payload_size; i++) {
        k.sum = k.sum * 31u + ev->payload[i];
    }
    return k;
}

/* The events of the trace in `order`; *half_at: the bytes read from the stream when half of them
 * had been returned. */
static size_t read_keys(const uint8_t *data, size_t size, uint32_t order, ev_key **out, size_t *half_at)
{
    gcev_trace_options o;
    memset(&o, 0, sizeof o);
    o.order = order;
    piece_reader pr = {data, size, 0};
    gcev_trace *t = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_reader(piece_read, &pr, &o, &t, &err), GCEV_OK);
    size_t n = 0, cap = 0;
    ev_key *keys = NULL;
    gcev_trace_event ev;
    gcev_status st;
    size_t *at = NULL, at_cap = 0;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        if (n == at_cap) {
            at_cap = at_cap ? at_cap * 2 : 1024;
            at = realloc(at, at_cap * sizeof *at);
            assert_non_null(at);
        }
        at[n] = pr.pos;
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            keys = realloc(keys, cap * sizeof *keys);
            assert_non_null(keys);
        }
        keys[n++] = key_of(&ev);
    }
    assert_int_equal(st, GCEV_END);
    gcev_trace_close(t);
    *half_at = n ? at[n / 2] : 0;
    free(at);
    *out = keys;
    return n;
}

static void test_stream_order_equals_time_order_on_real_traces(void **state)
{
    (void)state;
    const char *names[] = {"wks-bgc", "svr-bgc", "wks-full", "svr-gc-collect", "svr-datas-gc-verbose",
                           "smallbuf"};
    const char *dir = getenv("GCEV_TEST_DATA");
    assert_non_null(dir);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/traces/%s.nettrace", dir, names[i]);
        size_t size;
        uint8_t *data = (uint8_t *)testutil_read_file(path, &size);
        assert_non_null(data);
        ev_key *a, *b;
        size_t ha, hb;
        size_t na = read_keys(data, size, GCEV_TRACE_ORDER_TIME, &a, &ha);
        size_t nb = read_keys(data, size, GCEV_TRACE_ORDER_STREAM, &b, &hb);
        if (na != nb) {
            fail_msg("%s: %zu events in time order, %zu in stream order", names[i], na, nb);
        }
        size_t differ = 0;
        for (size_t k = 0; k < na; k++) {
            if (a[k].ts != b[k].ts || a[k].thread != b[k].thread || a[k].id != b[k].id ||
                a[k].size != b[k].size || a[k].sum != b[k].sum) {
                if (!differ) {
                    fprintf(stderr, "%s: first difference at event %zu (ts %lld vs %lld)\n", names[i], k,
                            (long long)a[k].ts, (long long)b[k].ts);
                }
                differ++;
            }
        }
        if (differ) {
            fail_msg("%s: %zu of %zu events in another place", names[i], differ, na);
        }
        int64_t prev = INT64_MIN;
        for (size_t k = 0; k < nb; k++) {
            assert_true(b[k].ts >= prev);
            prev = b[k].ts;
        }
        /* time order waits for the sequence point these files have at their end only; stream
         * order releases at each flush's marks (a short capture is one flush at the exit) */
        printf("%s: %zu events, the same in stream and time order; half of them returned after %zu of %zu "
               "bytes (time order: %zu)\n",
               names[i], na, hb, size, ha);
        free(a);
        free(b);
        free(data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reorder_releases_up_to_the_watermark_in_time_order),
        cmocka_unit_test(test_reorder_copies_bytes_and_bounds_what_it_holds),
        cmocka_unit_test(test_stream_order_equals_time_order_on_real_traces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
