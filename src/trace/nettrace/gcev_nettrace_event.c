/* SPDX-License-Identifier: MIT */
/*
 * EventPipe event records and the side tables they refer to: stacks, V6
 * label lists and threads, and per-capture-thread sequence numbers (dropped
 * events). Event headers come in three layouts: the fixed 56-byte NetPerf
 * header (V1-V3, stack inline), the V4-V6 uncompressed header, and the V4-V6
 * compressed header whose fields are optional and delta-coded against the
 * previous header of the same block (all arithmetic wraps: timestamps modulo
 * 2^64, sequence numbers modulo 2^32).
 */
#include "gcev_nettrace_event.h"
#include "gcev_nettrace_meta.h"

#include "gcev_compiler.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char ev_trunc[] = "event record overruns its block";
/* V4-V6: an event block's header records the range of its events' timestamps (NetTraceFormat.md,
 * "EventBlock"); an event outside it is damaged (a changed timestamp delta shifts every event
 * after it in a compressed block: stats then reported a trace of 4,364 s instead of 421) */
static const char ev_ts_range[] = "event timestamp outside its block's recorded range";

void gcev_np_mark_sorted(gcev_nettrace *np, int64_t ts)
{
    if (!np->has_sorted || ts > np->sorted_ts) {
        np->sorted_ts = ts;
        np->has_sorted = 1;
    }
}

/* Fixed NetPerf header: EventSize covers the rest, stack and alignment padding included. */
static int hdr_v3(np_cur *c, np_hdr *h)
{
    uint32_t size;
    const size_t at = c->pos;
    if (!np_u32(c, &size) || size < 52 || !np_has(c, size)) {
        c->pos = at; /* not framed: keep-going must not go on after it (gcev_nettrace.c) */
        return 0;
    }
    np_cur e = {c->p + c->pos, size, 0};
    c->pos += size;
    uint32_t tid;
    if (!np_u32(&e, &h->meta_id) || !np_u32(&e, &tid) || !np_u64(&e, &h->ts) || !np_guid(&e, &h->act) ||
        !np_guid(&e, &h->rel) || !np_u32(&e, &h->payload_size) || !np_has(&e, h->payload_size)) {
        return 0;
    }
    h->tid = tid;
    h->capture = tid;
    h->payload = e.p + e.pos;
    e.pos += h->payload_size;
    uint32_t ssize = 0;
    /* Metadata records may end right after the payload in old writers. */
    if (np_has(&e, 4)) {
        if (!np_u32(&e, &ssize) || !np_has(&e, ssize)) {
            return 0;
        }
    }
    h->stack = ssize ? e.p + e.pos : NULL;
    h->stack_size = ssize;
    static const gcev_guid zero;
    h->has_act = memcmp(&h->act, &zero, sizeof zero) != 0;
    h->has_rel = memcmp(&h->rel, &zero, sizeof zero) != 0;
    return 1;
}

/* Uncompressed V4-V6 header; EventSize covers the rest (and V4/V5 padding). */
static int hdr_uncompressed(np_cur *c, uint32_t version, np_hdr *h)
{
    uint32_t size;
    if (!np_u32(c, &size) || !np_has(c, size)) {
        return 0;
    }
    np_cur e = {c->p + c->pos, size, 0};
    c->pos += size;
    int ok = np_u32(&e, &h->meta_id) && np_u32(&e, &h->seq) && np_u64(&e, &h->tid) &&
             np_u64(&e, &h->capture) && np_u32(&e, &h->proc) && np_u32(&e, &h->stack_id) &&
             np_u64(&e, &h->ts);
    if (version >= 6) {
        ok = ok && np_u32(&e, &h->label_id);
    } else {
        ok = ok && np_guid(&e, &h->act) && np_guid(&e, &h->rel);
    }
    ok = ok && np_u32(&e, &h->payload_size) && np_has(&e, h->payload_size);
    if (!ok) {
        return 0;
    }
    h->sorted = (h->meta_id & 0x80000000u) != 0;
    h->meta_id &= 0x7fffffffu; /* high bit: IsSorted */
    h->payload = e.p + e.pos;
    static const gcev_guid zero;
    h->has_act = memcmp(&h->act, &zero, sizeof zero) != 0;
    h->has_rel = memcmp(&h->rel, &zero, sizeof zero) != 0;
    return 1;
}

#define NP_HOT static GCEV_ALWAYS_INLINE

/*
 * Event headers are spread over the input (V3 records are hundreds of bytes
 * apart), too sparse for the hardware prefetcher: the walk stalled on the first
 * byte of every header of a trace larger than the caches. Asking for the bytes a
 * few KiB ahead of the cursor, as many lines as the record just read covers,
 * keeps them coming (measured: the walk of a 41 MB NetPerf V3 from memory, 18 ->
 * 39 M events/s; bench_trace). A hint: never a read, inside the block only.
 */
enum { NP_PREFETCH_AHEAD = 4096 };

/* One line per record, for compressed blocks: their records (tens of bytes) are dense, one
 * hint per record covers them without np_prefetch_ahead's loop. */
static GCEV_ALWAYS_INLINE void np_prefetch_line(const uint8_t *b, size_t n, size_t pos)
{
#if defined(__GNUC__)
    if (n - pos > NP_PREFETCH_AHEAD) {
        __builtin_prefetch(b + pos + NP_PREFETCH_AHEAD);
    }
#else
    (void)b;
    (void)n;
    (void)pos;
#endif
}

static GCEV_ALWAYS_INLINE void np_prefetch_ahead(const uint8_t *b, size_t n, size_t pos, size_t len)
{
#if defined(__GNUC__)
    if (n - pos > NP_PREFETCH_AHEAD + len) {
        for (size_t k = 0; k < len; k += 64) {
            __builtin_prefetch(b + pos + NP_PREFETCH_AHEAD + k);
        }
    }
#else
    (void)b;
    (void)n;
    (void)pos;
    (void)len;
#endif
}

/* LEB128 at b[pos] of n bytes, any length: the position after it, or 0 (overrun, or
 * bits past 64). */
static GCEV_NOINLINE size_t leb_slow(const uint8_t *b, size_t n, size_t pos, uint64_t *v)
{
    np_cur c = {b, n, pos};
    return np_varu64(&c, v) ? c.pos : 0;
}

/* The short forms inline: one byte covers most fields of a compressed header (ids,
 * small deltas), two most timestamp deltas. Returns the position after it, or 0. The
 * long form goes through a local, so that *v (a caller's local, inlined) need not live
 * in memory for leb_slow's sake: in the lean batch it kept the header state on the stack. */
NP_HOT size_t leb64(const uint8_t *b, size_t n, size_t pos, uint64_t *v)
{
    if (n - pos >= 2) {
        if (b[pos] < 0x80) {
            *v = b[pos];
            return pos + 1;
        }
        if (b[pos + 1] < 0x80) {
            *v = (uint64_t)(b[pos] & 0x7f) | (uint64_t)b[pos + 1] << 7;
            return pos + 2;
        }
    }
    uint64_t x = 0;
    pos = leb_slow(b, n, pos, &x);
    if (pos) { /* (a fault leaves *v as it was, as the delta state expects) */
        *v = x;
    }
    return pos;
}

NP_HOT size_t leb32(const uint8_t *b, size_t n, size_t pos, uint32_t *v)
{
    uint64_t x;
    pos = leb64(b, n, pos, &x);
    if (!pos || x > UINT32_MAX) {
        return 0;
    }
    *v = (uint32_t)x;
    return pos;
}

/*
 * A compressed V4-V6 header at c (its first byte, the flags, is there), into
 * np->prev: only the fields its flags name are on the wire, the others keep the
 * previous header's values (the payload size too); the sequence number and
 * timestamp are deltas. A new metadata id drops the cached metadata. Leaves c
 * after the payload; 0 when the record overruns the block.
 */
NP_HOT int hdr_compressed(np_cur *c, gcev_nettrace *np)
{
    np_hdr *h = &np->prev;
    const uint8_t *b = c->p;
    const size_t n = c->n;
    size_t pos = c->pos;
    uint64_t v;
    if (pos >= n) {
        return 0;
    }
    const uint8_t flags = b[pos++];
    if (flags & 1) {
        uint32_t id;
        if (!(pos = leb32(b, n, pos, &id))) {
            return 0;
        }
        if (id != h->meta_id) {
            h->meta_id = id;
            np->cur_meta = NULL;
        }
    }
    if (flags & 2) {
        uint32_t d32;
        if (!(pos = leb32(b, n, pos, &d32)) || !(pos = leb64(b, n, pos, &h->capture)) ||
            !(pos = leb32(b, n, pos, &h->proc))) {
            return 0;
        }
        h->seq += d32; /* unsigned: wraps modulo 2^32 */
    }
    if (np->version >= 6 || h->meta_id != 0) {
        h->seq++;
    }
    if ((flags & 4) && !(pos = leb64(b, n, pos, &h->tid))) {
        return 0;
    }
    if ((flags & 8) && !(pos = leb32(b, n, pos, &h->stack_id))) {
        return 0;
    }
    if (!(pos = leb64(b, n, pos, &v))) {
        return 0;
    }
    h->ts += v; /* unsigned: wraps modulo 2^64 */
    if ((flags & 64) && np->blk_is_events == 1) {
        /* IsSorted: nothing older is still to come (gcev_reorder.h). Not in metadata blocks:
         * the writer copies the flag of the event whose metadata it writes first, which need
         * not be the first of its thread (seen in a .NET 10 server GC trace) */
        gcev_np_mark_sorted(np, (int64_t)h->ts);
    }
    if (flags & (16 | 32)) {
        c->pos = pos;
        if (np->version >= 6) {
            if ((flags & 16) && !np_varu32(c, &h->label_id)) {
                return 0;
            }
        } else {
            static const gcev_guid zero;
            if (flags & 16) {
                if (!np_guid(c, &h->act)) {
                    return 0;
                }
                h->has_act = memcmp(&h->act, &zero, sizeof zero) != 0;
            }
            if (flags & 32) {
                if (!np_guid(c, &h->rel)) {
                    return 0;
                }
                h->has_rel = memcmp(&h->rel, &zero, sizeof zero) != 0;
            }
        }
        pos = c->pos;
    }
    if ((flags & 128) && !(pos = leb32(b, n, pos, &h->payload_size))) {
        return 0;
    }
    if (n - pos < h->payload_size) {
        return 0;
    }
    h->payload = b + pos;
    c->pos = pos + h->payload_size;
    return 1;
}

