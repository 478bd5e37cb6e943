/* SPDX-License-Identifier: MIT */
/*
 * Per-GC detail: heap sizes and fragmentation (GCPerHeapHistory, GCHeapStats),
 * global settings (GCGlobalHeapHistory), mark times (GCMarkWithType), pinning
 * (PinObjectAtGCTime) and LOH compaction (GCLOHCompact).
 *
 * Attribution: the histories, marks and pins are logged while the GC runs, so
 * they belong to the open GC of their thread, else the innermost open GC;
 * GCHeapStats is logged after GCEnd, so it belongs to the GC that ended last
 * (TraceEvent does the same).
 */
#include "gcev_stats_internal.h"

static void on_heap_stats(gcev_stats *s, const gcev_gc_heap_stats *e, uint64_t tid)
{
    gcev_stats_gc *g = NULL;
    if (s->last_ended >= 0 && !(s->gcs[s->last_ended].present & GCEV_STATS_GC_HAS_HEAP_STATS)) {
        g = &s->gcs[s->last_ended];
    } else {
        g = gcev_stats_current_gc(s, tid);
    }
    if (!g) {
        return;
    }
    const uint64_t size[GCEV_STATS_GENS] = {e->generation_size0, e->generation_size1, e->generation_size2,
                                            e->generation_size3, e->generation_size4};
    const uint64_t prom[GCEV_STATS_GENS] = {e->total_promoted_size0, e->total_promoted_size1,
                                            e->total_promoted_size2, e->total_promoted_size3,
                                            e->total_promoted_size4};
    /* present bits of GenerationSizeN / TotalPromotedSizeN: 0,2,4,6,14 / 1,3,5,7,15 */
    static const uint64_t size_bit[GCEV_STATS_GENS] = {
        GCEV_GC_HEAP_STATS_HAS_GENERATION_SIZE0, GCEV_GC_HEAP_STATS_HAS_GENERATION_SIZE1,
        GCEV_GC_HEAP_STATS_HAS_GENERATION_SIZE2, GCEV_GC_HEAP_STATS_HAS_GENERATION_SIZE3,
        GCEV_GC_HEAP_STATS_HAS_GENERATION_SIZE4};
    static const uint64_t prom_bit[GCEV_STATS_GENS] = {
        GCEV_GC_HEAP_STATS_HAS_TOTAL_PROMOTED_SIZE0, GCEV_GC_HEAP_STATS_HAS_TOTAL_PROMOTED_SIZE1,
        GCEV_GC_HEAP_STATS_HAS_TOTAL_PROMOTED_SIZE2, GCEV_GC_HEAP_STATS_HAS_TOTAL_PROMOTED_SIZE3,
        GCEV_GC_HEAP_STATS_HAS_TOTAL_PROMOTED_SIZE4};
    uint64_t promoted = 0;
    int any_promoted = 0;
    for (int i = 0; i < GCEV_STATS_GENS; i++) {
        gcev_stats_gen_heap *h = &g->gens[i];
        /* PerHeapHistory, when present, already gave the same figure per heap */
        if ((e->present & size_bit[i]) && !(h->present & GCEV_STATS_HEAP_HAS_SIZE_AFTER)) {
            h->size_after = size[i];
            h->present |= GCEV_STATS_HEAP_HAS_SIZE_AFTER;
        }
        if (e->present & prom_bit[i]) {
            h->promoted = prom[i];
            h->present |= GCEV_STATS_HEAP_HAS_PROMOTED;
            promoted += prom[i];
            any_promoted = 1;
        }
    }
    if (any_promoted) {
        g->promoted_bytes = promoted;
        g->present |= GCEV_STATS_GC_HAS_PROMOTED;
    }
    if (e->present & GCEV_GC_HEAP_STATS_HAS_PINNED_OBJECT_COUNT) {
        g->pinned_objects = e->pinned_object_count;
        g->present |= GCEV_STATS_GC_HAS_PINNED_OBJECTS;
    }
    if (e->present & GCEV_GC_HEAP_STATS_HAS_FINALIZATION_PROMOTED_COUNT) {
        g->finalization_promoted_count = e->finalization_promoted_count;
        g->present |= GCEV_STATS_GC_HAS_FINALIZATION;
    }
    g->present |= GCEV_STATS_GC_HAS_HEAP_STATS;
}

static void on_per_heap_history(gcev_stats *s, const gcev_gc_per_heap_history *e, uint64_t tid)
{
    gcev_stats_gc *g = gcev_stats_current_gc(s, tid);
    if (!g) {
        return;
    }
    g->heap_histories++;
    g->present |= GCEV_STATS_GC_HAS_HEAP_HISTORY;
    if (e->present & GCEV_GC_PER_HEAP_HISTORY_HAS_CONDEMN_REASONS1) {
        g->condemn_reasons0 |= e->condemn_reasons0;
        g->condemn_reasons1 |= e->condemn_reasons1;
        g->present |= GCEV_STATS_GC_HAS_CONDEMN_REASONS;
    }
    if (!(e->present & GCEV_GC_PER_HEAP_HISTORY_HAS_VALUES)) {
        return;
    }
    uint32_t n = e->values.count < GCEV_STATS_GENS ? e->values.count : GCEV_STATS_GENS;
    for (uint32_t i = 0; i < n; i++) {
        gcev_gc_per_heap_history_values v;
        if (gcev_gc_per_heap_history_values_at(&e->values, i, &v, NULL) != GCEV_OK) {
            return;
        }
        gcev_stats_gen_heap *h = &g->gens[i];
        h->size_before += v.size_before;
        h->size_after += v.size_after;
        h->frag_before += v.free_list_before + v.free_obj_before;
        h->frag_after += v.free_list_after + v.free_obj_after;
        h->present |= GCEV_STATS_HEAP_HAS_SIZE_BEFORE | GCEV_STATS_HEAP_HAS_SIZE_AFTER |
                      GCEV_STATS_HEAP_HAS_FRAG_BEFORE | GCEV_STATS_HEAP_HAS_FRAG_AFTER;
    }
}

