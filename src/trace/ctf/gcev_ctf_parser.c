/* SPDX-License-Identifier: MIT */
/*
 * TSDL (CTF 1.8 metadata) parser for the subset LTTng writes: trace, env, clock,
 * stream and event blocks; integer, floating_point, string, struct, variant,
 * enum, arrays and sequences; typealias and typedef; callsite blocks are skipped.
 *
 * Recursive descent over the tokens of gcev_ctf_lexer.c, building the model of
 * gcev_ctf_meta.h. Every allocation comes from one bounded arena, so a failure
 * anywhere unwinds with longjmp and frees the arena whole; nesting is bounded by
 * GCEV_CTF_MAX_DEPTH and every count by the limits of gcev_ctf_meta.h. Only the
 * grammar is here: the bytes are the lexer's, the packet framing is
 * gcev_ctf_metadata_packets.c's, the model's lookups are gcev_ctf_meta.c's.
 */
#include "gcev_ctf_meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcev_ctf_arena.h"
#include "gcev_ctf_lexer.h"

/* ---- type names ------------------------------------------------------------ */

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    }
    return h;
}

static void alias_put(parser *p, const char *name, const gcev_ctf_type *type)
{
    if (p->nalias + 1 > p->alias_cap / 2) {
        size_t cap = p->alias_cap ? p->alias_cap * 2 : 64;
        alias_ent *n = gcev_tsdl_alloc(p, cap * sizeof *n);
        for (size_t i = 0; i < p->alias_cap; i++) {
            if (p->aliases[i].name) {
                size_t h = (size_t)hash_name(p->aliases[i].name) & (cap - 1);
                while (n[h].name) {
                    h = (h + 1) & (cap - 1);
                }
                n[h] = p->aliases[i];
            }
        }
        p->aliases = n;
        p->alias_cap = cap;
    }
    size_t h = (size_t)hash_name(name) & (p->alias_cap - 1);
    while (p->aliases[h].name) {
        if (strcmp(p->aliases[h].name, name) == 0) {
            p->aliases[h].type = type; /* a redeclaration replaces */
            return;
        }
        h = (h + 1) & (p->alias_cap - 1);
    }
    p->aliases[h].name = name;
    p->aliases[h].type = type;
    p->nalias++;
}

static const gcev_ctf_type *alias_get(const parser *p, const char *name)
{
    if (!p->alias_cap) {
        return NULL;
    }
    size_t h = (size_t)hash_name(name) & (p->alias_cap - 1);
    while (p->aliases[h].name) {
        if (strcmp(p->aliases[h].name, name) == 0) {
            return p->aliases[h].type;
        }
        h = (h + 1) & (p->alias_cap - 1);
    }
    return NULL;
}

static char *prefixed(parser *p, const char *prefix, const char *name)
{
    size_t a = strlen(prefix), b = strlen(name);
    char *d = gcev_tsdl_alloc(p, a + b + 2);
    memcpy(d, prefix, a);
    d[a] = ' ';
    memcpy(d + a + 1, name, b + 1);
    return d;
}

/* ---- attribute values ------------------------------------------------------- */

enum { V_INT, V_STRING, V_IDENT };

typedef struct value {
    int kind;
    uint64_t u; /* V_INT: magnitude */
    int neg;    /* V_INT: negative */
    const char *s;
} value;

/* After '=': [-]number, "string", or ident(.ident)* */
static value parse_value(parser *p)
{
    value v = {0};
    if (p->t.kind == T_INT || gcev_tsdl_is_punct(p, "-") || gcev_tsdl_is_punct(p, "+")) {
        int neg = 0;
        if (gcev_tsdl_accept(p, "-")) {
            neg = 1;
        } else {
            gcev_tsdl_accept(p, "+");
        }
        if (p->t.kind != T_INT) {
            gcev_tsdl_fail(p, "expected a number");
        }
        v.kind = V_INT;
        v.u = p->t.num;
        v.neg = neg && v.u != 0;
        gcev_tsdl_next(p);
        return v;
    }
    if (p->t.kind == T_STRING) {
        v.kind = V_STRING;
        v.s = gcev_tsdl_take_string(p);
        return v;
    }
    if (p->t.kind == T_IDENT) {
        size_t start = p->t.pos;
        size_t end = p->t.pos + p->t.n;
        gcev_tsdl_next(p);
        while (gcev_tsdl_is_punct(p, ".")) {
            gcev_tsdl_next(p);
            if (p->t.kind != T_IDENT) {
                gcev_tsdl_fail(p, "expected a name after '.'");
            }
            end = p->t.pos + p->t.n;
            gcev_tsdl_next(p);
        }
        v.kind = V_IDENT;
        v.s = gcev_tsdl_dupn(p, p->s + start, end - start);
        return v;
    }
    gcev_tsdl_fail(p, "expected a value");
}

static uint64_t value_uint(parser *p, const value *v, const char *key)
{
    if (v->kind != V_INT || v->neg) {
        gcev_tsdl_fail(p, "'%s' must be a non-negative integer", key);
    }
    return v->u;
}

static int64_t value_int(parser *p, const value *v, const char *key)
{
    if (v->kind != V_INT) {
        gcev_tsdl_fail(p, "'%s' must be an integer", key);
    }
    if (v->neg) {
        if (v->u > (uint64_t)INT64_MAX + 1) {
            gcev_tsdl_fail(p, "'%s' is out of range", key);
        }
        return v->u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v->u;
    }
    if (v->u > (uint64_t)INT64_MAX) {
        gcev_tsdl_fail(p, "'%s' is out of range", key);
    }
    return (int64_t)v->u;
}

