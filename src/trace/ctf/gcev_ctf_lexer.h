/* SPDX-License-Identifier: MIT */
/*
 * What the TSDL lexer (gcev_ctf_lexer.c) and parser (gcev_ctf_parser.c) share,
 * internal to trace/ctf: the parse state, the token, and the primitives both
 * use. A failure anywhere longjmps to the setjmp of gcev_ctf_meta_parse, which
 * frees the arena whole: no caller checks a status.
 */
#ifndef GCEV_CTF_LEXER_H
#define GCEV_CTF_LEXER_H

#include <setjmp.h>

#include "gcev_ctf_arena.h"
#include "gcev_ctf_meta.h"

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
    /* the lexer's: the text, its cursor, the current token */
    const char *s;
    size_t len, pos;
    uint32_t line;
    tok t;
    /* the model being built, its arena, where a failure is reported and unwinds to */
    gcev_ctf_meta *m;
    gcev_ctf_arena *a;
    gcev_ctf_meta_error *e;
    jmp_buf jb;
    /* the parser's alone */
    int depth;
    /* type names: "name", "struct name", "enum name", "variant name" */
    alias_ent *aliases;
    size_t nalias, alias_cap; /* open addressing, power of two */
    /* growing arrays (arena) */
    size_t clock_cap, env_cap, stream_cap, event_cap;
    int nstreams_declared;
} parser;

/* Fails the parse at the current token with GCEV_E_FORMAT (or `code`) and a message. */
_Noreturn void gcev_tsdl_fail(parser *p, const char *fmt, ...);
_Noreturn void gcev_tsdl_fail_code(parser *p, gcev_status code, const char *fmt, ...);
/* Zeroed memory from the arena; fails the parse past GCEV_CTF_MAX_ARENA or out of memory. */
void *gcev_tsdl_alloc(parser *p, size_t n);
/* s[0 .. n) as a NUL-terminated copy in the arena. */
char *gcev_tsdl_dupn(parser *p, const char *s, size_t n);

/* Reads the next token into p->t (T_EOF at the end). */
void gcev_tsdl_next(parser *p);
/* Whether the current token is the punctuation / identifier x. */
int gcev_tsdl_is_punct(const parser *p, const char *x);
int gcev_tsdl_is_ident(const parser *p, const char *x);
/* Consumes the punctuation x, or fails. */
void gcev_tsdl_expect(parser *p, const char *x);
/* Consumes the punctuation x if it is the current token: 1, else 0. */
int gcev_tsdl_accept(parser *p, const char *x);
/* Consumes an identifier (`what` names it in the failure message) and returns a copy. */
char *gcev_tsdl_take_ident(parser *p, const char *what);
/* Consumes a string literal and returns it with its escapes resolved. */
char *gcev_tsdl_take_string(parser *p);

#endif
