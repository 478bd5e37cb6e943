/* SPDX-License-Identifier: MIT */
/*
 * Asking a .NET process something over its diagnostic socket: one command and
 * its reply on a connection of their own (round trip, also the session's way to
 * send CollectTracing and StopTracing), and on it the process API of
 * gcev_session.h: the list of attachable processes, ProcessInfo2/ProcessInfo
 * as a gcev_process_info, the names of the server's HRESULTs. Apart from the session (gcev_session.c) because
 * these are short request/reply exchanges with no state, where the session is a long-lived stream.
 */
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#include "gcev_process.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gcev_error.h"

static gcev_status fail(gcev_error *err, gcev_status st, uint64_t offset, const char *msg)
{
    return gcev_error_set(err, st, offset, NULL, msg);
}

/* ---- one request, one reply --------------------------------------------------------- */

/* Sends all of buf before the deadline. 0, or -1 with errno (ETIMEDOUT, EPIPE ...). */
static int send_all(int fd, const uint8_t *buf, size_t n, long long deadline)
{
    size_t off = 0;
    while (off < n) {
        ssize_t r = send(fd, buf + off, n - off, MSG_NOSIGNAL);
        if (r > 0) {
            off += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            long long left = deadline - gcev_monotonic_ms();
            struct pollfd p = {fd, POLLOUT, 0};
            if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            continue;
        }
        return -1;
    }
    return 0;
}

/* Receives exactly n bytes before the deadline: n; fewer at end of input; -1 with errno. */
static long recv_exact(int fd, uint8_t *buf, size_t n, long long deadline)
{
    size_t off = 0;
    while (off < n) {
        ssize_t r = recv(fd, buf + off, n - off, 0);
        if (r > 0) {
            off += (size_t)r;
            continue;
        }
        if (r == 0) {
            break;
        }
        if (errno == EINTR) {
            continue;
        }
        if (errno == ECONNRESET) {
            break;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            long long left = deadline - gcev_monotonic_ms();
            struct pollfd p = {fd, POLLIN, 0};
            if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            continue;
        }
        return -1;
    }
    return (long)off;
}

/*
 * Sends a message and reads the reply header and payload into payload[0..cap)
 * (cap >= 65535 - 20 holds any reply). The connection stays open in *fd_out when
 * fd_out is non-NULL (the stream follows a CollectTracing reply), else closes.
 */
gcev_status gcev_process_round_trip(const gcev_endpoint *ep, const uint8_t *msg, size_t len,
                                    uint32_t timeout_ms, gcev_ipc_header *h, uint8_t *payload, size_t *plen,
                                    int *fd_out, gcev_error *err)
{
    if (fd_out) {
        *fd_out = -1;
    }
    int fd = gcev_endpoint_connect(ep, timeout_ms, err);
    if (fd < 0) {
        return err ? err->code : GCEV_E_IO;
    }
    long long deadline = gcev_monotonic_ms() + timeout_ms;
    gcev_status st = GCEV_OK;
    uint8_t hb[GCEV_IPC_HEADER_SIZE];
    if (send_all(fd, msg, len, deadline) != 0) {
        st = errno == ETIMEDOUT ? fail(err, GCEV_E_TIMEOUT, 0, "timed out sending a command to the runtime")
                                : fail(err, GCEV_E_PROCESS_EXITED, 0, "the runtime closed the connection");
        goto out;
    }
    long r = recv_exact(fd, hb, sizeof hb, deadline);
    if (r < 0) {
        st = errno == ETIMEDOUT ? fail(err, GCEV_E_TIMEOUT, 0, "timed out waiting for the runtime's reply")
                                : fail(err, GCEV_E_IO, 0, "read error on the diagnostic socket");
        goto out;
    }
    if (r == 0) {
        st = fail(err, GCEV_E_PROCESS_EXITED, 0, "the runtime closed the connection without a reply");
        goto out;
    }
    st = gcev_ipc_parse_header(hb, (size_t)r, h, err);
    if (st != GCEV_OK) {
        if (st == GCEV_E_TRUNCATED) {
            /* the peer closed the connection mid-reply: as without a reply, the process (or
             * whatever answered for it) went away */
            st = fail(err, GCEV_E_PROCESS_EXITED, (uint64_t)r,
                      "the runtime closed the connection inside its reply");
        }
        goto out;
    }
    size_t want = (size_t)h->size - GCEV_IPC_HEADER_SIZE; /* <= 65515: bounded by the u16 size */
    r = recv_exact(fd, payload, want, deadline);
    if (r < 0) {
        st = errno == ETIMEDOUT ? fail(err, GCEV_E_TIMEOUT, 0, "timed out waiting for the runtime's reply")
                                : fail(err, GCEV_E_IO, 0, "read error on the diagnostic socket");
        goto out;
    }
    if ((size_t)r < want) {
        st = fail(err, GCEV_E_PROCESS_EXITED, GCEV_IPC_HEADER_SIZE + (uint64_t)r,
                  "the runtime closed the connection inside its reply");
        goto out;
    }
    *plen = want;
out:
    if (st == GCEV_OK && fd_out) {
        *fd_out = fd;
    } else {
        close(fd);
    }
    return st;
}

/* ---- process info ------------------------------------------------------------------ */

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) {
        memcpy(d, s, n);
    }
    return d;
}

