/* SPDX-License-Identifier: MIT */
/*
 * gcev GC analysis: what PerfView's GCStats shows, from decoded GC events.
 *
 * Feed events in timestamp order (open traces with GCEV_TRACE_ORDER_TIME, or
 * use gcev_stats_read_trace()), call gcev_stats_finish(), then read per-GC
 * records, per-generation and whole-trace summaries, and lifetimes (segments,
 * GC handles never freed).
 *
 * Absent is not zero: every record has a `present` mask; a value whose inputs
 * were not in the trace (no HeapStats, no AllocationTick, no suspension seen)
 * has its bit clear and its value 0. No value is ever NaN.
 *
 * Memory: the model allocates per GC (amortized growth of its GC list) and for
 * the segment/handle tables, which are bounded by gcev_stats_options; it never
 * allocates per event otherwise. Records returned by the accessors are owned by
 * the model and valid until gcev_stats_free(). One model must not be used from
 * two threads at once; distinct models are independent.
 */
#ifndef GCEV_STATS_H
#define GCEV_STATS_H

#include <gcev/gcev_trace.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Per-GC records                                                            */
/* ------------------------------------------------------------------------ */

/* GCStart's Type (GCTypeMap), the runtime's own classification. */
typedef enum gcev_stats_gc_type {
    GCEV_STATS_BLOCKING = 0,   /* NonConcurrentGC: the world is stopped throughout */
    GCEV_STATS_BACKGROUND = 1, /* BackgroundGC: gen2, mostly concurrent with the program */
    GCEV_STATS_FOREGROUND = 2  /* ForegroundGC: an ephemeral (gen0/1) GC run while a
                                * background GC is in progress (PerfView's definition) */
} gcev_stats_gc_type;

/* "blocking", "background", "foreground"; NULL for other values. */
GCEV_API const char *gcev_stats_gc_type_name(uint32_t type);

/* Heap generations reported by the runtime: 0, 1, 2, LOH (3), POH (4). */
enum { GCEV_STATS_GENS = 5 };
/* GCRootKindMap values 0..9 (Stack ... BGC), the kinds GCMarkWithType reports. */
enum { GCEV_STATS_ROOT_KINDS = 10 };

/* "gen0", "gen1", "gen2", "loh", "poh"; NULL for other indexes. */
GCEV_API const char *gcev_stats_gen_name(unsigned gen);

/* gcev_stats_gen_heap.present bits. */
#define GCEV_STATS_HEAP_HAS_SIZE_BEFORE (1u << 0) /* GCPerHeapHistory */
#define GCEV_STATS_HEAP_HAS_SIZE_AFTER (1u << 1)  /* GCPerHeapHistory, else GCHeapStats */
#define GCEV_STATS_HEAP_HAS_FRAG_BEFORE (1u << 2) /* GCPerHeapHistory */
#define GCEV_STATS_HEAP_HAS_FRAG_AFTER (1u << 3)  /* GCPerHeapHistory */
#define GCEV_STATS_HEAP_HAS_PROMOTED (1u << 4)    /* GCHeapStats TotalPromotedSizeN */

/* One generation of the heap around one GC, summed over the GC heaps (bytes). */
typedef struct gcev_stats_gen_heap {
    uint32_t present;     /* GCEV_STATS_HEAP_HAS_* */
    uint64_t size_before; /* SizeBefore */
    uint64_t size_after;  /* SizeAfter (or HeapStats GenerationSizeN) */
    uint64_t frag_before; /* FreeListBefore + FreeObjBefore */
    uint64_t frag_after;  /* FreeListAfter + FreeObjAfter: PerfView's "Fragmentation" */
    uint64_t promoted;    /* bytes promoted out of/within this generation */
} gcev_stats_gen_heap;

/* Marking of one root kind (GCMarkWithType), over all heaps. */
typedef struct gcev_stats_mark {
    uint8_t present; /* 1 when at least one heap reported this kind */
    double ms;       /* longest heap's time: since its previous mark event (or GC start) */
    uint64_t bytes;  /* bytes promoted from these roots, summed over heaps */
} gcev_stats_mark;

