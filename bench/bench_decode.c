/* SPDX-License-Identifier: MIT */
/*
 * Decode throughput, printed as ratios against work on the same bytes in the
 * same run: a memcpy of every payload (the memory-bandwidth floor) and the
 * generic field-walking path (decode + iterate every field).
 *
 *   bench_decode [--fixtures PATH] [--seconds S] [--loop-only N]
 *
 * Input: the real payload mix of gc_payloads.jsonl (default
 * $GCEV_SHARED_DIR/fixtures/gc_payloads.jsonl) when present, and always a
 * synthetic mix of fixed-size GC events encoded with gcev_encode().
 * --loop-only N runs just N passes of the fixed-size decode loop (for
 * `valgrind --tool=callgrind --toggle-collect=decode_loop`: instructions/event).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <gcev/gcev.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct item {
    gcev_input in;
} item;

typedef struct mix {
    item *items;
    size_t n, cap;
    uint8_t *arena;
    size_t used, arena_cap;
    size_t bytes;
} mix;

static void mix_add(mix *m, const gcev_provider *p, uint16_t id, uint16_t version, uint8_t ps,
                    const uint8_t *data, size_t size)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 256;
        m->items = realloc(m->items, m->cap * sizeof *m->items);
    }
    if (m->used + size > m->arena_cap) {
        fprintf(stderr, "bench: arena full\n");
        exit(1);
    }
    memcpy(m->arena + m->used, data, size);
    item *it = &m->items[m->n++];
    it->in = (gcev_input){p, id, version, ps, m->arena + m->used, size};
    m->used += size;
    m->bytes += size;
}

static int hv(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : (c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1);
}

/* The fixture lines are flat enough to pick fields with strstr. */
static int load_fixtures(mix *m, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        return 0;
    }
    static char line[1 << 20];
    static uint8_t bytes[1 << 19];
    while (fgets(line, sizeof line, f)) {
        char prov[128];
        unsigned id, ver, ps;
        const char *p = strstr(line, "\"provider\": \"");
        const char *i = strstr(line, "\"id\": ");
        const char *v = strstr(line, "\"version\": ");
        const char *s = strstr(line, "\"pointer_size\": ");
        const char *h = strstr(line, "\"payload_hex\": \"");
        if (!p || !i || !v || !s || !h || sscanf(p + 13, "%127[^\"]", prov) != 1 ||
            sscanf(i + 6, "%u", &id) != 1 || sscanf(v + 11, "%u", &ver) != 1 ||
            sscanf(s + 16, "%u", &ps) != 1) {
            continue;
        }
        size_t n = 0;
        for (h += 16; hv(h[0]) >= 0 && hv(h[1]) >= 0 && n < sizeof bytes; h += 2) {
            bytes[n++] = (uint8_t)(hv(h[0]) << 4 | hv(h[1]));
        }
        mix_add(m, gcev_provider_find(prov), (uint16_t)id, (uint16_t)ver, (uint8_t)ps, bytes, n);
    }
    fclose(f);
    return m->n > 0;
}

/* Fixed-size events in the proportions of a real .NET Core 3.0 trace's GC traffic. */
static void synthetic_fixed(mix *m)
{
    static const struct {
        uint16_t id, version, weight;
    } kinds[] = {{3, 1, 12}, {7, 1, 12}, {8, 1, 12},  {9, 1, 12},  {1, 2, 1}, {2, 1, 1},
                 {35, 0, 1}, {23, 0, 8}, {202, 0, 4}, {205, 2, 1}, {4, 2, 1}};
    for (int rep = 0; rep < 64; rep++) {
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            gcev_event ev;
            memset(&ev, 0, sizeof ev);
            ev.desc = gcev_event_desc_resolve(&gcev_provider_runtime, kinds[k].id, kinds[k].version, NULL);
            ev.pointer_size = 8;
            ev.version = kinds[k].version;
            /* distinct field values: fill the struct bytes after present/schema_version */
            uint8_t *raw = (uint8_t *)&ev.u;
            gcev_event_info info;
            gcev_event_get_info(ev.desc, &info);
            ev.family = info.family;
            size_t struct_size = gcev_template_struct_size(info.fields);
            for (size_t b = 16; b < struct_size; b++) {
                raw[b] = (uint8_t)(b * 7 + rep + k);
            }
            uint8_t buf[512];
            size_t n;
            if (gcev_encode(&ev, buf, sizeof buf, &n, NULL) != GCEV_OK) {
                fprintf(stderr, "bench: encode failed for id %u\n", kinds[k].id);
                exit(1);
            }
            for (int w = 0; w < kinds[k].weight; w++) {
                mix_add(m, &gcev_provider_runtime, kinds[k].id, kinds[k].version, 8, buf, n);
            }
        }
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t memcpy_loop(const mix *m, uint8_t *dst)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < m->n; i++) {
        memcpy(dst, m->items[i].in.data, m->items[i].in.size);
        acc += dst[0];
    }
    return acc;
}

