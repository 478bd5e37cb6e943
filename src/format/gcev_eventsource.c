/* SPDX-License-Identifier: MIT */
/*
 * Generic JSON for self-describing (EventSource) payloads: walks the field
 * tree of the trace's metadata over the payload bytes. EventPipe encodes
 * fields packed, little-endian, strings as NUL-terminated UTF-16, arrays as a
 * uint16 count then the elements. Every read is checked against the bytes
 * left; a payload that ends early closes the JSON with "_truncated": true.
 * TraceLogging (TDH in-type) field lists of ETL traces go to gcev_tdh_json.c.
 */
#include <gcev/gcev_trace.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gcev_out.h"
#include "gcev_tdh_json.h"
#include "gcev_read.h"

enum { ES_MAX_DEPTH = 16, ES_MAX_ELEMS = 65535 };

/* EventPipe type codes (System.TypeCode plus EventPipe additions). */
enum {
    ES_OBJECT = 1,
    ES_BOOLEAN = 3,
    ES_CHAR = 4,
    ES_SBYTE = 5,
    ES_BYTE = 6,
    ES_INT16 = 7,
    ES_UINT16 = 8,
    ES_INT32 = 9,
    ES_UINT32 = 10,
    ES_INT64 = 11,
    ES_UINT64 = 12,
    ES_SINGLE = 13,
    ES_DOUBLE = 14,
    ES_DECIMAL = 15,
    ES_DATETIME = 16,
    ES_GUID = 17,
    ES_STRING = 18,
    ES_ARRAY = 19,
    ES_VARINT = 20,
    ES_VARUINT = 21,
    ES_UTF8CHAR = 23,
    ES_RELLOC = 24,
    ES_DATALOC = 25
};

/* JSON output (the library's snprintf-style writer) plus this formatter's limits. */
typedef struct es_out {
    gcev_out o;
    /* Values left to format: zero-byte elements (empty structs) in nested arrays
     * could otherwise cost 65535^depth work for a few payload bytes. */
    uint64_t budget;
    int over_budget;
    /* Containers still open, so a payload that ends early still gives valid JSON. */
    char closers[2 * ES_MAX_DEPTH + 4];
    unsigned nclose;
} es_out;

static void out_put(es_out *o, const char *s, size_t n)
{
    gcev_out_put(&o->o, s, n);
}
static void out_str(es_out *o, const char *s)
{
    gcev_out_str(&o->o, s);
}
static void out_fmt_u64(es_out *o, uint64_t v)
{
    gcev_out_fmt(&o->o, "%llu", (unsigned long long)v);
}
static void out_fmt_i64(es_out *o, int64_t v)
{
    gcev_out_fmt(&o->o, "%lld", (long long)v);
}

static void out_double(es_out *o, double d)
{
    if (!isfinite(d)) {
        out_str(o, "null"); /* JSON has no NaN/inf */
        return;
    }
    gcev_out_fmt(&o->o, "%.17g", d);
}

static void out_json_text(es_out *o, const char *s, size_t n)
{
    gcev_out_json_utf8(&o->o, (const uint8_t *)s, n);
}

static void out_open(es_out *o, char open, char close)
{
    out_put(o, &open, 1);
    if (o->nclose < sizeof o->closers) {
        o->closers[o->nclose++] = close;
    }
}

static void out_close(es_out *o)
{
    if (o->nclose > 0) {
        out_put(o, &o->closers[--o->nclose], 1);
    }
}

typedef struct es_cur {
    const uint8_t *p;
    size_t n, pos;
} es_cur;

static int es_need(const es_cur *c, size_t k)
{
    return c->n - c->pos >= k;
}

static void out_utf16(es_out *o, const uint8_t *p, size_t nbytes)
{
    gcev_utf16 text = {p, (uint32_t)nbytes};
    gcev_out_json_utf16(&o->o, text);
}

