/* SPDX-License-Identifier: MIT */
/* What the page builder's units share: the page being built and the chart geometry. */
#ifndef GCEV_REPORT_INTERNAL_H
#define GCEV_REPORT_INTERNAL_H

#include <gcev/gcev_report.h>

#include "gcev_report_buf.h"

/* Chart geometry, in SVG viewBox units: the plot area is [PLOT_L, PLOT_L + PLOT_W] x [PLOT_T, PLOT_T +
 * PLOT_H]. */
enum {
    GCEV_REPORT_VIEW_W = 800,
    GCEV_REPORT_VIEW_H = 264,
    GCEV_REPORT_PLOT_L = 72,
    GCEV_REPORT_PLOT_T = 12,
    GCEV_REPORT_PLOT_W = 800 - 72 - 14,
    GCEV_REPORT_PLOT_H = 264 - 12 - 52
};

/* The number of GCs a page shows on one table page when the options do not say. */
enum { GCEV_REPORT_DEFAULT_MARKS = 2000, GCEV_REPORT_MIN_MARKS = 64, GCEV_REPORT_DEFAULT_ROWS = 1000 };

typedef struct gcev_rep {
    const gcev_stats *s;
    const gcev_stats_summary *sum;
    size_t n;           /* GCs */
    uint32_t max_marks; /* GCs per chart at most */
    double t0, t1;      /* time domain of the time charts, ms (t1 > t0) */
    gcev_rb *b;         /* the page */
    gcev_rb *ix;        /* chart indexes for the data JSON: `"name":[i,...]` or `"name":null` members */
    double *t;          /* n: GC start times */
    double *key;        /* n: scratch */
    unsigned char *has; /* n: scratch */
    uint32_t *sel;      /* n: scratch, selected GC indexes */
} gcev_rep;

/*
 * Chooses at most max of the n GCs (t: start times, ascending): all of them when
 * n <= max; else max / 2 equal time buckets over [t[0], t[n-1]], and of each
 * bucket the GCs with the smallest and largest key among those whose has[] is set
 * (or the bucket's first GC when none is). Writes indexes in ascending order to
 * out (n elements) and returns their count.
 */
size_t gcev_report_decimate(const double *t, const double *key, const unsigned char *has, size_t n,
                            size_t max, uint32_t *out);

/* The charts (gcev_report_charts.c); each writes a <figure> or nothing when it has no data. */
void gcev_report_chart_heap(gcev_rep *r);
void gcev_report_chart_pause(gcev_rep *r);
void gcev_report_chart_histogram(gcev_rep *r);
void gcev_report_chart_alloc(gcev_rep *r);
void gcev_report_chart_heap_count(gcev_rep *r);
/* The allocation section (gcev_report_allocs.c): nothing when a is NULL or holds no sample. */
void gcev_report_allocs_section(gcev_rb *b, const gcev_allocs *a);
/* The heap section (gcev_report_heap.c): nothing when set is NULL or holds no dump. */
void gcev_report_heap_section(gcev_rb *b, gcev_heap_set *set);

/* The page's stylesheet and script (page.css, page.js, embedded at build time). */
extern const char gcev_report_css[];
extern const char gcev_report_js[];

#endif
