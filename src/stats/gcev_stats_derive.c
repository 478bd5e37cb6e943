/* SPDX-License-Identifier: MIT */
/*
 * TraceEvent's derived per-GC metrics (TraceGC.OnEnd and what it calls,
 * TraceManagedProcess.cs "TMP" L2686-3130), computed per GC at
 * gcev_stats_finish() over each process's GC list, as TraceEvent's final
 * GCStats() computes them, and for one GC when the GC-end callback reports it
 * (the same values: they read only the GC and those before it, or, for a
 * background GC's peak, the GCs that ran inside it, closed before it). Sizes stay in bytes (TraceEvent's MB
 * are bytes / 10^6).
 */
#include <string.h>

#include "gcev_stats_internal.h"

enum { GEN0 = 0, GEN1 = 1, GEN2 = 2, LOH = 3, POH = 4 };
/* TraceEvent's CondemnedReasonGroup indexes used here */
enum {
    G_INITIAL = 0,
    G_FINAL = 1,
    G_ALLOC_EXCEEDED = 2,
    G_TIME_TUNING = 3,
    G_INDUCED = 4,
    G_LOW_EPHEMERAL = 5
};
/* GCReasonMap */
enum { REASON_INDUCED = 1, REASON_INDUCED_NO_FORCE = 7 };

static int is_bgc(const gcev_stats_gc *g)
{
    return (g->present & GCEV_STATS_GC_HAS_TYPE) && g->type == GCEV_STATS_BACKGROUND;
}

/* TMP ValidGenData: the GC has histories, and the first one has generation gen. */
static int valid_gen(const gcev_stats_gc *g, const stats_gcx *x, int gen)
{
    return x->hist_count > 0 && g->generation_count > (uint32_t)gen;
}

/* The GC's history records in TraceEvent's list order (arrival); returns how many. */
static uint32_t histories(const stats_gcx *x, const stats_heap **out, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < x->nheaps; i++) {
        const stats_heap *h = &x->heaps[i];
        if (h->hist_seq == UINT32_MAX || n == cap) {
            continue;
        }
        uint32_t k = n++; /* insertion by hist_seq */
        while (k > 0 && out[k - 1]->hist_seq > h->hist_seq) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = h;
    }
    return n;
}

enum { MAX_HEAPS = 1024 };

/* ---- mark times (TMP ConvertMarkTimes) ---------------------------------------------- */

static void convert_marks(gcev_stats *s, long gi, int convert)
{
    gcev_stats_gc *g = &s->gcs[gi];
    stats_gcx *x = &s->gcx[gi];
    memset(g->marks, 0, sizeof g->marks);
    for (uint32_t i = 0; i < x->nheaps; i++) {
        stats_heap *r = &x->heaps[i];
        gcev_stats_heap *h = &r->pub;
        if (!(h->present & GCEV_STATS_HEAPREC_HAS_MARKS)) {
            continue;
        }
        /* the kinds seen, sorted by time; ties keep kind order (.NET's sort of so few items is an
         * insertion sort, stable) */
        int order[GCEV_STATS_ROOT_KINDS];
        int n = 0;
        for (int k = 0; k < GCEV_STATS_ROOT_KINDS; k++) {
            if (!(h->mark_present & (1u << k))) {
                continue;
            }
            int j = n++;
            while (j > 0 && r->mark_ts[order[j - 1]] > r->mark_ts[k]) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = k;
        }
        for (int j = 0; j < n; j++) {
            int k = order[j];
            if (!convert) {
                h->mark_ms[k] =
                    r->mark_ts[k]; /* TraceEvent leaves the timestamps of a GC that never completed */
            } else {
                h->mark_ms[k] = r->mark_ts[k] - (j == 0 ? g->start_ms : r->mark_ts[order[j - 1]]);
            }
            gcev_stats_mark *m = &g->marks[k];
            if (!m->present || h->mark_ms[k] > m->ms) {
                m->ms = h->mark_ms[k];
            }
            m->present = 1;
            if (h->mark_promoted_present & (1u << k)) {
                m->bytes += h->mark_promoted[k];
            }
        }
    }
}

