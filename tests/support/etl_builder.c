/* SPDX-License-Identifier: MIT */
/* Synthetic .etl writer for tests (see etl_builder.h). */
#include "etl_builder.h"
#include "xpress_writer.h"

#include <stdlib.h>
#include <string.h>

#include "gcev_read.h"

static void *etlb_grow(etlb *b, size_t n)
{
    if (b->cap - b->size < n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->size < n) {
            cap *= 2;
        }
        uint8_t *d = realloc(b->data, cap);
        if (!d) {
            abort(); /* tests only */
        }
        b->data = d;
        b->cap = cap;
    }
    void *p = b->data + b->size;
    memset(p, 0, n);
    b->size += n;
    return p;
}

void etlb_init(etlb *b, uint32_t buffer_size)
{
    memset(b, 0, sizeof *b);
    b->buffer_size = buffer_size;
}

void etlb_free(etlb *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void etlb_buffer_begin(etlb *b, uint16_t processor, uint16_t flags)
{
    b->buf_start = b->size;
    if (b->nbuffers < ETLB_MAX_MARKS) {
        b->buffers[b->nbuffers] = b->size;
    }
    uint8_t *h = etlb_grow(b, 0x48);
    gcev_put32(h, b->buffer_size);
    gcev_put32(h + 0x08, (uint32_t)b->size); /* CurrentOffset: not read by gcev */
    gcev_put16(h + 0x28, processor);
    gcev_put16(h + 0x2a, 0x3d); /* logger id */
    gcev_put32(h + 0x2c, 3);    /* state */
    gcev_put16(h + 0x34, flags);
    gcev_put16(h + 0x36, b->nbuffers == 0 ? 4 : 0); /* header buffer, then generic */
}

void etlb_buffer_end(etlb *b)
{
    uint32_t used = (uint32_t)(b->size - b->buf_start);
    gcev_put32(b->data + b->buf_start + 4, used);
    gcev_put32(b->data + b->buf_start + 0x30, used);
    if (b->nbuffers < ETLB_MAX_MARKS) {
        b->used[b->nbuffers++] = used;
    }
    size_t fill = b->buffer_size > used ? b->buffer_size - used : 0;
    memset(etlb_grow(b, fill), 0xff, fill);
    if (b->written_at) {
        gcev_put32(b->data + b->written_at, (uint32_t)b->nbuffers);
    }
}

size_t etlb_raw(etlb *b, const void *rec, size_t n)
{
    size_t off = b->size;
    if (b->nrecords < ETLB_MAX_MARKS) {
        b->records[b->nrecords].offset = off;
        b->records[b->nrecords].size = n;
        b->records[b->nrecords].buffer = b->nbuffers;
        b->nrecords++;
    }
    memcpy(etlb_grow(b, (n + 7) & ~(size_t)7), rec, n);
    return off;
}

static uint8_t kernel_header_size(uint8_t type)
{
    return type <= 2 ? 32 : type <= 4 ? 24 : 16;
}

size_t etlb_kernel(etlb *b, uint8_t header_type, uint16_t version, uint16_t hook, uint32_t pid, uint32_t tid,
                   int64_t ts, const void *payload, size_t n)
{
    uint8_t rec[2048] = {0};
    size_t hs = kernel_header_size(header_type);
    gcev_put16(rec, version);
    rec[2] = header_type;
    rec[3] = 0xc0;
    gcev_put16(rec + 4, (uint16_t)(hs + n));
    gcev_put16(rec + 6, hook);
    if (hs == 16) {
        gcev_put64(rec + 8, (uint64_t)ts);
    } else {
        gcev_put32(rec + 8, tid);
        gcev_put32(rec + 12, pid);
        gcev_put64(rec + 16, (uint64_t)ts);
    }
    if (n) {
        memcpy(rec + hs, payload, n);
    }
    return etlb_raw(b, rec, hs + n);
}

size_t etlb_logfile_header(etlb *b, const etlb_logfile *lf)
{
    uint8_t p[512] = {0};
    size_t ps = lf->pointer_size;
    gcev_put32(p, b->buffer_size);
    gcev_put32(p + 4, 0x0501000a);
    gcev_put32(p + 8, 19043);
    gcev_put32(p + 12, lf->processors);
    gcev_put32(p + 24, 156250);
    gcev_put32(p + 36, 2);
    gcev_put32(p + 40, 1);
    gcev_put32(p + 44, lf->pointer_size);
    gcev_put32(p + 48, lf->events_lost);
    gcev_put32(p + 52, lf->cpu_speed_mhz);
    size_t tz = 56 + 2 * ps;
    gcev_put32(p + tz, (uint32_t)-120);
    size_t t = (tz + 172 + 7) & ~(size_t)7;
    gcev_put64(p + t, 0x01d7a32d1a8ca640u);
    gcev_put64(p + t + 8, (uint64_t)lf->perf_freq);
    gcev_put64(p + t + 16, (uint64_t)lf->start_time);
    gcev_put32(p + t + 24, lf->clock_type);
    gcev_put32(p + t + 28, lf->buffers_lost);
    static const char names[] = "s\0\0\0f\0\0\0"; /* "s" and "f" in UTF-16, NUL-terminated */
    memcpy(p + t + 32, names, sizeof names - 1);
    size_t rec =
        etlb_kernel(b, ps == 4 ? 1 : 2, 2, 0x0000, 100, 200, lf->timestamp, p, t + 32 + sizeof names - 1);
    b->written_at = rec + 32 + 36; /* after the 32-byte system header */
    return rec;
}

size_t etlb_classic(etlb *b, uint8_t header_type, const gcev_guid *guid, uint8_t type, uint8_t level,
                    uint16_t version, uint32_t pid, uint32_t tid, int64_t ts, const void *payload, size_t n)
{
    uint8_t rec[2048] = {0};
    size_t hs = (header_type == 0x0b || header_type == 0x15) ? 72 : 48;
    gcev_put16(rec, (uint16_t)(hs + n));
    rec[2] = header_type;
    rec[3] = 0xc0;
    rec[4] = type;
    rec[5] = level;
    gcev_put16(rec + 6, version);
    gcev_put32(rec + 8, tid);
    gcev_put32(rec + 12, pid);
    gcev_put64(rec + 16, (uint64_t)ts);
    gcev_guid_store(rec + 24, guid);
    if (n) {
        memcpy(rec + hs, payload, n);
    }
    return etlb_raw(b, rec, hs + n);
}

size_t etlb_event_record(etlb *b, const etlb_event *e)
{
    uint8_t rec[8192] = {0};
    size_t pos = 80;
    for (size_t i = 0; i < e->next; i++) {
        const etlb_ext *x = &e->ext[i];
        size_t step = 8 + ((x->size + 7u) & ~7u);
        gcev_put16(rec + pos, (uint16_t)step);
        gcev_put16(rec + pos + 2, x->type);
        gcev_put16(rec + pos + 4, i + 1 < e->next ? 1 : 0);
        gcev_put16(rec + pos + 6, x->size);
        memcpy(rec + pos + 8, x->data, x->size);
        pos += step;
    }
    if (e->payload_size) {
        memcpy(rec + pos, e->payload, e->payload_size);
    }
    pos += e->payload_size;
    gcev_put16(rec, (uint16_t)pos);
    rec[2] = e->header_type;
    rec[3] = 0xc0;
    gcev_put16(rec + 4, e->next ? 1 : 0);
    gcev_put32(rec + 8, e->tid);
    gcev_put32(rec + 12, e->pid);
    gcev_put64(rec + 16, (uint64_t)e->ts);
    gcev_guid_store(rec + 24, &e->provider);
    gcev_put16(rec + 40, e->id);
    rec[42] = e->version;
    rec[43] = e->channel;
    rec[44] = e->level;
    rec[45] = e->opcode;
    gcev_put16(rec + 46, e->task);
    gcev_put64(rec + 48, e->keywords);
    gcev_guid_store(rec + 64, &e->activity);
    return etlb_raw(b, rec, pos);
}

size_t etlb_gc_event(etlb *b, uint16_t id, uint32_t number, int64_t ts, uint32_t pid, uint32_t tid)
{
    static const gcev_guid runtime = {
        0xe13c0d23, 0xccbc, 0x4e12, {0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4}};
    uint8_t p[26] = {0};
    for (int k = 0; k < 4; k++) {
        p[k] = (uint8_t)(number >> (8 * k));
    }
    etlb_event e = {.header_type = 0x13,
                    .pid = pid,
                    .tid = tid,
                    .ts = ts,
                    .provider = runtime,
                    .id = id,
                    .version = id == 1 ? 2 : 1,
                    .level = 4,
                    .keywords = 1,
                    .payload = p,
                    .payload_size = id == 1 ? 26 : 10};
    return etlb_event_record(b, &e);
}

uint8_t *etlb_relog_compressed(const etlb *b, size_t first, size_t *size, size_t *offsets)
{
    uint8_t *out = malloc(b->size);
    size_t n = 0, cap = b->size;
    if (!out) {
        return NULL;
    }
    for (size_t i = 0; i < b->nbuffers; i++) {
        const uint8_t *buf = b->data + b->buffers[i];
        uint32_t used = b->used[i];
        uint8_t *part = NULL;
        size_t part_size = b->buffer_size;
        if (i >= first) {
            part = xw_compress(buf + 0x48, used - 0x48, 8192, &part_size);
            part_size += 0x48;
        }
        if (n + part_size > cap) {
            cap = 2 * (n + part_size);
            uint8_t *grown = realloc(out, cap);
            if (!grown) {
                free(part);
                free(out);
                return NULL;
            }
            out = grown;
        }
        if (offsets) {
            offsets[i] = n;
        }
        memcpy(out + n, buf, 0x48);
        if (part) {
            memcpy(out + n + 0x48, part, part_size - 0x48);
            gcev_put32(out + n, (uint32_t)part_size);
            gcev_put16(out + n + 0x34, (uint16_t)(buf[0x34] | buf[0x35] << 8 | 0x40));
            free(part);
        } else {
            memcpy(out + n, buf, b->buffer_size);
        }
        n += part_size;
    }
    *size = n;
    return out;
}
