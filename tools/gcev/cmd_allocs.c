/* SPDX-License-Identifier: MIT */
/*
 * gcev allocs [--format text|json|csv] [--by type|stack|thread] [--type NAME] [--process PID]
 *             [--folded] [--speedscope OUT.json] [--samples] [--top N] [--source S] FILE
 * gcev allocs ... --pid PID [--duration S] [--record FILE]
 * Who allocates (gcev_allocs.h): estimated bytes and objects per type, per call stack (managed
 * frames named from the trace's method events), per thread, from AllocationTick,
 * AllocationSampled or GCSampledObjectAllocation events.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev_allocs.h>

#include "cli.h"
#include "cli_allocs.h"
#include "cli_progress.h"
#include "cli_session.h"
#include "cli_trace.h"
#include "commands.h"

enum { FMT_TEXT, FMT_JSON, FMT_CSV };
enum { BY_BOTH = -1, BY_TYPE = 0, BY_STACK = 1, BY_THREAD = 2 };

static void usage(FILE *f)
{
    fprintf(f, "usage: gcev allocs [--format text|json|csv] [--by type|stack|thread] [--type NAME]\n"
               "                   [--process PID] [--top N] [--source auto|tick|sampled|heap-alloc]\n"
               "                   [--folded] [--speedscope OUT.json] [--samples] [--keep-going] FILE\n"
               "       gcev allocs [...] --pid PID [--duration S] [--record FILE] [--timeout S]\n"
               "Who allocates: estimated bytes and objects per type, per call stack and per thread, from\n"
               "the allocation events of a .nettrace/.netperf/.etl trace (.NET 10's AllocationSampled,\n"
               "else GCSampledObjectAllocation, else GCAllocationTick; doc/allocs.md gives the\n"
               "estimates). Stack frames are named from the trace's method events (JIT and rundown);\n"
               "an address no method covers prints as its hex value.\n"
               "  --by B         text/csv: the table to print (default: types and stacks)\n"
               "  --type NAME    only allocations of this type\n"
               "  --process PID  only this process's events\n"
               "  --top N        rows per table (default 20 types, 10 stacks; 0 = all)\n"
               "  --source S     estimate from these events only (default: auto)\n"
               "  --folded       one line per stack, root first, the type as the leaf frame, then the\n"
               "                 estimated bytes (flame graph tools' folded format)\n"
               "  --speedscope F also write the stacks as a speedscope profile (weights: estimated\n"
               "                 bytes), '-' for standard output\n"
               "  --samples      one JSON line per allocation event: type, size, estimate and named\n"
               "                 frames (reads FILE twice)\n" GCEV_CLI_KEEP_GOING_HELP
               "--pid attaches to a running .NET process with the providers allocations need (.NET 10:\n"
               "AllocationSampling; older: AllocationTick at Verbose; both with method events and\n"
               "the rundown) until --duration, Ctrl-C or its end.\n" CLI_LIVE_OPTIONS_HELP
               "  --record FILE  also write the session's stream to FILE (.nettrace)\n");
}

typedef struct out_opts {
    int fmt, by;
    size_t top_types, top_stacks;
    size_t type; /* SIZE_MAX: all */
    int type_given;
    const char *type_name;
} out_opts;

static double pct(double share)
{
    return share * 100.0;
}

/* ---- JSON helpers ---- */

static void jnum(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
    } else if (v == floor(v) && fabs(v) < 9e15) {
        fprintf(f, "%.0f", v);
    } else {
        fprintf(f, "%.6g", v);
    }
}

/* ---- text ---- */

static void human(char *buf, size_t n, double bytes)
{
    if (bytes >= 1024.0 * 1024 * 1024) {
        snprintf(buf, n, "%.2f GB", bytes / (1024.0 * 1024 * 1024));
    } else if (bytes >= 1024.0 * 1024) {
        snprintf(buf, n, "%.2f MB", bytes / (1024.0 * 1024));
    } else if (bytes >= 1024.0) {
        snprintf(buf, n, "%.1f KB", bytes / 1024.0);
    } else {
        snprintf(buf, n, "%.0f B", bytes);
    }
}

/* Whether pair p is selected by --type. */
static int pair_selected(const out_opts *o, const gcev_allocs_pair *p)
{
    return !o->type_given || p->type == o->type;
}

