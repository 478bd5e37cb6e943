/* SPDX-License-Identifier: MIT */
/*
 * The .etl reader on files written by tests/support/etl_builder.c: detection, the log
 * file header, 32/64-bit EVENT_HEADER records and their extended items,
 * TraceLogging schemas, kernel/classic records, truncation at every byte and
 * hostile sizes. The reader is driven through gcev_trace_impl.h so each test
 * sees exactly what gcev_etl.c returns (ms and ordering are gcev_trace.c's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etl_builder.h"
#include "filter_check.h"
#include "failalloc.h"
#include "gcev_etl_records.h"
#include "gcev_read.h"
#include "gcev_etl.h"
#include "gcev_etl_tracelogging.h"
#include "gcev_trace_core.h"
#include "gcev_xpress.h"
#include "xpress_writer.h"

enum { BUF = 1024 };

/* Microsoft-Windows-DotNETRuntime: named through the compiled schemas. */
static const gcev_guid runtime_guid = {
    0xe13c0d23, 0xccbc, 0x4e12, {0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4}};
static const gcev_guid other_guid = {
    0x01020304, 0x0506, 0x0708, {0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10}};
static const gcev_guid activity_guid = {
    0xaabbccdd, 0x1122, 0x3344, {0x55, 0x66, 0x77, 0x88, 0x99, 0x00, 0x12, 0x34}};

/* ---- driving the reader ---------------------------------------------------- */

static gcev_status etl_open_mem(gcev_trace *t, const uint8_t *d, size_t n, uint32_t max_block,
                                gcev_error *err)
{
    memset(t, 0, sizeof *t);
    gcev_source_init_memory(&t->src, d, n);
    t->opts.max_block_size = max_block;
    return gcev_etl_open(t, err);
}

static void etl_close(gcev_trace *t)
{
    if (t->ops) {
        t->ops->destroy(t);
    }
    gcev_source_close(&t->src);
}

static gcev_status etl_next(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    memset(ev, 0, sizeof *ev);
    memset(err, 0, sizeof *err);
    return t->ops->next(t, ev, err);
}

/* Reads every event; returns the final status, *count events before it. */
static gcev_status etl_drain(gcev_trace *t, size_t *count, gcev_error *err)
{
    gcev_trace_event ev;
    gcev_status st;
    *count = 0;
    while ((st = etl_next(t, &ev, err)) == GCEV_OK) {
        (*count)++;
    }
    return st;
}

static void expect_guid(const gcev_guid *a, const gcev_guid *b)
{
    assert_memory_equal(a, b, sizeof *a);
}

/* ---- fixtures ---------------------------------------------------------------- */

static void default_logfile(etlb_logfile *lf)
{
    memset(lf, 0, sizeof *lf);
    lf->pointer_size = 8;
    lf->timestamp = 1000;
    lf->perf_freq = 10000000;
    lf->clock_type = 1;
    lf->cpu_speed_mhz = 2304;
    lf->processors = 4;
    lf->events_lost = 3;
    lf->buffers_lost = 1;
    lf->start_time = 0x01d7a58b4c3947ce;
}

/* TraceLogging schema: "Ev" with a, s{x, y}, arr[] (VCOUNT), c[4] (CCOUNT), cu (custom). */
static const uint8_t tl_schema[] = {
    0,    0,                                      /* size, patched below */
    0x00,                                         /* event tags: none */
    'E',  'v', 0,    'a',  0,    0x08,            /* UINT32 */
    's',  0,   0x98, 0x02,                        /* struct (chain), 2 members */
    'x',  0,   0x0f,                              /* GUID */
    'y',  0,   0x84, 0x83, 0x80, 0x01,            /* UINT8, out BOOLEAN + chain, 2 tag bytes */
    'a',  'r', 'r',  0,    0x48,                  /* UINT32 | VCOUNT */
    'c',  0,   0x28, 4,    0,                     /* UINT32 | CCOUNT, count 4 */
    'c',  'u', 0,    0x6e, 2,    0,    0xaa, 0xbb /* BINARY | CUSTOM, 2 bytes of type info */
};

static const uint8_t tl_traits[] = {
    28, 0, 'M', 'y', 'P', 'r', 'o', 'v', 0, 19, 0,  1, /* provider group trait */
    1,  2, 3,   4,   5,   6,   7,   8,   9, 10, 11, 12, 13, 14, 15, 16};

static uint8_t schema_buf[sizeof tl_schema];

static void build_basic(etlb *b)
{
    etlb_logfile lf;
    default_logfile(&lf);
    etlb_init(b, BUF);

    etlb_buffer_begin(b, 0, 0);
    etlb_logfile_header(b, &lf);
    uint8_t zeros[48] = {0};
    etlb_kernel(b, 2, 2, 0x0050, 100, 200, 1000, zeros, sizeof zeros);
    etlb_buffer_end(b);

    /* A 16-bit processor index (flag 0x20): CPU 258. */
    etlb_buffer_begin(b, 0x0102, GCEV_ETL_BUFFER_FLAG_PROC_INDEX);
    uint8_t p8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    etlb_event e64 = {.header_type = 0x13,
                      .pid = 11,
                      .tid = 12,
                      .ts = 5000,
                      .provider = runtime_guid,
                      .id = 1,
                      .version = 2,
                      .level = 4,
                      .opcode = 1,
                      .keywords = 0x1,
                      .activity = activity_guid,
                      .payload = p8,
                      .payload_size = sizeof p8};
    etlb_event_record(b, &e64);
    etlb_event e32 = {.header_type = 0x12,
                      .pid = 21,
                      .tid = 22,
                      .ts = 6000,
                      .provider = other_guid,
                      .id = 2,
                      .version = 1,
                      .level = 5,
                      .opcode = 2,
                      .keywords = 0x8000000000000000u,
                      .payload = p8,
                      .payload_size = 4};
    etlb_event_record(b, &e32);
    /* Extended items: related activity, a SID (not exposed), a 64-bit stack. */
    uint8_t stack[8 + 3 * 8];
    memset(stack, 0, sizeof stack);
    for (int i = 0; i < 3; i++) {
        gcev_put64(stack + 8 + 8 * i, 0x7ff000001000u + (uint64_t)i);
    }
    uint8_t related[16];
    gcev_guid_store(related, &activity_guid);
    uint8_t sid[12] = {1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0};
    etlb_ext ext[] = {{1, related, 16}, {2, sid, sizeof sid}, {6, stack, sizeof stack}};
    etlb_event ex = {.header_type = 0x13,
                     .pid = 31,
                     .tid = 32,
                     .ts = 7000,
                     .provider = runtime_guid,
                     .id = 3,
                     .version = 1,
                     .ext = ext,
                     .next = 3,
                     .payload = p8,
                     .payload_size = 2};
    etlb_event_record(b, &ex);
    etlb_buffer_end(b);

    etlb_buffer_begin(b, 1, 0);
    memcpy(schema_buf, tl_schema, sizeof tl_schema);
    gcev_put16(schema_buf, sizeof tl_schema);
    etlb_ext tl[] = {{12, tl_traits, sizeof tl_traits}, {11, schema_buf, sizeof schema_buf}};
    etlb_event tle = {.header_type = 0x13,
                      .pid = 41,
                      .tid = 42,
                      .ts = 8000,
                      .provider = other_guid,
                      .channel = 11,
                      .level = 5,
                      .ext = tl,
                      .next = 2,
                      .payload = p8,
                      .payload_size = 5};
    etlb_event_record(b, &tle);
    etlb_kernel(b, 4, 3, 0x0301, 51, 52, 9000, p8, 8);  /* compact 64: Process group */
    etlb_kernel(b, 0x11, 2, 0x0f2e, 0, 0, 9100, p8, 8); /* perfinfo 64: sampled profile */
    etlb_classic(b, 0x14, &other_guid, 7, 3, 2, 61, 62, 9200, p8, 3);
    etlb_classic(b, 0x0b, &other_guid, 8, 2, 1, 71, 72, 9300, p8, 1);
    uint8_t wpp[16] = {16, 0, 0, 0x90}; /* WPP message: skipped */
    etlb_raw(b, wpp, sizeof wpp);
    etlb_buffer_end(b);
}

/* ---- detection and header ------------------------------------------------------ */

