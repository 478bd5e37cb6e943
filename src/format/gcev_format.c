/* SPDX-License-Identifier: MIT */
/*
 * Generic access to decoded events without per-event code: a field iterator
 * over the typed struct (driven by the same templates as the decoder), and the
 * text and JSON formatters built on it. Formatting is a layer above decoding:
 * nothing here reads the payload except through the views the decoder made.
 */
#include <gcev/gcev.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gcev_compiler.h"
#include "gcev_out.h"
#include "gcev_decode.h"
#include "gcev_read.h"
#include "gcev_schema_desc.h"

/* ---- field iteration ---- */

/* The iterator's private members, named for what they hold. */
#define IT_TMPL(it) ((const gcev_template *)(it)->priv_tmpl_)
#define IT_BASE(it) ((const uint8_t *)(it)->priv_base_)
/* How gcev_field_next walks, in one word read once per field. */
#define IT_MODE(it) ((it)->priv_reserved_[0])
/* Fields to yield: those before the first one decoding did not reach (0 without a template). */
#define IT_LIMIT(it) ((it)->priv_reserved_[1])
enum {
    IT_WIRE8 = 1u << 0,     /* 8-byte pointers: the index of gcev_field_desc.wire to read */
    IT_ALIGNED = 1u << 1,   /* C-aligned struct elements (a runtime quirk) */
    IT_LAZY_NAMES = 1u << 2 /* GCEV_FIELD_LAZY_NAMES */
};

/* The fields of t an event with this present mask has, counted once per event rather than
 * tested per field: a fully decoded event (the usual case) has every bit of all_present;
 * after a payload fault the fields stop at the first one not present. */
static GCEV_ALWAYS_INLINE size_t present_fields(const gcev_template *t, uint64_t present)
{
    size_t n = 0;
    if (t->all_present && (present & t->all_present) == t->all_present) {
        return t->nfields;
    }
    while (n < t->nfields && (present & (UINT64_C(1) << t->fields[n].present_bit))) {
        n++;
    }
    return n;
}

/* Inlined into each caller: gcev_field_iter_init() runs once per event walked. */
static GCEV_ALWAYS_INLINE void iter_start(gcev_field_iter *it, const gcev_template *t, const void *base,
                                          uint8_t ps, uint8_t aligned)
{
    memset(it, 0, sizeof *it);
    it->priv_tmpl_ = t;
    it->priv_base_ = base;
    it->priv_pointer_size_ = ps;
    it->priv_aligned_ = aligned;
    if (base) {
        memcpy(&it->priv_present_, base, sizeof it->priv_present_);
    }
    IT_MODE(it) = (uint64_t)(ps == 8 ? IT_WIRE8 : 0) | (uint64_t)(aligned ? IT_ALIGNED : 0);
    IT_LIMIT(it) = t ? present_fields(t, it->priv_present_) : 0;
}

void gcev_field_iter_init(gcev_field_iter *it, const gcev_event *ev)
{
    if (!it) {
        return;
    }
    if (!ev || !ev->desc) {
        iter_start(it, NULL, NULL, 8, 0);
        return;
    }
    iter_start(it, ev->desc->tmpl, &ev->u, ev->pointer_size, 0);
}

gcev_status gcev_field_iter_elem(gcev_field_iter *it, const gcev_array *a, uint32_t i, void *elem_buf,
                                 size_t elem_buf_size)
{
    if (!it || !a || !a->elem || !elem_buf || elem_buf_size < a->elem->struct_size) {
        return GCEV_E_INVALID_ARG;
    }
    gcev_status st = gcev_array_elem(a, i, elem_buf, NULL);
    iter_start(it, st == GCEV_OK ? a->elem : NULL, elem_buf, a->pointer_size, a->aligned);
    return st;
}

void gcev_field_iter_set_options(gcev_field_iter *it, unsigned options)
{
    if (!it) {
        return;
    }
    IT_MODE(it) &= ~(uint64_t)IT_LAZY_NAMES;
    if (options & GCEV_FIELD_LAZY_NAMES) {
        IT_MODE(it) |= IT_LAZY_NAMES;
    }
}

const char *gcev_field_value_name(const gcev_field *f)
{
    if (!f || !f->map || f->map->is_bitmap) {
        return NULL;
    }
    return gcev_map_value_name(f->map, f->v.u);
}

