/* SPDX-License-Identifier: MIT */
/*
 * EventPipe metadata records (src/trace/nettrace/gcev_nettrace_meta.c), fed to
 * the parser directly: a V6 row and a V5 record using every field-list feature
 * (nested objects, arrays, V6 fixed-length / relative / data-location arrays,
 * every optional-metadata kind, V5 opcode and V2Params tags) parse into the
 * expected field tree; every shorter prefix of them is a format error, never a
 * crash or a partial definition; redefining an id replaces it for later look-ups.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev.h>
#include <gcev/gcev_trace.h>

#include "gcev_nettrace_meta.h"

typedef struct rb {
    uint8_t b[1024];
    size_t n;
} rb;

static void u8(rb *r, unsigned v)
{
    r->b[r->n++] = (uint8_t)v;
}
static void un(rb *r, uint64_t v, unsigned w)
{
    for (unsigned i = 0; i < w; i++) {
        u8(r, (unsigned)(v >> (8 * i)) & 0xff);
    }
}
static void var(rb *r, uint64_t v)
{
    do {
        unsigned c = v & 0x7f;
        v >>= 7;
        u8(r, c | (v ? 0x80 : 0));
    } while (v);
}
static void str8(rb *r, const char *s)
{
    var(r, strlen(s));
    memcpy(r->b + r->n, s, strlen(s));
    r->n += strlen(s);
}
static void str16(rb *r, const char *s)
{
    for (; *s; s++) {
        un(r, (uint8_t)*s, 2);
    }
    un(r, 0, 2);
}
static void cat(rb *r, const rb *x)
{
    memcpy(r->b + r->n, x->b, x->n);
    r->n += x->n;
}

/* A V6 field: u16 size, then name and type (type bytes given). */
static void v6_field(rb *r, const char *name, const rb *type)
{
    rb f = {{0}, 0};
    str8(&f, name);
    cat(&f, type);
    un(r, f.n, 2);
    cat(r, &f);
}

static void v6_row(rb *row)
{
    row->n = 0;
    var(row, 5); /* metadata id */
    str8(row, "Prov");
    var(row, 42); /* event id */
    str8(row, "Ev");
    un(row, 6, 2); /* six fields */
    rb t = {{0}, 0};
    u8(&t, 9); /* Int32 */
    v6_field(row, "i", &t);
    t.n = 0;
    u8(&t, 1); /* Object {x: UInt16, y: String} */
    un(&t, 2, 2);
    rb tx = {{8}, 1}, ty = {{18}, 1};
    v6_field(&t, "x", &tx);
    v6_field(&t, "y", &ty);
    v6_field(row, "o", &t);
    t.n = 0;
    u8(&t, 19); /* Array of Int64 */
    u8(&t, 11);
    v6_field(row, "a", &t);
    t.n = 0;
    u8(&t, 22); /* FixedLengthArray of Byte, 4 */
    u8(&t, 6);
    un(&t, 4, 2);
    v6_field(row, "f", &t);
    t.n = 0;
    u8(&t, 24); /* RelLoc of UInt16 */
    u8(&t, 8);
    v6_field(row, "r", &t);
    t.n = 0;
    u8(&t, 25); /* DataLoc of Array of Object {x} */
    u8(&t, 19);
    u8(&t, 1);
    un(&t, 1, 2);
    v6_field(&t, "x", &tx);
    v6_field(row, "d", &t);
    /* optional metadata: every kind */
    rb o = {{0}, 0};
    u8(&o, 1);
    u8(&o, 7); /* opcode */
    u8(&o, 3);
    un(&o, 0xf0f0, 8); /* keywords */
    u8(&o, 4);
    str8(&o, "template {0}");
    u8(&o, 5);
    str8(&o, "a description");
    u8(&o, 6);
    str8(&o, "k");
    str8(&o, "v");
    u8(&o, 7);
    for (int i = 0; i < 16; i++) {
        u8(&o, 0x10 + i); /* provider GUID */
    }
    u8(&o, 8);
    u8(&o, 2); /* level */
    u8(&o, 9);
    u8(&o, 3); /* version */
    un(row, o.n, 2);
    cat(row, &o);
}

typedef struct np_fixture {
    gcev_trace t;
    gcev_nettrace *np;
} np_fixture;

static void np_open(np_fixture *f, uint32_t version)
{
    memset(f, 0, sizeof *f);
    f->np = calloc(1, sizeof *f->np);
    f->np->version = version;
    f->np->last_seq_index = UINT32_MAX;
    f->t.impl = f->np;
    f->t.info.format_version = version;
}

static void np_close(np_fixture *f)
{
    gcev_np_meta_free_all(f->np);
    free(f->np);
}