static void test_detect_built_file_accepted_garbage_rejected(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    assert_int_equal(gcev_etl_detect(b.data, b.size), 1);
    assert_int_equal(gcev_etl_detect(b.data, 80), 1); /* what gcev_trace.c peeks */
    assert_int_equal(gcev_etl_detect(b.data, 79), 0); /* the first record's marker is missing */
    assert_int_equal(gcev_etl_detect(b.data, 64), 0);
    uint8_t head[128];
    memcpy(head, "Nettrace\x14\0\0\0!FastSerialization.1", 32);
    memset(head + 32, 0, sizeof head - 32);
    assert_int_equal(gcev_etl_detect(head, sizeof head), 0);
    memcpy(head, "!FastSerialization.1", 20);
    assert_int_equal(gcev_etl_detect(head, sizeof head), 0);
    memcpy(head, b.data, sizeof head);
    head[0x48 + 3] = 0x00; /* first record without its marker */
    assert_int_equal(gcev_etl_detect(head, sizeof head), 0);
    memcpy(head, b.data, sizeof head);
    head[0x48 + 4] = 8; /* first record smaller than its system header */
    head[0x48 + 5] = 0;
    assert_int_equal(gcev_etl_detect(head, sizeof head), 0);
    etlb_free(&b);
}

static void test_header_fields_fill_trace_info(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    gcev_trace t;
    gcev_error err = {0};
    assert_int_equal(etl_open_mem(&t, b.data, b.size, 0, &err), GCEV_OK);
    assert_int_equal(t.info.format, GCEV_FORMAT_ETL);
    assert_int_equal(t.info.pointer_size, 8);
    assert_int_equal(t.info.processor_count, 4);
    assert_int_equal(t.info.clock_frequency, 10000000);
    assert_int_equal(t.info.sync_time_qpc, 1000);
    assert_int_equal(t.info.sync_time_utc, 0x01d7a58b4c3947ce);
    assert_int_equal(t.info.events_lost, 3);
    assert_int_equal(t.info.buffers_lost, 1);
    etl_close(&t);
    etlb_free(&b);
}

static void build_header_only(etlb *b, const etlb_logfile *lf)
{
    etlb_init(b, BUF);
    etlb_buffer_begin(b, 0, 0);
    etlb_logfile_header(b, lf);
    etlb_buffer_end(b);
}

static void test_header_32bit_layout_and_clock_types(void **state)
{
    (void)state;
    etlb_logfile lf;
    default_logfile(&lf);
    lf.pointer_size = 4;
    lf.perf_freq = 3000000;
    etlb b;
    build_header_only(&b, &lf);
    gcev_trace t;
    gcev_error err = {0};
    assert_int_equal(etl_open_mem(&t, b.data, b.size, 0, &err), GCEV_OK);
    assert_int_equal(t.info.pointer_size, 4);
    assert_int_equal(t.info.clock_frequency, 3000000);
    assert_int_equal(t.info.buffers_lost, 1);
    gcev_trace_event ev;
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    assert_int_equal(ev.pointer_size, 4); /* SYSTEM32 header */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_END);
    etl_close(&t);
    etlb_free(&b);

    /* Clock type 2: system time, 100 ns ticks whatever PerfFreq says. */
    default_logfile(&lf);
    lf.clock_type = 2;
    build_header_only(&b, &lf);
    assert_int_equal(etl_open_mem(&t, b.data, b.size, 0, &err), GCEV_OK);
    assert_int_equal(t.info.clock_frequency, 10000000);
    etl_close(&t);
    etlb_free(&b);

    /* Clock type 3: CPU cycles at CpuSpeedInMHz. */
    lf.clock_type = 3;
    lf.perf_freq = 0;
    build_header_only(&b, &lf);
    assert_int_equal(etl_open_mem(&t, b.data, b.size, 0, &err), GCEV_OK);
    assert_int_equal(t.info.clock_frequency, 2304000000u);
    etl_close(&t);
    etlb_free(&b);

    /* QPC clock without a frequency: nothing can be timed. */
    lf.clock_type = 1;
    build_header_only(&b, &lf);
    assert_int_equal(etl_open_mem(&t, b.data, b.size, 0, &err), GCEV_E_FORMAT);
    assert_int_equal(err.offset, 0x48);
    assert_non_null(err.message);
    etl_close(&t);
    etlb_free(&b);
}

/* ---- events ---------------------------------------------------------------------- */

static void test_events_all_record_kinds_in_file_order(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    gcev_trace t;
    gcev_error err = {0};
    gcev_trace_event ev;
    assert_int_equal(etl_open_mem(&t, b.data, b.size, 0, &err), GCEV_OK);

    /* 1. the log file header record itself (EventTrace class, opcode 0) */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    static const gcev_guid event_trace = {
        0x68fdd900, 0x4a3e, 0x11d1, {0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3}};
    expect_guid(&ev.provider_guid, &event_trace);
    assert_int_equal(ev.has_provider_guid, 1);
    assert_int_equal(ev.opcode, 0);
    assert_int_equal(ev.version, 2);
    assert_int_equal(ev.process_id, 100);
    assert_int_equal(ev.thread_id, 200);
    assert_int_equal(ev.timestamp, 1000);
    assert_int_equal(ev.processor, 0);
    assert_int_equal(ev.file_offset, 0x48);
    assert_int_equal(gcev_rd_u32le(ev.payload), BUF); /* TRACE_LOGFILE_HEADER.BufferSize */
    /* 2. the kernel record after it */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    assert_int_equal(ev.opcode, 0x50);
    assert_int_equal(ev.payload_size, 48);

    /* 3. 64-bit EVENT_HEADER of a runtime provider */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    expect_guid(&ev.provider_guid, &runtime_guid);
    assert_int_equal(ev.event_id, 1);
    assert_int_equal(ev.version, 2);
    assert_int_equal(ev.level, 4);
    assert_int_equal(ev.opcode, 1);
    assert_int_equal(ev.has_level, 1);
    assert_int_equal(ev.has_opcode, 1);
    assert_int_equal(ev.keywords, 1);
    assert_int_equal(ev.process_id, 11);
    assert_int_equal(ev.thread_id, 12);
    assert_int_equal(ev.capture_thread_id, 12);
    assert_int_equal(ev.timestamp, 5000);
    assert_int_equal(ev.processor, 0x0102);
    assert_int_equal(ev.pointer_size, 8);
    assert_int_equal(ev.payload_size, 8);
    assert_int_equal(ev.payload[7], 8);
    assert_int_equal(ev.has_activity_id, 1);
    expect_guid(&ev.activity_id, &activity_guid);
    assert_int_equal(ev.has_related_activity_id, 0);
    assert_null(ev.stack);
    assert_int_equal(ev.file_offset, BUF + 0x48);
    assert_non_null(ev.provider);
    assert_string_equal(ev.provider_name, "Microsoft-Windows-DotNETRuntime");
    assert_string_equal(ev.event_name, "");
    assert_int_equal(ev.nfields, 0);

    /* 4. 32-bit EVENT_HEADER: the marker, not the flags, gives the pointer size */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    assert_int_equal(ev.pointer_size, 4);
    assert_int_equal(ev.event_id, 2);
    assert_int_equal(ev.keywords, 0x8000000000000000u);
    assert_int_equal(ev.payload_size, 4);
    assert_null(ev.provider);
    assert_string_equal(ev.provider_name, "");

    /* 5. extended items */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    assert_int_equal(ev.event_id, 3);
    assert_int_equal(ev.has_related_activity_id, 1);
    expect_guid(&ev.related_activity_id, &activity_guid);
    assert_non_null(ev.stack);
    assert_int_equal(ev.stack_size, 24);
    assert_int_equal(gcev_rd_u64le(ev.stack + 16), 0x7ff000001002u);
    assert_int_equal(ev.payload_size, 2);
    assert_int_equal(ev.payload[0], 1);

    /* 6. TraceLogging: names from traits and schema, fields as a tree */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    assert_string_equal(ev.provider_name, "MyProv");
    assert_string_equal(ev.event_name, "Ev");
    assert_int_equal(ev.processor, 1);
    assert_int_equal(ev.payload_size, 5);
    assert_int_equal(ev.nfields, 5);
    assert_string_equal(ev.fields[0].name, "a");
    assert_int_equal(ev.fields[0].type_code, 8);
    assert_int_equal(ev.fields[0].array_type_code, 0);
    assert_string_equal(ev.fields[1].name, "s");
    assert_int_equal(ev.fields[1].type_code, 24);
    assert_int_equal(ev.fields[1].nfields, 2);
    assert_string_equal(ev.fields[1].fields[0].name, "x");
    assert_int_equal(ev.fields[1].fields[0].type_code, 15);
    assert_string_equal(ev.fields[1].fields[1].name, "y");
    assert_int_equal(ev.fields[1].fields[1].type_code, 4);
    assert_string_equal(ev.fields[2].name, "arr");
    assert_int_equal(ev.fields[2].type_code, 8);
    assert_int_equal(ev.fields[2].array_type_code, 8);
    assert_string_equal(ev.fields[3].name, "c");
    assert_int_equal(ev.fields[3].array_type_code, 8);
    assert_string_equal(ev.fields[4].name, "cu");
    assert_int_equal(ev.fields[4].type_code, 14);
    assert_int_equal(ev.fields[4].array_type_code, 0);

    /* 7. compact kernel record: Process class */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    static const gcev_guid process = {
        0x3d6fa8d0, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
    expect_guid(&ev.provider_guid, &process);
    assert_int_equal(ev.opcode, 1);
    assert_int_equal(ev.version, 3);
    assert_int_equal(ev.process_id, 51);
    assert_int_equal(ev.thread_id, 52);
    assert_int_equal(ev.timestamp, 9000);
    assert_int_equal(ev.payload_size, 8);
    /* 8. perfinfo record: no process or thread */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    assert_int_equal(ev.opcode, 0x2e);
    assert_int_equal(ev.timestamp, 9100);
    assert_int_equal(ev.process_id, UINT32_MAX);
    assert_int_equal(ev.payload_size, 8);
    /* 9. classic EVENT_TRACE_HEADER */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    expect_guid(&ev.provider_guid, &other_guid);
    assert_int_equal(ev.opcode, 7);
    assert_int_equal(ev.level, 3);
    assert_int_equal(ev.version, 2);
    assert_int_equal(ev.process_id, 61);
    assert_int_equal(ev.pointer_size, 8);
    assert_int_equal(ev.payload_size, 3);
    /* 10. instance header (32-bit) */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    assert_int_equal(ev.opcode, 8);
    assert_int_equal(ev.pointer_size, 4);
    assert_int_equal(ev.timestamp, 9300);
    assert_int_equal(ev.payload_size, 1);
    /* the WPP message is skipped; then the end */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_END);
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_END);
    etl_close(&t);
    etlb_free(&b);
}

