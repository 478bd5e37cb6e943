/* SPDX-License-Identifier: MIT */
/*
 * ETW log file (.etl) reader: detection, the TRACE_LOGFILE_HEADER, and one
 * event per record, in file order.
 *
 * A file is a sequence of buffers (WMI_BUFFER_HEADER + records, typically
 * 64 KiB); each holds the events of one CPU. A buffer is viewed whole through
 * gcev_source_peek(), so memory stays one buffer whatever the input (mapped
 * file, memory, pipe), and it is skipped only when its last record is out:
 * event views stay valid until the next call, as the contract says.
 * The record layouts live in gcev_etl_records.c, TraceLogging schemas in
 * gcev_etl_tracelogging.c.
 *
 * Relogged files in compressed mode hold buffers whose records are MS-XCA Plain
 * LZ77 data (gcev_xpress.c): such a buffer is inflated into one buffer owned by
 * the reader (memory stays one buffer) and read as any other. Its records have no
 * place of their own in the file: their events carry the buffer's file offset,
 * and their faults name the offset inside the inflated buffer in the message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcev_compiler.h"
#include "gcev_error.h"
#include "gcev_etl_records.h"
#include "gcev_etl_tracelogging.h"
#include "gcev_read.h"
#include "gcev_etl.h"
#include "gcev_schema_desc.h"
#include "gcev_trace_core.h"
#include "gcev_xpress.h"

enum { ETL_DEFAULT_MAX_BUFFER = 256u << 20 };

/* Compressed mode (LogFileMode) and the COMPRESSION_FORMAT_* values ETW keeps, in that
 * mode, in the low 16 bits of the header buffer's State (WMI_BUFFER_HEADER + 0x2C):
 * XPRESS (3) in the corpus file; another independent reader (snail) reads the same
 * field and also knows only XPRESS to be written. */
enum {
    ETL_MODE_CIRCULAR = 0x00000002,
    ETL_MODE_COMPRESSED = 0x04000000,
    ETL_BUFFER_STATE_OFFSET = 0x2C,
    ETL_COMPRESSION_LZNT1 = 2,
    ETL_COMPRESSION_XPRESS = 3,
    ETL_COMPRESSION_XPRESS_HUFF = 4
};

typedef struct etl_impl {
    gcev_etl_buffer_header bh; /* current buffer */
    const uint8_t *buf;        /* its bytes: the source's view, or `inflated` */
    size_t have;               /* bytes of buf there are (< saved_offset when the input is cut) */
    size_t file_have;          /* bytes of the buffer in the input (< buffer_size when cut) */
    uint64_t buf_off;          /* file offset of the buffer */
    uint32_t pos;              /* next record, relative to buf */
    int in_buffer;
    int compressed;             /* buf is the inflated copy of a compressed buffer */
    uint8_t *inflated;          /* reused for every compressed buffer */
    size_t inflated_cap;        /* grows to the largest used size, never past trace_buffer_size */
    uint32_t trace_buffer_size; /* TRACE_LOGFILE_HEADER.BufferSize */
    uint16_t compression;       /* COMPRESSION_FORMAT_* of compressed mode (see gcev_etl_open) */
    uint32_t buffers_written;   /* buffers the file must hold (see etl_buffers_missing), 0: unknown */
    uint32_t buffers_seen;      /* buffer headers read by next(), the header buffer included */
    int compressed_mode;        /* the logfile header's mode: buffers of varying sizes */
    uint64_t bh_off;            /* keep-going: the buffer whose header e->bh is, UINT64_MAX: none */
    gcev_etl_tl_cache *tl;
    /* the last provider GUID looked up and its compiled provider (consecutive events
     * mostly share one): one compare per event instead of a search */
    gcev_guid last_guid;
    const gcev_provider *last_provider;
    int have_last_guid;
} etl_impl;

static gcev_status etl_fail(gcev_error *err, gcev_status code, uint64_t offset, const char *msg)
{
    return gcev_error_set(err, code, offset, NULL, msg);
}

