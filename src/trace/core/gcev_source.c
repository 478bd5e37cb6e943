/* SPDX-License-Identifier: MIT */
/*
 * Byte input for the trace readers (see gcev_source.h).
 *
 * Files are in memory whole when possible (mapped, read into 2 MiB pages: see os_load, or, up to
 * 16 KiB, onto the heap: see small_file_read)
 * so that take() is a pointer bump and a block is handed to the parser without a copy. When mapping fails
 * (pipes, special files, exhausted address space) the descriptor is read with read() through the same window
 * code as caller callbacks.
 *
 * The window holds buf[0..buf_len), the byte at `pos` being buf[buf_off].
 * A take() may return a pointer into the window, so bytes are only shifted or
 * the window grown at the *next* take/peek, which is exactly when the contract
 * says the previous view dies.
 */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise's MADV_HUGEPAGE */
#endif

#include "gcev_compiler.h"
#include "gcev_error.h"
#include "gcev_source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { HUGE_PAGE = 2u << 20 }; /* a transparent huge page (x86-64, arm64 with 4 KiB pages) */

/*
 * The few calls that differ between POSIX and Windows: open a UTF-8 path, stat,
 * map read-only, read, close. On Windows the path is converted to UTF-16 and
 * mapped with CreateFileMapping/MapViewOfFile; the descriptor is a CRT one.
 */
#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <io.h>
#include <windows.h>
typedef struct _stat64 os_stat_t;
#define os_fstat _fstat64
#define os_close _close
#ifndef S_ISREG
#define S_ISREG(m) (((m)&_S_IFMT) == _S_IFREG)
#endif
#ifndef S_ISDIR
#define S_ISDIR(m) (((m)&_S_IFMT) == _S_IFDIR)
#endif

static int os_open(const char *path)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
    if (n <= 0) {
        errno = EINVAL;
        return -1;
    }
    wchar_t *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        errno = ENOMEM;
        return -1;
    }
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, w, n);
    int fd = _wopen(w, _O_RDONLY | _O_BINARY);
    int e = errno;
    free(w);
    errno = e;
    return fd;
}

static const void *os_map(int fd, size_t size)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    if (h == INVALID_HANDLE_VALUE) {
        return NULL;
    }
    HANDLE m = CreateFileMappingW(h, NULL, PAGE_READONLY, 0, 0, NULL);
    if (!m) {
        return NULL;
    }
    const void *v = MapViewOfFile(m, FILE_MAP_READ, 0, 0, size);
    CloseHandle(m); /* the view keeps the mapping */
    return v;
}

static void os_unmap(const void *p, size_t size)
{
    (void)size;
    UnmapViewOfFile(p);
}

static long long os_read(int fd, void *dst, size_t n)
{
    return _read(fd, dst, n > INT_MAX ? INT_MAX : (unsigned)n);
}
/* Windows maps every file: see the POSIX os_load. */
static uint8_t *os_load(int fd, uint64_t *size, size_t *len)
{
    (void)fd;
    (void)size;
    (void)len;
    return NULL;
}

/* The window lives on the C heap there: see the POSIX os_huge_alloc. */
static uint8_t *os_huge_alloc(size_t cap)
{
    (void)cap;
    return NULL;
}

static void os_huge_free(uint8_t *p, size_t cap)
{
    (void)p;
    (void)cap;
}

/* Windows maps every file (no pread to look at its head): see gcev_source_init_file_once. */
static int os_starts_with(int fd, const void *magic, size_t n)
{
    (void)fd;
    (void)magic;
    (void)n;
    return 0;
}
#else
#include <sys/mman.h>
#include <unistd.h>
typedef struct stat os_stat_t;
#define os_fstat fstat
#define os_close close

static int os_open(const char *path)
{
    return open(path, O_RDONLY);
}

static const void *os_map(int fd, size_t size)
{
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    return m == MAP_FAILED ? NULL : m;
}

static void os_unmap(const void *p, size_t size)
{
    munmap((void *)p, size);
}

