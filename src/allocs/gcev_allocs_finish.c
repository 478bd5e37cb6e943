/* SPDX-License-Identifier: MIT */
/*
 * The end of the feed: the source of the estimates is chosen, types known only by id are
 * named from BulkType, each distinct address list is named frame by frame from the method
 * ranges (the rundown comes at the end of a trace, so naming waits for it), stacks with the
 * same frames are merged, and everything is sorted by estimated bytes. Then the accessors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcev_allocs_internal.h"

/* ---- method ranges ---- */

/* How many of the sorted s[0, len) are <= address: a binary search without branches (cmov). */
static size_t count_le(const uint64_t *s, size_t len, uint64_t address)
{
    if (!len) {
        return 0;
    }
    const uint64_t *b = s;
    while (len > 1) { /* the answer lies in [b - s, b - s + len] */
        size_t half = len / 2;
        b = b[half - 1] <= address ? b + half : b;
        len -= half;
    }
    return (size_t)(b - s) + (*b <= address);
}

/* The bucket index over the sorted starts (method_at runs once per frame of every distinct
 * stack, a binary search over all methods each time): bucket k holds the starts s with
 * (s - starts[0]) >> shift == k, and there are about as many buckets as methods, so a look-up
 * searches a bucket's few starts. method_index[k] is the first start of bucket k. 0 when out
 * of memory. */
static int method_index_build(gcev_allocs *a)
{
    size_t n = a->nmethods, nb = 1;
    if (!n) {
        return 1;
    }
    while (nb < n) {
        nb *= 2;
    }
    const uint64_t *s = a->method_starts;
    uint64_t span = s[n - 1] - s[0];
    unsigned shift = 0;
    while (shift < 63 && (span >> shift) >= nb) {
        shift++;
    }
    uint32_t *idx = calloc(nb + 1, sizeof *idx);
    if (!idx) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        idx[((s[i] - s[0]) >> shift) + 1]++;
    }
    for (size_t k = 0; k < nb; k++) {
        idx[k + 1] += idx[k];
    }
    a->method_index = idx;
    a->method_buckets = nb;
    a->method_shift = shift;
    return 1;
}

/* The method whose code holds address, or GA_NONE (methods sorted by start; their starts and
 * bucket index made by finish). */
static uint32_t method_at(const gcev_allocs *a, uint64_t address)
{
    if (!a->nmethods || !a->method_index) { /* none, or finish ran out of memory */
        return GA_NONE;
    }
    const uint64_t *s = a->method_starts;
    size_t lo; /* the first start > address */
    if (address < s[0]) {
        lo = 0;
    } else if (((address - s[0]) >> a->method_shift) >= a->method_buckets) {
        lo = a->nmethods;
    } else {
        size_t k = (size_t)((address - s[0]) >> a->method_shift);
        /* every start of an earlier bucket is <= address, every later one > address */
        lo = a->method_index[k] +
             count_le(s + a->method_index[k], a->method_index[k + 1] - a->method_index[k], address);
    }
    /* the nearest start first; a few earlier ones in case ranges overlap (code reused) */
    for (size_t k = 0; k < 16 && lo > 0; k++, lo--) {
        const ga_method *m = &a->methods[lo - 1];
        if (address - m->start < m->size) {
            return (uint32_t)(lo - 1);
        }
    }
    return GA_NONE;
}

static uint32_t name_of(const gcev_allocs *a, const ga_named *v, size_t n, const ga_map *m, ga_eq_fn eq,
                        uint64_t id);

typedef struct id_key {
    const gcev_allocs *a;
    uint64_t id;
} id_key;

static int module_eq(const void *ctx, uint32_t i)
{
    const id_key *k = ctx;
    return k->a->modules[i].id == k->id;
}

static int tname_eq(const void *ctx, uint32_t i)
{
    const id_key *k = ctx;
    return k->a->tnames[i].id == k->id;
}

static uint32_t name_of(const gcev_allocs *a, const ga_named *v, size_t n, const ga_map *m, ga_eq_fn eq,
                        uint64_t id)
{
    (void)n;
    id_key k = {a, id};
    uint32_t i = gcev_ga_map_find(m, ga_mix(id + 0x4e), eq, &k);
    return i == GA_NONE ? GA_NONE : v[i].name;
}

/* ---- building ---- */

