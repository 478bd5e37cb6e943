/* SPDX-License-Identifier: MIT */
/*
 * The page: head, warnings, summary, charts, the heap section (gcev_report_heap.c),
 * the per-GC table's data, the script.
 *
 * The charts are SVG drawn here (gcev_report_charts.c); the table is filled by the
 * page's script from the per-GC values embedded as JSON (one array per GC, the
 * columns named in "cols"), because it is sorted and paged in the page: the same
 * values as HTML rows would cost several times the bytes and could not be paged.
 * Summary figures carry data-key (the `gcev stats --format json` path of the same
 * value) and data-v (the value as that JSON writes it), which the browser test
 * compares. One precision per unit, as in `gcev stats` text: ms, s and MB with 3
 * decimals, percentages and rates (MB/s, per second) with 1.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcev_report_internal.h"

/* ---- small writers -------------------------------------------------------- */

static void ms3(gcev_rb *b, double v)
{
    if (isfinite(v)) {
        gcev_rb_printf(b, "%.3f", v);
    } else {
        gcev_rb_puts(b, "null"); /* the model promises finite values; the JSON stays valid regardless */
    }
}

/* A summary figure: `<div class="card"><span class="label">..</span><b data-key data-v>text</b>..`. */
static void card_open(gcev_rb *b, const char *label)
{
    gcev_rb_printf(b, "<div class=\"card\"><span class=\"label\">%s</span>", label);
}

static void fig_ms(gcev_rb *b, const char *key, double v, const char *unit)
{
    gcev_rb_printf(b, "<span class=\"fig\" data-key=\"%s\" data-v=\"%.3f\">", key, v);
    gcev_rb_fix(b, v, 3);
    gcev_rb_printf(b, "</span><span class=\"unit\">%s</span>", unit);
}

/* A percentage or a rate of the summary: 1 decimal; data-v as the JSON writes it (%.3f). */
static void fig_r1(gcev_rb *b, const char *key, double v, const char *unit)
{
    gcev_rb_printf(b, "<span class=\"fig\" data-key=\"%s\" data-v=\"%.3f\">", key, v);
    gcev_rb_fix(b, v, 1);
    gcev_rb_printf(b, "</span><span class=\"unit\">%s</span>", unit);
}

static void fig_u64(gcev_rb *b, const char *key, uint64_t v, const char *unit)
{
    gcev_rb_printf(
        b, "<span class=\"fig\" data-key=\"%s\" data-v=\"%llu\">%llu</span><span class=\"unit\">%s</span>",
        key, (unsigned long long)v, (unsigned long long)v, unit);
}

static void fig_mb(gcev_rb *b, const char *key, uint64_t bytes)
{
    gcev_rb_printf(b, "<span class=\"fig\" data-key=\"%s\" data-v=\"%llu\">", key, (unsigned long long)bytes);
    gcev_rb_fix(b, (double)bytes / 1e6, 3);
    gcev_rb_puts(b, "</span><span class=\"unit\">MB</span>");
}

/* ---- head and warnings ---------------------------------------------------- */

static void head(gcev_rep *r, const gcev_report_facts *f)
{
    gcev_rb *b = r->b;
    gcev_rb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                    /* nothing may be fetched: the page is whole as it is */
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
                    "form-action 'none'\"><title>GC report");
    if (f->source) {
        gcev_rb_puts(b, ": ");
        gcev_rb_html(b, f->source);
    }
    gcev_rb_puts(b, "</title><style>");
    gcev_rb_puts(b, gcev_report_css);
    gcev_rb_puts(b, "</style></head>\n<body><header><h1>GC report</h1>");
    if (f->source) {
        gcev_rb_puts(b, "<p class=\"source\" id=\"source\">");
        gcev_rb_html(b, f->source);
        gcev_rb_puts(b, "</p>");
    }
    gcev_rb_puts(b, "<p class=\"facts\">");
    const gcev_trace_info *in = f->info;
    const gcev_stats_summary *s = r->sum;
    if (in) {
        gcev_rb_html(b, gcev_trace_format_name(in->format));
        gcev_rb_printf(b, " v%u &middot; %u-bit", in->format_version, in->pointer_size * 8u);
        if (in->process_id) {
            gcev_rb_printf(b, " &middot; process %u", in->process_id);
        }
        if (in->file_size) {
            gcev_rb_puts(b, " &middot; ");
            gcev_rb_fix(b, (double)in->file_size / 1e6, 3);
            gcev_rb_puts(b, " MB file");
        }
        gcev_rb_puts(b, " &middot; ");
    }
    if (f->process_name) {
        gcev_rb_html(b, f->process_name);
        gcev_rb_puts(b, " &middot; ");
    }
    gcev_rb_printf(b, "%llu events, %llu GC%s over ", (unsigned long long)s->events,
                   (unsigned long long)s->gc_count, s->gc_count == 1 ? "" : "s");
    gcev_rb_fix(b, s->duration_ms / 1000, 3);
    gcev_rb_puts(b, " s</p>");
    if (gcev_stats_get_options(r->s)->traceevent_compat) {
        /* the numbers are TraceEvent's, defects included: a reader must know before reading them */
        gcev_rb_puts(b, "<p class=\"mode\" id=\"compat\">TraceEvent compatibility mode (<code>--compat "
                        "traceevent</code>): TraceEvent 4.0's numbers, its defects included "
                        "(doc/stats.md lists them).</p>");
    }
    gcev_rb_puts(b, "</header>\n");
}

