/* SPDX-License-Identifier: MIT */
/*
 * CTF 1.8 reader (LTTng, perfcollect): metadata per trace folder, per-CPU
 * stream files read one packet at a time, events merged across all streams in
 * timestamp order with a binary heap (memory: one packet view per stream).
 *
 * A fault in one stream (a cut file, a bad packet) ends that stream only: the
 * others are read to their end, and then the first fault is reported, its
 * message naming the stream file and its offset in that file. So every event
 * before a fault is delivered.
 */
#define _POSIX_C_SOURCE 200809L /* opendir, stat, mkdtemp, truncate */
#include "gcev_ctf.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gcev_ctf_decode.h"
#include "gcev_ctf_etw.h"
#include "gcev_ctf_meta.h"
#include "gcev_error.h"
#include "gcev_schema_desc.h"
#include "gcev_vec.h"

#define PACKET_MAGIC 0xC1FC1FC1u

enum {
    HEADER_PEEK = 65536, /* most bytes a packet header + context may take */
    MSG_CAP = 512,
    PROCNAME_CAP = 64
};

/* What the streams may hold at once, whatever their number (hostile archives):
 * the event-field slots each stream keeps for its pending event, and the windows
 * of streamed (archive) sources, each holding its current packet. */
#define MAX_STREAM_SLOT_BYTES ((uint64_t)256 << 20)
#define MAX_WINDOW_BYTES ((uint64_t)1 << 30)

/* Messages of failed opens: the trace is gone by then, so they live per thread. */
static _Thread_local char open_msg[MSG_CAP];

typedef struct ctf_sub {
    const char *dir; /* "" or "a/b" (owned) */
    gcev_ctf_meta meta;
    gcev_ctf_class_map *maps; /* [meta.nevents] */
    uint8_t pointer_size;
    const char *default_provider;
} ctf_sub;

enum { ST_EVENT, ST_DONE, ST_FAILED };

typedef struct ctf_stream {
    ctf_sub *sub;
    const char *name;
    gcev_source src;
    int src_open;
    const gcev_ctf_stream_class *sc;
    /* the packet */
    int have_packet;
    const uint8_t *pkt;
    uint64_t pkt_off, pkt_bits, content_bits, avail_bits;
    size_t pkt_got; /* bytes of the view, skipped when moving on */
    uint32_t cpu_id;
    int have_cpu;
    uint64_t discarded;
    int have_discarded;
    uint64_t cycles; /* the last full timestamp */
    const gcev_ctf_clock *clock;
    uint64_t pos;                       /* bit offset of the next event in the packet */
    gcev_ctf_slot *ef;                  /* the pending event's fields (the other roots use the reader's) */
    size_t window_cap;                  /* window bytes of a streamed source, as counted in the reader */
    int ctx_pid, ctx_tid, ctx_procname; /* indexes in the stream event context, or -1 */
    uint32_t pid;
    uint64_t tid;
    int has_procname;
    char procname[PROCNAME_CAP];
    /* header hook output */
    uint64_t hdr_id;
    /* the event held */
    int state;
    const gcev_ctf_event_class *evc;
    uint64_t ev_start; /* bit offset in the packet */
    int64_t ts_ns;
    /* fault */
    gcev_status err;
    uint64_t err_off;
    char msg[MSG_CAP];
} ctf_stream;

typedef struct ctf_reader {
    gcev_ctf_files files;
    ctf_sub *subs;
    size_t nsubs;
    ctf_stream *streams;
    size_t nstreams;
    size_t *heap;
    size_t nheap;
    ctf_stream *last; /* popped by the previous next(): advanced first */
    ctf_stream *failed;
    gcev_ctf_buf payload;
    char procname[PROCNAME_CAP];
    uint64_t max_packet;
    /* decoding is one stream at a time: one cursor and the transient roots' slots */
    gcev_ctf_cursor cur;
    gcev_ctf_slot *ph, *pc, *eh, *sec, *ec;
    uint64_t slot_bytes;   /* of all streams' ef */
    uint64_t window_bytes; /* of all streamed sources' windows */
    gcev_trace *t;
} ctf_reader;

