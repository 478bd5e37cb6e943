/* SPDX-License-Identifier: MIT */
/*
 * gcev_trace_options.keep_going (issue 17, item 10): traces with a damaged block or buffer
 * in the middle, made with the trace writer and tests/support/etl_builder.c, read past the damage:
 * every event before and after it, the skipped range (offset, bytes, status), the GCs
 * around it flagged incomplete by the stats model; and without the option, today's
 * behaviour (the events before the fault, then the error).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_stats.h>
#include <gcev/gcev_trace.h>
#include <gcev/gcev_writer.h>

#include "etl_builder.h"

/* ---- EventPipe traces from the writer ---- */

enum { MAX_EVENTS = 64 };

typedef struct nt_trace {
    uint8_t *data;
    size_t size;
    /* the three event blocks: object (V3-V5) or block header (V6) start, body start, body size */
    size_t blk[3], body[3], body_len[3];
    size_t sp[2]; /* the sequence point blocks after blocks 0 and 1 */
} nt_trace;

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void emit(gcev_writer *w, uint32_t meta, uint32_t number, int64_t ts, int end)
{
    uint8_t p[26] = {0};
    put32(p, number);
    put32(p + 8, 1); /* Reason: Induced */
    gcev_writer_event e = {meta, 1001, 0, 0, 0, ts, p, end ? 10 : 26, NULL, 0, {0}};
    assert_int_equal(gcev_writer_write(w, &e), GCEV_OK);
}

/*
 * GC 1 .. 4 on one thread, in three event blocks split by sequence points:
 *   block 0: GC1 start (1000), GC1 end (1500), GC2 start (2000)
 *   block 1: GC2 end (2500), GC3 start (3000)
 *   block 2: GC3 end (3500), GC4 start (4000), GC4 end (4500)
 */
static void nt_build(nt_trace *nt, uint32_t version, uint8_t compressed)
{
    gcev_writer_options o = {version, compressed, 8, 4242, 2, 1000000, 0};
    gcev_writer *w;
    assert_int_equal(gcev_writer_create(&o, &w), GCEV_OK);
    gcev_writer_meta ms = {"Microsoft-Windows-DotNETRuntime", 1, 2, 1, 4, 1, "", NULL, 0};
    gcev_writer_meta me = {"Microsoft-Windows-DotNETRuntime", 2, 1, 2, 4, 1, "", NULL, 0};
    uint32_t start, end;
    assert_int_equal(gcev_writer_define(w, &ms, &start), GCEV_OK);
    assert_int_equal(gcev_writer_define(w, &me, &end), GCEV_OK);
    emit(w, start, 1, 1000, 0);
    emit(w, end, 1, 1500, 1);
    emit(w, start, 2, 2000, 0);
    assert_int_equal(gcev_writer_sequence_point(w, 2100), GCEV_OK);
    emit(w, end, 2, 2500, 1);
    emit(w, start, 3, 3000, 0);
    assert_int_equal(gcev_writer_sequence_point(w, 3100), GCEV_OK);
    emit(w, end, 3, 3500, 1);
    emit(w, start, 4, 4000, 0);
    emit(w, end, 4, 4500, 1);
    const uint8_t *d;
    size_t n;
    assert_int_equal(gcev_writer_finish(w, &d, &n), GCEV_OK);
    nt->data = malloc(n);
    assert_non_null(nt->data);
    memcpy(nt->data, d, n);
    nt->size = n;
    gcev_writer_free(w);
    /* where the blocks are */
    size_t k = 0, q = 0;
    if (version >= 6) {
        size_t pos = 20; /* "Nettrace", the zero Reserved field, major and minor version */
        while (pos + 4 <= n) {
            uint32_t h = rd32(nt->data + pos), kind = h >> 24, size = h & 0xffffff;
            if (kind == 2 && k < 3) {
                nt->blk[k] = pos;
                nt->body[k] = pos + 4;
                nt->body_len[k++] = size;
            } else if (kind == 4 && q < 2) {
                nt->sp[q++] = pos;
            }
            if (kind == 0) {
                break;
            }
            pos += 4 + size;
        }
    } else {
        for (size_t i = 15; i + 12 <= n; i++) {
            int ev = memcmp(nt->data + i, "EventBlock", 10) == 0;
            int sp = memcmp(nt->data + i, "SPBlock", 7) == 0;
            if (!ev && !sp) {
                continue;
            }
            size_t len = ev ? 10 : 7, obj = i - 15, body = i + len + 1 + 4;
            body += (4 - (body & 3)) & 3;
            if (ev && k < 3) {
                nt->blk[k] = obj;
                nt->body[k] = body;
                nt->body_len[k++] = rd32(nt->data + i + len + 1);
            } else if (sp && q < 2) {
                nt->sp[q++] = obj;
            }
        }
    }
    assert_int_equal(k, 3); /* V4-V6: the writer ends an event block at a sequence point */
    assert_int_equal(q, 2);
}

typedef struct got {
    uint32_t number[MAX_EVENTS]; /* GC number (Count) of each event read */
    uint16_t id[MAX_EVENTS];
    uint64_t offset[MAX_EVENTS];
    size_t n;
    gcev_status st;
    gcev_error err;
} got;

