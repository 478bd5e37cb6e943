/* SPDX-License-Identifier: MIT */
/*
 * gcev heap snapshots: the object graph of a .NET GC heap dump, built from the
 * runtime's bulk heap events (GCBulkNode, GCBulkEdge, GCBulkRootEdge,
 * GCBulkRootStaticVar, GCBulkRootConditionalWeakTableElementEdge, GCBulkRootCCW,
 * GCBulkRCW, BulkType) that a session with the GCHeapSnapshot keywords makes the
 * runtime write during the full blocking GC it forces (what dotnet-gcdump reads),
 * and analyses of it: objects and bytes per type, dominators and retained sizes,
 * shortest paths from roots, roots by kind, the difference of two dumps.
 *
 *   gcev_heap_set *set;
 *   if (gcev_heap_read_file("app.nettrace", &set, &err) == GCEV_OK) {
 *       gcev_heap *h = gcev_heap_set_at(set, 0);
 *       gcev_heap_analyze(h);                       // dominators, retained sizes
 *       for (size_t i = 0; i < gcev_heap_type_count(h); i++) { gcev_heap_type t; gcev_heap_type_at(h, i, &t);
 * } gcev_heap_set_free(set);
 *   }
 *
 * One dump is the bulk events of one process between a GCStart and the GCEnd with
 * its Count. Dumps of several GCs and of several processes stay apart (a set holds
 * each); a dump whose events were lost, damaged, or cut by the start or end of the
 * trace is kept and labelled partial (gcev_heap_info.flags), with each problem
 * located (gcev_heap_problem_at()).
 *
 * Memory (per object, and per reference, measured by bench/bench_heap): a finished dump
 * keeps 20 bytes per object (address, 32-bit size, type row, offset of its references;
 * sizes of 4 GiB and more kept aside) and 4 per reference; gcev_heap_analyze() adds 12
 * per object that stay (immediate dominator, retained size), its peak while it runs is
 * 40 per object and 8 per reference, the graph included; the first path or diff keeps 8
 * per object more (breadth-first parents and order), the address index of the first find
 * or diff 6 to 12. Reading and building a dump peak at 32 per object and 8 per reference
 * (12 just after the reader grew its arrays). Time is linear in objects + references (dominators:
 * Lengauer-Tarjan, O(E log N) worst case). Byte sums (types, retained sizes, totals)
 * stop at 2^64-1 rather than wrap (GCEV_HEAP_SIZE_OVERFLOW says where).
 *
 * Ownership: a set owns its dumps and every string they return, valid until
 * gcev_heap_set_free(). Threads: distinct sets are independent; one set must not be
 * used by two threads at once (the analyses fill caches).
 */
#ifndef GCEV_HEAP_H
#define GCEV_HEAP_H

#include <gcev/gcev.h>
#include <gcev/gcev_trace.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gcev_heap_reader gcev_heap_reader;
typedef struct gcev_heap_set gcev_heap_set;
typedef struct gcev_heap gcev_heap;

/* No object / no index. */
#define GCEV_HEAP_NONE UINT32_MAX

/* gcev_heap_info.flags: why a dump is partial (any of these) */
enum {
    GCEV_HEAP_NO_START = 1u << 0,      /* bulk events without the GCStart of their GC (trace began inside) */
    GCEV_HEAP_NO_END = 1u << 1,        /* the trace ended before the GC's GCEnd */
    GCEV_HEAP_EVENTS_LOST = 1u << 2,   /* the reader saw lost events (sequence gaps) inside the dump */
    GCEV_HEAP_INDEX_GAP = 1u << 3,     /* a GCBulkNode / GCBulkEdge / GCBulkRootEdge Index is missing */
    GCEV_HEAP_EDGES_SHORT = 1u << 4,   /* fewer references than the objects' EdgeCounts add up to */
    GCEV_HEAP_EDGES_EXTRA = 1u << 5,   /* more references than the EdgeCounts add up to */
    GCEV_HEAP_BAD_EVENT = 1u << 6,     /* a bulk event whose payload does not decode */
    GCEV_HEAP_SKIPPED = 1u << 7,       /* damaged bytes of the trace were skipped inside the dump */
    GCEV_HEAP_LIMIT = 1u << 8,         /* more than 2^31 objects or 2^32 references: the rest dropped */
    GCEV_HEAP_SIZE_OVERFLOW = 1u << 9, /* the sizes add up past 2^64-1: byte sums stop at 2^64-1 */
    GCEV_HEAP_PARTIAL_MASK = 0x3ff
};

