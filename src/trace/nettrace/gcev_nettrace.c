/* SPDX-License-Identifier: MIT */
/*
 * EventPipe containers: detection, stream headers, the Trace object and the
 * framing of the objects/blocks that follow it.
 *
 *   NetPerf V1/V2  FastSerialization; events inline in the Trace object, their
 *                  end found through the forward-reference table at the end of
 *                  the file (so these need random access: files or memory).
 *   NetPerf V3     FastSerialization objects: EventBlock (metadata inline).
 *   NetTrace V4/V5 "Nettrace" + FastSerialization objects: EventBlock,
 *                  MetadataBlock, StackBlock, SPBlock; V5 = V4 + metadata tags.
 *   NetTrace V6    "Nettrace" + versioned header, then kind-tagged blocks.
 *
 * FastSerialization blocks are "size, padding to a 4-byte file offset, body,
 * EndObject tag". Unknown object types and V6 block kinds are skipped.
 */
#include <gcev/gcev_trace.h>
#include "gcev_nettrace.h"
#include "gcev_nettrace_event.h"
#include "gcev_nettrace_meta.h"

#include "gcev_compiler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_NULL = 1, TAG_BEGIN = 4, TAG_BEGIN_PRIVATE = 5, TAG_END = 6, MAX_TYPE_NAME = 64 };

static const char fs_magic[] = "!FastSerialization.1";

int gcev_nettrace_detect(const uint8_t *head, size_t n)
{
    if (n >= 8 && memcmp(head, GCEV_NETTRACE_MAGIC, 8) == 0) {
        return 1;
    }
    return n >= 24 && gcev_rd_u32le(head) == 20 && memcmp(head + 4, fs_magic, 20) == 0;
}

/* SYSTEMTIME (UTC) -> FILETIME, 0 when the fields are not a date. */
static int64_t systemtime_to_filetime(const uint8_t *p)
{
    int y = (int16_t)gcev_rd_u16le(p), mo = gcev_rd_u16le(p + 2), d = gcev_rd_u16le(p + 6);
    int h = gcev_rd_u16le(p + 8), mi = gcev_rd_u16le(p + 10), s = gcev_rd_u16le(p + 12);
    int ms = gcev_rd_u16le(p + 14);
    if (y < 1601 || y > 30827 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59 ||
        ms > 999) {
        return 0;
    }
    /* Days since 1601-01-01 (proleptic Gregorian), civil-from-days style. */
    int yy = y - (mo <= 2);
    int64_t era = yy / 400;
    int64_t yoe = yy - era * 400;
    int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 584694; /* 1601-01-01 is day 584694 from 0000-03-01 */
    return (((days * 86400 + h * 3600 + mi * 60 + s) * 1000) + ms) * 10000;
}

static gcev_status take(gcev_trace *t, size_t n, const uint8_t **v, gcev_error *err)
{
    return gcev_source_take(&t->src, n, v, err);
}

static gcev_status expect_byte(gcev_trace *t, uint8_t want, const char *msg, gcev_error *err)
{
    const uint8_t *v;
    uint64_t at = gcev_source_pos(&t->src);
    gcev_status st = take(t, 1, &v, err);
    if (st != GCEV_OK) {
        return st;
    }
    return v[0] == want ? GCEV_OK : gcev_np_fail(err, GCEV_E_FORMAT, at, msg);
}

/* A FastSerialization object header: tags, type version, type name. */
static gcev_status read_type(gcev_trace *t, uint8_t begin, uint32_t *version, char *name, gcev_error *err)
{
    const uint8_t *v;
    uint64_t at = gcev_source_pos(&t->src);
    gcev_status st = take(t, 14, &v, err);
    if (st != GCEV_OK) {
        return st;
    }
    if (v[0] != begin || v[1] != TAG_NULL) {
        return gcev_np_fail(err, GCEV_E_FORMAT, at, "malformed object type header");
    }
    *version = gcev_rd_u32le(v + 2);
    uint32_t len = gcev_rd_u32le(v + 10);
    if (len > MAX_TYPE_NAME) {
        return gcev_np_fail(err, GCEV_E_FORMAT, at + 10, "object type name too long");
    }
    st = take(t, len, &v, err);
    if (st != GCEV_OK) {
        return st;
    }
    memcpy(name, v, len);
    name[len] = '\0';
    return expect_byte(t, TAG_END, "object type header does not end with EndObject", err);
}

static void set_clock(gcev_trace *t, const uint8_t *p)
{
    t->info.sync_time_utc = systemtime_to_filetime(p);
    t->info.sync_time_qpc = (int64_t)gcev_rd_u64le(p + 16);
    t->info.clock_frequency = gcev_rd_u64le(p + 24);
}

static gcev_status check_pointer_size(gcev_trace *t, uint32_t ps, uint64_t at, gcev_error *err)
{
    if (ps != 4 && ps != 8) {
        return gcev_np_fail(err, GCEV_E_FORMAT, at, "trace pointer size is neither 4 nor 8");
    }
    t->info.pointer_size = (uint8_t)ps;
    return GCEV_OK;
}

/* NetPerf V1/V2: the end of the inline events is a forward reference resolved
 * through the table the serializer appends to the file. */
