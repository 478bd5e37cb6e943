/* SPDX-License-Identifier: MIT */
/*
 * Live EventPipe sessions over the diagnostics IPC channel (gcev_session.h).
 *
 * One connection per command (gcev_process.c sends them). The session's own
 * connection carries the CollectTracing request, the OK reply and then the
 * nettrace stream, which the public stream reader (gcev_trace_open_reader)
 * parses through session_read(). session_read() is also where the session
 * lives: it polls the socket and a wake-up pipe, sends StopTracing on a second
 * connection once a stop is asked for (request, duration), tees the bytes into
 * the record file, and turns the end of input or a timeout into a reason that
 * gcev_session_status() reports. The process list and queries are
 * gcev_process.c's.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gcev/gcev_session.h>

#include "gcev_discover.h"
#include "gcev_error.h"
#include "gcev_ipc.h"
#include "gcev_sized.h"
#include "gcev_process.h"
#include "gcev_read.h"

enum {
    DEFAULT_STOP_TIMEOUT_MS = 30000,
    DEFAULT_BUFFER_MB = 256,
    NEWEST_COMMAND = 6,
    OLDEST_COMMAND = 2,
    MAX_PROVIDERS = 1000
};

/* Keywords and levels of the dotnet-trace 10 profiles (ListProfilesCommandHandler.cs). */
#define KW_GC UINT64_C(0x1)
#define KW_GC_HANDLE UINT64_C(0x2)
#define KW_EXCEPTION UINT64_C(0x8000)
/* TraceEvent's GCHeapSnapshot: GC | Type | GCHeapDump | GCHeapCollect | GCHeapAndTypeNames */
#define KW_GC_HEAP_SNAPSHOT UINT64_C(0x1980001)
static const char runtime_provider[] = "Microsoft-Windows-DotNETRuntime";
static const char private_provider[] = "Microsoft-Windows-DotNETRuntimePrivate";

static gcev_status fail(gcev_error *err, gcev_status st, uint64_t offset, const char *msg)
{
    return gcev_error_set(err, st, offset, NULL, msg);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) {
        memcpy(d, s, n);
    }
    return d;
}

/* Why the stream ended, as session_read() saw it. */
typedef enum end_reason {
    END_NONE = 0,
    END_EOF,          /* the runtime closed the stream */
    END_TIMEOUT,      /* a wait expired (timeout_msg says which) */
    END_SOCKET_ERROR, /* recv failed */
    END_RECORD_ERROR  /* the record file could not be written */
} end_reason;

struct gcev_session {
    gcev_endpoint ep;
    gcev_session_info info;
    gcev_process_info process; /* info.process points here */
    gcev_session_options opts;
    int sock;    /* the stream's connection */
    int wake[2]; /* request_stop() writes to wake[1] */
    volatile sig_atomic_t stop_flag;
    int stop_sent;
    int started;       /* the runtime accepted the session */
    int header_read;   /* gcev_trace_open_reader returned */
    long long t_start; /* session start (ms, monotonic) */
    long long t_open_deadline, t_duration, t_drain, t_last_data;
    end_reason end;
    const char *timeout_msg;
    int record_fd;
    gcev_trace *trace;
    uint8_t *payload; /* reply buffer (GCEV_PROCESS_REPLY_CAP) */
};

