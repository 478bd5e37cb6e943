/* SPDX-License-Identifier: MIT */
/*
 * gcev: decode the garbage-collection events of the .NET runtime.
 *
 * Layers (data flows one way):
 *   trace reader (gcev_trace.h) -> event record -> payload decoder (this file)
 *   -> typed struct -> generic field walk / text / JSON formatting.
 *
 * Lifetime rule: every view (gcev_utf16, gcev_bytes, gcev_array) borrows the
 * payload bytes the caller passed in; it is valid exactly as long as those bytes.
 *
 * Thread-safety: every function here is reentrant; the library keeps no mutable
 * global state and the decode path neither allocates nor does I/O.
 */
#ifndef GCEV_H
#define GCEV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(GCEV_SHARED) && !defined(GCEV_STATIC)
#ifdef GCEV_BUILDING
#define GCEV_API __declspec(dllexport)
#else
#define GCEV_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define GCEV_API __attribute__((visibility("default")))
#else
#define GCEV_API
#endif

/* ------------------------------------------------------------------------ */
/* Status codes                                                              */
/* ------------------------------------------------------------------------ */

/* One list gives the enum and the static messages (gcev_status_str). */
#define GCEV_STATUS_LIST(X)                                                                                  \
    X(GCEV_OK, "ok")                                                                                         \
    X(GCEV_END, "end of trace")                                                                              \
    X(GCEV_E_INVALID_ARG, "invalid argument")                                                                \
    X(GCEV_E_TRUNCATED, "payload ends inside a field")                                                       \
    X(GCEV_E_UNTERMINATED_STRING, "string has no terminator before the end of the data")                     \
    X(GCEV_E_UNKNOWN_PROVIDER, "unknown provider")                                                           \
    X(GCEV_E_UNKNOWN_EVENT, "unknown event id for this provider")                                            \
    X(GCEV_E_UNKNOWN_VERSION, "no template for this event version")                                          \
    X(GCEV_E_BAD_POINTER_SIZE, "pointer size must be 4 or 8")                                                \
    X(GCEV_E_BAD_COUNT, "array count or length does not fit in the payload")                                 \
    X(GCEV_E_NO_SPACE, "output buffer too small")                                                            \
    X(GCEV_E_IO, "read error")                                                                               \
    X(GCEV_E_NOMEM, "out of memory")                                                                         \
    X(GCEV_E_FORMAT, "malformed trace data")                                                                 \
    X(GCEV_E_UNSUPPORTED, "unsupported trace format or version")                                             \
    X(GCEV_E_LIMIT, "a size or count exceeds a safety limit")                                                \
    X(GCEV_E_TRUNCATED_FILE, "trace ends inside a record")

typedef enum gcev_status {
#define GCEV_STATUS_ENUM_(name, msg) name,
    GCEV_STATUS_LIST(GCEV_STATUS_ENUM_)
#undef GCEV_STATUS_ENUM_
        GCEV_STATUS_COUNT_
} gcev_status;

/* Static English text for a status; never NULL ("unknown status" for others). */
GCEV_API const char *gcev_status_str(gcev_status status);

/*
 * Optional error detail, owned by the caller; every API taking one accepts NULL.
 * code     same as the returned status.
 * offset   byte offset where the problem was found: into the payload for the
 *          decoder, into the file/stream for trace readers.
 * field    manifest name of the field being read, or NULL.
 * message  static text describing the problem (never freed, never NULL after a
 *          failure; NULL after success).
 */
typedef struct gcev_error {
    gcev_status code;
    uint64_t offset;
    const char *field;
    const char *message;
} gcev_error;

/* ------------------------------------------------------------------------ */
/* Views into the caller's bytes                                             */
/* ------------------------------------------------------------------------ */

/* UTF-16LE text, terminator excluded; data may be unaligned. */
typedef struct gcev_utf16 {
    const uint8_t *data;
    uint32_t nbytes;
} gcev_utf16;

/* Raw bytes (win:Binary, and win:AnsiString without its terminator). */
typedef struct gcev_bytes {
    const uint8_t *data;
    uint32_t size;
} gcev_bytes;

/* A GUID as its 16 wire bytes decoded: data1..3 little-endian, data4 as is. */
typedef struct gcev_guid {
    uint32_t data1;
    uint16_t data2;
    uint16_t data3;
    uint8_t data4[8];
} gcev_guid;

struct gcev_template;

/*
 * An array in the payload: `count` elements in `size` bytes, `stride` bytes
 * apart (stride 0: elements of varying size, e.g. BulkType's, reached by
 * walking from the first). Primitive arrays (data with count=) have
 * elem == NULL and elem_type set; struct arrays have elem pointing at the
 * element template (read elements with the generated gcev_<family>_<array>_at()).
 */
