/* SPDX-License-Identifier: MIT */
/*
 * Schema look-ups over the generated tables (src/schema): maps (value maps by
 * binary search, bitmaps with their first and last flags), provider look-up by
 * name, version resolution, and what the generator put in the tables
 * (keywords, levels, opcodes, widened fields).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev.h>

#include "gcev_schema_desc.h" /* a hand-made map with a zero entry */

static void test_schema_bitmap_first_and_last_flags_are_named(void **state)
{
    (void)state;
    char t[128];
    /* GCRootFlagsMap: Pinning 0x1 ... RefCounted 0x8 (the last entry) */
    assert_int_equal(gcev_gc_root_flags_map_format(0x8, t, sizeof t), strlen("RefCounted"));
    assert_string_equal(t, "RefCounted");
    gcev_gc_root_flags_map_format(0xF, t, sizeof t);
    assert_string_equal(t, "Pinning|WeakRef|Interior|RefCounted");
    gcev_gc_root_flags_map_format(0x1, t, sizeof t);
    assert_string_equal(t, "Pinning");
    gcev_gc_root_flags_map_format(0x18, t, sizeof t);
    assert_string_equal(t, "RefCounted|0x10");
    /* TypeFlagsMap: ArrayRankBit5 0x2000 is the last */
    gcev_type_flags_map_format(0x2000 | 0x1, t, sizeof t);
    assert_string_equal(t, "Delegate|ArrayRankBit5");
    /* a one-entry bitmap: its only flag is both first and last */
    gcev_gc_root_static_var_flags_map_format(0x1, t, sizeof t);
    assert_string_equal(t, "ThreadLocal");
    gcev_gc_root_static_var_flags_map_format(0x3, t, sizeof t);
    assert_string_equal(t, "ThreadLocal|0x2");
}

static void test_schema_bitmap_zero_entry_names_only_zero(void **state)
{
    (void)state;
    static const gcev_map_entry entries[] = {{0, "None"}, {1, "A"}, {4, "C"}};
    static const gcev_map m = {"Test", 1, 3, entries};
    char t[64];
    gcev_map_format(&m, 0, t, sizeof t);
    assert_string_equal(t, "None");
    gcev_map_format(&m, 5, t, sizeof t);
    assert_string_equal(t, "A|C");
    gcev_map_format(&m, 2, t, sizeof t);
    assert_string_equal(t, "0x2");
    assert_int_equal(gcev_map_format(NULL, 42, t, sizeof t), 2);
    assert_string_equal(t, "42");
}

static void test_schema_value_map_finds_every_entry_and_no_other(void **state)
{
    (void)state;
    /* GCReasonMap 0..9 are all named; a binary search error would miss some */
    static const char *const reasons[] = {"AllocSmall",
                                          "Induced",
                                          "LowMemory",
                                          "Empty",
                                          "AllocLarge",
                                          "OutOfSpaceSmallObjectHeap",
                                          "OutOfSpaceLargeObjectHeap",
                                          "InducedNoForce",
                                          "Stress",
                                          "InducedLowMemory"};
    for (uint32_t v = 0; v < 10; v++) {
        const char *n = gcev_gc_reason_map_name(v);
        assert_non_null(n);
        assert_string_equal(n, reasons[v]);
    }
    assert_null(gcev_gc_reason_map_name(10));
    assert_null(gcev_gc_reason_map_name(UINT32_MAX));
    assert_null(gcev_map_name(NULL, 0));
    /* a value map formats as its name, else the number */
    char t[32];
    gcev_map_format(&gcev_gc_reason_map, 1, t, sizeof t);
    assert_string_equal(t, "Induced");
    gcev_map_format(&gcev_gc_reason_map, 99, t, sizeof t);
    assert_string_equal(t, "99");
    /* v above 32 bits is never a map value */
    assert_null(gcev_map_name(&gcev_gc_reason_map, UINT64_C(0x100000001)));
}

static void test_schema_provider_name_must_match_whole(void **state)
{
    (void)state;
    assert_ptr_equal(gcev_provider_find("Microsoft-Windows-DotNETRuntimePrivate"), &gcev_provider_private);
    assert_ptr_equal(gcev_provider_find("MICROSOFT-WINDOWS-DOTNETRUNTIMERUNDOWN"), &gcev_provider_rundown);
    assert_null(gcev_provider_find("Microsoft-Windows-DotNETRuntimeX"));
    assert_null(gcev_provider_find("Microsoft-Windows-DotNETRuntim"));
    assert_null(gcev_provider_find(""));
    assert_null(gcev_provider_find(NULL));
    assert_null(gcev_provider_find_guid(NULL));
    size_t n = 0;
    const gcev_provider *const *all = gcev_providers(&n);
    assert_true(n >= 5);
    for (size_t i = 0; i < n; i++) {
        gcev_provider_info info;
        assert_int_equal(gcev_provider_get_info(all[i], &info), GCEV_OK);
        assert_ptr_equal(gcev_provider_find(info.name), all[i]);
    }
}