int gcev_etl_detect(const uint8_t *head, size_t n)
{
    /* Every .etl file opens with a whole buffer holding at least the log file
     * header record, so its buffer header must be self-consistent. Buffer sizes
     * are multiples of 1 KiB; checking 8 already rules out the EventPipe magics
     * ("Nettrace", "!FastSerialization"). gcev_trace.c peeks 80 bytes: the
     * buffer header and the first record's marker, which must be there. */
    if (!head || n < GCEV_ETL_BUFFER_HEADER_SIZE + 8) {
        return 0;
    }
    uint32_t size = gcev_rd_u32le(head);
    uint32_t used = gcev_rd_u32le(head + 4);
    uint32_t min = GCEV_ETL_BUFFER_HEADER_SIZE + GCEV_ETL_SYSTEM_HEADER_SIZE;
    if (size % 8 != 0 || size < min || used < min || used > size) {
        return 0;
    }
    if (gcev_rd_u16le(head + 0x36) > 8) { /* ETW_BUFFER_TYPE_* */
        return 0;
    }
    /* The first record is the log file header: a kernel system header, 32 or
     * 64 bit (marker: bytes 0-1 version, 2 header type, 3 flags), then its
     * 16-bit record size, which must cover the system header and fit in the
     * buffer's used bytes. */
    const uint8_t *r = head + GCEV_ETL_BUFFER_HEADER_SIZE;
    if ((r[3] & 0xC0) != 0xC0 || (r[2] != GCEV_ETL_HT_SYSTEM32 && r[2] != GCEV_ETL_HT_SYSTEM64)) {
        return 0;
    }
    uint16_t rsize = gcev_rd_u16le(r + 4);
    if (rsize < GCEV_ETL_SYSTEM_HEADER_SIZE || rsize > used - GCEV_ETL_BUFFER_HEADER_SIZE) {
        return 0;
    }
    return 1;
}

static uint32_t etl_max_buffer(const gcev_trace *t)
{
    return t->opts.max_block_size ? t->opts.max_block_size : ETL_DEFAULT_MAX_BUFFER;
}

/* A fault inside a compressed buffer: the buffer's file offset, and in the message
 * where in the inflated buffer (header included) the fault lies. */
static gcev_status etl_fail_inflated(gcev_trace *t, const etl_impl *e, gcev_error *err, gcev_status code,
                                     uint64_t at, const char *what)
{
    snprintf(t->msg, sizeof t->msg,
             "%s (compressed ETL buffer at file offset %llu: offset %llu of its inflated data)", what,
             (unsigned long long)e->buf_off, (unsigned long long)at);
    return etl_fail(err, code, e->buf_off, t->msg);
}

