/* SPDX-License-Identifier: MIT */
/*
 * bench_allocs [MB] (issue 24): the allocation model's speed and memory on a trace made here
 * (default 100 MB, written to bench-allocs.nettrace in the current folder with the trace
 * writer): 20,000 methods in 200 modules (MethodLoadVerbose, ModuleLoad), then AllocationSampled
 * events of 2,000 types with 8-24-frame stacks drawn from 50,000 distinct ones. Prints
 * allocation events per second through gcev_trace_next + gcev_allocs_add + finish (every frame
 * named), and the heap the model holds at its peak (mallinfo2, sampled every 65,536 events)
 * against (types + stacks + methods) x their record sizes. Not a test: numbers only.
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

enum { METHODS = 20000, MODULES = 200, TYPES = 2000, STACKS = 50000 };

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

int main(int argc, char **argv)
{
    double mb = argc > 1 ? atof(argv[1]) : 100;
    const char *path = "bench-allocs.nettrace";
    gcev_writer_options wo = {5, 1, 8, 4242, 2, 1000000000, 0};
    gcev_writer *w;
    if (gcev_writer_create(&wo, &w) != GCEV_OK) {
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
    /* the distinct stacks */
    uint64_t *stacks = malloc((size_t)STACKS * 24 * sizeof *stacks);
    uint8_t *depth = malloc(STACKS);
    for (uint32_t s = 0; s < STACKS; s++) {
        depth[s] = (uint8_t)(8 + rnd() % 17);
        for (uint32_t j = 0; j < depth[s]; j++) {
            stacks[(size_t)s * 24 + j] = 0x10000000ull + (uint64_t)(rnd() % METHODS) * 256 + 16 + rnd() % 200;
        }
    }
    uint64_t events = 0;
    size_t target = (size_t)(mb * 1024 * 1024);
    uint8_t stk[24 * 8];
    for (;;) {
        if ((events & 0xffff) == 0) {
            const uint8_t *d;
            size_t sz;
            gcev_writer_sequence_point(w, ts);
            (void)d;
            (void)sz;
        }
        uint32_t s = rnd() % STACKS, t = rnd() % TYPES;
        char tname[64];
        snprintf(tname, sizeof tname, "App.Types.Type%u", t);
        size_t n = put32(p, t % 3 == 0 ? 1 : 0);
        p[n++] = 0;
        p[n++] = 0;
        n += put64(p + n, 0x500000 + t);
        n += put16(p + n, tname);
        n += put64(p + n, 0x2000);
        n += put64(p + n, 24 + t % 500);
        n += put64(p + n, 3);
        for (uint32_t j = 0; j < depth[s]; j++) {
            put64(stk + j * 8, stacks[(size_t)s * 24 + j]);
        }
        gcev_writer_event e = {ids,           100 + t % 8,   0, 0, 0, ts++, p, (uint32_t)n, stk,
                               depth[s] * 8u, {0, 0, 0, {0}}};
        gcev_writer_write(w, &e);
        events++;
        /* the size is known only at the end: estimate ~ 48 + payload + stack bytes per event */
        if ((events & 0x3fff) == 0 && events * (48 + n + 16 * 8) > target) {
            break;
        }
    }
    free(stacks);
    free(depth);
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
    printf("trace: %s, %.1f MB, %llu allocation events, %u methods, %u types, %u distinct stacks drawn\n",
           path, (double)size / 1048576.0, (unsigned long long)events, METHODS, TYPES, STACKS);

    gcev_trace_options o = {GCEV_TRACE_ORDER_FILE, 0, 0};
    gcev_trace *t;
    gcev_error err;
    if (gcev_trace_open_file(path, &o, &t, &err) != GCEV_OK) {
        return 1;
    }
    size_t base = heap(), peak = 0;
    gcev_allocs *a;
    gcev_allocs_create(NULL, &a);
    double t0 = now(), c0 = cpu();
    gcev_trace_event ev;
    uint64_t n = 0;
    while (gcev_trace_next(t, &ev, &err) == GCEV_OK) {
        gcev_allocs_add(a, &ev, NULL);
        if ((++n & 0xffff) == 0) {
            size_t h = heap();
            peak = h > peak ? h : peak;
        }
    }
    double t1 = now();
    gcev_allocs_finish(a);
    double t2 = now(), c2 = cpu();
    size_t h = heap();
    peak = h > peak ? h : peak;
    const gcev_allocs_summary *s = gcev_allocs_get_summary(a);
    printf("read + model: %.3f s, finish (naming, merging, sorting): %.3f s: %.2f M allocation events/s "
           "(%.1f MB/s)\n",
           t1 - t0, t2 - t1, (double)s->samples / (t2 - t0) / 1e6, (double)size / 1048576.0 / (t2 - t0));
    printf("cpu time (the machine may be shared): %.3f s: %.2f M allocation events/s, %.2f M events/s of all "
           "kinds\n",
           c2 - c0, (double)s->samples / (c2 - c0) / 1e6, (double)n / (c2 - c0) / 1e6);
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
           (double)(peak - base) / 1048576.0, rec / 1048576.0, (double)(peak - base) / rec);
    gcev_allocs_free(a);
    gcev_trace_close(t);
    return 0;
}
