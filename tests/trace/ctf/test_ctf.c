/*
 * The CTF (LTTng) reader on whole traces written here (metadata text + stream files in a
 * temporary folder): compact and large event headers with their extended forms, 27-bit
 * timestamp wrap-around, the clock offset, the event context, payloads rebuilt in the ETW
 * layout, the merge of two streams, every truncation of a stream file, and hostile packets.
 * The parser, the packetized metadata, field decoding and the ETW layout have test files of
 * their own (test_ctf_<unit>.c).
 */
/* SPDX-License-Identifier: MIT */
/*
 * The CTF (LTTng) reader on small hand-written traces: the TSDL parser on
 * small metadata (model and errors with their line), packetized metadata, the
 * bit reader, then whole traces written here (metadata text + stream files in
 * a temporary folder): compact and large event headers with their extended
 * forms, 27-bit timestamp wrap-around, the clock offset, the event context,
 * payloads rebuilt in the ETW layout, the merge of two streams, every
 * truncation of a stream file, and hostile packets.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, strdup */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <gcev/gcev.h>
#include <gcev/gcev_trace.h>

#include "gcev_ctf_decode.h"
#include "gcev_ctf_etw.h"
#include "gcev_schema_desc.h"
#include "gcev_ctf_meta.h"
#include "failalloc.h"
#include "zip_builder.h"

#include "ctf_helpers.h"

/* ---- whole traces ---------------------------------------------------------------- */

typedef struct bw {
    uint8_t *d;
    size_t cap;
    uint64_t bits;
} bw;

static void bw_bits(bw *w, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, w->bits++) {
        size_t byte = (size_t)(w->bits / 8);
        if (byte >= w->cap) {
            size_t cap = w->cap ? w->cap * 2 : 256;
            w->d = realloc(w->d, cap);
            assert_non_null(w->d);
            memset(w->d + w->cap, 0, cap - w->cap);
            w->cap = cap;
        }
        if ((v >> i) & 1) {
            w->d[byte] |= (uint8_t)(1u << (w->bits % 8));
        }
    }
}

static void bw_align(bw *w, unsigned a)
{
    while (w->bits % a) {
        bw_bits(w, 0, 1);
    }
}

static void bw_int(bw *w, uint64_t v, unsigned bits)
{
    bw_align(w, 8);
    bw_bits(w, v, bits);
}

static void bw_str(bw *w, const char *s)
{
    do {
        bw_int(w, (uint8_t)*s, 8);
    } while (*s++);
}

static void bw_put64_at(bw *w, uint64_t bitpos, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        w->d[bitpos / 8 + (uint64_t)i] = (uint8_t)(v >> (8 * i));
    }
}

typedef struct ev_spec {
    int cls;     /* 0 GCStart_V2, 1 PrvFinalizeObject, 2 GCHeapStats blob, 3 kernel-like, 4 mismatched, 40 */
    uint64_t ts; /* cycles */
    uint32_t a;  /* a value for the fields */
    int packet;  /* packet index this event goes in */
} ev_spec;

typedef struct built {
    bw w;
    size_t nev;
    uint64_t ev_start[64], ev_end[64]; /* byte offsets in the file */
    uint64_t pkt_start[8], pkt_end[8];
    size_t npkt;
} built;

static const uint8_t UUID[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};

static void write_fields(bw *w, const ev_spec *e)
{
    switch (e->cls) {
    case 0:
        bw_int(w, e->a, 32);
        bw_int(w, 2, 32);
        bw_int(w, 3, 32);
        bw_int(w, 1, 32);
        bw_int(w, 7, 16);
        bw_int(w, 0x1122334455667788ull, 64);
        break;
    case 1:
        bw_int(w, 0xAAAA, 64);
        bw_int(w, e->a, 64);
        bw_int(w, 9, 16);
        bw_str(w, "Sys\xc3\xa9m.\xf0\x9f\x98\x80"); /* é and an emoji (a surrogate pair) */
        break;
    case 2:
        bw_int(w, 94, 32);
        bw_int(w, 94, 32);
        for (unsigned i = 0; i < 94; i++) {
            bw_int(w, (uint8_t)(i + e->a), 8);
        }
        break;
    case 3:
        for (unsigned i = 0; i < 16; i++) {
            bw_int(w, i < 4 ? (uint8_t) "bash"[i] : 0, 8);
        }
        bw_int(w, e->a, 32);
        break;
    case 4:
        bw_int(w, e->a, 32);
        bw_int(w, 0, 32);
        bw_int(w, 0, 16);
        break;
    default:
        bw_int(w, e->a, 64);
        bw_int(w, 0, 16);
        break;
    }
}

