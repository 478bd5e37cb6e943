/* SPDX-License-Identifier: MIT */
/*
 * Emits gcev_events_decode.c, the decode layer's generated code: one
 * straight-line body per template and pointer size (fixed-size ones, and the
 * variable-size ones made of scalars, strings, counted blobs and arrays of
 * fixed-size elements), the typed decoders gcev_decode_<family>() switching on
 * the version into them, and the tables that index both. Code, unlike
 * emit_tables.c's data: tests/decode/test_fastpath.c holds every body to the
 * descriptor engine's result.
 * Output is deterministic: manifest order, no dates, no absolute paths.
 */
#include "emit.h"

#include <string.h>

/* A NUL-terminated string field (no length= attribute): what a body can scan. */
static int is_nul_string(const gen_field *f)
{
    return (f->type == T_UNICODE_STRING || f->type == T_ANSI_STRING) && !f->length_ref && !f->fixed_length &&
           !f->count_ref && !f->fixed_count;
}

/* A scalar of a fixed wire size: one load and one store. */
static int is_scalar(const gen_field *f)
{
    return gen_type_fixed_size(f->type, 8) >= 0 && f->type != T_SYSTEMTIME && !f->count_ref &&
           !f->fixed_count;
}

/* A string or blob whose length is an earlier field's value (GCDynamicEvent's Data). */
static int is_counted_bytes(const gen_field *f)
{
    return (f->type == T_UNICODE_STRING || f->type == T_ANSI_STRING || f->type == T_BINARY) &&
           f->length_ref && f->length_index >= 0 && !f->fixed_length && !f->count_ref && !f->fixed_count;
}

/* Wire alignment of a type in a C-aligned element (the engine's gcev_wire_align). */
static unsigned type_align(int type, int ps)
{
    static const unsigned char aligns[T_COUNT_][2] = {
#define GEN_TYPE_ALIGN_(name, manifest_name, w4, w8, a4, a8) {a4, a8},
        GCEV_TYPE_LIST(GEN_TYPE_ALIGN_)
#undef GEN_TYPE_ALIGN_
    };
    return type >= 0 && type < T_COUNT_ ? aligns[type][ps == 8] : 1;
}

/*
 * Element stride of an array field for pointer size ps, packed or C-aligned (the
 * GCEV_Q_ALIGNED_ELEMENTS quirk): what the engine's elem_stride_of() or gcev_wire_size()
 * computes per event. 0 when the elements have no fixed size (the body leaves those to
 * the engine, which measures each one).
 */
static unsigned array_stride(const gen_field *f, int ps, int aligned)
{
    if (f->type != T_STRUCT) {
        int w = gen_type_fixed_size(f->type, ps);
        return w > 0 ? (unsigned)w : 0;
    }
    unsigned size = 0, max_align = 1;
    for (size_t c = 0; c < f->nchildren; c++) {
        const gen_field *ch = &f->children[c];
        int w = gen_type_fixed_size(ch->type, ps);
        if (w <= 0 || ch->type == T_STRUCT || ch->count_ref || ch->fixed_count) {
            return 0;
        }
        if (aligned) {
            unsigned a = type_align(ch->type, ps);
            size = (size + a - 1) / a * a;
            max_align = a > max_align ? a : max_align;
        }
        size += (unsigned)w;
    }
    return aligned ? (size + max_align - 1) / max_align * max_align : size;
}

/* An array (count= a field or a number) of fixed-size elements: one bounds check for all. */
static int is_fixed_array(const gen_field *f)
{
    if (!(f->count_ref && f->count_index >= 0) && !f->fixed_count) {
        return 0;
    }
    if (f->length_ref || f->fixed_length || (f->count_ref && f->fixed_count)) {
        return 0;
    }
    for (int ps = 4; ps <= 8; ps += 4) {
        if (!array_stride(f, ps, 0) || !array_stride(f, ps, 1) || array_stride(f, ps, 1) > 0xffff) {
            return 0;
        }
    }
    return 1;
}

