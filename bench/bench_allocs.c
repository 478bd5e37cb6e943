/* SPDX-License-Identifier: MIT */
/*
 * bench_allocs [MB [TRACE]] (issue 24): the allocation model's speed and memory on a trace
 * made here (default 100 MB, TRACE default bench-allocs.nettrace in the current folder; an
 * existing TRACE is read again, its shape taken from TRACE.shape). Not a test: numbers only.
 *
 * The trace has the shape of a .NET 10 AllocationSampled capture (what the runtime writes:
 * see the shape lines printed), not one block per event:
 *  - NetTrace V5 with compressed headers; event blocks end at 100 KB as the runtime's
 *    buffers do; a stack block of the stacks new to an event block goes before it, identical
 *    stacks share one id until the next sequence point, which restarts the ids (the runtime's
 *    stack cache); a sequence point every SP_EVENTS events (about 4.5 MB of file; the .NET Core
 *    3.0 corpus trace has one every ~270 KB, the .NET 10 captures of tests/data one at the end),
 *    so that stack blocks are ~12% of the file (wks-sampled: 11%, the 3.0 trace: 4%);
 *  - 200 modules and 20,000 methods (ModuleLoad, MethodLoadVerbose) at the start;
 *  - allocation sites: 5,000 distinct stacks of 8-24 frames (the .NET 10 captures: 4-11
 *    frames on average, up to 28; the 3.0 trace: 14), drawn with Zipf (s = 1) popularity, so
 *    that a few sites allocate most (tests/data/traces/wks-sampled: 3,893 samples on 584
 *    stacks; the 3.0 trace: 35,458 on 29); their outer 6 frames come from 300 shared roots
 *    (thread start, request loop), each frame an address at one of 4 call sites of a method;
 *  - each site allocates its own type (2,000 types, Zipf over sites), 1 sample in 8 a second
 *    type of that site (generic helpers), so stack x type pairs stay ~2 per stack;
 *  - 16 threads, in runs of 1-200 events of one thread (the runtime writes a thread's buffer
 *    whole: the .NET 10 captures of tests/data change thread every ~90-660 events).
 * Prints allocation events per second through gcev_trace_next + gcev_allocs_add + finish
 * (every frame named), the reader's part alone, and the heap the model holds at its peak
 * (mallinfo2, sampled every 65,536 events and after finish) against (types + stacks + pairs +
 * methods) x their record sizes. Instructions per event: bench/allocs.sh (callgrind, toggled
 * on model_pass and walk_pass).
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gcev/gcev_allocs.h>
#include <gcev/gcev_writer.h>

#include "gcev_allocs_internal.h"

enum {
    METHODS = 20000,
    MODULES = 200,
    TYPES = 2000,
    STACKS = 5000,
    ROOTS = 300,
    ROOT_FRAMES = 6,
    SITES_PER_METHOD = 4,
    THREADS = 16,
    SP_EVENTS = 40000,
    BLOCK_BYTES = 100 * 1024
};

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static size_t put16(uint8_t *p, const char *s)
{
    size_t n = 0;
    for (; *s; s++) {
        p[n++] = (uint8_t)*s;
        p[n++] = 0;
    }
    p[n++] = 0;
    p[n++] = 0;
    return n;
}

static size_t put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
    return 8;
}

static size_t put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
    return 4;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t heap(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

/* Zipf (s = 1) over n ranks: the cumulative weights, drawn from by binary search. */
static double *zipf_table(uint32_t n)
{
    double *c = malloc(n * sizeof *c), sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        sum += 1.0 / (double)(i + 1);
        c[i] = sum;
    }
    for (uint32_t i = 0; i < n; i++) {
        c[i] /= sum;
    }
    return c;
}