/* One stream file: packets of events (each packet padded to a multiple of 64 bytes + 32). */
static void build_stream(built *b, int header, const ev_spec *evs, size_t n, uint32_t cpu)
{
    memset(b, 0, sizeof *b);
    bw *w = &b->w;
    uint64_t last = 0;
    size_t i = 0;
    for (int pk = 0; i < n; pk++) {
        uint64_t pstart = w->bits;
        b->pkt_start[b->npkt] = pstart / 8;
        bw_int(w, 0xC1FC1FC1u, 32);
        for (int k = 0; k < 16; k++) {
            bw_int(w, UUID[k], 8);
        }
        bw_int(w, 0, 32);
        bw_int(w, 0, 64);
        uint64_t tb = evs[i].ts;
        bw_int(w, tb, 64);
        uint64_t te_pos = w->bits;
        bw_int(w, 0, 64);
        uint64_t cs_pos = w->bits;
        bw_int(w, 0, 64);
        uint64_t ps_pos = w->bits;
        bw_int(w, 0, 64);
        bw_int(w, (uint64_t)pk, 64);
        bw_int(w, 0, 64);
        bw_int(w, cpu, 32);
        last = tb;
        uint64_t tlast = tb;
        for (; i < n && evs[i].packet == pk; i++) {
            const ev_spec *e = &evs[i];
            bw_align(w, 8);
            b->ev_start[b->nev] = w->bits / 8;
            unsigned id = (unsigned)e->cls;
            if (header == HDR_COMPACT) {
                if (id < 31 && e->ts - last < (1u << 27)) {
                    bw_bits(w, id, 5);
                    bw_bits(w, e->ts & ((1u << 27) - 1), 27);
                } else {
                    bw_bits(w, 31, 5);
                    bw_int(w, id, 32);
                    bw_int(w, e->ts, 64);
                }
            } else {
                if (e->ts - last <= UINT32_MAX && (e->ts >> 32) == (last >> 32)) {
                    bw_int(w, id, 16);
                    bw_int(w, e->ts & 0xFFFFFFFFu, 32);
                } else {
                    bw_int(w, 65535, 16);
                    bw_int(w, id, 32);
                    bw_int(w, e->ts, 64);
                }
            }
            last = e->ts;
            tlast = e->ts;
            bw_int(w, 1000 + cpu, 32);
            bw_int(w, e->a, 32);
            const char *pn = "dotnet";
            for (unsigned k = 0; k < 17; k++) {
                bw_int(w, k < strlen(pn) ? (uint8_t)pn[k] : 0, 8);
            }
            write_fields(w, e);
            b->ev_end[b->nev] = (w->bits + 7) / 8;
            b->nev++;
        }
        uint64_t content = w->bits - pstart;
        uint64_t psize = (content / 8 / 64 + 1) * 64 + 32;
        while (w->bits < pstart + psize * 8) {
            bw_bits(w, 0, 8);
        }
        bw_put64_at(w, te_pos, tlast);
        bw_put64_at(w, cs_pos, content);
        bw_put64_at(w, ps_pos, psize * 8);
        b->pkt_end[b->npkt] = (pstart / 8) + psize;
        b->npkt++;
    }
}

static char *make_dir(void)
{
    const char *base = getenv("GCEV_BINARY_DIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/ctf-test-XXXXXX", base ? base : "/tmp");
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

static void write_file(const char *dir, const char *name, const void *data, size_t n)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    if (n) {
        assert_int_equal(fwrite(data, 1, n, f), n);
    }
    fclose(f);
}

