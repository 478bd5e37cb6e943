/* SPDX-License-Identifier: MIT */
/*
 * TSDL (CTF 1.8 metadata) parser for the subset LTTng writes: trace, env, clock,
 * stream and event blocks; integer, floating_point, string, struct, variant,
 * enum, arrays and sequences; typealias and typedef; callsite blocks are skipped.
 *
 * Recursive descent over a small lexer. Every allocation comes from one bounded
 * arena, so a failure anywhere unwinds with longjmp and frees the arena whole;
 * nesting is bounded by GCEV_CTF_MAX_DEPTH and every count by the limits of
 * gcev_ctf_meta.h.
 */
#include "gcev_ctf_meta.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcev_read.h"

/* ---- arena ---------------------------------------------------------------- */

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    max_align_t data[];
} arena_chunk;

struct gcev_ctf_arena {
    arena_chunk *head;
    size_t total;
};

static void arena_free(gcev_ctf_arena *a)
{
    if (!a) {
        return;
    }
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    free(a);
}

/* NULL when out of memory or (*over_limit set) past GCEV_CTF_MAX_ARENA. Memory is zeroed. */
static void *arena_alloc(gcev_ctf_arena *a, size_t n, int *over_limit)
{
    *over_limit = 0;
    n = (n + 15) & ~(size_t)15;
    if (n == 0) {
        n = 16;
    }
    arena_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > 60000 ? n : 60000;
        if (a->total > GCEV_CTF_MAX_ARENA || cap > GCEV_CTF_MAX_ARENA - a->total) {
            *over_limit = 1;
            return NULL;
        }
        c = calloc(1, sizeof *c + cap);
        if (!c) {
            return NULL;
        }
        c->cap = cap;
        c->next = a->head;
        a->head = c;
        a->total += cap;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
}

/* ---- lexer ---------------------------------------------------------------- */

enum { T_EOF, T_IDENT, T_INT, T_STRING, T_PUNCT };

typedef struct tok {
    int kind;
    const char *s; /* token text (T_STRING: without quotes, escapes not yet resolved) */
    size_t n;
    uint64_t num; /* T_INT */
    size_t pos;   /* offset of the token */
    uint32_t line;
} tok;

typedef struct alias_ent {
    const char *name;
    const gcev_ctf_type *type;
} alias_ent;

typedef struct parser {
    const char *s;
    size_t len, pos;
    uint32_t line;
    tok t;
    gcev_ctf_meta *m;
    gcev_ctf_arena *a;
    gcev_ctf_meta_error *e;
    jmp_buf jb;
    int depth;
    /* type names: "name", "struct name", "enum name", "variant name" */
    alias_ent *aliases;
    size_t nalias, alias_cap; /* open addressing, power of two */
    /* growing arrays (arena) */
    size_t clock_cap, env_cap, stream_cap, event_cap;
    int nstreams_declared;
} parser;

static _Noreturn void failv(parser *p, gcev_status code, size_t pos, uint32_t line, const char *fmt,
                            va_list ap)
{
    if (p->e) {
        p->e->code = code;
        p->e->offset = pos;
        p->e->line = line;
        vsnprintf(p->e->message, sizeof p->e->message, fmt, ap);
    }
    longjmp(p->jb, 1);
}

static _Noreturn void fail_code(parser *p, gcev_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(p, code, p->t.pos, p->t.line, fmt, ap);
}

static _Noreturn void fail(parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(p, GCEV_E_FORMAT, p->t.pos, p->t.line, fmt, ap);
}

static void *alloc(parser *p, size_t n)
{
    int over_limit;
    void *r = arena_alloc(p->a, n, &over_limit);
    if (!r && over_limit) {
        fail_code(p, GCEV_E_LIMIT, "metadata model exceeds %u MiB", (unsigned)(GCEV_CTF_MAX_ARENA >> 20));
    }
    if (!r) {
        fail_code(p, GCEV_E_NOMEM, "out of memory");
    }
    return r;
}

