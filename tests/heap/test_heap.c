/* SPDX-License-Identifier: MIT */
/* The heap graph (gcev_heap.h) on hand-made bulk events: shapes whose dominators,
 * retained sizes, roots and paths are known; dumps told apart; damaged and cut dumps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "heap_events.h"

enum { T_A = 0xA0, T_B = 0xB0, T_C = 0xC0, T_D = 0xD0, T_E = 0xE0, T_F = 0xF0 };

static gcev_heap_set *finish(gcev_heap_reader *r)
{
    gcev_heap_set *s = NULL;
    assert_int_equal(gcev_heap_reader_finish(r, NULL, &s), GCEV_OK);
    assert_non_null(s);
    return s;
}

static uint64_t retained_at(gcev_heap *h, uint64_t addr)
{
    uint32_t i = gcev_heap_object_find(h, addr);
    assert_int_not_equal(i, GCEV_HEAP_NONE);
    gcev_heap_object o;
    assert_int_equal(gcev_heap_object_get(h, i, &o), GCEV_OK);
    return o.retained;
}

static uint32_t idom_at(gcev_heap *h, uint64_t addr)
{
    gcev_heap_object o;
    assert_int_equal(gcev_heap_object_get(h, gcev_heap_object_find(h, addr), &o), GCEV_OK);
    return o.idom;
}

/*
 * root(stack) -> A; A -> B, C; B -> D; C -> D; D -> E; E -> A (a cycle); F unreachable;
 * sizes A 10, B 20, C 30, D 40, E 50, F 5. Dominators: A by the roots, B C D by A, E by D.
 */
static void write_diamond(gcev_heap_reader *r, hev_buf *w, uint32_t pid, uint32_t gc, double t0, int types)
{
    if (types) {
        hev_type(r, w, T_A, "App.Node`1[System.String]", pid, t0);
        hev_type(r, w, T_B, "App.Left", pid, t0);
        hev_type(r, w, T_C, "App.Right", pid, t0);
        hev_type(r, w, T_D, "System.Int32[]", pid, t0);
        hev_type(r, w, T_E, "App.Leaf", pid, t0);
    }
    hev_gc(r, w, 1, gc, pid, t0 + 1);
    hev_node n[] = {{0x100, 10, T_A, 2}, {0x200, 20, T_B, 1}, {0x300, 30, T_C, 1},
                    {0x400, 40, T_D, 1}, {0x500, 50, T_E, 1}, {0x600, 5, T_F, 0}};
    hev_nodes(r, w, 0, n, 6, pid, t0 + 2);
    uint64_t e[] = {0x200, 0x300, 0x400, 0x400, 0x500, 0x100};
    hev_edges(r, w, 0, e, 6, pid, t0 + 3);
    hev_root(r, w, 0, 0x100, 0, 0, pid, t0 + 4);
    hev_gc(r, w, 0, gc, pid, t0 + 5);
}

