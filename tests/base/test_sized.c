/* SPDX-License-Identifier: MIT */
/*
 * The growable structs of doc/ABI.md: a caller's options and input records (leading
 * struct_size) are read only within the caller's bytes, whatever its layout (an older one
 * with fewer members, this one, a later one with more); the records the library fills
 * (gcev_trace_event, gcev_event) are written only within their fixed size, their reserved
 * room zeroed. "Only within" is checked with a guard page right after the caller's bytes:
 * a read or write past them faults.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include <gcev/gcev_session.h>
#include <gcev/gcev_stats.h>

#include "gcev_sized.h"
#include "testutil.h"

/* n bytes that end where an inaccessible page begins; guard_free() releases them. */
static void *guarded(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(mprotect(m + page, page, PROT_NONE), 0);
    memset(m, 0x5a, page);
    return m + page - n;
}

static void guard_free(void *p)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    munmap((void *)((uintptr_t)p & ~(uintptr_t)(page - 1)), 2 * page);
}

/* ---- the mechanism (src/base/gcev_sized.c) on a struct of two layouts ---- */

typedef struct v1_opts { /* a program built against the first release */
    uint32_t struct_size;
    uint32_t a;
    uint64_t b;
} v1_opts;

typedef struct v2_opts { /* the library's own: one member more */
    uint32_t struct_size;
    uint32_t a;
    uint64_t b;
    uint64_t c;
} v2_opts;

static void test_sized_old_layout_reads_its_members_only(void **state)
{
    (void)state;
    v1_opts *old = guarded(sizeof(v1_opts));
    old->struct_size = sizeof *old;
    old->a = 7;
    old->b = 9;
    v2_opts got;
    assert_int_equal(gcev_sized_in(&got, sizeof got, old, sizeof(v1_opts)), GCEV_OK);
    assert_int_equal(got.struct_size, sizeof got);
    assert_int_equal(got.a, 7);
    assert_int_equal(got.b, 9);
    assert_int_equal(got.c, 0); /* not in the caller's layout: its default */
    old->struct_size = 0;       /* 0: the first layout */
    memset(&got, 0xff, sizeof got);
    assert_int_equal(gcev_sized_in(&got, sizeof got, old, sizeof(v1_opts)), GCEV_OK);
    assert_int_equal(got.a, 7);
    assert_int_equal(got.c, 0);
    guard_free(old);
    /* none: every member its default */
    memset(&got, 0xff, sizeof got);
    assert_int_equal(gcev_sized_in(&got, sizeof got, NULL, sizeof(v1_opts)), GCEV_OK);
    assert_int_equal(got.struct_size, sizeof got);
    assert_int_equal(got.a, 0);
    assert_int_equal(got.c, 0);
}

static void test_sized_newer_layout_and_bad_sizes(void **state)
{
    (void)state;
    /* a program built against a later release: 8 bytes more than the library knows */
    unsigned char *buf = guarded(sizeof(v2_opts) + 8);
    memset(buf, 0, sizeof(v2_opts) + 8);
    v2_opts in = {.struct_size = sizeof(v2_opts) + 8, .a = 1, .b = 2, .c = 3};
    memcpy(buf, &in, sizeof in);
    v2_opts got;
    assert_int_equal(gcev_sized_in(&got, sizeof got, buf, sizeof(v1_opts)), GCEV_OK);
    assert_int_equal(got.struct_size, sizeof got);
    assert_int_equal(got.c, 3);
    buf[sizeof(v2_opts) + 7] = 1; /* an option this library does not have, set */
    assert_int_equal(gcev_sized_in(&got, sizeof got, buf, sizeof(v1_opts)), GCEV_E_UNSUPPORTED);
    guard_free(buf);
    for (uint32_t n = 1; n < 4; n++) { /* smaller than struct_size itself */
        v2_opts bad = {.struct_size = n};
        assert_int_equal(gcev_sized_in(&got, sizeof got, &bad, sizeof(v1_opts)), GCEV_E_INVALID_ARG);
    }
}

/* ---- the public structs ---- */

/* The first half of a trace: it ends inside a record. */
static uint8_t *cut_trace(size_t *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/traces/wks-full.nettrace", getenv("GCEV_TEST_DATA"));
    uint8_t *data = (uint8_t *)testutil_read_file(path, n);
    assert_non_null(data);
    *n /= 2;
    return data;
}

/* The status a walk of data ends with, read with opts. */
static gcev_status walk_end(const uint8_t *data, size_t n, const gcev_trace_options *opts, size_t *events)
{
    gcev_trace *t = NULL;
    gcev_error err;
    gcev_status st = gcev_trace_open_memory(data, n, opts, &t, &err);
    if (st != GCEV_OK) {
        return st;
    }
    gcev_trace_event ev;
    *events = 0;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        (*events)++;
    }
    gcev_trace_close(t);
    return st;
}

