/* SPDX-License-Identifier: MIT */
/* EventPipe event records, stacks, label lists, threads and sequence points. */
#ifndef GCEV_NETTRACE_EVENT_H
#define GCEV_NETTRACE_EVENT_H

#include "gcev_nettrace_state.h"

/* Next event of the current event block (metadata records are consumed
 * internally for V3-V5). GCEV_END when the block is exhausted. */
gcev_status gcev_np_block_next(gcev_trace *t, gcev_trace_event *ev, gcev_error *err);
/* gcev_trace_next_lean in a block np->lean_blk marks (a NetTrace V4/V5 event block, a NetPerf
 * V3 block, the V1/V2 inline stream): as gcev_np_block_next into a lean record; GCEV_END when
 * the block is exhausted (uncompressed headers: also before a record the per-event path must
 * read: a fault, inline metadata, a sequence gap). gcev_np_lean_fill then fills the full record
 * of that event. */
gcev_status gcev_np_block_next_lean(gcev_trace *t, gcev_trace_lean *ev, gcev_error *err);
void gcev_np_lean_fill(gcev_trace *t, gcev_trace_event *ev);
/* Up to cap lean records from the block (as gcev_np_block_next_lean each): stops at cap
 * (GCEV_OK), at the block's end (GCEV_END) or at a fault (uncompressed headers: before it,
 * GCEV_END);
 * *k records filled, each with evs[0].struct_size. */
gcev_status gcev_np_block_lean_batch(gcev_trace *t, gcev_trace_lean *evs, size_t cap, size_t *k,
                                     gcev_error *err);
/* Decodes one NetPerf V1/V2 inline event at c (whole blob), fills ev or consumes metadata. */
gcev_status gcev_np_event_v3(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_trace_event *ev, int *is_event,
                             gcev_error *err);
gcev_status gcev_np_stack_block(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err);
gcev_status gcev_np_sequence_point(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err);
gcev_status gcev_np_thread_block(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err);
gcev_status gcev_np_remove_thread_block(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err);
gcev_status gcev_np_label_block(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err);
void gcev_np_event_free_all(gcev_nettrace *np);

/* Ordered mode (np->ordered): notes the event the file-order reader just gave (ev;
 * the record is [rec_start, rec_end) of blk, which starts at file offset blk_off),
 * as an entry or in a run; 0 when out of memory. */
int gcev_np_order_note(gcev_trace *t, const gcev_trace_event *ev, size_t rec_start, size_t rec_end,
                       const uint8_t *blk, size_t blk_len, uint64_t blk_off, int compressed);
/* Reads the entry's record again into ev (no sequence check: the first pass did it). */
gcev_status gcev_np_entry_take(gcev_trace *t, const np_entry *e, gcev_trace_event *ev, gcev_error *err);
/* Reads the current record of run r again into ev, then moves r to its next record;
 * *more is 0 when r has no record left. */
gcev_status gcev_np_run_take(gcev_trace *t, np_run *r, gcev_trace_event *ev, int *more, gcev_error *err);
/* The sequence point's table clearing, which ordered mode defers until its segment is merged. */
void gcev_np_sequence_point_clear(gcev_nettrace *np, uint32_t flags);
/* Raises the GCEV_TRACE_ORDER_STREAM watermark to ts (an IsSorted event, a sequence point). */
void gcev_np_mark_sorted(gcev_nettrace *np, int64_t ts);
/* Keep-going: whether the records from the block's position to its end stand alone and all
 * read as valid events (gcev_nettrace_event.c); reads only. */
int gcev_np_block_rest_valid(gcev_nettrace *np);

#endif
