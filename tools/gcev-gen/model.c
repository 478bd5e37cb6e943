/* SPDX-License-Identifier: MIT */
/* Resolution of a parsed manifest: selection, references, families, names. */
#include "gen.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifdef GCEV_GEN_FUZZ
/* Fuzzing builds only (tests/fuzz/fuzz_manifest.c): a failure returns to the harness. */
jmp_buf *gen_fail_jmp;
#endif

void gen_fail(const char *file, int line, const char *fmt, ...)
{
#ifdef GCEV_GEN_FUZZ
    if (gen_fail_jmp) {
        longjmp(*gen_fail_jmp, 1);
    }
#endif
    va_list ap;
    fprintf(stderr, "%s:%d: error: ", file ? file : "gcev-gen", line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

void *gen_xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        gen_fail(NULL, 0, "out of memory");
    }
    return p;
}

void *gen_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        gen_fail(NULL, 0, "out of memory");
    }
    return q;
}

char *gen_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = gen_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

const char *gen_type_manifest_name(int type)
{
    static const char *const names[T_COUNT_] = {
#define GEN_TYPE_NAME_(name, manifest_name, w4, w8, a4, a8) manifest_name,
        GCEV_TYPE_LIST(GEN_TYPE_NAME_)
#undef GEN_TYPE_NAME_
    };
    return type >= 0 && type < T_COUNT_ ? names[type] : "?";
}

int gen_type_fixed_size(int type, int pointer_size)
{
    static const signed char sizes[T_COUNT_][2] = {
#define GEN_TYPE_SIZE_(name, manifest_name, w4, w8, a4, a8) {(w4) ? (w4) : -1, (w8) ? (w8) : -1},
        GCEV_TYPE_LIST(GEN_TYPE_SIZE_)
#undef GEN_TYPE_SIZE_
    };
    return type >= 0 && type < T_COUNT_ ? sizes[type][pointer_size == 8] : -1;
}

static int is_integer(int t)
{
    return t <= T_UINT64 || t == T_BOOLEAN || t == T_POINTER;
}

/* "GCPerHeapHistory" -> "gc_per_heap_history", "ClrInstanceID" -> "clr_instance_id". */
void gen_snake(const char *in, char *out, size_t n)
{
    size_t o = 0;
    size_t len = strlen(in);
    for (size_t i = 0; i < len && o + 2 < n; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == '_' || c == '-' || c == '.') {
            if (o > 0 && out[o - 1] != '_') {
                out[o++] = '_';
            }
            continue;
        }
        if (isupper(c) && i > 0 && o > 0 && out[o - 1] != '_') {
            unsigned char prev = (unsigned char)in[i - 1];
            unsigned char next = i + 1 < len ? (unsigned char)in[i + 1] : 0;
            if (islower(prev) || isdigit(prev) || (isupper(prev) && islower(next))) {
                out[o++] = '_';
            }
        }
        out[o++] = (char)tolower(c);
    }
    out[o] = '\0';
}

static const struct {
    const char *provider, *prefix, *shortname;
} known_providers[] = {
    {"Microsoft-Windows-DotNETRuntime", "", "runtime"},
    {"Microsoft-Windows-DotNETRuntimePrivate", "private_", "private"},
    {"Microsoft-Windows-DotNETRuntimeRundown", "rundown_", "rundown"},
    {"Microsoft-Windows-DotNETRuntimeStress", "stress_", "stress"},
    {"Microsoft-DotNETRuntimeMonoProfiler", "", "mono"},
    {"Microsoft-Windows-DotNETRuntime-GCDynamicEvent", "dynamic_", "dynamic"},
};

static void name_provider(gen_provider *p)
{
    for (size_t i = 0; i < sizeof known_providers / sizeof known_providers[0]; i++) {
        if (strcmp(known_providers[i].provider, p->name) == 0) {
            p->cprefix = gen_xstrdup(known_providers[i].prefix);
            p->cshort = gen_xstrdup(known_providers[i].shortname);
            return;
        }
    }
    /* Any other provider: its last dash-separated word. */
    const char *last = strrchr(p->name, '-');
    char buf[256];
    gen_snake(last ? last + 1 : p->name, buf, sizeof buf - 1);
    p->cshort = gen_xstrdup(buf);
    strcat(buf, "_");
    p->cprefix = gen_xstrdup(buf);
}

