/* SPDX-License-Identifier: MIT */
/*
 * What an event is to the allocation model, and the payloads gcev's manifest does not
 * compile (method, module and R2R entry-point events), read here with checked reads:
 * every read is bounds-checked against the bytes left, strings must end in a UTF-16 NUL
 * inside the payload, and a failure names the field. Layouts: the runtime's
 * ClrEtwAll.man (templates MethodLoadUnloadVerbose V0-V2, ModuleLoadUnload V0-V2,
 * R2RGetEntryPoint); fields after the last one read here (ClrInstanceID, ReJITID, PDB
 * facts) are not needed and may be absent.
 */
#include <math.h>
#include <string.h>

#include "gcev_allocs_internal.h"
#include "gcev_allocs_sampled.h"

typedef struct rd {
    const uint8_t *p;
    uint32_t n, pos;
    gcev_error *err;
} rd;

static int fail(rd *r, gcev_status st, const char *field, const char *msg)
{
    if (r->err) {
        r->err->code = st;
        r->err->field = field;
        r->err->offset = r->pos;
        r->err->message = msg;
    }
    return 0;
}

static int rd_u64(rd *r, const char *field, uint64_t *v)
{
    if (r->n - r->pos < 8) {
        return fail(r, GCEV_E_TRUNCATED, field, "payload ends inside a field");
    }
    const uint8_t *b = r->p + r->pos;
    *v = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24 |
         (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 | (uint64_t)b[6] << 48 | (uint64_t)b[7] << 56;
    r->pos += 8;
    return 1;
}

static int rd_u32(rd *r, const char *field, uint32_t *v)
{
    if (r->n - r->pos < 4) {
        return fail(r, GCEV_E_TRUNCATED, field, "payload ends inside a field");
    }
    const uint8_t *b = r->p + r->pos;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    r->pos += 4;
    return 1;
}

/* A NUL-terminated UTF-16LE string: the view excludes the terminator. */
static int rd_str(rd *r, const char *field, gcev_utf16 *v)
{
    uint32_t nbytes;
    if (gcev_ga_utf16_nul(r->p + r->pos, r->n - r->pos, &nbytes)) {
        v->data = r->p + r->pos;
        v->nbytes = nbytes;
        r->pos += nbytes + 2;
        return 1;
    }
    return fail(r, GCEV_E_UNTERMINATED_STRING, field, "string has no terminator before the end of the data");
}

gcev_status gcev_ga_read_method(const uint8_t *p, uint32_t n, ga_method_ev *out, gcev_error *err)
{
    rd r = {p, n, 0, err};
    memset(out, 0, sizeof *out);
    if (rd_u64(&r, "MethodID", &out->method_id) && rd_u64(&r, "ModuleID", &out->module_id) &&
        rd_u64(&r, "MethodStartAddress", &out->start) && rd_u32(&r, "MethodSize", &out->size) &&
        rd_u32(&r, "MethodToken", &out->token) && rd_u32(&r, "MethodFlags", &out->flags) &&
        rd_str(&r, "MethodNamespace", &out->ns) && rd_str(&r, "MethodName", &out->name) &&
        rd_str(&r, "MethodSignature", &out->sig)) {
        return GCEV_OK;
    }
    return err ? err->code : GCEV_E_TRUNCATED;
}

gcev_status gcev_ga_read_module(const uint8_t *p, uint32_t n, ga_module_ev *out, gcev_error *err)
{
    rd r = {p, n, 0, err};
    uint64_t assembly;
    uint32_t flags, reserved;
    memset(out, 0, sizeof *out);
    if (rd_u64(&r, "ModuleID", &out->module_id) && rd_u64(&r, "AssemblyID", &assembly) &&
        rd_u32(&r, "ModuleFlags", &flags) && rd_u32(&r, "Reserved1", &reserved) &&
        rd_str(&r, "ModuleILPath", &out->il_path) && rd_str(&r, "ModuleNativePath", &out->native_path)) {
        return GCEV_OK;
    }
    return err ? err->code : GCEV_E_TRUNCATED;
}

gcev_status gcev_ga_read_entry(const uint8_t *p, uint32_t n, ga_entry_ev *out, gcev_error *err)
{
    rd r = {p, n, 0, err};
    memset(out, 0, sizeof *out);
    if (rd_u64(&r, "MethodID", &out->method_id) && rd_str(&r, "MethodNamespace", &out->ns) &&
        rd_str(&r, "MethodName", &out->name) && rd_str(&r, "MethodSignature", &out->sig) &&
        rd_u64(&r, "EntryPoint", &out->entry)) {
        return GCEV_OK;
    }
    return err ? err->code : GCEV_E_TRUNCATED;
}

static const char RUNTIME[] = "Microsoft-Windows-DotNETRuntime";
static const char RUNDOWN[] = "Microsoft-Windows-DotNETRuntimeRundown";

/* 1 Runtime, 2 Rundown, 0 other. The compiled provider is compared first (no string work). */
static int provider_of(const gcev_trace_event *ev, const ga_providers *pv)
{
    if (ev->provider) {
        const gcev_provider *rt = pv->runtime, *rd_ = pv->rundown;
        return ev->provider == rt ? 1 : ev->provider == rd_ ? 2 : 0;
    }
    if (!ev->provider_name || ev->no_event_id) {
        return 0;
    }
    return !strcmp(ev->provider_name, RUNTIME) ? 1 : !strcmp(ev->provider_name, RUNDOWN) ? 2 : 0;
}

void gcev_ga_providers_init(ga_providers *pv)
{
    pv->runtime = gcev_provider_find(RUNTIME);
    pv->rundown = gcev_provider_find(RUNDOWN);
}

int gcev_ga_classify(const gcev_trace_event *ev, const ga_providers *pv)
{
    switch (provider_of(ev, pv)) {
    case 1:
        switch (ev->event_id) {
        case 10:
            return GA_EV_TICK;
        case 303:
            return GA_EV_SAMPLED;
        case 20:
            return GA_EV_HEAP_HIGH;
        case 32:
            return GA_EV_HEAP_LOW;
        case 15:
            return GA_EV_BULK_TYPE;
        case 143:
            return GA_EV_METHOD_LOAD;
        case 144:
            return GA_EV_METHOD_UNLOAD;
        case 152:
            return GA_EV_MODULE;
        case 159:
            return GA_EV_ENTRY;
        default:
            return GA_EV_OTHER;
        }
    case 2:
        switch (ev->event_id) {
        case 143: /* MethodDCStartVerbose */
        case 144: /* MethodDCEndVerbose */
            return GA_EV_METHOD_LOAD;
        case 153: /* ModuleDCStart */
        case 154: /* ModuleDCEnd */
            return GA_EV_MODULE;
        default:
            return GA_EV_OTHER;
        }
    default:
        return GA_EV_OTHER;
    }
}

const char *gcev_ga_event_name(int cls)
{
    static const char *const names[] = {"event",
                                        "GCAllocationTick",
                                        "AllocationSampled",
                                        "GCSampledObjectAllocationHigh",
                                        "GCSampledObjectAllocationLow",
                                        "BulkType",
                                        "MethodLoadVerbose",
                                        "MethodUnloadVerbose",
                                        "ModuleLoad",
                                        "R2RGetEntryPoint"};
    return cls >= 0 && cls < (int)(sizeof names / sizeof names[0]) ? names[cls] : "event";
}

/* The sampler's p (RandomizedAllocationSampling.md: one Bernoulli trial per byte). */
#define SAMPLING_P (1.0 / 102400.0)

gcev_status gcev_allocs_sample_of(const gcev_trace_event *ev, gcev_allocs_sample *out, gcev_error *err)
{
    if (!ev || !out) {
        return GCEV_E_INVALID_ARG;
    }
    memset(out, 0, sizeof *out);
    ga_providers pv;
    gcev_ga_providers_init(&pv);
    return gcev_ga_sample(ev, gcev_ga_classify(ev, &pv), out, err, NULL);
}

/* Objects per AllocationSampled sample of an object of size bytes:
 * P(an object of S bytes is sampled) = 1 - (1 - p)^S; weight = 1 / that. */
double gcev_ga_sampled_objects(uint64_t size)
{
    double ps = size ? -expm1((double)size * log1p(-SAMPLING_P)) : SAMPLING_P;
    return 1.0 / ps;
}

gcev_status gcev_ga_sample(const gcev_trace_event *ev, int cls, gcev_allocs_sample *out, gcev_error *err,
                           ga_weight_slot *wc)
{
    gcev_status st;
    memset(out, 0, sizeof *out);
    switch (cls) {
    case GA_EV_TICK: {
        gcev_gc_allocation_tick t;
        st = gcev_decode_gc_allocation_tick(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &t,
                                            NULL, err);
        if (st != GCEV_OK) {
            return st;
        }
        out->source = GCEV_ALLOCS_TICK;
        out->kind = t.allocation_kind;
        out->type_id = t.type_id;
        out->type_name = t.type_name;
        out->size = (t.present & GCEV_GC_ALLOCATION_TICK_HAS_OBJECT_SIZE) ? t.object_size : 0;
        out->bytes = (t.present & GCEV_GC_ALLOCATION_TICK_HAS_ALLOCATION_AMOUNT64)
                         ? (double)t.allocation_amount64
                         : (double)t.allocation_amount;
        out->objects = out->size ? out->bytes / (double)out->size : 0.0;
        return GCEV_OK;
    }
    case GA_EV_SAMPLED: {
        gcev_allocation_sampled s;
        st = gcev_decode_allocation_sampled(ev->payload, ev->payload_size, ev->version, ev->pointer_size, &s,
                                            NULL, err);
        if (st != GCEV_OK) {
            return st;
        }
        out->source = GCEV_ALLOCS_SAMPLED;
        out->kind = s.allocation_kind;
        out->type_id = s.type_id;
        out->type_name = s.type_name;
        out->size = s.object_size;
        out->objects = gcev_ga_sampled_weight(wc, s.object_size); /* sizes repeat: computed once each */
        out->bytes = (double)s.object_size * out->objects;
        return GCEV_OK;
    }
    case GA_EV_HEAP_HIGH:
    case GA_EV_HEAP_LOW: {
        gcev_gc_sampled_object_allocation_high h; /* High and Low share one layout */
        if (cls == GA_EV_HEAP_HIGH) {
            st = gcev_decode_gc_sampled_object_allocation_high(ev->payload, ev->payload_size, ev->version,
                                                               ev->pointer_size, &h, NULL, err);
        } else {
            gcev_gc_sampled_object_allocation_low l;
            st = gcev_decode_gc_sampled_object_allocation_low(ev->payload, ev->payload_size, ev->version,
                                                              ev->pointer_size, &l, NULL, err);
            h.type_id = l.type_id;
            h.object_count_for_type_sample = l.object_count_for_type_sample;
            h.total_size_for_type_sample = l.total_size_for_type_sample;
        }
        if (st != GCEV_OK) {
            return st;
        }
        out->source = GCEV_ALLOCS_HEAP_ALLOC;
        out->kind = GCEV_ALLOCS_SMALL;
        out->type_id = h.type_id;
        out->bytes = (double)h.total_size_for_type_sample;
        out->objects = (double)h.object_count_for_type_sample;
        out->size = h.object_count_for_type_sample
                        ? h.total_size_for_type_sample / h.object_count_for_type_sample
                        : 0;
        return GCEV_OK;
    }
    default:
        return GCEV_E_UNKNOWN_EVENT;
    }
}

const char *gcev_allocs_kind_name(uint32_t kind)
{
    static const char *const k[] = {"small", "large", "pinned"};
    return kind < 3 ? k[kind] : "?";
}

const char *gcev_allocs_source_name(uint32_t source)
{
    static const char *const s[] = {"auto", "tick", "sampled", "heap-alloc"};
    return source < 4 ? s[source] : "?";
}
