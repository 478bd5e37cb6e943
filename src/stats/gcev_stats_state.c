/* SPDX-License-Identifier: MIT */
/* The analysis object: its life cycle, and which GC a detail event belongs to. */
#include <stdlib.h>
#include <string.h>

#include "gcev_stats_internal.h"

gcev_status gcev_stats_create(const gcev_stats_options *opts, gcev_stats **out)
{
    if (!out) {
        return GCEV_E_INVALID_ARG;
    }
    *out = NULL;
    gcev_stats *s = calloc(1, sizeof *s);
    if (!s) {
        return GCEV_E_NOMEM;
    }
    if (opts) {
        s->opts = *opts;
    }
    if (!s->opts.max_segments) {
        s->opts.max_segments = 65536;
    }
    if (!s->opts.max_handles) {
        s->opts.max_handles = 1048576;
    }
    if (!s->opts.max_app_domains) {
        s->opts.max_app_domains = 256;
    }
    s->bgc = s->open_inner = s->last_ended = s->mark_gc = -1;
    gcev_stats_table_init(&s->segments, sizeof(gcev_stats_segment), s->opts.max_segments);
    gcev_stats_table_init(&s->handles, sizeof(gcev_stats_handle), s->opts.max_handles);
    *out = s;
    return GCEV_OK;
}

void gcev_stats_free(gcev_stats *s)
{
    if (!s) {
        return;
    }
    gcev_stats_table_free(&s->segments);
    gcev_stats_table_free(&s->handles);
    free(s->live_segments);
    free(s->live_handles);
    free(s->ads);
    free(s->gcs);
    free(s);
}

gcev_stats_gc *gcev_stats_current_gc(gcev_stats *s, uint64_t tid)
{
    if (s->bgc >= 0 && s->bgc != s->open_inner && s->gcs[s->bgc].thread_id == tid) {
        return &s->gcs[s->bgc];
    }
    if (s->open_inner >= 0) {
        return &s->gcs[s->open_inner];
    }
    return s->bgc >= 0 ? &s->gcs[s->bgc] : NULL;
}
