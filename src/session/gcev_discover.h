/* SPDX-License-Identifier: MIT */
/*
 * Finding and opening a .NET process's diagnostic socket (Linux).
 *
 * The runtime listens on $TMPDIR/dotnet-diagnostic-<pid>-<key>-socket (TMPDIR
 * as the runtime sees it, else /tmp), where <pid> is the process id in its own
 * pid namespace and <key> its start time in jiffies (/proc/<pid>/stat field 22).
 * A process in another mount namespace (a container) is reached through
 * /proc/<pid>/root. A socket is opened only when its owner is the process's user
 * (its effective or filesystem uid) or root, for every caller, root included (anyone
 * may create a file of that name in /tmp); and, for a caller other than root, only a
 * socket owned by the caller's effective uid. Never through a symbolic link: the entry is opened with
 * O_PATH|O_NOFOLLOW and checked with fstat, and connections go through
 * /proc/self/fd/<n>, so the checked inode is the one connected to.
 */
#ifndef GCEV_DISCOVER_H
#define GCEV_DISCOVER_H

#include <gcev/gcev.h>

enum { GCEV_ENDPOINT_PATH_MAX = 512 };

typedef struct gcev_endpoint {
    uint32_t pid;    /* as the caller sees it */
    uint32_t ns_pid; /* in the process's own pid namespace (the socket name's) */
    int path_fd;     /* O_PATH descriptor of the socket, -1 when none */
    uint32_t owner_uid;
    char path[GCEV_ENDPOINT_PATH_MAX + 160]; /* for messages */
} gcev_endpoint;

/*
 * Finds pid's socket and opens it O_PATH. GCEV_OK; GCEV_E_NO_PROCESS (no such
 * process); GCEV_E_NOT_DOTNET (no socket: not .NET, diagnostics disabled, or a
 * temp directory we cannot see); GCEV_E_PERMISSION (the socket belongs to
 * another user than the caller, or to neither the process's user nor root, or its
 * name is not a socket, e.g. a symbolic link).
 * err->message is static; ep->path names the socket (or the directory searched).
 */
gcev_status gcev_endpoint_find(uint32_t pid, gcev_endpoint *ep, gcev_error *err);
/* Closes ep->path_fd (idempotent). */
void gcev_endpoint_close(gcev_endpoint *ep);

/*
 * A new connection to the endpoint, within timeout_ms: the socket descriptor
 * (close-on-exec, blocking), or -1 with err set: GCEV_E_PERMISSION (EACCES),
 * GCEV_E_NOT_DOTNET (nobody listens: the process exited or stopped serving),
 * GCEV_E_TIMEOUT, GCEV_E_IO.
 */
int gcev_endpoint_connect(const gcev_endpoint *ep, uint32_t timeout_ms, gcev_error *err);

/*
 * Pids with a live diagnostic socket the caller may open (same mount namespace
 * and, through /proc/<pid>/root, others), ascending, malloc'ed into *pids
 * (free()). GCEV_OK or GCEV_E_NOMEM.
 */
gcev_status gcev_endpoint_list(uint32_t **pids, size_t *count);

/* Milliseconds of the monotonic clock: every deadline of the session layer. */
long long gcev_monotonic_ms(void);

#endif