static gcev_status resolve_forward_ref(gcev_trace *t, uint32_t index, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    const uint8_t *b = t->src.base;
    uint64_t n = t->src.size;
    if (!b || t->src.read || t->src.fd >= 0) {
        return gcev_np_fail(err, GCEV_E_UNSUPPORTED, 0,
                            "NetPerf V1/V2 needs random access: open it as a file or memory");
    }
    if (n < 4) {
        return gcev_np_fail(err, GCEV_E_TRUNCATED_FILE, n, "no forward-reference trailer");
    }
    uint32_t trailer = gcev_rd_u32le(b + n - 4);
    if (trailer > n - 4 || n - trailer < 4) {
        return gcev_np_fail(err, GCEV_E_FORMAT, n - 4, "bad forward-reference trailer");
    }
    uint32_t table = gcev_rd_u32le(b + trailer);
    if (table > n || n - table < 4) {
        return gcev_np_fail(err, GCEV_E_FORMAT, trailer, "bad forward-reference table offset");
    }
    uint32_t count = gcev_rd_u32le(b + table);
    if (index >= count || (n - table - 4) / 4 <= index) {
        return gcev_np_fail(err, GCEV_E_FORMAT, table, "forward reference not in the table");
    }
    uint32_t end = gcev_rd_u32le(b + table + 4 + (uint64_t)index * 4);
    if (end > n || end < gcev_source_pos(&t->src)) {
        return gcev_np_fail(err, GCEV_E_FORMAT, table, "forward reference outside the events");
    }
    np->events_end = end;
    return GCEV_OK;
}

static gcev_status open_fastser(gcev_trace *t, int nettrace, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    char name[MAX_TYPE_NAME + 1];
    uint32_t version;
    uint64_t at = gcev_source_pos(&t->src);
    gcev_status st = read_type(t, nettrace ? TAG_BEGIN_PRIVATE : TAG_BEGIN, &version, name, err);
    if (st != GCEV_OK) {
        return st;
    }
    if (nettrace) {
        if (strcmp(name, "Trace") != 0) {
            return gcev_np_fail(err, GCEV_E_FORMAT, at, "first object is not the Trace object");
        }
        if (version != 4) {
            return gcev_np_fail(
                err, GCEV_E_UNSUPPORTED, at,
                "unsupported NetTrace Trace object version: supported are 4 (V4/V5) and the V6 header");
        }
    } else if (strcmp(name, "Trace") == 0 && version == 3) {
        /* NetPerf V3 */
    } else if (strcmp(name, "Microsoft.DotNet.Runtime.EventPipeFile") == 0 &&
               (version == 1 || version == 2)) {
        /* NetPerf V1/V2 */
    } else if (strcmp(name, "Trace") == 0 || strcmp(name, "Microsoft.DotNet.Runtime.EventPipeFile") == 0) {
        return gcev_np_fail(err, GCEV_E_UNSUPPORTED, at,
                            "unsupported NetPerf version: supported are 1, 2 and 3");
    } else {
        return gcev_np_fail(err, GCEV_E_FORMAT, at, "first object is not the Trace object");
    }
    np->version = version;
    np->netperf = !nettrace;
    t->info.format = nettrace ? GCEV_FORMAT_NETTRACE : GCEV_FORMAT_NETPERF;
    t->info.format_version = version;
    const uint8_t *v;
    if (version <= 2) {
        st = take(t, 36, &v, err);
        if (st != GCEV_OK) {
            return st;
        }
        set_clock(t, v + 4);
        t->info.pointer_size = 8; /* V1/V2 existed only for Linux x64 */
        t->info.processor_count = 1;
        st = resolve_forward_ref(t, gcev_rd_u32le(v), err);
        if (st == GCEV_OK) {
            /* the inline events, read in place as one block (V1/V2 always come mapped) */
            np->blk = t->src.base;
            np->blk_len = (size_t)np->events_end;
            np->blk_pos = (size_t)gcev_source_pos(&t->src);
            np->blk_off = 0;
            np->blk_is_events = 1;
            np->lean_blk = 1;
        }
        return st;
    }
    uint64_t fields_at = gcev_source_pos(&t->src);
    st = take(t, 48, &v, err);
    if (st != GCEV_OK) {
        return st;
    }
    set_clock(t, v);
    st = check_pointer_size(t, gcev_rd_u32le(v + 32), fields_at + 32, err);
    if (st != GCEV_OK) {
        return st;
    }
    t->info.process_id = gcev_rd_u32le(v + 36);
    t->info.processor_count = gcev_rd_u32le(v + 40);
    return expect_byte(t, TAG_END, "Trace object does not end with EndObject", err);
}

/* V6 Trace block: clock, pointer size, then key/value pairs. */
static gcev_status open_v6_trace_block(gcev_trace *t, np_cur *c, uint64_t off, gcev_error *err)
{
    uint32_t ps, kvs;
    if (!np_has(c, 32)) {
        return gcev_np_fail(err, GCEV_E_FORMAT, off, "Trace block too small");
    }
    set_clock(t, c->p);
    c->pos = 32;
    if (!np_u32(c, &ps) || !np_u32(c, &kvs)) {
        return gcev_np_fail(err, GCEV_E_FORMAT, off + c->pos, "Trace block too small");
    }
    gcev_status st = check_pointer_size(t, ps, off + 32, err);
    if (st != GCEV_OK) {
        return st;
    }
    for (uint32_t i = 0; i < kvs; i++) {
        uint32_t kl, vl;
        if (!np_varu32(c, &kl) || !np_has(c, kl)) {
            return gcev_np_fail(err, GCEV_E_FORMAT, off + c->pos, "malformed Trace block key");
        }
        const char *k = (const char *)c->p + c->pos;
        c->pos += kl;
        if (!np_varu32(c, &vl) || !np_has(c, vl)) {
            return gcev_np_fail(err, GCEV_E_FORMAT, off + c->pos, "malformed Trace block value");
        }
        const uint8_t *val = c->p + c->pos;
        c->pos += vl;
        uint64_t num = 0;
        int isnum = vl > 0 && vl <= 10;
        for (uint32_t j = 0; isnum && j < vl; j++) {
            isnum = val[j] >= '0' && val[j] <= '9';
            num = num * 10 + (uint64_t)(val[j] - '0');
        }
        if (!isnum || num > UINT32_MAX) {
            continue;
        }
        if (kl == 9 && memcmp(k, "ProcessId", 9) == 0) {
            t->info.process_id = (uint32_t)num;
        } else if (kl == 19 && memcmp(k, "HardwareThreadCount", 19) == 0) {
            t->info.processor_count = (uint32_t)num;
        }
    }
    return GCEV_OK;
}

