/* SPDX-License-Identifier: MIT */
/*
 * The pieces of an ETW log file (.etl), parsed from bytes already in memory:
 * the WMI_BUFFER_HEADER that opens every buffer, the record headers found in a
 * buffer, and the TRACE_LOGFILE_HEADER carried by the first record of a file.
 * No I/O and no allocation here; gcev_etl.c drives these over a gcev_source.
 *
 * Layouts are those Windows writes (public descriptions: Geoff Chappell's notes
 * on WMI_BUFFER_HEADER / SYSTEM_TRACE_HEADER / TRACE_LOGFILE_HEADER, evntcons.h
 * for EVENT_HEADER, airbus-cert/etl-parser), checked against the corpus files.
 */
#ifndef GCEV_ETL_RECORDS_H
#define GCEV_ETL_RECORDS_H

#include <gcev/gcev_trace.h>

enum {
    GCEV_ETL_BUFFER_HEADER_SIZE = 0x48,
    GCEV_ETL_EVENT_HEADER_SIZE = 80,   /* EVENT_HEADER */
    GCEV_ETL_SYSTEM_HEADER_SIZE = 32,  /* SYSTEM_TRACE_HEADER */
    GCEV_ETL_COMPACT_HEADER_SIZE = 24, /* SYSTEM_TRACE_HEADER without CPU times */
    GCEV_ETL_PERFINFO_HEADER_SIZE = 16,
    GCEV_ETL_FULL_HEADER_SIZE = 48,     /* EVENT_TRACE_HEADER (classic, MOF) */
    GCEV_ETL_INSTANCE_HEADER_SIZE = 72, /* EVENT_INSTANCE_GUID_HEADER */
    GCEV_ETL_EXT_ITEM_HEADER_SIZE = 8
};

/* Buffer flags (WMI_BUFFER_HEADER.BufferFlag). */
enum {
    GCEV_ETL_BUFFER_FLAG_PROC_INDEX = 0x0020, /* processor is a 16-bit index */
    GCEV_ETL_BUFFER_FLAG_COMPRESSED = 0x0040
};

/* Record header types: byte 2 of every record (TRACE_HEADER_TYPE_*). */
enum {
    GCEV_ETL_HT_SYSTEM32 = 0x01,
    GCEV_ETL_HT_SYSTEM64 = 0x02,
    GCEV_ETL_HT_COMPACT32 = 0x03,
    GCEV_ETL_HT_COMPACT64 = 0x04,
    GCEV_ETL_HT_FULL_HEADER32 = 0x0A,
    GCEV_ETL_HT_INSTANCE32 = 0x0B,
    GCEV_ETL_HT_PERFINFO32 = 0x10,
    GCEV_ETL_HT_PERFINFO64 = 0x11,
    GCEV_ETL_HT_EVENT_HEADER32 = 0x12,
    GCEV_ETL_HT_EVENT_HEADER64 = 0x13,
    GCEV_ETL_HT_FULL_HEADER64 = 0x14,
    GCEV_ETL_HT_INSTANCE64 = 0x15
};

/* Byte 3 of a record (marker flags). */
enum {
    GCEV_ETL_MARKER_TRACE_HEADER = 0x80, /* set on every record */
    GCEV_ETL_MARKER_EVENT_TRACE = 0x40,  /* byte 2 is a header type */
    GCEV_ETL_MARKER_TRACE_MESSAGE = 0x10 /* WPP message record */
};

/* EVENT_HEADER flags and extended data item types used here. */
enum {
    GCEV_ETL_EVENT_FLAG_EXTENDED_INFO = 0x0001,
    GCEV_ETL_EXT_RELATED_ACTIVITYID = 1,
    GCEV_ETL_EXT_STACK_TRACE32 = 5,
    GCEV_ETL_EXT_STACK_TRACE64 = 6,
    GCEV_ETL_EXT_EVENT_SCHEMA_TL = 11,
    GCEV_ETL_EXT_PROV_TRAITS = 12
};

typedef struct gcev_etl_buffer_header {
    uint32_t buffer_size;  /* bytes of the buffer in the file, header included (compressed: header
                              + compressed bytes, no alignment) */
    uint32_t saved_offset; /* bytes in use (header + records); the rest is fill (compressed: once
                              inflated) */
    uint32_t processor;    /* CPU whose events the buffer holds */
    uint16_t flags;        /* GCEV_ETL_BUFFER_FLAG_* */
    uint16_t buffer_type;
    int64_t timestamp;
} gcev_etl_buffer_header;

