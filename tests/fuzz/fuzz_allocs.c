/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: the allocation model (gcev_allocs.h) and its own payload readers (method, module
 * and R2R entry-point events, which gcev's manifest does not compile). Byte 0 chooses:
 *  - even: the rest is a list of events fed to the model directly, each
 *    [id u16][version u8][flags u8: bit0 Rundown provider, bit1 pointer size 4][frames u8]
 *    [frames x 8-byte addresses][payload size u16][payload]; the model is finished and every
 *    accessor walked, every frame's address resolved again;
 *  - odd: the rest is a trace in memory (any format gcev reads) read with
 *    gcev_allocs_read_trace() in timestamp order.
 * Invariants: sums are finite, shares within [0, 1] (up to rounding), frame indexes in range.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gcev/gcev_allocs.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const gcev_allocs *a)
{
    const gcev_allocs_summary *s = gcev_allocs_get_summary(a);
    if (!isfinite(s->bytes) && s->samples) {
        /* AllocationTick amounts are finite integers; sampled weights of S>0 are finite */
        abort();
    }
    size_t nf = gcev_allocs_frame_count(a);
    for (size_t i = 0; i < gcev_allocs_stack_count(a); i++) {
        const gcev_allocs_stack *st = gcev_allocs_stack_at(a, i);
        for (uint32_t j = 0; j < st->nframes; j++) {
            if (st->frames[j] >= nf) {
                abort();
            }
        }
        if (st->site != UINT32_MAX && st->site >= st->nframes) {
            abort();
        }
    }
    for (size_t i = 0; i < gcev_allocs_pair_count(a); i++) {
        const gcev_allocs_pair *p = gcev_allocs_pair_at(a, i);
        if (p->stack >= gcev_allocs_stack_count(a) || p->type >= gcev_allocs_type_count(a)) {
            abort();
        }
    }
    for (size_t i = 0; i < gcev_allocs_type_count(a); i++) {
        if (!gcev_allocs_type_at(a, i)->name) {
            abort();
        }
    }
    for (size_t i = 0; i < nf; i++) {
        const gcev_allocs_frame *f = gcev_allocs_frame_at(a, i);
        gcev_allocs_frame g;
        char buf[24];
        gcev_allocs_resolve(a, f->address, &g, buf, sizeof buf);
        if (!f->name || !f->method || !f->module || !g.name) {
            abort();
        }
    }
    for (size_t i = 0; i < gcev_allocs_bucket_count(a); i++) {
        (void)gcev_allocs_bucket_at(a, i);
    }
    const char *ev;
    (void)gcev_allocs_first_error(a, &ev);
}

static void events(const uint8_t *d, size_t n)
{
    gcev_allocs_options o = {0, 0, 1.0, 8};
    gcev_allocs *a;
    if (gcev_allocs_create(&o, &a) != GCEV_OK) {
        return;
    }
    const gcev_provider *rt = gcev_provider_find("Microsoft-Windows-DotNETRuntime");
    const gcev_provider *rd = gcev_provider_find("Microsoft-Windows-DotNETRuntimeRundown");
    size_t pos = 0;
    double ms = 0;
    for (int k = 0; k < 256 && n - pos >= 5; k++) {
        gcev_trace_event ev;
        memset(&ev, 0, sizeof ev);
        uint16_t id = (uint16_t)(d[pos] | d[pos + 1] << 8);
        /* steer ids to the ones the model reads */
        static const uint16_t ids[] = {10, 303, 20, 32, 15, 143, 144, 152, 153, 154, 159};
        ev.event_id = id < 0x8000 ? ids[id % (sizeof ids / sizeof ids[0])] : (uint16_t)(id & 0x7fff);
        ev.version = d[pos + 2] & 7;
        ev.provider = (d[pos + 3] & 1) ? rd : rt;
        ev.provider_name =
            (d[pos + 3] & 1) ? "Microsoft-Windows-DotNETRuntimeRundown" : "Microsoft-Windows-DotNETRuntime";
        ev.pointer_size = (d[pos + 3] & 2) ? 4 : 8;
        ev.process_id = d[pos + 3] >> 4;
        ev.thread_id = d[pos + 3] >> 2;
        uint32_t frames = d[pos + 4] & 15;
        pos += 5;
        if (n - pos < (size_t)frames * 8) {
            break;
        }
        ev.stack = frames ? d + pos : NULL;
        ev.stack_size = frames * 8;
        pos += (size_t)frames * 8;
        if (n - pos < 2) {
            break;
        }
        uint32_t len = (uint32_t)(d[pos] | d[pos + 1] << 8);
        pos += 2;
        if (len > n - pos) {
            len = (uint32_t)(n - pos);
        }
        ev.payload = d + pos;
        ev.payload_size = len;
        pos += len;
        ev.ms = ms;
        ms += (double)(d[pos - 1 < n ? pos - 1 : 0]) * 37.0;
        ev.file_offset = pos;
        gcev_error e;
        if (gcev_allocs_add(a, &ev, &e) == GCEV_E_NOMEM) {
            break;
        }
        gcev_allocs_sample smp;
        (void)gcev_allocs_sample_of(&ev, &smp, NULL);
    }
    gcev_allocs_finish(a);
    check(a);
    gcev_allocs_free(a);
}

static void trace(const uint8_t *d, size_t n)
{
    gcev_trace_options opts = {.struct_size = sizeof opts,
                               .order = GCEV_TRACE_ORDER_TIME,
                               .max_block_size = 1 << 20,
                               .keep_going = 1};
    gcev_trace *t;
    if (gcev_trace_open_memory(d, n, &opts, &t, NULL) != GCEV_OK) {
        return;
    }
    gcev_allocs *a;
    if (gcev_allocs_create(NULL, &a) == GCEV_OK) {
        gcev_error e;
        gcev_allocs_read_trace(a, t, &e);
        check(a);
        gcev_allocs_free(a);
    }
    gcev_trace_close(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1 << 20)) {
        return 0;
    }
    if (data[0] & 1) {
        trace(data + 1, size - 1);
    } else {
        events(data + 1, size - 1);
    }
    return 0;
}
