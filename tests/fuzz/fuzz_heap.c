/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: heap snapshots (gcev_heap.h): the graph builder and every analysis on hostile
 * bulk events. Byte 0 chooses:
 *  - even: the rest is a list of events fed to a gcev_heap_reader as they are, each
 *    [id u8: index into the reader's events (GCStart, GCEnd, BulkType, GCBulkRootEdge,
 *    CWT element, GCBulkNode, GCBulkEdge, CCW, RCW, GCBulkRootStaticVar)][pid u8 % 3]
 *    [ms step u8][payload size u16][payload] (the seeds, tests/fuzz/fuzz_heap_seeds.c,
 *    are the tests' dumps written this way);
 *  - odd: the rest describes a graph that tests/heap/heap_events.h's builder writes as
 *    well-formed events whose contents lie: addresses from a small pool (duplicate objects,
 *    references and roots to addresses that are no object, self references and cycles),
 *    EdgeCounts that the GCBulkEdge values do not back (short or extra), node and edge
 *    events split anywhere with any Index, roots of every kind, CWT pairs, statics, a
 *    second dump of the process (and GCEnds that are missing or name another GC).
 * Every dump is then analysed: dominators and retained sizes, the type table, the top
 * retainers, a path to objects of each type, nearest objects, and the diff of dump 0
 * with each dump. Invariants checked: indexes in range, a reachable object's retained
 * size at least its own and its dominator reachable, sums of the type table equal the
 * dump's, retained bytes per type within the dump's bytes, a path is a chain of
 * references from a rooted object. Sizes are the runtime's u64s (the raw mode gives any):
 * every byte sum stops at 2^64-1 instead of wrapping, so these hold for any size, and the
 * dump says when its sizes overflowed.
 */
#include <stdlib.h>
#include <string.h>

#include "../heap/heap_events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint16_t ids[] = {1, 2, 15, 16, 17, 18, 19, 36, 37, 38};

#define CHECK(c)                                                                                             \
    do {                                                                                                     \
        if (!(c)) {                                                                                          \
            abort();                                                                                         \
        }                                                                                                    \
    } while (0)

static void raw(gcev_heap_reader *r, const uint8_t *p, size_t n)
{
    double ms = 0;
    while (n >= 5) {
        uint16_t id = ids[p[0] % (sizeof ids / sizeof ids[0])];
        uint32_t pid = p[1] % 3;
        ms += p[2];
        size_t len = (size_t)p[3] | (size_t)p[4] << 8;
        p += 5;
        n -= 5;
        if (len > n) {
            len = n;
        }
        gcev_trace_event ev;
        memset(&ev, 0, sizeof ev);
        ev.provider_name = "Microsoft-Windows-DotNETRuntime";
        ev.provider = gcev_provider_find("Microsoft-Windows-DotNETRuntime");
        ev.event_id = id;
        ev.version = (id == 1 || id == 2) ? 1 : 0;
        ev.process_id = pid;
        ev.pointer_size = 8;
        ev.payload = len ? p : NULL;
        ev.payload_size = (uint32_t)len;
        ev.ms = ms;
        ev.timestamp = (int64_t)(ms * 1000);
        gcev_heap_reader_add(r, &ev);
        p += len;
        n -= len;
    }
}

/* the structured mode's reader of the input */
typedef struct src {
    const uint8_t *p;
    size_t n;
} src;

static uint8_t take(src *s)
{
    if (!s->n) {
        return 0;
    }
    s->n--;
    return *s->p++;
}

static uint64_t addr(uint8_t b)
{
    return 0x10000 + (uint64_t)(b % 72) * 32; /* a pool of 72: most nodes exist, some do not */
}

static void graph(gcev_heap_reader *r, src *s, uint32_t pid, double t0)
{
    hev_buf w = {0};
    uint8_t flags = take(s);
    if (flags & 1) {
        hev_type(r, &w, 0x500 + take(s) % 4, "App.Node`1[System.String]", pid, t0);
        hev_type(r, &w, 0x500 + take(s) % 4, "System.Byte[]", pid, t0);
    }
    uint32_t gc = 1 + take(s) % 3;
    if (!(flags & 2)) {
        hev_gc(r, &w, 1, gc, pid, t0 + 1);
    }
    uint32_t nn = take(s) % 48;
    hev_node nodes[48];
    uint64_t edges[48 * 4 + 8];
    uint32_t ne = 0, want = 0;
    for (uint32_t i = 0; i < nn; i++) {
        nodes[i].addr = addr(take(s));
        nodes[i].size = take(s);
        nodes[i].type = 0x500 + take(s) % 6; /* types 4, 5: no BulkType names them */
        uint8_t k = take(s);
        nodes[i].nedges = k % 5;
        if (k & 0x80) {
            nodes[i].nedges = 0xffffffffu + (uint64_t)(k & 3); /* a count that lies wildly */
        }
        want += (uint32_t)(nodes[i].nedges % 5);
        for (uint32_t j = 0; j < (uint32_t)(k % 5) && ne < sizeof edges / sizeof edges[0]; j++) {
            uint8_t e = take(s);
            edges[ne++] = e == 0xff ? nodes[i].addr : addr(e); /* self references too */
        }
    }
    /* fewer or more edge values than the counts ask for */
    uint8_t fix = take(s);
    if ((fix & 3) == 1 && ne) {
        ne -= 1 + fix % ne;
        ne = ne > sizeof edges / sizeof edges[0] ? 0 : ne;
    } else if ((fix & 3) == 2) {
        for (int j = 0; j < 4 && ne < sizeof edges / sizeof edges[0]; j++) {
            edges[ne++] = addr(take(s));
        }
    }
    (void)want;
    /* the node and edge events, split where the input says, Index as it says */
    uint8_t split = 1 + take(s) % 16, ix = take(s);
    for (uint32_t i = 0, k = 0; i < nn; i += split, k++) {
        uint32_t c = nn - i < split ? nn - i : split;
        hev_nodes(r, &w, (ix & 1) ? k * 2 : k, nodes + i, c, pid, t0 + 2);
    }
    for (uint32_t i = 0, k = 0; i < ne; i += split * 2u, k++) {
        uint32_t c = ne - i < split * 2u ? ne - i : split * 2u;
        hev_edges(r, &w, (ix & 2) ? k + 1 : k, edges + i, c, pid, t0 + 3);
    }
    uint8_t nr = take(s) % 8;
    for (uint8_t i = 0; i < nr; i++) {
        uint8_t kind = take(s), a = take(s);
        switch (kind % 6) {
        case 0:
        case 1:
        case 2:
            hev_root(r, &w, i, addr(a), kind % 3, take(s) & 0xf, pid, t0 + 4);
            break;
        case 3:
            hev_cwt(r, &w, addr(a), addr(take(s)), pid, t0 + 4);
            break;
        case 4:
            hev_static(r, &w, addr(a), 0x500 + take(s) % 6, "s_field", pid, t0 + 4);
            break;
        default:
            hev_root(r, &w, i, 0xdead0000 + a, 0, 0, pid, t0 + 4); /* no object there */
            break;
        }
    }
    if (!(flags & 4)) {
        hev_gc(r, &w, 0, (flags & 8) ? gc + 1 : gc, pid, t0 + 5);
    }
    free(w.b);
}

static void check_dump(gcev_heap *h)
{
    CHECK(gcev_heap_analyze(h) == GCEV_OK);
    CHECK(gcev_heap_analyze(h) == GCEV_OK); /* idempotent */
    const gcev_heap_info *in = gcev_heap_get_info(h);
    CHECK(in->analyzed);
    uint32_t n = gcev_heap_object_count(h);
    CHECK(n == in->objects);
    size_t nt = gcev_heap_type_count(h);
    CHECK(nt == in->types);
    uint64_t bytes = 0, refs = 0, unreachable = 0;
    int has_cwt = 0, overflow = 0;
    for (size_t i = 0; i < gcev_heap_root_count(h); i++) {
        gcev_heap_root rt;
        CHECK(gcev_heap_root_get(h, i, &rt) == GCEV_OK);
        has_cwt |= rt.kind == GCEV_HEAP_ROOT_CWT;
    }
    for (uint32_t i = 0; i < n; i++) {
        gcev_heap_object o;
        CHECK(gcev_heap_object_get(h, i, &o) == GCEV_OK);
        CHECK(o.type < nt);
        overflow |= bytes > UINT64_MAX - o.size;
        bytes = bytes > UINT64_MAX - o.size ? UINT64_MAX : bytes + o.size;
        refs += o.references;
        for (uint32_t k = 0; k < o.references; k++) {
            CHECK(gcev_heap_object_ref(h, i, k) < n);
        }
        CHECK(gcev_heap_object_ref(h, i, o.references) == GCEV_HEAP_NONE);
        CHECK(gcev_heap_object_find(h, o.address) == i); /* duplicates dropped: addresses unique */
        if (o.reachable) {
            CHECK(o.retained >= o.size);
            if (o.idom != GCEV_HEAP_NONE) {
                gcev_heap_object d;
                CHECK(o.idom < n && o.idom != i);
                CHECK(gcev_heap_object_get(h, o.idom, &d) == GCEV_OK && d.reachable);
                CHECK(d.retained >= o.retained);
            }
            uint32_t path[16];
            size_t len = 99, root = 99;
            CHECK(gcev_heap_path(h, i, path, 16, &len, &root) == GCEV_OK);
            CHECK(len >= 1 && len <= 16 && root < gcev_heap_root_count(h));
            gcev_heap_root rt;
            CHECK(gcev_heap_root_get(h, root, &rt) == GCEV_OK);
            for (size_t k = 0; k + 1 < len; k++) {
                gcev_heap_object a;
                gcev_heap_object_get(h, path[k], &a);
                int found = 0;
                for (uint32_t m = 0; m < a.references; m++) {
                    found |= gcev_heap_object_ref(h, path[k], m) == path[k + 1];
                }
                CHECK(found || has_cwt); /* a CWT element is a reference key -> value */
            }
            if (len < 16) {
                CHECK(path[len - 1] == i);
            }
        } else {
            unreachable++;
            CHECK(o.idom == GCEV_HEAP_NONE);
            CHECK(o.retained == o.size);
        }
    }
    CHECK(bytes == in->bytes && refs == in->references && unreachable == in->unreachable_objects);
    CHECK(!overflow == !(in->flags & GCEV_HEAP_SIZE_OVERFLOW));
    uint64_t tb = 0, to = 0;
    for (size_t t = 0; t < nt; t++) {
        gcev_heap_type ty;
        CHECK(gcev_heap_type_get(h, t, &ty) == GCEV_OK && ty.name);
        CHECK(ty.retained <= in->bytes && ty.max_retained <= ty.retained);
        tb = tb > UINT64_MAX - ty.bytes ? UINT64_MAX : tb + ty.bytes;
        to += ty.objects;
        CHECK(gcev_heap_type_find(h, ty.name) != GCEV_HEAP_NONE);
        uint32_t near = gcev_heap_type_nearest(h, (uint32_t)t);
        CHECK(near == GCEV_HEAP_NONE || near < n);
    }
    CHECK(tb == in->bytes && to == in->objects);
    for (size_t i = 0; i < gcev_heap_root_count(h); i++) {
        gcev_heap_root rt;
        CHECK(gcev_heap_root_get(h, i, &rt) == GCEV_OK && rt.kind < GCEV_HEAP_ROOT_KINDS && rt.name);
        CHECK(rt.object == GCEV_HEAP_NONE || rt.object < n);
    }
    uint32_t top[8];
    size_t nt8 = gcev_heap_top_retainers(h, top, 8);
    CHECK(nt8 <= 8);
    for (size_t i = 0; i < nt8; i++) {
        CHECK(top[i] < n);
    }
    for (size_t i = 0; i < gcev_heap_problem_count(h); i++) {
        CHECK(gcev_heap_problem_at(h, i) != NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    gcev_heap_reader *r;
    if (gcev_heap_reader_new(&r) != GCEV_OK) {
        return 0;
    }
    if (!(data[0] & 1)) {
        raw(r, data + 1, size - 1);
    } else {
        src s = {data + 1, size - 1};
        uint8_t dumps = 1 + (data[0] >> 1) % 3;
        for (uint8_t d = 0; d < dumps && s.n; d++) {
            graph(r, &s, d == 2 ? 9 : 1, d * 10.0);
        }
    }
    gcev_heap_set *set = NULL;
    if (gcev_heap_reader_finish(r, NULL, &set) != GCEV_OK) {
        return 0;
    }
    size_t nd = gcev_heap_set_count(set);
    for (size_t i = 0; i < nd; i++) {
        check_dump(gcev_heap_set_at(set, i));
    }
    for (size_t i = 0; i < nd; i++) {
        gcev_heap_diff_row *rows = NULL;
        size_t nr = 0;
        gcev_heap *b = gcev_heap_set_at(set, i);
        CHECK(gcev_heap_diff(gcev_heap_set_at(set, 0), b, &rows, &nr) == GCEV_OK);
        for (size_t k = 0; k < nr; k++) {
            CHECK(rows[k].name);
            CHECK(rows[k].new_object == GCEV_HEAP_NONE || rows[k].new_object < gcev_heap_object_count(b));
            if (i == 0) {
                CHECK(rows[k].objects_a == rows[k].objects_b && rows[k].new_object == GCEV_HEAP_NONE);
            }
        }
        free(rows);
    }
    gcev_heap_set_free(set);
    return 0;
}
