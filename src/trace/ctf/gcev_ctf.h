/* SPDX-License-Identifier: MIT */
/*
 * The CTF (LTTng) reader as the trace API sees it: a trace is a set of named
 * files (a folder tree, or the entries of an archive), among which every
 * folder holding a "metadata" file is one CTF trace whose other files are its
 * streams.
 */
#ifndef GCEV_CTF_H
#define GCEV_CTF_H

#include "gcev_trace_core.h"

/* Limits on the file set (hostile archives and folder trees). */
enum { GCEV_CTF_MAX_FILES = 65536, GCEV_CTF_MAX_DIR_DEPTH = 16 };

/* A set of files: names are relative, '/'-separated; open() gives a byte source for one. */
typedef struct gcev_ctf_files {
    size_t n;
    const char *const *names;
    gcev_status (*open)(void *ctx, size_t i, gcev_source *src, gcev_error *err);
    void *ctx;
    void (*destroy)(void *ctx); /* called at close (may be NULL) */
} gcev_ctf_files;

/* 1 when the names hold at least one ".../metadata" (a CTF trace); a cheap test for detection. */
int gcev_ctf_detect_names(const char *const *names, size_t n);

/*
 * Opens the CTF traces among `files` (ownership of files->ctx passes to the
 * trace, also on failure). Sets t->ops, t->impl and t->info; events come in
 * timestamp order (per-CPU streams merged).
 */
gcev_status gcev_ctf_open(gcev_trace *t, const gcev_ctf_files *files, gcev_error *err);

/* Opens a folder tree (an extracted perfcollect .trace, or one LTTng trace folder). */
gcev_status gcev_ctf_open_dir(gcev_trace *t, const char *path, gcev_error *err);

#endif
