/* SPDX-License-Identifier: MIT */
/* Allocation-failure injection (failalloc.h): the --wrap targets and the driver. */
#include "failalloc.h"
#include "drip_reader.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);

static long countdown = -1; /* allocations left before the failing one; < 0: none armed */
static int hit;

void failalloc_arm(long k)
{
    countdown = k;
    hit = 0;
}

int failalloc_hit(void)
{
    return hit;
}

/* 1 when this allocation is the armed one. */
static int fail_now(void)
{
    if (countdown < 0) {
        return 0;
    }
    if (countdown-- == 0) {
        hit = 1;
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t n)
{
    return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
    return fail_now() ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
    return fail_now() ? NULL : __real_realloc(p, n);
}

int failalloc_quick(void)
{
    const char *q = getenv("GCEV_MUTATION_QUICK");
    return q && q[0] && strcmp(q, "0") != 0;
}

size_t failalloc_every(failalloc_run run, void *ctx)
{
    failalloc_arm(-1);
    assert_int_equal(run(ctx), GCEV_OK);
    size_t nomem = 0;
    const long step = failalloc_quick() ? 7 : 1;
    for (long k = 0;; k += step) {
        failalloc_arm(k);
        gcev_status st = run(ctx);
        int reached = failalloc_hit();
        failalloc_arm(-1);
        if (!reached) {
            assert_int_equal(st, GCEV_OK);
            break;
        }
        if (st != GCEV_OK && st != GCEV_E_NOMEM) {
            fail_msg("allocation %ld failing gave status %d (%s), not GCEV_E_NOMEM", k, (int)st,
                     gcev_status_str(st));
        }
        nomem += st == GCEV_E_NOMEM;
    }
    return nomem;
}

static uint64_t digest_add(uint64_t h, uint64_t x)
{
    return (h ^ x) * UINT64_C(0x100000001b3);
}

static uint64_t digest_str(uint64_t h, const char *s)
{
    for (; s && *s; s++) {
        h = digest_add(h, (uint8_t)*s);
    }
    return digest_add(h, 0);
}

/* A GCEV_E_NOMEM comes with a message ("out of memory", "cannot grow the read window" ...). */
static gcev_status check_nomem(gcev_status st, const gcev_error *err)
{
    if (st == GCEV_E_NOMEM) {
        assert_non_null(err->message);
        assert_true(err->message[0] != '\0');
    }
    return st;
}

typedef struct read_run {
    failalloc_trace *r;
    int reference; /* the unarmed run: records what the others must give */
} read_run;

static gcev_status read_once(void *ctx)
{
    read_run *rr = ctx;
    failalloc_trace *r = rr->r;
    drip d = {r->data, r->size, 0};
    gcev_trace *t = NULL;
    gcev_error err = {0};
    gcev_status st = r->path     ? gcev_trace_open_file(r->path, &r->opts, &t, &err)
                     : r->stream ? gcev_trace_open_reader(drip_read, &d, &r->opts, &t, &err)
                                 : gcev_trace_open_memory(r->data, r->size, &r->opts, &t, &err);
    if (st != GCEV_OK) {
        assert_null(t);
        return check_nomem(st, &err);
    }
    gcev_trace_event ev;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    size_t n = 0;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        h = digest_add(h, (uint64_t)ev.timestamp);
        h = digest_add(h, ev.file_offset);
        h = digest_add(h, ev.event_id);
        h = digest_add(h, ev.version);
        h = digest_add(h, ev.thread_id);
        h = digest_add(h, ev.sequence);
        h = digest_add(h, ev.stack_size);
        for (size_t i = 0; i < ev.payload_size; i++) {
            h = digest_add(h, ev.payload[i]);
        }
        h = digest_str(h, ev.provider_name);
        h = digest_str(h, ev.event_name);
        n++;
    }
    check_nomem(st, &err); /* before the close: the message may live in the trace */
    gcev_trace_close(t);
    if (st == GCEV_E_NOMEM) {
        return st;
    }
    assert_int_equal(st, GCEV_END);
    if (rr->reference) {
        r->events = n;
        r->digest = h;
    } else { /* a read that succeeds is the whole trace */
        assert_int_equal(n, r->events);
        assert_true(h == r->digest);
    }
    return GCEV_OK;
}

size_t failalloc_every_read(failalloc_trace *r)
{
    read_run rr = {r, 1};
    assert_int_equal(read_once(&rr), GCEV_OK);
    rr.reference = 0;
    return failalloc_every(read_once, &rr);
}
