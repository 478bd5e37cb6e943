/* SPDX-License-Identifier: MIT */
/*
 * gcev: decode the garbage-collection events of the .NET runtime.
 *
 * This header: status codes, views, schema introspection, payload decoding and
 * encoding, the generic field walk and text/JSON formatting. Trace files are read
 * with <gcev/gcev_trace.h> (which includes this header), GC analysis is
 * <gcev/gcev_stats.h>. The typed structs, family ids, present bits and map look-ups
 * are generated from the manifest into <gcev/gcev_events.h>, included below.
 *
 * Conventions of every function here (each function's comment says only what differs):
 * - Errors: functions return a gcev_status; GCEV_OK (0) is success. Where a function
 *   takes a `gcev_error *err`, NULL is allowed; on failure every member of *err is set
 *   (code, offset, field, message); on success *err is left as it was.
 * - Lifetime: every view (gcev_utf16, gcev_bytes, gcev_array) borrows the payload bytes
 *   the caller passed in and is valid exactly as long as those bytes. Schema handles
 *   (gcev_provider, gcev_event_desc, gcev_template, gcev_map) and every string they
 *   lead to are static: valid for the life of the program, never freed.
 * - Thread-safety: every function is reentrant; the library keeps no mutable global
 *   state, and decoding neither allocates nor does I/O.
 * - Text output uses snprintf semantics: the function writes at most n bytes including
 *   a NUL terminator (none when n == 0, buf may then be NULL) and returns the length
 *   the whole text needs, excluding the NUL; retry with a bigger buffer when it is >= n.
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
/* Version                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * The release these headers belong to (doc/ABI.md: what a minor or patch release may
 * change). CMake reads the project's version from these three lines.
 */
#define GCEV_VERSION_MAJOR 0
#define GCEV_VERSION_MINOR 2
#define GCEV_VERSION_PATCH 0
/* 0xMMmmpp: compare with gcev_version() to tell the headers from the library loaded. */
#define GCEV_VERSION_HEX ((GCEV_VERSION_MAJOR << 16) | (GCEV_VERSION_MINOR << 8) | GCEV_VERSION_PATCH)
#define GCEV_VERSION_STRING "0.2.0"

/* The library's GCEV_VERSION_HEX (that of the library loaded, not of the headers). */
GCEV_API uint32_t gcev_version(void);
/* The library's GCEV_VERSION_STRING, a static string. */
GCEV_API const char *gcev_version_string(void);

/* ------------------------------------------------------------------------ */
/* Growable structs the caller owns                                          */
/* ------------------------------------------------------------------------ */

/*
 * The structs a program fills and passes in (options, input records) begin with
 * `uint32_t struct_size`: the bytes of the struct as the program was built, so that a
 * later release can add members at their end without breaking programs built against
 * this one (doc/ABI.md). Set it to the struct's sizeof: GCEV_INIT(type) does, zeroing the
 * rest (`gcev_trace_options o = GCEV_INIT(gcev_trace_options);`, or
 * `{.struct_size = sizeof o, .order = ...}`); 0 (a zero-initialized struct) means the
 * struct's first layout, that of release 0.2.0 (SOVERSION 1). The library reads only the members that lie
 * within struct_size (the sizeof of one of the struct's layouts); the others take their
 * defaults, as 0 gives. A struct_size from 1 to 3 is GCEV_E_INVALID_ARG. A struct_size
 * larger than this library's struct (a program built against a later release) is
 * accepted when the bytes past this library's members are 0 (options the program left
 * unset), else the call fails with GCEV_E_UNSUPPORTED: ignoring them would change what the
 * call does. The records the library fills in the caller's memory (gcev_event,
 * gcev_trace_event) have no struct_size: they have a fixed size with reserved room at
 * their end, which the library zeroes and later releases take new members from.
 */