static int selected(const gen_select *sel, const gen_provider *p, const gen_event *e)
{
    if (!sel || sel->nrules == 0) {
        return 1;
    }
    for (size_t i = 0; i < sel->nrules; i++) {
        const gen_rule *r = &sel->rules[i];
        if (strcmp(r->provider, p->name) != 0) {
            continue;
        }
        if (strcmp(r->kind, "task") == 0 && e->task && strcmp(e->task, r->value) == 0) {
            return 1;
        }
        if (strcmp(r->kind, "id") == 0 && (unsigned)strtoul(r->value, NULL, 0) == e->id) {
            return 1;
        }
        if (strcmp(r->kind, "symbol") == 0) {
            size_t n = strlen(r->value);
            int prefix = n > 0 && r->value[n - 1] == '*';
            if (prefix ? strncmp(e->symbol, r->value, n - 1) == 0 : strcmp(e->symbol, r->value) == 0) {
                return 1;
            }
        }
    }
    return 0;
}

static const char *resolve_string(const gen_model *m, const char *msg, const char *file, int line)
{
    if (strncmp(msg, "$(string.", 9) != 0) {
        return msg;
    }
    size_t n = strlen(msg);
    if (n < 11 || msg[n - 1] != ')') {
        gen_fail(file, line, "malformed message reference '%s'", msg);
    }
    for (size_t i = 0; i < m->nstrings; i++) {
        const char *id = m->strings[i].id;
        if (strlen(id) == n - 10 && strncmp(id, msg + 9, n - 10) == 0) {
            return m->strings[i].value;
        }
    }
    gen_fail(file, line, "message '%s' is not in any string table", msg);
    return NULL;
}

static unsigned std_level(const char *s, const char *file, int line)
{
    static const struct {
        const char *n;
        unsigned v;
    } levels[] = {{"win:LogAlways", 0}, {"win:Critical", 1},      {"win:Error", 2},
                  {"win:Warning", 3},   {"win:Informational", 4}, {"win:Verbose", 5}};
    if (!s) {
        return 0;
    }
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        if (strcmp(levels[i].n, s) == 0) {
            return levels[i].v;
        }
    }
    gen_fail(file, line, "unknown level '%s'", s);
    return 0;
}

