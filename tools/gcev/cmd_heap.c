/* SPDX-License-Identifier: MIT */
/*
 * gcev heap [--format text|json|csv] [--dump N] [--top N] [--type NAME] [--paths]
 *           [--compat gcdump] FILE
 * gcev heap [--format ...] --diff A [B]
 * gcev heap [--format ...] --pid PID [--record FILE] [--timeout S]
 * Heap snapshots (gcev_heap.h): objects and bytes per type, retained sizes from the
 * dominator tree, the biggest retainers, roots by kind, shortest paths from a root,
 * the difference of two dumps; --pid starts a heap-dump session (the runtime forces
 * a full blocking GC) and analyses the dump it gives.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev_heap.h>

#include "cli.h"
#include "cli_session.h"
#include "cli_trace.h"
#include "commands.h"

enum { FMT_TEXT, FMT_JSON, FMT_CSV };
#define HEAP_JSON_VERSION 1
#define PATH_MAX_SHOWN 64

typedef struct heap_opts {
    int fmt;
    size_t dump; /* 1-based, 0 = default */
    size_t top;
    const char *type;
    int paths;
    int gcdump;
} heap_opts;

static void usage(FILE *f)
{
    fprintf(f, "usage: gcev heap [--format text|json|csv] [--dump N] [--top N] [--type NAME] [--paths]\n"
               "                 [--compat gcdump] FILE\n"
               "       gcev heap [--format text|json|csv] [--top N] --diff A [B]\n"
               "       gcev heap [--format ...] --pid PID [--record FILE] [--timeout S]\n"
               "What survives: the heap dump(s) in a trace of the runtime's bulk heap events (as\n"
               "dotnet-gcdump or 'gcev record --profile heap' capture them): objects and bytes per\n"
               "type with their share, retained sizes (dominator tree over every root), the biggest\n"
               "retainers, roots by kind, and with --paths the shortest path from a root to the\n"
               "nearest object of each type shown (root kind, static field, then the types on the\n"
               "way). Each dump of a trace (several GCs, several processes) is listed apart;\n"
               "--dump N analyses the N-th (default the first complete one). A dump whose events\n"
               "were lost, damaged or cut is analysed and labelled partial, its problems located.\n"
               "  --top N        rows of each table (default 20; 0: all)\n"
               "  --type NAME    only this type (exact name as shown), with its path from a root\n"
               "  --compat gcdump  type rows as dotnet-gcdump's report splits them: objects over\n"
               "                 1000 bytes in rows \"Name (Bytes > 1K)\" ... (doc/heap.md)\n"
               "  --diff A [B]   types whose count or bytes grew from dump A to dump B (two files,\n"
               "                 or one file's dumps N and N+1 with --dump N), with the path of a\n"
               "                 new object of each\n"
               "  --pid PID      attach, ask for a heap dump (GCHeapSnapshot keywords, as\n"
               "                 dotnet-gcdump does; the forced GC is announced on stderr before\n"
               "                 it happens), wait for the dump's end and analyse it;\n"
               "                 --record FILE keeps the session's stream\n");
}

/* ---- text helpers ---- */

static void json_u64(const char *k, uint64_t v, int comma)
{
    printf("%s\"%s\":%" PRIu64, comma ? "," : "", k, v);
}

static const char *dump_state(const gcev_heap_info *in)
{
    return (in->flags & GCEV_HEAP_PARTIAL_MASK) ? "partial" : "complete";
}

static void flag_names(uint32_t f, char *buf, size_t n)
{
    static const char *const names[] = {"no_start",    "no_end",       "events_lost", "index_gap",
                                        "edges_short", "edges_extra",  "bad_event",   "skipped",
                                        "limit",       "size_overflow"};
    buf[0] = '\0';
    size_t at = 0;
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (f & (1u << i)) {
            int w = snprintf(buf + at, n - at, "%s%s", at ? "," : "", names[i]);
            if (w < 0 || (size_t)w >= n - at) {
                break;
            }
            at += (size_t)w;
        }
    }
}

/* ---- the dump list ---- */

