/* SPDX-License-Identifier: MIT */
/*
 * gcev_stats_summary.c: the summaries and their accessors (rates, pause percentiles, processes,
 * generation totals),
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_rates_and_allocation),
        cmocka_unit_test(test_stats_pause_percentiles_and_longest),
        cmocka_unit_test(test_stats_processes_kept_apart),
        cmocka_unit_test(test_stats_generation_whose_gcs_never_ended_has_no_gc_total),
        cmocka_unit_test(test_stats_accessors_null_and_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
