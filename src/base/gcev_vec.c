/* SPDX-License-Identifier: MIT */
#include "gcev_vec.h"

#include <stdint.h>
#include <stdlib.h>

int gcev_reserve(void **v, size_t *cap, size_t need, size_t size)
{
    return gcev_reserve_from(v, cap, need, size, 16);
}

int gcev_reserve_from(void **v, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap) {
        return 1;
    }
    size_t n = *cap ? *cap : first ? first : 1;
    while (n < need) {
        if (n > SIZE_MAX / 2) {
            return 0;
        }
        n *= 2;
    }
    if (n > SIZE_MAX / size) {
        return 0;
    }
    void *p = realloc(*v, n * size);
    if (!p) {
        return 0;
    }
    *v = p;
    *cap = n;
    return 1;
}
