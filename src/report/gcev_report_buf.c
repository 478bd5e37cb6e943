/* SPDX-License-Identifier: MIT */
/* The page builder's output buffer and escaping (gcev_report_buf.h). */
#include "gcev_report_buf.h"

#include "gcev_text.h"
#include "gcev_vec.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for `more` bytes and a terminator; on failure the buffer is marked out of memory and
 * every later write is dropped (the page builder checks b->oom once, at the end). */
static int grow(gcev_rb *b, size_t more)
{
    if (b->oom) {
        return 0;
    }
    if (more >= SIZE_MAX - b->n) {
        b->oom = 1;
        return 0;
    }
    void *p = b->p;
    if (!gcev_reserve(&p, &b->cap, b->n + more + 1, 1)) {
        b->oom = 1;
        return 0;
    }
    b->p = p;
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
        uint32_t cp = gcev_utf8_next(p, n, &len);
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
            if (gcev_unicode_is_control(cp) || cp == 0xFFFD) {
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
        char tmp[GCEV_JSON_CP_MAX];
        /* in the page's <script>, for people: HTML-safe, controls as U+FFFD */
        gcev_rb_put(
            b, tmp,
            gcev_json_escape_cp(gcev_utf8_next(p, n, &len), GCEV_JSON_IN_HTML | GCEV_JSON_SANITIZE, tmp));
        p += len;
        n -= len;
    }
    gcev_rb_putc(b, '"');
}
