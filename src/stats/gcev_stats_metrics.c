/* SPDX-License-Identifier: MIT */
/*
 * The metric tables of the analysis records (gcev_stats.h, "Metric tables"): data only. One
 * entry per value, in the key order of the record's JSON object; the accessors are in
 * gcev_stats_metric.c. tests/stats/test_stats_metrics.c holds every table to its struct: each byte
 * of a record belongs to one entry or is padding, and every present bit is some entry's.
 */
#include <stddef.h>

#include "gcev_stats_internal.h"

/* ---- shorthands ---- */
#define SZ(R, m) sizeof(((R *)0)->m)
#define AT(R, m) .offset = offsetof(R, m), .size = SZ(R, m)
#define PRES(R, m, bits) .pres_offset = offsetof(R, m), .pres_size = SZ(R, m), .pres_bits = (bits)
#define COND(R, m) .cond_offset = offsetof(R, m), .cond_size = SZ(R, m)
#define CONDF(R, m) COND(R, m), .cond_float = 1
#define T(t) .type = GCEV_STATS_T_##t
#define U(u) .unit = GCEV_STATS_U_##u
#define TE(n) .traceevent = n
#define D3 .decimals = 3
#define DG .decimals = -1
#define F(fl) .flags = GCEV_STATS_M_##fl
#define GRP(g) .group = g

/* name functions of the tables (the public ones take `unsigned`) */
static const char *reason_name(uint32_t v)
{
    return gcev_gc_reason_name(v);
}
static const char *type_name(uint32_t v)
{
    return gcev_stats_gc_type_name(v);
}
static const char *mechanism_name(uint32_t bit)
{
    return gcev_stats_global_mechanism_name(bit);
}
static const char *group_name(uint32_t g)
{
    return gcev_stats_condemned_group_name(g);
}
static const char *compact_name(uint32_t v)
{
    return gcev_stats_compact_reason_name(v);
}
static const char *expand_name(uint32_t v)
{
    return gcev_stats_expand_mechanism_name(v);
}
static const char *gc_mode_name(uint32_t heap_count)
{
    return (int32_t)heap_count > 1 ? "server" : "workstation";
}

/* ---- gcev_stats_gc ---- */
#define GC gcev_stats_gc
#define G(t, u, k, m, def) .kind = GCEV_STATS_KIND_GC, T(t), U(u), .key = k, AT(GC, m), .definition = def
#define GHAS(b) PRES(GC, present, GCEV_STATS_GC_HAS_##b)
#define GFLAG(b) PRES(GC, flags, GCEV_STATS_GC_##b)
#define GOBJ(k, grp, has, def)                                                                               \
    .kind = GCEV_STATS_KIND_GC, T(OBJECT), U(NONE), .key = k, GRP(grp), has, .definition = def
#define GC_MARK(k, name)                                                                                     \
    {GOBJ(name, "marks", PRES(GC, marks[k].present, 1), "roots of this kind"), AT(GC, marks[k].present)},    \
        {G(F64, MS, "ms", marks[k].ms, "marking time of the slowest heap (since its previous mark event)"),  \
         GRP("marks." name), PRES(GC, marks[k].present, 1), D3, TE("HeapStats.MarkTimes")},                  \
    {                                                                                                        \
        G(U64, BYTES, "bytes", marks[k].bytes, "bytes promoted from these roots, summed over heaps"),        \
            GRP("marks." name), PRES(GC, marks[k].present, 1), TE("HeapStats.MarkPromoted")                  \
    }
#define GC_PHASE(i, name)                                                                                    \
    {                                                                                                        \
        G(U64, US, name, phase_us[i], "GCGlobalHeapHistory_V4 TimingInfo of this phase"), GRP("phases_us"),  \
            PRES(GC, phase_present, 1u << (i)), TE("GlobalHeapHistory.TimingInfo")                           \
    }
#define GC_BGC_EVENT(i, name, ev)                                                                            \
    {                                                                                                        \
        G(F64, MS, name, bgc_phase_ms[i], "first " ev " of the background GC"), GRP("bgc_events_ms"),        \
            PRES(GC, bgc_phase_present, 1u << (i)), D3                                                       \
    }
#define GC_REVISIT(st, stname, h, hname)                                                                     \
    {GOBJ(hname, "bgc_revisit." stname, GHAS(BGC_REVISIT), "revisits of the " hname)},                       \
        {G(U64, COUNT, "pages", bgc_revisit_pages[st][h], "pages revisited"),                                \
         GRP("bgc_revisit." stname "." hname), GHAS(BGC_REVISIT), TE("BGCRevisitInfoArr.PagesRevisited")},   \
    {                                                                                                        \
        G(U64, COUNT, "objects", bgc_revisit_objects[st][h], "objects revisited"),                           \
            GRP("bgc_revisit." stname "." hname), GHAS(BGC_REVISIT),                                         \
            TE("BGCRevisitInfoArr.ObjectsRevisited")                                                         \
    }
#define GC_COMMITTED(m, k, has, te)                                                                          \
    {GOBJ(k, NULL, GHAS(has), "GCDynamicEvent CommittedUsage (.NET 8+)"), TE(te)},                           \
        {G(U64, ID, "version", m.version, "CommittedUsage version"), GRP(k), GHAS(has)},                     \
        {G(U64, BYTES, "in_use", m.in_use, "committed memory in use"), GRP(k), GHAS(has)},                   \
        {G(U64, BYTES, "in_global_decommit", m.in_global_decommit,                                           \
           "committed, on the global decommit list"),                                                        \
         GRP(k), GHAS(has)},                                                                                 \
        {G(U64, BYTES, "in_free", m.in_free, "committed, in free regions"), GRP(k), GHAS(has)},              \
        {G(U64, BYTES, "in_global_free", m.in_global_free, "committed, in global free regions"), GRP(k),     \
         GHAS(has)},                                                                                         \
    {                                                                                                        \
        G(U64, BYTES, "bookkeeping", m.bookkeeping, "committed for the GC's bookkeeping"), GRP(k), GHAS(has) \
    }

