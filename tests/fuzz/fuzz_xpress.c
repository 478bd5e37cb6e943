/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: compressed ETL buffers. Input framing (the seeds follow it):
 *   [0]     mode: bit 0 timestamp order, bit 1 stream input, bit 2 round trip
 *   [1..2]  inflated size of the contents (little-endian; SavedOffset - 72)
 *   [3..]   the MS-XCA Plain LZ77 stream
 * Each input is inflated by gcev_xpress_inflate() directly (bounds of every position,
 * the prefix property: a cut stream gives a prefix of what the whole gives), then read
 * by the trace reader as the compressed second buffer of an ETL file whose first
 * buffer is a fixed log file header (the buffer header says compressed, BufferSize =
 * header + stream), so its inflated records go through the record and TraceLogging
 * parsers. With bit 2 the stream bytes are also compressed by the tests' writer and
 * inflated back, which must give them unchanged.
 */
#include "etl_builder.h"
#include "fuzz_trace_common.h"
#include "gcev_xpress.h"
#include "xpress_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { TRACE_BUFFER = 65536, HEADER = 0x48 };

/* The log file header buffer every input is appended to (built once). */
static const uint8_t *header_buffer(size_t *n)
{
    static etlb b;
    static int built;
    if (!built) {
        etlb_logfile lf = {8, 1000, 10000000, 1, 2304, 4, 0, 0, 0x01d7a58b4c3947ce};
        etlb_init(&b, 1024);
        etlb_buffer_begin(&b, 0, 0);
        etlb_logfile_header(&b, &lf);
        etlb_buffer_end(&b);
        /* TRACE_LOGFILE_HEADER.BufferSize: what a compressed buffer inflates within */
        b.data[HEADER + 32] = (uint8_t)TRACE_BUFFER;
        b.data[HEADER + 33] = (uint8_t)(TRACE_BUFFER >> 8);
        b.data[HEADER + 34] = (uint8_t)(TRACE_BUFFER >> 16);
        b.data[HEADER + 35] = (uint8_t)(TRACE_BUFFER >> 24);
        built = 1;
    }
    *n = b.size;
    return b.data;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void inflate_checks(const uint8_t *in, size_t n, size_t out_size)
{
    uint8_t *whole = malloc(out_size + 1), *part = malloc(out_size + 1);
    if (!whole || !part) {
        free(whole);
        free(part);
        return;
    }
    gcev_xpress_result r;
    gcev_status st = gcev_xpress_inflate(in, n, whole, out_size, &r);
    FUZZ_CHECK(r.in_pos <= n && r.out_pos <= out_size);
    FUZZ_CHECK((st == GCEV_OK) == (r.why == NULL));
    FUZZ_CHECK(st == GCEV_OK || st == GCEV_E_TRUNCATED || st == GCEV_E_FORMAT);
    if (st == GCEV_OK) {
        FUZZ_CHECK(r.out_pos == out_size);
    }
    /* half the input: a prefix of the same output, and no more of it */
    gcev_xpress_result h;
    gcev_status sh = gcev_xpress_inflate(in, n / 2, part, out_size, &h);
    FUZZ_CHECK(h.out_pos <= r.out_pos);
    FUZZ_CHECK(memcmp(part, whole, h.out_pos) == 0);
    /* a fault of the half is the whole's fault, at the same place */
    FUZZ_CHECK(sh != GCEV_E_FORMAT ||
               (st == GCEV_E_FORMAT && h.out_pos == r.out_pos && h.in_pos == r.in_pos));
    free(whole);
    free(part);
}

static void round_trip(const uint8_t *in, size_t n)
{
    size_t zn = 0;
    uint8_t *z = xw_compress(in, n, 8192, &zn);
    uint8_t *back = malloc(n + 1);
    if (z && back) {
        gcev_xpress_result r;
        FUZZ_CHECK(gcev_xpress_inflate(z, zn, back, n, &r) == GCEV_OK);
        FUZZ_CHECK(memcmp(back, in, n) == 0);
    }
    free(z);
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) {
        return 0;
    }
    const uint8_t mode = data[0];
    const size_t out_size = (size_t)(data[1] | data[2] << 8);
    const uint8_t *stream = data + 3;
    const size_t n = size - 3;
    inflate_checks(stream, n, out_size);
    if (mode & 4) {
        round_trip(stream, n);
    }

    size_t hn = 0;
    const uint8_t *head = header_buffer(&hn);
    uint8_t *file = malloc(hn + HEADER + n);
    if (!file) {
        return 0;
    }
    memcpy(file, head, hn);
    uint8_t *bh = file + hn;
    memcpy(bh, head, HEADER);                     /* a buffer header like the first, then: */
    put32(bh, (uint32_t)(HEADER + n));            /* BufferSize: on disk */
    put32(bh + 4, (uint32_t)(HEADER + out_size)); /* SavedOffset: inflated */
    bh[0x34] = 0x40;                              /* compressed */
    bh[0x35] = 0;
    bh[0x36] = 0; /* a generic buffer, not the header's */
    bh[0x37] = 0;
    memcpy(bh + HEADER, stream, n);
    const size_t fn = hn + HEADER + n;

    gcev_trace_options opts = {.struct_size = sizeof opts,
                               .order = (mode & 1) ? GCEV_TRACE_ORDER_TIME : GCEV_TRACE_ORDER_FILE,
                               .max_block_size = 16u << 20};
    fuzz_stream s = {file, fn, 0, 333};
    gcev_trace *t = NULL;
    gcev_error err;
    gcev_status st = (mode & 2) ? gcev_trace_open_reader(fuzz_stream_read, &s, &opts, &t, &err)
                                : gcev_trace_open_memory(file, fn, &opts, &t, &err);
    FUZZ_CHECK(st == GCEV_OK); /* the header buffer is always good */
    gcev_trace_event ev;
    unsigned events = 0;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        FUZZ_CHECK(ev.payload_size == 0 || ev.payload != NULL);
        FUZZ_CHECK(ev.file_offset == 0x48 || ev.file_offset == hn);
        if (ev.nfields && events < 64) {
            size_t need = gcev_trace_format_fields_json(&ev, NULL, 0);
            char *buf = malloc(need + 1);
            if (buf) {
                FUZZ_CHECK(gcev_trace_format_fields_json(&ev, buf, need + 1) == need);
                free(buf);
            }
        }
        events++;
    }
    if (st != GCEV_END) {
        FUZZ_CHECK(err.code == st && err.message != NULL);
        /* faults are at the compressed buffer, or where the input ends */
        FUZZ_CHECK(err.offset == hn || err.offset == fn);
    }
    gcev_trace_close(t);
    free(file);
    return 0;
}
