/* SPDX-License-Identifier: MIT */
/*
 * Timestamp ordering between barriers (see gcev_order.h for the model).
 *
 * Two generations: `fill` receives copies of the events read since the last
 * barrier; at a barrier it becomes `drain`, whose entries are grouped by stream
 * (a counting sort keeps file order inside each stream) and merged with a
 * binary heap of stream heads keyed by (timestamp, file order). File order
 * breaks timestamp ties, so the output is deterministic. A stream whose
 * timestamps do go back (a writer bug) is sorted on its own first, so the
 * output is still sorted, just slower.
 */
#include "gcev_idmap.h"
#include "gcev_order.h"

#include <stdlib.h>
#include <string.h>

enum { ORDER_DEFAULT_WINDOW = 1u << 20 };
#define ORDER_NONE SIZE_MAX

typedef struct order_entry {
    gcev_trace_event ev;
    size_t payload_off, stack_off, pname_off, ename_off;
    uint64_t ord;
    uint32_t stream;
} order_entry;

typedef struct order_gen {
    order_entry *e;
    size_t n, cap;
    uint8_t *arena;
    size_t used, acap;
    gcev_idmap streams; /* capture thread -> stream index */
    uint32_t nstreams;
} order_gen;

struct gcev_order {
    order_gen fill, drain;
    uint32_t *idx; /* drain entries grouped by stream */
    size_t idx_cap;
    size_t *run_pos, *run_end;
    uint32_t *heap;
    size_t run_cap, heap_n;
    int pending; /* a barrier arrived while draining */
    int failed;  /* out of memory while preparing a merge */
    size_t window, max_bytes;
    uint64_t next_ord;
};

gcev_order *gcev_order_create(size_t window, size_t max_bytes)
{
    gcev_order *o = calloc(1, sizeof *o);
    if (o) {
        o->window = window ? window : ORDER_DEFAULT_WINDOW;
        o->max_bytes = max_bytes ? max_bytes : (size_t)256 << 20;
    }
    return o;
}

static void gen_free(order_gen *g)
{
    free(g->e);
    free(g->arena);
    gcev_idmap_free(&g->streams);
}

void gcev_order_destroy(gcev_order *o)
{
    if (!o) {
        return;
    }
    gen_free(&o->fill);
    gen_free(&o->drain);
    free(o->idx);
    free(o->run_pos);
    free(o->run_end);
    free(o->heap);
    free(o);
}

static void gen_reset(order_gen *g)
{
    g->n = 0;
    g->used = 0;
    g->nstreams = 0;
    gcev_idmap_clear(&g->streams);
}

/* Stream index of a capture thread, UINT32_MAX when out of memory. */
static uint32_t gen_stream(order_gen *g, uint64_t key)
{
    uint32_t idx = gcev_idmap_get(&g->streams, key);
    if (idx != UINT32_MAX) {
        return idx;
    }
    if (!gcev_idmap_put(&g->streams, key, g->nstreams)) {
        return UINT32_MAX;
    }
    return g->nstreams++;
}

/* Appends n bytes to the arena; returns the offset or ORDER_NONE. */
static size_t gen_copy(order_gen *g, const void *p, size_t n)
{
    if (g->acap - g->used < n) {
        size_t cap = g->acap ? g->acap : 4096;
        while (cap - g->used < n) {
            if (cap > SIZE_MAX / 2) {
                return ORDER_NONE;
            }
            cap *= 2;
        }
        uint8_t *a = realloc(g->arena, cap);
        if (!a) {
            return ORDER_NONE;
        }
        g->arena = a;
        g->acap = cap;
    }
    size_t off = g->used;
    if (n) {
        memcpy(g->arena + off, p, n);
    }
    g->used += n;
    return off;
}

gcev_status gcev_order_push(gcev_order *o, const gcev_trace_event *ev)
{
    order_gen *g = &o->fill;
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 256;
        order_entry *e = realloc(g->e, cap * sizeof *e);
        if (!e) {
            return GCEV_E_NOMEM;
        }
        g->e = e;
        g->cap = cap;
    }
    order_entry *x = &g->e[g->n];
    x->ev = *ev;
    x->ord = o->next_ord++;
    x->stream = gen_stream(g, ev->capture_thread_id);
    x->payload_off = ev->payload_size ? gen_copy(g, ev->payload, ev->payload_size) : ORDER_NONE;
    x->stack_off = ev->stack ? gen_copy(g, ev->stack, ev->stack_size) : ORDER_NONE;
    const char *pn = ev->provider_name ? ev->provider_name : "";
    const char *en = ev->event_name ? ev->event_name : "";
    x->pname_off = gen_copy(g, pn, strlen(pn) + 1);
    x->ename_off = gen_copy(g, en, strlen(en) + 1);
    if (x->stream == UINT32_MAX || x->pname_off == ORDER_NONE || x->ename_off == ORDER_NONE ||
        (ev->payload_size && x->payload_off == ORDER_NONE) || (ev->stack && x->stack_off == ORDER_NONE)) {
        return GCEV_E_NOMEM;
    }
    g->n++;
    /* The bounded window for readers without sequence points. */
    if (g->n >= o->window || g->used >= o->max_bytes) {
        gcev_order_barrier(o);
    }
    return GCEV_OK;
}