/* The member of kind `store` at p into f->v. */
static inline void load_value(gcev_field *f, uint8_t store, const uint8_t *p)
{
    switch (store) {
    case GCEV_S_U8:
        f->v.u = *p;
        break;
    case GCEV_S_U16: {
        uint16_t x;
        memcpy(&x, p, 2);
        f->v.u = x;
        break;
    }
    case GCEV_S_U32: {
        uint32_t x;
        memcpy(&x, p, 4);
        f->v.u = x;
        break;
    }
    case GCEV_S_U64:
        memcpy(&f->v.u, p, 8);
        break;
    case GCEV_S_I8: {
        int8_t x;
        memcpy(&x, p, 1);
        f->v.i = x;
        break;
    }
    case GCEV_S_I16: {
        int16_t x;
        memcpy(&x, p, 2);
        f->v.i = x;
        break;
    }
    case GCEV_S_I32: {
        int32_t x;
        memcpy(&x, p, 4);
        f->v.i = x;
        break;
    }
    case GCEV_S_I64:
        memcpy(&f->v.i, p, 8);
        break;
    case GCEV_S_F32: {
        float x;
        memcpy(&x, p, 4);
        f->v.d = x;
        break;
    }
    case GCEV_S_F64:
        memcpy(&f->v.d, p, 8);
        break;
    case GCEV_S_GUID:
        memcpy(&f->v.guid, p, sizeof f->v.guid);
        break;
    case GCEV_S_UTF16:
        memcpy(&f->v.str, p, sizeof f->v.str);
        break;
    case GCEV_S_BYTES:
        memcpy(&f->v.bytes, p, sizeof f->v.bytes);
        break;
    case GCEV_S_ARRAY:
        memcpy(&f->v.array, p, sizeof f->v.array);
        break;
    default:
        break;
    }
}

/* What a field's descriptor says of it, every other member 0: the start of each field
 * gcev_field_next() and gcev_fields() yield. */
static GCEV_ALWAYS_INLINE void field_head(gcev_field *f, const gcev_field_desc *d)
{
    memset(f, 0, sizeof *f);
    f->name = d->name;
    f->type = (gcev_type)d->type;
    f->hex = d->out_type == GCEV_OUT_HEX;
    f->map = d->map;
}

/* The value's name, for iterations without GCEV_FIELD_LAZY_NAMES. Out of line and called
 * last, so the straight path of gcev_field_next stays a leaf that saves no registers. */
static GCEV_NOINLINE int put_value_name(gcev_field *f)
{
    f->value_name = gcev_map_value_name(f->map, f->v.u);
    return 1;
}

/*
 * A field without a fixed wire size (string, blob, array) or in a C-aligned element:
 * the payload position advances the way the decoder's general path did. Out of line
 * for the same reason as put_value_name.
 */
static GCEV_NOINLINE int next_general(gcev_field_iter *it, const gcev_field_desc *d, gcev_field *f)
{
    const unsigned ps = it->priv_pointer_size_;
    const unsigned w = gcev_wire_size(f->type, ps);
    f->is_array = d->store == GCEV_S_ARRAY;
    if ((IT_MODE(it) & IT_ALIGNED) && !f->is_array && w) {
        unsigned a = gcev_wire_align(f->type, ps);
        it->priv_pos_ = (it->priv_pos_ + a - 1) / a * a;
    }
    f->payload_offset = it->priv_pos_;
    load_value(f, d->store, IT_BASE(it) + d->offset);
    if (f->is_array) {
        it->priv_pos_ += f->v.array.size;
    } else if (f->type == GCEV_T_UNICODE_STRING) {
        it->priv_pos_ += f->v.str.nbytes + (d->length_field >= 0 ? 0 : 2);
    } else if (f->type == GCEV_T_ANSI_STRING) {
        it->priv_pos_ += f->v.bytes.size + (d->length_field >= 0 ? 0 : 1);
    } else if (f->type == GCEV_T_BINARY) {
        it->priv_pos_ += f->v.bytes.size;
    } else {
        it->priv_pos_ += w;
    }
    if (f->map && !(IT_MODE(it) & IT_LAZY_NAMES) && !f->map->is_bitmap) {
        return put_value_name(f);
    }
    return 1;
}

/*
 * One field per call, straight-line for every field of a fixed wire size (all of a
 * GCEV_TF_FIXED template's, and the fixed ones of the others), as the decoder's
 * straight-line path reads them: the descriptor's wire width (gcev-gen writes the
 * type's size there for exactly these fields, 0 for strings, blobs and arrays) is all
 * the payload position needs, the member one load. The rest, and the value name when
 * it is wanted, go out of line.
 */
