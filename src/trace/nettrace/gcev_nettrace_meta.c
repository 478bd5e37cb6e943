/* SPDX-License-Identifier: MIT */
/*
 * EventPipe metadata records: who an event is (provider, id, version, name,
 * level, keywords, opcode) and, for self-describing EventSource events, the
 * layout of its payload as a gcev_trace_field tree.
 *
 * Three encodings: V1-V5 records are event blobs with UTF-16 strings and
 * int32 counts (V5 adds tags: opcode and a second "V2Params" field list that
 * can describe arrays); V1/V2 records start with an older header; V6 rows use
 * UTF-8 strings, uint16 counts and byte type codes. Runtime providers ship
 * empty metadata, their layouts come from the compiled schemas.
 */
#include "gcev_nettrace_meta.h"
#include "gcev_schema_desc.h"

#include <stdlib.h>
#include <string.h>

enum { NP_MAX_FIELD_DEPTH = 16, NP_MAX_METAS = 1u << 22, NP_DENSE_IDS = 1u << 16 };

/* Field-list encodings. */
enum { FL_V1 = 1, FL_V2PARAMS = 2, FL_V6 = 3 };

/* Type codes with an element type (EventPipe TypeCode values). */
enum { TC_OBJECT = 1, TC_ARRAY = 19, TC_FIXED_ARRAY = 22, TC_RELLOC = 24, TC_DATALOC = 25 };

static void fields_free(gcev_trace_field *f, uint32_t n)
{
    if (!f) {
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        free((char *)f[i].name);
        fields_free((gcev_trace_field *)f[i].fields, f[i].nfields);
    }
    free(f);
}

static void meta_free(np_meta *m)
{
    if (m) {
        free(m->provider_name);
        free(m->event_name);
        fields_free(m->fields, m->nfields);
        free(m);
    }
}

/*
 * The parsers below return 0 when the record cannot be read. A failed allocation sets
 * *oom too: the record is then not malformed, and the caller reports GCEV_E_NOMEM.
 */

/* UTF-16LE NUL-terminated string at c -> malloc'd UTF-8. 0 on format error / no memory. */
static int np_utf16z(np_cur *c, char **out, int *oom)
{
    size_t i = c->pos;
    while (c->n - i >= 2 && (c->p[i] | c->p[i + 1]) != 0) {
        i += 2;
    }
    if (c->n - i < 2) {
        return 0; /* no terminator before the end of the record */
    }
    gcev_utf16 s = {c->p + c->pos, (uint32_t)(i - c->pos)};
    if (i - c->pos > UINT32_MAX) {
        return 0;
    }
    size_t need = gcev_utf16_to_utf8(s, NULL, 0);
    char *o = malloc(need + 1);
    if (!o) {
        *oom = 1;
        return 0;
    }
    gcev_utf16_to_utf8(s, o, need + 1);
    *out = o;
    c->pos = i + 2;
    return 1;
}

/* varuint32-length-prefixed UTF-8 (V6) -> malloc'd NUL-terminated copy. */
static int np_utf8(np_cur *c, char **out, int *oom)
{
    uint32_t len;
    if (!np_varu32(c, &len) || !np_has(c, len)) {
        return 0;
    }
    char *o = malloc((size_t)len + 1);
    if (!o) {
        *oom = 1;
        return 0;
    }
    memcpy(o, c->p + c->pos, len);
    o[len] = '\0';
    c->pos += len;
    *out = o;
    return 1;
}

static int parse_fields(np_cur *c, int mode, int depth, gcev_trace_field **out, uint32_t *nout, int *oom);

