/* SPDX-License-Identifier: MIT */
/*
 * The heap section of the page: for each heap dump of the trace (gcev_heap.h), its
 * summary, the biggest types by retained size as SVG bars, and the type table
 * (objects, bytes, share of the dump's bytes, retained bytes). The numbers are
 * gcev_heap's (the same as `gcev heap`'s): this file only lays them out. Retained
 * bytes of a type count each byte once (an object of the type inside another one's
 * retained set is not counted again), so a type's retained bytes never exceed the
 * dump's bytes and the bars share one scale: the dump's bytes.
 */
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev_heap.h>

#include "gcev_report_internal.h"

enum {
    HEAP_MAX_DUMPS = 8,    /* dumps shown (a trace with more names the rest) */
    HEAP_TABLE_ROWS = 100, /* type rows per dump, largest bytes first */
    HEAP_BARS = 20,        /* retained-size bars per dump */
    BAR_W = 800,           /* the bars' viewBox width */
    BAR_LABEL = 330,       /* the type names' column */
    BAR_ROW = 22
};

static void mb(gcev_rb *b, uint64_t bytes)
{
    gcev_rb_num(b, (double)bytes / 1e6, 3);
}

static void share(gcev_rb *b, uint64_t part, uint64_t whole)
{
    gcev_rb_num(b, whole ? 100.0 * (double)part / (double)whole : 0, 1);
    gcev_rb_puts(b, "%");
}

/* type rows sorted by retained bytes, largest first (then by the table's order) */
typedef struct heap_bar {
    uint64_t retained;
    size_t row;
} heap_bar;

static int bar_cmp(const void *pa, const void *pb)
{
    const heap_bar *a = pa, *b = pb;
    if (a->retained != b->retained) {
        return a->retained > b->retained ? -1 : 1;
    }
    return a->row < b->row ? -1 : a->row > b->row;
}

static void bars(gcev_rb *b, gcev_heap *h, size_t di, const gcev_heap_info *in)
{
    size_t nt = gcev_heap_type_count(h);
    heap_bar *v = malloc((nt ? nt : 1) * sizeof *v);
    if (!v) {
        b->oom = 1;
        return;
    }
    for (size_t i = 0; i < nt; i++) {
        gcev_heap_type t;
        gcev_heap_type_get(h, i, &t);
        v[i].retained = t.retained;
        v[i].row = i;
    }
    qsort(v, nt, sizeof *v, bar_cmp);
    size_t n = nt < HEAP_BARS ? nt : HEAP_BARS;
    int height = (int)n * BAR_ROW + 8;
    gcev_rb_printf(
        b,
        "<figure class=\"chart\" id=\"heap-retained-%zu\"><figcaption>Retained size by type (the %zu "
        "largest; bar: share of the dump's bytes)</figcaption><svg viewBox=\"0 0 %d %d\" role=\"img\" "
        "aria-label=\"Retained size by type\" xmlns=\"http://www.w3.org/2000/svg\">",
        di, n, BAR_W, height);
    double scale = in->bytes ? (double)(BAR_W - BAR_LABEL - 150) / (double)in->bytes : 0;
    for (size_t i = 0; i < n; i++) {
        gcev_heap_type t;
        gcev_heap_type_get(h, v[i].row, &t);
        int y = 4 + (int)i * BAR_ROW;
        double w = (double)t.retained * scale;
        gcev_rb_printf(b, "<g class=\"hbar\" data-type-row=\"%zu\" data-retained=\"%llu\"><title>", v[i].row,
                       (unsigned long long)t.retained);
        gcev_rb_html(b, t.name);
        gcev_rb_printf(b, ": %llu objects, %llu bytes, retains %llu bytes</title>",
                       (unsigned long long)t.objects, (unsigned long long)t.bytes,
                       (unsigned long long)t.retained);
        /* the name, cut to the label column (the full name is in the tooltip and the table) */
        gcev_rb_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", BAR_LABEL - 6, y + 15);
        size_t len = strlen(t.name);
        if (len > 44) {
            /* keep the end: the type's own name, after its namespace */
            size_t cut = len - 43;
            while (cut < len && ((unsigned char)t.name[cut] & 0xc0) == 0x80) {
                cut++; /* not inside a UTF-8 sequence */
            }
            gcev_rb_puts(b, "&hellip;");
            gcev_rb_html(b, t.name + cut);
        } else {
            gcev_rb_html(b, t.name);
        }
        gcev_rb_printf(b,
                       "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#3b75c4\"></rect>"
                       "<text x=\"%.1f\" y=\"%d\">",
                       BAR_LABEL, y + 2, w < 1 ? 1 : w, BAR_ROW - 6, BAR_LABEL + (w < 1 ? 1 : w) + 6, y + 15);
        mb(b, t.retained);
        gcev_rb_puts(b, " MB (");
        share(b, t.retained, in->bytes);
        gcev_rb_puts(b, ")</text></g>");
    }
    gcev_rb_puts(b, "</svg></figure>");
    free(v);
}