#if defined(MADV_HUGEPAGE) && defined(MAP_ANONYMOUS)
/* Whether a region given MADV_HUGEPAGE gets huge pages at its first touch: THP enabled
 * ("always" or "madvise") and a defrag mode that compacts for madvised regions at fault
 * time, so that the pages do not silently fall back to 4 KiB ones. */
static int sysfs_choice_in(const char *path, const char *const *ok)
{
    char line[128];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        return 0;
    }
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n <= 0) {
        return 0;
    }
    line[n] = '\0';
    for (; *ok; ok++) {
        if (strstr(line, *ok)) {
            return 1;
        }
    }
    return 0;
}

/* Asked once a process (six system calls, which a walk of a small trace would notice):
 * 0 not yet, 1 yes, 2 no. */
static atomic_int g_huge_on_request;

static int huge_pages_on_request(void)
{
    static const char *const enabled[] = {"[always]", "[madvise]", NULL};
    static const char *const defrag[] = {"[always]", "[madvise]", "[defer+madvise]", NULL};
    int v = atomic_load_explicit(&g_huge_on_request, memory_order_relaxed);
    if (v == 0) {
        v = sysfs_choice_in("/sys/kernel/mm/transparent_hugepage/enabled", enabled) &&
                    sysfs_choice_in("/sys/kernel/mm/transparent_hugepage/defrag", defrag)
                ? 1
                : 2;
        atomic_store_explicit(&g_huge_on_request, v, memory_order_relaxed);
    }
    return v == 1;
}
#endif

/* cap bytes (a multiple of HUGE_PAGE) of zeroed anonymous memory at a 2 MiB boundary, asked to be
 * backed by huge pages: a page fault for every 2 MiB, not every 4 KiB. NULL when huge pages
 * cannot be had on request or the mapping fails. */