static void test_fill_marker_ends_buffer_records(void **state)
{
    (void)state;
    etlb_logfile lf;
    default_logfile(&lf);
    etlb b;
    etlb_init(&b, BUF);
    etlb_buffer_begin(&b, 0, 0);
    etlb_logfile_header(&b, &lf);
    uint8_t fill[8];
    memset(fill, 0xff, sizeof fill);
    etlb_raw(&b, fill, sizeof fill);
    uint8_t junk[16] = {0x10, 0, 0x77, 0x00}; /* would be malformed if read */
    etlb_raw(&b, junk, sizeof junk);
    etlb_buffer_end(&b);
    gcev_trace t;
    gcev_error err = {0};
    size_t n = 0;
    assert_int_equal(etl_open_mem(&t, b.data, b.size, 0, &err), GCEV_OK);
    assert_int_equal(etl_drain(&t, &n, &err), GCEV_END);
    assert_int_equal(n, 1);
    etl_close(&t);
    etlb_free(&b);
}

static void test_tracelogging_schema_is_cached_across_events(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    /* Two readers of the same bytes: each caches its own; within one trace the
     * same schema yields the same tree (kept until close for time ordering). */
    etlb_logfile lf;
    default_logfile(&lf);
    etlb b2;
    etlb_init(&b2, BUF);
    etlb_buffer_begin(&b2, 0, 0);
    etlb_logfile_header(&b2, &lf);
    etlb_ext tl[] = {{11, schema_buf, sizeof schema_buf}};
    etlb_event tle = {.header_type = 0x13, .ts = 8000, .provider = other_guid, .ext = tl, .next = 1};
    etlb_event_record(&b2, &tle);
    etlb_event_record(&b2, &tle);
    etlb_buffer_end(&b2);
    gcev_trace t;
    gcev_error err = {0};
    gcev_trace_event ev;
    assert_int_equal(etl_open_mem(&t, b2.data, b2.size, 0, &err), GCEV_OK);
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    const gcev_trace_field *first = ev.fields;
    assert_int_equal(ev.nfields, 5);
    assert_string_equal(ev.provider_name, ""); /* no traits item */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    assert_ptr_equal(ev.fields, first);
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_END);
    etl_close(&t);
    etlb_free(&b2);
    etlb_free(&b);
}

/* ---- non-seekable input ------------------------------------------------------ */

typedef struct chunk_reader {
    const uint8_t *data;
    size_t size, pos, step;
} chunk_reader;

static long long chunk_read(void *ctx, void *buf, size_t n)
{
    chunk_reader *r = ctx;
    size_t k = r->size - r->pos;
    if (k > n) {
        k = n;
    }
    if (k > r->step) {
        k = r->step;
    }
    memcpy(buf, r->data + r->pos, k);
    r->pos += k;
    return (long long)k;
}

static void test_reader_source_gives_same_events_as_memory(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    chunk_reader cr = {b.data, b.size, 0, 7};
    gcev_trace t;
    memset(&t, 0, sizeof t);
    gcev_source_init_reader(&t.src, chunk_read, &cr);
    gcev_error err = {0};
    assert_int_equal(gcev_etl_open(&t, &err), GCEV_OK);
    gcev_trace m;
    assert_int_equal(etl_open_mem(&m, b.data, b.size, 0, &err), GCEV_OK);
    gcev_trace_event a, c;
    gcev_status sa, sc;
    size_t n = 0;
    do {
        sa = etl_next(&t, &a, &err);
        sc = etl_next(&m, &c, &err);
        assert_int_equal(sa, sc);
        if (sa == GCEV_OK) {
            n++;
            assert_int_equal(a.timestamp, c.timestamp);
            assert_int_equal(a.file_offset, c.file_offset);
            assert_int_equal(a.payload_size, c.payload_size);
            assert_memory_equal(a.payload, c.payload, a.payload_size);
            assert_string_equal(a.provider_name, c.provider_name);
        }
    } while (sa == GCEV_OK);
    assert_int_equal(sa, GCEV_END);
    assert_int_equal(n, 10);
    etl_close(&t);
    etl_close(&m);
    etlb_free(&b);
}

/* ---- truncation ---------------------------------------------------------------- */

/* What the reader must do on the first len bytes of b: events, status, offset. */
static void expect_truncated(const etlb *b, size_t len, size_t *events, gcev_status *st, uint64_t *off)
{
    *events = 0;
    size_t r = 0;
    for (size_t i = 0; i < b->nbuffers; i++) {
        size_t start = b->buffers[i];
        if (len == start && i > 0) {
            /* between buffers: fewer than the header's BuffersWritten */
            *st = GCEV_E_TRUNCATED_FILE;
            *off = len;
            return;
        }
        if (len < start + GCEV_ETL_BUFFER_HEADER_SIZE) {
            *st = GCEV_E_TRUNCATED_FILE;
            *off = start;
            return;
        }
        for (; r < b->nrecords && b->records[r].buffer == i; r++) {
            if (len < b->records[r].offset + b->records[r].size) {
                *st = GCEV_E_TRUNCATED_FILE;
                /* a cut in the previous record's alignment padding: the input's end */
                *off = b->records[r].offset < len ? b->records[r].offset : len;
                return;
            }
            (*events)++;
        }
        if (len < start + b->buffer_size) {
            *st = GCEV_E_TRUNCATED_FILE;
            *off = len; /* in the padding: the first missing byte */
            return;
        }
    }
    *st = GCEV_END;
}

static void test_truncation_at_every_byte_yields_prefix_then_error(void **state)
{
    (void)state;
    etlb_logfile lf;
    default_logfile(&lf);
    etlb b;
    etlb_init(&b, 512);
    etlb_buffer_begin(&b, 0, 0);
    etlb_logfile_header(&b, &lf);
    etlb_buffer_end(&b);
    etlb_buffer_begin(&b, 1, 0);
    uint8_t p[6] = {1, 2, 3, 4, 5, 6};
    uint8_t related[16] = {0};
    etlb_ext ext[] = {{1, related, 16}};
    etlb_event e = {.header_type = 0x13,
                    .ts = 2000,
                    .provider = runtime_guid,
                    .id = 1,
                    .ext = ext,
                    .next = 1,
                    .payload = p,
                    .payload_size = sizeof p};
    etlb_event_record(&b, &e);
    etlb_kernel(&b, 2, 2, 0x0301, 1, 2, 2100, p, 4);
    etlb_buffer_end(&b);

    for (size_t len = 0; len < b.size; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, b.data, len);
        size_t want_n = 0;
        gcev_status want = GCEV_OK;
        uint64_t want_off = 0;
        expect_truncated(&b, len, &want_n, &want, &want_off);
        gcev_trace t;
        gcev_error err = {0};
        gcev_status st = etl_open_mem(&t, copy, len, 0, &err);
        size_t n = 0;
        if (st == GCEV_OK) {
            st = etl_drain(&t, &n, &err);
        }
        assert_int_equal(st, want);
        assert_int_equal(n, want_n);
        if (want != GCEV_END) {
            assert_int_equal(err.code, want);
            assert_int_equal(err.offset, want_off);
            assert_non_null(err.message);
        }
        etl_close(&t);
        free(copy);
    }
    etlb_free(&b);
}

