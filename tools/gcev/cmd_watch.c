/* SPDX-License-Identifier: MIT */
/*
 * gcev watch PID [--duration S] [--format text|jsonl] [--record FILE] [--profile P] [--timeout S]
 * Attaches to a running .NET process and prints one line per GC as the GC analysis
 * model closes it (gcev_stats_set_gc_callback), then a summary. The session is
 * read in stream order with timestamp order restored at the runtime's flush marks
 * (GCEV_TRACE_ORDER_STREAM), so the model sees what `gcev stats` sees on the
 * recorded stream: pause, nesting in background GCs and completeness are its
 * decisions, no rule of watch's own. Lines go to stdout (flushed per GC); what
 * happens to the session goes to stderr.
 */
#include <stdio.h>
#include <string.h>

#include <gcev/gcev_session.h>
#include <gcev/gcev_stats.h>

#include "cli.h"
#include "cli_session.h"
#include "commands.h"
#include "stats_out.h"

enum { FMT_TEXT, FMT_JSONL };

static void usage(FILE *f)
{
    fprintf(f, "usage: gcev watch PID [--duration S] [--format text|jsonl] [--record FILE] [--profile P]\n"
               "                  [--timeout S]\n"
               "Attaches to a running .NET process and prints one line per GC once the analysis has\n"
               "closed it (its pause and heap statistics are final: the numbers `gcev stats` gives):\n"
               "number, generation, type, reason, pause, %% of the time paused since the previous GC,\n"
               "heap size after, bytes promoted, fragmentation, committed memory (.NET 8+), allocation\n"
               "rate and the size after of each generation (MB); a summary at the end. GCs that run\n"
               "inside a background GC are printed right after it. jsonl prints {\"gc\":{...}} per GC,\n"
               "with the keys of `gcev stats --format json` \"gcs\", and one {\"summary\":...} object.\n"
               "Without --duration it runs until Ctrl-C or the process exits.\n" CLI_LIVE_OPTIONS_HELP
               "  --format F     text (default) or jsonl\n"
               "  --record FILE  also write the session's stream to FILE (.nettrace)\n");
}

typedef struct watch {
    int fmt;
    uint64_t gcs, gens[3], incomplete;
    uint64_t pause_count;
    double pause_total, pause_max;
    uint32_t pause_max_gc;
    int write_failed;
} watch;

static void print_mb(char *buf, size_t n, int has, uint64_t bytes)
{
    if (has) {
        snprintf(buf, n, "%.2f MB", (double)bytes / 1e6);
    } else {
        snprintf(buf, n, "-");
    }
}

static uint64_t committed_total(const gcev_stats_committed *c)
{
    return c->in_use + c->in_global_decommit + c->in_free + c->in_global_free + c->bookkeeping;
}

/* Fragmentation of the whole heap after the GC: free space / size, from the per-generation
 * figures (absent unless every generation with a size has its fragmentation). */
static int fragmentation(const gcev_stats *s, const gcev_stats_gc *g, double *pct)
{
    uint64_t frag = 0, size = 0;
    for (unsigned i = 0; i < GCEV_STATS_GENS; i++) {
        const gcev_stats_gen_heap *h = gcev_stats_gc_gen_at(s, g, i);
        if (!(h->present & GCEV_STATS_HEAP_HAS_SIZE_AFTER)) {
            return 0;
        }
        if (h->size_after && !(h->present & GCEV_STATS_HEAP_HAS_FRAG_AFTER)) {
            return 0;
        }
        frag += h->frag_after;
        size += h->size_after;
    }
    if (!size) {
        return 0;
    }
    *pct = (double)frag * 100.0 / (double)size;
    return 1;
}

