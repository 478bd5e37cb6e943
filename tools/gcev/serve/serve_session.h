/* SPDX-License-Identifier: MIT */
/* gcev serve's per-process reader threads (serve_session.c) and /proc reads (serve_proc.c). */
#ifndef GCEV_SERVE_SESSION_H
#define GCEV_SERVE_SESSION_H

#include "serve.h"

/* Starts p's reader thread (p->state becomes attaching); 1, or 0 when it could not. */
int serve_reader_start(serve_ctx *c, serve_proc *p);
/* Asks p's session to stop (any time; the thread ends after the rundown, within seconds). */
void serve_reader_stop(serve_ctx *c, serve_proc *p);
/* Waits for p's thread (when there is one) and frees it. */
void serve_reader_join(serve_proc *p);

/* /proc/<pid>/stat: name and start time; 1, or 0 when the process is gone or unreadable. */
int serve_read_stat(uint32_t pid, char *comm, size_t comm_n, uint64_t *start_time);
/* /proc/<pid>/cgroup: the container id, or "" (out_n >= 65). */
void serve_read_container(uint32_t pid, char *out, size_t out_n);
/* The exporter's own CPU seconds and resident bytes. */
void serve_read_self(double *cpu_s, uint64_t *rss_bytes);

#endif
