/* SPDX-License-Identifier: MIT */
/*
 * The metric tables (gcev_stats.h, "Metric tables") against the records they describe:
 * - every byte of each public record belongs to exactly one entry (entries that read a member
 *   another owns are GCEV_STATS_M_DERIVED and must read owned bytes), or is alignment padding,
 *   as much as the record's documented padding below: a member added without an entry fails;
 * - every present bit (and every GC flag) is some entry's presence or mask;
 * - every entry has a key, a definition, a known unit; names where the type needs them; each
 *   group is opened by an OBJECT entry before its members; paths are unique (metric_find);
 * - gcev_stats_value() reads what the struct holds, presence rules included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include <gcev/gcev_stats.h>

static const size_t record_size[GCEV_STATS_KINDS] = {
    sizeof(gcev_stats_gc),          sizeof(gcev_stats_gen_heap), sizeof(gcev_stats_heap),
    sizeof(gcev_stats_gen_summary), sizeof(gcev_stats_gcstats),  sizeof(gcev_stats_process),
    sizeof(gcev_stats_summary)};

/*
 * Bytes of each record that no member holds: alignment padding of the LP64 layout (x86-64,
 * AArch64), checked there. gc 111: 7 after each of the 10 marks' uint8_t present, 4 after each
 * committed's version, and the gaps before 8-byte members (after nested_in, suspensions,
 * pinned_events, heap_histories, loh_compact_heaps, global_reason..., phase_present, bgc_phase,
 * ...); gen_heap 4 (after present); heap 22; gen_summary 4 (after
 * generation); gcstats 2; process 8; summary 19. A new member moves these: give it its entry and
 * update the number.
 */
static const size_t documented_padding[GCEV_STATS_KINDS] = {111, 4, 22, 4, 2, 8, 19};

static int present_offset(unsigned kind, size_t *off)
{
    switch (kind) {
    case GCEV_STATS_KIND_GC:
        *off = offsetof(gcev_stats_gc, present);
        return 1;
    case GCEV_STATS_KIND_GEN_HEAP:
        *off = offsetof(gcev_stats_gen_heap, present);
        return 1;
    case GCEV_STATS_KIND_HEAP:
        *off = offsetof(gcev_stats_heap, present);
        return 1;
    case GCEV_STATS_KIND_GCSTATS:
        *off = offsetof(gcev_stats_gcstats, present);
        return 1;
    case GCEV_STATS_KIND_SUMMARY:
        *off = offsetof(gcev_stats_summary, present);
        return 1;
    default:
        return 0;
    }
}

/* every bit the header defines for the kind's present mask */
static const uint64_t all_present_bits[GCEV_STATS_KINDS] = {
    (UINT64_C(1) << 49) - 1, (1u << 11) - 1, 0xf, 0, 0xf, 0, 0x1f};

static void test_every_byte_of_each_record_has_one_entry(void **state)
{
    (void)state;
    for (unsigned k = 0; k < GCEV_STATS_KINDS; k++) {
        size_t n = record_size[k];
        unsigned char *owner = calloc(n, 1);
        size_t count = gcev_stats_metric_count(k);
        assert_true(count > 0);
        for (size_t i = 0; i < count; i++) {
            const gcev_stats_metric *m = gcev_stats_metric_at(k, i);
            if (m->size == 0 || (m->flags & GCEV_STATS_M_DERIVED)) {
                continue;
            }
            assert_true(m->offset + m->size <= n);
            for (uint32_t b = m->offset; b < m->offset + m->size; b++) {
                if (owner[b]) {
                    fprintf(stderr, "%s: byte %u of `%s` already belongs to another entry\n",
                            gcev_stats_kind_name(k), b, m->key);
                    fail();
                }
                owner[b] = 1;
            }
        }
        for (size_t i = 0; i < count; i++) {
            const gcev_stats_metric *m = gcev_stats_metric_at(k, i);
            for (uint32_t b = m->offset; (m->flags & GCEV_STATS_M_DERIVED) && b < m->offset + m->size; b++) {
                assert_true(owner[b]); /* a derived value reads a member an entry owns */
            }
            if (m->pres_size) {
                assert_true(m->pres_offset + m->pres_size <= n);
                assert_true(owner[m->pres_offset]);
            }
            if (m->cond_size) {
                assert_true(owner[m->cond_offset]);
            }
        }
        size_t pad = 0, run = 0;
        for (size_t b = 0; b < n; b++) {
            if (!owner[b]) {
                pad++;
                run++;
                if (run >= 8) { /* not alignment padding: a member without an entry */
                    fprintf(stderr, "%s: bytes %zu.. belong to no entry\n", gcev_stats_kind_name(k),
                            b + 1 - run);
                    fail();
                }
            } else {
                run = 0;
            }
        }
        if (UINTPTR_MAX > 0xffffffffu && pad != documented_padding[k]) {
            fprintf(stderr, "%s: %zu bytes of padding, documented %zu (a member without an entry?)\n",
                    gcev_stats_kind_name(k), pad, documented_padding[k]);
            for (size_t b = 0; b < n; b++) {
                if (!owner[b]) {
                    fprintf(stderr, " %zu", b);
                }
            }
            fputc('\n', stderr);
            fail();
        }
        free(owner);
    }
}