/* Fixed-size scalars only: the template's size is known, one bounds check covers it. */
static int fixed_template(const gen_event *e)
{
    return !e->tmpl || e->tmpl->nfields == 0 ||
           (gen_template_flags(e->tmpl->fields, e->tmpl->nfields) & GCEV_TF_FIXED);
}

/*
 * Templates the bodies handle: fixed-size scalars, and among them NUL-terminated
 * strings (a scan each), strings and blobs of an earlier field's length, and arrays of
 * fixed-size elements counted by an earlier field or a number (one bounds check each:
 * the elements are read when asked for, as the engine leaves them). Anything else
 * (elements of varying size, SYSTEMTIME, more than 64 fields) is the engine's.
 */
static int body_template(const gen_event *e)
{
    if (fixed_template(e)) {
        return 1;
    }
    if (e->tmpl->nfields > 64) {
        return 0;
    }
    for (size_t i = 0; i < e->tmpl->nfields; i++) {
        const gen_field *f = &e->tmpl->fields[i];
        if (!is_scalar(f) && !is_nul_string(f) && !is_counted_bytes(f) && !is_fixed_array(f)) {
            return 0;
        }
        /* the store the engine makes is the family member's: the same kind on every version */
        for (size_t b = 0; b < e->family->nfields; b++) {
            if (!strcmp(e->family->fields[b]->name, f->name) &&
                strcmp(gen_store_name(e->family->fields[b]), gen_store_name(f)) != 0 && !is_scalar(f)) {
                return 0;
            }
        }
    }
    return 1;
}

/* Is field i of t the count or length of a later field (its value is kept in a local)? */
static int is_referenced(const gen_template *t, size_t i)
{
    for (size_t k = i + 1; k < t->nfields; k++) {
        const gen_field *f = &t->fields[k];
        if ((f->count_ref && f->count_index == (int)i) || (f->length_ref && f->length_index == (int)i)) {
            return 1;
        }
    }
    return 0;
}

/* Bodies differ by pointer size: a pointer among the fields, or an array (its gcev_array
 * holds the pointer size, and its elements' stride may depend on it). */
static int has_pointers(const gen_event *e)
{
    if (!e->tmpl) {
        return 0;
    }
    if (gen_template_flags(e->tmpl->fields, e->tmpl->nfields) & GCEV_TF_POINTERS) {
        return 1;
    }
    for (size_t i = 0; i < e->tmpl->nfields; i++) {
        if (is_fixed_array(&e->tmpl->fields[i])) {
            return 1;
        }
    }
    return 0;
}

/* Name suffix of the bodies of e for pointer size ps (one set for both when there is no pointer). */
static void body_name(const gen_event *e, int ps, char *out, size_t n)
{
    if (has_pointers(e)) {
        snprintf(out, n, "%s_v%u_p%d", e->family->cname, e->version, ps);
    } else {
        snprintf(out, n, "%s_v%u", e->family->cname, e->version);
    }
}

/* Payload bytes of a body template for pointer size ps. */
static unsigned body_size(const gen_event *e, int ps)
{
    unsigned size = 0;
    for (size_t i = 0; e->tmpl && i < e->tmpl->nfields; i++) {
        size += (unsigned)gen_type_fixed_size(e->tmpl->fields[i].type, ps);
    }
    return size;
}

static const gen_field *rep_of(const gen_family *fam, const gen_field *fd, size_t *bit)
{
    const gen_field *r = gen_family_member(fam, fd, bit);
    if (!r) {
        gen_fail(fd->file, fd->line, "field '%s' is not a member of its family", fd->name);
    }
    return r;
}

static int is_signed_int(int t)
{
    return t == T_INT8 || t == T_INT16 || t == T_INT32 || t == T_INT64;
}

/*
 * The straight-line body of event e for pointer size ps, in three wrappers around
 * one inline core: the core does one load and one store per field and sets the
 * present mask (the caller checked the size once for the whole template); fast_*
 * (gcev_decode_desc) and event_* (gcev_decode) check the size and hand a short
 * payload to the engine; the typed decoder inlines the core itself. The bytes the
 * core leaves in *o are exactly those of the descriptor engine on the same payload
 * (tests/decode/test_fastpath.c holds it to that): members as the engine stores them
 * (zero-extended, or sign-extended into a wider signed member), and the struct
 * zeroed first unless the template writes every member in full.
 */
