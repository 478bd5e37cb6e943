/* SPDX-License-Identifier: MIT */
/*
 * The allocation model (gcev_allocs.h) on events built here byte by byte: estimates of each
 * source, frames named from method and module events (with the signature's argument list,
 * as TraceEvent names them), stacks merged by frame list, unresolved addresses, the process
 * filter, time buckets, and malformed payloads located (field, file offset) and skipped.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <gcev/gcev_allocs.h>

typedef struct buf {
    uint8_t b[1024];
    uint32_t n;
} buf;

static void u16(buf *p, uint16_t v)
{
    p->b[p->n++] = (uint8_t)v;
    p->b[p->n++] = (uint8_t)(v >> 8);
}

static void u32(buf *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p->b[p->n++] = (uint8_t)(v >> (8 * i));
    }
}

static void u64(buf *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        p->b[p->n++] = (uint8_t)(v >> (8 * i));
    }
}

static void str(buf *p, const char *s)
{
    for (; *s; s++) {
        u16(p, (uint8_t)*s);
    }
    u16(p, 0);
}

static const gcev_provider *runtime(void)
{
    return gcev_provider_find("Microsoft-Windows-DotNETRuntime");
}

static gcev_trace_event event(uint16_t id, uint16_t version, const buf *payload, double ms)
{
    gcev_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.provider = runtime();
    ev.provider_name = "Microsoft-Windows-DotNETRuntime";
    ev.event_id = id;
    ev.version = version;
    ev.pointer_size = 8;
    ev.payload = payload->b;
    ev.payload_size = payload->n;
    ev.ms = ms;
    ev.thread_id = 7;
    ev.process_id = 100;
    return ev;
}

/* MethodLoadVerbose V1 */
static buf method(uint64_t start, uint32_t size, const char *ns, const char *name, const char *sig,
                  uint64_t module)
{
    buf p = {{0}, 0};
    u64(&p, start ^ 0x55); /* MethodID */
    u64(&p, module);
    u64(&p, start);
    u32(&p, size);
    u32(&p, 0x06000001);
    u32(&p, 0x8);
    str(&p, ns);
    str(&p, name);
    str(&p, sig);
    u16(&p, 0);
    return p;
}

/* ModuleLoad V1 */
static buf module(uint64_t id, const char *path)
{
    buf p = {{0}, 0};
    u64(&p, id);
    u64(&p, 1);
    u32(&p, 0);
    u32(&p, 0);
    str(&p, path);
    str(&p, "");
    u16(&p, 0);
    return p;
}

/* GCAllocationTick V4 */
static buf tick(uint64_t amount, uint32_t kind, const char *type, uint64_t type_id, uint64_t size)
{
    buf p = {{0}, 0};
    u32(&p, (uint32_t)amount);
    u32(&p, kind);
    u16(&p, 0);
    u64(&p, amount);
    u64(&p, type_id);
    str(&p, type);
    u32(&p, 0);
    u64(&p, 0x1000);
    u64(&p, size);
    return p;
}

/* AllocationSampled V0 */
static buf sampled(uint32_t kind, const char *type, uint64_t type_id, uint64_t size, uint64_t offset)
{
    buf p = {{0}, 0};
    u32(&p, kind);
    u16(&p, 0);
    u64(&p, type_id);
    str(&p, type);
    u64(&p, 0x2000);
    u64(&p, size);
    u64(&p, offset);
    return p;
}

static void set_stack(gcev_trace_event *ev, uint8_t *mem, const uint64_t *ips, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        for (int b = 0; b < 8; b++) {
            mem[i * 8 + b] = (uint8_t)(ips[i] >> (8 * b));
        }
    }
    ev->stack = mem;
    ev->stack_size = n * 8;
}

static void feed(gcev_allocs *a, gcev_trace_event *ev)
{
    gcev_error e;
    assert_int_equal(gcev_allocs_add(a, ev, &e), GCEV_OK);
}