/* ---- sequence numbers ---- */

static void seq_drop(gcev_trace *t, uint64_t capture, uint32_t expected, uint32_t seen, uint32_t dropped,
                     int64_t ts, uint64_t off)
{
    gcev_trace_drop d = {capture, expected, seen, dropped, ts, off};
    gcev_trace_note_drop(t, &d);
}

/* GCEV_E_NOMEM, or GCEV_E_LIMIT past NP_MAX_THREADS capture threads (at off). */
static GCEV_NOINLINE gcev_status seq_observe(gcev_trace *t, uint64_t capture, uint32_t seq, int64_t ts,
                                             uint64_t off, int from_sequence_point, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    uint32_t i;
    if (np->last_seq_index != UINT32_MAX && np->last_seq_capture == capture) {
        i = np->last_seq_index;
    } else {
        i = gcev_idmap_get(&np->seq_ids, capture);
    }
    if (i == UINT32_MAX) {
        if (np->nseqs >= NP_MAX_THREADS) {
            return gcev_np_fail(err, GCEV_E_LIMIT, off, "more than 1048576 capture threads");
        }
        if (!gcev_reserve((void **)&np->seqs, &np->cap_seqs, np->nseqs + 1, sizeof *np->seqs) ||
            !gcev_idmap_put(&np->seq_ids, capture, (uint32_t)np->nseqs)) {
            return gcev_np_fail(err, GCEV_E_NOMEM, off, "out of memory");
        }
        np->seqs[np->nseqs].capture = capture;
        np->seqs[np->nseqs].last = seq;
        np->nseqs++;
        return GCEV_OK;
    }
    np->last_seq_capture = capture;
    np->last_seq_index = i;
    np_seq *s = &np->seqs[i];
    if (from_sequence_point) {
        /* A lower bound of what the thread tried to log. */
        uint32_t gap = seq - s->last;
        if (gap != 0 && gap < 0x80000000u) {
            seq_drop(t, capture, s->last + 1, seq, gap, ts, off);
            s->last = seq;
        }
        return GCEV_OK;
    }
    uint32_t expected = s->last + 1;
    uint32_t gap = seq - expected;
    /* seq 1 again: the OS reused the thread id for a new thread. */
    if (gap != 0 && seq != 1 && gap < 0x80000000u) {
        seq_drop(t, capture, expected, seq, gap, ts, off);
    }
    s->last = seq;
    return GCEV_OK;
}

/* ---- the event record ---- */

static const np_labels *labels_find(const gcev_nettrace *np, uint32_t id)
{
    if (id == 0) {
        return NULL;
    }
    uint32_t i = gcev_idmap_get(&np->label_ids, id);
    return i == UINT32_MAX ? NULL : &np->labels[i];
}

static const np_thread *thread_find(gcev_nettrace *np, uint64_t index)
{
    if (np->thread_memo_slot1 && np->thread_memo_index == index) {
        return &np->threads[np->thread_memo_slot1 - 1];
    }
    uint32_t i = gcev_idmap_get(&np->thread_ids, index);
    if (i == UINT32_MAX) {
        return NULL;
    }
    np->thread_memo_index = index;
    np->thread_memo_slot1 = i + 1; /* i < NP_MAX_THREADS */
    return &np->threads[i];
}

/* The members of an event that come from its metadata, copied from the record's image. */
_Static_assert(offsetof(gcev_trace_event, provider_name) == 0 &&
                   offsetof(gcev_trace_event, keywords) + sizeof(uint64_t) ==
                       offsetof(gcev_trace_event, process_id),
               "fill_event copies provider_name .. keywords as one block");
#define NP_META_PART offsetof(gcev_trace_event, process_id)

/* The stack of a V4-V6 event: the newest run of stack ids without a look-up, else the map. */
static inline void event_stack(const gcev_nettrace *np, uint32_t stack_id, gcev_trace_event *ev)
{
    ev->stack = NULL;
    ev->stack_size = 0;
    if (stack_id && !np->no_stacks) {
        uint32_t k = stack_id - np->run_first, i;
        if (k < np->run_count) {
            i = (uint32_t)(np->run_base + k);
        } else {
            i = gcev_idmap_get(&np->stack_ids, stack_id);
        }
        if (i != UINT32_MAX && np->stacks[i].len) {
            ev->stack = np->stack_bytes + np->stacks[i].off;
            ev->stack_size = np->stacks[i].len;
        }
    }
}

/* The metadata an event refers to: the cached record while the id stays, else a look-up. */
static inline const np_meta *event_meta(gcev_nettrace *np, uint32_t id)
{
    const np_meta *m = np->cur_meta;
    if (!m) {
        m = id < np->ndense ? np->dense[id] : gcev_np_meta_find(np, id);
        np->cur_meta = m;
    }
    return m;
}

/* ---- gcev_trace_set_filter ---- */

/* What fill_event_observe returns for an event the filter skips: never leaves this file's
 * readers (each goes on to the next record), so it is no gcev_status a caller sees. */
#define NP_FILTERED ((gcev_status)GCEV_STATUS_COUNT_)

static GCEV_NOINLINE int meta_verdict(gcev_trace *t, np_meta *m)
{
    m->filter_pass = (uint8_t)gcev_filter_match(t->filter, &m->image);
    m->filter_gen = t->filter_gen;
    return m->filter_pass;
}

/* Whether the filter (t->filter set) keeps the events of m: judged once per record. */
static inline int meta_keeps(gcev_trace *t, const np_meta *m)
{
    np_meta *w = (np_meta *)m; /* the verdict is cached in the record, which np owns */
    return w->filter_gen == t->filter_gen ? w->filter_pass : meta_verdict(t, w);
}

/* V6: a label list may set the event's version, level or keywords, which the filter reads. */
static int event_keeps_v6(gcev_trace *t, const np_meta *m, const np_labels *l)
{
    if (!l || !(l->has_version || l->has_level || l->has_keywords)) {
        return meta_keeps(t, m);
    }
    gcev_trace_event e = m->image;
    if (l->has_version) {
        e.version = l->version;
    }
    if (l->has_level) {
        e.level = l->level;
        e.has_level = 1;
    }
    if (l->has_keywords) {
        e.keywords = l->keywords;
    }
    return gcev_filter_match(t->filter, &e);
}

/* Sequence numbers: the common case inline (the same capture thread as the previous event,
 * no gap), the rest in seq_observe. */
static inline gcev_status seq_next(gcev_trace *t, gcev_nettrace *np, const np_hdr *h, uint64_t off,
                                   gcev_error *err)
{
    if (np->last_seq_index != UINT32_MAX && np->last_seq_capture == h->capture &&
        h->seq == np->seqs[np->last_seq_index].last + 1) {
        np->seqs[np->last_seq_index].last = h->seq;
        return GCEV_OK;
    }
    return seq_observe(t, h->capture, h->seq, (int64_t)h->ts, off, 0, err);
}

/* An event the filter skips: what the reader checks of every event is done (its sequence
 * number: gaps are found as without a filter), nothing is filled. */
static GCEV_NOINLINE gcev_status event_skipped(gcev_trace *t, gcev_nettrace *np, const np_hdr *h,
                                               uint64_t off, gcev_error *err)
{
    gcev_trace_note_filtered(t, (int64_t)h->ts);
    if (np->version >= 4) {
        gcev_status st = seq_next(t, np, h, off, err);
        if (st != GCEV_OK) {
            return st;
        }
    }
    return NP_FILTERED;
}

/*
 * Fills every member of ev from the header and its metadata m: the metadata's part
 * in one copy, then what the header says. No string work, no allocation: names and
 * fields point into the metadata record, payload and stack into the block or the
 * stack table.
 */
static gcev_status fill_event_observe(gcev_trace *t, gcev_nettrace *np, const np_meta *m, const np_hdr *h,
                                      uint64_t off, gcev_trace_event *ev, gcev_error *err, int observe)
{
    if (!m) {
        return gcev_np_fail(err, GCEV_E_FORMAT, off, "event refers to undefined metadata");
    }
    /* (the ordered walk reads events again, outside their block: checked when first read) */
    if (observe && np->version >= 4 && ((int64_t)h->ts < np->blk_min_ts || (int64_t)h->ts > np->blk_max_ts)) {
        return gcev_np_fail(err, GCEV_E_FORMAT, off, ev_ts_range);
    }
    /* (the ordered walk reads again only the events the first pass kept) */
    if (t->filter && observe &&
        !(np->version >= 6 ? event_keeps_v6(t, m, labels_find(np, h->label_id)) : meta_keeps(t, m))) {
        return event_skipped(t, np, h, off, err);
    }
    memcpy(ev, &m->image, NP_META_PART);
    ev->process_id = t->info.process_id;
    ev->thread_id = h->tid;
    ev->capture_thread_id = h->capture;
    ev->processor = np->version >= 4 ? h->proc : UINT32_MAX;
    ev->sequence = np->version >= 4 ? h->seq : 0;
    ev->timestamp = (int64_t)h->ts;
    ev->ms = gcev_trace_ms(t, ev->timestamp);
    ev->pointer_size = t->info.pointer_size;
    ev->payload = h->payload_size ? h->payload : NULL;
    ev->payload_size = h->payload_size;
    ev->stack = NULL;
    ev->stack_size = 0;
    ev->nfields = m->nfields;
    ev->fields = m->fields;
    ev->file_offset = off;
    ev->field_type_system = GCEV_FIELD_TYPES_EVENTPIPE;
    ev->no_event_id = 0;
    ev->process_name = NULL;
    ev->kind = m;
    if (np->version >= 6) {
        static const gcev_guid none;
        ev->activity_id = none;
        ev->related_activity_id = none;
        ev->has_activity_id = 0;
        ev->has_related_activity_id = 0;
        const np_thread *th = thread_find(np, h->tid);
        if (th && th->has_tid) {
            ev->thread_id = th->os_tid;
        }
        if (th && th->has_pid) {
            ev->process_id = (uint32_t)th->os_pid;
        }
        const np_thread *ct = h->capture == h->tid ? th : thread_find(np, h->capture);
        if (ct && ct->has_tid) {
            ev->capture_thread_id = ct->os_tid;
        }
        const np_labels *l = labels_find(np, h->label_id);
        if (l) {
            ev->activity_id = l->activity;
            ev->has_activity_id = l->has_activity;
            ev->related_activity_id = l->related;
            ev->has_related_activity_id = l->has_related;
            /* Label lists override the metadata (the effective version lives here). */
            if (l->has_version) {
                ev->version = l->version;
            }
            if (l->has_opcode) {
                ev->opcode = l->opcode;
                ev->has_opcode = 1;
            }
            if (l->has_level) {
                ev->level = l->level;
                ev->has_level = 1;
            }
            if (l->has_keywords) {
                ev->keywords = l->keywords;
            }
        }
    } else {
        ev->activity_id = h->act;
        ev->related_activity_id = h->rel;
        ev->has_activity_id = h->has_act;
        ev->has_related_activity_id = h->has_rel;
    }
    if (np->version <= 3) {
        ev->stack = np->no_stacks ? NULL : h->stack;
        ev->stack_size = ev->stack ? h->stack_size : 0;
    } else {
        event_stack(np, h->stack_id, ev);
    }
    if (np->version >= 4 && observe) {
        return seq_next(t, np, h, off, err);
    }
    return GCEV_OK;
}

