/* SPDX-License-Identifier: MIT */
/*
 * The trace writer (gcev_writer.h): the inverse of the EventPipe reader, kept
 * simple rather than small: every metadata record, stack and thread goes in its
 * own block, events of consecutive calls share one event block (after
 * gcev_writer_runtime_blocks: stacks shared and blocked as the runtime writes them).
 * NetPerf V1/V2 have no blocks: metadata and event records follow the Trace
 * object's fields inline (a metadata id is the file offset of its record), and
 * the end of that stream is a forward reference resolved through the table
 * written at the end of the file.
 */
#include <gcev/gcev_writer.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcev_idmap.h"
#include "gcev_read.h"

typedef struct wbuf {
    uint8_t *p;
    size_t len, cap;
    int failed;
} wbuf;

typedef struct wthread {
    uint64_t capture;
    uint32_t last;
} wthread;

struct gcev_writer {
    gcev_writer_options o;
    wbuf out; /* the file */
    wbuf blk; /* rows of the pending event block */
    int64_t blk_min, blk_max;
    struct {
        uint32_t meta_id, seq, proc, stack_id, label_id;
        uint64_t capture, tid, ts;
    } prev;
    uint32_t nmeta;
    uint32_t next_stack_id;
    uint32_t next_label_id;
    wthread *threads;
    size_t nthreads, cap_threads;
    gcev_idmap thread_ids; /* capture thread -> index in threads (tests write 100k+ threads) */
    gcev_idmap v6_ids;     /* V6: thread indexes already described (-> 1) */
    uint32_t *meta_off;    /* V1/V2: file offset of metadata record id - 1 */
    size_t cap_meta_off;
    int finished;
    /* gcev_writer_runtime_blocks: shared stacks between sequence points */
    int runtime_blocks;
    uint32_t block_bytes; /* event rows before a new block */
    wbuf stk;             /* rows of the pending stack block: the stacks new to the event block */
    uint32_t stk_first, stk_count;
    wbuf region;          /* bytes of the stacks given ids since the last sequence point */
    uint64_t *region_pos; /* per id - 1: offset << 32 | size */
    size_t cap_region_pos;
    gcev_idmap stack_ids; /* hash of a stack's bytes -> id */
};

static void put(wbuf *b, const void *p, size_t n)
{
    if (b->failed) {
        return;
    }
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n) {
            cap *= 2;
        }
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->failed = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    if (n) {
        memcpy(b->p + b->len, p, n);
    }
    b->len += n;
}

static void put8(wbuf *b, uint8_t v)
{
    put(b, &v, 1);
}

/* Grows *v to hold at least n items; 0 when out of memory. */
static int reserve_u32(uint32_t **v, size_t *cap, size_t n)
{
    if (n <= *cap) {
        return 1;
    }
    size_t c = *cap ? *cap * 2 : 16;
    while (c < n) {
        c *= 2;
    }
    uint32_t *p = realloc(*v, c * sizeof *p);
    if (!p) {
        return 0;
    }
    *v = p;
    *cap = c;
    return 1;
}
static int reserve_u64(uint64_t **v, size_t *cap, size_t n)
{
    if (n <= *cap) {
        return 1;
    }
    size_t c = *cap ? *cap * 2 : 16;
    while (c < n) {
        c *= 2;
    }
    uint64_t *p = realloc(*v, c * sizeof *p);
    if (!p) {
        return 0;
    }
    *v = p;
    *cap = c;
    return 1;
}
static void put16(wbuf *b, uint16_t v)
{
    uint8_t t[2];
    gcev_put16(t, v);
    put(b, t, 2);
}
static void put32(wbuf *b, uint32_t v)
{
    uint8_t t[4];
    gcev_put32(t, v);
    put(b, t, 4);
}
static void put64(wbuf *b, uint64_t v)
{
    uint8_t t[8];
    gcev_put64(t, v);
    put(b, t, 8);
}
static void putvar(wbuf *b, uint64_t v)
{
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        put8(b, (uint8_t)(c | (v ? 0x80 : 0)));
    } while (v);
}
static void pad4(wbuf *b, size_t base)
{
    while ((base + b->len) & 3) {
        put8(b, 0);
    }
}
/* ASCII/UTF-8 as UTF-16LE with terminator (V3-V5 strings; non-ASCII bytes pass as code units). */
static void put_utf16z(wbuf *b, const char *s)
{
    for (; s && *s; s++) {
        put16(b, (uint8_t)*s);
    }
    put16(b, 0);
}
static void put_str8(wbuf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    putvar(b, n);
    put(b, s, n);
}