/* Inflates the compressed buffer whose file bytes are v[0..got) into e->inflated. */
static gcev_status etl_inflate(gcev_trace *t, etl_impl *e, const uint8_t *v, size_t got, gcev_error *err)
{
    const uint32_t used = e->bh.saved_offset;
    if (e->compression == ETL_COMPRESSION_LZNT1 || e->compression == ETL_COMPRESSION_XPRESS_HUFF) {
        return etl_fail(
            err, GCEV_E_UNSUPPORTED, e->buf_off,
            e->compression == ETL_COMPRESSION_LZNT1
                ? "ETL buffers compressed with LZNT1 are not supported (only XPRESS, MS-XCA Plain LZ77)"
                : "ETL buffers compressed with XPRESS Huffman are not supported (only XPRESS, MS-XCA "
                  "Plain LZ77)");
    }
    if (e->trace_buffer_size && used > e->trace_buffer_size) {
        return etl_fail(err, GCEV_E_FORMAT, e->buf_off,
                        "compressed ETL buffer's used size exceeds the trace's buffer size");
    }
    if (used > etl_max_buffer(t)) {
        return etl_fail(err, GCEV_E_LIMIT, e->buf_off, "ETL buffer size exceeds the block-size limit");
    }
    if (e->inflated_cap < used) {
        uint8_t *nb = realloc(e->inflated, used);
        if (!nb) {
            return etl_fail(err, GCEV_E_NOMEM, e->buf_off, "out of memory");
        }
        e->inflated = nb;
        e->inflated_cap = used;
    }
    memcpy(e->inflated, v, GCEV_ETL_BUFFER_HEADER_SIZE);
    gcev_xpress_result r;
    gcev_status st = gcev_xpress_inflate(v + GCEV_ETL_BUFFER_HEADER_SIZE, got - GCEV_ETL_BUFFER_HEADER_SIZE,
                                         e->inflated + GCEV_ETL_BUFFER_HEADER_SIZE,
                                         used - GCEV_ETL_BUFFER_HEADER_SIZE, &r);
    const uint64_t at = GCEV_ETL_BUFFER_HEADER_SIZE + (uint64_t)r.out_pos;
    if (st == GCEV_E_TRUNCATED && got == e->bh.buffer_size) {
        /* the whole buffer is there: its data is short of its used size */
        return etl_fail_inflated(t, e, err, GCEV_E_FORMAT, at,
                                 "ETL buffer's compressed data ends before its used size");
    }
    if (st == GCEV_E_FORMAT) {
        return etl_fail_inflated(t, e, err, st, at, r.why);
    }
    /* a cut buffer gives the records its first bytes determine */
    e->buf = e->inflated;
    e->have = (size_t)at;
    e->compressed = 1;
    return GCEV_OK;
}

static int etl_header_plausible(const etl_impl *e, const uint8_t *p, size_t n);

/* Random access: whether a buffer may start at `at`: the input's end, or a plausible header. */
static int etl_next_plausible(const gcev_trace *t, const etl_impl *e, uint64_t at)
{
    return at == t->src.size ||
           (at < t->src.size && etl_header_plausible(e, t->src.base + at, (size_t)(t->src.size - at)));
}

/* Reads and checks the header of the buffer at the current position, then views it
 * (inflated when compressed) into e. */
static gcev_status etl_view_buffer(gcev_trace *t, etl_impl *e, gcev_error *err)
{
    uint64_t off = gcev_source_pos(&t->src);
    const uint8_t *v = NULL;
    size_t got = 0;
    gcev_status st = gcev_source_peek(&t->src, GCEV_ETL_BUFFER_HEADER_SIZE, &v, &got, err);
    if (st != GCEV_OK) {
        return st;
    }
    if (got == 0) {
        return GCEV_END;
    }
    if (got < GCEV_ETL_BUFFER_HEADER_SIZE) {
        return etl_fail(err, GCEV_E_TRUNCATED_FILE, off, "trace ends inside an ETL buffer header");
    }
    const char *msg = NULL;
    e->bh_off = UINT64_MAX;
    st = gcev_etl_buffer_header_parse(v, &e->bh, &msg);
    if (st != GCEV_OK) {
        return etl_fail(err, st, off, msg);
    }
    if (e->bh.buffer_size > etl_max_buffer(t)) {
        return etl_fail(err, GCEV_E_LIMIT, off, "ETL buffer size exceeds the block-size limit");
    }
    if (e->bh.flags & GCEV_ETL_BUFFER_FLAG_COMPRESSED) {
        e->compressed_mode = 1; /* buffers of varying sizes from here on, whatever the header's mode */
    }
    if (t->opts.keep_going && e->trace_buffer_size && !e->compressed_mode &&
        e->bh.buffer_size != e->trace_buffer_size) {
        /* keep-going reads buffers at the logfile header's fixed size: a header that says
         * otherwise is damaged (a larger size would hide the buffers after it). When its
         * records fit that size, they are read as plain mode reads them, and the buffer ends
         * where the fixed size says; the damage is reported as a range of 0 bytes. */
        const int random = gcev_source_random(&t->src);
        if (random && etl_next_plausible(t, e, off + e->bh.buffer_size)) {
            goto sized; /* the buffer's own size leads to the next buffer: the log file's is off */
        }
        if (e->bh.saved_offset > e->trace_buffer_size || e->trace_buffer_size < GCEV_ETL_BUFFER_HEADER_SIZE ||
            (random && !etl_next_plausible(t, e, off + e->trace_buffer_size))) {
            return etl_fail(err, GCEV_E_FORMAT, off, "ETL buffer size differs from the log file header's");
        }
        snprintf(t->msg, sizeof t->msg,
                 "ETL buffer size (%lu) differs from the log file header's (%lu): read at the header's",
                 (unsigned long)e->bh.buffer_size, (unsigned long)e->trace_buffer_size);
        gcev_error fault = {GCEV_E_FORMAT, off, NULL, t->msg};
        gcev_trace_note_repair(t, off, &fault);
        e->bh.buffer_size = e->trace_buffer_size;
    }
sized:
    e->bh_off = off;
    st = gcev_source_peek(&t->src, e->bh.buffer_size, &v, &got, err);
    if (st != GCEV_OK) {
        return st;
    }
    e->buf_off = off;
    e->file_have = got;
    e->compressed = 0;
    if (e->bh.flags & GCEV_ETL_BUFFER_FLAG_COMPRESSED) {
        return etl_inflate(t, e, v, got, err);
    }
    e->buf = v;
    e->have = got;
    return GCEV_OK;
}