/* A field's type (and element type / nested fields). */
static int parse_type(np_cur *c, int mode, int depth, gcev_trace_field *f, int *oom)
{
    uint32_t tc;
    if (mode == FL_V6) {
        uint8_t b;
        if (!np_u8(c, &b)) {
            return 0;
        }
        tc = b;
    } else if (!np_u32(c, &tc)) {
        return 0;
    }
    f->type_code = tc;
    if (tc == TC_OBJECT) {
        gcev_trace_field *sub = NULL;
        uint32_t nsub = 0;
        if (!parse_fields(c, mode, depth + 1, &sub, &nsub, oom)) {
            return 0;
        }
        f->fields = sub;
        f->nfields = nsub;
        return 1;
    }
    int has_elem = (tc == TC_ARRAY && mode != FL_V1) ||
                   (mode == FL_V6 && (tc == TC_FIXED_ARRAY || tc == TC_RELLOC || tc == TC_DATALOC));
    if (has_elem) {
        if (depth >= NP_MAX_FIELD_DEPTH) {
            return 0;
        }
        gcev_trace_field elem = {0};
        if (!parse_type(c, mode, depth + 1, &elem, oom)) {
            fields_free((gcev_trace_field *)elem.fields, elem.nfields);
            return 0;
        }
        /* An array of structs exposes the element's fields as its own. */
        f->array_type_code = elem.type_code;
        f->fields = elem.fields;
        f->nfields = elem.nfields;
        if (tc == TC_FIXED_ARRAY && !np_skip(c, 2)) {
            return 0;
        }
    }
    return 1;
}

static int parse_field(np_cur *c, int mode, int depth, gcev_trace_field *f, int *oom)
{
    char *name = NULL;
    if (mode == FL_V1) {
        if (!parse_type(c, mode, depth, f, oom) || !np_utf16z(c, &name, oom)) {
            return 0;
        }
        f->name = name;
        return 1;
    }
    /* V2Params and V6 fields are size-prefixed: parse inside, then skip the rest. */
    size_t len;
    if (mode == FL_V2PARAMS) {
        uint32_t sz;
        if (!np_u32(c, &sz) || sz < 4) {
            return 0;
        }
        len = sz - 4;
    } else {
        uint16_t sz;
        if (!np_u16(c, &sz)) {
            return 0;
        }
        len = sz;
    }
    if (!np_has(c, len)) {
        return 0;
    }
    np_cur sub = {c->p + c->pos, len, 0};
    c->pos += len;
    int ok = (mode == FL_V6 ? np_utf8(&sub, &name, oom) : np_utf16z(&sub, &name, oom));
    if (!ok) {
        return 0;
    }
    f->name = name;
    return parse_type(&sub, mode, depth, f, oom);
}

static int parse_fields(np_cur *c, int mode, int depth, gcev_trace_field **out, uint32_t *nout, int *oom)
{
    *out = NULL;
    *nout = 0;
    if (depth > NP_MAX_FIELD_DEPTH) {
        return 0;
    }
    uint32_t count;
    if (mode == FL_V6) {
        uint16_t c16;
        if (!np_u16(c, &c16)) {
            return 0;
        }
        count = c16;
    } else if (!np_u32(c, &count)) {
        return 0;
    }
    if (count == 0) {
        return 1;
    }
    /* Every field takes at least one byte: a hostile count cannot make us allocate more. */
    if (count > c->n - c->pos) {
        return 0;
    }
    gcev_trace_field *f = calloc(count, sizeof *f);
    if (!f) {
        *oom = 1;
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (!parse_field(c, mode, depth, &f[i], oom)) {
            fields_free(f, i + 1);
            return 0;
        }
    }
    *out = f;
    *nout = count;
    return 1;
}

/* Resolves the compiled provider once per record (never per event). */
static void meta_resolve_provider(np_meta *m)
{
    if (m->provider_name[0]) {
        m->provider = gcev_provider_find(m->provider_name);
    }
    if (!m->provider && m->has_provider_guid) {
        m->provider = gcev_provider_find_guid(&m->provider_guid);
    }
    if (m->provider && m->provider->has_guid && !m->has_provider_guid) {
        m->provider_guid = m->provider->guid;
        m->has_provider_guid = 1;
    }
}