static gcev_status open_v6(gcev_trace *t, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    const uint8_t *v;
    uint64_t at = gcev_source_pos(&t->src);
    gcev_status st = take(t, 8, &v, err);
    if (st != GCEV_OK) {
        return st;
    }
    uint32_t major = gcev_rd_u32le(v);
    if (major != 6) {
        return gcev_np_fail(err, GCEV_E_UNSUPPORTED, at,
                            "unsupported NetTrace major version: supported are 4, 5 and 6");
    }
    np->version = 6;
    t->info.format = GCEV_FORMAT_NETTRACE;
    t->info.format_version = 6;
    at = gcev_source_pos(&t->src);
    st = take(t, 4, &v, err);
    if (st != GCEV_OK) {
        return st;
    }
    uint32_t hdr = gcev_rd_u32le(v);
    if ((hdr >> 24) != 1) {
        return gcev_np_fail(err, GCEV_E_FORMAT, at, "first block is not the Trace block");
    }
    size_t size = hdr & 0xffffffu;
    uint64_t body = gcev_source_pos(&t->src);
    st = take(t, size, &v, err);
    if (st != GCEV_OK) {
        return st;
    }
    np_cur c = {v, size, 0};
    return open_v6_trace_block(t, &c, body, err);
}

/* Starts iterating an EventBlock / MetadataBlock body (V3: no header). */
static gcev_status start_event_block(gcev_trace *t, const uint8_t *v, size_t n, uint64_t off, int kind,
                                     gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    size_t skip = 0;
    np->compressed = 0;
    np->blk_min_ts = INT64_MIN;
    np->blk_max_ts = INT64_MAX;
    if (np->version >= 4) {
        if (n < 4) {
            return gcev_np_fail(err, GCEV_E_FORMAT, off, "event block header too small");
        }
        uint16_t hsize = gcev_rd_u16le(v), flags = gcev_rd_u16le(v + 2);
        if (hsize < 4 || hsize > n) {
            return gcev_np_fail(err, GCEV_E_FORMAT, off, "bad event block header size");
        }
        skip = hsize;
        np->compressed = flags & 1;
        if (hsize >= 20 && kind == 1) {
            np->blk_min_ts = (int64_t)gcev_rd_u64le(v + 4);
            np->blk_max_ts = (int64_t)gcev_rd_u64le(v + 12);
        }
    }
    memset(&np->prev, 0, sizeof np->prev); /* delta state restarts with every block */
    np->cur_meta = NULL;
    np->blk_rest_ok = 0;
    np->blk = v;
    np->blk_len = n;
    np->blk_pos = skip;
    np->blk_off = off;
    np->blk_is_events = kind;
    np->lean_blk = kind == 1 && np->version < 6;
    return GCEV_OK;
}

static int match_object(void *ctx, const uint8_t *p, size_t n, uint64_t off);
static int match_block_v6(void *ctx, const uint8_t *p, size_t n, uint64_t off);
static int v6_header_ok(uint32_t h, uint64_t at, uint64_t size_known, size_t max);

static int rescan_charge(gcev_trace *t, uint64_t n);

enum { V6_CHAIN = 4 }; /* block headers that must follow each other to prove a boundary */

/* V6, random access: whether a block header at off starts a chain of V6_CHAIN plausible
 * headers each where its predecessor's size says, or ending with the EndOfStream block as
 * the input's last bytes. One plausible header is weak evidence inside event data (a kind
 * byte of 2-8 and a size that fits); four in a row are not found by chance. */
static int v6_chain_ok(const gcev_trace *t, uint64_t off)
{
    const uint64_t end = t->src.size;
    for (unsigned i = 0; i < V6_CHAIN; i++) {
        if (off > end || end - off < 4) { /* off may pass the end after a size step */
            return 0;
        }
        uint32_t h = gcev_rd_u32le(t->src.base + off);
        if (h == 0) {
            return off + 4 == end;
        }
        if (!match_block_v6((void *)t, t->src.base + off, (size_t)(end - off), off)) {
            return 0;
        }
        off += 4 + (uint64_t)(h & 0xffffffu);
    }
    return 1;
}

/*
 * Keep-going, random access: a block whose recorded end is not confirmed (V3-V5: no EndObject
 * tag there; V6: no block header chain there). Plain mode reads such a block to its recorded
 * end and fails somewhere past its real end; keep-going looks inside the recorded extent for
 * where the block really ends: the first offset that the next object (V3-V5: EndObject tag,
 * then an object header with its own EndObject where its size says) or block chain (V6)
 * proves. Returns the length of the body up to there, or UINT64_MAX when none is found (the
 * size may be too small: the block is then read as recorded and a fault in it is scanned past
 * from the fault). Work: O(recorded size), only for a damaged block.
 */
static uint64_t find_block_end(gcev_trace *t, uint64_t body, uint64_t size)
{
    gcev_nettrace *np = t->impl;
    const uint64_t total = t->src.size;
    uint64_t lim = body + size;
    if (lim > total) {
        lim = total;
    }
    if (!rescan_charge(t, lim - body)) {
        return UINT64_MAX;
    }
    for (uint64_t q = body; q < lim; q++) {
        if (np->version <= 5) {
            if (t->src.base[q] == TAG_END && q + 1 < total &&
                match_object(t, t->src.base + q + 1, (size_t)(total - q - 1), q + 1)) {
                return q - body;
            }
        } else if (q > body && v6_chain_ok(t, q)) {
            return q - body;
        }
    }
    return UINT64_MAX;
}

/* Keep-going looks at some bytes twice (a damaged block's extent for its real end, the bytes
 * after a fault in it): at most twice the input's size plus 1 MiB in all, so that the work
 * stays linear whatever the input holds; past that it skips as before. 1 when n more may be
 * looked at again (and charges them). */