#define GCEV_INIT(type)                                                                                      \
    {                                                                                                        \
        .struct_size = sizeof(type)                                                                          \
    }

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
    X(GCEV_E_TRUNCATED_FILE, "trace ends inside a record")                                                   \
    X(GCEV_E_NO_PROCESS, "no such process")                                                                  \
    X(GCEV_E_NOT_DOTNET, "no .NET diagnostic socket for this process")                                       \
    X(GCEV_E_PERMISSION, "permission denied")                                                                \
    X(GCEV_E_REFUSED, "the runtime refused the command")                                                     \
    X(GCEV_E_TIMEOUT, "timed out")                                                                           \
    X(GCEV_E_PROCESS_EXITED, "the process ended the session before it was stopped")

typedef enum gcev_status {
#define GCEV_STATUS_ENUM_(name, msg) name,
    GCEV_STATUS_LIST(GCEV_STATUS_ENUM_)
#undef GCEV_STATUS_ENUM_
        GCEV_STATUS_COUNT_
} gcev_status;

/*
 * Static English text for a status ("payload ends inside a field").
 * Returns "unknown status" for values outside the enum; never NULL.
 */
GCEV_API const char *gcev_status_str(gcev_status status);

/*
 * Optional error detail, owned by the caller (on the stack is fine).
 * code     the status the function returned.
 * offset   byte offset where the problem was found: into the payload for the
 *          decoder, into the file or stream for trace readers.
 * field    manifest name of the field being read (static text), or NULL when the
 *          problem is not in a field.
 * message  static text describing the problem; never NULL after a failure.
 */
/*
 * gcev_error does not grow (no struct_size member, doc/ABI.md): every failing call fills all of
 * it, also when the program left it uninitialized. More detail about a failure comes from
 * functions of the object that failed (gcev_trace_skip_at ...).
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

/* A list of fields: an event's payload layout, or a struct array's element (opaque). */
typedef struct gcev_template gcev_template;

/*
 * An array in the payload: `count` elements in `size` bytes, `stride` bytes
 * apart (stride 0: elements of varying size, e.g. BulkType's, reached by
 * walking from the first). Primitive arrays (data with count=) have
 * elem == NULL and elem_type set; struct arrays have elem set (read elements
 * with the generated gcev_<family>_<array>_at() or gcev_array_elem()).
 */
typedef struct gcev_array {
    const uint8_t *data;
    uint32_t size;
    uint32_t count;
    uint16_t stride;
    uint8_t pointer_size;
    uint8_t elem_type;         /* gcev_type of primitive elements */
    uint8_t aligned;           /* 1: struct elements use C alignment (a runtime quirk) */
    const gcev_template *elem; /* element fields of a struct array, else NULL */
} gcev_array;

/*
 * Little-endian unsigned element i of a primitive array (count= data).
 * Returns 0 when a is NULL, i >= a->count, or a is a struct array.
 */
GCEV_API uint64_t gcev_array_u64_at(const gcev_array *a, uint32_t i);

/*
 * Converts UTF-16LE to UTF-8 into buf, snprintf semantics. Unpaired surrogates
 * become U+FFFD; an odd trailing byte is ignored. s.data may be NULL when
 * s.nbytes == 0.
 */
GCEV_API size_t gcev_utf16_to_utf8(gcev_utf16 s, char *buf, size_t n);

/* Formats g as lowercase 8-4-4-4-12 into buf (36 chars + NUL). g and buf must not be NULL. */
GCEV_API void gcev_guid_format(const gcev_guid *g, char buf[37]);
/*
 * Parses 8-4-4-4-12 hex, with or without braces, any case, into *out.
 * Returns 1 on success, 0 on anything else (or when text or out is NULL).
 */
GCEV_API int gcev_guid_parse(const char *text, gcev_guid *out);

/* ------------------------------------------------------------------------ */
/* Schema introspection: providers, events, versions, fields, maps          */
/* ------------------------------------------------------------------------ */

/*
 * The compiled schema is reached through opaque handles; what they describe is read
 * into small info structs, so the engine's own tables can change between releases
 * without breaking programs built against this header.
 */
typedef struct gcev_provider gcev_provider;     /* an event provider (GUID + name) */
typedef struct gcev_event_desc gcev_event_desc; /* one (provider, id, version) */
typedef struct gcev_map gcev_map;               /* a valueMap or bitMap */

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

