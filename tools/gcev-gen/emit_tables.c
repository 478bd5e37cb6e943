/* SPDX-License-Identifier: MIT */
/*
 * Emits gcev_events.c, the schema tables: map objects, field descriptors,
 * templates, event descriptions and providers, and the family table. Data, but for
 * one fill function an event template (emit_fields.c: gcev_fields()'s prototypes);
 * the hand-written engine in src/ interprets the rest (the straight-line decoders
 * are emit_decoder.c's).
 * Output is deterministic: manifest order, no dates, no absolute paths.
 */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

/* Template flags as the C expression the tables carry. */
static void flags_expr(unsigned flags, char *out, size_t n)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{GCEV_TF_FIXED, "GCEV_TF_FIXED"},
                 {GCEV_TF_STRUCT_ARRAYS, "GCEV_TF_STRUCT_ARRAYS"},
                 {GCEV_TF_COVERS_STRUCT, "GCEV_TF_COVERS_STRUCT"},
                 {GCEV_TF_POINTERS, "GCEV_TF_POINTERS"}};
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (flags & names[i].bit) {
            size_t l = strlen(out);
            snprintf(out + l, n - l, "%s%s", l ? " | " : "", names[i].name);
        }
    }
    if (!out[0]) {
        snprintf(out, n, "0");
    }
}

/* A descriptor's wire size: bytes, or'ed with GCEV_WIRE_WIDEN_SIGNED. */
static void wire_expr(int w, int widen, char *out, size_t n)
{
    snprintf(out, n, widen ? "%d | GCEV_WIRE_WIDEN_SIGNED" : "%d", w);
}

static int field_min_size(const gen_field *f, int ps)
{
    if (f->type == T_STRUCT) {
        if (f->count_ref) {
            return 0;
        }
        int sum = 0;
        for (size_t c = 0; c < f->nchildren; c++) {
            sum += field_min_size(&f->children[c], ps);
        }
        return sum * (int)f->fixed_count;
    }
    if (f->count_ref) {
        return 0;
    }
    int sz = gen_type_fixed_size(f->type, ps);
    if (f->fixed_count) {
        return sz * (int)f->fixed_count;
    }
    if (sz >= 0) {
        return sz;
    }
    if (f->type == T_UNICODE_STRING) {
        return f->length_ref ? 0 : (f->fixed_length ? (int)f->fixed_length * 2 : 2);
    }
    if (f->type == T_ANSI_STRING) {
        return f->length_ref ? 0 : (f->fixed_length ? (int)f->fixed_length : 1);
    }
    return f->length_ref ? 0 : (int)f->fixed_length; /* Binary */
}

/* names: the array of field names gen_emit_field_names() made for these fields, or NULL
 * (then each name is a literal). */
