/* SPDX-License-Identifier: MIT */
/*
 * gcev trace readers: .nettrace / .netperf (EventPipe), .etl (ETW, also in PerfView's
 * .etl.zip) and LTTng CTF traces (perfcollect's folder or .trace.zip), from files, memory
 * or a live session's stream, one event interface for all of them. Includes gcev.h, whose conventions
 * (errors, lifetimes, snprintf semantics) hold here too.
 *
 * A reader streams: memory stays O(threads + metadata + one block), never
 * O(file). Views in a gcev_trace_event (payload, stack, names, field lists)
 * are valid until the next gcev_trace_next() or gcev_trace_close() call.
 * One gcev_trace must not be used from two threads at once; distinct traces
 * are independent.
 */
#ifndef GCEV_TRACE_H
#define GCEV_TRACE_H

#include <gcev/gcev.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gcev_trace_format {
    GCEV_FORMAT_UNKNOWN = 0,
    GCEV_FORMAT_NETPERF,  /* EventPipe "Microsoft.DotNet.Runtime.EventPipeFile", V1-V3 */
    GCEV_FORMAT_NETTRACE, /* EventPipe "Nettrace", V4-V6 */
    GCEV_FORMAT_ETL,      /* ETW log file */
    GCEV_FORMAT_CTF       /* CTF 1.8 (LTTng, perfcollect): a trace folder */
} gcev_trace_format;

/* "netperf", "nettrace", "etl", "ctf" or "unknown". */
GCEV_API const char *gcev_trace_format_name(gcev_trace_format f);

typedef struct gcev_trace_info {
    gcev_trace_format format;
    uint32_t format_version; /* NetPerf 1-3, NetTrace 4-6 (5 when V5 metadata tags seen), ETL: 0,
                                CTF: major * 10 + minor (18) */
    uint8_t pointer_size;    /* 4 or 8 (default 8 when the format does not say) */
    uint32_t process_id;
    uint32_t processor_count;
    uint64_t clock_frequency; /* ticks per second of the timestamps */
    int64_t sync_time_qpc;    /* timestamp of the trace start (ms = 0) */
    int64_t sync_time_utc;    /* FILETIME (100 ns since 1601) of that instant, 0 if unknown */
    uint64_t events_lost;     /* as the header reports (ETL), else 0 */
    uint64_t buffers_lost;    /* as the header reports (ETL), else 0 */
    uint64_t file_size;       /* 0 when reading a stream; an archive entry's size */
    /* the ZIP entry read when the input is an archive (.etl.zip, .nettrace.zip), else NULL;
     * UTF-8, valid until gcev_trace_close() */
    const char *archive_entry;
} gcev_trace_info;

/*
 * Which type codes an event's field list uses (gcev_trace_event.field_type_system):
 * EventPipe TypeCodes (System.TypeCode plus EventPipe's own: 1 Object, 18 String,
 * 19 Array ...) or TDH/TraceLogging in-types (TDH_INTYPE_*: 1 UnicodeString,
 * 2 AnsiString, 3 Int8 ... 15 Guid, 17 FileTime, 18 SystemTime, 24 struct ...).
 */
enum {
    GCEV_FIELD_TYPES_EVENTPIPE = 0, /* .nettrace / .netperf EventSource metadata */
    GCEV_FIELD_TYPES_TDH = 1        /* .etl TraceLogging schemas */
};

/* gcev_trace_field.flags (TDH fields only) */
enum {
    GCEV_FIELD_FIXED_COUNT = 1u << 0, /* array of fixed_count elements, no count in the payload */
    GCEV_FIELD_CUSTOM = 1u << 1       /* custom serializer: UInt16 byte count, then the bytes */
};

