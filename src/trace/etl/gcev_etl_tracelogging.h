/* SPDX-License-Identifier: MIT */
/*
 * TraceLogging (self-describing ETW) events: the EVENT_SCHEMA_TL extended item
 * of an event record describes its name and fields; the PROV_TRAITS item names
 * its provider. This unit turns a schema into a gcev_trace_field tree whose type
 * codes are the TraceLogging/TDH in-types (TDH_INTYPE_*: 1 UnicodeString,
 * 2 AnsiString, 3 Int8 ... 15 Guid, 17 FileTime, 18 SystemTime, 24 struct),
 * with the out-type, a constant array count (GCEV_FIELD_FIXED_COUNT) and
 * custom serialization (GCEV_FIELD_CUSTOM) kept for the payload formatter.
 *
 * Schemas are cached by their bytes: an event's tree is parsed once and stays
 * valid until the cache is destroyed (the time-ordering layer keeps field
 * pointers of buffered events). The cache is bounded (GCEV_E_LIMIT beyond), so
 * memory does not grow with the file even when every event has its own schema.
 */
#ifndef GCEV_ETL_TRACELOGGING_H
#define GCEV_ETL_TRACELOGGING_H

#include <gcev/gcev_trace.h>

/* TraceLogging in-type byte: low 5 bits the type, then count and chain flags. */
enum {
    GCEV_TL_IN_TYPE_MASK = 0x1f,
    GCEV_TL_IN_CCOUNT = 0x20, /* constant count: u16 in the metadata */
    GCEV_TL_IN_VCOUNT = 0x40, /* variable count: u16 in the payload */
    GCEV_TL_IN_CUSTOM = 0x60, /* custom serializer: u16 size + schema in the metadata */
    GCEV_TL_IN_COUNT_MASK = 0x60,
    GCEV_TL_IN_CHAIN = 0x80,  /* an out-type byte follows */
    GCEV_TL_OUT_CHAIN = 0x80, /* field tags follow the out-type */
    GCEV_TL_IN_STRUCT = 24    /* out-type slot holds the number of member fields */
};

typedef struct gcev_etl_tl_schema {
    const char *event_name; /* UTF-8, NUL-terminated */
    uint32_t nfields;       /* top-level fields */
    const gcev_trace_field *fields;
} gcev_etl_tl_schema;

typedef struct gcev_etl_tl_cache gcev_etl_tl_cache;

/* NULL when out of memory. */
gcev_etl_tl_cache *gcev_etl_tl_cache_create(void);
void gcev_etl_tl_cache_destroy(gcev_etl_tl_cache *c);

/*
 * The schema described by the n bytes of an EVENT_SCHEMA_TL item, parsed on first
 * sight. GCEV_E_FORMAT with *msg when the bytes are malformed, GCEV_E_LIMIT when
 * the cache is full, GCEV_E_NOMEM.
 */
gcev_status gcev_etl_tl_schema_get(gcev_etl_tl_cache *c, const uint8_t *meta, uint32_t n,
                                   const gcev_etl_tl_schema **out, const char **msg);

/*
 * The provider name in the n bytes of a PROV_TRAITS item (u16 size, then the
 * NUL-terminated name), pointing into those bytes; NULL when malformed.
 */
const char *gcev_etl_tl_provider_name(const uint8_t *traits, uint32_t n);

#endif
