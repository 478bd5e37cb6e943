/* SPDX-License-Identifier: MIT */
/*
 * README.md's "gcev stats" tables against the CLI (issue 11 item 6):
 * - every JSON key `gcev stats --format json` prints (on the committed real traces and the
 *   sample, in both modes) is in the tables, and every key a table's first column names is one
 *   tools/gcev/stats_out_json.c or the metric tables (src/stats/gcev_stats_metrics.c) name;
 * - the CSV tables the README lists are the ones the CLI prints, with their leading columns;
 * - every JSON output of every command carries "json_version".
 * GCEV_CLI is the gcev binary, GCEV_SOURCE_DIR the source tree.
 */
#define _POSIX_C_SOURCE 200809L /* popen */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

/* ---- small string sets ---- */

typedef struct strset {
    char **v;
    size_t n, cap;
} strset;

static int has(const strset *s, const char *x)
{
    for (size_t i = 0; i < s->n; i++) {
        if (!strcmp(s->v[i], x)) {
            return 1;
        }
    }
    return 0;
}

static void add(strset *s, const char *x, size_t len)
{
    char *c = malloc(len + 1);
    memcpy(c, x, len);
    c[len] = '\0';
    if (has(s, c)) {
        free(c);
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = c;
}

static void free_set(strset *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i]);
    }
    free(s->v);
}

/* ---- inputs ---- */

static char *path_of(const char *rel)
{
    const char *src = getenv("GCEV_SOURCE_DIR");
    assert_non_null(src);
    char *p = malloc(strlen(src) + strlen(rel) + 2);
    sprintf(p, "%s/%s", src, rel);
    return p;
}

