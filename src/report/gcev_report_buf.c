/* SPDX-License-Identifier: MIT */
/* The page builder's output buffer and escaping (gcev_report_buf.h). */
#include "gcev_report_buf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(gcev_rb *b, size_t more)
{
    if (b->oom) {
        return 0;
    }
    if (b->cap - b->n > more) {
        return 1;
    }
    size_t cap = b->cap ? b->cap : 65536;
    while (cap - b->n <= more) {
        if (cap > SIZE_MAX / 2) {
            b->oom = 1;
            return 0;
        }
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}

void gcev_rb_put(gcev_rb *b, const char *s, size_t n)
{
    if (n && grow(b, n)) {
        memcpy(b->p + b->n, s, n);
        b->n += n;
        b->p[b->n] = '\0';
    }
}

void gcev_rb_puts(gcev_rb *b, const char *s)
{
    gcev_rb_put(b, s, strlen(s));
}

void gcev_rb_putc(gcev_rb *b, char c)
{
    gcev_rb_put(b, &c, 1);
}

void gcev_rb_printf(gcev_rb *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    if ((size_t)n < sizeof small) {
        gcev_rb_put(b, small, (size_t)n);
        return;
    }
    if (!grow(b, (size_t)n + 1)) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

void gcev_rb_num(gcev_rb *b, double v, int decimals)
{
    char s[64];
    if (!isfinite(v)) {
        v = 0;
    }
    int n = snprintf(s, sizeof s, "%.*f", decimals, v);
    if (n <= 0 || (size_t)n >= sizeof s) {
        return;
    }
    if (decimals > 0) {
        while (n > 0 && s[n - 1] == '0') {
            n--;
        }
        if (n > 0 && s[n - 1] == '.') {
            n--;
        }
    }
    if (n == 2 && s[0] == '-' && s[1] == '0') { /* -0 */
        s[0] = '0';
        n = 1;
    }
    gcev_rb_put(b, s, (size_t)n);
}

void gcev_rb_fix(gcev_rb *b, double v, int decimals)
{
    if (!isfinite(v)) {
        v = 0;
    }
    double unit = pow(10, -decimals);
    if (fabs(v) < unit / 2) {
        v = 0; /* rounds to zero: no "-0.000" */
    }
    gcev_rb_printf(b, "%.*f", decimals, v);
}

uint32_t gcev_rb_utf8_next(const unsigned char *s, size_t n, size_t *len)
{
    unsigned c = s[0];
    *len = 1;
    if (c < 0x80) {
        return c;
    }
    size_t need;
    uint32_t cp, min;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1, cp = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2, cp = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3, cp = c & 0x07, min = 0x10000;
    } else {
        return 0xFFFD;
    }
    if (n - 1 < need) {
        return 0xFFFD;
    }
    for (size_t i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0xFFFD;
        }
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return 0xFFFD;
    }
    *len = need + 1;
    return cp;
}

/* Controls (C0 but tab/LF, DEL, C1) are not text a page should carry. */
static int is_control(uint32_t cp)
{
    return (cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7F && cp <= 0x9F);
}

static const char fffd[] = "\xEF\xBF\xBD";

void gcev_rb_html(gcev_rb *b, const char *s)
{
    if (!s) {
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    while (n) {
        size_t len;
        uint32_t cp = gcev_rb_utf8_next(p, n, &len);
        switch (cp) {
        case '&':
            gcev_rb_puts(b, "&amp;");
            break;
        case '<':
            gcev_rb_puts(b, "&lt;");
            break;
        case '>':
            gcev_rb_puts(b, "&gt;");
            break;
        case '"':
            gcev_rb_puts(b, "&quot;");
            break;
        case '\'':
            gcev_rb_puts(b, "&#39;");
            break;
        default:
            if (is_control(cp) || cp == 0xFFFD) {
                gcev_rb_puts(b, fffd);
            } else {
                gcev_rb_put(b, (const char *)p, len);
            }
        }
        p += len;
        n -= len;
    }
}

void gcev_rb_json_str(gcev_rb *b, const char *s)
{
    if (!s) {
        gcev_rb_puts(b, "null");
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    gcev_rb_putc(b, '"');
    while (n) {
        size_t len;
        uint32_t cp = gcev_rb_utf8_next(p, n, &len);
        if (cp == '"' || cp == '\\') {
            gcev_rb_putc(b, '\\');
            gcev_rb_putc(b, (char)cp);
        } else if (cp == '\n') {
            gcev_rb_puts(b, "\\n");
        } else if (cp == '\t') {
            gcev_rb_puts(b, "\\t");
        } else if (cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029) {
            gcev_rb_printf(b, "\\u%04x", (unsigned)cp);
        } else if (is_control(cp) || cp == 0xFFFD) {
            gcev_rb_puts(b, "\\ufffd");
        } else {
            gcev_rb_put(b, (const char *)p, len);
        }
        p += len;
        n -= len;
    }
    gcev_rb_putc(b, '"');
}
