/* SPDX-License-Identifier: MIT */
/*
 * Survived bytes per AppDomain (AppDomainMemSurvived) after the last full
 * blocking GC: the value ICLRAppDomainResourceMonitor::GetCurrentSurvived
 * returns in-process. The runtime logs one event per AppDomain after a GC;
 * only those following a blocking gen2 GC describe the whole heap, so each new
 * full blocking GC replaces the table.
 */
#include <stdlib.h>

#include "gcev_stats_internal.h"

static int is_full_blocking(const gcev_stats_gc *g)
{
    return (g->present & GCEV_STATS_GC_HAS_GENERATION) && g->generation == 2 &&
           (g->present & GCEV_STATS_GC_HAS_END) &&
           !((g->present & GCEV_STATS_GC_HAS_TYPE) && g->type == GCEV_STATS_BACKGROUND);
}

gcev_status gcev_stats_survived_event(gcev_stats *s, stats_proc *p, const gcev_app_domain_mem_survived *e)
{
    if (p->last_ended < 0 || !is_full_blocking(&s->gcs[p->last_ended])) {
        return GCEV_OK;
    }
    const gcev_stats_gc *g = &s->gcs[p->last_ended];
    if (!s->has_ads || s->ads_gc != g->number) {
        s->nads = 0;
        s->ads_gc = g->number;
        s->has_ads = 1;
    }
    s->sum.survived_gc = g->number;
    s->sum.process_survived = e->process_survived;
    for (size_t i = 0; i < s->nads; i++) {
        if (s->ads[i].app_domain_id == e->app_domain_id) {
            s->ads[i].survived = e->survived;
            return GCEV_OK;
        }
    }
    if (s->nads >= s->opts.max_app_domains) {
        s->sum.limit_hit = 1;
        return GCEV_OK;
    }
    if (!s->ads) {
        /* one allocation for the whole run: AppDomains are few (one on .NET Core) */
        s->ads = malloc(s->opts.max_app_domains * sizeof *s->ads);
        if (!s->ads) {
            return GCEV_E_NOMEM;
        }
    }
    s->ads[s->nads].app_domain_id = e->app_domain_id;
    s->ads[s->nads].survived = e->survived;
    s->nads++;
    return GCEV_OK;
}

size_t gcev_stats_appdomain_count(const gcev_stats *s)
{
    return s ? s->nads : 0;
}

const gcev_stats_appdomain *gcev_stats_appdomain_at(const gcev_stats *s, size_t i)
{
    return s && i < s->nads ? &s->ads[i] : NULL;
}
