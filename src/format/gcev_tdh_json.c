/* SPDX-License-Identifier: MIT */
/*
 * Generic JSON for TraceLogging payloads in ETL traces: walks the field tree
 * built from the event's schema (type codes are TDH / TraceLogging in-types)
 * over the payload bytes. TraceLogging packs fields little-endian without
 * padding: NUL-terminated strings, UInt16-counted strings and blobs, a UInt16
 * element count before variable-count arrays (constant counts live in the
 * schema), struct members inline. Every read is checked against the bytes
 * left; a value that does not fit gives null and the object ends with
 * "_truncated":true. The output stays valid JSON: open arrays and structs are
 * closed before the marker.
 */
#include <gcev/gcev_trace.h>

#include <math.h>
#include <string.h>

#include "gcev_out.h"
#include "gcev_read.h"
#include "gcev_tdh_json.h"

enum { TDH_MAX_DEPTH = 32 };

/* TraceLogging in-types (TDH_INTYPE_* for 1-21). */
enum {
    TDH_UNICODESTRING = 1,
    TDH_ANSISTRING = 2,
    TDH_INT8 = 3,
    TDH_UINT8 = 4,
    TDH_INT16 = 5,
    TDH_UINT16 = 6,
    TDH_INT32 = 7,
    TDH_UINT32 = 8,
    TDH_INT64 = 9,
    TDH_UINT64 = 10,
    TDH_FLOAT = 11,
    TDH_DOUBLE = 12,
    TDH_BOOLEAN = 13,
    TDH_BINARY = 14,
    TDH_GUID = 15,
    TDH_POINTER = 16,
    TDH_FILETIME = 17,
    TDH_SYSTEMTIME = 18,
    TDH_SID = 19,
    TDH_HEXINT32 = 20,
    TDH_HEXINT64 = 21,
    TDH_COUNTEDSTRING = 22,
    TDH_COUNTEDANSISTRING = 23,
    TDH_STRUCT = 24,
    TDH_COUNTEDBINARY = 25
};

/* Out-types that change the JSON value (the rest keep the in-type's form). */
enum { TDH_OUT_BOOLEAN = 3, TDH_OUT_UTF8 = 35 };

typedef enum tdh_rc {
    TDH_OK = 0,
    TDH_SHORT,      /* the payload ends inside the value: "_truncated" */
    TDH_WORK,       /* the per-event budget ran out: "_work_limit" */
    TDH_UNSUPPORTED /* unknown in-type or too deep: "_unsupported" */
} tdh_rc;

typedef struct tdh_ctx {
    gcev_out o;
    const uint8_t *p;
    size_t size, pos;
    /* Values left to format: empty structs in arrays cost no payload bytes. */
    uint64_t budget;
    unsigned pointer_size;
} tdh_ctx;

static int tdh_need(const tdh_ctx *c, size_t k)
{
    return c->size - c->pos >= k;
}

/* Reads a UInt16 length or count; 0 when it does not fit. */
static int tdh_u16(tdh_ctx *c, uint32_t *v)
{
    if (!tdh_need(c, 2)) {
        return 0;
    }
    *v = gcev_rd_u16le(c->p + c->pos);
    c->pos += 2;
    return 1;
}

static void tdh_hex(tdh_ctx *c, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    gcev_out_str(&c->o, "\"");
    for (size_t i = 0; i < n; i++) {
        char two[2] = {digits[p[i] >> 4], digits[p[i] & 15]};
        gcev_out_put(&c->o, two, 2);
    }
    gcev_out_str(&c->o, "\"");
}

static void tdh_double(tdh_ctx *c, double d, int single)
{
    if (!isfinite(d)) {
        gcev_out_str(&c->o, "null"); /* JSON has no NaN/inf */
    } else {
        gcev_out_fmt(&c->o, single ? "%.9g" : "%.17g", d);
    }
}

/* 8-bit text: UTF-8 when the out-type says so, else CP1252 shown as Latin-1. */
static void tdh_ansi(tdh_ctx *c, const uint8_t *p, size_t n, const gcev_trace_field *f)
{
    if (f->out_type == TDH_OUT_UTF8) {
        gcev_out_json_utf8(&c->o, p, n);
    } else {
        gcev_out_json_ascii(&c->o, p, n);
    }
}

/* "S-1-5-21-...", as ConvertSidToStringSid writes it. */
static void tdh_sid(tdh_ctx *c, const uint8_t *p, unsigned subs)
{
    uint64_t auth = 0;
    for (int i = 2; i < 8; i++) {
        auth = auth << 8 | p[i];
    }
    /* authorities of 2^32 and above are written in hex */
    gcev_out_fmt(&c->o, auth >> 32 ? "\"S-%u-0x%012llX" : "\"S-%u-%llu", (unsigned)p[0],
                 (unsigned long long)auth);
    for (unsigned i = 0; i < subs; i++) {
        gcev_out_fmt(&c->o, "-%lu", (unsigned long)gcev_rd_u32le(p + 8 + 4 * i));
    }
    gcev_out_str(&c->o, "\"");
}

