/* SPDX-License-Identifier: MIT */
/*
 * gcev live sessions: attach to a running .NET process over its diagnostics IPC
 * channel (a Unix domain socket), start an EventPipe session and read its events
 * as they happen, through the same gcev_trace interface as a file.
 *
 *   gcev_session *s;
 *   gcev_session_options o = {0};            // gc-collect profile, defaults
 *   if (gcev_session_open(pid, &o, &s, &err) == GCEV_OK) {
 *       gcev_trace_event ev;
 *       while (gcev_session_next(s, &ev, &err) == GCEV_OK) { ... }
 *       gcev_session_close(s);
 *   }
 *
 * Protocol: dotnet/diagnostics documentation/design-docs/ipc-protocol.md. The
 * socket is $TMPDIR/dotnet-diagnostic-<pid>-<key>-socket as the runtime sees its
 * TMPDIR (else /tmp); for a process in another mount namespace (a container)
 * it is looked up under /proc/<pid>/root with the pid of that namespace (NSpid).
 * When several sockets carry the pid (stale ones of an earlier process), the
 * one whose key is the process's start time wins, else the newest key.
 *
 * Security: a socket is opened only when it belongs to the process's user (its
 * effective or filesystem uid) or to root, whoever the caller is (root too: anyone
 * may create a socket of that name in /tmp), else GCEV_E_PERMISSION; a caller other
 * than root also needs the socket to be its own; the socket entry is never followed
 * as a symbolic link;
 * every reply's length is bounded by the protocol's 16-bit size and checked
 * before it is read; every wait has a timeout.
 *
 * Linux only (it reads /proc). Ownership: a gcev_session owns its sockets, its
 * trace and its strings; everything it returns is valid until
 * gcev_session_close(). Threads: one session must be used from one thread at a
 * time, except gcev_session_request_stop(), which any thread or a signal handler
 * may call at any time. Distinct sessions are independent. SIGPIPE is never
 * raised (sends use MSG_NOSIGNAL).
 */
#ifndef GCEV_SESSION_H
#define GCEV_SESSION_H

#include <gcev/gcev.h>
#include <gcev/gcev_trace.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Processes                                                                 */
/* ------------------------------------------------------------------------ */

/* What a process says about itself (ProcessInfo2; ProcessInfo on runtimes before .NET 6). */
typedef struct gcev_process_info {
    uint32_t pid;                /* as the caller sees it */
    uint32_t ns_pid;             /* in the process's own pid namespace (== pid outside containers) */
    const char *socket_path;     /* the diagnostic socket used */
    const char *runtime_version; /* clrProductVersion, e.g. "10.0.12"; "" when the runtime did not say */
    const char *os;              /* "Linux" ...; "" when unknown */
    const char *arch;            /* "x64", "arm64" ...; "" when unknown */
    const char *command_line;    /* argv[0] path then the arguments, space-separated; "" when unknown */
    const char *entrypoint;      /* entry assembly name; "" when unknown */
    uint64_t reported_pid;       /* the pid the runtime reported (its namespace's), 0 when unknown */
} gcev_process_info;

/*
 * Pids of the .NET processes the caller may attach to: a live diagnostic socket
 * that belongs to the process's user or root and, unless the caller is root, to the
 * caller, in $TMPDIR and /tmp, and in /tmp of other
 * mount namespaces through /proc/<pid>/root. Stale sockets (no such process, or
 * a start time that does not match) are skipped. No connection is made.
 *
 * pids   receives a malloc'ed ascending array (NULL when count is 0); free it with
 *        gcev_process_list_free(). Must not be NULL.
 * count  receives the number of pids. Must not be NULL.
 * Returns GCEV_OK, GCEV_E_INVALID_ARG (pids or count NULL) or GCEV_E_NOMEM.
 * Thread-safe (no shared state).
 */
GCEV_API gcev_status gcev_process_list(uint32_t **pids, size_t *count);

/* Frees an array returned by gcev_process_list() (NULL allowed). */
GCEV_API void gcev_process_list_free(uint32_t *pids);

