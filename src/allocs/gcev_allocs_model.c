/* SPDX-License-Identifier: MIT */
/*
 * Feeding the allocation model: each allocation event adds its estimate to its type, its
 * stack (the list of addresses, kept once), its (stack, type) pair, its thread and its time
 * bucket, per source; method, module and BulkType events add names for gcev_allocs_finish().
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "gcev_allocs_internal.h"
#include "gcev_allocs_sampled.h"

/* (the layer sees the public API only: not gcev_compiler.h) */
#if defined(__GNUC__) || defined(__clang__)
#define GA_NOINLINE __attribute__((noinline))
#else
#define GA_NOINLINE
#endif

enum { MAX_BUCKETS = 4096, DEFAULT_FRAMES = 256, MAX_FRAMES = 4096 };

gcev_status gcev_allocs_create(const gcev_allocs_options *opts, gcev_allocs **out)
{
    if (!out) {
        return GCEV_E_INVALID_ARG;
    }
    *out = NULL;
    gcev_allocs *a = calloc(1, sizeof *a);
    if (!a) {
        return GCEV_E_NOMEM;
    }
    if (opts) {
        a->o = *opts;
    }
    if (!(a->o.bucket_ms > 0.0) || !isfinite(a->o.bucket_ms)) {
        a->o.bucket_ms = 1000.0;
    }
    if (!a->o.max_frames) {
        a->o.max_frames = DEFAULT_FRAMES;
    }
    if (a->o.max_frames > MAX_FRAMES) {
        a->o.max_frames = MAX_FRAMES;
    }
    if (a->o.source >= GCEV_ALLOCS_SOURCE_COUNT_) {
        a->o.source = GCEV_ALLOCS_AUTO;
    }
    a->bucket_ms = a->o.bucket_ms;
    a->bk_lo = INFINITY; /* no bucket yet: an empty range */
    a->bk_hi = -INFINITY;
    gcev_ga_providers_init(&a->pv);
    *out = a;
    return GCEV_OK;
}

void gcev_allocs_free(gcev_allocs *a)
{
    if (!a) {
        return;
    }
    gcev_ga_strings_free(&a->str);
    free(a->rtypes);
    gcev_ga_map_free(&a->rtype_by_id);
    gcev_ga_map_free(&a->rtype_by_name);
    free(a->ips);
    free(a->rstacks);
    gcev_ga_map_free(&a->rstack_map);
    free(a->rpairs);
    gcev_ga_map_free(&a->rpair_map);
    free(a->threads);
    gcev_ga_map_free(&a->thread_map);
    free(a->buckets);
    free(a->methods);
    free(a->method_starts);
    free(a->method_index);
    gcev_ga_map_free(&a->method_map);
    free(a->modules);
    gcev_ga_map_free(&a->module_map);
    free(a->tnames);
    gcev_ga_map_free(&a->tname_map);
    free(a->types);
    free(a->frames);
    free(a->frame_ids);
    free(a->stacks);
    free(a->pairs);
    free(a->pthreads);
    free(a->pbuckets);
    free(a);
}

/* ---- keys ---- */

typedef struct id_key {
    const gcev_allocs *a;
    uint64_t id;
    uint32_t pid;
} id_key;

static int rtype_id_eq(const void *ctx, uint32_t i)
{
    const id_key *k = ctx;
    return k->a->rtypes[i].type_id == k->id && k->a->rtypes[i].pid == k->pid;
}

static int rtype_name_eq(const void *ctx, uint32_t i)
{
    const id_key *k = ctx;
    return k->a->rtypes[i].type_id == 0 && k->a->rtypes[i].name == (uint32_t)k->id;
}

static int thread_eq(const void *ctx, uint32_t i)
{
    const id_key *k = ctx;
    return k->a->threads[i].tid == k->id && k->a->threads[i].pid == k->pid;
}

static int named_eq_modules(const void *ctx, uint32_t i)
{
    const id_key *k = ctx;
    return k->a->modules[i].id == k->id;
}

static int named_eq_tnames(const void *ctx, uint32_t i)
{
    const id_key *k = ctx;
    return k->a->tnames[i].id == k->id;
}

typedef struct stack_key {
    const gcev_allocs *a;
    const void *ips; /* n addresses as the pool keeps them (8 bytes, host order) */
    uint32_t n;
} stack_key;

static int rstack_eq(const void *ctx, uint32_t i)
{
    const stack_key *k = ctx;
    const ga_rstack *s = &k->a->rstacks[i];
    return s->n == k->n && !memcmp(k->a->ips + s->off, k->ips, k->n * sizeof(uint64_t));
}