static unsigned resolve_opcode(const gen_provider *p, const gen_event *e)
{
    static const struct {
        const char *n;
        unsigned v;
    } std_ops[] = {{"win:Info", 0},    {"win:Start", 1},     {"win:Stop", 2},     {"win:DC_Start", 3},
                   {"win:DC_Stop", 4}, {"win:Extension", 5}, {"win:Reply", 6},    {"win:Resume", 7},
                   {"win:Suspend", 8}, {"win:Send", 9},      {"win:Receive", 240}};
    if (!e->opcode) {
        return 0;
    }
    for (size_t i = 0; i < sizeof std_ops / sizeof std_ops[0]; i++) {
        if (strcmp(std_ops[i].n, e->opcode) == 0) {
            return std_ops[i].v;
        }
    }
    /* Task-scoped opcode first, then provider-level. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < p->nopcodes; i++) {
            const gen_named_value *o = &p->opcodes[i];
            if (strcmp(o->name, e->opcode) != 0) {
                continue;
            }
            if (pass == 0 && o->task && e->task && strcmp(o->task, e->task) == 0) {
                return (unsigned)o->value;
            }
            if (pass == 1 && !o->task) {
                return (unsigned)o->value;
            }
        }
    }
    gen_fail(e->file, e->line, "event %s: opcode '%s' is not declared", e->symbol, e->opcode);
    return 0;
}

static gen_map *find_map(gen_provider *p, const char *name)
{
    for (size_t i = 0; i < p->nmaps; i++) {
        if (strcmp(p->maps[i].name, name) == 0) {
            return &p->maps[i];
        }
    }
    return NULL;
}

static void resolve_fields(const gen_model *m, gen_provider *p, gen_field *fields, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        gen_field *f = &fields[i];
        for (size_t j = 0; j < i; j++) {
            if (strcmp(fields[j].name, f->name) == 0) {
                gen_fail(p->file, f->line, "duplicate field name '%s'", f->name);
            }
        }
        const char *refs[2] = {f->count_ref, f->length_ref};
        int *idx[2] = {&f->count_index, &f->length_index};
        for (int k = 0; k < 2; k++) {
            if (!refs[k]) {
                continue;
            }
            for (size_t j = 0; j < i; j++) {
                if (strcmp(fields[j].name, refs[k]) == 0) {
                    *idx[k] = (int)j;
                }
            }
            if (*idx[k] < 0) {
                gen_fail(p->file, f->line, "field '%s': '%s' must name an earlier sibling field", f->name,
                         refs[k]);
            }
            const gen_field *r = &fields[*idx[k]];
            if (!(r->type <= T_UINT64) || r->count_ref || r->fixed_count) {
                gen_fail(p->file, f->line, "field '%s': '%s' is not a plain integer field", f->name, refs[k]);
            }
        }
        if (f->map) {
            f->map_ref = find_map(p, f->map);
            if (!f->map_ref) {
                gen_fail(p->file, f->line, "field '%s': map '%s' is not declared", f->name, f->map);
            }
            if (!is_integer(f->type) || f->type == T_POINTER) {
                gen_fail(p->file, f->line, "field '%s': maps apply to integer fields only", f->name);
            }
            f->map_ref->used = 1;
        }
        if (f->type == T_STRUCT) {
            resolve_fields(m, p, f->children, f->nchildren);
        }
    }
}

/* Widest compatible representative of two same-named fields of one family. */
static gen_field *merge_field(gen_field *a, gen_field *b, const gen_provider *p)
{
    if (a->type == b->type) {
        if (a->type == T_STRUCT) {
            /* Elements must agree member by member (the element struct is shared). */
            if (a->nchildren != b->nchildren) {
                return a->nchildren > b->nchildren ? a : b;
            }
        }
        return a;
    }
    int sa = gen_type_fixed_size(a->type, 8), sb = gen_type_fixed_size(b->type, 8);
    if (a->type <= T_UINT64 && b->type <= T_UINT64 && sa > 0 && sb > 0 && sa != sb) {
        return sa > sb ? a : b;
    }
    gen_fail(p->file, b->line, "field '%s' changes type across versions (%s vs %s)", a->name,
             gen_type_manifest_name(a->type), gen_type_manifest_name(b->type));
    return NULL;
}

/*
 * Member order of a family struct (and so its present bits): the wire order of
 * the newest version with fields, then the members only older versions have,
 * newest version first, each in its wire order. The representatives (widest
 * type) were chosen before; this only permutes them.
 */
static void order_family_members(gen_family *fam)
{
    gen_field **ordered = gen_xmalloc((fam->nfields ? fam->nfields : 1) * sizeof *ordered);
    size_t n = 0;
    for (size_t vi = fam->nversions; vi-- > 0;) {
        const gen_template *t = fam->versions[vi]->tmpl;
        for (size_t fi = 0; t && fi < t->nfields; fi++) {
            size_t j, k;
            for (j = 0; j < n && strcmp(ordered[j]->name, t->fields[fi].name) != 0; j++) {
            }
            if (j < n) {
                continue;
            }
            for (k = 0; k < fam->nfields && strcmp(fam->fields[k]->name, t->fields[fi].name) != 0; k++) {
            }
            ordered[n++] = fam->fields[k];
        }
    }
    if (n) { /* fam->fields is NULL for a family without fields */
        memcpy(fam->fields, ordered, n * sizeof *ordered);
    }
    free(ordered);
}

static void build_families(gen_provider *p)
{
    for (size_t i = 0; i < p->nevents; i++) {
        gen_event *e = &p->events[i];
        gen_family *fam = NULL;
        for (size_t k = 0; k < p->nfamilies; k++) {
            if (p->families[k].id == e->id) {
                fam = &p->families[k];
            }
        }
        if (!fam) {
            fam = GEN_PUSH(p->families, p->nfamilies);
            memset(fam, 0, sizeof *fam);
            fam->id = e->id;
        }
        *GEN_PUSH(fam->versions, fam->nversions) = e;
    }
    for (size_t k = 0; k < p->nfamilies; k++) {
        gen_family *fam = &p->families[k];
        /* versions are sorted because events are sorted by (id, version) */
        const char *sym = fam->versions[0]->symbol;
        size_t len = strlen(sym);
        const char *v = strrchr(sym, '_');
        if (v && v[1] == 'V' && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2)) {
            len = (size_t)(v - sym);
        }
        fam->name = gen_xmalloc(len + 1);
        memcpy(fam->name, sym, len);
        char snake[256];
        gen_snake(fam->name, snake, sizeof snake);
        fam->cname = gen_xmalloc(strlen(p->cprefix) + strlen(snake) + 1);
        sprintf(fam->cname, "%s%s", p->cprefix, snake);
        for (size_t vi = 0; vi < fam->nversions; vi++) {
            gen_event *e = fam->versions[vi];
            e->family = fam;
            if (!e->tmpl) {
                continue;
            }
            for (size_t fi = 0; fi < e->tmpl->nfields; fi++) {
                gen_field *f = &e->tmpl->fields[fi];
                size_t j;
                for (j = 0; j < fam->nfields; j++) {
                    if (strcmp(fam->fields[j]->name, f->name) == 0) {
                        fam->fields[j] = merge_field(fam->fields[j], f, p);
                        break;
                    }
                }
                if (j == fam->nfields) {
                    *GEN_PUSH(fam->fields, fam->nfields) = f;
                }
            }
        }
        order_family_members(fam);
        if (fam->nfields > 62) {
            gen_fail(fam->versions[0]->file, fam->versions[0]->line, "family %s has more than 62 fields",
                     fam->name);
        }
    }
}