/* gcev_stats_gc.present bits. */
#define GCEV_STATS_GC_HAS_GENERATION (UINT64_C(1) << 0)       /* GCStart Depth */
#define GCEV_STATS_GC_HAS_REASON (UINT64_C(1) << 1)           /* GCStart Reason */
#define GCEV_STATS_GC_HAS_TYPE (UINT64_C(1) << 2)             /* GCStart Type (V1+) */
#define GCEV_STATS_GC_HAS_END (UINT64_C(1) << 3)              /* GCEnd seen: end_ms, duration_ms */
#define GCEV_STATS_GC_HAS_SUSPENSION (UINT64_C(1) << 4)       /* suspend_begin_ms, suspension_ms */
#define GCEV_STATS_GC_HAS_PAUSE (UINT64_C(1) << 5)            /* pause_ms */
#define GCEV_STATS_GC_HAS_PROMOTED (UINT64_C(1) << 6)         /* promoted_bytes */
#define GCEV_STATS_GC_HAS_ALLOCATED (UINT64_C(1) << 7)        /* allocated_bytes */
#define GCEV_STATS_GC_HAS_PINNED_OBJECTS (UINT64_C(1) << 8)   /* HeapStats PinnedObjectCount */
#define GCEV_STATS_GC_HAS_PINNED_EVENTS (UINT64_C(1) << 9)    /* PinObjectAtGCTime counts */
#define GCEV_STATS_GC_HAS_FINALIZATION (UINT64_C(1) << 10)    /* finalization_promoted_count */
#define GCEV_STATS_GC_HAS_CONDEMN_REASONS (UINT64_C(1) << 11) /* condemn_reasons0/1 */
#define GCEV_STATS_GC_HAS_HEAP_COUNT (UINT64_C(1) << 12)      /* GlobalHeapHistory NumHeaps */
#define GCEV_STATS_GC_HAS_MECHANISMS (UINT64_C(1) << 13)      /* GlobalHeapHistory GlobalMechanisms */
#define GCEV_STATS_GC_HAS_MARKS (UINT64_C(1) << 14)           /* marks[] (GCMarkWithType) */
#define GCEV_STATS_GC_HAS_LOH_COMPACT (UINT64_C(1) << 15)     /* loh_compact_* (GCLOHCompact) */
#define GCEV_STATS_GC_HAS_NESTED_IN (UINT64_C(1) << 16)       /* started during background GC nested_in */
#define GCEV_STATS_GC_HAS_HEAP_HISTORY (UINT64_C(1) << 17)    /* GCPerHeapHistory seen (heap_histories) */
#define GCEV_STATS_GC_HAS_HEAP_STATS (UINT64_C(1) << 18)      /* GCHeapStats seen */

/* gcev_stats_gc.flags */
#define GCEV_STATS_GC_INCOMPLETE (1u << 0)        /* events were dropped while this GC was open */
#define GCEV_STATS_GC_SHARED_SUSPENSION (1u << 1) /* started inside another GC's suspension */

