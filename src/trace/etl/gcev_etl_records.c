/* SPDX-License-Identifier: MIT */
/* ETL buffer and record headers (see gcev_etl_records.h). */
#include "gcev_etl_records.h"

#include <string.h>

#include "gcev_read.h"

gcev_status gcev_etl_buffer_header_parse(const uint8_t *p, gcev_etl_buffer_header *h, const char **msg)
{
    h->buffer_size = gcev_rd_u32le(p);
    h->saved_offset = gcev_rd_u32le(p + 0x04);
    h->timestamp = (int64_t)gcev_rd_u64le(p + 0x10);
    h->flags = gcev_rd_u16le(p + 0x34);
    h->buffer_type = gcev_rd_u16le(p + 0x36);
    /* ETW_BUFFER_CONTEXT: a byte ProcessorNumber, or a 16-bit ProcessorIndex when
     * the buffer says so (machines with more than 256 CPUs). */
    h->processor = (h->flags & GCEV_ETL_BUFFER_FLAG_PROC_INDEX) ? gcev_rd_u16le(p + 0x28) : p[0x28];
    if (h->buffer_size < GCEV_ETL_BUFFER_HEADER_SIZE) {
        *msg = "ETL buffer size is smaller than its header";
        return GCEV_E_FORMAT;
    }
    /* A compressed buffer's BufferSize is what it takes in the file (header and
     * compressed bytes) and its SavedOffset the used size once inflated, which is
     * larger: the used size bounds the buffer only when it is stored as is. */
    if (h->saved_offset < GCEV_ETL_BUFFER_HEADER_SIZE ||
        (!(h->flags & GCEV_ETL_BUFFER_FLAG_COMPRESSED) && h->saved_offset > h->buffer_size)) {
        *msg = "ETL buffer's used size is outside the buffer";
        return GCEV_E_FORMAT;
    }
    return GCEV_OK;
}

gcev_status gcev_etl_record_classify(const uint8_t *p, size_t n, gcev_etl_record *r, const char **msg)
{
    (void)n; /* the caller guarantees 8 bytes; every header field read here is in them */
    memset(r, 0, sizeof *r);
    r->header_type = p[2];
    if (gcev_rd_u32le(p) == UINT32_MAX) {
        r->kind = GCEV_ETL_REC_FILL;
        return GCEV_OK;
    }
    uint8_t marker = p[3];
    if (!(marker & GCEV_ETL_MARKER_TRACE_HEADER)) {
        *msg = "ETL record has no trace-header marker";
        return GCEV_E_FORMAT;
    }
    /* Kernel headers keep a version in bytes 0-1 and the size in bytes 4-5; every
     * other header starts with its size. */
    int size_at_4 = 0;
    if (!(marker & GCEV_ETL_MARKER_EVENT_TRACE)) {
        if (!(marker & GCEV_ETL_MARKER_TRACE_MESSAGE)) {
            *msg = "ETL record marker is of no known kind";
            return GCEV_E_FORMAT;
        }
        r->kind = GCEV_ETL_REC_MESSAGE;
        r->header_size = 8; /* MESSAGE_TRACE_HEADER; optional parts follow it */
    } else {
        switch (r->header_type) {
        case GCEV_ETL_HT_SYSTEM32:
        case GCEV_ETL_HT_SYSTEM64:
            r->kind = GCEV_ETL_REC_SYSTEM;
            r->header_size = GCEV_ETL_SYSTEM_HEADER_SIZE;
            size_at_4 = 1;
            break;
        case GCEV_ETL_HT_COMPACT32:
        case GCEV_ETL_HT_COMPACT64:
            r->kind = GCEV_ETL_REC_SYSTEM;
            r->header_size = GCEV_ETL_COMPACT_HEADER_SIZE;
            size_at_4 = 1;
            break;
        case GCEV_ETL_HT_PERFINFO32:
        case GCEV_ETL_HT_PERFINFO64:
            r->kind = GCEV_ETL_REC_PERFINFO;
            r->header_size = GCEV_ETL_PERFINFO_HEADER_SIZE;
            size_at_4 = 1;
            break;
        case GCEV_ETL_HT_FULL_HEADER32:
        case GCEV_ETL_HT_FULL_HEADER64:
            r->kind = GCEV_ETL_REC_CLASSIC;
            r->header_size = GCEV_ETL_FULL_HEADER_SIZE;
            break;
        case GCEV_ETL_HT_INSTANCE32:
        case GCEV_ETL_HT_INSTANCE64:
            r->kind = GCEV_ETL_REC_INSTANCE;
            r->header_size = GCEV_ETL_INSTANCE_HEADER_SIZE;
            break;
        case GCEV_ETL_HT_EVENT_HEADER32:
        case GCEV_ETL_HT_EVENT_HEADER64:
            r->kind = GCEV_ETL_REC_EVENT;
            r->header_size = GCEV_ETL_EVENT_HEADER_SIZE;
            break;
        default:
            *msg = "ETL record header type is unknown";
            return GCEV_E_FORMAT;
        }
        /* The header type, not the EVENT_HEADER flags (0 in files), says whether
         * the writer was 32- or 64-bit: the 64-bit forms are the odd/even twins. */
        switch (r->header_type) {
        case GCEV_ETL_HT_SYSTEM32:
        case GCEV_ETL_HT_COMPACT32:
        case GCEV_ETL_HT_PERFINFO32:
        case GCEV_ETL_HT_FULL_HEADER32:
        case GCEV_ETL_HT_INSTANCE32:
        case GCEV_ETL_HT_EVENT_HEADER32:
            r->pointer_size = 4;
            break;
        default:
            r->pointer_size = 8;
            break;
        }
    }
    r->size = gcev_rd_u16le(p + (size_at_4 ? 4 : 0));
    if (r->size < r->header_size) {
        *msg = "ETL record size is smaller than its header";
        return GCEV_E_FORMAT;
    }
    return GCEV_OK;
}