static int value_bool(parser *p, const value *v, const char *key)
{
    if (v->kind == V_INT && !v->neg && v->u <= 1) {
        return (int)v->u;
    }
    if (v->kind == V_IDENT) {
        if (!strcmp(v->s, "true") || !strcmp(v->s, "TRUE")) {
            return 1;
        }
        if (!strcmp(v->s, "false") || !strcmp(v->s, "FALSE")) {
            return 0;
        }
    }
    gcev_tsdl_fail(p, "'%s' must be true or false", key);
}

static uint8_t value_byte_order(parser *p, const value *v)
{
    if (v->kind == V_IDENT) {
        if (!strcmp(v->s, "le") || !strcmp(v->s, "little")) {
            return GCEV_CTF_BO_LE;
        }
        if (!strcmp(v->s, "be") || !strcmp(v->s, "big") || !strcmp(v->s, "network")) {
            return GCEV_CTF_BO_BE;
        }
        if (!strcmp(v->s, "native")) {
            return GCEV_CTF_BO_NATIVE;
        }
    }
    gcev_tsdl_fail(p, "byte_order must be le, be, native or network");
}

static uint8_t value_encoding(parser *p, const value *v)
{
    if (v->kind == V_IDENT || v->kind == V_STRING) {
        if (!strcmp(v->s, "none")) {
            return 0;
        }
        if (!strcmp(v->s, "UTF8") || !strcmp(v->s, "utf8")) {
            return 1;
        }
        if (!strcmp(v->s, "ASCII") || !strcmp(v->s, "ascii")) {
            return 2;
        }
    }
    gcev_tsdl_fail(p, "encoding must be none, UTF8 or ASCII");
}

static int is_pow2(uint64_t v)
{
    return v && (v & (v - 1)) == 0;
}

/* Parses "key" or "a.b.c" as one dotted string. */
static char *parse_key(parser *p)
{
    if (p->t.kind != T_IDENT) {
        gcev_tsdl_fail(p, "expected an attribute name");
    }
    size_t start = p->t.pos, end = p->t.pos + p->t.n;
    gcev_tsdl_next(p);
    while (gcev_tsdl_is_punct(p, ".")) {
        gcev_tsdl_next(p);
        if (p->t.kind != T_IDENT) {
            gcev_tsdl_fail(p, "expected a name after '.'");
        }
        end = p->t.pos + p->t.n;
        gcev_tsdl_next(p);
    }
    return gcev_tsdl_dupn(p, p->s + start, end - start);
}

/* ---- types ------------------------------------------------------------------ */

static const gcev_ctf_type *parse_type(parser *p, char **declname);
static void parse_declarations(parser *p, gcev_ctf_field **fields, uint32_t *n, int variant);

static gcev_ctf_type *new_type(parser *p, int kind)
{
    gcev_ctf_type *t = gcev_tsdl_alloc(p, sizeof *t);
    t->kind = (uint8_t)kind;
    t->align = 8;
    return t;
}

static void enter(parser *p)
{
    if (++p->depth > GCEV_CTF_MAX_DEPTH) {
        gcev_tsdl_fail_code(p, GCEV_E_LIMIT, "declarations nested deeper than %d", GCEV_CTF_MAX_DEPTH);
    }
}

static const gcev_ctf_type *parse_integer(parser *p)
{
    gcev_ctf_type *t = new_type(p, GCEV_CTF_INT);
    t->base = 10;
    int have_size = 0, have_align = 0;
    gcev_tsdl_expect(p, "{");
    while (!gcev_tsdl_is_punct(p, "}")) {
        char *key = parse_key(p);
        gcev_tsdl_expect(p, "=");
        size_t kpos = p->t.pos;
        value v = parse_value(p);
        if (!strcmp(key, "size")) {
            uint64_t s = value_uint(p, &v, key);
            if (s < 1 || s > 64) {
                p->t.pos = kpos;
                gcev_tsdl_fail_code(p, GCEV_E_UNSUPPORTED, "integer size %llu: 1 to 64 bits are supported",
                                    (unsigned long long)s);
            }
            t->size = (uint32_t)s;
            have_size = 1;
        } else if (!strcmp(key, "align")) {
            uint64_t a = value_uint(p, &v, key);
            if (!is_pow2(a) || a > GCEV_CTF_MAX_ALIGN) {
                gcev_tsdl_fail(p, "align must be a power of two up to %u", (unsigned)GCEV_CTF_MAX_ALIGN);
            }
            t->align = (uint32_t)a;
            have_align = 1;
        } else if (!strcmp(key, "signed")) {
            t->is_signed = (uint8_t)value_bool(p, &v, key);
        } else if (!strcmp(key, "byte_order")) {
            t->byte_order = value_byte_order(p, &v);
        } else if (!strcmp(key, "encoding")) {
            t->encoding = value_encoding(p, &v);
        } else if (!strcmp(key, "base")) {
            if (v.kind == V_INT) {
                uint64_t b = value_uint(p, &v, key);
                if (b != 2 && b != 8 && b != 10 && b != 16) {
                    gcev_tsdl_fail(p, "base must be 2, 8, 10 or 16");
                }
                t->base = (uint8_t)b;
            } else if (v.kind == V_IDENT) {
                const char *b = v.s;
                t->base = (!strcmp(b, "hex") || !strcmp(b, "x") || !strcmp(b, "X") || !strcmp(b, "p")) ? 16
                          : (!strcmp(b, "oct") || !strcmp(b, "o"))                                     ? 8
                          : (!strcmp(b, "bin") || !strcmp(b, "b"))                                     ? 2
                                                                                                       : 10;
            }
        } else if (!strcmp(key, "map")) {
            /* clock.<name>.value */
            if (v.kind == V_IDENT && !strncmp(v.s, "clock.", 6)) {
                const char *name = v.s + 6;
                size_t n = strlen(name);
                if (n > 6 && !strcmp(name + n - 6, ".value")) {
                    for (uint32_t i = 0; i < p->m->nclocks; i++) {
                        const char *cn = p->m->clocks[i].name;
                        if (strlen(cn) == n - 6 && !memcmp(cn, name, n - 6)) {
                            t->has_clock = 1;
                            t->clock = (uint16_t)i;
                        }
                    }
                }
            }
        } /* other attributes are ignored */
        gcev_tsdl_expect(p, ";");
    }
    gcev_tsdl_next(p);
    if (!have_size) {
        gcev_tsdl_fail(p, "integer without a size");
    }
    if (!have_align) {
        t->align = (t->size % 8 == 0) ? 8 : 1;
    }
    return t;
}

