/* SPDX-License-Identifier: MIT */
/*
 * State of the EventPipe reader (.netperf V1-V3, .nettrace V4-V6), shared by its
 * three units: gcev_nettrace.c frames objects/blocks, gcev_nettrace_event.c
 * decodes event headers, stacks, label lists and sequence numbers, and
 * gcev_nettrace_meta.c parses metadata records into field trees. Header only:
 * the bounded block cursor and the data the units share, no functions of theirs.
 */
#ifndef GCEV_NETTRACE_STATE_H
#define GCEV_NETTRACE_STATE_H

#include "gcev_error.h"
#include "gcev_idmap.h"
#include "gcev_read.h"
#include "gcev_trace_core.h"
#include "gcev_vec.h"

static inline gcev_status gcev_np_fail(gcev_error *err, gcev_status code, uint64_t offset, const char *msg)
{
    return gcev_error_set(err, code, offset, NULL, msg);
}

/* Distinct capture threads (sequence numbers) and V6 thread rows a reader keeps at most: the
 * file names them, so without a bound a small file could make the tables as large as it
 * likes. A real process seldom has more than a few thousand threads in a trace. */
enum { NP_MAX_THREADS = 1u << 20 };

/* ---- bounded cursor over one block (offsets relative to the block) ---- */

typedef struct np_cur {
    const uint8_t *p;
    size_t n;
    size_t pos;
} np_cur;

static inline int np_has(const np_cur *c, size_t k)
{
    return c->n - c->pos >= k;
}

static inline int np_u8(np_cur *c, uint8_t *v)
{
    if (!np_has(c, 1)) {
        return 0;
    }
    *v = c->p[c->pos++];
    return 1;
}

static inline int np_u16(np_cur *c, uint16_t *v)
{
    if (!np_has(c, 2)) {
        return 0;
    }
    *v = gcev_rd_u16le(c->p + c->pos);
    c->pos += 2;
    return 1;
}

static inline int np_u32(np_cur *c, uint32_t *v)
{
    if (!np_has(c, 4)) {
        return 0;
    }
    *v = gcev_rd_u32le(c->p + c->pos);
    c->pos += 4;
    return 1;
}

static inline int np_u64(np_cur *c, uint64_t *v)
{
    if (!np_has(c, 8)) {
        return 0;
    }
    *v = gcev_rd_u64le(c->p + c->pos);
    c->pos += 8;
    return 1;
}

static inline int np_guid(np_cur *c, gcev_guid *g)
{
    if (!np_has(c, 16)) {
        return 0;
    }
    *g = gcev_guid_load(c->p + c->pos);
    c->pos += 16;
    return 1;
}

static inline int np_skip(np_cur *c, size_t k)
{
    if (!np_has(c, k)) {
        return 0;
    }
    c->pos += k;
    return 1;
}

/* LEB128 as EventPipe writes it: at most 10 bytes; bits past 64 are a format error. */
static inline int np_varu64(np_cur *c, uint64_t *v)
{
    if (c->n - c->pos >= 10) { /* fast path: no per-byte bounds check */
        const uint8_t *p = c->p + c->pos;
        uint64_t r = 0;
        for (unsigned i = 0; i < 10; i++) {
            uint8_t b = p[i];
            if (i == 9 && (b & 0x7e)) {
                return 0;
            }
            r |= (uint64_t)(b & 0x7f) << (7 * i);
            if (!(b & 0x80)) {
                c->pos += i + 1;
                *v = r;
                return 1;
            }
        }
        return 0;
    }
    uint64_t r = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        uint8_t b;
        if (!np_u8(c, &b)) {
            return 0;
        }
        if (shift == 63 && (b & 0x7e)) {
            return 0;
        }
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return 1;
        }
    }
    return 0;
}

static inline int np_varu32(np_cur *c, uint32_t *v)
{
    uint64_t x;
    if (!np_varu64(c, &x) || x > UINT32_MAX) {
        return 0;
    }
    *v = (uint32_t)x;
    return 1;
}

/* ---- event headers ---- */

/* One event header, whatever its layout; the compressed layout's delta state is one too. */
typedef struct np_hdr {
    uint32_t meta_id, seq, proc, stack_id, label_id, payload_size;
    uint64_t tid, capture, ts;
    gcev_guid act, rel;
    const uint8_t *payload;
    const uint8_t *stack; /* V1-V3 inline stack */
    uint32_t stack_size;
    uint8_t has_act, has_rel; /* V4/V5: act / rel are not all zero */
    uint8_t sorted;           /* uncompressed V4/V5: the IsSorted bit of the metadata id */
} np_hdr;

