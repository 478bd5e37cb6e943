/* SPDX-License-Identifier: MIT */
/*
 * gcev count [--format text|json] FILE
 * Events per (provider, id, version) and the total. Keys are the provider's
 * name (or GUID), id and version, never the event name: TraceEvent-style names
 * merge versions (TraceEvent shows its own names and merges versions).
 * Events without an id (CTF kernel events and runtime events outside the
 * manifest) are keyed by provider and name, and listed after the provider's
 * events with an id.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gcev_compiler.h"
#include "cli_progress.h"
#include "commands.h"
#include "cli_trace.h"

typedef struct count_row {
    char *provider;
    char *name;
    uint16_t id, version;
    uint8_t no_id;
    uint64_t count;
} count_row;

typedef struct count_table {
    count_row *rows;
    size_t n, cap;
    size_t last; /* consecutive events often share a key */
} count_table;

static int row_matches(const count_row *r, const char *prov, const char *name, const gcev_trace_event *ev)
{
    if (ev->no_event_id) {
        return r->no_id && strcmp(r->name, name) == 0 && strcmp(r->provider, prov) == 0;
    }
    return !r->no_id && r->id == ev->event_id && r->version == ev->version && strcmp(r->provider, prov) == 0;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) {
        memcpy(d, s, n);
    }
    return d;
}

/* The row of the event's key (provider label, id, version), added when new; SIZE_MAX
 * when out of memory. */
static size_t count_row_of(count_table *t, const char *prov, const char *name, const gcev_trace_event *ev)
{
    if (t->n && row_matches(&t->rows[t->last], prov, name, ev)) {
        return t->last;
    }
    for (size_t i = 0; i < t->n; i++) {
        if (row_matches(&t->rows[i], prov, name, ev)) {
            t->last = i;
            return i;
        }
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        count_row *r = realloc(t->rows, cap * sizeof *r);
        if (!r) {
            return SIZE_MAX;
        }
        t->rows = r;
        t->cap = cap;
    }
    count_row *r = &t->rows[t->n];
    r->provider = dup_str(prov);
    r->name = dup_str(name);
    if (!r->provider || !r->name) {
        free(r->provider);
        free(r->name);
        return SIZE_MAX;
    }
    r->id = ev->event_id;
    r->version = ev->version;
    r->no_id = ev->no_event_id;
    r->count = 0;
    t->last = t->n++;
    return t->last;
}

/* The row of ev (its kind's, worked out once per kind; by its key's strings otherwise), SIZE_MAX
 * when out of memory. */
static size_t count_row_for(count_table *t, gcev_cli_kinds *kinds, const gcev_trace_event *ev)
{
    gcev_cli_kind *k = gcev_cli_kind_of(kinds, ev);
    if (!k) {
        return SIZE_MAX;
    }
    if (k->row == SIZE_MAX) {
        size_t row = count_row_of(t, k->provider, k->name, ev);
        if (row != SIZE_MAX && k->key) {
            k->row = row;
        }
        return row;
    }
    return k->row;
}

/*
 * The per-event tally of the lean walk: an open-addressing table by (kind, version) that
 * keeps each kind's events itself, added to its row once at the end: a kind seen before costs
 * a hash, the compares and an increment. The runtime's traces alternate kinds, so a "same kind
 * as the last event" test misses often; that test, the gcev_cli_kinds look-up behind it and
 * the row's increment took about 32 instructions an event on the 47 MB NetTrace V4 trace of
 * bench/whole_process.sh, this about 18 (114.2 M instructions for the whole process, 100.8 M).
 * The table has a fixed size, so that the hash is a multiply and a constant shift; kinds past
 * half of it (traces have tens) are counted through gcev_cli_kinds, as an event without a kind
 * is. A free slot's kind is the address of count_free, never a kind, so that an event without
 * a kind needs no test of its own before the compare.
 */
enum { COUNT_SLOT_BITS = 8, COUNT_SLOTS = 1 << COUNT_SLOT_BITS };
static const char count_free;

