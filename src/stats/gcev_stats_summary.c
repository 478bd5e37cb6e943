/* SPDX-License-Identifier: MIT */
/*
 * Summaries: per condemned generation and for the whole trace, computed once
 * by gcev_stats_finish(); plus the result accessors. Rates are only defined
 * when the trace spans time, and a mean only over the GCs whose value is
 * known (absent is absent, never NaN: see include/gcev/gcev_stats.h).
 */
#include "gcev_stats_internal.h"

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
        if (!(g->present & GCEV_STATS_GC_HAS_PROMOTED) && (g->present & GCEV_STATS_GC_HAS_MARKS)) {
            /* without HeapStats, what the mark phase promoted is the best figure */
            uint64_t b = 0;
            for (int k = 0; k < GCEV_STATS_ROOT_KINDS; k++) {
                b += g->marks[k].bytes;
            }
            g->promoted_bytes = b;
            g->present |= GCEV_STATS_GC_HAS_PROMOTED;
        }
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
        gs->duration_total_ms += g->duration_ms;
    }
}

void gcev_stats_summary_finish(gcev_stats *s)
{
    gcev_stats_summary *sum = &s->sum;
    resolve_trace_wide_bits(s);
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

const char *gcev_stats_gc_type_name(uint32_t type)
{
    static const char *const names[] = {"blocking", "background", "foreground"};
    return type < 3 ? names[type] : NULL;
}

const char *gcev_stats_gen_name(unsigned gen)
{
    static const char *const names[GCEV_STATS_GENS] = {"gen0", "gen1", "gen2", "loh", "poh"};
    return gen < GCEV_STATS_GENS ? names[gen] : NULL;
}

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

uint64_t gcev_stats_family_count(const gcev_stats *s, uint16_t family)
{
    return s && family < GCEV_FAMILY_COUNT_ ? s->family_counts[family] : 0;
}
