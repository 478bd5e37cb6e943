/* SPDX-License-Identifier: MIT */
/*
 * Emits, into gcev_events.c beside each event template's descriptors, what gcev_fields()
 * needs to hand out every field of a decoded event without interpreting the descriptors
 * field by field: the field names (one array the descriptors point into too, so that a
 * name is the same pointer whichever path yields it), a prototype gcev_field a field
 * (name, type, is_array, hex, map, and the payload offset where the template is fixed up
 * to that field; everything else 0) per pointer size, and a fill function that takes each
 * field's head from its prototype (gcev_field_from_proto: two 16-byte copies and the value's
 * zeroed rest, no loop, no switch) and its value straight from its typed member, and
 * computes the payload offsets after the first field of a variable size. The result is what
 * gcev_field_next() yields for the same event, byte for byte (src/format/gcev_format.c:
 * fill_fields and next_general are the reference this mirrors; test_format, test_fields_corpus
 * and the fuzzers compare the two).
 */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

/* The family's member a template field lands in (the widest version's: its store). */
static const gen_field *member_of(const gen_field *fd, const gen_family *fam)
{
    const gen_field *m = gen_family_member(fam, fd, NULL);
    return m ? m : fd;
}

/* Index of the first field without a fixed wire size, or n. */
static size_t first_variable(const gen_template *t)
{
    size_t i = 0;
    while (i < t->nfields && gen_field_wire(&t->fields[i], 8) != 0) {
        i++;
    }
    return i;
}

void gen_emit_field_names(FILE *f, const char *base, const gen_template *t)
{
    size_t len = 1;
    for (size_t i = 0; i < t->nfields; i++) {
        size_t l = strlen(t->fields[i].name) + 1;
        len = l > len ? l : len;
    }
    fprintf(f, "static const char %s_names[%zu][%zu] = {", base, t->nfields, len);
    for (size_t i = 0; i < t->nfields; i++) {
        fprintf(f, "%s\"%s\"", i ? ", " : "", t->fields[i].name);
    }
    fprintf(f, "};\n");
}

/* The prototypes for pointer size ps: the payload offset up to the first variable field. */
static void emit_protos(FILE *f, const char *base, const gen_template *t, const gen_family *fam, int ps,
                        size_t var)
{
    unsigned off = 0;
    fprintf(f, "    {\n");
    for (size_t i = 0; i < t->nfields; i++) {
        const gen_field *fd = &t->fields[i];
        const int w = gen_field_wire(fd, ps);
        fprintf(f, "        {.name = %s_names[%zu], .type = %s", base, i, gen_type_enum(fd->type));
        if (w == 0 && gen_store_kind(member_of(fd, fam)) == GCEV_S_ARRAY) {
            fprintf(f, ", .is_array = 1");
        }
        if (fd->out_hex) {
            fprintf(f, ", .hex = 1");
        }
        if (fd->map_ref) {
            fprintf(f, ", .map = &MAP(%s)", fd->map_ref->name);
        }
        if (i <= var && off) {
            fprintf(f, ", .payload_offset = %u", off);
        }
        fprintf(f, "},\n");
        off += (unsigned)w;
    }
    fprintf(f, "    },\n");
}

/* out[i] from its prototype and its member, as the field walk's load_value() reads the
 * member by store kind. */
static void emit_field(FILE *f, const char *base, const char *row, size_t i, int store, const char *mn)
{
    const char *as = NULL;
    const char *put = NULL;
    switch (store) {
    case GCEV_S_U8:
    case GCEV_S_U16:
    case GCEV_S_U32:
    case GCEV_S_U64:
        as = "u";
        break;
    case GCEV_S_I8:
    case GCEV_S_I16:
    case GCEV_S_I32:
    case GCEV_S_I64:
        as = "i";
        break;
    case GCEV_S_F32:
    case GCEV_S_F64:
        as = "d";
        break;
    case GCEV_S_GUID:
        put = "guid";
        break;
    case GCEV_S_UTF16:
        put = "str";
        break;
    case GCEV_S_BYTES:
        put = "bytes";
        break;
    default:
        put = "array";
        break;
    }
    fprintf(f, "    gcev_field_from_proto(&out[%zu], &%s_proto[%s][%zu], sizeof out[%zu].v.%s);\n", i, base,
            row, i, i, as ? as : put);
    if (as) {
        fprintf(f, "    out[%zu].v.%s = s->%s;\n", i, as, mn);
    } else {
        fprintf(f, "    memcpy(&out[%zu].v.%s, &s->%s, sizeof out[%zu].v.%s);\n", i, put, mn, i, put);
    }
}

