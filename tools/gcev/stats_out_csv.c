/* SPDX-License-Identifier: MIT */
/*
 * gcev stats, CSV: one table, one header. Column `record` says what a row is:
 * "gc" (one per GC), then "gen0", "gen1", "gen2" and "all" (the summaries, in
 * the same columns where the meaning carries over: totals for bytes and times).
 * Empty cell = not in the trace (never 0). Every row carries
 * `trace_dropped_events` and `trace_complete`, so a loss is visible to any consumer
 * of the table. Columns are only ever added at the end (CHANGELOG.md).
 */
#include <stddef.h>
#include <string.h>

#include "stats_out.h"

static const char *const columns[] = {
    "record",
    "number",
    "generation",
    "type",
    "reason",
    "reason_name",
    "nested_in",
    "thread_id",
    "start_ms",
    "end_ms",
    "duration_ms",
    "suspension_ms",
    "pause_ms",
    "suspensions",
    "promoted_bytes",
    "allocated_bytes",
    "pinned_objects",
    "pin_events",
    "pinned_bytes",
    "finalization_promoted_count",
    "condemn_reasons0",
    "condemn_reasons1",
    "global_mechanisms",
    "heap_count",
    "incomplete",
    "loh_compact_heaps",
    "loh_time_plan_us",
    "loh_time_compact_us",
    "loh_time_relocate_us",
    /* then <gen>_{size_before,size_after,frag_before,frag_after,promoted} and
     * mark_<Kind>_{ms,bytes}, then the summary columns */
};
static const char *const heap_cols[] = {"size_before", "size_after", "frag_before", "frag_after", "promoted"};
static const char *const summary_cols[] = {
    "count",         "background",  "foreground",       "pause_mean_ms",     "pause_max_ms",
    "pause_percent", "gcs_per_sec", "alloc_mb_per_sec", "trace_duration_ms", "trace_dropped_events"};
/* Added with TraceEvent's metrics: per-GC columns (empty on summary rows), then per generation. */
static const char *const more_cols[] = {
    "process_id",
    "complete",
    "label",
    "pause_start_ms",
    "since_last_restart_ms",
    "pause_time_percent",
    "heap_size_before",
    "heap_size_after",
    "heap_size_peak",
    "ratio_peak_after",
    "allocated_since_last_gc",
    "alloc_rate_mb_per_sec",
    "alloc_tick_soh",
    "alloc_tick_loh",
    "alloc_tick_poh",
    "final_youngest_desired",
    "condemned_generation",
    "gen0_reduction_count",
    "global_reason",
    "compacting",
    "pause_mode",
    "memory_pressure",
    "global_condemn_reasons0",
    "global_condemn_reasons1",
    "condemned_reasons",
    "highest_condemned_heap",
    "low_ephemeral",
    /* then phase_<name>_us for each GCGlobalHeapHistory phase */
};
static const char *const more_cols2[] = {
    "generation_count",
    "finalization_promoted_size",
    "sink_block_count",
    "gc_handle_count",
    "bgc_final_pause_ms",
    "bgc_phase",
    "committed_before_in_use",
    "committed_after_in_use",
    "datas_heap_count",
    "dynamic_events",
    "pinned_object_sizes",
    "pinned_plug_size",
    "user_pinned_plug_size",
    "pinned_object_percent",
    "free_list_allocated",
    "free_list_consumed",
    "loh_waits",
    "fit_buckets",
    "joins",
    "join_restarts",
    "heaps",
    /* then <gen>_{obj_space_before,...,user_allocated}, then trace_complete */
};
static const char *const more_heap_cols[] = {
    "obj_space_before",      "obj_size_after", "in", "out", "budget", "survival_percent",
    "fragmentation_percent", "user_allocated"};
enum {
    NCOLS = sizeof columns / sizeof columns[0],
    NHEAP = 5,
    NSUM = 10,
    NMORE = sizeof more_cols / sizeof more_cols[0],
    NMORE2 = sizeof more_cols2 / sizeof more_cols2[0],
    NMOREHEAP = sizeof more_heap_cols / sizeof more_heap_cols[0],
    /* every added column but trace_complete */
    NADDED = NMORE + GCEV_STATS_PHASES + NMORE2 + GCEV_STATS_GENS * NMOREHEAP
};

static void c_u64(FILE *f, int has, uint64_t v)
{
    fputc(',', f);
    if (has) {
        fprintf(f, "%llu", (unsigned long long)v);
    }
}