typedef struct gcev_heap_info {
    uint32_t process_id;
    uint32_t gc_number;   /* the GC's Count, when has_gc */
    uint8_t has_gc;       /* 0: no GCStart or GCEnd named the GC */
    uint8_t pointer_size; /* of the traced process */
    uint32_t gc_depth;    /* GCStart Depth / Reason / Type (present when has_gc_start) */
    uint32_t gc_reason;
    uint32_t gc_type;
    uint8_t has_gc_start;
    double start_ms, end_ms; /* GCStart (else the first bulk event) and GCEnd (else the last) */
    uint32_t flags;          /* GCEV_HEAP_*; 0: complete */
    uint64_t objects;        /* distinct objects in the graph */
    uint64_t bytes;          /* their sizes */
    uint64_t references;     /* references between objects in the graph */
    uint64_t roots;          /* root records that keep an object alive (weak ones excluded) */
    uint64_t types;          /* rows of the type table */
    /* what did not fit (counted, then dropped) */
    uint64_t duplicate_objects;   /* an address listed again (the first one kept) */
    uint64_t dangling_references; /* references to addresses that are no object of the dump */
    uint64_t dangling_roots;      /* roots of such addresses */
    uint64_t missing_references;  /* EdgeCounts not backed by GCBulkEdge values */
    uint64_t extra_references;    /* GCBulkEdge values past the last object's */
    uint64_t unknown_types;       /* type ids no BulkType named ("UNKNOWN 0x...") */
    uint64_t bulk_events;         /* bulk events read for the dump */
    uint64_t bad_events;          /* of them, not decodable */
    uint64_t lost_events;         /* sequence-number gaps inside the dump */
    /* after gcev_heap_analyze(): */
    uint8_t analyzed;
    uint64_t unreachable_objects; /* objects no root reaches (their retained size is their own) */
    uint64_t unreachable_bytes;
} gcev_heap_info;

/* ---- reading ---------------------------------------------------------------------- */

/* A new, empty reader. Returns GCEV_OK, GCEV_E_INVALID_ARG (out NULL) or GCEV_E_NOMEM. */
GCEV_API gcev_status gcev_heap_reader_new(gcev_heap_reader **out);
/*
 * Feeds one event (any event: those that are not GC or bulk heap events are ignored),
 * in timestamp order. The event's views are copied as needed. Returns GCEV_OK, or
 * GCEV_E_NOMEM (the reader then refuses further events with it), GCEV_E_INVALID_ARG
 * (r or ev NULL). Bad payloads are no error: they are counted and located in the dump.
 */
GCEV_API gcev_status gcev_heap_reader_add(gcev_heap_reader *r, const gcev_trace_event *ev);
/*
 * Ends the reading and builds the graph of every dump seen: *out receives the set
 * (possibly with 0 dumps). t (NULL allowed) is the trace the events came from: its
 * lost-event gaps and skipped ranges are matched against the dumps' time spans.
 * The reader is freed in every case. Returns GCEV_OK, GCEV_E_NOMEM, GCEV_E_INVALID_ARG.
 */
GCEV_API gcev_status gcev_heap_reader_finish(gcev_heap_reader *r, const gcev_trace *t, gcev_heap_set **out);
/* Dumps seen so far whose GC has ended (GCEnd): a live session may stop once it is 1.
 * 0 for NULL. */
GCEV_API size_t gcev_heap_reader_ended(const gcev_heap_reader *r);
/* Frees a reader that is not finished (NULL allowed). */
GCEV_API void gcev_heap_reader_free(gcev_heap_reader *r);

/*
 * Reads every event of t (which should be opened with GCEV_TRACE_ORDER_TIME) into a new
 * set. A trace error after some events keeps what was read: *out is still set, the
 * dump that was open is marked GCEV_HEAP_NO_END, and the error is returned (err set).
 * Returns GCEV_OK, the trace's error, GCEV_E_NOMEM or GCEV_E_INVALID_ARG.
 */
GCEV_API gcev_status gcev_heap_read_trace(gcev_trace *t, gcev_heap_set **out, gcev_error *err);
/* gcev_heap_read_trace() on a file opened in time order. Returns what gcev_heap_read_trace()
 * returns, GCEV_E_INVALID_ARG (out NULL), or when the file cannot be opened what
 * gcev_trace_open_file() returns (GCEV_E_IO, GCEV_E_FORMAT, GCEV_E_UNSUPPORTED, ...) with
 * *out NULL. */