static gcev_status open_fail(gcev_error *err, gcev_status code, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static gcev_status open_fail(gcev_error *err, gcev_status code, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(open_msg, sizeof open_msg, fmt, ap);
    va_end(ap);
    return gcev_error_set(err, code, off, NULL, open_msg);
}

/* ---- time ------------------------------------------------------------------- */

static uint64_t scale_ns(uint64_t cycles, uint64_t freq)
{
    if (freq == 1000000000u) {
        return cycles;
    }
    uint64_t s = cycles / freq, r = cycles % freq;
    return s * 1000000000u + (uint64_t)((double)r * 1e9 / (double)freq);
}

/* ns since the clock's origin (the Unix epoch for LTTng's monotonic clock with its offset).
 * Unsigned, wrapping arithmetic: hostile offsets must not overflow signed types. */
static uint64_t cycles_to_ns(const gcev_ctf_clock *c, uint64_t cycles)
{
    uint64_t freq = c ? c->freq : 1000000000u;
    uint64_t ns = scale_ns(cycles, freq);
    if (c) {
        ns += (uint64_t)c->offset_s * 1000000000u;
        if (c->offset < 0) {
            ns -= scale_ns((uint64_t)0 - (uint64_t)c->offset, freq);
        } else {
            ns += scale_ns((uint64_t)c->offset, freq);
        }
    }
    return ns;
}

static void hdr_hook(void *ctx, const char *name, const gcev_ctf_type *t, uint64_t v)
{
    ctf_stream *s = ctx;
    if (!strcmp(name, "id")) {
        s->hdr_id = v;
    } else if (!strcmp(name, "timestamp")) {
        if (t->size >= 64) {
            s->cycles = v;
        } else {
            uint64_t mask = ((uint64_t)1 << t->size) - 1;
            uint64_t n = (s->cycles & ~mask) | (v & mask);
            if ((v & mask) < (s->cycles & mask)) {
                n += (uint64_t)1 << t->size; /* the low bits wrapped */
            }
            s->cycles = n;
        }
        if (t->has_clock && t->clock < s->sub->meta.nclocks) {
            s->clock = &s->sub->meta.clocks[t->clock];
        }
    }
}

/* ---- stream faults ---------------------------------------------------------- */

static void stream_fail(ctf_stream *s, gcev_status st, uint64_t off, const char *what)
{
    s->state = ST_FAILED;
    s->err = st;
    s->err_off = off;
    snprintf(s->msg, sizeof s->msg, "%s: %s (packet at offset %llu)", s->name, what,
             (unsigned long long)s->pkt_off);
}

static int slot_find(const gcev_ctf_type *t, const char *name)
{
    return t ? gcev_ctf_type_find(t, name) : -1;
}

static int ctx_find(const gcev_ctf_type *t, const char *a, const char *b)
{
    int i = slot_find(t, a);
    return i >= 0 ? i : slot_find(t, b);
}

static uint32_t max_fields(const gcev_ctf_type *t)
{
    return t ? t->nfields : 0;
}

static int alloc_slots(gcev_ctf_slot **p, uint32_t n)
{
    *p = calloc(n ? n : 1, sizeof **p);
    return *p != NULL;
}

/* Per stream class: the pending event's slots and the context indexes. GCEV_OK, or
 * GCEV_E_LIMIT / GCEV_E_NOMEM. */
static gcev_status stream_bind_class(ctf_reader *r, ctf_stream *s, const gcev_ctf_stream_class *sc)
{
    const gcev_ctf_meta *m = &s->sub->meta;
    s->sc = sc;
    uint32_t nef = 0;
    for (uint32_t i = 0; i < sc->nevents; i++) {
        const gcev_ctf_event_class *e = &m->events[sc->first_event + i];
        if (max_fields(e->fields) > nef) {
            nef = max_fields(e->fields);
        }
    }
    uint64_t bytes = (uint64_t)(nef ? nef : 1) * sizeof(gcev_ctf_slot);
    if (bytes > MAX_STREAM_SLOT_BYTES - r->slot_bytes) {
        return GCEV_E_LIMIT;
    }
    if (!alloc_slots(&s->ef, nef)) {
        return GCEV_E_NOMEM;
    }
    r->slot_bytes += bytes;
    s->ctx_pid = ctx_find(sc->event_context, "_vpid", "_pid");
    s->ctx_tid = ctx_find(sc->event_context, "_vtid", "_tid");
    s->ctx_procname = slot_find(sc->event_context, "_procname");
    if (s->ctx_pid < 0) {
        s->ctx_pid = ctx_find(sc->event_context, "vpid", "pid");
    }
    if (s->ctx_tid < 0) {
        s->ctx_tid = ctx_find(sc->event_context, "vtid", "tid");
    }
    if (s->ctx_procname < 0) {
        s->ctx_procname = slot_find(sc->event_context, "procname");
    }
    s->clock = m->nclocks ? &m->clocks[0] : NULL;
    return GCEV_OK;
}

static uint64_t slot_value(const gcev_ctf_type *t, const gcev_ctf_slot *slots, const char *name, int *found)
{
    int i = slot_find(t, name);
    if (i < 0) {
        *found = 0;
        return 0;
    }
    const gcev_ctf_type *ft = t->fields[i].type;
    *found = ft->kind == GCEV_CTF_INT || ft->kind == GCEV_CTF_ENUM;
    return *found ? slots[i].value : 0;
}

/* Reads the next packet's header and context; ST_DONE at the end of the file. */
static void read_packet(ctf_reader *r, ctf_stream *s)
{
    gcev_error e = {0};
    if (s->pkt_got) {
        if (gcev_source_skip(&s->src, s->pkt_got, &e) != GCEV_OK) {
            stream_fail(s, e.code, gcev_source_pos(&s->src), "read error");
            return;
        }
        s->pkt_got = 0;
    }
    s->have_packet = 0;
    uint64_t off = gcev_source_pos(&s->src);
    s->pkt_off = off;
    const uint8_t *view = NULL;
    size_t got = 0;
    if (gcev_source_peek(&s->src, HEADER_PEEK, &view, &got, &e) != GCEV_OK) {
        stream_fail(s, e.code, off, "read error");
        return;
    }
    if (got == 0) {
        s->state = ST_DONE;
        return;
    }
    const gcev_ctf_meta *m = &s->sub->meta;
    gcev_ctf_cursor *c = &r->cur;
    c->data = view;
    c->pos = 0;
    c->end = UINT64_MAX / 2;
    c->avail = (uint64_t)got * 8;
    c->native_be = m->big_endian;
    c->work = 1u << 16;
    c->on_int = NULL;
    gcev_status st = gcev_ctf_decode_root(c, GCEV_CTF_ROOT_PACKET_HEADER, m->packet_header, r->ph);
    const gcev_ctf_stream_class *sc = s->sc;
    if (st == GCEV_OK) {
        int found;
        uint64_t magic = slot_value(m->packet_header, r->ph, "magic", &found);
        if (found && magic != PACKET_MAGIC) {
            stream_fail(s, GCEV_E_FORMAT, off, "packet magic is not 0xc1fc1fc1");
            return;
        }
        int ui = slot_find(m->packet_header, "uuid");
        if (ui >= 0 && m->has_uuid) {
            const gcev_ctf_type *ut = m->packet_header->fields[ui].type;
            const gcev_ctf_slot *us = &r->ph[ui];
            if (ut->kind == GCEV_CTF_ARRAY && ut->length == 16 && us->end - us->start == 128 &&
                us->start % 8 == 0 && memcmp(view + us->start / 8, m->uuid, 16) != 0) {
                stream_fail(s, GCEV_E_FORMAT, off + us->start / 8, "packet uuid differs from the metadata's");
                return;
            }
        }
        uint64_t sid = slot_value(m->packet_header, r->ph, "stream_id", &found);
        const gcev_ctf_stream_class *nsc =
            gcev_ctf_meta_stream(m, found ? sid : (m->nstreams ? m->streams[0].id : 0));
        if (!nsc) {
            stream_fail(s, GCEV_E_FORMAT, off, "packet names a stream class the metadata does not declare");
            return;
        }
        if (sc && nsc != sc) {
            stream_fail(s, GCEV_E_FORMAT, off, "packet changes the stream class of its file");
            return;
        }
        if (!sc) {
            gcev_status bst = stream_bind_class(r, s, nsc);
            if (bst != GCEV_OK) {
                stream_fail(s, bst, off,
                            bst == GCEV_E_LIMIT ? "the streams' event slots exceed 256 MiB"
                                                : "out of memory");
                return;
            }
            sc = nsc;
        }
        st = gcev_ctf_decode_root(c, GCEV_CTF_ROOT_PACKET_CONTEXT, sc->packet_context, r->pc);
    }
    if (st != GCEV_OK) {
        uint64_t fo = off + c->err_pos / 8;
        if (st == GCEV_E_TRUNCATED_FILE && got == HEADER_PEEK) {
            stream_fail(s, GCEV_E_LIMIT, fo, "packet header and context larger than 64 KiB");
        } else if (st == GCEV_E_TRUNCATED_FILE) {
            stream_fail(s, st, fo, "stream file ends inside a packet header or context");
        } else {
            char what[256];
            snprintf(what, sizeof what, "packet header or context: %s", c->err_msg);
            stream_fail(s, st, fo, what);
        }
        return;
    }
    uint64_t hdr_bits = c->pos;
    int have_psize, have_csize, found;
    uint64_t psize = slot_value(sc->packet_context, r->pc, "packet_size", &have_psize);
    uint64_t csize = slot_value(sc->packet_context, r->pc, "content_size", &have_csize);
    uint64_t remaining = s->src.size && !s->src.read ? s->src.size - off : 0;
    if (!have_psize) {
        if (!remaining) {
            stream_fail(s, GCEV_E_UNSUPPORTED, off,
                        "packet without packet_size in a stream of unknown length");
            return;
        }
        psize = remaining * 8; /* one packet: the rest of the file */
    }
    if (!have_csize) {
        csize = psize;
    }
    if (psize % 8 || csize > psize || hdr_bits > csize) {
        stream_fail(
            s, GCEV_E_FORMAT, off,
            "packet_size is not whole bytes, or content_size exceeds it, or the header exceeds the content");
        return;
    }
    if (psize / 8 > r->max_packet) {
        stream_fail(s, GCEV_E_LIMIT, off, "packet larger than the block-size limit");
        return;
    }
    /* the packet, or what the file holds of it */
    if (gcev_source_peek(&s->src, (size_t)(psize / 8), &view, &got, &e) != GCEV_OK) {
        stream_fail(s, e.code, off, "read error");
        return;
    }
    if (s->src.read || s->src.fd >= 0) {
        /* a windowed source holds the packet in memory: keep the total bounded */
        size_t cap = s->src.buf_cap;
        r->window_bytes = r->window_bytes - s->window_cap + cap;
        s->window_cap = cap;
        if (r->window_bytes > MAX_WINDOW_BYTES) {
            stream_fail(s, GCEV_E_LIMIT, off, "the streams' packets held at once exceed 1 GiB");
            return;
        }
    }
    s->pkt = view;
    s->pkt_got = got;
    s->pkt_bits = psize;
    s->content_bits = csize;
    s->avail_bits = (uint64_t)got * 8;
    s->have_packet = 1;
    s->pos = hdr_bits;
    uint64_t cpu = slot_value(sc->packet_context, r->pc, "cpu_id", &found);
    if (found) {
        s->cpu_id = (uint32_t)cpu;
        s->have_cpu = 1;
    }
    uint64_t tb = slot_value(sc->packet_context, r->pc, "timestamp_begin", &found);
    if (found) {
        s->cycles = tb;
    }
    uint64_t disc = slot_value(sc->packet_context, r->pc, "events_discarded", &found);
    if (found) {
        if (s->have_discarded && disc > s->discarded) {
            gcev_trace_drop d = {0};
            d.capture_thread_id = s->cpu_id;
            d.dropped = disc - s->discarded;
            d.timestamp = (int64_t)cycles_to_ns(s->clock, s->cycles);
            d.file_offset = off;
            gcev_trace_note_drop(r->t, &d);
        }
        s->discarded = disc;
        s->have_discarded = 1;
    }
}

static size_t ctx_string(const uint8_t *p, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    while (k < n && k + 1 < cap && p[k]) {
        out[k] = (char)p[k];
        k++;
    }
    out[k] = '\0';
    return k;
}

/* Decodes the stream's next event (reading packets as needed). */
static void advance(ctf_reader *r, ctf_stream *s)
{
    const gcev_ctf_meta *m = &s->sub->meta;
    gcev_ctf_cursor *c = &r->cur;
    for (;;) {
        if (!s->have_packet) {
            read_packet(r, s);
            if (s->state != ST_EVENT) {
                return;
            }
            continue;
        }
        c->data = s->pkt;
        c->pos = s->pos;
        c->end = s->content_bits;
        c->avail = s->avail_bits;
        c->native_be = m->big_endian;
        if (c->pos >= s->content_bits) {
            if (s->avail_bits < s->pkt_bits) {
                stream_fail(s, GCEV_E_TRUNCATED_FILE, s->pkt_off + s->avail_bits / 8,
                            "stream file ends inside a packet's padding");
                return;
            }
            s->have_packet = 0;
            continue;
        }
        const gcev_ctf_stream_class *sc = s->sc;
        uint64_t start = c->pos;
        c->work = 65536 + (s->content_bits - start);
        c->on_int = hdr_hook;
        c->ctx = s;
        s->hdr_id = 0;
        gcev_status st = gcev_ctf_decode_root(c, GCEV_CTF_ROOT_EVENT_HEADER, sc->event_header, r->eh);
        c->on_int = NULL;
        const gcev_ctf_event_class *evc = NULL;
        if (st == GCEV_OK) {
            uint64_t id = s->hdr_id;
            if (!sc->event_header && sc->nevents == 1) {
                id = m->events[sc->first_event].id;
            }
            evc = gcev_ctf_meta_event(m, sc, id);
            if (!evc) {
                char what[128];
                snprintf(what, sizeof what, "event id %llu is not declared for stream class %llu",
                         (unsigned long long)id, (unsigned long long)sc->id);
                stream_fail(s, GCEV_E_FORMAT, s->pkt_off + start / 8, what);
                return;
            }
            st = gcev_ctf_decode_root(c, GCEV_CTF_ROOT_STREAM_EVENT_CONTEXT, sc->event_context, r->sec);
        }
        if (st == GCEV_OK) {
            st = gcev_ctf_decode_root(c, GCEV_CTF_ROOT_EVENT_CONTEXT, evc->context, r->ec);
        }
        if (st == GCEV_OK) {
            st = gcev_ctf_decode_root(c, GCEV_CTF_ROOT_EVENT_FIELDS, evc->fields, s->ef);
        }
        if (st != GCEV_OK) {
            char what[256];
            snprintf(what, sizeof what, "event at offset %llu: %s",
                     (unsigned long long)(s->pkt_off + start / 8),
                     c->err_msg ? c->err_msg : gcev_status_str(st));
            stream_fail(s, st, s->pkt_off + c->err_pos / 8, what);
            return;
        }
        if (c->pos == start) {
            stream_fail(s, GCEV_E_FORMAT, s->pkt_off + start / 8,
                        "event of zero bits (no header, no fields)");
            return;
        }
        s->pos = c->pos;
        s->evc = evc;
        s->ev_start = start;
        /* what the event keeps of the stream context (the slots are the reader's) */
        const gcev_ctf_type *ect = sc->event_context;
        if (s->ctx_pid >= 0) {
            s->pid = (uint32_t)r->sec[s->ctx_pid].value;
        }
        if (s->ctx_tid >= 0) {
            s->tid = (uint64_t)(uint32_t)r->sec[s->ctx_tid].value;
        }
        s->has_procname = 0;
        if (s->ctx_procname >= 0) {
            const gcev_ctf_slot *ps = &r->sec[s->ctx_procname];
            const gcev_ctf_type *pt = ect->fields[s->ctx_procname].type;
            if (ps->start % 8 == 0 && ps->end >= ps->start &&
                (pt->kind == GCEV_CTF_STRING ||
                 ((pt->kind == GCEV_CTF_ARRAY || pt->kind == GCEV_CTF_SEQUENCE) && pt->elem->size == 8))) {
                ctx_string(s->pkt + ps->start / 8, (size_t)((ps->end - ps->start) / 8), s->procname,
                           sizeof s->procname);
                s->has_procname = 1;
            }
        }
        s->ts_ns = (int64_t)cycles_to_ns(s->clock, s->cycles);
        s->state = ST_EVENT;
        return;
    }
}

/*
 * advance() with keep-going (gcev_trace_options.keep_going): a fault inside a packet skips
 * to the next packet of the stream (the packet header gave the packet's size); a fault in a
 * packet header, or in a packet the file ends inside, skips the rest of the stream file.
 * Each is a skipped range of the trace, no longer the stream's fault. Every turn moves to
 * a later packet, so the loop ends with the file.
 */
static void advance_keep_going(ctf_reader *r, ctf_stream *s)
{
    gcev_trace *t = r->t;
    int skipped = 0;
    for (;;) {
        advance(r, s);
        if (s->state != ST_FAILED || !t->opts.keep_going || !gcev_trace_skippable(s->err)) {
            break;
        }
        gcev_error f = {s->err, s->err_off, NULL, s->msg};
        uint64_t from = s->have_packet ? s->pkt_off + s->pos / 8 : s->pkt_off;
        skipped = 1;
        if (s->have_packet && s->avail_bits >= s->pkt_bits) {
            gcev_trace_note_skip(t, from, s->pkt_off + s->pkt_bits / 8, &f);
            s->have_packet = 0;
            s->state = ST_EVENT;
            continue;
        }
        gcev_trace_note_skip(t, from, s->src.size > from ? s->src.size : from, &f);
        s->state = ST_DONE;
        break;
    }
    if (skipped && s->state == ST_EVENT) {
        gcev_trace_skips_reached(t, s->ts_ns); /* the stream's next event, after the range */
    } else if (skipped) {
        t->skips_untimed = t->nskips; /* nothing follows in this stream */
    }
}

/* ---- the merge -------------------------------------------------------------- */

static int before(const ctf_reader *r, size_t a, size_t b)
{
    const ctf_stream *x = &r->streams[a], *y = &r->streams[b];
    if (x->ts_ns != y->ts_ns) {
        return x->ts_ns < y->ts_ns;
    }
    return a < b;
}

static void sift_down(ctf_reader *r, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        if (l < r->nheap && before(r, r->heap[l], r->heap[best])) {
            best = l;
        }
        if (l + 1 < r->nheap && before(r, r->heap[l + 1], r->heap[best])) {
            best = l + 1;
        }
        if (best == i) {
            return;
        }
        size_t tmp = r->heap[i];
        r->heap[i] = r->heap[best];
        r->heap[best] = tmp;
        i = best;
    }
}