/* A V6 metadata block holding one row of size n (prefix of row). */
static gcev_status v6_block(np_fixture *f, const rb *row, size_t n, gcev_error *err)
{
    static rb blk;
    blk.n = 0;
    un(&blk, 0, 2); /* header size */
    un(&blk, n, 2);
    memcpy(blk.b + blk.n, row->b, n);
    blk.n += n;
    np_cur c = {blk.b, blk.n, 0};
    return gcev_np_meta_block_v6(&f->t, &c, 100, err);
}

static void test_nettrace_meta_v6_row_with_every_feature_parses(void **state)
{
    (void)state;
    rb row;
    v6_row(&row);
    np_fixture f;
    np_open(&f, 6);
    gcev_error err;
    assert_int_equal(v6_block(&f, &row, row.n, &err), GCEV_OK);
    const np_meta *m = gcev_np_meta_find(f.np, 5);
    assert_non_null(m);
    assert_string_equal(m->provider_name, "Prov");
    assert_string_equal(m->event_name, "Ev");
    assert_int_equal(m->event_id, 42);
    assert_int_equal(m->opcode, 7);
    assert_true(m->has_opcode);
    assert_true(m->keywords == 0xf0f0);
    assert_int_equal(m->level, 2);
    assert_int_equal(m->version, 3);
    assert_true(m->has_provider_guid);
    assert_int_equal(m->provider_guid.data1, 0x13121110);
    assert_int_equal(m->nfields, 6);
    assert_string_equal(m->fields[1].name, "o");
    assert_int_equal(m->fields[1].nfields, 2);
    assert_string_equal(m->fields[1].fields[1].name, "y");
    assert_int_equal(m->fields[1].fields[1].type_code, 18);
    assert_int_equal(m->fields[2].type_code, 19);
    assert_int_equal(m->fields[2].array_type_code, 11);
    assert_int_equal(m->fields[3].type_code, 22);
    assert_int_equal(m->fields[3].array_type_code, 6);
    assert_int_equal(m->fields[4].array_type_code, 8);
    assert_int_equal(m->fields[5].array_type_code, 19); /* DataLoc of an array of objects */
    assert_null(gcev_np_meta_find(f.np, 6));
    np_close(&f);
}

static void test_nettrace_meta_v6_every_shorter_row_is_a_format_error(void **state)
{
    (void)state;
    rb row;
    v6_row(&row);
    for (size_t n = 0; n < row.n; n++) {
        np_fixture f;
        np_open(&f, 6);
        gcev_error err = {0};
        gcev_status st = v6_block(&f, &row, n, &err);
        /* the optional metadata ends at an unknown kind, so a cut inside its last
         * property is an error; only the complete row defines the id */
        if (st != GCEV_E_FORMAT) {
            fail_msg("row cut at %zu of %zu: status %d", n, row.n, st);
        }
        assert_int_equal(err.offset, 100 + 2);
        assert_null(gcev_np_meta_find(f.np, 5));
        np_close(&f);
    }
}

static void test_nettrace_meta_v6_unknown_optional_kind_ends_the_options(void **state)
{
    (void)state;
    rb row = {{0}, 0};
    var(&row, 9);
    str8(&row, "P");
    var(&row, 1);
    str8(&row, "E");
    un(&row, 0, 2);
    un(&row, 4, 2); /* options: level 4, then kind 200 (unknown) and bytes after it */
    u8(&row, 8);
    u8(&row, 4);
    u8(&row, 200);
    u8(&row, 0xee);
    np_fixture f;
    np_open(&f, 6);
    gcev_error err;
    assert_int_equal(v6_block(&f, &row, row.n, &err), GCEV_OK);
    const np_meta *m = gcev_np_meta_find(f.np, 9);
    assert_non_null(m);
    assert_int_equal(m->level, 4);
    assert_int_equal(m->nfields, 0);
    /* the same id again: the new record wins for later events */
    rb again = row;
    again.b[2] = 'Q'; /* provider "Q" */
    assert_int_equal(v6_block(&f, &again, again.n, &err), GCEV_OK);
    assert_string_equal(gcev_np_meta_find(f.np, 9)->provider_name, "Q");
    /* a block whose header or rows overrun it */
    uint8_t bad[] = {4, 0, 1};
    np_cur c = {bad, sizeof bad, 0};
    assert_int_equal(gcev_np_meta_block_v6(&f.t, &c, 0, &err), GCEV_E_FORMAT);
    uint8_t over[] = {0, 0, 9, 0, 1};
    np_cur c2 = {over, sizeof over, 0};
    assert_int_equal(gcev_np_meta_block_v6(&f.t, &c2, 0, &err), GCEV_E_FORMAT);
    np_close(&f);
}

