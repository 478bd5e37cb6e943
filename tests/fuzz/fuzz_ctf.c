/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: the CTF (LTTng) reader on a trace folder given as one input
 * (fuzz_ctf.h): the TSDL parser on the metadata, then every stream's packets
 * and events merged in time order, each event's payload rebuilt (and decoded
 * when it has an id). Files are served from memory or through short reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_ctf.h"
#include "fuzz_trace_common.h"
#include "gcev_ctf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct set {
    fuzz_ctf_file files[FUZZ_CTF_MAX_FILES];
    uint8_t *copies[FUZZ_CTF_MAX_FILES];
    const char *names[FUZZ_CTF_MAX_FILES];
    size_t n;
    uint8_t mode;
} set;

typedef struct rd {
    const uint8_t *data;
    size_t size, pos, chunk;
} rd;

static rd readers[FUZZ_CTF_MAX_FILES];

static long long rd_read(void *ctx, void *buf, size_t n)
{
    rd *r = ctx;
    size_t k = r->size - r->pos;
    k = k < n ? k : n;
    k = k < r->chunk ? k : r->chunk;
    memcpy(buf, r->data + r->pos, k);
    r->pos += k;
    return (long long)k;
}

static gcev_status set_open(void *ctx, size_t i, gcev_source *src, gcev_error *err)
{
    (void)err;
    set *s = ctx;
    if (i > 0 && (s->mode & 1)) {
        rd *r = &readers[i];
        r->data = s->copies[i];
        r->size = s->files[i].size;
        r->pos = 0;
        r->chunk = (size_t)1 << ((s->mode >> 1) & 7);
        return gcev_source_init_reader(src, rd_read, r);
    }
    return gcev_source_init_memory(src, s->copies[i], s->files[i].size);
}

static void set_free(void *ctx)
{
    set *s = ctx;
    for (size_t i = 0; i < s->n; i++) {
        free(s->copies[i]);
    }
    free(s);
}

static const char *const NAMES[FUZZ_CTF_MAX_FILES] = {
    "trace/metadata",   "trace/channel0_0", "trace/channel0_1", "trace/channel0_2", "trace/channel0_3",
    "trace/channel0_4", "trace/channel0_5", "trace/channel0_6", "trace/channel0_7"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    set *s = calloc(1, sizeof *s);
    if (!s) {
        return 0;
    }
    s->n = fuzz_ctf_split(data, size, &s->mode, s->files);
    for (size_t i = 0; i < s->n; i++) {
        /* exact-size copies so ASan sees any read past a file's end */
        s->copies[i] = malloc(s->files[i].size ? s->files[i].size : 1);
        if (!s->copies[i]) {
            set_free(s);
            return 0;
        }
        memcpy(s->copies[i], s->files[i].data, s->files[i].size);
        s->names[i] = NAMES[i];
    }
    if (s->n == 0) {
        free(s);
        return 0;
    }
    /* what gcev_trace_open_file does for a folder, on an in-memory file set */
    gcev_trace *t = calloc(1, sizeof *t);
    if (!t) {
        set_free(s);
        return 0;
    }
    t->sticky = GCEV_OK;
    t->src.fd = -1;
    t->opts.max_block_size = 16u << 20;
    t->opts.keep_going = (s->mode >> 4) & 1; /* fuzz_ctf.h: mode bit 4 */
    gcev_ctf_files f = {s->n, s->names, set_open, s, set_free};
    gcev_error err = {0};
    gcev_status st = gcev_ctf_open(t, &f, &err);
    if (st != GCEV_OK) {
        FUZZ_CHECK(err.code == st && err.message != NULL);
        gcev_trace_close(t);
        return 0;
    }
    gcev_trace_event ev;
    uint64_t events = 0;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        FUZZ_CHECK(ev.payload_size == 0 || ev.payload != NULL);
        FUZZ_CHECK(ev.provider_name && ev.event_name);
        FUZZ_CHECK(!ev.no_event_id || ev.provider == NULL);
        if (ev.provider && events < 256) {
            gcev_input in = {.struct_size = sizeof in,
                             .provider = ev.provider,
                             .event_id = ev.event_id,
                             .version = ev.version,
                             .pointer_size = ev.pointer_size,
                             .data = ev.payload,
                             .size = ev.payload_size};
            gcev_event dec;
            gcev_error derr;
            if (gcev_decode(&in, &dec, &derr) == GCEV_OK) {
                fuzz_exercise_event(&dec, 17, 1);
            }
        }
        events++;
    }
    FUZZ_CHECK(st != GCEV_OK);
    if (st != GCEV_END) {
        FUZZ_CHECK(err.code == st && err.message != NULL);
        gcev_error again;
        FUZZ_CHECK(gcev_trace_next(t, &ev, &again) == st);
    }
    /* offsets are into the stream file each message names: no order across files */
    fuzz_check_skips(t, t->opts.keep_going, UINT64_MAX, 0);
    gcev_trace_close(t);
    return 0;
}
