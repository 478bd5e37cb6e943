/* SPDX-License-Identifier: MIT */
/* TraceLogging schemas in ETL event records (see gcev_etl_tracelogging.h). */
#include "gcev_etl_tracelogging.h"

#include <stdlib.h>
#include <string.h>

#include "gcev_read.h"

/* Bounds of the cache: distinct schemas and bytes kept (copies + trees). */
enum { TL_MAX_SCHEMAS = 65536, TL_MAX_BYTES = 64u << 20 };

typedef struct tl_entry {
    uint64_t hash;
    uint32_t size; /* bytes of meta */
    uint8_t *meta; /* private copy; names point into it */
    gcev_etl_tl_schema schema;
    gcev_trace_field *nodes; /* all fields, top level first (breadth first) */
} tl_entry;

/* A field as read from the flat metadata list, before the tree is built. */
typedef struct tl_flat {
    const char *name;
    uint8_t in;
    uint8_t out;    /* out-type (low 7 bits of the out byte), 0 when absent */
    uint8_t nchild; /* struct members that follow */
    uint16_t count; /* constant count (GCEV_TL_IN_CCOUNT) */
    uint32_t span;  /* this field and all its members */
} tl_flat;

struct gcev_etl_tl_cache {
    tl_entry *entries;
    size_t nentries, cap_entries;
    uint32_t *slots; /* open addressing: entry index + 1, 0 = empty */
    size_t nslots;
    size_t bytes;
    tl_flat *flat;   /* scratch for one schema */
    uint32_t *order; /* scratch: flat index of each tree node */
    size_t cap_flat;
};

gcev_etl_tl_cache *gcev_etl_tl_cache_create(void)
{
    return calloc(1, sizeof(gcev_etl_tl_cache));
}

void gcev_etl_tl_cache_destroy(gcev_etl_tl_cache *c)
{
    if (!c) {
        return;
    }
    for (size_t i = 0; i < c->nentries; i++) {
        free(c->entries[i].meta);
        free(c->entries[i].nodes);
    }
    free(c->entries);
    free(c->slots);
    free(c->flat);
    free(c->order);
    free(c);
}

static uint64_t tl_hash(const uint8_t *p, uint32_t n)
{
    uint64_t h = 14695981039346656037u; /* FNV-1a */
    for (uint32_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 1099511628211u;
    }
    return h;
}

/* A NUL-terminated string at meta[*pos] ending before `end`; advances past the NUL. */
static const char *tl_string(const uint8_t *meta, uint32_t *pos, uint32_t end)
{
    const uint8_t *nul = memchr(meta + *pos, 0, end - *pos);
    if (!nul) {
        return NULL;
    }
    const char *s = (const char *)(meta + *pos);
    *pos = (uint32_t)(nul - meta) + 1;
    return s;
}

/* Skips a tag field: 1-4 bytes, the high bit of each saying another follows. */
static int tl_skip_tags(const uint8_t *meta, uint32_t *pos, uint32_t end)
{
    for (int i = 0; i < 4; i++) {
        if (*pos >= end) {
            return 0;
        }
        if (!(meta[(*pos)++] & 0x80)) {
            return 1;
        }
    }
    return 0;
}

static gcev_status tl_reserve_flat(gcev_etl_tl_cache *c, size_t n)
{
    if (n <= c->cap_flat) {
        return GCEV_OK;
    }
    size_t cap = c->cap_flat ? c->cap_flat * 2 : 64;
    while (cap < n) {
        cap *= 2;
    }
    tl_flat *f = realloc(c->flat, cap * sizeof *f);
    if (!f) {
        return GCEV_E_NOMEM;
    }
    c->flat = f;
    uint32_t *o = realloc(c->order, cap * sizeof *o);
    if (!o) {
        return GCEV_E_NOMEM;
    }
    c->order = o;
    c->cap_flat = cap;
    return GCEV_OK;
}

/*
 * Reads the field list of meta[pos..end) into c->flat. Each field takes at least
 * 2 bytes (empty name + in-type), so there are at most (end - pos) / 2.
 */
