/* SPDX-License-Identifier: MIT */
/*
 * The snprintf-style output buffer every formatter writes into, and JSON string
 * literals of the text encodings the payloads carry (UTF-16, Latin-1, UTF-8).
 */
#include "gcev_out.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gcev_text.h"

void gcev_out_put(gcev_out *o, const char *s, size_t n)
{
    if (o->len < o->cap) {
        size_t room = o->cap - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

void gcev_out_str(gcev_out *o, const char *s)
{
    gcev_out_put(o, s, strlen(s));
}

void gcev_out_fmt(gcev_out *o, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) {
        gcev_out_put(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
    }
}

size_t gcev_out_finish(gcev_out *o)
{
    if (o->cap > 0) {
        o->buf[o->len < o->cap ? o->len : o->cap - 1] = '\0';
    }
    return o->len;
}

static void json_code_point(gcev_out *o, uint32_t cp)
{
    char tmp[GCEV_JSON_CP_MAX];
    gcev_out_put(o, tmp, gcev_json_escape_cp(cp, 0, tmp));
}

void gcev_out_json_utf16(gcev_out *o, gcev_utf16 s)
{
    gcev_out_str(o, "\"");
    uint32_t i = 0, even = s.nbytes & ~1u;
    gcev_utf16 t = {s.data, even};
    while (i < even) {
        json_code_point(o, gcev_utf16_next(t, &i));
    }
    gcev_out_str(o, "\"");
}

void gcev_out_json_ascii(gcev_out *o, const uint8_t *s, size_t n)
{
    gcev_out_str(o, "\"");
    for (size_t i = 0; i < n; i++) {
        json_code_point(o, s[i]); /* bytes above 0x7f are taken as Latin-1 */
    }
    gcev_out_str(o, "\"");
}

void gcev_out_json_utf8(gcev_out *o, const uint8_t *s, size_t n)
{
    gcev_out_str(o, "\"");
    for (size_t i = 0; i < n;) {
        size_t k;
        json_code_point(o, gcev_utf8_next(s + i, n - i, &k));
        i += k;
    }
    gcev_out_str(o, "\"");
}
