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
void gcev_np_meta_free_all(gcev_nettrace *np);

#endif