static void remove_dir(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static const ev_spec EVENTS[] = {
    {0, 100, 1, 0},
    {1, 200, 0x1000, 0},
    {2, 300, 5, 0},
    {3, 400, 77, 0},
    /* the 27-bit timestamp wraps: compact headers across 2^27 */
    {4, (1u << 27) - 5, 8, 0},
    {0, (1u << 27) + 10, 2, 0},
    /* a jump too big for 27 bits: extended header */
    {0, (1ull << 33) + 3, 3, 1},
    /* id >= 31: extended header */
    {40, (1ull << 33) + 4, 99, 1},
    {0, (1ull << 33) + 5, 4, 1},
};

enum { NEVENTS = sizeof EVENTS / sizeof EVENTS[0] };

static char *write_trace(int header, built *b)
{
    char *dir = make_dir();
    char *meta = trace_metadata(header);
    write_file(dir, "metadata", meta, strlen(meta));
    free(meta);
    build_stream(b, header, EVENTS, NEVENTS, 2);
    write_file(dir, "channel0_2", b->w.d, (size_t)(b->w.bits / 8));
    return dir;
}

static const uint64_t NS0 = 1000000000ull + 500; /* offset_s = 1, offset = 500 cycles at 1 GHz */

static void check_event(const gcev_trace_event *ev, const ev_spec *e)
{
    assert_int_equal(ev->timestamp, (int64_t)(e->ts + NS0));
    assert_int_equal(ev->process_id, 1002);
    assert_int_equal(ev->thread_id, e->a);
    assert_int_equal(ev->processor, 2);
    assert_string_equal(ev->process_name, "dotnet");
    assert_int_equal(ev->pointer_size, 8);
    switch (e->cls) {
    case 0: {
        assert_string_equal(ev->provider_name, "Microsoft-Windows-DotNETRuntime");
        assert_string_equal(ev->event_name, "GCStart_V2");
        assert_int_equal(ev->no_event_id, 0);
        assert_int_equal(ev->event_id, 1);
        assert_int_equal(ev->version, 2);
        assert_non_null(ev->provider);
        assert_int_equal(ev->payload_size, 26);
        gcev_input in = {.struct_size = sizeof in,
                         .provider = ev->provider,
                         .event_id = ev->event_id,
                         .version = ev->version,
                         .pointer_size = ev->pointer_size,
                         .data = ev->payload,
                         .size = ev->payload_size};
        gcev_event d;
        assert_int_equal(gcev_decode(&in, &d, NULL), GCEV_OK);
        assert_int_equal(d.consumed, 26);
        assert_int_equal(d.u.gc_start.count, e->a);
        assert_int_equal(d.u.gc_start.depth, 2);
        assert_int_equal(d.u.gc_start.reason, 3);
        assert_int_equal(d.u.gc_start.type, 1);
        assert_int_equal(d.u.gc_start.clr_instance_id, 7);
        assert_true(d.u.gc_start.client_sequence_number == 0x1122334455667788ull);
        break;
    }
    case 1: {
        assert_string_equal(ev->provider_name, "Microsoft-Windows-DotNETRuntimePrivate");
        assert_int_equal(ev->event_id, 192);
        assert_int_equal(ev->version, 0);
        /* 8 + 8 + 2 + UTF-16 "Sysém.😀" (7 + 2 units) + NUL */
        static const uint8_t want_name[] = {'S', 0,   'y', 0,    's',  0,    0xe9, 0, 'm',
                                            0,   '.', 0,   0x3d, 0xd8, 0x00, 0xde, 0, 0};
        assert_int_equal(ev->payload_size, 18 + sizeof want_name);
        assert_memory_equal(ev->payload + 18, want_name, sizeof want_name);
        gcev_input in = {.struct_size = sizeof in,
                         .provider = ev->provider,
                         .event_id = ev->event_id,
                         .version = ev->version,
                         .pointer_size = ev->pointer_size,
                         .data = ev->payload,
                         .size = ev->payload_size};
        gcev_event d;
        assert_int_equal(gcev_decode(&in, &d, NULL), GCEV_OK);
        assert_int_equal(d.consumed, ev->payload_size);
        break;
    }
    case 2:
        assert_int_equal(ev->event_id, 4);
        assert_int_equal(ev->version, 1);
        assert_int_equal(ev->payload_size, 94);
        for (unsigned i = 0; i < 94; i++) {
            assert_int_equal(ev->payload[i], (uint8_t)(i + e->a));
        }
        break;
    case 3:
        assert_string_equal(ev->provider_name, "lttng-ust"); /* no prefix: the tracer's name */
        assert_string_equal(ev->event_name, "sched_process_exit");
        assert_int_equal(ev->no_event_id, 1);
        assert_null(ev->provider);
        assert_int_equal(ev->payload_size, 20); /* the CTF bytes as they are */
        assert_memory_equal(ev->payload, "bash", 4);
        break;
    case 4:
        /* GCEnd_V1 whose fields are not the manifest's: named, no id */
        assert_string_equal(ev->event_name, "GCEnd_V1");
        assert_int_equal(ev->no_event_id, 1);
        assert_null(ev->provider);
        assert_int_equal(ev->payload_size, 10);
        break;
    default:
        assert_string_equal(ev->provider_name, "Microsoft-Windows-DotNETRuntime");
        assert_string_equal(ev->event_name, "ThreadCreating");
        assert_int_equal(ev->no_event_id, 1);
        assert_int_equal(ev->payload_size, 10);
        break;
    }
}

static void read_all_events(const char *dir, size_t want)
{
    gcev_trace *t;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_OK);
    const gcev_trace_info *info = gcev_trace_get_info(t);
    assert_int_equal(info->format, GCEV_FORMAT_CTF);
    assert_int_equal(info->format_version, 18);
    assert_int_equal(info->clock_frequency, 1000000000u);
    assert_int_equal(info->sync_time_qpc, (int64_t)(EVENTS[0].ts + NS0));
    assert_int_equal(info->processor_count, 3);
    assert_string_equal(gcev_trace_format_name(info->format), "ctf");
    gcev_trace_event ev;
    size_t n = 0;
    gcev_status st;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        assert_true(n < want);
        check_event(&ev, &EVENTS[n]);
        n++;
    }
    assert_int_equal(st, GCEV_END);
    assert_int_equal(n, want);
    gcev_trace_close(t);
}