int gcev_field_next(gcev_field_iter *it, gcev_field *f)
{
    if (!it || !f || it->priv_next_ >= IT_LIMIT(it)) {
        return 0; /* the end, or decoding stopped before this field */
    }
    const gcev_field_desc *d = &IT_TMPL(it)->fields[it->priv_next_];
    it->priv_next_++;
    field_head(f, d);
    const uint64_t mode = IT_MODE(it);
    const unsigned w = d->wire[mode & IT_WIRE8] & (unsigned)~GCEV_WIRE_WIDEN_SIGNED;
    if (!w || (mode & IT_ALIGNED)) {
        return next_general(it, d, f);
    }
    f->payload_offset = it->priv_pos_;
    it->priv_pos_ += w;
    load_value(f, d->store, IT_BASE(it) + d->offset);
    if (d->map && !(mode & IT_LAZY_NAMES) && !d->map->is_bitmap) {
        return put_value_name(f);
    }
    return 1;
}

/*
 * gcev_fields()'s loop over out[0..m), inlined once per value of lazy (a constant there, so
 * neither loop tests it per field); the descriptors' pointer is a local, not reloaded from
 * the template after each field's byte stores.
 */
static GCEV_ALWAYS_INLINE void fill_fields(const gcev_field_desc *fd, size_t m, gcev_field *out,
                                           const uint8_t *base, unsigned ps, int lazy)
{
    const unsigned wide = ps == 8;
    /* the iterator state next_general() reads and advances, for the fields that need it */
    gcev_field_iter it;
    it.priv_base_ = base;
    it.priv_pointer_size_ = (uint8_t)ps;
    IT_MODE(&it) = (uint64_t)(lazy ? IT_LAZY_NAMES : 0);
    uint32_t pos = 0;
    for (const gcev_field_desc *d = fd, *end = fd + m; d != end; d++, out++) {
        gcev_field *f = out;
        field_head(f, d);
        const unsigned w = d->wire[wide] & (unsigned)~GCEV_WIRE_WIDEN_SIGNED;
        if (!w) {
            it.priv_pos_ = pos;
            next_general(&it, d, f); /* value name included */
            pos = it.priv_pos_;
            continue;
        }
        f->payload_offset = pos;
        pos += w;
        load_value(f, d->store, base + d->offset);
        if (!lazy && d->map && !d->map->is_bitmap) {
            put_value_name(f);
        }
    }
}

/* The value names of the mapped fields of out[0..m), looked up as put_value_name() does. */
static GCEV_NOINLINE void put_value_names(const gcev_field_desc *fd, size_t m, gcev_field *out)
{
    for (size_t i = 0; i < m; i++) {
        if (fd[i].map && !fd[i].map->is_bitmap) {
            put_value_name(&out[i]);
        }
    }
}

/* The fill function, then the value names (gcev_fields() without GCEV_FIELD_LAZY_NAMES). */
static GCEV_NOINLINE size_t fill_named(const gcev_template *t, const gcev_event *ev, gcev_field *out)
{
    t->fill(&ev->u, ev->pointer_size == 8, out);
    put_value_names(t->fields, t->nfields, out);
    return t->nfields;
}

/*
 * gcev_fields() when the fill function does not apply (decoding stopped before a field, out
 * has room for fewer, or a template without one): the template, the present mask and the
 * pointer size are read once, and each fixed-size field is its descriptor's members, the
 * wire width and one load, with no call and no iterator state between fields.
 */
static GCEV_NOINLINE size_t fields_general(const gcev_template *t, const gcev_event *ev, uint64_t present,
                                           gcev_field *out, size_t cap, unsigned options)
{
    const uint8_t *base = (const uint8_t *)&ev->u;
    const size_t n = present_fields(t, present);
    if (!out) {
        return n;
    }
    const size_t m = n < cap ? n : cap;
    if (options & GCEV_FIELD_LAZY_NAMES) {
        fill_fields(t->fields, m, out, base, ev->pointer_size, 1);
    } else {
        fill_fields(t->fields, m, out, base, ev->pointer_size, 0);
    }
    return n;
}

/*
 * Every field gcev_field_next() would yield for ev, in one call. The usual case (decoding
 * reached every field, out has room for all) is the template's generated fill function:
 * gcev-gen's prototype fields (name, type, map, ... and the payload offsets of a fixed
 * template prefix) copied and each value stored from its member, no descriptor read per
 * field; the rest, fields_general().
 */
