/* SPDX-License-Identifier: MIT */
/*
 * Schema-wide decoder tests: for every (provider, id, version) of the build and
 * both pointer sizes, a payload is built from the template (distinct values per
 * field, two elements per array, short strings), then
 *  - it decodes with every field present, nothing trailing;
 *  - it encodes back to the same bytes;
 *  - every truncation 0..size-1 fails with the right status, field and offset,
 *    and flags exactly the fields before the fault as present;
 *  - a newer version decodes with the newest template and reports the extra bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev.h>

#include "testutil.h"
#include "gcev_schema_desc.h"

/* The two events whose real payloads use C-aligned elements (doc/quirks.md Q1, Q2). */
static int aligned_quirk(const gcev_event_desc *d)
{
    return strcmp(d->provider->name, "Microsoft-Windows-DotNETRuntime") == 0 &&
           (d->id == 208 || d->id == 209);
}

typedef struct buf {
    uint8_t b[8192];
    size_t n;
} buf;

static void put_uint(buf *b, uint64_t v, unsigned w)
{
    for (unsigned i = 0; i < w; i++) {
        b->b[b->n++] = (uint8_t)(v >> (8 * i));
    }
}

static unsigned wire(gcev_type t, unsigned ps)
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
    case GCEV_T_FLOAT:
    case GCEV_T_BOOLEAN:
        return 4;
    case GCEV_T_POINTER:
        return ps;
    case GCEV_T_GUID:
    case GCEV_T_SYSTEMTIME:
        return 16;
    case GCEV_T_INT64:
    case GCEV_T_UINT64:
    case GCEV_T_DOUBLE:
    case GCEV_T_FILETIME:
        return 8;
    default:
        return 0;
    }
}

static int is_referenced(const gcev_template *t, uint16_t i, int *as_length)
{
    for (uint16_t j = 0; j < t->nfields; j++) {
        if (t->fields[j].count_field == (int16_t)i) {
            *as_length = 0;
            return 1;
        }
        if (t->fields[j].length_field == (int16_t)i) {
            *as_length = t->fields[j].type == GCEV_T_UNICODE_STRING ? 2 : 1;
            return 1;
        }
    }
    return 0;
}

static void build(buf *b, const gcev_template *t, unsigned ps, int aligned, int elems_aligned, unsigned seed)
{
    size_t start = b->n, max_align = 1;
    for (uint16_t i = 0; i < t->nfields; i++) {
        const gcev_field_desc *f = &t->fields[i];
        gcev_type type = (gcev_type)f->type;
        unsigned w = wire(type, ps);
        if (f->store == GCEV_S_ARRAY) {
            uint32_t count = f->count_field >= 0 ? 2 : f->fixed_count;
            for (uint32_t e = 0; e < count; e++) {
                if (f->elem) {
                    build(b, f->elem, ps, elems_aligned, elems_aligned, seed + 16 * (e + 1));
                } else {
                    put_uint(b, 0x11 * (e + 1) + seed, w);
                }
            }
        } else if (type == GCEV_T_UNICODE_STRING) {
            uint32_t chars = f->length_field >= 0 ? 3 : 2;
            for (uint32_t c = 0; c < chars; c++) {
                put_uint(b, 'A' + c + seed % 7, 2);
            }
            if (f->length_field < 0) {
                put_uint(b, 0, 2);
            }
        } else if (type == GCEV_T_ANSI_STRING) {
            put_uint(b, 'x', 1);
            put_uint(b, 'y', 1);
            if (f->length_field < 0) {
                put_uint(b, 0, 1);
            } else {
                put_uint(b, 'z', 1);
            }
        } else if (type == GCEV_T_BINARY) {
            uint32_t len = f->length_field >= 0 ? 3 : f->fixed_count;
            for (uint32_t c = 0; c < len; c++) {
                put_uint(b, 0xB0 + c, 1);
            }
        } else {
            if (aligned) {
                unsigned a = type == GCEV_T_GUID ? 4 : (type == GCEV_T_SYSTEMTIME ? 2 : w);
                while ((b->n - start) % a) {
                    b->b[b->n++] = 0;
                }
                max_align = a > max_align ? a : max_align;
            }
            int as_length;
            if (is_referenced(t, i, &as_length)) {
                put_uint(b, as_length ? 3 : 2, w);
            } else if (type == GCEV_T_BOOLEAN) {
                put_uint(b, 1, w);
            } else {
                /* distinct bytes per field; top bit set in wide fields to catch truncation */
                uint64_t v = 0;
                for (unsigned k = 0; k < w; k++) {
                    v |= (uint64_t)((seed + i * 13 + k * 5 + 1) & 0x7f) << (8 * k);
                }
                put_uint(b, v, w);
            }
        }
    }
    if (aligned) {
        while ((b->n - start) % max_align) {
            b->b[b->n++] = 0;
        }
    }
}

