/* SPDX-License-Identifier: MIT */
/*
 * gcev_trace_options.no_stacks: a walk with the option returns the events of the walk without
 * it, member by member, but each with no stack (NULL, size 0); it ends with the same status,
 * error code and offset, the same dropped events and keep-going ranges; the lean walk's full
 * records have no stack either. Held on the EventPipe samples of every version (stacks inline
 * in V1-V4, in stack blocks in V5/V6), file and timestamp order, with keep-going and without;
 * on every byte of the V3/V5/V6 samples flipped and every cut; on stacks that pass the
 * block-size limit between sequence points; on an ETL stack item; and, with ../shared, on the
 * corpus traces.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>
#include <gcev/gcev_writer.h>

#include "etl_builder.h"
#include "filter_check.h"
#include "testutil.h"
#include "trace_sample.h"

typedef struct input {
    const uint8_t *data; /* NULL: path */
    size_t size;
    const char *path;
} input;

static gcev_status open_input(const input *in, const gcev_trace_options *o, gcev_trace **t)
{
    return in->data ? gcev_trace_open_memory(in->data, in->size, o, t, NULL)
                    : gcev_trace_open_file(in->path, o, t, NULL);
}

static void messages_equal(const char *a, const char *b)
{
    if (a || b) {
        assert_non_null(a);
        assert_non_null(b);
        assert_string_equal(a, b);
    }
}

/* What the two walks tell besides their events: the end, dropped events, skipped ranges. */
static void walk_ends_equal(gcev_trace *a, const gcev_error *ea, gcev_trace *b, const gcev_error *eb)
{
    assert_int_equal(ea->code, eb->code);
    assert_int_equal(ea->offset, eb->offset);
    messages_equal(ea->message, eb->message);
    assert_int_equal(gcev_trace_dropped_events(a), gcev_trace_dropped_events(b));
    assert_int_equal(gcev_trace_skip_count(a), gcev_trace_skip_count(b));
    for (size_t i = 0; i < gcev_trace_skip_count(a); i++) {
        const gcev_trace_skip *x = gcev_trace_skip_at(a, i), *y = gcev_trace_skip_at(b, i);
        assert_int_equal(x->offset, y->offset);
        assert_int_equal(x->bytes, y->bytes);
        assert_int_equal(x->status, y->status);
        assert_int_equal(x->fault_offset, y->fault_offset);
        messages_equal(x->message, y->message);
    }
}

/*
 * Walks in with and without the option side by side (each trace's views stay valid until its
 * next call) and checks them as the file comment says; returns the events, and those with a
 * stack in the walk without the option through *with_stack. An input neither opens is 0 events.
 */
static size_t check_pair(const input *in, uint32_t order, uint32_t keep_going, uint32_t max_block,
                         size_t *with_stack)
{
    gcev_trace_options plain = {
        .struct_size = sizeof plain, .order = order, .keep_going = keep_going, .max_block_size = max_block};
    gcev_trace_options bare = plain;
    bare.no_stacks = 1;
    gcev_trace *a, *b;
    gcev_status oa = open_input(in, &plain, &a), ob = open_input(in, &bare, &b);
    assert_int_equal(oa, ob);
    if (oa != GCEV_OK) {
        return 0;
    }
    gcev_trace_event ea, eb;
    gcev_error erra = {0}, errb = {0};
    gcev_status sa, sb;
    size_t n = 0;
    for (;;) {
        sa = gcev_trace_next(a, &ea, &erra);
        sb = gcev_trace_next(b, &eb, &errb);
        assert_int_equal(sa, sb);
        if (sa != GCEV_OK) {
            break;
        }
        n++;
        if (ea.stack) {
            (*with_stack)++;
        }
        assert_null(eb.stack);
        assert_int_equal(eb.stack_size, 0);
        ea.stack = NULL;
        ea.stack_size = 0;
        check_events_equal(&ea, &eb);
    }
    walk_ends_equal(a, &erra, b, &errb);
    gcev_trace_close(a);
    gcev_trace_close(b);
    return n;
}

/* The lean walk with the option: the same events, and no stack in the records it gives. */
static size_t check_lean(const input *in, uint32_t keep_going)
{
    gcev_trace_options bare = {.struct_size = sizeof bare, .keep_going = keep_going, .no_stacks = 1};
    gcev_trace *t;
    if (open_input(in, &bare, &t) != GCEV_OK) {
        return 0;
    }
    gcev_trace_lean evs[7];
    evs[0].struct_size = sizeof evs[0];
    size_t k, n = 0;
    gcev_error err = {0};
    while (gcev_trace_next_lean_batch(t, evs, sizeof evs / sizeof evs[0], &k, &err) == GCEV_OK) {
        n += k;
        const gcev_trace_event *full = gcev_trace_lean_event(t);
        assert_non_null(full);
        assert_null(full->stack);
        assert_int_equal(full->stack_size, 0);
        assert_int_equal(full->timestamp, evs[k - 1].timestamp);
    }
    gcev_trace_close(t);
    return n;
}