/* A field of a self-describing (EventSource / TraceLogging) event's metadata. */
typedef struct gcev_trace_field {
    const char *name;         /* UTF-8, NUL-terminated */
    uint32_t type_code;       /* the format's own type code (TypeCode / TDH in-type) */
    uint32_t array_type_code; /* element type code when the field is an array, else 0 */
    uint32_t nfields;         /* nested fields of a struct (object) field */
    const struct gcev_trace_field *fields;
    /* TDH (TraceLogging) fields only; 0 in EventPipe field lists: */
    uint16_t fixed_count; /* element count of a GCEV_FIELD_FIXED_COUNT array */
    uint8_t out_type;     /* TDH out-type (TDH_OUTTYPE_*, 3 = Boolean), 0 when absent */
    uint8_t flags;        /* GCEV_FIELD_* */
} gcev_trace_field;

/*
 * One event, filled by gcev_trace_next() in the caller's struct. Its size is fixed
 * (doc/ABI.md): members added later come out of reserved_, which the reader zeroes
 * (0 in a new member: not known).
 */
typedef struct gcev_trace_event {
    /* Who */
    const char *provider_name; /* UTF-8, NUL-terminated; "" when unknown */
    gcev_guid provider_guid;
    uint8_t has_provider_guid;
    const gcev_provider *provider; /* compiled schema provider, or NULL */
    uint16_t event_id;
    uint16_t version;       /* effective version (label list wins in V6) */
    const char *event_name; /* from the trace's metadata; "" when absent */
    uint8_t opcode, level;
    uint8_t has_opcode, has_level; /* whether the format carried them */
    uint64_t keywords;
    /* Where and when */
    uint32_t process_id;
    uint64_t thread_id;
    uint64_t capture_thread_id;
    uint32_t processor; /* capture processor / CPU, UINT32_MAX if unknown */
    uint32_t sequence;  /* EventPipe sequence number, 0 if none */
    int64_t timestamp;  /* raw clock ticks */
    double ms;          /* (timestamp - sync_time_qpc) * 1000 / clock_frequency */
    gcev_guid activity_id;
    gcev_guid related_activity_id;
    uint8_t has_activity_id, has_related_activity_id;
    /* What */
    uint8_t pointer_size; /* of this event (ETL: from the record marker) */
    const uint8_t *payload;
    uint32_t payload_size;
    const uint8_t *stack; /* stack IPs, pointer_size bytes each, or NULL */
    uint32_t stack_size;  /* bytes */
    /* Self-describing metadata (EventSource/TraceLogging), else nfields == 0 */
    uint32_t nfields;
    const gcev_trace_field *fields;
    uint64_t file_offset; /* where the event record starts (0 for streams if unknown) */
    /* Type codes of `fields`: GCEV_FIELD_TYPES_EVENTPIPE (0) or GCEV_FIELD_TYPES_TDH. */
    uint8_t field_type_system;
    /*
     * 1 when the format names the event but gives it no (id, version) (CTF:
     * kernel events, and runtime events outside gcev's manifest): event_id and
     * version are then 0 and mean nothing, provider is NULL, and the event is
     * known by provider_name + event_name alone. 0 for every ETW/EventPipe event.
     */
    uint8_t no_event_id;
    /* The process's name as the trace records it per event (CTF procname), else NULL. */
    const char *process_name;
    /*
     * The metadata record the event was read with, as an opaque key: events with the
     * same non-NULL kind have the same provider (name, GUID, compiled provider), event
     * id, event name and field list, and the same version, opcode, level and keywords
     * unless a V6 label list overrides them per event. Lets a program keep per-kind
     * tables without comparing strings (gcev count does). Valid until
     * gcev_trace_close(); NULL when the reader has no such record (ETL, CTF).
     */
    const void *kind;
    uint64_t reserved_[8]; /* room for later members; 0 */
} gcev_trace_event;

/* Reads up to n bytes into buf; returns bytes read, 0 at end, -1 on error. */
typedef long long (*gcev_read_fn)(void *ctx, void *buf, size_t n);

/*
 * Event order. Timestamp order sorts by (timestamp, file offset) between the points
 * where the format says no later event can be older (EventPipe sequence points; a
 * NetPerf V1-V3 trace has none: it is sorted as a whole). From a file or memory, the
 * EventPipe reader (NetPerf V1-V3, NetTrace V4/V5) copies no event: for the segment
 * being merged it keeps 16 bytes per event (timestamp, file offset) where a record can
 * be read again on its own, and one small record per run of a thread's consecutive
 * events in compressed blocks, and reads each event again from the input when it is
 * its turn. From a stream, for NetTrace V6, ETL and CTF, events are copied into a
 * reordering buffer of at most 1 M events / 256 MiB (ETL, having no sequence points,
 * is sorted within that window).
 */