/* Reads every event of the trace in data; returns the trace (closed by the caller) with `g` filled. */
static gcev_trace *read_all(const uint8_t *data, size_t size, int keep_going, uint32_t order, got *g)
{
    gcev_trace_options o = {.struct_size = sizeof o, .order = order, .keep_going = (uint32_t)keep_going};
    gcev_trace *t = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_memory(data, size, &o, &t, &err), GCEV_OK);
    memset(g, 0, sizeof *g);
    gcev_trace_event ev;
    while ((g->st = gcev_trace_next(t, &ev, &g->err)) == GCEV_OK) {
        assert_true(g->n < MAX_EVENTS);
        g->number[g->n] = ev.payload_size >= 4 ? rd32(ev.payload) : UINT32_MAX;
        g->id[g->n] = ev.event_id;
        g->offset[g->n++] = ev.file_offset;
    }
    return t;
}

/* The events read are those with these (id, GC number) pairs, in this order. */
static void expect_events(const got *g, const char *spec)
{
    char buf[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < g->n; i++) {
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s%u", i ? " " : "",
                                g->id[i] == 1 ? "S" : "E", g->number[i]);
    }
    assert_string_equal(buf, spec);
}

static void expect_skip(const gcev_trace *t, size_t i, uint64_t offset, uint64_t bytes, gcev_status st)
{
    const gcev_trace_skip *k = gcev_trace_skip_at(t, i);
    assert_non_null(k);
    assert_int_equal(k->offset, offset);
    assert_int_equal(k->bytes, bytes);
    assert_int_equal(k->status, st);
    assert_non_null(k->message);
    assert_true(k->message[0] != '\0');
}

/* A damaged size read past without losing a byte: a range of 0 bytes at `offset`, no timestamp. */
static void expect_skip_repair(const gcev_trace *t, size_t i, uint64_t offset)
{
    const gcev_trace_skip *k = gcev_trace_skip_at(t, i);
    assert_non_null(k);
    assert_int_equal(k->offset, offset);
    assert_int_equal(k->bytes, 0);
    assert_int_equal(k->status, GCEV_E_FORMAT);
    assert_false(k->has_timestamp);
    assert_non_null(strstr(k->message, "size"));
}

static const char all_events[] = "S1 E1 S2 E2 S3 E3 S4 E4";
static const char without_block1[] = "S1 E1 S2 E3 S4 E4";

/* Without the option: the events before the fault, then its error, as before keep-going existed. */
static void expect_today(const nt_trace *nt, const char *before, gcev_status st, uint64_t offset)
{
    got g;
    gcev_trace *t = read_all(nt->data, nt->size, 0, GCEV_TRACE_ORDER_FILE, &g);
    expect_events(&g, before);
    assert_int_equal(g.st, st);
    assert_int_equal(g.err.offset, offset);
    assert_int_equal(gcev_trace_skip_count(t), 0);
    assert_int_equal(gcev_trace_skipped_bytes(t), 0);
    gcev_trace_close(t);
}

static void test_keep_going_undamaged_trace_reads_the_same(void **state)
{
    (void)state;
    static const uint32_t versions[][2] = {{4, 0}, {4, 1}, {5, 1}, {6, 0}, {6, 1}};
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        nt_trace nt;
        nt_build(&nt, versions[v][0], (uint8_t)versions[v][1]);
        for (int kg = 0; kg < 2; kg++) {
            got g;
            gcev_trace *t = read_all(nt.data, nt.size, kg, GCEV_TRACE_ORDER_FILE, &g);
            expect_events(&g, all_events);
            assert_int_equal(g.st, GCEV_END);
            assert_int_equal(gcev_trace_skip_count(t), 0);
            assert_int_equal(gcev_trace_skipped_ranges(t), 0);
            gcev_trace_close(t);
        }
        free(nt.data);
    }
}

/* A fault inside block 1 (its event-block header): the rest of the block, to the end its size says. */
static void test_keep_going_nettrace_block_body_fault_skips_to_recorded_end(void **state)
{
    (void)state;
    static const uint32_t versions[][2] = {{4, 1}, {5, 1}, {4, 0}, {6, 1}};
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        nt_trace nt;
        nt_build(&nt, versions[v][0], (uint8_t)versions[v][1]);
        nt.data[nt.body[1]] = 0xff; /* header size 0xff.. > the block */
        nt.data[nt.body[1] + 1] = 0xff;
        expect_today(&nt, "S1 E1 S2", GCEV_E_FORMAT, nt.body[1]);
        for (uint32_t order = 0; order < 2; order++) {
            got g;
            gcev_trace *t = read_all(nt.data, nt.size, 1, order, &g);
            assert_int_equal(g.st, GCEV_END);
            expect_events(&g, without_block1);
            assert_int_equal(gcev_trace_skip_count(t), 1);
            /* V3-V5: the block's EndObject tag is skipped with it */
            expect_skip(t, 0, nt.body[1], nt.body_len[1] + (versions[v][0] <= 5), GCEV_E_FORMAT);
            assert_int_equal(gcev_trace_skip_at(t, 0)->fault_offset, nt.body[1]);
            assert_true(gcev_trace_skip_at(t, 0)->has_timestamp);
            assert_int_equal(gcev_trace_skip_at(t, 0)->timestamp, 3500); /* GC3's end, the next event */
            assert_int_equal(gcev_trace_skipped_ranges(t), 1);
            assert_int_equal(gcev_trace_skipped_bytes(t), gcev_trace_skip_at(t, 0)->bytes);
            gcev_trace_close(t);
        }
        free(nt.data);
    }
}

/* An event whose metadata is unknown, in a block of uncompressed records (each stands alone)
 * whose rest reads as valid events: only that event (its record's extent is known). */
