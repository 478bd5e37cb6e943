/* SPDX-License-Identifier: MIT */
/*
 * Where real payloads differ from the manifest. Hand-written, one entry per
 * quirk; doc/quirks.md holds the evidence (runtime source, real traces, tests).
 * The generated tables stay exactly what the manifest says; the engine consults
 * this table for events with struct arrays.
 */
#include <string.h>

#include "gcev_quirks.h"
#include "gcev_schema_desc.h"

typedef struct gcev_quirk {
    const char *provider;
    uint16_t id;
    uint8_t min_version, max_version;
    const char *evidence;
} gcev_quirk;

/* Struct-array elements laid out with C (MSVC/System V) natural alignment. */
static const gcev_quirk aligned_elements[] = {
    {"Microsoft-Windows-DotNETRuntime", 208, 0, 255,
     "GCLOHCompact: the manifest's element (3 x UInt32 + 2 x Pointer) is 28 bytes packed on x64, "
     "real x64 payloads use 32-byte elements with 4 bytes of padding before TotalRefs "
     "(doc/quirks.md Q1: the runtime fires its C struct array as is)"},
    {"Microsoft-Windows-DotNETRuntime", 209, 0, 255,
     "GCFitBucketInfo: manifest element UInt16 + UInt32 + Pointer = 14 bytes packed, real x64 "
     "elements are 16 bytes (2 bytes of padding after Index); with the aligned layout the bucket "
     "sizes add up exactly to TotalSize (doc/quirks.md Q2)"},
};

int gcev_quirk_aligned_elements(const gcev_event_desc *desc)
{
    for (size_t i = 0; i < sizeof aligned_elements / sizeof aligned_elements[0]; i++) {
        const gcev_quirk *q = &aligned_elements[i];
        if (desc->id == q->id && desc->version >= q->min_version && desc->version <= q->max_version &&
            strcmp(desc->provider->name, q->provider) == 0) {
            return 1;
        }
    }
    return 0;
}
