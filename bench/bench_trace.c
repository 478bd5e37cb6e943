/* SPDX-License-Identifier: MIT */
/*
 * Walk speed of the trace reader: for each trace (argv, or every .nettrace /
 * .netperf in $GCEV_SHARED_DIR/corpus), events/s and MB/s walking every event,
 * with and without decoding the GC payloads, and the ratio to a plain
 * sequential read (checksum) of the same bytes, measured in the same run.
 *
 *   bench_trace [TRACE...]
 *   bench_trace --cpu RUNS TRACE...   per trace, mode (walk, decode, fields: the full record of
 *                                     gcev_trace_next, see walk_trace(); lean, lean+fields: the
 *                                     lean batch, see lean_walk() and lean_fields() with
 *                                     gcev_fields) and source (file: each walk opens the file
 *                                     with gcev_trace_open_file, as a user does; memory: the
 *                                     bytes read once before), the best process CPU time of RUNS
 *                                     walks after one warm-up, one tab-separated line each after
 *                                     a '#' header: gcev MODE FILE EVENTS GC_EVENTS BEST_CPU_S
 *                                     EVENTS_PER_S SOURCE (bench/traceevent.sh joins it with
 *                                     bench-traceevent's); fails when lean+fields read other
 *                                     values than fields
 *   bench_trace --callgrind N TRACE   N passes of walk_loop, then N of walk_decode_loop, then N
 *                                     of walk_fields_loop and N of walk_names_loop, printing the
 *                                     events each walked (for valgrind
 *                                     --toggle-collect=walk_loop; bench/instructions.sh); then
 *                                     walk_gc_loop, walk_lean_loop, lean_fields_loop and
 *                                     lean_batch_loop, failing when the lean field walks read
 *                                     other values than walk_fields_loop
 *
 * walk_fields_loop is what a generic consumer does: walk, decode every GC payload and read
 * every top-level field with gcev_field_next, value names left to gcev_field_value_name
 * (GCEV_FIELD_LAZY_NAMES) and not asked for; walk_names_loop the same with the iterator's
 * default, which looks up the value name of every mapped field.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gcev/gcev_trace.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: the machine may be shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = sz > 0 ? malloc((size_t)sz) : NULL;
    if (p && fread(p, 1, (size_t)sz, f) != (size_t)sz) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *n = p ? (size_t)sz : 0;
    return p;
}

/* Events walked; decode >= 1 also decodes payloads with a compiled schema, decode == 2 then
 * reads every field of the decoded event with the generic field walk (lazy value names),
 * decode == 3 the same with the value names looked up; decode == 4 decodes as 1 but asks the
 * reader for the GC set only (gcev_trace_set_filter, what gcev stats does): the count is then
 * of the events returned. Closes t. */
static unsigned long long walk_trace(gcev_trace *t, int decode, unsigned long long *sink)
{
    if (decode == 4) {
        gcev_trace_filter f;
        memset(&f, 0, sizeof f);
        f.struct_size = sizeof f;
        f.flags = GCEV_TRACE_FILTER_GC;
        if (gcev_trace_set_filter(t, &f, NULL) != GCEV_OK) {
            gcev_trace_close(t);
            return 0;
        }
    }
    gcev_trace_event ev;
    unsigned long long k = 0;
    while (gcev_trace_next(t, &ev, NULL) == GCEV_OK) {
        k++;
        *sink += ev.payload_size;
        if (decode && ev.provider) {
            gcev_input in = {.struct_size = sizeof in,
                             .provider = ev.provider,
                             .event_id = ev.event_id,
                             .version = ev.version,
                             .pointer_size = ev.pointer_size,
                             .data = ev.payload,
                             .size = ev.payload_size};
            gcev_event out;
            if (gcev_decode(&in, &out, NULL) == GCEV_OK) {
                *sink += out.consumed;
                if (decode == 2 || decode == 3) {
                    gcev_field_iter it;
                    gcev_field f;
                    gcev_field_iter_init(&it, &out);
                    if (decode == 2) {
                        gcev_field_iter_set_options(&it, GCEV_FIELD_LAZY_NAMES);
                    }
                    while (gcev_field_next(&it, &f)) {
                        *sink += f.v.u;
                    }
                }
            }
        }
    }
    gcev_trace_close(t);
    return k;
}

static unsigned long long walk(const uint8_t *p, size_t n, int decode, unsigned long long *sink)
{
    gcev_trace *t;
    if (gcev_trace_open_memory(p, n, NULL, &t, NULL) != GCEV_OK) {
        return 0;
    }
    return walk_trace(t, decode, sink);
}