static void print_frames_text(FILE *f, const gcev_allocs *a, const gcev_allocs_stack *st)
{
    uint32_t run = 0;
    for (uint32_t j = 0; j <= st->nframes; j++) {
        const gcev_allocs_frame *fr = j < st->nframes ? gcev_allocs_frame_at(a, st->frames[j]) : NULL;
        if (fr && fr->kind == GCEV_ALLOCS_FRAME_UNRESOLVED) {
            run++;
            continue;
        }
        if (run) {
            if (run == 1) {
                fprintf(f, "      %s\n", gcev_allocs_frame_at(a, st->frames[j - 1])->name);
            } else {
                fprintf(f, "      [%u unresolved frames: %s .. %s]\n", run,
                        gcev_allocs_frame_at(a, st->frames[j - run])->name,
                        gcev_allocs_frame_at(a, st->frames[j - 1])->name);
            }
            run = 0;
        }
        if (fr) {
            fprintf(f, "      %s\n", fr->name);
        }
    }
    if (!st->nframes) {
        fprintf(f, "      (no stack)\n");
    }
}

static void print_text(FILE *f, const char *path, const gcev_allocs *a, const out_opts *o)
{
    const gcev_allocs_summary *s = gcev_allocs_get_summary(a);
    char b1[32], b2[32];
    human(b1, sizeof b1, s->bytes);
    fprintf(f, "%s: %s estimated from %" PRIu64 " %s event%s (%.0f objects) over %.3f s\n", path, b1,
            s->samples, gcev_allocs_source_name(s->source), s->samples == 1 ? "" : "s", s->objects,
            (s->last_ms - s->first_ms) / 1000.0);
    fprintf(f,
            "  events: tick %" PRIu64 ", sampled %" PRIu64 ", heap-alloc %" PRIu64
            "; heaps: small %.1f%%, large %.1f%%, pinned %.1f%%\n",
            s->events[GCEV_ALLOCS_TICK], s->events[GCEV_ALLOCS_SAMPLED], s->events[GCEV_ALLOCS_HEAP_ALLOC],
            s->bytes > 0 ? 100 * s->kind_bytes[0] / s->bytes : 0,
            s->bytes > 0 ? 100 * s->kind_bytes[1] / s->bytes : 0,
            s->bytes > 0 ? 100 * s->kind_bytes[2] / s->bytes : 0);
    uint64_t fr = s->frames_resolved + s->frames_unresolved;
    fprintf(f,
            "  stacks: %zu distinct (%zu merged), %zu methods and %zu modules known, %.1f%% of frames named",
            s->raw_stacks, gcev_allocs_stack_count(a), s->methods, s->modules,
            fr ? 100.0 * (double)s->frames_resolved / (double)fr : 0.0);
    if (s->stackless) {
        fprintf(f, ", %" PRIu64 " samples without a stack", s->stackless);
    }
    fprintf(f, "\n");
    if (!s->samples) {
        fprintf(f, "  no allocation events (record with --profile allocations, or keyword GC at Verbose)\n");
        return;
    }
    if (o->by == BY_BOTH || o->by == BY_TYPE) {
        fprintf(f, "\nTop types\n  %12s %6s %10s %12s %8s  %-6s %s\n", "bytes", "%", "samples", "objects",
                "size", "heap", "type");
        size_t n = gcev_allocs_type_count(a), shown = 0;
        for (size_t i = 0; i < n && (!o->top_types || shown < o->top_types); i++) {
            if (o->type_given && i != o->type) {
                continue;
            }
            const gcev_allocs_type *t = gcev_allocs_type_at(a, i);
            human(b1, sizeof b1, t->est.bytes);
            if (t->max_size) {
                snprintf(b2, sizeof b2, "%" PRIu64, t->max_size);
            } else {
                snprintf(b2, sizeof b2, "-");
            }
            fprintf(f, "  %12s %6.2f %10" PRIu64 " %12.0f %8s  %-6s %s\n", b1, pct(t->est.share),
                    t->est.samples, t->est.objects, b2, gcev_allocs_kind_name(t->kind), t->name);
            shown++;
        }
    }
    if (o->by == BY_BOTH || o->by == BY_STACK) {
        fprintf(f, "\nTop stacks (innermost frame first)\n");
        size_t n = gcev_allocs_pair_count(a), shown = 0;
        for (size_t i = 0; i < n && (!o->top_stacks || shown < o->top_stacks); i++) {
            const gcev_allocs_pair *p = gcev_allocs_pair_at(a, i);
            if (!pair_selected(o, p)) {
                continue;
            }
            const gcev_allocs_stack *st = gcev_allocs_stack_at(a, p->stack);
            const gcev_allocs_type *t = gcev_allocs_type_at(a, p->type);
            human(b1, sizeof b1, p->est.bytes);
            const char *site =
                st->site != UINT32_MAX ? gcev_allocs_frame_at(a, st->frames[st->site])->name : "?";
            fprintf(f, "  #%zu %s (%.2f%%, %" PRIu64 " samples) of %s at %s\n", shown + 1, b1,
                    pct(p->est.share), p->est.samples, t->name, site);
            print_frames_text(f, a, st);
            shown++;
        }
    }
    if (o->by == BY_THREAD) {
        fprintf(f, "\nThreads\n  %12s %6s %10s  %s\n", "bytes", "%", "samples", "thread");
        size_t n = gcev_allocs_thread_count(a);
        for (size_t i = 0; i < n && (!o->top_types || i < o->top_types); i++) {
            const gcev_allocs_thread *t = gcev_allocs_thread_at(a, i);
            human(b1, sizeof b1, t->est.bytes);
            fprintf(f, "  %12s %6.2f %10" PRIu64 "  %" PRIu64 " (process %u)\n", b1, pct(t->est.share),
                    t->est.samples, t->thread_id, t->process_id);
        }
    }
}