typedef struct fb {
    /* frames under construction: string ids until the end */
    uint32_t *fname, *fmethod, *fmodule;
    uint64_t *faddr;
    uint32_t *fkind;
    size_t nf, capf[5];
    ga_map unresolved; /* address -> frame */
    ga_map named;      /* full name -> method frame: one frame per method name and module */
    uint32_t empty;    /* string id of "" */
    /* stacks */
    uint32_t *ids; /* frame lists */
    size_t nids, capids;
    uint32_t *soff, *slen;
    size_t ns, caps[2];
    ga_map smap;
} fb;

typedef struct fkey {
    const fb *b;
    uint64_t addr;
    uint32_t name;
    const uint32_t *ids;
    uint32_t n;
} fkey;

static int unresolved_eq(const void *ctx, uint32_t i)
{
    const fkey *k = ctx;
    return k->b->faddr[i] == k->addr && k->b->fkind[i] == GCEV_ALLOCS_FRAME_UNRESOLVED;
}

static int named_eq(const void *ctx, uint32_t i)
{
    const fkey *k = ctx;
    return k->b->fname[i] == k->name;
}

static int fstack_eq(const void *ctx, uint32_t i)
{
    const fkey *k = ctx;
    return k->b->slen[i] == k->n && !memcmp(k->b->ids + k->b->soff[i], k->ids, k->n * sizeof(uint32_t));
}

static uint32_t frame_new(fb *b, uint32_t name, uint32_t method, uint32_t module, uint64_t addr,
                          uint32_t kind)
{
    if (b->nf >= UINT32_MAX - 1 ||
        !gcev_ga_reserve((void **)&b->fname, &b->capf[0], b->nf + 1, sizeof(uint32_t)) ||
        !gcev_ga_reserve((void **)&b->fmethod, &b->capf[1], b->nf + 1, sizeof(uint32_t)) ||
        !gcev_ga_reserve((void **)&b->fmodule, &b->capf[2], b->nf + 1, sizeof(uint32_t)) ||
        !gcev_ga_reserve((void **)&b->faddr, &b->capf[3], b->nf + 1, sizeof(uint64_t)) ||
        !gcev_ga_reserve((void **)&b->fkind, &b->capf[4], b->nf + 1, sizeof(uint32_t))) {
        return GA_NONE;
    }
    b->fname[b->nf] = name;
    b->fmethod[b->nf] = method;
    b->fmodule[b->nf] = module;
    b->faddr[b->nf] = addr;
    b->fkind[b->nf] = kind;
    return (uint32_t)b->nf++;
}

static uint32_t frame_of(gcev_allocs *a, fb *b, uint64_t addr, int *resolved)
{
    uint32_t mi = method_at(a, addr);
    if (mi != GA_NONE) {
        ga_method *m = &a->methods[mi];
        *resolved = 1;
        if (m->frame != GA_NONE) {
            return m->frame;
        }
        /* one frame per method name and module: tiered versions of a method are one frame */
        uint32_t mod =
            m->module ? name_of(a, a->modules, a->nmodules, &a->module_map, module_eq, m->module) : GA_NONE;
        const char *mname = a->str.buf + m->name;
        const char *modname = mod != GA_NONE ? a->str.buf + mod : "";
        size_t l1 = strlen(modname), l2 = strlen(mname);
        char small[512];
        char *full = l1 + l2 + 2 <= sizeof small ? small : malloc(l1 + l2 + 2);
        if (!full) {
            return GA_NONE;
        }
        size_t len = 0;
        if (l1) {
            memcpy(full, modname, l1);
            full[l1] = '!';
            len = l1 + 1;
        }
        memcpy(full + len, mname, l2);
        len += l2;
        uint32_t fid_name = gcev_ga_intern(&a->str, full, len);
        if (full != small) {
            free(full);
        }
        if (fid_name == GA_NONE) {
            return GA_NONE;
        }
        /* another method range of the same full name already has a frame: share it */
        fkey k = {b, 0, fid_name, NULL, 0};
        uint64_t h = ga_mix((uint64_t)fid_name + 0xf7a);
        uint32_t f = gcev_ga_map_find(&b->named, h, named_eq, &k);
        if (f == GA_NONE) {
            f = frame_new(b, fid_name, m->name, mod != GA_NONE ? mod : b->empty, m->start, m->kind);
            if (f == GA_NONE || !gcev_ga_map_put(&b->named, h, f)) {
                return GA_NONE;
            }
        }
        m->frame = f;
        return m->frame;
    }
    *resolved = 0;
    fkey k = {b, addr, 0, NULL, 0};
    uint64_t h = ga_mix(addr ^ 0xf4a);
    uint32_t f = gcev_ga_map_find(&b->unresolved, h, unresolved_eq, &k);
    if (f != GA_NONE) {
        return f;
    }
    char text[24];
    int len = snprintf(text, sizeof text, "0x%" PRIx64, addr);
    uint32_t s = gcev_ga_intern(&a->str, text, (size_t)len);
    if (s == GA_NONE) {
        return GA_NONE;
    }
    f = frame_new(b, s, s, b->empty, addr, GCEV_ALLOCS_FRAME_UNRESOLVED);
    if (f == GA_NONE || !gcev_ga_map_put(&b->unresolved, h, f)) {
        return GA_NONE;
    }
    return f;
}