static char *dupn(parser *p, const char *s, size_t n)
{
    char *d = alloc(p, n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static int is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static void skip_space(parser *p)
{
    for (;;) {
        while (p->pos < p->len) {
            char c = p->s[p->pos];
            if (c == '\n') {
                p->line++;
            } else if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') {
                break;
            }
            p->pos++;
        }
        if (p->pos + 1 < p->len && p->s[p->pos] == '/' && p->s[p->pos + 1] == '*') {
            size_t i = p->pos + 2;
            while (i + 1 < p->len && !(p->s[i] == '*' && p->s[i + 1] == '/')) {
                if (p->s[i] == '\n') {
                    p->line++;
                }
                i++;
            }
            if (i + 1 >= p->len) {
                p->t.pos = p->pos;
                p->t.line = p->line;
                fail(p, "unterminated comment");
            }
            p->pos = i + 2;
            continue;
        }
        if (p->pos + 1 < p->len && p->s[p->pos] == '/' && p->s[p->pos + 1] == '/') {
            while (p->pos < p->len && p->s[p->pos] != '\n') {
                p->pos++;
            }
            continue;
        }
        return;
    }
}

static void next(parser *p)
{
    skip_space(p);
    tok *t = &p->t;
    t->pos = p->pos;
    t->line = p->line;
    t->num = 0;
    if (p->pos >= p->len) {
        t->kind = T_EOF;
        t->s = p->s + p->len;
        t->n = 0;
        return;
    }
    const char *s = p->s;
    size_t i = p->pos;
    char c = s[i];
    if (c == '\0') {
        fail(p, "NUL byte in metadata text");
    }
    if (is_alpha(c)) {
        size_t j = i;
        while (j < p->len && (is_alpha(s[j]) || is_digit(s[j]))) {
            j++;
        }
        t->kind = T_IDENT;
        t->s = s + i;
        t->n = j - i;
        p->pos = j;
        return;
    }
    if (is_digit(c)) {
        size_t j = i;
        uint64_t v = 0;
        unsigned base = 10;
        if (c == '0' && j + 1 < p->len && (s[j + 1] == 'x' || s[j + 1] == 'X')) {
            base = 16;
            j += 2;
        } else if (c == '0') {
            base = 8;
        }
        size_t digits = 0;
        for (; j < p->len; j++) {
            int d;
            char ch = s[j];
            if (is_digit(ch)) {
                d = ch - '0';
            } else if (ch >= 'a' && ch <= 'f') {
                d = ch - 'a' + 10;
            } else if (ch >= 'A' && ch <= 'F') {
                d = ch - 'A' + 10;
            } else {
                break;
            }
            if ((unsigned)d >= base) {
                fail(p, "bad digit in a base-%u number", base);
            }
            if (v > (UINT64_MAX - (uint64_t)d) / base) {
                fail(p, "number does not fit in 64 bits");
            }
            v = v * base + (uint64_t)d;
            digits++;
        }
        if (base == 16 && digits == 0) {
            fail(p, "hexadecimal number without digits");
        }
        while (j < p->len && (s[j] == 'u' || s[j] == 'U' || s[j] == 'l' || s[j] == 'L')) {
            j++;
        }
        if (j < p->len && (is_alpha(s[j]) || is_digit(s[j]))) {
            fail(p, "malformed number");
        }
        t->kind = T_INT;
        t->num = v;
        t->s = s + i;
        t->n = j - i;
        p->pos = j;
        return;
    }
    if (c == '"') {
        size_t j = i + 1;
        while (j < p->len && s[j] != '"') {
            if (s[j] == '\\') {
                j++;
            }
            if (j < p->len && s[j] == '\n') {
                fail(p, "newline inside a string literal");
            }
            j++;
        }
        if (j >= p->len) {
            fail(p, "unterminated string literal");
        }
        t->kind = T_STRING;
        t->s = s + i + 1;
        t->n = j - i - 1;
        p->pos = j + 1;
        return;
    }
    t->kind = T_PUNCT;
    t->s = s + i;
    if (c == ':' && i + 1 < p->len && s[i + 1] == '=') {
        t->n = 2;
    } else if (c == '.' && i + 2 < p->len && s[i + 1] == '.' && s[i + 2] == '.') {
        t->n = 3;
    } else if (c == '-' && i + 1 < p->len && s[i + 1] == '>') {
        t->n = 2;
    } else if (strchr("{}[]()<>;=,:.-+*", c)) {
        t->n = 1;
    } else {
        fail(p, "unexpected character '%c' (0x%02x)", (c >= 0x20 && c < 0x7f) ? c : '?', (unsigned char)c);
    }
    p->pos = i + t->n;
}

static int is_punct(const parser *p, const char *x)
{
    return p->t.kind == T_PUNCT && p->t.n == strlen(x) && memcmp(p->t.s, x, p->t.n) == 0;
}

static int is_ident(const parser *p, const char *x)
{
    return p->t.kind == T_IDENT && p->t.n == strlen(x) && memcmp(p->t.s, x, p->t.n) == 0;
}

static void expect(parser *p, const char *x)
{
    if (!is_punct(p, x)) {
        fail(p, "expected '%s'", x);
    }
    next(p);
}

static int accept(parser *p, const char *x)
{
    if (is_punct(p, x)) {
        next(p);
        return 1;
    }
    return 0;
}

static char *take_ident(parser *p, const char *what)
{
    if (p->t.kind != T_IDENT) {
        fail(p, "expected %s", what);
    }
    char *r = dupn(p, p->t.s, p->t.n);
    next(p);
    return r;
}

/* A string literal with its escapes resolved. */
static char *take_string(parser *p)
{
    if (p->t.kind != T_STRING) {
        fail(p, "expected a string literal");
    }
    char *d = alloc(p, p->t.n + 1);
    size_t k = 0;
    for (size_t i = 0; i < p->t.n; i++) {
        char c = p->t.s[i];
        if (c == '\\' && i + 1 < p->t.n) {
            c = p->t.s[++i];
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
        }
        d[k++] = c;
    }
    d[k] = '\0';
    next(p);
    return d;
}

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
        alias_ent *n = alloc(p, cap * sizeof *n);
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
    char *d = alloc(p, a + b + 2);
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
    if (p->t.kind == T_INT || is_punct(p, "-") || is_punct(p, "+")) {
        int neg = 0;
        if (accept(p, "-")) {
            neg = 1;
        } else {
            accept(p, "+");
        }
        if (p->t.kind != T_INT) {
            fail(p, "expected a number");
        }
        v.kind = V_INT;
        v.u = p->t.num;
        v.neg = neg && v.u != 0;
        next(p);
        return v;
    }
    if (p->t.kind == T_STRING) {
        v.kind = V_STRING;
        v.s = take_string(p);
        return v;
    }
    if (p->t.kind == T_IDENT) {
        size_t start = p->t.pos;
        size_t end = p->t.pos + p->t.n;
        next(p);
        while (is_punct(p, ".")) {
            next(p);
            if (p->t.kind != T_IDENT) {
                fail(p, "expected a name after '.'");
            }
            end = p->t.pos + p->t.n;
            next(p);
        }
        v.kind = V_IDENT;
        v.s = dupn(p, p->s + start, end - start);
        return v;
    }
    fail(p, "expected a value");
}

