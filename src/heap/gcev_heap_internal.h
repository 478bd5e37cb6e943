/* SPDX-License-Identifier: MIT */
/* The heap layer's private types: the reader's state, a dump's graph, the shared map. */
#ifndef GCEV_HEAP_INTERNAL_H
#define GCEV_HEAP_INTERNAL_H

#include <gcev/gcev_heap.h>
#include <stddef.h>
#include <stdint.h>

#define HEAP_MAX_OBJECTS (UINT32_C(1) << 31)
#define HEAP_MAX_REFS UINT32_MAX
#define HEAP_MAX_PROBLEMS 64

/* ---- u64 -> u32 open-addressing map (gcev_heap_map.c) ----
 * Keys are mixed with a per-process random seed, so that hostile addresses cannot
 * be chosen to collide (no super-linear probing on crafted input). */
typedef struct heap_map {
    uint64_t *keys;
    uint32_t *vals; /* UINT32_MAX: empty slot */
    size_t cap;     /* power of two, 0 when empty */
    size_t n;
} heap_map;

void gcev_hp_map_free(heap_map *m);
/* Reserves room for n keys. Returns 0, or -1 on NOMEM. */
int gcev_hp_map_reserve(heap_map *m, size_t n);
/* The value of key, or UINT32_MAX. */
uint32_t gcev_hp_map_get(const heap_map *m, uint64_t key);
/* Inserts key -> val unless present; returns the value now stored (the old one when
 * present), or UINT32_MAX - 1 on NOMEM. */
uint32_t gcev_hp_map_put(heap_map *m, uint64_t key, uint32_t val);

/* ---- the address index of a dump's objects (gcev_heap_map.c) ----
 * Slots hold object indexes only (4 bytes each, load <= 2/3): the key of a slot is the
 * address of the object it names, so the table costs 6 to 12 bytes per object instead
 * of the 18 to 36 of a map that also stores the 8-byte keys. Seeded like the map. */
typedef struct heap_obj heap_obj;
typedef struct heap_idx {
    uint32_t *slot; /* UINT32_MAX: empty */
    size_t cap;     /* power of two, 0 when not built */
} heap_idx;

void gcev_hp_idx_free(heap_idx *x);
/* Room for n objects (no growth after). Returns 0, or -1 on NOMEM. */
int gcev_hp_idx_init(heap_idx *x, size_t n);
/* The object of obj[] at address, or UINT32_MAX. */
uint32_t gcev_hp_idx_get(const heap_idx *x, const heap_obj *obj, uint64_t address);
/* Inserts object i (whose address is `address`, obj[i] may not be written yet) unless an
 * object of that address is there; returns the object now stored under it. */
uint32_t gcev_hp_idx_put(heap_idx *x, const heap_obj *obj, uint64_t address, uint32_t i);

/* ---- growable vectors (x2 while small, x1.5 after: the slack of a big array stays under half) ---- */
int gcev_hp_grow(void **p, size_t *cap, size_t need, size_t elem);

/* ---- an object: 16 bytes, as read and in the graph ---- */
#define HEAP_BIG_SIZE UINT32_MAX
struct heap_obj {
    uint64_t address;
    uint32_t size; /* HEAP_BIG_SIZE: 2^32-1 or more, the size is in the dump's big list */
    uint32_t type; /* as read the process's type; in the graph the type row */
};

/* The objects of 4 GiB or more (arrays can be): few, so kept aside rather than widening
 * every object's size to 8 bytes. Sorted by object index. */
typedef struct heap_big {
    uint32_t obj;
    uint32_t pad;
    uint64_t size;
} heap_big;

typedef struct heap_raw_root {
    uint64_t address;
    uint64_t id;
    uint32_t kind;
    uint32_t flags;
    uint32_t name; /* offset into the dump's string pool + 1, 0 = none */
    uint32_t pad;
} heap_raw_root;

typedef struct heap_ptype {
    uint64_t type_id;
    uint64_t module_id;
    uint32_t name; /* offset into the process's name pool + 1, 0 = not named yet */
} heap_ptype;

typedef struct heap_strpool {
    char *s;
    size_t n, cap;
} heap_strpool;
/* Appends a NUL-terminated copy; returns its offset + 1, or 0 on NOMEM. */
uint32_t gcev_hp_str_add(heap_strpool *p, const char *s, size_t len);