/* The merged stack of frame list ids[0, n), added when new. */
static uint32_t fstack_of(fb *b, const uint32_t *ids, uint32_t n)
{
    uint64_t h = gcev_ga_hash_bytes(ids, (size_t)n * sizeof *ids, 0xf57);
    fkey k = {b, 0, 0, ids, n};
    uint32_t i = gcev_ga_map_find(&b->smap, h, fstack_eq, &k);
    if (i != GA_NONE) {
        return i;
    }
    if (b->ns >= UINT32_MAX - 1 || b->nids > UINT32_MAX - n ||
        !gcev_ga_reserve((void **)&b->ids, &b->capids, b->nids + n + 1, sizeof *b->ids) ||
        !gcev_ga_reserve((void **)&b->soff, &b->caps[0], b->ns + 1, sizeof(uint32_t)) ||
        !gcev_ga_reserve((void **)&b->slen, &b->caps[1], b->ns + 1, sizeof(uint32_t))) {
        return GA_NONE;
    }
    if (n) {
        memcpy(b->ids + b->nids, ids, (size_t)n * sizeof *ids);
    }
    b->soff[b->ns] = (uint32_t)b->nids;
    b->slen[b->ns] = n;
    if (!gcev_ga_map_put(&b->smap, h, (uint32_t)b->ns)) {
        return GA_NONE;
    }
    b->nids += n;
    return (uint32_t)b->ns++;
}

static void fb_free(fb *b)
{
    free(b->fname);
    free(b->fmethod);
    free(b->fmodule);
    free(b->faddr);
    free(b->fkind);
    gcev_ga_map_free(&b->unresolved);
    gcev_ga_map_free(&b->named);
    free(b->ids);
    free(b->soff);
    free(b->slen);
    gcev_ga_map_free(&b->smap);
}

static void est_set(gcev_allocs_est *e, const ga_est *r, uint32_t src)
{
    e->samples = r->s[src].samples;
    e->bytes = r->s[src].bytes;
    e->objects = r->s[src].objects;
    e->share = 0;
}

static void est_plus(gcev_allocs_est *e, const gcev_allocs_est *r)
{
    e->samples += r->samples;
    e->bytes += r->bytes;
    e->objects += r->objects;
}

/* Sorting by bytes (largest first), then samples (most first), then the original index.
 * The records are up to one pair per event, so the order is made by stable LSD radix sorts
 * of 8-bit digits (O(n) rather than qsort's O(n log n) comparison calls): by the samples key,
 * then by the bytes key, each skipping the digits every key shares. Estimates are finite or
 * +inf and never negative or NaN (sums of non-negative finite estimates), so the bytes
 * order is the order of their bits. */
static uint64_t bytes_key(double bytes)
{
    uint64_t u;
    bytes += 0.0; /* -0.0 becomes +0.0: equal estimates, equal keys */
    memcpy(&u, &bytes, sizeof u);
    u = u >> 63 ? ~u : u | UINT64_C(1) << 63; /* ascending as the doubles are */
    return ~u;                                /* largest first */
}

/* Stable sort of the indexes in *from by key[index] (ascending), *from and *to swapped by
 * each pass; the result is in *from. (key is not const: GCC's -Wmaybe-uninitialized takes a
 * const pointer to freshly malloc'd keys for a read of uninitialized memory.) */
