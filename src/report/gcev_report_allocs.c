/* SPDX-License-Identifier: MIT */
/*
 * The page's allocation section (issue 24), when the caller passes an allocation model
 * (gcev_report_extras.allocs) that holds samples: what was estimated from what, the top types,
 * and the call stacks as an icicle graph drawn here in SVG (root at the top, each frame as
 * wide as the bytes allocated under it, the type as the last row; a <title> per box names
 * it). Nothing is fetched; every figure comes from the model.
 */
#include <stdlib.h>
#include <string.h>

#include "gcev_report_internal.h"

enum { ICICLE_W = 1200, ROW_H = 18, MAX_DEPTH = 48, MAX_NODES = 20000, TOP_TYPES = 15 };

typedef struct node {
    size_t key; /* frame index, or frame count + type index */
    size_t parent, child, next;
    double bytes;
} node;

static void human(gcev_rb *b, double bytes)
{
    if (bytes >= 1e9) {
        gcev_rb_num(b, bytes / 1e9, 2);
        gcev_rb_puts(b, " GB");
    } else if (bytes >= 1e6) {
        gcev_rb_num(b, bytes / 1e6, 2);
        gcev_rb_puts(b, " MB");
    } else if (bytes >= 1e3) {
        gcev_rb_num(b, bytes / 1e3, 1);
        gcev_rb_puts(b, " KB");
    } else {
        gcev_rb_num(b, bytes, 0);
        gcev_rb_puts(b, " B");
    }
}

static const char *node_name(const gcev_allocs *a, size_t key, size_t nf)
{
    return key < nf ? gcev_allocs_frame_at(a, key)->name : gcev_allocs_type_at(a, key - nf)->name;
}

/* The child of parent with this key, added when new; SIZE_MAX when the tree is full. */
static size_t child_of(node *t, size_t *n, size_t parent, size_t key)
{
    for (size_t c = t[parent].child; c != SIZE_MAX; c = t[c].next) {
        if (t[c].key == key) {
            return c;
        }
    }
    if (*n >= MAX_NODES) {
        return SIZE_MAX;
    }
    size_t c = (*n)++;
    t[c].key = key;
    t[c].parent = parent;
    t[c].child = SIZE_MAX;
    t[c].next = t[parent].child;
    t[c].bytes = 0;
    t[parent].child = c;
    return c;
}

static void draw(gcev_rb *b, const gcev_allocs *a, const node *t, size_t i, double x, double scale, int depth,
                 size_t nf, int *maxdepth)
{
    for (size_t c = t[i].child; c != SIZE_MAX; c = t[c].next) {
        double w = t[c].bytes * scale;
        if (w >= 0.5 && depth < MAX_DEPTH) {
            const char *name = node_name(a, t[c].key, nf);
            int is_type = t[c].key >= nf;
            /* a stable colour per name: warm for frames, blue for the types */
            unsigned h = 2166136261u;
            for (const char *p = name; *p; p++) {
                h = (h ^ (unsigned char)*p) * 16777619u;
            }
            int hue = is_type ? 205 + (int)(h % 20) : 10 + (int)(h % 45);
            gcev_rb_puts(b, "<g><title>");
            gcev_rb_html(b, name);
            gcev_rb_puts(b, " &#8212; ");
            human(b, t[c].bytes);
            gcev_rb_printf(b,
                           "</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                           "fill=\"hsl(%d,70%%,%d%%)\" stroke=\"#fff\" stroke-width=\"0.5\"/>",
                           x, depth * ROW_H, w, ROW_H - 1, hue, is_type ? 72 : 62);
            if (w > 40) {
                size_t fit = (size_t)(w / 7.0), len = strlen(name);
                char text[256];
                if (fit > sizeof text - 4) {
                    fit = sizeof text - 4;
                }
                if (len > fit) {
                    memcpy(text, name, fit > 2 ? fit - 2 : 0);
                    strcpy(text + (fit > 2 ? fit - 2 : 0), "..");
                } else {
                    memcpy(text, name, len + 1);
                }
                gcev_rb_printf(b, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#111\">", x + 3,
                               depth * ROW_H + 13);
                gcev_rb_html(b, text);
                gcev_rb_puts(b, "</text>");
            }
            gcev_rb_puts(b, "</g>");
            if (depth + 1 > *maxdepth) {
                *maxdepth = depth + 1;
            }
            draw(b, a, t, c, x, scale, depth + 1, nf, maxdepth);
        }
        x += w;
    }
}

