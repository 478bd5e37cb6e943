/* SPDX-License-Identifier: MIT */
/*
 * session_cycles PID N: attaches to PID N times (ProcessInfo2, a session of
 * ~50 ms drained to its rundown, or closed early every third time) and fails
 * when a descriptor is left open or a cycle fails. Run under valgrind by the
 * runtime tests (no leak) against a real .NET process.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include <gcev/gcev_session.h>

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        n += de->d_name[0] != '.';
    }
    if (d) {
        closedir(d);
    }
    return n - 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: session_cycles PID N\n");
        return 2;
    }
    uint32_t pid = (uint32_t)strtoul(argv[1], NULL, 10);
    int n = atoi(argv[2]);
    int before = count_fds();
    unsigned long long events = 0;
    for (int i = 0; i < n; i++) {
        gcev_error err = {0};
        gcev_process_info *p;
        gcev_status st = gcev_process_query(pid, 5000, &p, &err);
        if (st != GCEV_OK) {
            fprintf(stderr, "cycle %d: query: %s: %s\n", i, gcev_status_str(st), err.message);
            return 1;
        }
        gcev_process_info_free(p);
        gcev_session_options o = {.struct_size = sizeof o};
        o.duration_ms = 50;
        gcev_session *s;
        st = gcev_session_open(pid, &o, &s, &err);
        if (st != GCEV_OK) {
            fprintf(stderr, "cycle %d: open: %s: %s\n", i, gcev_status_str(st), err.message);
            return 1;
        }
        gcev_trace_event ev;
        while ((st = gcev_session_next(s, &ev, &err)) == GCEV_OK) {
            events++;
            if (i % 3 == 2) {
                break; /* closed before the end: StopTracing without the drain */
            }
        }
        if (st != GCEV_OK && st != GCEV_END) {
            fprintf(stderr, "cycle %d: next: %s: %s\n", i, gcev_status_str(st), err.message);
            return 1;
        }
        gcev_session_close(s);
    }
    int after = count_fds();
    printf("%d cycles, %llu events, descriptors %d before, %d after\n", n, events, before, after);
    return after == before ? 0 : 1;
}