/* The manifest spelling of a type ("win:UInt32", "struct"); "unknown" outside the enum. */
GCEV_API const char *gcev_type_name(gcev_type t);

/*
 * All providers known to this build, in a fixed order. *count (may be NULL)
 * receives their number. The array and the providers are static.
 */
GCEV_API const gcev_provider *const *gcev_providers(size_t *count);
/*
 * Finds a provider by name (ASCII case-insensitive, e.g.
 * "Microsoft-Windows-DotNETRuntime") or by GUID text (with or without braces).
 * Returns NULL when unknown or when name_or_guid is NULL.
 */
GCEV_API const gcev_provider *gcev_provider_find(const char *name_or_guid);
/* Finds a provider by GUID; NULL when unknown or when guid is NULL. */
GCEV_API const gcev_provider *gcev_provider_find_guid(const gcev_guid *guid);

typedef struct gcev_provider_info {
    const char *name; /* e.g. "Microsoft-Windows-DotNETRuntime" */
    gcev_guid guid;
    uint8_t has_guid;   /* 0 for gcev's own pseudo-provider of GCDynamicEvent layouts */
    size_t event_count; /* event versions, reachable with gcev_provider_event_at() */
} gcev_provider_info;

/* Fills *out with what p describes. Returns GCEV_E_INVALID_ARG when p or out is NULL. */
GCEV_API gcev_status gcev_provider_get_info(const gcev_provider *p, gcev_provider_info *out);
/*
 * The i-th event version of p, sorted by (id, version); NULL when p is NULL or
 * i >= its event_count.
 */
GCEV_API const gcev_event_desc *gcev_provider_event_at(const gcev_provider *p, size_t i);

/*
 * The one place that turns (provider, id, version) into an event description:
 * the exact version when known; for a version newer than the newest known, the
 * newest (its extra bytes are then reported as trailing by the decoder).
 * Returns NULL and sets *status (may be NULL) to GCEV_E_UNKNOWN_PROVIDER (p is
 * NULL), GCEV_E_UNKNOWN_EVENT or GCEV_E_UNKNOWN_VERSION; sets it to GCEV_OK on success.
 */
GCEV_API const gcev_event_desc *gcev_event_desc_resolve(const gcev_provider *p, uint16_t id, uint16_t version,
                                                        gcev_status *status);

typedef struct gcev_event_info {
    const gcev_provider *provider;
    uint16_t id;
    uint16_t version;
    uint16_t family; /* gcev_family of its typed struct */
    uint8_t level;   /* 0 LogAlways ... 5 Verbose */
    uint8_t opcode;
    uint16_t task;
    uint64_t keywords;
    const char *symbol;          /* manifest symbol, e.g. "GCStart_V2" */
    const char *task_name;       /* e.g. "GarbageCollection"; "" when none */
    const char *opcode_name;     /* e.g. "win:Start"; "" when none */
    const char *keyword_names;   /* space separated, as in the manifest; "" when none */
    const gcev_template *fields; /* payload layout; NULL when the event has no payload */
    uint32_t min_size[2];        /* smallest payload for pointer size 4 / 8 */
} gcev_event_info;

/* Fills *out with what e describes. Returns GCEV_E_INVALID_ARG when e or out is NULL. */
GCEV_API gcev_status gcev_event_get_info(const gcev_event_desc *e, gcev_event_info *out);

typedef struct gcev_field_info {
    const char *name;          /* manifest data/struct name */
    gcev_type type;            /* GCEV_T_STRUCT for struct arrays */
    const gcev_map *map;       /* value or bit map, or NULL (see gcev_map_get_info) */
    uint8_t is_array;          /* a primitive or struct array (count below) */
    uint8_t hex;               /* the manifest asks for hexadecimal output */
    int32_t count_field;       /* index in the same template of the field holding the
                                * element count, or -1 */
    uint32_t fixed_count;      /* count="N" / length="N" literal; 0 when none */
    int32_t length_field;      /* index of the field holding a byte length, or -1 */
    const gcev_template *elem; /* element fields of a struct array, else NULL */
    uint32_t wire_size[2];     /* bytes on the wire for pointer size 4 / 8; 0 when variable */
} gcev_field_info;

