/* SPDX-License-Identifier: MIT */
/*
 * The charts, drawn here as inline SVG: every coordinate, tick and bucket is
 * computed by the builder, so the page's script only adds hover and click.
 * Time charts share one x scale (rep->t0 .. t1, ms) and the page's data lists,
 * for each, which GCs it drew (null: all of them) for the script's hover look-up.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcev_report_internal.h"

#define L ((double)GCEV_REPORT_PLOT_L)
#define T ((double)GCEV_REPORT_PLOT_T)
#define W ((double)GCEV_REPORT_PLOT_W)
#define H ((double)GCEV_REPORT_PLOT_H)

size_t gcev_report_decimate(const double *t, const double *key, const unsigned char *has, size_t n,
                            size_t max, uint32_t *out)
{
    if (n <= max) {
        for (size_t i = 0; i < n; i++) {
            out[i] = (uint32_t)i;
        }
        return n;
    }
    size_t buckets = max / 2 ? max / 2 : 1;
    double lo = t[0], span = t[n - 1] - t[0];
    size_t k = 0, i = 0;
    while (i < n) {
        size_t b = span > 0 ? (size_t)((t[i] - lo) / span * (double)buckets) : 0;
        if (b >= buckets) {
            b = buckets - 1;
        }
        size_t first = i, imin = SIZE_MAX, imax = SIZE_MAX;
        for (; i < n; i++) {
            size_t bi = span > 0 ? (size_t)((t[i] - lo) / span * (double)buckets) : 0;
            if (bi >= buckets) {
                bi = buckets - 1;
            }
            if (bi != b) {
                break;
            }
            if (has[i]) {
                if (imin == SIZE_MAX || key[i] < key[imin]) {
                    imin = i;
                }
                if (imax == SIZE_MAX || key[i] > key[imax]) {
                    imax = i;
                }
            }
        }
        if (imin == SIZE_MAX) {
            out[k++] = (uint32_t)first;
        } else if (imin == imax) {
            out[k++] = (uint32_t)imin;
        } else {
            out[k++] = (uint32_t)(imin < imax ? imin : imax);
            out[k++] = (uint32_t)(imin < imax ? imax : imin);
        }
    }
    return k;
}

/* ---- scales and axes ---------------------------------------------------- */