/*
 * Kernel records name their event class by a hook id (group << 8 | type) instead
 * of a GUID; these are the classes' GUIDs as TDH reports them, for the groups
 * whose class is unambiguous. Other groups get no GUID rather than a wrong one.
 */
static const struct {
    uint8_t group;
    gcev_guid guid;
} kernel_groups[] = {
    {0x00, {0x68fdd900, 0x4a3e, 0x11d1, {0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3}}}, /* EventTrace */
    {0x01, {0x3d6fa8d4, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}}}, /* DiskIo */
    {0x02, {0x3d6fa8d3, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}}}, /* PageFault */
    {0x03, {0x3d6fa8d0, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}}}, /* Process */
    {0x04, {0x90cbdc39, 0x4a3e, 0x11d1, {0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3}}}, /* FileIo */
    {0x05, {0x3d6fa8d1, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}}}, /* Thread */
    {0x06, {0x9a280ac0, 0xc8e0, 0x11d1, {0x84, 0xe2, 0x00, 0xc0, 0x4f, 0xb9, 0x98, 0xa2}}}, /* TcpIp */
    {0x08, {0xbf3a50c5, 0xa9c9, 0x4988, {0xa0, 0x05, 0x2d, 0xf0, 0xb7, 0xc8, 0x0f, 0x80}}}, /* UdpIp */
    {0x09, {0xae53722e, 0xc863, 0x11d2, {0x86, 0x59, 0x00, 0xc0, 0x4f, 0xa3, 0x21, 0xa1}}}, /* Registry */
    {0x0b, {0x01853a65, 0x418f, 0x4f36, {0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35}}}, /* SystemConfig */
    {0x0f, {0xce1dbfb4, 0x137e, 0x4da6, {0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc}}}, /* PerfInfo */
    {0x14, {0x2cb15d1d, 0x5fc1, 0x11d2, {0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18}}}, /* Image */
    {0x18, {0xdef2fe46, 0x7bd6, 0x4b80, {0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3}}}, /* StackWalk */
    {0x1a, {0x45d8cccd, 0x539f, 0x4b72, {0xa8, 0xb7, 0x5c, 0x68, 0x31, 0x42, 0x60, 0x9a}}}, /* ALPC */
};

static void kernel_provider(uint8_t group, gcev_trace_event *ev)
{
    for (size_t i = 0; i < sizeof kernel_groups / sizeof kernel_groups[0]; i++) {
        if (kernel_groups[i].group == group) {
            ev->provider_guid = kernel_groups[i].guid;
            ev->has_provider_guid = 1;
            return;
        }
    }
}