static void test_keep_going_nettrace_unknown_metadata_skips_the_event(void **state)
{
    (void)state;
    static const uint32_t versions[] = {4, 6};
    for (size_t v = 0; v < 2; v++) {
        nt_trace nt;
        nt_build(&nt, versions[v], 0);
        /* block 1's first event (GC2 end): uncompressed, EventSize then the metadata id */
        size_t ev = nt.body[1] + 20;
        put32(nt.data + ev + 4, 0x70);
        expect_today(&nt, "S1 E1 S2", GCEV_E_FORMAT, ev);
        got g;
        gcev_trace *t = read_all(nt.data, nt.size, 1, GCEV_TRACE_ORDER_FILE, &g);
        assert_int_equal(g.st, GCEV_END);
        expect_events(&g, "S1 E1 S2 S3 E3 S4 E4");
        assert_int_equal(gcev_trace_skip_count(t), 1);
        /* to the next event, GC3's start */
        expect_skip(t, 0, ev, g.offset[3] - ev, GCEV_E_FORMAT);
        assert_non_null(strstr(gcev_trace_skip_at(t, 0)->message, "undefined metadata"));
        gcev_trace_close(t);
        free(nt.data);
    }
}

/* The same in a compressed block (issue 22, item 2): every header after it is a delta on the
 * damaged one, so nothing after it in the block can be proven: the rest of the block. */
static void test_keep_going_nettrace_compressed_fault_skips_rest_of_block(void **state)
{
    (void)state;
    static const uint32_t versions[] = {4, 5, 6};
    for (size_t v = 0; v < 3; v++) {
        nt_trace nt;
        nt_build(&nt, versions[v], 1);
        size_t ev = nt.body[1] + 20; /* flags, then the metadata id */
        assert_true(nt.data[ev] & 1);
        nt.data[ev + 1] = 0x70;
        expect_today(&nt, "S1 E1 S2", GCEV_E_FORMAT, ev);
        got g;
        gcev_trace *t = read_all(nt.data, nt.size, 1, GCEV_TRACE_ORDER_FILE, &g);
        assert_int_equal(g.st, GCEV_END);
        expect_events(&g, without_block1);
        assert_int_equal(gcev_trace_skip_count(t), 1);
        assert_int_equal(gcev_trace_skip_at(t, 0)->offset, ev);
        assert_non_null(strstr(gcev_trace_skip_at(t, 0)->message, "undefined metadata"));
        gcev_trace_close(t);
        free(nt.data);
    }
}

/* A changed timestamp: outside the range the block header records, a fault in plain mode too
 * (stats reported a trace of 4,364 s where the clean one lasts 421). */
static void test_nettrace_timestamp_outside_block_range_is_a_fault(void **state)
{
    (void)state;
    nt_trace nt;
    nt_build(&nt, 5, 0);
    /* block 1's first event: EventSize, MetadataId, Sequence, ThreadId, CaptureThreadId,
     * Processor, StackId, then the timestamp (+36) */
    size_t ev = nt.body[1] + 20;
    nt.data[ev + 36 + 5] ^= 0x10;
    expect_today(&nt, "S1 E1 S2", GCEV_E_FORMAT, ev);
    got g;
    gcev_trace *t = read_all(nt.data, nt.size, 1, GCEV_TRACE_ORDER_FILE, &g);
    expect_events(&g, "S1 E1 S2 S3 E3 S4 E4");
    assert_non_null(strstr(gcev_trace_skip_at(t, 0)->message, "recorded range"));
    gcev_trace_close(t);
    free(nt.data);
}

/*
 * A damaged block size, too large: no EndObject tag (V6: block header) where it says, but the
 * next object starts inside the extent it gives (issue 22, item 3: keep-going skipped the
 * whole block, whose events plain mode returns): the block is read to there, every event.
 */
static void test_keep_going_nettrace_damaged_size_reads_to_next_object(void **state)
{
    (void)state;
    static const uint32_t versions[][2] = {{4, 0}, {4, 1}, {5, 1}, {6, 0}, {6, 1}};
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        nt_trace nt;
        nt_build(&nt, versions[v][0], (uint8_t)versions[v][1]);
        size_t at = versions[v][0] >= 6 ? nt.blk[1] : nt.blk[1] + 15 + 10 + 1;
        put32(nt.data + at, (rd32(nt.data + at) & 0xff000000u) | ((rd32(nt.data + at) & 0xffffffu) + 5));
        got g;
        gcev_trace *t = read_all(nt.data, nt.size, 0, GCEV_TRACE_ORDER_FILE, &g);
        assert_int_not_equal(g.st, GCEV_END);
        gcev_trace_close(t);
        for (uint32_t order = 0; order < 2; order++) {
            t = read_all(nt.data, nt.size, 1, order, &g);
            assert_int_equal(g.st, GCEV_END);
            expect_events(&g, all_events);
            assert_int_equal(gcev_trace_skip_count(t), 1);
            expect_skip_repair(t, 0, at);
            gcev_trace_close(t);
        }
        free(nt.data);
    }
}

/* A damaged block size, too small: the block's last event overruns it; scanned from there. */
static void test_keep_going_nettrace_damaged_size_scans_to_next_object(void **state)
{
    (void)state;
    static const uint32_t versions[][2] = {{4, 0}, {4, 1}, {5, 1}, {6, 1}};
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
        nt_trace nt;
        nt_build(&nt, versions[v][0], (uint8_t)versions[v][1]);
        /* V6: the block header; V3-V5: the size after the type header (15 bytes, the name, EndObject) */
        size_t at = versions[v][0] >= 6 ? nt.blk[1] : nt.blk[1] + 15 + 10 + 1;
        put32(nt.data + at, (rd32(nt.data + at) & 0xff000000u) | ((rd32(nt.data + at) & 0xffffffu) - 5));
        for (uint32_t order = 0; order < 2; order++) {
            got g;
            gcev_trace *t = read_all(nt.data, nt.size, 1, order, &g);
            assert_int_equal(g.st, GCEV_END);
            /* GC2's end is read as plain mode reads it; GC3's start overruns the block */
            expect_events(&g, "S1 E1 S2 E2 E3 S4 E4");
            assert_int_equal(gcev_trace_skip_count(t), 1);
            /* from GC3's start, inside the block, to the sequence point after it */
            const gcev_trace_skip *k = gcev_trace_skip_at(t, 0);
            assert_true(k->offset > nt.body[1] && k->offset < nt.body[1] + nt.body_len[1]);
            assert_int_equal(k->offset + k->bytes, nt.sp[1]);
            assert_int_equal(k->status, GCEV_E_FORMAT);
            gcev_trace_close(t);
        }
        free(nt.data);
    }
}