/* ---- JSON ---- */

static void est_json(FILE *f, const gcev_allocs_est *e)
{
    fprintf(f, "\"samples\":%" PRIu64 ",\"bytes\":", e->samples);
    jnum(f, e->bytes);
    fputs(",\"objects\":", f);
    jnum(f, e->objects);
    fprintf(f, ",\"share\":%.6f", e->share);
}

static void frames_json(FILE *f, const gcev_allocs *a, const gcev_allocs_stack *st)
{
    fputc('[', f);
    for (uint32_t j = 0; j < st->nframes; j++) {
        if (j) {
            fputc(',', f);
        }
        gcev_cli_json_string(f, gcev_allocs_frame_at(a, st->frames[j])->name);
    }
    fputc(']', f);
}

static void print_json(FILE *f, const char *path, const gcev_allocs *a, const out_opts *o,
                       const char *read_error)
{
    const gcev_allocs_summary *s = gcev_allocs_get_summary(a);
    fputs("{\"version\":1,\"file\":", f);
    gcev_cli_json_string(f, path);
    fprintf(f,
            ",\"summary\":{\"source\":\"%s\",\"events\":{\"tick\":%" PRIu64 ",\"sampled\":%" PRIu64
            ",\"heap_alloc\":%" PRIu64 "},",
            gcev_allocs_source_name(s->source), s->events[GCEV_ALLOCS_TICK], s->events[GCEV_ALLOCS_SAMPLED],
            s->events[GCEV_ALLOCS_HEAP_ALLOC]);
    fprintf(f, "\"samples\":%" PRIu64 ",\"bytes\":", s->samples);
    jnum(f, s->bytes);
    fputs(",\"objects\":", f);
    jnum(f, s->objects);
    fputs(",\"kind_bytes\":{", f);
    for (uint32_t k = 0; k < GCEV_ALLOCS_KINDS; k++) {
        fprintf(f, "%s\"%s\":", k ? "," : "", gcev_allocs_kind_name(k));
        jnum(f, s->kind_bytes[k]);
    }
    fprintf(f,
            "},\"first_ms\":%.3f,\"last_ms\":%.3f,\"stackless\":%" PRIu64 ",\"method_events\":%" PRIu64
            ",\"module_events\":%" PRIu64
            ",\"methods\":%zu,\"modules\":%zu,\"raw_stacks\":%zu,\"stacks\":%zu,"
            "\"frames_resolved\":%" PRIu64 ",\"frames_unresolved\":%" PRIu64 ",\"decode_errors\":%" PRIu64
            ",\"processes\":%u}",
            s->first_ms, s->last_ms, s->stackless, s->method_events, s->module_events, s->methods, s->modules,
            s->raw_stacks, gcev_allocs_stack_count(a), s->frames_resolved, s->frames_unresolved,
            s->decode_errors, s->processes);
    if (read_error) {
        fputs(",\"read_error\":", f);
        gcev_cli_json_string(f, read_error);
    }
    fputs(",\"types\":[", f);
    size_t n = gcev_allocs_type_count(a), shown = 0;
    for (size_t i = 0; i < n && (!o->top_types || shown < o->top_types); i++) {
        if (o->type_given && i != o->type) {
            continue;
        }
        const gcev_allocs_type *t = gcev_allocs_type_at(a, i);
        fputs(shown ? ",{\"name\":" : "{\"name\":", f);
        gcev_cli_json_string(f, t->name);
        fprintf(f, ",\"type_id\":%" PRIu64 ",\"heap\":\"%s\",", t->type_id, gcev_allocs_kind_name(t->kind));
        est_json(f, &t->est);
        fputs(",\"kind_bytes\":{", f);
        for (uint32_t k = 0; k < GCEV_ALLOCS_KINDS; k++) {
            fprintf(f, "%s\"%s\":", k ? "," : "", gcev_allocs_kind_name(k));
            jnum(f, t->kind_bytes[k]);
        }
        fprintf(f, "},\"min_size\":%" PRIu64 ",\"max_size\":%" PRIu64 "}", t->min_size, t->max_size);
        shown++;
    }
    fputs("],\"stacks\":[", f);
    n = gcev_allocs_pair_count(a);
    shown = 0;
    for (size_t i = 0; i < n && (!o->top_stacks || shown < o->top_stacks); i++) {
        const gcev_allocs_pair *p = gcev_allocs_pair_at(a, i);
        if (!pair_selected(o, p)) {
            continue;
        }
        const gcev_allocs_stack *st = gcev_allocs_stack_at(a, p->stack);
        fputs(shown ? ",{\"type\":" : "{\"type\":", f);
        gcev_cli_json_string(f, gcev_allocs_type_at(a, p->type)->name);
        fputs(",\"site\":", f);
        if (st->site != UINT32_MAX) {
            gcev_cli_json_string(f, gcev_allocs_frame_at(a, st->frames[st->site])->name);
        } else {
            fputs("null", f);
        }
        fputc(',', f);
        est_json(f, &p->est);
        fputs(",\"frames\":", f);
        frames_json(f, a, st);
        fputc('}', f);
        shown++;
    }
    fputs("],\"threads\":[", f);
    n = gcev_allocs_thread_count(a);
    for (size_t i = 0; i < n; i++) {
        const gcev_allocs_thread *t = gcev_allocs_thread_at(a, i);
        fprintf(f, "%s{\"thread\":%" PRIu64 ",\"process\":%u,", i ? "," : "", t->thread_id, t->process_id);
        est_json(f, &t->est);
        fputc('}', f);
    }
    fprintf(f, "],\"bucket_ms\":%.3f,\"buckets\":[", gcev_allocs_bucket_ms(a));
    n = gcev_allocs_bucket_count(a);
    for (size_t i = 0; i < n; i++) {
        const gcev_allocs_bucket *b = gcev_allocs_bucket_at(a, i);
        fprintf(f, "%s{\"start_ms\":%.3f,\"samples\":%" PRIu64 ",\"bytes\":", i ? "," : "", b->start_ms,
                b->samples);
        jnum(f, b->bytes);
        fputc('}', f);
    }
    fputs("]}\n", f);
}

