/* SPDX-License-Identifier: MIT */
/* Schema look-ups over the generated tables: providers, versions, maps. */
#include <gcev/gcev.h>

#include <string.h>

#include "gcev_generated.h"
#include "gcev_out.h"
#include "gcev_quirks.h"
#include "gcev_schema_desc.h"

const gcev_provider *const *gcev_providers(size_t *count)
{
    if (count) {
        *count = gcev_gen_nproviders;
    }
    return gcev_gen_providers;
}

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a, y = *b;
        if (x >= 'A' && x <= 'Z') {
            x = (char)(x - 'A' + 'a');
        }
        if (y >= 'A' && y <= 'Z') {
            y = (char)(y - 'A' + 'a');
        }
        if (x != y) {
            return 0;
        }
    }
    return *a == *b;
}

const gcev_provider *gcev_provider_find_guid(const gcev_guid *guid)
{
    if (!guid) {
        return NULL;
    }
    for (size_t i = 0; i < gcev_gen_nproviders; i++) {
        const gcev_provider *p = gcev_gen_providers[i];
        if (p->has_guid && memcmp(&p->guid, guid, sizeof *guid) == 0) {
            return p;
        }
    }
    return NULL;
}

const gcev_provider *gcev_provider_find(const char *name_or_guid)
{
    if (!name_or_guid) {
        return NULL;
    }
    gcev_guid g;
    if (gcev_guid_parse(name_or_guid, &g)) {
        return gcev_provider_find_guid(&g);
    }
    for (size_t i = 0; i < gcev_gen_nproviders; i++) {
        if (ieq(gcev_gen_providers[i]->name, name_or_guid)) {
            return gcev_gen_providers[i];
        }
    }
    return NULL;
}

const gcev_event_desc *gcev_event_desc_resolve(const gcev_provider *p, uint16_t id, uint16_t version,
                                               gcev_status *status)
{
    gcev_status st = GCEV_E_UNKNOWN_PROVIDER;
    const gcev_event_desc *d = p ? gcev_desc_resolve(p, id, version, &st) : NULL;
    if (status) {
        *status = st;
    }
    return d;
}

const gcev_family_info *gcev_family_get(uint16_t family)
{
    if (family == 0 || family >= GCEV_FAMILY_COUNT_) {
        return NULL;
    }
    return &gcev_gen_families[family];
}

const char *gcev_map_name(const gcev_map *m, uint64_t v)
{
    if (!m || v > 0xffffffffu) {
        return NULL;
    }
    /* Most value maps run without gaps from their first value (GCReasonMap 0..9): then
     * v's entry is at v - first. Values are unique and sorted, so a hit there is the
     * entry the search below would find; anything else takes the search. */
    if (m->count && v >= m->entries[0].value) {
        uint64_t at = v - m->entries[0].value;
        if (at < m->count && m->entries[at].value == v) {
            return m->entries[at].name;
        }
    }
    size_t lo = 0, hi = m->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->entries[mid].value < v) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < m->count && m->entries[lo].value == v ? m->entries[lo].name : NULL;
}

const char *gcev_map_value_name(const gcev_map *m, uint64_t v)
{
    const char *name = gcev_map_name(m, v);
    if (name || !m) {
        return name;
    }
#define GCEV_VALUE_NAME_(map, value, text)                                                                   \
    if (v == (value) && strcmp(m->name, (map)) == 0) {                                                       \
        return (text);                                                                                       \
    }
    GCEV_QUIRKS_VALUE_NAMES(GCEV_VALUE_NAME_)
#undef GCEV_VALUE_NAME_
    return NULL;
}

const char *gcev_gc_reason_name(uint64_t reason)
{
    return gcev_map_value_name(&gcev_gc_reason_map, reason);
}

size_t gcev_map_format(const gcev_map *m, uint64_t v, char *buf, size_t n)
{
    gcev_out o = {buf, n, 0};
    if (!m) {
        gcev_out_fmt(&o, "%llu", (unsigned long long)v);
        return gcev_out_finish(&o);
    }
    if (!m->is_bitmap) {
        const char *name = gcev_map_value_name(m, v);
        if (name) {
            gcev_out_str(&o, name);
        } else {
            gcev_out_fmt(&o, "%llu", (unsigned long long)v);
        }
        return gcev_out_finish(&o);
    }
    uint64_t rest = v;
    int first = 1;
    for (size_t i = 0; i < m->count; i++) {
        uint64_t bit = m->entries[i].value;
        /* a zero-valued entry names the empty set only */
        if ((bit == 0 && v == 0) || (bit != 0 && (v & bit) == bit)) {
            if (!first) {
                gcev_out_str(&o, "|");
            }
            gcev_out_str(&o, m->entries[i].name);
            first = 0;
            rest &= ~bit;
        }
    }
    if (rest != 0 || first) {
        if (!first) {
            gcev_out_str(&o, "|");
        }
        gcev_out_fmt(&o, "0x%llx", (unsigned long long)rest);
    }
    return gcev_out_finish(&o);
}

/* GCEV_TYPE_LIST (shared with gcev-gen) lists the types in gcev_type's order. */
#define GCEV_TYPE_CHECK_(name, manifest_name, w4, w8, a4, a8) GCEV_TYPE_LIST_##name,
enum { GCEV_TYPE_LIST(GCEV_TYPE_CHECK_) GCEV_TYPE_LIST_COUNT_ };
#undef GCEV_TYPE_CHECK_
#define GCEV_TYPE_CHECK_(name, manifest_name, w4, w8, a4, a8)                                                \
    _Static_assert((int)GCEV_T_##name == (int)GCEV_TYPE_LIST_##name, "GCEV_TYPE_LIST out of gcev_type "      \
                                                                     "order");
GCEV_TYPE_LIST(GCEV_TYPE_CHECK_)
#undef GCEV_TYPE_CHECK_
_Static_assert((int)GCEV_TYPE_COUNT_ == (int)GCEV_TYPE_LIST_COUNT_, "GCEV_TYPE_LIST misses a gcev_type");

const char *gcev_type_name(gcev_type t)
{
    static const char *const names[GCEV_TYPE_COUNT_] = {
#define GCEV_TYPE_NAME_(name, manifest_name, w4, w8, a4, a8) [GCEV_T_##name] = manifest_name,
        GCEV_TYPE_LIST(GCEV_TYPE_NAME_)
#undef GCEV_TYPE_NAME_
    };
    return (unsigned)t < GCEV_TYPE_COUNT_ ? names[t] : "unknown";
}
