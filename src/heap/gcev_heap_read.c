/* SPDX-License-Identifier: MIT */
/*
 * The reader: which events belong to which dump, and the raw lists of each dump.
 * A dump is the bulk events of one process inside one GC (GCStart .. GCEnd of its
 * Count), as dotnet-gcdump's DotNetHeapDumpGraphReader takes them; nothing is
 * resolved here (types may come after the objects that use them), so the work per
 * event is linear in its payload.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcev_heap_internal.h"

enum {
    EV_GC_START = 1,
    EV_GC_END = 2,
    EV_BULK_TYPE = 15,
    EV_ROOT_EDGE = 16,
    EV_CWT = 17,
    EV_NODE = 18,
    EV_EDGE = 19,
    EV_CCW = 36,
    EV_RCW = 37,
    EV_STATIC = 38
};

/* GCRootFlag bits (manifest GCRootFlagsMap) */
#define ROOT_FLAG_PINNING 0x1u
#define ROOT_FLAG_WEAK 0x2u
#define ROOT_FLAG_REFCOUNTED 0x8u

struct gcev_heap_reader {
    gcev_heap_set *set;
    const gcev_provider *runtime;
    heap_map proc_of; /* pid -> index into set->procs */
    size_t cprocs;
    size_t ended; /* dumps closed by their GCEnd */
    int failed;
};

size_t gcev_heap_reader_ended(const gcev_heap_reader *r)
{
    return r ? r->ended : 0;
}

gcev_status gcev_heap_reader_new(gcev_heap_reader **out)
{
    if (!out) {
        return GCEV_E_INVALID_ARG;
    }
    *out = NULL;
    gcev_heap_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->set = calloc(1, sizeof *r->set))) {
        free(r);
        return GCEV_E_NOMEM;
    }
    r->runtime = gcev_provider_find("Microsoft-Windows-DotNETRuntime");
    *out = r;
    return GCEV_OK;
}

void gcev_heap_reader_free(gcev_heap_reader *r)
{
    if (!r) {
        return;
    }
    gcev_heap_set_free(r->set);
    gcev_hp_map_free(&r->proc_of);
    free(r);
}

static heap_proc *proc_for(gcev_heap_reader *r, uint32_t pid)
{
    gcev_heap_set *s = r->set;
    uint32_t i = gcev_hp_map_get(&r->proc_of, pid);
    if (i != UINT32_MAX) {
        return &s->procs[i];
    }
    if (s->nprocs >= UINT32_MAX - 2 ||
        gcev_hp_grow((void **)&s->procs, &r->cprocs, s->nprocs + 1, sizeof *s->procs) != 0 ||
        gcev_hp_map_put(&r->proc_of, pid, (uint32_t)s->nprocs) != (uint32_t)s->nprocs) {
        return NULL;
    }
    heap_proc *p = &s->procs[s->nprocs++];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->dump = SIZE_MAX;
    return p;
}

/* The dump the process's bulk events go to now, opened when needed. */
static gcev_heap *dump_for(gcev_heap_reader *r, heap_proc *p, const gcev_trace_event *ev)
{
    gcev_heap_set *s = r->set;
    if (p->dump != SIZE_MAX) {
        return s->dumps[p->dump];
    }
    gcev_heap *h = calloc(1, sizeof *h);
    if (!h || gcev_hp_grow((void **)&s->dumps, &s->cap, s->n + 1, sizeof *s->dumps) != 0) {
        free(h);
        return NULL;
    }
    h->proc = (size_t)(p - s->procs);
    h->info.process_id = p->pid;
    h->info.pointer_size = ev->pointer_size;
    if (p->gc_open) {
        h->info.has_gc = 1;
        h->info.has_gc_start = 1;
        h->info.gc_number = p->gc_count;
        h->info.gc_depth = p->gc_depth;
        h->info.gc_reason = p->gc_reason;
        h->info.gc_type = p->gc_type;
        h->info.start_ms = p->gc_start_ms;
        h->start_ts = p->gc_start_ts;
    } else {
        h->info.flags |= GCEV_HEAP_NO_START;
        h->info.start_ms = ev->ms;
        h->start_ts = ev->timestamp;
        gcev_hp_problem(
            h, "bulk heap events at %.3f ms without the GCStart of their GC: the trace began inside the dump",
            ev->ms);
    }
    h->info.end_ms = ev->ms;
    h->end_ts = ev->timestamp;
    p->dump = s->n;
    s->dumps[s->n++] = h;
    return h;
}