/* ---- hostile sizes and markers ----------------------------------------------------- */

/* Opens the (modified) bytes and reads to the end: the status and error offset. */
static gcev_status run_all(const uint8_t *d, size_t n, uint32_t max_block, size_t *events, gcev_error *err)
{
    gcev_trace t;
    *events = 0;
    gcev_status st = etl_open_mem(&t, d, n, max_block, err);
    if (st == GCEV_OK) {
        st = etl_drain(&t, events, err);
    }
    etl_close(&t);
    return st;
}

static void expect_fault(etlb *b, uint32_t max_block, gcev_status want, uint64_t off, size_t events)
{
    gcev_error err = {0};
    size_t n = 0;
    assert_int_equal(run_all(b->data, b->size, max_block, &n, &err), want);
    assert_int_equal(err.code, want);
    assert_int_equal(err.offset, off);
    assert_non_null(err.message);
    assert_int_equal(n, events);
}

static void test_hostile_buffer_headers_fail_with_offset(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    uint8_t *d = b.data;
    uint8_t save[8];
    memcpy(save, d, 8);

    gcev_put32(d, 0x40); /* smaller than its own header */
    expect_fault(&b, 0, GCEV_E_FORMAT, 0, 0);
    memcpy(d, save, 8);
    gcev_put32(d + 4, BUF + 8); /* used beyond the buffer */
    expect_fault(&b, 0, GCEV_E_FORMAT, 0, 0);
    gcev_put32(d + 4, 0x20); /* used inside the header */
    expect_fault(&b, 0, GCEV_E_FORMAT, 0, 0);
    memcpy(d, save, 8);
    expect_fault(&b, 512, GCEV_E_LIMIT, 0, 0); /* buffers above the caller's limit */
    gcev_put32(d, 0xfffffff8u);                /* and above the default one */
    expect_fault(&b, 0, GCEV_E_LIMIT, 0, 0);
    memcpy(d, save, 8);

    /* Second buffer flagged compressed while its records are stored as is: not a valid
     * Plain LZ77 stream; the first buffer's 2 events come out first. */
    gcev_put16(d + BUF + 0x34, GCEV_ETL_BUFFER_FLAG_COMPRESSED);
    expect_fault(&b, 0, GCEV_E_FORMAT, BUF, 2);
    gcev_put16(d + BUF + 0x34, GCEV_ETL_BUFFER_FLAG_PROC_INDEX);
    /* Second buffer larger than the file. */
    gcev_put32(d + BUF, 4 * BUF);
    expect_fault(&b, 0, GCEV_E_TRUNCATED_FILE, b.size, 5); /* its padding is cut: the end */
    etlb_free(&b);
}

static void test_hostile_records_fail_with_offset(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    uint8_t *d = b.data;
    size_t ev64 = b.records[2].offset; /* first EVENT_HEADER record */
    uint8_t save[16];
    memcpy(save, d + ev64, sizeof save);

    gcev_put16(d + ev64, 40); /* smaller than an EVENT_HEADER */
    expect_fault(&b, 0, GCEV_E_FORMAT, ev64, 2);
    gcev_put16(d + ev64, 0xfff0); /* past the buffer's used size */
    expect_fault(&b, 0, GCEV_E_FORMAT, ev64, 2);
    memcpy(d + ev64, save, sizeof save);
    d[ev64 + 2] = 0x0c; /* header type nobody writes to files */
    expect_fault(&b, 0, GCEV_E_FORMAT, ev64, 2);
    memcpy(d + ev64, save, sizeof save);
    d[ev64 + 3] = 0x40; /* marker without the trace-header bit */
    expect_fault(&b, 0, GCEV_E_FORMAT, ev64, 2);
    memcpy(d + ev64, save, sizeof save);
    d[ev64 + 4] = 1; /* claims extended items; the payload is not one */
    expect_fault(&b, 0, GCEV_E_FORMAT, ev64, 2);
    memcpy(d + ev64, save, sizeof save);

    /* Extended item whose data size overruns the record. */
    size_t ext = b.records[4].offset;
    size_t item = ext + 80;
    gcev_put16(d + item + 6, 0x400);
    expect_fault(&b, 0, GCEV_E_FORMAT, ext, 4);
    gcev_put16(d + item + 6, 16);
    /* Linkage set on the last item: the next "item" overruns. */
    size_t last = item + 24 + 24;
    gcev_put16(d + last + 4, 1);
    expect_fault(&b, 0, GCEV_E_FORMAT, ext, 4);
    gcev_put16(d + last + 4, 0);
    size_t n = 0;
    gcev_error err = {0};
    assert_int_equal(run_all(d, b.size, 0, &n, &err), GCEV_END); /* restored */
    assert_int_equal(n, 10);
    etlb_free(&b);
}

static void test_hostile_tracelogging_schemas_fail(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    uint8_t *d = b.data;
    size_t tlrec = b.records[5].offset;
    size_t schema = tlrec + 80 + 8 + 32 + 8; /* after the traits item (28 -> 32 bytes) */
    assert_int_equal(gcev_rd_u16le(d + schema), sizeof tl_schema);

    gcev_put16(d + schema, 0x1000); /* schema larger than its item */
    expect_fault(&b, 0, GCEV_E_FORMAT, tlrec, 5);
    gcev_put16(d + schema, sizeof tl_schema);
    d[schema + 12] = 0x09; /* struct "s" declares 9 members */
    expect_fault(&b, 0, GCEV_E_FORMAT, tlrec, 5);
    d[schema + 12] = 0x7f;
    expect_fault(&b, 0, GCEV_E_FORMAT, tlrec, 5);
    d[schema + 12] = 0x02;
    gcev_put16(d + schema, 5); /* ends inside the event name */
    expect_fault(&b, 0, GCEV_E_FORMAT, tlrec, 5);
    gcev_put16(d + schema, 8); /* ends after field "a"'s name, before its type */
    expect_fault(&b, 0, GCEV_E_FORMAT, tlrec, 5);
    gcev_put16(d + schema, 1); /* smaller than its own size field */
    expect_fault(&b, 0, GCEV_E_FORMAT, tlrec, 5);
    gcev_put16(d + schema, sizeof tl_schema - 1); /* cuts the custom type info */
    expect_fault(&b, 0, GCEV_E_FORMAT, tlrec, 5);
    etlb_free(&b);
}

static void test_first_record_must_be_logfile_header(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    gcev_put16(b.data + 0x48 + 6, 0x0301); /* a Process event instead */
    expect_fault(&b, 0, GCEV_E_FORMAT, 0x48, 0);
    gcev_put16(b.data + 0x48 + 6, 0);
    gcev_put32(b.data + 0x48 + 32 + 44, 5); /* PointerSize 5 */
    expect_fault(&b, 0, GCEV_E_FORMAT, 0x48, 0);
    gcev_put32(b.data + 0x48 + 32 + 44, 8);
    gcev_put16(b.data + 0x48 + 4, 100); /* too short for a TRACE_LOGFILE_HEADER */
    expect_fault(&b, 0, GCEV_E_FORMAT, 0x48, 0);
    etlb_free(&b);
}

/* ---- TraceLogging payloads as JSON ---------------------------------------------- */

/*
 * Builds a file holding one TraceLogging event (64-bit header, so 8-byte pointers)
 * with the given schema fields and payload and reads it back into *t / *ev.
 */
static void tl_event(etlb *b, gcev_trace *t, gcev_trace_event *ev, const uint8_t *fields, size_t nfields,
                     const uint8_t *payload, size_t n)
{
    static uint8_t schema[1024];
    static const uint8_t head[] = {0, 0, 0x00, 'T', 0};
    assert_true(sizeof head + nfields <= sizeof schema);
    memcpy(schema, head, sizeof head);
    memcpy(schema + sizeof head, fields, nfields);
    gcev_put16(schema, (uint16_t)(sizeof head + nfields));
    etlb_logfile lf;
    default_logfile(&lf);
    etlb_init(b, 4096);
    etlb_buffer_begin(b, 0, 0);
    etlb_logfile_header(b, &lf);
    etlb_ext tl[] = {{12, tl_traits, sizeof tl_traits}, {11, schema, (uint16_t)(sizeof head + nfields)}};
    etlb_event e = {.header_type = 0x13,
                    .ts = 8000,
                    .provider = other_guid,
                    .channel = 11,
                    .ext = tl,
                    .next = 2,
                    .payload = payload,
                    .payload_size = n};
    etlb_event_record(b, &e);
    etlb_buffer_end(b);
    gcev_error err = {0};
    assert_int_equal(etl_open_mem(t, b->data, b->size, 0, &err), GCEV_OK);
    assert_int_equal(etl_next(t, ev, &err), GCEV_OK); /* the log file header */
    assert_int_equal(etl_next(t, ev, &err), GCEV_OK);
    assert_int_equal(ev->field_type_system, GCEV_FIELD_TYPES_TDH);
    assert_int_equal(ev->pointer_size, 8);
    assert_int_equal(ev->payload_size, n);
}