static void note_failure(ctf_reader *r, ctf_stream *s)
{
    if (s->state == ST_FAILED && !r->failed) {
        r->failed = s;
    }
}

static gcev_status fill_event(ctf_reader *r, ctf_stream *s, gcev_trace_event *ev, gcev_error *err)
{
    const ctf_sub *sub = s->sub;
    size_t ci = (size_t)(s->evc - sub->meta.events);
    const gcev_ctf_class_map *map = &sub->maps[ci];
    ev->provider_name = map->provider_name;
    ev->event_name = map->event_name;
    ev->provider = map->provider;
    if (map->desc) {
        ev->event_id = map->desc->id;
        ev->version = map->desc->version;
        ev->no_event_id = 0;
    } else {
        ev->event_id = 0;
        ev->version = 0;
        ev->no_event_id = 1;
    }
    ev->process_id = s->pid;
    ev->thread_id = s->tid;
    ev->capture_thread_id = ev->thread_id;
    ev->process_name = NULL;
    if (s->has_procname) {
        memcpy(r->procname, s->procname, sizeof r->procname);
        ev->process_name = r->procname;
    }
    ev->processor = s->have_cpu ? s->cpu_id : UINT32_MAX;
    ev->timestamp = s->ts_ns;
    ev->pointer_size = sub->pointer_size;
    ev->file_offset = s->pkt_off + s->ev_start / 8;
    gcev_status st = gcev_ctf_payload(map, s->evc->fields, s->ef, s->pkt, sub->meta.big_endian, &r->payload,
                                      &ev->payload, &ev->payload_size);
    if (st != GCEV_OK) {
        return gcev_error_set(err, st, ev->file_offset, NULL, "out of memory");
    }
    return GCEV_OK;
}