static void emit_field_descs(FILE *f, const char *arrname, const gen_field *fields, size_t n,
                             const char *cstruct, const char *elem_tmpl_prefix, gen_field *const *rep,
                             size_t nrep, const char *names)
{
    fprintf(f, "static const gcev_field_desc %s[] = {\n", arrname);
    for (size_t i = 0; i < n; i++) {
        const gen_field *fd = &fields[i];
        char mn[256];
        gen_member_name(fd->name, mn, sizeof mn);
        size_t bit = 0;
        for (bit = 0; bit < nrep && strcmp(rep[bit]->name, fd->name) != 0; bit++) {
        }
        /* store: the C member's kind, which is the widest version's (GCEnd V0 Depth is a
         * UInt16 on the wire, a uint32_t member) */
        const gen_field *member = bit < nrep ? rep[bit] : fd;
        if (names) {
            fprintf(f, "    {.name = %s[%zu], ", names, i);
        } else {
            fprintf(f, "    {.name = \"%s\", ", fd->name);
        }
        fprintf(
            f,
            ".type = %s, .store = %s, .out_type = %s, .present_bit = %zu,\n"
            "     .offset = offsetof(%s, %s), .count_field = %d, .fixed_count = %u, .length_field = %d,\n",
            gen_type_enum(fd->type), gen_store_name(member),
            fd->out_hex ? "GCEV_OUT_HEX" : "GCEV_OUT_DEFAULT", bit, cstruct, mn, fd->count_index,
            fd->fixed_count, fd->length_index);
        if (fd->map_ref) {
            fprintf(f, "     .map = &MAP(%s), ", fd->map_ref->name);
        } else {
            fprintf(f, "     .map = NULL, ");
        }
        if (fd->type == T_STRUCT) {
            char sm[256];
            gen_member_name(fd->name, sm, sizeof sm);
            fprintf(f, ".elem = &%s_%s, ", elem_tmpl_prefix, sm);
        } else {
            fprintf(f, ".elem = NULL, ");
        }
        /* wire widths for the engine's straight-line path */
        const int w4 = gen_field_wire(fd, 4), w8 = gen_field_wire(fd, 8);
        int widen = 0;
        if (bit < nrep) {
            const gen_field *r = rep[bit];
            int signed_rep =
                r->type == T_INT8 || r->type == T_INT16 || r->type == T_INT32 || r->type == T_INT64;
            widen = signed_rep && gen_type_fixed_size(r->type, 8) > w8 && w8 > 0;
        }
        char e4[64], e8[64];
        wire_expr(w4, widen, e4, sizeof e4);
        wire_expr(w8, widen, e8, sizeof e8);
        fprintf(f, ".wire = {%s, %s}},\n", e4, e8);
    }
    fprintf(f, "};\n");
}

static unsigned long long all_bits(const gen_field *fields, size_t n, const gen_field *rep, size_t nrep)
{
    unsigned long long bits = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t b = 0; b < nrep; b++) {
            if (!strcmp(rep[b].name, fields[i].name)) {
                bits |= 1ull << b;
            }
        }
    }
    return bits;
}