void gcev_report_allocs_section(gcev_rb *b, const gcev_allocs *a)
{
    const gcev_allocs_summary *s = gcev_allocs_get_summary(a);
    if (!s || !s->samples) {
        return;
    }
    gcev_rb_puts(b, "<section id=\"allocations\"><h2>Allocations</h2><p class=\"hint\">");
    human(b, s->bytes);
    gcev_rb_printf(
        b, " estimated from %llu %s event%s (%s); doc/allocs.md gives the estimates.</p>",
        (unsigned long long)s->samples, gcev_allocs_source_name(s->source), s->samples == 1 ? "" : "s",
        s->source == GCEV_ALLOCS_SAMPLED ? "randomized sampling, unbiased"
        : s->source == GCEV_ALLOCS_TICK  ? "one event per ~100 KB, charged to the last object's type"
                                         : "per-type object counts");
    /* in a scrolling box: type names are long and do not break, and the page must not scroll
     * sideways on a narrow screen (the browser test checks it at 390 px) */
    gcev_rb_puts(b, "<div class=\"tablewrap\"><table id=\"alloc-types\"><thead><tr><th>Type</th><th>Heap</th>"
                    "<th>Bytes</th><th>%</th>"
                    "<th>Samples</th><th>Objects</th></tr></thead><tbody>");
    for (size_t i = 0; i < gcev_allocs_type_count(a) && i < TOP_TYPES; i++) {
        const gcev_allocs_type *t = gcev_allocs_type_at(a, i);
        gcev_rb_puts(b, "<tr><td>");
        gcev_rb_html(b, t->name);
        gcev_rb_printf(b, "</td><td>%s</td><td>", gcev_allocs_kind_name(t->kind));
        human(b, t->est.bytes);
        gcev_rb_puts(b, "</td><td>");
        gcev_rb_num(b, t->est.share * 100, 1);
        gcev_rb_printf(b, "</td><td>%llu</td><td>", (unsigned long long)t->est.samples);
        gcev_rb_num(b, t->est.objects, 0);
        gcev_rb_puts(b, "</td></tr>");
    }
    gcev_rb_puts(b, "</tbody></table></div>");

    /* the icicle: one tree of every (stack, type) pair, root first */
    size_t nf = gcev_allocs_frame_count(a);
    node *t = malloc(MAX_NODES * sizeof *t);
    if (!t) {
        b->oom = 1;
        return;
    }
    size_t n = 1;
    t[0].key = SIZE_MAX;
    t[0].parent = SIZE_MAX;
    t[0].child = SIZE_MAX;
    t[0].next = SIZE_MAX;
    t[0].bytes = 0;
    for (size_t i = 0; i < gcev_allocs_pair_count(a); i++) {
        const gcev_allocs_pair *p = gcev_allocs_pair_at(a, i);
        const gcev_allocs_stack *st = gcev_allocs_stack_at(a, p->stack);
        size_t at = 0;
        t[0].bytes += p->est.bytes;
        for (uint32_t j = st->nframes; j-- > 0 && at != SIZE_MAX;) {
            at = child_of(t, &n, at, st->frames[j]);
            if (at != SIZE_MAX) {
                t[at].bytes += p->est.bytes;
            }
        }
        if (at != SIZE_MAX && (at = child_of(t, &n, at, nf + p->type)) != SIZE_MAX) {
            t[at].bytes += p->est.bytes;
        }
    }
    gcev_rb rows = {0};
    int depth = 0;
    draw(&rows, a, t, 0, 0, t[0].bytes > 0 ? ICICLE_W / t[0].bytes : 0, 0, nf, &depth);
    free(t);
    gcev_rb_printf(
        b,
        "<figure id=\"alloc-icicle\"><figcaption>Allocating call stacks (root at the top; width: "
        "estimated bytes; the last box of each stack is the type; hover a box for its name)"
        "</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"100%%\" "
        "role=\"img\" aria-label=\"allocation icicle graph\">",
        ICICLE_W, (depth ? depth : 1) * ROW_H);
    if (rows.oom) {
        b->oom = 1;
    } else if (rows.p) {
        gcev_rb_put(b, rows.p, rows.n);
    }
    free(rows.p);
    gcev_rb_puts(b, "</svg></figure></section>\n");
}