static void print_text(const gcev_stats *s, const gcev_stats_gc *g)
{
    uint64_t p = g->present;
    char gen[8] = "-", pause[24] = "-", heap[24], prom[24], rs[16], extra[256] = "";
    const char *type = (p & GCEV_STATS_GC_HAS_TYPE) ? gcev_stats_gc_type_name(g->type) : NULL;
    const char *reason = (p & GCEV_STATS_GC_HAS_REASON) ? gcev_gc_reason_name(g->reason) : NULL;
    if (p & GCEV_STATS_GC_HAS_GENERATION) {
        snprintf(gen, sizeof gen, "%u", g->generation);
    }
    if (p & GCEV_STATS_GC_HAS_PAUSE) {
        snprintf(pause, sizeof pause, "%.3f ms", g->pause_ms);
    }
    if (!reason && (p & GCEV_STATS_GC_HAS_REASON)) {
        snprintf(rs, sizeof rs, "%u", g->reason);
        reason = rs;
    }
    print_mb(heap, sizeof heap, (p & GCEV_STATS_GC_HAS_SIZE_AFTER) != 0, g->heap_size_after);
    print_mb(prom, sizeof prom, (p & GCEV_STATS_GC_HAS_PROMOTED) != 0, g->promoted_bytes);
    size_t n = 0;
    double frag;
    if (p & GCEV_STATS_GC_HAS_PAUSE_PERCENT) {
        n += (size_t)snprintf(extra + n, sizeof extra - n, "  paused %.1f%%", g->pause_time_percent);
    }
    if (fragmentation(s, g, &frag) && n < sizeof extra) {
        n += (size_t)snprintf(extra + n, sizeof extra - n, "  frag %.1f%%", frag);
    }
    if ((p & GCEV_STATS_GC_HAS_COMMITTED_AFTER) && n < sizeof extra) {
        n += (size_t)snprintf(extra + n, sizeof extra - n, "  committed %.2f MB",
                              (double)committed_total(&g->committed_after) / 1e6);
    }
    if ((p & GCEV_STATS_GC_HAS_ALLOC_RATE) && n < sizeof extra) {
        n += (size_t)snprintf(extra + n, sizeof extra - n, "  alloc %.1f MB/s", g->alloc_rate_mb_per_sec);
    }
    if ((gcev_stats_gc_gen_at(s, g, 0)->present & GCEV_STATS_HEAP_HAS_SIZE_AFTER) && n < sizeof extra) {
        n += (size_t)snprintf(extra + n, sizeof extra - n, "  gens");
        for (unsigned i = 0; i < GCEV_STATS_GENS && n < sizeof extra; i++) {
            n += (size_t)snprintf(extra + n, sizeof extra - n, "%s%.2f", i ? "/" : " ",
                                  (double)gcev_stats_gc_gen_at(s, g, i)->size_after / 1e6);
        }
    }
    printf("GC %6u  gen %s  %-10s  %-18s  pause %11s  heap after %11s  promoted %11s%s%s\n", g->number, gen,
           type ? type : "-", reason ? reason : "-", pause, heap, prom, extra,
           (g->flags & GCEV_STATS_GC_COMPLETE) ? "" : "  (incomplete: its end was not seen)");
}

static void on_gc(void *ctx, const gcev_stats *s, const gcev_stats_gc *g)
{
    watch *w = ctx;
    w->gcs++;
    if ((g->present & GCEV_STATS_GC_HAS_GENERATION) && g->generation < 3) {
        w->gens[g->generation]++;
    }
    if (!(g->flags & GCEV_STATS_GC_COMPLETE)) {
        w->incomplete++;
    }
    if (g->present & GCEV_STATS_GC_HAS_PAUSE) {
        w->pause_count++;
        w->pause_total += g->pause_ms;
        if (g->pause_ms > w->pause_max || w->pause_count == 1) {
            w->pause_max = g->pause_ms;
            w->pause_max_gc = g->number;
        }
    }
    if (w->fmt == FMT_JSONL) {
        fputs("{\"gc\":", stdout);
        stats_print_gc_json(stdout, s, g);
        printf(",\"json_version\":%d}\n", GCEV_JSON_VERSION_WATCH);
    } else {
        print_text(s, g);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        w->write_failed = 1;
    }
}

static void print_summary(const watch *w, double seconds, uint64_t events, uint64_t dropped)
{
    double mean = w->pause_count ? w->pause_total / (double)w->pause_count : 0.0;
    double pct = seconds > 0 ? w->pause_total / (seconds * 1000.0) * 100.0 : 0.0;
    if (w->fmt == FMT_JSONL) {
        printf("{\"summary\":{\"gcs\":%llu,\"gen0\":%llu,\"gen1\":%llu,\"gen2\":%llu,\"incomplete\":%llu,"
               "\"pause_count\":%llu,\"pause_total_ms\":%.6f,\"pause_mean_ms\":%.6f,\"pause_max_ms\":%.6f,",
               (unsigned long long)w->gcs, (unsigned long long)w->gens[0], (unsigned long long)w->gens[1],
               (unsigned long long)w->gens[2], (unsigned long long)w->incomplete,
               (unsigned long long)w->pause_count, w->pause_total, mean, w->pause_max);
        if (w->pause_count) {
            printf("\"pause_max_gc\":%u,", w->pause_max_gc);
        }
        printf("\"seconds\":%.3f,\"paused_percent\":%.4f,\"events\":%llu,\"dropped_events\":%llu},"
               "\"json_version\":%d}\n",
               seconds, pct, (unsigned long long)events, (unsigned long long)dropped,
               GCEV_JSON_VERSION_WATCH);
    } else {
        printf("-- %llu GCs (gen0 %llu, gen1 %llu, gen2 %llu) in %.1f s", (unsigned long long)w->gcs,
               (unsigned long long)w->gens[0], (unsigned long long)w->gens[1], (unsigned long long)w->gens[2],
               seconds);
        if (w->pause_count) {
            printf("; pause total %.3f ms (%.2f%% of the time), mean %.3f ms, max %.3f ms (GC %u)",
                   w->pause_total, pct, mean, w->pause_max, w->pause_max_gc);
        }
        printf("\n-- %llu events", (unsigned long long)events);
        if (dropped) {
            printf(", %llu DROPPED by the runtime (its buffer was full): GCs may be missing",
                   (unsigned long long)dropped);
        }
        if (w->incomplete) {
            printf(", %llu GCs without an end", (unsigned long long)w->incomplete);
        }
        printf("\n");
    }
}