size_t gcev_fields(const gcev_event *ev, gcev_field *out, size_t cap, unsigned options)
{
    if (!ev || !ev->desc || !ev->desc->tmpl) {
        return 0;
    }
    const gcev_template *t = ev->desc->tmpl;
    uint64_t present;
    memcpy(&present, &ev->u, sizeof present);
    /* present_fields()'s first test, then room for every field */
    if (t->all_present && (present & t->all_present) == t->all_present && out && cap >= t->nfields &&
        t->fill) {
        if (options & GCEV_FIELD_LAZY_NAMES) {
            return t->fill(&ev->u, ev->pointer_size == 8, out); /* tail calls: no frame here */
        }
        return fill_named(t, ev, out);
    }
    return fields_general(t, ev, present, out, cap, options);
}

/* ---- value rendering shared by text and JSON ---- */

enum { STYLE_TEXT, STYLE_JSON };

static void put_fields(gcev_out *o, gcev_field_iter *it, int style);

static void put_hex(gcev_out *o, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        char two[2] = {digits[p[i] >> 4], digits[p[i] & 15]};
        gcev_out_put(o, two, 2);
    }
}

static void put_double(gcev_out *o, double d, int style)
{
    if (isnan(d) || isinf(d)) {
        gcev_out_str(o, style == STYLE_JSON ? "null" : (isnan(d) ? "NaN" : (d > 0 ? "Inf" : "-Inf")));
    } else {
        gcev_out_fmt(o, "%.17g", d);
    }
}

static void put_array(gcev_out *o, const gcev_array *a, int style)
{
    gcev_out_str(o, "[");
    if (!a->elem) {
        for (uint32_t i = 0; i < a->count; i++) {
            if (i) {
                gcev_out_str(o, style == STYLE_JSON ? "," : ", ");
            }
            uint64_t v = gcev_rd_uint(a->data + (size_t)i * a->stride, a->stride);
            switch ((gcev_type)a->elem_type) {
            case GCEV_T_INT8:
                gcev_out_fmt(o, "%d", (int)(int8_t)v);
                break;
            case GCEV_T_INT16:
                gcev_out_fmt(o, "%d", (int)(int16_t)v);
                break;
            case GCEV_T_INT32:
                gcev_out_fmt(o, "%ld", (long)(int32_t)v);
                break;
            case GCEV_T_INT64:
                gcev_out_fmt(o, "%lld", (long long)(int64_t)v);
                break;
            case GCEV_T_FLOAT: {
                uint32_t u = (uint32_t)v;
                float x;
                memcpy(&x, &u, 4);
                put_double(o, x, style);
                break;
            }
            case GCEV_T_DOUBLE: {
                double x;
                memcpy(&x, &v, 8);
                put_double(o, x, style);
                break;
            }
            default:
                gcev_out_fmt(o, "%llu", (unsigned long long)v);
                break;
            }
        }
    } else {
        /* elements read one after another, so varying sizes stay O(n) */
        uint64_t ebuf[128];
        const unsigned flags = a->aligned ? GCEV_DF_SELF_ALIGNED | GCEV_DF_ELEMS_ALIGNED : 0;
        uint32_t pos = 0;
        for (uint32_t i = 0; i < a->count && a->elem->struct_size <= sizeof ebuf; i++) {
            if (i) {
                gcev_out_str(o, style == STYLE_JSON ? "," : ", ");
            }
            memset(ebuf, 0, a->elem->struct_size);
            uint32_t start = a->stride ? i * (uint32_t)a->stride : pos;
            pos = start;
            gcev_decode_fields(a->elem, a->pointer_size, flags, a->data, a->size, &pos, (uint8_t *)ebuf,
                               NULL);
            gcev_field_iter it;
            iter_start(&it, a->elem, ebuf, a->pointer_size, a->aligned);
            gcev_out_str(o, "{");
            put_fields(o, &it, style);
            gcev_out_str(o, "}");
        }
    }
    gcev_out_str(o, "]");
}

