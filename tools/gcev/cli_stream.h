/* SPDX-License-Identifier: MIT */
/*
 * A trace file that a command reads once, front to back, in file order (gcev count): a
 * NetTrace file is handed to the reader as a stream of read() calls into its window
 * rather than opened with gcev_trace_open_file.
 *
 * Why: gcev_trace_open_file reads a file of 2-256 MiB whole into fresh 2 MiB pages before
 * the first event (right for walks that go back, and cheaper than mapping it on a virtual
 * machine), which costs the kernel zeroing and freeing as many pages as the file has bytes;
 * a single pass needs only a window of about a block, which stays in the cache. On the 47 MB
 * NetTrace V4 trace of bench/whole_process.sh that is about a tenth of `gcev count`'s CPU
 * time. NetPerf files keep the file path: their reader walks a stream much more slowly (the
 * 42 MB NetPerf V3 trace: 190 ms against 15 ms), and so do standard input, --keep-going (its
 * resynchronisation is tested on whole files) and platforms without POSIX read().
 */
#ifndef GCEV_CLI_STREAM_H
#define GCEV_CLI_STREAM_H

#include <gcev/gcev_trace.h>

#include <stdint.h>

typedef struct gcev_cli_stream {
    int fd;        /* -1: the trace was opened by path (or is closed) */
    uint64_t size; /* the file's size when streamed, else 0 */
} gcev_cli_stream;

/* As gcev_cli_open_trace(), streaming FILE through s when it is a NetTrace file (above);
 * s must stay where it is until gcev_cli_stream_close(). */
int gcev_cli_open_trace_once(const char *cmd, const char *path, const gcev_trace_options *opts,
                             gcev_cli_stream *s, gcev_trace **out);
/* Closes t, then the stream's file. */
void gcev_cli_stream_close(gcev_cli_stream *s, gcev_trace *t);

#endif