static void c_ms(FILE *f, int has, double v)
{
    fputc(',', f);
    if (has) {
        fprintf(f, "%.3f", v);
    }
}

static void c_str(FILE *f, const char *s)
{
    fputc(',', f);
    if (s) {
        fputs(s, f); /* our names have no commas or quotes */
    }
}

static void c_f(FILE *f, int has, double v)
{
    fputc(',', f);
    if (has) {
        fprintf(f, "%.10g", v);
    }
}

static void c_i64(FILE *f, int has, int64_t v)
{
    fputc(',', f);
    if (has) {
        fprintf(f, "%lld", (long long)v);
    }
}

static void c_bool(FILE *f, int has, int v)
{
    c_str(f, has ? (v ? "true" : "false") : NULL);
}

static void c_empty(FILE *f, int n)
{
    for (int i = 0; i < n; i++) {
        fputc(',', f);
    }
}

static void print_header(FILE *f)
{
    for (size_t i = 0; i < NCOLS; i++) {
        fprintf(f, "%s%s", i ? "," : "", columns[i]);
    }
    for (unsigned g = 0; g < GCEV_STATS_GENS; g++) {
        for (int k = 0; k < NHEAP; k++) {
            fprintf(f, ",%s_%s", gcev_stats_gen_name(g), heap_cols[k]);
        }
    }
    for (unsigned k = 0; k < GCEV_STATS_ROOT_KINDS; k++) {
        fprintf(f, ",mark_%s_ms,mark_%s_bytes", gcev_gc_root_kind_map_name(k), gcev_gc_root_kind_map_name(k));
    }
    for (int i = 0; i < NSUM; i++) {
        fprintf(f, ",%s", summary_cols[i]);
    }
    for (size_t i = 0; i < NMORE; i++) {
        fprintf(f, ",%s", more_cols[i]);
    }
    for (unsigned i = 0; i < GCEV_STATS_PHASES; i++) {
        fprintf(f, ",phase_%s_us", gcev_stats_phase_name(i));
    }
    for (size_t i = 0; i < NMORE2; i++) {
        fprintf(f, ",%s", more_cols2[i]);
    }
    for (unsigned g = 0; g < GCEV_STATS_GENS; g++) {
        for (size_t k = 0; k < NMOREHEAP; k++) {
            fprintf(f, ",%s_%s", gcev_stats_gen_name(g), more_heap_cols[k]);
        }
    }
    fputs(",trace_complete\n", f);
}

