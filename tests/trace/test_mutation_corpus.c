/* SPDX-License-Identifier: MIT */
/*
 * Mutation tests over ../shared/corpus: every trace truncated at event and
 * buffer boundaries (all of them for small traces, an even spread for big
 * ones) and at random offsets, and with seeded random bit flips. Each damaged
 * copy is read in memory and as a stream, in file and timestamp order:
 *  - the events delivered are exactly the undamaged run's first events, none
 *    starting past the damage, and (truncations) every event that ends more
 *    than one block before the cut;
 *  - the run ends with a specific error (truncations: GCEV_E_TRUNCATED_FILE, an
 *    ETL cut at a buffer boundary too: its header's BuffersWritten says more
 *    buffers follow) whose offset lies within the input and not before the last
 *    delivered event;
 *  - no crash, no hang (SIGALRM per file), and the reader's memory does not
 *    grow with the file size (a trace with 10x the events or buffers peaks at
 *    the same heap use).
 * The gcev CLI (GCEV_CLI) runs over a spread of the same bit-flipped copies: count,
 * dump and stats in every format exit 0, 1 (a trace error after partial output) or
 * 2 (not readable as a trace) with no sanitizer report; in the ASan+UBSan build the
 * CLI is instrumented too, which is where qsort(NULL, 0, ...) in count hid.
 * GCEV_MUTATION_QUICK=1 (set for valgrind runs) samples fewer cuts and skips
 * traces over 1 MiB.
 */
extern char **environ;
#define _DEFAULT_SOURCE
#include <malloc.h>
#include <setjmp.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>
#include <gcev/gcev_writer.h>

#include "testutil.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GCEV_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GCEV_TEST_ASAN 1
#endif
/* gcc ships no allocator_interface.h: declare the one ASan call we use (same
 * symbol in gcc's and clang's runtimes). Under ASan mallinfo2 sees nothing. */
#ifdef GCEV_TEST_ASAN
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

/* DETECT_BYTES: a file shorter than the format-detection peek (GCEV_DETECT_BYTES in
 * src/gcev_trace.c) cannot be recognised and is refused as unsupported. */
enum { FILE_SECONDS = 240, PLAIN_BLOCK_RADIUS = 1 << 20, DETECT_BYTES = 80 };

/* One delivered event, reduced to what identifies it. */
typedef struct ev_key {
    uint64_t file_offset;
    int64_t timestamp;
    uint64_t thread_id;
    uint32_t payload_size;
    uint32_t payload_hash;
    uint16_t event_id, version;
} ev_key;

typedef struct run {
    ev_key *ev;
    size_t n, cap;
    gcev_status st;
    gcev_error err;
} run;

static uint32_t fnv(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 16777619u;
    }
    return h;
}

typedef struct stream {
    const uint8_t *data;
    size_t size, pos, chunk;
} stream;

static long long stream_read(void *ctx, void *buf, size_t n)
{
    stream *s = ctx;
    size_t k = s->size - s->pos;
    k = k < n ? k : n;
    k = k < s->chunk ? k : s->chunk;
    memcpy(buf, s->data + s->pos, k);
    s->pos += k;
    return (long long)k;
}

static size_t heap_in_use(void)
{
#ifdef GCEV_TEST_ASAN
    return __sanitizer_get_current_allocated_bytes();
#else
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
#endif
}

/* Reads data[0..size) and records its events; *peak gets the reader's peak heap growth. */
static void read_all(const uint8_t *data, size_t size, int as_stream, uint32_t order, run *r, size_t *peak)
{
    memset(r, 0, sizeof *r);
    size_t base = heap_in_use(), top = base;
    gcev_trace_options o = {.struct_size = sizeof o, .order = order};
    stream s = {data, size, 0, 4093};
    gcev_trace *t = NULL;
    gcev_status st = as_stream ? gcev_trace_open_reader(stream_read, &s, &o, &t, &r->err)
                               : gcev_trace_open_memory(data, size, &o, &t, &r->err);
    if (st != GCEV_OK) {
        assert_null(t);
        r->st = st;
        return;
    }
    gcev_trace_event ev;
    while ((st = gcev_trace_next(t, &ev, &r->err)) == GCEV_OK) {
        if (r->n == r->cap) {
            r->cap = r->cap ? r->cap * 2 : 1024;
            r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
            assert_non_null(r->ev);
        }
        ev_key k = {
            ev.file_offset, ev.timestamp, ev.thread_id, ev.payload_size, fnv(ev.payload, ev.payload_size),
            ev.event_id,    ev.version};
        r->ev[r->n++] = k;
        if (peak) {
            size_t now = heap_in_use();
            top = now > top ? now : top;
        }
    }
    r->st = st;
    gcev_trace_close(t);
    if (peak) {
        *peak = top - base;
    }
}

