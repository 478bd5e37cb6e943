/* SPDX-License-Identifier: MIT */
/*
 * gcev serve: a Prometheus exporter of per-GC metrics for every .NET process on a host.
 *
 *   discovery loop (serve_discover.c, the main thread)  finds processes, starts and reaps
 *   one reader thread per process (serve_session.c)     session -> gcev_stats model -> GC-end
 *                                                        callback -> serve_pm (serve_state.c)
 *   HTTP (serve_http.c, libmicrohttpd's own thread)      /metrics: serve_expo.c over the table
 *                                                        of serve_metrics.c; /healthz
 *   /proc and header parsers (serve_parse.c, fuzzed by tests/fuzz/fuzz_serve.c)
 *
 * Every serve_pm and the process list are read and written under serve_ctx.mu; a reader
 * thread holds it only to apply one GC or one event count, never across a wait, so a slow
 * or dead process never holds up a scrape.
 */
#ifndef GCEV_SERVE_H
#define GCEV_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include <gcev/gcev_stats.h>

#include "serve_metrics.h"

/* ---- per-process metric state (serve_state.c; no locking of its own) ---- */

enum {
    SERVE_GENS = 4,     /* condemned generation 0, 1, 2, unknown */
    SERVE_TYPES = 4,    /* blocking, background, foreground, unknown */
    SERVE_REASONS = 33, /* GCReasonMap values 0..31 with a name, then "other" */
    SERVE_WINDOW = 60   /* seconds of the pause ratio */
};

typedef struct serve_pm {
    uint64_t gcs[SERVE_GENS][SERVE_TYPES][SERVE_REASONS];
    uint64_t incomplete;
    uint64_t pause_bucket[SERVE_GENS][SERVE_TYPES][SERVE_PAUSE_BUCKETS + 1]; /* not cumulative; last: +Inf */
    uint64_t pause_count[SERVE_GENS][SERVE_TYPES];
    double pause_sum[SERVE_GENS][SERVE_TYPES]; /* seconds */
    double suspension_sum;                     /* seconds */
    uint64_t promoted, allocated;
    uint8_t has_size[GCEV_STATS_GENS], has_frag[GCEV_STATS_GENS];
    uint64_t size_after[GCEV_STATS_GENS], frag_after[GCEV_STATS_GENS];
    uint8_t has_committed, has_heaps, has_datas;
    uint64_t committed;
    int64_t heaps;
    uint32_t datas;
    uint64_t events, dropped, attaches, recycles;
    /* the pause ratio: pause ms per second of the trace's clock, the last SERVE_WINDOW seconds */
    int64_t win_sec[SERVE_WINDOW];
    double win_ms[SERVE_WINDOW];
    uint8_t has_clock;   /* clock_offset known */
    double clock_offset; /* monotonic ms minus trace ms (the smallest seen: events arrive after) */
} serve_pm;

/* Applies one closed GC (the GC-end callback's g) to m; gens: its GCEV_STATS_GENS generations
 * (gcev_stats_gc_gen_at()), a NULL entry for none. */
void serve_pm_on_gc(serve_pm *m, const gcev_stats_gc *g, const gcev_stats_gen_heap *const *gens);
/* The share of the SERVE_WINDOW seconds before trace time now_ms spent paused (0..1);
 * age_ms: how long the session has run (the window when shorter, at least 1 s). */
double serve_pm_pause_ratio(const serve_pm *m, double now_ms, double age_ms);

/* ---- processes ---- */

typedef enum serve_state {
    SERVE_ATTACHING, /* asking who it is, opening the session */
    SERVE_ATTACHED,  /* reading its session */
    SERVE_DETACHED,  /* the session ended, the process lives: re-attached at a rescan */
    SERVE_EXITED,    /* the process is gone; its series stay --keep-exited seconds */
    SERVE_FAILED,    /* could not attach (permission, refused, timeout): retried at a rescan */
    SERVE_STATES
} serve_state;

/* "attaching", "attached", ... */
extern const char *const serve_state_names[SERVE_STATES];

typedef struct serve_proc {
    struct serve_proc *next;
    uint32_t pid;
    uint64_t start_time; /* /proc/<pid>/stat starttime: a reused pid is another process */
    char name[64];       /* /proc/<pid>/comm */
    char runtime[48];    /* ProcessInfo2 runtime version, "" until known */
    char container[80];  /* from /proc/<pid>/cgroup, "" when none */
    char labels[512];    /* pid="..",process="..",runtime_version="..",container_id=".." (escaped) */
    int state;           /* serve_state */
    int hidden;          /* not exported: --match did not match (kept so it is not asked again) */
    char error[160];     /* why it failed, for the log */
    serve_pm m;
    double mono_started; /* monotonic ms when the last session started */
    double mono_ended;   /* monotonic ms when it became detached, exited or failed */
    /* the reader thread (serve_session.c) */
    void *thread;     /* pthread_t *, NULL when none */
    int thread_done;  /* set by the thread as it ends (under mu) */
    void *session;    /* gcev_session * while open (under mu), for gcev_session_request_stop */
    int stop;         /* asked to stop (under mu) */
    int not_dotnet;   /* the last attempt found no runtime: not retried */
    int logged_state; /* the state last written to the log (discovery loop), -1 at first */
} serve_proc;