static void close_dump(gcev_heap_reader *r, heap_proc *p, const gcev_trace_event *ev, int ended)
{
    if (p->dump == SIZE_MAX) {
        return;
    }
    gcev_heap *h = r->set->dumps[p->dump];
    if (!ended) {
        h->info.flags |= GCEV_HEAP_NO_END;
        gcev_hp_problem(h, "the GC of the dump did not end before %s at %.3f ms",
                        ev ? "the next GCStart" : "the end of the trace", ev ? ev->ms : h->info.end_ms);
    } else if (ev) {
        h->info.end_ms = ev->ms;
        h->end_ts = ev->timestamp;
    }
    p->dump = SIZE_MAX;
}

static void bad_event(gcev_heap *h, const char *what, const gcev_trace_event *ev, const gcev_error *e)
{
    h->info.bad_events++;
    h->info.flags |= GCEV_HEAP_BAD_EVENT;
    gcev_hp_problem(h, "%s at %.3f ms (file offset %llu) does not decode: %s%s%s at payload offset %llu",
                    what, ev->ms, (unsigned long long)ev->file_offset,
                    e->message ? e->message : gcev_status_str(e->code), e->field ? " in " : "",
                    e->field ? e->field : "", (unsigned long long)e->offset);
}

/* A bulk event's Index is its sequence number in the dump: a gap is lost events. */
static void check_index(gcev_heap *h, const char *what, uint32_t index, uint32_t *next, int *seen,
                        const gcev_trace_event *ev)
{
    if (index != *next) {
        h->info.flags |= GCEV_HEAP_INDEX_GAP;
        if (!*seen) {
            gcev_hp_problem(
                h, "the first %s has Index %u at %.3f ms (file offset %llu): %u events lost before it", what,
                index, ev->ms, (unsigned long long)ev->file_offset, index);
        } else if (index > *next) {
            gcev_hp_problem(h, "%s Index %u after %u at %.3f ms (file offset %llu): %u events lost", what,
                            index, *next - 1, ev->ms, (unsigned long long)ev->file_offset, index - *next);
        } else {
            gcev_hp_problem(h, "%s Index %u after %u at %.3f ms (file offset %llu): out of order or repeated",
                            what, index, *next - 1, ev->ms, (unsigned long long)ev->file_offset);
        }
    }
    *seen = 1;
    *next = index + 1;
}

static uint32_t ptype_of(heap_proc *p, uint64_t type_id)
{
    uint32_t i = gcev_hp_map_get(&p->type_of, type_id);
    if (i != UINT32_MAX) {
        return i;
    }
    if (p->ntypes >= UINT32_MAX - 2 ||
        gcev_hp_grow((void **)&p->types, &p->ctypes, p->ntypes + 1, sizeof *p->types) ||
        gcev_hp_map_put(&p->type_of, type_id, (uint32_t)p->ntypes) != (uint32_t)p->ntypes) {
        return UINT32_MAX;
    }
    heap_ptype *t = &p->types[p->ntypes];
    memset(t, 0, sizeof *t);
    t->type_id = type_id;
    return (uint32_t)p->ntypes++;
}