/* The formatter's JSON for ev, checked against snprintf semantics (malloc'd). */
static char *tl_json(const gcev_trace_event *ev)
{
    size_t need = gcev_trace_format_fields_json(ev, NULL, 0);
    char *s = malloc(need + 1);
    assert_non_null(s);
    assert_int_equal(gcev_trace_format_fields_json(ev, s, need + 1), need);
    assert_int_equal(strlen(s), need);
    char small[8];
    assert_int_equal(gcev_trace_format_fields_json(ev, small, sizeof small), need);
    assert_memory_equal(small, s, need < 7 ? need + 1 : 7);
    return s;
}

/* Brackets balance outside strings and nothing follows the outer object. */
static void expect_json_shape(const char *s)
{
    int depth = 0, in_str = 0;
    for (const char *p = s; *p; p++) {
        if (in_str) {
            if (*p == '\\') {
                p++;
            } else if (*p == '"') {
                in_str = 0;
            }
            continue;
        }
        if (*p == '"') {
            in_str = 1;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            assert_true(depth > 0);
            if (--depth == 0) {
                assert_int_equal(p[1], 0);
            }
        }
    }
    assert_int_equal(depth, 0);
    assert_int_equal(in_str, 0);
}

/* Every TraceLogging in-type, out-types that change the value, arrays and structs. */
static const uint8_t tl_all_fields[] = {
    'w',  0,    0x01,             /* UnicodeString */
    'u',  0,    0x82, 35,         /* AnsiString, out UTF8 */
    'l',  0,    0x02,             /* AnsiString (CP1252 shown as Latin-1) */
    'i',  '8',  0,    0x03,       /* Int8 */
    'b',  '8',  0,    0x84, 0x03, /* UInt8, out Boolean */
    'i',  '1',  '6',  0,    0x05, 'u',  '1',  '6',  0,    0x06, 'i',  '3', '2',  0,    0x07, 'u',
    '3',  '2',  0,    0x08, 'i',  '6',  '4',  0,    0x09, 'u',  '6',  '4', 0,    0x0a, 'f',  0,
    0x0b, 'd',  0,    0x0c, 'n',  'a',  'n',  0,    0x0c, 'b',  '3',  '2', 0,    0x0d, /* Boolean: 4 bytes */
    'b',  'i',  'n',  0,    0x0e,       /* Binary: UInt16 size first */
    'g',  0,    0x0f, 'p',  0,    0x10, /* Pointer: the event's pointer size */
    'f',  't',  0,    0x11, 's',  't',  0,    0x12, 's',  'i',  'd',  0,   0x13, 'h',  '3',  '2',
    0,    0x14, 'h',  '6',  '4',  0,    0x15, 'c',  's',  0,    0x16, 'c', 'n',  0,    0x17, 'c',
    'b',  0,    0x19, 's',  0,    0x98, 0x02,                   /* struct of 2 */
    'x',  0,    0x06, 'y',  0,    0x02, 'v',  'a',  0,    0x48, /* UInt32[], count in the payload */
    'c',  'a',  0,    0x26, 3,    0,                            /* UInt16[3], count in the schema */
    's',  'a',  0,    0xd8, 0x02,                               /* struct[] of 2 members */
    'p',  0,    0x03, 'q',  0,    0x01, 's',  'v',  0,    0x42, /* AnsiString[] */
    'c',  'u',  0,    0x6e, 2,    0,    0xaa, 0xbb              /* custom: 2 bytes of type info */
};

static const uint8_t tl_all_payload[] = {
    'h',  0,    0xe9, 0,    0,    0,                /* w = "hé" */
    0xc3, 0xa9, '"',  0,                            /* u = "é\"" */
    0xe9, '\n', 0,                                  /* l = "é\n" */
    0xff,                                           /* i8 = -1 */
    2,                                              /* b8 = true */
    0xfe, 0xff, 0xff, 0xff,                         /* i16 = -2, u16 = 65535 */
    0xfd, 0xff, 0xff, 0xff, 0x00, 0x28, 0x6b, 0xee, /* i32 = -3, u32 = 4000000000 */
    0,    0,    0,    0,    0,    0,    0,    0x80, /* i64 = INT64_MIN */
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* u64 = UINT64_MAX */
    0,    0,    0xc0, 0x3f,                         /* f = 1.5 */
    0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0xb9, 0x3f, /* d = 0.1 */
    0,    0,    0,    0,    0,    0,    0xf8, 0x7f, /* nan */
    1,    0,    0,    0,                            /* b32 = true */
    3,    0,    0x01, 0xab, 0xff,                   /* bin */
    0x04, 0x03, 0x02, 0x01, 0x06, 0x05, 0x08, 0x07, 9,  10,
    11,   12,   13,   14,   15,   16,               /* g */
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* p */
    0x70, 0x10, 0xfa, 0x4d, 0x8b, 0xa5, 0xd7, 0x01, /* ft */
    0xe5, 0x07, 9,    0,    4,    0,    9,    0,    14, 0,
    59,   0,    35,   0,    0x1f, 0x03, /* st */
    1,    2,    0,    0,    0,    0,    0,    5,    32, 0,
    0,    0,    0x20, 0x02, 0,    0,                       /* sid S-1-5-32-544 */
    0xef, 0xbe, 0xad, 0xde,                                /* h32 */
    1,    0,    0,    0,    0,    0,    0,    0x80,        /* h64 */
    4,    0,    'o',  0,    'k',  0,                       /* cs */
    2,    0,    'h',  'i',                                 /* cn */
    0,    0,                                               /* cb: empty */
    7,    0,    'z',  0,                                   /* s = {x 7, y "z"} */
    2,    0,    1,    0,    0,    0,    2,    0,    0,  0, /* va = [1, 2] */
    7,    0,    8,    0,    9,    0,                       /* ca = [7, 8, 9] */
    2,    0,    1,    'a',  0,    0,    0,    0xff, 0,  0, /* sa = [{1, u"a"}, {-1, u""}] */
    2,    0,    'x',  0,    0,                             /* sv = ["x", ""] */
    2,    0,    0x12, 0x34                                 /* cu */
};

static const char tl_all_json[] =
    "{\"w\":\"h\xc3\xa9\",\"u\":\"\xc3\xa9\\\"\",\"l\":\"\xc3\xa9\\n\",\"i8\":-1,\"b8\":true,"
    "\"i16\":-2,\"u16\":65535,\"i32\":-3,\"u32\":4000000000,\"i64\":-9223372036854775808,"
    "\"u64\":18446744073709551615,\"f\":1.5,\"d\":0.10000000000000001,\"nan\":null,"
    "\"b32\":true,\"bin\":\"01abff\",\"g\":\"01020304-0506-0708-090a-0b0c0d0e0f10\","
    "\"p\":72623859790382856,\"ft\":132756731757990000,\"st\":\"2021-09-09T14:59:35.799\","
    "\"sid\":\"S-1-5-32-544\",\"h32\":3735928559,\"h64\":9223372036854775809,\"cs\":\"ok\","
    "\"cn\":\"hi\",\"cb\":\"\",\"s\":{\"x\":7,\"y\":\"z\"},\"va\":[1,2],\"ca\":[7,8,9],"
    "\"sa\":[{\"p\":1,\"q\":\"a\"},{\"p\":-1,\"q\":\"\"}],\"sv\":[\"x\",\"\"],\"cu\":\"1234\"}";

static void test_tracelogging_payload_json_every_type(void **state)
{
    (void)state;
    etlb b;
    gcev_trace t;
    gcev_trace_event ev;
    tl_event(&b, &t, &ev, tl_all_fields, sizeof tl_all_fields, tl_all_payload, sizeof tl_all_payload);
    assert_int_equal(ev.fields[4].out_type, 3);
    assert_int_equal(ev.nfields, 32);
    assert_string_equal(ev.fields[28].name, "ca");
    assert_int_equal(ev.fields[28].fixed_count, 3);
    assert_int_equal(ev.fields[28].flags, GCEV_FIELD_FIXED_COUNT);
    assert_int_equal(ev.fields[31].flags, GCEV_FIELD_CUSTOM);
    char *json = tl_json(&ev);
    assert_string_equal(json, tl_all_json);
    expect_json_shape(json);

    /* Every shorter payload (a copy of exactly that size: ASan sees any over-read):
     * the values that fit, then null and "_truncated", still well-formed JSON. */
    gcev_trace_event cut = ev;
    for (uint32_t k = 0; k < ev.payload_size; k++) {
        uint8_t *copy = malloc(k ? k : 1);
        assert_non_null(copy);
        memcpy(copy, ev.payload, k);
        cut.payload = k ? copy : NULL;
        cut.payload_size = k;
        char *s = tl_json(&cut);
        expect_json_shape(s);
        size_t len = strlen(s);
        static const char tail[] = ",\"_truncated\":true}";
        assert_true(len > sizeof tail);
        assert_string_equal(s + len - (sizeof tail - 1), tail);
        assert_non_null(strstr(s, "null"));
        /* what precedes the first null is what the full payload gives there */
        size_t same = (size_t)(strstr(s, "null") - s);
        assert_memory_equal(s, json, same);
        free(s);
        free(copy);
    }
    free(json);
    etl_close(&t);
    etlb_free(&b);
}