/* ---- sizes before (TMP GetGenSizeBeforeMB) ----------------------------------------- */

static void size_before(gcev_stats *s, const stats_proc *p, size_t index)
{
    long gi = (long)p->gcs[index];
    gcev_stats_gc *g = &s->gcs[gi];
    stats_gcx *x = &s->gcx[gi];
    int ticks = (g->present & GCEV_STATS_GC_HAS_ALLOC_TICKS) != 0;
    uint64_t tick0 = ticks ? g->alloc_tick_bytes[0] : 0;
    const gcev_stats_gc *prev = NULL;
    int searched = 0;
    int any = 0;
    uint64_t total = 0;
    for (int gen = 0; gen < GCEV_STATS_GENS; gen++) {
        gcev_stats_gen_heap *h = &STATS_GENS(s, g)[gen];
        if (valid_gen(g, x, gen)) {
            any = 1;
            total += h->size_before; /* the histories' sum */
            continue;
        }
        h->present &= ~GCEV_STATS_HEAP_HAS_SIZE_BEFORE;
        h->size_before = 0;
        /* no history: gen0 is at least what was allocated; the rest is the last GC's after */
        if (!searched) {
            /* TraceEvent's search stops before the first GC (TMP L2984): the quirk */
            searched = 1;
            const gcev_stats_gc *found[2] = {NULL, NULL};
            for (int pass = 0; pass < 2; pass++) {
                for (size_t j = index; j-- > (size_t)pass;) {
                    const gcev_stats_gc *c = &s->gcs[p->gcs[j]];
                    if (c->present & GCEV_STATS_GC_HAS_HEAP_STATS) {
                        found[pass] = c;
                        break;
                    }
                }
            }
            if (found[0] != found[1]) {
                x->quirks |= STATS_Q_FIRST_HEAP_STATS;
            }
            prev = found[s->compat ? 1 : 0];
        }
        uint64_t v = 0;
        int has = 0;
        if (index == 0 || !prev) {
            /* TraceEvent: 0, and for gen0 the allocation ticks when this is the process's first GC */
            if (gen == GEN0 && index == 0 && ticks) {
                v = tick0;
                has = 1;
            }
        } else {
            uint64_t ps = STATS_GENS(s, prev)[gen].size_after;
            if (gen == GEN0) {
                v = ps > tick0 ? ps : tick0;
            } else if (gen >= LOH && (g->present & GCEV_STATS_GC_HAS_HEAP_STATS)) {
                v = ps > STATS_GENS(s, g)[gen].size_after ? ps : STATS_GENS(s, g)[gen].size_after;
            } else {
                v = ps;
            }
            has = 1;
        }
        if (has || s->compat) {
            h->size_before = v;
            h->present |= GCEV_STATS_HEAP_HAS_SIZE_BEFORE | GCEV_STATS_HEAP_SIZE_BEFORE_ESTIMATED;
            any = 1;
            total += v;
        }
    }
    if (any) {
        g->heap_size_before = total;
        g->present |= GCEV_STATS_GC_HAS_SIZE_BEFORE;
    }
}

/* ---- allocation (TMP GetUserAllocated, GetUserAllocatedPerHeap) -------------------------- */

static uint64_t obj_after(const gcev_stats_heap_gen *d)
{
    return d->size_after - d->free_list_after - d->free_obj_after;
}

static uint64_t obj_before(const gcev_stats_heap_gen *d)
{
    return d->size_before - d->free_list_before - d->free_obj_before;
}