typedef struct count_slot {
    const void *kind; /* &count_free: free */
    uint64_t n;       /* its events so far */
    size_t row;
    uint16_t version;
} count_slot;

typedef struct count_slots {
    count_slot s[COUNT_SLOTS];
    size_t n;
} count_slots;

static inline size_t slot_of(const void *kind, uint16_t version)
{
    return (size_t)(((uint64_t)(uintptr_t)kind ^ version) * UINT64_C(0x9E3779B97F4A7C15) >>
                    (64 - COUNT_SLOT_BITS));
}

static void slots_init(count_slots *cs)
{
    for (size_t i = 0; i < COUNT_SLOTS; i++) {
        cs->s[i].kind = &count_free;
        cs->s[i].n = 0;
    }
    cs->n = 0;
}

/* Counts a lean event the first probe did not: a later probe, a new kind (its row through
 * its metadata record), a kind past the table's share, or an event without a kind (its full
 * record). 0 when out of memory. Out of line: the loop that calls it keeps its registers. */
GCEV_NOINLINE static int count_slow(count_table *tab, gcev_cli_kinds *kinds, count_slots *cs, gcev_trace *t,
                                    const gcev_trace_lean *l)
{
    size_t j = slot_of(l->kind, l->version);
    if (l->kind) {
        for (; cs->s[j].kind != &count_free; j = (j + 1) & (COUNT_SLOTS - 1)) {
            if (cs->s[j].kind == l->kind && cs->s[j].version == l->version) {
                cs->s[j].n++;
                return 1;
            }
        }
    }
    const gcev_trace_event *rec = l->kind ? gcev_trace_kind_record(t, l->kind) : NULL;
    gcev_trace_event ev;
    if (rec) {
        ev = *rec;
        ev.kind = l->kind;
        ev.version = l->version; /* a V6 label list's, when it overrides the record's */
        rec = &ev;
    } else {
        rec = gcev_trace_lean_event(t); /* no kind: the full record (the batch's last event) */
    }
    size_t row = rec ? count_row_for(tab, kinds, rec) : SIZE_MAX;
    if (row == SIZE_MAX) {
        return 0;
    }
    if (!l->kind || 2 * (cs->n + 1) > COUNT_SLOTS) {
        tab->rows[row].count++;
        return 1;
    }
    cs->s[j] = (count_slot){l->kind, 1, row, l->version};
    cs->n++;
    return 1;
}

/* The lean batch counted; 0 when out of memory. */
static int count_batch(count_table *tab, gcev_cli_kinds *kinds, count_slots *cs, gcev_trace *t,
                       const gcev_trace_lean *lv, size_t nb)
{
    for (size_t i = 0; i < nb; i++) {
        const gcev_trace_lean *l = &lv[i];
        count_slot *x = &cs->s[slot_of(l->kind, l->version)];
        if (x->kind == l->kind && x->version == l->version) {
            x->n++;
        } else if (!count_slow(tab, kinds, cs, t, l)) {
            return 0;
        }
    }
    return 1;
}

static int row_cmp(const void *pa, const void *pb)
{
    const count_row *a = pa, *b = pb;
    int c = strcmp(a->provider, b->provider);
    if (c) {
        return c;
    }
    if (a->no_id || b->no_id) {
        return a->no_id != b->no_id ? (a->no_id ? 1 : -1) : strcmp(a->name, b->name);
    }
    if (a->id != b->id) {
        return a->id < b->id ? -1 : 1;
    }
    return (a->version > b->version) - (a->version < b->version);
}

/* What the counts rest on: events lost to sequence-number gaps, and whether the trace was read to its end. */
typedef struct count_trust {
    uint64_t dropped;
    int complete; /* read to the clean end, nothing dropped, nothing skipped */
    const gcev_trace *t;
} count_trust;

