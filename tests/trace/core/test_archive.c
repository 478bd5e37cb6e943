/* SPDX-License-Identifier: MIT */
/*
 * gcev_archive: detection, listing, several entries open and read interleaved as
 * streaming sources, the error of every kind of damage; and the trace API opening
 * a trace inside a ZIP (one trace entry picked, the others named when it cannot pick).
 * Archives are written in memory with libzip's writer (zip_builder.c).
 */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <gcev/gcev.h>

#include "failalloc.h"
#include "gcev_archive.h"
#include "trace_sample.h"
#include "zip_builder.h"

enum { BIG = 300000 };

static uint8_t *pattern(size_t n, uint32_t seed)
{
    uint8_t *p = malloc(n);
    assert_non_null(p);
    uint32_t x = seed;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        /* compressible but not constant: deflate produces real back-references */
        p[i] = (uint8_t)((i % 97 < 50) ? 'a' + (i % 7) : (x >> 24));
    }
    return p;
}

/* The compressed size of the first entry of the archive z (its central directory). */
static uint64_t packed_size(const uint8_t *z, size_t n)
{
    gcev_archive *a = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_archive_open_memory(z, n, &a, &err), GCEV_OK);
    uint64_t c = gcev_archive_entry_at(a, 0)->compressed_size;
    gcev_archive_close(a);
    return c;
}

static uint8_t *build(const zipb_entry *e, size_t n, size_t *size)
{
    uint8_t *z = zipb_build(e, n, size);
    assert_non_null(z);
    return z;
}

static void test_detect_zip_magics(void **state)
{
    (void)state;
    static const uint8_t local[] = {'P', 'K', 3, 4}, empty[] = {'P', 'K', 5, 6}, other[] = {'P', 'K', 7, 8};
    assert_true(gcev_archive_detect(local, 4));
    assert_true(gcev_archive_detect(empty, 4));
    assert_false(gcev_archive_detect(other, 4));
    assert_false(gcev_archive_detect(local, 3));
    assert_false(gcev_archive_detect(NULL, 4));
    assert_false(gcev_archive_detect((const uint8_t *)"Nettrace", 8));
}

static void test_lists_entries_with_sizes(void **state)
{
    (void)state;
    uint8_t *a = pattern(BIG, 1);
    zipb_entry e[] = {
        {"dir/", NULL, 0, ZIPB_STORE, 0},
        {"dir/trace.etl", a, BIG, ZIPB_DEFLATE, 0},
        {"symbols/x.pdb", "pdb", 3, ZIPB_STORE, 0},
    };
    size_t n = 0;
    uint8_t *z = build(e, 3, &n);
    gcev_archive *ar = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_archive_open_memory(z, n, &ar, &err), GCEV_OK);
    assert_int_equal(gcev_archive_count(ar), 3);
    const gcev_archive_entry *d = gcev_archive_entry_at(ar, 0);
    assert_string_equal(d->name, "dir/");
    assert_true(d->is_dir);
    assert_false(d->readable);
    const gcev_archive_entry *t = gcev_archive_entry_at(ar, 1);
    assert_string_equal(t->name, "dir/trace.etl");
    assert_int_equal(t->size, BIG);
    assert_true(t->compressed_size < BIG);
    assert_int_equal(t->index, 1);
    assert_true(t->readable);
    assert_false(t->is_dir);
    assert_ptr_equal(gcev_archive_find(ar, "symbols/x.pdb"), gcev_archive_entry_at(ar, 2));
    assert_int_equal(gcev_archive_entry_at(ar, 2)->size, 3);
    assert_null(gcev_archive_find(ar, "trace.etl"));
    assert_null(gcev_archive_entry_at(ar, 3));
    gcev_source s;
    assert_int_equal(gcev_archive_open_entry(ar, 0, &s, &err), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_archive_open_entry(ar, 3, &s, &err), GCEV_E_INVALID_ARG);
    gcev_archive_close(ar);
    free(z);
    free(a);
}

/* Reads `want` from s in steps of `step` bytes (take) and checks the end. */
static void expect_stream(gcev_source *s, const uint8_t *want, size_t n, size_t step, size_t *at)
{
    const uint8_t *v;
    gcev_error err;
    size_t k = n - *at < step ? n - *at : step;
    if (k) {
        assert_int_equal(gcev_source_take(s, k, &v, &err), GCEV_OK);
        assert_memory_equal(v, want + *at, k);
        *at += k;
    }
}

