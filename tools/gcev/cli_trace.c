/* SPDX-License-Identifier: MIT */
#include "cli_trace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static long long read_stdin(void *ctx, void *buf, size_t n)
{
    size_t got = fread(buf, 1, n, (FILE *)ctx);
    if (got == 0 && ferror((FILE *)ctx)) {
        return -1;
    }
    return (long long)got;
}

/* The reader's message; after the status for malformed data and limits, whose
 * messages name only the detail ("malformed trace data: <detail>"). */
static void print_what(gcev_status st, const gcev_error *err)
{
    const char *status = gcev_status_str(st);
    const char *msg = err->message && err->message[0] ? err->message : status;
    if ((st == GCEV_E_FORMAT || st == GCEV_E_LIMIT) && strstr(msg, status) == NULL) {
        fprintf(stderr, "%s: ", status);
    }
    fputs(msg, stderr);
}

static void trace_message(const char *cmd, const char *path, gcev_status st, const gcev_error *err,
                          int os_errno, int at_open)
{
    fprintf(stderr, "gcev %s: %s: ", cmd, gcev_cli_file_label(path));
    print_what(st, err);
    if (st == GCEV_E_IO && os_errno) {
        fprintf(stderr, ": %s", strerror(os_errno));
    }
    /* an offset says where in the file; not for a file that could not be opened, or
     * whose very first bytes already say it is no trace (or that it is empty) */
    int whole_file = at_open && err->offset == 0 &&
                     (st == GCEV_E_IO || st == GCEV_E_UNSUPPORTED || st == GCEV_E_TRUNCATED_FILE);
    if (!whole_file) {
        fprintf(stderr, " at offset %llu", (unsigned long long)err->offset);
    }
    fputc('\n', stderr);
}

int gcev_cli_open_trace(const char *cmd, const char *path, const gcev_trace_options *opts, gcev_trace **out)
{
    gcev_error err = {0};
    gcev_status st;
    errno = 0;
    if (path[0] == '-' && path[1] == '\0') {
        st = gcev_trace_open_reader(read_stdin, stdin, opts, out, &err);
    } else {
        st = gcev_trace_open_file(path, opts, out, &err);
    }
    if (st != GCEV_OK) {
        trace_message(cmd, path, st, &err, errno, 1);
        return 1;
    }
    return 0;
}

const char *gcev_cli_provider_label(const gcev_trace_event *ev, char guid_buf[37])
{
    if (ev->provider_name && ev->provider_name[0]) {
        return ev->provider_name;
    }
    gcev_provider_info pi;
    if (gcev_provider_get_info(ev->provider, &pi) == GCEV_OK) {
        return pi.name;
    }
    if (ev->has_provider_guid) {
        gcev_guid_format(&ev->provider_guid, guid_buf);
        return guid_buf;
    }
    return "";
}

const gcev_event_desc *gcev_cli_event_desc(const gcev_trace_event *ev)
{
    if (!ev->provider || ev->no_event_id) {
        return NULL;
    }
    gcev_status st;
    return gcev_event_desc_resolve(ev->provider, ev->event_id, ev->version, &st);
}

const char *gcev_cli_event_name(const gcev_trace_event *ev)
{
    gcev_event_info info;
    if (gcev_event_get_info(gcev_cli_event_desc(ev), &info) == GCEV_OK && info.symbol) {
        return info.symbol;
    }
    return ev->event_name ? ev->event_name : "";
}

void gcev_cli_trace_error(const char *cmd, const char *path, gcev_trace *t, gcev_status st,
                          const gcev_error *err)
{
    int os_errno = errno;
    if (st == GCEV_E_IO && t) {
        gcev_trace_event ev;
        gcev_error again;
        errno = 0;
        if (gcev_trace_next(t, &ev, &again) == GCEV_E_IO && errno) {
            os_errno = errno;
        }
    }
    trace_message(cmd, path, st, err, os_errno, 0);
}