/* Whether the filter (t->filter set) keeps the events of s's class: judged once per class,
 * from what fill_event would give (CTF events carry no level or keywords). */
static int class_keeps(gcev_trace *t, const ctf_stream *s)
{
    gcev_ctf_class_map *map = &s->sub->maps[s->evc - s->sub->meta.events];
    if (map->filter_gen != t->filter_gen) {
        gcev_trace_event e;
        memset(&e, 0, sizeof e);
        e.provider_name = map->provider_name;
        e.provider = map->provider;
        e.event_id = map->desc ? map->desc->id : 0;
        e.version = map->desc ? map->desc->version : 0;
        e.no_event_id = map->desc == NULL;
        map->filter_pass = (uint8_t)gcev_filter_match(t->filter, &e);
        map->filter_gen = t->filter_gen;
    }
    return map->filter_pass;
}

static gcev_status ctf_next(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    ctf_reader *r = t->impl;
    for (;;) {
        if (r->last) {
            ctf_stream *s = r->last;
            r->last = NULL;
            advance_keep_going(r, s);
            if (s->state == ST_EVENT) {
                sift_down(r, 0);
            } else {
                note_failure(r, s);
                r->heap[0] = r->heap[--r->nheap];
                sift_down(r, 0);
            }
        }
        if (r->nheap == 0) {
            if (r->failed) {
                return gcev_error_set(err, r->failed->err, r->failed->err_off, NULL, r->failed->msg);
            }
            return GCEV_END;
        }
        ctf_stream *s = &r->streams[r->heap[0]];
        r->last = s;
        /* a skipped event was decoded as far as CTF needs to find the next one (its fields
         * give its size); its payload is not rebuilt */
        if (!t->filter || class_keeps(t, s)) {
            return fill_event(r, s, ev, err);
        }
        gcev_trace_note_filtered(t, s->ts_ns);
    }
}

