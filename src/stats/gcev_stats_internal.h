/* SPDX-License-Identifier: MIT */
/*
 * The GC analysis model's private state, shared by the src/stats units.
 *
 * The state machine is TraceEvent's (microsoft/perfview
 * src/TraceEvent/Computers/TraceManagedProcess.cs, "TMP" below: per process one
 * "GC suspension in progress", the GC list, the background GC in progress), with
 * gcev's corrections where the events show TraceEvent wrong. Each correction is
 * one STATS_Q_* quirk: in the TraceEvent compatibility mode
 * (gcev_stats_options.traceevent_compat) TraceEvent's behaviour is reproduced
 * instead and the GC it touched records the quirk, so a test can hold the
 * compatibility mode to TraceEvent's numbers exactly and check that the normal
 * mode differs only where a quirk applied (doc/stats.md lists them).
 */
#ifndef GCEV_STATS_INTERNAL_H
#define GCEV_STATS_INTERNAL_H

#include <gcev/gcev_stats.h>

#include "gcev_sized.h"
#include "gcev_stats_table.h"
#include "gcev_vec.h"

/* The first layout of gcev_stats_input (gcev.h "Growable structs"). */
#define STATS_INPUT_V1 GCEV_SIZE_TO(gcev_stats_input, process_id)

/* The metric tables (gcev_stats_metrics.c), indexed by gcev_stats_kind. */
extern const gcev_stats_metric *const gcev_stats_metric_tables[GCEV_STATS_KINDS];
extern const size_t gcev_stats_metric_counts[GCEV_STATS_KINDS];

/* The quirks: TraceEvent behaviours gcev corrects (bit in stats_gcx.quirks). */
enum {
    STATS_Q_NO_SUSPENSION = 1u << 0,     /* a GCStart with no suspension in progress is dropped (TMP L712) */
    STATS_Q_BGC_RESTART_LOST = 1u << 1,  /* a BGC completed at its GCHeapStats loses the rest of its pause:
                                          * RestartEEEnd finds no current GC (TMP L632, L1183) */
    STATS_Q_LATE_HISTORY = 1u << 2,      /* histories after a BGC's GCHeapStats are dropped: GetLastGC uses
                                          * lastCompletedGC only when IsServerGCUsed == 1, never set on
                                          * EventPipe (TMP L4696, L554) */
    STATS_Q_POH_TICKS = 1u << 3,         /* POH UserAllocated without histories reads the LOH tick sum
                                          * (TMP L2937: index 1 for every gen but gen0) */
    STATS_Q_PIN_ERASED = 1u << 4,        /* pin sizes of a complete GC read 0 / -1: the second OnEnd
                                          * recomputes them from lists the first one cleared (TMP L2691, L2717,
                                          * L1672) */
    STATS_Q_FIRST_HEAP_STATS = 1u << 5,  /* the size-before fallback never reads the first GC's GCHeapStats
                                          * (TMP L2984: j == 0 returns before GCs[0] is read) */
    STATS_Q_INCOMPLETE = 1u << 6,        /* derived metrics of a GC that never completed stay at their
                                          * defaults (OnEnd never ran: TMP L2686, L1668) */
    STATS_Q_BGC_OVERWRITE = 1u << 7,     /* a SuspendForGC suspension during a BGC that starts no GC sets the
                                          * BGC's pause to RestartEE minus its pause start (TMP L4780) */
    STATS_Q_STALE_SUSPEND_END = 1u << 8, /* a suspension without SuspendEEEnd uses the previous one's end
                                          * (suspendEndTimeRelativeMSec is never reset: TMP L610, L753) */
    STATS_Q_REVISIT_TARGET = 1u << 9,    /* BGCRevisit goes to the current GC, a foreground GC when one runs
                                          * (TMP L1091) */
    STATS_Q_PUBLIC_MARKS = 1u << 10,  /* Runtime GCMarkStackRoots..OlderGenerationRoots (25-28) are not used
                                       * (TMP handles GCMarkWithType and the private marks only) */
    STATS_Q_NO_HEAP_STATS = 1u << 11, /* a blocking GC restarted without GCHeapStats (lost) never completes,
                                       * so it stays the current GC and takes later GCs' pauses and events
                                       * (TMP L659, L1253) */
    STATS_Q_PREP_RESTART =
        1u << 12, /* the RestartEEEnd of a SuspendForGCPrep suspension while a blocking GC
                   * without GCEnd (lost) is current adds the suspension to that GC's
                   * pause as a BGC final pause (TMP GCRestartEEStop, AddConcurrentPauseTime) */
    STATS_Q_BGC_DETAIL_TO_FOREGROUND =
        1u << 13, /* a BGC's histories (or GCDynamicEvent) logged by its own thread while a
                   * foreground GC is still current (between its RestartEEBegin and RestartEEEnd) go
                   * to the foreground GC, which then has two histories of a heap (TMP GetCurrentGC) */
};