GCEV_API gcev_status gcev_heap_read_file(const char *path, gcev_heap_set **out, gcev_error *err);

/* Dumps in the set, in the order their first event came; 0 for NULL. */
GCEV_API size_t gcev_heap_set_count(const gcev_heap_set *s);
/* The i-th dump, or NULL (s NULL or i out of range). Owned by s. */
GCEV_API gcev_heap *gcev_heap_set_at(gcev_heap_set *s, size_t i);
/* Frees the set, its dumps and their strings (NULL allowed). */
GCEV_API void gcev_heap_set_free(gcev_heap_set *s);

/* The dump's summary; never NULL for a non-NULL h. */
GCEV_API const gcev_heap_info *gcev_heap_get_info(const gcev_heap *h);
/* Located problems ("GCBulkNode Index 3 after 1: 1 event lost at 12.500 ms (file offset 4096)"),
 * at most 64 kept; 0 / NULL out of range. */
GCEV_API size_t gcev_heap_problem_count(const gcev_heap *h);
GCEV_API const char *gcev_heap_problem_at(const gcev_heap *h, size_t i);

/* ---- objects and types -------------------------------------------------------------- */

typedef struct gcev_heap_object {
    uint64_t address;
    uint64_t size;
    uint32_t type;       /* index into the type table */
    uint32_t references; /* outgoing references kept in the graph */
    uint64_t retained;   /* after gcev_heap_analyze(): bytes freed if this object died */
    uint32_t idom;       /* immediate dominator (object index), GCEV_HEAP_NONE for the root set
                            (dominated by the roots only) and for unreachable objects */
    uint8_t reachable;   /* after gcev_heap_analyze() */
} gcev_heap_object;

/* Objects of the dump (indexes 0 .. count-1, in the order the runtime listed them). */
GCEV_API uint32_t gcev_heap_object_count(const gcev_heap *h);
/* Object i into *out; GCEV_E_INVALID_ARG when h or out is NULL or i is out of range. */
GCEV_API gcev_status gcev_heap_object_get(const gcev_heap *h, uint32_t i, gcev_heap_object *out);
/* The index of the object at `address`, GCEV_HEAP_NONE when none (or NOMEM for the index). */
GCEV_API uint32_t gcev_heap_object_find(gcev_heap *h, uint64_t address);
/* The n-th outgoing reference of object i (object index); GCEV_HEAP_NONE out of range. */
GCEV_API uint32_t gcev_heap_object_ref(const gcev_heap *h, uint32_t i, uint32_t n);

typedef struct gcev_heap_type {
    const char *name;   /* as dotnet-gcdump shows it: "System.Collections.Generic.List<System.String>" */
    uint64_t module_id; /* the runtime's module id (0 unknown) */
    uint64_t objects;
    uint64_t bytes;
    uint64_t retained;     /* after analyze: bytes retained by its objects, each counted once */
    uint64_t max_retained; /* after analyze: the largest retained size of one of its objects */
} gcev_heap_type;

/* Rows of the type table (one per (module, name)), in bytes order, largest first. */
GCEV_API size_t gcev_heap_type_count(const gcev_heap *h);
/* Row i into *out: GCEV_OK, or GCEV_E_INVALID_ARG (h or out NULL, i past the count). */
GCEV_API gcev_status gcev_heap_type_get(const gcev_heap *h, size_t i, gcev_heap_type *out);
/* The row of a type name (exact, as gcev_heap_type.name; the first when several
 * modules have it), GCEV_HEAP_NONE when none. */
GCEV_API uint32_t gcev_heap_type_find(const gcev_heap *h, const char *name);

/* ---- roots ------------------------------------------------------------------------ */

