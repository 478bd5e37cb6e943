/* SPDX-License-Identifier: MIT */
/*
 * gcev allocations: who allocates. An allocation model fed event by event from a trace
 * (<gcev/gcev_trace.h>): per type, per call stack, per thread and over time, with the
 * managed frames of each stack named from the trace's own method events.
 *
 * Allocation events (doc/allocs.md gives the estimates and their sources):
 *   - GCAllocationTick V0-V4 (Runtime 10, keyword GC, Verbose): one event per ~100 KB a
 *     thread allocates, with the amount since the last one (AllocationAmount64, else
 *     AllocationAmount), the heap kind, and from V2 the type of the object that crossed
 *     the threshold. Estimate: the amount, all of it charged to that type (PerfView's).
 *   - AllocationSampled (Runtime 303, .NET 10, keyword 0x80000000000): the randomized
 *     sampler, a Bernoulli trial per allocated byte with p = 1/102400. Estimate: each
 *     sampled object of size S stands for 1 / (1 - (1 - p)^S) objects and S times that bytes
 *     (unbiased; dotnet/runtime docs/design/features/RandomizedAllocationSampling.md).
 *   - GCSampledObjectAllocationHigh/Low (Runtime 20/32): ObjectCountForTypeSample objects
 *     of TotalSizeForTypeSample bytes; the type from its id through BulkType events.
 * A trace with several of them estimates from one source only (AllocationSampled first,
 * then GCSampledObjectAllocation*, then AllocationTick; or the one the options force), the
 * others are counted.
 *
 * Call stacks: each event's stack (gcev_trace_event.stack, innermost first) is kept once
 * per distinct list of addresses; gcev_allocs_finish() names each address from the method
 * events of the trace: MethodLoadVerbose / MethodUnloadVerbose (Runtime 143/144, keyword
 * JIT 0x10 or NGen 0x20, Verbose), rundown MethodDCStartVerbose / MethodDCEndVerbose
 * (Rundown 143/144), module names from ModuleLoad / ModuleDCStart / ModuleDCEnd (152, 153,
 * 154) and, for ReadyToRun code without a method event, R2RGetEntryPoint (Runtime 159,
 * keyword CompilationDiagnostic 0x2000000000: the entry point only, so an address is named
 * by it only when it is that entry point). gcev decodes these payloads itself, with checked
 * reads. An address no method covers stays unresolved (its raw value). Stacks whose frames
 * name the same methods are merged.
 *
 * Memory: O(types + distinct stacks + methods + threads + time buckets), never O(events).
 *
 * Ownership: the model owns everything the accessors return (strings: UTF-8,
 * NUL-terminated), valid until gcev_allocs_free(). Thread-safety: one model must not be fed
 * from two threads at once; after gcev_allocs_finish() its accessors may be called from any
 * number of threads.
 */
#ifndef GCEV_ALLOCS_H
#define GCEV_ALLOCS_H

#include <gcev/gcev_trace.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gcev_allocs gcev_allocs;

/* Where estimates come from (gcev_allocs_options.source, gcev_allocs_summary.source). */
typedef enum gcev_allocs_source {
    GCEV_ALLOCS_AUTO = 0,       /* options only: AllocationSampled, else heap-alloc, else ticks */
    GCEV_ALLOCS_TICK = 1,       /* GCAllocationTick */
    GCEV_ALLOCS_SAMPLED = 2,    /* AllocationSampled (.NET 10) */
    GCEV_ALLOCS_HEAP_ALLOC = 3, /* GCSampledObjectAllocationHigh/Low */
    GCEV_ALLOCS_SOURCE_COUNT_ = 4
} gcev_allocs_source;

/* Heap kinds (GCAllocationKindMap: the AllocationKind field). */
enum { GCEV_ALLOCS_SMALL = 0, GCEV_ALLOCS_LARGE = 1, GCEV_ALLOCS_PINNED = 2, GCEV_ALLOCS_KINDS = 3 };

/* "small", "large", "pinned"; "?" for others. */
GCEV_API const char *gcev_allocs_kind_name(uint32_t kind);
/* "auto", "tick", "sampled", "heap-alloc"; "?" for others. */
GCEV_API const char *gcev_allocs_source_name(uint32_t source);

typedef struct gcev_allocs_options {
    uint32_t process_id; /* only this process's events (allocations and methods); 0 = all */
    uint32_t source;     /* gcev_allocs_source; 0 = AUTO */
    double bucket_ms;    /* width of the time buckets; 0 = 1000 (doubled past 4096 buckets) */
    uint32_t max_frames; /* innermost frames kept per stack; 0 = 256 */
} gcev_allocs_options;

/*
 * Creates an empty model. opts may be NULL (defaults). Returns GCEV_OK,
 * GCEV_E_INVALID_ARG (out NULL) or GCEV_E_NOMEM; *out is NULL on failure.
 */
