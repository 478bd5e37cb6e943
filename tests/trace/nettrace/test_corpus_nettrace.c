/* SPDX-License-Identifier: MIT */
/*
 * Conformance over ../shared/corpus: for every .nettrace/.netperf, the format,
 * version, pointer size, total events and per-(provider, id, version) GC counts
 * stated in corpus/README.md (measured with an independent reader); and the
 * first occurrence in timestamp order of every GC event compared field by
 * field with TraceEvent's baseline (corpus/<trace>.baseline.txt).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>

#include "testutil.h"
#include "gcev_schema_desc.h"

typedef struct expect_row {
    char provider[64];
    unsigned id, version;
    unsigned long long count, seen;
} expect_row;

static void check_trace(const char *dir, const char *name, const char *format, unsigned version, unsigned ptr,
                        unsigned long long total, expect_row *rows, size_t nrows)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/%s", dir, name);
    gcev_trace *t;
    gcev_error err = {0};
    gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME};
    assert_int_equal(gcev_trace_open_file(path, &o, &t, &err), GCEV_OK);
    const gcev_trace_info *info = gcev_trace_get_info(t);
    assert_string_equal(gcev_trace_format_name(info->format), format);
    assert_int_equal(info->pointer_size, ptr);
    gcev_trace_event ev;
    unsigned long long n = 0;
    int64_t last_ts = INT64_MIN;
    gcev_status st;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        n++;
        assert_true(ev.timestamp >= last_ts); /* time order holds over the whole file */
        last_ts = ev.timestamp;
        for (size_t i = 0; i < nrows; i++) {
            if (ev.event_id == rows[i].id && ev.version == rows[i].version &&
                !strcmp(ev.provider_name, rows[i].provider)) {
                rows[i].seen++;
            }
        }
    }
    assert_int_equal(st, GCEV_END);
    /* README gives the Trace object's version; gcev reports 5 once V5 metadata tags appear. */
    assert_true(info->format_version == version || (version == 4 && info->format_version == 5));
    assert_int_equal(n, total);
    for (size_t i = 0; i < nrows; i++) {
        if (rows[i].seen != rows[i].count) {
            fail_msg("%s: %s id %u v%u: %llu events, README says %llu", name, rows[i].provider, rows[i].id,
                     rows[i].version, rows[i].seen, rows[i].count);
        }
    }
    assert_int_equal(gcev_trace_dropped_events(t), 0);
    gcev_trace_close(t);
}

