/* SPDX-License-Identifier: MIT */
/*
 * Per-GC detail events: heap histories (GCPerHeapHistory, GCGlobalHeapHistory, also
 * the private provider's), mark times (GCMarkWithType and the mark events), pinning
 * (PinObjectAtGCTime, PinPlugAtGCTime), LOH compaction, fit buckets, joins, the
 * private BGC events, GCDynamicEvent (CommittedUsage, DATAS tuning) and finalizers.
 *
 * Attribution is TraceEvent's (TraceManagedProcess.cs, "TMP"): the current GC (the
 * last GC of the process while it is not complete, else its BGC in progress); the
 * histories and dynamic events also go to a server BGC that already completed
 * (gcev_stats_detail_target), BGC phases and LOH waits to the BGC.
 */
#include <stdlib.h>
#include <string.h>

#include "gcev_stats_internal.h"

/* GCJoin Heap values of the restart joins, which concern no heap (the runtime's
 * join_heap_restart 100 and join_heap_r_restart 200). */
enum { JOIN_HEAP_RESTART = 100 };

/* .NET's (long) of a double, saturating since .NET 9 (NaN is 0): a hostile history's rate can
 * be far out of int64_t's range, where C's own conversion is undefined. */
static int64_t te_long(double v)
{
    if (v != v) {
        return 0;
    }
    if (v >= 9223372036854775808.0) {
        return INT64_MAX;
    }
    if (v < -9223372036854775808.0) {
        return INT64_MIN;
    }
    return (int64_t)v;
}

static int is_bgc(const gcev_stats_gc *g)
{
    return (g->present & GCEV_STATS_GC_HAS_TYPE) && g->type == GCEV_STATS_BACKGROUND;
}

/* ---- heap histories ----------------------------------------------------------- */

