/* SPDX-License-Identifier: MIT */
#include "oracle_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *oracle_record_type(const tj *rec)
{
    const tj *r = tj_get(rec, "record");
    return r && r->kind == TJ_STR ? r->str : "";
}

static int push(const tj ***list, size_t *n, const tj *rec)
{
    const tj **nl = realloc(*list, (*n + 1) * sizeof **list);
    if (!nl) {
        return -1;
    }
    nl[(*n)++] = rec;
    *list = nl;
    return 0;
}

int oracle_json_load(oracle_json *o, const char *path, char *err, size_t errn)
{
    memset(o, 0, sizeof *o);
    size_t size;
    char *text = testutil_read_file(path, &size);
    if (!text) {
        snprintf(err, errn, "%s: cannot read", path);
        return -1;
    }
    size_t lines = 0;
    for (size_t i = 0; i < size; i++) {
        lines += text[i] == '\n';
    }
    o->records = calloc(lines + 1, sizeof *o->records);
    if (!o->records) {
        free(text);
        snprintf(err, errn, "%s: out of memory", path);
        return -1;
    }
    char *line = text;
    size_t lineno = 0;
    int rc = 0;
    while (line < text + size && rc == 0) {
        char *nl = memchr(line, '\n', (size_t)(text + size - line));
        if (nl) {
            *nl = '\0';
        }
        lineno++;
        if (*line) {
            if (tj_parse(line, &o->records[o->nrecords]) != 0) {
                snprintf(err, errn, "%s:%zu: not valid JSON", path, lineno);
                rc = -1;
                break;
            }
            o->nrecords++;
        }
        line = nl ? nl + 1 : text + size;
    }
    free(text);
    for (size_t i = 0; i < o->nrecords && rc == 0; i++) {
        const tj *r = &o->records[i];
        const char *t = oracle_record_type(r);
        if (!strcmp(t, "event")) {
            rc = push(&o->events, &o->nevents, r);
        } else if (!strcmp(t, "count")) {
            rc = push(&o->counts, &o->ncounts, r);
        } else if (!strcmp(t, "gc")) {
            rc = push(&o->gcs, &o->ngcs, r);
        } else if (!strcmp(t, "gcstats")) {
            rc = push(&o->gcstats, &o->ngcstats, r);
        } else if (!strcmp(t, "trace")) {
            o->trace = r;
        } else if (!strcmp(t, "end")) {
            o->end = r;
        }
        if (rc != 0) {
            snprintf(err, errn, "%s: out of memory", path);
        }
    }
    if (rc == 0 && !o->end) {
        snprintf(err, errn, "%s: no \"end\" record (the oracle did not finish)", path);
        rc = -1;
    }
    if (rc != 0) {
        oracle_json_free(o);
    }
    return rc;
}

void oracle_json_free(oracle_json *o)
{
    for (size_t i = 0; i < o->nrecords; i++) {
        tj_free(&o->records[i]);
    }
    free(o->records);
    free(o->events);
    free(o->counts);
    free(o->gcs);
    free(o->gcstats);
    memset(o, 0, sizeof *o);
}

int oracle_num_i64(const tj *v, int64_t *out)
{
    if (!v || v->kind != TJ_NUM || strpbrk(v->num, ".eE")) {
        return -1;
    }
    errno = 0;
    char *end;
    long long x = strtoll(v->num, &end, 10);
    if (errno || *end) {
        return -1;
    }
    *out = x;
    return 0;
}

int oracle_num_u64(const tj *v, uint64_t *out)
{
    if (!v || v->kind != TJ_NUM || v->num[0] == '-' || strpbrk(v->num, ".eE")) {
        return -1;
    }
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v->num, &end, 10);
    if (errno || *end) {
        return -1;
    }
    *out = x;
    return 0;
}

int oracle_num_double(const tj *v, double *out)
{
    if (v && v->kind == TJ_STR) {
        if (!strcmp(v->str, "NaN")) {
            *out = NAN;
            return 0;
        }
        if (!strcmp(v->str, "Infinity")) {
            *out = INFINITY;
            return 0;
        }
        if (!strcmp(v->str, "-Infinity")) {
            *out = -INFINITY;
            return 0;
        }
        return -1;
    }
    if (!v || v->kind != TJ_NUM) {
        return -1;
    }
    char *end;
    double d = strtod(v->num, &end);
    if (*end) {
        return -1;
    }
    *out = d;
    return 0;
}

const char *oracle_str(const tj *v)
{
    return v && v->kind == TJ_STR ? v->str : NULL;
}

int oracle_lines_load(oracle_lines *l, const char *path, char *err, size_t errn)
{
    memset(l, 0, sizeof *l);
    size_t size;
    l->text = testutil_read_file(path, &size);
    if (!l->text) {
        snprintf(err, errn, "%s: cannot read", path);
        return -1;
    }
    size_t lines = 1;
    for (size_t i = 0; i < size; i++) {
        lines += l->text[i] == '\n';
    }
    l->lines = malloc(lines * sizeof *l->lines);
    if (!l->lines) {
        oracle_lines_free(l);
        snprintf(err, errn, "%s: out of memory", path);
        return -1;
    }
    char *line = l->text;
    while (line < l->text + size) {
        char *nl = memchr(line, '\n', (size_t)(l->text + size - line));
        if (nl) {
            *nl = '\0';
        }
        if (*line) {
            l->lines[l->n++] = line;
        }
        line = nl ? nl + 1 : l->text + size;
    }
    return 0;
}

void oracle_lines_free(oracle_lines *l)
{
    free(l->text);
    free(l->lines);
    memset(l, 0, sizeof *l);
}

int oracle_lines_parse(const oracle_lines *l, size_t i, tj *out)
{
    if (i >= l->n) {
        return -1;
    }
    return tj_parse(l->lines[i], out);
}
