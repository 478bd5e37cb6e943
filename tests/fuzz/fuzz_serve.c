/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: the texts gcev serve parses (tools/gcev/serve/serve_parse.c): a
 * /proc/<pid>/cgroup text (container id), /proc/<pid>/stat (name, start time),
 * /proc/self/statm and an HTTP Accept header value; and the label escape of what they
 * give. The input is each of them whole, unterminated (an exact-size copy, so ASan sees a
 * read past its end), with small and odd output sizes.
 */
#include <stdlib.h>
#include <string.h>

#include "serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *t = malloc(size ? size : 1);
    if (!t) {
        return 0;
    }
    memcpy(t, data, size);
    char id[80], comm[64], esc[20];
    uint64_t v = 0;
    size_t outs[] = {0, 1, 64, 65, sizeof id};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        if (serve_parse_container_id(t, size, id, outs[i])) {
            if (outs[i] < 65 || strlen(id) != 64 || strspn(id, "0123456789abcdef") != 64) {
                abort();
            }
        }
    }
    size_t cn[] = {1, 2, 16, sizeof comm};
    for (size_t i = 0; i < sizeof cn / sizeof cn[0]; i++) {
        if (serve_parse_stat(t, size, comm, cn[i], &v) && strlen(comm) >= cn[i]) {
            abort();
        }
        if (strlen(comm) < cn[i]) {
            serve_escape_label(comm, esc, sizeof esc);
            if (strlen(esc) >= sizeof esc) {
                abort();
            }
        }
    }
    (void)serve_parse_statm(t, size, &v);
    /* the Accept and Accept-Encoding headers are C strings (libmicrohttpd's) */
    char *z = malloc(size + 1);
    if (z) {
        memcpy(z, data, size);
        z[size] = '\0';
        int r = serve_accept_openmetrics(z);
        int g = serve_accept_gzip(z);
        if ((r != 0 && r != 1) || (g != 0 && g != 1)) {
            abort();
        }
        free(z);
    }
    free(t);
    return 0;
}