static void emit_scalar_store(FILE *f, const gen_family *fam, const gen_field *fd, int ps, const char *base,
                              unsigned off, long ref)
{
    size_t bit;
    const gen_field *r = rep_of(fam, fd, &bit);
    char mn[256], ld[96], at[64];
    gen_member_name(r->name, mn, sizeof mn);
    int w = gen_type_fixed_size(fd->type, ps);
    if (base) {
        snprintf(at, sizeof at, "%s + %u", base, off);
    } else {
        snprintf(at, sizeof at, "%u", off);
    }
    switch (w) {
    case 1:
        snprintf(ld, sizeof ld, "p[%s]", at);
        break;
    case 2:
        snprintf(ld, sizeof ld, "gcev_rd_u16le(p + %s)", at);
        break;
    case 4:
        snprintf(ld, sizeof ld, "gcev_rd_u32le(p + %s)", at);
        break;
    default:
        snprintf(ld, sizeof ld, "gcev_rd_u%dle(p + %s)", 64, at);
        break;
    }
    if (fd->type == T_GUID) {
        fprintf(f, "    o->%s = gcev_guid_load(p + %s);\n", mn, at);
    } else if (fd->type == T_FLOAT || fd->type == T_DOUBLE) {
        fprintf(f, "    {\n        uint%d_t b = %s;\n        memcpy(&o->%s, &b, %d);\n    }\n", w * 8, ld, mn,
                w);
    } else {
        const char *m = gen_ctype_of(r);
        int wm = gen_type_fixed_size(r->type, 8);
        if (is_signed_int(r->type) && wm > w && is_signed_int(fd->type)) {
            /* sign-extended into the wider signed member */
            fprintf(f, "    o->%s = (%s)(int%d_t)%s;\n", mn, m, w * 8, ld);
        } else if (is_signed_int(r->type) && wm == w) {
            /* the wire's bits as they are */
            fprintf(f, "    {\n        uint%d_t b = %s;\n        memcpy(&o->%s, &b, %d);\n    }\n", w * 8, ld,
                    mn, w);
        } else {
            char lt[16];
            snprintf(lt, sizeof lt, "uint%d_t", w * 8);
            if (!strcmp(lt, m)) {
                fprintf(f, "    o->%s = %s;\n", mn, ld);
            } else {
                fprintf(f, "    o->%s = (%s)%s;\n", mn, m, ld);
            }
        }
    }
    if (ref >= 0) {
        /* the wire's value, unsigned, as the engine keeps it for count= and length= */
        fprintf(f, "    const uint64_t ref%ld = %s;\n", ref, ld);
    }
}

/*
 * A string or blob of an earlier field's length: one bounds check, the member points
 * into the payload (the engine's checks and stores, in its order).
 */
static void emit_counted_bytes(FILE *f, const char *mn, const gen_field *sf)
{
    const int utf16 = sf->type == T_UNICODE_STRING;
    fprintf(
        f,
        "    {\n        const uint64_t len = ref%d%s;\n"
        "        if (size - pos < len) {\n            return 0;\n        }\n"
        "        o->%s.data = p + pos;\n        o->%s.%s = (uint32_t)len;\n        pos += (uint32_t)len;\n"
        "    }\n",
        sf->length_index, utf16 ? " * 2" : "", mn, mn, utf16 ? "nbytes" : "size");
}

/*
 * An array of fixed-size elements: the engine's two bounds checks (count within the
 * bytes left, then count * stride), then the gcev_array it fills, elements unread.
 * The stride is the packed one, or the C-aligned one when the event has the
 * GCEV_Q_ALIGNED_ELEMENTS quirk (a constant expression of gcev_quirks.h, folded).
 * The element template is the descriptor's, reached from the provider.
 */