static gcev_status fill_event(gcev_trace *t, gcev_nettrace *np, const np_meta *m, const np_hdr *h,
                              uint64_t off, gcev_trace_event *ev, gcev_error *err)
{
    return fill_event_observe(t, np, m, h, off, ev, err, 1);
}

gcev_status gcev_np_event_v3(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_trace_event *ev, int *is_event,
                             gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    np_hdr h;
    memset(&h, 0, sizeof h);
    size_t start = c->pos;
    *is_event = 0;
    if (!hdr_v3(c, &h)) {
        return gcev_np_fail(err, GCEV_E_FORMAT, file_off + start, ev_trunc);
    }
    uint64_t off = file_off + start;
    if (h.meta_id == 0) {
        /* V1/V2 metadata ids are the file offsets of their records. */
        return gcev_np_meta_v5(t, h.payload, h.payload_size, off, off, err);
    }
    gcev_status st = fill_event(t, np, gcev_np_meta_find(np, h.meta_id), &h, off, ev, err);
    if (st == NP_FILTERED) {
        return GCEV_OK; /* not an event the caller sees: the next record */
    }
    *is_event = 1;
    return st;
}

/*
 * The events of a compressed V4/V5 block (the .NET Core 3.0 - 7 runtimes' format),
 * the walk's hot path: the header parsed into the delta state, the metadata looked
 * up only when the header names a new id, every member of ev written once (what
 * fill_event does for these versions, without its V3 and V6 branches).
 */
static GCEV_ALWAYS_INLINE gcev_status v45_advance(gcev_trace *t, gcev_nettrace *np, const np_meta **mp,
                                                  uint64_t *offp, gcev_error *err)
{
    const np_hdr *h = &np->prev;
    const np_meta *m;
    uint64_t off;
    for (;;) {
        if (np->blk_pos >= np->blk_len) {
            return GCEV_END;
        }
        np_cur c = {np->blk, np->blk_len, np->blk_pos};
        off = np->blk_off + np->blk_pos;
        if (!hdr_compressed(&c, np)) {
            return gcev_np_fail(err, GCEV_E_FORMAT, off, ev_trunc);
        }
        np_prefetch_line(c.p, c.n, c.pos);
        np->blk_pos = c.pos;
        m = event_meta(np, h->meta_id);
        if (!m) {
            return gcev_np_fail(err, GCEV_E_FORMAT, off, "event refers to undefined metadata");
        }
        if ((int64_t)h->ts < np->blk_min_ts || (int64_t)h->ts > np->blk_max_ts) {
            return gcev_np_fail(err, GCEV_E_FORMAT, off, ev_ts_range);
        }
        if (!t->filter || meta_keeps(t, m)) {
            break;
        }
        gcev_status st = event_skipped(t, np, h, off, err);
        if (st != NP_FILTERED) {
            return st;
        }
    }
    *mp = m;
    *offp = off;
    return seq_next(t, np, h, off, err);
}

/* Every member of ev for the event v45_advance read (np->prev, its metadata m, at off). */
static GCEV_ALWAYS_INLINE void v45_fill(gcev_trace *t, gcev_nettrace *np, const np_meta *m, uint64_t off,
                                        gcev_trace_event *ev)
{
    const np_hdr *h = &np->prev;
    memcpy(ev, &m->image, NP_META_PART);
    ev->process_id = t->info.process_id;
    ev->thread_id = h->tid;
    ev->capture_thread_id = h->capture;
    ev->processor = h->proc;
    ev->sequence = h->seq;
    ev->timestamp = (int64_t)h->ts;
    ev->ms = gcev_trace_ms(t, ev->timestamp);
    ev->activity_id = h->act;
    ev->related_activity_id = h->rel;
    ev->has_activity_id = h->has_act;
    ev->has_related_activity_id = h->has_rel;
    ev->pointer_size = t->info.pointer_size;
    ev->payload = h->payload_size ? h->payload : NULL;
    ev->payload_size = h->payload_size;
    event_stack(np, h->stack_id, ev);
    ev->nfields = m->nfields;
    ev->fields = m->fields;
    ev->file_offset = off;
    ev->field_type_system = GCEV_FIELD_TYPES_EVENTPIPE;
    ev->no_event_id = 0;
    ev->process_name = NULL;
    ev->kind = m;
}

static GCEV_ALWAYS_INLINE gcev_status block_next_compressed_v45(gcev_trace *t, gcev_nettrace *np,
                                                                gcev_trace_event *ev, gcev_error *err)
{
    const np_meta *m = NULL;
    uint64_t off = 0;
    gcev_status st = v45_advance(t, np, &m, &off, err);
    if (st == GCEV_OK) {
        v45_fill(t, np, m, off, ev);
    }
    return st;
}

/* v45_advance out of the batch loop, which it would crowd (the loop's state is in np). */
static GCEV_NOINLINE gcev_status lean_slow(gcev_trace *t, gcev_nettrace *np, const np_meta **mp,
                                           uint64_t *offp, gcev_error *err)
{
    return v45_advance(t, np, mp, offp, err);
}

/* A LEB128 of more than two bytes where at least 10 are in the block: the position after it, or
 * NULL (bits past 64), as np_varu64 reads it. */
static GCEV_NOINLINE const uint8_t *leb_long(const uint8_t *q, uint64_t *v)
{
    np_cur c = {q, 10, 0};
    return np_varu64(&c, v) ? q + c.pos : NULL;
}

/* A LEB128 with at least 10 bytes of the block at q (no bounds check): one- and two-byte
 * values inline; the position after it, or NULL. */
static GCEV_ALWAYS_INLINE const uint8_t *leb_nc(const uint8_t *q, uint64_t *v)
{
    if (q[0] < 0x80) {
        *v = q[0];
        return q + 1;
    }
    if (q[1] < 0x80) {
        *v = (uint64_t)(q[0] & 0x7f) | (uint64_t)q[1] << 7;
        return q + 2;
    }
    uint64_t x = 0;
    q = leb_long(q, &x);
    *v = x;
    return q;
}

/* As leb_nc for a 32-bit field: NULL also for a value past 32 bits (only a long form can be).
 * Its own short forms rather than leb_nc and a range check, as leb32 does with leb64: gcc
 * kept that check on the short forms too, 1.6 instructions an event of the lean batch. */
static GCEV_ALWAYS_INLINE const uint8_t *leb_nc32(const uint8_t *q, uint32_t *v)
{
    if (q[0] < 0x80) {
        *v = q[0];
        return q + 1;
    }
    if (q[1] < 0x80) {
        *v = (uint32_t)(q[0] & 0x7f) | (uint32_t)q[1] << 7;
        return q + 2;
    }
    uint64_t x = 0;
    q = leb_long(q, &x);
    if (x > UINT32_MAX) {
        return NULL;
    }
    *v = (uint32_t)x;
    return q;
}

/* The most a header the batch parses itself can take: flags, then metadata id, sequence
 * delta, capture thread, processor, thread, stack id, timestamp and payload size of at most 10
 * bytes each; while an event ends LEAN_ROOM bytes or more before the block's end, the next
 * header's fields are read without bounds checks. */
enum { LEAN_ROOM = 96 };

/* A lean record is its metadata's 16-byte head (np_meta.lean_head), the kind, timestamp,
 * thread, payload, and 8 bytes of payload size, pointer size and no_event_id (its tail). */
_Static_assert(offsetof(gcev_trace_lean, kind) == 16 &&
                   offsetof(gcev_trace_lean, pointer_size) == offsetof(gcev_trace_lean, payload_size) + 4 &&
                   offsetof(gcev_trace_lean, no_event_id) == offsetof(gcev_trace_lean, payload_size) + 5 &&
                   sizeof(gcev_trace_lean) == offsetof(gcev_trace_lean, payload_size) + 8,
               "the lean batch writes a record as head, four members and an 8-byte tail");

/* A lean record's tail (no_event_id 0, padding 0). Fields that do not overlap: the tail of
 * (size, 0) ORed with that of (0, pointer size) is that of both. */
static GCEV_ALWAYS_INLINE uint64_t lean_tail(uint32_t payload_size, uint8_t pointer_size)
{
    struct {
        uint32_t size;
        uint8_t pointer_size, no_event_id, pad[2];
    } x = {payload_size, pointer_size, 0, {0, 0}};
    _Static_assert(sizeof x == sizeof(uint64_t), "the tail is 8 bytes");
    uint64_t v;
    memcpy(&v, &x, sizeof v);
    return v;
}