/* What every event of m starts with (fill_event copies provider_name .. keywords). */
static void meta_image(np_meta *m)
{
    gcev_trace_event *e = &m->image;
    memset(e, 0, sizeof *e);
    e->provider_name = m->provider_name;
    e->provider_guid = m->provider_guid;
    e->has_provider_guid = m->has_provider_guid;
    e->provider = m->provider;
    e->event_id = m->event_id;
    e->version = m->version;
    e->event_name = m->event_name;
    e->opcode = m->opcode;
    e->has_opcode = m->has_opcode;
    e->level = m->level;
    e->has_level = m->has_level;
    e->keywords = m->keywords;
    /* (past what fill_event copies: for gcev_trace_kind_record) */
    e->nfields = m->nfields;
    e->fields = m->fields;
    e->field_type_system = GCEV_FIELD_TYPES_EVENTPIPE;
    gcev_trace_lean l;
    memset(&l, 0, sizeof l);
    l.struct_size = sizeof l;
    l.event_id = m->event_id;
    l.version = m->version;
    l.provider = m->provider;
    memcpy(m->lean_head, &l, sizeof m->lean_head);
}

/* ---- what a record defines, for the records a V6 metadata flush released ---- */

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 0x100000001b3ull; /* FNV-1a */
    }
    return h;
}

static uint64_t hash_fields(uint64_t h, const gcev_trace_field *f, uint32_t n)
{
    h = hash_bytes(h, &n, sizeof n);
    for (uint32_t i = 0; i < n; i++) {
        h = hash_bytes(h, f[i].name, strlen(f[i].name) + 1);
        const uint32_t v[3] = {f[i].type_code, f[i].array_type_code, f[i].fixed_count};
        h = hash_bytes(h, v, sizeof v);
        h = hash_fields(h, f[i].fields, f[i].nfields);
    }
    return h;
}

static uint64_t meta_hash(const np_meta *m)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = hash_bytes(h, m->provider_name, strlen(m->provider_name) + 1);
    h = hash_bytes(h, m->event_name, strlen(m->event_name) + 1);
    const uint64_t v[3] = {(uint64_t)m->event_id << 16 | m->version, m->keywords,
                           (uint64_t)m->opcode << 24 | (uint64_t)m->level << 16 | m->has_opcode << 8 |
                               m->has_level};
    h = hash_bytes(h, v, sizeof v);
    return hash_fields(h, m->fields, m->nfields);
}

static int fields_equal(const gcev_trace_field *a, const gcev_trace_field *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (strcmp(a[i].name, b[i].name) != 0 || a[i].type_code != b[i].type_code ||
            a[i].array_type_code != b[i].array_type_code || a[i].fixed_count != b[i].fixed_count ||
            a[i].out_type != b[i].out_type || a[i].flags != b[i].flags || a[i].nfields != b[i].nfields ||
            !fields_equal(a[i].fields, b[i].fields, a[i].nfields)) {
            return 0;
        }
    }
    return 1;
}

/* Same provider, event, properties and fields: an event reads the same with either. */
static int meta_equal(const np_meta *a, const np_meta *b)
{
    return strcmp(a->provider_name, b->provider_name) == 0 && a->has_provider_guid == b->has_provider_guid &&
           (!a->has_provider_guid ||
            memcmp(&a->provider_guid, &b->provider_guid, sizeof a->provider_guid) == 0) &&
           a->provider == b->provider && a->event_id == b->event_id && a->version == b->version &&
           strcmp(a->event_name, b->event_name) == 0 && a->keywords == b->keywords &&
           a->opcode == b->opcode && a->level == b->level && a->has_opcode == b->has_opcode &&
           a->has_level == b->has_level && a->nfields == b->nfields &&
           fields_equal(a->fields, b->fields, a->nfields);
}

void gcev_np_meta_flush(gcev_nettrace *np)
{
    for (; np->nreleased < np->nmetas; np->nreleased++) {
        np_meta *m = np->metas[np->nreleased];
        m->hash = meta_hash(m);
        m->same_hash = gcev_idmap_get(&np->released, m->hash);
        if (!gcev_idmap_put(&np->released, m->hash, (uint32_t)np->nreleased)) {
            break; /* out of memory: the records not indexed are just not reused */
        }
    }
    gcev_idmap_clear(&np->meta_ids);
    if (np->ndense) {
        memset(np->dense, 0, np->ndense * sizeof *np->dense);
    }
    np->last_meta = NULL;
    np->cur_meta = NULL;
}