/* Unknown in-types, nesting beyond the limit, and empty structs in constant-count arrays. */
static void test_tracelogging_payload_json_limits(void **state)
{
    (void)state;
    etlb b;
    gcev_trace t;
    gcev_trace_event ev;
    static const uint8_t odd[] = {'a', 0, 0x08, 'z', 0, 0x1a, 'b', 0, 0x08};
    static const uint8_t p8[] = {5, 0, 0, 0, 6, 0, 0, 0};
    tl_event(&b, &t, &ev, odd, sizeof odd, p8, sizeof p8);
    char *json = tl_json(&ev);
    assert_string_equal(json, "{\"a\":5,\"z\":null,\"_unsupported\":true}");
    free(json);
    etl_close(&t);
    etlb_free(&b);

    /* 40 nested one-member structs around a UInt32 */
    uint8_t deep[40 * 4 + 3];
    size_t k = 0;
    for (int i = 0; i < 40; i++) {
        deep[k++] = 'n';
        deep[k++] = 0;
        deep[k++] = 0x98;
        deep[k++] = 1;
    }
    deep[k++] = 'v';
    deep[k++] = 0;
    deep[k++] = 0x08;
    tl_event(&b, &t, &ev, deep, k, p8, 4);
    json = tl_json(&ev);
    expect_json_shape(json);
    assert_non_null(strstr(json, "{\"n\":null}"));
    assert_non_null(strstr(json, ",\"_unsupported\":true}"));
    free(json);
    etl_close(&t);
    etlb_free(&b);

    /* struct[65535] of struct[65535] of nothing: 4e9 values for no payload bytes */
    static const uint8_t empty[] = {'o', 0, 0xb8, 1, 0xff, 0xff, 'e', 0, 0xb8, 0, 0xff, 0xff};
    tl_event(&b, &t, &ev, empty, sizeof empty, NULL, 0);
    json = tl_json(&ev);
    expect_json_shape(json);
    assert_true(strlen(json) < 16 * 4096);
    assert_non_null(strstr(json, ",\"_work_limit\":true}"));
    free(json);
    etl_close(&t);
    etlb_free(&b);

    /* UTF-8 out-type: malformed bytes become U+FFFD; field names are UTF-8 too */
    static const uint8_t utf8[] = {0xc3, 0xa9, 0, 0x82, 35};
    static const uint8_t bad[] = {0xff, 'a', 0xe0, 0x80, 0};
    tl_event(&b, &t, &ev, utf8, sizeof utf8, bad, sizeof bad);
    json = tl_json(&ev);
    assert_string_equal(json, "{\"\xc3\xa9\":\"\xef\xbf\xbd"
                              "a\xef\xbf\xbd\xef\xbf\xbd\"}");
    free(json);
    etl_close(&t);
    etlb_free(&b);

    /* 4-byte pointers in a 32-bit event (the formatter reads ev->pointer_size) */
    static const uint8_t ptrs[] = {'p', 0, 0x10, 'q', 0, 0x10};
    tl_event(&b, &t, &ev, ptrs, sizeof ptrs, p8, sizeof p8);
    ev.pointer_size = 4;
    json = tl_json(&ev);
    assert_string_equal(json, "{\"p\":5,\"q\":6}");
    free(json);
    etl_close(&t);
    etlb_free(&b);
}

/* Stack frames are exposed only at the event's own pointer width (a WOW64 process logs
 * 32-bit frames under a 64-bit header: not exposed as 64-bit IPs). */
static void test_etl_stack_trace_width_must_match_the_header(void **state)
{
    (void)state;
    etlb b;
    etlb_init(&b, BUF);
    etlb_buffer_begin(&b, 0, 0);
    etlb_logfile lf;
    default_logfile(&lf);
    etlb_logfile_header(&b, &lf);
    uint8_t s32[8 + 3 * 4] = {0}, s64[8 + 2 * 8] = {0};
    for (int i = 0; i < 3; i++) {
        gcev_put32(s32 + 8 + 4 * i, 0x401000u + (uint32_t)i);
    }
    gcev_put64(s64 + 8, 0x7ff000001000u);
    gcev_put64(s64 + 16, 0x7ff000002000u);
    uint8_t p8[8] = {0};
    const etlb_ext x32[] = {{5, s32, sizeof s32}}, x64[] = {{6, s64, sizeof s64}};
    /* 64-bit header + 32-bit frames; 32-bit header + 32-bit frames; 64-bit + 64-bit */
    const struct {
        uint8_t header_type;
        const etlb_ext *ext;
    } cases[] = {{0x13, x32}, {0x12, x32}, {0x13, x64}, {0x12, x64}};
    for (int i = 0; i < 4; i++) {
        etlb_event e = {.header_type = cases[i].header_type,
                        .pid = 1,
                        .tid = 2,
                        .ts = 2000 + i,
                        .provider = other_guid,
                        .id = (uint16_t)(10 + i),
                        .ext = cases[i].ext,
                        .next = 1,
                        .payload = p8,
                        .payload_size = 4};
        etlb_event_record(&b, &e);
    }
    etlb_buffer_end(&b);
    gcev_trace t;
    gcev_error err;
    assert_int_equal(etl_open_mem(&t, b.data, b.size, 0, &err), GCEV_OK);
    gcev_trace_event ev;
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK); /* the log file header */
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    assert_int_equal(ev.pointer_size, 8);
    assert_null(ev.stack);
    assert_int_equal(ev.stack_size, 0);
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    assert_int_equal(ev.pointer_size, 4);
    assert_non_null(ev.stack);
    assert_int_equal(ev.stack_size, 12);
    assert_int_equal(gcev_rd_u32le(ev.stack + 8), 0x401002u);
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    assert_int_equal(ev.stack_size, 16);
    assert_true(gcev_rd_u64le(ev.stack) == 0x7ff000001000u);
    assert_int_equal(etl_next(&t, &ev, &err), GCEV_OK);
    assert_null(ev.stack);
    etl_close(&t);
    etlb_free(&b);
}

/* ---- compressed buffers (relogged files in compressed mode) ------------------------ */

typedef struct relogged {
    uint8_t *data;
    size_t size;
    size_t offsets[ETLB_MAX_MARKS];
} relogged;

static void relog(const etlb *b, size_t first, relogged *r)
{
    r->data = etlb_relog_compressed(b, first, &r->size, r->offsets);
    assert_non_null(r->data);
}

static void test_compressed_buffers_give_the_plain_records(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    relogged z;
    relog(&b, 1, &z);
    assert_true(z.size < b.size);
    /* BufferSize is the compressed size, SavedOffset the inflated used size, beyond it */
    uint32_t bs = gcev_rd_u32le(z.data + z.offsets[1]), used = gcev_rd_u32le(z.data + z.offsets[1] + 4);
    assert_int_equal(z.offsets[2], z.offsets[1] + bs);
    assert_int_equal(used, b.used[1]);
    assert_true(used > bs);
    for (int stream = 0; stream <= 1; stream++) {
        gcev_trace p, c;
        gcev_error err = {0};
        assert_int_equal(etl_open_mem(&p, b.data, b.size, 0, &err), GCEV_OK);
        chunk_reader cr = {z.data, z.size, 0, 333};
        if (stream) {
            memset(&c, 0, sizeof c);
            gcev_source_init_reader(&c.src, chunk_read, &cr);
            assert_int_equal(gcev_etl_open(&c, &err), GCEV_OK);
        } else {
            assert_int_equal(etl_open_mem(&c, z.data, z.size, 0, &err), GCEV_OK);
        }
        gcev_trace_event a, e;
        gcev_status sa, se;
        size_t n = 0;
        while ((sa = etl_next(&p, &a, &err)) == GCEV_OK) {
            se = etl_next(&c, &e, &err);
            assert_int_equal(se, GCEV_OK);
            /* a record of a compressed buffer is placed at its buffer */
            size_t buf = 0;
            while (buf + 1 < b.nbuffers && a.file_offset >= b.buffers[buf + 1]) {
                buf++;
            }
            assert_int_equal(e.file_offset, buf >= 1 ? z.offsets[buf] : a.file_offset);
            assert_int_equal(e.timestamp, a.timestamp);
            assert_int_equal(e.thread_id, a.thread_id);
            assert_int_equal(e.process_id, a.process_id);
            assert_int_equal(e.processor, a.processor);
            assert_int_equal(e.event_id, a.event_id);
            assert_int_equal(e.version, a.version);
            assert_int_equal(e.pointer_size, a.pointer_size);
            assert_memory_equal(&e.provider_guid, &a.provider_guid, sizeof a.provider_guid);
            assert_int_equal(e.payload_size, a.payload_size);
            assert_memory_equal(e.payload, a.payload, a.payload_size);
            assert_int_equal(e.stack_size, a.stack_size);
            if (a.stack_size) {
                assert_memory_equal(e.stack, a.stack, a.stack_size);
            }
            assert_int_equal(e.nfields, a.nfields);
            assert_string_equal(e.event_name, a.event_name);
            assert_string_equal(e.provider_name, a.provider_name);
            n++;
        }
        assert_int_equal(sa, GCEV_END);
        assert_int_equal(etl_next(&c, &e, &err), GCEV_END);
        assert_int_equal(n, 10);
        etl_close(&p);
        etl_close(&c);
    }
    free(z.data);
    etlb_free(&b);
}