/* Every member of a lean record (struct_size this release's size: see the batch's end). */
static GCEV_ALWAYS_INLINE void lean_put(gcev_trace_lean *ev, const np_meta *m, uint64_t ts, uint64_t tid,
                                        const uint8_t *payload, uint32_t payload_size, uint64_t tail)
{
    memcpy(ev, m->lean_head, sizeof m->lean_head);
    ev->kind = m;
    ev->timestamp = (int64_t)ts;
    ev->thread_id = tid;
    ev->payload = payload_size ? payload : NULL;
    memcpy((unsigned char *)ev + offsetof(gcev_trace_lean, payload_size), &tail, sizeof tail);
}

/* One event by the per-event path, as a lean record. */
static gcev_status block_next_lean_v45(gcev_trace *t, gcev_trace_lean *ev, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    const np_meta *m = NULL;
    uint64_t off = 0;
    gcev_status st = v45_advance(t, np, &m, &off, err);
    if (st != GCEV_OK) {
        return st;
    }
    const np_hdr *h = &np->prev;
    np->lean_meta = m;
    np->lean_off = off;
    const uint32_t struct_size = ev->struct_size; /* the caller's, which lean_put's head replaces */
    lean_put(ev, m, h->ts, h->tid, h->payload, h->payload_size,
             lean_tail(h->payload_size, t->info.pointer_size));
    ev->struct_size = struct_size;
    return GCEV_OK;
}

/* The metadata of id as event_meta finds it, NULL for id 0 (the batch leaves those events to
 * v45_advance): one unsigned compare for both ends of the dense table (top: ndense - 1, or
 * 0 without a table). */
static GCEV_ALWAYS_INLINE const np_meta *lean_meta_of(gcev_nettrace *np, const np_meta *const *dense,
                                                      size_t top, uint32_t id)
{
    if ((size_t)id - 1 < top) {
        return dense[id];
    }
    return id ? gcev_np_meta_find(np, id) : NULL;
}

/*
 * One event of header flags F (no activity ids, no IsSorted bit): parsed as hdr_compressed
 * parses it, every check of v45_advance made, and taken only when it passed them all; else
 * `goto slow` with nothing changed. With F a constant (the batch's switch) every flag test
 * folds away. The capture-thread part (flag 2) is taken only when it names the same thread
 * and no sequence delta (anything else is seq_observe's); a payload reaching into the last
 * LEAN_ROOM bytes of the block goes the slow way too, so that after this step the next
 * header may be read without a bounds check (`goto next`).
 */
#define LEAN_STEP(F)                                                                                         \
    do {                                                                                                     \
        const uint8_t *q = cur + 1;                                                                          \
        uint32_t x_id = 0, x_proc = 0, x_stack = 0, x_size = psize;                                          \
        uint64_t x_tid = tid, v;                                                                             \
        const np_meta *x_meta = meta;                                                                        \
        if (((F)&1) && !(q = leb_nc32(q, &x_id))) {                                                          \
            goto slow;                                                                                       \
        }                                                                                                    \
        if ((F)&2) {                                                                                         \
            uint32_t d32;                                                                                    \
            uint64_t x_capture;                                                                              \
            if (!(q = leb_nc32(q, &d32)) || !(q = leb_nc(q, &x_capture)) || !(q = leb_nc32(q, &x_proc)) ||   \
                d32 != 0 || x_capture != np->prev.capture) {                                                 \
                goto slow;                                                                                   \
            }                                                                                                \
        }                                                                                                    \
        if (((F)&4) && !(q = leb_nc(q, &x_tid))) {                                                           \
            goto slow;                                                                                       \
        }                                                                                                    \
        if (((F)&8) && !(q = leb_nc32(q, &x_stack))) {                                                       \
            goto slow;                                                                                       \
        }                                                                                                    \
        if (!(q = leb_nc(q, &v))) {                                                                          \
            goto slow;                                                                                       \
        }                                                                                                    \
        const uint64_t x_ts = ts + v;                                                                        \
        if (((F)&128) && !(q = leb_nc32(q, &x_size))) {                                                      \
            goto slow;                                                                                       \
        }                                                                                                    \
        /* integers, 64-bit even where pointers are 32: it may lie past the block, and the sum of            \
         * an address and a 32-bit size must not wrap below lim */                                           \
        const uint64_t nx = (uint64_t)(uintptr_t)q + x_size;                                                 \
        if (nx >= lim) {                                                                                     \
            goto slow;                                                                                       \
        }                                                                                                    \
        if (((F)&1) && !(x_meta = lean_meta_of(np, dense, dense_top, x_id))) {                               \
            goto slow;                                                                                       \
        }                                                                                                    \
        if (x_ts - min_ts > ts_range) { /* v45_advance's range check, min <= ts <= max */                    \
            goto slow;                                                                                       \
        }                                                                                                    \
        int skip = 0;                                                                                        \
        if (filt && x_meta != kept) {                                                                        \
            if (!meta_keeps(t, x_meta)) {                                                                    \
                if (ev != evs) {                                                                             \
                    goto done; /* see above */                                                               \
                }                                                                                            \
                skip = 1;                                                                                    \
            } else {                                                                                         \
                kept = x_meta;                                                                               \
            }                                                                                                \
        }                                                                                                    \
        /* taken */                                                                                          \
        if ((F)&2) {                                                                                         \
            np->prev.proc = x_proc;                                                                          \
        }                                                                                                    \
        if ((F)&8) {                                                                                         \
            np->prev.stack_id = x_stack;                                                                     \
        }                                                                                                    \
        lean_prefetch((uintptr_t)nx);                                                                        \
        ts = x_ts;                                                                                           \
        tid = x_tid;                                                                                         \
        meta = x_meta;                                                                                       \
        if ((F)&128) {                                                                                       \
            psize = x_size;                                                                                  \
            tail = ptr_tail | lean_tail(x_size, 0);                                                          \
        }                                                                                                    \
        if (filt && skip) {                                                                                  \
            cur = (const uint8_t *)(uintptr_t)nx;                                                            \
            skipped++;                                                                                       \
            np->prev.payload = q;                                                                            \
            gcev_trace_note_filtered(t, (int64_t)ts); /* as event_skipped does */                            \
            goto next;                                                                                       \
        }                                                                                                    \
        last = cur;                                                                                          \
        cur = (const uint8_t *)(uintptr_t)nx;                                                                \
        lean_put(ev++, meta, ts, tid, q, psize, tail);                                                       \
        if (ev == end) {                                                                                     \
            goto done;                                                                                       \
        }                                                                                                    \
        goto next;                                                                                           \
    } while (0)

#define LEAN_CASE(F)                                                                                         \
    case F:                                                                                                  \
        LEAN_STEP(F);
/* the flags a header the batch takes can have: bits 1, 2, 4, 8 and 128 */
#define LEAN_CASES8(H)                                                                                       \
    LEAN_CASE(H + 0)                                                                                         \
    LEAN_CASE(H + 1)                                                                                         \
    LEAN_CASE(H + 2)                                                                                         \
    LEAN_CASE(H + 3)                                                                                         \
    LEAN_CASE(H + 4)                                                                                         \
    LEAN_CASE(H + 5)                                                                                         \
    LEAN_CASE(H + 6)                                                                                         \
    LEAN_CASE(H + 7)

/* A hint for the bytes NP_PREFETCH_AHEAD past the cursor (see np_prefetch_line), without its
 * block-end test: a prefetch never faults, and an integer, as nx is, points nowhere. */
static GCEV_ALWAYS_INLINE void lean_prefetch(uintptr_t at)
{
#if defined(__GNUC__)
    __builtin_prefetch((const void *)(at + NP_PREFETCH_AHEAD));
#else
    (void)at;
#endif
}

/*
 * The events of the common shape (room left in the block; flags without activity ids or
 * IsSorted; no other capture thread or sequence delta; metadata id not 0 and known; timestamp
 * in the block's range; the next sequence number of the capture thread the reader saw last)
 * are parsed as hdr_compressed parses them and taken once they passed every check; any other
 * event is handed to v45_advance with the reader's state as it was before it, which reads it
 * as gcev_np_block_next does (faults, their offsets and the state they leave, metadata
 * look-ups, new capture threads and drops, filtered runs).
 *
 * Without a filter (filt 0) a switch on the whole flags byte runs one straight-line copy of
 * LEAN_STEP per shape a runtime writes (the 3.0 corpus trace has 20 of them, none above a
 * sixth of its events; .NET 10 traces four or five), so the step tests no flag bit; with one,
 * a single copy tests the bits (not the path the walk benchmarks take).
 *
 * What every event changes (the cursor, timestamp, thread, metadata record, payload size) is
 * kept in locals and written back to np before v45_advance and at the end, with what follows
 * from them: the metadata id (the record's), the sequence number (one more per event taken or
 * skipped), the payload pointer (the last record's; no reader looks at it for an empty
 * payload). In np, every store to an output record might alias it, so each event would reload
 * and re-store it all. What seldom changes (stack id, processor) is stored into np->prev as it
 * comes; the rest (the capture thread, the sequence cache) cannot change here. lean_meta /
 * lean_off only for the batch's last event, whose header np->prev must then hold for
 * gcev_np_lean_fill: so, with a filter, a batch that has events ends before an event the
 * filter skips and before an event of the slow way (which may skip events and then meet the
 * block's end).
 */