/* The index of a released record that defines what m does, or UINT32_MAX. */
static uint32_t meta_released(const gcev_nettrace *np, const np_meta *m)
{
    if (!np->released.count) {
        return UINT32_MAX;
    }
    uint32_t i = gcev_idmap_get(&np->released, meta_hash(m));
    while (i != UINT32_MAX && !meta_equal(np->metas[i], m)) {
        i = np->metas[i]->same_hash;
    }
    return i;
}

static gcev_status meta_add(gcev_nettrace *np, np_meta *m, uint64_t file_off, gcev_error *err)
{
    const uint32_t dup = np->version <= 5 ? gcev_idmap_get(&np->meta_ids, m->id) : UINT32_MAX;
    if (dup != UINT32_MAX) {
        /* V1-V5 writers number metadata once per trace (only V6 redefines ids, after a
         * metadata flush): one of the two records is damaged, and which cannot be told, so
         * the id is defined by neither from here on (keep-going would otherwise give later
         * events another event's name, id and fields) */
        np->metas[dup]->poisoned = 1;
        if (m->id < np->ndense) {
            np->dense[m->id] = NULL;
        }
        np->last_meta = NULL;
        np->cur_meta = NULL;
        meta_free(m);
        return gcev_np_fail(err, GCEV_E_FORMAT, file_off, "metadata id defined twice");
    }
    meta_resolve_provider(m);
    const uint32_t again = meta_released(np, m);
    if (again != UINT32_MAX) {
        np->metas[again]->id = m->id;
        meta_free(m);
        m = np->metas[again];
    } else if (np->nmetas >= NP_MAX_METAS) {
        meta_free(m);
        return gcev_np_fail(err, GCEV_E_LIMIT, file_off, "too many metadata records");
    }
    /* A record not kept in metas yet is freed on failure (a reused one stays there). */
    np_meta *const owned = again == UINT32_MAX ? m : NULL;
    const uint32_t index = again != UINT32_MAX ? again : (uint32_t)np->nmetas;
    if (m->id < NP_DENSE_IDS && m->id >= np->ndense) {
        size_t n = np->ndense ? np->ndense : 64;
        while (n <= m->id) {
            n *= 2;
        }
        const np_meta **d = realloc(np->dense, n * sizeof *d);
        if (!d) {
            meta_free(owned);
            return gcev_np_fail(err, GCEV_E_NOMEM, file_off, "out of memory");
        }
        memset(d + np->ndense, 0, (n - np->ndense) * sizeof *d);
        np->dense = d;
        np->ndense = n;
    }
    if ((owned && !gcev_reserve((void **)&np->metas, &np->cap_metas, np->nmetas + 1, sizeof *np->metas)) ||
        !gcev_idmap_put(&np->meta_ids, m->id, index)) {
        meta_free(owned);
        return gcev_np_fail(err, GCEV_E_NOMEM, file_off, "out of memory");
    }
    /* A redefined id shadows the old record, which stays alive for buffered events. */
    if (owned) {
        np->metas[np->nmetas++] = m;
        meta_image(m);
    }
    if (m->id < np->ndense) {
        np->dense[m->id] = m;
    }
    np->last_meta = NULL;
    np->cur_meta = NULL;
    return GCEV_OK;
}

const np_meta *gcev_np_meta_find(gcev_nettrace *np, uint64_t id)
{
    if (np->last_meta && np->last_meta_id == id) {
        return np->last_meta;
    }
    uint32_t i = gcev_idmap_get(&np->meta_ids, id);
    if (i == UINT32_MAX || np->metas[i]->poisoned) {
        return NULL;
    }
    np->last_meta = np->metas[i];
    np->last_meta_id = id;
    return np->last_meta;
}