typedef struct gcev_array {
    const uint8_t *data;
    uint32_t size;
    uint32_t count;
    uint16_t stride;
    uint8_t pointer_size;
    uint8_t elem_type; /* gcev_type of primitive elements */
    uint8_t aligned;   /* 1: struct elements use C alignment (a runtime quirk) */
    const struct gcev_template *elem;
} gcev_array;

/* Little-endian unsigned element i of a primitive array (0 when i >= count). */
GCEV_API uint64_t gcev_array_u64_at(const gcev_array *a, uint32_t i);

/*
 * Converts UTF-16LE to UTF-8 into buf (NUL-terminated when n > 0), snprintf style:
 * returns the length the full text needs, excluding the NUL. Unpaired
 * surrogates become U+FFFD.
 */
GCEV_API size_t gcev_utf16_to_utf8(gcev_utf16 s, char *buf, size_t n);

/* Formats a GUID as lowercase 8-4-4-4-12 (36 chars + NUL; buf must hold 37). */
GCEV_API void gcev_guid_format(const gcev_guid *g, char buf[37]);
/* Parses 8-4-4-4-12 with or without braces, any case. Returns 1 on success. */
GCEV_API int gcev_guid_parse(const char *text, gcev_guid *out);

/* ------------------------------------------------------------------------ */
/* Schema descriptors (instances are generated from the manifest)            */
/* ------------------------------------------------------------------------ */

/* Manifest inType of a field, plus GCEV_T_STRUCT for <struct>. */
typedef enum gcev_type {
    GCEV_T_INT8,
    GCEV_T_UINT8,
    GCEV_T_INT16,
    GCEV_T_UINT16,
    GCEV_T_INT32,
    GCEV_T_UINT32,
    GCEV_T_INT64,
    GCEV_T_UINT64,
    GCEV_T_FLOAT,
    GCEV_T_DOUBLE,
    GCEV_T_BOOLEAN, /* win:Boolean, 4 bytes on the wire */
    GCEV_T_POINTER, /* 4 or 8 bytes: the trace's pointer size */
    GCEV_T_GUID,
    GCEV_T_FILETIME,
    GCEV_T_SYSTEMTIME,
    GCEV_T_UNICODE_STRING,
    GCEV_T_ANSI_STRING,
    GCEV_T_BINARY,
    GCEV_T_STRUCT,
    GCEV_TYPE_COUNT_
} gcev_type;

/* The manifest spelling of a type ("win:UInt32", "struct"). */
GCEV_API const char *gcev_type_name(gcev_type t);

/* How a field is held in its C struct (the struct member's type). */
typedef enum gcev_store {
    GCEV_S_U8,
    GCEV_S_U16,
    GCEV_S_U32,
    GCEV_S_U64,
    GCEV_S_I8,
    GCEV_S_I16,
    GCEV_S_I32,
    GCEV_S_I64,
    GCEV_S_F32,
    GCEV_S_F64,
    GCEV_S_GUID,
    GCEV_S_UTF16,
    GCEV_S_BYTES,
    GCEV_S_ARRAY
} gcev_store;

typedef struct gcev_map_entry {
    uint32_t value;
    const char *name;
} gcev_map_entry;

/* A valueMap or bitMap; entries sorted by value. */
typedef struct gcev_map {
    const char *name;
    uint8_t is_bitmap;
    uint16_t count;
    const gcev_map_entry *entries;
} gcev_map;

/* outType hints kept from the manifest (formatting only). */
enum { GCEV_OUT_DEFAULT = 0, GCEV_OUT_HEX = 1 };

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
    const gcev_map *map;              /* value/bit map, or NULL */
    const struct gcev_template *elem; /* element template of a struct array */
    /* Wire bytes of a fixed-size scalar for pointer size 4 / 8 (0: variable);
     * GCEV_WIRE_WIDEN_SIGNED is or'ed in when a narrower signed value must be
     * sign-extended into a wider member. */
    uint8_t wire[2];
} gcev_field_desc;

enum { GCEV_WIRE_WIDEN_SIGNED = 0x80 };

/* Template flags. */
enum {
    GCEV_TF_FIXED = 1u << 0,         /* only fixed-size scalar fields (no SYSTEMTIME) */
    GCEV_TF_STRUCT_ARRAYS = 1u << 1, /* has <struct> arrays (quirks may apply) */
    GCEV_TF_COVERS_STRUCT = 1u << 2, /* writes every member of its C struct in full
                                        (with 8-byte pointers) */
    GCEV_TF_POINTERS = 1u << 3       /* has win:Pointer fields */
};

