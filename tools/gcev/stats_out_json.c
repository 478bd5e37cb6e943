/* SPDX-License-Identifier: MIT */
/*
 * gcev stats, JSON: {"trace","complete","warnings","events_seen","gcs":[...],
 * "generations":[...],"summary":{...},"segments":{...},"handles":{...}}.
 * A key whose inputs are not in the trace is omitted (never 0, never NaN);
 * byte counts are exact integers, times are milliseconds with 3 decimals.
 * The keys are documented in README.md ("gcev stats") and doc/gcev.1.
 */
#include "cli.h"
#include "cli_trace.h"
#include "stats_out.h"

/* Writes `,"key":` (or `"key":` for the first member of an object). */
typedef struct jobj {
    FILE *f;
    int n;
} jobj;

static void key(jobj *o, const char *k)
{
    fprintf(o->f, "%s\"%s\":", o->n++ ? "," : "", k);
}

static void k_u64(jobj *o, const char *k, int has, uint64_t v)
{
    if (has) {
        key(o, k);
        fprintf(o->f, "%llu", (unsigned long long)v);
    }
}

static void k_ms(jobj *o, const char *k, int has, double v)
{
    if (has) {
        key(o, k);
        fprintf(o->f, "%.3f", v);
    }
}

/* Ratios and rates: ten significant digits. */
static void k_f(jobj *o, const char *k, int has, double v)
{
    if (has) {
        key(o, k);
        fprintf(o->f, "%.10g", v);
    }
}

static void k_i64(jobj *o, const char *k, int has, int64_t v)
{
    if (has) {
        key(o, k);
        fprintf(o->f, "%lld", (long long)v);
    }
}

static void k_bool(jobj *o, const char *k, int has, int v)
{
    if (has) {
        key(o, k);
        fputs(v ? "true" : "false", o->f);
    }
}

static void k_str(jobj *o, const char *k, const char *v)
{
    if (v) {
        key(o, k);
        gcev_cli_json_string(o->f, v);
    }
}

static void print_gc_more(FILE *f, jobj *o, const gcev_stats *s, const gcev_stats_gc *g);