static int add_nodes(gcev_heap *h, heap_proc *p, const gcev_trace_event *ev)
{
    gcev_gc_bulk_node b;
    gcev_error e = {0};
    if (gcev_decode_gc_bulk_node(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &b, NULL,
                                 &e) != GCEV_OK) {
        bad_event(h, "GCBulkNode", ev, &e);
        return 0;
    }
    check_index(h, "GCBulkNode", b.index, &h->next_node_index, &h->seen_node, ev);
    for (uint32_t i = 0; i < b.values.count; i++) {
        gcev_gc_bulk_node_values v;
        if (gcev_gc_bulk_node_values_at(&b.values, i, &v, NULL) != GCEV_OK) {
            break;
        }
        if (h->nraw >= HEAP_MAX_OBJECTS) {
            h->info.flags |= GCEV_HEAP_LIMIT;
            gcev_hp_problem(h, "more than %u objects: the rest are dropped", (unsigned)HEAP_MAX_OBJECTS);
            break;
        }
        if (gcev_hp_grow((void **)&h->raw, &h->craw, h->nraw + 1, sizeof *h->raw) ||
            gcev_hp_grow((void **)&h->cnt, &h->ccnt, h->nraw + 1, sizeof *h->cnt)) {
            return -1;
        }
        uint32_t t = ptype_of(p, v.type_id);
        if (t == UINT32_MAX) {
            return -1;
        }
        if (v.size >= HEAP_BIG_SIZE) {
            if (gcev_hp_grow((void **)&h->big, &h->cbig, h->nbig + 1, sizeof *h->big)) {
                return -1;
            }
            h->big[h->nbig++] = (heap_big){(uint32_t)h->nraw, 0, v.size};
        }
        heap_obj *n = &h->raw[h->nraw];
        n->address = v.address;
        n->size = v.size >= HEAP_BIG_SIZE ? HEAP_BIG_SIZE : (uint32_t)v.size;
        n->type = t;
        h->cnt[h->nraw++] = v.edge_count > UINT32_MAX ? UINT32_MAX : (uint32_t)v.edge_count;
    }
    return 0;
}

static int add_edges(gcev_heap *h, const gcev_trace_event *ev)
{
    gcev_gc_bulk_edge b;
    gcev_error e = {0};
    if (gcev_decode_gc_bulk_edge(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &b, NULL,
                                 &e) != GCEV_OK) {
        bad_event(h, "GCBulkEdge", ev, &e);
        return 0;
    }
    check_index(h, "GCBulkEdge", b.index, &h->next_edge_index, &h->seen_edge, ev);
    if (h->nraw_refs + b.values.count > HEAP_MAX_REFS) {
        h->info.flags |= GCEV_HEAP_LIMIT;
        gcev_hp_problem(h, "more than %u references: the rest are dropped", (unsigned)HEAP_MAX_REFS);
        return 0;
    }
    if (gcev_hp_grow((void **)&h->raw_refs, &h->craw_refs, h->nraw_refs + b.values.count,
                     sizeof *h->raw_refs)) {
        return -1;
    }
    for (uint32_t i = 0; i < b.values.count; i++) {
        gcev_gc_bulk_edge_values v;
        if (gcev_gc_bulk_edge_values_at(&b.values, i, &v, NULL) != GCEV_OK) {
            break;
        }
        h->raw_refs[h->nraw_refs++] = v.value;
    }
    return 0;
}

static heap_raw_root *new_root(gcev_heap *h)
{
    if (h->nraw_roots >= HEAP_MAX_OBJECTS ||
        gcev_hp_grow((void **)&h->raw_roots, &h->craw_roots, h->nraw_roots + 1, sizeof *h->raw_roots)) {
        return NULL;
    }
    heap_raw_root *r = &h->raw_roots[h->nraw_roots++];
    memset(r, 0, sizeof *r);
    return r;
}