static const gcev_ctf_type *parse_float(parser *p)
{
    gcev_ctf_type *t = new_type(p, GCEV_CTF_FLOAT);
    uint64_t exp = 0, mant = 0;
    int have_align = 0;
    gcev_tsdl_expect(p, "{");
    while (!gcev_tsdl_is_punct(p, "}")) {
        char *key = parse_key(p);
        gcev_tsdl_expect(p, "=");
        value v = parse_value(p);
        if (!strcmp(key, "exp_dig")) {
            exp = value_uint(p, &v, key);
        } else if (!strcmp(key, "mant_dig")) {
            mant = value_uint(p, &v, key);
        } else if (!strcmp(key, "align")) {
            uint64_t a = value_uint(p, &v, key);
            if (!is_pow2(a) || a > GCEV_CTF_MAX_ALIGN) {
                gcev_tsdl_fail(p, "align must be a power of two up to %u", (unsigned)GCEV_CTF_MAX_ALIGN);
            }
            t->align = (uint32_t)a;
            have_align = 1;
        } else if (!strcmp(key, "byte_order")) {
            t->byte_order = value_byte_order(p, &v);
        }
        gcev_tsdl_expect(p, ";");
    }
    gcev_tsdl_next(p);
    if (!((exp == 8 && mant == 24) || (exp == 11 && mant == 53))) {
        gcev_tsdl_fail_code(
            p, GCEV_E_UNSUPPORTED,
            "floating_point exp_dig %llu mant_dig %llu: only 32-bit and 64-bit IEEE 754 are supported",
            (unsigned long long)exp, (unsigned long long)mant);
    }
    t->size = (uint32_t)(exp + mant);
    if (!have_align) {
        t->align = 8;
    }
    return t;
}

static const gcev_ctf_type *parse_string(parser *p)
{
    gcev_ctf_type *t = new_type(p, GCEV_CTF_STRING);
    t->encoding = 1;
    if (gcev_tsdl_accept(p, "{")) {
        while (!gcev_tsdl_is_punct(p, "}")) {
            char *key = parse_key(p);
            gcev_tsdl_expect(p, "=");
            value v = parse_value(p);
            if (!strcmp(key, "encoding")) {
                t->encoding = value_encoding(p, &v);
            }
            gcev_tsdl_expect(p, ";");
        }
        gcev_tsdl_next(p);
    }
    return t;
}

static uint32_t struct_align(const gcev_ctf_field *f, uint32_t n)
{
    uint32_t a = 1;
    for (uint32_t i = 0; i < n; i++) {
        if (f[i].type->kind != GCEV_CTF_VARIANT && f[i].type->align > a) {
            a = f[i].type->align;
        }
    }
    return a;
}

static const gcev_ctf_type *parse_struct(parser *p)
{
    char *name = NULL;
    if (p->t.kind == T_IDENT) {
        name = gcev_tsdl_take_ident(p, "a struct name");
    }
    if (!gcev_tsdl_is_punct(p, "{")) {
        if (!name) {
            gcev_tsdl_fail(p, "expected a struct name or body");
        }
        const gcev_ctf_type *t = alias_get(p, prefixed(p, "struct", name));
        if (!t) {
            gcev_tsdl_fail(p, "struct '%s' is not declared", name);
        }
        return t;
    }
    gcev_ctf_type *t = new_type(p, GCEV_CTF_STRUCT);
    gcev_ctf_field *fields;
    uint32_t n;
    gcev_tsdl_next(p);
    parse_declarations(p, &fields, &n, 0);
    t->fields = fields;
    t->nfields = n;
    t->align = struct_align(fields, n);
    if (gcev_tsdl_is_ident(p, "align")) {
        gcev_tsdl_next(p);
        gcev_tsdl_expect(p, "(");
        if (p->t.kind != T_INT || !is_pow2(p->t.num) || p->t.num > GCEV_CTF_MAX_ALIGN) {
            gcev_tsdl_fail(p, "align() needs a power of two up to %u", (unsigned)GCEV_CTF_MAX_ALIGN);
        }
        if (p->t.num > t->align) {
            t->align = (uint32_t)p->t.num;
        }
        gcev_tsdl_next(p);
        gcev_tsdl_expect(p, ")");
    }
    if (name) {
        alias_put(p, prefixed(p, "struct", name), t);
    }
    return t;
}

