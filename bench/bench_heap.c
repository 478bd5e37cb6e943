/* SPDX-License-Identifier: MIT */
/*
 * Cost of a heap snapshot (gcev_heap.h) as it grows: a synthetic dump of N objects built
 * as the runtime's bulk events in memory (tests/heap/heap_events.h, the tests' builder),
 * fed to a reader, the graph built (gcev_heap_reader_finish), then analysed: the type
 * table, dominators and retained sizes (gcev_heap_analyze), the 10 biggest retainers and
 * the path to the biggest. Each size runs in a child process of its own, so its peak
 * resident memory (getrusage ru_maxrss) is its own; the bench also counts the bytes the
 * library holds (malloc_usable_size of every live block, through a malloc hook of this
 * program): the finished graph, after gcev_heap_analyze(), after the path (the
 * breadth-first parents it keeps), and the peak of each phase (reading + building the
 * graph; analysing), all per object.
 *
 *   bench_heap [-x EXTRA] [MILLIONS...]        default: 1 3 10
 *
 * The dump: a complete binary tree (the shape of a big collection: one root, each object
 * referenced by its parent) whose objects also reference pseudo-random other objects,
 * EXTRA per object on average (default 0.5: one object in two references one; a multiple
 * of 0.5), for cycles and shared objects (the dominators are not the tree); 1000 types,
 * 64 stack roots and one static. References per object: about 1 + EXTRA. Two runs with
 * different EXTRA separate the bytes per object from the bytes per reference.
 * Times are CPU seconds (the machine may be shared).
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tests/heap/heap_events.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- live bytes: every allocation of the process counted (glibc's malloc underneath) ---- */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
static size_t live, peak;