static uint64_t value_uint(parser *p, const value *v, const char *key)
{
    if (v->kind != V_INT || v->neg) {
        fail(p, "'%s' must be a non-negative integer", key);
    }
    return v->u;
}

static int64_t value_int(parser *p, const value *v, const char *key)
{
    if (v->kind != V_INT) {
        fail(p, "'%s' must be an integer", key);
    }
    if (v->neg) {
        if (v->u > (uint64_t)INT64_MAX + 1) {
            fail(p, "'%s' is out of range", key);
        }
        return v->u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v->u;
    }
    if (v->u > (uint64_t)INT64_MAX) {
        fail(p, "'%s' is out of range", key);
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
    fail(p, "'%s' must be true or false", key);
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
    fail(p, "byte_order must be le, be, native or network");
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
    fail(p, "encoding must be none, UTF8 or ASCII");
}

static int is_pow2(uint64_t v)
{
    return v && (v & (v - 1)) == 0;
}

/* Parses "key" or "a.b.c" as one dotted string. */
static char *parse_key(parser *p)
{
    if (p->t.kind != T_IDENT) {
        fail(p, "expected an attribute name");
    }
    size_t start = p->t.pos, end = p->t.pos + p->t.n;
    next(p);
    while (is_punct(p, ".")) {
        next(p);
        if (p->t.kind != T_IDENT) {
            fail(p, "expected a name after '.'");
        }
        end = p->t.pos + p->t.n;
        next(p);
    }
    return dupn(p, p->s + start, end - start);
}

/* ---- types ------------------------------------------------------------------ */

static const gcev_ctf_type *parse_type(parser *p, char **declname);
static void parse_declarations(parser *p, gcev_ctf_field **fields, uint32_t *n, int variant);

static gcev_ctf_type *new_type(parser *p, int kind)
{
    gcev_ctf_type *t = alloc(p, sizeof *t);
    t->kind = (uint8_t)kind;
    t->align = 8;
    return t;
}

static void enter(parser *p)
{
    if (++p->depth > GCEV_CTF_MAX_DEPTH) {
        fail_code(p, GCEV_E_LIMIT, "declarations nested deeper than %d", GCEV_CTF_MAX_DEPTH);
    }
}

static const gcev_ctf_type *parse_integer(parser *p)
{
    gcev_ctf_type *t = new_type(p, GCEV_CTF_INT);
    t->base = 10;
    int have_size = 0, have_align = 0;
    expect(p, "{");
    while (!is_punct(p, "}")) {
        char *key = parse_key(p);
        expect(p, "=");
        size_t kpos = p->t.pos;
        value v = parse_value(p);
        if (!strcmp(key, "size")) {
            uint64_t s = value_uint(p, &v, key);
            if (s < 1 || s > 64) {
                p->t.pos = kpos;
                fail_code(p, GCEV_E_UNSUPPORTED, "integer size %llu: 1 to 64 bits are supported",
                          (unsigned long long)s);
            }
            t->size = (uint32_t)s;
            have_size = 1;
        } else if (!strcmp(key, "align")) {
            uint64_t a = value_uint(p, &v, key);
            if (!is_pow2(a) || a > GCEV_CTF_MAX_ALIGN) {
                fail(p, "align must be a power of two up to %u", (unsigned)GCEV_CTF_MAX_ALIGN);
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
                    fail(p, "base must be 2, 8, 10 or 16");
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
        expect(p, ";");
    }
    next(p);
    if (!have_size) {
        fail(p, "integer without a size");
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
    expect(p, "{");
    while (!is_punct(p, "}")) {
        char *key = parse_key(p);
        expect(p, "=");
        value v = parse_value(p);
        if (!strcmp(key, "exp_dig")) {
            exp = value_uint(p, &v, key);
        } else if (!strcmp(key, "mant_dig")) {
            mant = value_uint(p, &v, key);
        } else if (!strcmp(key, "align")) {
            uint64_t a = value_uint(p, &v, key);
            if (!is_pow2(a) || a > GCEV_CTF_MAX_ALIGN) {
                fail(p, "align must be a power of two up to %u", (unsigned)GCEV_CTF_MAX_ALIGN);
            }
            t->align = (uint32_t)a;
            have_align = 1;
        } else if (!strcmp(key, "byte_order")) {
            t->byte_order = value_byte_order(p, &v);
        }
        expect(p, ";");
    }
    next(p);
    if (!((exp == 8 && mant == 24) || (exp == 11 && mant == 53))) {
        fail_code(p, GCEV_E_UNSUPPORTED,
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
    if (accept(p, "{")) {
        while (!is_punct(p, "}")) {
            char *key = parse_key(p);
            expect(p, "=");
            value v = parse_value(p);
            if (!strcmp(key, "encoding")) {
                t->encoding = value_encoding(p, &v);
            }
            expect(p, ";");
        }
        next(p);
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
        name = take_ident(p, "a struct name");
    }
    if (!is_punct(p, "{")) {
        if (!name) {
            fail(p, "expected a struct name or body");
        }
        const gcev_ctf_type *t = alias_get(p, prefixed(p, "struct", name));
        if (!t) {
            fail(p, "struct '%s' is not declared", name);
        }
        return t;
    }
    gcev_ctf_type *t = new_type(p, GCEV_CTF_STRUCT);
    gcev_ctf_field *fields;
    uint32_t n;
    next(p);
    parse_declarations(p, &fields, &n, 0);
    t->fields = fields;
    t->nfields = n;
    t->align = struct_align(fields, n);
    if (is_ident(p, "align")) {
        next(p);
        expect(p, "(");
        if (p->t.kind != T_INT || !is_pow2(p->t.num) || p->t.num > GCEV_CTF_MAX_ALIGN) {
            fail(p, "align() needs a power of two up to %u", (unsigned)GCEV_CTF_MAX_ALIGN);
        }
        if (p->t.num > t->align) {
            t->align = (uint32_t)p->t.num;
        }
        next(p);
        expect(p, ")");
    }
    if (name) {
        alias_put(p, prefixed(p, "struct", name), t);
    }
    return t;
}

/* "<a.b.c>" */
static char *parse_tag(parser *p)
{
    expect(p, "<");
    char *r = parse_key(p);
    expect(p, ">");
    return r;
}

static const gcev_ctf_type *parse_variant(parser *p)
{
    char *name = NULL, *tag = NULL;
    if (p->t.kind == T_IDENT) {
        name = take_ident(p, "a variant name");
    }
    if (is_punct(p, "<")) {
        tag = parse_tag(p);
    }
    if (!is_punct(p, "{")) {
        if (!name) {
            fail(p, "expected a variant name or body");
        }
        const gcev_ctf_type *base = alias_get(p, prefixed(p, "variant", name));
        if (!base) {
            fail(p, "variant '%s' is not declared", name);
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
    next(p);
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
        name = take_ident(p, "an enum name");
    }
    const gcev_ctf_type *cont = NULL;
    if (accept(p, ":")) {
        cont = parse_type(p, NULL);
    }
    if (!is_punct(p, "{")) {
        if (!name || cont) {
            fail(p, "expected an enumeration body");
        }
        const gcev_ctf_type *t = alias_get(p, prefixed(p, "enum", name));
        if (!t) {
            fail(p, "enum '%s' is not declared", name);
        }
        return t;
    }
    if (!cont) {
        cont = alias_get(p, "int");
        if (!cont) {
            fail(p, "enumeration without a container type, and no 'int' is declared");
        }
    }
    if (cont->kind != GCEV_CTF_INT) {
        fail(p, "the container of an enumeration must be an integer");
    }
    gcev_ctf_type *t = new_type(p, GCEV_CTF_ENUM);
    *t = *cont;
    t->kind = GCEV_CTF_ENUM;
    next(p);
    size_t cap = 8, n = 0;
    gcev_ctf_enum_entry *ents = alloc(p, cap * sizeof *ents);
    uint64_t nextv = 0;
    while (!is_punct(p, "}")) {
        char *label;
        if (p->t.kind == T_STRING) {
            label = take_string(p);
        } else {
            label = take_ident(p, "an enumerator");
        }
        uint64_t lo = nextv, hi = nextv;
        if (accept(p, "=")) {
            value v = parse_value(p);
            lo = v.neg ? (uint64_t)value_int(p, &v, label) : value_uint(p, &v, label);
            hi = lo;
            if (accept(p, "...")) {
                value w = parse_value(p);
                hi = w.neg ? (uint64_t)value_int(p, &w, label) : value_uint(p, &w, label);
            }
        }
        nextv = hi + 1;
        if (n == cap) {
            if (cap >= GCEV_CTF_MAX_ENUM) {
                fail_code(p, GCEV_E_LIMIT, "enumeration with more than %d entries", GCEV_CTF_MAX_ENUM);
            }
            gcev_ctf_enum_entry *g = alloc(p, 2 * cap * sizeof *g);
            memcpy(g, ents, n * sizeof *g);
            ents = g;
            cap *= 2;
        }
        ents[n].label = label;
        ents[n].lo = lo;
        ents[n].hi = hi;
        n++;
        if (!accept(p, ",")) {
            break;
        }
    }
    expect(p, "}");
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
    if (is_ident(p, "integer")) {
        next(p);
        t = parse_integer(p);
    } else if (is_ident(p, "floating_point")) {
        next(p);
        t = parse_float(p);
    } else if (is_ident(p, "string")) {
        next(p);
        t = parse_string(p);
    } else if (is_ident(p, "struct")) {
        next(p);
        t = parse_struct(p);
    } else if (is_ident(p, "variant")) {
        next(p);
        t = parse_variant(p);
    } else if (is_ident(p, "enum")) {
        next(p);
        t = parse_enum(p);
    } else if (p->t.kind == T_IDENT) {
        /* words: the longest run of identifiers */
        size_t start = p->t.pos, end = p->t.pos + p->t.n, last_start = start;
        size_t nwords = 1;
        next(p);
        while (p->t.kind == T_IDENT) {
            last_start = p->t.pos;
            end = p->t.pos + p->t.n;
            nwords++;
            next(p);
        }
        size_t tend = end;
        if (declname) {
            if (nwords < 2) {
                fail(p, "expected a type and a field name");
            }
            *declname = dupn(p, p->s + last_start, end - last_start);
            tend = last_start;
            while (tend > start && (p->s[tend - 1] == ' ' || p->s[tend - 1] == '\t' ||
                                    p->s[tend - 1] == '\n' || p->s[tend - 1] == '\r')) {
                tend--;
            }
        }
        /* normalise the white space between words to one blank */
        char *name = alloc(p, tend - start + 1);
        size_t k = 0;
        int gap = 0;
        for (size_t i = start; i < tend; i++) {
            char c = p->s[i];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                gap = 1;
                continue;
            }
            if (c == '/' && i + 1 < tend && (p->s[i + 1] == '*' || p->s[i + 1] == '/')) {
                fail(p, "comment inside a type name");
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
            fail(p, "type '%s' is not declared", name);
        }
    } else {
        fail(p, "expected a type");
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
    while (is_punct(p, "[")) {
        next(p);
        if (nd == GCEV_CTF_MAX_DEPTH) {
            fail_code(p, GCEV_E_LIMIT, "more than %d array dimensions", GCEV_CTF_MAX_DEPTH);
        }
        if (p->t.kind == T_INT) {
            dims[nd].seq = 0;
            dims[nd].len = p->t.num;
            dims[nd].ref = NULL;
            next(p);
        } else {
            dims[nd].seq = 1;
            dims[nd].len = 0;
            dims[nd].ref = parse_key(p);
        }
        expect(p, "]");
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
    expect(p, ":=");
    size_t start = p->t.pos, end = start;
    if (p->t.kind != T_IDENT) {
        fail(p, "expected the alias name after ':='");
    }
    char buf[256];
    size_t k = 0;
    while (p->t.kind == T_IDENT) {
        if (k + p->t.n + 2 > sizeof buf) {
            fail(p, "alias name too long");
        }
        if (k) {
            buf[k++] = ' ';
        }
        memcpy(buf + k, p->t.s, p->t.n);
        k += p->t.n;
        end = p->t.pos + p->t.n;
        next(p);
    }
    (void)start;
    (void)end;
    /* "typealias ... := name [N]" is not TSDL; a '*' pointer alias is treated as its integer */
    while (accept(p, "*")) {
    }
    alias_put(p, dupn(p, buf, k), t);
}

static void parse_typedef(parser *p)
{
    char *name = NULL;
    const gcev_ctf_type *t = parse_type(p, &name);
    if (!name) {
        name = take_ident(p, "the typedef name");
    }
    t = parse_dims(p, t);
    alias_put(p, name, t);
}

/* Fields of a struct or options of a variant, up to and including '}'. */
static void parse_declarations(parser *p, gcev_ctf_field **fields, uint32_t *n, int variant)
{
    (void)variant;
    size_t cap = 8, cnt = 0;
    gcev_ctf_field *f = alloc(p, cap * sizeof *f);
    enter(p);
    while (!is_punct(p, "}")) {
        if (p->t.kind == T_EOF) {
            fail(p, "end of metadata inside a declaration list");
        }
        if (is_ident(p, "typealias")) {
            next(p);
            parse_typealias(p);
            expect(p, ";");
            continue;
        }
        if (is_ident(p, "typedef")) {
            next(p);
            parse_typedef(p);
            expect(p, ";");
            continue;
        }
        char *name = NULL;
        const gcev_ctf_type *base = parse_type(p, &name);
        for (;;) {
            if (!name) {
                name = take_ident(p, "a field name");
            }
            const gcev_ctf_type *t = parse_dims(p, base);
            if (cnt == cap) {
                if (cap >= GCEV_CTF_MAX_FIELDS) {
                    fail_code(p, GCEV_E_LIMIT, "more than %d fields in one declaration list",
                              GCEV_CTF_MAX_FIELDS);
                }
                gcev_ctf_field *g = alloc(p, 2 * cap * sizeof *g);
                memcpy(g, f, cnt * sizeof *g);
                f = g;
                cap *= 2;
            }
            f[cnt].name = name;
            f[cnt].type = t;
            cnt++;
            name = NULL;
            if (!accept(p, ",")) {
                break;
            }
        }
        expect(p, ";");
    }
    next(p);
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
        fail_code(p, GCEV_E_LIMIT, "more than %zu %s", limit, what);
    }
    size_t c = *cap ? *cap * 2 : 8;
    void *g = alloc(p, c * elem);
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
        if (is_digit(c)) {
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
    expect(p, "{");
    while (!is_punct(p, "}")) {
        char *key = parse_key(p);
        if (accept(p, ":=")) {
            const gcev_ctf_type *t = parse_type(p, NULL);
            if (!strcmp(key, "packet.header")) {
                if (t->kind != GCEV_CTF_STRUCT) {
                    fail(p, "packet.header must be a struct");
                }
                p->m->packet_header = t;
            }
        } else {
            expect(p, "=");
            value v = parse_value(p);
            if (!strcmp(key, "major")) {
                p->m->major = (uint32_t)value_uint(p, &v, key);
            } else if (!strcmp(key, "minor")) {
                p->m->minor = (uint32_t)value_uint(p, &v, key);
            } else if (!strcmp(key, "byte_order")) {
                uint8_t bo = value_byte_order(p, &v);
                if (bo == GCEV_CTF_BO_NATIVE) {
                    fail(p, "the trace byte_order must be le or be");
                }
                p->m->big_endian = bo == GCEV_CTF_BO_BE;
            } else if (!strcmp(key, "uuid")) {
                if (v.kind != V_STRING || !parse_uuid(v.s, p->m->uuid)) {
                    fail(p, "uuid must be a string of 32 hex digits");
                }
                p->m->has_uuid = 1;
            }
        }
        expect(p, ";");
    }
    next(p);
    if (p->m->major != 1) {
        fail_code(p, GCEV_E_UNSUPPORTED, "CTF major version %u: only 1.x (1.8) is supported", p->m->major);
    }
}

static void parse_env(parser *p)
{
    expect(p, "{");
    while (!is_punct(p, "}")) {
        char *key = parse_key(p);
        expect(p, "=");
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
        expect(p, ";");
    }
    next(p);
}

static void parse_clock(parser *p)
{
    gcev_ctf_clock c = {0};
    c.freq = 1000000000;
    expect(p, "{");
    while (!is_punct(p, "}")) {
        char *key = parse_key(p);
        expect(p, "=");
        value v = parse_value(p);
        if (!strcmp(key, "name")) {
            if (v.kind == V_INT) {
                fail(p, "clock name must be a name");
            }
            c.name = v.s;
        } else if (!strcmp(key, "freq")) {
            c.freq = value_uint(p, &v, key);
            if (c.freq == 0) {
                fail(p, "clock freq must not be 0");
            }
        } else if (!strcmp(key, "offset_s")) {
            c.offset_s = value_int(p, &v, key);
        } else if (!strcmp(key, "offset")) {
            c.offset = value_int(p, &v, key);
        }
        expect(p, ";");
    }
    next(p);
    if (!c.name) {
        fail(p, "clock without a name");
    }
    grow(p, (void **)&p->m->clocks, &p->clock_cap, p->m->nclocks, sizeof c, GCEV_CTF_MAX_CLOCKS, "clocks");
    p->m->clocks[p->m->nclocks++] = c;
}

static const gcev_ctf_type *struct_type(parser *p, const char *what)
{
    const gcev_ctf_type *t = parse_type(p, NULL);
    if (t->kind != GCEV_CTF_STRUCT) {
        fail(p, "%s must be a struct", what);
    }
    return t;
}

static void parse_stream(parser *p)
{
    gcev_ctf_stream_class s = {0};
    int have_id = 0;
    expect(p, "{");
    while (!is_punct(p, "}")) {
        char *key = parse_key(p);
        if (accept(p, ":=")) {
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
            expect(p, "=");
            value v = parse_value(p);
            if (!strcmp(key, "id")) {
                s.id = value_uint(p, &v, key);
                have_id = 1;
            }
        }
        expect(p, ";");
    }
    next(p);
    if (!have_id && p->nstreams_declared) {
        fail(p, "several stream blocks, one without an id");
    }
    for (uint32_t i = 0; i < p->m->nstreams; i++) {
        if (p->m->streams[i].id == s.id) {
            fail(p, "stream id %llu declared twice", (unsigned long long)s.id);
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
    expect(p, "{");
    while (!is_punct(p, "}")) {
        char *key = parse_key(p);
        if (accept(p, ":=")) {
            if (!strcmp(key, "fields")) {
                ev.fields = struct_type(p, key);
            } else if (!strcmp(key, "context")) {
                ev.context = struct_type(p, key);
            } else {
                parse_type(p, NULL);
            }
        } else {
            expect(p, "=");
            value v = parse_value(p);
            if (!strcmp(key, "name")) {
                if (v.kind == V_INT) {
                    fail(p, "event name must be a string");
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
        expect(p, ";");
    }
    next(p);
    grow(p, (void **)&p->m->events, &p->event_cap, p->m->nevents, sizeof ev, GCEV_CTF_MAX_EVENTS,
         "event classes");
    p->m->events[p->m->nevents++] = ev;
}

/* Skips a block we do not use (callsite): balanced braces. */
static void skip_block(parser *p)
{
    expect(p, "{");
    int depth = 1;
    while (depth > 0) {
        if (p->t.kind == T_EOF) {
            fail(p, "end of metadata inside a block");
        }
        if (is_punct(p, "{")) {
            depth++;
        } else if (is_punct(p, "}")) {
            depth--;
        }
        next(p);
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
            fail(p, "event '%s' names stream %llu, which is not declared", m->events[i].name,
                 (unsigned long long)sid);
        }
        sc->first_event = i;
        while (i < m->nevents && m->events[i].stream_id == sid) {
            if (i > sc->first_event && m->events[i].id == m->events[i - 1].id) {
                fail(p, "event id %llu declared twice in stream %llu", (unsigned long long)m->events[i].id,
                     (unsigned long long)sid);
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
    gcev_ctf_arena *a = calloc(1, sizeof *a);
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
        arena_free(a);
        memset(m, 0, sizeof *m);
        return code ? code : GCEV_E_FORMAT;
    }
    next(p);
    while (p->t.kind != T_EOF) {
        if (is_ident(p, "typealias")) {
            next(p);
            parse_typealias(p);
        } else if (is_ident(p, "typedef")) {
            next(p);
            parse_typedef(p);
        } else if (is_ident(p, "trace")) {
            next(p);
            parse_trace(p);
        } else if (is_ident(p, "env")) {
            next(p);
            parse_env(p);
        } else if (is_ident(p, "clock")) {
            next(p);
            parse_clock(p);
        } else if (is_ident(p, "stream")) {
            next(p);
            parse_stream(p);
        } else if (is_ident(p, "event")) {
            next(p);
            parse_event(p);
        } else if (is_ident(p, "callsite")) {
            next(p);
            skip_block(p);
        } else if (is_ident(p, "struct") || is_ident(p, "enum") || is_ident(p, "variant") ||
                   is_ident(p, "integer") || is_ident(p, "floating_point") || is_ident(p, "string")) {
            parse_type(p, NULL);
        } else {
            fail(p, "unexpected '%.*s' at the top level", (int)(p->t.n > 40 ? 40 : p->t.n), p->t.s);
        }
        expect(p, ";");
    }
    finish(p);
    free(p);
    return GCEV_OK;
}

void gcev_ctf_meta_free(gcev_ctf_meta *m)
{
    if (m) {
        arena_free(m->arena);
        memset(m, 0, sizeof *m);
    }
}

const gcev_ctf_stream_class *gcev_ctf_meta_stream(const gcev_ctf_meta *m, uint64_t id)
{
    size_t lo = 0, hi = m->nstreams;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->streams[mid].id < id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return (lo < m->nstreams && m->streams[lo].id == id) ? &m->streams[lo] : NULL;
}

const gcev_ctf_event_class *gcev_ctf_meta_event(const gcev_ctf_meta *m, const gcev_ctf_stream_class *s,
                                                uint64_t id)
{
    if (s->nevents == 0) {
        return NULL;
    }
    const gcev_ctf_event_class *ev = m->events + s->first_event;
    size_t lo = 0, hi = s->nevents;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ev[mid].id < id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return (lo < s->nevents && ev[lo].id == id) ? &ev[lo] : NULL;
}

const gcev_ctf_env *gcev_ctf_meta_env(const gcev_ctf_meta *m, const char *key)
{
    for (uint32_t i = 0; i < m->nenv; i++) {
        if (!strcmp(m->env[i].key, key)) {
            return &m->env[i];
        }
    }
    return NULL;
}

int gcev_ctf_type_find(const gcev_ctf_type *t, const char *name)
{
    if (!t || (t->kind != GCEV_CTF_STRUCT && t->kind != GCEV_CTF_VARIANT)) {
        return -1;
    }
    for (uint32_t i = 0; i < t->nfields; i++) {
        if (!strcmp(t->fields[i].name, name)) {
            return (int)i;
        }
    }
    return -1;
}

/* ---- packetized metadata ----------------------------------------------------- */

enum { META_MAGIC = 0x75D11D57u, META_HEADER = 37 };

static void meta_fail(gcev_ctf_meta_error *e, gcev_status code, uint64_t off, const char *msg)
{
    if (e) {
        e->code = code;
        e->offset = off;
        e->line = 0;
        snprintf(e->message, sizeof e->message, "%s", msg);
    }
}

gcev_status gcev_ctf_metadata_text(const uint8_t *data, size_t size, char **text, size_t *len,
                                   gcev_ctf_meta_error *e)
{
    *text = NULL;
    *len = 0;
    if (e) {
        memset(e, 0, sizeof *e);
    }
    int packetized = 0, be = 0;
    if (size >= 4) {
        uint32_t le = gcev_rd_u32le(data);
        uint32_t bev = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
        if (le == META_MAGIC) {
            packetized = 1;
        } else if (bev == META_MAGIC) {
            packetized = 1;
            be = 1;
        }
    }
    if (!packetized) {
        if (size < 6 || memcmp(data, "/* CTF", 6) != 0) {
            meta_fail(e, GCEV_E_FORMAT, 0,
                      "metadata is neither packetized (magic 0x75d11d57) nor \"/* CTF\" text");
            return GCEV_E_FORMAT;
        }
        if (size > GCEV_CTF_MAX_METADATA) {
            meta_fail(e, GCEV_E_LIMIT, 0, "metadata text larger than 64 MiB");
            return GCEV_E_LIMIT;
        }
        char *t = malloc(size + 1);
        if (!t) {
            meta_fail(e, GCEV_E_NOMEM, 0, "out of memory");
            return GCEV_E_NOMEM;
        }
        memcpy(t, data, size);
        t[size] = '\0';
        *text = t;
        *len = size;
        return GCEV_OK;
    }
    /* two passes: size, then copy */
    size_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t pos = 0, out = 0;
        char *t = NULL;
        if (pass == 1) {
            t = malloc(total + 1);
            if (!t) {
                meta_fail(e, GCEV_E_NOMEM, 0, "out of memory");
                return GCEV_E_NOMEM;
            }
        }
        while (pos < size) {
            if (size - pos < META_HEADER) {
                free(t);
                meta_fail(e, GCEV_E_TRUNCATED_FILE, pos, "metadata ends inside a packet header");
                return GCEV_E_TRUNCATED_FILE;
            }
            const uint8_t *h = data + pos;
            uint32_t magic, content, packet;
            if (be) {
                magic = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
                content = (uint32_t)h[24] << 24 | (uint32_t)h[25] << 16 | (uint32_t)h[26] << 8 | h[27];
                packet = (uint32_t)h[28] << 24 | (uint32_t)h[29] << 16 | (uint32_t)h[30] << 8 | h[31];
            } else {
                magic = gcev_rd_u32le(h);
                content = gcev_rd_u32le(h + 24);
                packet = gcev_rd_u32le(h + 28);
            }
            uint8_t compression = h[32], encryption = h[33];
            if (magic != META_MAGIC) {
                free(t);
                meta_fail(e, GCEV_E_FORMAT, pos, "metadata packet without magic 0x75d11d57");
                return GCEV_E_FORMAT;
            }
            if (compression || encryption) {
                free(t);
                meta_fail(e, GCEV_E_UNSUPPORTED, pos + 32, "compressed or encrypted metadata packet");
                return GCEV_E_UNSUPPORTED;
            }
            if (content % 8 || packet % 8 || content < META_HEADER * 8 || packet < content) {
                free(t);
                meta_fail(e, GCEV_E_FORMAT, pos + 24,
                          "metadata packet sizes are not whole bytes, or content exceeds the packet");
                return GCEV_E_FORMAT;
            }
            size_t cbytes = content / 8, pbytes = packet / 8;
            if (cbytes > size - pos) {
                free(t);
                meta_fail(e, GCEV_E_TRUNCATED_FILE, pos, "metadata ends inside a packet");
                return GCEV_E_TRUNCATED_FILE;
            }
            size_t n = cbytes - META_HEADER;
            if (pass == 0) {
                if (n > GCEV_CTF_MAX_METADATA - total) {
                    meta_fail(e, GCEV_E_LIMIT, pos, "metadata text larger than 64 MiB");
                    return GCEV_E_LIMIT;
                }
                total += n;
            } else {
                memcpy(t + out, h + META_HEADER, n);
                out += n;
            }
            /* the last packet may be cut at its content end */
            pos += pbytes <= size - pos ? pbytes : size - pos;
        }
        if (pass == 1) {
            t[out] = '\0';
            *text = t;
            *len = out;
        }
    }
    return GCEV_OK;
}