static void test_trace_compact_headers(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    read_all_events(dir, NEVENTS);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

static void test_trace_large_headers(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_LARGE, &b);
    read_all_events(dir, NEVENTS);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

/* Two per-CPU streams come out merged in time order (ties: the first stream). */
static void test_trace_streams_merged_in_time_order(void **state)
{
    (void)state;
    char *dir = make_dir();
    char *meta = trace_metadata(HDR_COMPACT);
    write_file(dir, "metadata", meta, strlen(meta));
    free(meta);
    static const ev_spec a[] = {{0, 10, 1, 0}, {0, 30, 3, 0}, {0, 50, 5, 1}, {0, 51, 6, 1}};
    static const ev_spec c[] = {{0, 20, 2, 0}, {0, 30, 4, 0}, {0, 60, 7, 0}};
    built ba, bc;
    build_stream(&ba, HDR_COMPACT, a, 4, 0);
    build_stream(&bc, HDR_COMPACT, c, 3, 1);
    write_file(dir, "channel0_0", ba.w.d, (size_t)(ba.w.bits / 8));
    write_file(dir, "channel0_1", bc.w.d, (size_t)(bc.w.bits / 8));
    write_file(dir, "channel0_2", NULL, 0); /* an empty stream file */
    gcev_trace *t;
    gcev_error err;
    gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME};
    assert_int_equal(gcev_trace_open_file(dir, &o, &t, &err), GCEV_OK);
    gcev_trace_event ev;
    uint32_t want = 1;
    while (gcev_trace_next(t, &ev, &err) == GCEV_OK) {
        gcev_input in = {.struct_size = sizeof in,
                         .provider = ev.provider,
                         .event_id = ev.event_id,
                         .version = ev.version,
                         .pointer_size = ev.pointer_size,
                         .data = ev.payload,
                         .size = ev.payload_size};
        gcev_event d;
        assert_int_equal(gcev_decode(&in, &d, NULL), GCEV_OK);
        assert_int_equal(d.u.gc_start.count, want);
        assert_int_equal(ev.processor, (want == 2 || want == 4 || want == 7) ? 1 : 0);
        want++;
    }
    assert_int_equal(want, 8);
    gcev_trace_close(t);
    free(ba.w.d);
    free(bc.w.d);
    remove_dir(dir);
    free(dir);
}

/*
 * Every cut of the stream file: the events that lie whole before the cut come
 * out, then (unless the cut falls between packets) GCEV_E_TRUNCATED_FILE whose
 * message names the stream file and whose offset lies between the first
 * missing event (or packet) and the cut.
 */
static void test_trace_every_truncation(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    size_t full = (size_t)(b.w.bits / 8);
    for (size_t cut = 0; cut <= full; cut++) {
        write_file(dir, "channel0_2", b.w.d, cut);
        size_t whole = 0;
        for (size_t i = 0; i < b.nev; i++) {
            size_t pk = (size_t)EVENTS[i].packet;
            if (b.ev_end[i] <= cut && b.pkt_start[pk] + 84 <= cut) {
                whole++;
            }
        }
        int boundary = 0;
        for (size_t p = 0; p < b.npkt; p++) {
            boundary |= cut == b.pkt_start[p] || cut == b.pkt_end[p];
        }
        boundary |= cut == 0;
        gcev_trace *t;
        gcev_error err = {0};
        assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_OK);
        gcev_trace_event ev;
        size_t n = 0;
        gcev_status st;
        while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
            check_event(&ev, &EVENTS[n]);
            n++;
        }
        if (n != whole) {
            fail_msg("cut %zu: %zu events, want %zu", cut, n, whole);
        }
        if (boundary) {
            if (st != GCEV_END) {
                fail_msg("cut %zu (a packet boundary): %s %s", cut, gcev_status_str(st), err.message);
            }
        } else {
            if (st != GCEV_E_TRUNCATED_FILE) {
                fail_msg("cut %zu: %s, want truncated (%s)", cut, gcev_status_str(st), err.message);
            }
            assert_non_null(strstr(err.message, "channel0_2"));
            /* from the end of the last whole event, and not before the cut packet's start */
            uint64_t lo = whole ? b.ev_end[whole - 1] : 0;
            for (size_t p = 0; p < b.npkt; p++) {
                if (cut > b.pkt_start[p] && cut < b.pkt_end[p] && b.pkt_start[p] > lo) {
                    lo = b.pkt_start[p];
                }
            }
            if (err.offset < lo || err.offset > cut) {
                fail_msg("cut %zu: error offset %llu not in [%llu, %zu] (%s)", cut,
                         (unsigned long long)err.offset, (unsigned long long)lo, cut, err.message);
            }
            /* sticky */
            gcev_error again = {0};
            assert_int_equal(gcev_trace_next(t, &ev, &again), GCEV_E_TRUNCATED_FILE);
            assert_int_equal(again.offset, err.offset);
        }
        gcev_trace_close(t);
    }
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