typedef struct gcev_stats_gc {
    uint64_t present;         /* GCEV_STATS_GC_HAS_* */
    uint32_t flags;           /* GCEV_STATS_GC_INCOMPLETE, ... */
    uint32_t number;          /* GCStart Count: the runtime's GC index */
    uint32_t generation;      /* condemned generation (GCStart Depth) */
    uint32_t reason;          /* GCReasonMap value (gcev_gc_reason_map_name) */
    uint32_t type;            /* gcev_stats_gc_type */
    uint32_t nested_in;       /* number of the background GC this GC ran inside */
    uint64_t thread_id;       /* thread that logged GCStart */
    double start_ms;          /* GCStart, ms from the trace start */
    double end_ms;            /* GCEnd */
    double duration_ms;       /* GCStart -> GCEnd */
    double suspend_begin_ms;  /* SuspendEEBegin of the suspension the GC started in */
    double suspension_ms;     /* SuspendEEBegin -> SuspendEEEnd (summed for a background GC) */
    double pause_ms;          /* SuspendEEBegin -> RestartEEEnd (background: its own suspensions) */
    uint32_t suspensions;     /* suspensions summed into pause_ms */
    uint64_t promoted_bytes;  /* HeapStats total promoted, else GCMarkWithType bytes */
    uint64_t allocated_bytes; /* AllocationTick amounts since the previous GCStart */
    uint64_t pinned_objects;  /* HeapStats PinnedObjectCount */
    uint32_t pinned_events;   /* PinObjectAtGCTime events during the GC */
    uint64_t pinned_bytes;    /* their ObjectSize sum */
    uint64_t finalization_promoted_count;
    uint32_t condemn_reasons0; /* GlobalHeapHistory V3+, else OR of PerHeapHistory */
    uint32_t condemn_reasons1;
    uint32_t global_mechanisms;
    int32_t heap_count;      /* GlobalHeapHistory NumHeaps (>1: server GC) */
    uint32_t heap_histories; /* GCPerHeapHistory events summed into gens[] */
    gcev_stats_gen_heap gens[GCEV_STATS_GENS];
    gcev_stats_mark marks[GCEV_STATS_ROOT_KINDS];
    uint32_t loh_compact_heaps;        /* GCLOHCompact elements (one per heap) */
    uint64_t loh_compact_time_plan;    /* TimePlan, TimeCompact, TimeRelocate: summed over heaps, */
    uint64_t loh_compact_time_compact; /* in the runtime's units (microseconds) */
    uint64_t loh_compact_time_relocate;
    uint64_t loh_compact_total_refs;
    uint64_t loh_compact_zero_refs;
} gcev_stats_gc;

/* ------------------------------------------------------------------------ */
/* Summaries                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct gcev_stats_gen_summary {
    uint32_t generation;  /* 0, 1 or 2 (condemned generation) */
    uint64_t count;       /* GCs of this generation */
    uint64_t background;  /* of which background GCs */
    uint64_t foreground;  /* of which foreground GCs */
    uint64_t pause_count; /* GCs whose pause is known (the mean divides by it) */
    double pause_total_ms, pause_mean_ms, pause_max_ms; /* valid when pause_count > 0 */
    uint64_t promoted_count;                            /* GCs whose promoted bytes are known */
    uint64_t promoted_bytes;                            /* valid when promoted_count > 0 */
    double duration_total_ms;                           /* GCStart -> GCEnd, of GCs with an end */
} gcev_stats_gen_summary;

/* gcev_stats_summary.present bits. */
#define GCEV_STATS_SUM_HAS_DURATION (UINT64_C(1) << 0)   /* duration_ms > 0: rates are defined */
#define GCEV_STATS_SUM_HAS_PAUSE (UINT64_C(1) << 1)      /* some pause known */
#define GCEV_STATS_SUM_HAS_ALLOCATION (UINT64_C(1) << 2) /* AllocationTick seen */
#define GCEV_STATS_SUM_HAS_HEAP_COUNT (UINT64_C(1) << 3) /* GlobalHeapHistory seen */
#define GCEV_STATS_SUM_HAS_SURVIVED (UINT64_C(1) << 4)   /* AppDomainMemSurvived after a full blocking GC */

typedef struct gcev_stats_summary {
    uint64_t present;         /* GCEV_STATS_SUM_HAS_* */
    uint64_t events;          /* events fed (all providers) */
    uint64_t gc_events;       /* of which decoded GC events */
    uint64_t decode_errors;   /* GC events whose payload did not decode (skipped) */
    double first_ms, last_ms; /* time span of the events fed */
    double duration_ms;       /* last_ms - first_ms */
    uint64_t gc_count;
    uint64_t unfinished_gcs;    /* GCs without a GCEnd */
    double gcs_per_sec;         /* HAS_DURATION */
    double pause_total_ms;      /* HAS_PAUSE */
    double pause_percent;       /* HAS_PAUSE and HAS_DURATION: pause_total / duration */
    double pause_max_ms;        /* HAS_PAUSE */
    uint32_t pause_max_gc;      /* number of the GC with the longest pause */
    uint64_t allocation_ticks;  /* HAS_ALLOCATION: AllocationTick events */
    uint64_t allocated_bytes;   /* their AllocationAmount(64) sum (~100 KB sampling) */
    double alloc_mb_per_sec;    /* HAS_ALLOCATION and HAS_DURATION (MB = 10^6 bytes) */
    uint64_t other_suspensions; /* suspensions with no GC inside (sampler, debugger) */
    double other_suspended_ms;  /* their SuspendEEBegin -> RestartEEEnd time */
    int32_t heap_count;         /* HAS_HEAP_COUNT: largest NumHeaps seen (>1: server GC) */
    uint64_t dropped_events;    /* reported by gcev_stats_note_dropped() */
    uint32_t survived_gc;       /* HAS_SURVIVED: number of the last full blocking GC */
    uint64_t process_survived;  /* HAS_SURVIVED: ProcessSurvived after it */
    uint8_t limit_hit;          /* 1: a segment/handle/AppDomain table reached its limit */
} gcev_stats_summary;