/* A damaged object header (its first tag): scanned to the next object header. */
static void test_keep_going_nettrace_damaged_header_scans(void **state)
{
    (void)state;
    nt_trace nt;
    nt_build(&nt, 4, 1);
    nt.data[nt.blk[1]] = 0x42;
    expect_today(&nt, "S1 E1 S2", GCEV_E_FORMAT, nt.blk[1]);
    got g;
    gcev_trace *t = read_all(nt.data, nt.size, 1, GCEV_TRACE_ORDER_TIME, &g);
    assert_int_equal(g.st, GCEV_END);
    expect_events(&g, without_block1);
    expect_skip(t, 0, nt.blk[1], nt.sp[1] - nt.blk[1], GCEV_E_FORMAT);
    gcev_trace_close(t);
    free(nt.data);
}

/* The input ends inside block 2: its rest is skipped to the end, and the trace ends cleanly. */
static void test_keep_going_nettrace_cut_skips_to_end(void **state)
{
    (void)state;
    static const uint32_t versions[] = {4, 6};
    for (size_t v = 0; v < 2; v++) {
        nt_trace nt;
        nt_build(&nt, versions[v], 1);
        /* cut inside block 2, where the last 4 bytes are not zero (V6 would take 4 zero bytes
         * at the end for its EndOfStream block) */
        size_t cut = nt.body[2] + 10;
        while (rd32(nt.data + cut - 4) == 0) {
            cut++;
        }
        got g;
        gcev_trace *t = read_all(nt.data, cut, 0, GCEV_TRACE_ORDER_FILE, &g);
        expect_events(&g, "S1 E1 S2 E2 S3");
        assert_int_equal(g.st, GCEV_E_TRUNCATED_FILE);
        gcev_trace_close(t);
        t = read_all(nt.data, cut, 1, GCEV_TRACE_ORDER_FILE, &g);
        expect_events(&g, "S1 E1 S2 E2 S3");
        assert_int_equal(g.st, GCEV_END);
        expect_skip(t, 0, nt.blk[2], cut - nt.blk[2], GCEV_E_TRUNCATED_FILE);
        assert_false(gcev_trace_skip_at(t, 0)->has_timestamp);
        gcev_trace_close(t);
        free(nt.data);
    }
}

typedef struct mem_stream {
    const uint8_t *p;
    size_t n, pos;
} mem_stream;

static long long mem_read(void *ctx, void *buf, size_t n)
{
    mem_stream *m = ctx;
    size_t k = m->n - m->pos < n ? m->n - m->pos : n;
    k = k > 7 ? 7 : k; /* small reads: windows move often */
    memcpy(buf, m->p + m->pos, k);
    m->pos += k;
    return (long long)k;
}

/* A stream cannot look ahead for the EndObject tag: it still gets past the damage to block 2. */
static void test_keep_going_nettrace_stream_resyncs(void **state)
{
    (void)state;
    nt_trace nt;
    nt_build(&nt, 4, 1);
    nt.data[nt.body[1]] = 0xff;
    nt.data[nt.body[1] + 1] = 0xff;
    mem_stream m = {nt.data, nt.size, 0};
    gcev_trace_options o = {.struct_size = sizeof o, .keep_going = 1};
    gcev_trace *t;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_reader(mem_read, &m, &o, &t, &err), GCEV_OK);
    got g = {0};
    gcev_trace_event ev;
    while ((g.st = gcev_trace_next(t, &ev, &g.err)) == GCEV_OK) {
        g.number[g.n] = rd32(ev.payload);
        g.id[g.n++] = ev.event_id;
    }
    assert_int_equal(g.st, GCEV_END);
    expect_events(&g, without_block1);
    expect_skip(t, 0, nt.body[1], nt.body_len[1] + 1, GCEV_E_FORMAT);
    gcev_trace_close(t);
    /* a damaged size: the stream takes the size it reads, then finds block 2 */
    nt_trace n2;
    nt_build(&n2, 4, 1);
    size_t at = n2.blk[1] + 15 + 10 + 1;
    put32(n2.data + at, rd32(n2.data + at) + 5);
    m = (mem_stream){n2.data, n2.size, 0};
    assert_int_equal(gcev_trace_open_reader(mem_read, &m, &o, &t, &err), GCEV_OK);
    size_t n = 0, after = 0;
    gcev_status st;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        n++;
        after = ev.timestamp >= 3500 ? after + 1 : after;
    }
    assert_int_equal(st, GCEV_END);
    assert_int_equal(after, 3); /* block 2: GC3 end, GC4 */
    assert_true(n >= 6);
    assert_true(gcev_trace_skip_count(t) >= 1);
    assert_true(gcev_trace_skip_at(t, 0)->offset >= n2.body[1]);
    gcev_trace_close(t);
    free(nt.data);
    free(n2.data);
}