/* The added columns of a GC row (the order of more_cols, phases, more_cols2, per generation). */
static void print_gc_more(FILE *f, const gcev_stats_gc *g)
{
    uint64_t p = g->present;
    char label[16];
    gcev_stats_gc_label(g, label, sizeof label);
    c_u64(f, 1, g->process_id);
    c_bool(f, 1, (g->flags & GCEV_STATS_GC_COMPLETE) != 0);
    c_str(f, label);
    c_ms(f, (p & GCEV_STATS_GC_HAS_PAUSE_START) != 0, g->pause_start_ms);
    c_ms(f, (p & GCEV_STATS_GC_HAS_SINCE_RESTART) != 0, g->since_last_restart_ms);
    c_f(f, (p & GCEV_STATS_GC_HAS_PAUSE_PERCENT) != 0, g->pause_time_percent);
    c_u64(f, (p & GCEV_STATS_GC_HAS_SIZE_BEFORE) != 0, g->heap_size_before);
    c_u64(f, (p & GCEV_STATS_GC_HAS_SIZE_AFTER) != 0, g->heap_size_after);
    c_u64(f, (p & GCEV_STATS_GC_HAS_SIZE_PEAK) != 0, g->heap_size_peak);
    c_f(f, (p & GCEV_STATS_GC_HAS_RATIO_PEAK_AFTER) != 0, g->ratio_peak_after);
    c_i64(f, (p & GCEV_STATS_GC_HAS_ALLOCATED_SINCE) != 0, g->allocated_since_last_gc);
    c_f(f, (p & GCEV_STATS_GC_HAS_ALLOC_RATE) != 0, g->alloc_rate_mb_per_sec);
    for (int k = 0; k < 3; k++) {
        c_u64(f, (p & GCEV_STATS_GC_HAS_ALLOC_TICKS) != 0, g->alloc_tick_bytes[k]);
    }
    int gh = (p & GCEV_STATS_GC_HAS_GLOBAL_HISTORY) != 0;
    c_u64(f, gh, g->final_youngest_desired);
    c_u64(f, gh, g->condemned_generation);
    c_u64(f, gh, g->gen0_reduction_count);
    c_u64(f, gh, g->global_reason);
    c_bool(f, (p & GCEV_STATS_GC_HAS_MECHANISMS) != 0, (g->global_mechanisms & 2) != 0);
    c_u64(f, (p & GCEV_STATS_GC_HAS_PAUSE_MODE) != 0, g->pause_mode);
    c_u64(f, (p & GCEV_STATS_GC_HAS_PAUSE_MODE) != 0, g->memory_pressure);
    c_u64(f, (p & GCEV_STATS_GC_HAS_GLOBAL_CONDEMN) != 0, g->global_condemn_reasons0);
    c_u64(f, (p & GCEV_STATS_GC_HAS_GLOBAL_CONDEMN) != 0, g->global_condemn_reasons1);
    fputc(',', f);
    if (p & GCEV_STATS_GC_HAS_CONDEMNED) { /* group names joined by '|' */
        for (unsigned i = 0, n = 0; i < GCEV_STATS_CONDEMNED_GROUPS; i++) {
            if (g->condemned_reasons & (1u << i)) {
                fprintf(f, "%s%s", n++ ? "|" : "", gcev_stats_condemned_group_name(i));
            }
        }
    }
    c_u64(f, (p & GCEV_STATS_GC_HAS_CONDEMNED) != 0, g->highest_condemned_heap);
    c_bool(f, (p & GCEV_STATS_GC_HAS_CONDEMNED) != 0, g->low_ephemeral);
    for (unsigned i = 0; i < GCEV_STATS_PHASES; i++) {
        c_u64(f, (g->phase_present & (1u << i)) != 0, g->phase_us[i]);
    }
    int hs = (p & GCEV_STATS_GC_HAS_HEAP_STATS) != 0;
    c_u64(f, (p & GCEV_STATS_GC_HAS_GENERATION_COUNT) != 0, g->generation_count);
    c_u64(f, hs, g->finalization_promoted_size);
    c_u64(f, hs, g->sink_block_count);
    c_u64(f, hs, g->gc_handle_count);
    c_ms(f, (p & GCEV_STATS_GC_HAS_BGC_FINAL_PAUSE) != 0, g->bgc_final_pause_ms);
    c_u64(f, (p & GCEV_STATS_GC_HAS_BGC_PHASE) != 0, g->bgc_phase);
    c_u64(f, (p & GCEV_STATS_GC_HAS_COMMITTED_BEFORE) != 0, g->committed_before.in_use);
    c_u64(f, (p & GCEV_STATS_GC_HAS_COMMITTED_AFTER) != 0, g->committed_after.in_use);
    c_u64(f, (p & GCEV_STATS_GC_HAS_DATAS) != 0, g->datas_heap_count);
    c_u64(f, (p & GCEV_STATS_GC_HAS_DYNAMIC) != 0, g->dynamic_events);
    c_u64(f, (p & GCEV_STATS_GC_HAS_PINNED_SIZES) != 0, g->pinned_object_sizes);
    c_u64(f, (p & GCEV_STATS_GC_HAS_PINNED_PLUGS) != 0, g->pinned_plug_size);
    c_u64(f, (p & GCEV_STATS_GC_HAS_PINNED_PLUGS) != 0, g->user_pinned_plug_size);
    c_i64(f, (p & GCEV_STATS_GC_HAS_PINNED_PERCENT) != 0, g->pinned_object_percent);
    c_f(f, (p & GCEV_STATS_GC_HAS_FREE_LIST) != 0, g->free_list_allocated);
    c_f(f, (p & GCEV_STATS_GC_HAS_FREE_LIST) != 0, g->free_list_consumed);
    c_u64(f, 1, g->loh_waits);
    c_u64(f, 1, g->fit_buckets);
    c_u64(f, 1, g->joins);
    c_u64(f, 1, g->join_restarts);
    c_u64(f, 1, g->heaps);
    for (unsigned i = 0; i < GCEV_STATS_GENS; i++) {
        const gcev_stats_gen_heap *h = &g->gens[i];
        int hist = (h->present & GCEV_STATS_HEAP_HAS_HISTORY) != 0;
        c_u64(f, hist, h->obj_space_before);
        c_u64(f, hist, h->obj_size_after);
        c_u64(f, hist, h->in);
        c_u64(f, hist, h->out);
        c_u64(f, hist, h->budget);
        c_f(f, (h->present & GCEV_STATS_HEAP_HAS_SURVIVAL) != 0, h->survival_percent);
        c_f(f, (h->present & GCEV_STATS_HEAP_HAS_FRAG_PERCENT) != 0, h->fragmentation_percent);
        c_i64(f, (h->present & GCEV_STATS_HEAP_HAS_USER_ALLOCATED) != 0, h->user_allocated);
    }
}

