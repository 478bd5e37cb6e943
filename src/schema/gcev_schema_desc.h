/* SPDX-License-Identifier: MIT */
/*
 * The engine's schema descriptors: what gcev-gen emits for every template and
 * event, and what the decoder, encoder and field walk interpret. Private to the
 * library (its layout may change between releases); users see these through the
 * opaque handles and info structs of the schema-introspection API in gcev.h.
 */
#ifndef GCEV_SCHEMA_DESC_H
#define GCEV_SCHEMA_DESC_H

#include <gcev/gcev.h>

#include <stddef.h>
#include <string.h>

#include "gcev_schema_consts.h"

typedef struct gcev_map_entry {
    uint32_t value;
    const char *name;
} gcev_map_entry;

/* A valueMap or bitMap; entries sorted by value. */
struct gcev_map {
    const char *name;
    uint8_t is_bitmap;
    uint16_t count;
    const gcev_map_entry *entries;
};

typedef struct gcev_field_desc {
    const char *name;                 /* manifest data/struct name */
    uint8_t type;                     /* gcev_type */
    uint8_t store;                    /* gcev_store of the C member */
    uint8_t out_type;                 /* GCEV_OUT_* */
    uint8_t present_bit;              /* bit in the struct's `present` mask */
    uint16_t offset;                  /* offsetof the C member */
    int16_t count_field;              /* index of the sibling holding the count, or -1 */
    uint16_t fixed_count;             /* count="N" literal; 0 when none */
    int16_t length_field;             /* index of the sibling holding a byte length, or -1 */
    const struct gcev_map *map;       /* value/bit map, or NULL */
    const struct gcev_template *elem; /* element template of a struct array */
    /* Wire bytes of a fixed-size scalar for pointer size 4 / 8 (0: variable);
     * GCEV_WIRE_WIDEN_SIGNED is or'ed in when a narrower signed value must be
     * sign-extended into a wider member. */
    uint8_t wire[2];
} gcev_field_desc;

struct gcev_template {
    const char *name;
    const gcev_field_desc *fields;
    uint16_t nfields;
    uint16_t struct_size; /* sizeof the C struct the fields land in */
    uint16_t min_size[2]; /* smallest payload for pointer size 4 / 8 */
    uint8_t flags;        /* GCEV_TF_* */
    uint64_t all_present; /* the present bits of all its fields */
    /* An event template's every field as gcev_fields() gives it (u: the decoded family
     * struct with every field present; wide: 8-byte pointers; out: nfields fields): a copy
     * of gcev-gen's prototypes and a store per value; returns nfields (so that gcev_fields()
     * can end in a tail call). NULL for element templates. */
    size_t (*fill)(const void *u, unsigned wide, gcev_field *out);
};

struct gcev_event_desc {
    const struct gcev_provider *provider;
    uint16_t id;
    uint8_t version;
    uint8_t level;
    uint16_t family; /* gcev_family of the typed struct */
    uint8_t opcode;
    uint16_t task;
    uint64_t keywords;
    const char *symbol; /* manifest symbol, e.g. "GCStart_V2" */
    const char *task_name;
    const char *opcode_name;
    const char *keyword_names;        /* space separated, as in the manifest */
    const struct gcev_template *tmpl; /* NULL: the event has no payload */
    uint16_t index;                   /* 0, 1, ... over every provider's events: the row of the
                                         decode layer's per-event tables (gcev_fast.h) */
    uint8_t quirks;                   /* GCEV_Q_* (gcev_quirks.h), fixed when the tables are compiled */
};

struct gcev_provider {
    const char *name;
    const char *prefix; /* C name prefix used for its types ("" for the runtime) */
    gcev_guid guid;
    uint8_t has_guid;
    uint16_t nevents;
    const struct gcev_event_desc *events; /* sorted by (id, version) */
    uint16_t max_id;
    /* O(1) look-up of (id, version): by_id[id] is 0 for an unknown id, else 1 + the
     * offset in versions[] of the id's row: versions[row] = its newest version N, then
     * versions[row + 1 + v] for v = 0..N = 1 + index in events of version v, or 0. */
    const uint16_t *by_id;
    const uint16_t *versions;
};

/*
 * For gcev-gen's fill functions (gcev_template.fill): *out as its prototype up to the value
 * (name, type, is_array, hex, map, payload offset, padding 0), and 0 past the value's first
 * `size` bytes, which the caller stores: with the value, what gcev_field_next() yields.
 */
static inline void gcev_field_from_proto(gcev_field *out, const gcev_field *proto, size_t size)
{
    memcpy(out, proto, offsetof(gcev_field, v));
    memset((char *)&out->v + size, 0, sizeof *out - offsetof(gcev_field, v) - size);
}

/*
 * The one version look-up (gcev_event_desc_resolve() is its public face, the decode
 * path inlines it): the exact version, a version newer than the newest known gets
 * the newest (versions only append fields), else GCEV_E_UNKNOWN_EVENT /
 * GCEV_E_UNKNOWN_VERSION. p must not be NULL.
 */
static inline const struct gcev_event_desc *gcev_desc_resolve(const struct gcev_provider *p, uint16_t id,
                                                              uint16_t version, gcev_status *status)
{
    if (id > p->max_id || p->by_id[id] == 0) {
        *status = GCEV_E_UNKNOWN_EVENT;
        return NULL;
    }
    const uint16_t *row = p->versions + (p->by_id[id] - 1);
    const uint16_t k = row[1 + (version < row[0] ? version : row[0])];
    if (k == 0) {
        *status = GCEV_E_UNKNOWN_VERSION;
        return NULL;
    }
    *status = GCEV_OK;
    return &p->events[k - 1];
}

/* The same look-up for the decode path: 1 + the index in p->events, or 0 when unknown. */
static inline unsigned gcev_desc_lookup(const struct gcev_provider *p, uint16_t id, uint16_t version)
{
    if (id > p->max_id || p->by_id[id] == 0) {
        return 0;
    }
    const uint16_t *row = p->versions + (p->by_id[id] - 1);
    return row[1 + (version < row[0] ? version : row[0])];
}

#endif
