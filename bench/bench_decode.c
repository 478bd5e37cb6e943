/* SPDX-License-Identifier: MIT */
/*
 * Decode throughput, printed as ratios against work on the same bytes in the
 * same run: a memcpy of every payload (the memory-bandwidth floor) and the
 * generic field-walking path (decode + iterate every field).
 *
 *   bench_decode [--fixtures PATH] [--trace FILE]... [--seconds S]
 *   bench_decode --callgrind MIX N [--fixtures PATH] [--trace FILE]
 *
 * Input: the real payload mix of gc_payloads.jsonl (default
 * $GCEV_SHARED_DIR/fixtures/gc_payloads.jsonl) when present, always a
 * synthetic mix of fixed-size GC events encoded with gcev_encode(), and with
 * --trace the GC payloads of a real trace in its own proportions (split into
 * fixed-size and variable-size templates).
 *
 * Each mix is timed through three loops: typed_loop_* (the generated
 * gcev_decode_<family>(), payloads grouped by family, as a caller that knows
 * its event calls it), decode_loop (gcev_decode) and walk_loop (gcev_decode +
 * the generic field walk over every field).
 *
 * --callgrind MIX N runs N passes of each loop over one mix and prints the
 * events per loop, for `valgrind --tool=callgrind --toggle-collect=<loop>`
 * (instructions per event = collected instructions / events; bench/instructions.sh), and
 * nop_typed_loop / nop_decode_loop, the same loops around functions that do nothing.
 * MIX: synthetic, fixtures, fixtures-fixed, trace-fixed, trace-all. --loop-only N is
 * the old spelling of `--callgrind synthetic N` with decode_loop only.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <gcev/gcev_trace.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct item {
    gcev_input in;
    uint16_t family;
    uint8_t fixed; /* the template has only fixed-size fields */
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
    it->in = (gcev_input){.struct_size = sizeof it->in,
                          .provider = p,
                          .event_id = id,
                          .version = version,
                          .pointer_size = ps,
                          .data = m->arena + m->used,
                          .size = size};
    it->family = 0;
    it->fixed = 0;
    gcev_event_info info;
    if (p && gcev_event_get_info(gcev_event_desc_resolve(p, id, version, NULL), &info) == GCEV_OK) {
        it->family = info.family;
        it->fixed = 1;
        for (size_t f = 0; f < gcev_template_field_count(info.fields); f++) {
            gcev_field_info fi;
            gcev_template_field(info.fields, f, &fi);
            if (fi.is_array || fi.wire_size[0] == 0 || fi.type == GCEV_T_SYSTEMTIME) {
                it->fixed = 0;
            }
        }
    }
    m->used += size;
    m->bytes += size;
}

/* The GC items of m (fixed-size ones only when fixed_only), sharing m's arena. */
static mix mix_filter(const mix *m, int fixed_only)
{
    mix r = {0};
    r.items = malloc((m->n ? m->n : 1) * sizeof *r.items);
    for (size_t i = 0; i < m->n; i++) {
        if (m->items[i].family && (!fixed_only || m->items[i].fixed)) {
            r.items[r.n++] = m->items[i];
            r.bytes += m->items[i].in.size;
        }
    }
    r.cap = r.n;
    return r;
}