static int same_key(const ev_key *a, const ev_key *b)
{
    return a->file_offset == b->file_offset && a->timestamp == b->timestamp && a->thread_id == b->thread_id &&
           a->payload_size == b->payload_size && a->payload_hash == b->payload_hash &&
           a->event_id == b->event_id && a->version == b->version;
}

static const char *cur_file;

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "mutation_corpus: per-file time limit exceeded (hang?)\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

static uint64_t rng_state;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int is_etl(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && !strcmp(name + n - 4, ".etl");
}

static int quick(void)
{
    const char *q = getenv("GCEV_MUTATION_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

/*
 * The damaged run must deliver a prefix of the reference, nothing starting at
 * or past `damage`, and everything whose record starts before
 * damage - radius (the block containing the damage may be dropped whole).
 */
static void check_damaged(const run *ref, const run *got, uint64_t damage, uint64_t radius, size_t size,
                          int truncation, const char *what)
{
    size_t n = got->n < ref->n ? got->n : ref->n;
    for (size_t i = 0; i < n; i++) {
        if (!same_key(&ref->ev[i], &got->ev[i])) {
            if (!truncation && ref->ev[i].file_offset + radius >= damage) {
                return; /* a flipped bit inside this event's block: content may differ */
            }
            fail_msg("%s %s: event %zu differs from the undamaged run (offset %llu)", cur_file, what, i,
                     (unsigned long long)ref->ev[i].file_offset);
        }
    }
    if (truncation) {
        if (got->n > ref->n) {
            fail_msg("%s %s: %zu events, more than the undamaged %zu", cur_file, what, got->n, ref->n);
        }
        size_t must = 0;
        while (must < ref->n && ref->ev[must].file_offset + radius < damage) {
            must++;
        }
        if (got->n < must) {
            fail_msg("%s %s: only %zu events delivered, %zu lie more than a block before the cut", cur_file,
                     what, got->n, must);
        }
        if (got->n && got->ev[got->n - 1].file_offset >= damage) {
            fail_msg("%s %s: an event starting past the cut was delivered", cur_file, what);
        }
    }
    if (got->st != GCEV_END) {
        if (got->st == GCEV_OK || got->st == GCEV_E_INVALID_ARG || got->st == GCEV_E_NOMEM ||
            got->err.code != got->st) {
            fail_msg("%s %s: unspecific status %s", cur_file, what, gcev_status_str(got->st));
        }
        if (got->err.offset > size) {
            fail_msg("%s %s: error offset %llu past the input (%zu bytes): %s", cur_file, what,
                     (unsigned long long)got->err.offset, size, got->err.message);
        }
        if (got->n && got->err.offset < got->ev[got->n - 1].file_offset) {
            fail_msg("%s %s: error offset %llu before the last delivered event (%llu)", cur_file, what,
                     (unsigned long long)got->err.offset,
                     (unsigned long long)got->ev[got->n - 1].file_offset);
        }
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t stat_cuts, stat_flips, stat_reads, stat_cli_runs;

/* ---- the CLI over damaged copies ------------------------------------------------ */

static const char *const cli_commands[][4] = {
    {"count", "--format", "text", NULL}, {"count", "--format", "json", NULL},
    {"dump", "--format", "text", NULL},  {"dump", "--format", "jsonl", NULL},
    {"dump", "--format", "csv", NULL},   {"stats", "--format", "text", NULL},
    {"stats", "--format", "csv", NULL},  {"stats", "--format", "json", NULL},
};

static char *slurp_fd(int fd)
{
    size_t n = 0, cap = 4096;
    char *s = malloc(cap);
    assert_non_null(s);
    lseek(fd, 0, SEEK_SET);
    for (;;) {
        if (n + 1 == cap) {
            cap *= 2;
            s = realloc(s, cap);
            assert_non_null(s);
        }
        ssize_t r = read(fd, s + n, cap - 1 - n);
        if (r <= 0) {
            break;
        }
        n += (size_t)r;
    }
    s[n] = '\0';
    return s;
}

/* Runs every CLI command over the trace file at path (damaged copy `what`). */
static void cli_check_copy(const char *cli, const char *path, const char *what)
{
    char errpath[] = "/tmp/gcev_mutation_stderr_XXXXXX";
    int errfd = mkstemp(errpath);
    assert_true(errfd >= 0);
    unlink(errpath);
    for (size_t c = 0; c < sizeof cli_commands / sizeof cli_commands[0]; c++) {
        const char *const *cmd = cli_commands[c];
        assert_int_equal(ftruncate(errfd, 0), 0);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, errfd, 2);
        char *argv[] = {(char *)cli, (char *)cmd[0], (char *)cmd[1], (char *)cmd[2], (char *)path, NULL};
        pid_t pid;
        int rc = posix_spawn(&pid, cli, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        assert_int_equal(rc, 0);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0) {
        }
        char *err = slurp_fd(errfd);
        int sanitizer = strstr(err, "runtime error") || strstr(err, "Sanitizer");
        if (!WIFEXITED(status) || WEXITSTATUS(status) > 2 || sanitizer) {
            fail_msg("%s %s: gcev %s %s %s: %s %d\n%s", cur_file, what, cmd[0], cmd[1], cmd[2],
                     WIFEXITED(status) ? "exit status" : "killed by signal",
                     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), err);
        }
        free(err);
        stat_cli_runs++;
    }
    close(errfd);
}

/* Writes the damaged copy to a temporary file and runs the CLI over it. */
static void cli_check_bytes(const uint8_t *data, size_t size, const char *what)
{
    const char *cli = getenv("GCEV_CLI");
    if (!cli || !*cli) {
        return; /* built without the CLI (GCEV_BUILD_TOOLS=OFF) */
    }
    char path[] = "/tmp/gcev_mutation_copy_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    for (size_t off = 0; off < size;) {
        ssize_t w = write(fd, data + off, size - off);
        assert_true(w > 0);
        off += (size_t)w;
    }
    close(fd);
    cli_check_copy(cli, path, what);
    unlink(path);
}

static void mutate_file(const char *dir, const char *name)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/corpus/%s", dir, name);
    size_t size = 0;
    uint8_t *data = (uint8_t *)testutil_read_file(path, &size);
    assert_non_null(data);
    if (quick() && size > (1u << 20)) {
        free(data);
        return;
    }
    cur_file = name;
    alarm(FILE_SECONDS);
    const int etl = is_etl(name);
    /* ETL buffers, walked by their BufferSize: relogged files in compressed mode have
     * buffers of any size, and their records carry the buffer's offset, so the
     * largest buffer on disk is how far before a cut an event may be lost */
    uint64_t bounds[256];
    size_t nbounds = 0;
    uint64_t radius = PLAIN_BLOCK_RADIUS;
    if (etl) {
        radius = 0;
        for (uint64_t b = 0; b + 8 <= size && nbounds < sizeof bounds / sizeof bounds[0];) {
            uint32_t bs =
                (uint32_t)(data[b] | data[b + 1] << 8 | data[b + 2] << 16 | (uint32_t)data[b + 3] << 24);
            if (bs < 72) {
                break;
            }
            radius = bs > radius ? bs : radius;
            b += bs;
            if (b < size) {
                bounds[nbounds++] = b;
            }
        }
    }

    run ref;
    read_all(data, size, 0, GCEV_TRACE_ORDER_FILE, &ref, NULL);
    assert_int_equal(ref.st, GCEV_END);
    assert_true(ref.n > 0);

    /* cut points: every event start (and the byte after it), every ETL buffer boundary,
     * random offsets; big traces keep an even spread of at most `max_cuts` */
    size_t ncut = 0, capcut = 2 * ref.n + nbounds + 64;
    uint64_t *cuts = malloc(capcut * sizeof *cuts);
    assert_non_null(cuts);
    for (size_t i = 0; i < ref.n; i++) {
        cuts[ncut++] = ref.ev[i].file_offset;
        cuts[ncut++] = ref.ev[i].file_offset + 1;
    }
    for (size_t b = 0; b < nbounds; b++) {
        cuts[ncut++] = bounds[b];
    }
    rng_state = 0x9E3779B97F4A7C15ull ^ size;
    for (int i = 0; i < 48; i++) {
        cuts[ncut++] = rng() % size;
    }
    qsort(cuts, ncut, sizeof *cuts, cmp_u64);
    const size_t max_cuts = quick() ? 24 : (size > (4u << 20) ? 40 : size > (256u << 10) ? 150 : 100000);
    size_t step = ncut > max_cuts ? ncut / max_cuts + 1 : 1;
    for (size_t i = 0; i < ncut; i += step) {
        uint64_t cut = cuts[i];
        if (cut >= size || (i > 0 && step == 1 && cuts[i - 1] == cut)) {
            continue;
        }
        for (int mode = 0; mode < (quick() ? 1 : 2); mode++) {
            run got;
            read_all(data, (size_t)cut, mode, GCEV_TRACE_ORDER_FILE, &got, NULL);
            char what[64];
            snprintf(what, sizeof what, "cut at %llu (%s)", (unsigned long long)cut,
                     mode ? "stream" : "memory");
            check_damaged(&ref, &got, cut, radius, (size_t)cut, 1, what);
            if (got.st == GCEV_END) {
                fail_msg("%s %s: the cut trace reads as complete", name, what);
            }
            /* a cut inside the first bytes cannot be told from another file type */
            int undetectable = cut < DETECT_BYTES && got.st == GCEV_E_UNSUPPORTED;
            if (got.st != GCEV_END && got.st != GCEV_E_TRUNCATED_FILE && !undetectable) {
                fail_msg("%s %s: %s (%s) instead of a truncation error at offset %llu", name, what,
                         gcev_status_str(got.st), got.err.message ? got.err.message : "",
                         (unsigned long long)got.err.offset);
            }
            free(got.ev);
            stat_reads++;
        }
        /* timestamp order over the cut file: no crash, a specific end */
        if (!quick() && i % (step * 8) == 0) {
            run got;
            read_all(data, (size_t)cut, 1, GCEV_TRACE_ORDER_TIME, &got, NULL);
            assert_true(got.st == GCEV_END || got.st == GCEV_E_TRUNCATED_FILE ||
                        (cut < DETECT_BYTES && got.st == GCEV_E_UNSUPPORTED));
            free(got.ev);
        }
        stat_cuts++;
    }
    free(cuts);

    /* seeded random bit flips: 1..8 bits per copy */
    uint8_t *copy = malloc(size);
    assert_non_null(copy);
    const int nflips = quick() ? 8 : size > (4u << 20) ? 12 : 64;
    /* the CLI over every copy of small traces, a spread of the big ones' copies */
    const int cli_every = quick() ? 4 : size > (1u << 20) ? 6 : 4;
    for (int k = 0; k < nflips; k++) {
        memcpy(copy, data, size);
        uint64_t first = size;
        int bits = 1 + (int)(rng() % 8);
        for (int b = 0; b < bits; b++) {
            /* mostly near the front, where headers and metadata live */
            uint64_t at = (k & 1) ? rng() % size : rng() % (size < 65536 ? size : 65536);
            copy[at] ^= (uint8_t)(1u << (rng() % 8));
            first = at < first ? at : first;
        }
        run got;
        read_all(copy, size, k & 2 ? 1 : 0, (k & 4) ? GCEV_TRACE_ORDER_TIME : GCEV_TRACE_ORDER_FILE, &got,
                 NULL);
        char what[64];
        snprintf(what, sizeof what, "flip seed %d (first at %llu)", k, (unsigned long long)first);
        if (!(k & 4)) {
            check_damaged(&ref, &got, first, radius, size, 0, what);
        }
        if (k % cli_every == 0) {
            cli_check_bytes(copy, size, what);
        }
        free(got.ev);
        stat_flips++;
    }
    free(copy);
    free(ref.ev);
    free(data);
    alarm(0);
}