static void test_ticks_stacks_and_frames(void **state)
{
    (void)state;
    gcev_allocs *a;
    assert_int_equal(gcev_allocs_create(NULL, &a), GCEV_OK);
    /* allocations first: the rundown (method names) comes at the end of a trace */
    uint8_t mem[64];
    uint64_t s1[] = {0x1010, 0x2020, 0x9999}; /* Alloc <- Main <- unknown */
    uint64_t s2[] = {0x1020, 0x2030, 0x9999}; /* other addresses, same methods: merged */
    uint64_t s3[] = {0x3004};                 /* Other */
    for (int i = 0; i < 3; i++) {
        buf p = tick(100000, 0, "App.Order", 0xAA, 48);
        gcev_trace_event ev = event(10, 4, &p, 10.0 + i);
        set_stack(&ev, mem, i == 0 ? s1 : s2, 3);
        feed(a, &ev);
    }
    buf p = tick(300000, 1, "System.Byte[]", 0xBB, 100024);
    gcev_trace_event ev = event(10, 4, &p, 2500.0);
    set_stack(&ev, mem, s3, 1);
    feed(a, &ev);
    /* no stack */
    p = tick(50000, 0, "System.String", 0xCC, 0);
    ev = event(10, 4, &p, 2600.0);
    feed(a, &ev);

    buf m = module(0x77, "/app/bin/App.dll");
    ev = event(152, 1, &m, 3000);
    feed(a, &ev);
    m = method(0x1000, 0x100, "App.Program", "Alloc", "instance class App.Order  (int32)", 0x77);
    ev = event(143, 1, &m, 3000);
    feed(a, &ev);
    m = method(0x2000, 0x100, "App.Program", "Main", "void  ()", 0x77);
    ev = event(143, 1, &m, 3000);
    feed(a, &ev);
    feed(a, &ev); /* the rundown repeats it: one range */
    m = method(0x3000, 0x10, "", "Other", "", 0);
    ev = event(143, 1, &m, 3000);
    feed(a, &ev);
    assert_int_equal(gcev_allocs_finish(a), GCEV_OK);

    const gcev_allocs_summary *s = gcev_allocs_get_summary(a);
    assert_int_equal(s->source, GCEV_ALLOCS_TICK);
    assert_int_equal(s->samples, 5);
    assert_true(fabs(s->bytes - 650000) < 1e-6);
    assert_true(fabs(s->kind_bytes[GCEV_ALLOCS_LARGE] - 300000) < 1e-6);
    assert_int_equal(s->methods, 3);
    assert_int_equal(s->raw_stacks, 3);
    assert_int_equal(s->stackless, 1);
    assert_int_equal(s->frames_resolved, 5);
    assert_int_equal(s->frames_unresolved, 2);

    assert_int_equal(gcev_allocs_type_count(a), 3);
    const gcev_allocs_type *t = gcev_allocs_type_at(a, 0);
    assert_string_equal(t->name, "App.Order");
    assert_int_equal(t->est.samples, 3);
    assert_true(fabs(t->est.objects - 3 * 100000.0 / 48) < 1e-6);
    assert_true(fabs(t->est.share - 300000.0 / 650000) < 1e-9);
    assert_string_equal(gcev_allocs_type_at(a, 1)->name, "System.Byte[]");
    assert_int_equal(gcev_allocs_type_at(a, 1)->kind, GCEV_ALLOCS_LARGE);
    assert_int_equal(gcev_allocs_type_find(a, "System.String"), 2);
    assert_int_equal(gcev_allocs_type_find(a, "nope"), SIZE_MAX);

    /* two raw stacks merged into one */
    assert_int_equal(gcev_allocs_stack_count(a), 3);
    const gcev_allocs_stack *st = gcev_allocs_stack_at(a, 0);
    assert_int_equal(st->nframes, 3);
    assert_int_equal(st->est.samples, 3);
    assert_int_equal(st->site, 0);
    assert_string_equal(gcev_allocs_frame_at(a, st->frames[0])->name, "App!App.Program.Alloc(int32)");
    assert_string_equal(gcev_allocs_frame_at(a, st->frames[0])->method, "App.Program.Alloc(int32)");
    assert_string_equal(gcev_allocs_frame_at(a, st->frames[0])->module, "App");
    assert_string_equal(gcev_allocs_frame_at(a, st->frames[1])->name, "App!App.Program.Main()");
    assert_string_equal(gcev_allocs_frame_at(a, st->frames[2])->name, "0x9999");
    assert_int_equal(gcev_allocs_frame_at(a, st->frames[2])->kind, GCEV_ALLOCS_FRAME_UNRESOLVED);
    st = gcev_allocs_stack_at(a, 1);
    assert_string_equal(gcev_allocs_frame_at(a, st->frames[0])->name, "Other");
    assert_int_equal(gcev_allocs_stack_at(a, 2)->nframes, 0);
    assert_int_equal(gcev_allocs_pair_count(a), 3);
    assert_int_equal(gcev_allocs_pair_at(a, 0)->type, 0);

    gcev_allocs_frame f;
    char b[24];
    assert_int_equal(gcev_allocs_resolve(a, 0x10ff, &f, b, sizeof b), GCEV_ALLOCS_FRAME_METHOD);
    assert_string_equal(f.method, "App.Program.Alloc(int32)");
    assert_int_equal(gcev_allocs_resolve(a, 0x1100, &f, b, sizeof b), GCEV_ALLOCS_FRAME_UNRESOLVED);
    assert_string_equal(f.name, "0x1100");

    /* one thread; buckets of 1 s from 0 */
    assert_int_equal(gcev_allocs_thread_count(a), 1);
    assert_int_equal(gcev_allocs_thread_at(a, 0)->thread_id, 7);
    assert_int_equal(gcev_allocs_bucket_count(a), 3);
    assert_int_equal(gcev_allocs_bucket_at(a, 0)->samples, 3);
    assert_int_equal(gcev_allocs_bucket_at(a, 2)->samples, 2);
    assert_true(fabs(gcev_allocs_bucket_at(a, 2)->start_ms - 2000) < 1e-9);
    gcev_allocs_free(a);
}

