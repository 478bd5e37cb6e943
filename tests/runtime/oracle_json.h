/* SPDX-License-Identifier: MIT */
/*
 * The oracle's JSONL (tests/runtime/README.md) in memory, for C tests: one parsed record per
 * line, on the tests' own small JSON reader (tests/support/testutil.h, tj), no other dependency.
 *
 *   oracle_json o;
 *   if (oracle_json_load(&o, "tests/data/traces/svr-bgc.oracle.jsonl", err, sizeof err) != 0) ...
 *   for (size_t i = 0; i < o.ngcs; i++) {
 *       double pause;
 *       if (oracle_num_double(tj_get(o.gcs[i], "PauseDurationMSec"), &pause) == 0) ...
 *   }
 *   oracle_json_free(&o);
 *
 * Records keep the oracle's order; the typed lists point into `records`.
 */
#ifndef GCEV_ORACLE_JSON_H
#define GCEV_ORACLE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "testutil.h"

typedef struct oracle_json {
    tj *records; /* every line, in order */
    size_t nrecords;
    const tj *trace;   /* the "trace" record (NULL if missing) */
    const tj *end;     /* the "end" record (NULL if the oracle did not finish) */
    const tj **events; /* "event" records */
    size_t nevents;
    const tj **counts; /* "count" records */
    size_t ncounts;
    const tj **gcs; /* "gc" records (TraceGC) */
    size_t ngcs;
    const tj **gcstats; /* "gcstats" records, one per process */
    size_t ngcstats;
} oracle_json;

/* Loads path; 0 on success, -1 with a message in err (file, line) otherwise. */
int oracle_json_load(oracle_json *o, const char *path, char *err, size_t errn);
void oracle_json_free(oracle_json *o);

/*
 * The same file as lines, parsed one at a time: for oracle outputs of large traces, whose
 * whole DOM would not fit in memory (a 64 MB trace gives ~200 MB of JSON).
 */
typedef struct oracle_lines {
    char *text;   /* the file, each line NUL-terminated */
    char **lines; /* non-empty lines, in order */
    size_t n;
} oracle_lines;

/* 0 on success, -1 with a message in err otherwise. */
int oracle_lines_load(oracle_lines *l, const char *path, char *err, size_t errn);
void oracle_lines_free(oracle_lines *l);
/* Parses line i into *out (tj_free() it); 0 on success, -1 when i is out of range or not JSON. */
int oracle_lines_parse(const oracle_lines *l, size_t i, tj *out);

/* The record's "record" member ("event", "gc", ...), or "" when absent. */
const char *oracle_record_type(const tj *rec);

/*
 * Numbers: 0 and *out on success, -1 when v is NULL, not a number, or does not fit.
 * oracle_num_double also accepts the oracle's "NaN", "Infinity", "-Infinity" strings.
 */
int oracle_num_i64(const tj *v, int64_t *out);
int oracle_num_u64(const tj *v, uint64_t *out);
int oracle_num_double(const tj *v, double *out);
/* String value or NULL. */
const char *oracle_str(const tj *v);

#endif
