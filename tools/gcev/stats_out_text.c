/* SPDX-License-Identifier: MIT */
/*
 * gcev stats, text: for people, every line within 100 columns. A value whose
 * inputs are not in the trace prints as "-", never as 0. One precision per unit:
 * ms and MB with 3 decimals, percentages and rates (MB/s, per second) with 1.
 */
#include <stddef.h>
#include <string.h>

#include "stats_out.h"

enum { WIDTH = 100, LIST_MAX = 10 };

static const char *ms_s(char *buf, size_t n, int has, double v)
{
    if (!has) {
        return "-";
    }
    snprintf(buf, n, "%.3f", v);
    return buf;
}

/* Bytes as MB (10^6), the unit of PerfView's GCStats tables. */
static const char *mb_s(char *buf, size_t n, int has, uint64_t v)
{
    if (!has) {
        return "-";
    }
    snprintf(buf, n, "%.3f", (double)v / 1e6);
    return buf;
}

/* Percentages and rates: 1 decimal. */
static const char *r1_s(char *buf, size_t n, int has, double v)
{
    if (!has) {
        return "-";
    }
    snprintf(buf, n, "%.1f", v);
    return buf;
}

static const char *u64_s(char *buf, size_t n, int has, uint64_t v)
{
    if (!has) {
        return "-";
    }
    snprintf(buf, n, "%llu", (unsigned long long)v);
    return buf;
}

static const char *type_short(const gcev_stats_gc *g)
{
    if (!(g->present & GCEV_STATS_GC_HAS_TYPE)) {
        return "-";
    }
    switch (g->type) {
    case GCEV_STATS_BLOCKING:
        return "blk";
    case GCEV_STATS_BACKGROUND:
        return "BGC";
    case GCEV_STATS_FOREGROUND:
        return "FGC";
    default:
        return "?";
    }
}

static const char *reason_s(char *buf, size_t n, const gcev_stats_gc *g)
{
    if (!(g->present & GCEV_STATS_GC_HAS_REASON)) {
        return "-";
    }
    const char *name = gcev_gc_reason_name(g->reason);
    if (name) {
        return name;
    }
    snprintf(buf, n, "%u", g->reason);
    return buf;
}

/* The reason column's width: the longest name among the GCs shown (names are never cut). */
static int reason_width(const stats_report *r)
{
    int w = 6; /* "Reason" */
    for (size_t i = 0; i < gcev_stats_gc_count(r->s); i++) {
        char rs[16];
        int n = (int)strlen(reason_s(rs, sizeof rs, gcev_stats_gc_at(r->s, i)));
        w = n > w ? n : w;
    }
    return w;
}

/* A process id column only when the GCs come from more than one process ("GC 1" twice): its
 * width (the longest id, at least "PID"), or 0. */
static int pid_column(const stats_report *r)
{
    if (gcev_stats_process_count(r->s) < 2) {
        return 0;
    }
    int w = 3;
    for (size_t i = 0; i < gcev_stats_process_count(r->s); i++) {
        char id[16];
        int n = snprintf(id, sizeof id, "%u", gcev_stats_process_at(r->s, i)->process_id);
        w = n > w ? n : w;
    }
    return w;
}

static void print_header(FILE *f, const stats_report *r)
{
    const gcev_stats_summary *sum = gcev_stats_get_summary(r->s);
    const gcev_trace_info *in = r->info;
    fprintf(f, "%s: %s v%u, %u-bit, %.3f s, %llu GCs\n", r->path,
            in ? gcev_trace_format_name(in->format) : "events", in ? in->format_version : 0,
            in ? in->pointer_size * 8u : 64u, sum->duration_ms / 1000.0, (unsigned long long)sum->gc_count);
    if (gcev_stats_get_options(r->s)->traceevent_compat) {
        fprintf(f, "MODE: --compat traceevent: TraceEvent 4.0's numbers, its defects included "
                   "(doc/stats.md)\n");
    }
    const char *w = stats_drop_warning(r);
    if (w) {
        fprintf(f, "WARNING: %llu %s (GCs open across a loss are marked !)\n",
                (unsigned long long)sum->dropped_events, w);
    }
    if (stats_skip_warning(r)) {
        fprintf(f, "WARNING: %llu range%s, %llu bytes: %s (GCs open across a skipped range are marked !)\n",
                (unsigned long long)sum->skipped_ranges, sum->skipped_ranges == 1 ? "" : "s",
                (unsigned long long)sum->skipped_bytes, stats_skip_warning(r));
    }
    if (r->read_error) {
        fprintf(f, "WARNING: the trace ends with an error (%s): results cover the events before it\n",
                r->read_error);
    }
    if (sum->decode_errors) {
        fprintf(f, "WARNING: %llu GC events did not decode and were skipped\n",
                (unsigned long long)sum->decode_errors);
    }
    if (sum->limit_hit) {
        fprintf(f, "WARNING: a segment/handle/AppDomain table hit its limit: lifetimes are partial\n");
    }
    /* which inputs the statistics rest on: a missing family explains a "-" */
    int col = fprintf(f, "Events seen:");
    for (size_t i = 0; i < stats_seen_family_count; i++) {
        uint16_t fam = stats_seen_families[i];
        const gcev_family_info *fi = gcev_family_get(fam);
        char item[64];
        int n = snprintf(item, sizeof item, " %s %llu", fi ? fi->name : "?",
                         (unsigned long long)gcev_stats_family_count(r->s, fam));
        if (col + n + 2 > WIDTH) { /* room for the trailing comma */
            fprintf(f, ",\n ");
            col = 1;
        } else if (i) {
            fputc(',', f);
            col++;
        }
        col += fprintf(f, "%s", item);
    }
    fputc('\n', f);
}

