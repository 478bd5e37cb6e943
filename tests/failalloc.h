/* SPDX-License-Identifier: MIT */
/*
 * Allocation-failure injection for unit tests (tests only, no hook in the library).
 * A test executable registered with gcev_failalloc() in tests/CMakeLists.txt is linked
 * with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc: every malloc/calloc/realloc call
 * of the code linked into it (the static library included) comes here and, unless a
 * failure is armed, goes on to the C library's allocator.
 */
#ifndef GCEV_FAILALLOC_H
#define GCEV_FAILALLOC_H

#include <stddef.h>

#include <gcev/gcev.h>

/* Makes allocation number k (0 = the next one) fail, once; k < 0 disarms. */
void failalloc_arm(long k);
/* Whether the armed allocation was reached (and failed) since failalloc_arm(). */
int failalloc_hit(void);

/* A run of the code under test. It returns its final status; when it returns GCEV_OK it
 * must itself have checked that its result is the complete, correct one. */
typedef gcev_status (*failalloc_run)(void *ctx);

/*
 * Runs run(ctx) unarmed (it must return GCEV_OK), then again with allocation k failing
 * for k = 0, 1, ... until a run no longer reaches allocation k. Every run whose
 * allocation failed must return GCEV_E_NOMEM or GCEV_OK (an allocation the code can do
 * without); any other status fails the test. Returns the number of GCEV_E_NOMEM runs.
 */
size_t failalloc_every(failalloc_run run, void *ctx);

#endif
