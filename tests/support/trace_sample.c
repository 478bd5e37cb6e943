/* SPDX-License-Identifier: MIT */
/*
 * The sample: a GCStart_V2 (runtime provider, 26-byte payload, with a stack)
 * and EventSource events {a:int32, s:string} on two capture threads whose
 * timestamps interleave, a sequence point in the middle.
 * File order of timestamps: 100 300 200 | 400 600 500 (threads 11 12 11 | 11 12 11...).
 */
#include "trace_sample.h"

#include <stdlib.h>
#include <string.h>

static const gcev_trace_field es_fields[] = {
    {"a", 9, 0, 0, NULL, 0, 0, 0},
    {"s", 18, 0, 0, NULL, 0, 0, 0},
};

uint8_t *sample_trace(uint32_t version, int compressed, size_t *size)
{
    gcev_writer_options o = {version, (uint8_t)compressed, 8, 4242, 4, 1000000, 50};
    gcev_writer *w;
    if (gcev_writer_create(&o, &w) != GCEV_OK) {
        return NULL;
    }
    gcev_writer_meta gc = {"Microsoft-Windows-DotNETRuntime", 1, 2, 1, 4, 1, "", NULL, 0};
    /* NetPerf V1 names providers by GUID only. */
    const char *es_name = version == 1 ? SAMPLE_V1_GUID : "MySource";
    gcev_writer_meta es = {es_name, 7, 0, 0, 4, 0xf00000000000ull, "Hello", es_fields, 2};
    uint32_t gc_id, es_id;
    gcev_writer_define(w, &gc, &gc_id);
    gcev_writer_define(w, &es, &es_id);
    /* GCStart_V2: Count=8 Depth=2 Reason=1 Type=0 ClrInstanceID=3 ClientSequenceNumber=9 */
    uint8_t gcp[26] = {8, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 9};
    uint8_t esp[4 + 6] = {0x2a, 0, 0, 0, 'h', 0, 'i', 0, 0, 0};
    uint8_t stack[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    gcev_writer_event e[SAMPLE_EVENTS] = {
        {gc_id, 11, 11, 0, 1, 100, gcp, 26, stack, 16, {0}},
        {es_id, 12, 12, 0, 0, 300, esp, 10, NULL, 0, {0}},
        {es_id, 11, 11, 0, 1, 200, esp, 10, NULL, 0, {0}},
        {gc_id, 11, 11, 0, 1, 400, gcp, 26, NULL, 0, {0}},
        {es_id, 12, 12, 0, 0, 600, esp, 10, NULL, 0, {0}},
        {es_id, 11, 11, 0, 1, 500, esp, 10, NULL, 0, {0}},
    };
    for (int i = 0; i < SAMPLE_EVENTS; i++) {
        if (i == 3) {
            gcev_writer_sequence_point(w, 350);
        }
        gcev_writer_write(w, &e[i]);
    }
    return sample_writer_bytes(w, size);
}

uint8_t *sample_writer_bytes(gcev_writer *w, size_t *size)
{
    const uint8_t *data;
    uint8_t *copy = NULL;
    if (gcev_writer_finish(w, &data, size) == GCEV_OK) {
        copy = malloc(*size);
        if (copy) {
            memcpy(copy, data, *size);
        }
    }
    gcev_writer_free(w);
    return copy;
}