static int rescan_charge(gcev_trace *t, uint64_t n)
{
    gcev_nettrace *np = t->impl;
    uint64_t budget = 2 * t->src.size + (1u << 20);
    if (np->rescanned > budget || budget - np->rescanned < n) {
        return 0;
    }
    np->rescanned += n;
    return 1;
}

/* Records a block whose size was wrong and read to the end found inside it: no byte is
 * skipped, but the damage is reported as a range of 0 bytes at the size field. */
static void note_resized(gcev_trace *t, uint64_t size_at, uint64_t recorded, uint64_t real)
{
    snprintf(t->msg, sizeof t->msg,
             "block's size (%llu bytes) does not lead to the next block: read to where the next "
             "block starts (%llu bytes)",
             (unsigned long long)recorded, (unsigned long long)real);
    gcev_error fault = {GCEV_E_FORMAT, size_at, NULL, t->msg};
    gcev_trace_note_repair(t, size_at, &fault);
}

/* The next FastSerialization object (V3-V5). GCEV_END after the NullReference tag. */
static gcev_status next_object(gcev_trace *t, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    const uint8_t *v;
    uint64_t at = gcev_source_pos(&t->src);
    np->obj_start = at;
    np->has_len = np->has_body = 0;
    np->blk_unconfirmed = 0;
    gcev_status st = take(t, 1, &v, err);
    if (st == GCEV_E_TRUNCATED_FILE) {
        return gcev_np_fail(err, GCEV_E_TRUNCATED_FILE, at, "trace ends without its end tag");
    }
    if (st != GCEV_OK) {
        return st;
    }
    if (v[0] == TAG_NULL) {
        if (t->src.size && at + 1 < t->src.size) {
            /* the last byte: bytes after it would be events the reader never returns */
            return gcev_np_fail(err, GCEV_E_FORMAT, at, "trace's end tag before the end of the input");
        }
        np->done = 1;
        return GCEV_END;
    }
    uint8_t begin = np->netperf ? TAG_BEGIN : TAG_BEGIN_PRIVATE;
    if (v[0] != begin) {
        return gcev_np_fail(err, GCEV_E_FORMAT, at, "expected an object or the end tag");
    }
    char name[MAX_TYPE_NAME + 1];
    uint32_t version;
    st = read_type(t, begin, &version, name, err);
    if (st != GCEV_OK) {
        return st;
    }
    uint64_t size_at = gcev_source_pos(&t->src);
    st = take(t, 4, &v, err);
    if (st != GCEV_OK) {
        return st;
    }
    uint32_t size = gcev_rd_u32le(v);
    uint64_t pad = (4 - (gcev_source_pos(&t->src) & 3)) & 3;
    st = gcev_source_skip(&t->src, pad, err);
    if (st != GCEV_OK) {
        return st;
    }
    uint64_t body = gcev_source_pos(&t->src);
    np->body_start = body;
    np->body_len = size;
    np->has_len = 1;
    if (size > t->src.max_take) {
        return gcev_np_fail(err, GCEV_E_LIMIT, size_at, "block larger than the block-size limit");
    }
    if (t->opts.keep_going && gcev_source_random(&t->src) &&
        (body + size >= t->src.size || t->src.base[body + size] != TAG_END)) {
        /* keep-going trusts a recorded end only when its EndObject tag is there */
        uint64_t real = find_block_end(t, body, size);
        if (real != UINT64_MAX) {
            note_resized(t, size_at, size, real);
            size = (uint32_t)real;
            np->body_len = size;
        } else {
            np->blk_unconfirmed = 1;
        }
    }
    st = take(t, size, &v, err);
    if (st != GCEV_OK) {
        return st;
    }
    np->has_body = 1;
    np_cur c = {v, size, 0};
    if (strcmp(name, "EventBlock") == 0) {
        st = start_event_block(t, v, size, body, 1, err);
    } else if (strcmp(name, "MetadataBlock") == 0 && np->version >= 4) {
        st = start_event_block(t, v, size, body, 2, err);
    } else if (strcmp(name, "StackBlock") == 0 && np->version >= 4) {
        st = gcev_np_stack_block(t, &c, body, err);
    } else if (strcmp(name, "SPBlock") == 0 && np->version >= 4) {
        st = gcev_np_sequence_point(t, &c, body, err);
    } /* else: an object type this reader does not know; its body is skipped */
    np->need_end_tag = 1;
    if (st == GCEV_OK && !np->blk) {
        np->need_end_tag = 0;
        st = expect_byte(t, TAG_END, "block does not end with EndObject", err);
    }
    return st;
}

/* The next V6 block. GCEV_END after the EndOfStream block. */
static gcev_status next_block_v6(gcev_trace *t, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    const uint8_t *v;
    uint64_t at = gcev_source_pos(&t->src);
    np->obj_start = at;
    np->has_len = np->has_body = 0;
    np->blk_unconfirmed = 0;
    gcev_status st = take(t, 4, &v, err);
    if (st != GCEV_OK) {
        return gcev_np_fail(err, GCEV_E_TRUNCATED_FILE, at, "trace ends without its EndOfStream block");
    }
    uint32_t hdr = gcev_rd_u32le(v);
    uint32_t kind = hdr >> 24;
    size_t size = hdr & 0xffffffu;
    uint64_t body = gcev_source_pos(&t->src);
    np->obj_start = at;
    np->body_start = body;
    np->body_len = size;
    np->has_len = 1;
    np->has_body = 0;
    if (size > t->src.max_take) {
        return gcev_np_fail(err, GCEV_E_LIMIT, at, "block larger than the block-size limit");
    }
    if (kind == 0) {
        /* the last block: bytes after it would be events the reader never returns */
        if (t->src.size && body < t->src.size) {
            return gcev_np_fail(err, GCEV_E_FORMAT, at, "EndOfStream block before the end of the input");
        }
        np->done = 1;
        return GCEV_END;
    }
    if (t->opts.keep_going && gcev_source_random(&t->src) && kind >= 2 && kind <= 8 &&
        (body + size + 4 > t->src.size || !v6_chain_ok(t, body + size))) {
        /* keep-going trusts a recorded end only when a chain of block headers starts there */
        uint64_t real = find_block_end(t, body, size);
        if (real != UINT64_MAX) {
            note_resized(t, at, size, real);
            size = (size_t)real;
            np->body_len = size;
        } else {
            np->blk_unconfirmed = 1;
        }
    }
    st = take(t, size, &v, err);
    if (st != GCEV_OK) {
        return st;
    }
    np->has_body = 1;
    np_cur c = {v, size, 0};
    switch (kind) {
    case 0:
        np->done = 1;
        return GCEV_END;
    case 2:
        return start_event_block(t, v, size, body, 1, err);
    case 3:
        return gcev_np_meta_block_v6(t, &c, body, err);
    case 4:
        return gcev_np_sequence_point(t, &c, body, err);
    case 5:
        return gcev_np_stack_block(t, &c, body, err);
    case 6:
        return gcev_np_thread_block(t, &c, body, err);
    case 7:
        return gcev_np_remove_thread_block(t, &c, body, err);
    case 8:
        return gcev_np_label_block(t, &c, body, err);
    default:
        return GCEV_OK; /* unknown or repeated block kinds are skipped by rule */
    }
}

