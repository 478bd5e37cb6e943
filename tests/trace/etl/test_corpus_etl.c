/* SPDX-License-Identifier: MIT */
/*
 * The .etl files of the shared corpus against TraceEvent's baselines and the
 * corpus README: event totals, GC events per (provider, id, version), the trace
 * header fields TraceEvent prints, and every baseline event's ms, PID, TID,
 * CPU and DataLen, found in order among ours (TraceEvent leaves some records
 * out of its listing, so the baseline is a subsequence of what we read).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_trace.h>

#include "gcev_etl_records.h"
#include "gcev_read.h"
#include "testutil.h"
#include "zip_builder.h"
#include "gcev_schema_desc.h"

typedef struct seen_event {
    double ms;
    uint32_t pid, cpu, len;
    uint64_t tid;
    char provider[64];
} seen_event;

enum { MAX_SEEN = 4096 };

static char *path_in_corpus(const char *name)
{
    const char *dir = testutil_shared_dir();
    assert_non_null(dir);
    size_t n = strlen(dir) + strlen(name) + 16;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/corpus/%s", dir, name);
    return p;
}

/* Value of "Key=" in a baseline line, digits only (thousands separators dropped). */
static int baseline_number(const char *line, const char *key, double *out)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    if (!p) {
        return 0;
    }
    p += strlen(pat);
    char num[64];
    size_t k = 0;
    for (; *p && *p != ';' && k + 1 < sizeof num; p++) {
        if (*p != ',') {
            num[k++] = *p;
        }
    }
    num[k] = 0;
    char *end = NULL;
    *out = strtod(num, &end);
    return k > 0 && end && *end == 0;
}

static double baseline_key(const char *line, const char *key)
{
    double v = 0;
    if (!baseline_number(line, key, &v)) {
        fail_msg("baseline line lacks numeric %s: %.80s", key, line);
    }
    return v;
}

/* ms of "EVENT 2,942.306: ..." */
static double baseline_ms(const char *line)
{
    char num[64];
    size_t k = 0;
    for (const char *p = line + 6; *p && *p != ':' && k + 1 < sizeof num; p++) {
        if (*p != ',') {
            num[k++] = *p;
        }
    }
    num[k] = 0;
    return strtod(num, NULL);
}

/* Provider of a baseline line: text between ": " and the first '/'. */
static void baseline_provider(const char *line, char *out, size_t n)
{
    const char *p = strchr(line, ':');
    assert_non_null(p);
    p += 2;
    size_t k = 0;
    while (p[k] && p[k] != '/' && k + 1 < n) {
        out[k] = p[k];
        k++;
    }
    out[k] = 0;
}

typedef struct corpus_expect {
    const char *file, *baseline;
    size_t total;     /* corpus README */
    size_t gc_events; /* events with a compiled GC schema */
    uint32_t buffer_size, provider_version, cpu_speed, log_file_mode;
    int32_t utc_offset_minutes;
} corpus_expect;