static char *run(const char *fmt, ...)
{
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    const char *cli = getenv("GCEV_CLI");
    assert_non_null(cli);
    snprintf(cmd, sizeof cmd, "'%s' %s", cli, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0, r;
    char *buf = malloc(cap + 1);
    while ((r = fread(buf + n, 1, cap - n, p)) > 0) {
        n += r;
        if (n == cap) {
            buf = realloc(buf, (cap *= 2) + 1);
        }
    }
    buf[n] = '\0';
    int rc = pclose(p);
    if (rc != 0) {
        fprintf(stderr, "%s: exit status %d\n", cmd, rc);
    }
    assert_int_equal(rc, 0);
    return buf;
}

/* The README's "## gcev stats" section (malloc'ed). */
static char *stats_section(void)
{
    char *p = path_of("README.md");
    char *text = testutil_read_file(p, NULL);
    free(p);
    assert_non_null(text);
    char *a = strstr(text, "\n## gcev stats\n");
    assert_non_null(a);
    char *b = strstr(a + 1, "\n## ");
    size_t n = b ? (size_t)(b - a) : strlen(a);
    char *s = malloc(n + 1);
    memcpy(s, a, n);
    s[n] = '\0';
    free(text);
    return s;
}

/* Backticked names of the section's table rows: every column into all, the first into first. */
static void documented(const char *sec, strset *all, strset *first)
{
    for (const char *line = sec; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (line[0] != '|' || line[1] == '-') {
            continue;
        }
        const char *end = strchr(line, '\n');
        if (!end) {
            end = line + strlen(line);
        }
        const char *col2 = memchr(line + 1, '|', (size_t)(end - line - 1));
        for (const char *q = line; q < end;) {
            const char *o = memchr(q, '`', (size_t)(end - q));
            if (!o) {
                break;
            }
            const char *c = memchr(o + 1, '`', (size_t)(end - o - 1));
            if (!c) {
                break;
            }
            /* `name[]` and `name{}` name the key `name` */
            size_t len = (size_t)(c - o - 1);
            while (len && (o[len] == ']' || o[len] == '[' || o[len] == '{' || o[len] == '}')) {
                len--;
            }
            add(all, o + 1, len);
            if (col2 && o < col2) {
                add(first, o + 1, len);
            }
            q = c + 1;
        }
    }
}

/* Objects whose keys are data (family, root kind, condemned group names), not layout. */
static int is_map(const char *key)
{
    return key && (!strcmp(key, "events_seen") || !strcmp(key, "marks") || !strcmp(key, "global_condemned") ||
                   !strcmp(key, "condemned"));
}

static void keys_of(const tj *v, const char *parent, strset *out)
{
    if (v->kind == TJ_ARR) {
        for (size_t i = 0; i < v->n; i++) {
            keys_of(&v->items[i], parent, out);
        }
    } else if (v->kind == TJ_OBJ) {
        for (size_t i = 0; i < v->n; i++) {
            if (!is_map(parent)) {
                add(out, v->keys[i], strlen(v->keys[i]));
            }
            keys_of(&v->items[i], is_map(parent) ? NULL : v->keys[i], out);
        }
    }
}

/* ---- tests ---- */

static void test_every_json_key_is_documented_and_written_by_the_code(void **state)
{
    (void)state;
    char *sec = stats_section();
    strset all = {0}, first = {0}, seen = {0};
    char *csv = strstr(sec, "**CSV**"); /* the JSON tables come before the CSV ones */
    if (csv) {
        *csv = '\0';
    }
    documented(sec, &all, &first);
    assert_true(first.n > 100);
    /* the keys the CLI prints, on every committed trace and the sample, both modes */
    char *dir = path_of("tests/data/traces");
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int traces = 0;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 9 || strcmp(e->d_name + n - 9, ".nettrace")) {
            continue;
        }
        for (int compat = 0; compat < 2; compat++) {
            char *json =
                run("stats --format json %s '%s/%s'", compat ? "--compat traceevent" : "", dir, e->d_name);
            tj root;
            assert_int_equal(tj_parse(json, &root), 0);
            keys_of(&root, NULL, &seen);
            tj_free(&root);
            free(json);
        }
        traces++;
    }
    closedir(d);
    assert_true(traces >= 10);
    char *sample = path_of("examples/sample.nettrace");
    char *json = run("stats --format json '%s'", sample);
    tj root;
    assert_int_equal(tj_parse(json, &root), 0);
    keys_of(&root, NULL, &seen);
    tj_free(&root);
    free(json);
    int missing = 0;
    for (size_t i = 0; i < seen.n; i++) {
        if (!has(&all, seen.v[i])) {
            fprintf(stderr, "README.md: JSON key `%s` is printed but not in the gcev stats tables\n",
                    seen.v[i]);
            missing++;
        }
    }
    /* every key the tables name (first column) is one the code writes */
    /* the writer's own keys, and the metric tables' (src/stats/gcev_stats_metrics.c) */
    char *src_path = path_of("tools/gcev/stats_out_json.c");
    char *tab_path = path_of("src/stats/gcev_stats_metrics.c");
    char *writer = testutil_read_file(src_path, NULL);
    char *table = testutil_read_file(tab_path, NULL);
    assert_non_null(writer);
    assert_non_null(table);
    char *src = malloc(strlen(writer) + strlen(table) + 2);
    sprintf(src, "%s\n%s", writer, table);
    free(writer);
    free(table);
    free(tab_path);
    for (size_t i = 0; i < first.n; i++) {
        char q1[128], q2[128];
        snprintf(q1, sizeof q1, "\"%s\"", first.v[i]);
        snprintf(q2, sizeof q2, "\\\"%s\\\"", first.v[i]);
        if (!strstr(src, q1) && !strstr(src, q2)) {
            fprintf(stderr, "README.md: `%s` is in a gcev stats table but no JSON key of the code\n",
                    first.v[i]);
            missing++;
        }
    }
    printf("%zu JSON keys printed, %zu documented (first columns %zu)\n", seen.n, all.n, first.n);
    assert_int_equal(missing, 0);
    free(src);
    free(src_path);
    free(sample);
    free(dir);
    free(sec);
    free_set(&all);
    free_set(&first);
    free_set(&seen);
}

/* The README's CSV tables: each `--table` row names a table the CLI prints, with its leading
 * columns; every table of the CLI is in it, and every column of a table is a key the metric
 * tables name (its path, '.' as '_') or one of the leading columns. */