/* "<a.b.c>" */
static char *parse_tag(parser *p)
{
    gcev_tsdl_expect(p, "<");
    char *r = parse_key(p);
    gcev_tsdl_expect(p, ">");
    return r;
}

static const gcev_ctf_type *parse_variant(parser *p)
{
    char *name = NULL, *tag = NULL;
    if (p->t.kind == T_IDENT) {
        name = gcev_tsdl_take_ident(p, "a variant name");
    }
    if (gcev_tsdl_is_punct(p, "<")) {
        tag = parse_tag(p);
    }
    if (!gcev_tsdl_is_punct(p, "{")) {
        if (!name) {
            gcev_tsdl_fail(p, "expected a variant name or body");
        }
        const gcev_ctf_type *base = alias_get(p, prefixed(p, "variant", name));
        if (!base) {
            gcev_tsdl_fail(p, "variant '%s' is not declared", name);
        }
        if (!tag) {
            return base;
        }
        gcev_ctf_type *t = new_type(p, GCEV_CTF_VARIANT);
        *t = *base;
        t->ref = tag;
        return t;
    }
    gcev_ctf_type *t = new_type(p, GCEV_CTF_VARIANT);
    gcev_ctf_field *fields;
    uint32_t n;
    gcev_tsdl_next(p);
    parse_declarations(p, &fields, &n, 1);
    t->fields = fields;
    t->nfields = n;
    t->ref = tag;
    t->align = 1;
    if (name) {
        alias_put(p, prefixed(p, "variant", name), t);
    }
    return t;
}

static const gcev_ctf_type *parse_enum(parser *p)
{
    char *name = NULL;
    if (p->t.kind == T_IDENT) {
        name = gcev_tsdl_take_ident(p, "an enum name");
    }
    const gcev_ctf_type *cont = NULL;
    if (gcev_tsdl_accept(p, ":")) {
        cont = parse_type(p, NULL);
    }
    if (!gcev_tsdl_is_punct(p, "{")) {
        if (!name || cont) {
            gcev_tsdl_fail(p, "expected an enumeration body");
        }
        const gcev_ctf_type *t = alias_get(p, prefixed(p, "enum", name));
        if (!t) {
            gcev_tsdl_fail(p, "enum '%s' is not declared", name);
        }
        return t;
    }
    if (!cont) {
        cont = alias_get(p, "int");
        if (!cont) {
            gcev_tsdl_fail(p, "enumeration without a container type, and no 'int' is declared");
        }
    }
    if (cont->kind != GCEV_CTF_INT) {
        gcev_tsdl_fail(p, "the container of an enumeration must be an integer");
    }
    gcev_ctf_type *t = new_type(p, GCEV_CTF_ENUM);
    *t = *cont;
    t->kind = GCEV_CTF_ENUM;
    gcev_tsdl_next(p);
    size_t cap = 8, n = 0;
    gcev_ctf_enum_entry *ents = gcev_tsdl_alloc(p, cap * sizeof *ents);
    uint64_t nextv = 0;
    while (!gcev_tsdl_is_punct(p, "}")) {
        char *label;
        if (p->t.kind == T_STRING) {
            label = gcev_tsdl_take_string(p);
        } else {
            label = gcev_tsdl_take_ident(p, "an enumerator");
        }
        uint64_t lo = nextv, hi = nextv;
        if (gcev_tsdl_accept(p, "=")) {
            value v = parse_value(p);
            lo = v.neg ? (uint64_t)value_int(p, &v, label) : value_uint(p, &v, label);
            hi = lo;
            if (gcev_tsdl_accept(p, "...")) {
                value w = parse_value(p);
                hi = w.neg ? (uint64_t)value_int(p, &w, label) : value_uint(p, &w, label);
            }
        }
        nextv = hi + 1;
        if (n == cap) {
            if (cap >= GCEV_CTF_MAX_ENUM) {
                gcev_tsdl_fail_code(p, GCEV_E_LIMIT, "enumeration with more than %d entries",
                                    GCEV_CTF_MAX_ENUM);
            }
            gcev_ctf_enum_entry *g = gcev_tsdl_alloc(p, 2 * cap * sizeof *g);
            memcpy(g, ents, n * sizeof *g);
            ents = g;
            cap *= 2;
        }
        ents[n].label = label;
        ents[n].lo = lo;
        ents[n].hi = hi;
        n++;
        if (!gcev_tsdl_accept(p, ",")) {
            break;
        }
    }
    gcev_tsdl_expect(p, "}");
    t->entries = ents;
    t->nentries = (uint32_t)n;
    if (name) {
        alias_put(p, prefixed(p, "enum", name), t);
    }
    return t;
}

/*
 * A type specifier. With declname non-NULL the specifier is followed by a
 * declarator: for a type named by words ("unsigned long x") the last word is
 * the declarator and is returned in *declname (else *declname stays NULL).
 */
