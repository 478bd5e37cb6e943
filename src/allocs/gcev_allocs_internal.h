/* SPDX-License-Identifier: MIT */
/*
 * The allocation model's state (gcev_allocs.h). Raw records are kept per distinct key
 * while events are fed; gcev_allocs_finish() turns them into the public records:
 *
 *   rtype   (process, type id) or type name  -> merged by name into the public types
 *   rstack  distinct list of stack addresses -> named, merged by frame list into stacks
 *   rpair   (rstack, rtype)                  -> (stack, type) pairs
 *   thread  (process, thread id)
 *   bucket  time slice
 *   method  code range of a method event; module: id -> name; tname: type id -> BulkType name
 *
 * Every estimate is kept per source (gcev_allocs_source) until finish chooses one.
 */
#ifndef GCEV_ALLOCS_INTERNAL_H
#define GCEV_ALLOCS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <gcev/gcev_allocs.h>

enum { GA_SRC = GCEV_ALLOCS_SOURCE_COUNT_ };
/* "none" in a uint32_t index (an enum cannot hold it: C enumerators are ints) */
#define GA_NONE UINT32_MAX

/* ---- helpers (gcev_allocs_util.c) ---- */

/* Grows *p (elements of elem bytes, capacity *cap) to hold at least need; 0 when out of memory. */
int gcev_ga_reserve(void **p, size_t *cap, size_t need, size_t elem);

/* Open addressing over the low 32 bits of 64-bit hashes (a slot is 8 bytes: the maps are a
 * good part of the model's memory; every match is checked by the owner's eq); values are
 * indexes into the owner's records. */
typedef struct ga_slot {
    uint32_t h;
    uint32_t v; /* index + 1; 0 empty */
} ga_slot;
typedef struct ga_map {
    ga_slot *s;
    size_t cap, n; /* cap a power of two */
} ga_map;

typedef int (*ga_eq_fn)(const void *ctx, uint32_t index);
/* The index of the entry with hash h for which eq says yes, or GA_NONE. */
uint32_t gcev_ga_map_find(const ga_map *m, uint64_t h, ga_eq_fn eq, const void *ctx);
/* Adds index v under hash h; 0 when out of memory. */
int gcev_ga_map_put(ga_map *m, uint64_t h, uint32_t v);
void gcev_ga_map_free(ga_map *m);

uint64_t gcev_ga_hash_bytes(const void *p, size_t n, uint64_t seed);
static inline uint64_t ga_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb3f99e3b5ad8);
    x ^= x >> 33;
    return x;
}

/* Interned NUL-terminated strings; an id is the offset into buf (stable, buf may move). */
typedef struct ga_strings {
    char *buf;
    size_t n, cap;
    ga_map map;
} ga_strings;
/* The id of the string s[0, len) (added when new), or GA_NONE when out of memory. */
uint32_t gcev_ga_intern(ga_strings *st, const char *s, size_t len);
void gcev_ga_strings_free(ga_strings *st);

/* ---- payload readers (gcev_allocs_decode.c) ---- */

/* A method code range (MethodLoadVerbose & co.) */
typedef struct ga_method_ev {
    uint64_t method_id, module_id, start;
    uint32_t size, token, flags;
    gcev_utf16 ns, name, sig;
} ga_method_ev;

typedef struct ga_module_ev {
    uint64_t module_id;
    gcev_utf16 il_path, native_path;
} ga_module_ev;

typedef struct ga_entry_ev {
    uint64_t method_id, entry;
    gcev_utf16 ns, name, sig;
} ga_entry_ev;

gcev_status gcev_ga_read_method(const uint8_t *p, uint32_t n, ga_method_ev *out, gcev_error *err);
gcev_status gcev_ga_read_module(const uint8_t *p, uint32_t n, ga_module_ev *out, gcev_error *err);
gcev_status gcev_ga_read_entry(const uint8_t *p, uint32_t n, ga_entry_ev *out, gcev_error *err);

/* What an event is to the model. */
enum {
    GA_EV_OTHER = 0,
    GA_EV_TICK,
    GA_EV_SAMPLED,
    GA_EV_HEAP_HIGH,
    GA_EV_HEAP_LOW,
    GA_EV_BULK_TYPE,
    GA_EV_METHOD_LOAD,   /* MethodLoadVerbose, MethodDCStartVerbose, MethodDCEndVerbose */
    GA_EV_METHOD_UNLOAD, /* MethodUnloadVerbose: the range stays known for earlier samples */
    GA_EV_MODULE,
    GA_EV_ENTRY
};
typedef struct ga_providers {
    const gcev_provider *runtime, *rundown;
} ga_providers;
void gcev_ga_providers_init(ga_providers *pv);
int gcev_ga_classify(const gcev_trace_event *ev, const ga_providers *pv);
typedef struct ga_weight_slot ga_weight_slot;
/* gcev_allocs_sample_of() for an event already classified; wc: the model's weight cache, or NULL. */
gcev_status gcev_ga_sample(const gcev_trace_event *ev, int cls, gcev_allocs_sample *out, gcev_error *err,
                           ga_weight_slot *wc);
/* gcev_ga_sampled_fast(): the per-event path's reading (gcev_allocs_sampled.h) */
const char *gcev_ga_event_name(int cls);

/* ---- the model ---- */

/* One source's sums together: an event touches one source, so one cache line of each record. */
typedef struct ga_est1 {
    uint64_t samples;
    double bytes, objects;
} ga_est1;
typedef struct ga_est {
    ga_est1 s[GA_SRC];
} ga_est;