static void print_gc(FILE *f, const gcev_stats_gc *g, uint64_t dropped, int complete)
{
    uint64_t p = g->present;
    fputs("gc", f);
    c_u64(f, 1, g->number);
    c_u64(f, (p & GCEV_STATS_GC_HAS_GENERATION) != 0, g->generation);
    c_str(f, (p & GCEV_STATS_GC_HAS_TYPE) ? gcev_stats_gc_type_name(g->type) : NULL);
    c_u64(f, (p & GCEV_STATS_GC_HAS_REASON) != 0, g->reason);
    c_str(f, (p & GCEV_STATS_GC_HAS_REASON) ? gcev_gc_reason_name(g->reason) : NULL);
    c_u64(f, (p & GCEV_STATS_GC_HAS_NESTED_IN) != 0, g->nested_in);
    c_u64(f, 1, g->thread_id);
    c_ms(f, 1, g->start_ms);
    c_ms(f, (p & GCEV_STATS_GC_HAS_END) != 0, g->end_ms);
    c_ms(f, (p & GCEV_STATS_GC_HAS_END) != 0, g->duration_ms);
    c_ms(f, (p & GCEV_STATS_GC_HAS_SUSPENSION) != 0, g->suspension_ms);
    c_ms(f, (p & GCEV_STATS_GC_HAS_PAUSE) != 0, g->pause_ms);
    c_u64(f, (p & GCEV_STATS_GC_HAS_PAUSE) != 0, g->suspensions);
    c_u64(f, (p & GCEV_STATS_GC_HAS_PROMOTED) != 0, g->promoted_bytes);
    c_u64(f, (p & GCEV_STATS_GC_HAS_ALLOCATED) != 0, g->allocated_bytes);
    c_u64(f, (p & GCEV_STATS_GC_HAS_PINNED_OBJECTS) != 0, g->pinned_objects);
    c_u64(f, (p & GCEV_STATS_GC_HAS_PINNED_EVENTS) != 0, g->pinned_events);
    c_u64(f, (p & GCEV_STATS_GC_HAS_PINNED_EVENTS) != 0, g->pinned_bytes);
    c_u64(f, (p & GCEV_STATS_GC_HAS_FINALIZATION) != 0, g->finalization_promoted_count);
    c_u64(f, (p & GCEV_STATS_GC_HAS_CONDEMN_REASONS) != 0, g->condemn_reasons0);
    c_u64(f, (p & GCEV_STATS_GC_HAS_CONDEMN_REASONS) != 0, g->condemn_reasons1);
    c_u64(f, (p & GCEV_STATS_GC_HAS_MECHANISMS) != 0, g->global_mechanisms);
    c_u64(f, (p & GCEV_STATS_GC_HAS_HEAP_COUNT) != 0, (uint64_t)g->heap_count);
    c_u64(f, 1, (g->flags & GCEV_STATS_GC_INCOMPLETE) ? 1 : 0);
    int loh = (p & GCEV_STATS_GC_HAS_LOH_COMPACT) != 0;
    c_u64(f, loh, g->loh_compact_heaps);
    c_u64(f, loh, g->loh_compact_time_plan);
    c_u64(f, loh, g->loh_compact_time_compact);
    c_u64(f, loh, g->loh_compact_time_relocate);
    for (unsigned i = 0; i < GCEV_STATS_GENS; i++) {
        const gcev_stats_gen_heap *h = &g->gens[i];
        c_u64(f, (h->present & GCEV_STATS_HEAP_HAS_SIZE_BEFORE) != 0, h->size_before);
        c_u64(f, (h->present & GCEV_STATS_HEAP_HAS_SIZE_AFTER) != 0, h->size_after);
        c_u64(f, (h->present & GCEV_STATS_HEAP_HAS_FRAG_BEFORE) != 0, h->frag_before);
        c_u64(f, (h->present & GCEV_STATS_HEAP_HAS_FRAG_AFTER) != 0, h->frag_after);
        c_u64(f, (h->present & GCEV_STATS_HEAP_HAS_PROMOTED) != 0, h->promoted);
    }
    for (unsigned k = 0; k < GCEV_STATS_ROOT_KINDS; k++) {
        c_ms(f, g->marks[k].present, g->marks[k].ms);
        c_u64(f, g->marks[k].present, g->marks[k].bytes);
    }
    c_empty(f, NSUM - 1);
    c_u64(f, 1, dropped);
    print_gc_more(f, g);
    c_bool(f, 1, complete);
    fputc('\n', f);
}

