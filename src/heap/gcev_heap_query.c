/* SPDX-License-Identifier: MIT */
/* What a finished dump answers: objects, types, roots, shortest paths from roots, diffs. */
#include <stdlib.h>
#include <string.h>

#include "gcev_heap_internal.h"

static void heap_free(gcev_heap *h)
{
    if (!h) {
        return;
    }
    free(h->raw);
    free(h->cnt);
    free(h->big);
    free(h->raw_refs);
    free(h->raw_roots);
    free(h->cwt);
    free(h->pool.s);
    for (size_t i = 0; i < h->nproblems; i++) {
        free(h->problems[i]);
    }
    free(h->off);
    free(h->refs);
    free(h->roots);
    free(h->types);
    gcev_hp_idx_free(&h->addr_index);
    free(h->idom);
    free(h->retained);
    free(h->bfs_parent);
    free(h->bfs_order);
    free(h->type_nearest);
    free(h);
}

void gcev_heap_set_free(gcev_heap_set *s)
{
    if (!s) {
        return;
    }
    for (size_t i = 0; i < s->n; i++) {
        heap_free(s->dumps[i]);
    }
    free(s->dumps);
    for (size_t i = 0; i < s->nprocs; i++) {
        gcev_hp_map_free(&s->procs[i].type_of);
        free(s->procs[i].types);
        free(s->procs[i].names.s);
    }
    free(s->procs);
    free(s);
}

size_t gcev_heap_set_count(const gcev_heap_set *s)
{
    return s ? s->n : 0;
}

gcev_heap *gcev_heap_set_at(gcev_heap_set *s, size_t i)
{
    return s && i < s->n ? s->dumps[i] : NULL;
}

const gcev_heap_info *gcev_heap_get_info(const gcev_heap *h)
{
    return h ? &h->info : NULL;
}

size_t gcev_heap_problem_count(const gcev_heap *h)
{
    return h ? h->nproblems : 0;
}

const char *gcev_heap_problem_at(const gcev_heap *h, size_t i)
{
    return h && i < h->nproblems ? h->problems[i] : NULL;
}

uint32_t gcev_heap_object_count(const gcev_heap *h)
{
    return h ? h->n : 0;
}

gcev_status gcev_heap_object_get(const gcev_heap *h, uint32_t i, gcev_heap_object *out)
{
    if (!h || !out || i >= h->n) {
        return GCEV_E_INVALID_ARG;
    }
    memset(out, 0, sizeof *out);
    out->address = h->obj[i].address;
    out->size = gcev_hp_size(h, i);
    out->type = h->obj[i].type;
    out->references = h->off[i + 1] - h->off[i];
    out->idom = GCEV_HEAP_NONE;
    if (h->idom) {
        uint32_t d = h->idom[i];
        out->reachable = d != UINT32_MAX;
        out->idom = d == h->n ? GCEV_HEAP_NONE : d;
        out->retained = h->retained[i];
    }
    return GCEV_OK;
}

uint32_t gcev_heap_object_find(gcev_heap *h, uint64_t address)
{
    if (!h || h->n == 0) {
        return GCEV_HEAP_NONE;
    }
    if (!h->addr_index.cap) {
        if (gcev_hp_idx_init(&h->addr_index, h->n) != 0) {
            return GCEV_HEAP_NONE;
        }
        for (uint32_t i = 0; i < h->n; i++) {
            gcev_hp_idx_put(&h->addr_index, h->obj, h->obj[i].address, i);
        }
    }
    return gcev_hp_idx_get(&h->addr_index, h->obj, address);
}

uint32_t gcev_heap_object_ref(const gcev_heap *h, uint32_t i, uint32_t n)
{
    if (!h || i >= h->n || n >= h->off[i + 1] - h->off[i]) {
        return GCEV_HEAP_NONE;
    }
    return h->refs[h->off[i] + n];
}

size_t gcev_heap_type_count(const gcev_heap *h)
{
    return h ? h->ntypes : 0;
}

gcev_status gcev_heap_type_get(const gcev_heap *h, size_t i, gcev_heap_type *out)
{
    if (!h || !out || i >= h->ntypes) {
        return GCEV_E_INVALID_ARG;
    }
    *out = h->types[i];
    return GCEV_OK;
}

uint32_t gcev_heap_type_find(const gcev_heap *h, const char *name)
{
    if (!h || !name) {
        return GCEV_HEAP_NONE;
    }
    for (size_t i = 0; i < h->ntypes; i++) {
        if (strcmp(h->types[i].name, name) == 0) {
            return (uint32_t)i;
        }
    }
    return GCEV_HEAP_NONE;
}