static int add_root_edges(gcev_heap *h, const gcev_trace_event *ev)
{
    gcev_gc_bulk_root_edge b;
    gcev_error e = {0};
    if (gcev_decode_gc_bulk_root_edge(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &b, NULL,
                                      &e) != GCEV_OK) {
        bad_event(h, "GCBulkRootEdge", ev, &e);
        return 0;
    }
    check_index(h, "GCBulkRootEdge", b.index, &h->next_root_index, &h->seen_root, ev);
    for (uint32_t i = 0; i < b.values.count; i++) {
        gcev_gc_bulk_root_edge_values v;
        if (gcev_gc_bulk_root_edge_values_at(&b.values, i, &v, NULL) != GCEV_OK) {
            break;
        }
        heap_raw_root *r = new_root(h);
        if (!r) {
            return -1;
        }
        r->address = v.rooted_node_address;
        r->id = v.gc_root_id;
        r->flags = v.gc_root_flag;
        /* dotnet-gcdump's order of tests: weak first (no root), ref-counted, then the kind */
        if (v.gc_root_flag & ROOT_FLAG_WEAK) {
            r->kind = GCEV_HEAP_ROOT_WEAK;
        } else if (v.gc_root_flag & ROOT_FLAG_REFCOUNTED) {
            r->kind = GCEV_HEAP_ROOT_REFCOUNTED;
        } else if (v.gc_root_kind == 0) {
            r->kind = GCEV_HEAP_ROOT_STACK;
        } else if (v.gc_root_kind == 1) {
            r->kind = GCEV_HEAP_ROOT_FINALIZER;
        } else if (v.gc_root_kind == 2) {
            r->kind = (v.gc_root_flag & ROOT_FLAG_PINNING) ? GCEV_HEAP_ROOT_PINNED_HANDLE
                                                           : GCEV_HEAP_ROOT_STRONG_HANDLE;
        } else {
            r->kind = GCEV_HEAP_ROOT_OTHER;
        }
    }
    return 0;
}

static int add_cwt(gcev_heap *h, const gcev_trace_event *ev)
{
    gcev_gc_bulk_root_conditional_weak_table_element_edge b;
    gcev_error e = {0};
    if (gcev_decode_gc_bulk_root_conditional_weak_table_element_edge(
            ev->payload, ev->payload_size, ev->version, ev->pointer_size, &b, NULL, &e) != GCEV_OK) {
        bad_event(h, "GCBulkRootConditionalWeakTableElementEdge", ev, &e);
        return 0;
    }
    for (uint32_t i = 0; i < b.values.count; i++) {
        gcev_gc_bulk_root_conditional_weak_table_element_edge_values v;
        if (gcev_gc_bulk_root_conditional_weak_table_element_edge_values_at(&b.values, i, &v, NULL) !=
            GCEV_OK) {
            break;
        }
        if (h->ncwt / 2 >= HEAP_MAX_OBJECTS ||
            gcev_hp_grow((void **)&h->cwt, &h->ccwt, h->ncwt + 2, sizeof *h->cwt)) {
            return -1;
        }
        h->cwt[h->ncwt++] = v.gc_key_node_id;
        h->cwt[h->ncwt++] = v.gc_value_node_id;
    }
    return 0;
}

/*
 * Elements of varying size (a string inside) reached one after the other: the
 * decoder's gcev_array_elem() walks from the first for each index, O(i), so a window
 * over the rest of the array moves past each element instead (the sizes are the
 * manifest's: packed fields, a NUL-terminated UTF-16 string).
 */
static int window_next(gcev_array *w, uint32_t size)
{
    if (size > w->size) {
        return -1;
    }
    w->data += size;
    w->size -= size;
    w->count--;
    return 0;
}