static void test_several_entries_read_interleaved(void **state)
{
    (void)state;
    uint8_t *a = pattern(BIG, 1), *b = pattern(BIG / 3, 2), *c = pattern(70000, 3);
    zipb_entry e[] = {
        {"a.bin", a, BIG, ZIPB_DEFLATE, 0},
        {"b.bin", b, BIG / 3, ZIPB_STORE, 0},
        {"c.bin", c, 70000, ZIPB_DEFLATE, 0},
    };
    size_t n = 0;
    uint8_t *z = build(e, 3, &n);
    gcev_archive *ar = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_archive_open_memory(z, n, &ar, &err), GCEV_OK);
    gcev_source sa, sb, sc;
    assert_int_equal(gcev_archive_open_entry(ar, 0, &sa, &err), GCEV_OK);
    assert_int_equal(gcev_archive_open_entry(ar, 1, &sb, &err), GCEV_OK);
    assert_int_equal(gcev_archive_open_entry(ar, 2, &sc, &err), GCEV_OK);
    assert_int_equal(sa.size, BIG);
    /* the same entry twice: each source has its own position */
    gcev_source sa2;
    assert_int_equal(gcev_archive_open_entry(ar, 0, &sa2, &err), GCEV_OK);
    /* the opener's reference may go first: the sources keep the archive */
    gcev_archive_close(ar);
    size_t i2 = 0;
    expect_stream(&sa2, a, BIG, 5000, &i2);
    size_t ia = 0, ib = 0, ic = 0;
    while (ia < BIG || ib < BIG / 3 || ic < 70000) {
        expect_stream(&sa, a, BIG, 4093, &ia);
        expect_stream(&sb, b, BIG / 3, 1000, &ib);
        expect_stream(&sc, c, 70000, 65536, &ic);
    }
    assert_int_equal(gcev_source_pos(&sa), BIG);
    expect_stream(&sa2, a, BIG, 5000, &i2);
    gcev_source_close(&sa2);
    /* the end: a short peek, then a take past it is a truncation */
    const uint8_t *v;
    size_t got = 99;
    assert_int_equal(gcev_source_peek(&sa, 8, &v, &got, &err), GCEV_OK);
    assert_int_equal(got, 0);
    assert_int_equal(gcev_source_take(&sb, 1, &v, &err), GCEV_E_TRUNCATED_FILE);
    assert_int_equal(err.offset, BIG / 3);
    gcev_source_close(&sa);
    gcev_source_close(&sb);
    gcev_source_close(&sc);
    free(z);
    free(a);
    free(b);
    free(c);
}

static void test_window_stays_one_take(void **state)
{
    (void)state;
    uint8_t *a = pattern(4u << 20, 9);
    zipb_entry e[] = {{"big.etl", a, 4u << 20, ZIPB_DEFLATE, 0}};
    size_t n = 0;
    uint8_t *z = build(e, 1, &n);
    gcev_archive *ar = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_archive_open_memory(z, n, &ar, &err), GCEV_OK);
    gcev_source s;
    assert_int_equal(gcev_archive_open_entry(ar, 0, &s, &err), GCEV_OK);
    gcev_archive_close(ar);
    assert_int_equal(gcev_source_skip(&s, (4u << 20) - 100, &err), GCEV_OK);
    const uint8_t *v;
    assert_int_equal(gcev_source_take(&s, 100, &v, &err), GCEV_OK);
    assert_memory_equal(v, a + (4u << 20) - 100, 100);
    /* 64 KiB takes never grew the window: the minimum one, or the 2 MiB huge page a source
     * starts with where huge pages can be had (either far below the 4 MiB skipped) */
    assert_true(s.buf_cap <= (s.buf_huge ? 2u << 20 : 64u << 10));
    gcev_source_close(&s);
    free(z);
    free(a);
}

