/* SPDX-License-Identifier: MIT */
#include "cli_trace.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static long long read_stdin(void *ctx, void *buf, size_t n)
{
    size_t got = fread(buf, 1, n, (FILE *)ctx);
    if (got == 0 && ferror((FILE *)ctx)) {
        return -1;
    }
    return (long long)got;
}

/* The reader's message; after the status for malformed data and limits, whose
 * messages name only the detail ("malformed trace data: <detail>"). */
static void print_what(gcev_status st, const gcev_error *err)
{
    const char *status = gcev_status_str(st);
    const char *msg = err->message && err->message[0] ? err->message : status;
    if ((st == GCEV_E_FORMAT || st == GCEV_E_LIMIT) && strstr(msg, status) == NULL) {
        fprintf(stderr, "%s: ", status);
    }
    fputs(msg, stderr);
}

static void trace_message(const char *cmd, const char *path, gcev_status st, const gcev_error *err,
                          int os_errno, int at_open)
{
    fprintf(stderr, "gcev %s: %s: ", cmd, gcev_cli_file_label(path));
    print_what(st, err);
    if (st == GCEV_E_IO && os_errno) {
        fprintf(stderr, ": %s", strerror(os_errno));
    }
    /* an offset says where in the file; not for a file that could not be opened, or
     * whose very first bytes already say it is no trace (or that it is empty) */
    int whole_file = at_open && err->offset == 0 &&
                     (st == GCEV_E_IO || st == GCEV_E_UNSUPPORTED || st == GCEV_E_TRUNCATED_FILE);
    if (!whole_file) {
        fprintf(stderr, " at offset %llu", (unsigned long long)err->offset);
    }
    fputc('\n', stderr);
}

int gcev_cli_open_trace(const char *cmd, const char *path, const gcev_trace_options *opts, gcev_trace **out)
{
    gcev_error err = {0};
    gcev_status st;
    errno = 0;
    if (path[0] == '-' && path[1] == '\0') {
        st = gcev_trace_open_reader(read_stdin, stdin, opts, out, &err);
    } else {
        st = gcev_trace_open_file(path, opts, out, &err);
    }
    if (st != GCEV_OK) {
        trace_message(cmd, path, st, &err, errno, 1);
        return 1;
    }
    return 0;
}

const char *gcev_cli_provider_label(const gcev_trace_event *ev, char guid_buf[37])
{
    if (ev->provider_name && ev->provider_name[0]) {
        return ev->provider_name;
    }
    gcev_provider_info pi;
    if (gcev_provider_get_info(ev->provider, &pi) == GCEV_OK) {
        return pi.name;
    }
    if (ev->has_provider_guid) {
        gcev_guid_format(&ev->provider_guid, guid_buf);
        return guid_buf;
    }
    return "";
}

const gcev_event_desc *gcev_cli_event_desc(const gcev_trace_event *ev)
{
    if (!ev->provider || ev->no_event_id) {
        return NULL;
    }
    gcev_status st;
    return gcev_event_desc_resolve(ev->provider, ev->event_id, ev->version, &st);
}

const char *gcev_cli_event_name(const gcev_trace_event *ev)
{
    gcev_event_info info;
    if (gcev_event_get_info(gcev_cli_event_desc(ev), &info) == GCEV_OK && info.symbol) {
        return info.symbol;
    }
    return ev->event_name ? ev->event_name : "";
}

void gcev_cli_trace_error(const char *cmd, const char *path, gcev_trace *t, gcev_status st,
                          const gcev_error *err)
{
    int os_errno = errno;
    if (st == GCEV_E_IO && t) {
        gcev_trace_event ev;
        gcev_error again;
        errno = 0;
        if (gcev_trace_next(t, &ev, &again) == GCEV_E_IO && errno) {
            os_errno = errno;
        }
    }
    trace_message(cmd, path, st, err, os_errno, 0);
}

static char *kind_dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) {
        memcpy(d, s, n);
    }
    return d;
}