static int es_value(es_out *o, es_cur *c, uint32_t type, const gcev_trace_field *f, int depth);

static int es_object(es_out *o, es_cur *c, const gcev_trace_field *fields, uint32_t n, int depth)
{
    out_open(o, '{', '}');
    for (uint32_t i = 0; i < n; i++) {
        if (i) {
            out_put(o, ",", 1);
        }
        const char *name = fields[i].name ? fields[i].name : "";
        out_json_text(o, name, strlen(name));
        out_put(o, ":", 1);
        if (!es_value(o, c, fields[i].type_code, &fields[i], depth + 1)) {
            return 0;
        }
    }
    out_close(o);
    return 1;
}

static int es_varuint(es_cur *c, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (!es_need(c, 1)) {
            return 0;
        }
        uint8_t b = c->p[c->pos++];
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return 1;
        }
    }
    return 0;
}

static int es_value(es_out *o, es_cur *c, uint32_t type, const gcev_trace_field *f, int depth)
{
    if (o->budget == 0) {
        o->over_budget = 1;
        return 0;
    }
    o->budget--;
    if (depth > ES_MAX_DEPTH) {
        return 0;
    }
    static const uint8_t fixed[26] = {
        [ES_BOOLEAN] = 4,  [ES_CHAR] = 2,   [ES_SBYTE] = 1,    [ES_BYTE] = 1,     [ES_INT16] = 2,
        [ES_UINT16] = 2,   [ES_INT32] = 4,  [ES_UINT32] = 4,   [ES_INT64] = 8,    [ES_UINT64] = 8,
        [ES_SINGLE] = 4,   [ES_DOUBLE] = 8, [ES_DECIMAL] = 16, [ES_DATETIME] = 8, [ES_GUID] = 16,
        [ES_UTF8CHAR] = 1, [ES_RELLOC] = 4, [ES_DATALOC] = 4};
    if (type < sizeof fixed && fixed[type]) {
        if (!es_need(c, fixed[type])) {
            return 0;
        }
        const uint8_t *p = c->p + c->pos;
        c->pos += fixed[type];
        switch (type) {
        case ES_BOOLEAN:
            out_str(o, gcev_rd_u32le(p) ? "true" : "false");
            break;
        case ES_CHAR:
            out_utf16(o, p, 2);
            break;
        case ES_SBYTE:
            out_fmt_i64(o, (int8_t)p[0]);
            break;
        case ES_BYTE:
        case ES_UTF8CHAR:
            out_fmt_u64(o, p[0]);
            break;
        case ES_INT16:
            out_fmt_i64(o, (int16_t)gcev_rd_u16le(p));
            break;
        case ES_UINT16:
            out_fmt_u64(o, gcev_rd_u16le(p));
            break;
        case ES_INT32:
            out_fmt_i64(o, (int32_t)gcev_rd_u32le(p));
            break;
        case ES_UINT32:
        case ES_RELLOC:
        case ES_DATALOC:
            out_fmt_u64(o, gcev_rd_u32le(p));
            break;
        case ES_INT64:
        case ES_DATETIME:
            out_fmt_i64(o, (int64_t)gcev_rd_u64le(p));
            break;
        case ES_UINT64:
            out_fmt_u64(o, gcev_rd_u64le(p));
            break;
        case ES_SINGLE: {
            uint32_t u = gcev_rd_u32le(p);
            float fl;
            memcpy(&fl, &u, sizeof fl);
            out_double(o, fl);
            break;
        }
        case ES_DOUBLE: {
            uint64_t u = gcev_rd_u64le(p);
            double d;
            memcpy(&d, &u, sizeof d);
            out_double(o, d);
            break;
        }
        case ES_GUID: {
            gcev_guid g = gcev_guid_load(p);
            char t[37];
            gcev_guid_format(&g, t);
            out_json_text(o, t, 36);
            break;
        }
        default: { /* Decimal: raw hex, no portable decimal128 */
            char t[33];
            for (int i = 0; i < 16; i++) {
                snprintf(t + 2 * i, 3, "%02x", p[i]);
            }
            out_json_text(o, t, 32);
            break;
        }
        }
        return 1;
    }
    switch (type) {
    case ES_STRING: {
        size_t i = c->pos;
        while (c->n - i >= 2 && (c->p[i] | c->p[i + 1])) {
            i += 2;
        }
        if (c->n - i < 2) {
            return 0;
        }
        out_utf16(o, c->p + c->pos, i - c->pos);
        c->pos = i + 2;
        return 1;
    }
    case ES_VARINT:
    case ES_VARUINT: {
        uint64_t v;
        if (!es_varuint(c, &v)) {
            return 0;
        }
        if (type == ES_VARINT) {
            out_fmt_i64(o, (int64_t)((v >> 1) ^ (~(v & 1) + 1)));
        } else {
            out_fmt_u64(o, v);
        }
        return 1;
    }
    case ES_OBJECT:
        return f ? es_object(o, c, f->fields, f->nfields, depth) : 0;
    case ES_ARRAY: {
        if (!f || !es_need(c, 2)) {
            return 0;
        }
        uint16_t count = gcev_rd_u16le(c->p + c->pos);
        c->pos += 2;
        uint32_t et = f->array_type_code;
        if (et == ES_BYTE) { /* byte[]: hex text, as binary fields elsewhere */
            if (!es_need(c, count)) {
                return 0;
            }
            out_put(o, "\"", 1);
            for (uint16_t i = 0; i < count; i++) {
                char t[3];
                snprintf(t, sizeof t, "%02x", c->p[c->pos + i]);
                out_put(o, t, 2);
            }
            out_put(o, "\"", 1);
            c->pos += count;
            return 1;
        }
        out_open(o, '[', ']');
        for (uint16_t i = 0; i < count; i++) {
            if (i) {
                out_put(o, ",", 1);
            }
            /* Struct elements: the element's fields hang off the array field. */
            if (!es_value(o, c, et, f, depth + 1)) {
                return 0;
            }
        }
        out_close(o);
        return 1;
    }
    default:
        return 0; /* unknown or unsized type (e.g. V6 fixed-length arrays): stop here */
    }
}

