/* SPDX-License-Identifier: MIT */
/*
 * make_sample_trace [OUT]: writes examples/sample.nettrace, the trace the
 * README's main command analyses, with gcev's own writer (NetTrace V4,
 * compressed headers, 64-bit, Windows-like 10 MHz clock). Deterministic: the
 * same bytes every run (a test compares them with the committed file).
 *
 * What it holds, over ~2 s of a workstation-GC process:
 *   - allocation ticks every ~100 KB, three types, small and large objects;
 *   - gen0 GCs every ~80 ms, every 4th a gen1, one induced blocking gen2 with
 *     LOH compaction and AppDomainMemSurvived after it;
 *   - a background gen2 GC with a foreground gen0 GC nested in it and its final
 *     non-concurrent phase (a GC suspension with no GCStart);
 *   - per GC: SuspendEE/RestartEE pairs, GCStart/End, mark events per root kind,
 *     GlobalHeapHistory, PerHeapHistory (5 generations), HeapStats, pinned objects;
 *   - the sampling profiler's suspensions (SuspendOther, Count -1) with no GC;
 *   - segments and GC handles, some freed, some never freed.
 * Events are generated per activity, then sorted by time and written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev.h>
#include <gcev/gcev_writer.h>

enum { TID_MAIN = 1001, TID_BGC = 1010, TID_SAMPLER = 1020, TID_FINALIZER = 1030 };
enum { MAX_EVENTS = 4096, ARENA = 1 << 20 };
static const double TRACE_MS = 2000.0;
static const uint64_t FREQ = 10000000; /* 10 MHz, as Windows QPC */

typedef struct rec {
    double ms;
    uint64_t tid;
    uint16_t id, version;
    uint32_t off, size; /* payload in the arena */
    uint32_t order;     /* creation order: ties keep it */
} rec;

static rec recs[MAX_EVENTS];
static size_t nrecs;
static uint8_t arena[ARENA];
static size_t arena_used;

static void die(const char *what)
{
    fprintf(stderr, "make_sample_trace: %s\n", what);
    exit(1);
}

/* Encodes a typed struct (gcev_encode: the inverse of decode) and queues it. */
static void add(uint16_t id, uint16_t version, gcev_event *ev, double ms, uint64_t tid)
{
    gcev_status st;
    ev->desc = gcev_event_desc_resolve(&gcev_provider_runtime, id, version, &st);
    ev->pointer_size = 8;
    size_t n = 0;
    if (!ev->desc || nrecs == MAX_EVENTS ||
        gcev_encode(ev, arena + arena_used, ARENA - arena_used, &n, NULL) != GCEV_OK) {
        die("cannot encode an event");
    }
    recs[nrecs] = (rec){ms, tid, id, version, (uint32_t)arena_used, (uint32_t)n, (uint32_t)nrecs};
    nrecs++;
    arena_used += n;
}

static gcev_event *blank(void)
{
    static gcev_event ev;
    memset(&ev, 0, sizeof ev);
    return &ev;
}

/* UTF-16LE of an ASCII name, in static storage (the views must outlive add()). */
static gcev_utf16 utf16(const char *s)
{
    static uint8_t buf[8][64];
    static int next;
    uint8_t *b = buf[next++ % 8];
    size_t n = strlen(s);
    for (size_t i = 0; i < n && i < 31; i++) {
        b[2 * i] = (uint8_t)s[i];
        b[2 * i + 1] = 0;
    }
    return (gcev_utf16){b, (uint32_t)(2 * (n < 31 ? n : 31))};
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/* ---- the simulated heap ------------------------------------------------------- */

typedef struct heap {
    uint64_t size[5]; /* gen0, gen1, gen2, LOH, POH */
    uint64_t frag[5];
} heap;

static heap H = {{0, 0, 400000, 2100000, 65536}, {0, 0, 12000, 300000, 0}};
static uint32_t gc_count;
static uint64_t lcg = 12345;

static uint32_t rnd(uint32_t n)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((lcg >> 33) % n);
}