static void radix_by(uint64_t *key, uint32_t **from, uint32_t **to, size_t n)
{
    uint64_t all = ~UINT64_C(0), any = 0;
    for (size_t i = 0; i < n; i++) {
        all &= key[i];
        any |= key[i];
    }
    for (unsigned shift = 0; shift < 64; shift += 8) {
        if (!(((all ^ any) >> shift) & 0xff)) {
            continue; /* every key has this digit */
        }
        size_t count[257] = {0};
        const uint32_t *f = *from;
        uint32_t *t = *to;
        for (size_t i = 0; i < n; i++) {
            count[((key[f[i]] >> shift) & 0xff) + 1]++;
        }
        for (int d = 0; d < 256; d++) {
            count[d + 1] += count[d];
        }
        for (size_t i = 0; i < n; i++) {
            t[count[(key[f[i]] >> shift) & 0xff]++] = f[i];
        }
        *to = *from;
        *from = t;
    }
}

/* Sorts n records of `size` bytes (each with a gcev_allocs_est at est_off) in place;
 * perm[old] = new (perm may be NULL). 0 when out of memory. */
static int sort_records(void *records, size_t n, size_t size, size_t est_off, size_t *perm)
{
    if (n == 0) {
        return 1;
    }
    uint64_t *kb = malloc(n * sizeof *kb), *ks = malloc(n * sizeof *ks);
    uint32_t *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    char *copy = malloc(n * size);
    int ok = kb && ks && x && y && copy;
    if (ok) {
        char *r = records;
        for (size_t i = 0; i < n; i++) {
            const gcev_allocs_est *e = (const gcev_allocs_est *)(const void *)(r + i * size + est_off);
            kb[i] = bytes_key(e->bytes);
            ks[i] = ~e->samples;
            x[i] = (uint32_t)i;
        }
        /* the least significant key first; equal keys keep the index order */
        radix_by(ks, &x, &y, n);
        radix_by(kb, &x, &y, n);
        memcpy(copy, r, n * size);
        for (size_t k = 0; k < n; k++) {
            memcpy(r + k * size, copy + (size_t)x[k] * size, size);
            if (perm) {
                perm[x[k]] = k;
            }
        }
    }
    free(kb);
    free(ks);
    free(x);
    free(y);
    free(copy);
    return ok;
}

/* The methods by start address, a real method before an entry point at the same address,
 * else in load order (the order glibc's qsort, a stable merge sort, gave), by two LSD radix passes (a trace's
 * rundown lists 10^4-10^5 methods; qsort's comparison calls cost more than the whole walk
 * of their events). 0 when out of memory. */
static int sort_methods(gcev_allocs *a)
{
    size_t n = a->nmethods;
    uint64_t *kind = malloc(n * sizeof *kind), *start = malloc(n * sizeof *start);
    uint32_t *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    ga_method *copy = malloc(n * sizeof *copy);
    int ok = kind && start && x && y && copy;
    if (ok) {
        for (size_t i = 0; i < n; i++) {
            kind[i] = a->methods[i].kind;
            start[i] = a->methods[i].start;
            x[i] = (uint32_t)i;
        }
        radix_by(kind, &x, &y, n);
        radix_by(start, &x, &y, n);
        memcpy(copy, a->methods, n * sizeof *copy);
        for (size_t k = 0; k < n; k++) {
            a->methods[k] = copy[x[k]];
        }
    }
    free(kind);
    free(start);
    free(x);
    free(y);
    free(copy);
    return ok;
}

typedef struct tkey {
    const gcev_allocs *a;
    uint32_t name;
    const uint32_t *tname;
} tkey;

static int ftype_eq(const void *ctx, uint32_t i)
{
    const tkey *k = ctx;
    return k->tname[i] == k->name;
}

typedef struct pkey {
    const gcev_allocs_pair *p;
    size_t stack, type;
} pkey;

static int fpair_eq(const void *ctx, uint32_t i)
{
    const pkey *k = ctx;
    return k->p[i].stack == k->stack && k->p[i].type == k->type;
}