/* Records of buffer i (offsets in the plain file) that end within `inflated` bytes of it. */
static size_t records_within(const etlb *b, size_t i, size_t inflated)
{
    size_t n = 0;
    for (size_t r = 0; r < b->nrecords; r++) {
        const etlb_mark *m = &b->records[r];
        if (m->buffer == i && m->offset - b->buffers[i] + m->size <= inflated) {
            n++;
        }
    }
    return n;
}

static size_t records_of(const etlb *b, size_t i)
{
    return records_within(b, i, SIZE_MAX);
}

static void test_compressed_truncation_at_every_byte(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    relogged z;
    relog(&b, 1, &z);
    uint8_t *scratch = malloc(BUF);
    assert_non_null(scratch);
    size_t last_n = 0;
    for (size_t len = z.offsets[1]; len < z.size; len++) {
        uint8_t *copy = malloc(len);
        assert_non_null(copy);
        memcpy(copy, z.data, len);
        /* the buffer the cut falls in, and what its compressed prefix determines */
        size_t i = len >= z.offsets[2] ? 2 : 1;
        size_t want_n = records_of(&b, 0) + (i == 2 ? records_of(&b, 1) : 0);
        gcev_status want = GCEV_E_TRUNCATED_FILE;
        uint64_t want_off = len;
        if (len == z.offsets[i]) {
            /* between buffers: fewer than BuffersWritten, the first missing byte */
        } else if (len < z.offsets[i] + 0x48) {
            want_off = z.offsets[i];
        } else {
            gcev_xpress_result r;
            gcev_xpress_inflate(z.data + z.offsets[i] + 0x48, len - z.offsets[i] - 0x48, scratch,
                                b.used[i] - 0x48, &r);
            want_n += records_within(&b, i, 0x48 + r.out_pos);
        }
        gcev_trace t;
        gcev_error err = {0};
        assert_int_equal(etl_open_mem(&t, copy, len, 0, &err), GCEV_OK);
        size_t n = 0;
        gcev_status st = etl_drain(&t, &n, &err);
        assert_int_equal(st, want);
        assert_int_equal(n, want_n);
        assert_true(n >= last_n);
        last_n = n;
        if (want != GCEV_END) {
            assert_int_equal(err.code, want);
            assert_int_equal(err.offset, want_off);
        }
        etl_close(&t);
        free(copy);
    }
    free(scratch);
    free(z.data);
    etlb_free(&b);
}

/* z with its last buffer's compressed bytes replaced by `stream` (SavedOffset kept). */
static uint8_t *replace_last(const relogged *z, size_t last, const uint8_t *stream, size_t n, size_t *size)
{
    size_t at = z->offsets[last];
    uint8_t *d = malloc(at + 0x48 + n);
    assert_non_null(d);
    memcpy(d, z->data, at + 0x48);
    memcpy(d + at + 0x48, stream, n);
    gcev_put32(d + at, (uint32_t)(0x48 + n));
    *size = at + 0x48 + n;
    return d;
}

static void expect_fails(const uint8_t *d, size_t n, uint32_t max_block, gcev_status want, uint64_t off,
                         size_t events, const char *needle)
{
    gcev_trace t;
    gcev_error err = {0};
    size_t k = 0;
    gcev_status st = etl_open_mem(&t, d, n, max_block, &err);
    if (st == GCEV_OK) {
        st = etl_drain(&t, &k, &err);
    }
    assert_int_equal(st, want);
    assert_int_equal(err.code, want);
    assert_int_equal(err.offset, off);
    assert_int_equal(k, events);
    if (!strstr(err.message, needle)) {
        fail_msg("message '%s' lacks '%s'", err.message, needle);
    }
    etl_close(&t);
}

static void test_compressed_hostile_streams_name_both_offsets(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    relogged z;
    relog(&b, 1, &z);
    const size_t before = records_of(&b, 0) + records_of(&b, 1); /* events before buffer 2 */
    const uint64_t o2 = z.offsets[2];
    char needle[128];

    /* a match as the first item: it reaches before the start */
    xw w;
    xw_init(&w);
    xw_match(&w, 1, 3);
    size_t sn = 0, n = 0;
    const uint8_t *stream = xw_finish(&w, &sn);
    uint8_t *d = replace_last(&z, 2, stream, sn, &n);
    snprintf(needle, sizeof needle,
             "before the start of the output (compressed ETL buffer at file offset %llu: offset 72 of",
             (unsigned long long)o2);
    expect_fails(d, n, 0, GCEV_E_FORMAT, o2, before, needle);
    free(d);
    xw_free(&w);

    /* a match past the used size, after 100 literals */
    xw_init(&w);
    for (int i = 0; i < 100; i++) {
        xw_literal(&w, 0);
    }
    xw_match(&w, 1, b.used[2]);
    stream = xw_finish(&w, &sn);
    d = replace_last(&z, 2, stream, sn, &n);
    expect_fails(d, n, 0, GCEV_E_FORMAT, o2, before, "past the inflated size");
    expect_fails(d, n, 0, GCEV_E_FORMAT, o2, before, "offset 172 of its inflated data");
    free(d);
    xw_free(&w);

    /* whole buffer, data short of SavedOffset */
    d = malloc(z.size);
    assert_non_null(d);
    memcpy(d, z.data, z.size);
    gcev_put32(d + o2 + 4, b.used[2] + 8);
    snprintf(needle, sizeof needle,
             "ends before its used size (compressed ETL buffer at file offset %llu: offset %u of",
             (unsigned long long)o2, b.used[2]);
    expect_fails(d, z.size, 0, GCEV_E_FORMAT, o2, before, needle);
    /* SavedOffset beyond the trace's BufferSize, and beyond the caller's limit */
    gcev_put32(d + o2 + 4, BUF + 8);
    expect_fails(d, z.size, 0, GCEV_E_FORMAT, o2, before, "exceeds the trace's buffer size");
    /* within a (large) trace BufferSize, beyond the caller's limit */
    gcev_put32(d + 0x48 + 32, 1u << 20); /* TRACE_LOGFILE_HEADER.BufferSize */
    gcev_put32(d + o2 + 4, 4096);
    expect_fails(d, z.size, 2048, GCEV_E_LIMIT, o2, before, "block-size limit");
    gcev_put32(d + 0x48 + 32, BUF);
    gcev_put32(d + o2 + 4, b.used[2]);
    /* restored: reads to the end */
    gcev_trace t;
    gcev_error err = {0};
    assert_int_equal(etl_open_mem(&t, d, z.size, 0, &err), GCEV_OK);
    size_t k = 0;
    assert_int_equal(etl_drain(&t, &k, &err), GCEV_END);
    assert_int_equal(k, 10);
    etl_close(&t);
    free(d);
    free(z.data);

    /* a malformed record inside an inflated buffer: its buffer's offset, and where it lies */
    uint8_t *plain = b.data;
    size_t ev64 = b.records[2].offset; /* the first record of buffer 1 */
    assert_int_equal(ev64, BUF + 0x48);
    plain[ev64 + 3] = 0x40; /* marker without the trace-header bit */
    relog(&b, 1, &z);
    snprintf(needle, sizeof needle,
             "no trace-header marker (compressed ETL buffer at file offset %llu: offset 72 of",
             (unsigned long long)z.offsets[1]);
    expect_fails(z.data, z.size, 0, GCEV_E_FORMAT, z.offsets[1], records_of(&b, 0), needle);
    plain[ev64 + 3] = 0xc0;
    free(z.data);

    /* compressed mode names the algorithm in the header buffer's State: XPRESS (3) is
     * read, LZNT1 (2) and XPRESS Huffman (4) are refused at the first compressed buffer */
    relog(&b, 1, &z);
    gcev_put32(z.data + 0x48 + 32 + 32, 0x04010001); /* LogFileMode: compressed, relog, sequential */
    static const struct {
        uint32_t format;
        gcev_status want;
        const char *needle;
    } formats[] = {
        {3, GCEV_END, ""}, {2, GCEV_E_UNSUPPORTED, "LZNT1"}, {4, GCEV_E_UNSUPPORTED, "XPRESS Huffman"}};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        gcev_put32(z.data + 0x2c, formats[f].format);
        if (formats[f].want == GCEV_END) {
            assert_int_equal(etl_open_mem(&t, z.data, z.size, 0, &err), GCEV_OK);
            assert_int_equal(etl_drain(&t, &k, &err), GCEV_END);
            assert_int_equal(k, 10);
            etl_close(&t);
        } else {
            expect_fails(z.data, z.size, 0, formats[f].want, z.offsets[1], records_of(&b, 0),
                         formats[f].needle);
        }
    }
    free(z.data);

    /* the header buffer compressed: never written so, refused */
    relog(&b, 0, &z);
    assert_int_equal(gcev_etl_detect(z.data, z.size), 0);
    expect_fails(z.data, z.size, 0, GCEV_E_UNSUPPORTED, 0, 0, "log file header) is compressed");
    free(z.data);
    etlb_free(&b);
}