/* Survived bytes of one AppDomain after the last full blocking GC. */
typedef struct gcev_stats_appdomain {
    uint64_t app_domain_id;
    uint64_t survived;
} gcev_stats_appdomain;

/* ------------------------------------------------------------------------ */
/* Lifetimes: segments and GC handles                                        */
/* ------------------------------------------------------------------------ */

typedef struct gcev_stats_segment {
    uint64_t address;
    uint64_t size;
    uint32_t type; /* GCSegmentTypeMap value */
    double created_ms;
} gcev_stats_segment;

typedef struct gcev_stats_handle {
    uint64_t handle_id;
    uint64_t object_id;
    uint64_t app_domain_id;
    uint32_t kind; /* GCHandleKindMap value */
    uint32_t generation;
    double created_ms;
} gcev_stats_handle;

typedef struct gcev_stats_pairing {
    uint64_t created;         /* Create/Set events */
    uint64_t freed;           /* Free/Destroy events that matched a creation */
    uint64_t unmatched_frees; /* Free/Destroy events with no creation seen */
    uint64_t live;            /* never freed (listed by the *_at accessors) */
    uint64_t over_limit;      /* creations not tracked because the table was full */
} gcev_stats_pairing;

/* ------------------------------------------------------------------------ */
/* The model                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct gcev_stats_options {
    uint32_t max_segments;    /* live segments tracked; 0 = 65536 */
    uint32_t max_handles;     /* live GC handles tracked; 0 = 1048576 */
    uint32_t max_app_domains; /* AppDomains tracked for survived bytes; 0 = 256 */
} gcev_stats_options;

typedef struct gcev_stats gcev_stats;

/*
 * Creates an empty model. opts may be NULL (defaults). *out receives the model,
 * or NULL on failure. Returns GCEV_OK, GCEV_E_INVALID_ARG (out NULL) or
 * GCEV_E_NOMEM. Free with gcev_stats_free().
 */
GCEV_API gcev_status gcev_stats_create(const gcev_stats_options *opts, gcev_stats **out);

/* Frees the model and every record it returned (NULL allowed). */
GCEV_API void gcev_stats_free(gcev_stats *s);

/* One event given as raw bytes, for profilers that do not use gcev's readers. */
typedef struct gcev_stats_input {
    const gcev_provider *provider; /* compiled provider, or NULL (the event is only counted) */
    uint16_t event_id;
    uint16_t version;
    uint8_t pointer_size;   /* of the traced process: 4 or 8 */
    const uint8_t *payload; /* may be NULL when payload_size == 0 */
    uint32_t payload_size;
    double ms; /* timestamp, ms from any fixed origin */
    uint64_t thread_id;
} gcev_stats_input;

/*
 * Feeds one event (timestamp order). Events of other providers or families only
 * extend the time span. The payload is decoded and not kept. Returns GCEV_OK
 * (used or ignored), GCEV_E_INVALID_ARG (s or in NULL, or after finish), or
 * the decode error of a malformed GC payload (the event is then skipped and
 * counted in summary.decode_errors; the model stays usable), or GCEV_E_NOMEM.
 */
GCEV_API gcev_status gcev_stats_add(gcev_stats *s, const gcev_stats_input *in);

/* Same, from a trace reader's event (uses ev->ms, ev->thread_id, ev->pointer_size). */
GCEV_API gcev_status gcev_stats_add_trace_event(gcev_stats *s, const gcev_trace_event *ev);

