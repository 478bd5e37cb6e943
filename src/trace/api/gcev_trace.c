/* SPDX-License-Identifier: MIT */
/*
 * The public trace API over the container readers (gcev_trace_impl.h):
 * detection, sticky errors, drop records, the ms clock, provider lookup and
 * the optional timestamp order (gcev_order.h).
 */
#include "gcev_error.h"
#include "gcev_order.h"
#include "gcev_etl.h"
#include "gcev_nettrace.h"
#include "gcev_trace_core.h"

#include <stdlib.h>
#include <string.h>

/* 80 = the ETL buffer header (72) + the first record's 8-byte system header
 * prefix, whose marker gcev_etl_detect checks. */
enum { GCEV_DETECT_BYTES = 80 };

static gcev_status trace_fail(gcev_error *err, gcev_status code, uint64_t offset, const char *msg)
{
    return gcev_error_set(err, code, offset, NULL, msg);
}

const char *gcev_trace_format_name(gcev_trace_format f)
{
    switch (f) {
    case GCEV_FORMAT_NETPERF:
        return "netperf";
    case GCEV_FORMAT_NETTRACE:
        return "nettrace";
    case GCEV_FORMAT_ETL:
        return "etl";
    default:
        return "unknown";
    }
}

/* Detects the container and lets its reader parse the header. Takes ownership of t. */
static gcev_status trace_start(gcev_trace *t, const gcev_trace_options *opts, gcev_trace **out,
                               gcev_error *err)
{
    if (opts) {
        t->opts = *opts;
    }
    if (t->opts.max_block_size) {
        t->src.max_take = t->opts.max_block_size;
    }
    t->info.pointer_size = 8;
    const uint8_t *head = NULL;
    size_t got = 0;
    gcev_status st = gcev_source_peek(&t->src, GCEV_DETECT_BYTES, &head, &got, err);
    if (st == GCEV_OK) {
        if (got && gcev_nettrace_detect(head, got)) {
            st = gcev_nettrace_open(t, err);
        } else if (got && gcev_etl_detect(head, got)) {
            st = gcev_etl_open(t, err);
        } else if (got == 0) {
            st = trace_fail(err, GCEV_E_TRUNCATED_FILE, 0, "empty input: no trace header");
        } else {
            st = trace_fail(err, GCEV_E_UNSUPPORTED, 0,
                            "not a trace: supported are .nettrace (V4-V6), .netperf (V1-V3), .etl");
        }
    }
    if (st == GCEV_OK && t->opts.order == GCEV_TRACE_ORDER_TIME) {
        t->order = gcev_order_create(0, t->src.max_take);
        if (!t->order) {
            st = trace_fail(err, GCEV_E_NOMEM, 0, "out of memory");
        }
    }
    if (st != GCEV_OK) {
        gcev_trace_close(t);
        return st;
    }
    t->info.file_size = t->src.read ? 0 : t->src.size;
    *out = t;
    return GCEV_OK;
}

static gcev_trace *trace_alloc(void)
{
    gcev_trace *t = calloc(1, sizeof *t);
    if (t) {
        t->sticky = GCEV_OK;
        t->src.fd = -1;
    }
    return t;
}