static void test_heap_diamond_dominators_and_retained(void **state)
{
    (void)state;
    gcev_heap_reader *r;
    hev_buf w = {0};
    assert_int_equal(gcev_heap_reader_new(&r), GCEV_OK);
    write_diamond(r, &w, 7, 3, 0, 1);
    gcev_heap_set *s = finish(r);
    assert_int_equal(gcev_heap_set_count(s), 1);
    gcev_heap *h = gcev_heap_set_at(s, 0);
    const gcev_heap_info *in = gcev_heap_get_info(h);
    assert_int_equal(in->flags, 0);
    assert_int_equal(in->objects, 6);
    assert_int_equal(in->bytes, 155);
    assert_int_equal(in->references, 6);
    assert_int_equal(in->roots, 1);
    assert_int_equal(in->gc_number, 3);
    assert_int_equal(in->unknown_types, 1); /* T_F was never named */
    assert_int_equal(gcev_heap_analyze(h), GCEV_OK);
    assert_int_equal(in->unreachable_objects, 1);
    assert_int_equal(in->unreachable_bytes, 5);
    assert_int_equal(retained_at(h, 0x100), 150);
    assert_int_equal(retained_at(h, 0x200), 20);
    assert_int_equal(retained_at(h, 0x300), 30);
    assert_int_equal(retained_at(h, 0x400), 90);
    assert_int_equal(retained_at(h, 0x500), 50);
    assert_int_equal(retained_at(h, 0x600), 5);
    uint32_t a = gcev_heap_object_find(h, 0x100), d = gcev_heap_object_find(h, 0x400);
    assert_int_equal(idom_at(h, 0x100), GCEV_HEAP_NONE);
    assert_int_equal(idom_at(h, 0x200), a);
    assert_int_equal(idom_at(h, 0x400), a);
    assert_int_equal(idom_at(h, 0x500), d);
    /* the type table: names as dotnet-gcdump shows them, bytes order */
    gcev_heap_type t;
    assert_int_equal(gcev_heap_type_get(h, 0, &t), GCEV_OK);
    assert_string_equal(t.name, "App.Leaf");
    assert_int_not_equal(gcev_heap_type_find(h, "App.Node<System.String>"), GCEV_HEAP_NONE);
    assert_int_not_equal(gcev_heap_type_find(h, "System.Int32[]"), GCEV_HEAP_NONE);
    assert_int_not_equal(gcev_heap_type_find(h, "UNKNOWN 0xf0"), GCEV_HEAP_NONE);
    assert_int_equal(gcev_heap_type_get(h, gcev_heap_type_find(h, "System.Int32[]"), &t), GCEV_OK);
    assert_int_equal(t.retained, 90);
    /* the shortest path to E: A -> B -> D -> E (B before C: the runtime's order) */
    uint32_t path[8];
    size_t len, root;
    assert_int_equal(gcev_heap_path(h, gcev_heap_object_find(h, 0x500), path, 8, &len, &root), GCEV_OK);
    assert_int_equal(len, 4);
    assert_int_equal(path[0], a);
    assert_int_equal(path[3], gcev_heap_object_find(h, 0x500));
    gcev_heap_root rt;
    assert_int_equal(gcev_heap_root_get(h, root, &rt), GCEV_OK);
    assert_int_equal(rt.kind, GCEV_HEAP_ROOT_STACK);
    assert_int_equal(gcev_heap_path(h, gcev_heap_object_find(h, 0x600), path, 8, &len, &root), GCEV_OK);
    assert_int_equal(len, 0);
    uint32_t top[3];
    assert_int_equal(gcev_heap_top_retainers(h, top, 3), 3);
    assert_int_equal(top[0], a);
    assert_int_equal(top[1], d);
    gcev_heap_set_free(s);
    free(w.b);
}

/* a second root on C: D is then dominated by the roots alone; a weak handle keeps nothing;
 * a CWT element makes its value live through its key; a static names its field. */