/* Fills x with what ev's kind prints as; 0 when out of memory. */
static int kind_fill(gcev_cli_kind *x, const gcev_trace_event *ev)
{
    char gbuf[37];
    x->key = ev->kind;
    x->version = ev->version;
    x->desc = gcev_cli_event_desc(ev);
    x->provider = kind_dup(gcev_cli_provider_label(ev, gbuf));
    x->name = kind_dup(gcev_cli_event_name(ev));
    x->row = SIZE_MAX;
    return x->provider && x->name;
}

static size_t kind_hash(const void *key, uint16_t version, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)key * UINT64_C(0x9E3779B97F4A7C15) ^ version;
    return (size_t)(h ^ h >> 29) & (cap - 1);
}

static int kinds_grow(gcev_cli_kinds *k)
{
    size_t cap = k->cap ? k->cap * 2 : 256;
    gcev_cli_kind *slots = calloc(cap, sizeof *slots);
    if (!slots) {
        return 0;
    }
    for (size_t i = 0; i < k->cap; i++) {
        if (k->slots[i].key) {
            size_t j = kind_hash(k->slots[i].key, k->slots[i].version, cap);
            while (slots[j].key) {
                j = (j + 1) & (cap - 1);
            }
            slots[j] = k->slots[i];
        }
    }
    free(k->slots);
    k->slots = slots;
    k->cap = cap;
    k->last = NULL; /* it pointed into the old slots */
    return 1;
}

gcev_cli_kind *gcev_cli_kind_find(gcev_cli_kinds *k, const gcev_trace_event *ev)
{
    if (!ev->kind) {
        /* not kept: the event's own strings (and the GUID text in k), as before */
        gcev_cli_kind *x = &k->scratch;
        x->key = NULL;
        x->version = ev->version;
        x->desc = gcev_cli_event_desc(ev);
        x->provider = (char *)gcev_cli_provider_label(ev, k->guid);
        x->name = (char *)gcev_cli_event_name(ev);
        x->row = SIZE_MAX;
        return x;
    }
    if (k->cap) {
        for (size_t j = kind_hash(ev->kind, ev->version, k->cap); k->slots[j].key;
             j = (j + 1) & (k->cap - 1)) {
            if (k->slots[j].key == ev->kind && k->slots[j].version == ev->version) {
                return k->last = &k->slots[j];
            }
        }
    }
    if (2 * (k->n + 1) > k->cap && !kinds_grow(k)) {
        return NULL;
    }
    size_t j = kind_hash(ev->kind, ev->version, k->cap);
    while (k->slots[j].key) {
        j = (j + 1) & (k->cap - 1);
    }
    if (!kind_fill(&k->slots[j], ev)) {
        free(k->slots[j].provider);
        free(k->slots[j].name);
        k->slots[j].key = NULL;
        return NULL;
    }
    k->n++;
    return k->last = &k->slots[j];
}

void gcev_cli_kinds_free(gcev_cli_kinds *k)
{
    for (size_t i = 0; i < k->cap; i++) {
        if (k->slots[i].key) {
            free(k->slots[i].provider);
            free(k->slots[i].name);
        }
    }
    free(k->slots);
    memset(k, 0, sizeof *k);
}

/* A stable word for the fault of a skipped range. */
static const char *skip_reason(gcev_status st)
{
    switch (st) {
    case GCEV_E_FORMAT:
        return "format";
    case GCEV_E_TRUNCATED_FILE:
        return "truncated";
    case GCEV_E_LIMIT:
        return "limit";
    case GCEV_E_UNSUPPORTED:
        return "unsupported";
    default:
        return "other";
    }
}

