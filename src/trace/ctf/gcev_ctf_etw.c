/* SPDX-License-Identifier: MIT */
/* LTTng event classes to gcev events and ETW-layout payloads (gcev_ctf_etw.h). */
#include "gcev_ctf_etw.h"

#include <stdlib.h>
#include <string.h>

#include "gcev_schema_desc.h"
#include "gcev_vec.h"

static const char RUNTIME_PREFIX[] = "DotNETRuntime";
static const char ETW_PREFIX[] = "Microsoft-Windows-";

/* LTTng field names carry a leading '_' that the manifest's do not. */
static const char *bare_name(const char *n)
{
    return n[0] == '_' ? n + 1 : n;
}

static const gcev_event_desc *find_symbol(const gcev_provider *p, const char *symbol)
{
    for (uint16_t i = 0; i < p->nevents; i++) {
        const char *s = p->events[i].symbol;
        if (s && strcmp(s, symbol) == 0) {
            return &p->events[i];
        }
    }
    return NULL;
}

static int is_byte_int(const gcev_ctf_type *t)
{
    return (t->kind == GCEV_CTF_INT || t->kind == GCEV_CTF_ENUM) && t->size == 8 && t->align % 8 == 0;
}

static int is_byte_seq(const gcev_ctf_type *t)
{
    return (t->kind == GCEV_CTF_ARRAY || t->kind == GCEV_CTF_SEQUENCE) && is_byte_int(t->elem) &&
           t->align % 8 == 0;
}

static int is_int(const gcev_ctf_type *t)
{
    return t->kind == GCEV_CTF_INT || t->kind == GCEV_CTF_ENUM;
}

/* The generic plan of one field (no template): 0 when it has no ETW form. */
static int plan_generic(const gcev_ctf_type *t, gcev_ctf_emit *e)
{
    switch (t->kind) {
    case GCEV_CTF_INT:
    case GCEV_CTF_ENUM:
        if (t->size % 8) {
            return 0;
        }
        e->action = GCEV_CTF_EMIT_INT;
        e->width = (uint8_t)(t->size / 8);
        return 1;
    case GCEV_CTF_FLOAT:
        e->action = GCEV_CTF_EMIT_FLOAT;
        e->width = (uint8_t)(t->size / 8);
        return 1;
    case GCEV_CTF_STRING:
        e->action = GCEV_CTF_EMIT_UTF16;
        return 1;
    case GCEV_CTF_ARRAY:
    case GCEV_CTF_SEQUENCE:
        if (is_byte_seq(t)) {
            e->action = GCEV_CTF_EMIT_BYTES;
            e->width = 1;
            return 1;
        }
        if (is_int(t->elem) && t->elem->size % 8 == 0 && t->elem->align <= t->elem->size &&
            t->elem->size % t->elem->align == 0) {
            e->action = GCEV_CTF_EMIT_INTS;
            e->width = (uint8_t)(t->elem->size / 8);
            return 1;
        }
        return 0;
    default:
        return 0;
    }
}

/* The plan of one field against its manifest field: 0 on a mismatch. */
static int plan_field(const gcev_field_desc *fd, const gcev_ctf_field *cf, uint8_t pointer_size,
                      gcev_ctf_emit *e)
{
    if (strcmp(bare_name(cf->name), fd->name) != 0) {
        return 0;
    }
    if (fd->count_field >= 0 || fd->fixed_count || fd->elem || fd->type == GCEV_T_STRUCT) {
        return 0; /* arrays come as the ___data__ blob */
    }
    const gcev_ctf_type *t = cf->type;
    unsigned w = 0;
    switch (fd->type) {
    case GCEV_T_INT8:
    case GCEV_T_UINT8:
        w = 1;
        break;
    case GCEV_T_INT16:
    case GCEV_T_UINT16:
        w = 2;
        break;
    case GCEV_T_INT32:
    case GCEV_T_UINT32:
    case GCEV_T_BOOLEAN:
        w = 4;
        break;
    case GCEV_T_INT64:
    case GCEV_T_UINT64:
    case GCEV_T_FILETIME:
        w = 8;
        break;
    case GCEV_T_POINTER:
        w = pointer_size;
        break;
    case GCEV_T_FLOAT:
    case GCEV_T_DOUBLE: {
        unsigned fw = fd->type == GCEV_T_FLOAT ? 4 : 8;
        if (t->kind != GCEV_CTF_FLOAT || t->size != fw * 8) {
            return 0;
        }
        e->action = GCEV_CTF_EMIT_FLOAT;
        e->width = (uint8_t)fw;
        return 1;
    }
    case GCEV_T_UNICODE_STRING:
    case GCEV_T_ANSI_STRING:
        if (t->kind != GCEV_CTF_STRING) {
            return 0;
        }
        e->action = fd->type == GCEV_T_UNICODE_STRING ? GCEV_CTF_EMIT_UTF16 : GCEV_CTF_EMIT_ANSI;
        return 1;
    case GCEV_T_GUID:
    case GCEV_T_SYSTEMTIME:
        if (t->kind != GCEV_CTF_ARRAY || !is_byte_seq(t) || t->length != 16) {
            return 0;
        }
        e->action = GCEV_CTF_EMIT_BYTES;
        e->width = 1;
        return 1;
    case GCEV_T_BINARY:
        if (!is_byte_seq(t)) {
            return 0;
        }
        e->action = GCEV_CTF_EMIT_BYTES;
        e->width = 1;
        return 1;
    default:
        return 0;
    }
    /* integers of any byte width convert to the manifest's width */
    if (!is_int(t) || t->size % 8 || t->size / 8 > 8) {
        return 0;
    }
    e->action = GCEV_CTF_EMIT_INT;
    e->width = (uint8_t)w;
    return 1;
}