static void emit_array(FILE *f, const gen_provider *prov, const gen_family *fam, const gen_event *e,
                       size_t index, const char *mn, int ps)
{
    const gen_field *af = &e->tmpl->fields[index];
    char up[256];
    gen_upper(fam->cname, up, sizeof up);
    fprintf(f, "    {\n");
    if (af->count_ref) {
        fprintf(f, "        const uint64_t count = ref%d;\n", af->count_index);
    } else {
        fprintf(f, "        const uint64_t count = UINT64_C(%u);\n", af->fixed_count);
    }
    const unsigned sp = array_stride(af, ps, 0), sa = array_stride(af, ps, 1);
    if (af->type == T_STRUCT && sp != sa) {
        fprintf(
            f,
            "        const unsigned aligned = (GCEV_QUIRKS_OF(GCEV_FAMILY_%s, %u) & GCEV_Q_ALIGNED_ELEMENTS) "
            "!= 0;\n"
            "        const uint32_t stride = aligned ? %u : %u;\n",
            up, e->version, sa, sp);
    } else if (af->type == T_STRUCT) {
        fprintf(
            f,
            "        const unsigned aligned = (GCEV_QUIRKS_OF(GCEV_FAMILY_%s, %u) & GCEV_Q_ALIGNED_ELEMENTS) "
            "!= 0;\n"
            "        const uint32_t stride = %u;\n",
            up, e->version, sp);
    } else {
        fprintf(f, "        const uint32_t stride = %u;\n", sp);
    }
    fprintf(
        f,
        "        if (count > size - pos || count * stride > size - pos) {\n            return 0;\n        }\n"
        "        o->%s.data = p + pos;\n        o->%s.size = (uint32_t)(count * stride);\n"
        "        o->%s.count = (uint32_t)count;\n        o->%s.stride = (uint16_t)stride;\n"
        "        o->%s.pointer_size = %d;\n        o->%s.elem_type = %s;\n",
        mn, mn, mn, mn, mn, ps, mn, gen_type_enum(af->type));
    if (af->type == T_STRUCT) {
        const size_t ev_index = (size_t)(e - prov->events);
        fprintf(f,
                "        o->%s.aligned = (uint8_t)aligned;\n"
                "        o->%s.elem = gcev_provider_%s.events[%zu].tmpl->fields[%zu].elem;\n",
                mn, mn, prov->cshort, ev_index, index);
    }
    fprintf(f, "        pos += (uint32_t)(count * stride);\n    }\n");
}

/*
 * The straight-line body of event e for pointer size ps, in three wrappers around
 * one inline core: the core checks the payload's size once per run of scalar fields
 * (once for a fixed-size template), does one load and one store per field, scans a
 * NUL-terminated string for its end, checks a counted string, blob or array of
 * fixed-size elements against the bytes left (the elements are not read: the
 * gcev_array points at them), and sets the present mask; it returns 0 when the payload
 * is too short, a string has no terminator or a count does not fit, leaving the error
 * to the engine. fast_* (gcev_decode_desc) and event_* (gcev_decode) hand such a
 * payload to the engine; the typed decoder inlines the core. The bytes the core leaves
 * in *o are exactly those of the descriptor engine on the same payload
 * (tests/decode/test_fastpath.c holds it to that): members as the engine stores them
 * (zero-extended, or sign-extended into a wider signed member), and the struct zeroed
 * first unless the template writes every member in full.
 */