typedef struct pair_key {
    const gcev_allocs *a;
    uint32_t stack, type;
} pair_key;

static int rpair_eq(const void *ctx, uint32_t i)
{
    const pair_key *k = ctx;
    return k->a->rpairs[i].stack == k->stack && k->a->rpairs[i].type == k->type;
}

typedef struct method_key {
    const gcev_allocs *a;
    uint64_t start;
    uint32_t size, name;
} method_key;

static int method_eq(const void *ctx, uint32_t i)
{
    const method_key *k = ctx;
    const ga_method *m = &k->a->methods[i];
    return m->start == k->start && m->size == k->size && m->name == k->name;
}

static uint64_t hash2(uint64_t x, uint64_t y)
{
    return ga_mix(x * UINT64_C(0x9e3779b97f4a7c15) ^ ga_mix(y + 0x51));
}

/* ---- UTF-16 to interned UTF-8 ---- */

static uint32_t intern16(gcev_allocs *a, gcev_utf16 s)
{
    char small[512];
    size_t len = gcev_utf16_to_utf8(s, small, sizeof small);
    if (len < sizeof small) {
        return gcev_ga_intern(&a->str, small, len);
    }
    char *big = malloc(len + 1);
    if (!big) {
        return GA_NONE;
    }
    gcev_utf16_to_utf8(s, big, len + 1);
    uint32_t id = gcev_ga_intern(&a->str, big, len);
    free(big);
    return id;
}

/* ---- samples ---- */

static void est_add(ga_est *e, uint32_t src, const gcev_allocs_sample *s)
{
    e->s[src].samples++;
    e->s[src].bytes += s->bytes;
    e->s[src].objects += s->objects;
}

static uint32_t rtype_of(gcev_allocs *a, uint32_t pid, const gcev_allocs_sample *s)
{
    id_key k = {a, s->type_id, pid};
    uint64_t h;
    uint32_t name = GA_NONE;
    uint32_t i;
    ga_id_slot *c = NULL;
    if (s->type_id) {
        c = &a->type_cache[(s->type_id >> 3 ^ s->type_id >> 11 ^ pid) & (GA_TYPE_CACHE - 1)];
        if (c->v && c->id == s->type_id && c->pid == pid) {
            i = c->v - 1;
            if (a->rtypes[i].name == GA_NONE && s->type_name.nbytes) {
                a->rtypes[i].name = intern16(a, s->type_name);
            }
            return i;
        }
        h = hash2(s->type_id, pid);
        i = gcev_ga_map_find(&a->rtype_by_id, h, rtype_id_eq, &k);
        if (i != GA_NONE) {
            c->id = s->type_id;
            c->pid = pid;
            c->v = i + 1;
            if (a->rtypes[i].name == GA_NONE && s->type_name.nbytes) {
                a->rtypes[i].name = intern16(a, s->type_name);
            }
            return i;
        }
        if (s->type_name.nbytes && (name = intern16(a, s->type_name)) == GA_NONE) {
            return GA_NONE;
        }
    } else {
        if (s->type_name.nbytes && (name = intern16(a, s->type_name)) == GA_NONE) {
            return GA_NONE;
        }
        k.id = name;
        h = hash2(name, 0xa110c);
        i = gcev_ga_map_find(&a->rtype_by_name, h, rtype_name_eq, &k);
        if (i != GA_NONE) {
            return i;
        }
    }
    if (a->nrtypes >= UINT32_MAX - 1 ||
        !gcev_ga_reserve((void **)&a->rtypes, &a->caprtypes, a->nrtypes + 1, sizeof *a->rtypes)) {
        return GA_NONE;
    }
    i = (uint32_t)a->nrtypes;
    ga_rtype *t = &a->rtypes[i];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->pid = pid;
    t->type_id = s->type_id;
    if (!gcev_ga_map_put(s->type_id ? &a->rtype_by_id : &a->rtype_by_name, h, i)) {
        return GA_NONE;
    }
    a->nrtypes++;
    if (c) {
        c->id = s->type_id;
        c->pid = pid;
        c->v = i + 1;
    }
    return i;
}

