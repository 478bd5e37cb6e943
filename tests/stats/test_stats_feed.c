/* SPDX-License-Identifier: MIT */
/*
 * gcev_stats_feed.c: whole traces fed to the model (written traces, 32-bit ones, sequence
 * gaps, the processes of an ETL file),
 * on synthetic event sequences (stats_sink.h) fed as raw payloads or written into a trace.
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

#include "testutil.h"
#include "stats_sink.h"

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
    per_heap_history(&k, 3.0, TID_GC, vals, sizeof vals, 4);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_pointer_size_4_trace),
        cmocka_unit_test(test_stats_dropped_events_flag_open_gcs),
        cmocka_unit_test(test_stats_processes_of_an_etl_trace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
