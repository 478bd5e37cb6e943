/* SPDX-License-Identifier: MIT */
/* gcev serve's HTTP server (serve_http.c, libmicrohttpd). */
#ifndef GCEV_SERVE_HTTP_H
#define GCEV_SERVE_HTTP_H

#include "serve.h"

/* Serves /metrics and /healthz on the listening socket listen_fd (the daemon owns it from
 * then on); the daemon, or NULL when libmicrohttpd could not start. */
void *serve_http_start(serve_ctx *c, int listen_fd);
/* Stops the daemon (NULL allowed) and closes its socket. */
void serve_http_stop(void *daemon);

#endif
