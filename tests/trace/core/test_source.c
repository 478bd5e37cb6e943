/* SPDX-License-Identifier: MIT */
/* gcev_source: memory, mapped file and callback inputs behave the same. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>

#include "gcev_compiler.h"
#include "gcev_source.h"
#include "testutil.h"

static uint8_t data[300];

static void fill(void)
{
    for (size_t i = 0; i < sizeof data; i++) {
        data[i] = (uint8_t)(i * 7);
    }
}

typedef struct feed {
    size_t pos;
} feed;

static long long feed_read(void *ctx, void *buf, size_t n)
{
    feed *f = ctx;
    size_t k = n < 5 ? n : 5;
    if (k > sizeof data - f->pos) {
        k = sizeof data - f->pos;
    }
    memcpy(buf, data + f->pos, k);
    f->pos += k;
    return (long long)k;
}

static long long failing_read(void *ctx, void *buf, size_t n)
{
    (void)ctx;
    (void)buf;
    (void)n;
    return -1;
}

/* take/peek/skip sequence shared by every kind of source. */
static void exercise(gcev_source *s)
{
    const uint8_t *v;
    size_t got;
    gcev_error err;
    assert_int_equal(gcev_source_peek(s, 10, &v, &got, &err), GCEV_OK);
    assert_int_equal(got, 10);
    assert_memory_equal(v, data, 10);
    assert_int_equal(gcev_source_pos(s), 0);
    assert_int_equal(gcev_source_take(s, 100, &v, &err), GCEV_OK);
    assert_memory_equal(v, data, 100);
    assert_int_equal(gcev_source_skip(s, 50, &err), GCEV_OK);
    assert_int_equal(gcev_source_take(s, 3, &v, &err), GCEV_OK);
    assert_memory_equal(v, data + 150, 3);
    assert_int_equal(gcev_source_take(s, 200, &v, &err), GCEV_E_TRUNCATED_FILE);
    assert_int_equal(err.offset, 153);
    assert_int_equal(gcev_source_peek(s, 200, &v, &got, &err), GCEV_OK);
    assert_int_equal(got, sizeof data - 153);
    s->max_take = 64;
    assert_int_equal(gcev_source_take(s, 65, &v, &err), GCEV_E_LIMIT);
    assert_int_equal(gcev_source_skip(s, sizeof data - 153, &err), GCEV_OK);
    assert_int_equal(gcev_source_skip(s, 1, &err), GCEV_E_TRUNCATED_FILE);
}

static void test_source_memory_take_peek_skip(void **st)
{
    (void)st;
    fill();
    gcev_source s;
    assert_int_equal(gcev_source_init_memory(&s, data, sizeof data), GCEV_OK);
    exercise(&s);
    gcev_source_close(&s);
}

static void test_source_callback_take_peek_skip(void **st)
{
    (void)st;
    fill();
    feed f = {0};
    gcev_source s;
    assert_int_equal(gcev_source_init_reader(&s, feed_read, &f), GCEV_OK);
    exercise(&s);
    gcev_source_close(&s);
}

/* A counter's bytes, 1 MiB at most a read: a stream larger than the window. */
typedef struct big_feed {
    size_t pos, size;
} big_feed;

static uint8_t big_byte(size_t i)
{
    return (uint8_t)(i * 131 + (i >> 16));
}

static long long big_read(void *ctx, void *buf, size_t n)
{
    big_feed *f = ctx;
    size_t k = n < ((size_t)1 << 20) ? n : ((size_t)1 << 20);
    if (k > f->size - f->pos) {
        k = f->size - f->pos;
    }
    for (size_t i = 0; i < k; i++) {
        ((uint8_t *)buf)[i] = big_byte(f->pos + i);
    }
    f->pos += k;
    return (long long)k;
}

static void check_view(const uint8_t *v, size_t at, size_t n)
{
    for (size_t i = 0; i < n; i += 4093) {
        assert_int_equal(v[i], big_byte(at + i));
    }
    assert_int_equal(v[n - 1], big_byte(at + n - 1));
}

