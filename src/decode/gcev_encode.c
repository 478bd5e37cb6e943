/* SPDX-License-Identifier: MIT */
/*
 * The inverse of the decoder: typed struct + template + pointer size -> payload
 * bytes in a caller buffer. Same templates, same field order, so a round trip
 * reproduces the original bytes exactly. For users who unit-test their handling
 * of schema versions, and for our own round-trip tests.
 */
#include <gcev/gcev.h>

#include <string.h>

#include "gcev_quirks.h"
#include "gcev_decode.h"
#include "gcev_read.h"
#include "gcev_schema_desc.h"

typedef struct enc {
    uint8_t *buf;
    size_t cap;
    size_t len; /* may exceed cap: bytes needed */
} enc;

static void put(enc *e, const void *p, size_t n)
{
    if (n > 0 && e->len < e->cap) { /* n == 0 may come with p == NULL (an empty view) */
        size_t room = e->cap - e->len;
        memcpy(e->buf + e->len, p, n < room ? n : room);
    }
    e->len += n;
}

static void put_uint(enc *e, uint64_t v, unsigned w)
{
    uint8_t tmp[8];
    gcev_wr_uint(tmp, v, w);
    put(e, tmp, w);
}

/* A field whose value cannot be written: code, the payload offset it would start at, its name. */
static gcev_status bad(gcev_error *err, gcev_status code, uint64_t offset, const char *field, const char *msg)
{
    if (err) {
        err->code = code;
        err->offset = offset;
        err->field = field;
        err->message = msg;
    }
    return code;
}

static uint64_t member_uint(const uint8_t *p, uint8_t store)
{
    switch (store) {
    case GCEV_S_U8:
    case GCEV_S_I8:
        return *p;
    case GCEV_S_U16:
    case GCEV_S_I16: {
        uint16_t x;
        memcpy(&x, p, 2);
        return x;
    }
    case GCEV_S_U32:
    case GCEV_S_I32:
    case GCEV_S_F32: {
        uint32_t x;
        memcpy(&x, p, 4);
        return x;
    }
    default: {
        uint64_t x;
        memcpy(&x, p, 8);
        return x;
    }
    }
}

/* The fields of t at the top level of a payload (no padding: struct-array elements,
 * aligned or not, are copied as their array view holds them). */
static gcev_status encode_fields(enc *e, const gcev_template *t, const uint8_t *base, unsigned ps,
                                 int elems_aligned, gcev_error *err)
{
    uint64_t vals[64];
    for (uint16_t i = 0; i < t->nfields; i++) {
        const gcev_field_desc *f = &t->fields[i];
        const uint8_t *p = base + f->offset;
        gcev_type type = (gcev_type)f->type;
        vals[i & 63] = 0;
        if (f->store == GCEV_S_ARRAY) {
            gcev_array a;
            memcpy(&a, p, sizeof a);
            uint64_t count = f->count_field >= 0 ? vals[f->count_field] : f->fixed_count;
            if (a.count != count) {
                return bad(err, GCEV_E_BAD_COUNT, e->len, f->name,
                           "array count differs from its count field");
            }
            uint32_t stride =
                f->elem ? gcev_elem_stride(f->elem, ps, elems_aligned) : gcev_wire_size(type, ps);
            if (count && stride && (uint64_t)a.size != count * stride) {
                return bad(err, GCEV_E_BAD_COUNT, e->len, f->name,
                           "array bytes do not match the target pointer size/layout");
            }
            if (a.size && !a.data) {
                return bad(err, GCEV_E_INVALID_ARG, e->len, f->name, "array view has no data");
            }
            put(e, a.data, a.size);
        } else if (type == GCEV_T_UNICODE_STRING || type == GCEV_T_ANSI_STRING || type == GCEV_T_BINARY) {
            const uint8_t *data;
            uint32_t n;
            if (type == GCEV_T_UNICODE_STRING) {
                gcev_utf16 s;
                memcpy(&s, p, sizeof s);
                data = s.data;
                n = s.nbytes;
            } else {
                gcev_bytes b;
                memcpy(&b, p, sizeof b);
                data = b.data;
                n = b.size;
            }
            if (n && !data) {
                return bad(err, GCEV_E_INVALID_ARG, e->len, f->name, "view has no data");
            }
            unsigned unit = type == GCEV_T_UNICODE_STRING ? 2 : 1;
            if (f->length_field >= 0) {
                if ((uint64_t)n != vals[f->length_field] * unit) {
                    return bad(err, GCEV_E_BAD_COUNT, e->len, f->name,
                               "length differs from its length field");
                }
                put(e, data, n);
            } else if (type == GCEV_T_BINARY) {
                if (n != f->fixed_count) {
                    return bad(err, GCEV_E_BAD_COUNT, e->len, f->name, "blob size differs from the template");
                }
                put(e, data, n);
            } else {
                put(e, data, n);
                put_uint(e, 0, unit); /* terminator */
            }
        } else {
            unsigned w = gcev_wire_size(type, ps);
            if (type == GCEV_T_GUID) {
                gcev_guid g;
                memcpy(&g, p, sizeof g);
                put_uint(e, g.data1, 4);
                put_uint(e, g.data2, 2);
                put_uint(e, g.data3, 2);
                put(e, g.data4, 8);
            } else if (type == GCEV_T_SYSTEMTIME) {
                gcev_bytes b;
                memcpy(&b, p, sizeof b);
                if (b.size != 16 || !b.data) {
                    return bad(err, GCEV_E_INVALID_ARG, e->len, f->name, "SYSTEMTIME needs 16 bytes");
                }
                put(e, b.data, 16);
            } else {
                uint64_t v = member_uint(p, f->store);
                if (w < 8 && f->store != GCEV_S_F32 && (v >> (8 * w)) != 0 &&
                    !(type <= GCEV_T_INT64 && (type % 2) == 0)) {
                    /* e.g. a V1 UInt32 value that cannot go into a V0 UInt16 */
                    return bad(err, GCEV_E_INVALID_ARG, e->len, f->name,
                               "value does not fit the field's width in this version");
                }
                vals[i & 63] = v & (w < 8 ? ((UINT64_C(1) << (8 * w)) - 1) : ~UINT64_C(0));
                put_uint(e, v, w);
            }
        }
    }
    return GCEV_OK;
}

gcev_status gcev_encode(const gcev_event *ev, uint8_t *buf, size_t cap, size_t *written, gcev_error *err)
{
    if (written) {
        *written = 0;
    }
    if (!ev || !ev->desc || (!buf && cap)) {
        return bad(err, GCEV_E_INVALID_ARG, 0, NULL, "no event or buffer");
    }
    if (ev->pointer_size != 4 && ev->pointer_size != 8) {
        return bad(err, GCEV_E_BAD_POINTER_SIZE, 0, NULL, gcev_status_str(GCEV_E_BAD_POINTER_SIZE));
    }
    enc e = {buf, cap, 0};
    if (ev->desc->tmpl) {
        int elems_aligned =
            (ev->desc->tmpl->flags & GCEV_TF_STRUCT_ARRAYS) && gcev_quirk_aligned_elements(ev->desc);
        gcev_status st =
            encode_fields(&e, ev->desc->tmpl, (const uint8_t *)&ev->u, ev->pointer_size, elems_aligned, err);
        if (st != GCEV_OK) {
            return st;
        }
    }
    if (written) {
        *written = e.len;
    }
    if (e.len > cap) {
        return bad(err, GCEV_E_NO_SPACE, cap, NULL, gcev_status_str(GCEV_E_NO_SPACE));
    }
    return GCEV_OK;
}