static void on_per_heap_history(gcev_stats *s, stats_proc *p, const gcev_gc_per_heap_history *e, uint64_t tid)
{
    if (!(e->present & GCEV_GC_PER_HEAP_HISTORY_HAS_VALUES)) {
        p->version_mismatch = 1; /* TraceEvent: not VersionRecognized (payload too short) */
        return;
    }
    long gi = gcev_stats_detail_target(s, p, tid, STATS_Q_LATE_HISTORY);
    if (gi < 0) {
        return;
    }
    gcev_stats_gc *g = &s->gcs[gi];
    stats_gcx *x = &s->gcx[gi];
    uint32_t ngen = e->values.count < GCEV_STATS_GENS ? e->values.count : GCEV_STATS_GENS;
    if (x->hist_count == 0) {
        g->generation_count = e->values.count;
        g->present |= GCEV_STATS_GC_HAS_GENERATION_COUNT;
    }
    uint32_t seq = x->hist_count++;
    g->heap_histories++;
    g->present |= GCEV_STATS_GC_HAS_HEAP_HISTORY;
    if (e->present & GCEV_GC_PER_HEAP_HISTORY_HAS_CONDEMN_REASONS1) {
        g->condemn_reasons0 |= e->condemn_reasons0;
        g->condemn_reasons1 |= e->condemn_reasons1;
        g->present |= GCEV_STATS_GC_HAS_CONDEMN_REASONS;
    }
    /* the generation sums (TraceEvent sums over its list of histories) */
    gcev_stats_heap_gen gd[GCEV_STATS_GENS];
    memset(gd, 0, sizeof gd);
    for (uint32_t i = 0; i < ngen; i++) {
        gcev_gc_per_heap_history_values v;
        if (gcev_gc_per_heap_history_values_at(&e->values, i, &v, NULL) != GCEV_OK) {
            return;
        }
        gcev_stats_heap_gen *d = &gd[i];
        d->size_before = v.size_before;
        d->size_after = v.size_after;
        d->free_list_before = v.free_list_before;
        d->free_obj_before = v.free_obj_before;
        d->free_list_after = v.free_list_after;
        d->free_obj_after = v.free_obj_after;
        d->in = v.in;
        d->pinned_surv = v.pinned_surv;
        d->non_pinned_surv = v.none_pinned_surv;
        d->budget = v.new_allocation;
        /* TraceEvent's SurvRate (V3): (long)(Out * 100.0 / ObjSpaceBefore), 0 when that is 0 */
        int64_t osb = (int64_t)(v.size_before - v.free_list_before - v.free_obj_before);
        int64_t out = (int64_t)(v.pinned_surv + v.none_pinned_surv);
        d->surv_rate = osb == 0 ? 0 : (uint32_t)te_long((double)out * 100.0 / (double)osb);
        gcev_stats_gen_heap *h = &STATS_GENS(s, g)[i];
        h->size_before += v.size_before;
        h->frag_before += v.free_list_before + v.free_obj_before;
        h->frag_after += v.free_list_after + v.free_obj_after;
        h->obj_space_before += (uint64_t)osb;
        h->obj_size_after += v.size_after - v.free_list_after - v.free_obj_after;
        h->in += v.in;
        h->out += (uint64_t)out;
        h->budget += v.new_allocation;
        h->pinned_surv += v.pinned_surv;
        h->non_pinned_surv += v.none_pinned_surv;
        h->free_list_before += v.free_list_before;
        h->free_obj_before += v.free_obj_before;
        h->free_list_after += v.free_list_after;
        h->free_obj_after += v.free_obj_after;
        h->present |= GCEV_STATS_HEAP_HAS_SIZE_BEFORE | GCEV_STATS_HEAP_HAS_FRAG_BEFORE |
                      GCEV_STATS_HEAP_HAS_FRAG_AFTER | GCEV_STATS_HEAP_HAS_HISTORY;
        /* sizes after come from GCHeapStats; this sum is for a GC that lacks it */
        x->hist_size_after[i] += v.size_after;
    }
    uint32_t heap = (e->present & GCEV_GC_PER_HEAP_HISTORY_HAS_HEAP_INDEX) ? e->heap_index : seq;
    stats_heap *r = gcev_stats_heap_rec(s, gi, heap);
    if (r && r->hist_seq != UINT32_MAX && s->compat) {
        /* TraceEvent lists every history it gives the GC: a second one of this heap gets its own
         * record, so the list, the survival mean and the next GC's allocation are TraceEvent's */
        r = gcev_stats_heap_rec_new(s, gi, heap);
    }
    if (!r) {
        return;
    }
    if (r->hist_seq != UINT32_MAX) {
        x->dup_histories++; /* a second history of the same heap: the sums have it, the record not */
        return;
    }
    gcev_stats_heap *h = &r->pub;
    r->hist_seq = seq;
    h->present |= GCEV_STATS_HEAPREC_HAS_HISTORY;
    h->generations = e->values.count;
    h->free_list_allocated = e->free_list_allocated;
    h->free_list_rejected = e->free_list_rejected;
    h->end_of_seg_allocated = e->end_of_seg_allocated;
    h->condemned_allocated = e->condemned_allocated;
    h->pinned_allocated = e->pinned_allocated;
    h->pinned_allocated_advance = e->pinned_allocated_advance;
    h->running_free_list_efficiency = e->running_free_list_efficiency;
    h->condemn_reasons0 = e->condemn_reasons0;
    h->condemn_reasons1 = e->condemn_reasons1;
    h->compact_mechanisms = e->compact_mechanisms;
    h->expand_mechanisms = e->expand_mechanisms;
    h->extra_gen0_commit = e->extra_gen0_commit;
    gcev_stats_decode_condemned(e->condemn_reasons0, e->condemn_reasons1, 1, 3, h->condemned_groups);
    memcpy(h->gens, gd, sizeof gd);
}

