/* SPDX-License-Identifier: MIT */
/*
 * The TSDL lexer: identifiers, integers (decimal, octal, hexadecimal, with C
 * suffixes), string literals, punctuation, and the comments and white space
 * between them, with the line of every token for error messages. Apart from the
 * parser because it is the part that reads raw bytes of hostile text; the
 * parse's failure and allocation primitives live here too since the lexer is
 * their first user (the parser calls them through gcev_ctf_lexer.h).
 */
#include "gcev_ctf_lexer.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

_Noreturn void gcev_tsdl_fail_code(parser *p, gcev_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(p, code, p->t.pos, p->t.line, fmt, ap);
}

_Noreturn void gcev_tsdl_fail(parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(p, GCEV_E_FORMAT, p->t.pos, p->t.line, fmt, ap);
}

void *gcev_tsdl_alloc(parser *p, size_t n)
{
    int over_limit;
    void *r = gcev_ctf_arena_alloc(p->a, n, &over_limit);
    if (!r && over_limit) {
        gcev_tsdl_fail_code(p, GCEV_E_LIMIT, "metadata model exceeds %u MiB",
                            (unsigned)(GCEV_CTF_MAX_ARENA >> 20));
    }
    if (!r) {
        gcev_tsdl_fail_code(p, GCEV_E_NOMEM, "out of memory");
    }
    return r;
}

char *gcev_tsdl_dupn(parser *p, const char *s, size_t n)
{
    char *d = gcev_tsdl_alloc(p, n + 1);
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
                gcev_tsdl_fail(p, "unterminated comment");
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

void gcev_tsdl_next(parser *p)
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
        gcev_tsdl_fail(p, "NUL byte in metadata text");
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
                gcev_tsdl_fail(p, "bad digit in a base-%u number", base);
            }
            if (v > (UINT64_MAX - (uint64_t)d) / base) {
                gcev_tsdl_fail(p, "number does not fit in 64 bits");
            }
            v = v * base + (uint64_t)d;
            digits++;
        }
        if (base == 16 && digits == 0) {
            gcev_tsdl_fail(p, "hexadecimal number without digits");
        }
        while (j < p->len && (s[j] == 'u' || s[j] == 'U' || s[j] == 'l' || s[j] == 'L')) {
            j++;
        }
        if (j < p->len && (is_alpha(s[j]) || is_digit(s[j]))) {
            gcev_tsdl_fail(p, "malformed number");
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
                gcev_tsdl_fail(p, "newline inside a string literal");
            }
            j++;
        }
        if (j >= p->len) {
            gcev_tsdl_fail(p, "unterminated string literal");
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
        gcev_tsdl_fail(p, "unexpected character '%c' (0x%02x)", (c >= 0x20 && c < 0x7f) ? c : '?',
                       (unsigned char)c);
    }
    p->pos = i + t->n;
}

int gcev_tsdl_is_punct(const parser *p, const char *x)
{
    return p->t.kind == T_PUNCT && p->t.n == strlen(x) && memcmp(p->t.s, x, p->t.n) == 0;
}

int gcev_tsdl_is_ident(const parser *p, const char *x)
{
    return p->t.kind == T_IDENT && p->t.n == strlen(x) && memcmp(p->t.s, x, p->t.n) == 0;
}

void gcev_tsdl_expect(parser *p, const char *x)
{
    if (!gcev_tsdl_is_punct(p, x)) {
        gcev_tsdl_fail(p, "expected '%s'", x);
    }
    gcev_tsdl_next(p);
}

int gcev_tsdl_accept(parser *p, const char *x)
{
    if (gcev_tsdl_is_punct(p, x)) {
        gcev_tsdl_next(p);
        return 1;
    }
    return 0;
}

char *gcev_tsdl_take_ident(parser *p, const char *what)
{
    if (p->t.kind != T_IDENT) {
        gcev_tsdl_fail(p, "expected %s", what);
    }
    char *r = gcev_tsdl_dupn(p, p->t.s, p->t.n);
    gcev_tsdl_next(p);
    return r;
}

/* A string literal with its escapes resolved. */
char *gcev_tsdl_take_string(parser *p)
{
    if (p->t.kind != T_STRING) {
        gcev_tsdl_fail(p, "expected a string literal");
    }
    char *d = gcev_tsdl_alloc(p, p->t.n + 1);
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
    gcev_tsdl_next(p);
    return d;
}