static void test_corpus_nettrace_counts_match_readme(void **st)
{
    (void)st;
    const char *dir = testutil_shared_dir();
    assert_non_null(dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/README.md", dir);
    size_t size;
    char *text = testutil_read_file(path, &size);
    assert_non_null(text);
    char name[256] = "", format[32] = "";
    unsigned version = 0, ptr = 0;
    unsigned long long total = 0;
    expect_row rows[64];
    size_t nrows = 0;
    int checked = 0, have = 0;
    for (char *line = strtok(text, "\n");; line = strtok(NULL, "\n")) {
        int section = !line || !strncmp(line, "## ", 3);
        if (section && have && (!strcmp(format, "nettrace") || !strcmp(format, "netperf"))) {
            check_trace(dir, name, format, version, ptr, total, rows, nrows);
            checked++;
        }
        if (!line) {
            break;
        }
        if (section) {
            snprintf(name, sizeof name, "%s", line + 3);
            nrows = 0;
            have = 0;
            continue;
        }
        unsigned long long bytes;
        if (sscanf(line, "- format %31s version %u, pointer size %u, %llu bytes, %llu events", format,
                   &version, &ptr, &bytes, &total) == 5) {
            have = 1;
            continue;
        }
        char prov[40], sym[64];
        unsigned id, ver;
        unsigned long long count;
        if (nrows < 64 &&
            sscanf(line, " - %39s id %u v%u %63[^:]: %llu", prov, &id, &ver, sym, &count) == 5) {
            expect_row *r = &rows[nrows++];
            snprintf(r->provider, sizeof r->provider, "Microsoft-Windows-%s", prov);
            r->id = id;
            r->version = ver;
            r->count = count;
            r->seen = 0;
        }
    }
    assert_int_equal(checked, 5);
    free(text);
}

/* ------------------------------------------------------------------------ */
/* Issue 3 item 7: the first occurrence (timestamp order) of each GC event   */
/* has the field values of TraceEvent's baseline (corpus/<trace>.baseline.txt) */
/* ------------------------------------------------------------------------ */

/* TraceEvent's name for each GC (provider, id) in the corpus (it merges versions; 200/201 = "GC"). */
typedef struct te_name {
    const char *provider;
    uint16_t id;
    const char *name;
} te_name;

#define RT "Microsoft-Windows-DotNETRuntime"
#define RTP "Microsoft-Windows-DotNETRuntimePrivate"
static const te_name te_names[] = {
    {RT, 1, "GC/Start"},
    {RT, 2, "GC/Stop"},
    {RT, 3, "GC/RestartEEStop"},
    {RT, 4, "GC/HeapStats"},
    {RT, 5, "GC/CreateSegment"},
    {RT, 6, "GC/FreeSegment"},
    {RT, 7, "GC/RestartEEStart"},
    {RT, 8, "GC/SuspendEEStop"},
    {RT, 9, "GC/SuspendEEStart"},
    {RT, 10, "GC/AllocationTick"},
    {RT, 13, "GC/FinalizersStop"},
    {RT, 14, "GC/FinalizersStart"},
    {RT, 21, "GC/BulkSurvivingObjectRanges"},
    {RT, 22, "GC/BulkMovedObjectRanges"},
    {RT, 23, "GC/GenerationRange"},
    {RT, 33, "GC/PinObjectAtGCTime"},
    {RT, 35, "GC/Triggered"},
    {RT, 200, "GC"},
    {RT, 201, "GC"},
    {RT, 202, "GC/MarkWithType"},
    {RT, 204, "GC/PerHeapHistory"},
    {RT, 205, "GC/GlobalHeapHistory"},
    {RTP, 199, "GC/PinPlugAtGCTime"},
};

/* Baseline attributes never compared, each with its reason ("*" = every event). */
typedef struct te_skip {
    const char *event, *attr, *reason;
} te_skip;
static const te_skip te_skips[] = {
    {"*", "PName", "TraceEvent's process label (\"Process(PID)\"), not in the event; PID is compared"},
    {"*", "EventName", "TraceEvent's display name; checked through te_names and the line key"},
    {"*", "ProviderName", "repeats the line's provider, which is compared"},
    {"*", "FormattedMessage", "TraceEvent's message-template rendering of the fields compared one by one"},
    {"GC/HeapStats", "Depth",
     "no such field in any GCHeapStats version; TraceEvent derives it (prints 0x00000000)"},
};

/* Baseline attribute -> manifest field where TraceEvent renamed it. */
typedef struct te_rename {
    const char *event, *attr, *field;
} te_rename;
static const te_rename te_renames[] = {
    {"GC/MarkWithType", "Promoted", "Bytes"},
    {"GC/PerHeapHistory", "FreeListSpaceBefore", "FreeListBefore"},
    {"GC/PerHeapHistory", "FreeObjSpaceBefore", "FreeObjBefore"},
    {"GC/PerHeapHistory", "FreeListSpaceAfter", "FreeListAfter"},
    {"GC/PerHeapHistory", "FreeObjSpaceAfter", "FreeObjAfter"},
};

typedef struct te_attr {
    const char *key, *val;
} te_attr;

typedef struct te_elem {
    const char *tag;
    te_attr *attrs;
    size_t nattrs;
} te_elem;

typedef struct te_rec {
    const char *provider, *name;
    unsigned long long count, seen;
    te_elem *elems; /* [0] = <Event>, then the array elements TraceEvent nests */
    size_t nelems;
    int checked;
    int cut; /* the baseline line was cut: fewer nested elements than the array has */
} te_rec;

static int te_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static int te_parse_elems_(char *s, te_rec *r);

/*
 * Parses `<Tag k="v" .../>` elements of one line in place; 0 on a syntax error.
 * The baselines cut long lines (BulkMovedObjectRanges): an element cut short
 * is dropped and r->cut set.
 */
static int te_parse_elems(char *s, te_rec *r)
{
    int ok = te_parse_elems_(s, r);
    if (!ok && r->nelems > 1) {
        free(r->elems[r->nelems - 1].attrs);
        r->nelems--;
        r->cut = 1;
        return 1;
    }
    return ok;
}

static int te_parse_elems_(char *s, te_rec *r)
{
    size_t cap = 0;
    r->elems = NULL;
    r->nelems = 0;
    for (;;) {
        s = strchr(s, '<');
        if (!s) {
            return r->nelems > 0;
        }
        s++;
        if (*s == '/') { /* closing tag */
            continue;
        }
        if (r->nelems == cap) {
            cap = cap ? cap * 2 : 8;
            r->elems = realloc(r->elems, cap * sizeof *r->elems);
            assert_non_null(r->elems);
        }
        te_elem *e = &r->elems[r->nelems++];
        memset(e, 0, sizeof *e);
        e->tag = s;
        while (*s && !te_space(*s) && *s != '/' && *s != '>') {
            s++;
        }
        size_t acap = 0;
        for (;;) {
            char *tag_end = s;
            while (te_space(*s)) {
                s++;
            }
            if (*s == '/' || *s == '>' || !*s) {
                int end = !*s;
                if (!end) {
                    s += (*s == '/') ? 2 : 1;
                }
                *tag_end = '\0';
                if (end) {
                    return 0;
                }
                break;
            }
            *tag_end = '\0';
            char *key = s;
            while (*s && *s != '=' && !te_space(*s)) {
                s++;
            }
            char *key_end = s;
            while (te_space(*s)) {
                s++;
            }
            if (*s != '=') {
                return 0;
            }
            s++;
            while (te_space(*s)) {
                s++;
            }
            if (*s != '"') {
                return 0;
            }
            char *val = ++s;
            s = strchr(s, '"');
            if (!s) {
                return 0;
            }
            *s++ = '\0';
            *key_end = '\0';
            if (e->nattrs == acap) {
                acap = acap ? acap * 2 : 16;
                e->attrs = realloc(e->attrs, acap * sizeof *e->attrs);
                assert_non_null(e->attrs);
            }
            e->attrs[e->nattrs].key = key;
            e->attrs[e->nattrs].val = val;
            e->nattrs++;
            /* the loop re-reads spacing; tag_end must not clobber the value's terminator */
            if (te_space(*s)) {
                continue;
            }
            if (*s == '/' || *s == '>') {
                s += (*s == '/') ? 2 : 1;
                break;
            }
            return 0;
        }
    }
}

static const te_name *te_name_of(const char *provider, uint16_t id)
{
    for (size_t i = 0; i < sizeof te_names / sizeof te_names[0]; i++) {
        if (te_names[i].id == id && !strcmp(te_names[i].provider, provider)) {
            return &te_names[i];
        }
    }
    return NULL;
}

static const char *te_skip_reason(const char *event, const char *attr)
{
    for (size_t i = 0; i < sizeof te_skips / sizeof te_skips[0]; i++) {
        if ((!strcmp(te_skips[i].event, "*") || !strcmp(te_skips[i].event, event)) &&
            !strcmp(te_skips[i].attr, attr)) {
            return te_skips[i].reason;
        }
    }
    return NULL;
}

static const char *te_field_name(const char *event, const char *attr)
{
    for (size_t i = 0; i < sizeof te_renames / sizeof te_renames[0]; i++) {
        if (!strcmp(te_renames[i].event, event) && !strcmp(te_renames[i].attr, attr)) {
            return te_renames[i].field;
        }
    }
    return attr;
}

/* Integer text as TraceEvent prints it: "0x..." hex, or decimal with ',' separators. */
static int te_parse_int(const char *s, uint64_t *out)
{
    char buf[64];
    size_t n = 0;
    if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) {
        char *end;
        *out = strtoull(s + 2, &end, 16);
        return end != s + 2 && !*end;
    }
    for (const char *p = s; *p; p++) {
        if (*p == ',') {
            continue;
        }
        if (n + 1 >= sizeof buf || !((*p >= '0' && *p <= '9') || (*p == '-' && p == s))) {
            return 0;
        }
        buf[n++] = *p;
    }
    buf[n] = '\0';
    if (n == 0 || (n == 1 && buf[0] == '-')) {
        return 0;
    }
    *out = buf[0] == '-' ? (uint64_t)strtoll(buf, NULL, 10) : strtoull(buf, NULL, 10);
    return 1;
}

