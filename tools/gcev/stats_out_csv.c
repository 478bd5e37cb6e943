/* SPDX-License-Identifier: MIT */
/*
 * gcev stats, CSV: one table per record kind (--table), each with one header line made from
 * the kind's metric table (gcev_stats.h, "Metric tables"), so every column holds one type:
 * gcs (one row per GC), generations (per GC and generation), heaps (per GC and heap),
 * processes, gcstats (per process: all GCs, then per generation), gen_summaries (per condemned
 * generation, all processes) and summary (the whole trace, one row). Records of a process
 * start with `process_id`. Columns are the table's values in its order, a nested JSON object's
 * members named by their path ("loh_compact_heaps"). Empty cell = not in the trace (never 0).
 * Every row ends with `trace_complete`, so a loss is visible to any consumer of a table.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "stats_out.h"

/* Whether entry m is a column (and, for COUNTS, one per name). */
static int is_column(const gcev_stats_metric *m)
{
    if (m->flags & GCEV_STATS_M_HIDDEN) {
        return 0;
    }
    switch (m->type) {
    case GCEV_STATS_T_OBJECT:
    case GCEV_STATS_T_RECORD:
    case GCEV_STATS_T_RECORDS:
        return 0;
    case GCEV_STATS_T_ARRAY:
        return m->size > 0; /* its count */
    default:
        return 1;
    }
}

static void column_name(FILE *f, const gcev_stats_metric *m, const char *suffix)
{
    for (const char *g = m->group; g && *g; g++) {
        fputc(*g == '.' ? '_' : *g, f);
    }
    fprintf(f, "%s%s%s%s", m->group ? "_" : "", m->key, suffix ? "_" : "", suffix ? suffix : "");
}

/* The columns of kind's values (skip: a key already written as a leading column). */
static void sep(FILE *f, int *n)
{
    if ((*n)++) {
        fputc(',', f);
    }
}

/* n: columns written before (a separator goes before each new one when n > 0). */
static void header(FILE *f, unsigned kind, const char *skip, int n)
{
    for (size_t i = 0; i < gcev_stats_metric_count(kind); i++) {
        const gcev_stats_metric *m = gcev_stats_metric_at(kind, i);
        if (!is_column(m) || (skip && !m->group && !strcmp(m->key, skip))) {
            continue;
        }
        if (m->type == GCEV_STATS_T_COUNTS) {
            for (uint32_t k = 0; k < m->size; k++) {
                if (m->name(k)) {
                    sep(f, &n);
                    column_name(f, m, m->name(k));
                }
            }
            continue;
        }
        sep(f, &n);
        column_name(f, m, NULL);
    }
}

static void cell(FILE *f, const gcev_stats_metric *m, const void *rec, int *n)
{
    gcev_stats_val v;
    int has = gcev_stats_value(rec, m, &v);
    if (m->type == GCEV_STATS_T_COUNTS) {
        for (uint32_t k = 0; k < m->size; k++) {
            if (m->name(k)) {
                sep(f, n);
                if (has) {
                    fprintf(f, "%u", ((const uint8_t *)rec + m->offset)[k]);
                }
            }
        }
        return;
    }
    sep(f, n);
    if (!has) {
        return;
    }
    switch (m->type) {
    case GCEV_STATS_T_I64:
        fprintf(f, "%lld", (long long)v.i);
        break;
    case GCEV_STATS_T_F64:
        if (isinf(v.f)) {
            fputs(v.f > 0 ? "inf" : "-inf", f); /* what Python's float() and pandas read */
        } else if (m->decimals < 0) {
            fprintf(f, "%.10g", v.f);
        } else {
            fprintf(f, "%.*f", m->decimals, v.f);
        }
        break;
    case GCEV_STATS_T_BOOL:
        fputs(v.u ? "true" : "false", f);
        break;
    case GCEV_STATS_T_ENUM:
        if (m->flags & GCEV_STATS_M_NAME) {
            fputs(v.name ? v.name : "", f); /* our names have no commas or quotes */
        } else {
            fprintf(f, "%llu", (unsigned long long)v.u);
        }
        break;
    case GCEV_STATS_T_BITS: /* the names of its bits, joined by '|' */
        for (unsigned bit = 0, k = 0; bit < 64; bit++) {
            const char *name = (v.u >> bit) & 1 ? m->name(bit) : NULL;
            if (name) {
                fprintf(f, "%s%s", k++ ? "|" : "", name);
            }
        }
        break;
    case GCEV_STATS_T_TEXT:
        fputs(v.text, f);
        break;
    default: /* U64, ARRAY counts */
        fprintf(f, "%llu", (unsigned long long)v.u);
        break;
    }
}

/* The cells of a record's values, in header() order; gen >= 0: a generation's GCStats. */
static void row(FILE *f, unsigned kind, const void *rec, const char *skip, int gen, int n)
{
    for (size_t i = 0; i < gcev_stats_metric_count(kind); i++) {
        const gcev_stats_metric *m = gcev_stats_metric_at(kind, i);
        if (!is_column(m) || (skip && !m->group && !strcmp(m->key, skip))) {
            continue;
        }
        if (gen >= 0 && (m->flags & GCEV_STATS_M_PROCESS_ONLY)) {
            sep(f, &n);
            continue;
        }
        cell(f, m, rec, &n);
    }
}