static void test_heap_roots_kinds_cwt_static(void **state)
{
    (void)state;
    gcev_heap_reader *r;
    hev_buf w = {0};
    assert_int_equal(gcev_heap_reader_new(&r), GCEV_OK);
    hev_gc(r, &w, 1, 1, 1, 0);
    hev_node n[] = {{0x100, 10, T_A, 2}, {0x200, 20, T_B, 1}, {0x300, 30, T_C, 1},
                    {0x400, 40, T_D, 0}, {0x700, 70, T_E, 0}, {0x800, 80, T_F, 0}};
    hev_nodes(r, &w, 0, n, 6, 1, 1);
    uint64_t e[] = {0x200, 0x300, 0x400, 0x400};
    hev_edges(r, &w, 0, e, 4, 1, 2);
    hev_root(r, &w, 0, 0x100, 0, 0, 1, 3);
    hev_root(r, &w, 1, 0x300, 2, 0x1, 1, 3); /* pinned handle */
    hev_root(r, &w, 2, 0x800, 2, 0x2, 1, 3); /* weak handle: no root */
    hev_cwt(r, &w, 0x200, 0x700, 1, 4);      /* key B keeps E */
    hev_static(r, &w, 0x100, T_A, "s_root", 1, 4);
    hev_gc(r, &w, 0, 1, 1, 5);
    gcev_heap_set *s = finish(r);
    gcev_heap *h = gcev_heap_set_at(s, 0);
    assert_int_equal(gcev_heap_analyze(h), GCEV_OK);
    const gcev_heap_info *in = gcev_heap_get_info(h);
    assert_int_equal(in->roots, 3);
    assert_int_equal(in->unreachable_objects, 1); /* F: weakly held only */
    assert_int_equal(idom_at(h, 0x400), GCEV_HEAP_NONE);
    assert_int_equal(idom_at(h, 0x700), gcev_heap_object_find(h, 0x200));
    assert_int_equal(retained_at(h, 0x200), 90);  /* B and E */
    assert_int_equal(retained_at(h, 0x100), 100); /* A, B, E */
    int kinds[GCEV_HEAP_ROOT_KINDS] = {0};
    for (size_t i = 0; i < gcev_heap_root_count(h); i++) {
        gcev_heap_root rt;
        gcev_heap_root_get(h, i, &rt);
        kinds[rt.kind]++;
        if (rt.kind == GCEV_HEAP_ROOT_STATIC) {
            assert_string_equal(rt.name, "s_root");
        }
    }
    assert_int_equal(kinds[GCEV_HEAP_ROOT_STACK], 1);
    assert_int_equal(kinds[GCEV_HEAP_ROOT_PINNED_HANDLE], 1);
    assert_int_equal(kinds[GCEV_HEAP_ROOT_WEAK], 1);
    assert_int_equal(kinds[GCEV_HEAP_ROOT_CWT], 1);
    assert_int_equal(kinds[GCEV_HEAP_ROOT_STATIC], 1);
    assert_string_equal(gcev_heap_root_kind_name(GCEV_HEAP_ROOT_PINNED_HANDLE), "pinned handle");
    gcev_heap_set_free(s);
    free(w.b);
}

/* two GCs of one process, a third dump of another process: three dumps, never merged;
 * the diff names what grew and a new object's path */
static void test_heap_dumps_apart_and_diff(void **state)
{
    (void)state;
    gcev_heap_reader *r;
    hev_buf w = {0};
    assert_int_equal(gcev_heap_reader_new(&r), GCEV_OK);
    write_diamond(r, &w, 7, 3, 0, 1);
    hev_type(r, &w, T_F, "App.Grown", 7, 9);
    hev_gc(r, &w, 1, 4, 7, 10);
    hev_node n[] = {{0x100, 10, T_A, 3}, {0x900, 8, T_F, 0}, {0x910, 8, T_F, 0}};
    hev_nodes(r, &w, 0, n, 3, 7, 11);
    uint64_t e[] = {0x900, 0x910, 0x100};
    hev_edges(r, &w, 0, e, 3, 7, 12);
    hev_root(r, &w, 0, 0x100, 0, 0, 7, 13);
    write_diamond(r, &w, 8, 1, 5, 0); /* process 8, interleaved in time, no type names */
    hev_gc(r, &w, 0, 4, 7, 14);
    assert_int_equal(gcev_heap_reader_ended(r), 3);
    gcev_heap_set *s = finish(r);
    assert_int_equal(gcev_heap_set_count(s), 3);
    assert_int_equal(gcev_heap_get_info(gcev_heap_set_at(s, 0))->process_id, 7);
    assert_int_equal(gcev_heap_get_info(gcev_heap_set_at(s, 1))->process_id, 7);
    assert_int_equal(gcev_heap_get_info(gcev_heap_set_at(s, 1))->gc_number, 4);
    assert_int_equal(gcev_heap_get_info(gcev_heap_set_at(s, 1))->objects, 3);
    assert_int_equal(gcev_heap_get_info(gcev_heap_set_at(s, 2))->process_id, 8);
    assert_int_equal(gcev_heap_get_info(gcev_heap_set_at(s, 2))->unknown_types, 6);
    gcev_heap_diff_row *rows;
    size_t nrows;
    gcev_heap *a = gcev_heap_set_at(s, 0), *b = gcev_heap_set_at(s, 1);
    assert_int_equal(gcev_heap_diff(a, b, &rows, &nrows), GCEV_OK);
    assert_true(nrows >= 2);
    /* F of dump 1 is named by a BulkType that came after it: names are the process's */
    assert_string_equal(rows[0].name, "App.Grown");
    assert_int_equal(rows[0].objects_a, 1);
    assert_int_equal(rows[0].objects_b, 2);
    assert_int_equal(rows[0].bytes_b, 16);
    assert_int_equal(rows[0].new_object, gcev_heap_object_find(b, 0x900));
    free(rows);
    gcev_heap_set_free(s);
    free(w.b);
}

