/* SPDX-License-Identifier: MIT */
/* Manifest reading with libxml2: elements are matched by local name so both our
 * manifest and ClrEtwAll.man (default namespace on <events>) parse alike. */
#include "gen.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *cur_file;

static int is_el(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static int line_of(const xmlNode *n)
{
    return (int)xmlGetLineNo((xmlNode *)n);
}

/* Attribute as a malloc'ed string, or NULL. */
static char *attr(const xmlNode *n, const char *name)
{
    xmlChar *v = xmlGetProp((xmlNode *)n, (const xmlChar *)name);
    if (!v) {
        return NULL;
    }
    char *s = gen_xstrdup((const char *)v);
    xmlFree(v);
    return s;
}

static char *req_attr(const xmlNode *n, const char *name)
{
    char *s = attr(n, name);
    if (!s || !*s) {
        gen_fail(cur_file, line_of(n), "<%s> needs a non-empty '%s' attribute", n->name, name);
    }
    return s;
}

static uint64_t parse_number(const xmlNode *n, const char *what, const char *text)
{
    char *end = NULL;
    if (!text || !*text) {
        gen_fail(cur_file, line_of(n), "missing number for %s", what);
    }
    unsigned long long v = strtoull(text, &end, 0);
    if (*end != '\0') {
        gen_fail(cur_file, line_of(n), "'%s' is not a number (%s)", text, what);
    }
    return (uint64_t)v;
}

static int parse_in_type(const xmlNode *n, const char *t)
{
    for (int type = 0; type < T_COUNT_; type++) {
        if (type != T_STRUCT && strcmp(gen_type_manifest_name(type), t) == 0) {
            return type;
        }
    }
    gen_fail(cur_file, line_of(n), "unsupported inType '%s'", t);
    return -1;
}

static void parse_fields(const xmlNode *parent, gen_field **out, size_t *nout, int depth);

static void parse_field(const xmlNode *c, gen_field *f, int depth)
{
    memset(f, 0, sizeof *f);
    f->file = cur_file;
    f->line = line_of(c);
    f->name = req_attr(c, "name");
    f->count_index = f->length_index = -1;
    char *count = attr(c, "count");
    if (count) {
        if (count[0] >= '0' && count[0] <= '9') {
            uint64_t v = parse_number(c, "count", count);
            if (v == 0 || v > 65535) {
                gen_fail(cur_file, f->line, "count=\"%s\" out of range 1..65535", count);
            }
            f->fixed_count = (unsigned)v;
            free(count);
        } else {
            f->count_ref = count;
        }
    }
    if (is_el(c, "struct")) {
        if (depth > 0) {
            gen_fail(cur_file, f->line, "nested <struct> is not supported");
        }
        f->type = T_STRUCT;
        if (!f->count_ref && !f->fixed_count) {
            gen_fail(cur_file, f->line, "<struct name=\"%s\"> needs a count attribute", f->name);
        }
        parse_fields(c, &f->children, &f->nchildren, depth + 1);
        if (f->nchildren == 0) {
            gen_fail(cur_file, f->line, "<struct name=\"%s\"> has no fields", f->name);
        }
        return;
    }
    char *in = req_attr(c, "inType");
    f->type = parse_in_type(c, in);
    free(in);
    char *out = attr(c, "outType");
    if (out) {
        f->out_hex = strstr(out, "Hex") != NULL;
        free(out);
    }
    f->map = attr(c, "map");
    char *length = attr(c, "length");
    if (length) {
        if (f->type != T_BINARY && f->type != T_UNICODE_STRING && f->type != T_ANSI_STRING) {
            gen_fail(cur_file, f->line, "length= is only understood on Binary and string fields");
        }
        if (length[0] >= '0' && length[0] <= '9') {
            f->fixed_length = (unsigned)parse_number(c, "length", length);
            free(length);
        } else {
            f->length_ref = length;
        }
    } else if (f->type == T_BINARY) {
        gen_fail(cur_file, f->line, "win:Binary field '%s' needs a length attribute", f->name);
    }
    if ((f->count_ref || f->fixed_count) &&
        (f->type == T_UNICODE_STRING || f->type == T_ANSI_STRING || f->type == T_BINARY)) {
        gen_fail(cur_file, f->line, "arrays of strings or blobs are not supported ('%s')", f->name);
    }
}

static void parse_fields(const xmlNode *parent, gen_field **out, size_t *nout, int depth)
{
    for (const xmlNode *c = parent->children; c; c = c->next) {
        if (is_el(c, "data") || is_el(c, "struct")) {
            gen_field *f = GEN_PUSH(*out, *nout);
            parse_field(c, f, depth);
        } else if (c->type == XML_ELEMENT_NODE && !is_el(c, "UserData")) {
            gen_fail(cur_file, line_of(c), "unexpected <%s> in a template", c->name);
        }
    }
}

static void parse_maps(const xmlNode *maps, gen_provider *p)
{
    for (const xmlNode *mn = maps->children; mn; mn = mn->next) {
        if (mn->type != XML_ELEMENT_NODE) {
            continue;
        }
        if (!is_el(mn, "valueMap") && !is_el(mn, "bitMap")) {
            gen_fail(cur_file, line_of(mn), "unexpected <%s> in <maps>", mn->name);
        }
        gen_map *map = GEN_PUSH(p->maps, p->nmaps);
        memset(map, 0, sizeof *map);
        map->name = req_attr(mn, "name");
        map->bitmap = is_el(mn, "bitMap");
        map->line = line_of(mn);
        for (const xmlNode *e = mn->children; e; e = e->next) {
            if (!is_el(e, "map")) {
                continue;
            }
            gen_map_entry *me = GEN_PUSH(map->entries, map->nentries);
            char *v = req_attr(e, "value");
            uint64_t value = parse_number(e, "map value", v);
            if (value > 0xffffffffu) {
                gen_fail(cur_file, line_of(e), "map value %s exceeds 32 bits", v);
            }
            free(v);
            me->value = (uint32_t)value;
            me->name = req_attr(e, "message"); /* resolved against the string table later */
        }
        if (map->nentries == 0) {
            gen_fail(cur_file, map->line, "%s '%s' has no <map> entries", mn->name, map->name);
        }
    }
}

static void parse_named(const xmlNode *parent, const char *elname, const char *valattr, gen_named_value **arr,
                        size_t *n, const char *task)
{
    for (const xmlNode *c = parent->children; c; c = c->next) {
        if (!is_el(c, elname)) {
            continue;
        }
        gen_named_value *nv = GEN_PUSH(*arr, *n);
        nv->name = req_attr(c, "name");
        char *v = req_attr(c, valattr);
        nv->value = parse_number(c, valattr, v);
        free(v);
        nv->task = task ? gen_xstrdup(task) : NULL;
    }
}

static void parse_provider(gen_model *m, const xmlNode *pn)
{
    gen_provider *p = GEN_PUSH(m->providers, m->nproviders);
    memset(p, 0, sizeof *p);
    p->name = req_attr(pn, "name");
    p->guid = attr(pn, "guid");
    p->symbol = attr(pn, "symbol");
    p->file = cur_file;
    p->line = line_of(pn);
    for (const xmlNode *c = pn->children; c; c = c->next) {
        if (is_el(c, "keywords")) {
            parse_named(c, "keyword", "mask", &p->keywords, &p->nkeywords, NULL);
        } else if (is_el(c, "tasks")) {
            parse_named(c, "task", "value", &p->tasks, &p->ntasks, NULL);
            for (const xmlNode *t = c->children; t; t = t->next) {
                if (!is_el(t, "task")) {
                    continue;
                }
                char *tname = req_attr(t, "name");
                for (const xmlNode *o = t->children; o; o = o->next) {
                    if (is_el(o, "opcodes")) {
                        parse_named(o, "opcode", "value", &p->opcodes, &p->nopcodes, tname);
                    }
                }
                free(tname);
            }
        } else if (is_el(c, "opcodes")) {
            parse_named(c, "opcode", "value", &p->opcodes, &p->nopcodes, NULL);
        } else if (is_el(c, "maps")) {
            parse_maps(c, p);
        } else if (is_el(c, "templates")) {
            for (const xmlNode *t = c->children; t; t = t->next) {
                if (!is_el(t, "template")) {
                    continue;
                }
                gen_template *tm = GEN_PUSH(p->templates, p->ntemplates);
                memset(tm, 0, sizeof *tm);
                tm->tid = req_attr(t, "tid");
                tm->line = line_of(t);
                parse_fields(t, &tm->fields, &tm->nfields, 0);
            }
        } else if (is_el(c, "events")) {
            for (const xmlNode *e = c->children; e; e = e->next) {
                if (!is_el(e, "event")) {
                    continue;
                }
                gen_event *ev = GEN_PUSH(p->events, p->nevents);
                memset(ev, 0, sizeof *ev);
                ev->line = line_of(e);
                ev->file = cur_file;
                char *v = req_attr(e, "value");
                uint64_t id = parse_number(e, "event value", v);
                free(v);
                char *ver = attr(e, "version");
                uint64_t version = ver ? parse_number(e, "event version", ver) : 0;
                free(ver);
                if (id > 65535 || version > 255) {
                    gen_fail(cur_file, ev->line, "event value/version out of range");
                }
                ev->id = (unsigned)id;
                ev->version = (unsigned)version;
                ev->symbol = req_attr(e, "symbol");
                ev->task = attr(e, "task");
                ev->opcode = attr(e, "opcode");
                ev->level = attr(e, "level");
                ev->keywords = attr(e, "keywords");
                ev->template_id = attr(e, "template");
            }
        } else if (c->type == XML_ELEMENT_NODE && !is_el(c, "channels")) {
            gen_fail(cur_file, line_of(c), "unexpected <%s> in <provider>", c->name);
        }
    }
}

static void walk(gen_model *m, const xmlNode *n)
{
    for (; n; n = n->next) {
        if (is_el(n, "provider")) {
            parse_provider(m, n);
        } else if (is_el(n, "string")) {
            gen_string *s = GEN_PUSH(m->strings, m->nstrings);
            s->id = req_attr(n, "id");
            s->value = req_attr(n, "value");
        } else if (n->type == XML_ELEMENT_NODE) {
            walk(m, n->children);
        }
    }
}

/* The model part of a parsed document, whichever way it was read. */
static void parse_doc(gen_model *m, const char *path, xmlDoc *doc)
{
    if (!doc) {
        const xmlError *e = xmlGetLastError();
        gen_fail(path, e ? e->line : 0, "not well-formed XML: %s", e && e->message ? e->message : "?");
    }
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (!root || !is_el(root, "instrumentationManifest")) {
        gen_fail(path, root ? line_of(root) : 0, "root element must be <instrumentationManifest>");
    }
    *GEN_PUSH(m->manifest_names, m->nmanifests) = gen_xstrdup(path);
    walk(m, root->children);
    xmlFreeDoc(doc);
}

void gen_parse_manifest(gen_model *m, const char *path)
{
    cur_file = path;
    parse_doc(m, path, xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOWARNING));
}

