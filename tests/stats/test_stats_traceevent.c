/* SPDX-License-Identifier: MIT */
/*
 * gcev_stats against TraceEvent's own GC analysis (issue 11 item 7, issue 10 item 4):
 * every TraceGC and GCStats member the oracle prints (tests/runtime/README.md, records
 * "gc" and "gcstats") against gcev_stats.h values, on each trace given:
 *
 *   test_stats_traceevent TRACE ORACLE.jsonl [TRACE ORACLE.jsonl ...]
 *
 * gcev runs twice. In the TraceEvent compatibility mode (traceevent_compat) every value
 * must equal TraceEvent's: the same GCs (number, generation, type, reason), times within
 * 1 us, sizes exact (TraceEvent's MB x 10^6, rounded, equals gcev's bytes), ratios within
 * 1e-9 relative; TraceEvent's absent markers (-1, NaN, null, and the 0 it leaves in a
 * field it never set, where the table below says so) where gcev has no value. In the
 * normal mode a value may differ from TraceEvent's only on a GC where one of gcev's
 * corrections applied (src/stats/gcev_stats_internal.h STATS_Q_*, doc/stats.md): the
 * GC, the one before it (TraceEvent derives allocation and sizes from it), or a GC that
 * ran inside it. The corrections that applied are counted and printed.
 *
 * Members gcev cannot have: ProcessCpuMSec, GCCpuMSec, GetTotalGCTime() (CPU samples: an
 * EventPipe file has none; TraceEvent leaves 0), PercentTimeInGC (NaN), ServerGcHeapHistories
 * (TraceEvent builds them only when IsServerGCUsed == 1, which it sets from thread names of
 * an ETLX TraceLog, TraceManagedProcess.cs L554: always empty here), IsServerGCUsed (-1).
 * They are checked to hold exactly those values. HeapCount is TraceEvent's process-wide
 * first NumHeaps (L3139, L4808); gcev's per-GC heap_count is the GC's own NumHeaps, and
 * under DATAS the two differ (checked against GlobalHeapHistory.NumHeaps instead).
 */
#define _POSIX_C_SOURCE 200809L /* popen */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_stats.h>
#include <gcev/gcev_trace.h>

#include "stats_scenarios.h"

#include "gcev_stats_internal.h"
#include "oracle_json.h"
#include "testutil.h"

/* ---- the oracle's records ----------------------------------------------------------- */

typedef struct oracle {
    tj *gcs;
    size_t ngcs;
    tj *stats;
    size_t nstats;
    tj *pins; /* PinObjectAtGCTime and PinPlugAtGCTime events */
    size_t npins;
} oracle;

/* Appends *v to a list of records (grown by doubling). */
static void push(tj **list, size_t *n, tj *v)
{
    if ((*n & (*n - 1)) == 0) { /* 0, 1, 2, 4 ...: the capacity is full */
        *list = realloc(*list, (*n ? *n * 2 : 1) * sizeof **list);
    }
    (*list)[(*n)++] = *v;
}