static void test_sampled_estimate(void **state)
{
    (void)state;
    gcev_allocs *a;
    assert_int_equal(gcev_allocs_create(NULL, &a), GCEV_OK);
    buf p = sampled(2, "System.Byte[]", 0xBB, 100, 3);
    gcev_trace_event ev = event(303, 0, &p, 1);
    feed(a, &ev);
    /* a tick in the same trace: counted, not estimated from */
    p = tick(100000, 0, "App.Order", 0xAA, 48);
    ev = event(10, 4, &p, 1);
    feed(a, &ev);
    assert_int_equal(gcev_allocs_finish(a), GCEV_OK);
    const gcev_allocs_summary *s = gcev_allocs_get_summary(a);
    assert_int_equal(s->source, GCEV_ALLOCS_SAMPLED);
    assert_int_equal(s->events[GCEV_ALLOCS_TICK], 1);
    double p1 = 1.0 / 102400;
    double w = 1.0 / (1.0 - pow(1.0 - p1, 100));
    assert_true(fabs(s->objects - w) < 1e-6 * w);
    assert_true(fabs(s->bytes - 100 * w) < 1e-6 * w);
    assert_true(fabs(s->kind_bytes[GCEV_ALLOCS_PINNED] - 100 * w) < 1e-6 * w);
    assert_int_equal(gcev_allocs_type_count(a), 1);
    assert_int_equal(gcev_allocs_type_at(a, 0)->kind, GCEV_ALLOCS_PINNED);
    gcev_allocs_free(a);

    /* the source forced */
    gcev_allocs_options o = {0, GCEV_ALLOCS_TICK, 0, 0};
    assert_int_equal(gcev_allocs_create(&o, &a), GCEV_OK);
    p = sampled(0, "System.Byte[]", 0xBB, 100, 3);
    ev = event(303, 0, &p, 1);
    feed(a, &ev);
    assert_int_equal(gcev_allocs_finish(a), GCEV_OK);
    assert_int_equal(gcev_allocs_get_summary(a)->source, GCEV_ALLOCS_TICK);
    assert_int_equal(gcev_allocs_get_summary(a)->samples, 0);
    assert_int_equal(gcev_allocs_type_count(a), 0);
    gcev_allocs_free(a);
}