static void print_gc_row(FILE *f, const gcev_stats *s, const gcev_stats_gc *g, int rw, int pid)
{
    char a[32], b[32], c[32], d[32], rs[16];
    uint64_t after = 0, frag = 0;
    int has_after = stats_heap_total(s, g, GCEV_STATS_HEAP_HAS_SIZE_AFTER,
                                     offsetof(gcev_stats_gen_heap, size_after), &after);
    int has_frag = stats_heap_total(s, g, GCEV_STATS_HEAP_HAS_FRAG_AFTER,
                                    offsetof(gcev_stats_gen_heap, frag_after), &frag);
    char frag_s[16] = "-";
    if (has_frag && has_after && after) {
        snprintf(frag_s, sizeof frag_s, "%.1f", (double)frag * 100.0 / (double)after);
    }
    char gen[8] = "-";
    if (g->present & GCEV_STATS_GC_HAS_GENERATION) {
        snprintf(gen, sizeof gen, "%u", g->generation);
    }
    if (pid) {
        fprintf(f, "%*u ", pid, g->process_id);
    }
    fprintf(f, "%6u %3s %-4s%c%c %-*s %10.3f %8s %8s %11s %8s %6s\n", g->number, gen, type_short(g),
            (g->present & GCEV_STATS_GC_HAS_NESTED_IN) ? '^' : ' ',
            (g->flags & GCEV_STATS_GC_INCOMPLETE) ? '!' : ' ', rw, reason_s(rs, sizeof rs, g), g->start_ms,
            ms_s(a, sizeof a, (g->present & GCEV_STATS_GC_HAS_PAUSE) != 0, g->pause_ms),
            ms_s(b, sizeof b, (g->present & GCEV_STATS_GC_HAS_END) != 0, g->duration_ms),
            mb_s(c, sizeof c, (g->present & GCEV_STATS_GC_HAS_PROMOTED) != 0, g->promoted_bytes),
            mb_s(d, sizeof d, has_after, after), frag_s);
}

static void print_gc_table(FILE *f, const stats_report *r)
{
    int rw = reason_width(r), pid = pid_column(r);
    fputc('\n', f);
    if (pid) {
        fprintf(f, "%*s ", pid, "PID");
    }
    fprintf(f, "%6s %3s %-6s %-*s %10s %8s %8s %11s %8s %6s\n", "GC#", "Gen", "Type", rw, "Reason",
            "Start ms", "Pause ms", "GC ms", "Promoted MB", "After MB", "Frag%");
    for (size_t i = 0; i < gcev_stats_gc_count(r->s); i++) {
        print_gc_row(f, r->s, gcev_stats_gc_at(r->s, i), rw, pid);
    }
    fprintf(f,
            "Type: blk blocking, BGC background, FGC foreground (ephemeral GC during a BGC);\n"
            "^ started during a BGC; ! events dropped while open; - not in the trace.\n"
            "Pause: SuspendEE begin -> RestartEE end; GC ms: GCStart -> GCEnd; MB = 10^6 bytes.\n"
            "After MB: heap size after the GC; Frag%%: its free space (free lists, free objects),\n"
            "%% of After MB.%s\n",
            pid ? " PID: the process (GC numbers are per process)." : "");
}

static void print_gc_metrics(FILE *f, const stats_report *r, const gcev_stats_gc *g);