static gcev_status build(gcev_allocs *a)
{
    uint32_t src = a->o.source;
    if (src == GCEV_ALLOCS_AUTO) {
        src = a->sum.events[GCEV_ALLOCS_SAMPLED]      ? GCEV_ALLOCS_SAMPLED
              : a->sum.events[GCEV_ALLOCS_HEAP_ALLOC] ? GCEV_ALLOCS_HEAP_ALLOC
                                                      : GCEV_ALLOCS_TICK;
    }
    gcev_allocs_summary *s = &a->sum;
    s->source = src;
    s->samples = s->events[src];
    s->bytes = a->sum_bytes[src];
    s->objects = a->sum_objects[src];
    memcpy(s->kind_bytes, a->sum_kind[src], sizeof s->kind_bytes);
    s->stackless = a->stackless[src];
    s->first_ms = s->samples ? a->first_ms[src] : 0;
    s->last_ms = s->samples ? a->last_ms[src] : 0;
    s->modules = a->nmodules;
    s->raw_stacks = a->nrstacks;

    /* types: merged by name */
    uint32_t *tname = NULL;
    ga_map tmap = {0};
    size_t captypes = 0, captn = 0;
    for (size_t i = 0; i < a->nrtypes; i++) {
        ga_rtype *r = &a->rtypes[i];
        r->final = GA_NONE;
        if (!r->est.s[src].samples) {
            continue;
        }
        uint32_t name = r->name;
        if (name == GA_NONE && r->type_id) {
            name = name_of(a, a->tnames, a->ntnames, &a->tname_map, tname_eq, r->type_id);
        }
        if (name == GA_NONE) {
            char text[48];
            int len = r->type_id ? snprintf(text, sizeof text, "<type id 0x%" PRIx64 ">", r->type_id)
                                 : snprintf(text, sizeof text, "<unknown type>");
            name = gcev_ga_intern(&a->str, text, (size_t)len);
            if (name == GA_NONE) {
                goto nomem;
            }
        }
        tkey k = {a, name, tname};
        uint64_t h = ga_mix(name + 0x7e);
        uint32_t t = gcev_ga_map_find(&tmap, h, ftype_eq, &k);
        if (t == GA_NONE) {
            if (!gcev_ga_reserve((void **)&a->types, &captypes, a->ntypes + 1, sizeof *a->types) ||
                !gcev_ga_reserve((void **)&tname, &captn, a->ntypes + 1, sizeof *tname)) {
                goto nomem;
            }
            t = (uint32_t)a->ntypes;
            memset(&a->types[t], 0, sizeof a->types[t]);
            tname[t] = name;
            if (!gcev_ga_map_put(&tmap, h, t)) {
                goto nomem;
            }
            a->ntypes++;
        }
        gcev_allocs_type *ft = &a->types[t];
        gcev_allocs_est e;
        est_set(&e, &r->est, src);
        est_plus(&ft->est, &e);
        for (int k2 = 0; k2 < GCEV_ALLOCS_KINDS; k2++) {
            ft->kind_bytes[k2] += r->kind_bytes[src][k2];
        }
        if (r->type_id) {
            ft->type_id = r->type_id;
        }
        if (r->min_size && (!ft->min_size || r->min_size < ft->min_size)) {
            ft->min_size = r->min_size;
        }
        if (r->max_size > ft->max_size) {
            ft->max_size = r->max_size;
        }
        r->final = t;
    }
    gcev_ga_map_free(&tmap);

    /* frames and merged stacks */
    if (a->nmethods > 1 && !sort_methods(a)) { /* a trace without method events has no array at all */
        goto nomem;
    }
    s->methods = a->nmethods;
    fb b;
    memset(&b, 0, sizeof b);
    uint32_t *tmp = malloc((a->o.max_frames + 1) * sizeof *tmp);
    a->method_starts = malloc((a->nmethods ? a->nmethods : 1) * sizeof *a->method_starts);
    if (!tmp || !a->method_starts || (b.empty = gcev_ga_intern(&a->str, "", 0)) == GA_NONE) {
        goto nomem_b;
    }
    for (size_t i = 0; i < a->nmethods; i++) {
        a->method_starts[i] = a->methods[i].start;
    }
    if (!method_index_build(a)) {
        goto nomem_b;
    }
    for (size_t i = 0; i < a->nrstacks; i++) {
        ga_rstack *r = &a->rstacks[i];
        for (uint32_t j = 0; j < r->n; j++) {
            int resolved;
            uint32_t f = frame_of(a, &b, a->ips[r->off + j], &resolved);
            if (f == GA_NONE) {
                goto nomem_b;
            }
            tmp[j] = f;
            if (resolved) {
                s->frames_resolved++;
            } else {
                s->frames_unresolved++;
            }
        }
        r->final = fstack_of(&b, tmp, r->n);
        if (r->final == GA_NONE) {
            goto nomem_b;
        }
    }
    uint32_t stackless = GA_NONE;

    /* pairs: (merged stack, type) */
    size_t cappairs = 0;
    ga_map pmap = {0};
    for (size_t i = 0; i < a->nrpairs; i++) {
        const ga_rpair *r = &a->rpairs[i];
        if (!r->est.s[src].samples) {
            continue;
        }
        uint32_t st;
        if (r->stack == GA_NONE) {
            if (stackless == GA_NONE && (stackless = fstack_of(&b, tmp, 0)) == GA_NONE) {
                goto nomem_p;
            }
            st = stackless;
        } else {
            st = a->rstacks[r->stack].final;
        }
        size_t ty = a->rtypes[r->type].final;
        pkey k = {a->pairs, st, ty};
        uint64_t h = ga_mix(((uint64_t)st << 32) ^ ty ^ 0x9a1);
        uint32_t p = gcev_ga_map_find(&pmap, h, fpair_eq, &k);
        if (p == GA_NONE) {
            if (!gcev_ga_reserve((void **)&a->pairs, &cappairs, a->npairs + 1, sizeof *a->pairs)) {
                goto nomem_p;
            }
            p = (uint32_t)a->npairs;
            memset(&a->pairs[p], 0, sizeof a->pairs[p]);
            a->pairs[p].stack = st;
            a->pairs[p].type = ty;
            if (!gcev_ga_map_put(&pmap, h, p)) {
                goto nomem_p;
            }
            a->npairs++;
        }
        gcev_allocs_est e;
        est_set(&e, &r->est, src);
        est_plus(&a->pairs[p].est, &e);
    }
    gcev_ga_map_free(&pmap);
    free(tmp);
    tmp = NULL;
    gcev_ga_map_free(&a->str.map); /* every name is in the pool: no more look-ups */

    /* public frames (string pointers: the pool no longer grows after this point, below) */
    a->nstacks = b.ns;
    a->stacks = calloc(b.ns ? b.ns : 1, sizeof *a->stacks);
    a->frames = calloc(b.nf ? b.nf : 1, sizeof *a->frames);
    a->frame_ids = malloc((b.nids ? b.nids : 1) * sizeof *a->frame_ids);
    if (!a->stacks || !a->frames || !a->frame_ids) {
        goto nomem_b;
    }
    a->nframes = b.nf;
    if (b.nids) { /* no stack at all: b.ids is NULL, which memcpy may not take */
        memcpy(a->frame_ids, b.ids, b.nids * sizeof *b.ids);
    }
    for (size_t i = 0; i < b.ns; i++) {
        gcev_allocs_stack *st = &a->stacks[i];
        st->nframes = b.slen[i];
        st->frames = a->frame_ids + b.soff[i];
        st->site = UINT32_MAX;
        st->top_type = SIZE_MAX;
        for (uint32_t j = 0; j < st->nframes; j++) {
            if (b.fkind[st->frames[j]] != GCEV_ALLOCS_FRAME_UNRESOLVED) {
                st->site = j;
                break;
            }
        }
    }
    /* stack totals and top types */
    for (size_t i = 0; i < a->npairs; i++) {
        const gcev_allocs_pair *p = &a->pairs[i];
        gcev_allocs_stack *st = &a->stacks[p->stack];
        est_plus(&st->est, &p->est);
    }
    {
        double *best = calloc(b.ns ? b.ns : 1, sizeof *best);
        if (!best) {
            goto nomem_b;
        }
        for (size_t i = 0; i < a->npairs; i++) {
            const gcev_allocs_pair *p = &a->pairs[i];
            gcev_allocs_stack *st = &a->stacks[p->stack];
            if (st->top_type == SIZE_MAX || p->est.bytes > best[p->stack]) {
                st->top_type = p->type;
                best[p->stack] = p->est.bytes;
            }
        }
        free(best);
    }

    /* threads and buckets */
    a->pthreads = calloc(a->nthreads ? a->nthreads : 1, sizeof *a->pthreads);
    a->pbuckets = calloc(a->nbuckets ? a->nbuckets : 1, sizeof *a->pbuckets);
    if (!a->pthreads || !a->pbuckets) {
        goto nomem_b;
    }
    for (size_t i = 0; i < a->nthreads; i++) {
        if (!a->threads[i].est.s[src].samples) {
            continue;
        }
        gcev_allocs_thread *t = &a->pthreads[a->npthreads++];
        t->thread_id = a->threads[i].tid;
        t->process_id = a->threads[i].pid;
        est_set(&t->est, &a->threads[i].est, src);
    }
    for (size_t i = 0; i < a->nbuckets; i++) {
        gcev_allocs_bucket *k = &a->pbuckets[i];
        k->start_ms = a->bucket0_ms + (double)i * a->bucket_ms;
        k->samples = a->buckets[i].samples[src];
        k->bytes = a->buckets[i].bytes[src];
        memcpy(k->kind_bytes, a->buckets[i].kind_bytes[src], sizeof k->kind_bytes);
    }
    a->npbuckets = a->nbuckets;

    /* sort, remap, shares */
    {
        size_t *tperm = malloc((a->ntypes ? a->ntypes : 1) * sizeof *tperm);
        size_t *sperm = malloc((a->nstacks ? a->nstacks : 1) * sizeof *sperm);
        uint32_t *tname2 = malloc((a->ntypes ? a->ntypes : 1) * sizeof *tname2);
        if (!tperm || !sperm || !tname2 ||
            !sort_records(a->types, a->ntypes, sizeof *a->types, offsetof(gcev_allocs_type, est), tperm) ||
            !sort_records(a->stacks, a->nstacks, sizeof *a->stacks, offsetof(gcev_allocs_stack, est),
                          sperm) ||
            !sort_records(a->pairs, a->npairs, sizeof *a->pairs, offsetof(gcev_allocs_pair, est), NULL) ||
            !sort_records(a->pthreads, a->npthreads, sizeof *a->pthreads, offsetof(gcev_allocs_thread, est),
                          NULL)) {
            free(tperm);
            free(sperm);
            free(tname2);
            goto nomem_b;
        }
        for (size_t i = 0; i < a->ntypes; i++) {
            tname2[tperm[i]] = tname[i];
        }
        for (size_t i = 0; i < a->npairs; i++) {
            a->pairs[i].stack = sperm[a->pairs[i].stack];
            a->pairs[i].type = tperm[a->pairs[i].type];
        }
        for (size_t i = 0; i < a->nstacks; i++) {
            if (a->stacks[i].top_type != SIZE_MAX) {
                a->stacks[i].top_type = tperm[a->stacks[i].top_type];
            }
        }
        for (size_t i = 0; i < a->nrtypes; i++) {
            if (a->rtypes[i].final != GA_NONE) {
                a->rtypes[i].final = (uint32_t)tperm[a->rtypes[i].final];
            }
        }
        for (size_t i = 0; i < a->nrstacks; i++) {
            a->rstacks[i].final = (uint32_t)sperm[a->rstacks[i].final];
        }
        free(tname);
        tname = tname2;
        free(tperm);
        free(sperm);
    }
    double total = s->bytes > 0 ? s->bytes : 1;
    for (size_t i = 0; i < a->ntypes; i++) {
        gcev_allocs_type *t = &a->types[i];
        t->est.share = t->est.bytes / total;
        t->kind = 0;
        for (uint32_t k = 1; k < GCEV_ALLOCS_KINDS; k++) {
            if (t->kind_bytes[k] > t->kind_bytes[t->kind]) {
                t->kind = k;
            }
        }
        t->name = a->str.buf + tname[i];
    }
    for (size_t i = 0; i < a->nstacks; i++) {
        a->stacks[i].est.share = a->stacks[i].est.bytes / total;
    }
    for (size_t i = 0; i < a->npairs; i++) {
        a->pairs[i].est.share = a->pairs[i].est.bytes / total;
    }
    for (size_t i = 0; i < a->npthreads; i++) {
        a->pthreads[i].est.share = a->pthreads[i].est.bytes / total;
    }
    for (size_t i = 0; i < b.nf; i++) {
        gcev_allocs_frame *f = &a->frames[i];
        f->name = a->str.buf + b.fname[i];
        f->method = a->str.buf + b.fmethod[i];
        f->module = a->str.buf + b.fmodule[i];
        f->address = b.faddr[i];
        f->kind = b.fkind[i];
    }
    free(tname);
    fb_free(&b);
    return GCEV_OK;

nomem_p:
    gcev_ga_map_free(&pmap);
nomem_b:
    free(tmp);
    fb_free(&b);
nomem:
    free(tname);
    gcev_ga_map_free(&tmap);
    /* leave an empty, consistent result */
    free(a->types);
    free(a->frames);
    free(a->frame_ids);
    free(a->stacks);
    free(a->pairs);
    free(a->pthreads);
    free(a->pbuckets);
    a->types = NULL;
    a->frames = NULL;
    a->frame_ids = NULL;
    a->stacks = NULL;
    a->pairs = NULL;
    a->pthreads = NULL;
    a->pbuckets = NULL;
    a->ntypes = a->nframes = a->nstacks = a->npairs = a->npthreads = a->npbuckets = 0;
    return GCEV_E_NOMEM;
}