void gen_parse_manifest_memory(gen_model *m, const char *name, const char *data, size_t size)
{
    cur_file = name;
    if (size > INT_MAX) {
        gen_fail(name, 0, "manifest too large");
    }
    parse_doc(m, name, xmlReadMemory(data, (int)size, name, NULL, XML_PARSE_NONET | XML_PARSE_NOWARNING));
}

void gen_load_select(gen_select *s, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        gen_fail(path, 0, "cannot open selection file");
    }
    char line[1024];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t') {
            p++;
        }
        if (*p == '#' || *p == '\n' || *p == '\0') {
            continue;
        }
        char prov[512], rule[512];
        if (sscanf(p, "%511s %511s", prov, rule) != 2) {
            gen_fail(path, lineno, "expected 'PROVIDER task=NAME|id=N|symbol=PREFIX*'");
        }
        char *eq = strchr(rule, '=');
        if (!eq) {
            gen_fail(path, lineno, "rule '%s' has no '='", rule);
        }
        *eq = '\0';
        if (strcmp(rule, "task") && strcmp(rule, "id") && strcmp(rule, "symbol")) {
            gen_fail(path, lineno, "unknown rule kind '%s' (task, id, symbol)", rule);
        }
        gen_rule *r = GEN_PUSH(s->rules, s->nrules);
        r->provider = gen_xstrdup(prov);
        r->kind = gen_xstrdup(rule);
        r->value = gen_xstrdup(eq + 1);
    }
    fclose(f);
}