static void print_gc_detail(FILE *f, const stats_report *r, const gcev_stats_gc *g)
{
    char a[32], b[32], rs[16];
    fprintf(f, "\nGC #%u\n", g->number);
    fprintf(f, "  generation          %s\n",
            u64_s(a, sizeof a, (g->present & GCEV_STATS_GC_HAS_GENERATION) != 0, g->generation));
    fprintf(f, "  type                %s\n",
            (g->present & GCEV_STATS_GC_HAS_TYPE)
                ? (gcev_stats_gc_type_name(g->type) ? gcev_stats_gc_type_name(g->type) : "?")
                : "-");
    fprintf(f, "  reason              %s\n", reason_s(rs, sizeof rs, g));
    if (g->present & GCEV_STATS_GC_HAS_NESTED_IN) {
        fprintf(f, "  during BGC          #%u\n", g->nested_in);
    }
    fprintf(f, "  thread              %llu\n", (unsigned long long)g->thread_id);
    fprintf(f, "  start ms            %.3f\n", g->start_ms);
    fprintf(f, "  end ms              %s\n",
            ms_s(a, sizeof a, (g->present & GCEV_STATS_GC_HAS_END) != 0, g->end_ms));
    fprintf(f, "  duration ms         %s\n",
            ms_s(a, sizeof a, (g->present & GCEV_STATS_GC_HAS_END) != 0, g->duration_ms));
    fprintf(f, "  suspension ms       %s\n",
            ms_s(a, sizeof a, (g->present & GCEV_STATS_GC_HAS_SUSPENSION) != 0, g->suspension_ms));
    fprintf(f, "  pause ms            %s",
            ms_s(a, sizeof a, (g->present & GCEV_STATS_GC_HAS_PAUSE) != 0, g->pause_ms));
    fprintf(f, g->suspensions > 1 ? " (%u suspensions)\n" : "\n", g->suspensions);
    fprintf(f, "  promoted MB         %s\n",
            mb_s(a, sizeof a, (g->present & GCEV_STATS_GC_HAS_PROMOTED) != 0, g->promoted_bytes));
    fprintf(f, "  AllocationTick MB   %s\n",
            mb_s(a, sizeof a, (g->present & GCEV_STATS_GC_HAS_ALLOCATED) != 0, g->allocated_bytes));
    fprintf(f, "  pinned objects      %s\n",
            u64_s(a, sizeof a, (g->present & GCEV_STATS_GC_HAS_PINNED_OBJECTS) != 0, g->pinned_objects));
    fprintf(f, "  pin events          %s (%s bytes)\n",
            u64_s(a, sizeof a, (g->present & GCEV_STATS_GC_HAS_PINNED_EVENTS) != 0, g->pinned_events),
            u64_s(b, sizeof b, (g->present & GCEV_STATS_GC_HAS_PINNED_EVENTS) != 0, g->pinned_bytes));
    fprintf(f, "  finalization promoted %s\n",
            u64_s(a, sizeof a, (g->present & GCEV_STATS_GC_HAS_FINALIZATION) != 0,
                  g->finalization_promoted_count));
    if (g->present & GCEV_STATS_GC_HAS_CONDEMN_REASONS) {
        fprintf(f, "  condemn reasons     0x%08x 0x%08x\n", g->condemn_reasons0, g->condemn_reasons1);
    } else {
        fprintf(f, "  condemn reasons     -\n");
    }
    fprintf(f, "  heaps               %s\n",
            u64_s(a, sizeof a, (g->present & GCEV_STATS_GC_HAS_HEAP_COUNT) != 0, (uint64_t)g->heap_count));
    static const struct {
        uint32_t bit;
        const char *name;
    } flag_names[] = {{GCEV_STATS_GC_COMPLETE, "complete"},
                      {GCEV_STATS_GC_INCOMPLETE, "incomplete (events dropped)"},
                      {GCEV_STATS_GC_SHARED_SUSPENSION, "shared-suspension"},
                      {GCEV_STATS_GC_HEAPS_DROPPED, "heaps-dropped"},
                      {GCEV_STATS_GC_PINS_DROPPED, "pins-dropped"}};
    fprintf(f, "  flags               %s", g->flags ? "" : "-");
    for (size_t i = 0, n = 0; i < sizeof flag_names / sizeof flag_names[0]; i++) {
        if (g->flags & flag_names[i].bit) {
            fprintf(f, "%s%s", n++ ? ", " : "", flag_names[i].name);
        }
    }
    fputc('\n', f);
    fprintf(f, "  %-5s %13s %13s %13s %13s %13s\n", "heap", "before MB", "after MB", "frag before",
            "frag after", "promoted MB");
    for (unsigned i = 0; i < GCEV_STATS_GENS; i++) {
        const gcev_stats_gen_heap *h = gcev_stats_gc_gen_at(r->s, g, i);
        char c1[32], c2[32], c3[32], c4[32], c5[32];
        fprintf(f, "  %-5s %13s %13s %13s %13s %13s\n", gcev_stats_gen_name(i),
                mb_s(c1, sizeof c1, (h->present & GCEV_STATS_HEAP_HAS_SIZE_BEFORE) != 0, h->size_before),
                mb_s(c2, sizeof c2, (h->present & GCEV_STATS_HEAP_HAS_SIZE_AFTER) != 0, h->size_after),
                mb_s(c3, sizeof c3, (h->present & GCEV_STATS_HEAP_HAS_FRAG_BEFORE) != 0, h->frag_before),
                mb_s(c4, sizeof c4, (h->present & GCEV_STATS_HEAP_HAS_FRAG_AFTER) != 0, h->frag_after),
                mb_s(c5, sizeof c5, (h->present & GCEV_STATS_HEAP_HAS_PROMOTED) != 0, h->promoted));
    }
    if (g->present & GCEV_STATS_GC_HAS_MARKS) {
        fprintf(f, "  %-16s %10s %13s\n", "mark roots", "ms", "promoted MB");
        for (unsigned k = 0; k < GCEV_STATS_ROOT_KINDS; k++) {
            if (g->marks[k].present) {
                char c1[32], c2[32];
                fprintf(f, "  %-16s %10s %13s\n", gcev_gc_root_kind_map_name(k),
                        ms_s(c1, sizeof c1, 1, g->marks[k].ms), mb_s(c2, sizeof c2, 1, g->marks[k].bytes));
            }
        }
    }
    if (g->present & GCEV_STATS_GC_HAS_LOH_COMPACT) {
        fprintf(f,
                "  LOH compaction      %u heaps, plan %llu, compact %llu, relocate %llu (us); "
                "refs %llu, zero %llu\n",
                g->loh_compact_heaps, (unsigned long long)g->loh_compact_time_plan,
                (unsigned long long)g->loh_compact_time_compact,
                (unsigned long long)g->loh_compact_time_relocate,
                (unsigned long long)g->loh_compact_total_refs, (unsigned long long)g->loh_compact_zero_refs);
    }
    print_gc_metrics(f, r, g);
}

