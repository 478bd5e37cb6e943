/* SPDX-License-Identifier: MIT */
/*
 * make_stats_scenarios OUTDIR: writes each scenario of stats_scenarios.h as
 * OUTDIR/<name>.nettrace (NetTrace V4, compressed headers, 64-bit, process SCEN_PID, a 10 MHz
 * clock), the files committed in tests/data/stats. Deterministic: the test
 * stats_scenarios_reproducible compares its output with the committed files. After changing a
 * scenario, regenerate the files and TraceEvent's reading of them:
 *   build/tests/make_stats_scenarios tests/data/stats
 *   for t in tests/data/stats/[a-z]*.nettrace; do
 *     gcev-oracle --manifest manifest/gc.man -o "${t%.nettrace}.oracle.jsonl" "$t"; done
 * (tests/runtime/README.md builds gcev-oracle; the runtime-labelled test
 * stats_scenarios_oracle checks the committed readings are current).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev_writer.h>

#include "stats_scenarios.h"

typedef struct out {
    gcev_writer *w;
    uint32_t meta[2][256][8]; /* per provider (runtime, private), id % 256, version */
    int failed;
} out;

static void emit(void *ctx, const gcev_provider *provider, uint16_t id, uint16_t version, gcev_event *ev,
                 double ms, uint64_t tid)
{
    out *o = ctx;
    gcev_status st;
    ev->desc = gcev_event_desc_resolve(provider, id, version, &st);
    ev->pointer_size = 8;
    uint8_t buf[2048];
    size_t n = 0;
    gcev_provider_info info;
    if (!ev->desc || gcev_encode(ev, buf, sizeof buf, &n, NULL) != GCEV_OK ||
        gcev_provider_get_info(provider, &info) != GCEV_OK || id >= 256 || version >= 8) {
        fprintf(stderr, "make_stats_scenarios: cannot encode event %u version %u\n", id, version);
        o->failed = 1;
        return;
    }
    uint32_t *meta = &o->meta[provider != &gcev_provider_runtime][id][version];
    if (!*meta) {
        gcev_writer_meta m = {info.name, id, (uint8_t)version, 0, 4, 1, "", NULL, 0};
        if (gcev_writer_define(o->w, &m, meta) != GCEV_OK) {
            o->failed = 1;
            return;
        }
    }
    gcev_writer_event e = {*meta, tid,         tid,  0, 0,  (int64_t)(ms * 10000.0 + 0.5),
                           buf,   (uint32_t)n, NULL, 0, {0}};
    if (gcev_writer_write(o->w, &e) != GCEV_OK) {
        o->failed = 1;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_stats_scenarios OUTDIR\n");
        return 2;
    }
    for (size_t i = 0; i < stats_scenario_count; i++) {
        const stats_scenario *sc = &stats_scenarios[i];
        static out o;
        memset(&o, 0, sizeof o);
        gcev_writer_options opts = {4, 1, 8, SCEN_PID, 2, 10000000, 0};
        if (gcev_writer_create(&opts, &o.w) != GCEV_OK) {
            return 1;
        }
        sc->run(emit, &o);
        const uint8_t *data;
        size_t n;
        if (o.failed || gcev_writer_finish(o.w, &data, &n) != GCEV_OK) {
            fprintf(stderr, "make_stats_scenarios: %s failed\n", sc->name);
            return 1;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.nettrace", argv[1], sc->name);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
            fprintf(stderr, "make_stats_scenarios: cannot write %s\n", path);
            return 1;
        }
        gcev_writer_free(o.w);
    }
    return 0;
}
