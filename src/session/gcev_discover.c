/* SPDX-License-Identifier: MIT */
/* The diagnostic socket of a process: where it is, whether we may open it, connecting to it. */
#define _GNU_SOURCE /* O_PATH, SOCK_CLOEXEC, SOCK_NONBLOCK */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "gcev_discover.h"
#include "gcev_error.h"

enum { ENVIRON_MAX = 1 << 20 }; /* bytes of /proc/<pid>/environ read at most */

static gcev_status fail(gcev_error *err, gcev_status st, const char *msg)
{
    return gcev_error_set(err, st, 0, NULL, msg);
}

/* Up to cap-1 bytes of a small file, NUL-terminated; the count, or -1. */
static long read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t r = read(fd, buf + len, cap - 1 - len);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            break;
        }
        len += (size_t)r;
    }
    close(fd);
    buf[len] = 0;
    return (long)len;
}

static int parse_u64(const char *s, const char *end, uint64_t *out)
{
    if (s == end) {
        return 0;
    }
    uint64_t v = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10) {
            return 0;
        }
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 1;
}

/* Whether the process exists (a zombie counts): kill(pid, 0) says so even when we may not signal it. */
static int process_exists(uint32_t pid)
{
    if (pid == 0 || pid > (uint32_t)INT32_MAX) {
        return 0;
    }
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/*
 * The uids a process creates files as: its effective and filesystem uids (the second and
 * fourth of the "Uid:" line of /proc/<pid>/status, as our user namespace sees them). 1 with
 * both, else 0.
 */
static int process_uids(uint32_t pid, uint64_t *euid, uint64_t *fsuid)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%u/status", pid);
    if (read_small(path, buf, sizeof buf) <= 0) {
        return 0;
    }
    const char *p = strstr(buf, "\nUid:");
    if (!p) {
        return 0;
    }
    p += 5;
    uint64_t v[4];
    for (int i = 0; i < 4; i++) {
        while (*p == ' ' || *p == '\t') {
            p++;
        }
        const char *e = p;
        while (*e >= '0' && *e <= '9') {
            e++;
        }
        if (!parse_u64(p, e, &v[i])) {
            return 0;
        }
        p = e;
    }
    *euid = v[1];
    *fsuid = v[3];
    return 1;
}

/*
 * Whether a socket owned by uid may be pid's: only when pid runs as uid, or uid is root's.
 * For every caller, root too: anyone may create a file named dotnet-diagnostic-<pid>-... in
 * /tmp, and a server behind it would answer for a process it is not.
 */
static int socket_owner_fits(uint32_t pid, uint64_t uid)
{
    uint64_t euid, fsuid;
    return uid == 0 || (process_uids(pid, &euid, &fsuid) && (uid == euid || uid == fsuid));
}

/* Field 22 of /proc/<pid>/stat (start time in jiffies), the runtime's disambiguation key. */
static int start_time(uint32_t pid, uint64_t *out)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%u/stat", pid);
    if (read_small(path, buf, sizeof buf) <= 0) {
        return 0;
    }
    char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    if (!p) {
        return 0;
    }
    p++;
    for (int field = 3; field <= 22; field++) {
        while (*p == ' ') {
            p++;
        }
        char *e = p;
        while (*e && *e != ' ') {
            e++;
        }
        if (field == 22) {
            return parse_u64(p, e, out);
        }
        p = e;
    }
    return 0;
}

/* The pid inside the process's innermost pid namespace (last NSpid field), else pid. */
static uint32_t namespace_pid(uint32_t pid)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%u/status", pid);
    if (read_small(path, buf, sizeof buf) <= 0) {
        return pid;
    }
    char *line = strstr(buf, "\nNSpid:");
    if (!line) {
        return pid;
    }
    line += 7;
    uint64_t last = pid;
    for (;;) {
        while (*line == ' ' || *line == '\t') {
            line++;
        }
        char *e = line;
        while (*e >= '0' && *e <= '9') {
            e++;
        }
        uint64_t v;
        if (e == line || !parse_u64(line, e, &v) || v > UINT32_MAX) {
            break;
        }
        last = v;
        line = e;
    }
    return (uint32_t)last;
}