static const gcev_ctf_type *parse_type(parser *p, char **declname)
{
    enter(p);
    const gcev_ctf_type *t;
    if (declname) {
        *declname = NULL;
    }
    if (gcev_tsdl_is_ident(p, "integer")) {
        gcev_tsdl_next(p);
        t = parse_integer(p);
    } else if (gcev_tsdl_is_ident(p, "floating_point")) {
        gcev_tsdl_next(p);
        t = parse_float(p);
    } else if (gcev_tsdl_is_ident(p, "string")) {
        gcev_tsdl_next(p);
        t = parse_string(p);
    } else if (gcev_tsdl_is_ident(p, "struct")) {
        gcev_tsdl_next(p);
        t = parse_struct(p);
    } else if (gcev_tsdl_is_ident(p, "variant")) {
        gcev_tsdl_next(p);
        t = parse_variant(p);
    } else if (gcev_tsdl_is_ident(p, "enum")) {
        gcev_tsdl_next(p);
        t = parse_enum(p);
    } else if (p->t.kind == T_IDENT) {
        /* words: the longest run of identifiers */
        size_t start = p->t.pos, end = p->t.pos + p->t.n, last_start = start;
        size_t nwords = 1;
        gcev_tsdl_next(p);
        while (p->t.kind == T_IDENT) {
            last_start = p->t.pos;
            end = p->t.pos + p->t.n;
            nwords++;
            gcev_tsdl_next(p);
        }
        size_t tend = end;
        if (declname) {
            if (nwords < 2) {
                gcev_tsdl_fail(p, "expected a type and a field name");
            }
            *declname = gcev_tsdl_dupn(p, p->s + last_start, end - last_start);
            tend = last_start;
            while (tend > start && (p->s[tend - 1] == ' ' || p->s[tend - 1] == '\t' ||
                                    p->s[tend - 1] == '\n' || p->s[tend - 1] == '\r')) {
                tend--;
            }
        }
        /* normalise the white space between words to one blank */
        char *name = gcev_tsdl_alloc(p, tend - start + 1);
        size_t k = 0;
        int gap = 0;
        for (size_t i = start; i < tend; i++) {
            char c = p->s[i];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                gap = 1;
                continue;
            }
            if (c == '/' && i + 1 < tend && (p->s[i + 1] == '*' || p->s[i + 1] == '/')) {
                gcev_tsdl_fail(p, "comment inside a type name");
            }
            if (gap && k) {
                name[k++] = ' ';
            }
            gap = 0;
            name[k++] = c;
        }
        name[k] = '\0';
        t = alias_get(p, name);
        if (!t) {
            gcev_tsdl_fail(p, "type '%s' is not declared", name);
        }
    } else {
        gcev_tsdl_fail(p, "expected a type");
    }
    p->depth--;
    return t;
}

/* [N] / [path] suffixes after a declarator name, applied innermost last. */
static const gcev_ctf_type *parse_dims(parser *p, const gcev_ctf_type *base)
{
    /* collect dimensions first: a[2][3] is an array of 2 arrays of 3 */
    typedef struct dim {
        int seq;
        uint64_t len;
        char *ref;
    } dim;
    dim dims[GCEV_CTF_MAX_DEPTH];
    int nd = 0;
    while (gcev_tsdl_is_punct(p, "[")) {
        gcev_tsdl_next(p);
        if (nd == GCEV_CTF_MAX_DEPTH) {
            gcev_tsdl_fail_code(p, GCEV_E_LIMIT, "more than %d array dimensions", GCEV_CTF_MAX_DEPTH);
        }
        if (p->t.kind == T_INT) {
            dims[nd].seq = 0;
            dims[nd].len = p->t.num;
            dims[nd].ref = NULL;
            gcev_tsdl_next(p);
        } else {
            dims[nd].seq = 1;
            dims[nd].len = 0;
            dims[nd].ref = parse_key(p);
        }
        gcev_tsdl_expect(p, "]");
        nd++;
    }
    const gcev_ctf_type *t = base;
    for (int i = nd - 1; i >= 0; i--) {
        gcev_ctf_type *a = new_type(p, dims[i].seq ? GCEV_CTF_SEQUENCE : GCEV_CTF_ARRAY);
        a->elem = t;
        a->length = dims[i].len;
        a->ref = dims[i].ref;
        a->align = t->kind == GCEV_CTF_VARIANT ? 1 : t->align;
        t = a;
    }
    return t;
}

static void parse_typealias(parser *p)
{
    const gcev_ctf_type *t = parse_type(p, NULL);
    gcev_tsdl_expect(p, ":=");
    size_t start = p->t.pos, end = start;
    if (p->t.kind != T_IDENT) {
        gcev_tsdl_fail(p, "expected the alias name after ':='");
    }
    char buf[256];
    size_t k = 0;
    while (p->t.kind == T_IDENT) {
        if (k + p->t.n + 2 > sizeof buf) {
            gcev_tsdl_fail(p, "alias name too long");
        }
        if (k) {
            buf[k++] = ' ';
        }
        memcpy(buf + k, p->t.s, p->t.n);
        k += p->t.n;
        end = p->t.pos + p->t.n;
        gcev_tsdl_next(p);
    }
    (void)start;
    (void)end;
    /* "typealias ... := name [N]" is not TSDL; a '*' pointer alias is treated as its integer */
    while (gcev_tsdl_accept(p, "*")) {
    }
    alias_put(p, gcev_tsdl_dupn(p, buf, k), t);
}

static void parse_typedef(parser *p)
{
    char *name = NULL;
    const gcev_ctf_type *t = parse_type(p, &name);
    if (!name) {
        name = gcev_tsdl_take_ident(p, "the typedef name");
    }
    t = parse_dims(p, t);
    alias_put(p, name, t);
}