static unsigned te_width(gcev_type t, unsigned ptr)
{
    switch (t) {
    case GCEV_T_INT8:
    case GCEV_T_UINT8:
        return 1;
    case GCEV_T_INT16:
    case GCEV_T_UINT16:
        return 2;
    case GCEV_T_INT32:
    case GCEV_T_UINT32:
    case GCEV_T_BOOLEAN:
        return 4;
    case GCEV_T_POINTER:
        return ptr;
    default:
        return 8;
    }
}

static uint64_t te_raw(const gcev_field *f)
{
    switch (f->type) {
    case GCEV_T_INT8:
    case GCEV_T_INT16:
    case GCEV_T_INT32:
    case GCEV_T_INT64:
        return (uint64_t)f->v.i;
    default:
        return f->v.u;
    }
}

/* TraceEvent enums for fields the manifest gives no map (names from TraceEvent/the runtime's gcrecord.h). */
static const char *const te_compact_reasons[] = {
    "compact_low_ephemeral", "compact_high_frag",          "compact_no_gaps",         "compact_loh_forced",
    "compact_last_gc",       "compact_induced_compacting", "compact_fragmented_gen0", "compact_high_mem_load",
    "compact_high_mem_frag", "compact_vhigh_mem_frag",     "compact_no_gc_mode"};