static void reader_free(ctf_reader *r)
{
    if (!r) {
        return;
    }
    for (size_t i = 0; i < r->nstreams; i++) {
        ctf_stream *s = &r->streams[i];
        if (s->src_open) {
            gcev_source_close(&s->src);
        }
        free(s->ef);
    }
    free(r->streams);
    gcev_ctf_cursor_free(&r->cur);
    free(r->ph);
    free(r->pc);
    free(r->eh);
    free(r->sec);
    free(r->ec);
    for (size_t i = 0; i < r->nsubs; i++) {
        ctf_sub *sub = &r->subs[i];
        if (sub->maps) {
            for (uint32_t k = 0; k < sub->meta.nevents; k++) {
                gcev_ctf_class_map_free(&sub->maps[k]);
            }
        }
        free(sub->maps);
        free((char *)sub->dir);
        gcev_ctf_meta_free(&sub->meta);
    }
    free(r->subs);
    free(r->heap);
    free(r->payload.data);
    if (r->files.destroy) {
        r->files.destroy(r->files.ctx);
    }
    free(r);
}

static void ctf_destroy(gcev_trace *t)
{
    reader_free(t->impl);
    t->impl = NULL;
}

/* keep-going: advance_keep_going (no resync op); no stream-order marks */
static const gcev_trace_ops ctf_ops = {ctf_next, ctf_destroy, NULL, NULL, NULL, NULL, NULL, NULL};

