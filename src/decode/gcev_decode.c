/* SPDX-License-Identifier: MIT */
/*
 * The descriptor engine: walks a generated template over the payload and
 * stores each field into the typed struct at the offset the generator
 * recorded. It decodes what the generated straight-line bodies do not
 * (templates with elements of varying size: BulkType, GCBulkRootStaticVar)
 * and is their error path: a body that cannot
 * decode hands over to it, and it reports the field and offset. No
 * allocation, no global state; every read is checked as `size - pos < n` so
 * no sum can overflow.
 */
#include <gcev/gcev.h>

#include <string.h>

#include "gcev_decode.h"
#include "gcev_generated.h"
#include "gcev_error.h"
#include "gcev_quirks.h"
#include "gcev_read.h"
#include "gcev_schema_desc.h"

/* Wire size and element alignment by type and pointer size: GCEV_TYPE_LIST. */
static const uint8_t wire_sizes[GCEV_TYPE_COUNT_][2] = {
#define GCEV_WIRE_SIZE_(name, manifest_name, w4, w8, a4, a8) [GCEV_T_##name] = {w4, w8},
    GCEV_TYPE_LIST(GCEV_WIRE_SIZE_)
#undef GCEV_WIRE_SIZE_
};
static const uint8_t wire_aligns[GCEV_TYPE_COUNT_][2] = {
#define GCEV_WIRE_ALIGN_(name, manifest_name, w4, w8, a4, a8) [GCEV_T_##name] = {a4, a8},
    GCEV_TYPE_LIST(GCEV_WIRE_ALIGN_)
#undef GCEV_WIRE_ALIGN_
};

unsigned gcev_wire_size(gcev_type t, unsigned pointer_size)
{
    return (unsigned)t < GCEV_TYPE_COUNT_ ? wire_sizes[t][pointer_size == 8] : 0;
}

unsigned gcev_wire_align(gcev_type t, unsigned pointer_size)
{
    return (unsigned)t < GCEV_TYPE_COUNT_ ? wire_aligns[t][pointer_size == 8] : 1;
}

static int is_array(const gcev_field_desc *f)
{
    return f->store == GCEV_S_ARRAY;
}

/* Bytes of the C member by store kind, for the scalars one load and one store copy
 * (0 for the others: GUID, strings, blobs, arrays take the general path). */
static const uint8_t store_widths[GCEV_STORE_COUNT_] = {
    [GCEV_S_U8] = 1,  [GCEV_S_U16] = 2, [GCEV_S_U32] = 4, [GCEV_S_U64] = 8, [GCEV_S_I8] = 1,
    [GCEV_S_I16] = 2, [GCEV_S_I32] = 4, [GCEV_S_I64] = 8, [GCEV_S_F32] = 4, [GCEV_S_F64] = 8,
};

/*
 * The stride of a struct array's elements. A fixed element template of packed elements
 * has it already: gcev-gen writes the packed element size as its min_size, the sum
 * gcev_elem_stride() would count per event.
 */
static uint32_t elem_stride_of(const gcev_template *elem, unsigned ps, int aligned)
{
    if (!aligned && (elem->flags & GCEV_TF_FIXED)) {
        return elem->min_size[ps == 8];
    }
    return gcev_elem_stride(elem, ps, aligned);
}

uint32_t gcev_elem_stride(const gcev_template *elem, unsigned pointer_size, int aligned)
{
    uint32_t size = 0, max_align = 1;
    for (uint16_t i = 0; i < elem->nfields; i++) {
        const gcev_field_desc *f = &elem->fields[i];
        unsigned w = gcev_wire_size((gcev_type)f->type, pointer_size);
        if (w == 0 || is_array(f)) {
            return 0;
        }
        if (aligned) {
            unsigned a = gcev_wire_align((gcev_type)f->type, pointer_size);
            size = (size + a - 1) / a * a;
            max_align = a > max_align ? a : max_align;
        }
        size += w;
    }
    return aligned ? (size + max_align - 1) / max_align * max_align : size;
}

static gcev_status fail(gcev_error *err, gcev_status code, uint32_t pos, const char *field)
{
    return gcev_error_set(err, code, pos, field, NULL);
}