typedef struct field_span {
    const char *name;
    uint32_t offset, end;
    int variable_elems;
    uint8_t bit;
} field_span;

static size_t spans_of(const gcev_event *ev, field_span *spans)
{
    gcev_field_iter it;
    gcev_field f;
    size_t n = 0;
    gcev_field_iter_init(&it, ev);
    while (gcev_field_next(&it, &f)) {
        spans[n].name = f.name;
        spans[n].offset = f.payload_offset;
        /* the walk yields the template's fields in order, so field n is fields[n] */
        spans[n].bit = ev->desc->tmpl->fields[n].present_bit;
        spans[n].variable_elems = ev->desc->tmpl->fields[n].elem && f.v.array.stride == 0;
        n++;
    }
    for (size_t i = 0; i < n; i++) {
        spans[i].end = i + 1 < n ? spans[i + 1].offset : ev->consumed;
    }
    return n;
}

static uint64_t present_of(const gcev_event *ev)
{
    uint64_t p;
    memcpy(&p, &ev->u, sizeof p);
    return p;
}

static void check_event(const gcev_event_desc *d, unsigned ps, int *nchecked)
{
    buf b = {{0}, 0};
    if (d->tmpl) {
        build(&b, d->tmpl, ps, 0, aligned_quirk(d), d->id);
    }
    gcev_input in = {.struct_size = sizeof in,
                     .provider = d->provider,
                     .event_id = d->id,
                     .version = d->version,
                     .pointer_size = (uint8_t)ps,
                     .data = b.b,
                     .size = b.n};
    gcev_event ev;
    gcev_error err;
    gcev_status st = gcev_decode(&in, &ev, &err);
    if (st != GCEV_OK) {
        fail_msg("%s ps=%u: %s at %llu (%s)", d->symbol, ps, err.message, (unsigned long long)err.offset,
                 err.field ? err.field : "-");
    }
    assert_ptr_equal(ev.desc, d);
    assert_int_equal(ev.consumed, b.n);
    assert_int_equal(ev.trailing, 0);

    field_span spans[64];
    size_t nspans = spans_of(&ev, spans);
    assert_int_equal(nspans, d->tmpl ? d->tmpl->nfields : 0);
    uint64_t all = 0;
    for (size_t i = 0; i < nspans; i++) {
        all |= UINT64_C(1) << spans[i].bit;
    }
    assert_true(present_of(&ev) == all);

    /* encode -> identical bytes */
    uint8_t out[8192];
    size_t written = 0;
    st = gcev_encode(&ev, out, sizeof out, &written, &err);
    if (st != GCEV_OK) {
        fail_msg("%s ps=%u: encode %s (%s)", d->symbol, ps, err.message, err.field ? err.field : "-");
    }
    assert_int_equal(written, b.n);
    assert_memory_equal(out, b.b, b.n);
    /* too small a buffer: the needed size, never an overflow */
    if (b.n > 0) {
        st = gcev_encode(&ev, out, b.n - 1, &written, &err);
        assert_int_equal(st, GCEV_E_NO_SPACE);
        assert_int_equal(written, b.n);
    }

    /* every truncation */
    for (size_t len = 0; len < b.n; len++) {
        uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan catches any overread */
        memcpy(copy, b.b, len);
        gcev_input tin = in;
        tin.data = copy;
        tin.size = len;
        gcev_event tev;
        st = gcev_decode(&tin, &tev, &err);
        assert_true(st == GCEV_E_TRUNCATED || st == GCEV_E_UNTERMINATED_STRING);
        assert_int_equal(err.code, st);
        size_t k;
        for (k = 0; k < nspans && spans[k].end <= len; k++) {
        }
        assert_true(k < nspans);
        if (!err.field || strcmp(err.field, spans[k].name) != 0) {
            fail_msg("%s ps=%u len=%zu: fault in '%s', expected '%s'", d->symbol, ps, len,
                     err.field ? err.field : "(null)", spans[k].name);
        }
        if (spans[k].variable_elems) {
            assert_true(err.offset >= spans[k].offset && err.offset <= len);
        } else if (err.offset != spans[k].offset) {
            /* an aligned element field may fail at its padded start */
            fail_msg("%s ps=%u len=%zu: offset %llu, expected %u", d->symbol, ps, len,
                     (unsigned long long)err.offset, spans[k].offset);
        }
        uint64_t before = 0;
        for (size_t j = 0; j < k; j++) {
            before |= UINT64_C(1) << spans[j].bit;
        }
        assert_true(present_of(&tev) == before);
        free(copy);
    }

    /* a newer version: newest template, extra bytes reported */
    if (d->version < 255) {
        const gcev_event_desc *newest = gcev_event_desc_resolve(d->provider, d->id, 255, NULL);
        if (newest == d) {
            buf nb = b;
            put_uint(&nb, 0xdeadbeef, 4);
            gcev_input nin = {.struct_size = sizeof nin,
                              .provider = d->provider,
                              .event_id = d->id,
                              .version = (uint16_t)(d->version + 1),
                              .pointer_size = (uint8_t)ps,
                              .data = nb.b,
                              .size = nb.n};
            assert_int_equal(gcev_decode(&nin, &ev, &err), GCEV_OK);
            assert_ptr_equal(ev.desc, d);
            assert_int_equal(ev.newer_version, 1);
            assert_int_equal(ev.trailing, 4);
        }
    }
    (*nchecked)++;
}

