/* SPDX-License-Identifier: MIT */
#if !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L /* isatty, clock_gettime */
#include <unistd.h>
#define PROGRESS_ISATTY(fd) isatty(fd)
#else
#define WIN32_LEAN_AND_MEAN
#include <io.h>
#include <windows.h>
#define PROGRESS_ISATTY(fd) _isatty(fd)
#endif

#include "cli_progress.h"

#include <stdio.h>
#include <time.h>

enum { REDRAW_MS = 100 };

static double now_seconds(void)
{
#if defined(_WIN32)
    return (double)GetTickCount64() / 1000.0;
#else
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        return 0.0;
    }
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
#endif
}

void gcev_cli_progress_start(gcev_cli_progress *p, const char *cmd, const gcev_trace *t, int streams_output)
{
    p->cmd = cmd;
    p->t = t;
    p->on = PROGRESS_ISATTY(2) != 0 && !(streams_output && PROGRESS_ISATTY(1));
    p->shown = 0;
    p->width = 0;
    p->ticks = 0;
    p->events = 0;
    p->size = 0;
    p->start = p->last = p->on ? now_seconds() : 0.0;
}

/* 1234567 -> "1.23 M", 4567 -> "4.57 k" */
static void human(char *buf, size_t n, double v, const char *unit)
{
    if (v >= 1e9) {
        snprintf(buf, n, "%.2f G%s", v / 1e9, unit);
    } else if (v >= 1e6) {
        snprintf(buf, n, "%.2f M%s", v / 1e6, unit);
    } else if (v >= 1e3) {
        snprintf(buf, n, "%.1f k%s", v / 1e3, unit);
    } else {
        snprintf(buf, n, "%.0f %s", v, unit);
    }
}

void gcev_cli_progress_at(gcev_cli_progress *p, uint64_t events)
{
    p->events = events;
    p->ticks = 0;
    if (!p->on) {
        return;
    }
    double t = now_seconds();
    if ((t - p->last) * 1000.0 < REDRAW_MS) {
        return;
    }
    p->last = t;
    const gcev_trace_info *info = gcev_trace_get_info(p->t);
    uint64_t done = gcev_trace_bytes_read(p->t), size = info && info->file_size ? info->file_size : p->size;
    char bytes[32], total[32], evs[32], rate[32];
    human(bytes, sizeof bytes, (double)done, "B");
    human(total, sizeof total, (double)size, "B");
    human(evs, sizeof evs, (double)events, "events");
    double elapsed = t - p->start;
    human(rate, sizeof rate, elapsed > 0 ? (double)events / elapsed : 0.0, "events/s");
    char line[160];
    int len;
    if (size && done) {
        unsigned pct = (unsigned)(done >= size ? 100 : done * 100 / size);
        len = snprintf(line, sizeof line, "gcev %s: %3u%% of %s, %s, %s", p->cmd, pct, total, evs, rate);
    } else if (done) {
        len = snprintf(line, sizeof line, "gcev %s: %s read, %s, %s", p->cmd, bytes, evs, rate);
    } else {
        len = snprintf(line, sizeof line, "gcev %s: %s, %s", p->cmd, evs, rate);
    }
    if (len < 0) {
        return;
    }
    if (len > (int)sizeof line - 1) {
        len = (int)sizeof line - 1;
    }
    /* pad over a longer previous line */
    fprintf(stderr, "\r%s%*s", line, p->width > len ? p->width - len : 0, "");
    fflush(stderr);
    p->width = len > p->width ? len : p->width;
    p->shown = 1;
}

void gcev_cli_progress_end(gcev_cli_progress *p)
{
    if (p->on && p->shown) {
        fprintf(stderr, "\r%*s\r", p->width, "");
        fflush(stderr);
    }
    p->shown = 0;
}