/* The header: what is watched, with which profile (stderr, like the attach line). */
static void print_header(const cli_live_opts *o, gcev_session *sess)
{
    const gcev_session_info *in = gcev_session_get_info(sess);
    const char *cmdline = in->process->command_line && in->process->command_line[0]
                              ? in->process->command_line
                              : "(command line unknown)";
    const char *profile = o->nproviders                           ? "custom (--providers)"
                          : o->profile == GCEV_SESSION_GC_VERBOSE ? "gc-verbose"
                                                                  : "gc-collect";
    fprintf(stderr, "gcev watch: process %u: %s; profile %s\n", o->pid, cmdline, profile);
}

int gcev_cmd_watch(int argc, char **argv)
{
    cli_live_opts o;
    memset(&o, 0, sizeof o);
    watch w;
    memset(&w, 0, sizeof w);
    gcev_cli_args a;
    gcev_cli_args_init(&a, "watch", argc, argv);
    while (gcev_cli_args_next(&a)) {
        const char *v;
        int rc = 0, m, t;
        if (gcev_cli_flag(&a, "--help") || gcev_cli_flag(&a, "-h")) {
            usage(stdout);
            return GCEV_EXIT_OK;
        } else if ((t = cli_live_option(&a, 1, &o, &rc)) != 0) {
            if (t < 0) {
                return rc;
            }
        } else if ((m = gcev_cli_value(&a, "--format", &v)) != 0) {
            static const char *const formats[] = {"text", "jsonl", NULL}; /* FMT_* order */
            if (m < 0 || (w.fmt = gcev_cli_choice("watch", "--format", v, formats)) < 0) {
                return GCEV_EXIT_USAGE;
            }
        } else if ((rc = cli_live_pid_arg(&a, &o)) != 0) {
            return rc;
        }
    }
    if (!o.have_pid) {
        usage(stderr);
        return GCEV_EXIT_USAGE;
    }
    gcev_stats *s;
    if (gcev_stats_create(NULL, &s) != GCEV_OK || gcev_stats_set_gc_callback(s, on_gc, &w) != GCEV_OK) {
        gcev_stats_free(s);
        return gcev_cli_fail("watch", "out of memory");
    }
    gcev_session *sess;
    o.no_stacks = 1; /* the GC analysis reads none */
    int rc = cli_live_open("watch", &o, GCEV_TRACE_ORDER_STREAM, &sess);
    if (rc) {
        gcev_stats_free(s);
        return rc;
    }
    print_header(&o, sess);
    gcev_trace *t = gcev_session_trace(sess);
    gcev_error err = {0};
    /* the model closes each GC as its events arrive (on_gc), the rest at the end */
    gcev_status st = gcev_stats_read_trace(s, t, NULL, NULL, &err);
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    double seconds = sum && sum->events ? sum->last_ms / 1000.0 : 0.0;
    print_summary(&w, seconds, sum ? sum->events : 0, gcev_trace_dropped_events(t));
    if ((fflush(stdout) != 0 || ferror(stdout)) && !w.write_failed) {
        w.write_failed = 1;
    }
    gcev_status ls = gcev_session_status(sess, st == GCEV_OK ? GCEV_END : st, &err);
    rc = cli_live_end("watch", sess, ls, &err);
    cli_live_close(sess);
    gcev_stats_free(s);
    if (w.write_failed && rc == GCEV_EXIT_OK) {
        rc = gcev_cli_fail("watch", "cannot write the output");
    }
    return rc;
}