static GCEV_NOINLINE gcev_status nettrace_next_blocks(gcev_trace *t, gcev_trace_event *ev, gcev_error *err);

static gcev_status nettrace_next(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    const gcev_nettrace *np = t->impl;
    /* The common case: a V4-V6 event block holds only events, so bytes left in it are an
     * event (or a format error), never the end; with a filter, the events it skips may be
     * all that is left, and the block ends (the next one is read below). */
    if (np->blk && np->blk_is_events == 1 && np->version >= 4 && np->blk_pos < np->blk_len) {
        gcev_status st = gcev_np_block_next(t, ev, err);
        if (st != GCEV_END) {
            return st;
        }
    }
    /* a NetPerf V3 block (V1/V2: the inline stream) may end with metadata records */
    if (np->blk && np->version <= 3 && np->blk_pos < np->blk_len) {
        gcev_status st = gcev_np_block_next(t, ev, err);
        if (st != GCEV_END) {
            return st;
        }
    }
    return nettrace_next_blocks(t, ev, err);
}

/* Everything else: NetPerf V1/V2, V3 blocks (metadata inline), the end of a block. */
static GCEV_NOINLINE gcev_status nettrace_next_blocks(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    if (np->version <= 2) {
        if (np->done) {
            return GCEV_END;
        }
        gcev_status st = gcev_np_block_next(t, ev, err);
        if (st == GCEV_END) {
            np->done = 1;
            t->src.pos = np->events_end; /* where the trace's end is reported */
        }
        return st;
    }
    for (;;) {
        if (np->blk) {
            gcev_status st = gcev_np_block_next(t, ev, err);
            if (st != GCEV_END) {
                return st;
            }
            np->blk = NULL;
            if (np->need_end_tag) {
                np->need_end_tag = 0;
                st = expect_byte(t, TAG_END, "block does not end with EndObject", err);
                if (st != GCEV_OK) {
                    return st;
                }
            }
        }
        if (np->done) {
            return GCEV_END;
        }
        gcev_status st = np->version >= 6 ? next_block_v6(t, err) : next_object(t, err);
        if (st != GCEV_OK) {
            return st;
        }
        if (np->seg_end) {
            return GCEV_END; /* ordered mode: a sequence point ended the segment (nettrace_next_ordered) */
        }
    }
}

/* ---- timestamp order without copies (np_order in gcev_nettrace_state.h) ---- */

/* The merge key of a heap element: (timestamp, file offset of the record). */
static void source_key(const np_order *o, uint32_t src, int64_t *ts, uint64_t *pos)
{
    if (src == NP_ENTRIES) {
        *ts = o->entries[o->next_entry].ts;
        *pos = o->entries[o->next_entry].pos;
    } else {
        *ts = o->runs[src].ts;
        *pos = o->runs[src].blk_off + o->runs[src].cur;
    }
}

static int source_less(const np_order *o, uint32_t a, uint32_t b)
{
    int64_t ta, tb;
    uint64_t pa, pb;
    source_key(o, a, &ta, &pa);
    source_key(o, b, &tb, &pb);
    return ta != tb ? ta < tb : pa < pb;
}

static void order_heap_down(np_order *o, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < o->nheap && source_less(o, o->heap[l], o->heap[m])) {
            m = l;
        }
        if (l + 1 < o->nheap && source_less(o, o->heap[l + 1], o->heap[m])) {
            m = l + 1;
        }
        if (m == i) {
            return;
        }
        uint32_t x = o->heap[i];
        o->heap[i] = o->heap[m];
        o->heap[m] = x;
        i = m;
    }
}

static int entry_less(const np_entry *a, const np_entry *b)
{
    return a->ts != b->ts ? a->ts < b->ts : a->pos < b->pos;
}

/* Sorts the entries in place by (timestamp, file offset): a heapsort, no extra memory,
 * with a check first, since a segment is often sorted already. */
static void entries_sort(np_entry *e, size_t n)
{
    size_t k = 1;
    while (k < n && !entry_less(&e[k], &e[k - 1])) {
        k++;
    }
    if (k >= n) {
        return;
    }
    for (size_t start = n / 2; start-- > 0;) {
        for (size_t i = start;;) {
            size_t l = 2 * i + 1, m = i;
            if (l < n && entry_less(&e[m], &e[l])) {
                m = l;
            }
            if (l + 1 < n && entry_less(&e[m], &e[l + 1])) {
                m = l + 1;
            }
            if (m == i) {
                break;
            }
            np_entry x = e[i];
            e[i] = e[m];
            e[m] = x;
            i = m;
        }
    }
    for (size_t end = n; end-- > 1;) {
        np_entry x = e[0];
        e[0] = e[end];
        e[end] = x;
        for (size_t i = 0;;) {
            size_t l = 2 * i + 1, m = i;
            if (l < end && entry_less(&e[m], &e[l])) {
                m = l;
            }
            if (l + 1 < end && entry_less(&e[m], &e[l + 1])) {
                m = l + 1;
            }
            if (m == i) {
                break;
            }
            np_entry y = e[i];
            e[i] = e[m];
            e[m] = y;
            i = m;
        }
    }
}