static void global_history(gcev_stats *s, stats_proc *p, const gcev_gc_global_heap_history *e, int is_private,
                           uint64_t tid)
{
    if ((e->present & GCEV_GC_GLOBAL_HEAP_HISTORY_HAS_NUM_HEAPS) && !p->has_first_num_heaps) {
        p->first_num_heaps = e->num_heaps;
        p->has_first_num_heaps = 1;
    }
    long gi = gcev_stats_detail_target(s, p, tid, STATS_Q_LATE_HISTORY);
    if (gi < 0) {
        return;
    }
    gcev_stats_gc *g = &s->gcs[gi];
    (void)is_private;
    if (e->present & GCEV_GC_GLOBAL_HEAP_HISTORY_HAS_NUM_HEAPS) {
        g->heap_count = e->num_heaps;
        g->present |= GCEV_STATS_GC_HAS_HEAP_COUNT;
    }
    if (e->present & GCEV_GC_GLOBAL_HEAP_HISTORY_HAS_GLOBAL_MECHANISMS) {
        g->global_mechanisms = e->global_mechanisms;
        g->present |= GCEV_STATS_GC_HAS_MECHANISMS;
    }
    g->final_youngest_desired = e->final_youngest_desired;
    g->condemned_generation = e->condemned_generation;
    g->gen0_reduction_count = e->gen0_reduction_count;
    g->global_reason = e->reason;
    g->present |= GCEV_STATS_GC_HAS_GLOBAL_HISTORY;
    if (e->present & GCEV_GC_GLOBAL_HEAP_HISTORY_HAS_MEMORY_PRESSURE) {
        g->pause_mode = e->pause_mode;
        g->memory_pressure = e->memory_pressure;
        g->present |= GCEV_STATS_GC_HAS_PAUSE_MODE;
    }
    if (e->present & GCEV_GC_GLOBAL_HEAP_HISTORY_HAS_CONDEMN_REASONS1) {
        g->condemn_reasons0 |= e->condemn_reasons0;
        g->condemn_reasons1 |= e->condemn_reasons1;
        g->global_condemn_reasons0 = e->condemn_reasons0;
        g->global_condemn_reasons1 = e->condemn_reasons1;
        gcev_stats_decode_condemned(e->condemn_reasons0, e->condemn_reasons1, 1, 3,
                                    g->global_condemned_groups);
        g->present |= GCEV_STATS_GC_HAS_CONDEMN_REASONS | GCEV_STATS_GC_HAS_GLOBAL_CONDEMN;
    }
    if (e->present & GCEV_GC_GLOBAL_HEAP_HISTORY_HAS_VALUES) {
        /* TraceEvent's TimingInfo: Values[1..4] marks, [5] plan, then [6] relocate and [7]
         * compact for a compacting GC, else [6] sweep (TMP ProcessGlobalHistory) */
        uint32_t t[16];
        uint32_t n = e->values.count < 16 ? e->values.count : 16;
        for (uint32_t i = 0; i < n; i++) {
            gcev_gc_global_heap_history_values v;
            if (gcev_gc_global_heap_history_values_at(&e->values, i, &v, NULL) != GCEV_OK) {
                return;
            }
            t[i] = v.time;
        }
        g->phase_present = 0;
        memset(g->phase_us, 0, sizeof g->phase_us);
        static const int mark_slot[5] = {
            GCEV_STATS_PHASE_MARK_SIZED_REF, GCEV_STATS_PHASE_MARK_ROOT, GCEV_STATS_PHASE_MARK_SHORT_WEAK,
            GCEV_STATS_PHASE_MARK_SCAN_FINALIZATION, GCEV_STATS_PHASE_MARK_LONG_WEAK};
        for (uint32_t i = 0; i < n && i < 5; i++) {
            g->phase_us[mark_slot[i]] = t[i];
            g->phase_present |= (uint16_t)(1u << mark_slot[i]);
        }
        int compacting = (g->global_mechanisms & 2) != 0; /* GCGlobalMechanisms Compaction */
        const int later[3] = {GCEV_STATS_PHASE_PLAN,
                              compacting ? GCEV_STATS_PHASE_RELOCATE : GCEV_STATS_PHASE_SWEEP,
                              GCEV_STATS_PHASE_COMPACT};
        for (uint32_t i = 5; i < n && i < 8 && (compacting || i < 7); i++) {
            g->phase_us[later[i - 5]] = t[i];
            g->phase_present |= (uint16_t)(1u << later[i - 5]);
        }
        g->present |= GCEV_STATS_GC_HAS_PHASES;
    }
}

static void on_private_global_history(gcev_stats *s, stats_proc *p,
                                      const gcev_private_gc_global_heap_history *e, uint64_t tid)
{
    gcev_gc_global_heap_history h;
    memset(&h, 0, sizeof h);
    h.final_youngest_desired = e->final_youngest_desired;
    h.num_heaps = e->num_heaps;
    h.condemned_generation = e->condemned_generation;
    h.gen0_reduction_count = e->gen0_reduction_count;
    h.reason = e->reason;
    h.global_mechanisms = e->global_mechanisms;
    if (e->present & GCEV_PRIVATE_GC_GLOBAL_HEAP_HISTORY_HAS_NUM_HEAPS) {
        h.present |= GCEV_GC_GLOBAL_HEAP_HISTORY_HAS_NUM_HEAPS;
    }
    if (e->present & GCEV_PRIVATE_GC_GLOBAL_HEAP_HISTORY_HAS_GLOBAL_MECHANISMS) {
        h.present |= GCEV_GC_GLOBAL_HEAP_HISTORY_HAS_GLOBAL_MECHANISMS;
    }
    global_history(s, p, &h, 1, tid);
}

