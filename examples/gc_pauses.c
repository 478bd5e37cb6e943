/* SPDX-License-Identifier: MIT */
/*
 * The loop a profiler writes: open a trace, walk its events in timestamp order,
 * decode the GC events, feed them to a GC model (gcev_stats), and print per GC
 * its number, generation, reason and pause.
 *
 *   gc_pauses TRACE      (.nettrace, .netperf, .etl; "-" for standard input)
 *
 * Prints "GC <number> gen <generation> <reason> pause <ms> ms" per GC ("-" when
 * the trace holds no suspension for it), then the GC count.
 */
#include <gcev/gcev_stats.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gc_pauses TRACE\n");
        return 2;
    }
    /* the GC model needs timestamp order: file order interleaves threads */
    gcev_trace_options opts = {.struct_size = sizeof opts, .order = GCEV_TRACE_ORDER_TIME};
    gcev_trace *t;
    gcev_error err;
    if (gcev_trace_open_file(argv[1], &opts, &t, &err) != GCEV_OK) {
        fprintf(stderr, "%s: %s (offset %llu)\n", argv[1], err.message, (unsigned long long)err.offset);
        return 1;
    }
    gcev_stats *stats;
    if (gcev_stats_create(NULL, &stats) != GCEV_OK) {
        gcev_trace_close(t);
        return 1;
    }
    gcev_trace_event ev;
    gcev_status st;
    unsigned long long decoded = 0;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        if (!ev.provider) {
            continue; /* not a provider with GC events */
        }
        /* decode with the compiled schema: unknown ids are not GC events */
        gcev_input in = {.struct_size = sizeof in,
                         .provider = ev.provider,
                         .event_id = ev.event_id,
                         .version = ev.version,
                         .pointer_size = ev.pointer_size,
                         .data = ev.payload,
                         .size = ev.payload_size};
        gcev_event gc;
        if (gcev_decode(&in, &gc, NULL) != GCEV_OK) {
            continue;
        }
        decoded++;
        /* a profiler would look at gc.u.<family> here; the model takes the decoded event */
        if (gcev_stats_add_decoded_process(stats, &gc, ev.ms, ev.thread_id, ev.process_id) == GCEV_E_NOMEM) {
            st = GCEV_E_NOMEM;
            break;
        }
    }
    int rc = 0;
    if (st != GCEV_END) {
        fprintf(stderr, "%s: %s (offset %llu)\n", argv[1], err.message, (unsigned long long)err.offset);
        rc = 1;
    }
    gcev_stats_finish(stats);
    for (size_t i = 0; i < gcev_stats_gc_count(stats); i++) {
        const gcev_stats_gc *g = gcev_stats_gc_at(stats, i);
        const char *reason = gcev_gc_reason_name(g->reason);
        printf("GC %u gen %u %s pause ", g->number, g->generation, reason ? reason : "?");
        if (g->present & GCEV_STATS_GC_HAS_PAUSE) {
            printf("%.3f ms\n", g->pause_ms);
        } else {
            printf("- ms\n");
        }
    }
    printf("%zu GCs from %llu decoded GC events\n", gcev_stats_gc_count(stats), decoded);
    gcev_stats_free(stats);
    gcev_trace_close(t);
    return rc;
}
