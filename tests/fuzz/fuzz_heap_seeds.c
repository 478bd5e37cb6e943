/* SPDX-License-Identifier: MIT */
/*
 * The seeds of fuzz_heap: the tests' dumps (tests/heap/heap_events.h's builder, its
 * events recorded instead of read) in the harness's even-byte format
 * ([id index][pid][ms step][size u16][payload] after a 0 byte), and a few inputs of its
 * structured mode (odd first byte).
 *
 *   fuzz_heap_seeds DIR     writes DIR/*.bin
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../heap/heap_events.h"

static const uint16_t ids[] = {1, 2, 15, 16, 17, 18, 19, 36, 37, 38};
static hev_buf seed;
static double last_ms;

static void record(uint16_t id, const uint8_t *payload, size_t n, uint32_t pid, double ms)
{
    uint8_t ix = 0;
    while (ids[ix] != id) {
        ix++;
    }
    double step = ms - last_ms;
    last_ms = ms;
    hev_u8(&seed, ix);
    hev_u8(&seed, (uint8_t)pid);
    hev_u8(&seed, (uint8_t)(step < 0 ? 0 : step > 255 ? 255 : step));
    hev_u16(&seed, (uint16_t)n);
    hev_put(&seed, payload, n);
}

static int write_seed(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bin", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(seed.b, 1, seed.n, f) != seed.n || fclose(f) != 0) {
        fprintf(stderr, "fuzz_heap_seeds: cannot write %s\n", path);
        return 1;
    }
    seed.n = 0;
    hev_u8(&seed, 0); /* the next seed's mode byte: raw events */
    last_ms = 0;
    return 0;
}

enum { T_A = 0x500, T_B, T_C, T_D };

static void types(hev_buf *w, uint32_t pid)
{
    hev_type(NULL, w, T_A, "App.Node`1[System.String]", pid, 0);
    hev_type(NULL, w, T_B, "App.Left", pid, 0);
    hev_type(NULL, w, T_C, "App.Right", pid, 0);
    hev_type(NULL, w, T_D, "System.Int32[]", pid, 0);
}

/* a diamond with a cycle back to the top (the tests' dominator case) */
static void diamond(hev_buf *w, uint32_t pid, uint32_t gc, double t0, int extra)
{
    hev_gc(NULL, w, 1, gc, pid, t0 + 1);
    hev_node n[] = {{0x100, 10, T_A, 2}, {0x200, 20, T_B, 1}, {0x300, 30, T_C, 1},
                    {0x400, 40, T_D, 1}, {0x500, 50, T_D, 1}, {0x600, 60, T_A, 0}};
    hev_nodes(NULL, w, 0, n, 6 - (extra ? 0 : 1), pid, t0 + 2);
    uint64_t e[] = {0x200, 0x300, 0x400, 0x400, 0x500, 0x100};
    hev_edges(NULL, w, 0, e, 6, pid, t0 + 3);
    hev_root(NULL, w, 0, 0x100, 0, 0, pid, t0 + 4);
    hev_gc(NULL, w, 0, gc, pid, t0 + 5);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_heap_seeds DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    hev_capture = record;
    hev_buf w = {0};
    int rc = 0;
    hev_u8(&seed, 0);
    types(&w, 1);
    diamond(&w, 1, 1, 0, 1);
    rc |= write_seed(dir, "diamond");

    /* every root kind, a weak handle, a CWT pair, a static, a dangling root */
    types(&w, 1);
    hev_gc(NULL, &w, 1, 1, 1, 0);
    hev_node n[] = {{0x100, 10, T_A, 2}, {0x200, 20, T_B, 1}, {0x300, 30, T_C, 1},
                    {0x400, 40, T_D, 0}, {0x700, 70, T_B, 0}, {0x800, 80, T_C, 0}};
    hev_nodes(NULL, &w, 0, n, 6, 1, 1);
    uint64_t e[] = {0x200, 0x300, 0x400, 0x400};
    hev_edges(NULL, &w, 0, e, 4, 1, 2);
    hev_root(NULL, &w, 0, 0x100, 0, 0, 1, 3);
    hev_root(NULL, &w, 1, 0x300, 2, 0x1, 1, 3);
    hev_root(NULL, &w, 2, 0x800, 2, 0x2, 1, 3);
    hev_root(NULL, &w, 3, 0x900, 1, 0, 1, 3);
    hev_cwt(NULL, &w, 0x200, 0x700, 1, 4);
    hev_static(NULL, &w, 0x100, T_A, "s_root", 1, 4);
    hev_gc(NULL, &w, 0, 1, 1, 5);
    rc |= write_seed(dir, "roots");

    /* two dumps of one process and one of another (the diff's input) */
    types(&w, 1);
    diamond(&w, 1, 3, 0, 0);
    diamond(&w, 1, 4, 10, 1);
    types(&w, 2);
    diamond(&w, 2, 1, 20, 1);
    rc |= write_seed(dir, "dumps");

    /* damaged: an Index gap, counts the edges do not back, no GCEnd */
    types(&w, 1);
    hev_gc(NULL, &w, 1, 2, 1, 0);
    hev_nodes(NULL, &w, 0, n, 3, 1, 1);
    hev_nodes(NULL, &w, 2, n + 3, 3, 1, 1);
    hev_edges(NULL, &w, 0, e, 2, 1, 2);
    hev_root(NULL, &w, 0, 0x100, 0, 0, 1, 3);
    rc |= write_seed(dir, "damaged");

    /* the structured mode: graphs described byte by byte */
    static const uint8_t s1[] = {1, 3,  0, 1, 2, 12, 0, 10, 0,    2, 1, 1, 2, 1, 20, 1, 1, 2, 2, 30, 2, 1, 0,
                                 3, 40, 3, 0, 4, 50, 1, 3,  0xff, 1, 2, 3, 0, 1, 3,  0, 5, 3, 1, 2,  4, 0, 1};
    static const uint8_t s2[] = {5, 1, 1, 2, 1, 8, 9, 9, 0x82, 9, 9, 9, 9, 2, 1, 2, 3, 1, 4, 0, 3, 9,
                                 0, 0, 2, 7, 8, 9, 3, 5, 1,    7, 1, 2, 2, 0, 0, 0, 5, 4, 4, 1, 9, 9};
    seed.n = 0;
    hev_put(&seed, s1, sizeof s1);
    rc |= write_seed(dir, "graph");
    seed.n = 0;
    hev_put(&seed, s2, sizeof s2);
    rc |= write_seed(dir, "graphs");
    free(w.b);
    free(seed.b);
    return rc;
}