typedef enum gcev_heap_root_kind {
    GCEV_HEAP_ROOT_STACK = 0,         /* a local of a managed frame (GCBulkRootEdge kind Stack) */
    GCEV_HEAP_ROOT_FINALIZER = 1,     /* the finalization queue (kind Finalizer) */
    GCEV_HEAP_ROOT_STRONG_HANDLE = 2, /* a strong GC handle (kind Handle) */
    GCEV_HEAP_ROOT_PINNED_HANDLE = 3, /* a pinned GC handle (kind Handle, flag Pinning) */
    GCEV_HEAP_ROOT_REFCOUNTED = 4,    /* a ref-counted handle (COM interop, flag RefCounted) */
    GCEV_HEAP_ROOT_OTHER = 5,         /* kind Other and unknown kinds */
    GCEV_HEAP_ROOT_STATIC = 6,        /* a static field (GCBulkRootStaticVar) */
    GCEV_HEAP_ROOT_THREAD_STATIC = 7, /* a thread-static field */
    GCEV_HEAP_ROOT_CCW = 8,           /* a COM callable wrapper (GCBulkRootCCW) */
    GCEV_HEAP_ROOT_WEAK = 9,          /* a weak reference (flag WeakRef): listed, keeps nothing alive */
    GCEV_HEAP_ROOT_CWT = 10,          /* a ConditionalWeakTable / dependent handle: its value lives
                                         while its key does; a reference key -> value, no root */
    GCEV_HEAP_ROOT_KINDS = 11
} gcev_heap_root_kind;

/* "stack", "finalizer", "strong handle", "pinned handle", "refcounted handle", "other",
 * "static", "thread static", "ccw", "weak handle", "cwt"; "?" out of range. */
GCEV_API const char *gcev_heap_root_kind_name(uint32_t kind);

typedef struct gcev_heap_root {
    uint32_t object;  /* object index (for CWT: the value), GCEV_HEAP_NONE when dangling */
    uint32_t kind;    /* gcev_heap_root_kind */
    uint32_t flags;   /* GCRootFlag of GCBulkRootEdge (static vars: their Flags) */
    uint64_t id;      /* GCRootID (the handle, stack slot or static's address); CWT: the key object index */
    const char *name; /* statics: the field's name (the event names no declaring type); else "" */
} gcev_heap_root;

GCEV_API size_t gcev_heap_root_count(const gcev_heap *h);
/* Root i into *out: GCEV_OK, or GCEV_E_INVALID_ARG (h or out NULL, i past the count). */
GCEV_API gcev_status gcev_heap_root_get(const gcev_heap *h, size_t i, gcev_heap_root *out);

/* ---- analyses -------------------------------------------------------------------------- */

/*
 * Dominator tree over a virtual root whose references are every root (weak and CWT
 * records excluded; a CWT record is a reference from its key to its value), retained
 * size of every object and type, unreachable objects. Idempotent. Returns GCEV_OK,
 * GCEV_E_NOMEM (nothing changed), GCEV_E_INVALID_ARG (h NULL).
 */
GCEV_API gcev_status gcev_heap_analyze(gcev_heap *h);

/*
 * The n objects with the largest retained sizes (analyzing first when needed) into
 * idx[0..]; returns how many were written (<= n; 0 on error).
 */
GCEV_API size_t gcev_heap_top_retainers(gcev_heap *h, uint32_t *idx, size_t n);

/*
 * A shortest path (fewest references) from a root to `object`: path[0] is the rooted
 * object, path[len-1] `object`; *root receives the root record it starts from.
 * Returns GCEV_OK with *len set (0 when no root reaches it; when the path is longer
 * than cap, path holds its first cap objects, from the root), GCEV_E_NOMEM,
 * GCEV_E_INVALID_ARG (h, len or root NULL, object out of range).
 */
GCEV_API gcev_status gcev_heap_path(gcev_heap *h, uint32_t object, uint32_t *path, size_t cap, size_t *len,
                                    size_t *root);
/* The object of type row `type` that is fewest references from a root (GCEV_HEAP_NONE when
 * no root reaches one, or on NOMEM). */
GCEV_API uint32_t gcev_heap_type_nearest(gcev_heap *h, uint32_t type);

/* ---- difference of two dumps ------------------------------------------------------------ */

typedef struct gcev_heap_diff_row {
    const char *name; /* the type (owned by the set of a or b) */
    uint64_t objects_a, bytes_a;
    uint64_t objects_b, bytes_b;
    uint32_t new_object; /* in b: an object of the type whose address held no object of the
                            type in a, fewest references from a root; GCEV_HEAP_NONE if none */
} gcev_heap_diff_row;

/*
 * Per type name, a's and b's objects and bytes, rows sorted by bytes growth (largest
 * first, then count growth). *rows is malloc'ed (free it with free()). Returns GCEV_OK,
 * GCEV_E_NOMEM, GCEV_E_INVALID_ARG.
 */
GCEV_API gcev_status gcev_heap_diff(gcev_heap *a, gcev_heap *b, gcev_heap_diff_row **rows, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* GCEV_HEAP_H */
