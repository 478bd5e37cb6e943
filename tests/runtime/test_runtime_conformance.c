/* SPDX-License-Identifier: MIT */
/*
 * Real-runtime conformance (issue 10 item 4): for each trace given, gcev's decode (public API:
 * gcev_trace_open_file, gcev_trace_next, gcev_decode, gcev_field_iter) against TraceEvent
 * 4.0.0's, as tests/runtime/oracle wrote it in TRACE's sibling NAME.oracle.jsonl:
 *
 * - the same GC events: per (provider, id, version) the same count, and event by event (both
 *   sides sorted by timestamp) the same provider, id, version, QPC timestamp, thread and size;
 * - every field of every event equal: each gcev field (struct array elements included) has
 *   TraceEvent's value under the same name, or under the name the table `renames` gives;
 *   every TraceEvent value is used by some gcev field, or is in the table `derived` (checked
 *   by recomputing it from gcev's fields as TraceEvent does), or is TraceEvent's presence flag
 *   Has<X>, or is TraceEvent's placeholder for a field this version lacks (null, or its default
 *   0/false/"" for a field another version of the event has). Nothing else is mapped or skipped.
 *   Integers compare as the bit pattern of the field's own wire width (TraceEvent reads UInt32
 *   fields with GetInt32At, so 4294967295 is -1 there); doubles exactly;
 * - the same lost-event count (gcev's sequence gaps = TraceEvent's EventsLost);
 * - the configuration took effect: NAME.capture.json's "expect" (server or workstation, heap
 *   count, GC latency mode as GCGlobalHeapHistory PauseMode, DATAS dynamic events, segments).
 *
 *   test_runtime_conformance TRACE.nettrace...
 *
 * A perfcollect TRACE.trace.zip (CTF) works the same way with TRACE.trace.zip.oracle.jsonl: its
 * timestamps are held to TraceEvent's up to one constant, the trace clock's offset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev.h>
#include <gcev/gcev_trace.h>

#include "oracle_json.h"
#include "testutil.h"

/* ------------------------------------------------------------------------ */
/* What TraceEvent names or computes differently (each with its source)      */
/* ------------------------------------------------------------------------ */

/*
 * TraceEvent sources are microsoft/perfview src/TraceEvent/Parsers/ClrTraceEventParser.cs
 * (CLR), ClrPrivateTraceEventParser.cs (PRIV) at the lines given (perfview commit f3ec1b38,
 * whose code these traces show TraceEvent 4.0.0 runs).
 */
typedef struct rename_row {
    const char *family; /* gcev family name; NULL: any */
    const char *array;  /* gcev struct-array field the element belongs to; NULL: top level */
    const char *gcev;   /* manifest name */
    const char *te;     /* TraceEvent's */
    const char *source;
} rename_row;

static const rename_row renames[] = {
    /* struct arrays: TraceEvent's typed accessor for the manifest's Values */
    {"GCPerHeapHistory", NULL, "Values", "GenData", "CLR:6243 GCPerHeapHistoryTraceData.GenData(Gens)"},
    {"GCLOHCompact", NULL, "Values", "Info", "CLR:2973 GCLOHCompactTraceData.Info(int)"},
    {"GCFitBucketInfo", NULL, "Values", "Buckets", "CLR:3146 GCFitBucketInfoTraceData.Buckets(int)"},
    {"GCGlobalHeapHistory", NULL, "Values", "Times", "CLR:7216 GCGlobalHeapHistoryTraceData.Times (int[])"},
    /* GCPerHeapHistory_V3 per-generation data (GCPerHeapHistoryGenData, CLR:6701-7030) */
    {"GCPerHeapHistory", "Values", "FreeListBefore", "FreeListSpaceBefore",
     "CLR:6809 FreeListSpaceBefore = m_genDataArray[1]"},
    {"GCPerHeapHistory", "Values", "FreeObjBefore", "FreeObjSpaceBefore",
     "CLR:6833 FreeObjSpaceBefore = m_genDataArray[2]"},
    {"GCPerHeapHistory", "Values", "FreeListAfter", "FreeListSpaceAfter",
     "CLR:6856 FreeListSpaceAfter = m_genDataArray[4]"},
    {"GCPerHeapHistory", "Values", "FreeObjAfter", "FreeObjSpaceAfter",
     "CLR:6879 FreeObjSpaceAfter = m_genDataArray[5]"},
    {"GCPerHeapHistory", "Values", "NewAllocation", "Budget", "CLR:6958 Budget = m_genDataArray[9] (V3)"},
    {"GCMarkWithType", NULL, "Bytes", "Promoted", "CLR:5518 GCMarkWithTypeTraceData.Promoted"},
    {"GCJoin", NULL, "JoinID", "ID", "CLR:7427 GCJoinTraceData PayloadNames \"ID\" (GCID)"},
    {"GCBulkEdge", "Values", "Value", "Target", "CLR:5019 GCBulkEdgeValues.Target"},
    {"GCBulkEdge", "Values", "ReferencingFieldID", "ReferencingField",
     "CLR:5020 GCBulkEdgeValues.ReferencingField"},
    /* BulkType elements (GCBulkTypeValues, CLR:4433-4490) */
    {"BulkType", "Values", "Name", "TypeName", "CLR:4457 GCBulkTypeValues.TypeName"},
    {"BulkType", "Values", "TypeParameters", "TypeParameterID",
     "CLR:4473 GCBulkTypeValues.TypeParameterID(int)"},
};

struct gview;
typedef int (*derive_fn)(const struct gview *g, const tj *te_obj, const tj *te_value, char *why, size_t n);

typedef struct derived_row {
    const char *family;
    const char *array;
    const char *te;
    derive_fn check;
    const char *source;
} derived_row;

/* The provider's name (public API: gcev_provider_get_info). */
static const char *pname(const gcev_provider *p)
{
    gcev_provider_info pi;
    return gcev_provider_get_info(p, &pi) == GCEV_OK ? pi.name : "";
}

/* ---- gcev values of one event or element, by name ---- */
typedef struct gfield {
    gcev_field f;
    int used;
} gfield;

typedef struct gview {
    gfield *fields;
    size_t n;
    uint8_t pointer_size;
    const struct gview *parent; /* the event, for an element */
} gview;

static const gcev_field *gv_get(const gview *g, const char *name)
{
    for (size_t i = 0; i < g->n; i++) {
        if (!strcmp(g->fields[i].f.name, name)) {
            return &g->fields[i].f;
        }
    }
    return NULL;
}

static int gv_u64(const gview *g, const char *name, uint64_t *out)
{
    const gcev_field *f = gv_get(g, name);
    if (!f) {
        return -1;
    }
    *out = f->v.u;
    return 0;
}

static int te_i64(const tj *v, int64_t *out)
{
    if (v && v->kind == TJ_NUM) {
        return oracle_num_i64(v, out);
    }
    return -1;
}

#define WHY(...) (snprintf(why, n, __VA_ARGS__), -1)

