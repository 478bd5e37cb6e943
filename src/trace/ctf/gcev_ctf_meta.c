/* SPDX-License-Identifier: MIT */
/*
 * The metadata model's read side (gcev_ctf_meta.h): stream classes and event
 * classes by id, env values by key, fields by name. Apart from the parser
 * because the stream decoder uses these on every packet and event, long after
 * parsing, and they depend on nothing but the model (freeing it is the
 * parser's, which made it).
 */
#include "gcev_ctf_meta.h"

#include <string.h>

const gcev_ctf_stream_class *gcev_ctf_meta_stream(const gcev_ctf_meta *m, uint64_t id)
{
    size_t lo = 0, hi = m->nstreams;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->streams[mid].id < id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return (lo < m->nstreams && m->streams[lo].id == id) ? &m->streams[lo] : NULL;
}

const gcev_ctf_event_class *gcev_ctf_meta_event(const gcev_ctf_meta *m, const gcev_ctf_stream_class *s,
                                                uint64_t id)
{
    if (s->nevents == 0) {
        return NULL;
    }
    const gcev_ctf_event_class *ev = m->events + s->first_event;
    size_t lo = 0, hi = s->nevents;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev[mid].id < id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return (lo < s->nevents && ev[lo].id == id) ? &ev[lo] : NULL;
}

const gcev_ctf_env *gcev_ctf_meta_env(const gcev_ctf_meta *m, const char *key)
{
    for (uint32_t i = 0; i < m->nenv; i++) {
        if (!strcmp(m->env[i].key, key)) {
            return &m->env[i];
        }
    }
    return NULL;
}

int gcev_ctf_type_find(const gcev_ctf_type *t, const char *name)
{
    if (!t || (t->kind != GCEV_CTF_STRUCT && t->kind != GCEV_CTF_VARIANT)) {
        return -1;
    }
    for (uint32_t i = 0; i < t->nfields; i++) {
        if (!strcmp(t->fields[i].name, name)) {
            return (int)i;
        }
    }
    return -1;
}