static int add_statics(gcev_heap *h, const gcev_trace_event *ev)
{
    gcev_gc_bulk_root_static_var b;
    gcev_error e = {0};
    if (gcev_decode_gc_bulk_root_static_var(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &b,
                                            NULL, &e) != GCEV_OK) {
        bad_event(h, "GCBulkRootStaticVar", ev, &e);
        return 0;
    }
    gcev_array w = b.values;
    while (w.count) {
        gcev_gc_bulk_root_static_var_values v;
        if (gcev_gc_bulk_root_static_var_values_at(&w, 0, &v, NULL) != GCEV_OK) {
            break;
        }
        heap_raw_root *r = new_root(h);
        if (!r) {
            return -1;
        }
        r->address = v.object_id;
        r->id = v.gc_root_id;
        r->flags = v.flags;
        r->kind = (v.flags & 1) ? GCEV_HEAP_ROOT_THREAD_STATIC : GCEV_HEAP_ROOT_STATIC;
        /* the field's name: the event's TypeID is the type of the object it holds (e.g.
         * "s_coreNewLine" of TextWriter comes with System.Char[]), not the declaring type,
         * so no "Type.field" name can be made (dotnet-gcdump makes one, wrongly) */
        char name[512];
        size_t len = gcev_utf16_to_utf8(v.field_name, name, sizeof name);
        if (len >= sizeof name) {
            len = sizeof name - 1;
        }
        if (!(r->name = gcev_hp_str_add(&h->pool, name, len))) {
            return -1;
        }
        if (window_next(&w, 8 + 8 + 8 + 4 + v.field_name.nbytes + 2)) {
            break;
        }
    }
    return 0;
}

static int add_ccw(gcev_heap *h, const gcev_trace_event *ev)
{
    gcev_gc_bulk_root_ccw b;
    gcev_error e = {0};
    if (gcev_decode_gc_bulk_root_ccw(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &b, NULL,
                                     &e) != GCEV_OK) {
        bad_event(h, "GCBulkRootCCW", ev, &e);
        return 0;
    }
    for (uint32_t i = 0; i < b.values.count; i++) {
        gcev_gc_bulk_root_ccw_values v;
        if (gcev_gc_bulk_root_ccw_values_at(&b.values, i, &v, NULL) != GCEV_OK) {
            break;
        }
        heap_raw_root *r = new_root(h);
        if (!r) {
            return -1;
        }
        r->address = v.object_id;
        r->id = v.i_unknown;
        r->flags = v.flags;
        r->kind = GCEV_HEAP_ROOT_CCW;
    }
    return 0;
}

static int add_types(heap_proc *p, const gcev_trace_event *ev)
{
    gcev_bulk_type b;
    if (gcev_decode_bulk_type(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &b, NULL, NULL) !=
        GCEV_OK) {
        return 0; /* a type event belongs to no dump: its types stay unnamed ("UNKNOWN"), counted there */
    }
    gcev_array w = b.values;
    while (w.count) {
        gcev_bulk_type_values v;
        if (gcev_bulk_type_values_at(&w, 0, &v, NULL) != GCEV_OK) {
            break;
        }
        uint32_t t = ptype_of(p, v.type_id);
        if (t == UINT32_MAX) {
            return -1;
        }
        if (!p->types[t].name) {
            char raw[1024];
            size_t len = gcev_utf16_to_utf8(v.name, raw, sizeof raw);
            if (len >= sizeof raw) {
                len = sizeof raw - 1;
            }
            if (len == 0) {
                /* dotnet-gcdump's names for types the runtime logged without one */
                len = (size_t)snprintf(raw, sizeof raw, "%s(0x%x)", (v.flags & 0x8) ? "ArrayType" : "Type",
                                       (unsigned)v.type_name_id);
            }
            if (!(p->types[t].name = gcev_hp_str_add(&p->names, raw, len))) {
                return -1;
            }
            p->types[t].module_id = v.module_id;
        }
        uint64_t sz =
            8 + 8 + 4 + 4 + 1 + (uint64_t)v.name.nbytes + 2 + 4 + 8 * (uint64_t)v.type_parameter_count;
        if (sz > UINT32_MAX || window_next(&w, (uint32_t)sz)) {
            break;
        }
    }
    return 0;
}