static const gcev_stats_metric gc_metrics[] = {
    {G(U64, FLAGS, "present", present, "GCEV_STATS_GC_HAS_* bits: which values are known"), F(HIDDEN)},
    {G(U64, FLAGS, "flags", flags, "GCEV_STATS_GC_INCOMPLETE, ... bits"), F(HIDDEN)},
    {G(U64, ID, "number", number, "GCStart Count: the runtime's GC index"), TE("Number")},
    {G(U64, GENERATION, "generation", generation, "condemned generation (GCStart Depth)"), GHAS(GENERATION),
     TE("Generation")},
    {G(ENUM, ENUM, "reason", reason, "GCStart Reason (GCReasonMap)"), GHAS(REASON), .name = reason_name,
     TE("Reason")},
    {G(ENUM, ENUM, "reason_name", reason, "name of the reason (reasons 10-17: doc/quirks.md Q3)"),
     GHAS(REASON), .name = reason_name, .flags = GCEV_STATS_M_NAME | GCEV_STATS_M_DERIVED},
    {G(ENUM, ENUM, "type", type, "blocking, background or foreground (GCStart Type)"), GHAS(TYPE),
     .name = type_name, F(NAME), TE("Type")},
    {G(U64, ID, "nested_in", nested_in, "number of the background GC this GC ran inside"), GHAS(NESTED_IN)},
    {G(U64, ID, "thread_id", thread_id, "thread that logged GCStart")},
    {G(F64, MS, "start_ms", start_ms, "GCStart"), D3, TE("StartRelativeMSec")},
    {G(F64, MS, "end_ms", end_ms, "GCEnd"), D3, GHAS(END)},
    {G(F64, MS, "duration_ms", duration_ms, "GCStart -> GCEnd"), D3, GHAS(END), TE("DurationMSec")},
    {G(F64, MS, "suspend_begin_ms", suspend_begin_ms, "SuspendEEBegin of the suspension the GC started in"),
     D3, GHAS(SUSPENSION)},
    {G(F64, MS, "suspension_ms", suspension_ms,
       "SuspendEEBegin -> SuspendEEEnd (summed for a background GC)"),
     D3, GHAS(SUSPENSION), TE("SuspendDurationMSec")},
    {G(F64, MS, "pause_ms", pause_ms, "SuspendEEBegin -> RestartEEEnd (background: its own suspensions)"), D3,
     GHAS(PAUSE), TE("PauseDurationMSec")},
    {G(U64, COUNT, "suspensions", suspensions, "suspensions summed into pause_ms"), GHAS(PAUSE)},
    {G(U64, BYTES, "promoted_bytes", promoted_bytes, "GCHeapStats TotalPromotedSize0..4"), GHAS(PROMOTED),
     TE("PromotedMB")},
    {G(U64, BYTES, "allocated_bytes", allocated_bytes, "AllocationTick amounts since the previous GCStart"),
     GHAS(ALLOCATED)},
    {G(U64, COUNT, "pinned_objects", pinned_objects, "GCHeapStats PinnedObjectCount"), GHAS(PINNED_OBJECTS),
     TE("HeapStats.PinnedObjectCount")},
    {G(U64, COUNT, "pin_events", pinned_events, "PinObjectAtGCTime events during the GC"),
     GHAS(PINNED_EVENTS)},
    {G(U64, BYTES, "pinned_bytes", pinned_bytes, "ObjectSize sum of those PinObjectAtGCTime events"),
     GHAS(PINNED_EVENTS)},
    {G(U64, COUNT, "finalization_promoted_count", finalization_promoted_count,
       "GCHeapStats FinalizationPromotedCount"),
     GHAS(FINALIZATION), TE("HeapStats.FinalizationPromotedCount")},
    {G(U64, FLAGS, "condemn_reasons0", condemn_reasons0, "CondemnReasons0 (GlobalHeapHistory, else or'ed)"),
     GHAS(CONDEMN_REASONS)},
    {G(U64, FLAGS, "condemn_reasons1", condemn_reasons1, "CondemnReasons1 (GlobalHeapHistory, else or'ed)"),
     GHAS(CONDEMN_REASONS)},
    {G(U64, FLAGS, "global_mechanisms", global_mechanisms, "GlobalHeapHistory GlobalMechanisms"),
     GHAS(MECHANISMS), TE("GlobalHeapHistory.GlobalMechanisms")},
    {G(I64, COUNT, "heap_count", heap_count, "GlobalHeapHistory NumHeaps (> 1: server GC)"), GHAS(HEAP_COUNT),
     TE("HeapCount")},
    {G(U64, COUNT, "heap_histories", heap_histories, "GCPerHeapHistory events summed into the generations"),
     GHAS(HEAP_HISTORY), F(NOT_JSON)},
    {G(BOOL, BOOL, "incomplete", flags,
       "true: events were dropped, or a range skipped, while the GC was open"),
     .mask = GCEV_STATS_GC_INCOMPLETE, GFLAG(INCOMPLETE), F(DERIVED)},
    {G(BOOL, BOOL, "shared_suspension", flags, "true: started inside another GC's suspension"),
     .mask = GCEV_STATS_GC_SHARED_SUSPENSION, GFLAG(SHARED_SUSPENSION), F(DERIVED)},
    {.kind = GCEV_STATS_KIND_GC,
     T(RECORDS),
     U(NONE),
     .key = "heap",
     .definition = "per generation (gen0, gen1, gen2, loh, poh) with any value",
     .elem_kind = GCEV_STATS_KIND_GEN_HEAP}, /* gcev_stats_gc_gen_at() */
    {GOBJ("marks", NULL, GHAS(MARKS), "per root kind (GCMarkWithType)")},
    GC_MARK(0, "Stack"),
    GC_MARK(1, "Finalizer"),
    GC_MARK(2, "Handle"),
    GC_MARK(3, "Older"),
    GC_MARK(4, "SizedRef"),
    GC_MARK(5, "Overflow"),
    GC_MARK(6, "DependentHandle"),
    GC_MARK(7, "NewFQ"),
    GC_MARK(8, "Steal"),
    GC_MARK(9, "BGC"),
    {GOBJ("loh_compact", NULL, GHAS(LOH_COMPACT), "GCLOHCompact, summed over heaps")},
    {G(U64, COUNT, "heaps", loh_compact_heaps, "GCLOHCompact elements (one per heap)"), GRP("loh_compact"),
     GHAS(LOH_COMPACT)},
    {G(U64, US, "time_plan_us", loh_compact_time_plan, "TimePlan"), GRP("loh_compact"), GHAS(LOH_COMPACT)},
    {G(U64, US, "time_compact_us", loh_compact_time_compact, "TimeCompact"), GRP("loh_compact"),
     GHAS(LOH_COMPACT)},
    {G(U64, US, "time_relocate_us", loh_compact_time_relocate, "TimeRelocate"), GRP("loh_compact"),
     GHAS(LOH_COMPACT)},
    {G(U64, COUNT, "total_refs", loh_compact_total_refs, "TotalRefs"), GRP("loh_compact"), GHAS(LOH_COMPACT)},
    {G(U64, COUNT, "zero_refs", loh_compact_zero_refs, "ZeroRefs"), GRP("loh_compact"), GHAS(LOH_COMPACT)},
    {G(U64, ID, "process_id", process_id, "process of the GC's events (0 when the trace does not say)")},
    {G(BOOL, BOOL, "complete", flags, "GCHeapStats seen and, unless background, the RestartEEEnd after it"),
     .mask = GCEV_STATS_GC_COMPLETE, F(DERIVED), TE("IsComplete")},
    {.kind = GCEV_STATS_KIND_GC,
     T(TEXT),
     U(TEXT),
     .key = "label",
     .definition = "PerfView's generation label: generation, N/B/F type, I induced (2NI)",
     F(DERIVED),
     TE("GCGenerationName")},
    {G(F64, MS, "pause_start_ms", pause_start_ms,
       "SuspendEEBegin, or GCStart for a BGC's ephemeral GC and a PMFullGC"),
     D3, GHAS(PAUSE_START), TE("PauseStartRelativeMSec")},
    {G(F64, MS, "since_last_restart_ms", since_last_restart_ms,
       "pause start (a BGC: its GCHeapStats) - the previous GC's GCHeapStats"),
     D3, GHAS(SINCE_RESTART), TE("DurationSinceLastRestartMSec")},
    {G(F64, PERCENT, "pause_time_percent", pause_time_percent, "pause share of the time since the last GC"),
     DG, GHAS(PAUSE_PERCENT), TE("PauseTimePercentageSinceLastGC")},
    {G(U64, BYTES, "heap_size_before", heap_size_before, "sum of the generations' size_before"),
     GHAS(SIZE_BEFORE), TE("HeapSizeBeforeMB")},
    {G(U64, BYTES, "heap_size_after", heap_size_after, "GCHeapStats GenerationSize0..4"), GHAS(SIZE_AFTER),
     TE("HeapSizeAfterMB")},
    {G(U64, BYTES, "heap_size_peak", heap_size_peak,
       "size before, or for a BGC the largest before of its GCs"),
     GHAS(SIZE_PEAK), TE("HeapSizePeakMB")},
    {G(F64, RATIO, "ratio_peak_after", ratio_peak_after, "heap_size_peak / heap_size_after"), DG,
     GHAS(RATIO_PEAK_AFTER), TE("RatioPeakAfter")},
    {G(I64, BYTES, "allocated_since_last_gc", allocated_since_last_gc, "gen0 + LOH + POH user_allocated"),
     GHAS(ALLOCATED_SINCE), TE("AllocedSinceLastGCMB")},
    {G(F64, MB_PER_SEC, "alloc_rate_mb_per_sec", alloc_rate_mb_per_sec,
       "allocated_since_last_gc / since_last_restart_ms"),
     DG, GHAS(ALLOC_RATE), TE("AllocRateMBSec")},
    {GOBJ("alloc_ticks", NULL, GHAS(ALLOC_TICKS), "AllocationTick bytes since the previous GC's GCHeapStats"),
     TE("AllocedSinceLastGCBasedOnAllocTickMB")},
    {G(U64, BYTES, "soh", alloc_tick_bytes[0], "small object heap"), GRP("alloc_ticks"), GHAS(ALLOC_TICKS)},
    {G(U64, BYTES, "loh", alloc_tick_bytes[1], "large object heap"), GRP("alloc_ticks"), GHAS(ALLOC_TICKS)},
    {G(U64, BYTES, "poh", alloc_tick_bytes[2], "pinned object heap"), GRP("alloc_ticks"), GHAS(ALLOC_TICKS)},
    {G(U64, BYTES, "final_youngest_desired", final_youngest_desired,
       "GCGlobalHeapHistory FinalYoungestDesired"),
     GHAS(GLOBAL_HISTORY), TE("GlobalHeapHistory.FinalYoungestDesired")},
    {G(U64, GENERATION, "condemned_generation", condemned_generation,
       "GCGlobalHeapHistory CondemnedGeneration"),
     GHAS(GLOBAL_HISTORY), TE("GlobalHeapHistory.CondemnedGeneration")},
    {G(U64, COUNT, "gen0_reduction_count", gen0_reduction_count, "GCGlobalHeapHistory Gen0ReductionCount"),
     GHAS(GLOBAL_HISTORY), TE("GlobalHeapHistory.Gen0ReductionCount")},
    {G(ENUM, ENUM, "global_reason", global_reason, "GCGlobalHeapHistory Reason (GCReasonMap)"),
     GHAS(GLOBAL_HISTORY), .name = reason_name, TE("GlobalHeapHistory.Reason")},
    {G(BOOL, BOOL, "compacting", global_mechanisms, "the Compaction bit of GlobalMechanisms"), .mask = 2,
     GHAS(MECHANISMS), F(DERIVED)},
    {G(BITS, FLAGS, "mechanisms", global_mechanisms, "names of the GlobalMechanisms bits"), GHAS(MECHANISMS),
     .name = mechanism_name, F(DERIVED)},
    {G(U64, ENUM, "pause_mode", pause_mode,
       "GCPauseMode: 0 Batch, 1 Interactive, 2 LowLatency, 3 SustainedLowLatency, 4 NoGC"),
     GHAS(PAUSE_MODE), TE("GlobalHeapHistory.PauseMode")},
    {G(U64, PERCENT, "memory_pressure", memory_pressure, "GCGlobalHeapHistory MemoryPressure"),
     GHAS(PAUSE_MODE), TE("GlobalHeapHistory.MemoryPressure")},
    {G(U64, FLAGS, "global_condemn_reasons0", global_condemn_reasons0,
       "GlobalCondemnedReasons CondemnReasons0"),
     GHAS(GLOBAL_CONDEMN)},
    {G(U64, FLAGS, "global_condemn_reasons1", global_condemn_reasons1,
       "GlobalCondemnedReasons CondemnReasons1"),
     GHAS(GLOBAL_CONDEMN)},
    {G(COUNTS, COUNT, "global_condemned", global_condemned_groups,
       "GlobalCondemnedReasons decoded: value of each condemned-reason group"),
     GHAS(GLOBAL_CONDEMN), .name = group_name, TE("GlobalCondemnedReasons")},
    {G(BITS, FLAGS, "condemned_reasons", condemned_reasons,
       "condemned-reason groups that apply (the heap that condemned the generation first)"),
     GHAS(CONDEMNED), .name = group_name, TE("GetCondemnedReasons()")},
    {G(U64, ID, "highest_condemned_heap", highest_condemned_heap, "index among the histories"),
     GHAS(CONDEMNED), TE("FindFirstHighestCondemnedHeap()")},
    {G(BOOL, BOOL, "low_ephemeral", low_ephemeral, "the Low_Ephemeral condition"), .mask = 1, GHAS(CONDEMNED),
     TE("IsLowEphemeral()")},
    {G(U64, FLAGS, "phase_present", phase_present, "bit i: phase_us[i] known"), F(HIDDEN)},
    {GOBJ("phases_us", NULL, GHAS(PHASES), "GCGlobalHeapHistory_V4 phase times"),
     TE("GlobalHeapHistory.TimingInfo")},
    GC_PHASE(0, "mark_root"),
    GC_PHASE(1, "mark_short_weak"),
    GC_PHASE(2, "mark_scan_finalization"),
    GC_PHASE(3, "mark_long_weak"),
    GC_PHASE(4, "plan"),
    GC_PHASE(5, "relocate"),
    GC_PHASE(6, "compact"),
    GC_PHASE(7, "sweep"),
    GC_PHASE(8, "mark_sized_ref"),
    {G(U64, COUNT, "generation_count", generation_count, "generations in the histories (4, or 5 with POH)"),
     GHAS(GENERATION_COUNT), TE("GenerationCount")},
    {G(U64, BYTES, "finalization_promoted_size", finalization_promoted_size,
       "GCHeapStats FinalizationPromotedSize"),
     GHAS(HEAP_STATS), TE("HeapStats.FinalizationPromotedSize")},
    {G(U64, COUNT, "sink_block_count", sink_block_count, "GCHeapStats SinkBlockCount"), GHAS(HEAP_STATS),
     TE("HeapStats.SinkBlockCount")},
    {G(U64, COUNT, "gc_handle_count", gc_handle_count, "GCHeapStats GCHandleCount"), GHAS(HEAP_STATS),
     TE("HeapStats.GCHandleCount")},
    {G(F64, MS, "bgc_final_pause_ms", bgc_final_pause_ms, "the last SuspendForGCPrep pause of a BGC"), D3,
     GHAS(BGC_FINAL_PAUSE), TE("BGCFinalPauseMSec")},
    {G(U64, ENUM, "bgc_phase", bgc_phase,
       "0 1st non-concurrent, 1 1st concurrent, 2 2nd non-concurrent, 3 2nd concurrent"),
     GHAS(BGC_PHASE), TE("BGCCurrentPhase")},
    {G(U64, FLAGS, "bgc_phase_present", bgc_phase_present, "bit i: bgc_phase_ms[i] known"), F(HIDDEN)},
    {GOBJ("bgc_events_ms", NULL, GHAS(BGC_PHASE), "times of the private BGC events")},
    GC_BGC_EVENT(0, "begin", "BGCBegin"),
    GC_BGC_EVENT(1, "1st_noncon_end", "BGC1stNonConEnd"),
    GC_BGC_EVENT(2, "1st_con_end", "BGC1stConEnd"),
    GC_BGC_EVENT(3, "2nd_noncon_begin", "BGC2ndNonConBegin"),
    GC_BGC_EVENT(4, "2nd_noncon_end", "BGC2ndNonConEnd"),
    GC_BGC_EVENT(5, "2nd_con_begin", "BGC2ndConBegin"),
    GC_BGC_EVENT(6, "2nd_con_end", "BGC2ndConEnd"),
    GC_BGC_EVENT(7, "plan_end", "BGCPlanEnd"),
    GC_BGC_EVENT(8, "sweep_end", "BGCSweepEnd"),
    GC_BGC_EVENT(9, "1st_sweep_end", "BGC1stSweepEnd"),
    {GOBJ("bgc_revisit", NULL, GHAS(BGC_REVISIT), "BGCRevisitInfoArr"), TE("BGCRevisitInfoArr")},
    {GOBJ("concurrent", "bgc_revisit", GHAS(BGC_REVISIT), "concurrent revisits")},
    GC_REVISIT(0, "concurrent", 0, "soh"),
    GC_REVISIT(0, "concurrent", 1, "loh"),
    {GOBJ("non_concurrent", "bgc_revisit", GHAS(BGC_REVISIT), "non-concurrent revisits")},
    GC_REVISIT(1, "non_concurrent", 0, "soh"),
    GC_REVISIT(1, "non_concurrent", 1, "loh"),
    GC_COMMITTED(committed_before, "committed_before", COMMITTED_BEFORE, "CommittedUsageBefore"),
    GC_COMMITTED(committed_after, "committed_after", COMMITTED_AFTER, "CommittedUsageAfter"),
    {G(U64, COUNT, "datas_heap_count", datas_heap_count,
       "DATAS: NewNHeaps of the GC's last SizeAdaptationTuning (HeapCountTuning on .NET 8)"),
     GHAS(DATAS)},
    {G(U64, COUNT, "dynamic_events", dynamic_events, "GCDynamicEvents of the GC other than CommittedUsage"),
     GHAS(DYNAMIC), TE("DynamicEvents")},
    {G(U64, BYTES, "pinned_object_sizes", pinned_object_sizes, "sizes of the distinct objects pinned"),
     GHAS(PINNED_SIZES), TE("GetPinnedObjectSizes()")},
    {G(U64, BYTES, "pinned_plug_size", pinned_plug_size, "PinPlugAtGCTime sizes"), GHAS(PINNED_PLUGS),
     TE("TotalPinnedPlugSize")},
    {G(U64, BYTES, "user_pinned_plug_size", user_pinned_plug_size,
       "sizes of the plugs holding a pinned object"),
     GHAS(PINNED_PLUGS), TE("TotalUserPinnedPlugSize")},
    {G(I64, PERCENT, "pinned_object_percent", pinned_object_percent,
       "pinned_object_sizes * 100 / pinned_plug_size, truncated"),
     GHAS(PINNED_PERCENT), TE("GetPinnedObjectPercentage()")},
    {GOBJ("free_list", NULL, GHAS(FREE_LIST), "free-list efficiency of a gen1 GC"), TE("FreeList")},
    {G(F64, BYTES, "allocated", free_list_allocated, "bytes allocated into gen2"), GRP("free_list"),
     GHAS(FREE_LIST), .decimals = 0},
    {G(F64, BYTES, "consumed", free_list_consumed, "free-list space used for them"), GRP("free_list"),
     GHAS(FREE_LIST), .decimals = 0},
    {G(BOOL, BOOL, "heaps_dropped", flags, "true: per-heap records past the model's limit were not kept"),
     .mask = GCEV_STATS_GC_HEAPS_DROPPED, GFLAG(HEAPS_DROPPED), F(DERIVED)},
    {G(BOOL, BOOL, "pins_dropped", flags, "true: more pins than the model tracks (pin sizes partial)"),
     .mask = GCEV_STATS_GC_PINS_DROPPED, GFLAG(PINS_DROPPED), F(DERIVED)},
    {G(ARRAY, COUNT, "loh_waits", loh_waits,
       "LOH allocation waits during the BGC (gcev_stats_gc_loh_wait_at)"),
     GHAS(LOH_WAITS), .elem_kind = -1, TE("LOHWaitThreads")},
    {G(ARRAY, COUNT, "fit_buckets", fit_buckets, "GCFitBucketInfo elements (gcev_stats_gc_fit_bucket_at)"),
     GHAS(FIT_BUCKETS), .elem_kind = -1},
    {G(U64, COUNT, "joins", joins, "GCJoin events of the GC"), GHAS(JOINS)},
    {G(U64, COUNT, "join_restarts", join_restarts, "of which restarts (no heap number)"), GHAS(JOINS)},
    {G(ARRAY, COUNT, "heaps", heaps, "per-heap records (gcev_stats_gc_heap_at)"),
     .elem_kind = GCEV_STATS_KIND_HEAP},
};