static const char *const te_expand_mechanisms[] = {"expand_reuse_normal", "expand_reuse_bestfit",
                                                   "expand_new_seg_ep",   "expand_new_seg",
                                                   "expand_no_memory",    "expand_next_full_gc"};
static const char *const te_global_mechanisms[] = {"Concurrent", "Compaction",  "Promotion",
                                                   "Demotion",   "CardBundles", "ElevatedLogic"};

/* The runtime records "valid" in bit 31 and the reason as the index of the one set bit below. */
static const char *te_bit_index_name(uint64_t v, const char *const *names, size_t n)
{
    if (!(v & 0x80000000u)) {
        return "not_specified";
    }
    v &= 0x7fffffffu;
    for (size_t i = 0; i < 31; i++) {
        if (v & (1u << i)) {
            return i < n ? names[i] : NULL;
        }
    }
    return NULL;
}

/* Name TraceEvent prints for value v of field `field` of `event`; NULL if no rule. */
static const char *te_enum_name(const char *event, const gcev_field *f, uint64_t v, char *buf, size_t n)
{
    if (f->map) {
        if (!f->map->is_bitmap) {
            return gcev_map_name(f->map, v);
        }
        char tmp[256];
        gcev_map_format(f->map, v, tmp, sizeof tmp);
        size_t o = 0;
        for (const char *p = tmp; *p && o + 3 < n; p++) {
            if (*p == '|') {
                buf[o++] = ',';
                buf[o++] = ' ';
            } else {
                buf[o++] = *p;
            }
        }
        buf[o] = '\0';
        return buf;
    }
    if (!strcmp(event, "GC/GlobalHeapHistory") && !strcmp(f->name, "Reason")) {
        return gcev_gc_reason_map_name((uint32_t)v); /* TraceEvent's GCReason = GCReasonMap */
    }
    if (!strcmp(event, "GC/GlobalHeapHistory") && !strcmp(f->name, "GlobalMechanisms")) {
        size_t o = 0;
        buf[0] = '\0';
        if (v == 0) {
            snprintf(buf, n, "None");
            return buf;
        }
        for (size_t i = 0; i < 6; i++) {
            if (v & (1u << i)) {
                o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? ", " : "", te_global_mechanisms[i]);
                if (o >= n) {
                    return NULL;
                }
            }
        }
        return (v >> 6) ? NULL : buf;
    }
    if (!strcmp(event, "GC/PerHeapHistory") && !strcmp(f->name, "CompactMechanisms")) {
        return te_bit_index_name(v, te_compact_reasons,
                                 sizeof te_compact_reasons / sizeof te_compact_reasons[0]);
    }
    if (!strcmp(event, "GC/PerHeapHistory") && !strcmp(f->name, "ExpandMechanisms")) {
        return te_bit_index_name(v, te_expand_mechanisms,
                                 sizeof te_expand_mechanisms / sizeof te_expand_mechanisms[0]);
    }
    return NULL;
}

