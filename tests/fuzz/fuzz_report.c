/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the page builder (src/report): a GC analysis model made
 * from the input, then its page, with caller facts taken from the input too.
 *
 * Input framing:
 *   [0]     max_marks / 8 (0: the default) [1] page_rows (0: the default)
 *   [2..5]  the lengths of four fact strings (source, process name, read error,
 *           generator), which follow; any bytes
 *   then    7-byte GC records: [0] generation (bits 0-1), type (bits 2-3), a drop
 *           before it (bit 4), no end (bit 5), no pause (bit 6), a heap count change
 *           (bit 7); [1..2] ms since the previous GC / 16 (little-endian; 0 = same
 *           instant); [3..4] pause in us; [5] gen0 size before, MB; [6] gen2 size, MB
 *
 * Checks the page's invariants whatever the model: it ends the document, holds
 * exactly the two scripts it writes, is clean UTF-8 (no control, no invalid
 * byte), and no chart draws more than max(GCs, max_marks) pause marks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev.h>
#include <gcev/gcev_report.h>

#include "gcev_report_buf.h"
#include "gcev_text.h"

static uint8_t buf[4096];

static void feed(gcev_stats *s, uint16_t id, uint16_t version, gcev_event *ev, double ms, uint64_t tid)
{
    gcev_status st;
    ev->desc = gcev_event_desc_resolve(&gcev_provider_runtime, id, version, &st);
    ev->pointer_size = 8;
    size_t n = 0;
    if (!ev->desc || gcev_encode(ev, buf, sizeof buf, &n, NULL) != GCEV_OK) {
        abort(); /* the harness's own events always encode */
    }
    gcev_stats_input in = {.struct_size = sizeof in,
                           .provider = &gcev_provider_runtime,
                           .event_id = id,
                           .version = version,
                           .pointer_size = 8,
                           .payload = buf,
                           .payload_size = (uint32_t)n,
                           .ms = ms,
                           .thread_id = tid,
                           .process_id = 1};
    gcev_stats_add(s, &in);
}

static gcev_event *blank(gcev_event *ev)
{
    memset(ev, 0, sizeof *ev);
    return ev;
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0, len = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle)) {
        n++;
    }
    return n;
}

/* A fact string of the input (NUL-terminated copy; NUL bytes inside end it early). */
static char *fact(const uint8_t **p, size_t *left, size_t len)
{
    len = len < *left ? len : *left;
    char *s = malloc(len + 1);
    if (!s) {
        abort();
    }
    memcpy(s, *p, len);
    s[len] = '\0';
    *p += len;
    *left -= len;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 6) {
        return 0;
    }
    gcev_report_options o = {(uint32_t)data[0] * 8u, data[1]};
    const uint8_t *p = data + 6;
    size_t left = size - 6;
    char *facts[4];
    for (int i = 0; i < 4; i++) {
        facts[i] = fact(&p, &left, data[2 + i]);
    }
    gcev_stats *s;
    if (gcev_stats_create(NULL, &s) != GCEV_OK) {
        abort();
    }
    gcev_event ev;
    double t = 1.0;
    uint32_t number = 0;
    int32_t heaps = 1;
    for (; left >= 7 && number < 20000; p += 7, left -= 7) {
        uint32_t gen = p[0] & 3u, type = (p[0] >> 2) & 3u;
        double pause = (p[3] | p[4] << 8) / 1000.0;
        t += (p[1] | p[2] << 8) / 16.0;
        if (p[0] & 0x10) {
            gcev_stats_note_dropped(s, 3, t);
        }
        if (p[0] & 0x80) {
            heaps = 1 + (heaps + p[5]) % 8;
        }
        uint64_t tid = type == 1 ? 2 : 1;
        if (!(p[0] & 0x40)) {
            blank(&ev)->u.gc_suspend_ee_begin.reason = type == 1 ? 6 : 1;
            feed(s, 9, 1, &ev, t, tid);
            feed(s, 8, 1, blank(&ev), t, tid);
        }
        gcev_gc_start *gs = &blank(&ev)->u.gc_start;
        gs->count = ++number;
        gs->depth = gen;
        gs->reason = p[6] % 18;
        gs->type = type;
        feed(s, 1, 2, &ev, t, tid);
        gcev_gc_global_heap_history *gh = &blank(&ev)->u.gc_global_heap_history;
        gh->num_heaps = heaps;
        gh->condemned_generation = gen;
        feed(s, 205, 2, &ev, t, tid);
        if (!(p[0] & 0x20)) {
            blank(&ev)->u.gc_end.count = number;
            ev.u.gc_end.depth = gen;
            feed(s, 2, 1, &ev, t + pause, tid);
            gcev_gc_heap_stats *h = &blank(&ev)->u.gc_heap_stats;
            h->generation_size0 = (uint64_t)p[5] * 1000000u;
            h->generation_size2 = (uint64_t)p[6] * 1000000u;
            feed(s, 4, 2, &ev, t + pause, tid);
        }
        if (!(p[0] & 0x40)) {
            feed(s, 7, 1, blank(&ev), t + pause, tid);
            feed(s, 3, 1, blank(&ev), t + pause, tid);
        }
        t += pause;
    }
    gcev_stats_finish(s);
    gcev_report_facts f = {facts[0], NULL, facts[1], facts[2][0] ? facts[2] : NULL, facts[3]};
    char *html = NULL;
    size_t n = 0;
    if (gcev_report_build(s, &f, &o, &html, &n) == GCEV_OK) {
        if (n < 8 || strcmp(html + n - 8, "</html>\n") != 0 || strlen(html) != n) {
            abort();
        }
        if (count_of(html, "<script") != 2 || count_of(html, "</script") != 2) {
            abort();
        }
        const unsigned char *q = (const unsigned char *)html;
        for (size_t k = n; k;) {
            size_t len;
            uint32_t cp = gcev_utf8_next(q, k, &len);
            if ((cp == 0xFFFD && len != 3) || (cp < 0x20 && cp != '\t' && cp != '\n') ||
                (cp >= 0x7F && cp <= 0x9F)) {
                abort();
            }
            q += len;
            k -= len;
        }
        const char *pause = strstr(html, "id=\"chart-pause\"");
        if (pause) {
            size_t marks = count_of(pause, "class=\"mark ");
            size_t cap = o.max_marks ? (o.max_marks < 64 ? 64 : o.max_marks) : 2000;
            if (marks > (number > cap ? cap : number)) {
                abort();
            }
        }
        gcev_report_free(html);
    }
    gcev_stats_free(s);
    for (int i = 0; i < 4; i++) {
        free(facts[i]);
    }
    return 0;
}
