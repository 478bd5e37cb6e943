/* SPDX-License-Identifier: MIT */
/*
 * The differential test of the generated straight-line decoders (gcev_events_decode.c)
 * against the descriptor engine (src/decode/gcev_decode.c): for every event version
 * with a body, both pointer sizes, every payload length from 0 to its size + 8 and
 * eight byte patterns (zeros, ones, sign bits, UTF-16 text with and without
 * terminators, random), then random payloads for every event version, the public
 * entry points (gcev_decode, gcev_decode_desc, the typed gcev_decode_<family>) and
 * the engine alone give byte-identical structs (present masks included), the same
 * status, consumed and trailing counts and the same error (code, offset, field,
 * message). Outputs start poisoned, so a byte one side writes and the other leaves
 * shows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcev_decode.h"
#include "gcev_fast.h"
#include "gcev_quirks.h"
#include "gcev_schema_desc.h"
#include "gcev_utf16_scan.h"

enum { POISON = 0xa5 };

/* A deterministic byte stream (xorshift), so a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint8_t rnd8(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint8_t)(rng_state >> 24);
}

static void fill(uint8_t *p, size_t n, int pattern)
{
    for (size_t i = 0; i < n; i++) {
        switch (pattern) {
        case 0:
            p[i] = 0;
            break;
        case 1:
            p[i] = 0xff;
            break;
        case 2:
            p[i] = (uint8_t)(0x80 | i); /* sign bits set everywhere */
            break;
        case 3: /* UTF-16 text with a zero unit every seven (terminators at even offsets) */
            p[i] = (i % 14 == 12 || i % 14 == 13) ? 0 : 'a';
            break;
        case 4: /* zero byte pairs straddling two units (no terminator at even offsets) */
            p[i] = (i % 14 == 7 || i % 14 == 8) ? 0 : 'a';
            break;
        case 5: /* sparse zero bytes */
            p[i] = rnd8() % 4 ? rnd8() : 0;
            break;
        default:
            p[i] = rnd8();
            break;
        }
    }
}

static int same_error(const gcev_error *a, const gcev_error *b)
{
    return a->code == b->code && a->offset == b->offset && a->field == b->field && a->message == b->message;
}

static char where[256];

/* gcev_decode (the fast path when there is a body) against gcev_decode_engine_event. */
static void check_event(const gcev_provider *p, const gcev_event_desc *d, uint16_t version, uint8_t ps,
                        const uint8_t *data, size_t size)
{
    gcev_input in = {.struct_size = sizeof in,
                     .provider = p,
                     .event_id = d->id,
                     .version = version,
                     .pointer_size = ps,
                     .data = data,
                     .size = size};
    gcev_event a, b;
    gcev_error ea, eb;
    memset(&a, POISON, sizeof a);
    memset(&b, POISON, sizeof b);
    memset(&ea, POISON, sizeof ea);
    memset(&eb, POISON, sizeof eb);
    gcev_status sa = gcev_decode(&in, &a, &ea);
    gcev_status sb = gcev_decode_engine_event(&in, &b, &eb);
    if (sa != sb || memcmp(&a, &b, sizeof a) != 0 || (sa != GCEV_OK && !same_error(&ea, &eb))) {
        for (size_t i = 0; i < sizeof a; i++) {
            if (((const uint8_t *)&a)[i] != ((const uint8_t *)&b)[i]) {
                print_message("first different byte of gcev_event: %zu (%02x / %02x)\n", i,
                              ((const uint8_t *)&a)[i], ((const uint8_t *)&b)[i]);
                break;
            }
        }
        fail_msg("gcev_decode differs from the engine: %s (status %d / %d, consumed %u / %u)", where, sa, sb,
                 a.consumed, b.consumed);
    }
}

