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

/*
 * The forest of Lengauer-Tarjan's EVAL/LINK, in depth-first numbers 2.. (1: the
 * virtual root). The nodes >= lo are linked (they are the ones done: the loop goes
 * down from the last number); the others have ancestor 0, semi and label themselves,
 * so their slots hold other things (the predecessor offsets, the bucket heads) and
 * are never read as these.
 */
typedef struct lt {
    uint32_t *anc;  /* ancestor of a linked node; below lo: predecessor offsets */
    uint32_t *semi; /* semidominator of a linked node; below lo: the head of its bucket */
    uint32_t *label;
    uint32_t lo;
} lt;

/* EVAL with path compression. The path is walked up reversing its ancestor pointers
 * and back down restoring them compressed: no stack (a path can be n long). */
static inline uint32_t lt_eval(lt *l, uint32_t v)
{
    if (v < l->lo) {
        return v;
    }
    uint32_t x = v, prev = 0;
    while (l->anc[x] >= l->lo) {
        uint32_t up = l->anc[x];
        l->anc[x] = prev;
        prev = x;
        x = up;
    }
    uint32_t a = x; /* its ancestor is the tree's root: unchanged */
    while (prev) {
        uint32_t y = prev;
        prev = l->anc[y];
        if (l->semi[l->label[a]] < l->semi[l->label[y]]) {
            l->label[y] = l->label[a];
        }
        l->anc[y] = l->anc[a];
        a = y;
    }
    return l->label[v];
}

/* A type's retained bytes: the retained sizes of its objects that no object of the
 * type dominates. The dominator tree walked depth first without a stack: each node's
 * first child and next sibling, and back up through idom. */
static void type_retained(gcev_heap *h, const uint32_t *first, const uint32_t *next, uint32_t *tcnt)
{
    const uint32_t n = h->n;
    for (size_t t = 0; t < h->ntypes; t++) {
        h->types[t].retained = 0;
        h->types[t].max_retained = 0;
    }
    uint32_t v = first[n];
    while (v != UINT32_MAX) {
        tcnt[h->obj[v].type]++;
        if (first[v] != UINT32_MAX) {
            v = first[v];
            continue;
        }
        for (;;) {
            gcev_heap_type *t = &h->types[h->obj[v].type];
            uint64_t r = h->retained[v];
            if (--tcnt[h->obj[v].type] == 0) {
                t->retained = gcev_hp_sat_add(t->retained, r);
            }
            if (r > t->max_retained) {
                t->max_retained = r;
            }
            if (next[v] != UINT32_MAX) {
                v = next[v];
                break;
            }
            v = h->idom[v];
            if (v == n) {
                v = UINT32_MAX;
                break;
            }
        }
    }
}