static void test_corpus_traces_survive_truncation_and_bit_flips(void **state)
{
    (void)state;
    const char *dir = testutil_shared_dir();
    assert_non_null(dir);
    signal(SIGALRM, on_alarm);
    static const char *const traces[] = {
        "eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf",
        "eventpipe-dotnetcore2.1-win-x86-objver3.netperf",
        "eventpipe-dotnetcore3.0-win-x64-objver4.nettrace",
        "eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace",
        "eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace",
        "gcrundownevents.etl",
        "primitive-types.etl",
        "compressed-SelfDescribingSingleEvent.etl",
    };
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        mutate_file(dir, traces[i]);
    }
    printf("mutation_corpus: %zu cut points (%zu reads), %zu bit-flip copies, all specific; "
           "%zu CLI runs over damaged copies, none crashed\n",
           stat_cuts, stat_reads, stat_flips, stat_cli_runs);
}

/* ---- memory does not grow with file size ---------------------------------------- */

static uint8_t *write_trace(uint32_t nevents, size_t *size)
{
    gcev_writer_options o = {6, 1, 8, 4242, 4, 1000000, 0};
    gcev_writer *w;
    assert_int_equal(gcev_writer_create(&o, &w), GCEV_OK);
    gcev_writer_meta gc = {"Microsoft-Windows-DotNETRuntime", 1, 2, 1, 4, 1, "", NULL, 0};
    uint32_t id;
    assert_int_equal(gcev_writer_define(w, &gc, &id), GCEV_OK);
    uint8_t p[26] = {8, 0, 0, 0, 2};
    for (uint32_t i = 0; i < nevents; i++) {
        if (i % 500 == 499) {
            assert_int_equal(gcev_writer_sequence_point(w, 10 * (int64_t)i), GCEV_OK);
        }
        gcev_writer_event e = {id, 11 + i % 3, 0, 0, 0, 10 * (int64_t)i + 5, p, 26, NULL, 0, {0}};
        assert_int_equal(gcev_writer_write(w, &e), GCEV_OK);
    }
    const uint8_t *data;
    assert_int_equal(gcev_writer_finish(w, &data, size), GCEV_OK);
    uint8_t *copy = malloc(*size);
    assert_non_null(copy);
    memcpy(copy, data, *size);
    gcev_writer_free(w);
    return copy;
}