/* StopTracing on a second connection; the stream then drains to its end. */
static void send_stop(gcev_session *s)
{
    s->stop_sent = 1;
    s->info.stopping = 1;
    s->t_drain = gcev_monotonic_ms() + s->opts.stop_timeout_ms;
    uint8_t id[8], msg[GCEV_IPC_HEADER_SIZE + 8];
    size_t len, plen = 0;
    for (int i = 0; i < 8; i++) {
        id[i] = (uint8_t)(s->info.session_id >> (8 * i));
    }
    gcev_ipc_encode(GCEV_IPC_SET_EVENTPIPE, GCEV_IPC_EP_STOP_TRACING, id, sizeof id, msg, sizeof msg, &len);
    gcev_ipc_header h;
    /* whatever the answer (none when the process is gone), the stream's end says the rest */
    (void)gcev_process_round_trip(&s->ep, msg, len, s->opts.timeout_ms, &h, s->payload, &plen, NULL, NULL);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void drain_wake(gcev_session *s)
{
    char b[64];
    while (read(s->wake[0], b, sizeof b) > 0) {
    }
}

/* The gcev_read_fn of the session's trace: blocks until bytes, the end of the stream or a timeout. */
static long long session_read(void *ctx, void *buf, size_t n)
{
    gcev_session *s = ctx;
    if (s->end != END_NONE) {
        return s->end == END_EOF ? 0 : -1;
    }
    if (n == 0) {
        return 0;
    }
    for (;;) {
        long long now = gcev_monotonic_ms();
        if (!s->stop_sent && s->header_read && (s->stop_flag || (s->t_duration && now >= s->t_duration))) {
            send_stop(s);
            now = gcev_monotonic_ms();
        }
        /* the nearest deadline decides how long poll waits */
        long long deadline = -1;
        const char *what = NULL;
        uint32_t wait_ms = 0; /* the wait that expires at deadline, for the message */
        if (!s->header_read) {
            deadline = s->t_open_deadline;
            what = "timed out waiting for the trace header after the runtime started the session";
            wait_ms = s->opts.timeout_ms;
        } else if (s->stop_sent) {
            deadline = s->t_drain;
            what = "timed out waiting for the end of the stream after StopTracing";
            wait_ms = s->opts.stop_timeout_ms;
        } else {
            if (s->opts.idle_timeout_ms) {
                deadline = s->t_last_data + s->opts.idle_timeout_ms;
                what = "timed out: the runtime sent nothing for the idle timeout";
                wait_ms = s->opts.idle_timeout_ms;
            }
            if (s->t_duration && (deadline < 0 || s->t_duration < deadline)) {
                deadline = s->t_duration;
                what = NULL; /* not a failure: time to stop */
            }
        }
        int wait = -1;
        if (deadline >= 0) {
            long long left = deadline - now;
            wait = left < 0 ? 0 : left > 1000000 ? 1000000 : (int)left;
        }
        struct pollfd p[2] = {{s->sock, POLLIN, 0}, {s->wake[0], POLLIN, 0}};
        int r = poll(p, s->header_read ? 2 : 1, wait);
        if (r < 0 && errno == EINTR) {
            continue; /* a signal: its handler may have asked for a stop; the loop checks */
        }
        if (r < 0) {
            s->end = END_SOCKET_ERROR;
            return -1;
        }
        if (s->header_read && (p[1].revents & POLLIN)) {
            drain_wake(s);
        }
        if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t got = recv(s->sock, buf, n, 0);
            if (got > 0) {
                s->t_last_data = gcev_monotonic_ms();
                s->info.bytes += (uint64_t)got;
                if (s->record_fd >= 0 && write_all(s->record_fd, buf, (size_t)got) != 0) {
                    s->end = END_RECORD_ERROR;
                    return -1;
                }
                return got;
            }
            if (got == 0 || errno == ECONNRESET) {
                s->end = END_EOF;
                return 0;
            }
            if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
                s->end = END_SOCKET_ERROR;
                return -1;
            }
            continue;
        }
        if (r == 0 && deadline >= 0 && gcev_monotonic_ms() >= deadline && what) {
            s->end = END_TIMEOUT;
            s->timeout_msg = what;
            s->info.timeout_ms = wait_ms;
            return -1;
        }
    }
}

