/* SPDX-License-Identifier: MIT */
/*
 * Builds the fuzzers' seed corpora (kept in the build tree, never in the repo):
 *   fuzz_seeds OUT_DIR SOURCE_DIR [SHARED_DIR]
 * OUT_DIR/decode, format: every event version of every provider as a
 *   zero payload of its minimum size (both pointer sizes), the shared fixtures'
 *   real payloads, and the first payloads per event version of the corpus traces;
 * OUT_DIR/nettrace: the writer's sample traces (the reader tests' input) in
 *   every format version, and the corpus .nettrace/.netperf traces cut to their
 *   first 12 KiB and 2 KiB (whole in OUT_DIR-full, for tests/fuzz/long.sh);
 * OUT_DIR/etl: a trace from the ETL record builder of the tests, and the corpus .etl
 *   cut to 24 KiB and 2 KiB (whole in OUT_DIR-full);
 * both also get a sample in ZIP archives (stored; deflated next to a symbol file), so
 *   the harnesses reach the archive path (gcev_archive.c);
 * OUT_DIR/xpress: the compressed buffers of the corpus and of a relogged builder trace,
 *   and hand-made Plain LZ77 streams, in fuzz_xpress's framing;
 * OUT_DIR/manifest: the .man files of manifest/ and tests/manifests/ up to 16 KiB
 *   (all of them in OUT_DIR-full).
 * Inputs of fuzz_decode/fuzz_format are framed as fuzz_common.h describes.
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_common.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "etl_builder.h"
#include "xpress_writer.h"
#include "zip_builder.h"
#include "gcev_read.h"
#include "trace_sample.h"

/* Seeds of the CI runs are small (the first blocks of a trace), so that a harness runs
 * thousands of inputs a second: a 1 MB seed held fuzz_nettrace at 44 executions/s. The
 * whole traces and manifests go to OUT_DIR-full, for tests/fuzz/long.sh. */
enum { MAX_TRACE_SEED = 12 * 1024, MAX_ETL_SEED = 24 * 1024, MAX_TEXT_SEED = 16 * 1024, PER_VERSION = 3 };

static const char *out_dir;
static char full_dir[4096];
static unsigned nwritten;

static void put_in(const char *dir, const char *sub, const char *name, const void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "fuzz_seeds: cannot write %s\n", path);
        exit(1);
    }
    nwritten++;
}

static void put(const char *sub, const char *name, const void *data, size_t size)
{
    put_in(out_dir, sub, name, data, size);
}

/* A whole input for the long runs only (tests/fuzz/long.sh). */
static void put_full(const char *sub, const char *name, const void *data, size_t size)
{
    put_in(full_dir, sub, name, data, size);
}

static void xpress_buffers(const char *tag, const uint8_t *d, size_t size);

static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

static size_t provider_index(const gcev_provider *p)
{
    size_t np = 0;
    const gcev_provider *const *ps = gcev_providers(&np);
    for (size_t i = 0; i < np; i++) {
        if (ps[i] == p) {
            return i;
        }
    }
    return 0;
}

static void put_decode(const char *name, const gcev_provider *p, unsigned id, unsigned version, unsigned ps,
                       const uint8_t *payload, size_t n)
{
    uint8_t *b = malloc(FUZZ_DECODE_HEADER + n);
    if (!b) {
        return;
    }
    b[0] = (uint8_t)provider_index(p);
    b[1] = (uint8_t)id;
    b[2] = (uint8_t)(id >> 8);
    b[3] = (uint8_t)version;
    b[4] = (uint8_t)(version >> 8);
    b[5] = (uint8_t)((ps == 8) | (11 << 1)); /* short-buffer size 11 for the formatter checks */
    if (n) {
        memcpy(b + FUZZ_DECODE_HEADER, payload, n);
    }
    put("decode", name, b, FUZZ_DECODE_HEADER + n);
    put("format", name, b, FUZZ_DECODE_HEADER + n);
    free(b);
}