void gcev_etl_classic_fill(const uint8_t *p, const gcev_etl_record *r, gcev_trace_event *ev)
{
    ev->pointer_size = r->pointer_size;
    ev->payload = p + r->header_size;
    ev->payload_size = (uint32_t)(r->size - r->header_size);
    switch (r->kind) {
    case GCEV_ETL_REC_SYSTEM:
    case GCEV_ETL_REC_PERFINFO: {
        uint16_t hook = gcev_rd_u16le(p + 6);
        /* MOF events have no id: the class (group) and opcode (type) name them. */
        ev->version = gcev_rd_u16le(p);
        ev->opcode = (uint8_t)(hook & 0xff);
        ev->has_opcode = 1;
        kernel_provider((uint8_t)(hook >> 8), ev);
        if (r->kind == GCEV_ETL_REC_SYSTEM) {
            ev->thread_id = gcev_rd_u32le(p + 8);
            ev->process_id = gcev_rd_u32le(p + 12);
            ev->timestamp = (int64_t)gcev_rd_u64le(p + 16);
        } else {
            /* PerfInfo records (samples, interrupts) carry no process or thread. */
            ev->thread_id = UINT64_MAX;
            ev->process_id = UINT32_MAX;
            ev->timestamp = (int64_t)gcev_rd_u64le(p + 8);
        }
        break;
    }
    case GCEV_ETL_REC_CLASSIC:
    case GCEV_ETL_REC_INSTANCE:
        ev->opcode = p[4];
        ev->level = p[5];
        ev->has_opcode = ev->has_level = 1;
        ev->version = gcev_rd_u16le(p + 6);
        ev->thread_id = gcev_rd_u32le(p + 8);
        ev->process_id = gcev_rd_u32le(p + 12);
        ev->timestamp = (int64_t)gcev_rd_u64le(p + 16);
        ev->provider_guid = gcev_guid_load(p + 24);
        ev->has_provider_guid = 1;
        break;
    default:
        break;
    }
}

gcev_status gcev_etl_event_fill(const uint8_t *p, const gcev_etl_record *r, gcev_trace_event *ev,
                                const uint8_t **schema, uint32_t *schema_size, const uint8_t **traits,
                                uint32_t *traits_size, const char **msg)
{
    *schema = *traits = NULL;
    *schema_size = *traits_size = 0;
    uint16_t flags = gcev_rd_u16le(p + 4);
    ev->thread_id = gcev_rd_u32le(p + 8);
    ev->process_id = gcev_rd_u32le(p + 12);
    ev->timestamp = (int64_t)gcev_rd_u64le(p + 16);
    ev->provider_guid = gcev_guid_load(p + 24);
    ev->has_provider_guid = 1;
    ev->event_id = gcev_rd_u16le(p + 40);
    ev->version = p[42];
    ev->level = p[44];
    ev->opcode = p[45];
    ev->has_level = ev->has_opcode = 1;
    ev->keywords = gcev_rd_u64le(p + 48);
    ev->activity_id = gcev_guid_load(p + 64);
    ev->has_activity_id = 1;
    ev->pointer_size = r->pointer_size;

    uint32_t size = r->size;
    uint32_t pos = GCEV_ETL_EVENT_HEADER_SIZE;
    if (flags & GCEV_ETL_EVENT_FLAG_EXTENDED_INFO) {
        /* Items are chained by their linkage bit; each takes at least 8 bytes of
         * the record, so the walk ends within size / 8 steps. */
        for (;;) {
            if (size - pos < GCEV_ETL_EXT_ITEM_HEADER_SIZE) {
                *msg = "ETL extended data item header overruns its event record";
                return GCEV_E_FORMAT;
            }
            const uint8_t *item = p + pos;
            uint16_t type = gcev_rd_u16le(item + 2);
            int linked = gcev_rd_u16le(item + 4) & 1;
            uint32_t dsize = gcev_rd_u16le(item + 6);
            uint32_t step = GCEV_ETL_EXT_ITEM_HEADER_SIZE + ((dsize + 7u) & ~7u);
            if (size - pos < step) {
                *msg = "ETL extended data item overruns its event record";
                return GCEV_E_FORMAT;
            }
            const uint8_t *data = item + GCEV_ETL_EXT_ITEM_HEADER_SIZE;
            switch (type) {
            case GCEV_ETL_EXT_RELATED_ACTIVITYID:
                if (dsize >= 16) {
                    ev->related_activity_id = gcev_guid_load(data);
                    ev->has_related_activity_id = 1;
                }
                break;
            case GCEV_ETL_EXT_STACK_TRACE32:
            case GCEV_ETL_EXT_STACK_TRACE64: {
                /* A 64-bit MatchId, then the return addresses. A WOW64 process can
                 * log 32-bit frames under a 64-bit header; ev->stack promises
                 * pointer_size-wide entries, so only matching widths are exposed. */
                uint32_t width = type == GCEV_ETL_EXT_STACK_TRACE32 ? 4 : 8;
                if (dsize >= 8 && width == ev->pointer_size) {
                    ev->stack = data + 8;
                    ev->stack_size = (dsize - 8) / width * width;
                }
                break;
            }
            case GCEV_ETL_EXT_EVENT_SCHEMA_TL:
                *schema = data;
                *schema_size = dsize;
                break;
            case GCEV_ETL_EXT_PROV_TRAITS:
                *traits = data;
                *traits_size = dsize;
                break;
            default:
                break; /* SID, session id, instance info, event key, PMC ...: not exposed */
            }
            pos += step;
            if (!linked) {
                break;
            }
        }
    }
    ev->payload = p + pos;
    ev->payload_size = size - pos;
    return GCEV_OK;
}