static void test_cut_archive_is_truncated(void **state)
{
    (void)state;
    uint8_t *a = pattern(20000, 4);
    zipb_entry e[] = {{"t.etl", a, 20000, ZIPB_DEFLATE, 0}, {"u.pdb", "x", 1, ZIPB_STORE, 0}};
    size_t n = 0;
    uint8_t *z = build(e, 2, &n);
    /* every cut that loses the end record: truncation at the end of what is there */
    for (size_t cut = 4; cut + 22 <= n; cut += 97) {
        uint8_t *copy = malloc(cut);
        assert_non_null(copy);
        memcpy(copy, z, cut);
        gcev_archive *ar = (gcev_archive *)1;
        gcev_error err = {0};
        assert_int_equal(gcev_archive_open_memory(copy, cut, &ar, &err), GCEV_E_TRUNCATED_FILE);
        assert_null(ar);
        assert_int_equal(err.code, GCEV_E_TRUNCATED_FILE);
        assert_int_equal(err.offset, cut);
        assert_non_null(strstr(err.message, "central directory"));
        free(copy);
    }
    free(z);
    free(a);
}

static void test_corrupt_entry_data_is_format_error(void **state)
{
    (void)state;
    uint8_t *a = pattern(50000, 5);
    /* stored: a changed byte only shows in the CRC at the end of the entry */
    zipb_entry e[] = {{"t.etl", a, 50000, ZIPB_STORE, 0}};
    size_t n = 0;
    uint8_t *z = build(e, 1, &n);
    z[30 + 5 + 1000] ^= 0x55; /* local header (30) + name (5) + 1000 */
    gcev_archive *ar = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_archive_open_memory(z, n, &ar, &err), GCEV_OK);
    gcev_source s;
    assert_int_equal(gcev_archive_open_entry(ar, 0, &s, &err), GCEV_OK);
    const uint8_t *v;
    assert_int_equal(gcev_source_skip(&s, 50000, &err), GCEV_OK);
    /* libzip checks the CRC when the data ends, i.e. when a reader looks for more */
    size_t got = 0;
    assert_int_equal(gcev_source_peek(&s, 1, &v, &got, &err), GCEV_E_FORMAT);
    assert_int_equal(err.offset, 50000);
    assert_non_null(strstr(err.message, "CRC"));
    gcev_source_close(&s);
    gcev_archive_close(ar);
    free(z);

    /* deflated: garbage in the compressed stream */
    zipb_entry d[] = {{"t.etl", a, 50000, ZIPB_DEFLATE, 0}};
    z = build(d, 1, &n);
    memset(z + 30 + 5 + 10, 0xff, 64);
    assert_int_equal(gcev_archive_open_memory(z, n, &ar, &err), GCEV_OK);
    assert_int_equal(gcev_archive_open_entry(ar, 0, &s, &err), GCEV_OK);
    gcev_status st = gcev_source_skip(&s, 50000, &err);
    assert_int_equal(st, GCEV_E_FORMAT);
    assert_int_equal(err.code, GCEV_E_FORMAT);
    assert_true(err.offset < 50000);
    gcev_source_close(&s);
    gcev_archive_close(ar);
    free(z);
    free(a);
}

