/* SPDX-License-Identifier: MIT */
/*
 * gcev_stats on the real traces of the shared corpus: GC counts and
 * per-generation counts computed independently from the GCStart events
 * (gcev_trace + gcev_decode), and the first GC's fields against TraceEvent's
 * baseline (*.baseline.txt: the first occurrence of each event name, in
 * timestamp order).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>
#include <gcev/gcev_stats.h>

#define TRACE30 "eventpipe-dotnetcore3.0-win-x64-objver4.nettrace"
#define TRACE21 "eventpipe-dotnetcore2.1-win-x86-objver3.netperf"

static char *corpus_path(const char *name, const char *suffix)
{
    const char *dir = getenv("GCEV_SHARED_DIR");
    assert_non_null(dir);
    size_t n = strlen(dir) + strlen(name) + strlen(suffix) + 16;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/corpus/%s%s", dir, name, suffix);
    return p;
}

static gcev_stats *analyse(const char *name)
{
    char *path = corpus_path(name, "");
    gcev_trace_options opts = {.struct_size = sizeof opts, .order = GCEV_TRACE_ORDER_TIME};
    gcev_trace *t;
    assert_int_equal(gcev_trace_open_file(path, &opts, &t, NULL), GCEV_OK);
    gcev_stats *s;
    assert_int_equal(gcev_stats_create(NULL, &s), GCEV_OK);
    gcev_error err = {0};
    assert_int_equal(gcev_stats_read_trace(s, t, NULL, NULL, &err), GCEV_OK);
    gcev_trace_close(t);
    free(path);
    return s;
}

/* GCStart events per depth (0..2), counted without the model. */
static void count_gc_starts(const char *name, uint64_t per_gen[3], uint64_t *total)
{
    char *path = corpus_path(name, "");
    gcev_trace *t;
    assert_int_equal(gcev_trace_open_file(path, NULL, &t, NULL), GCEV_OK);
    gcev_trace_event ev;
    gcev_error err;
    *total = 0;
    memset(per_gen, 0, 3 * sizeof per_gen[0]);
    while (gcev_trace_next(t, &ev, &err) == GCEV_OK) {
        if (!ev.provider || ev.provider != &gcev_provider_runtime || ev.event_id != 1) {
            continue;
        }
        gcev_input in = {.struct_size = sizeof in,
                         .provider = ev.provider,
                         .event_id = ev.event_id,
                         .version = ev.version,
                         .pointer_size = ev.pointer_size,
                         .data = ev.payload,
                         .size = ev.payload_size};
        gcev_event d;
        assert_int_equal(gcev_decode(&in, &d, NULL), GCEV_OK);
        assert_true(d.u.gc_start.depth < 3);
        per_gen[d.u.gc_start.depth]++;
        (*total)++;
    }
    gcev_trace_close(t);
    free(path);
}

/* The baseline line of an event name ("Provider/Task/Opcode, COUNT, <Event .../>"). */
static char *baseline_line(const char *trace, const char *event)
{
    char *path = corpus_path(trace, ".baseline.txt");
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    free(path);
    static char line[1 << 16];
    char prefix[128];
    snprintf(prefix, sizeof prefix, "Microsoft-Windows-DotNETRuntime/%s, ", event);
    char *found = NULL;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        if ((unsigned char)p[0] == 0xef) {
            p += 3; /* UTF-8 BOM on the first line */
        }
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            found = p;
            break;
        }
    }
    fclose(f);
    assert_non_null(found);
    return found;
}

/* Attribute value of `name="..."` in a baseline line, numbers with ',' removed. */
static const char *attr(const char *line, const char *name)
{
    static char val[256];
    char key[64];
    snprintf(key, sizeof key, " %s=", name);
    const char *p = strstr(line, key);
    assert_non_null(p);
    p += strlen(key);
    while (*p == ' ') {
        p++; /* MSec=    "18.1697": TraceEvent pads the time */
    }
    assert_int_equal(*p, '"');
    p++;
    size_t n = 0;
    while (*p && *p != '"' && n + 1 < sizeof val) {
        if (*p != ',') {
            val[n++] = *p;
        }
        p++;
    }
    val[n] = '\0';
    while (n && val[n - 1] == ' ') {
        val[--n] = '\0';
    }
    const char *v = val;
    while (*v == ' ') {
        v++;
    }
    return v;
}

static uint64_t attr_u64(const char *line, const char *name)
{
    return strtoull(attr(line, name), NULL, 0);
}

static double attr_ms(const char *line)
{
    return strtod(attr(line, "MSec"), NULL);
}

static int near_ms(double a, double b)
{
    return a - b < 0.0005 && b - a < 0.0005; /* the baseline prints 4 decimals */
}