static int advance_text_fixed(char *buf, size_t n, int w4, int w8)
{
    if (w4 == w8) {
        snprintf(buf, n, "    pos += %du;\n", w8);
        return 0;
    }
    snprintf(buf, n, "    pos += wide ? %du : %du;\n", w8, w4);
    return 1;
}

/* The statement that moves pos past field i (as next_general() and the fixed path of
 * fill_fields() advance it) into buf; returns whether it reads `wide`. */
static int advance_text(char *buf, size_t n, size_t i, const gen_field *fd, int store)
{
    const int w4 = gen_field_wire(fd, 4), w8 = gen_field_wire(fd, 8);
    if (w8 == 0) {
        if (store == GCEV_S_ARRAY) {
            snprintf(buf, n, "    pos += out[%zu].v.array.size;\n", i);
            return 0;
        }
        if (fd->type == T_UNICODE_STRING) {
            snprintf(buf, n, "    pos += out[%zu].v.str.nbytes%s;\n", i,
                     fd->length_index >= 0 ? "" : " + 2u");
            return 0;
        }
        if (fd->type == T_ANSI_STRING) {
            snprintf(buf, n, "    pos += out[%zu].v.bytes.size%s;\n", i,
                     fd->length_index >= 0 ? "" : " + 1u");
            return 0;
        }
        if (fd->type == T_BINARY) {
            snprintf(buf, n, "    pos += out[%zu].v.bytes.size;\n", i);
            return 0;
        }
        /* no such field today (every other type has a fixed size): the wire size table's */
        const int t4 = gen_type_fixed_size(fd->type, 4), t8 = gen_type_fixed_size(fd->type, 8);
        return advance_text_fixed(buf, n, t4 > 0 ? t4 : 0, t8 > 0 ? t8 : 0);
    }
    return advance_text_fixed(buf, n, w4, w8);
}

void gen_emit_field_fill(FILE *f, const char *base, const gen_template *t, const gen_family *fam,
                         const char *cstruct)
{
    const size_t var = first_variable(t);
    /* one set of prototypes unless a pointer-size field moves a fixed payload offset */
    int two = 0;
    for (size_t i = 0; i < var && i + 1 < t->nfields; i++) {
        two |= gen_field_wire(&t->fields[i], 4) != gen_field_wire(&t->fields[i], 8);
    }
    fprintf(f, "static const gcev_field %s_proto[%d][%zu] = {\n", base, two ? 2 : 1, t->nfields);
    emit_protos(f, base, t, fam, two ? 4 : 8, var);
    if (two) {
        emit_protos(f, base, t, fam, 8, var);
    }
    fprintf(f, "};\n");
    /* the variable part reads the pointer size when a pointer-size field moves its offsets */
    char adv[128];
    int wide_used = two;
    for (size_t i = var; i + 1 < t->nfields; i++) {
        wide_used |=
            advance_text(adv, sizeof adv, i, &t->fields[i], gen_store_kind(member_of(&t->fields[i], fam)));
    }
    fprintf(f, "static size_t %s_fill(const void *u, unsigned wide, gcev_field *out)\n{\n", base);
    fprintf(f, "    const %s *s = u;\n", cstruct);
    if (!wide_used) {
        fprintf(f, "    (void)wide;\n");
    }
    char mn[256];
    for (size_t i = 0; i < t->nfields; i++) {
        const gen_field *fd = &t->fields[i];
        const int store = gen_store_kind(member_of(fd, fam));
        gen_member_name(fd->name, mn, sizeof mn);
        emit_field(f, base, two ? "wide" : "0", i, store,
                   mn); /* the prototype first: it holds payload_offset */
        if (i > var) {
            fprintf(f, "    out[%zu].payload_offset = pos;\n", i);
        }
        if (i < var || i + 1 == t->nfields) {
            continue; /* the prototype's offset; or nothing follows */
        }
        if (i == var) {
            unsigned o4 = 0, o8 = 0;
            for (size_t k = 0; k < var; k++) {
                o4 += (unsigned)gen_field_wire(&t->fields[k], 4);
                o8 += (unsigned)gen_field_wire(&t->fields[k], 8);
            }
            if (o4 == o8) {
                fprintf(f, "    uint32_t pos = %uu;\n", o8);
            } else {
                fprintf(f, "    uint32_t pos = wide ? %uu : %uu;\n", o8, o4);
            }
        }
        advance_text(adv, sizeof adv, i, fd, store);
        fputs(adv, f);
    }
    fprintf(f, "    return %zu;\n}\n", t->nfields);
}