/* Offset of the first (central: last) record with signature PK<a><b>. */
static size_t find_sig(const uint8_t *z, size_t n, uint8_t a, uint8_t b, int last)
{
    size_t at = 0;
    for (size_t i = 0; i + 4 <= n; i++) {
        if (z[i] == 'P' && z[i + 1] == 'K' && z[i + 2] == a && z[i + 3] == b) {
            at = i;
            if (!last) {
                break;
            }
        }
    }
    return at;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* The directory's size is what is delivered: data beyond or short of it is an error there. */
static void test_entry_size_is_enforced(void **state)
{
    (void)state;
    uint8_t *a = pattern(20000, 8);
    for (int delta = -8; delta <= 8; delta += 16) {
        zipb_entry e[] = {{"t.etl", a, 20000, ZIPB_DEFLATE, 0}};
        size_t n = 0;
        uint8_t *z = build(e, 1, &n);
        uint32_t claimed = (uint32_t)(20000 + delta);
        put32(z + find_sig(z, n, 3, 4, 0) + 22, claimed);
        put32(z + find_sig(z, n, 1, 2, 1) + 24, claimed);
        gcev_archive *ar = NULL;
        gcev_error err = {0};
        assert_int_equal(gcev_archive_open_memory(z, n, &ar, &err), GCEV_OK);
        assert_int_equal(gcev_archive_entry_at(ar, 0)->size, claimed);
        gcev_source s;
        assert_int_equal(gcev_archive_open_entry(ar, 0, &s, &err), GCEV_OK);
        gcev_archive_close(ar);
        size_t good = delta < 0 ? claimed : 20000, at = 0;
        while (at < good) {
            expect_stream(&s, a, good, 3000, &at);
        }
        const uint8_t *v;
        size_t got = 0;
        assert_int_equal(gcev_source_peek(&s, 100, &v, &got, &err), GCEV_E_FORMAT);
        assert_int_equal(err.offset, good);
        assert_non_null(strstr(err.message, delta < 0 ? "goes on past" : "ends before"));
        gcev_source_close(&s);
        free(z);
    }
    free(a);
}

static void test_unreadable_entries_are_unsupported(void **state)
{
    (void)state;
    uint8_t *a = pattern(1000, 6);
    zipb_entry e[] = {{"secret.etl", a, 1000, ZIPB_DEFLATE, 1}, {"odd.etl", a, 1000, ZIPB_STORE, 0}};
    size_t n = 0;
    uint8_t *z = build(e, 2, &n);
    /* give the second entry a compression method nobody implements (97, WavPack),
     * in its local header and its central directory record */
    size_t second = 0, central = 0;
    for (size_t i = 4; i + 4 <= n; i++) {
        if (z[i] == 'P' && z[i + 1] == 'K' && z[i + 2] == 3 && z[i + 3] == 4 && !second) {
            second = i;
        }
        if (z[i] == 'P' && z[i + 1] == 'K' && z[i + 2] == 1 && z[i + 3] == 2) {
            central = i; /* the last one: the second entry's */
        }
    }
    assert_true(second > 0 && central > 0);
    z[second + 8] = 97;
    z[central + 10] = 97;
    gcev_archive *ar = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_archive_open_memory(z, n, &ar, &err), GCEV_OK);
    assert_false(gcev_archive_entry_at(ar, 0)->readable);
    assert_false(gcev_archive_entry_at(ar, 1)->readable);
    gcev_source s;
    assert_int_equal(gcev_archive_open_entry(ar, 0, &s, &err), GCEV_E_UNSUPPORTED);
    assert_non_null(strstr(err.message, "encrypted"));
    assert_int_equal(gcev_archive_open_entry(ar, 1, &s, &err), GCEV_E_UNSUPPORTED);
    assert_non_null(strstr(err.message, "compression method"));
    gcev_archive_close(ar);
    free(z);
    free(a);
}

static void test_open_file_and_source(void **state)
{
    (void)state;
    uint8_t *a = pattern(30000, 7);
    zipb_entry e[] = {{"t.etl", a, 30000, ZIPB_DEFLATE, 0}};
    size_t n = 0;
    uint8_t *z = build(e, 1, &n);
    char *path = zipb_write_temp(z, n, ".zip");
    assert_non_null(path);
    gcev_archive *ar = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_archive_open_file(path, &ar, &err), GCEV_OK);
    gcev_source s;
    assert_int_equal(gcev_archive_open_entry(ar, 0, &s, &err), GCEV_OK);
    gcev_archive_close(ar);
    size_t at = 0;
    while (at < 30000) {
        expect_stream(&s, a, 30000, 777, &at);
    }
    gcev_source_close(&s);

    /* a mapped-file source is taken over: the archive owns the mapping */
    gcev_source f;
    assert_int_equal(gcev_source_init_file(&f, path, &err), GCEV_OK);
    assert_int_equal(gcev_archive_open_source(&f, &ar, &err), GCEV_OK);
    assert_null(f.base);
    assert_int_equal(gcev_archive_open_entry(ar, 0, &s, &err), GCEV_OK);
    gcev_archive_close(ar);
    at = 0;
    while (at < 30000) {
        expect_stream(&s, a, 30000, 30000, &at);
    }
    gcev_source_close(&s);
    gcev_source_close(&f);

    /* a stream cannot be an archive */
    gcev_source r;
    assert_int_equal(gcev_source_init_reader(&r, (gcev_read_fn)1, NULL), GCEV_OK);
    assert_int_equal(gcev_archive_open_source(&r, &ar, &err), GCEV_E_UNSUPPORTED);
    assert_null(ar);
    unlink(path);
    assert_int_equal(gcev_archive_open_file(path, &ar, &err), GCEV_E_IO);
    assert_int_equal(gcev_archive_open_memory(NULL, 1, &ar, &err), GCEV_E_INVALID_ARG);
    free(path);
    free(z);
    free(a);
}