static void expect_flat_peak(const uint8_t *small, size_t small_size, const uint8_t *big, size_t big_size,
                             size_t small_events, size_t big_events, uint32_t orders, const char *what)
{
    for (int mode = 0; mode < 2; mode++) {
        for (uint32_t order = 0; order < orders; order++) {
            run a, b;
            size_t pa = 0, pb = 0;
            read_all(small, small_size, mode, order, &a, &pa);
            read_all(big, big_size, mode, order, &b, &pb);
            assert_int_equal(a.st, GCEV_END);
            assert_int_equal(b.st, GCEV_END);
            assert_int_equal(a.n, small_events);
            assert_int_equal(b.n, big_events);
            /* the recorded keys grow with the events; the reader must not */
            size_t keys_a = a.cap * sizeof(ev_key), keys_b = b.cap * sizeof(ev_key);
            size_t ra = pa > keys_a ? pa - keys_a : 0, rb = pb > keys_b ? pb - keys_b : 0;
            if (rb > ra + ra / 4 + 65536) {
                fail_msg("%s (%s, %s order): reader peak heap %zu bytes for %zu events vs %zu for %zu", what,
                         mode ? "stream" : "memory", order ? "time" : "file", rb, big_events, ra,
                         small_events);
            }
            free(a.ev);
            free(b.ev);
        }
    }
}