void stats_print_gc_json(FILE *f, const gcev_stats *s, const gcev_stats_gc *g)
{
    uint64_t p = g->present;
    jobj o = {f, 0};
    fputc('{', f);
    k_u64(&o, "number", 1, g->number);
    k_u64(&o, "generation", (p & GCEV_STATS_GC_HAS_GENERATION) != 0, g->generation);
    k_u64(&o, "reason", (p & GCEV_STATS_GC_HAS_REASON) != 0, g->reason);
    if (p & GCEV_STATS_GC_HAS_REASON) {
        k_str(&o, "reason_name", gcev_gc_reason_name(g->reason));
    }
    if (p & GCEV_STATS_GC_HAS_TYPE) {
        k_str(&o, "type", gcev_stats_gc_type_name(g->type));
    }
    k_u64(&o, "nested_in", (p & GCEV_STATS_GC_HAS_NESTED_IN) != 0, g->nested_in);
    k_u64(&o, "thread_id", 1, g->thread_id);
    k_ms(&o, "start_ms", 1, g->start_ms);
    k_ms(&o, "end_ms", (p & GCEV_STATS_GC_HAS_END) != 0, g->end_ms);
    k_ms(&o, "duration_ms", (p & GCEV_STATS_GC_HAS_END) != 0, g->duration_ms);
    k_ms(&o, "suspend_begin_ms", (p & GCEV_STATS_GC_HAS_SUSPENSION) != 0, g->suspend_begin_ms);
    k_ms(&o, "suspension_ms", (p & GCEV_STATS_GC_HAS_SUSPENSION) != 0, g->suspension_ms);
    k_ms(&o, "pause_ms", (p & GCEV_STATS_GC_HAS_PAUSE) != 0, g->pause_ms);
    k_u64(&o, "suspensions", (p & GCEV_STATS_GC_HAS_PAUSE) != 0, g->suspensions);
    k_u64(&o, "promoted_bytes", (p & GCEV_STATS_GC_HAS_PROMOTED) != 0, g->promoted_bytes);
    k_u64(&o, "allocated_bytes", (p & GCEV_STATS_GC_HAS_ALLOCATED) != 0, g->allocated_bytes);
    k_u64(&o, "pinned_objects", (p & GCEV_STATS_GC_HAS_PINNED_OBJECTS) != 0, g->pinned_objects);
    k_u64(&o, "pin_events", (p & GCEV_STATS_GC_HAS_PINNED_EVENTS) != 0, g->pinned_events);
    k_u64(&o, "pinned_bytes", (p & GCEV_STATS_GC_HAS_PINNED_EVENTS) != 0, g->pinned_bytes);
    k_u64(&o, "finalization_promoted_count", (p & GCEV_STATS_GC_HAS_FINALIZATION) != 0,
          g->finalization_promoted_count);
    k_u64(&o, "condemn_reasons0", (p & GCEV_STATS_GC_HAS_CONDEMN_REASONS) != 0, g->condemn_reasons0);
    k_u64(&o, "condemn_reasons1", (p & GCEV_STATS_GC_HAS_CONDEMN_REASONS) != 0, g->condemn_reasons1);
    k_u64(&o, "global_mechanisms", (p & GCEV_STATS_GC_HAS_MECHANISMS) != 0, g->global_mechanisms);
    k_u64(&o, "heap_count", (p & GCEV_STATS_GC_HAS_HEAP_COUNT) != 0, (uint64_t)g->heap_count);
    if (g->flags & GCEV_STATS_GC_INCOMPLETE) {
        key(&o, "incomplete");
        fputs("true", f);
    }
    if (g->flags & GCEV_STATS_GC_SHARED_SUSPENSION) {
        key(&o, "shared_suspension");
        fputs("true", f);
    }
    key(&o, "heap");
    fputc('[', f);
    int first = 1;
    for (unsigned i = 0; i < GCEV_STATS_GENS; i++) {
        const gcev_stats_gen_heap *h = &g->gens[i];
        if (!h->present) {
            continue;
        }
        jobj ho = {f, 0};
        fprintf(f, "%s{", first ? "" : ",");
        first = 0;
        k_str(&ho, "gen", gcev_stats_gen_name(i));
        k_u64(&ho, "size_before", (h->present & GCEV_STATS_HEAP_HAS_SIZE_BEFORE) != 0, h->size_before);
        k_u64(&ho, "size_after", (h->present & GCEV_STATS_HEAP_HAS_SIZE_AFTER) != 0, h->size_after);
        k_u64(&ho, "frag_before", (h->present & GCEV_STATS_HEAP_HAS_FRAG_BEFORE) != 0, h->frag_before);
        k_u64(&ho, "frag_after", (h->present & GCEV_STATS_HEAP_HAS_FRAG_AFTER) != 0, h->frag_after);
        k_u64(&ho, "promoted", (h->present & GCEV_STATS_HEAP_HAS_PROMOTED) != 0, h->promoted);
        int hist = (h->present & GCEV_STATS_HEAP_HAS_HISTORY) != 0;
        k_bool(&ho, "size_before_estimated", (h->present & GCEV_STATS_HEAP_SIZE_BEFORE_ESTIMATED) != 0, 1);
        k_u64(&ho, "obj_space_before", hist, h->obj_space_before);
        k_u64(&ho, "obj_size_after", hist, h->obj_size_after);
        k_u64(&ho, "in", hist, h->in);
        k_u64(&ho, "out", hist, h->out);
        k_u64(&ho, "budget", hist, h->budget);
        k_u64(&ho, "pinned_surv", hist, h->pinned_surv);
        k_u64(&ho, "non_pinned_surv", hist, h->non_pinned_surv);
        k_u64(&ho, "free_list_before", hist, h->free_list_before);
        k_u64(&ho, "free_obj_before", hist, h->free_obj_before);
        k_u64(&ho, "free_list_after", hist, h->free_list_after);
        k_u64(&ho, "free_obj_after", hist, h->free_obj_after);
        k_f(&ho, "survival_percent", (h->present & GCEV_STATS_HEAP_HAS_SURVIVAL) != 0, h->survival_percent);
        k_f(&ho, "fragmentation_percent", (h->present & GCEV_STATS_HEAP_HAS_FRAG_PERCENT) != 0,
            h->fragmentation_percent);
        k_i64(&ho, "user_allocated", (h->present & GCEV_STATS_HEAP_HAS_USER_ALLOCATED) != 0,
              h->user_allocated);
        fputc('}', f);
    }
    fputc(']', f);
    if (p & GCEV_STATS_GC_HAS_MARKS) {
        key(&o, "marks");
        jobj mo = {f, 0};
        fputc('{', f);
        for (unsigned k = 0; k < GCEV_STATS_ROOT_KINDS; k++) {
            if (g->marks[k].present) {
                key(&mo, gcev_gc_root_kind_map_name(k));
                fprintf(f, "{\"ms\":%.3f,\"bytes\":%llu}", g->marks[k].ms,
                        (unsigned long long)g->marks[k].bytes);
            }
        }
        fputc('}', f);
    }
    if (p & GCEV_STATS_GC_HAS_LOH_COMPACT) {
        key(&o, "loh_compact");
        fprintf(f,
                "{\"heaps\":%u,\"time_plan_us\":%llu,\"time_compact_us\":%llu,"
                "\"time_relocate_us\":%llu,\"total_refs\":%llu,\"zero_refs\":%llu}",
                g->loh_compact_heaps, (unsigned long long)g->loh_compact_time_plan,
                (unsigned long long)g->loh_compact_time_compact,
                (unsigned long long)g->loh_compact_time_relocate,
                (unsigned long long)g->loh_compact_total_refs, (unsigned long long)g->loh_compact_zero_refs);
    }
    print_gc_more(f, &o, s, g);
    fputc('}', f);
}

static void committed(jobj *o, const char *k, int has, const gcev_stats_committed *c)
{
    if (!has) {
        return;
    }
    key(o, k);
    fprintf(o->f,
            "{\"version\":%u,\"in_use\":%llu,\"in_global_decommit\":%llu,\"in_free\":%llu,"
            "\"in_global_free\":%llu,\"bookkeeping\":%llu}",
            c->version, (unsigned long long)c->in_use, (unsigned long long)c->in_global_decommit,
            (unsigned long long)c->in_free, (unsigned long long)c->in_global_free,
            (unsigned long long)c->bookkeeping);
}

