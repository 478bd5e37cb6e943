/* SPDX-License-Identifier: MIT */
/*
 * From a dump's raw lists to its graph: objects deduplicated by address, each
 * object's references taken from the GCBulkEdge stream in order (object i owns the
 * next EdgeCount values, as the runtime writes them and dotnet-gcdump reads them),
 * resolved to object indexes (references to no object dropped and counted), a
 * ConditionalWeakTable element added as a reference from its key to its value,
 * roots resolved, and the type table (one row per module and display name).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcev_heap_internal.h"

char *gcev_hp_display_name(const char *raw)
{
    size_t len = strlen(raw);
    char *out = malloc(len + 1);
    if (!out) {
        return NULL;
    }
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = raw[i];
        if (c == '`' && i + 1 < len && raw[i + 1] >= '0' && raw[i + 1] <= '9') {
            /* the generic arity ("List`1") is not shown */
            while (i + 1 < len && raw[i + 1] >= '0' && raw[i + 1] <= '9') {
                i++;
            }
            continue;
        }
        if (c == '[') {
            c = '<';
        } else if (c == ']') {
            c = '>';
        }
        if (c == '>' && o > 0 && out[o - 1] == '<') {
            out[o - 1] = '[';
            c = ']';
        }
        out[o++] = c;
    }
    out[o] = '\0';
    return out;
}

static uint64_t name_hash(uint64_t module, const char *s)
{
    uint64_t h = UINT64_C(1469598103934665603) ^ module;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= UINT64_C(1099511628211);
    }
    return h;
}

typedef struct row_build {
    uint32_t name; /* pool offset + 1 */
    uint32_t next; /* next row with the same hash */
    uint64_t module;
    uint64_t objects, bytes;
} row_build;

/* What the type table sorts by, copied beside each row's index: qsort has no context argument
 * in C11, and a file-scope pointer to the heap would make two heaps built at once on two
 * threads race. */
typedef struct row_key {
    uint64_t bytes, objects, module;
    const char *name;
    uint32_t row;
} row_key;

/* bytes, then objects, descending; then name and module ascending: one order for every run */
static int row_key_cmp(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    if (x->bytes != y->bytes) {
        return x->bytes > y->bytes ? -1 : 1;
    }
    if (x->objects != y->objects) {
        return x->objects > y->objects ? -1 : 1;
    }
    int c = strcmp(x->name, y->name);
    if (c) {
        return c;
    }
    return x->module < y->module ? -1 : x->module > y->module;
}

/* The row of process type pt (made when new); UINT32_MAX on NOMEM. */
static uint32_t row_of(gcev_heap *h, heap_proc *p, uint32_t pt, uint32_t *row_of_pt, heap_map *by_hash,
                       row_build **rows, size_t *nrows, size_t *crows)
{
    if (row_of_pt[pt] != UINT32_MAX) {
        return row_of_pt[pt];
    }
    char unknown[48];
    const char *raw = unknown;
    if (p->types[pt].name) {
        raw = p->names.s + p->types[pt].name - 1;
    } else {
        snprintf(unknown, sizeof unknown, "UNKNOWN 0x%llx", (unsigned long long)p->types[pt].type_id);
        h->info.unknown_types++;
    }
    char *disp = gcev_hp_display_name(raw);
    if (!disp) {
        return UINT32_MAX;
    }
    uint64_t module = p->types[pt].module_id;
    uint64_t hh = name_hash(module, disp);
    uint32_t r = gcev_hp_map_get(by_hash, hh);
    for (; r != UINT32_MAX; r = (*rows)[r].next) {
        if ((*rows)[r].module == module && strcmp(h->pool.s + (*rows)[r].name - 1, disp) == 0) {
            break;
        }
    }
    if (r == UINT32_MAX) {
        if (gcev_hp_grow((void **)rows, crows, *nrows + 1, sizeof **rows)) {
            free(disp);
            return UINT32_MAX;
        }
        row_build *b = &(*rows)[*nrows];
        memset(b, 0, sizeof *b);
        b->module = module;
        b->name = gcev_hp_str_add(&h->pool, disp, strlen(disp));
        uint32_t first = gcev_hp_map_get(by_hash, hh);
        b->next = UINT32_MAX;
        if (!b->name) {
            free(disp);
            return UINT32_MAX;
        }
        r = (uint32_t)*nrows;
        if (first == UINT32_MAX) {
            if (gcev_hp_map_put(by_hash, hh, r) != r) {
                free(disp);
                return UINT32_MAX;
            }
        } else {
            /* second in its hash chain: the head stays in the map */
            b->next = (*rows)[first].next;
            (*rows)[first].next = r;
        }
        (*nrows)++;
    }
    free(disp);
    row_of_pt[pt] = r;
    return r;
}