/* Compares one field with the baseline text; returns NULL or why it differs. */
static const char *te_compare(const char *event, const gcev_field *f, const char *text, unsigned ptr,
                              char *why, size_t n)
{
    char tmp[512];
    switch (f->type) {
    case GCEV_T_UNICODE_STRING:
        gcev_utf16_to_utf8(f->v.str, tmp, sizeof tmp);
        if (strcmp(tmp, text)) {
            snprintf(why, n, "\"%s\" != \"%s\"", tmp, text);
            return why;
        }
        return NULL;
    case GCEV_T_ANSI_STRING:
        if (strlen(text) != f->v.bytes.size || memcmp(text, f->v.bytes.data, f->v.bytes.size)) {
            snprintf(why, n, "ANSI string differs from \"%s\"", text);
            return why;
        }
        return NULL;
    case GCEV_T_GUID: {
        char g[37];
        gcev_guid_format(&f->v.guid, g);
        gcev_guid want;
        if (!gcev_guid_parse(text, &want) || memcmp(&want, &f->v.guid, sizeof want)) {
            snprintf(why, n, "%s != %s", g, text);
            return why;
        }
        return NULL;
    }
    case GCEV_T_FLOAT:
    case GCEV_T_DOUBLE: {
        double want = strtod(text, NULL);
        double diff = f->v.d - want;
        if (diff < 0) {
            diff = -diff;
        }
        if (diff > 1e-6 * (want < 0 ? -want : want) + 1e-9) {
            snprintf(why, n, "%g != %s", f->v.d, text);
            return why;
        }
        return NULL;
    }
    case GCEV_T_STRUCT:
    case GCEV_T_BINARY:
    case GCEV_T_FILETIME:
    case GCEV_T_SYSTEMTIME:
    case GCEV_TYPE_COUNT_:
        snprintf(why, n, "no comparison for type %s", gcev_type_name(f->type));
        return why;
    default:
        break;
    }
    uint64_t v = te_raw(f), want;
    unsigned w = te_width(f->type, ptr);
    uint64_t mask = w >= 8 ? UINT64_MAX : ((UINT64_C(1) << (8 * w)) - 1);
    if (te_parse_int(text, &want)) {
        if ((v & mask) != (want & mask)) {
            snprintf(why, n, "%llu (0x%llx) != %s", (unsigned long long)v, (unsigned long long)v, text);
            return why;
        }
        return NULL;
    }
    if (f->type == GCEV_T_BOOLEAN && (!strcmp(text, "True") || !strcmp(text, "False"))) {
        if ((v != 0) != (text[0] == 'T')) {
            snprintf(why, n, "%llu != %s", (unsigned long long)v, text);
            return why;
        }
        return NULL;
    }
    const char *name = te_enum_name(event, f, v, tmp, sizeof tmp);
    if (!name || strcmp(name, text)) {
        snprintf(why, n, "value %llu is named \"%s\", baseline \"%s\"", (unsigned long long)v,
                 name ? name : "(no name rule)", text);
        return why;
    }
    return NULL;
}

typedef struct te_fields {
    gcev_field f[64];
    size_t n;
} te_fields;

static void te_collect(gcev_field_iter *it, te_fields *out)
{
    out->n = 0;
    while (out->n < 64 && gcev_field_next(it, &out->f[out->n])) {
        out->n++;
    }
}