static const char *f_s(char *buf, size_t n, int has, double v, const char *fmt)
{
    if (!has) {
        return "-";
    }
    snprintf(buf, n, fmt, v);
    return buf;
}

/* "mark 1.253, plan 1.042, sweep 0.033 ms": the phases the GC logged (GCGlobalHeapHistory_V4),
 * the mark sub-phases (roots, short weak, finalization, long weak, sized refs) added up. */
static void phases_line(FILE *f, const gcev_stats_gc *g, const char *unit)
{
    static const unsigned later[4] = {GCEV_STATS_PHASE_PLAN, GCEV_STATS_PHASE_RELOCATE,
                                      GCEV_STATS_PHASE_COMPACT, GCEV_STATS_PHASE_SWEEP};
    const uint16_t mark_bits = (1u << GCEV_STATS_PHASE_MARK_ROOT) | (1u << GCEV_STATS_PHASE_MARK_SHORT_WEAK) |
                               (1u << GCEV_STATS_PHASE_MARK_SCAN_FINALIZATION) |
                               (1u << GCEV_STATS_PHASE_MARK_LONG_WEAK) |
                               (1u << GCEV_STATS_PHASE_MARK_SIZED_REF);
    int n = 0;
    if (g->phase_present & mark_bits) {
        uint64_t us = 0;
        for (unsigned i = 0; i < GCEV_STATS_PHASES; i++) {
            us += (mark_bits & g->phase_present & (1u << i)) ? g->phase_us[i] : 0;
        }
        fprintf(f, "mark %.3f", us / 1000.0);
        n++;
    }
    for (int k = 0; k < 4; k++) {
        if (g->phase_present & (1u << later[k])) {
            fprintf(f, "%s%s %.3f", n++ ? ", " : "", gcev_stats_phase_name(later[k]),
                    g->phase_us[later[k]] / 1000.0);
        }
    }
    fputs(n ? unit : "-", f);
}