static int v6(const gcev_writer *w)
{
    return w->o.format_version >= 6;
}
static int inline_events(const gcev_writer *w)
{
    return w->o.format_version <= 2;
}

static const char netperf_v12_type[] = "Microsoft.DotNet.Runtime.EventPipeFile";

gcev_status gcev_writer_create(const gcev_writer_options *opts, gcev_writer **out)
{
    *out = NULL;
    if (!opts || opts->format_version < 1 || opts->format_version > 6 ||
        (opts->pointer_size && opts->pointer_size != 4 && opts->pointer_size != 8) ||
        (opts->format_version <= 2 && opts->pointer_size == 4)) { /* V1/V2: 64-bit only */
        return GCEV_E_UNSUPPORTED;
    }
    gcev_writer *w = calloc(1, sizeof *w);
    if (!w) {
        return GCEV_E_NOMEM;
    }
    w->o = *opts;
    if (!w->o.pointer_size) {
        w->o.pointer_size = 8;
    }
    if (!w->o.clock_frequency) {
        w->o.clock_frequency = 1000000000u;
    }
    w->next_stack_id = 1;
    wbuf *b = &w->out;
    static const uint8_t systime[16] = {0xe4, 0x07, 1, 0, 5, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0};
    if (w->o.format_version >= 4) {
        put(b, "Nettrace", 8);
    }
    if (v6(w)) {
        put32(b, 0);
        put32(b, 6);
        put32(b, 0);
        wbuf body = {0};
        char num[2][16];
        snprintf(num[0], sizeof num[0], "%u", w->o.process_id);
        snprintf(num[1], sizeof num[1], "%u", w->o.processor_count);
        put(&body, systime, 16);
        put64(&body, (uint64_t)w->o.sync_time_qpc);
        put64(&body, w->o.clock_frequency);
        put32(&body, w->o.pointer_size);
        put32(&body, 2);
        put_str8(&body, "ProcessId");
        put_str8(&body, num[0]);
        put_str8(&body, "HardwareThreadCount");
        put_str8(&body, num[1]);
        put32(b, (uint32_t)body.len | (1u << 24));
        put(b, body.p, body.len);
        b->failed |= body.failed;
        free(body.p);
    } else if (inline_events(w)) {
        size_t n = sizeof netperf_v12_type - 1;
        put32(b, 20);
        put(b, "!FastSerialization.1", 20);
        put8(b, 4); /* BeginObject: the trace, then its type */
        put8(b, 4);
        put8(b, 1);
        put32(b, w->o.format_version);
        put32(b, 0);
        put32(b, (uint32_t)n);
        put(b, netperf_v12_type, n);
        put8(b, 6);
        put32(b, 0); /* forward reference 0: the end of the events */
        put(b, systime, 16);
        put64(b, (uint64_t)w->o.sync_time_qpc);
        put64(b, w->o.clock_frequency);
    } else {
        uint8_t tag = w->o.format_version >= 4 ? 5 : 4;
        put32(b, 20);
        put(b, "!FastSerialization.1", 20);
        put8(b, tag);
        put8(b, tag);
        put8(b, 1);
        put32(b, w->o.format_version >= 4 ? 4 : 3);
        put32(b, w->o.format_version >= 4 ? 4 : 0);
        put32(b, 5);
        put(b, "Trace", 5);
        put8(b, 6);
        put(b, systime, 16);
        put64(b, (uint64_t)w->o.sync_time_qpc);
        put64(b, w->o.clock_frequency);
        put32(b, w->o.pointer_size);
        put32(b, w->o.process_id);
        put32(b, w->o.processor_count);
        put32(b, 0);
        put8(b, 6);
    }
    if (b->failed) {
        gcev_writer_free(w);
        return GCEV_E_NOMEM;
    }
    *out = w;
    return GCEV_OK;
}

/* Event rows a block holds before the next event starts a new one: the runtime flushes its
 * blocks at 100 KB; a V6 block cannot exceed 16 MiB - 1 (its size field has 24 bits), and one
 * that did wrapped into the kind byte (a trace of 1 M events read as 7). */