/* Hostile packets: each gives a specific error after the events before it. */
static void test_trace_bad_packets(void **state)
{
    (void)state;
    typedef struct mutation {
        size_t at;   /* byte offset from the first event's start (SIZE_MAX: from the file start) */
        size_t back; /* for the file-start mutations: offset from 0 */
        uint8_t byte;
        gcev_status code;
        const char *msg;
    } mutation;
    const mutation muts[] = {
        {SIZE_MAX, 0, 0x00, GCEV_E_FORMAT, "packet magic"},
        {SIZE_MAX, 4, 0x01, GCEV_E_FORMAT, "uuid differs"},
        {SIZE_MAX, 20, 0x07, GCEV_E_FORMAT, "stream class the metadata does not declare"},
        {SIZE_MAX, 48 + 7, 0x7f, GCEV_E_FORMAT, "content_size exceeds"},
        {SIZE_MAX, 56 + 7, 0x7f, GCEV_E_LIMIT, "packet larger than the block-size limit"},
        {0, 0, 0x1e, GCEV_E_FORMAT, "event id 30 is not declared"},
    };
    for (size_t k = 0; k < sizeof muts / sizeof muts[0]; k++) {
        built b;
        char *dir = write_trace(HDR_COMPACT, &b);
        size_t off = muts[k].at == SIZE_MAX ? muts[k].back : (size_t)b.ev_start[1] + muts[k].at;
        if (muts[k].at != SIZE_MAX) {
            /* the 5-bit id of the second event */
            b.w.d[off] = (uint8_t)((b.w.d[off] & 0xE0) | muts[k].byte);
        } else {
            b.w.d[off] = muts[k].byte;
        }
        write_file(dir, "channel0_2", b.w.d, (size_t)(b.w.bits / 8));
        gcev_trace *t;
        gcev_error err = {0};
        assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_OK);
        gcev_trace_event ev;
        size_t n = 0;
        gcev_status st;
        while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
            n++;
        }
        assert_int_equal(n, muts[k].at == SIZE_MAX ? 0 : 1);
        if (st != muts[k].code || !strstr(err.message, muts[k].msg) || !strstr(err.message, "channel0_2")) {
            fail_msg("mutation %zu: %s '%s'", k, gcev_status_str(st), err.message);
        }
        gcev_trace_close(t);
        free(b.w.d);
        remove_dir(dir);
        free(dir);
    }
}

/* A perfcollect-style .trace.zip read in place, from memory and from a file; a cut stream entry. */
static void test_trace_in_zip(void **state)
{
    (void)state;
    built b;
    build_stream(&b, HDR_COMPACT, EVENTS, NEVENTS, 2);
    char *meta = trace_metadata(HDR_COMPACT);
    size_t full = (size_t)(b.w.bits / 8);
    for (int cut = 0; cut < 2; cut++) {
        size_t len = cut ? (size_t)b.ev_start[3] + 5 : full; /* inside the 4th event */
        zipb_entry ents[] = {
            {"x.trace/", NULL, 0, ZIPB_STORE, 0},
            {"x.trace/perfcollect.log", "log", 3, ZIPB_DEFLATE, 0},
            {"x.trace/t/metadata", meta, strlen(meta), ZIPB_DEFLATE, 0},
            {"x.trace/t/channel0_2", b.w.d, len, ZIPB_DEFLATE, 0},
            {"x.trace/t/index/channel0_2.idx", "idx", 3, ZIPB_STORE, 0},
        };
        size_t zsize = 0;
        uint8_t *zip = zipb_build(ents, sizeof ents / sizeof ents[0], &zsize);
        assert_non_null(zip);
        char *path = zipb_write_temp(zip, zsize, ".trace.zip");
        assert_non_null(path);
        for (int from_file = 0; from_file < 2; from_file++) {
            gcev_trace *t;
            gcev_error err = {0};
            gcev_status st = from_file ? gcev_trace_open_file(path, NULL, &t, &err)
                                       : gcev_trace_open_memory(zip, zsize, NULL, &t, &err);
            if (st != GCEV_OK) {
                fail_msg("open: %s", err.message);
            }
            assert_int_equal(gcev_trace_get_info(t)->format, GCEV_FORMAT_CTF);
            gcev_trace_event ev;
            size_t n = 0;
            while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
                check_event(&ev, &EVENTS[n]);
                n++;
            }
            if (cut) {
                assert_int_equal(n, 3);
                assert_int_equal(st, GCEV_E_TRUNCATED_FILE);
                assert_non_null(strstr(err.message, "x.trace/t/channel0_2"));
                assert_true(err.offset >= b.ev_start[3] && err.offset <= len);
            } else {
                assert_int_equal(st, GCEV_END);
                assert_int_equal(n, NEVENTS);
            }
            gcev_trace_close(t);
        }
        unlink(path);
        free(path);
        free(zip);
    }
    free(meta);
    free(b.w.d);
}

static void test_open_folder_errors(void **state)
{
    (void)state;
    char *dir = make_dir();
    gcev_trace *t = (gcev_trace *)1;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_E_UNSUPPORTED);
    assert_null(t);
    assert_non_null(strstr(err.message, "no 'metadata' file"));
    write_file(dir, "metadata", "/* CTF 1.8 */\nenv { a = ; };", 27);
    assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_E_FORMAT);
    assert_non_null(strstr(err.message, "metadata: TSDL line 2"));
    assert_non_null(strstr(err.message, "expected a value"));
    remove_dir(dir);
    free(dir);
}

