/* SPDX-License-Identifier: MIT */
/* GCDynamicEvent second-level dispatch on its Name (src/decode/gcev_dynamic.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev.h>

typedef struct buf {
    uint8_t b[256];
    size_t n;
} buf;

static void put(buf *b, uint64_t v, unsigned w)
{
    for (unsigned i = 0; i < w; i++) {
        b->b[b->n++] = (uint8_t)(v >> (8 * i));
    }
}

/* A GCDynamicEvent with this name and a CommittedUsage V1 body of data_size bytes. */
static void outer(buf *b, const char *name, uint32_t data_size, gcev_event *ev)
{
    b->n = 0;
    for (const char *c = name; *c; c++) {
        put(b, (uint8_t)*c, 2);
    }
    put(b, 0, 2);
    put(b, data_size, 4);
    size_t body = b->n;
    put(b, 1, 2); /* inner Version */
    for (int i = 0; i < 5; i++) {
        put(b, 1000u * (unsigned)(i + 1), 8);
    }
    b->n = body + data_size;
    put(b, 7, 2); /* ClrInstanceID */
    gcev_input in = {.struct_size = sizeof in,
                     .provider = &gcev_provider_runtime,
                     .event_id = 39,
                     .version = 0,
                     .pointer_size = 8,
                     .data = b->b,
                     .size = b->n};
    assert_int_equal(gcev_decode(&in, ev, NULL), GCEV_OK);
}

static void test_dynamic_known_name_decodes_inner_event(void **state)
{
    (void)state;
    buf b;
    gcev_event ev, inner;
    gcev_error err;
    outer(&b, "CommittedUsage", 42, &ev);
    assert_int_equal(gcev_decode_dynamic(&ev, &inner, &err), GCEV_OK);
    gcev_event_info info;
    assert_int_equal(gcev_event_get_info(inner.desc, &info), GCEV_OK);
    assert_string_equal(info.symbol, "CommittedUsage");
    assert_ptr_equal(info.provider, &gcev_provider_dynamic);
    assert_int_equal(inner.u.dynamic_committed_usage.version, 1);
    assert_int_equal(inner.u.dynamic_committed_usage.total_committed_in_use, 1000);
    assert_int_equal(inner.newer_version, 0);
    /* a newer inner version: the newest layout, flagged, the rest trailing */
    b.b[2 * 14 + 2 + 4] = 2;
    gcev_input in = {.struct_size = sizeof in,
                     .provider = &gcev_provider_runtime,
                     .event_id = 39,
                     .version = 0,
                     .pointer_size = 8,
                     .data = b.b,
                     .size = b.n};
    assert_int_equal(gcev_decode(&in, &ev, NULL), GCEV_OK);
    assert_int_equal(gcev_decode_dynamic(&ev, &inner, &err), GCEV_OK);
    assert_int_equal(inner.version, 2);
    assert_int_equal(inner.newer_version, 1);
    assert_int_equal(gcev_event_get_info(inner.desc, &info), GCEV_OK);
    assert_int_equal(info.version, 1);
    assert_int_equal(inner.trailing, 0);
    assert_int_equal(inner.consumed, 42);
}

static void test_dynamic_name_starting_with_known_name_is_unknown(void **state)
{
    (void)state;
    static const char *const names[] = {"CommittedUsageX", "CommittedUsage2", "Committed", "committedusage",
                                        ""};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        buf b;
        gcev_event ev, inner;
        gcev_error err;
        outer(&b, names[i], 42, &ev);
        if (gcev_decode_dynamic(&ev, &inner, &err) != GCEV_E_UNKNOWN_EVENT) {
            fail_msg("name '%s' was dispatched", names[i]);
        }
        assert_int_equal(err.code, GCEV_E_UNKNOWN_EVENT);
        assert_string_equal(err.field, "Name");
        assert_int_equal(ev.u.gc_dynamic_event.data.size, 42); /* stays a raw view */
    }
}

static void test_dynamic_data_shorter_than_its_version_is_truncated(void **state)
{
    (void)state;
    for (uint32_t size = 0; size < 2; size++) {
        buf b;
        gcev_event ev, inner;
        gcev_error err;
        outer(&b, "CommittedUsage", size, &ev);
        assert_int_equal(gcev_decode_dynamic(&ev, &inner, &err), GCEV_E_TRUNCATED);
        assert_string_equal(err.field, "Version");
    }
    /* a one-byte blob of 0 followed by a 0 byte: still too short, never read as version 0 */
    {
        buf z;
        gcev_event ev, inner;
        gcev_error err;
        outer(&z, "CommittedUsage", 1, &ev);
        size_t body = 2 * 15 + 4;
        z.b[body] = 0;
        z.b[body + 1] = 0;
        z.b[body + 2] = 0;
        gcev_input in = {.struct_size = sizeof in,
                         .provider = &gcev_provider_runtime,
                         .event_id = 39,
                         .version = 0,
                         .pointer_size = 8,
                         .data = z.b,
                         .size = z.n};
        assert_int_equal(gcev_decode(&in, &ev, NULL), GCEV_OK);
        assert_int_equal(ev.u.gc_dynamic_event.data.size, 1);
        assert_int_equal(gcev_decode_dynamic(&ev, &inner, &err), GCEV_E_TRUNCATED);
        assert_string_equal(err.field, "Version");
    }
    /* the body cut inside a field: the inner decoder's own truncation */
    buf b;
    gcev_event ev, inner;
    gcev_error err;
    outer(&b, "CommittedUsage", 12, &ev);
    assert_int_equal(gcev_decode_dynamic(&ev, &inner, &err), GCEV_E_TRUNCATED);
    assert_int_equal(err.offset, 10);
}

static void test_dynamic_rejects_other_events_and_missing_fields(void **state)
{
    (void)state;
    gcev_event inner;
    gcev_error err;
    assert_int_equal(gcev_decode_dynamic(NULL, &inner, &err), GCEV_E_INVALID_ARG);
    uint8_t p[26] = {0};
    gcev_input in = {.struct_size = sizeof in,
                     .provider = &gcev_provider_runtime,
                     .event_id = 1,
                     .version = 2,
                     .pointer_size = 8,
                     .data = p,
                     .size = sizeof p};
    gcev_event gc;
    assert_int_equal(gcev_decode(&in, &gc, NULL), GCEV_OK);
    assert_int_equal(gcev_decode_dynamic(&gc, &inner, &err), GCEV_E_INVALID_ARG);
    assert_non_null(err.message);
    /* a GCDynamicEvent cut before Data: not a dispatchable event */
    buf b;
    gcev_event ev;
    outer(&b, "CommittedUsage", 42, &ev);
    ev.u.gc_dynamic_event.present &= ~GCEV_GC_DYNAMIC_EVENT_HAS_DATA;
    assert_int_equal(gcev_decode_dynamic(&ev, &inner, &err), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_decode_dynamic(&ev, &inner, NULL), GCEV_E_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dynamic_known_name_decodes_inner_event),
        cmocka_unit_test(test_dynamic_name_starting_with_known_name_is_unknown),
        cmocka_unit_test(test_dynamic_data_shorter_than_its_version_is_truncated),
        cmocka_unit_test(test_dynamic_rejects_other_events_and_missing_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
