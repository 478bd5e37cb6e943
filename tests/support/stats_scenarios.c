/* SPDX-License-Identifier: MIT */
/*
 * The scenarios of stats_scenarios.h. Every GC carries what a .NET 10 workstation GC logs
 * with the GC keyword at verbose level (SuspendEE/RestartEE, GCStart/End, GCGlobalHeapHistory
 * V2, one GCPerHeapHistory V3 of 5 generations, GCHeapStats V2) and AllocationTicks of small
 * objects between GCs, so that only the sequence each scenario is about sets it apart.
 * Deterministic: the same events every run.
 */
#include "stats_scenarios.h"

#include <string.h>

#include "gcev_stats_internal.h" /* STATS_Q_* */

enum { R_OTHER = 0, R_FOR_GC = 1, R_FOR_GC_PREP = 6 };
enum { T_BLOCKING = 0, T_BACKGROUND = 1, T_FOREGROUND = 2 };

/* ---- the events ----------------------------------------------------------------- */

static scen_emit_fn E;
static void *C;

typedef struct heap {
    uint64_t size[5], frag[5];
} heap;
static heap H;      /* the heap now */
static uint32_t NG; /* GCStart Count of the last GC */
static int G0_NONE; /* GCHeapStats says gen0 holds 0 bytes, whatever H and the histories say */

static gcev_event *blank(void)
{
    static gcev_event ev;
    memset(&ev, 0, sizeof ev);
    return &ev;
}

static void put(uint16_t id, uint16_t version, gcev_event *ev, double ms, uint64_t tid)
{
    E(C, &gcev_provider_runtime, id, version, ev, ms, tid);
}

static void put_private(uint16_t id, uint16_t version, gcev_event *ev, double ms, uint64_t tid)
{
    E(C, &gcev_provider_private, id, version, ev, ms, tid);
}

static void begin(scen_emit_fn emit, void *ctx)
{
    E = emit;
    C = ctx;
    NG = 0;
    G0_NONE = 0;
    static const uint64_t size[5] = {4000000, 900000, 12000000, 3000000, 250000};
    for (int i = 0; i < 5; i++) {
        H.size[i] = size[i];
        H.frag[i] = size[i] / 50;
    }
}

static void suspend(double ms, uint64_t tid, uint32_t reason)
{
    gcev_event *ev = blank();
    ev->u.gc_suspend_ee_begin.reason = reason;
    ev->u.gc_suspend_ee_begin.count = reason == R_OTHER ? UINT32_MAX : NG + 1;
    put(9, 1, ev, ms, tid);
}

static void suspend_end(double ms, uint64_t tid)
{
    put(8, 1, blank(), ms, tid);
}

/* RestartEEBegin 0.05 ms before the RestartEEEnd at ms. */
static void restart(double ms, uint64_t tid)
{
    put(7, 1, blank(), ms - 0.05, tid);
    put(3, 1, blank(), ms, tid);
}

static void alloc_tick(double ms, uint64_t tid)
{
    static uint8_t name[] = {'M', 0, 'y', 0, 'T', 0, 0, 0};
    gcev_event *ev = blank();
    ev->u.gc_allocation_tick.allocation_amount = 100000;
    ev->u.gc_allocation_tick.allocation_amount64 = 100000;
    ev->u.gc_allocation_tick.allocation_kind = 0;
    ev->u.gc_allocation_tick.type_id = 0x7ff812340000u;
    ev->u.gc_allocation_tick.type_name = (gcev_utf16){name, 6};
    ev->u.gc_allocation_tick.address = 0x7f0000100000u + (uint64_t)(ms * 1000);
    ev->u.gc_allocation_tick.object_size = 24;
    put(10, 4, ev, ms, tid);
}

/* Two allocation ticks in the 10 ms before a GC at t (gen0 grows by their 200000 bytes). */
static void allocate_before(double t)
{
    alloc_tick(t - 6.0, SCEN_TID);
    alloc_tick(t - 3.0, SCEN_TID);
    H.size[0] += 200000;
}

