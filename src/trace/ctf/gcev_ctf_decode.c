/* SPDX-License-Identifier: MIT */
/* CTF type decoding over one packet (gcev_ctf_decode.h). */
#include "gcev_ctf_decode.h"

#include <stdlib.h>
#include <string.h>

#include "gcev_vec.h"

uint64_t gcev_ctf_read_bits(const uint8_t *data, uint64_t pos, uint32_t len, int big_endian)
{
    uint64_t v = 0;
    const uint8_t *p = data + (pos >> 3);
    unsigned shift = (unsigned)(pos & 7);
    if (shift == 0 && (len & 7) == 0) {
        unsigned n = len >> 3;
        if (big_endian) {
            for (unsigned i = 0; i < n; i++) {
                v = v << 8 | p[i];
            }
        } else {
            for (unsigned i = n; i-- > 0;) {
                v = v << 8 | p[i];
            }
        }
        return v;
    }
    uint32_t got = 0;
    if (big_endian) {
        /* bit 0 of the stream is the most significant bit of its byte */
        while (got < len) {
            unsigned avail = 8 - shift;
            unsigned take = len - got < avail ? len - got : avail;
            uint64_t bits = ((uint64_t)*p >> (avail - take)) & ((1u << take) - 1);
            v = (v << take) | bits;
            got += take;
            shift = 0;
            p++;
        }
    } else {
        /* bit 0 of the stream is the least significant bit of its byte */
        while (got < len) {
            unsigned avail = 8 - shift;
            unsigned take = len - got < avail ? len - got : avail;
            uint64_t bits = ((uint64_t)*p >> shift) & ((1u << take) - 1);
            v |= bits << got;
            got += take;
            shift = 0;
            p++;
        }
    }
    return v;
}

const char *gcev_ctf_enum_label(const gcev_ctf_type *t, uint64_t v)
{
    for (uint32_t i = 0; i < t->nentries; i++) {
        const gcev_ctf_enum_entry *e = &t->entries[i];
        int in = t->is_signed ? ((int64_t)v >= (int64_t)e->lo && (int64_t)v <= (int64_t)e->hi)
                              : (v >= e->lo && v <= e->hi);
        if (in) {
            return e->label;
        }
    }
    return NULL;
}

/* A struct being decoded: its type and where its slots are (scratch index or a root's array). */
typedef struct frame {
    const gcev_ctf_type *type;
    gcev_ctf_slot *root_slots; /* the root's own slots, or NULL: scratch[base ...] */
    size_t base;
    uint32_t done; /* fields decoded so far */
    const struct frame *parent;
} frame;

static gcev_ctf_slot *frame_slots(gcev_ctf_cursor *c, const frame *f)
{
    return f->root_slots ? f->root_slots : c->scratch + f->base;
}

static gcev_status dfail(gcev_ctf_cursor *c, gcev_status st, uint64_t pos, const char *msg)
{
    c->err_pos = pos;
    c->err_msg = msg;
    return st;
}

/* Needs `bits` bits at c->pos. */
static gcev_status need(gcev_ctf_cursor *c, uint64_t bits)
{
    if (c->pos > c->end || bits > c->end - c->pos) {
        return dfail(c, GCEV_E_FORMAT, c->pos, "event data goes past the packet's content size");
    }
    if (c->pos > c->avail || bits > c->avail - c->pos) {
        return dfail(c, GCEV_E_TRUNCATED_FILE, c->pos, "stream file ends inside this event");
    }
    return GCEV_OK;
}

static gcev_status align_to(gcev_ctf_cursor *c, uint32_t align)
{
    if (align > 1) {
        uint64_t m = (uint64_t)align - 1;
        if (c->pos > UINT64_MAX - m) {
            return dfail(c, GCEV_E_FORMAT, c->pos, "alignment overflows");
        }
        c->pos = (c->pos + m) & ~m;
    }
    if (c->pos > c->end) {
        return dfail(c, GCEV_E_FORMAT, c->pos, "event data goes past the packet's content size");
    }
    return GCEV_OK;
}

static const char *const root_names[GCEV_CTF_NROOTS] = {"trace.packet.header.", "stream.packet.context.",
                                                        "stream.event.header.", "stream.event.context.",
                                                        "event.context.",       "event.fields."};

