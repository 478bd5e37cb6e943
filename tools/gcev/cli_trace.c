/* SPDX-License-Identifier: MIT */
#include "cli_trace.h"

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

int gcev_cli_open_trace(const char *cmd, const char *path, const gcev_trace_options *opts, gcev_trace **out)
{
    gcev_error err = {0};
    gcev_status st;
    if (path[0] == '-' && path[1] == '\0') {
        st = gcev_trace_open_reader(read_stdin, stdin, opts, out, &err);
    } else {
        st = gcev_trace_open_file(path, opts, out, &err);
    }
    if (st != GCEV_OK) {
        gcev_cli_trace_error(cmd, path, st, &err);
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

void gcev_cli_trace_error(const char *cmd, const char *path, gcev_status st, const gcev_error *err)
{
    const char *what = gcev_status_str(st);
    if (!err->message || !strcmp(err->message, what)) {
        gcev_cli_fail(cmd, "%s: %s at offset %llu", path, what, (unsigned long long)err->offset);
    } else {
        gcev_cli_fail(cmd, "%s: %s (%s at offset %llu)", path, err->message, what,
                      (unsigned long long)err->offset);
    }
}