enum {
    GCEV_TRACE_ORDER_FILE = 0, /* as stored (default) */
    GCEV_TRACE_ORDER_TIME = 1, /* timestamp order, bounded memory (see above) */
    /*
     * Timestamp order with the latency of the writer, for live streams (gcev_session):
     * an event is returned as soon as the input proves that no older one can follow.
     * EventPipe NetTrace V4-V6 marks, at every flush (about every 100 ms in a live
     * session), the first event it writes of each thread as the oldest still to come;
     * these marks and the sequence points release the events held before them. Memory:
     * the events between two marks (a copy of each), at most 1 M events / 256 MiB (past
     * that the oldest are returned early). Inputs without such marks (NetPerf, ETL, CTF)
     * are ordered as by GCEV_TRACE_ORDER_TIME.
     */
    GCEV_TRACE_ORDER_STREAM = 2
};

/* How a trace is read. `struct_size`: gcev.h "Growable structs" (GCEV_INIT); 0 = the first layout. */
typedef struct gcev_trace_options {
    uint32_t struct_size;
    uint32_t order;          /* GCEV_TRACE_ORDER_* */
    uint32_t max_block_size; /* safety limit for one block/buffer; 0 = default (256 MiB) */
    /*
     * 1: read past damage. A fault in the data (GCEV_E_FORMAT, GCEV_E_TRUNCATED_FILE,
     * GCEV_E_LIMIT, GCEV_E_UNSUPPORTED inside the trace; never at open) no longer ends the
     * trace: the reader skips to the next block or buffer the format lets it find, records
     * the bytes it skipped (gcev_trace_skip_at()) and goes on. It returns every event plain
     * mode returns before the fault, and after it only events whose bytes it validated.
     * EventPipe: a fault inside a block skips the rest of the block, to the end its header
     * records (only the faulty record when the block's records stand alone, uncompressed or
     * NetPerf, and all the rest of the block reads as valid events: a compressed header is a
     * delta on the one before); a block whose recorded end is not confirmed (V3-V5: no
     * EndObject tag there; V6: no chain of block headers) is read to where the next object
     * or block chain inside that extent starts, reported as a range of 0 bytes, or, when
     * none is there, read as recorded with a fault in it scanned past from the fault; a
     * damaged block header is skipped by scanning forward for the next plausible object
     * header (V6: block header that the next one confirms); NetPerf V1/V2, whose events are
     * not in blocks, skips the rest of its events unless they all read as valid events. ETL: a fault in a
     * record skips the rest of its buffer; a damaged buffer header, the whole buffer, to
     * the next boundary of the logfile header's fixed buffer size (files in compressed
     * mode, whose buffers vary: the next plausible buffer header); a buffer whose size
     * differs from the logfile header's is read, when its records fit, to whichever of the
     * two sizes leads to a buffer header (a range of 0 bytes). CTF: a fault inside a
     * packet skips to the next packet of that stream file (its packet header gives the
     * packet's size); a damaged packet header ends that stream file, as without the option.
     * An input that ends inside a record is skipped to its end and the trace ends cleanly
     * (GCEV_END). The work stays linear in the input's size, whatever it holds; over a ZIP
     * archive entry keep-going skips at most 16 MiB + 8 bytes per byte the entry takes in
     * the archive, then ends the trace with GCEV_E_LIMIT (a deflate bomb behind a valid
     * header). Out of memory, read errors and faults at open are reported as without the
     * option.
     */
    uint32_t keep_going;
    /*
     * 1: the caller reads no stacks. Every event's stack is NULL and stack_size 0, and the
     * readers keep none: the stack blocks of NetTrace V5/V6 are checked as without the option
     * (their framing, and the limit on what they hold between sequence points) but not copied,
     * and the timestamp orders copy no stack with the events they hold. Everything else (the
     * events, their order, dropped events, errors and their offsets, keep-going's ranges) is what
     * it is without the option. For the walks that never look at a stack (counting, GC
     * analysis): on a trace of allocation samples with stacks it saves the copy of every stack.
     */
    uint32_t no_stacks;
} gcev_trace_options;