/* Fields of t (0 when t is NULL). */
GCEV_API size_t gcev_template_field_count(const gcev_template *t);
/*
 * Fills *out with field i of t, in payload order. Returns GCEV_E_INVALID_ARG
 * when t or out is NULL or i >= gcev_template_field_count(t).
 */
GCEV_API gcev_status gcev_template_field(const gcev_template *t, size_t i, gcev_field_info *out);
/* Bytes of the typed C struct fields of t are decoded into (0 when t is NULL). */
GCEV_API size_t gcev_template_struct_size(const gcev_template *t);

typedef struct gcev_map_info {
    const char *name; /* e.g. "GCReasonMap" */
    uint8_t is_bitmap;
    size_t count; /* entries, sorted by value */
} gcev_map_info;

/* Fills *out with what m describes. Returns GCEV_E_INVALID_ARG when m or out is NULL. */
GCEV_API gcev_status gcev_map_get_info(const gcev_map *m, gcev_map_info *out);
/*
 * Entry i of m: its value in *value and its name in *name (static text).
 * Returns GCEV_E_INVALID_ARG when m, value or name is NULL or i >= its count.
 */
GCEV_API gcev_status gcev_map_entry_at(const gcev_map *m, size_t i, uint32_t *value, const char **name);
/* Name of value v in a value map as the manifest has it; NULL when m is NULL or has no such value. */
GCEV_API const char *gcev_map_name(const gcev_map *m, uint64_t v);
/*
 * Name of value v in value map m as the runtime knows it: the manifest's name, else a
 * documented supplement for values the runtime logs beyond the manifest's map (GC reasons
 * 10-17, doc/quirks.md Q3); NULL when m is NULL or neither names v. gcev_map_format and the
 * text/JSON formatters use these names.
 */
GCEV_API const char *gcev_map_value_name(const gcev_map *m, uint64_t v);
/* gcev_map_value_name() of GCReasonMap: GCStart's and GCTriggered's Reason. */
GCEV_API const char *gcev_gc_reason_name(uint64_t reason);
/*
 * Formats v with a bit map as "A|B" (unknown bits appended as "0x..."), or with a
 * value map as its name, else the number. snprintf semantics. m may be NULL (the number).
 */
GCEV_API size_t gcev_map_format(const gcev_map *m, uint64_t v, char *buf, size_t n);

/* An event family: all versions of one (provider, id), one C struct. */
typedef struct gcev_family_info {
    const gcev_provider *provider;
    uint16_t id;
    uint16_t struct_size; /* sizeof the family's struct */
    const char *name;     /* e.g. "GCStart" */
    const char *cname;    /* e.g. "gc_start" (struct gcev_gc_start, gcev_event.u.gc_start) */
} gcev_family_info;

/* Family info by gcev_family value (static); NULL for GCEV_FAMILY_NONE or out of range. */
GCEV_API const gcev_family_info *gcev_family_get(uint16_t family);

/*
 * The generated typed decoders, one per family (e.g. gcev_decode_gc_start):
 *   gcev_status gcev_decode_<family>(const uint8_t *data, size_t size, uint16_t version,
 *                                    uint8_t pointer_size, gcev_<family> *out,
 *                                    uint32_t *consumed, gcev_error *err);
 * decode data[0, size) as that family's `version` into *out, exactly as
 * gcev_decode_family() below: *consumed (may be NULL) gets the payload bytes the
 * template used, as gcev_event.consumed does for gcev_decode(); the rest of the
 * payload is trailing bytes, never an error. err may be NULL.
 */