/* GCPerHeapHistoryGenData (CLR:6701-7030), version 3 of the per-heap history. */
static int d_obj_space_before(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)o;
    uint64_t sb, fl, fo;
    int64_t te;
    if (gv_u64(g, "SizeBefore", &sb) || gv_u64(g, "FreeListBefore", &fl) || gv_u64(g, "FreeObjBefore", &fo) ||
        te_i64(v, &te)) {
        return WHY("ObjSpaceBefore: inputs missing");
    }
    int64_t want =
        (int64_t)(sb - fl - fo); /* CLR:6746 SizeBefore - FreeListSpaceBefore - FreeObjSpaceBefore */
    return te == want ? 0 : WHY("ObjSpaceBefore %lld, gcev gives %lld", (long long)te, (long long)want);
}

static int d_fragmentation(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)o;
    uint64_t fl, fo;
    int64_t te;
    if (gv_u64(g, "FreeListAfter", &fl) || gv_u64(g, "FreeObjAfter", &fo) || te_i64(v, &te)) {
        return WHY("Fragmentation: inputs missing");
    }
    int64_t want = (int64_t)(fl + fo); /* CLR:6769 FreeListSpaceAfter + FreeObjSpaceAfter */
    return te == want ? 0 : WHY("Fragmentation %lld, gcev gives %lld", (long long)te, (long long)want);
}

static int d_obj_size_after(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)o;
    uint64_t sa, fl, fo;
    int64_t te;
    if (gv_u64(g, "SizeAfter", &sa) || gv_u64(g, "FreeListAfter", &fl) || gv_u64(g, "FreeObjAfter", &fo) ||
        te_i64(v, &te)) {
        return WHY("ObjSizeAfter: inputs missing");
    }
    int64_t want = (int64_t)(sa - (fl + fo)); /* CLR:6795 SizeAfter - Fragmentation */
    return te == want ? 0 : WHY("ObjSizeAfter %lld, gcev gives %lld", (long long)te, (long long)want);
}

static int d_out(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)o;
    uint64_t ps, nps;
    int64_t te;
    if (gv_u64(g, "PinnedSurv", &ps) || gv_u64(g, "NonePinnedSurv", &nps) || te_i64(v, &te)) {
        return WHY("Out: inputs missing");
    }
    int64_t want = (int64_t)(ps + nps); /* CLR:6928 PinnedSurv + NonePinnedSurv (version >= 3) */
    return te == want ? 0 : WHY("Out %lld, gcev gives %lld", (long long)te, (long long)want);
}

static int d_surv_rate(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)o;
    uint64_t sb, fl, fo, ps, nps;
    int64_t te;
    if (gv_u64(g, "SizeBefore", &sb) || gv_u64(g, "FreeListBefore", &fl) || gv_u64(g, "FreeObjBefore", &fo) ||
        gv_u64(g, "PinnedSurv", &ps) || gv_u64(g, "NonePinnedSurv", &nps) || te_i64(v, &te)) {
        return WHY("SurvRate: inputs missing");
    }
    /* CLR:6988-7010: 0 when ObjSpaceBefore is 0, else (long)((double)Out * 100.0 / ObjSpaceBefore) */
    long long obj = (long long)(sb - fl - fo);
    long long out = (long long)(ps + nps);
    long long want = obj == 0 ? 0 : (long long)((double)out * 100.0 / (double)obj);
    return te == want ? 0 : WHY("SurvRate %lld, gcev gives %lld", (long long)te, want);
}

/*
 * GCPerHeapHistoryTraceData.CompactMechanisms / ExpandMechanisms (CLR:6033-6088):
 * IndexOfSetBit(raw, count, not_specified) (CLR:6352): the index of the lowest set bit when
 * below count, else not_specified. The enums: gc_heap_compact_reason max_compact_reasons_count
 * = 11, not_specified = 1024 (CLR:5625-5626); gc_heap_expand_mechanism
 * max_expand_mechanisms_count = 6, not_specified = 1024 (CLR:5609-5610).
 */
static int index_of_set_bit(uint32_t raw, int count, int not_specified)
{
    if (raw == 0) {
        return not_specified;
    }
    int index = 0;
    while (!(raw & 1)) {
        raw >>= 1;
        index++;
    }
    return index < count ? index : not_specified;
}

static int d_mechanism(const gview *g, const char *name, int count, const tj *v, char *why, size_t n)
{
    uint64_t raw;
    int64_t te;
    if (gv_u64(g, name, &raw) || te_i64(v, &te)) {
        return WHY("%s: inputs missing", name);
    }
    int want = index_of_set_bit((uint32_t)raw, count, 1024);
    return te == want ? 0
                      : WHY("%s %lld, IndexOfSetBit(gcev's %llu) = %d", name, (long long)te,
                            (unsigned long long)raw, want);
}

static int d_compact(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)o;
    return d_mechanism(g, "CompactMechanisms", 11, v, why, n);
}

static int d_expand(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)o;
    return d_mechanism(g, "ExpandMechanisms", 6, v, why, n);
}

/* GCPerHeapHistoryTraceData.HeapIndex (CLR:6113-6158): GetInt32At(HostOffset(46, 6)), 0 when negative. */
static int d_heap_index(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)o;
    uint64_t raw;
    int64_t te;
    if (gv_u64(g, "HeapIndex", &raw) || te_i64(v, &te)) {
        return WHY("HeapIndex: inputs missing");
    }
    int64_t want = (int32_t)(uint32_t)raw < 0 ? 0 : (int64_t)(int32_t)(uint32_t)raw;
    return te == want ? 0
                      : WHY("HeapIndex %lld, from gcev's %llu %lld", (long long)te, (unsigned long long)raw,
                            (long long)want);
}

/* BulkType's PayloadNames add TypeID_0 / TypeName_0: element 0's values, 0 when Count is 0 (CLR:4354-4382).
 */
static const gview *g_first_elem; /* element 0 of the event's struct array, while checking the event */
static gview g_first;             /* its storage (fields freed per event) */

static int d_type_id_0(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)g;
    (void)o;
    uint64_t want = 0, te;
    if (g_first_elem && gv_u64(g_first_elem, "TypeID", &want)) {
        return WHY("TypeID_0: element 0 has no TypeID");
    }
    if (oracle_num_u64(v, &te)) {
        return WHY("TypeID_0 not a number");
    }
    return te == want
               ? 0
               : WHY("TypeID_0 %llu, gcev element 0 %llu", (unsigned long long)te, (unsigned long long)want);
}

static int d_type_name_0(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)g;
    (void)o;
    if (!g_first_elem) {
        return v->kind == TJ_NUM && !strcmp(v->num, "0") ? 0 : WHY("TypeName_0 with no element");
    }
    const gcev_field *f = gv_get(g_first_elem, "Name");
    if (!f || v->kind != TJ_STR) {
        return WHY("TypeName_0: no name");
    }
    char buf[4096];
    gcev_utf16_to_utf8(f->v.str, buf, sizeof buf);
    return !strcmp(buf, v->str) ? 0 : WHY("TypeName_0 \"%s\", gcev \"%s\"", v->str, buf);
}

/* GCHeapStatsTraceData (CLR:3459-3481): sums over GenerationSize0..4 / TotalPromotedSize0..4, and Depth. */
static int sum_fields(const gview *g, const char *prefix, uint64_t *out)
{
    *out = 0;
    char name[64];
    for (int i = 0; i <= 4; i++) {
        snprintf(name, sizeof name, "%s%d", prefix, i);
        uint64_t v;
        if (gv_u64(g, name, &v) == 0) { /* GenerationSize4 / TotalPromotedSize4 exist from V2 on (0 before) */
            *out += v;
        }
    }
    return 0;
}