static gcev_status tl_read_fields(gcev_etl_tl_cache *c, const uint8_t *meta, uint32_t pos, uint32_t end,
                                  size_t *count, const char **msg)
{
    size_t n = 0;
    gcev_status st = tl_reserve_flat(c, (end - pos) / 2 + 1);
    if (st != GCEV_OK) {
        return st;
    }
    while (pos < end) {
        tl_flat *f = &c->flat[n];
        f->name = tl_string(meta, &pos, end);
        if (!f->name || pos >= end) {
            *msg = "TraceLogging field name or type runs past the schema";
            return GCEV_E_FORMAT;
        }
        f->in = meta[pos++];
        f->out = 0;
        f->nchild = 0;
        f->count = 0;
        f->span = 1;
        if (f->in & GCEV_TL_IN_CHAIN) {
            if (pos >= end) {
                *msg = "TraceLogging field out-type runs past the schema";
                return GCEV_E_FORMAT;
            }
            uint8_t out = meta[pos++];
            if ((f->in & GCEV_TL_IN_TYPE_MASK) == GCEV_TL_IN_STRUCT) {
                f->nchild = out & 0x7f;
            } else {
                f->out = out & 0x7f;
            }
            if ((out & GCEV_TL_OUT_CHAIN) && !tl_skip_tags(meta, &pos, end)) {
                *msg = "TraceLogging field tags run past the schema";
                return GCEV_E_FORMAT;
            }
        }
        uint32_t count_kind = f->in & GCEV_TL_IN_COUNT_MASK;
        if (count_kind == GCEV_TL_IN_CCOUNT || count_kind == GCEV_TL_IN_CUSTOM) {
            if (end - pos < 2) {
                *msg = "TraceLogging field count runs past the schema";
                return GCEV_E_FORMAT;
            }
            uint32_t v = gcev_rd_u16le(meta + pos);
            pos += 2;
            f->count = (uint16_t)v;
            if (count_kind == GCEV_TL_IN_CUSTOM) {
                /* v is the size of the custom serializer's own type description */
                if (end - pos < v) {
                    *msg = "TraceLogging custom type info runs past the schema";
                    return GCEV_E_FORMAT;
                }
                pos += v;
            }
        }
        n++;
    }
    *count = n;
    return GCEV_OK;
}

/*
 * Turns the flat pre-order list (a struct is followed by its members) into
 * trees whose children sit in contiguous arrays, without recursion: spans are
 * computed backwards, then nodes are placed breadth first.
 */
static gcev_status tl_build_tree(gcev_etl_tl_cache *c, size_t n, gcev_trace_field *nodes, uint32_t *ntop,
                                 const char **msg)
{
    tl_flat *flat = c->flat;
    size_t members = 0;
    for (size_t i = 0; i < n; i++) {
        members += flat[i].nchild;
    }
    if (n && members >= n) { /* every member has one parent; roots have none */
        *msg = "TraceLogging struct declares more members than fields follow";
        return GCEV_E_FORMAT;
    }
    for (size_t i = n; i-- > 0;) {
        size_t j = i + 1;
        uint32_t span = 1;
        for (uint32_t k = 0; k < flat[i].nchild; k++) {
            if (j >= n) {
                *msg = "TraceLogging struct declares more members than fields follow";
                return GCEV_E_FORMAT;
            }
            span += flat[j].span;
            j += flat[j].span;
        }
        flat[i].span = span;
    }
    uint32_t *order = c->order;
    size_t placed = 0;
    for (size_t j = 0; j < n; j += flat[j].span) {
        order[placed++] = (uint32_t)j;
    }
    *ntop = (uint32_t)placed;
    for (size_t k = 0; k < placed; k++) {
        const tl_flat *f = &flat[order[k]];
        gcev_trace_field *node = &nodes[k];
        uint32_t type = f->in & GCEV_TL_IN_TYPE_MASK;
        uint32_t count_kind = f->in & GCEV_TL_IN_COUNT_MASK;
        node->name = f->name;
        node->type_code = type;
        node->array_type_code =
            (count_kind == GCEV_TL_IN_CCOUNT || count_kind == GCEV_TL_IN_VCOUNT) ? type : 0;
        node->fixed_count = count_kind == GCEV_TL_IN_CCOUNT ? f->count : 0;
        node->out_type = f->out;
        node->flags = (uint8_t)((count_kind == GCEV_TL_IN_CCOUNT ? GCEV_FIELD_FIXED_COUNT : 0) |
                                (count_kind == GCEV_TL_IN_CUSTOM ? GCEV_FIELD_CUSTOM : 0));
        node->nfields = f->nchild;
        node->fields = f->nchild ? &nodes[placed] : NULL;
        size_t j = order[k] + 1;
        for (uint32_t m = 0; m < f->nchild; m++) {
            order[placed++] = (uint32_t)j;
            j += flat[j].span;
        }
    }
    return GCEV_OK;
}

