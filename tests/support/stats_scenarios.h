/* SPDX-License-Identifier: MIT */
/*
 * Synthetic GC traces for the analysis (tests/stats/make_stats_scenarios.c writes them to
 * tests/data/stats/<name>.nettrace; TraceEvent's reading of each, by tests/runtime/oracle,
 * is committed beside it as <name>.oracle.jsonl). Each scenario is one of the event
 * sequences where gcev's analysis and TraceEvent's part (src/stats/gcev_stats_internal.h
 * STATS_Q_*, doc/stats.md), or one TraceEvent handles that the real captures lack, so that
 * test_stats_traceevent can hold gcev's TraceEvent compatibility mode to TraceEvent's own
 * numbers on it, and tests/stats/test_stats_derive.c can check gcev's corrected numbers on the
 * same events.
 */
#ifndef GCEV_STATS_SCENARIOS_H
#define GCEV_STATS_SCENARIOS_H

#include <stddef.h>
#include <stdint.h>

#include <gcev/gcev.h>

/* Where a scenario's events go, in timestamp order: ev is typed (ev->u), not yet encoded. */
typedef void (*scen_emit_fn)(void *ctx, const gcev_provider *provider, uint16_t id, uint16_t version,
                             gcev_event *ev, double ms, uint64_t tid);

typedef struct stats_scenario {
    const char *name;
    uint32_t quirks; /* STATS_Q_* bits its GCs must raise (test_stats_traceevent checks) */
    const char *what;
    void (*run)(scen_emit_fn emit, void *ctx);
    int frag_infinity; /* TraceEvent's GenFragmentationPercent is Infinity in a GC (test_stats_traceevent
                        * checks that, and the CLI's "Infinity" and inf in compat mode) */
} stats_scenario;

/* The process id, threads and clock of the written traces. */
enum {
    SCEN_PID = 4242,
    SCEN_TID = 100,      /* the user thread that triggers GCs (and the workstation GC thread) */
    SCEN_TID_BGC = 200,  /* the background GC thread */
    SCEN_TID_USER2 = 300 /* another user thread */
};

extern const stats_scenario stats_scenarios[];
extern const size_t stats_scenario_count;

/* The scenario of that name, or of the trace at that path (its file name without .nettrace); NULL. */
const stats_scenario *stats_scenario_find(const char *name_or_path);

#endif