/* ---- gcev_stats_gen_heap ---- */
#define GH gcev_stats_gen_heap
#define H(t, u, k, m, def)                                                                                   \
    .kind = GCEV_STATS_KIND_GEN_HEAP, T(t), U(u), .key = k, AT(GH, m), .definition = def
#define HHAS(b) PRES(GH, present, GCEV_STATS_HEAP_HAS_##b)
#define HIST(k, m, def, te)                                                                                  \
    {                                                                                                        \
        H(U64, BYTES, k, m, def " (summed over heaps)"), HHAS(HISTORY), TE(te)                               \
    }

static const gcev_stats_metric gen_heap_metrics[] = {
    {H(U64, FLAGS, "present", present, "GCEV_STATS_HEAP_HAS_* bits: which values are known"), F(HIDDEN)},
    {H(U64, BYTES, "size_before", size_before, "SizeBefore of the histories, else TraceEvent's estimate"),
     HHAS(SIZE_BEFORE), TE("GenSizeBeforeMB")},
    {H(U64, BYTES, "size_after", size_after, "GCHeapStats GenerationSizeN (else the histories' SizeAfter)"),
     HHAS(SIZE_AFTER), TE("GenSizeAfterMB")},
    {H(U64, BYTES, "frag_before", frag_before, "FreeListBefore + FreeObjBefore"), HHAS(FRAG_BEFORE)},
    {H(U64, BYTES, "frag_after", frag_after, "FreeListAfter + FreeObjAfter"), HHAS(FRAG_AFTER),
     TE("GenFragmentationMB")},
    {H(U64, BYTES, "promoted", promoted, "GCHeapStats TotalPromotedSizeN"), HHAS(PROMOTED),
     TE("GenPromotedMB")},
    {H(BOOL, BOOL, "size_before_estimated", present, "true: size_before is TraceEvent's estimate"),
     .mask = GCEV_STATS_HEAP_SIZE_BEFORE_ESTIMATED, F(DERIVED),
     PRES(GH, present, GCEV_STATS_HEAP_SIZE_BEFORE_ESTIMATED)},
    HIST("obj_space_before", obj_space_before, "SizeBefore - FreeListBefore - FreeObjBefore", NULL),
    HIST("obj_size_after", obj_size_after, "SizeAfter - FreeListAfter - FreeObjAfter", "GenObjSizeAfterMB"),
    HIST("in", in, "In", "GenInMB"),
    HIST("out", out, "PinnedSurv + NonePinnedSurv", "GenOutMB"),
    HIST("budget", budget, "NewAllocation, the allocation budget", "GenBudgetMB"),
    HIST("pinned_surv", pinned_surv, "PinnedSurv", NULL),
    HIST("non_pinned_surv", non_pinned_surv, "NonePinnedSurv", NULL),
    HIST("free_list_before", free_list_before, "FreeListBefore", NULL),
    HIST("free_obj_before", free_obj_before, "FreeObjBefore", NULL),
    HIST("free_list_after", free_list_after, "FreeListAfter", NULL),
    HIST("free_obj_after", free_obj_after, "FreeObjAfter", NULL),
    {H(F64, PERCENT, "survival_percent", survival_percent, "mean of the heaps' integer survival rates"), DG,
     HHAS(SURVIVAL), TE("SurvivalPercent")},
    {H(F64, PERCENT, "fragmentation_percent", fragmentation_percent,
       "frag_after * 100 / size_after (compat: Infinity when size_after is 0)"),
     DG, HHAS(FRAG_PERCENT), .inf_bits = GCEV_STATS_HEAP_FRAG_PERCENT_INFINITE,
     TE("GenFragmentationPercent")},
    {H(I64, BYTES, "user_allocated", user_allocated, "UserAllocated of gen0, LOH, POH (may be negative)"),
     HHAS(USER_ALLOCATED), TE("UserAllocated")},
};

