/* SPDX-License-Identifier: MIT */
/*
 * gcev stats, JSON: {"trace","complete","warnings","events_seen","gcs":[...],
 * "generations":[...],"summary":{...},"segments":{...},"handles":{...}}.
 * A key whose inputs are not in the trace is omitted (never 0, never NaN);
 * byte counts are exact integers, times are milliseconds with 3 decimals.
 * The keys are documented in README.md ("gcev stats") and doc/gcev.1.
 */
#include <math.h>
#include <string.h>

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

static void k_str(jobj *o, const char *k, const char *v)
{
    if (v) {
        key(o, k);
        gcev_cli_json_string(o->f, v);
    }
}

/* ---- the metric tables' walk (gcev_stats.h "Metric tables") ---- */

static void write_record(FILE *f, const gcev_stats *s, unsigned kind, const void *rec, int gen, int lead);

static void write_value(jobj *o, const gcev_stats_metric *m, const gcev_stats_val *v)
{
    FILE *f = o->f;
    switch (m->type) {
    case GCEV_STATS_T_U64:
        key(o, m->key);
        fprintf(f, "%llu", (unsigned long long)v->u);
        break;
    case GCEV_STATS_T_I64:
        key(o, m->key);
        fprintf(f, "%lld", (long long)v->i);
        break;
    case GCEV_STATS_T_F64:
        key(o, m->key);
        if (isinf(v->f)) { /* TraceEvent's Infinity (--compat traceevent): JSON has no such number */
            fputs(v->f > 0 ? "\"Infinity\"" : "\"-Infinity\"", f);
        } else if (m->decimals < 0) {
            fprintf(f, "%.10g", v->f);
        } else {
            fprintf(f, "%.*f", m->decimals, v->f);
        }
        break;
    case GCEV_STATS_T_BOOL:
        key(o, m->key);
        fputs(v->u ? "true" : "false", f);
        break;
    case GCEV_STATS_T_ENUM:
        if (m->flags & GCEV_STATS_M_NAME) {
            k_str(o, m->key, v->name);
        } else {
            key(o, m->key);
            fprintf(f, "%llu", (unsigned long long)v->u);
        }
        break;
    case GCEV_STATS_T_BITS: {
        key(o, m->key);
        fputc('[', f);
        int n = 0;
        for (unsigned bit = 0; bit < 64; bit++) {
            const char *name = (v->u >> bit) & 1 ? m->name((uint32_t)bit) : NULL;
            if (name) {
                fputs(n++ ? "," : "", f);
                gcev_cli_json_string(f, name);
            }
        }
        fputc(']', f);
        break;
    }
    case GCEV_STATS_T_TEXT:
        k_str(o, m->key, v->text);
        break;
    default:
        break;
    }
}

/* {"Name":value,...} of the non-zero counts of a COUNTS entry. */
static void write_counts(jobj *o, const gcev_stats_metric *m, const void *rec)
{
    const uint8_t *c = (const uint8_t *)rec + m->offset;
    key(o, m->key);
    jobj co = {o->f, 0};
    fputc('{', o->f);
    for (uint32_t i = 0; i < m->size; i++) {
        if (c[i] && m->name(i)) {
            key(&co, m->name(i));
            fprintf(o->f, "%u", c[i]);
        }
    }
    fputc('}', o->f);
}

static void print_heap_gens(FILE *f, const gcev_stats_heap *h)
{
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
}

static void print_longest(FILE *f, const gcev_stats *s, const gcev_stats_process *p)
{
    for (size_t k = 0; k < p->longest; k++) {
        const gcev_stats_gc *g = gcev_stats_process_longest_at(s, p, k);
        static const char *const keys[] = {"number",         "pause_ms",    "generation",    "type",
                                           "reason",         "reason_name", "suspension_ms", "duration_ms",
                                           "promoted_bytes", "phases_us"};
        fputs(k ? ",{" : "{", f);
        jobj lo = {f, 0};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            const gcev_stats_metric *m = gcev_stats_metric_find(GCEV_STATS_KIND_GC, keys[i]);
            gcev_stats_val v;
            if (!strcmp(keys[i], "pause_ms")) { /* a complete GC's pause */
                key(&lo, "pause_ms");
                fprintf(f, "%.3f", g->pause_ms);
            } else if (m->type == GCEV_STATS_T_OBJECT) {
                if (gcev_stats_value(g, m, &v)) {
                    key(&lo, m->key);
                    jobj po = {f, 0};
                    fputc('{', f);
                    for (size_t j = 0; j < gcev_stats_metric_count(GCEV_STATS_KIND_GC); j++) {
                        const gcev_stats_metric *e = gcev_stats_metric_at(GCEV_STATS_KIND_GC, j);
                        if (e->group && !strcmp(e->group, m->key) && gcev_stats_value(g, e, &v)) {
                            write_value(&po, e, &v);
                        }
                    }
                    fputc('}', f);
                }
            } else if (gcev_stats_value(g, m, &v)) {
                write_value(&lo, m, &v);
            }
        }
        fputc('}', f);
    }
}

