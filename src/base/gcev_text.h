/* SPDX-License-Identifier: MIT */
/* Text helpers below the formatters: UTF-16 code points and UTF-8 encoding. */
#ifndef GCEV_TEXT_H
#define GCEV_TEXT_H

#include <gcev/gcev.h>

/* Next code point of s at byte index *i (< s.nbytes - 1); U+FFFD for bad surrogates. */
uint32_t gcev_utf16_next(gcev_utf16 s, uint32_t *i);
/* UTF-8 bytes of cp into out; returns their count (1-4). */
size_t gcev_utf8_encode(uint32_t cp, char out[4]);

#endif