/* TraceEvent's TraceGC metrics of one GC (--gc N). */
static void print_gc_metrics(FILE *f, const stats_report *r, const gcev_stats_gc *g)
{
    char a[32], b[32], c[32], d[32];
    uint64_t p = g->present;
    char label[16];
    gcev_stats_gc_label(g, label, sizeof label);
    fprintf(f, "  TraceEvent's metrics (%s, process %u)\n", label, g->process_id);
    fprintf(f, "  pause start ms      %s\n",
            ms_s(a, sizeof a, (p & GCEV_STATS_GC_HAS_PAUSE_START) != 0, g->pause_start_ms));
    fprintf(f, "  since last GC ms    %s (pause %s%% of it)\n",
            ms_s(a, sizeof a, (p & GCEV_STATS_GC_HAS_SINCE_RESTART) != 0, g->since_last_restart_ms),
            r1_s(b, sizeof b, (p & GCEV_STATS_GC_HAS_PAUSE_PERCENT) != 0, g->pause_time_percent));
    fprintf(f, "  heap MB             before %s, after %s, peak %s (peak/after %s)\n",
            mb_s(a, sizeof a, (p & GCEV_STATS_GC_HAS_SIZE_BEFORE) != 0, g->heap_size_before),
            mb_s(b, sizeof b, (p & GCEV_STATS_GC_HAS_SIZE_AFTER) != 0, g->heap_size_after),
            mb_s(c, sizeof c, (p & GCEV_STATS_GC_HAS_SIZE_PEAK) != 0, g->heap_size_peak),
            f_s(d, sizeof d, (p & GCEV_STATS_GC_HAS_RATIO_PEAK_AFTER) != 0, g->ratio_peak_after, "%.3f"));
    fprintf(f, "  allocated MB (GC)   %s",
            f_s(a, sizeof a, (p & GCEV_STATS_GC_HAS_ALLOCATED_SINCE) != 0,
                (double)g->allocated_since_last_gc / 1e6, "%.3f"));
    fprintf(f, " (gen0 %s, LOH %s, POH %s), %s MB/s\n",
            f_s(b, sizeof b,
                (gcev_stats_gc_gen_at(r->s, g, 0)->present & GCEV_STATS_HEAP_HAS_USER_ALLOCATED) != 0,
                (double)gcev_stats_gc_gen_at(r->s, g, 0)->user_allocated / 1e6, "%.3f"),
            f_s(c, sizeof c,
                (gcev_stats_gc_gen_at(r->s, g, 3)->present & GCEV_STATS_HEAP_HAS_USER_ALLOCATED) != 0,
                (double)gcev_stats_gc_gen_at(r->s, g, 3)->user_allocated / 1e6, "%.3f"),
            f_s(d, sizeof d,
                (gcev_stats_gc_gen_at(r->s, g, 4)->present & GCEV_STATS_HEAP_HAS_USER_ALLOCATED) != 0,
                (double)gcev_stats_gc_gen_at(r->s, g, 4)->user_allocated / 1e6, "%.3f"),
            r1_s(a, sizeof a, (p & GCEV_STATS_GC_HAS_ALLOC_RATE) != 0, g->alloc_rate_mb_per_sec));
    fprintf(f, "  condemned because   ");
    if (p & GCEV_STATS_GC_HAS_CONDEMNED) {
        for (unsigned i = 0, n = 0; i < GCEV_STATS_CONDEMNED_GROUPS; i++) {
            if (g->condemned_reasons & (1u << i)) {
                fprintf(f, "%s%s", n++ ? ", " : "", gcev_stats_condemned_group_name(i));
            }
        }
        fputc('\n', f);
    } else {
        fputs("-\n", f);
    }
    if (p & GCEV_STATS_GC_HAS_MECHANISMS) {
        /* compacting (the heaps' reasons) or sweeping, then the other GlobalMechanisms */
        fprintf(f, "  mechanisms          %s", (g->global_mechanisms & 2) ? "compacting" : "sweeping");
        const char *seen[8];
        unsigned nseen = 0;
        for (size_t i = 0; i < g->heaps; i++) {
            const char *why =
                gcev_stats_compact_reason_name(gcev_stats_gc_heap_at(r->s, g, i)->compact_mechanisms);
            unsigned k = 0;
            while (why && k < nseen && strcmp(seen[k], why)) {
                k++;
            }
            if (why && k == nseen && nseen < 8) {
                fprintf(f, "%s%s", nseen ? ", " : " (", why);
                seen[nseen++] = why;
            }
        }
        fputs(nseen ? ")" : "", f);
        for (unsigned bit = 0; bit < 32; bit++) {
            const char *name = gcev_stats_global_mechanism_name(bit);
            if (name && bit != 1 && (g->global_mechanisms & (1u << bit))) {
                fprintf(f, ", %s", name);
            }
        }
        fputc('\n', f);
    }
    fprintf(f, "  phases              ");
    phases_line(f, g, " ms");
    fputc('\n', f);
    if (p & GCEV_STATS_GC_HAS_BGC_PHASE) {
        fprintf(f, "  BGC final pause ms  %s, last phase %u\n",
                ms_s(a, sizeof a, (p & GCEV_STATS_GC_HAS_BGC_FINAL_PAUSE) != 0, g->bgc_final_pause_ms),
                g->bgc_phase);
    }
    if (p & GCEV_STATS_GC_HAS_COMMITTED_BEFORE) {
        fprintf(f, "  committed MB        before %.3f, after %s\n", (double)g->committed_before.in_use / 1e6,
                mb_s(a, sizeof a, (p & GCEV_STATS_GC_HAS_COMMITTED_AFTER) != 0, g->committed_after.in_use));
    }
    if (p & GCEV_STATS_GC_HAS_DATAS) {
        fprintf(f, "  DATAS heap count    %u\n", g->datas_heap_count);
    }
    if (p & (GCEV_STATS_GC_HAS_PINNED_SIZES | GCEV_STATS_GC_HAS_PINNED_PLUGS)) {
        fprintf(f, "  pinned MB           objects %s, plugs %s (pinned by the program %s), %s%%\n",
                mb_s(a, sizeof a, (p & GCEV_STATS_GC_HAS_PINNED_SIZES) != 0, g->pinned_object_sizes),
                mb_s(b, sizeof b, (p & GCEV_STATS_GC_HAS_PINNED_PLUGS) != 0, g->pinned_plug_size),
                mb_s(c, sizeof c, (p & GCEV_STATS_GC_HAS_PINNED_PLUGS) != 0, g->user_pinned_plug_size),
                u64_s(d, sizeof d, (p & GCEV_STATS_GC_HAS_PINNED_PERCENT) != 0,
                      (uint64_t)g->pinned_object_percent));
    }
    fprintf(f, "  %-5s %10s %10s %10s %10s %10s %10s\n", "gen", "surv %", "frag %", "in MB", "out MB",
            "budget MB", "obj MB");
    for (unsigned i = 0; i < GCEV_STATS_GENS; i++) {
        const gcev_stats_gen_heap *h = gcev_stats_gc_gen_at(r->s, g, i);
        int hist = (h->present & GCEV_STATS_HEAP_HAS_HISTORY) != 0;
        char e[32], f2[32];
        fprintf(
            f, "  %-5s %10s %10s %10s %10s %10s %10s\n", gcev_stats_gen_name(i),
            r1_s(a, sizeof a, (h->present & GCEV_STATS_HEAP_HAS_SURVIVAL) != 0, h->survival_percent),
            r1_s(b, sizeof b, (h->present & GCEV_STATS_HEAP_HAS_FRAG_PERCENT) != 0, h->fragmentation_percent),
            mb_s(c, sizeof c, hist, h->in), mb_s(d, sizeof d, hist, h->out),
            mb_s(e, sizeof e, hist, h->budget), mb_s(f2, sizeof f2, hist, h->obj_size_after));
    }
    if (g->heaps > 1) {
        fprintf(f, "  %-5s %12s %12s %12s %10s %10s\n", "heap", "gen0 bef. MB", "promoted MB", "budget MB",
                "joins", "join ms");
        for (size_t i = 0; i < g->heaps; i++) {
            const gcev_stats_heap *h = gcev_stats_gc_heap_at(r->s, g, i);
            int hist = (h->present & GCEV_STATS_HEAPREC_HAS_HISTORY) != 0;
            uint64_t prom = 0;
            for (unsigned k = 0; k < GCEV_STATS_ROOT_KINDS; k++) {
                prom += (h->mark_promoted_present & (1u << k)) ? h->mark_promoted[k] : 0;
            }
            char e[32];
            fprintf(f, "  %-5u %12s %12s %12s %10s %10s\n", h->heap,
                    mb_s(a, sizeof a, hist, h->gens[0].size_before),
                    mb_s(b, sizeof b, h->mark_promoted_present != 0, prom),
                    mb_s(c, sizeof c, hist, h->gens[0].budget),
                    u64_s(d, sizeof d, (h->present & GCEV_STATS_HEAPREC_HAS_JOINS) != 0, h->joins),
                    ms_s(e, sizeof e, (h->present & GCEV_STATS_HEAPREC_HAS_JOINS) != 0, h->join_ms));
        }
    }
}