/*
 * Parses and checks the WMI_BUFFER_HEADER at p (GCEV_ETL_BUFFER_HEADER_SIZE bytes).
 * GCEV_E_FORMAT with *msg when the sizes contradict each other. A compressed buffer
 * (flag 0x40, relogged files in compressed mode) holds MS-XCA Plain LZ77 data after
 * the header that inflates to saved_offset - GCEV_ETL_BUFFER_HEADER_SIZE bytes.
 */
gcev_status gcev_etl_buffer_header_parse(const uint8_t *p, gcev_etl_buffer_header *h, const char **msg);

typedef enum gcev_etl_record_kind {
    GCEV_ETL_REC_EVENT,    /* EVENT_HEADER (manifest, EventSource, TraceLogging) */
    GCEV_ETL_REC_SYSTEM,   /* kernel SYSTEM_TRACE_HEADER, full or compact */
    GCEV_ETL_REC_PERFINFO, /* kernel PERFINFO_TRACE_HEADER (no pid/tid) */
    GCEV_ETL_REC_CLASSIC,  /* EVENT_TRACE_HEADER (MOF provider) */
    GCEV_ETL_REC_INSTANCE, /* EVENT_INSTANCE_GUID_HEADER */
    GCEV_ETL_REC_MESSAGE,  /* WPP trace message: skipped */
    GCEV_ETL_REC_FILL      /* 0xFFFFFFFF: no more records in this buffer */
} gcev_etl_record_kind;

typedef struct gcev_etl_record {
    gcev_etl_record_kind kind;
    uint8_t header_type;  /* byte 2 */
    uint8_t pointer_size; /* 4 or 8 from the header type; 0 when it does not say */
    uint16_t header_size; /* fixed header bytes before extended data / payload */
    uint16_t size;        /* whole record, header included, before 8-byte padding */
} gcev_etl_record;

/*
 * Classifies the record starting at p from its first 8 bytes (n >= 8 required)
 * and checks its size against its header. GCEV_E_FORMAT with *msg when the
 * marker is unknown or the size is smaller than the header.
 */
gcev_status gcev_etl_record_classify(const uint8_t *p, size_t n, gcev_etl_record *r, const char **msg);

/*
 * Fills ev from a record of kind SYSTEM, PERFINFO, CLASSIC or INSTANCE
 * (r->size bytes at p). ev must be zeroed; processor/offset are the caller's.
 */
void gcev_etl_classic_fill(const uint8_t *p, const gcev_etl_record *r, gcev_trace_event *ev);

/*
 * Fills ev from an EVENT_HEADER record (r->size bytes at p), walking its
 * extended data items. *schema / *schema_size receive the TraceLogging schema
 * item (NULL/0 when none) and *traits the provider traits item, for the caller
 * to decode. GCEV_E_FORMAT with *msg when an item overruns the record.
 */
gcev_status gcev_etl_event_fill(const uint8_t *p, const gcev_etl_record *r, gcev_trace_event *ev,
                                const uint8_t **schema, uint32_t *schema_size, const uint8_t **traits,
                                uint32_t *traits_size, const char **msg);

/* The TRACE_LOGFILE_HEADER fields gcev reports (payload of the first record). */
typedef struct gcev_etl_logfile {
    uint32_t buffer_size;
    uint32_t version;
    uint32_t provider_version;
    uint32_t number_of_processors;
    int64_t end_time;
    uint32_t timer_resolution;
    uint32_t maximum_file_size;
    uint32_t log_file_mode;
    uint32_t buffers_written;
    uint32_t start_buffers;
    uint32_t pointer_size;
    uint32_t events_lost;
    uint32_t cpu_speed_mhz;
    int32_t tz_bias_minutes; /* TIME_ZONE_INFORMATION.Bias: UTC = local + bias */
    int64_t boot_time;
    int64_t perf_freq;
    int64_t start_time;
    uint32_t reserved_flags; /* clock type: 1 QPC, 2 system time, 3 CPU cycles */
    uint32_t buffers_lost;
    uint64_t clock_frequency; /* ticks per second implied by reserved_flags */
} gcev_etl_logfile;

/*
 * Parses a TRACE_LOGFILE_HEADER payload. Its layout depends on its own
 * PointerSize field (two pointers precede the time zone). GCEV_E_FORMAT with
 * *msg when too short, the pointer size is not 4/8 or no clock frequency follows.
 */
gcev_status gcev_etl_logfile_parse(const uint8_t *p, size_t n, gcev_etl_logfile *lf, const char **msg);

/* Hook id of the TRACE_LOGFILE_HEADER record (EventTrace group, type 0). */
enum { GCEV_ETL_HOOK_LOGFILE_HEADER = 0x0000 };

#endif