static int cmp_event(const void *a, const void *b)
{
    const gen_event *x = a, *y = b;
    if (x->id != y->id) {
        return x->id < y->id ? -1 : 1;
    }
    return x->version < y->version ? -1 : x->version > y->version;
}

static int cmp_entry(const void *a, const void *b)
{
    const gen_map_entry *x = a, *y = b;
    return x->value < y->value ? -1 : x->value > y->value;
}

static int gen_strcasecmp(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        int x = (*a >= 'A' && *a <= 'Z') ? *a + 32 : *a, y = (*b >= 'A' && *b <= 'Z') ? *b + 32 : *b;
        if (x != y) {
            return x - y;
        }
    }
    return (unsigned char)*a - (unsigned char)*b;
}

#define GEN_APPEND(dst, ndst, src, nsrc)                                                                     \
    do {                                                                                                     \
        for (size_t k_ = 0; k_ < (nsrc); k_++) {                                                             \
            *GEN_PUSH(dst, ndst) = (src)[k_];                                                                \
        }                                                                                                    \
    } while (0)

/* Appends what p declares to into (the same provider, declared in another file). */
static void merge_provider(gen_provider *into, const gen_provider *p)
{
    GEN_APPEND(into->keywords, into->nkeywords, p->keywords, p->nkeywords);
    GEN_APPEND(into->tasks, into->ntasks, p->tasks, p->ntasks);
    GEN_APPEND(into->opcodes, into->nopcodes, p->opcodes, p->nopcodes);
    GEN_APPEND(into->maps, into->nmaps, p->maps, p->nmaps);
    GEN_APPEND(into->templates, into->ntemplates, p->templates, p->ntemplates);
    GEN_APPEND(into->events, into->nevents, p->events, p->nevents);
    if (!into->guid) {
        into->guid = p->guid;
    }
}