gcev_status gcev_session_status(gcev_session *s, gcev_status st, gcev_error *err)
{
    if (!s || st == GCEV_OK) {
        return st;
    }
    if (st == GCEV_END) {
        /* the end-of-stream tag after the rundown: complete, whoever ended the session */
        s->info.ended_by_runtime = !s->stop_sent;
        return st;
    }
    uint64_t off = s->info.bytes;
    switch (s->end) {
    case END_TIMEOUT:
        return fail(err, GCEV_E_TIMEOUT, off, s->timeout_msg);
    case END_RECORD_ERROR:
        return fail(err, GCEV_E_IO, off, "cannot write the record file");
    case END_SOCKET_ERROR:
        return fail(err, GCEV_E_IO, off, "read error on the diagnostic socket");
    case END_EOF:
        if (st == GCEV_E_TRUNCATED_FILE || st == GCEV_E_IO) {
            return fail(err, GCEV_E_PROCESS_EXITED, off,
                        s->stop_sent
                            ? "the process exited while the session was stopping: the stream stops "
                              "inside a block, whose events are lost"
                            : "the process exited during the session: the stream stops inside a block, "
                              "whose events are lost");
        }
        return st;
    case END_NONE:
    default:
        return st;
    }
}

gcev_status gcev_session_next(gcev_session *s, gcev_trace_event *ev, gcev_error *err)
{
    if (!s || !ev) {
        return fail(err, GCEV_E_INVALID_ARG, 0, "session or event is NULL");
    }
    gcev_status st = gcev_trace_next(s->trace, ev, err);
    return gcev_session_status(s, st, err);
}

const gcev_session_info *gcev_session_get_info(const gcev_session *s)
{
    return s ? &s->info : NULL;
}

gcev_trace *gcev_session_trace(gcev_session *s)
{
    return s ? s->trace : NULL;
}

void gcev_session_request_stop(gcev_session *s)
{
    if (!s) {
        return;
    }
    s->stop_flag = 1;
    int saved = errno; /* async-signal-safe: keep the interrupted code's errno */
    ssize_t w = write(s->wake[1], "s", 1);
    (void)w; /* a full pipe already holds a wake-up */
    errno = saved;
}

static void session_free(gcev_session *s)
{
    if (!s) {
        return;
    }
    gcev_trace_close(s->trace);
    if (s->sock >= 0) {
        close(s->sock);
    }
    for (int i = 0; i < 2; i++) {
        if (s->wake[i] >= 0) {
            close(s->wake[i]);
        }
    }
    if (s->record_fd >= 0) {
        close(s->record_fd);
    }
    gcev_endpoint_close(&s->ep);
    gcev_process_info_clear(&s->process);
    free((char *)s->info.record_path);
    free(s->payload);
    free(s);
}

void gcev_session_close(gcev_session *s)
{
    if (!s) {
        return;
    }
    if (s->started && !s->stop_sent && s->end == END_NONE) {
        send_stop(s);
    }
    session_free(s);
}

/* The providers and rundown of the session's profile. */
static gcev_status build_request(const gcev_session_options *o, gcev_ipc_provider *prov, gcev_ipc_collect *c,
                                 int *drop_rundown_when_old)
{
    memset(c, 0, sizeof *c);
    c->buffer_mb = o->buffer_mb;
    c->format = 1; /* NetTrace */
    c->stackwalk = (o->flags & GCEV_SESSION_NO_STACKS) ? 0 : 1;
    c->buffer_mode = (o->flags & GCEV_SESSION_LOSSY) ? 0 : 1;
    c->providers = prov;
    *drop_rundown_when_old = 0;
    switch (o->profile) {
    case GCEV_SESSION_GC_COLLECT:
        prov[0] = (gcev_ipc_provider){runtime_provider, KW_GC, 4, NULL};
        prov[1] = (gcev_ipc_provider){private_provider, KW_GC, 4, NULL};
        c->nproviders = 2;
        c->rundown_keyword = KW_GC;
        *drop_rundown_when_old = 1; /* dotnet-trace's DropKeywordDropRundown */
        break;
    case GCEV_SESSION_GC_VERBOSE:
        prov[0] = (gcev_ipc_provider){runtime_provider, KW_GC | KW_GC_HANDLE | KW_EXCEPTION, 5, NULL};
        c->nproviders = 1;
        c->rundown_keyword = GCEV_SESSION_DEFAULT_RUNDOWN;
        break;
    case GCEV_SESSION_GC_HEAP:
        prov[0] = (gcev_ipc_provider){runtime_provider, KW_GC_HEAP_SNAPSHOT, 5, NULL};
        c->nproviders = 1;
        c->rundown_keyword = 0; /* (the buffer: 1024 MB by default, dotnet-gcdump's: gcev_session_open) */
        break;
    case GCEV_SESSION_CUSTOM:
        if (!o->providers || o->nproviders == 0 || o->nproviders > MAX_PROVIDERS) {
            return GCEV_E_INVALID_ARG;
        }
        for (size_t i = 0; i < o->nproviders; i++) {
            const gcev_session_provider *p = &o->providers[i];
            if (!p->name || !p->name[0]) {
                return GCEV_E_INVALID_ARG;
            }
            prov[i] = (gcev_ipc_provider){p->name, p->keywords, p->level, p->arguments};
        }
        c->nproviders = o->nproviders;
        c->rundown_keyword = o->rundown_keyword;
        break;
    default:
        return GCEV_E_INVALID_ARG;
    }
    c->request_rundown = c->rundown_keyword != 0 && !*drop_rundown_when_old;
    return GCEV_OK;
}

