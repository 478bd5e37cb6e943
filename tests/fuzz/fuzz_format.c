/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: the generic formatter. Decodes like fuzz_decode, then formats the
 * event into every buffer size from 0 to a bound and checks snprintf
 * semantics (same length returned, NUL-terminated, a prefix of the full text).
 * Also the enum-map formatters on fuzzed values and the UTF-16 converter.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void utf16_check(const uint8_t *p, size_t n)
{
    gcev_utf16 s = {p, (uint32_t)(n & ~(size_t)1)};
    size_t need = gcev_utf16_to_utf8(s, NULL, 0);
    char *full = malloc(need + 1);
    if (!full) {
        return;
    }
    FUZZ_CHECK(gcev_utf16_to_utf8(s, full, need + 1) == need);
    FUZZ_CHECK(full[need] == '\0');
    for (size_t k = 1; k <= need && k < 16; k++) {
        char part[16];
        FUZZ_CHECK(gcev_utf16_to_utf8(s, part, k) == need);
        FUZZ_CHECK(part[k - 1] == '\0');
    }
    free(full);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gcev_input in;
    if (!fuzz_decode_input(data, size, &in)) {
        return 0;
    }
    utf16_check(in.data, in.size < 256 ? in.size : 256);
    gcev_event ev;
    gcev_error err;
    if (gcev_decode(&in, &ev, &err) != GCEV_OK) {
        return 0;
    }
    static const fuzz_fmt_fn fns[] = {gcev_format_text, gcev_format_fields_json, gcev_format_names_json};
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        size_t need = fns[f](&ev, NULL, 0);
        size_t step = need / 64 + 1;
        for (size_t n = 0; n <= need + 1; n += step) {
            fuzz_format_one(&ev, fns[f], n);
        }
    }
    /* map formatting on values from the payload */
    gcev_field_iter it;
    gcev_field fld;
    gcev_field_iter_init(&it, &ev);
    while (gcev_field_next(&it, &fld)) {
        if (fld.map) {
            char buf[8];
            size_t need = gcev_map_format(fld.map, fld.v.u, NULL, 0);
            FUZZ_CHECK(gcev_map_format(fld.map, fld.v.u, buf, sizeof buf) == need);
            FUZZ_CHECK(strlen(buf) < sizeof buf);
            (void)gcev_map_name(fld.map, fld.v.u);
        }
    }
    return 0;
}