static void print_dump_line(size_t i, size_t n, const gcev_heap_info *in)
{
    char fl[160];
    flag_names(in->flags, fl, sizeof fl);
    printf("dump %zu of %zu: process %u, ", i + 1, n, in->process_id);
    if (in->has_gc) {
        printf("GC #%u", in->gc_number);
    } else {
        printf("GC unknown");
    }
    printf(", %.3f-%.3f ms: %s%s%s%s\n", in->start_ms, in->end_ms, dump_state(in), fl[0] ? " (" : "", fl,
           fl[0] ? ")" : "");
    printf("  %" PRIu64 " objects, %" PRIu64 " bytes, %" PRIu64 " references, %" PRIu64 " roots, %" PRIu64
           " types\n",
           in->objects, in->bytes, in->references, in->roots, in->types);
}

static void json_info(const gcev_heap *h, size_t i)
{
    const gcev_heap_info *in = gcev_heap_get_info(h);
    char fl[160];
    flag_names(in->flags, fl, sizeof fl);
    printf("{\"dump\":%zu,\"process_id\":%u", i + 1, in->process_id);
    if (in->has_gc) {
        printf(",\"gc\":%u", in->gc_number);
    }
    printf(",\"start_ms\":%.6f,\"end_ms\":%.6f,\"state\":\"%s\",\"flags\":[", in->start_ms, in->end_ms,
           dump_state(in));
    for (char *p = fl; *p;) {
        char *c = strchr(p, ',');
        printf("%s\"%.*s\"", p == fl ? "" : ",", c ? (int)(c - p) : (int)strlen(p), p);
        p = c ? c + 1 : p + strlen(p);
    }
    printf("]");
    json_u64("objects", in->objects, 1);
    json_u64("bytes", in->bytes, 1);
    json_u64("references", in->references, 1);
    json_u64("roots", in->roots, 1);
    json_u64("types", in->types, 1);
    json_u64("duplicate_objects", in->duplicate_objects, 1);
    json_u64("dangling_references", in->dangling_references, 1);
    json_u64("dangling_roots", in->dangling_roots, 1);
    json_u64("missing_references", in->missing_references, 1);
    json_u64("extra_references", in->extra_references, 1);
    json_u64("unknown_types", in->unknown_types, 1);
    json_u64("bad_events", in->bad_events, 1);
    json_u64("lost_events", in->lost_events, 1);
    if (in->analyzed) {
        json_u64("unreachable_objects", in->unreachable_objects, 1);
        json_u64("unreachable_bytes", in->unreachable_bytes, 1);
    }
    printf(",\"problems\":[");
    for (size_t p = 0; p < gcev_heap_problem_count(h); p++) {
        printf("%s", p ? "," : "");
        gcev_cli_json_string(stdout, gcev_heap_problem_at(h, p));
    }
    printf("]");
}

/* ---- paths ---- */

static void print_path(gcev_heap *h, uint32_t obj, int json)
{
    uint32_t path[PATH_MAX_SHOWN];
    size_t len = 0, root = 0;
    if (gcev_heap_path(h, obj, path, PATH_MAX_SHOWN, &len, &root) != GCEV_OK || len == 0) {
        if (json) {
            printf("null");
        } else {
            printf("    (no root reaches it)\n");
        }
        return;
    }
    gcev_heap_root rt;
    gcev_heap_root_get(h, root, &rt);
    if (json) {
        printf("{\"root_kind\":");
        gcev_cli_json_string(stdout, gcev_heap_root_kind_name(rt.kind));
        if (rt.name[0]) {
            printf(",\"root_name\":");
            gcev_cli_json_string(stdout, rt.name);
        }
        printf(",\"length\":%zu,\"objects\":[", len);
    } else {
        printf("    [%s%s%s]", gcev_heap_root_kind_name(rt.kind), rt.name[0] ? " " : "", rt.name);
    }
    size_t shown = len < PATH_MAX_SHOWN ? len : PATH_MAX_SHOWN;
    for (size_t i = 0; i < shown; i++) {
        gcev_heap_object o;
        gcev_heap_type t;
        gcev_heap_object_get(h, path[i], &o);
        gcev_heap_type_get(h, o.type, &t);
        if (json) {
            printf("%s{\"address\":%" PRIu64 ",\"type\":", i ? "," : "", o.address);
            gcev_cli_json_string(stdout, t.name);
            printf("}");
        } else {
            printf(" -> %s", t.name);
        }
    }
    if (json) {
        printf("]}");
    } else {
        printf("%s\n", len > shown ? " -> ..." : "");
    }
}