/* {"Name":value,...} of the non-zero condemned-reason groups. */
static void groups(jobj *o, const char *k, const uint8_t *grp)
{
    key(o, k);
    jobj go = {o->f, 0};
    fputc('{', o->f);
    for (unsigned i = 0; i < GCEV_STATS_CONDEMNED_GROUPS; i++) {
        if (grp[i]) {
            key(&go, gcev_stats_condemned_group_name(i));
            fprintf(o->f, "%u", grp[i]);
        }
    }
    fputc('}', o->f);
}

/* "phases_us":{"mark_root":N,...}: GCGlobalHeapHistory_V4's phase times. */
static void phases(jobj *o, const gcev_stats_gc *g)
{
    if (!(g->present & GCEV_STATS_GC_HAS_PHASES)) {
        return;
    }
    key(o, "phases_us");
    jobj po = {o->f, 0};
    fputc('{', o->f);
    for (unsigned i = 0; i < GCEV_STATS_PHASES; i++) {
        k_u64(&po, gcev_stats_phase_name(i), (g->phase_present & (1u << i)) != 0, g->phase_us[i]);
    }
    fputc('}', o->f);
}

static void print_heap(FILE *f, const gcev_stats_heap *h)
{
    jobj o = {f, 0};
    fputc('{', f);
    k_u64(&o, "heap", 1, h->heap);
    if (h->present & GCEV_STATS_HEAPREC_HAS_HISTORY) {
        k_u64(&o, "generations", 1, h->generations);
        k_u64(&o, "free_list_allocated", 1, h->free_list_allocated);
        k_u64(&o, "free_list_rejected", 1, h->free_list_rejected);
        k_u64(&o, "end_of_seg_allocated", 1, h->end_of_seg_allocated);
        k_u64(&o, "condemned_allocated", 1, h->condemned_allocated);
        k_u64(&o, "pinned_allocated", 1, h->pinned_allocated);
        k_u64(&o, "pinned_allocated_advance", 1, h->pinned_allocated_advance);
        k_u64(&o, "running_free_list_efficiency", 1, h->running_free_list_efficiency);
        k_u64(&o, "condemn_reasons0", 1, h->condemn_reasons0);
        k_u64(&o, "condemn_reasons1", 1, h->condemn_reasons1);
        k_u64(&o, "compact_mechanisms", 1, h->compact_mechanisms);
        k_u64(&o, "expand_mechanisms", 1, h->expand_mechanisms);
        const char *cr = gcev_stats_compact_reason_name(h->compact_mechanisms);
        const char *em = gcev_stats_expand_mechanism_name(h->expand_mechanisms);
        if (cr) {
            k_str(&o, "compact_reason", cr);
        }
        if (em) {
            k_str(&o, "expand_mechanism", em);
        }
        k_u64(&o, "extra_gen0_commit", 1, h->extra_gen0_commit);
        groups(&o, "condemned", h->condemned_groups);
        key(&o, "gens");
        fputc('[', f);
        for (unsigned i = 0; i < h->generations && i < GCEV_STATS_GENS; i++) {
            const gcev_stats_heap_gen *d = &h->gens[i];
            fprintf(f,
                    "%s{\"gen\":\"%s\",\"size_before\":%llu,\"size_after\":%llu,\"free_list_before\":%llu,"
                    "\"free_obj_before\":%llu,\"free_list_after\":%llu,\"free_obj_after\":%llu,\"in\":%llu,"
                    "\"pinned_surv\":%llu,\"non_pinned_surv\":%llu,\"budget\":%llu,\"surv_rate\":%u}",
                    i ? "," : "", gcev_stats_gen_name(i), (unsigned long long)d->size_before,
                    (unsigned long long)d->size_after, (unsigned long long)d->free_list_before,
                    (unsigned long long)d->free_obj_before, (unsigned long long)d->free_list_after,
                    (unsigned long long)d->free_obj_after, (unsigned long long)d->in,
                    (unsigned long long)d->pinned_surv, (unsigned long long)d->non_pinned_surv,
                    (unsigned long long)d->budget, d->surv_rate);
        }
        fputc(']', f);
    }
    if (h->present & GCEV_STATS_HEAPREC_HAS_MARKS) {
        key(&o, "marks");
        jobj mo = {f, 0};
        fputc('{', f);
        for (unsigned k = 0; k < GCEV_STATS_ROOT_KINDS; k++) {
            if (h->mark_present & (1u << k)) {
                key(&mo, gcev_gc_root_kind_map_name(k));
                jobj e = {f, 0};
                fputc('{', f);
                k_ms(&e, "ms", 1, h->mark_ms[k]);
                k_u64(&e, "promoted", (h->mark_promoted_present & (1u << k)) != 0, h->mark_promoted[k]);
                fputc('}', f);
            }
        }
        fputc('}', f);
    }
    if (h->present & GCEV_STATS_HEAPREC_HAS_JOINS) {
        k_u64(&o, "joins", 1, h->joins);
        k_ms(&o, "join_ms", 1, h->join_ms);
        k_ms(&o, "join_max_ms", 1, h->join_max_ms);
    }
    if (h->present & GCEV_STATS_HEAPREC_HAS_LOH_COMPACT) {
        key(&o, "loh_compact");
        fprintf(f,
                "{\"time_plan_us\":%u,\"time_compact_us\":%u,\"time_relocate_us\":%u,\"total_refs\":%llu,"
                "\"zero_refs\":%llu}",
                h->loh_time_plan, h->loh_time_compact, h->loh_time_relocate,
                (unsigned long long)h->loh_total_refs, (unsigned long long)h->loh_zero_refs);
    }
    fputc('}', f);
}