typedef struct gcev_template {
    const char *name;
    const gcev_field_desc *fields;
    uint16_t nfields;
    uint16_t struct_size; /* sizeof the C struct the fields land in */
    uint16_t min_size[2]; /* smallest payload for pointer size 4 / 8 */
    uint8_t flags;        /* GCEV_TF_* */
    uint64_t all_present; /* the present bits of all its fields */
} gcev_template;

struct gcev_provider;

typedef struct gcev_event_desc {
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
    const char *keyword_names; /* space separated, as in the manifest */
    const gcev_template *tmpl; /* NULL: the event has no payload */
} gcev_event_desc;

typedef struct gcev_provider {
    const char *name;
    const char *prefix; /* C name prefix used for its types ("" for the runtime) */
    gcev_guid guid;
    uint8_t has_guid;
    uint16_t nevents;
    const gcev_event_desc *events; /* sorted by (id, version) */
    uint16_t max_id;
    const uint16_t *by_id; /* [id] = 1 + index of the id's first version in events, 0 if none */
} gcev_provider;

/* An event family: all versions of one (provider, id), one C struct. */
typedef struct gcev_family_info {
    const struct gcev_provider *provider;
    uint16_t id;
    uint16_t struct_size;
    const char *name;  /* e.g. "GCStart" */
    const char *cname; /* e.g. "gc_start" (struct gcev_gc_start, u.gc_start) */
} gcev_family_info;

/* Family info by gcev_family value; NULL when out of range. */
GCEV_API const gcev_family_info *gcev_family_get(uint16_t family);

/* All providers known to this build. */
GCEV_API const gcev_provider *const *gcev_providers(size_t *count);
/* Finds a provider by name (case-insensitive) or by GUID text; NULL if unknown. */
GCEV_API const gcev_provider *gcev_provider_find(const char *name_or_guid);
/* Finds a provider by GUID; NULL if unknown. */
GCEV_API const gcev_provider *gcev_provider_find_guid(const gcev_guid *guid);

/*
 * The one place that turns (provider, id, version) into a template:
 * the exact version when known; for a version newer than the newest known,
 * the newest (its extra bytes are then reported as trailing). Returns NULL and
 * sets *status to GCEV_E_UNKNOWN_EVENT or GCEV_E_UNKNOWN_VERSION otherwise.
 */
GCEV_API const gcev_event_desc *gcev_event_desc_resolve(const gcev_provider *p, uint16_t id, uint16_t version,
                                                        gcev_status *status);

/* Name of value v in a value map, NULL when the map has no such value. */
GCEV_API const char *gcev_map_name(const gcev_map *m, uint64_t v);
/*
 * Formats v with a bit map as "A|B" (unknown bits appended as "0x..."), or a
 * value map as its name (or the number). snprintf semantics.
 */
GCEV_API size_t gcev_map_format(const gcev_map *m, uint64_t v, char *buf, size_t n);

/*
 * Decodes into a family struct (what the generated gcev_decode_<family>() call):
 * version resolution as gcev_event_desc_resolve(). `out` must be the family's
 * struct. *consumed (may be NULL) gets the bytes used.
 */
GCEV_API gcev_status gcev_decode_family(uint16_t family, uint16_t version, uint8_t pointer_size,
                                        const uint8_t *data, size_t size, void *out, uint32_t *consumed,
                                        gcev_error *err);

/*
 * Reads element i of a struct array into `elem_out` (a struct of the element's
 * generated type, a->elem->struct_size bytes).
 */
GCEV_API gcev_status gcev_array_elem(const gcev_array *a, uint32_t i, void *elem_out, gcev_error *err);

#ifdef __cplusplus
}
#endif

/* Generated from the manifest: families, typed structs, map lookups. */
#include <gcev/gcev_events.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Decoding                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct gcev_input {
    const gcev_provider *provider; /* from gcev_provider_find() */
    uint16_t event_id;
    uint16_t version;
    uint8_t pointer_size; /* of the traced process: 4 or 8 */
    const uint8_t *data;  /* payload; may be NULL when size == 0 */
    size_t size;
} gcev_input;

/* A decoded event: its schema and its typed fields. */
typedef struct gcev_event {
    const gcev_event_desc *desc; /* template used */
    uint16_t version;            /* version of the input (may exceed desc->version) */
    uint8_t pointer_size;
    uint8_t newer_version; /* 1 when decoded with an older template */
    uint32_t consumed;     /* payload bytes the template used */
    uint32_t trailing;     /* payload bytes after them (not an error) */
    gcev_union u;          /* u.<family>, tag desc->family */
} gcev_event;