/* ---- the trace API over archives --------------------------------------------------- */

static size_t count_events(gcev_trace *t, gcev_status *end, gcev_error *err)
{
    gcev_trace_event ev;
    size_t k = 0;
    while ((*end = gcev_trace_next(t, &ev, err)) == GCEV_OK) {
        k++;
    }
    return k;
}

static void test_trace_in_zip_reads_like_the_file(void **state)
{
    (void)state;
    size_t tn = 0;
    uint8_t *tr = sample_trace(5, 1, &tn);
    assert_non_null(tr);
    zipb_entry e[] = {
        {"readme.txt", "x", 1, ZIPB_STORE, 0},
        {"PerfViewData.NETTRACE", tr, tn, ZIPB_DEFLATE, 0}, /* suffixes match in any case */
        {"symbols/", NULL, 0, ZIPB_STORE, 0},
        {"symbols/app.pdb", "pdb", 3, ZIPB_STORE, 0},
        {"__MACOSX/._PerfViewData.nettrace", "x", 1, ZIPB_STORE, 0},
    };
    size_t n = 0;
    uint8_t *z = build(e, 5, &n);
    for (uint32_t order = 0; order < 2; order++) {
        gcev_trace_options o = {.struct_size = sizeof o, .order = order};
        gcev_trace *plain = NULL, *zipped = NULL;
        gcev_error err = {0};
        assert_int_equal(gcev_trace_open_memory(tr, tn, &o, &plain, &err), GCEV_OK);
        assert_int_equal(gcev_trace_open_memory(z, n, &o, &zipped, &err), GCEV_OK);
        const gcev_trace_info *info = gcev_trace_get_info(zipped);
        assert_string_equal(info->archive_entry, "PerfViewData.NETTRACE");
        assert_int_equal(info->file_size, tn);
        assert_int_equal(info->format, GCEV_FORMAT_NETTRACE);
        assert_null(gcev_trace_get_info(plain)->archive_entry);
        gcev_trace_event a, b;
        gcev_status sa, sb;
        size_t k = 0;
        while ((sa = gcev_trace_next(plain, &a, &err)) == GCEV_OK) {
            sb = gcev_trace_next(zipped, &b, &err);
            assert_int_equal(sb, GCEV_OK);
            assert_int_equal(a.timestamp, b.timestamp);
            assert_int_equal(a.file_offset, b.file_offset);
            assert_int_equal(a.payload_size, b.payload_size);
            assert_memory_equal(a.payload, b.payload, a.payload_size);
            k++;
        }
        assert_int_equal(sa, GCEV_END);
        assert_int_equal(gcev_trace_next(zipped, &b, &err), GCEV_END);
        assert_int_equal(k, SAMPLE_EVENTS);
        gcev_trace_close(plain);
        gcev_trace_close(zipped);
    }
    /* from a file: mapped, then read in place */
    char *path = zipb_write_temp(z, n, ".nettrace.zip");
    assert_non_null(path);
    gcev_trace *t = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(path, NULL, &t, &err), GCEV_OK);
    gcev_status end;
    assert_int_equal(count_events(t, &end, &err), SAMPLE_EVENTS);
    assert_int_equal(end, GCEV_END);
    gcev_trace_close(t);
    unlink(path);
    free(path);
    free(z);
    free(tr);
}

static void expect_open_fails(const uint8_t *z, size_t n, gcev_status want, const char *const *needles)
{
    gcev_trace *t = (gcev_trace *)1;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_memory(z, n, NULL, &t, &err), want);
    assert_null(t);
    assert_int_equal(err.code, want);
    for (; *needles; needles++) {
        if (!strstr(err.message, *needles)) {
            fail_msg("message '%s' lacks '%s'", err.message, *needles);
        }
    }
}