static void gc_start_v(double ms, uint64_t tid, uint16_t version, uint32_t n, uint32_t gen, uint32_t reason,
                       uint32_t type)
{
    gcev_event *ev = blank();
    ev->u.gc_start.count = n;
    ev->u.gc_start.depth = gen;
    ev->u.gc_start.reason = reason;
    ev->u.gc_start.type = type;
    put(1, version, ev, ms, tid);
}

static void gc_end(double ms, uint64_t tid, uint32_t n, uint32_t gen)
{
    gcev_event *ev = blank();
    ev->u.gc_end.count = n;
    ev->u.gc_end.depth = gen;
    put(2, 1, ev, ms, tid);
}

static void put_le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/* GCGlobalHeapHistory V2 and GCPerHeapHistory V3 of a GC of `gen` from heap state `before`
 * to H; private_only: the private provider's GlobalHeapHistory V1 instead. */
static void histories(double ms, uint64_t tid, uint32_t gen, const heap *before, int private_only)
{
    gcev_event *ev = blank();
    if (private_only) {
        gcev_private_gc_global_heap_history *g = &ev->u.private_gc_global_heap_history;
        g->final_youngest_desired = 6291456;
        g->num_heaps = 1;
        g->condemned_generation = gen;
        g->gen0_reduction_count = 0;
        g->reason = 0;
        g->global_mechanisms = 2; /* compaction */
        put_private(5, 1, ev, ms, tid);
        return; /* not the private PerHeapHistory: TraceEvent reads past its end (garbage values) */
    }
    gcev_gc_global_heap_history *g = &ev->u.gc_global_heap_history;
    g->final_youngest_desired = 6291456;
    g->num_heaps = 1;
    g->condemned_generation = gen;
    g->reason = 0;
    g->global_mechanisms = 2;
    g->pause_mode = 1;
    g->memory_pressure = 20;
    put(205, 2, ev, ms, tid);

    static uint8_t vals[5 * 10 * 8];
    memset(vals, 0, sizeof vals);
    for (uint32_t i = 0; i < 5; i++) {
        /* SizeBefore FreeListBefore FreeObjBefore SizeAfter FreeListAfter FreeObjAfter In
         * PinnedSurv NonePinnedSurv NewAllocation */
        uint8_t *v = vals + i * 80;
        int condemned = i <= gen || (gen == 2 && i >= 3);
        put_le(v + 0, before->size[i]);
        put_le(v + 8, before->frag[i] / 2);
        put_le(v + 16, before->frag[i] - before->frag[i] / 2);
        put_le(v + 24, condemned || i == gen + 1 ? H.size[i] : 0);
        put_le(v + 32, condemned || i == gen + 1 ? H.frag[i] / 2 : 0);
        put_le(v + 40, condemned || i == gen + 1 ? H.frag[i] - H.frag[i] / 2 : 0);
        put_le(v + 48, i > 0 && i <= gen + 1 && i < 3 ? before->size[i - 1] / 20 : 0);
        put_le(v + 56, condemned ? 4096 : 0);
        put_le(v + 64, condemned ? before->size[i] / 20 : 0);
        put_le(v + 72, i == 0 ? 6291456 : 0);
    }
    ev = blank();
    gcev_gc_per_heap_history *p = &ev->u.gc_per_heap_history;
    p->condemn_reasons0 = gen == 0 ? 0 : (1u << gen);
    p->compact_mechanisms = 1u << 1;
    p->heap_index = 0;
    p->extra_gen0_commit = 3000000;
    p->count = 5;
    p->values = (gcev_array){vals, sizeof vals, 5, 80, 8, 0, 0, NULL};
    put(204, 3, ev, ms + 0.02, tid);
}