static int entry_less(const order_entry *a, const order_entry *b)
{
    if (a->ev.timestamp != b->ev.timestamp) {
        return a->ev.timestamp < b->ev.timestamp;
    }
    return a->ord < b->ord;
}

/* Heapsort of idx[0..n) by entry order (keys are unique, so stability is moot). */
static void idx_sift(const order_entry *e, uint32_t *idx, size_t i, size_t n)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && entry_less(&e[idx[m]], &e[idx[l]])) {
            m = l;
        }
        if (l + 1 < n && entry_less(&e[idx[m]], &e[idx[l + 1]])) {
            m = l + 1;
        }
        if (m == i) {
            return;
        }
        uint32_t t = idx[i];
        idx[i] = idx[m];
        idx[m] = t;
        i = m;
    }
}

static void idx_sort(const order_entry *e, uint32_t *idx, size_t n)
{
    for (size_t i = n / 2; i-- > 0;) {
        idx_sift(e, idx, i, n);
    }
    for (size_t k = n; k-- > 1;) {
        uint32_t t = idx[0];
        idx[0] = idx[k];
        idx[k] = t;
        idx_sift(e, idx, 0, k);
    }
}

static int heap_less(const gcev_order *o, uint32_t sa, uint32_t sb)
{
    const order_entry *e = o->drain.e;
    return entry_less(&e[o->idx[o->run_pos[sa]]], &e[o->idx[o->run_pos[sb]]]);
}

static void heap_down(gcev_order *o, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < o->heap_n && heap_less(o, o->heap[l], o->heap[m])) {
            m = l;
        }
        if (l + 1 < o->heap_n && heap_less(o, o->heap[l + 1], o->heap[m])) {
            m = l + 1;
        }
        if (m == i) {
            return;
        }
        uint32_t t = o->heap[i];
        o->heap[i] = o->heap[m];
        o->heap[m] = t;
        i = m;
    }
}

/* Makes fill the drain and prepares the merge. */
static void order_swap(gcev_order *o)
{
    order_gen t = o->drain;
    o->drain = o->fill;
    o->fill = t;
    gen_reset(&o->fill);
    o->pending = 0;
    order_gen *d = &o->drain;
    uint32_t ns = d->nstreams;
    o->heap_n = 0;
    if (d->n == 0) {
        return;
    }
    if (o->idx_cap < d->n) {
        uint32_t *idx = realloc(o->idx, d->n * sizeof *idx);
        if (!idx) {
            o->failed = 1;
            return;
        }
        o->idx = idx;
        o->idx_cap = d->n;
    }
    if (o->run_cap < ns) {
        size_t *rp = realloc(o->run_pos, ns * sizeof *rp);
        if (rp) {
            o->run_pos = rp;
        }
        size_t *re = realloc(o->run_end, ns * sizeof *re);
        if (re) {
            o->run_end = re;
        }
        uint32_t *h = realloc(o->heap, ns * sizeof *h);
        if (h) {
            o->heap = h;
        }
        if (!rp || !re || !h) {
            o->failed = 1;
            return;
        }
        o->run_cap = ns;
    }
    /* Counting sort by stream: run s is idx[run_pos[s] .. run_end[s]). */
    memset(o->run_end, 0, ns * sizeof *o->run_end);
    for (size_t i = 0; i < d->n; i++) {
        o->run_end[d->e[i].stream]++;
    }
    size_t at = 0;
    for (uint32_t s = 0; s < ns; s++) {
        size_t c = o->run_end[s];
        o->run_pos[s] = at;
        o->run_end[s] = at; /* insertion cursor until the loop below ends */
        at += c;
    }
    for (size_t i = 0; i < d->n; i++) {
        o->idx[o->run_end[d->e[i].stream]++] = (uint32_t)i;
    }
    for (uint32_t s = 0; s < ns; s++) {
        for (size_t i = o->run_pos[s] + 1; i < o->run_end[s]; i++) {
            if (entry_less(&d->e[o->idx[i]], &d->e[o->idx[i - 1]])) {
                idx_sort(d->e, o->idx + o->run_pos[s], o->run_end[s] - o->run_pos[s]);
                break;
            }
        }
        o->heap[o->heap_n++] = s;
    }
    for (size_t i = o->heap_n / 2; i-- > 0;) {
        heap_down(o, i);
    }
}

void gcev_order_barrier(gcev_order *o)
{
    if (o->heap_n > 0) {
        o->pending = 1; /* still draining: swap once the drain is empty */
        return;
    }
    order_swap(o);
}

int gcev_order_pop(gcev_order *o, gcev_trace_event *ev)
{
    if (o->heap_n == 0 && o->pending) {
        order_swap(o);
    }
    if (o->failed) {
        return -1;
    }
    if (o->heap_n == 0) {
        return 0;
    }
    uint32_t s = o->heap[0];
    const order_entry *x = &o->drain.e[o->idx[o->run_pos[s]]];
    if (++o->run_pos[s] == o->run_end[s]) {
        o->heap[0] = o->heap[--o->heap_n];
    }
    heap_down(o, 0);
    const uint8_t *a = o->drain.arena;
    *ev = x->ev;
    ev->payload = x->payload_off == ORDER_NONE ? NULL : a + x->payload_off;
    ev->stack = x->stack_off == ORDER_NONE ? NULL : a + x->stack_off;
    ev->provider_name = (const char *)a + x->pname_off;
    ev->event_name = (const char *)a + x->ename_off;
    return 1;
}
