/* SPDX-License-Identifier: MIT */
/*
 * The analysis object: its life cycle, its processes, GC and per-heap records,
 * which GC an event belongs to, and a GC's completion.
 */
#include <stdlib.h>
#include <string.h>

#include "gcev_stats_internal.h"

enum {
    DEFAULT_SEGMENTS = 65536,
    DEFAULT_HANDLES = 1048576,
    DEFAULT_APP_DOMAINS = 256,
    DEFAULT_HEAP_RECORDS = 262144,
    DEFAULT_PINS = 65536,
    DEFAULT_PROCESSES = 1024
};

gcev_status gcev_stats_create(const gcev_stats_options *opts, gcev_stats **out)
{
    if (!out) {
        return GCEV_E_INVALID_ARG;
    }
    *out = NULL;
    /* the caller's options in whichever layout it was built with (gcev.h "Growable structs") */
    gcev_stats_options o;
    gcev_status st = gcev_sized_in(&o, sizeof o, opts, GCEV_SIZE_TO(gcev_stats_options, traceevent_compat));
    if (st != GCEV_OK) {
        return st;
    }
    gcev_stats *s = calloc(1, sizeof *s);
    if (!s) {
        return GCEV_E_NOMEM;
    }
    s->opts = o;
    if (!s->opts.max_segments) {
        s->opts.max_segments = DEFAULT_SEGMENTS;
    }
    if (!s->opts.max_handles) {
        s->opts.max_handles = DEFAULT_HANDLES;
    }
    if (!s->opts.max_app_domains) {
        s->opts.max_app_domains = DEFAULT_APP_DOMAINS;
    }
    if (!s->opts.max_heap_records) {
        s->opts.max_heap_records = DEFAULT_HEAP_RECORDS;
    }
    if (!s->opts.max_pins) {
        s->opts.max_pins = DEFAULT_PINS;
    }
    if (!s->opts.max_processes) {
        s->opts.max_processes = DEFAULT_PROCESSES;
    }
    s->compat = s->opts.traceevent_compat != 0;
    gcev_stats_table_init(&s->segments, sizeof(gcev_stats_segment), s->opts.max_segments);
    gcev_stats_table_init(&s->handles, sizeof(gcev_stats_handle), s->opts.max_handles);
    *out = s;
    return GCEV_OK;
}

static void free_gcx_lists(stats_gcx *x)
{
    free(x->pins);
    free(x->plugs);
    x->pins = x->plugs = NULL;
    x->npins = x->nplugs = x->cap_pins = x->cap_plugs = 0;
}

void gcev_stats_free(gcev_stats *s)
{
    if (!s) {
        return;
    }
    gcev_stats_table_free(&s->segments);
    gcev_stats_table_free(&s->handles);
    gcev_stats_lifetimes_free(s);
    free(s->live_segments);
    free(s->live_handles);
    free(s->ads);
    for (size_t i = 0; i < s->ngcs; i++) {
        free(s->gcx[i].heaps);
        free(s->gcx[i].waits);
        free(s->gcx[i].buckets);
        free_gcx_lists(&s->gcx[i]);
    }
    for (size_t i = 0; i < s->nprocs; i++) {
        free(s->procs[i].gcs);
    }
    free(s->procs);
    free(s->gcx);
    free(s->gcs);
    free(s);
}

/* ---- processes ------------------------------------------------------------ */

static void proc_init(stats_proc *p, uint32_t pid)
{
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->susp_begin_ms = -1;
    p->susp_end_ms = -1;
    p->current_bgc = p->last_completed = p->last_ended = -1;
    p->pub.process_id = pid;
}

stats_proc *gcev_stats_proc(gcev_stats *s, uint32_t pid)
{
    if (s->last_proc < s->nprocs && s->procs[s->last_proc].pid == pid) {
        return &s->procs[s->last_proc];
    }
    for (size_t i = 0; i < s->nprocs; i++) {
        if (s->procs[i].pid == pid) {
            s->last_proc = i;
            return &s->procs[i];
        }
    }
    if (s->nprocs >= s->opts.max_processes) {
        s->sum.limit_hit = 1;
        return NULL;
    }
    if (!gcev_reserve_from((void **)&s->procs, &s->cap_procs, s->nprocs + 1, sizeof *s->procs, 4)) {
        return NULL;
    }
    proc_init(&s->procs[s->nprocs], pid);
    s->last_proc = s->nprocs;
    return &s->procs[s->nprocs++];
}