/* The keys of TraceEvent's TraceGC metrics (gcev_stats.h members added with them). */
static void print_gc_more(FILE *f, jobj *o, const gcev_stats *s, const gcev_stats_gc *g)
{
    uint64_t p = g->present;
    char label[16];
    gcev_stats_gc_label(g, label, sizeof label);
    k_u64(o, "process_id", 1, g->process_id);
    k_bool(o, "complete", 1, (g->flags & GCEV_STATS_GC_COMPLETE) != 0);
    k_str(o, "label", label);
    k_ms(o, "pause_start_ms", (p & GCEV_STATS_GC_HAS_PAUSE_START) != 0, g->pause_start_ms);
    k_ms(o, "since_last_restart_ms", (p & GCEV_STATS_GC_HAS_SINCE_RESTART) != 0, g->since_last_restart_ms);
    k_f(o, "pause_time_percent", (p & GCEV_STATS_GC_HAS_PAUSE_PERCENT) != 0, g->pause_time_percent);
    k_u64(o, "heap_size_before", (p & GCEV_STATS_GC_HAS_SIZE_BEFORE) != 0, g->heap_size_before);
    k_u64(o, "heap_size_after", (p & GCEV_STATS_GC_HAS_SIZE_AFTER) != 0, g->heap_size_after);
    k_u64(o, "heap_size_peak", (p & GCEV_STATS_GC_HAS_SIZE_PEAK) != 0, g->heap_size_peak);
    k_f(o, "ratio_peak_after", (p & GCEV_STATS_GC_HAS_RATIO_PEAK_AFTER) != 0, g->ratio_peak_after);
    k_i64(o, "allocated_since_last_gc", (p & GCEV_STATS_GC_HAS_ALLOCATED_SINCE) != 0,
          g->allocated_since_last_gc);
    k_f(o, "alloc_rate_mb_per_sec", (p & GCEV_STATS_GC_HAS_ALLOC_RATE) != 0, g->alloc_rate_mb_per_sec);
    if (p & GCEV_STATS_GC_HAS_ALLOC_TICKS) {
        key(o, "alloc_ticks");
        fprintf(f, "{\"soh\":%llu,\"loh\":%llu,\"poh\":%llu}", (unsigned long long)g->alloc_tick_bytes[0],
                (unsigned long long)g->alloc_tick_bytes[1], (unsigned long long)g->alloc_tick_bytes[2]);
    }
    int gh = (p & GCEV_STATS_GC_HAS_GLOBAL_HISTORY) != 0;
    k_u64(o, "final_youngest_desired", gh, g->final_youngest_desired);
    k_u64(o, "condemned_generation", gh, g->condemned_generation);
    k_u64(o, "gen0_reduction_count", gh, g->gen0_reduction_count);
    k_u64(o, "global_reason", gh, g->global_reason);
    k_bool(o, "compacting", (p & GCEV_STATS_GC_HAS_MECHANISMS) != 0, (g->global_mechanisms & 2) != 0);
    if (p & GCEV_STATS_GC_HAS_MECHANISMS) {
        key(o, "mechanisms");
        fputc('[', o->f);
        int first = 1;
        for (unsigned bit = 0; bit < 32; bit++) {
            const char *name = gcev_stats_global_mechanism_name(bit);
            if (name && (g->global_mechanisms & (1u << bit))) {
                fprintf(o->f, "%s\"%s\"", first ? "" : ",", name);
                first = 0;
            }
        }
        fputc(']', o->f);
    }
    k_u64(o, "pause_mode", (p & GCEV_STATS_GC_HAS_PAUSE_MODE) != 0, g->pause_mode);
    k_u64(o, "memory_pressure", (p & GCEV_STATS_GC_HAS_PAUSE_MODE) != 0, g->memory_pressure);
    if (p & GCEV_STATS_GC_HAS_GLOBAL_CONDEMN) {
        k_u64(o, "global_condemn_reasons0", 1, g->global_condemn_reasons0);
        k_u64(o, "global_condemn_reasons1", 1, g->global_condemn_reasons1);
        groups(o, "global_condemned", g->global_condemned_groups);
    }
    if (p & GCEV_STATS_GC_HAS_CONDEMNED) {
        key(o, "condemned_reasons");
        fputc('[', f);
        for (unsigned i = 0, n = 0; i < GCEV_STATS_CONDEMNED_GROUPS; i++) {
            if (g->condemned_reasons & (1u << i)) {
                fputs(n++ ? "," : "", f);
                gcev_cli_json_string(f, gcev_stats_condemned_group_name(i));
            }
        }
        fputc(']', f);
        k_u64(o, "highest_condemned_heap", 1, g->highest_condemned_heap);
        k_bool(o, "low_ephemeral", 1, g->low_ephemeral);
    }
    phases(o, g);
    k_u64(o, "generation_count", (p & GCEV_STATS_GC_HAS_GENERATION_COUNT) != 0, g->generation_count);
    int hs = (p & GCEV_STATS_GC_HAS_HEAP_STATS) != 0;
    k_u64(o, "finalization_promoted_size", hs, g->finalization_promoted_size);
    k_u64(o, "sink_block_count", hs, g->sink_block_count);
    k_u64(o, "gc_handle_count", hs, g->gc_handle_count);
    k_ms(o, "bgc_final_pause_ms", (p & GCEV_STATS_GC_HAS_BGC_FINAL_PAUSE) != 0, g->bgc_final_pause_ms);
    if (p & GCEV_STATS_GC_HAS_BGC_PHASE) {
        k_u64(o, "bgc_phase", 1, g->bgc_phase);
        key(o, "bgc_events_ms");
        jobj bo = {f, 0};
        fputc('{', f);
        for (unsigned i = 0; i < GCEV_STATS_BGC_EVENTS; i++) {
            k_ms(&bo, gcev_stats_bgc_event_name(i), (g->bgc_phase_present & (1u << i)) != 0,
                 g->bgc_phase_ms[i]);
        }
        fputc('}', f);
    }
    if (p & GCEV_STATS_GC_HAS_BGC_REVISIT) {
        key(o, "bgc_revisit");
        static const char *const states[2] = {"concurrent", "non_concurrent"};
        fputc('{', f);
        for (int st = 0; st < 2; st++) {
            fprintf(f,
                    "%s\"%s\":{\"soh\":{\"pages\":%llu,\"objects\":%llu},\"loh\":{\"pages\":%llu,\"objects\":"
                    "%llu}}",
                    st ? "," : "", states[st], (unsigned long long)g->bgc_revisit_pages[st][0],
                    (unsigned long long)g->bgc_revisit_objects[st][0],
                    (unsigned long long)g->bgc_revisit_pages[st][1],
                    (unsigned long long)g->bgc_revisit_objects[st][1]);
        }
        fputc('}', f);
    }
    committed(o, "committed_before", (p & GCEV_STATS_GC_HAS_COMMITTED_BEFORE) != 0, &g->committed_before);
    committed(o, "committed_after", (p & GCEV_STATS_GC_HAS_COMMITTED_AFTER) != 0, &g->committed_after);
    k_u64(o, "datas_heap_count", (p & GCEV_STATS_GC_HAS_DATAS) != 0, g->datas_heap_count);
    k_u64(o, "dynamic_events", (p & GCEV_STATS_GC_HAS_DYNAMIC) != 0, g->dynamic_events);
    k_u64(o, "pinned_object_sizes", (p & GCEV_STATS_GC_HAS_PINNED_SIZES) != 0, g->pinned_object_sizes);
    k_u64(o, "pinned_plug_size", (p & GCEV_STATS_GC_HAS_PINNED_PLUGS) != 0, g->pinned_plug_size);
    k_u64(o, "user_pinned_plug_size", (p & GCEV_STATS_GC_HAS_PINNED_PLUGS) != 0, g->user_pinned_plug_size);
    k_i64(o, "pinned_object_percent", (p & GCEV_STATS_GC_HAS_PINNED_PERCENT) != 0, g->pinned_object_percent);
    if (p & GCEV_STATS_GC_HAS_FREE_LIST) {
        key(o, "free_list");
        fprintf(f, "{\"allocated\":%.0f,\"consumed\":%.0f}", g->free_list_allocated, g->free_list_consumed);
    }
    if (g->flags & GCEV_STATS_GC_HEAPS_DROPPED) {
        k_bool(o, "heaps_dropped", 1, 1);
    }
    if (g->flags & GCEV_STATS_GC_PINS_DROPPED) {
        k_bool(o, "pins_dropped", 1, 1);
    }
    if (p & GCEV_STATS_GC_HAS_LOH_WAITS) {
        key(o, "loh_waits");
        fputc('[', f);
        for (size_t i = 0; i < g->loh_waits; i++) {
            const gcev_stats_loh_wait *w = gcev_stats_gc_loh_wait_at(s, g, i);
            jobj wo = {f, 0};
            fputs(i ? ",{" : "{", f);
            k_u64(&wo, "thread_id", 1, w->thread_id);
            k_u64(&wo, "reason", w->has_begin, w->reason);
            k_ms(&wo, "begin_ms", w->has_begin, w->begin_ms);
            k_ms(&wo, "end_ms", w->has_end, w->end_ms);
            fputc('}', f);
        }
        fputc(']', f);
    }
    if (p & GCEV_STATS_GC_HAS_FIT_BUCKETS) {
        key(o, "fit_buckets");
        fputc('[', f);
        for (size_t i = 0; i < g->fit_buckets; i++) {
            const gcev_stats_fit_bucket *b = gcev_stats_gc_fit_bucket_at(s, g, i);
            fprintf(f, "%s{\"kind\":%u,\"index\":%u,\"count\":%u,\"size\":%llu}", i ? "," : "", b->kind,
                    b->index, b->count, (unsigned long long)b->size);
        }
        fputc(']', f);
    }
    if (p & GCEV_STATS_GC_HAS_JOINS) {
        k_u64(o, "joins", 1, g->joins);
        k_u64(o, "join_restarts", 1, g->join_restarts);
    }
    key(o, "heaps");
    fputc('[', f);
    for (size_t i = 0; i < g->heaps; i++) {
        fputs(i ? "," : "", f);
        print_heap(f, gcev_stats_gc_heap_at(s, g, i));
    }
    fputc(']', f);
}

