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

#include <stdint.h>

#include <gcev/gcev_trace.h>

/* Makes allocation number k (0 = the next one) fail, once; k < 0 disarms. */
void failalloc_arm(long k);
/* Whether the armed allocation was reached (and failed) since failalloc_arm(). */
int failalloc_hit(void);

/* A run of the code under test. It returns its final status; when it returns GCEV_OK it
 * must itself have checked that its result is the complete, correct one. */
typedef gcev_status (*failalloc_run)(void *ctx);

/* 1 when GCEV_MUTATION_QUICK is set (as for the valgrind runs of .ci/run): the exhaustive
 * loops of the tests then take every 7th case. */
int failalloc_quick(void);

/*
 * Runs run(ctx) unarmed (it must return GCEV_OK), then again with allocation k failing
 * for k = 0, 1, ... (every 7th with failalloc_quick()) until a run no longer reaches
 * allocation k. Every run whose
 * allocation failed must return GCEV_E_NOMEM or GCEV_OK (an allocation the code can do
 * without); any other status fails the test. Returns the number of GCEV_E_NOMEM runs.
 */
size_t failalloc_every(failalloc_run run, void *ctx);

/* A whole read of one trace: open it, read every event, close it. */
typedef struct failalloc_trace {
    const char *path;    /* gcev_trace_open_file(path) when not NULL, else ... */
    const uint8_t *data; /* ... gcev_trace_open_memory(data, size), or with stream set */
    size_t size;         /* gcev_trace_open_reader() handing out 1-3 bytes per call */
    int stream;
    gcev_trace_options opts;
    size_t events;   /* out: the events of the last complete read */
    uint64_t digest; /* out: a digest of their fields, payloads and names */
} failalloc_trace;

/*
 * failalloc_every() over a whole read of r: the unarmed read is the reference; every read
 * with a failing allocation must end in GCEV_E_NOMEM (with a message) or give the same
 * events. Returns the number of GCEV_E_NOMEM runs.
 */
size_t failalloc_every_read(failalloc_trace *r);

#endif