static const gcev_field *te_find(const te_fields *fs, const char *name)
{
    for (size_t i = 0; i < fs->n; i++) {
        if (!strcmp(fs->f[i].name, name)) {
            return &fs->f[i];
        }
    }
    return NULL;
}

static uint64_t te_u(const te_fields *fs, const char *name)
{
    const gcev_field *f = te_find(fs, name);
    assert_non_null(f);
    return te_raw(f);
}

/* Values TraceEvent derives from several fields (recomputed here from ours). */
static int te_derived(const char *event, int elem, size_t index, const te_fields *fs, const char *attr,
                      char *out, size_t n)
{
    if (!elem && !strcmp(event, "GC/HeapStats") &&
        (!strcmp(attr, "TotalHeapSize") || !strcmp(attr, "TotalPromoted"))) {
        const char *fmt = attr[5] == 'H' ? "GenerationSize%u" : "TotalPromotedSize%u";
        uint64_t sum = 0;
        for (unsigned g = 0; g < 4; g++) { /* gens 0-3 (TraceEvent's sum, no gen 4) */
            char name[32];
            snprintf(name, sizeof name, fmt, g);
            sum += te_u(fs, name);
        }
        snprintf(out, n, "%llu", (unsigned long long)sum);
        return 1;
    }
    if (elem && !strcmp(event, "GC/PerHeapHistory")) {
        uint64_t before = te_u(fs, "SizeBefore"), after = te_u(fs, "SizeAfter");
        uint64_t frag = te_u(fs, "FreeListAfter") + te_u(fs, "FreeObjAfter");
        uint64_t obj_before = before - te_u(fs, "FreeListBefore") - te_u(fs, "FreeObjBefore");
        uint64_t surv = te_u(fs, "PinnedSurv") + te_u(fs, "NonePinnedSurv");
        if (!strcmp(attr, "Name")) {
            snprintf(out, n, "Gen%zu", index);
        } else if (!strcmp(attr, "Fragmentation")) {
            snprintf(out, n, "%llu", (unsigned long long)frag);
        } else if (!strcmp(attr, "ObjSpaceBefore")) {
            snprintf(out, n, "%llu", (unsigned long long)obj_before);
        } else if (!strcmp(attr, "ObjSizeAfter")) {
            snprintf(out, n, "%llu", (unsigned long long)(after - frag));
        } else if (!strcmp(attr, "Out")) {
            snprintf(out, n, "%llu", (unsigned long long)surv);
        } else if (!strcmp(attr, "SurvRate")) { /* integer percent of the objects before */
            snprintf(out, n, "%llu", (unsigned long long)(obj_before ? surv * 100 / obj_before : 0));
        } else {
            return 0;
        }
        return 1;
    }
    return 0;
}

/* Whether another version of the event's family has a field of that name. */
static int te_other_version_has(const gcev_event_desc *d, const char *name)
{
    const gcev_provider *p = d->provider;
    for (uint16_t i = 0; i < p->nevents; i++) {
        const gcev_event_desc *o = &p->events[i];
        if (o->id != d->id || !o->tmpl) {
            continue;
        }
        for (uint16_t k = 0; k < o->tmpl->nfields; k++) {
            if (!strcmp(o->tmpl->fields[k].name, name)) {
                return 1;
            }
        }
    }
    return 0;
}