static void schema_seeds(void)
{
    size_t np = 0;
    const gcev_provider *const *ps = gcev_providers(&np);
    uint8_t zeros[4096] = {0};
    for (size_t i = 0; i < np; i++) {
        for (uint16_t e = 0; e < ps[i]->nevents; e++) {
            const gcev_event_desc *d = &ps[i]->events[e];
            for (unsigned psz = 4; psz <= 8; psz += 4) {
                size_t n = d->tmpl ? d->tmpl->min_size[psz == 8] : 0;
                char name[128];
                snprintf(name, sizeof name, "schema-%zu-%u-v%u-p%u", i, d->id, d->version, psz);
                put_decode(name, ps[i], d->id, d->version, psz, zeros, n < sizeof zeros ? n : 0);
            }
        }
    }
}

static int hexval(int c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static long json_int(const char *line, const char *key)
{
    const char *k = strstr(line, key);
    return k ? strtol(k + strlen(key), NULL, 10) : -1;
}

static void fixture_seeds(const char *shared)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/gc_payloads.jsonl", shared);
    FILE *f = fopen(path, "r");
    if (!f) {
        return;
    }
    static char line[1 << 20];
    static uint8_t payload[1 << 19];
    unsigned k = 0;
    while (fgets(line, sizeof line, f)) {
        char *pv = strstr(line, "\"provider\": \"");
        char *hx = strstr(line, "\"payload_hex\": \"");
        if (!pv || !hx) {
            continue;
        }
        pv += strlen("\"provider\": \"");
        char *pe = strchr(pv, '"');
        if (!pe) {
            continue;
        }
        *pe = '\0';
        const gcev_provider *p = gcev_provider_find(pv);
        *pe = '"';
        long id = json_int(line, "\"id\": "), ver = json_int(line, "\"version\": "),
             psz = json_int(line, "\"pointer_size\": ");
        if (!p || id < 0 || ver < 0) {
            continue;
        }
        hx += strlen("\"payload_hex\": \"");
        size_t n = 0;
        while (hexval(hx[0]) >= 0 && hexval(hx[1]) >= 0 && n < sizeof payload) {
            payload[n++] = (uint8_t)(hexval(hx[0]) << 4 | hexval(hx[1]));
            hx += 2;
        }
        char name[64];
        snprintf(name, sizeof name, "fixture-%03u", k++);
        put_decode(name, p, (unsigned)id, (unsigned)ver, psz == 4 ? 4 : 8, payload, n);
    }
    fclose(f);
}

/* The first payloads of each known event version in a trace. */
static void trace_payload_seeds(const char *tag, const uint8_t *data, size_t size)
{
    gcev_trace *t;
    gcev_error err;
    if (gcev_trace_open_memory(data, size, NULL, &t, &err) != GCEV_OK) {
        return;
    }
    struct seen {
        const gcev_provider *p;
        uint16_t id, version;
        unsigned n;
    } seen[1024];
    size_t nseen = 0;
    gcev_trace_event ev;
    unsigned k = 0;
    while (gcev_trace_next(t, &ev, &err) == GCEV_OK) {
        if (!ev.provider) {
            continue;
        }
        size_t i = 0;
        while (i < nseen &&
               !(seen[i].p == ev.provider && seen[i].id == ev.event_id && seen[i].version == ev.version)) {
            i++;
        }
        if (i == nseen) {
            if (nseen == sizeof seen / sizeof seen[0]) {
                continue;
            }
            seen[nseen++] = (struct seen){ev.provider, ev.event_id, ev.version, 0};
        }
        if (seen[i].n++ >= PER_VERSION) {
            continue;
        }
        char name[128];
        snprintf(name, sizeof name, "%s-%u", tag, k++);
        put_decode(name, ev.provider, ev.event_id, ev.version, ev.pointer_size, ev.payload, ev.payload_size);
    }
    gcev_trace_close(t);
}

/* A real trace: its first blocks (header, metadata, the first events) for the CI runs, a
 * smaller cut too, and the whole trace for the long runs. */