/* A 1-2-5 step giving at most about `target` ticks over [0, hi]. */
static double nice_step(double hi, int target)
{
    if (!(hi > 0)) {
        return 1;
    }
    double raw = hi / target;
    double p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static int step_decimals(double step)
{
    int d = 0;
    while (d < 6 && fabs(step * pow(10, d) - floor(step * pow(10, d) + 0.5)) > 1e-6) {
        d++;
    }
    return d;
}

static double xpos(const gcev_rep *r, double ms)
{
    double x = L + (ms - r->t0) / (r->t1 - r->t0) * W;
    return x < L ? L : x > L + W ? L + W : x;
}

static void open_svg(gcev_rep *r, const char *id, const char *title, const char *label)
{
    gcev_rb *b = r->b;
    gcev_rb_printf(b, "<figure class=\"chart\" id=\"chart-%s\"><figcaption>%s</figcaption>", id, title);
    gcev_rb_printf(b,
                   "<svg data-chart=\"%s\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\" "
                   "preserveAspectRatio=\"xMinYMin meet\">",
                   id, GCEV_REPORT_VIEW_W, GCEV_REPORT_VIEW_H, label);
}

/* Horizontal grid and labels for [0, ymax]; the y-axis title names the unit. */
static void y_axis(gcev_rep *r, double ymax, double step, int dec, const char *unit)
{
    gcev_rb *b = r->b;
    gcev_rb_puts(b, "<g class=\"axis y\">");
    for (int i = 0; i * step <= ymax * (1 + 1e-9); i++) {
        double v = i * step, y = T + H - v / ymax * H;
        gcev_rb_puts(b, "<line x1=\"");
        gcev_rb_num(b, L, 1);
        gcev_rb_puts(b, "\" x2=\"");
        gcev_rb_num(b, L + W, 1);
        gcev_rb_puts(b, "\" y1=\"");
        gcev_rb_num(b, y, 1);
        gcev_rb_puts(b, "\" y2=\"");
        gcev_rb_num(b, y, 1);
        gcev_rb_puts(b, "\"/><text x=\"");
        gcev_rb_num(b, L - 6, 1);
        gcev_rb_puts(b, "\" y=\"");
        gcev_rb_num(b, y + 4, 1);
        gcev_rb_puts(b, "\" text-anchor=\"end\">");
        gcev_rb_num(b, v, dec);
        gcev_rb_puts(b, "</text>");
    }
    gcev_rb_printf(b,
                   "<text class=\"title\" transform=\"translate(16 %d) rotate(-90)\" text-anchor=\"middle\">",
                   (int)(T + H / 2));
    gcev_rb_puts(b, unit);
    gcev_rb_puts(b, "</text></g>");
}

/* The time axis every time chart shares: seconds when the domain spans 2 s or more, else ms. */
static void x_time_axis(gcev_rep *r)
{
    gcev_rb *b = r->b;
    double span = r->t1 - r->t0;
    int secs = span >= 2000;
    double unit = secs ? 1000 : 1;
    double step = nice_step(span / unit, 8) * unit;
    int dec = step_decimals(step / unit);
    gcev_rb_puts(b, "<g class=\"axis x\">");
    double first = ceil(r->t0 / step);
    for (int i = 0; (first + i) * step <= r->t1 + step * 1e-9 && i < 64; i++) {
        double v = (first + i) * step, x = xpos(r, v);
        gcev_rb_puts(b, "<line x1=\"");
        gcev_rb_num(b, x, 1);
        gcev_rb_puts(b, "\" x2=\"");
        gcev_rb_num(b, x, 1);
        gcev_rb_printf(b, "\" y1=\"%d\" y2=\"%d\"/><text x=\"", (int)T, (int)(T + H + 5));
        gcev_rb_num(b, x, 1);
        gcev_rb_printf(b, "\" y=\"%d\" text-anchor=\"middle\">", (int)(T + H + 21));
        gcev_rb_num(b, v / unit, dec);
        gcev_rb_puts(b, "</text>");
    }
    gcev_rb_printf(
        b,
        "<text class=\"title\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">Time since trace start (%s)</text>",
        (int)(L + W / 2), (int)(T + H + 47), secs ? "s" : "ms");
    gcev_rb_puts(b, "</g>");
}

/* Records which GCs chart `id` drew (null: every GC, in order). */
static void index_list(gcev_rep *r, const char *id, size_t k)
{
    gcev_rb *ix = r->ix;
    gcev_rb_printf(ix, "%s\"%s\":", ix->n ? "," : "", id);
    if (k == r->n) {
        gcev_rb_puts(ix, "null");
        return;
    }
    gcev_rb_putc(ix, '[');
    for (size_t i = 0; i < k; i++) {
        gcev_rb_printf(ix, "%s%u", i ? "," : "", r->sel[i]);
    }
    gcev_rb_putc(ix, ']');
}

static void close_svg(gcev_rep *r, int guide)
{
    if (guide) {
        gcev_rb_printf(r->b,
                       "<line class=\"guide\" x1=\"0\" x2=\"0\" y1=\"%d\" y2=\"%d\" visibility=\"hidden\"/>",
                       (int)T, (int)(T + H));
    }
    gcev_rb_puts(r->b, "</svg>");
}

static const char *const gen_label[GCEV_STATS_GENS] = {"gen0", "gen1", "gen2", "LOH", "POH"};

static void legend_item(gcev_rb *b, const char *cls, const char *text, const char *series)
{
    if (series) {
        gcev_rb_printf(b, "<button type=\"button\" class=\"key\" data-s=\"%s\" aria-pressed=\"true\">",
                       series);
    } else {
        gcev_rb_puts(b, "<span class=\"key\">");
    }
    gcev_rb_printf(b, "<i class=\"sw %s\"></i>%s", cls, text);
    gcev_rb_puts(b, series ? "</button>" : "</span>");
}

/* ---- heap size per generation -------------------------------------------- */

/* Stacking order, bottom first: the steady generations under the one that churns. */
static const int stack_order[GCEV_STATS_GENS] = {2, 3, 4, 1, 0};

static uint64_t gen_size(const gcev_stats *s, const gcev_stats_gc *g, int gen, int after)
{
    const gcev_stats_gen_heap *h = gcev_stats_gc_gen_at(s, g, (unsigned)gen);
    uint32_t bit = after ? GCEV_STATS_HEAP_HAS_SIZE_AFTER : GCEV_STATS_HEAP_HAS_SIZE_BEFORE;
    return (h->present & bit) ? (after ? h->size_after : h->size_before) : 0;
}

/* Which generations have a size (before or after) in some GC: bit per generation. */
static int heap_gens(const gcev_rep *r, int after)
{
    int gens = 0;
    uint32_t bit = after ? GCEV_STATS_HEAP_HAS_SIZE_AFTER : GCEV_STATS_HEAP_HAS_SIZE_BEFORE;
    for (size_t i = 0; i < r->n; i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        for (int k = 0; k < GCEV_STATS_GENS; k++) {
            gens |= (gcev_stats_gc_gen_at(r->s, g, (unsigned)k)->present & bit) ? 1 << k : 0;
        }
    }
    return gens;
}

/* The largest heap (sum of generations) before or after a GC, over all GCs: both charts share it. */
static double heap_top(const gcev_rep *r, int gens_before, int gens_after, double *step)
{
    double ymax = 0;
    for (size_t i = 0; i < r->n; i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        double tb = 0, ta = 0;
        for (int k = 0; k < GCEV_STATS_GENS; k++) {
            tb += (gens_before & (1 << k)) ? (double)gen_size(r->s, g, k, 0) : 0;
            ta += (gens_after & (1 << k)) ? (double)gen_size(r->s, g, k, 1) : 0;
        }
        ymax = tb > ymax ? tb : ymax;
        ymax = ta > ymax ? ta : ymax;
    }
    double mb = ymax > 0 ? ymax / 1e6 : 1;
    *step = nice_step(mb, 5);
    return ceil(mb / *step) * *step;
}

static void heap_chart(gcev_rep *r, int after, int gens, double top, double step)
{
    uint32_t bit = after ? GCEV_STATS_HEAP_HAS_SIZE_AFTER : GCEV_STATS_HEAP_HAS_SIZE_BEFORE;
    for (size_t i = 0; i < r->n; i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        double total = 0;
        int has = 0;
        for (int k = 0; k < GCEV_STATS_GENS; k++) {
            has |= (gcev_stats_gc_gen_at(r->s, g, (unsigned)k)->present & bit) != 0;
            total += (double)gen_size(r->s, g, k, after);
        }
        /* per bucket: the GCs with the largest and the smallest heap */
        r->has[i] = (unsigned char)has;
        r->key[i] = total;
    }
    size_t k = gcev_report_decimate(r->t, r->key, r->has, r->n, r->max_marks, r->sel);
    const char *id = after ? "heap-after" : "heap-before";
    if (after) {
        open_svg(r, id, "Heap size after each GC, by generation (stacked)",
                 "Heap size in MB after each GC, stacked by generation, over time");
    } else {
        open_svg(r, id, "Heap size before each GC, by generation (stacked)",
                 "Heap size in MB before each GC, stacked by generation, over time");
    }
    y_axis(r, top, step, step_decimals(step), "Size (MB)");
    x_time_axis(r);
    gcev_rb *b = r->b;
    /* One stacked column per GC drawn, at its start: the sizes are known at GCs only, and a line or
     * area between two GCs would draw a heap that grew or shrank steadily, which nobody measured
     * (13 GCs, one ramp from 11 to 38 MB). One path of vertical strokes per generation keeps the
     * page small: about 16 bytes per GC and generation. */
    double bw = W / (double)(k ? k : 1) * 0.7;
    bw = bw < 1 ? 1 : bw > 8 ? 8 : bw;
    for (int layer = 0; layer < GCEV_STATS_GENS; layer++) {
        int q = stack_order[layer];
        if (!(gens & (1 << q))) {
            continue;
        }
        gcev_rb_printf(b, "<path class=\"col s%d\" data-s=\"s%d\" stroke-width=\"", q, q);
        gcev_rb_num(b, bw, 1);
        gcev_rb_puts(b, "\" d=\"");
        for (size_t j = 0; j < k; j++) {
            uint32_t i = r->sel[j];
            if (!r->has[i]) {
                continue;
            }
            const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
            double below = 0, size = (double)gen_size(r->s, g, q, after);
            for (int l = 0; l < layer; l++) {
                below += (double)gen_size(r->s, g, stack_order[l], after);
            }
            double y0 = T + H - below / 1e6 / top * H, y1 = T + H - (below + size) / 1e6 / top * H;
            if (y0 - y1 < 0.5) {
                continue; /* under half a unit: nothing to see */
            }
            gcev_rb_putc(b, 'M');
            gcev_rb_num(b, xpos(r, r->t[i]), 1);
            gcev_rb_putc(b, ' ');
            gcev_rb_num(b, y0, 0);
            gcev_rb_putc(b, 'V');
            gcev_rb_num(b, y1, 0);
        }
        gcev_rb_puts(b, "\"/>");
    }
    close_svg(r, 1);
    index_list(r, id, k);
    gcev_rb_puts(b, "<div class=\"legend\">");
    for (int layer = GCEV_STATS_GENS - 1; layer >= 0; layer--) {
        int q = stack_order[layer];
        if (gens & (1 << q)) {
            char sname[8];
            snprintf(sname, sizeof sname, "s%d", q);
            legend_item(b, sname, gen_label[q], sname);
        }
    }
    if (after) {
        gcev_rb_puts(
            b, "<span class=\"note\">One column per GC: GCHeapStats generation sizes when it ended (the heap "
               "between two GCs is not in the trace); MB = 10<sup>6</sup> bytes. Click a name to hide "
               "it.</span></div></figure>");
    } else {
        gcev_rb_puts(b, "<span class=\"note\">One column per GC: GCPerHeapHistory sizes when it started, "
                        "summed over the GC heaps; same scale as the chart after. Click a name to hide "
                        "it.</span></div></figure>");
    }
}

void gcev_report_chart_heap(gcev_rep *r)
{
    int before = heap_gens(r, 0), after = heap_gens(r, 1);
    if (!before && !after) {
        return;
    }
    double step, top = heap_top(r, before, after, &step);
    if (before) {
        heap_chart(r, 0, before, top, step);
    }
    if (after) {
        heap_chart(r, 1, after, top, step);
    }
}

/* ---- pause timeline ------------------------------------------------------ */

static int gen_class(const gcev_stats_gc *g)
{
    return (g->present & GCEV_STATS_GC_HAS_GENERATION) && g->generation <= 2 ? (int)g->generation : 3;
}

static int type_class(const gcev_stats_gc *g)
{
    return (g->present & GCEV_STATS_GC_HAS_TYPE) && g->type <= 2 ? (int)g->type : 0;
}

/* A background GC's span (gc >= 0), or a column shaded by the share of it (opacity < 1) that BGCs ran. */
static void span_rect(gcev_rb *b, double x0, double x1, long gc, double opacity)
{
    double w = x1 - x0 < 1 ? 1 : x1 - x0;
    gcev_rb_puts(b, opacity < 1 ? "<rect class=\"span dens\" x=\"" : "<rect class=\"span\" x=\"");
    gcev_rb_num(b, x0, 1);
    gcev_rb_printf(b, "\" y=\"%d\" width=\"", (int)T);
    gcev_rb_num(b, w, 1);
    gcev_rb_printf(b, "\" height=\"%d\"", (int)H);
    if (gc >= 0) {
        gcev_rb_printf(b, " data-i=\"%ld\"", gc);
    }
    if (opacity < 1) {
        gcev_rb_puts(b, " fill-opacity=\"");
        gcev_rb_num(b, opacity, 2);
        gcev_rb_putc(b, '"');
    }
    gcev_rb_puts(b, "/>");
}

/* The column of max_spans (each cw ms wide) that time ms falls in. */
static size_t span_column(const gcev_rep *r, double ms, double cw, size_t max_spans)
{
    double c = (ms - r->t0) / cw;
    return c <= 0 ? 0 : c >= (double)(max_spans - 1) ? max_spans - 1 : (size_t)c;
}

void gcev_report_chart_pause(gcev_rep *r)
{
    if (r->n == 0) {
        return;
    }
    size_t bgcs = 0;
    for (size_t i = 0; i < r->n; i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        r->has[i] = (g->present & GCEV_STATS_GC_HAS_PAUSE) != 0;
        r->key[i] = g->pause_ms;
        bgcs += (g->present & GCEV_STATS_GC_HAS_TYPE) && g->type == GCEV_STATS_BACKGROUND &&
                (g->present & GCEV_STATS_GC_HAS_END);
    }
    /* past max_marks GCs, background GC spans take at most a tenth of the chart's marks */
    size_t max_spans = r->max_marks / 10;
    int decimating = r->n > r->max_marks;
    size_t budget = r->max_marks - (decimating && bgcs ? max_spans : 0);
    size_t k = gcev_report_decimate(r->t, r->key, r->has, r->n, budget, r->sel);
    double ymax = 0;
    for (size_t j = 0; j < k; j++) {
        if (r->has[r->sel[j]] && r->key[r->sel[j]] > ymax) {
            ymax = r->key[r->sel[j]];
        }
    }
    double step = nice_step(ymax > 0 ? ymax : 1, 5);
    double top = ceil((ymax > 0 ? ymax : 1) / step) * step;
    open_svg(r, "pause", "GC pauses over time (each GC at its start; height: its pause)",
             "GC pauses in ms over time, background GCs as shaded spans");
    y_axis(r, top, step, step_decimals(step), "Pause (ms)");
    x_time_axis(r);
    gcev_rb *b = r->b;
    gcev_rb_puts(b, "<g class=\"spans\">");
    if (!decimating) {
        for (size_t i = 0; i < r->n; i++) {
            const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
            if ((g->present & GCEV_STATS_GC_HAS_TYPE) && g->type == GCEV_STATS_BACKGROUND &&
                (g->present & GCEV_STATS_GC_HAS_END)) {
                span_rect(b, xpos(r, g->start_ms), xpos(r, g->end_ms), (long)i, 1);
            }
        }
    } else if (bgcs && max_spans) {
        /* max_spans columns, each shaded by the share of its time some background GC ran */
        double *cover = calloc(max_spans, sizeof *cover);
        double cw = (r->t1 - r->t0) / (double)max_spans;
        if (!cover) {
            r->b->oom = 1;
            return;
        }
        for (size_t i = 0; i < r->n; i++) {
            const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
            if (!((g->present & GCEV_STATS_GC_HAS_TYPE) && g->type == GCEV_STATS_BACKGROUND &&
                  (g->present & GCEV_STATS_GC_HAS_END))) {
                continue;
            }
            size_t c0 = span_column(r, g->start_ms, cw, max_spans),
                   c1 = span_column(r, g->end_ms, cw, max_spans);
            for (size_t c = c0; c <= c1; c++) {
                double lo = r->t0 + (double)c * cw, hi = lo + cw;
                double from = g->start_ms > lo ? g->start_ms : lo, to = g->end_ms < hi ? g->end_ms : hi;
                cover[c] += to > from ? to - from : 0;
            }
        }
        for (size_t c = 0; c < max_spans; c++) {
            if (cover[c] > 0) {
                /* opacity 0.03 (a short BGC stays visible) to 0.2 (BGCs ran the whole column) */
                double f = cover[c] / cw;
                f = 0.03 + 0.17 * (f > 1 ? 1 : f);
                span_rect(b, L + W * (double)c / (double)max_spans,
                          L + W * (double)(c + 1) / (double)max_spans, -1, f);
            }
        }
        free(cover);
    }
    gcev_rb_puts(b, "</g><g class=\"marks\">");
    double bw = W / (double)(k ? k : 1) * 0.7;
    bw = bw < 1 ? 1 : bw > 8 ? 8 : bw;
    for (size_t j = 0; j < k; j++) {
        uint32_t i = r->sel[j];
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        double x = xpos(r, g->start_ms) - bw / 2, h;
        if (r->has[i]) {
            h = r->key[i] / top * H;
            h = h < 1 ? 1 : h;
            gcev_rb_printf(b, "<rect class=\"mark g%d t%d\" data-i=\"%u\" x=\"", gen_class(g), type_class(g),
                           i);
        } else {
            h = 3;
            gcev_rb_printf(b, "<rect class=\"mark nop\" data-i=\"%u\" x=\"", i);
        }
        gcev_rb_num(b, x, 1);
        gcev_rb_puts(b, "\" y=\"");
        gcev_rb_num(b, T + H - h, 1);
        gcev_rb_puts(b, "\" width=\"");
        gcev_rb_num(b, bw, 1);
        gcev_rb_puts(b, "\" height=\"");
        gcev_rb_num(b, h, 1);
        gcev_rb_puts(b, "\"/>");
    }
    gcev_rb_puts(b, "</g>");
    close_svg(r, 1);
    index_list(r, "pause", k);
    gcev_rb_puts(b, "<div class=\"legend\">");
    legend_item(b, "g0", "gen0", NULL);
    legend_item(b, "g1", "gen1", NULL);
    legend_item(b, "g2", "gen2", NULL);
    legend_item(b, "t0", "blocking (filled)", NULL);
    legend_item(b, "t1", "background (outlined)", NULL);
    legend_item(b, "t2", "foreground, during a BGC (dark edge)", NULL);
    if (bgcs) {
        legend_item(b, "span",
                    decimating ? "background GCs running (shade: share of the time)"
                               : "background GC, start to end",
                    NULL);
    }
    legend_item(b, "nop", "pause not in the trace", NULL);
    gcev_rb_puts(b, "<span class=\"note\">Click a mark to see its GC in the table.</span></div></figure>");
}

/* ---- pause histogram ----------------------------------------------------- */

static const double hist_edges[] = {0.1, 0.2, 0.3, 0.5,  0.7,  1,    1.5,  2,    3,   5,
                                    7,   10,  15,  20,   30,   50,   70,   100,  150, 200,
                                    300, 500, 700, 1000, 1500, 2000, 5000, 10000};
enum { HIST_BINS = sizeof hist_edges / sizeof hist_edges[0] + 1 };

static void bin_label(gcev_rb *b, int k)
{
    if (k == 0) {
        gcev_rb_puts(b, "&lt;");
        gcev_rb_num(b, hist_edges[0], 1);
    } else if (k == HIST_BINS - 1) {
        gcev_rb_puts(b, "&ge;");
        gcev_rb_num(b, hist_edges[k - 1], 1);
    } else {
        gcev_rb_num(b, hist_edges[k - 1], 1);
        gcev_rb_puts(b, "&ndash;");
        gcev_rb_num(b, hist_edges[k], 1);
    }
}

void gcev_report_chart_histogram(gcev_rep *r)
{
    uint64_t count[HIST_BINS][3];
    memset(count, 0, sizeof count);
    uint64_t any = 0, cmax = 0;
    for (size_t i = 0; i < r->n; i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        int gen = gen_class(g);
        if (!(g->present & GCEV_STATS_GC_HAS_PAUSE) || gen > 2) {
            continue;
        }
        int k = 0;
        while (k < HIST_BINS - 1 && g->pause_ms >= hist_edges[k]) {
            k++;
        }
        uint64_t c = ++count[k][gen];
        cmax = c > cmax ? c : cmax;
        any++;
    }
    if (!any) {
        return;
    }
    int lo = 0, hi = HIST_BINS - 1;
    while (!(count[lo][0] | count[lo][1] | count[lo][2])) {
        lo++;
    }
    while (!(count[hi][0] | count[hi][1] | count[hi][2])) {
        hi--;
    }
    double step = nice_step((double)cmax, 5);
    step = step < 1 ? 1 : step;
    double top = ceil((double)cmax / step) * step;
    open_svg(r, "hist", "Pause histogram by generation", "Number of GCs per pause range, by generation");
    y_axis(r, top, step, 0, "GCs");
    gcev_rb *b = r->b;
    int nb = hi - lo + 1;
    double gw = W / nb, bw = gw * 0.8 / 3;
    /* labels at the bins' edges (every other one when they would crowd) */
    gcev_rb_puts(b, "<g class=\"axis x\">");
    int every = nb > 12 ? 2 : 1;
    for (int k = lo; k <= hi + 1; k++) {
        if ((k - lo) % every != 0 || k == HIST_BINS) {
            continue;
        }
        gcev_rb_puts(b, "<text x=\"");
        gcev_rb_num(b, L + gw * (k - lo), 1);
        gcev_rb_printf(b, "\" y=\"%d\" text-anchor=\"middle\">", (int)(T + H + 21));
        gcev_rb_num(b, k == 0 ? 0 : hist_edges[k - 1], 1);
        gcev_rb_puts(b, "</text>");
    }
    gcev_rb_printf(b, "<text class=\"title\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">Pause (ms)</text></g>",
                   (int)(L + W / 2), (int)(T + H + 47));
    gcev_rb_puts(b, "<g class=\"bars\">");
    for (int k = lo; k <= hi; k++) {
        for (int gen = 0; gen < 3; gen++) {
            uint64_t c = count[k][gen];
            if (!c) {
                continue;
            }
            double h = (double)c / top * H;
            gcev_rb_printf(b, "<rect class=\"bar g%d\" data-count=\"%llu\" x=\"", gen, (unsigned long long)c);
            gcev_rb_num(b, L + gw * (k - lo) + gw * 0.1 + bw * gen, 1);
            gcev_rb_puts(b, "\" y=\"");
            gcev_rb_num(b, T + H - h, 1);
            gcev_rb_puts(b, "\" width=\"");
            gcev_rb_num(b, bw, 1);
            gcev_rb_puts(b, "\" height=\"");
            gcev_rb_num(b, h, 1);
            gcev_rb_printf(b, "\"><title>gen%d: %llu GC%s with a pause of ", gen, (unsigned long long)c,
                           c == 1 ? "" : "s");
            bin_label(b, k);
            gcev_rb_puts(b, " ms</title></rect>");
        }
    }
    gcev_rb_puts(b, "</g>");
    close_svg(r, 0);
    gcev_rb_puts(b, "<div class=\"legend\">");
    legend_item(b, "g0", "gen0", NULL);
    legend_item(b, "g1", "gen1", NULL);
    legend_item(b, "g2", "gen2", NULL);
    gcev_rb_puts(b, "<span class=\"note\">Bars between two marks count the GCs whose pause is at least the "
                    "left one and below the right one.</span></div></figure>");
}

/* ---- allocation ---------------------------------------------------------- */

/* The GCs that have the value (has/key filled by the caller): a step line for a count, else a column
 * per GC. */
static void time_line(gcev_rep *r, const char *id, const char *title, const char *label, const char *unit,
                      const char *note, int integer)
{
    size_t k = gcev_report_decimate(r->t, r->key, r->has, r->n, r->max_marks, r->sel);
    double ymax = 0;
    for (size_t j = 0; j < k; j++) {
        if (r->has[r->sel[j]] && r->key[r->sel[j]] > ymax) {
            ymax = r->key[r->sel[j]];
        }
    }
    double step = nice_step(ymax > 0 ? ymax : 1, 5);
    if (integer && step < 1) {
        step = 1;
    }
    double top = ceil((ymax > 0 ? ymax : 1) / step) * step;
    if (integer && top <= ymax) {
        top += step; /* a heap-count line on the top edge is hard to see */
    }
    open_svg(r, id, title, label);
    y_axis(r, top, step, step_decimals(step), unit);
    x_time_axis(r);
    gcev_rb *b = r->b;
    if (integer) {
        /* a count holds until the next GC changes it: steps (H then V), not slopes */
        gcev_rb_printf(b, "<path class=\"line %s\" d=\"", id);
        int first = 1;
        for (size_t j = 0; j < k; j++) {
            uint32_t i = r->sel[j];
            if (!r->has[i]) {
                continue;
            }
            gcev_rb_puts(b, first ? "M" : "H");
            gcev_rb_num(b, xpos(r, r->t[i]), 0);
            gcev_rb_puts(b, first ? " " : "V");
            gcev_rb_num(b, T + H - r->key[i] / top * H, 0);
            first = 0;
        }
        gcev_rb_puts(b, "\"/>");
    } else {
        /* a value per GC, not a curve: a column at each GC (a line would invent the values between) */
        double bw = W / (double)(k ? k : 1) * 0.7;
        bw = bw < 1 ? 1 : bw > 4 ? 4 : bw;
        gcev_rb_printf(b, "<path class=\"col %s\" stroke-width=\"", id);
        gcev_rb_num(b, bw, 1);
        gcev_rb_puts(b, "\" d=\"");
        for (size_t j = 0; j < k; j++) {
            uint32_t i = r->sel[j];
            if (!r->has[i]) {
                continue;
            }
            double v = r->key[i] > 0 ? r->key[i] : 0;
            gcev_rb_putc(b, 'M');
            gcev_rb_num(b, xpos(r, r->t[i]), 1);
            gcev_rb_printf(b, " %dV", (int)(T + H));
            gcev_rb_num(b, T + H - v / top * H - 1, 0); /* at least a unit: a zero shows as a dot */
        }
        gcev_rb_puts(b, "\"/>");
    }
    close_svg(r, 1);
    index_list(r, id, k);
    gcev_rb_printf(b, "<div class=\"legend\"><span class=\"note\">%s</span></div></figure>", note);
}

void gcev_report_chart_alloc(gcev_rep *r)
{
    int rate = 0, amount = 0;
    for (size_t i = 0; i < r->n; i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        rate |= (g->present & GCEV_STATS_GC_HAS_ALLOC_RATE) != 0;
        amount |= (g->present & GCEV_STATS_GC_HAS_ALLOCATED) != 0;
    }
    if (!rate && !amount) {
        return;
    }
    for (size_t i = 0; i < r->n; i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        if (rate) {
            r->has[i] = (g->present & GCEV_STATS_GC_HAS_ALLOC_RATE) != 0;
            r->key[i] = g->alloc_rate_mb_per_sec;
        } else {
            r->has[i] = (g->present & GCEV_STATS_GC_HAS_ALLOCATED) != 0;
            r->key[i] = (double)g->allocated_bytes / 1e6;
        }
    }
    if (rate) {
        time_line(r, "alloc", "Allocation rate since the previous GC, at each GC",
                  "Allocation rate in MB per second over time", "Rate (MB/s)",
                  "TraceEvent's AllocRateMBSec: bytes the GC heap grew by between GCs over the time between "
                  "them; MB = 10<sup>6</sup> bytes.",
                  0);
    } else {
        time_line(r, "alloc", "Allocation: MB allocated since the previous GC, at each GC",
                  "Megabytes allocated between GCs over time", "Allocated (MB)",
                  "From AllocationTick events (one per ~100 KB allocated); MB = 10<sup>6</sup> bytes.", 0);
    }
}

/* ---- heap count (DATAS) -------------------------------------------------- */

void gcev_report_chart_heap_count(gcev_rep *r)
{
    int datas = 0;
    for (size_t i = 0; i < r->n; i++) {
        datas |= (gcev_stats_gc_at(r->s, i)->present & GCEV_STATS_GC_HAS_DATAS) != 0;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < r->n; i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(r->s, i);
        if (datas) {
            r->has[i] = (g->present & GCEV_STATS_GC_HAS_DATAS) != 0;
            r->key[i] = g->datas_heap_count;
        } else {
            r->has[i] = (g->present & GCEV_STATS_GC_HAS_HEAP_COUNT) != 0;
            r->key[i] = g->heap_count;
        }
        if (r->has[i]) {
            lo = r->key[i] < lo ? r->key[i] : lo;
            hi = r->key[i] > hi ? r->key[i] : hi;
        }
    }
    if (!datas && !(lo < hi)) {
        return; /* a fixed heap count is in the summary */
    }
    if (datas) {
        time_line(r, "heaps", "DATAS: GC heap count over time", "Number of GC heaps DATAS chose, over time",
                  "Heaps", "The heap count of each GC's last DATAS tuning (SizeAdaptationTuning).", 1);
    } else {
        time_line(r, "heaps", "GC heap count over time", "Number of GC heaps at each GC over time", "Heaps",
                  "GlobalHeapHistory NumHeaps of each GC.", 1);
    }
}
