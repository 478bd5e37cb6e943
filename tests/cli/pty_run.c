/* SPDX-License-Identifier: MIT */
/*
 * pty_run: runs a command with its standard error on a pseudo-terminal (or, with
 * --no-pty, on a plain file) and its standard input fed from a file through a
 * pipe that pauses once, so that a progress display has time to appear:
 *
 *   pty_run [--no-pty] IN PAUSE_AT PAUSE_MS OUT ERR -- CMD [ARGS...]
 *
 * IN's first PAUSE_AT bytes go to CMD, then nothing for PAUSE_MS, then the rest.
 * CMD's stdout goes to the file OUT, what it wrote to stderr to the file ERR (from a
 * pseudo-terminal with CR written as "<CR>" and LF as "<LF>" and a newline).
 * Prints "exit=N elapsed_ms=M" and exits 0 when CMD ran (whatever its status).
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The feeder: IN through the pipe, with one pause. */
static void feed(const char *in, long pause_at, long pause_ms, int fd)
{
    FILE *f = fopen(in, "rb");
    if (!f) {
        _exit(1);
    }
    char buf[65536];
    long sent = 0;
    int paused = 0;
    for (;;) {
        size_t want = sizeof buf;
        if (!paused && pause_at - sent < (long)want) {
            want = (size_t)(pause_at - sent);
        }
        size_t got = want ? fread(buf, 1, want, f) : 0;
        if (got && write_all(fd, buf, got) < 0) {
            _exit(0); /* the reader stopped early */
        }
        sent += (long)got;
        if (!paused && sent >= pause_at) {
            struct timespec ts = {pause_ms / 1000, (pause_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
            paused = 1;
            continue;
        }
        if (got == 0 && want != 0) {
            break;
        }
    }
    fclose(f);
    _exit(0);
}

int main(int argc, char **argv)
{
    int use_pty = 1, a = 1;
    if (a < argc && !strcmp(argv[a], "--no-pty")) {
        use_pty = 0;
        a++;
    }
    if (argc - a < 7 || strcmp(argv[a + 5], "--") != 0) {
        fprintf(stderr, "usage: pty_run [--no-pty] IN PAUSE_AT PAUSE_MS OUT ERR -- CMD [ARGS...]\n");
        return 2;
    }
    const char *in = argv[a], *out = argv[a + 3], *errpath = argv[a + 4];
    long pause_at = atol(argv[a + 1]), pause_ms = atol(argv[a + 2]);
    char **cmd = argv + a + 6;
    signal(SIGPIPE, SIG_IGN);

    int p[2];
    if (pipe(p) != 0) {
        perror("pipe");
        return 2;
    }
    pid_t feeder = fork();
    if (feeder == 0) {
        close(p[0]);
        feed(in, pause_at, pause_ms, p[1]);
    }
    close(p[1]);

    int master = -1, slave = -1;
    int errfd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int outfd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (errfd < 0 || outfd < 0) {
        perror("open");
        return 2;
    }
    if (use_pty && openpty(&master, &slave, NULL, NULL, NULL) != 0) {
        perror("openpty");
        return 2;
    }
    double t0 = now_ms();
    pid_t child = fork();
    if (child == 0) {
        dup2(p[0], 0);
        dup2(outfd, 1);
        dup2(use_pty ? slave : errfd, 2);
        execv(cmd[0], cmd);
        _exit(127);
    }
    close(p[0]);
    close(outfd);
    if (use_pty) {
        close(slave);
        char buf[4096];
        for (;;) {
            ssize_t r = read(master, buf, sizeof buf);
            if (r < 0 && errno == EINTR) {
                continue;
            }
            if (r <= 0) {
                break; /* EIO once the child's side is closed */
            }
            /* CR and LF made visible: the checks read the capture as text */
            for (ssize_t i = 0; i < r; i++) {
                const char *tok = buf[i] == '\r' ? "<CR>" : buf[i] == '\n' ? "<LF>\n" : NULL;
                if (write_all(errfd, tok ? tok : &buf[i], tok ? strlen(tok) : 1) < 0) {
                    return 2;
                }
            }
        }
        close(master);
    }
    close(errfd);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    double elapsed = now_ms() - t0;
    kill(feeder, SIGTERM);
    waitpid(feeder, NULL, 0);
    printf("exit=%d elapsed_ms=%.0f\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
           elapsed);
    return 0;
}