void gcev_np_meta_free_all(gcev_nettrace *np)
{
    for (size_t i = 0; i < np->nmetas; i++) {
        meta_free(np->metas[i]);
    }
    free(np->metas);
    np->metas = NULL;
    np->nmetas = np->cap_metas = 0;
    free(np->dense);
    np->dense = NULL;
    np->ndense = 0;
    np->last_meta = NULL;
    gcev_idmap_free(&np->meta_ids);
    gcev_idmap_free(&np->released);
    np->nreleased = 0;
}

static np_meta *meta_new(void)
{
    np_meta *m = calloc(1, sizeof *m);
    return m;
}

static const char meta_bad[] = "malformed metadata record";

/* The header common to V1-V5 after the provider: id, name, keywords, version, level. */
static int meta_header_v3(np_cur *c, np_meta *m, int *oom)
{
    uint32_t id, ver, level;
    if (!np_u32(c, &id) || !np_utf16z(c, &m->event_name, oom) || !np_u64(c, &m->keywords) ||
        !np_u32(c, &ver) || !np_u32(c, &level)) {
        return 0;
    }
    m->event_id = (uint16_t)id;
    m->version = (uint16_t)ver;
    m->level = (uint8_t)level;
    m->has_level = 1;
    return 1;
}

gcev_status gcev_np_meta_v5(gcev_trace *t, const uint8_t *p, size_t n, uint64_t file_off,
                            uint64_t meta_offset, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    np_cur c = {p, n, 0};
    np_meta *m = meta_new();
    if (!m) {
        return gcev_np_fail(err, GCEV_E_NOMEM, file_off, "out of memory");
    }
    int ok = 1;
    int nomem = 0, *oom = &nomem;
    if (np->version >= 3) {
        uint32_t id = 0; /* set by np_u32 when ok */
        ok = np_u32(&c, &id) && np_utf16z(&c, &m->provider_name, oom) && meta_header_v3(&c, m, oom);
        m->id = id;
    } else {
        m->id = meta_offset;
        if (np->version == 1) {
            ok = np_guid(&c, &m->provider_guid);
            m->has_provider_guid = 1;
            m->provider_name = calloc(1, 1);
            nomem = !m->provider_name;
            ok = ok && m->provider_name;
        } else {
            ok = np_utf16z(&c, &m->provider_name, oom);
        }
        uint32_t id, ver, mlen;
        ok = ok && np_u32(&c, &id) && np_u32(&c, &ver) && np_u32(&c, &mlen);
        if (ok) {
            m->event_id = (uint16_t)id;
            m->version = (uint16_t)ver;
            if (mlen > 0) {
                ok = meta_header_v3(&c, m, oom); /* repeats id and version, adds the rest */
            }
        }
    }
    if (ok && !m->event_name) {
        m->event_name = calloc(1, 1);
        ok = m->event_name != NULL;
        nomem = !ok;
    }
    /* Optional V1 field list, then (V5) tags. */
    if (ok && np_has(&c, 4)) {
        ok = parse_fields(&c, FL_V1, 0, &m->fields, &m->nfields, oom);
    }
    while (ok && c.pos < c.n) {
        uint32_t tag_len;
        uint8_t kind;
        ok = np_u32(&c, &tag_len) && np_u8(&c, &kind) && np_has(&c, tag_len);
        if (!ok) {
            break;
        }
        np_cur tag = {c.p + c.pos, tag_len, 0};
        c.pos += tag_len;
        if (t->info.format_version == 4) {
            t->info.format_version = 5; /* V5 is only visible through these tags */
        }
        if (kind == 1) {
            ok = np_u8(&tag, &m->opcode);
            m->has_opcode = 1;
        } else if (kind == 2) {
            gcev_trace_field *f2 = NULL;
            uint32_t n2 = 0;
            ok = parse_fields(&tag, FL_V2PARAMS, 0, &f2, &n2, oom);
            if (ok) {
                /* The V2 list supersedes the V1 one (which is then empty by rule). */
                fields_free(m->fields, m->nfields);
                m->fields = f2;
                m->nfields = n2;
            }
        }
    }
    if (!ok || !m->provider_name) {
        meta_free(m);
        return nomem ? gcev_np_fail(err, GCEV_E_NOMEM, file_off, "out of memory")
                     : gcev_np_fail(err, GCEV_E_FORMAT, file_off, meta_bad);
    }
    return meta_add(np, m, file_off, err);
}