typedef struct gcev_trace gcev_trace;

/*
 * Opens the trace file at path (whole in memory when possible: on Linux a file of
 * 2 MiB to 256 MiB is read onto 2 MiB pages when the kernel gives them on request,
 * any other memory-mapped; else read in blocks; a NetTrace file opened for file order
 * without keep_going, which a walk reads once front to back, is read in blocks on POSIX
 * systems, whatever its size: memory stays about a block); the format is detected from its
 * first bytes and its header is read.
 * opts may be NULL (file order, default limits). On success *out owns the
 * trace: close it with gcev_trace_close(). On failure *out is NULL and *err says
 * why: GCEV_E_INVALID_ARG (path or out NULL, opts->struct_size from 1 to 3), GCEV_E_UNSUPPORTED
 * (opts->struct_size past this library's gcev_trace_options with an option set there; also see
 * below), GCEV_E_IO (cannot open or read;
 * offset 0 when it cannot be opened; errno
 * holds the OS's reason when the call returns), GCEV_E_NOMEM, GCEV_E_TRUNCATED_FILE (the
 * input ends inside its header; offset = where the record cut short starts, 0
 * for an empty file), GCEV_E_UNSUPPORTED (not a trace gcev reads, or a format
 * version it does not know), GCEV_E_FORMAT (a malformed header), GCEV_E_LIMIT (a
 * header record larger than opts->max_block_size).
 *
 * A ZIP archive (PerfView's .etl.zip, a .nettrace.zip) is read in place, never
 * extracted: the one entry whose name ends in .etl, .nettrace or .netperf is the
 * trace (symbol files and other entries are ignored), inflated as it is read; error
 * offsets are then into that entry, and messages name it. An archive with no such
 * entry, or several, is GCEV_E_UNSUPPORTED with a message naming the entries; a
 * file that starts as a ZIP but lacks its central directory (cut short) is
 * GCEV_E_TRUNCATED_FILE. Archives need random access: from a file or memory, not
 * from gcev_trace_open_reader().
 *
 * err->message is a static string, or text that names data (archive entries, an
 * offset inside a decompressed buffer): held by the trace until gcev_trace_close(),
 * or, for an open that failed, in a per-thread buffer valid until the next failing
 * open in the same thread.
 *
 * A folder is read as CTF 1.8 (LTTng, as perfcollect writes it): every folder
 * under `path` holding a "metadata" file is one CTF trace (the kernel/ and
 * ust/uid/<uid>/<bits>-bit/ trees of a session), its other files are its
 * per-CPU streams, and all their events come merged in timestamp order
 * whatever opts->order says. CTF events: timestamp in ns since the Unix epoch
 * (the trace clock with its offset; clock_frequency 1e9), processor = the
 * packet's cpu_id, process_id/thread_id/process_name from the stream's event
 * context (vpid/vtid/procname, or the kernel's pid/tid/procname). The
 * runtime's tracepoints ("DotNETRuntime:GCStart_V2") are named by their ETW
 * provider ("Microsoft-Windows-DotNETRuntime") and event name; those of gcev's
 * manifest carry its (id, version) and their payload rebuilt in the ETW layout
 * (strings as UTF-16LE), so gcev_decode reads them as from ETW/EventPipe. Other
 * events have no_event_id = 1: runtime ones keep the payload in ETW layout,
 * others (kernel: provider_name = the tracer's name, e.g. "lttng-modules")
 * the CTF bytes of their fields as they are. A fault in one stream file ends
 * that stream; the other streams are read to their end, then the fault is
 * reported: err->offset is into that stream file, and err->message (which
 * names the file) stays valid until gcev_trace_close(). A failed open of a CTF
 * folder has a message naming the file that is valid in the calling thread
 * until its next failed open.
 */