/* lost node events, missing edges, a duplicate, dangling edges, a dump cut by the trace's
 * start and another by its end: labelled partial with located problems, still analysed */
static void test_heap_damaged_and_cut_dumps_are_partial(void **state)
{
    (void)state;
    gcev_heap_reader *r;
    hev_buf w = {0};
    assert_int_equal(gcev_heap_reader_new(&r), GCEV_OK);
    /* dump 1: starts inside (no GCStart) */
    hev_node n1[] = {{0x100, 10, T_A, 0}};
    hev_nodes(r, &w, 0, n1, 1, 1, 1);
    hev_gc(r, &w, 0, 5, 1, 2);
    /* dump 2: Index gap, a duplicate, an edge to nowhere, edges short, no GCEnd */
    hev_gc(r, &w, 1, 6, 1, 3);
    hev_node n2[] = {{0x100, 10, T_A, 2}, {0x100, 10, T_A, 1}};
    hev_nodes(r, &w, 0, n2, 2, 1, 4);
    hev_node n3[] = {{0x200, 20, T_B, 5}};
    hev_nodes(r, &w, 2, n3, 1, 1, 5); /* Index 1 lost */
    uint64_t e[] = {0x200, 0xdead, 0x100};
    hev_edges(r, &w, 0, e, 3, 1, 6);
    hev_root(r, &w, 0, 0x100, 0, 0, 1, 7);
    /* a payload cut short */
    hev_u32(&w, 1);
    hev_u32(&w, 10);
    hev_u16(&w, 0);
    hev_u64(&w, 0x300);
    hev_feed(r, 18, &w, 1, 8);
    gcev_heap_set *s = finish(r);
    assert_int_equal(gcev_heap_set_count(s), 2);
    gcev_heap *h1 = gcev_heap_set_at(s, 0), *h2 = gcev_heap_set_at(s, 1);
    assert_true(gcev_heap_get_info(h1)->flags & GCEV_HEAP_NO_START);
    assert_int_equal(gcev_heap_get_info(h1)->gc_number, 5);
    const gcev_heap_info *in = gcev_heap_get_info(h2);
    assert_true(in->flags & GCEV_HEAP_NO_END);
    assert_true(in->flags & GCEV_HEAP_INDEX_GAP);
    assert_true(in->flags & GCEV_HEAP_EDGES_SHORT);
    assert_true(in->flags & GCEV_HEAP_BAD_EVENT);
    assert_int_equal(in->objects, 2);
    assert_int_equal(in->duplicate_objects, 1);
    assert_int_equal(in->dangling_references, 1);
    assert_int_equal(in->missing_references, 5);
    assert_int_equal(in->bad_events, 1);
    assert_true(gcev_heap_problem_count(h2) >= 4);
    int found = 0;
    for (size_t i = 0; i < gcev_heap_problem_count(h2); i++) {
        if (strstr(gcev_heap_problem_at(h2, i), "GCBulkNode Index 2 after 0")) {
            found = 1;
        }
    }
    assert_true(found);
    assert_int_equal(gcev_heap_analyze(h2), GCEV_OK);
    assert_int_equal(retained_at(h2, 0x100), 30);
    gcev_heap_set_free(s);
    free(w.b);
}