/* Both orders, without keep-going and (kg_too) with it; the events of the file-order walk. */
static size_t check_all_ways(const input *in, uint32_t max_block, size_t *with_stack, uint32_t kg_too)
{
    size_t n = 0, ws = 0;
    for (uint32_t kg = 0; kg <= kg_too; kg++) {
        for (uint32_t order = GCEV_TRACE_ORDER_FILE; order <= GCEV_TRACE_ORDER_TIME; order++) {
            size_t w = 0;
            size_t got = check_pair(in, order, kg, max_block, &w);
            if (kg == 0 && order == GCEV_TRACE_ORDER_FILE) {
                n = got;
                ws = w;
            } else if (kg == 0) {
                assert_int_equal(got, n); /* the same events, another order */
                assert_int_equal(w, ws);
            }
        }
    }
    if (max_block == 0) {
        size_t lean = check_lean(in, 0);
        assert_int_equal(lean, n);
        if (kg_too) {
            (void)check_lean(in, 1);
        }
    }
    if (with_stack) {
        *with_stack = ws;
    }
    return n;
}

static const uint32_t versions[][2] = {{1, 0}, {2, 0}, {3, 0}, {4, 1}, {4, 0},
                                       {5, 1}, {5, 0}, {6, 1}, {6, 0}};

/* The sample's GCStart with a stack, and five events without one, in every version. */
static void test_no_stacks_every_eventpipe_version(void **state)
{
    (void)state;
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        size_t size, ws;
        uint8_t *data = sample_trace(versions[v][0], (int)versions[v][1], &size);
        assert_non_null(data);
        input in = {data, size, NULL};
        assert_int_equal(check_all_ways(&in, 0, &ws, 1), SAMPLE_EVENTS);
        assert_int_equal(ws, 1);
        free(data);
    }
}

/* Every byte flipped and every cut of the samples with stacks inline (V3) and in stack blocks
 * (V5, V6): the same events, faults, offsets and skipped ranges. */
static void test_no_stacks_damage_reads_as_without(void **state)
{
    (void)state;
    static const uint32_t damaged[][2] = {{3, 0}, {5, 1}, {5, 0}, {6, 1}, {6, 0}};
    for (size_t v = 0; v < sizeof damaged / sizeof damaged[0]; v++) {
        size_t size;
        uint8_t *data = sample_trace(damaged[v][0], (int)damaged[v][1], &size);
        assert_non_null(data);
        uint8_t *copy = malloc(size);
        assert_non_null(copy);
        for (size_t i = 0; i < size; i++) {
            static const uint8_t flips[] = {0x01, 0x80, 0xff};
            for (size_t f = 0; f < sizeof flips; f++) {
                memcpy(copy, data, size);
                copy[i] ^= flips[f];
                input in = {copy, size, NULL};
                for (uint32_t kg = 0; kg <= 1; kg++) {
                    size_t ws = 0;
                    (void)check_pair(&in, GCEV_TRACE_ORDER_FILE, kg, 0, &ws);
                }
            }
            input cut = {data, i, NULL};
            size_t ws = 0;
            (void)check_pair(&cut, GCEV_TRACE_ORDER_FILE, 0, 0, &ws);
            (void)check_pair(&cut, GCEV_TRACE_ORDER_FILE, 1, 0, &ws);
        }
        free(copy);
        free(data);
    }
}

/* 64 events with 64 distinct 128-byte stacks between two sequence points, each stack in its
 * own stack block: 8 KiB of stacks, so a block-size limit of 4 KiB (above every block) is
 * passed by what the stack blocks hold, and the walk ends with GCEV_E_LIMIT at the same
 * stack block with the option as without it. */