GCEV_API gcev_status gcev_trace_open_file(const char *path, const gcev_trace_options *opts, gcev_trace **out,
                                          gcev_error *err);
/*
 * As gcev_trace_open_file() over size bytes at data, which must stay valid and
 * unchanged until gcev_trace_close(): nothing is copied, events' payloads point
 * into it (for a ZIP archive: into the trace's window over the inflated entry).
 * data may be NULL only when size is 0. Returns as gcev_trace_open_file() does: GCEV_OK,
 * GCEV_E_INVALID_ARG (data NULL with size > 0, or out NULL), GCEV_E_NOMEM,
 * GCEV_E_TRUNCATED_FILE, GCEV_E_UNSUPPORTED, GCEV_E_FORMAT or GCEV_E_LIMIT.
 */
GCEV_API gcev_status gcev_trace_open_memory(const void *data, size_t size, const gcev_trace_options *opts,
                                            gcev_trace **out, gcev_error *err);
/*
 * As gcev_trace_open_file() over a non-seekable byte stream (a pipe, a live
 * session's socket): read(ctx, buf, n) is called whenever more bytes are needed
 * and must return the bytes read, 0 at the end, -1 on error (GCEV_E_IO). Memory
 * stays at most one block (opts->max_block_size). Formats that need random
 * access (NetPerf V1/V2, ZIP archives) give GCEV_E_UNSUPPORTED. read and ctx are used until
 * gcev_trace_close(); read must not be NULL.
 */
GCEV_API gcev_status gcev_trace_open_reader(gcev_read_fn read, void *ctx, const gcev_trace_options *opts,
                                            gcev_trace **out, gcev_error *err);

/* The header facts of t (owned by t, valid until gcev_trace_close()); NULL when t is NULL. */
GCEV_API const gcev_trace_info *gcev_trace_get_info(const gcev_trace *t);

/*
 * Bytes of the input consumed so far: where the reader is in the file or stream,
 * for progress against gcev_trace_info.file_size (in timestamp order the reader
 * runs ahead of the events returned). 0 when t is NULL and for a CTF folder,
 * which is read as several files.
 */
GCEV_API uint64_t gcev_trace_bytes_read(const gcev_trace *t);

/*
 * Reads the next event into *ev, in file or timestamp order as opened.
 * Returns GCEV_OK with *ev filled (its views valid until the next call on t);
 * GCEV_END at the clean end (*err then has code GCEV_END and the offset where
 * the trace ended); or an error after every event before the fault, with
 * err->offset the file offset of the record the fault is in:
 * GCEV_E_TRUNCATED_FILE (the input ends inside a record), GCEV_E_FORMAT,
 * GCEV_E_UNSUPPORTED, GCEV_E_LIMIT, GCEV_E_IO (errno then holds the OS's reason,
 * or what a read callback left in it, each time it is returned) or GCEV_E_NOMEM. The end and
 * errors are sticky: further calls return the same status and error.
 * GCEV_E_INVALID_ARG when t or ev is NULL.
 */
GCEV_API gcev_status gcev_trace_next(gcev_trace *t, gcev_trace_event *ev, gcev_error *err);

/*
 * A lean event record: what a walk over many events reads of each (which event, when, which
 * thread, its payload), filled by gcev_trace_next_lean() without the rest of
 * gcev_trace_event (names, activity ids, stack, field list, capture thread, processor,
 * sequence, ms ...), which gcev_trace_lean_event() gives on demand. Members mean what the
 * gcev_trace_event members of the same names mean; views are valid until the next call on t.
 */
typedef struct gcev_trace_lean {
    uint32_t struct_size; /* set by the caller: sizeof(gcev_trace_lean), or 0 (the first layout) */
    uint16_t event_id;
    uint16_t version;
    const gcev_provider *provider; /* compiled provider, or NULL */
    const void *kind;              /* as gcev_trace_event.kind */
    int64_t timestamp;
    uint64_t thread_id;
    const uint8_t *payload;
    uint32_t payload_size;
    uint8_t pointer_size;
    uint8_t no_event_id;
} gcev_trace_lean;

