/* SPDX-License-Identifier: MIT */
/*
 * The trace-reader harness body shared by fuzz_nettrace and fuzz_etl. The
 * last input byte (which also stays part of the trace) picks the input mode
 * and the event order, so every seed is a plain trace file:
 *   bit 0: memory (0) or read-callback stream (1), with chunk sizes from bits 2..4
 *   bit 1: file order (0) or timestamp order (1)
 *   bit 5: keep_going (resynchronise after a damaged block or buffer)
 *   bit 6: the lean differential (fuzz_lean_differential) with the GC-set filter
 *   bit 7: no_stacks (stack blocks checked, not kept; no event has a stack)
 * Every event gets its payload decoded and formatted when its provider is
 * known, and EventSource/TraceLogging fields go through the JSON formatter.
 * A ZIP input (last byte 0: memory) goes through the archive path: the entry
 * listing, the pick of the trace entry and the reader over the inflating entry.
 */
#ifndef GCEV_FUZZ_TRACE_COMMON_H
#define GCEV_FUZZ_TRACE_COMMON_H

#include "fuzz_common.h"

typedef struct fuzz_stream {
    const uint8_t *data;
    size_t size, pos;
    size_t chunk;
} fuzz_stream;

static inline long long fuzz_stream_read(void *ctx, void *buf, size_t n)
{
    fuzz_stream *s = ctx;
    size_t left = s->size - s->pos;
    size_t k = n < left ? n : left;
    if (k > s->chunk) {
        k = s->chunk; /* short reads, as a pipe gives */
    }
    memcpy(buf, s->data + s->pos, k);
    s->pos += k;
    return (long long)k;
}

/* The skipped ranges of a keep-going read: none without the option; each one inside
 * the input (limit: its size for memory inputs) and, in one file (ordered), after the
 * previous one; with a fault the option skips and a message; the totals count at least
 * what is recorded. */
static inline void fuzz_check_skips(const gcev_trace *t, int keep_going, uint64_t limit, int ordered)
{
    size_t n = gcev_trace_skip_count(t);
    FUZZ_CHECK(keep_going ||
               (n == 0 && gcev_trace_skipped_ranges(t) == 0 && gcev_trace_skipped_bytes(t) == 0));
    FUZZ_CHECK(gcev_trace_skip_at(t, n) == NULL);
    FUZZ_CHECK(gcev_trace_skipped_ranges(t) >= n);
    uint64_t end = 0, bytes = 0;
    for (size_t i = 0; i < n; i++) {
        const gcev_trace_skip *k = gcev_trace_skip_at(t, i);
        FUZZ_CHECK(k != NULL && k->message != NULL);
        FUZZ_CHECK(k->status == GCEV_E_FORMAT || k->status == GCEV_E_TRUNCATED_FILE ||
                   k->status == GCEV_E_LIMIT || k->status == GCEV_E_UNSUPPORTED);
        FUZZ_CHECK((!ordered || k->offset >= end) && k->bytes <= limit && k->offset <= limit - k->bytes);
        end = k->offset + k->bytes;
        bytes += k->bytes;
    }
    FUZZ_CHECK(gcev_trace_skipped_bytes(t) >= bytes);
}

/*
 * The lean walk beside the full one (gcev_trace_next_lean_batch against gcev_trace_next, in
 * file order, with the GC-set filter when `gc_set`): the same events, the same end or fault
 * at the same offset, whatever the input holds.
 */
static inline void fuzz_lean_differential(const uint8_t *data, size_t size, uint32_t keep_going, int gc_set)
{
    gcev_trace_options o = {
        .order = GCEV_TRACE_ORDER_FILE, .max_block_size = 16u << 20, .keep_going = keep_going};
    gcev_trace *full = NULL, *lean = NULL;
    if (gcev_trace_open_memory(data, size, &o, &full, NULL) != GCEV_OK) {
        return;
    }
    FUZZ_CHECK(gcev_trace_open_memory(data, size, &o, &lean, NULL) == GCEV_OK);
    if (gc_set) {
        gcev_trace_filter f;
        memset(&f, 0, sizeof f);
        f.struct_size = sizeof f;
        f.flags = GCEV_TRACE_FILTER_GC;
        FUZZ_CHECK(gcev_trace_set_filter(full, &f, NULL) == GCEV_OK);
        FUZZ_CHECK(gcev_trace_set_filter(lean, &f, NULL) == GCEV_OK);
    }
    gcev_trace_lean b[5];
    b[0].struct_size = sizeof b[0];
    gcev_trace_event ev;
    gcev_error e0, e1;
    gcev_status s0 = GCEV_OK, s1;
    size_t n;
    while ((s1 = gcev_trace_next_lean_batch(lean, b, 5, &n, &e1)) == GCEV_OK) {
        FUZZ_CHECK(n >= 1 && n <= 5);
        for (size_t i = 0; i < n; i++) {
            FUZZ_CHECK((s0 = gcev_trace_next(full, &ev, &e0)) == GCEV_OK);
            FUZZ_CHECK(b[i].event_id == ev.event_id && b[i].version == ev.version &&
                       b[i].timestamp == ev.timestamp && b[i].thread_id == ev.thread_id &&
                       b[i].payload_size == ev.payload_size && b[i].provider == ev.provider &&
                       (b[i].kind != NULL) == (ev.kind != NULL));
        }
        const gcev_trace_event *last = gcev_trace_lean_event(lean);
        FUZZ_CHECK(!last || (last->timestamp == ev.timestamp && last->file_offset == ev.file_offset &&
                             last->payload_size == ev.payload_size));
    }
    s0 = gcev_trace_next(full, &ev, &e0);
    FUZZ_CHECK(s1 == s0 && n == 0);
    FUZZ_CHECK(s1 == GCEV_END || e1.offset == e0.offset);
    FUZZ_CHECK(gcev_trace_skipped_bytes(lean) == gcev_trace_skipped_bytes(full));
    FUZZ_CHECK(gcev_trace_filtered_events(lean) == gcev_trace_filtered_events(full));
    gcev_trace_close(full);
    gcev_trace_close(lean);
}