/* Per process: TraceEvent's GCStats over the complete GCs, the pause distribution and the
 * longest pauses with what explains them. */
static void print_pauses_row(FILE *f, const char *what, const gcev_stats_pauses *d)
{
    char a[32], b[32], c[32], e[32], g[32];
    int has = d->count > 0;
    fprintf(f, "  %-11s %6llu %10s %10s %10s %10s %12s\n", what, (unsigned long long)d->count,
            ms_s(a, sizeof a, has, d->p50_ms), ms_s(b, sizeof b, has, d->p90_ms),
            ms_s(c, sizeof c, has, d->p99_ms), ms_s(e, sizeof e, has, d->max_ms),
            ms_s(g, sizeof g, has, d->total_ms));
}

static void print_processes(FILE *f, const stats_report *r)
{
    int compat = gcev_stats_get_options(r->s)->traceevent_compat != 0;
    int rw = reason_width(r), longest_shown = 0;
    for (size_t i = 0; i < gcev_stats_process_count(r->s); i++) {
        const gcev_stats_process *p = gcev_stats_process_at(r->s, i);
        const gcev_stats_gcstats *st = gcev_stats_process_stats(r->s, p);
        char a[32], b[32], c[32];
        fprintf(f, "\nProcess %u: %llu GCs, %llu complete", p->process_id, (unsigned long long)p->gc_count,
                (unsigned long long)p->complete_count);
        if (p->duplicate_starts) {
            fprintf(f, " (%llu repeated GCStart dropped)", (unsigned long long)p->duplicate_starts);
        }
        fputc('\n', f);
        int means = (st->present & GCEV_STATS_GCSTATS_HAS_MEANS) != 0;
        int dur = (st->present & GCEV_STATS_GCSTATS_HAS_DURATION) != 0;
        fprintf(f, "  Paused            %s ms, %s%% of %s ms (first pause to last GC); induced GCs: %u\n",
                ms_s(a, sizeof a, 1, st->pause_total_ms),
                r1_s(b, sizeof b, dur && st->process_duration_ms != 0, st->pause_time_percent),
                ms_s(c, sizeof c, dur, st->process_duration_ms), st->induced);
        fprintf(f, "  Heap MB           peak %s, mean peak %s, mean after %s\n",
                mb_s(a, sizeof a, means, st->size_peak_max),
                f_s(b, sizeof b, means, st->size_peak_mean / 1e6, "%.3f"),
                f_s(c, sizeof c, means, st->size_after_mean / 1e6, "%.3f"));
        fprintf(f, "  Allocated (GC-observed) %s MB, promoted %s MB\n",
                f_s(a, sizeof a, 1, (double)st->allocated_total / 1e6, "%.3f"),
                mb_s(c, sizeof c, 1, st->promoted_total));
        if (compat) {
            fprintf(f, "  Max alloc rate    %s MB/s (TraceEvent's MaxAllocRateMBSec, over any interval)\n",
                    r1_s(b, sizeof b, means, st->alloc_rate_max));
        } else {
            fprintf(f, "  Max alloc rate    %s MB/s (GC-observed, over at least %g ms between GCs)\n",
                    r1_s(b, sizeof b, (st->present & GCEV_STATS_GCSTATS_HAS_SUSTAINED_RATE) != 0,
                         st->alloc_rate_max_sustained),
                    GCEV_STATS_ALLOC_RATE_WINDOW_MS);
        }
        fprintf(f, "  %-11s %6s %10s %10s %10s %10s %12s\n", "Pauses", "GCs", "p50 ms", "p90 ms", "p99 ms",
                "max ms", "total ms");
        print_pauses_row(f, "all", &p->pauses);
        for (unsigned g = 0; g < 3; g++) {
            print_pauses_row(f, gcev_stats_gen_name(g), &p->pauses_by_gen[g]);
        }
        for (unsigned t = 0; t < 3; t++) {
            print_pauses_row(f, gcev_stats_gc_type_name(t), &p->pauses_by_type[t]);
        }
        if (p->longest) {
            fprintf(f, "  Longest pauses (ms: the pause, then the GC's phases)\n");
        }
        for (size_t k = 0; k < p->longest && k < 5; k++) {
            longest_shown = 1;
            const gcev_stats_gc *g = gcev_stats_process_longest_at(r->s, p, k);
            char label[16], rs[16];
            gcev_stats_gc_label(g, label, sizeof label);
            fprintf(f, "   #%-5u %-4s %9.3f %-*s ", g->number, label, g->pause_ms, rw,
                    reason_s(rs, sizeof rs, g));
            phases_line(f, g, "");
            fputc('\n', f);
        }
    }
    if (longest_shown) {
        fprintf(f, "Label (PerfView's): the generation, N blocking, B background, F foreground; I induced,\n"
                   "i induced but not forced.\n");
    }
}