/* The stack's addresses, innermost first, at most max_frames of them. */
static uint32_t rstack_of(gcev_allocs *a, const gcev_trace_event *ev, gcev_status *st)
{
    uint32_t ps = ev->pointer_size == 4 ? 4 : 8;
    uint32_t n = ev->pointer_size == 4 ? ev->stack_size >> 2 : ev->stack_size >> 3; /* (no division) */
    if (!ev->stack || !n) {
        return GA_NONE;
    }
    if (n > a->o.max_frames) {
        n = a->o.max_frames;
    }
    /* 8-byte little-endian addresses are looked up as they are in the event, and copied to
     * the pool only when new; others are decoded at the end of the pool first (kept only if
     * the stack is new) */
    const uint16_t one = 1;
    const void *key = ev->stack;
    int in_event = ps == 8 && *(const uint8_t *)&one;
    if (!in_event) {
        if (!gcev_ga_reserve((void **)&a->ips, &a->capips, a->nips + n, sizeof *a->ips)) {
            *st = GCEV_E_NOMEM;
            return GA_NONE;
        }
        uint64_t *ips = a->ips + a->nips;
        const uint8_t *p = ev->stack;
        for (uint32_t i = 0; i < n; i++, p += ps) {
            uint64_t v = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
            if (ps == 8) {
                v |=
                    (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
            }
            ips[i] = v;
        }
        key = ips;
    }
    /* the cache slot: the innermost and the middle address and the depth (a site's own frame
     * and its caller's path); a hit is checked against the kept addresses */
    uint64_t w0, wm;
    memcpy(&w0, key, 8);
    memcpy(&wm, (const uint8_t *)key + (size_t)(n / 2) * 8, 8);
    uint32_t *c =
        &a->stack_cache[((w0 * UINT64_C(0x9e3779b97f4a7c15) ^ (wm + n)) * UINT64_C(0xbf58476d1ce4e5b9)) >>
                        (64 - GA_STACK_CACHE_BITS)];
    if (*c) {
        const ga_rstack *r = &a->rstacks[*c - 1];
        if (r->n == n && !memcmp(key, a->ips + r->off, (size_t)n * 8)) {
            return *c - 1;
        }
    }
    uint64_t h = gcev_ga_hash_bytes(key, (size_t)n * 8, 0x57ac);
    stack_key k = {a, key, n};
    uint32_t i = gcev_ga_map_find(&a->rstack_map, h, rstack_eq, &k);
    if (i != GA_NONE) {
        *c = i + 1;
        return i;
    }
    if (a->nrstacks >= UINT32_MAX - 1 || a->nips > UINT32_MAX - n ||
        !gcev_ga_reserve((void **)&a->rstacks, &a->caprstacks, a->nrstacks + 1, sizeof *a->rstacks)) {
        *st = GCEV_E_NOMEM;
        return GA_NONE;
    }
    if (in_event) {
        if (!gcev_ga_reserve((void **)&a->ips, &a->capips, a->nips + n, sizeof *a->ips)) {
            *st = GCEV_E_NOMEM;
            return GA_NONE;
        }
        memcpy(a->ips + a->nips, ev->stack, (size_t)n * 8);
    }
    i = (uint32_t)a->nrstacks;
    a->rstacks[i].off = (uint32_t)a->nips;
    a->rstacks[i].n = n;
    a->rstacks[i].final = GA_NONE;
    a->rstacks[i].pair[0] = a->rstacks[i].pair[1] = GA_NONE;
    if (!gcev_ga_map_put(&a->rstack_map, h, i)) {
        *st = GCEV_E_NOMEM;
        return GA_NONE;
    }
    a->nrstacks++;
    a->nips += n;
    *c = i + 1;
    return i;
}

/* Makes pair i the latest of stack's two last pairs. */
static void rstack_note_pair(gcev_allocs *a, uint32_t stack, uint32_t i)
{
    if (stack != GA_NONE && a->rstacks[stack].pair[0] != i) {
        a->rstacks[stack].pair[1] = a->rstacks[stack].pair[0];
        a->rstacks[stack].pair[0] = i;
    }
}

static ga_rpair *rpair_of(gcev_allocs *a, uint32_t stack, uint32_t type)
{
    if (stack != GA_NONE) {
        for (int j = 0; j < 2; j++) {
            uint32_t l = a->rstacks[stack].pair[j];
            if (l != GA_NONE && a->rpairs[l].type == type) {
                rstack_note_pair(a, stack, l);
                return &a->rpairs[l];
            }
        }
    }
    uint64_t h = hash2(stack, type);
    pair_key k = {a, stack, type};
    uint32_t i = gcev_ga_map_find(&a->rpair_map, h, rpair_eq, &k);
    if (i != GA_NONE) {
        rstack_note_pair(a, stack, i);
        return &a->rpairs[i];
    }
    if (a->nrpairs >= UINT32_MAX - 1 ||
        !gcev_ga_reserve((void **)&a->rpairs, &a->caprpairs, a->nrpairs + 1, sizeof *a->rpairs)) {
        return NULL;
    }
    i = (uint32_t)a->nrpairs;
    ga_rpair *p = &a->rpairs[i];
    memset(p, 0, sizeof *p);
    p->stack = stack;
    p->type = type;
    if (!gcev_ga_map_put(&a->rpair_map, h, i)) {
        return NULL;
    }
    a->nrpairs++;
    rstack_note_pair(a, stack, i);
    return p;
}

static ga_thread *thread_of(gcev_allocs *a, uint64_t tid, uint32_t pid)
{
    /* a thread's events come in runs (it allocates a while before another's turn) */
    if (a->last_thread) {
        ga_thread *l = &a->threads[a->last_thread - 1];
        if (l->tid == tid && l->pid == pid) {
            return l;
        }
    }
    ga_id_slot *c = &a->thread_cache[(tid ^ tid >> 7 ^ pid) & (GA_THREAD_CACHE - 1)];
    if (c->v && c->id == tid && c->pid == pid) {
        a->last_thread = c->v;
        return &a->threads[c->v - 1];
    }
    uint64_t h = hash2(tid, pid);
    id_key k = {a, tid, pid};
    uint32_t i = gcev_ga_map_find(&a->thread_map, h, thread_eq, &k);
    if (i != GA_NONE) {
        c->id = tid;
        c->pid = pid;
        c->v = i + 1;
        a->last_thread = i + 1;
        return &a->threads[i];
    }
    if (a->nthreads >= UINT32_MAX - 1 ||
        !gcev_ga_reserve((void **)&a->threads, &a->capthreads, a->nthreads + 1, sizeof *a->threads)) {
        return NULL;
    }
    i = (uint32_t)a->nthreads;
    ga_thread *t = &a->threads[i];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->pid = pid;
    if (!gcev_ga_map_put(&a->thread_map, h, i)) {
        return NULL;
    }
    a->nthreads++;
    c->id = tid;
    c->pid = pid;
    c->v = i + 1;
    a->last_thread = i + 1;
    return t;
}

/* Halves the bucket count (each bucket takes its successor) and doubles the width. */
static void buckets_merge(gcev_allocs *a)
{
    size_t n = (a->nbuckets + 1) / 2;
    for (size_t i = 0; i < n; i++) {
        ga_bucket b = a->buckets[2 * i];
        if (2 * i + 1 < a->nbuckets) {
            const ga_bucket *c = &a->buckets[2 * i + 1];
            for (int s = 0; s < GA_SRC; s++) {
                b.samples[s] += c->samples[s];
                b.bytes[s] += c->bytes[s];
                for (int k = 0; k < GCEV_ALLOCS_KINDS; k++) {
                    b.kind_bytes[s][k] += c->kind_bytes[s][k];
                }
            }
        }
        a->buckets[i] = b;
    }
    a->nbuckets = n;
    a->bucket_ms *= 2;
}

/* The bucket of ms (the bucket width and start fixed): q is monotone in ms (a rounded
 * subtraction and a division by a positive width are), so every ms between two that have
 * bucket k has bucket k. */
static double bucket_q(const gcev_allocs *a, double ms)
{
    double rel = ms - a->bucket0_ms;
    if (rel < 0) {
        rel = 0; /* out of time order: the first bucket */
    }
    return rel / a->bucket_ms;
}

/* The range of ms bucket_add takes without a division: from where bucket k starts to where
 * it ends, each end checked with bucket_q (stepped in by an ulp or two when rounding puts
 * it in the next bucket), else the event's own ms. */
static void bucket_bounds(gcev_allocs *a, double ms, size_t k)
{
    double lo = a->bucket0_ms + (double)k * a->bucket_ms, hi = a->bucket0_ms + (double)(k + 1) * a->bucket_ms;
    for (int i = 0; i < 4 && (size_t)bucket_q(a, lo) < k; i++) {
        lo = nextafter(lo, INFINITY);
    }
    for (int i = 0; i < 4 && bucket_q(a, hi) >= (double)(k + 1); i++) {
        hi = nextafter(hi, -INFINITY);
    }
    a->bk_lo = isfinite(lo) && (size_t)bucket_q(a, lo) == k && lo <= ms ? lo : ms;
    a->bk_hi = isfinite(hi) && bucket_q(a, hi) < (double)(k + 1) && hi >= ms ? hi : ms;
    a->bk_idx = k;
}

static int bucket_add(gcev_allocs *a, double ms, uint32_t src, uint32_t kind, double bytes)
{
    size_t idx;
    if (ms >= a->bk_lo && ms <= a->bk_hi) { /* the last bucket's range (false for NaN) */
        idx = a->bk_idx;
    } else {
        if (!isfinite(ms)) {
            ms = 0;
        }
        if (!a->have_bucket0) {
            a->bucket0_ms = floor(ms / a->bucket_ms) * a->bucket_ms;
            a->have_bucket0 = 1;
        }
        double q = bucket_q(a, ms); /* one division an event: the slowest instruction here */
        while (q >= MAX_BUCKETS) {
            if (a->nbuckets) {
                buckets_merge(a);
            } else {
                a->bucket_ms *= 2;
            }
            q = bucket_q(a, ms);
        }
        idx = (size_t)q;
        if (idx >= a->nbuckets) {
            if (!gcev_ga_reserve((void **)&a->buckets, &a->capbuckets, idx + 1, sizeof *a->buckets)) {
                return 0;
            }
            memset(a->buckets + a->nbuckets, 0, (idx + 1 - a->nbuckets) * sizeof *a->buckets);
            a->nbuckets = idx + 1;
        }
        bucket_bounds(a, ms, idx);
    }
    ga_bucket *b = &a->buckets[idx];
    b->samples[src]++;
    b->bytes[src] += bytes;
    b->kind_bytes[src][kind] += bytes;
    return 1;
}

static gcev_status add_sample(gcev_allocs *a, const gcev_trace_event *ev, const gcev_allocs_sample *s)
{
    uint32_t src = s->source;
    uint32_t kind = s->kind < GCEV_ALLOCS_KINDS ? s->kind : GCEV_ALLOCS_SMALL;
    gcev_status st = GCEV_OK;
    uint32_t si = rstack_of(a, ev, &st);
    if (st != GCEV_OK) {
        return st;
    }
    /* a site allocates one type or a few: its last pair, when its type is this one and named
     * (the pair rpair_of would find first) */
    uint32_t ti = GA_NONE;
    ga_rpair *p = NULL;
    if (si != GA_NONE && s->type_id) {
        for (int j = 0; j < 2; j++) {
            uint32_t l = a->rstacks[si].pair[j];
            if (l == GA_NONE) {
                break;
            }
            ga_rpair *lp = &a->rpairs[l];
            const ga_rtype *lt = &a->rtypes[lp->type];
            if (lt->type_id == s->type_id && lt->pid == ev->process_id && lt->name != GA_NONE) {
                ti = lp->type;
                p = lp;
                if (j) {
                    rstack_note_pair(a, si, l);
                }
                break;
            }
        }
    }
    if (ti == GA_NONE && (ti = rtype_of(a, ev->process_id, s)) == GA_NONE) {
        return GCEV_E_NOMEM;
    }
    if (!p) {
        p = rpair_of(a, si, ti);
    }
    ga_thread *th = thread_of(a, ev->thread_id, ev->process_id);
    if (!p || !th || !bucket_add(a, ev->ms, src, kind, s->bytes)) {
        return GCEV_E_NOMEM;
    }
    ga_rtype *t = &a->rtypes[ti];
    est_add(&t->est, src, s);
    t->kind_bytes[src][kind] += s->bytes;
    if (s->size && src != GCEV_ALLOCS_HEAP_ALLOC) {
        if (!t->min_size || s->size < t->min_size) {
            t->min_size = s->size;
        }
        if (s->size > t->max_size) {
            t->max_size = s->size;
        }
    }
    est_add(&p->est, src, s);
    est_add(&th->est, src, s);
    a->sum.events[src]++;
    a->sum_bytes[src] += s->bytes;
    a->sum_objects[src] += s->objects;
    a->sum_kind[src][kind] += s->bytes;
    if (si == GA_NONE) {
        a->stackless[src]++;
    }
    if (!a->sum.events[src] || a->sum.events[src] == 1) {
        a->first_ms[src] = a->last_ms[src] = ev->ms;
    } else {
        if (ev->ms < a->first_ms[src]) {
            a->first_ms[src] = ev->ms;
        }
        if (ev->ms > a->last_ms[src]) {
            a->last_ms[src] = ev->ms;
        }
    }
    if (!a->npids || a->pids[0] != ev->process_id) { /* a trace mostly has one process */
        uint32_t j = 1;
        while (j < a->npids && a->pids[j] != ev->process_id) {
            j++;
        }
        if (j >= a->npids) {
            if (a->npids < sizeof a->pids / sizeof a->pids[0]) {
                a->pids[a->npids++] = ev->process_id;
            }
            a->sum.processes++;
        }
    }
    return GCEV_OK;
}

/* ---- names ---- */

static int named_put(gcev_allocs *a, ga_named **v, size_t *n, size_t *cap, ga_map *m, ga_eq_fn eq,
                     uint64_t id, uint32_t name)
{
    uint64_t h = ga_mix(id + 0x4e);
    id_key k = {a, id, 0};
    uint32_t i = gcev_ga_map_find(m, h, eq, &k);
    if (i != GA_NONE) {
        (*v)[i].name = name; /* the latest wins */
        return 1;
    }
    if (*n >= UINT32_MAX - 1 || !gcev_ga_reserve((void **)v, cap, *n + 1, sizeof **v)) {
        return 0;
    }
    (*v)[*n].id = id;
    (*v)[*n].name = name;
    if (!gcev_ga_map_put(m, h, (uint32_t)*n)) {
        return 0;
    }
    (*n)++;
    return 1;
}

/* The argument list of a MethodSignature ("instance void  (int32,class System.String)"):
 * from its first '(' to its end; empty when it has none. */
static gcev_utf16 sig_args(gcev_utf16 sig)
{
    for (uint32_t i = 0; i + 1 < sig.nbytes; i += 2) {
        if (sig.data[i] == '(' && sig.data[i + 1] == 0) {
            gcev_utf16 r = {sig.data + i, sig.nbytes - i};
            return r;
        }
    }
    gcev_utf16 none = {NULL, 0};
    return none;
}

/* Appends s as UTF-8 at buf + len (room for 3 bytes per UTF-16 code unit); the new length.
 * Method names are ASCII in practice: those code units are copied without the decoder. */
static size_t put_utf8(char *buf, size_t len, gcev_utf16 s)
{
    uint32_t units = s.nbytes / 2, i = 0;
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
    /* 8 units at a time while they are all ASCII and not NUL (bench_allocs' 20,000 methods:
     * unit by unit, this copy cost as much as 15 instructions per allocation event) */
    const __m128i high = _mm_set1_epi16((short)0xff80), zero = _mm_setzero_si128();
    for (; units - i >= 8; i += 8) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s.data + 2 * i));
        int ascii = _mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, high), zero)); /* < 0x80 */
        int nul = _mm_movemask_epi8(_mm_cmpeq_epi16(v, zero));
        if (ascii != 0xffff || nul) {
            break;
        }
        _mm_storel_epi64((__m128i *)(void *)(buf + len), _mm_packus_epi16(v, v));
        len += 8;
    }
