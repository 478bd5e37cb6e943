/* SPDX-License-Identifier: MIT */
/*
 * gcev stats, JSON: {"trace","complete","warnings","events_seen","gcs":[...],
 * "generations":[...],"summary":{...},"segments":{...},"handles":{...}}.
 * A key whose inputs are not in the trace is omitted (never 0, never NaN);
 * byte counts are exact integers, times are milliseconds with 3 decimals.
 * The keys are documented in README.md ("gcev stats") and doc/gcev.1.
 */
#include "cli.h"
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

static void k_str(jobj *o, const char *k, const char *v)
{
    if (v) {
        key(o, k);
        gcev_cli_json_string(o->f, v);
    }
}

static void print_gc(FILE *f, const gcev_stats_gc *g)
{
    uint64_t p = g->present;
    jobj o = {f, 0};
    fputc('{', f);
    k_u64(&o, "number", 1, g->number);
    k_u64(&o, "generation", (p & GCEV_STATS_GC_HAS_GENERATION) != 0, g->generation);
    k_u64(&o, "reason", (p & GCEV_STATS_GC_HAS_REASON) != 0, g->reason);
    if (p & GCEV_STATS_GC_HAS_REASON) {
        k_str(&o, "reason_name", gcev_gc_reason_map_name(g->reason));
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
    fputc('}', f);
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
        k_ms(&o, "duration_total_ms", g->count > 0, g->duration_total_ms);
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
    fputs("{\"trace\":{\"file\":", f);
    gcev_cli_json_string(f, r->path);
    if (r->info) {
        fprintf(f, ",\"format\":\"%s\",\"format_version\":%u,\"pointer_size\":%u",
                gcev_trace_format_name(r->info->format), r->info->format_version, r->info->pointer_size);
    }
    fputs("},\n\"complete\":", f);
    int complete = !stats_drop_warning(r) && !r->read_error && !sum->limit_hit;
    fputs(complete ? "true" : "false", f);
    fputs(",\"warnings\":[", f);
    int nw = 0;
    if (stats_drop_warning(r)) {
        gcev_cli_json_string(f, stats_drop_warning(r));
        nw++;
    }
    if (r->read_error) {
        fputs(nw++ ? "," : "", f);
        gcev_cli_json_string(f, r->read_error);
    }
    if (sum->limit_hit) {
        fputs(nw++ ? "," : "", f);
        gcev_cli_json_string(f, "a segment/handle/AppDomain table hit its limit: lifetimes are partial");
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
            print_gc(f, g);
        }
    }
    fputs("]", f);
    print_generations(f, r);
    print_summary(f, r);
    print_lifetimes(f, r);
    fputs("}\n", f);
}
