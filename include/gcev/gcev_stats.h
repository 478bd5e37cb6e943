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
 * has its bit clear and its value 0. No member is ever NaN or infinite (where TraceEvent's
 * value is infinite, a bit says so: GCEV_STATS_HEAP_FRAG_PERCENT_INFINITE).
 *
 * Definitions: the per-GC metrics are those of TraceEvent's TraceGC and the
 * summaries those of its GCStats (microsoft/perfview
 * src/TraceEvent/Computers/TraceManagedProcess.cs), with the differences
 * doc/stats.md lists (each one where the runtime's events show TraceEvent
 * wrong). Sizes are bytes (TraceEvent's MB are 10^6 bytes), times are
 * milliseconds from the trace start. GCs are kept per process: every record
 * carries its process id, and gcev_stats_process_*() give each process's own
 * GC list and summaries.
 *
 * Conventions of every function here (each function's comment says only what differs):
 * - NULL: a NULL model (or record) is never dereferenced. Functions returning a status then
 *   return GCEV_E_INVALID_ARG, accessors return 0 or NULL, gcev_stats_free() and
 *   gcev_stats_note_dropped() do nothing.
 * - Ownership: the model owns every record it returns (gcev_stats_gc, _heap, _process, ...);
 *   the caller never frees or changes them. After gcev_stats_finish() they stay valid and
 *   unchanged until gcev_stats_free(). Before it, feeding more events may move them (the GC
 *   list grows): fetch them again after each gcev_stats_add*(). The names the *_name()
 *   functions return are static strings, valid for the life of the program.
 * - What is known when: a GC's record fills in as its events arrive. The values TraceEvent
 *   computes when a GC ends (sizes before and peak, allocation since the last GC, the pause
 *   share, mark times, pin sizes, condemned reasons, heap sizes after from the histories), the
 *   per-process and per-generation summaries, the pause distributions and the never-freed
 *   lists are computed by gcev_stats_finish(); read them after it.
 * - Memory: the model allocates as GCs arrive (amortized growth of its GC list, per-heap
 *   records, pin and wait tables), bounded by gcev_stats_options, and in gcev_stats_finish();
 *   accessors never allocate. No function does I/O except gcev_stats_read_trace() (through
 *   the trace reader).
 * - Thread-safety: a model must not be used from two threads at once while it is fed or
 *   finished. A finished model may be read from several threads at once (the accessors only
 *   read). Distinct models are independent; the library keeps no mutable global state.
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

/* "blocking", "background", "foreground" (static strings); NULL for other values. */
GCEV_API const char *gcev_stats_gc_type_name(uint32_t type);

/* Heap generations reported by the runtime: 0, 1, 2, LOH (3), POH (4). */
enum { GCEV_STATS_GENS = 5 };
/* GCRootKindMap values 0..9 (Stack ... BGC), the kinds GCMarkWithType reports. */
enum { GCEV_STATS_ROOT_KINDS = 10 };

/* "gen0", "gen1", "gen2", "loh", "poh" (static strings); NULL for other indexes. */
GCEV_API const char *gcev_stats_gen_name(unsigned gen);

/* gcev_stats_gen_heap.present bits. */
#define GCEV_STATS_HEAP_HAS_SIZE_BEFORE (1u << 0)       /* GCPerHeapHistory */
#define GCEV_STATS_HEAP_HAS_SIZE_AFTER (1u << 1)        /* GCPerHeapHistory, else GCHeapStats */
#define GCEV_STATS_HEAP_HAS_FRAG_BEFORE (1u << 2)       /* GCPerHeapHistory */
#define GCEV_STATS_HEAP_HAS_FRAG_AFTER (1u << 3)        /* GCPerHeapHistory */
#define GCEV_STATS_HEAP_HAS_PROMOTED (1u << 4)          /* GCHeapStats TotalPromotedSizeN */
#define GCEV_STATS_HEAP_HAS_HISTORY (1u << 5)           /* the GCPerHeapHistory sums below (V3 histories) */
#define GCEV_STATS_HEAP_HAS_SURVIVAL (1u << 6)          /* survival_percent */
#define GCEV_STATS_HEAP_HAS_FRAG_PERCENT (1u << 7)      /* fragmentation_percent */
#define GCEV_STATS_HEAP_HAS_USER_ALLOCATED (1u << 8)    /* user_allocated (gen0, loh, poh) */
#define GCEV_STATS_HEAP_SIZE_BEFORE_ESTIMATED (1u << 9) /* size_before is TraceEvent's fallback estimate */
/* --compat traceevent only: TraceEvent's GenFragmentationPercent is +Infinity (frag_after > 0 with
 * size_after 0); HAS_FRAG_PERCENT is then clear and fragmentation_percent 0 */
#define GCEV_STATS_HEAP_FRAG_PERCENT_INFINITE (1u << 10)

/*
 * One generation of the heap around one GC, summed over the GC heaps (bytes).
 * size_after is GCHeapStats GenerationSizeN (TraceEvent's GenSizeAfterMB); only
 * without GCHeapStats does it come from the histories, and then only for the
 * generations the GC rewrote (0 .. condemned + 1, and LOH/POH after a gen2 GC):
 * the histories report 0 for the others. size_before is the histories' SizeBefore
 * (GenSizeBeforeMB), else TraceEvent's estimate (SIZE_BEFORE_ESTIMATED).
 */
typedef struct gcev_stats_gen_heap {
    uint32_t present;     /* GCEV_STATS_HEAP_HAS_* */
    uint64_t size_before; /* SizeBefore */
    uint64_t size_after;  /* GCHeapStats GenerationSizeN (see above) */
    uint64_t frag_before; /* FreeListBefore + FreeObjBefore */
    uint64_t frag_after;  /* FreeListAfter + FreeObjAfter: GenFragmentationMB */
    uint64_t promoted;    /* GCHeapStats TotalPromotedSizeN: GenPromotedMB */
    /* HAS_HISTORY: sums over the heaps' GCPerHeapHistory of this generation */
    uint64_t obj_space_before; /* SizeBefore - FreeListBefore - FreeObjBefore */
    uint64_t obj_size_after;   /* SizeAfter - FreeListAfter - FreeObjAfter: GenObjSizeAfterMB */
    uint64_t in;               /* In: GenInMB */
    uint64_t out;              /* PinnedSurv + NonePinnedSurv: GenOutMB */
    uint64_t budget;           /* NewAllocation, the allocation budget: GenBudgetMB */
    uint64_t pinned_surv, non_pinned_surv;
    uint64_t free_list_before, free_obj_before, free_list_after, free_obj_after;
    double survival_percent;      /* HAS_SURVIVAL: SurvivalPercent (mean of the heaps' integer rates) */
    double fragmentation_percent; /* HAS_FRAG_PERCENT: frag_after * 100 / size_after (size_after > 0) */
    int64_t user_allocated;       /* HAS_USER_ALLOCATED: UserAllocated[gen] (may be negative) */
} gcev_stats_gen_heap;

/* Marking of one root kind (GCMarkWithType), over all heaps. */
typedef struct gcev_stats_mark {
    uint8_t present; /* 1 when at least one heap reported this kind */
    double ms;       /* longest heap's time: since its previous mark event (or GC start) */
    uint64_t bytes;  /* bytes promoted from these roots, summed over heaps */
} gcev_stats_mark;

/* gcev_stats_gc.present bits. */
#define GCEV_STATS_GC_HAS_GENERATION (UINT64_C(1) << 0)        /* GCStart Depth */
#define GCEV_STATS_GC_HAS_REASON (UINT64_C(1) << 1)            /* GCStart Reason */
#define GCEV_STATS_GC_HAS_TYPE (UINT64_C(1) << 2)              /* GCStart Type (V1+) */
#define GCEV_STATS_GC_HAS_END (UINT64_C(1) << 3)               /* GCEnd seen: end_ms, duration_ms */
#define GCEV_STATS_GC_HAS_SUSPENSION (UINT64_C(1) << 4)        /* suspend_begin_ms, suspension_ms */
#define GCEV_STATS_GC_HAS_PAUSE (UINT64_C(1) << 5)             /* pause_ms */
#define GCEV_STATS_GC_HAS_PROMOTED (UINT64_C(1) << 6)          /* promoted_bytes */
#define GCEV_STATS_GC_HAS_ALLOCATED (UINT64_C(1) << 7)         /* allocated_bytes */
#define GCEV_STATS_GC_HAS_PINNED_OBJECTS (UINT64_C(1) << 8)    /* HeapStats PinnedObjectCount */
#define GCEV_STATS_GC_HAS_PINNED_EVENTS (UINT64_C(1) << 9)     /* PinObjectAtGCTime counts */
#define GCEV_STATS_GC_HAS_FINALIZATION (UINT64_C(1) << 10)     /* finalization_promoted_count */
#define GCEV_STATS_GC_HAS_CONDEMN_REASONS (UINT64_C(1) << 11)  /* condemn_reasons0/1 */
#define GCEV_STATS_GC_HAS_HEAP_COUNT (UINT64_C(1) << 12)       /* GlobalHeapHistory NumHeaps */
#define GCEV_STATS_GC_HAS_MECHANISMS (UINT64_C(1) << 13)       /* GlobalHeapHistory GlobalMechanisms */
#define GCEV_STATS_GC_HAS_MARKS (UINT64_C(1) << 14)            /* marks[] (GCMarkWithType) */
#define GCEV_STATS_GC_HAS_LOH_COMPACT (UINT64_C(1) << 15)      /* loh_compact_* (GCLOHCompact) */
#define GCEV_STATS_GC_HAS_NESTED_IN (UINT64_C(1) << 16)        /* started during background GC nested_in */
#define GCEV_STATS_GC_HAS_HEAP_HISTORY (UINT64_C(1) << 17)     /* GCPerHeapHistory seen (heap_histories) */
#define GCEV_STATS_GC_HAS_HEAP_STATS (UINT64_C(1) << 18)       /* GCHeapStats seen */
#define GCEV_STATS_GC_HAS_PAUSE_START (UINT64_C(1) << 19)      /* pause_start_ms */
#define GCEV_STATS_GC_HAS_SINCE_RESTART (UINT64_C(1) << 20)    /* since_last_restart_ms */
#define GCEV_STATS_GC_HAS_PAUSE_PERCENT (UINT64_C(1) << 21)    /* pause_time_percent */
#define GCEV_STATS_GC_HAS_SIZE_BEFORE (UINT64_C(1) << 22)      /* heap_size_before */
#define GCEV_STATS_GC_HAS_SIZE_AFTER (UINT64_C(1) << 23)       /* heap_size_after */
#define GCEV_STATS_GC_HAS_SIZE_PEAK (UINT64_C(1) << 24)        /* heap_size_peak */
#define GCEV_STATS_GC_HAS_RATIO_PEAK_AFTER (UINT64_C(1) << 25) /* ratio_peak_after */
#define GCEV_STATS_GC_HAS_ALLOCATED_SINCE (UINT64_C(1) << 26)  /* allocated_since_last_gc */
#define GCEV_STATS_GC_HAS_ALLOC_RATE (UINT64_C(1) << 27)       /* alloc_rate_mb_per_sec */
#define GCEV_STATS_GC_HAS_ALLOC_TICKS (UINT64_C(1) << 28)      /* alloc_tick_bytes[] */
#define GCEV_STATS_GC_HAS_GLOBAL_HISTORY (UINT64_C(1) << 29)   /* final_youngest_desired .. global_reason */
#define GCEV_STATS_GC_HAS_PAUSE_MODE (UINT64_C(1) << 30)       /* pause_mode, memory_pressure (V2+) */
#define GCEV_STATS_GC_HAS_GLOBAL_CONDEMN (UINT64_C(1) << 31)   /* global_condemn_*, global_condemned_groups */
#define GCEV_STATS_GC_HAS_PHASES (UINT64_C(1) << 32)           /* phase_us[] (phase_present) */
#define GCEV_STATS_GC_HAS_CONDEMNED (UINT64_C(1) << 33)        /* condemned_reasons, highest_condemned_heap */
#define GCEV_STATS_GC_HAS_BGC_FINAL_PAUSE (UINT64_C(1) << 34)  /* bgc_final_pause_ms */
#define GCEV_STATS_GC_HAS_BGC_PHASE (UINT64_C(1) << 35)        /* bgc_phase, bgc_phase_ms[] */
#define GCEV_STATS_GC_HAS_BGC_REVISIT (UINT64_C(1) << 36)      /* bgc_revisit_* */
#define GCEV_STATS_GC_HAS_COMMITTED_BEFORE (UINT64_C(1) << 37) /* committed_before */
#define GCEV_STATS_GC_HAS_COMMITTED_AFTER (UINT64_C(1) << 38)  /* committed_after */
#define GCEV_STATS_GC_HAS_DATAS (UINT64_C(1) << 39)            /* datas_heap_count */
#define GCEV_STATS_GC_HAS_PINNED_SIZES (UINT64_C(1) << 40)     /* pinned_object_sizes */
#define GCEV_STATS_GC_HAS_PINNED_PLUGS (UINT64_C(1) << 41)     /* pinned_plug_size, user_pinned_plug_size */
#define GCEV_STATS_GC_HAS_PINNED_PERCENT (UINT64_C(1) << 42)   /* pinned_object_percent */
#define GCEV_STATS_GC_HAS_FREE_LIST (UINT64_C(1) << 43)        /* free_list_allocated, _consumed */
#define GCEV_STATS_GC_HAS_LOH_WAITS (UINT64_C(1) << 44)        /* loh_waits (gcev_stats_gc_loh_wait_at) */
#define GCEV_STATS_GC_HAS_FIT_BUCKETS (UINT64_C(1) << 45)      /* fit_buckets (gcev_stats_gc_fit_bucket_at) */
#define GCEV_STATS_GC_HAS_JOINS (UINT64_C(1) << 46)            /* joins, join restarts; per heap: join_* */
#define GCEV_STATS_GC_HAS_DYNAMIC (UINT64_C(1) << 47)          /* dynamic_events */
#define GCEV_STATS_GC_HAS_GENERATION_COUNT (UINT64_C(1) << 48) /* generation_count */

/* gcev_stats_gc.flags */
#define GCEV_STATS_GC_INCOMPLETE                                                                             \
    (1u << 0) /* events were dropped, or input skipped, while this GC was open                               \
               */
#define GCEV_STATS_GC_SHARED_SUSPENSION (1u << 1) /* started inside another GC's suspension */
/* ended with GCHeapStats and, unless background, its RestartEEEnd: TraceEvent's IsComplete.
 * Only complete GCs enter the per-process summaries (gcev_stats_process), as in TraceEvent. */
#define GCEV_STATS_GC_COMPLETE (1u << 2)
#define GCEV_STATS_GC_HEAPS_DROPPED (1u << 3) /* per-heap records not kept (max_heap_records reached) */
#define GCEV_STATS_GC_PINS_DROPPED (1u << 4)  /* more pins than max_pins: pin sizes are partial */

/* GCGlobalHeapHistory_V4 phase times (TraceEvent's TimingType order), phase_us[] indexes. */
enum {
    GCEV_STATS_PHASE_MARK_ROOT = 0,
    GCEV_STATS_PHASE_MARK_SHORT_WEAK,
    GCEV_STATS_PHASE_MARK_SCAN_FINALIZATION,
    GCEV_STATS_PHASE_MARK_LONG_WEAK,
    GCEV_STATS_PHASE_PLAN,
    GCEV_STATS_PHASE_RELOCATE,       /* compacting GCs */
    GCEV_STATS_PHASE_COMPACT,        /* compacting GCs (0 on .NET 6-8: a runtime bug) */
    GCEV_STATS_PHASE_SWEEP,          /* sweeping GCs */
    GCEV_STATS_PHASE_MARK_SIZED_REF, /* Values[0], which TraceEvent does not report */
    GCEV_STATS_PHASES
};
/* "mark_root", "mark_short_weak", ... "mark_sized_ref"; NULL for other indexes. */
GCEV_API const char *gcev_stats_phase_name(unsigned phase);

/* TraceEvent's CondemnedReasonGroup: the decoded CondemnReasons0/1 (per heap and global). */
enum { GCEV_STATS_CONDEMNED_GROUPS = 30 };
/*
 * "Initial_Generation", "Final_Generation", "Alloc_Exceeded", "Time_Tuning" (these four hold a
 * generation number), "Induced" (1 blocking, 2 not forced), then the conditions "Low_Ephemeral",
 * ... "Aggressive" (TraceEvent's names); NULL for other indexes.
 */
GCEV_API const char *gcev_stats_condemned_group_name(unsigned group);

/* Private BGC events whose times bgc_phase_ms[] holds (bgc_phase_present bits). */
enum {
    GCEV_STATS_BGC_BEGIN = 0,        /* BGCBegin */
    GCEV_STATS_BGC_1ST_NONCON_END,   /* BGC1stNonConEnd */
    GCEV_STATS_BGC_1ST_CON_END,      /* BGC1stConEnd */
    GCEV_STATS_BGC_2ND_NONCON_BEGIN, /* BGC2ndNonConBegin */
    GCEV_STATS_BGC_2ND_NONCON_END,   /* BGC2ndNonConEnd */
    GCEV_STATS_BGC_2ND_CON_BEGIN,    /* BGC2ndConBegin */
    GCEV_STATS_BGC_2ND_CON_END,      /* BGC2ndConEnd */
    GCEV_STATS_BGC_PLAN_END,         /* BGCPlanEnd */
    GCEV_STATS_BGC_SWEEP_END,        /* BGCSweepEnd */
    GCEV_STATS_BGC_1ST_SWEEP_END,    /* BGC1stSweepEnd */
    GCEV_STATS_BGC_EVENTS
};
/* "begin", "1st_noncon_end", ... ; NULL for other indexes. */
GCEV_API const char *gcev_stats_bgc_event_name(unsigned i);

/* GCDynamicEvent CommittedUsage (.NET 8+): the GC's committed memory, bytes. */
typedef struct gcev_stats_committed {
    uint32_t version;
    uint64_t in_use;
    uint64_t in_global_decommit;
    uint64_t in_free;
    uint64_t in_global_free;
    uint64_t bookkeeping;
} gcev_stats_committed;

typedef struct gcev_stats_gc {
    uint64_t present;         /* GCEV_STATS_GC_HAS_* */
    uint32_t flags;           /* GCEV_STATS_GC_INCOMPLETE, ... */
    uint32_t number;          /* GCStart Count: the runtime's GC index */
    uint32_t generation;      /* condemned generation (GCStart Depth) */
    uint32_t reason;          /* GCReasonMap value (gcev_gc_reason_name) */
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
    uint64_t promoted_bytes;  /* GCHeapStats TotalPromotedSize0..4 (marks[].bytes: the mark phase's) */
    uint64_t allocated_bytes; /* AllocationTick amounts since the previous GCStart */
    uint64_t pinned_objects;  /* HeapStats PinnedObjectCount */
    uint32_t pinned_events;   /* PinObjectAtGCTime events during the GC */
    uint64_t pinned_bytes;    /* their ObjectSize sum */
    uint64_t finalization_promoted_count;
    uint32_t condemn_reasons0; /* GlobalHeapHistory V3+, else OR of PerHeapHistory */
    uint32_t condemn_reasons1;
    uint32_t global_mechanisms;
    int32_t heap_count;      /* GlobalHeapHistory NumHeaps (>1: server GC) */
    uint32_t heap_histories; /* GCPerHeapHistory events summed into the generations */
    /* the generations around the GC (GCEV_STATS_GENS of them): gcev_stats_gc_gen_at(), as
     * gcev_stats_gen_heap is a record that grows (it was the member gens[] before SOVERSION 1) */
    gcev_stats_mark marks[GCEV_STATS_ROOT_KINDS];
    uint32_t loh_compact_heaps;        /* GCLOHCompact elements (one per heap) */
    uint64_t loh_compact_time_plan;    /* TimePlan, TimeCompact, TimeRelocate: summed over heaps, */
    uint64_t loh_compact_time_compact; /* in the runtime's units (microseconds) */
    uint64_t loh_compact_time_relocate;
    uint64_t loh_compact_total_refs;
    uint64_t loh_compact_zero_refs;
    /* ---- TraceEvent's TraceGC (members added after the ones above; see doc/stats.md) ---- */
    uint32_t process_id;             /* of the GC's events (0 when the trace does not say) */
    double pause_start_ms;           /* PauseStartRelativeMSec: SuspendEEBegin, or GCStart for the
                                      * ephemeral GC at a BGC's start and for a PMFullGC */
    double since_last_restart_ms;    /* DurationSinceLastRestartMSec: pause start (a BGC: its
                                      * GCHeapStats) minus the previous GC's GCHeapStats */
    double pause_time_percent;       /* PauseTimePercentageSinceLastGC */
    uint64_t heap_size_before;       /* HeapSizeBeforeMB: sum of the generations' size_before */
    uint64_t heap_size_after;        /* HeapSizeAfterMB: GCHeapStats GenerationSize0..4 */
    uint64_t heap_size_peak;         /* HeapSizePeakMB: before, or for a BGC the largest before of
                                      * the GCs inside it */
    double ratio_peak_after;         /* RatioPeakAfter (0 when heap_size_after is 0) */
    int64_t allocated_since_last_gc; /* AllocedSinceLastGCMB: gen0 + LOH + POH user_allocated */
    double alloc_rate_mb_per_sec;    /* AllocRateMBSec (since_last_restart_ms > 0) */
    uint64_t alloc_tick_bytes[3];    /* AllocationTick bytes SOH, LOH, POH between the previous
                                      * GC's GCHeapStats and this GC's (AllocedSinceLastGCBasedOnAllocTickMB) */
    uint64_t final_youngest_desired; /* GlobalHeapHistory */
    uint32_t condemned_generation;
    uint32_t gen0_reduction_count;
    uint32_t global_reason;
    uint32_t
        pause_mode; /* GCPauseMode: 0 Batch, 1 Interactive, 2 LowLatency, 3 SustainedLowLatency, 4 NoGC */
    uint32_t memory_pressure; /* percent */
    uint32_t global_condemn_reasons0, global_condemn_reasons1;
    uint8_t global_condemned_groups[GCEV_STATS_CONDEMNED_GROUPS]; /* GlobalCondemnedReasons */
    uint32_t condemned_reasons;           /* GetCondemnedReasons(): bit g = group g applies (from the heap
                                           * that condemned the GC's generation first) */
    uint32_t highest_condemned_heap;      /* FindFirstHighestCondemnedHeap(): index among the histories */
    uint8_t low_ephemeral;                /* IsLowEphemeral() */
    uint16_t phase_present;               /* bit i: phase_us[i] known */
    uint32_t phase_us[GCEV_STATS_PHASES]; /* TimingInfo, microseconds */
    uint32_t generation_count;            /* GenerationCount: generations in the histories (4 or 5) */
    uint64_t finalization_promoted_size;  /* GCHeapStats (HAS_HEAP_STATS) */
    uint32_t sink_block_count, gc_handle_count;
    double bgc_final_pause_ms;  /* BGCFinalPauseMSec: the last SuspendForGCPrep pause of a BGC */
    uint32_t bgc_phase;         /* BGCCurrentPhase: 0 1st non-concurrent, 1 1st concurrent,
                                 * 2 2nd non-concurrent, 3 2nd concurrent */
    uint16_t bgc_phase_present; /* bit i: bgc_phase_ms[i] known */
    double bgc_phase_ms[GCEV_STATS_BGC_EVENTS]; /* first time of each private BGC event */
    uint64_t bgc_revisit_pages[2][2]; /* BGCRevisitInfoArr: [0 concurrent, 1 non-concurrent][0 SOH, 1 LOH] */
    uint64_t bgc_revisit_objects[2][2];
    gcev_stats_committed committed_before, committed_after; /* CommittedUsageBefore/After */
    uint32_t datas_heap_count;      /* DATAS: NewNHeaps of the GC's last SizeAdaptationTuning
                                     * (HeapCountTuning on .NET 8) */
    uint32_t dynamic_events;        /* GCDynamicEvents of the GC other than CommittedUsage (DynamicEvents) */
    uint64_t pinned_object_sizes;   /* GetPinnedObjectSizes(): sizes of the distinct objects pinned */
    uint64_t pinned_plug_size;      /* TotalPinnedPlugSize: PinPlugAtGCTime sizes */
    uint64_t user_pinned_plug_size; /* TotalUserPinnedPlugSize: plugs holding a pinned object */
    int32_t pinned_object_percent;  /* GetPinnedObjectPercentage(): sizes * 100 / plug size, truncated */
    double free_list_allocated;     /* FreeList (gen1 GCs): bytes allocated into gen2 */
    double free_list_consumed;      /* ... and free-list space used for it */
    uint32_t loh_waits;             /* LOHWaitThreads entries (gcev_stats_gc_loh_wait_at) */
    uint32_t fit_buckets;           /* GCFitBucketInfo elements (gcev_stats_gc_fit_bucket_at) */
    uint32_t joins;                 /* GCJoin events of the GC */
    uint32_t join_restarts;         /* of which restarts (no heap number) */
    uint32_t heaps;                 /* per-heap records (gcev_stats_gc_heap_at) */
} gcev_stats_gc;

/* ------------------------------------------------------------------------ */
/* Per heap, per GC (server GC has one heap per core; DATAS changes the count) */
/* ------------------------------------------------------------------------ */

/* One generation of one heap's GCPerHeapHistory (bytes; percent for surv_rate). */
typedef struct gcev_stats_heap_gen {
    uint64_t size_before, size_after;
    uint64_t free_list_before, free_obj_before, free_list_after, free_obj_after;
    uint64_t in, pinned_surv, non_pinned_surv;
    uint64_t budget;    /* NewAllocation */
    uint32_t surv_rate; /* TraceEvent's SurvRate: out * 100 / obj_space_before, truncated */
} gcev_stats_heap_gen;

/* gcev_stats_heap.present bits. */
#define GCEV_STATS_HEAPREC_HAS_HISTORY (1u << 0)     /* GCPerHeapHistory (V3) of this heap */
#define GCEV_STATS_HEAPREC_HAS_MARKS (1u << 1)       /* mark_* (GCMarkWithType or private marks) */
#define GCEV_STATS_HEAPREC_HAS_JOINS (1u << 2)       /* join_* (GCJoin) */
#define GCEV_STATS_HEAPREC_HAS_LOH_COMPACT (1u << 3) /* loh_* (GCLOHCompact element) */

/*
 * Names of mechanisms (static strings). gcev_stats_global_mechanism_name(): GlobalMechanisms
 * bit `bit` (0 "concurrent", 1 "compaction", 2 "promotion", 3 "demotion", 4 "card_bundles",
 * 5 "elevation"), NULL for others. gcev_stats_compact_reason_name() and
 * gcev_stats_expand_mechanism_name(): the reason a heap compacted or expanded, from its
 * GCPerHeapHistory CompactMechanisms / ExpandMechanisms value (its lowest set bit, as
 * TraceEvent reads it: "low_ephemeral", "high_frag", "no_gaps", "loh_forced", "last_gc",
 * "induced_compacting", "fragmented_gen0", "high_mem_load", "high_mem_frag", "vhigh_mem_frag",
 * "no_gc_mode"; "reuse_normal", "reuse_bestfit", "new_seg_ep", "new_seg", "no_memory",
 * "next_full_gc"); NULL when the value names none (0: the heap did not compact / expand).
 */
GCEV_API const char *gcev_stats_global_mechanism_name(unsigned bit);
GCEV_API const char *gcev_stats_compact_reason_name(uint32_t compact_mechanisms);
GCEV_API const char *gcev_stats_expand_mechanism_name(uint32_t expand_mechanisms);

/* One heap of one GC. */
typedef struct gcev_stats_heap {
    uint32_t heap;    /* heap number */
    uint32_t present; /* GCEV_STATS_HEAPREC_HAS_* */
    /* HAS_HISTORY */
    uint32_t generations; /* elements of its Values (4, or 5 with POH) */
    uint64_t free_list_allocated, free_list_rejected, end_of_seg_allocated;
    uint64_t condemned_allocated, pinned_allocated, pinned_allocated_advance;
    uint32_t running_free_list_efficiency;
    uint32_t condemn_reasons0, condemn_reasons1;
    uint32_t compact_mechanisms, expand_mechanisms; /* the runtime's value: bit 31 and the reason's bit
                                                     * (0: none; gcev_stats_compact_reason_name) */
    uint64_t extra_gen0_commit;
    uint8_t condemned_groups[GCEV_STATS_CONDEMNED_GROUPS]; /* PerHeapCondemnedReasons */
    gcev_stats_heap_gen gens[GCEV_STATS_GENS];
    /* HAS_MARKS: time of each root kind (TraceEvent's MarkTimes: the kinds sorted by when
     * their event came, each minus the one before, the first minus the GC's start) */
    uint16_t mark_present;          /* bit k: mark_ms[k] known */
    uint16_t mark_promoted_present; /* bit k: mark_promoted[k] known (GCMarkWithType only) */
    double mark_ms[GCEV_STATS_ROOT_KINDS];
    uint64_t mark_promoted[GCEV_STATS_ROOT_KINDS];
    /* HAS_JOINS: GCJoin Start -> End of this heap's thread */
    uint32_t joins;     /* join waits that ended */
    double join_ms;     /* their total */
    double join_max_ms; /* the longest */
    /* HAS_LOH_COMPACT, runtime units (microseconds for times) */
    uint32_t loh_time_plan, loh_time_compact, loh_time_relocate;
    uint64_t loh_total_refs, loh_zero_refs;
} gcev_stats_heap;

/* A thread's wait for a background GC to let it allocate a large object (BGCAllocWait). */
typedef struct gcev_stats_loh_wait {
    uint64_t thread_id;
    uint32_t reason;            /* 9 GetLOHSeg, 10 AllocDuringSweep, 11 AllocDuringBGC */
    uint8_t has_begin, has_end; /* a wait whose begin was not seen has only its end */
    double begin_ms, end_ms;
} gcev_stats_loh_wait;

/* An element of GCFitBucketInfo. */
typedef struct gcev_stats_fit_bucket {
    uint32_t kind; /* GCBucketKindMap: 0 largest free-list items, 1 plugs in condemned */
    uint32_t index;
    uint32_t count;
    uint64_t size;
} gcev_stats_fit_bucket;

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
    double duration_total_ms;                           /* GCStart -> GCEnd, valid when duration_count > 0 */
    uint64_t duration_count;                            /* GCs with a GCEnd (duration_total_ms sums theirs) */
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
    /* Added later: */
    uint64_t skipped_ranges; /* reported by gcev_stats_note_skipped() (keep-going reads) */
    uint64_t skipped_bytes;  /* their bytes */
} gcev_stats_summary;

/* Pause distribution (gcev's own: nearest-rank percentiles of the pauses). */
typedef struct gcev_stats_pauses {
    uint64_t count; /* GCs with a pause; the rest is valid when count > 0 */
    double total_ms, mean_ms, p50_ms, p90_ms, p99_ms, max_ms;
} gcev_stats_pauses;

/* gcev_stats_gcstats.present bits. */
#define GCEV_STATS_GCSTATS_HAS_HEAP_COUNT (UINT64_C(1) << 0)     /* heap_count */
#define GCEV_STATS_GCSTATS_HAS_DURATION (UINT64_C(1) << 1)       /* process_duration_ms, pause_time_percent */
#define GCEV_STATS_GCSTATS_HAS_MEANS (UINT64_C(1) << 2)          /* the means (count > 0) */
#define GCEV_STATS_GCSTATS_HAS_SUSTAINED_RATE (UINT64_C(1) << 3) /* alloc_rate_max_sustained */

/*
 * The shortest stretch of program time over which gcev_stats_gcstats.alloc_rate_max_sustained
 * measures an allocation rate (ms). TraceEvent's MaxAllocRateMBSec divides each GC's allocation
 * by the time since the GC before, however short: two induced GCs 0.07 ms apart give a rate of
 * tens of GB/s that no program sustained.
 */
#define GCEV_STATS_ALLOC_RATE_WINDOW_MS 10.0

/*
 * TraceEvent's GCStats of one process (or of one generation of it), over its complete
 * GCs (GCEV_STATS_GC_COMPLETE), with TraceEvent's definitions. Sizes in bytes.
 */
typedef struct gcev_stats_gcstats {
    uint64_t present;                                   /* GCEV_STATS_GCSTATS_HAS_* */
    uint32_t count;                                     /* Count */
    uint32_t induced;                                   /* NumInduced: reason Induced or InducedNoForce */
    uint64_t pinned_object_sizes;                       /* PinnedObjectSizes */
    int64_t pinned_object_percent;                      /* PinnedObjectPercentage: TraceEvent keeps the sum */
    uint32_t with_pin_events;                           /* NumWithPinEvents */
    uint32_t with_pin_plug_events;                      /* NumWithPinPlugEvents */
    double pause_total_ms, pause_max_ms, pause_mean_ms; /* Total/Max/MeanPauseDurationMSec */
    double suspend_max_ms;                              /* MaxSuspendDurationMSec */
    uint64_t size_peak_max;                             /* MaxSizePeakMB */
    uint64_t size_peak_total, size_after_total;         /* TotalSizePeakMB, TotalSizeAfterMB */
    double size_peak_mean, size_after_mean;             /* MeanSizePeakMB, MeanSizeAfterMB */
    double alloc_rate_max;                              /* MaxAllocRateMBSec */
    int64_t allocated_total;                            /* TotalAllocatedMB */
    uint64_t promoted_total;                            /* TotalPromotedMB */
    double process_duration_ms;   /* ProcessDuration: first complete GC's pause start -> the last
                                   * GCHeapStats (process summary only) */
    double pause_time_percent;    /* GetGCPauseTimePercentage() */
    int32_t heap_count;           /* HeapCount: the first GlobalHeapHistory's NumHeaps */
    uint8_t has_detailed_gc_info; /* HasDetailedGCInfo: a GC had per-heap histories */
    uint8_t version_mismatch;     /* GCVersionInfoMismatch: a history gcev cannot read */
    uint64_t finalized_objects;   /* FinalizeObject events (FinalizedObjects, all types) */
    /* gcev's own */
    double alloc_mb_per_pause_ms; /* allocated_total / pause_total_ms (PerfView's "Alloc MB/MSec GC") */
    /* HAS_SUSTAINED_RATE: the highest allocation rate (MB/s, MB = 10^6 bytes) over a run of the
     * process's consecutive complete GCs whose times since the GC before (since_last_restart_ms)
     * add up to at least GCEV_STATS_ALLOC_RATE_WINDOW_MS: for each GC, the shortest such run that
     * ends with it, its allocated_since_last_gc summed over its since_last_restart_ms summed.
     * Every complete GC with both values takes part in the runs; a generation's value is the
     * highest over the runs that end with a GC of that generation. Absent when no run reaches the
     * window. The same in both modes (traceevent_compat): TraceEvent has no such value. */
    double alloc_rate_max_sustained;
} gcev_stats_gcstats;

/* One process's GCs and summaries. */
typedef struct gcev_stats_process {
    uint32_t process_id;
    uint64_t gc_count;       /* GCs of the process, complete or not */
    uint64_t complete_count; /* of which GCEV_STATS_GC_COMPLETE */
    /* GC.Stats(): gcev_stats_process_stats(); GC.Generations()[0..2]:
     * gcev_stats_process_gen_stats() (the members all and gens[3] before SOVERSION 1) */
    gcev_stats_pauses pauses; /* every complete GC with a pause */
    gcev_stats_pauses pauses_by_gen[3];
    gcev_stats_pauses pauses_by_type[3]; /* gcev_stats_gc_type: blocking, background, foreground */
    uint64_t duplicate_starts; /* GCStart events dropped: same Count as the previous GC (.NET Framework
                                * logs GCStart V1 then V2 for each GC) */
    uint32_t longest;          /* GCs listed by gcev_stats_process_longest_at (at most 10) */
} gcev_stats_process;

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

/*
 * Counts of operations, not of events: the runtime reports each GC handle operation to the
 * public provider (SetGCHandle, DestroyGCHandle) and to the private one (PrvSetGCHandle,
 * PrvDestroyGCHandle); the two reports of one operation count once (doc/stats.md,
 * "Lifetimes").
 */
typedef struct gcev_stats_pairing {
    uint64_t created;         /* creations: a Create/Set of an address or id not live */
    uint64_t freed;           /* Free/Destroy operations that matched a creation */
    uint64_t unmatched_frees; /* Free/Destroy operations with no creation seen: created before
                               * the trace, or (see unmatched_after_loss) lost */
    uint64_t live;            /* never freed (listed by the *_at accessors) */
    uint64_t over_limit;      /* creations not tracked because the table was full */
    /* Added later. */
    uint64_t reassigned;           /* a Set of a live handle (the runtime reassigning it, e.g.
                                    * GCHandle.Target) or a Create of a live segment address (segments
                                    * re-reported when the private provider is enabled): not creations */
    uint64_t merged_events;        /* events that were the second report of an operation
                                    * already counted (the other provider's) */
    uint64_t unmatched_after_loss; /* of unmatched_frees, those after the trace reported a loss
                                    * (dropped events, skipped range): their creation may be
                                    * among the lost events; the others were created before
                                    * the trace began */
} gcev_stats_pairing;

/* ------------------------------------------------------------------------ */
/* The model                                                                 */
/* ------------------------------------------------------------------------ */

/* The model's limits and mode; a zero member means its default. `struct_size`: gcev.h "Growable
 * structs" (GCEV_INIT); 0 = the first layout. */
typedef struct gcev_stats_options {
    uint32_t struct_size;
    uint32_t max_segments;      /* live segments tracked; 0 = 65536 */
    uint32_t max_handles;       /* live GC handles tracked; 0 = 1048576 */
    uint32_t max_app_domains;   /* AppDomains tracked for survived bytes; 0 = 256 */
    uint32_t max_heap_records;  /* per-heap records kept over all GCs; 0 = 262144 (~0.3 GB);
                                 * GCs past it get GCEV_STATS_GC_HEAPS_DROPPED */
    uint32_t max_pins;          /* distinct pinned objects and plugs tracked per GC; 0 = 65536 */
    uint32_t max_processes;     /* processes tracked; 0 = 1024 (events of others are counted only) */
    uint32_t traceevent_compat; /* 1: reproduce TraceEvent 4.0's numbers, its defects included
                                 * (doc/stats.md lists each); 0: gcev's corrected analysis */
} gcev_stats_options;

typedef struct gcev_stats gcev_stats;

/*
 * Creates an empty model. opts may be NULL: every option at its default (a zero member also
 * means its default). On success returns GCEV_OK and *out owns the model: free it with
 * gcev_stats_free(). On failure *out is NULL (when out is not NULL) and the status is
 * GCEV_E_INVALID_ARG (out NULL, opts->struct_size from 1 to 3), GCEV_E_UNSUPPORTED (opts->struct_size
 * past this library's gcev_stats_options with an option set there) or GCEV_E_NOMEM.
 */
GCEV_API gcev_status gcev_stats_create(const gcev_stats_options *opts, gcev_stats **out);

/* Frees the model and every record, list and string it returned. s may be NULL. */
GCEV_API void gcev_stats_free(gcev_stats *s);

/* One event given as raw bytes, for profilers that do not use gcev's readers. `struct_size`:
 * gcev.h "Growable structs" (GCEV_INIT); 0 = the first layout. */
typedef struct gcev_stats_input {
    uint32_t struct_size;
    const gcev_provider *provider; /* compiled provider, or NULL (the event is only counted) */
    uint16_t event_id;
    uint16_t version;
    uint8_t pointer_size;   /* of the traced process: 4 or 8 */
    const uint8_t *payload; /* may be NULL when payload_size == 0 */
    uint32_t payload_size;
    double ms; /* timestamp, ms from any fixed origin */
    uint64_t thread_id;
    uint32_t process_id; /* 0 when unknown (then all such events are one process) */
} gcev_stats_input;

/*
 * Feeds one event; events must come in timestamp order (ties in any order). The payload is
 * decoded and not kept: in->payload need only be valid during the call. Events of other
 * providers, or that are not GC events, only extend the time span (summary.events,
 * first_ms/last_ms). Returns:
 * - GCEV_OK: the event was used or ignored;
 * - GCEV_E_INVALID_ARG: s or in NULL, in->struct_size from 1 to 3, or the model is finished;
 * - GCEV_E_UNSUPPORTED: in->struct_size past this library's gcev_stats_input with a member set there;
 * - a decode status (GCEV_E_TRUNCATED, GCEV_E_BAD_COUNT, GCEV_E_BAD_POINTER_SIZE, ...; see
 *   gcev_decode()) for a malformed GC payload: the event is skipped and counted in
 *   summary.decode_errors, and the model stays usable;
 * - GCEV_E_NOMEM: the event could not be recorded; the model stays usable (the GC it
 *   belonged to may lack it) and may be fed on or finished.
 * Events of a process past max_processes are counted only and return GCEV_OK.
 */
GCEV_API gcev_status gcev_stats_add(gcev_stats *s, const gcev_stats_input *in);

/*
 * As gcev_stats_add() for an event of a trace reader (its provider, id, version,
 * pointer_size, payload, ms, thread_id and process_id). ev's payload need only be valid
 * during the call. GCEV_E_INVALID_ARG when s or ev is NULL or the model is finished.
 */
GCEV_API gcev_status gcev_stats_add_trace_event(gcev_stats *s, const gcev_trace_event *ev);

/*
 * As gcev_stats_add() for an event the caller already decoded (gcev_decode()): ev->desc
 * must be set, ev->family says which member of ev->u holds the fields, and the views in ev
 * need only be valid during the call. The event is process 0's. Returns GCEV_OK,
 * GCEV_E_INVALID_ARG (s or ev NULL, ev->desc NULL, or the model finished) or GCEV_E_NOMEM.
 */
GCEV_API gcev_status gcev_stats_add_decoded(gcev_stats *s, const gcev_event *ev, double ms,
                                            uint64_t thread_id);
/* As gcev_stats_add_decoded() for an event of process process_id: GCEV_OK, GCEV_E_INVALID_ARG
 * or GCEV_E_NOMEM. */
GCEV_API gcev_status gcev_stats_add_decoded_process(gcev_stats *s, const gcev_event *ev, double ms,
                                                    uint64_t thread_id, uint32_t process_id);

/*
 * Reports that `count` events were lost just before time `ms` (e.g. the growth of
 * gcev_trace_dropped_events()): the GCs open at that point, and the GC that ended last and
 * still waits for its GCHeapStats, are flagged GCEV_STATS_GC_INCOMPLETE, and
 * summary.dropped_events grows by count. Outputs should then say that pairing and
 * statistics may be incomplete. Does nothing when s is NULL or count is 0.
 */
GCEV_API void gcev_stats_note_dropped(gcev_stats *s, uint64_t count, double ms);

/*
 * Reports that a range of `bytes` bytes of the trace was skipped (a damaged block read past
 * with gcev_trace_options.keep_going, gcev_trace_skip_at()) just before time `ms`, the time
 * of the first event after it: the events in it are lost, so the GCs open at that point,
 * and the GC that ended last and would still take a GCHeapStats, are flagged
 * GCEV_STATS_GC_INCOMPLETE, as by gcev_stats_note_dropped(); summary.skipped_ranges grows by
 * one and summary.skipped_bytes by bytes. Does nothing when s is NULL.
 */
GCEV_API void gcev_stats_note_skipped(gcev_stats *s, uint64_t bytes, double ms);

/*
 * Ends the feed: closes what is still open (a suspension without RestartEEEnd keeps its
 * pause unknown), computes the values of each GC's end, the summaries, the pause
 * distributions and the never-freed lists. Returns GCEV_OK, GCEV_E_INVALID_ARG (s NULL) or
 * GCEV_E_NOMEM (the model is finished all the same, its summaries and lists partial).
 * Idempotent: a later call changes nothing and returns what the first one did. Feeding a
 * finished model returns GCEV_E_INVALID_ARG.
 */
GCEV_API gcev_status gcev_stats_finish(gcev_stats *s);

/*
 * Called by gcev_stats_read_trace() every 65536 events: events read so far, the reader's
 * file offset and the file's size (0 for streams). It must not use the model or the trace.
 */
typedef void (*gcev_stats_progress_fn)(void *ctx, uint64_t events, uint64_t file_offset, uint64_t file_size);

/*
 * Reads every remaining event of `t` into the model, reporting dropped events
 * (gcev_trace_dropped_events()) and, for a trace opened with keep_going, skipped ranges
 * (gcev_trace_skip_at(), through gcev_stats_note_skipped()) when the stream reaches the
 * first event after each, then calls gcev_stats_finish().
 * Open the trace with GCEV_TRACE_ORDER_TIME: the model needs timestamp order. progress and
 * err may be NULL; ctx is passed to progress. t stays open (the caller closes it).
 * Returns GCEV_OK at the clean end of the trace; the reader's error status (err filled as
 * gcev_trace_next() fills it), with the model holding, finished, every event before the
 * fault; GCEV_E_NOMEM (err filled: offset = gcev_trace_bytes_read(); the model finished
 * with what it holds, as gcev_stats_finish() leaves it); or GCEV_E_INVALID_ARG (s or t NULL,
 * or the model finished; err untouched).
 * Malformed GC payloads are skipped and counted (summary.decode_errors), as by
 * gcev_stats_add().
 * A filter on t (gcev_trace_set_filter) with GCEV_TRACE_FILTER_GC gives the same analysis
 * faster: the events it skips count in summary.events and its time span
 * (gcev_trace_filtered_events(), gcev_trace_filtered_span()) as the non-GC events they are.
 */
GCEV_API gcev_status gcev_stats_read_trace(gcev_stats *s, gcev_trace *t, gcev_stats_progress_fn progress,
                                           void *ctx, gcev_error *err);

/* ------------------------------------------------------------------------ */
/* GC-end callback: each GC as the model closes it (live consumers)          */
/* ------------------------------------------------------------------------ */

/*
 * Called once per GC (of every process) when the model has closed it: the GC is complete
 * (GCEV_STATS_GC_COMPLETE: its GCHeapStats and, unless background, the RestartEEEnd of its
 * suspension have been fed), no suspension that could still add to its pause is open, and,
 * for a background GC, a later GC of its process has started since it completed (the
 * runtime may log a background GC's per-heap histories after its GCHeapStats); and the GC
 * before it in its process is closed (its end values read that one: the GCs that run inside
 * a background GC are reported right after it, and every process's GCs in start order). The
 * flags GCEV_STATS_GC_HAS_ALLOCATED and _HAS_PINNED_EVENTS ("none seen" means none) are set
 * once the trace has shown such events, as gcev_stats_finish() sets them. Then every
 * value of the record is final: the values TraceEvent computes at a GC's end (sizes before
 * and peak, allocation, the pause share, mark times, pin sizes, condemned reasons) are
 * computed for it before the call, as gcev_stats_finish() computes them, so a consumer fed
 * live sees the numbers `gcev stats` gives for the same events. GCs that never close this way
 * (the trace ends, or their end was lost) are reported by gcev_stats_finish(), after the
 * summaries, in start order; their flags say what they lack. A GC still open 16 GCs of its
 * process later lost its end (dropped events, a skipped range) and is reported then, as it
 * is (not GCEV_STATS_GC_COMPLETE), so that the GCs after it are reported live too.
 * Calls come from inside gcev_stats_add*() (and gcev_stats_read_trace()) and
 * gcev_stats_finish(). g (and s's accessors for it:
 * gcev_stats_gc_heap_at() ...) are valid during the call; the function must not feed or
 * finish s. PerfView's TraceLoadedDotNetRuntime.GCEnd is the model.
 */
typedef void (*gcev_stats_gc_fn)(void *ctx, const gcev_stats *s, const gcev_stats_gc *g);

/*
 * Sets (fn non-NULL) or clears (fn NULL) the GC-end callback; ctx is passed to it. Set it
 * before the first event: GCs closed before are not reported again. Returns GCEV_OK, or
 * GCEV_E_INVALID_ARG when s is NULL or finished.
 */
GCEV_API gcev_status gcev_stats_set_gc_callback(gcev_stats *s, gcev_stats_gc_fn fn, void *ctx);

/* ------------------------------------------------------------------------ */
/* Results (NULL s gives 0 / NULL; see "What is known when" above)           */
/* ------------------------------------------------------------------------ */

/* GCs of every process, in start order. */
GCEV_API size_t gcev_stats_gc_count(const gcev_stats *s);
/* The i-th GC, or NULL when i >= gcev_stats_gc_count(). */
GCEV_API const gcev_stats_gc *gcev_stats_gc_at(const gcev_stats *s, size_t i);
/* The last GC (any process) with this number (GCStart Count), or NULL. Per process:
 * gcev_stats_process_gc_at(). */
GCEV_API const gcev_stats_gc *gcev_stats_gc_find(const gcev_stats *s, uint32_t number);

/* Whole-trace summary (all processes); NULL only for NULL s. */
GCEV_API const gcev_stats_summary *gcev_stats_get_summary(const gcev_stats *s);
/* Summary of the GCs of generation gen (0, 1 or 2), all processes; NULL for other gen. */
GCEV_API const gcev_stats_gen_summary *gcev_stats_generation(const gcev_stats *s, unsigned gen);

/* AppDomains with survived bytes after the last full blocking GC, by first appearance;
 * NULL when i >= the count. */
GCEV_API size_t gcev_stats_appdomain_count(const gcev_stats *s);
GCEV_API const gcev_stats_appdomain *gcev_stats_appdomain_at(const gcev_stats *s, size_t i);

/* Pairing counts of segments and of GC handles; NULL for NULL s. */
GCEV_API const gcev_stats_pairing *gcev_stats_segment_pairing(const gcev_stats *s);
GCEV_API const gcev_stats_pairing *gcev_stats_handle_pairing(const gcev_stats *s);
/* Never-freed segments and handles, in creation-time order (pairing->live of them); NULL
 * when i >= that count or before gcev_stats_finish(). */
GCEV_API const gcev_stats_segment *gcev_stats_live_segment_at(const gcev_stats *s, size_t i);
GCEV_API const gcev_stats_handle *gcev_stats_live_handle_at(const gcev_stats *s, size_t i);

/*
 * Generation gen (0, 1, 2, 3 LOH, 4 POH: gcev_stats_gen_name()) of g around the GC; NULL when
 * gen >= GCEV_STATS_GENS or g is not one of s's records (NULL included). Every generation has
 * a record; its `present` mask says which values the trace gave (0: none).
 */
GCEV_API const gcev_stats_gen_heap *gcev_stats_gc_gen_at(const gcev_stats *s, const gcev_stats_gc *g,
                                                         unsigned gen);

/*
 * Per-heap records of g (g->heaps of them, by heap number), or NULL when i >= g->heaps or g
 * is not one of s's records (NULL included). One record a heap, except in the TraceEvent
 * compatibility mode, where a second GCPerHeapHistory of a heap given to the GC (doc/stats.md,
 * a BGC's histories inside a foreground GC's restart) has a record of its own after the first.
 */
GCEV_API const gcev_stats_heap *gcev_stats_gc_heap_at(const gcev_stats *s, const gcev_stats_gc *g, size_t i);
/* LOH allocation waits during background GC g (g->loh_waits), in order of first event; NULL
 * past the end or for a g not of s. */
GCEV_API const gcev_stats_loh_wait *gcev_stats_gc_loh_wait_at(const gcev_stats *s, const gcev_stats_gc *g,
                                                              size_t i);
/* GCFitBucketInfo elements of g (g->fit_buckets), in event order; NULL past the end or for a
 * g not of s. */
GCEV_API const gcev_stats_fit_bucket *gcev_stats_gc_fit_bucket_at(const gcev_stats *s, const gcev_stats_gc *g,
                                                                  size_t i);

/* Processes that logged GC events, by first appearance (at most max_processes). */
GCEV_API size_t gcev_stats_process_count(const gcev_stats *s);
/* The i-th process, or NULL when i >= gcev_stats_process_count(). */
GCEV_API const gcev_stats_process *gcev_stats_process_at(const gcev_stats *s, size_t i);
/* The process with this id (0: events without a process id), or NULL. */
GCEV_API const gcev_stats_process *gcev_stats_process_find(const gcev_stats *s, uint32_t process_id);
/* TraceEvent's GC.Stats() of process p: its complete GCs; NULL for a p not of s (NULL
 * included). Final after gcev_stats_finish(). */
GCEV_API const gcev_stats_gcstats *gcev_stats_process_stats(const gcev_stats *s, const gcev_stats_process *p);
/* TraceEvent's GC.Generations()[gen] of process p: its complete GCs of condemned generation
 * gen (0, 1 or 2); NULL for another gen or a p not of s. Final after gcev_stats_finish(). */
GCEV_API const gcev_stats_gcstats *gcev_stats_process_gen_stats(const gcev_stats *s,
                                                                const gcev_stats_process *p, unsigned gen);
/* The j-th GC (start order) of process p (p->gc_count of them); NULL past the end or for a p
 * not of s (NULL included). */
GCEV_API const gcev_stats_gc *gcev_stats_process_gc_at(const gcev_stats *s, const gcev_stats_process *p,
                                                       size_t j);
/* The process's complete GCs with the longest pauses, longest first, equal pauses in start
 * order (p->longest of them, at most 10); NULL past the end, for a p not of s, or before
 * gcev_stats_finish(). */
GCEV_API const gcev_stats_gc *gcev_stats_process_longest_at(const gcev_stats *s, const gcev_stats_process *p,
                                                            size_t k);

/*
 * PerfView's generation label of g ("2NI": generation, N/B/F for the type, I induced or i
 * induced-not-forced; TraceEvent's GCGenerationName) into buf, with snprintf semantics: at
 * most n bytes including the NUL (buf may be NULL when n is 0); returns the label's length.
 * A NULL g writes "" (when n > 0) and returns 0.
 */
GCEV_API size_t gcev_stats_gc_label(const gcev_stats_gc *g, char *buf, size_t n);

/* How many events of a compiled family (gcev_family value) were fed; 0 for others. */
GCEV_API uint64_t gcev_stats_family_count(const gcev_stats *s, uint16_t family);

/*
 * The options the model was made with, each zero member replaced by its default (so an
 * output can say, e.g., that traceevent_compat is on); NULL for NULL s. Valid until
 * gcev_stats_free().
 */
GCEV_API const gcev_stats_options *gcev_stats_get_options(const gcev_stats *s);

/* ------------------------------------------------------------------------ */
/* Metric tables: the records above, described (one table per record kind)   */
/* ------------------------------------------------------------------------ */

/*
 * Every value of the records above is described by one entry of a static table: its JSON
 * key (that of `gcev stats --format json`), TraceEvent's name for it, its unit, where it lives
 * in the record, when it is present and a one-line definition. Writers (JSON, CSV, the
 * report), bindings and exporters walk the table and read values with gcev_stats_value()
 * instead of naming struct members. The tables are static data: valid for the life of the
 * program, safe from any thread; the functions below never allocate.
 *
 * Entries come in the key order of the JSON object the record is written as. An entry with
 * `group` set lives in a nested JSON object: `group` is the dotted path of that object
 * ("loh_compact", "marks.Stack"), opened by an earlier GCEV_STATS_T_OBJECT entry whose
 * path (group + "." + key) it is; CSV names its column by the path with '_' for '.'
 * ("loh_compact_heaps"). Compound parts that are lists of other records (a GC's generations
 * and heaps, LOH waits, a process's longest pauses, ...) are GCEV_STATS_T_ARRAY or _RECORD
 * entries; their elements are read with the accessors above.
 */
typedef enum gcev_stats_kind {
    GCEV_STATS_KIND_GC = 0,      /* gcev_stats_gc (JSON gcs[]) */
    GCEV_STATS_KIND_GEN_HEAP,    /* gcev_stats_gen_heap, one generation of one GC (gcs[].heap[]) */
    GCEV_STATS_KIND_HEAP,        /* gcev_stats_heap, one heap of one GC (gcs[].heaps[]) */
    GCEV_STATS_KIND_GEN_SUMMARY, /* gcev_stats_gen_summary (generations[]) */
    GCEV_STATS_KIND_GCSTATS,     /* gcev_stats_gcstats (processes[].gcstats, processes[].generations[]) */
    GCEV_STATS_KIND_PROCESS,     /* gcev_stats_process (processes[]) */
    GCEV_STATS_KIND_SUMMARY,     /* gcev_stats_summary (summary) */
    GCEV_STATS_KINDS
} gcev_stats_kind;

/* How a value is stored and read (gcev_stats_val.type). */
typedef enum gcev_stats_type {
    GCEV_STATS_T_U64 = 0, /* unsigned integer member (any width): val.u */
    GCEV_STATS_T_I64,     /* signed integer member: val.i */
    GCEV_STATS_T_F64,     /* double member: val.f (+Infinity only where inf_bits says) */
    GCEV_STATS_T_BOOL,    /* (member & mask) != 0: val.u 0 or 1 */
    GCEV_STATS_T_ENUM,    /* unsigned code: val.u, its name val.name (name(code), may be NULL) */
    GCEV_STATS_T_BITS,    /* a set: val.u, bit b named name(b); JSON an array of names */
    GCEV_STATS_T_TEXT,    /* a label computed from the record: val.text */
    GCEV_STATS_T_COUNTS,  /* uint8_t[size] of counts named name(i); JSON {name: count} of the non-zero */
    GCEV_STATS_T_OBJECT,  /* opens the JSON object group.key; no value */
    GCEV_STATS_T_RECORD,  /* one record of kind elem_kind: embedded at offset when size > 0,
                           * else read with the record's accessor (gcev_stats_process_stats) */
    GCEV_STATS_T_RECORDS, /* records of kind elem_kind, or (elem_kind -1) a struct without a
                           * table: embedded at offset (an array filling size) when size > 0,
                           * else read with the record's accessor (gcev_stats_gc_gen_at,
                           * gcev_stats_process_gen_stats) */
    GCEV_STATS_T_ARRAY    /* a list read with an accessor (its count at offset when size > 0:
                           * val.u); elements of kind elem_kind, or (-1) the entry's definition
                           * names their keys */
} gcev_stats_type;

/* What a value measures. */
typedef enum gcev_stats_unit {
    GCEV_STATS_U_NONE = 0, /* objects, arrays, records */
    GCEV_STATS_U_MS,       /* milliseconds (times from the trace start, or durations) */
    GCEV_STATS_U_US,       /* microseconds (the runtime's own timings) */
    GCEV_STATS_U_BYTES,
    GCEV_STATS_U_COUNT,
    GCEV_STATS_U_RATIO,      /* a plain ratio */
    GCEV_STATS_U_PERCENT,    /* 0..100 (may exceed 100 where TraceEvent's does) */
    GCEV_STATS_U_MB_PER_SEC, /* 10^6 bytes per second */
    GCEV_STATS_U_PER_SEC,    /* events per second */
    GCEV_STATS_U_MB_PER_MS,  /* 10^6 bytes per millisecond */
    GCEV_STATS_U_ID,         /* a number that names something (GC number, thread, process, heap) */
    GCEV_STATS_U_ENUM,       /* a code with a name (the entry's name function) */
    GCEV_STATS_U_FLAGS,      /* a bit set */
    GCEV_STATS_U_BOOL,       /* true / false */
    GCEV_STATS_U_GENERATION, /* a generation number: 0, 1, 2 (3 LOH, 4 POH) */
    GCEV_STATS_U_TEXT
} gcev_stats_unit;

/* gcev_stats_metric.flags */
#define GCEV_STATS_M_DERIVED (1u << 0)      /* reads a member another entry owns (a name, a bit) */
#define GCEV_STATS_M_NAME (1u << 1)         /* ENUM written as its name only (omitted without one) */
#define GCEV_STATS_M_HIDDEN (1u << 2)       /* bookkeeping (a present mask): not an output value */
#define GCEV_STATS_M_NOT_JSON (1u << 3)     /* not in stats JSON (its layout is frozen); in CSV */
#define GCEV_STATS_M_PROCESS_ONLY (1u << 4) /* GCSTATS: set only in a process's `all` stats */

typedef struct gcev_stats_metric {
    const char *key;        /* JSON key, snake_case; unique in its group of its kind */
    const char *group;      /* dotted path of the JSON object it is in, or NULL (top level) */
    const char *traceevent; /* TraceEvent's member or method (TraceGC, GCStats), or NULL: gcev's own */
    const char *definition; /* one line, never empty */
    uint8_t kind;           /* gcev_stats_kind */
    uint8_t type;           /* gcev_stats_type */
    uint8_t unit;           /* gcev_stats_unit */
    int8_t decimals;        /* F64 as gcev prints it: digits after the point; -1: 10 significant */
    uint32_t flags;         /* GCEV_STATS_M_* */
    /* the member: offsetof / sizeof in the record (size 0: none, e.g. an OBJECT) */
    uint32_t offset, size;
    uint64_t mask; /* BOOL: the member's bits that make it true */
    /* Present when every bit of pres_bits is set in the pres_size-byte member at pres_offset
     * (pres_size 0: no such test; the record's `present` mask, its `flags`, ...), and, when
     * cond_size > 0, the cond_size-byte member at cond_offset is not 0 (a double when
     * cond_float). Neither test: always present. */
    uint32_t pres_offset, pres_size;
    uint64_t pres_bits;
    uint32_t cond_offset, cond_size;
    uint8_t cond_float;
    int8_t elem_kind;                /* RECORD / ARRAY: kind of the elements, or -1 */
    uint64_t inf_bits;               /* F64: any of these set in the presence member: present, +Infinity */
    const char *(*name)(uint32_t v); /* ENUM: name of a code; BITS: of a bit; COUNTS: of an index */
} gcev_stats_metric;

/* "gc", "gen_heap", "heap", "gen_summary", "gcstats", "process", "summary"; NULL for others. */
GCEV_API const char *gcev_stats_kind_name(unsigned kind);
/* "", "ms", "us", "bytes", "count", "ratio", "percent", "mb_per_sec", "per_sec", "mb_per_ms",
 * "id", "enum", "flags", "bool", "generation", "text"; NULL for others. */
GCEV_API const char *gcev_stats_unit_name(unsigned unit);

/* Entries of kind's table (0 for an unknown kind), and the i-th (NULL past the end). */
GCEV_API size_t gcev_stats_metric_count(unsigned kind);
GCEV_API const gcev_stats_metric *gcev_stats_metric_at(unsigned kind, size_t i);
/*
 * The entry of kind with this path: key, or group + "." + key ("loh_compact.heaps",
 * "marks.Stack.ms"); NULL when none (or path NULL).
 */
GCEV_API const gcev_stats_metric *gcev_stats_metric_find(unsigned kind, const char *path);

/* A value read by gcev_stats_value(). */
typedef struct gcev_stats_val {
    uint8_t type;     /* gcev_stats_type of the metric */
    uint64_t u;       /* U64, BOOL, ENUM, BITS, ARRAY (its count) */
    int64_t i;        /* I64 */
    double f;         /* F64 (also set, converted, for U64 and I64) */
    const char *name; /* ENUM: name(u), NULL when the code has none */
    char text[24];    /* TEXT */
} gcev_stats_val;

/*
 * Reads metric m of record rec, which must be a record of m->kind (a gcev_stats_gc for
 * GCEV_STATS_KIND_GC, ...). Returns 1 when the value is present (and fills *out), 0 when it
 * is absent (the trace lacks its inputs; *out zeroed), also for NULL arguments. OBJECT,
 * RECORD and COUNTS entries report presence only; ARRAY entries with a count member give it.
 */
GCEV_API int gcev_stats_value(const void *rec, const gcev_stats_metric *m, gcev_stats_val *out);

#ifdef __cplusplus
}
#endif

#endif /* GCEV_STATS_H */