/* ---- CSV ---- */

static void csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') {
            fputc('"', f);
        }
        fputc(*s, f);
    }
    fputc('"', f);
}

static void print_csv(FILE *f, const gcev_allocs *a, const out_opts *o)
{
    if (o->by == BY_STACK) {
        fputs("rank,type,site,bytes,share,samples,objects,frames\n", f);
        size_t n = gcev_allocs_pair_count(a), shown = 0;
        for (size_t i = 0; i < n && (!o->top_stacks || shown < o->top_stacks); i++) {
            const gcev_allocs_pair *p = gcev_allocs_pair_at(a, i);
            if (!pair_selected(o, p)) {
                continue;
            }
            const gcev_allocs_stack *st = gcev_allocs_stack_at(a, p->stack);
            fprintf(f, "%zu,", ++shown);
            csv_str(f, gcev_allocs_type_at(a, p->type)->name);
            fputc(',', f);
            csv_str(f, st->site != UINT32_MAX ? gcev_allocs_frame_at(a, st->frames[st->site])->name : "");
            fprintf(f, ",%.0f,%.6f,%" PRIu64 ",%.0f,\"", p->est.bytes, p->est.share, p->est.samples,
                    p->est.objects);
            for (uint32_t j = 0; j < st->nframes; j++) {
                const char *nm = gcev_allocs_frame_at(a, st->frames[j])->name;
                fputs(j ? ";" : "", f);
                for (; *nm; nm++) {
                    if (*nm == '"') {
                        fputc('"', f);
                    }
                    fputc(*nm, f);
                }
            }
            fputs("\"\n", f);
        }
    } else if (o->by == BY_THREAD) {
        fputs("thread,process,bytes,share,samples,objects\n", f);
        for (size_t i = 0; i < gcev_allocs_thread_count(a); i++) {
            const gcev_allocs_thread *t = gcev_allocs_thread_at(a, i);
            fprintf(f, "%" PRIu64 ",%u,%.0f,%.6f,%" PRIu64 ",%.0f\n", t->thread_id, t->process_id,
                    t->est.bytes, t->est.share, t->est.samples, t->est.objects);
        }
    } else {
        fputs("rank,type,heap,bytes,share,samples,objects,min_size,max_size\n", f);
        size_t n = gcev_allocs_type_count(a), shown = 0;
        for (size_t i = 0; i < n && (!o->top_types || shown < o->top_types); i++) {
            if (o->type_given && i != o->type) {
                continue;
            }
            const gcev_allocs_type *t = gcev_allocs_type_at(a, i);
            fprintf(f, "%zu,", ++shown);
            csv_str(f, t->name);
            fprintf(f, ",%s,%.0f,%.6f,%" PRIu64 ",%.0f,%" PRIu64 ",%" PRIu64 "\n",
                    gcev_allocs_kind_name(t->kind), t->est.bytes, t->est.share, t->est.samples,
                    t->est.objects, t->min_size, t->max_size);
        }
    }
}

