/* SPDX-License-Identifier: MIT */
/*
 * The UTF-16 terminator scan of the generated decode bodies: the same answer as
 * gcev_utf16_nul() (gcev_read.h), eight units a step where SSE2 is there (every
 * x86-64). A GC trace's NUL-terminated strings are type names of 20-80 units
 * (GCAllocationTick) and GCDynamicEvent's names, which gcev_utf16_nul() steps
 * through four units at a time and then unit by unit to the one it flagged.
 */
#ifndef GCEV_UTF16_SCAN_H
#define GCEV_UTF16_SCAN_H

#include <stdint.h>

#include "gcev_read.h"

#if defined(__SSE2__)
#include <emmintrin.h>

/*
 * The first 2-byte unit at an even offset of p[0, avail) that is 0x0000: sets *nbytes
 * to its offset and returns 1, or returns 0 when there is none. Never reads past
 * p + avail: 16-byte loads while 16 bytes are left, then one load ending at the last
 * whole unit (overlapping units already seen, which are not zero) when avail >= 16,
 * else gcev_utf16_nul()'s way.
 */
static inline int gcev_utf16_nul_scan(const uint8_t *p, uint32_t avail, uint32_t *nbytes)
{
    if (avail < 16) {
        return gcev_utf16_nul(p, avail, nbytes);
    }
    const __m128i zero = _mm_setzero_si128();
    uint32_t j = 0;
    for (; avail - j >= 16; j += 16) {
        const unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)(p + j)), zero));
        if (m) {
            *nbytes = j + (unsigned)__builtin_ctz(m); /* the unit's low byte: an even offset */
            return 1;
        }
    }
    if (avail - j < 2) {
        return 0;
    }
    /* the last 16 bytes of whole units: back from j by 16 - (avail - j) bytes rounded up
     * to even (2 to 14), so the load starts at a unit and ends at or before p + avail */
    const uint32_t last = j - ((17 - (avail - j)) & ~1u);
    const unsigned m = (unsigned)_mm_movemask_epi8(
        _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)(p + last)), zero));
    if (m) {
        *nbytes = last + (unsigned)__builtin_ctz(m);
        return 1;
    }
    return 0;
}
#else
static inline int gcev_utf16_nul_scan(const uint8_t *p, uint32_t avail, uint32_t *nbytes)
{
    return gcev_utf16_nul(p, avail, nbytes);
}
#endif

#endif