/* What huge_pages_on_request in gcev_source.c reads, read here on its own: whether a file
 * of 2 MiB or more must come read whole rather than mapped, and a window start as one huge
 * page. */
static int sysfs_has(const char *path, const char *a, const char *b, const char *c)
{
    char line[128] = {0};
    FILE *f = fopen(path, "r");
    if (!f) {
        return 0;
    }
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    return strstr(line, a) || strstr(line, b) || (c && strstr(line, c));
}

static int huge_on_request(void)
{
    return sysfs_has("/sys/kernel/mm/transparent_hugepage/enabled", "[always]", "[madvise]", NULL) &&
           sysfs_has("/sys/kernel/mm/transparent_hugepage/defrag", "[always]", "[madvise]",
                     "[defer+madvise]");
}

/* The window of callback input: it starts as one 2 MiB huge page where the kernel gives them
 * on request (not under ASan, which watches heap blocks only); takes that straddle its end keep
 * their bytes, and a take larger than that page grows it (onto the C heap) with the unread
 * bytes kept. */
static void test_source_callback_window_takes_across_and_past_its_size(void **st)
{
    (void)st;
    const size_t mib = (size_t)1 << 20;
    big_feed f = {0, 9 * mib};
    gcev_source s;
    gcev_error err;
    const uint8_t *v;
    assert_int_equal(gcev_source_init_reader(&s, big_read, &f), GCEV_OK);
    size_t at = 0;
    /* 300 KiB takes: one of them straddles the first 2 MiB of input */
    for (int i = 0; i < 8; i++) {
        assert_int_equal(gcev_source_take(&s, 300 << 10, &v, &err), GCEV_OK);
        check_view(v, at, 300 << 10);
        at += 300 << 10;
        const int huge = huge_on_request() && !GCEV_ASAN;
        assert_int_equal(s.buf_huge, huge);
        if (huge) {
            assert_int_equal(s.buf_cap, 2 * mib);
            assert_int_equal((uintptr_t)s.buf % (2 * mib), 0); /* one page, not two halves */
        }
    }
    assert_int_equal(gcev_source_take(&s, 3 * mib, &v, &err), GCEV_OK); /* past 2 MiB */
    check_view(v, at, 3 * mib);
    at += 3 * mib;
    assert_false(s.buf_huge);
    assert_true(s.buf_cap >= 3 * mib);
    assert_int_equal(gcev_source_take(&s, 9 * mib - at, &v, &err), GCEV_OK);
    check_view(v, at, 9 * mib - at);
    assert_int_equal(gcev_source_take(&s, 1, &v, &err), GCEV_E_TRUNCATED_FILE);
    gcev_source_close(&s);
}

static void test_source_file_take_peek_skip(void **st)
{
    (void)st;
    fill();
    char path[] = "/tmp/gcev_test_source_XXXXXX";
    FILE *fp = NULL;
    /* tmpnam-free: write next to /tmp with the pid-free fixed name plus a counter */
    snprintf(path, sizeof path, "/tmp/gcev_test_source_%u", (unsigned)(sizeof data));
    fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, sizeof data, fp), sizeof data);
    fclose(fp);
    gcev_source s;
    gcev_error err;
    assert_int_equal(gcev_source_init_file(&s, path, &err), GCEV_OK);
    assert_int_equal(s.small, 1); /* 300 bytes: read onto the heap */
    assert_int_equal(s.mapped, 0);
    exercise(&s);
    gcev_source_close(&s);
    remove(path);
    assert_int_equal(gcev_source_init_file(&s, "/nonexistent/gcev", &err), GCEV_E_IO);
    assert_non_null(err.message);
}

/* Writes a file of `size` bytes at path (byte i = i * 31 + i / 4096, so that no 4 KiB page
 * repeats another), beginning with head when not NULL; returns a malloc'ed copy of them. */
