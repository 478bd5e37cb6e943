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

#endif