/* Every allocation of open + read failing in turn (TSDL parse, streams, the merge; folder
 * and ZIP in memory; file and time order): GCEV_E_NOMEM or the same events. */
static void test_ctf_each_allocation_failure_is_nomem_or_the_same_events(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    char *meta = trace_metadata(HDR_COMPACT);
    zipb_entry ents[] = {
        {"x.trace/", NULL, 0, ZIPB_STORE, 0},
        {"x.trace/t/metadata", meta, strlen(meta), ZIPB_DEFLATE, 0},
        {"x.trace/t/channel0_2", b.w.d, (size_t)(b.w.bits / 8), ZIPB_DEFLATE, 0},
    };
    size_t zsize = 0;
    uint8_t *zip = zipb_build(ents, sizeof ents / sizeof ents[0], &zsize);
    assert_non_null(zip);
    for (uint32_t order = GCEV_TRACE_ORDER_FILE; order <= GCEV_TRACE_ORDER_TIME; order++) {
        for (int in_zip = 0; in_zip < 2; in_zip++) {
            failalloc_trace r = {in_zip ? NULL : dir, zip, zsize, 0, {.order = order}, 0, 0};
            assert_true(failalloc_every_read(&r) > 0);
            assert_int_equal(r.events, NEVENTS);
        }
    }
    free(zip);
    free(meta);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

/* Reads dir with keep_going; checks each event against EVENTS[want[i]]; returns the end status. */
static gcev_status read_keep_going(const char *dir, const size_t *want, size_t nwant, gcev_trace **out)
{
    gcev_trace_options o = {.struct_size = sizeof o, .keep_going = 1};
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(dir, &o, out, &err), GCEV_OK);
    gcev_trace_event ev;
    size_t n = 0;
    gcev_status st;
    while ((st = gcev_trace_next(*out, &ev, &err)) == GCEV_OK) {
        assert_true(n < nwant);
        check_event(&ev, &EVENTS[want[n]]);
        n++;
    }
    assert_int_equal(n, nwant);
    return st;
}

/*
 * Keep-going on CTF: an undeclared event id inside packet 0 skips the rest of that packet
 * (the events of packet 1 follow); a file cut inside packet 1's header skips to the end of
 * the file. Each skip says where, how much, why and the timestamp of the next event.
 */
static void test_ctf_keep_going_skips_a_damaged_packet_or_the_cut_rest(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    size_t full = (size_t)(b.w.bits / 8);
    uint8_t *bad = malloc(full);
    if (!bad || b.ev_start[1] >= full) { /* (a return gcc -O3 sees: else it warns of the write) */
        fail_msg("no copy of the %zu-byte trace, or event 1 outside it", full);
        return;
    }
    memcpy(bad, b.w.d, full);
    bad[b.ev_start[1]] = (uint8_t)((bad[b.ev_start[1]] & 0xE0) | 29); /* compact id 29: not declared */
    write_file(dir, "channel0_2", bad, full);
    /* without keep-going: the error */
    gcev_trace *t;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_OK);
    gcev_trace_event ev;
    assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_OK);
    assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_E_FORMAT);
    assert_int_equal(err.offset, b.ev_start[1]);
    assert_non_null(strstr(err.message, "event id 29 is not declared for stream class 0"));
    gcev_trace_close(t);
    static const size_t after_bad_event[] = {0, 6, 7, 8};
    assert_int_equal(read_keep_going(dir, after_bad_event, 4, &t), GCEV_END);
    assert_int_equal(gcev_trace_skip_count(t), 1);
    const gcev_trace_skip *k = gcev_trace_skip_at(t, 0);
    assert_true(k->offset >= b.ev_end[0] && k->offset <= b.ev_start[1]);
    assert_int_equal(k->offset + k->bytes, b.pkt_end[0]);
    assert_int_equal(k->status, GCEV_E_FORMAT);
    assert_int_equal(k->fault_offset, b.ev_start[1]);
    assert_non_null(strstr(k->message, "event id 29 is not declared"));
    assert_int_equal(k->has_timestamp, 1);
    assert_int_equal(k->timestamp, (int64_t)(EVENTS[6].ts + NS0));
    assert_int_equal(gcev_trace_skipped_bytes(t), k->bytes);
    gcev_trace_close(t);
    /* the file cut inside packet 1's header: packet 0 whole, then the rest skipped */
    size_t cut = (size_t)b.pkt_start[1] + 40;
    write_file(dir, "channel0_2", b.w.d, cut);
    static const size_t packet0[] = {0, 1, 2, 3, 4, 5};
    assert_int_equal(read_keep_going(dir, packet0, 6, &t), GCEV_END);
    assert_int_equal(gcev_trace_skip_count(t), 1);
    k = gcev_trace_skip_at(t, 0);
    assert_int_equal(k->offset, b.pkt_start[1]);
    assert_int_equal(k->offset + k->bytes, cut);
    assert_int_equal(k->status, GCEV_E_TRUNCATED_FILE);
    assert_int_equal(k->has_timestamp, 0);
    gcev_trace_close(t);
    free(bad);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

