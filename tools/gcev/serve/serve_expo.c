/* SPDX-License-Identifier: MIT */
/*
 * The /metrics exposition: Prometheus text format 0.0.4 or OpenMetrics 1.0.0, written from
 * the metric table (serve_metrics.c) and the processes' serve_pm. A writer only: it never
 * parses anything. Families come in table order, each with its HELP and TYPE (and UNIT in
 * OpenMetrics), then its samples for every exported process; counters' samples end in
 * _total; OpenMetrics ends with # EOF.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

void serve_buf_free(serve_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static int buf_reserve(serve_buf *b, size_t more)
{
    if (b->failed) {
        return 0;
    }
    if (b->n + more + 1 <= b->cap) {
        return 1;
    }
    size_t cap = b->cap ? b->cap : 16384;
    while (cap < b->n + more + 1) {
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = 1;
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}

void serve_buf_printf(serve_buf *b, const char *fmt, ...)
{
    va_list ap;
    for (int pass = 0; pass < 2; pass++) {
        size_t room = b->cap > b->n ? b->cap - b->n : 0;
        va_start(ap, fmt);
        int k = vsnprintf(room ? b->p + b->n : NULL, room, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->failed = 1;
            return;
        }
        if ((size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        if (!buf_reserve(b, (size_t)k)) {
            return;
        }
    }
}

char *serve_escape_label(const char *in, char *out, size_t out_n)
{
    size_t o = 0;
    if (!out_n) {
        return out;
    }
    for (; *in; in++) {
        const char *rep = *in == '\\' ? "\\\\" : *in == '"' ? "\\\"" : *in == '\n' ? "\\n" : NULL;
        size_t w = rep ? 2 : 1;
        if (o + w >= out_n) {
            break;
        }
        if (rep) {
            memcpy(out + o, rep, 2);
        } else {
            out[o] = *in;
        }
        o += w;
    }
    out[o] = '\0';
    return out;
}

/* A sample value: integers exactly, others with 17 significant digits; never NaN/Inf here. */
static void value(serve_buf *b, double v)
{
    if (!isfinite(v)) {
        v = 0;
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        serve_buf_printf(b, "%.0f\n", v);
    } else {
        serve_buf_printf(b, "%.17g\n", v);
    }
}

static void value_u64(serve_buf *b, uint64_t v)
{
    serve_buf_printf(b, "%llu\n", (unsigned long long)v);
}

static void header(serve_buf *b, const serve_metric *m, int om)
{
    /* help texts are plain ASCII without backslashes or newlines (the table's) */
    if (om) {
        serve_buf_printf(b, "# TYPE %s %s\n", m->family, serve_metric_type_name(m->type));
        if (m->unit[0]) {
            serve_buf_printf(b, "# UNIT %s %s\n", m->family, m->unit);
        }
        serve_buf_printf(b, "# HELP %s %s\n", m->family, m->help);
    } else {
        const char *suffix = m->type == SERVE_COUNTER ? "_total" : "";
        serve_buf_printf(b, "# HELP %s%s %s\n", m->family, suffix, m->help);
        serve_buf_printf(b, "# TYPE %s%s %s\n", m->family, suffix, serve_metric_type_name(m->type));
    }
}

static const char *const gen_label[SERVE_GENS] = {"0", "1", "2", "unknown"};
static const char *const type_label[SERVE_TYPES] = {"blocking", "background", "foreground", "unknown"};

static const char *reason_label(unsigned r)
{
    const char *n = r < SERVE_REASONS - 1 ? gcev_gc_reason_name(r) : NULL;
    return n ? n : "other";
}

/* name{labels} for one process's sample of a family (sfx: "_total", "_bucket" ...). */
static void sample_start(serve_buf *b, const serve_metric *m, const char *sfx, const serve_proc *p)
{
    serve_buf_printf(b, "%s%s{%s", m->family, sfx, p->labels);
}