/*
 * Decodes one payload. On success returns GCEV_OK. On failure returns the
 * status and fills *err (if non-NULL); `out` then holds the fields fully read
 * before the fault, each flagged in its struct's `present` mask, and nothing
 * else. Payloads are limited to 4 GiB - 1 (GCEV_E_LIMIT beyond).
 */
GCEV_API gcev_status gcev_decode(const gcev_input *in, gcev_event *out, gcev_error *err);

/*
 * Decodes with a known descriptor (skips the lookup). `struct_out` must point at
 * the family struct of desc (desc->tmpl->struct_size bytes). Used by the
 * generated gcev_decode_<family>() helpers.
 */
GCEV_API gcev_status gcev_decode_desc(const gcev_event_desc *desc, uint8_t pointer_size, const uint8_t *data,
                                      size_t size, void *struct_out, uint32_t *consumed, gcev_error *err);

/*
 * Encodes `ev` (desc, pointer_size and fields; `present` bits are ignored:
 * every field of the template is written) as payload bytes into buf.
 * *written gets the size needed, also when GCEV_E_NO_SPACE is returned.
 * Strings are written with their terminator; arrays copy their view's bytes and
 * must have the stride of the target pointer size.
 */
GCEV_API gcev_status gcev_encode(const gcev_event *ev, uint8_t *buf, size_t cap, size_t *written,
                                 gcev_error *err);

/* ------------------------------------------------------------------------ */
/* Generic access and formatting                                            */
/* ------------------------------------------------------------------------ */

/* One field of a decoded event or array element. */
typedef struct gcev_field {
    const gcev_field_desc *desc;
    const char *name;
    gcev_type type;
    uint32_t payload_offset; /* where the field starts in the payload */
    union {
        uint64_t u;       /* unsigned ints, pointers, booleans */
        int64_t i;        /* signed ints */
        double d;         /* float, double */
        gcev_utf16 str;   /* UnicodeString */
        gcev_bytes bytes; /* Binary, AnsiString */
        gcev_array array; /* struct arrays, count= data */
        gcev_guid guid;
    } v;
    const char *value_name; /* value-map name, NULL if none/unknown */
} gcev_field;

typedef struct gcev_field_iter {
    const gcev_template *tmpl;
    const uint8_t *base; /* the typed struct */
    uint64_t present;
    uint16_t next;
    uint8_t pointer_size;
    uint8_t aligned;
    uint32_t pos;
} gcev_field_iter;

/* Starts iterating the present fields of a decoded event, in manifest order. */
GCEV_API void gcev_field_iter_init(gcev_field_iter *it, const gcev_event *ev);
/* Starts iterating element i of an array field (struct arrays only). */
GCEV_API gcev_status gcev_field_iter_elem(gcev_field_iter *it, const gcev_array *a, uint32_t i,
                                          void *elem_buf, size_t elem_buf_size);
/* Next field; returns 0 at the end. */
GCEV_API int gcev_field_next(gcev_field_iter *it, gcev_field *f);

/* "GCStart_V2 Count=8 Depth=0 Reason=0(AllocSmall) ..." into buf; snprintf semantics. */
GCEV_API size_t gcev_format_text(const gcev_event *ev, char *buf, size_t n);
/*
 * JSON object of the fields only: {"Count":8,...}; integers as exact numbers,
 * strings as strings, arrays/structs as arrays of objects, binary as hex text.
 * snprintf semantics.
 */
GCEV_API size_t gcev_format_fields_json(const gcev_event *ev, char *buf, size_t n);
/*
 * {"Reason":"AllocSmall",...}: names of the mapped fields with a known name
 * ("{}" when none). snprintf semantics.
 */
GCEV_API size_t gcev_format_names_json(const gcev_event *ev, char *buf, size_t n);

/* ------------------------------------------------------------------------ */
/* GCDynamicEvent (.NET 8+): second-level dispatch on its Name              */
/* ------------------------------------------------------------------------ */

/*
 * Decodes the Data blob of a decoded GCDynamicEvent whose Name is known into
 * `inner` (provider "Microsoft-Windows-DotNETRuntime-GCDynamicEvent").
 * Returns GCEV_E_UNKNOWN_EVENT for unknown names: the blob stays a raw view.
 */
GCEV_API gcev_status gcev_decode_dynamic(const gcev_event *outer, gcev_event *inner, gcev_error *err);

#ifdef __cplusplus
}
#endif

#include <gcev/gcev_trace.h>

#endif /* GCEV_H */
