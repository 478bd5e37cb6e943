/* SPDX-License-Identifier: MIT */
/*
 * Where real payloads differ from the manifest (doc/quirks.md holds the evidence).
 * The list is hand-written; the generated event table stores each event's quirk
 * flags (gcev_event_desc.quirks = GCEV_QUIRKS_OF(family, version)), computed by the
 * compiler from this list, so the decoder reads one byte instead of searching.
 */
#ifndef GCEV_QUIRKS_H
#define GCEV_QUIRKS_H

#include "gcev_schema_desc.h"

enum {
    GCEV_Q_ALIGNED_ELEMENTS = 1u << 0 /* struct-array elements use C natural alignment */
};

/*
 * Struct-array elements laid out with C (MSVC/System V) natural alignment:
 * X(F, V, family, first version, last version).
 *  - GCLOHCompact: the manifest's element (3 x UInt32 + 2 x Pointer) is 28 bytes
 *    packed on x64; real x64 payloads use 32-byte elements with 4 bytes of padding
 *    before TotalRefs (doc/quirks.md Q1: the runtime fires its C struct array as is).
 *  - GCFitBucketInfo: manifest element UInt16 + UInt32 + Pointer = 14 bytes packed,
 *    real x64 elements are 16 bytes (2 bytes of padding after Index); with the
 *    aligned layout the bucket sizes add up exactly to TotalSize (doc/quirks.md Q2).
 */
#define GCEV_QUIRKS_ALIGNED_ELEMENTS(X, F, V)                                                                \
    X(F, V, GCEV_FAMILY_GCLOH_COMPACT, 0, 255)                                                               \
    X(F, V, GCEV_FAMILY_GC_FIT_BUCKET_INFO, 0, 255)

#define GCEV_QUIRK_MATCH_(F, V, family, lo, hi) || ((F) == (family) && (V) >= (lo) && (V) <= (hi))
/* The quirk flags of the event (family F, version V): a constant expression. */
#define GCEV_QUIRKS_OF(F, V)                                                                                 \
    ((0 GCEV_QUIRKS_ALIGNED_ELEMENTS(GCEV_QUIRK_MATCH_, F, V)) ? GCEV_Q_ALIGNED_ELEMENTS : 0)

/* 1 when the struct arrays of this event use C-aligned elements on the wire. */
static inline int gcev_quirk_aligned_elements(const gcev_event_desc *desc)
{
    return (desc->quirks & GCEV_Q_ALIGNED_ELEMENTS) != 0;
}

/*
 * Values the runtime logs beyond the manifest's value maps: X(map name, value, name).
 * GCStart's and GCTriggered's Reason is the GC's own gc_reason (dotnet/runtime
 * src/coreclr/gc/gc.h, "These values should be in sync with the GC_REASONs (in
 * eventtrace.h) used for ETW"), which goes to reason_induced_aggressive = 17 while
 * ClrEtwAll.man's GCReasonMap stops at 0x9 (doc/quirks.md Q3). gcev_map_value_name()
 * (gcev_schema.c) consults it after the manifest's map.
 */
#define GCEV_QUIRKS_VALUE_NAMES(X)                                                                           \
    X("GCReasonMap", 10, "InducedCompacting")     /* reason_induced_compacting */                            \
    X("GCReasonMap", 11, "LowMemoryHost")         /* reason_lowmemory_host */                                \
    X("GCReasonMap", 12, "PMFullGC")              /* reason_pm_full_gc: provisional mode */                  \
    X("GCReasonMap", 13, "LowMemoryHostBlocking") /* reason_lowmemory_host_blocking */                       \
    X("GCReasonMap", 14, "BGCTuningSOH")          /* reason_bgc_tuning_soh */                                \
    X("GCReasonMap", 15, "BGCTuningLOH")          /* reason_bgc_tuning_loh */                                \
    X("GCReasonMap", 16, "BGCStepping")           /* reason_bgc_stepping */                                  \
    X("GCReasonMap", 17, "InducedAggressive")     /* reason_induced_aggressive */

#endif