static void te_check_attrs(const char *trace, const te_rec *r, const te_elem *e, int elem, size_t index,
                           const te_fields *fs, const gcev_event_desc *d, unsigned ptr, size_t *compared)
{
    for (size_t a = 0; a < e->nattrs; a++) {
        const char *key = e->attrs[a].key, *val = e->attrs[a].val;
        if (!elem && (!strcmp(key, "MSec") || !strcmp(key, "PID") || !strcmp(key, "TID"))) {
            continue; /* header attributes: checked by the caller */
        }
        if (te_skip_reason(r->name, key)) {
            continue;
        }
        char why[600], derived[64];
        const gcev_field *f = te_find(fs, te_field_name(r->name, key));
        if (f) {
            if (te_compare(r->name, f, val, ptr, why, sizeof why)) {
                fail_msg("%s: %s (%s v%u) %s%s: %s", trace, r->name, d->symbol, d->version,
                         elem ? "element " : "", key, why);
            }
        } else if (te_derived(r->name, elem, index, fs, key, derived, sizeof derived)) {
            uint64_t want, got;
            int numeric = te_parse_int(derived, &got) && te_parse_int(val, &want);
            if (numeric ? want != got : strcmp(val, derived) != 0) {
                fail_msg("%s: %s %s: derived %s, baseline %s", trace, r->name, key, derived, val);
            }
        } else if (!elem && te_other_version_has(d, key)) {
            uint64_t want; /* TraceEvent prints 0 for a field this version lacks */
            if (*val && (!te_parse_int(val, &want) || want != 0)) {
                fail_msg("%s: %s %s is absent in v%u but the baseline shows %s", trace, r->name, key,
                         d->version, val);
            }
        } else {
            fail_msg("%s: %s: baseline attribute %s=\"%s\" has no field, rule or skip entry", trace, r->name,
                     key, val);
        }
        (*compared)++;
    }
}

/* Compares the first occurrence of baseline record r with the decoded event. */
static void te_check_event(const char *trace, te_rec *r, const gcev_trace_event *tev, size_t *compared)
{
    gcev_input in = {.struct_size = sizeof in,
                     .provider = tev->provider,
                     .event_id = tev->event_id,
                     .version = tev->version,
                     .pointer_size = tev->pointer_size,
                     .data = tev->payload,
                     .size = tev->payload_size};
    gcev_event ev;
    gcev_error err = {0};
    if (gcev_decode(&in, &ev, &err) != GCEV_OK) {
        fail_msg("%s: %s id %u v%u: decode failed: %s", trace, r->name, tev->event_id, tev->version,
                 err.message);
    }
    const te_elem *e0 = &r->elems[0];
    for (size_t a = 0; a < e0->nattrs; a++) {
        const char *key = e0->attrs[a].key, *val = e0->attrs[a].val;
        if (!strcmp(key, "MSec")) {
            double want = strtod(val, NULL), diff = tev->ms - want;
            if (diff > 0.00005 + 1e-9 || diff < -0.00005 - 1e-9) {
                fail_msg("%s: %s: MSec %.6f, baseline %s", trace, r->name, tev->ms, val);
            }
        } else if (!strcmp(key, "PID") || !strcmp(key, "TID")) {
            uint64_t want, got = key[0] == 'P' ? tev->process_id : tev->thread_id;
            assert_true(te_parse_int(val, &want));
            if (want != got) {
                fail_msg("%s: %s: %s %llu, baseline %s", trace, r->name, key, (unsigned long long)got, val);
            }
        }
    }
    gcev_field_iter it;
    te_fields fs;
    gcev_field_iter_init(&it, &ev);
    te_collect(&it, &fs);
    te_check_attrs(trace, r, e0, 0, 0, &fs, ev.desc, tev->pointer_size, compared);
    if (r->nelems > 1) { /* nested elements = the struct array's elements, in order */
        const gcev_field *arr = NULL;
        for (size_t i = 0; i < fs.n; i++) {
            if (fs.f[i].is_array && fs.f[i].v.array.elem) {
                arr = &fs.f[i];
            }
        }
        assert_non_null(arr);
        if (r->cut ? arr->v.array.count < r->nelems - 1 : arr->v.array.count != r->nelems - 1) {
            fail_msg("%s: %s: %u array elements, baseline shows %zu%s", trace, r->name, arr->v.array.count,
                     r->nelems - 1, r->cut ? " (line cut)" : "");
        }
        for (uint32_t i = 0; i + 1 < r->nelems; i++) {
            _Alignas(16) unsigned char buf[1024];
            te_fields efs;
            gcev_field_iter eit;
            assert_true(arr->v.array.elem->struct_size <= sizeof buf);
            assert_int_equal(gcev_field_iter_elem(&eit, &arr->v.array, i, buf, sizeof buf), GCEV_OK);
            te_collect(&eit, &efs);
            te_check_attrs(trace, r, &r->elems[i + 1], 1, i, &efs, ev.desc, tev->pointer_size, compared);
        }
    }
    r->checked = 1;
}