static void print_generations(FILE *f, const stats_report *r)
{
    fprintf(f, "\n%-4s %7s %5s %5s %14s %10s %10s %13s %12s\n", "Gen", "GCs", "BGC", "FGC", "Pause total ms",
            "Mean ms", "Max ms", "Promoted MB", "GC total ms");
    for (unsigned i = 0; i < 3; i++) {
        const gcev_stats_gen_summary *gs = gcev_stats_generation(r->s, i);
        char a[32], b[32], c[32], d[32];
        char e[32];
        fprintf(f, "%-4u %7llu %5llu %5llu %14s %10s %10s %13s %12s\n", i, (unsigned long long)gs->count,
                (unsigned long long)gs->background, (unsigned long long)gs->foreground,
                ms_s(a, sizeof a, gs->pause_count > 0, gs->pause_total_ms),
                ms_s(b, sizeof b, gs->pause_count > 0, gs->pause_mean_ms),
                ms_s(c, sizeof c, gs->pause_count > 0, gs->pause_max_ms),
                mb_s(d, sizeof d, gs->promoted_count > 0, gs->promoted_bytes),
                ms_s(e, sizeof e, gs->duration_count > 0, gs->duration_total_ms)); /* no GC ended: absent */
    }
}

static void print_summary(FILE *f, const stats_report *r)
{
    const gcev_stats_summary *s = gcev_stats_get_summary(r->s);
    int dur = (s->present & GCEV_STATS_SUM_HAS_DURATION) != 0;
    int pause = (s->present & GCEV_STATS_SUM_HAS_PAUSE) != 0;
    fprintf(f, "\nSummary\n");
    if (s->present & GCEV_STATS_SUM_HAS_HEAP_COUNT) {
        fprintf(f, "  GC mode           %s (%d heap%s)\n", s->heap_count > 1 ? "server" : "workstation",
                s->heap_count, s->heap_count == 1 ? "" : "s");
    } else {
        fprintf(f, "  GC mode           unknown (no GCGlobalHeapHistory)\n");
    }
    fprintf(f, "  GCs               %llu", (unsigned long long)s->gc_count);
    if (dur) {
        fprintf(f, ", %.1f per second", s->gcs_per_sec);
    }
    if (s->unfinished_gcs) {
        fprintf(f, ", %llu without GCEnd", (unsigned long long)s->unfinished_gcs);
    }
    fputc('\n', f);
    if (pause) {
        fprintf(f, "  Time paused       %.3f ms", s->pause_total_ms);
        if (dur) {
            fprintf(f, ", %.1f%% of the trace", s->pause_percent);
        }
        fprintf(f, "; longest %.3f ms (GC #%u)\n", s->pause_max_ms, s->pause_max_gc);
    } else {
        fprintf(f, "  Time paused       - (no GC suspension seen)\n");
    }
    if (s->present & GCEV_STATS_SUM_HAS_ALLOCATION) {
        fprintf(f, "  Allocated (AllocationTick sum) %.3f MB in %llu events",
                (double)s->allocated_bytes / 1e6, (unsigned long long)s->allocation_ticks);
        if (dur) {
            fprintf(f, ", %.1f MB/s", s->alloc_mb_per_sec);
        }
        fputc('\n', f);
    } else {
        fprintf(f, "  Allocated (AllocationTick sum) - (no AllocationTick events)\n");
    }
    fprintf(f, "  (AllocationTick sum: the runtime's allocation samples, one per ~100 KB, over the whole\n"
               "  trace; GC-observed, per process below: what each GC found allocated since the GC\n"
               "  before, over the complete GCs: TraceEvent's AllocedSinceLastGCMB.)\n");
    fprintf(f, "  Other suspensions %llu, %.3f ms (no GC inside: sampling profiler, debugger)\n",
            (unsigned long long)s->other_suspensions, s->other_suspended_ms);
    if (s->present & GCEV_STATS_SUM_HAS_SURVIVED) {
        fprintf(f, "  Survived          %.3f MB in the process after GC #%u (last full blocking GC)\n",
                (double)s->process_survived / 1e6, s->survived_gc);
        for (size_t i = 0; i < gcev_stats_appdomain_count(r->s); i++) {
            const gcev_stats_appdomain *ad = gcev_stats_appdomain_at(r->s, i);
            fprintf(f, "    AppDomain 0x%llx: %.3f MB\n", (unsigned long long)ad->app_domain_id,
                    (double)ad->survived / 1e6);
        }
    }
}