static void suspend(double ms, uint64_t tid, uint32_t reason, uint32_t count)
{
    gcev_event *ev = blank();
    ev->u.gc_suspend_ee_begin.reason = reason;
    ev->u.gc_suspend_ee_begin.count = count;
    add(9, 1, ev, ms, tid);
    add(8, 1, blank(), ms + 0.05 + rnd(40) / 1000.0, tid);
}

static void restart(double ms, uint64_t tid)
{
    add(7, 1, blank(), ms, tid);
    add(3, 1, blank(), ms + 0.04, tid);
}

static void marks(double ms, double span, uint64_t tid, uint64_t promoted)
{
    /* Stack, Finalizer, Handle, Older: the kinds a workstation GC reports */
    static const uint32_t share[4] = {55, 1, 4, 40};
    for (uint32_t k = 0; k < 4; k++) {
        gcev_event *ev = blank();
        ev->u.gc_mark_with_type.heap_num = 0;
        ev->u.gc_mark_with_type.type = k;
        ev->u.gc_mark_with_type.bytes = promoted * share[k] / 100;
        add(202, 0, ev, ms + span * (k + 1) / 5.0, tid);
    }
}

static void pins(double ms, uint64_t tid, int n)
{
    static const char *const types[] = {"System.Byte[]", "System.Char[]", "MyApp.NativeBuffer"};
    for (int i = 0; i < n; i++) {
        gcev_event *ev = blank();
        ev->u.pin_object_at_gc_time.handle_id = 0x7ffd0000a000ull + 8u * (uint64_t)i;
        ev->u.pin_object_at_gc_time.object_id = 0x1c2a0010000ull + 4096u * (uint64_t)rnd(200);
        ev->u.pin_object_at_gc_time.object_size = 4120;
        ev->u.pin_object_at_gc_time.type_name = utf16(types[i % 3]);
        add(33, 0, ev, ms + 0.01 * i, tid);
    }
}

static void histories(double ms, uint64_t tid, uint32_t gen, uint32_t reason, const heap *before,
                      uint64_t mechanisms)
{
    gcev_event *ev = blank();
    gcev_gc_global_heap_history *g = &ev->u.gc_global_heap_history;
    g->final_youngest_desired = 6291456;
    g->num_heaps = 1;
    g->condemned_generation = gen;
    g->reason = reason;
    g->global_mechanisms = (uint32_t)mechanisms;
    add(205, 2, ev, ms, tid);

    static uint8_t vals[5 * 10 * 8];
    memset(vals, 0, sizeof vals);
    for (int i = 0; i < 5; i++) {
        uint8_t *v = vals + i * 80; /* SizeBefore FreeListBefore FreeObjBefore SizeAfter FreeListAfter
                                     * FreeObjAfter In PinnedSurv NonePinnedSurv NewAllocation */
        put_le(v + 0, before->size[i], 8);
        put_le(v + 8, before->frag[i] / 2, 8);
        put_le(v + 16, before->frag[i] - before->frag[i] / 2, 8);
        put_le(v + 24, H.size[i], 8);
        put_le(v + 32, H.frag[i] / 2, 8);
        put_le(v + 40, H.frag[i] - H.frag[i] / 2, 8);
        put_le(v + 72, i == 0 ? 6291456 : 0, 8);
    }
    ev = blank();
    gcev_gc_per_heap_history *p = &ev->u.gc_per_heap_history;
    p->condemn_reasons0 = gen == 0 ? 0 : (1u << gen);
    p->heap_index = 0;
    p->extra_gen0_commit = 3000000;
    p->count = 5;
    p->values = (gcev_array){vals, sizeof vals, 5, 80, 8, 0, 0, NULL};
    add(204, 3, ev, ms + 0.02, tid);
}

static void heap_stats(double ms, uint64_t tid, const uint64_t promoted[5], uint32_t pinned)
{
    gcev_event *ev = blank();
    gcev_gc_heap_stats *h = &ev->u.gc_heap_stats;
    h->generation_size0 = H.size[0];
    h->generation_size1 = H.size[1];
    h->generation_size2 = H.size[2];
    h->generation_size3 = H.size[3];
    h->generation_size4 = H.size[4];
    h->total_promoted_size0 = promoted[0];
    h->total_promoted_size1 = promoted[1];
    h->total_promoted_size2 = promoted[2];
    h->total_promoted_size3 = promoted[3];
    h->total_promoted_size4 = promoted[4];
    h->pinned_object_count = pinned;
    h->sink_block_count = 14;
    h->gc_handle_count = 60 + pinned;
    h->finalization_promoted_count = rnd(3);
    h->finalization_promoted_size = h->finalization_promoted_count * 64;
    add(4, 2, ev, ms, tid);
}