/* V6 optional metadata: kind-tagged properties. */
static int meta_optional_v6(np_cur *c, np_meta *m, int *oom)
{
    uint16_t size;
    if (!np_u16(c, &size) || !np_has(c, size)) {
        return 0;
    }
    np_cur o = {c->p + c->pos, size, 0};
    c->pos += size;
    while (o.pos < o.n) {
        uint8_t kind;
        char *a = NULL, *b = NULL;
        if (!np_u8(&o, &kind)) {
            return 0;
        }
        switch (kind) {
        case 1:
            if (!np_u8(&o, &m->opcode)) {
                return 0;
            }
            m->has_opcode = 1;
            break;
        case 3:
            if (!np_u64(&o, &m->keywords)) {
                return 0;
            }
            break;
        case 4:
        case 5:
            if (!np_utf8(&o, &a, oom)) {
                return 0;
            }
            free(a);
            break;
        case 6:
            if (!np_utf8(&o, &a, oom) || !np_utf8(&o, &b, oom)) {
                free(a);
                return 0;
            }
            free(a);
            free(b);
            break;
        case 7:
            if (!np_guid(&o, &m->provider_guid)) {
                return 0;
            }
            m->has_provider_guid = 1;
            break;
        case 8:
            if (!np_u8(&o, &m->level)) {
                return 0;
            }
            m->has_level = 1;
            break;
        case 9: {
            uint8_t v;
            if (!np_u8(&o, &v)) {
                return 0;
            }
            m->version = v;
            break;
        }
        default:
            /* Unknown kinds have unknown sizes: nothing after them can be read. */
            return 1;
        }
    }
    return 1;
}

gcev_status gcev_np_meta_block_v6(gcev_trace *t, np_cur *c, uint64_t file_off, gcev_error *err)
{
    gcev_nettrace *np = t->impl;
    uint16_t hsize;
    if (!np_u16(c, &hsize) || !np_skip(c, hsize)) {
        return gcev_np_fail(err, GCEV_E_FORMAT, file_off + c->pos, "malformed metadata block header");
    }
    while (c->pos < c->n) {
        uint64_t row_off = file_off + c->pos;
        uint16_t size;
        if (!np_u16(c, &size) || !np_has(c, size)) {
            return gcev_np_fail(err, GCEV_E_FORMAT, row_off, "metadata row overruns its block");
        }
        np_cur r = {c->p + c->pos, size, 0};
        c->pos += size;
        np_meta *m = meta_new();
        if (!m) {
            return gcev_np_fail(err, GCEV_E_NOMEM, row_off, "out of memory");
        }
        uint32_t id, eid;
        int nomem = 0, *oom = &nomem;
        int ok = np_varu32(&r, &id) && np_utf8(&r, &m->provider_name, oom) && np_varu32(&r, &eid) &&
                 np_utf8(&r, &m->event_name, oom) &&
                 parse_fields(&r, FL_V6, 0, &m->fields, &m->nfields, oom) && meta_optional_v6(&r, m, oom);
        if (!ok) {
            meta_free(m);
            return nomem ? gcev_np_fail(err, GCEV_E_NOMEM, row_off, "out of memory")
                         : gcev_np_fail(err, GCEV_E_FORMAT, row_off, meta_bad);
        }
        m->id = id;
        m->event_id = (uint16_t)eid;
        gcev_status st = meta_add(np, m, row_off, err);
        if (st != GCEV_OK) {
            return st;
        }
    }
    return GCEV_OK;
}