gcev_status gcev_heap_reader_add(gcev_heap_reader *r, const gcev_trace_event *ev)
{
    if (!r || !ev) {
        return GCEV_E_INVALID_ARG;
    }
    if (r->failed) {
        return GCEV_E_NOMEM;
    }
    if (ev->no_event_id || !ev->provider || ev->provider != r->runtime) {
        return GCEV_OK;
    }
    int id = ev->event_id;
    if (id != EV_GC_START && id != EV_GC_END && id != EV_BULK_TYPE && id != EV_ROOT_EDGE && id != EV_CWT &&
        id != EV_NODE && id != EV_EDGE && id != EV_CCW && id != EV_RCW && id != EV_STATIC) {
        return GCEV_OK;
    }
    heap_proc *p = proc_for(r, ev->process_id);
    if (!p) {
        r->failed = 1;
        return GCEV_E_NOMEM;
    }
    int rc = 0;
    if (id == EV_GC_START) {
        gcev_gc_start g;
        if (gcev_decode_gc_start(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &g, NULL,
                                 NULL) != GCEV_OK) {
            return GCEV_OK;
        }
        close_dump(r, p, ev, 0);
        p->gc_open = 1;
        p->gc_count = g.count;
        p->gc_depth = g.depth;
        p->gc_reason = g.reason;
        p->gc_type = g.type;
        p->gc_start_ms = ev->ms;
        p->gc_start_ts = ev->timestamp;
        return GCEV_OK;
    }
    if (id == EV_GC_END) {
        gcev_gc_end g;
        if (gcev_decode_gc_end(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &g, NULL,
                               NULL) != GCEV_OK) {
            return GCEV_OK;
        }
        if (p->dump != SIZE_MAX) {
            gcev_heap *h = r->set->dumps[p->dump];
            if (!h->info.has_gc) {
                h->info.has_gc = 1;
                h->info.gc_number = g.count;
            }
            if (h->info.gc_number == g.count) {
                close_dump(r, p, ev, 1);
                r->ended++;
            }
        }
        if (p->gc_open && p->gc_count == g.count) {
            p->gc_open = 0;
        }
        return GCEV_OK;
    }
    if (id == EV_BULK_TYPE) {
        rc = add_types(p, ev);
    } else {
        gcev_heap *h = dump_for(r, p, ev);
        if (!h) {
            r->failed = 1;
            return GCEV_E_NOMEM;
        }
        h->info.bulk_events++;
        h->info.end_ms = ev->ms;
        h->end_ts = ev->timestamp;
        switch (id) {
        case EV_NODE:
            rc = add_nodes(h, p, ev);
            break;
        case EV_EDGE:
            rc = add_edges(h, ev);
            break;
        case EV_ROOT_EDGE:
            rc = add_root_edges(h, ev);
            break;
        case EV_CWT:
            rc = add_cwt(h, ev);
            break;
        case EV_STATIC:
            rc = add_statics(h, ev);
            break;
        case EV_CCW:
            rc = add_ccw(h, ev);
            break;
        default: /* RCW: a managed object of the graph already; nothing to add on Linux, listed only */
            break;
        }
    }
    if (rc) {
        r->failed = 1;
        return GCEV_E_NOMEM;
    }
    return GCEV_OK;
}

