/* SPDX-License-Identifier: MIT */
/*
 * Writes synthetic .etl files for the reader's tests: WMI buffers, the log file
 * header record, kernel/classic records and EVENT_HEADER records with extended
 * items, laid out as Windows writes them (records 8-byte aligned, buffers
 * filled with 0xFF after their used size). It also remembers where each record
 * and buffer starts, so tests can predict the reader's error offsets.
 */
#ifndef GCEV_ETL_BUILDER_H
#define GCEV_ETL_BUILDER_H

#include <gcev/gcev.h>

enum { ETLB_MAX_MARKS = 256 };

typedef struct etlb_mark {
    size_t offset; /* file offset of a record */
    size_t size;   /* its size before padding */
    size_t buffer; /* index of its buffer */
} etlb_mark;

typedef struct etlb {
    uint8_t *data;
    size_t size, cap;
    uint32_t buffer_size;
    size_t buf_start; /* current buffer */
    size_t buffers[ETLB_MAX_MARKS];
    uint32_t used[ETLB_MAX_MARKS]; /* SavedOffset of each finished buffer */
    size_t nbuffers;
    etlb_mark records[ETLB_MAX_MARKS];
    size_t nrecords;
    size_t written_at; /* TRACE_LOGFILE_HEADER.BuffersWritten, kept = nbuffers; 0 if none */
} etlb;

void etlb_init(etlb *b, uint32_t buffer_size);
void etlb_free(etlb *b);

/* Starts a buffer; flags 0x20 makes the processor a 16-bit index. */
void etlb_buffer_begin(etlb *b, uint16_t processor, uint16_t flags);
/* Writes SavedOffset and fills the rest of the buffer with 0xFF; the log file header's
 * BuffersWritten counts the buffers finished so far, the header buffer included, as in
 * every file of the corpus. */
void etlb_buffer_end(etlb *b);

/* Appends a raw record (8-byte padded with zeros); returns its file offset. */
size_t etlb_raw(etlb *b, const void *rec, size_t n);

typedef struct etlb_logfile {
    uint8_t pointer_size; /* 4 or 8: the header's layout and PointerSize */
    int64_t timestamp;    /* of the record: the trace's ms = 0 */
    int64_t perf_freq;
    uint32_t clock_type; /* ReservedFlags */
    uint32_t cpu_speed_mhz;
    uint32_t processors;
    uint32_t events_lost, buffers_lost;
    int64_t start_time;
} etlb_logfile;

/* The TRACE_LOGFILE_HEADER record (system header, hook 0). */
size_t etlb_logfile_header(etlb *b, const etlb_logfile *lf);

/* A kernel record: SYSTEM32/64 (32 bytes), COMPACT32/64 (24) or PERFINFO32/64 (16). */
size_t etlb_kernel(etlb *b, uint8_t header_type, uint16_t version, uint16_t hook, uint32_t pid, uint32_t tid,
                   int64_t ts, const void *payload, size_t n);

/* A classic EVENT_TRACE_HEADER (0x0A/0x14) or EVENT_INSTANCE_GUID_HEADER (0x0B/0x15) record. */
size_t etlb_classic(etlb *b, uint8_t header_type, const gcev_guid *guid, uint8_t type, uint8_t level,
                    uint16_t version, uint32_t pid, uint32_t tid, int64_t ts, const void *payload, size_t n);

typedef struct etlb_ext {
    uint16_t type;
    const void *data;
    uint16_t size;
} etlb_ext;

typedef struct etlb_event {
    uint8_t header_type; /* 0x12 or 0x13 */
    uint32_t pid, tid;
    int64_t ts;
    gcev_guid provider;
    uint16_t id;
    uint8_t version, channel, level, opcode;
    uint16_t task;
    uint64_t keywords;
    gcev_guid activity;
    const etlb_ext *ext;
    size_t next;
    const void *payload;
    size_t payload_size;
} etlb_event;

/* An EVENT_HEADER record with its extended items (linked in order). */
size_t etlb_event_record(etlb *b, const etlb_event *e);

/* A runtime GCStart_V2 (id 1, its 26 bytes) or GCEnd_V1 (id 2, 10 bytes) record of GC
 * `number` at ts, from process pid and thread tid; the other payload bytes are zero. */
size_t etlb_gc_event(etlb *b, uint16_t id, uint32_t number, int64_t ts, uint32_t pid, uint32_t tid);

/*
 * The file as a relogger in compressed mode writes it: buffers from `first` on get
 * flag 0x40, BufferSize = header + compressed bytes (no padding, no alignment) and
 * their contents after the header (up to SavedOffset) as MS-XCA Plain LZ77
 * (xpress_writer.c); the others stay whole. Returns the new bytes (malloc'ed);
 * offsets[i] (when not NULL, b->nbuffers entries) gets where buffer i starts in them.
 */
uint8_t *etlb_relog_compressed(const etlb *b, size_t first, size_t *size, size_t *offsets);

#endif