static void check_counts(const char *trace, const gcev_stats *s, uint64_t want_total)
{
    uint64_t per_gen[3], total;
    count_gc_starts(trace, per_gen, &total);
    assert_int_equal(total, want_total);
    assert_int_equal(gcev_stats_gc_count(s), want_total);
    assert_int_equal(gcev_stats_get_summary(s)->gc_count, want_total);
    /* the baseline's count of GC/Start agrees too */
    char *line = baseline_line(trace, "GC/Start");
    assert_int_equal(strtoull(strchr(line, ',') + 2, NULL, 10), want_total);
    for (unsigned g = 0; g < 3; g++) {
        assert_int_equal(gcev_stats_generation(s, g)->count, per_gen[g]);
    }
    assert_int_equal(gcev_stats_get_summary(s)->unfinished_gcs, 0);
    assert_int_equal(gcev_stats_get_summary(s)->dropped_events, 0);
}

static void check_first_gc(const char *trace, const gcev_stats *s)
{
    const gcev_stats_gc *g = gcev_stats_gc_at(s, 0);
    assert_non_null(g);
    const char *start = baseline_line(trace, "GC/Start");
    assert_int_equal(g->number, attr_u64(start, "Count"));
    assert_int_equal(g->generation, attr_u64(start, "Depth"));
    assert_string_equal(gcev_gc_reason_map_name(g->reason), attr(start, "Reason"));
    assert_string_equal(gcev_gc_type_map_name(g->type), attr(start, "Type"));
    assert_true(near_ms(g->start_ms, attr_ms(start)));
    const char *stop = baseline_line(trace, "GC/Stop");
    assert_int_equal(attr_u64(stop, "Count"), g->number);
    assert_true(near_ms(g->end_ms, attr_ms(stop)));
    const char *hs = baseline_line(trace, "GC/HeapStats");
    assert_int_equal(g->promoted_bytes, attr_u64(hs, "TotalPromoted"));
    assert_int_equal(g->pinned_objects, attr_u64(hs, "PinnedObjectCount"));
    assert_int_equal(g->finalization_promoted_count, attr_u64(hs, "FinalizationPromotedCount"));
    assert_int_equal(gcev_stats_gc_gen_at(s, g, 0)->promoted, attr_u64(hs, "TotalPromotedSize0"));
    const char *gh = baseline_line(trace, "GC/GlobalHeapHistory");
    assert_int_equal(g->heap_count, attr_u64(gh, "NumHeaps"));
    /* PerHeapHistory: TraceEvent's GenData for Gen0 (SizeBefore, SizeAfter) and
     * Fragmentation = FreeListSpaceAfter + FreeObjSpaceAfter */
    const char *ph = baseline_line(trace, "GC/PerHeapHistory");
    const char *gen0 = strstr(ph, "<GenData Name=\"Gen0\"");
    const char *gen1 = strstr(ph, "<GenData Name=\"Gen1\"");
    assert_non_null(gen0);
    assert_non_null(gen1);
    assert_int_equal(gcev_stats_gc_gen_at(s, g, 0)->size_before, attr_u64(gen0, "SizeBefore"));
    assert_int_equal(gcev_stats_gc_gen_at(s, g, 0)->size_after, attr_u64(gen0, "SizeAfter"));
    assert_int_equal(gcev_stats_gc_gen_at(s, g, 0)->frag_after, attr_u64(gen0, "Fragmentation"));
    assert_int_equal(gcev_stats_gc_gen_at(s, g, 1)->frag_after, attr_u64(gen1, "Fragmentation"));
    assert_true(g->present & GCEV_STATS_GC_HAS_PAUSE);
    assert_true(g->pause_ms >= g->duration_ms); /* the pause contains the GC */
}

static void test_corpus_stats_dotnet30_x64(void **state)
{
    (void)state;
    gcev_stats *s = analyse(TRACE30);
    check_counts(TRACE30, s, 478);
    check_first_gc(TRACE30, s);
    /* every GC of this trace ran in a suspension of its own; the rest are the sampler's */
    const gcev_stats_summary *sum = gcev_stats_get_summary(s);
    uint64_t paused = 0;
    for (size_t i = 0; i < gcev_stats_gc_count(s); i++) {
        paused += (gcev_stats_gc_at(s, i)->present & GCEV_STATS_GC_HAS_PAUSE) != 0;
    }
    assert_int_equal(paused, 478);
    assert_int_equal(sum->other_suspensions + 478,
                     gcev_stats_family_count(s, GCEV_FAMILY_GC_SUSPEND_EE_BEGIN));
    assert_true(sum->present & GCEV_STATS_SUM_HAS_ALLOCATION);
    assert_int_equal(sum->allocation_ticks, 35458);
    assert_int_equal(sum->heap_count, 1);
    gcev_stats_free(s);
}

static void test_corpus_stats_dotnet21_x86(void **state)
{
    (void)state;
    gcev_stats *s = analyse(TRACE21);
    check_counts(TRACE21, s, 10);
    check_first_gc(TRACE21, s);
    gcev_stats_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_stats_dotnet30_x64),
        cmocka_unit_test(test_corpus_stats_dotnet21_x86),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
