/* SPDX-License-Identifier: MIT */
/*
 * Dominators and retained sizes. The graph gets a virtual root (index n) whose
 * references are the roots; Lengauer-Tarjan ("simple" version, path compression
 * only: O(E log N), never worse on any input) gives each object reachable from it
 * its immediate dominator; an object's retained size is the sum of the sizes of the
 * objects it dominates (itself included), a type's the retained sizes of its
 * objects that no other object of the type dominates (each byte counted once).
 * Everything is iterative: a 10-million-long chain needs no deep C stack.
 */
#include <stdlib.h>
#include <string.h>

#include "gcev_heap_internal.h"

/* The virtual root's references: the objects the roots keep alive (weak and CWT
 * records are not roots). *out is malloc'ed. */
static int root_targets(const gcev_heap *h, uint32_t **out, uint32_t *n)
{
    uint32_t *t = malloc((h->nroots ? h->nroots : 1) * sizeof *t);
    if (!t) {
        return -1;
    }
    uint32_t k = 0;
    for (size_t i = 0; i < h->nroots; i++) {
        const gcev_heap_root *r = &h->roots[i];
        if (r->object != GCEV_HEAP_NONE && r->kind != GCEV_HEAP_ROOT_WEAK && r->kind != GCEV_HEAP_ROOT_CWT) {
            t[k++] = r->object;
        }
    }
    *out = t;
    *n = k;
    return 0;
}

typedef struct lt {
    uint32_t *semi, *label, *ancestor, *path;
} lt;

static inline uint32_t lt_eval(lt *l, uint32_t v)
{
    if (l->ancestor[v] == 0) {
        return v;
    }
    uint32_t top = 0, x = v;
    while (l->ancestor[l->ancestor[x]] != 0) {
        l->path[top++] = x;
        x = l->ancestor[x];
    }
    while (top) {
        uint32_t y = l->path[--top], a = l->ancestor[y];
        if (l->semi[l->label[a]] < l->semi[l->label[y]]) {
            l->label[y] = l->label[a];
        }
        l->ancestor[y] = l->ancestor[a];
    }
    return l->label[v];
}

static void type_retained(gcev_heap *h, uint32_t *child_off, uint32_t *child, uint32_t *stk, uint32_t *pos,
                          uint32_t *tcnt)
{
    uint32_t n = h->n;
    for (size_t t = 0; t < h->ntypes; t++) {
        h->types[t].retained = 0;
        h->types[t].max_retained = 0;
    }
    size_t sp = 0;
    stk[sp] = n;
    pos[sp] = child_off[n];
    sp++;
    while (sp) {
        uint32_t v = stk[sp - 1];
        if (pos[sp - 1] == child_off[v + 1]) {
            sp--;
            if (v != n) {
                tcnt[h->obj[v].ptype]--;
            }
            continue;
        }
        uint32_t w = child[pos[sp - 1]++];
        gcev_heap_type *t = &h->types[h->obj[w].ptype];
        if (tcnt[h->obj[w].ptype]++ == 0) {
            t->retained += h->retained[w];
        }
        if (h->retained[w] > t->max_retained) {
            t->max_retained = h->retained[w];
        }
        stk[sp] = w;
        pos[sp] = child_off[w];
        sp++;
    }
}