/* ---- dotnet-gcdump's rows: objects over 1000 bytes apart, by decade ---- */

static const char *const gcdump_suffix[] = {"",
                                            " (Bytes > 1K)",
                                            " (Bytes > 10K)",
                                            " (Bytes > 100K)",
                                            " (Bytes > 1M)",
                                            " (Bytes > 10M)",
                                            " (Bytes > 100M)"};

static int gcdump_bucket(uint64_t size)
{
    /* DotNetHeapDumpGraphReader.GetTypeIndex: a suffix only when the (int) size > 1000 */
    if (size <= 1000) {
        return 0;
    }
    int b = 1;
    for (uint64_t lim = 10000; b < 6 && size >= lim; lim *= 10) {
        b++;
    }
    return b;
}

static int print_gcdump_types(gcev_heap *h, int fmt)
{
    size_t nt = gcev_heap_type_count(h);
    uint64_t(*cnt)[7] = calloc(nt ? nt : 1, sizeof *cnt);
    uint64_t(*byt)[7] = calloc(nt ? nt : 1, sizeof *byt);
    uint64_t(*first_size)[7] = calloc(nt ? nt : 1, sizeof *first_size);
    if (!cnt || !byt || !first_size) {
        free(cnt);
        free(byt);
        free(first_size);
        fprintf(stderr, "gcev heap: out of memory\n");
        return GCEV_EXIT_TRACE_ERROR;
    }
    for (uint32_t i = 0; i < gcev_heap_object_count(h); i++) {
        gcev_heap_object o;
        gcev_heap_object_get(h, i, &o);
        int b = gcdump_bucket(o.size);
        if (!cnt[o.type][b]) {
            first_size[o.type][b] = o.size; /* what dotnet-gcdump's report prints as "Object Bytes" */
        }
        cnt[o.type][b]++;
        /* sizes come from the trace: a sum that would wrap stops at 2^64-1 (the library's rule) */
        byt[o.type][b] = o.size > UINT64_MAX - byt[o.type][b] ? UINT64_MAX : byt[o.type][b] + o.size;
    }
    if (fmt == FMT_JSON) {
        printf("[");
    } else if (fmt == FMT_CSV) {
        printf("type,objects,bytes,first_size\n");
    }
    int first = 1;
    for (size_t t = 0; t < nt; t++) {
        gcev_heap_type ty;
        gcev_heap_type_get(h, t, &ty);
        for (int b = 0; b < 7; b++) {
            if (!cnt[t][b]) {
                continue;
            }
            if (fmt == FMT_JSON) {
                printf("%s{\"type\":", first ? "" : ",");
                char name[1100];
                snprintf(name, sizeof name, "%s%s", ty.name, gcdump_suffix[b]);
                gcev_cli_json_string(stdout, name);
                printf(",\"objects\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"first_size\":%" PRIu64 "}",
                       cnt[t][b], byt[t][b], first_size[t][b]);
            } else if (fmt == FMT_CSV) {
                printf("\"%s%s\",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", ty.name, gcdump_suffix[b], cnt[t][b],
                       byt[t][b], first_size[t][b]);
            } else {
                printf("%15" PRIu64 "  %8" PRIu64 "  %15" PRIu64 "  %s%s\n", byt[t][b], cnt[t][b],
                       first_size[t][b], ty.name, gcdump_suffix[b]);
            }
            first = 0;
        }
    }
    if (fmt == FMT_JSON) {
        printf("]");
    }
    free(cnt);
    free(byt);
    free(first_size);
    return GCEV_EXIT_OK;
}

/* ---- one dump in detail ---- */

static size_t root_kind_rows(gcev_heap *h, uint64_t count[GCEV_HEAP_ROOT_KINDS],
                             uint64_t retained[GCEV_HEAP_ROOT_KINDS])
{
    memset(count, 0, GCEV_HEAP_ROOT_KINDS * sizeof *count);
    memset(retained, 0, GCEV_HEAP_ROOT_KINDS * sizeof *retained);
    for (size_t i = 0; i < gcev_heap_root_count(h); i++) {
        gcev_heap_root r;
        gcev_heap_root_get(h, i, &r);
        count[r.kind]++;
        if (r.object != GCEV_HEAP_NONE && r.kind != GCEV_HEAP_ROOT_WEAK && r.kind != GCEV_HEAP_ROOT_CWT) {
            gcev_heap_object o;
            gcev_heap_object_get(h, r.object, &o);
            if (o.idom == GCEV_HEAP_NONE) { /* held by the roots alone: its retained size is the roots' */
                retained[r.kind] += o.retained;
            }
        }
    }
    return GCEV_HEAP_ROOT_KINDS;
}