enum { WRITER_BLOCK_BYTES = 1u << 20 };

/* A FastSerialization object (V3-V5) or a V6 block around body. */
static void write_block(gcev_writer *w, const char *name, uint8_t kind, const wbuf *body)
{
    wbuf *b = &w->out;
    if (v6(w)) {
        if (body->len > 0xffffffu) {
            b->failed = 1; /* BlockSize is a uint24 (NetTraceFormat.md, "Blocks") */
            return;
        }
        put32(b, (uint32_t)body->len | ((uint32_t)kind << 24));
        put(b, body->p, body->len);
    } else {
        uint8_t tag = w->o.format_version >= 4 ? 5 : 4;
        size_t n = strlen(name);
        put8(b, tag);
        put8(b, tag);
        put8(b, 1);
        put32(b, w->o.format_version >= 4 ? 2 : 1);
        put32(b, w->o.format_version >= 4 ? 2 : 0);
        put32(b, (uint32_t)n);
        put(b, name, n);
        put8(b, 6);
        put32(b, (uint32_t)body->len);
        pad4(b, 0);
        put(b, body->p, body->len);
        put8(b, 6);
    }
    b->failed |= body->failed;
}

/* Event-block header + rows (V4+), or rows alone (V3); the stacks they use first. */
static void flush_events(gcev_writer *w)
{
    if (w->stk_count) {
        wbuf sb = {0};
        put32(&sb, w->stk_first);
        put32(&sb, w->stk_count);
        put(&sb, w->stk.p, w->stk.len);
        write_block(w, "StackBlock", 5, &sb);
        free(sb.p);
        w->stk.len = 0;
        w->stk_count = 0;
    }
    if (w->blk.len == 0) {
        return;
    }
    wbuf body = {0};
    if (w->o.format_version >= 4) {
        put16(&body, 20);
        put16(&body, w->o.compressed ? 1 : 0);
        put64(&body, (uint64_t)w->blk_min);
        put64(&body, (uint64_t)w->blk_max);
    }
    put(&body, w->blk.p, w->blk.len);
    write_block(w, "EventBlock", 2, &body);
    free(body.p);
    w->blk.len = 0;
    memset(&w->prev, 0, sizeof w->prev);
}

/* One row in the V3-V5 layouts (metadata rows have meta_id 0). body_base: bytes before
 * the rows in the block body, so that padding lands on 4-byte file offsets. */
static void put_row_v5(gcev_writer *w, wbuf *rows, size_t body_base, uint32_t meta_id, uint32_t seq,
                       uint64_t tid, uint64_t cap, uint32_t proc, uint32_t stack_id, int64_t ts,
                       const gcev_guid *act, const uint8_t *payload, uint32_t psize, const uint8_t *stack,
                       uint32_t ssize)
{
    uint8_t g[16] = {0};
    if (w->o.format_version >= 4 && w->o.compressed) {
        uint8_t flags = 1 | 4 | 8 | 128;
        if (meta_id) {
            flags |= 2;
        }
        if (act) {
            flags |= 16;
        }
        put8(rows, flags);
        putvar(rows, meta_id);
        if (meta_id) {
            putvar(rows, (uint32_t)(seq - w->prev.seq - 1));
            putvar(rows, cap);
            putvar(rows, proc);
            w->prev.seq = seq;
        }
        putvar(rows, tid);
        putvar(rows, stack_id);
        putvar(rows, (uint64_t)ts - w->prev.ts);
        w->prev.ts = (uint64_t)ts;
        if (act) {
            gcev_guid_store(g, act);
            put(rows, g, 16);
        }
        putvar(rows, psize);
        put(rows, payload, psize);
        return;
    }
    size_t start = rows->len;
    if (w->o.format_version >= 4) {
        put32(rows, 0); /* EventSize, patched below */
        put32(rows, meta_id);
        put32(rows, seq);
        put64(rows, tid);
        put64(rows, cap);
        put32(rows, proc);
        put32(rows, stack_id);
        put64(rows, (uint64_t)ts);
        if (act) {
            gcev_guid_store(g, act);
        }
        put(rows, g, 16);
        memset(g, 0, 16);
        put(rows, g, 16);
        put32(rows, psize);
        put(rows, payload, psize);
    } else {
        put32(rows, 0);
        put32(rows, meta_id);
        put32(rows, (uint32_t)tid);
        put64(rows, (uint64_t)ts);
        if (act) {
            gcev_guid_store(g, act);
        }
        put(rows, g, 16);
        memset(g, 0, 16);
        put(rows, g, 16);
        put32(rows, psize);
        put(rows, payload, psize);
        put32(rows, ssize);
        put(rows, stack, ssize);
    }
    if (w->o.format_version >= 3) { /* V1/V2 records are not padded */
        pad4(rows, body_base);
    }
    if (!rows->failed) {
        gcev_put32(rows->p + start, (uint32_t)(rows->len - start - 4));
    }
}