/* Garbage full of plausible headers: every byte is skipped once, in bounded work, and the trace ends. */
static void test_keep_going_nettrace_hostile_filler_is_linear(void **state)
{
    (void)state;
    nt_trace nt;
    nt_build(&nt, 4, 1);
    size_t fill = 1u << 20, head = nt.blk[0];
    uint8_t *d = malloc(head + fill);
    assert_non_null(d);
    memcpy(d, nt.data, head);
    /* object headers of a known type every 31 bytes, each with a size to the end of the file */
    for (size_t i = 0; i < fill; i++) {
        d[head + i] = (uint8_t)(i * 7);
    }
    for (size_t i = 0; i + 40 < fill; i += 31) {
        uint8_t *p = d + head + i;
        p[0] = 5;
        p[1] = 5;
        p[2] = 1;
        put32(p + 11, 10);
        memcpy(p + 15, "EventBlock", 10);
        p[25] = 6;
        put32(p + 26, (uint32_t)(fill - i));
    }
    got g;
    gcev_trace_options o = {.struct_size = sizeof o, .keep_going = 1};
    gcev_trace *t;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_memory(d, head + fill, &o, &t, &err), GCEV_OK);
    gcev_trace_event ev;
    g.n = 0;
    while ((g.st = gcev_trace_next(t, &ev, &g.err)) == GCEV_OK) {
        g.n++;
    }
    assert_int_equal(g.st, GCEV_END);
    assert_int_equal(g.n, 0);
    assert_int_equal(gcev_trace_skipped_bytes(t), fill);
    gcev_trace_close(t);
    free(d);
    free(nt.data);
}

/* ---- stats: the GCs a skipped range touches are incomplete ---- */

static const gcev_stats_gc *gc_number(const gcev_stats *s, uint32_t n)
{
    const gcev_stats_gc *g = gcev_stats_gc_find(s, n);
    assert_non_null(g);
    return g;
}

static void test_keep_going_stats_flags_gcs_around_skip(void **state)
{
    (void)state;
    nt_trace nt;
    nt_build(&nt, 4, 1);
    nt.data[nt.blk[1]] = 0x42;
    gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME, .keep_going = 1};
    gcev_trace *t;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_memory(nt.data, nt.size, &o, &t, &err), GCEV_OK);
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    assert_int_equal(gcev_stats_read_trace(s, t, NULL, NULL, &err), GCEV_OK);
    /* GC2 was open across the damaged block (its end is lost); GC3's start is lost */
    assert_true(gc_number(s, 2)->flags & GCEV_STATS_GC_INCOMPLETE);
    assert_false(gc_number(s, 1)->flags & GCEV_STATS_GC_INCOMPLETE);
    assert_false(gc_number(s, 4)->flags & GCEV_STATS_GC_INCOMPLETE);
    assert_null(gcev_stats_gc_find(s, 3));
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    assert_int_equal(sum->skipped_ranges, 1);
    assert_int_equal(sum->skipped_bytes, nt.sp[1] - nt.blk[1]);
    gcev_stats_free(s);
    gcev_trace_close(t);
    free(nt.data);
}

/*
 * A GC that ended before a sequence gap is not flagged by it: the lost events come after
 * the next GC's start, and a GCHeapStats then goes to that GC, never to the one before
 * (the awaiting-HeapStats rule flagged GC 1 of tests/cli's gaps.nettrace).
 */
static void test_stats_drop_after_next_gc_started_leaves_previous_gc(void **state)
{
    (void)state;
    gcev_writer_options o = {5, 1, 8, 4242, 4, 1000000, 0};
    gcev_writer *w;
    assert_int_equal(gcev_writer_create(&o, &w), GCEV_OK);
    gcev_writer_meta ms = {"Microsoft-Windows-DotNETRuntime", 1, 2, 0, 4, 1, "", NULL, 0};
    gcev_writer_meta me = {"Microsoft-Windows-DotNETRuntime", 2, 1, 0, 4, 1, "", NULL, 0};
    uint32_t start, end;
    assert_int_equal(gcev_writer_define(w, &ms, &start), GCEV_OK);
    assert_int_equal(gcev_writer_define(w, &me, &end), GCEV_OK);
    uint8_t p[26] = {0};
    uint32_t seq = 1;
    struct {
        uint32_t meta, number;
        int64_t ts;
        uint32_t gap;
    } evs[] = {{start, 1, 1000, 0}, {end, 1, 1500, 0}, {start, 2, 2000, 0}, {end, 2, 2500, 7}};
    for (size_t i = 0; i < 4; i++) {
        put32(p, evs[i].number);
        seq += evs[i].gap;
        gcev_writer_event e = {evs[i].meta, 1001, 0,  seq++, 0, evs[i].ts, p, evs[i].meta == end ? 10 : 26,
                               NULL,        0,    {0}};
        assert_int_equal(gcev_writer_write(w, &e), GCEV_OK);
    }
    const uint8_t *d;
    size_t n;
    assert_int_equal(gcev_writer_finish(w, &d, &n), GCEV_OK);
    gcev_trace_options to = {.struct_size = sizeof to, .order = GCEV_TRACE_ORDER_TIME};
    gcev_trace *t;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_memory(d, n, &to, &t, &err), GCEV_OK);
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    assert_int_equal(gcev_stats_read_trace(s, t, NULL, NULL, &err), GCEV_OK);
    assert_int_equal(gcev_stats_get_summary(s)->dropped_events, 7);
    assert_true(gc_number(s, 2)->flags & GCEV_STATS_GC_INCOMPLETE);
    assert_false(gc_number(s, 1)->flags & GCEV_STATS_GC_INCOMPLETE);
    gcev_stats_free(s);
    gcev_trace_close(t);
    gcev_writer_free(w);
}

