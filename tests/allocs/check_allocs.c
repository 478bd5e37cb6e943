/* SPDX-License-Identifier: MIT */
/*
 * check_allocs TRACE WORKLOAD.jsonl [ORACLE.jsonl] (issue 24): gcev allocs on a real capture
 * of `gcev-workload allocsites`, public API only.
 *
 *  1. The sites: each site of the workload's own report ({"allocsites":{"sites":[...]}}) is
 *     found: its type is among the top types, and the stacks whose innermost Gcev.Workload
 *     frame is the site's method carry an estimate within the sampling error of the bytes the
 *     workload allocated there (printed side by side); the top stacks of its type end in it.
 *  2. With ORACLE (TraceEvent 4.0's TraceLog, tests/runtime/allocs-oracle): every allocation
 *     event equal in time, thread, type and size, and every frame TraceEvent names named the
 *     same by gcev; frames TraceEvent cannot name are listed with what gcev gives.
 * Exit status 0 when everything holds, 1 otherwise (every difference printed).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev_allocs.h>

#include "oracle_json.h"
#include "testutil.h"

static int g_fail;

#define FAIL(...)                                                                                            \
    do {                                                                                                     \
        fprintf(stderr, "check_allocs: " __VA_ARGS__);                                                       \
        fputc('\n', stderr);                                                                                 \
        g_fail = 1;                                                                                          \
    } while (0)

/* The method part of a frame name ("module!Ns.M(args)" -> "Ns.M"). */
static void method_of(const char *frame, char *out, size_t n)
{
    const char *bang = strchr(frame, '!');
    const char *m = bang ? bang + 1 : frame;
    size_t len = strcspn(m, "(");
    if (len >= n) {
        len = n - 1;
    }
    memcpy(out, m, len);
    out[len] = '\0';
}

/* The innermost frame of the workload's own code, or NULL. */
static const char *workload_site(const gcev_allocs *a, const gcev_allocs_stack *st, char *buf, size_t n)
{
    for (uint32_t j = 0; j < st->nframes; j++) {
        const gcev_allocs_frame *f = gcev_allocs_frame_at(a, st->frames[j]);
        if (!strncmp(f->method, "Gcev.Workload.", 14)) {
            method_of(f->method, buf, n);
            return buf;
        }
    }
    return NULL;
}

static int check_sites(const gcev_allocs *a, const char *workload_path)
{
    oracle_lines wl;
    char err[256];
    if (oracle_lines_load(&wl, workload_path, err, sizeof err)) {
        FAIL("%s: %s", workload_path, err);
        return 0;
    }
    const tj *sites = NULL;
    tj rec;
    int have = 0;
    for (size_t i = 0; i < wl.n && !have; i++) {
        if (oracle_lines_parse(&wl, i, &rec) == 0) {
            const tj *as = tj_get(&rec, "allocsites");
            if (as && (sites = tj_get(as, "sites")) != NULL) {
                have = 1;
                break;
            }
            tj_free(&rec);
        }
    }
    if (!have) {
        FAIL("%s: no allocsites line", workload_path);
        oracle_lines_free(&wl);
        return 0;
    }
    const gcev_allocs_summary *s = gcev_allocs_get_summary(a);
    printf("source %s: %" PRIu64 " samples, %.0f bytes estimated\n", gcev_allocs_source_name(s->source),
           s->samples, s->bytes);
    printf("%-40s %-22s %-6s %12s %12s %8s %7s %s\n", "site", "type", "heap", "workload", "gcev", "samples",
           "err%", "bound%");
    for (size_t k = 0; k < sites->n; k++) {
        const tj *site = &sites->items[k];
        const char *method = oracle_str(tj_get(site, "site"));
        const char *type = oracle_str(tj_get(site, "type"));
        const char *kind = oracle_str(tj_get(site, "kind"));
        uint64_t bytes = 0;
        oracle_num_u64(tj_get(site, "bytes"), &bytes);
        if (!method || !type || !kind) {
            FAIL("site %zu: incomplete", k);
            continue;
        }
        /* the type among the top 5 */
        size_t ti = gcev_allocs_type_find(a, type);
        if (ti == SIZE_MAX || ti >= 5) {
            FAIL("%s: type %s is not among the top 5 types (rank %zu)", method, type, ti);
        }
        /* the stacks whose innermost workload frame is the site */
        double est = 0;
        uint64_t samples = 0;
        int top_seen = 0, top_ok = 0;
        for (size_t i = 0; i < gcev_allocs_pair_count(a); i++) {
            const gcev_allocs_pair *p = gcev_allocs_pair_at(a, i);
            const gcev_allocs_stack *st = gcev_allocs_stack_at(a, p->stack);
            char buf[512];
            const char *ws = workload_site(a, st, buf, sizeof buf);
            if (ws && !strcmp(ws, method)) {
                if (p->type != ti) {
                    FAIL("%s: a stack of type %s, not %s", method, gcev_allocs_type_at(a, p->type)->name,
                         type);
                    continue;
                }
                est += p->est.bytes;
                samples += p->est.samples;
                if (!top_seen) {
                    top_seen = 1;
                    top_ok = 1;
                }
            }
        }
        /* sampling error: AllocationSampled's variance is at most N q / p (N bytes); ticks are
         * one per ~100 KB, so the error is at most ~100 KB per sample of other types mixed in.
         * Allowed: 4 standard deviations of a Bernoulli sampler, plus 2 samples' worth. */
        double sd = sqrt((double)bytes * 102400.0);
        double bound = 4 * sd + 2 * 102400.0;
        double diff = est - (double)bytes;
        printf("%-40s %-22s %-6s %12" PRIu64 " %12.0f %8" PRIu64 " %7.2f %7.2f\n", method, type, kind, bytes,
               est, samples, bytes ? 100 * diff / (double)bytes : 0, bytes ? 100 * bound / (double)bytes : 0);
        if (!top_ok) {
            FAIL("%s: no stack ends in the site", method);
        } else if (fabs(diff) > bound) {
            FAIL("%s: %.0f bytes estimated, the workload allocated %" PRIu64 " (bound %.0f)", method, est,
                 bytes, bound);
        }
        /* the type's heaviest stack ends in one of the workload's sites */
        for (size_t i = 0; i < gcev_allocs_pair_count(a); i++) {
            const gcev_allocs_pair *p = gcev_allocs_pair_at(a, i);
            if (p->type == ti) {
                char buf[512];
                const char *ws = workload_site(a, gcev_allocs_stack_at(a, p->stack), buf, sizeof buf);
                if (!ws || strncmp(ws, "Gcev.Workload.AllocSites.New", 28)) {
                    FAIL("%s: the heaviest stack of %s ends in %s", method, type,
                         ws ? ws : "no workload frame");
                }
                break;
            }
        }
    }
    tj_free(&rec);
    oracle_lines_free(&wl);
    return 1;
}