static void put_fields_v1(wbuf *b, const gcev_trace_field *f, uint32_t n)
{
    put32(b, n);
    for (uint32_t i = 0; i < n; i++) {
        put32(b, f[i].type_code);
        if (f[i].type_code == 1) {
            put_fields_v1(b, f[i].fields, f[i].nfields);
        }
        put_utf16z(b, f[i].name);
    }
}

static void put_type_v6(wbuf *b, const gcev_trace_field *f, uint32_t tc);

static void put_fields_v6(wbuf *b, const gcev_trace_field *f, uint32_t n)
{
    put16(b, (uint16_t)n);
    for (uint32_t i = 0; i < n; i++) {
        wbuf one = {0};
        put_str8(&one, f[i].name);
        put_type_v6(&one, &f[i], f[i].type_code);
        put16(b, (uint16_t)one.len);
        put(b, one.p, one.len);
        b->failed |= one.failed;
        free(one.p);
    }
}

static void put_type_v6(wbuf *b, const gcev_trace_field *f, uint32_t tc)
{
    put8(b, (uint8_t)tc);
    if (tc == 1) {
        put_fields_v6(b, f->fields, f->nfields);
    } else if (tc == 19) {
        put_type_v6(b, f, f->array_type_code);
    }
}

static int uses_arrays(const gcev_trace_field *f, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (f[i].type_code == 19 || uses_arrays(f[i].fields, f[i].nfields)) {
            return 1;
        }
    }
    return 0;
}

/* NetPerf V1/V2 metadata record, inline: V1 names the provider by GUID (a GUID
 * text, or a compiled provider's name), V2 by name; then id, version, the
 * length of the V3-style header that repeats them, that header, the fields. */
static gcev_status define_v12(gcev_writer *w, const gcev_writer_meta *m, uint32_t id)
{
    wbuf pl = {0}, hdr = {0};
    if (w->o.format_version == 1) {
        gcev_guid g;
        const gcev_provider *p = NULL;
        if (!gcev_guid_parse(m->provider_name, &g)) {
            p = gcev_provider_find(m->provider_name);
            gcev_provider_info info;
            if (gcev_provider_get_info(p, &info) != GCEV_OK || !info.has_guid) {
                w->nmeta--;
                return GCEV_E_UNSUPPORTED;
            }
            g = info.guid;
        }
        uint8_t raw[16];
        gcev_guid_store(raw, &g);
        put(&pl, raw, 16);
    } else {
        put_utf16z(&pl, m->provider_name);
    }
    put32(&hdr, m->event_id);
    put_utf16z(&hdr, m->event_name);
    put64(&hdr, m->keywords);
    put32(&hdr, m->version);
    put32(&hdr, m->level);
    put32(&pl, m->event_id);
    put32(&pl, m->version);
    put32(&pl, (uint32_t)hdr.len);
    put(&pl, hdr.p, hdr.len);
    put_fields_v1(&pl, m->fields, m->nfields);
    pl.failed |= hdr.failed;
    free(hdr.p);
    if (!reserve_u32(&w->meta_off, &w->cap_meta_off, id) || w->out.len > UINT32_MAX) {
        free(pl.p);
        return GCEV_E_NOMEM;
    }
    w->meta_off[id - 1] = (uint32_t)w->out.len;
    put_row_v5(w, &w->out, 0, 0, 0, 0, 0, 0, 0, 0, NULL, pl.p, (uint32_t)pl.len, NULL, 0);
    w->out.failed |= pl.failed;
    free(pl.p);
    return w->out.failed ? GCEV_E_NOMEM : GCEV_OK;
}

