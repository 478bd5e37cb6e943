/* SPDX-License-Identifier: MIT */
/*
 * The three LTTng (perfcollect) traces of the shared corpus, read from their
 * .trace.zip in place and from the folder they extract to in the build tree
 * (GCEV_CTF_CORPUS), against corpus/README.md: runtime events, GC
 * events per (provider, id, version), kernel events by name. Every GC event's
 * rebuilt payload decodes exactly (no error, no trailing byte), the events come
 * in timestamp order, and within each process every GCStart_V2 is followed by
 * the GCEnd_V1 and GCHeapStats_V1 of the same GC.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev.h>
#include <gcev/gcev_trace.h>

typedef struct want_row {
    const char *provider; /* after "Microsoft-Windows-" */
    uint16_t id, version;
    uint64_t count;
} want_row;

typedef struct want_named {
    const char *name;
    uint64_t count;
} want_named;

typedef struct got_row {
    char provider[64];
    uint16_t id, version;
    uint64_t count;
} got_row;

typedef struct gc_state {
    uint32_t pid;
    uint32_t open_count; /* Count of the GCStart waiting for its GCEnd, or UINT32_MAX */
    uint32_t ended;      /* GCs ended, waiting for their HeapStats */
} gc_state;

typedef struct tally {
    uint64_t total, runtime, gc, heapstats_94;
    got_row rows[64];
    size_t nrows;
    want_named kernel[8];
    char kernel_names[8][64];
    size_t nkernel;
    gc_state procs[16];
    size_t nprocs;
} tally;

static const char *corpus_dir(void)
{
    const char *d = getenv("GCEV_CTF_CORPUS");
    assert_non_null(d);
    return d;
}

static gc_state *proc(tally *t, uint32_t pid)
{
    for (size_t i = 0; i < t->nprocs; i++) {
        if (t->procs[i].pid == pid) {
            return &t->procs[i];
        }
    }
    assert_true(t->nprocs < 16);
    gc_state *p = &t->procs[t->nprocs++];
    p->pid = pid;
    p->open_count = UINT32_MAX;
    p->ended = 0;
    return p;
}

static void check_gc_event(tally *t, const gcev_trace_event *ev)
{
    gcev_input in = {.struct_size = sizeof in,
                     .provider = ev->provider,
                     .event_id = ev->event_id,
                     .version = ev->version,
                     .pointer_size = ev->pointer_size,
                     .data = ev->payload,
                     .size = ev->payload_size};
    gcev_event d;
    gcev_error err = {0};
    gcev_status st = gcev_decode(&in, &d, &err);
    if (st != GCEV_OK || d.consumed != ev->payload_size) {
        fail_msg("%s id %u v%u at offset %llu: %s, %u of %u bytes", ev->event_name, ev->event_id, ev->version,
                 (unsigned long long)ev->file_offset, err.message ? err.message : "", d.consumed,
                 ev->payload_size);
    }
    if (strcmp(ev->provider_name, "Microsoft-Windows-DotNETRuntime") != 0) {
        return;
    }
    gc_state *p = proc(t, ev->process_id);
    if (ev->event_id == 1 && ev->version == 2) {
        assert_int_equal(p->open_count, UINT32_MAX);
        p->open_count = d.u.gc_start.count;
    } else if (ev->event_id == 2) {
        assert_int_equal(d.u.gc_end.count, p->open_count);
        p->open_count = UINT32_MAX;
        p->ended++;
    } else if (ev->event_id == 4) {
        assert_int_equal(p->ended, 1);
        p->ended = 0;
        if (ev->payload_size == 94) {
            t->heapstats_94++;
        }
    }
}

static void count_path(const char *path, tally *t);

/* Both inputs: the .trace.zip as it is, and the extracted folder; they must agree. */
static void count_trace(const char *name, tally *t)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", corpus_dir(), name);
    count_path(path, t);
    const char *shared = getenv("GCEV_SHARED_DIR");
    assert_non_null(shared);
    snprintf(path, sizeof path, "%s/corpus/%s.trace.zip", shared, name);
    tally *z = malloc(sizeof *z);
    assert_non_null(z);
    count_path(path, z);
    assert_int_equal(z->total, t->total);
    assert_int_equal(z->runtime, t->runtime);
    assert_int_equal(z->gc, t->gc);
    assert_int_equal(z->nrows, t->nrows);
    assert_memory_equal(z->rows, t->rows, sizeof t->rows);
    assert_int_equal(z->nkernel, t->nkernel);
    free(z);
}