static gcev_status etl_next(gcev_trace *t, gcev_trace_event *ev, gcev_error *err);

static void etl_destroy(gcev_trace *t)
{
    etl_impl *e = t->impl;
    if (e) {
        gcev_etl_tl_cache_destroy(e->tl);
        free(e->inflated);
        free(e);
    }
    t->impl = NULL;
}

static gcev_status etl_resync(gcev_trace *t, const gcev_error *fault, uint64_t *from, uint64_t *to,
                              gcev_error *err);

static const gcev_trace_ops etl_ops = {etl_next, etl_destroy, etl_resync, NULL, NULL, NULL, NULL, NULL};

gcev_status gcev_etl_open(gcev_trace *t, gcev_error *err)
{
    uint64_t off = gcev_source_pos(&t->src);
    etl_impl *e = calloc(1, sizeof *e);
    if (!e) {
        return etl_fail(err, GCEV_E_NOMEM, off, "out of memory");
    }
    /* owned by t from here: gcev_trace_close() destroys it on any failure below */
    t->impl = e;
    t->ops = &etl_ops;
    gcev_status st = etl_view_buffer(t, e, err);
    if (st == GCEV_END) {
        return etl_fail(err, GCEV_E_TRUNCATED_FILE, off, "empty input: no ETL buffer");
    }
    if (st != GCEV_OK) {
        return st;
    }
    if (e->compressed) {
        /* never written so: the header buffer tells the inflated size of the others */
        return etl_fail(err, GCEV_E_UNSUPPORTED, off,
                        "the first ETL buffer (the log file header) is compressed");
    }
    /* Pass 1 of the first record only: the trace-wide facts. next() starts over
     * at this same buffer and yields the record as the first event, as
     * TraceEvent does (its "EventTrace" header event). */
    const uint8_t *buf = e->buf;
    const size_t have = e->have;
    uint32_t at = GCEV_ETL_BUFFER_HEADER_SIZE;
    uint64_t rec_off = off + at;
    if (have < (size_t)at + 8) {
        return etl_fail(err, GCEV_E_TRUNCATED_FILE, rec_off, "trace ends inside the ETL log file header");
    }
    const char *msg = NULL;
    gcev_etl_record r;
    st = gcev_etl_record_classify(buf + at, have - at, &r, &msg);
    if (st != GCEV_OK) {
        return etl_fail(err, st, rec_off, msg);
    }
    if (r.kind != GCEV_ETL_REC_SYSTEM || r.header_size != GCEV_ETL_SYSTEM_HEADER_SIZE ||
        gcev_rd_u16le(buf + at + 6) != GCEV_ETL_HOOK_LOGFILE_HEADER) {
        return etl_fail(err, GCEV_E_FORMAT, rec_off,
                        "ETL file does not start with a trace log file header record");
    }
    if (r.size > e->bh.saved_offset - at) {
        return etl_fail(err, GCEV_E_FORMAT, rec_off, "ETL record overruns its buffer's used size");
    }
    if (r.size > have - at) {
        return etl_fail(err, GCEV_E_TRUNCATED_FILE, rec_off, "trace ends inside the ETL log file header");
    }
    gcev_etl_logfile lf;
    st = gcev_etl_logfile_parse(buf + at + r.header_size, r.size - r.header_size, &lf, &msg);
    if (st != GCEV_OK) {
        return etl_fail(err, st, rec_off, msg);
    }
    e->tl = gcev_etl_tl_cache_create();
    if (!e->tl) {
        return etl_fail(err, GCEV_E_NOMEM, off, "out of memory");
    }
    e->trace_buffer_size = lf.buffer_size;
    /* BuffersWritten counts every buffer of the file, the header buffer included: 2 of 2
     * in gcrundownevents.etl (written by a session), 2 of 2 in primitive-types.etl, 3 of 3
     * in the relogged compressed file, as TraceEvent prints them. A sequential file that
     * holds fewer was cut short. A circular file overwrites its buffers, so there the
     * count says nothing; 0 says nothing either (a header never updated). */
    if (!(lf.log_file_mode & ETL_MODE_CIRCULAR)) {
        e->buffers_written = lf.buffers_written;
    }
    if (lf.log_file_mode & ETL_MODE_COMPRESSED) {
        e->compression = (uint16_t)gcev_rd_u32le(buf + ETL_BUFFER_STATE_OFFSET);
        e->compressed_mode = 1;
    }
    t->info.format = GCEV_FORMAT_ETL;
    t->info.format_version = 0;
    t->info.pointer_size = (uint8_t)lf.pointer_size;
    t->info.process_id = 0;
    t->info.processor_count = lf.number_of_processors;
    t->info.clock_frequency = lf.clock_frequency;
    /* TraceEvent's ms are relative to the header record's timestamp. */
    t->info.sync_time_qpc = (int64_t)gcev_rd_u64le(buf + at + 16);
    t->info.sync_time_utc = lf.start_time;
    t->info.events_lost = lf.events_lost;
    t->info.buffers_lost = lf.buffers_lost;
    /* next() views this buffer again from the start */
    e->in_buffer = 0;
    return GCEV_OK;
}

