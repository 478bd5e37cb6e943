/* SPDX-License-Identifier: MIT */
/* Helpers every subcommand shares: messages, option choices, the FILE argument, JSON strings. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gcev_text.h"

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

void gcev_cli_args_init(gcev_cli_args *a, const char *cmd, int argc, char **argv)
{
    a->cmd = cmd;
    a->argc = argc;
    a->argv = argv;
    a->next = 1;
    a->operands_only = 0;
    a->arg = NULL;
}

int gcev_cli_args_next(gcev_cli_args *a)
{
    if (a->next < a->argc && !a->operands_only && !strcmp(a->argv[a->next], "--")) {
        a->operands_only = 1;
        a->next++;
    }
    if (a->next >= a->argc) {
        a->arg = NULL;
        return 0;
    }
    a->arg = a->argv[a->next++];
    return 1;
}

int gcev_cli_flag(const gcev_cli_args *a, const char *name)
{
    return !a->operands_only && a->arg && !strcmp(a->arg, name);
}

int gcev_cli_value(gcev_cli_args *a, const char *name, const char **value)
{
    if (a->operands_only || !a->arg) {
        return 0;
    }
    size_t n = strlen(name);
    if (strncmp(a->arg, name, n) != 0) {
        return 0;
    }
    if (a->arg[n] == '=') {
        *value = a->arg + n + 1;
        return 1;
    }
    if (a->arg[n] != '\0') {
        return 0;
    }
    if (a->next >= a->argc) {
        gcev_cli_fail(a->cmd, "%s needs a value (see 'gcev %s --help')", name, a->cmd);
        return -1;
    }
    *value = a->argv[a->next++];
    return 1;
}

int gcev_cli_number(const char *cmd, const char *option, const char *text, unsigned long long max, int hex,
                    unsigned long long *out)
{
    const char *p = text;
    int base = 10;
    if (hex && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        base = 16;
    }
    int digits = *p != '\0';
    for (const char *q = p; *q; q++) {
        int d = base == 16 ? (strchr("0123456789abcdefABCDEF", *q) != NULL) : (*q >= '0' && *q <= '9');
        digits &= d && *q != '\0';
    }
    if (!digits) {
        gcev_cli_fail(cmd, "%s needs a number, not '%s'", option, text);
        return 0;
    }
    errno = 0;
    unsigned long long v = strtoull(p, NULL, base);
    if (errno == ERANGE || v > max) {
        gcev_cli_fail(cmd, "%s %s is out of range (0 to %llu)", option, text, max);
        return 0;
    }
    *out = v;
    return 1;
}

int gcev_cli_file_arg(const gcev_cli_args *a, const char **path)
{
    const char *arg = a->arg;
    if (!a->operands_only && arg[0] == '-' && arg[1] != '\0') {
        return gcev_cli_fail(a->cmd, "unknown option '%s' (see 'gcev %s --help')", arg, a->cmd);
    }
    if (*path) {
        return gcev_cli_fail(a->cmd, "more than one FILE given ('%s' and '%s')", *path, arg);
    }
    *path = arg; /* "-" is standard input */
    return 0;
}

int gcev_cli_no_file(const char *cmd)
{
    return gcev_cli_fail(cmd, "no FILE given (a .nettrace, .netperf or .etl trace, or - for standard input)");
}

const char *gcev_cli_file_label(const char *path)
{
    return path[0] == '-' && path[1] == '\0' ? "standard input" : path;
}

static int out_errno; /* errno of the first failed write to stdout */

int gcev_cli_out_failed(void)
{
    if (ferror(stdout)) {
        if (!out_errno) {
            out_errno = errno ? errno : EIO;
        }
        return 1;
    }
    return 0;
}

int gcev_cli_finish_output(const char *cmd, int rc)
{
    int failed = gcev_cli_out_failed();
    errno = 0;
    if (fflush(stdout) != 0) {
        out_errno = errno ? errno : out_errno;
        failed = 1;
    }
    errno = 0;
    if (fclose(stdout) != 0) {
        out_errno = out_errno ? out_errno : (errno ? errno : EIO);
        failed = 1;
    }
    if (!failed) {
        return rc;
    }
    fprintf(stderr, "gcev%s%s: write error: %s\n", cmd ? " " : "", cmd ? cmd : "",
            strerror(out_errno ? out_errno : EIO));
    return rc == GCEV_EXIT_OK ? GCEV_EXIT_TRACE_ERROR : rc;
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

void gcev_cli_json_chars(FILE *out, const char *s)
{
    const uint8_t *p = (const uint8_t *)s;
    size_t n = strlen(s);
    while (n) {
        size_t len;
        char tmp[GCEV_JSON_CP_MAX];
        /* base's escaper: ill-formed UTF-8 (a command line from /proc) becomes U+FFFD, never
         * bytes that would make the line invalid JSON */
        fwrite(tmp, 1, gcev_json_escape_cp(gcev_utf8_next(p, n, &len), 0, tmp), out);
        p += len;
        n -= len;
    }
}

void gcev_cli_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    gcev_cli_json_chars(out, s);
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
