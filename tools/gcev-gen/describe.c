/* SPDX-License-Identifier: MIT */
/*
 * A canonical text form of a resolved model: one line per event version and one
 * per map, independent of how the manifest is written (template ids, order,
 * comments, message strings). Two manifests that describe the same events give
 * the same lines; the conformance test compares ours with the runtime's.
 */
#include "gen.h"

#include <stdlib.h>
#include <string.h>

typedef struct line_buf {
    char *s;
    size_t len, cap;
} line_buf;

static void put(line_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = gen_xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

static void put_field(line_buf *b, const gen_field *f)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s:%s", f->name, gen_type_manifest_name(f->type));
    put(b, tmp);
    if (f->map) {
        put(b, ":map=");
        put(b, f->map);
    }
    if (f->count_ref || f->fixed_count) {
        snprintf(tmp, sizeof tmp, ":count=%s", f->count_ref ? f->count_ref : "");
        put(b, tmp);
        if (!f->count_ref) {
            snprintf(tmp, sizeof tmp, "%u", f->fixed_count);
            put(b, tmp);
        }
    }
    if (f->length_ref || f->fixed_length) {
        snprintf(tmp, sizeof tmp, ":length=%s", f->length_ref ? f->length_ref : "");
        put(b, tmp);
        if (!f->length_ref) {
            snprintf(tmp, sizeof tmp, "%u", f->fixed_length);
            put(b, tmp);
        }
    }
    if (f->type == T_STRUCT) {
        put(b, "{");
        for (size_t c = 0; c < f->nchildren; c++) {
            if (c) {
                put(b, ",");
            }
            put_field(b, &f->children[c]);
        }
        put(b, "}");
    }
}

/* Lines: "event|provider|id|version|..." and "map|provider|name|...". */
static char **describe_lines(const gen_model *m, size_t *nlines)
{
    char **lines = NULL;
    size_t n = 0;
    for (size_t pi = 0; pi < m->nproviders; pi++) {
        const gen_provider *p = &m->providers[pi];
        for (size_t i = 0; i < p->nevents; i++) {
            const gen_event *e = &p->events[i];
            line_buf b = {0};
            char tmp[1024];
            snprintf(tmp, sizeof tmp,
                     "event|%s|%u|%u|%s|task=%s(%u)|opcode=%s(%u)|level=%u|keywords=0x%llx|fields=", p->name,
                     e->id, e->version, e->symbol, e->task ? e->task : "", e->task_value,
                     e->opcode ? e->opcode : "", e->opcode_value, e->level_value,
                     (unsigned long long)e->keyword_mask);
            put(&b, tmp);
            for (size_t fi = 0; e->tmpl && fi < e->tmpl->nfields; fi++) {
                if (fi) {
                    put(&b, ",");
                }
                put_field(&b, &e->tmpl->fields[fi]);
            }
            *GEN_PUSH(lines, n) = b.s;
        }
        for (size_t i = 0; i < p->nmaps; i++) {
            const gen_map *map = &p->maps[i];
            if (!map->used) {
                continue;
            }
            line_buf b = {0};
            char tmp[512];
            snprintf(tmp, sizeof tmp, "map|%s|%s|%s|", p->name, map->name,
                     map->bitmap ? "bitMap" : "valueMap");
            put(&b, tmp);
            for (size_t j = 0; j < map->nentries; j++) {
                snprintf(tmp, sizeof tmp, "%s0x%x=%s", j ? "," : "", map->entries[j].value,
                         map->entries[j].name);
                put(&b, tmp);
            }
            *GEN_PUSH(lines, n) = b.s;
        }
    }
    *nlines = n;
    return lines;
}

void gen_describe(const gen_model *m, FILE *f)
{
    size_t n;
    char **lines = describe_lines(m, &n);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s\n", lines[i]);
        free(lines[i]);
    }
    free(lines);
}

/* The key of a line: its first four '|' fields (kind, provider, id|name, version|kind). */
static size_t key_len(const char *s)
{
    size_t bars = 0, i;
    for (i = 0; s[i]; i++) {
        if (s[i] == '|' && ++bars == 4) {
            break;
        }
    }
    return i;
}

static int has_provider(const gen_model *m, const char *line)
{
    const char *p = strchr(line, '|') + 1;
    size_t n = (size_t)(strchr(p, '|') - p);
    for (size_t i = 0; i < m->nproviders; i++) {
        if (strlen(m->providers[i].name) == n && strncmp(m->providers[i].name, p, n) == 0) {
            return 1;
        }
    }
    return 0;
}

int gen_compare(const gen_model *ours, const gen_model *ref, FILE *f)
{
    size_t no, nr;
    char **lo = describe_lines(ours, &no);
    char **lr = describe_lines(ref, &nr);
    int diffs = 0, covered = 0;
    for (size_t i = 0; i < nr; i++) {
        size_t k = key_len(lr[i]);
        size_t j;
        for (j = 0; j < no; j++) {
            if (key_len(lo[j]) == k && strncmp(lo[j], lr[i], k) == 0) {
                break;
            }
        }
        if (j == no) {
            fprintf(f, "missing in ours: %s\n", lr[i]);
            diffs++;
        } else if (strcmp(lo[j], lr[i]) != 0) {
            fprintf(f, "differs:\n  ref:  %s\n  ours: %s\n", lr[i], lo[j]);
            diffs++;
        } else if (strncmp(lr[i], "event|", 6) == 0) {
            covered++;
        }
    }
    for (size_t j = 0; j < no; j++) {
        if (!has_provider(ref, lo[j])) {
            continue; /* e.g. our GCDynamicEvent pseudo-provider */
        }
        size_t k = key_len(lo[j]), i;
        for (i = 0; i < nr && !(key_len(lr[i]) == k && strncmp(lo[j], lr[i], k) == 0); i++) {
        }
        if (i == nr) {
            fprintf(f, "extra in ours: %s\n", lo[j]);
            diffs++;
        }
    }
    fprintf(f, "%d event versions of the reference described identically; %d difference(s)\n", covered,
            diffs);
    return diffs;
}