static uint8_t *patterned_file(const char *path, size_t size, const char *head)
{
    uint8_t *b = malloc(size);
    assert_non_null(b);
    for (size_t i = 0; i < size; i++) {
        b[i] = (uint8_t)(i * 31 + i / 4096);
    }
    if (head) {
        memcpy(b, head, strlen(head));
    }
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(b, 1, size, fp), size);
    assert_int_equal(fclose(fp), 0);
    return b;
}

/* A file of `size` bytes (patterned_file)
 * opened as a source: every byte equal, random access, and read whole (on 2 MiB pages, a
 * length rounded up to them) exactly when the file is 2 MiB or more and the kernel gives huge
 * pages on request; mapped below that. */
static void check_big_file(size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/gcev_test_source_big_%zu", size);
    uint8_t *want = patterned_file(path, size, NULL);
    gcev_source s;
    gcev_error err;
    assert_int_equal(gcev_source_init_file(&s, path, &err), GCEV_OK);
    remove(path); /* the source holds the bytes now */
    assert_true(gcev_source_random(&s));
    assert_int_equal(s.size, size);
    assert_int_equal(s.mapped, 1);
    const int huge = huge_on_request();
    const size_t mib2 = (size_t)2 << 20;
    assert_int_equal(s.loaded, huge && size >= mib2);
    assert_int_equal(s.map_len, s.loaded ? (size + mib2 - 1) / mib2 * mib2 : size);
    const uint8_t *v;
    assert_int_equal(gcev_source_take(&s, size, &v, &err), GCEV_OK);
    assert_memory_equal(v, want, size);
    assert_int_equal(gcev_source_take(&s, 1, &v, &err), GCEV_E_TRUNCATED_FILE);
    assert_int_equal(err.offset, size);
    assert_int_equal(gcev_source_seek(&s, size / 2, &err), GCEV_OK);
    assert_int_equal(gcev_source_take(&s, 1, &v, &err), GCEV_OK);
    assert_int_equal(*v, want[size / 2]);
    gcev_source_close(&s);
    free(want);
}

static void test_source_big_files_read_whole_or_mapped(void **st)
{
    (void)st;
    check_big_file(((size_t)2 << 20) - 1); /* mapped: below one huge page */
    check_big_file((size_t)2 << 20);
    check_big_file(((size_t)5 << 20) + 123);
}

/* gcev_source_init_file_once: a file that begins with the magic is read through the window
 * (not loaded, not mapped, forward only), whatever its size; any other file as by
 * gcev_source_init_file. */
static void test_source_file_with_the_magic_is_read_once_through_the_window(void **st)
{
    (void)st;
    const size_t size = ((size_t)5 << 20) + 77;
    const char *path = "/tmp/gcev_test_source_once";
    uint8_t *want = patterned_file(path, size, "Nettrace");
    gcev_source s;
    gcev_error err;
    assert_int_equal(gcev_source_init_file_once(&s, path, "Nettrace", 8, &err), GCEV_OK);
    assert_false(gcev_source_random(&s));
    assert_int_equal(s.mapped, 0);
    assert_int_equal(s.size, size);
    const uint8_t *v;
    for (size_t at = 0; at < size;) {
        size_t n = size - at < 100000 ? size - at : 100000;
        assert_int_equal(gcev_source_take(&s, n, &v, &err), GCEV_OK);
        assert_memory_equal(v, want + at, n);
        at += n;
    }
    assert_int_equal(gcev_source_take(&s, 1, &v, &err), GCEV_E_TRUNCATED_FILE);
    assert_int_equal(err.offset, size);
    gcev_source_close(&s);
    /* another magic (and none): in memory, random access */
    assert_int_equal(gcev_source_init_file_once(&s, path, "Xettrace", 8, &err), GCEV_OK);
    assert_true(gcev_source_random(&s));
    assert_int_equal(s.mapped, 1);
    gcev_source_close(&s);
    assert_int_equal(gcev_source_init_file_once(&s, path, NULL, 0, &err), GCEV_OK);
    assert_true(gcev_source_random(&s));
    gcev_source_close(&s);
    remove(path);
    free(want);
}