static uint8_t *os_huge_alloc(size_t cap)
{
#if !defined(MADV_HUGEPAGE) || !defined(MAP_ANONYMOUS)
    (void)cap;
    return NULL;
#else
    if (!huge_pages_on_request()) {
        return NULL;
    }
    uint8_t *raw = mmap(NULL, cap + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        return NULL;
    }
    /* keep the 2 MiB-aligned cap bytes; give back the head and tail around them */
    uint8_t *b = (uint8_t *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (b > raw) {
        munmap(raw, (size_t)(b - raw));
    }
    if (raw + cap + HUGE_PAGE > b + cap) {
        munmap(b + cap, (size_t)(raw + cap + HUGE_PAGE - (b + cap)));
    }
    if (madvise(b, cap, MADV_HUGEPAGE) != 0) {
        munmap(b, cap);
        return NULL;
    }
    return b;
#endif
}

static void os_huge_free(uint8_t *p, size_t cap)
{
    munmap(p, cap);
}

/*
 * A file of GCEV_SOURCE_LOAD_MIN..GCEV_SOURCE_LOAD_MAX bytes read whole into anonymous memory
 * on 2 MiB pages, rather than mapped: a reader walks it once, and a mapping costs one page
 * table entry per 4 KiB, which virtual machines with shadow page tables make dear (the 29 MB
 * .NET 10 bench trace: 15.4 ms of CPU to map and touch, 5.4 ms to read in; see the README's
 * Benchmarks). *len is the region's length. NULL (the caller maps the file) when huge pages
 * cannot be had: on 4 KiB anonymous pages the same read costs 142 ms there. A file that
 * shrinks while read keeps the bytes read (*size) and ends there, where a mapping would
 * fault past the new end.
 */
static uint8_t *os_load(int fd, uint64_t *size, size_t *len)
{
    const size_t want = (size_t)*size;
    const size_t cap = (want + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    uint8_t *b = os_huge_alloc(cap);
    if (!b) {
        return NULL; /* not Linux, or no huge pages: mapped */
    }
    size_t got = 0;
    while (got < want) {
        ssize_t r = read(fd, b + got, want - got);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            os_huge_free(b, cap);
            return NULL; /* mapped instead, whose faults say what is wrong */
        }
        if (r == 0) {
            break;
        }
        got += (size_t)r;
    }
    mprotect(b, cap, PROT_READ); /* read-only from here on, as a mapping is */
    *size = got;
    *len = cap;
    return b;
}

static long long os_read(int fd, void *dst, size_t n)
{
    return read(fd, dst, n);
}

/* 1 when the file begins with the n bytes of magic (n from 1 to 16); the position stays. */
static int os_starts_with(int fd, const void *magic, size_t n)
{
    uint8_t head[16];
    if (!magic || n == 0 || n > sizeof head) {
        return 0;
    }
    ssize_t r;
    do {
        r = pread(fd, head, n, 0);
    } while (r < 0 && errno == EINTR);
    return r == (ssize_t)n && memcmp(head, magic, n) == 0;
}
#endif

/*
 * One 2 MiB read window kept from a closed source for the next one: a program that walks many
 * traces in turn (a test suite, an agent reading each new file) would otherwise have a fresh
 * huge page mapped, faulted in and zeroed by the kernel for each (about 80 us here, more than
 * the walk of a trace of a few thousand events). At most one is kept, for the life of the
 * process; the reads that fill a window are all its bytes a source looks at.
 */
static _Atomic(uint8_t *) g_spare_window;

static uint8_t *window_alloc(void)
{
    uint8_t *b = atomic_exchange(&g_spare_window, NULL);
    return b ? b : os_huge_alloc(HUGE_PAGE);
}

static void window_free(uint8_t *b)
{
    uint8_t *none = NULL;
    if (!atomic_compare_exchange_strong(&g_spare_window, &none, b)) {
        os_huge_free(b, HUGE_PAGE);
    }
}

/* GCEV_SOURCE_SMALL_FILE: a regular file of at most this many bytes is read whole onto the C
 * heap (small_file_read), whatever its format: the first 2 MiB window a process has costs
 * about 100 us here (mapped, faulted in, zeroed), a mapping about 25 us to set up and take
 * down, a heap page that is new to the process about 14 us (a virtual machine's page faults). */
enum {
    GCEV_SOURCE_DEFAULT_MAX_TAKE = 256u << 20,
    GCEV_SOURCE_MIN_WINDOW = 64u << 10,
    GCEV_SOURCE_SMALL_FILE = 16u << 10
};
/* The files os_load reads whole: from one huge page (below, mapping costs little) up to
 * 256 MiB (beyond, the time to the first event and the memory held beside the page cache
 * outweigh the page tables saved). */
#define GCEV_SOURCE_LOAD_MIN (2ull << 20)
#define GCEV_SOURCE_LOAD_MAX (256ull << 20)

static gcev_status source_fail(gcev_error *err, gcev_status code, uint64_t offset, const char *msg)
{
    return gcev_error_set(err, code, offset, NULL, msg);
}

static void source_reset(gcev_source *s)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->max_take = GCEV_SOURCE_DEFAULT_MAX_TAKE;
}

gcev_status gcev_source_init_memory(gcev_source *s, const uint8_t *data, size_t size)
{
    if (!s || (!data && size)) {
        return GCEV_E_INVALID_ARG;
    }
    source_reset(s);
    s->base = data;
    s->size = size;
    return GCEV_OK;
}

gcev_status gcev_source_init_reader(gcev_source *s, gcev_read_fn read, void *ctx)
{
    if (!s || !read) {
        return GCEV_E_INVALID_ARG;
    }
    source_reset(s);
    s->read = read;
    s->ctx = ctx;
    return GCEV_OK;
}

/* A small regular file (GCEV_SOURCE_SMALL_FILE) of `size` bytes at its stat read whole onto
 * the heap, fd closed: in memory, random access. A file that shrinks while read keeps the
 * bytes read, as os_load does; a read error is the open's, at its offset. */
static gcev_status small_file_read(gcev_source *s, int fd, size_t size, gcev_error *err)
{
    uint8_t *b = malloc(size);
    if (!b) {
        os_close(fd);
        return source_fail(err, GCEV_E_NOMEM, 0, "cannot hold the trace file");
    }
    size_t got = 0;
    while (got < size) {
        long long r = os_read(fd, b + got, size - got);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            s->os_errno = errno;
            free(b);
            os_close(fd);
            return source_fail(err, GCEV_E_IO, got, "read error on the trace input");
        }
        if (r == 0) {
            break;
        }
        got += (size_t)r;
    }
    os_close(fd);
    s->base = b;
    s->size = got;
    s->small = 1;
    return GCEV_OK;
}

