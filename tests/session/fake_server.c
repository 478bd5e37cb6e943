/* SPDX-License-Identifier: MIT */
/*
 * A fake .NET diagnostics server for the session tests: it listens where a
 * runtime would ($TMPDIR/dotnet-diagnostic-<its pid>-<its start time>-socket)
 * and answers as the scenario says, so that every failure a real runtime can
 * show (and some it would rather not) is reproducible without one.
 *
 *   fake_server SCENARIO READY_FILE [TRACE]
 *
 * READY_FILE receives "<pid>\n" once the socket listens. Every request is
 * appended to $TMPDIR/requests.bin (u32 length, then the message). Scenarios:
 *   stream        ProcessInfo2 OK; CollectTracing6 refused (unknown command), 5 OK; sends
 *                 TRACE but its last byte, which follows the StopTracing reply
 *   fallback      like stream, but 6, 5 and 4 are refused: CollectTracing3 starts it
 *   refuse        every command answered with HRESULT 0x80131384 (bad encoding)
 *   refuse-collect  ProcessInfo2 OK, every CollectTracing answered with 0x80004005
 *   nostop        like stream, but StopTracing is answered and the stream never ends
 *   silent        reads each request and never answers
 *   noheader      CollectTracing5 OK, then no byte of the stream
 *   cut           CollectTracing5 OK, the first half of TRACE, then the connection closes
 *                 (a process killed mid-session)
 *   eof-reply     closes every connection without a reply
 *   badmagic      answers with a header whose magic is wrong
 *   short         answers with a header announcing 100 bytes, then closes after 4
 *   cut-header    answers with the first 10 bytes of a reply header, then closes
 *   drip          like nostop, but after the first half of TRACE the rest comes one byte
 *                 every 200 ms (a child process writes it), StopTracing or not
 *   symlink       the socket lives in $TMPDIR/real/; the name in $TMPDIR is a symbolic link
 * It serves one session after the other until killed (SIGTERM); "cut" exits after its one.
 * With FAKE_SERVER_AS_PID=<pid> in the environment the socket takes that process's name
 * instead (pid and start time): a socket planted for a process by someone else.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static const char *scenario;
static const char *tmpdir;
static uint8_t *trace;
static size_t trace_size;
static int stream_fd = -1;

static void die(const char *what)
{
    fprintf(stderr, "fake_server: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* Field 22 of /proc/<pid>/stat ("self" when pid is 0): the key in a runtime's socket name. */
static unsigned long long start_time(int pid)
{
    char buf[1024], path[64];
    if (pid) {
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
    } else {
        snprintf(path, sizeof path, "/proc/self/stat");
    }
    FILE *f = fopen(path, "r");
    if (!f || !fgets(buf, sizeof buf, f)) {
        die(path);
    }
    fclose(f);
    char *p = strrchr(buf, ')') + 2;
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ') + 1;
    }
    return strtoull(p, NULL, 10);
}

static int read_exact(int fd, uint8_t *b, size_t n)
{
    size_t off = 0;
    while (off < n) {
        ssize_t r = read(fd, b + off, n - off);
        if (r <= 0) {
            return -1;
        }
        off += (size_t)r;
    }
    return 0;
}

static void write_all(int fd, const uint8_t *b, size_t n)
{
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w <= 0) {
            return; /* the client went away */
        }
        b += w;
        n -= (size_t)w;
    }
}

static void put_header(uint8_t *b, uint16_t size, uint8_t set, uint8_t id)
{
    memcpy(b, "DOTNET_IPC_V1", 14);
    b[14] = (uint8_t)size;
    b[15] = (uint8_t)(size >> 8);
    b[16] = set;
    b[17] = id;
    b[18] = b[19] = 0;
}

static void reply_error(int fd, uint32_t hr)
{
    uint8_t b[24];
    put_header(b, 24, 0xFF, 0xFF);
    memcpy(b + 20, &hr, 4);
    write_all(fd, b, sizeof b);
}

static void reply_u64(int fd, uint64_t v)
{
    uint8_t b[28];
    put_header(b, 28, 0xFF, 0x00);
    memcpy(b + 20, &v, 8);
    write_all(fd, b, sizeof b);
}

static void put_string(uint8_t *b, size_t *off, const char *s)
{
    uint32_t n = (uint32_t)strlen(s) + 1;
    memcpy(b + *off, &n, 4);
    *off += 4;
    for (uint32_t i = 0; i < n; i++) {
        b[(*off)++] = (uint8_t)s[i];
        b[(*off)++] = 0;
    }
}

static void reply_process_info2(int fd)
{
    uint8_t b[512];
    size_t off = 20;
    uint64_t pid = (uint64_t)getpid();
    memcpy(b + off, &pid, 8);
    off += 8;
    memset(b + off, 0x42, 16);
    off += 16;
    put_string(b, &off, "/usr/bin/fake-dotnet fake.dll --serve");
    put_string(b, &off, "Linux");
    put_string(b, &off, "x64");
    put_string(b, &off, "fake");
    put_string(b, &off, "10.0.0-fake");
    put_header(b, (uint16_t)off, 0xFF, 0x00);
    write_all(fd, b, off);
}

static void log_request(const uint8_t *msg, uint32_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/requests.bin", tmpdir);
    FILE *f = fopen(path, "ab");
    if (f) {
        fwrite(&n, 4, 1, f);
        fwrite(msg, 1, n, f);
        fclose(f);
    }
}

