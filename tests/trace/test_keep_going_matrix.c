/* SPDX-License-Identifier: MIT */
/*
 * Keep-going against plain mode over real traces with one byte changed (issue 22, items 2
 * and 3): for each changed offset the trace is read from memory in file order without and
 * with gcev_trace_options.keep_going, and
 *  - keep-going returns every event plain mode returns that is in the clean trace (plain
 *    mode's own misreads past a damaged size excepted: keep-going reads such a block to the
 *    end it proves), so it never returns less than plain mode;
 *  - keep-going returns only events of the clean trace (same offset, timestamp, thread,
 *    id, version and payload bytes) or events plain mode returns too: what it reads after
 *    a fault it has validated, so it invents nothing;
 *  - the span of its timestamps (what stats reports as the trace's duration) is at most
 *    the clean trace's or plain mode's.
 * Offsets: every byte of a trace's first 1 KiB (header, metadata, the first blocks), then 300
 * spread over the rest; every byte of every trace with GCEV_KG_MATRIX=full (minutes);
 * GCEV_MUTATION_QUICK=1 (valgrind runs) and AddressSanitizer builds sample 64 per trace.
 * The changed byte is XORed with 0x01, 0x80, 0xff or 0x10 by turns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>

#include "testutil.h"

typedef struct ev_key {
    uint64_t file_offset;
    int64_t timestamp;
    uint64_t thread_id;
    uint64_t payload_hash;
    uint32_t payload_size;
    uint16_t event_id, version;
} ev_key;

typedef struct run {
    ev_key *ev;
    size_t n, cap;
    gcev_status st;
} run;

static uint64_t fnv64(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 1099511628211ull;
    }
    return h;
}

static int key_cmp(const void *pa, const void *pb)
{
    const ev_key *a = pa, *b = pb;
#define KG_CMP(f)                                                                                            \
    if (a->f != b->f) {                                                                                      \
        return a->f < b->f ? -1 : 1;                                                                         \
    }
    KG_CMP(file_offset)
    KG_CMP(timestamp)
    KG_CMP(thread_id)
    KG_CMP(payload_hash)
    KG_CMP(payload_size)
    KG_CMP(event_id)
    KG_CMP(version)
#undef KG_CMP
    return 0;
}

static void read_all(const uint8_t *data, size_t size, int keep_going, run *r)
{
    gcev_trace_options o = {.struct_size = sizeof o, .keep_going = (uint32_t)keep_going};
    gcev_trace *t = NULL;
    gcev_error err = {0};
    r->n = 0;
    r->st = gcev_trace_open_memory(data, size, &o, &t, &err);
    if (r->st != GCEV_OK) {
        return;
    }
    gcev_trace_event ev;
    while ((r->st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        if (r->n == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 1024;
            r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
            assert_non_null(r->ev);
        }
        ev_key *k = &r->ev[r->n++];
        k->file_offset = ev.file_offset;
        k->timestamp = ev.timestamp;
        k->thread_id = ev.thread_id;
        k->payload_hash = fnv64(ev.payload, ev.payload_size);
        k->payload_size = ev.payload_size;
        k->event_id = ev.event_id;
        k->version = ev.version;
    }
    gcev_trace_close(t);
    qsort(r->ev, r->n, sizeof *r->ev, key_cmp);
}

static int has(const run *r, const ev_key *k)
{
    return r->n && bsearch(k, r->ev, r->n, sizeof *r->ev, key_cmp) != NULL;
}

/* Timestamp span of the events whose timestamps are >= the clean trace's first (later
 * events of a damaged copy could only widen it). */
static int64_t span(const run *r)
{
    if (!r->n) {
        return 0;
    }
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < r->n; i++) {
        lo = r->ev[i].timestamp < lo ? r->ev[i].timestamp : lo;
        hi = r->ev[i].timestamp > hi ? r->ev[i].timestamp : hi;
    }
    return (int64_t)((uint64_t)hi - (uint64_t)lo);
}

/* Under AddressSanitizer each of the ~8,000 reads costs ten times more: the sanitizer job
 * samples as the valgrind job does (the whole matrix runs in the plain build). */
#if defined(__SANITIZE_ADDRESS__)
#define KG_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KG_UNDER_ASAN 1
#endif
#endif
#ifndef KG_UNDER_ASAN
#define KG_UNDER_ASAN 0
#endif

static int quick(void)
{
    const char *q = getenv("GCEV_MUTATION_QUICK");
    return KG_UNDER_ASAN || (q && q[0] && strcmp(q, "0") != 0);
}