/* The hand-written parts: lists of records, called at their entry's place in the key order. */
static void write_section(jobj *o, const gcev_stats *s, const gcev_stats_metric *m, const void *rec)
{
    FILE *f = o->f;
    key(o, m->key);
    if (m->type == GCEV_STATS_T_RECORD) {
        /* embedded, or (size 0) a process's GCStats, read with its accessor */
        const void *r = m->size ? (const void *)((const unsigned char *)rec + m->offset)
                                : (const void *)gcev_stats_process_stats(s, rec);
        fputc('{', f);
        write_record(f, s, (unsigned)m->elem_kind, r, -1, 0);
        return;
    }
    fputc('[', f);
    if (m->kind == GCEV_STATS_KIND_GC && !strcmp(m->key, "heap")) {
        const gcev_stats_gc *g = rec;
        int n = 0;
        for (unsigned i = 0; i < GCEV_STATS_GENS; i++) {
            const gcev_stats_gen_heap *h = gcev_stats_gc_gen_at(s, g, i);
            if (h->present) {
                fprintf(f, "%s{\"gen\":\"%s\"", n++ ? "," : "", gcev_stats_gen_name(i));
                write_record(f, s, GCEV_STATS_KIND_GEN_HEAP, h, -1, 1);
            }
        }
    } else if (m->kind == GCEV_STATS_KIND_GC && !strcmp(m->key, "loh_waits")) {
        const gcev_stats_gc *g = rec;
        for (size_t i = 0; i < g->loh_waits; i++) {
            const gcev_stats_loh_wait *w = gcev_stats_gc_loh_wait_at(s, g, i);
            fprintf(f, "%s{\"thread_id\":%llu", i ? "," : "", (unsigned long long)w->thread_id);
            if (w->has_begin) {
                fprintf(f, ",\"reason\":%u,\"begin_ms\":%.3f", w->reason, w->begin_ms);
            }
            if (w->has_end) {
                fprintf(f, ",\"end_ms\":%.3f", w->end_ms);
            }
            fputc('}', f);
        }
    } else if (m->kind == GCEV_STATS_KIND_GC && !strcmp(m->key, "fit_buckets")) {
        const gcev_stats_gc *g = rec;
        for (size_t i = 0; i < g->fit_buckets; i++) {
            const gcev_stats_fit_bucket *b = gcev_stats_gc_fit_bucket_at(s, g, i);
            fprintf(f, "%s{\"kind\":%u,\"index\":%u,\"count\":%u,\"size\":%llu}", i ? "," : "", b->kind,
                    b->index, b->count, (unsigned long long)b->size);
        }
    } else if (m->kind == GCEV_STATS_KIND_GC && !strcmp(m->key, "heaps")) {
        const gcev_stats_gc *g = rec;
        for (size_t i = 0; i < g->heaps; i++) {
            fputs(i ? ",{" : "{", f);
            write_record(f, s, GCEV_STATS_KIND_HEAP, gcev_stats_gc_heap_at(s, g, i), -1, 0);
        }
    } else if (m->kind == GCEV_STATS_KIND_HEAP && !strcmp(m->key, "gens")) {
        print_heap_gens(f, rec);
    } else if (m->kind == GCEV_STATS_KIND_PROCESS && !strcmp(m->key, "generations")) {
        const gcev_stats_process *p = rec;
        for (int g = 0; g < 3; g++) {
            fprintf(f, "%s{\"generation\":%d", g ? "," : "", g);
            write_record(f, s, GCEV_STATS_KIND_GCSTATS, gcev_stats_process_gen_stats(s, p, (unsigned)g), g,
                         1);
        }
    } else if (m->kind == GCEV_STATS_KIND_PROCESS && !strcmp(m->key, "longest_pauses")) {
        print_longest(f, s, rec);
    } else if (m->kind == GCEV_STATS_KIND_SUMMARY && !strcmp(m->key, "appdomains_survived")) {
        for (size_t i = 0; i < gcev_stats_appdomain_count(s); i++) {
            const gcev_stats_appdomain *ad = gcev_stats_appdomain_at(s, i);
            fprintf(f, "%s{\"app_domain_id\":%llu,\"survived_bytes\":%llu}", i ? "," : "",
                    (unsigned long long)ad->app_domain_id, (unsigned long long)ad->survived);
        }
    }
    fputc(']', f);
}

