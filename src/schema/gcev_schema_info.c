/* SPDX-License-Identifier: MIT */
/*
 * The public schema-introspection API: the descriptors the engine interprets,
 * copied into the small info structs of gcev.h, so programs never depend on the
 * descriptors' layout.
 */
#include <string.h>

#include "gcev_error.h"
#include "gcev_schema_desc.h"

gcev_status gcev_provider_get_info(const gcev_provider *p, gcev_provider_info *out)
{
    if (!p || !out) {
        return GCEV_E_INVALID_ARG;
    }
    memset(out, 0, sizeof *out);
    out->name = p->name;
    out->guid = p->guid;
    out->has_guid = p->has_guid;
    out->event_count = p->nevents;
    return GCEV_OK;
}

const gcev_event_desc *gcev_provider_event_at(const gcev_provider *p, size_t i)
{
    return p && i < p->nevents ? &p->events[i] : NULL;
}

gcev_status gcev_event_get_info(const gcev_event_desc *e, gcev_event_info *out)
{
    if (!e || !out) {
        return GCEV_E_INVALID_ARG;
    }
    memset(out, 0, sizeof *out);
    out->provider = e->provider;
    out->id = e->id;
    out->version = e->version;
    out->family = e->family;
    out->level = e->level;
    out->opcode = e->opcode;
    out->task = e->task;
    out->keywords = e->keywords;
    out->symbol = e->symbol;
    out->task_name = e->task_name ? e->task_name : "";
    out->opcode_name = e->opcode_name ? e->opcode_name : "";
    out->keyword_names = e->keyword_names ? e->keyword_names : "";
    out->fields = e->tmpl;
    if (e->tmpl) {
        out->min_size[0] = e->tmpl->min_size[0];
        out->min_size[1] = e->tmpl->min_size[1];
    }
    return GCEV_OK;
}

size_t gcev_template_field_count(const gcev_template *t)
{
    return t ? t->nfields : 0;
}

gcev_status gcev_template_field(const gcev_template *t, size_t i, gcev_field_info *out)
{
    if (!t || !out || i >= t->nfields) {
        return GCEV_E_INVALID_ARG;
    }
    const gcev_field_desc *f = &t->fields[i];
    memset(out, 0, sizeof *out);
    out->name = f->name;
    out->type = (gcev_type)f->type;
    out->map = f->map;
    out->is_array = f->store == GCEV_S_ARRAY;
    out->hex = f->out_type == GCEV_OUT_HEX;
    out->count_field = f->count_field;
    out->fixed_count = f->fixed_count;
    out->length_field = f->length_field;
    out->elem = f->elem;
    out->wire_size[0] = f->wire[0] & (uint8_t)~GCEV_WIRE_WIDEN_SIGNED;
    out->wire_size[1] = f->wire[1] & (uint8_t)~GCEV_WIRE_WIDEN_SIGNED;
    return GCEV_OK;
}

size_t gcev_template_struct_size(const gcev_template *t)
{
    return t ? t->struct_size : 0;
}

gcev_status gcev_map_get_info(const gcev_map *m, gcev_map_info *out)
{
    if (!m || !out) {
        return GCEV_E_INVALID_ARG;
    }
    memset(out, 0, sizeof *out);
    out->name = m->name;
    out->is_bitmap = m->is_bitmap;
    out->count = m->count;
    return GCEV_OK;
}

gcev_status gcev_map_entry_at(const gcev_map *m, size_t i, uint32_t *value, const char **name)
{
    if (!m || !value || !name || i >= m->count) {
        return GCEV_E_INVALID_ARG;
    }
    *value = m->entries[i].value;
    *name = m->entries[i].name;
    return GCEV_OK;
}