static void emit_guid(FILE *f, const char *g)
{
    unsigned d1 = 0, d2 = 0, d3 = 0, b[8] = {0};
    if (!g || sscanf(g, "{%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x}", &d1, &d2, &d3, &b[0], &b[1], &b[2], &b[3],
                     &b[4], &b[5], &b[6], &b[7]) != 11) {
        fprintf(f, "    .guid = {.data1 = 0, .data2 = 0, .data3 = 0, .data4 = {0, 0, 0, 0, 0, 0, 0, 0}},\n"
                   "    .has_guid = 0,\n");
        return;
    }
    fprintf(f,
            "    .guid = {.data1 = 0x%08xu, .data2 = 0x%04x, .data3 = 0x%04x,\n"
            "             .data4 = {0x%02x, 0x%02x, 0x%02x, 0x%02x, 0x%02x, 0x%02x, 0x%02x, 0x%02x}},\n"
            "    .has_guid = 1,\n",
            d1, d2, d3, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
}

/* A C string literal, or NULL. */
static void emit_cstr(FILE *f, const char *s)
{
    if (s) {
        fprintf(f, "\"%s\"", s);
    } else {
        fprintf(f, "NULL");
    }
}

/* fill: the template's gcev_fields() fill function, or NULL (element templates). */
static void emit_template(FILE *f, const char *cname, const char *tname, const char *sub, const char *fields,
                          size_t nfields, const char *cstruct, int min4, int min8, unsigned flags,
                          unsigned long long present, const char *fill)
{
    char fl[160];
    flags_expr(flags, fl, sizeof fl);
    fprintf(f, "static const gcev_template %s = {\n    .name = \"%s%s%s\",\n", cname, tname, sub ? "." : "",
            sub ? sub : "");
    fprintf(f,
            "    .fields = %s,\n    .nfields = %zu,\n    .struct_size = sizeof(%s),\n"
            "    .min_size = {%d, %d},\n    .flags = %s,\n    .all_present = UINT64_C(0x%llx),\n",
            fields, nfields, cstruct, min4, min8, fl, present);
    if (fill) {
        fprintf(f, "    .fill = %s,\n", fill);
    }
    fprintf(f, "};\n");
}

static void by_id_entry(FILE *f, unsigned id, unsigned row)
{
    fprintf(f, "%s%s%u", id ? "," : "", id % 16 ? "" : "\n    ", row);
}

/* The dense id -> row table (0: no event), 16 to a line. It has max_id + 1 entries
 * however few the events (65536 for one event numbered 65535), so the stretches
 * between families go out a line of zeros at a time: a printf per entry made such
 * an input cost the fuzzer ~12 ms more than a small manifest's 1.7 ms. Families
 * are in ascending id order (model.c sorts the events, then builds the families). */
static void emit_by_id(FILE *f, const gen_provider *p, unsigned max_id)
{
    static const char zero_line[] = ",\n    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0";
    unsigned id = 0, row = 0;
    for (size_t k = 0; k <= p->nfamilies; k++) {
        unsigned end = k < p->nfamilies ? p->families[k].id : max_id + 1;
        while (id < end) {
            if (id && id % 16 == 0 && end - id >= 16) {
                fwrite(zero_line, 1, sizeof zero_line - 1, f);
                id += 16;
            } else {
                by_id_entry(f, id++, 0);
            }
        }
        if (k < p->nfamilies) {
            const gen_family *fam = &p->families[k];
            by_id_entry(f, id++, row + 1);
            row += fam->versions[fam->nversions - 1]->version + 2;
        }
    }
}

static void emit_provider_source(const gen_provider *p, FILE *f, unsigned *index)
{
    /* map objects */
    for (size_t i = 0; i < p->nmaps; i++) {
        const gen_map *map = &p->maps[i];
        if (!map->used) {
            continue;
        }
        char cn[256];
        gen_map_cname(p, map, cn, sizeof cn);
        fprintf(f, "static const gcev_map_entry %s_entries[] = {\n", cn);
        for (size_t j = 0; j < map->nentries; j++) {
            fprintf(f, "    {.value = 0x%xu, .name = \"%s\"},\n", map->entries[j].value,
                    map->entries[j].name);
        }
        fprintf(f,
                "};\nconst gcev_map %s = {.name = \"%s\", .is_bitmap = %d, .count = %zu, .entries = "
                "%s_entries};\n\n",
                cn, map->name, map->bitmap, map->nentries, cn);
    }
    fprintf(f, "#undef MAP\n");
    /* MAP(name) -> the provider's C map object */
    for (size_t i = 0; i < p->nmaps; i++) {
        if (p->maps[i].used) {
            char cn[256];
            gen_map_cname(p, &p->maps[i], cn, sizeof cn);
            fprintf(f, "#define MAP_%s %s\n", p->maps[i].name, cn);
        }
    }
    fprintf(f, "#define MAP(n) MAP_##n\n\n");

    for (size_t k = 0; k < p->nfamilies; k++) {
        const gen_family *fam = &p->families[k];
        for (size_t v = 0; v < fam->nversions; v++) {
            const gen_event *e = fam->versions[v];
            if (!e->tmpl || e->tmpl->nfields == 0) {
                continue; /* an empty template means no payload: desc->tmpl is NULL */
            }
            char base[300];
            snprintf(base, sizeof base, "gcev_%s_v%u", fam->cname, e->version);
            /* element templates first */
            for (size_t i = 0; i < e->tmpl->nfields; i++) {
                const gen_field *sf = &e->tmpl->fields[i];
                if (sf->type != T_STRUCT) {
                    continue;
                }
                char sm[256], en[512], arr[600], cs[600], tn[600];
                gen_member_name(sf->name, sm, sizeof sm);
                gen_elem_cname(fam, sf, en, sizeof en);
                snprintf(arr, sizeof arr, "%s_%s_fields", base, sm);
                snprintf(cs, sizeof cs, "gcev_%s", en);
                snprintf(tn, sizeof tn, "%s_%s", base, sm);
                /* element bits follow the merged element struct = this struct's children order */
                const gen_field *rep_struct = NULL;
                for (size_t r = 0; r < fam->nfields; r++) {
                    if (!strcmp(fam->fields[r]->name, sf->name)) {
                        rep_struct = fam->fields[r];
                    }
                }
                gen_field **rep = gen_xmalloc(rep_struct->nchildren * sizeof *rep);
                for (size_t c = 0; c < rep_struct->nchildren; c++) {
                    rep[c] = &rep_struct->children[c];
                }
                emit_field_descs(f, arr, sf->children, sf->nchildren, cs, "", rep, rep_struct->nchildren,
                                 NULL);
                free(rep);
                /* min_size of an element template = its packed element size */
                int e4 = 0, e8 = 0;
                for (size_t c = 0; c < sf->nchildren; c++) {
                    e4 += field_min_size(&sf->children[c], 4);
                    e8 += field_min_size(&sf->children[c], 8);
                }
                emit_template(
                    f, tn, e->tmpl->tid, sf->name, arr, sf->nchildren, cs, e4, e8,
                    gen_template_flags(sf->children, sf->nchildren),
                    all_bits(sf->children, sf->nchildren, rep_struct->children, rep_struct->nchildren), NULL);
            }
            char arr[400], cs[300], names[400], fill[400];
            snprintf(arr, sizeof arr, "%s_fields", base);
            snprintf(cs, sizeof cs, "gcev_%s", fam->cname);
            snprintf(names, sizeof names, "%s_names", base);
            snprintf(fill, sizeof fill, "%s_fill", base);
            gen_emit_field_names(f, base, e->tmpl);
            emit_field_descs(f, arr, e->tmpl->fields, e->tmpl->nfields, cs, base, fam->fields, fam->nfields,
                             names);
            gen_emit_field_fill(f, base, e->tmpl, fam, cs);
            int min4 = 0, min8 = 0;
            for (size_t i = 0; i < e->tmpl->nfields; i++) {
                min4 += field_min_size(&e->tmpl->fields[i], 4);
                min8 += field_min_size(&e->tmpl->fields[i], 8);
            }
            emit_template(f, base, e->tmpl->tid, NULL, arr, e->tmpl->nfields, cs, min4, min8,
                          gen_template_flags(e->tmpl->fields, e->tmpl->nfields) |
                              (gen_covers_family(e->tmpl, fam) ? (unsigned)GCEV_TF_COVERS_STRUCT : 0u),
                          gen_all_bits_rep(e->tmpl->fields, e->tmpl->nfields, fam->fields, fam->nfields),
                          fill);
            fprintf(f, "\n");
        }
    }
    /* events */
    char up[256];
    fprintf(f, "static const gcev_event_desc gcev_%s_events[] = {\n", p->cshort);
    for (size_t i = 0; i < p->nevents; i++) {
        const gen_event *e = &p->events[i];
        gen_upper(e->family->cname, up, sizeof up);
        fprintf(
            f,
            "    {.provider = &gcev_provider_%s, .id = %u, .version = %u, .level = %u, .family = "
            "GCEV_FAMILY_%s,\n"
            "     .opcode = %u, .task = %u, .keywords = UINT64_C(0x%llx), .symbol = \"%s\", .task_name = ",
            p->cshort, e->id, e->version, e->level_value, up, e->opcode_value, e->task_value,
            (unsigned long long)e->keyword_mask, e->symbol);
        emit_cstr(f, e->task);
        fprintf(f, ",\n     .opcode_name = ");
        emit_cstr(f, e->opcode);
        fprintf(f, ", .keyword_names = \"%s\", .tmpl = ", e->keywords ? e->keywords : "");
        if (e->tmpl && e->tmpl->nfields > 0) {
            fprintf(f, "&gcev_%s_v%u,\n", e->family->cname, e->version);
        } else {
            fprintf(f, "NULL,\n");
        }
        fprintf(f, "     .index = %u, .quirks = GCEV_QUIRKS_OF(GCEV_FAMILY_%s, %u)},\n", (*index)++, up,
                e->version);
    }
    fprintf(f, "};\n");
    for (size_t i = 0; i < p->nmaps; i++) {
        if (p->maps[i].used) {
            fprintf(f, "#undef MAP_%s\n", p->maps[i].name);
        }
    }
    /* (id, version) -> event in two loads: by_id[id] -> its row of versions[] */
    unsigned max_id = p->nevents ? p->events[p->nevents - 1].id : 0;
    fprintf(f, "static const uint16_t gcev_%s_versions[] = {\n", p->cshort);
    for (size_t k = 0; k < p->nfamilies; k++) {
        const gen_family *fam = &p->families[k];
        unsigned newest = fam->versions[fam->nversions - 1]->version;
        fprintf(f, "    /* %s */ %u,", fam->name, newest);
        /* a family's versions are its events in (id, version) order: one pass */
        size_t j = 0;
        for (unsigned v = 0; v <= newest; v++) {
            unsigned idx = 0;
            if (fam->versions[j]->version == v) {
                idx = (unsigned)(fam->versions[j] - p->events) + 1;
                j++;
            }
            fprintf(f, " %u,", idx);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "};\n");
    fprintf(f, "static const uint16_t gcev_%s_by_id[%u] = {", p->cshort, max_id + 1);
    emit_by_id(f, p, max_id);
    fprintf(f, "\n};\n");
    fprintf(f, "const gcev_provider gcev_provider_%s = {\n    .name = \"%s\",\n    .prefix = \"%s\",\n",
            p->cshort, p->name, p->cprefix);
    emit_guid(f, p->guid);
    fprintf(
        f,
        "    .nevents = %zu,\n    .events = gcev_%s_events,\n    .max_id = %u,\n    .by_id = gcev_%s_by_id,\n"
        "    .versions = gcev_%s_versions,\n};\n\n",
        p->nevents, p->cshort, max_id, p->cshort, p->cshort);
}

void gen_emit_source(const gen_model *m, FILE *f)
{
    gen_banner(m, f);
    fprintf(f, "#include <gcev/gcev.h>\n\n#include <stddef.h>\n#include <string.h>\n\n#include "
               "\"gcev_generated.h\"\n#include "
               "\"gcev_quirks.h\"\n\n");
    unsigned index = 0;
    for (size_t pi = 0; pi < m->nproviders; pi++) {
        fprintf(f, "/* ---- %s ---- */\n\n", m->providers[pi].name);
        emit_provider_source(&m->providers[pi], f, &index);
    }
    fprintf(f, "#undef MAP\n\nconst gcev_provider *const gcev_gen_providers[] = {\n");
    for (size_t pi = 0; pi < m->nproviders; pi++) {
        fprintf(f, "    &gcev_provider_%s,\n", m->providers[pi].cshort);
    }
    fprintf(f, "};\nconst size_t gcev_gen_nproviders = %zu;\n\n", m->nproviders);
    fprintf(f, "const gcev_family_info gcev_gen_families[] = {\n"
               "    [GCEV_FAMILY_NONE] = {.provider = NULL, .id = 0, .struct_size = 0, .name = NULL, .cname "
               "= NULL},\n");
    for (size_t pi = 0; pi < m->nproviders; pi++) {
        const gen_provider *p = &m->providers[pi];
        for (size_t k = 0; k < p->nfamilies; k++) {
            char up[256];
            gen_upper(p->families[k].cname, up, sizeof up);
            fprintf(f,
                    "    [GCEV_FAMILY_%s] = {.provider = &gcev_provider_%s, .id = %u, .struct_size = "
                    "sizeof(gcev_%s),\n"
                    "        .name = \"%s\", .cname = \"%s\"},\n",
                    up, p->cshort, p->families[k].id, p->families[k].cname, p->families[k].name,
                    p->families[k].cname);
        }
    }
    fprintf(f, "};\n");
}