gcev_status gcev_heap_analyze(gcev_heap *h)
{
    if (!h) {
        return GCEV_E_INVALID_ARG;
    }
    if (h->idom) {
        return GCEV_OK;
    }
    const uint32_t n = h->n, root = n;
    const size_t N1 = (size_t)n + 1, A = N1 + 1; /* nodes with the root; dfn arrays are 1-based */
    uint32_t *rs = NULL, nrs = 0;
    uint32_t *dfn = NULL, *vertex = NULL, *parent = NULL, *idomd = NULL, *bhead = NULL, *bnext = NULL;
    uint32_t *poff = NULL, *pred = NULL;
    uint32_t *idom = NULL;
    uint64_t *ret = NULL;
    lt l = {0};
    gcev_status st = GCEV_E_NOMEM;
    if (root_targets(h, &rs, &nrs)) {
        goto out;
    }
    /* predecessors (CSR), the root's references included */
    uint64_t E = (uint64_t)h->off[n] + nrs;
    poff = calloc(A, sizeof *poff);
    pred = malloc((E ? E : 1) * sizeof *pred);
    dfn = calloc(N1, sizeof *dfn);
    vertex = malloc(A * sizeof *vertex);
    parent = malloc(A * sizeof *parent);
    idomd = malloc(A * sizeof *idomd);
    bhead = calloc(A, sizeof *bhead);
    bnext = malloc(A * sizeof *bnext);
    l.semi = malloc(A * sizeof *l.semi);
    l.label = malloc(A * sizeof *l.label);
    l.ancestor = malloc(A * sizeof *l.ancestor);
    l.path = malloc(A * sizeof *l.path);
    if (E > UINT32_MAX || !poff || !pred || !dfn || !vertex || !parent || !idomd || !bhead || !bnext ||
        !l.semi || !l.label || !l.ancestor || !l.path) {
        goto out;
    }
    for (uint32_t v = 0; v < n; v++) {
        for (uint32_t j = h->off[v]; j < h->off[v + 1]; j++) {
            poff[h->refs[j] + 1]++;
        }
    }
    for (uint32_t j = 0; j < nrs; j++) {
        poff[rs[j] + 1]++;
    }
    for (size_t v = 0; v < N1; v++) {
        poff[v + 1] += poff[v];
    }
    /* fill with a cursor per node: bnext is free until the main loop */
    memcpy(bnext, poff, N1 * sizeof *bnext);
    for (uint32_t v = 0; v < n; v++) {
        for (uint32_t j = h->off[v]; j < h->off[v + 1]; j++) {
            pred[bnext[h->refs[j]]++] = v;
        }
    }
    for (uint32_t j = 0; j < nrs; j++) {
        pred[bnext[rs[j]]++] = root;
    }
    /* depth-first numbering from the root (label / ancestor serve as the stack) */
    uint32_t cnt = 0;
    size_t sp = 0;
    uint32_t *stk = l.label, *spos = l.ancestor;
    dfn[root] = ++cnt;
    vertex[cnt] = root;
    parent[cnt] = 0;
    stk[sp] = root;
    spos[sp] = 0;
    sp++;
    while (sp) {
        uint32_t v = stk[sp - 1], w;
        if (v == root) {
            if (spos[sp - 1] == nrs) {
                sp--;
                continue;
            }
            w = rs[spos[sp - 1]++];
        } else {
            uint32_t p = h->off[v] + spos[sp - 1];
            if (p == h->off[v + 1]) {
                sp--;
                continue;
            }
            spos[sp - 1]++;
            w = h->refs[p];
        }
        if (dfn[w] == 0) {
            dfn[w] = ++cnt;
            vertex[cnt] = w;
            parent[cnt] = dfn[v];
            stk[sp] = w;
            spos[sp] = 0;
            sp++;
        }
    }
    for (uint32_t i = 1; i <= cnt; i++) {
        l.semi[i] = i;
        l.label[i] = i;
        l.ancestor[i] = 0;
    }
    l.semi[0] = 0;
    l.label[0] = 0;
    l.ancestor[0] = 0;
    for (uint32_t i = cnt; i >= 2; i--) {
        uint32_t w = vertex[i];
        for (uint32_t j = poff[w]; j < poff[w + 1]; j++) {
            uint32_t dv = dfn[pred[j]];
            if (dv == 0) {
                continue; /* from an unreachable object */
            }
            uint32_t u = lt_eval(&l, dv);
            if (l.semi[u] < l.semi[i]) {
                l.semi[i] = l.semi[u];
            }
        }
        bnext[i] = bhead[l.semi[i]];
        bhead[l.semi[i]] = i;
        uint32_t p = parent[i];
        l.ancestor[i] = p;
        for (uint32_t x = bhead[p]; x; x = bnext[x]) {
            uint32_t u = lt_eval(&l, x);
            idomd[x] = l.semi[u] < l.semi[x] ? u : p;
        }
        bhead[p] = 0;
    }
    for (uint32_t i = 2; i <= cnt; i++) {
        if (idomd[i] != l.semi[i]) {
            idomd[i] = idomd[idomd[i]];
        }
    }
    /* object space: n = dominated by the roots alone, UINT32_MAX = unreachable */
    idom = malloc((n ? n : 1) * sizeof *idom);
    ret = malloc((n ? n : 1) * sizeof *ret);
    if (!idom || !ret) {
        goto out;
    }
    h->info.unreachable_objects = 0;
    h->info.unreachable_bytes = 0;
    for (uint32_t v = 0; v < n; v++) {
        ret[v] = h->obj[v].size;
        if (dfn[v] == 0) {
            idom[v] = UINT32_MAX;
            h->info.unreachable_objects++;
            h->info.unreachable_bytes += h->obj[v].size;
        } else {
            idom[v] = vertex[idomd[dfn[v]]];
        }
    }
    for (uint32_t i = cnt; i >= 2; i--) {
        uint32_t v = vertex[i], d = idom[v];
        if (d != root) {
            ret[d] += ret[v];
        }
    }
    h->idom = idom;
    h->retained = ret;
    idom = NULL;
    ret = NULL;
    /* the dominator tree's children (CSR) for the per-type sums: the LT arrays are free now */
    {
        uint32_t *child_off = poff; /* A entries */
        uint32_t *child = pred;     /* cnt - 1 <= E entries (each reachable object has a predecessor) */
        memset(child_off, 0, A * sizeof *child_off);
        for (uint32_t v = 0; v < n; v++) {
            if (h->idom[v] != UINT32_MAX) {
                child_off[h->idom[v] + 1]++;
            }
        }
        for (size_t v = 0; v < N1; v++) {
            child_off[v + 1] += child_off[v];
        }
        memcpy(bnext, child_off, N1 * sizeof *bnext);
        for (uint32_t v = 0; v < n; v++) {
            if (h->idom[v] != UINT32_MAX) {
                child[bnext[h->idom[v]]++] = v;
            }
        }
        uint32_t *tcnt = calloc(h->ntypes ? h->ntypes : 1, sizeof *tcnt);
        if (!tcnt) {
            free(h->idom);
            free(h->retained);
            h->idom = NULL;
            h->retained = NULL;
            goto out;
        }
        type_retained(h, child_off, child, vertex, parent, tcnt);
        free(tcnt);
    }
    h->info.analyzed = 1;
    st = GCEV_OK;
out:
    free(rs);
    free(dfn);
    free(vertex);
    free(parent);
    free(idomd);
    free(bhead);
    free(bnext);
    free(poff);
    free(pred);
    free(l.semi);
    free(l.label);
    free(l.ancestor);
    free(l.path);
    free(idom);
    free(ret);
    return st;
}