/* ---- folded and speedscope ---- */

/* A frame name for the folded format: ';' separates frames and the last ' ' the weight. */
static void folded_name(FILE *f, const char *s)
{
    for (; *s; s++) {
        fputc(*s == ';' ? ':' : *s == '\n' ? ' ' : *s, f);
    }
}

static void print_folded(FILE *f, const gcev_allocs *a, const out_opts *o)
{
    size_t n = gcev_allocs_pair_count(a);
    for (size_t i = 0; i < n; i++) {
        const gcev_allocs_pair *p = gcev_allocs_pair_at(a, i);
        if (!pair_selected(o, p)) {
            continue;
        }
        const gcev_allocs_stack *st = gcev_allocs_stack_at(a, p->stack);
        for (uint32_t j = st->nframes; j-- > 0;) {
            folded_name(f, gcev_allocs_frame_at(a, st->frames[j])->name);
            fputc(';', f);
        }
        fputs("Type ", f);
        folded_name(f, gcev_allocs_type_at(a, p->type)->name);
        fprintf(f, " %.0f\n", floor(p->est.bytes + 0.5));
    }
}

int gcev_cli_allocs_speedscope(FILE *f, const char *name, const gcev_allocs *a, size_t type_filter)
{
    /* frames: the model's, then one per type (the leaf) */
    size_t nf = gcev_allocs_frame_count(a), nt = gcev_allocs_type_count(a);
    fputs("{\"$schema\":\"https://www.speedscope.app/"
          "file-format-schema.json\",\"exporter\":\"gcev " GCEV_CLI_VERSION "\",\"name\":",
          f);
    gcev_cli_json_string(f, name);
    fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", f);
    for (size_t i = 0; i < nf; i++) {
        const gcev_allocs_frame *fr = gcev_allocs_frame_at(a, i);
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        gcev_cli_json_string(f, fr->method);
        if (fr->module[0]) {
            fputs(",\"file\":", f);
            gcev_cli_json_string(f, fr->module);
        }
        fputc('}', f);
    }
    for (size_t i = 0; i < nt; i++) {
        fputs(nf + i ? ",{\"name\":" : "{\"name\":", f);
        fputs("\"Type ", f);
        const char *tn = gcev_allocs_type_at(a, i)->name;
        gcev_cli_json_chars(f, tn); /* inside the quoted "Type ..." name */
        fputs("\"}", f);
    }
    double total = 0;
    size_t np = gcev_allocs_pair_count(a);
    for (size_t i = 0; i < np; i++) {
        const gcev_allocs_pair *p = gcev_allocs_pair_at(a, i);
        if (type_filter == SIZE_MAX || p->type == type_filter) {
            total += floor(p->est.bytes + 0.5);
        }
    }
    fputs("]},\"profiles\":[{\"type\":\"sampled\",\"name\":", f);
    gcev_cli_json_string(f, name);
    fprintf(f, ",\"unit\":\"bytes\",\"startValue\":0,\"endValue\":%.0f,\"samples\":[", total);
    int first = 1;
    for (size_t i = 0; i < np; i++) {
        const gcev_allocs_pair *p = gcev_allocs_pair_at(a, i);
        if (type_filter != SIZE_MAX && p->type != type_filter) {
            continue;
        }
        const gcev_allocs_stack *st = gcev_allocs_stack_at(a, p->stack);
        fputs(first ? "[" : ",[", f);
        first = 0;
        for (uint32_t j = st->nframes; j-- > 0;) { /* root first */
            fprintf(f, "%u,", st->frames[j]);
        }
        fprintf(f, "%zu]", nf + p->type);
    }
    fputs("],\"weights\":[", f);
    first = 1;
    for (size_t i = 0; i < np; i++) {
        const gcev_allocs_pair *p = gcev_allocs_pair_at(a, i);
        if (type_filter != SIZE_MAX && p->type != type_filter) {
            continue;
        }
        fprintf(f, "%s%.0f", first ? "" : ",", floor(p->est.bytes + 0.5));
        first = 0;
    }
    fputs("]}]}\n", f);
    return ferror(f) ? -1 : 0;
}