static GCEV_ALWAYS_INLINE gcev_status lean_batch(gcev_trace *t, gcev_trace_lean *evs, size_t cap, size_t *k,
                                                 gcev_error *err, const int filt)
{
    gcev_nettrace *np = t->impl;
    const uint8_t *const b = np->blk;
    const size_t n = np->blk_len;
    /* the range check as one unsigned compare; a block whose range is empty has no fast path */
    const uint64_t min_ts = (uint64_t)np->blk_min_ts;
    const uint64_t ts_range = (uint64_t)np->blk_max_ts - min_ts;
    const uintptr_t room =
        n > LEAN_ROOM && np->blk_min_ts <= np->blk_max_ts ? (uintptr_t)b + (n - LEAN_ROOM) : 0;
    const np_meta *const *const dense = (const np_meta *const *)np->dense;
    const size_t dense_top = np->ndense ? np->ndense - 1 : 0;
    const uint64_t ptr_tail = lean_tail(0, t->info.pointer_size);
    const uint32_t struct_size = evs[0].struct_size;
    gcev_trace_lean *ev = evs;
    gcev_trace_lean *const end = evs + cap;
    const np_meta *kept = NULL; /* the metadata of the last event the filter (if any) kept */
    const uint8_t *last = NULL; /* the last event's first byte */
    gcev_status st = GCEV_OK;
    /* the state (see above); lim: while an event ends before it, the next may be taken here
     * (0 when the reader's state rules the fast path out: see LEAN_LOAD) */
    const uint8_t *cur;
    uint64_t ts, tid, tail;
    uint32_t psize, seq0, skipped;
    const np_meta *meta;
    gcev_trace_lean *ev0;
    uintptr_t lim;
#define LEAN_LOAD()                                                                                          \
    do {                                                                                                     \
        cur = b + np->blk_pos;                                                                               \
        ts = np->prev.ts;                                                                                    \
        tid = np->prev.tid;                                                                                  \
        psize = np->prev.payload_size;                                                                       \
        tail = ptr_tail | lean_tail(psize, 0);                                                               \
        seq0 = np->prev.seq;                                                                                 \
        ev0 = ev;                                                                                            \
        skipped = 0;                                                                                         \
        meta = np->cur_meta;                                                                                 \
        lim = 0;                                                                                             \
        if (np->last_seq_index != UINT32_MAX && np->last_seq_capture == np->prev.capture &&                  \
            np->seqs[np->last_seq_index].last == seq0) {                                                     \
            if (!meta) {                                                                                     \
                meta = lean_meta_of(np, dense, dense_top, np->prev.meta_id);                                 \
            }                                                                                                \
            if (meta && np->prev.meta_id != 0) {                                                             \
                lim = room;                                                                                  \
            }                                                                                                \
        }                                                                                                    \
    } while (0)
#define LEAN_STORE()                                                                                         \
    do {                                                                                                     \
        if (ev != ev0 || skipped) {                                                                          \
            const uint32_t seq = seq0 + (uint32_t)(ev - ev0) + skipped;                                      \
            np->blk_pos = (size_t)(cur - b);                                                                 \
            np->prev.meta_id = (uint32_t)meta->id;                                                           \
            np->prev.payload_size = psize;                                                                   \
            np->prev.seq = seq;                                                                              \
            np->prev.tid = tid;                                                                              \
            np->prev.ts = ts;                                                                                \
            np->cur_meta = meta;                                                                             \
            np->seqs[np->last_seq_index].last = seq;                                                         \
            if (ev != ev0) {                                                                                 \
                np->prev.payload = ev[-1].payload;                                                           \
            }                                                                                                \
        }                                                                                                    \
    } while (0)
    LEAN_LOAD();
    for (;;) {
        if ((uintptr_t)cur >= lim) {
            if ((size_t)(cur - b) >= n) {
                st = GCEV_END;
                goto done;
            }
            goto slow;
        }
    next:
        if (!filt) {
            switch (*cur) {
                LEAN_CASES8(0)
                LEAN_CASES8(8)
                LEAN_CASES8(128)
                LEAN_CASES8(136)
            default:
                goto slow;
            }
        } else {
            const unsigned flags = *cur;
            if (flags & (16 | 32 | 64)) {
                goto slow;
            }
            LEAN_STEP(flags);
        }
    slow:
        if (filt && ev != evs) {
            goto done; /* (v45_advance could skip events and then meet the block's end) */
        }
        LEAN_STORE();
        {
            const np_meta *m = NULL;
            uint64_t off = 0;
            st = lean_slow(t, np, &m, &off, err);
            if (st != GCEV_OK) {
                goto out; /* np holds what v45_advance left */
            }
            const np_hdr *h = &np->prev;
            last = b + (size_t)(off - np->blk_off);
            lean_put(ev++, m, h->ts, h->tid, h->payload, h->payload_size,
                     ptr_tail | lean_tail(h->payload_size, 0));
            kept = NULL;
            LEAN_LOAD();
            if (ev == end) {
                goto done;
            }
        }
    }
done:
    LEAN_STORE();
out:
#undef LEAN_LOAD
#undef LEAN_STORE
    if (ev != evs) {
        np->lean_meta = ev[-1].kind;
        np->lean_off = np->blk_off + (size_t)(last - b);
    }
    if (struct_size != sizeof *evs) { /* (0: the first layout; lean_put writes this release's size) */
        for (gcev_trace_lean *e = evs; e != ev; e++) {
            e->struct_size = struct_size;
        }
    }
    *k = (size_t)(ev - evs);
    return st;
}

#undef LEAN_CASES8
#undef LEAN_CASE
#undef LEAN_STEP

static gcev_status lean_batch_v45(gcev_trace *t, gcev_trace_lean *evs, size_t cap, size_t *k, gcev_error *err)
{
    return t->filter ? lean_batch(t, evs, cap, k, err, 1) : lean_batch(t, evs, cap, k, err, 0);
}

/* The events of a compressed V6 block. */
static gcev_status block_next_compressed(gcev_trace *t, gcev_nettrace *np, gcev_trace_event *ev,
                                         gcev_error *err)
{
    if (np->blk_pos >= np->blk_len) {
        return GCEV_END;
    }
    for (;;) {
        np_cur c = {np->blk, np->blk_len, np->blk_pos};
        uint64_t off = np->blk_off + np->blk_pos;
        if (!hdr_compressed(&c, np)) {
            return gcev_np_fail(err, GCEV_E_FORMAT, off, ev_trunc);
        }
        np->blk_pos = c.pos;
        gcev_status st = fill_event(t, np, event_meta(np, np->prev.meta_id), &np->prev, off, ev, err);
        if (st != NP_FILTERED) {
            return st;
        }
        if (np->blk_pos >= np->blk_len) {
            return GCEV_END;
        }
    }
}

/* Every member of ev for a NetPerf record whose framing block_next_v3 checked: r its bytes
 * after EventSize, psize / ssize its payload and stack sizes, off its file offset. */
static GCEV_ALWAYS_INLINE void v3_fill(gcev_trace *t, const gcev_nettrace *np, const np_meta *m,
                                       const uint8_t *r, uint32_t psize, uint32_t ssize, uint64_t off,
                                       gcev_trace_event *ev)
{
    memcpy(ev, &m->image, NP_META_PART);
    const uint64_t tid = gcev_rd_u32le(r + 4);
    ev->process_id = t->info.process_id;
    ev->thread_id = tid;
    ev->capture_thread_id = tid;
    ev->processor = UINT32_MAX;
    ev->sequence = 0;
    ev->timestamp = (int64_t)gcev_rd_u64le(r + 8);
    ev->ms = gcev_trace_ms(t, ev->timestamp);
    ev->activity_id = gcev_guid_load(r + 16);
    ev->related_activity_id = gcev_guid_load(r + 32);
    ev->has_activity_id = (gcev_rd_u64le(r + 16) | gcev_rd_u64le(r + 24)) != 0;
    ev->has_related_activity_id = (gcev_rd_u64le(r + 32) | gcev_rd_u64le(r + 40)) != 0;
    ev->pointer_size = t->info.pointer_size;
    ev->payload = psize ? r + 52 : NULL;
    ev->payload_size = psize;
    ev->stack = ssize && !np->no_stacks ? r + 56 + psize : NULL;
    ev->stack_size = ev->stack ? ssize : 0;
    ev->nfields = m->nfields;
    ev->fields = m->fields;
    ev->file_offset = off;
    ev->field_type_system = GCEV_FIELD_TYPES_EVENTPIPE;
    ev->no_event_id = 0;
    ev->process_name = NULL;
    ev->kind = m;
}

/*
 * The events of a NetPerf V3 block, or of the V1/V2 inline stream (fixed 56-byte
 * headers, the stack inline, metadata records among the events): one bounds check
 * per record for its fixed fields, then loads at fixed offsets; what hdr_v3 and
 * fill_event do for these versions, without their cursor steps and the other
 * versions' branches. V1/V2: the "block" is the mapped input up to the end of the
 * inline events.
 */
static GCEV_ALWAYS_INLINE gcev_status block_next_v3(gcev_trace *t, gcev_nettrace *np, gcev_trace_event *ev,
                                                    gcev_error *err)
{
    while (np->blk_pos < np->blk_len) {
        const uint8_t *b = np->blk;
        const size_t n = np->blk_len, pos = np->blk_pos;
        const uint64_t off = np->blk_off + pos;
        /* EventSize, then MetadataId, ThreadId, TimeStamp, ActivityId, RelatedActivityId,
         * PayloadSize (52 bytes), the payload, and (not always, in metadata records) the
         * stack's size and bytes: EventSize covers all of it */
        if (n - pos < 4) {
            if (np->version <= 2) {
                /* the inline stream's end is the forward reference: the file may hold more */
                return t->src.size - pos < 4
                           ? gcev_np_fail(err, GCEV_E_TRUNCATED_FILE, off, "trace ends inside an event")
                           : gcev_np_fail(err, GCEV_E_FORMAT, off, "event overruns the event stream");
            }
            return gcev_np_fail(err, GCEV_E_FORMAT, off, ev_trunc);
        }
        const uint32_t size = gcev_rd_u32le(b + pos);
        if (n - pos - 4 < size) {
            return gcev_np_fail(err, GCEV_E_FORMAT, off,
                                np->version <= 2 ? "event overruns the event stream" : ev_trunc);
        }
        if (size < 52) {
            return gcev_np_fail(err, GCEV_E_FORMAT, off, ev_trunc);
        }
        const uint8_t *r = b + pos + 4;
        const uint32_t psize = gcev_rd_u32le(r + 48);
        if (size - 52 < psize) {
            return gcev_np_fail(err, GCEV_E_FORMAT, off, ev_trunc);
        }
        const uint32_t rest = size - 52 - psize;
        uint32_t ssize = 0;
        if (rest >= 4) {
            ssize = gcev_rd_u32le(r + 52 + psize);
            if (rest - 4 < ssize) {
                return gcev_np_fail(err, GCEV_E_FORMAT, off, ev_trunc);
            }
        }
        np->blk_pos = pos + 4 + size;
        np_prefetch_ahead(b, n, np->blk_pos, 4 + size);
        const uint32_t meta_id = gcev_rd_u32le(r);
        if (meta_id == 0) {
            /* V1/V2 metadata ids are the file offsets of their records (V3: their own) */
            gcev_status st = gcev_np_meta_v5(t, r + 52, psize, off, off, err);
            if (st != GCEV_OK) {
                return st;
            }
            continue;
        }
        const np_meta *m = meta_id < np->ndense ? np->dense[meta_id] : gcev_np_meta_find(np, meta_id);
        if (!m) {
            return gcev_np_fail(err, GCEV_E_FORMAT, off, "event refers to undefined metadata");
        }
        if (t->filter && !meta_keeps(t, m)) {
            gcev_trace_note_filtered(t, (int64_t)gcev_rd_u64le(r + 8));
            continue;
        }
        v3_fill(t, np, m, r, psize, ssize, off, ev);
        return GCEV_OK;
    }
    return GCEV_END;
}

