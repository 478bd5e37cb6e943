/* SPDX-License-Identifier: MIT */
/* EventPipe event records, stacks, label lists, threads and sequence points. */
#ifndef GCEV_NETTRACE_EVENT_H
#define GCEV_NETTRACE_EVENT_H

#include "gcev_nettrace_state.h"

/* Next event of the current event block (metadata records are consumed
 * internally for V3-V5). GCEV_END when the block is exhausted. */
gcev_status gcev_np_block_next(gcev_trace *t, gcev_trace_event *ev, gcev_error *err);
/* Decodes one NetPerf V1/V2 inline event at c (whole blob), fills ev or consumes metadata. */
gcev_status gcev_np_event_v3(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_trace_event *ev, int *is_event,
                             gcev_error *err);
gcev_status gcev_np_stack_block(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err);
gcev_status gcev_np_sequence_point(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err);
gcev_status gcev_np_thread_block(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err);
gcev_status gcev_np_remove_thread_block(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err);
gcev_status gcev_np_label_block(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err);
void gcev_np_event_free_all(gcev_nettrace *np);

#endif