static void trace_seed(const char *sub, const char *name, const uint8_t *data, size_t size)
{
    size_t most = strcmp(sub, "etl") == 0 ? MAX_ETL_SEED : MAX_TRACE_SEED;
    char cut[300];
    put(sub, name, data, size < most ? size : most);
    if (size > 2048) {
        snprintf(cut, sizeof cut, "%s-2k", name);
        put(sub, cut, data, 2048);
    }
    put_full(sub, name, data, size);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void corpus_seeds(const char *shared)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/corpus", shared);
    DIR *d = opendir(dir);
    if (!d) {
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int etl = ends_with(de->d_name, ".etl");
        if (!etl && !ends_with(de->d_name, ".nettrace") && !ends_with(de->d_name, ".netperf")) {
            continue;
        }
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        size_t size = 0;
        uint8_t *data = slurp(path, &size);
        if (!data) {
            continue;
        }
        trace_seed(etl ? "etl" : "nettrace", de->d_name, data, size);
        if (etl) {
            xpress_buffers(de->d_name, data, size);
        }
        trace_payload_seeds(de->d_name, data, size);
        free(data);
    }
    closedir(d);
}

/* The trace as PerfView zips it: deflated, next to a symbol file; and stored alone. */
static void zip_seed(const char *sub, const char *name, const uint8_t *data, size_t size)
{
    char entry[64], out[80];
    snprintf(entry, sizeof entry, "%s.%s", name, strcmp(sub, "etl") == 0 ? "etl" : "nettrace");
    for (int method = 0; method <= 1; method++) {
        zipb_entry e[] = {{entry, data, size, method ? ZIPB_DEFLATE : ZIPB_STORE, 0},
                          {"symbols/app.pdb", "RSDS", 4, ZIPB_STORE, 0}};
        size_t n = 0;
        uint8_t *z = zipb_build(e, method ? 2 : 1, &n);
        if (z) {
            snprintf(out, sizeof out, "%s-%s.zip", name, method ? "deflate" : "store");
            put(sub, out, z, n);
            free(z);
        }
    }
}

static void sample_seeds(void)
{
    for (uint32_t v = 1; v <= 6; v++) {
        for (int c = 0; c <= 1; c++) {
            size_t size = 0;
            uint8_t *t = sample_trace(v, c, &size);
            if (!t) {
                continue;
            }
            char name[64];
            for (uint8_t mode = 0; mode < 4; mode++) {
                /* the last byte picks the harness mode (fuzz_trace_common.h) */
                snprintf(name, sizeof name, "sample-v%u-c%d-m%u", v, c, mode);
                if (mode) {
                    t[size - 1] = (uint8_t)((t[size - 1] & ~3u) | mode);
                }
                put("nettrace", name, t, size);
            }
            if (v == 5) {
                zip_seed("nettrace", "sample-v5", t, size);
            }
            free(t);
        }
    }
}

static void etl_seed(void)
{
    static const char *const guids[] = {"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4",
                                        "11111111-2222-3333-4444-555555555555"};
    gcev_guid runtime, other;
    gcev_guid_parse(guids[0], &runtime);
    gcev_guid_parse(guids[1], &other);
    for (unsigned psz = 4; psz <= 8; psz += 4) {
        etlb b;
        etlb_logfile lf = {(uint8_t)psz, 1000, 10000000, 1, 2304, 4, 0, 0, 0x01d7a58b4c3947ce};
        etlb_init(&b, 1024);
        etlb_buffer_begin(&b, 0, 0);
        etlb_logfile_header(&b, &lf);
        uint8_t zeros[48] = {0};
        etlb_kernel(&b, psz == 8 ? 2 : 1, 2, 0x0050, 100, 200, 1000, zeros, sizeof zeros);
        etlb_buffer_end(&b);
        etlb_buffer_begin(&b, 1, 0);
        uint8_t gcp[26] = {8, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 9};
        uint8_t stack[8 + 2 * 8] = {0};
        etlb_ext ext[] = {{6, stack, sizeof stack}};
        etlb_event e = {.header_type = psz == 8 ? 0x13 : 0x12,
                        .pid = 11,
                        .tid = 12,
                        .ts = 5000,
                        .provider = runtime,
                        .id = 1,
                        .version = 2,
                        .level = 4,
                        .opcode = 1,
                        .keywords = 1,
                        .ext = ext,
                        .next = 1,
                        .payload = gcp,
                        .payload_size = 26};
        etlb_event_record(&b, &e);
        uint8_t p8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        etlb_classic(&b, psz == 8 ? 0x14 : 0x0a, &other, 7, 3, 2, 61, 62, 9200, p8, 3);
        etlb_buffer_end(&b);
        char name[32];
        snprintf(name, sizeof name, "builder-p%u", psz);
        put("etl", name, b.data, b.size);
        zip_seed("etl", name, b.data, b.size);
        size_t zn = 0;
        uint8_t *z = etlb_relog_compressed(&b, 1, &zn, NULL);
        if (z) {
            snprintf(name, sizeof name, "builder-p%u-compressed", psz);
            put("etl", name, z, zn);
            xpress_buffers(name, z, zn);
            free(z);
        }
        etlb_free(&b);
    }
}