static GCEV_NOINLINE gcev_status block_next_other(gcev_trace *t, gcev_trace_event *ev, gcev_error *err);

gcev_status gcev_np_block_next(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    if (np->compressed && np->blk_is_events == 1 && np->version < 6) {
        return block_next_compressed_v45(t, np, ev, err);
    }
    if (np->version <= 3) {
        return block_next_v3(t, np, ev, err);
    }
    return block_next_other(t, ev, err);
}

/* The end of a NetPerf or uncompressed lean batch that filled evs[0..ev) up to end: the block
 * position, the last record for gcev_np_lean_fill (at block offset last), the caller's
 * struct_size, the count; GCEV_OK when full, else GCEV_END (the per-event path reads on). */
static GCEV_ALWAYS_INLINE gcev_status lean_batch_close(gcev_nettrace *np, gcev_trace_lean *evs,
                                                       gcev_trace_lean *ev, const gcev_trace_lean *end,
                                                       size_t pos, size_t last, uint32_t struct_size,
                                                       size_t *k)
{
    np->blk_pos = pos;
    if (ev != evs) {
        np->lean_meta = ev[-1].kind;
        np->lean_off = np->blk_off + last;
    }
    if (struct_size != sizeof *evs) { /* (0: the first layout; lean_put writes this release's size) */
        for (gcev_trace_lean *e = evs; e != ev; e++) {
            e->struct_size = struct_size;
        }
    }
    *k = (size_t)(ev - evs);
    return ev == end ? GCEV_OK : GCEV_END;
}

/*
 * The lean batch of a NetPerf V3 block or of the V1/V2 inline stream: the records
 * block_next_v3 gives as events, straight into lean records. A record is taken only once it
 * passed every check block_next_v3 makes of it (room for EventSize, the record inside the
 * block, EventSize at least 52, the payload and then the stack size inside the record, a
 * metadata id that is not 0 and is defined); events the filter skips are noted as it notes
 * them. The batch stops before any other record (a fault, an inline metadata record, an
 * undefined id): it then gives what it took, or with nothing taken GCEV_END, and
 * gcev_trace_next_lean_batch reads that record by the per-event path (nettrace_next), which
 * reports a fault with its own code, offset and message and consumes a metadata record. These
 * versions have no sequence numbers, no delta state and no recorded timestamp range, so the
 * block position is all the state there is; gcev_np_lean_fill reads the last record again
 * (the block stays in the window until the next read call).
 */
static GCEV_ALWAYS_INLINE gcev_status lean_batch_v3(gcev_trace *t, gcev_trace_lean *evs, size_t cap,
                                                    size_t *k, const int filt)
{
    gcev_nettrace *np = t->impl;
    const uint8_t *const b = np->blk;
    const size_t n = np->blk_len;
    const np_meta *const *const dense = np->dense;
    const size_t dense_top = np->ndense ? np->ndense - 1 : 0;
    const uint64_t ptr_tail = lean_tail(0, t->info.pointer_size);
    const uint32_t struct_size = evs[0].struct_size;
    gcev_trace_lean *ev = evs, *const end = evs + cap;
    size_t pos = np->blk_pos, last = pos;
    /* the metadata of id (0 and NULL: none yet; lean_meta_of gives NULL for id 0) */
    uint32_t id = 0;
    const np_meta *m = NULL;
    while (ev != end && n - pos >= 4) {
        const uint32_t size = gcev_rd_u32le(b + pos);
        if (n - pos - 4 < size || size < 52) {
            break;
        }
        const uint8_t *r = b + pos + 4;
        const uint32_t psize = gcev_rd_u32le(r + 48);
        if (size - 52 < psize) {
            break;
        }
        const uint32_t rest = size - 52 - psize;
        if (rest >= 4 && rest - 4 < gcev_rd_u32le(r + 52 + psize)) {
            break;
        }
        const uint32_t x_id = gcev_rd_u32le(r);
        if (x_id != id) {
            m = lean_meta_of(np, dense, dense_top, x_id);
            id = x_id;
        }
        if (!m) {
            break;
        }
        const size_t at = pos;
        pos += 4 + (size_t)size;
        np_prefetch_ahead(b, n, pos, 4 + (size_t)size);
        const uint64_t ts = gcev_rd_u64le(r + 8);
        if (filt && !meta_keeps(t, m)) {
            gcev_trace_note_filtered(t, (int64_t)ts);
            continue;
        }
        last = at;
        lean_put(ev++, m, ts, gcev_rd_u32le(r + 4), r + 52, psize, ptr_tail | lean_tail(psize, 0));
    }
    return lean_batch_close(np, evs, ev, end, pos, last, struct_size, k);
}

/* The fixed part of an uncompressed V4/V5 header after EventSize: metadata id (high bit:
 * IsSorted), sequence number, thread, capture thread, processor, stack id, timestamp, activity
 * and related activity ids, payload size (hdr_uncompressed). */
enum { UNC_FIXED = 76 };

/*
 * The lean batch of an uncompressed NetTrace V4/V5 event block, as lean_batch_v3 for NetPerf:
 * a record is taken once it passed every check the per-event path (block_next_other,
 * hdr_uncompressed, fill_event) makes of it: EventSize room and bounds, the fixed fields and
 * the payload inside the record, metadata defined, the timestamp inside the block's recorded
 * range, and its sequence number the next of the capture thread the reader saw last (any other
 * is seq_observe's: new threads, drops). The filter's skips are event_skipped's (noted, the
 * sequence number taken alike). The IsSorted bit raises the watermark as there. Any other
 * record stops the batch before it, for the per-event path.
 */
static GCEV_ALWAYS_INLINE gcev_status lean_batch_unc(gcev_trace *t, gcev_trace_lean *evs, size_t cap,
                                                     size_t *k, const int filt)
{
    gcev_nettrace *np = t->impl;
    const uint8_t *const b = np->blk;
    const size_t n = np->blk_len;
    const np_meta *const *const dense = np->dense;
    const size_t dense_top = np->ndense ? np->ndense - 1 : 0;
    const uint64_t ptr_tail = lean_tail(0, t->info.pointer_size);
    const uint64_t min_ts = (uint64_t)np->blk_min_ts, ts_range = (uint64_t)np->blk_max_ts - min_ts;
    const uint32_t struct_size = evs[0].struct_size;
    gcev_trace_lean *ev = evs, *const end = evs + cap;
    size_t pos = np->blk_pos, last = pos;
    uint32_t id = 0;
    const np_meta *m = NULL;
    while (ev != end && n - pos >= 4) {
        const uint32_t size = gcev_rd_u32le(b + pos);
        if (n - pos - 4 < size || size < UNC_FIXED) {
            break;
        }
        const uint8_t *r = b + pos + 4;
        const uint32_t psize = gcev_rd_u32le(r + 72);
        if (size - UNC_FIXED < psize) {
            break;
        }
        const uint32_t raw_id = gcev_rd_u32le(r), x_id = raw_id & 0x7fffffffu;
        if (x_id != id) {
            m = lean_meta_of(np, dense, dense_top, x_id);
            id = x_id;
        }
        const uint64_t ts = gcev_rd_u64le(r + 32);
        if (!m || ts - min_ts > ts_range) { /* (fill_event's range check, min <= ts <= max) */
            break;
        }
        /* seq_next's common case; the rest is seq_observe's, by the per-event path */
        const uint32_t seq = gcev_rd_u32le(r + 4);
        if (np->last_seq_index == UINT32_MAX || np->last_seq_capture != gcev_rd_u64le(r + 16) ||
            seq != np->seqs[np->last_seq_index].last + 1) {
            break;
        }
        np->seqs[np->last_seq_index].last = seq;
        if (raw_id & 0x80000000u) {
            gcev_np_mark_sorted(np, (int64_t)ts);
        }
        const size_t at = pos;
        pos += 4 + (size_t)size;
        np_prefetch_ahead(b, n, pos, 4 + (size_t)size);
        if (filt && !meta_keeps(t, m)) {
            gcev_trace_note_filtered(t, (int64_t)ts);
            continue;
        }
        last = at;
        lean_put(ev++, m, ts, gcev_rd_u64le(r + 8), r + UNC_FIXED, psize, ptr_tail | lean_tail(psize, 0));
    }
    return lean_batch_close(np, evs, ev, end, pos, last, struct_size, k);
}

gcev_status gcev_np_block_lean_batch(gcev_trace *t, gcev_trace_lean *evs, size_t cap, size_t *k,
                                     gcev_error *err)
{
    const gcev_nettrace *np = t->impl;
    if (np->version <= 3) {
        return t->filter ? lean_batch_v3(t, evs, cap, k, 1) : lean_batch_v3(t, evs, cap, k, 0);
    }
    if (!np->compressed) {
        return t->filter ? lean_batch_unc(t, evs, cap, k, 1) : lean_batch_unc(t, evs, cap, k, 0);
    }
    return lean_batch_v45(t, evs, cap, k, err);
}

gcev_status gcev_np_block_next_lean(gcev_trace *t, gcev_trace_lean *ev, gcev_error *err)
{
    const gcev_nettrace *np = t->impl;
    if (np->version <= 3 || !np->compressed) {
        size_t k = 0;
        gcev_status st = gcev_np_block_lean_batch(t, ev, 1, &k, err);
        return k ? GCEV_OK : st;
    }
    return block_next_lean_v45(t, ev, err);
}