static void print_pairing(FILE *f, const char *what, const gcev_stats_pairing *p)
{
    fprintf(f, "  %-9s %llu created, %llu freed, %llu frees without creation", what,
            (unsigned long long)p->created, (unsigned long long)p->freed,
            (unsigned long long)p->unmatched_frees);
    if (p->unmatched_after_loss) {
        /* only a loss the trace itself reports lets a creation be missing */
        fprintf(f, " (%llu after lost events: their creation may be lost)",
                (unsigned long long)p->unmatched_after_loss);
    } else if (p->unmatched_frees) {
        fputs(" (created before the trace)", f);
    }
    fprintf(f, ", %llu never freed", (unsigned long long)p->live);
    if (p->reassigned) {
        fprintf(f, ", %llu set again while live", (unsigned long long)p->reassigned);
    }
    if (p->over_limit) {
        fprintf(f, ", %llu not tracked (limit)", (unsigned long long)p->over_limit);
    }
    fputc('\n', f);
}

static void print_lifetimes(FILE *f, const stats_report *r)
{
    const gcev_stats_pairing *sp = gcev_stats_segment_pairing(r->s);
    const gcev_stats_pairing *hp = gcev_stats_handle_pairing(r->s);
    fprintf(f, "\nLifetimes%s\n",
            stats_drop_warning(r) ? " (events dropped: pairing may be incomplete)" : "");
    print_pairing(f, "Segments", sp);
    for (size_t i = 0; i < sp->live && i < LIST_MAX; i++) {
        const gcev_stats_segment *sg = gcev_stats_live_segment_at(r->s, i);
        const char *type = gcev_gc_segment_type_map_name(sg->type);
        fprintf(f, "    0x%016llx %12.3f MB %-16s created at %.3f ms\n", (unsigned long long)sg->address,
                (double)sg->size / 1e6, type ? type : "?", sg->created_ms);
    }
    if (sp->live > LIST_MAX) {
        fprintf(f, "    ... %llu more (--format json lists all)\n",
                (unsigned long long)(sp->live - LIST_MAX));
    }
    print_pairing(f, "Handles", hp);
    for (size_t i = 0; i < hp->live && i < LIST_MAX; i++) {
        const gcev_stats_handle *h = gcev_stats_live_handle_at(r->s, i);
        const char *kind = gcev_gc_handle_kind_map_name(h->kind);
        fprintf(f, "    0x%016llx -> 0x%016llx %-11s created at %.3f ms\n", (unsigned long long)h->handle_id,
                (unsigned long long)h->object_id, kind ? kind : "?", h->created_ms);
    }
    if (hp->live > LIST_MAX) {
        fprintf(f, "    ... %llu more (--format json lists all)\n",
                (unsigned long long)(hp->live - LIST_MAX));
    }
}

void stats_print_text(FILE *f, const stats_report *r)
{
    print_header(f, r);
    if (r->one_gc) {
        for (size_t i = 0; i < gcev_stats_gc_count(r->s); i++) {
            const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
            if (stats_selected(r, g)) {
                print_gc_detail(f, r, g);
            }
        }
        return;
    }
    print_gc_table(f, r);
    print_generations(f, r);
    print_summary(f, r);
    print_processes(f, r);
    print_lifetimes(f, r);
}
