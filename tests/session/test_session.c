/* SPDX-License-Identifier: MIT */
/*
 * Live sessions without a runtime: the IPC encoders against hand-made goldens
 * (tests/data/session), the reply parsers on good and hostile bytes, and the
 * session library against the fake server (fake_server.c) for every scenario:
 * fallback, refusals, timeouts, a stream cut off, symlinks, and many
 * attach/detach cycles that must leave no descriptor (and, under valgrind, no
 * memory) behind.
 *
 * Environment: GCEV_FAKE_SERVER (the fake server), GCEV_SAMPLE_TRACE (the
 * .nettrace it serves), GCEV_TEST_DATA (tests/data).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <gcev/gcev_session.h>

#include "gcev_ipc.h"

enum { SAMPLE_EVENT_COUNT = 1100 }; /* gcev count examples/sample.nettrace */

static char tmpdir[64];
static pid_t server = -1;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)len + 1);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* A golden: hex bytes and utf16:"text" tokens, '#' comments to the end of the line. */
static uint8_t *read_golden(const char *name, size_t *n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/session/%s", getenv("GCEV_TEST_DATA"), name);
    size_t len;
    uint8_t *text = read_file(path, &len);
    assert_non_null(text);
    text[len] = 0;
    uint8_t *out = malloc(len);
    assert_non_null(out);
    size_t k = 0;
    for (char *p = (char *)text; *p;) {
        if (*p == '#') {
            while (*p && *p != '\n') {
                p++;
            }
        } else if (!strncmp(p, "utf16:\"", 7)) {
            for (p += 7; *p && *p != '"'; p++) {
                out[k++] = (uint8_t)*p;
                out[k++] = 0;
            }
            p += *p == '"';
        } else if (strchr("0123456789abcdefABCDEF", *p) && p[1] && strchr("0123456789abcdefABCDEF", p[1])) {
            char hx[3] = {p[0], p[1], 0};
            out[k++] = (uint8_t)strtoul(hx, NULL, 16);
            p += 2;
        } else {
            p++;
        }
    }
    free(text);
    *n = k;
    return out;
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        n += de->d_name[0] != '.';
    }
    closedir(d);
    return n - 1; /* the DIR's own */
}

/* ---- fake server ----------------------------------------------------------------- */

static void stop_server(void)
{
    if (server > 0) {
        kill(server, SIGTERM);
        waitpid(server, NULL, 0);
        server = -1;
    }
}

static void clean_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d) {
        return;
    }
    struct dirent *de;
    char path[4096];
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') {
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", tmpdir, de->d_name);
        if (!strcmp(de->d_name, "real")) {
            DIR *r = opendir(path);
            struct dirent *e;
            char p2[8192];
            while (r && (e = readdir(r)) != NULL) {
                if (e->d_name[0] != '.') {
                    snprintf(p2, sizeof p2, "%s/%s", path, e->d_name);
                    unlink(p2);
                }
            }
            if (r) {
                closedir(r);
            }
            rmdir(path);
        } else {
            unlink(path);
        }
    }
    closedir(d);
}

