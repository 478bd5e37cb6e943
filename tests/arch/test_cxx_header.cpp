// SPDX-License-Identifier: MIT
// The public headers must compile as C++ and link from a C++ program.
#include <gcev/gcev.h>
#include <gcev/gcev_report.h>

#include <cstdio>
#include <cstring>

int main()
{
    static const unsigned char payload[] = {8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0};
    gcev_gc_start s;
    gcev_error err;
    if (gcev_decode_gc_start(payload, sizeof payload, 1, 8, &s, NULL, &err) != GCEV_OK) {
        std::printf("decode failed: %s\n", err.message);
        return 1;
    }
    const char *reason = gcev_gc_reason_map_name(s.reason);
    if (!(s.count == 8 && reason && std::strcmp(reason, "Induced") == 0)) {
        return 1;
    }
    // the page of an empty analysis, from C++
    gcev_stats *st = NULL;
    char *html = NULL;
    size_t size = 0;
    int ok = gcev_stats_create(NULL, &st) == GCEV_OK && gcev_stats_finish(st) == GCEV_OK &&
             gcev_report_build(st, NULL, NULL, &html, &size) == GCEV_OK && size > 0 &&
             std::strstr(html, "id=\"no-gc\"") != NULL;
    gcev_report_free(html);
    gcev_stats_free(st);
    return ok ? 0 : 1;
}