/*
 * Reads one segment (the events up to the next sequence point, or to the end) in
 * file order, keeping only its entries and runs: the reader's side tables
 * (metadata, stacks) stay as the segment left them, since the sequence point's
 * clearing waits until the segment has been merged.
 */
static const gcev_trace_ops nettrace_ops;

static void read_segment(gcev_trace *t)
{
    gcev_nettrace *np = t->impl;
    np_order *o = &np->ord;
    o->nruns = 0;
    o->nentries = 0;
    o->next_entry = 0;
    for (;;) {
        gcev_trace_event tmp;
        gcev_error e;
        e.message = NULL;
        gcev_status st = nettrace_next(t, &tmp, &e);
        if (st != GCEV_OK && st != GCEV_END && t->opts.keep_going) {
            /* keep-going: the segment goes on after the damage (the range is the trace's) */
            st = gcev_trace_resume(t, st, &e, &tmp, &nettrace_ops);
        }
        if (st == GCEV_OK) {
            if (t->skips_untimed < t->nskips) {
                gcev_trace_skips_reached(t, tmp.timestamp); /* the first event after a skipped range */
            }
            int ok = gcev_np_order_note(t, &tmp, (size_t)(tmp.file_offset - np->blk_off), np->blk_pos,
                                        np->blk, np->blk_len, np->blk_off, np->compressed);
            if (!ok) {
                o->final = gcev_np_fail(&o->final_err, GCEV_E_NOMEM, tmp.file_offset, "out of memory");
                return;
            }
            continue;
        }
        if (st == GCEV_END && np->seg_end) {
            np->seg_end = 0;
            return;
        }
        o->final = st; /* the end, or a fault: reported once what was read is merged */
        o->final_err = e;
        return;
    }
}

static gcev_status nettrace_next_ordered(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    np_order *o = &np->ord;
    for (;;) {
        if (o->nheap) {
            const uint32_t src = o->heap[0];
            int more;
            gcev_status st;
            if (src == NP_ENTRIES) {
                st = gcev_np_entry_take(t, &o->entries[o->next_entry], ev, err);
                more = ++o->next_entry < o->nentries;
            } else {
                st = gcev_np_run_take(t, &o->runs[src], ev, &more, err);
            }
            if (st != GCEV_OK) {
                return st;
            }
            if (!more) {
                o->heap[0] = o->heap[--o->nheap];
            }
            order_heap_down(o, 0);
            return GCEV_OK;
        }
        if (o->final != GCEV_OK) {
            if (err) {
                *err = o->final_err;
            }
            return o->final;
        }
        if (o->deferred_sp) {
            gcev_np_sequence_point_clear(np, o->deferred_flags);
            o->deferred_sp = 0;
        }
        read_segment(t);
        entries_sort(o->entries, o->nentries);
        if (!gcev_reserve((void **)&o->heap, &o->cap_heap, o->nruns + 1, sizeof *o->heap)) {
            return gcev_np_fail(err, GCEV_E_NOMEM, gcev_source_pos(&t->src), "out of memory");
        }
        o->nheap = 0;
        for (size_t i = 0; i < o->nruns; i++) {
            o->heap[o->nheap++] = (uint32_t)i;
        }
        if (o->nentries) {
            o->heap[o->nheap++] = NP_ENTRIES;
        }
        for (size_t i = o->nheap / 2; i-- > 0;) {
            order_heap_down(o, i);
        }
    }
}

static void nettrace_destroy(gcev_trace *t)
{
    gcev_nettrace *np = t->impl;
    if (np) {
        gcev_np_meta_free_all(np);
        gcev_np_event_free_all(np);
        free(np->ord.runs);
        free(np->ord.heap);
        free(np->ord.entries);
        free(np);
        t->impl = NULL;
    }
}

/* ---- keep-going (gcev_trace_options.keep_going) ---- */

enum { SCAN_NEED = 96 }; /* an object header with the longest type name, its size and padding */

static const char *const block_names[] = {"EventBlock", "MetadataBlock", "StackBlock", "SPBlock"};

/* V3-V5: whether p (n bytes at offset off) starts an object header of a known block type whose
 * size fits the limit and, with random access, whose EndObject tag is where its size says; or
 * the stream's end tag as the input's last byte. */
static int match_object(void *ctx, const uint8_t *p, size_t n, uint64_t off)
{
    const gcev_trace *t = ctx;
    const gcev_nettrace *np = t->impl;
    const uint8_t begin = np->netperf ? TAG_BEGIN : TAG_BEGIN_PRIVATE;
    const int random = gcev_source_random(&t->src);
    if (p[0] == TAG_NULL) {
        return random && off + 1 == t->src.size;
    }
    if (n < 15 || p[0] != begin || p[1] != begin || p[2] != TAG_NULL) {
        return 0;
    }
    uint32_t len = gcev_rd_u32le(p + 11);
    if (len == 0 || len > MAX_TYPE_NAME || n < 20 + (size_t)len || p[15 + len] != TAG_END) {
        return 0;
    }
    int known = 0;
    for (size_t i = 0; i < sizeof block_names / sizeof block_names[0]; i++) {
        known |= strlen(block_names[i]) == len && memcmp(p + 15, block_names[i], len) == 0;
    }
    uint32_t size = gcev_rd_u32le(p + 16 + len);
    if (!known || size > t->src.max_take) {
        return 0;
    }
    if (random) {
        uint64_t body = off + 20 + len;
        body += (4 - (body & 3)) & 3;
        return body + size < t->src.size && t->src.base[body + size] == TAG_END;
    }
    return 1;
}