/* V6: one metadata row (its own block) defining id. */
static gcev_status define_v6(gcev_writer *w, const gcev_writer_meta *m, uint32_t id)
{
    wbuf rec = {0}, row = {0};
    flush_events(w);
    putvar(&row, id);
    put_str8(&row, m->provider_name);
    putvar(&row, m->event_id);
    put_str8(&row, m->event_name);
    put_fields_v6(&row, m->fields, m->nfields);
    put16(&row, 1 + 1 + 1 + 8 + 1 + 1 + 1 + 1);
    put8(&row, 1);
    put8(&row, m->opcode);
    put8(&row, 3);
    put64(&row, m->keywords);
    put8(&row, 8);
    put8(&row, m->level);
    put8(&row, 9);
    put8(&row, m->version);
    put16(&rec, 0);
    put16(&rec, (uint16_t)row.len);
    put(&rec, row.p, row.len);
    rec.failed |= row.failed;
    free(row.p);
    write_block(w, "MetadataBlock", 3, &rec);
    free(rec.p);
    return w->out.failed ? GCEV_E_NOMEM : GCEV_OK;
}

gcev_status gcev_writer_define(gcev_writer *w, const gcev_writer_meta *m, uint32_t *meta_id)
{
    if (!w || !m || !meta_id || w->finished) {
        return GCEV_E_INVALID_ARG;
    }
    if (!v6(w) && uses_arrays(m->fields, m->nfields)) {
        return GCEV_E_UNSUPPORTED;
    }
    uint32_t id = ++w->nmeta;
    *meta_id = id;
    wbuf rec = {0};
    if (v6(w)) {
        return define_v6(w, m, id);
    }
    if (inline_events(w)) {
        return define_v12(w, m, id);
    }
    wbuf pl = {0};
    put32(&pl, id);
    put_utf16z(&pl, m->provider_name);
    put32(&pl, m->event_id);
    put_utf16z(&pl, m->event_name);
    put64(&pl, m->keywords);
    put32(&pl, m->version);
    put32(&pl, m->level);
    put_fields_v1(&pl, m->fields, m->nfields);
    if (w->o.format_version == 5) {
        put32(&pl, 1);
        put8(&pl, 1);
        put8(&pl, m->opcode);
    }
    if (w->o.format_version == 3) {
        /* NetPerf: metadata rows sit in the event blocks. */
        put_row_v5(w, &w->blk, 0, 0, 0, 0, 0, 0, 0, 0, NULL, pl.p, (uint32_t)pl.len, NULL, 0);
    } else {
        flush_events(w);
        put16(&rec, 20);
        put16(&rec, w->o.compressed ? 1 : 0);
        put64(&rec, 0);
        put64(&rec, 0);
        put_row_v5(w, &rec, 0, 0, 0, 0, 0, 0, 0, 0, NULL, pl.p, (uint32_t)pl.len, NULL, 0);
        memset(&w->prev, 0, sizeof w->prev);
        write_block(w, "MetadataBlock", 3, &rec);
    }
    w->out.failed |= pl.failed;
    free(pl.p);
    free(rec.p);
    return w->out.failed || w->blk.failed ? GCEV_E_NOMEM : GCEV_OK;
}

static wthread *thread_of(gcev_writer *w, uint64_t cap)
{
    uint32_t i = gcev_idmap_get(&w->thread_ids, cap);
    if (i != UINT32_MAX) {
        return &w->threads[i];
    }
    if (w->nthreads == w->cap_threads) {
        size_t c = w->cap_threads ? w->cap_threads * 2 : 8;
        wthread *t = realloc(w->threads, c * sizeof *t);
        if (!t) {
            return NULL;
        }
        w->threads = t;
        w->cap_threads = c;
    }
    if (w->nthreads >= UINT32_MAX - 1 || !gcev_idmap_put(&w->thread_ids, cap, (uint32_t)w->nthreads)) {
        return NULL;
    }
    w->threads[w->nthreads].capture = cap;
    w->threads[w->nthreads].last = 0;
    return &w->threads[w->nthreads++];
}