long gcev_stats_new_gc(gcev_stats *s, stats_proc *p)
{
    /* gcs[] and gcx[] are parallel: each grows on its own, both to hold one more */
    if (!gcev_reserve_from((void **)&s->gcs, &s->cap_gcs, s->ngcs + 1, sizeof *s->gcs, 64) ||
        !gcev_reserve_from((void **)&s->gcx, &s->cap_gcx, s->ngcs + 1, sizeof *s->gcx, 64) ||
        !gcev_reserve_from((void **)&p->gcs, &p->cap_gcs, p->ngcs + 1, sizeof *p->gcs, 64)) {
        return -1;
    }
    long gi = (long)s->ngcs++;
    memset(&s->gcs[gi], 0, sizeof s->gcs[gi]);
    memset(&s->gcx[gi], 0, sizeof s->gcx[gi]);
    s->gcx[gi].proc = (uint32_t)(p - s->procs);
    s->gcx[gi].index = (uint32_t)p->ngcs;
    s->gcs[gi].process_id = p->pid;
    p->gcs[p->ngcs++] = (size_t)gi;
    return gi;
}

/* ---- which GC an event belongs to ------------------------------------------ */

long gcev_stats_current(const gcev_stats *s, const stats_proc *p)
{
    if (p->ngcs == 0) {
        return -1;
    }
    long last = (long)p->gcs[p->ngcs - 1];
    if (!(s->gcs[last].flags & GCEV_STATS_GC_COMPLETE) && (s->compat || !s->gcx[last].restarted)) {
        return last;
    }
    return p->current_bgc;
}

void gcev_stats_note_bgc_thread(gcev_stats *s, const stats_proc *p, uint64_t tid)
{
    if (p->current_bgc >= 0) {
        s->gcx[p->current_bgc].bgc_thread = tid;
        s->gcx[p->current_bgc].has_bgc_thread = 1;
    }
}

long gcev_stats_detail_target(gcev_stats *s, stats_proc *p, uint64_t tid, uint32_t quirk)
{
    long gi = gcev_stats_current(s, p);
    long b = p->current_bgc;
    if (gi >= 0 && b >= 0 && gi != b && s->gcx[b].has_bgc_thread && s->gcx[b].bgc_thread == tid) {
        /* The BGC's thread logs its histories at the BGC's end, which may fall inside a
         * foreground GC's restart (after its GCEnd and RestartEEBegin, before its RestartEEEnd);
         * the foreground GC runs on another thread. TraceEvent gives them to the foreground GC. */
        s->gcx[gi].quirks |= STATS_Q_BGC_DETAIL_TO_FOREGROUND;
        s->gcx[b].quirks |= STATS_Q_BGC_DETAIL_TO_FOREGROUND;
        return s->compat ? gi : b;
    }
    if (gi >= 0 || p->last_completed < 0) {
        return gi;
    }
    /* Server GC logs a BGC's histories after its GCEnd and GCHeapStats; TraceEvent means to give
     * them to that BGC (GetLastGC) but only does for IsServerGCUsed == 1. */
    long lc = p->last_completed;
    if (s->gcs[lc].type != GCEV_STATS_BACKGROUND || !(s->gcs[lc].present & GCEV_STATS_GC_HAS_TYPE)) {
        return -1;
    }
    s->gcx[lc].quirks |= quirk;
    return s->compat ? -1 : lc;
}

/* ---- per-heap records -------------------------------------------------------- */

stats_heap *gcev_stats_heap_rec(gcev_stats *s, long gi, uint32_t heap)
{
    stats_gcx *x = &s->gcx[gi];
    for (uint32_t i = 0; i < x->nheaps; i++) {
        if (x->heaps[i].pub.heap == heap) {
            return &x->heaps[i];
        }
    }
    return gcev_stats_heap_rec_new(s, gi, heap);
}