/* gcev_decode_desc and the typed decoder against the engine, into the family struct. */
static void check_struct(const gcev_event_desc *d, uint16_t version, uint8_t ps, const uint8_t *data,
                         size_t size)
{
    gcev_union a, b;
    gcev_error ea, eb;
    uint32_t ca, cb;
    if (version == d->version) {
        memset(&a, POISON, sizeof a);
        memset(&b, POISON, sizeof b);
        memset(&ea, POISON, sizeof ea);
        memset(&eb, POISON, sizeof eb);
        ca = cb = 0x5a5a5a5a;
        gcev_status sa = gcev_decode_desc(d, ps, data, size, &a, &ca, &ea);
        gcev_status sb = gcev_decode_engine(d, ps, data, size, &b, &cb, &eb);
        if (sa != sb || ca != cb || memcmp(&a, &b, sizeof a) != 0 ||
            (sa != GCEV_OK && !same_error(&ea, &eb))) {
            fail_msg("gcev_decode_desc differs from the engine: %s", where);
        }
    }
    gcev_typed_fn typed = gcev_gen_typed[d->family];
    assert_non_null(typed);
    memset(&a, POISON, sizeof a);
    memset(&b, POISON, sizeof b);
    memset(&ea, POISON, sizeof ea);
    memset(&eb, POISON, sizeof eb);
    ca = cb = 0x5a5a5a5a;
    gcev_status sa = typed(data, size, version, ps, &a, &ca, &ea);
    gcev_status sb = gcev_decode_engine_family(d->family, version, ps, data, size, &b, &cb, &eb);
    if (sa != sb || ca != cb || memcmp(&a, &b, sizeof a) != 0 || (sa != GCEV_OK && !same_error(&ea, &eb))) {
        fail_msg("typed decoder differs from the engine: %s (status %d / %d, consumed %u / %u)", where, sa,
                 sb, ca, cb);
    }
    /* NULL consumed and err are allowed on both paths */
    memset(&a, POISON, sizeof a);
    memset(&b, POISON, sizeof b);
    sa = typed(data, size, version, ps, &a, NULL, NULL);
    sb = gcev_decode_engine_family(d->family, version, ps, data, size, &b, NULL, NULL);
    assert_int_equal(sa, sb);
    assert_memory_equal(&a, &b, sizeof a);
}

static void check_all(const gcev_provider *p, const gcev_event_desc *d, uint16_t version, uint8_t ps,
                      const uint8_t *data, size_t size)
{
    check_event(p, d, version, ps, data, size);
    check_struct(d, version, ps, data, size);
}

/* An array's elements have a fixed size: scalars, or a struct of fixed-size scalars. */
static int fixed_elements(const gcev_field_desc *fd)
{
    if (!fd->elem) {
        return gcev_wire_size((gcev_type)fd->type, 8) != 0;
    }
    for (uint16_t c = 0; c < fd->elem->nfields; c++) {
        const gcev_field_desc *e = &fd->elem->fields[c];
        if (e->store == GCEV_S_ARRAY || gcev_wire_size((gcev_type)e->type, 8) == 0) {
            return 0;
        }
    }
    return 1;
}

/* A field of a kind the generated bodies decode. */
static int body_field(const gcev_field_desc *fd)
{
    const int text = fd->type == GCEV_T_UNICODE_STRING || fd->type == GCEV_T_ANSI_STRING;
    if (fd->store == GCEV_S_ARRAY) {
        return fd->length_field < 0 && fixed_elements(fd);
    }
    return (fd->wire[1] != 0 && fd->type != GCEV_T_SYSTEMTIME) ||
           (text && fd->length_field < 0 && fd->fixed_count == 0) ||
           ((text || fd->type == GCEV_T_BINARY) && fd->length_field >= 0);
}

/* The newest version of d's (provider, id), for the newer-than-known cases. */
static int is_newest(const gcev_provider *p, const gcev_event_desc *d)
{
    return gcev_event_desc_resolve(p, d->id, 255, NULL) == d;
}