static void print_json(const count_table *t, uint64_t total, const count_trust *k)
{
    printf("{\"total_events\": %llu, \"dropped_events\": %llu, \"complete\": %s, \"skipped_ranges\": %llu, "
           "\"skipped_bytes\": %llu, \"skipped\": ",
           (unsigned long long)total, (unsigned long long)k->dropped, k->complete ? "true" : "false",
           (unsigned long long)gcev_trace_skipped_ranges(k->t),
           (unsigned long long)gcev_trace_skipped_bytes(k->t));
    gcev_cli_skips_json(stdout, k->t);
    printf(", \"events\": [");
    for (size_t i = 0; i < t->n; i++) {
        const count_row *r = &t->rows[i];
        printf("%s\n  {\"provider\": ", i ? "," : "");
        gcev_cli_json_string(stdout, r->provider);
        if (r->no_id) {
            printf(", \"id\": null, \"version\": null, \"name\": ");
        } else {
            printf(", \"id\": %u, \"version\": %u, \"name\": ", r->id, r->version);
        }
        gcev_cli_json_string(stdout, r->name);
        printf(", \"count\": %llu}", (unsigned long long)r->count);
    }
    printf("%s], \"json_version\": %d}\n", t->n ? "\n" : "", GCEV_JSON_VERSION_COUNT);
}

static void print_text(const count_table *t, uint64_t total, const count_trust *k)
{
    for (size_t i = 0; i < t->n; i++) {
        const count_row *r = &t->rows[i];
        if (r->no_id) {
            printf("%10llu  %s (no id) %s\n", (unsigned long long)r->count, r->provider, r->name);
        } else {
            printf("%10llu  %s id %u v%u %s\n", (unsigned long long)r->count, r->provider, r->id, r->version,
                   r->name);
        }
    }
    printf("%10llu  total events\n", (unsigned long long)total);
    if (k->dropped) {
        printf("%10llu  dropped events (sequence-number gaps): the trace is incomplete\n",
               (unsigned long long)k->dropped);
    }
    if (gcev_trace_skipped_ranges(k->t)) {
        uint64_t n = gcev_trace_skipped_ranges(k->t);
        printf("%10llu  bytes skipped in %llu damaged range%s (--keep-going): the counts are incomplete\n",
               (unsigned long long)gcev_trace_skipped_bytes(k->t), (unsigned long long)n, n == 1 ? "" : "s");
    }
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gcev count [--format text|json] [--keep-going] [--gc-only] [--provider P]...\n"
               "                  [--keywords K] [--level N] FILE\n"
               "Counts the events of a .nettrace/.netperf/.etl trace or an LTTng (CTF) trace folder per\n"
               "provider, id and version (events without an id: per provider and name).\n"
               "FILE may be '-' for standard input. Events the trace lost (EventPipe sequence-number\n"
               "gaps) are reported (text: a 'dropped events' line; json: \"dropped_events\", \"complete\");\n"
               "the exit status stays 0, as the events read are valid.\n" GCEV_CLI_KEEP_GOING_HELP
               "               (text: a 'bytes skipped' line; json: \"skipped\", \"skipped_ranges\",\n"
               "               \"skipped_bytes\")\n"
               "  --gc-only    only the GC set: events with a compiled GC schema (as gcev dump "
               "--gc-only)\n" GCEV_CLI_FILTER_HELP);
}