static void test_every_event_version_round_trips_and_truncates(void **state)
{
    (void)state;
    size_t np;
    const gcev_provider *const *ps = gcev_providers(&np);
    int checked = 0;
    for (size_t p = 0; p < np; p++) {
        for (uint16_t e = 0; e < ps[p]->nevents; e++) {
            check_event(&ps[p]->events[e], 8, &checked);
            check_event(&ps[p]->events[e], 4, &checked);
        }
    }
    print_message("%d (event version, pointer size) pairs checked\n", checked);
    /* 132 GC event versions of the runtime + the GCDynamicEvent inner layouts */
    assert_true(checked >= 2 * 132);
}

static void test_gc_start_v2_real_payload_has_typed_fields(void **state)
{
    (void)state;
    /* GCStart_V2 from the .NET Core 3.0 trace: Count=8, Depth=0, Reason=1 (edited), Type=0, ClrInstanceID=3
     */
    static const uint8_t payload[] = {
        0x08, 0x00, 0x00, 0x00,                /* Count */
        0x00, 0x00, 0x00, 0x00,                /* Depth */
        0x01, 0x00, 0x00, 0x00,                /* Reason: Induced */
        0x00, 0x00, 0x00, 0x00,                /* Type: NonConcurrentGC */
        0x03, 0x00,                            /* ClrInstanceID */
        0x2a, 0,    0,    0,    0, 0, 0, 0x80, /* ClientSequenceNumber, top bit set */
    };
    gcev_gc_start s;
    gcev_error err;
    assert_int_equal(gcev_decode_gc_start(payload, sizeof payload, 2, 8, &s, NULL, &err), GCEV_OK);
    assert_int_equal(s.schema_version, 2);
    assert_int_equal(s.count, 8);
    assert_int_equal(s.reason, 1);
    assert_string_equal(gcev_gc_reason_map_name(s.reason), "Induced");
    assert_true(s.client_sequence_number == UINT64_C(0x800000000000002a));
    assert_true(s.present & GCEV_GC_START_HAS_CLIENT_SEQUENCE_NUMBER);
    /* the same bytes as V1 leave ClientSequenceNumber absent, not zero-but-present */
    assert_int_equal(gcev_decode_gc_start(payload, sizeof payload, 1, 8, &s, NULL, &err), GCEV_OK);
    assert_false(s.present & GCEV_GC_START_HAS_CLIENT_SEQUENCE_NUMBER);
}

/* Members in the newest version's wire order (Count, Depth, Reason, Type, ...); bits follow. */
static void test_gc_start_members_follow_the_newest_wire_order(void **state)
{
    (void)state;
    assert_true(offsetof(gcev_gc_start, count) < offsetof(gcev_gc_start, depth));
    assert_true(offsetof(gcev_gc_start, depth) < offsetof(gcev_gc_start, reason));
    assert_true(offsetof(gcev_gc_start, reason) < offsetof(gcev_gc_start, type));
    assert_true(offsetof(gcev_gc_start, type) < offsetof(gcev_gc_start, clr_instance_id));
    assert_true(offsetof(gcev_gc_start, clr_instance_id) < offsetof(gcev_gc_start, client_sequence_number));
    assert_true(GCEV_GC_START_HAS_COUNT == UINT64_C(1) << 0);
    assert_true(GCEV_GC_START_HAS_DEPTH == UINT64_C(1) << 1);
    assert_true(GCEV_GC_START_HAS_REASON == UINT64_C(1) << 2);
    assert_true(GCEV_GC_START_HAS_TYPE == UINT64_C(1) << 3);
}