static inline void fuzz_trace_run(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return;
    }
    const uint8_t mode = data[size - 1];
    static const size_t chunks[8] = {1, 7, 64, 333, 4096, 65536, 1u << 20, (size_t)-1};
    gcev_trace_options opts = {.struct_size = sizeof opts,
                               .order = (mode & 2) ? GCEV_TRACE_ORDER_TIME : GCEV_TRACE_ORDER_FILE,
                               .max_block_size = 16u << 20,
                               .keep_going = (mode >> 5) & 1,
                               .no_stacks = (mode >> 7) & 1};
    fuzz_stream s = {data, size, 0, chunks[(mode >> 2) & 7]};
    gcev_trace *t = NULL;
    gcev_error err;
    gcev_status st;
    /* an exact-size copy so ASan sees any read past the end of the input */
    uint8_t *copy = malloc(size);
    if (!copy) {
        return;
    }
    memcpy(copy, data, size);
    if (mode & 1) {
        s.data = copy;
        st = gcev_trace_open_reader(fuzz_stream_read, &s, &opts, &t, &err);
    } else {
        st = gcev_trace_open_memory(copy, size, &opts, &t, &err);
    }
    if (st != GCEV_OK) {
        FUZZ_CHECK(t == NULL && err.code == st);
        free(copy);
        return;
    }
    const gcev_trace_info *info = gcev_trace_get_info(t);
    (void)gcev_trace_format_name(info->format);
    gcev_trace_event ev;
    uint64_t events = 0;
    while ((st = gcev_trace_next(t, &ev, &err)) == GCEV_OK) {
        FUZZ_CHECK(ev.payload_size == 0 || ev.payload != NULL);
        FUZZ_CHECK(!opts.no_stacks || (ev.stack == NULL && ev.stack_size == 0));
        if (ev.provider && events < 256) {
            gcev_input in = {.struct_size = sizeof in,
                             .provider = ev.provider,
                             .event_id = ev.event_id,
                             .version = ev.version,
                             .pointer_size = ev.pointer_size,
                             .data = ev.payload,
                             .size = ev.payload_size};
            gcev_event dec;
            gcev_error derr;
            if (gcev_decode(&in, &dec, &derr) == GCEV_OK) {
                fuzz_exercise_event(&dec, 17, 1);
            }
        }
        if (ev.nfields && events < 256) {
            size_t need = gcev_trace_format_fields_json(&ev, NULL, 0);
            char *buf = malloc(need + 1);
            if (buf) {
                FUZZ_CHECK(gcev_trace_format_fields_json(&ev, buf, need + 1) == need);
                FUZZ_CHECK(buf[need] == '\0');
                free(buf);
            }
        }
        events++;
    }
    FUZZ_CHECK(st != GCEV_OK);
    if (st != GCEV_END) {
        FUZZ_CHECK(err.code == st);
        if (!(mode & 1)) {
            /* offsets are into the input, or into the archive entry read */
            FUZZ_CHECK(err.offset <= (info->archive_entry ? info->file_size : size));
        }
        /* errors are sticky */
        gcev_error again;
        FUZZ_CHECK(gcev_trace_next(t, &ev, &again) == st);
    }
    /* offsets are into the input, or into the archive entry read (streams: no known size) */
    fuzz_check_skips(t, (mode >> 5) & 1,
                     (mode & 1) ? UINT64_MAX : (info->archive_entry ? info->file_size : (uint64_t)size), 1);
    size_t nd = gcev_trace_drop_count(t);
    for (size_t i = 0; i <= nd; i++) {
        (void)gcev_trace_drop_at(t, i);
    }
    (void)gcev_trace_dropped_events(t);
    gcev_trace_close(t);
    if (!(mode & 1)) {
        fuzz_lean_differential(copy, size, (mode >> 5) & 1, (mode >> 6) & 1);
    }
    free(copy);
}

#endif