/*
 * As gcev_trace_next(), into a lean record: the same events in the same order, the same end,
 * errors, keep-going and filter. The EventPipe reader fills it straight from the event header
 * and its metadata record in file order for NetPerf V1-V3 and NetTrace V4/V5 blocks (the
 * runtime's own traces; V6 and the time order excepted); elsewhere it reads the full record
 * and copies these members.
 * Returns GCEV_OK, GCEV_END, the reader's errors (GCEV_E_TRUNCATED_FILE, GCEV_E_FORMAT,
 * GCEV_E_UNSUPPORTED, GCEV_E_LIMIT, GCEV_E_IO, GCEV_E_NOMEM) as gcev_trace_next() does, or
 * GCEV_E_INVALID_ARG when t or ev is NULL or ev->struct_size is neither 0 nor at least this
 * struct's size. The library writes no byte past this release's struct.
 */
GCEV_API gcev_status gcev_trace_next_lean(gcev_trace *t, gcev_trace_lean *ev, gcev_error *err);

/*
 * As gcev_trace_next_lean() for up to cap events at once (a walk over millions of events pays
 * the call, its checks and the reader's dispatch once per batch): fills evs[0..*n).
 * evs[0].struct_size must be 0 or sizeof(gcev_trace_lean) of this release exactly, since the
 * library steps through the array by its own struct's size (the others are written whole). Returns GCEV_OK
 * with 1 <= *n <= cap; GCEV_END or an error with *n = 0, as gcev_trace_next_lean() returns them: a fault
 * after some events returns those first and the fault on the next call (keep-going then reads past it). A
 * batch ends after an event without a kind (kind NULL: ETL, CTF), so that gcev_trace_lean_event() can give
 * its full record; gcev_trace_kind_record() gives what the others' kinds say. GCEV_E_INVALID_ARG when t, evs
 * or n is NULL, cap is 0 or evs[0].struct_size is another size.
 */
GCEV_API gcev_status gcev_trace_next_lean_batch(gcev_trace *t, gcev_trace_lean *evs, size_t cap, size_t *n,
                                                gcev_error *err);

/*
 * The full record of the event the last gcev_trace_next_lean() call returned, or of the last
 * event of the last batch (filled when first asked), owned by t and valid until the next call
 * that reads t; NULL when t is NULL, that call did not return GCEV_OK, or the batch stopped at
 * a fault (the reader read the faulty header over the state its last event's record is made
 * from; the next call returns the fault).
 */
GCEV_API const gcev_trace_event *gcev_trace_lean_event(gcev_trace *t);

/*
 * What t's metadata says of every event of `kind` (a non-NULL gcev_trace_event.kind or
 * gcev_trace_lean.kind of t): provider_name, provider_guid and has_provider_guid, provider,
 * event_id, version (a V6 label list may override it per event: the lean record has the
 * event's own), event_name, opcode, level, keywords and their has_* flags, nfields and
 * fields; every other member 0. Owned by t, valid until gcev_trace_close(); NULL when t or
 * kind is NULL.
 */
GCEV_API const gcev_trace_event *gcev_trace_kind_record(const gcev_trace *t, const void *kind);

/*
 * Events lost so far according to EventPipe sequence-number gaps; 0 when t is
 * NULL and for formats without sequence numbers (an ETL header's own count is
 * gcev_trace_info.events_lost).
 */
GCEV_API uint64_t gcev_trace_dropped_events(const gcev_trace *t);

typedef struct gcev_trace_drop {
    uint64_t capture_thread_id;
    uint32_t expected_sequence;
    uint32_t seen_sequence;
    uint64_t dropped;
    int64_t timestamp; /* of the first event after the gap */
    uint64_t file_offset;
} gcev_trace_drop;

/* Gaps recorded so far (at most 1024 are kept; gcev_trace_dropped_events() counts
 * every one); 0 when t is NULL. */
GCEV_API size_t gcev_trace_drop_count(const gcev_trace *t);
/* The i-th recorded gap, owned by t until gcev_trace_close(); NULL when t is NULL
 * or i >= gcev_trace_drop_count(t). */