/* The typed decoder reports consumed bytes as gcev_decode does; NULL is allowed. */
static void test_typed_decoder_reports_consumed_like_gcev_decode(void **state)
{
    (void)state;
    uint8_t p[30] = {8, 0, 0, 0};
    gcev_gc_start s;
    uint32_t consumed = 99;
    assert_int_equal(gcev_decode_gc_start(p, sizeof p, 2, 8, &s, &consumed, NULL), GCEV_OK);
    assert_int_equal(consumed, 26);
    gcev_input in = {.struct_size = sizeof in,
                     .provider = &gcev_provider_runtime,
                     .event_id = 1,
                     .version = 2,
                     .pointer_size = 8,
                     .data = p,
                     .size = sizeof p};
    gcev_event ev;
    assert_int_equal(gcev_decode(&in, &ev, NULL), GCEV_OK);
    assert_int_equal(ev.consumed, consumed);
    assert_int_equal(ev.trailing, 4);
    /* V1 uses 18 bytes, a newer version than known the newest template's 26 */
    assert_int_equal(gcev_decode_gc_start(p, sizeof p, 1, 8, &s, &consumed, NULL), GCEV_OK);
    assert_int_equal(consumed, 18);
    assert_int_equal(gcev_decode_gc_start(p, sizeof p, 9, 8, &s, &consumed, NULL), GCEV_OK);
    assert_int_equal(consumed, 26);
    /* a truncated payload: what was read before the fault */
    gcev_error err;
    assert_int_equal(gcev_decode_gc_start(p, 10, 2, 8, &s, &consumed, &err), GCEV_E_TRUNCATED);
    assert_int_equal(consumed, 8);
    assert_string_equal(err.field, "Reason");
    assert_int_equal(err.offset, 8);
    assert_int_equal(gcev_decode_gc_start(p, sizeof p, 2, 8, &s, NULL, NULL), GCEV_OK);
}

static void test_lookup_errors_are_specific(void **state)
{
    (void)state;
    uint8_t b[4] = {0};
    gcev_event ev;
    gcev_error err;
    gcev_input in = {.struct_size = sizeof in,
                     .provider = &gcev_provider_runtime,
                     .event_id = 24,
                     .version = 0,
                     .pointer_size = 8,
                     .data = b,
                     .size = sizeof b}; /* 24 is unused */
    assert_int_equal(gcev_decode(&in, &ev, &err), GCEV_E_UNKNOWN_EVENT);
    in.event_id = 203; /* GCJoin_V2 only exists as version 2 */
    in.version = 1;
    assert_int_equal(gcev_decode(&in, &ev, &err), GCEV_E_UNKNOWN_VERSION);
    in.version = 2;
    in.pointer_size = 2;
    assert_int_equal(gcev_decode(&in, &ev, &err), GCEV_E_BAD_POINTER_SIZE);
    in.provider = NULL;
    assert_int_equal(gcev_decode(&in, &ev, &err), GCEV_E_UNKNOWN_PROVIDER);
    assert_int_equal(gcev_decode(NULL, &ev, &err), GCEV_E_INVALID_ARG);
    assert_string_equal(gcev_status_str(GCEV_E_TRUNCATED), "payload ends inside a field");
    assert_string_equal(gcev_status_str((gcev_status)9999), "unknown status");
}

