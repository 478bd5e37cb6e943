/* SPDX-License-Identifier: MIT */
/*
 * What a program built against an installed gcev does first: decode a payload
 * (gcev.h), open a trace (gcev_trace.h) and create a GC model (gcev_stats.h).
 * Built by tests/cmake/install_check.cmake with find_package and with pkg-config.
 */
#include <gcev/gcev_stats.h>
#include <stdio.h>

int main(void)
{
    static const unsigned char payload[] = {12, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0,
                                            0,  0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    gcev_input in = {.struct_size = sizeof in,
                     .provider = gcev_provider_find("Microsoft-Windows-DotNETRuntime"),
                     .event_id = 1,
                     .version = 2,
                     .pointer_size = 8,
                     .data = payload,
                     .size = sizeof payload};
    gcev_event ev;
    gcev_error err;
    if (gcev_decode(&in, &ev, &err) != GCEV_OK) {
        fprintf(stderr, "decode: %s\n", err.message);
        return 1;
    }
    const char *reason = gcev_gc_reason_map_name(ev.u.gc_start.reason);
    gcev_trace *t = NULL;
    gcev_status st = gcev_trace_open_memory("x", 1, NULL, &t, &err);
    gcev_stats *s = NULL;
    if (gcev_stats_create(NULL, &s) != GCEV_OK) {
        return 1;
    }
    printf("GC %u gen %u %s; open: %s\n", ev.u.gc_start.count, ev.u.gc_start.depth, reason ? reason : "?",
           gcev_status_str(st));
    gcev_stats_free(s);
    return 0;
}