static void count_in(void *p)
{
    if (p) {
        live += malloc_usable_size(p);
        peak = live > peak ? live : peak;
    }
}
void *malloc(size_t n)
{
    void *p = __libc_malloc(n);
    count_in(p);
    return p;
}
void *calloc(size_t a, size_t b)
{
    void *p = __libc_calloc(a, b);
    count_in(p);
    return p;
}
void *realloc(void *q, size_t n)
{
    size_t old = q ? malloc_usable_size(q) : 0;
    void *p = __libc_realloc(q, n);
    if (p || !n) {
        live -= old;
        count_in(p);
    }
    return p;
}
void free(void *p)
{
    if (p) {
        live -= malloc_usable_size(p);
    }
    __libc_free(p);
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

enum { TYPES = 1000, NODES_PER_EVENT = 2000, EDGES_PER_EVENT = 5000, MAX_REFS = 16 };
static unsigned extra2 = 1; /* 2 x EXTRA */

static uint64_t addr_of(uint64_t i)
{
    return 0x7f0000000000u + i * 64;
}

/* object i's references: its children in the tree, and EXTRA random other ones (an odd
 * half: one object in two has one more) */
static uint32_t refs_of(uint64_t i, uint64_t n, uint64_t *to)
{
    uint32_t k = 0;
    if (2 * i + 1 < n) {
        to[k++] = addr_of(2 * i + 1);
    }
    if (2 * i + 2 < n) {
        to[k++] = addr_of(2 * i + 2);
    }
    for (unsigned e = 0; e < extra2 / 2; e++) {
        to[k++] = addr_of(next_rand() % n);
    }
    if ((extra2 & 1) && (i & 1)) {
        to[k++] = addr_of(next_rand() % n);
    }
    return k;
}

static int run(uint64_t n)
{
    gcev_heap_reader *r;
    hev_buf w = {0};
    size_t base = live;
    double t0 = now();
    if (gcev_heap_reader_new(&r) != GCEV_OK) {
        return 1;
    }
    hev_gc(r, &w, 1, 7, 42, 1.0);
    char name[64];
    for (uint64_t t = 0; t < TYPES; t++) {
        snprintf(name, sizeof name, "Bench.Namespace.Type%llu", (unsigned long long)t);
        hev_type(r, &w, 0x1000 + t, name, 42, 1.0);
    }
    hev_node *nodes = malloc(NODES_PER_EVENT * sizeof *nodes);
    uint64_t *edges = malloc((EDGES_PER_EVENT + MAX_REFS) * sizeof *edges);
    uint32_t node_ix = 0, edge_ix = 0, nn = 0, ne = 0;
    uint64_t refs = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t to[MAX_REFS];
        uint32_t k = refs_of(i, n, to);
        nodes[nn].addr = addr_of(i);
        nodes[nn].size = 24 + 8 * (i % 7);
        nodes[nn].type = 0x1000 + (i * 2654435761u) % TYPES;
        nodes[nn].nedges = k;
        nn++;
        memcpy(edges + ne, to, k * sizeof *to);
        ne += k;
        refs += k;
        if (nn == NODES_PER_EVENT || i + 1 == n) {
            hev_nodes(r, &w, node_ix++, nodes, nn, 42, 2.0);
            nn = 0;
        }
        if (ne >= EDGES_PER_EVENT || (i + 1 == n && ne)) {
            hev_edges(r, &w, edge_ix++, edges, ne, 42, 2.0);
            ne = 0;
        }
    }
    for (uint32_t i = 0; i < 64; i++) {
        hev_root(r, &w, i, addr_of(i == 0 ? 0 : next_rand() % n), 0, 0, 42, 3.0);
    }
    hev_static(r, &w, addr_of(n / 2), 0x1000, "s_cache", 42, 3.0);
    hev_gc(r, &w, 0, 7, 42, 4.0);
    free(nodes);
    free(edges);
    free(w.b);
    double t1 = now();
    gcev_heap_set *set;
    if (gcev_heap_reader_finish(r, NULL, &set) != GCEV_OK || gcev_heap_set_count(set) != 1) {
        fprintf(stderr, "bench_heap: no dump\n");
        return 1;
    }
    gcev_heap *h = gcev_heap_set_at(set, 0);
    double t2 = now();
    size_t graph_bytes = live - base, read_peak = peak - base;
    peak = live; /* from here: the peak of the analysis (the graph included) */
    if (gcev_heap_analyze(h) != GCEV_OK) {
        fprintf(stderr, "bench_heap: out of memory\n");
        return 1;
    }
    size_t analyzed_bytes = live - base, analyze_peak = peak - base;
    uint64_t type_bytes = 0;
    for (size_t i = 0; i < gcev_heap_type_count(h); i++) {
        gcev_heap_type t;
        gcev_heap_type_get(h, i, &t);
        type_bytes += t.bytes;
    }
    uint32_t top[10];
    size_t ntop = gcev_heap_top_retainers(h, top, 10);
    double t3 = now();
    uint32_t path[64];
    size_t len = 0, root;
    if (ntop) {
        gcev_heap_path(h, top[ntop - 1], path, 64, &len, &root);
    }
    double t4 = now();
    const gcev_heap_info *in = gcev_heap_get_info(h);
    size_t path_bytes = live - base;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (in->objects != n || in->references != refs || type_bytes != in->bytes) {
        fprintf(stderr, "bench_heap: %llu objects, %llu references (expected %llu, %llu)\n",
                (unsigned long long)in->objects, (unsigned long long)in->references, (unsigned long long)n,
                (unsigned long long)refs);
        return 1;
    }
    double per = (double)n;
    printf(
        "%5.1fM objects %6.1fM refs | events %6.2f s | graph %6.2f s | analyze %6.2f s (%4.0f ns/object) | "
        "path %.3f s | maxrss %6.0f MB\n",
        n / 1e6, refs / 1e6, t1 - t0, t2 - t1, t3 - t2, (t3 - t2) * 1e9 / per, t4 - t3, ru.ru_maxrss / 1e3);
    printf("        B/object: graph %5.1f, analysed %5.1f, with paths %5.1f | peak: reading+graph %5.1f, "
           "analysing %5.1f (%6.0f MB)\n",
           graph_bytes / per, analyzed_bytes / per, path_bytes / per, read_peak / per, analyze_peak / per,
           analyze_peak / 1e6);
    /* gcev_heap.h's figures: graph 20 B/object + 4 B/reference; analysis peak 40 + 8; kept 32 + 4 */
    double est_graph = 20.0 * per + 4.0 * (double)refs, est_peak = 40.0 * per + 8.0 * (double)refs;
    printf("        graph %.2fx gcev_heap.h's 20 B/object + 4 B/reference; analysis peak %.2fx its 40 + 8; "
           "issue 25's bound 40 + 40: %.0f%% of it\n",
           graph_bytes / est_graph, analyze_peak / est_peak,
           100.0 * (double)(read_peak > analyze_peak ? read_peak : analyze_peak) /
               (40.0 * (per + (double)refs)));
    fflush(stdout);
    gcev_heap_set_free(set);
    return 0;
}

int main(int argc, char **argv)
{
    double def[] = {1, 3, 10};
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "-x") == 0) {
        double x = atof(argv[2]);
        if (x < 0 || x * 2 > MAX_REFS - 3 || x * 2 != (double)(unsigned)(x * 2)) {
            fprintf(stderr, "bench_heap: -x takes a multiple of 0.5 from 0 to %d\n", (MAX_REFS - 3) / 2);
            return 2;
        }
        extra2 = (unsigned)(x * 2);
        first = 3;
    }
    int nsizes = argc > first ? argc - first : 3;
    printf("bench_heap: synthetic dump, about %.1f references per object, %d types; CPU seconds; "
           "B = bytes held by the process's heap (malloc_usable_size)\n",
           1 + extra2 / 2.0, TYPES);
    fflush(stdout);
    int rc = 0;
    for (int i = 0; i < nsizes; i++) {
        double m = argc > first ? atof(argv[i + first]) : def[i];
        uint64_t n = (uint64_t)(m * 1e6);
        if (n < 10) {
            fprintf(stderr, "usage: bench_heap [MILLIONS...]\n");
            return 2;
        }
        pid_t pid = fork(); /* each size alone in a process: its own maxrss and heap */
        if (pid == 0) {
            _exit(run(n));
        }
        int ws = 0;
        if (pid < 0 || waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws)) {
            rc = 1;
        }
    }
    return rc;
}