const char *gcev_heap_root_kind_name(uint32_t kind)
{
    static const char *const names[GCEV_HEAP_ROOT_KINDS] = {
        "stack", "finalizer", "strong handle", "pinned handle", "refcounted handle",
        "other", "static",    "thread static", "ccw",           "weak handle",
        "cwt"};
    return kind < GCEV_HEAP_ROOT_KINDS ? names[kind] : "?";
}

size_t gcev_heap_root_count(const gcev_heap *h)
{
    return h ? h->nroots : 0;
}

gcev_status gcev_heap_root_get(const gcev_heap *h, size_t i, gcev_heap_root *out)
{
    if (!h || !out || i >= h->nroots) {
        return GCEV_E_INVALID_ARG;
    }
    *out = h->roots[i];
    return GCEV_OK;
}

/* Breadth-first from the roots, in the order the runtime listed them: each object's
 * parent on a shortest path (n + r: the root record r keeps it; UINT32_MAX: unreached),
 * and per type the first object reached. */
int gcev_hp_bfs(gcev_heap *h)
{
    if (h->bfs_parent) {
        return 0;
    }
    uint32_t n = h->n;
    uint32_t *par = malloc((n ? n : 1) * sizeof *par);
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    uint32_t *near = malloc((h->ntypes ? h->ntypes : 1) * sizeof *near);
    if (!par || !queue || !near || (uint64_t)n + h->nroots >= UINT32_MAX) {
        free(par);
        free(queue);
        free(near);
        return -1;
    }
    memset(par, 0xff, (n ? n : 1) * sizeof *par);
    memset(near, 0xff, (h->ntypes ? h->ntypes : 1) * sizeof *near);
    size_t qh = 0, qt = 0;
    for (size_t r = 0; r < h->nroots; r++) {
        const gcev_heap_root *rt = &h->roots[r];
        if (rt->object == GCEV_HEAP_NONE || rt->kind == GCEV_HEAP_ROOT_WEAK ||
            rt->kind == GCEV_HEAP_ROOT_CWT) {
            continue;
        }
        if (par[rt->object] == UINT32_MAX) {
            par[rt->object] = n + (uint32_t)r;
            queue[qt++] = rt->object;
        }
    }
    while (qh < qt) {
        uint32_t v = queue[qh++];
        if (near[h->obj[v].type] == UINT32_MAX) {
            near[h->obj[v].type] = v;
        }
        for (uint32_t j = h->off[v]; j < h->off[v + 1]; j++) {
            uint32_t w = h->refs[j];
            if (par[w] == UINT32_MAX) {
                par[w] = v;
                queue[qt++] = w;
            }
        }
    }
    h->bfs_order = queue;
    h->nbfs = qt;
    h->bfs_parent = par;
    h->type_nearest = near;
    return 0;
}

gcev_status gcev_heap_path(gcev_heap *h, uint32_t object, uint32_t *path, size_t cap, size_t *len,
                           size_t *root)
{
    if (!h || !len || !root || object >= h->n || (cap && !path)) {
        return GCEV_E_INVALID_ARG;
    }
    *len = 0;
    if (gcev_hp_bfs(h) != 0) {
        return GCEV_E_NOMEM;
    }
    if (h->bfs_parent[object] == UINT32_MAX) {
        return GCEV_OK;
    }
    size_t l = 1;
    uint32_t v = object;
    while (h->bfs_parent[v] < h->n) {
        v = h->bfs_parent[v];
        l++;
    }
    *root = h->bfs_parent[v] - h->n;
    *len = l;
    /* fill from the end: the last cap objects of the path */
    size_t at = l;
    v = object;
    for (;;) {
        at--;
        if (at < cap) {
            path[at] = v;
        }
        if (h->bfs_parent[v] >= h->n) {
            break;
        }
        v = h->bfs_parent[v];
    }
    return GCEV_OK;
}

uint32_t gcev_heap_type_nearest(gcev_heap *h, uint32_t type)
{
    if (!h || type >= h->ntypes || gcev_hp_bfs(h) != 0) {
        return GCEV_HEAP_NONE;
    }
    return h->type_nearest[type];
}

/* ---- diff ---- */

static int name_cmp(const void *a, const void *b)
{
    const gcev_heap_type *x = *(const gcev_heap_type *const *)a, *y = *(const gcev_heap_type *const *)b;
    return strcmp(x->name, y->name);
}