static void test_provider_lookup_by_name_and_guid(void **state)
{
    (void)state;
    assert_ptr_equal(gcev_provider_find("Microsoft-Windows-DotNETRuntime"), &gcev_provider_runtime);
    assert_ptr_equal(gcev_provider_find("microsoft-windows-dotnetruntime"), &gcev_provider_runtime);
    assert_ptr_equal(gcev_provider_find("{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}"), &gcev_provider_runtime);
    assert_ptr_equal(gcev_provider_find("763FD754-7086-4DFE-95EB-C01A46FAF4CA"), &gcev_provider_private);
    assert_ptr_equal(gcev_provider_find("a669021c-c450-4609-a035-5af59af4df18"), &gcev_provider_rundown);
    assert_ptr_equal(gcev_provider_find("7f442d82-0f1d-5155-4b8c-1529eb2e31c2"), &gcev_provider_mono);
    assert_null(gcev_provider_find("Microsoft-Windows-Kernel"));
    assert_null(gcev_provider_find("e13c0d23-ccbc-4e12-931b-d9cc2eee27e"));
    char g[37];
    gcev_guid_format(&gcev_provider_runtime.guid, g);
    assert_string_equal(g, "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
}

static void test_maps_name_values_and_format_bits(void **state)
{
    (void)state;
    assert_string_equal(gcev_gc_reason_map_name(0), "AllocSmall");
    assert_string_equal(gcev_gc_reason_map_name(9), "InducedLowMemory");
    assert_null(gcev_gc_reason_map_name(10));
    assert_string_equal(gcev_gc_suspend_ee_reason_map_name(7), "SuspendForDebuggerSweep");
    assert_string_equal(gcev_gc_type_map_name(1), "BackgroundGC");
    char text[64];
    assert_int_equal(gcev_gc_root_flags_map_format(0x3, text, sizeof text), strlen("Pinning|WeakRef"));
    assert_string_equal(text, "Pinning|WeakRef");
    gcev_gc_root_flags_map_format(0x11, text, sizeof text);
    assert_string_equal(text, "Pinning|0x10");
    gcev_gc_root_flags_map_format(0, text, sizeof text);
    assert_string_equal(text, "0x0");
    /* snprintf semantics: truncated but terminated, full length returned */
    char tiny[5];
    assert_int_equal(gcev_gc_root_flags_map_format(0x3, tiny, sizeof tiny), 15);
    assert_string_equal(tiny, "Pinn");
    assert_string_equal(gcev_gc_handle_type_map_name(3), "Pinned"); /* Mono */
}

/* GC reasons 10-17: the runtime's gc_reason beyond the manifest's map (doc/quirks.md Q3). */
static void test_gc_reason_names_beyond_the_map(void **state)
{
    (void)state;
    static const char *const beyond[8] = {"InducedCompacting",     "LowMemoryHost",    "PMFullGC",
                                          "LowMemoryHostBlocking", "BGCTuningSOH",     "BGCTuningLOH",
                                          "BGCStepping",           "InducedAggressive"};
    for (uint32_t r = 10; r <= 17; r++) {
        assert_null(gcev_gc_reason_map_name(r)); /* the manifest's map is left as it is */
        assert_string_equal(gcev_gc_reason_name(r), beyond[r - 10]);
        assert_string_equal(gcev_map_value_name(&gcev_gc_reason_map, r), beyond[r - 10]);
    }
    assert_string_equal(gcev_gc_reason_name(1), "Induced");
    assert_null(gcev_gc_reason_name(18));
    assert_null(gcev_map_value_name(NULL, 10));
    assert_null(gcev_map_value_name(&gcev_gc_type_map, 10)); /* only GCReasonMap is supplemented */
    char text[32];
    gcev_map_format(&gcev_gc_reason_map, 17, text, sizeof text);
    assert_string_equal(text, "InducedAggressive");
    gcev_map_format(&gcev_gc_reason_map, 18, text, sizeof text);
    assert_string_equal(text, "18");
    /* the formatters name it: GCStart_V2 Count=8 Depth=2 Reason=17 */
    uint8_t p[26] = {8, 0, 0, 0, 2, 0, 0, 0, 17};
    gcev_input in = {.struct_size = sizeof in,
                     .provider = &gcev_provider_runtime,
                     .event_id = 1,
                     .version = 2,
                     .pointer_size = 8,
                     .data = p,
                     .size = sizeof p};
    gcev_event ev;
    assert_int_equal(gcev_decode(&in, &ev, NULL), GCEV_OK);
    char names[128];
    gcev_format_names_json(&ev, names, sizeof names);
    assert_non_null(strstr(names, "\"Reason\":\"InducedAggressive\""));
}

/* AllocationSampled (Runtime 303 v0, .NET 10): in the schema, task AllocationSampling selected. */
static void test_allocation_sampled_is_a_gc_event(void **state)
{
    (void)state;
    gcev_status st;
    const gcev_event_desc *d = gcev_event_desc_resolve(&gcev_provider_runtime, 303, 0, &st);
    assert_non_null(d);
    gcev_event_info info;
    assert_int_equal(gcev_event_get_info(d, &info), GCEV_OK);
    assert_string_equal(info.symbol, "AllocationSampled");
    assert_string_equal(info.task_name, "AllocationSampling");
    assert_int_equal(info.task, 40);
    assert_true(info.keywords == UINT64_C(0x80000000000));
    assert_int_equal(info.level, 4);
    /* Kind 2 (POH), instance 7, TypeID, "A", Address, ObjectSize 48, SampledByteOffset 1000 */
    uint8_t p[] = {2, 0, 0, 0, 7, 0,  0x10, 0x20, 0x30, 0x40, 0, 0, 0, 0,    'A', 0, 0, 0, 0xa0, 0xb0, 0,
                   0, 0, 0, 0, 0, 48, 0,    0,    0,    0,    0, 0, 0, 0xe8, 3,   0, 0, 0, 0,    0,    0};
    gcev_input in = {.struct_size = sizeof in,
                     .provider = &gcev_provider_runtime,
                     .event_id = 303,
                     .version = 0,
                     .pointer_size = 8,
                     .data = p,
                     .size = sizeof p};
    gcev_event ev;
    assert_int_equal(gcev_decode(&in, &ev, NULL), GCEV_OK);
    assert_int_equal(ev.family, GCEV_FAMILY_ALLOCATION_SAMPLED);
    const gcev_allocation_sampled *a = &ev.u.allocation_sampled;
    assert_int_equal(a->allocation_kind, 2);
    assert_int_equal(a->clr_instance_id, 7);
    assert_true(a->type_id == UINT64_C(0x40302010));
    assert_int_equal(a->type_name.nbytes, 2);
    assert_true(a->address == UINT64_C(0xb0a0));
    assert_true(a->object_size == 48);
    assert_true(a->sampled_byte_offset == 1000);
    assert_int_equal(ev.trailing, 0);
    char names[128];
    gcev_format_names_json(&ev, names, sizeof names);
    assert_string_equal(names, "{\"AllocationKind\":\"Pinned\"}");
}

static void test_loh_compact_uses_aligned_elements(void **state)
{
    (void)state;
    /* Two elements laid out as the runtime sends them on x64: 32-byte stride */
    uint8_t p[4 + 64] = {0};
    p[0] = 3; /* ClrInstanceID */
    p[2] = 2; /* Count */
    for (int e = 0; e < 2; e++) {
        uint8_t *el = p + 4 + 32 * e;
        el[0] = (uint8_t)(10 + e);  /* TimePlan */
        el[4] = (uint8_t)(20 + e);  /* TimeCompact */
        el[8] = (uint8_t)(30 + e);  /* TimeRelocate */
        el[16] = (uint8_t)(40 + e); /* TotalRefs after 4 bytes of padding */
        el[24] = (uint8_t)(50 + e); /* ZeroRefs */
    }
    gcev_gcloh_compact c;
    assert_int_equal(gcev_decode_gcloh_compact(p, sizeof p, 0, 8, &c, NULL, NULL), GCEV_OK);
    assert_int_equal(c.values.count, 2);
    assert_int_equal(c.values.stride, 32);
    gcev_gcloh_compact_values v;
    assert_int_equal(gcev_gcloh_compact_values_at(&c.values, 1, &v, NULL), GCEV_OK);
    assert_int_equal(v.time_plan, 11);
    assert_int_equal(v.total_refs, 41);
    assert_int_equal(v.zero_refs, 51);
    assert_int_equal(gcev_gcloh_compact_values_at(&c.values, 2, &v, NULL), GCEV_E_INVALID_ARG);
}

static void test_dynamic_event_dispatches_on_name(void **state)
{
    (void)state;
    buf b = {{0}, 0};
    const char *name = "CommittedUsage";
    for (const char *c = name; *c; c++) {
        put_uint(&b, (uint8_t)*c, 2);
    }
    put_uint(&b, 0, 2);
    put_uint(&b, 42, 4); /* DataSize */
    put_uint(&b, 1, 2);  /* inner Version */
    for (int i = 0; i < 5; i++) {
        put_uint(&b, 1000u * (unsigned)(i + 1), 8);
    }
    put_uint(&b, 7, 2); /* ClrInstanceID */
    gcev_input in = {.struct_size = sizeof in,
                     .provider = &gcev_provider_runtime,
                     .event_id = 39,
                     .version = 0,
                     .pointer_size = 8,
                     .data = b.b,
                     .size = b.n};
    gcev_event outer, inner;
    gcev_error err;
    assert_int_equal(gcev_decode(&in, &outer, &err), GCEV_OK);
    assert_int_equal(outer.u.gc_dynamic_event.data_size, 42);
    assert_int_equal(gcev_decode_dynamic(&outer, &inner, &err), GCEV_OK);
    assert_string_equal(inner.desc->symbol, "CommittedUsage");
    assert_int_equal(inner.u.dynamic_committed_usage.total_committed_in_use, 1000);
    assert_int_equal(inner.u.dynamic_committed_usage.total_bookkeeping_committed, 5000);

    /* an unknown name stays a raw view */
    b.b[0] = 'X';
    assert_int_equal(gcev_decode(&in, &outer, &err), GCEV_OK);
    assert_int_equal(gcev_decode_dynamic(&outer, &inner, &err), GCEV_E_UNKNOWN_EVENT);
    assert_int_equal(outer.u.gc_dynamic_event.data.size, 42);
}

/* Exactly one byte after the template: decoded, consumed and trailing reported exactly. */
static void test_decode_one_trailing_byte_is_reported_not_an_error(void **state)
{
    (void)state;
    uint8_t p[27] = {8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0x2a, 0, 0, 0, 0, 0, 0, 0, 0xee};
    gcev_input in = {.struct_size = sizeof in,
                     .provider = &gcev_provider_runtime,
                     .event_id = 1,
                     .version = 2,
                     .pointer_size = 8,
                     .data = p,
                     .size = sizeof p};
    gcev_event ev;
    gcev_error err;
    assert_int_equal(gcev_decode(&in, &ev, &err), GCEV_OK);
    assert_int_equal(ev.consumed, 26);
    assert_int_equal(ev.trailing, 1);
    assert_int_equal(ev.newer_version, 0);
    assert_true(ev.u.gc_start.client_sequence_number == 0x2a);
    /* the same with a newer version: newest template, flagged, the byte trailing */
    in.version = 3;
    assert_int_equal(gcev_decode(&in, &ev, &err), GCEV_OK);
    assert_int_equal(ev.desc->version, 2);
    assert_int_equal(ev.version, 3);
    assert_int_equal(ev.newer_version, 1);
    assert_int_equal(ev.trailing, 1);
    /* on the general path too (a template with a string): GCAllocationTick_V2 + 1 byte */
    uint8_t a[4 + 4 + 2 + 8 + 8 + 4 + 4 + 1] = {0x10, 0, 0, 0};
    a[26] = 'T';
    gcev_input ain = {.struct_size = sizeof ain,
                      .provider = &gcev_provider_runtime,
                      .event_id = 10,
                      .version = 2,
                      .pointer_size = 8,
                      .data = a,
                      .size = sizeof a};
    assert_int_equal(gcev_decode(&ain, &ev, &err), GCEV_OK);
    assert_int_equal(ev.trailing, 1);
    assert_int_equal(ev.consumed, sizeof a - 1);
}

/* Decoding an older version into a struct that held a newer one: absent members read 0. */
static void test_decode_absent_members_are_zero_after_a_newer_decode(void **state)
{
    (void)state;
    uint8_t p[26];
    memset(p, 0x5a, sizeof p);
    gcev_gc_start s;
    assert_int_equal(gcev_decode_gc_start(p, sizeof p, 2, 8, &s, NULL, NULL), GCEV_OK);
    assert_true(s.client_sequence_number != 0);
    assert_int_equal(gcev_decode_gc_start(p, 18, 1, 8, &s, NULL, NULL), GCEV_OK);
    assert_false(s.present & GCEV_GC_START_HAS_CLIENT_SEQUENCE_NUMBER);
    assert_true(s.client_sequence_number == 0);
    assert_int_equal(s.schema_version, 1);
    assert_int_equal(gcev_decode_gc_start(p, 8, 0, 8, &s, NULL, NULL), GCEV_OK);
    assert_true(s.depth == 0 && s.type == 0 && s.clr_instance_id == 0);
    assert_true(s.count == 0x5a5a5a5a && s.reason == 0x5a5a5a5a);
}

/* 4-byte pointers into a struct that held 8-byte ones: the high half is zero. */
static void test_decode_pointer_size_4_after_8_leaves_no_high_bits(void **state)
{
    (void)state;
    /* GCGenerationRange: Generation u8, RangeStart ptr, RangeUsedLength u64,
     * RangeReservedLength u64, ClrInstanceID u16 */
    uint8_t p8[1 + 8 + 8 + 8 + 2], p4[1 + 4 + 8 + 8 + 2];
    memset(p8, 0xff, sizeof p8);
    memset(p4, 0x11, sizeof p4);
    gcev_gc_generation_range r;
    assert_int_equal(gcev_decode_gc_generation_range(p8, sizeof p8, 0, 8, &r, NULL, NULL), GCEV_OK);
    assert_true(r.range_start == UINT64_MAX);
    assert_int_equal(gcev_decode_gc_generation_range(p4, sizeof p4, 0, 4, &r, NULL, NULL), GCEV_OK);
    assert_true(r.range_start == 0x11111111);
    assert_true(r.range_used_length == UINT64_C(0x1111111111111111));
    assert_int_equal(r.clr_instance_id, 0x1111);
}

static void test_decode_primitive_array_element_past_count_is_zero(void **state)
{
    (void)state;
    uint8_t d[24] = {1, 0, 0, 0, 0, 0, 0, 0x80, 2, 0, 0, 0, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3, 3, 3};
    gcev_array a = {d, 16, 2, 8, 8, GCEV_T_UINT64, 0, NULL};
    assert_true(gcev_array_u64_at(&a, 0) == UINT64_C(0x8000000000000001));
    assert_true(gcev_array_u64_at(&a, 1) == 2);
    assert_true(gcev_array_u64_at(&a, 2) == 0); /* d[16..] is not part of the array */
    assert_true(gcev_array_u64_at(NULL, 0) == 0);
    a.stride = 4;
    assert_true(gcev_array_u64_at(&a, 1) == 0x80000000);
}

/*
 * gcev_decode_family() over every family and every version from 0 to one past the newest:
 * the status and struct of gcev_decode_desc() on the version gcev_event_desc_resolve()
 * picks, or its look-up error; GCEV_E_INVALID_ARG for family 0, one past the last, or no out.
 */
static void test_decode_family_every_family_and_version_matches_resolve(void **state)
{
    (void)state;
    static uint8_t zeros[4096];
    static gcev_union a, b;
    size_t families = 0;
    for (uint16_t fam = 1; gcev_family_get(fam); fam++) {
        const gcev_family_info *fi = gcev_family_get(fam);
        families++;
        int found_newer = 0;
        for (uint16_t v = 0; v < 64 && !found_newer; v++) {
            gcev_status want;
            const gcev_event_desc *d = gcev_event_desc_resolve(fi->provider, fi->id, v, &want);
            gcev_error ea = {0}, eb = {0};
            uint32_t ca = 0, cb = 0;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            gcev_status got = gcev_decode_family(fam, v, 8, zeros, sizeof zeros, &a, &ca, &ea);
            if (!d) {
                assert_int_equal(got, want);
                assert_int_equal(ea.code, want);
                continue;
            }
            gcev_status ref = gcev_decode_desc(d, 8, zeros, sizeof zeros, &b, &cb, &eb);
            assert_int_equal(got, ref);
            assert_int_equal(ca, cb);
            assert_memory_equal(&a, &b, fi->struct_size);
            gcev_event_info info;
            assert_int_equal(gcev_event_get_info(d, &info), GCEV_OK);
            found_newer = info.version < v; /* resolved to the newest: stop after one */
        }
        assert_true(found_newer);
    }
    assert_int_equal(families, GCEV_FAMILY_COUNT_ - 1);
    gcev_error err = {0};
    assert_int_equal(gcev_decode_family(0, 0, 8, zeros, 4, &a, NULL, &err), GCEV_E_INVALID_ARG);
    assert_int_equal(err.code, GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_decode_family(GCEV_FAMILY_COUNT_, 0, 8, zeros, 4, &a, NULL, &err),
                     GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_decode_family(GCEV_FAMILY_GC_START, 0, 8, zeros, 4, NULL, NULL, &err),
                     GCEV_E_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_event_version_round_trips_and_truncates),
        cmocka_unit_test(test_decode_family_every_family_and_version_matches_resolve),
        cmocka_unit_test(test_gc_start_v2_real_payload_has_typed_fields),
        cmocka_unit_test(test_gc_start_members_follow_the_newest_wire_order),
        cmocka_unit_test(test_typed_decoder_reports_consumed_like_gcev_decode),
        cmocka_unit_test(test_lookup_errors_are_specific),
        cmocka_unit_test(test_provider_lookup_by_name_and_guid),
        cmocka_unit_test(test_maps_name_values_and_format_bits),
        cmocka_unit_test(test_gc_reason_names_beyond_the_map),
        cmocka_unit_test(test_allocation_sampled_is_a_gc_event),
        cmocka_unit_test(test_loh_compact_uses_aligned_elements),
        cmocka_unit_test(test_dynamic_event_dispatches_on_name),
        cmocka_unit_test(test_decode_one_trailing_byte_is_reported_not_an_error),
        cmocka_unit_test(test_decode_absent_members_are_zero_after_a_newer_decode),
        cmocka_unit_test(test_decode_pointer_size_4_after_8_leaves_no_high_bits),
        cmocka_unit_test(test_decode_primitive_array_element_past_count_is_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