/* Resolves a length/tag path to a decoded integer/enum field: its slot and type. */
static gcev_status resolve(gcev_ctf_cursor *c, const frame *f, const char *path, const gcev_ctf_slot **slot,
                           const gcev_ctf_type **type)
{
    for (int r = 0; r < GCEV_CTF_NROOTS; r++) {
        size_t n = strlen(root_names[r]);
        if (strncmp(path, root_names[r], n) == 0) {
            const char *rest = path + n;
            if (strchr(rest, '.')) {
                return dfail(c, GCEV_E_UNSUPPORTED, c->pos, "path into a nested struct is not supported");
            }
            /* a completed root has its slots kept */
            const gcev_ctf_type *rt = c->root_type[r];
            const gcev_ctf_slot *rs = c->root_slots[r];
            if (rt && rs) {
                int i = gcev_ctf_type_find(rt, rest);
                if (i >= 0) {
                    *slot = &rs[i];
                    *type = rt->fields[i].type;
                    return GCEV_OK;
                }
            }
            /* the root may be the one being decoded: look in the outermost frame */
            const frame *g = f;
            while (g && g->parent) {
                g = g->parent;
            }
            if (g && r == c->cur_root) {
                int i = gcev_ctf_type_find(g->type, rest);
                if (i >= 0 && (uint32_t)i < g->done) {
                    *slot = &frame_slots(c, g)[i];
                    *type = g->type->fields[i].type;
                    return GCEV_OK;
                }
            }
            return dfail(c, GCEV_E_FORMAT, c->pos, "a sequence length or variant tag names no decoded field");
        }
    }
    if (strchr(path, '.')) {
        return dfail(c, GCEV_E_UNSUPPORTED, c->pos, "dotted relative paths are not supported");
    }
    for (const frame *g = f; g; g = g->parent) {
        int i = gcev_ctf_type_find(g->type, path);
        if (i >= 0 && (uint32_t)i < g->done) {
            *slot = &frame_slots(c, g)[i];
            *type = g->type->fields[i].type;
            return GCEV_OK;
        }
    }
    return dfail(c, GCEV_E_FORMAT, c->pos, "a sequence length or variant tag names no decoded field");
}

static gcev_status dec(gcev_ctf_cursor *c, const frame *f, const gcev_ctf_type *t, const char *name,
                       gcev_ctf_slot *out);

static gcev_status dec_struct(gcev_ctf_cursor *c, const frame *parent, const gcev_ctf_type *t,
                              gcev_ctf_slot *root_slots)
{
    frame fr = {t, root_slots, 0, 0, parent};
    size_t base = 0;
    if (!root_slots) {
        /* nested: slots on the scratch stack above the parent's */
        size_t top = 0;
        for (const frame *g = parent; g; g = g->parent) {
            if (!g->root_slots) {
                top = g->base + g->type->nfields;
                break;
            }
        }
        base = top;
        if (t->nfields &&
            !gcev_reserve((void **)&c->scratch, &c->scratch_cap, base + t->nfields, sizeof *c->scratch)) {
            return dfail(c, GCEV_E_NOMEM, c->pos, "out of memory");
        }
        fr.base = base;
    }
    for (uint32_t i = 0; i < t->nfields; i++) {
        gcev_ctf_slot s = {0, 0, 0};
        gcev_status st = dec(c, &fr, t->fields[i].type, t->fields[i].name, &s);
        if (st != GCEV_OK) {
            return st;
        }
        frame_slots(c, &fr)[i] = s;
        fr.done = i + 1;
    }
    return GCEV_OK;
}