static int show_dump(gcev_heap *h, size_t di, const heap_opts *o)
{
    if (gcev_heap_analyze(h) != GCEV_OK) {
        fprintf(stderr, "gcev heap: out of memory analysing dump %zu\n", di + 1);
        return GCEV_EXIT_TRACE_ERROR;
    }
    const gcev_heap_info *in = gcev_heap_get_info(h);
    size_t nt = gcev_heap_type_count(h);
    size_t top = o->top ? o->top : SIZE_MAX;
    uint32_t only = GCEV_HEAP_NONE;
    if (o->type) {
        only = gcev_heap_type_find(h, o->type);
        if (only == GCEV_HEAP_NONE) {
            fprintf(stderr, "gcev heap: no type '%s' in dump %zu\n", o->type, di + 1);
            return GCEV_EXIT_USAGE;
        }
    }
    if (o->gcdump) {
        return print_gcdump_types(h, o->fmt);
    }
    if (o->fmt == FMT_CSV) {
        printf("dump,type,objects,bytes,share,retained,max_retained\n");
        for (size_t t = 0; t < nt && t < top; t++) {
            if (only != GCEV_HEAP_NONE && t != only) {
                continue;
            }
            gcev_heap_type ty;
            gcev_heap_type_get(h, t, &ty);
            printf("%zu,\"", di + 1);
            for (const char *p = ty.name; *p; p++) {
                fputs(*p == '"' ? "\"\"" : (char[2]){*p, 0}, stdout);
            }
            printf("\",%" PRIu64 ",%" PRIu64 ",%.4f,%" PRIu64 ",%" PRIu64 "\n", ty.objects, ty.bytes,
                   in->bytes ? (double)ty.bytes / (double)in->bytes : 0.0, ty.retained, ty.max_retained);
        }
        return GCEV_EXIT_OK;
    }
    uint64_t rk_count[GCEV_HEAP_ROOT_KINDS], rk_ret[GCEV_HEAP_ROOT_KINDS];
    root_kind_rows(h, rk_count, rk_ret);
    uint32_t *ret = malloc((top < 1000 ? top : 1000) * sizeof *ret);
    size_t nret = ret ? gcev_heap_top_retainers(h, ret, top < 1000 ? top : 1000) : 0;
    if (o->fmt == FMT_JSON) {
        printf(",\"detail\":{\"types\":[");
        int first = 1;
        for (size_t t = 0; t < nt && (only != GCEV_HEAP_NONE || t < top); t++) {
            if (only != GCEV_HEAP_NONE && t != only) {
                continue;
            }
            gcev_heap_type ty;
            gcev_heap_type_get(h, t, &ty);
            printf("%s{\"type\":", first ? "" : ",");
            first = 0;
            gcev_cli_json_string(stdout, ty.name);
            printf(",\"objects\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"share\":%.6f,\"retained\":%" PRIu64
                   ",\"max_retained\":%" PRIu64,
                   ty.objects, ty.bytes, in->bytes ? (double)ty.bytes / (double)in->bytes : 0.0, ty.retained,
                   ty.max_retained);
            if (o->paths || only != GCEV_HEAP_NONE) {
                printf(",\"path\":");
                uint32_t near = gcev_heap_type_nearest(h, (uint32_t)t);
                if (near == GCEV_HEAP_NONE) {
                    printf("null");
                } else {
                    print_path(h, near, 1);
                }
            }
            printf("}");
        }
        printf("],\"roots\":[");
        first = 1;
        for (size_t k = 0; k < GCEV_HEAP_ROOT_KINDS; k++) {
            if (!rk_count[k]) {
                continue;
            }
            printf("%s{\"kind\":\"%s\",\"count\":%" PRIu64 ",\"retained\":%" PRIu64 "}", first ? "" : ",",
                   gcev_heap_root_kind_name((uint32_t)k), rk_count[k], rk_ret[k]);
            first = 0;
        }
        printf("],\"retainers\":[");
        for (size_t i = 0; i < nret; i++) {
            gcev_heap_object ob;
            gcev_heap_type ty;
            gcev_heap_object_get(h, ret[i], &ob);
            gcev_heap_type_get(h, ob.type, &ty);
            printf("%s{\"address\":%" PRIu64 ",\"type\":", i ? "," : "", ob.address);
            gcev_cli_json_string(stdout, ty.name);
            printf(",\"size\":%" PRIu64 ",\"retained\":%" PRIu64, ob.size, ob.retained);
            if (o->paths) {
                printf(",\"path\":");
                print_path(h, ret[i], 1);
            }
            printf("}");
        }
        printf("]}");
        free(ret);
        return GCEV_EXIT_OK;
    }
    printf("  unreachable from any root: %" PRIu64 " objects, %" PRIu64 " bytes\n", in->unreachable_objects,
           in->unreachable_bytes);
    for (size_t p = 0; p < gcev_heap_problem_count(h); p++) {
        printf("  problem: %s\n", gcev_heap_problem_at(h, p));
    }
    printf("\nTypes by bytes%s\n", only != GCEV_HEAP_NONE ? ""
                                   : o->top               ? " (top rows; --top 0 for all)"
                                                          : "");
    printf("%10s %14s %6s %14s  %s\n", "Objects", "Bytes", "Share", "Retained", "Type");
    for (size_t t = 0; t < nt && (only != GCEV_HEAP_NONE || t < top); t++) {
        if (only != GCEV_HEAP_NONE && t != only) {
            continue;
        }
        gcev_heap_type ty;
        gcev_heap_type_get(h, t, &ty);
        printf("%10" PRIu64 " %14" PRIu64 " %5.1f%% %14" PRIu64 "  %s\n", ty.objects, ty.bytes,
               in->bytes ? 100.0 * (double)ty.bytes / (double)in->bytes : 0.0, ty.retained, ty.name);
        if (o->paths || only != GCEV_HEAP_NONE) {
            uint32_t near = gcev_heap_type_nearest(h, (uint32_t)t);
            if (near != GCEV_HEAP_NONE) {
                print_path(h, near, 0);
            } else {
                printf("    (no root reaches an object of it)\n");
            }
        }
    }
    printf("\nRoots by kind\n%18s %10s %14s\n", "Kind", "Records", "Retained");
    for (size_t k = 0; k < GCEV_HEAP_ROOT_KINDS; k++) {
        if (rk_count[k]) {
            printf("%18s %10" PRIu64 " %14" PRIu64 "\n", gcev_heap_root_kind_name((uint32_t)k), rk_count[k],
                   rk_ret[k]);
        }
    }
    printf("\nBiggest retainers\n%14s %12s %18s  %s\n", "Retained", "Size", "Address", "Type");
    for (size_t i = 0; i < nret; i++) {
        gcev_heap_object ob;
        gcev_heap_type ty;
        gcev_heap_object_get(h, ret[i], &ob);
        gcev_heap_type_get(h, ob.type, &ty);
        printf("%14" PRIu64 " %12" PRIu64 " 0x%016" PRIx64 "  %s\n", ob.retained, ob.size, ob.address,
               ty.name);
        if (o->paths) {
            print_path(h, ret[i], 0);
        }
    }
    free(ret);
    return GCEV_EXIT_OK;
}