/* Lost events and skipped bytes of the trace that fall inside a dump's time span. */
static void match_trace_faults(gcev_heap_set *s, const gcev_trace *t)
{
    if (!t) {
        return;
    }
    for (size_t i = 0; i < gcev_trace_drop_count(t); i++) {
        const gcev_trace_drop *d = gcev_trace_drop_at(t, i);
        for (size_t k = 0; k < s->n; k++) {
            gcev_heap *h = s->dumps[k];
            /* the events lost came before d->timestamp, after the thread's previous one:
             * a gap whose next event is inside the span, or just after it when the dump
             * has no end, may have taken the dump's events */
            int inside = d->timestamp >= h->start_ts &&
                         (d->timestamp <= h->end_ts || (h->info.flags & GCEV_HEAP_NO_END));
            if (inside) {
                h->info.flags |= GCEV_HEAP_EVENTS_LOST;
                h->info.lost_events += d->dropped;
                gcev_hp_problem(h, "%llu events lost (sequence %u expected, %u seen) before file offset %llu",
                                (unsigned long long)d->dropped, d->expected_sequence, d->seen_sequence,
                                (unsigned long long)d->file_offset);
            }
        }
    }
    for (size_t i = 0; i < gcev_trace_skip_count(t); i++) {
        const gcev_trace_skip *k = gcev_trace_skip_at(t, i);
        for (size_t j = 0; j < s->n; j++) {
            gcev_heap *h = s->dumps[j];
            if (!k->has_timestamp || (k->timestamp >= h->start_ts &&
                                      (k->timestamp <= h->end_ts || (h->info.flags & GCEV_HEAP_NO_END)))) {
                h->info.flags |= GCEV_HEAP_SKIPPED;
                gcev_hp_problem(h, "%llu damaged bytes skipped at file offset %llu: %s",
                                (unsigned long long)k->bytes, (unsigned long long)k->offset,
                                k->message ? k->message : "");
            }
        }
    }
}

gcev_status gcev_heap_reader_finish(gcev_heap_reader *r, const gcev_trace *t, gcev_heap_set **out)
{
    if (!out) {
        gcev_heap_reader_free(r);
        return GCEV_E_INVALID_ARG;
    }
    *out = NULL;
    if (!r) {
        return GCEV_E_INVALID_ARG;
    }
    if (r->failed) {
        gcev_heap_reader_free(r);
        return GCEV_E_NOMEM;
    }
    gcev_heap_set *s = r->set;
    for (size_t i = 0; i < s->nprocs; i++) {
        close_dump(r, &s->procs[i], NULL, 0);
    }
    match_trace_faults(s, t);
    for (size_t i = 0; i < s->n; i++) {
        if (gcev_hp_build_graph(s, s->dumps[i]) != 0) {
            gcev_heap_reader_free(r);
            return GCEV_E_NOMEM;
        }
    }
    r->set = NULL;
    gcev_heap_reader_free(r);
    *out = s;
    return GCEV_OK;
}

gcev_status gcev_heap_read_trace(gcev_trace *t, gcev_heap_set **out, gcev_error *err)
{
    if (!out) {
        return GCEV_E_INVALID_ARG;
    }
    *out = NULL;
    if (!t) {
        return GCEV_E_INVALID_ARG;
    }
    gcev_heap_reader *r;
    gcev_status st = gcev_heap_reader_new(&r);
    if (st != GCEV_OK) {
        return st;
    }
    gcev_trace_event ev;
    gcev_error e = {0};
    while ((st = gcev_trace_next(t, &ev, &e)) == GCEV_OK) {
        if (gcev_heap_reader_add(r, &ev) != GCEV_OK) {
            gcev_heap_reader_free(r);
            return GCEV_E_NOMEM;
        }
    }
    gcev_status fin = gcev_heap_reader_finish(r, t, out);
    if (fin != GCEV_OK) {
        return fin;
    }
    if (st != GCEV_END) {
        if (err) {
            *err = e;
        }
        return st;
    }
    return GCEV_OK;
}

gcev_status gcev_heap_read_file(const char *path, gcev_heap_set **out, gcev_error *err)
{
    if (!out) {
        return GCEV_E_INVALID_ARG;
    }
    *out = NULL;
    gcev_trace_options o = {.struct_size = sizeof o};
    o.order = GCEV_TRACE_ORDER_TIME;
    gcev_trace *t;
    gcev_status st = gcev_trace_open_file(path, &o, &t, err);
    if (st != GCEV_OK) {
        return st;
    }
    st = gcev_heap_read_trace(t, out, err);
    gcev_trace_close(t);
    return st;
}