static void test_csv_tables_are_the_readme_ones(void **state)
{
    (void)state;
    static const char *const tables[] = {"gcs",     "generations",   "heaps",   "processes",
                                         "gcstats", "gen_summaries", "summary", NULL};
    char *sec = stats_section();
    char *csv = strstr(sec, "**CSV**");
    assert_non_null(csv);
    char *sample = path_of("examples/sample.nettrace");
    for (int t = 0; tables[t]; t++) {
        char row[64];
        snprintf(row, sizeof row, "| `%s`", tables[t]);
        const char *line = strstr(csv, row);
        if (!line) {
            fprintf(stderr, "README.md: CSV table `%s` is not in the --table list\n", tables[t]);
        }
        assert_non_null(line);
        char *out = run("stats --format csv --table %s '%s'", tables[t], sample);
        char *nl = strchr(out, '\n');
        assert_non_null(nl);
        *nl = '\0';
        /* the leading columns the README gives, in order, begin the header */
        const char *lead = strchr(line + 1, '|');
        lead = lead ? strchr(lead + 1, '|') : NULL;
        assert_non_null(lead);
        const char *eol = strchr(lead, '\n');
        const char *then = strstr(lead, "then");
        const char *stop = then && then < eol ? then : eol;
        const char *col = out;
        for (const char *q = lead; q < stop;) {
            const char *o = memchr(q, '`', (size_t)(stop - q));
            if (!o) {
                break;
            }
            const char *c = memchr(o + 1, '`', (size_t)(stop - o - 1));
            assert_non_null(c);
            size_t len = (size_t)(c - o - 1);
            if (strncmp(col, o + 1, len) != 0 || (col[len] != ',' && col[len] != '\0')) {
                fprintf(stderr, "README.md: table `%s` should begin with `%.*s`: %.60s\n", tables[t],
                        (int)len, o + 1, col);
                fail();
            }
            col += len + (col[len] == ',');
            q = c + 1;
        }
        free(out);
    }
    /* no other table */
    assert_non_null(strstr(csv, "| `summary` |"));
    free(sample);
    free(sec);
}

static void check_version(const char *what, const char *json)
{
    tj v;
    if (tj_parse(json, &v) != 0) {
        fprintf(stderr, "%s: not JSON: %.80s\n", what, json);
        fail();
    }
    const tj *arr = v.kind == TJ_ARR ? &v : NULL;
    for (size_t i = 0; i < (arr ? arr->n : 1); i++) {
        const tj *o = arr ? &arr->items[i] : &v;
        const tj *ver = tj_get(o, "json_version");
        if (!ver || ver->kind != TJ_NUM) {
            fprintf(stderr, "%s: no json_version\n", what);
            fail();
        }
    }
    tj_free(&v);
}

static void test_every_json_output_has_a_version(void **state)
{
    (void)state;
    char *sample = path_of("examples/sample.nettrace");
    char *out = run("stats --format json '%s'", sample);
    check_version("stats --format json", out);
    free(out);
    out = run("count --format json '%s'", sample);
    check_version("count --format json", out);
    free(out);
    out = run("schema --format json GCStart");
    check_version("schema --format json", out);
    free(out);
    out = run("decode --provider Microsoft-Windows-DotNETRuntime --id 1 --version 2 --pointer-size 8 "
              "0800000000000000000000000000000003000000000000000000");
    check_version("decode", out);
    free(out);
    out = run("dump --format jsonl --gc-only '%s'", sample);
    size_t lines = 0;
    for (char *line = out; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) {
            *nl = '\0';
        }
        check_version("dump --format jsonl", line);
        lines++;
        line = nl ? nl + 1 : NULL;
    }
    assert_true(lines > 1000);
    free(out);
    free(sample);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_json_key_is_documented_and_written_by_the_code),
        cmocka_unit_test(test_csv_tables_are_the_readme_ones),
        cmocka_unit_test(test_every_json_output_has_a_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