/* The dump --dump N names, else the first complete one, else the first. */
static size_t pick_dump(gcev_heap_set *s, size_t want)
{
    size_t n = gcev_heap_set_count(s);
    if (want) {
        return want - 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!(gcev_heap_get_info(gcev_heap_set_at(s, i))->flags & GCEV_HEAP_PARTIAL_MASK)) {
            return i;
        }
    }
    return 0;
}

static int show_set(gcev_heap_set *s, const heap_opts *o, const char *label)
{
    size_t n = gcev_heap_set_count(s);
    if (n == 0) {
        fprintf(stderr,
                "gcev heap: %s holds no heap dump (no GCBulkNode event: capture with "
                "'gcev record --profile heap' or dotnet-gcdump's keywords 0x1980001)\n",
                label);
        return GCEV_EXIT_USAGE;
    }
    if (o->dump > n) {
        fprintf(stderr, "gcev heap: --dump %zu: %s holds %zu dump%s\n", o->dump, label, n, n == 1 ? "" : "s");
        return GCEV_EXIT_USAGE;
    }
    size_t pick = pick_dump(s, o->dump);
    if (n > 1) {
        fprintf(stderr, "gcev heap: %s holds %zu dumps; dump %zu analysed (--dump N for another)\n", label, n,
                pick + 1);
    }
    int rc = GCEV_EXIT_OK;
    if (o->fmt == FMT_CSV) {
        return show_dump(gcev_heap_set_at(s, pick), pick, o);
    }
    if (o->fmt == FMT_JSON && o->gcdump) {
        return show_dump(gcev_heap_set_at(s, pick), pick, o);
    }
    if (o->fmt == FMT_JSON) {
        printf("{\"json_version\":%d,\"dumps\":[", HEAP_JSON_VERSION);
    }
    for (size_t i = 0; i < n; i++) {
        gcev_heap *h = gcev_heap_set_at(s, i);
        if (o->fmt == FMT_JSON) {
            printf("%s", i ? "," : "");
            if (i == pick) {
                gcev_heap_analyze(h);
            }
            json_info(h, i);
            if (i == pick) {
                rc = show_dump(h, i, o);
            }
            printf("}");
        } else if (!o->gcdump || i == pick) {
            if (!o->gcdump) {
                print_dump_line(i, n, gcev_heap_get_info(h));
            }
            if (i == pick) {
                rc = show_dump(h, i, o);
                if (i + 1 < n) {
                    printf("\n");
                }
            }
        }
    }
    if (o->fmt == FMT_JSON) {
        printf("]}\n");
    }
    return rc;
}

