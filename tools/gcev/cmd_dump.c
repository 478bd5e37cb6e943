/* SPDX-License-Identifier: MIT */
/*
 * gcev dump [--format text|jsonl|csv] [--gc-only] [--sort time] FILE
 * One line per event. "fields" come from the compiled schema when there is one
 * (gcev_decode + gcev_format_fields_json, with "names" for mapped fields), else
 * from the trace's own field list (EventSource), else {} with the payload bytes
 * as "payload_hex".
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"
#include "commands.h"
#include "cli_trace.h"

enum { FMT_TEXT, FMT_JSONL, FMT_CSV };

typedef struct dump_buf {
    char *s;
    size_t cap;
} dump_buf;

/* Runs an snprintf-style formatter into a reusable buffer. */
static const char *buf_format(dump_buf *b, size_t (*fn)(const void *, char *, size_t), const void *arg)
{
    size_t need = fn(arg, b->s, b->cap);
    if (need >= b->cap) {
        char *s = realloc(b->s, need + 1);
        if (!s) {
            return NULL;
        }
        b->s = s;
        b->cap = need + 1;
        fn(arg, b->s, b->cap);
    }
    return b->s;
}

static size_t fmt_decoded(const void *ev, char *buf, size_t n)
{
    return gcev_format_fields_json((const gcev_event *)ev, buf, n);
}

static size_t fmt_names(const void *ev, char *buf, size_t n)
{
    return gcev_format_names_json((const gcev_event *)ev, buf, n);
}

static size_t fmt_selfdesc(const void *ev, char *buf, size_t n)
{
    return gcev_trace_format_fields_json((const gcev_trace_event *)ev, buf, n);
}

/* The payload bytes as lowercase hex. */
static size_t fmt_hex(const void *arg, char *buf, size_t n)
{
    const gcev_trace_event *ev = arg;
    static const char digits[] = "0123456789abcdef";
    size_t need = 2 * (size_t)ev->payload_size;
    for (size_t i = 0; i < ev->payload_size && 2 * i + 2 < n; i++) {
        buf[2 * i] = digits[ev->payload[i] >> 4];
        buf[2 * i + 1] = digits[ev->payload[i] & 15];
    }
    if (n) {
        buf[need < n ? need : n - 1 - (n - 1) % 2] = '\0';
    }
    return need;
}

/* What dump prints of one event's payload. */
typedef struct dump_payload {
    const char *fields;  /* JSON object */
    const char *names;   /* JSON object of enum names ("{}" when none) */
    const char *hex;     /* the payload as hex when nothing describes it, else NULL */
    const char *problem; /* a decode error message, or NULL */
} dump_payload;

typedef struct dump_bufs {
    dump_buf fields, names, hex;
} dump_bufs;

/*
 * Fields from the compiled schema (and the names of mapped fields), else from the
 * trace's own field list, else {} and the payload bytes as hex. 0 when out of memory.
 */
static int event_payload(dump_bufs *b, const gcev_trace_event *ev, const gcev_event_desc *d,
                         dump_payload *out)
{
    out->fields = "{}";
    out->names = "{}";
    out->hex = NULL;
    out->problem = NULL;
    int described = 0;
    if (d) {
        gcev_input in = {.struct_size = sizeof in,
                         .provider = ev->provider,
                         .event_id = ev->event_id,
                         .version = ev->version,
                         .pointer_size = ev->pointer_size,
                         .data = ev->payload,
                         .size = ev->payload_size};
        gcev_event dec;
        gcev_error err = {0};
        gcev_status st = gcev_decode(&in, &dec, &err);
        if (st != GCEV_OK) {
            out->problem = err.message ? err.message : gcev_status_str(st);
        }
        if (st == GCEV_OK || dec.desc) {
            out->fields = buf_format(&b->fields, fmt_decoded, &dec);
            out->names = buf_format(&b->names, fmt_names, &dec);
            if (!out->fields || !out->names) {
                return 0;
            }
            described = 1;
        }
    } else if (ev->nfields) {
        out->fields = buf_format(&b->fields, fmt_selfdesc, ev);
        if (!out->fields) {
            return 0;
        }
        described = 1;
    }
    if (!described && ev->payload_size) {
        out->hex = buf_format(&b->hex, fmt_hex, ev);
        if (!out->hex) {
            return 0;
        }
    }
    return 1;
}