/* Stores v into the member of kind `store` at p (a struct member, so aligned). */
static void store_scalar(uint8_t *p, uint8_t store, uint64_t v)
{
    switch (store) {
    case GCEV_S_U8:
    case GCEV_S_I8: {
        uint8_t x = (uint8_t)v;
        memcpy(p, &x, 1);
        break;
    }
    case GCEV_S_U16:
    case GCEV_S_I16: {
        uint16_t x = (uint16_t)v;
        memcpy(p, &x, 2);
        break;
    }
    case GCEV_S_U32:
    case GCEV_S_I32:
    case GCEV_S_F32: {
        uint32_t x = (uint32_t)v;
        memcpy(p, &x, 4);
        break;
    }
    default: /* U64, I64, F64 */
        memcpy(p, &v, 8);
        break;
    }
}

/* Sign-extends a narrower signed wire value stored in a wider signed member. */
static uint64_t widen(gcev_type t, uint64_t v)
{
    switch (t) {
    case GCEV_T_INT8:
        return (uint64_t)(int64_t)(int8_t)(uint8_t)v;
    case GCEV_T_INT16:
        return (uint64_t)(int64_t)(int16_t)(uint16_t)v;
    case GCEV_T_INT32:
        return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
    default:
        return v;
    }
}

static void read_guid(const uint8_t *p, gcev_guid *g)
{
    *g = gcev_guid_load(p);
}

/*
 * The straight-line path for templates of fixed-size scalars when the payload is
 * long enough: no bounds check per field (one was done for the whole template).
 * On little-endian hosts a field is one small memcpy into its zeroed member
 * (a narrower wire value lands in the low bytes, which is exactly zero
 * extension); signed widening and big-endian hosts take the general store.
 */
static uint32_t decode_fixed(const gcev_template *t, unsigned ps, const uint8_t *p, uint8_t *out)
{
    const uint8_t *start = p;
    const unsigned psi = ps == 8;
    const gcev_field_desc *f = t->fields, *end = t->fields + t->nfields;
    for (; f < end; f++) {
        unsigned w = f->wire[psi];
        uint8_t *dst = out + f->offset;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        switch (w) {
        case 1:
            memcpy(dst, p, 1);
            p += 1;
            continue;
        case 2:
            memcpy(dst, p, 2);
            p += 2;
            continue;
        case 4:
            memcpy(dst, p, 4);
            p += 4;
            continue;
        case 8:
            memcpy(dst, p, 8);
            p += 8;
            continue;
        case 16:
            memcpy(dst, p, 16);
            p += 16;
            continue; /* GUID: wire layout = struct layout on LE */
        default:
            break;
        }
#endif
        w &= ~(unsigned)GCEV_WIRE_WIDEN_SIGNED;
        if (f->type == GCEV_T_GUID) {
            gcev_guid g;
            read_guid(p, &g);
            memcpy(dst, &g, sizeof g);
        } else {
            store_scalar(dst, f->store, widen((gcev_type)f->type, gcev_rd_uint(p, w)));
        }
        p += w;
    }
    memcpy(out, &t->all_present, sizeof t->all_present);
    return (uint32_t)(p - start);
}