size_t gcev_trace_format_fields_json(const gcev_trace_event *ev, char *buf, size_t n)
{
    if (ev->field_type_system == GCEV_FIELD_TYPES_TDH) {
        return gcev_tdh_format_fields_json(ev, buf, n); /* ETL TraceLogging in-types */
    }
    /* per-event work limit: values in proportion to the payload's size */
    es_out o;
    memset(&o, 0, sizeof o);
    o.o = (gcev_out){buf, n, 0};
    o.budget = 4096 + 16 * (uint64_t)(ev->payload ? ev->payload_size : 0);
    es_cur c = {ev->payload, ev->payload ? ev->payload_size : 0, 0};
    out_put(&o, "{", 1);
    uint32_t i = 0;
    int ok = 1;
    for (; i < ev->nfields && ok; i++) {
        const gcev_trace_field *f = &ev->fields[i];
        if (i) {
            out_put(&o, ",", 1);
        }
        const char *name = f->name ? f->name : "";
        out_json_text(&o, name, strlen(name));
        out_put(&o, ":", 1);
        /* An array of structs: its elements are objects of the array's fields. */
        ok = es_value(&o, &c, f->type_code, f, 0);
        if (!ok) {
            /* the fault is always where a value was due: fill it, close what is open */
            out_str(&o, "null");
            while (o.nclose > 0) {
                out_close(&o);
            }
        }
    }
    if (!ok) {
        out_str(&o, o.over_budget ? ",\"_work_limit\":true" : ",\"_truncated\":true");
    }
    out_put(&o, "}", 1);
    return gcev_out_finish(&o.o);
}