/* A packet whose events_discarded grew since the previous one: a drop of that many events,
 * on the packet's CPU, at the packet's offset. */
static void test_ctf_events_discarded_between_packets_is_a_drop(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    /* events_discarded: after magic, uuid, stream_id, instance id, timestamps, sizes, seq */
    bw_put64_at(&b.w, (b.pkt_start[1] + 72) * 8, 5);
    write_file(dir, "channel0_2", b.w.d, (size_t)(b.w.bits / 8));
    gcev_trace *t;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_OK);
    gcev_trace_event ev;
    size_t n = 0;
    while (gcev_trace_next(t, &ev, &err) == GCEV_OK) {
        check_event(&ev, &EVENTS[n]);
        n++;
    }
    assert_int_equal(n, NEVENTS);
    assert_int_equal(gcev_trace_dropped_events(t), 5);
    assert_int_equal(gcev_trace_drop_count(t), 1);
    const gcev_trace_drop *d = gcev_trace_drop_at(t, 0);
    assert_int_equal(d->dropped, 5);
    assert_int_equal(d->capture_thread_id, 2);
    assert_int_equal(d->file_offset, b.pkt_start[1]);
    gcev_trace_close(t);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

/* Every byte of the stream file flipped to its complement and to 0x80, one at a time, read in
 * both orders (and with keep-going): the read ends cleanly, or with a format, truncation,
 * limit or unsupported error that names the stream file and lies inside it. */
static void test_ctf_every_flipped_stream_byte_is_read_or_a_located_error(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    size_t full = (size_t)(b.w.bits / 8);
    uint8_t *m = malloc(full);
    for (size_t pos = 0; pos < full; pos += failalloc_quick() ? 7 : 1) {
        for (int how = 0; how < 2; how++) {
            memcpy(m, b.w.d, full);
            m[pos] = how ? 0x80 : (uint8_t)~m[pos];
            write_file(dir, "channel0_2", m, full);
            for (int mode = 0; mode < 3; mode++) {
                gcev_trace_options o = {.struct_size = sizeof o,
                                        .order = mode == 1 ? GCEV_TRACE_ORDER_TIME : GCEV_TRACE_ORDER_FILE,
                                        .keep_going = mode == 2};
                gcev_trace *t = NULL;
                gcev_error err = {0};
                assert_int_equal(gcev_trace_open_file(dir, &o, &t, &err), GCEV_OK);
                gcev_trace_event ev;
                size_t n = 0;
                gcev_status st;
                while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
                    n++;
                }
                assert_true(n <= 2 * NEVENTS);
                if (st != GCEV_END) {
                    if (st != GCEV_E_FORMAT && st != GCEV_E_TRUNCATED_FILE && st != GCEV_E_LIMIT &&
                        st != GCEV_E_UNSUPPORTED) {
                        fail_msg("byte %zu -> %02x: %s", pos, m[pos], gcev_status_str(st));
                    }
                    assert_true(err.offset <= full);
                    assert_non_null(strstr(err.message, "channel0_2"));
                }
                gcev_trace_close(t);
            }
        }
    }
    free(m);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

/*
 * The least a CTF trace can be: no packet header or context (the stream file is one packet),
 * no event header (the stream's one event class is implied), a clock at 1 kHz with a negative
 * cycle offset (or no clock at all): both events read, of the implied class, at the clock's
 * origin in ns, on no known CPU.
 */
static void test_ctf_minimal_trace_one_packet_implied_event_class(void **state)
{
    (void)state;
    for (int clock = 0; clock < 2; clock++) {
        char *dir = make_dir();
        char meta[1024];
        snprintf(meta, sizeof meta,
                 "/* CTF 1.8 */\n"
                 "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
                 "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
                 "trace { major = 1; minor = 8; byte_order = le; };\n"
                 "%s"
                 "stream { id = 0; };\n"
                 "event { name = \"DotNETRuntime:GCEnd_V1\"; id = 0; stream_id = 0; fields := struct {\n"
                 "  uint32_t _Count; uint32_t _Depth; uint16_t _ClrInstanceID; }; };\n",
                 clock ? "clock { name = \"monotonic\"; freq = 1000; offset_s = 2; offset = -500; };\n" : "");
        write_file(dir, "metadata", meta, strlen(meta));
        static const uint8_t events[20] = {7, 0, 0, 0, 2, 0, 0, 0, 1, 0, 8, 0, 0, 0, 2, 0, 0, 0, 1, 0};
        write_file(dir, "channel0_0", events, sizeof events);
        gcev_trace *t;
        gcev_error err = {0};
        if (gcev_trace_open_file(dir, NULL, &t, &err) != GCEV_OK) {
            fail_msg("open: %s", err.message);
        }
        gcev_trace_event ev;
        for (int i = 0; i < 2; i++) {
            gcev_status st = gcev_trace_next(t, &ev, &err);
            if (st != GCEV_OK) {
                fail_msg("event %d: %s %s", i, gcev_status_str(st), err.message);
            }
            assert_string_equal(ev.event_name, "GCEnd_V1");
            assert_int_equal(ev.event_id, 2);
            assert_int_equal(ev.version, 1);
            assert_int_equal(ev.payload_size, 10);
            assert_memory_equal(ev.payload, events + 10 * i, 10);
            assert_int_equal(ev.timestamp, clock ? 1500000000 : 0); /* 2 s minus 500 cycles of 1 ms */
            assert_int_equal(ev.processor, UINT32_MAX);
        }
        assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_END);
        gcev_trace_close(t);
        remove_dir(dir);
        free(dir);
    }
}

