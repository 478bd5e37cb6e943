/* SPDX-License-Identifier: MIT */
/*
 * libmicrohttpd loaded by dlopen when gcev serve starts (why: serve_mhd.h). The SONAME is the
 * one of the library the build found (GCEV_MHD_SONAME, read from it at configure time), so
 * the ABI is the one microhttpd.h describes; the function types are checked against the
 * header's declarations at compile time, which references none of them (a _Generic
 * controlling expression is not evaluated: no symbol, no link to the library).
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "serve_mhd.h"

#ifndef GCEV_MHD_SONAME
#error "GCEV_MHD_SONAME: the build names the libmicrohttpd SONAME (tools/gcev/serve/CMakeLists.txt)"
#endif

#define SERVE_MHD_SAME(fn, type)                                                                             \
    _Static_assert(_Generic(&fn, type * : 1, default : 0), #fn " has another type")
SERVE_MHD_SAME(MHD_start_daemon, serve_mhd_start_fn);
SERVE_MHD_SAME(MHD_stop_daemon, serve_mhd_stop_fn);
SERVE_MHD_SAME(MHD_lookup_connection_value, serve_mhd_lookup_fn);
SERVE_MHD_SAME(MHD_queue_response, serve_mhd_queue_fn);
SERVE_MHD_SAME(MHD_create_response_from_buffer, serve_mhd_create_fn);
SERVE_MHD_SAME(MHD_destroy_response, serve_mhd_destroy_fn);
SERVE_MHD_SAME(MHD_add_response_header, serve_mhd_header_fn);

static serve_mhd g_mhd;
static int g_loaded;

/* dlsym's void * as a function pointer: POSIX guarantees the conversion works; the memcpy
 * keeps ISO C's pedantic warning about it quiet */
static int sym(void *lib, const char *name, void *out, size_t n, char *why, size_t why_n)
{
    void *p = dlsym(lib, name);
    if (!p) {
        const char *e = dlerror();
        snprintf(why, why_n, "%s: %s", GCEV_MHD_SONAME, e ? e : name);
        return 0;
    }
    memcpy(out, &p, n);
    return 1;
}

const serve_mhd *serve_mhd_load(char *why, size_t why_n)
{
    if (g_loaded) {
        return &g_mhd;
    }
    void *lib = dlopen(GCEV_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, why_n, "%s", e ? e : GCEV_MHD_SONAME ": cannot be loaded");
        return NULL;
    }
    serve_mhd m;
#define SERVE_MHD_SYM(field, name) sym(lib, name, &m.field, sizeof m.field, why, why_n)
    if (!SERVE_MHD_SYM(start_daemon, "MHD_start_daemon") || !SERVE_MHD_SYM(stop_daemon, "MHD_stop_daemon") ||
        !SERVE_MHD_SYM(lookup_connection_value, "MHD_lookup_connection_value") ||
        !SERVE_MHD_SYM(queue_response, "MHD_queue_response") ||
        !SERVE_MHD_SYM(create_response_from_buffer, "MHD_create_response_from_buffer") ||
        !SERVE_MHD_SYM(destroy_response, "MHD_destroy_response") ||
        !SERVE_MHD_SYM(add_response_header, "MHD_add_response_header")) {
        dlclose(lib);
        return NULL;
    }
#undef SERVE_MHD_SYM
    g_mhd = m; /* the library stays loaded for the process's life */
    g_loaded = 1;
    return &g_mhd;
}