/* Integers: fixed width, signedness and the Boolean out-type. */
static tdh_rc tdh_integer(tdh_ctx *c, unsigned width, int is_signed, const gcev_trace_field *f)
{
    if (!tdh_need(c, width)) {
        return TDH_SHORT;
    }
    uint64_t v = gcev_rd_uint(c->p + c->pos, width);
    c->pos += width;
    if (f->out_type == TDH_OUT_BOOLEAN) {
        gcev_out_str(&c->o, v ? "true" : "false");
    } else if (is_signed) {
        int64_t s = width == 1 ? (int8_t)v : width == 2 ? (int16_t)v : width == 4 ? (int32_t)v : (int64_t)v;
        gcev_out_fmt(&c->o, "%lld", (long long)s);
    } else {
        gcev_out_fmt(&c->o, "%llu", (unsigned long long)v);
    }
    return TDH_OK;
}

/* One value of a non-array type whose bytes start at c->pos; writes nothing on failure. */
static tdh_rc tdh_scalar(tdh_ctx *c, uint32_t type, const gcev_trace_field *f)
{
    /* an empty payload may have no bytes at all (NULL): no pointer arithmetic on it */
    const uint8_t *p = c->p ? c->p + c->pos : NULL;
    size_t left = c->size - c->pos;
    switch (type) {
    case TDH_INT8:
        return tdh_integer(c, 1, 1, f);
    case TDH_UINT8:
        return tdh_integer(c, 1, 0, f);
    case TDH_INT16:
        return tdh_integer(c, 2, 1, f);
    case TDH_UINT16:
        return tdh_integer(c, 2, 0, f);
    case TDH_INT32:
        return tdh_integer(c, 4, 1, f);
    case TDH_UINT32:
    case TDH_HEXINT32:
        return tdh_integer(c, 4, 0, f);
    case TDH_INT64:
        return tdh_integer(c, 8, 1, f);
    case TDH_UINT64:
    case TDH_HEXINT64:
    case TDH_FILETIME:
        return tdh_integer(c, 8, 0, f);
    case TDH_POINTER:
        return tdh_integer(c, c->pointer_size, 0, f);
    case TDH_FLOAT: {
        if (left < 4) {
            return TDH_SHORT;
        }
        uint32_t u = gcev_rd_u32le(p);
        float v;
        memcpy(&v, &u, sizeof v);
        tdh_double(c, v, 1);
        c->pos += 4;
        return TDH_OK;
    }
    case TDH_DOUBLE: {
        if (left < 8) {
            return TDH_SHORT;
        }
        uint64_t u = gcev_rd_u64le(p);
        double v;
        memcpy(&v, &u, sizeof v);
        tdh_double(c, v, 0);
        c->pos += 8;
        return TDH_OK;
    }
    case TDH_BOOLEAN: /* BOOL: 4 bytes */
        if (left < 4) {
            return TDH_SHORT;
        }
        gcev_out_str(&c->o, gcev_rd_u32le(p) ? "true" : "false");
        c->pos += 4;
        return TDH_OK;
    case TDH_GUID: {
        if (left < 16) {
            return TDH_SHORT;
        }
        gcev_guid g = gcev_guid_load(p);
        char t[37];
        gcev_guid_format(&g, t);
        gcev_out_str(&c->o, "\"");
        gcev_out_str(&c->o, t);
        gcev_out_str(&c->o, "\"");
        c->pos += 16;
        return TDH_OK;
    }
    case TDH_SYSTEMTIME: { /* wYear wMonth wDayOfWeek wDay wHour wMinute wSecond wMilliseconds */
        if (left < 16) {
            return TDH_SHORT;
        }
        unsigned w[8];
        for (int i = 0; i < 8; i++) {
            w[i] = gcev_rd_u16le(p + 2 * i);
        }
        gcev_out_fmt(&c->o, "\"%04u-%02u-%02uT%02u:%02u:%02u.%03u\"", w[0], w[1], w[3], w[4], w[5], w[6],
                     w[7]);
        c->pos += 16;
        return TDH_OK;
    }
    case TDH_SID: { /* revision, sub-authority count, 6-byte authority, count x UInt32 */
        if (left < 8 || left - 8 < 4u * p[1]) {
            return TDH_SHORT;
        }
        tdh_sid(c, p, p[1]);
        c->pos += 8 + 4u * p[1];
        return TDH_OK;
    }
    case TDH_UNICODESTRING: {
        size_t i = 0;
        while (left - i >= 2 && (p[i] | p[i + 1])) {
            i += 2;
        }
        if (left - i < 2) {
            return TDH_SHORT;
        }
        gcev_utf16 s = {p, (uint32_t)i};
        gcev_out_json_utf16(&c->o, s);
        c->pos += i + 2;
        return TDH_OK;
    }
    case TDH_ANSISTRING: {
        const uint8_t *nul = left ? memchr(p, 0, left) : NULL;
        if (!nul) {
            return TDH_SHORT;
        }
        tdh_ansi(c, p, (size_t)(nul - p), f);
        c->pos += (size_t)(nul - p) + 1;
        return TDH_OK;
    }
    case TDH_COUNTEDSTRING:
    case TDH_COUNTEDANSISTRING:
    case TDH_BINARY:
    case TDH_COUNTEDBINARY: { /* UInt16 byte count, then the bytes */
        uint32_t len;
        if (left < 2 || left - 2 < (len = gcev_rd_u16le(p))) {
            return TDH_SHORT;
        }
        const uint8_t *d = p + 2;
        if (type == TDH_COUNTEDSTRING) {
            gcev_utf16 s = {d, len};
            gcev_out_json_utf16(&c->o, s);
        } else if (type == TDH_COUNTEDANSISTRING) {
            tdh_ansi(c, d, len, f);
        } else {
            tdh_hex(c, d, len);
        }
        c->pos += 2 + (size_t)len;
        return TDH_OK;
    }
    default:
        return TDH_UNSUPPORTED; /* in-types 0 and 26-31 have no known size */
    }
}