/* GC payloads of a real trace, in file order. */
static int load_trace(mix *m, const char *path)
{
    gcev_trace *t;
    if (gcev_trace_open_file(path, NULL, &t, NULL) != GCEV_OK) {
        return 0;
    }
    gcev_trace_event ev;
    while (gcev_trace_next(t, &ev, NULL) == GCEV_OK) {
        if (ev.provider && gcev_event_desc_resolve(ev.provider, ev.event_id, ev.version, NULL) &&
            m->used + ev.payload_size <= m->arena_cap) {
            mix_add(m, ev.provider, ev.event_id, ev.version, ev.pointer_size, ev.payload, ev.payload_size);
        }
    }
    gcev_trace_close(t);
    return m->n > 0;
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
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: the machine may be shared */
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

/*
 * The typed decoders, one loop per family over that family's payloads (what a
 * caller that already knows its event writes). Families not listed here are
 * left out of the typed figures (typed_plan.missing counts them).
 */
#define TYPED_FAMILIES(X)                                                                                    \
    X(gc_start, GC_START)                                                                                    \
    X(gc_end, GC_END)                                                                                        \
    X(gc_restart_ee_end, GC_RESTART_EE_END)                                                                  \
    X(gc_heap_stats, GC_HEAP_STATS)                                                                          \
    X(gc_create_segment, GC_CREATE_SEGMENT)                                                                  \
    X(gc_free_segment, GC_FREE_SEGMENT)                                                                      \
    X(gc_restart_ee_begin, GC_RESTART_EE_BEGIN)                                                              \
    X(gc_suspend_ee_end, GC_SUSPEND_EE_END)                                                                  \
    X(gc_suspend_ee_begin, GC_SUSPEND_EE_BEGIN)                                                              \
    X(gc_allocation_tick, GC_ALLOCATION_TICK)                                                                \
    X(gc_finalizers_end, GC_FINALIZERS_END)                                                                  \
    X(gc_finalizers_begin, GC_FINALIZERS_BEGIN)                                                              \
    X(gc_generation_range, GC_GENERATION_RANGE)                                                              \
    X(gc_triggered, GC_TRIGGERED)                                                                            \
    X(increase_memory_pressure, INCREASE_MEMORY_PRESSURE)                                                    \
    X(decrease_memory_pressure, DECREASE_MEMORY_PRESSURE)                                                    \
    X(gc_mark_with_type, GC_MARK_WITH_TYPE)                                                                  \
    X(gc_join, GC_JOIN)                                                                                      \
    X(gc_per_heap_history, GC_PER_HEAP_HISTORY)                                                              \
    X(gc_global_heap_history, GC_GLOBAL_HEAP_HISTORY)                                                        \
    X(private_gc_join, PRIVATE_GC_JOIN)                                                                      \
    X(private_pin_plug_at_gc_time, PRIVATE_PIN_PLUG_AT_GC_TIME)

typedef uint64_t (*typed_fn)(const item *it, size_t n);

#define TYPED_LOOP(cname, up)                                                                                \
    __attribute__((noinline)) uint64_t typed_loop_##cname(const item *it, size_t n);                         \
    __attribute__((noinline)) uint64_t typed_loop_##cname(const item *it, size_t n)                          \
    {                                                                                                        \
        uint64_t acc = 0;                                                                                    \
        gcev_##cname s;                                                                                      \
        uint32_t consumed;                                                                                   \
        for (size_t i = 0; i < n; i++) {                                                                     \
            if (gcev_decode_##cname(it[i].in.data, it[i].in.size, it[i].in.version, it[i].in.pointer_size,   \
                                    &s, &consumed, NULL) == GCEV_OK) {                                       \
                acc += consumed;                                                                             \
            }                                                                                                \
        }                                                                                                    \
        return acc;                                                                                          \
    }
TYPED_FAMILIES(TYPED_LOOP)

static typed_fn typed_fn_for(uint16_t family)
{
    switch (family) {
#define TYPED_CASE(cname, up)                                                                                \
    case GCEV_FAMILY_##up:                                                                                   \
        return typed_loop_##cname;
        TYPED_FAMILIES(TYPED_CASE)
    default:
        return NULL;
    }
}

/* The items grouped by family (stable), each group with its typed loop. */
typedef struct typed_plan {
    item *items;
    size_t n;
    struct {
        typed_fn fn;
        size_t first, count;
    } groups[GCEV_FAMILY_COUNT_];
    size_t ngroups;
    size_t missing; /* items of families without a typed loop here */
} typed_plan;

static typed_plan plan_make(const mix *m)
{
    typed_plan p = {0};
    p.items = malloc((m->n ? m->n : 1) * sizeof *p.items);
    for (uint16_t fam = 1; fam < GCEV_FAMILY_COUNT_; fam++) {
        size_t first = p.n;
        for (size_t i = 0; i < m->n; i++) {
            if (m->items[i].family == fam) {
                if (typed_fn_for(fam)) {
                    p.items[p.n++] = m->items[i];
                } else {
                    p.missing++;
                }
            }
        }
        if (p.n > first) {
            p.groups[p.ngroups].fn = typed_fn_for(fam);
            p.groups[p.ngroups].first = first;
            p.groups[p.ngroups].count = p.n - first;
            p.ngroups++;
        }
    }
    return p;
}

