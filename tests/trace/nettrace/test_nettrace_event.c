/* SPDX-License-Identifier: MIT */
/*
 * The V5/V6 side blocks (gcev_nettrace_event.c) fed to their parsers directly: thread,
 * remove-thread, label-list, stack and sequence-point blocks, each malformation located, and
 * the thread limits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>

#include "flood_ids.h"
#include "gcev_nettrace_event.h"
#include "gcev_nettrace_meta.h"
#include "gcev_nettrace_state.h"

typedef gcev_status (*np_block_fn)(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err);

typedef struct block_case {
    np_block_fn fn;
    uint32_t version;
    const char *hex;
    size_t max_take; /* 0: 1 MiB */
    gcev_status want;
    uint64_t offset; /* of the error (the block starts at file offset 1000) */
    const char *msg;
} block_case;

static size_t unhex_blanks(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (const char *c = hex; *c; c++) {
        if (*c == ' ') {
            continue;
        }
        unsigned v;
        assert_int_equal(sscanf(c, "%2x", &v), 1);
        assert_true(n < cap);
        out[n++] = (uint8_t)v;
        c++;
    }
    return n;
}

typedef struct np_bare {
    gcev_trace t;
    gcev_nettrace *np;
} np_bare;

static void np_bare_open(np_bare *f, uint32_t version, size_t max_take)
{
    memset(f, 0, sizeof *f);
    f->np = calloc(1, sizeof *f->np);
    assert_non_null(f->np);
    f->np->version = version;
    f->np->last_seq_index = UINT32_MAX;
    f->t.impl = f->np;
    f->t.info.format_version = version;
    f->t.src.max_take = max_take ? max_take : 1u << 20;
}

static void np_bare_close(np_bare *f)
{
    gcev_np_event_free_all(f->np);
    gcev_np_meta_free_all(f->np);
    free(f->np);
}

static gcev_status run_block(np_bare *f, np_block_fn fn, const char *hex, gcev_error *err)
{
    static uint8_t b[512];
    size_t n = unhex_blanks(hex, b, sizeof b);
    np_cur c = {b, n, 0};
    return fn(&f->t, &c, 1000, err);
}

/* Thread, remove-thread, label-list, stack and sequence-point blocks: what each malformation
 * is (status, file offset, message), and what the well-formed ones record. */