/*
 * Memory, per object over the graph's 20 (and per reference over its 4): the DFS holds
 * 16 (number, vertex, two stack arrays); the predecessors 4 per reference; the main
 * loop 20 (vertex and four arrays, each slot serving two purposes); what stays is 12
 * (idom, retained), and the last step (the per-type sums) 8 more for a while. Each
 * array is freed as soon as its phase ends, so the peak is the graph + 20 per object
 * + 4 per reference.
 */
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
    uint32_t *dfn = NULL, *vertex = NULL, *pred = NULL, *idomd = NULL;
    uint32_t *first = NULL, *next = NULL, *tcnt = NULL;
    lt l = {0};
    gcev_status st = GCEV_E_NOMEM;
    if (root_targets(h, &rs, &nrs)) {
        goto out;
    }
    /* 1. depth-first numbering from the root; the stack in the arrays the main loop
     *    gets later (anc: the node, semi: its next reference) */
    dfn = calloc(N1, sizeof *dfn);
    vertex = malloc(A * sizeof *vertex);
    l.anc = malloc(A * sizeof *l.anc);
    l.semi = malloc(A * sizeof *l.semi);
    if (!dfn || !vertex || !l.anc || !l.semi) {
        goto out;
    }
    uint32_t cnt = 0;
    {
        size_t sp = 0;
        uint32_t *stk = l.anc, *spos = l.semi;
        dfn[root] = ++cnt;
        vertex[cnt] = root;
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
#if defined(__GNUC__)
                /* the numbers of w's references are read next, at random places of a big
                 * array: asked for now, they arrive while the walk goes on */
                for (uint32_t j = h->off[w], e = h->off[w + 1]; j < e && j < h->off[w] + 4; j++) {
                    __builtin_prefetch(&dfn[h->refs[j]]);
                }
#endif
                stk[sp] = w;
                spos[sp] = 0;
                sp++;
            }
        }
    }
    /* 2. predecessors in depth-first numbers (CSR; the unreachable left out): counted,
     *    then each list filled from its end, so anc[x] ends at the start of x's list */
    uint32_t *poff = l.anc;
    memset(poff, 0, A * sizeof *poff);
    uint64_t E = 0;
    for (uint32_t i = 1; i <= cnt; i++) {
        uint32_t v = vertex[i];
        if (v == root) {
            for (uint32_t j = 0; j < nrs; j++) {
                poff[dfn[rs[j]]]++;
            }
            E += nrs;
        } else {
            for (uint32_t j = h->off[v]; j < h->off[v + 1]; j++) {
                poff[dfn[h->refs[j]]]++;
            }
            E += h->off[v + 1] - h->off[v];
        }
    }
    if (E > UINT32_MAX) {
        goto out;
    }
    for (uint32_t i = 1; i <= cnt; i++) {
        poff[i] += poff[i - 1]; /* the end of i's list */
    }
    pred = malloc((E ? E : 1) * sizeof *pred);
    if (!pred) {
        goto out;
    }
    for (uint32_t i = 1; i <= cnt; i++) {
        uint32_t v = vertex[i];
        if (v == root) {
            for (uint32_t j = 0; j < nrs; j++) {
                pred[--poff[dfn[rs[j]]]] = i;
            }
        } else {
            for (uint32_t j = h->off[v]; j < h->off[v + 1]; j++) {
                pred[--poff[dfn[h->refs[j]]]] = i;
            }
        }
    }
    free(dfn);
    dfn = NULL;
    /* 3. semidominators, and immediate dominators through the buckets. A node's DFS
     *    parent is its greatest predecessor below it (a predecessor between the two
     *    would have been finished before the node was found, and found it), so no
     *    parent array; the bucket list's links become the dominators (idomd). */
    l.label = malloc(A * sizeof *l.label);
    idomd = malloc(A * sizeof *idomd);
    if (!l.label || !idomd) {
        goto out;
    }
    memset(l.semi, 0, A * sizeof *l.semi); /* every bucket empty */
    {
        uint32_t hi = (uint32_t)E; /* the end of the list of the node after i */
        for (uint32_t i = cnt; i >= 2; i--) {
            uint32_t beg = poff[i], end = hi, s = i, par = 0;
            hi = beg;
            l.lo = i + 1;
            for (uint32_t j = beg; j < end; j++) {
                uint32_t dv = pred[j];
                if (dv < i) {
                    s = dv < s ? dv : s;
                    par = dv > par ? dv : par;
                } else if (dv > i) {
                    uint32_t u = lt_eval(&l, dv);
                    s = l.semi[u] < s ? l.semi[u] : s;
                }
            }
            l.semi[i] = s; /* i's own bucket emptied at its children's steps, all done */
            idomd[i] = l.semi[s];
            l.semi[s] = i;
            l.anc[i] = par;
            l.label[i] = i;
            l.lo = i;
            for (uint32_t x = l.semi[par], nx; x; x = nx) {
                nx = idomd[x];
                uint32_t u = lt_eval(&l, x);
                idomd[x] = l.semi[u] < l.semi[x] ? u : par;
            }
            l.semi[par] = 0;
        }
    }
    for (uint32_t i = 2; i <= cnt; i++) {
        if (idomd[i] != l.semi[i]) {
            idomd[i] = idomd[idomd[i]];
        }
    }
    free(pred);
    pred = NULL;
    free(l.anc);
    free(l.semi);
    free(l.label);
    l = (lt){0};
    /* 4. object space: n = dominated by the roots alone, UINT32_MAX = unreachable;
     *    retained sizes summed children first (decreasing depth-first numbers) */
    h->idom = malloc((n ? n : 1) * sizeof *h->idom);
    if (!h->idom) {
        goto out;
    }
    memset(h->idom, 0xff, (n ? n : 1) * sizeof *h->idom);
    for (uint32_t i = 2; i <= cnt; i++) {
        h->idom[vertex[i]] = vertex[idomd[i]];
    }
    free(idomd);
    idomd = NULL;
    h->retained = malloc((n ? n : 1) * sizeof *h->retained);
    if (!h->retained) {
        goto out;
    }
    h->info.unreachable_objects = 0;
    h->info.unreachable_bytes = 0;
    for (uint32_t v = 0; v < n; v++) {
        uint64_t sz = gcev_hp_size(h, v);
        h->retained[v] = sz;
        if (h->idom[v] == UINT32_MAX) {
            h->info.unreachable_objects++;
            h->info.unreachable_bytes = gcev_hp_sat_add(h->info.unreachable_bytes, sz);
        }
    }
    for (uint32_t i = cnt; i >= 2; i--) {
        uint32_t v = vertex[i], d = h->idom[v];
        if (d != root) {
            h->retained[d] = gcev_hp_sat_add(h->retained[d], h->retained[v]);
        }
    }
    free(vertex);
    vertex = NULL;
    /* 5. the dominator tree as first child / next sibling, for the per-type sums */
    first = malloc(N1 * sizeof *first);
    next = malloc((n ? n : 1) * sizeof *next);
    tcnt = calloc(h->ntypes ? h->ntypes : 1, sizeof *tcnt);
    if (!first || !next || !tcnt) {
        goto out;
    }
    memset(first, 0xff, N1 * sizeof *first);
    for (uint32_t v = n; v-- > 0;) {
        uint32_t d = h->idom[v];
        if (d != UINT32_MAX) {
            next[v] = first[d];
            first[d] = v;
        }
    }
    type_retained(h, first, next, tcnt);
    h->info.analyzed = 1;
    st = GCEV_OK;
out:
    if (st != GCEV_OK) {
        free(h->idom);
        free(h->retained);
        h->idom = NULL;
        h->retained = NULL;
    }
    free(rs);
    free(dfn);
    free(vertex);
    free(pred);
    free(idomd);
    free(l.anc);
    free(l.semi);
    free(l.label);
    free(first);
    free(next);
    free(tcnt);
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