static void warning(gcev_rb *b, const char *kind)
{
    gcev_rb_printf(b, "<li data-kind=\"%s\">", kind);
}

static void warnings(gcev_rep *r, const gcev_report_facts *f)
{
    const gcev_stats_summary *s = r->sum;
    uint64_t incomplete = 0;
    for (size_t i = 0; i < r->n; i++) {
        incomplete += (gcev_stats_gc_at(r->s, i)->flags & GCEV_STATS_GC_INCOMPLETE) != 0;
    }
    uint64_t header_lost = f->info ? f->info->events_lost : 0;
    if (!s->dropped_events && !incomplete && !f->read_error && !s->unfinished_gcs && !s->decode_errors &&
        !s->limit_hit && !header_lost) {
        return;
    }
    gcev_rb *b = r->b;
    gcev_rb_puts(b, "<section id=\"warnings\" class=\"warnings\" role=\"alert\"><h2>&#9888; This analysis is "
                    "incomplete</h2><ul>");
    if (s->dropped_events) {
        warning(b, "dropped");
        gcev_rb_printf(
            b,
            "<b>%llu events were lost</b> (the runtime's buffers overflowed, or the reader could not "
            "keep up): pauses, sizes and counts may be missing or wrong.</li>",
            (unsigned long long)s->dropped_events);
    } else if (header_lost) {
        warning(b, "dropped");
        gcev_rb_printf(
            b, "<b>The trace's header reports %llu lost events</b>: GC statistics may be incomplete.</li>",
            (unsigned long long)header_lost);
    }
    if (incomplete) {
        warning(b, "incomplete");
        gcev_rb_printf(b,
                       "<b>%llu GC%s open when events were lost</b>: %s values may be wrong (marked "
                       "&#9888; in the table).</li>",
                       (unsigned long long)incomplete, incomplete == 1 ? " was" : "s were",
                       incomplete == 1 ? "its" : "their");
    }
    if (f->read_error) {
        warning(b, "truncated");
        gcev_rb_puts(b, "<b>The trace ends early</b>: ");
        gcev_rb_html(b, f->read_error);
        gcev_rb_puts(b, ". Only the events before that point are shown.</li>");
    }
    if (s->unfinished_gcs) {
        warning(b, "unfinished");
        gcev_rb_printf(b, "<b>%llu GC%s without an end</b> (no GCEnd in the trace): no duration%s.</li>",
                       (unsigned long long)s->unfinished_gcs, s->unfinished_gcs == 1 ? "" : "s",
                       s->unfinished_gcs == 1 ? "" : "s");
    }
    if (s->decode_errors) {
        warning(b, "decode");
        gcev_rb_printf(b, "<b>%llu GC event%s did not decode</b> and %s skipped.</li>",
                       (unsigned long long)s->decode_errors, s->decode_errors == 1 ? "" : "s",
                       s->decode_errors == 1 ? "was" : "were");
    }
    if (s->limit_hit) {
        warning(b, "limit");
        gcev_rb_puts(
            b, "<b>A segment, handle or AppDomain table hit its limit</b>: lifetimes are partial.</li>");
    }
    gcev_rb_puts(b, "</ul></section>\n");
}

/* ---- summary -------------------------------------------------------------- */

/* A cell of the rollup: data-key is the `gcev stats --format json` path, data-v the value as it writes it. */
static void cell_ms(gcev_rb *b, const char *key, int has, double v)
{
    if (has) {
        gcev_rb_printf(b, "<td data-key=\"%s\" data-v=\"%.3f\">%.3f</td>", key, v, v);
    } else {
        gcev_rb_puts(b, "<td class=\"absent\">&ndash;</td>");
    }
}

static void cell_u64(gcev_rb *b, const char *key, uint64_t v)
{
    gcev_rb_printf(b, "<td data-key=\"%s\" data-v=\"%llu\">%llu</td>", key, (unsigned long long)v,
                   (unsigned long long)v);
}

/* Bytes shown as MB; data-v keeps the JSON's bytes (%lld, or %.10g for a mean). */
static void cell_mb(gcev_rb *b, const char *key, int has, double bytes, int mean)
{
    if (!has) {
        gcev_rb_puts(b, "<td class=\"absent\">&ndash;</td>");
        return;
    }
    if (mean) {
        gcev_rb_printf(b, "<td data-key=\"%s\" data-v=\"%.10g\">", key, bytes);
    } else {
        gcev_rb_printf(b, "<td data-key=\"%s\" data-v=\"%lld\">", key, (long long)bytes);
    }
    gcev_rb_fix(b, bytes / 1e6, 3);
    gcev_rb_puts(b, "</td>");
}