static gcev_event_info info_of(uint16_t id, uint16_t version)
{
    gcev_status st;
    gcev_event_info info;
    const gcev_event_desc *d = gcev_event_desc_resolve(&gcev_provider_runtime, id, version, &st);
    assert_non_null(d);
    assert_int_equal(gcev_event_get_info(d, &info), GCEV_OK);
    return info;
}

static void test_schema_descriptors_keep_every_keyword_and_the_level(void **state)
{
    (void)state;
    /* GCCreateConcurrentThread_V1: keywords="GCKeyword ThreadingKeyword" */
    gcev_event_info d = info_of(11, 1);
    assert_true(d.keywords == (UINT64_C(0x1) | UINT64_C(0x10000)));
    assert_string_equal(d.keyword_names, "GCKeyword ThreadingKeyword");
    /* GCAllocationTick_V4: Verbose; GCStart_V2: Informational, opcode win:Start */
    d = info_of(10, 4);
    assert_int_equal(d.level, 5);
    d = info_of(1, 2);
    assert_int_equal(d.level, 4);
    assert_int_equal(d.opcode, 1);
    assert_true(d.keywords == UINT64_C(0x1));
    assert_string_equal(d.task_name, "GarbageCollection");
}

static void test_schema_version_resolution_exact_newer_and_unknown(void **state)
{
    (void)state;
    gcev_status st;
    const gcev_event_desc *v1 = gcev_event_desc_resolve(&gcev_provider_runtime, 1, 1, &st);
    assert_int_equal(st, GCEV_OK);
    gcev_event_info info;
    assert_int_equal(gcev_event_get_info(v1, &info), GCEV_OK);
    assert_int_equal(info.version, 1);
    const gcev_event_desc *v2 = gcev_event_desc_resolve(&gcev_provider_runtime, 1, 2, &st);
    assert_int_equal(gcev_event_get_info(v2, &info), GCEV_OK);
    assert_int_equal(info.version, 2);
    /* above the newest known: the newest */
    assert_ptr_equal(gcev_event_desc_resolve(&gcev_provider_runtime, 1, 3, &st), v2);
    assert_int_equal(st, GCEV_OK);
    assert_ptr_equal(gcev_event_desc_resolve(&gcev_provider_runtime, 1, 65535, &st), v2);
    /* GCJoin_V2 (203) only exists as version 2: 0 and 1 are unknown */
    assert_null(gcev_event_desc_resolve(&gcev_provider_runtime, 203, 1, &st));
    assert_int_equal(st, GCEV_E_UNKNOWN_VERSION);
    assert_null(gcev_event_desc_resolve(&gcev_provider_runtime, 24, 0, &st));
    assert_int_equal(st, GCEV_E_UNKNOWN_EVENT);
    assert_null(gcev_event_desc_resolve(&gcev_provider_runtime, 65535, 0, &st));
    assert_int_equal(st, GCEV_E_UNKNOWN_EVENT);
    assert_null(gcev_event_desc_resolve(NULL, 1, 0, &st));
    assert_int_equal(st, GCEV_E_UNKNOWN_PROVIDER);
    assert_null(gcev_event_desc_resolve(NULL, 1, 0, NULL));
}

/* GCEnd Depth: UInt16 in V0, UInt32 in V1: the family member takes the widest type. */
static void test_schema_widened_field_keeps_wide_member(void **state)
{
    (void)state;
    gcev_gc_end e;
    uint8_t p[10] = {7, 0, 0, 0, 0x01, 0x00, 0x02, 0x00, 0, 0};
    assert_int_equal(gcev_decode_gc_end(p, sizeof p, 1, 8, &e, NULL, NULL), GCEV_OK);
    assert_int_equal(e.depth, 0x20001);
    assert_int_equal(sizeof e.depth, 4);
    const gcev_family_info *fam = gcev_family_get(GCEV_FAMILY_GC_END);
    assert_non_null(fam);
    assert_string_equal(fam->name, "GCEnd");
    assert_string_equal(fam->cname, "gc_end");
    assert_int_equal(fam->struct_size, sizeof(gcev_gc_end));
    assert_null(gcev_family_get(0));
    assert_null(gcev_family_get(GCEV_FAMILY_COUNT_));
    assert_string_equal(gcev_type_name(GCEV_T_POINTER), "win:Pointer");
    assert_string_equal(gcev_type_name(GCEV_TYPE_COUNT_), "unknown");
}

