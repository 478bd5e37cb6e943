/* SPDX-License-Identifier: MIT */
/*
 * The public trace API over the container readers (gcev_trace_impl.h):
 * detection, sticky errors, drop records, the ms clock, provider lookup and
 * the optional timestamp order (gcev_order.h).
 */
#define _POSIX_C_SOURCE 200809L /* stat */

#include "gcev_archive.h"
#include "gcev_ctf.h"
#include "gcev_compiler.h"
#include "gcev_error.h"
#include "gcev_order.h"
#include "gcev_reorder.h"
#include "gcev_etl.h"
#include "gcev_nettrace.h"
#include "gcev_sized.h"
#include "gcev_trace_core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* 80 = the ETL buffer header (72) + the first record's 8-byte system header
 * prefix, whose marker gcev_etl_detect checks. */
enum { GCEV_DETECT_BYTES = 80 };

/* The first layout of gcev_trace_options (gcev.h "Growable structs"). */
#define OPTIONS_V1 GCEV_SIZE_TO(gcev_trace_options, keep_going)

static gcev_status trace_fail(gcev_error *err, gcev_status code, uint64_t offset, const char *msg)
{
    return gcev_error_set(err, code, offset, NULL, msg);
}

const char *gcev_trace_format_name(gcev_trace_format f)
{
    switch (f) {
    case GCEV_FORMAT_NETPERF:
        return "netperf";
    case GCEV_FORMAT_NETTRACE:
        return "nettrace";
    case GCEV_FORMAT_ETL:
        return "etl";
    case GCEV_FORMAT_CTF:
        return "ctf";
    default:
        return "unknown";
    }
}

/* Appends s to buf[0..len) (capacity cap), cutting it to fit; returns the new length. */
static size_t msg_put(char *buf, size_t cap, size_t len, const char *s)
{
    size_t n = strlen(s);
    if (len + 1 >= cap) {
        return len;
    }
    if (n > cap - 1 - len) {
        n = cap - 1 - len;
    }
    memcpy(buf + len, s, n);
    buf[len + n] = '\0';
    return len + n;
}

/* Where the message of an open that failed lives once the trace is freed. */
static _Thread_local char open_msg[sizeof(((gcev_trace *)0)->msg)];

static int trace_name_is_trace(const char *name)
{
    static const char *const ext[] = {".etl", ".nettrace", ".netperf"};
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (base[0] == '.' && base[1] == '_') {
        return 0; /* macOS AppleDouble companions ("._trace.etl") are not traces */
    }
    size_t n = strlen(base);
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t k = strlen(ext[i]);
        if (n > k) {
            size_t j = 0;
            while (j < k && (base[n - k + j] | 0x20) == ext[i][j]) {
                j++;
            }
            if (j == k) {
                return 1;
            }
        }
    }
    return 0;
}

/* Appends the names of the archive's entries (traces only, or all) to t->msg. */
static void trace_list_entries(gcev_trace *t, size_t len, int traces_only)
{
    size_t n = gcev_archive_count(t->archive), shown = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        const gcev_archive_entry *e = gcev_archive_entry_at(t->archive, i);
        if (e->is_dir || (traces_only && !trace_name_is_trace(e->name))) {
            continue;
        }
        total++;
        /* stop while the rest still fits a ", ... (N more)" tail */
        if (len + strlen(e->name) + 40 < sizeof t->msg) {
            len = msg_put(t->msg, sizeof t->msg, len, shown ? ", " : "");
            len = msg_put(t->msg, sizeof t->msg, len, e->name);
            shown++;
        }
    }
    if (total == 0) {
        snprintf(t->msg + len, sizeof t->msg - len, "none");
    } else if (shown < total) {
        snprintf(t->msg + len, sizeof t->msg - len, "%s... (%zu more)", shown ? ", " : "", total - shown);
    }
}

static gcev_status trace_detect(gcev_trace *t, const char *path, int in_archive, gcev_error *err);

