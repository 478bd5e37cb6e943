/* SPDX-License-Identifier: MIT */
/*
 * Summaries, computed once by gcev_stats_finish(): per condemned generation and
 * for the whole trace (all processes together), and per process TraceEvent's
 * GCStats (TraceGarbageCollector.Calculate, TraceManagedProcess.cs L1620-1745)
 * over the complete GCs, with gcev's pause distributions. Plus the result
 * accessors. Rates are only defined when the trace spans time, and a mean only
 * over the GCs whose value is known (absent is absent, never NaN: include/gcev/gcev_stats.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gcev_stats_internal.h"

/* GCReasonMap */
enum { REASON_INDUCED = 1, REASON_INDUCED_NO_FORCE = 7 };

static void resolve_trace_wide_bits(gcev_stats *s)
{
    /* A GC with no AllocationTick or PinObjectAtGCTime since the previous one
     * really had none, but only if the trace carries those events at all. */
    uint64_t extra = 0;
    if (s->family_counts[GCEV_FAMILY_GC_ALLOCATION_TICK]) {
        extra |= GCEV_STATS_GC_HAS_ALLOCATED;
    }
    if (s->family_counts[GCEV_FAMILY_PIN_OBJECT_AT_GC_TIME]) {
        extra |= GCEV_STATS_GC_HAS_PINNED_EVENTS;
    }
    for (size_t i = 0; i < s->ngcs; i++) {
        gcev_stats_gc *g = &s->gcs[i];
        g->present |= extra;
    }
}

static void add_to_generation(gcev_stats_gen_summary *gs, const gcev_stats_gc *g)
{
    gs->count++;
    if (g->present & GCEV_STATS_GC_HAS_TYPE) {
        gs->background += g->type == GCEV_STATS_BACKGROUND;
        gs->foreground += g->type == GCEV_STATS_FOREGROUND;
    }
    if (g->present & GCEV_STATS_GC_HAS_PAUSE) {
        gs->pause_count++;
        gs->pause_total_ms += g->pause_ms;
        if (g->pause_ms > gs->pause_max_ms) {
            gs->pause_max_ms = g->pause_ms;
        }
    }
    if (g->present & GCEV_STATS_GC_HAS_PROMOTED) {
        gs->promoted_count++;
        gs->promoted_bytes += g->promoted_bytes;
    }
    if (g->present & GCEV_STATS_GC_HAS_END) {
        gs->duration_count++;
        gs->duration_total_ms += g->duration_ms;
    }
}

static void trace_summary(gcev_stats *s)
{
    gcev_stats_summary *sum = &s->sum;
    for (unsigned i = 0; i < 3; i++) {
        s->gens[i].generation = i;
    }
    sum->gc_count = s->ngcs;
    for (size_t i = 0; i < s->ngcs; i++) {
        const gcev_stats_gc *g = &s->gcs[i];
        if (!(g->present & GCEV_STATS_GC_HAS_END)) {
            sum->unfinished_gcs++;
        }
        if ((g->present & GCEV_STATS_GC_HAS_GENERATION) && g->generation < 3) {
            add_to_generation(&s->gens[g->generation], g);
        }
        if (g->present & GCEV_STATS_GC_HAS_PAUSE) {
            if (!(sum->present & GCEV_STATS_SUM_HAS_PAUSE) || g->pause_ms > sum->pause_max_ms) {
                sum->pause_max_ms = g->pause_ms;
                sum->pause_max_gc = g->number;
            }
            sum->pause_total_ms += g->pause_ms;
            sum->present |= GCEV_STATS_SUM_HAS_PAUSE;
        }
        if ((g->present & GCEV_STATS_GC_HAS_HEAP_COUNT) && g->heap_count > sum->heap_count) {
            sum->heap_count = g->heap_count;
            sum->present |= GCEV_STATS_SUM_HAS_HEAP_COUNT;
        }
    }
    for (unsigned i = 0; i < 3; i++) {
        if (s->gens[i].pause_count) {
            s->gens[i].pause_mean_ms = s->gens[i].pause_total_ms / (double)s->gens[i].pause_count;
        }
    }
    sum->duration_ms = sum->last_ms - sum->first_ms;
    if (sum->duration_ms > 0) {
        sum->present |= GCEV_STATS_SUM_HAS_DURATION;
        sum->gcs_per_sec = (double)sum->gc_count * 1000.0 / sum->duration_ms;
        if (sum->present & GCEV_STATS_SUM_HAS_PAUSE) {
            sum->pause_percent = sum->pause_total_ms * 100.0 / sum->duration_ms;
        }
    }
    if (s->family_counts[GCEV_FAMILY_GC_ALLOCATION_TICK]) {
        sum->present |= GCEV_STATS_SUM_HAS_ALLOCATION;
        if (sum->present & GCEV_STATS_SUM_HAS_DURATION) {
            sum->alloc_mb_per_sec = (double)sum->allocated_bytes / 1e6 * 1000.0 / sum->duration_ms;
        }
    }
    if (s->has_ads) {
        sum->present |= GCEV_STATS_SUM_HAS_SURVIVED;
    }
}

