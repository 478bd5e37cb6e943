/* SPDX-License-Identifier: MIT */
/*
 * gcev watch PID [--duration S] [--format text|jsonl] [--record FILE] [--profile P] [--timeout S]
 * Attaches to a running .NET process and prints one line per GC as it ends,
 * then a summary. Lines go to stdout (flushed per GC); what happens to the
 * session goes to stderr.
 */
#include <stdio.h>
#include <string.h>

#include <gcev/gcev_stats.h>

#include "cli.h"
#include "cli_session.h"
#include "commands.h"
#include "live_gc.h"

enum { FMT_TEXT, FMT_JSONL };

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: gcev watch PID [--duration S] [--format text|jsonl] [--record FILE] [--profile P]\n"
        "                  [--timeout S]\n"
        "Attaches to a running .NET process and prints one line per GC as it ends: number,\n"
        "generation, type, reason, pause, heap size after and bytes promoted; a summary at the\n"
        "end. jsonl prints one JSON object per GC and one {\"summary\":...} object.\n" CLI_LIVE_OPTIONS_HELP
        "  --format F     text (default) or jsonl\n"
        "  --record FILE  also write the session's stream to FILE (.nettrace)\n");
}

typedef struct watch {
    int fmt;
    uint64_t gcs, gens[3], incomplete;
    uint64_t pause_count;
    double pause_total, pause_max;
    uint32_t pause_max_gc;
} watch;

static void print_mb(char *buf, size_t n, int has, uint64_t bytes)
{
    if (has) {
        snprintf(buf, n, "%.2f MB", (double)bytes / 1e6);
    } else {
        snprintf(buf, n, "-");
    }
}

static void on_gc(void *ctx, const live_gc_record *g)
{
    watch *w = ctx;
    w->gcs++;
    if ((g->present & LIVE_HAS_GENERATION) && g->generation < 3) {
        w->gens[g->generation]++;
    }
    if (!g->complete) {
        w->incomplete++;
    }
    if (g->present & LIVE_HAS_PAUSE) {
        w->pause_count++;
        w->pause_total += g->pause_ms;
        if (g->pause_ms > w->pause_max || w->pause_count == 1) {
            w->pause_max = g->pause_ms;
            w->pause_max_gc = g->number;
        }
    }
    const char *type = (g->present & LIVE_HAS_TYPE) ? gcev_stats_gc_type_name(g->type) : NULL;
    const char *reason = (g->present & LIVE_HAS_REASON) ? gcev_gc_reason_map_name(g->reason) : NULL;
    if (w->fmt == FMT_JSONL) {
        printf("{\"gc\":%u", g->number);
        if (g->present & LIVE_HAS_GENERATION) {
            printf(",\"generation\":%u", g->generation);
        }
        if (g->present & LIVE_HAS_TYPE) {
            printf(",\"type\":");
            if (type) {
                gcev_cli_json_string(stdout, type);
            } else {
                printf("%u", g->type);
            }
        }
        if (g->present & LIVE_HAS_REASON) {
            printf(",\"reason\":");
            if (reason) {
                gcev_cli_json_string(stdout, reason);
            } else {
                printf("%u", g->reason);
            }
        }
        printf(",\"start_ms\":%.6f", g->start_ms);
        if (g->present & LIVE_HAS_END) {
            printf(",\"end_ms\":%.6f", g->end_ms);
        }
        if (g->present & LIVE_HAS_PAUSE) {
            printf(",\"pause_ms\":%.6f", g->pause_ms);
        }
        if (g->present & LIVE_HAS_HEAP) {
            printf(",\"heap_after_bytes\":%llu", (unsigned long long)g->heap_after);
        }
        if (g->present & LIVE_HAS_PROMOTED) {
            printf(",\"promoted_bytes\":%llu", (unsigned long long)g->promoted);
        }
        printf(",\"complete\":%s,\"json_version\":%d}\n", g->complete ? "true" : "false",
               GCEV_JSON_VERSION_WATCH);
    } else {
        char gen[8] = "-", pause[24] = "-", heap[24], prom[24], rs[16];
        if (g->present & LIVE_HAS_GENERATION) {
            snprintf(gen, sizeof gen, "%u", g->generation);
        }
        if (g->present & LIVE_HAS_PAUSE) {
            snprintf(pause, sizeof pause, "%.3f ms", g->pause_ms);
        }
        if (!reason && (g->present & LIVE_HAS_REASON)) {
            snprintf(rs, sizeof rs, "%u", g->reason);
            reason = rs;
        }
        print_mb(heap, sizeof heap, (g->present & LIVE_HAS_HEAP) != 0, g->heap_after);
        print_mb(prom, sizeof prom, (g->present & LIVE_HAS_PROMOTED) != 0, g->promoted);
        printf("GC %6u  gen %s  %-10s  %-18s  pause %11s  heap after %11s  promoted %11s%s\n", g->number, gen,
               type ? type : "-", reason ? reason : "-", pause, heap, prom,
               g->complete ? "" : "  (no end seen)");
    }
    fflush(stdout);
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
    live_gc *l = live_gc_create(on_gc, &w);
    if (!l) {
        return gcev_cli_fail("watch", "out of memory");
    }
    gcev_session *s;
    /* stream order: the runtime sends no sequence point for a long time (live_gc.h) */
    int rc = cli_live_open("watch", &o, GCEV_TRACE_ORDER_FILE, &s);
    if (rc) {
        live_gc_free(l);
        return rc;
    }
    gcev_trace_event ev;
    gcev_error err = {0};
    gcev_status st;
    uint64_t events = 0;
    double last = 0; /* ms since the session's trace started */
    while ((st = gcev_session_next(s, &ev, &err)) == GCEV_OK) {
        events++;
        if (ev.ms > last) {
            last = ev.ms;
        }
        live_gc_add(l, &ev);
    }
    live_gc_flush(l);
    print_summary(&w, last / 1000.0, events, gcev_trace_dropped_events(gcev_session_trace(s)));
    rc = cli_live_end("watch", s, st, &err);
    cli_live_close(s);
    live_gc_free(l);
    return rc;
}