#endif
    for (; i < units; i++) {
        uint8_t lo = s.data[2 * i], hi = s.data[2 * i + 1];
        if (hi || lo == 0 || lo >= 0x80) {
            break;
        }
        buf[len++] = (char)lo;
    }
    if (i < units) { /* the rest from a code point boundary: an ASCII unit is a whole one */
        gcev_utf16 rest = {s.data + 2 * i, s.nbytes - 2 * i};
        len += gcev_utf16_to_utf8(rest, buf + len, (size_t)(units - i) * 3 + 1);
    }
    return len;
}

static gcev_status add_method(gcev_allocs *a, uint64_t start, uint32_t size, uint64_t module, gcev_utf16 ns,
                              gcev_utf16 name, gcev_utf16 sig, uint32_t kind)
{
    /* TraceEvent's method name: "Namespace.Name(args)", the argument list from the signature */
    gcev_utf16 args = sig_args(sig);
    char small[1024];
    char *buf = small;
    /* UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair: 4 for 2 units) */
    size_t cap = ((size_t)ns.nbytes / 2 + name.nbytes / 2 + args.nbytes / 2) * 3 + 2;
    if (cap > sizeof small) {
        if (!(buf = malloc(cap))) {
            return GCEV_E_NOMEM;
        }
    }
    size_t len = put_utf8(buf, 0, ns);
    if (len) {
        buf[len++] = '.';
    }
    len = put_utf8(buf, len, name);
    len = put_utf8(buf, len, args);
    uint32_t id = gcev_ga_intern(&a->str, buf, len);
    if (buf != small) {
        free(buf);
    }
    if (id == GA_NONE) {
        return GCEV_E_NOMEM;
    }
    method_key k = {a, start, size, id};
    uint64_t h = hash2(start, ((uint64_t)size << 32) | id);
    if (gcev_ga_map_find(&a->method_map, h, method_eq, &k) != GA_NONE) {
        return GCEV_OK; /* load and rundown report the same code */
    }
    if (a->nmethods >= UINT32_MAX - 1 ||
        !gcev_ga_reserve((void **)&a->methods, &a->capmethods, a->nmethods + 1, sizeof *a->methods)) {
        return GCEV_E_NOMEM;
    }
    ga_method *m = &a->methods[a->nmethods];
    m->start = start;
    m->size = size;
    m->name = id;
    m->module = module;
    m->kind = kind;
    m->frame = GA_NONE;
    if (!gcev_ga_map_put(&a->method_map, h, (uint32_t)a->nmethods)) {
        return GCEV_E_NOMEM;
    }
    a->nmethods++;
    return GCEV_OK;
}

