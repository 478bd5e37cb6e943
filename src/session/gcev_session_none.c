/* SPDX-License-Identifier: MIT */
/*
 * Live sessions where gcev has no diagnostics transport (Windows: the runtime
 * listens on a named pipe there, and gcev speaks only the Unix-socket channel of
 * gcev_discover.c / gcev_session.c). Same public interface: no process is ever
 * listed, and querying or attaching says why (GCEV_E_UNSUPPORTED), so the CLI and
 * the library build and fail clearly on such a system instead of not building.
 */
#include <gcev/gcev_session.h>

#include <stdlib.h>

#include "gcev_error.h"
#include "gcev_ipc.h"

static const char no_transport[] =
    "live sessions are not available on this system: gcev attaches through the "
    "runtime's Unix diagnostic socket only";

gcev_status gcev_process_list(uint32_t **pids, size_t *count)
{
    if (!pids || !count) {
        return GCEV_E_INVALID_ARG;
    }
    *pids = NULL;
    *count = 0;
    return GCEV_OK;
}

void gcev_process_list_free(uint32_t *pids)
{
    free(pids);
}

gcev_status gcev_process_query(uint32_t pid, uint32_t timeout_ms, gcev_process_info **out, gcev_error *err)
{
    (void)pid;
    (void)timeout_ms;
    if (!out) {
        return gcev_error_set(err, GCEV_E_INVALID_ARG, 0, NULL, "out is required");
    }
    *out = NULL;
    return gcev_error_set(err, GCEV_E_UNSUPPORTED, 0, NULL, no_transport);
}

void gcev_process_info_free(gcev_process_info *info)
{
    (void)info; /* never allocated here */
}

const char *gcev_session_hresult_name(int32_t hresult)
{
    return gcev_ipc_hresult_name(hresult);
}

gcev_status gcev_session_open(uint32_t pid, const gcev_session_options *opts, gcev_session **out,
                              gcev_error *err)
{
    (void)pid;
    (void)opts;
    if (!out) {
        return gcev_error_set(err, GCEV_E_INVALID_ARG, 0, NULL, "out is required");
    }
    *out = NULL;
    return gcev_error_set(err, GCEV_E_UNSUPPORTED, 0, NULL, no_transport);
}

/* No session is ever opened: the calls below only ever see NULL. */
const gcev_session_info *gcev_session_get_info(const gcev_session *s)
{
    (void)s;
    return NULL;
}

gcev_trace *gcev_session_trace(gcev_session *s)
{
    (void)s;
    return NULL;
}

gcev_status gcev_session_next(gcev_session *s, gcev_trace_event *ev, gcev_error *err)
{
    (void)s;
    (void)ev;
    return gcev_error_set(err, GCEV_E_INVALID_ARG, 0, NULL, "no session");
}

gcev_status gcev_session_status(gcev_session *s, gcev_status st, gcev_error *err)
{
    (void)s;
    (void)err;
    return st;
}

void gcev_session_request_stop(gcev_session *s)
{
    (void)s;
}

void gcev_session_close(gcev_session *s)
{
    (void)s;
}