/*
 * Asks one process who it is (one ProcessInfo2 round trip, ProcessInfo when the
 * runtime refuses ProcessInfo2).
 *
 * pid         the process.
 * timeout_ms  bound on the connection and on the reply; 0 means 5000.
 * out         receives a gcev_process_info to free with gcev_process_info_free(),
 *             or NULL on failure. Must not be NULL.
 * err         optional detail (NULL allowed): code, static message, and for
 *             GCEV_E_REFUSED the runtime's HRESULT in err->offset.
 * Returns GCEV_OK; GCEV_E_INVALID_ARG (out NULL); GCEV_E_NO_PROCESS (no such
 * pid); GCEV_E_NOT_DOTNET (no diagnostic socket, or nobody listening on it);
 * GCEV_E_PERMISSION (the socket belongs to another user, or is not a socket);
 * GCEV_E_TIMEOUT (no reply within timeout_ms); GCEV_E_REFUSED (the runtime
 * answered both commands with an error); GCEV_E_FORMAT (a malformed reply);
 * GCEV_E_IO; GCEV_E_NOMEM. Thread-safe.
 */
GCEV_API gcev_status gcev_process_query(uint32_t pid, uint32_t timeout_ms, gcev_process_info **out,
                                        gcev_error *err);

/* Frees a gcev_process_info and its strings (NULL allowed). */
GCEV_API void gcev_process_info_free(gcev_process_info *info);

/*
 * Static English name of an HRESULT the diagnostics server answers with
 * ("unknown command" for 0x80131385, "bad encoding" for 0x80131384 ...);
 * "error" for others. Never NULL. Thread-safe.
 */
GCEV_API const char *gcev_session_hresult_name(int32_t hresult);

/* ------------------------------------------------------------------------ */
/* Sessions                                                                  */
/* ------------------------------------------------------------------------ */

/* gcev_session_options.profile */
typedef enum gcev_session_profile {
    /*
     * dotnet-trace 10's gc-collect: Microsoft-Windows-DotNETRuntime and
     * Microsoft-Windows-DotNETRuntimePrivate, keyword GC (0x1), level 4
     * (Informational), rundown keyword 0x1 (GC settings only). On runtimes
     * without CollectTracing4 (before .NET 9) the rundown is dropped, as
     * dotnet-trace does. The default (0).
     */
    GCEV_SESSION_GC_COLLECT = 0,
    /*
     * dotnet-trace 10's gc-verbose: Microsoft-Windows-DotNETRuntime, keywords
     * GC | GCHandle | Exception (0x8003), level 5 (Verbose: adds AllocationTick,
     * GCJoin, PinObjectAtGCTime ...), the default rundown (0x80020139).
     */
    GCEV_SESSION_GC_VERBOSE = 1,
    /* The caller's providers and rundown keyword (gcev_session_options.providers). */
    GCEV_SESSION_CUSTOM = 2,
    /*
     * A heap dump, as dotnet-gcdump asks for one: Microsoft-Windows-DotNETRuntime,
     * keywords GC | Type | GCHeapDump | GCHeapCollect | GCHeapAndTypeNames
     * (0x1980001, TraceEvent's GCHeapSnapshot), level 5, no rundown, a 1024 MB
     * buffer unless buffer_mb says otherwise. GCHeapCollect makes the runtime force a
     * full blocking GC as the session starts, during which it writes the bulk heap
     * events (gcev_heap.h).
     */
    GCEV_SESSION_GC_HEAP = 3
} gcev_session_profile;

/* dotnet-trace's default rundown keyword (what CollectTracing2/3 call "requestRundown"). */
#define GCEV_SESSION_DEFAULT_RUNDOWN UINT64_C(0x80020139)

/* One EventPipe provider of a GCEV_SESSION_CUSTOM session. */
typedef struct gcev_session_provider {
    const char *name;      /* UTF-8, non-empty, e.g. "Microsoft-Windows-DotNETRuntime" */
    uint64_t keywords;     /* keyword mask */
    uint32_t level;        /* 0 LogAlways, 1 Critical ... 4 Informational, 5 Verbose; the runtime checks it */
    const char *arguments; /* UTF-8 "key=value;key=value" filter arguments, or NULL */
} gcev_session_provider;

/* gcev_session_options.flags */
enum {
    /* Do not ask for a stack with every event (dotnet-trace asks, so the default does). */
    GCEV_SESSION_NO_STACKS = 1u << 0,
    /*
     * CollectTracing6 (.NET 11+) only: the Drop buffer mode (lossy: the runtime
     * drops events when the buffer is full) instead of Block (lossless: the
     * process's threads wait for the reader). Older commands always drop.
     */
    GCEV_SESSION_LOSSY = 1u << 1
};