void gen_resolve(gen_model *m, const gen_select *sel)
{
    size_t keep = 0;
    for (size_t pi = 0; pi < m->nproviders; pi++) {
        gen_provider *p = &m->providers[pi];
        size_t ne = 0;
        for (size_t i = 0; i < p->nevents; i++) {
            if (selected(sel, p, &p->events[i])) {
                p->events[ne++] = p->events[i];
            }
        }
        p->nevents = ne;
        if (ne == 0) {
            continue;
        }
        gen_provider *into = NULL;
        for (size_t q = 0; q < keep; q++) {
            if (strcmp(m->providers[q].name, p->name) == 0) {
                into = &m->providers[q];
            }
        }
        if (into) {
            /* a provider declared again in another file (a supplement such as
             * manifest/gc_newer.man) adds to it; twice in one file is an error */
            if (into->file == p->file ||
                (into->guid && p->guid && gen_strcasecmp(into->guid, p->guid) != 0)) {
                gen_fail(p->file, p->line, "provider '%s' declared twice", p->name);
            }
            merge_provider(into, p);
            continue;
        }
        m->providers[keep++] = *p;
    }
    m->nproviders = keep;

    for (size_t pi = 0; pi < m->nproviders; pi++) {
        gen_provider *p = &m->providers[pi];
        name_provider(p);
        for (size_t i = 0; i < p->nmaps; i++) {
            gen_map *map = &p->maps[i];
            for (size_t j = 0; j < map->nentries; j++) {
                map->entries[j].name =
                    gen_xstrdup(resolve_string(m, map->entries[j].name, p->file, map->line));
            }
            qsort(map->entries, map->nentries, sizeof map->entries[0], cmp_entry);
            for (size_t j = 1; j < map->nentries; j++) {
                if (map->entries[j].value == map->entries[j - 1].value) {
                    gen_fail(p->file, map->line, "map %s: value 0x%x appears twice", map->name,
                             map->entries[j].value);
                }
            }
        }
        qsort(p->events, p->nevents, sizeof p->events[0], cmp_event);
        for (size_t i = 0; i < p->nevents; i++) {
            gen_event *e = &p->events[i];
            if (i > 0 && cmp_event(&p->events[i - 1], e) == 0) {
                gen_fail(e->file, e->line, "event %u version %u declared twice", e->id, e->version);
            }
            e->level_value = std_level(e->level, e->file, e->line);
            e->opcode_value = resolve_opcode(p, e);
            if (e->task) {
                size_t t;
                for (t = 0; t < p->ntasks && strcmp(p->tasks[t].name, e->task) != 0; t++) {
                }
                if (t == p->ntasks) {
                    gen_fail(e->file, e->line, "event %s: task '%s' is not declared", e->symbol, e->task);
                }
                e->task_value = (unsigned)p->tasks[t].value;
            }
            if (e->keywords) {
                char *copy = gen_xstrdup(e->keywords);
                for (char *tok = strtok(copy, " \t"); tok; tok = strtok(NULL, " \t")) {
                    size_t k;
                    for (k = 0; k < p->nkeywords && strcmp(p->keywords[k].name, tok) != 0; k++) {
                    }
                    if (k == p->nkeywords) {
                        gen_fail(e->file, e->line, "event %s: keyword '%s' is not declared", e->symbol, tok);
                    }
                    e->keyword_mask |= p->keywords[k].value;
                }
                free(copy);
            }
            if (e->template_id) {
                for (size_t t = 0; t < p->ntemplates; t++) {
                    if (strcmp(p->templates[t].tid, e->template_id) == 0) {
                        e->tmpl = &p->templates[t];
                    }
                }
                if (!e->tmpl) {
                    gen_fail(e->file, e->line, "event %s: template '%s' is not declared", e->symbol,
                             e->template_id);
                }
            }
        }
        /* Only templates of selected events are checked: a full runtime manifest has
         * many others we never emit. */
        for (size_t t = 0; t < p->ntemplates; t++) {
            int used = 0;
            for (size_t i = 0; i < p->nevents; i++) {
                used |= p->events[i].tmpl == &p->templates[t];
            }
            if (used) {
                resolve_fields(m, p, p->templates[t].fields, p->templates[t].nfields);
            }
        }
        build_families(p);
    }
    /* C names must be unique across providers. */
    for (size_t pi = 0; pi < m->nproviders; pi++) {
        for (size_t a = 0; a < m->providers[pi].nfamilies; a++) {
            for (size_t pj = pi; pj < m->nproviders; pj++) {
                for (size_t b = (pj == pi ? a + 1 : 0); b < m->providers[pj].nfamilies; b++) {
                    if (strcmp(m->providers[pi].families[a].cname, m->providers[pj].families[b].cname) == 0) {
                        const gen_event *e = m->providers[pj].families[b].versions[0];
                        gen_fail(e->file, e->line, "two event families map to the C name '%s'",
                                 m->providers[pj].families[b].cname);
                    }
                }
            }
        }
    }
}