/* A malformed record at e->pos: its file offset, or for an inflated buffer the
 * buffer's, with the offset inside the inflated data in the message. */
static gcev_status etl_record_fail(gcev_trace *t, const etl_impl *e, gcev_error *err, gcev_status code,
                                   const char *msg)
{
    if (e->compressed) {
        return etl_fail_inflated(t, e, err, code, e->pos, msg);
    }
    return etl_fail(err, code, e->buf_off + e->pos, msg);
}

/* Names the provider: the runtime's from the compiled schemas, TraceLogging's from its traits. */
static GCEV_ALWAYS_INLINE void etl_name_provider(etl_impl *e, gcev_trace_event *ev, const uint8_t *traits,
                                                 uint32_t traits_size)
{
    if (ev->has_provider_guid) {
        if (!e->have_last_guid || memcmp(&e->last_guid, &ev->provider_guid, sizeof e->last_guid) != 0) {
            e->last_guid = ev->provider_guid;
            e->last_provider = gcev_provider_find_guid(&ev->provider_guid);
            e->have_last_guid = 1;
        }
        ev->provider = e->last_provider;
        if (ev->provider) {
            ev->provider_name = ev->provider->name;
            return;
        }
    }
    if (traits) {
        const char *name = gcev_etl_tl_provider_name(traits, traits_size);
        if (name) {
            ev->provider_name = name;
        }
    }
}