static int d_total_heap_size(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)o;
    uint64_t want;
    int64_t te;
    sum_fields(g, "GenerationSize", &want);
    if (te_i64(v, &te)) {
        return WHY("TotalHeapSize not a number");
    }
    return (uint64_t)te == want
               ? 0
               : WHY("TotalHeapSize %lld, gcev's sum %llu", (long long)te, (unsigned long long)want);
}

static int d_total_promoted(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)o;
    uint64_t want;
    int64_t te;
    sum_fields(g, "TotalPromotedSize", &want);
    if (te_i64(v, &te)) {
        return WHY("TotalPromoted not a number");
    }
    return (uint64_t)te == want
               ? 0
               : WHY("TotalPromoted %lld, gcev's sum %llu", (long long)te, (unsigned long long)want);
}

static int d_heap_stats_depth(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)o;
    uint64_t p1 = 0, p2 = 0;
    int64_t te;
    if (gv_u64(g, "TotalPromotedSize1", &p1) || gv_u64(g, "TotalPromotedSize2", &p2) || te_i64(v, &te)) {
        return WHY("Depth: inputs missing");
    }
    int64_t want = p2 ? 2 : p1 ? 1 : 0; /* CLR:3465-3481 */
    return te == want ? 0
                      : WHY("Depth %lld, from gcev's promoted sizes %lld", (long long)te, (long long)want);
}

/*
 * FinalizeObjectTraceData.TypeName (CLR:7467): not in the payload, TraceEvent's
 * state.TypeIDToName(ProcessID, TypeID, TimeStampQPC), the name an earlier BulkType event
 * gave that TypeID, "" when none did. Checked against the BulkType names gcev decoded in the
 * same trace: "" or the name BulkType gives the TypeID.
 */
typedef struct type_name {
    uint64_t id;
    char *name;
} type_name;
static type_name *g_types;
static size_t g_ntypes;
static unsigned long long g_named_finalizers;

static int d_finalize_type_name(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)o;
    uint64_t id;
    if (gv_u64(g, "TypeID", &id) || v->kind != TJ_STR) {
        return WHY("TypeName: inputs missing");
    }
    if (!v->str[0]) {
        return 0;
    }
    for (size_t i = 0; i < g_ntypes; i++) {
        if (g_types[i].id == id && !strcmp(g_types[i].name, v->str)) {
            g_named_finalizers++;
            return 0;
        }
    }
    return WHY("TypeName \"%s\" is no BulkType name of TypeID %llu", v->str, (unsigned long long)id);
}

/*
 * GCNoUserDataTraceData.ClrInstanceID (CLR:3394): GetInt16At(0) only for Version >= 1, else 0;
 * the private BGC events are version 0 with a ClrInstanceID in the payload (the raw value).
 */
static int d_zero_before_v1(const gview *g, const tj *o, const tj *v, char *why, size_t n)
{
    (void)g;
    (void)o;
    return v->kind == TJ_NUM && !strcmp(v->num, "0")
               ? 0
               : WHY("ClrInstanceID %s, TraceEvent gives 0 before V1", v->kind == TJ_NUM ? v->num : "?");
}

static const derived_row derived[] = {
    {"BGCBegin", NULL, "ClrInstanceID", d_zero_before_v1, "CLR:3394"},
    {"BGC1stNonConEnd", NULL, "ClrInstanceID", d_zero_before_v1, "CLR:3394"},
    {"BGC1stConEnd", NULL, "ClrInstanceID", d_zero_before_v1, "CLR:3394"},
    {"BGC2ndNonConBegin", NULL, "ClrInstanceID", d_zero_before_v1, "CLR:3394"},
    {"BGC2ndNonConEnd", NULL, "ClrInstanceID", d_zero_before_v1, "CLR:3394"},
    {"BGC2ndConBegin", NULL, "ClrInstanceID", d_zero_before_v1, "CLR:3394"},
    {"BGC2ndConEnd", NULL, "ClrInstanceID", d_zero_before_v1, "CLR:3394"},
    {"BGCPlanEnd", NULL, "ClrInstanceID", d_zero_before_v1, "CLR:3394"},
    {"BGCSweepEnd", NULL, "ClrInstanceID", d_zero_before_v1, "CLR:3394"},
    {"GCPerHeapHistory", "Values", "ObjSpaceBefore", d_obj_space_before, "CLR:6746"},
    {"GCPerHeapHistory", "Values", "Fragmentation", d_fragmentation, "CLR:6769"},
    {"GCPerHeapHistory", "Values", "ObjSizeAfter", d_obj_size_after, "CLR:6795"},
    {"GCPerHeapHistory", "Values", "Out", d_out, "CLR:6928"},
    {"GCPerHeapHistory", "Values", "SurvRate", d_surv_rate, "CLR:6988"},
    {"GCPerHeapHistory", NULL, "CompactMechanisms", d_compact, "CLR:6058 IndexOfSetBit"},
    {"GCPerHeapHistory", NULL, "ExpandMechanisms", d_expand, "CLR:6087 IndexOfSetBit"},
    {"GCPerHeapHistory", NULL, "HeapIndex", d_heap_index, "CLR:6113-6158"},
    {"BulkType", NULL, "TypeID_0", d_type_id_0, "CLR:4373"},
    {"GCHeapStats", NULL, "TotalHeapSize", d_total_heap_size, "CLR:3459"},
    {"GCHeapStats", NULL, "TotalPromoted", d_total_promoted, "CLR:3460"},
    {"GCHeapStats", NULL, "Depth", d_heap_stats_depth, "CLR:3465"},
    {"FinalizeObject", NULL, "TypeName", d_finalize_type_name, "CLR:7467 state.TypeIDToName"},
    {"BulkType", NULL, "TypeName_0", d_type_name_0, "CLR:4380"},
};

/* ------------------------------------------------------------------------ */
/* Comparison                                                                */
/* ------------------------------------------------------------------------ */

typedef struct totals {
    unsigned long long events, fields, elements, derived_checked, flags, placeholders, no_parser;
    unsigned long long mismatches;
} totals;

typedef struct ctx {
    const char *trace;
    const char *family;
    const gcev_provider *provider;
    uint16_t id;
    uint16_t version;
    double ms;
    totals *t;
    char where[256];
} ctx;

/* Messages already printed (family + start of the message): each kind once per trace. */
static char seen[256][96];
static size_t nseen;

static void mismatch(ctx *c, const char *fmt, ...)
{
    c->t->mismatches++;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char key[96];
    snprintf(key, sizeof key, "%s|%u|%.40s", c->family, (unsigned)c->version, msg);
    for (size_t i = 0; i < nseen; i++) {
        if (!strcmp(seen[i], key)) {
            return;
        }
    }
    if (nseen == 256) {
        return;
    }
    memcpy(seen[nseen++], key, sizeof key);
    print_message("MISMATCH %s: %s %s id %u v%u at %.6f ms%s: %s\n", c->trace, pname(c->provider), c->family,
                  (unsigned)c->id, (unsigned)c->version, c->ms, c->where, msg);
}