static void emit_body(FILE *f, const gen_provider *prov, const gen_family *fam, const gen_event *e, int ps)
{
    char name[300];
    body_name(e, ps, name, sizeof name);
    const gen_template *t = e->tmpl && e->tmpl->nfields ? e->tmpl : NULL;
    const int fixed = fixed_template(e);
    unsigned size = body_size(e, ps);
    int covered = fixed && t && gen_covers_family(t, fam) && (ps == 8 || !has_pointers(e));
    if (fixed) {
        fprintf(f, "/* %s (template %s)%s: %u byte%s */\n", e->symbol, t ? t->tid : "none",
                has_pointers(e) ? (ps == 8 ? ", 8-byte pointers" : ", 4-byte pointers") : "", size,
                size == 1 ? "" : "s");
    } else {
        fprintf(f, "/* %s (template %s)%s: variable size */\n", e->symbol, t->tid,
                has_pointers(e) ? (ps == 8 ? ", 8-byte pointers" : ", 4-byte pointers") : "");
    }
    fprintf(f, "static inline int core_%s(const uint8_t *p, uint32_t size, gcev_%s *o, uint32_t *used)\n{\n",
            name, fam->cname);
    if (!t) {
        fprintf(f, "    (void)p;\n    (void)size;\n");
    }
    /* the scalar runs: [first, end) of fields, their bytes */
    size_t i = 0;
    int pos_var = 0; /* offsets are relative to `pos` once a variable-size field has been read */
    unsigned off = 0;
    /* The first check comes before any store, so a short payload leaves *o alone. It asks
     * for the least any payload of the template can hold: every scalar, every string's
     * terminator (2 bytes in UTF-16, 1 in ANSI) and every array of a fixed count. That
     * also keeps an empty payload, whose data pointer may be NULL, from reaching a string
     * scan or a pointer into the payload (NULL + 0 is undefined). */
    if (t) {
        unsigned least = 0;
        for (size_t k = 0; k < t->nfields; k++) {
            const gen_field *fk = &t->fields[k];
            if (is_nul_string(fk)) {
                least += fk->type == T_UNICODE_STRING ? 2u : 1u;
            } else if (is_scalar(fk)) {
                least += (unsigned)gen_type_fixed_size(fk->type, ps);
            } else if (is_fixed_array(fk) && !fk->count_ref) {
                least += fk->fixed_count * array_stride(fk, ps, 0);
            }
        }
        if (least) {
            fprintf(f, "    if (size < %u) {\n        return 0;\n    }\n", least);
        } else if (!fixed) {
            fprintf(f, "    if (!p) {\n        return 0;\n    }\n");
        }
    }
    if (!covered) {
        fprintf(f, "    memset(o, 0, sizeof *o);\n");
    }
    if (t) {
        fprintf(f, "    o->present = UINT64_C(0x%llx);\n",
                gen_all_bits_rep(t->fields, t->nfields, fam->fields, fam->nfields));
    }
    fprintf(f, "    o->schema_version = %u;\n", e->version);
    int first_run = 1;
    while (t && i < t->nfields) {
        size_t end = i;
        unsigned run = 0;
        while (end < t->nfields && is_scalar(&t->fields[end])) {
            run += (unsigned)gen_type_fixed_size(t->fields[end].type, ps);
            end++;
        }
        if (run && !first_run) {
            fprintf(f, "    if (size - pos < %u) {\n        return 0;\n    }\n", run);
        }
        first_run = 0;
        off = 0;
        for (; i < end; i++) {
            emit_scalar_store(f, fam, &t->fields[i], ps, pos_var ? "pos" : NULL, off,
                              is_referenced(t, i) ? (long)i : -1);
            off += (unsigned)gen_type_fixed_size(t->fields[i].type, ps);
        }
        if (i == t->nfields) {
            break;
        }
        /* a variable-size field after the run */
        const gen_field *sf = &t->fields[i];
        size_t bit;
        const gen_field *r = rep_of(fam, sf, &bit);
        char mn[256];
        gen_member_name(r->name, mn, sizeof mn);
        if (!pos_var) {
            fprintf(f, "    uint32_t pos = %u;\n", off);
            pos_var = 1;
        } else if (off) {
            fprintf(f, "    pos += %u;\n", off);
        }
        if (is_counted_bytes(sf)) {
            emit_counted_bytes(f, mn, sf);
        } else if (is_fixed_array(sf)) {
            emit_array(f, prov, fam, e, i, mn, ps);
        } else if (sf->type == T_UNICODE_STRING) {
            fprintf(
                f,
                "    {\n        uint32_t n;\n"
                "        if (!gcev_utf16_nul_scan(p + pos, size - pos, &n)) {\n            return 0;\n       "
                " }\n"
                "        o->%s.data = p + pos;\n        o->%s.nbytes = n;\n        pos += n + 2;\n    }\n",
                mn, mn);
        } else {
            fprintf(f,
                    "    {\n        const uint8_t *z = memchr(p + pos, 0, size - pos);\n"
                    "        if (!z) {\n            return 0;\n        }\n"
                    "        const uint32_t n = (uint32_t)(z - (p + pos));\n"
                    "        o->%s.data = p + pos;\n        o->%s.size = n;\n        pos += n + 1;\n    }\n",
                    mn, mn);
        }
        off = 0;
        i++;
    }
    if (pos_var && off) {
        fprintf(f, "    *used = pos + %u;\n    return 1;\n}\n\n", off);
    } else if (pos_var) {
        fprintf(f, "    *used = pos;\n    return 1;\n}\n\n");
    } else {
        fprintf(f, "    *used = %u;\n    return 1;\n}\n\n", size);
    }
    fprintf(f,
            "static int fast_%s(const uint8_t *p, uint32_t size, void *out, uint32_t *consumed)\n{\n"
            "    return core_%s(p, size, out, consumed);\n}\n\n",
            name, name);
    fprintf(f, "static gcev_status event_%s(const gcev_input *in, gcev_event *ev, gcev_error *err)\n{\n",
            name);
    fprintf(f,
            "    const uint32_t size = (uint32_t)in->size;\n    uint32_t used;\n"
            "    if (!core_%s(in->data, size, &ev->u.%s, &used)) {\n"
            "        return gcev_decode_engine_event(in, ev, err); /* the field and offset */\n    }\n"
            "    ev->consumed = used;\n    ev->trailing = size - used;\n    return GCEV_OK;\n}\n\n",
            name, fam->cname);
}

