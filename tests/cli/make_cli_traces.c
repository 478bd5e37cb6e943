/* SPDX-License-Identifier: MIT */
/*
 * Writes the traces the CLI tests of tests/cli/ read, with gcev's trace writer,
 * into the folder given as argv[1]:
 *   empty.nettrace  0 bytes
 *   cut.nettrace    a NetTrace V5 of 400 GC events cut inside its second event block
 *   gaps.nettrace   3 GCs; 7 events of one thread's sequence numbers are missing
 *                   inside GC 2 (GC 2 is open across the loss)
 *   nongc.nettrace  a GCStart_V2 (mapped fields: Reason, Type), a runtime event id 85
 *                   with a 30-byte payload and no field list, one with no payload
 *   big.nettrace    201,000 events (1,000 GCs, the rest runtime id 85; about 9 MB),
 *                   for progress on a terminal
 *   damaged.nettrace GCs 1-4 in four event blocks (a sequence point inside each GC); the
 *                   second (GC 1's end, GC 2's start) has a damaged event-block header
 *                   (--keep-going skips it: GC 1 is open across it)
 *   damaged.etl     GCs 1-3 in three ETL buffers (tests/support/etl_builder.c); the second
 *                   buffer's header is damaged. ETL has no sequence numbers: nothing is
 *                   counted as dropped, only the skipped range tells the trace is incomplete
 */
#include <gcev/gcev_writer.h>

#include "etl_builder.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *dir;