gcev_status gcev_ctf_class_plan(const gcev_ctf_event_class *ev, const char *default_provider,
                                uint8_t pointer_size, gcev_ctf_class_map *out)
{
    memset(out, 0, sizeof *out);
    const char *name = ev->name ? ev->name : "";
    const char *colon = strchr(name, ':');
    size_t plen = colon ? (size_t)(colon - name) : 0;
    const char *evname = colon ? colon + 1 : name;
    const gcev_ctf_type *ft = ev->fields;
    uint32_t nf = ft ? ft->nfields : 0;
    /* one block: emit plan, then the provider name (when it is not a compiled one), then the event name */
    size_t need = nf * sizeof(gcev_ctf_emit) + sizeof ETW_PREFIX + plen + strlen(default_provider) + 2 +
                  strlen(evname) + 1;
    char *blk = malloc(need);
    if (!blk) {
        return GCEV_E_NOMEM;
    }
    out->owned = blk;
    gcev_ctf_emit *emit = (gcev_ctf_emit *)(void *)blk;
    memset(emit, 0, nf * sizeof *emit);
    char *s = blk + nf * sizeof(gcev_ctf_emit);
    out->emit = emit;
    out->nemit = nf;
    strcpy(s, evname);
    out->event_name = s;
    s += strlen(evname) + 1;

    const gcev_provider *prov = NULL;
    if (colon && plen >= sizeof RUNTIME_PREFIX - 1 &&
        memcmp(name, RUNTIME_PREFIX, sizeof RUNTIME_PREFIX - 1) == 0) {
        out->runtime = 1;
        memcpy(s, ETW_PREFIX, sizeof ETW_PREFIX - 1);
        memcpy(s + sizeof ETW_PREFIX - 1, name, plen);
        s[sizeof ETW_PREFIX - 1 + plen] = '\0';
        out->provider_name = s;
        prov = gcev_provider_find(s);
        if (prov) {
            out->provider_name = prov->name;
        }
    } else if (colon) {
        memcpy(s, name, plen);
        s[plen] = '\0';
        out->provider_name = s;
    } else {
        strcpy(s, default_provider);
        out->provider_name = s;
    }
    if (!out->runtime) {
        out->raw = 1;
        return GCEV_OK;
    }
    /* the ETW payload as one blob */
    int blob = ft ? gcev_ctf_type_find(ft, "___data__") : -1;
    if (blob >= 0 && is_byte_seq(ft->fields[blob].type)) {
        emit[blob].action = GCEV_CTF_EMIT_BYTES;
        emit[blob].width = 1;
        out->desc = prov ? find_symbol(prov, evname) : NULL;
        out->provider = out->desc ? prov : NULL;
        return GCEV_OK;
    }
    const gcev_event_desc *d = prov ? find_symbol(prov, evname) : NULL;
    int ok = 1;
    if (d) {
        const gcev_template *tm = d->tmpl;
        uint32_t tn = tm ? tm->nfields : 0;
        if (tn != nf) {
            ok = 0;
        }
        for (uint32_t i = 0; ok && i < nf; i++) {
            ok = plan_field(&tm->fields[i], &ft->fields[i], pointer_size, &emit[i]);
        }
        if (ok) {
            out->desc = d;
            out->provider = prov;
            return GCEV_OK;
        }
        /* the fields are not the manifest's: keep the name, carry no id */
    }
    for (uint32_t i = 0; i < nf; i++) {
        if (!plan_generic(ft->fields[i].type, &emit[i])) {
            out->raw = 1;
            return GCEV_OK;
        }
    }
    return GCEV_OK;
}

void gcev_ctf_class_map_free(gcev_ctf_class_map *m)
{
    if (m) {
        free(m->owned);
        memset(m, 0, sizeof *m);
    }
}

static int buf_need(gcev_ctf_buf *b, size_t more)
{
    if (more > SIZE_MAX - b->size) {
        return 0;
    }
    return gcev_reserve((void **)&b->data, &b->cap, b->size + more, 1);
}