/* Per-heap record and what only the model needs about it. */
typedef struct stats_heap {
    gcev_stats_heap pub;
    uint32_t hist_seq; /* arrival order of its GCPerHeapHistory (TraceEvent's list order), or UINT32_MAX */
    double mark_ts[GCEV_STATS_ROOT_KINDS]; /* raw timestamps of the mark events */
    double join_start_ms;
    int join_open;
} stats_heap;

/* A pinned object (PinObjectAtGCTime), or a pinned plug (PinPlugAtGCTime), while its GC runs. */
typedef struct stats_pin {
    uint64_t a, b; /* object: id, size; plug: start, end */
    uint32_t seq;  /* event order */
    uint32_t mark; /* plug: holds a pinned object */
} stats_pin;

/* What the model keeps about a GC besides its public record (same index as gcs[]). */
typedef struct stats_gcx {
    uint32_t proc;  /* index into procs[] */
    uint32_t index; /* position in its process's GC list (TraceEvent's TraceGC.Index) */
    uint32_t quirks;
    gcev_stats_gen_heap gens[GCEV_STATS_GENS]; /* gcev_stats_gc_gen_at() */
    uint32_t hist_count;                       /* GCPerHeapHistory events used */
    uint64_t hist_size_after[GCEV_STATS_GENS]; /* their SizeAfter sums */
    uint32_t dup_histories;
    uint64_t bgc_thread; /* a BGC's own thread (its SuspendForGCPrep, its private BGC events) */
    uint8_t has_bgc_thread;
    uint8_t is_concurrent; /* TMP's IsConcurrentGC: RestartEE before GCEnd */
    uint8_t restarted;     /* a blocking GC whose pause ended (RestartEEEnd after its GCEnd) */
    uint8_t heaps_sorted;
    uint8_t closed;           /* reported to the GC-end callback */
    uint32_t gcs_at_complete; /* its process's GC count when it completed */
    stats_heap *heaps;
    uint32_t nheaps;
    size_t cap_heaps;
    gcev_stats_loh_wait *waits;
    size_t cap_waits;
    gcev_stats_fit_bucket *buckets;
    size_t cap_buckets;
    stats_pin *pins, *plugs; /* freed when the GC completes (or at finish) */
    uint32_t npins, nplugs;
    size_t cap_pins, cap_plugs;
    uint64_t pin_dups; /* TMP's duplicatedPinningReports */
} stats_gcx;

/* A suspension seen, per suspending thread, for the "other suspensions" count. */
enum { STATS_SUSP_SLOTS = 16 };
typedef struct stats_susp_slot {
    int active;
    uint64_t thread_id;
    uint64_t seq;
    double begin_ms;
    int charged; /* its RestartEE was charged to a GC */
} stats_susp_slot;