static void cell_f(gcev_rb *b, const char *key, int has, double v, int decimals)
{
    if (!has) {
        gcev_rb_puts(b, "<td class=\"absent\">&ndash;</td>");
        return;
    }
    if (key) {
        gcev_rb_printf(b, "<td data-key=\"%s\" data-v=\"%.10g\">", key, v);
    } else {
        gcev_rb_printf(b, "<td class=\"own\" data-v=\"%.10g\">", v);
    }
    gcev_rb_fix(b, v, decimals);
    gcev_rb_puts(b, "</td>");
}

/* One row of PerfView's GCStats rollup (gen < 0: the process's GCs of every generation). */
static void rollup_row(gcev_rb *b, size_t pi, int gen, const gcev_stats_gcstats *st,
                       const gcev_stats_pauses *pz, int compat)
{
    char base[64], k[128], pb[96];
    int means = (st->present & GCEV_STATS_GCSTATS_HAS_MEANS) != 0;
    int any = st->count > 0; /* a generation without GCs has no totals either: "–", as other empty cells */
    if (gen < 0) {
        snprintf(base, sizeof base, "processes.%zu.gcstats", pi);
        snprintf(pb, sizeof pb, "processes.%zu.pauses.all", pi);
        gcev_rb_puts(b, "<tr class=\"all\"><th scope=\"row\">All</th>");
    } else {
        snprintf(base, sizeof base, "processes.%zu.generations.%d", pi, gen);
        snprintf(pb, sizeof pb, "processes.%zu.pauses.gen%d", pi, gen);
        gcev_rb_printf(b, "<tr><th scope=\"row\"><i class=\"sw g%d\"></i>gen%d</th>", gen, gen);
    }
#define K(name) (snprintf(k, sizeof k, "%s.%s", base, name), k)
#define P(name) (snprintf(k, sizeof k, "%s.%s", pb, name), k)
    cell_u64(b, K("count"), st->count);
    cell_u64(b, K("induced"), st->induced);
    cell_ms(b, K("pause_total_ms"), any, st->pause_total_ms);
    cell_ms(b, K("pause_mean_ms"), means, st->pause_mean_ms);
    cell_ms(b, P("p50_ms"), pz->count > 0, pz->p50_ms);
    cell_ms(b, P("p90_ms"), pz->count > 0, pz->p90_ms);
    cell_ms(b, P("p99_ms"), pz->count > 0, pz->p99_ms);
    cell_ms(b, K("pause_max_ms"), means, st->pause_max_ms);
    cell_mb(b, K("size_peak_max"), means, (double)st->size_peak_max, 0);
    cell_mb(b, K("size_after_mean"), means, st->size_after_mean, 1);
    cell_mb(b, K("allocated_total"), any, (double)st->allocated_total, 0);
    if (compat) {
        cell_f(b, K("alloc_rate_max_mb_per_sec"), means, st->alloc_rate_max, 1);
    } else {
        /* gcev's own value, not in stats JSON v4: no data-key (test_report.c checks it) */
        cell_f(b, NULL, (st->present & GCEV_STATS_GCSTATS_HAS_SUSTAINED_RATE) != 0,
               st->alloc_rate_max_sustained, 1);
    }
    cell_mb(b, K("promoted_total"), any, (double)st->promoted_total, 0);
#undef K
#undef P
    gcev_rb_puts(b, "</tr>");
}