gcev_status gcev_decode_fields(const gcev_template *t, unsigned ps, unsigned flags, const uint8_t *data,
                               uint32_t size, uint32_t *pos_io, uint8_t *out, gcev_error *err)
{
    const int aligned = (flags & GCEV_DF_SELF_ALIGNED) != 0;
    const int elems_aligned = (flags & GCEV_DF_ELEMS_ALIGNED) != 0;
    const unsigned elem_flags = elems_aligned ? GCEV_DF_SELF_ALIGNED | GCEV_DF_ELEMS_ALIGNED : 0;
    uint64_t vals[64]; /* integer values by field index, for count=/length= references */
    uint64_t present = 0;
    uint32_t pos = *pos_io;
    gcev_status st = GCEV_OK;

    const unsigned psi = ps == 8;
    for (uint16_t i = 0; i < t->nfields; i++) {
        const gcev_field_desc *f = &t->fields[i];
        uint8_t *dst = out ? out + f->offset : NULL;
        gcev_type type = (gcev_type)f->type;
        const unsigned fw = f->wire[psi];

        if (!aligned && fw && fw == store_widths[f->store]) {
            /* A packed scalar as wide on the wire as its member (no widening, which sets a
             * bit of fw above any width): one load and one store, what the general path
             * below does for it in more steps. Most fields of the variable-size templates
             * are these. */
            if (size - pos < fw) {
                st = fail(err, GCEV_E_TRUNCATED, pos, f->name);
                break;
            }
            const uint64_t v = gcev_rd_uint(data + pos, fw);
            vals[i & 63] = v;
            if (dst) {
                store_scalar(dst, f->store, v);
            }
            pos += fw;
            present |= UINT64_C(1) << f->present_bit;
            continue;
        }
        vals[i & 63] = 0;

        if (is_array(f)) {
            uint64_t count = f->count_field >= 0 ? vals[f->count_field] : f->fixed_count;
            gcev_array a;
            memset(&a, 0, sizeof a); /* padding too: decoded structs are byte-for-byte deterministic */
            a.data = data + pos;
            a.pointer_size = (uint8_t)ps;
            a.elem_type = f->type;
            if (f->elem) {
                a.elem = f->elem;
                a.aligned = (uint8_t)elems_aligned;
                a.stride = (uint16_t)elem_stride_of(f->elem, ps, elems_aligned);
            } else {
                a.stride = (uint16_t)gcev_wire_size(type, ps);
            }
            if (count > size - pos) {
                /* every element takes at least one byte: cannot fit */
                st = fail(err, GCEV_E_TRUNCATED, pos, f->name);
                break;
            }
            if (a.stride != 0) {
                uint64_t bytes = count * a.stride;
                if (size - pos < bytes) {
                    st = fail(err, GCEV_E_TRUNCATED, pos, f->name);
                    break;
                }
                a.size = (uint32_t)bytes;
            } else {
                /* elements of varying size: measure each one (work bounded by the payload) */
                uint32_t p = pos;
                for (uint64_t e = 0; e < count; e++) {
                    uint32_t before = p;
                    st = gcev_decode_fields(f->elem, ps, elem_flags, data, size, &p, NULL, err);
                    if (st != GCEV_OK) {
                        if (err) {
                            err->field = f->name;
                        }
                        break;
                    }
                    if (p == before) {
                        st = fail(err, GCEV_E_BAD_COUNT, pos, f->name);
                        break;
                    }
                }
                if (st != GCEV_OK) {
                    break;
                }
                a.size = p - pos;
            }
            a.count = (uint32_t)count;
            pos += a.size;
            if (dst) {
                memcpy(dst, &a, sizeof a);
            }
        } else if (type == GCEV_T_UNICODE_STRING || type == GCEV_T_ANSI_STRING || type == GCEV_T_BINARY) {
            uint32_t unit = type == GCEV_T_UNICODE_STRING ? 2 : 1;
            uint32_t n, skip;
            if (f->length_field >= 0) {
                uint64_t len = vals[f->length_field] * unit;
                if (size - pos < len) {
                    st = fail(err, GCEV_E_TRUNCATED, pos, f->name);
                    break;
                }
                n = (uint32_t)len;
                skip = n;
            } else if (type == GCEV_T_BINARY) {
                if (size - pos < f->fixed_count) {
                    st = fail(err, GCEV_E_TRUNCATED, pos, f->name);
                    break;
                }
                n = skip = f->fixed_count;
            } else {
                /* NUL-terminated: scan, never past the end */
                uint32_t j = pos;
                int found = 0;
                while (size - j >= unit) {
                    if (data[j] == 0 && (unit == 1 || data[j + 1] == 0)) {
                        found = 1;
                        break;
                    }
                    j += unit;
                }
                if (!found) {
                    st = fail(err, GCEV_E_UNTERMINATED_STRING, pos, f->name);
                    break;
                }
                n = j - pos;
                skip = n + unit;
            }
            if (dst) {
                if (type == GCEV_T_UNICODE_STRING) {
                    gcev_utf16 s;
                    memset(&s, 0, sizeof s); /* padding too */
                    s.data = data + pos;
                    s.nbytes = n;
                    memcpy(dst, &s, sizeof s);
                } else {
                    gcev_bytes b;
                    memset(&b, 0, sizeof b);
                    b.data = data + pos;
                    b.size = n;
                    memcpy(dst, &b, sizeof b);
                }
            }
            pos += skip;
        } else {
            unsigned w = gcev_wire_size(type, ps);
            if (aligned) {
                unsigned a = gcev_wire_align(type, ps);
                uint32_t pad = (a - (pos - *pos_io) % a) % a;
                if (size - pos < pad) {
                    st = fail(err, GCEV_E_TRUNCATED, pos, f->name);
                    break;
                }
                pos += pad;
            }
            if (size - pos < w) {
                st = fail(err, GCEV_E_TRUNCATED, pos, f->name);
                break;
            }
            const uint8_t *p = data + pos;
            if (type == GCEV_T_GUID) {
                if (dst) {
                    gcev_guid g;
                    read_guid(p, &g);
                    memcpy(dst, &g, sizeof g);
                }
            } else if (type == GCEV_T_SYSTEMTIME) {
                if (dst) {
                    gcev_bytes b;
                    memset(&b, 0, sizeof b);
                    b.data = p;
                    b.size = 16;
                    memcpy(dst, &b, sizeof b);
                }
            } else {
                uint64_t v = gcev_rd_uint(p, w);
                vals[i & 63] = v;
                if (dst) {
                    store_scalar(dst, f->store, widen(type, v));
                }
            }
            pos += w;
        }
        present |= UINT64_C(1) << f->present_bit;
    }
    if (aligned && st == GCEV_OK && t->nfields > 0) {
        /* an aligned element ends padded to its largest member */
        uint32_t stride = gcev_elem_stride(t, ps, 1);
        if (stride != 0) {
            uint32_t used = pos - *pos_io;
            if (used < stride && size - pos >= stride - used) {
                pos += stride - used;
            }
        }
    }
    if (out) {
        memcpy(out, &present, sizeof present);
    }
    *pos_io = pos;
    return st;
}

