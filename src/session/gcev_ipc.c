/* SPDX-License-Identifier: MIT */
/* Diagnostics IPC messages: encoders for the requests, bounded parsers for the replies. */
#include <stdlib.h>
#include <string.h>

#include "gcev_error.h"
#include "gcev_ipc.h"
#include "gcev_read.h"
#include "gcev_text.h"

static const uint8_t ipc_magic[14] = {'D', 'O', 'T', 'N', 'E', 'T', '_', 'I', 'P', 'C', '_', 'V', '1', 0};

const char *gcev_ipc_hresult_name(int32_t hr)
{
    switch (hr) {
    case GCEV_IPC_E_BAD_ENCODING:
        return "bad encoding";
    case GCEV_IPC_E_UNKNOWN_COMMAND:
        return "unknown command";
    case GCEV_IPC_E_UNKNOWN_MAGIC:
        return "unknown magic";
    case GCEV_IPC_E_NOTSUPPORTED:
        return "not supported";
    case GCEV_IPC_E_FAIL:
        return "failed";
    case GCEV_IPC_E_NOT_YET_AVAILABLE:
        return "not yet available";
    case GCEV_IPC_E_RUNTIME_UNINITIALIZED:
        return "runtime not initialized";
    case GCEV_IPC_E_INVALIDARG:
        return "invalid argument";
    default:
        return "error";
    }
}

gcev_status gcev_ipc_parse_header(const uint8_t *p, size_t n, gcev_ipc_header *h, gcev_error *err)
{
    if (n < GCEV_IPC_HEADER_SIZE) {
        return gcev_error_set(err, GCEV_E_TRUNCATED, n, NULL, "IPC reply shorter than its 20-byte header");
    }
    for (size_t i = 0; i < sizeof ipc_magic; i++) {
        if (p[i] != ipc_magic[i]) {
            return gcev_error_set(err, GCEV_E_FORMAT, i, NULL, "IPC reply does not start with DOTNET_IPC_V1");
        }
    }
    h->size = gcev_rd_u16le(p + 14);
    h->command_set = p[16];
    h->command_id = p[17];
    h->reserved = gcev_rd_u16le(p + 18);
    if (h->size < GCEV_IPC_HEADER_SIZE) {
        return gcev_error_set(err, GCEV_E_FORMAT, 14, NULL, "IPC reply size is smaller than its header");
    }
    return GCEV_OK;
}

gcev_status gcev_ipc_parse_reply(const gcev_ipc_header *h, const uint8_t *payload, size_t n,
                                 gcev_ipc_reply *r, gcev_error *err)
{
    memset(r, 0, sizeof *r);
    if ((size_t)h->size - GCEV_IPC_HEADER_SIZE != n || (n && !payload)) {
        return gcev_error_set(err, GCEV_E_FORMAT, 14, NULL, "IPC reply payload does not match its size");
    }
    if (h->command_set != GCEV_IPC_SET_SERVER) {
        return gcev_error_set(err, GCEV_E_FORMAT, 16, NULL, "IPC reply is not a server OK or error message");
    }
    if (h->command_id == GCEV_IPC_SERVER_OK) {
        if (n < 8) {
            return gcev_error_set(err, GCEV_E_FORMAT, GCEV_IPC_HEADER_SIZE + n, NULL,
                                  "IPC OK reply has no 8-byte session id");
        }
        r->ok = 1;
        r->value = gcev_rd_u64le(payload);
        return GCEV_OK;
    }
    if (h->command_id == GCEV_IPC_SERVER_ERROR) {
        if (n < 4) {
            return gcev_error_set(err, GCEV_E_FORMAT, GCEV_IPC_HEADER_SIZE + n, NULL,
                                  "IPC error reply has no 4-byte HRESULT");
        }
        r->ok = 0;
        r->hresult = (int32_t)gcev_rd_u32le(payload);
        return GCEV_OK;
    }
    return gcev_error_set(err, GCEV_E_FORMAT, 17, NULL, "IPC reply has an unknown server command id");
}