/* PerfView's GCStats per process: its complete GCs, all and per condemned generation. */
static void rollups(gcev_rep *r)
{
    gcev_rb *b = r->b;
    int compat = gcev_stats_get_options(r->s)->traceevent_compat != 0;
    size_t np = gcev_stats_process_count(r->s);
    for (size_t i = 0; i < np; i++) {
        const gcev_stats_process *p = gcev_stats_process_at(r->s, i);
        const gcev_stats_gcstats *all = gcev_stats_process_stats(r->s, p);
        gcev_rb_printf(b, "<div class=\"rollup\" id=\"rollup-%zu\"><h3>", i);
        if (p->process_id) {
            gcev_rb_printf(b, "Process %u: ", p->process_id);
        }
        gcev_rb_printf(b,
                       "<span data-key=\"processes.%zu.complete_gcs\" data-v=\"%llu\">%llu</span> complete "
                       "GC%s of %llu",
                       i, (unsigned long long)p->complete_count, (unsigned long long)p->complete_count,
                       p->complete_count == 1 ? "" : "s", (unsigned long long)p->gc_count);
        if ((all->present & GCEV_STATS_GCSTATS_HAS_DURATION) && all->process_duration_ms != 0) {
            gcev_rb_printf(b,
                           "; <span data-key=\"processes.%zu.gcstats.pause_time_percent\" data-v=\"%.10g\">",
                           i, all->pause_time_percent);
            gcev_rb_fix(b, all->pause_time_percent, 1);
            gcev_rb_puts(b, "</span>% of its time paused");
        }
        if (all->present & GCEV_STATS_GCSTATS_HAS_HEAP_COUNT) {
            gcev_rb_printf(
                b, "; <span data-key=\"processes.%zu.gcstats.heap_count\" data-v=\"%d\">%d</span> heap%s", i,
                all->heap_count, all->heap_count, all->heap_count == 1 ? "" : "s");
        }
        gcev_rb_puts(b,
                     "</h3><div class=\"tablewrap\"><table class=\"rollup\"><caption>PerfView's GCStats, by "
                     "the generation each GC condemned (GCs with a GCEnd, HeapStats and restart); MB = "
                     "10<sup>6</sup> bytes</caption><thead><tr><th>Gen</th><th>GCs</th><th>Induced</th>"
                     "<th>Pause total ms</th><th>Mean ms</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th>"
                     "<th>Max ms</th><th>Peak MB (max)</th><th>After MB (mean)</th>"
                     "<th title=\"What each GC found allocated since the GC before (TraceEvent's "
                     "AllocedSinceLastGCMB), summed\">Allocated MB (GC-observed)</th>");
        gcev_rb_puts(b, compat
                            ? "<th title=\"TraceEvent's MaxAllocRateMBSec: one GC's allocation over the time "
                              "since the GC before, however short\">Max alloc MB/s (TraceEvent)</th>"
                            : "<th title=\"The highest GC-observed allocation rate over at least 10 ms of "
                              "program time between GCs\">Max alloc MB/s (over &ge; 10 ms)</th>");
        gcev_rb_puts(b, "<th>Promoted MB</th></tr></thead><tbody>");
        rollup_row(b, i, -1, all, &p->pauses, compat);
        for (int g = 0; g < 3; g++) {
            rollup_row(b, i, g, gcev_stats_process_gen_stats(r->s, p, (unsigned)g), &p->pauses_by_gen[g],
                       compat);
        }
        gcev_rb_puts(b, "</tbody></table></div></div>");
    }
}

static void summary(gcev_rep *r)
{
    const gcev_stats_summary *s = r->sum;
    gcev_rb *b = r->b;
    int dur = (s->present & GCEV_STATS_SUM_HAS_DURATION) != 0;
    int pause = (s->present & GCEV_STATS_SUM_HAS_PAUSE) != 0;
    int alloc = (s->present & GCEV_STATS_SUM_HAS_ALLOCATION) != 0;
    gcev_rb_puts(b, "<section id=\"summary\"><h2>Summary</h2><div class=\"cards\">");

    card_open(b, "GCs");
    fig_u64(b, "summary.gc_count", s->gc_count, "");
    if (dur) {
        gcev_rb_puts(b, "<span class=\"sub\">");
        fig_r1(b, "summary.gcs_per_sec", s->gcs_per_sec, "per second");
        gcev_rb_puts(b, "</span>");
    }
    gcev_rb_puts(b, "</div>");

    card_open(b, "GC mode");
    if (s->present & GCEV_STATS_SUM_HAS_HEAP_COUNT) {
        const char *mode = s->heap_count > 1 ? "server" : "workstation";
        gcev_rb_printf(b, "<span class=\"fig word\" data-key=\"summary.gc_mode\" data-v=\"%s\">%s</span>",
                       mode, mode);
        gcev_rb_puts(b, "<span class=\"sub\">");
        fig_u64(b, "summary.heap_count", (uint64_t)s->heap_count, s->heap_count == 1 ? "heap" : "heaps");
        gcev_rb_puts(b, "</span>");
    } else {
        gcev_rb_puts(b, "<span class=\"fig absent\">not in the trace</span><span class=\"sub\">no "
                        "GCGlobalHeapHistory events</span>");
    }
    gcev_rb_puts(b, "</div>");

    card_open(b, "Time paused");
    if (pause) {
        fig_ms(b, "summary.pause_total_ms", s->pause_total_ms, "ms");
        if (dur) {
            gcev_rb_puts(b, "<span class=\"sub\">");
            fig_r1(b, "summary.pause_percent", s->pause_percent, "% of the trace");
            gcev_rb_puts(b, "</span>");
        }
    } else {
        gcev_rb_puts(b, "<span class=\"fig absent\">not in the trace</span><span class=\"sub\">no "
                        "suspension events</span>");
    }
    gcev_rb_puts(b, "</div>");

    if (pause) {
        card_open(b, "Longest pause");
        fig_ms(b, "summary.pause_max_ms", s->pause_max_ms, "ms");
        gcev_rb_printf(b,
                       "<span class=\"sub\">GC <a href=\"#gc-table\" class=\"gclink\" data-n=\"%u\" "
                       "data-key=\"summary.pause_max_gc\" data-v=\"%u\">#%u</a></span></div>",
                       s->pause_max_gc, s->pause_max_gc, s->pause_max_gc);
    }

    if (gcev_stats_process_count(r->s) == 1 && gcev_stats_process_at(r->s, 0)->pauses.count) {
        const gcev_stats_pauses *pz = &gcev_stats_process_at(r->s, 0)->pauses;
        card_open(b, "Pause percentiles");
        fig_ms(b, "processes.0.pauses.all.p50_ms", pz->p50_ms, "ms median");
        gcev_rb_puts(b, "<span class=\"sub\">p90 ");
        fig_ms(b, "processes.0.pauses.all.p90_ms", pz->p90_ms, "ms");
        gcev_rb_puts(b, " &middot; p99 ");
        fig_ms(b, "processes.0.pauses.all.p99_ms", pz->p99_ms, "ms");
        gcev_rb_puts(b, "</span></div>");
    }

    /* two allocation figures disagree by nature: this card's is the AllocationTick samples', the
     * GCStats rollup's what the GCs observed; each says which it is */
    card_open(b, "Allocated (AllocationTick sum)");
    if (alloc) {
        fig_mb(b, "summary.allocated_bytes", s->allocated_bytes);
        if (dur) {
            gcev_rb_puts(b, "<span class=\"sub\">");
            fig_r1(b, "summary.alloc_mb_per_sec", s->alloc_mb_per_sec, "MB/s over the trace");
            gcev_rb_puts(b, "</span>");
        }
    } else {
        gcev_rb_puts(b, "<span class=\"fig absent\">not in the trace</span><span class=\"sub\">no "
                        "AllocationTick events</span>");
    }
    gcev_rb_puts(b, "</div>");

    card_open(b, "Trace");
    if (s->events) {
        /* long traces read better in seconds; data-v keeps the JSON's ms */
        int secs = s->duration_ms >= 10000;
        gcev_rb_printf(b, "<span class=\"fig\" data-key=\"summary.duration_ms\" data-v=\"%.3f\">",
                       s->duration_ms);
        gcev_rb_fix(b, secs ? s->duration_ms / 1000 : s->duration_ms, 3);
        gcev_rb_printf(b, "</span><span class=\"unit\">%s</span>", secs ? "s" : "ms");
    }
    gcev_rb_puts(b, "<span class=\"sub\">");
    fig_u64(b, "summary.events", s->events, "events");
    gcev_rb_puts(b, "</span></div>");

    if (s->other_suspensions) {
        card_open(b, "Other suspensions");
        fig_u64(b, "summary.other_suspensions", s->other_suspensions, "");
        gcev_rb_puts(b, "<span class=\"sub\">");
        fig_ms(b, "summary.other_suspended_ms", s->other_suspended_ms, "ms with no GC inside");
        gcev_rb_puts(b, "</span></div>");
    }
    gcev_rb_puts(b, "</div>");
    if (gcev_stats_process_count(r->s)) {
        gcev_rb_puts(b, "<p class=\"hint\" id=\"alloc-note\">Two allocation figures, which differ by nature: "
                        "<b>Allocated (AllocationTick sum)</b> adds up the runtime's allocation samples (one "
                        "per ~100 KB) over the whole trace; <b>Allocated MB (GC-observed)</b> in the tables "
                        "below adds what each complete GC found allocated since the GC before (TraceEvent's "
                        "AllocedSinceLastGCMB), so it misses what no GC saw yet.</p>");
    }

    rollups(r);
    gcev_rb_puts(b, "</section>\n");
}