/* The GC that ended last still takes a GCHeapStats while no GC follows: a loss then flags it. */
static void test_stats_drop_before_heap_stats_flags_last_gc(void **state)
{
    (void)state;
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    const gcev_provider *rt = gcev_provider_find("Microsoft-Windows-DotNETRuntime");
    assert_non_null(rt);
    uint8_t p[26] = {0};
    put32(p, 1);
    gcev_stats_input a = {.struct_size = sizeof a,
                          .provider = rt,
                          .event_id = 1,
                          .version = 2,
                          .pointer_size = 8,
                          .payload = p,
                          .payload_size = 26,
                          .ms = 1.0,
                          .thread_id = 7,
                          .process_id = 0};
    gcev_stats_input b = {.struct_size = sizeof b,
                          .provider = rt,
                          .event_id = 2,
                          .version = 1,
                          .pointer_size = 8,
                          .payload = p,
                          .payload_size = 10,
                          .ms = 1.5,
                          .thread_id = 7,
                          .process_id = 0};
    assert_int_equal(gcev_stats_add(s, &a), GCEV_OK);
    assert_int_equal(gcev_stats_add(s, &b), GCEV_OK);
    gcev_stats_note_dropped(s, 3, 2.0);
    assert_int_equal(gcev_stats_finish(s), GCEV_OK);
    assert_true(gc_number(s, 1)->flags & GCEV_STATS_GC_INCOMPLETE);
    gcev_stats_free(s);
}

/* ---- ETL ---- */

/* A GCStart_V2 / GCEnd_V1 record of GC `number` at ts, process 7, thread 9. */
static size_t etl_gc_event(etlb *b, uint16_t id, uint32_t number, int64_t ts)
{
    return etlb_gc_event(b, id, number, ts, 7, 9);
}

/* The header buffer, then the GCs of nt_build in three buffers. */
static void etl_build(etlb *b)
{
    etlb_init(b, 4096);
    etlb_buffer_begin(b, 0, 0);
    etlb_logfile lf = {
        .pointer_size = 8, .timestamp = 0, .perf_freq = 1000000, .clock_type = 1, .processors = 1};
    etlb_logfile_header(b, &lf);
    etlb_buffer_end(b);
    etlb_buffer_begin(b, 0, 0);
    etl_gc_event(b, 1, 1, 1000);
    etl_gc_event(b, 2, 1, 1500);
    etl_gc_event(b, 1, 2, 2000);
    etlb_buffer_end(b);
    etlb_buffer_begin(b, 0, 0);
    etl_gc_event(b, 2, 2, 2500);
    etl_gc_event(b, 1, 3, 3000);
    etlb_buffer_end(b);
    etlb_buffer_begin(b, 0, 0);
    etl_gc_event(b, 2, 3, 3500);
    etl_gc_event(b, 1, 4, 4000);
    etl_gc_event(b, 2, 4, 4500);
    etlb_buffer_end(b);
}

/* The events other than the log file header. */
static void etl_gc_events(got *g)
{
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (g->id[i] == 1 || g->id[i] == 2) {
            g->id[k] = g->id[i];
            g->number[k] = g->number[i];
            g->offset[k++] = g->offset[i];
        }
    }
    g->n = k;
}

static void test_keep_going_etl_damaged_buffer_header_skips_buffer(void **state)
{
    (void)state;
    etlb b;
    etl_build(&b);
    put32(b.data + b.buffers[2] + 4, 9999); /* SavedOffset past the buffer */
    got g;
    gcev_trace *t = read_all(b.data, b.size, 0, GCEV_TRACE_ORDER_FILE, &g);
    assert_int_equal(g.st, GCEV_E_FORMAT);
    assert_int_equal(g.err.offset, b.buffers[2]);
    etl_gc_events(&g);
    expect_events(&g, "S1 E1 S2");
    gcev_trace_close(t);
    for (uint32_t order = 0; order < 2; order++) {
        t = read_all(b.data, b.size, 1, order, &g);
        assert_int_equal(g.st, GCEV_END);
        etl_gc_events(&g);
        expect_events(&g, without_block1);
        assert_int_equal(gcev_trace_skip_count(t), 1);
        expect_skip(t, 0, b.buffers[2], 4096, GCEV_E_FORMAT);
        gcev_trace_close(t);
    }
    etlb_free(&b);
}

/* A BufferSize that would hide the buffers after it (issue 22, item 3: keep-going dropped the
 * buffer whose events plain mode returns): its records are read as plain mode reads them,
 * the next buffer is where the log file header's fixed size says, and the damage is a range
 * of 0 bytes. */
static void test_keep_going_etl_damaged_buffer_size_reads_at_fixed_size(void **state)
{
    (void)state;
    etlb b;
    etl_build(&b);
    put32(b.data + b.buffers[2], 3 * 4096);
    got g;
    gcev_trace *t = read_all(b.data, b.size, 0, GCEV_TRACE_ORDER_FILE, &g);
    assert_int_not_equal(g.st, GCEV_END); /* plain mode: the events to that buffer's end, then a fault */
    etl_gc_events(&g);
    expect_events(&g, "S1 E1 S2 E2 S3");
    gcev_trace_close(t);
    for (uint32_t order = 0; order < 2; order++) {
        t = read_all(b.data, b.size, 1, order, &g);
        assert_int_equal(g.st, GCEV_END);
        etl_gc_events(&g);
        expect_events(&g, all_events);
        assert_int_equal(gcev_trace_skip_count(t), 1);
        expect_skip_repair(t, 0, b.buffers[2]);
        gcev_trace_close(t);
    }
    etlb_free(&b);
}