/* Allocated into gen (gen0, LOH or POH) since the previous GC: 1 and *out when known. */
static int user_allocated(gcev_stats *s, const stats_proc *p, size_t index, int gen, int64_t *out)
{
    long gi = (long)p->gcs[index];
    gcev_stats_gc *g = &s->gcs[gi];
    stats_gcx *x = &s->gcx[gi];
    int ticks = (g->present & GCEV_STATS_GC_HAS_ALLOC_TICKS) != 0;
    if (is_bgc(g) && gen == GEN0) {
        *out = (int64_t)g->alloc_tick_bytes[0];
        return ticks || s->compat;
    }
    long pi = index > 0 ? (long)p->gcs[index - 1] : -1;
    if (x->hist_count > 0 && pi >= 0 && s->gcx[pi].hist_count > 0) {
        if (!valid_gen(g, x, gen)) {
            *out = 0;
            return 1;
        }
        const gcev_stats_gc *pg = &s->gcs[pi];
        const stats_gcx *px = &s->gcx[pi];
        const stats_heap *cur[MAX_HEAPS], *prev[MAX_HEAPS];
        uint32_t nc = histories(x, cur, MAX_HEAPS);
        uint32_t np = histories(px, prev, MAX_HEAPS);
        if (nc != x->hist_count || np != px->hist_count) {
            /* per-heap records were not kept (max_heap_records) or a heap sent two histories:
             * the sums give the same total when every heap is in both GCs */
            int64_t prev_obj = (int64_t)STATS_GENS(s, pg)[gen].obj_size_after;
            if ((gen == LOH || gen == POH) && prev_obj == 0 && pg->generation < 1) {
                prev_obj = (int64_t)STATS_GENS(s, pg)[gen].obj_space_before;
            }
            *out = (int64_t)STATS_GENS(s, g)[gen].obj_space_before - prev_obj;
            return 1;
        }
        int64_t total = 0;
        for (uint32_t i = 0; i < nc; i++) {
            int64_t prev_obj = 0;
            if (i < np && prev[i]->pub.generations > (uint32_t)gen) {
                prev_obj = (int64_t)obj_after(&prev[i]->pub.gens[gen]);
                /* a gen0/gen1 GC does not update LOH/POH sizes after (TMP L3053) */
                if ((gen == LOH || gen == POH) && prev_obj == 0 && pg->generation < 1) {
                    prev_obj = (int64_t)obj_before(&prev[i]->pub.gens[gen]);
                }
            }
            total += (int64_t)obj_before(&cur[i]->pub.gens[gen]) - prev_obj;
        }
        *out = total;
        return 1;
    }
    int k = gen == GEN0 ? 0 : 1;
    if (gen == POH) {
        if (g->alloc_tick_bytes[1] != g->alloc_tick_bytes[2]) {
            x->quirks |= STATS_Q_POH_TICKS;
        }
        if (!s->compat) {
            k = 2;
        }
    }
    *out = (int64_t)g->alloc_tick_bytes[k];
    return ticks || s->compat;
}

/* ---- condemned reasons (TMP FindFirstHighestCondemnedHeap, GetCondemnedReasons) ------- */

static void condemned(gcev_stats_gc *g, const stats_gcx *x)
{
    const stats_heap *list[MAX_HEAPS];
    uint32_t n = histories(x, list, MAX_HEAPS);
    if (n == 0) {
        return;
    }
    uint32_t first = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (list[i]->pub.condemned_groups[G_FINAL] == g->generation) {
            first = i;
            break;
        }
    }
    const uint8_t *grp = list[first]->pub.condemned_groups;
    uint32_t bits = 0;
    for (int i = G_ALLOC_EXCEEDED; i <= G_TIME_TUNING; i++) {
        if (grp[i] == g->generation) {
            bits |= 1u << i;
        }
    }
    if (grp[G_INDUCED] && grp[G_INITIAL] == g->generation) {
        bits |= 1u << G_INDUCED;
    }
    for (int i = G_LOW_EPHEMERAL; i < GCEV_STATS_CONDEMNED_GROUPS; i++) {
        if (grp[i]) {
            bits |= 1u << i;
        }
    }
    g->condemned_reasons = bits;
    g->highest_condemned_heap = first;
    g->low_ephemeral = grp[G_LOW_EPHEMERAL] != 0;
    g->present |= GCEV_STATS_GC_HAS_CONDEMNED;
}