/* Columns between "duration_ms" and the end of the per-GC block, for summary rows. */
static void print_generation(FILE *f, unsigned i, const gcev_stats_gen_summary *g, uint64_t dropped,
                             int complete)
{
    fprintf(f, "gen%u,,%u", i, i);
    c_empty(f, 7);                                        /* type .. end_ms */
    c_ms(f, g->duration_count > 0, g->duration_total_ms); /* duration_ms: total */
    c_empty(f, 1);                                        /* suspension_ms */
    c_ms(f, g->pause_count > 0, g->pause_total_ms);       /* pause_ms: total */
    c_empty(f, 1);                                        /* suspensions */
    c_u64(f, g->promoted_count > 0, g->promoted_bytes);   /* promoted_bytes: total */
    c_empty(f, (int)NCOLS - 15 + GCEV_STATS_GENS * NHEAP + GCEV_STATS_ROOT_KINDS * 2);
    c_u64(f, 1, g->count);
    c_u64(f, 1, g->background);
    c_u64(f, 1, g->foreground);
    c_ms(f, g->pause_count > 0, g->pause_mean_ms);
    c_ms(f, g->pause_count > 0, g->pause_max_ms);
    c_empty(f, 4);
    c_u64(f, 1, dropped);
    c_empty(f, NADDED);
    c_bool(f, 1, complete);
    fputc('\n', f);
}

static void print_all(FILE *f, const gcev_stats *st, int complete)
{
    const gcev_stats_summary *s = gcev_stats_get_summary(st);
    int dur = (s->present & GCEV_STATS_SUM_HAS_DURATION) != 0;
    int pause = (s->present & GCEV_STATS_SUM_HAS_PAUSE) != 0;
    int alloc = (s->present & GCEV_STATS_SUM_HAS_ALLOCATION) != 0;
    double gc_ms = 0;
    uint64_t bg = 0, fg = 0, ended = 0;
    for (unsigned i = 0; i < 3; i++) {
        gc_ms += gcev_stats_generation(st, i)->duration_total_ms;
        ended += gcev_stats_generation(st, i)->duration_count;
        bg += gcev_stats_generation(st, i)->background;
        fg += gcev_stats_generation(st, i)->foreground;
    }
    fputs("all", f);
    c_empty(f, 9);             /* number .. end_ms */
    c_ms(f, ended > 0, gc_ms); /* duration_ms: total of the GCs that ended */
    c_empty(f, 1);
    c_ms(f, pause, s->pause_total_ms);
    c_empty(f, 2);
    c_u64(f, alloc, s->allocated_bytes); /* allocated_bytes */
    c_empty(f, (int)NCOLS - 16 + GCEV_STATS_GENS * NHEAP + GCEV_STATS_ROOT_KINDS * 2);
    c_u64(f, 1, s->gc_count);
    c_u64(f, 1, bg);
    c_u64(f, 1, fg);
    c_empty(f, 1);
    c_ms(f, pause, s->pause_max_ms);
    c_ms(f, pause && dur, s->pause_percent);
    c_ms(f, dur, s->gcs_per_sec);
    c_ms(f, alloc && dur, s->alloc_mb_per_sec);
    c_ms(f, s->events > 0, s->duration_ms);
    c_u64(f, 1, s->dropped_events);
    c_empty(f, NADDED);
    c_bool(f, 1, complete);
    fputc('\n', f);
}

void stats_print_csv(FILE *f, const stats_report *r)
{
    uint64_t dropped = gcev_stats_get_summary(r->s)->dropped_events;
    int complete = stats_complete(r);
    print_header(f);
    for (size_t i = 0; i < gcev_stats_gc_count(r->s); i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        if (stats_selected(r, g)) {
            print_gc(f, g, dropped, complete);
        }
    }
    if (r->one_gc) {
        return;
    }
    for (unsigned i = 0; i < 3; i++) {
        print_generation(f, i, gcev_stats_generation(r->s, i), dropped, complete);
    }
    print_all(f, r->s, complete);
}