static void end_row(FILE *f, int complete)
{
    fputs(complete ? ",true\n" : ",false\n", f);
}

static void gcs(FILE *f, const stats_report *r, int complete)
{
    fputs("process_id", f);
    header(f, GCEV_STATS_KIND_GC, "process_id", 1);
    fputs(",trace_complete\n", f);
    for (size_t i = 0; i < gcev_stats_gc_count(r->s); i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        if (stats_selected(r, g)) {
            fprintf(f, "%u", g->process_id);
            row(f, GCEV_STATS_KIND_GC, g, "process_id", -1, 1);
            end_row(f, complete);
        }
    }
}

static void generations(FILE *f, const stats_report *r, int complete)
{
    fputs("process_id,gc,gen", f);
    header(f, GCEV_STATS_KIND_GEN_HEAP, NULL, 3);
    fputs(",trace_complete\n", f);
    for (size_t i = 0; i < gcev_stats_gc_count(r->s); i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        for (unsigned k = 0; stats_selected(r, g) && k < GCEV_STATS_GENS; k++) {
            const gcev_stats_gen_heap *h = gcev_stats_gc_gen_at(r->s, g, k);
            if (h->present) {
                fprintf(f, "%u,%u,%s", g->process_id, g->number, gcev_stats_gen_name(k));
                row(f, GCEV_STATS_KIND_GEN_HEAP, h, NULL, -1, 3);
                end_row(f, complete);
            }
        }
    }
}

static void heaps(FILE *f, const stats_report *r, int complete)
{
    fputs("process_id,gc", f);
    header(f, GCEV_STATS_KIND_HEAP, NULL, 2);
    fputs(",trace_complete\n", f);
    for (size_t i = 0; i < gcev_stats_gc_count(r->s); i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        for (size_t k = 0; stats_selected(r, g) && k < g->heaps; k++) {
            fprintf(f, "%u,%u", g->process_id, g->number);
            row(f, GCEV_STATS_KIND_HEAP, gcev_stats_gc_heap_at(r->s, g, k), NULL, -1, 2);
            end_row(f, complete);
        }
    }
}

static void processes(FILE *f, const stats_report *r, int complete)
{
    fputs("process_id", f);
    header(f, GCEV_STATS_KIND_PROCESS, "process_id", 1);
    fputs(",trace_complete\n", f);
    for (size_t i = 0; i < gcev_stats_process_count(r->s); i++) {
        const gcev_stats_process *p = gcev_stats_process_at(r->s, i);
        if (stats_process_selected(r, p->process_id)) {
            fprintf(f, "%u", p->process_id);
            row(f, GCEV_STATS_KIND_PROCESS, p, "process_id", -1, 1);
            end_row(f, complete);
        }
    }
}

static void gcstats(FILE *f, const stats_report *r, int complete)
{
    fputs("process_id,scope", f);
    header(f, GCEV_STATS_KIND_GCSTATS, NULL, 2);
    fputs(",trace_complete\n", f);
    for (size_t i = 0; i < gcev_stats_process_count(r->s); i++) {
        const gcev_stats_process *p = gcev_stats_process_at(r->s, i);
        for (int g = -1; stats_process_selected(r, p->process_id) && g < 3; g++) {
            fprintf(f, "%u,%s", p->process_id, g < 0 ? "all" : gcev_stats_gen_name((unsigned)g));
            row(f, GCEV_STATS_KIND_GCSTATS,
                g < 0 ? gcev_stats_process_stats(r->s, p)
                      : gcev_stats_process_gen_stats(r->s, p, (unsigned)g),
                NULL, g, 2);
            end_row(f, complete);
        }
    }
}

static void gen_summaries(FILE *f, const stats_report *r, int complete)
{
    header(f, GCEV_STATS_KIND_GEN_SUMMARY, NULL, 0);
    fputs(",trace_complete\n", f);
    for (unsigned i = 0; i < 3; i++) {
        row(f, GCEV_STATS_KIND_GEN_SUMMARY, gcev_stats_generation(r->s, i), NULL, -1, 0);
        end_row(f, complete);
    }
}

static void summary(FILE *f, const stats_report *r, int complete)
{
    header(f, GCEV_STATS_KIND_SUMMARY, NULL, 0);
    fputs(",trace_complete\n", f);
    row(f, GCEV_STATS_KIND_SUMMARY, gcev_stats_get_summary(r->s), NULL, -1, 0);
    end_row(f, complete);
}

const char *const stats_csv_tables[] = {"gcs",     "generations",   "heaps",   "processes",
                                        "gcstats", "gen_summaries", "summary", NULL};

void stats_print_csv(FILE *f, const stats_report *r)
{
    static void (*const print[])(FILE *, const stats_report *,
                                 int) = {gcs, generations, heaps, processes, gcstats, gen_summaries, summary};
    int t = r->csv_table >= 0 && r->csv_table < 7 ? r->csv_table : 0;
    print[t](f, r, stats_complete(r));
}