/* ---- one GC ---------------------------------------------------------------------------- */

static void per_generation(const gcev_stats *s, gcev_stats_gc *g, const stats_gcx *x)
{
    const stats_heap *list[MAX_HEAPS];
    uint32_t n = histories(x, list, MAX_HEAPS);
    for (int gen = 0; gen < GCEV_STATS_GENS; gen++) {
        gcev_stats_gen_heap *h = &STATS_GENS(s, g)[gen];
        h->present &= ~(GCEV_STATS_HEAP_HAS_SURVIVAL | GCEV_STATS_HEAP_HAS_FRAG_PERCENT |
                        GCEV_STATS_HEAP_FRAG_PERCENT_INFINITE);
        if (!valid_gen(g, x, gen)) {
            continue;
        }
        int in_gc = gen >= LOH ? g->generation >= 2 : (uint32_t)gen <= g->generation;
        if (in_gc && n == x->hist_count) {
            int64_t sum = 0; /* TraceEvent's long mean of the heaps' integer rates */
            for (uint32_t i = 0; i < n; i++) {
                sum += list[i]->pub.gens[gen].surv_rate;
            }
            h->survival_percent = (double)(sum / (int64_t)n);
            h->present |= GCEV_STATS_HEAP_HAS_SURVIVAL;
        }
        if ((g->present & GCEV_STATS_GC_HAS_HEAP_STATS) && h->size_after > 0) {
            h->fragmentation_percent = (double)h->frag_after * 100.0 / (double)h->size_after;
            h->present |= GCEV_STATS_HEAP_HAS_FRAG_PERCENT;
        } else if (s->compat && (g->present & GCEV_STATS_GC_HAS_HEAP_STATS) && h->frag_after > 0) {
            /* TMP GenFragmentationPercent divides by a size after of 0 (a conserved gen0 of a
             * background GC): Infinity, which the struct cannot hold */
            h->present |= GCEV_STATS_HEAP_FRAG_PERCENT_INFINITE;
        }
    }
}

static void free_list(gcev_stats_gc *g, const stats_gcx *x, size_t index)
{
    /* TMP GetFreeListEfficiency: gen1 GCs only, histories with allocation info (V3) */
    if (g->generation != 1 || x->hist_count == 0 || index == 0) {
        return;
    }
    const stats_heap *list[MAX_HEAPS];
    uint32_t n = histories(x, list, MAX_HEAPS);
    double alloc = 0, consumed = 0;
    for (uint32_t i = 0; i < n; i++) {
        alloc += (double)list[i]->pub.free_list_allocated;
        consumed += (double)list[i]->pub.free_list_allocated + (double)list[i]->pub.free_list_rejected;
    }
    g->free_list_allocated = alloc;
    g->free_list_consumed = consumed;
    g->present |= GCEV_STATS_GC_HAS_FREE_LIST;
}

static void pause_percent(gcev_stats *s, const stats_proc *p, size_t index)
{
    gcev_stats_gc *g = &s->gcs[p->gcs[index]];
    double pause = (g->present & GCEV_STATS_GC_HAS_PAUSE) ? g->pause_ms : 0.0;
    double total;
    if (is_bgc(g)) {
        const gcev_stats_gc *first = &s->gcs[p->gcs[0]];
        const gcev_stats_gc *pr = index > 0 ? &s->gcs[p->gcs[index - 1]] : NULL;
        double prev_stop = pr ? pr->start_ms + pr->duration_ms : first->start_ms;
        if (!(g->present & GCEV_STATS_GC_HAS_END) && !s->compat) {
            return;
        }
        total = g->start_ms + g->duration_ms - prev_stop;
    } else {
        if (!(g->present & GCEV_STATS_GC_HAS_SINCE_RESTART) && !s->compat) {
            return;
        }
        total = pause + g->since_last_restart_ms;
    }
    if (!(g->present & GCEV_STATS_GC_HAS_PAUSE) && !s->compat) {
        return;
    }
    if (total != 0) {
        g->pause_time_percent = pause * 100.0 / total;
        g->present |= GCEV_STATS_GC_HAS_PAUSE_PERCENT;
    }
}

