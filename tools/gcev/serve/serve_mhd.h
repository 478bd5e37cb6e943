/* SPDX-License-Identifier: MIT */
/*
 * libmicrohttpd for gcev serve, loaded when serve starts (serve_mhd.c) instead of linked into
 * gcev: Debian's library brings GnuTLS and eight more libraries, whose mapping, relocations and
 * initialisers every other command (count, stats, ...) would pay at each start.
 */
#ifndef GCEV_SERVE_MHD_H
#define GCEV_SERVE_MHD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

#if MHD_VERSION < 0x00097002
typedef int serve_mhd_result;
#else
typedef enum MHD_Result serve_mhd_result;
#endif

/* The functions serve calls, with the types microhttpd.h gives them (serve_mhd.c checks). */
typedef struct MHD_Daemon *serve_mhd_start_fn(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc,
                                              void *apc_cls, MHD_AccessHandlerCallback dh, void *dh_cls, ...);
typedef void serve_mhd_stop_fn(struct MHD_Daemon *daemon);
typedef const char *serve_mhd_lookup_fn(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                                        const char *key);
typedef serve_mhd_result serve_mhd_queue_fn(struct MHD_Connection *connection, unsigned int status_code,
                                            struct MHD_Response *response);
typedef struct MHD_Response *serve_mhd_create_fn(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);
typedef void serve_mhd_destroy_fn(struct MHD_Response *response);
typedef serve_mhd_result serve_mhd_header_fn(struct MHD_Response *response, const char *header,
                                             const char *content);

typedef struct serve_mhd {
    serve_mhd_start_fn *start_daemon;
    serve_mhd_stop_fn *stop_daemon;
    serve_mhd_lookup_fn *lookup_connection_value;
    serve_mhd_queue_fn *queue_response;
    serve_mhd_create_fn *create_response_from_buffer;
    serve_mhd_destroy_fn *destroy_response;
    serve_mhd_header_fn *add_response_header;
} serve_mhd;

/* Loads the library (the SONAME gcev was built against) and its functions, once; call before
 * any thread uses them. NULL when it cannot, the reason in why[why_n] (dlerror's words). */
const serve_mhd *serve_mhd_load(char *why, size_t why_n);

#endif