stats_heap *gcev_stats_heap_rec_new(gcev_stats *s, long gi, uint32_t heap)
{
    stats_gcx *x = &s->gcx[gi];
    if (s->gcs[gi].flags & GCEV_STATS_GC_HEAPS_DROPPED) {
        return NULL;
    }
    if (s->heap_records >= s->opts.max_heap_records) {
        s->gcs[gi].flags |= GCEV_STATS_GC_HEAPS_DROPPED;
        s->sum.limit_hit = 1;
        return NULL;
    }
    /* per GC: workstation GC has one heap, server GC one per core */
    if (!gcev_reserve_from((void **)&x->heaps, &x->cap_heaps, (size_t)x->nheaps + 1, sizeof *x->heaps, 2)) {
        return NULL;
    }
    stats_heap *h = &x->heaps[x->nheaps++];
    memset(h, 0, sizeof *h);
    h->pub.heap = heap;
    h->hist_seq = UINT32_MAX;
    s->heap_records++;
    s->gcs[gi].heaps = x->nheaps;
    x->heaps_sorted = 0;
    return h;
}

/* ---- completion: TraceEvent's first OnEnd --------------------------------------- */

/* By (a, seq): objects by id then first report; plugs by start. */
static int cmp_pin(const void *pa, const void *pb)
{
    const stats_pin *a = pa, *b = pb;
    if (a->a != b->a) {
        return a->a < b->a ? -1 : 1;
    }
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/*
 * TraceEvent's GetPinnedObjectSizes / GetPinnedObjectPercentage: the sizes of the distinct
 * objects pinned (the first report of an object counts), the plug sizes, and the plugs that
 * hold a pinned object. TraceEvent takes, for each object, the first plug in event order whose
 * [start, end) contains it; the runtime's plugs of one GC do not overlap, so that is the one
 * plug containing it, found here by binary search over the plugs sorted by start.
 */
void gcev_stats_pin_sizes(gcev_stats *s, long gi)
{
    gcev_stats_gc *g = &s->gcs[gi];
    stats_gcx *x = &s->gcx[gi];
    uint64_t sizes = 0;
    if (x->npins) {
        qsort(x->pins, x->npins, sizeof *x->pins, cmp_pin);
    }
    for (uint32_t i = 0; i < x->npins; i++) {
        if (i == 0 || x->pins[i].a != x->pins[i - 1].a) {
            sizes += x->pins[i].b;
        }
    }
    g->pinned_object_sizes = sizes;
    if (s->family_counts[GCEV_FAMILY_PIN_OBJECT_AT_GC_TIME]) {
        g->present |= GCEV_STATS_GC_HAS_PINNED_SIZES;
    }
    if (!s->family_counts[GCEV_FAMILY_PRIVATE_PIN_PLUG_AT_GC_TIME]) {
        return;
    }
    uint64_t total = 0, user = 0;
    for (uint32_t i = 0; i < x->nplugs; i++) {
        total += x->plugs[i].b - x->plugs[i].a;
    }
    if (x->nplugs) {
        qsort(x->plugs, x->nplugs, sizeof *x->plugs, cmp_pin);
    }
    for (uint32_t i = 0; x->nplugs && i < x->npins; i++) {
        uint64_t addr = x->pins[i].a;
        uint32_t lo = 0, hi = x->nplugs;
        while (lo < hi) { /* lo = first plug starting after addr */
            uint32_t mid = lo + (hi - lo) / 2;
            if (x->plugs[mid].a <= addr) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (lo > 0 && addr < x->plugs[lo - 1].b) {
            x->plugs[lo - 1].mark = 1;
        }
    }
    for (uint32_t i = 0; i < x->nplugs; i++) {
        if (x->plugs[i].mark) {
            user += x->plugs[i].b - x->plugs[i].a;
        }
    }
    g->pinned_plug_size = total;
    g->user_pinned_plug_size = user;
    g->present |= GCEV_STATS_GC_HAS_PINNED_PLUGS;
    if (total) {
        g->pinned_object_percent = (int32_t)((double)sizes * 100.0 / (double)total);
        g->present |= GCEV_STATS_GC_HAS_PINNED_PERCENT;
    }
}

void gcev_stats_complete(gcev_stats *s, long gi)
{
    gcev_stats_gc *g = &s->gcs[gi];
    if (g->flags & GCEV_STATS_GC_COMPLETE) {
        return;
    }
    g->flags |= GCEV_STATS_GC_COMPLETE;
    s->gcx[gi].gcs_at_complete = (uint32_t)s->procs[s->gcx[gi].proc].ngcs;
    gcev_stats_pin_sizes(s, gi);
    free_gcx_lists(&s->gcx[gi]);
}