/* Whether the filter keeps the named event ev: with the compiled provider trace/api would
 * find by name (provider_resolved is not set for ETL), so that it judges what it returns. */
static int etl_filter_keeps(gcev_trace *t, gcev_trace_event *ev)
{
    if (!ev->provider && ev->provider_name && ev->provider_name[0]) {
        ev->provider = gcev_provider_find(ev->provider_name);
    }
    if (gcev_filter_match(t->filter, ev)) {
        return 1;
    }
    gcev_trace_note_filtered(t, ev->timestamp);
    return 0;
}

/* Fills ev from the record r at e->pos; GCEV_END when the record is not an event, or one
 * the filter (gcev_trace_set_filter) skips. */
static gcev_status etl_record_event(gcev_trace *t, etl_impl *e, const gcev_etl_record *r,
                                    gcev_trace_event *ev, gcev_error *err)
{
    const uint8_t *p = e->buf + e->pos;
    const char *msg = NULL;
    ev->provider_name = "";
    ev->event_name = "";
    ev->processor = e->bh.processor;
    ev->file_offset = e->compressed ? e->buf_off : e->buf_off + e->pos;
    const uint8_t *traits = NULL;
    uint32_t traits_size = 0;
    gcev_status st = GCEV_OK;
    switch (r->kind) {
    case GCEV_ETL_REC_EVENT: {
        const uint8_t *schema = NULL;
        uint32_t schema_size = 0;
        st = gcev_etl_event_fill(p, r, ev, &schema, &schema_size, &traits, &traits_size, &msg);
        if (t->opts.no_stacks) {
            ev->stack = NULL; /* (a view into the buffer: nothing was copied) */
            ev->stack_size = 0;
        }
        if (st == GCEV_OK && t->filter) {
            /* the filter reads the header and the provider's name (TraceLogging: from its
             * traits); a skipped event's schema is never parsed */
            ev->capture_thread_id = ev->thread_id;
            etl_name_provider(e, ev, traits, traits_size);
            if (!etl_filter_keeps(t, ev)) {
                return GCEV_END;
            }
        }
        if (st == GCEV_OK && schema) {
            const gcev_etl_tl_schema *s = NULL;
            st = gcev_etl_tl_schema_get(e->tl, schema, schema_size, &s, &msg);
            if (st == GCEV_E_NOMEM) {
                msg = "out of memory";
            }
            if (st == GCEV_OK) {
                ev->event_name = s->event_name;
                ev->nfields = s->nfields;
                ev->fields = s->fields;
                ev->field_type_system = GCEV_FIELD_TYPES_TDH;
            }
        }
        if (st != GCEV_OK) {
            return etl_record_fail(t, e, err, st, msg);
        }
        break;
    }
    case GCEV_ETL_REC_SYSTEM:
    case GCEV_ETL_REC_PERFINFO:
    case GCEV_ETL_REC_CLASSIC:
    case GCEV_ETL_REC_INSTANCE:
        gcev_etl_classic_fill(p, r, ev);
        break;
    default:
        return GCEV_END; /* WPP messages: their layout depends on option flags; skipped */
    }
    /* Thread ids are the per-writer streams the timestamp-order layer merges. */
    ev->capture_thread_id = ev->thread_id;
    etl_name_provider(e, ev, traits, traits_size);
    if (t->filter && r->kind != GCEV_ETL_REC_EVENT && !etl_filter_keeps(t, ev)) {
        return GCEV_END; /* classic and kernel records: judged once named */
    }
    return GCEV_OK;
}

/* Where the input ends inside the current buffer, for a record or padding cut at
 * buffer offset `at`: that place, or the end of the input when it comes first
 * (always, for a compressed buffer, whose inflated offsets are not file offsets). */
