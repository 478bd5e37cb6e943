// SPDX-License-Identifier: MIT
// The public header must compile as C++ and link from a C++ program.
#include <gcev/gcev.h>

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
    return (s.count == 8 && reason && std::strcmp(reason, "Induced") == 0) ? 0 : 1;
}