/* V5: V1 fields (with a nested object), an opcode tag and a V2Params list with an array. */
static void v5_record(rb *r)
{
    r->n = 0;
    un(r, 3, 4); /* metadata id */
    str16(r, "MySource");
    un(r, 11, 4); /* event id */
    str16(r, "Evt");
    un(r, 0x30, 8); /* keywords */
    un(r, 2, 4);    /* version */
    un(r, 5, 4);    /* level */
    un(r, 2, 4);    /* V1 fields: n:Int32, o:{z:Double} */
    un(r, 9, 4);
    str16(r, "n");
    un(r, 1, 4);
    un(r, 1, 4);
    un(r, 14, 4);
    str16(r, "z");
    str16(r, "o");
    un(r, 1, 4); /* tag: opcode */
    u8(r, 1);
    u8(r, 6);
    rb p = {{0}, 0}; /* tag: V2Params {arr: Array of UInt32} */
    un(&p, 1, 4);
    rb fld = {{0}, 0};
    str16(&fld, "arr");
    un(&fld, 19, 4);
    un(&fld, 10, 4);
    un(&p, fld.n + 4, 4);
    cat(&p, &fld);
    un(r, p.n, 4);
    u8(r, 2);
    cat(r, &p);
}

static void test_nettrace_meta_v5_tags_and_v2params_parse(void **state)
{
    (void)state;
    rb r;
    v5_record(&r);
    np_fixture f;
    np_open(&f, 4);
    gcev_error err;
    assert_int_equal(gcev_np_meta_v5(&f.t, r.b, r.n, 40, 0, &err), GCEV_OK);
    assert_int_equal(f.t.info.format_version, 5); /* only the tags tell V5 from V4 */
    const np_meta *m = gcev_np_meta_find(f.np, 3);
    assert_non_null(m);
    assert_string_equal(m->provider_name, "MySource");
    assert_string_equal(m->event_name, "Evt");
    assert_int_equal(m->version, 2);
    assert_int_equal(m->level, 5);
    assert_int_equal(m->opcode, 6);
    assert_true(m->keywords == 0x30);
    /* the V2Params list supersedes the V1 one */
    assert_int_equal(m->nfields, 1);
    assert_string_equal(m->fields[0].name, "arr");
    assert_int_equal(m->fields[0].type_code, 19);
    assert_int_equal(m->fields[0].array_type_code, 10);
    np_close(&f);
}

static void test_nettrace_meta_v5_every_shorter_record_is_a_format_error_or_a_prefix(void **state)
{
    (void)state;
    rb r;
    v5_record(&r);
    for (size_t n = 0; n < r.n; n++) {
        np_fixture f;
        np_open(&f, 4);
        gcev_error err = {0};
        gcev_status st = gcev_np_meta_v5(&f.t, r.b, n, 40, 0, &err);
        if (st == GCEV_OK) {
            /* a cut exactly after the header, the V1 field list or the opcode tag */
            const np_meta *m = gcev_np_meta_find(f.np, 3);
            assert_non_null(m);
            assert_true(m->nfields == 0 || m->nfields == 2); /* no field list, or the V1 one */
        } else {
            assert_int_equal(st, GCEV_E_FORMAT);
            assert_int_equal(err.offset, 40);
            assert_null(gcev_np_meta_find(f.np, 3));
        }
        np_close(&f);
    }
}

/* NetPerf V1 (provider by GUID) and V2 (by name) records: ids are file offsets. */
static void test_nettrace_meta_netperf_v1_v2_headers(void **state)
{
    (void)state;
    for (uint32_t version = 1; version <= 2; version++) {
        rb r = {{0}, 0};
        if (version == 1) {
            static const uint8_t g[16] = {0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e,
                                          0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4};
            memcpy(r.b, g, 16);
            r.n = 16;
        } else {
            str16(&r, "Microsoft-Windows-DotNETRuntime");
        }
        un(&r, 1, 4); /* event id */
        un(&r, 2, 4); /* version */
        un(&r, 0, 4); /* no repeated V3 header */
        np_fixture f;
        np_open(&f, version);
        gcev_error err;
        assert_int_equal(gcev_np_meta_v5(&f.t, r.b, r.n, 500, 500, &err), GCEV_OK);
        const np_meta *m = gcev_np_meta_find(f.np, 500);
        assert_non_null(m);
        assert_ptr_equal(m->provider, &gcev_provider_runtime);
        assert_true(m->has_provider_guid);
        assert_int_equal(m->event_id, 1);
        assert_int_equal(m->version, 2);
        assert_string_equal(m->event_name, "");
        /* cut inside the fixed part: a format error */
        assert_int_equal(gcev_np_meta_v5(&f.t, r.b, r.n - 1, 600, 600, &err), GCEV_E_FORMAT);
        np_close(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nettrace_meta_v6_row_with_every_feature_parses),
        cmocka_unit_test(test_nettrace_meta_v6_every_shorter_row_is_a_format_error),
        cmocka_unit_test(test_nettrace_meta_v6_unknown_optional_kind_ends_the_options),
        cmocka_unit_test(test_nettrace_meta_v5_tags_and_v2params_parse),
        cmocka_unit_test(test_nettrace_meta_v5_every_shorter_record_is_a_format_error_or_a_prefix),
        cmocka_unit_test(test_nettrace_meta_netperf_v1_v2_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