/* V6: a block header of kinds 2-8 within the limit whose successor is a block header too, or
 * the EndOfStream block as the input's last bytes. */
static int v6_header_ok(uint32_t h, uint64_t at, uint64_t size_known, size_t max)
{
    uint32_t kind = h >> 24, size = h & 0xffffffu;
    if (kind == 0) {
        return size == 0;
    }
    return kind >= 2 && kind <= 8 && size <= max && (!size_known || at + 4 + size <= size_known);
}

static int match_block_v6(void *ctx, const uint8_t *p, size_t n, uint64_t off)
{
    const gcev_trace *t = ctx;
    const int random = gcev_source_random(&t->src);
    if (n < 4) {
        return 0;
    }
    uint32_t h = gcev_rd_u32le(p), size = h & 0xffffffu;
    if (h == 0) {
        return random && off + 4 == t->src.size;
    }
    if (!v6_header_ok(h, off, random ? t->src.size : 0, t->src.max_take)) {
        return 0;
    }
    if ((h >> 24) == 2 && (size < 4 || n < 8 || gcev_rd_u16le(p + 4) < 4 || gcev_rd_u16le(p + 4) > size ||
                           gcev_rd_u16le(p + 6) > 1)) {
        return 0; /* an event block opens with its header: size, flags (1: compressed) */
    }
    uint64_t next = off + 4 + size;
    if (random) {
        /* the successor may be cut short by the end of the input: that is its fault */
        return next + 4 <= t->src.size &&
               v6_header_ok(gcev_rd_u32le(t->src.base + next), next, 0, t->src.max_take);
    }
    return 4 + (uint64_t)size + 4 > n || v6_header_ok(gcev_rd_u32le(p + 4 + size), next, 0, t->src.max_take);
}

/* After a block body skipped whole (V3-V5): its EndObject tag, taken; 0 when it is not there. */
static int take_end_tag(gcev_trace *t)
{
    const uint8_t *v;
    size_t got;
    gcev_error e;
    if (gcev_source_peek(&t->src, 1, &v, &got, &e) != GCEV_OK || got < 1 || v[0] != TAG_END) {
        return 0;
    }
    return gcev_source_skip(&t->src, 1, &e) == GCEV_OK;
}

static gcev_status nettrace_resync(gcev_trace *t, const gcev_error *fault, uint64_t *from, uint64_t *to,
                                   gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    const uint64_t f = fault->offset;
    const int tagged = np->version <= 5;
    if (np->version <= 2) {
        /* NetPerf V1/V2 events are not in blocks: after the record when its extent was read,
         * else the rest of them */
        *from = f < np->events_end ? f : np->events_end;
        if (np->blk && np->blk_pos > f && np->blk_pos < np->blk_len && gcev_np_block_rest_valid(np)) {
            return (*to = np->blk_pos), GCEV_OK;
        }
        *to = np->events_end;
        np->done = 1;
        t->src.pos = np->events_end;
        return GCEV_END;
    }
    *from = f;
    if (np->blk) {
        uint64_t cur = np->blk_off + np->blk_pos;
        if (cur > f && (np->blk_rest_ok || gcev_np_block_rest_valid(np))) {
            /* the record's extent was read and the rest of the block reads as valid events:
             * go on after the record (an event of unknown metadata, or a damaged field) */
            np->blk_rest_ok = 1;
            return (*to = cur), GCEV_OK;
        }
        np->blk = NULL; /* the rest of the block */
        np->need_end_tag = 0;
        if (np->blk_unconfirmed) {
            /* its recorded end is not where it ends: look for the next block from the fault */
            if (gcev_source_random(&t->src) && f + 1 < gcev_source_pos(&t->src) &&
                rescan_charge(t, gcev_source_pos(&t->src) - f)) {
                gcev_status st = gcev_source_seek(&t->src, f + 1, err);
                if (st != GCEV_OK) {
                    return st;
                }
            }
        } else if (!tagged) {
            return (*to = gcev_source_pos(&t->src)), GCEV_OK;
        } else if (take_end_tag(t)) {
            return (*to = gcev_source_pos(&t->src)), GCEV_OK;
        }
    } else if (np->blk_unconfirmed && np->has_body && f >= np->body_start &&
               f < np->body_start + np->body_len) {
        /* inside a side block whose recorded end is not confirmed: from the fault */
        np->need_end_tag = 0;
        if (gcev_source_random(&t->src) && f + 1 < gcev_source_pos(&t->src) &&
            rescan_charge(t, gcev_source_pos(&t->src) - f)) {
            gcev_status st = gcev_source_seek(&t->src, f + 1, err);
            if (st != GCEV_OK) {
                return st;
            }
        }
    } else if (np->has_body && f >= np->body_start && f < np->body_start + np->body_len) {
        /* inside a side block's body (stacks, sequence point, threads, labels, metadata) */
        np->need_end_tag = 0;
        if (!tagged || take_end_tag(t)) {
            return (*to = gcev_source_pos(&t->src)), GCEV_OK;
        }
    } else if (np->has_body && f == np->body_start + np->body_len) {
        np->need_end_tag = 0; /* no EndObject tag after a body that was read: its size is wrong */
    } else {
        /* the object's header or its size: from where it starts */
        *from = np->obj_start;
        np->need_end_tag = 0;
        uint64_t end = np->body_start + np->body_len;
        if (np->has_len && gcev_source_random(&t->src) && end < t->src.size &&
            (tagged ? t->src.base[end] == TAG_END
                    : match_block_v6(t, t->src.base + end, t->src.size - end, end))) {
            /* its recorded end is plausible (a block past the size limit): go on after it */
            gcev_status st = gcev_source_seek(&t->src, end + tagged, err);
            return st == GCEV_OK ? (*to = end + tagged), GCEV_OK : st;
        }
        if (gcev_source_random(&t->src) && gcev_source_pos(&t->src) > np->obj_start + 1) {
            /* look inside what the damaged header covered (its size may be what is wrong) */
            gcev_status st = gcev_source_seek(&t->src, np->obj_start + 1, err);
            if (st != GCEV_OK) {
                return st;
            }
        }
    }
    gcev_status st = gcev_source_scan(&t->src, SCAN_NEED, tagged ? match_object : match_block_v6, t, err);
    *to = gcev_source_pos(&t->src);
    if (st == GCEV_END) {
        np->done = 1;
    }
    return st;
}