/* The collection itself, inside whatever suspension the caller set up. */
static double collect(double t, uint64_t tid, uint32_t gen, uint32_t reason, uint32_t type)
{
    uint32_t n = ++gc_count;
    heap before = H;
    gcev_event *ev = blank();
    ev->u.gc_start.count = n;
    ev->u.gc_start.depth = gen;
    ev->u.gc_start.reason = reason;
    ev->u.gc_start.type = type;
    add(1, 2, ev, t, tid);
    uint64_t promoted[5] = {0};
    promoted[0] = H.size[0] / 40 + rnd(20000);
    if (gen >= 1) {
        promoted[1] = H.size[1] / 3;
    }
    if (gen >= 2) {
        promoted[2] = H.size[2] * 9 / 10;
        promoted[3] = H.size[3] * 8 / 10;
        promoted[4] = H.size[4];
    }
    double work = 1.5 + (double)(promoted[0] + promoted[1] + promoted[2] / 4) / 60000.0;
    marks(t, work * 0.6, tid, promoted[0] + promoted[1] + promoted[2]);
    int npins = (int)rnd(3);
    pins(t + work * 0.65, tid, npins);
    /* survivors move up; the older generation absorbs them */
    if (gen >= 2) {
        H.size[2] = promoted[2] + promoted[1];
        H.frag[2] = H.size[2] / 50;
        H.size[3] = promoted[3];
        H.frag[3] = H.size[3] / 20;
    } else {
        H.size[gen + 1] += promoted[gen];
        H.frag[gen + 1] += promoted[gen] / 30;
    }
    if (gen >= 1) {
        H.size[1] = promoted[0];
        H.frag[1] = promoted[0] / 25;
    }
    H.size[0] = 24 + rnd(200) * 8;
    H.frag[0] = 0;
    histories(t + work * 0.9, tid, gen, reason, &before, gen >= 2 ? 0x5 : 0x3);
    if (gen == 2 && type == 0) {
        /* GCLOHCompact: one element per heap, C-aligned (32 bytes on x64, trap 3) */
        static uint8_t loh[32];
        memset(loh, 0, sizeof loh);
        put_le(loh + 0, 310, 4);
        put_le(loh + 4, 1250, 4);
        put_le(loh + 8, 480, 4);
        put_le(loh + 16, 5120, 8);
        put_le(loh + 24, 77, 8);
        ev = blank();
        ev->u.gcloh_compact.count = 1;
        ev->u.gcloh_compact.values = (gcev_array){loh, sizeof loh, 1, 32, 8, 0, 1, NULL};
        add(208, 0, ev, t + work * 0.92, tid);
    }
    double end = t + work;
    ev = blank();
    ev->u.gc_end.count = n;
    ev->u.gc_end.depth = gen;
    add(2, 1, ev, end, tid);
    heap_stats(end + 0.02, tid, promoted, (uint32_t)npins + 1);
    return end + 0.04;
}

/* A blocking GC: suspension, collection, restart. Returns the restart time. */
static double blocking_gc(double t, uint32_t gen, uint32_t reason, uint32_t type)
{
    suspend(t, TID_MAIN, 1 /* SuspendForGC */, gc_count);
    double end = collect(t + 0.3, TID_MAIN, gen, reason, type);
    restart(end, TID_MAIN);
    return end + 0.05;
}

static void survived(double ms);