/* A string field at *pos: u32 units (NUL included) or 0, then the units. */
static gcev_status parse_string(const uint8_t *p, size_t n, size_t *pos, gcev_utf16 *out, gcev_error *err)
{
    out->data = NULL;
    out->nbytes = 0;
    if (n - *pos < 4) {
        return gcev_error_set(err, GCEV_E_TRUNCATED, *pos, NULL,
                              "ProcessInfo payload ends inside a string length");
    }
    uint32_t units = gcev_rd_u32le(p + *pos);
    *pos += 4;
    if (units == 0) {
        return GCEV_OK;
    }
    if (units > (n - *pos) / 2) {
        return gcev_error_set(err, GCEV_E_TRUNCATED, *pos - 4, NULL,
                              "ProcessInfo string is longer than the payload");
    }
    size_t bytes = (size_t)units * 2;
    if (gcev_rd_u16le(p + *pos + bytes - 2) != 0) {
        return gcev_error_set(err, GCEV_E_UNTERMINATED_STRING, *pos + bytes - 2, NULL,
                              "ProcessInfo string does not end with a NUL");
    }
    out->data = p + *pos;
    out->nbytes = (uint32_t)(bytes - 2);
    *pos += bytes;
    return GCEV_OK;
}

gcev_status gcev_ipc_parse_process_info(const uint8_t *payload, size_t n, unsigned version,
                                        gcev_ipc_process_info *out, gcev_error *err)
{
    memset(out, 0, sizeof *out);
    if (version < 1 || version > 2) {
        return gcev_error_set(err, GCEV_E_INVALID_ARG, 0, NULL, "ProcessInfo version must be 1 or 2");
    }
    if (n < 24 || !payload) {
        return gcev_error_set(err, GCEV_E_TRUNCATED, n, NULL,
                              "ProcessInfo payload shorter than pid and cookie");
    }
    out->process_id = gcev_rd_u64le(payload);
    memcpy(out->runtime_cookie, payload + 8, 16);
    size_t pos = 24;
    gcev_utf16 *fields[5] = {&out->command_line, &out->os, &out->arch, &out->entrypoint,
                             &out->runtime_version};
    size_t nfields = version == 2 ? 5 : 3;
    for (size_t i = 0; i < nfields; i++) {
        gcev_status st = parse_string(payload, n, &pos, fields[i], err);
        if (st != GCEV_OK) {
            return st;
        }
    }
    return GCEV_OK;
}

char *gcev_ipc_utf8_dup(gcev_utf16 s)
{
    /* at most 3 UTF-8 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2 units) */
    size_t cap = (size_t)(s.nbytes / 2) * 3 + 1;
    char *out = malloc(cap);
    if (!out) {
        return NULL;
    }
    size_t len = 0;
    uint32_t i = 0;
    while (s.data && i + 1 < s.nbytes) {
        uint32_t cp = gcev_utf16_next(s, &i);
        if (cp == 0) {
            break;
        }
        len += gcev_utf8_encode(cp, out + len);
    }
    out[len] = 0;
    return out;
}

/* A bounded writer: stops counting room once full, so the caller checks once. */
typedef struct enc {
    uint8_t *buf;
    size_t cap;
    size_t len;
    int bad; /* a string was not UTF-8 */
} enc;

static void put_bytes(enc *e, const void *p, size_t n)
{
    if (e->len <= e->cap && n <= e->cap - e->len) {
        memcpy(e->buf + e->len, p, n);
    }
    e->len += n;
}

static void put_u8(enc *e, uint8_t v)
{
    put_bytes(e, &v, 1);
}

static void put_u16(enc *e, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put_bytes(e, b, 2);
}

static void put_u32(enc *e, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put_bytes(e, b, 4);
}

static void put_u64(enc *e, uint64_t v)
{
    put_u32(e, (uint32_t)v);
    put_u32(e, (uint32_t)(v >> 32));
}