gcev_status gcev_trace_open_file(const char *path, const gcev_trace_options *opts, gcev_trace **out,
                                 gcev_error *err)
{
    if (!out || !path) {
        return trace_fail(err, GCEV_E_INVALID_ARG, 0, "path and out are required");
    }
    *out = NULL;
    gcev_trace *t = trace_alloc();
    if (!t) {
        return trace_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    gcev_status st = gcev_source_init_file(&t->src, path, err);
    if (st != GCEV_OK) {
        free(t);
        return st;
    }
    return trace_start(t, opts, out, err);
}

gcev_status gcev_trace_open_memory(const void *data, size_t size, const gcev_trace_options *opts,
                                   gcev_trace **out, gcev_error *err)
{
    if (!out || (!data && size)) {
        return trace_fail(err, GCEV_E_INVALID_ARG, 0,
                          "out is required; data may be NULL only when size is 0");
    }
    *out = NULL;
    gcev_trace *t = trace_alloc();
    if (!t) {
        return trace_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    gcev_source_init_memory(&t->src, data, size);
    return trace_start(t, opts, out, err);
}

gcev_status gcev_trace_open_reader(gcev_read_fn read, void *ctx, const gcev_trace_options *opts,
                                   gcev_trace **out, gcev_error *err)
{
    if (!out || !read) {
        return trace_fail(err, GCEV_E_INVALID_ARG, 0, "read function and out are required");
    }
    *out = NULL;
    gcev_trace *t = trace_alloc();
    if (!t) {
        return trace_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    gcev_source_init_reader(&t->src, read, ctx);
    return trace_start(t, opts, out, err);
}

const gcev_trace_info *gcev_trace_get_info(const gcev_trace *t)
{
    return t ? &t->info : NULL;
}

/* The fields every reader leaves to this layer: ms and the compiled provider. */
static void trace_finish_event(gcev_trace *t, gcev_trace_event *ev)
{
    if (t->info.clock_frequency) {
        /* Wrapping difference: hostile timestamps must not overflow (UB) here. */
        int64_t d = (int64_t)((uint64_t)ev->timestamp - (uint64_t)t->info.sync_time_qpc);
        ev->ms = (double)d * 1000.0 / (double)t->info.clock_frequency;
    } else {
        ev->ms = 0.0;
    }
    if (!ev->provider && !t->provider_resolved) {
        if (ev->has_provider_guid) {
            ev->provider = gcev_provider_find_guid(&ev->provider_guid);
        }
        if (!ev->provider && ev->provider_name && ev->provider_name[0]) {
            ev->provider = gcev_provider_find(ev->provider_name);
        }
    }
}

static gcev_status trace_stick(gcev_trace *t, gcev_status st, const gcev_error *e, gcev_error *err)
{
    t->sticky = st;
    if (e && e->message) {
        t->sticky_err = *e;
    } else {
        t->sticky_err.code = st;
        t->sticky_err.offset = gcev_source_pos(&t->src);
        t->sticky_err.field = NULL;
        t->sticky_err.message = gcev_status_str(st);
    }
    t->sticky_err.code = st;
    if (err) {
        *err = t->sticky_err;
    }
    return st;
}

static gcev_status trace_next_timed(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    gcev_order *o = t->order;
    for (;;) {
        int r = gcev_order_pop(o, ev);
        if (r > 0) {
            return GCEV_OK;
        }
        if (r < 0) {
            return trace_stick(t, GCEV_E_NOMEM, NULL, err);
        }
        if (t->sticky != GCEV_OK) {
            return trace_stick(t, t->sticky, &t->sticky_err, err);
        }
        gcev_error e = {0};
        gcev_trace_event tmp;
        memset(&tmp, 0, sizeof tmp);
        gcev_status st = t->ops->next(t, &tmp, &e);
        if (st == GCEV_OK) {
            trace_finish_event(t, &tmp);
            st = gcev_order_push(o, &tmp);
            if (st != GCEV_OK) {
                return trace_stick(t, st, NULL, err);
            }
            continue;
        }
        /* End or fault: release what is buffered first, then report it. */
        t->sticky = st;
        t->sticky_err = e;
        if (!e.message) {
            t->sticky_err.code = st;
            t->sticky_err.message = gcev_status_str(st);
            t->sticky_err.offset = gcev_source_pos(&t->src);
        }
        gcev_order_barrier(o);
    }
}

gcev_status gcev_trace_next(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    if (!t || !ev) {
        return trace_fail(err, GCEV_E_INVALID_ARG, 0, "trace and event are required");
    }
    if (t->order) {
        return trace_next_timed(t, ev, err);
    }
    if (t->sticky != GCEV_OK) {
        if (err) {
            *err = t->sticky_err;
        }
        return t->sticky;
    }
    if (!t->fills_event) {
        memset(ev, 0, sizeof *ev);
    }
    gcev_error e = {0};
    gcev_status st = t->ops->next(t, ev, &e);
    if (st == GCEV_OK) {
        trace_finish_event(t, ev);
        return GCEV_OK;
    }
    return trace_stick(t, st, &e, err);
}

uint64_t gcev_trace_dropped_events(const gcev_trace *t)
{
    return t ? t->dropped_total : 0;
}

size_t gcev_trace_drop_count(const gcev_trace *t)
{
    return t ? t->ndrops : 0;
}

const gcev_trace_drop *gcev_trace_drop_at(const gcev_trace *t, size_t i)
{
    return (t && i < t->ndrops) ? &t->drops[i] : NULL;
}

void gcev_trace_close(gcev_trace *t)
{
    if (!t) {
        return;
    }
    if (t->ops && t->ops->destroy) {
        t->ops->destroy(t);
    }
    gcev_order_destroy(t->order);
    gcev_source_close(&t->src);
    free(t->drops);
    free(t);
}