static uint32_t zipf(const double *c, uint32_t n)
{
    double u = (double)rnd() / 4294967296.0;
    uint32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (c[mid] < u) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static uint64_t site_ip(uint32_t method)
{
    return 0x10000000ull + (uint64_t)method * 256 + 16 + (rnd() % SITES_PER_METHOD) * 37;
}

/* Writes the trace; its shape goes to stdout and to TRACE.shape. 0 on success. */
static int make_trace(const char *path, double mb)
{
    gcev_writer_options wo = {5, 1, 8, 4242, 2, 1000000000, 0};
    gcev_writer *w;
    if (gcev_writer_create(&wo, &w) != GCEV_OK || gcev_writer_runtime_blocks(w, BLOCK_BYTES) != GCEV_OK) {
        return 1;
    }
    const char *rt = "Microsoft-Windows-DotNETRuntime";
    gcev_writer_meta mm = {rt, 143, 1, 37, 5, 0x10, "", NULL, 0};
    gcev_writer_meta mo = {rt, 152, 1, 33, 4, 0x8, "", NULL, 0};
    gcev_writer_meta ms = {rt, 303, 0, 0, 4, 0x80000000000ull, "", NULL, 0};
    uint32_t idm, ido, ids;
    gcev_writer_define(w, &mm, &idm);
    gcev_writer_define(w, &mo, &ido);
    gcev_writer_define(w, &ms, &ids);
    uint8_t p[1024];
    int64_t ts = 1;
    for (uint32_t i = 0; i < MODULES; i++) {
        char path16[64];
        snprintf(path16, sizeof path16, "/app/Module%u.dll", i);
        size_t n = put64(p, 0x7000 + i);
        n += put64(p + n, 1);
        n += put32(p + n, 0);
        n += put32(p + n, 0);
        n += put16(p + n, path16);
        n += put16(p + n, "");
        p[n++] = 0;
        p[n++] = 0;
        gcev_writer_event e = {ido, 1, 0, 0, 0, ts++, p, (uint32_t)n, NULL, 0, {0, 0, 0, {0}}};
        gcev_writer_write(w, &e);
    }
    for (uint32_t i = 0; i < METHODS; i++) {
        char ns[64], name[64];
        snprintf(ns, sizeof ns, "App.Namespace%u.Class%u", i % 97, i % 1000);
        snprintf(name, sizeof name, "Method%u", i);
        size_t n = put64(p, i);
        n += put64(p + n, 0x7000 + i % MODULES);
        n += put64(p + n, 0x10000000ull + (uint64_t)i * 256);
        n += put32(p + n, 256);
        n += put32(p + n, 0x06000000 + i);
        n += put32(p + n, 8);
        n += put16(p + n, ns);
        n += put16(p + n, name);
        n += put16(p + n, "void  (int32,class System.String)");
        p[n++] = 0;
        p[n++] = 0;
        gcev_writer_event e = {idm, 1, 0, 0, 0, ts++, p, (uint32_t)n, NULL, 0, {0, 0, 0, {0}}};
        gcev_writer_write(w, &e);
    }
    /* the AllocationSampled payload of each type, made once */
    uint8_t(*tpay)[160] = malloc((size_t)TYPES * sizeof *tpay);
    uint32_t *tlen = malloc(TYPES * sizeof *tlen);
    for (uint32_t t = 0; t < TYPES; t++) {
        char tname[96];
        static const char *const shapes[] = {"App.Types.Type%u",
                                             "System.Collections.Generic.List`1[App.Types.Item%u]",
                                             "App.Types.Type%u[]", "System.Byte[]%u"};
        snprintf(tname, sizeof tname, shapes[t % 4], t);
        uint8_t *q = tpay[t];
        size_t n = put32(q, t % 3 == 0 ? 1 : 0);
        q[n++] = 0;
        q[n++] = 0;
        n += put64(q + n, 0x500000 + t);
        n += put16(q + n, tname);
        n += put64(q + n, 0x2000);
        n += put64(q + n, 24 + t % 500);
        n += put64(q + n, 3);
        tlen[t] = (uint32_t)n;
    }
    /* the sites: outer frames from a shared root, inner frames of their own */
    uint64_t(*roots)[ROOT_FRAMES] = malloc((size_t)ROOTS * sizeof *roots);
    for (uint32_t r = 0; r < ROOTS; r++) {
        for (uint32_t j = 0; j < ROOT_FRAMES; j++) {
            roots[r][j] = site_ip(rnd() % 200); /* a few hundred methods start the work */
        }
    }
    double *tz = zipf_table(TYPES), *sz = zipf_table(STACKS);
    uint64_t(*stacks)[24] = malloc((size_t)STACKS * sizeof *stacks);
    uint8_t *depth = malloc(STACKS);
    uint32_t(*stype)[2] = malloc((size_t)STACKS * sizeof *stype);
    for (uint32_t s = 0; s < STACKS; s++) {
        depth[s] = (uint8_t)(8 + rnd() % 17);
        uint32_t own = depth[s] - ROOT_FRAMES, r = rnd() % ROOTS;
        for (uint32_t j = 0; j < own; j++) {
            stacks[s][j] = site_ip(rnd() % METHODS);
        }
        for (uint32_t j = 0; j < ROOT_FRAMES; j++) {
            stacks[s][own + j] = roots[r][j];
        }
        stype[s][0] = zipf(tz, TYPES);
        stype[s][1] = zipf(tz, TYPES);
    }
    uint64_t events = 0, payload_bytes = 0, frames = 0;
    size_t target = (size_t)(mb * 1024 * 1024);
    uint8_t stk[24 * 8];
    uint8_t *used = calloc(STACKS, 1);
    uint32_t *region = calloc(STACKS, sizeof *region); /* the last region (+1) that wrote the stack */
    uint32_t distinct = 0, sps = 0, thread = 0, run = 0;
    uint64_t stack_bytes = 0;
    for (;;) {
        uint32_t s = zipf(sz, STACKS), t = stype[s][(rnd() & 7) == 0];
        if (run == 0) {
            thread = rnd() % THREADS;
            run = 1 + rnd() % 200;
        }
        run--;
        used[s] ? (void)0 : (void)(used[s] = 1, distinct++);
        if (region[s] != sps + 1) {
            region[s] = sps + 1;
            stack_bytes += 4 + depth[s] * 8u;
        }
        for (uint32_t j = 0; j < depth[s]; j++) {
            put64(stk + j * 8, stacks[s][j]);
        }
        gcev_writer_event e = {ids,           100 + thread,  0, 0, 0, ts++, tpay[t], tlen[t], stk,
                               depth[s] * 8u, {0, 0, 0, {0}}};
        gcev_writer_write(w, &e);
        events++;
        payload_bytes += tlen[t];
        frames += depth[s];
        if (events % SP_EVENTS == 0) {
            gcev_writer_sequence_point(w, ts);
            sps++;
            /* the size is known only at the end: ~12 header bytes per event, the stacks */
            if ((double)(payload_bytes + events * 12 + stack_bytes) * 1.02 > (double)target) {
                break;
            }
        }
    }
    const uint8_t *data;
    size_t size;
    if (gcev_writer_finish(w, &data, &size) != GCEV_OK) {
        return 1;
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
        return 1;
    }
    gcev_writer_free(w);
    char shape_path[4096];
    snprintf(shape_path, sizeof shape_path, "%s.shape", path);
    f = fopen(shape_path, "w");
    if (!f) {
        return 1;
    }
    fprintf(
        f,
        "trace: %.1f MB NetTrace V5, %llu AllocationSampled events (%.1f frames each), %u methods in %u "
        "modules, %u types\n"
        "shape: event blocks of 100 KB, stacks shared between sequence points (%u, one per %u events), "
        "%u distinct stacks used of %u (Zipf s=1), ~2 types per stack, %u threads in runs of 1-200 events\n",
        (double)size / 1048576.0, (unsigned long long)events, (double)frames / (double)events, METHODS,
        MODULES, TYPES, sps, SP_EVENTS, distinct, STACKS, THREADS);
    fclose(f);
    free(tpay);
    free(tlen);
    free(roots);
    free(tz);
    free(sz);
    free(stacks);
    free(depth);
    free(stype);
    free(used);
    free(region);
    return 0;
}

/* The measured pass (callgrind toggles on it): read, model, finish. */
__attribute__((noinline)) static uint64_t model_pass(gcev_trace *t, gcev_allocs *a, size_t base, size_t *peak)
{
    gcev_trace_event ev;
    gcev_error err;
    uint64_t n = 0;
    while (gcev_trace_next(t, &ev, &err) == GCEV_OK) {
        gcev_allocs_add(a, &ev, NULL);
        if ((++n & 0xffff) == 0) {
            size_t h = heap() - base;
            *peak = h > *peak ? h : *peak;
        }
    }
    gcev_allocs_finish(a);
    return n;
}

/* The reader alone: what the model pass spends outside the model. */
__attribute__((noinline)) static uint64_t walk_pass(gcev_trace *t)
{
    gcev_trace_event ev;
    gcev_error err;
    uint64_t n = 0;
    while (gcev_trace_next(t, &ev, &err) == GCEV_OK) {
        n++;
    }
    return n;
}

int main(int argc, char **argv)
{
    /* a wrong argument prints the usage: it must not write a default trace into the cwd */
    double mb = 100;
    char *end = NULL;
    if (argc > 1) {
        mb = strtod(argv[1], &end);
    }
    if (argc > 3 || (argc > 1 && (end == argv[1] || *end || !(mb > 0 && mb <= 100000)))) {
        fprintf(stderr, "usage: bench_allocs [MB [TRACE]]  (MB: the trace's size to make, > 0)\n");
        return 2;
    }
    const char *path = argc > 2 ? argv[2] : "bench-allocs.nettrace";
    char shape_path[4096];
    snprintf(shape_path, sizeof shape_path, "%s.shape", path);
    FILE *f = fopen(path, "rb");
    FILE *sf = fopen(shape_path, "r");
    if (!f || !sf) {
        if (make_trace(path, mb) || !(sf = fopen(shape_path, "r"))) {
            fprintf(stderr, "bench_allocs: cannot write %s\n", path);
            return 1;
        }
    }
    if (f) {
        fclose(f);
    }
    char line[512];
    while (fgets(line, sizeof line, sf)) {
        fputs(line, stdout);
    }
    fclose(sf);

    gcev_trace_options o = {
        .struct_size = sizeof o, .order = GCEV_TRACE_ORDER_FILE, .max_block_size = 0, .keep_going = 0};
    gcev_trace *t;
    gcev_error err;
    if (gcev_trace_open_file(path, &o, &t, &err) != GCEV_OK) {
        return 1;
    }
    double w0 = cpu();
    uint64_t walked = walk_pass(t);
    double w1 = cpu();
    gcev_trace_close(t);
    if (gcev_trace_open_file(path, &o, &t, &err) != GCEV_OK) {
        return 1;
    }
    size_t base = heap(), peak = 0;
    gcev_allocs *a;
    if (gcev_allocs_create(NULL, &a) != GCEV_OK) {
        fprintf(stderr, "bench_allocs: out of memory\n");
        return 1;
    }
    double t0 = now(), c0 = cpu();
    uint64_t n = model_pass(t, a, base, &peak);
    double t2 = now(), c2 = cpu();
    size_t h = heap() - base;
    peak = h > peak ? h : peak;
    const gcev_allocs_summary *s = gcev_allocs_get_summary(a);
    uint64_t samples = s->events[GCEV_ALLOCS_SAMPLED];
    printf("events model_pass %llu\nevents walk_pass %llu\nallocation_events %llu\n", (unsigned long long)n,
           (unsigned long long)walked, (unsigned long long)samples);
    printf("read + model + finish: %.3f s wall, %.3f s cpu: %.2f M allocation events/s (cpu), %.2f M "
           "events/s of "
           "all kinds\n",
           t2 - t0, c2 - c0, (double)samples / (c2 - c0) / 1e6, (double)n / (c2 - c0) / 1e6);
    printf("the reader alone (gcev_trace_next): %.3f s cpu, %.1f%% of the pass\n", w1 - w0,
           100.0 * (w1 - w0) / (c2 - c0));
    /* the records the model keeps: per type, per distinct stack (its addresses too), per
     * stack x type pair, per method; and the merged public copies made by finish */
    double frames =
        (double)(s->frames_resolved + s->frames_unresolved) / (double)(s->raw_stacks ? s->raw_stacks : 1);
    double rec =
        (double)gcev_allocs_type_count(a) * (sizeof(ga_rtype) + sizeof(gcev_allocs_type)) +
        (double)s->raw_stacks * (sizeof(ga_rstack) + frames * 8 + sizeof(gcev_allocs_stack) + frames * 4) +
        (double)gcev_allocs_pair_count(a) * (sizeof(ga_rpair) + sizeof(gcev_allocs_pair)) +
        (double)s->methods * (sizeof(ga_method) + 80);
    printf(
        "model: %zu types, %zu distinct stacks (%.1f frames each, %zu merged), %zu stack x type pairs, %zu "
        "methods, %.1f%% frames named\n",
        gcev_allocs_type_count(a), s->raw_stacks, frames, gcev_allocs_stack_count(a),
        gcev_allocs_pair_count(a), s->methods,
        100.0 * (double)s->frames_resolved / (double)(s->frames_resolved + s->frames_unresolved));
    printf("heap: peak %.1f MB above the open trace, records x sizes %.1f MB: ratio %.2f\n",
           (double)peak / 1048576.0, rec / 1048576.0, (double)peak / rec);
    gcev_allocs_free(a);
    gcev_trace_close(t);
    return 0;
}