static void heap_stats(double ms, uint64_t tid, const uint64_t promoted[5])
{
    gcev_event *ev = blank();
    gcev_gc_heap_stats *h = &ev->u.gc_heap_stats;
    h->generation_size0 = G0_NONE ? 0 : H.size[0];
    h->generation_size1 = H.size[1];
    h->generation_size2 = H.size[2];
    h->generation_size3 = H.size[3];
    h->generation_size4 = H.size[4];
    h->total_promoted_size0 = promoted[0];
    h->total_promoted_size1 = promoted[1];
    h->total_promoted_size2 = promoted[2];
    h->total_promoted_size3 = promoted[3];
    h->total_promoted_size4 = promoted[4];
    h->finalization_promoted_size = 640;
    h->finalization_promoted_count = 10;
    h->pinned_object_count = 1;
    h->sink_block_count = 14;
    h->gc_handle_count = 61;
    put(4, 2, ev, ms, tid);
}

/* What a GC of `gen` does to H; promoted[] gets GCHeapStats' TotalPromotedSize. */
static void collect_heap(uint32_t gen, uint64_t promoted[5])
{
    memset(promoted, 0, 5 * sizeof *promoted);
    promoted[0] = H.size[0] / 20;
    if (gen >= 1) {
        promoted[1] = H.size[1] / 3;
        H.size[2] += promoted[1];
        H.size[1] = promoted[0];
    } else {
        H.size[1] += promoted[0];
    }
    if (gen >= 2) {
        promoted[2] = H.size[2] * 9 / 10;
        promoted[3] = H.size[3] * 8 / 10;
        promoted[4] = H.size[4];
        H.size[2] = promoted[2];
        H.size[3] = promoted[3];
    }
    H.size[0] = 100000 + 1000u * NG;
    for (int i = 0; i < 5; i++) {
        H.frag[i] = H.size[i] / 50;
    }
}

typedef struct gc_opts {
    uint64_t tid;       /* of GCStart (0: SCEN_TID) */
    uint64_t end_tid;   /* of the histories, GCEnd and GCHeapStats (0: tid) */
    uint32_t reason;    /* GCStart Reason */
    uint32_t type;      /* GCStart Type */
    int no_heap_stats;  /* GCHeapStats lost */
    int private_only;   /* the private provider's histories */
    int public_marks;   /* the Runtime provider's GCMarkStackRoots .. GCMarkOlderGenerationRoots */
    double length;      /* GCStart -> GCEnd (0: 1.0) */
    uint16_t start_ver; /* GCStart version (0: 2) */
} gc_opts;

/* The collection: GCStart at t, marks, histories, GCEnd at t + length, GCHeapStats 0.1 ms later. */
static void collect(double t, uint32_t gen, const gc_opts *o)
{
    uint64_t tid = o->tid ? o->tid : SCEN_TID;
    uint64_t end_tid = o->end_tid ? o->end_tid : tid;
    double len = o->length > 0 ? o->length : 1.0;
    uint32_t n = ++NG;
    gc_start_v(t, tid, o->start_ver ? o->start_ver : 2, n, gen, o->reason, o->type);
    heap before = H;
    uint64_t promoted[5];
    collect_heap(gen, promoted);
    if (o->type == T_BACKGROUND) {
        return; /* the caller logs the rest (collect_bgc_end) */
    }
    if (o->public_marks) {
        static const uint16_t ids[4] = {25, 26, 27, 28};
        for (int i = 0; i < 4; i++) {
            gcev_event *ev = blank();
            ev->u.gc_mark_stack_roots.heap_num = 0; /* the four share the layout */
            put(ids[i], 0, ev, t + 0.1 + 0.1 * i, end_tid);
        }
    } else if (o->private_only) {
        static const uint16_t ids[4] = {7, 8, 9, 10};
        for (int i = 0; i < 4; i++) {
            gcev_event *ev = blank();
            ev->u.private_prv_gc_mark_stack_roots.heap_num = 0;
            put_private(ids[i], 1, ev, t + 0.1 + 0.1 * i, end_tid);
        }
    } else {
        /* GCMarkWithType: stack, finalize queue, handle, older generation */
        static const uint32_t kinds[4] = {0, 1, 2, 3};
        for (int i = 0; i < 4; i++) {
            gcev_event *ev = blank();
            ev->u.gc_mark_with_type.heap_num = 0;
            ev->u.gc_mark_with_type.type = kinds[i];
            ev->u.gc_mark_with_type.bytes = promoted[0] / 4 + 100u * (uint64_t)i;
            put(202, 0, ev, t + 0.1 + 0.1 * i, end_tid);
        }
    }
    histories(t + len - 0.2, end_tid, gen, &before, o->private_only);
    gc_end(t + len, end_tid, n, gen);
    if (!o->no_heap_stats) {
        heap_stats(t + len + 0.1, end_tid, promoted);
    }
}

