/* SPDX-License-Identifier: MIT */
/*
 * What the session (gcev_session.c) takes from the process queries
 * (gcev_process.c): one command and its reply on a connection of its own, and
 * ProcessInfo into a gcev_process_info. Internal to session.
 */
#ifndef GCEV_PROCESS_H
#define GCEV_PROCESS_H

#include <gcev/gcev_session.h>

#include "gcev_discover.h"
#include "gcev_ipc.h"

enum {
    GCEV_PROCESS_DEFAULT_TIMEOUT_MS = 5000,
    /* a reply payload buffer that holds any reply */
    GCEV_PROCESS_REPLY_CAP = GCEV_IPC_MAX_MESSAGE - GCEV_IPC_HEADER_SIZE
};

/*
 * Sends a message and reads the reply header and payload into payload[0..cap)
 * (cap >= 65535 - 20 holds any reply). The connection stays open in *fd_out when
 * fd_out is non-NULL (the stream follows a CollectTracing reply), else closes.
 */
gcev_status gcev_process_round_trip(const gcev_endpoint *ep, const uint8_t *msg, size_t len,
                                    uint32_t timeout_ms, gcev_ipc_header *h, uint8_t *payload, size_t *plen,
                                    int *fd_out, gcev_error *err);

/*
 * ProcessInfo2, else ProcessInfo, into *p. GCEV_OK with the strings set (""
 * when both were refused: *refused then holds the HRESULT), or the failure.
 */
gcev_status gcev_process_fetch_info(const gcev_endpoint *ep, uint32_t timeout_ms, gcev_process_info *p,
                                    int32_t *refused, uint8_t *payload, gcev_error *err);

/* Frees the strings of *p and zeroes it. */
void gcev_process_info_clear(gcev_process_info *p);

#endif
