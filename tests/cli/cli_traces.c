/* SPDX-License-Identifier: MIT */
/*
 * Writes the traces the CLI golden tests read (tests/data/cli: dump_mixed.text and the others) into the
 * folder given as argv[1]:
 *   cli_mixed.nettrace      NetTrace V4, compressed headers: a GC (GCStart_V2,
 *                           GCHeapStats_V1, GCEnd_V1) with runtime events that have no
 *                           GC schema (ExceptionThrown_V1, a rundown MethodDCEnd), an
 *                           EventSource event whose string holds quotes and a comma, on
 *                           two threads whose timestamps interleave, a sequence point, and
 *                           ExceptionThrown in two versions (V1 first, then V0).
 *   cli_truncated.nettrace  the same bytes cut inside its last event block.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev_writer.h>

#define RT "Microsoft-Windows-DotNETRuntime"

static int write_file(const char *dir, const char *name, const uint8_t *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "cli_traces: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

static int check(gcev_status st, const char *what)
{
    if (st != GCEV_OK) {
        fprintf(stderr, "cli_traces: %s: %s\n", what, gcev_status_str(st));
        exit(1);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cli_traces DIR\n");
        return 2;
    }
    gcev_writer_options o = {4, 1, 8, 4242, 2, 1000000, 1000};
    gcev_writer *w;
    check(gcev_writer_create(&o, &w), "create");
    static const gcev_trace_field es_fields[] = {{"n", 9, 0, 0, NULL, 0, 0, 0},
                                                 {"s", 18, 0, 0, NULL, 0, 0, 0}};
    gcev_writer_meta metas[] = {
        {RT, 1, 2, 1, 4, 1, "", NULL, 0},                  /* GCStart_V2 */
        {RT, 4, 1, 0, 4, 1, "", NULL, 0},                  /* GCHeapStats_V1 */
        {RT, 2, 1, 2, 4, 1, "", NULL, 0},                  /* GCEnd_V1 */
        {RT, 80, 1, 1, 2, 0x8000, "", NULL, 0},            /* ExceptionThrown_V1: no GC schema */
        {RT "Rundown", 144, 0, 4, 4, 0x10, "", NULL, 0},   /* MethodDCEnd: no GC schema */
        {"MySource", 3, 0, 0, 4, 0, "Note", es_fields, 2}, /* EventSource */
        {RT, 80, 0, 1, 2, 0x8000, "", NULL, 0},            /* ExceptionThrown (V0) */
    };
    uint32_t id[7];
    for (int i = 0; i < 7; i++) {
        check(gcev_writer_define(w, &metas[i], &id[i]), "define");
    }
    uint8_t start[26] = {8, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0x2a};
    uint8_t heap[10 * 8 + 3 * 4 + 2] = {0};
    heap[0] = 0x40; /* GenerationSize0 = 0x1040 */
    heap[1] = 0x10;
    heap[8] = 0x20; /* TotalPromotedSize0 = 0x20 */
    heap[80] = 3;   /* PinnedObjectCount (offset 80 of the V1 layout) */
    uint8_t end[10] = {8, 0, 0, 0, 1, 0, 0, 0, 3, 0};
    uint8_t exc[8] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4};
    uint8_t rundown[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    /* EventSource payload: n = -5, s = he said "hi", ok */
    static const char text[] = "he said \"hi\", ok";
    uint8_t es[4 + 2 * sizeof text] = {0xfb, 0xff, 0xff, 0xff};
    for (size_t i = 0; i < sizeof text; i++) {
        es[4 + 2 * i] = (uint8_t)text[i];
    }
    struct {
        int meta;
        uint64_t tid;
        int64_t ts;
        const uint8_t *p;
        uint32_t n;
    } evs[] = {
        {3, 21, 2000, exc, sizeof exc},         {0, 20, 2500, start, sizeof start},
        {5, 21, 2400, es, sizeof es},           {1, 20, 3000, heap, sizeof heap},
        {4, 22, 3100, rundown, sizeof rundown}, {2, 20, 3200, end, sizeof end},
        {5, 21, 3150, es, sizeof es},           {6, 21, 3300, exc, 4},
    };
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
        if (i == 4) {
            check(gcev_writer_sequence_point(w, 3050), "sequence point");
        }
        gcev_writer_event e = {id[evs[i].meta], evs[i].tid, 0,    0, 1,  evs[i].ts,
                               evs[i].p,        evs[i].n,   NULL, 0, {0}};
        check(gcev_writer_write(w, &e), "write");
    }
    const uint8_t *data;
    size_t size;
    check(gcev_writer_finish(w, &data, &size), "finish");
    /* cut 20 bytes before the end: inside the last event block (its EndObject and the
     * stream's end tag are the last 2 bytes) */
    size_t cut = size - 20;
    int rc = write_file(argv[1], "cli_mixed.nettrace", data, size) ||
             write_file(argv[1], "cli_truncated.nettrace", data, cut);
    gcev_writer_free(w);
    return rc;
}