/* Takes the rest of the file source s, at `at` of the bytes want[0..size), in 100,000-byte
 * steps: every byte equal, then the end. */
static void take_rest(gcev_source *s, size_t at, const uint8_t *want, size_t size)
{
    gcev_error err;
    const uint8_t *v;
    while (at < size) {
        size_t n = size - at < 100000 ? size - at : 100000;
        assert_int_equal(gcev_source_take(s, n, &v, &err), GCEV_OK);
        assert_memory_equal(v, want + at, n);
        at += n;
    }
    assert_int_equal(gcev_source_take(s, 1, &v, &err), GCEV_E_TRUNCATED_FILE);
}

/* A closed source's 2 MiB window is kept for the next source (one window, never two sources
 * at once), whose reads give it its own bytes; a regular file of at most 16 KiB, with the
 * magic or not, is read whole onto the C heap (in memory, random access), one byte more is
 * not. */
static void test_source_window_kept_for_the_next_source_small_files_on_the_heap(void **st)
{
    (void)st;
    const int huge = huge_on_request() && !GCEV_ASAN;
    const size_t size = ((size_t)3 << 20) + 5;
    const char *path = "/tmp/gcev_test_source_kept";
    uint8_t *want = patterned_file(path, size, "Nettrace");
    gcev_source a, b, c;
    gcev_error err;
    const uint8_t *v;
    assert_int_equal(gcev_source_init_file_once(&a, path, "Nettrace", 8, &err), GCEV_OK);
    assert_int_equal(gcev_source_take(&a, 1000, &v, &err), GCEV_OK);
    assert_int_equal(a.buf_huge, huge);
    const uint8_t *first = a.buf;
    gcev_source_close(&a);
    /* the next source reads into the same window, and sees only what it read */
    assert_int_equal(gcev_source_init_file_once(&b, path, "Nettrace", 8, &err), GCEV_OK);
    assert_int_equal(gcev_source_take(&b, 1000, &v, &err), GCEV_OK);
    assert_memory_equal(v, want, 1000);
    assert_int_equal(b.buf_huge, huge);
    if (huge) {
        assert_ptr_equal(b.buf, first);
    }
    /* one open beside it gets a window of its own */
    assert_int_equal(gcev_source_init_file_once(&c, path, "Nettrace", 8, &err), GCEV_OK);
    assert_int_equal(gcev_source_take(&c, 1000, &v, &err), GCEV_OK);
    assert_int_equal(c.buf_huge, huge);
    assert_ptr_not_equal(c.buf, b.buf);
    const uint8_t *wb = b.buf, *wc = c.buf;
    take_rest(&c, 1000, want, size);
    gcev_source_close(&c);
    gcev_source_close(&b);
    /* of the two, one is kept (the other unmapped), and serves a whole walk */
    assert_int_equal(gcev_source_init_file_once(&a, path, "Nettrace", 8, &err), GCEV_OK);
    assert_int_equal(gcev_source_take(&a, 1, &v, &err), GCEV_OK);
    if (huge) {
        assert_true(a.buf == wb || a.buf == wc);
    }
    gcev_source_close(&a);
    assert_int_equal(gcev_source_init_file_once(&a, path, "Nettrace", 8, &err), GCEV_OK);
    take_rest(&a, 0, want, size);
    gcev_source_close(&a);
    remove(path);
    free(want);
    /* 16 KiB and less: onto the heap; one byte more: the window (magic) or mapped (none) */
    const size_t smalls[] = {9, 16u << 10, (16u << 10) + 1};
    for (size_t i = 0; i < sizeof smalls / sizeof smalls[0]; i++) {
        const size_t small = smalls[i];
        want = patterned_file(path, small, "Nettrace");
        for (int magic = 0; magic < 2; magic++) {
            assert_int_equal(
                gcev_source_init_file_once(&a, path, magic ? "Nettrace" : NULL, magic ? 8 : 0, &err),
                GCEV_OK);
            const int heap = small <= (16u << 10);
            assert_int_equal(a.small, heap);
            assert_int_equal(gcev_source_random(&a), heap || !magic);
            assert_int_equal(a.mapped, !heap && !magic);
            assert_int_equal(a.fd >= 0, !heap && magic);
            take_rest(&a, 0, want, small);
            gcev_source_close(&a);
        }
        remove(path);
        free(want);
    }
}