gcev_status gcev_allocs_finish(gcev_allocs *a)
{
    if (!a) {
        return GCEV_E_INVALID_ARG;
    }
    if (!a->finished) {
        a->finished = 1;
        /* nothing is added after finish: the maps that found raw records go before the public
         * copies are made (the peak of the model's memory is during build) */
        gcev_ga_map_free(&a->rtype_by_id);
        gcev_ga_map_free(&a->rtype_by_name);
        gcev_ga_map_free(&a->rstack_map);
        gcev_ga_map_free(&a->rpair_map);
        gcev_ga_map_free(&a->thread_map);
        gcev_ga_map_free(&a->method_map);
        a->finish_status = build(a);
    }
    return a->finish_status;
}

/* ---- accessors ---- */

const gcev_allocs_summary *gcev_allocs_get_summary(const gcev_allocs *a)
{
    return a ? &a->sum : NULL;
}

const gcev_error *gcev_allocs_first_error(const gcev_allocs *a, const char **event_name)
{
    if (event_name) {
        *event_name = a && a->first_err_event ? a->first_err_event : "";
    }
    return a ? &a->first_err : NULL;
}

size_t gcev_allocs_type_count(const gcev_allocs *a)
{
    return a ? a->ntypes : 0;
}

const gcev_allocs_type *gcev_allocs_type_at(const gcev_allocs *a, size_t i)
{
    return a && i < a->ntypes ? &a->types[i] : NULL;
}

