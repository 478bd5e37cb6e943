/* SPDX-License-Identifier: MIT */
/*
 * Emits gcev_events.h, the public part of the schema: event families, the
 * provider and map declarations with their lookups, the typed structs with their
 * present bits and element structs, the typed decoders' prototypes and the
 * union of every family struct. Declarations and one-line inline wrappers
 * only: the tables behind them are emit_tables.c's, the decoders
 * emit_decoder.c's.
 * Output is deterministic: manifest order, no dates, no absolute paths.
 */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

static void emit_members(FILE *f, gen_field *const *fields, size_t n, const char *owner)
{
    for (size_t i = 0; i < n; i++) {
        char mn[256];
        gen_member_name(fields[i]->name, mn, sizeof mn);
        for (size_t j = 0; j < i; j++) {
            char other[256];
            gen_member_name(fields[j]->name, other, sizeof other);
            if (!strcmp(other, mn)) {
                gen_fail(fields[i]->file, fields[i]->line, "%s: fields '%s' and '%s' share the C name '%s'",
                         owner, fields[j]->name, fields[i]->name, mn);
            }
        }
        fprintf(f, "    %s %s; /* %s%s */\n", gen_ctype_of(fields[i]), mn,
                gen_type_manifest_name(fields[i]->type),
                fields[i]->type != T_STRUCT && (fields[i]->count_ref || fields[i]->fixed_count) ? "[]" : "");
    }
}

static void emit_present_bits(FILE *f, const char *cname, gen_field *const *fields, size_t n)
{
    char up[512];
    gen_upper(cname, up, sizeof up);
    for (size_t i = 0; i < n; i++) {
        char mn[256], mu[256];
        gen_member_name(fields[i]->name, mn, sizeof mn);
        gen_upper(mn, mu, sizeof mu);
        fprintf(f, "#define GCEV_%s_HAS_%s (UINT64_C(1) << %zu)\n", up, mu, i);
    }
}

/* Struct fields of a family, merged by name over versions. */
static size_t family_structs(const gen_family *fam, gen_field **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < fam->nfields && n < cap; i++) {
        if (fam->fields[i]->type == T_STRUCT) {
            out[n++] = fam->fields[i];
        }
    }
    return n;
}

