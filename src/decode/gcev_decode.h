/* SPDX-License-Identifier: MIT */
/* The descriptor-driven decode engine, as the encoder and the field walk use it. */
#ifndef GCEV_DECODE_H
#define GCEV_DECODE_H

#include <gcev/gcev.h>

/* Bytes a scalar of this type takes on the wire; 0 for variable-size types. */
unsigned gcev_wire_size(gcev_type t, unsigned pointer_size);
/* Element layout: natural alignment of a scalar in an aligned element. */
unsigned gcev_wire_align(gcev_type t, unsigned pointer_size);
/* Fixed stride of a struct element (0 when its size varies). */
uint32_t gcev_elem_stride(const gcev_template *elem, unsigned pointer_size, int aligned);
enum {
    GCEV_DF_SELF_ALIGNED = 1, /* this template's fields are C-aligned (an element) */
    GCEV_DF_ELEMS_ALIGNED = 2 /* its struct arrays' elements are C-aligned (quirk) */
};
/*
 * Decodes the fields of t from data[*pos, size) into out (a struct whose first
 * member is the uint64_t present mask), or only measures when out is NULL.
 */
gcev_status gcev_decode_fields(const gcev_template *t, unsigned pointer_size, unsigned flags,
                               const uint8_t *data, uint32_t size, uint32_t *pos, uint8_t *out,
                               gcev_error *err);

/*
 * Decodes into the family struct out with the descriptor engine alone; arguments
 * already validated (gcev_decode_check_args). Absent members read as zero.
 */
gcev_status gcev_decode_into(const gcev_event_desc *desc, unsigned pointer_size, const uint8_t *data,
                             uint32_t size, uint8_t *out, uint32_t *consumed, gcev_error *err);
/* The argument checks of gcev_decode_desc(): GCEV_OK or the status it returns. */
gcev_status gcev_decode_check_args(const gcev_event_desc *desc, uint8_t pointer_size, const uint8_t *data,
                                   size_t size, const void *struct_out, gcev_error *err);
/*
 * gcev_decode_desc(), gcev_decode_family() and gcev_decode() with the descriptor
 * engine only, never a straight-line body: the typed decoders' fall-back, and what
 * the differential test (tests/decode/test_fastpath.c) holds the bodies against.
 */
gcev_status gcev_decode_engine(const gcev_event_desc *desc, uint8_t pointer_size, const uint8_t *data,
                               size_t size, void *struct_out, uint32_t *consumed, gcev_error *err);
gcev_status gcev_decode_engine_family(uint16_t family, uint16_t version, uint8_t pointer_size,
                                      const uint8_t *data, size_t size, void *out, uint32_t *consumed,
                                      gcev_error *err);
gcev_status gcev_decode_engine_event(const gcev_input *in, gcev_event *out, gcev_error *err);
/*
 * gcev_decode_engine_event() past its checks and look-up: in valid (provider, pointer
 * size 4 or 8, data for size, size < 4 GiB), desc the event's description from
 * gcev_desc_resolve(). gcev_decode() reaches the engine this way, having checked and
 * looked up already.
 */
gcev_status gcev_decode_engine_resolved(const gcev_event_desc *desc, const gcev_input *in, gcev_event *out,
                                        gcev_error *err);

#endif