GCEV_API gcev_status gcev_allocs_create(const gcev_allocs_options *opts, gcev_allocs **out);
/* Frees the model (NULL allowed). */
GCEV_API void gcev_allocs_free(gcev_allocs *a);

/*
 * Feeds one event of a trace (any event: those the model does not use cost a provider and
 * id comparison). Returns GCEV_OK (also for events it ignores); GCEV_E_INVALID_ARG (a or ev
 * NULL, or the model finished); GCEV_E_NOMEM; or, for an allocation, method or module event
 * whose payload is malformed, the decode status (GCEV_E_TRUNCATED,
 * GCEV_E_UNTERMINATED_STRING ...) with err (NULL allowed) saying where: err->field the
 * field, err->offset the event's file offset (ev->file_offset) and err->message a static
 * text; the event is then skipped and counted (summary decode_errors, and the first one is
 * kept: gcev_allocs_first_error()). The model stays usable after any error but NOMEM.
 */
GCEV_API gcev_status gcev_allocs_add(gcev_allocs *a, const gcev_trace_event *ev, gcev_error *err);

/*
 * Feeds every remaining event of t (any order), then gcev_allocs_finish(). Malformed
 * payloads are skipped and counted as by gcev_allocs_add(). Returns GCEV_OK at the trace's
 * clean end; the reader's error (err filled as by gcev_trace_next(): the model holds,
 * finished, every event before the fault); GCEV_E_NOMEM; GCEV_E_INVALID_ARG (a or t NULL
 * or the model finished).
 */
GCEV_API gcev_status gcev_allocs_read_trace(gcev_allocs *a, gcev_trace *t, gcev_error *err);

/*
 * Ends the feed: chooses the source, names the types known only by id, names every frame,
 * merges stacks, sorts types, stacks and threads by estimated bytes (largest first).
 * Returns GCEV_OK, GCEV_E_INVALID_ARG (a NULL) or GCEV_E_NOMEM. Idempotent.
 */
GCEV_API gcev_status gcev_allocs_finish(gcev_allocs *a);

/* ---- results (after gcev_allocs_finish(); NULL a gives 0 / NULL) ---- */

typedef struct gcev_allocs_summary {
    uint32_t source;                            /* the source of the estimates (gcev_allocs_source) */
    uint64_t events[GCEV_ALLOCS_SOURCE_COUNT_]; /* allocation events fed, by source (0 unused) */
    uint64_t samples;                           /* events of the chosen source */
    double bytes;                               /* estimated bytes allocated */
    double objects;                             /* estimated objects (AllocationTick: amount / object size
                                                   where V4 gives the size, else not counted) */
    double kind_bytes[GCEV_ALLOCS_KINDS];       /* estimated bytes by heap kind */
    uint64_t stackless;                         /* samples without a stack */
    double first_ms, last_ms;                   /* of the samples; 0 when none */
    uint64_t method_events, module_events;      /* method/module events used */
    size_t methods;                             /* code ranges known (method loads, deduplicated) */
    size_t modules;
    size_t raw_stacks;                           /* distinct address lists */
    uint64_t frames_resolved, frames_unresolved; /* over the distinct address lists' frames */
    uint64_t decode_errors;                      /* events skipped as malformed */
    uint32_t processes;                          /* distinct process ids among the samples */
} gcev_allocs_summary;

GCEV_API const gcev_allocs_summary *gcev_allocs_get_summary(const gcev_allocs *a);

/* The first malformed event: its status, field, file offset and message (code GCEV_OK when
 * none); event_name receives its name ("MethodLoadVerbose" ...). NULL for NULL a. */
GCEV_API const gcev_error *gcev_allocs_first_error(const gcev_allocs *a, const char **event_name);

/* Estimates of one group (type, stack, thread, stack x type) from the chosen source. */
typedef struct gcev_allocs_est {
    uint64_t samples;
    double bytes;
    double objects;
    double share; /* bytes / summary bytes, 0..1 */
} gcev_allocs_est;

typedef struct gcev_allocs_type {
    const char *name; /* type name; "<type id 0x...>" when the trace never names it */
    uint64_t type_id; /* the last type id seen with it (0 when none) */
    gcev_allocs_est est;
    double kind_bytes[GCEV_ALLOCS_KINDS];
    uint32_t kind;               /* the heap kind with the most bytes */
    uint64_t min_size, max_size; /* object sizes seen (AllocationSampled, tick V4), 0 when none */
} gcev_allocs_type;

/* Types by estimated bytes, largest first. */
GCEV_API size_t gcev_allocs_type_count(const gcev_allocs *a);
GCEV_API const gcev_allocs_type *gcev_allocs_type_at(const gcev_allocs *a, size_t i);
/* Index of the type with this exact name, or SIZE_MAX. */
GCEV_API size_t gcev_allocs_type_find(const gcev_allocs *a, const char *name);

