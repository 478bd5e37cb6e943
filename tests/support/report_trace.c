/* SPDX-License-Identifier: MIT */
/* Traces of many GCs for the report tests (report_trace.h). */
#include "report_trace.h"

#include <stdlib.h>
#include <string.h>

#include <gcev/gcev.h>
#include <gcev/gcev_writer.h>

enum { TID_MAIN = 501, TID_BGC = 502 };
static const uint64_t FREQ = 10000000;

typedef struct gen {
    gcev_writer *w;
    uint64_t scale; /* sizes multiplied by it */
    uint32_t meta[256][8];
    int failed;
    uint32_t count; /* GCs started */
    uint64_t size[5];
    uint64_t lcg;
    uint8_t buf[4096];
} gen;

static uint32_t rnd(gen *g, uint32_t n)
{
    g->lcg = g->lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((g->lcg >> 33) % n);
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/* Encodes and writes one runtime event at `ms` (events come in time order). */
static void emit(gen *g, uint16_t id, uint16_t version, gcev_event *ev, double ms, uint64_t tid)
{
    if (g->failed) {
        return;
    }
    gcev_status st;
    ev->desc = gcev_event_desc_resolve(&gcev_provider_runtime, id, version, &st);
    ev->pointer_size = 8;
    size_t n = 0;
    uint32_t *m = &g->meta[id % 256][version % 8];
    if (!ev->desc || gcev_encode(ev, g->buf, sizeof g->buf, &n, NULL) != GCEV_OK) {
        g->failed = 1;
        return;
    }
    if (!*m) {
        gcev_writer_meta md = {"Microsoft-Windows-DotNETRuntime", id, (uint8_t)version, 0, 4, 1, "", NULL, 0};
        if (gcev_writer_define(g->w, &md, m) != GCEV_OK) {
            g->failed = 1;
            return;
        }
    }
    gcev_writer_event e = {
        *m,     tid,         tid,  0, 0,  1000 + (int64_t)(ms * (double)FREQ / 1000.0 + 0.5),
        g->buf, (uint32_t)n, NULL, 0, {0}};
    g->failed |= gcev_writer_write(g->w, &e) != GCEV_OK;
}

static gcev_event *blank(gcev_event *ev)
{
    memset(ev, 0, sizeof *ev);
    return ev;
}

static void suspend(gen *g, double ms, uint64_t tid, uint32_t reason)
{
    gcev_event ev;
    blank(&ev)->u.gc_suspend_ee_begin.reason = reason;
    ev.u.gc_suspend_ee_begin.count = g->count;
    emit(g, 9, 1, &ev, ms, tid);
    emit(g, 8, 1, blank(&ev), ms + 0.02, tid);
}

static void restart(gen *g, double ms, uint64_t tid)
{
    gcev_event ev;
    emit(g, 7, 1, blank(&ev), ms, tid);
    emit(g, 3, 1, blank(&ev), ms + 0.01, tid);
}

static void histories(gen *g, double ms, uint64_t tid, uint32_t depth, const uint64_t before[5],
                      int32_t heaps)
{
    gcev_event ev;
    gcev_gc_global_heap_history *gh = &blank(&ev)->u.gc_global_heap_history;
    gh->final_youngest_desired = 6291456;
    gh->num_heaps = heaps;
    gh->condemned_generation = depth;
    gh->global_mechanisms = 3;
    emit(g, 205, 2, &ev, ms, tid);
    static uint8_t vals[5 * 80];
    memset(vals, 0, sizeof vals);
    for (int i = 0; i < 5; i++) {
        put_le(vals + i * 80 + 0, before[i], 8);
        put_le(vals + i * 80 + 24, g->size[i], 8);
        put_le(vals + i * 80 + 72, i == 0 ? 6291456 : 0, 8);
    }
    gcev_gc_per_heap_history *p = &blank(&ev)->u.gc_per_heap_history;
    p->count = 5;
    p->values = (gcev_array){vals, sizeof vals, 5, 80, 8, 0, 0, NULL};
    emit(g, 204, 3, &ev, ms + 0.01, tid);
}

static void heap_stats(gen *g, double ms, uint64_t tid, uint64_t promoted)
{
    gcev_event ev;
    gcev_gc_heap_stats *h = &blank(&ev)->u.gc_heap_stats;
    h->generation_size0 = g->size[0];
    h->generation_size1 = g->size[1];
    h->generation_size2 = g->size[2];
    h->generation_size3 = g->size[3];
    h->generation_size4 = g->size[4];
    h->total_promoted_size0 = promoted;
    emit(g, 4, 2, &ev, ms, tid);
}

static uint32_t gc_begin(gen *g, double t, uint64_t tid, uint32_t depth, uint32_t type)
{
    gcev_event ev;
    gcev_gc_start *s = &blank(&ev)->u.gc_start;
    s->count = ++g->count;
    s->depth = depth;
    s->reason = depth == 2 ? 1 : 0;
    s->type = type;
    emit(g, 1, 2, &ev, t, tid);
    return g->count;
}

/* The end of GC `number`: the simulated heap changes, histories, GCEnd, GCHeapStats. */
static void gc_finish(gen *g, double t, double work, uint64_t tid, uint32_t number, uint32_t depth,
                      int32_t heaps)
{
    uint64_t before[5];
    memcpy(before, g->size, sizeof before);
    uint64_t promoted = g->size[0] / 20;
    g->size[depth < 2 ? depth + 1 : 2] += promoted;
    g->size[0] = (4096 + rnd(g, 64) * 1024) * g->scale;
    if (depth >= 1) {
        g->size[2] += g->size[1] / 2;
        g->size[1] = promoted;
    }
    if (depth == 2) {
        g->size[2] = g->size[2] * 6 / 10;
        g->size[3] = g->size[3] * 7 / 10;
    }
    histories(g, t + work * 0.8, tid, depth, before, heaps);
    gcev_event ev;
    blank(&ev)->u.gc_end.count = number;
    ev.u.gc_end.depth = depth;
    emit(g, 2, 1, &ev, t + work * 0.9, tid);
    heap_stats(g, t + work * 0.92, tid, promoted);
}

static void collect(gen *g, double t, double work, uint64_t tid, uint32_t depth, uint32_t type, int32_t heaps)
{
    uint32_t n = gc_begin(g, t, tid, depth, type);
    gc_finish(g, t, work, tid, n, depth, heaps);
}

static double blocking(gen *g, double t, double pause, uint32_t depth, uint32_t type, int32_t heaps)
{
    suspend(g, t, TID_MAIN, 1);
    collect(g, t + 0.05, pause - 0.1, TID_MAIN, depth, type, heaps);
    restart(g, t + pause - 0.02, TID_MAIN);
    return t + pause;
}

uint32_t report_trace_longest(uint32_t gcs)
{
    return gcs * 2 / 3;
}

uint8_t *report_trace_write(uint32_t gcs, size_t *size)
{
    return report_trace_write_big(gcs, 1, 1, size);
}

uint8_t *report_trace_write_big(uint32_t gcs, uint32_t size_scale, uint32_t gap_scale, size_t *size)
{
    gen *g = calloc(1, sizeof *g);
    if (!g) {
        return NULL;
    }
    g->lcg = 2024;
    g->scale = size_scale ? size_scale : 1;
    g->size[2] = 2000000 * g->scale;
    g->size[3] = 1000000 * g->scale;
    g->size[4] = 65536 * g->scale;
    gcev_writer_options o = {4, 1, 8, 7777, 4, FREQ, 1000};
    uint8_t *out = NULL;
    if (gcev_writer_create(&o, &g->w) != GCEV_OK) {
        free(g);
        return NULL;
    }
    double t = 5.0;
    while (g->count < gcs && !g->failed) {
        int32_t heaps = 2 + (int32_t)((g->count / 100) % 3); /* a heap count that moves, as DATAS makes it */
        gcev_event ev;
        gcev_gc_allocation_tick *a = &blank(&ev)->u.gc_allocation_tick;
        a->allocation_amount = 100000;
        a->allocation_amount64 = 100000 * (uint64_t)(20 + rnd(g, 20)) * g->scale;
        a->type_name = (gcev_utf16){(const uint8_t *)"S\0t\0r\0", 6};
        emit(g, 10, 4, &ev, t, TID_MAIN);
        g->size[0] += a->allocation_amount64;
        t += (1.0 + rnd(g, 400) / 100.0) * (gap_scale ? gap_scale : 1);
        uint32_t next = g->count + 1;
        int background = next % 40 == 0 && gcs - g->count >= 2 && next != report_trace_longest(gcs);
        /* the GC that pauses here: the blocking one, or the foreground GC inside the background GC */
        double pause =
            next + (uint32_t)background == report_trace_longest(gcs) ? 250.0 : 0.3 + rnd(g, 450) / 100.0;
        if (background) {
            /* a background GC, a foreground gen0 GC inside it, its final non-concurrent phase */
            suspend(g, t, TID_BGC, 6);
            uint32_t bgc = gc_begin(g, t + 0.1, TID_BGC, 2, 1);
            restart(g, t + 0.4, TID_BGC);
            t = blocking(g, t + 2.0, pause, 0, 2, heaps);
            suspend(g, t + 1.0, TID_BGC, 6);
            restart(g, t + 1.5, TID_BGC);
            gc_finish(g, t + 1.6, 0.2, TID_BGC, bgc, 2, heaps);
            t += 2.0;
        } else {
            uint32_t depth = next % 97 == 0 ? 2 : next % 10 == 0 ? 1 : 0;
            t = blocking(g, t, pause, depth, 0, heaps);
        }
        if (g->count % 1000 == 0) {
            gcev_writer_sequence_point(g->w, 1000 + (int64_t)(t * (double)FREQ / 1000.0));
        }
    }
    const uint8_t *data;
    size_t n;
    if (!g->failed && gcev_writer_finish(g->w, &data, &n) == GCEV_OK && (out = malloc(n)) != NULL) {
        memcpy(out, data, n);
        *size = n;
    }
    gcev_writer_free(g->w);
    free(g);
    return out;
}
