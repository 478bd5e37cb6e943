/* SPDX-License-Identifier: MIT */
/*
 * GCDynamicEvent (.NET 8+): the runtime sends a Name and a blob; the blob's
 * layout depends on the Name, and starts with its own UInt16 version. The
 * layouts are events of the pseudo-provider described in
 * manifest/gc_dynamic.man, keyed by symbol = Name.
 */
#include <gcev/gcev.h>

#include <string.h>

#include "gcev_error.h"
#include "gcev_read.h"
#include "gcev_schema_desc.h"

/* UTF-16LE text equal to an ASCII string? */
static int utf16_equals_ascii(gcev_utf16 s, const char *a)
{
    size_t n = strlen(a);
    if (s.nbytes != n * 2) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (gcev_rd_u16le(s.data + 2 * i) != (unsigned char)a[i]) {
            return 0;
        }
    }
    return 1;
}

gcev_status gcev_decode_dynamic(const gcev_event *outer, gcev_event *inner, gcev_error *err)
{
    if (!outer || !inner || !outer->desc || outer->desc->family != GCEV_FAMILY_GC_DYNAMIC_EVENT) {
        return gcev_error_set(err, GCEV_E_INVALID_ARG, 0, NULL, "not a decoded GCDynamicEvent");
    }
    const gcev_gc_dynamic_event *d = &outer->u.gc_dynamic_event;
    const uint64_t need = GCEV_GC_DYNAMIC_EVENT_HAS_NAME | GCEV_GC_DYNAMIC_EVENT_HAS_DATA;
    if ((d->present & need) != need) {
        return gcev_error_set(err, GCEV_E_INVALID_ARG, 0, NULL, "GCDynamicEvent without Name and Data");
    }
    const gcev_provider *p = &gcev_provider_dynamic;
    const gcev_event_desc *named = NULL;
    for (uint16_t i = 0; i < p->nevents && !named; i++) {
        if (utf16_equals_ascii(d->name, p->events[i].symbol)) {
            named = &p->events[i];
        }
    }
    if (!named) {
        return gcev_error_set(err, GCEV_E_UNKNOWN_EVENT, 0, "Name",
                              "no known layout for this GCDynamicEvent name");
    }
    if (d->data.size < 2) {
        return gcev_error_set(err, GCEV_E_TRUNCATED, 0, "Version",
                              "dynamic event data too short for its version");
    }
    gcev_input in = {.struct_size = sizeof in,
                     .provider = p,
                     .event_id = named->id,
                     .version = gcev_rd_u16le(d->data.data),
                     .pointer_size = outer->pointer_size,
                     .data = d->data.data,
                     .size = d->data.size};
    return gcev_decode(&in, inner, err);
}