/* ---- gcev_stats_heap ---- */
#define HP gcev_stats_heap
#define P(t, u, k, m, def) .kind = GCEV_STATS_KIND_HEAP, T(t), U(u), .key = k, AT(HP, m), .definition = def
#define PHAS(b) PRES(HP, present, GCEV_STATS_HEAPREC_HAS_##b)
#define PHIST(t, u, k, m, def)                                                                               \
    {                                                                                                        \
        P(t, u, k, m, def), PHAS(HISTORY)                                                                    \
    }
#define HEAP_MARK(k, name)                                                                                   \
    {.kind = GCEV_STATS_KIND_HEAP,                                                                           \
     T(OBJECT),                                                                                              \
     U(NONE),                                                                                                \
     .key = name,                                                                                            \
     GRP("marks"),                                                                                           \
     PRES(HP, mark_present, 1u << (k)),                                                                      \
     .definition = "roots of this kind"},                                                                    \
        {P(F64, MS, "ms", mark_ms[k],                                                                        \
           "time of this root kind (kinds in event order, each minus the one before)"),                      \
         GRP("marks." name), PRES(HP, mark_present, 1u << (k)), D3, TE("PerHeapMarkTimes")},                 \
    {                                                                                                        \
        P(U64, BYTES, "promoted", mark_promoted[k], "bytes promoted from these roots (GCMarkWithType)"),     \
            GRP("marks." name), PRES(HP, mark_promoted_present, 1u << (k))                                   \
    }

