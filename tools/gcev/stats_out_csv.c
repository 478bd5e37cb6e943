/* SPDX-License-Identifier: MIT */
/*
 * gcev stats, CSV: one table, one header. Column `record` says what a row is:
 * "gc" (one per GC), then "gen0", "gen1", "gen2" and "all" (the summaries, in
 * the same columns where the meaning carries over: totals for bytes and times).
 * Empty cell = not in the trace (never 0). Every row carries
 * `trace_dropped_events`, so a loss is visible to any consumer of the table.
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
enum { NCOLS = sizeof columns / sizeof columns[0], NHEAP = 5, NSUM = 10 };

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
    fputc('\n', f);
}

static void print_gc(FILE *f, const gcev_stats_gc *g, uint64_t dropped)
{
    uint64_t p = g->present;
    fputs("gc", f);
    c_u64(f, 1, g->number);
    c_u64(f, (p & GCEV_STATS_GC_HAS_GENERATION) != 0, g->generation);
    c_str(f, (p & GCEV_STATS_GC_HAS_TYPE) ? gcev_stats_gc_type_name(g->type) : NULL);
    c_u64(f, (p & GCEV_STATS_GC_HAS_REASON) != 0, g->reason);
    c_str(f, (p & GCEV_STATS_GC_HAS_REASON) ? gcev_gc_reason_map_name(g->reason) : NULL);
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
    fputc('\n', f);
}

/* Columns between "duration_ms" and the end of the per-GC block, for summary rows. */
static void print_generation(FILE *f, unsigned i, const gcev_stats_gen_summary *g, uint64_t dropped)
{
    fprintf(f, "gen%u,,%u", i, i);
    c_empty(f, 7);                                      /* type .. end_ms */
    c_ms(f, g->count > 0, g->duration_total_ms);        /* duration_ms: total */
    c_empty(f, 1);                                      /* suspension_ms */
    c_ms(f, g->pause_count > 0, g->pause_total_ms);     /* pause_ms: total */
    c_empty(f, 1);                                      /* suspensions */
    c_u64(f, g->promoted_count > 0, g->promoted_bytes); /* promoted_bytes: total */
    c_empty(f, (int)NCOLS - 15 + GCEV_STATS_GENS * NHEAP + GCEV_STATS_ROOT_KINDS * 2);
    c_u64(f, 1, g->count);
    c_u64(f, 1, g->background);
    c_u64(f, 1, g->foreground);
    c_ms(f, g->pause_count > 0, g->pause_mean_ms);
    c_ms(f, g->pause_count > 0, g->pause_max_ms);
    c_empty(f, 4);
    c_u64(f, 1, dropped);
    fputc('\n', f);
}

static void print_all(FILE *f, const gcev_stats *st)
{
    const gcev_stats_summary *s = gcev_stats_get_summary(st);
    int dur = (s->present & GCEV_STATS_SUM_HAS_DURATION) != 0;
    int pause = (s->present & GCEV_STATS_SUM_HAS_PAUSE) != 0;
    int alloc = (s->present & GCEV_STATS_SUM_HAS_ALLOCATION) != 0;
    double gc_ms = 0;
    uint64_t bg = 0, fg = 0;
    for (unsigned i = 0; i < 3; i++) {
        gc_ms += gcev_stats_generation(st, i)->duration_total_ms;
        bg += gcev_stats_generation(st, i)->background;
        fg += gcev_stats_generation(st, i)->foreground;
    }
    fputs("all", f);
    c_empty(f, 9);     /* number .. end_ms */
    c_ms(f, 1, gc_ms); /* duration_ms: total of GCs */
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
    fputc('\n', f);
}

void stats_print_csv(FILE *f, const stats_report *r)
{
    uint64_t dropped = gcev_stats_get_summary(r->s)->dropped_events;
    print_header(f);
    for (size_t i = 0; i < gcev_stats_gc_count(r->s); i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        if (stats_selected(r, g)) {
            print_gc(f, g, dropped);
        }
    }
    if (r->one_gc) {
        return;
    }
    for (unsigned i = 0; i < 3; i++) {
        print_generation(f, i, gcev_stats_generation(r->s, i), dropped);
    }
    print_all(f, r->s);
}