void gcev_np_lean_fill(gcev_trace *t, gcev_trace_event *ev)
{
    gcev_nettrace *np = t->impl;
    if (np->version <= 3) {
        /* the record lean_batch_v3 took last: its framing was checked then */
        const uint8_t *r = np->blk + (size_t)(np->lean_off - np->blk_off) + 4;
        const uint32_t size = gcev_rd_u32le(r - 4), psize = gcev_rd_u32le(r + 48);
        const uint32_t rest = size - 52 - psize;
        v3_fill(t, np, np->lean_meta, r, psize, rest >= 4 ? gcev_rd_u32le(r + 52 + psize) : 0, np->lean_off,
                ev);
        return;
    }
    if (!np->compressed) {
        /* the record lean_batch_unc took last, read again as block_next_other reads it; its
         * checks, the filter and its sequence number were done then (observe 0) */
        np_cur c = {np->blk, np->blk_len, (size_t)(np->lean_off - np->blk_off)};
        np_hdr h;
        memset(&h, 0, sizeof h);
        (void)hdr_uncompressed(&c, np->version, &h);
        (void)fill_event_observe(t, np, np->lean_meta, &h, np->lean_off, ev, NULL, 0);
        return;
    }
    v45_fill(t, np, np->lean_meta, np->lean_off, ev);
}

/* V6 compressed blocks, uncompressed and V3 blocks, metadata blocks. */
static GCEV_NOINLINE gcev_status block_next_other(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    if (np->compressed && np->blk_is_events == 1) {
        return block_next_compressed(t, np, ev, err);
    }
    while (np->blk_pos < np->blk_len) {
        np_cur c = {np->blk, np->blk_len, np->blk_pos};
        uint64_t off = np->blk_off + np->blk_pos;
        if (np->version <= 3) {
            int is_event;
            gcev_status st = gcev_np_event_v3(t, &c, np->blk_off, ev, &is_event, err);
            np->blk_pos = c.pos;
            if (st != GCEV_OK || is_event) {
                return st;
            }
            continue;
        }
        np_hdr h;
        int ok;
        if (np->compressed) {
            ok = hdr_compressed(&c, np); /* a compressed metadata block (V4/V5) */
            h = np->prev;
        } else {
            memset(&h, 0, sizeof h);
            ok = hdr_uncompressed(&c, np->version, &h);
            if (ok && h.sorted && np->blk_is_events == 1) {
                gcev_np_mark_sorted(np, (int64_t)h.ts);
            }
        }
        if (!ok) {
            return gcev_np_fail(err, GCEV_E_FORMAT, off, ev_trunc);
        }
        np->blk_pos = c.pos;
        if (np->blk_is_events == 2) {
            gcev_status st = gcev_np_meta_v5(t, h.payload, h.payload_size, off, 0, err);
            if (st != GCEV_OK) {
                return st;
            }
            continue;
        }
        gcev_status st = fill_event(t, np, gcev_np_meta_find(np, h.meta_id), &h, off, ev, err);
        if (st != NP_FILTERED) {
            return st;
        }
    }
    return GCEV_END;
}

/* ---- keep-going: whether the rest of a block can be trusted ---- */

/*
 * After a fault inside an event block whose record extent was read, keep-going goes on
 * with the next record only when the block's records stand alone (uncompressed headers,
 * NetPerf records) and the whole rest of the block reads as events: every header parses,
 * names metadata that is defined, carries a timestamp inside the block header's [min, max]
 * (V4-V6, whose writers record them), and the last record ends exactly where the block
 * does. A damaged size desynchronises what follows it, a damaged compressed header the
 * delta state of every header after it, and LEB128 reads almost anything: without this
 * rule the reader went on inventing events from the block's remaining bytes. Reads only.
 */
int gcev_np_block_rest_valid(gcev_nettrace *np)
{
    if (!np->blk || np->blk_is_events != 1 || np->compressed) {
        /* a compressed header is a delta on the one before: after a damaged one, every later
         * header of the block may carry the damage on (a timestamp shifted by 2^18 ticks
         * still inside the block's range), so nothing after it can be proven */
        return 0;
    }
    const int64_t lo = np->blk_min_ts, hi = np->blk_max_ts;
    np_cur c = {np->blk, np->blk_len, np->blk_pos};
    int ok = 1;
    while (ok && c.pos < c.n) {
        np_hdr h;
        memset(&h, 0, sizeof h);
        if (np->version <= 3) {
            ok = hdr_v3(&c, &h);
            if (ok && h.meta_id == 0) {
                continue; /* an inline metadata record: its framing is all there is to check */
            }
        } else {
            ok = hdr_uncompressed(&c, np->version, &h);
        }
        ok = ok && gcev_np_meta_find(np, h.meta_id) != NULL && (int64_t)h.ts >= lo && (int64_t)h.ts <= hi;
    }
    return ok && c.pos == c.n;
}

/* ---- side tables ---- */

static void stacks_clear(gcev_nettrace *np)
{
    np->stack_used = 0;
    np->nstacks = 0;
    gcev_idmap_clear(&np->stack_ids);
    np->run_count = 0;
    np->nlabels = 0;
    gcev_idmap_clear(&np->label_ids);
}

/* Puts ids first + k -> stacks[base + k] (k < count) into the map: where a stack run leaves it. */
static int stacks_map(gcev_nettrace *np, uint64_t first, size_t base, size_t count)
{
    for (size_t k = 0; k < count; k++) {
        if (!gcev_idmap_put(&np->stack_ids, first + k, (uint32_t)(base + k))) {
            return 0;
        }
    }
    return 1;
}

/* A stack block that ends early: what it read so far goes where the run would have been (the
 * map), and the run is over, as when every stack was put into the map as it was read. */
static gcev_status stack_block_fail(gcev_nettrace *np, uint32_t first, size_t base, int continuing,
                                    gcev_error *err, gcev_status code, uint64_t off, const char *msg)
{
    if (continuing) {
        (void)stacks_map(np, np->run_first, np->run_base, np->run_count);
    }
    (void)stacks_map(np, first, base, np->nstacks - base);
    np->run_count = 0;
    return gcev_np_fail(err, code, off, msg);
}

/*
 * The stacks of a stack block, kept until the next sequence point (with
 * gcev_trace_options.no_stacks only checked). Ids [run_first, run_first +
 * run_count) are found without the map (event_stack): the runtime numbers stacks consecutively
 * between sequence points, so a block that continues the run only extends it, and its stacks
 * never go into the map (a hash per stack was a tenth of the allocation bench's reader). A
 * block that does not continue it puts the run into the map first: the map then holds what it
 * held when every stack went into it as read (the newest of an id wins: the run is looked at
 * first, and a run is put after everything older).
 */
gcev_status gcev_np_stack_block(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    uint32_t first, count;
    if (!np_u32(c, &first) || !np_u32(c, &count) || count > (c->n - c->pos) / 4) {
        return gcev_np_fail(err, GCEV_E_FORMAT, file_off + c->pos, "malformed stack block");
    }
    /* Stacks live until the next sequence point: bound their total like one block. */
    if (c->n > t->src.max_take || np->stack_used > t->src.max_take - c->n) {
        return gcev_np_fail(err, GCEV_E_LIMIT, file_off,
                            "stacks between sequence points exceed the block-size limit");
    }
    if (np->no_stacks) {
        /* checked as below and counted against the limit above, kept nowhere */
        for (uint32_t i = 0; i < count; i++) {
            uint32_t size;
            if (!np_u32(c, &size) || !np_has(c, size)) {
                return gcev_np_fail(err, GCEV_E_FORMAT, file_off + c->pos, "stack overruns its block");
            }
            np->stack_used += size;
            c->pos += size;
        }
        return GCEV_OK;
    }
    size_t base = np->nstacks;
    /* (a run past 2^32 - 1 stays in the map: its ids, first + i, are not wrapped) */
    const int fits = count && (uint64_t)first + count <= UINT32_MAX;
    const int continuing = fits && np->run_count && first == np->run_first + np->run_count &&
                           base == np->run_base + np->run_count &&
                           (uint64_t)np->run_first + np->run_count + count <= UINT32_MAX;
    if (!continuing && np->run_count) {
        if (!stacks_map(np, np->run_first, np->run_base, np->run_count)) {
            np->run_count = 0;
            return gcev_np_fail(err, GCEV_E_NOMEM, file_off, "out of memory");
        }
        np->run_count = 0;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t size;
        if (!np_u32(c, &size) || !np_has(c, size)) {
            return stack_block_fail(np, first, base, continuing, err, GCEV_E_FORMAT, file_off + c->pos,
                                    "stack overruns its block");
        }
        if (!gcev_reserve((void **)&np->stack_bytes, &np->stack_cap, np->stack_used + size, 1) ||
            !gcev_reserve((void **)&np->stacks, &np->cap_stacks, np->nstacks + 1, sizeof *np->stacks)) {
            return stack_block_fail(np, first, base, continuing, err, GCEV_E_NOMEM, file_off,
                                    "out of memory");
        }
        if (size) {
            memcpy(np->stack_bytes + np->stack_used, c->p + c->pos, size);
        }
        np->stacks[np->nstacks].off = np->stack_used;
        np->stacks[np->nstacks].len = size;
        np->nstacks++;
        np->stack_used += size;
        c->pos += size;
    }
    if (continuing) {
        np->run_count += count;
    } else if (fits) {
        np->run_first = first;
        np->run_count = count;
        np->run_base = base;
    } else if (!stacks_map(np, first, base, count)) {
        return gcev_np_fail(err, GCEV_E_NOMEM, file_off, "out of memory");
    }
    return GCEV_OK;
}

gcev_status gcev_np_sequence_point(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    uint64_t ts;
    uint32_t flags = 0, count;
    int ok = np_u64(c, &ts) && (np->version < 6 || np_u32(c, &flags)) && np_u32(c, &count);
    for (uint32_t i = 0; ok && i < count; i++) {
        uint64_t cap;
        uint32_t seq;
        if (np->version >= 6) {
            ok = np_varu64(c, &cap) && np_varu32(c, &seq);
        } else {
            ok = np_u64(c, &cap) && np_u32(c, &seq);
        }
        gcev_status st;
        if (ok && (st = seq_observe(t, cap, seq, (int64_t)ts, file_off, 1, err)) != GCEV_OK) {
            return st;
        }
    }
    if (!ok) {
        return gcev_np_fail(err, GCEV_E_FORMAT, file_off + c->pos, "malformed sequence point block");
    }
    gcev_np_mark_sorted(np, (int64_t)ts); /* every event before it was written before it */
    if (np->ordered) {
        /* the segment's events are still to be merged: they need its stacks */
        np->ord.deferred_sp = 1;
        np->ord.deferred_flags = flags;
        np->seg_end = 1;
        return GCEV_OK;
    }
    gcev_np_sequence_point_clear(np, flags);
    gcev_trace_sequence_point(t);
    return GCEV_OK;
}

