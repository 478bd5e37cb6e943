/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: the diagnostics IPC reply parsers (src/session/gcev_ipc.c), which read
 * what a process's socket sends before any trace: the header, the OK/error reply,
 * the ProcessInfo/ProcessInfo2 payload and its UTF-16 strings. The input is taken as
 * a whole message and as a bare payload. The request encoder gets the input as a
 * provider name: whatever it accepts must parse back as a header of its own size.
 */
#include <stdlib.h>
#include <string.h>

#include "gcev_ipc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void strings(const gcev_ipc_process_info *pi)
{
    const gcev_utf16 *s[5] = {&pi->command_line, &pi->os, &pi->arch, &pi->entrypoint, &pi->runtime_version};
    for (int i = 0; i < 5; i++) {
        char *u = gcev_ipc_utf8_dup(*s[i]);
        if (!u) {
            abort();
        }
        free(u);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gcev_ipc_header h;
    gcev_error err;
    gcev_ipc_process_info pi;
    if (gcev_ipc_parse_header(data, size, &h, &err) == GCEV_OK) {
        size_t n = size - GCEV_IPC_HEADER_SIZE;
        size_t want = (size_t)h.size - GCEV_IPC_HEADER_SIZE;
        gcev_ipc_reply r;
        (void)gcev_ipc_parse_reply(&h, data + GCEV_IPC_HEADER_SIZE, n < want ? n : want, &r, &err);
        for (unsigned v = 1; v <= 2; v++) {
            if (gcev_ipc_parse_process_info(data + GCEV_IPC_HEADER_SIZE, n < want ? n : want, v, &pi, &err) ==
                GCEV_OK) {
                strings(&pi);
            }
        }
    }
    for (unsigned v = 1; v <= 2; v++) {
        if (gcev_ipc_parse_process_info(data, size, v, &pi, &err) == GCEV_OK) {
            strings(&pi);
        }
    }
    /* the encoder: the input as a provider name and arguments */
    if (size > 0 && size < 70000) {
        char *name = malloc(size + 1);
        uint8_t *msg = malloc(GCEV_IPC_MAX_MESSAGE);
        if (!name || !msg) {
            abort();
        }
        memcpy(name, data, size);
        name[size] = 0;
        gcev_ipc_provider p = {name, 1, 4, size > 1 ? name + 1 : NULL};
        gcev_ipc_collect c = {256, 1, 1, 1, 1, 1, &p, 1};
        for (unsigned v = 2; v <= 6; v++) {
            size_t len;
            if (gcev_ipc_encode_collect(v, &c, msg, GCEV_IPC_MAX_MESSAGE, &len) == GCEV_OK &&
                (gcev_ipc_parse_header(msg, len, &h, &err) != GCEV_OK || h.size != len ||
                 h.command_id != v + 1)) {
                abort();
            }
        }
        free(name);
        free(msg);
    }
    return 0;
}