static void test_malformed_located(void **state)
{
    (void)state;
    gcev_allocs *a;
    assert_int_equal(gcev_allocs_create(NULL, &a), GCEV_OK);
    buf m = method(0x1000, 0x100, "App.Program", "Alloc", "()", 0x77);
    m.n = 8 + 8 + 8 + 4 + 4 + 4 + 12 * 2 + 4; /* cut inside MethodName */
    gcev_trace_event ev = event(143, 1, &m, 1);
    ev.file_offset = 4242;
    gcev_error e;
    assert_int_equal(gcev_allocs_add(a, &ev, &e), GCEV_E_UNTERMINATED_STRING);
    assert_string_equal(e.field, "MethodName");
    assert_int_equal(e.offset, 4242);
    m.n = 12; /* inside ModuleID */
    ev = event(143, 1, &m, 1);
    assert_int_equal(gcev_allocs_add(a, &ev, &e), GCEV_E_TRUNCATED);
    assert_string_equal(e.field, "ModuleID");
    buf t = tick(100000, 0, "App.Order", 0xAA, 48);
    t.n = 5;
    ev = event(10, 4, &t, 1);
    assert_int_not_equal(gcev_allocs_add(a, &ev, &e), GCEV_OK);
    /* other events pass */
    ev = event(1, 2, &t, 1);
    assert_int_equal(gcev_allocs_add(a, &ev, &e), GCEV_OK);
    assert_int_equal(gcev_allocs_finish(a), GCEV_OK);
    assert_int_equal(gcev_allocs_get_summary(a)->decode_errors, 3);
    const char *name;
    const gcev_error *fe = gcev_allocs_first_error(a, &name);
    assert_string_equal(name, "MethodLoadVerbose");
    assert_int_equal(fe->offset, 4242);
    /* finished: feeding is refused */
    assert_int_equal(gcev_allocs_add(a, &ev, &e), GCEV_E_INVALID_ARG);
    gcev_allocs_free(a);
}

static void test_process_filter_and_heap_alloc(void **state)
{
    (void)state;
    gcev_allocs_options o = {100, 0, 0, 0};
    gcev_allocs *a;
    assert_int_equal(gcev_allocs_create(&o, &a), GCEV_OK);
    /* GCSampledObjectAllocationHigh V0: Address, TypeID, count, total size, ClrInstanceID */
    buf p = {{0}, 0};
    u64(&p, 0x5000);
    u64(&p, 0xDD);
    u32(&p, 10);
    u64(&p, 480);
    u16(&p, 0);
    gcev_trace_event ev = event(20, 0, &p, 1);
    feed(a, &ev);
    ev.process_id = 200; /* another process: ignored */
    feed(a, &ev);
    assert_int_equal(gcev_allocs_finish(a), GCEV_OK);
    const gcev_allocs_summary *s = gcev_allocs_get_summary(a);
    assert_int_equal(s->source, GCEV_ALLOCS_HEAP_ALLOC);
    assert_int_equal(s->samples, 1);
    assert_true(fabs(s->objects - 10) < 1e-9);
    assert_string_equal(gcev_allocs_type_at(a, 0)->name, "<type id 0xdd>");
    gcev_allocs_free(a);
}

static void test_null_args(void **state)
{
    (void)state;
    assert_int_equal(gcev_allocs_create(NULL, NULL), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_allocs_add(NULL, NULL, NULL), GCEV_E_INVALID_ARG);
    assert_int_equal(gcev_allocs_finish(NULL), GCEV_E_INVALID_ARG);
    assert_null(gcev_allocs_get_summary(NULL));
    assert_int_equal(gcev_allocs_type_count(NULL), 0);
    assert_null(gcev_allocs_stack_at(NULL, 0));
    gcev_allocs_free(NULL);
    assert_string_equal(gcev_allocs_kind_name(2), "pinned");
    assert_string_equal(gcev_allocs_source_name(2), "sampled");
    gcev_allocs_sample s;
    buf p = tick(1, 0, "x", 1, 1);
    gcev_trace_event ev = event(1, 0, &p, 0);
    assert_int_equal(gcev_allocs_sample_of(&ev, &s, NULL), GCEV_E_UNKNOWN_EVENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ticks_stacks_and_frames),
        cmocka_unit_test(test_sampled_estimate),
        cmocka_unit_test(test_malformed_located),
        cmocka_unit_test(test_process_filter_and_heap_alloc),
        cmocka_unit_test(test_null_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