static const typed_plan *cur_plan;
static uint64_t plan_pass(const mix *m)
{
    (void)m;
    uint64_t acc = 0;
    for (size_t g = 0; g < cur_plan->ngroups; g++) {
        acc += cur_plan->groups[g].fn(cur_plan->items + cur_plan->groups[g].first, cur_plan->groups[g].count);
    }
    return acc;
}

/*
 * The same loops around functions that do nothing (same arguments, same results
 * used): their instructions are the caller's share (loop, argument set-up, call and
 * return), which bench/instructions.sh subtracts to give the decoders' own counts.
 */
__attribute__((noinline)) gcev_status nop_typed(const uint8_t *data, size_t size, uint16_t version,
                                                uint8_t pointer_size, void *out, uint32_t *consumed,
                                                gcev_error *err);
__attribute__((noinline)) gcev_status nop_typed(const uint8_t *data, size_t size, uint16_t version,
                                                uint8_t pointer_size, void *out, uint32_t *consumed,
                                                gcev_error *err)
{
    (void)data;
    (void)version;
    (void)pointer_size;
    (void)out;
    (void)err;
    *consumed = (uint32_t)size;
    __asm__ volatile("" ::: "memory");
    return GCEV_OK;
}

__attribute__((noinline)) gcev_status nop_decode(const gcev_input *in, gcev_event *out, gcev_error *err);
__attribute__((noinline)) gcev_status nop_decode(const gcev_input *in, gcev_event *out, gcev_error *err)
{
    (void)err;
    out->consumed = (uint32_t)in->size;
    __asm__ volatile("" ::: "memory");
    return GCEV_OK;
}

__attribute__((noinline)) uint64_t nop_typed_loop(const mix *m);
__attribute__((noinline)) uint64_t nop_typed_loop(const mix *m)
{
    uint64_t acc = 0;
    gcev_union s;
    uint32_t consumed;
    for (size_t i = 0; i < m->n; i++) {
        const item *it = &m->items[i];
        if (nop_typed(it->in.data, it->in.size, it->in.version, it->in.pointer_size, &s, &consumed, NULL) ==
            GCEV_OK) {
            acc += consumed;
        }
    }
    return acc;
}