/* V6: describes a thread index (= the OS thread id here) before its first use. */
static int v6_thread(gcev_writer *w, uint64_t tid)
{
    if (gcev_idmap_get(&w->v6_ids, tid) != UINT32_MAX) {
        return 1;
    }
    if (!gcev_idmap_put(&w->v6_ids, tid, 1)) {
        return 0;
    }
    flush_events(w);
    wbuf row = {0}, body = {0};
    putvar(&row, tid);
    put8(&row, 2);
    putvar(&row, w->o.process_id);
    put8(&row, 3);
    putvar(&row, tid);
    put16(&body, (uint16_t)row.len);
    put(&body, row.p, row.len);
    body.failed |= row.failed;
    write_block(w, "", 6, &body);
    free(row.p);
    free(body.p);
    return !w->out.failed;
}

/* V6: a LabelList block with one list; returns its id (0 when out of memory). */
static uint32_t write_labels(gcev_writer *w, const gcev_writer_labels *l)
{
    static const gcev_guid zero;
    wbuf list = {0}, body = {0};
    uint8_t g[16];
    size_t last = 0; /* where the last label starts: its kind's high bit ends the list */
    if (memcmp(&l->activity_id, &zero, sizeof zero)) {
        last = list.len;
        put8(&list, 1);
        gcev_guid_store(g, &l->activity_id);
        put(&list, g, 16);
    }
    if (memcmp(&l->related_activity_id, &zero, sizeof zero)) {
        last = list.len;
        put8(&list, 2);
        gcev_guid_store(g, &l->related_activity_id);
        put(&list, g, 16);
    }
    if (l->tracing) {
        memset(g, 0x77, 16);
        put8(&list, 3);
        put(&list, g, 16);
        put8(&list, 4);
        put64(&list, 0x1122334455667788u);
        put8(&list, 5);
        put_str8(&list, "key");
        put_str8(&list, "value");
        last = list.len;
        put8(&list, 6);
        put_str8(&list, "n");
        putvar(&list, 42);
    }
    if (l->has_opcode) {
        last = list.len;
        put8(&list, 7);
        put8(&list, l->opcode);
    }
    if (l->has_keywords) {
        last = list.len;
        put8(&list, 8);
        put64(&list, l->keywords);
    }
    if (l->has_level) {
        last = list.len;
        put8(&list, 9);
        put8(&list, l->level);
    }
    if (l->has_version || list.len == 0) { /* a list holds at least one label */
        last = list.len;
        put8(&list, 10);
        put8(&list, l->version);
    }
    if (!list.failed) {
        list.p[last] |= 0x80;
    }
    flush_events(w);
    uint32_t id = ++w->next_label_id;
    put32(&body, id);
    put32(&body, 1);
    put(&body, list.p, list.len);
    body.failed |= list.failed;
    write_block(w, "", 8, &body);
    free(list.p);
    free(body.p);
    return w->out.failed ? 0 : id;
}

static gcev_status write_event(gcev_writer *w, const gcev_writer_event *e, uint32_t label_id);

gcev_status gcev_writer_write(gcev_writer *w, const gcev_writer_event *e)
{
    return write_event(w, e, 0);
}

gcev_status gcev_writer_write_labeled(gcev_writer *w, const gcev_writer_event *e,
                                      const gcev_writer_labels *labels)
{
    if (!w || !e || !labels || w->finished) {
        return GCEV_E_INVALID_ARG;
    }
    if (!v6(w)) {
        return GCEV_E_UNSUPPORTED;
    }
    uint32_t id = write_labels(w, labels);
    return id ? write_event(w, e, id) : GCEV_E_NOMEM;
}

gcev_status gcev_writer_runtime_blocks(gcev_writer *w, uint32_t event_block_bytes)
{
    if (!w || w->finished) {
        return GCEV_E_INVALID_ARG;
    }
    if (w->o.format_version < 4) {
        return GCEV_E_UNSUPPORTED;
    }
    w->runtime_blocks = 1;
    w->block_bytes = event_block_bytes ? event_block_bytes : WRITER_BLOCK_BYTES;
    return GCEV_OK;
}

/* FNV-1a over the stack's bytes: a key for the region's stacks (equal bytes are checked). */
static uint64_t stack_hash(const uint8_t *p, uint32_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (uint32_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    }
    return h;
}

/* The id of a stack in the current region, given (and queued for the next stack block) when new;
 * 0 when out of memory. A hash shared by two different stacks gives the newer one its own id. */