static void test_every_present_bit_and_flag_is_an_entrys(void **state)
{
    (void)state;
    for (unsigned k = 0; k < GCEV_STATS_KINDS; k++) {
        size_t off;
        if (!present_offset(k, &off)) {
            continue;
        }
        uint64_t seen = 0;
        for (size_t i = 0; i < gcev_stats_metric_count(k); i++) {
            const gcev_stats_metric *m = gcev_stats_metric_at(k, i);
            if (m->pres_size && m->pres_offset == off) {
                seen |= m->pres_bits | m->inf_bits;
            }
        }
        if (seen != all_present_bits[k]) {
            fprintf(stderr, "%s: present bits %#llx are no entry's\n", gcev_stats_kind_name(k),
                    (unsigned long long)(all_present_bits[k] & ~seen));
        }
        assert_true(seen == all_present_bits[k]);
    }
    uint64_t flags = 0;
    for (size_t i = 0; i < gcev_stats_metric_count(GCEV_STATS_KIND_GC); i++) {
        const gcev_stats_metric *m = gcev_stats_metric_at(GCEV_STATS_KIND_GC, i);
        if (m->type == GCEV_STATS_T_BOOL && m->offset == offsetof(gcev_stats_gc, flags)) {
            flags |= m->mask;
        }
    }
    assert_true(flags == (GCEV_STATS_GC_INCOMPLETE | GCEV_STATS_GC_SHARED_SUSPENSION |
                          GCEV_STATS_GC_COMPLETE | GCEV_STATS_GC_HEAPS_DROPPED | GCEV_STATS_GC_PINS_DROPPED));
}

static void test_every_entry_is_described(void **state)
{
    (void)state;
    size_t total = 0;
    for (unsigned k = 0; k < GCEV_STATS_KINDS; k++) {
        assert_non_null(gcev_stats_kind_name(k));
        for (size_t i = 0; i < gcev_stats_metric_count(k); i++) {
            const gcev_stats_metric *m = gcev_stats_metric_at(k, i);
            assert_int_equal(m->kind, k);
            assert_non_null(m->key);
            assert_true(m->key[0] != '\0');
            assert_non_null(m->definition);
            assert_true(m->definition[0] != '\0');
            assert_non_null(gcev_stats_unit_name(m->unit));
            assert_true(m->type <= GCEV_STATS_T_ARRAY);
            if (m->type == GCEV_STATS_T_ENUM && (m->flags & GCEV_STATS_M_NAME)) {
                assert_non_null(m->name);
            }
            if (m->type == GCEV_STATS_T_BITS || m->type == GCEV_STATS_T_COUNTS) {
                assert_non_null(m->name);
            }
            if (m->type == GCEV_STATS_T_F64) {
                assert_true(m->decimals == -1 || m->decimals == 0 || m->decimals == 3);
                assert_int_equal(m->size, sizeof(double));
            }
            if (m->type == GCEV_STATS_T_RECORD || m->type == GCEV_STATS_T_RECORDS ||
                (m->type == GCEV_STATS_T_ARRAY && m->elem_kind >= 0)) {
                assert_true(m->elem_kind >= -1 && m->elem_kind < GCEV_STATS_KINDS);
            }
            /* its path finds it */
            char path[160];
            snprintf(path, sizeof path, "%s%s%s", m->group ? m->group : "", m->group ? "." : "", m->key);
            assert_ptr_equal(gcev_stats_metric_find(k, path), m);
            /* its group was opened before it */
            if (m->group) {
                int opened = 0;
                for (size_t j = 0; j < i; j++) {
                    const gcev_stats_metric *o = gcev_stats_metric_at(k, j);
                    char op[160];
                    snprintf(op, sizeof op, "%s%s%s", o->group ? o->group : "", o->group ? "." : "", o->key);
                    opened |= o->type == GCEV_STATS_T_OBJECT && !strcmp(op, m->group);
                }
                assert_true(opened);
            }
            total++;
        }
        printf("%s: %zu entries\n", gcev_stats_kind_name(k), gcev_stats_metric_count(k));
    }
    assert_null(gcev_stats_metric_at(GCEV_STATS_KINDS, 0));
    assert_int_equal(gcev_stats_metric_count(GCEV_STATS_KINDS), 0);
    assert_null(gcev_stats_metric_find(GCEV_STATS_KIND_GC, "no_such_key"));
    assert_null(gcev_stats_metric_find(GCEV_STATS_KIND_GC, NULL));
    printf("%zu entries in all\n", total);
}