static int full(void)
{
    const char *f = getenv("GCEV_KG_MATRIX");
    return f && strcmp(f, "full") == 0;
}

static size_t stat_flips, stat_faults, stat_more, stat_misreads;

/* One trace, changed at the offsets described above. */
static void matrix(const char *path, size_t every, size_t spread)
{
    size_t size = 0;
    uint8_t *clean_bytes = (uint8_t *)testutil_read_file(path, &size);
    if (!clean_bytes) {
        print_message("keep-going matrix: %s not found, skipped\n", path);
        return;
    }
    uint8_t *d = malloc(size);
    assert_non_null(d);
    memcpy(d, clean_bytes, size);
    run clean = {0}, plain = {0}, kg = {0};
    read_all(d, size, 0, &clean);
    assert_int_equal(clean.st, GCEV_END);
    const int64_t clean_span = span(&clean);
    /* every byte of the first `every` (stream header, metadata, the first blocks), then
     * `spread` offsets over the rest; all of them in full mode; 64 in quick mode */
    size_t head = quick() ? 0 : full() ? size : every < size ? every : size;
    size_t rest = quick() ? 64 : head < size ? spread : 0;
    size_t n = head + rest;
    static const uint8_t xors[] = {0x01, 0x80, 0xff, 0x10};
    for (size_t i = 0; i < n; i++) {
        size_t at = i;
        if (i >= head) {
            size_t j = i - head, gap = (size - head) / rest ? (size - head) / rest : 1;
            at = head + (size_t)((uint64_t)j * (size - head) / rest) + (j * 7919u) % gap;
        }
        if (at >= size) {
            at = size - 1;
        }
        uint8_t x = xors[i % 4];
        d[at] ^= x;
        read_all(d, size, 0, &plain);
        read_all(d, size, 1, &kg);
        stat_flips++;
        stat_faults += plain.st != GCEV_END;
        stat_more += kg.n > plain.n;
        for (size_t k = 0; k < plain.n; k++) {
            if (has(&clean, &plain.ev[k]) && !has(&kg, &plain.ev[k])) {
                fail_msg("%s, byte %zu ^ 0x%02x: keep-going lacks plain mode's event at offset %llu", path,
                         at, x, (unsigned long long)plain.ev[k].file_offset);
            }
            stat_misreads += !has(&clean, &plain.ev[k]) && !has(&kg, &plain.ev[k]);
        }
        for (size_t k = 0; k < kg.n; k++) {
            if (!has(&clean, &kg.ev[k]) && !has(&plain, &kg.ev[k])) {
                fail_msg(
                    "%s, byte %zu ^ 0x%02x: keep-going invented an event at offset %llu (id %u, ts %lld)",
                    path, at, x, (unsigned long long)kg.ev[k].file_offset, kg.ev[k].event_id,
                    (long long)kg.ev[k].timestamp);
            }
        }
        int64_t ks = span(&kg), ps = span(&plain);
        if (ks > clean_span && ks > ps) {
            fail_msg("%s, byte %zu ^ 0x%02x: keep-going's span %lld exceeds the clean trace's %lld", path, at,
                     x, (long long)ks, (long long)clean_span);
        }
        d[at] ^= x;
    }
    free(clean.ev);
    free(plain.ev);
    free(kg.ev);
    free(d);
    free(clean_bytes);
}

static void test_keep_going_matrix_nettrace(void **state)
{
    (void)state;
    char p[4096];
    const char *data = getenv("GCEV_TEST_DATA");
    static const char *const names[] = {"svr-gc-collect", "svr-bgc", "wks-full"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/traces/%s.nettrace", data ? data : "tests/data", names[i]);
        matrix(p, 1024, 300);
    }
}

static void test_keep_going_matrix_etl(void **state)
{
    (void)state;
    const char *shared = testutil_shared_dir();
    if (!shared) {
        skip();
    }
    char p[4096];
    static const char *const names[] = {"primitive-types.etl", "gcrundownevents.etl",
                                        "eventpipe-dotnetcore3.0-win-x64-objver4.nettrace"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/corpus/%s", shared, names[i]);
        matrix(p, 1024, 300);
    }
    print_message(
        "keep-going matrix: %zu changed copies, %zu with a fault in plain mode, %zu where keep-going "
        "returned more; %zu misreads of plain mode not repeated\n",
        stat_flips, stat_faults, stat_more, stat_misreads);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keep_going_matrix_nettrace),
        cmocka_unit_test(test_keep_going_matrix_etl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