/*
 * Decodes into a family struct; what the generated gcev_decode_<family>() call.
 * Version resolution as gcev_event_desc_resolve(). `out` must point at the
 * family's struct (gcev_family_get(family)->struct_size bytes); *consumed (may be
 * NULL) gets the payload bytes the template used. data may be NULL when size is 0.
 * Returns GCEV_OK, GCEV_E_INVALID_ARG (unknown family, out NULL, data NULL with
 * size > 0), GCEV_E_UNKNOWN_VERSION, GCEV_E_BAD_POINTER_SIZE, GCEV_E_LIMIT
 * (size >= 4 GiB), or a payload error as gcev_decode().
 */
GCEV_API gcev_status gcev_decode_family(uint16_t family, uint16_t version, uint8_t pointer_size,
                                        const uint8_t *data, size_t size, void *out, uint32_t *consumed,
                                        gcev_error *err);

/*
 * Reads element i of a struct array into elem_out, a struct of the element's
 * generated type (gcev_template_struct_size(a->elem) bytes). O(1) for fixed
 * strides, O(i) for elements of varying size. Returns GCEV_E_INVALID_ARG when a,
 * a->elem or elem_out is NULL or i >= a->count; a payload error as gcev_decode()
 * otherwise (never for arrays the decoder produced, which were validated whole).
 */
GCEV_API gcev_status gcev_array_elem(const gcev_array *a, uint32_t i, void *elem_out, gcev_error *err);

/* Bytes of the typed struct one element of a struct array decodes into; 0 when a is NULL
 * or not a struct array. */
GCEV_API size_t gcev_array_elem_size(const gcev_array *a);

#ifdef __cplusplus
}
#endif

/* Generated from the manifest: families, typed structs, present bits, map look-ups. */
#include <gcev/gcev_events.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Decoding                                                                  */
/* ------------------------------------------------------------------------ */

/* One payload to decode. `struct_size`: see "Growable structs" above (GCEV_INIT). */
typedef struct gcev_input {
    uint32_t struct_size;          /* sizeof(gcev_input), or 0: the first layout */
    const gcev_provider *provider; /* from gcev_provider_find() */
    uint16_t event_id;
    uint16_t version;
    uint8_t pointer_size; /* of the traced process: 4 or 8 */
    const uint8_t *data;  /* payload; may be NULL when size == 0 */
    size_t size;
} gcev_input;

/*
 * A decoded event: its schema and its typed fields. Its size is fixed (doc/ABI.md): `u` has
 * GCEV_UNION_SIZE bytes whatever families and fields the manifest gains, and members added
 * later come out of reserved_, which gcev_decode() zeroes whenever it sets desc (0 in a new
 * member: not known).
 */
typedef struct gcev_event {
    const gcev_event_desc *desc; /* template used (gcev_event_get_info), NULL before decoding */
    uint16_t family;             /* gcev_family: which member of u holds the fields */
    uint16_t version;            /* version of the input (may exceed the template's) */
    uint8_t pointer_size;
    uint8_t newer_version; /* 1 when decoded with an older template */
    uint32_t consumed;     /* payload bytes the template used */
    uint32_t trailing;     /* payload bytes after them (not an error) */
    gcev_union u;          /* u.<family>; GCEV_UNION_SIZE bytes */
    uint64_t reserved_[4]; /* room for later members; 0 */
} gcev_event;

/*
 * Decodes one payload. in and out must not be NULL.
 * On success returns GCEV_OK: out->desc, family, version, pointer_size,
 * newer_version, consumed, trailing and the family struct are set; trailing bytes
 * are never an error (newer versions append fields).
 * On failure returns GCEV_E_INVALID_ARG (in or out NULL, data NULL with size > 0,
 * in->struct_size from 1 to 3), GCEV_E_UNSUPPORTED (in->struct_size past this library's
 * gcev_input with non-zero bytes there), GCEV_E_UNKNOWN_PROVIDER (in->provider NULL), GCEV_E_UNKNOWN_EVENT,
 * GCEV_E_UNKNOWN_VERSION, GCEV_E_BAD_POINTER_SIZE, GCEV_E_LIMIT (size >= 4 GiB),
 * GCEV_E_TRUNCATED (payload ends inside a field), GCEV_E_UNTERMINATED_STRING or
 * GCEV_E_BAD_COUNT (an array count or byte length larger than what remains), with
 * *err naming the field and its payload offset. After a payload error out holds
 * the fields fully read before the fault, each flagged in its struct's `present`
 * mask, and nothing else. The views in out borrow in->data.
 */