void gcev_np_sequence_point_clear(gcev_nettrace *np, uint32_t flags)
{
    stacks_clear(np);
    if (flags & 2) { /* V6 FlushMetadata */
        gcev_np_meta_flush(np);
    }
    if (flags & 1) {
        np->nthreads = 0;
        gcev_idmap_clear(&np->thread_ids);
        np->thread_memo_slot1 = 0;
        np->nseqs = 0;
        gcev_idmap_clear(&np->seq_ids);
        np->last_seq_index = UINT32_MAX;
    }
}

static int skip_utf8(np_cur *c)
{
    uint32_t len;
    return np_varu32(c, &len) && np_skip(c, len);
}

gcev_status gcev_np_thread_block(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    while (c->pos < c->n) {
        uint64_t row_off = file_off + c->pos;
        uint16_t size;
        if (!np_u16(c, &size) || !np_has(c, size)) {
            return gcev_np_fail(err, GCEV_E_FORMAT, row_off, "thread row overruns its block");
        }
        np_cur r = {c->p + c->pos, size, 0};
        c->pos += size;
        uint64_t index;
        np_thread th = {0};
        if (!np_varu64(&r, &index)) {
            return gcev_np_fail(err, GCEV_E_FORMAT, row_off, "malformed thread row");
        }
        int ok = 1;
        while (ok && r.pos < r.n) {
            uint8_t kind;
            ok = np_u8(&r, &kind);
            if (!ok) {
                break;
            }
            if (kind == 1) {
                ok = skip_utf8(&r);
            } else if (kind == 2) {
                ok = np_varu64(&r, &th.os_pid);
                th.has_pid = 1;
            } else if (kind == 3) {
                ok = np_varu64(&r, &th.os_tid);
                th.has_tid = 1;
            } else if (kind == 4) {
                ok = skip_utf8(&r) && skip_utf8(&r);
            } else {
                break; /* unknown kind: its size is unknown, the rest of the row is skipped */
            }
        }
        if (!ok) {
            return gcev_np_fail(err, GCEV_E_FORMAT, row_off, "malformed thread row");
        }
        uint32_t i = gcev_idmap_get(&np->thread_ids, index);
        if (i == UINT32_MAX) {
            if (np->nthreads >= NP_MAX_THREADS) {
                return gcev_np_fail(err, GCEV_E_LIMIT, row_off,
                                    "more than 1048576 threads in the thread table");
            }
            if (!gcev_reserve((void **)&np->threads, &np->cap_threads, np->nthreads + 1,
                              sizeof *np->threads) ||
                !gcev_idmap_put(&np->thread_ids, index, (uint32_t)np->nthreads)) {
                return gcev_np_fail(err, GCEV_E_NOMEM, row_off, "out of memory");
            }
            i = (uint32_t)np->nthreads++;
        }
        np->threads[i] = th;
    }
    return GCEV_OK;
}

gcev_status gcev_np_remove_thread_block(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err)
{
    while (c->pos < c->n) {
        uint64_t index, seq;
        if (!np_varu64(c, &index) || !np_varu64(c, &seq) || seq > UINT32_MAX) {
            return gcev_np_fail(err, GCEV_E_FORMAT, file_off + c->pos, "malformed remove-thread block");
        }
        /* The final sequence number: a last chance to see dropped events. */
        gcev_status st = seq_observe(t, index, (uint32_t)seq, 0, file_off, 1, err);
        if (st != GCEV_OK) {
            return st;
        }
    }
    return GCEV_OK;
}

static int parse_label_list(np_cur *c, np_labels *l)
{
    for (;;) {
        uint8_t kind;
        if (!np_u8(c, &kind)) {
            return 0;
        }
        int ok;
        switch (kind & 0x7f) {
        case 1:
            ok = np_guid(c, &l->activity);
            l->has_activity = 1;
            break;
        case 2:
            ok = np_guid(c, &l->related);
            l->has_related = 1;
            break;
        case 3:
            ok = np_skip(c, 16);
            break;
        case 4:
            ok = np_skip(c, 8);
            break;
        case 5:
            ok = skip_utf8(c) && skip_utf8(c);
            break;
        case 6: {
            uint64_t v;
            ok = skip_utf8(c) && np_varu64(c, &v);
            break;
        }
        case 7:
            ok = np_u8(c, &l->opcode);
            l->has_opcode = 1;
            break;
        case 8:
            ok = np_u64(c, &l->keywords);
            l->has_keywords = 1;
            break;
        case 9:
            ok = np_u8(c, &l->level);
            l->has_level = 1;
            break;
        case 10:
            ok = np_u8(c, &l->version);
            l->has_version = 1;
            break;
        default:
            return 0; /* unknown label: its size is unknown, the list cannot be read */
        }
        if (!ok) {
            return 0;
        }
        if (kind & 0x80) {
            return 1;
        }
    }
}

gcev_status gcev_np_label_block(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    uint32_t first, count;
    if (!np_u32(c, &first) || !np_u32(c, &count) || count > c->n - c->pos) {
        return gcev_np_fail(err, GCEV_E_FORMAT, file_off + c->pos, "malformed label list block");
    }
    for (uint32_t i = 0; i < count; i++) {
        np_labels l;
        memset(&l, 0, sizeof l);
        if (!parse_label_list(c, &l)) {
            return gcev_np_fail(err, GCEV_E_FORMAT, file_off + c->pos, "malformed label list");
        }
        if (!gcev_reserve((void **)&np->labels, &np->cap_labels, np->nlabels + 1, sizeof l) ||
            !gcev_idmap_put(&np->label_ids, (uint64_t)first + i, (uint32_t)np->nlabels)) {
            return gcev_np_fail(err, GCEV_E_NOMEM, file_off, "out of memory");
        }
        np->labels[np->nlabels++] = l;
    }
    return GCEV_OK;
}

void gcev_np_event_free_all(gcev_nettrace *np)
{
    free(np->stack_bytes);
    free(np->stacks);
    free(np->labels);
    free(np->threads);
    free(np->seqs);
    gcev_idmap_free(&np->stack_ids);
    gcev_idmap_free(&np->label_ids);
    gcev_idmap_free(&np->thread_ids);
    gcev_idmap_free(&np->seq_ids);
}

/* ---- timestamp order without copies (see np_order) ---- */

int gcev_np_order_note(gcev_trace *t, const gcev_trace_event *ev, size_t rec_start, size_t rec_end,
                       const uint8_t *blk, size_t blk_len, uint64_t blk_off, int compressed)
{
    gcev_nettrace *np = t->impl;
    np_order *o = &np->ord;
    if (!compressed) {
        if (!gcev_reserve((void **)&o->entries, &o->cap_entries, o->nentries + 1, sizeof *o->entries)) {
            return 0;
        }
        o->entries[o->nentries].ts = ev->timestamp;
        o->entries[o->nentries].pos = blk_off + rec_start;
        o->nentries++;
        return 1;
    }
    if (o->nruns) {
        np_run *r = &o->runs[o->nruns - 1];
        if (r->blk == blk && r->end == rec_start && r->capture == ev->capture_thread_id &&
            ev->timestamp >= r->last_ts) {
            r->end = rec_end;
            r->last_ts = ev->timestamp;
            return 1;
        }
    }
    if (!gcev_reserve((void **)&o->runs, &o->cap_runs, o->nruns + 1, sizeof *o->runs)) {
        return 0;
    }
    np_run *r = &o->runs[o->nruns++];
    memset(r, 0, sizeof *r);
    r->blk = blk;
    r->blk_len = blk_len;
    r->blk_off = blk_off;
    r->cur = rec_start;
    r->pos = rec_end;
    r->end = rec_end;
    r->ts = r->last_ts = ev->timestamp;
    r->capture = ev->capture_thread_id;
    r->hdr = np->prev; /* the header of the record just read */
    return 1;
}

gcev_status gcev_np_entry_take(gcev_trace *t, const np_entry *e, gcev_trace_event *ev, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    /* the record lies inside the input, which stays mapped: the first pass read it there */
    np_cur c = {t->src.base, (size_t)t->src.size, (size_t)e->pos};
    np_hdr h;
    memset(&h, 0, sizeof h);
    int ok =
        e->pos < t->src.size && (np->version <= 3 ? hdr_v3(&c, &h) : hdr_uncompressed(&c, np->version, &h));
    if (!ok) {
        return gcev_np_fail(err, GCEV_E_FORMAT, e->pos, ev_trunc);
    }
    return fill_event_observe(t, np, gcev_np_meta_find(np, h.meta_id), &h, e->pos, ev, err, 0);
}

gcev_status gcev_np_run_take(gcev_trace *t, np_run *r, gcev_trace_event *ev, int *more, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    *more = 0;
    gcev_status st = fill_event_observe(t, np, gcev_np_meta_find(np, r->hdr.meta_id), &r->hdr,
                                        r->blk_off + r->cur, ev, err, 0);
    if (st != GCEV_OK || r->pos >= r->end) {
        return st;
    }
    /* the next record of the run, parsed with the current one's header as its delta state */
    r->cur = r->pos;
    np_hdr saved = np->prev;
    const np_meta *saved_meta = np->cur_meta;
    np->prev = r->hdr;
    np_cur c = {r->blk, r->blk_len, r->cur};
    int ok = hdr_compressed(&c, np);
    r->hdr = np->prev;
    r->pos = c.pos;
    np->prev = saved;
    np->cur_meta = saved_meta;
    if (!ok) {
        return gcev_np_fail(err, GCEV_E_FORMAT, r->blk_off + r->cur, ev_trunc);
    }
    r->ts = (int64_t)r->hdr.ts;
    *more = 1;
    return GCEV_OK;
}
