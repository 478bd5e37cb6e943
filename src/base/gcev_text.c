/* SPDX-License-Identifier: MIT */
/* Text helpers shared by the formatters and the CLI: UTF-16 -> UTF-8, GUIDs. */
#include <gcev/gcev.h>

#include <stdio.h>
#include <string.h>

#include <gcev/gcev.h>
#include "gcev_read.h"
#include "gcev_text.h"

/* Next code point of s at *i (advances *i); U+FFFD for unpaired surrogates. */
static uint32_t next_code_point(gcev_utf16 s, uint32_t *i)
{
    uint32_t u = gcev_rd_u16le(s.data + *i);
    *i += 2;
    if (u >= 0xD800 && u <= 0xDBFF) {
        if (s.nbytes - *i >= 2) {
            uint32_t lo = gcev_rd_u16le(s.data + *i);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                *i += 2;
                return 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            }
        }
        return 0xFFFD;
    }
    if (u >= 0xDC00 && u <= 0xDFFF) {
        return 0xFFFD;
    }
    return u;
}

static size_t encode_utf8(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t gcev_utf16_to_utf8(gcev_utf16 s, char *buf, size_t n)
{
    size_t len = 0;
    uint32_t i = 0;
    uint32_t even = s.nbytes & ~1u; /* an odd trailing byte is not a code unit */
    gcev_utf16 t = {s.data, even};
    while (i < even) {
        char tmp[4];
        size_t k = encode_utf8(next_code_point(t, &i), tmp);
        for (size_t j = 0; j < k; j++, len++) {
            if (len + 1 < n) {
                buf[len] = tmp[j];
            }
        }
    }
    if (n > 0) {
        buf[len < n ? len : n - 1] = '\0';
    }
    return len;
}

uint32_t gcev_utf16_next(gcev_utf16 s, uint32_t *i)
{
    return next_code_point(s, i);
}

uint32_t gcev_utf8_next(const uint8_t *s, size_t n, size_t *len)
{
    uint8_t b = s[0];
    size_t k = b < 0x80                 ? 1
               : b >= 0xc2 && b <= 0xdf ? 2
               : b >= 0xe0 && b <= 0xef ? 3
               : b >= 0xf0 && b <= 0xf4 ? 4
                                        : 0;
    *len = 1;
    if (k == 0 || k > n) {
        return 0xFFFD;
    }
    uint32_t v = k == 1 ? b : b & (0x7fu >> k);
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0xFFFD;
        }
        v = v << 6 | (s[i] & 0x3fu);
    }
    /* overlong 3/4-byte forms (2-byte ones are excluded by the lead byte), surrogates, beyond
     * U+10FFFF */
    if ((k == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) ||
        (k == 4 && (v < 0x10000 || v > 0x10ffff))) {
        return 0xFFFD;
    }
    *len = k;
    return v;
}

int gcev_unicode_is_control(uint32_t cp)
{
    return (cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7f && cp <= 0x9f);
}

static size_t json_u_escape(uint32_t cp, char out[GCEV_JSON_CP_MAX])
{
    static const char hex[] = "0123456789abcdef";
    out[0] = '\\';
    out[1] = 'u';
    for (int i = 0; i < 4; i++) {
        out[2 + i] = hex[(cp >> (12 - 4 * i)) & 0xf];
    }
    return 6;
}

size_t gcev_json_escape_cp(uint32_t cp, unsigned flags, char out[GCEV_JSON_CP_MAX])
{
    switch (cp) {
    case '"':
    case '\\':
        out[0] = '\\';
        out[1] = (char)cp;
        return 2;
    case '\n':
        out[0] = '\\';
        out[1] = 'n';
        return 2;
    case '\t':
        out[0] = '\\';
        out[1] = 't';
        return 2;
    case '\r':
        if (!(flags & GCEV_JSON_SANITIZE)) {
            out[0] = '\\';
            out[1] = 'r';
            return 2;
        }
        break;
    case '<':
    case '>':
    case '&':
    case 0x2028:
    case 0x2029:
        if (flags & GCEV_JSON_IN_HTML) {
            return json_u_escape(cp, out);
        }
        break;
    default:
        break;
    }
    if ((flags & GCEV_JSON_SANITIZE) && (gcev_unicode_is_control(cp) || cp == 0xfffd)) {
        return json_u_escape(0xfffd, out);
    }
    if (cp < 0x20) {
        return json_u_escape(cp, out);
    }
    return encode_utf8(cp, out);
}
size_t gcev_utf8_encode(uint32_t cp, char out[4])
{
    return encode_utf8(cp, out);
}

void gcev_guid_format(const gcev_guid *g, char buf[37])
{
    snprintf(buf, 37, "%08lx-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", (unsigned long)g->data1, g->data2,
             g->data3, g->data4[0], g->data4[1], g->data4[2], g->data4[3], g->data4[4], g->data4[5],
             g->data4[6], g->data4[7]);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

int gcev_guid_parse(const char *text, gcev_guid *out)
{
    if (!text || !out) {
        return 0;
    }
    size_t n = strlen(text);
    if (n == 38 && text[0] == '{' && text[37] == '}') {
        text++;
        n = 36;
    }
    if (n != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-') {
        return 0;
    }
    uint8_t b[16];
    size_t k = 0;
    for (size_t i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            continue;
        }
        int hi = hexval(text[i]), lo = hexval(text[i + 1]);
        if (hi < 0 || lo < 0) {
            return 0;
        }
        b[k++] = (uint8_t)(hi << 4 | lo);
        i++;
    }
    out->data1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    out->data2 = (uint16_t)(b[4] << 8 | b[5]);
    out->data3 = (uint16_t)(b[6] << 8 | b[7]);
    memcpy(out->data4, b + 8, 8);
    return 1;
}