gcev_status gcev_source_init_file(gcev_source *s, const char *path, gcev_error *err)
{
    return gcev_source_init_file_once(s, path, NULL, 0, err);
}

gcev_status gcev_source_init_file_once(gcev_source *s, const char *path, const void *magic, size_t n,
                                       gcev_error *err)
{
    if (!s || !path) {
        return source_fail(err, GCEV_E_INVALID_ARG, 0, "no source or path");
    }
    source_reset(s);
    int fd = os_open(path);
    if (fd < 0) {
        s->os_errno = errno;
        return source_fail(err, GCEV_E_IO, 0, "cannot open the trace file");
    }
    os_stat_t st;
    int have_stat = os_fstat(fd, &st) == 0;
    if (have_stat && S_ISDIR(st.st_mode)) {
        os_close(fd); /* open() gives a directory to O_RDONLY; read() would fail later */
        s->os_errno = errno = EISDIR;
        return source_fail(err, GCEV_E_IO, 0, "cannot open the trace file");
    }
    if (have_stat && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size <= GCEV_SOURCE_SMALL_FILE) {
        return small_file_read(s, fd, (size_t)st.st_size, err);
    }
    if (have_stat && S_ISREG(st.st_mode) && st.st_size > 0 && os_starts_with(fd, magic, n)) {
        s->fd = fd; /* read once through the window (gcev_source.h) */
        s->size = (uint64_t)st.st_size;
        return GCEV_OK;
    }
    if (have_stat && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= (uint64_t)SIZE_MAX) {
        uint64_t size = (uint64_t)st.st_size;
        size_t len = 0;
        const void *m =
            size >= GCEV_SOURCE_LOAD_MIN && size <= GCEV_SOURCE_LOAD_MAX ? os_load(fd, &size, &len) : NULL;
        s->loaded = m != NULL;
        if (!m && (m = os_map(fd, (size_t)size)) != NULL) {
            len = (size_t)size;
        }
        if (m) {
            os_close(fd);
            s->base = m;
            s->size = size;
            s->mapped = 1;
            s->map_len = len;
            return GCEV_OK;
        }
    }
    if (have_stat && S_ISREG(st.st_mode) && st.st_size == 0) {
        /* An empty regular file: nothing to map, nothing to read. */
        os_close(fd);
        return GCEV_OK;
    }
    s->fd = fd; /* read() fallback through the window */
    if (have_stat && S_ISREG(st.st_mode)) {
        s->size = (uint64_t)st.st_size;
    }
    return GCEV_OK;
}

void gcev_source_close(gcev_source *s)
{
    if (!s) {
        return;
    }
    if (s->mapped && s->base) {
        os_unmap(s->base, s->map_len);
    }
    if (s->small) {
        free((void *)(uintptr_t)s->base);
    }
    if (s->fd >= 0) {
        os_close(s->fd);
    }
    if (s->release) {
        s->release(s->ctx);
    }
    if (s->buf_huge) {
        window_free(s->buf);
    } else {
        free(s->buf);
    }
    source_reset(s);
}

static int source_windowed(const gcev_source *s)
{
    return s->read != NULL || s->fd >= 0;
}

/* One read from the underlying input: >0 bytes, 0 at end, -1 on error. */
static long long source_read_some(gcev_source *s, uint8_t *dst, size_t n)
{
    if (s->read) {
        long long r = s->read(s->ctx, dst, n);
        return (r < 0 || (unsigned long long)r > n) ? -1 : r;
    }
    for (;;) {
        long long r = os_read(s->fd, dst, n);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        return r < 0 ? -1 : r;
    }
}

/*
 * Makes buf[buf_off .. buf_off+n) hold the bytes at pos, reading as needed.
 * *got < n only at the end of input.
 */