/* GCEV_CONFORMANCE_VERBOSE=1: each kind of accepted placeholder, once per trace. */
static void note(ctx *c, const char *what, const char *key)
{
    if (!getenv("GCEV_CONFORMANCE_VERBOSE")) {
        return;
    }
    char k[96];
    snprintf(k, sizeof k, "~%s|%u|%s", c->family, (unsigned)c->version, key);
    for (size_t i = 0; i < nseen; i++) {
        if (!strcmp(seen[i], k)) {
            return;
        }
    }
    if (nseen < 256) {
        memcpy(seen[nseen++], k, sizeof k);
    }
    print_message("note %s: %s v%u: TraceEvent %s: %s\n", c->trace, c->family, (unsigned)c->version, key,
                  what);
}

static const char *te_name_of(const char *family, const char *array, const char *gcev_name)
{
    for (size_t i = 0; i < sizeof renames / sizeof renames[0]; i++) {
        const rename_row *r = &renames[i];
        if ((!r->family || !strcmp(r->family, family)) &&
            ((!r->array && !array) || (r->array && array && !strcmp(r->array, array))) &&
            !strcmp(r->gcev, gcev_name)) {
            return r->te;
        }
    }
    return gcev_name;
}

static const char *gcev_name_of(const char *family, const char *array, const char *te_name)
{
    for (size_t i = 0; i < sizeof renames / sizeof renames[0]; i++) {
        const rename_row *r = &renames[i];
        if ((!r->family || !strcmp(r->family, family)) &&
            ((!r->array && !array) || (r->array && array && !strcmp(r->array, array))) &&
            !strcmp(r->te, te_name)) {
            return r->gcev;
        }
    }
    return te_name;
}

static const derived_row *derived_for(const char *family, const char *array, const char *te_name)
{
    for (size_t i = 0; i < sizeof derived / sizeof derived[0]; i++) {
        const derived_row *d = &derived[i];
        if (!strcmp(d->family, family) &&
            ((!d->array && !array) || (d->array && array && !strcmp(d->array, array))) &&
            !strcmp(d->te, te_name)) {
            return d;
        }
    }
    return NULL;
}

static unsigned wire_bytes(const gcev_field *f, uint8_t ptr)
{
    switch (f->type) {
    case GCEV_T_INT8:
    case GCEV_T_UINT8:
        return 1;
    case GCEV_T_INT16:
    case GCEV_T_UINT16:
        return 2;
    case GCEV_T_INT32:
    case GCEV_T_UINT32:
    case GCEV_T_BOOLEAN:
    case GCEV_T_FLOAT:
        return 4;
    case GCEV_T_POINTER:
        return ptr;
    default:
        return 8;
    }
}

static void hex(const uint8_t *p, size_t n, char *out)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[p[i] >> 4];
        out[2 * i + 1] = d[p[i] & 15];
    }
    out[2 * n] = '\0';
}

/* One scalar of gcev against TraceEvent's JSON value; 0 when equal. */
static int compare_scalar(const gcev_field *f, uint8_t ptr, const tj *v, char *why, size_t n)
{
    switch (f->type) {
    case GCEV_T_UNICODE_STRING: {
        if (v->kind != TJ_STR) {
            return WHY("TraceEvent gives no string");
        }
        size_t need = gcev_utf16_to_utf8(f->v.str, NULL, 0) + 1;
        char *buf = malloc(need);
        gcev_utf16_to_utf8(f->v.str, buf, need);
        int eq = !strcmp(buf, v->str);
        if (!eq) {
            snprintf(why, n, "gcev \"%.200s\", TraceEvent \"%.200s\"", buf, v->str);
        }
        free(buf);
        return eq ? 0 : -1;
    }
    case GCEV_T_ANSI_STRING:
        if (v->kind != TJ_STR || strlen(v->str) != f->v.bytes.size ||
            memcmp(v->str, f->v.bytes.data, f->v.bytes.size)) {
            return WHY("ANSI string differs");
        }
        return 0;
    case GCEV_T_BINARY: {
        if (v->kind != TJ_STR) {
            return WHY("TraceEvent gives no byte array");
        }
        char *buf = malloc(2 * (size_t)f->v.bytes.size + 1);
        hex(f->v.bytes.data, f->v.bytes.size, buf);
        int eq = !strcmp(buf, v->str);
        if (!eq) {
            snprintf(why, n, "gcev %.64s..., TraceEvent %.64s...", buf, v->str);
        }
        free(buf);
        return eq ? 0 : -1;
    }
    case GCEV_T_GUID: {
        char g[37];
        gcev_guid_format(&f->v.guid, g);
        return v->kind == TJ_STR && !strcmp(g, v->str) ? 0 : WHY("GUID %s differs", g);
    }
    case GCEV_T_FLOAT:
    case GCEV_T_DOUBLE: {
        double d;
        if (oracle_num_double(v, &d)) {
            return WHY("TraceEvent gives no number");
        }
        return (d == f->v.d || (d != d && f->v.d != f->v.d)) ? 0
                                                             : WHY("gcev %.17g, TraceEvent %.17g", f->v.d, d);
    }
    case GCEV_T_BOOLEAN:
        if (v->kind == TJ_BOOL) {
            return (f->v.u != 0) == (v->boolean != 0)
                       ? 0
                       : WHY("gcev %llu, TraceEvent %s", (unsigned long long)f->v.u,
                             v->boolean ? "true" : "false");
        }
        break;
    default:
        break;
    }
    /* integers: the field's wire-width bit pattern */
    uint64_t te;
    int64_t tes;
    if (v->kind != TJ_NUM) {
        return WHY("TraceEvent gives %s, not a number", v->kind == TJ_NULL  ? "null"
                                                        : v->kind == TJ_STR ? v->str
                                                                            : "a non-number");
    }
    if (oracle_num_u64(v, &te) != 0) {
        if (oracle_num_i64(v, &tes) != 0) {
            return WHY("TraceEvent number %s is not an integer", v->num);
        }
        te = (uint64_t)tes;
    }
    unsigned w = wire_bytes(f, ptr);
    uint64_t mask = w >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * w)) - 1;
    uint64_t gv = f->v.u;
    if ((gv & mask) != (te & mask)) {
        return WHY("gcev %llu, TraceEvent %s", (unsigned long long)(gv & mask), v->num);
    }
    if (w < 8 && (te & ~mask) && (te | mask) != ~UINT64_C(0)) {
        return WHY("TraceEvent %s does not fit the field's %u bytes", v->num, w);
    }
    return 0;
}

static int family_has_field(const gcev_provider *p, uint16_t id, const char *name)
{
    const gcev_event_desc *d;
    for (size_t i = 0; (d = gcev_provider_event_at(p, i)) != NULL; i++) {
        gcev_event_info ei;
        if (gcev_event_get_info(d, &ei) != GCEV_OK || ei.id != id || !ei.fields) {
            continue;
        }
        for (size_t j = 0; j < gcev_template_field_count(ei.fields); j++) {
            gcev_field_info fi;
            if (gcev_template_field(ei.fields, j, &fi) == GCEV_OK && !strcmp(fi.name, name)) {
                return 1;
            }
        }
    }
    return 0;
}

static int is_default(const tj *v)
{
    return (v->kind == TJ_NUM && !strcmp(v->num, "0")) || (v->kind == TJ_BOOL && !v->boolean) ||
           (v->kind == TJ_STR && !v->str[0]);
}