/* The oracle's "gc" and "gcstats" records and its pin events (the file one line at a time). */
static int load_oracle(const char *path, oracle *o)
{
    memset(o, 0, sizeof *o);
    oracle_lines l;
    char err[256];
    if (oracle_lines_load(&l, path, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    for (size_t i = 0; i < l.n; i++) {
        const char *line = l.lines[i];
        int is_gc = !strncmp(line, "{\"record\":\"gc\",", 15);
        int is_stats = !strncmp(line, "{\"record\":\"gcstats\",", 20);
        int is_pin = !strncmp(line, "{\"record\":\"event\",", 18) &&
                     (strstr(line, "\"name\":\"GC/PinObjectAtGCTime\"") ||
                      strstr(line, "\"name\":\"GC/PinPlugAtGCTime\""));
        if (!is_gc && !is_stats && !is_pin) {
            continue;
        }
        tj v;
        if (oracle_lines_parse(&l, i, &v) != 0) {
            fprintf(stderr, "%s: line %zu is not JSON\n", path, i + 1);
            oracle_lines_free(&l);
            return -1;
        }
        push(is_gc      ? &o->gcs
             : is_stats ? &o->stats
                        : &o->pins,
             is_gc      ? &o->ngcs
             : is_stats ? &o->nstats
                        : &o->npins,
             &v);
    }
    oracle_lines_free(&l);
    return 0;
}

static void free_oracle(oracle *o)
{
    for (size_t i = 0; i < o->ngcs; i++) {
        tj_free(&o->gcs[i]);
    }
    for (size_t i = 0; i < o->nstats; i++) {
        tj_free(&o->stats[i]);
    }
    for (size_t i = 0; i < o->npins; i++) {
        tj_free(&o->pins[i]);
    }
    free(o->gcs);
    free(o->stats);
    free(o->pins);
}

static const tj *J(const tj *o, const char *k)
{
    return o && o->kind == TJ_OBJ ? tj_get(o, k) : NULL;
}

static const tj *AT(const tj *a, size_t i)
{
    return a && a->kind == TJ_ARR && i < a->n ? &a->items[i] : NULL;
}

/* A number of the oracle: 1 and *out; NaN/Infinity strings give NaN/inf; else 0 (null, absent). */
static int num(const tj *v, double *out)
{
    if (!v) {
        return 0;
    }
    if (v->kind == TJ_NUM) {
        *out = strtod(v->num, NULL);
        return 1;
    }
    if (v->kind == TJ_BOOL) {
        *out = v->boolean;
        return 1;
    }
    if (v->kind == TJ_STR) {
        if (!strcmp(v->str, "NaN")) {
            *out = NAN;
            return 1;
        }
        if (!strcmp(v->str, "Infinity")) {
            *out = INFINITY;
            return 1;
        }
        if (!strcmp(v->str, "-Infinity")) {
            *out = -INFINITY;
            return 1;
        }
    }
    return 0;
}

static int64_t inum(const tj *v)
{
    return v && v->kind == TJ_NUM ? strtoll(v->num, NULL, 10) : INT64_MIN;
}

/* ---- comparisons ---------------------------------------------------------------------- */

enum kind { K_INT, K_TIME, K_MB, K_RATIO, K_BYTES };
/* how TraceEvent says "no value": -1, NaN/null always, and +-Infinity unless F_INF */
enum {
    F_M1 = 1,
    F_ZERO = 2, /* 0 is TraceEvent's default for a member it never set */
    F_INF = 4   /* +-Infinity is a value gcev must have too (GenFragmentationPercent in compat mode) */
};

enum { MAX_METRICS = 256 };
typedef struct metric_count {
    const char *name;
    long compared, equal, differ_corrected, differ;
} metric_count;

typedef struct ctx {
    const char *trace;
    int compat;
    uint32_t explain; /* quirks that may explain a difference of the GC at hand (normal mode) */
    uint32_t quirks_seen;
    metric_count m[MAX_METRICS];
    int nm;
    long failures;
    long gcs_matched;
    long te_infinities;  /* TraceEvent's infinite GenFragmentationPercent values met */
    long cli_infinities; /* the CLI's "Infinity" (JSON) and inf (CSV) fragmentation_percent values */
} ctx;

static metric_count *metric(ctx *c, const char *name)
{
    for (int i = 0; i < c->nm; i++) {
        if (!strcmp(c->m[i].name, name)) {
            return &c->m[i];
        }
    }
    assert_true(c->nm < MAX_METRICS);
    c->m[c->nm].name = name;
    return &c->m[c->nm++];
}

static void report(ctx *c, const char *where, const char *name, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s [%s] %s %s: %s\n", c->trace, c->compat ? "compat" : "normal", where, name, buf);
}

/* A difference a correction explains: printed when GCEV_STATS_EXPLAIN is set (doc/stats.md's evidence). */
static void corrected(ctx *c, const char *where, const char *name, const char *fmt, ...)
{
    if (!getenv("GCEV_STATS_EXPLAIN")) {
        return;
    }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    printf("%s %s %s (quirks 0x%x): %s\n", c->trace, where, name, c->explain, buf);
}

/*
 * One value: TraceEvent's te (oracle JSON), gcev's (has, v). name: TraceEvent's member.
 * K_MB: te in MB, v in bytes. K_BYTES/K_INT: exact integers.
 */
static void check(ctx *c, const char *where, const char *name, enum kind k, int flags, const tj *te, int has,
                  double v)
{
    metric_count *m = metric(c, name);
    m->compared++;
    double t = 0;
    int te_has = num(te, &t);
    if (te_has && (isnan(t) || (isinf(t) && !(flags & F_INF)))) {
        te_has = 0;
    }
    if (te_has && (flags & F_M1) && t == -1) {
        te_has = 0;
    }
    if (te_has && !has && (flags & F_ZERO) && t == 0) {
        te_has = 0;
    }
    int ok;
    if (!te_has || !has) {
        ok = te_has == has;
    } else if (k == K_TIME) {
        ok = fabs(t - v) <= 0.001 + 1e-9;
    } else if (k == K_MB) {
        ok = llround(t * 1e6) == llround(v);
    } else if (k == K_RATIO) {
        ok = t == v || (isfinite(t) && isfinite(v) && fabs(t - v) <= 1e-9 * fmax(fabs(t), fabs(v)));
    } else {
        ok = t == v;
    }
    if (ok) {
        m->equal++;
        return;
    }
    char tv[64], gv[64];
    if (te_has) {
        snprintf(tv, sizeof tv, "%.17g", t);
    } else {
        snprintf(tv, sizeof tv, "absent");
    }
    if (has) {
        snprintf(gv, sizeof gv, "%.17g", k == K_MB ? v / 1e6 : v);
    } else {
        snprintf(gv, sizeof gv, "absent");
    }
    if (!c->compat && c->explain) {
        m->differ_corrected++;
        corrected(c, where, name, "TraceEvent %s, gcev %s", tv, gv);
        return;
    }
    m->differ++;
    c->failures++;
    report(c, where, name, "TraceEvent %s, gcev %s", tv, gv);
}

/*
 * An exact integer: TraceEvent's JSON number text against gcev's value. TraceEvent reads some
 * unsigned fields as signed (GetInt64At, GetInt32At): the same bits, compared as int64.
 */
static void check_i(ctx *c, const char *where, const char *name, int flags, const tj *te, int has, int64_t v)
{
    if (te && te->kind == TJ_NUM && !strpbrk(te->num, ".eE")) {
        int64_t t = strtoll(te->num, NULL, 10);
        if (t < 0 && t != -1 && v >= 0) {
            /* a UInt32 read with GetInt32At, or a UInt64 with GetInt64At */
            if ((uint64_t)v > UINT32_MAX || t < INT32_MIN) {
                t = (int64_t)(uint64_t)t; /* same 64 bits */
            } else {
                t = (int64_t)(uint32_t)(int32_t)t;
            }
        }
        metric_count *m = metric(c, name);
        m->compared++;
        int te_has = !((flags & F_M1) && t == -1) && !(!has && (flags & F_ZERO) && t == 0);
        if (te_has && has ? t == v : te_has == has) {
            m->equal++;
            return;
        }
        char gv[32];
        snprintf(gv, sizeof gv, "%lld", (long long)v);
        if (!c->compat && c->explain) {
            m->differ_corrected++;
            corrected(c, where, name, "TraceEvent %s, gcev %s", te_has ? te->num : "absent",
                      has ? gv : "absent");
            return;
        }
        m->differ++;
        c->failures++;
        report(c, where, name, "TraceEvent %s, gcev %s", te_has ? te->num : "absent", has ? gv : "absent");
        return;
    }
    check(c, where, name, K_INT, flags, te, has, (double)v); /* booleans, null, NaN */
}

#define HAS(g, bit) (((g)->present & (bit)) != 0)

/* A non-numeric comparison (counts, lists, strings): ok says whether they agree. */
static int agree(ctx *c, const char *where, const char *name, int ok, const char *fmt, ...)
{
    metric_count *m = metric(c, name);
    m->compared++;
    if (ok) {
        m->equal++;
        return 1;
    }
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!c->compat && c->explain) {
        m->differ_corrected++;
        corrected(c, where, name, "%s", buf);
        return 0;
    }
    m->differ++;
    c->failures++;
    report(c, where, name, "%s", buf);
    return 0;
}

static size_t tj_len(const tj *v)
{
    return v && (v->kind == TJ_ARR || v->kind == TJ_OBJ) ? v->n : 0;
}

/* ---- one GC ------------------------------------------------------------------------------- */

/* TraceEvent's IndexOfSetBit of a mechanisms word (GCPerHeapHistoryTraceData): 1024 for none. */
static double index_of_set_bit(uint32_t v, int count)
{
    if (!v) {
        return 1024;
    }
    int i = 0;
    while (!(v & 1)) {
        v >>= 1;
        i++;
    }
    return i < count ? i : 1024;
}

static void check_gen_methods(ctx *c, const char *w, const tj *te, const gcev_stats *s,
                              const gcev_stats_gc *g)
{
    for (int gen = 0; gen < GCEV_STATS_GENS; gen++) {
        const gcev_stats_gen_heap *h = gcev_stats_gc_gen_at(s, g, (unsigned)gen);
        int hist = (h->present & GCEV_STATS_HEAP_HAS_HISTORY) != 0;
        int hs = HAS(g, GCEV_STATS_GC_HAS_HEAP_STATS);
#define GEN_CHECK(method, kind, flags, has, v)                                                               \
    check(c, w, method, kind, flags, AT(J(te, method), (size_t)gen), has, v)
        GEN_CHECK("SurvivalPercent", K_RATIO, 0, (h->present & GCEV_STATS_HEAP_HAS_SURVIVAL) != 0,
                  h->survival_percent);
        GEN_CHECK("GenSizeAfterMB", K_MB, 0, hs, (double)h->size_after);
        GEN_CHECK("GenFragmentationMB", K_MB, 0, hist, (double)h->frag_after);
        /* TraceEvent divides by a size after of 0 to Infinity: compat mode has it too (the
         * INFINITE bit), gcev's own mode omits the ratio (doc/stats.md) */
        const tj *fp = AT(J(te, "GenFragmentationPercent"), (size_t)gen);
        double te_fp = 0;
        int te_inf = num(fp, &te_fp) && isinf(te_fp);
        int fp_has = (h->present & GCEV_STATS_HEAP_HAS_FRAG_PERCENT) != 0;
        int fp_inf = (h->present & GCEV_STATS_HEAP_FRAG_PERCENT_INFINITE) != 0;
        c->te_infinities += te_inf;
        if (c->compat) {
            check(c, w, "GenFragmentationPercent", K_RATIO, F_INF, fp, fp_has || fp_inf,
                  fp_inf ? INFINITY : h->fragmentation_percent);
        } else if (te_inf) {
            agree(c, w, "GenFragmentationPercent", !fp_has && !fp_inf,
                  "gen %d: TraceEvent Infinity, gcev's own mode must omit it (present 0x%x)", gen,
                  h->present);
        } else {
            check(c, w, "GenFragmentationPercent", K_RATIO, 0, fp, fp_has, h->fragmentation_percent);
        }
        GEN_CHECK("GenInMB", K_MB, 0, hist, (double)h->in);
        GEN_CHECK("GenOutMB", K_MB, 0, hist, (double)h->out);
        /* GenPromotedMB reads HeapStats unconditionally (throws without: "exception:...") */
        GEN_CHECK("GenPromotedMB", K_MB, 0, hs, (double)h->promoted);
        GEN_CHECK("GenBudgetMB", K_MB, 0, hist, (double)h->budget);
        GEN_CHECK("GenObjSizeAfterMB", K_MB, 0, hist, (double)h->obj_size_after);
        GEN_CHECK("GenSizeBeforeMB", K_MB, F_ZERO, (h->present & GCEV_STATS_HEAP_HAS_SIZE_BEFORE) != 0,
                  (double)h->size_before);
        if (gen == 0 || gen >= 3) {
            GEN_CHECK("UserAllocated", K_MB, F_ZERO, (h->present & GCEV_STATS_HEAP_HAS_USER_ALLOCATED) != 0,
                      (double)h->user_allocated);
        } else {
            GEN_CHECK("UserAllocated", K_MB, F_ZERO, 0, 0); /* TraceEvent never sets gen1/gen2 */
        }
#undef GEN_CHECK
    }
}

static void check_heap_stats(ctx *c, const char *w, const tj *te, const gcev_stats *s, const gcev_stats_gc *g)
{
    const tj *hs = J(te, "HeapStats");
    int has = HAS(g, GCEV_STATS_GC_HAS_HEAP_STATS);
    int te_has = hs && hs->kind == TJ_OBJ;
    if (!agree(c, w, "HeapStats", te_has == has, "TraceEvent %s, gcev %s", te_has ? "present" : "null",
               has ? "present" : "absent") ||
        !has) {
        return;
    }
    static const char *const size_names[5] = {"GenerationSize0", "GenerationSize1", "GenerationSize2",
                                              "GenerationSize3", "GenerationSize4"};
    static const char *const prom_names[5] = {"TotalPromotedSize0", "TotalPromotedSize1",
                                              "TotalPromotedSize2", "TotalPromotedSize3",
                                              "TotalPromotedSize4"};
    for (int i = 0; i < 5; i++) {
        check_i(c, w, size_names[i], 0, J(hs, size_names[i]), 1,
                (int64_t)(gcev_stats_gc_gen_at(s, g, (unsigned)i)->size_after));
        check_i(c, w, prom_names[i], 0, J(hs, prom_names[i]), 1,
                (int64_t)(gcev_stats_gc_gen_at(s, g, (unsigned)i)->promoted));
    }
    check_i(c, w, "HeapStats.TotalHeapSize", 0, J(hs, "TotalHeapSize"), 1, (int64_t)(g->heap_size_after));
    check_i(c, w, "HeapStats.TotalPromoted", 0, J(hs, "TotalPromoted"), 1, (int64_t)(g->promoted_bytes));
    check_i(c, w, "FinalizationPromotedSize", 0, J(hs, "FinalizationPromotedSize"), 1,
            (int64_t)(g->finalization_promoted_size));
    check_i(c, w, "FinalizationPromotedCount", 0, J(hs, "FinalizationPromotedCount"), 1,
            (int64_t)(g->finalization_promoted_count));
    check_i(c, w, "PinnedObjectCount", 0, J(hs, "PinnedObjectCount"), 1, (int64_t)(g->pinned_objects));
    check_i(c, w, "SinkBlockCount", 0, J(hs, "SinkBlockCount"), 1, (int64_t)(g->sink_block_count));
    check_i(c, w, "GCHandleCount", 0, J(hs, "GCHandleCount"), 1, (int64_t)(g->gc_handle_count));
}

static void check_global(ctx *c, const char *w, const tj *te, const gcev_stats_gc *g)
{
    const tj *gh = J(te, "GlobalHeapHistory");
    int has = HAS(g, GCEV_STATS_GC_HAS_GLOBAL_HISTORY);
    int te_has = gh && gh->kind == TJ_OBJ;
    if (!agree(c, w, "GlobalHeapHistory", te_has == has, "TraceEvent %s, gcev %s",
               te_has ? "present" : "null", has ? "present" : "absent") ||
        !has) {
        return;
    }
    check_i(c, w, "FinalYoungestDesired", 0, J(gh, "FinalYoungestDesired"), 1,
            (int64_t)(g->final_youngest_desired));
    check_i(c, w, "NumHeaps", 0, J(gh, "NumHeaps"), HAS(g, GCEV_STATS_GC_HAS_HEAP_COUNT),
            (int64_t)(g->heap_count));
    check_i(c, w, "CondemnedGeneration", 0, J(gh, "CondemnedGeneration"), 1,
            (int64_t)(g->condemned_generation));
    check_i(c, w, "Gen0ReductionCount", 0, J(gh, "Gen0ReductionCount"), 1,
            (int64_t)(g->gen0_reduction_count));
    check_i(c, w, "GlobalHeapHistory.Reason", 0, J(gh, "Reason"), 1, (int64_t)(g->global_reason));
    check_i(c, w, "GlobalMechanisms", 0, J(gh, "GlobalMechanisms"), HAS(g, GCEV_STATS_GC_HAS_MECHANISMS),
            (int64_t)(g->global_mechanisms));
    int pm = HAS(g, GCEV_STATS_GC_HAS_PAUSE_MODE);
    check_i(c, w, "PauseMode", F_M1, J(gh, "PauseMode"), pm, (int64_t)(g->pause_mode));
    check_i(c, w, "MemoryPressure", F_M1, J(gh, "MemoryPressure"), pm, (int64_t)(g->memory_pressure));
    int cr = HAS(g, GCEV_STATS_GC_HAS_GLOBAL_CONDEMN);
    check_i(c, w, "GlobalHeapHistory.CondemnReasons0", F_M1, J(gh, "CondemnReasons0"), cr,
            (int64_t)((int32_t)g->global_condemn_reasons0));
    check_i(c, w, "GlobalHeapHistory.CondemnReasons1", F_M1, J(gh, "CondemnReasons1"), cr,
            (int64_t)((int32_t)g->global_condemn_reasons1));
    /* Times: Values in event order; gcev keeps Values[0] as mark_sized_ref and the rest as phases */
    const tj *times = J(gh, "Times");
    size_t nt = times && times->kind == TJ_ARR ? times->n : 0;
    for (size_t i = 0; i < nt; i++) {
        static const int slot_of[8] = {GCEV_STATS_PHASE_MARK_SIZED_REF,
                                       GCEV_STATS_PHASE_MARK_ROOT,
                                       GCEV_STATS_PHASE_MARK_SHORT_WEAK,
                                       GCEV_STATS_PHASE_MARK_SCAN_FINALIZATION,
                                       GCEV_STATS_PHASE_MARK_LONG_WEAK,
                                       GCEV_STATS_PHASE_PLAN,
                                       -1,
                                       GCEV_STATS_PHASE_COMPACT};
        int slot = i < 8 ? slot_of[i] : -1;
        if (i == 6) {
            slot = (g->global_mechanisms & 2) ? GCEV_STATS_PHASE_RELOCATE : GCEV_STATS_PHASE_SWEEP;
        }
        int has_t = slot >= 0 && (g->phase_present & (1u << slot));
        check_i(c, w, "GlobalHeapHistory.Times", 0, AT(times, i), has_t,
                (int64_t)(has_t ? g->phase_us[slot] : 0));
    }
    const tj *ti = J(te, "TimingInfo");
    for (int i = 0; i < 8; i++) {
        int has_t = (g->phase_present & (1u << i)) != 0;
        check_i(c, w, "TimingInfo", 0, AT(ti, (size_t)i), has_t, (int64_t)(g->phase_us[i]));
    }
}

static void check_groups(ctx *c, const char *w, const char *name, const tj *te_reasons, int has, uint32_t r0,
                         uint32_t r1, const uint8_t *groups)
{
    int te_has = te_reasons && te_reasons->kind == TJ_OBJ;
    if (!agree(c, w, name, te_has == has, "TraceEvent %s, gcev %s", te_has ? "present" : "null",
               has ? "present" : "absent") ||
        !has) {
        return;
    }
    const tj *enc = J(te_reasons, "EncodedReasons");
    check_i(c, w, "CondemnedReasons.Reasons", 0, J(enc, "Reasons"), 1, (int64_t)((int32_t)r0));
    check_i(c, w, "CondemnedReasons.ReasonsEx", 0, J(enc, "ReasonsEx"), 1, (int64_t)((int32_t)r1));
    char hex[2 * GCEV_STATS_CONDEMNED_GROUPS + 1];
    for (int i = 0; i < GCEV_STATS_CONDEMNED_GROUPS; i++) {
        snprintf(hex + 2 * i, 3, "%02x", groups[i]);
    }
    const tj *gh = J(te_reasons, "CondemnedReasonGroups");
    int same = gh && gh->kind == TJ_STR && !strcmp(gh->str, hex);
    agree(c, w, "CondemnedReasonGroups", same, "TraceEvent %s, gcev %s",
          gh && gh->kind == TJ_STR ? gh->str : "?", hex);
}

/* The GC's heap records with a history, in heap order (TraceEvent's list order when the
 * histories came in heap order, as the runtime logs them). */
static size_t heaps_with(const gcev_stats *s, const gcev_stats_gc *g, uint32_t bit,
                         const gcev_stats_heap **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < g->heaps && n < cap; i++) {
        const gcev_stats_heap *h = gcev_stats_gc_heap_at(s, g, i);
        if (h->present & bit) {
            out[n++] = h;
        }
    }
    return n;
}

