/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the libFuzzer harnesses: the decode-input framing (which
 * event the payload is decoded as) and a full exercise of one decoded event
 * (formatters, field walk, array elements, encoder, GCDynamicEvent).
 */
#ifndef GCEV_FUZZ_COMMON_H
#define GCEV_FUZZ_COMMON_H

#include <gcev/gcev_trace.h>

#include <stdlib.h>
#include <string.h>

#include "gcev_schema_desc.h"

/*
 * Decode-input framing used by fuzz_decode, fuzz_format and the seed builder:
 *   [0]    provider index (modulo the number of providers)
 *   [1..2] event id, little-endian
 *   [3..4] version, little-endian
 *   [5]    pointer size: 4 or 8 by bit 0, or the byte itself when bit 7 is set
 *   [6..]  payload
 */
enum { FUZZ_DECODE_HEADER = 6 };

static inline int fuzz_decode_input(const uint8_t *data, size_t size, gcev_input *in)
{
    size_t np = 0;
    const gcev_provider *const *ps = gcev_providers(&np);
    if (size < FUZZ_DECODE_HEADER || np == 0) {
        return 0;
    }
    memset(in, 0, sizeof *in);
    in->provider = ps[data[0] % np];
    in->event_id = (uint16_t)(data[1] | data[2] << 8);
    in->version = (uint16_t)(data[3] | data[4] << 8);
    in->pointer_size = (data[5] & 0x80) ? data[5] : (data[5] & 1) ? 8 : 4;
    in->data = data + FUZZ_DECODE_HEADER;
    in->size = size - FUZZ_DECODE_HEADER;
    return 1;
}

/* Crashes (so the fuzzer reports the input) when a formatter broke snprintf semantics. */
#define FUZZ_CHECK(cond)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            abort();                                                                                         \
        }                                                                                                    \
    } while (0)

typedef size_t (*fuzz_fmt_fn)(const gcev_event *ev, char *buf, size_t n);

/* Formats into a big buffer, then into a short one, and checks both agree. */
static inline void fuzz_format_one(const gcev_event *ev, fuzz_fmt_fn fn, size_t short_n)
{
    size_t need = fn(ev, NULL, 0);
    char *full = malloc(need + 1);
    if (!full) {
        return;
    }
    FUZZ_CHECK(fn(ev, full, need + 1) == need);
    FUZZ_CHECK(full[need] == '\0' && strlen(full) == need);
    if (short_n > 0 && short_n <= need) {
        char *part = malloc(short_n);
        if (part) {
            FUZZ_CHECK(fn(ev, part, short_n) == need);
            FUZZ_CHECK(part[short_n - 1] == '\0');
            FUZZ_CHECK(memcmp(part, full, short_n - 1) == 0);
            free(part);
        }
    }
    free(full);
}

/* Walks the fields of an iterator, descending into struct-array elements. */
static inline void fuzz_walk(gcev_field_iter *it, int depth)
{
    gcev_field f;
    unsigned budget = 4096;
    while (gcev_field_next(it, &f) && budget-- > 0) {
        char tmp[64];
        if (f.type == GCEV_T_UNICODE_STRING) {
            gcev_utf16_to_utf8(f.v.str, tmp, sizeof tmp);
        }
        if (f.map) {
            gcev_map_format(f.map, f.v.u, tmp, sizeof tmp);
        }
        /* the on-demand name is the one the walk looked up */
        FUZZ_CHECK(gcev_field_value_name(&f) == f.value_name);
        if (f.is_array && depth < 2) {
            const gcev_array *a = &f.v.array;
            uint32_t n = a->count < 64 ? a->count : 64;
            for (uint32_t i = 0; i < n; i++) {
                if (a->elem) {
                    uint8_t elem[1024];
                    gcev_field_iter sub;
                    if (a->elem->struct_size <= sizeof elem &&
                        gcev_field_iter_elem(&sub, a, i, elem, sizeof elem) == GCEV_OK) {
                        fuzz_walk(&sub, depth + 1);
                    }
                    gcev_error e;
                    if (a->elem->struct_size <= sizeof elem) {
                        (void)gcev_array_elem(a, i, elem, &e);
                    }
                } else {
                    (void)gcev_array_u64_at(a, i);
                }
            }
            (void)gcev_array_u64_at(a, a->count); /* one past the end: 0 */
        }
    }
}

/* gcev_fields() gives what the walk yields, byte for byte, for both options, and the
 * count whatever the room (some of it, none, or out NULL). */
static inline void fuzz_fields_batch(const gcev_event *ev, size_t room)
{
    for (unsigned options = 0; options <= GCEV_FIELD_LAZY_NAMES; options += GCEV_FIELD_LAZY_NAMES) {
        gcev_field walked[64], batch[64];
        gcev_field_iter it;
        gcev_field_iter_init(&it, ev);
        gcev_field_iter_set_options(&it, options);
        size_t n = 0;
        while (n < 64 && gcev_field_next(&it, &walked[n])) {
            n++;
        }
        size_t cap = room % 65;
        FUZZ_CHECK(gcev_fields(ev, batch, cap, options) == n);
        FUZZ_CHECK(memcmp(batch, walked, (cap < n ? cap : n) * sizeof batch[0]) == 0);
        FUZZ_CHECK(gcev_fields(ev, NULL, 0, options) == n);
    }
}

/* Everything a caller can do with one successfully decoded event. */
static inline void fuzz_exercise_event(const gcev_event *ev, size_t short_n, int dynamic)
{
    fuzz_format_one(ev, gcev_format_text, short_n);
    fuzz_format_one(ev, gcev_format_fields_json, short_n);
    fuzz_format_one(ev, gcev_format_names_json, short_n);
    gcev_field_iter it;
    gcev_field_iter_init(&it, ev);
    fuzz_walk(&it, 0);
    fuzz_fields_batch(ev, short_n);

    /* encode the decoded struct: must fit in consumed bytes (+ alignment slack) and decode back */
    size_t cap = (size_t)ev->consumed + 64;
    uint8_t *buf = malloc(cap);
    if (buf) {
        size_t written = 0;
        gcev_error e;
        if (gcev_encode(ev, buf, cap, &written, &e) == GCEV_OK) {
            FUZZ_CHECK(written <= cap);
            gcev_input in2 = {.struct_size = sizeof in2,
                              .provider = ev->desc->provider,
                              .event_id = ev->desc->id,
                              .version = ev->version,
                              .pointer_size = ev->pointer_size,
                              .data = buf,
                              .size = written};
            gcev_event back;
            (void)gcev_decode(&in2, &back, &e);
        }
        free(buf);
    }
    if (dynamic && ev->desc && ev->desc->family == GCEV_FAMILY_GC_DYNAMIC_EVENT) {
        gcev_event inner;
        gcev_error e;
        if (gcev_decode_dynamic(ev, &inner, &e) == GCEV_OK) {
            fuzz_exercise_event(&inner, short_n, 0);
        }
    }
}

#endif