/* Fields of a struct or options of a variant, up to and including '}'. */
static void parse_declarations(parser *p, gcev_ctf_field **fields, uint32_t *n, int variant)
{
    (void)variant;
    size_t cap = 8, cnt = 0;
    gcev_ctf_field *f = gcev_tsdl_alloc(p, cap * sizeof *f);
    enter(p);
    while (!gcev_tsdl_is_punct(p, "}")) {
        if (p->t.kind == T_EOF) {
            gcev_tsdl_fail(p, "end of metadata inside a declaration list");
        }
        if (gcev_tsdl_is_ident(p, "typealias")) {
            gcev_tsdl_next(p);
            parse_typealias(p);
            gcev_tsdl_expect(p, ";");
            continue;
        }
        if (gcev_tsdl_is_ident(p, "typedef")) {
            gcev_tsdl_next(p);
            parse_typedef(p);
            gcev_tsdl_expect(p, ";");
            continue;
        }
        char *name = NULL;
        const gcev_ctf_type *base = parse_type(p, &name);
        for (;;) {
            if (!name) {
                name = gcev_tsdl_take_ident(p, "a field name");
            }
            const gcev_ctf_type *t = parse_dims(p, base);
            if (cnt == cap) {
                if (cap >= GCEV_CTF_MAX_FIELDS) {
                    gcev_tsdl_fail_code(p, GCEV_E_LIMIT, "more than %d fields in one declaration list",
                                        GCEV_CTF_MAX_FIELDS);
                }
                gcev_ctf_field *g = gcev_tsdl_alloc(p, 2 * cap * sizeof *g);
                memcpy(g, f, cnt * sizeof *g);
                f = g;
                cap *= 2;
            }
            f[cnt].name = name;
            f[cnt].type = t;
            cnt++;
            name = NULL;
            if (!gcev_tsdl_accept(p, ",")) {
                break;
            }
        }
        gcev_tsdl_expect(p, ";");
    }
    gcev_tsdl_next(p);
    p->depth--;
    *fields = f;
    *n = (uint32_t)cnt;
}

/* ---- blocks ------------------------------------------------------------------ */

static void grow(parser *p, void **arr, size_t *cap, size_t n, size_t elem, size_t limit, const char *what)
{
    if (n < *cap) {
        return;
    }
    if (n >= limit) {
        gcev_tsdl_fail_code(p, GCEV_E_LIMIT, "more than %zu %s", limit, what);
    }
    size_t c = *cap ? *cap * 2 : 8;
    void *g = gcev_tsdl_alloc(p, c * elem);
    if (n) {
        memcpy(g, *arr, n * elem);
    }
    *arr = g;
    *cap = c;
}

static int parse_uuid(const char *s, uint8_t out[16])
{
    size_t k = 0;
    for (size_t i = 0; s[i] && k < 32; i++) {
        char c = s[i];
        int d;
        if (c == '-') {
            continue;
        }
        if (c >= '0' && c <= '9') {
            d = c - '0';
        } else if (c >= 'a' && c <= 'f') {
            d = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            d = c - 'A' + 10;
        } else {
            return 0;
        }
        if (k % 2 == 0) {
            out[k / 2] = (uint8_t)(d << 4);
        } else {
            out[k / 2] |= (uint8_t)d;
        }
        k++;
    }
    return k == 32;
}

static void parse_trace(parser *p)
{
    gcev_tsdl_expect(p, "{");
    while (!gcev_tsdl_is_punct(p, "}")) {
        char *key = parse_key(p);
        if (gcev_tsdl_accept(p, ":=")) {
            const gcev_ctf_type *t = parse_type(p, NULL);
            if (!strcmp(key, "packet.header")) {
                if (t->kind != GCEV_CTF_STRUCT) {
                    gcev_tsdl_fail(p, "packet.header must be a struct");
                }
                p->m->packet_header = t;
            }
        } else {
            gcev_tsdl_expect(p, "=");
            value v = parse_value(p);
            if (!strcmp(key, "major")) {
                p->m->major = (uint32_t)value_uint(p, &v, key);
            } else if (!strcmp(key, "minor")) {
                p->m->minor = (uint32_t)value_uint(p, &v, key);
            } else if (!strcmp(key, "byte_order")) {
                uint8_t bo = value_byte_order(p, &v);
                if (bo == GCEV_CTF_BO_NATIVE) {
                    gcev_tsdl_fail(p, "the trace byte_order must be le or be");
                }
                p->m->big_endian = bo == GCEV_CTF_BO_BE;
            } else if (!strcmp(key, "uuid")) {
                if (v.kind != V_STRING || !parse_uuid(v.s, p->m->uuid)) {
                    gcev_tsdl_fail(p, "uuid must be a string of 32 hex digits");
                }
                p->m->has_uuid = 1;
            }
        }
        gcev_tsdl_expect(p, ";");
    }
    gcev_tsdl_next(p);
    if (p->m->major != 1) {
        gcev_tsdl_fail_code(p, GCEV_E_UNSUPPORTED, "CTF major version %u: only 1.x (1.8) is supported",
                            p->m->major);
    }
}

static void parse_env(parser *p)
{
    gcev_tsdl_expect(p, "{");
    while (!gcev_tsdl_is_punct(p, "}")) {
        char *key = parse_key(p);
        gcev_tsdl_expect(p, "=");
        value v = parse_value(p);
        grow(p, (void **)&p->m->env, &p->env_cap, p->m->nenv, sizeof *p->m->env, GCEV_CTF_MAX_ENV,
             "env entries");
        gcev_ctf_env *e = &p->m->env[p->m->nenv++];
        e->key = key;
        if (v.kind == V_INT) {
            e->num = value_int(p, &v, key);
        } else {
            e->str = v.s;
        }
        gcev_tsdl_expect(p, ";");
    }
    gcev_tsdl_next(p);
}