static void check_per_heap(ctx *c, const char *w, const tj *te, const gcev_stats *s, const gcev_stats_gc *g)
{
    const gcev_stats_heap *hh[256];
    size_t n = heaps_with(s, g, GCEV_STATS_HEAPREC_HAS_HISTORY, hh, 256);
    const tj *list = J(te, "PerHeapHistories");
    size_t tn = tj_len(list);
    if (!agree(c, w, "PerHeapHistories.Count", tn == n, "TraceEvent %zu, gcev %zu", tn, n)) {
        return;
    }
    const tj *phc = J(te, "PerHeapCondemnedReasons");
    for (size_t i = 0; i < n; i++) {
        const tj *t = AT(list, i);
        const gcev_stats_heap *h = hh[i];
        check_i(c, w, "FreeListAllocated", F_M1, J(t, "FreeListAllocated"), 1,
                (int64_t)(h->free_list_allocated));
        check_i(c, w, "FreeListRejected", F_M1, J(t, "FreeListRejected"), 1,
                (int64_t)(h->free_list_rejected));
        check_i(c, w, "EndOfSegAllocated", F_M1, J(t, "EndOfSegAllocated"), 1,
                (int64_t)(h->end_of_seg_allocated));
        check_i(c, w, "CondemnedAllocated", F_M1, J(t, "CondemnedAllocated"), 1,
                (int64_t)(h->condemned_allocated));
        check_i(c, w, "PinnedAllocated", F_M1, J(t, "PinnedAllocated"), 1, (int64_t)(h->pinned_allocated));
        check_i(c, w, "PinnedAllocatedAdvance", F_M1, J(t, "PinnedAllocatedAdvance"), 1,
                (int64_t)(h->pinned_allocated_advance));
        check_i(c, w, "RunningFreeListEfficiency", F_M1, J(t, "RunningFreeListEfficiency"), 1,
                (int64_t)(h->running_free_list_efficiency));
        check_i(c, w, "CondemnReasons0", 0, J(t, "CondemnReasons0"), 1,
                (int64_t)((int32_t)h->condemn_reasons0));
        check_i(c, w, "CondemnReasons1", F_M1, J(t, "CondemnReasons1"), 1,
                (int64_t)((int32_t)h->condemn_reasons1));
        check_i(c, w, "CompactMechanisms", 0, J(t, "CompactMechanisms"), 1,
                (int64_t)(index_of_set_bit(h->compact_mechanisms, 11)));
        check_i(c, w, "ExpandMechanisms", 0, J(t, "ExpandMechanisms"), 1,
                (int64_t)(index_of_set_bit(h->expand_mechanisms, 6)));
        check_i(c, w, "ExtraGen0Commit", 0, J(t, "ExtraGen0Commit"), 1, (int64_t)(h->extra_gen0_commit));
        check_i(c, w, "MemoryPressure(heap)", F_M1, J(t, "MemoryPressure"), 0, (int64_t)(0));
        const tj *gd = J(t, "GenData");
        size_t ng = tj_len(gd);
        if (!agree(c, w, "GenData.Count", ng == h->generations, "TraceEvent %zu, gcev %u", ng,
                   h->generations)) {
            continue;
        }
        for (size_t k = 0; k < ng && k < GCEV_STATS_GENS; k++) {
            const tj *e = AT(gd, k);
            const gcev_stats_heap_gen *d = &h->gens[k];
            uint64_t osb = d->size_before - d->free_list_before - d->free_obj_before;
            uint64_t frag = d->free_list_after + d->free_obj_after;
            check_i(c, w, "GenData.SizeBefore", 0, J(e, "SizeBefore"), 1, (int64_t)(d->size_before));
            check_i(c, w, "GenData.SizeAfter", 0, J(e, "SizeAfter"), 1, (int64_t)(d->size_after));
            check_i(c, w, "GenData.ObjSpaceBefore", 0, J(e, "ObjSpaceBefore"), 1, (int64_t)(osb));
            check_i(c, w, "GenData.Fragmentation", 0, J(e, "Fragmentation"), 1, (int64_t)(frag));
            check_i(c, w, "GenData.ObjSizeAfter", 0, J(e, "ObjSizeAfter"), 1,
                    (int64_t)((d->size_after - frag)));
            check_i(c, w, "GenData.FreeListSpaceBefore", 0, J(e, "FreeListSpaceBefore"), 1,
                    (int64_t)(d->free_list_before));
            check_i(c, w, "GenData.FreeObjSpaceBefore", 0, J(e, "FreeObjSpaceBefore"), 1,
                    (int64_t)(d->free_obj_before));
            check_i(c, w, "GenData.FreeListSpaceAfter", 0, J(e, "FreeListSpaceAfter"), 1,
                    (int64_t)(d->free_list_after));
            check_i(c, w, "GenData.FreeObjSpaceAfter", 0, J(e, "FreeObjSpaceAfter"), 1,
                    (int64_t)(d->free_obj_after));
            check_i(c, w, "GenData.In", 0, J(e, "In"), 1, (int64_t)(d->in));
            check_i(c, w, "GenData.Out", 0, J(e, "Out"), 1, (int64_t)((d->pinned_surv + d->non_pinned_surv)));
            check_i(c, w, "GenData.Budget", 0, J(e, "Budget"), 1, (int64_t)(d->budget));
            check_i(c, w, "GenData.SurvRate", 0, J(e, "SurvRate"), 1, (int64_t)(d->surv_rate));
            check_i(c, w, "GenData.PinnedSurv", 0, J(e, "PinnedSurv"), 1, (int64_t)(d->pinned_surv));
            check_i(c, w, "GenData.NonePinnedSurv", 0, J(e, "NonePinnedSurv"), 1,
                    (int64_t)(d->non_pinned_surv));
        }
        check_groups(c, w, "PerHeapCondemnedReasons", AT(phc, i), 1, h->condemn_reasons0, h->condemn_reasons1,
                     h->condemned_groups);
    }
}

static void check_marks(ctx *c, const char *w, const tj *te, const gcev_stats *s, const gcev_stats_gc *g)
{
    const tj *pm = J(te, "PerHeapMarkTimes");
    const gcev_stats_heap *hh[256];
    size_t n = heaps_with(s, g, GCEV_STATS_HEAPREC_HAS_MARKS, hh, 256);
    size_t tn = tj_len(pm);
    if (!agree(c, w, "PerHeapMarkTimes.Count", tn == n, "TraceEvent %zu heaps, gcev %zu", tn, n)) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char key[16];
        snprintf(key, sizeof key, "%u", hh[i]->heap);
        const tj *mi = J(pm, key);
        const tj *times = J(mi, "MarkTimes"), *prom = J(mi, "MarkPromoted");
        for (int k = 0; k < GCEV_STATS_ROOT_KINDS; k++) {
            int has_t = (hh[i]->mark_present & (1u << k)) != 0;
            check(c, w, "MarkTimes", K_TIME, F_M1, AT(times, (size_t)k), has_t, hh[i]->mark_ms[k]);
            int has_p = (hh[i]->mark_promoted_present & (1u << k)) != 0;
            check_i(c, w, "MarkPromoted", F_M1, AT(prom, (size_t)k), has_p,
                    (int64_t)(hh[i]->mark_promoted[k]));
        }
    }
}

