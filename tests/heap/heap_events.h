/* SPDX-License-Identifier: MIT */
/*
 * Bulk heap events built by hand (the manifest's packed layouts, 64-bit pointers)
 * and fed to a gcev_heap_reader: for the unit tests, the fuzz harness and the bench.
 */
#ifndef GCEV_TEST_HEAP_EVENTS_H
#define GCEV_TEST_HEAP_EVENTS_H

#include <gcev/gcev_heap.h>
#include <stdlib.h>
#include <string.h>

typedef struct hev_buf {
    uint8_t *b;
    size_t n, cap;
} hev_buf;

static inline void hev_put(hev_buf *w, const void *p, size_t n)
{
    if (w->n + n > w->cap) {
        size_t c = w->cap ? w->cap : 256;
        while (c < w->n + n) {
            c *= 2;
        }
        uint8_t *q = realloc(w->b, c);
        if (!q) {
            abort();
        }
        w->b = q;
        w->cap = c;
    }
    memcpy(w->b + w->n, p, n);
    w->n += n;
}
static inline void hev_u8(hev_buf *w, uint8_t v)
{
    hev_put(w, &v, 1);
}
static inline void hev_u16(hev_buf *w, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    hev_put(w, b, 2);
}
static inline void hev_u32(hev_buf *w, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        hev_u8(w, (uint8_t)(v >> (8 * i)));
    }
}
static inline void hev_u64(hev_buf *w, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        hev_u8(w, (uint8_t)(v >> (8 * i)));
    }
}
static inline void hev_str(hev_buf *w, const char *s)
{
    for (; *s; s++) {
        hev_u16(w, (uint8_t)*s);
    }
    hev_u16(w, 0);
}

/* When set, hev_feed hands each event to it instead of the reader (the fuzz seed writer
 * records the events: tests/fuzz/fuzz_heap_seeds.c). */
static void (*hev_capture)(uint16_t id, const uint8_t *payload, size_t n, uint32_t pid, double ms);

/* Feeds the payload in w as event `id` (version 0, 1 for GCStart/GCEnd) at time ms. */
static inline gcev_status hev_feed(gcev_heap_reader *r, uint16_t id, hev_buf *w, uint32_t pid, double ms)
{
    if (hev_capture) {
        hev_capture(id, w->b, w->n, pid, ms);
        w->n = 0;
        return GCEV_OK;
    }
    gcev_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.provider_name = "Microsoft-Windows-DotNETRuntime";
    ev.provider = gcev_provider_find("Microsoft-Windows-DotNETRuntime");
    ev.event_id = id;
    ev.version = (id == 1 || id == 2) ? 1 : 0;
    ev.process_id = pid;
    ev.pointer_size = 8;
    ev.payload = w->b;
    ev.payload_size = (uint32_t)w->n;
    ev.ms = ms;
    ev.timestamp = (int64_t)(ms * 1000);
    gcev_status st = gcev_heap_reader_add(r, &ev);
    w->n = 0;
    return st;
}

static inline void hev_gc(gcev_heap_reader *r, hev_buf *w, int start, uint32_t count, uint32_t pid, double ms)
{
    hev_u32(w, count);
    hev_u32(w, 2);
    if (start) {
        hev_u32(w, 1); /* Reason: Induced */
        hev_u32(w, 0); /* Type: NonConcurrentGC */
    }
    hev_u16(w, 0);
    hev_feed(r, start ? 1 : 2, w, pid, ms);
}

typedef struct hev_node {
    uint64_t addr, size, type, nedges;
} hev_node;

static inline void hev_nodes(gcev_heap_reader *r, hev_buf *w, uint32_t index, const hev_node *n,
                             uint32_t count, uint32_t pid, double ms)
{
    hev_u32(w, index);
    hev_u32(w, count);
    hev_u16(w, 0);
    for (uint32_t i = 0; i < count; i++) {
        hev_u64(w, n[i].addr);
        hev_u64(w, n[i].size);
        hev_u64(w, n[i].type);
        hev_u64(w, n[i].nedges);
    }
    hev_feed(r, 18, w, pid, ms);
}

static inline void hev_edges(gcev_heap_reader *r, hev_buf *w, uint32_t index, const uint64_t *to,
                             uint32_t count, uint32_t pid, double ms)
{
    hev_u32(w, index);
    hev_u32(w, count);
    hev_u16(w, 0);
    for (uint32_t i = 0; i < count; i++) {
        hev_u64(w, to[i]);
        hev_u32(w, 0);
    }
    hev_feed(r, 19, w, pid, ms);
}

/* one root edge: kind (0 stack, 1 finalizer, 2 handle), flags */
static inline void hev_root(gcev_heap_reader *r, hev_buf *w, uint32_t index, uint64_t addr, uint8_t kind,
                            uint32_t flags, uint32_t pid, double ms)
{
    hev_u32(w, index);
    hev_u32(w, 1);
    hev_u16(w, 0);
    hev_u64(w, addr);
    hev_u8(w, kind);
    hev_u32(w, flags);
    hev_u64(w, 0x1000 + addr);
    hev_feed(r, 16, w, pid, ms);
}

static inline void hev_type(gcev_heap_reader *r, hev_buf *w, uint64_t id, const char *name, uint32_t pid,
                            double ms)
{
    hev_u32(w, 1);
    hev_u16(w, 0);
    hev_u64(w, id);
    hev_u64(w, 0x77);
    hev_u32(w, 0);
    hev_u32(w, 0);
    hev_u8(w, 18);
    hev_str(w, name);
    hev_u32(w, 0);
    hev_feed(r, 15, w, pid, ms);
}

static inline void hev_static(gcev_heap_reader *r, hev_buf *w, uint64_t addr, uint64_t type,
                              const char *field, uint32_t pid, double ms)
{
    hev_u32(w, 1);
    hev_u64(w, 1);
    hev_u16(w, 0);
    hev_u64(w, 0x9000);
    hev_u64(w, addr);
    hev_u64(w, type);
    hev_u32(w, 0);
    hev_str(w, field);
    hev_feed(r, 38, w, pid, ms);
}

static inline void hev_cwt(gcev_heap_reader *r, hev_buf *w, uint64_t key, uint64_t value, uint32_t pid,
                           double ms)
{
    hev_u32(w, 0);
    hev_u32(w, 1);
    hev_u16(w, 0);
    hev_u64(w, key);
    hev_u64(w, value);
    hev_u64(w, 0x5000);
    hev_feed(r, 17, w, pid, ms);
}

#endif