static const gcev_stats_metric heap_metrics[] = {
    {P(U64, ID, "heap", heap, "heap number")},
    {P(U64, FLAGS, "present", present, "GCEV_STATS_HEAPREC_HAS_* bits: which values are known"), F(HIDDEN)},
    PHIST(U64, COUNT, "generations", generations,
          "elements of its GCPerHeapHistory Values (4, or 5 with POH)"),
    PHIST(U64, BYTES, "free_list_allocated", free_list_allocated, "GCPerHeapHistory FreeListAllocated"),
    PHIST(U64, BYTES, "free_list_rejected", free_list_rejected, "GCPerHeapHistory FreeListRejected"),
    PHIST(U64, BYTES, "end_of_seg_allocated", end_of_seg_allocated, "GCPerHeapHistory EndOfSegAllocated"),
    PHIST(U64, BYTES, "condemned_allocated", condemned_allocated, "GCPerHeapHistory CondemnedAllocated"),
    PHIST(U64, BYTES, "pinned_allocated", pinned_allocated, "GCPerHeapHistory PinnedAllocated"),
    PHIST(U64, BYTES, "pinned_allocated_advance", pinned_allocated_advance,
          "GCPerHeapHistory PinnedAllocatedAdvance"),
    PHIST(U64, PERCENT, "running_free_list_efficiency", running_free_list_efficiency,
          "GCPerHeapHistory RunningFreeListEfficiency"),
    PHIST(U64, FLAGS, "condemn_reasons0", condemn_reasons0, "GCPerHeapHistory CondemnReasons0"),
    PHIST(U64, FLAGS, "condemn_reasons1", condemn_reasons1, "GCPerHeapHistory CondemnReasons1"),
    {P(ENUM, ENUM, "compact_mechanisms", compact_mechanisms,
       "CompactMechanisms: bit 31 and the reason's bit"),
     PHAS(HISTORY), .name = compact_name},
    {P(ENUM, ENUM, "expand_mechanisms", expand_mechanisms, "ExpandMechanisms: bit 31 and the reason's bit"),
     PHAS(HISTORY), .name = expand_name},
    {P(ENUM, ENUM, "compact_reason", compact_mechanisms, "why the heap compacted (when it did)"),
     PHAS(HISTORY), .name = compact_name, .flags = GCEV_STATS_M_NAME | GCEV_STATS_M_DERIVED},
    {P(ENUM, ENUM, "expand_mechanism", expand_mechanisms, "how the heap expanded (when it did)"),
     PHAS(HISTORY), .name = expand_name, .flags = GCEV_STATS_M_NAME | GCEV_STATS_M_DERIVED},
    PHIST(U64, BYTES, "extra_gen0_commit", extra_gen0_commit, "GCPerHeapHistory ExtraGen0Commit"),
    {P(COUNTS, COUNT, "condemned", condemned_groups, "PerHeapCondemnedReasons: value of each group"),
     PHAS(HISTORY), .name = group_name, TE("PerHeapCondemnedReasons")},
    {P(RECORDS, NONE, "gens", gens,
       "per generation: gen, size_before, size_after, free_list_before, free_obj_before, free_list_after, "
       "free_obj_after, in, pinned_surv, non_pinned_surv, budget, surv_rate"),
     PHAS(HISTORY), .elem_kind = -1},
    {P(U64, FLAGS, "mark_present", mark_present, "bit k: mark_ms[k] known"), F(HIDDEN)},
    {P(U64, FLAGS, "mark_promoted_present", mark_promoted_present, "bit k: mark_promoted[k] known"),
     F(HIDDEN)},
    {.kind = GCEV_STATS_KIND_HEAP,
     T(OBJECT),
     U(NONE),
     .key = "marks",
     PHAS(MARKS),
     .definition = "per root kind (GCMarkWithType or the private marks)"},
    HEAP_MARK(0, "Stack"),
    HEAP_MARK(1, "Finalizer"),
    HEAP_MARK(2, "Handle"),
    HEAP_MARK(3, "Older"),
    HEAP_MARK(4, "SizedRef"),
    HEAP_MARK(5, "Overflow"),
    HEAP_MARK(6, "DependentHandle"),
    HEAP_MARK(7, "NewFQ"),
    HEAP_MARK(8, "Steal"),
    HEAP_MARK(9, "BGC"),
    {P(U64, COUNT, "joins", joins, "GCJoin waits of the heap's thread that ended"), PHAS(JOINS)},
    {P(F64, MS, "join_ms", join_ms, "their total"), PHAS(JOINS), D3},
    {P(F64, MS, "join_max_ms", join_max_ms, "the longest"), PHAS(JOINS), D3},
    {.kind = GCEV_STATS_KIND_HEAP,
     T(OBJECT),
     U(NONE),
     .key = "loh_compact",
     PHAS(LOH_COMPACT),
     .definition = "its GCLOHCompact element"},
    {P(U64, US, "time_plan_us", loh_time_plan, "TimePlan"), GRP("loh_compact"), PHAS(LOH_COMPACT)},
    {P(U64, US, "time_compact_us", loh_time_compact, "TimeCompact"), GRP("loh_compact"), PHAS(LOH_COMPACT)},
    {P(U64, US, "time_relocate_us", loh_time_relocate, "TimeRelocate"), GRP("loh_compact"),
     PHAS(LOH_COMPACT)},
    {P(U64, COUNT, "total_refs", loh_total_refs, "TotalRefs"), GRP("loh_compact"), PHAS(LOH_COMPACT)},
    {P(U64, COUNT, "zero_refs", loh_zero_refs, "ZeroRefs"), GRP("loh_compact"), PHAS(LOH_COMPACT)},
};