static void on_global_heap_history(gcev_stats *s, const gcev_gc_global_heap_history *e, uint64_t tid)
{
    gcev_stats_gc *g = gcev_stats_current_gc(s, tid);
    if (!g) {
        return;
    }
    if (e->present & GCEV_GC_GLOBAL_HEAP_HISTORY_HAS_NUM_HEAPS) {
        g->heap_count = e->num_heaps;
        g->present |= GCEV_STATS_GC_HAS_HEAP_COUNT;
    }
    if (e->present & GCEV_GC_GLOBAL_HEAP_HISTORY_HAS_GLOBAL_MECHANISMS) {
        g->global_mechanisms = e->global_mechanisms;
        g->present |= GCEV_STATS_GC_HAS_MECHANISMS;
    }
    if (e->present & GCEV_GC_GLOBAL_HEAP_HISTORY_HAS_CONDEMN_REASONS1) {
        g->condemn_reasons0 |= e->condemn_reasons0;
        g->condemn_reasons1 |= e->condemn_reasons1;
        g->present |= GCEV_STATS_GC_HAS_CONDEMN_REASONS;
    }
}

/*
 * A heap logs one GCMarkWithType as it finishes each root kind, so the time
 * of a kind is the gap since that heap's previous mark event (or the GC's
 * start); the GC waits for its slowest heap, hence the maximum over heaps.
 */
static void on_mark(gcev_stats *s, const gcev_gc_mark_with_type *e, double ms, uint64_t tid)
{
    gcev_stats_gc *g = gcev_stats_current_gc(s, tid);
    if (!g) {
        return;
    }
    long idx = (long)(g - s->gcs);
    if (s->mark_gc != idx) {
        s->mark_gc = idx;
        for (int i = 0; i < STATS_MARK_HEAPS; i++) {
            s->mark_last[i] = g->start_ms;
        }
    }
    if (e->type >= GCEV_STATS_ROOT_KINDS) {
        return;
    }
    gcev_stats_mark *m = &g->marks[e->type];
    m->present = 1;
    m->bytes += e->bytes;
    if (e->heap_num < STATS_MARK_HEAPS) {
        double d = ms - s->mark_last[e->heap_num];
        s->mark_last[e->heap_num] = ms;
        if (d > m->ms) {
            m->ms = d;
        }
    }
    g->present |= GCEV_STATS_GC_HAS_MARKS;
}

static void on_pin(gcev_stats *s, const gcev_pin_object_at_gc_time *e, uint64_t tid)
{
    gcev_stats_gc *g = gcev_stats_current_gc(s, tid);
    if (g) {
        g->pinned_events++;
        g->pinned_bytes += e->object_size;
    }
}

static void on_loh_compact(gcev_stats *s, const gcev_gcloh_compact *e, uint64_t tid)
{
    gcev_stats_gc *g = gcev_stats_current_gc(s, tid);
    if (!g && s->last_ended >= 0) {
        g = &s->gcs[s->last_ended];
    }
    if (!g || !(e->present & GCEV_GCLOH_COMPACT_HAS_VALUES)) {
        return;
    }
    for (uint32_t i = 0; i < e->values.count; i++) {
        gcev_gcloh_compact_values v;
        if (gcev_gcloh_compact_values_at(&e->values, i, &v, NULL) != GCEV_OK) {
            break;
        }
        g->loh_compact_heaps++;
        g->loh_compact_time_plan += v.time_plan;
        g->loh_compact_time_compact += v.time_compact;
        g->loh_compact_time_relocate += v.time_relocate;
        g->loh_compact_total_refs += v.total_refs;
        g->loh_compact_zero_refs += v.zero_refs;
        g->present |= GCEV_STATS_GC_HAS_LOH_COMPACT;
    }
}

int gcev_stats_heap_event(gcev_stats *s, const gcev_event *ev, double ms, uint64_t tid)
{
    switch (ev->family) {
    case GCEV_FAMILY_GC_HEAP_STATS:
        on_heap_stats(s, &ev->u.gc_heap_stats, tid);
        return 1;
    case GCEV_FAMILY_GC_PER_HEAP_HISTORY:
        on_per_heap_history(s, &ev->u.gc_per_heap_history, tid);
        return 1;
    case GCEV_FAMILY_GC_GLOBAL_HEAP_HISTORY:
        on_global_heap_history(s, &ev->u.gc_global_heap_history, tid);
        return 1;
    case GCEV_FAMILY_GC_MARK_WITH_TYPE:
        on_mark(s, &ev->u.gc_mark_with_type, ms, tid);
        return 1;
    case GCEV_FAMILY_PIN_OBJECT_AT_GC_TIME:
        on_pin(s, &ev->u.pin_object_at_gc_time, tid);
        return 1;
    case GCEV_FAMILY_GCLOH_COMPACT:
        on_loh_compact(s, &ev->u.gcloh_compact, tid);
        return 1;
    default:
        return 0;
    }
}
