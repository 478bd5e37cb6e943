/* SPDX-License-Identifier: MIT */
/*
 * From LTTng event classes to gcev events: the runtime's tracepoint names
 * ("DotNETRuntime:GCStart_V2") to (provider, id, version) of gcev's compiled
 * manifest, and each event's typed CTF fields back to the ETW payload layout.
 *
 * The runtime's LTTng tracepoints carry either the manifest's fields in order
 * (integers at their manifest widths, win:Boolean as 32 bits, pointers at the
 * pointer size, UnicodeStrings as UTF-8 strings) or, for templates with
 * structs/arrays or too many fields, the ETW payload itself as one byte
 * sequence named "___data__". The plan of a class is computed once.
 */
#ifndef GCEV_CTF_ETW_H
#define GCEV_CTF_ETW_H

#include "gcev_ctf_decode.h"

enum {
    GCEV_CTF_EMIT_SKIP,
    GCEV_CTF_EMIT_INT,   /* value as `width` bytes little-endian */
    GCEV_CTF_EMIT_FLOAT, /* IEEE bits as `width` bytes little-endian */
    GCEV_CTF_EMIT_UTF16, /* UTF-8 string as UTF-16LE with a 2-byte terminator */
    GCEV_CTF_EMIT_ANSI,  /* string bytes with their terminator */
    GCEV_CTF_EMIT_BYTES, /* the bytes of a byte array/sequence as they are */
    GCEV_CTF_EMIT_INTS   /* array/sequence of integers, each as `width` bytes little-endian */
};

typedef struct gcev_ctf_emit {
    uint8_t action;
    uint8_t width;
} gcev_ctf_emit;

typedef struct gcev_ctf_class_map {
    const char *provider_name;     /* "Microsoft-Windows-DotNETRuntime", or the name's prefix */
    const char *event_name;        /* the part after ':' (or the whole name) */
    const gcev_provider *provider; /* compiled provider when the event has an id, else NULL */
    const gcev_event_desc *desc;   /* compiled event, or NULL: the event carries no id */
    uint8_t runtime;               /* a DotNETRuntime* tracepoint: payload in ETW layout */
    uint8_t raw;                   /* payload = the CTF field bytes as they are */
    uint32_t nemit;                /* = top-level fields of the class */
    const gcev_ctf_emit *emit;
    char *owned; /* storage of the names and plan (freed with the map) */
    /* gcev_trace_set_filter: whether the filter keeps the class's events, valid while
     * filter_gen equals the trace's (gcev_ctf.c) */
    uint8_t filter_pass;
    uint32_t filter_gen;
} gcev_ctf_class_map;

/*
 * Plans class ev of a trace whose events have no provider prefix under
 * `default_provider` (e.g. the tracer name "lttng-modules"). pointer_size is
 * the traced process's (4 or 8). GCEV_E_NOMEM is the only failure.
 */
gcev_status gcev_ctf_class_plan(const gcev_ctf_event_class *ev, const char *default_provider,
                                uint8_t pointer_size, gcev_ctf_class_map *out);
void gcev_ctf_class_map_free(gcev_ctf_class_map *m);

typedef struct gcev_ctf_buf {
    uint8_t *data;
    size_t size, cap;
} gcev_ctf_buf;

/*
 * The payload of one event: the ETW layout for runtime events, else the raw
 * bytes of its fields. fields/slots = the decoded event fields root; data = the
 * packet; the payload view points into out or into the packet. GCEV_E_NOMEM only.
 */
gcev_status gcev_ctf_payload(const gcev_ctf_class_map *m, const gcev_ctf_type *fields,
                             const gcev_ctf_slot *slots, const uint8_t *data, int native_be,
                             gcev_ctf_buf *out, const uint8_t **payload, uint32_t *size);

#endif