static void check_header_line(const char *line, const gcev_trace_info *info, const gcev_etl_logfile *lf,
                              const corpus_expect *x)
{
    assert_int_equal(info->format, GCEV_FORMAT_ETL);
    assert_int_equal(info->pointer_size, (int)baseline_key(line, "PointerSize"));
    assert_int_equal(info->clock_frequency, (uint64_t)baseline_key(line, "PerfFreq"));
    assert_int_equal(info->processor_count, (uint32_t)baseline_key(line, "NumberOfProcessors"));
    assert_int_equal(info->events_lost, (uint64_t)baseline_key(line, "EventsLost"));
    assert_int_equal(info->buffers_lost, (uint64_t)baseline_key(line, "BuffersLost"));
    assert_int_equal(lf->buffer_size, (uint32_t)baseline_key(line, "BufferSize"));
    assert_int_equal(lf->buffer_size, x->buffer_size);
    assert_int_equal(lf->version, (uint32_t)baseline_key(line, "Version"));
    assert_int_equal(lf->provider_version, (uint32_t)baseline_key(line, "ProviderVersion"));
    assert_int_equal(lf->provider_version, x->provider_version);
    assert_int_equal(lf->timer_resolution, (uint32_t)baseline_key(line, "TimerResolution"));
    assert_int_equal(lf->maximum_file_size, (uint32_t)baseline_key(line, "MaxFileSize"));
    assert_int_equal(lf->log_file_mode, (uint32_t)baseline_key(line, "LogFileMode"));
    assert_int_equal(lf->log_file_mode, x->log_file_mode);
    assert_int_equal(lf->buffers_written, (uint32_t)baseline_key(line, "BuffersWritten"));
    assert_int_equal(lf->start_buffers, (uint32_t)baseline_key(line, "StartBuffers"));
    assert_int_equal(lf->cpu_speed_mhz, (uint32_t)baseline_key(line, "CPUSpeed"));
    assert_int_equal(lf->cpu_speed_mhz, x->cpu_speed);
    assert_int_equal(lf->reserved_flags, (uint32_t)baseline_key(line, "ReservedFlags"));
    /* TraceEvent's "UtcOffsetMinutes" is the time zone's Bias as stored (UTC = local + Bias). */
    assert_int_equal(lf->tz_bias_minutes, (int32_t)baseline_key(line, "UtcOffsetMinutes"));
    assert_int_equal(lf->tz_bias_minutes, x->utc_offset_minutes);
    assert_int_equal(info->sync_time_utc, lf->start_time);
}

/* GCSettingsRundown decoded with the compiled schema: each numeric field as printed. */
static void check_gc_settings(const gcev_trace_event *ev, const char *line)
{
    gcev_input in = {.struct_size = sizeof in,
                     .provider = ev->provider,
                     .event_id = ev->event_id,
                     .version = ev->version,
                     .pointer_size = ev->pointer_size,
                     .data = ev->payload,
                     .size = ev->payload_size};
    gcev_event out;
    gcev_error err = {0};
    assert_int_equal(gcev_decode(&in, &out, &err), GCEV_OK);
    assert_string_equal(out.desc->symbol, "GCSettingsRundown");
    assert_int_equal(out.trailing, 0);
    gcev_field_iter it;
    gcev_field_iter_init(&it, &out);
    gcev_field f;
    int compared = 0;
    while (gcev_field_next(&it, &f)) {
        double want = 0;
        if (baseline_number(line, f.name, &want)) {
            assert_true(fabs((double)f.v.u - want) < 0.5);
            compared++;
        }
    }
    assert_int_equal(compared, 7); /* all but BitSettings, which prints as names */
}

