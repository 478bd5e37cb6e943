/* SPDX-License-Identifier: MIT */
/*
 * Packetized CTF metadata: unpacks the TSDL text from metadata packets (magic
 * 0x75D11D57, either byte order, 37-byte header, uncompressed) or takes plain
 * "/ * CTF" text as is. Apart from the parser because it is framing, not
 * grammar: it reads a file's bytes, the parser only ever sees the text.
 */
#include "gcev_ctf_meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcev_read.h"

enum { META_MAGIC = 0x75D11D57u, META_HEADER = 37 };

static void meta_fail(gcev_ctf_meta_error *e, gcev_status code, uint64_t off, const char *msg)
{
    if (e) {
        e->code = code;
        e->offset = off;
        e->line = 0;
        snprintf(e->message, sizeof e->message, "%s", msg);
    }
}

gcev_status gcev_ctf_metadata_text(const uint8_t *data, size_t size, char **text, size_t *len,
                                   gcev_ctf_meta_error *e)
{
    *text = NULL;
    *len = 0;
    if (e) {
        memset(e, 0, sizeof *e);
    }
    int packetized = 0, be = 0;
    if (size >= 4) {
        uint32_t le = gcev_rd_u32le(data);
        uint32_t bev = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
        if (le == META_MAGIC) {
            packetized = 1;
        } else if (bev == META_MAGIC) {
            packetized = 1;
            be = 1;
        }
    }
    if (!packetized) {
        if (size < 6 || memcmp(data, "/* CTF", 6) != 0) {
            meta_fail(e, GCEV_E_FORMAT, 0,
                      "metadata is neither packetized (magic 0x75d11d57) nor \"/* CTF\" text");
            return GCEV_E_FORMAT;
        }
        if (size > GCEV_CTF_MAX_METADATA) {
            meta_fail(e, GCEV_E_LIMIT, 0, "metadata text larger than 64 MiB");
            return GCEV_E_LIMIT;
        }
        char *t = malloc(size + 1);
        if (!t) {
            meta_fail(e, GCEV_E_NOMEM, 0, "out of memory");
            return GCEV_E_NOMEM;
        }
        memcpy(t, data, size);
        t[size] = '\0';
        *text = t;
        *len = size;
        return GCEV_OK;
    }
    /* two passes: size, then copy */
    size_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t pos = 0, out = 0;
        char *t = NULL;
        if (pass == 1) {
            t = malloc(total + 1);
            if (!t) {
                meta_fail(e, GCEV_E_NOMEM, 0, "out of memory");
                return GCEV_E_NOMEM;
            }
        }
        while (pos < size) {
            if (size - pos < META_HEADER) {
                free(t);
                meta_fail(e, GCEV_E_TRUNCATED_FILE, pos, "metadata ends inside a packet header");
                return GCEV_E_TRUNCATED_FILE;
            }
            const uint8_t *h = data + pos;
            uint32_t magic, content, packet;
            if (be) {
                magic = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
                content = (uint32_t)h[24] << 24 | (uint32_t)h[25] << 16 | (uint32_t)h[26] << 8 | h[27];
                packet = (uint32_t)h[28] << 24 | (uint32_t)h[29] << 16 | (uint32_t)h[30] << 8 | h[31];
            } else {
                magic = gcev_rd_u32le(h);
                content = gcev_rd_u32le(h + 24);
                packet = gcev_rd_u32le(h + 28);
            }
            uint8_t compression = h[32], encryption = h[33];
            if (magic != META_MAGIC) {
                free(t);
                meta_fail(e, GCEV_E_FORMAT, pos, "metadata packet without magic 0x75d11d57");
                return GCEV_E_FORMAT;
            }
            if (compression || encryption) {
                free(t);
                meta_fail(e, GCEV_E_UNSUPPORTED, pos + 32, "compressed or encrypted metadata packet");
                return GCEV_E_UNSUPPORTED;
            }
            if (content % 8 || packet % 8 || content < META_HEADER * 8 || packet < content) {
                free(t);
                meta_fail(e, GCEV_E_FORMAT, pos + 24,
                          "metadata packet sizes are not whole bytes, or content exceeds the packet");
                return GCEV_E_FORMAT;
            }
            size_t cbytes = content / 8, pbytes = packet / 8;
            if (cbytes > size - pos) {
                free(t);
                meta_fail(e, GCEV_E_TRUNCATED_FILE, pos, "metadata ends inside a packet");
                return GCEV_E_TRUNCATED_FILE;
            }
            size_t n = cbytes - META_HEADER;
            if (pass == 0) {
                if (n > GCEV_CTF_MAX_METADATA - total) {
                    meta_fail(e, GCEV_E_LIMIT, pos, "metadata text larger than 64 MiB");
                    return GCEV_E_LIMIT;
                }
                total += n;
            } else {
                memcpy(t + out, h + META_HEADER, n);
                out += n;
            }
            /* the last packet may be cut at its content end */
            pos += pbytes <= size - pos ? pbytes : size - pos;
        }
        if (pass == 1) {
            t[out] = '\0';
            *text = t;
            *len = out;
        }
    }
    return GCEV_OK;
}