static void test_keep_going_etl_damaged_record_skips_rest_of_buffer(void **state)
{
    (void)state;
    etlb b;
    etl_build(&b);
    /* records: 0 the log file header, 1-3 buffer 1, 4-5 buffer 2: the second record of buffer 2 */
    size_t rec = b.records[5].offset;
    b.data[rec + 3] = 0; /* no trace-header marker */
    got g;
    gcev_trace *t = read_all(b.data, b.size, 0, GCEV_TRACE_ORDER_FILE, &g);
    assert_int_equal(g.st, GCEV_E_FORMAT);
    assert_int_equal(g.err.offset, rec);
    gcev_trace_close(t);
    t = read_all(b.data, b.size, 1, GCEV_TRACE_ORDER_FILE, &g);
    assert_int_equal(g.st, GCEV_END);
    etl_gc_events(&g);
    expect_events(&g, "S1 E1 S2 E2 E3 S4 E4");
    expect_skip(t, 0, rec, b.buffers[3] - rec, GCEV_E_FORMAT);
    gcev_trace_close(t);
    etlb_free(&b);
}

/* A record's fault, then the next buffer's damaged header: two faults of one status side by
 * side are two ranges (their messages differ), and the bytes of both add up. */
static void test_keep_going_etl_adjacent_faults_are_two_ranges_and_bytes_add_up(void **state)
{
    (void)state;
    etlb b;
    etl_build(&b);
    size_t rec = b.records[4].offset;       /* buffer 2's first record, GC2's end */
    b.data[rec + 3] = 0;                    /* no trace-header marker */
    put32(b.data + b.buffers[3] + 4, 9999); /* buffer 3: SavedOffset past the buffer */
    for (uint32_t order = 0; order < 2; order++) {
        got g;
        gcev_trace *t = read_all(b.data, b.size, 1, order, &g);
        assert_int_equal(g.st, GCEV_END);
        etl_gc_events(&g);
        expect_events(&g, "S1 E1 S2");
        assert_int_equal(gcev_trace_skip_count(t), 2);
        expect_skip(t, 0, rec, b.buffers[3] - rec, GCEV_E_FORMAT);
        expect_skip(t, 1, b.buffers[3], 4096, GCEV_E_FORMAT);
        assert_string_not_equal(gcev_trace_skip_at(t, 0)->message, gcev_trace_skip_at(t, 1)->message);
        assert_int_equal(gcev_trace_skipped_ranges(t), 2);
        assert_int_equal(gcev_trace_skipped_bytes(t), b.buffers[3] - rec + 4096);
        gcev_trace_close(t);
    }
    etlb_free(&b);
}

/* ETL has no sequence numbers: only the skipped range tells stats that GC2, open across it
 * (its end was in the skipped part), is incomplete; GC1 before it and GC4 after it are not. */
static void test_keep_going_etl_stats_flags_gc_open_across_skip(void **state)
{
    (void)state;
    etlb b;
    etl_build(&b);
    size_t rec = b.records[4].offset; /* GC2's end: the rest of buffer 2 (GC3's start) goes too */
    b.data[rec + 3] = 0;
    gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME, .keep_going = 1};
    gcev_trace *t;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_memory(b.data, b.size, &o, &t, &err), GCEV_OK);
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    assert_int_equal(gcev_stats_read_trace(s, t, NULL, NULL, &err), GCEV_OK);
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    assert_int_equal(sum->dropped_events, 0);
    assert_int_equal(sum->skipped_ranges, 1);
    assert_int_equal(sum->skipped_bytes, b.buffers[3] - rec);
    assert_true(gc_number(s, 2)->flags & GCEV_STATS_GC_INCOMPLETE);
    assert_false(gc_number(s, 1)->flags & GCEV_STATS_GC_INCOMPLETE);
    assert_false(gc_number(s, 4)->flags & GCEV_STATS_GC_INCOMPLETE);
    gcev_stats_free(s);
    gcev_trace_close(t);
    etlb_free(&b);
}

static void test_keep_going_etl_cut_buffer_skips_to_end(void **state)
{
    (void)state;
    etlb b;
    etl_build(&b);
    size_t cut = b.records[7].offset + 20; /* inside GC4's start, in the last buffer */
    got g;
    gcev_trace *t = read_all(b.data, cut, 1, GCEV_TRACE_ORDER_FILE, &g);
    assert_int_equal(g.st, GCEV_END);
    etl_gc_events(&g);
    expect_events(&g, "S1 E1 S2 E2 S3 E3");
    expect_skip(t, 0, b.records[7].offset, cut - b.records[7].offset, GCEV_E_TRUNCATED_FILE);
    gcev_trace_close(t);
    etlb_free(&b);
}