static void compare_object(ctx *c, gview *g, const char *array, const tj *te_obj, const tj *te_raw,
                           const tj *te_arrays);

/* TraceEvent's members of te_obj no gcev field used: derived, presence flag, placeholder. */
static void check_leftovers(ctx *c, gview *g, const char *array, const tj *te_obj, const char *used_te[],
                            size_t nused)
{
    for (size_t i = 0; te_obj && i < te_obj->n; i++) {
        const char *key = te_obj->keys[i];
        int was_used = 0;
        for (size_t u = 0; u < nused; u++) {
            was_used |= !strcmp(used_te[u], key);
        }
        if (was_used) {
            continue;
        }
        const tj *v = &te_obj->items[i];
        const derived_row *d = derived_for(c->family, array, key);
        char why[512] = "";
        if (d) {
            if (d->check(g, te_obj, v, why, sizeof why) != 0) {
                mismatch(c, "derived %s (%s): %s", key, d->source, why);
            }
            c->t->derived_checked++;
            continue;
        }
        if (!strncmp(key, "Has", 3) && key[3] && v->kind == TJ_BOOL) {
            /* TraceEvent's presence flag of its member X: true exactly when gcev has X's field. */
            const char *x = key + 3;
            const char *gname = gcev_name_of(c->family, array, x);
            int have = gv_get(g, gname) != NULL || derived_for(c->family, array, x) != NULL;
            if (have != v->boolean) {
                mismatch(c, "%s is %s but gcev %s %s", key, v->boolean ? "true" : "false",
                         have ? "has" : "lacks", gname);
            }
            c->t->flags++;
            continue;
        }
        if (v->kind == TJ_NULL) {
            c->t->placeholders++; /* absent in this version on both sides */
            note(c, "placeholder", key);
            continue;
        }
        const char *gname = gcev_name_of(c->family, array, key);
        if (!array && is_default(v) && family_has_field(c->provider, c->id, gname)) {
            c->t->placeholders++; /* TraceEvent's 0 for a field of another version */
            note(c, "default of a field of another version", key);
            continue;
        }
        mismatch(c, "TraceEvent value %s%s%s matches no gcev field", array ? array : "", array ? "." : "",
                 key);
    }
}

static void collect(gcev_field_iter *it, gfield **fields, size_t *n)
{
    size_t cap = 16;
    *fields = malloc(cap * sizeof **fields);
    *n = 0;
    gcev_field f;
    while (gcev_field_next(it, &f)) {
        if (*n == cap) {
            cap *= 2;
            *fields = realloc(*fields, cap * sizeof **fields);
        }
        (*fields)[*n].f = f;
        (*fields)[(*n)++].used = 0;
    }
}

static void compare_array(ctx *c, gview *g, const gcev_field *f, const tj *te_arr)
{
    const gcev_array *a = &f->v.array;
    if (!te_arr || te_arr->kind != TJ_ARR) {
        mismatch(c, "TraceEvent has no array for %s", f->name);
        return;
    }
    if (te_arr->n != a->count) {
        mismatch(c, "%s: %u elements, TraceEvent %zu", f->name, a->count, te_arr->n);
        return;
    }
    if (!a->elem) {
        /* primitive elements (or TraceEvent's int[] for a one-field struct) */
        for (uint32_t i = 0; i < a->count; i++) {
            gcev_field e = {0};
            e.name = f->name;
            e.type = (gcev_type)a->elem_type;
            e.v.u = gcev_array_u64_at(a, i);
            char why[256];
            if (compare_scalar(&e, a->pointer_size, &te_arr->items[i], why, sizeof why) != 0) {
                mismatch(c, "%s[%u]: %s", f->name, i, why);
            }
            c->t->fields++;
        }
        return;
    }
    uint64_t buf[256];
    for (uint32_t i = 0; i < a->count; i++) {
        gcev_field_iter it;
        if (gcev_template_struct_size(a->elem) > sizeof buf ||
            gcev_field_iter_elem(&it, a, i, buf, sizeof buf) != GCEV_OK) {
            mismatch(c, "%s[%u]: gcev cannot read the element", f->name, i);
            return;
        }
        gview e = {0};
        e.pointer_size = a->pointer_size;
        e.parent = g;
        collect(&it, &e.fields, &e.n);
        const tj *te_e = &te_arr->items[i];
        /* a one-field struct TraceEvent gives as a plain value (GCGlobalHeapHistory Times) */
        if (te_e->kind != TJ_OBJ && e.n == 1) {
            char why[256];
            if (compare_scalar(&e.fields[0].f, a->pointer_size, te_e, why, sizeof why) != 0) {
                mismatch(c, "%s[%u].%s: %s", f->name, i, e.fields[0].f.name, why);
            }
            c->t->fields++;
            free(e.fields);
            c->t->elements++;
            continue;
        }
        snprintf(c->where, sizeof c->where, " %s[%u]", f->name, i);
        compare_object(c, &e, f->name, te_e, NULL, NULL);
        c->where[0] = '\0';
        c->t->elements++;
        if (i == 0 && !g->parent) {
            free(g_first.fields);
            g_first = e;
            g_first_elem = &g_first;
        } else {
            free(e.fields);
        }
    }
}

/* Compares gcev's fields of one event or element with TraceEvent's object. */
static void compare_object(ctx *c, gview *g, const char *array, const tj *te_obj, const tj *te_raw,
                           const tj *te_arrays)
{
    const char *used_te[256];
    size_t nused = 0;
    const char *used_raw[64];
    size_t nraw = 0;
    if (!te_obj || te_obj->kind != TJ_OBJ) {
        mismatch(c, "TraceEvent gives no fields");
        return;
    }
    for (size_t i = 0; i < g->n; i++) {
        const gcev_field *f = &g->fields[i].f;
        const char *te_name = te_name_of(c->family, array, f->name);
        int is_array = f->is_array;
        if (is_array) {
            const tj *arr = te_arrays ? tj_get(te_arrays, te_name) : NULL;
            if (!arr) {
                arr = tj_get(te_obj, te_name); /* int[] properties sit among the fields */
                if (arr && nused < 256) {
                    used_te[nused++] = te_name;
                }
            }
            compare_array(c, g, f, arr);
            continue;
        }
        const tj *raw = te_raw ? tj_get(te_raw, f->name) : NULL;
        const tj *v = tj_get(te_obj, te_name);
        char why[512];
        if (raw) {
            if (compare_scalar(f, g->pointer_size, raw, why, sizeof why) != 0) {
                mismatch(c, "%s (raw): %s", f->name, why);
            }
            used_raw[nraw++] = f->name;
            c->t->fields++;
            if (v) { /* TraceEvent's own value under that name: a derivation must say what it is */
                const derived_row *d = derived_for(c->family, array, te_name);
                if (!d) {
                    mismatch(c, "%s: TraceEvent's value beside the raw one has no known derivation", f->name);
                } else {
                    if (d->check(g, te_obj, v, why, sizeof why) != 0) {
                        mismatch(c, "derived %s (%s): %s", te_name, d->source, why);
                    }
                    c->t->derived_checked++;
                }
                if (nused < 256) {
                    used_te[nused++] = te_name;
                }
            }
            continue;
        }
        if (!v) {
            mismatch(c, "TraceEvent has no value for %s%s", f->name, te_name != f->name ? " (renamed)" : "");
            continue;
        }
        if (compare_scalar(f, g->pointer_size, v, why, sizeof why) != 0) {
            mismatch(c, "%s%s%s: %s", f->name, te_name != f->name ? " as " : "",
                     te_name != f->name ? te_name : "", why);
        }
        if (nused < 256) {
            used_te[nused++] = te_name;
        }
        c->t->fields++;
    }
    for (size_t i = 0; te_raw && i < te_raw->n; i++) {
        int u = 0;
        for (size_t k = 0; k < nraw; k++) {
            u |= !strcmp(used_raw[k], te_raw->keys[i]);
        }
        if (!u) {
            mismatch(c, "TraceEvent raw value %s matches no gcev field", te_raw->keys[i]);
        }
    }
    check_leftovers(c, g, array, te_obj, used_te, nused);
    for (size_t i = 0; te_arrays && i < te_arrays->n; i++) {
        const char *gname = gcev_name_of(c->family, array, te_arrays->keys[i]);
        if (!gv_get(g, gname)) {
            mismatch(c, "TraceEvent array %s matches no gcev field", te_arrays->keys[i]);
        }
    }
}

