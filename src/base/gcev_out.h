/* SPDX-License-Identifier: MIT */
/*
 * snprintf-style output: writes what fits into buf, counts what the whole text
 * needs, so every formatter returns the full length and callers can retry with
 * a bigger buffer.
 */
#ifndef GCEV_OUT_H
#define GCEV_OUT_H

#include <gcev/gcev.h>

typedef struct gcev_out {
    char *buf;
    size_t cap;
    size_t len; /* may exceed cap: what the full text needs */
} gcev_out;

void gcev_out_put(gcev_out *o, const char *s, size_t n);
void gcev_out_str(gcev_out *o, const char *s);
/* printf into the buffer; one call writes at most 63 characters. */
void gcev_out_fmt(gcev_out *o, const char *fmt, ...);
/* NUL-terminates (truncating when full) and returns the full length. */
size_t gcev_out_finish(gcev_out *o);
/* JSON string literal of UTF-16 / raw bytes (bytes as Latin-1). */
void gcev_out_json_utf16(gcev_out *o, gcev_utf16 s);
void gcev_out_json_ascii(gcev_out *o, const uint8_t *s, size_t n);
/* JSON string literal of UTF-8 bytes; each malformed byte becomes U+FFFD. */
void gcev_out_json_utf8(gcev_out *o, const uint8_t *s, size_t n);

#endif