static void test_trace_options_layouts(void **state)
{
    (void)state;
    size_t n, events_plain, events;
    uint8_t *data = cut_trace(&n);
    gcev_trace_options plain = {.struct_size = sizeof plain};
    gcev_status end_plain = walk_end(data, n, &plain, &events_plain);
    assert_int_not_equal(end_plain, GCEV_END); /* the cut is a fault without keep-going */
    gcev_trace_options kg = {.struct_size = sizeof kg, .keep_going = 1};
    assert_int_equal(walk_end(data, n, &kg, &events), GCEV_END);
    /* a layout without keep_going: the member past struct_size is not read, though set */
    kg.struct_size = (uint32_t)offsetof(gcev_trace_options, keep_going);
    assert_int_equal(walk_end(data, n, &kg, &events), end_plain);
    assert_int_equal(events, events_plain);
    /* that layout at the end of the caller's memory: nothing past it is touched */
    gcev_trace_options *old = guarded(offsetof(gcev_trace_options, keep_going));
    memset(old, 0, offsetof(gcev_trace_options, keep_going));
    old->struct_size = (uint32_t)offsetof(gcev_trace_options, keep_going);
    old->order = GCEV_TRACE_ORDER_TIME;
    assert_int_equal(walk_end(data, n, old, &events), end_plain);
    assert_int_equal(events, events_plain);
    guard_free(old);
    /* a later release's layout: accepted with its extra bytes 0, refused with one set */
    unsigned char *newer = guarded(sizeof(gcev_trace_options) + 4);
    memset(newer, 0, sizeof(gcev_trace_options) + 4);
    gcev_trace_options ko = {.struct_size = sizeof(gcev_trace_options) + 4, .keep_going = 1};
    memcpy(newer, &ko, sizeof ko);
    assert_int_equal(walk_end(data, n, (const gcev_trace_options *)newer, &events), GCEV_END);
    newer[sizeof(gcev_trace_options)] = 1;
    gcev_trace *t = NULL;
    gcev_error err;
    assert_int_equal(gcev_trace_open_memory(data, n, (const gcev_trace_options *)newer, &t, &err),
                     GCEV_E_UNSUPPORTED);
    assert_null(t);
    assert_non_null(strstr(err.message, "gcev_trace_options"));
    guard_free(newer);
    gcev_trace_options tiny = {.struct_size = 2};
    assert_int_equal(gcev_trace_open_memory(data, n, &tiny, &t, &err), GCEV_E_INVALID_ARG);
    free(data);
}

/* GCStart V2 (Count 5, Depth 1) as payload bytes. */
static size_t gc_start_payload(uint8_t *buf, size_t cap)
{
    const gcev_provider *p = gcev_provider_find("Microsoft-Windows-DotNETRuntime");
    gcev_event ev;
    memset(&ev, 0, sizeof ev);
    ev.desc = gcev_event_desc_resolve(p, 1, 2, NULL);
    assert_non_null(ev.desc);
    ev.pointer_size = 8;
    ev.u.gc_start.count = 5;
    ev.u.gc_start.depth = 1;
    size_t n = 0;
    assert_int_equal(gcev_encode(&ev, buf, cap, &n, NULL), GCEV_OK);
    return n;
}

static void test_input_and_event_records(void **state)
{
    (void)state;
    uint8_t payload[64];
    size_t n = gc_start_payload(payload, sizeof payload);
    /* the input at the end of the caller's memory, the event filled in front of a guard */
    gcev_input *in = guarded(sizeof(gcev_input));
    memset(in, 0, sizeof *in);
    in->struct_size = sizeof *in;
    in->provider = gcev_provider_find("Microsoft-Windows-DotNETRuntime");
    in->event_id = 1;
    in->version = 2;
    in->pointer_size = 8;
    in->data = payload;
    in->size = n;
    gcev_event *ev = guarded(sizeof(gcev_event));
    assert_int_equal(gcev_decode(in, ev, NULL), GCEV_OK);
    assert_int_equal(ev->u.gc_start.count, 5);
    for (size_t i = 0; i < sizeof ev->reserved_ / sizeof ev->reserved_[0]; i++) {
        assert_int_equal(ev->reserved_[i], 0); /* the room of later members reads 0 */
    }
    in->struct_size = 0; /* the first layout */
    assert_int_equal(gcev_decode(in, ev, NULL), GCEV_OK);
    in->struct_size = 3;
    gcev_error err;
    assert_int_equal(gcev_decode(in, ev, &err), GCEV_E_INVALID_ARG);
    guard_free(in);
    guard_free(ev);
    /* gcev_union keeps its size whatever the manifest holds */
    assert_int_equal(sizeof(gcev_union), GCEV_UNION_SIZE);
}