static void put_le(uint8_t *p, uint64_t v, unsigned w)
{
    for (unsigned i = 0; i < w; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/* UTF-8 (possibly invalid) to UTF-16LE code units; invalid sequences become U+FFFD. */
static int put_utf16(gcev_ctf_buf *b, const uint8_t *s, size_t n)
{
    if (!buf_need(b, n * 2 + 2)) { /* each byte yields at most one unit (4-byte forms: 2 units) */
        return 0;
    }
    uint8_t *o = b->data + b->size;
    size_t i = 0;
    while (i < n) {
        uint32_t c = s[i], cp = 0xFFFD;
        size_t len = 1;
        if (c < 0x80) {
            cp = c;
        } else if (c >= 0xC2 && c <= 0xDF && i + 1 < n && (s[i + 1] & 0xC0) == 0x80) {
            cp = (c & 0x1F) << 6 | (s[i + 1] & 0x3F);
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF && i + 2 < n && (s[i + 1] & 0xC0) == 0x80 &&
                   (s[i + 2] & 0xC0) == 0x80) {
            cp = (c & 0x0F) << 12 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
            len = 3;
            if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) {
                cp = 0xFFFD;
            }
        } else if (c >= 0xF0 && c <= 0xF4 && i + 3 < n && (s[i + 1] & 0xC0) == 0x80 &&
                   (s[i + 2] & 0xC0) == 0x80 && (s[i + 3] & 0xC0) == 0x80) {
            cp = (c & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3F) << 12 | (uint32_t)(s[i + 2] & 0x3F) << 6 |
                 (s[i + 3] & 0x3F);
            len = 4;
            if (cp < 0x10000 || cp > 0x10FFFF) {
                cp = 0xFFFD;
            }
        }
        if (cp >= 0x10000) {
            uint32_t v = cp - 0x10000;
            put_le(o, 0xD800 | (v >> 10), 2);
            put_le(o + 2, 0xDC00 | (v & 0x3FF), 2);
            o += 4;
        } else {
            put_le(o, cp, 2);
            o += 2;
        }
        i += len;
    }
    o[0] = 0;
    o[1] = 0;
    o += 2;
    b->size = (size_t)(o - b->data);
    return 1;
}

gcev_status gcev_ctf_payload(const gcev_ctf_class_map *m, const gcev_ctf_type *fields,
                             const gcev_ctf_slot *slots, const uint8_t *data, int native_be,
                             gcev_ctf_buf *out, const uint8_t **payload, uint32_t *size)
{
    *payload = NULL;
    *size = 0;
    uint32_t nf = fields ? fields->nfields : 0;
    if (nf == 0) {
        return GCEV_OK;
    }
    if (m->raw) {
        /* the fields' bytes as they are (byte range covering them) */
        uint64_t a = slots[0].start >> 3, z = (slots[nf - 1].end + 7) >> 3;
        if (z > a && z - a <= UINT32_MAX) {
            *payload = data + a;
            *size = (uint32_t)(z - a);
        }
        return GCEV_OK;
    }
    out->size = 0;
    for (uint32_t i = 0; i < nf; i++) {
        const gcev_ctf_emit *e = &m->emit[i];
        const gcev_ctf_slot *s = &slots[i];
        const gcev_ctf_type *t = fields->fields[i].type;
        switch (e->action) {
        case GCEV_CTF_EMIT_INT:
        case GCEV_CTF_EMIT_FLOAT:
            if (!buf_need(out, e->width)) {
                return GCEV_E_NOMEM;
            }
            put_le(out->data + out->size, s->value, e->width);
            out->size += e->width;
            break;
        case GCEV_CTF_EMIT_UTF16:
        case GCEV_CTF_EMIT_ANSI: {
            const uint8_t *p = data + (s->start >> 3);
            size_t n = (size_t)((s->end >> 3) - (s->start >> 3)); /* with its NUL */
            if (e->action == GCEV_CTF_EMIT_UTF16) {
                if (!put_utf16(out, p, n ? n - 1 : 0)) {
                    return GCEV_E_NOMEM;
                }
            } else {
                if (!buf_need(out, n)) {
                    return GCEV_E_NOMEM;
                }
                memcpy(out->data + out->size, p, n);
                out->size += n;
            }
            break;
        }
        case GCEV_CTF_EMIT_BYTES: {
            size_t n = (size_t)((s->end - s->start) >> 3);
            if (!buf_need(out, n)) {
                return GCEV_E_NOMEM;
            }
            if (n) {
                memcpy(out->data + out->size, data + (s->start >> 3), n);
            }
            out->size += n;
            break;
        }
        case GCEV_CTF_EMIT_INTS: {
            const gcev_ctf_type *el = t->elem;
            uint64_t cnt = s->value;
            if (cnt > SIZE_MAX / e->width || !buf_need(out, (size_t)cnt * e->width)) {
                return GCEV_E_NOMEM;
            }
            int be = gcev_ctf_is_be(el, native_be);
            for (uint64_t k = 0; k < cnt; k++) {
                uint64_t v = gcev_ctf_read_bits(data, s->start + k * el->size, el->size, be);
                put_le(out->data + out->size, v, e->width);
                out->size += e->width;
            }
            break;
        }
        default:
            break;
        }
    }
    if (out->size > UINT32_MAX) {
        return GCEV_E_NOMEM;
    }
    *payload = out->size ? out->data : NULL;
    *size = (uint32_t)out->size;
    return GCEV_OK;
}