void gen_emit_header(const gen_model *m, FILE *f)
{
    gen_banner(m, f);
    fprintf(f, "/* Included by gcev.h: do not include directly. */\n");
    fprintf(f, "#ifndef GCEV_EVENTS_H\n#define GCEV_EVENTS_H\n\n#include <stdint.h>\n\n");
    fprintf(f, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");

    fprintf(f, "/* Event families: one per (provider, id), all versions. */\n");
    fprintf(f, "typedef enum gcev_family {\n    GCEV_FAMILY_NONE = 0,\n");
    unsigned idx = 1;
    for (size_t pi = 0; pi < m->nproviders; pi++) {
        const gen_provider *p = &m->providers[pi];
        for (size_t k = 0; k < p->nfamilies; k++) {
            char up[256];
            gen_upper(p->families[k].cname, up, sizeof up);
            fprintf(f, "    GCEV_FAMILY_%s = %u, /* %s id %u */\n", up, idx++, p->name, p->families[k].id);
        }
    }
    fprintf(f, "    GCEV_FAMILY_COUNT_ = %u\n} gcev_family;\n\n", idx);

    fprintf(f, "/* Providers */\n");
    for (size_t pi = 0; pi < m->nproviders; pi++) {
        fprintf(f, "GCEV_API extern const gcev_provider gcev_provider_%s; /* %s */\n",
                m->providers[pi].cshort, m->providers[pi].name);
    }
    fprintf(f, "\n/* Value and bit maps: name lookup (NULL when unknown) and formatting. */\n");
    for (size_t pi = 0; pi < m->nproviders; pi++) {
        const gen_provider *p = &m->providers[pi];
        for (size_t i = 0; i < p->nmaps; i++) {
            if (!p->maps[i].used) {
                continue;
            }
            char cn[256];
            gen_map_cname(p, &p->maps[i], cn, sizeof cn);
            for (size_t pj = 0; pj <= pi; pj++) {
                for (size_t j = 0; j < m->providers[pj].nmaps && !(pj == pi && j >= i); j++) {
                    char other[256];
                    if (!m->providers[pj].maps[j].used) {
                        continue;
                    }
                    gen_map_cname(&m->providers[pj], &m->providers[pj].maps[j], other, sizeof other);
                    if (!strcmp(other, cn)) {
                        gen_fail(p->file, p->maps[i].line, "two maps share the C name '%s'", cn);
                    }
                }
            }
            fprintf(f, "GCEV_API extern const gcev_map %s; /* %s %s */\n", cn,
                    p->maps[i].bitmap ? "bitMap" : "valueMap", p->maps[i].name);
            fprintf(f, "static inline const char *%s_name(uint32_t v) { return gcev_map_name(&%s, v); }\n",
                    cn, cn);
            if (p->maps[i].bitmap) {
                fprintf(f,
                        "static inline size_t %s_format(uint32_t v, char *buf, size_t n)\n"
                        "{\n    return gcev_map_format(&%s, v, buf, n);\n}\n",
                        cn, cn);
            }
        }
    }

    fprintf(f, "\n/* Typed structs. `present` has one GCEV_<FAMILY>_HAS_<FIELD> bit per field read;\n"
               " * `schema_version` is the template version used. */\n");
    for (size_t pi = 0; pi < m->nproviders; pi++) {
        const gen_provider *p = &m->providers[pi];
        for (size_t k = 0; k < p->nfamilies; k++) {
            const gen_family *fam = &p->families[k];
            gen_field *structs[16];
            size_t ns = family_structs(fam, structs, 16);
            for (size_t s = 0; s < ns; s++) {
                char en[512];
                gen_elem_cname(fam, structs[s], en, sizeof en);
                gen_field **members = gen_xmalloc(structs[s]->nchildren * sizeof *members);
                for (size_t c = 0; c < structs[s]->nchildren; c++) {
                    members[c] = &structs[s]->children[c];
                }
                fprintf(f, "\n/* Element of %s.%s */\ntypedef struct gcev_%s {\n    uint64_t present;\n",
                        fam->name, structs[s]->name, en);
                emit_members(f, members, structs[s]->nchildren, en);
                fprintf(f, "} gcev_%s;\n", en);
                emit_present_bits(f, en, members, structs[s]->nchildren);
                fprintf(
                    f,
                    "static inline gcev_status gcev_%s_at(const gcev_array *a, uint32_t i, gcev_%s *out,\n"
                    "                                   gcev_error *err)\n"
                    "{\n    return gcev_array_elem(a, i, out, err);\n}\n",
                    en, en);
                free(members);
            }
            fprintf(f, "\n/* %s: %s id %u, version%s", fam->name, p->name, fam->id,
                    fam->nversions > 1 ? "s" : "");
            for (size_t v = 0; v < fam->nversions; v++) {
                fprintf(f, " %u", fam->versions[v]->version);
            }
            fprintf(f, " */\ntypedef struct gcev_%s {\n    uint64_t present;\n    uint16_t schema_version;\n",
                    fam->cname);
            emit_members(f, fam->fields, fam->nfields, fam->cname);
            fprintf(f, "} gcev_%s;\n", fam->cname);
            emit_present_bits(f, fam->cname, fam->fields, fam->nfields);
            char up[256];
            gen_upper(fam->cname, up, sizeof up);
            (void)up;
            fprintf(
                f,
                "/* Decodes data[0, size) as %s `version` (see gcev_decode_family() in gcev.h). */\n"
                "GCEV_API gcev_status gcev_decode_%s(const uint8_t *data, size_t size, uint16_t version,\n"
                "    uint8_t pointer_size, gcev_%s *out, uint32_t *consumed, gcev_error *err);\n",
                fam->name, fam->cname, fam->cname);
        }
    }
    /* The union's size is part of gcev_event's layout (doc/ABI.md): it is padded to a fixed
     * size, so families and fields added to the manifest do not move gcev_event's later
     * members; src/decode checks at compile time that every family still fits. */
    fprintf(f,
            "\n/* Bytes of gcev_union, whatever the manifest holds (a family struct never exceeds it). */\n"
            "#define GCEV_UNION_SIZE 512\n");
    fprintf(f,
            "\n/* Every family struct, tagged by gcev_event.desc->family. */\ntypedef union gcev_union {\n");
    for (size_t pi = 0; pi < m->nproviders; pi++) {
        const gen_provider *p = &m->providers[pi];
        for (size_t k = 0; k < p->nfamilies; k++) {
            fprintf(f, "    gcev_%s %s;\n", p->families[k].cname, p->families[k].cname);
        }
    }
    fprintf(f, "    uint64_t reserved_[GCEV_UNION_SIZE / 8]; /* the fixed size */\n} gcev_union;\n\n");
    fprintf(f, "/* Decoding of gcev_event / gcev_decode_family is declared in gcev.h. */\n");
    fprintf(f, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* GCEV_EVENTS_H */\n");
}