static tdh_rc tdh_field(tdh_ctx *c, const gcev_trace_field *f, int depth);

/* One value of `type` (a struct's members come from f); always writes a JSON value. */
static tdh_rc tdh_value(tdh_ctx *c, uint32_t type, const gcev_trace_field *f, int depth)
{
    tdh_rc rc = TDH_OK;
    if (c->budget == 0) {
        rc = TDH_WORK;
    } else if (depth > TDH_MAX_DEPTH) {
        rc = TDH_UNSUPPORTED;
    } else if (type != TDH_STRUCT) {
        c->budget--;
        rc = tdh_scalar(c, type, f);
    } else {
        c->budget--;
        gcev_out_str(&c->o, "{");
        for (uint32_t i = 0; i < f->nfields && rc == TDH_OK; i++) {
            const gcev_trace_field *m = &f->fields[i];
            gcev_out_str(&c->o, i ? "," : "");
            const char *name = m->name ? m->name : "";
            gcev_out_json_utf8(&c->o, (const uint8_t *)name, strlen(name));
            gcev_out_str(&c->o, ":");
            rc = tdh_field(c, m, depth + 1);
        }
        gcev_out_str(&c->o, "}");
        return rc;
    }
    if (rc != TDH_OK) {
        gcev_out_str(&c->o, "null");
    }
    return rc;
}

/* A field: custom-serialized bytes, an array of array_type_code, or one value. */
static tdh_rc tdh_field(tdh_ctx *c, const gcev_trace_field *f, int depth)
{
    if (f->flags & GCEV_FIELD_CUSTOM) {
        /* the bytes' meaning is the custom serializer's: shown as hex */
        return tdh_value(c, TDH_COUNTEDBINARY, f, depth);
    }
    if (f->array_type_code == 0) {
        return tdh_value(c, f->type_code, f, depth);
    }
    uint32_t count = f->fixed_count;
    if (!(f->flags & GCEV_FIELD_FIXED_COUNT) && !tdh_u16(c, &count)) {
        gcev_out_str(&c->o, "null");
        return TDH_SHORT;
    }
    tdh_rc rc = TDH_OK;
    gcev_out_str(&c->o, "[");
    for (uint32_t i = 0; i < count && rc == TDH_OK; i++) {
        gcev_out_str(&c->o, i ? "," : "");
        /* struct elements: the element's members hang off the array field */
        rc = tdh_value(c, f->array_type_code, f, depth + 1);
    }
    gcev_out_str(&c->o, "]");
    return rc;
}

size_t gcev_tdh_format_fields_json(const gcev_trace_event *ev, char *buf, size_t n)
{
    size_t size = ev->payload ? ev->payload_size : 0;
    tdh_ctx c;
    memset(&c, 0, sizeof c);
    c.o.buf = buf;
    c.o.cap = n;
    c.p = ev->payload;
    c.size = size;
    /* per-event work limit: values in proportion to the payload's size */
    c.budget = 4096 + 16 * (uint64_t)size;
    c.pointer_size = ev->pointer_size == 4 ? 4 : 8;
    gcev_out_str(&c.o, "{");
    tdh_rc rc = TDH_OK;
    for (uint32_t i = 0; i < ev->nfields && rc == TDH_OK; i++) {
        const gcev_trace_field *f = &ev->fields[i];
        gcev_out_str(&c.o, i ? "," : "");
        const char *name = f->name ? f->name : "";
        gcev_out_json_utf8(&c.o, (const uint8_t *)name, strlen(name));
        gcev_out_str(&c.o, ":");
        rc = tdh_field(&c, f, 0);
    }
    static const char *const marker[] = {"", ",\"_truncated\":true", ",\"_work_limit\":true",
                                         ",\"_unsupported\":true"};
    gcev_out_str(&c.o, marker[rc]);
    gcev_out_str(&c.o, "}");
    return gcev_out_finish(&c.o);
}