static void put_value(gcev_out *o, const gcev_field *f, int style)
{
    switch (f->type) {
    case GCEV_T_INT8:
    case GCEV_T_INT16:
    case GCEV_T_INT32:
    case GCEV_T_INT64:
        if (f->is_array) {
            break;
        }
        gcev_out_fmt(o, "%lld", (long long)f->v.i);
        return;
    case GCEV_T_FLOAT:
    case GCEV_T_DOUBLE:
        if (f->is_array) {
            break;
        }
        put_double(o, f->v.d, style);
        return;
    case GCEV_T_BOOLEAN:
        if (f->is_array) {
            break;
        }
        gcev_out_str(o, f->v.u ? "true" : "false");
        return;
    case GCEV_T_UNICODE_STRING:
        gcev_out_json_utf16(o, f->v.str);
        return;
    case GCEV_T_ANSI_STRING:
        gcev_out_json_ascii(o, f->v.bytes.data, f->v.bytes.size);
        return;
    case GCEV_T_BINARY:
    case GCEV_T_SYSTEMTIME:
        if (style == STYLE_JSON) {
            gcev_out_str(o, "\"");
        }
        put_hex(o, f->v.bytes.data, f->v.bytes.size);
        if (style == STYLE_JSON) {
            gcev_out_str(o, "\"");
        }
        return;
    case GCEV_T_GUID: {
        char g[37];
        gcev_guid_format(&f->v.guid, g);
        gcev_out_fmt(o, style == STYLE_JSON ? "\"%s\"" : "%s", g);
        return;
    }
    default:
        break;
    }
    if (f->is_array) {
        put_array(o, &f->v.array, style);
        return;
    }
    /* unsigned integers, pointers, FILETIME */
    if (style == STYLE_TEXT && (f->hex || f->type == GCEV_T_POINTER)) {
        gcev_out_fmt(o, "0x%llx", (unsigned long long)f->v.u);
    } else {
        gcev_out_fmt(o, "%llu", (unsigned long long)f->v.u);
    }
    if (style == STYLE_TEXT && f->map) {
        char names[256];
        gcev_map_format(f->map, f->v.u, names, sizeof names);
        gcev_out_fmt(o, "(%s)", names);
    }
}

static void put_fields(gcev_out *o, gcev_field_iter *it, int style)
{
    gcev_field f;
    int first = 1;
    /* the text names mapped values through gcev_map_format, JSON not at all */
    gcev_field_iter_set_options(it, GCEV_FIELD_LAZY_NAMES);
    while (gcev_field_next(it, &f)) {
        if (style == STYLE_JSON) {
            gcev_out_str(o, first ? "\"" : ",\"");
            gcev_out_str(o, f.name); /* manifest names are plain identifiers */
            gcev_out_str(o, "\":");
        } else {
            gcev_out_str(o, first ? "" : " ");
            gcev_out_str(o, f.name);
            gcev_out_str(o, "=");
        }
        put_value(o, &f, style);
        first = 0;
    }
}

size_t gcev_format_text(const gcev_event *ev, char *buf, size_t n)
{
    gcev_out o = {buf, n, 0};
    if (ev && ev->desc) {
        gcev_out_str(&o, ev->desc->symbol);
        gcev_field_iter it;
        gcev_field_iter_init(&it, ev);
        if (IT_TMPL(&it) && IT_TMPL(&it)->nfields) {
            gcev_out_str(&o, " ");
            put_fields(&o, &it, STYLE_TEXT);
        }
        if (ev->trailing) {
            gcev_out_fmt(&o, " (+%lu trailing bytes)", (unsigned long)ev->trailing);
        }
    }
    return gcev_out_finish(&o);
}

size_t gcev_format_fields_json(const gcev_event *ev, char *buf, size_t n)
{
    gcev_out o = {buf, n, 0};
    gcev_out_str(&o, "{");
    if (ev && ev->desc) {
        gcev_field_iter it;
        gcev_field_iter_init(&it, ev);
        put_fields(&o, &it, STYLE_JSON);
    }
    gcev_out_str(&o, "}");
    return gcev_out_finish(&o);
}

size_t gcev_format_names_json(const gcev_event *ev, char *buf, size_t n)
{
    gcev_out o = {buf, n, 0};
    gcev_out_str(&o, "{");
    if (ev && ev->desc) {
        gcev_field_iter it;
        gcev_field_iter_init(&it, ev);
        gcev_field_iter_set_options(&it, GCEV_FIELD_LAZY_NAMES); /* only mapped fields want one */
        gcev_field f;
        int first = 1;
        while (gcev_field_next(&it, &f)) {
            if (!f.map) {
                continue;
            }
            char name[256];
            const char *value_name = gcev_field_value_name(&f);
            if (f.map->is_bitmap) {
                gcev_map_format(f.map, f.v.u, name, sizeof name);
            } else if (value_name) {
                snprintf(name, sizeof name, "%s", value_name);
            } else {
                continue; /* unknown value: the number in "fields" says it all */
            }
            gcev_out_str(&o, first ? "\"" : ",\"");
            gcev_out_str(&o, f.name);
            gcev_out_str(&o, "\":");
            gcev_out_json_ascii(&o, (const uint8_t *)name, strlen(name));
            first = 0;
        }
    }
    gcev_out_str(&o, "}");
    return gcev_out_finish(&o);
}