static gcev_status source_fill(gcev_source *s, size_t n, size_t *got, gcev_error *err)
{
    size_t have = s->buf_len - s->buf_off;
    if (have >= n) {
        *got = n;
        return GCEV_OK;
    }
    /* Drop consumed bytes so that the window only ever holds what is still needed. */
    if (s->buf_off > 0) {
        memmove(s->buf, s->buf + s->buf_off, have);
        s->buf_len = have;
        s->buf_off = 0;
    }
    if (!GCEV_ASAN && !s->buf && n <= HUGE_PAGE && (s->buf = window_alloc()) != NULL) {
        /* One huge page from the start: a window grown from 64 KiB by realloc faults in every
         * 4 KiB page it touches (about 50 faults, ~1 ms, for a NetTrace walk on a virtual
         * machine with costly page tables), and a 2 MiB window moves its unread tail rarely.
         * Not under ASan, which watches heap blocks (a read past the window's end, a view
         * used after the window moved to a larger block) and not this mapping. */
        s->buf_huge = 1;
        s->buf_cap = HUGE_PAGE;
    }
    if (s->buf_cap < n) {
        size_t cap = s->buf_cap ? s->buf_cap : GCEV_SOURCE_MIN_WINDOW;
        while (cap < n) {
            cap = (cap > SIZE_MAX / 2) ? n : cap * 2;
        }
        if (cap > s->max_take && n <= s->max_take) {
            cap = s->max_take;
        }
        uint8_t *nb = s->buf_huge ? malloc(cap) : realloc(s->buf, cap);
        if (!nb) {
            return source_fail(err, GCEV_E_NOMEM, s->pos, "cannot grow the read window");
        }
        if (s->buf_huge) {
            /* a block larger than the huge page: the C heap's from here on */
            memcpy(nb, s->buf, s->buf_len);
            window_free(s->buf);
            s->buf_huge = 0;
        }
        s->buf = nb;
        s->buf_cap = cap;
    }
    /*
     * Read ahead to fill the window (fewer calls for small takes), but never
     * block for more than what is asked once that is there.
     */
    while (s->buf_len < n && !s->at_eof) {
        long long r = source_read_some(s, s->buf + s->buf_len, s->buf_cap - s->buf_len);
        if (r < 0) {
            const char *msg = "read error on the trace input";
            s->os_errno = errno;
            gcev_status code = s->fault ? s->fault(s->ctx, &msg) : GCEV_E_IO;
            return source_fail(err, code, s->pos + s->buf_len, msg);
        }
        if (r == 0) {
            s->at_eof = 1;
            break;
        }
        s->buf_len += (size_t)r;
    }
    *got = s->buf_len < n ? s->buf_len : n;
    return GCEV_OK;
}

gcev_status gcev_source_peek(gcev_source *s, size_t n, const uint8_t **view, size_t *got, gcev_error *err)
{
    *view = NULL;
    *got = 0;
    if (n > s->max_take) {
        return source_fail(err, GCEV_E_LIMIT, s->pos, "read larger than the block-size limit");
    }
    if (!source_windowed(s)) {
        uint64_t left = s->size - s->pos;
        *got = left < n ? (size_t)left : n;
        *view = s->base ? s->base + s->pos : NULL;
        return GCEV_OK;
    }
    gcev_status st = source_fill(s, n, got, err);
    if (st == GCEV_OK) {
        *view = s->buf ? s->buf + s->buf_off : NULL;
    }
    return st;
}

gcev_status gcev_source_take(gcev_source *s, size_t n, const uint8_t **view, gcev_error *err)
{
    size_t got = 0;
    gcev_status st = gcev_source_peek(s, n, view, &got, err);
    if (st != GCEV_OK) {
        return st;
    }
    if (got < n) {
        *view = NULL;
        return source_fail(err, GCEV_E_TRUNCATED_FILE, s->pos, "trace ends inside a record");
    }
    if (source_windowed(s)) {
        s->buf_off += n;
    }
    s->pos += n;
    return GCEV_OK;
}

