/* SPDX-License-Identifier: MIT */
/*
 * The mutant list's reader and applier (used by tools/mutation/run.sh).
 *
 *   mutate LIST ids             every mutant id, one per line
 *   mutate LIST show ID         the mutant as written in the list
 *   mutate LIST file ID         the file it changes (relative to the tree)
 *   mutate LIST equivalent ID   its documented reason when it is equivalent (exit 1 when not)
 *   mutate LIST apply ID ROOT   replaces the snippet in ROOT/<file>: exit 0 applied,
 *                               3 stale (snippet missing or not unique; the reason on stdout)
 *
 * A mutant (see mutants.txt) is a block
 *   [id]
 *   file: path/relative/to/the/tree.c
 *   find: exact text            (several find: lines are joined with newlines)
 *   repl: its replacement       (likewise)
 *   why: what the change breaks (optional)
 *   equivalent: why no test can see it (optional)
 * The text after "find: " / "repl: " is taken literally, leading spaces included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text {
    char *s;
    size_t n, cap;
    int lines;
} text;

typedef struct mutant {
    char id[128];
    char file[512];
    text find, repl, why, equiv, raw;
    int line;
} mutant;

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "mutate: %s%s\n", msg, arg ? arg : "");
    exit(2);
}

static void text_add(text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        t->cap = (t->n + n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        if (!t->s) {
            die("out of memory", NULL);
        }
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = '\0';
}

/* Appends a line to a multi-line value (a newline between lines). */
static void text_line(text *t, const char *s)
{
    if (t->lines++) {
        text_add(t, "\n", 1);
    }
    text_add(t, s, strlen(s));
}

static char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    text t = {0};
    char buf[65536];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0) {
        text_add(&t, buf, r);
    }
    fclose(f);
    if (!t.s) {
        text_add(&t, "", 0);
    }
    *n = t.n;
    return t.s;
}

/* Parses the list; returns the mutants (count in *n). */
static mutant *parse(const char *path, size_t *count)
{
    size_t size;
    char *all = read_all(path, &size);
    if (!all) {
        die("cannot read ", path);
    }
    mutant *ms = NULL;
    size_t n = 0;
    mutant *cur = NULL;
    int lineno = 0;
    for (char *line = all; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) {
            *nl = '\0';
        }
        lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r') {
            line[--len] = '\0';
        }
        if (line[0] == '[' && len > 2 && line[len - 1] == ']') {
            ms = realloc(ms, (n + 1) * sizeof *ms);
            if (!ms) {
                die("out of memory", NULL);
            }
            cur = &ms[n++];
            memset(cur, 0, sizeof *cur);
            snprintf(cur->id, sizeof cur->id, "%.*s", (int)(len - 2), line + 1);
            cur->line = lineno;
            for (size_t i = 0; i + 1 < n; i++) {
                if (!strcmp(ms[i].id, cur->id)) {
                    die("duplicate mutant id ", cur->id);
                }
            }
        } else if (cur && len) {
            if (line[0] != '#') {
                text_line(&cur->raw, line);
            }
            if (!strncmp(line, "file: ", 6)) {
                snprintf(cur->file, sizeof cur->file, "%s", line + 6);
            } else if (!strncmp(line, "find: ", 6)) {
                text_line(&cur->find, line + 6);
            } else if (!strncmp(line, "repl: ", 6)) {
                text_line(&cur->repl, line + 6);
            } else if (!strcmp(line, "repl:")) {
                text_line(&cur->repl, ""); /* an empty replacement: the snippet is deleted */
            } else if (!strncmp(line, "why: ", 5)) {
                text_line(&cur->why, line + 5);
            } else if (!strncmp(line, "equivalent: ", 12)) {
                text_line(&cur->equiv, line + 12);
            } else if (line[0] != '#') {
                fprintf(stderr, "mutate: %s:%d: unknown line in [%s]\n", path, lineno, cur->id);
                exit(2);
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (!ms[i].file[0] || !ms[i].find.s || !ms[i].repl.s) {
            fprintf(stderr, "mutate: %s:%d: [%s] needs file:, find: and repl:\n", path, ms[i].line, ms[i].id);
            exit(2);
        }
    }
    free(all);
    *count = n;
    return ms;
}

static const mutant *find_mutant(const mutant *ms, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(ms[i].id, id)) {
            return &ms[i];
        }
    }
    die("no mutant ", id);
    return NULL;
}

/* Occurrences of needle in hay (overlapping ones counted), first one in *at. */
static size_t occurrences(const char *hay, size_t hn, const char *needle, size_t nn, size_t *at)
{
    size_t count = 0;
    for (size_t i = 0; nn && i + nn <= hn; i++) {
        if (hay[i] == needle[0] && !memcmp(hay + i, needle, nn)) {
            if (count++ == 0) {
                *at = i;
            }
        }
    }
    return count;
}

static int apply(const mutant *m, const char *root)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, m->file);
    size_t n;
    char *src = read_all(path, &n);
    if (!src) {
        printf("stale: %s does not exist\n", m->file);
        return 3;
    }
    size_t at = 0, k = occurrences(src, n, m->find.s, m->find.n, &at);
    if (k != 1) {
        printf("stale: the snippet occurs %zu times in %s (needs exactly 1)\n", k, m->file);
        free(src);
        return 3;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        die("cannot write ", path);
    }
    fwrite(src, 1, at, f);
    fwrite(m->repl.s, 1, m->repl.n, f);
    fwrite(src + at + m->find.n, 1, n - at - m->find.n, f);
    if (fclose(f) != 0) {
        die("cannot write ", path);
    }
    free(src);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: mutate LIST ids | show ID | file ID | equivalent ID | apply ID ROOT\n");
        return 2;
    }
    size_t n;
    mutant *ms = parse(argv[1], &n);
    const char *cmd = argv[2];
    if (!strcmp(cmd, "ids")) {
        for (size_t i = 0; i < n; i++) {
            printf("%s\n", ms[i].id);
        }
        return 0;
    }
    if (argc < 4) {
        die("missing mutant id for ", cmd);
    }
    const mutant *m = find_mutant(ms, n, argv[3]);
    if (!strcmp(cmd, "show")) {
        printf("[%s]\n%s\n", m->id, m->raw.s ? m->raw.s : "");
        return 0;
    }
    if (!strcmp(cmd, "file")) {
        printf("%s\n", m->file);
        return 0;
    }
    if (!strcmp(cmd, "equivalent")) {
        if (!m->equiv.s) {
            return 1;
        }
        printf("%s\n", m->equiv.s);
        return 0;
    }
    if (!strcmp(cmd, "apply") && argc >= 5) {
        return apply(m, argv[4]);
    }
    die("unknown command ", cmd);
    return 2;
}