/* The typed decoder's case for e: the core inlined. */
static void body_case(FILE *f, const gen_event *e, const char *indent)
{
    char b4[300], b8[300];
    body_name(e, 4, b4, sizeof b4);
    body_name(e, 8, b8, sizeof b8);
    if (has_pointers(e)) {
        fprintf(f,
                "%sif (pointer_size == 8 ? core_%s(data, n, out, &used) : core_%s(data, n, out, &used)) {\n",
                indent, b8, b4);
    } else {
        fprintf(f, "%sif (core_%s(data, n, out, &used)) {\n", indent, b8);
    }
    fprintf(f, "%s    goto done;\n%s}\n", indent, indent);
}

static void emit_typed_decoder(FILE *f, const gen_family *fam)
{
    char up[256];
    gen_upper(fam->cname, up, sizeof up);
    const gen_event *newest = fam->versions[fam->nversions - 1];
    size_t nbodies = 0;
    for (size_t v = 0; v < fam->nversions; v++) {
        nbodies += body_template(fam->versions[v]) != 0;
    }
    fprintf(f,
            "gcev_status gcev_decode_%s(const uint8_t *data, size_t size, uint16_t version, uint8_t "
            "pointer_size,\n"
            "    gcev_%s *out, uint32_t *consumed, gcev_error *err)\n{\n",
            fam->cname, fam->cname);
    if (nbodies) {
        fprintf(f, "    uint32_t used;\n"
                   "    if (out && data && size < UINT32_MAX && (pointer_size == 4 || pointer_size == 8)) {\n"
                   "        const uint32_t n = (uint32_t)size;\n"
                   "        switch (version) {\n");
        for (size_t v = 0; v < fam->nversions; v++) {
            const gen_event *e = fam->versions[v];
            if (!body_template(e) || e == newest) {
                continue;
            }
            fprintf(f, "        case %u:\n", e->version);
            body_case(f, e, "            ");
            fprintf(f, "            break;\n");
        }
        fprintf(f, "        default: /* the newest, also for newer versions (they only append fields) */\n");
        if (body_template(newest) && newest->version == 0) {
            body_case(f, newest, "            ");
        } else if (body_template(newest)) {
            fprintf(f, "            if (version >= %u) {\n", newest->version);
            body_case(f, newest, "                ");
            fprintf(f, "            }\n");
        }
        fprintf(f, "            break;\n        }\n    }\n");
    }
    fprintf(f,
            "    /* a payload too short, a version without a body, bad arguments: the engine */\n"
            "    return gcev_decode_engine_family(GCEV_FAMILY_%s, version, pointer_size, data, size, out, "
            "consumed, err);\n",
            up);
    if (nbodies) {
        fprintf(f, "done:\n    if (consumed) {\n        *consumed = used;\n    }\n    return GCEV_OK;\n");
    }
    fprintf(f, "}\n\n");
    fprintf(f,
            "static gcev_status typed_%s(const uint8_t *data, size_t size, uint16_t version, uint8_t "
            "pointer_size,\n"
            "    void *out, uint32_t *consumed, gcev_error *err)\n{\n"
            "    return gcev_decode_%s(data, size, version, pointer_size, out, consumed, err);\n}\n\n",
            fam->cname, fam->cname);
}