GCEV_API gcev_status gcev_decode(const gcev_input *in, gcev_event *out, gcev_error *err);

/*
 * Decodes with a known description (skips the look-up). struct_out must point
 * at the family struct of desc (gcev_family_get(info.family)->struct_size
 * bytes); *consumed may be NULL. data may be NULL when size is 0.
 * Returns GCEV_E_INVALID_ARG when desc or struct_out is NULL (or data NULL with
 * size > 0), GCEV_E_BAD_POINTER_SIZE, GCEV_E_LIMIT, or a payload error as gcev_decode().
 */
GCEV_API gcev_status gcev_decode_desc(const gcev_event_desc *desc, uint8_t pointer_size, const uint8_t *data,
                                      size_t size, void *struct_out, uint32_t *consumed, gcev_error *err);

/*
 * Encodes ev (its desc, pointer_size and fields; `present` bits are ignored:
 * every field of the template is written) as payload bytes into buf (may be
 * NULL when cap is 0). *written (may be NULL) gets the size needed, also when
 * GCEV_E_NO_SPACE is returned. Strings are written with their terminator;
 * arrays copy their view's bytes and must have the stride of the target pointer
 * size. Returns GCEV_E_INVALID_ARG (ev NULL or without desc), GCEV_E_BAD_POINTER_SIZE,
 * GCEV_E_NO_SPACE, or GCEV_E_BAD_COUNT (an array view that does not match its count).
 */
GCEV_API gcev_status gcev_encode(const gcev_event *ev, uint8_t *buf, size_t cap, size_t *written,
                                 gcev_error *err);

/* ------------------------------------------------------------------------ */
/* Generic access and formatting                                            */
/* ------------------------------------------------------------------------ */

/* One field of a decoded event or array element, as gcev_field_next() yields it. */
typedef struct gcev_field {
    const char *name; /* manifest name (static) */
    gcev_type type;
    uint8_t is_array;        /* v.array holds a primitive or struct array */
    uint8_t hex;             /* the manifest asks for hexadecimal output */
    const gcev_map *map;     /* the field's value or bit map, or NULL */
    uint32_t payload_offset; /* where the field starts in the payload */
    union {
        uint64_t u;       /* unsigned ints, pointers, booleans, FILETIME */
        int64_t i;        /* signed ints */
        double d;         /* float, double */
        gcev_utf16 str;   /* UnicodeString */
        gcev_bytes bytes; /* Binary, AnsiString, SYSTEMTIME */
        gcev_array array; /* arrays (is_array) */
        gcev_guid guid;
    } v;
    const char *value_name; /* name of v.u in a value map, NULL if none/unknown (always NULL
                             * with GCEV_FIELD_LAZY_NAMES: see gcev_field_value_name) */
} gcev_field;

/* Iteration state, on the caller's stack. Its members are private: they may change
 * between releases; use only the functions below. */
typedef struct gcev_field_iter {
    const void *priv_tmpl_;
    const void *priv_base_;
    uint64_t priv_present_;
    uint32_t priv_pos_;
    uint16_t priv_next_;
    uint8_t priv_pointer_size_;
    uint8_t priv_aligned_;
    uint64_t priv_reserved_[4];
} gcev_field_iter;

/*
 * Starts iterating the present fields of ev, in payload order. ev must stay
 * alive and unchanged while iterating. With ev NULL or not decoded, the
 * iteration is empty. it must not be NULL (a NULL it is ignored).
 */
GCEV_API void gcev_field_iter_init(gcev_field_iter *it, const gcev_event *ev);
/*
 * Decodes element i of the struct array a into elem_buf (elem_buf_size >=
 * gcev_array_elem_size(a)) and starts iterating its fields. Returns
 * GCEV_E_INVALID_ARG when it, a or elem_buf is NULL, a is not a struct array or
 * elem_buf is too small; an error of gcev_array_elem() otherwise (then the
 * iteration is empty).
 */