/* One process: TraceEvent's per-process GC state (m_stats). */
typedef struct stats_proc {
    uint32_t pid;
    size_t *gcs; /* indexes into gcs[], start order */
    size_t ngcs, cap_gcs;
    /* the GC suspension in progress */
    int has_tid_gc, has_tid_bgc, has_tid_other;
    uint64_t tid_gc, tid_bgc, tid_other;
    double susp_begin_ms; /* -1: none (TMP suspendTimeRelativeMSec) */
    double susp_end_ms;   /* -1: none (TMP suspendEndTimeRelativeMSec) */
    uint32_t last_reason;
    long current_bgc;          /* TMP currentBGC, index into gcs[] or -1 */
    long last_completed;       /* TMP lastCompletedGC */
    long last_ended;           /* GC whose GCEnd came last */
    double last_heap_stats_ms; /* TMP lastRestartEndTimeRelativeMSec (set by GCHeapStats) */
    int has_alloc_ticks;
    int seen_bad_tick;
    uint64_t tick_bytes[3];         /* TMP allocTickCurrentMB: cumulative, SOH/LOH/POH */
    uint64_t tick_bytes_at_last[3]; /* TMP allocTickAtLastGC: at the last GCHeapStats */
    uint64_t alloc_since_start;     /* AllocationTick bytes since the previous GCStart (allocated_bytes) */
    int32_t first_num_heaps;
    int has_first_num_heaps;
    uint8_t version_mismatch;
    uint64_t finalized;
    uint64_t duplicate_starts;
    stats_susp_slot susp[STATS_SUSP_SLOTS];
    uint64_t susp_seq;
    size_t first_open; /* p->gcs[first_open..] may still be unreported to the GC-end callback */
    /* results */
    gcev_stats_process pub;
    gcev_stats_gcstats all;       /* gcev_stats_process_stats() */
    gcev_stats_gcstats gstats[3]; /* gcev_stats_process_gen_stats() */
    size_t longest[10];
} stats_proc;

/* Times of the frees with no creation seen, kept until the trace first reports a loss. */
typedef struct stats_unmatched {
    double *ms;
    size_t n, cap;
    int overflow; /* more than the table's limit: all count as after the loss */
} stats_unmatched;

struct gcev_stats {
    gcev_stats_options opts;
    int compat; /* reproduce TraceEvent (quirks recorded) */
    int finished;
    gcev_status finish_status; /* what gcev_stats_finish() returned (GCEV_E_NOMEM: partial results) */
    gcev_stats_gc *gcs;
    stats_gcx *gcx;
    size_t ngcs, cap_gcs, cap_gcx;
    stats_proc *procs;
    size_t nprocs, cap_procs;
    size_t last_proc;
    uint64_t heap_records;
    /* AppDomainMemSurvived after the last full blocking GC */
    gcev_stats_appdomain *ads;
    size_t nads;
    uint32_t ads_gc;
    int has_ads;
    /* lifetimes */
    stats_table segments, handles;
    gcev_stats_pairing seg_pairing, handle_pairing;
    stats_table handle_threads; /* per thread: its last handle events (twin matching) */
    stats_unmatched seg_unmatched, handle_unmatched;
    int lost; /* a loss (drop, skip) was reported */
    gcev_stats_segment *live_segments;
    gcev_stats_handle *live_handles;
    /* results */
    gcev_stats_summary sum;
    gcev_stats_gen_summary gens[3];
    uint64_t family_counts[GCEV_FAMILY_COUNT_];
    int have_time;
    /* the GC-end callback (gcev_stats_set_gc_callback) */
    gcev_stats_gc_fn gc_fn;
    void *gc_ctx;
};

/* The generations of GC record g of s (gcev_stats_gc_gen_at()), kept beside the record. */
#define STATS_GENS(s, g) ((s)->gcx[(g) - (s)->gcs].gens)

/* gcev_stats_state.c */
/* The process with this id (created on first sight), or NULL (out of memory or max_processes). */
stats_proc *gcev_stats_proc(gcev_stats *s, uint32_t pid);
/* A new GC record at the end of gcs[] and of p's list; -1 on out of memory. */
long gcev_stats_new_gc(gcev_stats *s, stats_proc *p);
/* TMP GetCurrentGC: p's last GC when not complete, else its BGC in progress; -1 if none. */
long gcev_stats_current(const gcev_stats *s, const stats_proc *p);
/* The GC of a history or GCDynamicEvent logged by thread tid: GetCurrentGC, and in the normal mode
 * the BGC in progress when tid is its thread (quirk BGC_DETAIL_TO_FOREGROUND) or, when there is
 * no current GC, the last completed GC if it is a BGC (quirk `quirk`). -1 if none. */