/* ---- the events of both sides ---- */

typedef struct gev {
    const gcev_provider *provider;
    uint16_t id, version;
    int64_t ts;
    uint64_t thread;
    uint32_t size;
    uint8_t pointer_size;
    double ms;
    uint8_t *payload;
    size_t order;
} gev;

typedef struct tev {
    size_t line; /* of the oracle's output, parsed again when compared */
    const char *provider;
    uint16_t id, version;
    int64_t ts;
    uint64_t thread;
    size_t order;
} tev;

static int cmp_gev(const void *pa, const void *pb)
{
    const gev *a = pa, *b = pb;
    if (a->ts != b->ts) {
        return a->ts < b->ts ? -1 : 1;
    }
    int s = strcmp(pname(a->provider), pname(b->provider));
    if (s) {
        return s;
    }
    if (a->id != b->id) {
        return a->id < b->id ? -1 : 1;
    }
    if (a->thread != b->thread) {
        return a->thread < b->thread ? -1 : 1;
    }
    return a->order < b->order ? -1 : a->order > b->order;
}

static int cmp_tev(const void *pa, const void *pb)
{
    const tev *a = pa, *b = pb;
    if (a->ts != b->ts) {
        return a->ts < b->ts ? -1 : 1;
    }
    int s = strcmp(a->provider, b->provider);
    if (s) {
        return s;
    }
    if (a->id != b->id) {
        return a->id < b->id ? -1 : 1;
    }
    if (a->thread != b->thread) {
        return a->thread < b->thread ? -1 : 1;
    }
    return a->order < b->order ? -1 : a->order > b->order;
}

static int in_gc_set(const gcev_trace_event *ev)
{
    if (!ev->provider) {
        return 0;
    }
    gcev_status st;
    return gcev_event_desc_resolve(ev->provider, ev->event_id, ev->version, &st) != NULL ||
           st == GCEV_E_UNKNOWN_VERSION;
}

static void compare_event(const char *trace, const gev *g, const tj *rec, totals *tot)
{
    ctx c = {trace, "", g->provider, g->id, g->version, g->ms, tot, ""};
    gcev_input in = {.struct_size = sizeof in,
                     .provider = g->provider,
                     .event_id = g->id,
                     .version = g->version,
                     .pointer_size = g->pointer_size,
                     .data = g->payload,
                     .size = g->size};
    gcev_event ev;
    gcev_error err = {0};
    gcev_status st = gcev_decode(&in, &ev, &err);
    if (st != GCEV_OK) {
        mismatch(&c, "gcev cannot decode it: %s (field %s, offset %llu)", gcev_status_str(st),
                 err.field ? err.field : "-", (unsigned long long)err.offset);
        return;
    }
    gcev_event_info ei;
    gcev_event_get_info(ev.desc, &ei);
    const gcev_family_info *fi = gcev_family_get(ei.family);
    c.family = fi ? fi->name : "";
    if (ev.trailing) {
        mismatch(&c, "%u payload bytes gcev's template does not cover", ev.trailing);
    }
    int64_t size = -1;
    te_i64(tj_get(rec, "size"), &size);
    if (size != (int64_t)g->size) {
        mismatch(&c, "payload size %u, TraceEvent %lld", g->size, (long long)size);
    }
    const tj *unparsed = tj_get(rec, "unparsed");
    if (unparsed && unparsed->kind == TJ_BOOL && unparsed->boolean) {
        /* TraceEvent has no template: the bytes it holds are the bytes gcev decoded */
        const char *p = oracle_str(tj_get(rec, "payload"));
        char *h = malloc(2 * (size_t)g->size + 1);
        hex(g->payload, g->size, h);
        if (!p || strcmp(p, h)) {
            mismatch(&c, "payload bytes differ from TraceEvent's");
        }
        free(h);
        tot->no_parser++;
        return;
    }
    gcev_field_iter it;
    gcev_field_iter_init(&it, &ev);
    gview gv = {0};
    gv.pointer_size = g->pointer_size;
    collect(&it, &gv.fields, &gv.n);
    g_first_elem = NULL;
    compare_object(&c, &gv, NULL, tj_get(rec, "fields"), tj_get(rec, "raw"), tj_get(rec, "arrays"));
    free(g_first.fields);
    memset(&g_first, 0, sizeof g_first);
    g_first_elem = NULL;
    /* GCDynamicEvent with a known inner event: TraceEvent's inner fields */
    const tj *dyn = tj_get(rec, "dynamic");
    if (dyn) {
        gcev_event inner;
        if (gcev_decode_dynamic(&ev, &inner, &err) != GCEV_OK) {
            mismatch(&c, "TraceEvent decodes inner event %s, gcev does not", oracle_str(tj_get(dyn, "name")));
        } else {
            gcev_field_iter it2;
            gcev_field_iter_init(&it2, &inner);
            gview iv = {0};
            iv.pointer_size = g->pointer_size;
            collect(&it2, &iv.fields, &iv.n);
            gcev_event_info iei;
            gcev_event_get_info(inner.desc, &iei);
            const gcev_family_info *ifi = gcev_family_get(iei.family);
            ctx ic = c;
            ic.family = ifi ? ifi->name : "";
            snprintf(ic.where, sizeof ic.where, " (inner)");
            compare_object(&ic, &iv, NULL, tj_get(dyn, "fields"), NULL, NULL);
            free(iv.fields);
        }
    }
    free(gv.fields);
    tot->events++;
}

/* ---- configuration: NAME.capture.json "expect" against the trace ---- */