/* ---- the per-GC table ----------------------------------------------------- */

/* The columns of each GC's array in the page data; page.js names them in its table. */
/*
 * The per-GC data: one column per metric of the analysis's table (gcev_stats.h), read
 * with gcev_stats_value() as `gcev stats` JSON and CSV read them, so that the page names
 * no member of gcev_stats_gc itself. `gen` >= 0: the metric of that generation's record
 * (gcs[].heap[gen]). page.js knows the columns by their short names.
 */
typedef struct gc_col {
    const char *name; /* page.js's name */
    const char *path; /* metric path in its table */
    int gen;          /* -1: a GC metric; else GCEV_STATS_KIND_GEN_HEAP of gens[gen] */
} gc_col;

static const gc_col cols[] = {
    {"n", "number", -1},
    {"gen", "generation", -1},
    {"type", "type", -1},
    {"reason", "reason", -1},
    {"start", "start_ms", -1},
    {"end", "end_ms", -1},
    {"pause", "pause_ms", -1},
    {"dur", "duration_ms", -1},
    {"susp", "suspension_ms", -1},
    {"prom", "promoted_bytes", -1},
    {"alloc", "allocated_bytes", -1},
    {"rate", "alloc_rate_mb_per_sec", -1},
    {"hb", "heap_size_before", -1},
    {"ha", "heap_size_after", -1},
    {"hp", "heap_size_peak", -1},
    {"b0", "size_before", 0},
    {"b1", "size_before", 1},
    {"b2", "size_before", 2},
    {"b3", "size_before", 3},
    {"b4", "size_before", 4},
    {"a0", "size_after", 0},
    {"a1", "size_after", 1},
    {"a2", "size_after", 2},
    {"a3", "size_after", 3},
    {"a4", "size_after", 4},
    {"heaps", "heap_count", -1},
    {"datas", "datas_heap_count", -1},
    {"flags", "flags", -1},
    {"nested", "nested_in", -1},
    {"pinned", "pinned_objects", -1},
    {"pid", "process_id", -1},
    {"label", "label", -1},
};
#define GC_COLS (sizeof cols / sizeof cols[0])

