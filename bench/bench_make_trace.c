/* SPDX-License-Identifier: MIT */
/*
 * Large traces for the benchmarks, made from a real one (the corpus is at most
 * 10 MB; the walk's limits only show on 30-60 MB files). Written into the build
 * tree by bench/instructions.sh and bench/whole_process.sh, never committed.
 *
 *   bench_make_trace replicate IN.nettrace OUT COPIES
 *       NetTrace V4/V5: the objects between the first and the last sequence
 *       point (SPBlock) repeated COPIES times, metadata blocks only in the
 *       first copy. Every byte of every event block is the runtime's own
 *       (compressed headers, stacks, sequence points), so the walk does the
 *       work a real trace of that size asks for; timestamps and sequence
 *       numbers restart in each copy (after a sequence point, so time order
 *       still holds between barriers).
 *   bench_make_trace rewrite IN OUT FORMAT COPIES
 *       Every event of IN, COPIES times (timestamps shifted to keep rising),
 *       written by the trace writer as NetPerf V1-V3 / NetTrace V4-V6
 *       (FORMAT 1..6; V4-V6 with compressed headers). Stacks are kept for
 *       V1-V3 (inline) and dropped for V4-V6 (the writer gives each stack its
 *       own block); a sequence point every 4096 events bounds V4-V6 blocks.
 */
#include <gcev/gcev_writer.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = sz > 0 ? malloc((size_t)sz) : NULL;
    if (p && fread(p, 1, (size_t)sz, f) != (size_t)sz) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *n = p ? (size_t)sz : 0;
    return p;
}