/* Builds p->labels from pid, name, runtime and container (escaped label values). */
void serve_proc_labels(serve_proc *p);

/* ---- the exporter (cmd_serve.c) ---- */

typedef struct serve_opts {
    const char *listen; /* "127.0.0.1:9464" */
    uint32_t pids[64];  /* --pid: only these */
    size_t npids;
    uint32_t profile;       /* gcev_session_profile */
    const char *match;      /* --match REGEX on the command line, or NULL */
    double rescan_s;        /* --rescan */
    uint32_t max_procs;     /* --max-processes */
    double keep_exited_s;   /* --keep-exited */
    uint32_t recycle_gcs;   /* --recycle-gcs */
    uint32_t timeout_ms;    /* --timeout */
    int stacks;             /* --stacks: a stack with every event (as dotnet-trace, gcev record) */
    const char *record_dir; /* --record-dir: each session's stream also written there */
} serve_opts;

typedef struct serve_ctx {
    void *mu; /* pthread_mutex_t * */
    serve_opts o;
    serve_proc *procs;
    uint64_t unwatched;
    uint64_t scrapes;
    double last_scrape_s;
    void *match_re; /* regex_t *, NULL without --match */
    volatile int stopping;
} serve_ctx;

void serve_lock(serve_ctx *c);
void serve_unlock(serve_ctx *c);
/* Monotonic clock, ms. */
double serve_now_ms(void);

/* ---- the exposition (serve_expo.c) ---- */

typedef struct serve_buf {
    char *p;
    size_t n, cap;
    int failed; /* out of memory: p holds what fit */
} serve_buf;

void serve_buf_free(serve_buf *b);
void serve_buf_printf(serve_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* What the exporter says about itself. */
typedef struct serve_self {
    double cpu_s;
    uint64_t rss_bytes;
    uint64_t unwatched;
    double last_scrape_s;
    uint64_t scrapes;
} serve_self;

/*
 * Writes every family of serve_metrics[] for the exported processes of `procs` (a list;
 * hidden ones skipped) and the exporter's own: Prometheus text format 0.0.4, or OpenMetrics
 * 1.0.0 (openmetrics: counter families without _total in TYPE, # UNIT, # EOF). now_ms: the
 * monotonic clock for the pause ratio. Call with the lock held, or on a
 * copy taken under it (serve_http.c).
 */
void serve_expo_write(serve_buf *b, const serve_proc *procs, const serve_self *self, double now_ms,
                      int openmetrics);

/* The Content-Type of each format. */
#define SERVE_CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define SERVE_CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* ---- parsers (serve_parse.c): inputs from /proc and the HTTP client, fuzzed ---- */

/*
 * The container id in a /proc/<pid>/cgroup text (n bytes, not NUL-terminated): the last
 * path component of the first line that names one, as Docker, containerd, CRI-O and
 * Kubernetes write it (".../docker-<id>.scope", "/docker/<id>", ".../cri-containerd-<id>.scope",
 * ".../crio-<id>.scope", "/kubepods/.../<id>", "/libpod-<id>.scope"): 64 hex digits, of which
 * written to out (NUL-terminated; out_n >= 65, else nothing is found). 1 when found, else 0 with
 * out "".
 */
int serve_parse_container_id(const char *text, size_t n, char *out, size_t out_n);

/*
 * /proc/<pid>/stat (n bytes): the command name between the first '(' and the last ')'
 * (copied to comm, truncated to comm_n - 1, control characters as '?') and field 22,
 * starttime. 1, or 0 when malformed.
 */
int serve_parse_stat(const char *text, size_t n, char *comm, size_t comm_n, uint64_t *start_time);

/* /proc/self/statm (n bytes): its second field, resident pages. 1, or 0 when malformed. */
int serve_parse_statm(const char *text, size_t n, uint64_t *resident_pages);

/*
 * Whether an HTTP Accept header value asks for OpenMetrics: one of its media ranges is
 * application/openmetrics-text with a q that is not 0, and no text/plain range has a
 * higher q. NULL: 0.
 */
int serve_accept_openmetrics(const char *accept);
/* 1 when an Accept-Encoding header value (NULL: none) takes gzip: gzip or x-gzip, or "*"
 * where neither is named, with a q above 0. */
int serve_accept_gzip(const char *accept_encoding);

/* The label-value escape of the exposition formats (\\, \", \n) into out (always NUL-
 * terminated, truncated on a character boundary of the escape); returns out. */
char *serve_escape_label(const char *in, char *out, size_t out_n);

#endif