/* Compressed mode: buffers vary in size; a damaged buffer header is found past by its successor. */
static void test_keep_going_etl_compressed_damaged_header_scans(void **state)
{
    (void)state;
    etlb b;
    etl_build(&b);
    size_t size, offs[ETLB_MAX_MARKS];
    uint8_t *c = etlb_relog_compressed(&b, 1, &size, offs);
    assert_non_null(c);
    /* its compressed data: the whole buffer, to where its (intact) header says it ends */
    uint8_t *c2 = malloc(size);
    assert_non_null(c2);
    memcpy(c2, c, size);
    memset(c2 + offs[2] + 72, 0xee, 8);
    got g;
    gcev_trace *t = read_all(c2, size, 1, GCEV_TRACE_ORDER_FILE, &g);
    assert_int_equal(g.st, GCEV_END);
    etl_gc_events(&g);
    expect_events(&g, without_block1);
    expect_skip(t, 0, offs[2], offs[3] - offs[2], GCEV_E_FORMAT);
    gcev_trace_close(t);
    /* its header: scanned to the next plausible one */
    put32(c + offs[2], 3);
    t = read_all(c, size, 1, GCEV_TRACE_ORDER_FILE, &g);
    assert_int_equal(g.st, GCEV_END);
    etl_gc_events(&g);
    expect_events(&g, without_block1);
    expect_skip(t, 0, offs[2], offs[3] - offs[2], GCEV_E_FORMAT);
    gcev_trace_close(t);
    free(c);
    free(c2);
    etlb_free(&b);
}

/* Reads data through a callback (a stream: no random access) with keep-going. */
static gcev_trace *read_stream(const uint8_t *data, size_t size, got *g)
{
    static mem_stream m;
    m = (mem_stream){data, size, 0};
    gcev_trace_options o = {.struct_size = sizeof o, .keep_going = 1};
    gcev_trace *t = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_reader(mem_read, &m, &o, &t, &err), GCEV_OK);
    memset(g, 0, sizeof *g);
    gcev_trace_event ev;
    while ((g->st = gcev_trace_next(t, &ev, &g->err)) == GCEV_OK) {
        assert_true(g->n < MAX_EVENTS);
        g->number[g->n] = ev.payload_size >= 4 ? rd32(ev.payload) : UINT32_MAX;
        g->id[g->n] = ev.event_id;
        g->offset[g->n++] = ev.file_offset;
    }
    return t;
}

/* An ETL stream (no random access) resynchronises like memory: a damaged buffer header skips
 * that buffer, a damaged record the rest of its buffer, a cut the rest of the stream. */
static void test_keep_going_etl_stream_skips_like_memory(void **state)
{
    (void)state;
    for (int damage = 0; damage < 3; damage++) {
        etlb b;
        etl_build(&b);
        size_t size = b.size;
        if (damage == 0) {
            put32(b.data + b.buffers[2] + 4, 9999); /* SavedOffset past the buffer */
        } else if (damage == 1) {
            b.data[b.records[5].offset + 3] = 0; /* a record with no trace-header marker */
        } else {
            size = b.records[7].offset + 20; /* cut inside GC4's start */
        }
        got gm, gs;
        gcev_trace *tm = read_all(b.data, size, 1, GCEV_TRACE_ORDER_FILE, &gm);
        gcev_trace *ts = read_stream(b.data, size, &gs);
        assert_int_equal(gm.st, GCEV_END);
        assert_int_equal(gs.st, GCEV_END);
        assert_int_equal(gs.n, gm.n);
        for (size_t i = 0; i < gm.n; i++) {
            assert_int_equal(gs.id[i], gm.id[i]);
            assert_int_equal(gs.number[i], gm.number[i]);
            assert_int_equal(gs.offset[i], gm.offset[i]);
        }
        assert_int_equal(gcev_trace_skip_count(ts), gcev_trace_skip_count(tm));
        assert_int_equal(gcev_trace_skip_count(ts), 1);
        const gcev_trace_skip *a = gcev_trace_skip_at(tm, 0), *c = gcev_trace_skip_at(ts, 0);
        assert_int_equal(c->offset, a->offset);
        assert_int_equal(c->status, a->status);
        if (damage < 2) {
            assert_int_equal(c->bytes, a->bytes);
        }
        gcev_trace_close(tm);
        gcev_trace_close(ts);
        etlb_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keep_going_etl_stream_skips_like_memory),
        cmocka_unit_test(test_keep_going_undamaged_trace_reads_the_same),
        cmocka_unit_test(test_keep_going_nettrace_block_body_fault_skips_to_recorded_end),
        cmocka_unit_test(test_keep_going_nettrace_unknown_metadata_skips_the_event),
        cmocka_unit_test(test_keep_going_nettrace_compressed_fault_skips_rest_of_block),
        cmocka_unit_test(test_nettrace_timestamp_outside_block_range_is_a_fault),
        cmocka_unit_test(test_keep_going_nettrace_damaged_size_reads_to_next_object),
        cmocka_unit_test(test_keep_going_nettrace_damaged_size_scans_to_next_object),
        cmocka_unit_test(test_keep_going_nettrace_damaged_header_scans),
        cmocka_unit_test(test_keep_going_nettrace_cut_skips_to_end),
        cmocka_unit_test(test_keep_going_nettrace_stream_resyncs),
        cmocka_unit_test(test_keep_going_nettrace_hostile_filler_is_linear),
        cmocka_unit_test(test_keep_going_stats_flags_gcs_around_skip),
        cmocka_unit_test(test_stats_drop_after_next_gc_started_leaves_previous_gc),
        cmocka_unit_test(test_stats_drop_before_heap_stats_flags_last_gc),
        cmocka_unit_test(test_keep_going_etl_damaged_buffer_header_skips_buffer),
        cmocka_unit_test(test_keep_going_etl_damaged_buffer_size_reads_at_fixed_size),
        cmocka_unit_test(test_keep_going_etl_damaged_record_skips_rest_of_buffer),
        cmocka_unit_test(test_keep_going_etl_adjacent_faults_are_two_ranges_and_bytes_add_up),
        cmocka_unit_test(test_keep_going_etl_stats_flags_gc_open_across_skip),
        cmocka_unit_test(test_keep_going_etl_cut_buffer_skips_to_end),
        cmocka_unit_test(test_keep_going_etl_compressed_damaged_header_scans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