static int read_set(const char *path, gcev_heap_set **out)
{
    gcev_trace_options topts = {.struct_size = sizeof topts, .no_stacks = 1}; /* (the heap graph has none) */
    topts.order = GCEV_TRACE_ORDER_TIME;
    gcev_trace *t;
    if (gcev_cli_open_trace("heap", path, &topts, &t)) {
        return GCEV_EXIT_USAGE;
    }
    gcev_error err = {0};
    gcev_status st = gcev_heap_read_trace(t, out, &err);
    int rc = GCEV_EXIT_OK;
    if (st != GCEV_OK) {
        if (*out) {
            fprintf(stderr, "gcev heap: %s: %s at offset %llu (what was read before is analysed)\n",
                    gcev_cli_file_label(path), err.message ? err.message : gcev_status_str(st),
                    (unsigned long long)err.offset);
            rc = GCEV_EXIT_TRACE_ERROR;
        } else {
            fprintf(stderr, "gcev heap: %s: %s\n", gcev_cli_file_label(path), gcev_status_str(st));
            rc = GCEV_EXIT_TRACE_ERROR;
        }
    }
    gcev_trace_close(t);
    return rc;
}

static int show_diff(gcev_heap *a, gcev_heap *b, const heap_opts *o)
{
    gcev_heap_diff_row *rows;
    size_t n;
    if (gcev_heap_analyze(a) != GCEV_OK || gcev_heap_analyze(b) != GCEV_OK ||
        gcev_heap_diff(a, b, &rows, &n) != GCEV_OK) {
        fprintf(stderr, "gcev heap: out of memory\n");
        return GCEV_EXIT_TRACE_ERROR;
    }
    size_t top = o->top ? o->top : SIZE_MAX, shown = 0;
    if (o->fmt == FMT_CSV) {
        printf("type,objects_a,bytes_a,objects_b,bytes_b,objects_delta,bytes_delta\n");
    } else if (o->fmt == FMT_JSON) {
        printf("{\"json_version\":%d,\"a\":", HEAP_JSON_VERSION);
        json_info(a, 0);
        printf("},\"b\":");
        json_info(b, 1);
        printf("},\"grown\":[");
    } else {
        const gcev_heap_info *ia = gcev_heap_get_info(a), *ib = gcev_heap_get_info(b);
        printf("A: %" PRIu64 " objects, %" PRIu64 " bytes (%s); B: %" PRIu64 " objects, %" PRIu64
               " bytes (%s)\n",
               ia->objects, ia->bytes, dump_state(ia), ib->objects, ib->bytes, dump_state(ib));
        printf("\nTypes that grew, by bytes\n%12s %14s %10s %10s  %s\n", "Bytes +", "Bytes B", "Objects +",
               "Objects B", "Type");
    }
    for (size_t i = 0; i < n && shown < top; i++) {
        const gcev_heap_diff_row *r = &rows[i];
        if (r->objects_b <= r->objects_a && r->bytes_b <= r->bytes_a) {
            continue;
        }
        int64_t db = (int64_t)(r->bytes_b - r->bytes_a), dc = (int64_t)(r->objects_b - r->objects_a);
        if (o->fmt == FMT_CSV) {
            printf("\"%s\",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%" PRId64 "\n",
                   r->name, r->objects_a, r->bytes_a, r->objects_b, r->bytes_b, dc, db);
        } else if (o->fmt == FMT_JSON) {
            printf("%s{\"type\":", shown ? "," : "");
            gcev_cli_json_string(stdout, r->name);
            printf(",\"objects_a\":%" PRIu64 ",\"bytes_a\":%" PRIu64 ",\"objects_b\":%" PRIu64
                   ",\"bytes_b\":%" PRIu64 ",\"new_object_path\":",
                   r->objects_a, r->bytes_a, r->objects_b, r->bytes_b);
            if (r->new_object == GCEV_HEAP_NONE) {
                printf("null");
            } else {
                print_path(b, r->new_object, 1);
            }
            printf("}");
        } else {
            printf("%+12" PRId64 " %14" PRIu64 " %+10" PRId64 " %10" PRIu64 "  %s\n", db, r->bytes_b, dc,
                   r->objects_b, r->name);
            if (r->new_object != GCEV_HEAP_NONE) {
                print_path(b, r->new_object, 0);
            }
        }
        shown++;
    }
    if (o->fmt == FMT_JSON) {
        printf("]}\n");
    }
    free(rows);
    return GCEV_EXIT_OK;
}