static void test_nettrace_10x_events_same_peak_memory(void **state)
{
    (void)state;
    size_t s1, s10;
    uint8_t *t1 = write_trace(5000, &s1);
    uint8_t *t10 = write_trace(50000, &s10);
    expect_flat_peak(t1, s1, t10, s10, 5000, 50000, 2, "nettrace");
    free(t1);
    free(t10);
}

static void test_etl_10x_buffers_same_peak_memory(void **state)
{
    (void)state;
    const char *dir = testutil_shared_dir();
    char path[2048];
    snprintf(path, sizeof path, "%s/corpus/gcrundownevents.etl", dir);
    size_t size = 0;
    uint8_t *data = (uint8_t *)testutil_read_file(path, &size);
    assert_non_null(data);
    uint32_t buf = (uint32_t)(data[0] | data[1] << 8 | data[2] << 16 | (uint32_t)data[3] << 24);
    assert_true(buf > 0 && size % buf == 0 && size / buf >= 2);
    /* the header buffer, then the other buffers ten times over */
    size_t body = size - buf, big_size = buf + 10 * body;
    uint8_t *big = malloc(big_size);
    assert_non_null(big);
    memcpy(big, data, buf);
    for (int i = 0; i < 10; i++) {
        memcpy(big + buf + (size_t)i * body, data + buf, body);
    }
    run r;
    read_all(data, size, 0, GCEV_TRACE_ORDER_FILE, &r, NULL);
    size_t n1 = r.n;
    free(r.ev);
    size_t n_header = 0;
    read_all(data, buf, 0, GCEV_TRACE_ORDER_FILE, &r, NULL);
    n_header = r.n;
    free(r.ev);
    /* file order only: ETL has no sequence points, so timestamp order holds a window of
     * events (gcev_order: up to 1M events or the block-size limit) by design */
    expect_flat_peak(data, size, big, big_size, n1, n_header + 10 * (n1 - n_header), 1, "etl");
    free(big);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_traces_survive_truncation_and_bit_flips),
        cmocka_unit_test(test_nettrace_10x_events_same_peak_memory),
        cmocka_unit_test(test_etl_10x_buffers_same_peak_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
