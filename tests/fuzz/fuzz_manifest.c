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
#include <unistd.h>

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

static _Thread_local int tracking;
static void **live; /* open addressing; NULL empty, TOMB deleted */
static size_t live_cap, live_used;
static char tomb_;
#define TOMB ((void *)&tomb_)

static size_t slot_of(const void *p)
{
    uintptr_t h = (uintptr_t)p;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 7) & (live_cap - 1);
}

static void live_add(void *p);

static void live_grow(void)
{
    void **old = live;
    size_t old_cap = live_cap;
    live_cap = live_cap ? live_cap * 2 : 4096;
    live = __real_calloc(live_cap, sizeof *live);
    if (!live) {
        abort();
    }
    live_used = 0;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i] && old[i] != TOMB) {
            live_add(old[i]);
        }
    }
    __real_free(old);
}

static void live_add(void *p)
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
    live_used++;
}

static void live_del(void *p)
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

void *__wrap_malloc(size_t n)
{
    void *p = __real_malloc(n);
    if (tracking) {
        live_add(p);
    }
    return p;
}

void *__wrap_calloc(size_t n, size_t m)
{
    void *p = __real_calloc(n, m);
    if (tracking) {
        live_add(p);
    }
    return p;
}

void *__wrap_realloc(void *p, size_t n)
{
    void *q = __real_realloc(p, n);
    if (tracking && q) {
        live_del(p);
        live_add(q);
    }
    return q;
}

void __wrap_free(void *p)
{
    if (tracking) {
        live_del(p);
    }
    __real_free(p);
}

char *__wrap_strdup(const char *s)
{
    char *p = __real_strdup(s);
    if (tracking) {
        live_add(p);
    }
    return p;
}

/* libxml2 allocates through these once xmlMemSetup() installed them. */
static void *xml_malloc(size_t n)
{
    return __wrap_malloc(n);
}
static void *xml_realloc(void *p, size_t n)
{
    return __wrap_realloc(p, n);
}
static void xml_free(void *p)
{
    __wrap_free(p);
}
static char *xml_strdup(const char *s)
{
    return __wrap_strdup(s);
}

static void release_all(void)
{
    for (size_t i = 0; i < live_cap; i++) {
        if (live[i] && live[i] != TOMB) {
            __real_free(live[i]);
        }
        live[i] = NULL;
    }
    live_used = 0;
}

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    xmlMemSetup(xml_free, xml_malloc, xml_realloc, xml_strdup);
    xmlInitParser();
    snprintf(path, sizeof path, "/tmp/gcev_fuzz_manifest.%ld.man", (long)getpid());
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the generator reads files: hand it the input as one */
    FILE *f = fopen(path, "wb");
    if (!f) {
        return 0;
    }
    size_t wrote = fwrite(data, 1, size, f);
    if (fclose(f) != 0 || wrote != size) {
        return 0;
    }
    FILE *sink = fopen("/dev/null", "w");
    if (!sink) {
        return 0;
    }
    jmp_buf jb;
    tracking = 1;
    gen_fail_jmp = &jb;
    if (setjmp(jb) == 0) {
        gen_model m = {0};
        gen_parse_manifest(&m, path);
        gen_resolve(&m, NULL);
        gen_describe(&m, sink);
        gen_emit_header(&m, sink);
        gen_emit_source(&m, sink);
    }
    gen_fail_jmp = NULL;
    xmlResetLastError();
    tracking = 0;
    release_all();
    fclose(sink);
    return 0;
}