/* The entries of an archive as the CTF reader's file set (names live with the archive). */
typedef struct archive_files {
    gcev_archive *archive;
    size_t *index;
    const char **names;
} archive_files;

static gcev_status archive_files_open(void *ctx, size_t i, gcev_source *src, gcev_error *err)
{
    archive_files *f = ctx;
    return gcev_archive_open_entry(f->archive, f->index[i], src, err);
}

static void archive_files_free(void *ctx)
{
    archive_files *f = ctx;
    if (f) {
        free(f->index);
        free(f->names);
        free(f);
    }
}

/* An archive holding a CTF trace (a perfcollect .trace.zip): every file entry goes to the CTF reader. */
static gcev_status trace_open_archive_ctf(gcev_trace *t, gcev_error *err)
{
    size_t n = gcev_archive_count(t->archive), k = 0;
    archive_files *f = calloc(1, sizeof *f);
    if (!f || !(f->index = calloc(n ? n : 1, sizeof *f->index)) ||
        !(f->names = calloc(n ? n : 1, sizeof *f->names))) {
        archive_files_free(f);
        return trace_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    f->archive = t->archive;
    for (size_t i = 0; i < n; i++) {
        const gcev_archive_entry *e = gcev_archive_entry_at(t->archive, i);
        if (!e->is_dir) {
            f->index[k] = i;
            f->names[k] = e->name;
            k++;
        }
    }
    gcev_source_close(&t->src); /* the unmapped file's descriptor, when libzip opened the path */
    gcev_ctf_files files = {k, f->names, archive_files_open, f, archive_files_free};
    return gcev_ctf_open(t, &files, err);
}

/*
 * The input is a ZIP archive: open it over the source (or the file, when it
 * could not be mapped), pick the one trace entry and make it the source.
 */
static gcev_status trace_open_archive(gcev_trace *t, const char *path, gcev_error *err)
{
    gcev_status st;
    if (t->src.fd >= 0 && path) {
        st = gcev_archive_open_file(path, &t->archive, err);
    } else {
        st = gcev_archive_open_source(&t->src, &t->archive, err);
    }
    if (st != GCEV_OK) {
        return st;
    }
    size_t n = gcev_archive_count(t->archive), pick = n, traces = 0;
    for (size_t i = 0; i < n; i++) {
        const gcev_archive_entry *e = gcev_archive_entry_at(t->archive, i);
        const char *base = strrchr(e->name, '/');
        if (!e->is_dir && !strcmp(base ? base + 1 : e->name, "metadata")) {
            return trace_open_archive_ctf(t, err);
        }
    }
    for (size_t i = 0; i < n; i++) {
        const gcev_archive_entry *e = gcev_archive_entry_at(t->archive, i);
        if (!e->is_dir && trace_name_is_trace(e->name)) {
            traces++;
            pick = traces == 1 ? i : pick;
        }
    }
    if (traces != 1) {
        int w = traces == 0
                    ? snprintf(t->msg, sizeof t->msg,
                               "ZIP archive holds no .etl, .nettrace or .netperf entry; its entries: ")
                    : snprintf(t->msg, sizeof t->msg,
                               "ZIP archive holds %zu traces, gcev reads one (extract it): ", traces);
        trace_list_entries(t, (size_t)w, traces != 0);
        return trace_fail(err, GCEV_E_UNSUPPORTED, 0, t->msg);
    }
    gcev_source_close(&t->src); /* the unmapped file's descriptor, when libzip opened the path */
    st = gcev_archive_open_entry(t->archive, pick, &t->src, err);
    if (st != GCEV_OK) {
        return st;
    }
    if (t->opts.max_block_size) {
        t->src.max_take = t->opts.max_block_size;
    }
    t->info.archive_entry = gcev_archive_entry_at(t->archive, pick)->name;
    uint64_t packed = gcev_archive_entry_at(t->archive, pick)->compressed_size;
    t->skip_budget = GCEV_SKIP_BUDGET_BASE +
                     (packed < UINT64_MAX / 16 ? packed * GCEV_SKIP_BUDGET_PER_BYTE : UINT64_MAX / 2);
    return trace_detect(t, NULL, 1, err);
}

/* Detects the container and lets its reader parse the header. */
static gcev_status trace_detect(gcev_trace *t, const char *path, int in_archive, gcev_error *err)
{
    const uint8_t *head = NULL;
    size_t got = 0;
    gcev_status st = gcev_source_peek(&t->src, GCEV_DETECT_BYTES, &head, &got, err);
    if (st != GCEV_OK) {
        return st;
    }
    if (got && gcev_archive_detect(head, got)) {
        if (in_archive) {
            return trace_fail(err, GCEV_E_UNSUPPORTED, 0, "a ZIP archive inside a ZIP archive is not read");
        }
        return trace_open_archive(t, path, err);
    }
    if (got && gcev_nettrace_detect(head, got)) {
        return gcev_nettrace_open(t, err);
    }
    if (got && gcev_etl_detect(head, got)) {
        return gcev_etl_open(t, err);
    }
    if (got == 0) {
        return trace_fail(err, GCEV_E_TRUNCATED_FILE, 0, "empty input: no trace header");
    }
    return trace_fail(
        err, GCEV_E_UNSUPPORTED, 0,
        "not a trace: supported are .nettrace (V4-V6), .netperf (V1-V3), .etl (also in a .zip)");
}

/* Prefixes a message with the archive entry it is about ("ZIP entry 'x.etl': ..."). */
static const char *trace_entry_message(gcev_trace *t, const char *msg)
{
    if (!t->info.archive_entry) {
        return msg;
    }
    char inner[sizeof t->msg];
    msg_put(inner, sizeof inner, 0, msg ? msg : "");
    size_t len = msg_put(t->msg, sizeof t->msg, 0, "ZIP entry '");
    len = msg_put(t->msg, sizeof t->msg, len, t->info.archive_entry);
    len = msg_put(t->msg, sizeof t->msg, len, "': ");
    msg_put(t->msg, sizeof t->msg, len, inner);
    return t->msg;
}

/* Whether gcev_trace_next / gcev_trace_next_lean may take their hot paths (gcev_trace.next_fast,
 * lean_fast): after open, and whenever the sticky status or a batch's pending fault changes. */
static void trace_fast_update(gcev_trace *t)
{
    t->next_fast =
        !t->order && !t->reorder && t->finishes_event && t->sticky == GCEV_OK && t->lean_pending == GCEV_OK;
    t->lean_fast = t->next_fast && t->ops->next_lean;
}

/* Opens the trace in t->src (path: the file's, when it has one), or the folder at path
 * (folder = 1: a CTF trace tree). Takes ownership of t. */
static gcev_status trace_start(gcev_trace *t, const char *path, int folder, const gcev_trace_options *opts,
                               gcev_trace **out, gcev_error *err)
{
    gcev_status st = gcev_sized_in(&t->opts, sizeof t->opts, opts, OPTIONS_V1);
    if (st != GCEV_OK) {
        gcev_trace_close(t);
        return trace_fail(
            err, st, 0,
            st == GCEV_E_INVALID_ARG
                ? "gcev_trace_options.struct_size is from 1 to 3"
                : "gcev_trace_options sets an option this library does not know (past its size)");
    }
    if (t->opts.max_block_size) {
        t->src.max_take = t->opts.max_block_size;
    }
    t->info.pointer_size = 8;
    gcev_error e = {0};
    st = folder ? gcev_ctf_open_dir(t, path, &e) : trace_detect(t, path, 0, &e);
    int64_t mark;
    if (st == GCEV_OK && t->opts.order == GCEV_TRACE_ORDER_STREAM && t->ops->sorted_before &&
        t->ops->sorted_before(t, &mark)) {
        t->reorder = gcev_reorder_create(0, t->src.max_take);
        if (!t->reorder) {
            st = trace_fail(&e, GCEV_E_NOMEM, 0, "out of memory");
        }
    } else if (st == GCEV_OK &&
               (t->opts.order == GCEV_TRACE_ORDER_TIME || t->opts.order == GCEV_TRACE_ORDER_STREAM) &&
               !t->time_ordered) {
        t->order = gcev_order_create(0, t->src.max_take);
        if (!t->order) {
            st = trace_fail(&e, GCEV_E_NOMEM, 0, "out of memory");
        }
    }
    if (st != GCEV_OK) {
        /* the message may live in t, which goes now */
        msg_put(open_msg, sizeof open_msg, 0,
                trace_entry_message(t, e.message ? e.message : gcev_status_str(st)));
        e.message = open_msg;
        if (err) {
            *err = e;
        }
        int os_errno = t->src.os_errno;
        gcev_trace_close(t);
        if (st == GCEV_E_IO && os_errno) {
            errno = os_errno; /* the OS's reason, as documented */
        }
        return st;
    }
    if (t->info.format != GCEV_FORMAT_CTF) {
        t->info.file_size = t->src.size; /* CTF: the reader adds up its files */
    }
    trace_fast_update(t);
    *out = t;
    return GCEV_OK;
}

static gcev_trace *trace_alloc(void)
{
    gcev_trace *t = calloc(1, sizeof *t);
    if (t) {
        t->sticky = GCEV_OK;
        t->lean_pending = GCEV_OK;
        t->src.fd = -1;
    }
    return t;
}

gcev_status gcev_trace_open_file(const char *path, const gcev_trace_options *opts, gcev_trace **out,
                                 gcev_error *err)
{
    if (!out || !path) {
        return trace_fail(err, GCEV_E_INVALID_ARG, 0, "path and out are required");
    }
    *out = NULL;
    gcev_trace *t = trace_alloc();
    if (!t) {
        return trace_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        return trace_start(t, path, 1, opts, out, err); /* an LTTng (CTF) trace folder */
    }
    /* A NetTrace file walked once in file order (no keep-going, which looks ahead and back
     * over a whole file) is read through a window of about a block (gcev_source.h); options
     * that do not read are reported by trace_start. */
    gcev_trace_options o;
    const int once = gcev_sized_in(&o, sizeof o, opts, OPTIONS_V1) == GCEV_OK &&
                     o.order == GCEV_TRACE_ORDER_FILE && !o.keep_going;
    gcev_status st = gcev_source_init_file_once(&t->src, path, once ? GCEV_NETTRACE_MAGIC : NULL,
                                                once ? sizeof GCEV_NETTRACE_MAGIC - 1 : 0, err);
    if (st != GCEV_OK) {
        int os_errno = t->src.os_errno;
        free(t);
        if (os_errno) {
            errno = os_errno;
        }
        return st;
    }
    return trace_start(t, path, 0, opts, out, err);
}

gcev_status gcev_trace_open_memory(const void *data, size_t size, const gcev_trace_options *opts,
                                   gcev_trace **out, gcev_error *err)
{
    if (!out || (!data && size)) {
        return trace_fail(err, GCEV_E_INVALID_ARG, 0,
                          "out is required; data may be NULL only when size is 0");
    }
    *out = NULL;
    gcev_trace *t = trace_alloc();
    if (!t) {
        return trace_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    gcev_source_init_memory(&t->src, data, size);
    return trace_start(t, NULL, 0, opts, out, err);
}

gcev_status gcev_trace_open_reader(gcev_read_fn read, void *ctx, const gcev_trace_options *opts,
                                   gcev_trace **out, gcev_error *err)
{
    if (!out || !read) {
        return trace_fail(err, GCEV_E_INVALID_ARG, 0, "read function and out are required");
    }
    *out = NULL;
    gcev_trace *t = trace_alloc();
    if (!t) {
        return trace_fail(err, GCEV_E_NOMEM, 0, "out of memory");
    }
    gcev_source_init_reader(&t->src, read, ctx);
    return trace_start(t, NULL, 0, opts, out, err);
}

const gcev_trace_info *gcev_trace_get_info(const gcev_trace *t)
{
    return t ? &t->info : NULL;
}

/* The fields every reader leaves to this layer: ms and the compiled provider. */
static inline void trace_finish_event(gcev_trace *t, gcev_trace_event *ev)
{
    if (t->finishes_event) {
        return;
    }
    ev->ms = gcev_trace_ms(t, ev->timestamp);
    if (!ev->provider && !t->provider_resolved) {
        if (ev->has_provider_guid) {
            ev->provider = gcev_provider_find_guid(&ev->provider_guid);
        }
        if (!ev->provider && ev->provider_name && ev->provider_name[0]) {
            ev->provider = gcev_provider_find(ev->provider_name);
        }
    }
}

/* Records the reader's end or fault as the trace's sticky result. */
static void trace_record(gcev_trace *t, gcev_status st, const gcev_error *e)
{
    t->sticky = st;
    trace_fast_update(t);
    if (e && e->message) {
        t->sticky_err = *e;
    } else {
        t->sticky_err.offset = gcev_source_pos(&t->src);
        t->sticky_err.field = NULL;
        t->sticky_err.message = gcev_status_str(st);
    }
    t->sticky_err.code = st;
    if (st != GCEV_END) {
        t->sticky_err.message = trace_entry_message(t, t->sticky_err.message);
    }
}

/* errno after a GCEV_E_IO is the OS's reason (gcev_trace.h), however late the error is returned. */
static gcev_status trace_errno(const gcev_trace *t, gcev_status st)
{
    if (st == GCEV_E_IO && t->src.os_errno) {
        errno = t->src.os_errno;
    }
    return st;
}

static GCEV_NOINLINE gcev_status trace_stick(gcev_trace *t, gcev_status st, const gcev_error *e,
                                             gcev_error *err)
{
    trace_record(t, st, e);
    if (err) {
        *err = t->sticky_err;
    }
    return trace_errno(t, st);
}

/* What gcev_trace_next leaves in an event before the reader fills it. */
static void trace_prepare(const gcev_trace *t, gcev_trace_event *ev)
{
    if (!t->fills_event) {
        memset(ev, 0, sizeof *ev);
    } else {
        /* members added after the reader's fill_event() was written */
        ev->no_event_id = 0;
        ev->process_name = NULL;
        ev->kind = NULL;
    }
}

/* The reader's next event, read past faults when keep-going. */
static inline gcev_status trace_read(gcev_trace *t, gcev_trace_event *ev, gcev_error *e)
{
    gcev_status st = t->ops->next(t, ev, e);
    if (st != GCEV_OK && st != GCEV_END && t->opts.keep_going) {
        st = gcev_trace_resume(t, st, e, ev, t->ops);
    }
    return st;
}

/*
 * The buffered orders share one loop: ORDER_TIME (gcev_order: events wait for the barrier at
 * the end or at a fault, then leave in timestamp order) and ORDER_STREAM (gcev_reorder:
 * events wait until the reader's watermark passes them). These three say which.
 */
/* The next event ready to leave: 1, 0 when none yet, -1 out of memory. */
static int buffered_pop(gcev_trace *t, gcev_trace_event *ev)
{
    return t->order ? gcev_order_pop(t->order, ev) : gcev_reorder_pop(t->reorder, ev);
}

/* Holds one read event; a stream releases what the reader's watermark says is in order. */
static gcev_status buffered_push(gcev_trace *t, const gcev_trace_event *ev)
{
    if (t->order) {
        return gcev_order_push(t->order, ev);
    }
    gcev_status st = gcev_reorder_push(t->reorder, ev);
    int64_t mark;
    if (st == GCEV_OK && t->ops->sorted_before && t->ops->sorted_before(t, &mark)) {
        gcev_reorder_release_to(t->reorder, mark);
    }
    return st;
}

/* The end or a fault: everything held may leave. */
static void buffered_release_all(gcev_trace *t)
{
    if (t->order) {
        gcev_order_barrier(t->order);
    } else {
        gcev_reorder_release_all(t->reorder);
    }
}

static gcev_status trace_next_buffered(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    for (;;) {
        int r = buffered_pop(t, ev);
        if (r > 0) {
            return GCEV_OK;
        }
        if (r < 0) {
            return trace_stick(t, GCEV_E_NOMEM, NULL, err);
        }
        if (t->sticky != GCEV_OK) {
            if (err) {
                *err = t->sticky_err;
            }
            return trace_errno(t, t->sticky);
        }
        gcev_error e = {0};
        gcev_trace_event tmp;
        memset(&tmp, 0, sizeof tmp);
        gcev_status st = trace_read(t, &tmp, &e);
        if (st == GCEV_OK) {
            trace_finish_event(t, &tmp);
            st = buffered_push(t, &tmp);
            if (st != GCEV_OK) {
                return trace_stick(t, st, NULL, err);
            }
            continue;
        }
        /* End or fault: release what is held first, then report it. */
        trace_record(t, st, &e);
        buffered_release_all(t);
    }
}

static GCEV_NOINLINE gcev_status trace_next_slow(gcev_trace *t, gcev_trace_event *ev, gcev_error *err);

/* gcev_trace_next() but for the reserved room of the event. */
static inline gcev_status trace_next_whole(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    /* The walk's hot path: file order, no error yet, a reader that fills the whole
     * event and its ms (t->finishes_event); the rest is trace_next_slow. */
    if (t && ev && t->next_fast) {
        t->lean_state = 0; /* gcev_trace_lean_event: no lean event is current */
        gcev_error e;
        e.message = NULL; /* a reader that fails sets all of e; trace_record tells when it did not */
        gcev_status st = t->ops->next(t, ev, &e);
        if (st == GCEV_OK) {
            return GCEV_OK;
        }
        if (t->opts.keep_going && st != GCEV_END &&
            (st = gcev_trace_resume(t, st, &e, ev, t->ops)) == GCEV_OK) {
            return GCEV_OK;
        }
        return trace_stick(t, st, &e, err);
    }
    return trace_next_slow(t, ev, err);
}

gcev_status gcev_trace_next(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    gcev_status st = trace_next_whole(t, ev, err);
    if (ev) {
        /* the room later members come from reads 0 (gcev_trace.h) */
        memset(ev->reserved_, 0, sizeof ev->reserved_);
    }
    return st;
}

/* The fault a batch stopped at after its events (gcev_trace_next_lean_batch), taken. */
static gcev_status trace_take_pending(gcev_trace *t, gcev_error *e)
{
    gcev_status st = t->lean_pending;
    *e = t->lean_pending_err;
    t->lean_pending = GCEV_OK;
    trace_fast_update(t);
    return st;
}

/* A lean record the caller sized for this layout or a later one (0: the first layout). */
static inline int lean_size_ok(const gcev_trace_lean *l)
{
    return l->struct_size == 0 || l->struct_size >= sizeof *l;
}

/* The lean members of a full record. */
static void lean_from_full(gcev_trace_lean *l, const gcev_trace_event *e)
{
    l->event_id = e->event_id;
    l->version = e->version;
    l->provider = e->provider;
    l->kind = e->kind;
    l->timestamp = e->timestamp;
    l->thread_id = e->thread_id;
    l->payload = e->payload;
    l->payload_size = e->payload_size;
    l->pointer_size = e->pointer_size;
    l->no_event_id = e->no_event_id;
}

gcev_status gcev_trace_next_lean(gcev_trace *t, gcev_trace_lean *ev, gcev_error *err)
{
    /* the reader's lean path where gcev_trace_next would take its hot path */
    if (t && ev && t->lean_fast && lean_size_ok(ev)) {
        gcev_error e;
        e.message = NULL;
        int full = 0;
        gcev_status st = t->ops->next_lean(t, ev, &t->lean_full, &full, &e);
        if (st == GCEV_OK) {
            if (full) {
                lean_from_full(ev, &t->lean_full);
            }
            t->lean_state = full ? 1 : 2;
            return GCEV_OK;
        }
        t->lean_state = 0;
        if (t->opts.keep_going && st != GCEV_END &&
            (st = gcev_trace_resume(t, st, &e, &t->lean_full, t->ops)) == GCEV_OK) {
            lean_from_full(ev, &t->lean_full);
            t->lean_state = 1;
            return GCEV_OK;
        }
        return trace_stick(t, st, &e, err);
    }
    if (!t || !ev || !lean_size_ok(ev)) {
        return trace_fail(err, GCEV_E_INVALID_ARG, 0, "trace and a lean record of its size are required");
    }
    gcev_status st = gcev_trace_next(t, &t->lean_full, err);
    if (st == GCEV_OK) {
        lean_from_full(ev, &t->lean_full);
        t->lean_state = 1;
    }
    return st;
}

gcev_status gcev_trace_next_lean_batch(gcev_trace *t, gcev_trace_lean *evs, size_t cap, size_t *n,
                                       gcev_error *err)
{
    if (n) {
        *n = 0;
    }
    if (!t || !evs || !n || !cap || (evs[0].struct_size != 0 && evs[0].struct_size != sizeof *evs)) {
        return trace_fail(
            err, GCEV_E_INVALID_ARG, 0,
            "trace, lean records of this release's size (an array steps by it), n and cap > 0 are required");
    }
    gcev_error e;
    e.message = NULL;
    gcev_status st;
    if (t->lean_pending != GCEV_OK) {
        /* the fault the previous batch stopped at */
        st = trace_take_pending(t, &e);
    } else if (t->lean_fast && t->ops->next_lean_batch) {
        size_t k = 0;
        st = t->ops->next_lean_batch(t, evs, cap, &k, &e);
        if (k) {
            /* (the reader set every record's struct_size to evs[0]'s) */
            t->lean_state = 2;
            if (st != GCEV_OK && st != GCEV_END) {
                t->lean_pending = st; /* every read call reports it next */
                t->lean_pending_err = e;
                trace_fast_update(t);
                /* the fault's header was parsed over the last event's state: its full record
                 * is gone (gcev_trace_lean_event says NULL) */
                t->lean_state = 0;
            }
            *n = k;
            return GCEV_OK;
        }
        if (st == GCEV_OK || st == GCEV_END) {
            st = gcev_trace_next_lean(t, evs, err); /* no lean path here: one event, ordinarily */
            *n = st == GCEV_OK;
            return st;
        }
    } else {
        st = gcev_trace_next_lean(t, evs, err);
        *n = st == GCEV_OK;
        return st;
    }
    /* a fault: as gcev_trace_next_lean handles it */
    t->lean_state = 0;
    if (t->opts.keep_going && st != GCEV_END &&
        (st = gcev_trace_resume(t, st, &e, &t->lean_full, t->ops)) == GCEV_OK) {
        lean_from_full(evs, &t->lean_full);
        t->lean_state = 1;
        *n = 1;
        return GCEV_OK;
    }
    return trace_stick(t, st, &e, err);
}

const gcev_trace_event *gcev_trace_kind_record(const gcev_trace *t, const void *kind)
{
    return t && kind && t->ops->kind_record ? t->ops->kind_record(t, kind) : NULL;
}

const gcev_trace_event *gcev_trace_lean_event(gcev_trace *t)
{
    if (!t || !t->lean_state) {
        return NULL;
    }
    if (t->lean_state == 2) {
        t->ops->lean_fill(t, &t->lean_full);
        t->lean_state = 1;
    }
    return &t->lean_full;
}

static GCEV_NOINLINE gcev_status trace_next_slow(gcev_trace *t, gcev_trace_event *ev, gcev_error *err)
{
    if (!t || !ev) {
        return trace_fail(err, GCEV_E_INVALID_ARG, 0, "trace and event are required");
    }
    t->lean_state = 0;
    if (t->order || t->reorder) {
        return trace_next_buffered(t, ev, err);
    }
    if (t->sticky != GCEV_OK) {
        if (err) {
            *err = t->sticky_err;
        }
        return trace_errno(t, t->sticky);
    }
    trace_prepare(t, ev);
    gcev_error e;
    e.message = NULL;
    gcev_status st;
    if (t->lean_pending != GCEV_OK) {
        /* a batch stopped at this fault after its events: as trace_read reports a fault */
        st = trace_take_pending(t, &e);
        if (t->opts.keep_going) {
            st = gcev_trace_resume(t, st, &e, ev, t->ops);
        }
    } else {
        st = trace_read(t, ev, &e);
    }
    if (st == GCEV_OK) {
        trace_finish_event(t, ev);
        return GCEV_OK;
    }
    return trace_stick(t, st, &e, err);
}

uint64_t gcev_trace_dropped_events(const gcev_trace *t)
{
    return t ? t->dropped_total : 0;
}

size_t gcev_trace_drop_count(const gcev_trace *t)
{
    return t ? t->ndrops : 0;
}

uint64_t gcev_trace_bytes_read(const gcev_trace *t)
{
    return t && t->info.format != GCEV_FORMAT_CTF ? gcev_source_pos(&t->src) : 0;
}

const gcev_trace_drop *gcev_trace_drop_at(const gcev_trace *t, size_t i)
{
    return (t && i < t->ndrops) ? &t->drops[i] : NULL;
}

size_t gcev_trace_skip_count(const gcev_trace *t)
{
    return t ? t->nskips : 0;
}

const gcev_trace_skip *gcev_trace_skip_at(const gcev_trace *t, size_t i)
{
    return (t && i < t->nskips) ? &t->skips[i] : NULL;
}

uint64_t gcev_trace_skipped_ranges(const gcev_trace *t)
{
    return t ? t->skipped_ranges : 0;
}

uint64_t gcev_trace_skipped_bytes(const gcev_trace *t)
{
    return t ? t->skipped_bytes : 0;
}

gcev_status gcev_trace_set_filter(gcev_trace *t, const gcev_trace_filter *f, gcev_error *err)
{
    if (!t) {
        return trace_fail(err, GCEV_E_INVALID_ARG, 0, "trace is required");
    }
    gcev_filter *c = NULL;
    if (f) {
        gcev_status st = gcev_filter_compile(f, &c, err);
        if (st != GCEV_OK) {
            return st;
        }
    }
    gcev_filter_free(t->filter);
    t->filter = c;
    t->filter_gen++; /* every cached verdict is stale */
    return GCEV_OK;
}

uint64_t gcev_trace_filtered_events(const gcev_trace *t)
{
    return t ? t->filtered : 0;
}

int gcev_trace_filtered_span(const gcev_trace *t, double *first_ms, double *last_ms)
{
    if (!t || !t->filtered) {
        return 0;
    }
    /* as gcev_trace_ms computes an event's ms, from the differences it orders by */
    double f = (double)t->info.clock_frequency;
    double lo = t->info.clock_frequency ? (double)t->filtered_min_d * 1000.0 / f : 0.0;
    double hi = t->info.clock_frequency ? (double)t->filtered_max_d * 1000.0 / f : 0.0;
    if (first_ms) {
        *first_ms = lo;
    }
    if (last_ms) {
        *last_ms = hi;
    }
    return 1;
}

void gcev_trace_close(gcev_trace *t)
{
    if (!t) {
        return;
    }
    if (t->ops && t->ops->destroy) {
        t->ops->destroy(t);
    }
    gcev_order_destroy(t->order);
    gcev_reorder_destroy(t->reorder);
    gcev_filter_free(t->filter);
    gcev_source_close(&t->src);
    gcev_archive_close(t->archive);
    free(t->drops);
    free(t->skips);
    free(t->skip_text);
    free(t);
}