int gcev_cli_report_skips(const char *cmd, const char *path, const gcev_trace *t, const char *what)
{
    uint64_t ranges = gcev_trace_skipped_ranges(t);
    if (ranges == 0) {
        return 0;
    }
    const char *label = gcev_cli_file_label(path);
    for (size_t i = 0; i < gcev_trace_skip_count(t); i++) {
        const gcev_trace_skip *k = gcev_trace_skip_at(t, i);
        gcev_error e = {k->status, k->fault_offset, NULL, k->message};
        fprintf(stderr, "gcev %s: %s: skipped %llu bytes at offset %llu: ", cmd, label,
                (unsigned long long)k->bytes, (unsigned long long)k->offset);
        print_what(k->status, &e);
        fprintf(stderr, " at offset %llu\n", (unsigned long long)k->fault_offset);
    }
    fprintf(stderr, "gcev %s: %s: %llu damaged range%s skipped (%llu bytes): %s incomplete\n", cmd, label,
            (unsigned long long)ranges, ranges == 1 ? "" : "s",
            (unsigned long long)gcev_trace_skipped_bytes(t), what);
    return 1;
}

void gcev_cli_skip_json(FILE *f, const gcev_trace_skip *k)
{
    fprintf(f,
            "{\"offset\": %llu, \"bytes\": %llu, \"reason\": \"%s\", \"fault_offset\": %llu, \"message\": ",
            (unsigned long long)k->offset, (unsigned long long)k->bytes, skip_reason(k->status),
            (unsigned long long)k->fault_offset);
    gcev_cli_json_string(f, k->message);
    fputc('}', f);
}

void gcev_cli_skips_json(FILE *f, const gcev_trace *t)
{
    fputc('[', f);
    for (size_t i = 0; i < gcev_trace_skip_count(t); i++) {
        fputs(i ? ", " : "", f);
        gcev_cli_skip_json(f, gcev_trace_skip_at(t, i));
    }
    fputc(']', f);
}

int gcev_cli_filter_arg(gcev_cli_args *a, const char *cmd, gcev_cli_filter *cf)
{
    const char *v;
    int m;
    unsigned long long n;
    if (gcev_cli_flag(a, "--gc-only")) {
        cf->f.flags |= GCEV_TRACE_FILTER_GC;
    } else if ((m = gcev_cli_value(a, "--provider", &v)) != 0) {
        if (m < 0) {
            return -1;
        }
        if (!v[0] || cf->f.nproviders == GCEV_CLI_MAX_PROVIDERS) {
            gcev_cli_fail(cmd, v[0] ? "at most %d --provider options" : "--provider needs a name or GUID",
                          GCEV_CLI_MAX_PROVIDERS);
            return -1;
        }
        cf->providers[cf->f.nproviders++] = v;
    } else if ((m = gcev_cli_value(a, "--keywords", &v)) != 0) {
        if (m < 0 || !gcev_cli_number(cmd, "--keywords", v, UINT64_MAX, 1, &n)) {
            return -1;
        }
        cf->f.keywords = n;
    } else if ((m = gcev_cli_value(a, "--level", &v)) != 0) {
        if (m < 0 || !gcev_cli_number(cmd, "--level", v, 255, 0, &n)) {
            return -1;
        }
        cf->f.max_level = (uint8_t)n;
    } else {
        return 0;
    }
    cf->given = 1;
    return 1;
}

static int filter_set(const char *cmd, gcev_trace *t, const gcev_trace_filter *f)
{
    gcev_error err = {0};
    if (gcev_trace_set_filter(t, f, &err) != GCEV_OK) {
        gcev_cli_fail(cmd, "%s", err.message ? err.message : "cannot set the filter");
        return 1;
    }
    return 0;
}

int gcev_cli_filter_apply(const char *cmd, gcev_cli_filter *cf, gcev_trace *t)
{
    if (!cf->given) {
        return 0;
    }
    cf->f.struct_size = sizeof cf->f;
    cf->f.providers = cf->providers;
    return filter_set(cmd, t, &cf->f);
}

int gcev_cli_filter_gc(const char *cmd, gcev_trace *t)
{
    gcev_trace_filter f;
    memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    f.flags = GCEV_TRACE_FILTER_GC;
    return filter_set(cmd, t, &f);
}
