/* SPDX-License-Identifier: MIT */
/*
 * The event builders of the stats tests (tests/stats/test_stats_<unit>.c): typed GC events
 * encoded with gcev_encode and fed straight into a model, written into a trace with gcev_writer,
 * or put into an ETL file (support/etl_builder.h); and the small checks they share.
 */
#ifndef GCEV_TESTS_STATS_SINK_H
#define GCEV_TESTS_STATS_SINK_H

#include <stdint.h>

#include <gcev/gcev_stats.h>
#include <gcev/gcev_trace.h>
#include <gcev/gcev_writer.h>

#include "etl_builder.h"

enum { ETL_T0 = 1000, ETL_FREQ = 10000000 };
enum { TID_GC = 1, TID_BGC = 2, TID_SAMPLER = 99 };
enum { R_SUSPEND_OTHER = 0, R_SUSPEND_FOR_GC = 1, R_SUSPEND_FOR_GC_PREP = 6 };

/* ---- building events ------------------------------------------------------ */

/* Where encoded events go: straight into a model, into a trace writer, or into an ETL file. */
typedef struct sink {
    gcev_stats *s;
    gcev_writer *w;
    etlb *etl;
    uint8_t ps;
    const gcev_provider *prov; /* of the next events; NULL: the runtime provider */
    uint32_t pid;              /* process of the next events (model and ETL sinks) */
    uint32_t meta[2][256][8];  /* writer meta id per (provider, event id % 256, version) */
    uint32_t seq_skip;         /* added to the next written event's sequence number */
    uint32_t seq[256];         /* last sequence per thread (writer) */
} sink;

void emit(sink *k, uint16_t id, uint16_t ver, gcev_event *ev, double ms, uint64_t tid);

void ev_clear(gcev_event *ev);

void suspend(sink *k, double ms, uint64_t tid, uint32_t reason);

void suspend_end(sink *k, double ms, uint64_t tid);

void restart(sink *k, double ms, uint64_t tid);

void gc_start_v(sink *k, uint16_t version, double ms, uint64_t tid, uint32_t n, uint32_t gen, uint32_t reason,
                uint32_t type);

void gc_start(sink *k, double ms, uint64_t tid, uint32_t n, uint32_t gen, uint32_t reason, uint32_t type);

void gc_end(sink *k, double ms, uint64_t tid, uint32_t n, uint32_t gen);

void heap_stats(sink *k, double ms, uint64_t tid, uint64_t gen0_size, uint64_t promoted0, uint32_t pinned);

/* GCPerHeapHistory V3 of heap 0: gens generations of 10 pointer-size values each in vals
 * (SizeBefore, FreeListBefore, FreeObjBefore, SizeAfter, ..., NewAllocation), size bytes. */
void per_heap_history(sink *k, double ms, uint64_t tid, const uint8_t *vals, size_t size, uint32_t gens);

/* A blocking GC with its suspension: suspend at t, start t+1, end t+1+dur, restart +0.5. */
void blocking_gc(sink *k, double t, uint32_t n, uint32_t gen, double dur);

gcev_stats *new_model(sink *k, uint8_t ps);

int near(double a, double b);

/* SetGCHandle (id 30), or with k->prov private PrvSetGCHandle (id 194). */
void set_handle(sink *k, double ms, uint64_t id, uint32_t kind);

/* DestroyGCHandle (id 31), or with k->prov private PrvDestroyGCHandle (id 195). */
void destroy_handle(sink *k, double ms, uint64_t id);

gcev_stats *read_back(sink *k);

void new_writer(sink *k, uint8_t ps);

/* A complete blocking GC whose pause (SuspendEEBegin -> RestartEEEnd) is exactly `pause` ms. */
void gc_with_pause(sink *k, double t, uint32_t n, uint32_t gen, uint32_t reason, double pause);

/* One process's GC events, interleaved with another's (below). */
void proc_gc(sink *k, uint32_t pid, double t0, double t1, double t2, uint32_t n, uint32_t gen);

/* Two processes with the same thread ids and GC numbers, their GCs overlapping. */
void two_processes(sink *k);

void check_two_processes(gcev_stats *s);

#endif