static void check_lists(ctx *c, const char *w, const tj *te, const gcev_stats *s, const gcev_stats_gc *g)
{
    /* LOHCompactInfos: one element per heap, in heap order */
    const gcev_stats_heap *hh[256];
    size_t n = heaps_with(s, g, GCEV_STATS_HEAPREC_HAS_LOH_COMPACT, hh, 256);
    const tj *lc = J(te, "LOHCompactInfos");
    size_t tn = tj_len(lc);
    if (agree(c, w, "LOHCompactInfos.Count", tn == n, "TraceEvent %zu, gcev %zu", tn, n)) {
        for (size_t i = 0; i < n; i++) {
            const tj *e = AT(lc, i);
            check_i(c, w, "LOHCompact.TimePlan", 0, J(e, "TimePlan"), 1, (int64_t)(hh[i]->loh_time_plan));
            check_i(c, w, "LOHCompact.TimeCompact", 0, J(e, "TimeCompact"), 1,
                    (int64_t)(hh[i]->loh_time_compact));
            check_i(c, w, "LOHCompact.TimeRelocate", 0, J(e, "TimeRelocate"), 1,
                    (int64_t)(hh[i]->loh_time_relocate));
            check_i(c, w, "LOHCompact.TotalRefs", 0, J(e, "TotalRefs"), 1, (int64_t)(hh[i]->loh_total_refs));
            check_i(c, w, "LOHCompact.ZeroRefs", 0, J(e, "ZeroRefs"), 1, (int64_t)(hh[i]->loh_zero_refs));
        }
    }
    /* fit buckets, by kind, in event order */
    static const char *const kinds[2] = {"LargestFreeListItemsBuckets", "PlugsInCondemnedBuckets"};
    for (uint32_t kind = 0; kind < 2; kind++) {
        const tj *bl = J(te, kinds[kind]);
        size_t bn = bl && bl->kind == TJ_ARR ? bl->n : 0, j = 0;
        for (size_t i = 0; i < g->fit_buckets; i++) {
            const gcev_stats_fit_bucket *b = gcev_stats_gc_fit_bucket_at(s, g, i);
            if (b->kind != kind) {
                continue;
            }
            const tj *e = AT(bl, j++);
            check_i(c, w, "FitBucket.Index", 0, J(e, "Index"), 1, (int64_t)(b->index));
            check_i(c, w, "FitBucket.Count", 0, J(e, "Count"), 1, (int64_t)(b->count));
            check_i(c, w, "FitBucket.Size", 0, J(e, "Size"), 1, (int64_t)(b->size));
        }
        agree(c, w, kinds[kind], j == bn, "TraceEvent %zu elements, gcev %zu", bn, j);
    }
    /* LOHWaitThreads: {thread: {WaitStartRelativeMSec, WaitStopRelativeMSec, Reason}} (0: not seen) */
    const tj *lw = J(te, "LOHWaitThreads");
    size_t wn = tj_len(lw);
    if (agree(c, w, "LOHWaitThreads.Count", wn == g->loh_waits, "TraceEvent %zu threads, gcev %u", wn,
              g->loh_waits)) {
        for (size_t i = 0; i < wn; i++) {
            const gcev_stats_loh_wait *x = gcev_stats_gc_loh_wait_at(s, g, i);
            char key[24];
            snprintf(key, sizeof key, "%llu", (unsigned long long)x->thread_id);
            const tj *e = J(lw, key);
            check(c, w, "WaitStartRelativeMSec", K_TIME, F_ZERO, J(e, "WaitStartRelativeMSec"), x->has_begin,
                  x->begin_ms);
            check(c, w, "WaitStopRelativeMSec", K_TIME, F_ZERO, J(e, "WaitStopRelativeMSec"), x->has_end,
                  x->end_ms);
            check_i(c, w, "LOHWait.Reason", F_ZERO, J(e, "Reason"), x->has_begin, (int64_t)(x->reason));
        }
    }
    /* BGCRevisitInfoArr[state][heap type] */
    const tj *rv = J(te, "BGCRevisitInfoArr");
    int rhas = HAS(g, GCEV_STATS_GC_HAS_BGC_REVISIT);
    for (int st = 0; st < 2; st++) {
        for (int ht = 0; ht < 2; ht++) {
            const tj *e = AT(AT(rv, (size_t)st), (size_t)ht);
            check_i(c, w, "PagesRevisited", 0, J(e, "PagesRevisited"), rhas,
                    (int64_t)(g->bgc_revisit_pages[st][ht]));
            check_i(c, w, "ObjectsRevisited", 0, J(e, "ObjectsRevisited"), rhas,
                    (int64_t)(g->bgc_revisit_objects[st][ht]));
        }
    }
    /* CommittedUsage */
    static const char *const cu_names[2] = {"CommittedUsageBefore", "CommittedUsageAfter"};
    for (int i = 0; i < 2; i++) {
        const tj *e = J(te, cu_names[i]);
        int has = HAS(g, i ? GCEV_STATS_GC_HAS_COMMITTED_AFTER : GCEV_STATS_GC_HAS_COMMITTED_BEFORE);
        const gcev_stats_committed *d = i ? &g->committed_after : &g->committed_before;
        check_i(c, w, "CommittedUsage.Version", 0, J(e, "Version"), has, (int64_t)(d->version));
        check_i(c, w, "TotalCommittedInUse", 0, J(e, "TotalCommittedInUse"), has, (int64_t)(d->in_use));
        check_i(c, w, "TotalCommittedInGlobalDecommit", 0, J(e, "TotalCommittedInGlobalDecommit"), has,
                (int64_t)(d->in_global_decommit));
        check_i(c, w, "TotalCommittedInFree", 0, J(e, "TotalCommittedInFree"), has, (int64_t)(d->in_free));
        check_i(c, w, "TotalCommittedInGlobalFree", 0, J(e, "TotalCommittedInGlobalFree"), has,
                (int64_t)(d->in_global_free));
        check_i(c, w, "TotalBookkeepingCommitted", 0, J(e, "TotalBookkeepingCommitted"), has,
                (int64_t)(d->bookkeeping));
    }
    size_t dn = tj_len(J(te, "DynamicEvents"));
    agree(c, w, "DynamicEvents.Count", dn == g->dynamic_events, "TraceEvent %zu, gcev %u", dn,
          g->dynamic_events);
}

static void check_gc(ctx *c, const gcev_stats *s, const tj *te, const gcev_stats_gc *g)
{
    char w[64];
    snprintf(w, sizeof w, "pid %u GC %u", g->process_id, g->number);
    int complete = (g->flags & GCEV_STATS_GC_COMPLETE) != 0;
    check_i(c, w, "Type", 0, J(te, "Type"), HAS(g, GCEV_STATS_GC_HAS_TYPE), (int64_t)(g->type));
    check_i(c, w, "Reason", 0, J(te, "Reason"), HAS(g, GCEV_STATS_GC_HAS_REASON), (int64_t)(g->reason));
    check_i(c, w, "Generation", 0, J(te, "Generation"), HAS(g, GCEV_STATS_GC_HAS_GENERATION),
            (int64_t)(g->generation));
    check_i(c, w, "IsComplete", 0, J(te, "IsComplete"), 1, (int64_t)(complete));
    char label[16];
    gcev_stats_gc_label(g, label, sizeof label);
    const tj *gn = J(te, "GCGenerationName");
    agree(c, w, "GCGenerationName", gn && gn->kind == TJ_STR && !strcmp(gn->str, label),
          "TraceEvent %s, gcev %s", gn && gn->kind == TJ_STR ? gn->str : "?", label);
    check(c, w, "StartRelativeMSec", K_TIME, 0, J(te, "StartRelativeMSec"), 1, g->start_ms);
    check(c, w, "DurationMSec", K_TIME, F_ZERO, J(te, "DurationMSec"), HAS(g, GCEV_STATS_GC_HAS_END),
          g->duration_ms);
    check(c, w, "PauseDurationMSec", K_TIME, F_ZERO, J(te, "PauseDurationMSec"),
          HAS(g, GCEV_STATS_GC_HAS_PAUSE), g->pause_ms);
    check(c, w, "SuspendDurationMSec", K_TIME, F_ZERO, J(te, "SuspendDurationMSec"),
          HAS(g, GCEV_STATS_GC_HAS_SUSPENSION), g->suspension_ms);
    check(c, w, "PauseStartRelativeMSec", K_TIME, F_ZERO, J(te, "PauseStartRelativeMSec"),
          HAS(g, GCEV_STATS_GC_HAS_PAUSE_START), g->pause_start_ms);
    check(c, w, "DurationSinceLastRestartMSec", K_TIME, F_ZERO, J(te, "DurationSinceLastRestartMSec"),
          HAS(g, GCEV_STATS_GC_HAS_SINCE_RESTART), g->since_last_restart_ms);
    check(c, w, "PauseTimePercentageSinceLastGC", K_RATIO, F_ZERO, J(te, "PauseTimePercentageSinceLastGC"),
          HAS(g, GCEV_STATS_GC_HAS_PAUSE_PERCENT), g->pause_time_percent);
    check(c, w, "BGCFinalPauseMSec", K_TIME, F_ZERO, J(te, "BGCFinalPauseMSec"),
          HAS(g, GCEV_STATS_GC_HAS_BGC_FINAL_PAUSE), g->bgc_final_pause_ms);
    check_i(c, w, "BGCCurrentPhase", F_ZERO, J(te, "BGCCurrentPhase"), HAS(g, GCEV_STATS_GC_HAS_BGC_PHASE),
            (int64_t)(g->bgc_phase));
    check(c, w, "HeapSizeBeforeMB", K_MB, F_ZERO, J(te, "HeapSizeBeforeMB"),
          HAS(g, GCEV_STATS_GC_HAS_SIZE_BEFORE), (double)g->heap_size_before);
    check(c, w, "HeapSizeAfterMB", K_MB, F_M1, J(te, "HeapSizeAfterMB"), HAS(g, GCEV_STATS_GC_HAS_SIZE_AFTER),
          (double)g->heap_size_after);
    check(c, w, "HeapSizePeakMB", K_MB, F_ZERO, J(te, "HeapSizePeakMB"), HAS(g, GCEV_STATS_GC_HAS_SIZE_PEAK),
          (double)g->heap_size_peak);
    check(c, w, "RatioPeakAfter", K_RATIO, F_ZERO, J(te, "RatioPeakAfter"),
          HAS(g, GCEV_STATS_GC_HAS_RATIO_PEAK_AFTER), g->ratio_peak_after);
    check(c, w, "PromotedMB", K_MB, F_M1, J(te, "PromotedMB"), HAS(g, GCEV_STATS_GC_HAS_HEAP_STATS),
          (double)g->promoted_bytes);
    check(c, w, "AllocedSinceLastGCMB", K_MB, F_ZERO, J(te, "AllocedSinceLastGCMB"),
          HAS(g, GCEV_STATS_GC_HAS_ALLOCATED_SINCE), (double)g->allocated_since_last_gc);
    check(c, w, "AllocRateMBSec", K_RATIO, F_ZERO, J(te, "AllocRateMBSec"),
          HAS(g, GCEV_STATS_GC_HAS_ALLOC_RATE), g->alloc_rate_mb_per_sec);
    for (int k = 0; k < 3; k++) {
        check(c, w, "AllocedSinceLastGCBasedOnAllocTickMB", K_MB, F_ZERO,
              AT(J(te, "AllocedSinceLastGCBasedOnAllocTickMB"), (size_t)k),
              HAS(g, GCEV_STATS_GC_HAS_ALLOC_TICKS), (double)g->alloc_tick_bytes[k]);
    }
    check_i(c, w, "GenerationCount", F_ZERO, J(te, "GenerationCount"),
            HAS(g, GCEV_STATS_GC_HAS_GENERATION_COUNT), (int64_t)(g->generation_count));
    check_i(c, w, "GetPinnedObjectSizes()", F_ZERO, J(te, "GetPinnedObjectSizes()"),
            HAS(g, GCEV_STATS_GC_HAS_PINNED_SIZES), (int64_t)(g->pinned_object_sizes));
    check_i(c, w, "GetPinnedObjectPercentage()", F_M1, J(te, "GetPinnedObjectPercentage()"),
            HAS(g, GCEV_STATS_GC_HAS_PINNED_PERCENT), (int64_t)(g->pinned_object_percent));
    check_i(c, w, "TotalPinnedPlugSize", F_ZERO | F_M1, J(te, "TotalPinnedPlugSize"),
            HAS(g, GCEV_STATS_GC_HAS_PINNED_PLUGS), (int64_t)(g->pinned_plug_size));
    check_i(c, w, "TotalUserPinnedPlugSize", F_ZERO | F_M1, J(te, "TotalUserPinnedPlugSize"),
            HAS(g, GCEV_STATS_GC_HAS_PINNED_PLUGS), (int64_t)(g->user_pinned_plug_size));
    int cond = HAS(g, GCEV_STATS_GC_HAS_CONDEMNED);
    const tj *ffh = J(te, "FindFirstHighestCondemnedHeap()");
    check_i(c, w, "FindFirstHighestCondemnedHeap()", 0, ffh && ffh->kind == TJ_NUM ? ffh : NULL, cond,
            (int64_t)(g->highest_condemned_heap));
    check_i(c, w, "IsLowEphemeral()", F_ZERO, J(te, "IsLowEphemeral()"), cond, (int64_t)(g->low_ephemeral));
    /* IsNotCompacting() returns whether GlobalMechanisms has Compaction (L2560), true without a
     * GlobalHeapHistory: gcev's compacting flag is that bit */
    if (HAS(g, GCEV_STATS_GC_HAS_MECHANISMS)) {
        check_i(c, w, "IsNotCompacting()", 0, J(te, "IsNotCompacting()"), 1,
                (int64_t)((g->global_mechanisms & 2) != 0));
    } else {
        check_i(c, w, "IsNotCompacting()", 0, J(te, "IsNotCompacting()"), 1, (int64_t)(1));
    }
    /* GetCondemnedReasons(): {"N:Name": 1} */
    const tj *gr = J(te, "GetCondemnedReasons()");
    uint32_t bits = 0;
    for (size_t i = 0; gr && gr->kind == TJ_OBJ && i < gr->n; i++) {
        bits |= 1u << (unsigned)atoi(gr->keys[i]);
    }
    uint32_t mine = cond ? g->condemned_reasons : 0;
    agree(c, w, "GetCondemnedReasons()", bits == mine, "TraceEvent 0x%x, gcev 0x%x", bits, mine);
    const tj *fl = J(te, "FreeList");
    int flv = fl && J(fl, "Valid") && J(fl, "Valid")->kind == TJ_BOOL && J(fl, "Valid")->boolean;
    if (!fl || fl->kind != TJ_OBJ) {
        /* null: OnEnd never ran (the GC never completed) */
        agree(c, w, "FreeList.Valid", !HAS(g, GCEV_STATS_GC_HAS_FREE_LIST), "TraceEvent null, gcev %g",
              g->free_list_allocated);
    } else {
        check_i(c, w, "FreeList.Valid", 0, J(fl, "Valid"), 1, (int64_t)(HAS(g, GCEV_STATS_GC_HAS_FREE_LIST)));
    }
    if (flv) { /* bytes, as doubles */
        check(c, w, "FreeList.Allocated", K_RATIO, 0, J(fl, "Allocated"), HAS(g, GCEV_STATS_GC_HAS_FREE_LIST),
              g->free_list_allocated);
        check(c, w, "FreeList.FreeListConsumed", K_RATIO, 0, J(fl, "FreeListConsumed"),
              HAS(g, GCEV_STATS_GC_HAS_FREE_LIST), g->free_list_consumed);
    }
    /* CPU: nothing in an EventPipe trace */
    check(c, w, "ProcessCpuMSec", K_TIME, F_ZERO, J(te, "ProcessCpuMSec"), 0, 0);
    check(c, w, "GCCpuMSec", K_TIME, F_ZERO, J(te, "GCCpuMSec"), 0, 0);
    check(c, w, "GetTotalGCTime()", K_TIME, F_ZERO, J(te, "GetTotalGCTime()"), 0, 0);
    check(c, w, "PercentTimeInGC", K_RATIO, 0, J(te, "PercentTimeInGC"), 0, 0);
    const tj *sh = J(te, "ServerGcHeapHistories");
    agree(c, w, "ServerGcHeapHistories", sh && sh->kind == TJ_ARR && sh->n == 0, "TraceEvent has %zu",
          tj_len(sh));
    check_gen_methods(c, w, te, s, g);
    check_heap_stats(c, w, te, s, g);
    check_global(c, w, te, g);
    check_groups(c, w, "GlobalCondemnedReasons", J(te, "GlobalCondemnedReasons"),
                 HAS(g, GCEV_STATS_GC_HAS_GLOBAL_CONDEMN), g->global_condemn_reasons0,
                 g->global_condemn_reasons1, g->global_condemned_groups);
    check_per_heap(c, w, te, s, g);
    check_marks(c, w, te, s, g);
    check_lists(c, w, te, s, g);
}

