/* SPDX-License-Identifier: MIT */
/* Allocation-failure injection (failalloc.h): the --wrap targets and the driver. */
#include "failalloc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>

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

size_t failalloc_every(failalloc_run run, void *ctx)
{
    failalloc_arm(-1);
    assert_int_equal(run(ctx), GCEV_OK);
    size_t nomem = 0;
    for (long k = 0;; k++) {
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
