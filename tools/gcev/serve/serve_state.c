/* SPDX-License-Identifier: MIT */
/*
 * One process's metric state, fed by the stats model's GC-end callback: every value is a
 * member of the closed gcev_stats_gc record (its present bits say which), never a rule of
 * serve's own. Counters only grow; gauges hold the last GC that had the value.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "serve.h"

const char *const serve_state_names[SERVE_STATES] = {"attaching", "attached", "detached", "exited", "failed"};

static int is_finite_nonneg(double v)
{
    return isfinite(v) && v >= 0;
}

void serve_pm_on_gc(serve_pm *m, const gcev_stats_gc *g, const gcev_stats_gen_heap *const *gens)
{
    uint64_t p = g->present;
    unsigned gen = (p & GCEV_STATS_GC_HAS_GENERATION) && g->generation < 3 ? g->generation : 3;
    unsigned type = (p & GCEV_STATS_GC_HAS_TYPE) && g->type < 3 ? g->type : 3;
    unsigned reason = SERVE_REASONS - 1;
    if ((p & GCEV_STATS_GC_HAS_REASON) && g->reason < SERVE_REASONS - 1 && gcev_gc_reason_name(g->reason)) {
        reason = g->reason;
    }
    m->gcs[gen][type][reason]++;
    if (!(g->flags & GCEV_STATS_GC_COMPLETE)) {
        m->incomplete++;
    }
    if ((p & GCEV_STATS_GC_HAS_PAUSE) && is_finite_nonneg(g->pause_ms)) {
        double s = g->pause_ms / 1000.0;
        unsigned b = 0;
        while (b < SERVE_PAUSE_BUCKETS && s > serve_pause_bounds[b]) {
            b++;
        }
        m->pause_bucket[gen][type][b]++;
        m->pause_count[gen][type]++;
        m->pause_sum[gen][type] += s;
        /* the ratio's window, by the second of the trace's clock the pause started in */
        double at = (p & GCEV_STATS_GC_HAS_PAUSE_START) ? g->pause_start_ms : g->start_ms;
        if (isfinite(at) && at >= 0 && at < 9e15) {
            int64_t sec = (int64_t)(at / 1000.0);
            unsigned k = (unsigned)(sec % SERVE_WINDOW);
            if (m->win_sec[k] != sec || m->win_ms[k] < 0) {
                m->win_sec[k] = sec;
                m->win_ms[k] = 0;
            }
            m->win_ms[k] += g->pause_ms;
        }
    }
    if ((p & GCEV_STATS_GC_HAS_SUSPENSION) && is_finite_nonneg(g->suspension_ms)) {
        m->suspension_sum += g->suspension_ms / 1000.0;
    }
    if (p & GCEV_STATS_GC_HAS_PROMOTED) {
        m->promoted += g->promoted_bytes;
    }
    if ((p & GCEV_STATS_GC_HAS_ALLOCATED_SINCE) && g->allocated_since_last_gc >= 0) {
        m->allocated += (uint64_t)g->allocated_since_last_gc;
    } else if (p & GCEV_STATS_GC_HAS_ALLOCATED) {
        m->allocated += g->allocated_bytes;
    }
    for (unsigned i = 0; i < GCEV_STATS_GENS; i++) {
        const gcev_stats_gen_heap *h = gens[i];
        if (!h) {
            continue;
        }
        if (h->present & GCEV_STATS_HEAP_HAS_SIZE_AFTER) {
            m->has_size[i] = 1;
            m->size_after[i] = h->size_after;
        }
        if (h->present & GCEV_STATS_HEAP_HAS_FRAG_AFTER) {
            m->has_frag[i] = 1;
            m->frag_after[i] = h->frag_after;
        }
    }
    if (p & GCEV_STATS_GC_HAS_COMMITTED_AFTER) {
        const gcev_stats_committed *c = &g->committed_after;
        m->has_committed = 1;
        m->committed = c->in_use + c->in_global_decommit + c->in_free + c->in_global_free + c->bookkeeping;
    }
    if (p & GCEV_STATS_GC_HAS_HEAP_COUNT) {
        m->has_heaps = 1;
        m->heaps = g->heap_count;
    }
    if (p & GCEV_STATS_GC_HAS_DATAS) {
        m->has_datas = 1;
        m->datas = g->datas_heap_count;
    }
}

double serve_pm_pause_ratio(const serve_pm *m, double now_ms, double age_ms)
{
    if (!isfinite(now_ms) || now_ms < 0) {
        return 0.0;
    }
    int64_t now = (int64_t)(now_ms / 1000.0);
    double ms = 0;
    for (unsigned k = 0; k < SERVE_WINDOW; k++) {
        if (m->win_ms[k] > 0 && m->win_sec[k] > now - SERVE_WINDOW && m->win_sec[k] <= now) {
            ms += m->win_ms[k];
        }
    }
    double span = SERVE_WINDOW * 1000.0;
    if (isfinite(age_ms) && age_ms < span) {
        span = age_ms < 1000.0 ? 1000.0 : age_ms;
    }
    double r = ms / span;
    return r > 1.0 ? 1.0 : r;
}

void serve_proc_labels(serve_proc *p)
{
    char name[sizeof p->name * 2], rt[sizeof p->runtime * 2], ct[sizeof p->container * 2];
    snprintf(p->labels, sizeof p->labels,
             "pid=\"%u\",process=\"%s\",runtime_version=\"%s\",container_id=\"%s\"", p->pid,
             serve_escape_label(p->name, name, sizeof name), serve_escape_label(p->runtime, rt, sizeof rt),
             serve_escape_label(p->container, ct, sizeof ct));
}