static void test_every_description_has_its_row(void **state)
{
    (void)state;
    size_t count, next = 0, bodies = 0;
    const gcev_provider *const *ps = gcev_providers(&count);
    for (size_t pi = 0; pi < count; pi++) {
        for (size_t i = 0; i < ps[pi]->nevents; i++) {
            const gcev_event_desc *d = &ps[pi]->events[i];
            assert_int_equal(d->index, next++);
            /* a body exactly for the fixed-size templates (and events without a payload), and
             * for templates of fixed-size scalars, NUL-terminated strings, strings and blobs of
             * a field's length and arrays of fixed-size elements */
            int body = !d->tmpl || d->tmpl->nfields <= 64;
            for (uint16_t f = 0; d->tmpl && f < d->tmpl->nfields; f++) {
                body &= body_field(&d->tmpl->fields[f]);
            }
            assert_int_equal(gcev_gen_fast[d->index][0] != NULL, body);
            assert_int_equal(gcev_gen_fast[d->index][1] != NULL, body);
            assert_int_equal(gcev_gen_fast_event[d->index][0] != NULL, body);
            assert_int_equal(gcev_gen_fast_event[d->index][1] != NULL, body);
            bodies += (size_t)body;
            assert_non_null(gcev_gen_typed[d->family]);
            /* the resolution table gives every version back */
            assert_ptr_equal(gcev_event_desc_resolve(ps[pi], d->id, d->version, NULL), d);
        }
    }
    assert_int_equal(next, gcev_gen_nfast);
    assert_true(bodies > 50); /* most GC events are fixed-size */
}

static void test_bodies_match_the_engine_at_every_length(void **state)
{
    (void)state;
    size_t count, cases = 0;
    const gcev_provider *const *provs = gcev_providers(&count);
    for (size_t pi = 0; pi < count; pi++) {
        const gcev_provider *p = provs[pi];
        for (size_t i = 0; i < p->nevents; i++) {
            const gcev_event_desc *d = &p->events[i];
            if (!gcev_gen_fast[d->index][1]) {
                continue;
            }
            for (uint8_t ps = 4; ps <= 8; ps += 4) {
                /* fixed size + 8; templates with strings get room for a few characters */
                size_t tsize = d->tmpl ? d->tmpl->min_size[ps == 8] : 0;
                if (d->tmpl && !(d->tmpl->flags & GCEV_TF_FIXED)) {
                    tsize += 24;
                }
                for (size_t len = 0; len <= tsize + 8; len++) {
                    for (int pattern = 0; pattern < 8; pattern++) {
                        /* exactly len bytes, so ASan sees any read past the end */
                        uint8_t *buf = malloc(len ? len : 1);
                        assert_non_null(buf);
                        fill(buf, len, pattern);
                        snprintf(where, sizeof where, "%s ps=%u len=%zu pattern=%d", d->symbol, ps, len,
                                 pattern);
                        check_all(p, d, d->version, ps, buf, len);
                        if (is_newest(p, d)) {
                            check_all(p, d, (uint16_t)(d->version + 1), ps, buf, len);
                        }
                        if (len == 0) {
                            check_all(p, d, d->version, ps, NULL, 0);
                        }
                        free(buf);
                        cases++;
                    }
                }
            }
        }
    }
    assert_true(cases > 1000);
}

static void test_random_payloads_match_the_engine(void **state)
{
    (void)state;
    size_t count;
    const gcev_provider *const *provs = gcev_providers(&count);
    for (size_t pi = 0; pi < count; pi++) {
        const gcev_provider *p = provs[pi];
        for (size_t i = 0; i < p->nevents; i++) {
            const gcev_event_desc *d = &p->events[i]; /* fixed and variable size */
            for (int k = 0; k < 64; k++) {
                size_t len = rnd8() % 2 ? rnd8() % 64 : (size_t)rnd8() * 2;
                uint8_t *buf = malloc(len ? len : 1);
                assert_non_null(buf);
                fill(buf, len, k % 8 == 0 ? 0 : (k % 8 == 1 ? 3 : (k % 8 == 2 ? 5 : 6)));
                uint8_t ps = rnd8() % 2 ? 8 : 4;
                snprintf(where, sizeof where, "%s ps=%u len=%zu random #%d", d->symbol, ps, len, k);
                check_all(p, d, d->version, ps, buf, len);
                free(buf);
            }
        }
    }
}

/*
 * A valid payload of d's template for pointer size ps in buf (room for cap bytes): random
 * scalars, except that a count or length gets a small value, strings of a few units and
 * their terminator, blobs and arrays as long as those say. Returns its size.
 */