/* A blocking GC: SuspendEE at t (SuspendForGC), suspended at t + 0.1, the collection from
 * t + 0.2, RestartEE 0.4 ms after its GCHeapStats. Returns the RestartEEEnd time. */
static double blocking(double t, uint32_t gen, const gc_opts *o)
{
    static const gc_opts none = {0};
    if (!o) {
        o = &none;
    }
    double len = o->length > 0 ? o->length : 1.0;
    allocate_before(t);
    suspend(t, SCEN_TID, R_FOR_GC);
    suspend_end(t + 0.1, SCEN_TID);
    collect(t + 0.2, gen, o);
    restart(t + 0.2 + len + 0.5, SCEN_TID);
    return t + 0.2 + len + 0.5;
}

/* A background GC's start: its suspension, GCStart (Type 1), the restart at t + 1.0. */
static uint32_t bgc_begin(double t)
{
    allocate_before(t);
    suspend(t, SCEN_TID, R_FOR_GC);
    suspend_end(t + 0.1, SCEN_TID);
    gc_opts o = {.type = T_BACKGROUND, .reason = 1};
    collect(t + 0.2, 2, &o);
    put_private(11, 0, blank(), t + 0.4, SCEN_TID_BGC); /* BGCBegin */
    put_private(12, 0, blank(), t + 0.8, SCEN_TID_BGC); /* BGC1stNonConEnd */
    restart(t + 1.0, SCEN_TID);
    return NG;
}

/* Its final mark on the BGC thread (SuspendForGCPrep at t) and its second concurrent phase, to t + 4.0. */
static void bgc_final_mark(double t)
{
    put_private(13, 0, blank(), t - 2.0, SCEN_TID_BGC); /* BGC1stConEnd */
    suspend(t, SCEN_TID_BGC, R_FOR_GC_PREP);
    suspend_end(t + 0.1, SCEN_TID_BGC);
    put_private(14, 0, blank(), t + 0.2, SCEN_TID_BGC); /* BGC2ndNonConBegin */
    put_private(15, 0, blank(), t + 0.6, SCEN_TID_BGC); /* BGC2ndNonConEnd */
    restart(t + 0.8, SCEN_TID_BGC);
    put_private(16, 0, blank(), t + 0.9, SCEN_TID_BGC); /* BGC2ndConBegin */
    put_private(17, 0, blank(), t + 4.0, SCEN_TID_BGC); /* BGC2ndConEnd */
}

/* Its GCEnd at t and GCHeapStats on the BGC thread. */
static void bgc_gc_end(double t, uint32_t n)
{
    gc_end(t, SCEN_TID_BGC, n, 2);
    uint64_t promoted[5] = {0, 0, H.size[2], H.size[3], H.size[4]};
    heap_stats(t + 0.1, SCEN_TID_BGC, promoted);
}

/* Its final phase: the final mark at t, the histories, GCEnd and GCHeapStats. */
static void bgc_end(double t, uint32_t n, const heap *before)
{
    bgc_final_mark(t);
    histories(t + 4.5, SCEN_TID_BGC, 2, before, 0);
    bgc_gc_end(t + 5.0, n);
}

/* ---- the scenarios ------------------------------------------------------------------ */