/* CollectTracing newest first; on OK the stream's connection is in s->sock. */
static gcev_status start_tracing(gcev_session *s, gcev_error *err)
{
    gcev_ipc_provider *prov =
        calloc(s->opts.profile == GCEV_SESSION_CUSTOM ? s->opts.nproviders : 2, sizeof *prov);
    uint8_t *msg = malloc(GCEV_IPC_MAX_MESSAGE);
    gcev_status st = GCEV_OK;
    if (!prov || !msg) {
        st = fail(err, GCEV_E_NOMEM, 0, NULL);
        goto out;
    }
    gcev_ipc_collect c;
    int drop_rundown;
    if (build_request(&s->opts, prov, &c, &drop_rundown) != GCEV_OK) {
        st = fail(err, GCEV_E_INVALID_ARG, 0, "invalid providers");
        goto out;
    }
    int32_t last_refusal = 0;
    for (unsigned v = s->opts.max_command; v >= OLDEST_COMMAND; v--) {
        size_t len, plen = 0;
        st = gcev_ipc_encode_collect(v, &c, msg, GCEV_IPC_MAX_MESSAGE, &len);
        if (st != GCEV_OK) {
            st = fail(err, st == GCEV_E_LIMIT ? GCEV_E_INVALID_ARG : st, 0,
                      st == GCEV_E_LIMIT ? "the CollectTracing request would exceed 64 KiB"
                                         : "a provider name or argument is not UTF-8");
            goto out;
        }
        gcev_ipc_header h;
        int fd;
        st = gcev_process_round_trip(&s->ep, msg, len, s->opts.timeout_ms, &h, s->payload, &plen, &fd, err);
        if (st != GCEV_OK) {
            goto out;
        }
        gcev_ipc_reply r;
        st = gcev_ipc_parse_reply(&h, s->payload, plen, &r, err);
        if (st != GCEV_OK) {
            close(fd);
            goto out;
        }
        if (r.ok) {
            s->sock = fd;
            s->info.command = v;
            s->info.session_id = r.value;
            goto out;
        }
        close(fd);
        s->info.refused[v] = r.hresult;
        last_refusal = r.hresult;
    }
    st =
        fail(err, GCEV_E_REFUSED, (uint32_t)last_refusal, "the runtime refused every CollectTracing command");
out:
    free(prov);
    free(msg);
    return st;
}