typedef struct ga_rtype {
    uint32_t name; /* string id, GA_NONE when the events name no type */
    uint32_t pid;
    uint64_t type_id;
    ga_est est;
    double kind_bytes[GA_SRC][GCEV_ALLOCS_KINDS];
    uint64_t min_size, max_size;
    uint32_t final; /* public type index (finish) */
} ga_rtype;

typedef struct ga_rstack {
    uint32_t off, n; /* addresses ips[off, off + n), innermost first */
    uint32_t final;  /* public stack index (finish) */
    /* the last two rpairs of this stack, the latest first, GA_NONE when none (a site allocates
     * one type or a few: two catch most of a site's events where one left a fifth to the map) */
    uint32_t pair[2];
} ga_rstack;

typedef struct ga_rpair {
    uint32_t stack, type; /* rstack (GA_NONE: no stack), rtype */
    ga_est est;
} ga_rpair;

typedef struct ga_thread {
    uint64_t tid;
    uint32_t pid;
    ga_est est;
} ga_thread;

typedef struct ga_bucket {
    uint64_t samples[GA_SRC];
    double bytes[GA_SRC];
    double kind_bytes[GA_SRC][GCEV_ALLOCS_KINDS];
} ga_bucket;

typedef struct ga_method {
    uint64_t start;
    uint32_t size;
    uint32_t name;   /* string id of "Namespace.Method" */
    uint64_t module; /* module id */
    uint32_t kind;   /* GCEV_ALLOCS_FRAME_METHOD or _ENTRY */
    uint32_t frame;  /* public frame index (finish), GA_NONE before */
} ga_method;

typedef struct ga_named {
    uint64_t id;
    uint32_t name; /* string id */
} ga_named;

/*
 * Direct-mapped caches in front of the maps, for the look-ups every allocation event makes
 * (entries hold indexes, never pointers into the model, and every hit is checked against the
 * record, so a stale entry only costs the map look-up):
 *   stack: the innermost and middle addresses and the depth -> rstack; a hit compares the
 *          addresses with the kept ones (keyed by content, not by the reader's pointer: the
 *          reader reads each stack again after every sequence point, at another place)
 *   type:  (type id, process) -> rtype;  thread: (thread id, process) -> thread
 *   weight: AllocationSampled object size -> objects per sample (expm1 per event otherwise)
 */
enum { GA_STACK_CACHE_BITS = 14, GA_TYPE_CACHE = 1024, GA_THREAD_CACHE = 64, GA_WEIGHT_CACHE = 1024 };
typedef struct ga_id_slot {
    uint64_t id;
    uint32_t pid, v; /* index + 1; 0 empty */
} ga_id_slot;
struct ga_weight_slot {
    uint64_t size; /* 0 empty */
    double objects;
};

struct gcev_allocs {
    gcev_allocs_options o;
    ga_providers pv;
    int finished;
    gcev_status finish_status;
    ga_strings str;

    ga_rtype *rtypes;
    size_t nrtypes, caprtypes;
    ga_map rtype_by_id, rtype_by_name;

    uint64_t *ips;
    size_t nips, capips;
    ga_rstack *rstacks;
    size_t nrstacks, caprstacks;
    ga_map rstack_map;

    ga_rpair *rpairs;
    size_t nrpairs, caprpairs;
    ga_map rpair_map;

    ga_thread *threads;
    size_t nthreads, capthreads;
    ga_map thread_map;

    ga_bucket *buckets;
    size_t nbuckets, capbuckets;
    double bucket_ms, bucket0_ms; /* width; start of bucket 0 */
    int have_bucket0;
    double bk_lo, bk_hi; /* every ms in [bk_lo, bk_hi] is in bucket bk_idx (bucket_add) */
    size_t bk_idx;

    ga_method *methods;
    size_t nmethods, capmethods;
    uint64_t *method_starts; /* finish: methods[i].start, for the frame search */
    uint32_t *method_index;  /* finish: first start of each bucket (method_at) */
    size_t method_buckets;
    unsigned method_shift;
    ga_map method_map; /* (start, size, name) dedup */
    ga_named *modules;
    size_t nmodules, capmodules;
    ga_map module_map;
    ga_named *tnames;
    size_t ntnames, captnames;
    ga_map tname_map;

    /* the last event's compiled provider (NULL: none kept), event id and class */
    const gcev_provider *cls_provider;
    uint16_t cls_event_id;
    int cls_last;

    uint32_t pids[64]; /* distinct sample processes (up to 64 named, more only counted) */
    uint32_t npids;

    uint32_t stack_cache[1u << GA_STACK_CACHE_BITS]; /* rstack index + 1; 0 empty */
    ga_id_slot type_cache[GA_TYPE_CACHE];
    ga_id_slot thread_cache[GA_THREAD_CACHE];
    uint32_t last_thread; /* the last sample's thread (index + 1; 0 none), checked first */
    ga_weight_slot weight_cache[GA_WEIGHT_CACHE];

    gcev_allocs_summary sum;
    uint64_t kind_samples[GA_SRC];
    double sum_bytes[GA_SRC], sum_objects[GA_SRC], sum_kind[GA_SRC][GCEV_ALLOCS_KINDS];
    uint64_t stackless[GA_SRC];
    double first_ms[GA_SRC], last_ms[GA_SRC];
    gcev_error first_err;
    const char *first_err_event;

    /* public results (finish) */
    gcev_allocs_type *types;
    size_t ntypes;
    gcev_allocs_frame *frames;
    size_t nframes;
    uint32_t *frame_ids; /* stacks' frame lists */
    gcev_allocs_stack *stacks;
    size_t nstacks;
    gcev_allocs_pair *pairs;
    size_t npairs;
    gcev_allocs_thread *pthreads;
    size_t npthreads;
    gcev_allocs_bucket *pbuckets;
    size_t npbuckets;
};

#endif