static void check_corpus_file(const corpus_expect *x)
{
    char *path = path_in_corpus(x->file);
    char *bpath = path_in_corpus(x->baseline);
    size_t bsize = 0;
    char *baseline = testutil_read_file(bpath, &bsize);
    assert_non_null(baseline);

    gcev_trace *t = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(path, NULL, &t, &err), GCEV_OK);
    const gcev_trace_info *info = gcev_trace_get_info(t);

    seen_event *seen = calloc(MAX_SEEN, sizeof *seen);
    assert_non_null(seen);
    size_t n = 0, gc = 0;
    gcev_trace_event ev;
    gcev_status st;
    char *settings_line = strstr(baseline, "GC/SettingsRundown");
    int settings_checked = 0;
    gcev_etl_logfile lf;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        assert_true(n < MAX_SEEN);
        if (n == 0) {
            const char *msg = NULL;
            assert_int_equal(gcev_etl_logfile_parse(ev.payload, ev.payload_size, &lf, &msg), GCEV_OK);
            assert_int_equal(ev.timestamp, info->sync_time_qpc);
        }
        seen[n].ms = ev.ms;
        seen[n].pid = ev.process_id;
        seen[n].tid = ev.thread_id;
        seen[n].cpu = ev.processor;
        seen[n].len = ev.payload_size;
        snprintf(seen[n].provider, sizeof seen[n].provider, "%s", ev.provider_name);
        assert_int_equal(ev.pointer_size, 8);
        if (ev.provider) {
            gcev_status rs;
            const gcev_event_desc *d = gcev_event_desc_resolve(ev.provider, ev.event_id, ev.version, &rs);
            if (d) {
                gc++;
                if (strcmp(d->symbol, "GCSettingsRundown") == 0) {
                    assert_non_null(settings_line);
                    char *eol = strchr(settings_line, '\n');
                    if (eol) {
                        *eol = 0;
                    }
                    check_gc_settings(&ev, settings_line);
                    if (eol) {
                        *eol = '\n';
                    }
                    settings_checked = 1;
                }
            }
        }
        n++;
    }
    assert_int_equal(st, GCEV_END);
    assert_int_equal(n, x->total);
    assert_int_equal(gc, x->gc_events);
    assert_int_equal(settings_checked, x->gc_events > 0);

    /* Every baseline line, in order, among ours. */
    size_t at = 0, lines = 0;
    for (char *line = baseline; line && *line;) {
        char *eol = strchr(line, '\n');
        if (eol) {
            *eol = 0;
        }
        if (strncmp(line, "EVENT ", 6) == 0) {
            if (lines == 0) {
                check_header_line(line, info, &lf, x);
            }
            double ms = baseline_ms(line);
            uint32_t pid = (uint32_t)baseline_key(line, "PID");
            uint64_t tid = (uint64_t)baseline_key(line, "TID");
            uint32_t cpu = (uint32_t)baseline_key(line, "ProceNum");
            uint32_t len = (uint32_t)baseline_key(line, "DataLen");
            char prov[64];
            baseline_provider(line, prov, sizeof prov);
            while (at < n && !(fabs(seen[at].ms - ms) < 0.0011 && seen[at].pid == pid &&
                               seen[at].tid == tid && seen[at].len == len && seen[at].cpu == cpu)) {
                at++;
            }
            if (at == n) {
                fail_msg("%s: baseline event not found in order: %.100s", x->file, line);
            }
            if (strcmp(prov, "Windows Kernel") != 0) {
                assert_string_equal(seen[at].provider, prov);
            }
            at++;
            lines++;
        }
        line = eol ? eol + 1 : NULL;
    }
    assert_true(lines > 0);

    gcev_trace_close(t);
    free(seen);
    free(baseline);
    free(path);
    free(bpath);
}

static const corpus_expect primitive_types = {
    "primitive-types.etl", "primitive-types.baseline.txt", 7, 0, 8192, 19043, 2304, 0, -120};
static const corpus_expect gc_rundown = {
    "gcrundownevents.etl", "gcrundownevents.baseline.txt", 112, 1, 65536, 19045, 3408, 134217729, 480};

static void test_primitive_types_matches_baseline(void **state)
{
    (void)state;
    check_corpus_file(&primitive_types);
}

static void test_gcrundownevents_matches_baseline(void **state)
{
    (void)state;
    check_corpus_file(&gc_rundown);
}

/*
 * TraceLogging fields of primitive-types: the schema's names and TDH in-types as
 * written (the writer tagged int64_type UInt64 and booleans/chars UInt8 with an
 * out-type; TraceEvent still prints int64_type as signed).
 */