/*
 * The pin sizes on a complete GC, which TraceEvent erases (quirk PIN_ERASED), against the same
 * definition applied to TraceEvent's decode of the pin events: the events of the GC's time span
 * (not inside a GC nested in it), distinct objects by first report, plugs holding an object.
 */
typedef struct u64pair {
    uint64_t a, b;
    int mark;
} u64pair;

static void check_pins_from_events(ctx *c, const oracle *o, const gcev_stats *s, const gcev_stats_process *p,
                                   size_t j)
{
    const gcev_stats_gc *g = gcev_stats_process_gc_at(s, p, j);
    if (!(g->present & GCEV_STATS_GC_HAS_END) || !(g->flags & GCEV_STATS_GC_COMPLETE)) {
        return;
    }
    u64pair *objs = calloc(o->npins + 1, sizeof *objs), *plugs = calloc(o->npins + 1, sizeof *plugs);
    size_t no = 0, np = 0;
    for (size_t i = 0; i < o->npins; i++) {
        double ms;
        num(J(&o->pins[i], "ms"), &ms);
        if (ms < g->start_ms || ms > g->end_ms) {
            continue;
        }
        int nested = 0;
        for (size_t k = j + 1; k < p->gc_count && !nested; k++) {
            const gcev_stats_gc *n = gcev_stats_process_gc_at(s, p, k);
            nested = n->start_ms <= ms && (!(n->present & GCEV_STATS_GC_HAS_END) || n->end_ms >= ms);
        }
        if (nested) {
            continue;
        }
        const tj *f = J(&o->pins[i], "fields");
        if (J(f, "ObjectID")) {
            uint64_t id = (uint64_t)inum(J(f, "ObjectID")), size = (uint64_t)inum(J(f, "ObjectSize"));
            int dup = 0;
            for (size_t k = 0; k < no && !dup; k++) {
                dup = objs[k].a == id;
            }
            if (!dup) {
                objs[no].a = id;
                objs[no++].b = size;
            }
        } else {
            plugs[np].a = (uint64_t)inum(J(f, "PlugStart"));
            plugs[np++].b = (uint64_t)inum(J(f, "PlugEnd"));
        }
    }
    uint64_t sizes = 0, total = 0, user = 0;
    for (size_t k = 0; k < no; k++) {
        sizes += objs[k].b;
        for (size_t m = 0; m < np; m++) {
            if (objs[k].a >= plugs[m].a && objs[k].a < plugs[m].b) {
                plugs[m].mark = 1;
                break;
            }
        }
    }
    for (size_t m = 0; m < np; m++) {
        total += plugs[m].b - plugs[m].a;
        user += plugs[m].mark ? plugs[m].b - plugs[m].a : 0;
    }
    char w[64];
    snprintf(w, sizeof w, "pid %u GC %u", g->process_id, g->number);
    agree(c, w, "pins: object sizes (from events)", sizes == g->pinned_object_sizes, "events %llu, gcev %llu",
          (unsigned long long)sizes, (unsigned long long)g->pinned_object_sizes);
    agree(c, w, "pins: plug size (from events)", total == g->pinned_plug_size, "events %llu, gcev %llu",
          (unsigned long long)total, (unsigned long long)g->pinned_plug_size);
    agree(c, w, "pins: user plug size (from events)", user == g->user_pinned_plug_size,
          "events %llu, gcev %llu", (unsigned long long)user, (unsigned long long)g->user_pinned_plug_size);
    int has_pct = (g->present & GCEV_STATS_GC_HAS_PINNED_PERCENT) != 0;
    int pct = total ? (int)((double)sizes * 100.0 / (double)total) : -1;
    agree(c, w, "pins: percent (from events)", total ? has_pct && pct == g->pinned_object_percent : !has_pct,
          "events %d, gcev %d", pct, has_pct ? g->pinned_object_percent : -1);
    free(objs);
    free(plugs);
}

/* ---- GCStats ------------------------------------------------------------------------------ */