/* ---- marks -------------------------------------------------------------------- */

/* A mark event of root kind `kind` on heap `heap`; promoted < 0: the event has no byte count.
 * create: the event may start the heap's mark record (GCMarkWithType, the stack-roots events). */
static void mark(gcev_stats *s, stats_proc *p, uint32_t heap, uint32_t kind, int64_t promoted, int create,
                 double ms)
{
    long gi = gcev_stats_current(s, p);
    if (gi < 0 || kind >= GCEV_STATS_ROOT_KINDS) {
        return;
    }
    stats_gcx *x = &s->gcx[gi];
    stats_heap *r = NULL;
    for (uint32_t i = 0; i < x->nheaps; i++) {
        if (x->heaps[i].pub.heap == heap) {
            r = &x->heaps[i];
        }
    }
    if ((!r || !(r->pub.present & GCEV_STATS_HEAPREC_HAS_MARKS)) && !create) {
        return; /* TraceEvent records these only on a heap whose stack-roots mark it saw */
    }
    if (!r && !(r = gcev_stats_heap_rec(s, gi, heap))) {
        return;
    }
    gcev_stats_heap *h = &r->pub;
    h->present |= GCEV_STATS_HEAPREC_HAS_MARKS;
    r->mark_ts[kind] = ms;
    h->mark_present |= (uint16_t)(1u << kind);
    if (promoted >= 0) {
        h->mark_promoted[kind] = (uint64_t)promoted;
        h->mark_promoted_present |= (uint16_t)(1u << kind);
    }
    s->gcs[gi].present |= GCEV_STATS_GC_HAS_MARKS;
}

/* The public twins of the private mark events (25-28): TraceEvent ignores them. */
static void public_mark(gcev_stats *s, stats_proc *p, uint32_t heap, uint32_t kind, double ms)
{
    long gi = gcev_stats_current(s, p);
    if (gi >= 0) {
        s->gcx[gi].quirks |= STATS_Q_PUBLIC_MARKS;
    }
    if (!s->compat) {
        mark(s, p, heap, kind, -1, kind == 0, ms);
    }
}

/* ---- pinning -------------------------------------------------------------------- */

static void add_pin(gcev_stats *s, long gi, int plug, uint64_t a, uint64_t b)
{
    stats_gcx *x = &s->gcx[gi];
    stats_pin **list = plug ? &x->plugs : &x->pins;
    uint32_t *n = plug ? &x->nplugs : &x->npins;
    size_t *cap = plug ? &x->cap_plugs : &x->cap_pins;
    if (*n >= s->opts.max_pins) {
        s->gcs[gi].flags |= GCEV_STATS_GC_PINS_DROPPED;
        s->sum.limit_hit = 1;
        return;
    }
    if (!gcev_reserve((void **)list, cap, (size_t)*n + 1, sizeof **list)) {
        s->gcs[gi].flags |= GCEV_STATS_GC_PINS_DROPPED;
        return;
    }
    stats_pin *e = &(*list)[(*n)++];
    e->a = a;
    e->b = b;
    e->seq = *n;
    e->mark = 0;
}

static void on_pin(gcev_stats *s, stats_proc *p, const gcev_pin_object_at_gc_time *e)
{
    long gi = gcev_stats_current(s, p);
    if (gi < 0) {
        return;
    }
    s->gcs[gi].pinned_events++;
    s->gcs[gi].pinned_bytes += e->object_size;
    if (!(s->gcs[gi].flags & GCEV_STATS_GC_COMPLETE)) {
        add_pin(s, gi, 0, e->object_id, e->object_size);
    }
}