/* ---- gcev_stats_gen_summary ---- */
#define GS gcev_stats_gen_summary
#define S(t, u, k, m, def)                                                                                   \
    .kind = GCEV_STATS_KIND_GEN_SUMMARY, T(t), U(u), .key = k, AT(GS, m), .definition = def

static const gcev_stats_metric gen_summary_metrics[] = {
    {S(U64, GENERATION, "generation", generation, "condemned generation: 0, 1 or 2")},
    {S(U64, COUNT, "count", count, "GCs of this generation (all processes)")},
    {S(U64, COUNT, "background", background, "of which background GCs")},
    {S(U64, COUNT, "foreground", foreground, "of which foreground GCs")},
    {S(U64, COUNT, "pause_count", pause_count, "GCs whose pause is known"), F(NOT_JSON)},
    {S(F64, MS, "pause_total_ms", pause_total_ms, "their pauses, summed"), D3, COND(GS, pause_count)},
    {S(F64, MS, "pause_mean_ms", pause_mean_ms, "their mean pause"), D3, COND(GS, pause_count)},
    {S(F64, MS, "pause_max_ms", pause_max_ms, "their longest pause"), D3, COND(GS, pause_count)},
    {S(U64, COUNT, "promoted_count", promoted_count, "GCs whose promoted bytes are known"), F(NOT_JSON)},
    {S(U64, BYTES, "promoted_bytes", promoted_bytes, "their promoted bytes, summed"),
     COND(GS, promoted_count)},
    {S(F64, MS, "duration_total_ms", duration_total_ms, "GCStart -> GCEnd of the GCs that ended, summed"), D3,
     COND(GS, duration_count)},
    {S(U64, COUNT, "duration_count", duration_count, "GCs with a GCEnd"), F(NOT_JSON)},
};

/* ---- gcev_stats_gcstats ---- */
#define ST gcev_stats_gcstats
#define C(t, u, k, m, def) .kind = GCEV_STATS_KIND_GCSTATS, T(t), U(u), .key = k, AT(ST, m), .definition = def
#define CHAS(b) PRES(ST, present, GCEV_STATS_GCSTATS_HAS_##b)