/* ---- GCStats per process ---------------------------------------------------------- */

static void gcstats_add(gcev_stats_gcstats *st, const gcev_stats_gc *g, const stats_gcx *x)
{
    st->count++;
    if ((g->present & GCEV_STATS_GC_HAS_REASON) &&
        (g->reason == REASON_INDUCED || g->reason == REASON_INDUCED_NO_FORCE)) {
        st->induced++;
    }
    if (g->pinned_object_sizes) {
        st->pinned_object_sizes += g->pinned_object_sizes;
        st->with_pin_events++;
    }
    if (g->present & GCEV_STATS_GC_HAS_PINNED_PERCENT) {
        st->pinned_object_percent += g->pinned_object_percent;
        st->with_pin_plug_events++;
    }
    if (g->present & GCEV_STATS_GC_HAS_SIZE_AFTER) {
        st->size_after_total += g->heap_size_after;
    }
    if (g->present & GCEV_STATS_GC_HAS_SIZE_PEAK) {
        st->size_peak_total += g->heap_size_peak;
        if (g->heap_size_peak > st->size_peak_max) {
            st->size_peak_max = g->heap_size_peak;
        }
    }
    if (g->present & GCEV_STATS_GC_HAS_HEAP_STATS) {
        st->promoted_total += g->promoted_bytes;
    }
    if (g->present & GCEV_STATS_GC_HAS_PAUSE) {
        st->pause_total_ms += g->pause_ms;
        if (g->pause_ms > st->pause_max_ms) {
            st->pause_max_ms = g->pause_ms;
        }
    }
    if (g->present & GCEV_STATS_GC_HAS_ALLOCATED_SINCE) {
        st->allocated_total += g->allocated_since_last_gc;
    }
    if ((g->present & GCEV_STATS_GC_HAS_ALLOC_RATE) && g->alloc_rate_mb_per_sec > st->alloc_rate_max) {
        st->alloc_rate_max = g->alloc_rate_mb_per_sec;
    }
    if ((g->present & GCEV_STATS_GC_HAS_SUSPENSION) && g->suspension_ms > st->suspend_max_ms) {
        st->suspend_max_ms = g->suspension_ms;
    }
    if (x->hist_count > 0) {
        st->has_detailed_gc_info = 1;
    }
}

static void gcstats_means(gcev_stats_gcstats *st)
{
    if (st->count) {
        st->pause_mean_ms = st->pause_total_ms / st->count;
        st->size_after_mean = (double)st->size_after_total / st->count;
        st->size_peak_mean = (double)st->size_peak_total / st->count;
        st->present |= GCEV_STATS_GCSTATS_HAS_MEANS;
    }
    if (st->pause_total_ms > 0) {
        st->alloc_mb_per_pause_ms = (double)st->allocated_total / 1e6 / st->pause_total_ms;
    }
}

/* ---- pause distributions ---------------------------------------------------------- */

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Nearest rank: the smallest pause with at least pct % of the pauses at or below it. */
static double rank(const double *v, size_t n, unsigned pct)
{
    size_t r = ((size_t)pct * n + 99) / 100; /* ceil(pct / 100 * n), exact in integers */
    if (r < 1) {
        r = 1;
    }
    return v[(r > n ? n : r) - 1];
}

static void distribution(gcev_stats_pauses *d, double *v, size_t n)
{
    memset(d, 0, sizeof *d);
    if (!n) {
        return;
    }
    qsort(v, n, sizeof *v, cmp_double);
    d->count = n;
    for (size_t i = 0; i < n; i++) {
        d->total_ms += v[i];
    }
    d->mean_ms = d->total_ms / (double)n;
    d->p50_ms = rank(v, n, 50);
    d->p90_ms = rank(v, n, 90);
    d->p99_ms = rank(v, n, 99);
    d->max_ms = v[n - 1];
}