static void print_pauses(jobj *o, const char *k, const gcev_stats_pauses *d)
{
    key(o, k);
    jobj po = {o->f, 0};
    fputc('{', o->f);
    k_u64(&po, "count", 1, d->count);
    k_ms(&po, "total_ms", d->count > 0, d->total_ms);
    k_ms(&po, "mean_ms", d->count > 0, d->mean_ms);
    k_ms(&po, "p50_ms", d->count > 0, d->p50_ms);
    k_ms(&po, "p90_ms", d->count > 0, d->p90_ms);
    k_ms(&po, "p99_ms", d->count > 0, d->p99_ms);
    k_ms(&po, "max_ms", d->count > 0, d->max_ms);
    fputc('}', o->f);
}

/* TraceEvent's GCStats, over the complete GCs (of one generation when gen >= 0). */
static void print_gcstats(FILE *f, const gcev_stats_gcstats *st, int gen)
{
    jobj o = {f, 0};
    int means = (st->present & GCEV_STATS_GCSTATS_HAS_MEANS) != 0;
    fputc('{', f);
    k_u64(&o, "generation", gen >= 0, (uint64_t)gen);
    k_u64(&o, "count", 1, st->count);
    k_u64(&o, "induced", 1, st->induced);
    k_ms(&o, "pause_total_ms", 1, st->pause_total_ms);
    k_ms(&o, "pause_mean_ms", means, st->pause_mean_ms);
    k_ms(&o, "pause_max_ms", means, st->pause_max_ms);
    k_ms(&o, "suspend_max_ms", means, st->suspend_max_ms);
    k_u64(&o, "size_peak_max", means, st->size_peak_max);
    k_f(&o, "size_peak_mean", means, st->size_peak_mean);
    k_f(&o, "size_after_mean", means, st->size_after_mean);
    k_u64(&o, "size_peak_total", 1, st->size_peak_total);
    k_u64(&o, "size_after_total", 1, st->size_after_total);
    k_f(&o, "alloc_rate_max_mb_per_sec", means, st->alloc_rate_max);
    k_i64(&o, "allocated_total", 1, st->allocated_total);
    k_u64(&o, "promoted_total", 1, st->promoted_total);
    k_f(&o, "alloc_mb_per_pause_ms", st->pause_total_ms > 0, st->alloc_mb_per_pause_ms);
    k_u64(&o, "pinned_object_sizes", 1, st->pinned_object_sizes);
    k_i64(&o, "pinned_object_percent_sum", 1, st->pinned_object_percent);
    k_u64(&o, "with_pin_events", 1, st->with_pin_events);
    k_u64(&o, "with_pin_plug_events", 1, st->with_pin_plug_events);
    if (gen < 0) {
        int dur = (st->present & GCEV_STATS_GCSTATS_HAS_DURATION) != 0;
        k_ms(&o, "process_duration_ms", dur, st->process_duration_ms);
        k_f(&o, "pause_time_percent", dur && st->process_duration_ms != 0, st->pause_time_percent);
        k_i64(&o, "heap_count", (st->present & GCEV_STATS_GCSTATS_HAS_HEAP_COUNT) != 0, st->heap_count);
        k_bool(&o, "has_detailed_gc_info", 1, st->has_detailed_gc_info);
        k_bool(&o, "version_mismatch", 1, st->version_mismatch);
        k_u64(&o, "finalized_objects", 1, st->finalized_objects);
    }
    fputc('}', f);
}