/* Every entry of the maps of t (and of its struct arrays' elements), through the public API. */
static size_t check_maps_of(const gcev_template *t)
{
    size_t maps = 0;
    gcev_field_info f;
    for (size_t i = 0; i < gcev_template_field_count(t); i++) {
        assert_int_equal(gcev_template_field(t, i, &f), GCEV_OK);
        if (f.elem) {
            maps += check_maps_of(f.elem);
        }
        if (!f.map) {
            continue;
        }
        maps++;
        gcev_map_info mi;
        assert_int_equal(gcev_map_get_info(f.map, &mi), GCEV_OK);
        assert_true(mi.count > 0);
        uint32_t prev = 0, v;
        const char *name;
        for (size_t k = 0; k < mi.count; k++) {
            assert_int_equal(gcev_map_entry_at(f.map, k, &v, &name), GCEV_OK);
            assert_true(name && name[0]);
            assert_true(k == 0 || v > prev); /* sorted, no value twice */
            if (!mi.is_bitmap) {
                assert_string_equal(gcev_map_name(f.map, v), name);
            }
            prev = v;
        }
        assert_int_equal(gcev_map_entry_at(f.map, mi.count, &v, &name), GCEV_E_INVALID_ARG);
        assert_int_equal(gcev_map_entry_at(f.map, 0, NULL, &name), GCEV_E_INVALID_ARG);
        assert_int_equal(gcev_map_entry_at(f.map, 0, &v, NULL), GCEV_E_INVALID_ARG);
    }
    assert_int_equal(gcev_template_field(t, gcev_template_field_count(t), &f), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_template_field(t, 0, NULL), GCEV_E_INVALID_ARG);
    return maps;
}

/* gcev_map_entry_at over every map every template of every provider uses: each entry in
 * value order with a name (a value map's own look-up agreeing), and the bad arguments. */
static void test_schema_every_map_entry_is_listed_sorted_and_named(void **state)
{
    (void)state;
    size_t np = 0, maps = 0;
    const gcev_provider *const *ps = gcev_providers(&np);
    for (size_t p = 0; p < np; p++) {
        gcev_provider_info pi;
        assert_int_equal(gcev_provider_get_info(ps[p], &pi), GCEV_OK);
        for (size_t e = 0; e < pi.event_count; e++) {
            gcev_event_info ei;
            assert_int_equal(gcev_event_get_info(gcev_provider_event_at(ps[p], e), &ei), GCEV_OK);
            if (ei.fields) {
                maps += check_maps_of(ei.fields);
            }
        }
    }
    assert_true(maps > 0);
    uint32_t v;
    const char *name;
    gcev_map_info mi;
    assert_int_equal(gcev_map_entry_at(NULL, 0, &v, &name), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_map_get_info(NULL, &mi), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_template_field(NULL, 0, NULL), GCEV_E_INVALID_ARG);
    /* the other introspection calls on no provider, event or template */
    gcev_provider_info pi;
    gcev_event_info ei;
    assert_int_equal(gcev_provider_get_info(NULL, &pi), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_provider_get_info(ps[0], NULL), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_provider_get_info(ps[0], &pi), GCEV_OK);
    assert_null(gcev_provider_event_at(NULL, 0));
    assert_null(gcev_provider_event_at(ps[0], pi.event_count));
    assert_int_equal(gcev_event_get_info(NULL, &ei), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_event_get_info(gcev_provider_event_at(ps[0], 0), NULL), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_template_struct_size(NULL), 0);
    assert_int_equal(gcev_template_field_count(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_every_map_entry_is_listed_sorted_and_named),
        cmocka_unit_test(test_schema_bitmap_first_and_last_flags_are_named),
        cmocka_unit_test(test_schema_bitmap_zero_entry_names_only_zero),
        cmocka_unit_test(test_schema_value_map_finds_every_entry_and_no_other),
        cmocka_unit_test(test_schema_provider_name_must_match_whole),
        cmocka_unit_test(test_schema_descriptors_keep_every_keyword_and_the_level),
        cmocka_unit_test(test_schema_version_resolution_exact_newer_and_unknown),
        cmocka_unit_test(test_schema_widened_field_keeps_wide_member),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