/* a chain of 200,000 objects: no recursion anywhere (dominators, paths, retained) */
static void test_heap_long_chain_is_iterative(void **state)
{
    (void)state;
    enum { N = 200000 };
    gcev_heap_reader *r;
    hev_buf w = {0};
    assert_int_equal(gcev_heap_reader_new(&r), GCEV_OK);
    hev_gc(r, &w, 1, 1, 1, 0);
    hev_node *n = malloc(1000 * sizeof *n);
    uint64_t *e = malloc(1000 * sizeof *e);
    for (uint32_t blk = 0; blk < N / 1000; blk++) {
        for (uint32_t i = 0; i < 1000; i++) {
            uint64_t k = (uint64_t)blk * 1000 + i;
            n[i] = (hev_node){0x1000 + 16 * k, 16, T_A, k + 1 < N ? 1 : 0};
            e[i] = 0x1000 + 16 * (k + 1);
        }
        hev_nodes(r, &w, blk, n, 1000, 1, 1);
        hev_edges(r, &w, blk, e, blk + 1 < N / 1000 ? 1000 : 999, 1, 1);
    }
    hev_root(r, &w, 0, 0x1000, 0, 0, 1, 2);
    hev_gc(r, &w, 0, 1, 1, 3);
    gcev_heap_set *s = finish(r);
    gcev_heap *h = gcev_heap_set_at(s, 0);
    assert_int_equal(gcev_heap_get_info(h)->flags, 0);
    assert_int_equal(gcev_heap_analyze(h), GCEV_OK);
    assert_int_equal(retained_at(h, 0x1000), 16ull * N);
    size_t len, root;
    assert_int_equal(gcev_heap_path(h, N - 1, NULL, 0, &len, &root), GCEV_OK);
    assert_int_equal(len, N);
    free(n);
    free(e);
    gcev_heap_set_free(s);
    free(w.b);
}

/*
 * Sizes near 2^64 (GCBulkNode's Size is 64-bit): root -> A -> B, A -> C, D unreachable.
 * Sizes A 2^64-16, B 100, C 2^32 (kept aside from the 32-bit sizes, exact), D 2^63, and
 * a second record of C's address (a duplicate, 2^32-1 bytes: dropped, not mixed up with
 * C). The bytes add up past 2^64-1: totals and retained sizes stop there, never wrap to a
 * small number, and the dump is partial with the object where they stopped fitting.
 */