/* ---- opening ----------------------------------------------------------------- */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static size_t dir_len(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? (size_t)(s - path) : 0;
}

int gcev_ctf_detect_names(const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(base_name(names[i]), "metadata")) {
            return 1;
        }
    }
    return 0;
}

/* The whole of a (small) file: its metadata. */
static gcev_status read_all(gcev_source *src, size_t max, const uint8_t **data, size_t *size, gcev_error *err)
{
    size_t want = 65536;
    for (;;) {
        const uint8_t *v;
        size_t got;
        gcev_status st = gcev_source_peek(src, want, &v, &got, err);
        if (st != GCEV_OK) {
            return st;
        }
        if (got < want) {
            *data = v;
            *size = got;
            return GCEV_OK;
        }
        if (want >= max) {
            return GCEV_E_LIMIT;
        }
        want = want * 2 > max ? max : want * 2;
    }
}

static gcev_status load_sub(ctf_reader *r, ctf_sub *sub, size_t meta_index, gcev_error *err)
{
    const char *mname = r->files.names[meta_index];
    gcev_source src;
    gcev_error e = {0};
    gcev_status st = r->files.open(r->files.ctx, meta_index, &src, &e);
    if (st != GCEV_OK) {
        return open_fail(err, st, e.offset, "%s: cannot open: %s", mname, e.message ? e.message : "");
    }
    src.max_take = GCEV_CTF_MAX_METADATA + 1;
    const uint8_t *data;
    size_t size;
    st = read_all(&src, GCEV_CTF_MAX_METADATA + 1, &data, &size, &e);
    if (st != GCEV_OK) {
        gcev_source_close(&src);
        return open_fail(err, st, 0, "%s: %s", mname,
                         st == GCEV_E_LIMIT ? "metadata larger than 64 MiB"
                         : e.message        ? e.message
                                            : "read error");
    }
    char *text;
    size_t len;
    gcev_ctf_meta_error me;
    st = gcev_ctf_metadata_text(data, size, &text, &len, &me);
    gcev_source_close(&src);
    if (st != GCEV_OK) {
        return open_fail(err, st, me.offset, "%s: %s at offset %llu", mname, me.message,
                         (unsigned long long)me.offset);
    }
    st = gcev_ctf_meta_parse(text, len, &sub->meta, &me);
    free(text);
    if (st != GCEV_OK) {
        return open_fail(err, st, me.offset, "%s: TSDL line %u (text offset %llu): %s", mname, me.line,
                         (unsigned long long)me.offset, me.message);
    }
    const gcev_ctf_env *bits = gcev_ctf_meta_env(&sub->meta, "architecture_bit_width");
    sub->pointer_size = 8;
    if (bits && !bits->str && bits->num == 32) {
        sub->pointer_size = 4;
    }
    const gcev_ctf_env *tn = gcev_ctf_meta_env(&sub->meta, "tracer_name");
    const gcev_ctf_env *dom = gcev_ctf_meta_env(&sub->meta, "domain");
    sub->default_provider = (tn && tn->str) ? tn->str : (dom && dom->str) ? dom->str : "ctf";
    sub->maps = calloc(sub->meta.nevents ? sub->meta.nevents : 1, sizeof *sub->maps);
    if (!sub->maps) {
        return open_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    for (uint32_t i = 0; i < sub->meta.nevents; i++) {
        if (gcev_ctf_class_plan(&sub->meta.events[i], sub->default_provider, sub->pointer_size,
                                &sub->maps[i]) != GCEV_OK) {
            return open_fail(err, GCEV_E_NOMEM, 0, "out of memory");
        }
    }
    return GCEV_OK;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

gcev_status gcev_ctf_open(gcev_trace *t, const gcev_ctf_files *files, gcev_error *err)
{
    ctf_reader *r = calloc(1, sizeof *r);
    if (!r) {
        if (files->destroy) {
            files->destroy(files->ctx);
        }
        return open_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    r->files = *files;
    r->t = t;
    r->max_packet = t->opts.max_block_size ? t->opts.max_block_size : (256u << 20);
    t->impl = r;
    t->ops = &ctf_ops;
    t->provider_resolved = 1;
    t->time_ordered = 1;
    if (files->n > GCEV_CTF_MAX_FILES) {
        return open_fail(err, GCEV_E_LIMIT, 0, "more than %d files", GCEV_CTF_MAX_FILES);
    }
    /* the traces: folders holding a "metadata" file */
    size_t nsubs = 0;
    for (size_t i = 0; i < files->n; i++) {
        if (!strcmp(base_name(files->names[i]), "metadata")) {
            nsubs++;
        }
    }
    if (nsubs == 0) {
        return open_fail(err, GCEV_E_UNSUPPORTED, 0, "no CTF metadata file in this folder or archive");
    }
    r->subs = calloc(nsubs, sizeof *r->subs);
    size_t *meta_of = calloc(nsubs, sizeof *meta_of);
    if (!r->subs || !meta_of) {
        free(meta_of);
        return open_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    for (size_t i = 0; i < files->n; i++) {
        const char *nm = files->names[i];
        if (!strcmp(base_name(nm), "metadata")) {
            size_t dl = dir_len(nm);
            char *d = malloc(dl + 1);
            if (!d) {
                free(meta_of);
                return open_fail(err, GCEV_E_NOMEM, 0, "out of memory");
            }
            memcpy(d, nm, dl);
            d[dl] = '\0';
            meta_of[r->nsubs] = i;
            r->subs[r->nsubs++].dir = d;
        }
    }
    for (size_t k = 0; k < r->nsubs; k++) {
        gcev_status st = load_sub(r, &r->subs[k], meta_of[k], err);
        if (st != GCEV_OK) {
            free(meta_of);
            return st;
        }
    }
    free(meta_of);
    /* the slots of the roots decoded one stream at a time, as big as the largest of each */
    uint32_t nph = 0, npc = 0, neh = 0, nsec = 0, nec = 0;
    for (size_t k = 0; k < r->nsubs; k++) {
        const gcev_ctf_meta *m = &r->subs[k].meta;
        nph = max_fields(m->packet_header) > nph ? max_fields(m->packet_header) : nph;
        for (uint32_t i = 0; i < m->nstreams; i++) {
            const gcev_ctf_stream_class *sc = &m->streams[i];
            npc = max_fields(sc->packet_context) > npc ? max_fields(sc->packet_context) : npc;
            neh = max_fields(sc->event_header) > neh ? max_fields(sc->event_header) : neh;
            nsec = max_fields(sc->event_context) > nsec ? max_fields(sc->event_context) : nsec;
        }
        for (uint32_t i = 0; i < m->nevents; i++) {
            nec = max_fields(m->events[i].context) > nec ? max_fields(m->events[i].context) : nec;
        }
    }
    if (!alloc_slots(&r->ph, nph) || !alloc_slots(&r->pc, npc) || !alloc_slots(&r->eh, neh) ||
        !alloc_slots(&r->sec, nsec) || !alloc_slots(&r->ec, nec)) {
        return open_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    /* the streams: the other files directly in a trace folder (index/ holds only indexes) */
    size_t ns = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < files->n; i++) {
            const char *nm = files->names[i];
            const char *bn = base_name(nm);
            if (!strcmp(bn, "metadata") || bn[0] == '.' || bn[0] == '\0') {
                continue;
            }
            size_t dl = dir_len(nm);
            for (size_t k = 0; k < r->nsubs; k++) {
                if (strlen(r->subs[k].dir) == dl && !strncmp(r->subs[k].dir, nm, dl)) {
                    if (pass == 1) {
                        ctf_stream *s = &r->streams[ns];
                        s->sub = &r->subs[k];
                        s->name = nm;
                        s->ctx_pid = s->ctx_tid = s->ctx_procname = -1;
                        s->state = ST_EVENT;
                        gcev_error e = {0};
                        gcev_status st = files->open(files->ctx, i, &s->src, &e);
                        if (st != GCEV_OK) {
                            return open_fail(err, st, e.offset, "%s: cannot open: %s", nm,
                                             e.message ? e.message : "");
                        }
                        s->src_open = 1;
                        s->src.max_take = (size_t)r->max_packet;
                    }
                    ns++;
                    break;
                }
            }
        }
        if (pass == 0) {
            r->streams = calloc(ns ? ns : 1, sizeof *r->streams);
            r->heap = calloc(ns ? ns : 1, sizeof *r->heap);
            if (!r->streams || !r->heap) {
                return open_fail(err, GCEV_E_NOMEM, 0, "out of memory");
            }
            ns = 0;
        }
    }
    r->nstreams = ns;
    /* first events, then the heap */
    gcev_trace_info *info = &t->info;
    info->format = GCEV_FORMAT_CTF;
    info->format_version = r->subs[0].meta.major * 10 + r->subs[0].meta.minor;
    info->pointer_size = 8;
    for (size_t k = 0; k < r->nsubs; k++) {
        if (gcev_ctf_meta_env(&r->subs[k].meta, "architecture_bit_width")) {
            info->pointer_size = r->subs[k].pointer_size;
        }
    }
    info->clock_frequency = 1000000000u;
    int have_start = 0;
    int64_t start = 0;
    uint32_t maxcpu = 0;
    for (size_t i = 0; i < r->nstreams; i++) {
        ctf_stream *s = &r->streams[i];
        advance_keep_going(r, s);
        if (s->have_cpu && s->cpu_id + 1 > maxcpu && s->cpu_id < UINT32_MAX) {
            maxcpu = s->cpu_id + 1;
        }
        if (s->state == ST_EVENT) {
            r->heap[r->nheap++] = i;
            if (!have_start || s->ts_ns < start) {
                start = s->ts_ns;
                have_start = 1;
            }
        } else {
            note_failure(r, s);
        }
        info->file_size += s->src.size;
    }
    for (size_t i = r->nheap / 2; i-- > 0;) {
        sift_down(r, i);
    }
    info->processor_count = maxcpu;
    info->sync_time_qpc = start;
    /* the clocks are offset to the Unix epoch: FILETIME counts 100 ns from 1601 */
    info->sync_time_utc = have_start ? start / 100 + 116444736000000000ll : 0;
    return GCEV_OK;
}

/* ---- folders ----------------------------------------------------------------- */

typedef struct dir_files {
    char *root;
    char **names;
    size_t n, cap;
} dir_files;

static void dir_destroy(void *ctx)
{
    dir_files *d = ctx;
    if (!d) {
        return;
    }
    for (size_t i = 0; i < d->n; i++) {
        free(d->names[i]);
    }
    free(d->names);
    free(d->root);
    free(d);
}

static gcev_status dir_open(void *ctx, size_t i, gcev_source *src, gcev_error *err)
{
    dir_files *d = ctx;
    size_t a = strlen(d->root), b = strlen(d->names[i]);
    char *full = malloc(a + b + 2);
    if (!full) {
        return gcev_error_set(err, GCEV_E_NOMEM, 0, NULL, "out of memory");
    }
    memcpy(full, d->root, a);
    full[a] = '/';
    memcpy(full + a + 1, d->names[i], b + 1);
    gcev_status st = gcev_source_init_file(src, full, err);
    free(full);
    return st;
}

/* Collects the regular files under root/rel (depth-bounded). */
static gcev_status dir_walk(dir_files *d, const char *rel, int depth, gcev_error *err)
{
    if (depth > GCEV_CTF_MAX_DIR_DEPTH) {
        return GCEV_OK; /* deeper folders are not LTTng's */
    }
    size_t a = strlen(d->root), b = strlen(rel);
    char *full = malloc(a + b + 2);
    if (!full) {
        return open_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    memcpy(full, d->root, a);
    full[a] = '/';
    memcpy(full + a + 1, rel, b + 1);
    DIR *dh = opendir(full);
    if (!dh) {
        free(full);
        return depth == 0 ? open_fail(err, GCEV_E_IO, 0, "cannot read the folder") : GCEV_OK;
    }
    gcev_status st = GCEV_OK;
    struct dirent *de;
    while (st == GCEV_OK && (de = readdir(dh)) != NULL) {
        const char *nm = de->d_name;
        if (nm[0] == '.') {
            continue;
        }
        size_t c = strlen(nm);
        char *childrel = malloc(b + c + 2);
        char *childfull = malloc(a + b + c + 3);
        if (!childrel || !childfull) {
            free(childrel);
            free(childfull);
            st = open_fail(err, GCEV_E_NOMEM, 0, "out of memory");
            break;
        }
        if (b) {
            memcpy(childrel, rel, b);
            childrel[b] = '/';
            memcpy(childrel + b + 1, nm, c + 1);
        } else {
            memcpy(childrel, nm, c + 1);
        }
        snprintf(childfull, a + b + c + 3, "%s/%s", d->root, childrel);
        struct stat sb;
        if (stat(childfull, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            st = dir_walk(d, childrel, depth + 1, err);
            free(childrel);
        } else if (stat(childfull, &sb) == 0 && S_ISREG(sb.st_mode)) {
            if (d->n >= GCEV_CTF_MAX_FILES) {
                free(childrel);
                st = open_fail(err, GCEV_E_LIMIT, 0, "more than %d files under the folder",
                               GCEV_CTF_MAX_FILES);
            } else if (!gcev_reserve((void **)&d->names, &d->cap, d->n + 1, sizeof *d->names)) {
                free(childrel);
                st = open_fail(err, GCEV_E_NOMEM, 0, "out of memory");
            } else {
                d->names[d->n++] = childrel;
            }
        } else {
            free(childrel);
        }
        free(childfull);
    }
    closedir(dh);
    free(full);
    return st;
}

gcev_status gcev_ctf_open_dir(gcev_trace *t, const char *path, gcev_error *err)
{
    dir_files *d = calloc(1, sizeof *d);
    if (!d) {
        return open_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') {
        n--;
    }
    d->root = malloc(n + 1);
    if (!d->root) {
        free(d);
        return open_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    memcpy(d->root, path, n);
    d->root[n] = '\0';
    gcev_status st = dir_walk(d, "", 0, err);
    if (st != GCEV_OK) {
        dir_destroy(d);
        return st;
    }
    if (d->n > 1) {
        qsort(d->names, d->n, sizeof *d->names, name_cmp);
    }
    gcev_ctf_files f = {d->n, (const char *const *)d->names, dir_open, d, dir_destroy};
    if (!gcev_ctf_detect_names(f.names, f.n)) {
        dir_destroy(d);
        return open_fail(err, GCEV_E_UNSUPPORTED, 0,
                         "a folder is read as a CTF (LTTng) trace, but this one holds no 'metadata' file");
    }
    return gcev_ctf_open(t, &f, err);
}