/* The trace starts inside GC 1 (after its SuspendEE): TraceEvent drops a GCStart with no
 * suspension in progress (TraceManagedProcess.cs L712); gcev keeps the GC, with no pause. */
static void no_suspension(scen_emit_fn emit, void *ctx)
{
    begin(emit, ctx);
    gc_opts o = {0};
    collect(1.0, 0, &o);
    restart(2.6, SCEN_TID);
    blocking(20.0, 0, NULL);
    blocking(40.0, 1, NULL);
}

/* GC 2's suspension has no SuspendEEEnd (lost): TraceEvent's suspension duration is GC 1's
 * SuspendEEEnd minus GC 2's SuspendEEBegin, negative (L753: the end time is never reset). */
static void stale_suspend_end(scen_emit_fn emit, void *ctx)
{
    begin(emit, ctx);
    blocking(10.0, 0, NULL);
    allocate_before(30.0);
    suspend(30.0, SCEN_TID, R_FOR_GC);
    gc_opts o = {0};
    collect(30.2, 0, &o);
    restart(31.7, SCEN_TID);
    blocking(50.0, 1, NULL);
}

/* GC 2's GCHeapStats is lost: TraceEvent never completes it, so it stays the current GC, and the
 * next GC suspension that starts no GC (at 40) rewrites its pause to that RestartEE minus its
 * own pause start (L632, L659). */
static void no_heap_stats(scen_emit_fn emit, void *ctx)
{
    begin(emit, ctx);
    blocking(10.0, 0, NULL);
    gc_opts o = {.no_heap_stats = 1};
    blocking(25.0, 0, &o);
    suspend(40.0, SCEN_TID, R_FOR_GC); /* the GC it was for had happened: no GCStart */
    suspend_end(40.1, SCEN_TID);
    restart(40.3, SCEN_TID);
    blocking(60.0, 1, NULL);
    blocking(80.0, 0, NULL);
}

/* A GC suspension during a background GC that starts no GC (another thread's GC request that
 * the BGC made moot): TraceEvent sets the BGC's pause to that RestartEE minus the BGC's pause
 * start, so the concurrent time between counts as paused (L4780); gcev adds the suspension. */
static void bgc_overwrite(scen_emit_fn emit, void *ctx)
{
    begin(emit, ctx);
    blocking(10.0, 0, NULL);
    heap before = H;
    uint32_t n = bgc_begin(30.0);
    suspend(40.0, SCEN_TID_USER2, R_FOR_GC);
    suspend_end(40.1, SCEN_TID_USER2);
    restart(40.4, SCEN_TID_USER2);
    bgc_end(60.0, n, &before);
    blocking(90.0, 0, NULL);
}

/* A GC with the Runtime provider's GCMarkStackRoots, GCMarkFinalizeQueueRoots, GCMarkHandles
 * and GCMarkOlderGenerationRoots (ids 25-28): TraceEvent reads only the private provider's
 * (L967-1030) and GCMarkWithType; gcev reads these as the private ones. */
static void public_marks(scen_emit_fn emit, void *ctx)
{
    begin(emit, ctx);
    blocking(10.0, 0, NULL);
    gc_opts o = {.public_marks = 1};
    blocking(30.0, 1, &o);
    blocking(50.0, 0, NULL);
}

/* BGCRevisit, logged by the BGC thread while a foreground GC runs inside the BGC: TraceEvent
 * adds it to the current GC, the foreground one (L1091); gcev to the background GC. Also LOH
 * allocation waits during the BGC (BGCAllocWaitBegin/End). */