static void test_zip_without_one_trace_names_its_entries(void **state)
{
    (void)state;
    size_t tn = 0;
    uint8_t *tr = sample_trace(5, 1, &tn);
    assert_non_null(tr);
    zipb_entry none[] = {{"app.pdb", "x", 1, ZIPB_STORE, 0}, {"notes.txt", "y", 1, ZIPB_STORE, 0}};
    zipb_entry two[] = {{"a.etl", tr, tn, ZIPB_DEFLATE, 0},
                        {"app.pdb", "x", 1, ZIPB_STORE, 0},
                        {"b/c.nettrace", tr, tn, 0, 0}};
    size_t n = 0;
    uint8_t *z = build(none, 2, &n);
    const char *const want_none[] = {"no .etl, .nettrace or .netperf entry", "app.pdb, notes.txt", NULL};
    expect_open_fails(z, n, GCEV_E_UNSUPPORTED, want_none);
    free(z);
    z = build(two, 3, &n);
    const char *const want_two[] = {"2 traces", "a.etl, b/c.nettrace", NULL};
    expect_open_fails(z, n, GCEV_E_UNSUPPORTED, want_two);
    free(z);

    /* many entries: the list is cut with a count of the rest */
    enum { MANY = 200 };
    zipb_entry many[MANY];
    char names[MANY][32];
    for (int i = 0; i < MANY; i++) {
        snprintf(names[i], sizeof names[i], "symbols/file%03d.pdb", i);
        many[i] = (zipb_entry){names[i], "x", 1, ZIPB_STORE, 0};
    }
    z = build(many, MANY, &n);
    const char *const want_many[] = {"symbols/file000.pdb, ", "more)", NULL};
    expect_open_fails(z, n, GCEV_E_UNSUPPORTED, want_many);
    free(z);

    /* an empty archive, a nested one */
    zipb_entry empty[] = {{"d/", NULL, 0, 0, 0}};
    z = build(empty, 1, &n);
    const char *const want_empty[] = {"its entries: none", NULL};
    expect_open_fails(z, n, GCEV_E_UNSUPPORTED, want_empty);
    zipb_entry nested[] = {{"inner.etl", z, n, ZIPB_STORE, 0}};
    size_t n2 = 0;
    uint8_t *z2 = build(nested, 1, &n2);
    const char *const want_nested[] = {"ZIP entry 'inner.etl': ", "inside a ZIP", NULL};
    expect_open_fails(z2, n2, GCEV_E_UNSUPPORTED, want_nested);
    free(z2);
    free(z);
    free(tr);
}

static void test_damaged_trace_in_zip_names_the_entry(void **state)
{
    (void)state;
    size_t tn = 0;
    uint8_t *tr = sample_trace(5, 1, &tn);
    assert_non_null(tr);
    /* the trace cut short inside the entry: every event before the cut, then the
     * truncation at the entry's offset, with the entry named */
    gcev_trace *t = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_memory(tr, tn - 40, NULL, &t, &err), GCEV_OK);
    gcev_status plain_end;
    size_t plain_n = count_events(t, &plain_end, &err);
    uint64_t plain_off = err.offset;
    gcev_trace_close(t);
    assert_int_equal(plain_end, GCEV_E_TRUNCATED_FILE);

    zipb_entry e[] = {{"cut.nettrace", tr, tn - 40, ZIPB_DEFLATE, 0}};
    size_t n = 0;
    uint8_t *z = build(e, 1, &n);
    for (uint32_t order = 0; order < 2; order++) {
        gcev_trace_options o = {.struct_size = sizeof o, .order = order};
        assert_int_equal(gcev_trace_open_memory(z, n, &o, &t, &err), GCEV_OK);
        gcev_status end;
        size_t k = count_events(t, &end, &err);
        assert_int_equal(end, GCEV_E_TRUNCATED_FILE);
        assert_int_equal(k, plain_n);
        assert_int_equal(err.offset, plain_off);
        assert_non_null(strstr(err.message, "ZIP entry 'cut.nettrace': "));
        /* sticky, same message */
        gcev_trace_event ev;
        gcev_error again = {0};
        assert_int_equal(gcev_trace_next(t, &ev, &again), GCEV_E_TRUNCATED_FILE);
        assert_string_equal(again.message, err.message);
        gcev_trace_close(t);
    }
    free(z);

    /* a header the reader refuses: the open error names the entry */
    static const char junk[] = "hello, this is no trace at all";
    zipb_entry h[] = {{"head.nettrace", junk, sizeof junk - 1, ZIPB_STORE, 0}};
    z = build(h, 1, &n);
    assert_int_equal(gcev_trace_open_memory(z, n, NULL, &t, &err), GCEV_E_UNSUPPORTED);
    assert_non_null(strstr(err.message, "ZIP entry 'head.nettrace': not a trace"));
    free(z);

    /* a cut ZIP, and a ZIP from a stream */
    z = build(e, 1, &n);
    assert_int_equal(gcev_trace_open_memory(z, n / 2, NULL, &t, &err), GCEV_E_TRUNCATED_FILE);
    assert_int_equal(err.offset, n / 2);
    free(z);
    free(tr);
}

