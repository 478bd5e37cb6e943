/* SPDX-License-Identifier: MIT */
/*
 * A binary min-heap of event copies keyed by (timestamp, arrival), released up to
 * a watermark (see gcev_reorder.h). One allocation per event holds its copy: a
 * live stream carries thousands of events a second, not millions, and a popped
 * event's bytes are freed when the next one is popped.
 */
#include "gcev_reorder.h"

#include <stdlib.h>
#include <string.h>

#include "gcev_vec.h"

enum { REORDER_DEFAULT_WINDOW = 1u << 20 };

typedef struct reorder_item {
    gcev_trace_event ev; /* its pointers lead into the same allocation */
    uint64_t ord;
    size_t bytes;
} reorder_item;

struct gcev_reorder {
    reorder_item **heap;
    size_t n, cap;
    reorder_item *out; /* the event popped last, freed at the next pop */
    int64_t mark;
    int has_mark, all;
    uint64_t next_ord;
    size_t bytes, window, max_bytes;
};

gcev_reorder *gcev_reorder_create(size_t window, size_t max_bytes)
{
    gcev_reorder *r = calloc(1, sizeof *r);
    if (r) {
        r->window = window ? window : REORDER_DEFAULT_WINDOW;
        r->max_bytes = max_bytes ? max_bytes : (size_t)256 << 20;
    }
    return r;
}

void gcev_reorder_destroy(gcev_reorder *r)
{
    if (!r) {
        return;
    }
    for (size_t i = 0; i < r->n; i++) {
        free(r->heap[i]);
    }
    free(r->heap);
    free(r->out);
    free(r);
}

static int item_less(const reorder_item *a, const reorder_item *b)
{
    if (a->ev.timestamp != b->ev.timestamp) {
        return a->ev.timestamp < b->ev.timestamp;
    }
    return a->ord < b->ord;
}

static void sift_up(reorder_item **h, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!item_less(h[i], h[p])) {
            return;
        }
        reorder_item *t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

static void sift_down(reorder_item **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && item_less(h[l], h[m])) {
            m = l;
        }
        if (l + 1 < n && item_less(h[l + 1], h[m])) {
            m = l + 1;
        }
        if (m == i) {
            return;
        }
        reorder_item *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Copies n bytes of p to *at and returns where they went (NULL for none). */
static const void *put(uint8_t **at, const void *p, size_t n)
{
    if (!p) {
        return NULL;
    }
    void *dst = *at;
    if (n) {
        memcpy(dst, p, n);
    }
    *at += n;
    return dst;
}

gcev_status gcev_reorder_push(gcev_reorder *r, const gcev_trace_event *ev)
{
    if (r->n == r->cap && !gcev_reserve((void **)&r->heap, &r->cap, r->n + 1, sizeof *r->heap)) {
        return GCEV_E_NOMEM;
    }
    size_t pn = ev->provider_name ? strlen(ev->provider_name) + 1 : 0;
    size_t en = ev->event_name ? strlen(ev->event_name) + 1 : 0;
    size_t qn = ev->process_name ? strlen(ev->process_name) + 1 : 0;
    size_t pay = ev->payload ? ev->payload_size : 0, stk = ev->stack ? ev->stack_size : 0;
    size_t extra = pay + stk + pn + en + qn;
    if (extra > SIZE_MAX - sizeof(reorder_item)) {
        return GCEV_E_NOMEM;
    }
    reorder_item *it = malloc(sizeof *it + extra);
    if (!it) {
        return GCEV_E_NOMEM;
    }
    uint8_t *at = (uint8_t *)(it + 1);
    it->ev = *ev;
    it->ev.payload = put(&at, ev->payload, pay);
    it->ev.stack = put(&at, ev->stack, stk);
    it->ev.provider_name = put(&at, ev->provider_name, pn);
    it->ev.event_name = put(&at, ev->event_name, en);
    it->ev.process_name = put(&at, ev->process_name, qn);
    it->ord = r->next_ord++;
    it->bytes = sizeof *it + extra;
    r->heap[r->n] = it;
    sift_up(r->heap, r->n++);
    r->bytes += it->bytes;
    return GCEV_OK;
}

void gcev_reorder_release_to(gcev_reorder *r, int64_t ts)
{
    if (!r->has_mark || ts > r->mark) {
        r->mark = ts;
        r->has_mark = 1;
    }
}

void gcev_reorder_release_all(gcev_reorder *r)
{
    r->all = 1;
}

int gcev_reorder_pop(gcev_reorder *r, gcev_trace_event *ev)
{
    free(r->out);
    r->out = NULL;
    if (r->n == 0) {
        r->all = 0; /* a release of everything covers what was held then */
        return 0;
    }
    reorder_item *top = r->heap[0];
    int over = r->n > r->window || r->bytes > r->max_bytes; /* the bound: the oldest leave early */
    if (!r->all && !over && !(r->has_mark && top->ev.timestamp <= r->mark)) {
        return 0;
    }
    r->heap[0] = r->heap[--r->n];
    sift_down(r->heap, r->n, 0);
    r->bytes -= top->bytes;
    r->out = top;
    *ev = top->ev;
    return 1;
}
