/* SPDX-License-Identifier: MIT */
/* gcev serve's HTTP server (serve_http.c, libmicrohttpd). */
#ifndef GCEV_SERVE_HTTP_H
#define GCEV_SERVE_HTTP_H

#include <stddef.h>

#include "serve.h"

/* Serves /metrics and /healthz on the listening socket listen_fd (the daemon owns it from
 * then on); the daemon, or NULL when libmicrohttpd could not be loaded (why[why_n] says why)
 * or could not start (why left as it was). */
void *serve_http_start(serve_ctx *c, int listen_fd, char *why, size_t why_n);
/* Stops the daemon (NULL allowed) and closes its socket. */
void serve_http_stop(void *daemon);

#endif