static int build_types(gcev_heap_set *s, gcev_heap *h)
{
    heap_proc *p = &s->procs[h->proc];
    uint32_t *row_of_pt = malloc((p->ntypes ? p->ntypes : 1) * sizeof *row_of_pt);
    heap_map by_hash = {0};
    row_build *rows = NULL;
    size_t nrows = 0, crows = 0;
    row_key *order = NULL;
    uint32_t *rank = NULL;
    int rc = -1;
    if (!row_of_pt) {
        goto out;
    }
    memset(row_of_pt, 0xff, (p->ntypes ? p->ntypes : 1) * sizeof *row_of_pt);
    for (uint32_t i = 0; i < h->n; i++) {
        uint32_t r = row_of(h, p, h->obj[i].type, row_of_pt, &by_hash, &rows, &nrows, &crows);
        if (r == UINT32_MAX) {
            goto out;
        }
        h->obj[i].type = r;
        rows[r].objects++;
        rows[r].bytes = gcev_hp_sat_add(rows[r].bytes, gcev_hp_size(h, i));
    }
    order = malloc((nrows ? nrows : 1) * sizeof *order);
    rank = malloc((nrows ? nrows : 1) * sizeof *rank);
    h->types = calloc(nrows ? nrows : 1, sizeof *h->types);
    if (!order || !rank || !h->types) {
        goto out;
    }
    for (size_t i = 0; i < nrows; i++) {
        /* nothing is added to the pool while sorting: its names can be pointed at */
        order[i] = (row_key){rows[i].bytes, rows[i].objects, rows[i].module, h->pool.s + rows[i].name - 1,
                             (uint32_t)i};
    }
    if (nrows > 1) { /* qsort's base may not be NULL, even for no element */
        qsort(order, nrows, sizeof *order, row_key_cmp);
    }
    for (size_t i = 0; i < nrows; i++) {
        rank[order[i].row] = (uint32_t)i;
        gcev_heap_type *t = &h->types[i];
        const row_build *b = &rows[order[i].row];
        t->name = (const char *)(uintptr_t)b->name; /* an offset until the pool stops growing */
        t->module_id = b->module;
        t->objects = b->objects;
        t->bytes = b->bytes;
    }
    /* rows made only for a static's declaring type hold no object: they sort last */
    h->ntypes = nrows;
    while (h->ntypes && h->types[h->ntypes - 1].objects == 0) {
        h->ntypes--;
    }
    for (uint32_t i = 0; i < h->n; i++) {
        h->obj[i].type = rank[h->obj[i].type];
    }
    rc = 0;
out:
    free(row_of_pt);
    gcev_hp_map_free(&by_hash);
    free(rows);
    free(order);
    free(rank);
    return rc;
}

/* CWT elements (key, value) with both objects known, in list order: sorted by key
 * with the list order kept (key << 32 | position), their values beside. */
static int cwt_sort(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The bytes of the dump's objects, located where they stop fitting in 64 bits. */
static void sum_bytes(gcev_heap *h)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < h->n; i++) {
        uint64_t sz = gcev_hp_size(h, i);
        if (total > UINT64_MAX - sz) {
            h->info.flags |= GCEV_HEAP_SIZE_OVERFLOW;
            gcev_hp_problem(
                h,
                "the objects' sizes add up to more than 2^64-1 bytes at object 0x%llx (size %llu, "
                "object %u of %u): byte totals and retained sizes stop at 2^64-1",
                (unsigned long long)h->obj[i].address, (unsigned long long)sz, i + 1, h->n);
            total = UINT64_MAX;
            break;
        }
        total += sz;
    }
    h->info.bytes = total;
}

/*
 * Memory: the graph is made in the reader's arrays. Objects are compacted in place
 * (16 bytes each), their EdgeCounts become the offsets (4), the 8-byte GCBulkEdge
 * values are resolved to 4-byte object indexes in the same buffer, which then
 * shrinks; the address index is 4 bytes per slot. At its peak the build holds
 * 20 bytes per object + 8 per reference + the index (6 to 12 per object).
 */