void gen_emit_decoder(const gen_model *m, FILE *f)
{
    gen_banner(m, f);
    fprintf(f, "/*\n"
               " * Straight-line decode bodies, one per template and pointer size (all but templates\n"
               " * with elements of varying size), and the typed decoders gcev_decode_<family>() that\n"
               " * switch on the version into them. A body that cannot decode (payload too short, a\n"
               " * string without its terminator, a count past the end) hands over to the descriptor\n"
               " * engine, which reports the field and offset.\n"
               " */\n");
    fprintf(f, "#include <gcev/gcev.h>\n\n#include <string.h>\n\n#include \"gcev_decode.h\"\n#include "
               "\"gcev_fast.h\"\n#include \"gcev_quirks.h\"\n#include \"gcev_read.h\"\n#include "
               "\"gcev_utf16_scan.h\"\n\n");
    for (size_t pi = 0; pi < m->nproviders; pi++) {
        const gen_provider *p = &m->providers[pi];
        fprintf(f, "/* ---- %s ---- */\n\n", p->name);
        for (size_t k = 0; k < p->nfamilies; k++) {
            const gen_family *fam = &p->families[k];
            for (size_t v = 0; v < fam->nversions; v++) {
                const gen_event *e = fam->versions[v];
                if (!body_template(e)) {
                    continue;
                }
                emit_body(f, p, fam, e, 8);
                if (has_pointers(e)) {
                    emit_body(f, p, fam, e, 4);
                }
            }
            emit_typed_decoder(f, fam);
        }
    }
    for (int table = 0; table < 2; table++) {
        if (table == 0) {
            fprintf(f,
                    "/* Per event description (gcev_event_desc.index): its bodies for gcev_decode_desc, for\n"
                    " * pointer size 4 and 8. */\nconst gcev_fast_fn gcev_gen_fast[][2] = {\n");
        } else {
            fprintf(f, "/* The same for gcev_decode. */\nconst gcev_event_fn gcev_gen_fast_event[][2] = {\n");
        }
        unsigned index = 0;
        for (size_t pi = 0; pi < m->nproviders; pi++) {
            const gen_provider *p = &m->providers[pi];
            for (size_t i = 0; i < p->nevents; i++) {
                const gen_event *e = &p->events[i];
                const char *kind = table ? "event" : "fast";
                if (body_template(e)) {
                    char b4[300], b8[300];
                    body_name(e, 4, b4, sizeof b4);
                    body_name(e, 8, b8, sizeof b8);
                    fprintf(f, "    [%u] = {%s_%s, %s_%s},\n", index, kind, b4, kind, b8);
                } else {
                    fprintf(f, "    [%u] = {NULL, NULL}, /* %s: variable size, the engine decodes it */\n",
                            index, e->symbol);
                }
                index++;
            }
        }
        fprintf(f, "};\n");
        if (table == 0) {
            fprintf(f, "const size_t gcev_gen_nfast = %u;\n", index);
        }
        fprintf(f, "\n");
    }
    fprintf(f,
            "/* Per family: its typed decoder with a void * struct (tests call every one). */\n"
            "const gcev_typed_fn gcev_gen_typed[GCEV_FAMILY_COUNT_] = {\n    [GCEV_FAMILY_NONE] = NULL,\n");
    for (size_t pi = 0; pi < m->nproviders; pi++) {
        const gen_provider *p = &m->providers[pi];
        for (size_t k = 0; k < p->nfamilies; k++) {
            char up[256];
            gen_upper(p->families[k].cname, up, sizeof up);
            fprintf(f, "    [GCEV_FAMILY_%s] = typed_%s,\n", up, p->families[k].cname);
        }
    }
    fprintf(f, "};\n");
}
