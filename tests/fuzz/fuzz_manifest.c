/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: the generator's library part (tools/gcev-gen: parse, resolve,
 * describe, emit) on fuzzed manifest XML.
 *
 * The generator is a one-shot host tool: it stops at the first error and
 * leaves its model to the OS. Here, gen_fail() longjmps back (GCEV_GEN_FUZZ,
 * see gen.h), and every allocation made during one input -- by the generator
 * (malloc & co. are wrapped with -Wl,--wrap, see CMakeLists.txt) and by
 * libxml2 (xmlMemSetup) -- is recorded and released afterwards, so a failure
 * half-way through a model neither exits nor leaks.
 */
#include "gen.h"

#include <libxml/parser.h>
#include <libxml/xmlmemory.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);

/* ---- the set of live allocations made while an input runs ---- */

/* The bookkeeping below is the harness's, not the code under test: kept out of
 * the coverage feedback, where hash probe lengths would pass for new behaviour
 * (and each comparison would cost a __sanitizer_cov_trace_* call). */
#define NO_COVERAGE __attribute__((no_sanitize("coverage")))

static _Thread_local int tracking;
static void **live; /* open addressing; NULL empty, TOMB deleted */
static size_t live_cap, live_used;
/* the slots filled since the last release, so that releasing costs what the input
 * allocated rather than a scan of a table sized for the biggest input so far */
static size_t *touched;
static size_t ntouched;
static char tomb_;
#define TOMB ((void *)&tomb_)

NO_COVERAGE static size_t slot_of(const void *p)
{
    uintptr_t h = (uintptr_t)p;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 7) & (live_cap - 1);
}

static void live_add(void *p);

NO_COVERAGE static void live_grow(void)
{
    void **old = live;
    size_t *old_touched = touched, old_n = ntouched;
    live_cap = live_cap ? live_cap * 2 : 4096;
    live = __real_calloc(live_cap, sizeof *live);
    /* live_used stays below live_cap / 2, and each add touches one slot */
    touched = __real_malloc(live_cap / 2 * sizeof *touched);
    if (!live || !touched) {
        abort();
    }
    live_used = ntouched = 0;
    for (size_t k = 0; k < old_n; k++) {
        /* a slot is listed again when an add reused its tombstone: move it once */
        void *p = old[old_touched[k]];
        old[old_touched[k]] = NULL;
        if (p && p != TOMB) {
            live_add(p);
        }
    }
    __real_free(old);
    __real_free(old_touched);
}

NO_COVERAGE static void live_add(void *p)
{
    if (!p) {
        return;
    }
    if ((live_used + 1) * 2 > live_cap) {
        live_grow();
    }
    size_t i = slot_of(p);
    while (live[i] && live[i] != TOMB) {
        i = (i + 1) & (live_cap - 1);
    }
    live[i] = p;
    touched[ntouched++] = i;
    live_used++;
}

NO_COVERAGE static void live_del(void *p)
{
    if (!p || !live_cap) {
        return;
    }
    size_t i = slot_of(p);
    while (live[i]) {
        if (live[i] == p) {
            live[i] = TOMB;
            return;
        }
        i = (i + 1) & (live_cap - 1);
    }
}

NO_COVERAGE void *__wrap_malloc(size_t n)
{
    void *p = __real_malloc(n);
    if (tracking) {
        live_add(p);
    }
    return p;
}

NO_COVERAGE void *__wrap_calloc(size_t n, size_t m)
{
    void *p = __real_calloc(n, m);
    if (tracking) {
        live_add(p);
    }
    return p;
}

NO_COVERAGE void *__wrap_realloc(void *p, size_t n)
{
    void *q = __real_realloc(p, n);
    if (tracking && q) {
        live_del(p);
        live_add(q);
    }
    return q;
}

NO_COVERAGE void __wrap_free(void *p)
{
    if (tracking) {
        live_del(p);
    }
    __real_free(p);
}

NO_COVERAGE char *__wrap_strdup(const char *s)
{
    char *p = __real_strdup(s);
    if (tracking) {
        live_add(p);
    }
    return p;
}

/* libxml2 allocates through these once xmlMemSetup() installed them. */
NO_COVERAGE static void *xml_malloc(size_t n)
{
    return __wrap_malloc(n);
}
NO_COVERAGE static void *xml_realloc(void *p, size_t n)
{
    return __wrap_realloc(p, n);
}
NO_COVERAGE static void xml_free(void *p)
{
    __wrap_free(p);
}
NO_COVERAGE static char *xml_strdup(const char *s)
{
    return __wrap_strdup(s);
}

NO_COVERAGE static void release_all(void)
{
    for (size_t k = 0; k < ntouched; k++) {
        void *p = live[touched[k]];
        if (p && p != TOMB) {
            __real_free(p);
        }
        live[touched[k]] = NULL;
    }
    live_used = ntouched = 0;
}

/* ASan keeps freed memory out of reuse (the quarantine, 256 MiB by default) so that
 * a use after free lands on poisoned memory. An input here frees some 40 KiB, and
 * whatever it still holds is released when it ends: 16 MiB catches a stale pointer
 * within an input as surely. 256 MiB cycled through at that rate made allocations
 * land on cold or fresh pages: 2.2x the CPU time per input (4.6x the system time,
 * page faults). The environment's ASAN_OPTIONS still override this. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "quarantine_size_mb=16";
}

/* The input's name in the model (the generator records where fields come from). */
static const char input_name[] = "fuzz.man";
/* The emitted C goes nowhere, through a big buffer: one write(2) per 64 KiB of
 * output rather than one per 4 KiB (BUFSIZ), with the sink opened once, not per
 * input. The emitters' work is the same; only the syscalls go. */
static FILE *sink;
static char sink_buf[1 << 16];

/* libxml2 prints every parser error to stderr, and most fuzzed inputs are not
 * well-formed: the message formatting and the write(2) per input cost more than
 * parsing. The error is still recorded (xmlGetLastError) before a handler runs. */
static void quiet_structured(void *ctx, xmlErrorPtr err)
{
    (void)ctx;
    (void)err;
}

static void quiet_generic(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    xmlMemSetup(xml_free, xml_malloc, xml_realloc, xml_strdup);
    xmlInitParser();
    xmlSetStructuredErrorFunc(NULL, quiet_structured);
    xmlSetGenericErrorFunc(NULL, quiet_generic);
    sink = fopen("/dev/null", "w");
    if (!sink || setvbuf(sink, sink_buf, _IOFBF, sizeof sink_buf) != 0) {
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    jmp_buf jb;
    tracking = 1;
    gen_fail_jmp = &jb;
    if (setjmp(jb) == 0) {
        gen_model m = {0};
        /* from memory: a file written and read back per input cost more than the
         * generator (ext4 flushes a truncated-and-rewritten file on close) */
        gen_parse_manifest_memory(&m, input_name, (const char *)data, size);
        gen_resolve(&m, NULL);
        gen_describe(&m, sink);
        gen_emit_header(&m, sink);
        gen_emit_source(&m, sink);
    }
    gen_fail_jmp = NULL;
    xmlResetLastError();
    tracking = 0;
    release_all();
    return 0;
}