/* The metric of each column. GCEV_E_UNSUPPORTED when the table lacks one: a key renamed in
 * gcev_stats_metrics.c but not here, which every test that builds a page would show. */
static gcev_status gc_col_metrics(const gcev_stats_metric *m[GC_COLS])
{
    for (size_t c = 0; c < GC_COLS; c++) {
        unsigned kind = cols[c].gen < 0 ? GCEV_STATS_KIND_GC : GCEV_STATS_KIND_GEN_HEAP;
        m[c] = gcev_stats_metric_find(kind, cols[c].path);
        if (!m[c]) {
            return GCEV_E_UNSUPPORTED;
        }
    }
    return GCEV_OK;
}

/* One GC's row: numbers as integers or with 3 decimals (the page rounds for display), a label
 * as a string, null where the trace lacks the value. */
static void gc_row(gcev_rb *b, const gcev_stats *s, const gcev_stats_gc *g,
                   const gcev_stats_metric *const m[GC_COLS])
{
    gcev_rb_putc(b, '[');
    for (size_t c = 0; c < GC_COLS; c++) {
        const void *rec = cols[c].gen < 0 ? (const void *)g
                                          : (const void *)gcev_stats_gc_gen_at(s, g, (unsigned)cols[c].gen);
        gcev_stats_val v;
        if (c) {
            gcev_rb_putc(b, ',');
        }
        if (!gcev_stats_value(rec, m[c], &v)) {
            gcev_rb_puts(b, "null");
            continue;
        }
        switch (v.type) {
        case GCEV_STATS_T_F64:
            ms3(b, v.f);
            break;
        case GCEV_STATS_T_I64:
            gcev_rb_printf(b, "%lld", (long long)v.i);
            break;
        case GCEV_STATS_T_TEXT:
            gcev_rb_json_str(b, v.text);
            break;
        default:
            gcev_rb_printf(b, "%llu", (unsigned long long)v.u);
            break;
        }
    }
    gcev_rb_putc(b, ']');
}

/* A column of the GC table: its data column, its page.js format, its heading and what it means. */
static void th(gcev_rb *b, const char *c, const char *f, const char *text, const char *title)
{
    int words = !strcmp(f, "label") || !strcmp(f, "reason") || !strcmp(f, "flags"); /* left-aligned */
    gcev_rb_printf(b, "<th data-c=\"%s\" data-f=\"%s\"%s title=\"%s\">%s</th>", c, f,
                   words ? " class=\"l\"" : "", title, text);
}

static void table(gcev_rep *r, uint32_t rows)
{
    gcev_rb *b = r->b;
    gcev_rb_printf(b,
                   "<section id=\"gcs\"><h2>Every GC</h2><p class=\"hint\">%zu GC%s%s. Click "
                   "a column to sort; click a chart mark to find its GC here; hover a heading for its "
                   "meaning. Times in ms from the trace start; MB = 10<sup>6</sup> bytes.</p>"
                   "<nav class=\"pager\" id=\"pager\" hidden></nav>"
                   "<div class=\"tablewrap\"><table id=\"gc-table\" data-rows=\"%u\"><thead><tr>",
                   r->n, r->n == 1 ? "" : "s", r->n > rows ? ", in pages" : "", rows);
    th(b, "n", "int", "GC #", "The runtime's GC number (GCStart Count), counted per process");
    if (gcev_stats_process_count(r->s) > 1) {
        /* several processes each count their GCs from 1: the number alone names no GC */
        th(b, "pid", "int", "PID", "The process the GC ran in");
    }
    th(b, "gen", "label", "Gen",
       "PerfView's label: the generation condemned, then N blocking, B background, F foreground; "
       "I induced, i induced but not forced");
    th(b, "reason", "reason", "Reason", "Why the GC ran (GCStart Reason)");
    th(b, "start", "ms", "Start ms", "GCStart, ms from the trace start");
    th(b, "pause", "ms", "Pause ms", "Threads stopped: SuspendEE begin to RestartEE end");
    th(b, "dur", "ms", "GC ms", "GCStart to GCEnd");
    th(b, "susp", "ms", "Suspend ms", "SuspendEE begin to SuspendEE end: the time to stop the threads");
    th(b, "hb", "mb", "Before MB", "Heap size before the GC");
    th(b, "ha", "mb", "After MB", "Heap size after the GC (GCHeapStats)");
    th(b, "hp", "mb", "Peak MB",
       "Heap size before, or for a background GC the largest before of the GCs in it");
    th(b, "prom", "mb", "Promoted MB", "Bytes that survived the GC (GCHeapStats TotalPromotedSize)");
    th(b, "rate", "rate", "Alloc MB/s",
       "GC-observed allocation since the GC before over the time since it (TraceEvent's AllocRateMBSec)");
    th(b, "a0", "mb", "Gen0 MB", "Generation 0 after the GC");
    th(b, "a1", "mb", "Gen1 MB", "Generation 1 after the GC");
    th(b, "a2", "mb", "Gen2 MB", "Generation 2 after the GC");
    th(b, "a3", "mb", "LOH MB", "Large object heap after the GC");
    th(b, "a4", "mb", "POH MB", "Pinned object heap after the GC");
    th(b, "heaps", "int", "Heaps", "GC heaps (more than 1: server GC)");
    th(b, "flags", "flags", "Notes", "What to know about the GC's numbers");
    gcev_rb_puts(b,
                 "</tr></thead><tbody></tbody></table></div>"
                 "<p class=\"hint\" id=\"gc-legend\"><b>Gen</b> is PerfView's label: the generation the GC "
                 "condemned, then <b>N</b> blocking (non-concurrent), <b>B</b> background, <b>F</b> "
                 "foreground (an ephemeral GC during a background GC); <b>I</b> induced "
                 "(GC.Collect), <b>i</b> induced but not forced. E.g. <b>2NI</b>: a blocking gen2 GC "
                 "that GC.Collect asked for; <b>2B</b>: a background gen2 GC. "
                 "<b>&ndash;</b>: not in the trace.</p></section>\n");
}