static uint64_t etl_cut_offset(const etl_impl *e, uint64_t at)
{
    uint64_t end = e->buf_off + e->file_have;
    return !e->compressed && e->buf_off + at < end ? e->buf_off + at : end;
}

static gcev_status etl_next(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    etl_impl *e = t->impl;
    /* Each turn consumes a record (>= 8 bytes of a buffer) or a whole buffer of
     * the input, so the loop ends with the input. */
    for (;;) {
        if (!e->in_buffer) {
            gcev_status st = etl_view_buffer(t, e, err);
            if (st == GCEV_END && e->buffers_seen < e->buffers_written) {
                snprintf(t->msg, sizeof t->msg,
                         "trace ends after %u of the %u ETL buffers its log file header says were written",
                         (unsigned)e->buffers_seen, (unsigned)e->buffers_written);
                return etl_fail(err, GCEV_E_TRUNCATED_FILE, gcev_source_pos(&t->src), t->msg);
            }
            if (st != GCEV_OK) {
                return st;
            }
            e->buffers_seen++;
            e->in_buffer = 1;
            e->pos = GCEV_ETL_BUFFER_HEADER_SIZE;
        }
        uint32_t used = e->bh.saved_offset;
        /* Fewer than 8 bytes cannot hold a record header: the rest is padding. */
        if (e->pos < used && used - e->pos >= 8) {
            if (e->have < (size_t)e->pos + 8) {
                /* the input may end in the previous record's alignment padding, before pos */
                return etl_fail(err, GCEV_E_TRUNCATED_FILE, etl_cut_offset(e, e->pos),
                                "trace ends inside an ETL record");
            }
            const char *msg = NULL;
            gcev_etl_record r;
            gcev_status st = gcev_etl_record_classify(e->buf + e->pos, 8, &r, &msg);
            if (st != GCEV_OK) {
                return etl_record_fail(t, e, err, st, msg);
            }
            if (r.kind == GCEV_ETL_REC_FILL) {
                e->pos = used;
                continue;
            }
            if (r.size > used - e->pos) {
                return etl_record_fail(t, e, err, GCEV_E_FORMAT,
                                       "ETL record overruns its buffer's used size");
            }
            if (r.size > e->have - e->pos) {
                return etl_fail(err, GCEV_E_TRUNCATED_FILE, etl_cut_offset(e, e->pos),
                                "trace ends inside an ETL record");
            }
            st = etl_record_event(t, e, &r, ev, err);
            /* Records are 8-byte aligned; r.size <= used - pos keeps this in range. */
            uint64_t next = (uint64_t)e->pos + (((uint64_t)r.size + 7u) & ~(uint64_t)7u);
            e->pos = next < used ? (uint32_t)next : used;
            if (st == GCEV_END) {
                memset(ev, 0, sizeof *ev);
                continue;
            }
            return st;
        }
        if (e->file_have < e->bh.buffer_size) {
            /* every record is there: the first missing byte is the end of the input */
            return etl_fail(err, GCEV_E_TRUNCATED_FILE, e->buf_off + e->file_have,
                            "trace ends inside an ETL buffer's padding");
        }
        gcev_status st = gcev_source_skip(&t->src, e->bh.buffer_size, err);
        if (st != GCEV_OK) {
            return st;
        }
        e->in_buffer = 0;
    }
}

/* ---- keep-going (gcev_trace_options.keep_going) ---- */

/* Compressed mode, whose buffers vary in size: a buffer header whose sizes fit the trace's
 * buffer size and whose successor (with random access) is a buffer header too, or the end. */