int gcev_hp_build_graph(gcev_heap_set *s, gcev_heap *h)
{
    size_t nraw = h->nraw;
    uint64_t nrefs = h->nraw_refs;
    heap_idx idx = {0};
    uint64_t *cwt = NULL;
    uint32_t *cwt_val = NULL;
    int rc = -1;
    /* the reader's arrays grew by half: their slack is given back before the index is made
     * (a shrinking realloc of a big block unmaps its tail, it copies nothing) */
    if (nraw && nraw < h->craw) {
        heap_obj *o2 = realloc(h->raw, nraw * sizeof *h->raw);
        uint32_t *c2 = o2 ? realloc(h->cnt, nraw * sizeof *h->cnt) : NULL;
        h->raw = o2 ? o2 : h->raw;
        h->cnt = c2 ? c2 : h->cnt;
        h->craw = h->ccnt = nraw;
    }
    if (nrefs && nrefs < h->craw_refs) {
        uint64_t *r2 = realloc(h->raw_refs, nrefs * sizeof *h->raw_refs);
        h->raw_refs = r2 ? r2 : h->raw_refs;
        h->craw_refs = nrefs;
    }
    h->obj = h->raw;
    if (gcev_hp_idx_init(&idx, nraw) != 0) {
        goto out;
    }
    /* 1. objects: the first of each address kept, each with its EdgeCount values (the
     *    references of a dropped duplicate, and those past the last object, removed) */
    uint64_t pos = 0, missing = 0, w = 0;
    uint32_t k = 0;
    size_t br = 0, bw = 0;
    for (size_t i = 0; i < nraw; i++) {
        uint64_t want = h->cnt[i], avail = nrefs - pos;
        uint64_t take = want < avail ? want : avail;
        int big = br < h->nbig && h->big[br].obj == i;
        br += big;
        missing += want - take;
        uint32_t got = gcev_hp_idx_put(&idx, h->raw, h->raw[i].address, k);
        if (got != k) {
            if (h->info.duplicate_objects++ == 0) {
                gcev_hp_problem(
                    h,
                    "object 0x%llx is listed twice (the first kept, %llu references of the second dropped)",
                    (unsigned long long)h->raw[i].address, (unsigned long long)take);
            }
            pos += take;
            continue;
        }
        h->raw[k] = h->raw[i];
        if (big) {
            h->big[bw] = h->big[br - 1];
            h->big[bw++].obj = k;
        }
        if (w != pos && take) {
            memmove(h->raw_refs + w, h->raw_refs + pos, (size_t)take * sizeof *h->raw_refs);
        }
        h->cnt[k] = (uint32_t)take;
        pos += take;
        w += take;
        k++;
    }
    h->n = k;
    h->nbig = bw;
    h->info.missing_references = missing;
    if (missing) {
        h->info.flags |= GCEV_HEAP_EDGES_SHORT;
        gcev_hp_problem(
            h, "the objects' EdgeCounts add up to %llu more references than the GCBulkEdge events hold",
            (unsigned long long)missing);
    }
    if (pos < nrefs) {
        h->info.extra_references = nrefs - pos;
        h->info.flags |= GCEV_HEAP_EDGES_EXTRA;
        gcev_hp_problem(h, "%llu GCBulkEdge values past the last object's references (dropped)",
                        (unsigned long long)(nrefs - pos));
    }
    /* 2. references resolved in place: value r (8 bytes at 8r) becomes an object index
     *    (4 bytes at 4o, o <= r: never over a value not read yet); per object the count
     *    kept. Through memcpy: the buffer changes element type. */
    unsigned char *buf = (unsigned char *)h->raw_refs;
    uint64_t r = 0, o = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t kept = 0;
        for (uint32_t j = 0; j < h->cnt[i]; j++, r++) {
            uint64_t a;
            memcpy(&a, buf + 8 * r, sizeof a);
            uint32_t t = gcev_hp_idx_get(&idx, h->raw, a);
            if (t == UINT32_MAX) {
                h->info.dangling_references++;
            } else {
                memcpy(buf + 4 * o, &t, sizeof t);
                o++;
                kept++;
            }
        }
        h->cnt[i] = kept;
    }
    /* CWT elements: a reference from the key to the value, after the key's own */
    size_t ncwt = h->ncwt / 2, nc = 0;
    cwt = malloc((ncwt ? ncwt : 1) * sizeof *cwt);
    cwt_val = malloc((ncwt ? ncwt : 1) * sizeof *cwt_val);
    if (!cwt || !cwt_val) {
        goto out;
    }
    for (size_t c = 0; c < ncwt; c++) {
        uint32_t key = gcev_hp_idx_get(&idx, h->raw, h->cwt[2 * c]);
        uint32_t val = gcev_hp_idx_get(&idx, h->raw, h->cwt[2 * c + 1]);
        if (key != UINT32_MAX && val != UINT32_MAX) {
            cwt[nc] = (uint64_t)key << 32 | nc;
            cwt_val[nc++] = val;
        }
    }
    if (nc > 1) {
        qsort(cwt, nc, sizeof *cwt, cwt_sort);
    }
    uint64_t total = o + nc;
    if (total > HEAP_MAX_REFS) {
        goto out;
    }
    /* the counts become the offsets, in place (one more entry) */
    uint32_t *off = realloc(h->cnt, ((size_t)k + 1) * sizeof *off);
    if (!off) {
        goto out;
    }
    h->cnt = NULL;
    h->off = off;
    {
        uint64_t run = 0;
        size_t c = 0;
        uint32_t cur = k ? off[0] : 0;
        off[0] = 0;
        for (uint32_t i = 0; i < k; i++) {
            uint32_t next = i + 1 < k ? off[i + 1] : 0;
            run += cur;
            for (; c < nc && (uint32_t)(cwt[c] >> 32) == i; c++) {
                run++;
            }
            off[i + 1] = (uint32_t)run;
            cur = next;
        }
    }
    uint32_t *refs = realloc(buf, (size_t)(total ? total : 1) * sizeof *refs);
    if (!refs) {
        goto out;
    }
    h->raw_refs = NULL;
    h->refs = refs;
    /* from the last object down, each object's references move up by the CWT
     * references of the objects before it, and its own CWT references follow them */
    {
        size_t c = nc, sh = nc;
        for (uint32_t i = k; i-- > 0 && sh;) {
            size_t ci = 0;
            while (c > ci && (uint32_t)(cwt[c - ci - 1] >> 32) == i) {
                ci++;
            }
            uint32_t end = off[i + 1], start = off[i];
            uint32_t old_start = start - (uint32_t)(sh - ci), old_end = end - (uint32_t)sh;
            if (old_end > old_start && start != old_start) {
                memmove(refs + start, refs + old_start, (size_t)(old_end - old_start) * sizeof *refs);
            }
            for (size_t q = 0; q < ci; q++) {
                refs[end - ci + q] = cwt_val[(uint32_t)cwt[c - ci + q]];
            }
            c -= ci;
            sh -= ci;
        }
    }
    if (h->info.dangling_references) {
        gcev_hp_problem(h, "%llu references to addresses that are no object of the dump (dropped)",
                        (unsigned long long)h->info.dangling_references);
    }
    /* 3. roots, then the CWT elements listed as roots of kind cwt */
    h->roots = calloc(h->nraw_roots + ncwt + 1, sizeof *h->roots);
    if (!h->roots) {
        goto out;
    }
    for (size_t i = 0; i < h->nraw_roots; i++) {
        const heap_raw_root *rr = &h->raw_roots[i];
        gcev_heap_root *ro = &h->roots[i];
        ro->object = gcev_hp_idx_get(&idx, h->raw, rr->address);
        ro->kind = rr->kind;
        ro->flags = rr->flags;
        ro->id = rr->id;
        if (ro->object == UINT32_MAX) {
            h->info.dangling_roots++;
        } else if (ro->kind != GCEV_HEAP_ROOT_WEAK) {
            h->info.roots++;
        }
    }
    h->nroots = h->nraw_roots;
    for (size_t c = 0; c < ncwt; c++) {
        uint32_t key = gcev_hp_idx_get(&idx, h->raw, h->cwt[2 * c]);
        gcev_heap_root *ro = &h->roots[h->nroots++];
        ro->kind = GCEV_HEAP_ROOT_CWT;
        ro->object = gcev_hp_idx_get(&idx, h->raw, h->cwt[2 * c + 1]);
        ro->id = key;
    }
    if (h->info.dangling_roots) {
        gcev_hp_problem(h, "%llu roots of addresses that are no object of the dump",
                        (unsigned long long)h->info.dangling_roots);
    }
    /* 4. types (and the static roots' names, which need them) */
    gcev_hp_idx_free(&idx);
    if (build_types(s, h) != 0) {
        goto out;
    }
    sum_bytes(h);
    h->info.objects = k;
    h->info.references = total;
    h->info.types = h->ntypes;
    /* the pool has stopped growing: offsets become pointers */
    for (size_t i = 0; i < h->ntypes; i++) {
        h->types[i].name = h->pool.s + (uintptr_t)h->types[i].name - 1;
    }
    for (size_t i = 0; i < h->nroots; i++) {
        uint32_t nm = i < h->nraw_roots ? h->raw_roots[i].name : 0;
        h->roots[i].name = nm ? h->pool.s + nm - 1 : "";
    }
    rc = 0;
out:
    free(cwt);
    free(cwt_val);
    gcev_hp_idx_free(&idx);
    free(h->raw_refs);
    h->raw_refs = NULL;
    free(h->cnt);
    h->cnt = NULL;
    free(h->raw_roots);
    h->raw_roots = NULL;
    free(h->cwt);
    h->cwt = NULL;
    if (rc == 0 && h->n < h->craw) {
        heap_obj *shrunk = realloc(h->raw, (h->n ? h->n : 1) * sizeof *h->raw);
        if (shrunk) {
            h->raw = h->obj = shrunk;
            h->craw = h->n;
        }
    }
    if (rc == 0 && h->nbig < h->cbig) {
        heap_big *b = realloc(h->big, (h->nbig ? h->nbig : 1) * sizeof *h->big);
        if (b) {
            h->big = b;
            h->cbig = h->nbig;
        }
    }
    return rc;
}