gcev_status gcev_decode_into(const gcev_event_desc *desc, unsigned ps, const uint8_t *data, uint32_t size,
                             uint8_t *out, uint32_t *consumed, gcev_error *err)
{
    const gcev_template *t = desc->tmpl;
    /* Absent members read as zero. A template that writes every member (usually
     * the newest version) skips the zeroing. */
    const int covered =
        t &&
        (t->flags & (GCEV_TF_FIXED | GCEV_TF_COVERS_STRUCT)) == (GCEV_TF_FIXED | GCEV_TF_COVERS_STRUCT) &&
        (ps == 8 || !(t->flags & GCEV_TF_POINTERS)) && size >= t->min_size[ps == 8];
    if (!covered) {
        memset(out, 0, gcev_gen_families[desc->family].struct_size);
    }
    uint16_t sv = desc->version;
    memcpy(out + sizeof(uint64_t), &sv, sizeof sv); /* schema_version follows present */
    if (!t) {
        *consumed = 0;
        return GCEV_OK;
    }
    if ((t->flags & GCEV_TF_FIXED) && size >= t->min_size[ps == 8]) {
        *consumed = decode_fixed(t, ps, data, out);
        return GCEV_OK;
    }
    unsigned flags =
        (t->flags & GCEV_TF_STRUCT_ARRAYS) && gcev_quirk_aligned_elements(desc) ? GCEV_DF_ELEMS_ALIGNED : 0;
    uint32_t pos = 0;
    gcev_status st =
        gcev_decode_fields(t, ps, flags, data ? data : (const uint8_t *)"", size, &pos, out, err);
    *consumed = pos;
    return st;
}

gcev_status gcev_decode_check_args(const gcev_event_desc *desc, uint8_t pointer_size, const uint8_t *data,
                                   size_t size, const void *struct_out, gcev_error *err)
{
    if (!desc || !struct_out || (!data && size)) {
        return fail(err, GCEV_E_INVALID_ARG, 0, NULL);
    }
    if (pointer_size != 4 && pointer_size != 8) {
        return fail(err, GCEV_E_BAD_POINTER_SIZE, 0, NULL);
    }
    if (size > UINT32_MAX - 1) {
        return fail(err, GCEV_E_LIMIT, 0, NULL);
    }
    return GCEV_OK;
}

gcev_status gcev_decode_engine(const gcev_event_desc *desc, uint8_t pointer_size, const uint8_t *data,
                               size_t size, void *struct_out, uint32_t *consumed, gcev_error *err)
{
    uint32_t used = 0;
    if (consumed) {
        *consumed = 0;
    }
    gcev_status st = gcev_decode_check_args(desc, pointer_size, data, size, struct_out, err);
    if (st != GCEV_OK) {
        return st;
    }
    st = gcev_decode_into(desc, pointer_size, data, (uint32_t)size, struct_out, &used, err);
    if (consumed) {
        *consumed = used;
    }
    return st;
}