static int run_live(cli_live_opts *live, const heap_opts *o)
{
    live->profile = GCEV_SESSION_GC_HEAP; /* cli_live_open announces the forced GC before it happens */
    live->no_stacks = 1;                  /* (the heap graph has none) */
    gcev_session *s;
    int rc = cli_live_open("heap", live, GCEV_TRACE_ORDER_STREAM, &s);
    if (rc) {
        return rc;
    }
    gcev_heap_reader *r;
    if (gcev_heap_reader_new(&r) != GCEV_OK) {
        cli_live_close(s);
        return GCEV_EXIT_TRACE_ERROR;
    }
    gcev_trace_event ev;
    gcev_error err = {0};
    gcev_status st;
    int asked = 0;
    while ((st = gcev_session_next(s, &ev, &err)) == GCEV_OK) {
        if (gcev_heap_reader_add(r, &ev) != GCEV_OK) {
            break;
        }
        if (!asked && gcev_heap_reader_ended(r) > 0) {
            gcev_session_request_stop(s); /* the dump's GC has ended: the rest of the stream, then the end */
            asked = 1;
        }
    }
    rc = cli_live_end("heap", s, st, &err);
    gcev_heap_set *set = NULL;
    if (gcev_heap_reader_finish(r, gcev_session_trace(s), &set) != GCEV_OK) {
        cli_live_close(s);
        fprintf(stderr, "gcev heap: out of memory\n");
        return GCEV_EXIT_TRACE_ERROR;
    }
    cli_live_close(s);
    int rc2 = show_set(set, o, "the session");
    gcev_heap_set_free(set);
    return rc ? rc : rc2;
}