static void check_gcstats(ctx *c, const char *w, const tj *te, const gcev_stats_gcstats *st, int whole)
{
    int means = (st->present & GCEV_STATS_GCSTATS_HAS_MEANS) != 0;
    check_i(c, w, "Count", 0, J(te, "Count"), 1, (int64_t)(st->count));
    check_i(c, w, "NumInduced", 0, J(te, "NumInduced"), 1, (int64_t)(st->induced));
    check_i(c, w, "PinnedObjectSizes", 0, J(te, "PinnedObjectSizes"), 1, (int64_t)(st->pinned_object_sizes));
    check_i(c, w, "PinnedObjectPercentage", 0, J(te, "PinnedObjectPercentage"), 1,
            (int64_t)(st->pinned_object_percent));
    check_i(c, w, "NumWithPinEvents", 0, J(te, "NumWithPinEvents"), 1, (int64_t)(st->with_pin_events));
    check_i(c, w, "NumWithPinPlugEvents", 0, J(te, "NumWithPinPlugEvents"), 1,
            (int64_t)(st->with_pin_plug_events));
    check(c, w, "MaxPauseDurationMSec", K_TIME, 0, J(te, "MaxPauseDurationMSec"), 1, st->pause_max_ms);
    check(c, w, "TotalPauseTimeMSec", K_TIME, 0, J(te, "TotalPauseTimeMSec"), 1, st->pause_total_ms);
    check(c, w, "MeanPauseDurationMSec", K_TIME, 0, J(te, "MeanPauseDurationMSec"), means, st->pause_mean_ms);
    check(c, w, "MaxSuspendDurationMSec", K_TIME, 0, J(te, "MaxSuspendDurationMSec"), 1, st->suspend_max_ms);
    check(c, w, "MaxSizePeakMB", K_MB, 0, J(te, "MaxSizePeakMB"), 1, (double)st->size_peak_max);
    check(c, w, "TotalSizePeakMB", K_MB, 0, J(te, "TotalSizePeakMB"), 1, (double)st->size_peak_total);
    check(c, w, "TotalSizeAfterMB", K_MB, 0, J(te, "TotalSizeAfterMB"), 1, (double)st->size_after_total);
    check(c, w, "MeanSizePeakMB", K_RATIO, 0, J(te, "MeanSizePeakMB"), means, st->size_peak_mean / 1e6);
    check(c, w, "MeanSizeAfterMB", K_RATIO, 0, J(te, "MeanSizeAfterMB"), means, st->size_after_mean / 1e6);
    check(c, w, "MaxAllocRateMBSec", K_RATIO, 0, J(te, "MaxAllocRateMBSec"), 1, st->alloc_rate_max);
    check(c, w, "TotalAllocatedMB", K_MB, 0, J(te, "TotalAllocatedMB"), 1, (double)st->allocated_total);
    check(c, w, "TotalPromotedMB", K_MB, 0, J(te, "TotalPromotedMB"), 1, (double)st->promoted_total);
    check(c, w, "TotalCpuMSec", K_TIME, F_ZERO, J(te, "TotalCpuMSec"), 0, 0);
    check(c, w, "MeanCpuMSec", K_TIME, F_ZERO, J(te, "MeanCpuMSec"), 0, 0);
    if (!whole) {
        return;
    }
    int dur = (st->present & GCEV_STATS_GCSTATS_HAS_DURATION) != 0;
    check(c, w, "ProcessDuration", K_TIME, F_ZERO, J(te, "ProcessDuration"), dur, st->process_duration_ms);
    check(c, w, "GetGCPauseTimePercentage()", K_RATIO, F_ZERO, J(te, "GetGCPauseTimePercentage()"),
          dur && st->process_duration_ms != 0, st->pause_time_percent);
    check_i(c, w, "GCStats.HeapCount", F_M1, J(te, "HeapCount"),
            (st->present & GCEV_STATS_GCSTATS_HAS_HEAP_COUNT) != 0, (int64_t)(st->heap_count));
    check_i(c, w, "HasDetailedGCInfo", 0, J(te, "HasDetailedGCInfo"), 1, (int64_t)(st->has_detailed_gc_info));
    check_i(c, w, "GCVersionInfoMismatch", 0, J(te, "GCVersionInfoMismatch"), 1,
            (int64_t)(st->version_mismatch));
    check_i(c, w, "Interesting", 0, J(te, "Interesting"), 1, (int64_t)(st->count > 0));
    check_i(c, w, "IsServerGCUsed", F_M1, J(te, "IsServerGCUsed"), 0, (int64_t)(0));
    /* FinalizedObjects: {type name: count}; gcev counts FinalizeObject events */
    const tj *fo = J(te, "FinalizedObjects");
    double total = 0;
    for (size_t i = 0; fo && fo->kind == TJ_OBJ && i < fo->n; i++) {
        double v;
        if (num(&fo->items[i], &v)) {
            total += v;
        }
    }
    agree(c, w, "FinalizedObjects", total == (double)st->finalized_objects, "TraceEvent %.0f, gcev %llu",
          total, (unsigned long long)st->finalized_objects);
}

/* TraceEvent's Generations()[gen] from its own TraceGC records (TraceManagedProcess.cs L1680-1712). */
static void te_generation(const oracle *o, int64_t pid, int gen, tj *out, char bufs[][48])
{
    double v[16] = {0};
    enum {
        COUNT,
        INDUCED,
        PAUSE_TOTAL,
        PAUSE_MAX,
        SUSP_MAX,
        PEAK_MAX,
        PEAK_TOTAL,
        AFTER_TOTAL,
        ALLOC_TOTAL,
        PROM_TOTAL,
        RATE_MAX,
        PIN_SIZES,
        PIN_PCT,
        WITH_PIN,
        WITH_PLUG,
        NV
    };
    static const char *const names[NV] = {"Count",
                                          "NumInduced",
                                          "TotalPauseTimeMSec",
                                          "MaxPauseDurationMSec",
                                          "MaxSuspendDurationMSec",
                                          "MaxSizePeakMB",
                                          "TotalSizePeakMB",
                                          "TotalSizeAfterMB",
                                          "TotalAllocatedMB",
                                          "TotalPromotedMB",
                                          "MaxAllocRateMBSec",
                                          "PinnedObjectSizes",
                                          "PinnedObjectPercentage",
                                          "NumWithPinEvents",
                                          "NumWithPinPlugEvents"};
    for (size_t i = 0; i < o->ngcs; i++) {
        const tj *g = &o->gcs[i];
        double d;
        if (inum(J(g, "process")) != pid || inum(J(g, "Generation")) != gen || !J(g, "IsComplete") ||
            !J(g, "IsComplete")->boolean) {
            continue;
        }
        v[COUNT]++;
        int64_t reason = inum(J(g, "Reason"));
        v[INDUCED] += reason == 1 || reason == 7;
        num(J(g, "PauseDurationMSec"), &d);
        v[PAUSE_TOTAL] += d;
        v[PAUSE_MAX] = fmax(v[PAUSE_MAX], d);
        num(J(g, "SuspendDurationMSec"), &d);
        v[SUSP_MAX] = fmax(v[SUSP_MAX], d);
        num(J(g, "HeapSizePeakMB"), &d);
        v[PEAK_MAX] = fmax(v[PEAK_MAX], d);
        v[PEAK_TOTAL] += d;
        num(J(g, "HeapSizeAfterMB"), &d);
        v[AFTER_TOTAL] += d;
        num(J(g, "AllocedSinceLastGCMB"), &d);
        v[ALLOC_TOTAL] += d;
        num(J(g, "PromotedMB"), &d);
        v[PROM_TOTAL] += d;
        num(J(g, "AllocRateMBSec"), &d);
        v[RATE_MAX] = fmax(v[RATE_MAX], d);
        num(J(g, "GetPinnedObjectSizes()"), &d);
        if (d != 0) {
            v[PIN_SIZES] += d;
            v[WITH_PIN]++;
        }
        num(J(g, "GetPinnedObjectPercentage()"), &d);
        if (d != -1) {
            v[PIN_PCT] += d;
            v[WITH_PLUG]++;
        }
    }
    memset(out, 0, sizeof *out);
    out->kind = TJ_OBJ;
    out->n = NV + 3;
    out->keys = malloc(out->n * sizeof *out->keys);
    out->items = calloc(out->n, sizeof *out->items);
    for (int i = 0; i < NV; i++) {
        out->keys[i] = (char *)names[i];
        snprintf(bufs[i], 48, "%.17g", v[i]);
        out->items[i].kind = TJ_NUM;
        out->items[i].num = bufs[i];
    }
    static const char *const mean_names[3] = {"MeanPauseDurationMSec", "MeanSizePeakMB", "MeanSizeAfterMB"};
    const double means[3] = {v[PAUSE_TOTAL] / v[COUNT], v[PEAK_TOTAL] / v[COUNT], v[AFTER_TOTAL] / v[COUNT]};
    for (int i = 0; i < 3; i++) {
        out->keys[NV + i] = (char *)mean_names[i];
        snprintf(bufs[NV + i], 48, "%.17g", means[i]);
        out->items[NV + i].kind = v[COUNT] ? TJ_NUM : TJ_NULL;
        out->items[NV + i].num = bufs[NV + i];
    }
}

/* ---- one trace ------------------------------------------------------------------------------ */

static gcev_stats *analyse(const char *path, int compat)
{
    gcev_trace_options topts = {.struct_size = sizeof topts, .order = GCEV_TRACE_ORDER_TIME};
    gcev_trace *t = NULL;
    gcev_error err;
    if (gcev_trace_open_file(path, &topts, &t, &err) != GCEV_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return NULL;
    }
    gcev_stats_options o;
    memset(&o, 0, sizeof o);
    o.traceevent_compat = (uint32_t)compat;
    gcev_stats *s = NULL;
    assert_int_equal(gcev_stats_create(&o, &s), GCEV_OK);
    gcev_status st = gcev_stats_read_trace(s, t, NULL, NULL, &err);
    gcev_trace_close(t);
    if (st != GCEV_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        gcev_stats_free(s);
        return NULL;
    }
    return s;
}

static const gcev_stats_gc *find_gc(const gcev_stats *s, const gcev_stats_process *p, uint32_t number,
                                    size_t *index)
{
    for (size_t j = 0; j < p->gc_count; j++) {
        const gcev_stats_gc *g = gcev_stats_process_gc_at(s, p, j);
        if (g->number == number) {
            *index = j;
            return g;
        }
    }
    return NULL;
}

/* The quirks that may have changed GC j of p: its own, the previous GC's, and those of the GCs
 * that ran inside it (a BGC). */
static uint32_t quirks_near(const gcev_stats *s, const gcev_stats_process *p, size_t j)
{
    const gcev_stats_gc *g = gcev_stats_process_gc_at(s, p, j);
    uint32_t q = gcev_stats_gc_quirks(s, g);
    if (j > 0) {
        q |= gcev_stats_gc_quirks(s, gcev_stats_process_gc_at(s, p, j - 1));
    }
    for (size_t k = j + 1; k < p->gc_count; k++) {
        const gcev_stats_gc *n = gcev_stats_process_gc_at(s, p, k);
        if (!(n->present & GCEV_STATS_GC_HAS_NESTED_IN) || n->nested_in != g->number) {
            break;
        }
        q |= gcev_stats_gc_quirks(s, n);
    }
    return q;
}