/* Next code point of UTF-8 s at *i, or -1 for an invalid sequence (overlong, surrogate, > U+10FFFF). */
static long utf8_next(const unsigned char *s, size_t *i)
{
    unsigned c = s[*i];
    if (c < 0x80) {
        (*i)++;
        return (long)c;
    }
    int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
    if (extra < 0 || c > 0xF4) {
        return -1;
    }
    unsigned long cp = c & (0x3Fu >> extra);
    for (int k = 1; k <= extra; k++) {
        unsigned d = s[*i + (size_t)k];
        if ((d & 0xC0) != 0x80) {
            return -1;
        }
        cp = cp << 6 | (d & 0x3F);
    }
    static const unsigned long min[4] = {0, 0x80, 0x800, 0x10000};
    if (cp < min[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return -1;
    }
    *i += (size_t)extra + 1;
    return (long)cp;
}

/* The protocol's string: UTF-16 unit count with the NUL, the units; NULL gives a count of 0. */
static void put_string(enc *e, const char *s)
{
    if (!s) {
        put_u32(e, 0);
        return;
    }
    const unsigned char *u = (const unsigned char *)s;
    uint32_t units = 1;
    for (size_t i = 0; u[i];) {
        long cp = utf8_next(u, &i);
        if (cp < 0) {
            e->bad = 1;
            return;
        }
        units += cp >= 0x10000 ? 2 : 1;
    }
    put_u32(e, units);
    for (size_t i = 0; u[i];) {
        long cp = utf8_next(u, &i);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            put_u16(e, (uint16_t)(0xD800 + (cp >> 10)));
            put_u16(e, (uint16_t)(0xDC00 + (cp & 0x3FF)));
        } else {
            put_u16(e, (uint16_t)cp);
        }
    }
    put_u16(e, 0);
}

static void put_header(enc *e, uint8_t set, uint8_t id)
{
    put_bytes(e, ipc_magic, sizeof ipc_magic);
    put_u16(e, 0); /* size: patched by finish() */
    put_u8(e, set);
    put_u8(e, id);
    put_u16(e, 0);
}

static gcev_status finish(enc *e, size_t *len)
{
    *len = e->len;
    if (e->bad) {
        return GCEV_E_INVALID_ARG;
    }
    if (e->len > GCEV_IPC_MAX_MESSAGE) {
        return GCEV_E_LIMIT;
    }
    if (e->len > e->cap) {
        return GCEV_E_NO_SPACE;
    }
    e->buf[14] = (uint8_t)e->len;
    e->buf[15] = (uint8_t)(e->len >> 8);
    return GCEV_OK;
}

gcev_status gcev_ipc_encode(uint8_t command_set, uint8_t command_id, const uint8_t *payload, size_t n,
                            uint8_t *buf, size_t cap, size_t *len)
{
    if (!buf || !len || (n && !payload) || n > GCEV_IPC_MAX_MESSAGE) {
        return GCEV_E_INVALID_ARG;
    }
    enc e = {buf, cap, 0, 0};
    put_header(&e, command_set, command_id);
    if (n) {
        put_bytes(&e, payload, n);
    }
    return finish(&e, len);
}

gcev_status gcev_ipc_encode_collect(unsigned version, const gcev_ipc_collect *c, uint8_t *buf, size_t cap,
                                    size_t *len)
{
    if (!c || !buf || !len || version < 2 || version > 6 || c->nproviders == 0 || !c->providers ||
        c->nproviders > 1000 /* the runtime's own limit */) {
        return GCEV_E_INVALID_ARG;
    }
    for (size_t i = 0; i < c->nproviders; i++) {
        if (!c->providers[i].name || !c->providers[i].name[0]) {
            return GCEV_E_INVALID_ARG;
        }
    }
    enc e = {buf, cap, 0, 0};
    put_header(&e, GCEV_IPC_SET_EVENTPIPE, (uint8_t)(version + 1));
    if (version >= 5) {
        put_u32(&e, 0); /* session_type: streaming (1 would be user_events) */
    }
    put_u32(&e, c->buffer_mb);
    put_u32(&e, c->format);
    if (version >= 4) {
        put_u64(&e, c->rundown_keyword);
    } else {
        put_u8(&e, c->request_rundown ? 1 : 0);
    }
    if (version >= 3) {
        put_u8(&e, c->stackwalk ? 1 : 0);
    }
    put_u32(&e, (uint32_t)c->nproviders);
    for (size_t i = 0; i < c->nproviders && !e.bad; i++) {
        const gcev_ipc_provider *p = &c->providers[i];
        put_u64(&e, p->keywords);
        put_u32(&e, p->level);
        put_string(&e, p->name);
        put_string(&e, p->arguments);
        if (version >= 5) {
            put_u8(&e, 0);  /* event_filter.enable = 0: disable ... */
            put_u32(&e, 0); /* ... no event id: every event of the keywords and level */
        }
    }
    if (version >= 6) {
        put_u32(&e, c->buffer_mode);
    }
    return finish(&e, len);
}