static void revisit_target(scen_emit_fn emit, void *ctx)
{
    begin(emit, ctx);
    blocking(10.0, 0, NULL);
    heap before = H;
    uint32_t n = bgc_begin(30.0);
    gcev_event *ev = blank();
    ev->u.private_bgc_revisit.pages = 40;
    ev->u.private_bgc_revisit.objects = 900;
    ev->u.private_bgc_revisit.is_large = 0;
    put_private(21, 0, ev, 33.0, SCEN_TID_BGC); /* in the BGC's 1st concurrent phase */
    ev = blank();
    ev->u.private_bgc_alloc_wait_begin.reason = 11; /* AllocDuringBGC */
    put_private(23, 0, ev, 34.0, SCEN_TID_USER2);
    ev = blank();
    ev->u.private_bgc_alloc_wait_end.reason = 11;
    put_private(24, 0, ev, 36.5, SCEN_TID_USER2);
    /* a foreground gen0 GC inside the BGC */
    allocate_before(40.0);
    suspend(40.0, SCEN_TID, R_FOR_GC);
    suspend_end(40.1, SCEN_TID);
    gc_opts o = {.type = T_FOREGROUND};
    collect(40.2, 0, &o);
    ev = blank();
    ev->u.private_bgc_revisit.pages = 7;
    ev->u.private_bgc_revisit.objects = 120;
    ev->u.private_bgc_revisit.is_large = 1;
    put_private(21, 0, ev, 40.5, SCEN_TID_BGC); /* during the foreground GC */
    restart(41.7, SCEN_TID);
    bgc_end(60.0, n, &before);
    blocking(90.0, 0, NULL);
}

/* The trace ends inside GC 3, after its GCHeapStats and before its RestartEE: TraceEvent never
 * runs its OnEnd, so its derived values (sizes before, allocation, pause share) stay at their
 * defaults (L2686); gcev derives them from the events there are. */
static void incomplete(scen_emit_fn emit, void *ctx)
{
    begin(emit, ctx);
    blocking(10.0, 0, NULL);
    blocking(30.0, 1, NULL);
    allocate_before(50.0);
    suspend(50.0, SCEN_TID, R_FOR_GC);
    suspend_end(50.1, SCEN_TID);
    gc_opts o = {0};
    collect(50.2, 0, &o);
}

/* .NET Framework's habit: GCStart V1 and then V2 for each GC. Both readers keep one GC. */
static void gcstart_twice(scen_emit_fn emit, void *ctx)
{
    begin(emit, ctx);
    for (int i = 0; i < 3; i++) {
        double t = 10.0 + 20.0 * i;
        uint32_t gen = i == 1 ? 1 : 0;
        allocate_before(t);
        suspend(t, SCEN_TID, R_FOR_GC);
        suspend_end(t + 0.1, SCEN_TID);
        gc_start_v(t + 0.2, SCEN_TID, 1, NG + 1, gen, 0, T_BLOCKING);
        gc_opts o = {0};
        collect(t + 0.2, gen, &o);
        restart(t + 1.7, SCEN_TID);
    }
}

/* Only the private provider's history and marks (a .NET Framework GCPrivateKeyword trace): the
 * private GlobalHeapHistory gives NumHeaps and the mechanisms, the PrvGCMark* events the mark
 * times; with no per-heap history, sizes before are estimated from the previous GCHeapStats. */
static void private_only(scen_emit_fn emit, void *ctx)
{
    begin(emit, ctx);
    gc_opts o = {.private_only = 1};
    blocking(10.0, 0, &o);
    blocking(30.0, 1, &o);
    blocking(50.0, 0, &o);
}

/* A background GC after which gen0 holds only free space (GCConserveMemory): its GCHeapStats
 * gives gen0 0 bytes, its per-heap history 24000 bytes of free list and free objects in gen0.
 * TraceEvent's GenFragmentationPercent divides the history's fragmentation by GCHeapStats' size
 * (TMP GenFragmentationMB, GenSizeAfterMB): Infinity, which --compat traceevent reproduces and
 * gcev's own mode omits (doc/stats.md). */
static void frag_infinity(scen_emit_fn emit, void *ctx)
{
    begin(emit, ctx);
    blocking(10.0, 0, NULL);
    heap before = H;
    uint32_t n = bgc_begin(30.0);
    H.size[0] = 24000; /* the history's SizeAfter: all of it free (ObjSizeAfter 0) */
    H.frag[0] = 24000;
    G0_NONE = 1;
    bgc_end(60.0, n, &before);
    G0_NONE = 0;
    blocking(90.0, 0, NULL);
}