static void compare_run(ctx *c, const gcev_stats *s, const oracle *o)
{
    /* the same processes and GCs */
    for (size_t i = 0; i < o->nstats; i++) {
        int64_t pid = inum(J(&o->stats[i], "process"));
        const gcev_stats_process *p = gcev_stats_process_find(s, (uint32_t)pid);
        if (!p) {
            /* TraceEvent lists a process for any CLR event; gcev for GC events */
            double cnt = 0;
            num(J(&o->stats[i], "Count"), &cnt);
            if (cnt != 0) {
                c->failures++;
                report(c, "process", "", "pid %lld has GCs in TraceEvent, none in gcev", (long long)pid);
            }
            continue;
        }
        uint32_t any_quirk = 0;
        for (size_t j = 0; j < p->gc_count; j++) {
            any_quirk |= gcev_stats_gc_quirks(s, gcev_stats_process_gc_at(s, p, j));
        }
        size_t te_count = 0;
        for (size_t k = 0; k < o->ngcs; k++) {
            const tj *te = &o->gcs[k];
            if (inum(J(te, "process")) != pid) {
                continue;
            }
            te_count++;
            size_t j = 0;
            const gcev_stats_gc *g = find_gc(s, p, (uint32_t)inum(J(te, "Number")), &j);
            if (!g) {
                c->failures++;
                report(c, "process", "Number", "TraceEvent's GC %lld of pid %lld is not in gcev",
                       (long long)inum(J(te, "Number")), (long long)pid);
                continue;
            }
            c->gcs_matched++;
            c->explain = quirks_near(s, p, j);
            c->quirks_seen |= c->explain;
            check_gc(c, s, te, g);
            if (!c->compat) {
                uint32_t keep = c->explain;
                c->explain = 0; /* an independent check: no correction excuses it */
                check_pins_from_events(c, o, s, p, j);
                c->explain = keep;
            }
        }
        for (size_t j = 0; j < p->gc_count; j++) {
            const gcev_stats_gc *g = gcev_stats_process_gc_at(s, p, j);
            int in_te = 0;
            for (size_t k = 0; k < o->ngcs && !in_te; k++) {
                in_te = inum(J(&o->gcs[k], "process")) == pid && inum(J(&o->gcs[k], "Number")) == g->number;
            }
            if (!in_te && (c->compat || !(gcev_stats_gc_quirks(s, g) & STATS_Q_NO_SUSPENSION))) {
                c->failures++;
                report(c, "process", "Number", "gcev's GC %u of pid %lld is not in TraceEvent", g->number,
                       (long long)pid);
            }
        }
        (void)te_count;
        c->explain = any_quirk;
        c->quirks_seen |= any_quirk;
        char w[48];
        snprintf(w, sizeof w, "pid %lld GCStats", (long long)pid);
        check_gcstats(c, w, &o->stats[i], gcev_stats_process_stats(s, p), 1);
        for (int gen = 0; gen < 3; gen++) {
            tj te_gen;
            char bufs[20][48];
            te_generation(o, pid, gen, &te_gen, bufs);
            snprintf(w, sizeof w, "pid %lld Generations()[%d]", (long long)pid, gen);
            check_gcstats(c, w, &te_gen, gcev_stats_process_gen_stats(s, p, gen), 0);
            free(te_gen.keys);
            free(te_gen.items);
        }
        c->explain = 0;
    }
}

/* ---- the CLI: gcev stats --format json (and csv) ------------------------------------------- */

/* gcev stats --format FORMAT [--compat traceevent] TRACE: its stdout, or NULL when it fails. */
static char *run_cli(const char *gcev, const char *format, const char *trace, int compat)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' stats --format %s %s '%s'", gcev, format,
             compat ? "--compat traceevent" : "", trace);
    FILE *p = popen(cmd, "r");
    if (!p) {
        return NULL;
    }
    size_t cap = 1 << 20, n = 0, r;
    char *buf = malloc(cap + 1);
    while (buf && (r = fread(buf + n, 1, cap - n, p)) > 0) {
        n += r;
        if (n == cap) {
            char *nb = realloc(buf, (cap *= 2) + 1);
            if (!nb) {
                free(buf);
            }
            buf = nb;
        }
    }
    int rc = pclose(p);
    if (buf) {
        buf[n] = '\0';
    }
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* A CLI value (3-decimal ms, exact integers) against the library's (has, v). */
static void cli_value(ctx *c, const char *w, const char *name, const tj *cli, int has, double v, int is_ms)
{
    double x = 0;
    int cli_has = num(cli, &x);
    int ok = cli_has == has && (!has || (is_ms ? fabs(x - v) <= 0.0005 + 1e-9 : x == v));
    if (!ok && cli && cli->kind == TJ_NUM && has && !is_ms) {
        ok = strtoull(cli->num, NULL, 10) == (unsigned long long)v; /* beyond 2^53 */
    }
    agree(c, w, name, ok, "CLI %s, library %s%.17g",
          cli_has ? (cli->kind == TJ_NUM ? cli->num : "?") : "absent", has ? "" : "absent ", has ? v : 0.0);
}

/*
 * gcev stats --format json (the CLI rounds times to 1 us): the same GCs as the library with the
 * same values, and in the compatibility mode TraceEvent's per-GC records (issue 10 item 4): the
 * same number, generation, type and reason; start, duration, pause and suspension within 1 us;
 * promoted bytes and heap sizes exact; a TraceEvent "absent" marker where the CLI omits the key.
 */
static void compare_cli(ctx *c, const gcev_stats *s, const oracle *o, const char *json)
{
    tj root;
    if (tj_parse(json, &root) != 0) {
        c->failures++;
        report(c, "CLI", "json", "does not parse");
        return;
    }
    const tj *gcs = J(&root, "gcs");
    double ver = 0;
    agree(c, "CLI", "json_version", num(J(&root, "json_version"), &ver) && ver == 4, "json_version %g", ver);
    agree(c, "CLI", "gcs.Count", tj_len(gcs) == gcev_stats_gc_count(s), "CLI %zu GCs, library %zu",
          tj_len(gcs), gcev_stats_gc_count(s));
    for (size_t i = 0; i < tj_len(gcs) && i < gcev_stats_gc_count(s); i++) {
        const tj *j = AT(gcs, i);
        const gcev_stats_gc *g = gcev_stats_gc_at(s, i);
        char w[64];
        snprintf(w, sizeof w, "CLI pid %u GC %u", g->process_id, g->number);
        cli_value(c, w, "cli.number", J(j, "number"), 1, g->number, 0);
        cli_value(c, w, "cli.process_id", J(j, "process_id"), 1, g->process_id, 0);
        cli_value(c, w, "cli.generation", J(j, "generation"), HAS(g, GCEV_STATS_GC_HAS_GENERATION),
                  g->generation, 0);
        cli_value(c, w, "cli.reason", J(j, "reason"), HAS(g, GCEV_STATS_GC_HAS_REASON), g->reason, 0);
        const tj *type = J(j, "type");
        const char *tn = HAS(g, GCEV_STATS_GC_HAS_TYPE) ? gcev_stats_gc_type_name(g->type) : NULL;
        agree(c, w, "cli.type", tn ? type && type->kind == TJ_STR && !strcmp(type->str, tn) : !type, "type");
        cli_value(c, w, "cli.start_ms", J(j, "start_ms"), 1, g->start_ms, 1);
        cli_value(c, w, "cli.duration_ms", J(j, "duration_ms"), HAS(g, GCEV_STATS_GC_HAS_END), g->duration_ms,
                  1);
        cli_value(c, w, "cli.pause_ms", J(j, "pause_ms"), HAS(g, GCEV_STATS_GC_HAS_PAUSE), g->pause_ms, 1);
        cli_value(c, w, "cli.suspension_ms", J(j, "suspension_ms"), HAS(g, GCEV_STATS_GC_HAS_SUSPENSION),
                  g->suspension_ms, 1);
        cli_value(c, w, "cli.pause_start_ms", J(j, "pause_start_ms"), HAS(g, GCEV_STATS_GC_HAS_PAUSE_START),
                  g->pause_start_ms, 1);
        cli_value(c, w, "cli.promoted_bytes", J(j, "promoted_bytes"), HAS(g, GCEV_STATS_GC_HAS_PROMOTED),
                  (double)g->promoted_bytes, 0);
        cli_value(c, w, "cli.heap_size_before", J(j, "heap_size_before"),
                  HAS(g, GCEV_STATS_GC_HAS_SIZE_BEFORE), (double)g->heap_size_before, 0);
        cli_value(c, w, "cli.heap_size_after", J(j, "heap_size_after"), HAS(g, GCEV_STATS_GC_HAS_SIZE_AFTER),
                  (double)g->heap_size_after, 0);
        cli_value(c, w, "cli.heap_size_peak", J(j, "heap_size_peak"), HAS(g, GCEV_STATS_GC_HAS_SIZE_PEAK),
                  (double)g->heap_size_peak, 0);
        const tj *heap = J(j, "heap");
        for (size_t k = 0; k < tj_len(heap); k++) {
            const tj *e = AT(heap, k);
            const tj *gen = J(e, "gen");
            unsigned gi = 0;
            while (gi < GCEV_STATS_GENS &&
                   !(gen && gen->kind == TJ_STR && !strcmp(gen->str, gcev_stats_gen_name(gi)))) {
                gi++;
            }
            if (gi == GCEV_STATS_GENS) {
                continue;
            }
            const gcev_stats_gen_heap *h = gcev_stats_gc_gen_at(s, g, gi);
            cli_value(c, w, "cli.heap.size_before", J(e, "size_before"),
                      (h->present & GCEV_STATS_HEAP_HAS_SIZE_BEFORE) != 0, (double)h->size_before, 0);
            cli_value(c, w, "cli.heap.size_after", J(e, "size_after"),
                      (h->present & GCEV_STATS_HEAP_HAS_SIZE_AFTER) != 0, (double)h->size_after, 0);
        }
        if (!c->compat) {
            continue;
        }
        /* the compatibility mode's CLI output against TraceEvent's own record of this GC */
        const tj *te = NULL;
        for (size_t k = 0; k < o->ngcs && !te; k++) {
            if (inum(J(&o->gcs[k], "process")) == g->process_id &&
                inum(J(&o->gcs[k], "Number")) == g->number) {
                te = &o->gcs[k];
            }
        }
        if (!agree(c, w, "cli.in_traceevent", te != NULL, "not in TraceEvent")) {
            continue;
        }
        double x;
        static const char *const tnames[3] = {"blocking", "background", "foreground"};
        int64_t tt = inum(J(te, "Type"));
        agree(c, w, "cli-te.type",
              tt >= 0 && tt < 3 && type && type->kind == TJ_STR && !strcmp(type->str, tnames[tt]),
              "TraceEvent %lld", (long long)tt);
        static const char *const ids[3][2] = {
            {"Number", "number"}, {"Generation", "generation"}, {"Reason", "reason"}};
        for (int k = 0; k < 3; k++) {
            int has_id = num(J(j, ids[k][1]), &x);
            check_i(c, w, ids[k][0], 0, J(te, ids[k][0]), has_id, (int64_t)x);
        }
        static const char *const times[4][2] = {{"StartRelativeMSec", "start_ms"},
                                                {"DurationMSec", "duration_ms"},
                                                {"PauseDurationMSec", "pause_ms"},
                                                {"SuspendDurationMSec", "suspension_ms"}};
        for (int k = 0; k < 4; k++) {
            int has = num(J(j, times[k][1]), &x);
            check(c, w, times[k][0], K_TIME, k ? F_ZERO : 0, J(te, times[k][0]), has, x);
        }
        int has = num(J(j, "promoted_bytes"), &x);
        check(c, w, "cli-te.PromotedMB", K_MB, F_M1, J(te, "PromotedMB"), has, x);
        static const char *const sizes[3][2] = {{"HeapSizeBeforeMB", "heap_size_before"},
                                                {"HeapSizeAfterMB", "heap_size_after"},
                                                {"HeapSizePeakMB", "heap_size_peak"}};
        for (int k = 0; k < 3; k++) {
            has = num(J(j, sizes[k][1]), &x);
            check(c, w, sizes[k][0], K_MB, F_M1 | F_ZERO, J(te, sizes[k][0]), has, x);
        }
        for (size_t k = 0; k < tj_len(heap); k++) {
            const tj *e = AT(heap, k);
            has = num(J(e, "size_after"), &x);
            check(c, w, "cli-te.GenSizeAfterMB", K_MB, 0, AT(J(te, "GenSizeAfterMB"), k), has, x);
            has = num(J(e, "size_before"), &x);
            check(c, w, "cli-te.GenSizeBeforeMB", K_MB, F_ZERO, AT(J(te, "GenSizeBeforeMB"), k), has, x);
        }
    }
    tj_free(&root);
}