/* Every allocation of open + read failing in turn, plain and compressed buffers, memory and
 * callback input: GCEV_E_NOMEM or the same events, never another error. */
static void test_etl_each_allocation_failure_is_nomem_or_the_same_events(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    relogged z;
    relog(&b, 1, &z);
    for (int compressed = 0; compressed < 2; compressed++) {
        for (int stream = 0; stream < 2; stream++) {
            failalloc_trace r = {
                NULL, compressed ? z.data : b.data, compressed ? z.size : b.size, stream, {0}, 0, 0};
            assert_true(failalloc_every_read(&r) > 0);
            assert_int_equal(r.events, 10);
        }
    }
    free(z.data);
    etlb_free(&b);
}

/* Every byte of the basic file (plain and with compressed buffers) flipped to its complement
 * and to 0x80, one at a time, read in both orders: the read ends cleanly or with a format,
 * truncation, limit or unsupported error located in the file with a message. */
static void test_etl_every_flipped_byte_is_read_or_a_located_error(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    relogged z;
    relog(&b, 1, &z);
    for (int compressed = 0; compressed < 2; compressed++) {
        const uint8_t *d = compressed ? z.data : b.data;
        size_t size = compressed ? z.size : b.size;
        uint8_t *m = malloc(size);
        for (size_t pos = 0; pos < size; pos += failalloc_quick() ? 7 : 1) {
            for (int how = 0; how < 2; how++) {
                memcpy(m, d, size);
                m[pos] = how ? 0x80 : (uint8_t)~m[pos];
                for (uint32_t order = GCEV_TRACE_ORDER_FILE; order <= GCEV_TRACE_ORDER_TIME; order++) {
                    gcev_trace_options o = {.struct_size = sizeof o, .order = order};
                    gcev_trace *t = NULL;
                    gcev_error err = {0};
                    gcev_status st = gcev_trace_open_memory(m, size, &o, &t, &err);
                    size_t n = 0;
                    if (st == GCEV_OK) {
                        gcev_trace_event ev;
                        while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
                            n++;
                        }
                    }
                    assert_true(n <= 64);
                    if (st != GCEV_END) {
                        if (st != GCEV_E_FORMAT && st != GCEV_E_TRUNCATED_FILE && st != GCEV_E_LIMIT &&
                            st != GCEV_E_UNSUPPORTED) {
                            fail_msg("%s byte %zu -> %02x: %s", compressed ? "compressed" : "plain", pos,
                                     m[pos], gcev_status_str(st));
                        }
                        assert_true(err.offset <= size);
                        assert_true(err.message && err.message[0]);
                    }
                    gcev_trace_close(t);
                }
            }
        }
        free(m);
    }
    free(z.data);
    etlb_free(&b);
}

/* ---- gcev_trace_set_filter ------------------------------------------------------ */

static gcev_status open_built(void *ctx, const gcev_trace_options *o, gcev_trace **t)
{
    const etlb *b = ctx;
    return gcev_trace_open_memory(b->data, b->size, o, t, NULL);
}

static int keep_gc_set(const gcev_trace_event *ev, void *ctx)
{
    (void)ctx;
    return ev->provider && !ev->no_event_id &&
           gcev_event_desc_resolve(ev->provider, ev->event_id, ev->version, NULL);
}

static int keep_provider_name(const gcev_trace_event *ev, void *ctx)
{
    return ev->provider_name && strcmp(ev->provider_name, ctx) == 0;
}

static int keep_level_3(const gcev_trace_event *ev, void *ctx)
{
    (void)ctx;
    return !ev->has_level || ev->level <= 3;
}

static int keep_top_keyword(const gcev_trace_event *ev, void *ctx)
{
    (void)ctx;
    return (ev->keywords >> 63) != 0;
}

/* Manifest events (judged by their header), TraceLogging (by its traits' name), classic and
 * kernel records: the filtered walk is the unfiltered one minus what the filter skips. */
static void test_filter_skips_records_and_keeps_the_rest_unchanged(void **state)
{
    (void)state;
    etlb b;
    build_basic(&b);
    for (uint32_t order = GCEV_TRACE_ORDER_FILE; order <= GCEV_TRACE_ORDER_TIME; order++) {
        size_t skipped;
        gcev_trace_filter f;
        memset(&f, 0, sizeof f);
        f.struct_size = sizeof f;
        f.flags = GCEV_TRACE_FILTER_GC;
        assert_int_equal(filter_check(open_built, &b, order, &f, keep_gc_set, NULL, &skipped), 2);
        assert_int_equal(skipped, 8); /* the logfile header, kernel, other providers', TraceLogging */
        const char *tl = "MyProv";
        memset(&f, 0, sizeof f);
        f.struct_size = sizeof f;
        f.providers = &tl;
        f.nproviders = 1;
        assert_int_equal(filter_check(open_built, &b, order, &f, keep_provider_name, "MyProv", NULL), 1);
        memset(&f, 0, sizeof f);
        f.struct_size = sizeof f;
        f.max_level = 3;
        /* kernel records (no level), level 0, 2 and 3 pass; levels 4 and 5 are skipped */
        assert_int_equal(filter_check(open_built, &b, order, &f, keep_level_3, NULL, &skipped), 7);
        assert_int_equal(skipped, 3);
        f.max_level = 0;
        f.keywords = 0x8000000000000000u;
        assert_int_equal(filter_check(open_built, &b, order, &f, keep_top_keyword, NULL, NULL), 1);
    }
    etlb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_skips_records_and_keeps_the_rest_unchanged),
        cmocka_unit_test(test_detect_built_file_accepted_garbage_rejected),
        cmocka_unit_test(test_header_fields_fill_trace_info),
        cmocka_unit_test(test_header_32bit_layout_and_clock_types),
        cmocka_unit_test(test_events_all_record_kinds_in_file_order),
        cmocka_unit_test(test_fill_marker_ends_buffer_records),
        cmocka_unit_test(test_tracelogging_schema_is_cached_across_events),
        cmocka_unit_test(test_reader_source_gives_same_events_as_memory),
        cmocka_unit_test(test_truncation_at_every_byte_yields_prefix_then_error),
        cmocka_unit_test(test_hostile_buffer_headers_fail_with_offset),
        cmocka_unit_test(test_hostile_records_fail_with_offset),
        cmocka_unit_test(test_hostile_tracelogging_schemas_fail),
        cmocka_unit_test(test_first_record_must_be_logfile_header),
        cmocka_unit_test(test_tracelogging_payload_json_every_type),
        cmocka_unit_test(test_tracelogging_payload_json_limits),
        cmocka_unit_test(test_etl_stack_trace_width_must_match_the_header),
        cmocka_unit_test(test_compressed_buffers_give_the_plain_records),
        cmocka_unit_test(test_compressed_truncation_at_every_byte),
        cmocka_unit_test(test_compressed_hostile_streams_name_both_offsets),
        cmocka_unit_test(test_etl_each_allocation_failure_is_nomem_or_the_same_events),
        cmocka_unit_test(test_etl_every_flipped_byte_is_read_or_a_located_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
