/* SPDX-License-Identifier: MIT */
/*
 * The page builder's output buffer: growth, formatted numbers, and text escaped
 * for HTML or for JSON embedded in a <script> element. Any bytes go in: invalid
 * UTF-8 and control characters come out as U+FFFD. An allocation failure is
 * sticky (oom set, later writes ignored).
 */
#ifndef GCEV_REPORT_BUF_H
#define GCEV_REPORT_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct gcev_rb {
    char *p;
    size_t n, cap;
    int oom;
} gcev_rb;

void gcev_rb_put(gcev_rb *b, const char *s, size_t n);
void gcev_rb_puts(gcev_rb *b, const char *s);
void gcev_rb_putc(gcev_rb *b, char c);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void gcev_rb_printf(gcev_rb *b, const char *fmt, ...);
/* A number with at most `decimals` decimals, trailing zeros (and the point) dropped. */
void gcev_rb_num(gcev_rb *b, double v, int decimals);
/* A figure a person reads: exactly `decimals` decimals (zeros kept, so a column lines up), -0 as 0. */
void gcev_rb_fix(gcev_rb *b, double v, int decimals);
/* Text as HTML character data or attribute value (& < > " ' escaped). NULL writes nothing. */
void gcev_rb_html(gcev_rb *b, const char *s);
/* A JSON string literal safe inside <script>: < > & and U+2028/2029 as \u escapes. NULL: null. */
void gcev_rb_json_str(gcev_rb *b, const char *s);

/*
 * The next code point of s[0..n): *len receives its byte count (>= 1); invalid or
 * over-long sequences, surrogates and values past U+10FFFF give U+FFFD for one byte.
 */

#endif