static void csv_field(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"') {
            putchar('"');
        }
        putchar(*s);
    }
    putchar('"');
}

static void print_event(int fmt, const gcev_trace_event *ev, const char *prov, const char *name,
                        const dump_payload *p)
{
    int has_names = strcmp(p->names, "{}") != 0;
    if (fmt == FMT_JSONL) {
        printf("{\"provider\":");
        gcev_cli_json_string(stdout, prov);
        if (ev->no_event_id) {
            printf(",\"id\":null,\"version\":null,\"name\":");
        } else {
            printf(",\"id\":%u,\"version\":%u,\"name\":", ev->event_id, ev->version);
        }
        gcev_cli_json_string(stdout, name);
        printf(",\"ts\":%lld,\"ms\":%.6f,\"pid\":%u,\"tid\":%llu,\"fields\":%s", (long long)ev->timestamp,
               ev->ms, ev->process_id, (unsigned long long)ev->thread_id, p->fields);
        if (has_names) {
            printf(",\"names\":%s", p->names);
        }
        if (p->hex) {
            printf(",\"payload_hex\":\"%s\"", p->hex);
        }
        if (p->problem) {
            printf(",\"error\":");
            gcev_cli_json_string(stdout, p->problem);
        }
        printf(",\"json_version\":%d}\n", GCEV_JSON_VERSION_DUMP);
    } else if (fmt == FMT_CSV) {
        csv_field(prov);
        if (ev->no_event_id) {
            printf(",,,");
        } else {
            printf(",%u,%u,", ev->event_id, ev->version);
        }
        csv_field(name);
        printf(",%lld,%.6f,%u,%llu,", (long long)ev->timestamp, ev->ms, ev->process_id,
               (unsigned long long)ev->thread_id);
        csv_field(p->fields);
        printf(",%s,", p->hex ? p->hex : "");
        csv_field(p->names);
        putchar('\n');
    } else {
        printf("%12.4f %s/%s", ev->ms, prov, name);
        if (!ev->no_event_id) {
            printf(" id=%u v%u", ev->event_id, ev->version);
        }
        printf(" pid=%u tid=%llu %s", ev->process_id, (unsigned long long)ev->thread_id, p->fields);
        if (has_names) {
            printf(" names=%s", p->names);
        }
        if (p->hex) {
            printf(" payload_hex=%s", p->hex);
        }
        if (p->problem) {
            printf(" error: %s", p->problem);
        }
        putchar('\n');
    }
}

/* jsonl: the ranges skipped since the last call, each as {"skipped":{...}} (--keep-going). */
static void print_skips(int fmt, const gcev_trace *t, size_t *printed)
{
    for (; *printed < gcev_trace_skip_count(t); (*printed)++) {
        if (fmt == FMT_JSONL) {
            printf("{\"skipped\":");
            gcev_cli_skip_json(stdout, gcev_trace_skip_at(t, *printed));
            printf(",\"json_version\":%d}\n", GCEV_JSON_VERSION_DUMP);
        }
    }
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gcev dump [--format text|jsonl|csv] [--gc-only] [--sort time] [--keep-going]\n"
               "                 [--provider P]... [--keywords K] [--level N] FILE\n"
               "Prints every event of a .nettrace/.netperf/.etl trace or an LTTng (CTF) trace folder\n"
               "(FILE '-' = standard input). Events without an id show id and version as null/empty.\n"
               "  --gc-only    only events with a compiled GC schema\n" GCEV_CLI_FILTER_HELP
               "  --sort time  timestamp order (default: file order)\n"
               "Events the trace lost (EventPipe sequence-number gaps) are reported on standard error\n"
               "with their count; the exit status stays 0, as the events printed are "
               "valid.\n" GCEV_CLI_KEEP_GOING_HELP
               "               (jsonl: a {\"skipped\":{...}} line where the range was, before the first\n"
               "               event after it in file order)\n");
}