static size_t build_payload(const gcev_event_desc *d, uint8_t ps, uint8_t *buf, size_t cap)
{
    const gcev_template *t = d->tmpl;
    uint64_t vals[64] = {0};
    size_t pos = 0;
    for (uint16_t i = 0; t && i < t->nfields && i < 64; i++) {
        const gcev_field_desc *fd = &t->fields[i];
        const unsigned w = gcev_wire_size((gcev_type)fd->type, ps);
        int counts = 0;
        for (uint16_t k = i + 1; k < t->nfields; k++) {
            counts |= t->fields[k].count_field == i || t->fields[k].length_field == i;
        }
        size_t n = 0;
        if (fd->store == GCEV_S_ARRAY) {
            const uint32_t stride = fd->elem ? gcev_elem_stride(fd->elem, ps, gcev_quirk_aligned_elements(d))
                                             : gcev_wire_size((gcev_type)fd->type, ps);
            n = (size_t)(fd->count_field >= 0 ? vals[fd->count_field] : fd->fixed_count) * stride;
            assert_true(pos + n <= cap);
            fill(buf + pos, n, 6);
        } else if (fd->length_field >= 0) {
            n = (size_t)vals[fd->length_field] * (fd->type == GCEV_T_UNICODE_STRING ? 2 : 1);
            assert_true(pos + n <= cap);
            fill(buf + pos, n, 6);
        } else if (w == 0) { /* NUL-terminated */
            const size_t unit = fd->type == GCEV_T_UNICODE_STRING ? 2 : 1, units = rnd8() % 6;
            n = (units + 1) * unit;
            assert_true(pos + n <= cap);
            memset(buf + pos, 'a', units * unit);
            memset(buf + pos + units * unit, 0, unit);
        } else {
            n = w;
            assert_true(pos + n <= cap);
            fill(buf + pos, n, 6);
            if (counts) {
                memset(buf + pos, 0, n);
                buf[pos] = (uint8_t)(rnd8() % 5);
                vals[i] = buf[pos];
            }
        }
        pos += n;
    }
    return pos;
}

/* Valid payloads of the variable-size templates, whole, cut at every length and with
 * bytes after them: what a body decodes in full, not only the engine's errors. */
static void test_valid_variable_payloads_match_the_engine(void **state)
{
    (void)state;
    size_t count, cases = 0;
    const gcev_provider *const *provs = gcev_providers(&count);
    for (size_t pi = 0; pi < count; pi++) {
        const gcev_provider *p = provs[pi];
        for (size_t i = 0; i < p->nevents; i++) {
            const gcev_event_desc *d = &p->events[i];
            if (!d->tmpl || (d->tmpl->flags & GCEV_TF_FIXED)) {
                continue;
            }
            for (int k = 0; k < 16; k++) {
                const uint8_t ps = k % 2 ? 4 : 8;
                uint8_t tmp[4096];
                const size_t n = build_payload(d, ps, tmp, sizeof tmp - 4);
                fill(tmp + n, 4, 6);
                for (size_t len = 0; len <= n + 3; len++) {
                    uint8_t *buf = malloc(len ? len : 1);
                    assert_non_null(buf);
                    memcpy(buf, tmp, len);
                    snprintf(where, sizeof where, "%s ps=%u valid %zu bytes cut at %zu #%d", d->symbol, ps, n,
                             len, k);
                    check_all(p, d, d->version, ps, buf, len);
                    free(buf);
                    cases++;
                }
            }
        }
    }
    assert_true(cases > 1000);
}

/* The bodies' UTF-16 terminator scan gives gcev_utf16_nul()'s answer for every length
 * and terminator place, with zero bytes at odd offsets (not a unit) before it. */