static gcev_status dec(gcev_ctf_cursor *c, const frame *f, const gcev_ctf_type *t, const char *name,
                       gcev_ctf_slot *out)
{
    if (c->work == 0) {
        return dfail(c, GCEV_E_LIMIT, c->pos, "event needs more decode steps than its size allows");
    }
    c->work--;
    gcev_status st;
    if (t->kind != GCEV_CTF_VARIANT) {
        st = align_to(c, t->align);
        if (st != GCEV_OK) {
            return st;
        }
    }
    out->start = c->pos;
    switch (t->kind) {
    case GCEV_CTF_INT:
    case GCEV_CTF_ENUM:
    case GCEV_CTF_FLOAT: {
        st = need(c, t->size);
        if (st != GCEV_OK) {
            return st;
        }
        uint64_t v = gcev_ctf_read_bits(c->data, c->pos, t->size, gcev_ctf_is_be(t, c->native_be));
        if (t->kind != GCEV_CTF_FLOAT && t->is_signed && t->size < 64 && (v >> (t->size - 1)) & 1) {
            v |= ~(uint64_t)0 << t->size;
        }
        c->pos += t->size;
        out->value = v;
        if (c->on_int && t->kind != GCEV_CTF_FLOAT) {
            c->on_int(c->ctx, name, t, v);
        }
        break;
    }
    case GCEV_CTF_STRING: {
        /* strings are byte-aligned (align 8) */
        uint64_t limit = c->end < c->avail ? c->end : c->avail;
        uint64_t p = c->pos >> 3, lim = limit >> 3;
        const uint8_t *z = p < lim ? memchr(c->data + p, 0, (size_t)(lim - p)) : NULL;
        if (!z) {
            if (c->avail < c->end) {
                return dfail(c, GCEV_E_TRUNCATED_FILE, c->pos, "stream file ends inside a string");
            }
            return dfail(c, GCEV_E_FORMAT, c->pos, "string not terminated before the packet's content end");
        }
        c->pos = ((uint64_t)(z - c->data) + 1) << 3;
        break;
    }
    case GCEV_CTF_STRUCT:
        st = dec_struct(c, f, t, NULL);
        if (st != GCEV_OK) {
            return st;
        }
        break;
    case GCEV_CTF_VARIANT: {
        const gcev_ctf_slot *ts;
        const gcev_ctf_type *tt;
        if (!t->ref) {
            return dfail(c, GCEV_E_FORMAT, c->pos, "variant without a tag");
        }
        st = resolve(c, f, t->ref, &ts, &tt);
        if (st != GCEV_OK) {
            return st;
        }
        if (tt->kind != GCEV_CTF_ENUM) {
            return dfail(c, GCEV_E_FORMAT, c->pos, "variant tag is not an enumeration");
        }
        const char *label = gcev_ctf_enum_label(tt, ts->value);
        int i = label ? gcev_ctf_type_find(t, label) : -1;
        if (i < 0) {
            return dfail(c, GCEV_E_FORMAT, c->pos, "variant tag value selects no option");
        }
        gcev_ctf_slot s = {0, 0, 0};
        st = dec(c, f, t->fields[i].type, t->fields[i].name, &s);
        if (st != GCEV_OK) {
            return st;
        }
        out->start = s.start;
        out->value = (uint64_t)i;
        break;
    }
    case GCEV_CTF_ARRAY:
    case GCEV_CTF_SEQUENCE: {
        uint64_t n = t->length;
        if (t->kind == GCEV_CTF_SEQUENCE) {
            const gcev_ctf_slot *ls;
            const gcev_ctf_type *lt;
            if (!t->ref) {
                return dfail(c, GCEV_E_FORMAT, c->pos, "sequence without a length");
            }
            st = resolve(c, f, t->ref, &ls, &lt);
            if (st != GCEV_OK) {
                return st;
            }
            if (lt->kind != GCEV_CTF_INT && lt->kind != GCEV_CTF_ENUM) {
                return dfail(c, GCEV_E_FORMAT, c->pos, "sequence length is not an integer");
            }
            if (lt->is_signed && (int64_t)ls->value < 0) {
                return dfail(c, GCEV_E_FORMAT, c->pos, "negative sequence length");
            }
            n = ls->value;
        }
        out->value = n;
        const gcev_ctf_type *e = t->elem;
        if ((e->kind == GCEV_CTF_INT || e->kind == GCEV_CTF_FLOAT || e->kind == GCEV_CTF_ENUM) &&
            e->size % e->align == 0) {
            /* contiguous fixed-size elements: one bounds check */
            if (n && e->size > (c->end - c->pos) / n) {
                return dfail(c, GCEV_E_FORMAT, c->pos,
                             "array or sequence goes past the packet's content size");
            }
            st = need(c, n * e->size);
            if (st != GCEV_OK) {
                return st;
            }
            /* the elements are not reported to on_int one by one (LTTng puts none in headers) */
            c->pos += n * e->size;
            break;
        }
        for (uint64_t k = 0; k < n; k++) {
            gcev_ctf_slot s = {0, 0, 0};
            st = dec(c, f, e, name, &s);
            if (st != GCEV_OK) {
                return st;
            }
        }
        break;
    }
    default:
        return dfail(c, GCEV_E_FORMAT, c->pos, "unknown type");
    }
    out->end = c->pos;
    return GCEV_OK;
}

gcev_status gcev_ctf_decode_root(gcev_ctf_cursor *c, int root, const gcev_ctf_type *t, gcev_ctf_slot *slots)
{
    c->root_type[root] = NULL;
    c->root_slots[root] = NULL;
    c->cur_root = root;
    if (!t) {
        return GCEV_OK;
    }
    if (c->work == 0) {
        return dfail(c, GCEV_E_LIMIT, c->pos, "event needs more decode steps than its size allows");
    }
    c->work--;
    gcev_status st = align_to(c, t->align);
    if (st != GCEV_OK) {
        return st;
    }
    st = dec_struct(c, NULL, t, slots);
    if (st != GCEV_OK) {
        return st;
    }
    c->root_type[root] = t;
    c->root_slots[root] = slots;
    return GCEV_OK;
}

void gcev_ctf_cursor_free(gcev_ctf_cursor *c)
{
    free(c->scratch);
    c->scratch = NULL;
    c->scratch_cap = 0;
}