/* NetTrace V4+ marks the oldest event of each thread per flush (gcev_reorder.h); NetPerf,
 * fully sorted by its writer but unmarked, is ordered as by GCEV_TRACE_ORDER_TIME. */
static int nettrace_sorted_before(const gcev_trace *t, int64_t *ts)
{
    const gcev_nettrace *np = t->impl;
    if (np->version < 4) {
        return 0;
    }
    *ts = np->has_sorted ? np->sorted_ts : INT64_MIN;
    return 1;
}

/* gcev_trace_next_lean: V4/V5 event blocks, NetPerf V3 blocks and the V1/V2 inline stream
 * lean, the rest (block changes, V6, metadata, and the records the uncompressed headers' batch
 * leaves: faults, sequence gaps) through nettrace_next into the full record. */
static gcev_status nettrace_next_lean(gcev_trace *t, gcev_trace_lean *lean, gcev_trace_event *full,
                                      int *full_filled, gcev_error *err)
{
    const gcev_nettrace *np = t->impl;
    if (np->lean_blk && np->blk && np->blk_pos < np->blk_len && !np->done) {
        gcev_status st = gcev_np_block_next_lean(t, lean, err);
        if (st != GCEV_END) {
            return st;
        }
    }
    *full_filled = 1;
    return nettrace_next(t, full, err);
}

static gcev_status nettrace_next_lean_batch(gcev_trace *t, gcev_trace_lean *evs, size_t cap, size_t *k,
                                            gcev_error *err)
{
    const gcev_nettrace *np = t->impl;
    *k = 0;
    if (np->lean_blk && np->blk && np->blk_pos < np->blk_len && !np->done) {
        return gcev_np_block_lean_batch(t, evs, cap, k, err);
    }
    return GCEV_END;
}

/* A kind is the metadata record: its image holds what the record says. */
static const gcev_trace_event *nettrace_kind_record(const gcev_trace *t, const void *kind)
{
    (void)t;
    return &((const np_meta *)kind)->image;
}

static const gcev_trace_ops nettrace_ops = {
    nettrace_next,      nettrace_destroy,  nettrace_resync,          nettrace_sorted_before,
    nettrace_next_lean, gcev_np_lean_fill, nettrace_next_lean_batch, nettrace_kind_record};
/* keep-going in this mode resynchronises inside read_segment (file order), not through trace/api */
static const gcev_trace_ops nettrace_ordered_ops = {
    nettrace_next_ordered, nettrace_destroy, NULL, NULL, NULL, NULL, NULL, nettrace_kind_record};

/*
 * Timestamp order without copies where the runs' records can be read again from
 * the input: V1-V5 from a file or memory. V6 (whose thread rows and label lists
 * may change inside a segment) and streams use the shared reordering buffer.
 */
static void maybe_order_by_runs(gcev_trace *t)
{
    gcev_nettrace *np = t->impl;
    if (t->opts.order == GCEV_TRACE_ORDER_TIME && np->version <= 5 && t->src.base && !t->src.read &&
        t->src.fd < 0) {
        np->ordered = 1;
        np->ord.final = GCEV_OK;
        t->time_ordered = 1;
        t->ops = &nettrace_ordered_ops;
    }
}

gcev_status gcev_nettrace_open(gcev_trace *t, gcev_error *err)
{
    gcev_nettrace *np = calloc(1, sizeof *np);
    if (!np) {
        return gcev_np_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    t->impl = np;
    t->ops = &nettrace_ops;
    np->no_stacks = t->opts.no_stacks != 0;
    np->last_seq_index = UINT32_MAX;
    np->blk_min_ts = INT64_MIN;
    np->blk_max_ts = INT64_MAX;
    t->provider_resolved = 1; /* per metadata record, in meta_resolve_provider */
    t->fills_event = 1;       /* fill_event() writes every member */
    t->finishes_event = 1;    /* ms too */
    const uint8_t *v;
    gcev_status st;
    int nettrace = 0;
    size_t got;
    st = gcev_source_peek(&t->src, 8, &v, &got, err);
    if (st != GCEV_OK) {
        return st;
    }
    if (got == 8 && memcmp(v, "Nettrace", 8) == 0) {
        nettrace = 1;
        st = take(t, 8, &v, err);
        if (st != GCEV_OK) {
            return st;
        }
    }
    uint64_t at = gcev_source_pos(&t->src);
    st = take(t, 4, &v, err);
    if (st != GCEV_OK) {
        return st;
    }
    uint32_t len = gcev_rd_u32le(v);
    if (nettrace && len == 0) {
        return open_v6(t, err); /* V6: a zero "Reserved" field replaces the FastSerialization header */
    }
    if (len != 20) {
        return gcev_np_fail(err, GCEV_E_UNSUPPORTED, at,
                            "unknown stream header: supported are NetPerf V1-V3 and NetTrace V4-V6");
    }
    st = take(t, 20, &v, err);
    if (st != GCEV_OK) {
        return st;
    }
    if (memcmp(v, fs_magic, 20) != 0) {
        return gcev_np_fail(err, GCEV_E_UNSUPPORTED, at + 4, "unknown serialization header");
    }
    st = expect_byte(t, nettrace ? TAG_BEGIN_PRIVATE : TAG_BEGIN, "expected the Trace object", err);
    if (st != GCEV_OK) {
        return st;
    }
    st = open_fastser(t, nettrace, err);
    if (st == GCEV_OK) {
        maybe_order_by_runs(t);
    }
    return st;
}