static int etl_header_plausible(const etl_impl *e, const uint8_t *p, size_t n)
{
    gcev_etl_buffer_header h;
    const char *msg;
    uint32_t most = e->trace_buffer_size ? e->trace_buffer_size : ETL_DEFAULT_MAX_BUFFER;
    return n >= GCEV_ETL_BUFFER_HEADER_SIZE && gcev_etl_buffer_header_parse(p, &h, &msg) == GCEV_OK &&
           h.buffer_size <= most && h.saved_offset <= most && gcev_rd_u16le(p + 0x36) <= 8;
}

static int etl_match_buffer(void *ctx, const uint8_t *p, size_t n, uint64_t off)
{
    const gcev_trace *t = ctx;
    const etl_impl *e = t->impl;
    if (!etl_header_plausible(e, p, n)) {
        return 0;
    }
    uint64_t next = off + gcev_rd_u32le(p);
    if (!gcev_source_random(&t->src)) {
        return 1;
    }
    return next == t->src.size ||
           (next < t->src.size && etl_header_plausible(e, t->src.base + next, (size_t)(t->src.size - next)));
}

/*
 * After a fault: a record's skips the rest of its buffer (the buffer has its size); a
 * buffer's header or contents (sizes, compressed data) the whole buffer, to the next
 * boundary of the logfile header's fixed buffer size, or in compressed mode to the end
 * its header gives or, when that header is what is damaged, to the next plausible header.
 */
static gcev_status etl_resync(gcev_trace *t, const gcev_error *fault, uint64_t *from, uint64_t *to,
                              gcev_error *err)
{
    etl_impl *e = t->impl;
    const uint64_t pos = gcev_source_pos(&t->src);
    uint64_t next;
    if (e->in_buffer) {
        e->in_buffer = 0;
        *from = fault->offset > e->buf_off ? fault->offset : e->buf_off;
        if (e->file_have < e->bh.buffer_size) {
            *to = e->buf_off + e->file_have; /* the input ends inside it */
            gcev_status st = gcev_source_seek(&t->src, *to, err);
            return st == GCEV_OK ? GCEV_END : st;
        }
        next = e->buf_off + e->bh.buffer_size;
    } else {
        *from = pos;
        e->buffers_seen++; /* one of the buffers BuffersWritten counts, though unread */
        if (fault->code == GCEV_E_TRUNCATED_FILE) {
            next = UINT64_MAX; /* the input ends inside this buffer, or buffers are missing */
        } else if (!e->compressed_mode && e->trace_buffer_size >= GCEV_ETL_BUFFER_HEADER_SIZE) {
            next = pos + e->trace_buffer_size;
        } else if (e->bh_off == pos) {
            next = pos + e->bh.buffer_size; /* its header was fine: its contents are not */
        } else {
            gcev_status st = gcev_source_skip(&t->src, 1, err);
            if (st == GCEV_OK) {
                st = gcev_source_scan(&t->src, GCEV_ETL_BUFFER_HEADER_SIZE, etl_match_buffer, t, err);
            }
            *to = gcev_source_pos(&t->src);
            return st;
        }
    }
    /* to the next buffer, or to the end of the input when it comes first */
    gcev_status st = GCEV_OK;
    if (gcev_source_random(&t->src) || t->src.size) {
        uint64_t end = t->src.size;
        if (next >= end) {
            st = gcev_source_seek(&t->src, end, err);
            *to = end;
            return st == GCEV_OK ? GCEV_END : st;
        }
        st = gcev_source_seek(&t->src, next, err);
    } else {
        while (st == GCEV_OK && gcev_source_pos(&t->src) < next) {
            const uint8_t *v;
            size_t got;
            uint64_t step = next - gcev_source_pos(&t->src);
            st = gcev_source_peek(&t->src, step < (1u << 16) ? (size_t)step : (1u << 16), &v, &got, err);
            if (st == GCEV_OK && got == 0) {
                *to = gcev_source_pos(&t->src);
                return GCEV_END;
            }
            if (st == GCEV_OK) {
                st = gcev_source_skip(&t->src, got, err);
            }
        }
    }
    *to = gcev_source_pos(&t->src);
    return st;
}