static uint32_t shared_stack(gcev_writer *w, const uint8_t *stack, uint32_t size)
{
    uint64_t h = stack_hash(stack, size);
    uint32_t id = gcev_idmap_get(&w->stack_ids, h);
    if (id != UINT32_MAX) {
        uint64_t pos = w->region_pos[id - 1];
        if ((uint32_t)pos == size && !memcmp(w->region.p + (pos >> 32), stack, size)) {
            return id;
        }
    }
    id = w->next_stack_id++;
    if (!reserve_u64(&w->region_pos, &w->cap_region_pos, id) || !gcev_idmap_put(&w->stack_ids, h, id)) {
        return 0;
    }
    w->region_pos[id - 1] = (uint64_t)w->region.len << 32 | size;
    put(&w->region, stack, size);
    if (!w->stk_count) {
        w->stk_first = id;
    }
    w->stk_count++;
    put32(&w->stk, size);
    put(&w->stk, stack, size);
    return w->region.failed || w->stk.failed ? 0 : id;
}

static gcev_status write_event(gcev_writer *w, const gcev_writer_event *e, uint32_t label_id)
{
    if (!w || !e || w->finished || e->meta_id == 0 || e->meta_id > w->nmeta) {
        return GCEV_E_INVALID_ARG;
    }
    uint64_t cap = e->capture_thread_id ? e->capture_thread_id : e->thread_id;
    wthread *th = thread_of(w, cap);
    if (!th) {
        return GCEV_E_NOMEM;
    }
    uint32_t seq = e->sequence ? e->sequence : th->last + 1;
    th->last = seq;
    if (v6(w) && (!v6_thread(w, e->thread_id) || !v6_thread(w, cap))) {
        return GCEV_E_NOMEM;
    }
    uint32_t stack_id = 0;
    if (w->runtime_blocks && e->stack && e->stack_size) {
        if (!(stack_id = shared_stack(w, e->stack, e->stack_size))) {
            return GCEV_E_NOMEM;
        }
    } else if (w->o.format_version >= 4 && e->stack && e->stack_size) {
        flush_events(w);
        wbuf body = {0};
        stack_id = w->next_stack_id++;
        put32(&body, stack_id);
        put32(&body, 1);
        put32(&body, e->stack_size);
        put(&body, e->stack, e->stack_size);
        write_block(w, "StackBlock", 5, &body);
        free(body.p);
    }
    static const gcev_guid zero;
    const gcev_guid *act = memcmp(&e->activity_id, &zero, sizeof zero) ? &e->activity_id : NULL;
    if (w->o.format_version >= 4 && w->blk.len >= (w->runtime_blocks ? w->block_bytes : WRITER_BLOCK_BYTES)) {
        flush_events(w); /* as the runtime does (at 100 KB): a V6 block's size has 24 bits */
    }
    if (w->blk.len == 0) {
        w->blk_min = w->blk_max = e->timestamp;
    }
    w->blk_min = e->timestamp < w->blk_min ? e->timestamp : w->blk_min;
    w->blk_max = e->timestamp > w->blk_max ? e->timestamp : w->blk_max;
    if (inline_events(w)) {
        put_row_v5(w, &w->out, 0, w->meta_off[e->meta_id - 1], seq, e->thread_id, cap, e->processor, 0,
                   e->timestamp, act, e->payload, e->payload_size, e->stack, e->stack ? e->stack_size : 0);
    } else if (!v6(w)) {
        put_row_v5(w, &w->blk, w->o.format_version >= 4 ? 20 : 0, e->meta_id, seq, e->thread_id, cap,
                   e->processor, stack_id, e->timestamp, act, e->payload, e->payload_size, e->stack,
                   e->stack ? e->stack_size : 0);
    } else if (w->o.compressed) {
        wbuf *r = &w->blk;
        int new_label = label_id != w->prev.label_id; /* label ids carry over within a block */
        put8(r, (uint8_t)(1 | 2 | 4 | 8 | 128 | (new_label ? 16 : 0)));
        putvar(r, e->meta_id);
        putvar(r, (uint32_t)(seq - w->prev.seq - 1));
        putvar(r, cap);
        putvar(r, e->processor);
        w->prev.seq = seq;
        putvar(r, e->thread_id);
        putvar(r, stack_id);
        putvar(r, (uint64_t)e->timestamp - w->prev.ts);
        w->prev.ts = (uint64_t)e->timestamp;
        if (new_label) {
            putvar(r, label_id);
            w->prev.label_id = label_id;
        }
        putvar(r, e->payload_size);
        put(r, e->payload, e->payload_size);
    } else {
        wbuf *r = &w->blk;
        put32(r, 48 + e->payload_size);
        put32(r, e->meta_id);
        put32(r, seq);
        put64(r, e->thread_id);
        put64(r, cap);
        put32(r, e->processor);
        put32(r, stack_id);
        put64(r, (uint64_t)e->timestamp);
        put32(r, label_id);
        put32(r, e->payload_size);
        put(r, e->payload, e->payload_size);
    }
    return w->blk.failed || w->out.failed ? GCEV_E_NOMEM : GCEV_OK;
}