static void print_processes(FILE *f, const stats_report *r)
{
    fputs(",\n\"processes\":[", f);
    for (size_t i = 0; i < gcev_stats_process_count(r->s); i++) {
        const gcev_stats_process *p = gcev_stats_process_at(r->s, i);
        jobj o = {f, 0};
        fprintf(f, "%s\n {", i ? "," : "");
        k_u64(&o, "process_id", 1, p->process_id);
        k_u64(&o, "gc_count", 1, p->gc_count);
        k_u64(&o, "complete_gcs", 1, p->complete_count);
        k_u64(&o, "duplicate_starts", 1, p->duplicate_starts);
        key(&o, "gcstats");
        print_gcstats(f, &p->all, -1);
        key(&o, "generations");
        fputc('[', f);
        for (int g = 0; g < 3; g++) {
            fputs(g ? "," : "", f);
            print_gcstats(f, &p->gens[g], g);
        }
        fputc(']', f);
        key(&o, "pauses");
        jobj po = {f, 0};
        fputc('{', f);
        print_pauses(&po, "all", &p->pauses);
        for (unsigned g = 0; g < 3; g++) {
            print_pauses(&po, gcev_stats_gen_name(g), &p->pauses_by_gen[g]);
        }
        for (unsigned t = 0; t < 3; t++) {
            print_pauses(&po, gcev_stats_gc_type_name(t), &p->pauses_by_type[t]);
        }
        fputc('}', f);
        key(&o, "longest_pauses");
        fputc('[', f);
        for (size_t k = 0; k < p->longest; k++) {
            const gcev_stats_gc *g = gcev_stats_process_longest_at(r->s, p, k);
            jobj lo = {f, 0};
            fputs(k ? ",{" : "{", f);
            k_u64(&lo, "number", 1, g->number);
            k_ms(&lo, "pause_ms", 1, g->pause_ms);
            k_u64(&lo, "generation", (g->present & GCEV_STATS_GC_HAS_GENERATION) != 0, g->generation);
            if (g->present & GCEV_STATS_GC_HAS_TYPE) {
                k_str(&lo, "type", gcev_stats_gc_type_name(g->type));
            }
            k_u64(&lo, "reason", (g->present & GCEV_STATS_GC_HAS_REASON) != 0, g->reason);
            if (g->present & GCEV_STATS_GC_HAS_REASON) {
                k_str(&lo, "reason_name", gcev_gc_reason_name(g->reason));
            }
            k_ms(&lo, "suspension_ms", (g->present & GCEV_STATS_GC_HAS_SUSPENSION) != 0, g->suspension_ms);
            k_ms(&lo, "duration_ms", (g->present & GCEV_STATS_GC_HAS_END) != 0, g->duration_ms);
            k_u64(&lo, "promoted_bytes", (g->present & GCEV_STATS_GC_HAS_PROMOTED) != 0, g->promoted_bytes);
            phases(&lo, g);
            fputc('}', f);
        }
        fputc(']', f);
        fputc('}', f);
    }
    fputs("]", f);
}