enum {
    GCEV_ALLOCS_FRAME_UNRESOLVED = 0, /* no method covers the address */
    GCEV_ALLOCS_FRAME_METHOD = 1,     /* a method load (JIT or ReadyToRun) covers it */
    GCEV_ALLOCS_FRAME_ENTRY = 2       /* the entry point of an R2RGetEntryPoint */
};

typedef struct gcev_allocs_frame {
    const char *name;   /* "module!Namespace.Method" (module omitted when unknown), or
                           "0x7f12..." for an unresolved address */
    const char *method; /* "Namespace.Method", or the address text */
    const char *module; /* file name of the module without directory ("" unknown) */
    uint64_t address;   /* the method's start (resolved), the address (unresolved) */
    uint32_t kind;      /* GCEV_ALLOCS_FRAME_* */
} gcev_allocs_frame;

GCEV_API size_t gcev_allocs_frame_count(const gcev_allocs *a);
GCEV_API const gcev_allocs_frame *gcev_allocs_frame_at(const gcev_allocs *a, size_t i);

/*
 * Names one address as the model names stack frames (after finish): fills *out (its
 * strings owned by the model, or by `buf` of n bytes for an unresolved address) and returns
 * its kind. For tools that print each event's frames.
 */
GCEV_API uint32_t gcev_allocs_resolve(const gcev_allocs *a, uint64_t address, gcev_allocs_frame *out,
                                      char *buf, size_t n);

typedef struct gcev_allocs_stack {
    uint32_t nframes;
    const uint32_t *frames; /* frame indexes (gcev_allocs_frame_at), innermost first */
    uint32_t site;          /* index into frames of the innermost resolved frame (the allocating
                               method), UINT32_MAX when none is */
    gcev_allocs_est est;
    size_t top_type; /* the type with the most bytes at this stack */
} gcev_allocs_stack;

/* Merged stacks by estimated bytes, largest first (samples without a stack: one stack of 0
 * frames). */
GCEV_API size_t gcev_allocs_stack_count(const gcev_allocs *a);
GCEV_API const gcev_allocs_stack *gcev_allocs_stack_at(const gcev_allocs *a, size_t i);

/* Stack x type pairs by estimated bytes, largest first. */
typedef struct gcev_allocs_pair {
    size_t stack, type;
    gcev_allocs_est est;
} gcev_allocs_pair;
GCEV_API size_t gcev_allocs_pair_count(const gcev_allocs *a);
GCEV_API const gcev_allocs_pair *gcev_allocs_pair_at(const gcev_allocs *a, size_t i);

typedef struct gcev_allocs_thread {
    uint64_t thread_id;
    uint32_t process_id;
    gcev_allocs_est est;
} gcev_allocs_thread;

/* Threads by estimated bytes, largest first. */
GCEV_API size_t gcev_allocs_thread_count(const gcev_allocs *a);
GCEV_API const gcev_allocs_thread *gcev_allocs_thread_at(const gcev_allocs *a, size_t i);

typedef struct gcev_allocs_bucket {
    double start_ms; /* trace time of the bucket's start */
    uint64_t samples;
    double bytes;
    double kind_bytes[GCEV_ALLOCS_KINDS];
} gcev_allocs_bucket;

/* Time buckets of gcev_allocs_bucket_ms() each, from the first sample's bucket. */
GCEV_API size_t gcev_allocs_bucket_count(const gcev_allocs *a);
GCEV_API const gcev_allocs_bucket *gcev_allocs_bucket_at(const gcev_allocs *a, size_t i);
GCEV_API double gcev_allocs_bucket_ms(const gcev_allocs *a);

/* ---- one event's allocation, for tools that print each sample ---- */

typedef struct gcev_allocs_sample {
    uint32_t source; /* gcev_allocs_source */
    uint32_t kind;   /* heap kind */
    uint64_t type_id;
    gcev_utf16 type_name;  /* a view into the payload; empty when the event has none */
    uint64_t size;         /* object size (AllocationSampled, tick V4, heap-alloc: total
                              size / count), 0 when unknown */
    double bytes, objects; /* this event's estimate */
} gcev_allocs_sample;

/*
 * Whether ev is an allocation event: GCEV_OK with *out filled; GCEV_E_UNKNOWN_EVENT when it
 * is not one; a decode status (err filled, as gcev_allocs_add()) when it is one but
 * malformed. Reentrant.
 */
GCEV_API gcev_status gcev_allocs_sample_of(const gcev_trace_event *ev, gcev_allocs_sample *out,
                                           gcev_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GCEV_ALLOCS_H */