static void allocation_ticks(void)
{
    static const char *const types[] = {"System.String", "MyApp.Order", "System.Byte[]"};
    double t = 3.0;
    uint64_t since_gc = 0;
    int ngc = 0;
    while (t < TRACE_MS - 20) {
        int large = rnd(25) == 0;
        gcev_event *ev = blank();
        gcev_gc_allocation_tick *a = &ev->u.gc_allocation_tick;
        a->allocation_amount = 100000 + rnd(5000);
        a->allocation_amount64 = a->allocation_amount;
        a->allocation_kind = large ? 1 : 0;
        a->type_id = 0x7ffe9a120000ull + 0x40u * (t > 0 ? (uint64_t)rnd(3) : 0);
        a->type_name = utf16(large ? "System.Byte[]" : types[rnd(3)]);
        a->heap_index = 0;
        a->address = 0x1c2a0000000ull + (uint64_t)(t * 1000.0);
        a->object_size = large ? 85000 + rnd(100000) : 24 + 8 * rnd(30);
        add(10, 4, ev, t, TID_MAIN);
        since_gc += a->allocation_amount;
        H.size[0] += a->allocation_amount;
        if (large) {
            H.size[3] += a->object_size;
        }
        t += 2.0 + rnd(200) / 100.0;
        /* a gen0 budget of ~2.5 MB, and the scripted GCs below */
        if (since_gc >= 2500000) {
            ngc++;
            uint32_t gen = ngc % 4 == 0 ? 1 : 0;
            if (ngc == 9) {
                t = blocking_gc(t, 2, 1 /* Induced */, 0);
                survived(t);
                t += 0.5;
            } else if (ngc == 14) {
                /* a background GC, as the runtime logs one: the allocating thread suspends for
                 * the GC and starts it, the BGC thread marks concurrently, a foreground gen0 GC
                 * nests in it, and the BGC thread's final non-concurrent phase suspends with
                 * SuspendForGCPrep (no GCStart) */
                suspend(t, TID_MAIN, 1 /* SuspendForGC */, gc_count);
                double bgc_start = t + 0.3;
                uint32_t bgc_n = gc_count + 1;
                gcev_event *g = blank();
                g->u.gc_start.count = bgc_n;
                g->u.gc_start.depth = 2;
                g->u.gc_start.reason = 0;
                g->u.gc_start.type = 1;
                add(1, 2, g, bgc_start, TID_MAIN);
                gc_count++;
                restart(bgc_start + 0.9, TID_MAIN);
                marks(bgc_start + 1.0, 10.0, TID_BGC, H.size[2]);
                double fg = blocking_gc(bgc_start + 12.0, 0, 0, 2 /* ForegroundGC */);
                suspend(fg + 20.0, TID_BGC, 6 /* SuspendForGCPrep */, gc_count);
                restart(fg + 21.2, TID_BGC);
                heap before = H;
                H.frag[2] += H.size[2] / 10;
                histories(fg + 38.0, TID_BGC, 2, 0, &before, 0x1);
                g = blank();
                g->u.gc_end.count = bgc_n;
                g->u.gc_end.depth = 2;
                add(2, 1, g, fg + 40.0, TID_BGC);
                uint64_t promoted[5] = {0, 0, H.size[2] * 9 / 10, H.size[3] / 2, H.size[4]};
                heap_stats(fg + 40.05, TID_BGC, promoted, 1);
                t = fg + 1.0;
            } else {
                t = blocking_gc(t, gen, 0 /* AllocSmall */, 0) + 0.5;
            }
            since_gc = 0;
        }
    }
}

/* The sampling profiler suspends the runtime to walk stacks: never a GC pause. */
static void sampler(void)
{
    for (double t = 25.0; t < TRACE_MS - 30; t += 97.0) {
        suspend(t, TID_SAMPLER, 0 /* SuspendOther */, UINT32_MAX);
        restart(t + 0.4 + rnd(30) / 100.0, TID_SAMPLER);
    }
}