__attribute__((noinline)) uint64_t nop_decode_loop(const mix *m);
__attribute__((noinline)) uint64_t nop_decode_loop(const mix *m)
{
    uint64_t acc = 0;
    gcev_event ev;
    for (size_t i = 0; i < m->n; i++) {
        if (nop_decode(&m->items[i].in, &ev, NULL) == GCEV_OK) {
            acc += ev.consumed;
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
    if (m->n == 0) {
        return;
    }
    typed_plan plan = plan_make(m);
    cur_plan = &plan;
    double tc = time_pass(memcpy_pass, m, budget);
    double tt = plan.n ? time_pass(plan_pass, m, budget) : 0.0;
    double td = time_pass(decode_loop, m, budget);
    double tw = time_pass(walk_loop, m, budget);
    double ev = (double)m->n;
    printf("%-28s %7zu events %8.1f KB | typed %7.1f M ev/s | decode %7.1f M ev/s %7.0f MB/s %5.1f ns/ev | "
           "memcpy/decode time %5.2f | decode/walk time %5.2f",
           label, m->n, (double)m->bytes / 1024.0, plan.n ? (double)plan.n / tt / 1e6 : 0.0, ev / td / 1e6,
           (double)m->bytes / td / 1e6, td / ev * 1e9, tc / td, td / tw);
    if (plan.missing) {
        printf(" (typed: %zu events without a typed loop)", plan.missing);
    }
    printf("\n");
    free(plan.items);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_decode [--fixtures PATH] [--trace FILE]... [--seconds S]\n"
            "       bench_decode --callgrind synthetic|fixtures|fixtures-fixed|trace-fixed|trace-all N\n"
            "                    [--fixtures PATH] [--trace FILE]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *fixtures = NULL;
    const char *traces[64];
    size_t ntraces = 0;
    const char *cg_mix = NULL;
    double seconds = 0.3;
    long passes = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--fixtures") && i + 1 < argc) {
            fixtures = argv[++i];
        } else if (!strcmp(argv[i], "--trace") && i + 1 < argc && ntraces < 64) {
            traces[ntraces++] = argv[++i];
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            seconds = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--loop-only") && i + 1 < argc) {
            cg_mix = "synthetic-decode";
            passes = atol(argv[++i]);
        } else if (!strcmp(argv[i], "--callgrind") && i + 2 < argc) {
            cg_mix = argv[++i];
            passes = atol(argv[++i]);
        } else {
            usage();
        }
    }
    char path[4096];
    if (!fixtures && getenv("GCEV_SHARED_DIR")) {
        snprintf(path, sizeof path, "%s/fixtures/gc_payloads.jsonl", getenv("GCEV_SHARED_DIR"));
        fixtures = path;
    }
    mix fixed = {0};
    fixed.arena_cap = 1 << 20;
    fixed.arena = malloc(fixed.arena_cap);
    synthetic_fixed(&fixed);
    mix real = {0};
    real.arena_cap = 1 << 22;
    real.arena = malloc(real.arena_cap);
    int have_fixtures = fixtures && load_fixtures(&real, fixtures);
    mix from_trace = {0};
    from_trace.arena_cap = (size_t)1 << 28;
    from_trace.arena = malloc(from_trace.arena_cap);
    for (size_t i = 0; i < ntraces; i++) {
        if (!load_trace(&from_trace, traces[i])) {
            fprintf(stderr, "bench_decode: no GC events read from %s\n", traces[i]);
        }
    }

    if (cg_mix) {
        mix sel;
        int owned = 1;
        if (!strcmp(cg_mix, "synthetic") || !strcmp(cg_mix, "synthetic-decode")) {
            sel = fixed;
            owned = 0;
        } else if (!strcmp(cg_mix, "fixtures")) {
            sel = real;
            owned = 0;
        } else if (!strcmp(cg_mix, "fixtures-fixed")) {
            sel = mix_filter(&real, 1);
        } else if (!strcmp(cg_mix, "trace-fixed")) {
            sel = mix_filter(&from_trace, 1);
        } else if (!strcmp(cg_mix, "trace-all")) {
            sel = mix_filter(&from_trace, 0);
        } else {
            usage();
        }
        typed_plan plan = plan_make(&sel);
        cur_plan = &plan;
        for (long i = 0; i < passes; i++) {
            sink += decode_loop(&sel);
        }
        if (strcmp(cg_mix, "synthetic-decode") != 0) {
            for (long i = 0; i < passes; i++) {
                sink += plan_pass(&sel);
                sink += walk_loop(&sel);
                sink += nop_typed_loop(&sel);
                sink += nop_decode_loop(&sel);
            }
        }
        /* the figures bench/instructions.sh reads */
        printf("mix %s: %ld passes\n", cg_mix, passes);
        printf("events decode_loop %ld\n", passes * (long)sel.n);
        printf("events walk_loop %ld\n", passes * (long)sel.n);
        printf("events nop_typed_loop %ld\nevents nop_decode_loop %ld\n", passes * (long)sel.n,
               passes * (long)sel.n);
        printf("events typed %ld (+%zu per pass without a typed loop)\n", passes * (long)plan.n,
               plan.missing);
        printf("%ld passes x %zu events = %ld decodes\n", passes, sel.n, passes * (long)sel.n);
        free(plan.items);
        if (owned) {
            free(sel.items);
        }
        return 0;
    }

    printf("ratios: memcpy/decode = time of memcpy of the same bytes / time of decode (1.0 = memory speed);\n"
           "        decode/walk   = time of decode / time of decode + generic field walk\n"
           "typed = gcev_decode_<family>() grouped by family; decode = gcev_decode()\n");
    report("fixed-size GC mix (synthetic)", &fixed, seconds);
    if (ntraces) {
        mix a = mix_filter(&from_trace, 1), b = mix_filter(&from_trace, 0);
        report("trace GC events, fixed-size", &a, seconds);
        report("trace GC events, all", &b, seconds);
        free(a.items);
        free(b.items);
    }
    if (have_fixtures) {
        mix ff = mix_filter(&real, 1);
        report("real fixture mix", &real, seconds);
        report("real fixtures, fixed-size", &ff, seconds);
        free(ff.items);
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
    free(from_trace.items);
    free(from_trace.arena);
    return 0;
}