/* A session's options; a zero member means its default. `struct_size`: gcev.h "Growable structs"
 * (GCEV_INIT); 0 = the first layout. */
typedef struct gcev_session_options {
    uint32_t struct_size;
    uint32_t profile; /* gcev_session_profile; 0 = gc-collect */
    /* GCEV_SESSION_CUSTOM only: 1 to 1000 providers, copied by gcev_session_open(). */
    const gcev_session_provider *providers;
    size_t nproviders;
    /* GCEV_SESSION_CUSTOM only: the rundown keyword (0 = no rundown; see
     * GCEV_SESSION_DEFAULT_RUNDOWN). CollectTracing2/3 can only say "rundown or
     * not": any non-zero keyword asks for the default rundown there. */
    uint64_t rundown_keyword;
    uint32_t flags;       /* GCEV_SESSION_* flags */
    uint32_t buffer_mb;   /* the runtime's circular buffer; 0 = 256 (dotnet-trace's default) */
    uint32_t max_command; /* newest CollectTracing version to try, 2..6; 0 = 6 */
    uint32_t timeout_ms;  /* each connect and reply, and the first trace bytes; 0 = 5000 */
    /* after StopTracing, the wait for the end of the stream (the rundown); 0 = 30000 */
    uint32_t stop_timeout_ms;
    /* no stream bytes for this long ends the session with GCEV_E_TIMEOUT; 0 = no limit
     * (an idle process sends nothing, so this is off by default) */
    uint32_t idle_timeout_ms;
    /* stop by itself this long after the session started; 0 = only when asked */
    uint32_t duration_ms;
    /* when non-NULL, every byte of the stream is also written to this file (created or
     * truncated, mode 0666 & ~umask): a .nettrace that gcev and TraceEvent read */
    const char *record_path;
    /* how the stream is read (gcev_trace.h), or NULL for the defaults: order
     * (GCEV_TRACE_ORDER_TIME releases events at each sequence point the runtime sends,
     * GCEV_TRACE_ORDER_STREAM at each of its ~100 ms flushes), max_block_size; copied by
     * gcev_session_open(). A pointer, not the struct, since gcev_trace_options grows. */
    const gcev_trace_options *trace;
} gcev_session_options;

/* What gcev_session_get_info() returns. */
typedef struct gcev_session_info {
    /* the target (ProcessInfo2 before the session started); a pointer, since
     * gcev_process_info grows (the member was the struct itself before SOVERSION 1) */
    const gcev_process_info *process;
    uint32_t command;    /* CollectTracing version that started the session: 2..6 */
    uint64_t session_id; /* the runtime's id of the session */
    /* refused[N]: the HRESULT with which the runtime refused CollectTracing<N> (N = 2..6)
     * before an older one was accepted; 0 when not tried or accepted. E.g. .NET 10 answers
     * CollectTracing6 with 0x80131385 (unknown command). */
    int32_t refused[8];
    uint64_t bytes; /* stream bytes received so far */
    int stopping;   /* 1 once StopTracing was sent (by request, duration or close) */
    /* 1 when the stream ended cleanly without a stop from us: the runtime closed the
     * session by itself (the process exited normally, or another client stopped it);
     * gcev_session_next() then returned GCEV_END and the trace is complete */
    int ended_by_runtime;
    const char *record_path; /* the record file, or NULL */
    /* when gcev_session_next() returned GCEV_E_TIMEOUT: the wait that expired, in ms
     * (timeout_ms for the trace header, stop_timeout_ms after StopTracing,
     * idle_timeout_ms); else 0 */
    uint32_t timeout_ms;
} gcev_session_info;

typedef struct gcev_session gcev_session;

