/* SPDX-License-Identifier: MIT */
/*
 * gcev decode --provider NAME|GUID --id N --version N --pointer-size 4|8 HEX
 * Prints {"provider","id","version","name","fields":{...}} (+ "names" with the
 * enum names of mapped fields when there are any, + "dynamic" for a known
 * GCDynamicEvent). Bad input: a message on stderr and exit status 2.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Hex text (whitespace and an optional 0x prefix allowed) -> malloc'ed bytes. */
static int parse_hex(const char *text, uint8_t **out, size_t *n)
{
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        text += 2;
    }
    size_t len = strlen(text);
    uint8_t *buf = malloc(len / 2 + 1);
    if (!buf) {
        return 0;
    }
    size_t k = 0;
    int hi = -1;
    for (const char *p = text; *p; p++) {
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            continue;
        }
        int v = hexval((unsigned char)*p);
        if (v < 0) {
            free(buf);
            return 0;
        }
        if (hi < 0) {
            hi = v;
        } else {
            buf[k++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    if (hi >= 0) {
        free(buf);
        return 0;
    }
    *out = buf;
    *n = k;
    return 1;
}

static void print_event_json(FILE *out, const gcev_event *ev, const char *provider_name)
{
    char *fields = gcev_cli_format(gcev_format_fields_json, ev);
    char *names = gcev_cli_format(gcev_format_names_json, ev);
    fprintf(out, "{\"provider\":");
    gcev_cli_json_string(out, provider_name);
    gcev_event_info info;
    gcev_event_get_info(ev->desc, &info);
    fprintf(out, ",\"id\":%u,\"version\":%u,\"name\":", info.id, ev->version);
    gcev_cli_json_string(out, info.symbol);
    fprintf(out, ",\"fields\":%s", fields ? fields : "{}");
    if (names && strcmp(names, "{}") != 0) {
        fprintf(out, ",\"names\":%s", names);
    }
    free(fields);
    free(names);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gcev decode --provider NAME|GUID --id N --version N --pointer-size 4|8 HEX\n"
               "Decodes one event payload (hex bytes) and prints one JSON object:\n"
               "  {\"provider\",\"id\",\"version\",\"name\",\"fields\":{...}}\n"
               "plus \"names\" (enum names of mapped fields) and, for a known GCDynamicEvent,\n"
               "\"dynamic\" (its inner event). Trailing bytes are reported on stderr.\n");
}

int gcev_cmd_decode(int argc, char **argv)
{
    const char *provider = NULL, *hex = NULL, *v;
    unsigned long long id = 0, version = 0, ps = 0;
    int have_id = 0, have_version = 0, have_ps = 0, m;
    gcev_cli_args a;
    gcev_cli_args_init(&a, "decode", argc, argv);
    while (gcev_cli_args_next(&a)) {
        if (gcev_cli_flag(&a, "--help") || gcev_cli_flag(&a, "-h")) {
            usage(stdout);
            return GCEV_EXIT_OK;
        } else if ((m = gcev_cli_value(&a, "--provider", &v)) != 0) {
            if (m < 0) {
                return GCEV_EXIT_USAGE;
            }
            provider = v;
        } else if ((m = gcev_cli_value(&a, "--id", &v)) != 0) {
            if (m < 0 || !gcev_cli_number("decode", "--id", v, 65535, 1, &id)) {
                return GCEV_EXIT_USAGE;
            }
            have_id = 1;
        } else if ((m = gcev_cli_value(&a, "--version", &v)) != 0) {
            if (m < 0 || !gcev_cli_number("decode", "--version", v, 255, 1, &version)) {
                return GCEV_EXIT_USAGE;
            }
            have_version = 1;
        } else if ((m = gcev_cli_value(&a, "--pointer-size", &v)) != 0) {
            if (m < 0) {
                return GCEV_EXIT_USAGE;
            }
            if (strcmp(v, "4") != 0 && strcmp(v, "8") != 0) {
                return gcev_cli_fail("decode", "--pointer-size must be 4 or 8, not '%s'", v);
            }
            ps = (unsigned long long)(v[0] - '0');
            have_ps = 1;
        } else if (!a.operands_only && a.arg[0] == '-' && a.arg[1] != '\0') {
            return gcev_cli_fail("decode", "unknown option '%s' (see 'gcev decode --help')", a.arg);
        } else if (!hex) {
            hex = a.arg;
        } else {
            return gcev_cli_fail("decode", "more than one payload given");
        }
    }
    const char *missing[5];
    size_t nmissing = 0;
    if (!provider) {
        missing[nmissing++] = "--provider";
    }
    if (!have_id) {
        missing[nmissing++] = "--id";
    }
    if (!have_version) {
        missing[nmissing++] = "--version";
    }
    if (!have_ps) {
        missing[nmissing++] = "--pointer-size";
    }
    if (!hex) {
        missing[nmissing++] = "HEX (the payload)";
    }
    if (nmissing) {
        fprintf(stderr, "gcev decode: missing ");
        for (size_t i = 0; i < nmissing; i++) {
            fprintf(stderr, "%s%s", missing[i], i + 2 < nmissing ? ", " : (i + 2 == nmissing ? " and " : ""));
        }
        fprintf(stderr, " (see 'gcev decode --help')\n");
        return GCEV_EXIT_USAGE;
    }
    const gcev_provider *p = gcev_provider_find(provider);
    if (!p) {
        return gcev_cli_fail("decode", "unknown provider '%s' (see 'gcev schema')", provider);
    }
    uint8_t *bytes = NULL;
    size_t n = 0;
    if (!parse_hex(hex, &bytes, &n)) {
        return gcev_cli_fail("decode", "the payload must be an even number of hex digits (0-9, a-f)");
    }
    gcev_input in = {.struct_size = sizeof in,
                     .provider = p,
                     .event_id = (uint16_t)id,
                     .version = (uint16_t)version,
                     .pointer_size = (uint8_t)ps,
                     .data = bytes,
                     .size = n};
    gcev_event ev;
    gcev_error err;
    gcev_status st = gcev_decode(&in, &ev, &err);
    if (st != GCEV_OK) {
        if (err.field) {
            gcev_cli_fail("decode", "%s: %s, field '%s' at byte %llu of %zu",
                          ev.desc ? gcev_cli_symbol(ev.desc) : gcev_cli_provider_name(p), err.message,
                          err.field, (unsigned long long)err.offset, n);
        } else {
            gcev_cli_fail("decode", "%s id %llu version %llu: %s", gcev_cli_provider_name(p), id, version,
                          err.message);
        }
        free(bytes);
        return GCEV_EXIT_USAGE;
    }
    print_event_json(stdout, &ev, gcev_cli_provider_name(p));
    if (ev.family == GCEV_FAMILY_GC_DYNAMIC_EVENT) {
        gcev_event inner;
        if (gcev_decode_dynamic(&ev, &inner, NULL) == GCEV_OK) {
            fprintf(stdout, ",\"dynamic\":");
            print_event_json(
                stdout, &inner,
                gcev_cli_provider_name(gcev_provider_find("Microsoft-Windows-DotNETRuntime-GCDynamicEvent")));
            fputc('}', stdout);
        }
    }
    fprintf(stdout, ",\"json_version\":%d}\n", GCEV_JSON_VERSION_DECODE);
    if (ev.trailing) {
        fprintf(stderr, "gcev decode: note: %u trailing byte(s) after the %s template%s\n", ev.trailing,
                gcev_cli_symbol(ev.desc), ev.newer_version ? " (payload version is newer)" : "");
    }
    free(bytes);
    return GCEV_EXIT_OK;
}