size_t gcev_allocs_type_find(const gcev_allocs *a, const char *name)
{
    if (a && name) {
        for (size_t i = 0; i < a->ntypes; i++) {
            if (!strcmp(a->types[i].name, name)) {
                return i;
            }
        }
    }
    return SIZE_MAX;
}

size_t gcev_allocs_frame_count(const gcev_allocs *a)
{
    return a ? a->nframes : 0;
}

const gcev_allocs_frame *gcev_allocs_frame_at(const gcev_allocs *a, size_t i)
{
    return a && i < a->nframes ? &a->frames[i] : NULL;
}

uint32_t gcev_allocs_resolve(const gcev_allocs *a, uint64_t address, gcev_allocs_frame *out, char *buf,
                             size_t n)
{
    gcev_allocs_frame f = {"", "", "", address, GCEV_ALLOCS_FRAME_UNRESOLVED};
    if (a && a->finished) {
        uint32_t mi = method_at(a, address);
        if (mi != GA_NONE && a->methods[mi].frame != GA_NONE && a->methods[mi].frame < a->nframes) {
            f = a->frames[a->methods[mi].frame];
        } else if (mi != GA_NONE) {
            /* a method no stack used: its name without the module */
            f.name = f.method = a->str.buf + a->methods[mi].name;
            f.address = a->methods[mi].start;
            f.kind = a->methods[mi].kind;
        }
    }
    if (f.kind == GCEV_ALLOCS_FRAME_UNRESOLVED && buf && n) {
        snprintf(buf, n, "0x%" PRIx64, address);
        f.name = f.method = buf;
    }
    if (out) {
        *out = f;
    }
    return f.kind;
}

