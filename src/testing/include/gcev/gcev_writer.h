/* SPDX-License-Identifier: MIT */
/*
 * gcev trace writer: builds small EventPipe traces in memory, for tests and
 * samples. Formats: NetPerf V1/V2 (records inline in the Trace object, end
 * found through the forward-reference table; 64-bit only), NetPerf V3, NetTrace
 * V4 (compressed or uncompressed headers), V5 (V4 + metadata opcode tags) and V6.
 *
 * Usage: gcev_writer_create -> gcev_writer_define (one per event type) ->
 * gcev_writer_write ... [gcev_writer_sequence_point] -> gcev_writer_finish
 * (gives the bytes, owned by the writer) -> gcev_writer_free.
 * A writer is not thread-safe; distinct writers are independent.
 */
#ifndef GCEV_WRITER_H
#define GCEV_WRITER_H

#include <gcev/gcev_trace.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gcev_writer_options {
    uint32_t format_version; /* 1, 2, 3 (NetPerf), 4, 5 or 6 (NetTrace) */
    uint8_t compressed;      /* V4-V6: 1 = compressed event headers */
    uint8_t pointer_size;    /* 4 or 8 (0 = 8) */
    uint32_t process_id;
    uint32_t processor_count;
    uint64_t clock_frequency; /* 0 = 1e9 */
    int64_t sync_time_qpc;
} gcev_writer_options;

/* One event type. fields: EventSource layout (EventPipe type codes), may be NULL. */
typedef struct gcev_writer_meta {
    const char *provider_name; /* UTF-8 (ASCII for V3-V5, which store UTF-16) */
    uint16_t event_id;
    uint8_t version;
    uint8_t opcode; /* written by V5 (tag) and V6 */
    uint8_t level;
    uint64_t keywords;
    const char *event_name; /* may be NULL or "" (runtime events) */
    const gcev_trace_field *fields;
    uint32_t nfields;
} gcev_writer_meta;

typedef struct gcev_writer_event {
    uint32_t meta_id; /* from gcev_writer_define */
    uint64_t thread_id;
    uint64_t capture_thread_id; /* 0 = thread_id */
    uint32_t sequence;          /* 0 = next of that capture thread */
    uint32_t processor;
    int64_t timestamp;
    const uint8_t *payload;
    uint32_t payload_size;
    const uint8_t *stack; /* pointer_size-byte IPs, or NULL */
    uint32_t stack_size;
    gcev_guid activity_id; /* zero = none */
} gcev_writer_event;

typedef struct gcev_writer gcev_writer;

/* GCEV_E_UNSUPPORTED for other versions (and pointer size 4 with V1/V2); GCEV_E_NOMEM. */
GCEV_API gcev_status gcev_writer_create(const gcev_writer_options *opts, gcev_writer **out);
/* Defines an event type; *meta_id receives its id (1, 2, ...). GCEV_E_UNSUPPORTED when
 * the fields use array types in V1-V5 (not written by this writer), or when a V1
 * provider (named by GUID in the file) is neither GUID text nor a compiled provider. */
GCEV_API gcev_status gcev_writer_define(gcev_writer *w, const gcev_writer_meta *m, uint32_t *meta_id);
GCEV_API gcev_status gcev_writer_write(gcev_writer *w, const gcev_writer_event *e);
/* Ends the current sort/cache region (V4-V6; ignored by V3), listing every
 * capture thread's last sequence number. */
GCEV_API gcev_status gcev_writer_sequence_point(gcev_writer *w, int64_t timestamp);
/* V6 sequence point flags (gcev_writer_sequence_point_flags). */
enum {
    GCEV_WRITER_SP_FLUSH_THREADS = 1u << 0, /* the reader drops its thread table */
    GCEV_WRITER_SP_FLUSH_METADATA = 1u << 1 /* metadata ids may be defined again after it */
};
/* V6 only (GCEV_E_UNSUPPORTED for other versions when flags != 0): a sequence point with flags. */
GCEV_API gcev_status gcev_writer_sequence_point_flags(gcev_writer *w, int64_t timestamp, uint32_t flags);
/* V6 only: a new metadata record for an id already given out (as after a metadata flush). */
GCEV_API gcev_status gcev_writer_redefine(gcev_writer *w, uint32_t meta_id, const gcev_writer_meta *m);
/* V6 label list of one event (gcev_writer_write_labeled). */
typedef struct gcev_writer_labels {
    gcev_guid activity_id, related_activity_id; /* zero = none */
    uint8_t has_opcode, opcode, has_level, level, has_version, version, has_keywords;
    uint64_t keywords;
    uint8_t tracing; /* 1: also a TraceId, a SpanId and two key/value labels (readers skip them) */
} gcev_writer_labels;
/* V6 only: writes e with a label list (its own LabelList block) that the event refers to. */
GCEV_API gcev_status gcev_writer_write_labeled(gcev_writer *w, const gcev_writer_event *e,
                                               const gcev_writer_labels *labels);
/*
 * V4-V6: blocks as the runtime writes them (by default every stack has its own stack block
 * and an event block holds up to 1 MiB). After this call an event block ends at
 * event_block_bytes of rows (the runtime's buffers: 100 KB; 0 keeps 1 MiB), identical stacks
 * share one id until the next sequence point, the stacks new to an event block go in one
 * stack block written just before it, and ids restart at 1 after each sequence point (as
 * the runtime's stack cache is flushed with it). Call it before the first event.
 * GCEV_E_UNSUPPORTED for V1-V3 (stacks inline).
 */
GCEV_API gcev_status gcev_writer_runtime_blocks(gcev_writer *w, uint32_t event_block_bytes);
/* Closes the stream; the bytes stay valid until gcev_writer_free. */
GCEV_API gcev_status gcev_writer_finish(gcev_writer *w, const uint8_t **data, size_t *size);
GCEV_API void gcev_writer_free(gcev_writer *w);

#ifdef __cplusplus
}
#endif

#endif