/* fuzz_xpress framing: mode, inflated size (u16), the stream. */
static void put_xpress(const char *name, uint8_t mode, size_t inflated, const uint8_t *stream, size_t n)
{
    uint8_t *seed = malloc(n + 3);
    if (!seed || inflated > 0xffff) {
        free(seed);
        return;
    }
    seed[0] = mode;
    seed[1] = (uint8_t)inflated;
    seed[2] = (uint8_t)(inflated >> 8);
    memcpy(seed + 3, stream, n);
    put("xpress", name, seed, n + 3);
    free(seed);
}

/* Every compressed buffer of an ETL file, as fuzz_xpress inputs (modes 0 and 7). */
static void xpress_buffers(const char *tag, const uint8_t *d, size_t size)
{
    unsigned k = 0;
    for (size_t at = 0; at + 0x48 <= size;) {
        uint32_t bs = (uint32_t)(d[at] | d[at + 1] << 8 | d[at + 2] << 16 | (uint32_t)d[at + 3] << 24);
        uint32_t used = (uint32_t)(d[at + 4] | d[at + 5] << 8 | d[at + 6] << 16 | (uint32_t)d[at + 7] << 24);
        if (bs < 0x48 || bs > size - at) {
            break;
        }
        if ((d[at + 0x34] & 0x40) && used >= 0x48) {
            char name[160];
            for (uint8_t mode = 0; mode < 8; mode += 7) {
                snprintf(name, sizeof name, "%s-buffer%u-m%u", tag, k, mode);
                put_xpress(name, mode, used - 0x48, d + at + 0x48, bs - 0x48);
            }
        }
        at += bs;
        k++;
    }
}

/* Hand-made streams: every length encoding, shared half bytes, the largest offset. */
static void xpress_streams(void)
{
    xw w;
    xw_init(&w);
    size_t out = 0;
    for (int i = 0; i < 40; i++) {
        xw_literal(&w, (uint8_t)('a' + i % 26));
        out++;
    }
    static const uint32_t lengths[] = {3, 9, 10, 24, 25, 279, 280, 1000, 9000};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        xw_match(&w, (uint32_t)(1 + i * 4), lengths[i]);
        out += lengths[i];
    }
    size_t n = 0;
    const uint8_t *st = xw_finish(&w, &n);
    put_xpress("encodings-m0", 0, out, st, n);
    put_xpress("encodings-m4", 4, out, st, n);
    xw_free(&w);
    xw_init(&w);
    for (int i = 0; i < 8192; i++) {
        xw_literal(&w, (uint8_t)(i * 7));
    }
    xw_match(&w, 8192, 70000 - 8192);
    st = xw_finish(&w, &n);
    put_xpress("far-offset-past-64k", 0, 65535, st, n);
    xw_free(&w);
}

static void manifest_seeds(const char *src, const char *sub)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", src, sub);
    DIR *d = opendir(dir);
    if (!d) {
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!ends_with(de->d_name, ".man")) {
            continue;
        }
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        size_t size = 0;
        uint8_t *data = slurp(path, &size);
        if (data) {
            if (size <= MAX_TEXT_SEED) {
                put("manifest", de->d_name, data, size);
            }
            put_full("manifest", de->d_name, data, size); /* the big runtime manifests: long runs */
            free(data);
        }
    }
    closedir(d);
}