static void on_plug(gcev_stats *s, stats_proc *p, const gcev_private_pin_plug_at_gc_time *e)
{
    long gi = gcev_stats_current(s, p);
    if (gi >= 0 && !(s->gcs[gi].flags & GCEV_STATS_GC_COMPLETE)) {
        add_pin(s, gi, 1, e->plug_start, e->plug_end);
    }
}

/* ---- LOH compaction, fit buckets, joins --------------------------------------------- */

static void on_loh_compact(gcev_stats *s, stats_proc *p, const gcev_gcloh_compact *e)
{
    long gi = gcev_stats_current(s, p);
    if (gi < 0 || !(e->present & GCEV_GCLOH_COMPACT_HAS_VALUES)) {
        return;
    }
    gcev_stats_gc *g = &s->gcs[gi];
    for (uint32_t i = 0; i < e->values.count; i++) {
        gcev_gcloh_compact_values v;
        if (gcev_gcloh_compact_values_at(&e->values, i, &v, NULL) != GCEV_OK) {
            break;
        }
        /* element i is heap i's: TraceEvent appends them to one list */
        uint32_t heap = g->loh_compact_heaps;
        g->loh_compact_heaps++;
        g->loh_compact_time_plan += v.time_plan;
        g->loh_compact_time_compact += v.time_compact;
        g->loh_compact_time_relocate += v.time_relocate;
        g->loh_compact_total_refs += v.total_refs;
        g->loh_compact_zero_refs += v.zero_refs;
        g->present |= GCEV_STATS_GC_HAS_LOH_COMPACT;
        stats_heap *r = gcev_stats_heap_rec(s, gi, heap);
        if (r) {
            r->pub.present |= GCEV_STATS_HEAPREC_HAS_LOH_COMPACT;
            r->pub.loh_time_plan = v.time_plan;
            r->pub.loh_time_compact = v.time_compact;
            r->pub.loh_time_relocate = v.time_relocate;
            r->pub.loh_total_refs = v.total_refs;
            r->pub.loh_zero_refs = v.zero_refs;
        }
    }
}

static void on_fit_buckets(gcev_stats *s, stats_proc *p, const gcev_gc_fit_bucket_info *e)
{
    long gi = gcev_stats_current(s, p);
    if (gi < 0 || !(e->present & GCEV_GC_FIT_BUCKET_INFO_HAS_VALUES)) {
        return;
    }
    gcev_stats_gc *g = &s->gcs[gi];
    stats_gcx *x = &s->gcx[gi];
    for (uint32_t i = 0; i < e->values.count; i++) {
        gcev_gc_fit_bucket_info_values v;
        if (gcev_gc_fit_bucket_info_values_at(&e->values, i, &v, NULL) != GCEV_OK) {
            break;
        }
        if (!gcev_reserve((void **)&x->buckets, &x->cap_buckets, (size_t)g->fit_buckets + 1,
                          sizeof *x->buckets)) {
            return;
        }
        gcev_stats_fit_bucket *b = &x->buckets[g->fit_buckets++];
        b->kind = e->bucket_kind;
        b->index = v.index;
        b->count = v.count;
        b->size = v.size;
        g->present |= GCEV_STATS_GC_HAS_FIT_BUCKETS;
    }
}

static void on_join(gcev_stats *s, stats_proc *p, uint32_t heap, uint32_t join_time, double ms)
{
    long gi = gcev_stats_current(s, p);
    if (gi < 0) {
        return;
    }
    gcev_stats_gc *g = &s->gcs[gi];
    g->joins++;
    g->present |= GCEV_STATS_GC_HAS_JOINS;
    if (heap >= JOIN_HEAP_RESTART) {
        g->join_restarts++;
        return;
    }
    stats_heap *r = gcev_stats_heap_rec(s, gi, heap);
    if (!r) {
        return;
    }
    r->pub.present |= GCEV_STATS_HEAPREC_HAS_JOINS;
    if (join_time == 0) { /* GcJoinTime Start: the heap's thread waits */
        r->join_start_ms = ms;
        r->join_open = 1;
    } else if (r->join_open) {
        double w = ms - r->join_start_ms;
        r->join_open = 0;
        r->pub.joins++;
        r->pub.join_ms += w;
        if (w > r->pub.join_max_ms) {
            r->pub.join_max_ms = w;
        }
    }
}

/* ---- background GC ------------------------------------------------------------- */