static void test_no_stacks_limit_on_kept_stacks_is_the_same(void **state)
{
    (void)state;
    for (uint32_t version = 5; version <= 6; version++) {
        gcev_writer_options o = {version, 1, 8, 4242, 4, 1000000, 50};
        gcev_writer *w;
        assert_int_equal(gcev_writer_create(&o, &w), GCEV_OK);
        gcev_writer_meta gc = {"Microsoft-Windows-DotNETRuntime", 1, 2, 1, 4, 1, "", NULL, 0};
        uint32_t id;
        assert_int_equal(gcev_writer_define(w, &gc, &id), GCEV_OK);
        uint8_t gcp[26] = {8};
        uint8_t stack[128];
        for (int i = 0; i < 64; i++) {
            memset(stack, i + 1, sizeof stack);
            gcev_writer_event e = {id, 11, 11, 0, 1, 100 + i, gcp, sizeof gcp, stack, sizeof stack, {0}};
            assert_int_equal(gcev_writer_write(w, &e), GCEV_OK);
        }
        size_t size;
        uint8_t *data = sample_writer_bytes(w, &size);
        assert_non_null(data);
        input in = {data, size, NULL};
        size_t ws = 0;
        assert_int_equal(check_all_ways(&in, 0, &ws, 1), 64);
        assert_int_equal(ws, 64);
        gcev_trace_options lim = {.struct_size = sizeof lim, .max_block_size = 4096, .no_stacks = 1};
        gcev_trace *t;
        assert_int_equal(gcev_trace_open_memory(data, size, &lim, &t, NULL), GCEV_OK);
        gcev_trace_event ev;
        gcev_error err = {0};
        gcev_status st;
        while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        }
        assert_int_equal(st, GCEV_E_LIMIT);
        assert_non_null(strstr(err.message, "stacks between sequence points"));
        gcev_trace_close(t);
        (void)check_all_ways(&in, 4096, NULL, 1);
        free(data);
    }
}

/* An ETL event with a 64-bit stack item: no stack with the option. */
static void test_no_stacks_etl_stack_item(void **state)
{
    (void)state;
    etlb_logfile lf;
    memset(&lf, 0, sizeof lf);
    lf.pointer_size = 8;
    lf.timestamp = 1000;
    lf.perf_freq = 10000000;
    lf.clock_type = 1;
    lf.processors = 1;
    etlb b;
    etlb_init(&b, 1024);
    etlb_buffer_begin(&b, 0, 0);
    etlb_logfile_header(&b, &lf);
    etlb_buffer_end(&b);
    etlb_buffer_begin(&b, 0, 0);
    uint8_t stack[8 + 3 * 8];
    memset(stack, 7, sizeof stack);
    etlb_ext ext[] = {{6, stack, sizeof stack}}; /* STACK_TRACE64 */
    uint8_t p8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    static const gcev_guid runtime_guid = {
        0xe13c0d23, 0xccbc, 0x4e12, {0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4}};
    etlb_event e = {.header_type = 0x13,
                    .pid = 31,
                    .tid = 32,
                    .ts = 7000,
                    .provider = runtime_guid,
                    .id = 3,
                    .version = 1,
                    .ext = ext,
                    .next = 1,
                    .payload = p8,
                    .payload_size = 2};
    etlb_event_record(&b, &e);
    etlb_event_record(&b, &e);
    etlb_buffer_end(&b);
    input in = {b.data, b.size, NULL};
    size_t ws = 0;
    assert_int_equal(check_all_ways(&in, 0, &ws, 1), 3); /* (the log file header is an event) */
    assert_int_equal(ws, 2);
    etlb_free(&b);
}

/* Every trace of ../shared/corpus, as a file. */
static void test_no_stacks_corpus_traces(void **state)
{
    (void)state;
    const char *shared = testutil_shared_dir();
    if (!shared) {
        skip();
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/corpus", shared);
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t files = 0, events = 0, with_stack = 0;
    const struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        size_t len = strlen(name);
        int trace = (len > 9 && strcmp(name + len - 9, ".nettrace") == 0) ||
                    (len > 8 && strcmp(name + len - 8, ".netperf") == 0) ||
                    (len > 4 && strcmp(name + len - 4, ".etl") == 0);
#ifdef GCEV_TEST_LIBZIP
        trace = trace || (len > 10 && strcmp(name + len - 10, ".trace.zip") == 0);
#endif
        if (!trace) {
            continue;
        }
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        input in = {NULL, 0, path};
        size_t ws = 0;
        events += check_all_ways(&in, 0, &ws, 0); /* (undamaged: keep-going would read the same) */
        with_stack += ws;
        files++;
    }
    closedir(d);
    assert_true(files >= 8);
    assert_true(events > 0);
    assert_true(with_stack > 0); /* the corpus has traces with stacks */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_stacks_every_eventpipe_version),
        cmocka_unit_test(test_no_stacks_damage_reads_as_without),
        cmocka_unit_test(test_no_stacks_limit_on_kept_stacks_is_the_same),
        cmocka_unit_test(test_no_stacks_etl_stack_item),
        cmocka_unit_test(test_no_stacks_corpus_traces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
