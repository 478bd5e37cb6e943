/* SPDX-License-Identifier: MIT */
/* The allocations profile of live sessions (gcev allocs --pid, gcev record --profile allocations). */
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev_session.h>

#include "cli_allocs.h"

enum {
    KW_GC = 0x1,
    KW_LOADER = 0x8,
    KW_JIT = 0x10,
    KW_NGEN = 0x20,
};
#define KW_ALLOCATION_SAMPLING UINT64_C(0x80000000000)

int cli_allocs_profile_option(gcev_cli_args *a)
{
    if (a->operands_only || !a->arg) {
        return 0;
    }
    if (!strcmp(a->arg, "--profile=allocations")) {
        return 1;
    }
    if (!strcmp(a->arg, "--profile") && a->next < a->argc && !strcmp(a->argv[a->next], "allocations")) {
        a->next++;
        return 1;
    }
    return 0;
}

int cli_allocs_providers(cli_live_opts *o)
{
    int major = 0;
    gcev_process_info *pi = NULL;
    if (gcev_process_query(o->pid, o->timeout_ms, &pi, NULL) == GCEV_OK && pi) {
        major = atoi(pi->runtime_version);
        gcev_process_info_free(pi);
    }
    uint64_t kw = KW_JIT | KW_LOADER | KW_NGEN;
    if (major >= 10) {
        kw |= KW_ALLOCATION_SAMPLING;
    } else if (major > 0) {
        kw |= KW_GC;
    } else {
        kw |= KW_GC | KW_ALLOCATION_SAMPLING;
    }
    gcev_session_provider *p = &o->providers[0];
    memset(p, 0, sizeof *p);
    p->name = "Microsoft-Windows-DotNETRuntime";
    p->keywords = kw;
    p->level = 5; /* Verbose: AllocationTick, MethodLoadVerbose */
    o->nproviders = 1;
    return major;
}