static void bgc_event(gcev_stats *s, stats_proc *p, unsigned which, double ms, uint64_t tid)
{
    if (p->current_bgc < 0) {
        return;
    }
    gcev_stats_note_bgc_thread(s, p, tid); /* the BGC's phases are logged by its own thread */
    gcev_stats_gc *g = &s->gcs[p->current_bgc];
    /* BGCCurrentPhase (TMP L1037-1085) */
    static const int phase_of[GCEV_STATS_BGC_EVENTS] = {0, 1, -1, 2, -1, 3, -1, -1, -1, -1};
    if (phase_of[which] >= 0) {
        g->bgc_phase = (uint32_t)phase_of[which];
    }
    if (!(g->bgc_phase_present & (1u << which))) {
        g->bgc_phase_ms[which] = ms;
        g->bgc_phase_present |= (uint16_t)(1u << which);
    }
    g->present |= GCEV_STATS_GC_HAS_BGC_PHASE;
}

static void on_revisit(gcev_stats *s, stats_proc *p, const gcev_private_bgc_revisit *e)
{
    long gi = gcev_stats_current(s, p);
    if (gi >= 0 && gi != p->current_bgc) {
        s->gcx[gi].quirks |= STATS_Q_REVISIT_TARGET;
        if (!s->compat) {
            gi = p->current_bgc;
        }
    }
    if (gi < 0) {
        return;
    }
    gcev_stats_gc *g = &s->gcs[gi];
    int state = g->bgc_phase == 1 ? 0 : 1; /* concurrent while in the 1st concurrent phase */
    int large = e->is_large == 1 ? 1 : 0;
    g->bgc_revisit_pages[state][large] += e->pages;
    g->bgc_revisit_objects[state][large] += e->objects;
    g->present |= GCEV_STATS_GC_HAS_BGC_REVISIT;
}

/* TMP GetLastBGC */
static long last_bgc(const gcev_stats *s, const stats_proc *p)
{
    if (p->current_bgc >= 0) {
        return p->current_bgc;
    }
    if (p->last_completed >= 0 && is_bgc(&s->gcs[p->last_completed])) {
        return p->last_completed;
    }
    for (size_t k = p->ngcs; k-- > 0;) {
        if (is_bgc(&s->gcs[p->gcs[k]])) {
            return (long)p->gcs[k];
        }
    }
    return -1;
}

/* TMP AddLOHWaitThreadInfo: one wait per thread and BGC, for reasons GetLOHSeg (9),
 * AllocDuringSweep (10) and AllocDuringBGC (11). */
static void loh_wait(gcev_stats *s, long gi, uint64_t tid, uint32_t reason, int begin, double ms)
{
    if (gi < 0 || reason < 9 || reason > 11) {
        return;
    }
    gcev_stats_gc *g = &s->gcs[gi];
    stats_gcx *x = &s->gcx[gi];
    for (uint32_t i = 0; i < g->loh_waits; i++) {
        if (x->waits[i].thread_id == tid) {
            if (!begin) {
                x->waits[i].end_ms = ms;
                x->waits[i].has_end = 1;
            }
            return; /* a second begin: the window where the BGC ends, discarded */
        }
    }
    if (!gcev_reserve_from((void **)&x->waits, &x->cap_waits, (size_t)g->loh_waits + 1, sizeof *x->waits,
                           4)) {
        return;
    }
    gcev_stats_loh_wait *w = &x->waits[g->loh_waits++];
    memset(w, 0, sizeof *w);
    w->thread_id = tid;
    if (begin) {
        w->reason = reason;
        w->begin_ms = ms;
        w->has_begin = 1;
    } else {
        w->end_ms = ms;
        w->has_end = 1;
    }
    g->present |= GCEV_STATS_GC_HAS_LOH_WAITS;
}

/* ---- GCDynamicEvent ------------------------------------------------------------- */