GCEV_API const gcev_trace_drop *gcev_trace_drop_at(const gcev_trace *t, size_t i);

/* A range of the input skipped by a trace opened with gcev_trace_options.keep_going. */
typedef struct gcev_trace_skip {
    uint64_t offset; /* file offset of the first byte skipped (CTF: into the stream file the message names) */
    uint64_t bytes;  /* bytes skipped: to the next block/buffer read, or to the end of the input;
                        0 when the input ends where more was promised (an ETL header's buffer count) */
    gcev_status
        status; /* the fault: GCEV_E_FORMAT, GCEV_E_TRUNCATED_FILE, GCEV_E_LIMIT, GCEV_E_UNSUPPORTED */
    uint64_t fault_offset; /* where the fault is, as gcev_trace_next() would have reported it */
    const char *message;   /* its message, as gcev_trace_next() would have reported it (cut to
                              255 bytes); UTF-8, owned by t until gcev_trace_close() */
    int64_t timestamp;     /* of the first event read after the range (file order), when has_timestamp */
    uint8_t has_timestamp; /* 0 when no event follows the range */
} gcev_trace_skip;

/*
 * Ranges skipped so far (at most 1024 are kept: consecutive ones with the same fault are
 * merged into one, later ones only counted by gcev_trace_skipped_ranges() and
 * gcev_trace_skipped_bytes()); 0 when t is NULL or was not opened with keep_going. A
 * range is recorded when the reader resumes after it, so in file order before the first
 * event after it is returned (in timestamp order the reader runs ahead of the events
 * returned); its timestamp is set when that event is read.
 */
GCEV_API size_t gcev_trace_skip_count(const gcev_trace *t);
/* The i-th recorded range, owned by t until gcev_trace_close(); NULL when t is NULL or
 * i >= gcev_trace_skip_count(t). */
GCEV_API const gcev_trace_skip *gcev_trace_skip_at(const gcev_trace *t, size_t i);
/* Every range skipped so far, also those past the 1024 recorded; 0 when t is NULL. */
GCEV_API uint64_t gcev_trace_skipped_ranges(const gcev_trace *t);
/* The bytes of every range skipped so far; 0 when t is NULL. */
GCEV_API uint64_t gcev_trace_skipped_bytes(const gcev_trace *t);

/* ------------------------------------------------------------------------ */
/* Filters: the events a caller wants, skipped by the readers otherwise      */
/* ------------------------------------------------------------------------ */

/* gcev_trace_filter.flags */
enum {
    /*
     * The GC set: every event gcev's compiled schema describes, i.e. whose (provider, id,
     * version) gcev_event_desc_resolve() resolves (the GC, type, allocation-sampling,
     * private-GC, GC-rundown, Mono-GC and GCDynamic events of manifest/gc.select). These are
     * the events gcev_decode() reads and all that the GC analysis (gcev_stats, gcev stats,
     * gcev report) takes from a trace; every other event only counts as "an event at time
     * ms", which gcev_trace_filtered_events() and gcev_trace_filtered_span() give.
     */
    GCEV_TRACE_FILTER_GC = 1u << 0
};

/* One (provider, event id) pair of a filter. */
typedef struct gcev_trace_filter_event {
    const char *provider; /* name (ASCII case-insensitive) or GUID text ("{...}" optional) */
    uint16_t event_id;
} gcev_trace_filter_event;

/*
 * What a caller wants of a trace (gcev_trace_set_filter). An event is returned when it is in
 * the selection, the union of the GCEV_TRACE_FILTER_* sets of `flags`, the providers
 * `providers` names and the (provider, id) pairs `events` names (every event when all three
 * are empty), and passes `keywords` and `max_level`. An event matches a provider given by
 * name when its provider's name is that name or when both resolve to the same compiled
 * provider; given by GUID, when its provider GUID is that GUID or its compiled provider has
 * it. Events without an id (gcev_trace_event.no_event_id) are never in `events` nor in the
 * GC set.
 */