static const gcev_stats_metric gcstats_metrics[] = {
    {C(U64, FLAGS, "present", present, "GCEV_STATS_GCSTATS_HAS_* bits: which values are known"), F(HIDDEN)},
    {C(U64, COUNT, "count", count, "complete GCs"), TE("Count")},
    {C(U64, COUNT, "induced", induced, "of which reason Induced or InducedNoForce"), TE("NumInduced")},
    {C(F64, MS, "pause_total_ms", pause_total_ms, "their pauses, summed"), D3, TE("TotalPauseDurationMSec")},
    {C(F64, MS, "pause_mean_ms", pause_mean_ms, "mean pause"), D3, CHAS(MEANS), TE("MeanPauseDurationMSec")},
    {C(F64, MS, "pause_max_ms", pause_max_ms, "longest pause"), D3, CHAS(MEANS), TE("MaxPauseDurationMSec")},
    {C(F64, MS, "suspend_max_ms", suspend_max_ms, "longest suspension"), D3, CHAS(MEANS),
     TE("MaxSuspendDurationMSec")},
    {C(U64, BYTES, "size_peak_max", size_peak_max, "largest heap_size_peak"), CHAS(MEANS),
     TE("MaxSizePeakMB")},
    {C(F64, BYTES, "size_peak_mean", size_peak_mean, "mean heap_size_peak"), DG, CHAS(MEANS),
     TE("MeanSizePeakMB")},
    {C(F64, BYTES, "size_after_mean", size_after_mean, "mean heap_size_after"), DG, CHAS(MEANS),
     TE("MeanSizeAfterMB")},
    {C(U64, BYTES, "size_peak_total", size_peak_total, "heap_size_peak, summed"), TE("TotalSizePeakMB")},
    {C(U64, BYTES, "size_after_total", size_after_total, "heap_size_after, summed"), TE("TotalSizeAfterMB")},
    {C(F64, MB_PER_SEC, "alloc_rate_max_mb_per_sec", alloc_rate_max, "largest alloc_rate_mb_per_sec"), DG,
     CHAS(MEANS), TE("MaxAllocRateMBSec")},
    {C(I64, BYTES, "allocated_total", allocated_total, "allocated_since_last_gc, summed"),
     TE("TotalAllocatedMB")},
    {C(U64, BYTES, "promoted_total", promoted_total, "promoted_bytes, summed"), TE("TotalPromotedMB")},
    {C(F64, MB_PER_MS, "alloc_mb_per_pause_ms", alloc_mb_per_pause_ms,
       "allocated_total / pause_total_ms (PerfView's Alloc MB/MSec GC)"),
     DG, CONDF(ST, pause_total_ms)},
    {C(U64, BYTES, "pinned_object_sizes", pinned_object_sizes, "pinned_object_sizes, summed"),
     TE("PinnedObjectSizes")},
    {C(I64, PERCENT, "pinned_object_percent_sum", pinned_object_percent, "pinned_object_percent, summed"),
     TE("PinnedObjectPercentage")},
    {C(U64, COUNT, "with_pin_events", with_pin_events, "GCs with PinObjectAtGCTime events"),
     TE("NumWithPinEvents")},
    {C(U64, COUNT, "with_pin_plug_events", with_pin_plug_events, "GCs with PinPlugAtGCTime events"),
     TE("NumWithPinPlugEvents")},
    {C(F64, MS, "process_duration_ms", process_duration_ms,
       "first complete GC's pause start -> the last GCHeapStats"),
     D3, CHAS(DURATION), F(PROCESS_ONLY), TE("ProcessDuration")},
    {C(F64, PERCENT, "pause_time_percent", pause_time_percent, "pause_total_ms * 100 / process_duration_ms"),
     DG, CHAS(DURATION), CONDF(ST, process_duration_ms), F(PROCESS_ONLY), TE("GetGCPauseTimePercentage()")},
    {C(I64, COUNT, "heap_count", heap_count, "the first GlobalHeapHistory's NumHeaps"), CHAS(HEAP_COUNT),
     F(PROCESS_ONLY), TE("HeapCount")},
    {C(BOOL, BOOL, "has_detailed_gc_info", has_detailed_gc_info, "a GC had per-heap histories"), .mask = 1,
     F(PROCESS_ONLY), TE("HasDetailedGCInfo")},
    {C(BOOL, BOOL, "version_mismatch", version_mismatch, "a history gcev cannot read"), .mask = 1,
     F(PROCESS_ONLY), TE("GCVersionInfoMismatch")},
    {C(U64, COUNT, "finalized_objects", finalized_objects, "FinalizeObject events (all types)"),
     F(PROCESS_ONLY), TE("FinalizedObjects")},
    {C(F64, MB_PER_SEC, "alloc_rate_max_sustained_mb_per_sec", alloc_rate_max_sustained,
       "highest GC-observed allocation rate over at least 10 ms of consecutive complete GCs"),
     DG, CHAS(SUSTAINED_RATE)},
};

/* ---- gcev_stats_process ---- */
#define PR gcev_stats_process
#define R(t, u, k, m, def) .kind = GCEV_STATS_KIND_PROCESS, T(t), U(u), .key = k, AT(PR, m), .definition = def
#define PAUSES(name, m, what)                                                                                \
    {.kind = GCEV_STATS_KIND_PROCESS,                                                                        \
     T(OBJECT),                                                                                              \
     U(NONE),                                                                                                \
     .key = name,                                                                                            \
     GRP("pauses"),                                                                                          \
     .definition = "pauses of " what},                                                                       \
        {R(U64, COUNT, "count", m.count, "complete GCs with a pause"), GRP("pauses." name)},                 \
        {R(F64, MS, "total_ms", m.total_ms, "their sum"), GRP("pauses." name), D3, COND(PR, m.count)},       \
        {R(F64, MS, "mean_ms", m.mean_ms, "their mean"), GRP("pauses." name), D3, COND(PR, m.count)},        \
        {R(F64, MS, "p50_ms", m.p50_ms, "median (nearest rank)"), GRP("pauses." name), D3,                   \
         COND(PR, m.count)},                                                                                 \
        {R(F64, MS, "p90_ms", m.p90_ms, "90th percentile (nearest rank)"), GRP("pauses." name), D3,          \
         COND(PR, m.count)},                                                                                 \
        {R(F64, MS, "p99_ms", m.p99_ms, "99th percentile (nearest rank)"), GRP("pauses." name), D3,          \
         COND(PR, m.count)},                                                                                 \
    {                                                                                                        \
        R(F64, MS, "max_ms", m.max_ms, "longest"), GRP("pauses." name), D3, COND(PR, m.count)                \
    }