/* 1 when pid is in another mount namespace than ours (0 when the same or unknown). */
static int other_mount_ns(uint32_t pid)
{
    char path[64], mine[128], theirs[128];
    snprintf(path, sizeof path, "/proc/%u/ns/mnt", pid);
    ssize_t a = readlink("/proc/self/ns/mnt", mine, sizeof mine - 1);
    ssize_t b = readlink(path, theirs, sizeof theirs - 1);
    if (a <= 0 || b <= 0) {
        return 0;
    }
    mine[a] = 0;
    theirs[b] = 0;
    return strcmp(mine, theirs) != 0;
}

/* TMPDIR from the process's environment, when we may read it. */
static int target_tmpdir(uint32_t pid, char *out, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    /* entries are NUL-separated; read in pieces, keeping an incomplete entry */
    char buf[8192];
    size_t have = 0, total = 0;
    int found = 0;
    for (;;) {
        ssize_t r = read(fd, buf + have, sizeof buf - have);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            break;
        }
        have += (size_t)r;
        total += (size_t)r;
        size_t start = 0;
        for (size_t i = 0; i < have; i++) {
            if (buf[i] != 0) {
                continue;
            }
            const char *entry = buf + start;
            if (!strncmp(entry, "TMPDIR=", 7) && entry[7] && strlen(entry + 7) < cap) {
                strcpy(out, entry + 7);
                found = 1;
            }
            start = i + 1;
        }
        memmove(buf, buf + start, have - start);
        have -= start;
        if (have == sizeof buf || total > ENVIRON_MAX) {
            break; /* an entry longer than the buffer: not a TMPDIR we could use */
        }
    }
    close(fd);
    return found;
}

/* "dotnet-diagnostic-<pid>-<key>-socket": 1 with *pid and *key, else 0. */
static int parse_socket_name(const char *name, uint64_t *pid, uint64_t *key)
{
    static const char prefix[] = "dotnet-diagnostic-", suffix[] = "-socket";
    size_t n = strlen(name);
    if (n < sizeof prefix + sizeof suffix || strncmp(name, prefix, sizeof prefix - 1) ||
        strcmp(name + n - (sizeof suffix - 1), suffix)) {
        return 0;
    }
    const char *p = name + sizeof prefix - 1, *end = name + n - (sizeof suffix - 1);
    const char *dash = memchr(p, '-', (size_t)(end - p));
    return dash && parse_u64(p, dash, pid) && parse_u64(dash + 1, end, key);
}

typedef struct candidate {
    int found;
    int exact; /* key == the process's start time */
    uint64_t key;
    char dir[GCEV_ENDPOINT_PATH_MAX];
    char name[128];
} candidate;

/* Looks in dir for ns_pid's sockets; keeps the best: the start time's, else the newest key. */
static void scan_dir(const char *dir, uint32_t ns_pid, int have_start, uint64_t start, candidate *best)
{
    DIR *d = opendir(dir);
    if (!d) {
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        uint64_t pid, key;
        if (!parse_socket_name(de->d_name, &pid, &key) || pid != ns_pid ||
            strlen(de->d_name) >= sizeof best->name) {
            continue;
        }
        int exact = have_start && key == start;
        if (best->found && (best->exact || (!exact && key <= best->key))) {
            continue;
        }
        best->found = 1;
        best->exact = exact;
        best->key = key;
        snprintf(best->dir, sizeof best->dir, "%s", dir);
        memcpy(best->name, de->d_name, strlen(de->d_name) + 1); /* shorter: checked above */
    }
    closedir(d);
}

static int join(char *out, size_t cap, const char *a, const char *b)
{
    int n = snprintf(out, cap, "%s%s", a, b);
    return n > 0 && (size_t)n < cap;
}

