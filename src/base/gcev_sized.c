/* SPDX-License-Identifier: MIT */
/* Reads the caller's growable structs into whole ones (gcev_sized.h). */
#include "gcev_sized.h"

#include <string.h>

gcev_status gcev_sized_in(void *out, size_t full, const void *in, size_t v1)
{
    memset(out, 0, full);
    if (in) {
        uint32_t size = *(const uint32_t *)in;
        size_t have = size ? size : v1;
        if (have < sizeof size) {
            return GCEV_E_INVALID_ARG;
        }
        const unsigned char *b = in;
        for (size_t i = full; i < have; i++) {
            if (b[i]) {
                return GCEV_E_UNSUPPORTED;
            }
        }
        memcpy(out, in, have < full ? have : full);
    }
    *(uint32_t *)out = (uint32_t)full;
    return GCEV_OK;
}