/* Named loops for callgrind's --toggle-collect. */
__attribute__((noinline)) unsigned long long walk_loop(const uint8_t *p, size_t n, unsigned long long *sink);
__attribute__((noinline)) unsigned long long walk_loop(const uint8_t *p, size_t n, unsigned long long *sink)
{
    return walk(p, n, 0, sink);
}

__attribute__((noinline)) unsigned long long walk_decode_loop(const uint8_t *p, size_t n,
                                                              unsigned long long *sink);
__attribute__((noinline)) unsigned long long walk_decode_loop(const uint8_t *p, size_t n,
                                                              unsigned long long *sink)
{
    return walk(p, n, 1, sink);
}

__attribute__((noinline)) unsigned long long walk_fields_loop(const uint8_t *p, size_t n,
                                                              unsigned long long *sink);
__attribute__((noinline)) unsigned long long walk_fields_loop(const uint8_t *p, size_t n,
                                                              unsigned long long *sink)
{
    return walk(p, n, 2, sink);
}

__attribute__((noinline)) unsigned long long walk_names_loop(const uint8_t *p, size_t n,
                                                             unsigned long long *sink);
__attribute__((noinline)) unsigned long long walk_names_loop(const uint8_t *p, size_t n,
                                                             unsigned long long *sink)
{
    return walk(p, n, 3, sink);
}

/* The lean walk: gcev_trace_next_lean_batch, 256 lean records a call (what gcev count does),
 * the payload bytes summed as walk_trace() does. Closes t. */
static unsigned long long lean_walk(gcev_trace *t, unsigned long long *sink)
{
    gcev_trace_lean ev[256];
    ev[0].struct_size = sizeof ev[0];
    size_t k;
    unsigned long long events = 0;
    while (gcev_trace_next_lean_batch(t, ev, 256, &k, NULL) == GCEV_OK) {
        for (size_t i = 0; i < k; i++) {
            *sink += ev[i].payload_size;
        }
        events += k;
    }
    gcev_trace_close(t);
    return events;
}

__attribute__((noinline)) unsigned long long walk_lean_loop(const uint8_t *p, size_t n,
                                                            unsigned long long *sink);
__attribute__((noinline)) unsigned long long walk_lean_loop(const uint8_t *p, size_t n,
                                                            unsigned long long *sink)
{
    gcev_trace *t;
    if (gcev_trace_open_memory(p, n, NULL, &t, NULL) != GCEV_OK) {
        return 0;
    }
    return lean_walk(t, sink);
}

/* The lean walk of lean_walk(), then what walk_trace() does with each event in mode 2: gcev_decode
 * of the lean record (provider, id, version, pointer size and payload are all it reads) and
 * every top-level field of every decoded GC event, value names left lazy; with batch, one
 * gcev_fields() call an event instead of gcev_field_next() a field. The sink gets the same
 * sums as walk_fields_loop's (main checks it): the same events decoded, the same values.
 * Closes t. */
static unsigned long long lean_fields(gcev_trace *t, int batch, unsigned long long *sink)
{
    gcev_trace_lean ev[256];
    ev[0].struct_size = sizeof ev[0];
    size_t k;
    unsigned long long events = 0;
    gcev_input in = {.struct_size = sizeof in};
    gcev_event out;
    gcev_field fs[64];
    while (gcev_trace_next_lean_batch(t, ev, 256, &k, NULL) == GCEV_OK) {
        for (size_t i = 0; i < k; i++) {
            const gcev_trace_lean *e = &ev[i];
            *sink += e->payload_size;
            if (!e->provider) {
                continue;
            }
            in.provider = e->provider;
            in.event_id = e->event_id;
            in.version = e->version;
            in.pointer_size = e->pointer_size;
            in.data = e->payload;
            in.size = e->payload_size;
            if (gcev_decode(&in, &out, NULL) != GCEV_OK) {
                continue;
            }
            *sink += out.consumed;
            if (batch) {
                size_t nf = gcev_fields(&out, fs, 64, GCEV_FIELD_LAZY_NAMES);
                for (size_t j = 0; j < nf && j < 64; j++) {
                    *sink += fs[j].v.u;
                }
            } else {
                gcev_field_iter it;
                gcev_field_iter_init(&it, &out);
                gcev_field_iter_set_options(&it, GCEV_FIELD_LAZY_NAMES);
                while (gcev_field_next(&it, &fs[0])) {
                    *sink += fs[0].v.u;
                }
            }
        }
        events += k;
    }
    gcev_trace_close(t);
    return events;
}

static unsigned long long lean_fields_mem(const uint8_t *p, size_t n, int batch, unsigned long long *sink)
{
    gcev_trace *t;
    if (gcev_trace_open_memory(p, n, NULL, &t, NULL) != GCEV_OK) {
        return 0;
    }
    return lean_fields(t, batch, sink);
}