static void test_utf16_scan_matches_the_unit_scan(void **state)
{
    (void)state;
    for (uint32_t avail = 0; avail <= 70; avail++) {
        for (uint32_t at = 0; at <= avail + 2; at++) { /* the terminator's offset, or none */
            for (int odd = 0; odd < 2; odd++) {
                uint8_t *buf = malloc(avail ? avail : 1);
                assert_non_null(buf);
                for (uint32_t i = 0; i < avail; i++) {
                    buf[i] = (uint8_t)(odd && i % 6 == 3 ? 0 : 'a' + i % 7);
                    if (odd && i % 6 == 4) {
                        buf[i] = 0; /* with the byte before: a zero pair across two units */
                    }
                }
                if (at % 2 == 0 && at + 2 <= avail) {
                    buf[at] = buf[at + 1] = 0;
                }
                uint32_t na = 0xdeadbeef, nb = 0xdeadbeef;
                const int ra = gcev_utf16_nul_scan(buf, avail, &na), rb = gcev_utf16_nul(buf, avail, &nb);
                assert_int_equal(ra, rb);
                if (ra) {
                    assert_int_equal(na, nb);
                }
                free(buf);
            }
        }
    }
}

/* Bad arguments take the same (engine) path whatever the entry point. */
static void test_bad_arguments_match_the_engine(void **state)
{
    (void)state;
    const gcev_event_desc *d = gcev_event_desc_resolve(&gcev_provider_runtime, 1, 2, NULL); /* GCStart_V2 */
    assert_non_null(d);
    uint8_t buf[32] = {8};
    static const uint8_t bad_ps[] = {0, 1, 5, 16, 255};
    for (size_t i = 0; i < sizeof bad_ps; i++) {
        snprintf(where, sizeof where, "GCStart_V2 ps=%u", bad_ps[i]);
        check_all(&gcev_provider_runtime, d, 2, bad_ps[i], buf, sizeof buf);
    }
    snprintf(where, sizeof where, "GCStart_V2 NULL data with size 8");
    check_all(&gcev_provider_runtime, d, 2, 8, NULL, 8);
    /* unknown versions below the known ones, and a NULL struct */
    const gcev_event_desc *e = gcev_event_desc_resolve(&gcev_provider_runtime, 205, 2, NULL);
    assert_non_null(e);
    gcev_error ea, eb;
    memset(&ea, POISON, sizeof ea);
    memset(&eb, POISON, sizeof eb);
    assert_int_equal(gcev_gen_typed[d->family](buf, sizeof buf, 1, 8, NULL, NULL, &ea),
                     gcev_decode_engine_family(d->family, 1, 8, buf, sizeof buf, NULL, NULL, &eb));
    assert_true(same_error(&ea, &eb));
    /* unknown ids and versions, as a trace walk offers them */
    static const struct {
        uint16_t id, version;
    } unknown[] = {{24, 0}, {203, 1}, {65535, 0}, {1, 0}};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        gcev_input in = {.struct_size = sizeof in,
                         .provider = &gcev_provider_runtime,
                         .event_id = unknown[i].id,
                         .version = unknown[i].version,
                         .pointer_size = 8,
                         .data = buf,
                         .size = sizeof buf};
        gcev_event a, b;
        memset(&a, POISON, sizeof a);
        memset(&b, POISON, sizeof b);
        memset(&ea, POISON, sizeof ea);
        memset(&eb, POISON, sizeof eb);
        assert_int_equal(gcev_decode(&in, &a, &ea), gcev_decode_engine_event(&in, &b, &eb));
        assert_memory_equal(&a, &b, sizeof a);
        assert_true(same_error(&ea, &eb));
    }
    gcev_gc_start s;
    assert_int_equal(gcev_decode_gc_start(buf, sizeof buf, 2, 8, &s, NULL, NULL), GCEV_OK);
    assert_int_equal(gcev_decode_gc_start(buf, sizeof buf, 2, 8, NULL, NULL, NULL), GCEV_E_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_description_has_its_row),
        cmocka_unit_test(test_bodies_match_the_engine_at_every_length),
        cmocka_unit_test(test_random_payloads_match_the_engine),
        cmocka_unit_test(test_valid_variable_payloads_match_the_engine),
        cmocka_unit_test(test_utf16_scan_matches_the_unit_scan),
        cmocka_unit_test(test_bad_arguments_match_the_engine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
