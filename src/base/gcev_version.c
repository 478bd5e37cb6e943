/* SPDX-License-Identifier: MIT */
/* The library's own version, for programs to compare with the headers they were built with. */
#include <gcev/gcev.h>

uint32_t gcev_version(void)
{
    return GCEV_VERSION_HEX;
}

const char *gcev_version_string(void)
{
    return GCEV_VERSION_STRING;
}