/* by 0: every complete GC with a pause; 1: of generation `which`; 2: of type `which`. */
static int selected(const gcev_stats_gc *g, int by, unsigned which)
{
    if (!(g->flags & GCEV_STATS_GC_COMPLETE) || !(g->present & GCEV_STATS_GC_HAS_PAUSE)) {
        return 0;
    }
    if (by == 1) {
        return (g->present & GCEV_STATS_GC_HAS_GENERATION) && g->generation == which;
    }
    if (by == 2) {
        return (g->present & GCEV_STATS_GC_HAS_TYPE) && g->type == which;
    }
    return 1;
}

static gcev_status pauses(gcev_stats *s, stats_proc *p)
{
    double *v = malloc((p->ngcs ? p->ngcs : 1) * sizeof *v);
    if (!v) {
        return GCEV_E_NOMEM;
    }
    for (int by = 0; by < 3; by++) {
        for (unsigned which = 0; which < (by ? 3u : 1u); which++) {
            size_t n = 0;
            for (size_t i = 0; i < p->ngcs; i++) {
                const gcev_stats_gc *g = &s->gcs[p->gcs[i]];
                if (selected(g, by, which)) {
                    v[n++] = g->pause_ms;
                }
            }
            gcev_stats_pauses *d = by == 0   ? &p->pub.pauses
                                   : by == 1 ? &p->pub.pauses_by_gen[which]
                                             : &p->pub.pauses_by_type[which];
            distribution(d, v, n);
        }
    }
    free(v);
    /* the ten longest pauses, longest first; equal pauses in start order */
    size_t n = 0;
    for (size_t i = 0; i < p->ngcs; i++) {
        const gcev_stats_gc *g = &s->gcs[p->gcs[i]];
        if (!selected(g, 0, 0)) {
            continue;
        }
        size_t k = n < 10 ? n++ : 10;
        while (k > 0 && s->gcs[p->longest[k - 1]].pause_ms < g->pause_ms) {
            if (k < 10) {
                p->longest[k] = p->longest[k - 1];
            }
            k--;
        }
        if (k < 10) {
            p->longest[k] = p->gcs[i];
        }
    }
    p->pub.longest = (uint32_t)n;
    return GCEV_OK;
}

/* A GC's part in the sustained allocation rate: complete, with its allocation and its time since
 * the GC before. */
static int in_rate_runs(const gcev_stats_gc *g)
{
    return (g->flags & GCEV_STATS_GC_COMPLETE) && (g->present & GCEV_STATS_GC_HAS_ALLOCATED_SINCE) &&
           (g->present & GCEV_STATS_GC_HAS_SINCE_RESTART) && g->since_last_restart_ms > 0;
}

static void sustained_max(gcev_stats_gcstats *st, double rate)
{
    if (!(st->present & GCEV_STATS_GCSTATS_HAS_SUSTAINED_RATE) || rate > st->alloc_rate_max_sustained) {
        st->alloc_rate_max_sustained = rate;
        st->present |= GCEV_STATS_GCSTATS_HAS_SUSTAINED_RATE;
    }
}

/* alloc_rate_max_sustained (gcev_stats.h): for each GC that takes part, the shortest run of
 * them ending with it that spans GCEV_STATS_ALLOC_RATE_WINDOW_MS; two indexes walk the list
 * once. */
static void sustained_rates(const gcev_stats *s, stats_proc *p)
{
    size_t first = 0; /* the run's first GC (index into p->gcs) */
    double ms = 0;    /* time of the GCs first..i that take part */
    double bytes = 0; /* their allocation */
    for (size_t i = 0; i < p->ngcs; i++) {
        const gcev_stats_gc *g = &s->gcs[p->gcs[i]];
        if (!in_rate_runs(g)) {
            continue;
        }
        ms += g->since_last_restart_ms;
        bytes += (double)g->allocated_since_last_gc;
        /* drop GCs from the front while the rest still spans the window */
        for (;;) {
            while (first < i && !in_rate_runs(&s->gcs[p->gcs[first]])) {
                first++;
            }
            const gcev_stats_gc *f = &s->gcs[p->gcs[first]];
            if (first >= i || ms - f->since_last_restart_ms < GCEV_STATS_ALLOC_RATE_WINDOW_MS) {
                break;
            }
            ms -= f->since_last_restart_ms;
            bytes -= (double)f->allocated_since_last_gc;
            first++;
        }
        if (ms < GCEV_STATS_ALLOC_RATE_WINDOW_MS) {
            continue;
        }
        double rate = bytes / 1e6 * 1000.0 / ms;
        sustained_max(&p->all, rate);
        if ((g->present & GCEV_STATS_GC_HAS_GENERATION) && g->generation < 3) {
            sustained_max(&p->gstats[g->generation], rate);
        }
    }
}