/* IPC replies (fuzz_ipc): OK with a session id, an error HRESULT, a ProcessInfo2 payload. */
static void ipc_seeds(void)
{
    static const uint8_t magic[14] = {'D', 'O', 'T', 'N', 'E', 'T', '_', 'I', 'P', 'C', '_', 'V', '1', 0};
    uint8_t b[256];
    memcpy(b, magic, 14);
    const uint8_t ok[] = {28, 0, 0xFF, 0x00, 0, 0, 0x34, 0x12, 0, 0, 0, 0, 0, 0};
    memcpy(b + 14, ok, sizeof ok);
    put("ipc", "ok", b, 14 + sizeof ok);
    const uint8_t error[] = {24, 0, 0xFF, 0xFF, 0, 0, 0x85, 0x13, 0x13, 0x80};
    memcpy(b + 14, error, sizeof error);
    put("ipc", "error", b, 14 + sizeof error);
    /* ProcessInfo2: pid, cookie, then five strings (u32 units with the NUL, UTF-16LE) */
    size_t n = 20;
    memset(b + n, 0, 24);
    b[n] = 7;
    n += 24;
    static const char *const strs[] = {"/usr/bin/app run", "Linux", "x64", "app", "10.0.12"};
    for (size_t i = 0; i < 5; i++) {
        uint32_t units = (uint32_t)strlen(strs[i]) + 1;
        memcpy(b + n, &units, 4);
        n += 4;
        for (uint32_t k = 0; k < units; k++) {
            b[n++] = (uint8_t)strs[i][k];
            b[n++] = 0;
        }
    }
    b[14] = (uint8_t)n;
    b[15] = 0;
    b[16] = 0xFF;
    b[17] = 0x00;
    b[18] = b[19] = 0;
    put("ipc", "process_info2", b, n);
}

/* fuzz_report: options, four facts (markup and invalid UTF-8), then 7-byte GC records. */
static void report_seeds(void)
{
    uint8_t b[6 + 12 + 7 * 64];
    static const char facts[] = "</script>\xff\x01app\xc3";
    b[0] = 0;
    b[1] = 0;
    for (int i = 0; i < 4; i++) {
        b[2 + i] = 3;
    }
    memcpy(b + 6, facts, 12);
    size_t n = 18;
    for (int g = 0; g < 64; g++) {
        uint8_t *r = b + n;
        r[0] =
            (uint8_t)((g % 3) | (g % 9 == 8 ? 1 << 2 : 0) | (g == 30 ? 0x10 : 0) | (g % 17 == 0 ? 0x80 : 0));
        r[1] = (uint8_t)(40 + g);
        r[2] = 0;
        r[3] = (uint8_t)(g * 37);
        r[4] = (uint8_t)(g == 40 ? 60 : 2);
        r[5] = (uint8_t)(3 + g % 5);
        r[6] = (uint8_t)(10 + g / 8);
        n += 7;
    }
    put("report", "mixed", b, n);
    b[0] = 8; /* 64 marks: decimated */
    put("report", "decimated", b, n);
    put("report", "facts-only", b, 18);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fuzz_seeds OUT_DIR SOURCE_DIR [SHARED_DIR]\n");
        return 2;
    }
    out_dir = argv[1];
    snprintf(full_dir, sizeof full_dir, "%s-full", out_dir);
    if ((mkdir(out_dir, 0777) != 0 && errno != EEXIST) || (mkdir(full_dir, 0777) != 0 && errno != EEXIST)) {
        fprintf(stderr, "fuzz_seeds: cannot create %s\n", out_dir);
        return 1;
    }
    schema_seeds();
    sample_seeds();
    xpress_streams();
    etl_seed();
    ipc_seeds();
    report_seeds();
    manifest_seeds(argv[2], "manifest");
    manifest_seeds(argv[2], "tests/manifests");
    if (argc > 3) {
        fixture_seeds(argv[3]);
        corpus_seeds(argv[3]);
    }
    printf("fuzz_seeds: %u seed files in %s\n", nwritten, out_dir);
    return 0;
}
