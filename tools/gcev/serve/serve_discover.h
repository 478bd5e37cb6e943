/* SPDX-License-Identifier: MIT */
/* gcev serve's discovery loop (serve_discover.c). */
#ifndef GCEV_SERVE_DISCOVER_H
#define GCEV_SERVE_DISCOVER_H

#include "serve.h"

/* One rescan: new processes attached, ended sessions re-attached, exited ones dropped. */
void serve_discover_once(serve_ctx *c);
/* Asks every session to stop and waits for every reader thread. */
void serve_discover_shutdown(serve_ctx *c);
/* Frees every process (after serve_discover_shutdown). */
void serve_discover_free(serve_ctx *c);

#endif