size_t gcev_allocs_stack_count(const gcev_allocs *a)
{
    return a ? a->nstacks : 0;
}

const gcev_allocs_stack *gcev_allocs_stack_at(const gcev_allocs *a, size_t i)
{
    return a && i < a->nstacks ? &a->stacks[i] : NULL;
}

size_t gcev_allocs_pair_count(const gcev_allocs *a)
{
    return a ? a->npairs : 0;
}

const gcev_allocs_pair *gcev_allocs_pair_at(const gcev_allocs *a, size_t i)
{
    return a && i < a->npairs ? &a->pairs[i] : NULL;
}

size_t gcev_allocs_thread_count(const gcev_allocs *a)
{
    return a ? a->npthreads : 0;
}

const gcev_allocs_thread *gcev_allocs_thread_at(const gcev_allocs *a, size_t i)
{
    return a && i < a->npthreads ? &a->pthreads[i] : NULL;
}

size_t gcev_allocs_bucket_count(const gcev_allocs *a)
{
    return a ? a->npbuckets : 0;
}

const gcev_allocs_bucket *gcev_allocs_bucket_at(const gcev_allocs *a, size_t i)
{
    return a && i < a->npbuckets ? &a->pbuckets[i] : NULL;
}

double gcev_allocs_bucket_ms(const gcev_allocs *a)
{
    return a ? a->bucket_ms : 0;
}