static void serve_stream(int fd)
{
    reply_u64(fd, 0x1234);
    if (!strcmp(scenario, "noheader")) {
        stream_fd = fd; /* kept open, silent */
        return;
    }
    if (!strcmp(scenario, "cut")) {
        write_all(fd, trace, trace_size / 2);
        close(fd);
        exit(0);
    }
    if (!strcmp(scenario, "drip")) {
        write_all(fd, trace, trace_size / 2);
        pid_t parent = getpid();
        if (fork() == 0) {
            /* ends when the client closes, the trace is out, or the server is gone */
            for (size_t i = trace_size / 2; i < trace_size && getppid() == parent; i++) {
                if (send(fd, trace + i, 1, MSG_NOSIGNAL) != 1) {
                    break;
                }
                usleep(200000);
            }
            _exit(0);
        }
        close(fd); /* the child's copy keeps the stream open */
        return;
    }
    write_all(fd, trace, trace_size - 1);
    stream_fd = fd;
}

static void handle(int fd)
{
    uint8_t h[20], payload[65536];
    if (read_exact(fd, h, 20) != 0) {
        close(fd);
        return;
    }
    uint16_t size = (uint16_t)(h[14] | h[15] << 8);
    if (size < 20 || read_exact(fd, payload, size - 20u) != 0) {
        close(fd);
        return;
    }
    uint8_t msg[65536 + 20];
    memcpy(msg, h, 20);
    memcpy(msg + 20, payload, size - 20u);
    log_request(msg, size);
    uint8_t set = h[16], id = h[17];
    if (!strcmp(scenario, "silent")) {
        return; /* leaked on purpose: the client must time out */
    }
    if (!strcmp(scenario, "eof-reply")) {
        close(fd);
        return;
    }
    if (!strcmp(scenario, "badmagic")) {
        uint8_t b[28];
        put_header(b, 28, 0xFF, 0x00);
        b[0] = 'X';
        write_all(fd, b, sizeof b);
        close(fd);
        return;
    }
    if (!strcmp(scenario, "cut-header")) {
        uint8_t b[20];
        put_header(b, 28, 0xFF, 0x00);
        write_all(fd, b, 10);
        close(fd);
        return;
    }
    if (!strcmp(scenario, "short")) {
        uint8_t b[24];
        put_header(b, 120, 0xFF, 0x00);
        write_all(fd, b, sizeof b);
        close(fd);
        return;
    }
    if (!strcmp(scenario, "refuse")) {
        reply_error(fd, 0x80131384u);
        close(fd);
        return;
    }
    if (set == 0x04 && id == 0x04) {
        reply_process_info2(fd);
        close(fd);
        return;
    }
    if (set == 0x02 && id == 0x01) { /* StopTracing */
        uint64_t sid;
        memcpy(&sid, payload, 8);
        reply_u64(fd, sid);
        close(fd);
        if (stream_fd >= 0 && strcmp(scenario, "nostop") != 0) {
            if (trace_size) {
                write_all(stream_fd, trace + trace_size - 1, 1);
            }
            close(stream_fd);
            stream_fd = -1; /* ready for the next session */
        }
        return;
    }
    if (set == 0x02 && id >= 0x03 && id <= 0x07) {
        unsigned version = id - 1u;
        if (!strcmp(scenario, "refuse-collect")) {
            reply_error(fd, 0x80004005u);
            close(fd);
            return;
        }
        unsigned accept = !strcmp(scenario, "fallback") ? 3 : 5;
        if (version > accept) {
            reply_error(fd, 0x80131385u);
            close(fd);
            return;
        }
        serve_stream(fd);
        return;
    }
    reply_error(fd, 0x80131385u);
    close(fd);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fake_server SCENARIO READY_FILE [TRACE]\n");
        return 2;
    }
    scenario = argv[1];
    tmpdir = getenv("TMPDIR");
    if (!tmpdir || !tmpdir[0]) {
        fprintf(stderr, "fake_server: set TMPDIR\n");
        return 2;
    }
    if (argc > 3) {
        FILE *f = fopen(argv[3], "rb");
        if (!f) {
            die(argv[3]);
        }
        fseek(f, 0, SEEK_END);
        trace_size = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        trace = malloc(trace_size);
        if (!trace || fread(trace, 1, trace_size, f) != trace_size) {
            die("reading the trace");
        }
        fclose(f);
    }
    char name[128], path[4096], real[4096];
    /* planted: the name of another process's socket (its pid and start time) */
    const char *as = getenv("FAKE_SERVER_AS_PID");
    int pid = as && as[0] ? atoi(as) : 0;
    snprintf(name, sizeof name, "dotnet-diagnostic-%d-%llu-socket", pid ? pid : (int)getpid(),
             start_time(pid));
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    const char *bind_path = path;
    if (!strcmp(scenario, "symlink")) {
        snprintf(real, sizeof real, "%s/real", tmpdir);
        mkdir(real, 0700);
        snprintf(real, sizeof real, "%s/real/%s", tmpdir, name);
        bind_path = real;
    }
    int ls = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (strlen(bind_path) >= sizeof a.sun_path) {
        fprintf(stderr, "fake_server: socket path too long: %s\n", bind_path);
        return 2;
    }
    strcpy(a.sun_path, bind_path);
    unlink(bind_path);
    umask(077);
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 16) != 0) {
        die("listen");
    }
    if (bind_path != path && symlink(bind_path, path) != 0) {
        die("symlink");
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
    FILE *r = fopen(tmp, "w");
    if (!r) {
        die(argv[2]);
    }
    fprintf(r, "%d\n", (int)getpid());
    fclose(r);
    rename(tmp, argv[2]);
    for (;;) {
        int fd = accept(ls, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR) {
                continue;
            }
            die("accept");
        }
        handle(fd);
    }
}