static gcev_status tl_parse(gcev_etl_tl_cache *c, tl_entry *e, const char **msg)
{
    const uint8_t *meta = e->meta;
    uint32_t end = e->size;
    uint32_t pos = 2;
    if (!tl_skip_tags(meta, &pos, end)) {
        *msg = "TraceLogging event tags run past the schema";
        return GCEV_E_FORMAT;
    }
    e->schema.event_name = tl_string(meta, &pos, end);
    if (!e->schema.event_name) {
        *msg = "TraceLogging event name runs past the schema";
        return GCEV_E_FORMAT;
    }
    size_t n = 0;
    gcev_status st = tl_read_fields(c, meta, pos, end, &n, msg);
    if (st != GCEV_OK) {
        return st;
    }
    if (n) {
        e->nodes = calloc(n, sizeof *e->nodes);
        if (!e->nodes) {
            return GCEV_E_NOMEM;
        }
        st = tl_build_tree(c, n, e->nodes, &e->schema.nfields, msg);
        if (st != GCEV_OK) {
            return st;
        }
        e->schema.fields = e->nodes;
    }
    c->bytes += n * sizeof *e->nodes;
    return GCEV_OK;
}

static gcev_status tl_grow_slots(gcev_etl_tl_cache *c)
{
    size_t nslots = c->nslots ? c->nslots * 2 : 64;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots) {
        return GCEV_E_NOMEM;
    }
    for (size_t i = 0; i < c->nentries; i++) {
        size_t s = (size_t)c->entries[i].hash & (nslots - 1);
        while (slots[s]) {
            s = (s + 1) & (nslots - 1);
        }
        slots[s] = (uint32_t)i + 1;
    }
    free(c->slots);
    c->slots = slots;
    c->nslots = nslots;
    return GCEV_OK;
}

gcev_status gcev_etl_tl_schema_get(gcev_etl_tl_cache *c, const uint8_t *meta, uint32_t n,
                                   const gcev_etl_tl_schema **out, const char **msg)
{
    *out = NULL;
    /* The item starts with the schema's own size (itself included). */
    if (n < 2 || gcev_rd_u16le(meta) < 2 || gcev_rd_u16le(meta) > n) {
        *msg = "TraceLogging schema size does not fit its extended data item";
        return GCEV_E_FORMAT;
    }
    uint32_t size = gcev_rd_u16le(meta);
    uint64_t h = tl_hash(meta, size);
    if (c->nslots) {
        for (size_t s = (size_t)h & (c->nslots - 1); c->slots[s]; s = (s + 1) & (c->nslots - 1)) {
            tl_entry *e = &c->entries[c->slots[s] - 1];
            if (e->hash == h && e->size == size && memcmp(e->meta, meta, size) == 0) {
                *out = &e->schema;
                return GCEV_OK;
            }
        }
    }
    if (c->nentries >= TL_MAX_SCHEMAS || c->bytes > TL_MAX_BYTES - size) {
        *msg = "too many distinct TraceLogging schemas";
        return GCEV_E_LIMIT;
    }
    if ((c->nentries + 1) * 2 > c->nslots) {
        gcev_status st = tl_grow_slots(c);
        if (st != GCEV_OK) {
            return st;
        }
    }
    if (c->nentries == c->cap_entries) {
        size_t cap = c->cap_entries ? c->cap_entries * 2 : 16;
        tl_entry *en = realloc(c->entries, cap * sizeof *en);
        if (!en) {
            return GCEV_E_NOMEM;
        }
        c->entries = en;
        c->cap_entries = cap;
    }
    tl_entry *e = &c->entries[c->nentries];
    memset(e, 0, sizeof *e);
    e->hash = h;
    e->size = size;
    e->meta = malloc(size);
    if (!e->meta) {
        return GCEV_E_NOMEM;
    }
    memcpy(e->meta, meta, size);
    gcev_status st = tl_parse(c, e, msg);
    if (st != GCEV_OK) {
        /* Not cached: a malformed schema fails the trace anyway. */
        free(e->meta);
        free(e->nodes);
        return st;
    }
    c->bytes += size;
    size_t s = (size_t)h & (c->nslots - 1);
    while (c->slots[s]) {
        s = (s + 1) & (c->nslots - 1);
    }
    c->slots[s] = (uint32_t)c->nentries + 1;
    c->nentries++;
    *out = &e->schema;
    return GCEV_OK;
}

const char *gcev_etl_tl_provider_name(const uint8_t *traits, uint32_t n)
{
    if (n < 3) {
        return NULL;
    }
    uint32_t size = gcev_rd_u16le(traits);
    uint32_t end = size < n ? size : n;
    uint32_t pos = 2;
    if (end <= pos) {
        return NULL;
    }
    return tl_string(traits, &pos, end);
}