/*
 * Same, for an event the caller already decoded (ev->desc must be set: the
 * family is taken from ev->desc->family). Returns GCEV_OK, GCEV_E_INVALID_ARG
 * or GCEV_E_NOMEM.
 */
GCEV_API gcev_status gcev_stats_add_decoded(gcev_stats *s, const gcev_event *ev, double ms,
                                            uint64_t thread_id);

/*
 * Reports that `count` events were lost just before time `ms` (e.g. the growth
 * of gcev_trace_dropped_events()). GCs open at that point are flagged
 * GCEV_STATS_GC_INCOMPLETE, and every output should say that pairing and stats
 * may be incomplete. NULL s is ignored.
 */
GCEV_API void gcev_stats_note_dropped(gcev_stats *s, uint64_t count, double ms);

/*
 * Ends the feed: closes pending suspensions, resolves "absent" bits, builds the
 * summaries and the never-freed lists. Idempotent; feeding afterwards returns
 * GCEV_E_INVALID_ARG. Returns GCEV_OK, GCEV_E_INVALID_ARG (s NULL) or GCEV_E_NOMEM.
 */
GCEV_API gcev_status gcev_stats_finish(gcev_stats *s);

/* Called every 65536 events by gcev_stats_read_trace (file_size 0 for streams). */
typedef void (*gcev_stats_progress_fn)(void *ctx, uint64_t events, uint64_t file_offset, uint64_t file_size);

/*
 * Reads every remaining event of `t` into the model, reporting dropped events
 * as they are detected, then calls gcev_stats_finish(). progress may be NULL.
 * Open the trace with GCEV_TRACE_ORDER_TIME: the model needs timestamp order.
 * Returns GCEV_OK at the clean end of the trace, or the reader's error (err
 * filled; the model then holds, finished, every event before the fault), or
 * GCEV_E_NOMEM / GCEV_E_INVALID_ARG (s or t NULL).
 */
GCEV_API gcev_status gcev_stats_read_trace(gcev_stats *s, gcev_trace *t, gcev_stats_progress_fn progress,
                                           void *ctx, gcev_error *err);

/* ------------------------------------------------------------------------ */
/* Results (valid after gcev_stats_finish; NULL s gives 0 / NULL)            */
/* ------------------------------------------------------------------------ */

/* GCs in start order. */
GCEV_API size_t gcev_stats_gc_count(const gcev_stats *s);
/* The i-th GC, or NULL when i >= count. */
GCEV_API const gcev_stats_gc *gcev_stats_gc_at(const gcev_stats *s, size_t i);
/* The last GC with this number (GCStart Count), or NULL. */
GCEV_API const gcev_stats_gc *gcev_stats_gc_find(const gcev_stats *s, uint32_t number);

/* Whole-trace summary; NULL pointer returned only for NULL s. */
GCEV_API const gcev_stats_summary *gcev_stats_get_summary(const gcev_stats *s);
/* Generation 0, 1 or 2; NULL otherwise. */
GCEV_API const gcev_stats_gen_summary *gcev_stats_generation(const gcev_stats *s, unsigned gen);

/* AppDomains with survived bytes after the last full blocking GC, by first appearance. */
GCEV_API size_t gcev_stats_appdomain_count(const gcev_stats *s);
GCEV_API const gcev_stats_appdomain *gcev_stats_appdomain_at(const gcev_stats *s, size_t i);

/* Pairing counts; NULL for NULL s. */
GCEV_API const gcev_stats_pairing *gcev_stats_segment_pairing(const gcev_stats *s);
GCEV_API const gcev_stats_pairing *gcev_stats_handle_pairing(const gcev_stats *s);
/* Never-freed segments and handles, in creation-time order (count == pairing->live). */
GCEV_API const gcev_stats_segment *gcev_stats_live_segment_at(const gcev_stats *s, size_t i);
GCEV_API const gcev_stats_handle *gcev_stats_live_handle_at(const gcev_stats *s, size_t i);

/* How many events of a compiled family were fed (gcev_family value); 0 for others. */
GCEV_API uint64_t gcev_stats_family_count(const gcev_stats *s, uint16_t family);

#ifdef __cplusplus
}
#endif

#endif /* GCEV_STATS_H */