static void test_source_read_error_is_io(void **st)
{
    (void)st;
    gcev_source s;
    const uint8_t *v;
    gcev_error err;
    assert_int_equal(gcev_source_init_reader(&s, failing_read, NULL), GCEV_OK);
    assert_int_equal(gcev_source_take(&s, 4, &v, &err), GCEV_E_IO);
    gcev_source_close(&s);
}

/* ---- the OS's reason for an I/O error reaches the caller (errno) ---------------- */

static void test_open_missing_file_sets_errno_enoent(void **st)
{
    (void)st;
    gcev_trace *t = (gcev_trace *)&t;
    gcev_error err = {0};
    errno = 0;
    assert_int_equal(gcev_trace_open_file("/nonexistent/gcev/trace.nettrace", NULL, &t, &err), GCEV_E_IO);
    assert_int_equal(errno, ENOENT);
    assert_null(t);
    assert_int_equal(err.offset, 0);
}

/* (gcev_trace_open_file reads a folder as CTF; a byte source is never a folder) */
static void test_source_directory_refused_with_eisdir(void **st)
{
    (void)st;
    gcev_error err = {0};
    gcev_source s;
    assert_int_equal(gcev_source_init_file(&s, "/", &err), GCEV_E_IO);
    assert_int_equal(s.os_errno, EISDIR);
}

typedef struct cut_feed {
    const uint8_t *data;
    size_t size, pos, fail_at;
} cut_feed;

/* Delivers data up to fail_at, then fails as a broken pipe would. */
static long long cut_read(void *ctx, void *buf, size_t n)
{
    cut_feed *f = ctx;
    if (f->pos >= f->fail_at) {
        errno = EPIPE;
        return -1;
    }
    size_t k = f->fail_at - f->pos < n ? f->fail_at - f->pos : n;
    memcpy(buf, f->data + f->pos, k);
    f->pos += k;
    return (long long)k;
}

