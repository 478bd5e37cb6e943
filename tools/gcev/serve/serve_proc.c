/* SPDX-License-Identifier: MIT */
/* /proc reads of gcev serve: each file read whole (bounded), then parsed by serve_parse.c. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "serve.h"
#include "serve_session.h"

/* Up to n - 1 bytes of path; the count, or -1. */
static long read_small(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    size_t got = 0;
    while (got + 1 < n) {
        ssize_t k = read(fd, buf + got, n - 1 - got);
        if (k < 0) {
            close(fd);
            return -1;
        }
        if (k == 0) {
            break;
        }
        got += (size_t)k;
    }
    close(fd);
    buf[got] = '\0';
    return (long)got;
}

int serve_read_stat(uint32_t pid, char *comm, size_t comm_n, uint64_t *start_time)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%u/stat", pid);
    long n = read_small(path, buf, sizeof buf);
    return n > 0 && serve_parse_stat(buf, (size_t)n, comm, comm_n, start_time);
}

void serve_read_container(uint32_t pid, char *out, size_t out_n)
{
    char path[64], buf[8192];
    snprintf(path, sizeof path, "/proc/%u/cgroup", pid);
    long n = read_small(path, buf, sizeof buf);
    if (n <= 0 || !serve_parse_container_id(buf, (size_t)n, out, out_n)) {
        if (out_n) {
            out[0] = '\0';
        }
    }
}

void serve_read_self(double *cpu_s, uint64_t *rss_bytes)
{
    struct rusage ru;
    *cpu_s = 0;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        *cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                 (double)ru.ru_stime.tv_usec / 1e6;
    }
    char buf[256];
    uint64_t pages = 0;
    long n = read_small("/proc/self/statm", buf, sizeof buf);
    long page = sysconf(_SC_PAGESIZE);
    *rss_bytes = n > 0 && serve_parse_statm(buf, (size_t)n, &pages) && page > 0 ? pages * (uint64_t)page : 0;
}