static gcev_status data_json(gcev_rep *r, uint32_t rows)
{
    gcev_rb *b = r->b;
    const gcev_stats_metric *m[GC_COLS];
    gcev_status st = gc_col_metrics(m);
    if (st != GCEV_OK) {
        return st;
    }
    gcev_rb_puts(b, "<script type=\"application/json\" id=\"gcev-data\">{\"cols\":[");
    for (size_t i = 0; i < GC_COLS; i++) {
        gcev_rb_printf(b, "%s\"%s\"", i ? "," : "", cols[i].name);
    }
    gcev_rb_printf(b, "],\"rows\":%u,\"sx\":[", rows);
    ms3(b, r->t0);
    gcev_rb_putc(b, ',');
    ms3(b, r->t1);
    gcev_rb_printf(b, ",%d,%d],\"types\":[", GCEV_REPORT_PLOT_L, GCEV_REPORT_PLOT_W);
    for (uint32_t t = 0; t < 3; t++) {
        gcev_rb_printf(b, "%s", t ? "," : "");
        gcev_rb_json_str(b, gcev_stats_gc_type_name(t));
    }
    /* the names of the reasons the GCs have */
    gcev_rb_puts(b, "],\"reasons\":{");
    uint8_t seen[256] = {0};
    int nr = 0;
    for (size_t i = 0; i < r->n; i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        if (!(g->present & GCEV_STATS_GC_HAS_REASON) || (g->reason < 256 && seen[g->reason])) {
            continue;
        }
        const char *name = gcev_gc_reason_name(g->reason); /* reasons 10-17 too, as the JSON's reason_name */
        if (g->reason < 256) {
            seen[g->reason] = 1;
        }
        if (name) {
            gcev_rb_printf(b, "%s\"%u\":", nr++ ? "," : "", g->reason);
            gcev_rb_json_str(b, name);
        }
    }
    gcev_rb_puts(b, "},\"charts\":{");
    gcev_rb_put(b, r->ix->p ? r->ix->p : "", r->ix->n);
    gcev_rb_puts(b, "},\"gcs\":[");
    for (size_t i = 0; i < r->n; i++) {
        if (i) {
            gcev_rb_puts(b, ",\n");
        }
        gc_row(b, r->s, gcev_stats_gc_at(r->s, i), m);
    }
    gcev_rb_puts(b, "]}</script>\n");
    return GCEV_OK;
}

/* ---- the page ------------------------------------------------------------- */