/*
 * An archive bomb (issue 22, item 4): a trace's valid start, then 64 MiB of zeros, deflated to
 * about 64 KiB. Plain mode stops at the first zero; keep-going searched all of it for the next
 * block (4 GB behind a 4.2 MB archive: 37.8 s). Now it stops after 16 MiB + 8 bytes per archive
 * byte of the entry with GCEV_E_LIMIT, a message naming the entry and the offset; the work is
 * asserted by the bytes inflated and skipped.
 */
static void test_keep_going_archive_bomb_is_bounded(void **state)
{
    (void)state;
    size_t tn = 0;
    uint8_t *tr = sample_trace(5, 1, &tn);
    assert_non_null(tr);
    const size_t zeros = (size_t)64 << 20, keep = tn - 1; /* without the end tag */
    uint8_t *bomb = calloc(1, keep + zeros);
    assert_non_null(bomb);
    memcpy(bomb, tr, keep);
    zipb_entry e[] = {{"bomb.nettrace", bomb, keep + zeros, ZIPB_DEFLATE, 0}};
    size_t n = 0;
    uint8_t *z = build(e, 1, &n);
    const uint64_t packed = packed_size(z, n);
    const uint64_t budget = (16u << 20) + 8 * packed;
    assert_true(budget < zeros / 2);
    for (int kg = 0; kg < 2; kg++) {
        gcev_trace_options o = {.struct_size = sizeof o, .keep_going = (uint32_t)kg};
        gcev_trace *t = NULL;
        gcev_error err = {0};
        assert_int_equal(gcev_trace_open_memory(z, n, &o, &t, &err), GCEV_OK);
        gcev_status end;
        size_t k = count_events(t, &end, &err);
        assert_true(k > 0);
        if (!kg) {
            assert_int_equal(end, GCEV_E_FORMAT);
            assert_int_equal(err.offset, keep);
        } else {
            assert_int_equal(end, GCEV_E_LIMIT);
            assert_non_null(strstr(err.message, "ZIP entry 'bomb.nettrace': "));
            assert_non_null(strstr(err.message, "keep-going stopped"));
            assert_true(err.offset > keep && err.offset <= keep + budget + 1);
            assert_true(gcev_trace_skipped_bytes(t) <= budget);
            /* inflated: what was read, plus one window of look-ahead */
            assert_true(gcev_trace_bytes_read(t) <= keep + budget + (1u << 20));
        }
        gcev_trace_close(t);
    }
    free(z);
    free(bomb);
    free(tr);
}

typedef struct mem_stream {
    const uint8_t *d;
    size_t n, pos;
} mem_stream;

static long long mem_read(void *ctx, void *buf, size_t n)
{
    mem_stream *m = ctx;
    size_t k = m->n - m->pos < n ? m->n - m->pos : n;
    memcpy(buf, m->d + m->pos, k);
    m->pos += k;
    return (long long)k;
}

static void test_zip_from_a_stream_is_unsupported(void **state)
{
    (void)state;
    size_t tn = 0;
    uint8_t *tr = sample_trace(5, 1, &tn);
    zipb_entry e[] = {{"t.nettrace", tr, tn, ZIPB_DEFLATE, 0}};
    size_t n = 0;
    uint8_t *z = build(e, 1, &n);
    mem_stream m = {z, n, 0};
    gcev_trace *t = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_reader(mem_read, &m, NULL, &t, &err), GCEV_E_UNSUPPORTED);
    assert_non_null(strstr(err.message, "seekable"));
    assert_null(t);
    free(z);
    free(tr);
}

/* Every allocation of opening a trace in a ZIP (memory and file, deflated and stored) and
 * reading it, in both orders, failing in turn: GCEV_E_NOMEM or the same events. */
