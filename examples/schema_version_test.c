/* SPDX-License-Identifier: MIT */
/*
 * A schema-version unit test, as a user of gcev writes one with the encoder:
 * build a GCStart_V2 and a GCHeapStats_V1 as typed structs, encode them into
 * payload bytes, decode them back and compare every field, then cut each payload
 * short and check that the error names the field and the byte offset where the
 * payload ends. Exits 0 when every check holds, else prints what failed.
 */
#include <gcev/gcev.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                         \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

static const gcev_provider *runtime(void)
{
    return gcev_provider_find("Microsoft-Windows-DotNETRuntime");
}

/* An event ready for gcev_encode: its template (provider, id, version) and pointer size. */
static gcev_event blank(uint16_t id, uint16_t version)
{
    gcev_event ev;
    memset(&ev, 0, sizeof ev);
    gcev_status st;
    ev.desc = gcev_event_desc_resolve(runtime(), id, version, &st);
    CHECK(ev.desc != NULL);
    ev.version = version;
    ev.pointer_size = 8;
    return ev;
}

static size_t encode(const gcev_event *ev, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    gcev_error err;
    CHECK(gcev_encode(ev, buf, cap, &n, &err) == GCEV_OK);
    return n;
}

/* Decoding the first `cut` bytes fails in field `field`, which starts at byte `offset`. */
static void check_truncated(uint16_t id, uint16_t version, const uint8_t *p, size_t cut, const char *field,
                            uint64_t offset)
{
    gcev_input in = {.struct_size = sizeof in,
                     .provider = runtime(),
                     .event_id = id,
                     .version = version,
                     .pointer_size = 8,
                     .data = p,
                     .size = cut};
    gcev_event ev;
    gcev_error err;
    CHECK(gcev_decode(&in, &ev, &err) == GCEV_E_TRUNCATED);
    CHECK(err.code == GCEV_E_TRUNCATED);
    CHECK(err.field != NULL && strcmp(err.field, field) == 0);
    CHECK(err.offset == offset);
    if (err.field && strcmp(err.field, field) != 0) {
        fprintf(stderr, "  cut at %zu: field %s at %llu, expected %s at %llu\n", cut, err.field,
                (unsigned long long)err.offset, field, (unsigned long long)offset);
    }
}

static void test_gc_start_v2(void)
{
    gcev_event ev = blank(1, 2);
    ev.u.gc_start.count = 42;
    ev.u.gc_start.depth = 2;
    ev.u.gc_start.reason = 1; /* Induced */
    ev.u.gc_start.type = 1;   /* BackgroundGC */
    ev.u.gc_start.clr_instance_id = 9;
    ev.u.gc_start.client_sequence_number = 0x1122334455667788ull;
    uint8_t p[64];
    size_t n = encode(&ev, p, sizeof p);
    CHECK(n == 26); /* Count, Depth, Reason, Type (4 each), ClrInstanceID (2), ClientSequenceNumber (8) */

    gcev_input in = {.struct_size = sizeof in,
                     .provider = runtime(),
                     .event_id = 1,
                     .version = 2,
                     .pointer_size = 8,
                     .data = p,
                     .size = n};
    gcev_event back;
    gcev_error err;
    CHECK(gcev_decode(&in, &back, &err) == GCEV_OK);
    CHECK(back.family == GCEV_FAMILY_GC_START && back.u.gc_start.schema_version == 2);
    CHECK(back.u.gc_start.count == 42 && back.u.gc_start.depth == 2);
    CHECK(back.u.gc_start.reason == 1 && back.u.gc_start.type == 1);
    CHECK(back.u.gc_start.clr_instance_id == 9);
    CHECK(back.u.gc_start.present & GCEV_GC_START_HAS_CLIENT_SEQUENCE_NUMBER);
    CHECK(back.u.gc_start.client_sequence_number == 0x1122334455667788ull);
    CHECK(strcmp(gcev_gc_reason_map_name(back.u.gc_start.reason), "Induced") == 0);

    /* the same bytes as version 1 (no ClientSequenceNumber): 8 trailing bytes, not an error */
    gcev_input v1 = {.struct_size = sizeof v1,
                     .provider = runtime(),
                     .event_id = 1,
                     .version = 1,
                     .pointer_size = 8,
                     .data = p,
                     .size = n};
    CHECK(gcev_decode(&v1, &back, &err) == GCEV_OK);
    CHECK(back.trailing == 8 && !(back.u.gc_start.present & GCEV_GC_START_HAS_CLIENT_SEQUENCE_NUMBER));

    check_truncated(1, 2, p, 10, "Reason", 8);
    check_truncated(1, 2, p, 17, "ClrInstanceID", 16);
    check_truncated(1, 2, p, 25, "ClientSequenceNumber", 18);
}

static void test_gc_heap_stats_v1(void)
{
    gcev_event ev = blank(4, 1);
    gcev_gc_heap_stats *h = &ev.u.gc_heap_stats;
    h->generation_size0 = 1000;
    h->total_promoted_size0 = 100;
    h->generation_size1 = 2000;
    h->total_promoted_size1 = 200;
    h->generation_size2 = 3000;
    h->total_promoted_size2 = 300;
    h->generation_size3 = 4000;
    h->total_promoted_size3 = 400;
    h->finalization_promoted_size = 5;
    h->finalization_promoted_count = 6;
    h->pinned_object_count = 7;
    h->sink_block_count = 8;
    h->gc_handle_count = 9;
    h->clr_instance_id = 3;
    uint8_t p[128];
    size_t n = encode(&ev, p, sizeof p);
    CHECK(n == 10 * 8 + 3 * 4 + 2); /* V1 has no generation 4 (POH) */

    gcev_input in = {.struct_size = sizeof in,
                     .provider = runtime(),
                     .event_id = 4,
                     .version = 1,
                     .pointer_size = 8,
                     .data = p,
                     .size = n};
    gcev_event back;
    gcev_error err;
    CHECK(gcev_decode(&in, &back, &err) == GCEV_OK);
    const gcev_gc_heap_stats *b = &back.u.gc_heap_stats;
    CHECK(back.family == GCEV_FAMILY_GC_HEAP_STATS && b->schema_version == 1);
    CHECK(b->generation_size0 == 1000 && b->total_promoted_size3 == 400);
    CHECK(b->finalization_promoted_count == 6 && b->pinned_object_count == 7);
    CHECK(b->gc_handle_count == 9 && b->clr_instance_id == 3);
    CHECK(!(b->present & GCEV_GC_HEAP_STATS_HAS_GENERATION_SIZE4)); /* absent, not 0 */

    check_truncated(4, 1, p, 7, "GenerationSize0", 0);
    check_truncated(4, 1, p, 83, "PinnedObjectCount", 80);
    check_truncated(4, 1, p, n - 1, "ClrInstanceID", 92);
}

int main(void)
{
    test_gc_start_v2();
    test_gc_heap_stats_v1();
    if (failures) {
        fprintf(stderr, "schema_version_test: %d check(s) failed\n", failures);
        return 1;
    }
    printf(
        "schema_version_test: GCStart_V2 and GCHeapStats_V1 round-trip; truncations name field and offset\n");
    return 0;
}