static gcev_status process_summary(gcev_stats *s, stats_proc *p)
{
    gcev_stats_process *r = &p->pub;
    r->gc_count = p->ngcs;
    r->duplicate_starts = p->duplicate_starts;
    double first_pause_start = 0.0;
    int have_first = 0;
    for (size_t i = 0; i < p->ngcs; i++) {
        const gcev_stats_gc *g = &s->gcs[p->gcs[i]];
        const stats_gcx *x = &s->gcx[p->gcs[i]];
        if (!(g->flags & GCEV_STATS_GC_COMPLETE)) {
            continue;
        }
        r->complete_count++;
        if (!have_first) {
            first_pause_start = g->pause_start_ms;
            have_first = 1;
        }
        gcstats_add(&p->all, g, x);
        if ((g->present & GCEV_STATS_GC_HAS_GENERATION) && g->generation < 3) {
            gcstats_add(&p->gstats[g->generation], g, x);
        }
    }
    gcstats_means(&p->all);
    for (int i = 0; i < 3; i++) {
        gcstats_means(&p->gstats[i]);
    }
    /* ProcessDuration: the first complete GC's pause start -> the last GCHeapStats (TMP
     * GetProcessDuration); TraceEvent takes a pause start of 0.0 for "none" */
    if (have_first && first_pause_start != 0.0) {
        p->all.process_duration_ms = p->last_heap_stats_ms - first_pause_start;
        p->all.present |= GCEV_STATS_GCSTATS_HAS_DURATION;
        if (p->all.process_duration_ms != 0) {
            p->all.pause_time_percent = p->all.pause_total_ms * 100.0 / p->all.process_duration_ms;
        }
    }
    if (p->has_first_num_heaps) {
        p->all.heap_count = p->first_num_heaps;
        p->all.present |= GCEV_STATS_GCSTATS_HAS_HEAP_COUNT;
    }
    p->all.version_mismatch = p->version_mismatch;
    p->all.finalized_objects = p->finalized;
    sustained_rates(s, p);
    return pauses(s, p);
}

static int heap_order(const void *pa, const void *pb)
{
    const stats_heap *a = pa, *b = pb;
    if (a->pub.heap != b->pub.heap) {
        return a->pub.heap > b->pub.heap ? 1 : -1;
    }
    /* two records of a heap (compat mode's second history): in arrival order, as TraceEvent lists them */
    return (a->hist_seq > b->hist_seq) - (a->hist_seq < b->hist_seq);
}

gcev_status gcev_stats_summary_finish(gcev_stats *s)
{
    gcev_stats_derive(s);
    for (size_t i = 0; i < s->ngcs; i++) { /* the public order of a GC's heaps */
        if (s->gcx[i].nheaps > 1) {
            qsort(s->gcx[i].heaps, s->gcx[i].nheaps, sizeof *s->gcx[i].heaps, heap_order);
        }
    }
    resolve_trace_wide_bits(s);
    trace_summary(s);
    for (size_t i = 0; i < s->nprocs; i++) {
        gcev_status st = process_summary(s, &s->procs[i]);
        if (st != GCEV_OK) {
            return st;
        }
    }
    return GCEV_OK;
}

/* ---- accessors -------------------------------------------------------------------- */

size_t gcev_stats_gc_count(const gcev_stats *s)
{
    return s ? s->ngcs : 0;
}

const gcev_stats_gc *gcev_stats_gc_at(const gcev_stats *s, size_t i)
{
    return s && i < s->ngcs ? &s->gcs[i] : NULL;
}

const gcev_stats_gc *gcev_stats_gc_find(const gcev_stats *s, uint32_t number)
{
    for (size_t i = s ? s->ngcs : 0; i-- > 0;) {
        if (s->gcs[i].number == number) {
            return &s->gcs[i];
        }
    }
    return NULL;
}

const gcev_stats_summary *gcev_stats_get_summary(const gcev_stats *s)
{
    return s ? &s->sum : NULL;
}

const gcev_stats_gen_summary *gcev_stats_generation(const gcev_stats *s, unsigned gen)
{
    return s && gen < 3 ? &s->gens[gen] : NULL;
}