/* Whether the object at path `open` holds group `grp` (or is it). */
static int holds(const char *open, const char *grp)
{
    size_t n = strlen(open);
    return n == 0 || (!strncmp(open, grp, n) && (grp[n] == '\0' || grp[n] == '.'));
}

/*
 * Writes the members of one record, its metric table's entries in order, and closes its
 * object; the caller wrote the '{' and `lead` keys of its own ("gen", "generation"). gen: a
 * GCSTATS record's generation (process-only entries are skipped), else -1.
 */
static void write_record(FILE *f, const gcev_stats *s, unsigned kind, const void *rec, int gen, int lead)
{
    enum { DEPTH = 6 };
    jobj stack[DEPTH];
    char path[DEPTH][96];
    int depth = 0;
    stack[0].f = f;
    stack[0].n = lead;
    path[0][0] = '\0';
    for (size_t i = 0; i < gcev_stats_metric_count(kind); i++) {
        const gcev_stats_metric *m = gcev_stats_metric_at(kind, i);
        if ((m->flags & (GCEV_STATS_M_HIDDEN | GCEV_STATS_M_NOT_JSON)) ||
            ((m->flags & GCEV_STATS_M_PROCESS_ONLY) && gen >= 0)) {
            continue;
        }
        const char *grp = m->group ? m->group : "";
        while (depth > 0 && !holds(path[depth], grp)) {
            fputc('}', f);
            depth--;
        }
        if (strcmp(path[depth], grp) != 0) {
            continue; /* in an object that is absent */
        }
        gcev_stats_val v;
        if (!gcev_stats_value(rec, m, &v)) {
            continue;
        }
        jobj *o = &stack[depth];
        switch (m->type) {
        case GCEV_STATS_T_OBJECT:
            if (depth + 1 >= DEPTH) {
                break;
            }
            key(o, m->key);
            fputc('{', f);
            depth++;
            snprintf(path[depth], sizeof path[depth], "%s%s%s", grp, *grp ? "." : "", m->key);
            stack[depth].f = f;
            stack[depth].n = 0;
            break;
        case GCEV_STATS_T_COUNTS:
            write_counts(o, m, rec);
            break;
        case GCEV_STATS_T_RECORD:
        case GCEV_STATS_T_RECORDS:
        case GCEV_STATS_T_ARRAY:
            write_section(o, s, m, rec);
            break;
        default:
            write_value(o, m, &v);
            break;
        }
    }
    while (depth > 0) {
        fputc('}', f);
        depth--;
    }
    fputc('}', f);
}

void stats_print_gc_json(FILE *f, const gcev_stats *s, const gcev_stats_gc *g)
{
    fputc('{', f);
    write_record(f, s, GCEV_STATS_KIND_GC, g, -1, 0);
}

static void print_processes(FILE *f, const stats_report *r)
{
    fputs(",\n\"processes\":[", f);
    int n = 0;
    for (size_t i = 0; i < gcev_stats_process_count(r->s); i++) {
        const gcev_stats_process *p = gcev_stats_process_at(r->s, i);
        if (!stats_process_selected(r, p->process_id)) {
            continue;
        }
        fputs(n++ ? ",\n {" : "\n {", f);
        write_record(f, r->s, GCEV_STATS_KIND_PROCESS, p, -1, 0);
    }
    fputs("]", f);
}

static void print_generations(FILE *f, const stats_report *r)
{
    fputs(",\n\"generations\":[", f);
    for (unsigned i = 0; i < 3; i++) {
        fputs(i ? ",\n {" : "\n {", f);
        write_record(f, r->s, GCEV_STATS_KIND_GEN_SUMMARY, gcev_stats_generation(r->s, i), -1, 0);
    }
    fputs("]", f);
}

static void print_summary(FILE *f, const stats_report *r)
{
    fputs(",\n\"summary\":{", f);
    write_record(f, r->s, GCEV_STATS_KIND_SUMMARY, gcev_stats_get_summary(r->s), -1, 0);
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