GCEV_API gcev_status gcev_field_iter_elem(gcev_field_iter *it, const gcev_array *a, uint32_t i,
                                          void *elem_buf, size_t elem_buf_size);
/* Next field into *f; returns 1, or 0 at the end (or when it or f is NULL). */
GCEV_API int gcev_field_next(gcev_field_iter *it, gcev_field *f);

/* Options of an iteration (gcev_field_iter_set_options), or'ed. */
enum {
    /* gcev_field_next() leaves value_name NULL instead of looking up the name of every
     * mapped field's value; gcev_field_value_name() gives it for the fields asked about. */
    GCEV_FIELD_LAZY_NAMES = 1u << 0
};
/*
 * Sets the options of the iteration it (after gcev_field_iter_init() or
 * gcev_field_iter_elem(), which start with none). A NULL it is ignored; unknown bits are
 * ignored.
 */
GCEV_API void gcev_field_iter_set_options(gcev_field_iter *it, unsigned options);
/*
 * The top-level fields of ev in one call: out[0..min(n, cap)) get what gcev_field_next()
 * yields for them, iterating ev after gcev_field_iter_init() and
 * gcev_field_iter_set_options(options), byte for byte; returns n, the number of fields that
 * iteration yields (a caller with cap < n calls again with more room). out may be NULL
 * (then cap is ignored: the count only). 0 when ev is NULL or not decoded, or its event has
 * no fields. Cheaper than a call per field when every field is wanted.
 */
GCEV_API size_t gcev_fields(const gcev_event *ev, gcev_field *out, size_t cap, unsigned options);
/*
 * The name of f->v.u in f's value map, as f->value_name holds it when gcev_field_next()
 * looks it up (gcev_map_value_name(f->map, f->v.u)): NULL when f is NULL, has no map or a
 * bit map, or the map does not name the value. Works with and without GCEV_FIELD_LAZY_NAMES.
 */
GCEV_API const char *gcev_field_value_name(const gcev_field *f);

/* "GCStart_V2 Count=8 Depth=0 Reason=0(AllocSmall) ..." into buf; snprintf semantics.
 * ev NULL or not decoded gives "". */
GCEV_API size_t gcev_format_text(const gcev_event *ev, char *buf, size_t n);
/*
 * JSON object of the fields only: {"Count":8,...}; integers as exact numbers,
 * strings as strings, arrays/structs as arrays of objects, binary as hex text.
 * snprintf semantics. ev NULL or not decoded gives "{}".
 */
GCEV_API size_t gcev_format_fields_json(const gcev_event *ev, char *buf, size_t n);
/*
 * {"Reason":"AllocSmall",...}: names of the mapped fields with a known name
 * ("{}" when none, or when ev is NULL). snprintf semantics.
 */
GCEV_API size_t gcev_format_names_json(const gcev_event *ev, char *buf, size_t n);

/* ------------------------------------------------------------------------ */
/* GCDynamicEvent (.NET 8+): second-level dispatch on its Name              */
/* ------------------------------------------------------------------------ */

/*
 * Decodes the Data blob of a decoded GCDynamicEvent whose Name is known
 * (CommittedUsage, HeapCountTuning, ...) into `inner` (provider
 * "Microsoft-Windows-DotNETRuntime-GCDynamicEvent", the blob's first UInt16 as
 * its version). Returns GCEV_E_INVALID_ARG when outer or inner is NULL, outer is
 * not a decoded GCDynamicEvent, or it lacks Name or Data; GCEV_E_UNKNOWN_EVENT
 * (field "Name") for unknown names: the blob then stays a raw view;
 * GCEV_E_TRUNCATED (field "Version") for a blob under 2 bytes; else as gcev_decode().
 * The views in inner borrow the outer event's payload.
 */
GCEV_API gcev_status gcev_decode_dynamic(const gcev_event *outer, gcev_event *inner, gcev_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GCEV_H */