static void lifetimes(void)
{
    static const struct {
        double ms;
        uint64_t addr, size;
        uint32_t type;
        double freed;
    } segs[] = {
        {0.5, 0x1c2a0000000ull, 256ull << 20, 0, -1},       /* SOH */
        {0.6, 0x1c2b0000000ull, 128ull << 20, 1, -1},       /* LOH */
        {0.7, 0x1c2c0000000ull, 16ull << 20, 3, -1},        /* POH */
        {900.0, 0x1c2d0000000ull, 128ull << 20, 1, 1500.0}, /* a second LOH segment, released */
    };
    for (size_t i = 0; i < sizeof segs / sizeof segs[0]; i++) {
        gcev_event *ev = blank();
        ev->u.gc_create_segment.address = segs[i].addr;
        ev->u.gc_create_segment.size = segs[i].size;
        ev->u.gc_create_segment.type = segs[i].type;
        add(5, 1, ev, segs[i].ms, TID_MAIN);
        if (segs[i].freed > 0) {
            ev = blank();
            ev->u.gc_free_segment.address = segs[i].addr;
            add(6, 1, ev, segs[i].freed, TID_MAIN);
        }
    }
    /* handles: kinds WeakShort 0, Strong 2, Pinned 3; every third one lives on */
    for (int i = 0; i < 12; i++) {
        double at = 10.0 + 150.0 * i;
        uint64_t id = 0x1c2a7ff1000ull + 8u * (uint64_t)i;
        gcev_event *ev = blank();
        ev->u.set_gc_handle.handle_id = id;
        ev->u.set_gc_handle.object_id = 0x1c2a0020000ull + 64u * (uint64_t)i;
        ev->u.set_gc_handle.kind = (uint32_t)(i % 3 == 0 ? 2 : i % 3 == 1 ? 3 : 0);
        ev->u.set_gc_handle.generation = 0;
        ev->u.set_gc_handle.app_domain_id = 1;
        add(30, 0, ev, at, TID_MAIN);
        if (i % 3 != 0) {
            ev = blank();
            ev->u.destroy_gc_handle.handle_id = id;
            add(31, 0, ev, at + 60.0, TID_FINALIZER);
        }
    }
}

/* After a full blocking GC the runtime reports survival per AppDomain (one on .NET Core). */
static void survived(double ms)
{
    gcev_event *ev = blank();
    ev->u.app_domain_mem_survived.app_domain_id = 1;
    ev->u.app_domain_mem_survived.survived = H.size[2] + H.size[3];
    ev->u.app_domain_mem_survived.process_survived = H.size[2] + H.size[3] + H.size[4];
    add(84, 0, ev, ms, TID_MAIN);
}

static int by_time(const void *pa, const void *pb)
{
    const rec *a = pa, *b = pb;
    if (a->ms != b->ms) {
        return a->ms < b->ms ? -1 : 1;
    }
    return (a->order > b->order) - (a->order < b->order);
}

int main(int argc, char **argv)
{
    const char *out = argc > 1 ? argv[1] : "sample.nettrace";
    lifetimes();
    sampler();
    allocation_ticks();
    qsort(recs, nrecs, sizeof recs[0], by_time);

    gcev_writer_options o = {4, 1, 8, 4242, 8, FREQ, 1000};
    gcev_writer *w;
    if (gcev_writer_create(&o, &w) != GCEV_OK) {
        die("cannot create the writer");
    }
    uint32_t meta[256][8] = {{0}};
    for (size_t i = 0; i < nrecs; i++) {
        rec *r = &recs[i];
        uint32_t *m = &meta[r->id % 256][r->version % 8];
        if (!*m) {
            gcev_writer_meta md = {
                "Microsoft-Windows-DotNETRuntime", r->id, (uint8_t)r->version, 0, 4, 1, "", NULL, 0};
            if (gcev_writer_define(w, &md, m) != GCEV_OK) {
                die("cannot define an event");
            }
        }
        if (i && i % 1000 == 0) {
            gcev_writer_sequence_point(w, o.sync_time_qpc + (int64_t)(r->ms * (double)FREQ / 1000.0));
        }
        gcev_writer_event e = {*m,
                               r->tid,
                               r->tid,
                               0,
                               0,
                               o.sync_time_qpc + (int64_t)(r->ms * (double)FREQ / 1000.0 + 0.5),
                               arena + r->off,
                               r->size,
                               NULL,
                               0,
                               {0}};
        if (gcev_writer_write(w, &e) != GCEV_OK) {
            die("cannot write an event");
        }
    }
    const uint8_t *data;
    size_t size;
    if (gcev_writer_finish(w, &data, &size) != GCEV_OK) {
        die("cannot finish the trace");
    }
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        die("cannot write the output file");
    }
    gcev_writer_free(w);
    printf("%s: %zu events, %zu bytes\n", out, nrecs, size);
    return 0;
}