static void table(gcev_rb *b, gcev_heap *h, size_t di, const gcev_heap_info *in)
{
    size_t nt = gcev_heap_type_count(h);
    size_t n = nt < HEAP_TABLE_ROWS ? nt : HEAP_TABLE_ROWS;
    gcev_rb_printf(
        b,
        "<div class=\"tablewrap\"><table class=\"heap-types\" id=\"heap-types-%zu\"><caption>Objects "
        "and bytes per type, largest bytes first (%zu of %zu types)</caption><thead><tr>"
        "<th style=\"text-align:left\">Type</th><th>Objects</th><th>Bytes</th><th>Share</th>"
        "<th>Retained bytes</th></tr></thead><tbody>",
        di, n, nt);
    for (size_t i = 0; i < n; i++) {
        gcev_heap_type t;
        gcev_heap_type_get(h, i, &t);
        gcev_rb_puts(b, "<tr><th scope=\"row\" style=\"text-align:left;font-weight:400\">");
        gcev_rb_html(b, t.name);
        gcev_rb_printf(b, "</th><td data-v=\"%llu\">%llu</td><td data-v=\"%llu\">%llu</td><td>",
                       (unsigned long long)t.objects, (unsigned long long)t.objects,
                       (unsigned long long)t.bytes, (unsigned long long)t.bytes);
        share(b, t.bytes, in->bytes);
        gcev_rb_printf(b, "</td><td data-v=\"%llu\">%llu</td></tr>", (unsigned long long)t.retained,
                       (unsigned long long)t.retained);
    }
    gcev_rb_puts(b, "</tbody></table></div>");
}

static void dump(gcev_rb *b, gcev_heap *h, size_t di)
{
    int analyzed = gcev_heap_analyze(h) == GCEV_OK;
    const gcev_heap_info *in = gcev_heap_get_info(h);
    gcev_rb_printf(b,
                   "<div class=\"heapdump\" id=\"heap-%zu\" data-objects=\"%llu\" data-bytes=\"%llu\"><h3>",
                   di, (unsigned long long)in->objects, (unsigned long long)in->bytes);
    gcev_rb_printf(b, "Process %u", in->process_id);
    if (in->has_gc) {
        gcev_rb_printf(b, ", GC #%u", in->gc_number);
    }
    gcev_rb_puts(b, " at ");
    gcev_rb_num(b, in->start_ms, 3);
    gcev_rb_puts(b, " ms</h3><p class=\"hint\">");
    gcev_rb_printf(b, "%llu objects, ", (unsigned long long)in->objects);
    mb(b, in->bytes);
    gcev_rb_printf(b, " MB, %llu references, %llu roots, %llu types", (unsigned long long)in->references,
                   (unsigned long long)in->roots, (unsigned long long)in->types);
    if (analyzed && in->unreachable_objects) {
        gcev_rb_printf(b, "; %llu objects (", (unsigned long long)in->unreachable_objects);
        mb(b, in->unreachable_bytes);
        gcev_rb_puts(b, " MB) no root reaches");
    }
    gcev_rb_puts(b, ". Retained bytes: what would be freed if every object of the type died (each byte "
                    "counted once). MB = 10<sup>6</sup> bytes.</p>");
    if (in->flags & GCEV_HEAP_PARTIAL_MASK) {
        gcev_rb_puts(b, "<p class=\"heap-partial\" style=\"color:#a3271d\">&#9888; This dump is partial:");
        size_t np = gcev_heap_problem_count(h);
        for (size_t i = 0; i < np && i < 5; i++) {
            gcev_rb_puts(b, i ? "; " : " ");
            gcev_rb_html(b, gcev_heap_problem_at(h, i));
        }
        if (np > 5) {
            gcev_rb_printf(b, "; and %zu more", np - 5);
        }
        gcev_rb_puts(b, ".</p>");
    }
    if (!analyzed) {
        gcev_rb_puts(b, "<p class=\"empty\">Out of memory computing the retained sizes.</p>");
    } else if (in->types) {
        bars(b, h, di, in);
    }
    table(b, h, di, in);
    gcev_rb_puts(b, "</div>");
}

void gcev_report_heap_section(gcev_rb *b, gcev_heap_set *set)
{
    size_t n = gcev_heap_set_count(set);
    if (n == 0) {
        return;
    }
    gcev_rb_printf(b,
                   "<section id=\"heap\"><h2>Heap dump%s</h2><p class=\"hint\">From the runtime's bulk heap "
                   "events (what <code>gcev heap</code> and dotnet-gcdump read)",
                   n == 1 ? "" : "s");
    if (n > HEAP_MAX_DUMPS) {
        gcev_rb_printf(b, "; the first %d of %zu dumps (<code>gcev heap --dump N</code> shows any)",
                       HEAP_MAX_DUMPS, n);
    }
    gcev_rb_puts(b, ".</p>");
    for (size_t i = 0; i < n && i < HEAP_MAX_DUMPS; i++) {
        dump(b, gcev_heap_set_at(set, i), i);
    }
    gcev_rb_puts(b, "</section>\n");
}