static void test_trace_event_written_within_its_size(void **state)
{
    (void)state;
    size_t n;
    uint8_t *data = cut_trace(&n);
    gcev_trace *t = NULL;
    gcev_error err;
    assert_int_equal(gcev_trace_open_memory(data, n, NULL, &t, &err), GCEV_OK);
    /* a buffer larger than the event, patterned: nothing past sizeof changes */
    unsigned char buf[sizeof(gcev_trace_event) + 64];
    memset(buf, 0xa5, sizeof buf);
    gcev_trace_event *ev = (gcev_trace_event *)(void *)buf;
    assert_int_equal(gcev_trace_next(t, ev, &err), GCEV_OK);
    for (size_t i = sizeof *ev; i < sizeof buf; i++) {
        assert_int_equal(buf[i], 0xa5);
    }
    for (size_t i = 0; i < sizeof ev->reserved_ / sizeof ev->reserved_[0]; i++) {
        assert_int_equal(ev->reserved_[i], 0);
    }
    gcev_trace_event *g = guarded(sizeof(gcev_trace_event));
    assert_int_equal(gcev_trace_next(t, g, &err), GCEV_OK);
    guard_free(g);
    gcev_trace_close(t);
    free(data);
}

static void test_stats_options_and_input_layouts(void **state)
{
    (void)state;
    /* a layout without traceevent_compat: the flag past struct_size is not read */
    gcev_stats_options o = {.struct_size = (uint32_t)offsetof(gcev_stats_options, traceevent_compat),
                            .max_processes = 3,
                            .traceevent_compat = 1};
    gcev_stats *s = NULL;
    assert_int_equal(gcev_stats_create(&o, &s), GCEV_OK);
    assert_int_equal(gcev_stats_get_options(s)->traceevent_compat, 0);
    assert_int_equal(gcev_stats_get_options(s)->max_processes, 3);
    assert_int_equal(gcev_stats_get_options(s)->struct_size, sizeof(gcev_stats_options));
    /* a gcev_stats_input of the layout before process_id, in front of a guard page */
    uint8_t payload[64];
    size_t n = gc_start_payload(payload, sizeof payload);
    size_t old_size = offsetof(gcev_stats_input, process_id);
    gcev_stats_input *in = guarded(old_size);
    memset(in, 0, old_size);
    in->struct_size = (uint32_t)old_size;
    in->provider = gcev_provider_find("Microsoft-Windows-DotNETRuntime");
    in->event_id = 1;
    in->version = 2;
    in->pointer_size = 8;
    in->payload = payload;
    in->payload_size = (uint32_t)n;
    in->ms = 1.0;
    in->thread_id = 4;
    assert_int_equal(gcev_stats_add(s, in), GCEV_OK);
    guard_free(in);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    assert_int_equal(gcev_stats_gc_count(s), 1);
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_int_equal(g->number, 5);
    assert_int_equal(g->process_id, 0); /* process_id was not in the caller's layout */
    /* the generations and GCStats are reached through their accessors, and only for s's records */
    assert_non_null(gcev_stats_gc_gen_at(s, g, 0));
    assert_non_null(gcev_stats_gc_gen_at(s, g, GCEV_STATS_GENS - 1));
    assert_null(gcev_stats_gc_gen_at(s, g, GCEV_STATS_GENS));
    gcev_stats_gc copy = *g;
    assert_null(gcev_stats_gc_gen_at(s, &copy, 0));
    const gcev_stats_process *p = gcev_stats_process_at(s, 0);
    assert_non_null(gcev_stats_process_stats(s, p));
    assert_non_null(gcev_stats_process_gen_stats(s, p, 2));
    assert_null(gcev_stats_process_gen_stats(s, p, 3));
    gcev_stats_process pcopy = *p;
    assert_null(gcev_stats_process_stats(s, &pcopy));
    gcev_stats_free(s);
    /* a later release's input with a member set that this library does not know */
    unsigned char newer[sizeof(gcev_stats_input) + 8];
    memset(newer, 0, sizeof newer);
    gcev_stats_input ni = {.struct_size = sizeof newer};
    memcpy(newer, &ni, sizeof ni);
    newer[sizeof(gcev_stats_input)] = 1;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    assert_int_equal(gcev_stats_add(s, (const gcev_stats_input *)(void *)newer), GCEV_E_UNSUPPORTED);
    gcev_stats_free(s);
    gcev_stats_options tiny = {.struct_size = 1};
    assert_int_equal(gcev_stats_create(&tiny, &s), GCEV_E_INVALID_ARG);
    assert_null(s);
}

static void test_session_options_checked_before_attaching(void **state)
{
    (void)state;
    gcev_session *sess = NULL;
    gcev_error err;
    gcev_session_options o = {.struct_size = 2};
    assert_int_equal(gcev_session_open(1, &o, &sess, &err), GCEV_E_INVALID_ARG);
    assert_null(sess);
    gcev_trace_options to = {.struct_size = 3};
    gcev_session_options o2 = {.struct_size = sizeof o2, .trace = &to};
    assert_int_equal(gcev_session_open(1, &o2, &sess, &err), GCEV_E_INVALID_ARG);
    assert_non_null(strstr(err.message, "struct_size"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sized_old_layout_reads_its_members_only),
        cmocka_unit_test(test_sized_newer_layout_and_bad_sizes),
        cmocka_unit_test(test_trace_options_layouts),
        cmocka_unit_test(test_input_and_event_records),
        cmocka_unit_test(test_trace_event_written_within_its_size),
        cmocka_unit_test(test_stats_options_and_input_layouts),
        cmocka_unit_test(test_session_options_checked_before_attaching),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
