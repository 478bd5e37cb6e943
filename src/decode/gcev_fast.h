/* SPDX-License-Identifier: MIT */
/*
 * The generated straight-line decoders (gcev_events_decode.c, from gcev-gen): the
 * tables through which gcev_decode() and gcev_decode_desc() reach them.
 */
#ifndef GCEV_FAST_H
#define GCEV_FAST_H

#include <gcev/gcev.h>

/*
 * A straight-line body: decodes a payload of one template (fixed-size, or variable
 * with elements of a fixed size) into its family struct and returns 1 with *consumed
 * set, or returns 0 (payload too short for the template or a count in it, a string
 * without its terminator) and leaves everything to the engine. size < 4 GiB; data
 * may be NULL only when size is 0.
 */
typedef int (*gcev_fast_fn)(const uint8_t *data, uint32_t size, void *out, uint32_t *consumed);

/*
 * The same body for gcev_decode(): in->data/size checked (not NULL, < 4 GiB) and
 * ev->desc, family, version, pointer_size and newer_version set by the caller; it
 * sets ev's struct, consumed and trailing, or hands a payload it cannot decode to
 * gcev_decode_engine_event(in, ev, err).
 */
typedef gcev_status (*gcev_event_fn)(const gcev_input *in, gcev_event *ev, gcev_error *err);

/* A typed decoder gcev_decode_<family>() with its struct as void *. */
typedef gcev_status (*gcev_typed_fn)(const uint8_t *data, size_t size, uint16_t version, uint8_t pointer_size,
                                     void *out, uint32_t *consumed, gcev_error *err);

/* [gcev_event_desc.index][pointer_size == 8]: the event's body, NULL when the engine decodes it. */
extern const gcev_fast_fn gcev_gen_fast[][2];
extern const size_t gcev_gen_nfast; /* rows of gcev_gen_fast = event descriptions */
/* [gcev_event_desc.index][pointer_size == 8]: its gcev_decode() body, or NULL. */
extern const gcev_event_fn gcev_gen_fast_event[][2];
/* [gcev_family]: the family's typed decoder. */
extern const gcev_typed_fn gcev_gen_typed[];

#endif
