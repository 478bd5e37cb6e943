/* SPDX-License-Identifier: MIT */
/*
 * gcev serve's side of a scrape (not a timed test; prints the numbers): the time to write the
 * /metrics exposition for N watched processes, each holding the metric state of every GC of a
 * real trace (fed through the analysis model's GC-end callback, as serve's reader threads
 * do). bench/serve.sh measures the whole scrape over HTTP with live processes; this isolates
 * the exporter's own work from the scheduling of a loaded machine. Where serve's gzip is built,
 * it also times the gzip of the exposition (what a scrape that asks for gzip adds).
 *
 *   bench_serve_expo TRACE [N=20] [SCRAPES=200]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gcev/gcev_stats.h>
#include <gcev/gcev_trace.h>

#include "serve.h"
#ifdef GCEV_BENCH_GZIP
#include "serve_gzip.h"
#endif

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void on_gc(void *ctx, const gcev_stats *s, const gcev_stats_gc *g)
{
    const gcev_stats_gen_heap *gens[GCEV_STATS_GENS];
    for (unsigned i = 0; i < GCEV_STATS_GENS; i++) {
        gens[i] = gcev_stats_gc_gen_at(s, g, i);
    }
    serve_pm_on_gc(ctx, g, gens);
}

/* Every GC of the trace applied to m; 0 on failure. */
static int feed(const char *path, serve_pm *m)
{
    gcev_trace *t = NULL;
    gcev_error err = {0};
    if (gcev_trace_open_file(path, NULL, &t, &err) != GCEV_OK) {
        fprintf(stderr, "bench_serve_expo: %s: %s\n", path, err.message ? err.message : "cannot open");
        return 0;
    }
    gcev_stats *s = NULL;
    if (gcev_stats_create(NULL, &s) != GCEV_OK || gcev_stats_set_gc_callback(s, on_gc, m) != GCEV_OK) {
        gcev_stats_free(s);
        gcev_trace_close(t);
        return 0;
    }
    gcev_trace_event ev;
    gcev_status st;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        m->events++;
        (void)gcev_stats_add_trace_event(s, &ev);
    }
    gcev_stats_finish(s);
    gcev_stats_free(s);
    gcev_trace_close(t);
    if (st != GCEV_END) {
        fprintf(stderr, "bench_serve_expo: %s: %s\n", path, err.message ? err.message : gcev_status_str(st));
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_serve_expo TRACE [N=20] [SCRAPES=200]\n");
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 20;
    int scrapes = argc > 3 ? atoi(argv[3]) : 200;
    if (n < 1 || n > 10000 || scrapes < 1) {
        fprintf(stderr, "bench_serve_expo: N in 1..10000, SCRAPES >= 1\n");
        return 2;
    }
    serve_proc *procs = calloc((size_t)n, sizeof *procs);
    if (!procs || !feed(argv[1], &procs[0].m)) {
        return 1;
    }
    for (int i = 0; i < n; i++) {
        serve_proc *p = &procs[i];
        if (i) {
            p->m = procs[0].m;
        }
        p->pid = 100000u + (uint32_t)i;
        snprintf(p->name, sizeof p->name, "workload-%d", i);
        snprintf(p->runtime, sizeof p->runtime, "10.0.12");
        serve_proc_labels(p);
        p->state = SERVE_ATTACHED;
        p->mono_started = 1000;
        p->next = i + 1 < n ? &procs[i + 1] : NULL;
    }
    serve_self self = {1.5, 70u << 20, 0, 0.01, 42};
    double best = 0, total = 0, zbest = 0;
    size_t bytes = 0, samples = 0, zbytes = 0;
    for (int r = 0; r < scrapes; r++) {
        serve_buf b = {NULL, 0, 0, 0};
        double t0 = now_ns();
        serve_expo_write(&b, procs, &self, 60000, 0);
        double dt = now_ns() - t0;
        if (b.failed) {
            fprintf(stderr, "bench_serve_expo: out of memory\n");
            return 1;
        }
        best = r == 0 || dt < best ? dt : best;
        total += dt;
        if (r == 0) {
            bytes = b.n;
            for (size_t k = 0; k < b.n; k++) {
                samples += b.p[k] == '\n' && k + 1 < b.n && b.p[k + 1] != '#';
            }
        }
#ifdef GCEV_BENCH_GZIP
        char *z = NULL;
        size_t zn = 0;
        t0 = now_ns();
        if (!serve_gzip(b.p, b.n, &z, &zn)) {
            fprintf(stderr, "bench_serve_expo: gzip failed\n");
            return 1;
        }
        dt = now_ns() - t0;
        zbest = r == 0 || dt < zbest ? dt : zbest;
        zbytes = zn;
        free(z);
#endif
        serve_buf_free(&b);
    }
    printf("exposition of %d processes (the GCs of %s each): %zu samples, %zu bytes\n", n, argv[1], samples,
           bytes);
    printf("write: best %.3f ms, mean %.3f ms over %d scrapes (%.0f ns per sample)\n", best / 1e6,
           total / scrapes / 1e6, scrapes, best / (double)(samples ? samples : 1));
    if (zbytes) {
        printf("gzip: best %.3f ms, %zu bytes (%.1f%% of the text)\n", zbest / 1e6, zbytes,
               100.0 * (double)zbytes / (double)(bytes ? bytes : 1));
    }
    free(procs);
    return 0;
}