/* The module's file name without directory and without .dll / .exe (TraceEvent's ModuleFile.Name). */
static gcev_status add_module(gcev_allocs *a, const ga_module_ev *m)
{
    gcev_utf16 path = m->il_path.nbytes ? m->il_path : m->native_path;
    char small[1024];
    size_t len = gcev_utf16_to_utf8(path, small, sizeof small);
    if (len >= sizeof small) {
        len = sizeof small - 1;
    }
    const char *base = small;
    for (size_t i = 0; i < len; i++) {
        if (small[i] == '/' || small[i] == '\\') {
            base = small + i + 1;
        }
    }
    size_t bl = len - (size_t)(base - small);
    if (bl > 4 && (!strcmp(base + bl - 4, ".dll") || !strcmp(base + bl - 4, ".exe") ||
                   !strcmp(base + bl - 4, ".DLL") || !strcmp(base + bl - 4, ".EXE"))) {
        bl -= 4;
    }
    uint32_t id = gcev_ga_intern(&a->str, base, bl);
    if (id == GA_NONE || !named_put(a, &a->modules, &a->nmodules, &a->capmodules, &a->module_map,
                                    named_eq_modules, m->module_id, id)) {
        return GCEV_E_NOMEM;
    }
    return GCEV_OK;
}

static gcev_status add_bulk_type(gcev_allocs *a, const gcev_trace_event *ev, gcev_error *err)
{
    gcev_bulk_type bt;
    gcev_status st =
        gcev_decode_bulk_type(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &bt, NULL, err);
    if (st != GCEV_OK) {
        return st;
    }
    /* elements of varying size: walk them once (gcev_array_elem from the start is O(i)) */
    for (uint32_t i = 0; i < bt.values.count; i++) {
        gcev_bulk_type_values v;
        st = gcev_bulk_type_values_at(&bt.values, i, &v, err);
        if (st != GCEV_OK) {
            return st;
        }
        if (!(v.present & GCEV_BULK_TYPE_VALUES_HAS_NAME) || !v.name.nbytes) {
            continue;
        }
        uint32_t id = intern16(a, v.name);
        if (id == GA_NONE || !named_put(a, &a->tnames, &a->ntnames, &a->captnames, &a->tname_map,
                                        named_eq_tnames, v.type_id, id)) {
            return GCEV_E_NOMEM;
        }
    }
    return GCEV_OK;
}