static void test_read_error_mid_trace_keeps_errno(void **st)
{
    (void)st;
    char path[2048];
    snprintf(path, sizeof path, "%s/examples/sample.nettrace", getenv("GCEV_SOURCE_DIR"));
    size_t size = 0;
    uint8_t *bytes = (uint8_t *)testutil_read_file(path, &size);
    assert_non_null(bytes);
    for (uint32_t order = 0; order < 2; order++) {
        cut_feed f = {bytes, size, 0, size / 2};
        gcev_trace_options o = {.struct_size = sizeof o, .order = order};
        gcev_trace *t;
        gcev_error err;
        assert_int_equal(gcev_trace_open_reader(cut_read, &f, &o, &t, &err), GCEV_OK);
        gcev_trace_event ev;
        gcev_status rc;
        size_t n = 0;
        while ((rc = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
            errno = 0; /* whatever happens between calls, the error brings its own */
            n++;
        }
        assert_true(n > 0);
        assert_int_equal(rc, GCEV_E_IO);
        assert_int_equal(errno, EPIPE);
        errno = 0;
        assert_int_equal(gcev_trace_next(t, &ev, &err), GCEV_E_IO); /* sticky, errno too */
        assert_int_equal(errno, EPIPE);
        gcev_trace_close(t);
    }
    free(bytes);
}

static int match_byte(void *ctx, const uint8_t *p, size_t n, uint64_t off)
{
    (void)n;
    (void)off;
    return *p == *(const uint8_t *)ctx;
}

/* A path that is not a regular file (a pipe, as /proc/self/fd/N): read() through the
 * window, forward only; the same bytes as memory, seek and scan included. */
static void test_source_pipe_is_read_through_the_window_forward_only(void **st)
{
    (void)st;
    fill();
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], data, sizeof data), (long)sizeof data);
    close(fds[1]);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
    gcev_source s;
    gcev_error err = {0};
    if (gcev_source_init_file(&s, path, &err) != GCEV_OK) {
        close(fds[0]);
        skip(); /* no /proc: nothing to open a pipe by */
    }
    close(fds[0]); /* the source opened its own descriptor */
    assert_false(gcev_source_random(&s));
    assert_int_equal(s.size, 0); /* a pipe has no size */
    const uint8_t *v;
    assert_int_equal(gcev_source_take(&s, 10, &v, &err), GCEV_OK);
    assert_memory_equal(v, data, 10);
    assert_int_equal(gcev_source_seek(&s, 20, &err), GCEV_OK);
    assert_int_equal(gcev_source_take(&s, 1, &v, &err), GCEV_OK);
    assert_int_equal(*v, data[20]);
    assert_int_equal(gcev_source_seek(&s, 5, &err), GCEV_E_INVALID_ARG);
    assert_int_equal(err.offset, 21);
    assert_string_equal(err.message, "a stream cannot go back");
    /* scan: the first byte equal to data[200] at or after 21, then a byte that does not follow */
    uint8_t want = data[200];
    assert_int_equal(gcev_source_scan(&s, 4, match_byte, &want, &err), GCEV_OK);
    size_t first = 21;
    while (data[first] != want) {
        first++;
    }
    assert_int_equal(gcev_source_pos(&s), first);
    uint8_t none = 1; /* i * 7 mod 256 is 1 only at i = 183, before the position */
    assert_int_equal(gcev_source_scan(&s, 4, match_byte, &none, &err), GCEV_END);
    gcev_source_close(&s);
    gcev_source_close(NULL);
}

/* Arguments: a missing source or path is GCEV_E_INVALID_ARG; memory cannot seek past its end. */
static void test_source_bad_arguments_and_seek_past_the_end(void **st)
{
    (void)st;
    fill();
    gcev_source s;
    gcev_error err = {0};
    assert_int_equal(gcev_source_init_memory(NULL, data, 1), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_source_init_reader(NULL, feed_read, NULL), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_source_init_file(NULL, "x", &err), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_source_init_file(&s, NULL, &err), GCEV_E_INVALID_ARG);
    assert_string_equal(err.message, "no source or path");
    assert_int_equal(gcev_source_init_memory(&s, data, sizeof data), GCEV_OK);
    assert_int_equal(gcev_source_seek(&s, sizeof data, &err), GCEV_OK);
    assert_int_equal(gcev_source_seek(&s, sizeof data + 1, &err), GCEV_E_TRUNCATED_FILE);
    assert_int_equal(err.offset, sizeof data);
    assert_int_equal(gcev_source_seek(&s, 3, &err), GCEV_OK); /* random access goes back */
    assert_int_equal(gcev_source_pos(&s), 3);
    gcev_source_close(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_memory_take_peek_skip),
        cmocka_unit_test(test_source_callback_take_peek_skip),
        cmocka_unit_test(test_source_callback_window_takes_across_and_past_its_size),
        cmocka_unit_test(test_source_file_take_peek_skip),
        cmocka_unit_test(test_source_big_files_read_whole_or_mapped),
        cmocka_unit_test(test_source_file_with_the_magic_is_read_once_through_the_window),
        cmocka_unit_test(test_source_window_kept_for_the_next_source_small_files_on_the_heap),
        cmocka_unit_test(test_source_read_error_is_io),
        cmocka_unit_test(test_open_missing_file_sets_errno_enoent),
        cmocka_unit_test(test_source_directory_refused_with_eisdir),
        cmocka_unit_test(test_read_error_mid_trace_keeps_errno),
        cmocka_unit_test(test_source_pipe_is_read_through_the_window_forward_only),
        cmocka_unit_test(test_source_bad_arguments_and_seek_past_the_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