static void parse_clock(parser *p)
{
    gcev_ctf_clock c = {0};
    c.freq = 1000000000;
    gcev_tsdl_expect(p, "{");
    while (!gcev_tsdl_is_punct(p, "}")) {
        char *key = parse_key(p);
        gcev_tsdl_expect(p, "=");
        value v = parse_value(p);
        if (!strcmp(key, "name")) {
            if (v.kind == V_INT) {
                gcev_tsdl_fail(p, "clock name must be a name");
            }
            c.name = v.s;
        } else if (!strcmp(key, "freq")) {
            c.freq = value_uint(p, &v, key);
            if (c.freq == 0) {
                gcev_tsdl_fail(p, "clock freq must not be 0");
            }
        } else if (!strcmp(key, "offset_s")) {
            c.offset_s = value_int(p, &v, key);
        } else if (!strcmp(key, "offset")) {
            c.offset = value_int(p, &v, key);
        }
        gcev_tsdl_expect(p, ";");
    }
    gcev_tsdl_next(p);
    if (!c.name) {
        gcev_tsdl_fail(p, "clock without a name");
    }
    grow(p, (void **)&p->m->clocks, &p->clock_cap, p->m->nclocks, sizeof c, GCEV_CTF_MAX_CLOCKS, "clocks");
    p->m->clocks[p->m->nclocks++] = c;
}

static const gcev_ctf_type *struct_type(parser *p, const char *what)
{
    const gcev_ctf_type *t = parse_type(p, NULL);
    if (t->kind != GCEV_CTF_STRUCT) {
        gcev_tsdl_fail(p, "%s must be a struct", what);
    }
    return t;
}

static void parse_stream(parser *p)
{
    gcev_ctf_stream_class s = {0};
    int have_id = 0;
    gcev_tsdl_expect(p, "{");
    while (!gcev_tsdl_is_punct(p, "}")) {
        char *key = parse_key(p);
        if (gcev_tsdl_accept(p, ":=")) {
            if (!strcmp(key, "event.header")) {
                s.event_header = struct_type(p, key);
            } else if (!strcmp(key, "event.context")) {
                s.event_context = struct_type(p, key);
            } else if (!strcmp(key, "packet.context")) {
                s.packet_context = struct_type(p, key);
            } else {
                parse_type(p, NULL);
            }
        } else {
            gcev_tsdl_expect(p, "=");
            value v = parse_value(p);
            if (!strcmp(key, "id")) {
                s.id = value_uint(p, &v, key);
                have_id = 1;
            }
        }
        gcev_tsdl_expect(p, ";");
    }
    gcev_tsdl_next(p);
    if (!have_id && p->nstreams_declared) {
        gcev_tsdl_fail(p, "several stream blocks, one without an id");
    }
    for (uint32_t i = 0; i < p->m->nstreams; i++) {
        if (p->m->streams[i].id == s.id) {
            gcev_tsdl_fail(p, "stream id %llu declared twice", (unsigned long long)s.id);
        }
    }
    grow(p, (void **)&p->m->streams, &p->stream_cap, p->m->nstreams, sizeof s, GCEV_CTF_MAX_STREAMS,
         "stream classes");
    p->m->streams[p->m->nstreams++] = s;
    p->nstreams_declared++;
}

static void parse_event(parser *p)
{
    gcev_ctf_event_class ev = {0};
    ev.name = "";
    gcev_tsdl_expect(p, "{");
    while (!gcev_tsdl_is_punct(p, "}")) {
        char *key = parse_key(p);
        if (gcev_tsdl_accept(p, ":=")) {
            if (!strcmp(key, "fields")) {
                ev.fields = struct_type(p, key);
            } else if (!strcmp(key, "context")) {
                ev.context = struct_type(p, key);
            } else {
                parse_type(p, NULL);
            }
        } else {
            gcev_tsdl_expect(p, "=");
            value v = parse_value(p);
            if (!strcmp(key, "name")) {
                if (v.kind == V_INT) {
                    gcev_tsdl_fail(p, "event name must be a string");
                }
                ev.name = v.s;
            } else if (!strcmp(key, "id")) {
                ev.id = value_uint(p, &v, key);
            } else if (!strcmp(key, "stream_id")) {
                ev.stream_id = value_uint(p, &v, key);
            } else if (!strcmp(key, "loglevel")) {
                ev.loglevel = value_int(p, &v, key);
            }
        }
        gcev_tsdl_expect(p, ";");
    }
    gcev_tsdl_next(p);
    grow(p, (void **)&p->m->events, &p->event_cap, p->m->nevents, sizeof ev, GCEV_CTF_MAX_EVENTS,
         "event classes");
    p->m->events[p->m->nevents++] = ev;
}

/* Skips a block we do not use (callsite): balanced braces. */
static void skip_block(parser *p)
{
    gcev_tsdl_expect(p, "{");
    int depth = 1;
    while (depth > 0) {
        if (p->t.kind == T_EOF) {
            gcev_tsdl_fail(p, "end of metadata inside a block");
        }
        if (gcev_tsdl_is_punct(p, "{")) {
            depth++;
        } else if (gcev_tsdl_is_punct(p, "}")) {
            depth--;
        }
        gcev_tsdl_next(p);
    }
}

