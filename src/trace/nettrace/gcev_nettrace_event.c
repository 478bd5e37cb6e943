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

#include <stdlib.h>
#include <string.h>

typedef struct np_hdr {
    uint32_t meta_id, seq, proc, stack_id, label_id, payload_size;
    uint64_t tid, capture, ts;
    gcev_guid act, rel;
    const uint8_t *payload;
    const uint8_t *stack; /* V1-V3 inline stack */
    uint32_t stack_size;
} np_hdr;

static const char ev_trunc[] = "event record overruns its block";

/* Fixed NetPerf header: EventSize covers the rest, stack and alignment padding included. */
static int hdr_v3(np_cur *c, np_hdr *h)
{
    uint32_t size;
    if (!np_u32(c, &size) || size < 52 || !np_has(c, size)) {
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
    h->meta_id &= 0x7fffffffu; /* high bit: IsSorted */
    h->payload = e.p + e.pos;
    return 1;
}

static int hdr_compressed(np_cur *c, gcev_nettrace *np, np_hdr *h)
{
    uint8_t flags;
    uint64_t d;
    uint32_t d32;
    if (!np_u8(c, &flags)) {
        return 0;
    }
    if ((flags & 1) && !np_varu32(c, &np->prev.meta_id)) {
        return 0;
    }
    if (flags & 2) {
        if (!np_varu32(c, &d32) || !np_varu64(c, &np->prev.capture) || !np_varu32(c, &np->prev.proc)) {
            return 0;
        }
        np->prev.seq += d32; /* unsigned: wraps modulo 2^32 */
    }
    if (np->version >= 6 || np->prev.meta_id != 0) {
        np->prev.seq++;
    }
    if ((flags & 4) && !np_varu64(c, &np->prev.tid)) {
        return 0;
    }
    if ((flags & 8) && !np_varu32(c, &np->prev.stack_id)) {
        return 0;
    }
    if (!np_varu64(c, &d)) {
        return 0;
    }
    np->prev.ts += d; /* unsigned: wraps modulo 2^64 */
    if (np->version >= 6) {
        if ((flags & 16) && !np_varu32(c, &np->prev.label_id)) {
            return 0;
        }
    } else {
        if ((flags & 16) && !np_guid(c, &np->prev.act)) {
            return 0;
        }
        if ((flags & 32) && !np_guid(c, &np->prev.rel)) {
            return 0;
        }
    }
    if ((flags & 128) && !np_varu32(c, &np->prev.payload_size)) {
        return 0;
    }
    if (!np_has(c, np->prev.payload_size)) {
        return 0;
    }
    h->meta_id = np->prev.meta_id;
    h->seq = np->prev.seq;
    h->proc = np->prev.proc;
    h->stack_id = np->prev.stack_id;
    h->label_id = np->prev.label_id;
    h->payload_size = np->prev.payload_size;
    h->tid = np->prev.tid;
    h->capture = np->prev.capture;
    h->ts = np->prev.ts;
    h->act = np->prev.act;
    h->rel = np->prev.rel;
    h->payload = c->p + c->pos;
    c->pos += np->prev.payload_size;
    return 1;
}

/* ---- sequence numbers ---- */

static void seq_drop(gcev_trace *t, uint64_t capture, uint32_t expected, uint32_t seen, uint32_t dropped,
                     int64_t ts, uint64_t off)
{
    gcev_trace_drop d = {capture, expected, seen, dropped, ts, off};
    gcev_trace_note_drop(t, &d);
}

/* Returns 0 when out of memory. */
static int seq_observe(gcev_trace *t, uint64_t capture, uint32_t seq, int64_t ts, uint64_t off,
                       int from_sequence_point)
{
    gcev_nettrace *np = t->impl;
    uint32_t i;
    if (np->last_seq_index != UINT32_MAX && np->last_seq_capture == capture) {
        i = np->last_seq_index;
    } else {
        i = gcev_idmap_get(&np->seq_ids, capture);
    }
    if (i == UINT32_MAX) {
        if (!gcev_reserve((void **)&np->seqs, &np->cap_seqs, np->nseqs + 1, sizeof *np->seqs) ||
            !gcev_idmap_put(&np->seq_ids, capture, (uint32_t)np->nseqs)) {
            return 0;
        }
        np->seqs[np->nseqs].capture = capture;
        np->seqs[np->nseqs].last = seq;
        np->nseqs++;
        return 1;
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
        return 1;
    }
    uint32_t expected = s->last + 1;
    uint32_t gap = seq - expected;
    /* seq 1 again: the OS reused the thread id for a new thread. */
    if (gap != 0 && seq != 1 && gap < 0x80000000u) {
        seq_drop(t, capture, expected, seq, gap, ts, off);
    }
    s->last = seq;
    return 1;
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

static const np_thread *thread_find(const gcev_nettrace *np, uint64_t index)
{
    uint32_t i = gcev_idmap_get(&np->thread_ids, index);
    return i == UINT32_MAX ? NULL : &np->threads[i];
}

static gcev_status fill_event(gcev_trace *t, const np_hdr *h, uint64_t off, gcev_trace_event *ev,
                              gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    const np_meta *m = gcev_np_meta_find(np, h->meta_id);
    if (!m) {
        return gcev_np_fail(err, GCEV_E_FORMAT, off, "event refers to undefined metadata");
    }
    ev->provider_name = m->provider_name;
    ev->provider_guid = m->provider_guid;
    ev->has_provider_guid = m->has_provider_guid;
    ev->provider = m->provider;
    ev->event_id = m->event_id;
    ev->version = m->version;
    ev->event_name = m->event_name;
    ev->opcode = m->opcode;
    ev->has_opcode = m->has_opcode;
    ev->level = m->level;
    ev->has_level = m->has_level;
    ev->keywords = m->keywords;
    ev->process_id = t->info.process_id;
    ev->thread_id = h->tid;
    ev->capture_thread_id = h->capture;
    ev->processor = np->version >= 4 ? h->proc : UINT32_MAX;
    ev->sequence = np->version >= 4 ? h->seq : 0;
    ev->timestamp = (int64_t)h->ts;
    ev->pointer_size = t->info.pointer_size;
    ev->payload = h->payload_size ? h->payload : NULL;
    ev->payload_size = h->payload_size;
    ev->nfields = m->nfields;
    ev->fields = m->fields;
    ev->field_type_system = GCEV_FIELD_TYPES_EVENTPIPE;
    ev->file_offset = off;
    ev->stack = NULL;
    ev->stack_size = 0;
    ev->ms = 0.0;
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
        const np_thread *ct = thread_find(np, h->capture);
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
        static const gcev_guid zero;
        ev->activity_id = h->act;
        ev->related_activity_id = h->rel;
        ev->has_activity_id = memcmp(&h->act, &zero, sizeof zero) != 0;
        ev->has_related_activity_id = memcmp(&h->rel, &zero, sizeof zero) != 0;
    }
    if (np->version <= 3) {
        ev->stack = h->stack;
        ev->stack_size = h->stack ? h->stack_size : 0;
    } else if (h->stack_id) {
        uint32_t k = h->stack_id - np->run_first, i;
        if (k < np->run_count) {
            i = (uint32_t)(np->run_base + k);
        } else {
            i = gcev_idmap_get(&np->stack_ids, h->stack_id);
        }
        if (i != UINT32_MAX && np->stacks[i].len) {
            ev->stack = np->stack_bytes + np->stacks[i].off;
            ev->stack_size = np->stacks[i].len;
        }
    }
    if (np->version >= 4 && !seq_observe(t, h->capture, h->seq, (int64_t)h->ts, off, 0)) {
        return gcev_np_fail(err, GCEV_E_NOMEM, off, "out of memory");
    }
    return GCEV_OK;
}

gcev_status gcev_np_event_v3(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_trace_event *ev, int *is_event,
                             gcev_error *err)
{
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
    *is_event = 1;
    return fill_event(t, &h, off, ev, err);
}

gcev_status gcev_np_block_next(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
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
        if (np->compressed) { /* sets every field but the V1-V3 inline stack */
            h.stack = NULL;
            h.stack_size = 0;
            ok = hdr_compressed(&c, np, &h);
        } else {
            memset(&h, 0, sizeof h);
            ok = hdr_uncompressed(&c, np->version, &h);
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
        return fill_event(t, &h, off, ev, err);
    }
    return GCEV_END;
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
    np->run_count = 0; /* valid again once the whole block is read */
    size_t base = np->nstacks;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t size;
        if (!np_u32(c, &size) || !np_has(c, size)) {
            return gcev_np_fail(err, GCEV_E_FORMAT, file_off + c->pos, "stack overruns its block");
        }
        if (!gcev_reserve((void **)&np->stack_bytes, &np->stack_cap, np->stack_used + size, 1) ||
            !gcev_reserve((void **)&np->stacks, &np->cap_stacks, np->nstacks + 1, sizeof *np->stacks) ||
            !gcev_idmap_put(&np->stack_ids, (uint64_t)first + i, (uint32_t)np->nstacks)) {
            return gcev_np_fail(err, GCEV_E_NOMEM, file_off, "out of memory");
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
    /* the map's keys are first + i without wrapping: a run past 2^32 - 1 stays in the map */
    if (count && (uint64_t)first + count <= UINT32_MAX) {
        np->run_first = first;
        np->run_count = count;
        np->run_base = base;
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
        if (ok && !seq_observe(t, cap, seq, (int64_t)ts, file_off, 1)) {
            return gcev_np_fail(err, GCEV_E_NOMEM, file_off, "out of memory");
        }
    }
    if (!ok) {
        return gcev_np_fail(err, GCEV_E_FORMAT, file_off + c->pos, "malformed sequence point block");
    }
    stacks_clear(np);
    if (flags & 1) {
        np->nthreads = 0;
        gcev_idmap_clear(&np->thread_ids);
        np->nseqs = 0;
        gcev_idmap_clear(&np->seq_ids);
        np->last_seq_index = UINT32_MAX;
    }
    gcev_trace_sequence_point(t);
    return GCEV_OK;
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
        if (!seq_observe(t, index, (uint32_t)seq, 0, file_off, 1)) {
            return gcev_np_fail(err, GCEV_E_NOMEM, file_off, "out of memory");
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