size_t gcev_heap_top_retainers(gcev_heap *h, uint32_t *idx, size_t k)
{
    if (!h || !idx || k == 0 || gcev_heap_analyze(h) != GCEV_OK) {
        return 0;
    }
    /* a min-heap of the k largest: O(n log k) */
    size_t m = 0;
    for (uint32_t v = 0; v < h->n; v++) {
        if (h->idom[v] == UINT32_MAX) {
            continue;
        }
        uint64_t r = h->retained[v];
        if (m < k) {
            size_t c = m++;
            while (c > 0 && h->retained[idx[(c - 1) / 2]] > r) {
                idx[c] = idx[(c - 1) / 2];
                c = (c - 1) / 2;
            }
            idx[c] = v;
        } else if (r > h->retained[idx[0]]) {
            size_t c = 0;
            for (;;) {
                size_t a = 2 * c + 1, b = a + 1, s = c;
                uint64_t sv = r;
                if (a < m && h->retained[idx[a]] < sv) {
                    s = a;
                    sv = h->retained[idx[a]];
                }
                if (b < m && h->retained[idx[b]] < sv) {
                    s = b;
                }
                if (s == c) {
                    break;
                }
                idx[c] = idx[s];
                c = s;
            }
            idx[c] = v;
        }
    }
    /* largest first */
    for (size_t end = m; end > 1; end--) {
        uint32_t top = idx[0];
        uint32_t last = idx[end - 1];
        size_t c = 0, len = end - 1;
        for (;;) {
            size_t a = 2 * c + 1, b = a + 1, s = c;
            uint64_t sv = h->retained[last];
            if (a < len && h->retained[idx[a]] < sv) {
                s = a;
                sv = h->retained[idx[a]];
            }
            if (b < len && h->retained[idx[b]] < sv) {
                s = b;
            }
            if (s == c) {
                break;
            }
            idx[c] = idx[s];
            c = s;
        }
        idx[c] = last;
        idx[end - 1] = top;
    }
    return m;
}