gcev_status gcev_endpoint_find(uint32_t pid, gcev_endpoint *ep, gcev_error *err)
{
    memset(ep, 0, sizeof *ep);
    ep->path_fd = -1;
    ep->pid = pid;
    if (!process_exists(pid)) {
        snprintf(ep->path, sizeof ep->path, "/proc/%u", pid);
        return fail(err, GCEV_E_NO_PROCESS, "no process with this pid");
    }
    ep->ns_pid = namespace_pid(pid);
    uint64_t start = 0;
    int have_start = start_time(pid, &start);
    char root[64] = "";
    if (other_mount_ns(pid)) {
        snprintf(root, sizeof root, "/proc/%u/root", pid);
    }
    /* the runtime's TMPDIR (its environment), then ours (same namespace only), then /tmp */
    char dirs[3][GCEV_ENDPOINT_PATH_MAX];
    int ndirs = 0;
    char tmp[GCEV_ENDPOINT_PATH_MAX];
    if (target_tmpdir(pid, tmp, sizeof tmp) && join(dirs[ndirs], sizeof dirs[0], root, tmp)) {
        ndirs++;
    }
    const char *mine = getenv("TMPDIR");
    if (!root[0] && mine && mine[0] && join(dirs[ndirs], sizeof dirs[0], "", mine)) {
        ndirs++;
    }
    if (join(dirs[ndirs], sizeof dirs[0], root, "/tmp")) {
        ndirs++;
    }
    candidate best = {0};
    for (int i = 0; i < ndirs; i++) {
        int dup = 0;
        for (int j = 0; j < i; j++) {
            dup |= !strcmp(dirs[i], dirs[j]);
        }
        if (!dup) {
            scan_dir(dirs[i], ep->ns_pid, have_start, start, &best);
        }
    }
    if (!best.found) {
        snprintf(ep->path, sizeof ep->path, "%s", ndirs ? dirs[0] : "/tmp");
        if (!process_exists(pid)) {
            return fail(err, GCEV_E_NO_PROCESS, "no process with this pid");
        }
        return fail(err, GCEV_E_NOT_DOTNET, "no .NET diagnostic socket for this process");
    }
    snprintf(ep->path, sizeof ep->path, "%s/%s", best.dir, best.name);
    int dfd = open(best.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        return fail(err, errno == EACCES ? GCEV_E_PERMISSION : GCEV_E_NOT_DOTNET,
                    "cannot open the directory of the diagnostic socket");
    }
    /* O_NOFOLLOW with O_PATH opens a symbolic link itself: fstat then sees the link, not its target */
    int fd = openat(dfd, best.name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    close(dfd);
    if (fd < 0) {
        return fail(err, GCEV_E_NOT_DOTNET, "the diagnostic socket vanished");
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return fail(err, GCEV_E_IO, "cannot stat the diagnostic socket");
    }
    if (!S_ISSOCK(st.st_mode)) {
        close(fd);
        return fail(err, GCEV_E_PERMISSION,
                    S_ISLNK(st.st_mode) ? "the diagnostic socket name is a symbolic link: refused"
                                        : "the diagnostic socket name is not a socket: refused");
    }
    ep->owner_uid = (uint32_t)st.st_uid;
    if (!socket_owner_fits(pid, (uint64_t)st.st_uid)) {
        close(fd);
        if (!process_exists(pid)) {
            return fail(err, GCEV_E_NO_PROCESS, "no process with this pid");
        }
        return fail(err, GCEV_E_PERMISSION,
                    "the diagnostic socket belongs to neither the process's user nor root: refused");
    }
    uid_t me = geteuid();
    if (me != 0 && st.st_uid != me) {
        close(fd);
        return fail(err, GCEV_E_PERMISSION, "the diagnostic socket belongs to another user");
    }
    ep->path_fd = fd;
    return GCEV_OK;
}

void gcev_endpoint_close(gcev_endpoint *ep)
{
    if (ep && ep->path_fd >= 0) {
        close(ep->path_fd);
        ep->path_fd = -1;
    }
}

long long gcev_monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int gcev_endpoint_connect(const gcev_endpoint *ep, uint32_t timeout_ms, gcev_error *err)
{
    if (!ep || ep->path_fd < 0) {
        fail(err, GCEV_E_INVALID_ARG, "no endpoint");
        return -1;
    }
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "/proc/self/fd/%d", ep->path_fd);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0) {
        fail(err, GCEV_E_IO, "cannot create a socket");
        return -1;
    }
    long long deadline = gcev_monotonic_ms() + timeout_ms;
    for (;;) {
        if (connect(s, (struct sockaddr *)&a, sizeof a) == 0) {
            return s;
        }
        int e = errno;
        if (e == EINTR) {
            continue;
        }
        if (e == EINPROGRESS) {
            struct pollfd p = {s, POLLOUT, 0};
            long long left = deadline - gcev_monotonic_ms();
            int r = left > 0 ? poll(&p, 1, (int)left) : 0;
            int soerr = 0;
            socklen_t len = sizeof soerr;
            if (r > 0 && getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 && soerr == 0) {
                return s;
            }
            e = r > 0 ? soerr : ETIMEDOUT;
        } else if (e == EAGAIN && gcev_monotonic_ms() < deadline) {
            /* the listen backlog is full: the server is busy, retry shortly */
            struct timespec ts = {0, 10 * 1000000};
            nanosleep(&ts, NULL);
            continue;
        } else if (e == EAGAIN) {
            e = ETIMEDOUT;
        }
        close(s);
        if (e == EACCES || e == EPERM) {
            fail(err, GCEV_E_PERMISSION, "permission denied connecting to the diagnostic socket");
        } else if (e == ECONNREFUSED || e == ENOENT) {
            fail(err, GCEV_E_NOT_DOTNET, "nobody listens on the diagnostic socket (the process exited?)");
        } else if (e == ETIMEDOUT) {
            fail(err, GCEV_E_TIMEOUT, "timed out connecting to the diagnostic socket");
        } else {
            fail(err, GCEV_E_IO, "cannot connect to the diagnostic socket");
        }
        return -1;
    }
}

