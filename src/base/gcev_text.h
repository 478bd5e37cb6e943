/* SPDX-License-Identifier: MIT */
/* Text helpers below the formatters: UTF-16 code points and UTF-8 encoding. */
#ifndef GCEV_TEXT_H
#define GCEV_TEXT_H

#include <gcev/gcev.h>

/* Next code point of s at byte index *i (< s.nbytes - 1); U+FFFD for bad surrogates. */
uint32_t gcev_utf16_next(gcev_utf16 s, uint32_t *i);
/* UTF-8 bytes of cp into out; returns their count (1-4). */
size_t gcev_utf8_encode(uint32_t cp, char out[4]);
/*
 * The code point of the UTF-8 sequence at s[0..n) (n > 0) and, in *len, its length (1-4).
 * A malformed sequence (a bad lead or continuation byte, cut short, overlong, a surrogate,
 * beyond U+10FFFF) is U+FFFD with *len 1: the next call resynchronises on the next byte.
 */
uint32_t gcev_utf8_next(const uint8_t *s, size_t n, size_t *len);

/* A control character a page should not carry: C0 but tab and LF, DEL, C1. */
int gcev_unicode_is_control(uint32_t cp);

/* gcev_json_escape_cp() flags: */
/* inside an HTML <script>: '<', '>', '&', U+2028 and U+2029 as \u escapes, so the text can
 * neither close the element nor end a JavaScript line */
#define GCEV_JSON_IN_HTML 1u
/* text a person reads: controls other than tab and LF (C0, DEL, C1) and U+FFFD itself as
 * \ufffd, never passed on to a page */
#define GCEV_JSON_SANITIZE 2u
/* longest escape of one code point ("\uXXXX") */
#define GCEV_JSON_CP_MAX 6
/*
 * Code point cp as the text of a JSON string literal, into out; returns its length. '"' and
 * '\' are escaped, LF, CR and tab by their short escapes (CR: \ufffd with
 * GCEV_JSON_SANITIZE), other C0 controls as \u00XX, everything else as UTF-8. The one JSON
 * escaper of the library and its tools (formatters, report, CLI).
 */
size_t gcev_json_escape_cp(uint32_t cp, unsigned flags, char out[GCEV_JSON_CP_MAX]);

#endif
