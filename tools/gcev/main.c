/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *summary;
} commands[] = {
    {"decode", gcev_cmd_decode, "decode one GC event payload given in hex, print JSON"},
    {"schema", gcev_cmd_schema, "list the compiled events, versions and fields"},
    {"count", gcev_cmd_count, "count the events of a trace per provider/id/version"},
    {"dump", gcev_cmd_dump, "print every event of a trace (text, jsonl, csv)"},
    {"stats", gcev_cmd_stats, "GC analysis: pauses, generations, heap sizes, lifetimes"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: gcev <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    }
    fprintf(f, "\n'gcev <command> --help' describes a command's options.\n"
               "Exit status: 0 success, 1 a trace error after partial output, 2 bad input or usage.\n");
}

int gcev_cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "gcev %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return GCEV_EXIT_USAGE;
}

int gcev_cli_choice(const char *cmd, const char *option, const char *value, const char *const *names)
{
    size_t n = 0;
    for (; names[n]; n++) {
        if (!strcmp(names[n], value)) {
            return (int)n;
        }
    }
    fprintf(stderr, "gcev %s: %s must be ", cmd, option);
    for (size_t i = 0; i < n; i++) {
        fprintf(stderr, "%s%s", names[i], i + 2 < n ? ", " : (i + 2 == n ? " or " : ""));
    }
    fprintf(stderr, ", not '%s'\n", value);
    return -1;
}

int gcev_cli_file_arg(const char *cmd, const char *arg, const char **path)
{
    if (arg[0] == '-' && arg[1] != '\0') {
        return gcev_cli_fail(cmd, "unknown or incomplete option '%s'", arg);
    }
    if (*path) {
        return gcev_cli_fail(cmd, "more than one FILE given");
    }
    *path = arg; /* "-" is standard input */
    return 0;
}

char *gcev_cli_format(size_t (*fn)(const gcev_event *, char *, size_t), const gcev_event *ev)
{
    size_t n = fn(ev, NULL, 0) + 1;
    char *s = malloc(n);
    if (s) {
        fn(ev, s, n);
    }
    return s;
}

void gcev_cli_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(out, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(out, "\\u%04x", c);
        } else {
            fputc(c, out);
        }
    }
    fputc('"', out);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? GCEV_EXIT_USAGE : GCEV_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("gcev 0.1.0\n");
        return GCEV_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (!strcmp(argv[1], commands[i].name)) {
            return commands[i].run(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "gcev: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return GCEV_EXIT_USAGE;
}
