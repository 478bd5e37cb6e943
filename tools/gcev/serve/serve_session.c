/* SPDX-License-Identifier: MIT */
/*
 * One reader thread per watched process: asks who it is, opens the session, feeds each
 * event to the process's own gcev_stats model and, through the model's GC-end callback,
 * each closed GC to the process's serve_pm (serve_state.c). Waits (connect, replies, the
 * stream) happen without the lock; the lock is taken for one event's counts or one GC.
 *
 * Memory: the model keeps every GC it has seen. Once it holds --recycle-gcs GCs, the thread
 * replaces it with a fresh one at the next clean point: every GC of the model reported and
 * the world just restarted (a RestartEEEnd was fed), so no GC and no suspension is open and
 * nothing is lost; the counters live in serve_pm and carry on. A model that has not reached a
 * clean point by 4 x --recycle-gcs GCs (a GC whose end was lost keeps the later ones open)
 * is finished, which reports what it holds, and replaced all the same.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gcev/gcev_session.h>

#include "serve.h"
#include "serve_session.h"

typedef struct reader {
    serve_ctx *c;
    serve_proc *p;
    size_t reported; /* GCs of the current model reported */
} reader;

static void on_gc(void *ctx, const gcev_stats *s, const gcev_stats_gc *g)
{
    reader *r = ctx;
    const gcev_stats_gen_heap *gens[GCEV_STATS_GENS];
    for (unsigned i = 0; i < GCEV_STATS_GENS; i++) {
        gens[i] = gcev_stats_gc_gen_at(s, g, i);
    }
    r->reported++;
    serve_lock(r->c);
    serve_pm_on_gc(&r->p->m, g, gens);
    serve_unlock(r->c);
}

static gcev_stats *new_model(reader *r)
{
    gcev_stats_options so;
    memset(&so, 0, sizeof so);
    so.struct_size = sizeof so;
    so.max_heap_records = 16384; /* per-heap records (server GC): ~13 MB at most */
    so.max_handles = 4096;       /* gc-verbose's handle table: not exported */
    so.max_segments = 4096;
    gcev_stats *s = NULL;
    if (gcev_stats_create(&so, &s) != GCEV_OK || gcev_stats_set_gc_callback(s, on_gc, r) != GCEV_OK) {
        gcev_stats_free(s);
        return NULL;
    }
    r->reported = 0;
    return s;
}

static int is_restart_end(const gcev_trace_event *ev)
{
    return ev->event_id == 3 && !strcmp(ev->provider_name, "Microsoft-Windows-DotNETRuntime");
}

/* Whether the process that had this start time still runs. */
static int still_running(const serve_proc *p)
{
    uint64_t st;
    char comm[64];
    return serve_read_stat(p->pid, comm, sizeof comm, &st) && st == p->start_time;
}

/*
 * Whether the process that had this start time is gone, waiting up to wait_ms for it: a
 * runtime ends every session (its end-of-stream, a clean end) as it shuts down, before the
 * process is gone from /proc, so a process whose runtime ended our session is given the time
 * to exit before it counts as still running (attaching to it again would open a second
 * session on a dying runtime, or fail there).
 */