static void on_dynamic(gcev_stats *s, stats_proc *p, const gcev_event *outer, uint64_t tid)
{
    gcev_event in;
    gcev_status st = gcev_decode_dynamic(outer, &in, NULL);
    long gi = gcev_stats_detail_target(s, p, tid, STATS_Q_LATE_HISTORY);
    if (gi < 0) {
        return;
    }
    gcev_stats_gc *g = &s->gcs[gi];
    if (st == GCEV_OK && in.family == GCEV_FAMILY_DYNAMIC_COMMITTED_USAGE) {
        const gcev_dynamic_committed_usage *c = &in.u.dynamic_committed_usage;
        int before = !(g->present & GCEV_STATS_GC_HAS_COMMITTED_BEFORE);
        gcev_stats_committed *d = before ? &g->committed_before : &g->committed_after;
        d->version = c->version;
        d->in_use = c->total_committed_in_use;
        d->in_global_decommit = c->total_committed_in_global_decommit;
        d->in_free = c->total_committed_in_free;
        d->in_global_free = c->total_committed_in_global_free;
        d->bookkeeping = c->total_bookkeeping_committed;
        g->present |= before ? GCEV_STATS_GC_HAS_COMMITTED_BEFORE : GCEV_STATS_GC_HAS_COMMITTED_AFTER;
        return;
    }
    g->dynamic_events++;
    g->present |= GCEV_STATS_GC_HAS_DYNAMIC;
    if (st == GCEV_OK && in.family == GCEV_FAMILY_DYNAMIC_SIZE_ADAPTATION_TUNING) {
        g->datas_heap_count = in.u.dynamic_size_adaptation_tuning.new_n_heaps;
        g->present |= GCEV_STATS_GC_HAS_DATAS;
    } else if (st == GCEV_OK && in.family == GCEV_FAMILY_DYNAMIC_HEAP_COUNT_TUNING) {
        g->datas_heap_count = in.u.dynamic_heap_count_tuning.new_heap_count;
        g->present |= GCEV_STATS_GC_HAS_DATAS;
    }
}

/* ---- dispatch -------------------------------------------------------------------- */

