/* SPDX-License-Identifier: MIT */
/*
 * gcev stats --list-metrics: the analysis's metric tables (gcev_stats_metric_at()) as
 * Markdown tables, one per record kind, or as JSON. doc/metrics.md holds the Markdown
 * between its markers and tests/cli checks that it is what this prints, so the
 * documented definitions are the table's, never a second copy edited by hand.
 */
#include <string.h>

#include "cli.h"
#include "stats_out.h"

/* Where each kind's records are in `gcev stats --format json`, and the CSV table of them. */
static const char *const kind_where[GCEV_STATS_KINDS] = {
    "`gcs[]`; CSV `--table gcs`",
    "`gcs[].heap[]`, one per generation; CSV `--table generations`",
    "`gcs[].heaps[]`, one per GC heap; CSV `--table heaps`",
    "`generations[]`, one per condemned generation; CSV `--table gen_summaries`",
    "`processes[].gcstats`, `processes[].generations[]`; CSV `--table gcstats`",
    "`processes[]`; CSV `--table processes`",
    "`summary`; CSV `--table summary`",
};

/* The path of m in its kind's JSON: "key" or "group.key". */
static void put_path(FILE *f, const gcev_stats_metric *m)
{
    if (m->group) {
        fprintf(f, "%s.", m->group);
    }
    fputs(m->key, f);
}

/* A Markdown table cell: '|' escaped, so a definition cannot open a column. */
static void put_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') {
            fputc('\\', f);
        }
        fputc(*s, f);
    }
}

/* What a reader must know beyond the definition: where the value is not written. */
static const char *notes(const gcev_stats_metric *m)
{
    if (m->flags & GCEV_STATS_M_NOT_JSON) {
        return " (CSV only)";
    }
    if (m->flags & GCEV_STATS_M_PROCESS_ONLY) {
        return " (a process's `all` scope only)";
    }
    return "";
}

static void print_markdown(FILE *f)
{
    for (unsigned k = 0; k < GCEV_STATS_KINDS; k++) {
        fprintf(f, "### %s\n\n%s.\n\n| key | unit | TraceEvent | definition |\n|---|---|---|---|\n",
                gcev_stats_kind_name(k), kind_where[k]);
        for (size_t i = 0; i < gcev_stats_metric_count(k); i++) {
            const gcev_stats_metric *m = gcev_stats_metric_at(k, i);
            if (m->flags & GCEV_STATS_M_HIDDEN) {
                continue;
            }
            fputs("| `", f);
            put_path(f, m);
            fprintf(f, "` | %s | ", gcev_stats_unit_name(m->unit));
            if (m->traceevent) {
                fputc('`', f);
                put_cell(f, m->traceevent);
                fputc('`', f);
            }
            fputs(" | ", f);
            put_cell(f, m->definition);
            put_cell(f, notes(m));
            fputs(" |\n", f);
        }
        fputc('\n', f);
    }
}

static const char *const type_names[] = {"u64",  "i64",    "f64",    "bool",   "enum",    "bits",
                                         "text", "counts", "object", "record", "records", "array"};

static void print_json(FILE *f)
{
    fprintf(f, "{\"json_version\":%d,\"metrics\":[", GCEV_JSON_VERSION_STATS);
    int first = 1;
    for (unsigned k = 0; k < GCEV_STATS_KINDS; k++) {
        for (size_t i = 0; i < gcev_stats_metric_count(k); i++) {
            const gcev_stats_metric *m = gcev_stats_metric_at(k, i);
            if (m->flags & GCEV_STATS_M_HIDDEN) {
                continue;
            }
            fprintf(f, "%s\n{\"kind\":\"%s\",\"path\":\"", first ? "" : ",", gcev_stats_kind_name(k));
            first = 0;
            put_path(f, m);
            fprintf(f, "\",\"type\":\"%s\",\"unit\":\"%s\",\"traceevent\":",
                    m->type < sizeof type_names / sizeof type_names[0] ? type_names[m->type] : "",
                    gcev_stats_unit_name(m->unit));
            if (m->traceevent) {
                gcev_cli_json_string(f, m->traceevent);
            } else {
                fputs("null", f);
            }
            fputs(",\"definition\":", f);
            gcev_cli_json_string(f, m->definition);
            fprintf(f, ",\"json\":%s,\"process_only\":%s}",
                    (m->flags & GCEV_STATS_M_NOT_JSON) ? "false" : "true",
                    (m->flags & GCEV_STATS_M_PROCESS_ONLY) ? "true" : "false");
        }
    }
    fputs("\n]}\n", f);
}

void stats_print_metrics(FILE *f, int json)
{
    if (json) {
        print_json(f);
    } else {
        print_markdown(f);
    }
}