static int gone_within(const serve_proc *p, unsigned wait_ms)
{
    for (unsigned waited = 0;; waited += 20) {
        if (!still_running(p)) {
            return 1;
        }
        if (waited >= wait_ms) {
            return 0;
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* How long a process whose runtime ended our session may take to exit (ms). */
enum { SERVE_EXIT_GRACE_MS = 5000 };

static void finish_state(serve_ctx *c, serve_proc *p, int state, const char *why)
{
    if (state == SERVE_DETACHED && !still_running(p)) {
        state = SERVE_EXITED; /* read before the lock: /proc is the kernel's, but still I/O */
    }
    serve_lock(c);
    p->state = state;
    if (why) {
        snprintf(p->error, sizeof p->error, "%s", why);
    }
    p->mono_ended = serve_now_ms();
    p->thread_done = 1;
    serve_unlock(c);
}

/* Reads the session to its end; returns what ended it (gcev_session_status(): GCEV_OK for a
 * clean end), its message in *why. */
static gcev_status read_session(reader *r, gcev_session *sess, gcev_error *why)
{
    serve_ctx *c = r->c;
    serve_proc *p = r->p;
    gcev_stats *model = new_model(r);
    if (!model) {
        return GCEV_E_NOMEM;
    }
    gcev_trace *t = gcev_session_trace(sess);
    uint64_t dropped_seen = 0;
    gcev_trace_event ev;
    gcev_error err = {0};
    gcev_status st;
    while ((st = gcev_session_next(sess, &ev, &err)) == GCEV_OK) {
        uint64_t dropped = gcev_trace_dropped_events(t);
        if (dropped > dropped_seen) {
            gcev_stats_note_dropped(model, dropped - dropped_seen, ev.ms);
        }
        double now = serve_now_ms();
        serve_lock(c);
        p->m.events++;
        p->m.dropped = dropped;
        if (!p->m.has_clock || now - ev.ms < p->m.clock_offset) {
            p->m.clock_offset = now - ev.ms;
            p->m.has_clock = 1;
        }
        serve_unlock(c);
        dropped_seen = dropped;
        (void)gcev_stats_add_trace_event(model, &ev); /* malformed payloads: counted by the model */
        size_t held = gcev_stats_gc_count(model);
        if (held >= c->o.recycle_gcs && is_restart_end(&ev) &&
            (r->reported == held || held >= 4 * (size_t)c->o.recycle_gcs)) {
            gcev_stats_finish(model); /* reports nothing at a clean point */
            gcev_stats_free(model);
            model = new_model(r);
            serve_lock(c);
            p->m.recycles++;
            serve_unlock(c);
            if (!model) {
                return GCEV_E_NOMEM;
            }
        }
    }
    /* the end: what the model still holds is reported (its flags say what it lacks) */
    gcev_stats_finish(model);
    gcev_stats_free(model);
    *why = err;
    return gcev_session_status(sess, st == GCEV_OK ? GCEV_END : st, why);
}

static void *reader_main(void *arg)
{
    reader r = *(reader *)arg;
    free(arg);
    serve_ctx *c = r.c;
    serve_proc *p = r.p;
    /* who it is: the runtime version for the labels, the command line for --match */
    gcev_process_info *info = NULL;
    gcev_error err = {0};
    gcev_status st = gcev_process_query(p->pid, c->o.timeout_ms, &info, &err);
    if (st != GCEV_OK) {
        serve_lock(c);
        p->not_dotnet = st == GCEV_E_NOT_DOTNET || st == GCEV_E_NO_PROCESS;
        serve_unlock(c);
        finish_state(c, p, st == GCEV_E_NO_PROCESS ? SERVE_EXITED : SERVE_FAILED,
                     err.message ? err.message : gcev_status_str(st));
        return NULL;
    }
    int hide = c->match_re && regexec((const regex_t *)c->match_re, info->command_line, 0, NULL, 0) != 0;
    serve_lock(c);
    snprintf(p->runtime, sizeof p->runtime, "%s", info->runtime_version);
    serve_proc_labels(p);
    p->hidden = hide;
    serve_unlock(c);
    gcev_process_info_free(info);
    if (hide) {
        finish_state(c, p, SERVE_DETACHED, "--match does not match its command line");
        return NULL;
    }
    gcev_session_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.profile = c->o.profile;
    o.flags = c->o.stacks ? 0 : GCEV_SESSION_NO_STACKS;
    o.buffer_mb = 32;
    o.timeout_ms = c->o.timeout_ms;
    o.stop_timeout_ms = 5000;
    gcev_trace_options to = {.struct_size = sizeof to, .order = GCEV_TRACE_ORDER_STREAM};
    o.trace = &to;
    char path[4096];
    if (c->o.record_dir) {
        serve_lock(c);
        unsigned long long n = (unsigned long long)p->m.attaches + 1;
        serve_unlock(c);
        snprintf(path, sizeof path, "%s/gcev-serve-%u-%llu-%llu.nettrace", c->o.record_dir, p->pid,
                 (unsigned long long)p->start_time, n);
        o.record_path = path;
    }
    gcev_session *sess = NULL;
    st = gcev_session_open(p->pid, &o, &sess, &err);
    if (st != GCEV_OK) {
        finish_state(c, p,
                     st == GCEV_E_NO_PROCESS || st == GCEV_E_PROCESS_EXITED ? SERVE_EXITED : SERVE_FAILED,
                     err.message ? err.message : gcev_status_str(st));
        return NULL;
    }
    serve_lock(c);
    p->session = sess;
    p->state = SERVE_ATTACHED;
    p->m.attaches++;
    p->mono_started = serve_now_ms();
    if (p->stop) {
        gcev_session_request_stop(sess);
    }
    serve_unlock(c);
    gcev_error why = {0};
    gcev_status end = read_session(&r, sess, &why);
    /* why a session of a process that still runs ended (the discovery loop says it when it
     * attaches again) */
    char msg[sizeof p->error];
    snprintf(msg, sizeof msg, "%s", end == GCEV_OK ? "" : why.message ? why.message : gcev_status_str(end));
    int by_runtime = end == GCEV_END && gcev_session_get_info(sess)->ended_by_runtime;
    serve_lock(c);
    p->session = NULL;
    serve_unlock(c);
    gcev_session_close(sess);
    if (by_runtime && gone_within(p, SERVE_EXIT_GRACE_MS)) {
        finish_state(c, p, SERVE_EXITED, NULL);
        return NULL;
    }
    finish_state(c, p, SERVE_DETACHED, msg[0] ? msg : NULL);
    return NULL;
}

int serve_reader_start(serve_ctx *c, serve_proc *p)
{
    reader *r = malloc(sizeof *r);
    pthread_t *th = malloc(sizeof *th);
    if (!r || !th) {
        free(r);
        free(th);
        return 0;
    }
    r->c = c;
    r->p = p;
    r->reported = 0;
    serve_lock(c);
    p->thread_done = 0;
    p->state = SERVE_ATTACHING;
    serve_unlock(c);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 256 * 1024);
    /* the thread takes no signal: SIGINT/SIGTERM go to the discovery loop */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(th, &a, reader_main, r);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&a);
    if (rc != 0) {
        free(r);
        free(th);
        return 0;
    }
    p->thread = th;
    return 1;
}

void serve_reader_stop(serve_ctx *c, serve_proc *p)
{
    serve_lock(c);
    p->stop = 1;
    if (p->session) {
        gcev_session_request_stop((gcev_session *)p->session);
    }
    serve_unlock(c);
}

void serve_reader_join(serve_proc *p)
{
    if (p->thread) {
        pthread_join(*(pthread_t *)p->thread, NULL);
        free(p->thread);
        p->thread = NULL;
    }
}