int gcev_cmd_count(int argc, char **argv)
{
    const char *path = NULL, *v;
    int json = 0, m, rc;
    gcev_trace_options opts = {.struct_size = sizeof opts, .no_stacks = 1}; /* counts never look at one */
    gcev_cli_filter filter;
    memset(&filter, 0, sizeof filter);
    gcev_cli_args a;
    gcev_cli_args_init(&a, "count", argc, argv);
    while (gcev_cli_args_next(&a)) {
        if (gcev_cli_flag(&a, "--help") || gcev_cli_flag(&a, "-h")) {
            usage(stdout);
            return GCEV_EXIT_OK;
        } else if ((m = gcev_cli_value(&a, "--format", &v)) != 0) {
            static const char *const formats[] = {"text", "json", NULL};
            if (m < 0 || (json = gcev_cli_choice("count", "--format", v, formats)) < 0) {
                return GCEV_EXIT_USAGE;
            }
        } else if (gcev_cli_flag(&a, "--keep-going")) {
            opts.keep_going = 1;
        } else if ((m = gcev_cli_filter_arg(&a, "count", &filter)) != 0) {
            if (m < 0) {
                return GCEV_EXIT_USAGE;
            }
        } else if ((rc = gcev_cli_file_arg(&a, &path)) != 0) {
            return rc;
        }
    }
    if (!path) {
        return gcev_cli_no_file("count");
    }
    gcev_trace *t;
    if (gcev_cli_open_trace("count", path, &opts, &t)) {
        return GCEV_EXIT_USAGE;
    }
    if (gcev_cli_filter_apply("count", &filter, t)) {
        gcev_trace_close(t);
        return GCEV_EXIT_USAGE;
    }
    count_table tab = {0};
    gcev_cli_kinds kinds = {0};
    uint64_t total = 0;
    gcev_error err = {0};
    gcev_status st;
    rc = GCEV_EXIT_OK;
    gcev_cli_progress pr;
    gcev_cli_progress_start(&pr, "count", t, 0);
    /* the lean walk, in batches: names and GUID are asked for only for a new kind (what its
     * metadata record says), or for an event without one (then the last of its batch: its full
     * record) */
    enum { BATCH = 256 };
    gcev_trace_lean lv[BATCH];
    lv[0].struct_size = sizeof lv[0];
    size_t nb = 0;
    count_slots *cs = malloc(sizeof *cs);
    if (!cs) {
        gcev_cli_fail("count", "out of memory");
        gcev_trace_close(t);
        return GCEV_EXIT_TRACE_ERROR;
    }
    slots_init(cs);
    while ((st = gcev_trace_next_lean_batch(t, lv, BATCH, &nb, &err)) == GCEV_OK) {
        if (!count_batch(&tab, &kinds, cs, t, lv, nb)) {
            st = GCEV_E_NOMEM;
            err.message = "out of memory";
            break;
        }
        total += nb;
        gcev_cli_progress_events(&pr, (unsigned)nb);
    }
    for (size_t i = 0; i < COUNT_SLOTS; i++) {
        if (cs->s[i].kind != &count_free) {
            tab.rows[cs->s[i].row].count += cs->s[i].n;
        }
    }
    free(cs);
    gcev_cli_progress_end(&pr);
    if (st != GCEV_END) {
        gcev_cli_trace_error("count", path, t, st, &err);
        rc = GCEV_EXIT_TRACE_ERROR;
    }
    gcev_cli_kinds_free(&kinds); /* their rows are sorted away */
    if (tab.n) {                 /* no event read: rows is NULL, which qsort must not get even for 0 rows */
        qsort(tab.rows, tab.n, sizeof *tab.rows, row_cmp);
    }
    count_trust k = {gcev_trace_dropped_events(t), 0, t};
    k.complete = st == GCEV_END && k.dropped == 0 && gcev_trace_skipped_ranges(t) == 0;
    if (json) {
        print_json(&tab, total, &k);
    } else {
        print_text(&tab, total, &k);
    }
    if (k.dropped && json) {
        /* the output says it too; this is for the person at the terminal */
        fprintf(stderr,
                "gcev count: warning: %llu events were dropped (sequence-number gaps): the counts are "
                "incomplete\n",
                (unsigned long long)k.dropped);
    }
    if (gcev_cli_report_skips("count", path, t, "the counts are")) {
        rc = GCEV_EXIT_TRACE_ERROR;
    }
    for (size_t i = 0; i < tab.n; i++) {
        free(tab.rows[i].provider);
        free(tab.rows[i].name);
    }
    free(tab.rows);
    gcev_trace_close(t);
    return rc;
}