static void check_expect(const char *trace, const char *side_path, const gev *evs, size_t n, totals *tot)
{
    char *text = testutil_read_file(side_path, NULL);
    if (!text) {
        print_message("note: %s has no side file %s\n", trace, side_path);
        return;
    }
    tj side;
    assert_int_equal(tj_parse(text, &side), 0);
    free(text);
    const tj *ex = tj_get(&side, "expect");
    assert_non_null(ex);
    int64_t heaps = -1, heaps_max = -1, pause = -1;
    te_i64(tj_get(ex, "heaps"), &heaps);
    te_i64(tj_get(ex, "heaps_max"), &heaps_max);
    te_i64(tj_get(ex, "pause_mode"), &pause);
    const tj *dyn = tj_get(ex, "dynamic_events");
    const tj *segs = tj_get(ex, "segments");
    int want_segments = segs && segs->kind == TJ_BOOL && segs->boolean;
    uint64_t largest_soh = 0;
    const tj *server = tj_get(ex, "server");
    unsigned long long histories = 0, dynamic = 0, bad = 0;
    int64_t max_heaps = 0;
    for (size_t i = 0; i < n; i++) {
        const gev *g = &evs[i];
        if (strcmp(pname(g->provider), "Microsoft-Windows-DotNETRuntime")) {
            continue;
        }
        if (g->id == 39) {
            dynamic++;
        }
        if (g->id == 5) {
            gcev_input cin = {.struct_size = sizeof cin,
                              .provider = g->provider,
                              .event_id = g->id,
                              .version = g->version,
                              .pointer_size = g->pointer_size,
                              .data = g->payload,
                              .size = g->size};
            gcev_event cev;
            if (gcev_decode(&cin, &cev, NULL) == GCEV_OK && cev.u.gc_create_segment.type == 0 &&
                cev.u.gc_create_segment.size > largest_soh) {
                largest_soh = cev.u.gc_create_segment.size;
            }
        }
        if (g->id != 205) {
            continue;
        }
        gcev_input in = {.struct_size = sizeof in,
                         .provider = g->provider,
                         .event_id = g->id,
                         .version = g->version,
                         .pointer_size = g->pointer_size,
                         .data = g->payload,
                         .size = g->size};
        gcev_event ev;
        if (gcev_decode(&in, &ev, NULL) != GCEV_OK) {
            continue;
        }
        const gcev_gc_global_heap_history *h = &ev.u.gc_global_heap_history;
        histories++;
        int64_t nh = h->num_heaps;
        if (nh > max_heaps) {
            max_heaps = nh;
        }
        if ((heaps >= 0 && nh != heaps) || (heaps_max >= 0 && (nh < 1 || nh > heaps_max)) ||
            (pause >= 0 && (int64_t)h->pause_mode != pause &&
             /* NoGCRegion (4) and SustainedLowLatency (3) are the workload's own switches */
             h->pause_mode != 3 && h->pause_mode != 4)) {
            bad++;
        }
    }
    if (histories == 0) {
        tot->mismatches++;
        print_message("MISMATCH %s: no GCGlobalHeapHistory to check the configuration with\n", trace);
    }
    if (bad) {
        tot->mismatches++;
        print_message("MISMATCH %s: %llu of %llu GCGlobalHeapHistory events contradict the configuration's "
                      "expectation (heaps / pause mode)\n",
                      trace, bad, histories);
    }
    if (server && server->kind == TJ_BOOL && server->boolean && heaps_max < 0 && max_heaps < 2) {
        tot->mismatches++;
        print_message("MISMATCH %s: server GC expected, NumHeaps is %lld\n", trace, (long long)max_heaps);
    }
    /*
     * Segments or regions: the regions GC creates its small-object "segments" as regions of
     * GCRegionSize (4 MB by default, 32 MB for large regions), the segments GC (libclrgc.so) as
     * whole segments (256 MB for workstation GC here). Seen on every capture of the matrix.
     */
    if (want_segments != (largest_soh > (UINT64_C(32) << 20))) {
        tot->mismatches++;
        print_message("MISMATCH %s: %s GC expected, the largest small-object GCCreateSegment is %llu bytes\n",
                      trace, want_segments ? "segments" : "regions", (unsigned long long)largest_soh);
    }
    if (dyn && dyn->kind == TJ_BOOL && dyn->boolean && dynamic == 0) {
        tot->mismatches++;
        print_message("MISMATCH %s: DATAS expected, no GCDynamicEvent\n", trace);
    }
    tj_free(&side);
}

/* TypeID -> Name of every BulkType element gcev decodes (for FinalizeObject's TypeName). */
static void collect_type_names(const gev *gs, size_t ng)
{
    for (size_t i = 0; i < g_ntypes; i++) {
        free(g_types[i].name);
    }
    free(g_types);
    g_types = NULL;
    g_ntypes = 0;
    size_t cap = 0;
    for (size_t i = 0; i < ng; i++) {
        const gev *g = &gs[i];
        if (g->id != 15 || strcmp(pname(g->provider), "Microsoft-Windows-DotNETRuntime")) {
            continue;
        }
        gcev_input in = {.struct_size = sizeof in,
                         .provider = g->provider,
                         .event_id = g->id,
                         .version = g->version,
                         .pointer_size = g->pointer_size,
                         .data = g->payload,
                         .size = g->size};
        gcev_event ev;
        if (gcev_decode(&in, &ev, NULL) != GCEV_OK) {
            continue;
        }
        const gcev_array *a = &ev.u.bulk_type.values;
        uint64_t buf[256];
        for (uint32_t k = 0; k < a->count; k++) {
            gcev_field_iter it;
            if (gcev_field_iter_elem(&it, a, k, buf, sizeof buf) != GCEV_OK) {
                break;
            }
            gcev_field f;
            uint64_t id = 0;
            char name[1024] = "";
            while (gcev_field_next(&it, &f)) {
                if (!strcmp(f.name, "TypeID")) {
                    id = f.v.u;
                } else if (!strcmp(f.name, "Name")) {
                    gcev_utf16_to_utf8(f.v.str, name, sizeof name);
                }
            }
            if (g_ntypes == cap) {
                cap = cap ? 2 * cap : 256;
                g_types = realloc(g_types, cap * sizeof *g_types);
            }
            g_types[g_ntypes].id = id;
            g_types[g_ntypes].name = malloc(strlen(name) + 1);
            memcpy(g_types[g_ntypes++].name, name, strlen(name) + 1);
        }
    }
}