static void note_error(gcev_allocs *a, int cls, const gcev_trace_event *ev, gcev_status st, gcev_error *e)
{
    a->sum.decode_errors++;
    e->code = st;
    e->offset = ev->file_offset;
    if (!e->message) {
        e->message = gcev_status_str(st);
    }
    if (!a->first_err.code) {
        a->first_err = *e;
        a->first_err_event = gcev_ga_event_name(cls);
    }
}

static GA_NOINLINE gcev_status add_classified(gcev_allocs *a, const gcev_trace_event *ev, int cls,
                                              gcev_error *err);

gcev_status gcev_allocs_add(gcev_allocs *a, const gcev_trace_event *ev, gcev_error *err)
{
    if (!a || !ev || a->finished) {
        return GCEV_E_INVALID_ARG;
    }
    if (a->o.process_id && ev->process_id != a->o.process_id) {
        return GCEV_OK;
    }
    /* with a compiled provider, the class is the provider's and the event id's alone: the last
     * one is kept (a trace's allocation events come one after the other) */
    int cls;
    if (ev->provider && ev->provider == a->cls_provider && ev->event_id == a->cls_event_id) {
        cls = a->cls_last;
    } else {
        cls = gcev_ga_classify(ev, &a->pv);
        a->cls_provider = ev->provider;
        a->cls_event_id = ev->event_id;
        a->cls_last = cls;
    }
    if (cls == GA_EV_OTHER) {
        return GCEV_OK;
    }
    if (cls == GA_EV_SAMPLED) {
        /* the per-event path, kept small (the rest is add_classified): a whole
         * AllocationSampled payload cannot fail to decode */
        gcev_allocs_sample s;
        if (gcev_ga_sampled_fast(ev, &s, a->weight_cache)) {
            return add_sample(a, ev, &s); /* GCEV_OK, or out of memory */
        }
    }
    return add_classified(a, ev, cls, err);
}