__attribute__((noinline)) unsigned long long lean_fields_loop(const uint8_t *p, size_t n,
                                                              unsigned long long *sink);
__attribute__((noinline)) unsigned long long lean_fields_loop(const uint8_t *p, size_t n,
                                                              unsigned long long *sink)
{
    return lean_fields_mem(p, n, 0, sink);
}

__attribute__((noinline)) unsigned long long lean_batch_loop(const uint8_t *p, size_t n,
                                                             unsigned long long *sink);
__attribute__((noinline)) unsigned long long lean_batch_loop(const uint8_t *p, size_t n,
                                                             unsigned long long *sink)
{
    return lean_fields_mem(p, n, 1, sink);
}

__attribute__((noinline)) unsigned long long walk_gc_loop(const uint8_t *p, size_t n,
                                                          unsigned long long *sink);
__attribute__((noinline)) unsigned long long walk_gc_loop(const uint8_t *p, size_t n,
                                                          unsigned long long *sink)
{
    return walk(p, n, 4, sink);
}

/* GC events (a compiled schema) of the trace. */
static unsigned long long gc_events(const uint8_t *p, size_t n)
{
    gcev_trace *t;
    if (gcev_trace_open_memory(p, n, NULL, &t, NULL) != GCEV_OK) {
        return 0;
    }
    gcev_trace_event ev;
    unsigned long long k = 0;
    while (gcev_trace_next(t, &ev, NULL) == GCEV_OK) {
        k += ev.provider && gcev_event_desc_resolve(ev.provider, ev.event_id, ev.version, NULL);
    }
    gcev_trace_close(t);
    return k;
}

static void bench_one(const char *path)
{
    size_t n;
    uint8_t *p = slurp(path, &n);
    if (!p) {
        fprintf(stderr, "cannot read %s\n", path);
        return;
    }
    int reps = (int)(200000000 / (n + 1)) + 1;
    unsigned long long sink = 0, events = 0;
    double t0 = now();
    for (int r = 0; r < reps; r++) {
        uint64_t acc = 0;
        for (size_t i = 0; i + 8 <= n; i += 8) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            acc += w;
        }
        sink += acc;
    }
    double t_read = now() - t0;
    double t_walk[4];
    for (int d = 0; d < 4; d++) {
        t0 = now();
        for (int r = 0; r < reps; r++) {
            unsigned long long k = d == 3   ? walk_lean_loop(p, n, &sink)
                                   : d == 2 ? walk_gc_loop(p, n, &sink)
                                   : d      ? walk_decode_loop(p, n, &sink)
                                            : walk_loop(p, n, &sink);
            events = d == 2 ? events : k;
        }
        t_walk[d] = now() - t0;
    }
    double mb = (double)n * reps / 1e6;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    printf("%-58s %9zu B %7llu ev | read %8.0f MB/s | walk %7.0f MB/s %6.2f Mev/s (%.2fx read) | "
           "walk+decode %7.0f MB/s %6.2f Mev/s (%.2fx read) | GC set+decode %7.0f MB/s (%.2fx read) | "
           "lean walk %7.0f MB/s (%.2fx read)\n",
           base, n, events, mb / t_read, mb / t_walk[0], (double)events * reps / t_walk[0] / 1e6,
           t_read / t_walk[0], mb / t_walk[1], (double)events * reps / t_walk[1] / 1e6, t_read / t_walk[1],
           mb / t_walk[2], t_read / t_walk[2], mb / t_walk[3], t_read / t_walk[3]);
    if (sink == 42) {
        puts("");
    }
    free(p);
}

/* --cpu: best CPU time of runs walks of the file in each mode, from the file (each walk opens it,
 * as a user does; on some machines mapping the pages costs as much as the walk) and from memory
 * (the bytes read once before: the reader's own cost); 1 when a file cannot be read or when the
 * lean field walk read other values than the full one. Modes: walk, decode, fields (walk_trace()
 * with decode 0, 1, 2: the full record of gcev_trace_next, gcev_field_next a field), lean
 * (lean_walk(): the lean batch, payload bytes summed) and lean+fields (lean_fields() with
 * gcev_fields, one call an event: the same events decoded and the same values as fields). */