static void test_nettrace_side_blocks_parse_or_fail_at_their_fault(void **s)
{
    (void)s;
    static const block_case bad[] = {
        {gcev_np_thread_block, 6, "0500 01", 0, GCEV_E_FORMAT, 1000, "thread row overruns its block"},
        {gcev_np_thread_block, 6, "0100 80", 0, GCEV_E_FORMAT, 1000, "malformed thread row"},
        {gcev_np_thread_block, 6, "0200 05 02", 0, GCEV_E_FORMAT, 1000, "malformed thread row"},
        {gcev_np_thread_block, 6, "0300 05 01 05", 0, GCEV_E_FORMAT, 1000, "malformed thread row"},
        {gcev_np_remove_thread_block, 6, "05 8080808010", 0, GCEV_E_FORMAT, 1006,
         "malformed remove-thread block"},
        {gcev_np_remove_thread_block, 6, "05", 0, GCEV_E_FORMAT, 1001, "malformed remove-thread block"},
        {gcev_np_label_block, 6, "00000000 64000000 010203", 0, GCEV_E_FORMAT, 1008,
         "malformed label list block"},
        {gcev_np_label_block, 6, "00000000 01000000 0b", 0, GCEV_E_FORMAT, 1009, "malformed label list"},
        {gcev_np_label_block, 6, "00000000 01000000 82 0102", 0, GCEV_E_FORMAT, 1009, "malformed label list"},
        {gcev_np_stack_block, 6, "00000000 05000000", 0, GCEV_E_FORMAT, 1008, "malformed stack block"},
        {gcev_np_stack_block, 6, "00000000 01000000 0a000000 0102", 0, GCEV_E_FORMAT, 1012,
         "stack overruns its block"},
        {gcev_np_stack_block, 6, "00000000 01000000 02000000 0102", 8, GCEV_E_LIMIT, 1000,
         "stacks between sequence points exceed the block-size limit"},
        {gcev_np_sequence_point, 5, "0100000000000000 01000000 0700000000000000", 0, GCEV_E_FORMAT, 1020,
         "malformed sequence point block"},
        {gcev_np_sequence_point, 6, "0100000000000000", 0, GCEV_E_FORMAT, 1008,
         "malformed sequence point block"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        np_bare f;
        np_bare_open(&f, bad[i].version, bad[i].max_take);
        gcev_error err = {0};
        gcev_status st = run_block(&f, bad[i].fn, bad[i].hex, &err);
        if (st != bad[i].want || err.offset != bad[i].offset || !err.message ||
            strcmp(err.message, bad[i].msg)) {
            fail_msg("case %zu: %s at %llu '%s', want %s at %llu '%s'", i, gcev_status_str(st),
                     (unsigned long long)err.offset, err.message ? err.message : "",
                     gcev_status_str(bad[i].want), (unsigned long long)bad[i].offset, bad[i].msg);
        }
        np_bare_close(&f);
    }
    np_bare f;
    np_bare_open(&f, 6, 0);
    gcev_error err = {0};
    /* a thread row with every kind, then an unknown kind that ends it; a second row for index 5
     * replaces the first */
    assert_int_equal(
        run_block(&f, gcev_np_thread_block, "1100 05 01026162 0207 0309 04016b0176 55ffff", &err), GCEV_OK);
    assert_int_equal(f.np->nthreads, 1);
    assert_true(f.np->threads[0].has_pid && f.np->threads[0].has_tid);
    assert_int_equal(f.np->threads[0].os_pid, 7);
    assert_int_equal(f.np->threads[0].os_tid, 9);
    assert_int_equal(run_block(&f, gcev_np_thread_block, "0300 05 0308", &err), GCEV_OK);
    assert_int_equal(f.np->nthreads, 1);
    assert_int_equal(f.np->threads[0].os_tid, 8);
    assert_false(f.np->threads[0].has_pid);
    assert_int_equal(run_block(&f, gcev_np_remove_thread_block, "05 03 06 8001", &err), GCEV_OK);
    /* two label lists: activity + level; then every other label kind */
    assert_int_equal(run_block(&f, gcev_np_label_block,
                               "07000000 02000000"
                               " 01 00112233445566778899aabbccddeeff 89 04"
                               " 03 00000000000000000000000000000000 04 0000000000000000 05 016b 0176"
                               " 06 016b 8101 07 0b 08 efcdab8967452301 8a 02",
                               &err),
                     GCEV_OK);
    assert_int_equal(f.np->nlabels, 2);
    assert_true(f.np->labels[0].has_activity);
    assert_int_equal(f.np->labels[0].activity.data1, 0x33221100);
    assert_int_equal(f.np->labels[0].level, 4);
    assert_true(f.np->labels[1].has_opcode && f.np->labels[1].has_keywords && f.np->labels[1].has_version);
    assert_int_equal(f.np->labels[1].opcode, 0x0b);
    assert_true(f.np->labels[1].keywords == UINT64_C(0x0123456789abcdef));
    assert_int_equal(f.np->labels[1].version, 2);
    /* stacks 10 and 11 (2 bytes and none), then a V6 sequence point that clears them */
    assert_int_equal(run_block(&f, gcev_np_stack_block, "0a000000 02000000 02000000 abcd 00000000", &err),
                     GCEV_OK);
    assert_int_equal(f.np->nstacks, 2);
    assert_int_equal(run_block(&f, gcev_np_sequence_point, "6400000000000000 01000000 01000000 05 03", &err),
                     GCEV_OK);
    assert_int_equal(f.np->nstacks, 0);
    assert_int_equal(f.np->nthreads, 0); /* flag 1: the thread table is flushed */
    np_bare_close(&f);
}

/* The stack bytes id resolves to as event_stack resolves it: the newest run first, else the
 * map; NULL when neither has it. */
static const uint8_t *stack_of(const gcev_nettrace *np, uint32_t id, uint32_t *len)
{
    uint32_t k = id - np->run_first, i;
    i = k < np->run_count ? (uint32_t)(np->run_base + k) : gcev_idmap_get(&np->stack_ids, id);
    if (i == UINT32_MAX) {
        return NULL;
    }
    *len = np->stacks[i].len;
    return np->stack_bytes + np->stacks[i].off;
}

static void assert_stack(const gcev_nettrace *np, uint32_t id, uint8_t byte)
{
    uint32_t len = 0;
    const uint8_t *p = stack_of(np, id, &len);
    assert_non_null(p);
    assert_int_equal(len, 1);
    assert_int_equal(p[0], byte);
}

/* Stack blocks between two sequence points: consecutive blocks extend one run that stays out
 * of the map; a block that does not continue it moves the run into the map; a block that fails
 * part-way leaves what it read in the map. Every id resolves to its newest stack throughout. */
static void test_nettrace_stack_ids_resolve_to_their_newest_stack(void **s)
{
    (void)s;
    np_bare f;
    np_bare_open(&f, 5, 0);
    gcev_error err = {0};
    assert_int_equal(run_block(&f, gcev_np_stack_block, "01000000 02000000 01000000 a1 01000000 a2", &err),
                     GCEV_OK);
    assert_int_equal(run_block(&f, gcev_np_stack_block, "03000000 01000000 01000000 a3", &err), GCEV_OK);
    assert_int_equal(f.np->run_first, 1);
    assert_int_equal(f.np->run_count, 3);
    assert_int_equal(f.np->stack_ids.count, 0);
    assert_stack(f.np, 1, 0xa1);
    assert_stack(f.np, 3, 0xa3);
    /* ids 2 and 3 again: not a continuation; the run [1, 3] goes to the map, [2, 3] is new */
    assert_int_equal(run_block(&f, gcev_np_stack_block, "02000000 02000000 01000000 b2 01000000 b3", &err),
                     GCEV_OK);
    assert_int_equal(f.np->run_first, 2);
    assert_int_equal(f.np->run_count, 2);
    assert_int_equal(f.np->stack_ids.count, 3);
    assert_stack(f.np, 1, 0xa1);
    assert_stack(f.np, 2, 0xb2);
    assert_stack(f.np, 3, 0xb3);
    assert_int_equal(run_block(&f, gcev_np_stack_block, "04000000 01000000 01000000 b4", &err), GCEV_OK);
    assert_int_equal(f.np->run_count, 3);
    assert_stack(f.np, 4, 0xb4);
    uint32_t len;
    assert_null(stack_of(f.np, 5, &len));
    /* a continuing block whose second stack overruns it: the run and stack 5 end in the map */
    assert_int_equal(run_block(&f, gcev_np_stack_block, "05000000 02000000 01000000 c5 09000000 00", &err),
                     GCEV_E_FORMAT);
    assert_int_equal(err.offset, 1017);
    assert_int_equal(f.np->run_count, 0);
    assert_stack(f.np, 1, 0xa1);
    assert_stack(f.np, 2, 0xb2);
    assert_stack(f.np, 3, 0xb3);
    assert_stack(f.np, 4, 0xb4);
    assert_stack(f.np, 5, 0xc5);
    assert_null(stack_of(f.np, 6, &len));
    /* ids past 2^32 - 1 never make a run: they stay in the map */
    assert_int_equal(run_block(&f, gcev_np_stack_block, "ffffffff 02000000 01000000 d1 01000000 d2", &err),
                     GCEV_OK);
    assert_int_equal(f.np->run_count, 0);
    assert_stack(f.np, UINT32_MAX, 0xd1);
    np_bare_close(&f);
}

static size_t put_varu64(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    do {
        p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

/* Issue 22: at most NP_MAX_THREADS capture threads and V6 thread rows; one more is
 * GCEV_E_LIMIT, at the sequence-point block or at the thread row. */
static void test_nettrace_more_threads_than_the_limit_is_a_located_limit_error(void **s)
{
    (void)s;
    const size_t n = (size_t)NP_MAX_THREADS + 1;
    uint8_t *b = malloc(16 + n * 12);
    assert_non_null(b);
    /* V6 sequence point: timestamp, flags, count, (capture thread, sequence) pairs */
    size_t len = 0;
    memset(b, 0, 12);
    len = 12;
    b[len++] = (uint8_t)n;
    b[len++] = (uint8_t)(n >> 8);
    b[len++] = (uint8_t)(n >> 16);
    b[len++] = (uint8_t)(n >> 24);
    for (size_t i = 1; i <= n; i++) {
        len += put_varu64(b + len, flood_id(i));
        len += put_varu64(b + len, 1);
    }
    np_bare f;
    np_bare_open(&f, 6, 0);
    gcev_error err = {0};
    np_cur c = {b, len, 0};
    assert_int_equal(gcev_np_sequence_point(&f.t, &c, 1000, &err), GCEV_E_LIMIT);
    assert_int_equal(err.offset, 1000);
    assert_string_equal(err.message, "more than 1048576 capture threads");
    assert_int_equal(f.np->nseqs, NP_MAX_THREADS);
    np_bare_close(&f);
    /* V6 thread block: rows of (size, index); the one past the limit is named */
    len = 0;
    size_t last_row = 0;
    for (size_t i = 1; i <= n; i++) {
        last_row = len;
        size_t k = put_varu64(b + len + 2, i);
        b[len] = (uint8_t)k;
        b[len + 1] = 0;
        len += 2 + k;
    }
    np_bare_open(&f, 6, 0);
    c = (np_cur){b, len, 0};
    assert_int_equal(gcev_np_thread_block(&f.t, &c, 1000, &err), GCEV_E_LIMIT);
    assert_int_equal(err.offset, 1000 + last_row);
    assert_string_equal(err.message, "more than 1048576 threads in the thread table");
    assert_int_equal(f.np->nthreads, NP_MAX_THREADS);
    np_bare_close(&f);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nettrace_side_blocks_parse_or_fail_at_their_fault),
        cmocka_unit_test(test_nettrace_more_threads_than_the_limit_is_a_located_limit_error),
        cmocka_unit_test(test_nettrace_stack_ids_resolve_to_their_newest_stack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