gcev_status gcev_session_open(uint32_t pid, const gcev_session_options *opts, gcev_session **out,
                              gcev_error *err)
{
    if (!out) {
        return fail(err, GCEV_E_INVALID_ARG, 0, "out is NULL");
    }
    *out = NULL;
    /* the caller's structs in whichever layout it was built with (gcev.h "Growable structs") */
    gcev_session_options o;
    gcev_trace_options trace_opts;
    gcev_status st = gcev_sized_in(&o, sizeof o, opts, GCEV_SIZE_TO(gcev_session_options, trace));
    if (st == GCEV_OK) {
        st = gcev_sized_in(&trace_opts, sizeof trace_opts, o.trace,
                           GCEV_SIZE_TO(gcev_trace_options, keep_going));
    }
    if (st != GCEV_OK) {
        return fail(
            err, st, 0,
            st == GCEV_E_INVALID_ARG
                ? "gcev_session_options or its trace options: struct_size from 1 to 3"
                : "gcev_session_options or its trace options set an option this library does not know");
    }
    o.trace = NULL; /* the caller's: trace_opts is the copy */
    if (!o.max_command) {
        o.max_command = NEWEST_COMMAND;
    }
    if (o.max_command < OLDEST_COMMAND || o.max_command > NEWEST_COMMAND ||
        o.profile > GCEV_SESSION_GC_HEAP) {
        return fail(err, GCEV_E_INVALID_ARG, 0, "invalid session options (profile or max_command)");
    }
    if (o.profile == GCEV_SESSION_CUSTOM &&
        (!o.providers || o.nproviders == 0 || o.nproviders > MAX_PROVIDERS)) {
        return fail(err, GCEV_E_INVALID_ARG, 0, "a custom session needs 1 to 1000 providers");
    }
    o.timeout_ms = o.timeout_ms ? o.timeout_ms : GCEV_PROCESS_DEFAULT_TIMEOUT_MS;
    o.stop_timeout_ms = o.stop_timeout_ms ? o.stop_timeout_ms : DEFAULT_STOP_TIMEOUT_MS;
    o.buffer_mb = o.buffer_mb ? o.buffer_mb : o.profile == GCEV_SESSION_GC_HEAP ? 1024 : DEFAULT_BUFFER_MB;

    gcev_session *s = calloc(1, sizeof *s);
    if (!s) {
        return fail(err, GCEV_E_NOMEM, 0, NULL);
    }
    s->info.process = &s->process;
    s->sock = -1;
    s->wake[0] = s->wake[1] = -1;
    s->record_fd = -1;
    s->ep.path_fd = -1;
    s->opts = o;
    s->opts.record_path = NULL; /* the caller's string: only our copy is kept */
    s->opts.providers = NULL;   /* used by start_tracing() before open returns */
    s->payload = malloc(GCEV_PROCESS_REPLY_CAP);
    if (!s->payload || pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        st = fail(err, s->payload ? GCEV_E_IO : GCEV_E_NOMEM, 0, "cannot create the wake-up pipe");
        goto fail;
    }
    st = gcev_endpoint_find(pid, &s->ep, err);
    if (st != GCEV_OK) {
        goto fail;
    }
    int32_t refused;
    st = gcev_process_fetch_info(&s->ep, o.timeout_ms, &s->process, &refused, s->payload, err);
    if (st != GCEV_OK) {
        goto fail;
    }
    if (o.record_path) {
        s->info.record_path = dup_str(o.record_path);
        if (!s->info.record_path) {
            st = fail(err, GCEV_E_NOMEM, 0, NULL);
            goto fail;
        }
        s->record_fd = open(o.record_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (s->record_fd < 0) {
            st = fail(err, GCEV_E_IO, 0, "cannot create the record file");
            goto fail;
        }
    }
    s->opts.providers = o.providers;
    st = start_tracing(s, err);
    s->opts.providers = NULL;
    if (st != GCEV_OK) {
        goto fail;
    }
    s->started = 1;
    s->t_start = gcev_monotonic_ms();
    s->t_last_data = s->t_start;
    s->t_open_deadline = s->t_start + o.timeout_ms;
    s->t_duration = o.duration_ms ? s->t_start + o.duration_ms : 0;
    st = gcev_trace_open_reader(session_read, s, &trace_opts, &s->trace, err);
    if (st != GCEV_OK) {
        st = gcev_session_status(s, st, err);
        if (s->end == END_EOF && st != GCEV_E_PROCESS_EXITED) {
            st = fail(err, GCEV_E_PROCESS_EXITED, s->info.bytes,
                      "the runtime closed the stream before a complete trace header");
        }
        goto fail;
    }
    s->header_read = 1;
    *out = s;
    return GCEV_OK;
fail:
    gcev_session_close(s);
    return st;
}