void gcev_process_info_clear(gcev_process_info *p)
{
    free((char *)p->socket_path);
    free((char *)p->runtime_version);
    free((char *)p->os);
    free((char *)p->arch);
    free((char *)p->command_line);
    free((char *)p->entrypoint);
    memset(p, 0, sizeof *p);
}

/* Every string non-NULL ("" when unknown). 0 when out of memory. */
static int info_fill(gcev_process_info *p, const gcev_endpoint *ep, const gcev_ipc_process_info *ipc)
{
    gcev_ipc_process_info none;
    memset(&none, 0, sizeof none);
    if (!ipc) {
        ipc = &none;
    }
    p->pid = ep->pid;
    p->ns_pid = ep->ns_pid;
    p->reported_pid = ipc->process_id;
    p->socket_path = dup_str(ep->path);
    p->runtime_version = gcev_ipc_utf8_dup(ipc->runtime_version);
    p->os = gcev_ipc_utf8_dup(ipc->os);
    p->arch = gcev_ipc_utf8_dup(ipc->arch);
    p->command_line = gcev_ipc_utf8_dup(ipc->command_line);
    p->entrypoint = gcev_ipc_utf8_dup(ipc->entrypoint);
    return p->socket_path && p->runtime_version && p->os && p->arch && p->command_line && p->entrypoint;
}

/*
 * ProcessInfo2, else ProcessInfo, into *p. GCEV_OK with the strings set (""
 * when both were refused: *refused then holds the HRESULT), or the failure.
 */
gcev_status gcev_process_fetch_info(const gcev_endpoint *ep, uint32_t timeout_ms, gcev_process_info *p,
                                    int32_t *refused, uint8_t *payload, gcev_error *err)
{
    *refused = 0;
    for (unsigned version = 2; version >= 1; version--) {
        uint8_t msg[GCEV_IPC_HEADER_SIZE];
        size_t len, plen = 0;
        gcev_ipc_header h;
        gcev_ipc_encode(GCEV_IPC_SET_PROCESS, version == 2 ? GCEV_IPC_PROCESS_INFO2 : GCEV_IPC_PROCESS_INFO,
                        NULL, 0, msg, sizeof msg, &len);
        gcev_status st = gcev_process_round_trip(ep, msg, len, timeout_ms, &h, payload, &plen, NULL, err);
        if (st != GCEV_OK) {
            return st;
        }
        if (h.command_set == GCEV_IPC_SET_SERVER && h.command_id == GCEV_IPC_SERVER_ERROR) {
            gcev_ipc_reply r;
            st = gcev_ipc_parse_reply(&h, payload, plen, &r, err);
            if (st != GCEV_OK) {
                return st;
            }
            *refused = r.hresult;
            continue;
        }
        if (h.command_set != GCEV_IPC_SET_SERVER || h.command_id != GCEV_IPC_SERVER_OK) {
            return fail(err, GCEV_E_FORMAT, 16, "the runtime's ProcessInfo reply is not an OK message");
        }
        gcev_ipc_process_info ipc;
        st = gcev_ipc_parse_process_info(payload, plen, version, &ipc, err);
        if (st != GCEV_OK) {
            return st;
        }
        return info_fill(p, ep, &ipc) ? GCEV_OK : fail(err, GCEV_E_NOMEM, 0, NULL);
    }
    return info_fill(p, ep, NULL) ? GCEV_OK : fail(err, GCEV_E_NOMEM, 0, NULL);
}

gcev_status gcev_process_list(uint32_t **pids, size_t *count)
{
    if (!pids || !count) {
        return GCEV_E_INVALID_ARG;
    }
    return gcev_endpoint_list(pids, count);
}

void gcev_process_list_free(uint32_t *pids)
{
    free(pids);
}

gcev_status gcev_process_query(uint32_t pid, uint32_t timeout_ms, gcev_process_info **out, gcev_error *err)
{
    if (!out) {
        return fail(err, GCEV_E_INVALID_ARG, 0, "out is NULL");
    }
    *out = NULL;
    if (!timeout_ms) {
        timeout_ms = GCEV_PROCESS_DEFAULT_TIMEOUT_MS;
    }
    gcev_endpoint ep;
    gcev_status st = gcev_endpoint_find(pid, &ep, err);
    if (st != GCEV_OK) {
        return st;
    }
    gcev_process_info *p = calloc(1, sizeof *p);
    uint8_t *payload = malloc(GCEV_PROCESS_REPLY_CAP);
    if (!p || !payload) {
        st = fail(err, GCEV_E_NOMEM, 0, NULL);
    } else {
        int32_t refused;
        st = gcev_process_fetch_info(&ep, timeout_ms, p, &refused, payload, err);
        if (st == GCEV_OK && refused) {
            gcev_process_info_clear(p);
            st = fail(err, GCEV_E_REFUSED, (uint32_t)refused,
                      "the runtime refused ProcessInfo2 and ProcessInfo");
        } else if (st != GCEV_OK) {
            gcev_process_info_clear(p);
        }
    }
    free(payload);
    gcev_endpoint_close(&ep);
    if (st != GCEV_OK) {
        free(p);
        return st;
    }
    *out = p;
    return GCEV_OK;
}

void gcev_process_info_free(gcev_process_info *info)
{
    if (info) {
        gcev_process_info_clear(info);
        free(info);
    }
}

const char *gcev_session_hresult_name(int32_t hresult)
{
    return gcev_ipc_hresult_name(hresult);
}
