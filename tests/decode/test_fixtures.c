/* SPDX-License-Identifier: MIT */
/*
 * Every real payload of ../shared/fixtures/gc_payloads.jsonl (taken from
 * Microsoft's traces) decodes to exactly its expected fields: same names, same
 * values, nothing missing, nothing extra, no trailing bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gcev/gcev.h>

#include "testutil.h"

static void test_fixtures_all_payloads_decode_to_expected_fields(void **state)
{
    (void)state;
    const char *dir = testutil_shared_dir();
    assert_non_null(dir);
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/gc_payloads.jsonl", dir);
    char *text = testutil_read_file(path, NULL);
    assert_non_null(text);
    int checked = 0, failed = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        tj fx;
        assert_int_equal(tj_parse(line, &fx), 0);
        const tj *prov = tj_get(&fx, "provider"), *id = tj_get(&fx, "id"), *ver = tj_get(&fx, "version");
        const tj *ps = tj_get(&fx, "pointer_size"), *hex = tj_get(&fx, "payload_hex"),
                 *want = tj_get(&fx, "fields");
        assert_true(prov && id && ver && ps && hex && want);
        uint8_t *bytes = NULL;
        size_t n = testutil_unhex(hex->str, &bytes);
        assert_true(n != (size_t)-1);
        gcev_input in = {.struct_size = sizeof in,
                         .provider = gcev_provider_find(prov->str),
                         .event_id = (uint16_t)atoi(id->num),
                         .version = (uint16_t)atoi(ver->num),
                         .pointer_size = (uint8_t)atoi(ps->num),
                         .data = bytes,
                         .size = n};
        assert_non_null(in.provider);
        gcev_event ev;
        gcev_error err;
        gcev_status st = gcev_decode(&in, &ev, &err);
        char diff[1024] = "";
        if (st != GCEV_OK) {
            snprintf(diff, sizeof diff, "decode failed: %s at %llu (%s)", err.message,
                     (unsigned long long)err.offset, err.field ? err.field : "-");
        } else if (ev.trailing != 0) {
            snprintf(diff, sizeof diff, "%u trailing bytes", ev.trailing);
        } else {
            size_t need = gcev_format_fields_json(&ev, NULL, 0) + 1;
            char *json = malloc(need);
            gcev_format_fields_json(&ev, json, need);
            tj got;
            if (tj_parse(json, &got) != 0) {
                snprintf(diff, sizeof diff, "our JSON does not parse: %.200s", json);
            } else {
                tj_diff(want, &got, "fields", diff, sizeof diff);
                tj_free(&got);
            }
            free(json);
        }
        if (diff[0]) {
            print_error("%s id %s v%s (%s, %zu bytes): %s\n", prov->str, id->num, ver->num,
                        tj_get(&fx, "symbol")->str, n, diff);
            failed++;
        }
        checked++;
        free(bytes);
        tj_free(&fx);
    }
    free(text);
    print_message("%d fixture payloads checked, %d failed\n", checked, failed);
    assert_true(checked > 0);
    assert_int_equal(failed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures_all_payloads_decode_to_expected_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