static void print_generations(FILE *f, const stats_report *r)
{
    fputs(",\n\"generations\":[", f);
    for (unsigned i = 0; i < 3; i++) {
        const gcev_stats_gen_summary *g = gcev_stats_generation(r->s, i);
        jobj o = {f, 0};
        fprintf(f, "%s\n {", i ? "," : "");
        k_u64(&o, "generation", 1, i);
        k_u64(&o, "count", 1, g->count);
        k_u64(&o, "background", 1, g->background);
        k_u64(&o, "foreground", 1, g->foreground);
        k_ms(&o, "pause_total_ms", g->pause_count > 0, g->pause_total_ms);
        k_ms(&o, "pause_mean_ms", g->pause_count > 0, g->pause_mean_ms);
        k_ms(&o, "pause_max_ms", g->pause_count > 0, g->pause_max_ms);
        k_u64(&o, "promoted_bytes", g->promoted_count > 0, g->promoted_bytes);
        k_ms(&o, "duration_total_ms", g->duration_count > 0, g->duration_total_ms);
        fputc('}', f);
    }
    fputs("]", f);
}

static void print_summary(FILE *f, const stats_report *r)
{
    const gcev_stats_summary *s = gcev_stats_get_summary(r->s);
    uint64_t p = s->present;
    int dur = (p & GCEV_STATS_SUM_HAS_DURATION) != 0;
    jobj o = {f, 0};
    fputs(",\n\"summary\":{", f);
    k_u64(&o, "events", 1, s->events);
    k_u64(&o, "gc_events", 1, s->gc_events);
    k_u64(&o, "decode_errors", 1, s->decode_errors);
    k_ms(&o, "first_ms", s->events > 0, s->first_ms);
    k_ms(&o, "last_ms", s->events > 0, s->last_ms);
    k_ms(&o, "duration_ms", s->events > 0, s->duration_ms);
    k_u64(&o, "gc_count", 1, s->gc_count);
    k_u64(&o, "unfinished_gcs", 1, s->unfinished_gcs);
    k_ms(&o, "gcs_per_sec", dur, s->gcs_per_sec);
    k_ms(&o, "pause_total_ms", (p & GCEV_STATS_SUM_HAS_PAUSE) != 0, s->pause_total_ms);
    k_ms(&o, "pause_percent", (p & GCEV_STATS_SUM_HAS_PAUSE) && dur, s->pause_percent);
    k_ms(&o, "pause_max_ms", (p & GCEV_STATS_SUM_HAS_PAUSE) != 0, s->pause_max_ms);
    k_u64(&o, "pause_max_gc", (p & GCEV_STATS_SUM_HAS_PAUSE) != 0, s->pause_max_gc);
    k_u64(&o, "allocation_ticks", (p & GCEV_STATS_SUM_HAS_ALLOCATION) != 0, s->allocation_ticks);
    k_u64(&o, "allocated_bytes", (p & GCEV_STATS_SUM_HAS_ALLOCATION) != 0, s->allocated_bytes);
    k_ms(&o, "alloc_mb_per_sec", (p & GCEV_STATS_SUM_HAS_ALLOCATION) && dur, s->alloc_mb_per_sec);
    k_u64(&o, "other_suspensions", 1, s->other_suspensions);
    k_ms(&o, "other_suspended_ms", 1, s->other_suspended_ms);
    k_u64(&o, "heap_count", (p & GCEV_STATS_SUM_HAS_HEAP_COUNT) != 0, (uint64_t)s->heap_count);
    if (p & GCEV_STATS_SUM_HAS_HEAP_COUNT) {
        k_str(&o, "gc_mode", s->heap_count > 1 ? "server" : "workstation");
    }
    k_u64(&o, "dropped_events", 1, s->dropped_events);
    k_u64(&o, "skipped_ranges", 1, s->skipped_ranges);
    k_u64(&o, "skipped_bytes", 1, s->skipped_bytes);
    if (p & GCEV_STATS_SUM_HAS_SURVIVED) {
        k_u64(&o, "survived_after_gc", 1, s->survived_gc);
        k_u64(&o, "process_survived_bytes", 1, s->process_survived);
        key(&o, "appdomains_survived");
        fputc('[', f);
        for (size_t i = 0; i < gcev_stats_appdomain_count(r->s); i++) {
            const gcev_stats_appdomain *ad = gcev_stats_appdomain_at(r->s, i);
            fprintf(f, "%s{\"app_domain_id\":%llu,\"survived_bytes\":%llu}", i ? "," : "",
                    (unsigned long long)ad->app_domain_id, (unsigned long long)ad->survived);
        }
        fputc(']', f);
    }
    fputc('}', f);
}