static void peak(gcev_stats *s, const stats_proc *p, size_t index)
{
    gcev_stats_gc *g = &s->gcs[p->gcs[index]];
    if (!(g->present & GCEV_STATS_GC_HAS_SIZE_BEFORE)) {
        return;
    }
    uint64_t v = g->heap_size_before;
    if (is_bgc(g)) {
        /* the largest heap before any GC that started before the BGC ended (TMP GetHeapSizePeakMB:
         * the BGC's end taken as its pause start plus its duration) */
        double end = g->pause_start_ms + g->duration_ms;
        for (size_t k = index + 1; k < p->ngcs; k++) {
            const gcev_stats_gc *c = &s->gcs[p->gcs[k]];
            if (end < c->pause_start_ms) {
                break;
            }
            if ((c->present & GCEV_STATS_GC_HAS_SIZE_BEFORE) && c->heap_size_before > v) {
                v = c->heap_size_before;
            }
        }
    }
    g->heap_size_peak = v;
    g->present |= GCEV_STATS_GC_HAS_SIZE_PEAK;
    if (g->present & GCEV_STATS_GC_HAS_SIZE_AFTER) {
        g->ratio_peak_after = g->heap_size_after == 0 ? 0.0 : (double)v / (double)g->heap_size_after;
        g->present |= GCEV_STATS_GC_HAS_RATIO_PEAK_AFTER;
    }
}

static void allocation(gcev_stats *s, const stats_proc *p, size_t index)
{
    gcev_stats_gc *g = &s->gcs[p->gcs[index]];
    static const int gens[3] = {GEN0, LOH, POH};
    int64_t total = 0;
    int any = 0;
    for (int i = 0; i < 3; i++) {
        gcev_stats_gen_heap *h = &STATS_GENS(s, g)[gens[i]];
        int64_t v;
        h->present &= ~GCEV_STATS_HEAP_HAS_USER_ALLOCATED;
        if (user_allocated(s, p, index, gens[i], &v)) {
            h->user_allocated = v;
            h->present |= GCEV_STATS_HEAP_HAS_USER_ALLOCATED;
            total += v;
            any = 1;
        }
    }
    if (!any) {
        return;
    }
    g->allocated_since_last_gc = total;
    g->present |= GCEV_STATS_GC_HAS_ALLOCATED_SINCE;
    if ((g->present & GCEV_STATS_GC_HAS_SINCE_RESTART) && g->since_last_restart_ms != 0) {
        g->alloc_rate_mb_per_sec = (double)total / 1000000.0 * 1000.0 / g->since_last_restart_ms;
        g->present |= GCEV_STATS_GC_HAS_ALLOC_RATE;
    }
}

/* What TraceEvent shows of a complete GC's pins: its second OnEnd recomputed them from the
 * lists the first one freed. */
static void erase_pins(gcev_stats *s, long gi)
{
    gcev_stats_gc *g = &s->gcs[gi];
    if (g->pinned_object_sizes || g->pinned_plug_size || (g->present & GCEV_STATS_GC_HAS_PINNED_PERCENT)) {
        s->gcx[gi].quirks |= STATS_Q_PIN_ERASED;
    }
    if (!s->compat) {
        return;
    }
    g->pinned_object_sizes = 0;
    g->pinned_plug_size = 0;
    g->user_pinned_plug_size = 0;
    g->pinned_object_percent = 0;
    g->present |= GCEV_STATS_GC_HAS_PINNED_SIZES | GCEV_STATS_GC_HAS_PINNED_PLUGS;
    g->present &= ~GCEV_STATS_GC_HAS_PINNED_PERCENT;
}

