/* SPDX-License-Identifier: MIT */
/*
 * gcev_stats_names.c: the names of the analysis' enumerations, PerfView's GC label, and
 * CondemnReasons0/1 decoded per GCPerHeapHistory version.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>
#include <gcev/gcev_stats.h>
#include <gcev/gcev_writer.h>

#include "gcev_stats_internal.h" /* gcev_stats_decode_condemned */
#include "testutil.h"
#include "stats_sink.h"

/* Every name function: a distinct name for each value of its range, NULL past it. */
static void test_stats_names_are_distinct_and_null_past_their_range(void **state)
{
    (void)state;
    typedef const char *(*name_fn)(unsigned);
    static const struct {
        name_fn fn;
        unsigned count;
    } fns[] = {
        {gcev_stats_gen_name, GCEV_STATS_GENS},
        {gcev_stats_phase_name, GCEV_STATS_PHASES},
        {gcev_stats_bgc_event_name, GCEV_STATS_BGC_EVENTS},
        {gcev_stats_condemned_group_name, GCEV_STATS_CONDEMNED_GROUPS},
        {gcev_stats_global_mechanism_name, 6},
    };
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        for (unsigned i = 0; i < fns[f].count; i++) {
            const char *a = fns[f].fn(i);
            assert_non_null(a);
            for (unsigned j = 0; j < i; j++) {
                assert_string_not_equal(a, fns[f].fn(j));
            }
        }
        assert_null(fns[f].fn(fns[f].count));
    }
    for (uint32_t t = 0; t < 3; t++) {
        assert_non_null(gcev_stats_gc_type_name(t));
    }
    assert_null(gcev_stats_gc_type_name(3));
}

/* PerfView's GC label: generation, then N/B/F for the type, then I (induced) or i (induced,
 * not forced); what the GC does not carry is left out. */
static void test_stats_gc_label_names_generation_type_and_induced(void **state)
{
    (void)state;
    static const struct {
        uint64_t present;
        uint32_t type, reason, gen;
        const char *want;
    } cases[] = {
        {0, GCEV_STATS_BACKGROUND, 1, 2, "2"},
        {GCEV_STATS_GC_HAS_TYPE, GCEV_STATS_BLOCKING, 0, 0, "0N"},
        {GCEV_STATS_GC_HAS_TYPE, GCEV_STATS_BACKGROUND, 0, 2, "2B"},
        {GCEV_STATS_GC_HAS_TYPE, GCEV_STATS_FOREGROUND, 0, 1, "1F"},
        {GCEV_STATS_GC_HAS_TYPE, 9, 0, 1, "1"},
        {GCEV_STATS_GC_HAS_TYPE | GCEV_STATS_GC_HAS_REASON, GCEV_STATS_BLOCKING, 1, 0, "0NI"},
        {GCEV_STATS_GC_HAS_REASON, 0, 7, 2, "2i"},
        {GCEV_STATS_GC_HAS_REASON, 0, 3, 2, "2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gcev_stats_gc g;
        memset(&g, 0, sizeof g);
        g.present = cases[i].present;
        g.type = cases[i].type;
        g.reason = cases[i].reason;
        g.generation = cases[i].gen;
        char buf[16];
        assert_int_equal(gcev_stats_gc_label(&g, buf, sizeof buf), strlen(cases[i].want));
        assert_string_equal(buf, cases[i].want);
    }
    char buf[4] = "xyz";
    assert_int_equal(gcev_stats_gc_label(NULL, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    assert_int_equal(gcev_stats_gc_label(NULL, NULL, 0), 0);
}

/* CondemnReasons decoding: the generation pairs of CondemnReasons0, then the conditions: in
 * version 0 the high 16 bits of CondemnReasons0, from version 2 CondemnReasons1 (when the
 * event has it), version 1 none; conditions without a group set nothing. */
static void test_stats_condemned_reasons_by_history_version(void **state)
{
    (void)state;
    uint8_t g[GCEV_STATS_CONDEMNED_GROUPS];
    /* generations 1, 2, 0, 3 in the low byte; condition 0 (induced) and 2 (high memory) high */
    const uint32_t r0 = 1u | 2u << 2 | 0u << 4 | 3u << 6 | 1u << 16 | 1u << 18;
    gcev_stats_decode_condemned(r0, 0, 0, 0, g);
    assert_int_equal(g[0], 1);
    assert_int_equal(g[1], 2);
    assert_int_equal(g[2], 0);
    assert_int_equal(g[3], 3);
    assert_int_equal(g[4], 1); /* Induced = Blocking */
    gcev_stats_decode_condemned(r0, 1u << 14 | 1u << 11, 1, 2, g);
    assert_int_equal(g[4], 2);                          /* Induced_noforce_p: NotForced */
    assert_int_equal(g[2], 2);                          /* Max_gen1: Alloc_Exceeded = 2 */
    gcev_stats_decode_condemned(r0, 1u << 14, 0, 2, g); /* no CondemnReasons1 */
    assert_int_equal(g[4], 0);
    gcev_stats_decode_condemned(r0, 1u << 14, 1, 1, g); /* version 1: no conditions */
    assert_int_equal(g[4], 0);
    assert_int_equal(g[0], 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_names_are_distinct_and_null_past_their_range),
        cmocka_unit_test(test_stats_gc_label_names_generation_type_and_induced),
        cmocka_unit_test(test_stats_condemned_reasons_by_history_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