static void test_primitive_types_tracelogging_fields(void **state)
{
    (void)state;
    char *path = path_in_corpus("primitive-types.etl");
    gcev_trace *t = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(path, NULL, &t, &err), GCEV_OK);
    static const struct {
        const char *name;
        uint32_t type;
    } want[] = {{"string_type", 2},  {"boolean_type", 4}, {"char_type", 4},       {"int16_type", 5},
                {"int32_type", 7},   {"uint16_type", 6},  {"uint32_type", 8},     {"int64_type", 10},
                {"uint64_type", 10}, {"guid_type", 15},   {"file_time_type", 17}, {"system_time_type", 18}};
    gcev_trace_event ev;
    size_t tl = 0;
    while (gcev_trace_next(t, &ev, &err) == GCEV_OK) {
        if (ev.nfields == 0) {
            continue;
        }
        tl++;
        assert_string_equal(ev.provider_name, "solar_system");
        assert_string_equal(ev.event_name, "PrimitiveTypesTest");
        assert_int_equal(ev.nfields, sizeof want / sizeof want[0]);
        for (size_t i = 0; i < ev.nfields; i++) {
            assert_string_equal(ev.fields[i].name, want[i].name);
            assert_int_equal(ev.fields[i].type_code, want[i].type);
            assert_int_equal(ev.fields[i].array_type_code, 0);
        }
        /* The first field is the planet's name as an ANSI string. */
        assert_true(ev.payload_size > 0);
        assert_non_null(memchr(ev.payload, 0, ev.payload_size));
    }
    assert_int_equal(tl, 5);
    gcev_trace_close(t);
    free(path);
}

/* The raw text of "key": in a flat JSON object (strings unquoted, no escapes expected). */
static void json_member(const char *json, const char *key, char *out, size_t n)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    if (!p) {
        fail_msg("member %s missing from %s", key, json);
    }
    p += strlen(pat);
    size_t k = 0;
    if (*p == '"') {
        for (p++; *p && *p != '"' && k + 1 < n; p++) {
            assert_true(*p != '\\');
            out[k++] = *p;
        }
        assert_int_equal(*p, '"');
    } else {
        for (; *p && *p != ',' && *p != '}' && k + 1 < n; p++) {
            out[k++] = *p;
        }
    }
    out[k] = 0;
}

/* 64-bit two's complement of a decimal integer (TraceEvent drops thousands separators here). */
static uint64_t integer_bits(const char *text)
{
    char num[64];
    size_t k = 0;
    for (const char *p = text; *p && k + 1 < sizeof num; p++) {
        if (*p != ',') {
            num[k++] = *p;
        }
    }
    num[k] = 0;
    char *end = NULL;
    uint64_t v = num[0] == '-' ? (uint64_t)strtoll(num, &end, 10) : strtoull(num, &end, 10);
    if (k == 0 || *end) {
        fail_msg("not an integer: %s", text);
    }
    return v;
}

/* A FILETIME as TraceEvent prints times, "yy/MM/dd HH:mm:ss.fffffff" (the clock as stored). */
static void filetime_text(uint64_t ft, char *out, size_t n)
{
    int64_t secs = (int64_t)(ft / 10000000u) - 11644473600; /* since 1970 */
    unsigned frac = (unsigned)(ft % 10000000u);
    int64_t days = secs / 86400, rem = secs % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    /* civil from days (proleptic Gregorian) */
    int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    int64_t y = yoe + era * 400 + (m <= 2);
    snprintf(out, n, "%02d/%02d/%02d %02d:%02d:%02d.%07u", (int)(y % 100), (int)m, (int)d, (int)(rem / 3600),
             (int)(rem / 60 % 60), (int)(rem % 60), frac);
}

/* want (TraceEvent, maybe cut with "...") against ours: equal, or a prefix when cut. */
static void expect_text(const char *field, const char *want, const char *got)
{
    size_t wl = strlen(want);
    if (wl >= 3 && strcmp(want + wl - 3, "...") == 0) {
        if (strncmp(got, want, wl - 3) != 0) {
            fail_msg("%s: ours %s, TraceEvent %s", field, got, want);
        }
    } else if (strcmp(got, want) != 0) {
        fail_msg("%s: ours %s, TraceEvent %s", field, got, want);
    }
}