int gcev_cmd_heap(int argc, char **argv)
{
    heap_opts o = {FMT_TEXT, 0, 20, NULL, 0, 0};
    const char *files[2] = {NULL, NULL}, *v;
    size_t nfiles = 0;
    int diff = 0, m;
    cli_live_opts live;
    memset(&live, 0, sizeof live);
    gcev_cli_args a;
    gcev_cli_args_init(&a, "heap", argc, argv);
    while (gcev_cli_args_next(&a)) {
        unsigned long long num;
        int lrc = 0, t;
        if (gcev_cli_flag(&a, "--help") || gcev_cli_flag(&a, "-h")) {
            usage(stdout);
            return GCEV_EXIT_OK;
        } else if (gcev_cli_flag(&a, "--paths")) {
            o.paths = 1;
        } else if (gcev_cli_flag(&a, "--diff")) {
            diff = 1;
        } else if ((m = gcev_cli_value(&a, "--format", &v)) != 0) {
            static const char *const f[] = {"text", "json", "csv", NULL};
            if (m < 0 || (o.fmt = gcev_cli_choice("heap", "--format", v, f)) < 0) {
                return GCEV_EXIT_USAGE;
            }
        } else if ((m = gcev_cli_value(&a, "--compat", &v)) != 0) {
            static const char *const f[] = {"gcdump", NULL};
            if (m < 0 || gcev_cli_choice("heap", "--compat", v, f) < 0) {
                return GCEV_EXIT_USAGE;
            }
            o.gcdump = 1;
        } else if ((m = gcev_cli_value(&a, "--dump", &v)) != 0) {
            if (m < 0 || !gcev_cli_number("heap", "--dump", v, 1000000, 0, &num) || num == 0) {
                if (m > 0 && num == 0) {
                    gcev_cli_fail("heap", "--dump counts from 1");
                }
                return GCEV_EXIT_USAGE;
            }
            o.dump = (size_t)num;
        } else if ((m = gcev_cli_value(&a, "--top", &v)) != 0) {
            if (m < 0 || !gcev_cli_number("heap", "--top", v, 100000000, 0, &num)) {
                return GCEV_EXIT_USAGE;
            }
            o.top = (size_t)num;
        } else if ((m = gcev_cli_value(&a, "--type", &v)) != 0) {
            if (m < 0) {
                return GCEV_EXIT_USAGE;
            }
            o.type = v;
        } else if ((m = gcev_cli_value(&a, "--pid", &v)) != 0) {
            if (m < 0 || cli_parse_pid("heap", v, &live.pid)) {
                return GCEV_EXIT_USAGE;
            }
            live.have_pid = 1;
        } else if ((t = cli_live_option(&a, 1, &live, &lrc)) != 0) {
            if (t < 0) {
                return lrc;
            }
        } else if (!a.operands_only && a.arg[0] == '-' && a.arg[1] != '\0') {
            return gcev_cli_fail("heap", "unknown option '%s' (see 'gcev heap --help')", a.arg);
        } else {
            if (nfiles == 2) {
                return gcev_cli_fail("heap", "at most two files (--diff A B), not also '%s'", a.arg);
            }
            files[nfiles++] = a.arg;
        }
    }
    if (live.have_pid) {
        if (nfiles || diff) {
            return gcev_cli_fail("heap", "--pid takes no FILE and no --diff");
        }
        return run_live(&live, &o);
    }
    if (nfiles == 0) {
        return gcev_cli_no_file("heap");
    }
    if (nfiles == 2 && !diff) {
        return gcev_cli_fail("heap", "two files only with --diff");
    }
    gcev_heap_set *sa = NULL, *sb = NULL;
    int rc = read_set(files[0], &sa);
    if (!sa) {
        return rc;
    }
    if (!diff) {
        int rc2 = show_set(sa, &o, gcev_cli_file_label(files[0]));
        gcev_heap_set_free(sa);
        return rc ? rc : rc2;
    }
    gcev_heap *ha, *hb;
    if (nfiles == 2) {
        int rcb = read_set(files[1], &sb);
        rc = rc ? rc : rcb;
        if (!sb) {
            gcev_heap_set_free(sa);
            return rc;
        }
        ha = gcev_heap_set_at(sa, pick_dump(sa, o.dump));
        hb = gcev_heap_set_at(sb, pick_dump(sb, o.dump));
    } else {
        size_t first = o.dump ? o.dump - 1 : 0;
        ha = gcev_heap_set_at(sa, first);
        hb = gcev_heap_set_at(sa, first + 1);
        if (!hb) {
            fprintf(
                stderr,
                "gcev heap: --diff with one file needs two dumps in it (dumps %zu and %zu); it holds %zu\n",
                first + 1, first + 2, gcev_heap_set_count(sa));
            gcev_heap_set_free(sa);
            return GCEV_EXIT_USAGE;
        }
    }
    int rc2 = GCEV_EXIT_USAGE;
    if (!ha || !hb) {
        fprintf(stderr, "gcev heap: --diff: a file holds no heap dump\n");
    } else {
        rc2 = show_diff(ha, hb, &o);
    }
    gcev_heap_set_free(sa);
    gcev_heap_set_free(sb);
    return rc ? rc : rc2;
}
