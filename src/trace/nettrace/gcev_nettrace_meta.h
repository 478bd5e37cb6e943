/* SPDX-License-Identifier: MIT */
/* EventPipe metadata records (V1-V5 event payloads, V6 metadata blocks) into field trees. */
#ifndef GCEV_NETTRACE_META_H
#define GCEV_NETTRACE_META_H

#include "gcev_nettrace_state.h"

/* Parses a V1-V5 metadata payload (an event blob's payload); `meta_offset` is
 * the V1/V2 metadata id (file offset of the record), else ignored. */
gcev_status gcev_np_meta_v5(gcev_trace *t, const uint8_t *p, size_t n, uint64_t file_off,
                            uint64_t meta_offset, gcev_error *err);
/* Parses a V6 metadata block. */
gcev_status gcev_np_meta_block_v6(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err);
/* Caches the last hit (metadata records are never freed before the trace). */
const np_meta *gcev_np_meta_find(gcev_nettrace *np, uint64_t id);
/* A V6 sequence point's metadata flush: every id is undefined until a record defines
 * it again. The records stay (views and ev->kind of earlier events, also those still
 * buffered for time order, point at them) and are reused by a record that defines the
 * same event again, so repeated flushes and redefinitions do not add records. */
void gcev_np_meta_flush(gcev_nettrace *np);
void gcev_np_meta_free_all(gcev_nettrace *np);

#endif
