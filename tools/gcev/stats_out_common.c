/* SPDX-License-Identifier: MIT */
/* What the three gcev stats formats share. */
#include <string.h>

#include "stats_out.h"

const uint16_t stats_seen_families[] = {
    GCEV_FAMILY_GC_START,
    GCEV_FAMILY_GC_END,
    GCEV_FAMILY_GC_SUSPEND_EE_BEGIN,
    GCEV_FAMILY_GC_SUSPEND_EE_END,
    GCEV_FAMILY_GC_RESTART_EE_BEGIN,
    GCEV_FAMILY_GC_RESTART_EE_END,
    GCEV_FAMILY_GC_HEAP_STATS,
    GCEV_FAMILY_GC_PER_HEAP_HISTORY,
    GCEV_FAMILY_GC_GLOBAL_HEAP_HISTORY,
    GCEV_FAMILY_GC_MARK_WITH_TYPE,
    GCEV_FAMILY_GC_ALLOCATION_TICK,
    GCEV_FAMILY_PIN_OBJECT_AT_GC_TIME,
    GCEV_FAMILY_GCLOH_COMPACT,
    GCEV_FAMILY_GC_CREATE_SEGMENT,
    GCEV_FAMILY_GC_FREE_SEGMENT,
    GCEV_FAMILY_SET_GC_HANDLE,
    GCEV_FAMILY_DESTROY_GC_HANDLE,
    GCEV_FAMILY_APP_DOMAIN_MEM_SURVIVED,
};
const size_t stats_seen_family_count = sizeof stats_seen_families / sizeof stats_seen_families[0];

const char *stats_drop_warning(const stats_report *r)
{
    if (gcev_stats_get_summary(r->s)->dropped_events == 0) {
        return NULL;
    }
    return "events were dropped: GC statistics and segment/handle pairing may be incomplete";
}

const char *stats_skip_warning(const stats_report *r)
{
    if (gcev_stats_get_summary(r->s)->skipped_ranges == 0) {
        return NULL;
    }
    return "damaged parts of the trace were skipped (--keep-going): GC statistics and segment/handle "
           "pairing may be incomplete";
}

int stats_complete(const stats_report *r)
{
    return !stats_drop_warning(r) && !stats_skip_warning(r) && !r->read_error &&
           !gcev_stats_get_summary(r->s)->limit_hit;
}

int stats_selected(const stats_report *r, const gcev_stats_gc *g)
{
    return (!r->one_gc || g->number == r->gc_number) && stats_process_selected(r, g->process_id);
}

int stats_process_selected(const stats_report *r, uint32_t process_id)
{
    return !r->one_process || process_id == r->process_id;
}

int stats_heap_total(const gcev_stats *s, const gcev_stats_gc *g, uint32_t bit, size_t member_offset,
                     uint64_t *out)
{
    int any = 0;
    *out = 0;
    for (unsigned i = 0; i < GCEV_STATS_GENS; i++) {
        const gcev_stats_gen_heap *h = gcev_stats_gc_gen_at(s, g, i);
        if (h->present & bit) {
            uint64_t v;
            memcpy(&v, (const unsigned char *)h + member_offset, sizeof v);
            *out += v;
            any = 1;
        }
    }
    return any;
}
