/* SPDX-License-Identifier: MIT */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* pread, O_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif
#include <string.h>

#include "cli_stream.h"
#include "cli_trace.h"

#if !defined(_WIN32)
static long long stream_read(void *ctx, void *buf, size_t n)
{
    const gcev_cli_stream *s = ctx;
    for (;;) {
        ssize_t r = read(s->fd, buf, n);
        if (r >= 0 || errno != EINTR) {
            return (long long)r;
        }
    }
}

/* A regular file whose first bytes are NetTrace's magic; its size in *size. */
static int is_nettrace_file(int fd, uint64_t *size)
{
    struct stat st;
    char magic[8];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        return 0;
    }
    *size = (uint64_t)st.st_size;
    return pread(fd, magic, sizeof magic, 0) == (ssize_t)sizeof magic && memcmp(magic, "Nettrace", 8) == 0;
}
#endif

int gcev_cli_open_trace_once(const char *cmd, const char *path, const gcev_trace_options *opts,
                             gcev_cli_stream *s, gcev_trace **out)
{
    s->fd = -1;
    s->size = 0;
#if !defined(_WIN32)
    struct stat st;
    /* only regular files are opened here: opening a FIFO twice would lose what its writer
     * sent to the first open */
    if (!opts->keep_going && strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        uint64_t size = 0;
        if (fd >= 0 && is_nettrace_file(fd, &size)) {
            s->fd = fd;
            s->size = size;
            gcev_error err = {0};
            if (gcev_trace_open_reader(stream_read, s, opts, out, &err) == GCEV_OK) {
                return 0;
            }
            /* opened again by path below, which reports the fault as for any file */
            s->fd = -1;
            s->size = 0;
        }
        if (fd >= 0) {
            close(fd);
        }
    }
#endif
    return gcev_cli_open_trace(cmd, path, opts, out);
}

void gcev_cli_stream_close(gcev_cli_stream *s, gcev_trace *t)
{
    gcev_trace_close(t);
#if !defined(_WIN32)
    if (s->fd >= 0) {
        close(s->fd);
    }
#endif
    s->fd = -1;
    s->size = 0;
}