/* One TraceLogging field of ours (JSON) against its "Name=Value" in a baseline line. */
static void check_tl_field(const gcev_trace_field *f, const char *json, const char *line)
{
    char pat[96], want[256], got[256];
    snprintf(pat, sizeof pat, " %s=", f->name);
    const char *p = strstr(line, pat);
    if (!p) {
        fail_msg("baseline lacks %s: %.100s", f->name, line);
    }
    p += strlen(pat);
    const char *semi = strchr(p, ';');
    assert_non_null(semi);
    snprintf(want, sizeof want, "%.*s", (int)(semi - p), p);
    json_member(json, f->name, got, sizeof got);
    char text[64];
    switch (f->type_code) {
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
    case 10:
    case 20:
    case 21:
        if (f->out_type == 3) { /* Boolean out-type: TraceEvent's True/False */
            assert_string_equal(got, strcmp(want, "True") == 0 ? "true" : "false");
            assert_true(strcmp(want, "True") == 0 || strcmp(want, "False") == 0);
        } else {
            /* TraceEvent prints the UInt64 int64_type as signed: compare the 64 bits */
            assert_int_equal(integer_bits(got), integer_bits(want));
        }
        break;
    case 17: /* FILETIME: ours the raw number */
        filetime_text(integer_bits(got), text, sizeof text);
        expect_text(f->name, want, text);
        break;
    case 18: { /* SYSTEMTIME: TraceEvent's fraction does not follow wMilliseconds; to the second */
        int y, mo, d, h, mi, sec;
        assert_int_equal(sscanf(got, "%d-%d-%dT%d:%d:%d.", &y, &mo, &d, &h, &mi, &sec), 6);
        snprintf(text, sizeof text, "%02d/%02d/%02d %02d:%02d:%02d", y % 100, mo, d, h, mi, sec);
        assert_true(strlen(want) > strlen(text));
        assert_memory_equal(want, text, strlen(text));
        break;
    }
    default: /* strings, GUIDs */
        expect_text(f->name, want, got);
        break;
    }
}

/*
 * Every TraceLogging event of primitive-types formatted by
 * gcev_trace_format_fields_json(): each field's value as TraceEvent printed it,
 * all of the baseline's fields covered, no truncation marker.
 */
static void test_primitive_types_tracelogging_values(void **state)
{
    (void)state;
    char *path = path_in_corpus("primitive-types.etl");
    char *bpath = path_in_corpus("primitive-types.baseline.txt");
    char *baseline = testutil_read_file(bpath, NULL);
    assert_non_null(baseline);
    gcev_trace *t = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(path, NULL, &t, &err), GCEV_OK);
    gcev_trace_event ev;
    char *line = baseline;
    size_t tl = 0;
    while (gcev_trace_next(t, &ev, &err) == GCEV_OK) {
        if (ev.nfields == 0) {
            continue;
        }
        assert_int_equal(ev.field_type_system, GCEV_FIELD_TYPES_TDH);
        line = strstr(line, ": solar_system/PrimitiveTypesTest ");
        assert_non_null(line);
        char *eol = strchr(line, '\n');
        assert_non_null(eol);
        *eol = 0;
        char json[2048];
        size_t need = gcev_trace_format_fields_json(&ev, json, sizeof json);
        assert_true(need < sizeof json);
        assert_null(strstr(json, "\"_"));
        for (uint32_t i = 0; i < ev.nfields; i++) {
            check_tl_field(&ev.fields[i], json, line);
        }
        /* the baseline prints nothing we left out: one "; " per field after DataLen */
        const char *p = strstr(line, " DataLen=");
        assert_non_null(p);
        size_t printed = 0;
        for (p = strchr(p, ';'); p && p[1] == ' ' && p[2]; p = strchr(p + 1, ';')) {
            printed++;
        }
        assert_int_equal(printed, ev.nfields);
        line = eol + 1;
        tl++;
    }
    assert_int_equal(tl, 5);
    gcev_trace_close(t);
    free(baseline);
    free(bpath);
    free(path);
}