gcev_status gcev_decode_engine_family(uint16_t family, uint16_t version, uint8_t pointer_size,
                                      const uint8_t *data, size_t size, void *out, uint32_t *consumed,
                                      gcev_error *err)
{
    const gcev_family_info *fam = gcev_family_get(family);
    if (!fam || !out) {
        return fail(err, GCEV_E_INVALID_ARG, 0, NULL);
    }
    gcev_status st;
    const gcev_event_desc *desc = gcev_desc_resolve(fam->provider, fam->id, version, &st);
    if (!desc) {
        return fail(err, st, 0, NULL);
    }
    return gcev_decode_engine(desc, pointer_size, data, size, out, consumed, err);
}

gcev_status gcev_decode_engine_event(const gcev_input *in, gcev_event *out, gcev_error *err)
{
    if (!in || !out) {
        return fail(err, GCEV_E_INVALID_ARG, 0, NULL);
    }
    out->desc = NULL;
    out->family = GCEV_FAMILY_NONE;
    out->consumed = out->trailing = 0;
    if (!in->provider) {
        return fail(err, GCEV_E_UNKNOWN_PROVIDER, 0, NULL);
    }
    if (in->pointer_size != 4 && in->pointer_size != 8) {
        return fail(err, GCEV_E_BAD_POINTER_SIZE, 0, NULL);
    }
    if ((!in->data && in->size) || in->size > UINT32_MAX - 1) {
        return fail(err, in->data ? GCEV_E_LIMIT : GCEV_E_INVALID_ARG, 0, NULL);
    }
    gcev_status st;
    const gcev_event_desc *desc = gcev_desc_resolve(in->provider, in->event_id, in->version, &st);
    if (!desc) {
        return fail(err, st, 0, NULL);
    }
    return gcev_decode_engine_resolved(desc, in, out, err);
}

gcev_status gcev_decode_engine_resolved(const gcev_event_desc *desc, const gcev_input *in, gcev_event *out,
                                        gcev_error *err)
{
    gcev_status st;
    out->desc = desc;
    out->family = desc->family;
    out->version = in->version;
    out->pointer_size = in->pointer_size;
    out->newer_version = in->version > desc->version;
    memset(out->reserved_, 0, sizeof out->reserved_); /* the room of later members reads 0 */
    const uint32_t size = (uint32_t)in->size;
    uint32_t consumed = 0;
    st = gcev_decode_into(desc, in->pointer_size, in->data, size, (uint8_t *)&out->u, &consumed, err);
    out->consumed = consumed;
    out->trailing = st == GCEV_OK ? size - consumed : 0;
    return st;
}

uint64_t gcev_array_u64_at(const gcev_array *a, uint32_t i)
{
    if (!a || i >= a->count || a->elem || a->stride == 0 || a->stride > 8) {
        return 0;
    }
    return gcev_rd_uint(a->data + (size_t)i * a->stride, a->stride);
}

gcev_status gcev_array_elem(const gcev_array *a, uint32_t i, void *elem_out, gcev_error *err)
{
    if (!a || !a->elem || !elem_out) {
        return fail(err, GCEV_E_INVALID_ARG, 0, NULL);
    }
    if (i >= a->count) {
        return fail(err, GCEV_E_INVALID_ARG, 0, NULL);
    }
    memset(elem_out, 0, a->elem->struct_size);
    const unsigned flags = a->aligned ? GCEV_DF_SELF_ALIGNED | GCEV_DF_ELEMS_ALIGNED : 0;
    uint32_t pos = 0;
    if (a->stride != 0) {
        pos = i * (uint32_t)a->stride;
    } else {
        /* varying element sizes: walk to element i (the array was validated whole) */
        for (uint32_t e = 0; e < i; e++) {
            gcev_status st =
                gcev_decode_fields(a->elem, a->pointer_size, flags, a->data, a->size, &pos, NULL, err);
            if (st != GCEV_OK) {
                return st;
            }
        }
    }
    return gcev_decode_fields(a->elem, a->pointer_size, flags, a->data, a->size, &pos, elem_out, err);
}

size_t gcev_array_elem_size(const gcev_array *a)
{
    return a && a->elem ? a->elem->struct_size : 0;
}