int gcev_cmd_dump(int argc, char **argv)
{
    const char *path = NULL, *v;
    int fmt = FMT_TEXT, gc_only = 0, m, rc;
    gcev_trace_options opts = {.struct_size = sizeof opts, .no_stacks = 1}; /* (dump shows no stack) */
    gcev_cli_filter filter;
    memset(&filter, 0, sizeof filter);
    gcev_cli_args a;
    gcev_cli_args_init(&a, "dump", argc, argv);
    while (gcev_cli_args_next(&a)) {
        if (gcev_cli_flag(&a, "--help") || gcev_cli_flag(&a, "-h")) {
            usage(stdout);
            return GCEV_EXIT_OK;
        } else if ((m = gcev_cli_value(&a, "--format", &v)) != 0) {
            static const char *const formats[] = {"text", "jsonl", "csv", NULL}; /* FMT_* order */
            if (m < 0 || (fmt = gcev_cli_choice("dump", "--format", v, formats)) < 0) {
                return GCEV_EXIT_USAGE;
            }
        } else if ((m = gcev_cli_filter_arg(&a, "dump", &filter)) != 0) {
            if (m < 0) {
                return GCEV_EXIT_USAGE;
            }
            gc_only = (filter.f.flags & GCEV_TRACE_FILTER_GC) != 0;
        } else if ((m = gcev_cli_value(&a, "--sort", &v)) != 0) {
            static const char *const orders[] = {"time", NULL};
            if (m < 0 || gcev_cli_choice("dump", "--sort", v, orders) < 0) {
                return GCEV_EXIT_USAGE;
            }
            opts.order = GCEV_TRACE_ORDER_TIME;
        } else if (gcev_cli_flag(&a, "--keep-going")) {
            opts.keep_going = 1;
        } else if ((rc = gcev_cli_file_arg(&a, &path)) != 0) {
            return rc;
        }
    }
    if (!path) {
        return gcev_cli_no_file("dump");
    }
    gcev_trace *t;
    if (gcev_cli_open_trace("dump", path, &opts, &t)) {
        return GCEV_EXIT_USAGE;
    }
    /* --gc-only is the reader's GC set: the events it skips are never read into an event */
    if (gcev_cli_filter_apply("dump", &filter, t)) {
        gcev_trace_close(t);
        return GCEV_EXIT_USAGE;
    }
    if (fmt == FMT_CSV) {
        printf("provider,id,version,name,ts,ms,pid,tid,fields,payload_hex,names\n");
    }
    dump_bufs b = {{0}, {0}, {0}};
    gcev_trace_event ev;
    gcev_error err = {0};
    gcev_status st;
    rc = GCEV_EXIT_OK;
    gcev_cli_progress pr;
    gcev_cli_progress_start(&pr, "dump", t, 1);
    gcev_cli_kinds kinds = {0};
    size_t skips_printed = 0;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        gcev_cli_progress_event(&pr);
        if (opts.keep_going) {
            print_skips(fmt, t, &skips_printed);
        }
        /* descriptor, provider label and name: once per kind of event, not per event */
        const gcev_cli_kind *k = gcev_cli_kind_of(&kinds, &ev);
        if (!k) {
            st = GCEV_E_NOMEM;
            err.message = "out of memory";
            break;
        }
        const gcev_event_desc *d = k->desc;
        if (gc_only && !d) {
            continue;
        }
        dump_payload p;
        if (!event_payload(&b, &ev, d, &p)) {
            st = GCEV_E_NOMEM;
            err.message = "out of memory";
            break;
        }
        print_event(fmt, &ev, k->provider, k->name, &p);
        if (gcev_cli_out_failed()) {
            break; /* nowhere to write: the write error is reported on the way out */
        }
    }
    gcev_cli_progress_end(&pr);
    if (st != GCEV_OK) {
        print_skips(fmt, t, &skips_printed); /* those the trace ends with */
    }
    if (st != GCEV_END && st != GCEV_OK) {
        fflush(stdout);
        gcev_cli_trace_error("dump", path, t, st, &err);
        rc = GCEV_EXIT_TRACE_ERROR;
    }
    uint64_t dropped = gcev_trace_dropped_events(t);
    if (dropped) {
        fprintf(stderr,
                "gcev dump: warning: %llu events were dropped (sequence-number gaps): the output is "
                "incomplete\n",
                (unsigned long long)dropped);
    }
    fflush(stdout);
    if (gcev_cli_report_skips("dump", path, t, "the output is")) {
        rc = GCEV_EXIT_TRACE_ERROR;
    }
    gcev_cli_kinds_free(&kinds);
    free(b.fields.s);
    free(b.names.s);
    free(b.hex.s);
    gcev_trace_close(t);
    return rc;
}