/* ---- per-event samples (second pass) ---- */

static int print_samples(FILE *f, const char *path, const gcev_allocs *a, uint32_t process_id)
{
    gcev_trace_options opts = {.struct_size = sizeof opts, .order = GCEV_TRACE_ORDER_TIME};
    gcev_trace *t;
    if (gcev_cli_open_trace("allocs", path, &opts, &t)) {
        return GCEV_EXIT_USAGE;
    }
    gcev_trace_event ev;
    gcev_error err = {0};
    gcev_status st;
    uint64_t n = 0;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        gcev_allocs_sample s;
        if (process_id && ev.process_id != process_id) {
            continue;
        }
        if (gcev_allocs_sample_of(&ev, &s, NULL) != GCEV_OK) {
            continue;
        }
        char tn[1024];
        gcev_utf16_to_utf8(s.type_name, tn, sizeof tn);
        fprintf(
            f, "{\"i\":%" PRIu64 ",\"qpc\":%" PRId64 ",\"thread\":%" PRIu64 ",\"source\":\"%s\",\"kind\":%u,",
            n++, ev.timestamp, ev.thread_id, gcev_allocs_source_name(s.source), s.kind);
        fprintf(f, "\"type_id\":%" PRIu64 ",\"type\":", s.type_id);
        gcev_cli_json_string(f, tn);
        fprintf(f, ",\"size\":%" PRIu64 ",\"bytes\":", s.size);
        jnum(f, s.bytes);
        fputs(",\"frames\":[", f);
        uint32_t ps = ev.pointer_size == 4 ? 4 : 8;
        uint32_t nfr = ev.stack ? ev.stack_size / ps : 0;
        for (uint32_t j = 0; j < nfr; j++) {
            const uint8_t *p = ev.stack + (size_t)j * ps;
            uint64_t ip = 0;
            for (uint32_t b = 0; b < ps; b++) {
                ip |= (uint64_t)p[b] << (8 * b);
            }
            gcev_allocs_frame fr;
            char buf[24];
            gcev_allocs_resolve(a, ip, &fr, buf, sizeof buf);
            fputs(j ? "," : "", f);
            gcev_cli_json_string(f, fr.name);
        }
        fputs("]}\n", f);
    }
    int rc = GCEV_EXIT_OK;
    if (st != GCEV_END) {
        gcev_cli_trace_error("allocs", path, t, st, &err);
        rc = GCEV_EXIT_TRACE_ERROR;
    }
    gcev_trace_close(t);
    return rc;
}

static void progress(gcev_cli_progress *pr, uint64_t n)
{
    if (pr->on && (n & 0xffff) == 0) {
        gcev_cli_progress_at(pr, n);
    }
}