int gcev_stats_heap_event(gcev_stats *s, stats_proc *p, const gcev_event *ev, double ms, uint64_t tid)
{
    const gcev_union *u = &ev->u;
    switch (ev->family) {
    case GCEV_FAMILY_GC_PER_HEAP_HISTORY:
        on_per_heap_history(s, p, &u->gc_per_heap_history, tid);
        return 1;
    case GCEV_FAMILY_PRIVATE_GC_PER_HEAP_HISTORY:
        p->version_mismatch = 1; /* V1/V2 carry no data: TraceEvent's VersionRecognized is false */
        return 1;
    case GCEV_FAMILY_GC_GLOBAL_HEAP_HISTORY:
        global_history(s, p, &u->gc_global_heap_history, 0, tid);
        return 1;
    case GCEV_FAMILY_PRIVATE_GC_GLOBAL_HEAP_HISTORY:
        on_private_global_history(s, p, &u->private_gc_global_heap_history, tid);
        return 1;
    case GCEV_FAMILY_GC_MARK_WITH_TYPE:
        mark(s, p, u->gc_mark_with_type.heap_num, u->gc_mark_with_type.type,
             (int64_t)u->gc_mark_with_type.bytes, 1, ms);
        return 1;
    case GCEV_FAMILY_PRIVATE_PRV_GC_MARK_STACK_ROOTS:
        mark(s, p, u->private_prv_gc_mark_stack_roots.heap_num, 0, -1, 1, ms);
        return 1;
    case GCEV_FAMILY_PRIVATE_PRV_GC_MARK_FINALIZE_QUEUE_ROOTS:
        mark(s, p, u->private_prv_gc_mark_finalize_queue_roots.heap_num, 1, -1, 0, ms);
        return 1;
    case GCEV_FAMILY_PRIVATE_PRV_GC_MARK_HANDLES:
        mark(s, p, u->private_prv_gc_mark_handles.heap_num, 2, -1, 0, ms);
        return 1;
    case GCEV_FAMILY_PRIVATE_PRV_GC_MARK_CARDS:
        mark(s, p, u->private_prv_gc_mark_cards.heap_num, 3, -1, 0, ms);
        return 1;
    case GCEV_FAMILY_GC_MARK_STACK_ROOTS:
        public_mark(s, p, u->gc_mark_stack_roots.heap_num, 0, ms);
        return 1;
    case GCEV_FAMILY_GC_MARK_FINALIZE_QUEUE_ROOTS:
        public_mark(s, p, u->gc_mark_finalize_queue_roots.heap_num, 1, ms);
        return 1;
    case GCEV_FAMILY_GC_MARK_HANDLES:
        public_mark(s, p, u->gc_mark_handles.heap_num, 2, ms);
        return 1;
    case GCEV_FAMILY_GC_MARK_OLDER_GENERATION_ROOTS:
        public_mark(s, p, u->gc_mark_older_generation_roots.heap_num, 3, ms);
        return 1;
    case GCEV_FAMILY_PIN_OBJECT_AT_GC_TIME:
        on_pin(s, p, &u->pin_object_at_gc_time);
        return 1;
    case GCEV_FAMILY_PRIVATE_PIN_PLUG_AT_GC_TIME:
        on_plug(s, p, &u->private_pin_plug_at_gc_time);
        return 1;
    case GCEV_FAMILY_GCLOH_COMPACT:
        on_loh_compact(s, p, &u->gcloh_compact);
        return 1;
    case GCEV_FAMILY_GC_FIT_BUCKET_INFO:
        on_fit_buckets(s, p, &u->gc_fit_bucket_info);
        return 1;
    case GCEV_FAMILY_GC_JOIN:
        on_join(s, p, u->gc_join.heap, u->gc_join.join_time, ms);
        return 1;
    case GCEV_FAMILY_PRIVATE_GC_JOIN:
        on_join(s, p, u->private_gc_join.heap, u->private_gc_join.join_time, ms);
        return 1;
    case GCEV_FAMILY_PRIVATE_BGC_BEGIN:
        bgc_event(s, p, GCEV_STATS_BGC_BEGIN, ms, tid);
        return 1;
    case GCEV_FAMILY_PRIVATE_BGC1ST_NON_CON_END:
        bgc_event(s, p, GCEV_STATS_BGC_1ST_NONCON_END, ms, tid);
        return 1;
    case GCEV_FAMILY_PRIVATE_BGC1ST_CON_END:
        bgc_event(s, p, GCEV_STATS_BGC_1ST_CON_END, ms, tid);
        return 1;
    case GCEV_FAMILY_PRIVATE_BGC2ND_NON_CON_BEGIN:
        bgc_event(s, p, GCEV_STATS_BGC_2ND_NONCON_BEGIN, ms, tid);
        return 1;
    case GCEV_FAMILY_PRIVATE_BGC2ND_NON_CON_END:
        bgc_event(s, p, GCEV_STATS_BGC_2ND_NONCON_END, ms, tid);
        return 1;
    case GCEV_FAMILY_PRIVATE_BGC2ND_CON_BEGIN:
        bgc_event(s, p, GCEV_STATS_BGC_2ND_CON_BEGIN, ms, tid);
        return 1;
    case GCEV_FAMILY_PRIVATE_BGC2ND_CON_END:
        bgc_event(s, p, GCEV_STATS_BGC_2ND_CON_END, ms, tid);
        return 1;
    case GCEV_FAMILY_PRIVATE_BGC_PLAN_END:
        bgc_event(s, p, GCEV_STATS_BGC_PLAN_END, ms, tid);
        return 1;
    case GCEV_FAMILY_PRIVATE_BGC_SWEEP_END:
        bgc_event(s, p, GCEV_STATS_BGC_SWEEP_END, ms, tid);
        return 1;
    case GCEV_FAMILY_PRIVATE_BGC1ST_SWEEP_END:
        bgc_event(s, p, GCEV_STATS_BGC_1ST_SWEEP_END, ms, tid);
        return 1;
    case GCEV_FAMILY_PRIVATE_BGC_REVISIT:
        on_revisit(s, p, &u->private_bgc_revisit);
        return 1;
    case GCEV_FAMILY_PRIVATE_BGC_ALLOC_WAIT_BEGIN:
        loh_wait(s, p->current_bgc, tid, u->private_bgc_alloc_wait_begin.reason, 1, ms);
        return 1;
    case GCEV_FAMILY_PRIVATE_BGC_ALLOC_WAIT_END:
        loh_wait(s, last_bgc(s, p), tid, u->private_bgc_alloc_wait_end.reason, 0, ms);
        return 1;
    case GCEV_FAMILY_GC_DYNAMIC_EVENT:
        on_dynamic(s, p, ev, tid);
        return 1;
    case GCEV_FAMILY_FINALIZE_OBJECT:
        p->finalized++;
        return 1;
    default:
        return 0;
    }
}