static void print_pairing(jobj *o, const gcev_stats_pairing *p)
{
    k_u64(o, "created", 1, p->created);
    k_u64(o, "freed", 1, p->freed);
    k_u64(o, "unmatched_frees", 1, p->unmatched_frees);
    k_u64(o, "never_freed", 1, p->live);
    k_u64(o, "over_limit", 1, p->over_limit);
    k_u64(o, "reassigned", 1, p->reassigned);
    k_u64(o, "merged_events", 1, p->merged_events);
    k_u64(o, "unmatched_after_loss", 1, p->unmatched_after_loss);
}

static void print_lifetimes(FILE *f, const stats_report *r)
{
    const gcev_stats_pairing *sp = gcev_stats_segment_pairing(r->s);
    jobj o = {f, 0};
    fputs(",\n\"segments\":{", f);
    print_pairing(&o, sp);
    key(&o, "live");
    fputc('[', f);
    for (size_t i = 0; i < sp->live; i++) {
        const gcev_stats_segment *s = gcev_stats_live_segment_at(r->s, i);
        fprintf(f, "%s\n {\"address\":%llu,\"size\":%llu,\"type\":%u,\"created_ms\":%.3f}", i ? "," : "",
                (unsigned long long)s->address, (unsigned long long)s->size, s->type, s->created_ms);
    }
    fputs("]}", f);
    const gcev_stats_pairing *hp = gcev_stats_handle_pairing(r->s);
    jobj h = {f, 0};
    fputs(",\n\"handles\":{", f);
    print_pairing(&h, hp);
    key(&h, "live");
    fputc('[', f);
    for (size_t i = 0; i < hp->live; i++) {
        const gcev_stats_handle *x = gcev_stats_live_handle_at(r->s, i);
        fprintf(f,
                "%s\n {\"handle_id\":%llu,\"object_id\":%llu,\"kind\":%u,\"generation\":%u,"
                "\"app_domain_id\":%llu,\"created_ms\":%.3f}",
                i ? "," : "", (unsigned long long)x->handle_id, (unsigned long long)x->object_id, x->kind,
                x->generation, (unsigned long long)x->app_domain_id, x->created_ms);
    }
    fputs("]}", f);
}

void stats_print_json(FILE *f, const stats_report *r)
{
    const gcev_stats_summary *sum = gcev_stats_get_summary(r->s);
    fprintf(f, "{\"json_version\":%d,\"trace\":{\"file\":", GCEV_JSON_VERSION_STATS);
    gcev_cli_json_string(f, r->path);
    if (r->info) {
        fprintf(f, ",\"format\":\"%s\",\"format_version\":%u,\"pointer_size\":%u",
                gcev_trace_format_name(r->info->format), r->info->format_version, r->info->pointer_size);
    }
    fputs("},\n\"complete\":", f);
    int complete = stats_complete(r);
    fputs(complete ? "true" : "false", f);
    fputs(",\"warnings\":[", f);
    int nw = 0;
    if (stats_drop_warning(r)) {
        gcev_cli_json_string(f, stats_drop_warning(r));
        nw++;
    }
    if (stats_skip_warning(r)) {
        fputs(nw++ ? "," : "", f);
        gcev_cli_json_string(f, stats_skip_warning(r));
    }
    if (r->read_error) {
        fputs(nw++ ? "," : "", f);
        gcev_cli_json_string(f, r->read_error);
    }
    if (sum->limit_hit) {
        fputs(nw++ ? "," : "", f);
        gcev_cli_json_string(f, "a segment/handle/AppDomain table hit its limit: lifetimes are partial");
    }
    fputs("],\n\"skipped\":[", f);
    for (size_t i = 0; r->trace && i < gcev_trace_skip_count(r->trace); i++) {
        fputs(i ? "," : "", f);
        gcev_cli_skip_json(f, gcev_trace_skip_at(r->trace, i));
    }
    fputs("],\n\"events_seen\":{", f);
    for (size_t i = 0; i < stats_seen_family_count; i++) {
        const gcev_family_info *fi = gcev_family_get(stats_seen_families[i]);
        fprintf(f, "%s\"%s\":%llu", i ? "," : "", fi ? fi->name : "?",
                (unsigned long long)gcev_stats_family_count(r->s, stats_seen_families[i]));
    }
    fputs("},\n\"gcs\":[", f);
    int n = 0;
    for (size_t i = 0; i < gcev_stats_gc_count(r->s); i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        if (stats_selected(r, g)) {
            fputs(n++ ? ",\n " : "\n ", f);
            stats_print_gc_json(f, r->s, g);
        }
    }
    fputs("]", f);
    print_generations(f, r);
    print_summary(f, r);
    print_lifetimes(f, r);
    print_processes(f, r);
    fputs("}\n", f);
}