gcev_status gcev_source_skip(gcev_source *s, uint64_t n, gcev_error *err)
{
    if (!source_windowed(s)) {
        if (s->size - s->pos < n) {
            return source_fail(err, GCEV_E_TRUNCATED_FILE, s->pos, "trace ends inside a record");
        }
        s->pos += n;
        return GCEV_OK;
    }
    /* Discard in window-sized steps so a huge skip never allocates a huge window. */
    while (n > 0) {
        size_t step = n < GCEV_SOURCE_MIN_WINDOW ? (size_t)n : GCEV_SOURCE_MIN_WINDOW;
        if (step > s->max_take) {
            step = s->max_take;
        }
        const uint8_t *v;
        gcev_status st = gcev_source_take(s, step, &v, err);
        if (st != GCEV_OK) {
            return st;
        }
        n -= step;
    }
    return GCEV_OK;
}

gcev_status gcev_source_seek(gcev_source *s, uint64_t pos, gcev_error *err)
{
    if (!source_windowed(s)) {
        if (pos > s->size) {
            return source_fail(err, GCEV_E_TRUNCATED_FILE, s->size, "trace ends inside a record");
        }
        s->pos = pos;
        return GCEV_OK;
    }
    if (pos < s->pos) {
        return source_fail(err, GCEV_E_INVALID_ARG, s->pos, "a stream cannot go back");
    }
    return gcev_source_skip(s, pos - s->pos, err);
}

static gcev_status scan_limit(gcev_error *err, uint64_t at)
{
    return gcev_error_set(err, GCEV_E_LIMIT, at, NULL,
                          "keep-going's search for the next block passed its bound");
}

gcev_status gcev_source_scan(gcev_source *s, size_t need,
                             int (*match)(void *ctx, const uint8_t *p, size_t n, uint64_t off), void *ctx,
                             gcev_error *err)
{
    if (!source_windowed(s)) {
        for (uint64_t i = s->pos; i < s->size; i++) {
            if (s->scan_limited && i - s->pos >= s->scan_left) {
                s->scan_left = 0;
                s->pos = i;
                return scan_limit(err, i);
            }
            if (match(ctx, s->base + i, (size_t)(s->size - i), i)) {
                if (s->scan_limited) {
                    s->scan_left -= i - s->pos;
                }
                s->pos = i;
                return GCEV_OK;
            }
        }
        if (s->scan_limited) {
            s->scan_left -= s->size - s->pos;
        }
        s->pos = s->size;
        return GCEV_END;
    }
    /* a stream: windows of 64 KiB past `need` bytes of look-ahead, each byte looked at once */
    size_t w = GCEV_SOURCE_MIN_WINDOW + need;
    if (w > s->max_take) {
        w = s->max_take;
    }
    for (;;) {
        const uint8_t *v;
        size_t got;
        gcev_status st = gcev_source_peek(s, w, &v, &got, err);
        if (st != GCEV_OK) {
            return st;
        }
        if (got == 0) {
            return GCEV_END;
        }
        /* offsets whose look-ahead is whole, or every one when the input ends in this window */
        size_t last = got < w ? got : got - need;
        if (last == 0) {
            last = 1;
        }
        if (s->scan_limited && last > s->scan_left) {
            last = (size_t)s->scan_left; /* the bound ends the search inside this window */
            for (size_t k = 0; k < last; k++) {
                if (match(ctx, v + k, got - k, s->pos + k)) {
                    s->scan_left -= k;
                    return gcev_source_skip(s, k, err);
                }
            }
            st = gcev_source_skip(s, last, err);
            s->scan_left = 0;
            return st == GCEV_OK ? scan_limit(err, s->pos) : st;
        }
        for (size_t k = 0; k < last; k++) {
            if (match(ctx, v + k, got - k, s->pos + k)) {
                if (s->scan_limited) {
                    s->scan_left -= k;
                }
                return gcev_source_skip(s, k, err);
            }
        }
        if (s->scan_limited) {
            s->scan_left -= last;
        }
        st = gcev_source_skip(s, last, err);
        if (st != GCEV_OK) {
            return st;
        }
    }
}