typedef struct gcev_trace_filter {
    uint32_t struct_size;         /* growable (gcev.h "Growable structs"): sizeof, or 0 */
    uint32_t flags;               /* GCEV_TRACE_FILTER_* */
    const char *const *providers; /* nproviders names or GUID texts */
    size_t nproviders;
    const gcev_trace_filter_event *events;
    size_t nevents;
    /* 0: any; else only events whose keywords share a bit with it (keywords 0 do not) */
    uint64_t keywords;
    /* 0: any; else only events of this level or a more important one (1 Critical .. 5
     * Verbose): an event of level 0 (LogAlways) or without a level passes */
    uint8_t max_level;
} gcev_trace_filter;

/*
 * Makes t return only the events f selects (f NULL: every event again). The readers decide
 * right after an event's header, before they fill the event, look up or copy anything
 * else for it (EventPipe: from the event's metadata record, a verdict kept per record; ETL:
 * from the record's header and, for TraceLogging, its provider traits, before the schema
 * look-up; CTF: per event class, before the payload is rebuilt). A skipped event is still
 * read as far as the format needs to find the next one and check what it always checks:
 * its framing, its timestamp against its block's range, its metadata id and (EventPipe)
 * its sequence number, so dropped events, damage, keep-going ranges and error offsets are
 * what they are without a filter. Applies to the events read after the call: in timestamp
 * order the reader runs ahead of the events it returns, so set it before the first
 * gcev_trace_next(). f and its strings are copied. Returns GCEV_OK; GCEV_E_INVALID_ARG when t
 * is NULL, f->struct_size is 1 to 3, f->flags has an unknown bit,
 * a provider is NULL or empty, or a list is non-empty with a NULL pointer; GCEV_E_UNSUPPORTED
 * when f is a later release's larger struct that sets a member this library lacks; GCEV_E_NOMEM.
 */
GCEV_API gcev_status gcev_trace_set_filter(gcev_trace *t, const gcev_trace_filter *f, gcev_error *err);

/* Events the filter skipped so far (in the reader's file-order pass); 0 when t is NULL. */
GCEV_API uint64_t gcev_trace_filtered_events(const gcev_trace *t);

/*
 * The time span of the events the filter skipped so far: sets *first_ms and *last_ms (either
 * may be NULL) to the smallest and largest gcev_trace_event.ms they had and returns 1; 0 when
 * none was skipped (or t is NULL), leaving them unset.
 */
GCEV_API int gcev_trace_filtered_span(const gcev_trace *t, double *first_ms, double *last_ms);

/* Closes t and frees everything it owns (every view it handed out ends). NULL is allowed. */
GCEV_API void gcev_trace_close(gcev_trace *t);

/* ------------------------------------------------------------------------ */
/* Self-describing payloads (EventSource metadata in EventPipe traces,       */
/* TraceLogging schemas in ETL traces)                                       */
/* ------------------------------------------------------------------------ */

/*
 * JSON object of an event's payload decoded with the event's own field list
 * (ev->fields; "{}" when it has none), for events without a compiled schema.
 * ev->field_type_system says how to read the type codes (EventPipe TypeCodes
 * or TDH in-types). Integers (also hex-formatted ones, pointers and FILETIMEs)
 * as numbers, Booleans as true/false, strings as strings, GUIDs as text,
 * binary blobs (and EventPipe byte arrays) as hex text, TDH SYSTEMTIMEs as
 * "YYYY-MM-DDThh:mm:ss.mmm", SIDs as "S-1-...", arrays as JSON arrays, nested
 * structs as objects. A payload that ends inside a field gives null for it and
 * a final "_truncated":true member. Work is bounded by the payload's size:
 * after 4096 + 16 * payload_size values (only reachable with empty structs in
 * nested arrays) the rest is cut and a final "_work_limit":true member is
 * added. A TDH field of a type that cannot be sized (an unknown in-type, or
 * nesting deeper than 32) ends the object with "_unsupported":true.
 * snprintf semantics (returns the full length, NUL-terminates when n > 0).
 * Reentrant; reads only ev->payload within ev->payload_size.
 */
GCEV_API size_t gcev_trace_format_fields_json(const gcev_trace_event *ev, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* GCEV_TRACE_H */