static void test_heap_sizes_near_2_64_saturate(void **state)
{
    (void)state;
    const uint64_t big_a = UINT64_MAX - 15, big_c = UINT64_C(1) << 32, big_d = UINT64_C(1) << 63;
    gcev_heap_reader *r;
    hev_buf w = {0};
    assert_int_equal(gcev_heap_reader_new(&r), GCEV_OK);
    hev_type(r, &w, T_A, "App.Huge[]", 5, 0);
    hev_type(r, &w, T_B, "App.Small", 5, 0);
    hev_gc(r, &w, 1, 2, 5, 1);
    hev_node n[] = {{0x100, big_a, T_A, 2},
                    {0x200, 100, T_B, 0},
                    {0x300, big_c, T_A, 0},
                    {0x300, UINT32_MAX, T_B, 0},
                    {0x400, big_d, T_A, 0}};
    hev_nodes(r, &w, 0, n, 5, 5, 2);
    uint64_t e[] = {0x200, 0x300};
    hev_edges(r, &w, 0, e, 2, 5, 3);
    hev_root(r, &w, 0, 0x100, 0, 0, 5, 4);
    hev_gc(r, &w, 0, 2, 5, 5);
    gcev_heap_set *s = finish(r);
    gcev_heap *h = gcev_heap_set_at(s, 0);
    const gcev_heap_info *in = gcev_heap_get_info(h);
    assert_int_equal(in->objects, 4);
    assert_int_equal(in->duplicate_objects, 1);
    assert_true(in->flags & GCEV_HEAP_SIZE_OVERFLOW);
    assert_true(in->flags & GCEV_HEAP_PARTIAL_MASK);
    assert_true(in->bytes == UINT64_MAX);
    int located = 0;
    for (size_t i = 0; i < gcev_heap_problem_count(h); i++) {
        located |= strstr(gcev_heap_problem_at(h, i), "more than 2^64-1 bytes at object 0x200") != NULL;
    }
    assert_true(located);
    gcev_heap_object o;
    assert_int_equal(gcev_heap_object_get(h, gcev_heap_object_find(h, 0x300), &o), GCEV_OK);
    assert_true(o.size == big_c);
    assert_int_equal(gcev_heap_object_get(h, gcev_heap_object_find(h, 0x400), &o), GCEV_OK);
    assert_true(o.size == big_d);
    assert_int_equal(gcev_heap_analyze(h), GCEV_OK);
    assert_true(retained_at(h, 0x100) == UINT64_MAX); /* 2^64-16 + 100 + 2^32 */
    assert_true(retained_at(h, 0x200) == 100);
    assert_true(retained_at(h, 0x300) == big_c);
    assert_true(in->unreachable_bytes == big_d);
    uint32_t ta = gcev_heap_type_find(h, "App.Huge[]");
    assert_int_not_equal(ta, GCEV_HEAP_NONE);
    gcev_heap_type t;
    assert_int_equal(gcev_heap_type_get(h, ta, &t), GCEV_OK);
    assert_int_equal(t.objects, 3);
    assert_true(t.bytes == UINT64_MAX);
    assert_true(t.retained == UINT64_MAX);
    assert_true(t.max_retained == UINT64_MAX);
    gcev_heap_set_free(s);
    free(w.b);
}

/* the committed real dump, its stream cut before its GCEnd (a session killed, a file cut
 * after the dump's blocks): the dump kept and labelled partial, its objects still listed */
static void test_heap_real_dump_cut_is_partial(void **state)
{
    (void)state;
    const char *dir = getenv("GCEV_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/traces/heapdump.nettrace", dir ? dir : "tests/data");
    gcev_trace_options o = {.struct_size = sizeof o};
    o.order = GCEV_TRACE_ORDER_TIME;
    gcev_trace *t;
    assert_int_equal(gcev_trace_open_file(path, &o, &t, NULL), GCEV_OK);
    gcev_heap_reader *r;
    assert_int_equal(gcev_heap_reader_new(&r), GCEV_OK);
    gcev_trace_event ev;
    int seen_edges = 0;
    while (gcev_trace_next(t, &ev, NULL) == GCEV_OK) {
        if (ev.provider && ev.event_id == 2 && seen_edges) {
            break; /* the GCEnd never arrives */
        }
        seen_edges |= ev.provider && ev.event_id == 19;
        assert_int_equal(gcev_heap_reader_add(r, &ev), GCEV_OK);
    }
    gcev_heap_set *s = NULL;
    assert_int_equal(gcev_heap_reader_finish(r, t, &s), GCEV_OK);
    gcev_trace_close(t);
    assert_int_equal(gcev_heap_set_count(s), 1);
    gcev_heap *h = gcev_heap_set_at(s, 0);
    const gcev_heap_info *in = gcev_heap_get_info(h);
    assert_true(in->flags & GCEV_HEAP_NO_END);
    assert_int_equal(in->objects, 1511);
    assert_non_null(strstr(gcev_heap_problem_at(h, 0), "did not end before the end of the trace"));
    gcev_heap_set_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heap_diamond_dominators_and_retained),
        cmocka_unit_test(test_heap_roots_kinds_cwt_static),
        cmocka_unit_test(test_heap_dumps_apart_and_diff),
        cmocka_unit_test(test_heap_damaged_and_cut_dumps_are_partial),
        cmocka_unit_test(test_heap_long_chain_is_iterative),
        cmocka_unit_test(test_heap_real_dump_cut_is_partial),
        cmocka_unit_test(test_heap_sizes_near_2_64_saturate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
