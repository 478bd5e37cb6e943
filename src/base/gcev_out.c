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
    switch (cp) {
    case '"':
        gcev_out_str(o, "\\\"");
        return;
    case '\\':
        gcev_out_str(o, "\\\\");
        return;
    case '\n':
        gcev_out_str(o, "\\n");
        return;
    case '\r':
        gcev_out_str(o, "\\r");
        return;
    case '\t':
        gcev_out_str(o, "\\t");
        return;
    default:
        break;
    }
    if (cp < 0x20) {
        gcev_out_fmt(o, "\\u%04x", (unsigned)cp);
        return;
    }
    char tmp[4];
    gcev_out_put(o, tmp, gcev_utf8_encode(cp, tmp));
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

/* Length of the well-formed UTF-8 sequence at s[0..n) (1-4) and its code point; 0 if malformed. */
static size_t utf8_sequence(const uint8_t *s, size_t n, uint32_t *cp)
{
    uint8_t b = s[0];
    size_t len = b < 0x80                 ? 1
                 : b >= 0xc2 && b <= 0xdf ? 2
                 : b >= 0xe0 && b <= 0xef ? 3
                 : b >= 0xf0 && b <= 0xf4 ? 4
                                          : 0;
    if (len == 0 || len > n) {
        return 0;
    }
    uint32_t v = len == 1 ? b : b & (0x7fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
        v = v << 6 | (s[i] & 0x3fu);
    }
    /* overlong 3/4-byte forms, surrogates, beyond U+10FFFF */
    if ((len == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) ||
        (len == 4 && (v < 0x10000 || v > 0x10ffff))) {
        return 0;
    }
    *cp = v;
    return len;
}

void gcev_out_json_utf8(gcev_out *o, const uint8_t *s, size_t n)
{
    gcev_out_str(o, "\"");
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0xfffd;
        size_t k = utf8_sequence(s + i, n - i, &cp);
        json_code_point(o, k ? cp : 0xfffd);
        i += k ? k : 1;
    }
    gcev_out_str(o, "\"");
}
