/* SPDX-License-Identifier: MIT */
/*
 * The discovery loop of gcev serve (the main thread): every --rescan seconds, the .NET
 * processes this user may attach to (gcev_process_list(), as gcev ps: containers through
 * /proc/<pid>/root), or the --pid ones; a reader thread for each new one (at most
 * --max-processes watched); a new session for one whose session ended while it runs (a
 * runtime that stopped our session, a restart of its diagnostics) and, after a back-off, for
 * one that could not be attached; a process gone is marked exited and its series are
 * dropped --keep-exited seconds later. A pid whose start time changed is a new process.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev_session.h>

#include "serve.h"
#include "serve_discover.h"
#include "serve_session.h"

typedef struct found {
    uint32_t pid;
    uint64_t start;
    char comm[64];
    char container[80];
} found;

static serve_proc *find(serve_ctx *c, uint32_t pid, uint64_t start)
{
    for (serve_proc *p = c->procs; p; p = p->next) {
        if (p->pid == pid && p->start_time == start) {
            return p;
        }
    }
    return NULL;
}

static size_t watched(const serve_ctx *c)
{
    size_t n = 0;
    for (const serve_proc *p = c->procs; p; p = p->next) {
        n += !p->hidden && p->state != SERVE_EXITED && !p->not_dotnet;
    }
    return n;
}

static void log_states(serve_ctx *c)
{
    for (serve_proc *p = c->procs; p; p = p->next) {
        if (p->hidden || p->logged_state == p->state) {
            continue;
        }
        p->logged_state = p->state;
        if (p->state == SERVE_ATTACHED) {
            fprintf(stderr, "gcev serve: attached to %u (%s, .NET %s%s%s)\n", p->pid, p->name,
                    p->runtime[0] ? p->runtime : "?", p->container[0] ? ", container " : "", p->container);
        } else if (p->state == SERVE_FAILED || p->state == SERVE_EXITED || p->state == SERVE_DETACHED) {
            fprintf(stderr, "gcev serve: %u (%s) %s%s%s\n", p->pid, p->name, serve_state_names[p->state],
                    p->error[0] ? ": " : "", p->error);
        }
    }
}

void serve_discover_once(serve_ctx *c)
{
    double now = serve_now_ms();
    uint32_t *pids = NULL;
    size_t npids = 0;
    if (c->o.npids) {
        pids = malloc(c->o.npids * sizeof *pids);
        if (pids) {
            memcpy(pids, c->o.pids, c->o.npids * sizeof *pids);
            npids = c->o.npids;
        }
    } else if (gcev_process_list(&pids, &npids) != GCEV_OK) {
        pids = NULL;
        npids = 0;
    }
    found *f = npids ? calloc(npids, sizeof *f) : NULL;
    size_t nf = 0;
    for (size_t i = 0; f && i < npids; i++) {
        if (serve_read_stat(pids[i], f[nf].comm, sizeof f[nf].comm, &f[nf].start)) {
            f[nf].pid = pids[i];
            serve_read_container(pids[i], f[nf].container, sizeof f[nf].container);
            nf++;
        }
    }
    free(pids);

    /* processes whose reader ended: exited, or to be attached again */
    serve_proc *restart[64];
    size_t nrestart = 0;
    serve_lock(c);
    for (serve_proc *p = c->procs; p; p = p->next) {
        if (!p->thread || !p->thread_done) {
            continue;
        }
        int listed = 0;
        for (size_t i = 0; i < nf && !listed; i++) {
            listed = f[i].pid == p->pid && f[i].start == p->start_time;
        }
        if (!listed) {
            if (p->state != SERVE_EXITED) {
                p->state = SERVE_EXITED;
                p->mono_ended = now;
            }
            continue;
        }
        double wait = p->state == SERVE_FAILED ? (c->o.rescan_s * 3 > 30 ? c->o.rescan_s * 3 : 30) : 0;
        if (!p->hidden && !p->not_dotnet && !c->stopping &&
            (p->state == SERVE_DETACHED || p->state == SERVE_FAILED) &&
            now - p->mono_ended >= wait * 1000.0 && nrestart < sizeof restart / sizeof restart[0]) {
            restart[nrestart++] = p;
        }
    }
    /* procs not listed any more: mark them (their reader, if any, sees the end itself) */
    for (serve_proc *p = c->procs; p; p = p->next) {
        int listed = 0;
        for (size_t i = 0; i < nf && !listed; i++) {
            listed = f[i].pid == p->pid && f[i].start == p->start_time;
        }
        if (!listed && !p->thread && p->state != SERVE_EXITED) {
            p->state = SERVE_EXITED;
            p->mono_ended = now;
        }
    }
    serve_unlock(c);

    for (size_t i = 0; i < nrestart; i++) {
        serve_reader_join(restart[i]);
        serve_lock(c);
        if (restart[i]->state == SERVE_DETACHED && restart[i]->error[0]) {
            /* a session ended while its process runs: said here, as log_states may never see
             * the state between two passes */
            fprintf(stderr, "gcev serve: %u (%s) detached: %s; attaching again\n", restart[i]->pid,
                    restart[i]->name, restart[i]->error);
        }
        restart[i]->error[0] = '\0';
        serve_unlock(c);
        /* the thread is gone: p may be set up again before the new one runs */
        if (!serve_reader_start(c, restart[i])) {
            serve_lock(c);
            restart[i]->state = SERVE_FAILED;
            restart[i]->mono_ended = now;
            serve_unlock(c);
        }
    }

    /* new processes */
    uint64_t unwatched = 0;
    for (size_t i = 0; i < nf && !c->stopping; i++) {
        serve_lock(c);
        int known = find(c, f[i].pid, f[i].start) != NULL;
        size_t active = watched(c);
        serve_unlock(c);
        if (known) {
            continue;
        }
        if (active >= c->o.max_procs) {
            unwatched++;
            continue;
        }
        serve_proc *p = calloc(1, sizeof *p);
        if (!p) {
            break;
        }
        p->pid = f[i].pid;
        p->start_time = f[i].start;
        p->logged_state = -1;
        snprintf(p->name, sizeof p->name, "%s", f[i].comm);
        snprintf(p->container, sizeof p->container, "%s", f[i].container);
        serve_proc_labels(p);
        serve_lock(c);
        p->next = c->procs;
        c->procs = p;
        serve_unlock(c);
        if (!serve_reader_start(c, p)) {
            serve_lock(c);
            p->state = SERVE_FAILED;
            p->mono_ended = now;
            serve_unlock(c);
        }
    }
    free(f);

    /* exited processes past --keep-exited, and hidden or non-.NET ones gone: dropped */
    serve_proc *gone = NULL;
    serve_lock(c);
    c->unwatched = unwatched;
    log_states(c);
    for (serve_proc **pp = &c->procs; *pp;) {
        serve_proc *p = *pp;
        int done = !p->thread || p->thread_done;
        int quiet = p->hidden || p->not_dotnet;
        if (done && p->state == SERVE_EXITED &&
            (quiet || now - p->mono_ended >= c->o.keep_exited_s * 1000.0)) {
            *pp = p->next;
            p->next = gone;
            gone = p;
        } else {
            pp = &p->next;
        }
    }
    serve_unlock(c);
    while (gone) {
        serve_proc *p = gone;
        gone = p->next;
        serve_reader_join(p);
        free(p);
    }
}

void serve_discover_shutdown(serve_ctx *c)
{
    serve_lock(c);
    c->stopping = 1;
    serve_proc *list = c->procs;
    serve_unlock(c);
    for (serve_proc *p = list; p; p = p->next) {
        serve_reader_stop(c, p);
    }
    for (serve_proc *p = list; p; p = p->next) {
        serve_reader_join(p);
    }
}

void serve_discover_free(serve_ctx *c)
{
    serve_lock(c);
    serve_proc *p = c->procs;
    c->procs = NULL;
    serve_unlock(c);
    while (p) {
        serve_proc *n = p->next;
        serve_reader_join(p);
        free(p);
        p = n;
    }
}