gcev_status gcev_writer_redefine(gcev_writer *w, uint32_t meta_id, const gcev_writer_meta *m)
{
    if (!w || !m || w->finished || meta_id == 0 || meta_id > w->nmeta) {
        return GCEV_E_INVALID_ARG;
    }
    if (!v6(w)) {
        return GCEV_E_UNSUPPORTED;
    }
    return define_v6(w, m, meta_id);
}

gcev_status gcev_writer_sequence_point(gcev_writer *w, int64_t timestamp)
{
    return gcev_writer_sequence_point_flags(w, timestamp, 0);
}

gcev_status gcev_writer_sequence_point_flags(gcev_writer *w, int64_t timestamp, uint32_t flags)
{
    if (!w || w->finished || (flags && !v6(w))) {
        return w && !w->finished ? GCEV_E_UNSUPPORTED : GCEV_E_INVALID_ARG;
    }
    if (w->o.format_version < 4) {
        return GCEV_OK;
    }
    flush_events(w);
    wbuf body = {0};
    put64(&body, (uint64_t)timestamp);
    if (v6(w)) {
        put32(&body, flags);
    }
    put32(&body, (uint32_t)w->nthreads);
    for (size_t i = 0; i < w->nthreads; i++) {
        if (v6(w)) {
            putvar(&body, w->threads[i].capture);
            putvar(&body, w->threads[i].last);
        } else {
            put64(&body, w->threads[i].capture);
            put32(&body, w->threads[i].last);
        }
    }
    write_block(w, "SPBlock", 4, &body);
    free(body.p);
    if (w->runtime_blocks) { /* the runtime's stack cache goes with the sequence point */
        gcev_idmap_clear(&w->stack_ids);
        w->region.len = 0;
        w->next_stack_id = 1;
    }
    if (flags & GCEV_WRITER_SP_FLUSH_THREADS) {
        gcev_idmap_clear(&w->v6_ids); /* the reader forgot the thread rows: describe them again */
    }
    return w->out.failed ? GCEV_E_NOMEM : GCEV_OK;
}

gcev_status gcev_writer_finish(gcev_writer *w, const uint8_t **data, size_t *size)
{
    if (!w || !data || !size) {
        return GCEV_E_INVALID_ARG;
    }
    if (!w->finished) {
        flush_events(w);
        if (v6(w)) {
            put32(&w->out, 0);
        } else if (inline_events(w)) {
            /* EndObject (Trace), NullReference (end of stream), the
             * forward-reference table (count, offsets; reference 0 = where the
             * events end), a label holding the table's offset, and last the
             * label's own offset (what the reader follows from the end). */
            uint64_t end = w->out.len;
            put8(&w->out, 6);
            put8(&w->out, 1);
            uint64_t table = w->out.len;
            put32(&w->out, 1);
            put32(&w->out, (uint32_t)end);
            uint64_t label = w->out.len;
            put32(&w->out, (uint32_t)table);
            put32(&w->out, (uint32_t)label);
            w->out.failed |= label > UINT32_MAX;
        } else {
            put8(&w->out, 1);
        }
        w->finished = 1;
    }
    if (w->out.failed || w->blk.failed) {
        return GCEV_E_NOMEM;
    }
    *data = w->out.p;
    *size = w->out.len;
    return GCEV_OK;
}

void gcev_writer_free(gcev_writer *w)
{
    if (w) {
        free(w->out.p);
        free(w->blk.p);
        free(w->threads);
        gcev_idmap_free(&w->thread_ids);
        gcev_idmap_free(&w->v6_ids);
        free(w->meta_off);
        free(w->stk.p);
        free(w->region.p);
        free(w->region_pos);
        gcev_idmap_free(&w->stack_ids);
        free(w);
    }
}