static int spill(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "bench_make_trace: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- replicate: FastSerialization objects re-emitted with their padding ---- */

typedef struct object {
    size_t type_at, type_len; /* the type header: tags, versions, name, EndObject */
    size_t body_at, body_len;
    char name[32];
} object;

typedef struct obuf {
    uint8_t *p;
    size_t n, cap;
} obuf;

static void put(obuf *o, const void *p, size_t n)
{
    if (o->cap - o->n < n) {
        while (o->cap - o->n < n) {
            o->cap = o->cap ? o->cap * 2 : 1 << 20;
        }
        o->p = realloc(o->p, o->cap);
        if (!o->p) {
            fprintf(stderr, "bench_make_trace: out of memory\n");
            exit(1);
        }
    }
    memcpy(o->p + o->n, p, n);
    o->n += n;
}

/* One object: BeginPrivateObject, type header, size, padding to a 4-byte offset, body, EndObject. */
static void put_object(obuf *o, const uint8_t *file, const object *ob)
{
    static const uint8_t zeros[4], end = 6;
    put(o, file + ob->type_at, ob->type_len);
    uint8_t sz[4] = {(uint8_t)ob->body_len, (uint8_t)(ob->body_len >> 8), (uint8_t)(ob->body_len >> 16),
                     (uint8_t)(ob->body_len >> 24)};
    put(o, sz, 4);
    put(o, zeros, (4 - o->n % 4) % 4);
    put(o, file + ob->body_at, ob->body_len);
    put(o, &end, 1);
}

static int replicate(const char *in, const char *out, long copies)
{
    size_t n;
    uint8_t *b = slurp(in, &n);
    if (!b || n < 40 || memcmp(b, "Nettrace", 8) != 0 || rd32(b + 8) != 20) {
        fprintf(stderr, "bench_make_trace: %s is not a NetTrace V4/V5 file\n", in);
        return 1;
    }
    /* stream header, then the Trace object: type header (14 + name + 1) + 48 bytes + EndObject */
    size_t pos = 12 + 20;
    if (b[pos] != 5) {
        return 1;
    }
    size_t trace_end = pos + 1 + 14 + rd32(b + pos + 1 + 10) + 1 + 48 + 1;
    object *obs = NULL;
    size_t nobs = 0, cap = 0;
    pos = trace_end;
    while (pos < n && b[pos] == 5) {
        if (nobs == cap) {
            cap = cap ? cap * 2 : 256;
            obs = realloc(obs, cap * sizeof *obs);
        }
        object *ob = &obs[nobs++];
        size_t name_len = rd32(b + pos + 1 + 10);
        ob->type_at = pos;
        ob->type_len = 1 + 14 + name_len + 1;
        snprintf(ob->name, sizeof ob->name, "%.*s", (int)(name_len < 31 ? name_len : 31),
                 (const char *)b + pos + 15);
        pos += ob->type_len;
        ob->body_len = rd32(b + pos);
        pos += 4;
        pos += (4 - pos % 4) % 4;
        ob->body_at = pos;
        pos += ob->body_len + 1;
    }
    size_t first_sp = nobs, last_sp = nobs;
    for (size_t i = 0; i < nobs; i++) {
        if (!strcmp(obs[i].name, "SPBlock")) {
            last_sp = i;
            if (first_sp == nobs) {
                first_sp = i;
            }
        }
    }
    if (first_sp == nobs || first_sp == last_sp) {
        fprintf(stderr, "bench_make_trace: %s has fewer than two sequence points\n", in);
        return 1;
    }
    obuf o = {0};
    put(&o, b, trace_end);
    for (size_t i = 0; i < nobs; i++) {
        put_object(&o, b, &obs[i]);
        if (i == last_sp) {
            for (long c = 1; c < copies; c++) {
                for (size_t k = first_sp + 1; k <= last_sp; k++) {
                    if (strcmp(obs[k].name, "MetadataBlock") != 0) {
                        put_object(&o, b, &obs[k]);
                    }
                }
            }
        }
    }
    static const uint8_t null_tag = 1;
    put(&o, &null_tag, 1);
    int rc = spill(out, o.p, o.n);
    printf("%s: %zu bytes (%ld copies of objects %zu..%zu of %s)\n", out, o.n, copies, first_sp + 1, last_sp,
           in);
    free(o.p);
    free(obs);
    free(b);
    return rc;
}

/* ---- rewrite: every event again through the trace writer ---- */

typedef struct meta_key {
    char *provider, *name;
    uint16_t id, version;
    uint32_t meta_id;
} meta_key;

static char *dup(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *d = malloc(n);
    memcpy(d, s ? s : "", n);
    return d;
}

static int rewrite(const char *in, const char *out, unsigned format, long copies)
{
    gcev_trace *t;
    gcev_error err;
    if (gcev_trace_open_file(in, NULL, &t, &err) != GCEV_OK) {
        fprintf(stderr, "bench_make_trace: %s: %s\n", in, err.message);
        return 1;
    }
    const gcev_trace_info *info = gcev_trace_get_info(t);
    gcev_writer_options wo = {format,
                              format >= 4,
                              format <= 2 ? 8 : info->pointer_size,
                              info->process_id,
                              info->processor_count,
                              info->clock_frequency,
                              info->sync_time_qpc};
    gcev_writer *w;
    if (gcev_writer_create(&wo, &w) != GCEV_OK) {
        fprintf(stderr, "bench_make_trace: the writer refuses format %u\n", format);
        return 1;
    }
    /* the events of IN, kept to be written COPIES times */
    typedef struct rec {
        uint32_t meta;
        gcev_writer_event e;
    } rec;
    rec *recs = NULL;
    size_t nrecs = 0, cap = 0;
    meta_key *keys = NULL;
    size_t nkeys = 0;
    int64_t first_ts = 0, last_ts = 0;
    gcev_trace_event ev;
    while (gcev_trace_next(t, &ev, NULL) == GCEV_OK) {
        size_t k;
        for (k = 0; k < nkeys; k++) {
            if (keys[k].id == ev.event_id && keys[k].version == ev.version &&
                !strcmp(keys[k].provider, ev.provider_name) && !strcmp(keys[k].name, ev.event_name)) {
                break;
            }
        }
        if (k == nkeys) {
            keys = realloc(keys, (nkeys + 1) * sizeof *keys);
            keys[k] = (meta_key){dup(ev.provider_name), dup(ev.event_name), ev.event_id, ev.version, 0};
            gcev_writer_meta m = {keys[k].provider, ev.event_id,  (uint8_t)ev.version, ev.opcode, ev.level,
                                  ev.keywords,      keys[k].name, ev.fields,           ev.nfields};
            if (gcev_writer_define(w, &m, &keys[k].meta_id) != GCEV_OK) {
                m.fields = NULL; /* a field list this format cannot hold: the payload stays opaque */
                m.nfields = 0;
                if (gcev_writer_define(w, &m, &keys[k].meta_id) != GCEV_OK) {
                    fprintf(stderr, "bench_make_trace: cannot define %s/%u\n", keys[k].provider, ev.event_id);
                    return 1;
                }
            }
            nkeys++;
        }
        if (nrecs == cap) {
            cap = cap ? cap * 2 : 4096;
            recs = realloc(recs, cap * sizeof *recs);
        }
        uint8_t *payload = malloc(ev.payload_size ? ev.payload_size : 1);
        memcpy(payload, ev.payload ? ev.payload : (const uint8_t *)"", ev.payload_size);
        uint8_t *stack = NULL;
        if (format <= 3 && ev.stack && ev.stack_size) {
            stack = malloc(ev.stack_size);
            memcpy(stack, ev.stack, ev.stack_size);
        }
        gcev_writer_event e = {
            keys[k].meta_id, ev.thread_id, ev.capture_thread_id, 0,     ev.processor,
            ev.timestamp,    payload,      ev.payload_size,      stack, stack ? ev.stack_size : 0,
            ev.activity_id};
        if (e.processor == UINT32_MAX) {
            e.processor = 0;
        }
        recs[nrecs++] = (rec){keys[k].meta_id, e};
        if (nrecs == 1) {
            first_ts = ev.timestamp;
        }
        last_ts = ev.timestamp;
    }
    gcev_trace_close(t);
    int64_t span = last_ts - first_ts + 1;
    size_t written = 0;
    for (long c = 0; c < copies; c++) {
        for (size_t i = 0; i < nrecs; i++) {
            gcev_writer_event e = recs[i].e;
            e.timestamp += c * span;
            if (gcev_writer_write(w, &e) != GCEV_OK) {
                fprintf(stderr, "bench_make_trace: write failed\n");
                return 1;
            }
            if (++written % 4096 == 0) {
                gcev_writer_sequence_point(w, e.timestamp);
            }
        }
    }
    const uint8_t *data;
    size_t size;
    if (gcev_writer_finish(w, &data, &size) != GCEV_OK) {
        fprintf(stderr, "bench_make_trace: finish failed\n");
        return 1;
    }
    int rc = spill(out, data, size);
    printf("%s: %zu bytes, %zu events (format %u, %ld copies of %s)\n", out, size, written, format, copies,
           in);
    gcev_writer_free(w);
    for (size_t i = 0; i < nrecs; i++) {
        free((void *)recs[i].e.payload);
        free((void *)recs[i].e.stack);
    }
    for (size_t k = 0; k < nkeys; k++) {
        free(keys[k].provider);
        free(keys[k].name);
    }
    free(keys);
    free(recs);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "replicate")) {
        return replicate(argv[2], argv[3], atol(argv[4]));
    }
    if (argc == 6 && !strcmp(argv[1], "rewrite")) {
        return rewrite(argv[2], argv[3], (unsigned)atoi(argv[4]), atol(argv[5]));
    }
    fprintf(stderr, "usage: bench_make_trace replicate IN.nettrace OUT COPIES\n"
                    "       bench_make_trace rewrite IN OUT FORMAT(1-6) COPIES\n");
    return 2;
}