/* b - a against d - c, exactly (the difference of two 64-bit sums needs 65 bits) */
static int delta_cmp(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    int gx = b >= a, gy = d >= c;
    if (gx != gy) {
        return gx ? 1 : -1;
    }
    uint64_t mx = gx ? b - a : a - b, my = gy ? d - c : c - d;
    if (mx == my) {
        return 0;
    }
    return (mx > my) == gx ? 1 : -1;
}

static int growth_cmp(const void *a, const void *b)
{
    const gcev_heap_diff_row *x = a, *y = b;
    int c = delta_cmp(x->bytes_a, x->bytes_b, y->bytes_a, y->bytes_b);
    if (c) {
        return -c;
    }
    c = delta_cmp(x->objects_a, x->objects_b, y->objects_a, y->objects_b);
    if (c) {
        return -c;
    }
    return strcmp(x->name, y->name);
}

/* Rows of one dump sorted by name, the rows of one name summed (several modules). */
static const gcev_heap_type **by_name(gcev_heap *h)
{
    const gcev_heap_type **v = malloc((h->ntypes ? h->ntypes : 1) * sizeof *v);
    if (v) {
        for (size_t i = 0; i < h->ntypes; i++) {
            v[i] = &h->types[i];
        }
        qsort(v, h->ntypes, sizeof *v, name_cmp);
    }
    return v;
}

gcev_status gcev_heap_diff(gcev_heap *a, gcev_heap *b, gcev_heap_diff_row **rows, size_t *n)
{
    if (!a || !b || !rows || !n) {
        return GCEV_E_INVALID_ARG;
    }
    *rows = NULL;
    *n = 0;
    const gcev_heap_type **va = by_name(a), **vb = by_name(b);
    gcev_heap_diff_row *out = malloc((a->ntypes + b->ntypes + 1) * sizeof *out);
    uint32_t *brow = malloc((b->ntypes ? b->ntypes : 1) * sizeof *brow);
    if (!va || !vb || !out || !brow || gcev_hp_bfs(b) != 0 || gcev_heap_object_find(a, 0) == UINT32_MAX - 1) {
        free(va);
        free(vb);
        free(out);
        free(brow);
        return GCEV_E_NOMEM;
    }
    size_t i = 0, j = 0, k = 0;
    while (i < a->ntypes || j < b->ntypes) {
        int c = i == a->ntypes ? 1 : j == b->ntypes ? -1 : strcmp(va[i]->name, vb[j]->name);
        const char *name = c <= 0 ? va[i]->name : vb[j]->name;
        gcev_heap_diff_row *r = &out[k];
        if (k > 0 && strcmp(out[k - 1].name, name) == 0) {
            r = &out[k - 1]; /* the same name in another module: one row */
        } else {
            memset(r, 0, sizeof *r);
            r->name = name;
            r->new_object = GCEV_HEAP_NONE;
            k++;
        }
        if (c <= 0) {
            r->objects_a += va[i]->objects;
            r->bytes_a = gcev_hp_sat_add(r->bytes_a, va[i]->bytes);
            i++;
        }
        if (c >= 0) {
            r->objects_b += vb[j]->objects;
            r->bytes_b = gcev_hp_sat_add(r->bytes_b, vb[j]->bytes);
            brow[vb[j] - b->types] = (uint32_t)(r - out);
            j++;
        }
    }
    /* for each grown type, one new object of b: at an address where a had no object of
     * the type (the dump's GC compacts, so this is a guess, never a proof), the first
     * reached from the roots (breadth-first order: the nearest) */
    for (size_t q = 0; q < b->nbfs; q++) {
        uint32_t v = b->bfs_order[q];
        gcev_heap_diff_row *r = &out[brow[b->obj[v].type]];
        if (r->new_object != GCEV_HEAP_NONE || (r->objects_b <= r->objects_a && r->bytes_b <= r->bytes_a)) {
            continue;
        }
        uint32_t av = gcev_heap_object_find(a, b->obj[v].address);
        if (av != GCEV_HEAP_NONE && strcmp(a->types[a->obj[av].type].name, r->name) == 0) {
            continue;
        }
        r->new_object = v;
    }
    if (k > 1) { /* qsort's base may not be NULL, even for no element */
        qsort(out, k, sizeof *out, growth_cmp);
    }
    free(va);
    free(vb);
    free(brow);
    *rows = out;
    *n = k;
    return GCEV_OK;
}
