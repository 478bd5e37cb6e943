/* SPDX-License-Identifier: MIT */
/*
 * The per-event reading of an AllocationSampled payload, inline in the model's per-event path
 * (gcev_allocs_add): a call into another file, its saved registers and the sample handed
 * through memory cost a tenth of the model's work per event. Include after
 * gcev_allocs_internal.h.
 */
#ifndef GCEV_ALLOCS_SAMPLED_H
#define GCEV_ALLOCS_SAMPLED_H

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "gcev_allocs_internal.h"

/* Objects per AllocationSampled sample of an object of size bytes (gcev_allocs_decode.c). */
double gcev_ga_sampled_objects(uint64_t size);

/* The first UTF-16 NUL unit of p[0, avail): its byte offset in *nbytes; 0 when there is none.
 * Type names run 20-80 units: 8 units at a time where SSE2 is, else 1 (a unit is zero when
 * both its bytes are). */
static inline int gcev_ga_utf16_nul(const uint8_t *p, uint32_t avail, uint32_t *nbytes)
{
    uint32_t j = 0;
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
    const __m128i zero = _mm_setzero_si128();
    for (; avail - j >= 16; j += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + j));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi16(v, zero));
        if (m) {
            *nbytes = j + (unsigned)__builtin_ctz(m);
            return 1;
        }
    }
#endif
    for (; avail - j >= 2; j += 2) {
        if ((p[j] | p[j + 1]) == 0) {
            *nbytes = j;
            return 1;
        }
    }
    return 0;
}

/* Objects per sample of size bytes through the model's cache (sizes repeat: expm1 once
 * each); wc NULL: computed. */
static inline double gcev_ga_sampled_weight(ga_weight_slot *wc, uint64_t size)
{
    if (!wc || !size) {
        return gcev_ga_sampled_objects(size);
    }
    ga_weight_slot *w = &wc[(size * UINT64_C(0x9e3779b97f4a7c15)) >> 32 & (GA_WEIGHT_CACHE - 1)];
    if (w->size != size) {
        w->size = size;
        w->objects = gcev_ga_sampled_objects(size);
    }
    return w->objects;
}

static inline uint64_t gcev_ga_le64(const uint8_t *b)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v; /* one load: the compiler did not merge the byte form (8 loads and shifts) */
    memcpy(&v, b, sizeof v);
    return v;
#else
    return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24 |
           (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 | (uint64_t)b[6] << 48 | (uint64_t)b[7] << 56;
#endif
}

/* gcev_ga_sample() of an AllocationSampled event whose payload has every field (64-bit): 1
 * with *out filled (the same values), else 0 and the caller takes gcev_ga_sample() (for the
 * error). No decode into a struct, a wide scan for the type name's end. */
static inline int gcev_ga_sampled_fast(const gcev_trace_event *ev, gcev_allocs_sample *out,
                                       ga_weight_slot *wc)
{
    /* AllocationSampled (every version: later ones only append), 64-bit: AllocationKind u32,
     * ClrInstanceID u16, TypeID u64, TypeName (UTF-16, NUL), Address u64, ObjectSize u64,
     * SampledByteOffset u64 -- the checks gcev_decode_allocation_sampled makes */
    const uint8_t *p = ev->payload;
    uint32_t size = ev->payload_size, n;
    if (!p || ev->pointer_size != 8 || size < 40 || size == UINT32_MAX ||
        !gcev_ga_utf16_nul(p + 14, size - 14, &n) || size - 14 - n - 2 < 24) {
        return 0;
    }
    const uint8_t *tail = p + 14 + n + 2;
    out->source = GCEV_ALLOCS_SAMPLED;
    out->kind = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    out->type_id = gcev_ga_le64(p + 6);
    out->type_name.data = p + 14;
    out->type_name.nbytes = n;
    out->size = gcev_ga_le64(tail + 8);
    out->objects = gcev_ga_sampled_weight(wc, out->size);
    out->bytes = (double)out->size * out->objects;
    return 1;
}

#endif