const gcev_stats_options *gcev_stats_get_options(const gcev_stats *s)
{
    return s ? &s->opts : NULL;
}

uint64_t gcev_stats_family_count(const gcev_stats *s, uint16_t family)
{
    return s && family < GCEV_FAMILY_COUNT_ ? s->family_counts[family] : 0;
}

/* Index of g in s->gcs, or -1 when g is not one of s's records. */
static long gc_index(const gcev_stats *s, const gcev_stats_gc *g)
{
    if (!s || !g || s->ngcs == 0) {
        return -1;
    }
    uintptr_t a = (uintptr_t)g, base = (uintptr_t)s->gcs;
    if (a < base || a - base >= s->ngcs * sizeof *s->gcs || (a - base) % sizeof *s->gcs) {
        return -1;
    }
    return (long)((a - base) / sizeof *s->gcs);
}

const gcev_stats_heap *gcev_stats_gc_heap_at(const gcev_stats *s, const gcev_stats_gc *g, size_t i)
{
    long gi = gc_index(s, g);
    return gi >= 0 && i < s->gcx[gi].nheaps ? &s->gcx[gi].heaps[i].pub : NULL;
}

const gcev_stats_gen_heap *gcev_stats_gc_gen_at(const gcev_stats *s, const gcev_stats_gc *g, unsigned gen)
{
    long gi = gc_index(s, g);
    return gi >= 0 && gen < GCEV_STATS_GENS ? &s->gcx[gi].gens[gen] : NULL;
}

const gcev_stats_loh_wait *gcev_stats_gc_loh_wait_at(const gcev_stats *s, const gcev_stats_gc *g, size_t i)
{
    long gi = gc_index(s, g);
    return gi >= 0 && i < g->loh_waits ? &s->gcx[gi].waits[i] : NULL;
}

const gcev_stats_fit_bucket *gcev_stats_gc_fit_bucket_at(const gcev_stats *s, const gcev_stats_gc *g,
                                                         size_t i)
{
    long gi = gc_index(s, g);
    return gi >= 0 && i < g->fit_buckets ? &s->gcx[gi].buckets[i] : NULL;
}

size_t gcev_stats_process_count(const gcev_stats *s)
{
    return s ? s->nprocs : 0;
}

const gcev_stats_process *gcev_stats_process_at(const gcev_stats *s, size_t i)
{
    return s && i < s->nprocs ? &s->procs[i].pub : NULL;
}

const gcev_stats_process *gcev_stats_process_find(const gcev_stats *s, uint32_t process_id)
{
    for (size_t i = 0; s && i < s->nprocs; i++) {
        if (s->procs[i].pid == process_id) {
            return &s->procs[i].pub;
        }
    }
    return NULL;
}

/* The stats_proc behind a public process record of s, or NULL. */
static const stats_proc *proc_of(const gcev_stats *s, const gcev_stats_process *p)
{
    for (size_t i = 0; s && p && i < s->nprocs; i++) {
        if (&s->procs[i].pub == p) {
            return &s->procs[i];
        }
    }
    return NULL;
}

const gcev_stats_gc *gcev_stats_process_gc_at(const gcev_stats *s, const gcev_stats_process *p, size_t j)
{
    const stats_proc *q = proc_of(s, p);
    return q && j < q->ngcs ? &s->gcs[q->gcs[j]] : NULL;
}

const gcev_stats_gc *gcev_stats_process_longest_at(const gcev_stats *s, const gcev_stats_process *p, size_t k)
{
    const stats_proc *q = proc_of(s, p);
    return q && s->finished && k < q->pub.longest ? &s->gcs[q->longest[k]] : NULL;
}

const gcev_stats_gcstats *gcev_stats_process_stats(const gcev_stats *s, const gcev_stats_process *p)
{
    const stats_proc *q = proc_of(s, p);
    return q ? &q->all : NULL;
}

const gcev_stats_gcstats *gcev_stats_process_gen_stats(const gcev_stats *s, const gcev_stats_process *p,
                                                       unsigned gen)
{
    const stats_proc *q = proc_of(s, p);
    return q && gen < 3 ? &q->gstats[gen] : NULL;
}

uint32_t gcev_stats_gc_quirks(const gcev_stats *s, const gcev_stats_gc *g)
{
    long gi = gc_index(s, g);
    return gi >= 0 ? s->gcx[gi].quirks : 0;
}
