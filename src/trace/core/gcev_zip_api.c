/* SPDX-License-Identifier: MIT */
/* The libzip table (see gcev_zip_api.h): loaded by dlopen, or the linked functions. */
#if defined(GCEV_LIBZIP_SONAME) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#endif

#include "gcev_zip_api.h"

#if defined(GCEV_LIBZIP_SONAME) && !defined(_WIN32)

/* Each member's type is the one zip.h declares (checked here at compile time: a _Generic
 * controlling expression is not evaluated, so this references no libzip symbol). */
#define GCEV_ZIP_SAME(name, ret, params)                                                                     \
    _Static_assert(_Generic(&zip_##name, ret(*) params : 1, default : 0), "zip_" #name " has another type");
GCEV_ZIP_FUNCTIONS(GCEV_ZIP_SAME)
#undef GCEV_ZIP_SAME

static _Atomic(const gcev_zip_api *) g_zip;

/* dlsym's void * as a function pointer: POSIX guarantees the conversion works; the memcpy
 * keeps ISO C's pedantic warning about it quiet */
static int zip_sym(void *lib, const char *name, void *out, size_t n)
{
    void *p = dlsym(lib, name);
    if (!p) {
        return 0;
    }
    memcpy(out, &p, n);
    return 1;
}

const gcev_zip_api *gcev_zip_api_get(void)
{
    const gcev_zip_api *z = atomic_load_explicit(&g_zip, memory_order_acquire);
    if (z) {
        return z;
    }
    void *lib = dlopen(GCEV_LIBZIP_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        return NULL;
    }
    gcev_zip_api *t = malloc(sizeof *t);
    int ok = t != NULL;
#define GCEV_ZIP_LOAD(name, ret, params) ok = ok && zip_sym(lib, "zip_" #name, &t->name, sizeof t->name);
    GCEV_ZIP_FUNCTIONS(GCEV_ZIP_LOAD)
#undef GCEV_ZIP_LOAD
    if (!ok) {
        free(t);
        dlclose(lib);
        return NULL;
    }
    /* threads that race here each load a table; the first one published stays for the
     * process's life (and libzip with it: dlopen counts references), the others go */
    const gcev_zip_api *none = NULL;
    if (!atomic_compare_exchange_strong_explicit(&g_zip, &none, t, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        free(t);
        dlclose(lib);
        return none;
    }
    return t;
}

#else

#define GCEV_ZIP_LINKED(name, ret, params) zip_##name,
static const gcev_zip_api g_zip = {GCEV_ZIP_FUNCTIONS(GCEV_ZIP_LINKED)};
#undef GCEV_ZIP_LINKED

const gcev_zip_api *gcev_zip_api_get(void)
{
    return &g_zip;
}

#endif