static void count_path(const char *path, tally *t)
{
    memset(t, 0, sizeof *t);
    const char *name = path;
    gcev_trace *tr;
    gcev_error err = {0};
    gcev_status st = gcev_trace_open_file(path, NULL, &tr, &err);
    if (st != GCEV_OK) {
        fail_msg("%s: %s", path, err.message);
    }
    assert_int_equal(gcev_trace_get_info(tr)->format, GCEV_FORMAT_CTF);
    assert_int_equal(gcev_trace_get_info(tr)->pointer_size, 8);
    gcev_trace_event ev;
    int64_t last = INT64_MIN;
    while ((st = gcev_trace_next(tr, &ev, &err)) == GCEV_OK) {
        t->total++;
        assert_true(ev.timestamp >= last);
        last = ev.timestamp;
        if (!strncmp(ev.provider_name, "Microsoft-Windows-DotNETRuntime", 31)) {
            t->runtime++;
            if (!ev.no_event_id) {
                t->gc++;
                check_gc_event(t, &ev);
                size_t i = 0;
                while (i < t->nrows && !(t->rows[i].id == ev.event_id && t->rows[i].version == ev.version &&
                                         !strcmp(t->rows[i].provider, ev.provider_name + 18))) {
                    i++;
                }
                if (i == t->nrows) {
                    assert_true(t->nrows < 64);
                    snprintf(t->rows[i].provider, sizeof t->rows[i].provider, "%s", ev.provider_name + 18);
                    t->rows[i].id = ev.event_id;
                    t->rows[i].version = ev.version;
                    t->nrows++;
                }
                t->rows[i].count++;
            } else {
                assert_null(ev.provider);
            }
        } else {
            assert_int_equal(ev.no_event_id, 1);
            size_t i = 0;
            while (i < t->nkernel && strcmp(t->kernel_names[i], ev.event_name)) {
                i++;
            }
            if (i == t->nkernel) {
                assert_true(t->nkernel < 8);
                snprintf(t->kernel_names[i], 64, "%s", ev.event_name);
                t->kernel[i].name = t->kernel_names[i];
                t->nkernel++;
            }
            t->kernel[i].count++;
        }
    }
    if (st != GCEV_END) {
        fail_msg("%s: %s at %llu", name, err.message, (unsigned long long)err.offset);
    }
    gcev_trace_close(tr);
}

static void expect_rows(const tally *t, const want_row *w, size_t n)
{
    assert_int_equal(t->nrows, n);
    for (size_t k = 0; k < n; k++) {
        int found = 0;
        for (size_t i = 0; i < t->nrows; i++) {
            if (t->rows[i].id == w[k].id && t->rows[i].version == w[k].version &&
                !strcmp(t->rows[i].provider, w[k].provider)) {
                if (t->rows[i].count != w[k].count) {
                    fail_msg("%s id %u v%u: %llu, want %llu", w[k].provider, w[k].id, w[k].version,
                             (unsigned long long)t->rows[i].count, (unsigned long long)w[k].count);
                }
                found = 1;
            }
        }
        if (!found) {
            fail_msg("%s id %u v%u: none, want %llu", w[k].provider, w[k].id, w[k].version,
                     (unsigned long long)w[k].count);
        }
    }
}

/* corpus/README.md, lttng-clr-only.trace.zip */
static void test_clr_only(void **state)
{
    (void)state;
    static const want_row want[] = {
        {"DotNETRuntime", 1, 2, 11},
        {"DotNETRuntime", 2, 1, 11},
        {"DotNETRuntime", 3, 1, 11},
        {"DotNETRuntime", 4, 1, 11},
        {"DotNETRuntime", 5, 1, 6},
        {"DotNETRuntime", 7, 1, 11},
        {"DotNETRuntime", 8, 1, 11},
        {"DotNETRuntime", 9, 1, 11},
        {"DotNETRuntime", 13, 1, 18},
        {"DotNETRuntime", 14, 1, 18},
        {"DotNETRuntime", 29, 0, 282},
        {"DotNETRuntime", 35, 0, 11},
        {"DotNETRuntime", 200, 0, 22},
        {"DotNETRuntime", 202, 0, 43},
        {"DotNETRuntime", 204, 3, 11},
        {"DotNETRuntime", 205, 2, 11},
        {"DotNETRuntimePrivate", 192, 0, 282},
        {"DotNETRuntimePrivate", 199, 0, 8},
    };
    tally t;
    count_trace("lttng-clr-only", &t);
    assert_int_equal(t.runtime, 32762);
    assert_int_equal(t.gc, 789);
    assert_int_equal(t.total, 32762); /* the kernel sub-trace has no event */
    expect_rows(&t, want, sizeof want / sizeof want[0]);
    assert_int_equal(t.heapstats_94, 11); /* GCHeapStats_V1: the 94-byte ETW blob */
    assert_int_equal(t.nkernel, 0);
}

/* lttng-netcoreapp22.trace.zip: compact event headers */
static void test_netcoreapp22(void **state)
{
    (void)state;
    static const want_row want[] = {{"DotNETRuntime", 5, 1, 2}, {"DotNETRuntime", 200, 0, 2}};
    tally t;
    count_trace("lttng-netcoreapp22", &t);
    assert_int_equal(t.runtime, 55);
    assert_int_equal(t.gc, 4);
    expect_rows(&t, want, sizeof want / sizeof want[0]);
    assert_int_equal(t.nkernel, 0);
}

/* lttng-kernel-only.trace.zip */
static void test_kernel_only(void **state)
{
    (void)state;
    tally t;
    count_trace("lttng-kernel-only", &t);
    assert_int_equal(t.runtime, 0);
    assert_int_equal(t.total, 109);
    assert_int_equal(t.nkernel, 2);
    for (size_t i = 0; i < t.nkernel; i++) {
        if (!strcmp(t.kernel[i].name, "sched_process_exec")) {
            assert_int_equal(t.kernel[i].count, 20);
        } else {
            assert_string_equal(t.kernel[i].name, "sched_process_exit");
            assert_int_equal(t.kernel[i].count, 89);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clr_only),
        cmocka_unit_test(test_netcoreapp22),
        cmocka_unit_test(test_kernel_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
