/* SPDX-License-Identifier: MIT */
/*
 * The model of one CTF 1.8 trace's metadata (the subset LTTng writes), as the
 * TSDL parser (gcev_ctf_parser.c) builds it and the stream decoder reads it.
 * Its lookups are gcev_ctf_meta.c's; gcev_ctf_metadata_text is
 * gcev_ctf_metadata_packets.c's.
 *
 * Everything lives in one arena owned by the metadata, whose size is bounded
 * (GCEV_CTF_MAX_ARENA): hostile metadata cannot make the reader allocate
 * without limit. Types are immutable once parsed and may be shared (a
 * typealias names one node).
 */
#ifndef GCEV_CTF_META_H
#define GCEV_CTF_META_H

#include <gcev/gcev.h>

/* Safety limits against hostile metadata. */
enum {
    GCEV_CTF_MAX_METADATA = 64u << 20, /* TSDL text bytes */
    GCEV_CTF_MAX_ARENA = 256u << 20,   /* parsed model bytes */
    GCEV_CTF_MAX_DEPTH = 32,           /* nesting of type declarations */
    GCEV_CTF_MAX_FIELDS = 65536,       /* fields of one struct / options of one variant */
    GCEV_CTF_MAX_ENUM = 65536,         /* entries of one enumeration */
    GCEV_CTF_MAX_EVENTS = 1u << 20,    /* event classes of one trace */
    GCEV_CTF_MAX_STREAMS = 4096,       /* stream classes of one trace */
    GCEV_CTF_MAX_CLOCKS = 64,
    GCEV_CTF_MAX_ENV = 4096,
    GCEV_CTF_MAX_ALIGN = 1u << 16 /* bits */
};

typedef enum gcev_ctf_kind {
    GCEV_CTF_INT,
    GCEV_CTF_FLOAT,
    GCEV_CTF_STRING,
    GCEV_CTF_STRUCT,
    GCEV_CTF_VARIANT,
    GCEV_CTF_ARRAY,
    GCEV_CTF_SEQUENCE,
    GCEV_CTF_ENUM
} gcev_ctf_kind;

/* byte_order of a type: "native" is the trace's, declared possibly after the type */
enum { GCEV_CTF_BO_NATIVE = 0, GCEV_CTF_BO_LE = 1, GCEV_CTF_BO_BE = 2 };

typedef struct gcev_ctf_type gcev_ctf_type;

typedef struct gcev_ctf_field {
    const char *name; /* as declared (LTTng prefixes '_') */
    const gcev_ctf_type *type;
} gcev_ctf_field;

typedef struct gcev_ctf_enum_entry {
    const char *label;
    /* inclusive range, compared as signed when the container is signed */
    uint64_t lo, hi;
} gcev_ctf_enum_entry;

struct gcev_ctf_type {
    uint8_t kind;       /* gcev_ctf_kind */
    uint8_t is_signed;  /* INT, ENUM (of its container) */
    uint8_t byte_order; /* INT, FLOAT, ENUM: GCEV_CTF_BO_* */
    uint8_t encoding;   /* INT, STRING: 0 none, 1 UTF-8, 2 ASCII */
    uint8_t has_clock;  /* INT: map = clock.<name>.value */
    uint8_t base;       /* INT: 2, 8, 10, 16 */
    uint16_t clock;     /* INT with has_clock: index in gcev_ctf_meta.clocks */
    uint32_t size;      /* INT, FLOAT, ENUM: bits */
    uint32_t align;     /* bits, a power of two (VARIANT: 1; its selected option's counts) */
    /* STRUCT: fields; VARIANT: options */
    uint32_t nfields;
    const gcev_ctf_field *fields;
    /* VARIANT: tag path; SEQUENCE: length path (dotted, as written) */
    const char *ref;
    /* ARRAY: element count */
    uint64_t length;
    /* ARRAY, SEQUENCE: element type */
    const gcev_ctf_type *elem;
    /* ENUM: entries (the container's size/sign/order are copied above) */
    uint32_t nentries;
    const gcev_ctf_enum_entry *entries;
};

typedef struct gcev_ctf_clock {
    const char *name;
    uint64_t freq; /* Hz, never 0 */
    int64_t offset_s;
    int64_t offset; /* cycles */
} gcev_ctf_clock;

typedef struct gcev_ctf_env {
    const char *key;
    const char *str; /* string value, or NULL */
    int64_t num;     /* integer value when str is NULL */
} gcev_ctf_env;

typedef struct gcev_ctf_event_class {
    uint64_t id;
    uint64_t stream_id;
    int64_t loglevel;
    const char *name;             /* "" when not declared */
    const gcev_ctf_type *context; /* or NULL */
    const gcev_ctf_type *fields;  /* or NULL */
} gcev_ctf_event_class;

typedef struct gcev_ctf_stream_class {
    uint64_t id;
    const gcev_ctf_type *packet_context; /* or NULL */
    const gcev_ctf_type *event_header;   /* or NULL */
    const gcev_ctf_type *event_context;  /* or NULL */
    /* this stream's event classes: events[first_event .. first_event + nevents), by id */
    uint32_t first_event;
    uint32_t nevents;
} gcev_ctf_stream_class;

typedef struct gcev_ctf_arena gcev_ctf_arena;

typedef struct gcev_ctf_meta {
    gcev_ctf_arena *arena;
    uint32_t major, minor;
    uint8_t big_endian; /* trace byte_order */
    uint8_t has_uuid;
    uint8_t uuid[16];
    const gcev_ctf_type *packet_header; /* or NULL */
    uint32_t nclocks;
    gcev_ctf_clock *clocks;
    uint32_t nenv;
    gcev_ctf_env *env;
    uint32_t nstreams;
    gcev_ctf_stream_class *streams; /* sorted by id */
    uint32_t nevents;
    gcev_ctf_event_class *events; /* sorted by (stream_id, id) */
} gcev_ctf_meta;

/* A parse failure: where (byte of the TSDL text, or of the metadata file) and why. */
typedef struct gcev_ctf_meta_error {
    gcev_status code;
    uint64_t offset;
    uint32_t line; /* 1-based line of the TSDL text; 0 for metadata packet errors */
    char message[160];
} gcev_ctf_meta_error;

/*
 * Unpacks packetized metadata (packets with magic 0x75D11D57, either byte order)
 * or takes plain TSDL text ("/ * CTF" first) as is. *text is malloc'ed and
 * NUL-terminated (*len bytes before the NUL); the caller frees it. On failure
 * e->offset is into `data`.
 */
gcev_status gcev_ctf_metadata_text(const uint8_t *data, size_t size, char **text, size_t *len,
                                   gcev_ctf_meta_error *e);

/* Parses TSDL text into *m. On failure *m is left empty (freed) and e says where. */
gcev_status gcev_ctf_meta_parse(const char *text, size_t len, gcev_ctf_meta *m, gcev_ctf_meta_error *e);
void gcev_ctf_meta_free(gcev_ctf_meta *m);

const gcev_ctf_stream_class *gcev_ctf_meta_stream(const gcev_ctf_meta *m, uint64_t id);
/* The event class of stream class s with the given id, or NULL. */
const gcev_ctf_event_class *gcev_ctf_meta_event(const gcev_ctf_meta *m, const gcev_ctf_stream_class *s,
                                                uint64_t id);
/* env value by key, NULL if absent. */
const gcev_ctf_env *gcev_ctf_meta_env(const gcev_ctf_meta *m, const char *key);
/* Index of the field named `name` in a STRUCT or VARIANT, or -1. */
int gcev_ctf_type_find(const gcev_ctf_type *t, const char *name);

#endif
