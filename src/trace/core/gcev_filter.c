/* SPDX-License-Identifier: MIT */
/* gcev_trace_filter compiled, and the predicate the readers ask (gcev_filter.h). */
#include "gcev_filter.h"
#include "gcev_sized.h"

#include <stdlib.h>
#include <string.h>

#include "gcev_error.h"

static gcev_status filter_fail(gcev_error *err, gcev_status st, const char *msg)
{
    return gcev_error_set(err, st, 0, NULL, msg);
}

/* ASCII case-insensitive equality: provider names are case-insensitive in ETW and EventPipe. */
static int name_eq(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z') {
            x = (unsigned char)(x + 32);
        }
        if (y >= 'A' && y <= 'Z') {
            y = (unsigned char)(y + 32);
        }
        if (x != y) {
            return 0;
        }
        if (!x) {
            return 1;
        }
    }
}

/* A provider text: GUID (braces optional) or name, with the compiled provider it names. */
static gcev_status provider_compile(const char *text, gcev_filter_provider *p, gcev_error *err)
{
    if (!text || !text[0]) {
        return filter_fail(err, GCEV_E_INVALID_ARG, "a filter's provider is NULL or empty");
    }
    size_t n = strlen(text);
    if (gcev_guid_parse(text, &p->guid)) {
        p->has_guid = 1;
        p->compiled = gcev_provider_find_guid(&p->guid);
        return GCEV_OK;
    }
    p->name = malloc(n + 1);
    if (!p->name) {
        return filter_fail(err, GCEV_E_NOMEM, "out of memory");
    }
    memcpy(p->name, text, n + 1);
    p->compiled = gcev_provider_find(text);
    return GCEV_OK;
}

gcev_status gcev_filter_compile(const gcev_trace_filter *f, gcev_filter **out, gcev_error *err)
{
    *out = NULL;
    gcev_trace_filter whole; /* the caller's layout read into this release's */
    gcev_status st = gcev_sized_in(&whole, sizeof whole, f, sizeof whole);
    if (st != GCEV_OK) {
        return filter_fail(err, st,
                           st == GCEV_E_UNSUPPORTED
                               ? "gcev_trace_filter sets a member this library does not know"
                               : "gcev_trace_filter.struct_size is smaller than any layout");
    }
    f = &whole;
    if (f->flags & ~(uint32_t)GCEV_TRACE_FILTER_GC) {
        return filter_fail(err, GCEV_E_INVALID_ARG, "gcev_trace_filter.flags has an unknown bit");
    }
    if ((f->nproviders && !f->providers) || (f->nevents && !f->events)) {
        return filter_fail(err, GCEV_E_INVALID_ARG, "a gcev_trace_filter list is NULL but not empty");
    }
    gcev_filter *c = calloc(1, sizeof *c);
    if (!c || (f->nproviders && !(c->providers = calloc(f->nproviders, sizeof *c->providers))) ||
        (f->nevents && (!(c->event_providers = calloc(f->nevents, sizeof *c->event_providers)) ||
                        !(c->event_ids = calloc(f->nevents, sizeof *c->event_ids))))) {
        gcev_filter_free(c);
        return filter_fail(err, GCEV_E_NOMEM, "out of memory");
    }
    c->flags = f->flags;
    c->keywords = f->keywords;
    c->max_level = f->max_level;
    c->select_all = !f->flags && !f->nproviders && !f->nevents;
    st = GCEV_OK;
    for (size_t i = 0; i < f->nproviders && st == GCEV_OK; i++, c->nproviders++) {
        st = provider_compile(f->providers[i], &c->providers[i], err);
    }
    for (size_t i = 0; i < f->nevents && st == GCEV_OK; i++, c->nevents++) {
        st = provider_compile(f->events[i].provider, &c->event_providers[i], err);
        c->event_ids[i] = f->events[i].event_id;
    }
    if (st != GCEV_OK) {
        gcev_filter_free(c);
        return st;
    }
    *out = c;
    return GCEV_OK;
}

void gcev_filter_free(gcev_filter *f)
{
    if (!f) {
        return;
    }
    for (size_t i = 0; i < f->nproviders; i++) {
        free(f->providers[i].name);
    }
    for (size_t i = 0; i < f->nevents; i++) {
        free(f->event_providers[i].name);
    }
    free(f->providers);
    free(f->event_providers);
    free(f->event_ids);
    free(f);
}

static int provider_is(const gcev_filter_provider *p, const gcev_trace_event *ev)
{
    if (p->compiled && ev->provider == p->compiled) {
        return 1;
    }
    if (p->name) {
        return ev->provider_name && name_eq(p->name, ev->provider_name);
    }
    return ev->has_provider_guid && memcmp(&p->guid, &ev->provider_guid, sizeof p->guid) == 0;
}

static int selected(const gcev_filter *f, const gcev_trace_event *ev)
{
    if (f->select_all) {
        return 1;
    }
    if ((f->flags & GCEV_TRACE_FILTER_GC) && ev->provider && !ev->no_event_id &&
        gcev_event_desc_resolve(ev->provider, ev->event_id, ev->version, NULL)) {
        return 1;
    }
    for (size_t i = 0; i < f->nproviders; i++) {
        if (provider_is(&f->providers[i], ev)) {
            return 1;
        }
    }
    if (!ev->no_event_id) {
        for (size_t i = 0; i < f->nevents; i++) {
            if (f->event_ids[i] == ev->event_id && provider_is(&f->event_providers[i], ev)) {
                return 1;
            }
        }
    }
    return 0;
}

int gcev_filter_match(const gcev_filter *f, const gcev_trace_event *ev)
{
    if (f->keywords && !(f->keywords & ev->keywords)) {
        return 0;
    }
    if (f->max_level && ev->has_level && ev->level > f->max_level) {
        return 0;
    }
    return selected(f, ev);
}