__attribute__((noinline)) uint64_t decode_loop(const mix *m);
__attribute__((noinline)) uint64_t decode_loop(const mix *m)
{
    uint64_t acc = 0;
    gcev_event ev;
    for (size_t i = 0; i < m->n; i++) {
        if (gcev_decode(&m->items[i].in, &ev, NULL) == GCEV_OK) {
            acc += ev.consumed;
        }
    }
    return acc;
}

__attribute__((noinline)) static uint64_t walk_loop(const mix *m)
{
    uint64_t acc = 0;
    gcev_event ev;
    for (size_t i = 0; i < m->n; i++) {
        if (gcev_decode(&m->items[i].in, &ev, NULL) != GCEV_OK) {
            continue;
        }
        gcev_field_iter it;
        gcev_field f;
        gcev_field_iter_init(&it, &ev);
        while (gcev_field_next(&it, &f)) {
            acc += f.v.u;
        }
    }
    return acc;
}

/* Seconds per pass of fn, repeated until `budget` seconds have passed. */
static double time_pass(uint64_t (*fn)(const mix *), const mix *m, double budget)
{
    size_t passes = 0;
    double t0 = now(), t;
    do {
        sink += fn(m);
        passes++;
        t = now() - t0;
    } while (t < budget);
    return t / (double)passes;
}

static uint8_t copy_dst[1 << 16];
static uint64_t memcpy_pass(const mix *m)
{
    return memcpy_loop(m, copy_dst);
}

static void report(const char *label, const mix *m, double budget)
{
    double tc = time_pass(memcpy_pass, m, budget);
    double td = time_pass(decode_loop, m, budget);
    double tw = time_pass(walk_loop, m, budget);
    double ev = (double)m->n;
    printf("%-28s %7zu events %8.1f KB | decode %7.1f M ev/s %7.0f MB/s %5.1f ns/ev | "
           "memcpy/decode time %5.2f | decode/walk time %5.2f\n",
           label, m->n, (double)m->bytes / 1024.0, ev / td / 1e6, (double)m->bytes / td / 1e6, td / ev * 1e9,
           tc / td, td / tw);
}

int main(int argc, char **argv)
{
    const char *fixtures = NULL;
    double seconds = 0.3;
    long loop_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--fixtures") && i + 1 < argc) {
            fixtures = argv[++i];
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            seconds = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--loop-only") && i + 1 < argc) {
            loop_only = atol(argv[++i]);
        } else {
            fprintf(stderr, "usage: bench_decode [--fixtures PATH] [--seconds S] [--loop-only N]\n");
            return 2;
        }
    }
    mix fixed = {0};
    fixed.arena_cap = 1 << 20;
    fixed.arena = malloc(fixed.arena_cap);
    synthetic_fixed(&fixed);
    if (loop_only > 0) {
        for (long i = 0; i < loop_only; i++) {
            sink += decode_loop(&fixed);
        }
        printf("%ld passes x %zu fixed-size events = %ld decodes\n", loop_only, fixed.n,
               loop_only * (long)fixed.n);
        return 0;
    }
    printf("ratios: memcpy/decode = time of memcpy of the same bytes / time of decode (1.0 = memory speed);\n"
           "        decode/walk   = time of decode / time of decode + generic field walk\n");
    report("fixed-size GC mix (synthetic)", &fixed, seconds);

    char path[4096];
    if (!fixtures && getenv("GCEV_SHARED_DIR")) {
        snprintf(path, sizeof path, "%s/fixtures/gc_payloads.jsonl", getenv("GCEV_SHARED_DIR"));
        fixtures = path;
    }
    mix real = {0};
    real.arena_cap = 1 << 22;
    real.arena = malloc(real.arena_cap);
    if (fixtures && load_fixtures(&real, fixtures)) {
        report("real fixture mix", &real, seconds);
        /* per family: the fixture payloads of each (provider, id, version) */
        for (size_t i = 0; i < real.n; i++) {
            const gcev_input *a = &real.items[i].in;
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++) {
                const gcev_input *b = &real.items[j].in;
                seen = a->provider == b->provider && a->event_id == b->event_id && a->version == b->version;
            }
            if (seen) {
                continue;
            }
            mix fam = {0};
            fam.arena_cap = 1 << 20;
            fam.arena = malloc(fam.arena_cap);
            for (int rep = 0; rep < 64; rep++) {
                for (size_t j = i; j < real.n; j++) {
                    const gcev_input *b = &real.items[j].in;
                    if (a->provider == b->provider && a->event_id == b->event_id &&
                        a->version == b->version && fam.used + b->size <= fam.arena_cap) {
                        mix_add(&fam, b->provider, b->event_id, b->version, b->pointer_size, b->data,
                                b->size);
                    }
                }
            }
            const gcev_event_desc *d = gcev_event_desc_resolve(a->provider, a->event_id, a->version, NULL);
            gcev_event_info info;
            report(gcev_event_get_info(d, &info) == GCEV_OK ? info.symbol : "?", &fam, seconds / 3);
            free(fam.items);
            free(fam.arena);
        }
    } else {
        printf("(no fixtures: set GCEV_SHARED_DIR or --fixtures for the real payload mix)\n");
    }
    free(fixed.items);
    free(fixed.arena);
    free(real.items);
    free(real.arena);
    return 0;
}