static int stream_cmp(const void *a, const void *b)
{
    const gcev_ctf_stream_class *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static int event_cmp(const void *a, const void *b)
{
    const gcev_ctf_event_class *x = a, *y = b;
    if (x->stream_id != y->stream_id) {
        return (x->stream_id > y->stream_id) - (x->stream_id < y->stream_id);
    }
    return (x->id > y->id) - (x->id < y->id);
}

static void finish(parser *p)
{
    gcev_ctf_meta *m = p->m;
    if (m->nstreams == 0) {
        /* a trace may omit the stream block when it has one stream of events without header */
        gcev_ctf_stream_class s = {0};
        grow(p, (void **)&m->streams, &p->stream_cap, 0, sizeof s, GCEV_CTF_MAX_STREAMS, "stream classes");
        m->streams[0] = s;
        m->nstreams = 1;
    }
    qsort(m->streams, m->nstreams, sizeof *m->streams, stream_cmp);
    if (m->nevents) {
        qsort(m->events, m->nevents, sizeof *m->events, event_cmp);
    }
    p->t.pos = p->len;
    p->t.line = p->line;
    uint32_t i = 0;
    while (i < m->nevents) {
        uint64_t sid = m->events[i].stream_id;
        gcev_ctf_stream_class *sc = (gcev_ctf_stream_class *)gcev_ctf_meta_stream(m, sid);
        if (!sc) {
            gcev_tsdl_fail(p, "event '%s' names stream %llu, which is not declared", m->events[i].name,
                           (unsigned long long)sid);
        }
        sc->first_event = i;
        while (i < m->nevents && m->events[i].stream_id == sid) {
            if (i > sc->first_event && m->events[i].id == m->events[i - 1].id) {
                gcev_tsdl_fail(p, "event id %llu declared twice in stream %llu",
                               (unsigned long long)m->events[i].id, (unsigned long long)sid);
            }
            i++;
            sc->nevents++;
        }
    }
}

gcev_status gcev_ctf_meta_parse(const char *text, size_t len, gcev_ctf_meta *m, gcev_ctf_meta_error *e)
{
    memset(m, 0, sizeof *m);
    if (e) {
        memset(e, 0, sizeof *e);
    }
    if (len > GCEV_CTF_MAX_METADATA) {
        if (e) {
            e->code = GCEV_E_LIMIT;
            snprintf(e->message, sizeof e->message, "metadata text larger than %u MiB",
                     (unsigned)(GCEV_CTF_MAX_METADATA >> 20));
        }
        return GCEV_E_LIMIT;
    }
    parser *p = calloc(1, sizeof *p);
    gcev_ctf_arena *a = gcev_ctf_arena_new();
    if (!p || !a) {
        free(p);
        free(a);
        if (e) {
            e->code = GCEV_E_NOMEM;
            snprintf(e->message, sizeof e->message, "out of memory");
        }
        return GCEV_E_NOMEM;
    }
    p->s = text;
    p->len = len;
    p->line = 1;
    p->m = m;
    p->a = a;
    p->e = e;
    m->arena = a;
    m->major = 1;
    m->minor = 8;
    if (setjmp(p->jb)) {
        gcev_status code = e ? e->code : GCEV_E_FORMAT;
        free(p);
        gcev_ctf_arena_free(a);
        memset(m, 0, sizeof *m);
        return code ? code : GCEV_E_FORMAT;
    }
    gcev_tsdl_next(p);
    while (p->t.kind != T_EOF) {
        if (gcev_tsdl_is_ident(p, "typealias")) {
            gcev_tsdl_next(p);
            parse_typealias(p);
        } else if (gcev_tsdl_is_ident(p, "typedef")) {
            gcev_tsdl_next(p);
            parse_typedef(p);
        } else if (gcev_tsdl_is_ident(p, "trace")) {
            gcev_tsdl_next(p);
            parse_trace(p);
        } else if (gcev_tsdl_is_ident(p, "env")) {
            gcev_tsdl_next(p);
            parse_env(p);
        } else if (gcev_tsdl_is_ident(p, "clock")) {
            gcev_tsdl_next(p);
            parse_clock(p);
        } else if (gcev_tsdl_is_ident(p, "stream")) {
            gcev_tsdl_next(p);
            parse_stream(p);
        } else if (gcev_tsdl_is_ident(p, "event")) {
            gcev_tsdl_next(p);
            parse_event(p);
        } else if (gcev_tsdl_is_ident(p, "callsite")) {
            gcev_tsdl_next(p);
            skip_block(p);
        } else if (gcev_tsdl_is_ident(p, "struct") || gcev_tsdl_is_ident(p, "enum") ||
                   gcev_tsdl_is_ident(p, "variant") || gcev_tsdl_is_ident(p, "integer") ||
                   gcev_tsdl_is_ident(p, "floating_point") || gcev_tsdl_is_ident(p, "string")) {
            parse_type(p, NULL);
        } else {
            gcev_tsdl_fail(p, "unexpected '%.*s' at the top level", (int)(p->t.n > 40 ? 40 : p->t.n), p->t.s);
        }
        gcev_tsdl_expect(p, ";");
    }
    finish(p);
    free(p);
    return GCEV_OK;
}

void gcev_ctf_meta_free(gcev_ctf_meta *m)
{
    if (m) {
        gcev_ctf_arena_free(m->arena);
        memset(m, 0, sizeof *m);
    }
}