static void te_check_trace(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/%s.baseline.txt", dir, name);
    size_t size;
    char *text = testutil_read_file(path, &size);
    assert_non_null(text);
    te_rec recs[64];
    size_t nrecs = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "\xef\xbb\xbf", 3)) {
            line += 3;
        }
        char *slash = strchr(line, '/'), *comma = strstr(line, ", ");
        if (!slash || !comma || slash > comma) {
            continue;
        }
        *slash = '\0';
        *comma = '\0';
        int known = 0;
        for (size_t i = 0; i < sizeof te_names / sizeof te_names[0]; i++) {
            known |= !strcmp(te_names[i].provider, line) && !strcmp(te_names[i].name, slash + 1);
        }
        if (!known) {
            continue;
        }
        assert_true(nrecs < 64);
        te_rec *r = &recs[nrecs++];
        memset(r, 0, sizeof *r);
        r->provider = line;
        r->name = slash + 1;
        char *end;
        r->count = strtoull(comma + 2, &end, 10);
        if (!te_parse_elems(end, r) || strcmp(r->elems[0].tag, "Event")) {
            fail_msg("%s: cannot parse the baseline line of %s", name, r->name);
        }
    }

    snprintf(path, sizeof path, "%s/corpus/%s", dir, name);
    gcev_trace *t;
    gcev_error err = {0};
    gcev_trace_options o = {.struct_size = sizeof o, .order = GCEV_TRACE_ORDER_TIME};
    assert_int_equal(gcev_trace_open_file(path, &o, &t, &err), GCEV_OK);
    gcev_trace_event ev;
    gcev_status st;
    size_t compared = 0;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        gcev_status rs;
        if (!ev.provider || !gcev_event_desc_resolve(ev.provider, ev.event_id, ev.version, &rs)) {
            continue; /* not an event of the compiled schemas */
        }
        const te_name *tn = te_name_of(ev.provider_name, ev.event_id);
        if (!tn) {
            fail_msg("%s: %s id %u: add its TraceEvent name to te_names", name, ev.provider_name,
                     ev.event_id);
        }
        te_rec *r = NULL;
        for (size_t i = 0; i < nrecs; i++) {
            if (!strcmp(recs[i].provider, tn->provider) && !strcmp(recs[i].name, tn->name)) {
                r = &recs[i];
            }
        }
        if (!r) {
            fail_msg("%s: %s/%s is in the trace but not in the baseline", name, tn->provider, tn->name);
        }
        if (r->seen++ == 0) {
            te_check_event(name, r, &ev, &compared);
        }
    }
    assert_int_equal(st, GCEV_END);
    gcev_trace_close(t);
    for (size_t i = 0; i < nrecs; i++) {
        if (recs[i].seen != recs[i].count || !recs[i].checked) {
            fail_msg("%s: %s/%s: %llu events (summed over versions), baseline count %llu", name,
                     recs[i].provider, recs[i].name, recs[i].seen, recs[i].count);
        }
        for (size_t k = 0; k < recs[i].nelems; k++) {
            free(recs[i].elems[k].attrs);
        }
        free(recs[i].elems);
    }
    /* A trace without GC events has nothing to compare; one with them must compare fields. */
    assert_true(nrecs == 0 || compared > nrecs);
    free(text);
}

static void test_corpus_nettrace_first_gc_events_match_baseline(void **st)
{
    (void)st;
    const char *dir = testutil_shared_dir();
    assert_non_null(dir);
    static const char *const traces[] = {
        "eventpipe-dotnetcore3.0-win-x64-objver4.nettrace",
        "eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace",
        "eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace",
        "eventpipe-dotnetcore2.1-win-x86-objver3.netperf",
        "eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf",
    };
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        te_check_trace(dir, traces[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_nettrace_counts_match_readme),
        cmocka_unit_test(test_corpus_nettrace_first_gc_events_match_baseline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
