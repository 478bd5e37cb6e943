/* SPDX-License-Identifier: MIT */
/*
 * Progress of a long command on standard error: only when stderr is a terminal,
 * by bytes read (percent of the file when its size is known) with the events
 * per second, rewritten in place at most every 100 ms and erased at the end, so
 * pipes, files and the command's own output never see it.
 */
#ifndef GCEV_CLI_PROGRESS_H
#define GCEV_CLI_PROGRESS_H

#include <gcev/gcev_trace.h>

typedef struct gcev_cli_progress {
    const char *cmd;
    const gcev_trace *t;
    int on;    /* stderr is a terminal */
    int shown; /* a line is on the terminal (width chars) */
    int width;
    unsigned ticks; /* events since the clock was last read */
    uint64_t events;
    uint64_t size;      /* the input's size when the trace does not know it (a stream), else 0 */
    double start, last; /* seconds */
} gcev_cli_progress;

/*
 * Starts progress for command cmd reading t: shown only when stderr is a terminal
 * and, for a command that prints as it reads (streams_output), stdout is not one
 * (its lines would be torn by the redraws; they show the progress themselves).
 */
void gcev_cli_progress_start(gcev_cli_progress *p, const char *cmd, const gcev_trace *t, int streams_output);
/* Sets the event count (for callers that count elsewhere) and maybe redraws. */
void gcev_cli_progress_at(gcev_cli_progress *p, uint64_t events);
/* One more event: reads the clock every 256 events and redraws when 100 ms passed. */
static inline void gcev_cli_progress_event(gcev_cli_progress *p)
{
    p->events++;
    if (p->on && ++p->ticks >= 256) {
        gcev_cli_progress_at(p, p->events);
    }
}
/* n more events at once (a batch): as n calls of gcev_cli_progress_event. */
static inline void gcev_cli_progress_events(gcev_cli_progress *p, unsigned n)
{
    p->events += n;
    if (p->on && (p->ticks += n) >= 256) {
        gcev_cli_progress_at(p, p->events);
    }
}
/* Erases the progress line, if one is shown. */
void gcev_cli_progress_end(gcev_cli_progress *p);

#endif