static void conformance(void **state)
{
    const char *trace = *state;
    char base[2048], path[2100], err[512];
    snprintf(base, sizeof base, "%s", trace);
    char *dot = strrchr(base, '.');
    if (dot && !strcmp(dot, ".nettrace")) {
        *dot = '\0';
    }
    snprintf(path, sizeof path, "%s.oracle.jsonl", base);
    nseen = 0;
    oracle_lines o;
    if (oracle_lines_load(&o, path, err, sizeof err) != 0) {
        fail_msg("%s", err);
    }
    /* events are parsed for their keys and again when compared; counts and end are kept */
    tev *ts = calloc(o.n ? o.n : 1, sizeof *ts);
    size_t nts = 0, ncounts = 0;
    tj *counts = calloc(o.n ? o.n : 1, sizeof *counts);
    tj end = {0}, trace_rec = {0};
    int have_end = 0, have_trace = 0;
    for (size_t i = 0; i < o.n; i++) {
        tj r;
        if (oracle_lines_parse(&o, i, &r) != 0) {
            fail_msg("%s:%zu: not valid JSON", path, i + 1);
        }
        const char *kind = oracle_record_type(&r);
        if (!strcmp(kind, "event")) {
            int64_t id = -1, ver = -1, q = 0, th = 0;
            te_i64(tj_get(&r, "id"), &id);
            te_i64(tj_get(&r, "version"), &ver);
            te_i64(tj_get(&r, "qpc"), &q);
            te_i64(tj_get(&r, "thread"), &th);
            const char *prov = oracle_str(tj_get(&r, "provider"));
            const gcev_provider *p = prov ? gcev_provider_find(prov) : NULL;
            ts[nts] = (tev){i, p ? pname(p) : "?", (uint16_t)id, (uint16_t)ver, q, (uint64_t)th, nts};
            nts++;
            tj_free(&r);
        } else if (!strcmp(kind, "count")) {
            counts[ncounts++] = r;
        } else if (!strcmp(kind, "end")) {
            end = r;
            have_end = 1;
        } else if (!strcmp(kind, "trace") && !have_trace) {
            trace_rec = r;
            have_trace = 1;
        } else {
            tj_free(&r);
        }
    }
    if (!have_end) {
        fail_msg("%s: no \"end\" record (the oracle did not finish)", path);
    }
    gcev_trace *t;
    gcev_error gerr = {0};
    assert_int_equal(gcev_trace_open_file(trace, NULL, &t, &gerr), GCEV_OK);
    gev *gs = NULL;
    size_t ng = 0, cap = 0, order = 0;
    gcev_trace_event ev;
    gcev_status st;
    while ((st = gcev_trace_next(t, &ev, &gerr)) == GCEV_OK) {
        if (!in_gc_set(&ev)) {
            continue;
        }
        if (ng == cap) {
            cap = cap ? 2 * cap : 4096;
            gs = realloc(gs, cap * sizeof *gs);
        }
        gev *g = &gs[ng++];
        g->provider = ev.provider;
        g->id = ev.event_id;
        g->version = ev.version;
        g->ts = ev.timestamp;
        g->thread = ev.thread_id;
        g->size = ev.payload_size;
        g->pointer_size = ev.pointer_size;
        g->ms = ev.ms;
        g->payload = malloc(ev.payload_size ? ev.payload_size : 1);
        memcpy(g->payload, ev.payload, ev.payload_size);
        g->order = order++;
    }
    assert_int_equal(st, GCEV_END);
    uint64_t lost = gcev_trace_dropped_events(t);
    gcev_trace_close(t);

    qsort(gs, ng, sizeof *gs, cmp_gev);
    qsort(ts, nts, sizeof *ts, cmp_tev);
    /* CTF (LTTng): TraceEvent's timestamps are the trace clock's cycles, gcev's are ns with the
     * clock's offset (the Unix epoch) added: one constant difference, then every event equal. */
    const char *format = have_trace ? oracle_str(tj_get(&trace_rec, "format")) : NULL;
    if (format && !strcmp(format, "ctf") && ng && nts) {
        int64_t offset = gs[0].ts - ts[0].ts;
        print_message("%s: CTF, gcev timestamps = TraceEvent's + %lld ns (the clock offset)\n", trace,
                      (long long)offset);
        for (size_t i = 0; i < nts; i++) {
            ts[i].ts += offset;
        }
    }

    totals tot = {0};
    /* the same events per (provider, id, version) */
    for (size_t i = 0; i < ncounts; i++) {
        const tj *r = &counts[i];
        const tj *in_set = tj_get(r, "gc_set");
        if (!in_set || !in_set->boolean) {
            continue;
        }
        int64_t id, ver, count;
        te_i64(tj_get(r, "id"), &id);
        te_i64(tj_get(r, "version"), &ver);
        te_i64(tj_get(r, "count"), &count);
        const char *prov = oracle_str(tj_get(r, "provider"));
        int64_t mine = 0;
        for (size_t k = 0; k < ng; k++) {
            mine += gs[k].id == id && gs[k].version == ver && !strcmp(pname(gs[k].provider), prov);
        }
        if (mine != count) {
            tot.mismatches++;
            print_message("MISMATCH %s: %s id %lld v%lld: gcev %lld events, TraceEvent %lld\n", trace, prov,
                          (long long)id, (long long)ver, (long long)mine, (long long)count);
        }
    }
    if (ng != nts) {
        tot.mismatches++;
        print_message("MISMATCH %s: gcev %zu GC events, TraceEvent %zu\n", trace, ng, nts);
    }
    collect_type_names(gs, ng);
    size_t n = ng < nts ? ng : nts;
    for (size_t i = 0; i < n; i++) {
        const gev *g = &gs[i];
        const tev *te = &ts[i];
        if (g->ts != te->ts || g->id != te->id || g->version != te->version || g->thread != te->thread ||
            strcmp(pname(g->provider), te->provider)) {
            tot.mismatches++;
            print_message("MISMATCH %s: event %zu in time order: gcev %s id %u v%u qpc %lld thread %llu, "
                          "TraceEvent %s id %u v%u qpc %lld thread %llu\n",
                          trace, i, pname(g->provider), g->id, g->version, (long long)g->ts,
                          (unsigned long long)g->thread, te->provider, te->id, te->version, (long long)te->ts,
                          (unsigned long long)te->thread);
            break;
        }
        tj rec;
        if (oracle_lines_parse(&o, te->line, &rec) != 0) {
            fail_msg("%s: line %zu: not valid JSON", path, te->line + 1);
        }
        compare_event(trace, g, &rec, &tot);
        tj_free(&rec);
    }
    /* lost events: gcev's sequence gaps against TraceEvent's EventsLost */
    int64_t te_lost = -1;
    te_i64(tj_get(&end, "events_lost"), &te_lost);
    if ((int64_t)lost != te_lost) {
        tot.mismatches++;
        print_message("MISMATCH %s: gcev counts %llu lost events, TraceEvent %lld\n", trace,
                      (unsigned long long)lost, (long long)te_lost);
    }
    snprintf(path, sizeof path, "%s.capture.json", base);
    check_expect(trace, path, gs, ng, &tot);

    print_message(
        "%s: %llu events, %llu fields and %llu array elements equal; %llu derived values recomputed, "
        "%llu presence flags, %llu placeholders of absent fields, %llu events TraceEvent cannot parse "
        "(bytes equal); %llu lost events on both sides; %llu mismatches\n",
        trace, tot.events, tot.fields, tot.elements, tot.derived_checked, tot.flags, tot.placeholders,
        tot.no_parser, (unsigned long long)lost, tot.mismatches);
    for (size_t i = 0; i < ng; i++) {
        free(gs[i].payload);
    }
    free(gs);
    free(ts);
    for (size_t i = 0; i < ncounts; i++) {
        tj_free(&counts[i]);
    }
    free(counts);
    tj_free(&end);
    tj_free(&trace_rec);
    oracle_lines_free(&o);
    assert_int_equal(tot.mismatches, 0);
    assert_true(tot.events > 0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_runtime_conformance TRACE.nettrace...\n");
        return 2;
    }
    struct CMUnitTest *tests = calloc((size_t)argc - 1, sizeof *tests);
    for (int i = 1; i < argc; i++) {
        const char *slash = strrchr(argv[i], '/');
        tests[i - 1] = (struct CMUnitTest){slash ? slash + 1 : argv[i], conformance, NULL, NULL, argv[i]};
    }
    int rc = _cmocka_run_group_tests("runtime_conformance", tests, (size_t)argc - 1, NULL, NULL);
    free(tests);
    return rc;
}