static void test_value_reads_the_record(void **state)
{
    (void)state;
    gcev_stats_gc g;
    memset(&g, 0, sizeof g);
    g.number = 7;
    g.reason = 1;
    g.pause_ms = 1.5;
    g.heap_count = 4;
    g.loh_compact_time_plan = 9;
    g.marks[3].present = 1;
    g.marks[3].bytes = 123;
    g.global_mechanisms = 2 | 4;
    g.flags = GCEV_STATS_GC_COMPLETE;
    gcev_stats_val v;
    const gcev_stats_metric *m;
    assert_true(gcev_stats_value(&g, gcev_stats_metric_find(GCEV_STATS_KIND_GC, "number"), &v));
    assert_int_equal(v.u, 7);
    m = gcev_stats_metric_find(GCEV_STATS_KIND_GC, "reason");
    assert_false(gcev_stats_value(&g, m, &v)); /* HAS_REASON clear: absent */
    g.present = GCEV_STATS_GC_HAS_REASON | GCEV_STATS_GC_HAS_PAUSE | GCEV_STATS_GC_HAS_HEAP_COUNT |
                GCEV_STATS_GC_HAS_LOH_COMPACT | GCEV_STATS_GC_HAS_MECHANISMS | GCEV_STATS_GC_HAS_MARKS;
    assert_true(gcev_stats_value(&g, m, &v));
    assert_int_equal(v.u, 1);
    assert_string_equal(v.name, gcev_gc_reason_name(1));
    assert_true(gcev_stats_value(&g, gcev_stats_metric_find(GCEV_STATS_KIND_GC, "pause_ms"), &v));
    assert_true(v.f == 1.5);
    assert_true(gcev_stats_value(&g, gcev_stats_metric_find(GCEV_STATS_KIND_GC, "heap_count"), &v));
    assert_int_equal(v.i, 4);
    assert_true(
        gcev_stats_value(&g, gcev_stats_metric_find(GCEV_STATS_KIND_GC, "loh_compact.time_plan_us"), &v));
    assert_int_equal(v.u, 9);
    assert_true(gcev_stats_value(&g, gcev_stats_metric_find(GCEV_STATS_KIND_GC, "marks.Older.bytes"), &v));
    assert_int_equal(v.u, 123);
    assert_false(gcev_stats_value(&g, gcev_stats_metric_find(GCEV_STATS_KIND_GC, "marks.Stack.bytes"), &v));
    assert_true(gcev_stats_value(&g, gcev_stats_metric_find(GCEV_STATS_KIND_GC, "compacting"), &v));
    assert_int_equal(v.u, 1);
    assert_true(gcev_stats_value(&g, gcev_stats_metric_find(GCEV_STATS_KIND_GC, "complete"), &v));
    assert_int_equal(v.u, 1);
    assert_false(gcev_stats_value(&g, gcev_stats_metric_find(GCEV_STATS_KIND_GC, "incomplete"), &v));
    assert_true(gcev_stats_value(&g, gcev_stats_metric_find(GCEV_STATS_KIND_GC, "label"), &v));
    assert_true(v.text[0] != '\0');
    assert_false(gcev_stats_value(NULL, m, &v));
    assert_false(gcev_stats_value(&g, NULL, &v));
    /* TraceEvent's Infinity (--compat traceevent) */
    gcev_stats_gen_heap h;
    memset(&h, 0, sizeof h);
    m = gcev_stats_metric_find(GCEV_STATS_KIND_GEN_HEAP, "fragmentation_percent");
    assert_false(gcev_stats_value(&h, m, &v));
    h.present = GCEV_STATS_HEAP_FRAG_PERCENT_INFINITE;
    assert_true(gcev_stats_value(&h, m, &v));
    assert_true(isinf(v.f) && v.f > 0);
    h.present = GCEV_STATS_HEAP_HAS_FRAG_PERCENT;
    h.fragmentation_percent = 12.5;
    assert_true(gcev_stats_value(&h, m, &v));
    assert_true(v.f == 12.5);
    /* a summary: present when its count is not 0 */
    gcev_stats_gen_summary s;
    memset(&s, 0, sizeof s);
    s.pause_total_ms = 3;
    m = gcev_stats_metric_find(GCEV_STATS_KIND_GEN_SUMMARY, "pause_total_ms");
    assert_false(gcev_stats_value(&s, m, &v));
    s.pause_count = 1;
    assert_true(gcev_stats_value(&s, m, &v));
    assert_true(v.f == 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_byte_of_each_record_has_one_entry),
        cmocka_unit_test(test_every_present_bit_and_flag_is_an_entrys),
        cmocka_unit_test(test_every_entry_is_described),
        cmocka_unit_test(test_value_reads_the_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