/* What TraceEvent derives in OnEnd is left at its defaults for a GC that never completed. */
static const uint64_t ON_END_BITS = GCEV_STATS_GC_HAS_SIZE_BEFORE | GCEV_STATS_GC_HAS_SIZE_PEAK |
                                    GCEV_STATS_GC_HAS_RATIO_PEAK_AFTER | GCEV_STATS_GC_HAS_ALLOCATED_SINCE |
                                    GCEV_STATS_GC_HAS_ALLOC_RATE | GCEV_STATS_GC_HAS_PAUSE_PERCENT |
                                    GCEV_STATS_GC_HAS_FREE_LIST;

/* The OnEnd values that need only the GC itself and its predecessors. */
void gcev_stats_derive_own(gcev_stats *s, const stats_proc *p, size_t i)
{
    long gi = (long)p->gcs[i];
    gcev_stats_gc *g = &s->gcs[gi];
    stats_gcx *x = &s->gcx[gi];
    int complete = (g->flags & GCEV_STATS_GC_COMPLETE) != 0;
    if (!complete) {
        gcev_stats_pin_sizes(s, gi);
    }
    convert_marks(s, gi, complete || !s->compat);
    if (!(g->present & GCEV_STATS_GC_HAS_HEAP_STATS)) {
        /* no GCHeapStats: sizes after from the histories, for the generations they rewrote */
        for (int gen = 0; gen < GCEV_STATS_GENS && x->hist_count; gen++) {
            int rewritten = gen >= LOH ? g->generation >= 2 : (uint32_t)gen <= g->generation + 1;
            if (valid_gen(g, x, gen) && rewritten && !s->compat) {
                STATS_GENS(s, g)[gen].size_after = x->hist_size_after[gen];
                STATS_GENS(s, g)[gen].present |= GCEV_STATS_HEAP_HAS_SIZE_AFTER;
            }
        }
    }
    size_before(s, p, i);
    condemned(g, x);
    per_generation(s, g, x);
    if (complete) {
        erase_pins(s, gi);
    }
}

/* The OnEnd values that also read later GCs' sizes before (a background GC's peak). */
static void derive_after(gcev_stats *s, const stats_proc *p, size_t i)
{
    long gi = (long)p->gcs[i];
    gcev_stats_gc *g = &s->gcs[gi];
    peak(s, p, i);
    allocation(s, p, i);
    pause_percent(s, p, i);
    free_list(g, &s->gcx[gi], i);
    if (!(g->flags & GCEV_STATS_GC_COMPLETE)) {
        if (g->present & (ON_END_BITS | GCEV_STATS_GC_HAS_PINNED_PLUGS)) {
            s->gcx[gi].quirks |= STATS_Q_INCOMPLETE;
        }
        if (s->compat) {
            /* the pinned plug totals too: TraceEvent sums them in OnEnd (L2686-2719) */
            g->present &= ~(ON_END_BITS | GCEV_STATS_GC_HAS_PINNED_PLUGS);
            for (int gen = 0; gen < GCEV_STATS_GENS; gen++) {
                STATS_GENS(s, g)
                [gen].present &= ~(GCEV_STATS_HEAP_HAS_SIZE_BEFORE | GCEV_STATS_HEAP_SIZE_BEFORE_ESTIMATED |
                                   GCEV_STATS_HEAP_HAS_USER_ALLOCATED);
            }
        }
    }
}

void gcev_stats_derive_gc(gcev_stats *s, const stats_proc *p, size_t index)
{
    gcev_stats_derive_own(s, p, index);
    derive_after(s, p, index);
}

void gcev_stats_derive(gcev_stats *s)
{
    for (size_t pi = 0; pi < s->nprocs; pi++) {
        const stats_proc *p = &s->procs[pi];
        for (size_t i = 0; i < p->ngcs; i++) {
            gcev_stats_derive_own(s, p, i);
        }
        /* the peaks need every GC's size before */
        for (size_t i = 0; i < p->ngcs; i++) {
            derive_after(s, p, i);
        }
    }
}