/* The timestamp-order option over an ETL file: same events, non-decreasing time. */
static void test_time_order_keeps_every_event(void **state)
{
    (void)state;
    char *path = path_in_corpus("gcrundownevents.etl");
    gcev_trace_options opts = {.struct_size = sizeof opts, .order = GCEV_TRACE_ORDER_TIME};
    gcev_trace *t = NULL;
    gcev_error err = {0};
    assert_int_equal(gcev_trace_open_file(path, &opts, &t, &err), GCEV_OK);
    gcev_trace_event ev;
    size_t n = 0;
    int64_t last = INT64_MIN;
    gcev_status st;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        assert_true(ev.timestamp >= last);
        last = ev.timestamp;
        n++;
    }
    assert_int_equal(st, GCEV_END);
    assert_int_equal(n, 112);
    gcev_trace_close(t);
    free(path);
}

/*
 * The relogged file in compressed mode (corpus README: 3 buffers, the 2nd and 3rd
 * compressed with MS-XCA Plain LZ77; 22 events; TraceEvent's Issue1618 test decodes
 * its one TraceLogging event to {"a":{"b":"Hello","c":"World!"}}), from the file, as
 * a stream, in timestamp order and inside a .etl.zip: the same 22 events each time.
 */
typedef struct chunks {
    const uint8_t *d;
    size_t n, pos;
} chunks;

static long long chunks_read(void *ctx, void *buf, size_t n)
{
    chunks *c = ctx;
    size_t k = c->n - c->pos < n ? c->n - c->pos : n;
    k = k < 1000 ? k : 1000;
    memcpy(buf, c->d + c->pos, k);
    c->pos += k;
    return (long long)k;
}

static void check_compressed_run(gcev_trace *t, uint32_t order)
{
    const gcev_trace_info *info = gcev_trace_get_info(t);
    assert_int_equal(info->format, GCEV_FORMAT_ETL);
    assert_int_equal(info->pointer_size, 8);
    gcev_trace_event ev;
    gcev_error err = {0};
    gcev_status st;
    size_t n = 0, tl = 0;
    int64_t last = INT64_MIN;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        if (n == 0 && order == GCEV_TRACE_ORDER_FILE) {
            gcev_etl_logfile lf;
            const char *msg = NULL;
            assert_int_equal(gcev_etl_logfile_parse(ev.payload, ev.payload_size, &lf, &msg), GCEV_OK);
            assert_int_equal(lf.buffer_size, 65536);
            assert_true(lf.log_file_mode & 0x04000000u); /* EVENT_TRACE_COMPRESSED_MODE */
            assert_int_equal(lf.buffers_written, 3);
        }
        /* records of the compressed buffers carry their buffer's offset */
        assert_true(ev.file_offset < 1024 || ev.file_offset == 1024 || ev.file_offset == 7177);
        if (order == GCEV_TRACE_ORDER_TIME) {
            assert_true(ev.timestamp >= last);
            last = ev.timestamp;
        }
        if (ev.nfields) {
            char json[256];
            gcev_trace_format_fields_json(&ev, json, sizeof json);
            assert_string_equal(json, "{\"a\":{\"b\":\"Hello\",\"c\":\"World!\"}}");
            assert_string_equal(ev.provider_name, "MySource");
            assert_string_equal(ev.event_name, "TestEvent");
            tl++;
        }
        n++;
    }
    assert_int_equal(st, GCEV_END);
    assert_int_equal(n, 22);
    assert_int_equal(tl, 1);
}

