/* SPDX-License-Identifier: MIT */
/*
 * Decoding CTF types from packet bytes: a bit cursor over one packet, with
 * alignment, both byte orders, sequences and variants resolved through the
 * fields decoded before them. Only the top-level fields of a root (packet
 * header, packet context, event header, contexts, event fields) are kept, as
 * slots; nested integers are reported through an optional hook.
 */
#ifndef GCEV_CTF_DECODE_H
#define GCEV_CTF_DECODE_H

#include "gcev_ctf_meta.h"

typedef struct gcev_ctf_slot {
    uint64_t value; /* INT/ENUM: value (signed ones sign-extended); FLOAT: IEEE bits; SEQUENCE/ARRAY: count */
    uint64_t start; /* bit offset in the packet of the field (after its alignment) */
    uint64_t end;   /* bit offset just past it */
} gcev_ctf_slot;

/* The roots a path may name absolutely ("stream.event.header.id"). */
enum {
    GCEV_CTF_ROOT_PACKET_HEADER,
    GCEV_CTF_ROOT_PACKET_CONTEXT,
    GCEV_CTF_ROOT_EVENT_HEADER,
    GCEV_CTF_ROOT_STREAM_EVENT_CONTEXT,
    GCEV_CTF_ROOT_EVENT_CONTEXT,
    GCEV_CTF_ROOT_EVENT_FIELDS,
    GCEV_CTF_NROOTS
};

typedef struct gcev_ctf_cursor {
    const uint8_t *data; /* the packet */
    uint64_t pos;        /* bits from data */
    uint64_t end;        /* content end, bits */
    uint64_t avail;      /* bits actually present (< end when the file is cut) */
    uint8_t native_be;   /* the trace's byte order */
    uint64_t work;       /* decode steps left (hostile zero-size arrays) */
    /* called for every integer/enum decoded at any depth (may be NULL) */
    void (*on_int)(void *ctx, const char *name, const gcev_ctf_type *t, uint64_t v);
    void *ctx;
    /* completed roots, for absolute paths (NULL when not decoded) */
    const gcev_ctf_type *root_type[GCEV_CTF_NROOTS];
    const gcev_ctf_slot *root_slots[GCEV_CTF_NROOTS];
    int cur_root; /* the root being decoded */
    /* scratch for the slots of nested structs (grown on demand, freed by gcev_ctf_cursor_free) */
    gcev_ctf_slot *scratch;
    size_t scratch_cap;
    /* on failure: */
    uint64_t err_pos;    /* bit offset of the fault */
    const char *err_msg; /* static text */
} gcev_ctf_cursor;

/*
 * Decodes a STRUCT root at c->pos, filling slots[0 .. t->nfields). Fails with
 * GCEV_E_TRUNCATED_FILE when it needs bits past c->avail (the file is cut),
 * GCEV_E_FORMAT past c->end (or for a bad tag/length), GCEV_E_LIMIT when the
 * work budget runs out, GCEV_E_UNSUPPORTED for a path form it does not resolve;
 * c->err_pos / c->err_msg say where and why.
 */
gcev_status gcev_ctf_decode_root(gcev_ctf_cursor *c, int root, const gcev_ctf_type *t, gcev_ctf_slot *slots);
void gcev_ctf_cursor_free(gcev_ctf_cursor *c);

/* Raw bits at a bit offset (len 1..64) in the given order; the caller checks bounds. */
uint64_t gcev_ctf_read_bits(const uint8_t *data, uint64_t pos, uint32_t len, int big_endian);

/* Whether type t (INT/FLOAT/ENUM) is big-endian in a trace of the given order. */
static inline int gcev_ctf_is_be(const gcev_ctf_type *t, int native_be)
{
    return t->byte_order == GCEV_CTF_BO_NATIVE ? native_be : t->byte_order == GCEV_CTF_BO_BE;
}

/* The label of value v in an ENUM type, or NULL. */
const char *gcev_ctf_enum_label(const gcev_ctf_type *t, uint64_t v);

#endif