/* An event of class cls (not GA_EV_OTHER) the per-event path did not take. */
static GA_NOINLINE gcev_status add_classified(gcev_allocs *a, const gcev_trace_event *ev, int cls,
                                              gcev_error *err)
{
    gcev_error e = {GCEV_OK, 0, NULL, NULL};
    gcev_status st = GCEV_OK;
    switch (cls) {
    case GA_EV_TICK:
    case GA_EV_SAMPLED:
    case GA_EV_HEAP_HIGH:
    case GA_EV_HEAP_LOW: {
        gcev_allocs_sample s;
        st = gcev_ga_sample(ev, cls, &s, &e, a->weight_cache);
        if (st == GCEV_OK) {
            st = add_sample(a, ev, &s);
            if (st != GCEV_OK) {
                return st; /* out of memory */
            }
        }
        break;
    }
    case GA_EV_BULK_TYPE:
        st = add_bulk_type(a, ev, &e);
        if (st == GCEV_E_NOMEM) {
            return st;
        }
        break;
    case GA_EV_METHOD_LOAD:
    case GA_EV_METHOD_UNLOAD: {
        ga_method_ev m;
        st = gcev_ga_read_method(ev->payload, ev->payload_size, &m, &e);
        if (st == GCEV_OK) {
            a->sum.method_events++;
            if (m.size) {
                st = add_method(a, m.start, m.size, m.module_id, m.ns, m.name, m.sig,
                                GCEV_ALLOCS_FRAME_METHOD);
                if (st != GCEV_OK) {
                    return st;
                }
            }
        }
        break;
    }
    case GA_EV_ENTRY: {
        ga_entry_ev r;
        st = gcev_ga_read_entry(ev->payload, ev->payload_size, &r, &e);
        if (st == GCEV_OK) {
            a->sum.method_events++;
            st = add_method(a, r.entry, 1, 0, r.ns, r.name, r.sig, GCEV_ALLOCS_FRAME_ENTRY);
            if (st != GCEV_OK) {
                return st;
            }
        }
        break;
    }
    case GA_EV_MODULE: {
        ga_module_ev m;
        st = gcev_ga_read_module(ev->payload, ev->payload_size, &m, &e);
        if (st == GCEV_OK) {
            a->sum.module_events++;
            st = add_module(a, &m);
            if (st != GCEV_OK) {
                return st;
            }
        }
        break;
    }
    default:
        break;
    }
    if (st != GCEV_OK) {
        note_error(a, cls, ev, st, &e);
        if (err) {
            *err = e;
        }
    }
    return st;
}

gcev_status gcev_allocs_read_trace(gcev_allocs *a, gcev_trace *t, gcev_error *err)
{
    if (!a || !t || a->finished) {
        return GCEV_E_INVALID_ARG;
    }
    gcev_trace_event ev;
    gcev_error e = {GCEV_OK, 0, NULL, NULL};
    gcev_status st;
    while ((st = gcev_trace_next(t, &ev, &e)) == GCEV_OK) {
        gcev_status as = gcev_allocs_add(a, &ev, NULL);
        if (as == GCEV_E_NOMEM) {
            gcev_allocs_finish(a);
            if (err) {
                err->code = GCEV_E_NOMEM;
                err->offset = gcev_trace_bytes_read(t);
                err->field = NULL;
                err->message = "out of memory";
            }
            return GCEV_E_NOMEM;
        }
    }
    gcev_status fs = gcev_allocs_finish(a);
    if (st == GCEV_END) {
        if (fs != GCEV_OK && err) {
            err->code = fs;
            err->offset = 0;
            err->field = NULL;
            err->message = gcev_status_str(fs);
        }
        return fs;
    }
    if (err) {
        *err = e;
    }
    return st;
}
