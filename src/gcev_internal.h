/* SPDX-License-Identifier: MIT */
/* Private declarations shared by the engine's source files. */
#ifndef GCEV_INTERNAL_H
#define GCEV_INTERNAL_H

#include <gcev/gcev.h>

/* ---- errors ---- */
/* Fills *err (when non-NULL) and returns code: every layer reports faults this way. */
static inline gcev_status gcev_error_set(gcev_error *err, gcev_status code, uint64_t offset,
                                         const char *field, const char *message)
{
    if (err) {
        err->code = code;
        err->offset = offset;
        err->field = field;
        err->message = message ? message : gcev_status_str(code);
    }
    return code;
}

/* ---- text (gcev_text.c) ---- */
/* Next code point of s at byte index *i (< s.nbytes - 1); U+FFFD for bad surrogates. */
uint32_t gcev_utf16_next(gcev_utf16 s, uint32_t *i);
size_t gcev_utf8_encode(uint32_t cp, char out[4]);

/* ---- quirks (gcev_quirks.c) ---- */
/* 1 when the struct arrays of this event use C-aligned elements on the wire. */
int gcev_quirk_aligned_elements(const gcev_event_desc *desc);

/* ---- decode engine (gcev_decode.c) ---- */
/* Bytes a scalar of this type takes on the wire; 0 for variable-size types. */
unsigned gcev_wire_size(gcev_type t, unsigned pointer_size);
/* Element layout: natural alignment of a scalar in an aligned element. */
unsigned gcev_wire_align(gcev_type t, unsigned pointer_size);
/* Fixed stride of a struct element (0 when its size varies). */
uint32_t gcev_elem_stride(const gcev_template *elem, unsigned pointer_size, int aligned);
enum {
    GCEV_DF_SELF_ALIGNED = 1,  /* this template's fields are C-aligned (an element) */
    GCEV_DF_ELEMS_ALIGNED = 2  /* its struct arrays' elements are C-aligned (quirk) */
};
/*
 * Decodes the fields of t from data[*pos, size) into out (a struct whose first
 * member is the uint64_t present mask), or only measures when out is NULL.
 */
gcev_status gcev_decode_fields(const gcev_template *t, unsigned pointer_size, unsigned flags,
                               const uint8_t *data, uint32_t size, uint32_t *pos, uint8_t *out,
                               gcev_error *err);

/* ---- snprintf-style output (gcev_format.c) ---- */
typedef struct gcev_out {
    char *buf;
    size_t cap;
    size_t len; /* may exceed cap: what the full text needs */
} gcev_out;
void gcev_out_put(gcev_out *o, const char *s, size_t n);
void gcev_out_str(gcev_out *o, const char *s);
void gcev_out_fmt(gcev_out *o, const char *fmt, ...);
size_t gcev_out_finish(gcev_out *o);
/* JSON string literal of UTF-16 / raw bytes (bytes as Latin-1). */
void gcev_out_json_utf16(gcev_out *o, gcev_utf16 s);
void gcev_out_json_ascii(gcev_out *o, const uint8_t *s, size_t n);
/* JSON string literal of UTF-8 bytes; each malformed byte becomes U+FFFD. */
void gcev_out_json_utf8(gcev_out *o, const uint8_t *s, size_t n);

/* ---- TDH (TraceLogging) payloads as JSON (gcev_tdh_json.c) ---- */
/* gcev_trace_format_fields_json() for ev->field_type_system == GCEV_FIELD_TYPES_TDH. */
size_t gcev_tdh_format_fields_json(const gcev_trace_event *ev, char *buf, size_t n);

#endif