static void test_compressed_relogged_file(void **state)
{
    (void)state;
    char *path = path_in_corpus("compressed-SelfDescribingSingleEvent.etl");
    size_t size = 0;
    uint8_t *data = (uint8_t *)testutil_read_file(path, &size);
    assert_non_null(data);
    assert_int_equal(size, 7403);
    for (uint32_t order = 0; order < 2; order++) {
        gcev_trace_options o = {.struct_size = sizeof o, .order = order};
        gcev_trace *t = NULL;
        gcev_error err = {0};
        assert_int_equal(gcev_trace_open_file(path, &o, &t, &err), GCEV_OK);
        check_compressed_run(t, order);
        gcev_trace_close(t);
        chunks c = {data, size, 0};
        assert_int_equal(gcev_trace_open_reader(chunks_read, &c, &o, &t, &err), GCEV_OK);
        check_compressed_run(t, order);
        gcev_trace_close(t);
        zipb_entry e[] = {{"compressed.etl", data, size, ZIPB_DEFLATE, 0},
                          {"x.pdb", "RSDS", 4, ZIPB_STORE, 0}};
        size_t zn = 0;
        uint8_t *z = zipb_build(e, 2, &zn);
        assert_non_null(z);
        assert_int_equal(gcev_trace_open_memory(z, zn, &o, &t, &err), GCEV_OK);
        assert_string_equal(gcev_trace_get_info(t)->archive_entry, "compressed.etl");
        check_compressed_run(t, order);
        gcev_trace_close(t);
        free(z);
    }
    free(data);
    free(path);
}

/*
 * BuffersWritten: every corpus file holds exactly the buffers its header counts (the
 * header buffer included), so a file cut at a buffer boundary is known to be cut:
 * `head -c 65536 gcrundownevents.etl` gives the first buffer's 2 events, then
 * GCEV_E_TRUNCATED_FILE at 65536, the first missing byte (it read as a complete
 * 2-event trace before).
 */
static void test_cut_at_a_buffer_boundary_is_truncated(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        size_t buffers;
    } files[] = {{"gcrundownevents.etl", 2},
                 {"primitive-types.etl", 2},
                 {"compressed-SelfDescribingSingleEvent.etl", 3}};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char *path = path_in_corpus(files[f].file);
        size_t size = 0;
        uint8_t *data = (uint8_t *)testutil_read_file(path, &size);
        assert_non_null(data);
        /* walk the buffers; the header's BuffersWritten is their number */
        size_t bounds[8], nb = 0;
        for (size_t at = 0; at < size && nb < 8;) {
            bounds[nb++] = at;
            at += (size_t)(data[at] | data[at + 1] << 8 | data[at + 2] << 16 | (uint32_t)data[at + 3] << 24);
        }
        assert_int_equal(nb, files[f].buffers);
        assert_int_equal(gcev_rd_u32le(data + 0x48 + 32 + 36), files[f].buffers);
        for (size_t b = 1; b < nb; b++) {
            for (uint32_t order = 0; order < 2; order++) {
                gcev_trace_options o = {.struct_size = sizeof o, .order = order};
                gcev_trace *t = NULL;
                gcev_error err = {0};
                assert_int_equal(gcev_trace_open_memory(data, bounds[b], &o, &t, &err), GCEV_OK);
                gcev_trace_event ev;
                gcev_status st;
                size_t n = 0;
                while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
                    assert_true(ev.file_offset < bounds[b]);
                    n++;
                }
                assert_int_equal(st, GCEV_E_TRUNCATED_FILE);
                assert_int_equal(err.offset, bounds[b]);
                assert_non_null(strstr(err.message, "ETL buffers its log file header says were written"));
                if (strcmp(files[f].file, "gcrundownevents.etl") == 0) {
                    assert_int_equal(n, 2);
                }
                gcev_trace_close(t);
            }
        }
        free(data);
        free(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_primitive_types_matches_baseline),
        cmocka_unit_test(test_gcrundownevents_matches_baseline),
        cmocka_unit_test(test_primitive_types_tracelogging_fields),
        cmocka_unit_test(test_primitive_types_tracelogging_values),
        cmocka_unit_test(test_time_order_keeps_every_event),
        cmocka_unit_test(test_compressed_relogged_file),
        cmocka_unit_test(test_cut_at_a_buffer_boundary_is_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