/* The per-process state the reader keeps (type names live for the whole trace). */
typedef struct heap_proc {
    uint32_t pid;
    heap_map type_of; /* type id -> index into types */
    heap_ptype *types;
    size_t ntypes, ctypes;
    heap_strpool names;
    int gc_open; /* between a GCStart and its GCEnd */
    uint32_t gc_count;
    uint32_t gc_depth, gc_reason, gc_type;
    double gc_start_ms;
    int64_t gc_start_ts;
    size_t dump; /* index of the open dump in the reader, SIZE_MAX when none */
} heap_proc;

struct gcev_heap {
    gcev_heap_info info;
    size_t proc; /* index of its process in the set */
    int64_t start_ts, end_ts;
    uint32_t next_node_index, next_edge_index, next_root_index;
    int seen_node, seen_edge, seen_root;
    /* as read */
    heap_obj *raw; /* objects, in the order of the events */
    uint32_t *cnt; /* their EdgeCounts (clamped: a count > 2^32-1 is a lie, the edges tell) */
    size_t nraw, craw, ccnt;
    heap_big *big; /* objects of HEAP_BIG_SIZE, by index into raw (then obj) */
    size_t nbig, cbig;
    uint64_t *raw_refs; /* the GCBulkEdge values; the graph's refs are made in place */
    size_t nraw_refs, craw_refs;
    heap_raw_root *raw_roots;
    size_t nraw_roots, craw_roots;
    uint64_t *cwt; /* key, value pairs */
    size_t ncwt, ccwt;
    heap_strpool pool;
    char *problems[HEAP_MAX_PROBLEMS];
    size_t nproblems;
    /* the graph (after the set is finished): 20 bytes per object, 4 per reference */
    uint32_t n;     /* objects */
    heap_obj *obj;  /* [n] (the raw array, compacted): type is then the type row */
    uint32_t *off;  /* [n + 1] (the cnt array, in place): references of i are refs[off[i] .. off[i+1]) */
    uint32_t *refs; /* object indexes (the raw_refs array, in place) */
    gcev_heap_root *roots;
    size_t nroots;
    gcev_heap_type *types; /* rows, sorted by bytes */
    size_t ntypes;
    /* caches */
    heap_idx addr_index;  /* address -> object, built by the first find */
    uint32_t *idom;       /* [n] after analyze: n = the virtual root, UINT32_MAX = unreachable */
    uint64_t *retained;   /* [n] after analyze */
    uint32_t *bfs_parent; /* [n]: object, or n + root record, or GCEV_HEAP_NONE */
    uint32_t *bfs_order;  /* objects in breadth-first order from the roots */
    size_t nbfs;
    uint32_t *type_nearest; /* [ntypes] */
};

struct gcev_heap_set {
    gcev_heap **dumps;
    size_t n, cap;
    heap_proc *procs;
    size_t nprocs;
};

/* a problem line (printf format), kept when fewer than HEAP_MAX_PROBLEMS */
void gcev_hp_problem(gcev_heap *h, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The size of object i of the graph (or of raw[i] before it). */
uint64_t gcev_hp_big_size(const gcev_heap *h, uint32_t i);
static inline uint64_t gcev_hp_size(const gcev_heap *h, uint32_t i)
{
    uint32_t s = h->obj[i].size;
    return s != HEAP_BIG_SIZE ? s : gcev_hp_big_size(h, i);
}

/* a + b, or UINT64_MAX when it does not fit: sizes come from the trace, and a sum of
 * them must not wrap to a small number (the dump says so: GCEV_HEAP_SIZE_OVERFLOW) */
static inline uint64_t gcev_hp_sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* gcev_heap_graph.c: from the raw lists to the graph; 0 or -1 on NOMEM. */
int gcev_hp_build_graph(gcev_heap_set *s, gcev_heap *h);
/* The display name dotnet-gcdump gives a runtime type name, into a malloc'ed string. */
char *gcev_hp_display_name(const char *raw);
/* gcev_heap_bfs: the shortest-path parents (0 or -1 on NOMEM). */
int gcev_hp_bfs(gcev_heap *h);

#endif
