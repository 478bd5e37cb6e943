/* SPDX-License-Identifier: MIT */
/*
 * gcev report: one self-contained HTML page that shows a trace's GC behaviour,
 * built from a finished GC analysis model (<gcev/gcev_stats.h>).
 *
 * What the page holds: warnings (dropped events, GCs open across a loss, GCs
 * without an end, a trace that ended early, payloads that did not decode) at the
 * top; a summary (GC mode and heap count, pauses, allocation, the per-generation
 * rollup of PerfView's GCStats); charts drawn as inline SVG by this builder (heap
 * size per generation before and after each GC, a pause timeline with background
 * GCs as spans, a pause histogram by generation, allocation over time, the heap
 * count over time when it changes); and a per-GC table, sortable and paged, that
 * the page's script fills from the per-GC values the builder embeds as JSON.
 * With the heap dumps of the same trace (gcev_report_extras.heaps), a heap
 * section: per dump, the types that retain the most as SVG bars and the type table
 * (objects, bytes, share, retained bytes), from <gcev/gcev_heap.h>.
 * Every number on the page comes from the model: the script only draws the
 * table, sorts it and shows a GC's values on hover.
 *
 * The page makes no network request (its Content-Security-Policy forbids every
 * fetch): no external font, script or stylesheet, so it opens from file://
 * offline. Each chart draws at most opts->max_marks GCs (default 2000): past that
 * it keeps, per time bucket, the GCs with the extreme values of what it plots (the
 * longest pause always shows). The page is at most 200 KB plus 400 bytes per GC
 * (plus, with heap dumps, about 50 KB and the type names of each dump shown).
 * Text from the trace or the caller (file names, process names, messages: any
 * bytes) is escaped; invalid UTF-8 and control characters show as U+FFFD.
 *
 * Thread-safety: the functions read the model and write only their own output;
 * several pages may be built from one model at once, as long as nothing feeds or
 * frees the model meanwhile.
 */
#ifndef GCEV_REPORT_H
#define GCEV_REPORT_H

#include <gcev/gcev_allocs.h>
#include <gcev/gcev_heap.h>
#include <gcev/gcev_stats.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Facts about what was analysed, none of which the model holds. Every member may
 * be NULL / 0. Strings are any bytes, NUL-terminated; they are only read during the
 * call.
 */
typedef struct gcev_report_facts {
    const char *source;          /* what was analysed: a file path, "pid 1234" ... (the page's title) */
    const gcev_trace_info *info; /* the trace's format, version, pointer size, process id, file size */
    const char *process_name;    /* the traced process's name or command line, when known */
    const char *read_error;      /* the trace ended with this error: the page warns that it is partial */
    const char *generator;       /* the producing tool and version ("gcev 0.1.0"), shown in the footer */
} gcev_report_facts;

typedef struct gcev_report_options {
    uint32_t max_marks; /* GCs drawn per chart at most; 0 = 2000; values below 64 count as 64 */
    uint32_t page_rows; /* table rows per page; 0 = 1000 (a table of up to 2000 GCs is one page) */
} gcev_report_options;

/*
 * What else the page shows, from other analyses of the same trace. The caller owns
 * it and sets size to sizeof(gcev_report_extras): the builder reads no member that
 * ends past size, so the record can grow in a minor release (doc/ABI.md) while a
 * program built against an older header keeps working. Every member may be NULL.
 */
typedef struct gcev_report_extras {
    size_t size;
    /* The trace's heap dumps (gcev_heap_read_trace / gcev_heap_read_file): a heap section
     * with the first 8 dumps. The builder analyses a dump that is not yet
     * (gcev_heap_analyze), so nothing else may use the set during the call. */
    gcev_heap_set *heaps;
    /* A finished allocation model of the trace (gcev_allocs.h): an allocation section (what
     * the estimates come from, the top types, an icicle graph of the allocating stacks). */
    const gcev_allocs *allocs;
} gcev_report_extras;

/*
 * Receives the page in pieces, in order. Returns 0 to go on, nonzero to stop (the
 * build then returns GCEV_E_IO).
 */
typedef int (*gcev_report_write_fn)(void *ctx, const char *data, size_t size);

/*
 * Builds the page of model s and hands it to write(ctx, ...). s must be finished
 * (gcev_stats_finish, or gcev_stats_read_trace which finishes it); a model with no
 * GC gives a page that says so. facts and opts may be NULL (no facts; defaults).
 * Returns GCEV_OK; GCEV_E_INVALID_ARG when s or write is NULL; GCEV_E_NOMEM; or
 * GCEV_E_IO when write returned nonzero (the page is then cut short; nothing is
 * retried); GCEV_E_UNSUPPORTED only from a library whose metric tables lack a value the
 * page shows (a defect its tests catch). The page is built in memory (its size, see above) before the first
 * write.
 */
GCEV_API gcev_status gcev_report_write(const gcev_stats *s, const gcev_report_facts *facts,
                                       const gcev_report_options *opts, gcev_report_write_fn write,
                                       void *ctx);

/*
 * The same, into one buffer: *html receives the page (NUL-terminated, malloc'ed;
 * free it with gcev_report_free) and *size its length without the NUL (size may be
 * NULL). Returns GCEV_OK, GCEV_E_INVALID_ARG (s or html NULL), GCEV_E_NOMEM or (as
 * above) GCEV_E_UNSUPPORTED; on
 * failure *html is NULL and *size 0.
 */
GCEV_API gcev_status gcev_report_build(const gcev_stats *s, const gcev_report_facts *facts,
                                       const gcev_report_options *opts, char **html, size_t *size);

/* gcev_report_write / gcev_report_build with extras (NULL: none, as those two), returning
 * their statuses (GCEV_OK, GCEV_E_INVALID_ARG, GCEV_E_NOMEM, GCEV_E_IO for the writer,
 * GCEV_E_UNSUPPORTED). */
GCEV_API gcev_status gcev_report_write_ex(const gcev_stats *s, const gcev_report_facts *facts,
                                          const gcev_report_options *opts, const gcev_report_extras *extras,
                                          gcev_report_write_fn write, void *ctx);
GCEV_API gcev_status gcev_report_build_ex(const gcev_stats *s, const gcev_report_facts *facts,
                                          const gcev_report_options *opts, const gcev_report_extras *extras,
                                          char **html, size_t *size);

/* Frees a page from gcev_report_build (NULL allowed). */
GCEV_API void gcev_report_free(char *html);

#ifdef __cplusplus
}
#endif

#endif /* GCEV_REPORT_H */