/* One event's frames, named by gcev, innermost first. */
static void compare_oracle(const gcev_allocs *a, const char *trace_path, const char *oracle_path)
{
    oracle_lines ol;
    char err[256];
    if (oracle_lines_load(&ol, oracle_path, err, sizeof err)) {
        FAIL("%s: %s", oracle_path, err);
        return;
    }
    gcev_trace_options opts = {
        .struct_size = sizeof opts, .order = GCEV_TRACE_ORDER_TIME, .max_block_size = 0, .keep_going = 0};
    gcev_trace *t;
    gcev_error e;
    if (gcev_trace_open_file(trace_path, &opts, &t, &e) != GCEV_OK) {
        FAIL("%s: %s", trace_path, e.message);
        oracle_lines_free(&ol);
        return;
    }
    size_t li = 0;
    uint64_t events = 0, frames = 0, named = 0, te_unnamed = 0, diffs = 0;
    gcev_trace_event ev;
    while (gcev_trace_next(t, &ev, &e) == GCEV_OK) {
        gcev_allocs_sample smp;
        if (gcev_allocs_sample_of(&ev, &smp, NULL) != GCEV_OK) {
            continue;
        }
        tj rec;
        int got = 0;
        while (li < ol.n && !got) {
            if (oracle_lines_parse(&ol, li++, &rec) == 0) {
                if (!strcmp(oracle_record_type(&rec), "sample")) {
                    got = 1;
                } else {
                    tj_free(&rec);
                }
            }
        }
        if (!got) {
            FAIL("event %" PRIu64 " (qpc %" PRId64 "): TraceEvent has no more allocation events", events,
                 ev.timestamp);
            diffs++;
            break;
        }
        events++;
        int64_t qpc = 0;
        uint64_t thread = 0, size = 0;
        oracle_num_i64(tj_get(&rec, "qpc"), &qpc);
        oracle_num_u64(tj_get(&rec, "thread"), &thread);
        if (qpc == ev.timestamp && thread != ev.thread_id) {
            /* Events of several threads with one timestamp: gcev and TraceEvent may order the
             * tie differently (a run failed on it). Take TraceEvent's event of this thread from
             * the same tie group; every field is still compared. */
            size_t cur = li - 1;
            for (size_t j = li; j < ol.n; j++) {
                tj o;
                if (oracle_lines_parse(&ol, j, &o) != 0) {
                    continue;
                }
                int sample = !strcmp(oracle_record_type(&o), "sample");
                int64_t oq = 0;
                uint64_t ot = 0;
                oracle_num_i64(tj_get(&o, "qpc"), &oq);
                oracle_num_u64(tj_get(&o, "thread"), &ot);
                tj_free(&o);
                if (!sample) {
                    continue;
                }
                if (oq != qpc) {
                    break; /* past the tie group */
                }
                if (ot == ev.thread_id) {
                    char *swap = ol.lines[cur];
                    ol.lines[cur] = ol.lines[j];
                    ol.lines[j] = swap;
                    tj_free(&rec);
                    if (oracle_lines_parse(&ol, cur, &rec) != 0) {
                        FAIL("oracle line %zu no longer parses", cur);
                        gcev_trace_close(t);
                        oracle_lines_free(&ol);
                        return;
                    }
                    oracle_num_u64(tj_get(&rec, "thread"), &thread);
                    break;
                }
            }
        }
        oracle_num_u64(tj_get(&rec, "size"), &size);
        char tname[1024];
        gcev_utf16_to_utf8(smp.type_name, tname, sizeof tname);
        const char *otype = oracle_str(tj_get(&rec, "type"));
        if (qpc != ev.timestamp || thread != ev.thread_id || size != smp.size ||
            (otype && otype[0] && strcmp(otype, tname))) {
            if (diffs++ < 20) {
                FAIL("event %" PRIu64 ": gcev qpc %" PRId64 " thread %" PRIu64 " %s size %" PRIu64
                     ", TraceEvent qpc %" PRId64 " thread %" PRIu64 " %s size %" PRIu64,
                     events, ev.timestamp, ev.thread_id, tname, smp.size, qpc, thread, otype ? otype : "?",
                     size);
            }
        }
        const tj *of = tj_get(&rec, "frames");
        uint32_t ps = ev.pointer_size == 4 ? 4 : 8;
        uint32_t n = ev.stack ? ev.stack_size / ps : 0;
        if (!of || of->n != n) {
            if (diffs++ < 20) {
                FAIL("event %" PRIu64 ": %u frames, TraceEvent %zu", events, n, of ? of->n : 0);
            }
            tj_free(&rec);
            continue;
        }
        for (uint32_t j = 0; j < n; j++) {
            uint64_t ip = 0;
            for (uint32_t b = 0; b < ps; b++) {
                ip |= (uint64_t)ev.stack[(size_t)j * ps + b] << (8 * b);
            }
            gcev_allocs_frame f;
            char buf[24];
            uint32_t kind = gcev_allocs_resolve(a, ip, &f, buf, sizeof buf);
            frames++;
            const char *om = oracle_str(tj_get(&of->items[j], "method"));
            const char *omod = oracle_str(tj_get(&of->items[j], "module"));
            if (!om || !om[0]) {
                te_unnamed++;
                if (te_unnamed <= 10) {
                    printf("TraceEvent cannot name 0x%" PRIx64 " (module '%s'); gcev: %s\n", ip,
                           omod ? omod : "", f.name);
                }
                continue;
            }
            if (kind != GCEV_ALLOCS_FRAME_UNRESOLVED) {
                named++;
            }
            if (strcmp(om, f.method) || (omod && strcmp(omod, f.module))) {
                if (diffs++ < 20) {
                    FAIL("event %" PRIu64 " frame %u (0x%" PRIx64 "): gcev %s!%s, TraceEvent %s!%s", events,
                         j, ip, f.module, f.method, omod ? omod : "", om);
                }
            }
        }
        tj_free(&rec);
    }
    /* TraceEvent's extra samples */
    for (; li < ol.n; li++) {
        tj rec;
        if (oracle_lines_parse(&ol, li, &rec) == 0) {
            if (!strcmp(oracle_record_type(&rec), "sample")) {
                FAIL("TraceEvent has an allocation event gcev does not");
                diffs++;
            }
            tj_free(&rec);
        }
    }
    printf("TraceEvent comparison: %" PRIu64 " allocation events, %" PRIu64 " frames (%" PRIu64
           " named alike, %" PRIu64 " TraceEvent cannot name), %" PRIu64 " differences\n",
           events, frames, named, te_unnamed, diffs);
    if (!events) {
        FAIL("no allocation event");
    }
    gcev_trace_close(t);
    oracle_lines_free(&ol);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: check_allocs TRACE WORKLOAD.jsonl [ORACLE.jsonl]\n");
        return 2;
    }
    gcev_trace_options opts = {
        .struct_size = sizeof opts, .order = GCEV_TRACE_ORDER_TIME, .max_block_size = 0, .keep_going = 0};
    gcev_trace *t;
    gcev_error e;
    if (gcev_trace_open_file(argv[1], &opts, &t, &e) != GCEV_OK) {
        fprintf(stderr, "check_allocs: %s: %s\n", argv[1], e.message);
        return 1;
    }
    gcev_allocs *a;
    if (gcev_allocs_create(NULL, &a) != GCEV_OK) {
        return 1;
    }
    gcev_status st = gcev_allocs_read_trace(a, t, &e);
    gcev_trace_close(t);
    if (st != GCEV_OK) {
        FAIL("%s: %s at offset %" PRIu64, argv[1], e.message ? e.message : gcev_status_str(st), e.offset);
    }
    const gcev_allocs_summary *s = gcev_allocs_get_summary(a);
    if (s->decode_errors) {
        FAIL("%" PRIu64 " events did not decode", s->decode_errors);
    }
    check_sites(a, argv[2]);
    if (argc > 3) {
        compare_oracle(a, argv[1], argv[3]);
    }
    gcev_allocs_free(a);
    printf("%s\n", g_fail ? "FAILED" : "ok");
    return g_fail;
}