static int bench_cpu(long runs, int argc, char **argv)
{
    static const char *const modes[] = {"walk", "decode", "fields", "lean", "lean+fields"};
    enum { n_modes = sizeof modes / sizeof modes[0] };
    puts("# tool\tmode\tfile\tevents\tgc_events\tbest_cpu_s\tevents_per_s\tsource");
    for (int i = 0; i < argc; i++) {
        size_t n;
        uint8_t *p = slurp(argv[i], &n);
        if (!p) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 1;
        }
        unsigned long long gc = gc_events(p, n), sink = 0;
        for (int mem = 0; mem < 2; mem++) {
            unsigned long long msink[n_modes] = {0}; /* per mode: fields and lean+fields must agree */
            for (int d = 0; d < n_modes; d++) {
                double best = -1;
                unsigned long long events = 0;
                for (long r = 0; r <= runs; r++) { /* run 0 warms up (page cache, allocator) */
                    double t0 = now();
                    gcev_trace *t;
                    gcev_error err;
                    gcev_status st = mem ? gcev_trace_open_memory(p, n, NULL, &t, &err)
                                         : gcev_trace_open_file(argv[i], NULL, &t, &err);
                    if (st != GCEV_OK) {
                        fprintf(stderr, "%s: %s\n", argv[i], err.message ? err.message : "cannot open");
                        free(p);
                        return 1;
                    }
                    events = d == 4   ? lean_fields(t, 1, &msink[d])
                             : d == 3 ? lean_walk(t, &msink[d])
                                      : walk_trace(t, d, &msink[d]);
                    double dt = now() - t0;
                    if (r > 0 && (best < 0 || dt < best)) {
                        best = dt;
                    }
                }
                printf("gcev\t%s\t%s\t%llu\t%llu\t%.6f\t%.0f\t%s\n", modes[d], argv[i], events,
                       d == 3 || d == 0 ? 0ULL : gc, best, best > 0 ? (double)events / best : 0.0,
                       mem ? "memory" : "file");
                sink += msink[d];
            }
            if (msink[4] != msink[2]) {
                fprintf(stderr, "%s: lean+fields read other values than fields (sums %llu, %llu)\n", argv[i],
                        msink[4], msink[2]);
                free(p);
                return 1;
            }
        }
        free(p);
        if (sink == 42) {
            puts("");
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "--cpu")) {
        long runs = atol(argv[2]);
        return bench_cpu(runs < 1 ? 1 : runs, argc - 3, argv + 3);
    }
    if (argc == 4 && !strcmp(argv[1], "--callgrind")) {
        long passes = atol(argv[2]);
        size_t n;
        uint8_t *p = slurp(argv[3], &n);
        if (!p) {
            fprintf(stderr, "cannot read %s\n", argv[3]);
            return 1;
        }
        unsigned long long sink = 0, events = 0, gc = gc_events(p, n);
        for (long r = 0; r < passes; r++) {
            events += walk_loop(p, n, &sink);
        }
        for (long r = 0; r < passes; r++) {
            walk_decode_loop(p, n, &sink);
        }
        unsigned long long fsink = 0, lsink = 0, bsink = 0;
        for (long r = 0; r < passes; r++) {
            walk_fields_loop(p, n, &fsink);
        }
        for (long r = 0; r < passes; r++) {
            walk_names_loop(p, n, &sink);
        }
        unsigned long long kept = 0;
        for (long r = 0; r < passes; r++) {
            kept += walk_gc_loop(p, n, &sink);
        }
        for (long r = 0; r < passes; r++) {
            walk_lean_loop(p, n, &sink);
        }
        for (long r = 0; r < passes; r++) {
            lean_fields_loop(p, n, &lsink);
        }
        for (long r = 0; r < passes; r++) {
            lean_batch_loop(p, n, &bsink);
        }
        if (lsink != fsink || bsink != fsink) {
            fprintf(stderr,
                    "%s: the lean field walks read other values (sums %llu, %llu; walk_fields_loop %llu)\n",
                    argv[3], lsink, bsink, fsink);
            free(p);
            return 1;
        }
        sink += fsink;
        printf("events walk_loop %llu\nevents walk_decode_loop %llu\nevents walk_fields_loop %llu\n"
               "events walk_names_loop %llu\ngc_events walk_decode_loop %llu\nkept walk_gc_loop %llu\n",
               events, events, events, events, gc * (unsigned long long)passes, kept);
        free(p);
        return sink == 42;
    }
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            bench_one(argv[i]);
        }
        return 0;
    }
    const char *dir = getenv("GCEV_SHARED_DIR");
    char cdir[1024];
    snprintf(cdir, sizeof cdir, "%s/corpus", dir ? dir : "../shared");
    DIR *d = opendir(cdir);
    if (!d) {
        fprintf(stderr, "usage: bench_trace [TRACE...] (or set GCEV_SHARED_DIR)\n");
        return 2;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if ((l > 9 && !strcmp(e->d_name + l - 9, ".nettrace")) ||
            (l > 8 && !strcmp(e->d_name + l - 8, ".netperf"))) {
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", cdir, e->d_name);
            bench_one(path);
        }
    }
    closedir(d);
    return 0;
}