/* The BGC's thread logs its histories while a foreground GC restarts the runtime (after that
 * GC's GCEnd and RestartEEBegin, before its RestartEEEnd), as a .NET 10 capture of seg-gc did
 * in about 1 run of 12. TraceEvent gives them to the foreground GC, its current GC (TMP
 * GetCurrentGC): two histories of heap 0 there, the BGC's condemned generation, none for the
 * BGC, and the next GC's allocation from the foreground GC's first history. gcev gives them to
 * the BGC, whose thread logged them; --compat traceevent reproduces TraceEvent. */
static void bgc_history_in_restart(scen_emit_fn emit, void *ctx)
{
    begin(emit, ctx);
    blocking(10.0, 0, NULL);
    heap before = H;
    uint32_t n = bgc_begin(30.0);
    bgc_final_mark(40.0);
    allocate_before(60.0);
    suspend(60.0, SCEN_TID, R_FOR_GC);
    suspend_end(60.1, SCEN_TID);
    gc_opts o = {.type = T_FOREGROUND};
    collect(60.2, 0, &o);                         /* GCEnd at 61.2, GCHeapStats at 61.3 */
    put(7, 1, blank(), 61.5, SCEN_TID);           /* its RestartEEBegin */
    histories(61.6, SCEN_TID_BGC, 2, &before, 0); /* the BGC's */
    put(3, 1, blank(), 61.8, SCEN_TID);           /* its RestartEEEnd */
    bgc_gc_end(62.5, n);
    blocking(90.0, 0, NULL);
    blocking(110.0, 1, NULL);
}

const stats_scenario stats_scenarios[] = {
    {"no-suspension", STATS_Q_NO_SUSPENSION, "a GCStart with no suspension in progress", no_suspension, 0},
    {"stale-suspend-end", STATS_Q_STALE_SUSPEND_END, "a suspension without SuspendEEEnd", stale_suspend_end,
     0},
    {"no-heap-stats", STATS_Q_NO_HEAP_STATS, "a blocking GC whose GCHeapStats is lost", no_heap_stats, 0},
    {"bgc-overwrite", STATS_Q_BGC_OVERWRITE, "a GC suspension in a BGC that starts no GC", bgc_overwrite, 0},
    {"public-marks", STATS_Q_PUBLIC_MARKS, "the Runtime provider's mark events 25-28", public_marks, 0},
    {"revisit-target", STATS_Q_REVISIT_TARGET, "BGCRevisit during a foreground GC; LOH waits", revisit_target,
     0},
    {"incomplete", STATS_Q_INCOMPLETE, "the trace ends inside a GC", incomplete, 0},
    {"gcstart-twice", 0, "GCStart V1 then V2 for each GC (.NET Framework)", gcstart_twice, 0},
    {"private-only", 0, "only the private provider's histories and marks", private_only, 0},
    {"frag-infinity", 0, "a BGC whose gen0 is 0 bytes after with free space", frag_infinity, 1},
    {"bgc-history-in-restart", STATS_Q_BGC_DETAIL_TO_FOREGROUND,
     "the BGC's histories inside a foreground GC's restart", bgc_history_in_restart, 0},
};
const size_t stats_scenario_count = sizeof stats_scenarios / sizeof stats_scenarios[0];

const stats_scenario *stats_scenario_find(const char *name_or_path)
{
    if (!name_or_path) {
        return NULL;
    }
    const char *base = strrchr(name_or_path, '/');
    base = base ? base + 1 : name_or_path;
    size_t n = strlen(base);
    if (n > 9 && !strcmp(base + n - 9, ".nettrace")) {
        n -= 9;
    }
    for (size_t i = 0; i < stats_scenario_count; i++) {
        if (strlen(stats_scenarios[i].name) == n && !strncmp(stats_scenarios[i].name, base, n)) {
            return &stats_scenarios[i];
        }
    }
    return NULL;
}
