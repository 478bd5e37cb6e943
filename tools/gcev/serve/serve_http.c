/* SPDX-License-Identifier: MIT */
/*
 * gcev serve's HTTP side, on Debian's libmicrohttpd in its internal-thread mode (select):
 * GET /metrics (Prometheus text format, or OpenMetrics when the Accept header asks for
 * application/openmetrics-text; gzip-encoded when Accept-Encoding takes gzip, as Prometheus'
 * does), GET /healthz, GET / (a pointer to both). The exposition is
 * written from a copy of the processes' state taken under the lock, which the reader threads
 * only hold for one event or one GC: a slow or dead process never holds up a scrape, and a
 * scrape holds up the readers only for the copy.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "serve.h"
#include "serve_gzip.h"
#include "serve_http.h"
#include "serve_mhd.h"
#include "serve_session.h"

/* the library's functions (serve_mhd.h), set before the daemon's thread starts */
static const serve_mhd *g_mhd;

/* gzip: body is a gzip member (Content-Encoding); /metrics says Vary either way, since what
 * it sends depends on Accept-Encoding (and Accept) */
static serve_mhd_result reply_as(struct MHD_Connection *conn, unsigned status, const char *type, char *body,
                                 size_t n, int must_free, int vary, int gzip)
{
    struct MHD_Response *r = g_mhd->create_response_from_buffer(
        n, body, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        if (must_free) {
            free(body);
        }
        return MHD_NO;
    }
    g_mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (vary) {
        g_mhd->add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
    }
    if (gzip) {
        g_mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
    }
    serve_mhd_result ret = g_mhd->queue_response(conn, status, r);
    g_mhd->destroy_response(r);
    return ret;
}

static serve_mhd_result reply(struct MHD_Connection *conn, unsigned status, const char *type, char *body,
                              size_t n, int must_free)
{
    return reply_as(conn, status, type, body, n, must_free, 0, 0);
}

/*
 * A copy of the exported processes (hidden ones left out), taken under the lock so that the
 * exposition is written without it: the reader threads wait only for the copy (a few kB per
 * process), never for the formatting. NULL with *n = 0 when none or out of memory (*oom).
 */
static serve_proc *snapshot(serve_ctx *c, size_t *n, int *oom)
{
    size_t k = 0;
    for (const serve_proc *p = c->procs; p; p = p->next) {
        k += !p->hidden;
    }
    *n = 0;
    *oom = 0;
    if (!k) {
        return NULL;
    }
    serve_proc *copy = malloc(k * sizeof *copy);
    if (!copy) {
        *oom = 1;
        return NULL;
    }
    size_t i = 0;
    for (const serve_proc *p = c->procs; p && i < k; p = p->next) {
        if (!p->hidden) {
            copy[i] = *p;
            copy[i].next = NULL;
            if (i) {
                copy[i - 1].next = &copy[i];
            }
            i++;
        }
    }
    *n = i;
    return copy;
}

static serve_mhd_result metrics(serve_ctx *c, struct MHD_Connection *conn)
{
    double t0 = serve_now_ms();
    const char *accept = g_mhd->lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    int om = serve_accept_openmetrics(accept);
    int gz = serve_accept_gzip(
        g_mhd->lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING));
    serve_self self;
    memset(&self, 0, sizeof self);
    serve_read_self(&self.cpu_s, &self.rss_bytes);
    size_t n;
    int oom;
    serve_lock(c);
    c->scrapes++;
    self.scrapes = c->scrapes;
    self.unwatched = c->unwatched;
    self.last_scrape_s = c->last_scrape_s;
    serve_proc *procs = snapshot(c, &n, &oom);
    serve_unlock(c);
    serve_buf b = {NULL, 0, 0, 0};
    if (!oom) {
        serve_expo_write(&b, procs, &self, serve_now_ms(), om);
    }
    free(procs);
    char *zipped = NULL;
    size_t zn = 0;
    if (gz && !oom && !b.failed && !serve_gzip(b.p, b.n, &zipped, &zn)) {
        gz = 0; /* zlib or memory failed: the plain body still serves */
    }
    double took = (serve_now_ms() - t0) / 1000.0;
    serve_lock(c);
    c->last_scrape_s = took;
    serve_unlock(c);
    if (oom || b.failed) {
        serve_buf_free(&b);
        static char oom_text[] = "out of memory\n";
        return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", oom_text, sizeof oom_text - 1, 0);
    }
    const char *type = om ? SERVE_CT_OPENMETRICS : SERVE_CT_TEXT;
    if (gz) {
        serve_buf_free(&b);
        return reply_as(conn, MHD_HTTP_OK, type, zipped, zn, 1, 1, 1);
    }
    return reply_as(conn, MHD_HTTP_OK, type, b.p, b.n, 1, 1, 0);
}

static serve_mhd_result handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                const char *version, const char *upload_data, size_t *upload_data_size,
                                void **con_cls)
{
    serve_ctx *c = cls;
    (void)version;
    (void)upload_data;
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
        static char no[] = "only GET\n";
        return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", no, sizeof no - 1, 0);
    }
    if (*upload_data_size) {
        *upload_data_size = 0; /* a GET body: ignored */
        return MHD_YES;
    }
    (void)con_cls;
    if (!strcmp(url, "/metrics")) {
        return metrics(c, conn);
    }
    if (!strcmp(url, "/healthz")) {
        static char ok[] = "ok\n";
        return reply(conn, MHD_HTTP_OK, "text/plain; charset=utf-8", ok, sizeof ok - 1, 0);
    }
    if (!strcmp(url, "/")) {
        static char home[] = "gcev serve: GC metrics of .NET processes at /metrics; /healthz\n";
        return reply(conn, MHD_HTTP_OK, "text/plain; charset=utf-8", home, sizeof home - 1, 0);
    }
    static char nf[] = "not found: /metrics, /healthz\n";
    return reply(conn, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8", nf, sizeof nf - 1, 0);
}

void *serve_http_start(serve_ctx *c, int listen_fd, char *why, size_t why_n)
{
    if (!g_mhd && !(g_mhd = serve_mhd_load(why, why_n))) {
        return NULL;
    }
    /* select() polling in libmicrohttpd's own thread; a few connections at a time, each
     * bounded in time, so a stuck client cannot keep the port */
    return g_mhd->start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, handler, c,
                               MHD_OPTION_LISTEN_SOCKET, listen_fd, MHD_OPTION_CONNECTION_LIMIT,
                               (unsigned int)32, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
                               MHD_OPTION_END);
}

void serve_http_stop(void *daemon)
{
    if (daemon) {
        g_mhd->stop_daemon(daemon);
    }
}