int gcev_cmd_allocs(int argc, char **argv)
{
    const char *path = NULL, *v, *speedscope = NULL;
    int m, rc, folded = 0, samples = 0, keep_going = 0, live_opt = 0, profile_given = 0, is_profile;
    out_opts o = {FMT_TEXT, BY_BOTH, 20, 10, SIZE_MAX, 0, NULL};
    int top_given = 0;
    unsigned long long top = 0;
    gcev_allocs_options ao;
    memset(&ao, 0, sizeof ao);
    cli_live_opts live;
    memset(&live, 0, sizeof live);
    gcev_cli_args a;
    gcev_cli_args_init(&a, "allocs", argc, argv);
    while (gcev_cli_args_next(&a)) {
        int lrc = 0, t;
        if (gcev_cli_flag(&a, "--help") || gcev_cli_flag(&a, "-h")) {
            usage(stdout);
            return GCEV_EXIT_OK;
        } else if ((m = gcev_cli_value(&a, "--pid", &v)) != 0) {
            if (m < 0 || cli_parse_pid("allocs", v, &live.pid)) {
                return GCEV_EXIT_USAGE;
            }
            live.have_pid = 1;
        } else if (cli_allocs_profile_option(&a)) {
            live_opt = 1; /* the default of --pid */
        } else if ((is_profile = !a.operands_only && !strncmp(a.arg, "--profile", 9)),
                   (t = cli_live_option(&a, 1, &live, &lrc)) != 0) {
            if (t < 0) {
                return lrc;
            }
            live_opt = 1;
            profile_given |= is_profile;
        } else if ((m = gcev_cli_value(&a, "--format", &v)) != 0) {
            static const char *const formats[] = {"text", "json", "csv", NULL};
            if (m < 0 || (o.fmt = gcev_cli_choice("allocs", "--format", v, formats)) < 0) {
                return GCEV_EXIT_USAGE;
            }
        } else if ((m = gcev_cli_value(&a, "--by", &v)) != 0) {
            static const char *const by[] = {"type", "stack", "thread", NULL};
            if (m < 0 || (o.by = gcev_cli_choice("allocs", "--by", v, by)) < 0) {
                return GCEV_EXIT_USAGE;
            }
        } else if ((m = gcev_cli_value(&a, "--source", &v)) != 0) {
            static const char *const src[] = {"auto", "tick", "sampled", "heap-alloc", NULL};
            int k;
            if (m < 0 || (k = gcev_cli_choice("allocs", "--source", v, src)) < 0) {
                return GCEV_EXIT_USAGE;
            }
            ao.source = (uint32_t)k;
        } else if ((m = gcev_cli_value(&a, "--type", &v)) != 0) {
            if (m < 0) {
                return GCEV_EXIT_USAGE;
            }
            o.type_name = v;
        } else if ((m = gcev_cli_value(&a, "--process", &v)) != 0) {
            unsigned long long pid;
            if (m < 0 || !gcev_cli_number("allocs", "--process", v, UINT32_MAX, 0, &pid) || pid == 0) {
                return GCEV_EXIT_USAGE;
            }
            ao.process_id = (uint32_t)pid;
        } else if ((m = gcev_cli_value(&a, "--top", &v)) != 0) {
            if (m < 0 || !gcev_cli_number("allocs", "--top", v, 1000000, 0, &top)) {
                return GCEV_EXIT_USAGE;
            }
            top_given = 1;
        } else if ((m = gcev_cli_value(&a, "--speedscope", &v)) != 0) {
            if (m < 0) {
                return GCEV_EXIT_USAGE;
            }
            speedscope = v;
        } else if (gcev_cli_flag(&a, "--folded")) {
            folded = 1;
        } else if (gcev_cli_flag(&a, "--samples")) {
            samples = 1;
        } else if (gcev_cli_flag(&a, "--keep-going")) {
            keep_going = 1;
        } else if ((rc = gcev_cli_file_arg(&a, &path)) != 0) {
            return rc;
        }
    }
    if (top_given) {
        o.top_types = o.top_stacks = (size_t)top;
    }
    if (live.have_pid && path) {
        return gcev_cli_fail("allocs", "give either FILE or --pid PID, not both");
    }
    if (live_opt && !live.have_pid) {
        return gcev_cli_fail("allocs",
                             "--duration, --record, --profile, --providers and --timeout need --pid");
    }
    if (!path && !live.have_pid) {
        return gcev_cli_no_file("allocs");
    }
    if ((keep_going || samples) && live.have_pid) {
        return gcev_cli_fail("allocs", "%s reads a FILE, not a live session (--pid)",
                             samples ? "--samples" : "--keep-going");
    }
    if (samples && !strcmp(path, "-")) {
        return gcev_cli_fail("allocs", "--samples reads FILE twice: it cannot be standard input");
    }
    gcev_trace_options topts = {
        .struct_size = sizeof topts, .order = GCEV_TRACE_ORDER_TIME, .keep_going = (uint32_t)keep_going};
    if (live.have_pid && !live.nproviders && !profile_given) {
        cli_allocs_providers(&live);
    }
    gcev_trace *t;
    gcev_session *sess;
    char pid_label[32];
    int orc = cli_input_open("allocs", &live, GCEV_TRACE_ORDER_TIME, &topts, &path, pid_label, &t, &sess);
    if (orc) {
        return orc;
    }
    gcev_allocs *al;
    if (gcev_allocs_create(&ao, &al) != GCEV_OK) {
        cli_input_close(t, sess);
        return gcev_cli_fail("allocs", "out of memory");
    }
    gcev_cli_progress pr;
    gcev_cli_progress_start(&pr, "allocs", t, 0);
    gcev_trace_event ev;
    gcev_error err = {0};
    gcev_status st;
    uint64_t nev = 0;
    rc = GCEV_EXIT_OK;
    const char *read_error = NULL;
    while ((st = sess ? gcev_session_next(sess, &ev, &err) : gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        if (gcev_allocs_add(al, &ev, NULL) == GCEV_E_NOMEM) {
            st = GCEV_E_NOMEM;
            err.code = st;
            err.message = "out of memory";
            err.offset = gcev_trace_bytes_read(t);
            break;
        }
        progress(&pr, ++nev);
    }
    gcev_cli_progress_end(&pr);
    if (gcev_allocs_finish(al) != GCEV_OK) {
        st = GCEV_E_NOMEM;
    }
    rc = cli_input_end("allocs", path, t, sess, st, &err, &read_error);
    if (o.type_name) {
        o.type = gcev_allocs_type_find(al, o.type_name);
        o.type_given = 1;
        if (o.type == SIZE_MAX) {
            fprintf(stderr, "gcev allocs: no allocation of type '%s' in %s\n", o.type_name,
                    gcev_cli_file_label(path));
        }
    }
    const gcev_allocs_summary *sum = gcev_allocs_get_summary(al);
    if (sum->decode_errors) {
        const char *evname;
        const gcev_error *fe = gcev_allocs_first_error(al, &evname);
        fprintf(stderr,
                "gcev allocs: %s: %" PRIu64 " malformed event%s skipped; the first: %s at offset %" PRIu64
                ": %s%s%s\n",
                gcev_cli_file_label(path), sum->decode_errors, sum->decode_errors == 1 ? "" : "s", evname,
                fe->offset, fe->field ? fe->field : "", fe->field ? ": " : "",
                fe->message ? fe->message : "");
    }
    if (samples) {
        int src = print_samples(stdout, path, al, ao.process_id);
        if (src != GCEV_EXIT_OK && rc == GCEV_EXIT_OK) {
            rc = src;
        }
    } else if (folded) {
        print_folded(stdout, al, &o);
    } else if (o.fmt == FMT_JSON) {
        print_json(stdout, gcev_cli_file_label(path), al, &o, read_error);
    } else if (o.fmt == FMT_CSV) {
        print_csv(stdout, al, &o);
    } else {
        print_text(stdout, gcev_cli_file_label(path), al, &o);
    }
    if (speedscope) {
        int to_stdout = !strcmp(speedscope, "-");
        FILE *f = to_stdout ? stdout : fopen(speedscope, "w");
        if (!f) {
            gcev_cli_fail("allocs", "cannot create %s", speedscope);
            rc = GCEV_EXIT_USAGE;
        } else {
            int bad = gcev_cli_allocs_speedscope(f, gcev_cli_file_label(path), al,
                                                 o.type_given ? o.type : SIZE_MAX);
            if (!to_stdout && (fclose(f) != 0 || bad)) {
                fprintf(stderr, "gcev allocs: %s: write error\n", speedscope);
                rc = GCEV_EXIT_TRACE_ERROR;
            }
        }
    }
    if (!sess && gcev_cli_report_skips("allocs", path, t, "the profile is") && rc == GCEV_EXIT_OK) {
        rc = GCEV_EXIT_TRACE_ERROR;
    }
    gcev_allocs_free(al);
    cli_input_close(t, sess);
    return rc;
}