/*
 * Attaches to process `pid` and starts an EventPipe session: finds the socket,
 * asks ProcessInfo2 (its refusal is not an error: the strings stay ""), then
 * sends the newest CollectTracing command (max_command, default 6) and on each
 * error reply the next older one, down to CollectTracing2; then reads the
 * nettrace header that follows the OK reply (gcev_trace_open_reader()).
 *
 * pid   the process (as the caller sees it).
 * opts  NULL for the defaults (gc-collect, 256 MB, 5 s replies); copied.
 * out   receives the session, or NULL on failure. Must not be NULL.
 * err   optional (NULL allowed): code, static message; for GCEV_E_REFUSED
 *       err->offset holds the HRESULT of the last command refused (as uint32).
 * Returns GCEV_OK; GCEV_E_INVALID_ARG (out NULL, opts->struct_size or opts->trace->struct_size
 * from 1 to 3, a bad option: profile,
 * max_command outside 2..6, CUSTOM without providers or with more than 1000 or
 * an empty name, a name or argument that is not UTF-8, a request over the
 * protocol's 64 KiB); GCEV_E_NO_PROCESS; GCEV_E_NOT_DOTNET; GCEV_E_PERMISSION;
 * GCEV_E_REFUSED (every command answered with an error); GCEV_E_TIMEOUT (no
 * reply, or no trace data, within timeout_ms); GCEV_E_PROCESS_EXITED (the
 * connection closed before the trace header); GCEV_E_IO (including a record
 * file that cannot be created or written); GCEV_E_FORMAT / GCEV_E_UNSUPPORTED /
 * GCEV_E_TRUNCATED_FILE (a malformed reply or stream header; GCEV_E_UNSUPPORTED also for
 * an opts->struct_size past this library's gcev_session_options with an option set there, or the
 * same of opts->trace); GCEV_E_NOMEM.
 * On failure after the runtime accepted the session, StopTracing is sent
 * before returning, so no session is left running in the process.
 */
GCEV_API gcev_status gcev_session_open(uint32_t pid, const gcev_session_options *opts, gcev_session **out,
                                       gcev_error *err);

/* The session's target and command; never NULL for a non-NULL s (NULL for NULL). */
GCEV_API const gcev_session_info *gcev_session_get_info(const gcev_session *s);

/*
 * The gcev_trace reading the stream (for gcev_trace_get_info(), dropped-event
 * counts, or a consumer such as gcev_stats_read_trace()). Borrowed: owned by the
 * session, do not close it. Reading it directly gives the reader's own
 * statuses; pass them through gcev_session_status() for the session's meaning.
 * NULL for NULL s.
 */
GCEV_API gcev_trace *gcev_session_trace(gcev_session *s);

/*
 * Next event of the session, as gcev_trace_next() (the event's views are valid
 * until the next call or close). Blocks until an event arrives, the session is
 * stopped (request, duration) or a timeout expires.
 * Returns GCEV_OK with *ev filled; GCEV_END at the clean end of the stream, after
 * the rundown: the session was stopped, or the runtime ended it by itself (a
 * process that exits normally does; info->ended_by_runtime then says so), and
 * every event was delivered; GCEV_E_PROCESS_EXITED when the stream was cut off
 * (the process was killed or crashed: every event of the last complete block
 * was delivered, those of the block cut short are lost); GCEV_E_TIMEOUT (idle_timeout_ms, or the stream did
 * not end within stop_timeout_ms after StopTracing); GCEV_E_IO (a socket error, or the record file could not
 * be written); a reader error (GCEV_E_FORMAT ...) for a malformed stream; GCEV_E_INVALID_ARG (s or ev NULL).
 * After an error, further calls return the same status.
 */
GCEV_API gcev_status gcev_session_next(gcev_session *s, gcev_trace_event *ev, gcev_error *err);

/*
 * What a status returned by the session's trace (gcev_session_trace()) means
 * for the session: the same translation gcev_session_next() applies (e.g. a
 * stream cut off -> GCEV_E_PROCESS_EXITED, a read that timed out ->
 * GCEV_E_TIMEOUT; GCEV_END sets info->ended_by_runtime when we had not
 * stopped); err (NULL allowed) is rewritten to match. Returns `st` unchanged
 * for statuses that need no translation, and `st` for NULL s.
 */
GCEV_API gcev_status gcev_session_status(gcev_session *s, gcev_status st, gcev_error *err);

/*
 * Asks the session to stop: the reading thread sends StopTracing on a second
 * connection at its next wake-up (within milliseconds), then keeps reading to the
 * end of the stream (the rundown), after which gcev_session_next() returns
 * GCEV_END. Async-signal-safe and callable from any thread (it sets a flag and
 * writes one byte to a pipe). Idempotent; NULL is ignored.
 */
GCEV_API void gcev_session_request_stop(gcev_session *s);

/*
 * Ends the session and frees it (NULL allowed). When the stream has not ended,
 * StopTracing is sent first (bounded by timeout_ms), without draining the stream:
 * a record file then lacks the rundown. Never blocks longer than twice timeout_ms.
 */
GCEV_API void gcev_session_close(gcev_session *s);

#ifdef __cplusplus
}
#endif

#endif /* GCEV_SESSION_H */