/* ---- metadata ---- */

typedef struct np_meta {
    uint64_t id;
    char *provider_name; /* UTF-8, never NULL */
    gcev_guid provider_guid;
    uint8_t has_provider_guid;
    const gcev_provider *provider;
    uint16_t event_id;
    uint16_t version;
    char *event_name; /* UTF-8, never NULL */
    uint64_t keywords;
    uint8_t opcode, level, has_opcode, has_level;
    uint32_t nfields;
    gcev_trace_field *fields;
    /* The event members this record gives, provider_name .. keywords, ready to be
     * copied into every event that refers to it (see fill_event) */
    gcev_trace_event image;
    /* The first 16 bytes of a lean record of its events (struct_size = this release's size,
     * event id, version, provider), so that the lean batch copies them as one block */
    unsigned char lean_head[16];
    /* V6 metadata flush: what the record defines, hashed, and the next record released
     * by a flush with the same hash (index in metas, UINT32_MAX: none) */
    uint64_t hash;
    uint32_t same_hash;
    /* V1-V5: its id was defined again (damage): events naming the id find no metadata */
    uint8_t poisoned;
    /* gcev_trace_set_filter: whether the filter keeps its events (filter_pass), valid while
     * filter_gen equals the trace's (a V6 label list that overrides version, level or
     * keywords is judged per event instead) */
    uint8_t filter_pass;
    uint32_t filter_gen;
} np_meta;

/* ---- V6 label lists (only what the event record exposes) ---- */

typedef struct np_labels {
    gcev_guid activity, related;
    uint64_t keywords;
    uint8_t has_activity, has_related, has_keywords;
    uint8_t has_opcode, opcode, has_level, level, has_version, version;
} np_labels;

typedef struct np_thread { /* V6 thread table row */
    uint64_t os_tid, os_pid;
    uint8_t has_tid, has_pid;
} np_thread;

typedef struct np_seq { /* per capture thread */
    uint64_t capture;
    uint32_t last;
} np_seq;

/* ---- timestamp order without copies (NetPerf V1-V3, NetTrace V4/V5, file or memory) ---- */

/*
 * Between two sequence points (V1-V3: in the whole trace) the reader keeps, per
 * event, only what finds the event again in the mapped input, and merges by
 * (timestamp, file offset) once the segment has been read; each event is read
 * again from the input when it is its turn: no event is copied.
 *  - A record that can be read on its own (V1-V3, uncompressed V4/V5 headers) is an
 *    entry of 16 bytes: its timestamp and file offset; the entries are sorted.
 *  - A compressed header depends on the previous one, so compressed blocks are cut
 *    into runs: records of one capture thread that follow each other with
 *    timestamps that never go back (the runtime writes a thread's events together,
 *    so a run is long); a run keeps the header of its current record, which is the
 *    delta state of its next one.
 */
typedef struct np_entry {
    int64_t ts;
    uint64_t pos; /* file offset of the record */
} np_entry;

typedef struct np_run {
    const uint8_t *blk; /* the block's bytes, in the mapping */
    size_t blk_len;
    uint64_t blk_off; /* file offset of blk[0] */
    size_t cur;       /* start of the current record */
    size_t pos;       /* start of the record after it */
    size_t end;       /* end of the run's last record */
    int64_t ts;       /* the current record's timestamp (the merge key, with its offset) */
    int64_t last_ts;  /* while reading: the newest record's, which the next must not precede */
    uint64_t capture;
    np_hdr hdr; /* the current record's header: the delta state of the next */
} np_run;

typedef struct np_order {
    np_entry *entries;
    size_t nentries, cap_entries, next_entry;
    np_run *runs;
    size_t nruns, cap_runs;
    uint32_t *heap; /* run indexes, and NP_ENTRIES for the sorted entries: a min-heap */
    size_t nheap, cap_heap;
    /* the sequence point that ended the segment: its tables are cleared once it is merged */
    int deferred_sp;
    uint32_t deferred_flags;
    /* the end or the fault that ended the segment, reported once it is merged */
    gcev_status final;
    gcev_error final_err;
} np_order;

#define NP_ENTRIES UINT32_MAX /* the heap element that stands for the sorted entries */

