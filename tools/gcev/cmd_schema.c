/* SPDX-License-Identifier: MIT */
/*
 * gcev schema [--format text|json] [NAME]
 * JSON: [{"provider","id","version","name","fields":[{"name","type"[,"map"][,"count"]
 *        [,"length"][,"fields"]}]}]; NAME filters by event symbol or family name.
 */
#include <ctype.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) {
            return 0;
        }
    }
    return *a == *b;
}

static int matches(const gcev_event_info *e, const char *name)
{
    if (!name) {
        return 1;
    }
    const gcev_family_info *fam = gcev_family_get(e->family);
    return ieq(e->symbol, name) || (fam && ieq(fam->name, name));
}

static const char *field_name(const gcev_template *t, int32_t idx)
{
    gcev_field_info f;
    return idx >= 0 && gcev_template_field(t, (size_t)idx, &f) == GCEV_OK ? f.name : "";
}

static void ref_name(FILE *out, const gcev_template *t, int32_t idx, uint32_t fixed)
{
    if (idx >= 0) {
        gcev_cli_json_string(out, field_name(t, idx));
    } else {
        fprintf(out, "%u", fixed);
    }
}

static const char *map_name(const gcev_map *m)
{
    gcev_map_info mi;
    return gcev_map_get_info(m, &mi) == GCEV_OK ? mi.name : "";
}

static void fields_json(FILE *out, const gcev_template *t)
{
    fputc('[', out);
    for (size_t i = 0; i < gcev_template_field_count(t); i++) {
        gcev_field_info f;
        gcev_template_field(t, i, &f);
        fprintf(out, "%s{\"name\":", i ? "," : "");
        gcev_cli_json_string(out, f.name);
        fprintf(out, ",\"type\":");
        gcev_cli_json_string(out, gcev_type_name(f.type));
        if (f.map) {
            fprintf(out, ",\"map\":");
            gcev_cli_json_string(out, map_name(f.map));
        }
        if (f.is_array) {
            fprintf(out, ",\"count\":");
            ref_name(out, t, f.count_field, f.fixed_count);
        }
        if (f.type == GCEV_T_BINARY || f.length_field >= 0) {
            fprintf(out, ",\"length\":");
            ref_name(out, t, f.length_field, f.fixed_count);
        }
        if (f.elem) {
            fprintf(out, ",\"fields\":");
            fields_json(out, f.elem);
        }
        fputc('}', out);
    }
    fputc(']', out);
}

static void fields_text(FILE *out, const gcev_template *t)
{
    for (size_t i = 0; i < gcev_template_field_count(t); i++) {
        gcev_field_info f;
        gcev_template_field(t, i, &f);
        fprintf(out, " %s:%s", f.name, gcev_type_name(f.type));
        if (f.map) {
            fprintf(out, "(%s)", map_name(f.map));
        }
        if (f.is_array) {
            if (f.count_field >= 0) {
                fprintf(out, "[%s]", field_name(t, f.count_field));
            } else {
                fprintf(out, "[%u]", f.fixed_count);
            }
        }
        if (f.elem) {
            fprintf(out, " {");
            fields_text(out, f.elem);
            fprintf(out, " }");
        }
    }
}

int gcev_cmd_schema(int argc, char **argv)
{
    int json = 0, m;
    const char *name = NULL, *v;
    gcev_cli_args a;
    gcev_cli_args_init(&a, "schema", argc, argv);
    while (gcev_cli_args_next(&a)) {
        if (gcev_cli_flag(&a, "--help") || gcev_cli_flag(&a, "-h")) {
            printf("usage: gcev schema [--format text|json] [NAME]\n"
                   "Lists the compiled events (every provider, id, version) and their fields.\n"
                   "NAME keeps one event symbol (GCStart_V2) or family (GCStart).\n");
            return GCEV_EXIT_OK;
        } else if ((m = gcev_cli_value(&a, "--format", &v)) != 0) {
            static const char *const formats[] = {"text", "json", NULL};
            if (m < 0 || (json = gcev_cli_choice("schema", "--format", v, formats)) < 0) {
                return GCEV_EXIT_USAGE;
            }
        } else if (!a.operands_only && a.arg[0] == '-') {
            return gcev_cli_fail("schema", "unknown option '%s' (see 'gcev schema --help')", a.arg);
        } else if (!name) {
            name = a.arg;
        } else {
            return gcev_cli_fail("schema", "only one NAME may be given");
        }
    }
    size_t np, shown = 0;
    const gcev_provider *const *ps = gcev_providers(&np);
    if (json) {
        fputc('[', stdout);
    }
    for (size_t p = 0; p < np; p++) {
        gcev_provider_info pi;
        gcev_provider_get_info(ps[p], &pi);
        for (size_t e = 0; e < pi.event_count; e++) {
            gcev_event_info d;
            gcev_event_get_info(gcev_provider_event_at(ps[p], e), &d);
            if (!matches(&d, name)) {
                continue;
            }
            if (json) {
                fprintf(stdout, "%s{\"provider\":", shown ? "," : "");
                gcev_cli_json_string(stdout, pi.name);
                fprintf(stdout, ",\"id\":%u,\"version\":%u,\"name\":", d.id, d.version);
                gcev_cli_json_string(stdout, d.symbol);
                fprintf(stdout, ",\"fields\":");
                fields_json(stdout, d.fields);
                fprintf(stdout, ",\"json_version\":%d}", GCEV_JSON_VERSION_SCHEMA);
            } else {
                printf("%s %u v%u %s:", pi.name, d.id, d.version, d.symbol);
                fields_text(stdout, d.fields);
                fputc('\n', stdout);
            }
            shown++;
        }
    }
    if (json) {
        fputs("]\n", stdout);
    }
    if (name && shown == 0) {
        return gcev_cli_fail("schema", "no event named '%s'", name);
    }
    return GCEV_EXIT_OK;
}