static gcev_status build(const gcev_stats *s, const gcev_report_facts *facts, const gcev_report_options *opts,
                         const gcev_report_extras *ex, gcev_rb *b)
{
    /* a member of the extras counts only when the caller's record is large enough to hold it */
#define EXTRA(m) (ex && ex->size >= offsetof(gcev_report_extras, m) + sizeof ex->m ? ex->m : NULL)
    static const gcev_report_facts none = {0};
    const gcev_report_facts *f = facts ? facts : &none;
    gcev_rb ix = {0};
    gcev_rep r = {0};
    r.s = s;
    r.sum = gcev_stats_get_summary(s);
    r.n = gcev_stats_gc_count(s);
    r.b = b;
    r.ix = &ix;
    r.max_marks = opts && opts->max_marks ? opts->max_marks : GCEV_REPORT_DEFAULT_MARKS;
    if (r.max_marks < GCEV_REPORT_MIN_MARKS) {
        r.max_marks = GCEV_REPORT_MIN_MARKS;
    }
    uint32_t rows = opts && opts->page_rows ? opts->page_rows
                                            : (r.n <= GCEV_REPORT_DEFAULT_MARKS ? (uint32_t)(r.n ? r.n : 1)
                                                                                : GCEV_REPORT_DEFAULT_ROWS);
    size_t alloc_n = r.n ? r.n : 1;
    r.t = malloc(alloc_n * sizeof *r.t);
    r.key = malloc(alloc_n * sizeof *r.key);
    r.has = malloc(alloc_n);
    r.sel = malloc(alloc_n * sizeof *r.sel);
    gcev_status st = GCEV_OK;
    if (!r.t || !r.key || !r.has || !r.sel) {
        st = GCEV_E_NOMEM;
        goto out;
    }
    /* the time domain: the trace's span, widened to every GC */
    r.t0 = r.sum->events ? r.sum->first_ms : 0;
    r.t1 = r.sum->events ? r.sum->last_ms : 0;
    for (size_t i = 0; i < r.n; i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(s, i);
        r.t[i] = g->start_ms;
        r.t0 = g->start_ms < r.t0 ? g->start_ms : r.t0;
        r.t1 = g->start_ms > r.t1 ? g->start_ms : r.t1;
        if ((g->present & GCEV_STATS_GC_HAS_END) && g->end_ms > r.t1) {
            r.t1 = g->end_ms;
        }
    }
    if (!(r.t1 > r.t0)) {
        r.t1 = r.t0 + 1;
    }
    head(&r, f);
    warnings(&r, f);
    summary(&r);
    gcev_rb_puts(b, "<section id=\"charts\"><h2>Charts</h2><div class=\"charts\">");
    if (r.n == 0) {
        gcev_rb_puts(b,
                     "<p class=\"empty\" id=\"no-gc\">No GC in this trace: it holds no GCStart event of the "
                     ".NET runtime (was the GC keyword enabled?).</p>");
    }
    gcev_report_chart_pause(&r);
    gcev_report_chart_histogram(&r);
    gcev_report_chart_heap(&r);
    gcev_report_chart_alloc(&r);
    gcev_report_chart_heap_count(&r);
    gcev_rb_puts(b, "</div></section>\n");
    gcev_report_heap_section(b, EXTRA(heaps));
    gcev_report_allocs_section(b, EXTRA(allocs));
#undef EXTRA
    table(&r, rows);
    gcev_rb_puts(b, "<footer>");
    if (f->generator) {
        gcev_rb_puts(b, "Made by ");
        gcev_rb_html(b, f->generator);
        gcev_rb_puts(b, ". ");
    }
    gcev_rb_puts(
        b, "Pause: SuspendEE begin to RestartEE end. GC time: GCStart to GCEnd. Every figure comes from "
           "the GC analysis (gcev_stats.h); this page computes none.</footer>"
           "<div id=\"tip\" role=\"tooltip\" hidden></div>\n");
    if (ix.oom) {
        st = GCEV_E_NOMEM;
        goto out;
    }
    st = data_json(&r, rows);
    if (st != GCEV_OK) {
        goto out;
    }
    gcev_rb_puts(b, "<script>");
    gcev_rb_puts(b, gcev_report_js);
    gcev_rb_puts(b, "</script></body></html>\n");
    if (b->oom) {
        st = GCEV_E_NOMEM;
    }
out:
    free(ix.p);
    free(r.t);
    free(r.key);
    free(r.has);
    free(r.sel);
    return st;
}

gcev_status gcev_report_build(const gcev_stats *s, const gcev_report_facts *facts,
                              const gcev_report_options *opts, char **html, size_t *size)
{
    return gcev_report_build_ex(s, facts, opts, NULL, html, size);
}

gcev_status gcev_report_build_ex(const gcev_stats *s, const gcev_report_facts *facts,
                                 const gcev_report_options *opts, const gcev_report_extras *extras,
                                 char **html, size_t *size)
{
    if (html) {
        *html = NULL;
    }
    if (size) {
        *size = 0;
    }
    if (!s || !html) {
        return GCEV_E_INVALID_ARG;
    }
    gcev_rb b = {0};
    gcev_status st = build(s, facts, opts, extras, &b);
    if (st != GCEV_OK) {
        free(b.p);
        return st;
    }
    *html = b.p;
    if (size) {
        *size = b.n;
    }
    return GCEV_OK;
}

gcev_status gcev_report_write(const gcev_stats *s, const gcev_report_facts *facts,
                              const gcev_report_options *opts, gcev_report_write_fn write, void *ctx)
{
    return gcev_report_write_ex(s, facts, opts, NULL, write, ctx);
}

gcev_status gcev_report_write_ex(const gcev_stats *s, const gcev_report_facts *facts,
                                 const gcev_report_options *opts, const gcev_report_extras *extras,
                                 gcev_report_write_fn write, void *ctx)
{
    if (!s || !write) {
        return GCEV_E_INVALID_ARG;
    }
    gcev_rb b = {0};
    gcev_status st = build(s, facts, opts, extras, &b);
    for (size_t off = 0; st == GCEV_OK && off < b.n;) {
        size_t n = b.n - off < 65536 ? b.n - off : 65536;
        if (write(ctx, b.p + off, n)) {
            st = GCEV_E_IO;
        }
        off += n;
    }
    free(b.p);
    return st;
}

void gcev_report_free(char *html)
{
    free(html);
}