typedef struct gcev_nettrace {
    uint32_t version; /* 1..6 */
    int netperf;      /* FastSerialization without the Nettrace magic */
    int done;
    /* current block */
    const uint8_t *blk;
    size_t blk_len;
    size_t blk_pos;
    uint64_t blk_off;  /* file offset of blk[0] */
    int blk_is_events; /* 1 events, 2 metadata (V4/V5) */
    int compressed;
    /* V4-V6 event blocks: the [min, max] timestamp range the block header records; every
     * event must be inside it (INT64_MIN / INT64_MAX when the header has no range) */
    int64_t blk_min_ts, blk_max_ts;
    int need_end_tag; /* FastSerialization: EndObject after the block */
    int ordered;      /* timestamp order by runs (np_order) */
    int seg_end;      /* ordered: a sequence point ended the segment being read */
    np_order ord;
    uint64_t events_end; /* NetPerf V1/V2: end of the inline events */
    /* framing of the object/block read last, for keep-going (gcev_nettrace.c): where it
     * starts, where its body starts and how long its header says it is (has_len), and
     * whether the body was taken whole (has_body) */
    uint64_t obj_start, body_start, body_len;
    int has_len, has_body;
    /* keep-going: the block read last has no EndObject tag (V3-V5) or block header (V6) where
     * its size says and none was found inside that extent either: a fault in it is scanned
     * past from the fault, not from its recorded end */
    int blk_unconfirmed;
    /* keep-going: the rest of the current event block was found to read as valid events
     * (gcev_np_block_rest_valid), so a fault in it skips only its record */
    int blk_rest_ok;
    uint64_t rescanned; /* keep-going: bytes looked at twice (gcev_nettrace.c, rescan_charge) */
    /* compressed-header state: the previous header of the block, which the next one
     * changes by deltas; reset per block */
    np_hdr prev;
    /* gcev_np_block_next_lean: the metadata and file offset of the event it gave */
    /* the lean batch serves the current block (np->blk): a V4/V5 event block, a V3 block,
     * the V1/V2 inline stream */
    int lean_blk;
    const struct np_meta *lean_meta;
    uint64_t lean_off;
    /* the metadata of prev.meta_id, NULL until looked up (a new block, a new id or a
     * new metadata record resets it) */
    const struct np_meta *cur_meta;
    /* metadata */
    np_meta **metas;
    size_t nmetas, cap_metas;
    gcev_idmap meta_ids;
    /* metadata by id for the small ids V3-V6 use (ids below ndense; NULL: none), so the
     * walk finds a record with one load; larger ids (V1/V2 use file offsets) are in meta_ids */
    const struct np_meta **dense;
    size_t ndense;
    /* last looked-up metadata (consecutive events mostly share it); reset by meta_add */
    const np_meta *last_meta;
    uint64_t last_meta_id;
    /* V6: records a metadata flush released (their ids forgotten), by content hash, so
     * that defining one again reuses it; metas[0, nreleased) are in the map */
    gcev_idmap released;
    size_t nreleased;
    /* stacks since the last sequence point (copied: blocks are transient) */
    uint8_t *stack_bytes;
    size_t stack_used, stack_cap;
    struct np_stack {
        size_t off;
        uint32_t len;
    } * stacks;
    size_t nstacks, cap_stacks;
    gcev_idmap stack_ids;
    /* gcev_trace_options.no_stacks: stack blocks are checked, not kept; events get no stack */
    int no_stacks;
    /* ids [run_first, run_first + run_count) of the newest run of consecutive stack blocks sit
     * at stacks[run_base...], and are not in stack_ids (which holds the older stacks): most
     * events refer to the run, so they skip the map (gcev_np_stack_block) */
    uint32_t run_first, run_count;
    size_t run_base;
    /* V6 label lists since the last sequence point */
    np_labels *labels;
    size_t nlabels, cap_labels;
    gcev_idmap label_ids;
    /* V6 threads */
    np_thread *threads;
    size_t nthreads, cap_threads;
    gcev_idmap thread_ids;
    /* the last thread index looked up and its slot in threads + 1 (0 = none): most events
     * name the thread of the event before, which then skips the map's keyed hash */
    uint64_t thread_memo_index;
    uint32_t thread_memo_slot1;
    /* sequence numbers per capture thread */
    np_seq *seqs;
    size_t nseqs, cap_seqs;
    gcev_idmap seq_ids;
    /* GCEV_TRACE_ORDER_STREAM's watermark: the newest timestamp the writer marked as the
     * oldest still to come (an IsSorted event, a sequence point); has_sorted: one was seen */
    int64_t sorted_ts;
    int has_sorted;
    /* last capture thread seen (consecutive events mostly share it) */
    uint64_t last_seq_capture;
    uint32_t last_seq_index; /* UINT32_MAX = none */
} gcev_nettrace;

#endif
