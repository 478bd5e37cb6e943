/* SPDX-License-Identifier: MIT */
/*
 * TraceLogging schemas (gcev_etl_tracelogging.c) straight from their bytes: each way a schema
 * can run short names its cause, a schema read once is cached, and malformed provider traits
 * give no name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gcev_etl_tracelogging.h"
#include "gcev_read.h"

/* A TraceLogging schema from hex (blanks ignored), its leading u16 size set to its length. */
static uint32_t tl_bytes(const char *hex, uint8_t *out)
{
    uint32_t n = 0;
    for (const char *c = hex; *c; c++) {
        if (*c == ' ') {
            continue;
        }
        unsigned v;
        assert_int_equal(sscanf(c, "%2x", &v), 1);
        out[n++] = (uint8_t)v;
        c++;
    }
    gcev_put16(out, (uint16_t)n);
    return n;
}

/* Each malformed TraceLogging schema: GCEV_E_FORMAT with the message naming what runs past
 * the schema; the well-formed ones are parsed once and found again from the cache, also past
 * the point where its table grows, up to the limit on distinct schemas. */
static void test_etl_tracelogging_schema_errors_name_the_cause(void **state)
{
    (void)state;
    static const struct {
        const char *hex, *msg;
    } bad[] = {
        {"0000 80 80 80 80", "event tags run past the schema"},
        {"0000 80", "event tags run past the schema"},
        {"0000 00 4576", "event name runs past the schema"},
        {"0000 00 4500 6100", "field name or type runs past the schema"},
        {"0000 00 4500 6100 88", "field out-type runs past the schema"},
        {"0000 00 4500 6100 88 80", "field tags run past the schema"},
        {"0000 00 4500 6100 28 04", "field count runs past the schema"},
        {"0000 00 4500 6100 6e 0500 aa", "custom type info runs past the schema"},
        {"0000 00 4500 7300 98 05 6100 08", "struct declares more members than fields follow"},
        {"0000 00 4500 6100 08 7300 98 01", "struct declares more members than fields follow"},
    };
    gcev_etl_tl_cache *c = gcev_etl_tl_cache_create();
    assert_non_null(c);
    uint8_t m[64];
    const gcev_etl_tl_schema *sch;
    const char *msg;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t n = tl_bytes(bad[i].hex, m);
        msg = NULL;
        gcev_status st = gcev_etl_tl_schema_get(c, m, n, &sch, &msg);
        if (st != GCEV_E_FORMAT || !msg || !strstr(msg, bad[i].msg)) {
            fail_msg("case %zu: %s '%s', want '%s'", i, gcev_status_str(st), msg ? msg : "", bad[i].msg);
        }
        assert_null(sch);
    }
    /* well-formed: "E" with a UINT32 field and a struct of one GUID */
    uint32_t n = tl_bytes("0000 00 4500 6100 08 7300 98 01 7800 0f", m);
    assert_int_equal(gcev_etl_tl_schema_get(c, m, n, &sch, &msg), GCEV_OK);
    assert_string_equal(sch->event_name, "E");
    assert_int_equal(sch->nfields, 2);
    assert_int_equal(sch->fields[1].nfields, 1);
    assert_string_equal(sch->fields[1].fields[0].name, "x");
    /* many distinct schemas (event names 0000 .. 0999): each parsed once, then found in the
     * cache (its tree, which outlives the cache's growth, is the same one) */
    const gcev_trace_field *first[1000];
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 1000; i++) {
            uint8_t e[32];
            char hex[64];
            snprintf(hex, sizeof hex, "0000 00 %02x%02x%02x%02x00 6100 08", '0' + i / 1000 % 10,
                     '0' + i / 100 % 10, '0' + i / 10 % 10, '0' + i % 10);
            uint32_t k = tl_bytes(hex, e);
            assert_int_equal(gcev_etl_tl_schema_get(c, e, k, &sch, &msg), GCEV_OK);
            if (round == 0) {
                first[i] = sch->fields;
                assert_int_equal(sch->event_name[3], '0' + i % 10);
            } else {
                assert_ptr_equal(sch->fields, first[i]);
                assert_int_equal(sch->event_name[3], '0' + i % 10);
            }
        }
    }
    gcev_etl_tl_cache_destroy(c);
    /* the provider-traits name: too short, no room for a name, no terminator */
    static const uint8_t traits_short[2] = {2, 0}, traits_empty[3] = {2, 0, 'A'},
                         traits_open[4] = {4, 0, 'A', 'B'};
    assert_null(gcev_etl_tl_provider_name(traits_short, 2));
    assert_null(gcev_etl_tl_provider_name(traits_empty, 3));
    assert_null(gcev_etl_tl_provider_name(traits_open, 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_etl_tracelogging_schema_errors_name_the_cause),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
