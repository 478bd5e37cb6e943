/* SPDX-License-Identifier: MIT */
/* gcev allocs' pieces shared with other commands: the allocations session profile. */
#ifndef GCEV_CLI_ALLOCS_H
#define GCEV_CLI_ALLOCS_H

#include <stddef.h>
#include <stdio.h>

#include <gcev/gcev_allocs.h>

#include "cli_session.h"

/*
 * Whether the current argument is "--profile allocations" (or "--profile=allocations"):
 * 1 with the value consumed, else 0 (then cli_live_option() reads the other profiles). The
 * allocations profile is no gcev_session_profile: it becomes custom providers chosen for the
 * process's runtime (cli_allocs_providers()).
 */
int cli_allocs_profile_option(gcev_cli_args *a);

/*
 * Fills o->providers for an allocation profile of process o->pid: on .NET 10 and later
 * (ProcessInfo's runtime version) Microsoft-Windows-DotNETRuntime with AllocationSampling
 * (0x80000000000), else GC (0x1) at Verbose for AllocationTick; both with JIT (0x10), Loader
 * (0x8) and NGen (0x20) at Verbose for the method events that name stack frames (the
 * default rundown adds MethodDCEndVerbose for code loaded before the session). A runtime
 * that does not say its version gets both keywords. Returns the runtime's major version
 * (0 when unknown).
 */
int cli_allocs_providers(cli_live_opts *o);

/* The speedscope file (https://www.speedscope.app/file-format-schema.json) of a finished
 * model: one sampled profile, weights in estimated bytes, each stack's type as its leaf frame;
 * type_filter SIZE_MAX for all types. Returns 0, or -1 on a write error. */
int gcev_cli_allocs_speedscope(FILE *f, const char *name, const gcev_allocs *a, size_t type_filter);

#endif