/* TraceEvent's GenFragmentationPercent of generation gen of GC g is Infinity. */
static int te_frag_infinite(const oracle *o, const gcev_stats_gc *g, unsigned gen)
{
    for (size_t k = 0; k < o->ngcs; k++) {
        const tj *te = &o->gcs[k];
        double x = 0;
        if (inum(J(te, "process")) == g->process_id && inum(J(te, "Number")) == g->number) {
            return num(AT(J(te, "GenFragmentationPercent"), gen), &x) && isinf(x) && x > 0;
        }
    }
    return 0;
}

/*
 * fragmentation_percent in the CLI, text as printed (JSON: the value's text or string, NULL when
 * the key is absent; CSV: the cell, "" when empty), against the library and TraceEvent:
 * --compat traceevent gives TraceEvent's Infinity as the JSON string "Infinity" and the CSV cell
 * inf; gcev's own mode omits it (doc/stats.md); a finite ratio is the library's to %.10g.
 */
static void cli_frag(ctx *c, const char *w, const char *what, const oracle *o, const gcev_stats *s,
                     const gcev_stats_gc *g, unsigned gen, const tj *json, const char *cell)
{
    const gcev_stats_gen_heap *h = gcev_stats_gc_gen_at(s, g, gen);
    int lib_inf = (h->present & GCEV_STATS_HEAP_FRAG_PERCENT_INFINITE) != 0;
    int lib_has = (h->present & GCEV_STATS_HEAP_HAS_FRAG_PERCENT) != 0;
    int te_inf = te_frag_infinite(o, g, gen);
    const char *inf_text = json ? "Infinity" : "inf";
    const char *text = json            ? (json->kind == TJ_STR   ? json->str
                                          : json->kind == TJ_NUM ? json->num
                                                                 : "?")
                       : cell && *cell ? cell
                                       : NULL;
    int is_inf = text && !strcmp(text, inf_text) && (!json || json->kind == TJ_STR);
    c->cli_infinities += is_inf;
    int ok;
    if (te_inf) {
        ok = c->compat ? lib_inf && is_inf : !lib_inf && !lib_has && !text;
    } else if (lib_inf) {
        ok = 0; /* an Infinity TraceEvent does not have */
    } else if (lib_has) {
        double x = text && (!json || json->kind == TJ_NUM) ? strtod(text, NULL) : NAN;
        ok = fabs(x - h->fragmentation_percent) <= 1e-9 * fmax(1.0, fabs(h->fragmentation_percent));
    } else {
        ok = !text;
    }
    agree(c, w, what, ok, "gen %s: CLI %s, library %s%.17g, TraceEvent %s", gcev_stats_gen_name(gen),
          text ? text : "absent",
          lib_inf   ? "Infinity "
          : lib_has ? ""
                    : "absent ",
          h->fragmentation_percent, te_inf ? "Infinity" : "finite or absent");
}

/* gcev stats --format json: each GC's heap[].fragmentation_percent (cli_frag). */
static void compare_cli_frag_json(ctx *c, const gcev_stats *s, const oracle *o, const char *json)
{
    tj root;
    if (tj_parse(json, &root) != 0) {
        return; /* compare_cli reported it */
    }
    const tj *gcs = J(&root, "gcs");
    for (size_t i = 0; i < tj_len(gcs) && i < gcev_stats_gc_count(s); i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(s, i);
        const tj *heap = J(AT(gcs, i), "heap");
        char w[64];
        snprintf(w, sizeof w, "CLI pid %u GC %u", g->process_id, g->number);
        for (size_t k = 0; k < tj_len(heap); k++) {
            const tj *e = AT(heap, k), *gen = J(e, "gen");
            for (unsigned gi = 0; gi < GCEV_STATS_GENS; gi++) {
                if (gen && gen->kind == TJ_STR && !strcmp(gen->str, gcev_stats_gen_name(gi))) {
                    cli_frag(c, w, "cli.json.fragmentation_percent", o, s, g, gi,
                             J(e, "fragmentation_percent"), NULL);
                }
            }
        }
    }
    tj_free(&root);
}

/* Splits a CSV line (no quoted cells in the generations table) in place: its cell count. */
static size_t csv_cells(char *line, char **cells, size_t cap)
{
    size_t n = 0;
    for (char *p = line; n < cap;) {
        cells[n++] = p;
        p = strchr(p, ',');
        if (!p) {
            break;
        }
        *p++ = '\0';
    }
    return n;
}

/* gcev stats --format csv --table generations: each row's fragmentation_percent (cli_frag). */
static void compare_cli_frag_csv(ctx *c, const gcev_stats *s, const oracle *o, char *csv)
{
    enum { MAXC = 64 };
    char *cells[MAXC], *save = NULL;
    char *line = strtok_r(csv, "\r\n", &save);
    size_t nh = line ? csv_cells(line, cells, MAXC) : 0;
    int ipid = -1, igc = -1, igen = -1, ifp = -1;
    for (size_t i = 0; i < nh; i++) {
        ipid = !strcmp(cells[i], "process_id") ? (int)i : ipid;
        igc = !strcmp(cells[i], "gc") ? (int)i : igc;
        igen = !strcmp(cells[i], "gen") ? (int)i : igen;
        ifp = !strcmp(cells[i], "fragmentation_percent") ? (int)i : ifp;
    }
    if (!agree(c, "CLI csv", "cli.csv.header", ipid >= 0 && igc >= 0 && igen >= 0 && ifp >= 0,
               "no process_id, gc, gen, fragmentation_percent columns")) {
        return;
    }
    size_t rows = 0;
    while ((line = strtok_r(NULL, "\r\n", &save)) != NULL) {
        rows++;
        if (!agree(c, "CLI csv", "cli.csv.cells", csv_cells(line, cells, MAXC) == nh, "row %zu", rows)) {
            continue;
        }
        const gcev_stats_process *p = gcev_stats_process_find(s, (uint32_t)strtoul(cells[ipid], NULL, 10));
        size_t j;
        const gcev_stats_gc *g = p ? find_gc(s, p, (uint32_t)strtoul(cells[igc], NULL, 10), &j) : NULL;
        unsigned gi = 0;
        while (gi < GCEV_STATS_GENS && strcmp(cells[igen], gcev_stats_gen_name(gi))) {
            gi++;
        }
        if (!agree(c, "CLI csv", "cli.csv.row", g && gi < GCEV_STATS_GENS,
                   "pid %s GC %s %s not in the library", cells[ipid], cells[igc], cells[igen])) {
            continue;
        }
        char w[64];
        snprintf(w, sizeof w, "CLI csv pid %u GC %u", g->process_id, g->number);
        cli_frag(c, w, "cli.csv.fragmentation_percent", o, s, g, gi, NULL, cells[ifp]);
    }
}

static int g_argc;
static char **g_argv;

static void print_counts(const ctx *c)
{
    long cmp = 0, eq = 0, corr = 0;
    for (int i = 0; i < c->nm; i++) {
        cmp += c->m[i].compared;
        eq += c->m[i].equal;
        corr += c->m[i].differ_corrected;
    }
    printf("%s [%s]: %ld GCs, %d members, %ld values compared, %ld equal, %ld differ where gcev corrects "
           "TraceEvent (quirks 0x%x), %ld failures\n",
           c->trace, c->compat ? "compat" : "normal", c->gcs_matched, c->nm, cmp, eq, corr, c->quirks_seen,
           c->failures);
    for (int i = 0; i < c->nm && !c->compat; i++) {
        if (c->m[i].differ_corrected) {
            printf("    %-36s %ld of %ld differ (corrections)\n", c->m[i].name, c->m[i].differ_corrected,
                   c->m[i].compared);
        }
    }
}

static void test_against_traceevent(void **state)
{
    (void)state;
    long failures = 0;
    for (int a = 1; a + 1 < g_argc; a += 2) {
        oracle o;
        assert_int_equal(load_oracle(g_argv[a + 1], &o), 0);
        for (int compat = 1; compat >= 0; compat--) {
            gcev_stats *s = analyse(g_argv[a], compat);
            assert_non_null(s);
            ctx *c = calloc(1, sizeof *c);
            c->trace = g_argv[a];
            c->compat = compat;
            compare_run(c, s, &o);
            const char *cli = getenv("GCEV_CLI");
            if (cli && *cli) {
                char *json = run_cli(cli, "json", g_argv[a], compat);
                char *csv = run_cli(cli, "csv --table generations", g_argv[a], compat);
                uint32_t keep = c->explain;
                c->explain = 0;
                if (agree(c, "CLI", "gcev stats --format json", json != NULL, "%s failed", cli)) {
                    compare_cli(c, s, &o, json);
                    compare_cli_frag_json(c, s, &o, json);
                }
                if (agree(c, "CLI", "gcev stats --format csv", csv != NULL, "%s failed", cli)) {
                    compare_cli_frag_csv(c, s, &o, csv);
                }
                c->explain = keep;
                free(json);
                free(csv);
            }
            const stats_scenario *sc = stats_scenario_find(g_argv[a]);
            if (sc && !compat && (c->quirks_seen & sc->quirks) != sc->quirks) {
                /* the synthetic trace no longer shows what it was made for */
                report(c, "trace", sc->name, "quirks 0x%x seen, 0x%x expected", c->quirks_seen, sc->quirks);
                c->failures++;
            }
            if (sc && sc->frag_infinity) {
                /* TraceEvent's Infinity is there, and compat mode's JSON and CSV print it
                 * (cli_frag: as "Infinity" and inf, each where TraceEvent has it) */
                int cli_ok = !cli || !*cli || (compat ? c->cli_infinities >= 2 : c->cli_infinities == 0);
                if (c->te_infinities == 0 || !cli_ok) {
                    report(c, "trace", sc->name,
                           "%ld infinite GenFragmentationPercent in TraceEvent, %ld in the CLI",
                           c->te_infinities, c->cli_infinities);
                    c->failures++;
                }
            }
            print_counts(c);
            failures += c->failures;
            free(c);
            gcev_stats_free(s);
        }
        free_oracle(&o);
    }
    assert_int_equal(failures, 0);
}

int main(int argc, char **argv)
{
    g_argc = argc;
    g_argv = argv;
    if (argc < 3 || argc % 2 == 0) {
        fprintf(stderr, "usage: %s TRACE ORACLE.jsonl [TRACE ORACLE.jsonl ...]\n", argv[0]);
        return 2;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_against_traceevent)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