static void proc_samples(serve_buf *b, const serve_metric *m, const serve_proc *p, double now_ms)
{
    const serve_pm *s = &p->m;
    switch (m->id) {
    case SM_GCS:
        for (unsigned g = 0; g < SERVE_GENS; g++) {
            for (unsigned t = 0; t < SERVE_TYPES; t++) {
                for (unsigned r = 0; r < SERVE_REASONS; r++) {
                    if (s->gcs[g][t][r]) {
                        sample_start(b, m, "_total", p);
                        serve_buf_printf(b, ",generation=\"%s\",type=\"%s\",reason=\"%s\"} ", gen_label[g],
                                         type_label[t], reason_label(r));
                        value_u64(b, s->gcs[g][t][r]);
                    }
                }
            }
        }
        break;
    case SM_GCS_INCOMPLETE:
        sample_start(b, m, "_total", p);
        serve_buf_printf(b, "} ");
        value_u64(b, s->incomplete);
        break;
    case SM_PAUSE:
        for (unsigned g = 0; g < SERVE_GENS; g++) {
            for (unsigned t = 0; t < SERVE_TYPES; t++) {
                if (!s->pause_count[g][t]) {
                    continue;
                }
                uint64_t cum = 0;
                for (unsigned k = 0; k <= SERVE_PAUSE_BUCKETS; k++) {
                    cum += s->pause_bucket[g][t][k];
                    sample_start(b, m, "_bucket", p);
                    serve_buf_printf(b, ",generation=\"%s\",type=\"%s\",le=\"%s\"} ", gen_label[g],
                                     type_label[t], k < SERVE_PAUSE_BUCKETS ? serve_pause_le[k] : "+Inf");
                    value_u64(b, cum);
                }
                sample_start(b, m, "_sum", p);
                serve_buf_printf(b, ",generation=\"%s\",type=\"%s\"} ", gen_label[g], type_label[t]);
                value(b, s->pause_sum[g][t]);
                sample_start(b, m, "_count", p);
                serve_buf_printf(b, ",generation=\"%s\",type=\"%s\"} ", gen_label[g], type_label[t]);
                value_u64(b, s->pause_count[g][t]);
            }
        }
        break;
    case SM_SUSPENSION:
        sample_start(b, m, "_total", p);
        serve_buf_printf(b, "} ");
        value(b, s->suspension_sum);
        break;
    case SM_PAUSE_RATIO:
        if (s->has_clock) {
            double age = p->mono_started > 0 ? now_ms - p->mono_started : now_ms;
            sample_start(b, m, "", p);
            serve_buf_printf(b, "} ");
            value(b, serve_pm_pause_ratio(s, now_ms - s->clock_offset, age));
        }
        break;
    case SM_PROMOTED:
    case SM_ALLOCATED:
        sample_start(b, m, "_total", p);
        serve_buf_printf(b, "} ");
        value_u64(b, m->id == SM_PROMOTED ? s->promoted : s->allocated);
        break;
    case SM_HEAP_SIZE:
    case SM_HEAP_FRAG:
        for (unsigned g = 0; g < GCEV_STATS_GENS; g++) {
            int has = m->id == SM_HEAP_SIZE ? s->has_size[g] : s->has_frag[g];
            if (has) {
                sample_start(b, m, "", p);
                serve_buf_printf(b, ",generation=\"%s\"} ", gcev_stats_gen_name(g));
                value_u64(b, m->id == SM_HEAP_SIZE ? s->size_after[g] : s->frag_after[g]);
            }
        }
        break;
    case SM_COMMITTED:
        if (s->has_committed) {
            sample_start(b, m, "", p);
            serve_buf_printf(b, "} ");
            value_u64(b, s->committed);
        }
        break;
    case SM_HEAPS:
        if (s->has_heaps) {
            sample_start(b, m, "", p);
            serve_buf_printf(b, "} ");
            value(b, (double)s->heaps);
        }
        break;
    case SM_DATAS_HEAPS:
        if (s->has_datas) {
            sample_start(b, m, "", p);
            serve_buf_printf(b, "} ");
            value_u64(b, s->datas);
        }
        break;
    case SM_EVENTS:
    case SM_DROPPED:
    case SM_ATTACHES:
    case SM_RECYCLES:
        sample_start(b, m, "_total", p);
        serve_buf_printf(b, "} ");
        value_u64(b, m->id == SM_EVENTS     ? s->events
                     : m->id == SM_DROPPED  ? s->dropped
                     : m->id == SM_ATTACHES ? s->attaches
                                            : s->recycles);
        break;
    case SM_STATE:
        for (int k = 0; k < SERVE_STATES; k++) {
            sample_start(b, m, "", p);
            serve_buf_printf(b, ",state=\"%s\"} %d\n", serve_state_names[k], p->state == k);
        }
        break;
    default:
        break;
    }
}

static void self_samples(serve_buf *b, const serve_metric *m, const serve_proc *procs, const serve_self *self)
{
    switch (m->id) {
    case SM_SERVE_CPU:
        serve_buf_printf(b, "%s_total ", m->family);
        value(b, self->cpu_s);
        break;
    case SM_SERVE_RSS:
        serve_buf_printf(b, "%s ", m->family);
        value_u64(b, self->rss_bytes);
        break;
    case SM_SERVE_SESSIONS: {
        uint64_t n[SERVE_STATES] = {0};
        for (const serve_proc *p = procs; p; p = p->next) {
            if (!p->hidden && p->state >= 0 && p->state < SERVE_STATES) {
                n[p->state]++;
            }
        }
        for (int k = 0; k < SERVE_STATES; k++) {
            serve_buf_printf(b, "%s{state=\"%s\"} ", m->family, serve_state_names[k]);
            value_u64(b, n[k]);
        }
        break;
    }
    case SM_SERVE_UNWATCHED:
        serve_buf_printf(b, "%s ", m->family);
        value_u64(b, self->unwatched);
        break;
    case SM_SERVE_SCRAPE:
        serve_buf_printf(b, "%s ", m->family);
        value(b, self->last_scrape_s);
        break;
    case SM_SERVE_SCRAPES:
        serve_buf_printf(b, "%s_total ", m->family);
        value_u64(b, self->scrapes);
        break;
    default:
        break;
    }
}

void serve_expo_write(serve_buf *b, const serve_proc *procs, const serve_self *self, double now_ms,
                      int openmetrics)
{
    for (int i = 0; i < SM_COUNT; i++) {
        const serve_metric *m = &serve_metrics[i];
        header(b, m, openmetrics);
        if (m->id >= SM_SERVE_CPU) {
            self_samples(b, m, procs, self);
            continue;
        }
        for (const serve_proc *p = procs; p; p = p->next) {
            if (!p->hidden) {
                proc_samples(b, m, p, now_ms);
            }
        }
    }
    if (openmetrics) {
        serve_buf_printf(b, "# EOF\n");
    }
}