static void test_archive_each_allocation_failure_is_nomem_or_the_same_events(void **state)
{
    (void)state;
    size_t tn = 0;
    uint8_t *tr = sample_trace(5, 1, &tn);
    assert_non_null(tr);
    for (int method = 0; method < 2; method++) {
        zipb_entry e[] = {
            {"readme.txt", "x", 1, ZIPB_STORE, 0},
            {"trace.nettrace", tr, tn, method ? ZIPB_DEFLATE : ZIPB_STORE, 0},
        };
        size_t n = 0;
        uint8_t *z = build(e, 2, &n);
        char *path = zipb_write_temp(z, n, ".nettrace.zip");
        assert_non_null(path);
        for (uint32_t order = 0; order < 2; order++) {
            for (int from_file = 0; from_file < 2; from_file++) {
                failalloc_trace r = {from_file ? path : NULL, z, n, 0, {.order = order}, 0, 0};
                assert_true(failalloc_every_read(&r) > 0);
                assert_int_equal(r.events, SAMPLE_EVENTS);
            }
        }
        unlink(path);
        free(path);
        free(z);
    }
    free(tr);
}

/* Damaged end records: a split archive's is GCEV_E_UNSUPPORTED with its own message; one whose
 * entry counts or directory offset disagree with the archive is rejected (libzip finds no
 * usable end record: a format or truncation error), never opened. */
static void test_archive_damaged_end_records_are_rejected(void **state)
{
    (void)state;
    zipb_entry e[] = {{"a.nettrace", "abcdefgh", 8, ZIPB_STORE, 0}, {"b.txt", "x", 1, ZIPB_STORE, 0}};
    size_t n = 0;
    uint8_t *z = build(e, 2, &n);
    uint8_t *m = malloc(n);
    size_t eocd = find_sig(z, n, 5, 6, 1);
    static const struct {
        size_t at; /* offset in the end record */
        uint32_t value;
        unsigned width;
        int split;
    } cases[] = {
        {4, 1, 2, 1},  /* number of this disk */
        {6, 1, 2, 1},  /* disk where the directory starts */
        {8, 3, 2, 0},  /* entries on this disk */
        {10, 3, 2, 0}, /* entries in total */
        {16, 5, 4, 0}, /* directory offset */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(m, z, n);
        for (unsigned b = 0; b < cases[i].width; b++) {
            m[eocd + cases[i].at + b] = (uint8_t)(cases[i].value >> (8 * b));
        }
        gcev_archive *ar = NULL;
        gcev_error err = {0};
        gcev_status st = gcev_archive_open_memory(m, n, &ar, &err);
        assert_null(ar);
        assert_non_null(err.message);
        if (cases[i].split) {
            assert_int_equal(st, GCEV_E_UNSUPPORTED);
            assert_string_equal(err.message, "split (multi-disk) ZIP archives are not supported");
        } else if (st != GCEV_E_FORMAT && st != GCEV_E_TRUNCATED_FILE) {
            fail_msg("case %zu: %s '%s'", i, gcev_status_str(st), err.message);
        }
    }
    free(m);
    free(z);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect_zip_magics),
        cmocka_unit_test(test_keep_going_archive_bomb_is_bounded),
        cmocka_unit_test(test_lists_entries_with_sizes),
        cmocka_unit_test(test_several_entries_read_interleaved),
        cmocka_unit_test(test_window_stays_one_take),
        cmocka_unit_test(test_cut_archive_is_truncated),
        cmocka_unit_test(test_corrupt_entry_data_is_format_error),
        cmocka_unit_test(test_entry_size_is_enforced),
        cmocka_unit_test(test_unreadable_entries_are_unsupported),
        cmocka_unit_test(test_open_file_and_source),
        cmocka_unit_test(test_trace_in_zip_reads_like_the_file),
        cmocka_unit_test(test_zip_without_one_trace_names_its_entries),
        cmocka_unit_test(test_damaged_trace_in_zip_names_the_entry),
        cmocka_unit_test(test_zip_from_a_stream_is_unsupported),
        cmocka_unit_test(test_archive_each_allocation_failure_is_nomem_or_the_same_events),
        cmocka_unit_test(test_archive_damaged_end_records_are_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