long gcev_stats_detail_target(gcev_stats *s, stats_proc *p, uint64_t tid, uint32_t quirk);
/* Notes tid as the thread of the BGC in progress, if there is one. */
void gcev_stats_note_bgc_thread(gcev_stats *s, const stats_proc *p, uint64_t tid);
/* The record of heap `heap` of GC gi (created when new), or NULL (limit reached or out of memory). */
stats_heap *gcev_stats_heap_rec(gcev_stats *s, long gi, uint32_t heap);
/* A new record of that heap, even when the GC has one (compat mode's second history of a heap). */
stats_heap *gcev_stats_heap_rec_new(gcev_stats *s, long gi, uint32_t heap);
/* Marks GC gi complete (TMP OnEnd at its first call): computes the pin sizes, frees the pin lists. */
void gcev_stats_complete(gcev_stats *s, long gi);
/* The pin sizes of GC gi from its pin lists (TMP GetPinnedObjectSizes, GetPinnedObjectPercentage). */
void gcev_stats_pin_sizes(gcev_stats *s, long gi);

/* gcev_stats_model.c: the state machine (suspend, start, end, restart, allocation, heap stats). */
gcev_status gcev_stats_model_event(gcev_stats *s, stats_proc *p, const gcev_event *ev, double ms,
                                   uint64_t tid);

/* gcev_stats_heap.c: per-GC detail events. Each returns 1 when it used the event. */
int gcev_stats_heap_event(gcev_stats *s, stats_proc *p, const gcev_event *ev, double ms, uint64_t tid);

/* gcev_stats_derive.c: TraceEvent's OnEnd metrics of every GC, at finish. */
void gcev_stats_derive(gcev_stats *s);
/* The same for the GC at index `index` of p's list alone (its earlier GCs derived already, and
 * for a background GC the complete ones after it, with gcev_stats_derive_own()):
 * what the GC-end callback shows, equal to what gcev_stats_derive() gives it later. */
void gcev_stats_derive_gc(gcev_stats *s, const stats_proc *p, size_t index);
/* The part of it that reads only the GC and those before it (sizes before ...). */
void gcev_stats_derive_own(gcev_stats *s, const stats_proc *p, size_t index);

/* gcev_stats_close.c: the GC-end callback. */
/* Reports p's GCs that the event just fed closed (no-op without a callback). */
void gcev_stats_close_ready(gcev_stats *s, stats_proc *p);
/* At finish, after the summaries: reports every GC not reported yet, in start order. */
void gcev_stats_close_rest(gcev_stats *s);

/* gcev_stats_names.c: decode CondemnReasons0/1 into TraceEvent's groups. */
void gcev_stats_decode_condemned(uint32_t reasons0, uint32_t reasons1, int has1, int version,
                                 uint8_t groups[GCEV_STATS_CONDEMNED_GROUPS]);

/* gcev_stats_survived.c: AppDomainMemSurvived after the last full blocking GC. */
gcev_status gcev_stats_survived_event(gcev_stats *s, stats_proc *p, const gcev_app_domain_mem_survived *e);

/* gcev_stats_lifetimes.c: segments and handles (and dispatch of AppDomainMemSurvived). */
/* n events outside the GC set, the first at first_ms and the last at last_ms: they count,
 * and make the trace's time span (gcev_stats_read_trace, for those a trace filter skipped). */
void gcev_stats_note_other_events(gcev_stats *s, uint64_t n, double first_ms, double last_ms);
gcev_status gcev_stats_lifetime_event(gcev_stats *s, stats_proc *p, const gcev_event *ev, double ms,
                                      uint64_t tid);
gcev_status gcev_stats_lifetimes_finish(gcev_stats *s);
/* Events were lost just before ms: frees with no creation from ms on may have lost theirs. */
void gcev_stats_lifetimes_note_loss(gcev_stats *s, double ms);
/* Frees what the lifetimes hold besides the live tables. */
void gcev_stats_lifetimes_free(gcev_stats *s);

/* gcev_stats_summary.c */
gcev_status gcev_stats_summary_finish(gcev_stats *s);

/* For tests: the quirks that applied to g (0 for other pointers). */
uint32_t gcev_stats_gc_quirks(const gcev_stats *s, const gcev_stats_gc *g);

#endif
