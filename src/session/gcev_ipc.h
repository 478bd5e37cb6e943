/* SPDX-License-Identifier: MIT */
/*
 * The diagnostics IPC protocol of the .NET runtime as bytes: request encoders and
 * reply parsers, with no I/O (dotnet/diagnostics documentation/design-docs/
 * ipc-protocol.md). Every message is a 20-byte header ("DOTNET_IPC_V1\0", u16
 * size of header + payload, u8 command set, u8 command id, u16 reserved 0) and a
 * payload; numbers are little-endian; a string is a u32 count of UTF-16 code
 * units including the terminating NUL, then the units (or a count of 0).
 *
 * The parsers read only the bytes they are given and check every length against
 * them: a reply can never make them read out of bounds or allocate.
 */
#ifndef GCEV_IPC_H
#define GCEV_IPC_H

#include <gcev/gcev.h>

enum {
    GCEV_IPC_HEADER_SIZE = 20,
    GCEV_IPC_MAX_MESSAGE = 65535 /* the header's u16 size */
};

/* Command sets and ids used here. */
enum {
    GCEV_IPC_SET_EVENTPIPE = 0x02,
    GCEV_IPC_SET_PROCESS = 0x04,
    GCEV_IPC_SET_SERVER = 0xFF,
    GCEV_IPC_EP_STOP_TRACING = 0x01,
    /* CollectTracing<N> is command id N + 1 (2 -> 0x03 ... 6 -> 0x07) */
    GCEV_IPC_PROCESS_INFO = 0x00,
    GCEV_IPC_PROCESS_INFO2 = 0x04,
    GCEV_IPC_SERVER_OK = 0x00,
    GCEV_IPC_SERVER_ERROR = 0xFF
};

/* The HRESULTs the diagnostics server answers with (ipc-protocol.md "Errors"). */
#define GCEV_IPC_E_BAD_ENCODING ((int32_t)0x80131384u)
#define GCEV_IPC_E_UNKNOWN_COMMAND ((int32_t)0x80131385u)
#define GCEV_IPC_E_UNKNOWN_MAGIC ((int32_t)0x80131386u)
#define GCEV_IPC_E_NOTSUPPORTED ((int32_t)0x80131515u)
#define GCEV_IPC_E_FAIL ((int32_t)0x80004005u)
#define GCEV_IPC_E_NOT_YET_AVAILABLE ((int32_t)0x8013135bu)
#define GCEV_IPC_E_RUNTIME_UNINITIALIZED ((int32_t)0x80131371u)
#define GCEV_IPC_E_INVALIDARG ((int32_t)0x80070057u)

/* Static text naming a server HRESULT ("unknown command" ...); "error" for others. */
const char *gcev_ipc_hresult_name(int32_t hr);

typedef struct gcev_ipc_header {
    uint16_t size; /* header + payload */
    uint8_t command_set;
    uint8_t command_id;
    uint16_t reserved;
} gcev_ipc_header;

/*
 * Parses a 20-byte header from p[0..n). GCEV_OK; GCEV_E_TRUNCATED when n < 20;
 * GCEV_E_FORMAT for a wrong magic or a size below 20 (err->offset = the bad byte).
 */
gcev_status gcev_ipc_parse_header(const uint8_t *p, size_t n, gcev_ipc_header *h, gcev_error *err);

/* The answer to a command whose success payload is one u64 (CollectTracing, StopTracing). */
typedef struct gcev_ipc_reply {
    int ok;          /* 1: Server OK, `value` set; 0: Server Error, `hresult` set */
    uint64_t value;  /* session id */
    int32_t hresult; /* error replies */
} gcev_ipc_reply;

/*
 * Reads a reply: an OK header with a payload of at least 8 bytes (the u64), or
 * an Error header with at least 4 bytes (the HRESULT). GCEV_OK (either kind, see
 * r->ok); GCEV_E_FORMAT for any other header (not the Server command set, an
 * unknown id, a payload too short or not matching h->size - 20 == n).
 */
gcev_status gcev_ipc_parse_reply(const gcev_ipc_header *h, const uint8_t *payload, size_t n,
                                 gcev_ipc_reply *r, gcev_error *err);

/* ProcessInfo (version 1) / ProcessInfo2 (version 2) success payload, as views into it. */
typedef struct gcev_ipc_process_info {
    uint64_t process_id;
    uint8_t runtime_cookie[16];
    gcev_utf16 command_line, os, arch;
    gcev_utf16 entrypoint;      /* ProcessInfo2 only */
    gcev_utf16 runtime_version; /* ProcessInfo2 only: clrProductVersion */
} gcev_ipc_process_info;

/*
 * Parses a ProcessInfo payload (version 1: pid, cookie, command line, OS, arch;
 * version 2 adds the entry assembly and the runtime version). Strings must fit
 * the payload and end with a NUL unit. GCEV_OK, GCEV_E_TRUNCATED (payload ends
 * inside a field), GCEV_E_UNTERMINATED_STRING, GCEV_E_INVALID_ARG (version).
 */
gcev_status gcev_ipc_parse_process_info(const uint8_t *payload, size_t n, unsigned version,
                                        gcev_ipc_process_info *out, gcev_error *err);

/*
 * UTF-8 copy of a UTF-16LE view (malloc'ed, NUL-terminated; bad surrogates
 * become U+FFFD, an embedded NUL ends the text). NULL when out of memory.
 */
char *gcev_ipc_utf8_dup(gcev_utf16 s);

/* One provider of a CollectTracing request. */
typedef struct gcev_ipc_provider {
    const char *name; /* UTF-8, non-empty */
    uint64_t keywords;
    uint32_t level;
    const char *arguments; /* UTF-8 or NULL */
} gcev_ipc_provider;

typedef struct gcev_ipc_collect {
    uint32_t buffer_mb;       /* circular buffer size */
    uint32_t format;          /* 1 = NetTrace */
    uint64_t rundown_keyword; /* CollectTracing4+; 0 = no rundown */
    uint8_t request_rundown;  /* CollectTracing2/3 */
    uint8_t stackwalk;        /* CollectTracing3+ */
    uint32_t buffer_mode;     /* CollectTracing6: 0 drop, 1 block */
    const gcev_ipc_provider *providers;
    size_t nproviders;
} gcev_ipc_collect;

/*
 * Encodes CollectTracing<version> (2..6) with its header into buf[0..cap).
 * *len = message size. GCEV_OK; GCEV_E_INVALID_ARG (version, no provider, an
 * empty name, a string that is not UTF-8); GCEV_E_LIMIT (over 65535 bytes);
 * GCEV_E_NO_SPACE (cap too small).
 */
gcev_status gcev_ipc_encode_collect(unsigned version, const gcev_ipc_collect *c, uint8_t *buf, size_t cap,
                                    size_t *len);

/* Header + payload of n bytes (StopTracing: the u64 id; ProcessInfo2: none). Same statuses. */
gcev_status gcev_ipc_encode(uint8_t command_set, uint8_t command_id, const uint8_t *payload, size_t n,
                            uint8_t *buf, size_t cap, size_t *len);

#endif