/* Starts the fake server with a scenario; returns its pid once it listens. */
static uint32_t start_server(const char *scenario)
{
    stop_server();
    clean_tmpdir();
    char ready[128];
    snprintf(ready, sizeof ready, "%s/ready", tmpdir);
    server = fork();
    assert_true(server >= 0);
    if (server == 0) {
        execl(getenv("GCEV_FAKE_SERVER"), "fake_server", scenario, ready, getenv("GCEV_SAMPLE_TRACE"),
              (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 500; i++) {
        if (access(ready, F_OK) == 0) {
            return (uint32_t)server;
        }
        struct timespec ts = {0, 10 * 1000000};
        nanosleep(&ts, NULL);
    }
    fail_msg("the fake server did not start");
    return 0;
}

/* The requests the server received, one after the other. */
static uint8_t *next_request(const uint8_t *log, size_t n, size_t *off, size_t *len)
{
    if (*off + 4 > n) {
        return NULL;
    }
    uint32_t l;
    memcpy(&l, log + *off, 4);
    *off += 4;
    assert_true(*off + l <= n);
    *len = l;
    const uint8_t *p = log + *off;
    *off += l;
    return (uint8_t *)p;
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gcev-session-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        return -1;
    }
    setenv("TMPDIR", tmpdir, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    stop_server();
    clean_tmpdir();
    rmdir(tmpdir);
    return 0;
}

/* ---- encoders and parsers ---------------------------------------------------------- */

static void test_collect_goldens(void **state)
{
    (void)state;
    /* every CollectTracing version refused: the log holds what the library sent for each */
    uint32_t pid = start_server("refuse-collect");
    gcev_session *s = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_session_open(pid, NULL, &s, &err), GCEV_E_REFUSED);
    assert_null(s);
    assert_int_equal((uint32_t)err.offset, 0x80004005u);
    char path[128];
    snprintf(path, sizeof path, "%s/requests.bin", tmpdir);
    size_t n, off = 0, len;
    uint8_t *log = read_file(path, &n);
    assert_non_null(log);
    uint8_t *req = next_request(log, n, &off, &len);
    assert_non_null(req); /* ProcessInfo2: a bare header */
    assert_int_equal(len, 20);
    assert_int_equal(req[16], 0x04);
    assert_int_equal(req[17], 0x04);
    for (unsigned v = 6; v >= 2; v--) {
        char name[64];
        snprintf(name, sizeof name, "collect_tracing%u_gc_collect.hex", v);
        size_t glen;
        uint8_t *golden = read_golden(name, &glen);
        req = next_request(log, n, &off, &len);
        assert_non_null(req);
        assert_int_equal(len, glen);
        assert_memory_equal(req, golden, glen);
        free(golden);
    }
    assert_null(next_request(log, n, &off, &len));
    free(log);
}

static void test_encode_limits(void **state)
{
    (void)state;
    uint8_t buf[256];
    size_t len;
    gcev_ipc_provider p = {"Prov", 1, 5, "k=v"};
    gcev_ipc_collect c = {16, 1, 0, 0, 0, 0, &p, 1};
    assert_int_equal(gcev_ipc_encode_collect(5, &c, buf, sizeof buf, &len), GCEV_OK);
    assert_int_equal(len, 20 + 4 + 4 + 4 + 8 + 1 + 4 + 8 + 4 + 4 + 10 + 4 + 8 + 1 + 4);
    assert_int_equal(gcev_ipc_encode_collect(5, &c, buf, 40, &len), GCEV_E_NO_SPACE);
    assert_int_equal(gcev_ipc_encode_collect(1, &c, buf, sizeof buf, &len), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_ipc_encode_collect(7, &c, buf, sizeof buf, &len), GCEV_E_INVALID_ARG);
    gcev_ipc_provider bad = {"Pr\xc3(", 1, 5, NULL}; /* not UTF-8 */
    c.providers = &bad;
    assert_int_equal(gcev_ipc_encode_collect(5, &c, buf, sizeof buf, &len), GCEV_E_INVALID_ARG);
    gcev_ipc_provider empty = {"", 1, 5, NULL};
    c.providers = &empty;
    assert_int_equal(gcev_ipc_encode_collect(5, &c, buf, sizeof buf, &len), GCEV_E_INVALID_ARG);
    /* a request over the 16-bit size */
    char *big = malloc(40000);
    memset(big, 'a', 39999);
    big[39999] = 0;
    gcev_ipc_provider huge = {big, 1, 5, NULL};
    c.providers = &huge;
    uint8_t *mb = malloc(100000);
    assert_int_equal(gcev_ipc_encode_collect(5, &c, mb, 100000, &len), GCEV_E_LIMIT);
    free(mb);
    free(big);
    /* a code point above U+FFFF is a surrogate pair */
    gcev_ipc_provider astral = {"\xf0\x9f\x98\x80", 1, 5, NULL};
    c.providers = &astral;
    assert_int_equal(gcev_ipc_encode_collect(2, &c, buf, sizeof buf, &len), GCEV_OK);
    const uint8_t units[] = {3, 0, 0, 0, 0x3d, 0xd8, 0x00, 0xde, 0, 0};
    assert_memory_equal(buf + 20 + 9 + 4 + 12, units, sizeof units);
}

static void test_parse_reply(void **state)
{
    (void)state;
    gcev_ipc_header h;
    gcev_ipc_reply r;
    gcev_error err;
    uint8_t ok[28] = {'D', 'O', 'T',  'N',  'E', 'T', '_',  'I',  'P',  'C',  '_',  'V',  '1',  0,
                      28,  0,   0xFF, 0x00, 0,   0,   0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
    assert_int_equal(gcev_ipc_parse_header(ok, sizeof ok, &h, &err), GCEV_OK);
    assert_int_equal(gcev_ipc_parse_reply(&h, ok + 20, 8, &r, &err), GCEV_OK);
    assert_int_equal(r.ok, 1);
    assert_true(r.value == UINT64_C(0x1122334455667788));
    /* the payload must match the header's size */
    assert_int_equal(gcev_ipc_parse_reply(&h, ok + 20, 7, &r, &err), GCEV_E_FORMAT);
    assert_int_equal(err.offset, 14);
    uint8_t e[24] = {'D', 'O', 'T', 'N', 'E',  'T',  '_', 'I', 'P',  'C',  '_',  'V',
                     '1', 0,   24,  0,   0xFF, 0xFF, 0,   0,   0x85, 0x13, 0x13, 0x80};
    assert_int_equal(gcev_ipc_parse_header(e, sizeof e, &h, &err), GCEV_OK);
    assert_int_equal(gcev_ipc_parse_reply(&h, e + 20, 4, &r, &err), GCEV_OK);
    assert_int_equal(r.ok, 0);
    assert_int_equal((uint32_t)r.hresult, 0x80131385u);
    assert_string_equal(gcev_session_hresult_name(r.hresult), "unknown command");
    /* an OK with no room for the id, an error with no HRESULT */
    ok[14] = 24;
    assert_int_equal(gcev_ipc_parse_header(ok, sizeof ok, &h, &err), GCEV_OK);
    assert_int_equal(gcev_ipc_parse_reply(&h, ok + 20, 4, &r, &err), GCEV_E_FORMAT);
    e[14] = 22;
    assert_int_equal(gcev_ipc_parse_header(e, sizeof e, &h, &err), GCEV_OK);
    assert_int_equal(gcev_ipc_parse_reply(&h, e + 20, 2, &r, &err), GCEV_E_FORMAT);
    /* another command set, an unknown server id */
    e[14] = 24;
    e[16] = 0x02;
    assert_int_equal(gcev_ipc_parse_header(e, sizeof e, &h, &err), GCEV_OK);
    assert_int_equal(gcev_ipc_parse_reply(&h, e + 20, 4, &r, &err), GCEV_E_FORMAT);
    assert_int_equal(err.offset, 16);
    e[16] = 0xFF;
    e[17] = 0x05;
    assert_int_equal(gcev_ipc_parse_header(e, sizeof e, &h, &err), GCEV_OK);
    assert_int_equal(gcev_ipc_parse_reply(&h, e + 20, 4, &r, &err), GCEV_E_FORMAT);
    assert_int_equal(err.offset, 17);
    /* magic, short header, size below 20 */
    e[5] = 'X';
    assert_int_equal(gcev_ipc_parse_header(e, sizeof e, &h, &err), GCEV_E_FORMAT);
    assert_int_equal(err.offset, 5);
    e[5] = 'T';
    assert_int_equal(gcev_ipc_parse_header(e, 19, &h, &err), GCEV_E_TRUNCATED);
    e[14] = 19;
    assert_int_equal(gcev_ipc_parse_header(e, sizeof e, &h, &err), GCEV_E_FORMAT);
    assert_int_equal(err.offset, 14);
}

static size_t put_str(uint8_t *b, size_t off, const char *s, int terminate)
{
    uint32_t n = (uint32_t)strlen(s) + 1;
    for (int i = 0; i < 4; i++) { /* little-endian on the wire, whatever the host */
        b[off++] = (uint8_t)(n >> (8 * i));
    }
    for (uint32_t i = 0; i < n; i++) {
        b[off++] = (uint8_t)s[i];
        b[off++] = 0;
    }
    if (!terminate) {
        b[off - 2] = 'x';
    }
    return off;
}

static void test_parse_process_info(void **state)
{
    (void)state;
    uint8_t b[512];
    memset(b, 0, sizeof b);
    b[0] = 42;
    size_t n = 24;
    n = put_str(b, n, "/usr/bin/app a b", 1);
    n = put_str(b, n, "Linux", 1);
    n = put_str(b, n, "arm64", 1);
    size_t v1 = n;
    n = put_str(b, n, "app", 1);
    n = put_str(b, n, "10.0.1", 1);
    gcev_ipc_process_info pi;
    gcev_error err;
    assert_int_equal(gcev_ipc_parse_process_info(b, n, 2, &pi, &err), GCEV_OK);
    assert_int_equal(pi.process_id, 42);
    char *s = gcev_ipc_utf8_dup(pi.runtime_version);
    assert_string_equal(s, "10.0.1");
    free(s);
    s = gcev_ipc_utf8_dup(pi.arch);
    assert_string_equal(s, "arm64");
    free(s);
    assert_int_equal(gcev_ipc_parse_process_info(b, v1, 1, &pi, &err), GCEV_OK);
    assert_int_equal(pi.runtime_version.nbytes, 0);
    /* every cut inside the strings is reported, never read past */
    for (size_t cut = 0; cut < n; cut++) {
        gcev_status st = gcev_ipc_parse_process_info(b, cut, 2, &pi, &err);
        assert_true(st == GCEV_E_TRUNCATED || st == GCEV_E_UNTERMINATED_STRING);
    }
    /* a count far beyond the payload */
    uint8_t huge[32] = {0};
    huge[24] = 0xFF;
    huge[25] = 0xFF;
    huge[26] = 0xFF;
    huge[27] = 0x7F;
    assert_int_equal(gcev_ipc_parse_process_info(huge, sizeof huge, 2, &pi, &err), GCEV_E_TRUNCATED);
    assert_int_equal(err.offset, 24);
    /* no terminating NUL */
    n = put_str(b, 24, "abc", 0);
    assert_int_equal(gcev_ipc_parse_process_info(b, n, 1, &pi, &err), GCEV_E_UNTERMINATED_STRING);
    assert_int_equal(gcev_ipc_parse_process_info(b, n, 3, &pi, &err), GCEV_E_INVALID_ARG);
}

/* ---- sessions against the fake server --------------------------------------------- */

static uint64_t drain(gcev_session *s, gcev_status *end, gcev_error *err)
{
    gcev_trace_event ev;
    uint64_t n = 0;
    while ((*end = gcev_session_next(s, &ev, err)) == GCEV_OK) {
        n++;
    }
    return n;
}

static void test_stream_and_stop(void **state)
{
    (void)state;
    uint32_t pid = start_server("stream");
    char rec[128];
    snprintf(rec, sizeof rec, "%s/rec.nettrace", tmpdir);
    gcev_session_options o = {.struct_size = sizeof o};
    o.record_path = rec;
    gcev_session *s;
    gcev_error err = {0};
    assert_int_equal(gcev_session_open(pid, &o, &s, &err), GCEV_OK);
    const gcev_session_info *in = gcev_session_get_info(s);
    assert_int_equal(in->command, 5);
    assert_int_equal((uint32_t)in->refused[6], 0x80131385u);
    assert_int_equal(in->session_id, 0x1234);
    assert_string_equal(in->process->runtime_version, "10.0.0-fake");
    assert_string_equal(in->process->arch, "x64");
    assert_string_equal(in->process->command_line, "/usr/bin/fake-dotnet fake.dll --serve");
    assert_int_equal(in->process->pid, pid);
    assert_int_equal(in->process->reported_pid, pid);
    assert_non_null(strstr(in->process->socket_path, "dotnet-diagnostic-"));
    gcev_session_request_stop(s);
    gcev_session_request_stop(s); /* idempotent */
    gcev_status end;
    assert_int_equal(drain(s, &end, &err), SAMPLE_EVENT_COUNT);
    assert_int_equal(end, GCEV_END);
    assert_int_equal(in->stopping, 1);
    assert_int_equal(in->ended_by_runtime, 0);
    size_t a, b;
    uint8_t *got = read_file(rec, &a), *want = read_file(getenv("GCEV_SAMPLE_TRACE"), &b);
    assert_int_equal(a, b);
    assert_memory_equal(got, want, a);
    assert_int_equal(in->bytes, b);
    free(got);
    free(want);
    /* after the end, the same status again */
    gcev_trace_event ev;
    assert_int_equal(gcev_session_next(s, &ev, &err), GCEV_END);
    gcev_session_close(s);
}

static void test_duration(void **state)
{
    (void)state;
    uint32_t pid = start_server("stream");
    gcev_session_options o = {.struct_size = sizeof o};
    o.duration_ms = 300;
    gcev_session *s;
    gcev_error err = {0};
    double t0 = now_s();
    assert_int_equal(gcev_session_open(pid, &o, &s, &err), GCEV_OK);
    gcev_status end;
    assert_int_equal(drain(s, &end, &err), SAMPLE_EVENT_COUNT);
    assert_int_equal(end, GCEV_END);
    double took = now_s() - t0;
    assert_true(took >= 0.29 && took < 3.0);
    gcev_session_close(s);
}

static void test_fallback(void **state)
{
    (void)state;
    uint32_t pid = start_server("fallback");
    gcev_session *s;
    gcev_error err = {0};
    assert_int_equal(gcev_session_open(pid, NULL, &s, &err), GCEV_OK);
    const gcev_session_info *in = gcev_session_get_info(s);
    assert_int_equal(in->command, 3);
    for (unsigned v = 4; v <= 6; v++) {
        assert_int_equal((uint32_t)in->refused[v], 0x80131385u);
    }
    assert_int_equal(in->refused[3], 0);
    gcev_session_close(s); /* sends StopTracing without draining */
}

static void test_refusals(void **state)
{
    (void)state;
    uint32_t pid = start_server("refuse");
    gcev_session *s = (gcev_session *)1;
    gcev_error err = {0};
    assert_int_equal(gcev_session_open(pid, NULL, &s, &err), GCEV_E_REFUSED);
    assert_null(s);
    assert_int_equal((uint32_t)err.offset, 0x80131384u);
    gcev_process_info *p = (gcev_process_info *)1;
    assert_int_equal(gcev_process_query(pid, 1000, &p, &err), GCEV_E_REFUSED);
    assert_null(p);
}

static void expect_open(const char *scenario, uint32_t timeout_ms, gcev_status want, const char *msg_part,
                        double max_s)
{
    uint32_t pid = start_server(scenario);
    gcev_session_options o = {.struct_size = sizeof o};
    o.timeout_ms = timeout_ms;
    gcev_session *s = (gcev_session *)1;
    gcev_error err = {0};
    double t0 = now_s();
    assert_int_equal(gcev_session_open(pid, &o, &s, &err), want);
    assert_true(now_s() - t0 < max_s);
    assert_null(s);
    assert_non_null(err.message);
    if (!strstr(err.message, msg_part)) {
        fail_msg("%s: message '%s' lacks '%s'", scenario, err.message, msg_part);
    }
}

static void test_open_failures(void **state)
{
    (void)state;
    expect_open("silent", 300, GCEV_E_TIMEOUT, "timed out waiting for the runtime's reply", 2.0);
    expect_open("noheader", 300, GCEV_E_TIMEOUT, "trace header", 2.0);
    expect_open("eof-reply", 300, GCEV_E_PROCESS_EXITED, "without a reply", 2.0);
    expect_open("badmagic", 300, GCEV_E_FORMAT, "DOTNET_IPC_V1", 2.0);
    /* a reply cut mid-way: the connection closed under it, as without a reply */
    expect_open("short", 300, GCEV_E_PROCESS_EXITED, "closed the connection inside its reply", 2.0);
    expect_open("cut-header", 300, GCEV_E_PROCESS_EXITED, "closed the connection inside its reply", 2.0);
    expect_open("symlink", 300, GCEV_E_PERMISSION, "symbolic link", 2.0);
    stop_server();
    gcev_session *s;
    gcev_error err = {0};
    assert_int_equal(gcev_session_open(0x7FFFFFF0u, NULL, &s, &err), GCEV_E_NO_PROCESS);
    assert_int_equal(gcev_session_open((uint32_t)getpid(), NULL, &s, &err), GCEV_E_NOT_DOTNET);
    assert_int_equal(gcev_session_open(1, NULL, NULL, &err), GCEV_E_INVALID_ARG);
    gcev_session_options o = {.struct_size = sizeof o};
    o.profile = GCEV_SESSION_CUSTOM; /* without providers */
    assert_int_equal(gcev_session_open((uint32_t)getpid(), &o, &s, &err), GCEV_E_INVALID_ARG);
    o.profile = 0;
    o.max_command = 7;
    assert_int_equal(gcev_session_open((uint32_t)getpid(), &o, &s, &err), GCEV_E_INVALID_ARG);
}

static void test_stream_failures(void **state)
{
    (void)state;
    /* cut off mid-block: every event before the cut, then a clear status */
    uint32_t pid = start_server("cut");
    gcev_session *s;
    gcev_error err = {0};
    assert_int_equal(gcev_session_open(pid, NULL, &s, &err), GCEV_OK);
    gcev_status end;
    uint64_t n = drain(s, &end, &err);
    assert_int_equal(end, GCEV_E_PROCESS_EXITED);
    assert_non_null(strstr(err.message, "the process exited during the session"));
    assert_true(n > 0 && n < SAMPLE_EVENT_COUNT);
    gcev_trace_event ev;
    assert_int_equal(gcev_session_next(s, &ev, &err), GCEV_E_PROCESS_EXITED);
    gcev_session_close(s);

    /* the stream goes quiet: the idle timeout */
    pid = start_server("stream");
    gcev_session_options o = {.struct_size = sizeof o};
    o.idle_timeout_ms = 300;
    assert_int_equal(gcev_session_open(pid, &o, &s, &err), GCEV_OK);
    double t0 = now_s();
    n = drain(s, &end, &err);
    assert_int_equal(end, GCEV_E_TIMEOUT);
    assert_non_null(strstr(err.message, "idle"));
    assert_int_equal(gcev_session_get_info(s)->timeout_ms, 300);
    assert_true(now_s() - t0 < 3.0);
    gcev_session_close(s);

    /* StopTracing answered, the stream never ends: the stop timeout */
    pid = start_server("nostop");
    memset(&o, 0, sizeof o);
    o.stop_timeout_ms = 300;
    assert_int_equal(gcev_session_open(pid, &o, &s, &err), GCEV_OK);
    gcev_session_request_stop(s);
    t0 = now_s();
    n = drain(s, &end, &err);
    assert_int_equal(end, GCEV_E_TIMEOUT);
    assert_non_null(strstr(err.message, "after StopTracing"));
    assert_int_equal(gcev_session_get_info(s)->timeout_ms, 300); /* the wait that expired */
    assert_true(now_s() - t0 < 3.0);
    gcev_session_close(s);

    /* the record file cannot be created: nothing is started */
    pid = start_server("stream");
    memset(&o, 0, sizeof o);
    o.record_path = "/nonexistent-dir/x.nettrace";
    assert_int_equal(gcev_session_open(pid, &o, &s, &err), GCEV_E_IO);
    assert_non_null(strstr(err.message, "record file"));
}

static void test_process_list_and_query(void **state)
{
    (void)state;
    uint32_t pid = start_server("stream");
    uint32_t *pids;
    size_t n;
    assert_int_equal(gcev_process_list(&pids, &n), GCEV_OK);
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        found |= pids[i] == pid;
    }
    assert_true(found);
    gcev_process_list_free(pids);
    gcev_process_info *p;
    gcev_error err = {0};
    assert_int_equal(gcev_process_query(pid, 1000, &p, &err), GCEV_OK);
    assert_string_equal(p->runtime_version, "10.0.0-fake");
    assert_string_equal(p->entrypoint, "fake");
    assert_string_equal(p->os, "Linux");
    gcev_process_info_free(p);
    assert_int_equal(gcev_process_list(NULL, &n), GCEV_E_INVALID_ARG);
}

/* Many attach/detach cycles: no descriptor left behind (memory: valgrind in CI). */
static void test_cycles(void **state)
{
    (void)state;
    uint32_t pid = start_server("stream");
    int before = count_fds();
    for (int i = 0; i < 40; i++) {
        gcev_session *s;
        gcev_error err = {0};
        assert_int_equal(gcev_session_open(pid, NULL, &s, &err), GCEV_OK);
        if (i % 2) {
            gcev_session_request_stop(s);
            gcev_status end;
            assert_int_equal(drain(s, &end, &err), SAMPLE_EVENT_COUNT);
            assert_int_equal(end, GCEV_END);
        } else {
            gcev_trace_event ev;
            assert_int_equal(gcev_session_next(s, &ev, &err), GCEV_OK);
        }
        gcev_session_close(s);
        gcev_process_info *p;
        assert_int_equal(gcev_process_query(pid, 1000, &p, &err), GCEV_OK);
        gcev_process_info_free(p);
    }
    assert_int_equal(count_fds(), before);
}

/* Options the library refuses before it looks for the process, each with its message; the
 * functions on no session are NULL, GCEV_E_INVALID_ARG or nothing. */
static void test_session_bad_options_and_no_session(void **state)
{
    (void)state;
    gcev_session *s = (gcev_session *)&s;
    gcev_error err = {0};
    assert_int_equal(gcev_session_open(1, NULL, NULL, &err), GCEV_E_INVALID_ARG);
    assert_string_equal(err.message, "out is NULL");
    static const gcev_session_provider one = {"Microsoft-Windows-DotNETRuntime", 1, 4, NULL};
    static const struct {
        gcev_session_options o;
        const char *msg;
    } bad[] = {
        {{.max_command = 1}, "invalid session options (profile or max_command)"},
        {{.max_command = 7}, "invalid session options (profile or max_command)"},
        {{.profile = GCEV_SESSION_GC_HEAP + 1}, "invalid session options (profile or max_command)"},
        {{.profile = GCEV_SESSION_CUSTOM}, "a custom session needs 1 to 1000 providers"},
        {{.profile = GCEV_SESSION_CUSTOM, .providers = &one, .nproviders = 0},
         "a custom session needs 1 to 1000 providers"},
        {{.profile = GCEV_SESSION_CUSTOM, .providers = &one, .nproviders = 1001},
         "a custom session needs 1 to 1000 providers"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s = (gcev_session *)&s;
        err = (gcev_error){0};
        assert_int_equal(gcev_session_open((uint32_t)getpid(), &bad[i].o, &s, &err), GCEV_E_INVALID_ARG);
        assert_null(s);
        assert_string_equal(err.message, bad[i].msg);
    }
    /* pids that cannot be a process: pid 0 and past INT32_MAX */
    static const uint32_t no_pids[] = {0, UINT32_C(0x80000000), UINT32_MAX};
    for (size_t i = 0; i < sizeof no_pids / sizeof no_pids[0]; i++) {
        err = (gcev_error){0};
        assert_int_equal(gcev_session_open(no_pids[i], NULL, &s, &err), GCEV_E_NO_PROCESS);
        assert_string_equal(err.message, "no process with this pid");
    }
    gcev_trace_event ev;
    assert_int_equal(gcev_session_next(NULL, &ev, &err), GCEV_E_INVALID_ARG);
    assert_string_equal(err.message, "session or event is NULL");
    assert_null(gcev_session_get_info(NULL));
    assert_null(gcev_session_trace(NULL));
    assert_int_equal(gcev_session_status(NULL, GCEV_E_IO, &err), GCEV_E_IO);
    gcev_session_request_stop(NULL);
    gcev_session_close(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collect_goldens),
        cmocka_unit_test(test_session_bad_options_and_no_session),
        cmocka_unit_test(test_encode_limits),
        cmocka_unit_test(test_parse_reply),
        cmocka_unit_test(test_parse_process_info),
        cmocka_unit_test(test_stream_and_stop),
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_open_failures),
        cmocka_unit_test(test_stream_failures),
        cmocka_unit_test(test_process_list_and_query),
        cmocka_unit_test(test_cycles),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