static int save(const char *name, const uint8_t *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        fprintf(stderr, "make_cli_traces: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

static gcev_writer *writer(void)
{
    gcev_writer_options o = {5, 1, 8, 4242, 4, 1000000, 0};
    gcev_writer *w = NULL;
    if (gcev_writer_create(&o, &w) != GCEV_OK) {
        fprintf(stderr, "make_cli_traces: cannot create a writer\n");
        exit(1);
    }
    return w;
}

static uint32_t define(gcev_writer *w, uint16_t id, uint8_t version)
{
    gcev_writer_meta m = {"Microsoft-Windows-DotNETRuntime", id, version, 0, 4, 1, "", NULL, 0};
    uint32_t meta = 0;
    if (gcev_writer_define(w, &m, &meta) != GCEV_OK) {
        fprintf(stderr, "make_cli_traces: cannot define event %u\n", id);
        exit(1);
    }
    return meta;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static void emit(gcev_writer *w, uint32_t meta, uint64_t tid, uint32_t seq, int64_t ts, const uint8_t *p,
                 uint32_t n)
{
    gcev_writer_event e = {meta, tid, 0, seq, 0, ts, p, n, NULL, 0, {0}};
    if (gcev_writer_write(w, &e) != GCEV_OK) {
        fprintf(stderr, "make_cli_traces: cannot write an event\n");
        exit(1);
    }
}

static int finish(gcev_writer *w, const char *name, size_t keep_num, size_t keep_den)
{
    const uint8_t *data;
    size_t size;
    if (gcev_writer_finish(w, &data, &size) != GCEV_OK) {
        fprintf(stderr, "make_cli_traces: cannot finish %s\n", name);
        exit(1);
    }
    int rc = save(name, data, size * keep_num / keep_den);
    gcev_writer_free(w);
    return rc;
}

/* GCStart_V2 (26 bytes), GCEnd_V1 (10), as the runtime sends them. */
static void gc(gcev_writer *w, uint32_t start, uint32_t end, uint32_t number, uint64_t tid, uint32_t *seq,
               int64_t ts)
{
    uint8_t s[26] = {0}, e[10] = {0};
    put32(s, number);
    put32(s + 4, number % 3); /* Depth */
    put32(s + 8, 1);          /* Reason: Induced */
    put32(e, number);
    put32(e + 4, number % 3);
    emit(w, start, tid, (*seq)++, ts, s, sizeof s);
    emit(w, end, tid, (*seq)++, ts + 500, e, sizeof e);
}

/* damaged.nettrace: the second event block's header size made larger than the block. */
static int damaged(void)
{
    gcev_writer *w = writer();
    uint32_t start = define(w, 1, 2), end = define(w, 2, 1);
    uint32_t seq = 1;
    uint8_t s[26] = {0}, e[10] = {0};
    for (uint32_t n = 1; n <= 4; n++) {
        put32(s, n);
        put32(e, n);
        emit(w, start, 1001, seq++, 1000 * (int64_t)n, s, sizeof s);
        if (n < 4) {
            gcev_writer_sequence_point(w, 1000 * (int64_t)n + 100);
        }
        emit(w, end, 1001, seq++, 1000 * (int64_t)n + 500, e, sizeof e);
    }
    const uint8_t *data;
    size_t size;
    if (gcev_writer_finish(w, &data, &size) != GCEV_OK) {
        fprintf(stderr, "make_cli_traces: cannot finish damaged.nettrace\n");
        exit(1);
    }
    uint8_t *copy = malloc(size);
    if (!copy) {
        exit(1);
    }
    memcpy(copy, data, size);
    size_t seen = 0;
    for (size_t i = 0; i + 16 < size; i++) {
        if (memcmp(copy + i, "EventBlock", 10) == 0 && ++seen == 2) {
            size_t body = i + 10 + 1 + 4;
            body += (4 - (body & 3)) & 3;
            copy[body] = 0xff; /* the event-block header's size */
            copy[body + 1] = 0xff;
            break;
        }
    }
    int rc = seen == 2 ? save("damaged.nettrace", copy, size) : 1;
    free(copy);
    gcev_writer_free(w);
    return rc;
}

/* damaged.etl: the header buffer, then GC n in buffer n (1-3); buffer 2's SavedOffset
 * points past the buffer. */
static int damaged_etl(void)
{
    etlb b;
    etlb_init(&b, 4096);
    etlb_buffer_begin(&b, 0, 0);
    etlb_logfile lf = {.pointer_size = 8, .perf_freq = 1000000, .clock_type = 1, .processors = 1};
    etlb_logfile_header(&b, &lf);
    etlb_buffer_end(&b);
    for (uint32_t n = 1; n <= 3; n++) {
        etlb_buffer_begin(&b, 0, 0);
        etlb_gc_event(&b, 1, n, 1000 * (int64_t)n, 4242, 20);
        etlb_gc_event(&b, 2, n, 1000 * (int64_t)n + 500, 4242, 20);
        etlb_buffer_end(&b);
    }
    put32(b.data + b.buffers[2] + 4, 9999);
    int rc = save("damaged.etl", b.data, b.size);
    etlb_free(&b);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_cli_traces DIR\n");
        return 2;
    }
    dir = argv[1];
    int rc = save("empty.nettrace", NULL, 0);

    gcev_writer *w = writer();
    uint32_t start = define(w, 1, 2), end = define(w, 2, 1);
    uint32_t seq = 1;
    for (uint32_t i = 0; i < 200; i++) {
        gc(w, start, end, i + 1, 1001, &seq, 1000 * (int64_t)i);
    }
    rc |= finish(w, "cut.nettrace", 2, 3);

    w = writer();
    start = define(w, 1, 2);
    end = define(w, 2, 1);
    seq = 1;
    gc(w, start, end, 1, 1001, &seq, 1000);
    uint8_t s[26] = {0}, e[10] = {0};
    put32(s, 2);
    put32(s + 8, 1);
    put32(e, 2);
    emit(w, start, 1001, seq++, 2000, s, sizeof s);
    seq += 7; /* the runtime dropped 7 events of this thread here */
    emit(w, end, 1001, seq++, 2500, e, sizeof e);
    gc(w, start, end, 3, 1001, &seq, 3000);
    rc |= finish(w, "gaps.nettrace", 1, 1);

    w = writer();
    start = define(w, 1, 2);
    uint32_t thread_created = define(w, 85, 0), no_payload = define(w, 86, 0);
    put32(s, 7);
    put32(s + 4, 2);
    put32(s + 8, 1);
    put32(s + 12, 1); /* Type: BackgroundGC */
    uint8_t tc[30];
    for (size_t i = 0; i < sizeof tc; i++) {
        tc[i] = (uint8_t)(0xa0 + i);
    }
    seq = 1;
    emit(w, start, 1001, seq++, 1000, s, sizeof s);
    emit(w, thread_created, 1001, seq++, 1100, tc, sizeof tc);
    emit(w, no_payload, 1001, seq++, 1200, NULL, 0);
    rc |= finish(w, "nongc.nettrace", 1, 1);

    w = writer();
    start = define(w, 1, 2);
    end = define(w, 2, 1);
    thread_created = define(w, 85, 0);
    uint32_t seqs[4] = {1, 1, 1, 1};
    for (uint32_t i = 0; i < 200000; i++) {
        uint32_t k = i % 4;
        if (i % 200 == 0) {
            gc(w, start, end, i / 200 + 1, 1001 + k, &seqs[k], 1000 * (int64_t)i);
        } else {
            emit(w, thread_created, 1001 + k, seqs[k]++, 1000 * (int64_t)i, tc, sizeof tc);
        }
        if (i % 1000 == 999) {
            gcev_writer_sequence_point(w, 1000 * (int64_t)i + 900);
        }
    }
    rc |= finish(w, "big.nettrace", 1, 1);
    rc |= damaged();
    rc |= damaged_etl();
    return rc;
}