/* Each packet-header and packet-context field that can be wrong, in packet 1: the events of
 * packet 0, then a format (or limit) error at the packet (the uuid's own offset) that says
 * which field. */
static void test_ctf_bad_packet_fields_name_the_field(void **state)
{
    (void)state;
    built b;
    char *dir = write_trace(HDR_COMPACT, &b);
    size_t full = (size_t)(b.w.bits / 8);
    uint8_t *m = malloc(full);
    static const struct {
        size_t at;   /* in packet 1 */
        uint64_t v;  /* little-endian value written there */
        unsigned w;  /* bytes */
        size_t erat; /* error offset in packet 1 */
        gcev_status want;
        const char *msg;
    } cases[] = {
        {0, 0x12345678, 4, 0, GCEV_E_FORMAT, "packet magic is not 0xc1fc1fc1"},
        {4, 0xee, 1, 4, GCEV_E_FORMAT, "packet uuid differs from the metadata's"},
        {20, 9, 4, 0, GCEV_E_FORMAT, "packet names a stream class the metadata does not declare"},
        {48, 1u << 20, 8, 0, GCEV_E_FORMAT, "content_size exceeds it"},    /* content_size bits */
        {56, 1001, 8, 0, GCEV_E_FORMAT, "packet_size is not whole bytes"}, /* packet_size bits */
        {48, 64, 8, 0, GCEV_E_FORMAT, "the header exceeds the content"},   /* content < header */
        {56, UINT64_C(1) << 40, 8, 0, GCEV_E_LIMIT, "larger than the block-size limit"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(m, b.w.d, full);
        for (unsigned k = 0; k < cases[i].w; k++) {
            m[b.pkt_start[1] + cases[i].at + k] = (uint8_t)(cases[i].v >> (8 * k));
        }
        if (cases[i].at == 56 && cases[i].v >> 32) { /* keep content_size within it */
            for (unsigned k = 0; k < 8; k++) {
                m[b.pkt_start[1] + 48 + k] = (uint8_t)(UINT64_C(2048) >> (8 * k));
            }
        }
        write_file(dir, "channel0_2", m, full);
        gcev_trace *t;
        gcev_error err = {0};
        assert_int_equal(gcev_trace_open_file(dir, NULL, &t, &err), GCEV_OK);
        gcev_trace_event ev;
        size_t n = 0;
        gcev_status st;
        while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
            check_event(&ev, &EVENTS[n]);
            n++;
        }
        if (n != 6 || st != cases[i].want || err.offset != b.pkt_start[1] + cases[i].erat ||
            !strstr(err.message, cases[i].msg) || !strstr(err.message, "channel0_2")) {
            fail_msg("case %zu: %zu events, %s at %llu '%s'", i, n, gcev_status_str(st),
                     (unsigned long long)err.offset, err.message);
        }
        gcev_trace_close(t);
    }
    free(m);
    free(b.w.d);
    remove_dir(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_compact_headers),
        cmocka_unit_test(test_trace_large_headers),
        cmocka_unit_test(test_trace_streams_merged_in_time_order),
        cmocka_unit_test(test_trace_every_truncation),
        cmocka_unit_test(test_trace_bad_packets),
        cmocka_unit_test(test_trace_in_zip),
        cmocka_unit_test(test_open_folder_errors),
        cmocka_unit_test(test_ctf_keep_going_skips_a_damaged_packet_or_the_cut_rest),
        cmocka_unit_test(test_ctf_events_discarded_between_packets_is_a_drop),
        cmocka_unit_test(test_ctf_every_flipped_stream_byte_is_read_or_a_located_error),
        cmocka_unit_test(test_ctf_minimal_trace_one_packet_implied_event_class),
        cmocka_unit_test(test_ctf_bad_packet_fields_name_the_field),
        cmocka_unit_test(test_ctf_each_allocation_failure_is_nomem_or_the_same_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