gcev_status gcev_etl_logfile_parse(const uint8_t *p, size_t n, gcev_etl_logfile *lf, const char **msg)
{
    memset(lf, 0, sizeof *lf);
    if (n < 56) {
        *msg = "ETL log file header is too short";
        return GCEV_E_FORMAT;
    }
    lf->buffer_size = gcev_rd_u32le(p);
    lf->version = gcev_rd_u32le(p + 4);
    lf->provider_version = gcev_rd_u32le(p + 8);
    lf->number_of_processors = gcev_rd_u32le(p + 12);
    lf->end_time = (int64_t)gcev_rd_u64le(p + 16);
    lf->timer_resolution = gcev_rd_u32le(p + 24);
    lf->maximum_file_size = gcev_rd_u32le(p + 28);
    lf->log_file_mode = gcev_rd_u32le(p + 32);
    lf->buffers_written = gcev_rd_u32le(p + 36);
    lf->start_buffers = gcev_rd_u32le(p + 40);
    lf->pointer_size = gcev_rd_u32le(p + 44);
    lf->events_lost = gcev_rd_u32le(p + 48);
    lf->cpu_speed_mhz = gcev_rd_u32le(p + 52);
    if (lf->pointer_size != 4 && lf->pointer_size != 8) {
        *msg = "ETL log file header's pointer size is not 4 or 8";
        return GCEV_E_FORMAT;
    }
    /* Two pointers (logger and file name, meaningless in a file), the 172-byte
     * TIME_ZONE_INFORMATION, then LARGE_INTEGERs at their natural 8-byte alignment. */
    size_t tz = 56 + 2 * (size_t)lf->pointer_size;
    size_t times = (tz + 172 + 7) & ~(size_t)7;
    if (n < times + 32) {
        *msg = "ETL log file header is too short";
        return GCEV_E_FORMAT;
    }
    lf->tz_bias_minutes = (int32_t)gcev_rd_u32le(p + tz);
    lf->boot_time = (int64_t)gcev_rd_u64le(p + times);
    lf->perf_freq = (int64_t)gcev_rd_u64le(p + times + 8);
    lf->start_time = (int64_t)gcev_rd_u64le(p + times + 16);
    lf->reserved_flags = gcev_rd_u32le(p + times + 24);
    lf->buffers_lost = gcev_rd_u32le(p + times + 28);
    /* ReservedFlags is the session's clock type: the timestamps count 100 ns units
     * for the system clock and CPU cycles for the cycle counter, not QPC ticks. */
    switch (lf->reserved_flags) {
    case 2:
        lf->clock_frequency = 10000000u;
        break;
    case 3:
        lf->clock_frequency = (uint64_t)lf->cpu_speed_mhz * 1000000u;
        break;
    default:
        lf->clock_frequency = lf->perf_freq > 0 ? (uint64_t)lf->perf_freq : 0;
        break;
    }
    if (lf->clock_frequency == 0) {
        *msg = "ETL log file header gives no clock frequency";
        return GCEV_E_FORMAT;
    }
    return GCEV_OK;
}