static const gcev_stats_metric process_metrics[] = {
    {R(U64, ID, "process_id", process_id, "process id (0: events without one)")},
    {R(U64, COUNT, "gc_count", gc_count, "GCs of the process, complete or not")},
    {R(U64, COUNT, "complete_gcs", complete_count, "of which complete (GCEV_STATS_GC_COMPLETE)")},
    {R(U64, COUNT, "duplicate_starts", duplicate_starts,
       "GCStart events dropped: same Count as the previous GC (.NET Framework logs V1 then V2)")},
    {.kind = GCEV_STATS_KIND_PROCESS,
     T(RECORD),
     U(NONE),
     .key = "gcstats",
     .definition = "GCStats over the complete GCs",
     .elem_kind = GCEV_STATS_KIND_GCSTATS,
     TE("GC.Stats()")}, /* gcev_stats_process_stats() */
    {.kind = GCEV_STATS_KIND_PROCESS,
     T(RECORDS),
     U(NONE),
     .key = "generations",
     .definition = "GCStats per condemned generation 0, 1, 2",
     .elem_kind = GCEV_STATS_KIND_GCSTATS,
     TE("GC.Generations()")}, /* gcev_stats_process_gen_stats() */
    {.kind = GCEV_STATS_KIND_PROCESS,
     T(OBJECT),
     U(NONE),
     .key = "pauses",
     .definition = "pause distributions of the complete GCs"},
    PAUSES("all", pauses, "every complete GC"),
    PAUSES("gen0", pauses_by_gen[0], "gen0 GCs"),
    PAUSES("gen1", pauses_by_gen[1], "gen1 GCs"),
    PAUSES("gen2", pauses_by_gen[2], "gen2 GCs"),
    PAUSES("blocking", pauses_by_type[0], "blocking GCs"),
    PAUSES("background", pauses_by_type[1], "background GCs"),
    PAUSES("foreground", pauses_by_type[2], "foreground GCs"),
    {R(ARRAY, COUNT, "longest_pauses", longest,
       "complete GCs with the longest pauses, longest first (gcev_stats_process_longest_at)"),
     .elem_kind = -1},
};

/* ---- gcev_stats_summary ---- */
#define SU gcev_stats_summary
#define W(t, u, k, m, def) .kind = GCEV_STATS_KIND_SUMMARY, T(t), U(u), .key = k, AT(SU, m), .definition = def
#define WHAS(b) PRES(SU, present, GCEV_STATS_SUM_HAS_##b)

static const gcev_stats_metric summary_metrics[] = {
    {W(U64, FLAGS, "present", present, "GCEV_STATS_SUM_HAS_* bits: which values are known"), F(HIDDEN)},
    {W(U64, COUNT, "events", events, "events fed (all providers)")},
    {W(U64, COUNT, "gc_events", gc_events, "of which decoded GC events")},
    {W(U64, COUNT, "decode_errors", decode_errors, "GC events whose payload did not decode (skipped)")},
    {W(F64, MS, "first_ms", first_ms, "time of the first event"), D3, COND(SU, events)},
    {W(F64, MS, "last_ms", last_ms, "time of the last event"), D3, COND(SU, events)},
    {W(F64, MS, "duration_ms", duration_ms, "last_ms - first_ms"), D3, COND(SU, events)},
    {W(U64, COUNT, "gc_count", gc_count, "GCs (all processes)")},
    {W(U64, COUNT, "unfinished_gcs", unfinished_gcs, "GCs without a GCEnd")},
    {W(F64, PER_SEC, "gcs_per_sec", gcs_per_sec, "gc_count / duration"), D3, WHAS(DURATION)},
    {W(F64, MS, "pause_total_ms", pause_total_ms, "pauses, summed"), D3, WHAS(PAUSE)},
    {W(F64, PERCENT, "pause_percent", pause_percent, "pause_total_ms * 100 / duration_ms"), D3,
     PRES(SU, present, GCEV_STATS_SUM_HAS_PAUSE | GCEV_STATS_SUM_HAS_DURATION)},
    {W(F64, MS, "pause_max_ms", pause_max_ms, "longest pause"), D3, WHAS(PAUSE)},
    {W(U64, ID, "pause_max_gc", pause_max_gc, "number of the GC with the longest pause"), WHAS(PAUSE)},
    {W(U64, COUNT, "allocation_ticks", allocation_ticks, "AllocationTick events"), WHAS(ALLOCATION)},
    {W(U64, BYTES, "allocated_bytes", allocated_bytes, "their AllocationAmount sum (~100 KB sampling)"),
     WHAS(ALLOCATION)},
    {W(F64, MB_PER_SEC, "alloc_mb_per_sec", alloc_mb_per_sec, "allocated_bytes / duration (MB = 10^6 bytes)"),
     D3, PRES(SU, present, GCEV_STATS_SUM_HAS_ALLOCATION | GCEV_STATS_SUM_HAS_DURATION)},
    {W(U64, COUNT, "other_suspensions", other_suspensions,
       "suspensions with no GC inside (sampler, debugger)")},
    {W(F64, MS, "other_suspended_ms", other_suspended_ms, "their SuspendEEBegin -> RestartEEEnd time"), D3},
    {W(I64, COUNT, "heap_count", heap_count, "largest NumHeaps seen (> 1: server GC)"), WHAS(HEAP_COUNT)},
    {W(ENUM, ENUM, "gc_mode", heap_count, "server (heap_count > 1) or workstation"), WHAS(HEAP_COUNT),
     .name = gc_mode_name, .flags = GCEV_STATS_M_NAME | GCEV_STATS_M_DERIVED},
    {W(U64, COUNT, "dropped_events", dropped_events, "events the trace reports lost")},
    {W(U64, COUNT, "skipped_ranges", skipped_ranges, "damaged ranges skipped (--keep-going)")},
    {W(U64, BYTES, "skipped_bytes", skipped_bytes, "their bytes")},
    {W(U64, ID, "survived_after_gc", survived_gc, "number of the last full blocking GC"), WHAS(SURVIVED)},
    {W(U64, BYTES, "process_survived_bytes", process_survived,
       "AppDomainMemSurvived ProcessSurvived after it"),
     WHAS(SURVIVED)},
    {.kind = GCEV_STATS_KIND_SUMMARY,
     T(ARRAY),
     U(NONE),
     .key = "appdomains_survived",
     WHAS(SURVIVED),
     .elem_kind = -1,
     .definition = "survived bytes per AppDomain: app_domain_id, survived_bytes"},
    {W(BOOL, BOOL, "limit_hit", limit_hit, "a segment/handle/AppDomain table reached its limit"), .mask = 1,
     F(NOT_JSON)},
};

#define N(a) (sizeof a / sizeof a[0])
const gcev_stats_metric *const gcev_stats_metric_tables[GCEV_STATS_KINDS] = {
    gc_metrics,      gen_heap_metrics, heap_metrics,   gen_summary_metrics,
    gcstats_metrics, process_metrics,  summary_metrics};
const size_t gcev_stats_metric_counts[GCEV_STATS_KINDS] = {
    N(gc_metrics),      N(gen_heap_metrics), N(heap_metrics),   N(gen_summary_metrics),
    N(gcstats_metrics), N(process_metrics),  N(summary_metrics)};
