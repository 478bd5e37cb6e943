/* SPDX-License-Identifier: MIT */
/* Helpers every subcommand shares: messages, option choices, the FILE argument, JSON strings. */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

const char *gcev_cli_symbol(const gcev_event_desc *d)
{
    gcev_event_info info;
    return gcev_event_get_info(d, &info) == GCEV_OK && info.symbol ? info.symbol : "";
}

const char *gcev_cli_provider_name(const gcev_provider *p)
{
    gcev_provider_info info;
    return gcev_provider_get_info(p, &info) == GCEV_OK ? info.name : "";
}