/* ---- listing ---------------------------------------------------------------------- */

typedef struct pid_list {
    uint32_t *v;
    size_t n, cap;
} pid_list;

static int list_add(pid_list *l, uint32_t pid)
{
    for (size_t i = 0; i < l->n; i++) {
        if (l->v[i] == pid) {
            return 1;
        }
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        uint32_t *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            return 0;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = pid;
    return 1;
}

static int may_open(const char *dir, const char *name, uint32_t pid)
{
    char path[GCEV_ENDPOINT_PATH_MAX + 128];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode)) {
        return 0;
    }
    uid_t me = geteuid();
    return (me == 0 || st.st_uid == me) && socket_owner_fits(pid, (uint64_t)st.st_uid);
}

/* Sockets of our own namespace in dir whose pid is alive with the matching start time. */
static int list_dir(const char *dir, pid_list *l)
{
    DIR *d = opendir(dir);
    if (!d) {
        return 1;
    }
    int ok = 1;
    struct dirent *de;
    while (ok && (de = readdir(d)) != NULL) {
        uint64_t pid, key, start;
        if (!parse_socket_name(de->d_name, &pid, &key) || pid > UINT32_MAX ||
            !process_exists((uint32_t)pid) || other_mount_ns((uint32_t)pid) ||
            !start_time((uint32_t)pid, &start) || start != key || !may_open(dir, de->d_name, (uint32_t)pid)) {
            continue;
        }
        ok = list_add(l, (uint32_t)pid);
    }
    closedir(d);
    return ok;
}

/* A process of another mount namespace with a socket of its own in its /tmp. */
static int has_foreign_socket(uint32_t pid)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%u/root/tmp", pid);
    candidate best = {0};
    uint64_t start = 0;
    int have_start = start_time(pid, &start);
    scan_dir(dir, namespace_pid(pid), have_start, start, &best);
    return best.found && may_open(best.dir, best.name, pid);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

gcev_status gcev_endpoint_list(uint32_t **pids, size_t *count)
{
    *pids = NULL;
    *count = 0;
    pid_list l = {NULL, 0, 0};
    int ok = 1;
    const char *mine = getenv("TMPDIR");
    if (mine && mine[0]) {
        ok = list_dir(mine, &l);
    }
    if (ok) {
        ok = list_dir("/tmp", &l);
    }
    DIR *proc = ok ? opendir("/proc") : NULL;
    if (proc) {
        struct dirent *de;
        while (ok && (de = readdir(proc)) != NULL) {
            uint64_t pid;
            if (!parse_u64(de->d_name, de->d_name + strlen(de->d_name), &pid) || pid > UINT32_MAX ||
                !other_mount_ns((uint32_t)pid)) {
                continue;
            }
            if (has_foreign_socket((uint32_t)pid)) {
                ok = list_add(&l, (uint32_t)pid);
            }
        }
        closedir(proc);
    }
    if (!ok) {
        free(l.v);
        return GCEV_E_NOMEM;
    }
    if (l.n) {
        qsort(l.v, l.n, sizeof *l.v, cmp_u32);
    }
    *pids = l.v;
    *count = l.n;
    return GCEV_OK;
}
