/* SPDX-License-Identifier: MIT */
/* Accessors of the metric tables (gcev_stats.h, "Metric tables"): look-up and typed reads. */
#include <math.h>
#include <string.h>

#include "gcev_stats_internal.h"

const char *gcev_stats_kind_name(unsigned kind)
{
    static const char *const names[GCEV_STATS_KINDS] = {"gc",      "gen_heap", "heap",   "gen_summary",
                                                        "gcstats", "process",  "summary"};
    return kind < GCEV_STATS_KINDS ? names[kind] : NULL;
}

const char *gcev_stats_unit_name(unsigned unit)
{
    static const char *const names[] = {"",        "ms",         "us",         "bytes",     "count", "ratio",
                                        "percent", "mb_per_sec", "per_sec",    "mb_per_ms", "id",    "enum",
                                        "flags",   "bool",       "generation", "text"};
    return unit < sizeof names / sizeof names[0] ? names[unit] : NULL;
}

size_t gcev_stats_metric_count(unsigned kind)
{
    return kind < GCEV_STATS_KINDS ? gcev_stats_metric_counts[kind] : 0;
}

const gcev_stats_metric *gcev_stats_metric_at(unsigned kind, size_t i)
{
    return i < gcev_stats_metric_count(kind) ? &gcev_stats_metric_tables[kind][i] : NULL;
}

const gcev_stats_metric *gcev_stats_metric_find(unsigned kind, const char *path)
{
    if (!path) {
        return NULL;
    }
    size_t n = strlen(path);
    for (size_t i = 0; i < gcev_stats_metric_count(kind); i++) {
        const gcev_stats_metric *m = &gcev_stats_metric_tables[kind][i];
        size_t g = m->group ? strlen(m->group) : 0;
        if (g == 0
                ? !strcmp(m->key, path)
                : (n > g && !memcmp(path, m->group, g) && path[g] == '.' && !strcmp(path + g + 1, m->key))) {
            return m;
        }
    }
    return NULL;
}

/* A little-endian-agnostic read of an integer member of 1, 2, 4 or 8 bytes. */
static uint64_t rd_u(const void *rec, uint32_t off, uint32_t size)
{
    const unsigned char *p = (const unsigned char *)rec + off;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64 = 0;
    switch (size) {
    case 1:
        memcpy(&u8, p, 1);
        return u8;
    case 2:
        memcpy(&u16, p, 2);
        return u16;
    case 4:
        memcpy(&u32, p, 4);
        return u32;
    case 8:
        memcpy(&u64, p, 8);
        return u64;
    default:
        return 0;
    }
}

static int64_t rd_i(const void *rec, uint32_t off, uint32_t size)
{
    uint64_t u = rd_u(rec, off, size);
    switch (size) {
    case 1:
        return (int8_t)u;
    case 2:
        return (int16_t)u;
    case 4:
        return (int32_t)u;
    default:
        return (int64_t)u;
    }
}

static double rd_f(const void *rec, uint32_t off)
{
    double d;
    memcpy(&d, (const unsigned char *)rec + off, sizeof d);
    return d;
}

/* 0 absent, 1 present, 2 present and +Infinity (inf_bits) */
static int presence(const void *rec, const gcev_stats_metric *m)
{
    if (m->pres_size) {
        uint64_t w = rd_u(rec, m->pres_offset, m->pres_size);
        if (m->inf_bits && (w & m->inf_bits)) {
            return 2;
        }
        if ((w & m->pres_bits) != m->pres_bits) {
            return 0;
        }
    }
    if (m->cond_size) {
        if (m->cond_float ? rd_f(rec, m->cond_offset) == 0 : rd_u(rec, m->cond_offset, m->cond_size) == 0) {
            return 0;
        }
    }
    return 1;
}

int gcev_stats_value(const void *rec, const gcev_stats_metric *m, gcev_stats_val *out)
{
    gcev_stats_val v;
    memset(&v, 0, sizeof v);
    int has = rec && m ? presence(rec, m) : 0;
    if (m) {
        v.type = m->type;
    }
    if (has == 2) {
        v.f = HUGE_VAL;
    } else if (has) {
        switch (m->type) {
        case GCEV_STATS_T_I64:
            v.i = rd_i(rec, m->offset, m->size);
            v.f = (double)v.i;
            break;
        case GCEV_STATS_T_F64:
            v.f = rd_f(rec, m->offset);
            break;
        case GCEV_STATS_T_BOOL:
            v.u = (rd_u(rec, m->offset, m->size) & m->mask) != 0;
            v.f = (double)v.u;
            break;
        case GCEV_STATS_T_ENUM:
            v.u = rd_u(rec, m->offset, m->size);
            v.name = m->name ? m->name((uint32_t)v.u) : NULL;
            v.f = (double)v.u;
            break;
        case GCEV_STATS_T_TEXT:
            if (m->kind == GCEV_STATS_KIND_GC) {
                gcev_stats_gc_label((const gcev_stats_gc *)rec, v.text, sizeof v.text);
            }
            break;
        case GCEV_STATS_T_U64:
        case GCEV_STATS_T_BITS:
        case GCEV_STATS_T_ARRAY:
            v.u = m->size ? rd_u(rec, m->offset, m->size) : 0;
            v.f = (double)v.u;
            break;
        default: /* OBJECT, RECORD, RECORDS, COUNTS: presence only */
            break;
        }
    }
    if (out) {
        *out = v;
    }
    return has != 0;
}
